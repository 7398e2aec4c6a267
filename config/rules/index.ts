/**
 * Cross-field config rules (pure functions): the entry points `validateConfig` (config/load.ts) runs after the
 * schema, one per plane. Each area's rules live in a module of this folder, with its sources:
 *
 * - `charts.ts`: chart sources (`nvcf:charts`), both planes;
 * - `releaseValues.ts` and `releaseValueParity.ts`: the per-release overrides (`nvcf:releaseValues`), both planes;
 * - `registry.ts`: image repository, pull secret and registry keys;
 * - `cassandra.ts`: Cassandra's password and preset;
 * - `accounts.ts`: the account settings and limits;
 * - `gateway.ts`: the Gateways, routes and domain;
 * - `addons.ts`: add-ons the bundle does not ship, and the LLM add-on;
 * - `observability.ts`: the observability stack's modes and the services that read metrics;
 * - `gpuClusters.ts`: the GPU clusters the control plane registers;
 * - `compute.ts`: a GPU cluster's add-ons, NVCA operator and inotify limits;
 * - `restarts.ts`: the restart generations (`nvcf:restarts`), both planes.
 *
 * Sources overall: docs/upstream-facts.md §1.5 (observability), §1.9 (template validations), §2.3/§2.6
 * (compute plane) and the control/compute rows of §4 that can be checked from config.
 */
import type { Problem } from "../problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../schema";
import { accountRules } from "./accounts";
import { addonsNotInBundle, llmRules } from "./addons";
import { cassandraRules } from "./cassandra";
import { chartSourceRules } from "./charts";
import { computeClusterRules } from "./compute";
import type { RuleContext } from "./context";
import { gatewayRules } from "./gateway";
import { gpuClusterRules } from "./gpuClusters";
import { computeObservabilityRules, observabilityRules } from "./observability";
import { registryKeyRules, registryRules } from "./registry";
import { releaseValuesRules } from "./releaseValues";
import { restartRules } from "./restarts";

/**
 * Rules of the control-plane stack (docs/upstream-facts.md §1.5, §1.9, §4). Input: the validated config and
 * the rule context (the stack name). Output: every problem found, by area in this order: chart sources,
 * releaseValues, registry, Cassandra, accounts, gateway, add-ons in the bundle, observability, the LLM add-on,
 * GPU clusters, restart generations. Throws nothing.
 */
export function controlPlaneRules(cfg: ControlPlaneConfig, ctx: RuleContext): Problem[] {
  return [
    ...chartSourceRules(cfg.charts, "control", cfg.bundleVersion),
    ...releaseValuesRules(cfg, ctx),
    ...registryRules(cfg),
    ...cassandraRules(cfg, ctx),
    ...accountRules(cfg),
    ...gatewayRules(cfg),
    ...addonsNotInBundle(cfg),
    ...observabilityRules(cfg),
    ...llmRules(cfg),
    ...gpuClusterRules(cfg),
    ...restartRules(cfg),
  ];
}

/**
 * Rules of a compute-plane stack (docs/upstream-facts.md §2.3, §2.6, §4 rows 9-12, 37). Input: the validated
 * config and the rule context. Output: every problem found, in this order: chart sources, releaseValues,
 * observability, the registry key's format (no key here is fine: the pull secret then uses the control plane's
 * key, a contract output), then the cluster's add-ons, NVCA operator and inotify limits, then the restart
 * generations. Throws nothing.
 */
export function computePlaneRules(cfg: ComputePlaneConfig, ctx: RuleContext): Problem[] {
  return [
    ...chartSourceRules(cfg.charts, "compute", cfg.bundleVersion),
    ...releaseValuesRules(cfg, ctx),
    ...computeObservabilityRules(cfg),
    ...registryKeyRules(cfg.registryKey, "registryKey"),
    ...computeClusterRules(cfg),
    ...restartRules(cfg),
  ];
}
