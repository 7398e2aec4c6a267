/**
 * `nvcf up --env <env>`: brings an environment up in the only safe order, touching nothing until every
 * check before it passed:
 * 1. every selected stack's config is validated as the program does (EXIT.config, nothing touched);
 * 2. preflight (cli/preflight `runPreflight`; EXIT.preflight, nothing touched);
 * 3. a preview of every stack that can be previewed now (`nvcf preview`'s: the control plane, and the compute
 *    planes when the control plane is deployed), whose summary is printed before the confirmation; the program's
 *    config checks and the server-side dry run of each changed release (engine/dryRun.ts) refuse there what the
 *    update would fail on (EXIT.config / EXIT.deployment, nothing touched);
 * 4. `pulumi up` of the control plane, then of the compute planes in parallel (at most `--parallel` at once),
 *    with live progress per stack and per release (EXIT.config / EXIT.deployment on failure); compute planes not
 *    previewed in step 3 (their control plane was not deployed), and those whose preview failed while the control
 *    plane changes (they read its outputs, which its update changes), are previewed once the control plane is
 *    updated, and none of them is touched when one's preview fails;
 * 5. verification (cli/health `checkHealth`) of the control plane and the compute planes selected, re-checking
 *    for up to `--verify-seconds` while an item is not healthy yet; EXIT.health when anything is still unhealthy.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { Progress, stepLines } from "../progress";
import { CliError, printFindings } from "../report";
import { EXIT, type Environment, type ExitCode, type StackFile } from "../types";
import { inRehearsal } from "./rehearse";
import { confirm, reportFailures, requireYesOrTerminal, selectStacks } from "./select";

/** Options of `nvcf up`. */
export interface UpOptions {
  stack?: string[];
  yes?: boolean;
  plain?: boolean;
  /** How many compute-plane stacks run at once (default 4). */
  parallel: number;
  policyPack?: string[];
  kubeconfig?: string;
  /**
   * Seconds verification keeps re-checking while an item is unhealthy (default 600: the NVCA operator may take
   * up to 10 minutes to report its agent healthy, docs/upstream-facts.md §4); 0 checks once.
   */
  verifySeconds?: number;
  /**
   * Refresh every stack first (`pulumi up --refresh`, the preview too): what was changed or deleted on the clusters
   * behind the program's back (`nvcf drift`) is then put back; without it the update compares with the state only.
   */
  refresh?: boolean;
}

/** Progress drawn in place only on a terminal and without `--plain`. */
export function progressFor(verb: "up" | "destroy", stacks: string[], plain?: boolean): Progress {
  const tty = !plain && !!process.stdout.isTTY;
  return new Progress(verb, stacks, { tty, write: (t) => process.stdout.write(t) });
}

const out = (l: string) => process.stdout.write(`${l}\n`);

/** Runs the verb (see the module comment). Returns the exit code. */
export async function up(env: Environment, opts: UpOptions): Promise<ExitCode> {
  const a = await import("../automation");
  const { control, compute } = selectStacks(env, opts.stack);
  const selected = [...(control ? [control] : []), ...compute];
  requireYesOrTerminal(opts.yes, "up");
  if (!control && compute.length) {
    // Compute planes read the control plane's outputs: refuse before touching anything when it has none.
    const counts = await a.resourceCounts(env);
    if ((counts.get(env.control.stack) ?? 0) === 0) {
      throw new CliError(
        EXIT.deployment,
        `refusing to deploy ${compute.map((s) => s.stack).join(", ")} before control-plane stack ${env.control.stack}: ` +
          `it is not deployed. Nothing was changed. Fix: nvcf up --env ${env.name} (the control plane first)`,
      );
    }
  }
  // 1. Config, as the program validates it, for every stack before anything is touched.
  const stacks = new Map<string, Stack>();
  const problems: string[] = [];
  for (const s of selected) {
    const stack = await a.openStack(env, s, { create: true });
    if (!stack) throw new CliError(EXIT.internal, `stack ${s.stack} could not be opened`);
    stacks.set(s.stack, stack);
    try {
      await a.validateStackConfig(stack);
    } catch (e) {
      if (!(e instanceof CliError) || e.code !== EXIT.config) throw e;
      problems.push(...e.lines);
    }
  }
  if (problems.length) throw new CliError(EXIT.config, problems[0], problems);

  // 2. Preflight.
  const { runPreflight } = await import("../preflight");
  const secrets = a.secretsOf(env);
  const findings = await a.asConfigError(() => runPreflight(env, { kubeconfig: opts.kubeconfig, secrets }));
  const pre = printFindings("preflight", findings, { failCode: EXIT.preflight }, out);
  if (pre !== EXIT.ok) {
    process.stderr.write("preflight failed: nothing was changed\n");
    return pre;
  }

  // 3. The preview, before the confirmation.
  const packs = a.policyPacks(opts.policyPack);
  const { previewLines, previewStacks, stackChanges } = await import("./preview");
  const previewed = await previewStacks(env, control, compute, {
    policyPacks: packs,
    parallel: opts.parallel,
    refresh: opts.refresh,
  });
  // A compute plane reads its control plane's outputs, which an update of the control plane changes (a resumed
  // upgrade may not even have them all yet): when the control plane changes, a compute plane whose preview failed
  // is previewed again once the control plane is updated, and only that preview counts.
  const controlResult = control && previewed.results.find((r) => r.stack === control.stack);
  const controlChanges =
    !!controlResult?.ok &&
    (() => {
      const c = stackChanges(controlResult.stack, controlResult.events);
      return c.releases.length + c.others.length > 0;
    })();
  const deferred = controlChanges
    ? previewed.results.filter((r) => !r.ok && r.stack !== control?.stack).map((r) => r.stack)
    : [];
  const counted = previewed.results.filter((r) => !deferred.includes(r.stack));
  const refused = reportFailures(counted);
  if (refused !== EXIT.ok) {
    process.stderr.write("preview failed: nothing was changed\n");
    return refused;
  }
  for (const l of previewLines(env, counted, previewed.notPreviewed)) out(`preview: ${l}`);
  for (const s of deferred)
    out(
      `preview: ${s}: previewed again after control-plane stack ${env.control.stack} is updated ` +
        `(its preview against the control plane's present outputs failed)`,
    );
  await confirm(
    `Deploy ${selected.map((s) => s.stack).join(", ")} (environment ${env.name})?`,
    opts.yes,
    "up",
  );

  // 4. The control plane, then the compute planes.
  const progress = progressFor(
    "up",
    selected.map((s) => s.stack),
    opts.plain,
  );
  const one = async (s: StackFile) => {
    progress.start(s.stack);
    const r = await a.runOperation("up", stacks.get(s.stack) as Stack, {
      policyPacks: packs,
      refresh: opts.refresh,
      onEvent: (e) => {
        progress.event(s.stack, e);
        // A bundle move's steps (a resumed upgrade): what each printed.
        stepLines(e, (l) => progress.line(s.stack, l));
      },
    });
    progress.finish(s.stack, r.ok, r.changes);
    return r;
  };
  try {
    if (control) {
      const r = await one(control);
      if (!r.ok) {
        for (const s of compute) progress.skip(s.stack, `control plane ${control.stack} failed`);
        progress.close();
        return reportFailures([r]);
      }
    }
    const late = compute.filter(
      (s) => previewed.notPreviewed.includes(s.stack) || deferred.includes(s.stack),
    );
    if (late.length) {
      const again = await previewStacks(env, undefined, late, {
        policyPacks: packs,
        parallel: opts.parallel,
      });
      const code = reportFailures(again.results);
      if (code !== EXIT.ok) {
        for (const s of compute) progress.skip(s.stack, "a compute plane's preview failed");
        progress.close();
        process.stderr.write(
          `preview failed: nothing was changed on ${compute.map((s) => s.stack).join(", ")}\n`,
        );
        return code;
      }
    }
    const results = await a.mapBounded(compute, opts.parallel, one);
    progress.close();
    const code = reportFailures(results);
    if (code !== EXIT.ok) return code;
  } finally {
    progress.close();
  }

  // 5. Verification: the control plane, which every compute plane stands on, and the compute planes brought up
  // here (a GPU cluster left out with --stack may not be deployed at all). In a rehearsal no container runs, so
  // there is nothing running to verify: the real run does it.
  if (inRehearsal()) {
    out(`verification: not rehearsed (no container runs in a replica; the real run verifies)`);
    return EXIT.ok;
  }
  const { checkHealth } = await import("../health");
  const registrations = await a.registrationsOf(env);
  const health = await a.asConfigError(() =>
    checkHealth(
      { ...env, compute },
      {
        kubeconfig: opts.kubeconfig,
        secrets,
        registrations,
        retryForSeconds: opts.verifySeconds ?? 600,
        onRetry: (unhealthy, left) =>
          out(
            `verification: ${unhealthy.length} not healthy yet (first: ${unhealthy[0].stack} ` +
              `${unhealthy[0].object}: ${unhealthy[0].found}); checking again, for up to ${left} s more`,
          ),
      },
    ),
  );
  return printFindings("verification", health, { failCode: EXIT.health }, out);
}
