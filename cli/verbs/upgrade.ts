/**
 * `nvcf upgrade --env <env> --to <bundle>`: moves a deployed environment to another NVCF bundle as one operation.
 * The work itself is what `pulumi up` of the program does when `nvcf:bundleVersion` moves one bundle (the plan,
 * the OpenBao and Cassandra phases as resources: upgrade/plan.ts, components/upgradeSteps.ts); the verb
 * checks first, shows the plan, and runs the stacks in the only safe order:
 *
 * 1. what is deployed: every stack's bundle from its own outputs in the backend (`bundleVersion`); a stack never
 *    deployed is left for `nvcf up`;
 * 2. refusals, before anything is touched (EXIT.config): the moves the program refuses (downgrade, skipped bundle,
 *    0.6.1 → 0.7.0 with Cassandra, data-touching moves on non-dev stacks without the backups acknowledged), every
 *    stack's config at the target (with the `--set` changes that go with the bundle change, e.g. the add-ons a
 *    bundle brings), and stack files that name a third bundle;
 * 3. health (EXIT.health, nothing touched): `nvcf status`'s checks of the environment at the bundle it claims. A
 *    resumed upgrade (the stack files already name the target, the outputs still the source) checks only that the
 *    clusters answer, and says so: a half-done upgrade is expected to be unhealthy;
 * 4. the plan of every stack, and a preview of the control plane at the target bundle, then the confirmation
 *    (`--yes` when not interactive);
 * 5. `nvcf:bundleVersion` (and the `--set` changes) written to the stack files, control plane first, through
 *    `pulumi config set`;
 * 6. `pulumi up` of the control plane, then of the GPU-cluster stacks in parallel; a stack already at the target
 *    is skipped (a resumed upgrade goes on where it stopped);
 * 7. verification: `nvcf status`'s checks (re-checked for up to `--verify-seconds`) and every stack's
 *    `bundleVersion` output at the target.
 *
 * Ctrl-C stops after the operations in flight (the engine cancels them) and the verb exits naming the command that
 * continues; Ctrl-C twice exits at once.
 */
import * as fs from "node:fs";
import type { Stack } from "@pulumi/pulumi/automation";
import { BUNDLE_VERSIONS, type BundleVersion } from "../../catalog/releases";
import {
  type UpgradePlan,
  computeSubject,
  controlSubject,
  formatPlan,
  planUpgrade,
} from "../../upgrade/plan";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../config/schema";
import { parsePropertyPath, setPath } from "../../config/paths";
import type { ComputeInputs } from "../../values/compute";
import type { OperationResult } from "../automation";
import { stepLines } from "../progress";
import { CliError, printFindings } from "../report";
import { EXIT, type Environment, type ExitCode, type Finding, type StackFile } from "../types";
import { formatPreview, stackChanges } from "./preview";
import { inRehearsal } from "./rehearse";
import { confirm, reportFailures, requireYesOrTerminal } from "./select";
import { type UpOptions, progressFor } from "./up";

/** Options of `nvcf upgrade`: those of `nvcf up` but `--stack` (the whole environment moves), and these. */
export interface UpgradeOptions extends Omit<UpOptions, "stack"> {
  /** The target bundle. */
  to: string;
  /** `<stack>:<key>=<value>` config changes that go with the bundle change (repeatable). */
  set?: string[];
}

/** One `--set <stack>:<key>=<value>`: an `nvcf:` key (a `--path` key path, no prefix) of one stack. */
export interface StackSetting {
  stack: string;
  key: string;
  value: string;
}

/**
 * Parses the `--set` arguments (pure). Input: the raw arguments and the environment. Output: the settings in
 * order. Throws `CliError` (EXIT.usage) for a malformed one, a stack outside the environment, or a key the upgrade
 * sets itself (`bundleVersion`, `plane`).
 */
export function parseSettings(list: readonly string[], env: Environment): StackSetting[] {
  const stacks = [env.control, ...env.compute].map((s) => s.stack);
  return list.map((raw) => {
    const m = /^([^:=\s]+):(?:nvcf:)?([A-Za-z][\w.[\]-]*)=(.*)$/s.exec(raw);
    if (!m)
      throw new CliError(
        EXIT.usage,
        `--set ${raw}: expected <stack>:<key>=<value>, e.g. --set dev-gpu-b:addons.kaiScheduler.enabled=true`,
      );
    const [, stack, key, value] = m;
    if (!stacks.includes(stack))
      throw new CliError(
        EXIT.usage,
        `--set ${raw}: ${stack} is not a stack of environment "${env.name}". Its stacks: ${stacks.join(", ")}`,
      );
    if (key === "bundleVersion" || key === "plane")
      throw new CliError(
        EXIT.usage,
        `--set ${raw}: nvcf:${key} is not set with --set (--to sets the bundle)`,
      );
    return { stack, key, value };
  });
}

/** What the backend holds for one stack. */
export interface DeployedStack {
  file: StackFile;
  /** The bundle its stack file names now. */
  fileBundle: string;
  /** Deployed (the backend holds resources for it). */
  deployed: boolean;
  /** Its plain outputs (secret ones as the backend keeps them, encrypted). */
  outputs: Record<string, unknown>;
  /** The bundle it is at: its `bundleVersion` output, else (a GPU cluster deployed before it exported one) its control plane's. */
  bundle?: string;
}

/** The verb's decision on the environment as deployed (pure; see `upgradeDecision`). */
export interface UpgradeDecision {
  /** Every deployed stack is at the target: nothing to do. */
  done: boolean;
  /** The stack files already name the target while some deployed stack is not at it: a run that stopped. */
  resuming: boolean;
  /** Deployed stacks not at the target, control plane first. */
  moving: DeployedStack[];
  /** Stacks never deployed (left for `nvcf up`). */
  notDeployed: string[];
  /** Refusals that are not the program's: stack files naming a third bundle. */
  problems: string[];
}

/**
 * Decides what an upgrade of the environment to `target` has to do (pure). Input: the control plane first, then
 * the GPU clusters, as the backend and the stack files have them. Output: the decision. Throws `CliError`
 * (EXIT.deployment) when the control plane is not deployed (nothing to upgrade; `nvcf up` installs).
 */
export function upgradeDecision(
  stacks: readonly DeployedStack[],
  target: string,
  env: string,
): UpgradeDecision {
  const [control] = stacks;
  if (!control?.deployed)
    throw new CliError(
      EXIT.deployment,
      `control-plane stack ${control?.file.stack ?? env} is not deployed: there is nothing to upgrade. Nothing was changed. ` +
        `Fix: nvcf up --env ${env} (with nvcf:bundleVersion ${target} in the stack files, it installs that bundle)`,
    );
  const deployed = stacks.filter((s) => s.deployed);
  const moving = deployed.filter((s) => s.bundle !== target);
  const problems: string[] = [];
  for (const s of deployed)
    if (s.fileBundle !== s.bundle && s.fileBundle !== target)
      problems.push(
        `stack ${s.file.stack}: its stack file names NVCF bundle ${s.fileBundle}, but it is deployed at ${s.bundle ?? "an unknown bundle"}: ` +
          `set nvcf:bundleVersion back to ${s.bundle} (pulumi config set -s ${s.file.stack} nvcf:bundleVersion ${s.bundle}) before upgrading to ${target}`,
      );
  return {
    done: moving.length === 0,
    resuming:
      moving.length > 0 && moving.every((s) => s.fileBundle === target) && control.fileBundle === target,
    moving,
    notDeployed: stacks.filter((s) => !s.deployed).map((s) => s.file.stack),
    problems,
  };
}

/** The plain outputs of a stack and whether it is deployed, from `pulumi stack export` (no secret is decrypted). */
async function readDeployed(
  stack: Stack | undefined,
): Promise<{ deployed: boolean; outputs: Record<string, unknown> }> {
  if (!stack) return { deployed: false, outputs: {} };
  const d = (await stack.exportStack()).deployment as {
    resources?: { type: string; outputs?: Record<string, unknown> }[];
  };
  const resources = d?.resources ?? [];
  const root = resources.find((r) => r.type === "pulumi:pulumi:Stack");
  return { deployed: resources.length > 1, outputs: root?.outputs ?? {} };
}

const fileBundleOf = (s: StackFile): string =>
  typeof s.config["bundleVersion"] === "string" ? (s.config["bundleVersion"] as string) : "0.8.0";

/** Placeholder inputs for comparing a GPU cluster's values between bundles (the same on both sides). */
const SAME_INPUTS: ComputeInputs = {
  imageRegistry: "<registry>",
  imageRepository: "<repository>",
  clusterID: "<cluster>",
  clusterGroupID: "<group>",
  ncaID: "<nca>",
  region: "<region>",
  icmsServiceURL: "<icms>",
  revalServiceURL: "<reval>",
  natsURL: "<nats>",
  icmsHost: "<icms-host>",
  revalHost: "<reval-host>",
  natsHost: "<nats-host>",
};

/**
 * A stack's raw `nvcf:` config at the target: `bundleVersion` set and the `--set` changes applied (a key path goes
 * into the JSON of its top-level key, as `pulumi config set --path` writes it). Pure.
 */
export function configAtTarget(
  raw: Readonly<Record<string, string>>,
  target: string,
  settings: readonly StackSetting[],
  parse: (v: string) => unknown,
): Record<string, string> {
  const out: Record<string, string> = { ...raw, bundleVersion: target };
  for (const s of settings) {
    const [head, ...rest] = parsePropertyPath(s.key);
    const key = String(head);
    if (rest.length === 0) {
      out[key] = s.value;
      continue;
    }
    const holder: Record<string, unknown> = { [key]: out[key] === undefined ? undefined : parse(out[key]) };
    setPath(holder, [key, ...rest], parse(s.value));
    out[key] = JSON.stringify(holder[key]);
  }
  return out;
}

/**
 * The environment as it is deployed, which the health check before an upgrade judges (pure). Input: the
 * environment and its stacks as `upgrade` read them (control plane first, then the GPU clusters, in the
 * environment's order). Output: the environment without the GPU-cluster stacks never deployed, each stack file's
 * `bundleVersion` replaced by the bundle its stack is at (`DeployedStack.bundle`, when known): a stack file that
 * already names the target must not make the check expect the target's chart versions from releases that are
 * still at the source.
 */
export function environmentAsDeployed(env: Environment, stacks: readonly DeployedStack[]): Environment {
  const asDeployed = (f: StackFile): StackFile => {
    const bundle = stacks.find((s) => s.file === f)?.bundle;
    return bundle ? { ...f, config: { ...f.config, bundleVersion: bundle } } : f;
  };
  return {
    ...env,
    control: asDeployed(env.control),
    compute: env.compute.filter((c) => stacks.find((s) => s.file === c)?.deployed).map(asDeployed),
  };
}

const out = (l: string) => process.stdout.write(`${l}\n`);
const err = (l: string) => process.stderr.write(`${l}\n`);

/** Runs the verb (see the module comment). Returns the exit code. */
export async function upgrade(env: Environment, opts: UpgradeOptions): Promise<ExitCode> {
  if (!(BUNDLE_VERSIONS as readonly string[]).includes(opts.to))
    throw new CliError(
      EXIT.usage,
      `--to ${opts.to}: not a bundle this program knows. Bundles: ${BUNDLE_VERSIONS.join(", ")}`,
    );
  const target = opts.to as BundleVersion;
  const settings = parseSettings(opts.set ?? [], env);
  requireYesOrTerminal(opts.yes, "upgrade");
  const a = await import("../automation");
  const files = [env.control, ...env.compute];

  // 1. What is deployed.
  const opened = await Promise.all(files.map((f) => a.openStack(env, f)));
  const read = await Promise.all(opened.map(readDeployed));
  const controlBundle = read[0].outputs["bundleVersion"];
  const stacks: DeployedStack[] = files.map((file, i) => {
    const own = read[i].outputs["bundleVersion"];
    const bundle =
      typeof own === "string" ? own : i > 0 && typeof controlBundle === "string" ? controlBundle : undefined;
    return {
      file,
      fileBundle: fileBundleOf(file),
      deployed: read[i].deployed,
      outputs: read[i].outputs,
      ...(bundle ? { bundle } : {}),
    };
  });
  const decision = upgradeDecision(stacks, target, env.name);
  if (decision.done) {
    out(`environment ${env.name} is at NVCF bundle ${target}: nothing to upgrade`);
    return EXIT.ok;
  }
  const from = stacks[0].bundle ?? "?";

  // 2. Refusals, before anything is touched: the program's rules and every config at the target.
  const { parseRaw, validateConfig } = await import("../../config/load");
  const { ConfigError } = await import("../../config/problems");
  const lines: string[] = [...decision.problems];
  const plans: UpgradePlan[] = [];
  for (const s of decision.moving) {
    const stack = opened[files.indexOf(s.file)] as Stack;
    const { raw, secret } = await a.stackConfig(stack);
    const mine = settings.filter((x) => x.stack === s.file.stack);
    try {
      const cfg = validateConfig(configAtTarget(raw, target, mine, parseRaw), secret, s.file.stack);
      const subject =
        cfg.plane === "control"
          ? controlSubject(cfg as ControlPlaneConfig, s.file.stack)
          : computeSubject(cfg as ComputePlaneConfig, s.file.stack, SAME_INPUTS);
      plans.push(planUpgrade(subject, { ...s.outputs, bundleVersion: s.bundle }));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      lines.push(...e.message.split("\n"));
    }
  }
  if (lines.length) {
    for (const l of lines) err(l);
    err(
      `nvcf upgrade: refused; nothing was changed. Config changes that go with the bundle change are given as ` +
        `--set <stack>:<key>=<value> (e.g. --set dev-gpu-b:addons.kaiScheduler.enabled=true); docs/upgrading.md`,
    );
    return EXIT.config;
  }

  // 3. Health.
  const secrets = a.secretsOf(env);
  const { checkHealth } = await import("../health");
  const registrations = await a.registrationsOf(env);
  const deployedEnv = environmentAsDeployed(env, stacks);
  if (decision.resuming) {
    out(
      `resuming the upgrade of environment ${env.name} to ${target}: the stack files name ${target}, ` +
        `${decision.moving.map((s) => `${s.file.stack} is still at ${s.bundle}`).join(", ")}. ` +
        `A half-done upgrade is not expected to be healthy: the check before it is reduced to the clusters answering`,
    );
    const findings = await a.asConfigError(() =>
      checkHealth(deployedEnv, { kubeconfig: opts.kubeconfig, secrets, registrations }),
    );
    const unreachable = findings.filter((f: Finding) => f.check === "cluster.reachable" && !f.ok);
    if (unreachable.length) {
      printFindings("clusters", unreachable, { failCode: EXIT.health }, out);
      err("nvcf upgrade: a cluster does not answer; nothing was changed");
      return EXIT.health;
    }
    out(
      `clusters answering: ${[deployedEnv.control, ...deployedEnv.compute].map((s) => s.stack).join(", ")}`,
    );
  } else {
    const findings = await a.asConfigError(() =>
      checkHealth(deployedEnv, { kubeconfig: opts.kubeconfig, secrets, registrations }),
    );
    const code = printFindings(`health at ${from}`, findings, { failCode: EXIT.health }, out);
    if (code !== EXIT.ok) {
      err(
        `nvcf upgrade: environment ${env.name} is not healthy at ${from}; nothing was changed. Fix what the checks name (nvcf status --env ${env.name}), then upgrade`,
      );
      return code;
    }
  }
  for (const n of decision.notDeployed)
    out(
      `${n}: not deployed; its stack file is set to ${target} and nvcf up --env ${env.name} installs it there`,
    );

  // 4. The plan, a preview of the control plane at the target, the confirmation.
  for (const p of plans) for (const l of formatPlan(p)) out(l);
  const packs = a.policyPacks(opts.policyPack);
  const stackOf = (s: StackFile) => opened[files.indexOf(s)] as Stack;
  const write = async (s: StackFile) => {
    const st = (opened[files.indexOf(s)] ??= await a.openStack(env, s, { create: true })) as Stack;
    if (fileBundleOf(s) !== target) await st.setConfig("nvcf:bundleVersion", { value: target });
    for (const x of settings.filter((y) => y.stack === s.stack))
      await st.setConfig(`nvcf:${x.key}`, { value: x.value }, x.key.includes(".") || x.key.includes("["));
  };
  const controlMoves = decision.moving.some((s) => s === stacks[0]);
  const original = fs.readFileSync(env.control.file, "utf8");
  let wrote = false;
  if (controlMoves) {
    await write(env.control);
    wrote = fileBundleOf(env.control) !== target || settings.some((x) => x.stack === env.control.stack);
    const r = await a.runOperation("preview", stackOf(env.control), { policyPacks: packs });
    const failed = reportFailures([r]);
    if (failed !== EXIT.ok) {
      if (wrote) fs.writeFileSync(env.control.file, original);
      err("nvcf upgrade: the preview of the control plane at the target failed; nothing was changed");
      return failed;
    }
    out(`preview of ${env.control.stack} at ${target}:`);
    for (const l of formatPreview([stackChanges(env.control.stack, r.events)])) out(`  ${l}`);
  }
  try {
    await confirm(
      `Upgrade environment ${env.name} from ${from} to ${target} (${decision.moving.map((s) => s.file.stack).join(", ")})?`,
      opts.yes,
      "upgrade",
    );
  } catch (e) {
    if (wrote) fs.writeFileSync(env.control.file, original);
    throw e;
  }

  // 5. The stack files: the control plane first (written for the preview), then every GPU cluster.
  for (const s of env.compute) await write(s);

  // 6. The control plane, then the GPU clusters; Ctrl-C stops after what is in flight.
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    err(
      `nvcf upgrade: interrupted; waiting for the operations in flight to stop (Ctrl-C again to exit at once)`,
    );
  };
  process.on("SIGINT", onSigint);
  const resume = `nvcf upgrade --env ${env.name} --to ${target}`;
  const moving = decision.moving.map((s) => s.file.stack);
  const progress = progressFor("up", moving, opts.plain);
  const one = async (s: StackFile): Promise<OperationResult> => {
    progress.start(s.stack);
    const r = await a.runOperation("up", stackOf(s), {
      policyPacks: packs,
      onEvent: (e) => {
        progress.event(s.stack, e);
        stepLines(e, (l) => progress.line(s.stack, l));
      },
    });
    progress.finish(s.stack, r.ok, r.changes);
    return r;
  };
  try {
    if (controlMoves) {
      const r = await one(env.control);
      if (!r.ok || interrupted) {
        for (const s of decision.moving.slice(1))
          progress.skip(s.file.stack, `control plane ${env.control.stack} did not finish`);
        progress.close();
        const code = reportFailures([r]);
        err(
          `nvcf upgrade: ${interrupted ? "interrupted" : "stopped"} in stack ${env.control.stack}, which still reads ${from} ` +
            `(its outputs name the bundle every release reached). ${interrupted ? "Run" : "Fix the cause and run"} ${resume} again: it goes on where this stopped`,
        );
        return code === EXIT.ok ? EXIT.deployment : code;
      }
    }
    const computeMoving = decision.moving.filter((s) => s !== stacks[0]).map((s) => s.file);
    const results = interrupted ? [] : await a.mapBounded(computeMoving, opts.parallel, one);
    progress.close();
    const code = reportFailures(results);
    if (code !== EXIT.ok || interrupted) {
      err(
        `nvcf upgrade: ${interrupted ? "interrupted" : "a GPU-cluster stack failed"}; run ${resume} again to finish`,
      );
      return code === EXIT.ok ? EXIT.deployment : code;
    }
  } finally {
    progress.close();
    process.off("SIGINT", onSigint);
  }

  // 7. Verification: the checks (of the stack files as written now), and every deployed stack's outputs. In a
  // rehearsal no container runs, so there is nothing running to verify: the real run does it.
  const { loadEnvironment } = await import("../environment");
  const now = loadEnvironment(env.projectDir, env.name);
  const registered = await a.registrationsOf(env);
  const rehearsal = inRehearsal();
  if (rehearsal)
    out(`verification: not rehearsed (no container runs in a replica; the real upgrade verifies)`);
  const health = rehearsal
    ? []
    : await a.asConfigError(() =>
        checkHealth(
          { ...now, compute: now.compute.filter((c) => !decision.notDeployed.includes(c.stack)) },
          {
            kubeconfig: opts.kubeconfig,
            secrets,
            registrations: registered,
            retryForSeconds: opts.verifySeconds ?? 600,
            onRetry: (unhealthy, left) =>
              out(
                `verification: ${unhealthy.length} not healthy yet (first: ${unhealthy[0].stack} ${unhealthy[0].object}: ` +
                  `${unhealthy[0].found}); checking again, for up to ${left} s more`,
              ),
          },
        ),
      );
  const code = rehearsal ? EXIT.ok : printFindings("verification", health, { failCode: EXIT.health }, out);
  const after = await Promise.all(
    files.map((f, i) => (decision.notDeployed.includes(f.stack) ? undefined : readDeployed(opened[i]))),
  );
  const behind = files
    .filter((_f, i) => after[i] && after[i]?.outputs["bundleVersion"] !== target)
    .map((f) => f.stack);
  if (behind.length) {
    err(`nvcf upgrade: ${behind.join(", ")} do not export bundleVersion ${target}; run ${resume} again`);
    return EXIT.deployment;
  }
  if (code !== EXIT.ok) return code;
  out(
    `environment ${env.name} upgraded to NVCF bundle ${target}: ` +
      files
        .filter((f) => !decision.notDeployed.includes(f.stack))
        .map((f) => f.stack)
        .join(", "),
  );
  return EXIT.ok;
}
