/**
 * The typed shape of every stack's config, as zod schemas. Each top-level property is one Pulumi config
 * key in the `nvcf:` namespace (`pulumi config set --path nvcf:cassandra.replicas 3`). Objects are strict:
 * an unknown key is an error, never silently dropped (docs/upstream-facts.md §4 row 21).
 *
 * Defaults are the upstream `environments/base.yaml` defaults (docs/upstream-facts.md §1.6 control plane, §2.4 compute plane)
 * unless a comment says otherwise. Keys listed in `SECRET_KEYS` must be set with `--secret`.
 */
import { z } from "zod";
import { BUNDLE_VERSIONS } from "../catalog/releases";
import { MIRROR_KEYS, type MirrorKey } from "../catalog/sources";

/**
 * The resource presets of NVIDIA's Cassandra chart (`cassandra.resourcesPreset` in
 * `deploy/helm/cassandra/helm/values.yaml`), smallest first: what `nvcf:cassandra.preset` accepts.
 */
export const CASSANDRA_PRESETS = [
  "none",
  "nano",
  "micro",
  "small",
  "medium",
  "large",
  "xlarge",
  "2xlarge",
] as const;

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

/**
 * One origin's mirror (`nvcf:charts.mirrors.<key>`): where that origin's charts are pulled from instead of
 * their default (catalog/sources.ts).
 */
const chartMirror = z.strictObject({
  /**
   * `oci://<host>[/<path>]` (the chart name is appended), an `https://` Helm repository URL, or a directory
   * holding one sub-directory per chart (absolute, or relative to the project; `<chart>-<version>/` is
   * preferred over `<chart>/` when it exists).
   */
  location: str.min(1),
  /**
   * `none`: anonymous pulls (public repositories, or a registry the host is already logged in to);
   * `charts`: the NVCF source's credentials, `nvcf:charts.username` and the secret `nvcf:chartRegistryPassword`
   * (a mirror in the same private registry). NVCF credentials never go to a host unless this says so.
   */
  credentials: z.enum(["none", "charts"]).default("none"),
});
const chartMirrors = z
  .strictObject(
    Object.fromEntries(MIRROR_KEYS.map((k) => [k, chartMirror.optional()])) as Record<
      MirrorKey,
      z.ZodOptional<typeof chartMirror>
    >,
  )
  .prefault({});

/**
 * Where charts come from (docs/upstream-facts.md §1.2): an OCI registry, an HTTPS Helm repository, or a local directory of
 * charts, for NVIDIA's charts; third-party and stack-local charts come from their own origin
 * (catalog/sources.ts) unless `charts.source` is `local` or `charts.mirrors` repoints them.
 */
const charts = z
  .strictObject({
    source: z.enum(["oci", "https", "local"]).default("oci"),
    /** OCI: registry host, e.g. `nvcr.io`. */
    registry: str.default("nvcr.io"),
    /** OCI: repository path under the registry, e.g. `nvidia/nvcf`. */
    repository: str.default("YOUR_ORG/YOUR_TEAM"),
    /** HTTPS: repository URL, e.g. `https://helm.ngc.nvidia.com/nvidia/nvcf`. */
    url: str.optional(),
    /**
     * Local: a directory holding one sub-directory per chart, named as the chart; `<chart>-<version>/` is
     * preferred when it exists (one directory for several bundles). Absolute, or relative to the project
     * directory (kept relative in state). With `source: local` every chart comes from here unless
     * `mirrors` repoints its origin.
     */
    path: str.optional(),
    /** Registry user for OCI/HTTPS pulls; the password is the secret key `nvcf:chartRegistryPassword`. */
    username: str.optional(),
    /** Per-release chart version overrides for hot fixes, e.g. `{cassandra: "0.20.2"}`. Shown in the preview. */
    versionOverrides: z.record(str, str.min(1)).default({}),
    /** Helm wait timeout per release, in seconds (helmfile default 900). */
    timeoutSeconds: z.number().int().min(60).max(7200).default(900),
    /**
     * Per-origin mirrors, keyed by origin (catalog/sources.ts `MIRROR_KEYS`): `kaiScheduler`, `grove`,
     * `dynamo`, `envoyGateway`, `prometheusOperatorCrds`, `opentelemetryOperator`, `victoriaMetrics`,
     * `stackLocal` (nvcf-otel-collector, nvcf-default-monitors, nvcf-cluster-topology).
     */
    mirrors: chartMirrors,
  })
  .prefault({});

/**
 * Where third-party images (OpenTelemetry, VictoriaMetrics, Envoy Gateway, KAI, Grove, Dynamo, NATS, the NVCA
 * collectors, the node tuner's busybox and pause) come from (values/images.ts): `upstream` (default) as NVIDIA's
 * stack pulls them; `mirror` from `<images.registry>/<images.repository>/<upstream path without its registry
 * host>`, e.g. `ghcr.io/kai-scheduler/kai-scheduler/operator` → `<registry>/<repository>/kai-scheduler/kai-scheduler/operator`.
 * An explicit per-image setting (e.g. `addons.kaiScheduler.imageRegistry`) wins over both.
 */
const thirdParty = z.enum(["upstream", "mirror"]).default("upstream");

/** Image registry settings: `global.image.{registry,repository}` (docs/upstream-facts.md §1.6). */
const images = z
  .strictObject({
    registry: str.min(1).default("nvcr.io"),
    repository: str.min(1).default("YOUR_ORG/YOUR_TEAM"),
    thirdParty,
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

/** The node label NVIDIA's base.yaml pins system workloads by. */
const WORKLOAD_LABEL = "nvcf.nvidia.com/workload";

/** Node placement (docs/upstream-facts.md §1.6 `global.nodeSelectors`, `global.tolerations`): per type with fallback to `all`. */
const placement = z
  .strictObject({
    /**
     * Per-type terms default to NVIDIA's `environments/base.yaml` (`nvcf.nvidia.com/workload`: vault, cassandra,
     * control-plane), so `enabled: true` alone pins like the stack does; set a type to `null` to use `all`.
     */
    nodeSelectors: z
      .strictObject({
        enabled: bool.default(false),
        all: selectorTerm.optional(),
        vault: selectorTerm.nullable().default({ key: WORKLOAD_LABEL, value: "vault" }),
        cassandra: selectorTerm.nullable().default({ key: WORKLOAD_LABEL, value: "cassandra" }),
        controlplane: selectorTerm.nullable().default({ key: WORKLOAD_LABEL, value: "control-plane" }),
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
const profile = z.enum(["disabled", "control", "compute", "all"]);

/**
 * The component modes of NVIDIA's observability stack (`deploy/stacks/observability/README.md`): `install`
 * (the stack installs and owns it), `existing` (installed by someone else; the stack uses it), `disabled`.
 */
const observabilityComponents = z
  .strictObject({
    prometheusOperatorCrds: mode.default("install"),
    otelOperator: mode.default("install"),
    collector: mode.default("install"),
    targetAllocator: mode.default("install"),
    discoveryRbac: mode.default("install"),
  })
  .prefault({});

/** The metrics backend the collector writes to: the bundled VictoriaMetrics (`install`) or an `existing` one. */
const metricsBackendFields = {
  mode: mode.default("install"),
  type: z.enum(["victoriaMetrics", "external"]).default("victoriaMetrics"),
  /** Remote-write URL of an `existing` backend. */
  remoteWriteEndpoint: str.default(""),
};

/** Observability (docs/upstream-facts.md §1.5, §1.6). */
const observability = z
  .strictObject({
    profile: profile.default("control"),
    namespace: str.min(1).default("monitoring"),
    components: observabilityComponents,
    metricsBackend: z
      .strictObject({
        ...metricsBackendFields,
        /** PromQL URL of an `existing` backend, for the function autoscaler (profiles control and all). */
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

/**
 * A GPU cluster's observability: `profile` as NVIDIA's compute-plane stack reads it (NVCA's own collector and the
 * BYOObservability gate for compute/all, default compute), and NVIDIA's observability stack on the cluster for
 * compute/all, with the control plane's per-cluster settings (namespace, component modes, metrics backend).
 * Left out, being settings of control-plane services: tracing, metrics, and the backend's PromQL endpoint and
 * authentication (read only by the function autoscaler).
 */
const computeObservability = z
  .strictObject({
    profile: profile.default("compute"),
    /**
     * Install NVIDIA's observability stack on this GPU cluster for profile compute/all (unset: yes, where the
     * bundle ships the stack, 0.7.0 and later). false: another stack installs it there (NVIDIA installs it at
     * most once per cluster, e.g. the control plane's when the GPU cluster is the control-plane cluster); the
     * profile still switches NVCA's collector and gate.
     */
    install: bool.optional(),
    namespace: str.min(1).default("monitoring"),
    components: observabilityComponents,
    metricsBackend: z.strictObject(metricsBackendFields).prefault({}),
  })
  .prefault({});

/** LLM addon PKI (docs/upstream-facts.md §1.9). */
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
    /**
     * LLS (sis). `hmacRotation.image.tag` is the nvcf-openbao-migrations tag of the HMAC-rotation CronJob: the sis
     * chart (deploy/helm/icms/icms-api `sis.image.full`) refuses to render without one and NVIDIA's stack passes
     * none unless set; the default is the tag the chart's own `values.versions.yaml` builds against.
     */
    lls: z
      .strictObject({
        enabled: bool.default(false),
        hmacRotation: z
          .strictObject({
            image: z.strictObject({ tag: str.min(1).default("0.16.3") }).prefault({}),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .prefault({});

const gatewayRef = z.strictObject({ name: str.default(""), namespace: str.default("") }).prefault({});

/** Gateway API wiring (docs/upstream-facts.md §1.12) and the optional Envoy Gateway install. */
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
    /** Envoy Gateway chart when `install` is on (docs/upstream-facts.md §1.12: gateway-helm v1.1.3). */
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

/**
 * `nvcf:releaseValues` key paths (`<release>.<key>…`, e.g. `cassandra.cassandra.jvm.extraOpts`) passed to the
 * chart although it does not declare them (config/meaning.ts): the mark says the key is intended; the key and
 * everything below it are passed unchecked, and the preview lists them.
 */
const releaseValuesUnchecked = z.array(str.min(1)).default([]);

/**
 * Settings that cannot change in place (config/installed.ts ids, e.g. `cassandra.volumes`) whose change is
 * let through: the procedure of docs/installed-settings.md was carried out first. Remove an entry once the
 * change is deployed (the preview says when).
 */
const allowInstalledChanges = z.array(str.min(1)).default([]);

/** One GPU cluster registered by the control plane. */
const gpuCluster = z.strictObject({
  name: str.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "a lowercase DNS label such as gpu-a"),
  region: str.min(1).default("us-west-1"),
  /** Context in the ambient kubeconfig; else the cluster's kubeconfig is `nvcf:gpuClusterKubeconfigs.<name>` (secret). */
  context: str.min(1).optional(),
  /**
   * The cluster is already registered (e.g. by NVIDIA's `make register-cluster`; `nvcf import-helmfile` sets
   * this from `registration/<cluster>-register-values.yaml`): these IDs are kept and recorded as this stack's
   * registration without running `nvcf-cli cluster register`; `pulumi destroy` still deregisters them. Remove
   * the key to have the program re-run `register --ignore-existing` (same IDs) on the next `up`.
   */
  registered: z.strictObject({ clusterID: str.min(1), clusterGroupID: str.min(1) }).optional(),
  /**
   * A request to refresh the cluster's OIDC issuer and JWKS in ICMS, keeping its IDs: any text (`nvcf rotate`
   * writes the current UTC time); each new value runs `nvcf-cli cluster rotate --force` on the next `up`
   * (components/registration.ts).
   */
  jwksRotation: str.min(1).optional(),
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

/** The account-bootstrap registry credentials NVIDIA's secrets template ships (NGC containers, Helm, models). */
export const DEFAULT_REGISTRY_CREDENTIALS: readonly {
  registryHostname: string;
  secretName: string;
  artifactTypes: ("CONTAINER" | "HELM" | "MODEL" | "RESOURCE")[];
  username: string;
  description: string;
  tags: string[];
}[] = [
  {
    registryHostname: "nvcr.io",
    secretName: "nvcr-containers",
    artifactTypes: ["CONTAINER"],
    username: "$oauthtoken",
    description: "NGC Container registry",
    tags: [],
  },
  {
    registryHostname: "helm.ngc.nvidia.com",
    secretName: "nvcr-containers",
    artifactTypes: ["HELM"],
    username: "$oauthtoken",
    description: "NGC Container registry",
    tags: [],
  },
  {
    registryHostname: "api.ngc.nvidia.com",
    secretName: "ngc-model",
    artifactTypes: ["MODEL", "RESOURCE"],
    username: "$oauthtoken",
    description: "NGC Model registry",
    tags: [],
  },
];

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
      /** Tag of the migrations image; needed by the managed LLM PKI issuer (docs/upstream-facts.md §1.9). */
      migrationsImageTag: str.default(""),
      /**
       * Generation of OpenBao's Master Encryption Key (MEK) rotation, a positive integer (components/mekRotation.ts).
       * Raising it rotates the MEK once (a new key first in `services/all/kv/encryption/keys/stored_data`, every old
       * key kept); the same value again does nothing; a value lower than deployed is refused (config/mek.ts).
       * Unset: the program never rotates the MEK (NVIDIA's migration writes it once at install). No chart value.
       */
      mekGeneration: z.number().int().min(1).optional(),
    })
    .prefault({}),
  nats: z.strictObject({ enabled: bool.default(true) }).prefault({}),
  cassandra: z
    .strictObject({
      enabled: bool.default(true),
      replicas: z.number().int().min(1).default(3),
      preset: z.enum(CASSANDRA_PRESETS).default("xlarge"),
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
      /**
       * Registries of user function images for the account bootstrap; key: `nvcf:functionRegistryKey`
       * (else `nvcf:registryKey`). Default: the three NGC registries of NVIDIA's
       * `deploy/stacks/self-managed/secrets/secrets.yaml.template` (containers, Helm charts, models/resources).
       */
      registryCredentials: z
        .array(
          z.strictObject({
            registryHostname: str.min(1),
            secretName: str.min(1),
            artifactTypes: z.array(z.enum(["CONTAINER", "HELM", "MODEL", "RESOURCE"])).min(1),
            username: str.min(1).default("$oauthtoken"),
            description: str.default(""),
            /** Passed to the Account API with the credential (the chart's account-bootstrap payload). */
            tags: z.array(str.min(1)).default([]),
          }),
        )
        .default(() =>
          DEFAULT_REGISTRY_CREDENTIALS.map((c) => ({
            ...c,
            artifactTypes: [...c.artifactTypes],
            tags: [...c.tags],
          })),
        ),
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
  /**
   * Restart generations by Helm release name (components/restarts.ts, docs/operations.md "Restart generations"):
   * a new number rolls every pod of that release once, OpenBao's server standbys first; the same number again
   * restarts nothing. Each key must be a release the stack installs. Default: none.
   */
  restarts: z.record(z.string(), z.number().int().min(1)).default({}),
  /** Bundle upgrades (upgrade/plan.ts, docs/upgrading.md). */
  upgrade: z
    .strictObject({
      /**
       * The bundle an upgrade moves to, once backups of Cassandra and OpenBao taken for it are copied off the
       * cluster's nodes: a move that upgrades either is refused without it on stacks that are not dev stacks.
       */
      backupsCopiedOffNode: z.enum(BUNDLE_VERSIONS).optional(),
    })
    .prefault({}),
  releaseValues,
  releaseValuesUnchecked,
  allowInstalledChanges,
  /** NVCF account (NCA) id used for cluster registration (docs/upstream-facts.md §2.2 `NCA_ID`). */
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

/** Compute-plane stack config: `nvcf:plane: compute` (docs/upstream-facts.md §2). */
export const computePlaneSchema = z.strictObject({
  plane: z.literal("compute"),
  bundleVersion: z.enum(BUNDLE_VERSIONS).default("0.8.0"),
  /** Fully qualified control-plane stack, e.g. `organization/nvcf/dev`. */
  controlPlaneStack: str.regex(/^[^/\s]+\/[^/\s]+\/[^/\s]+$/, "<organization>/<project>/<stack>"),
  /** This GPU cluster's name, as listed in the control plane's `nvcf:gpuClusters`. */
  clusterName: str.min(1),
  /**
   * Maintenance mode of this GPU cluster: `cordon` schedules nothing new, `drain` also terminates every workload
   * (NVCA feature flags `CordonMaintenance` / `CordonAndDrainMaintenance`, config/maintenance.ts).
   */
  maintenance: z.enum(["off", "cordon", "drain"]).default("off"),
  kubernetes,
  charts,
  /**
   * Third-party images of this GPU cluster (`thirdParty`, as on the control plane); the mirror is the control
   * plane's `images.registry`/`images.repository`, read through the stack reference.
   */
  images: z.strictObject({ thirdParty }).prefault({}),
  pullSecret,
  /** Pre-create the pull secret also in nvca-system and nvcf-backend (seed: avoids start-up races). */
  pullSecretNamespaces: z.array(str.min(1)).default(["nvca-operator", "nvca-system", "nvcf-backend"]),
  inotify: z
    .strictObject({
      maxUserInstances: z.number().int().default(8192),
      maxUserWatches: z.number().int().default(524288),
      /** Init-container image; unset: `busybox:1.36`, or its mirror form with `images.thirdParty: mirror`. */
      initImage: str.min(1).optional(),
      /** Main-container image; unset: `registry.k8s.io/pause:3.9`, or its mirror form with `images.thirdParty: mirror`. */
      pauseImage: str.min(1).optional(),
      /** GPU nodes are expected: the tuner must be scheduled on at least one of them. */
      requireGpuNodes: bool.default(true),
      /** Seconds to wait for the tuner to run on every node it is scheduled on. */
      timeoutSeconds: z.number().int().min(10).default(300),
    })
    .prefault({}),
  observability: computeObservability,
  /**
   * Where every compute-plane release runs, as the compute stack's `global.nodeSelector` (one `{key,value}`
   * term) and `global.tolerations` (docs/upstream-facts.md §2.4): applied to the NVCA operator, KAI, Grove and
   * Dynamo alike. `nvcaOperator.nodeSelector` / `nvcaOperator.tolerations` override it for the operator only.
   */
  placement: z
    .strictObject({ nodeSelector: selectorTerm.optional(), tolerations: z.array(toleration).default([]) })
    .prefault({}),
  addons: z
    .strictObject({
      kaiScheduler: z
        .strictObject({
          enabled: bool.default(false),
          /** Mirror of `ghcr.io/kai-scheduler/kai-scheduler` (the chart's `global.registry`); unset: the chart's own. */
          imageRegistry: str.min(1).optional(),
        })
        .prefault({}),
      groveOperator: z
        .strictObject({
          enabled: bool.default(false),
          /** Mirror of `ghcr.io/ai-dynamo/grove` (operator, CRD installer and init-container images); unset: ghcr.io. */
          imageRegistry: str.min(1).optional(),
          /** Grove `config.network` (e.g. `{autoMNNVLEnabled: true}`); not set by the topology toggle. */
          network: z.record(str, z.unknown()).default({}),
        })
        .prefault({}),
      dynamoOperator: z
        .strictObject({
          enabled: bool.default(false),
          /** Mirror of `nvcr.io/nvidia/ai-dynamo` (the operator image); unset: nvcr.io. */
          imageRegistry: str.min(1).optional(),
          /** Registry host for the bundled NATS server and config reloader (Docker Hub names); unset: Docker Hub. */
          natsImageRegistry: str.min(1).optional(),
        })
        .prefault({}),
      topologyAwareScheduling: z
        .strictObject({
          enabled: bool.default(false),
          /** KAI `Topology` objects (and Grove bindings): levels widest domain first, each a node label. */
          topologies: z
            .array(
              z.strictObject({
                name: str.min(1),
                levels: z.array(z.strictObject({ nodeLabel: str.min(1) })).min(1),
              }),
            )
            .min(1)
            .default([
              {
                name: "nvcf-mnnvl-topology",
                levels: [{ nodeLabel: "nvidia.com/gpu.clique" }, { nodeLabel: "kubernetes.io/hostname" }],
              },
            ]),
        })
        .prefault({}),
    })
    .prefault({}),
  nvcaOperator: z
    .strictObject({
      /** Operator image tag; unset: the bundle's pin (0.8.0: 3.2.7; 0.7.0: the chart's own; 0.6.1: 3.0.3). */
      imageTag: str.min(1).optional(),
      /** NVCA version the operator deploys; unset: the bundle's pin, like `imageTag`. */
      nvcaVersion: str.min(1).optional(),
      /** NVCA otel collector tag; unset: the bundle's pin (0.8.0: 0.157.9; earlier: the chart's own). */
      otelCollectorImageTag: str.min(1).optional(),
      otelCollectorImageRepository: str.optional(),
      /** BYOO otel collector repository (`agent.byooOtelCollector.imageRepository`, chart 1.21 and later). */
      byooOtelCollectorImageRepository: str.min(1).optional(),
      /** User feature gates; a leading `-` removes a default gate (docs/upstream-facts.md §2.6). */
      featureGates: z.array(str.min(1)).default([]),
      /** Use the control plane's host-header overrides (needs helm-nvca-operator >= 1.12.0, docs/upstream-facts.md §4 row 11). */
      hostHeaderOverrides: bool.default(true),
      /** Operator-only node selector; unset: `placement.nodeSelector`. */
      nodeSelector: selectorTerm.optional(),
      /** Operator-only tolerations; unset: `placement.tolerations`. */
      tolerations: z.array(toleration).optional(),
      agentTolerations: z.array(toleration).default([]),
      workloadTolerations: z.array(toleration).default([]),
      /** Region placed where the chart reads it (`selfManaged.region`, docs/upstream-facts.md §2.7); default: the registration's region. */
      region: str.optional(),
    })
    .prefault({}),
  /** kubectl used for the ordered teardown (NVCFBackend removal before the operator). */
  kubectlPath: str.min(1).default("kubectl"),
  /** Protect the cluster's VictoriaMetrics release (its metrics) from deletion. Default: on, except for stacks named `dev*`. */
  protectStatefulData: bool.optional(),
  /**
   * Restart generations by Helm release name (components/restarts.ts, docs/operations.md "Restart generations"):
   * a new number rolls every pod of that release once, OpenBao's server standbys first; the same number again
   * restarts nothing. Each key must be a release the stack installs. Default: none.
   */
  restarts: z.record(z.string(), z.number().int().min(1)).default({}),
  releaseValues,
  releaseValuesUnchecked,
  allowInstalledChanges,
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
