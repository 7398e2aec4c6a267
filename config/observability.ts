/**
 * The observability settings of a cluster as both planes' configs hold them, and what they mean (pure): whether
 * a bundle ships NVIDIA's observability stack and whether a stack installs it. Sources: the header of
 * values/observability.ts (NVIDIA's `deploy/stacks/observability/` helmfile and environments).
 */
import { type BundleVersion, type Plane, releaseSpec } from "../catalog/releases";

/** An observability profile (NVIDIA's `observability.profile`). */
export type ObservabilityProfile = "disabled" | "control" | "compute" | "all";
/** A component mode (NVIDIA's `observability.components.*.mode`, `metricsBackend.mode`). */
export type ComponentMode = "install" | "existing" | "disabled";

/**
 * The observability settings of one cluster, as either plane's config holds them (`nvcf:observability`): the
 * fields the observability stack itself reads. The control plane's config adds settings of its own services
 * (tracing, metrics, the function autoscaler's PromQL endpoint and authentication), which this module never
 * reads.
 */
export interface ObservabilitySettings {
  profile: ObservabilityProfile;
  /** The namespace of every release of the stack (NVIDIA's `observability.namespace`, default `monitoring`). */
  namespace: string;
  components: {
    prometheusOperatorCrds: ComponentMode;
    otelOperator: ComponentMode;
    collector: ComponentMode;
    targetAllocator: ComponentMode;
    discoveryRbac: ComponentMode;
  };
  metricsBackend: {
    mode: ComponentMode;
    type: "victoriaMetrics" | "external";
    /** The remote-write URL of an `existing` backend. */
    remoteWriteEndpoint: string;
  };
  /**
   * GPU clusters only: whether this stack installs the observability stack on its cluster for profile
   * `compute`/`all` (default true). False when another stack already installs it there (NVIDIA installs it at
   * most once per cluster).
   */
  install?: boolean;
}

/** Whether an NVCF bundle ships NVIDIA's observability stack (0.7.0 and later; `catalog/releases.ts`). */
export const bundleShipsObservability = (bundle: BundleVersion) =>
  releaseSpec("default-monitors").versions[bundle] !== undefined;

/**
 * Whether a stack installs the observability stack on its cluster: never with a bundle that ships none (0.6.1).
 * Control plane: every profile but `disabled` (the self-managed stack includes it then). GPU cluster: profile
 * `compute` or `all` (the monitors a GPU cluster needs; `control` and `disabled` leave the cluster without it,
 * as NVIDIA's compute-plane stack maps them to NVCA's collector off), unless `install` is false.
 */
export function installsObservability(
  plane: Plane,
  o: Pick<ObservabilitySettings, "profile" | "install">,
  bundle: BundleVersion,
): boolean {
  if (!bundleShipsObservability(bundle)) return false;
  if (plane === "control") return o.profile !== "disabled";
  return (o.profile === "compute" || o.profile === "all") && o.install !== false;
}
