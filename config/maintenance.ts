/**
 * Maintenance mode of one GPU cluster (`nvcf:maintenance` of a compute stack: `off`, `cordon` or `drain`), as
 * NVCA feature flags in the operator's values, and the refusals NVIDIA's rules call for.
 *
 * Facts (NVIDIA/nvcf at HEAD):
 * - `docs/user/cluster-management/configuration.md` "Cluster Maintenance Modes": two modes, chosen by the NVCA
 *   feature flags `CordonMaintenance` (running workloads stay, nothing new is scheduled) and
 *   `CordonAndDrainMaintenance` (every workload is terminated); a change can take up to 10 minutes to reach the
 *   agent. "Account-Isolated Clusters": while the `AccountIsolation` attribute is toggled, the workloads must
 *   also be drained with `CordonAndDrainMaintenance`, as the attribute does not apply to running workloads.
 * - `src/compute-plane-services/nvca/pkg/nvca/cli.go`: NVCA refuses to start with both flags on, and when its
 *   config's `agent.maintenanceMode` names another mode than the flags give.
 * - `src/clis/nvcf-cli/internal/clusteragent/k8s_maintainer.go`: `nvcf-cli cluster agent cordon-and-drain`
 *   adds `CordonAndDrainMaintenance` to `agent.featureFlags` and sets `agent.maintenanceMode: CordonAndDrain`
 *   in `config.yaml` of ConfigMap `agent-config` (the NVCA system namespace), then restarts Deployment `nvca`;
 *   `uncordon` removes both. It has no cordon-only command.
 * - The operator writes that ConfigMap itself: `src/compute-plane-services/nvca/pkg/operator/reconcile/`
 *   `nvcaagent_reconcile.go` (`newAgentConfig`: `agent.featureFlags` from the NVCFBackend's
 *   `spec.featureGate.values`, which come from the cluster DTO's `capabilities`, i.e. helm-nvca-operator's
 *   `selfManaged.featureGateValues`), and `backendk8scache.go` rewrites it and rolls NVCA out whenever the
 *   ConfigMap on the cluster differs from the one it generates.
 *
 * So the program puts the flag where the operator takes it from (`selfManaged.featureGateValues`,
 * values/compute.ts `featureGates`): the operator then writes it into `agent.featureFlags` of `agent-config`,
 * the field nvcf-cli edits, and keeps it there. docs/drift.md "Maintenance mode of a GPU cluster" says how
 * `pulumi up` and nvcf-cli meet.
 */
import * as yaml from "js-yaml";
import { valueAt } from "./paths";
import { type Problem, describe } from "./problems";
import type { ComputePlaneConfig } from "./schema";

/** The values of `nvcf:maintenance`. */
export type MaintenanceMode = ComputePlaneConfig["maintenance"];

/** The NVCA feature flag each mode sets (none for `off`). */
export const MAINTENANCE_FLAGS: Readonly<Record<Exclude<MaintenanceMode, "off">, string>> = {
  cordon: "CordonMaintenance",
  drain: "CordonAndDrainMaintenance",
};

/** The feature flag of a mode, or undefined for `off`. */
export function maintenanceGate(mode: MaintenanceMode): string | undefined {
  return mode === "off" ? undefined : MAINTENANCE_FLAGS[mode];
}

/** The cluster attribute whose change needs a drain (NVIDIA "Account-Isolated Clusters"). */
export const ACCOUNT_ISOLATION = "AccountIsolation";

/** Where the program's config sets cluster attributes: only through the operator's release values. */
export const CLUSTER_ATTRIBUTES_KEY = "releaseValues.nvca-operator.selfManaged.clusterAttributes";

const K = (key: string) => `nvcf:${key}`;
const FLAG_NAMES = new Set(Object.values(MAINTENANCE_FLAGS));

/** Whether the operator's values give the cluster the `AccountIsolation` attribute. */
export function accountIsolated(cfg: ComputePlaneConfig): boolean {
  const attrs = valueAt(cfg.releaseValues["nvca-operator"], ["selfManaged", "clusterAttributes"]);
  return Array.isArray(attrs) && attrs.includes(ACCOUNT_ISOLATION);
}

/**
 * Config that would set the maintenance mode past `nvcf:maintenance` (pure; config/rules.ts `computePlaneRules`
 * runs it). Output: one problem per entry, naming the key and the fix:
 * - a maintenance flag in `nvcaOperator.featureGates` (as `Gate`, `+Gate` or `-Gate`): two sources of one
 *   setting, and both flags at once stop NVCA from starting;
 * - `agent.maintenanceMode` in the operator's `agentConfig.mergeConfig`: NVCA refuses to start when it names
 *   another mode than the flags.
 */
export function maintenanceRules(cfg: ComputePlaneConfig): Problem[] {
  const out: Problem[] = [];
  cfg.nvcaOperator.featureGates.forEach((g, i) => {
    if (FLAG_NAMES.has(g.replace(/^[-+]/, "")))
      out.push({
        key: K(`nvcaOperator.featureGates[${i}]`),
        expected: "no maintenance flag: nvcf:maintenance sets CordonMaintenance or CordonAndDrainMaintenance",
        found: describe(g),
        fix: `remove it, and pulumi config set nvcf:maintenance ${g.endsWith("AndDrainMaintenance") ? "drain" : "cordon"} (or off)`,
      });
  });
  const merge = valueAt(cfg.releaseValues["nvca-operator"], ["agentConfig", "mergeConfig"]);
  let parsed: unknown;
  try {
    parsed = typeof merge === "string" ? yaml.load(merge) : undefined;
  } catch {
    parsed = undefined; // Not YAML: values/compute.ts `agentMergeConfig` reports it.
  }
  const mode = valueAt(parsed, ["agent", "maintenanceMode"]);
  if (mode !== undefined)
    out.push({
      key: K("releaseValues.nvca-operator.agentConfig.mergeConfig"),
      expected: "no agent.maintenanceMode: NVCA derives it from the flag nvcf:maintenance sets",
      found: `agent.maintenanceMode ${describe(mode)}`,
      fix: "remove agent.maintenanceMode from the merge config, and set nvcf:maintenance (off, cordon or drain)",
    });
  return out;
}

/** Stack output: the maintenance mode and account isolation a compute stack deployed. */
export const MAINTENANCE_OUTPUT = "maintenance";

/** What `MAINTENANCE_OUTPUT` holds. */
export interface MaintenanceRecord {
  mode: MaintenanceMode;
  accountIsolation: boolean;
}

/** The record a compute stack exports for its config. */
export function maintenanceRecord(cfg: ComputePlaneConfig): MaintenanceRecord {
  return { mode: cfg.maintenance, accountIsolation: accountIsolated(cfg) };
}

/**
 * A toggle of `AccountIsolation` against what the stack deployed, refused unless the same update drains the
 * cluster (`nvcf:maintenance: drain`), as NVIDIA requires. Input: the config and the previous value of
 * `MAINTENANCE_OUTPUT` (anything else, e.g. on a first run or from a stack deployed before the output
 * existed, compares with nothing). Output: the problem, or none.
 */
export function accountIsolationChangeProblems(cfg: ComputePlaneConfig, deployed: unknown): Problem[] {
  const prev = deployed as Partial<MaintenanceRecord> | undefined;
  if (typeof prev?.accountIsolation !== "boolean") return [];
  const now = accountIsolated(cfg);
  if (now === prev.accountIsolation || cfg.maintenance === "drain") return [];
  return [
    {
      key: K(CLUSTER_ATTRIBUTES_KEY),
      expected:
        "AccountIsolation added or removed only while nvcf:maintenance is drain (NVIDIA: the attribute does not apply to running workloads, so the cluster is drained while it changes)",
      found: `AccountIsolation ${now ? "added" : "removed"} with nvcf:maintenance ${cfg.maintenance}`,
      fix: "pulumi config set nvcf:maintenance drain in the same update; once its workloads are gone, set it back to off and pulumi up again",
    },
  ];
}
