/**
 * Values per compute-plane release (pure functions), per NVCF bundle. Facts: docs/upstream-facts.md §2.3
 * (releases and add-on values), §2.5 (values passed to helm-nvca-operator), §2.6 (feature gates), §2.7
 * (registration values), §4 rows 9-11 and 16. Sources: NVIDIA's `deploy/stacks/nvcf-compute-plane/`
 * (`helmfile.d/01-dependencies.yaml.gotmpl`, `helmfile.d/02-nvca.yaml.gotmpl`, `environments/base.yaml`) at
 * HEAD (bundle 0.8.0) and at tag `deploy/stacks/self-managed/v0.7.0` (bundle 0.7.0); the charts
 * `deploy/helm/nvca-operator` (tags v1.14.0, v1.21.3), KAI-Scheduler v0.16.7 `deployments/kai-scheduler`,
 * Grove `operator/charts` (v0.1.0-alpha.9, -alpha.11), dynamo-platform 1.2.1.
 *
 * Where the program departs from NVIDIA's output on purpose, the function says so; docs/differences.md
 * lists each with its reason.
 */
import * as yaml from "js-yaml";
import type { BundleVersion } from "../catalog/releases";
import { maintenanceGate } from "../config/maintenance";
import type { ComputePlaneConfig, Toleration } from "../config/schema";
import { UPSTREAM, PINNED_TAGS, mirrorBase, mirrorImage, thirdPartyImage } from "./images";
import { type Values, deepMerge, isPlainObject } from "./merge";
import {
  OBSERVABILITY_RELEASE_NAMES,
  type ObservabilityImages,
  isObservabilityRelease,
  observabilityValues,
} from "./observability";

/** What the control plane hands a compute plane (read through the stack-reference contract). */
export interface ComputeInputs {
  imageRegistry: string;
  imageRepository: string;
  /** Registration identity of this cluster (docs/upstream-facts.md §2.7). */
  clusterID: string;
  clusterGroupID: string;
  ncaID: string;
  region: string;
  icmsServiceURL: string;
  revalServiceURL: string;
  natsURL: string;
  /** Host-header overrides; an empty string means none (the key is then not sent, as NVIDIA's template does). */
  icmsHost: string;
  revalHost: string;
  natsHost: string;
}

/** Compute inputs with every field empty (for values whose parts read none of them); `over` sets some. */
export function blankComputeInputs(over: Partial<ComputeInputs> = {}): ComputeInputs {
  return {
    imageRegistry: "",
    imageRepository: "",
    clusterID: "",
    clusterGroupID: "",
    ncaID: "",
    region: "",
    icmsServiceURL: "",
    revalServiceURL: "",
    natsURL: "",
    icmsHost: "",
    revalHost: "",
    natsHost: "",
    ...over,
  };
}

/** Public registries the add-on charts pull from when no mirror is configured (the charts' published defaults). */
export const UPSTREAM_IMAGE_REGISTRIES = {
  /** KAI scheduler: every image is `<global.registry>/<component>:<chart version>`. */
  kaiScheduler: UPSTREAM.kaiScheduler,
  /** Grove: `grove-operator`, `grove-install-crds`, `grove-initc`. */
  groveOperator: UPSTREAM.grove,
  /** Dynamo: the `kubernetes-operator` image NVIDIA's stack sets. */
  dynamoOperator: "nvcr.io/nvidia/ai-dynamo",
} as const;

/** The image mirror a compute plane reads from its control plane (`images.registry`/`images.repository`). */
export type ImageMirror = Pick<ComputeInputs, "imageRegistry" | "imageRepository">;

/**
 * Where a compute-plane third-party image comes from: `explicit` when set, the mirror form of `upstream` with
 * `images.thirdParty: mirror` (values/images.ts), else `upstream` itself.
 */
function computeImage(cfg: ComputePlaneConfig, mirror: ImageMirror, upstream: string, explicit?: string) {
  const base = mirrorBase(mirror.imageRegistry, mirror.imageRepository);
  return thirdPartyImage(upstream, cfg.images.thirdParty, base, explicit);
}

/**
 * The node tuner's images (components/inotifyTuner.ts): `inotify.initImage` / `inotify.pauseImage` when set,
 * else `busybox:1.36` and `registry.k8s.io/pause:3.9` (NVCA docs), in their mirror form with
 * `images.thirdParty: mirror`.
 */
export function inotifyImages(
  cfg: ComputePlaneConfig,
  mirror: ImageMirror,
): { initImage: string; pauseImage: string } {
  const mirrored = cfg.images.thirdParty === "mirror";
  const base = mirrorBase(mirror.imageRegistry, mirror.imageRepository);
  const pick = (explicit: string | undefined, upstream: string, plain: string) =>
    explicit ?? (mirrored ? mirrorImage(upstream, base) : plain);
  return {
    initImage: pick(cfg.inotify.initImage, `${UPSTREAM.busybox}:${PINNED_TAGS.busybox}`, "busybox:1.36"),
    pauseImage: pick(
      cfg.inotify.pauseImage,
      `${UPSTREAM.pause}:${PINNED_TAGS.pause}`,
      "registry.k8s.io/pause:3.9",
    ),
  };
}

/**
 * The image versions a bundle pins for the NVCA operator, NVCA and its otel collector; `undefined` means the
 * bundle's stack leaves the chart's own default in place (so the program sends no value).
 * 0.8.0: `environments/base.yaml` sets 3.2.7 / 3.2.7 / 0.157.9. 0.7.0: the stack sets none (chart 1.14.0 bakes
 * its own). 0.6.1: `docs/user/manifest.md` lists nvca and nvca-operator 3.0.3 with chart 1.12.7.
 */
export const NVCA_PINS: Record<BundleVersion, { imageTag?: string; nvcaVersion?: string; otelTag?: string }> =
  {
    "0.6.1": { imageTag: "3.0.3", nvcaVersion: "3.0.3" },
    "0.7.0": {},
    "0.8.0": { imageTag: "3.2.7", nvcaVersion: "3.2.7", otelTag: "0.157.9" },
  };

/**
 * The feature gates NVCA gets by default (docs/upstream-facts.md §2.6: NVIDIA's
 * `deploy/stacks/nvcf-compute-plane/helmfile.d/02-nvca.yaml.gotmpl`); `featureGates` adds each one the user
 * neither lists nor negates.
 */
export const DEFAULT_FEATURE_GATES = [
  "DynamicGPUDiscovery",
  "InfraResourceOverhead",
  "EnforceHelmFunctionResourceLimits",
  "EnforceContainerFunctionResourceLimits",
  "EnforceHelmTaskResourceLimits",
  "EnforceContainerTaskResourceLimits",
] as const;

/**
 * NVCA feature gates (docs/upstream-facts.md §2.6): the user's gates (without `-` negations), then each
 * default gate not already present and not negated; BYOObservability when the profile is compute/all; from
 * bundle 0.8.0 on also KAIScheduler when KAI is installed and DynamoOperatorSupport when Dynamo is (the 0.7.0
 * template adds neither); last, the flag of `nvcf:maintenance` (`CordonMaintenance` for cordon,
 * `CordonAndDrainMaintenance` for drain, none for off). Input: config; output: ordered gate names.
 * On purpose: `-Gate` entries are dropped from the list (NVIDIA's template passes them through verbatim into
 * the cluster's capability list, where they name no capability).
 */
export function featureGates(cfg: ComputePlaneConfig): string[] {
  const user = cfg.nvcaOperator.featureGates;
  const negated = new Set(user.filter((g) => g.startsWith("-")).map((g) => g.slice(1)));
  const out: string[] = [];
  for (const g of user) if (!g.startsWith("-") && !out.includes(g)) out.push(g);
  const defaults: string[] = [...DEFAULT_FEATURE_GATES];
  const p = cfg.observability.profile;
  if (p === "compute" || p === "all") defaults.push("BYOObservability");
  if (cfg.bundleVersion === "0.8.0") {
    if (cfg.addons.kaiScheduler.enabled) defaults.push("KAIScheduler");
    if (cfg.addons.dynamoOperator.enabled) defaults.push("DynamoOperatorSupport");
  }
  for (const g of defaults) if (!out.includes(g) && !negated.has(g)) out.push(g);
  // nvcf:maintenance: the flag NVIDIA's maintenance modes are chosen by, last (config/maintenance.ts).
  const maintenance = maintenanceGate(cfg.maintenance);
  if (maintenance !== undefined && !out.includes(maintenance)) out.push(maintenance);
  return out;
}

/** One entry of NVCA's `cluster.validationPolicy.allowedExtraKubernetesTypes`. */
export interface ExtraType {
  group: string;
  version: string;
  kind: string;
  /** Plural resource name: helm-nvca-operator requires it (it derives a ClusterRole rule from it). */
  resource: string;
}

/**
 * Extra Kubernetes kinds NVCA must allow for each add-on (docs/upstream-facts.md §2.5; the 0.8.0 compute stack
 * adds them, the 0.7.0 one does not): KAI's PodGroup when KAI is installed or the KAIScheduler gate is set,
 * Grove's four kinds when Grove is installed, Dynamo's seven when Dynamo is installed or the
 * DynamoOperatorSupport gate is set. Bundles before 0.8.0: none.
 */
export function addonExtraTypes(cfg: ComputePlaneConfig): ExtraType[] {
  if (cfg.bundleVersion !== "0.8.0") return [];
  const gates = cfg.nvcaOperator.featureGates;
  const t: ExtraType[] = [];
  const add = (group: string, version: string, kind: string) =>
    t.push({ group, version, kind, resource: `${kind.toLowerCase()}s` });
  if (cfg.addons.kaiScheduler.enabled || gates.includes("KAIScheduler"))
    add("scheduling.run.ai", "v2alpha2", "PodGroup");
  if (cfg.addons.groveOperator.enabled) {
    for (const kind of ["PodCliqueSet", "PodClique", "PodCliqueScalingGroup"])
      add("grove.io", "v1alpha1", kind);
    add("scheduler.grove.io", "v1alpha1", "PodGang");
  }
  if (cfg.addons.dynamoOperator.enabled || gates.includes("DynamoOperatorSupport")) {
    for (const kind of [
      "DynamoCheckpoint",
      "DynamoComponentDeployment",
      "DynamoGraphDeployment",
      "DynamoGraphDeploymentRequest",
      "DynamoGraphDeploymentScalingAdapter",
      "DynamoModel",
      "DynamoWorkerMetadata",
    ])
      add("nvidia.com", "v1alpha1", kind);
  }
  return t;
}

/**
 * The operator's `agentConfig.mergeConfig` text: the user's own merge config (from
 * `releaseValues.nvca-operator.agentConfig.mergeConfig`, YAML text), with the add-on types appended to
 * `cluster.validationPolicy.allowedExtraKubernetesTypes` unless an entry of the same group/version/kind is
 * there already (the user's entry wins), and the policy name set to `Default` when unset (ReVal accepts only
 * `Default` or `Unrestricted`). Returns `undefined` when there is nothing to merge (the chart default applies).
 * Throws when the user's text is not a YAML map.
 */
export function agentMergeConfig(cfg: ComputePlaneConfig): string | undefined {
  const userText = (cfg.releaseValues["nvca-operator"]?.["agentConfig"] as Values | undefined)?.[
    "mergeConfig"
  ];
  const extra = addonExtraTypes(cfg);
  if (extra.length === 0) return typeof userText === "string" ? userText : undefined;
  const base = typeof userText === "string" && userText.trim() !== "" ? yaml.load(userText) : {};
  if (!isPlainObject(base))
    throw new Error("releaseValues.nvca-operator.agentConfig.mergeConfig is not a YAML map");
  const cluster = isPlainObject(base["cluster"]) ? { ...base["cluster"] } : {};
  const policy = isPlainObject(cluster["validationPolicy"]) ? { ...cluster["validationPolicy"] } : {};
  const allowed = Array.isArray(policy["allowedExtraKubernetesTypes"])
    ? [...(policy["allowedExtraKubernetesTypes"] as Values[])]
    : [];
  const seen = new Set(
    allowed.map((a) => `${String(a["group"])}/${String(a["version"])}/${String(a["kind"])}`),
  );
  for (const t of extra) if (!seen.has(`${t.group}/${t.version}/${t.kind}`)) allowed.push({ ...t });
  policy["allowedExtraKubernetesTypes"] = allowed;
  if (!policy["name"]) policy["name"] = "Default";
  cluster["validationPolicy"] = policy;
  return yaml.dump({ ...base, cluster }, { lineWidth: -1, noRefs: true });
}

/** The operator's node selector and tolerations: its own settings, else the plane-wide `placement`. */
function operatorPlacement(cfg: ComputePlaneConfig): {
  nodeSelector?: { key: string; value: string };
  tolerations: Toleration[];
} {
  return {
    nodeSelector: cfg.nvcaOperator.nodeSelector ?? cfg.placement.nodeSelector,
    tolerations: cfg.nvcaOperator.tolerations ?? cfg.placement.tolerations,
  };
}

/** `[{name}]` for the configured pull secret, or `[]` when nodes authenticate themselves. */
function pullSecrets(cfg: ComputePlaneConfig): { name: string }[] {
  return cfg.pullSecret.name === null ? [] : [{ name: cfg.pullSecret.name }];
}

/**
 * The cluster identity the NVCA operator takes from its values at start-up (docs/upstream-facts.md §2.8: the
 * `nvcfbackend-self-managed` ConfigMap it reads when it starts): the registration's IDs, NCA id, region (as
 * `nvcaOperatorValues` sends it) and service URLs, with the host-header overrides it sends ("" when none).
 * A change of any of these restarts the operator (components/computePlane.ts). Input: config, control-plane
 * inputs. Output: flat strings, no secret.
 */
export function operatorIdentity(cfg: ComputePlaneConfig, inputs: ComputeInputs): Record<string, string> {
  const hosts = cfg.nvcaOperator.hostHeaderOverrides;
  return {
    clusterID: inputs.clusterID,
    clusterGroupID: inputs.clusterGroupID,
    ncaID: inputs.ncaID,
    region: cfg.nvcaOperator.region ?? inputs.region,
    icmsServiceURL: inputs.icmsServiceURL,
    revalServiceURL: inputs.revalServiceURL,
    natsURL: inputs.natsURL,
    icmsHost: hosts ? inputs.icmsHost : "",
    revalHost: hosts ? inputs.revalHost : "",
    natsHost: hosts ? inputs.natsHost : "",
  };
}

/**
 * Values for `helm-nvca-operator` (docs/upstream-facts.md §2.5), per bundle. Keys the stack sets only when
 * non-empty (pull secrets, host-header overrides, tolerations, agent tolerations) are left out when empty;
 * 0.8.0 also pins the image tags, disables the generated pull secret, sets `ngcConfig.clusterSource` and
 * adds the add-on types to NVCA's validation policy; 0.7.0 leaves those to chart 1.14.0's defaults.
 * Differences from NVIDIA's stack, on purpose: the region goes to `selfManaged.region` (the key the chart
 * reads; the stack's top-level `region` is ignored by the chart, §4 row 16), the NCA id only to `ncaID`
 * (the stack's extra `ncaId` is read by nothing), and `selfManaged.identitySource` and
 * `webhookConfig.imageConfig.pullPolicy`, which no template or values.yaml of chart 1.14.0 or 1.21.3 has,
 * are not sent.
 * Input: config, the control-plane inputs. Output: values (with `releaseValues.nvca-operator` merged last).
 */
export function nvcaOperatorValues(cfg: ComputePlaneConfig, inputs: ComputeInputs): Values {
  const reg = `${inputs.imageRegistry}/${inputs.imageRepository}`;
  const op = cfg.nvcaOperator;
  const v080 = cfg.bundleVersion === "0.8.0";
  const pins = NVCA_PINS[cfg.bundleVersion];
  const imageTag = op.imageTag ?? pins.imageTag;
  const nvcaVersion = op.nvcaVersion ?? pins.nvcaVersion;
  const otelTag = op.otelCollectorImageTag ?? pins.otelTag;
  // NVCA's collectors are public NGC images (nvcr.io/nvidia/nvcf-byoc); with thirdParty: mirror they follow the mirror.
  const mirrored = cfg.images.thirdParty === "mirror";
  const otelRepository =
    op.otelCollectorImageRepository ||
    (mirrored ? computeImage(cfg, inputs, UPSTREAM.nvcaOtelCollector) : undefined);
  const byooRepository =
    op.byooOtelCollectorImageRepository ??
    (mirrored && v080 ? computeImage(cfg, inputs, UPSTREAM.nvcaByooOtelCollector) : undefined);
  const selfManaged: Values = {
    region: op.region ?? inputs.region,
    icmsServiceURL: inputs.icmsServiceURL,
    revalServiceURL: inputs.revalServiceURL,
    natsURL: inputs.natsURL,
    featureGateValues: featureGates(cfg),
    otelCollector: {
      enabled: cfg.observability.profile === "compute" || cfg.observability.profile === "all",
      ...(otelRepository ? { imageRepository: otelRepository } : {}),
      ...(otelTag ? { imageTag: otelTag } : {}),
    },
    imageCredHelper: { imageRepository: `${reg}/nvcf-image-credential-helper` },
    sharedStorage: { imageRepository: `${reg}/samba` },
  };
  if (nvcaVersion) selfManaged["nvcaVersion"] = nvcaVersion;
  if (op.hostHeaderOverrides) {
    if (inputs.icmsHost) selfManaged["icmsServiceHostHeaderOverride"] = inputs.icmsHost;
    if (inputs.revalHost) selfManaged["revalServiceHostHeaderOverride"] = inputs.revalHost;
    if (inputs.natsHost) selfManaged["natsHostOverride"] = inputs.natsHost;
  }
  const values: Values = {
    clusterID: inputs.clusterID,
    clusterGroupID: inputs.clusterGroupID,
    ncaID: inputs.ncaID,
    clusterName: cfg.clusterName,
    image: {
      repository: `${reg}/nvca-operator`,
      ...(imageTag ? { tag: imageTag } : {}),
      pullPolicy: "IfNotPresent",
    },
    nvcaImage: { repositoryOverride: `${reg}/nvca`, pullPolicy: "IfNotPresent" },
    selfManaged,
  };
  const ips = pullSecrets(cfg);
  if (ips.length > 0) values["imagePullSecrets"] = ips;
  if (v080) {
    values["generateImagePullSecret"] = false;
    values["ngcConfig"] = { clusterSource: "self-managed" };
  }
  if (byooRepository) values["agent"] = { byooOtelCollector: { imageRepository: byooRepository } };
  // The cluster validator (off unless enabled through releaseValues) would take nvcr.io/nvidia/nvcf-byoc otherwise.
  if (mirrored)
    values["clusterValidator"] = {
      image: { repository: computeImage(cfg, inputs, UPSTREAM.nvcaClusterValidator) },
    };
  const place = operatorPlacement(cfg);
  if (place.nodeSelector)
    values["nodeSelector"] = { key: place.nodeSelector.key, value: place.nodeSelector.value };
  if (place.tolerations.length > 0) values["tolerations"] = place.tolerations;
  if (op.agentTolerations.length > 0 || op.workloadTolerations.length > 0) {
    values["agent"] = deepMerge(values["agent"] as Values | undefined, {
      ...(op.agentTolerations.length > 0 ? { tolerations: op.agentTolerations } : {}),
      ...(op.workloadTolerations.length > 0 ? { workload: { tolerations: op.workloadTolerations } } : {}),
    });
  }
  const merged = deepMerge(values, cfg.releaseValues["nvca-operator"]);
  const mergeConfig = agentMergeConfig(cfg);
  if (mergeConfig !== undefined)
    merged["agentConfig"] = { ...((merged["agentConfig"] as Values | undefined) ?? {}), mergeConfig };
  return merged;
}

/** The KAI components whose resources NVIDIA's stack sets, with its requests/limits (cpu, memory). */
const KAI_RESOURCES: Record<string, [reqCpu: string, reqMem: string, limCpu: string, limMem: string]> = {
  operator: ["50m", "256Mi", "1000m", "1Gi"],
  podgrouper: ["50m", "512Mi", "1000m", "4Gi"],
  podgroupcontroller: ["50m", "256Mi", "1000m", "1Gi"],
  binder: ["50m", "2Gi", "4000m", "4Gi"],
  scheduler: ["500m", "3Gi", "2000m", "6Gi"],
  queuecontroller: ["50m", "256Mi", "1000m", "1Gi"],
  admission: ["50m", "256Mi", "1000m", "1Gi"],
  nodescaleadjuster: ["50m", "256Mi", "1000m", "1Gi"],
  numaPlacementExporter: ["50m", "64Mi", "1000m", "1Gi"],
};

/**
 * KAI scheduler values (chart kai-scheduler v0.16.7, bundle 0.8.0): restricted security context, the plane's
 * placement and pull secret under `global`, per-component resources, the scheduler's binpack placement
 * (`scheduler.placementStrategy` and the `nodeplacement` plugin: GPUs binpacked, CPUs spread) with the
 * preempt and consolidation actions off, and the default parent/child queues with unlimited quota.
 * `global.registry` is set only with a mirror (`addons.kaiScheduler.imageRegistry`, else the mirror form of
 * `ghcr.io/kai-scheduler/kai-scheduler` with `images.thirdParty: mirror`); otherwise the published chart's own
 * applies. Every KAI pod, and the resource-reservation ServiceAccount, reference `global.imagePullSecrets`.
 */
export function kaiValues(cfg: ComputePlaneConfig, mirror?: ImageMirror): Values {
  const unlimited = () => ({
    cpu: { quota: -1, limit: -1, overQuotaWeight: 1 },
    gpu: { quota: -1, limit: -1, overQuotaWeight: 1 },
    memory: { quota: -1, limit: -1, overQuotaWeight: 1 },
  });
  const global: Values = {
    securityContext: {
      runAsUser: 10000,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    },
  };
  const ns = cfg.placement.nodeSelector;
  if (ns) global["nodeSelector"] = { [ns.key]: ns.value };
  const ips = pullSecrets(cfg);
  if (ips.length > 0) global["imagePullSecrets"] = ips;
  if (cfg.placement.tolerations.length > 0) global["tolerations"] = cfg.placement.tolerations;
  const kaiRegistry =
    cfg.addons.kaiScheduler.imageRegistry ??
    (mirror && cfg.images.thirdParty === "mirror"
      ? computeImage(cfg, mirror, UPSTREAM.kaiScheduler)
      : undefined);
  if (kaiRegistry) global["registry"] = kaiRegistry;
  const out: Values = { global };
  for (const [component, [rc, rm, lc, lm]] of Object.entries(KAI_RESOURCES))
    out[component] = { resources: { requests: { cpu: rc, memory: rm }, limits: { cpu: lc, memory: lm } } };
  out["scheduler"] = {
    placementStrategy: "binpack",
    plugins: { nodeplacement: { arguments: { gpu: "binpack", cpu: "spread" } } },
    actions: { preempt: { enabled: false }, consolidation: { enabled: false } },
    ...(out["scheduler"] as Values),
  };
  out["defaultQueue"] = {
    createDefaultQueue: true,
    parentName: "default-parent-queue",
    childName: "default-queue",
    parentResources: unlimited(),
    childResources: unlimited(),
  };
  return out;
}

/**
 * Grove operator values (chart grove-charts v0.1.0-alpha.11 in 0.8.0, -alpha.9 in 0.7.0): one replica, the
 * operator image at the bundle's tag, resources, leader election, logging, controller concurrency, webhook /
 * probe / metrics ports with the operator provisioning its own webhook certificate, the CRD-installer init
 * container, `config.topologyAwareScheduling.enabled` when topology-aware scheduling is on (0.8.0) and
 * `config.network` when set. Placement: tolerations always; the node selector only from alpha.10 on (alpha.9
 * has no such value). With a mirror (`addons.groveOperator.imageRegistry`, else the mirror form of
 * `ghcr.io/ai-dynamo/grove` with `images.thirdParty: mirror`) the operator, CRD-installer and init-container
 * images come from it; otherwise from `ghcr.io/ai-dynamo/grove`. No pull secret: grove-charts (alpha.9,
 * alpha.11) has no value for one (its Deployment renders no `imagePullSecrets`), so the nodes must be able
 * to pull Grove's images themselves (docs/images-and-mirrors.md).
 */
export function groveValues(cfg: ComputePlaneConfig, images?: ImageMirror): Values {
  const tag = cfg.bundleVersion === "0.7.0" ? "v0.1.0-alpha.9" : "v0.1.0-alpha.11";
  const mirror =
    cfg.addons.groveOperator.imageRegistry ??
    (images && cfg.images.thirdParty === "mirror" ? computeImage(cfg, images, UPSTREAM.grove) : undefined);
  const registry = mirror ?? UPSTREAM_IMAGE_REGISTRIES.groveOperator;
  const config: Values = {
    leaderElection: {
      enabled: true,
      leaseDuration: "15s",
      renewDeadline: "10s",
      retryPeriod: "2s",
      resourceName: "grove-operator-leader-election",
    },
    logLevel: "info",
    logFormat: "json",
    controllers: {
      podCliqueSet: { concurrentSyncs: 3 },
      podClique: { concurrentSyncs: 3 },
      podCliqueScalingGroup: { concurrentSyncs: 3 },
    },
    server: {
      webhooks: { port: 9443, certProvisionMode: "auto", secretName: "grove-webhook-server-cert" },
      healthProbes: { enable: true, port: 9444 },
      metrics: { port: 9445 },
    },
  };
  if (cfg.bundleVersion === "0.8.0" && cfg.addons.topologyAwareScheduling.enabled)
    config["topologyAwareScheduling"] = { enabled: true };
  if (Object.keys(cfg.addons.groveOperator.network).length > 0)
    config["network"] = cfg.addons.groveOperator.network;
  const out: Values = {
    replicaCount: 1,
    image: { repository: `${registry}/grove-operator`, tag },
    resources: { limits: { memory: "1Gi" }, requests: { cpu: "50m", memory: "128Mi" } },
    podAnnotations: {},
    config,
    webhookServerSecret: { enabled: false },
    crdInstaller: { enabled: true },
  };
  const ns = cfg.placement.nodeSelector;
  if (ns && cfg.bundleVersion === "0.8.0") out["nodeSelector"] = { [ns.key]: ns.value };
  if (cfg.placement.tolerations.length > 0) out["tolerations"] = cfg.placement.tolerations;
  if (mirror) {
    // The chart requires a tag with the repository (crdInstaller.image needs both).
    out["crdInstaller"] = { enabled: true, image: { repository: `${mirror}/grove-install-crds`, tag } };
    out["deployment"] = { env: [{ name: "GROVE_INIT_CONTAINER_IMAGE", value: `${mirror}/grove-initc` }] };
  }
  return out;
}

/**
 * dynamo-platform 1.2.1 values (umbrella chart): the operator (`dynamo-operator.*`: image, resources, one
 * replica, node affinity from the placement's node selector, tolerations, CRD upgrade, fail-closed webhook
 * without cert-manager, no namespace restriction, the metrics Service), the bundled NATS with JetStream on a
 * file store and PVC (pinned by the placement when set), and the umbrella's `global.*` switches (install NATS;
 * no etcd; use the already-installed Grove; no KAI wiring, NVCA injects KAI settings into workloads itself).
 * On purpose, three of NVIDIA's settings go to the paths the charts read: the manager's resources under
 * `controllerManager.manager.resources`, JetStream under `nats.config.jetstream`, and the metrics Service
 * under `dynamo-operator.metricsService` (NVIDIA writes `controllerManager.resources`, `nats.jetstream` and a
 * top-level `metricsService`, which nothing reads). Mirrors: `addons.dynamoOperator.imageRegistry` replaces `nvcr.io/nvidia/ai-dynamo` for the
 * operator image, `natsImageRegistry` is the registry host of the NATS images; unset, their mirror forms with
 * `images.thirdParty: mirror`, else the upstream ones. With a pull secret configured, the operator
 * (`dynamo-operator.imagePullSecrets`) and NATS (`nats.global.image.pullSecretNames`) reference it (NVIDIA's
 * stack passes none, so a private mirror could not be pulled from).
 */
export function dynamoValues(cfg: ComputePlaneConfig, images?: ImageMirror): Values {
  const d = cfg.addons.dynamoOperator;
  const mirrored = images !== undefined && cfg.images.thirdParty === "mirror";
  const ns = cfg.placement.nodeSelector;
  const tol = cfg.placement.tolerations;
  const controllerManager: Values = {
    manager: {
      image: {
        repository: d.imageRegistry
          ? `${d.imageRegistry}/kubernetes-operator`
          : mirrored
            ? computeImage(cfg, images, UPSTREAM.dynamoOperator)
            : UPSTREAM.dynamoOperator,
      },
      // NVIDIA's stack writes these at controllerManager.resources, which the operator chart does not read.
      resources: { limits: { memory: "2Gi" }, requests: { cpu: "512m", memory: "1Gi" } },
    },
    replicas: 1,
  };
  if (ns)
    controllerManager["affinity"] = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: ns.key, operator: "In", values: [ns.value] }] }],
        },
      },
    };
  if (tol.length > 0) controllerManager["tolerations"] = tol;
  // The NATS chart reads JetStream under config.jetstream (NVIDIA's stack writes nats.jetstream, which it ignores).
  const nats: Values = {
    config: { jetstream: { enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } } },
  };
  if (ns || tol.length > 0)
    nats["podTemplate"] = {
      merge: {
        spec: {
          ...(ns ? { nodeSelector: { [ns.key]: ns.value } } : {}),
          ...(tol.length > 0 ? { tolerations: tol } : {}),
        },
      },
    };
  if (d.natsImageRegistry) {
    nats["container"] = { image: { registry: d.natsImageRegistry } };
    nats["reloader"] = { image: { registry: d.natsImageRegistry } };
  } else if (mirrored) {
    // The NATS chart composes `<registry>/<repository>:<tag>`: the mirror host, and the mirror path in front of
    // the Docker Hub names (`nats`, `natsio/nats-server-config-reloader`).
    const repoOf = (upstream: string) => mirrorImage(upstream, images.imageRepository).replace(/^\//, "");
    nats["container"] = {
      image: { registry: images.imageRegistry, repository: repoOf(UPSTREAM.nats) },
    };
    nats["reloader"] = {
      image: { registry: images.imageRegistry, repository: repoOf(UPSTREAM.natsReloader) },
    };
  }
  const ips = pullSecrets(cfg);
  // The NATS chart's pull secrets are names (`global.image.pullSecretNames`).
  if (ips.length > 0) nats["global"] = { image: { pullSecretNames: ips.map((p) => p.name) } };
  return {
    "dynamo-operator": {
      ...(ips.length > 0 ? { imagePullSecrets: ips } : {}),
      controllerManager,
      upgradeCRD: true,
      webhook: { failurePolicy: "Fail", certManager: { enabled: false } },
      namespaceRestriction: { enabled: false },
      // The operator subchart's metrics Service switch (NVIDIA's stack writes it at the umbrella's top level).
      metricsService: { enabled: true },
    },
    nats,
    global: {
      nats: { install: true },
      etcd: { enabled: false, install: false },
      grove: { enabled: true, install: false },
      "kai-scheduler": { enabled: false, install: false },
    },
  };
}

/**
 * nvcf-cluster-topology 0.1.0 values (the compute stack's own chart, bundle 0.8.0): the configured topologies
 * (`levels[].nodeLabel`), and which of the chart's two outputs this release renders: KAI `Topology` objects
 * (`kaiScheduler.enabled`) or Grove `ClusterTopologyBinding`s (`groveOperator.enabled`).
 */
export function topologyValues(cfg: ComputePlaneConfig, target: "kai" | "grove"): Values {
  return {
    topologies: cfg.addons.topologyAwareScheduling.topologies,
    kaiScheduler: { enabled: target === "kai" },
    groveOperator: { enabled: target === "grove" },
  };
}

/**
 * The image context of a GPU cluster's observability releases: the control plane's mirror (read through the
 * stack reference), this stack's `images.thirdParty` and pull secret.
 */
export function computeObservabilityImages(
  cfg: ComputePlaneConfig,
  mirror: ImageMirror,
): ObservabilityImages {
  return {
    registry: mirror.imageRegistry,
    repository: mirror.imageRepository,
    thirdParty: cfg.images.thirdParty,
    pullSecret: cfg.pullSecret.name,
  };
}

/** Release names that have a values builder on the compute plane (every compute-plane release of the catalog). */
export const COMPUTE_VALUES_RELEASES: readonly string[] = [
  ...OBSERVABILITY_RELEASE_NAMES,
  "kai-scheduler",
  "nvcf-kai-topology",
  "grove-operator",
  "nvcf-grove-topology",
  "dynamo-operator",
  "nvca-operator",
];

/**
 * Values of a compute-plane release. Input: release name, config, control-plane inputs. Output: values with
 * `releaseValues.<release>` deep-merged last. Throws on an unknown release name.
 */
export function computeValues(release: string, cfg: ComputePlaneConfig, inputs: ComputeInputs): Values {
  if (isObservabilityRelease(release))
    return deepMerge(
      observabilityValues(release, cfg.observability, computeObservabilityImages(cfg, inputs)),
      cfg.releaseValues[release],
    );
  const table: Record<string, () => Values> = {
    "kai-scheduler": () => kaiValues(cfg, inputs),
    "nvcf-kai-topology": () => topologyValues(cfg, "kai"),
    "grove-operator": () => groveValues(cfg, inputs),
    "nvcf-grove-topology": () => topologyValues(cfg, "grove"),
    "dynamo-operator": () => dynamoValues(cfg, inputs),
    "nvca-operator": () => nvcaOperatorValues(cfg, inputs),
  };
  const build = table[release];
  if (!build) throw new Error(`no values builder for compute-plane release "${release}"`);
  const v = build();
  return release === "nvca-operator" ? v : deepMerge(v, cfg.releaseValues[release]);
}
