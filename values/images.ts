/**
 * Third-party images and how they are taken from the image mirror.
 *
 * NVIDIA's own images always come from `<images.registry>/<images.repository>/<name>` (NVIDIA's
 * `global.image`). Every other image a release or a program-made workload runs is listed in
 * `THIRD_PARTY_IMAGES` with the upstream reference NVIDIA's stacks (or the chart's published defaults) use.
 * With `nvcf:images.thirdParty: mirror` each is taken from
 * `<images.registry>/<images.repository>/<upstream path>`, the upstream path being the reference without its
 * registry host (and without Docker Hub's implicit `library/`), e.g.
 * `ghcr.io/kai-scheduler/kai-scheduler/operator` → `<registry>/<repository>/kai-scheduler/kai-scheduler/operator`
 * and `busybox` → `<registry>/<repository>/busybox`. Tags stay as upstream. With the default
 * `thirdParty: upstream` the values equal NVIDIA's stack (upstream registries).
 */

/** Where third-party images come from: as NVIDIA's stack pulls them, or from the image mirror. */
export type ThirdPartyMode = "upstream" | "mirror";

/** The mirror base `<registry>/<repository>` (no trailing slash; an empty repository gives `<registry>`). */
export function mirrorBase(registry: string, repository: string): string {
  return [registry, repository].filter((s) => s !== "").join("/");
}

/** Splits an image reference into registry host (`docker.io` when none), path and the `:tag`/`@digest` suffix. */
export function splitImage(ref: string): { host: string; path: string; suffix: string } {
  let rest = ref;
  let suffix = "";
  const at = rest.indexOf("@");
  if (at >= 0) {
    suffix = rest.slice(at);
    rest = rest.slice(0, at);
  }
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    suffix = rest.slice(colon) + suffix;
    rest = rest.slice(0, colon);
  }
  const first = rest.split("/")[0];
  const hasHost = rest.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  const host = hasHost ? first : "docker.io";
  let path = hasHost ? rest.slice(first.length + 1) : rest;
  if (host === "docker.io" && path.startsWith("library/")) path = path.slice("library/".length);
  return { host, path, suffix };
}

/**
 * The mirror form of an upstream image reference or repository: `<base>/<upstream path><:tag or @digest>`.
 * Input: e.g. `docker.io/envoyproxy/gateway:v1.1.3`, base `registry.example.com/nvcf`. Output:
 * `registry.example.com/nvcf/envoyproxy/gateway:v1.1.3`. Pure; never throws.
 */
export function mirrorImage(upstream: string, base: string): string {
  const { path, suffix } = splitImage(upstream);
  return `${base}/${path}${suffix}`;
}

/** One third-party image: its upstream reference and who runs it. */
export interface ThirdPartyImage {
  /** Upstream reference as NVIDIA's stack or the chart's published default has it (tag, when fixed by the chart). */
  upstream: string;
  /**
   * Plane and release (or program-made workload) that runs it; `both` for NVIDIA's observability stack, which
   * the control plane and each GPU cluster install (values/observability.ts).
   */
  plane: "control" | "compute" | "both";
  usedBy: string;
  /** Bundles that ship it (omitted: every bundle). */
  bundles?: readonly string[];
  /** When it is used (omitted: whenever the release is installed). */
  when?: string;
  /** The chart value (or program setting) the mirror form is written to. */
  key: string;
}

/** Upstream references the values builders use (one place, so the table below and the builders agree). */
export const UPSTREAM = {
  otelOperator: "ghcr.io/open-telemetry/opentelemetry-operator/opentelemetry-operator",
  targetAllocator: "ghcr.io/open-telemetry/opentelemetry-operator/target-allocator",
  otelCollectorContrib:
    "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib",
  victoriaMetrics: "docker.io/victoriametrics/victoria-metrics",
  envoyGateway: "docker.io/envoyproxy/gateway",
  envoyRatelimit: "docker.io/envoyproxy/ratelimit",
  envoyProxy: "docker.io/envoyproxy/envoy",
  kaiScheduler: "ghcr.io/kai-scheduler/kai-scheduler",
  grove: "ghcr.io/ai-dynamo/grove",
  dynamoOperator: "nvcr.io/nvidia/ai-dynamo/kubernetes-operator",
  nats: "docker.io/library/nats",
  natsReloader: "docker.io/natsio/nats-server-config-reloader",
  nvcaOtelCollector: "nvcr.io/nvidia/nvcf-byoc/nvcf-otel-collector",
  nvcaByooOtelCollector: "nvcr.io/nvidia/nvcf-byoc/byoo-otel-collector",
  nvcaClusterValidator: "nvcr.io/nvidia/nvcf-byoc/nvca-cluster-validator",
  busybox: "docker.io/library/busybox",
  pause: "registry.k8s.io/pause",
} as const;

/**
 * Tags the program sets itself where a mirror needs a full reference: opentelemetry-operator chart 0.114.1's
 * appVersion (its target allocator follows the operator version), the Envoy proxy of Envoy Gateway's v1.1 line
 * (envoyproxy/gateway `api/v1alpha1/shared_types.go` `DefaultEnvoyProxyImage`), the rate-limit image of the
 * gateway-helm v1.1.3 values, and the inotify tuner's default images (NVCA docs).
 */
export const PINNED_TAGS = {
  targetAllocator: "0.152.0",
  envoyGatewayVersion: "v1.1.3",
  envoyProxy: "distroless-v1.31.3",
  envoyRatelimit: "26f28d78",
  busybox: "1.36",
  pause: "3.9",
} as const;

/** The KAI components whose images are `<global.registry>/<component>:<chart version>` (kai-scheduler v0.16.7). */
const KAI_COMPONENTS = [
  "operator",
  "scheduler",
  "binder",
  "podgrouper",
  "podgroupcontroller",
  "queuecontroller",
  "admission",
  "nodescaleadjuster",
  "numa-placement-exporter",
  "resource-reservation",
  "scalingpod",
  "crd-upgrader",
];

/** Every third-party image the program can deploy, with the chart key its mirror form goes to (the air-gap list). */
export const THIRD_PARTY_IMAGES: readonly ThirdPartyImage[] = [
  {
    upstream: `${UPSTREAM.otelOperator}:0.152.0`,
    plane: "both",
    usedBy: "opentelemetry-operator",
    bundles: ["0.7.0", "0.8.0"],
    key: "manager.image.repository",
  },
  {
    upstream: `${UPSTREAM.otelCollectorContrib}:0.129.1`,
    plane: "both",
    usedBy: "opentelemetry-operator, otel-collector",
    bundles: ["0.7.0", "0.8.0"],
    key: "manager.collectorImage.repository; otel-collector image",
  },
  {
    upstream: `${UPSTREAM.targetAllocator}:${PINNED_TAGS.targetAllocator}`,
    plane: "both",
    usedBy: "otel-collector (target allocator pods the operator creates)",
    bundles: ["0.7.0", "0.8.0"],
    when: "observability.components.targetAllocator: install",
    key: "otel-collector targetAllocator.image",
  },
  {
    upstream: `${UPSTREAM.victoriaMetrics}:v1.143.0`,
    plane: "both",
    usedBy: "victoria-metrics",
    bundles: ["0.7.0", "0.8.0"],
    when: "observability.metricsBackend.mode: install",
    key: "server.image.registry / server.image.repository",
  },
  {
    upstream: `${UPSTREAM.envoyGateway}:${PINNED_TAGS.envoyGatewayVersion}`,
    plane: "control",
    usedBy: "eg (Envoy Gateway controller, certgen hook, shutdown manager)",
    when: "gateway.install: true",
    key: "global.images.envoyGateway.image",
  },
  {
    upstream: `${UPSTREAM.envoyRatelimit}:${PINNED_TAGS.envoyRatelimit}`,
    plane: "control",
    usedBy: "eg (rate-limit deployment, only when Envoy Gateway rate limiting is configured)",
    when: "gateway.install: true",
    key: "global.images.ratelimit.image",
  },
  {
    upstream: `${UPSTREAM.envoyProxy}:${PINNED_TAGS.envoyProxy}`,
    plane: "control",
    usedBy: "Envoy proxy pods of the Gateway (EnvoyProxy object the program creates)",
    when: "gateway.install: true",
    key: "EnvoyProxy spec.provider.kubernetes.envoyDeployment.container.image",
  },
  ...KAI_COMPONENTS.map(
    (c): ThirdPartyImage => ({
      upstream: `${UPSTREAM.kaiScheduler}/${c}:v0.16.7`,
      plane: "compute",
      usedBy: "kai-scheduler",
      bundles: ["0.8.0"],
      when: "addons.kaiScheduler.enabled",
      key: "global.registry",
    }),
  ),
  ...["grove-operator", "grove-install-crds", "grove-initc"].map(
    (c): ThirdPartyImage => ({
      upstream: `${UPSTREAM.grove}/${c}:v0.1.0-alpha.11 (0.8.0), v0.1.0-alpha.9 (0.7.0)`,
      plane: "compute",
      usedBy: "grove-operator",
      bundles: ["0.7.0", "0.8.0"],
      when: "addons.groveOperator.enabled",
      key:
        c === "grove-operator"
          ? "image.repository"
          : c === "grove-install-crds"
            ? "crdInstaller.image"
            : "deployment.env GROVE_INIT_CONTAINER_IMAGE",
    }),
  ),
  {
    upstream: `${UPSTREAM.dynamoOperator}:1.2.1`,
    plane: "compute",
    usedBy: "dynamo-operator",
    bundles: ["0.7.0", "0.8.0"],
    when: "addons.dynamoOperator.enabled",
    key: "dynamo-operator.controllerManager.manager.image.repository",
  },
  {
    upstream: `${UPSTREAM.nats}:2.10.21-alpine`,
    plane: "compute",
    usedBy: "dynamo-operator (bundled NATS)",
    bundles: ["0.7.0", "0.8.0"],
    when: "addons.dynamoOperator.enabled",
    key: "nats.container.image.registry / .repository",
  },
  {
    upstream: `${UPSTREAM.natsReloader}:0.16.0`,
    plane: "compute",
    usedBy: "dynamo-operator (bundled NATS)",
    bundles: ["0.7.0", "0.8.0"],
    when: "addons.dynamoOperator.enabled",
    key: "nats.reloader.image.registry / .repository",
  },
  {
    upstream: `${UPSTREAM.nvcaOtelCollector}:0.157.9 (0.8.0; earlier bundles the chart's tag)`,
    plane: "compute",
    usedBy: "nvca-operator (collector NVCA deploys)",
    when: "observability.profile: compute or all",
    key: "selfManaged.otelCollector.imageRepository",
  },
  {
    upstream: `${UPSTREAM.nvcaByooOtelCollector} (the chart's tag)`,
    plane: "compute",
    usedBy: "nvca-operator (BYOO collector NVCA deploys)",
    bundles: ["0.8.0"],
    key: "agent.byooOtelCollector.imageRepository",
  },
  {
    upstream: `${UPSTREAM.nvcaClusterValidator} (tag: the chart version)`,
    plane: "compute",
    usedBy: "nvca-operator (cluster validator init container)",
    when: "releaseValues.nvca-operator.clusterValidator.enabled",
    key: "clusterValidator.image.repository",
  },
  {
    upstream: `${UPSTREAM.busybox}:${PINNED_TAGS.busybox}`,
    plane: "compute",
    usedBy: "node-inotify-tuner DaemonSet (init container, program-made)",
    key: "inotify.initImage (program)",
  },
  {
    upstream: `${UPSTREAM.pause}:${PINNED_TAGS.pause}`,
    plane: "compute",
    usedBy: "node-inotify-tuner DaemonSet (program-made)",
    key: "inotify.pauseImage (program)",
  },
];

/**
 * Resolves one third-party image: an explicit setting wins, else the mirror form with `thirdParty: mirror`,
 * else the upstream reference. Input: upstream reference, mode, mirror base, optional explicit value.
 */
export function thirdPartyImage(
  upstream: string,
  mode: ThirdPartyMode,
  base: string,
  explicit?: string,
): string {
  if (explicit) return explicit;
  return mode === "mirror" ? mirrorImage(upstream, base) : upstream;
}
