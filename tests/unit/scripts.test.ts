/**
 * scripts/lib.sh: the helpers for scripts started with SIGINT ignored (in the background by a non-interactive
 * shell, under nohup). Such a script passes the ignored SIGINT to every command, and the Pulumi CLI then waits 5 s
 * for each plugin it stops (scripts/lib.sh says why); `sigint_default` gives a command the default disposition.
 * Real bash and python3 processes; the signal masks are read from /proc.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";

const LIB = path.resolve(__dirname, "../../scripts/lib.sh");

/** Runs `script` in a bash that sources lib.sh, started by a bash that ignores SIGINT and SIGQUIT (or not). */
function run(script: string, ignoring: boolean) {
  const inner = `source ${JSON.stringify(LIB)}; ${script}`;
  const outer = `${ignoring ? 'trap "" INT QUIT; ' : ""}bash -c ${shellQuote(inner)}`;
  return spawnSync("bash", ["-c", outer], { encoding: "utf8" });
}
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** The SigIgn mask printed by `grep SigIgn /proc/self/status`. */
const ignored = (line: string) => BigInt(`0x${line.trim().split(/\s+/)[1]}`);

describe("scripts/lib.sh: SIGINT ignored on entry", () => {
  test("sigint_ignored tells, and sigint_default runs a command with SIGINT and SIGQUIT at their default", () => {
    const r = run(
      "sigint_ignored && echo ignored; grep SigIgn /proc/self/status; sigint_default grep SigIgn /proc/self/status",
      true,
    );
    expect(r.status).toBe(0);
    const [tell, plain, reset] = r.stdout.trim().split("\n");
    expect(tell).toBe("ignored");
    // A command started by the shell inherits both as ignored (SIGINT is bit 2, SIGQUIT bit 3).
    expect(ignored(plain) & 0b110n).toBe(0b110n);
    expect(ignored(reset) & 0b110n).toBe(0n);
  });

  test("a shell started normally is not reported; sigint_default returns the command's exit status", () => {
    const r = run("sigint_ignored && echo ignored; sigint_default bash -c 'exit 7'; echo status=$?", false);
    expect(r.stdout.trim()).toBe("status=7");
  });
});
