/**
 * The typed shape of every stack's config, as zod schemas. Each top-level property is one Pulumi config
 * key in the `nvcf:` namespace (`pulumi config set --path nvcf:cassandra.replicas 3`). Objects are strict:
 * an unknown key is an error, never silently dropped (user report C13, spec §4 row 21).
 *
 * Defaults are the upstream `environments/base.yaml` defaults (spec §1.6 control plane, §2.4 compute plane)
 * unless a comment says otherwise. Keys listed in `SECRET_KEYS` must be set with `--secret`.
 */
import { z } from "zod";
import { BUNDLE_VERSIONS } from "../catalog/releases";

const str = z.string();
const bool = z.boolean();
const port = z.number().int().min(1).max(65535);

/** A Kubernetes label selector term as base.yaml writes it: `{key, value}`. */
const selectorTerm = z.strictObject({ key: str.min(1), value: str });
const toleration = z.strictObject({
  key: str.optional(),
  operator: z.enum(["Equal", "Exists"]).optional(),
  value: str.optional(),
  effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
  tolerationSeconds: z.number().int().optional(),
});
export type Toleration = z.infer<typeof toleration>;

/** How the program reaches a Kubernetes API server: a named context of the ambient kubeconfig, or none (current context). */
const kubernetes = z
  .strictObject({
    /** A context name in the kubeconfig files named by KUBECONFIG (or ~/.kube/config). */
    context: str.min(1).optional(),
  })
  .prefault({});

/** Where charts come from (spec §1.2): an OCI registry, an HTTPS Helm repository, or a local directory of charts. */
const charts = z
  .strictObject({
    source: z.enum(["oci", "https", "local"]).default("oci"),
    /** OCI: registry host, e.g. `nvcr.io`. */
    registry: str.default("nvcr.io"),
    /** OCI: repository path under the registry, e.g. `nvidia/nvcf`. */
    repository: str.default("YOUR_ORG/YOUR_TEAM"),
    /** HTTPS: repository URL, e.g. `https://helm.ngc.nvidia.com/nvidia/nvcf`. */
    url: str.optional(),
    /** Local: a directory holding one sub-directory per chart, named as the chart (relative to the project). */
    path: str.optional(),
    /** Registry user for OCI/HTTPS pulls; the password is the secret key `nvcf:chartRegistryPassword`. */
    username: str.optional(),
    /** Per-release chart version overrides for hot fixes, e.g. `{cassandra: "0.20.2"}`. Shown in the preview. */
    versionOverrides: z.record(str, str.min(1)).default({}),
    /** Helm wait timeout per release, in seconds (helmfile default 900). */
    timeoutSeconds: z.number().int().min(60).max(7200).default(900),
  })
  .prefault({});

/** Image registry settings: `global.image.{registry,repository}` (spec §1.6). */
const images = z
  .strictObject({
    registry: str.min(1).default("nvcr.io"),
    repository: str.min(1).default("YOUR_ORG/YOUR_TEAM"),
  })
  .prefault({});

/**
 * Image pull secret. `name: null` means nodes authenticate to the registry and no pull secret is referenced
 * (seed "Pull from a registry the cluster authenticates to automatically"). `create: false` references a
 * secret the user manages. The password is the secret key `nvcf:registryKey`.
 */
const pullSecret = z
  .strictObject({
    name: str.min(1).nullable().default("nvcr-pull-secret"),
    create: bool.default(true),
    /** Registry user; NGC uses the literal `$oauthtoken`. */
    username: str.min(1).default("$oauthtoken"),
  })
  .prefault({});

const perType = <T extends z.ZodTypeAny>(t: T) =>
  z.strictObject({
    all: t.optional(),
    vault: t.optional(),
    cassandra: t.optional(),
    controlplane: t.optional(),
  });

/** Node placement (spec §1.6 `global.nodeSelectors`, `global.tolerations`): per type with fallback to `all`. */
const placement = z
  .strictObject({
    nodeSelectors: z
      .strictObject({
        enabled: bool.default(false),
        ...perType(selectorTerm).shape,
      })
      .prefault({}),
    tolerations: z
      .strictObject({
        enabled: bool.default(false),
        ...perType(z.array(toleration)).shape,
      })
      .prefault({}),
  })
  .prefault({});

const storage = z
  .strictObject({
    /** StorageClass for Cassandra, OpenBao and NATS volumes; "" = the cluster default. */
    className: str.default(""),
    /** Volume size as a Kubernetes quantity, e.g. `10Gi`. */
    size: str
      .regex(/^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/, "a Kubernetes quantity such as 10Gi")
      .default("10Gi"),
  })
  .prefault({});

const mode = z.enum(["install", "existing", "disabled"]);

/** Observability (spec §1.5, §1.6). */
const observability = z
  .strictObject({
    profile: z.enum(["disabled", "control", "compute", "all"]).default("control"),
    namespace: str.min(1).default("monitoring"),
    components: z
      .strictObject({
        prometheusOperatorCrds: mode.default("install"),
        otelOperator: mode.default("install"),
        collector: mode.default("install"),
        targetAllocator: mode.default("install"),
        discoveryRbac: mode.default("install"),
      })
      .prefault({}),
    metricsBackend: z
      .strictObject({
        mode: mode.default("install"),
        type: z.enum(["victoriaMetrics", "external"]).default("victoriaMetrics"),
        remoteWriteEndpoint: str.default(""),
        promqlEndpoint: str.default(""),
        auth: z
          .strictObject({
            mode: z.enum(["none", "token", "mtls"]).default("none"),
            authnEndpoint: str.default(""),
            certPath: str.default(""),
            keyPath: str.default(""),
          })
          .prefault({}),
      })
      .prefault({}),
    tracing: z
      .strictObject({
        enabled: bool.default(false),
        collectorEndpoint: str.default(""),
        collectorPort: port.default(4317),
        collectorProtocol: z.enum(["http", "grpc"]).default("http"),
      })
      .prefault({}),
    metrics: z.strictObject({ enabled: bool.default(false) }).prefault({}),
  })
  .prefault({});

/** LLM addon PKI (spec §1.9). */
const llmPki = z
  .strictObject({
    enabled: bool.default(false),
    mode: z.enum(["certManager", "existingSecret"]).default("certManager"),
    issuerKind: z.enum(["ClusterIssuer", "Issuer"]).default("ClusterIssuer"),
    issuerName: str.default("nvcf-openbao-pki"),
    /** Whether the stack manages the ClusterIssuer; default: only for ClusterIssuer/nvcf-openbao-pki. */
    manageClusterIssuer: bool.optional(),
    allowedDomains: str.default(""),
    dnsNames: z.array(str.min(1)).default([]),
    secretName: str.default("stargate-quic-tls"),
    imageTag: str.default(""),
  })
  .prefault({});

const addons = z
  .strictObject({
    llm: z
      .strictObject({
        enabled: bool.default(false),
        /** `host:port`; default `llm-request-router.nvcf.svc.cluster.local:50071`. */
        requestRouterAddress: str.default(""),
        pki: llmPki,
      })
      .prefault({}),
    vanityGateway: z
      .strictObject({
        enabled: bool.default(false),
        replicaCount: z.number().int().min(1).default(2),
        /** Route hostnames; default `vanity.<domain>`. */
        hostnames: z.array(str.min(1)).default([]),
        mappingConfig: z.record(str, z.unknown()).default({ v2config: { openai: {}, vanity: {} } }),
      })
      .prefault({}),
    nvcfUi: z.strictObject({ enabled: bool.default(false) }).prefault({}),
    lls: z.strictObject({ enabled: bool.default(false) }).prefault({}),
  })
  .prefault({});

const gatewayRef = z.strictObject({ name: str.default(""), namespace: str.default("") }).prefault({});

/** Gateway API wiring (spec §1.12) and the optional Envoy Gateway install (issue 3 item 7). */
const gateway = z
  .strictObject({
    /** Install Envoy Gateway, the GatewayClass and the Gateway with the four listeners. Default: bring your own. */
    install: bool.default(false),
    /** Address compute planes and nvcf-cli dial when the Gateway reports none in its status (LB host or IP). */
    address: str.optional(),
    /** Namespace of the `ingress` release (the gateway controller's namespace), e.g. `envoy-gateway-system`. */
    controllerNamespace: str.default(""),
    shared: gatewayRef,
    grpc: gatewayRef,
    nats: z
      .strictObject({ name: str.default(""), namespace: str.default(""), listenerName: str.default("nats") })
      .prefault({}),
    routes: z
      .strictObject({
        nats: bool.default(false),
        ess: bool.default(false),
        grpcWorker: z
          .strictObject({ enabled: bool.default(false), listenerName: str.default("worker-tcp") })
          .prefault({}),
        nvcfApiGrpc: z
          .strictObject({ enabled: bool.default(false), hostnames: z.array(str).default([]) })
          .prefault({}),
        nvctApiGrpc: z
          .strictObject({ enabled: bool.default(false), hostnames: z.array(str).default([]) })
          .prefault({}),
      })
      .prefault({}),
    /** Envoy Gateway chart when `install` is on (spec §1.12: gateway-helm v1.1.3). */
    envoyGateway: z
      .strictObject({
        /** OCI registry and repository of the `gateway-helm` chart. */
        registry: str.default("docker.io"),
        repository: str.default("envoyproxy"),
        version: str.default("v1.1.3"),
        /** A local chart directory instead of `chart` (used with stand-in charts). */
        localChartPath: str.optional(),
        gatewayClassName: str.default("eg"),
      })
      .prefault({}),
  })
  .prefault({});

const workerEndpoints = z
  .strictObject({
    nvcfServiceURL: str.default(""),
    nvcfGrpcServiceURL: str.default(""),
    nvcfNatsServiceURL: str.default(""),
    essServiceURL: str.default(""),
    nvctServiceURL: str.default(""),
    nvctGrpcServiceURL: str.default(""),
    invocationServiceURL: str.default(""),
    grpcProxyWorkerConnectURL: str.default(""),
  })
  .prefault({});

/** Per-release values overrides: release name → values, deep-merged last (maps merge, lists replace). */
const releaseValues = z.record(str, z.record(str, z.unknown())).default({});

/** One GPU cluster registered by the control plane (issue 4 item 1). */
const gpuCluster = z.strictObject({
  name: str.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "a lowercase DNS label such as gpu-a"),
  region: str.min(1).default("us-west-1"),
  /** Context in the ambient kubeconfig; else the cluster's kubeconfig is `nvcf:gpuClusterKubeconfigs.<name>` (secret). */
  context: str.min(1).optional(),
});

const aws = z
  .strictObject({
    region: str.min(1),
    /** Read the control-plane cluster's endpoint and CA from this EKS cluster instead of a kubeconfig. */
    eksClusterName: str.min(1).optional(),
    /** Create DNS records for every route hostname pointing at the gateway address in this Route 53 zone. */
    route53ZoneId: str.min(1).optional(),
  })
  .optional();

/** Control-plane stack config: `nvcf:plane: control`. */
export const controlPlaneSchema = z.strictObject({
  plane: z.literal("control"),
  bundleVersion: z.enum(BUNDLE_VERSIONS).default("0.8.0"),
  kubernetes,
  domain: str
    .regex(
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
      "a DNS name such as nvcf.example.com",
    )
    .default("localhost"),
  /** The cluster is reached from other networks (multi-cluster); then `localhost` is not a usable domain. */
  remoteAccess: bool.default(false),
  charts,
  images,
  pullSecret,
  placement,
  storage,
  observability,
  addons,
  certManager: z.strictObject({ managed: bool.default(true) }).prefault({}),
  openbao: z
    .strictObject({
      enabled: bool.default(true),
      issuerDiscovery: bool.default(false),
      injectorReplicas: z.number().int().min(1).default(2),
      /** Tag of the migrations image; needed by the managed LLM PKI issuer (spec §1.9). */
      migrationsImageTag: str.default(""),
    })
    .prefault({}),
  nats: z.strictObject({ enabled: bool.default(true) }).prefault({}),
  cassandra: z
    .strictObject({
      enabled: bool.default(true),
      replicas: z.number().int().min(1).default(3),
      preset: z
        .enum(["none", "nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"])
        .default("xlarge"),
    })
    .prefault({}),
  accounts: z
    .strictObject({
      limits: z
        .strictObject({
          maxFunctions: z.number().int().default(10),
          maxTasks: z.number().int().default(10),
          maxTelemetries: z.number().int().default(10),
          maxRegistryCreds: z.number().int().default(10),
        })
        .prefault({}),
      /** Registries of user function images for the account bootstrap (spec §1.10); key: `nvcf:functionRegistryKey`. */
      registryCredentials: z
        .array(
          z.strictObject({
            registryHostname: str.min(1),
            secretName: str.min(1),
            artifactTypes: z.array(z.enum(["CONTAINER", "HELM", "MODEL", "RESOURCE"])).min(1),
            username: str.min(1).default("$oauthtoken"),
            description: str.default(""),
          }),
        )
        .default([]),
    })
    .prefault({}),
  gateway,
  workerEndpoints,
  grpcproxy: z
    .strictObject({ nvcfGrpcServiceURL: str.default(""), workerConnectBaseURL: str.default("") })
    .prefault({}),
  rateLimiter: z
    .strictObject({ enabled: bool.default(true), replicaCount: z.number().int().min(1).default(1) })
    .prefault({}),
  stateMetrics: z.strictObject({ enabled: bool.default(true) }).prefault({}),
  /** Protect Cassandra, OpenBao and NATS releases from deletion. Default: on, except for stacks named `dev*`. */
  protectStatefulData: bool.optional(),
  releaseValues,
  /** NVCF account (NCA) id used for cluster registration (spec §2.2 `NCA_ID`). */
  ncaId: str.min(1).default("nvcf-default"),
  gpuClusters: z.array(gpuCluster).default([]),
  nvcfCli: z.strictObject({ path: str.min(1).default("nvcf-cli") }).prefault({}),
  aws,
  // Secrets (values checked for presence and format by the rules; types here).
  registryKey: str.optional(),
  chartRegistryPassword: str.optional(),
  cassandraPassword: str.optional(),
  sidecarRegistryKey: str.optional(),
  functionRegistryKey: str.optional(),
  kubeconfig: str.optional(),
  gpuClusterKubeconfigs: z.record(str, str).default({}),
});
export type ControlPlaneConfig = z.infer<typeof controlPlaneSchema>;

/** Compute-plane stack config: `nvcf:plane: compute` (issue 4 items 2-3, spec §2). */
export const computePlaneSchema = z.strictObject({
  plane: z.literal("compute"),
  bundleVersion: z.enum(BUNDLE_VERSIONS).default("0.8.0"),
  /** Fully qualified control-plane stack, e.g. `organization/nvcf/dev`. */
  controlPlaneStack: str.regex(/^[^/\s]+\/[^/\s]+\/[^/\s]+$/, "<organization>/<project>/<stack>"),
  /** This GPU cluster's name, as listed in the control plane's `nvcf:gpuClusters`. */
  clusterName: str.min(1),
  kubernetes,
  charts,
  pullSecret,
  /** Pre-create the pull secret also in nvca-system and nvcf-backend (seed: avoids start-up races). */
  pullSecretNamespaces: z.array(str.min(1)).default(["nvca-operator", "nvca-system", "nvcf-backend"]),
  inotify: z
    .strictObject({
      maxUserInstances: z.number().int().default(8192),
      maxUserWatches: z.number().int().default(524288),
      initImage: str.default("busybox:1.36"),
      pauseImage: str.default("registry.k8s.io/pause:3.9"),
      /** GPU nodes are expected: the tuner must be scheduled on at least one of them. */
      requireGpuNodes: bool.default(true),
      /** Seconds to wait for the tuner to run on every node it is scheduled on. */
      timeoutSeconds: z.number().int().min(10).default(300),
    })
    .prefault({}),
  observability: z
    .strictObject({ profile: z.enum(["disabled", "control", "compute", "all"]).default("compute") })
    .prefault({}),
  addons: z
    .strictObject({
      kaiScheduler: z.strictObject({ enabled: bool.default(false) }).prefault({}),
      groveOperator: z.strictObject({ enabled: bool.default(false) }).prefault({}),
      dynamoOperator: z.strictObject({ enabled: bool.default(false) }).prefault({}),
      topologyAwareScheduling: z.strictObject({ enabled: bool.default(false) }).prefault({}),
    })
    .prefault({}),
  nvcaOperator: z
    .strictObject({
      imageTag: str.default("3.2.7"),
      nvcaVersion: str.default("3.2.7"),
      otelCollectorImageTag: str.default("0.157.9"),
      otelCollectorImageRepository: str.optional(),
      /** User feature gates; a leading `-` removes a default gate (spec §2.6). */
      featureGates: z.array(str.min(1)).default([]),
      /** Use the control plane's host-header overrides (needs helm-nvca-operator >= 1.12.0, spec §4 row 11). */
      hostHeaderOverrides: bool.default(true),
      nodeSelector: selectorTerm.optional(),
      tolerations: z.array(toleration).default([]),
      agentTolerations: z.array(toleration).default([]),
      workloadTolerations: z.array(toleration).default([]),
      /** Region placed where the chart reads it (`selfManaged.region`, spec §2.7); default: the registration's region. */
      region: str.optional(),
    })
    .prefault({}),
  /** kubectl used for the ordered teardown (NVCFBackend removal before the operator). */
  kubectlPath: str.min(1).default("kubectl"),
  releaseValues,
  registryKey: str.optional(),
  chartRegistryPassword: str.optional(),
  kubeconfig: str.optional(),
});
export type ComputePlaneConfig = z.infer<typeof computePlaneSchema>;

/** Config keys that hold secrets: they must be set with `pulumi config set --secret`, and are redacted in errors. */
export const SECRET_KEYS = [
  "registryKey",
  "chartRegistryPassword",
  "cassandraPassword",
  "sidecarRegistryKey",
  "functionRegistryKey",
  "kubeconfig",
  "gpuClusterKubeconfigs",
] as const;
