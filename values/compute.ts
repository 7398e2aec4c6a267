/**
 * Values per compute-plane release (pure functions). Facts: spec §2.3 (releases and add-on values),
 * §2.5 (values passed to helm-nvca-operator), §2.6 (feature gates), §2.7 (registration values),
 * §4 rows 9-11 and 16.
 */
import type { EnableFlag } from "../catalog/releases";
import { DEFAULT_FEATURE_GATES } from "../config/rules";
import type { ComputePlaneConfig } from "../config/schema";
import { type Values, deepMerge } from "./merge";

/** What the control plane hands a compute plane (read through the stack-reference contract). */
export interface ComputeInputs {
  imageRegistry: string;
  imageRepository: string;
  /** Registration identity of this cluster (spec §2.7). */
  clusterID: string;
  clusterGroupID: string;
  ncaID: string;
  region: string;
  icmsServiceURL: string;
  revalServiceURL: string;
  natsURL: string;
  icmsHost: string;
  revalHost: string;
  natsHost: string;
}

/** Which catalog flags are on for a compute-plane config (spec §2.3 conditions). */
export function computeFlags(cfg: ComputePlaneConfig): Record<EnableFlag, boolean> {
  const a = cfg.addons;
  const off = {
    observabilityEnabled: false,
    prometheusOperatorCrdsInstall: false,
    otelOperatorInstall: false,
    metricsBackendInstall: false,
    collectorInstall: false,
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
    always: true,
    kaiScheduler: a.kaiScheduler.enabled,
    kaiTopology: a.topologyAwareScheduling.enabled && a.kaiScheduler.enabled,
    groveOperator: a.groveOperator.enabled,
    groveTopology: a.topologyAwareScheduling.enabled && a.groveOperator.enabled,
    dynamoOperator: a.dynamoOperator.enabled,
  };
}

/**
 * NVCA feature gates (spec §2.6): the user's gates (without `-` negations), then each default gate not
 * already present and not negated; BYOObservability when the profile is compute/all, KAIScheduler only
 * when KAI is installed, DynamoOperatorSupport when Dynamo is. Input: config; output: ordered gate names.
 */
export function featureGates(cfg: ComputePlaneConfig): string[] {
  const user = cfg.nvcaOperator.featureGates;
  const negated = new Set(user.filter((g) => g.startsWith("-")).map((g) => g.slice(1)));
  const out: string[] = [];
  for (const g of user) if (!g.startsWith("-") && !out.includes(g)) out.push(g);
  const defaults: string[] = [...DEFAULT_FEATURE_GATES];
  const p = cfg.observability.profile;
  if (p === "compute" || p === "all") defaults.push("BYOObservability");
  if (cfg.addons.kaiScheduler.enabled) defaults.push("KAIScheduler");
  if (cfg.addons.dynamoOperator.enabled) defaults.push("DynamoOperatorSupport");
  for (const g of defaults) if (!out.includes(g) && !negated.has(g)) out.push(g);
  return out;
}

/** Extra Kubernetes kinds NVCA must allow for each add-on (spec §2.5). */
export function addonExtraTypes(cfg: ComputePlaneConfig): { group: string; version: string; kind: string }[] {
  const t: { group: string; version: string; kind: string }[] = [];
  if (cfg.addons.kaiScheduler.enabled)
    t.push({ group: "scheduling.run.ai", version: "v2alpha2", kind: "PodGroup" });
  if (cfg.addons.groveOperator.enabled) {
    for (const kind of ["PodCliqueSet", "PodClique", "PodCliqueScalingGroup"])
      t.push({ group: "grove.io", version: "v1alpha1", kind });
    t.push({ group: "scheduler.grove.io", version: "v1alpha1", kind: "PodGang" });
  }
  if (cfg.addons.dynamoOperator.enabled) {
    for (const kind of [
      "DynamoCheckpoint",
      "DynamoComponentDeployment",
      "DynamoGraphDeployment",
      "DynamoGraphDeploymentRequest",
      "DynamoGraphDeploymentScalingAdapter",
      "DynamoModel",
      "DynamoWorkerMetadata",
    ])
      t.push({ group: "nvidia.com", version: "v1alpha1", kind });
  }
  return t;
}

/**
 * Values for `helm-nvca-operator` (spec §2.5). Differences from the Helmfile stack, on purpose:
 * the region goes to `selfManaged.region` (the key the chart reads; the stack's top-level `region` is
 * ignored by the chart, spec §4 row 16) and the NCA id goes to `ncaID` (the stack's `ncaId` is unused).
 * Input: config, this cluster's name, the control-plane inputs. Output: values.
 */
export function nvcaOperatorValues(cfg: ComputePlaneConfig, inputs: ComputeInputs): Values {
  const reg = `${inputs.imageRegistry}/${inputs.imageRepository}`;
  const op = cfg.nvcaOperator;
  const selfManaged: Values = {
    identitySource: "psat",
    nvcaVersion: op.nvcaVersion,
    region: op.region ?? inputs.region,
    icmsServiceURL: inputs.icmsServiceURL,
    revalServiceURL: inputs.revalServiceURL,
    natsURL: inputs.natsURL,
    featureGateValues: featureGates(cfg),
    otelCollector: {
      enabled: cfg.observability.profile === "compute" || cfg.observability.profile === "all",
      imageTag: op.otelCollectorImageTag,
      ...(op.otelCollectorImageRepository ? { imageRepository: op.otelCollectorImageRepository } : {}),
    },
    imageCredHelper: { imageRepository: `${reg}/nvcf-image-credential-helper` },
    sharedStorage: { imageRepository: `${reg}/samba` },
  };
  if (op.hostHeaderOverrides) {
    selfManaged["icmsServiceHostHeaderOverride"] = inputs.icmsHost;
    selfManaged["revalServiceHostHeaderOverride"] = inputs.revalHost;
    selfManaged["natsHostOverride"] = inputs.natsHost;
  }
  const extra = addonExtraTypes(cfg);
  const values: Values = {
    clusterID: inputs.clusterID,
    clusterGroupID: inputs.clusterGroupID,
    ncaID: inputs.ncaID,
    clusterName: cfg.clusterName,
    image: { repository: `${reg}/nvca-operator`, tag: op.imageTag, pullPolicy: "IfNotPresent" },
    nvcaImage: { repositoryOverride: `${reg}/nvca` },
    imagePullSecrets: cfg.pullSecret.name === null ? [] : [{ name: cfg.pullSecret.name }],
    generateImagePullSecret: false,
    ngcConfig: { clusterSource: "self-managed" },
    selfManaged,
    webhookConfig: { imageConfig: { pullPolicy: "IfNotPresent" } },
    tolerations: op.tolerations,
    agent: { tolerations: op.agentTolerations, workload: { tolerations: op.workloadTolerations } },
  };
  if (extra.length > 0) {
    values["agentConfig"] = {
      mergeConfig: [
        "cluster:",
        "  validationPolicy:",
        "    name: Default",
        "    allowedExtraKubernetesTypes:",
        ...extra.map((t) => `      - {group: ${t.group}, version: ${t.version}, kind: ${t.kind}}`),
        "",
      ].join("\n"),
    };
  }
  if (op.nodeSelector) values["nodeSelector"] = { key: op.nodeSelector.key, value: op.nodeSelector.value };
  return deepMerge(values, cfg.releaseValues["nvca-operator"]);
}

/** KAI scheduler values set by the stack (spec §2.3): security context, binpack, default queues. */
function kaiValues(cfg: ComputePlaneConfig): Values {
  const ips = cfg.pullSecret.name === null ? [] : [{ name: cfg.pullSecret.name }];
  const unlimited = { quota: -1, limit: -1, overQuotaWeight: 1 };
  return {
    global: {
      registry: "ghcr.io/kai-scheduler/kai-scheduler",
      imagePullSecrets: ips,
      securityContext: { runAsUser: 10000, runAsNonRoot: true, capabilities: { drop: ["ALL"] } },
    },
    scheduler: {
      placementStrategy: { gpu: "binpack", cpu: "spread" },
      preemption: false,
      consolidation: false,
    },
    defaultQueue: {
      parent: {
        name: "default-parent-queue",
        resources: { cpu: unlimited, gpu: unlimited, memory: unlimited },
      },
      child: { name: "default-queue", resources: { cpu: unlimited, gpu: unlimited, memory: unlimited } },
    },
  };
}

/**
 * Values of a compute-plane release. Input: release name, config, control-plane inputs. Output: values.
 * Throws on an unknown release name.
 */
export function computeValues(release: string, cfg: ComputePlaneConfig, inputs: ComputeInputs): Values {
  const topology = {
    topologies: [
      { name: "nvcf-mnnvl-topology", levels: ["nvidia.com/gpu.clique", "kubernetes.io/hostname"] },
    ],
  };
  const table: Record<string, () => Values> = {
    "kai-scheduler": () => kaiValues(cfg),
    "nvcf-kai-topology": () => ({ ...topology, target: "kai" }),
    "grove-operator": () => ({
      image: { repository: "ghcr.io/ai-dynamo/grove/grove-operator", tag: "v0.1.0-alpha.11" },
      topologyAwareScheduling: cfg.addons.topologyAwareScheduling.enabled,
    }),
    "nvcf-grove-topology": () => ({ ...topology, target: "grove" }),
    "dynamo-operator": () => ({
      "dynamo-operator": {
        controllerManager: {
          manager: { image: { repository: "nvcr.io/nvidia/ai-dynamo/kubernetes-operator" } },
        },
        upgradeCRD: true,
        webhook: { failurePolicy: "Fail" },
      },
      grove: { enabled: true, install: false },
      kaiScheduler: { enabled: true, install: false },
      etcd: { enabled: false },
    }),
    "nvca-operator": () => nvcaOperatorValues(cfg, inputs),
  };
  const build = table[release];
  if (!build) throw new Error(`no values builder for compute-plane release "${release}"`);
  const v = build();
  return release === "nvca-operator" ? v : deepMerge(v, cfg.releaseValues[release]);
}
