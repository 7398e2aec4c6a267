/**
 * Rules of a GPU cluster's own keys (pure): its add-ons (KAI, topology-aware scheduling, Grove, Dynamo) and
 * what each needs, the NVCA operator's settings against the helm-nvca-operator version installed, and the
 * node's inotify limits. Sources: docs/upstream-facts.md §2.3, §2.6, §4 rows 9-12, 37; grove-charts
 * v0.1.0-alpha.9 for bundle 0.7.0.
 */
import { releaseSpec, versionAtLeast } from "../../catalog/releases";
import { type Problem, describe } from "../problems";
import type { ComputePlaneConfig } from "../schema";
import { maintenanceRules } from "../maintenance";
import { addonsNotInBundle } from "./addons";
import { problemList } from "./context";

/**
 * The helm-nvca-operator chart version a compute stack installs: its hot-fix override
 * (`charts.versionOverrides.nvca-operator`), else the bundle's pin (catalog/releases.ts), else "0".
 */
export function opVersionOf(cfg: ComputePlaneConfig): string {
  return (
    cfg.charts.versionOverrides["nvca-operator"] ??
    releaseSpec("nvca-operator").versions[cfg.bundleVersion] ??
    "0"
  );
}

/**
 * Rules of a compute-plane stack's add-ons, NVCA operator and inotify keys. Input: the validated config.
 * Output, in this order: topology without KAI, add-ons the bundle does not ship, Grove without KAI (where the
 * bundle ships KAI), Grove's node selector in bundle 0.7.0, the BYOO collector image before operator 1.21.0,
 * Dynamo without Grove, each feature gate (KAIScheduler without KAI, a malformed name), host header overrides
 * before operator 1.12.0, `generateImagePullSecret`, and inotify limits below NVCA's needs.
 */
export function computeClusterRules(cfg: ComputePlaneConfig): Problem[] {
  const { out, add } = problemList();
  const a = cfg.addons;
  if (a.topologyAwareScheduling.enabled && !a.kaiScheduler.enabled)
    add(
      "addons.topologyAwareScheduling.enabled",
      "false unless addons.kaiScheduler.enabled (topology needs KAI)",
      "true",
      "enable addons.kaiScheduler or turn topology off",
    );
  // Add-ons the bundle's compute stack ships (0.6.1: none; 0.7.0: Grove and Dynamo; 0.8.0: all).
  const bundle = cfg.bundleVersion;
  out.push(...addonsNotInBundle(cfg));
  // Grove schedules through KAI where the bundle ships KAI (0.8.0); the 0.7.0 stack installs Grove alone.
  const kaiShipped = releaseSpec("kai-scheduler").versions[bundle] !== undefined;
  if (a.groveOperator.enabled && !a.kaiScheduler.enabled && kaiShipped)
    add(
      "addons.groveOperator.enabled",
      "false unless addons.kaiScheduler.enabled (Grove needs KAI)",
      "true",
      "enable addons.kaiScheduler or turn Grove off",
    );
  if (a.groveOperator.enabled && cfg.placement.nodeSelector && bundle === "0.7.0")
    add(
      "placement.nodeSelector",
      "unset while Grove is on in bundle 0.7.0 (grove-charts v0.1.0-alpha.9 has no nodeSelector value)",
      describe(cfg.placement.nodeSelector),
      "remove placement.nodeSelector, turn Grove off, or set nvcf:bundleVersion 0.8.0",
    );
  if (
    cfg.nvcaOperator.byooOtelCollectorImageRepository !== undefined &&
    !versionAtLeast(opVersionOf(cfg), "1.21.0")
  )
    add(
      "nvcaOperator.byooOtelCollectorImageRepository",
      `unset with helm-nvca-operator ${opVersionOf(cfg)} (agent.byooOtelCollector needs >= 1.21.0)`,
      describe(cfg.nvcaOperator.byooOtelCollectorImageRepository),
      "remove it or set nvcf:bundleVersion 0.8.0",
    );
  if (a.dynamoOperator.enabled && !a.groveOperator.enabled)
    add(
      "addons.dynamoOperator.enabled",
      "false unless addons.groveOperator.enabled (Dynamo needs Grove)",
      "true",
      "enable addons.groveOperator or turn Dynamo off",
    );
  out.push(...maintenanceRules(cfg));
  cfg.nvcaOperator.featureGates.forEach((g, i) => {
    if (g === "KAIScheduler" && !a.kaiScheduler.enabled)
      add(
        `nvcaOperator.featureGates[${i}]`,
        "KAIScheduler only when the KAI scheduler is installed",
        describe(g),
        "remove it, or enable addons.kaiScheduler (which adds the gate itself)",
      );
    if (!/^-?[A-Z][A-Za-z0-9]*$/.test(g))
      add(
        `nvcaOperator.featureGates[${i}]`,
        "a gate name such as LogPosting, or -Gate to remove a default",
        describe(g),
        "fix the spelling",
      );
  });
  const opVersion = opVersionOf(cfg);
  if (cfg.nvcaOperator.hostHeaderOverrides && !versionAtLeast(opVersion, "1.12.0"))
    add(
      "nvcaOperator.hostHeaderOverrides",
      `false with helm-nvca-operator ${opVersion} (overrides need >= 1.12.0)`,
      "true",
      "set nvcaOperator.hostHeaderOverrides false or use chart 1.12.0 or later",
    );
  const opValues = cfg.releaseValues["nvca-operator"] ?? {};
  if (opValues["generateImagePullSecret"] === true)
    add(
      "releaseValues.nvca-operator.generateImagePullSecret",
      "false: it does not work in self-managed mode",
      "true",
      "remove it; the program creates the pull secret (nvcf:pullSecret)",
    );
  if (cfg.inotify.maxUserInstances < 8192)
    add(
      "inotify.maxUserInstances",
      "at least 8192",
      describe(cfg.inotify.maxUserInstances),
      "pulumi config set --path nvcf:inotify.maxUserInstances 8192",
    );
  if (cfg.inotify.maxUserWatches < 524288)
    add(
      "inotify.maxUserWatches",
      "at least 524288",
      describe(cfg.inotify.maxUserWatches),
      "pulumi config set --path nvcf:inotify.maxUserWatches 524288",
    );
  return out;
}
