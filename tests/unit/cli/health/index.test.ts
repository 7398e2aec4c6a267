/**
 * Verification's re-checks (cli/health/index.ts `checkUntilHealthy`, `retryWaitMs`): after `nvcf up` the NVCA
 * operator reports its agent some seconds after its release is deployed, so verification checks again while an
 * error remains. Only the stacks with an error are checked again, the waits grow from 2 s to the longest interval,
 * and the deadline is kept. A fake clock: no real waiting.
 */
import { checkUntilHealthy, type RetryClock, retryWaitMs } from "../../../../cli/health";
import type { Finding } from "../../../../cli/types";

const finding = (stack: string, ok: boolean, severity: "error" | "warning" = "error"): Finding => ({
  check: "nvca.agent",
  stack,
  object: `NVCFBackend of ${stack}`,
  ok,
  severity,
  found: ok ? "healthy" : "agentStatus is not reported",
  needed: ok ? "" : "agentStatus healthy",
  fix: ok ? "" : "wait for the operator",
});

/** A check that always finds the agent unreported; counts its calls. */
function neverHealthy() {
  const c = {
    calls: 0,
    check: async (s: string) => {
      c.calls++;
      return [finding(s, false)];
    },
  };
  return c;
}

/** A clock that only moves when slept on; records each sleep. */
function fakeClock(): RetryClock & { t: number; sleeps: number[] } {
  const c = {
    t: 1_000_000,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms;
    },
  };
  return c;
}

describe("verification re-checks", () => {
  test("the waits: 2 s, then 1.5 times the one before, at most the longest interval", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((r) => retryWaitMs(r))).toEqual([
      2000, 3000, 4500, 6750, 10000, 10000, 10000,
    ]);
    expect([0, 1, 2].map((r) => retryWaitMs(r, 3))).toEqual([2000, 3000, 3000]);
    expect(retryWaitMs(0, 1)).toBe(1000);
  });

  test("only the stacks with an error are checked again; the others keep their findings, in stack order", async () => {
    const clock = fakeClock();
    const calls: string[] = [];
    // gpu-a reports on its third check; the control plane and gpu-b are healthy at once.
    const seen = new Map<string, number>();
    const check = async (s: string) => {
      calls.push(s);
      const n = (seen.get(s) ?? 0) + 1;
      seen.set(s, n);
      return [finding(s, s !== "gpu-a" || n >= 3), finding(s, false, "warning")];
    };
    const retries: [string[], number][] = [];
    const out = await checkUntilHealthy(
      ["dev", "gpu-a", "gpu-b"],
      check,
      { retryForSeconds: 600, onRetry: (u, left) => retries.push([u.map((f) => f.stack), left]) },
      clock,
    );
    expect(calls).toEqual(["dev", "gpu-a", "gpu-b", "gpu-a", "gpu-a"]);
    expect(clock.sleeps).toEqual([2000, 3000]);
    expect(retries).toEqual([
      [["gpu-a"], 600],
      [["gpu-a"], 598],
    ]);
    // Every stack's last findings, passing ones and warnings included, control plane first.
    expect(out.map((f) => [f.stack, f.ok, f.severity])).toEqual([
      ["dev", true, "error"],
      ["dev", false, "warning"],
      ["gpu-a", true, "error"],
      ["gpu-a", false, "warning"],
      ["gpu-b", true, "error"],
      ["gpu-b", false, "warning"],
    ]);
  });

  test("the deadline holds: the last wait ends at it, one last check there, then the errors are returned", async () => {
    const clock = fakeClock();
    const failing = neverHealthy();
    const out = await checkUntilHealthy(
      ["gpu-a"],
      failing.check,
      { retryForSeconds: 12, retryIntervalSeconds: 10 },
      clock,
    );
    // 2 + 3 + 4.5 = 9.5 s, then 2.5 s to the deadline (not 6.75), then the last check.
    expect(clock.sleeps).toEqual([2000, 3000, 4500, 2500]);
    expect(failing.calls).toBe(5);
    expect(out).toEqual([finding("gpu-a", false)]);
  });

  test("without retryForSeconds one check, no wait, even with errors; warnings alone never cause a re-check", async () => {
    const clock = fakeClock();
    const failing = neverHealthy();
    const once = await checkUntilHealthy(["dev"], failing.check, {}, clock);
    expect([failing.calls, clock.sleeps.length, once.length]).toEqual([1, 0, 1]);
    const warned = await checkUntilHealthy(
      ["dev"],
      async (s) => [finding(s, false, "warning")],
      { retryForSeconds: 60 },
      clock,
    );
    expect(warned).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });
});
