/**
 * NVIDIA's observability stack as both planes install it (pure functions): which of its releases a stack
 * installs, and the values each gets. One home for the control plane (which installs it as its stage 0) and
 * each GPU cluster (which installs it as NVIDIA's compute-cluster acceptance feature does,
 * `tests/bdd/features/observability-compute.feature`).
 *
 * Sources (identical at HEAD = bundle 0.8.0 and at tag `deploy/stacks/self-managed/v0.7.0` = bundle 0.7.0):
 * `deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl` (profiles, component modes, the inline
 * values of each release), `deploy/stacks/observability/environments/base.yaml` (defaults),
 * `deploy/stacks/observability/values/victoria-metrics.yaml.gotmpl`, and the stack-local charts
 * `deploy/stacks/observability/charts/nvcf-otel-collector` and `.../nvcf-default-monitors` (0.2.0).
 *
 * Profiles: `disabled` renders nothing; every other profile installs the shared infrastructure (Prometheus
 * Operator CRDs, the OpenTelemetry Operator, one collector with Target Allocator and discovery RBAC,
 * VictoriaMetrics) and the default monitors; `control` turns on the control-plane monitor group, `compute` the
 * compute group (NVCA, DCGM, worker), `all` both. Component modes: `install` (the stack installs it),
 * `existing` (someone else did; the stack uses it), `disabled`.
 */
import type { ObservabilitySettings } from "../config/observability";
import {
  PINNED_TAGS,
  UPSTREAM,
  type ThirdPartyMode,
  mirrorBase,
  mirrorImage,
  thirdPartyImage,
} from "./images";
import type { Values } from "./merge";

/** Where the observability images come from and the pull secret the stack's pods reference. */
export interface ObservabilityImages {
  /** The image mirror (`images.registry` / `images.repository` of the control plane). */
  registry: string;
  repository: string;
  /** `upstream`: the images NVIDIA's stack names; `mirror`: their form under the mirror (values/images.ts). */
  thirdParty: ThirdPartyMode;
  /** The pull secret's name, or null when the nodes authenticate themselves. */
  pullSecret: string | null;
}

/** The release names of the observability stack (`catalog/releases.ts` `OBSERVABILITY_RELEASES`). */
export const OBSERVABILITY_RELEASE_NAMES = [
  "prometheus-operator-crds",
  "opentelemetry-operator",
  "victoria-metrics",
  "otel-collector",
  "default-monitors",
] as const;

/** Third-party image defaults of `deploy/stacks/observability/environments/base.yaml` (upstream registries). */
export const OBSERVABILITY_IMAGES = {
  collectorRepository:
    "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib",
  collectorTag: "0.129.1",
} as const;

/** The label the collector's Target Allocator selects monitors by, and every default monitor carries (base.yaml). */
export const OBSERVABILITY_TARGET_LABEL = { "nvcf.nvidia.com/observability-target": "true" } as const;

/** The name of the OpenTelemetryCollector object (NVIDIA's `collector.collectorName` default). */
export const COLLECTOR_NAME = "nvcf-observability";

/** The prefix of every default monitor's name (the nvcf-default-monitors chart's name). */
export const MONITOR_PREFIX = "nvcf-default-monitors";

/** The in-cluster PromQL / remote-write base of the bundled VictoriaMetrics (`vmsingle` in the observability namespace). */
export const vmsingleUrl = (namespace: string) => `http://vmsingle.${namespace}.svc.cluster.local:8428`;

/** The remote-write URL the collector exports to: the bundled VictoriaMetrics, else the existing backend's. */
export function remoteWriteEndpoint(o: Pick<ObservabilitySettings, "namespace" | "metricsBackend">): string {
  return o.metricsBackend.mode === "install"
    ? `${vmsingleUrl(o.namespace)}/api/v1/write`
    : o.metricsBackend.remoteWriteEndpoint;
}

/**
 * The default monitors (`defaultMonitors` of NVIDIA's base.yaml), with each group's `enabled` derived from the
 * profile as the helmfile derives it: `controlPlane` for control/all (state-metrics, invocation-service,
 * grpc-proxy, llm-api-gateway in `nvcf`), `computePlane` for compute/all (the NVCA ServiceMonitor in
 * `nvca-system`, the DCGM and worker PodMonitors in every namespace).
 */
function defaultMonitors(o: ObservabilitySettings): Values {
  const p = o.profile;
  const sel = (instance: string, extra: Values = {}) => ({
    "app.kubernetes.io/instance": instance,
    ...extra,
  });
  return {
    commonLabels: { ...OBSERVABILITY_TARGET_LABEL },
    controlPlane: {
      enabled: p === "control" || p === "all",
      interval: "30s",
      path: "/metrics",
      port: "metrics",
      namespaces: ["nvcf"],
      services: [
        {
          name: "state-metrics",
          enabled: true,
          selector: sel("state-metrics", { "app.kubernetes.io/name": "helm-nvcf-state-metrics" }),
        },
        { name: "invocation-service", enabled: true, selector: sel("invocation-service") },
        { name: "grpc-proxy", enabled: true, selector: sel("grpc-proxy") },
        { name: "llm-api-gateway", enabled: true, selector: sel("llm-api-gateway") },
      ],
    },
    computePlane: {
      enabled: p === "compute" || p === "all",
      interval: "30s",
      path: "/metrics",
      services: [
        {
          name: "nvca",
          enabled: true,
          namespaces: ["nvca-system"],
          port: "nvca",
          selector: { "app.kubernetes.io/name": "nvca" },
          labels: {},
        },
      ],
      // ON PURPOSE: NVIDIA's observability base.yaml writes dcgm's namespaceSelector and selector one level up
      // (computePlane.*), where the chart never reads them; the chart's own dcgm defaults are the same values.
      dcgm: { enabled: true },
      worker: {
        enabled: true,
        namespace: "",
        namespaceSelector: { any: true },
        selector: { matchExpressions: [{ key: "icms-request-id", operator: "Exists" }] },
        interval: "30s",
        path: "/metrics",
        port: "metrics",
        labels: {},
      },
    },
  };
}

type ObservabilityBuilder = (o: ObservabilitySettings, img: ObservabilityImages) => Values;

/** One builder per observability release (the inline values of NVIDIA's observability helmfile). */
const BUILDERS: Record<(typeof OBSERVABILITY_RELEASE_NAMES)[number], ObservabilityBuilder> = {
  // Only the CRDs the collector's target allocator and the default monitors use are installed.
  "prometheus-operator-crds": () => {
    const on = new Set(["podmonitors", "servicemonitors"]);
    const all = [
      "alertmanagerconfigs",
      "alertmanagers",
      "podmonitors",
      "probes",
      "prometheusagents",
      "prometheuses",
      "prometheusrules",
      "scrapeconfigs",
      "servicemonitors",
      "thanosrulers",
    ];
    return { crds: Object.fromEntries(all.map((c) => [c, { enabled: on.has(c) }])) };
  },
  // Third-party charts keep their upstream images (as NVIDIA's stack does) unless images.thirdParty is mirror.
  "opentelemetry-operator": (_o, img) => {
    const tp = thirdParty(img);
    return {
      admissionWebhooks: {
        certManager: { enabled: false },
        autoGenerateCert: { enabled: true, recreate: false },
      },
      manager: {
        // The operator's own image: the chart default (its appVersion tag) unless mirrored.
        ...(img.thirdParty === "mirror" ? { image: { repository: tp(UPSTREAM.otelOperator) } } : {}),
        collectorImage: {
          repository: tp(OBSERVABILITY_IMAGES.collectorRepository),
          tag: OBSERVABILITY_IMAGES.collectorTag,
        },
      },
      ...pullSecretsKey(img),
    };
  },
  "victoria-metrics": (_o, img) => {
    const list = pullSecretList(img);
    return {
      server: {
        fullnameOverride: "vmsingle",
        retentionPeriod: "1",
        persistentVolume: { enabled: true, size: "16Gi" },
        resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { cpu: "1", memory: "1Gi" } },
        serviceMonitor: { enabled: true },
        // The chart composes `<registry>/<repository>:<tag>` (tag: its appVersion) unless mirrored.
        ...(img.thirdParty === "mirror"
          ? {
              image: {
                registry: img.registry,
                repository: mirrorImage(UPSTREAM.victoriaMetrics, img.repository).replace(/^\//, ""),
              },
            }
          : {}),
      },
      ...(list.length ? { global: { imagePullSecrets: list } } : {}),
    };
  },
  "otel-collector": (o, img) => {
    const tp = thirdParty(img);
    return {
      collectorName: COLLECTOR_NAME,
      // The chart reads `image` as one string (repository:tag).
      image: `${tp(OBSERVABILITY_IMAGES.collectorRepository)}:${OBSERVABILITY_IMAGES.collectorTag}`,
      ...pullSecretsKey(img),
      targetAllocatorRbac: { create: o.components.discoveryRbac === "install" },
      targetAllocator: {
        allocationStrategy: "consistent-hashing",
        prometheusCR: {
          enabled: true,
          serviceMonitorSelector: { matchLabels: { ...OBSERVABILITY_TARGET_LABEL } },
          podMonitorSelector: { matchLabels: { ...OBSERVABILITY_TARGET_LABEL } },
          serviceMonitorNamespaceSelector: {},
          podMonitorNamespaceSelector: {},
        },
        enabled: o.components.targetAllocator === "install",
        // Mirrored: the target allocator's image in the OpenTelemetryCollector spec (the operator's default is
        // ghcr.io/open-telemetry/opentelemetry-operator/target-allocator at its own version).
        ...(img.thirdParty === "mirror"
          ? { image: `${tp(UPSTREAM.targetAllocator)}:${PINNED_TAGS.targetAllocator}` }
          : {}),
      },
      config: {
        receivers: { prometheus: { config: { scrape_configs: [] } } },
        processors: { batch: {} },
        exporters: { prometheusremotewrite: { endpoint: remoteWriteEndpoint(o) } },
        service: {
          pipelines: {
            metrics: {
              receivers: ["prometheus"],
              processors: ["batch"],
              exporters: ["prometheusremotewrite"],
            },
          },
        },
      },
    };
  },
  "default-monitors": (o) => defaultMonitors(o),
};

/** A third-party image or repository: upstream, or its mirror form with `images.thirdParty: mirror`. */
const thirdParty = (img: ObservabilityImages) => (upstream: string) =>
  thirdPartyImage(upstream, img.thirdParty, mirrorBase(img.registry, img.repository));

const pullSecretList = (img: ObservabilityImages) =>
  img.pullSecret === null ? [] : [{ name: img.pullSecret }];

/** `imagePullSecrets`, only when a pull secret is referenced (NVIDIA's stack emits the key only when non-empty). */
const pullSecretsKey = (img: ObservabilityImages): Values => {
  const list = pullSecretList(img);
  return list.length ? { imagePullSecrets: list } : {};
};

/** Whether a release name is one of the observability stack's. */
export function isObservabilityRelease(name: string): name is (typeof OBSERVABILITY_RELEASE_NAMES)[number] {
  return (OBSERVABILITY_RELEASE_NAMES as readonly string[]).includes(name);
}

/**
 * The values NVIDIA's observability stack gives one of its releases (before the user's `releaseValues`, which
 * the plane's own `controlValues` / `computeValues` merge last). Input: release name, the cluster's settings,
 * the image context. Output: the values. Throws on a release that is not the observability stack's.
 */
export function observabilityValues(
  release: string,
  o: ObservabilitySettings,
  img: ObservabilityImages,
): Values {
  if (!isObservabilityRelease(release)) throw new Error(`"${release}" is not an observability release`);
  return BUILDERS[release](o, img);
}

/** A monitor the nvcf-default-monitors chart renders. */
export interface MonitorObject {
  kind: "ServiceMonitor" | "PodMonitor";
  name: string;
  namespace: string;
}

/**
 * The monitors nvcf-default-monitors 0.2.0 renders from its values (`templates/servicemonitors.yaml`,
 * `templates/podmonitors.yaml`): per enabled group (`controlPlane`, `computePlane`) a ServiceMonitor
 * `<prefix>-<name>` per enabled service in the release namespace, and for `computePlane` the PodMonitors
 * `<prefix>-dcgm` and `<prefix>-worker` when enabled, in their `namespace` or the release's. The prefix is
 * `nameOverride`, else the chart name. Input: the release's values and namespace. Output: the monitors.
 */
export function monitorObjects(values: Values, namespace: string): MonitorObject[] {
  const prefix =
    typeof values["nameOverride"] === "string" && values["nameOverride"]
      ? values["nameOverride"]
      : MONITOR_PREFIX;
  const out: MonitorObject[] = [];
  const group = (k: string) => (values[k] ?? {}) as Values;
  for (const g of ["controlPlane", "computePlane"].map(group))
    if (g["enabled"] === true)
      for (const svc of (g["services"] ?? []) as Values[])
        if (svc["enabled"] === true)
          out.push({ kind: "ServiceMonitor", name: `${prefix}-${String(svc["name"])}`, namespace });
  const compute = group("computePlane");
  if (compute["enabled"] === true)
    for (const pm of ["dcgm", "worker"]) {
      const v = (compute[pm] ?? {}) as Values;
      if (v["enabled"] === true)
        out.push({
          kind: "PodMonitor",
          name: `${prefix}-${pm}`,
          namespace: typeof v["namespace"] === "string" && v["namespace"] ? v["namespace"] : namespace,
        });
    }
  return out;
}
