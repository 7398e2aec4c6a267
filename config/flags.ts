/**
 * The enable flags of the release catalog (`catalog/releases.ts` `ENABLE_FLAGS`), read from a validated config
 * (pure): which releases a stack installs. A flag with a `switch` is that boolean key of the config; the others
 * are computed here, after the `condition`s of NVIDIA's helmfiles for the control plane
 * (`deploy/stacks/self-managed/helmfile.d/`), the compute plane (`deploy/stacks/nvcf-compute-plane/helmfile.d/`,
 * docs/upstream-facts.md §2.3) and the observability stack
 * (`deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl`).
 */
import {
  type BundleVersion,
  type ComputedFlag,
  ENABLE_FLAGS,
  type EnableFlag,
  type FlagSpec,
  type Plane,
  planeReleases,
} from "../catalog/releases";
import { type ObservabilitySettings, installsObservability } from "./observability";
import { valueAt } from "./paths";
import type { ComputePlaneConfig, ControlPlaneConfig } from "./schema";

/**
 * Every flag of the plane: a flag with a `switch` (catalog/releases.ts `ENABLE_FLAGS`) is that boolean config key
 * where the flag's releases belong to the plane and false elsewhere; the others come from `computed`.
 */
function planeFlags(
  plane: Plane,
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  computed: Record<ComputedFlag, boolean>,
): Record<EnableFlag, boolean> {
  const own = new Set(planeReleases(plane).map((r) => r.enabled));
  const out = { ...computed } as Record<EnableFlag, boolean>;
  for (const [flag, spec] of Object.entries(ENABLE_FLAGS) as [EnableFlag, FlagSpec][])
    if (spec.switch !== undefined) out[flag] = own.has(flag) && valueAt(cfg, spec.switch) === true;
  return out;
}

/** Which catalog flags are on for this config (the `condition`s of NVIDIA's helmfiles). */
export function controlFlags(cfg: ControlPlaneConfig): Record<EnableFlag, boolean> {
  const o = cfg.observability;
  return planeFlags("control", cfg, {
    always: true,
    ...observabilityFlags("control", o, cfg.bundleVersion),
    llmManagedPki: llmManagesIssuer(cfg),
    ingress: true,
    functionAutoscaler: o.profile === "control" || o.profile === "all",
    kaiTopology: false,
    groveTopology: false,
  });
}

/**
 * Which catalog flags are on for a compute-plane config (docs/upstream-facts.md §2.3 conditions; the
 * observability releases as `observabilityFlags` decides for a GPU cluster).
 */
export function computeFlags(cfg: ComputePlaneConfig): Record<EnableFlag, boolean> {
  const a = cfg.addons;
  return planeFlags("compute", cfg, {
    ...observabilityFlags("compute", cfg.observability, cfg.bundleVersion),
    always: true,
    llmManagedPki: false,
    ingress: false,
    functionAutoscaler: false,
    kaiTopology: a.topologyAwareScheduling.enabled && a.kaiScheduler.enabled,
    groveTopology: a.topologyAwareScheduling.enabled && a.groveOperator.enabled,
  });
}

/** The catalog flags of the observability releases (the `condition`s of NVIDIA's observability helmfile). */
export type ObservabilityFlag = Extract<
  EnableFlag,
  | "observabilityEnabled"
  | "prometheusOperatorCrdsInstall"
  | "otelOperatorInstall"
  | "metricsBackendInstall"
  | "collectorInstall"
>;

/**
 * Which observability releases a stack installs: none unless `installsObservability`; then default-monitors
 * always, and each infrastructure release when its component mode is `install` (the collector with
 * `components.collector`, VictoriaMetrics with `metricsBackend.mode`). Input: the plane, the settings and the
 * bundle. Output: the five flags.
 */
export function observabilityFlags(
  plane: Plane,
  o: Pick<ObservabilitySettings, "profile" | "install" | "components" | "metricsBackend">,
  bundle: BundleVersion,
): Record<ObservabilityFlag, boolean> {
  const on = installsObservability(plane, o, bundle);
  const c = o.components;
  return {
    observabilityEnabled: on,
    prometheusOperatorCrdsInstall: on && c.prometheusOperatorCrds === "install",
    otelOperatorInstall: on && c.otelOperator === "install",
    metricsBackendInstall: on && o.metricsBackend.mode === "install",
    collectorInstall: on && c.collector === "install",
  };
}

/** Whether the stack manages the LLM PKI ClusterIssuer (renders `nvcf-pki`, docs/upstream-facts.md §1.3/§1.9). */
export function llmManagesIssuer(cfg: ControlPlaneConfig): boolean {
  const pki = cfg.addons.llm.pki;
  // Only bundle 0.8.0 ships the nvcf-pki release (earlier bundles: the router chart provisions itself).
  if (cfg.bundleVersion !== "0.8.0") return false;
  if (!cfg.addons.llm.enabled || !pki.enabled || pki.mode !== "certManager") return false;
  return (
    pki.manageClusterIssuer ?? (pki.issuerKind === "ClusterIssuer" && pki.issuerName === "nvcf-openbao-pki")
  );
}
