/**
 * The enable flags of the release catalog (`catalog/releases.ts` `EnableFlag`), read from a validated config
 * (pure): which releases a stack installs. The one home of the flags: the `condition`s of NVIDIA's helmfiles
 * for the control plane (`deploy/stacks/self-managed/helmfile.d/`), the compute plane
 * (`deploy/stacks/nvcf-compute-plane/helmfile.d/`, docs/upstream-facts.md §2.3) and the observability stack
 * (`deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl`).
 */
import type { BundleVersion, EnableFlag, Plane } from "../catalog/releases";
import { type ObservabilitySettings, installsObservability } from "./observability";
import type { ComputePlaneConfig, ControlPlaneConfig } from "./schema";

/** Which catalog flags are on for this config (the `condition`s of NVIDIA's helmfiles). */
export function controlFlags(cfg: ControlPlaneConfig): Record<EnableFlag, boolean> {
  const o = cfg.observability;
  return {
    always: true,
    ...observabilityFlags("control", o, cfg.bundleVersion),
    nats: cfg.nats.enabled,
    certManager: cfg.certManager.managed,
    openbao: cfg.openbao.enabled,
    llmManagedPki: llmManagesIssuer(cfg),
    cassandra: cfg.cassandra.enabled,
    rateLimiter: cfg.rateLimiter.enabled,
    llm: cfg.addons.llm.enabled,
    vanityGateway: cfg.addons.vanityGateway.enabled,
    nvcfUi: cfg.addons.nvcfUi.enabled,
    ingress: true,
    stateMetrics: cfg.stateMetrics.enabled,
    functionAutoscaler: o.profile === "control" || o.profile === "all",
    kaiScheduler: false,
    kaiTopology: false,
    groveOperator: false,
    groveTopology: false,
    dynamoOperator: false,
  };
}

/**
 * Which catalog flags are on for a compute-plane config (docs/upstream-facts.md §2.3 conditions; the
 * observability releases as `observabilityFlags` decides for a GPU cluster).
 */
export function computeFlags(cfg: ComputePlaneConfig): Record<EnableFlag, boolean> {
  const a = cfg.addons;
  const off = {
    nats: false,
    certManager: false,
    openbao: false,
    llmManagedPki: false,
    cassandra: false,
    rateLimiter: false,
    llm: false,
    vanityGateway: false,
    nvcfUi: false,
    ingress: false,
    stateMetrics: false,
    functionAutoscaler: false,
  };
  return {
    ...off,
    ...observabilityFlags("compute", cfg.observability, cfg.bundleVersion),
    always: true,
    kaiScheduler: a.kaiScheduler.enabled,
    kaiTopology: a.topologyAwareScheduling.enabled && a.kaiScheduler.enabled,
    groveOperator: a.groveOperator.enabled,
    groveTopology: a.topologyAwareScheduling.enabled && a.groveOperator.enabled,
    dynamoOperator: a.dynamoOperator.enabled,
  };
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
