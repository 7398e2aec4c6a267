/**
 * What the verbs share: which stacks of the environment a `--stack` list selects, the confirmation of `up`
 * and `destroy` (never read from standard input when not interactive), and the exit code of failed
 * operations.
 */
import * as os from "node:os";
import type { OperationResult } from "../automation";
import { CliError } from "../report";
import { EXIT, type Environment, type ExitCode, type StackFile } from "../types";

/**
 * The stacks `names` selects (default: all): the control plane (when selected) and the selected compute
 * planes in the environment's order. Throws `CliError` (EXIT.usage) for a name that is not a stack of the
 * environment, listing its stacks.
 */
export function selectStacks(
  env: Environment,
  names?: readonly string[],
): { control?: StackFile; compute: StackFile[] } {
  if (!names || names.length === 0) return { control: env.control, compute: [...env.compute] };
  const all = [env.control, ...env.compute].map((s) => s.stack);
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length) {
    throw new CliError(
      EXIT.usage,
      `--stack ${unknown.join(", ")}: not a stack of environment "${env.name}". Its stacks: ${all.join(", ")}`,
    );
  }
  return {
    control: names.includes(env.control.stack) ? env.control : undefined,
    compute: env.compute.filter((s) => names.includes(s.stack)),
  };
}

/** True when both standard input and standard output are terminals (a person can answer a question). */
export function interactive(): boolean {
  return !!process.stdin.isTTY && !!process.stdout.isTTY;
}

/**
 * Throws `CliError` (EXIT.usage) when `yes` is not set and nobody can answer a question (not interactive);
 * the verbs call it before they touch the backend or a cluster.
 */
export function requireYesOrTerminal(yes: boolean | undefined, verb: string): void {
  if (yes || interactive()) return;
  throw new CliError(
    EXIT.usage,
    `nvcf ${verb} changes clusters and needs --yes when not run from a terminal. Fix: nvcf ${verb} --env <env> --yes`,
  );
}

/**
 * Confirms a verb that changes clusters. With `yes`, resolves at once. Not interactive and no `yes`:
 * throws `CliError` (EXIT.usage) saying `--yes` is needed; standard input is never read then. Interactive:
 * asks `question [y/N]` and throws `CliError` (EXIT.usage, "cancelled") unless the answer is y or yes.
 */
export async function confirm(question: string, yes: boolean | undefined, verb: string): Promise<void> {
  if (yes) return;
  requireYesOrTerminal(yes, verb);
  const readline = await import("node:readline/promises");
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(`${question} [y/N] `)).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") throw new CliError(EXIT.usage, `nvcf ${verb} cancelled`);
  } finally {
    rl.close();
  }
}

/**
 * Prints what failed operations said (to stderr): a config refusal as the program's formatted lines,
 * exactly; a stack locked in the state backend as `lockLines` says it; any other failure as its error lines, each
 * prefixed with the stack name. Returns EXIT.config when any
 * refused its config, else EXIT.deployment when any failed, else EXIT.ok.
 */
export function reportFailures(
  results: readonly OperationResult[],
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): ExitCode {
  let config = false;
  let failed = false;
  for (const r of results) {
    if (r.ok) continue;
    failed = true;
    if (r.configProblems) {
      config = true;
      for (const l of r.configProblems) write(l);
      continue;
    }
    const locks = r.errors.map((e) => parseLocks(e)).find((l) => l !== undefined);
    const lines = locks ? lockLines(r.stack, locks) : r.errors.flatMap((e) => e.split("\n"));
    for (const l of lines) write(`${r.stack}: ${l}`);
  }
  return config ? EXIT.config : failed ? EXIT.deployment : EXIT.ok;
}

/** One lock of a stack in a DIY state backend, as the Pulumi CLI's refusal names it. */
export interface StackLock {
  /** Where the lock object is (the backend URL and its key; credentials in the URL masked by the CLI). */
  url: string;
  user: string;
  host: string;
  pid: number;
  /** When it was taken (RFC 3339). */
  at: string;
}

/**
 * The locks a Pulumi CLI's refusal of a locked stack lists (pkg/backend/diy/lock.go: "the stack is currently locked
 * by N lock(s) …" and a line `<url>: created by <user>@<host> (pid <pid>) at <time>` per lock), or `undefined` when
 * the text is not that refusal. Pure.
 */
export function parseLocks(text: string): StackLock[] | undefined {
  if (!/the stack is currently locked by \d+ lock\(s\)/.test(text)) return undefined;
  const out: StackLock[] = [];
  const re = /^\s*(\S+): created by (.+)@(\S+) \(pid (\d+)\) at (\S+)\s*$/gm;
  for (let m = re.exec(text); m; m = re.exec(text))
    out.push({ url: m[1], user: m[2], host: m[3], pid: Number(m[4]), at: m[5] });
  return out;
}

/**
 * What `nvcf` says about a locked stack (one line per lock, then the fix): who holds each lock and, when it was
 * taken on this machine, whether that process still runs (`alive`, default: signal 0 to the pid). A DIY backend's
 * lock never expires: a run that was killed (SIGKILL, a lost runner) leaves it until `pulumi cancel` deletes it.
 */
export function lockLines(
  stack: string,
  locks: readonly StackLock[],
  here: string = os.hostname(),
  alive: (pid: number) => boolean = pidAlive,
): string[] {
  const lines = [
    `stack ${stack} is locked in the state backend by ${locks.length === 1 ? "1 lock" : `${locks.length} locks`} ` +
      "(a DIY backend's locks never expire; nothing was changed):",
  ];
  let allGone = locks.length > 0;
  for (const l of locks) {
    const mine = l.host === here;
    const running = mine && alive(l.pid);
    if (!mine || running) allGone = false;
    const state = !mine
      ? `taken on another machine (${l.host}): check there whether that run is still going`
      : running
        ? "that process is still running on this machine: let it finish"
        : "that process is no longer running on this machine: the lock was left by a run that was killed";
    lines.push(`  ${l.url}: taken by ${l.user}@${l.host} (pid ${l.pid}) at ${l.at}; ${state}`);
  }
  lines.push(
    `fix: ${allGone ? "" : "once no run of the stack is going any more, "}run pulumi cancel --stack ${stack} --yes ` +
      "in the project directory (it deletes every lock of the stack), then run this again",
  );
  return lines;
}

/** True while a process with this pid runs on this machine (signal 0). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
