/**
 * `nvcf destroy --env <env>`: tears an environment down in the only safe order: the compute planes first
 * (in parallel, at most `--parallel` at once; each stack's own teardown drains its NVCFBackend before the
 * operator goes), then the control plane. A selection that would destroy the control plane while a compute
 * plane of the environment still has resources is refused before anything is touched (EXIT.deployment), and
 * the control plane is left alone when a compute plane's destroy failed.
 */
import type { OperationResult } from "../automation";
import { CliError } from "../report";
import { EXIT, type Environment, type ExitCode, type StackFile } from "../types";
import { confirm, reportFailures, requireYesOrTerminal, selectStacks } from "./select";
import { progressFor } from "./up";

/** Options of `nvcf destroy`. */
export interface DestroyOptions {
  stack?: string[];
  yes?: boolean;
  plain?: boolean;
  parallel: number;
}

/**
 * Refuses a wrong order: destroying `control` while a compute plane that is not selected still has
 * resources (`counts`: resources per stack in the backend). Throws `CliError` (EXIT.deployment) naming those
 * stacks and the command that destroys in order. Pure.
 */
export function checkDestroyOrder(
  env: Environment,
  selected: { control?: StackFile; compute: StackFile[] },
  counts: ReadonlyMap<string, number>,
): void {
  if (!selected.control) return;
  const chosen = new Set(selected.compute.map((s) => s.stack));
  const left = env.compute.filter((s) => !chosen.has(s.stack) && (counts.get(s.stack) ?? 0) > 0);
  if (left.length === 0) return;
  const names = left.map((s) => s.stack).join(", ");
  throw new CliError(
    EXIT.deployment,
    `refusing to destroy control-plane stack ${env.control.stack}: compute-plane stack(s) ${names} still have ` +
      `resources and reference it. Nothing was changed. Fix: nvcf destroy --env ${env.name} (destroys them ` +
      `first), or nvcf destroy --env ${env.name} --stack ${left.map((s) => s.stack).join(" --stack ")} first`,
  );
}

/** Runs the verb (see the module comment). Returns the exit code. */
export async function destroy(env: Environment, opts: DestroyOptions): Promise<ExitCode> {
  const { mapBounded, openStack, resourceCounts, runOperation } = await import("../automation");
  const selected = selectStacks(env, opts.stack);
  requireYesOrTerminal(opts.yes, "destroy");
  const counts = await resourceCounts(env);
  checkDestroyOrder(env, selected, counts);
  const all = [...selected.compute, ...(selected.control ? [selected.control] : [])];
  await confirm(
    `Destroy ${all.map((s) => s.stack).join(", ")} (environment ${env.name})? This deletes every release and namespace of these stacks.`,
    opts.yes,
    "destroy",
  );
  const progress = progressFor(
    "destroy",
    all.map((s) => s.stack),
    opts.plain,
  );
  const one = async (s: StackFile): Promise<OperationResult | undefined> => {
    if ((counts.get(s.stack) ?? 0) === 0) {
      progress.skip(s.stack, counts.has(s.stack) ? "nothing deployed" : "stack not initialised");
      return undefined;
    }
    const stack = await openStack(env, s);
    if (!stack) {
      progress.skip(s.stack, "stack not initialised");
      return undefined;
    }
    progress.start(s.stack);
    const r = await runOperation("destroy", stack, { onEvent: (e) => progress.event(s.stack, e) });
    progress.finish(s.stack, r.ok, r.changes);
    return r;
  };
  try {
    const computes = (await mapBounded(selected.compute, opts.parallel, one)).filter(
      (r): r is OperationResult => !!r,
    );
    if (computes.some((r) => !r.ok)) {
      if (selected.control) progress.skip(selected.control.stack, "a compute plane failed to destroy");
      progress.close();
      return reportFailures(computes);
    }
    const control = selected.control ? await one(selected.control) : undefined;
    progress.close();
    return reportFailures(control ? [control] : []);
  } finally {
    progress.close();
  }
}
