/**
 * A stack locked in a DIY state backend (cli/verbs/select.ts `parseLocks`, `lockLines`, `reportFailures`): the
 * Pulumi CLI's refusal, written as pkg/backend/diy/lock.go writes it, read back into its locks, and what `nvcf`
 * prints for it: who holds each lock, whether that process still runs here, and the `pulumi cancel` to run.
 */
import { lockLines, parseLocks, reportFailures } from "../../../../cli/verbs/select";
import { EXIT } from "../../../../cli/types";

const URL = "s3://nvcf-state/.pulumi/locks/organization/nvcf/dev/6f1c2a.json";
/** The CLI's refusal, as the Automation API hands over the end of its standard error. */
const REFUSAL =
  "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the " +
  `lock file with \`pulumi cancel\`.\n  ${URL}: created by root@runner-7 (pid 4242) at 2026-12-07T15:04:05Z`;

test("the refusal's locks: URL, user, host, pid and time; any other text is not a lock", () => {
  expect(parseLocks(REFUSAL)).toEqual([
    { url: URL, user: "root", host: "runner-7", pid: 4242, at: "2026-12-07T15:04:05Z" },
  ]);
  expect(parseLocks("error: preview failed")).toBeUndefined();
});

test("a lock left on this machine by a process that is gone: the pulumi cancel to run, without conditions", () => {
  const locks = parseLocks(REFUSAL) ?? [];
  expect(lockLines("dev", locks, "runner-7", () => false)).toEqual([
    "stack dev is locked in the state backend by 1 lock (a DIY backend's locks never expire; nothing was changed):",
    `  ${URL}: taken by root@runner-7 (pid 4242) at 2026-12-07T15:04:05Z; that process is no longer running on this ` +
      "machine: the lock was left by a run that was killed",
    "fix: run pulumi cancel --stack dev --yes in the project directory (it deletes every lock of the stack), then run this again",
  ]);
});

test("a lock of a running process, or of another machine: wait, or check there, before pulumi cancel", () => {
  const locks = parseLocks(REFUSAL) ?? [];
  const here = lockLines("dev", locks, "runner-7", () => true);
  expect(here[1]).toMatch(/; that process is still running on this machine: let it finish$/);
  expect(here[2]).toMatch(
    /^fix: once no run of the stack is going any more, run pulumi cancel --stack dev --yes /,
  );
  const elsewhere = lockLines("dev", locks, "laptop", () => false);
  expect(elsewhere[1]).toMatch(
    /; taken on another machine \(runner-7\): check there whether that run is still going$/,
  );
  expect(elsewhere[2]).toMatch(/^fix: once no run/);
});

test("reportFailures prints a locked stack's lines, prefixed with the stack, and exits as a failed deployment", () => {
  const out: string[] = [];
  const code = reportFailures([{ stack: "dev", ok: false, events: [], errors: [REFUSAL] }], (l) =>
    out.push(l),
  );
  expect(code).toBe(EXIT.deployment);
  expect(out[0]).toBe(
    "dev: stack dev is locked in the state backend by 1 lock (a DIY backend's locks never expire; nothing was changed):",
  );
  expect(out[out.length - 1]).toMatch(/^dev: fix: .*pulumi cancel --stack dev --yes/);
});
