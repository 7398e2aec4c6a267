/**
 * The stack programs' side of bundle upgrades: each plans its move from its own previous outputs before anything is
 * touched (upgrade/plan.ts), refusing the moves the planner refuses, and logs the plan of a move so that
 * `pulumi preview` and `pulumi up` show it (info diagnostics of the stack).
 */
import * as pulumi from "@pulumi/pulumi";
import { type UpgradePlan, computeSubject, controlSubject, formatPlan, planUpgrade } from "../upgrade/plan";
import { ConfigError, type Problem } from "../config/problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../config/schema";
import type { StackReleases } from "../config/stackReleases";
import type { ComputeInputs } from "../values/compute";
import type { PreviousOutputs } from "../engine/previous";

/** Logs a plan that moves (nothing for a first deployment or a stack that stays at its bundle). */
function logPlan(plan: UpgradePlan): void {
  if (plan.moving) pulumi.log.info(formatPlan(plan).join("\n"));
}

/**
 * The control plane's plan. Input: the validated config, what it installs (config/stackReleases.ts), the stack's
 * previous outputs, and the problems the program's other refusals found in the same config (config/problems.ts).
 * Output: the plan, logged when it moves. Throws `ConfigError` listing those problems and the planner's own
 * together when there is any; nothing is logged then.
 */
export function controlUpgradePlan(
  cfg: ControlPlaneConfig,
  releases: StackReleases,
  previous: PreviousOutputs,
  earlier: readonly Problem[] = [],
): UpgradePlan {
  let plan: UpgradePlan | undefined;
  const problems = [...earlier];
  try {
    plan = planUpgrade(controlSubject(cfg, pulumi.getStack(), releases), previous.values);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problems.push(...e.problems);
  }
  if (problems.length > 0 || plan === undefined) throw new ConfigError(pulumi.getStack(), problems);
  logPlan(plan);
  return plan;
}

/**
 * A compute plane's plan. Input: the validated config, what it installs (config/stackReleases.ts), the stack's
 * previous outputs, and the inputs the control plane hands it (for comparing values; undefined when they could
 * not be built). Output: the plan. Throws `ConfigError` when the move is refused.
 */
export function computeUpgradePlan(
  cfg: ComputePlaneConfig,
  releases: StackReleases,
  previous: PreviousOutputs,
  inputs: ComputeInputs | undefined,
): UpgradePlan {
  const plan = planUpgrade(computeSubject(cfg, pulumi.getStack(), inputs, releases), previous.values);
  logPlan(plan);
  return plan;
}
