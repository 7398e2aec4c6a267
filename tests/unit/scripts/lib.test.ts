/**
 * scripts/lib.sh: the helpers for scripts started with SIGINT ignored (in the background by a non-interactive
 * shell, under nohup). Such a script passes the ignored SIGINT to every command, and the Pulumi CLI then waits 5 s
 * for each plugin it stops (scripts/lib.sh says why); `sigint_default` gives a command the default disposition.
 * Real bash and python3 processes; the signal masks are read from /proc. And `cpu_busy`, the benchmark's share of
 * busy CPU time over a span, from samples of /proc/stat.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const LIB = path.resolve(__dirname, "../../../scripts/lib.sh");

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

describe("scripts/lib.sh: cpu_busy (the benchmark's share of busy CPU time over a span)", () => {
  /** Writes samples to a temporary file and runs cpu_busy on it. */
  function busy(samples: string[], from: number, to: number): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cpu-busy-"));
    try {
      const file = path.join(dir, "stat");
      fs.writeFileSync(file, samples.map((s) => `${s}\n`).join(""));
      const r = run(`cpu_busy ${JSON.stringify(file)} ${from} ${to}`, false);
      expect(r.stderr).toBe("");
      return r.stdout.trim();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  // `<µs> cpu user nice system idle iowait irq softirq steal guest guest_nice`, as the benchmark's sampler writes them.
  const samples = [
    "1000000 cpu  100 0 100 1000 0 0 0 0 0 0",
    "1100000 cpu  150 0 150 1000 0 0 0 0 0 0",
    "1200000 cpu  200 10 160 1020 20 0 0 0 0 0",
    "1300000 cpu  200 10 160 1120 20 0 0 0 0 0",
  ];

  test("busy share between the last sample at or before the start and the first at or after the end", () => {
    // 1.0 s to 1.1 s: 100 ticks busy, none idle.
    expect(busy(samples, 1_000_000, 1_100_000)).toBe("1.000");
    // 1.05 s to 1.2 s reads 1.0 s to 1.2 s: 170 busy (user, nice, system), 20 idle and 20 iowait of 210.
    expect(busy(samples, 1_050_000, 1_200_000)).toBe((170 / 210).toFixed(3));
    // 1.0 s to 1.25 s reads 1.0 s to 1.3 s: 170 busy of 310.
    expect(busy(samples, 1_000_000, 1_250_000)).toBe((170 / 310).toFixed(3));
  });

  test("steal counts as busy; samples that do not cover the span give 0.000", () => {
    expect(busy(["0 cpu  0 0 0 0 0 0 0 0 0 0", "10 cpu  0 0 0 50 0 0 0 50 0 0"], 0, 10)).toBe("0.500");
    expect(busy(samples, 900_000, 1_100_000)).toBe("0.000");
    expect(busy(samples, 1_000_000, 1_400_000)).toBe("0.000");
  });

  test("reads the samples cpu_samples takes of /proc/stat", () => {
    // Waits for two samples (at most 30 s) rather than a fixed time: on a loaded machine the sampler's python3
    // may take longer than a fixed wait to start.
    const r = run(
      // Waits for two samples rather than a fixed time: python3 may take seconds to start on a loaded machine.
      'f=$(mktemp); cpu_samples >"$f" & p=$!; ' +
        'for i in $(seq 300); do test "$(wc -l <"$f")" -ge 2 && break; sleep 0.1; done; kill "$p"; wait "$p"; ' +
        'test "$(wc -l <"$f")" -ge 2 || exit 9; ' +
        'a=$(head -1 "$f" | cut -d" " -f1); b=$(tail -1 "$f" | cut -d" " -f1); cpu_busy "$f" "$a" "$b"; rm -f "$f"',
      false,
    );
    expect(r.status).toBe(0);
    const share = Number(r.stdout.trim());
    expect(r.stdout.trim()).toMatch(/^[01]\.\d{3}$/);
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
  });
});
