/**
 * Values per control-plane release (pure functions): what `global.yaml.gotmpl` gives each chart (spec §1.8),
 * merged with the secrets layer (spec §1.10) and the user's per-release overrides (`nvcf:releaseValues`).
 * Each release receives only the top-level key its chart reads, so a change to one service's settings
 * changes only that release.
 *
 * Secrets arrive as `S` (a plain string in tests, a secret `pulumi.Output<string>` in the program) and are
 * placed as leaves, so everything else in a release's values stays readable in previews.
 */
import type { EnableFlag } from "../catalog/releases";
import { llmManagesIssuer } from "../config/rules";
import type { ControlPlaneConfig, Toleration } from "../config/schema";
import { NGC_USER } from "./credentials";
import { type Values, deepMerge } from "./merge";
import { httpRouteHostnames } from "./routes";

/** The secret inputs of the control plane, already encoded (see `values/credentials.ts`). */
export interface ControlSecrets<S> {
  /** Feeds both `DEFAULT_CASSANDRA_PASSWORD` and `cassandra.serviceRolePassword` (spec §4 row 1). */
  cassandraPassword: S;
  /** base64("user:key") for worker sidecar pulls (spec §4 row 2). */
  sidecarAuth: S;
  /** base64("user:key") for each account-bootstrap registry credential, in `accounts.registryCredentials` order. */
  functionAuth: S[];
}

/** Which catalog flags are on for this config (spec §1.3 "Enable condition"). */
export function controlFlags(cfg: ControlPlaneConfig): Record<EnableFlag, boolean> {
  const o = cfg.observability;
  const obs = o.profile !== "disabled";
  return {
    always: true,
    observabilityEnabled: obs,
    prometheusOperatorCrdsInstall: obs && o.components.prometheusOperatorCrds === "install",
    otelOperatorInstall: obs && o.components.otelOperator === "install",
    metricsBackendInstall: obs && o.metricsBackend.mode === "install",
    collectorInstall: obs && o.components.collector === "install",
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

type PlacementType = "vault" | "cassandra" | "controlplane";
const PDB = { enabled: false, maxUnavailable: 1 };

/** Shared pieces every builder uses. */
function common(cfg: ControlPlaneConfig) {
  const reg = cfg.images.registry;
  const repo = cfg.images.repository;
  const ips = cfg.pullSecret.name === null ? [] : [{ name: cfg.pullSecret.name }];
  const img = (name: string) => `${repo}/${name}`;
  const nodeSelector = (t: PlacementType): Values | undefined => {
    const ns = cfg.placement.nodeSelectors;
    if (!ns.enabled) return undefined;
    const term = ns[t] ?? ns.all;
    return term ? { [term.key]: term.value } : undefined;
  };
  const tolerations = (t: PlacementType): Toleration[] | undefined => {
    const tl = cfg.placement.tolerations;
    if (!tl.enabled) return undefined;
    return tl[t] ?? tl.all;
  };
  const placement = (t: PlacementType): Values => {
    const out: Values = {};
    const ns = nodeSelector(t);
    const tl = tolerations(t);
    if (ns) out["nodeSelector"] = ns;
    if (tl) out["tolerations"] = tl;
    return out;
  };
  const tr = cfg.observability.tracing;
  const tracingEnv = (service: string): Values =>
    tr.enabled
      ? {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://${tr.collectorEndpoint}:${tr.collectorPort}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: tr.collectorProtocol === "grpc" ? "grpc" : "http/protobuf",
          OTEL_SERVICE_NAME: service,
        }
      : { TRACING: "none" };
  return { reg, repo, ips, img, placement, nodeSelector, tolerations, tracingEnv };
}

type Builder<S> = (cfg: ControlPlaneConfig, secrets: ControlSecrets<S>) => Values;

const D = (cfg: ControlPlaneConfig) => cfg.domain;

/** A GRPCRoute's values: its switch and hostnames, the stack's default host when none are given (spec §1.12). */
const grpcRoute = (r: { enabled: boolean; hostnames: string[] }, defaultHost: string) => ({
  enabled: r.enabled,
  hostnames: r.hostnames.length ? r.hostnames : [defaultHost],
});

/** One builder per release (spec §1.8). The map key is the release name of `catalog/releases.ts`. */
function builders<S>(): Record<string, Builder<S>> {
  return {
    "prometheus-operator-crds": () => ({}),
    // The observability charts are third-party; images come from the mirror like every other image.
    "opentelemetry-operator": (cfg) => {
      const c = common(cfg);
      return {
        imagePullSecrets: c.ips,
        manager: {
          image: { repository: `${c.reg}/${c.img("opentelemetry-operator")}` },
          collectorImage: { repository: `${c.reg}/${c.img("opentelemetry-collector-contrib")}` },
          targetAllocatorImage: { repository: `${c.reg}/${c.img("target-allocator")}` },
        },
      };
    },
    "victoria-metrics": (cfg) => {
      const c = common(cfg);
      return {
        fullnameOverride: "vmsingle",
        server: {
          image: { repository: `${c.reg}/${c.img("victoria-metrics")}` },
          persistentVolume: {
            enabled: true,
            storageClassName: cfg.storage.className,
            size: cfg.storage.size,
          },
        },
      };
    },
    "otel-collector": (cfg) => {
      const c = common(cfg);
      const mb = cfg.observability.metricsBackend;
      return {
        image: { repository: `${c.reg}/${c.img("opentelemetry-collector-contrib")}` },
        profile: cfg.observability.profile,
        targetAllocator: { enabled: cfg.observability.components.targetAllocator === "install" },
        discoveryRbac: { enabled: cfg.observability.components.discoveryRbac === "install" },
        metricsBackend: {
          remoteWriteEndpoint:
            mb.mode === "install"
              ? `http://vmsingle.${cfg.observability.namespace}.svc.cluster.local:8428/api/v1/write`
              : mb.remoteWriteEndpoint,
          auth: { mode: mb.auth.mode },
        },
      };
    },
    "default-monitors": () => ({
      monitors: [
        {
          name: "nvcf-api",
          namespace: "nvcf",
          port: "metrics",
          path: "/metrics",
          selector: { "app.kubernetes.io/name": "nvcf-api" },
        },
        {
          name: "state-metrics",
          namespace: "nvcf",
          port: "metrics",
          path: "/metrics",
          selector: { "app.kubernetes.io/name": "state-metrics" },
        },
      ],
    }),
    nats: (cfg) => {
      const c = common(cfg);
      return {
        nats: {
          global: { image: { pullSecretNames: c.ips.map((s) => s.name) } },
          container: {
            image: { repository: c.img("nats-server"), tag: "2.11.17-alpine3.22", registry: c.reg },
          },
          reloader: {
            image: { repository: c.img("nats-server-config-reloader"), tag: "0.23.0", registry: c.reg },
          },
          natsBox: {
            container: { image: { repository: c.img("nats-box"), tag: "0.19.7-nonroot", registry: c.reg } },
          },
          nkeyJob: { image: { repository: c.img("alpine-k8s"), registry: c.reg } },
          podTemplate: { merge: { spec: c.placement("controlplane") } },
          config: {
            jetstream: {
              fileStore: { pvc: { storageClassName: cfg.storage.className, size: cfg.storage.size } },
            },
          },
          podDisruptionBudget: { enabled: false, merge: { spec: { minAvailable: 2 } } },
        },
      };
    },
    "cert-manager": (cfg) => {
      const c = common(cfg);
      const r = (n: string) => ({ image: { repository: `${c.reg}/${c.img(`cert-manager-${n}`)}` } });
      return {
        "cert-manager": {
          global: { imagePullSecrets: c.ips },
          crds: { enabled: true },
          ...r("controller"),
          webhook: r("webhook"),
          cainjector: r("cainjector"),
          acmesolver: r("acmesolver"),
          startupapicheck: r("startupapicheck"),
        },
      };
    },
    "openbao-server": (cfg, s) => {
      const c = common(cfg);
      return {
        openbao: {
          global: { imagePullSecrets: c.ips },
          migrations: {
            image: {
              registry: c.reg,
              repository: c.img("nvcf-openbao-migrations"),
              ...(cfg.openbao.migrationsImageTag ? { tag: cfg.openbao.migrationsImageTag } : {}),
            },
            issuerDiscovery: { enabled: cfg.openbao.issuerDiscovery },
            // The list replaces the chart default entirely: all three names, once each (spec §4 row 3).
            env: [
              { name: "DEFAULT_CASSANDRA_PASSWORD", value: s.cassandraPassword },
              { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: s.sidecarAuth },
              { name: "ADMIN_CLIENT_ID", value: "ncp" },
            ],
          },
          injector: {
            image: { registry: c.reg, repository: c.img("oss-vault-k8s") },
            agentImage: { registry: c.reg, repository: c.img("nvcf-openbao") },
            ...c.placement("vault"),
            replicas: cfg.openbao.injectorReplicas,
            webhook: {
              failurePolicy: "Ignore",
            },
            podDisruptionBudget: { minAvailable: 1 },
          },
          server: {
            image: { registry: c.reg, repository: c.img("nvcf-openbao") },
            ...c.placement("vault"),
            dataStorage: { storageClass: cfg.storage.className || null, size: cfg.storage.size },
            ha: { disruptionBudget: { enabled: false, maxUnavailable: 1 } },
          },
        },
      };
    },
    "nvcf-pki": (cfg) => ({
      clusterIssuer: {
        name: cfg.addons.llm.pki.issuerName,
        server: "http://openbao-server.vault-system.svc.cluster.local:8200",
        signPath: "services/all/pki/nvcf-service-issuing/sign/nvcf-service-server",
        authMountPath: "/v1/auth/jwt",
        role: "cert-manager",
        serviceAccount: "cert-manager",
        audience: "http://openbao-server.vault-system.svc.cluster.local:8200",
      },
    }),
    cassandra: (cfg, s) => {
      const c = common(cfg);
      const global: Values = { imagePullSecrets: c.ips, security: { allowInsecureImages: true } };
      if (cfg.storage.className) global["defaultStorageClass"] = cfg.storage.className;
      return {
        cassandra: {
          global,
          replicaCount: cfg.cassandra.replicas,
          resourcesPreset: cfg.cassandra.preset,
          podDisruptionBudget: { enabled: false, minAvailable: 2 },
          ...c.placement("cassandra"),
          persistence: { size: cfg.storage.size },
          migrations: { image: { registry: c.reg, repository: c.img("nvcf-cassandra-migrations") } },
          initialization: { image: { registry: c.reg, repository: c.img("alpine-k8s") } },
          image: { registry: c.reg, repository: c.img("cassandra") },
          serviceRolePassword: s.cassandraPassword,
        },
      };
    },
    "api-keys": (cfg) => {
      const c = common(cfg);
      return {
        apikeys: {
          fullnameOverride: "api-keys",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("nvcf-api-keys-service") },
          ...c.placement("controlplane"),
          podDisruptionBudget: PDB,
        },
      };
    },
    "nats-auth-callout-service": (cfg) => {
      const c = common(cfg);
      // The chart reads flat top-level keys (spec §1.3 note); the stack also passes them flat.
      return {
        imagePullSecrets: c.ips,
        image: { registry: c.reg, repository: c.img("nvcf-nats-auth-callout-service") },
      };
    },
    api: (cfg, s) => {
      const c = common(cfg);
      const w = cfg.workerEndpoints;
      const env: Values = {
        NVCF_NATS_REGION_PLACEMENT_TAG: "dc",
        NVCF_SIDECARS_HOSTNAME: c.reg,
        NVCF_SIDECARS_REPOSITORY: c.repo,
        ...c.tracingEnv("nvcf-api"),
      };
      if (w.nvcfServiceURL) env["NVCF_FQDN"] = w.nvcfServiceURL;
      if (w.nvcfGrpcServiceURL) env["NVCF_GLOBAL_FQDN_GRPC"] = w.nvcfGrpcServiceURL;
      if (w.nvcfNatsServiceURL) env["NVCF_NATS_WORKER_URL"] = w.nvcfNatsServiceURL;
      if (w.essServiceURL) {
        env["NVCF_ESS_WORKER_BASE_URL"] = w.essServiceURL;
        env["NVCF_ESS_BASE_URL"] = w.essServiceURL;
      }
      const api: Values = {
        fullnameOverride: "nvcf-api",
        imagePullSecrets: c.ips,
        image: { registry: c.reg, repository: c.img("nvcf-service-oss") },
        ...c.placement("controlplane"),
        accountBootstrap: {
          enabled: true,
          image: { registry: c.reg, repository: c.img("alpine-k8s"), tag: "1.36.1" },
          limits: { ...cfg.accounts.limits },
          registryCredentials: cfg.accounts.registryCredentials.map((rc, i) => ({
            registryHostname: rc.registryHostname,
            secret: { name: rc.secretName, value: s.functionAuth[i] },
            artifactTypes: rc.artifactTypes,
            tags: [],
            description: rc.description,
          })),
        },
        env,
      };
      if (cfg.addons.llm.enabled) {
        api["remoteConfig"] = {
          configData: { nvcf: { "llm-request-router": { "worker-address": llmRouterAddress(cfg) } } },
        };
      }
      return { api };
    },
    "nvct-api": (cfg) => {
      const c = common(cfg);
      const w = cfg.workerEndpoints;
      const env: Values = {
        NVCT_SIDECARS_HOSTNAME: c.reg,
        NVCT_SIDECARS_REPOSITORY: c.repo,
        ...c.tracingEnv("nvct-api"),
      };
      if (w.nvctServiceURL) env["NVCT_FQDN"] = w.nvctServiceURL;
      if (w.nvctGrpcServiceURL) env["NVCT_GLOBAL_FQDN_GRPC"] = w.nvctGrpcServiceURL;
      if (w.essServiceURL) {
        env["NVCT_ESS_BASE_URL"] = w.essServiceURL;
        env["NVCT_ESS_WORKER_BASE_URL"] = w.essServiceURL;
      }
      return {
        nvctApi: {
          fullnameOverride: "nvct-api",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("nvct-service-oss") },
          env,
        },
      };
    },
    "invocation-service": (cfg) => {
      const c = common(cfg);
      const env: Values = cfg.observability.tracing.enabled
        ? c.tracingEnv("invocation-service")
        : { SERVER__ENVFILTER_DIRECTIVE: "info" };
      if (cfg.rateLimiter.enabled) {
        env["RATE_LIMIT_ENABLED"] = "true";
        env["RATE_LIMIT_ADDRESS"] = "http://ratelimiter.nvcf.svc.cluster.local:7777";
      }
      if (cfg.workerEndpoints.invocationServiceURL)
        env["WORKER_STREAM_PROPERTIES__SELF_ADDRESS"] = cfg.workerEndpoints.invocationServiceURL;
      return {
        invocation: {
          fullnameOverride: "invocation-service",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("nvcf-invocation-service") },
          ...c.placement("controlplane"),
          env,
          podDisruptionBudget: PDB,
        },
      };
    },
    "grpc-proxy": (cfg) => {
      const c = common(cfg);
      const env: Values = {
        ...c.tracingEnv("grpc-proxy"),
        NATS_FQDN: "nats://nats.nats-system.svc.cluster.local:4222",
      };
      const grpc = cfg.grpcproxy.nvcfGrpcServiceURL || cfg.workerEndpoints.nvcfGrpcServiceURL;
      if (grpc) env["NVCF_FQDN_GRPC"] = grpc;
      if (cfg.rateLimiter.enabled) {
        env["RATE_LIMIT_ENABLED"] = "true";
        env["RATE_LIMIT_ADDRESS"] = "http://ratelimiter.nvcf.svc.cluster.local:7777";
      }
      return {
        grpcproxy: {
          fullnameOverride: "grpc-proxy",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("nvcf-grpc-proxy") },
          ...c.placement("controlplane"),
          workerConnectBaseURL:
            cfg.grpcproxy.workerConnectBaseURL || cfg.workerEndpoints.grpcProxyWorkerConnectURL,
          env,
          podDisruptionBudget: PDB,
        },
      };
    },
    ratelimiter: (cfg) => {
      const c = common(cfg);
      const v: Values = {
        imagePullSecrets: c.ips,
        image: { registry: c.reg, repository: c.repo },
        replicaCount: cfg.rateLimiter.replicaCount,
        env: c.tracingEnv("ratelimiter"),
        podDisruptionBudget: PDB,
      };
      const ns = c.nodeSelector("controlplane");
      if (ns && cfg.placement.nodeSelectors.controlplane) v["nodeSelector"] = ns;
      return { rateLimiter: v };
    },
    "ess-api": (cfg) => {
      const c = common(cfg);
      return {
        ess: {
          fullnameOverride: "ess-api",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("nvcf-ess") },
          ...c.placement("controlplane"),
          env: c.tracingEnv("ess-api"),
          podDisruptionBudget: PDB,
        },
      };
    },
    "notary-service": (cfg) => {
      const c = common(cfg);
      return {
        notary: {
          fullnameOverride: "notary-service",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("notary-service") },
          ...c.placement("controlplane"),
          env: c.tracingEnv("notary-service"),
        },
      };
    },
    sis: (cfg) => {
      const c = common(cfg);
      return {
        sis: {
          fullnameOverride: "spot-instance-service",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("icms-service-oss") },
          ...c.placement("controlplane"),
          lls: {
            enabled: cfg.addons.lls.enabled,
            hmacRotation: { image: { registry: c.reg, repository: c.img("nvcf-openbao-migrations") } },
          },
          env: { METRICS_ENABLED: String(cfg.observability.metrics.enabled), ...c.tracingEnv("sis") },
        },
      };
    },
    "admin-issuer-proxy": (cfg) => {
      const c = common(cfg);
      return {
        adminIssuerProxy: {
          fullnameOverride: "admin-token-issuer-proxy",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("admin-token-issuer-proxy") },
          ...c.placement("controlplane"),
          gateway: {
            enabled: true,
            namespace: cfg.gateway.shared.namespace,
            gatewayRef: { name: cfg.gateway.shared.name },
            hostname: `api-keys.${D(cfg)}`,
            path: "/v1/admin/keys",
          },
          podDisruptionBudget: PDB,
        },
      };
    },
    reval: (cfg) => {
      const c = common(cfg);
      return {
        reval: {
          fullnameOverride: "reval",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("reval-server") },
          securityContext: { runAsNonRoot: true, runAsUser: 65532 },
          ...c.placement("controlplane"),
          podDisruptionBudget: PDB,
        },
      };
    },
    "llm-request-router": (cfg) => {
      const c = common(cfg);
      const pki = cfg.addons.llm.pki;
      const v: Values = {
        enabled: true,
        fullnameOverride: "llm-request-router",
        replicaCount: 3,
        service: { grpcPort: 50071 },
        imagePullSecrets: c.ips,
        image: { registry: c.reg, repository: c.img("stargate") },
        ...c.placement("controlplane"),
        podDisruptionBudget: PDB,
      };
      if (pki.enabled) {
        // TLS for the router (spec §1.8 "PKI block (certificate/tls/pki)", §1.9).
        if (pki.mode === "certManager") {
          v["certificate"] = {
            enabled: true,
            secretName: pki.secretName,
            dnsNames: pki.dnsNames,
            issuerRef: { kind: pki.issuerKind, name: pki.issuerName },
          };
        }
        v["tls"] = { enabled: true, secretName: pki.secretName };
        if (llmManagesIssuer(cfg)) {
          v["pki"] = {
            enabled: true,
            issuerName: pki.issuerName,
            allowedDomains: pki.allowedDomains,
            image: {
              registry: c.reg,
              repository: c.img("nvcf-openbao-migrations"),
              tag: pki.imageTag || cfg.openbao.migrationsImageTag,
            },
          };
        }
      }
      return { llmRequestRouter: v };
    },
    "llm-api-gateway": (cfg) => {
      const c = common(cfg);
      return {
        llmApiGateway: {
          enabled: true,
          fullnameOverride: "llm-api-gateway",
          replicaCount: 3,
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("llm-api-gateway") },
          ...c.placement("controlplane"),
          podDisruptionBudget: PDB,
        },
      };
    },
    "vanity-gateway": (cfg) => {
      const c = common(cfg);
      const vg = cfg.addons.vanityGateway;
      return {
        vanityGateway: {
          fullnameOverride: "vanity-gateway",
          replicaCount: vg.replicaCount,
          imagePullSecrets: c.ips,
          image: {
            registry: c.reg,
            repository: c.img("nvcf-ai-api-gateway-service"),
            pullPolicy: "IfNotPresent",
          },
          config: {
            mappingPath: "/etc/vanity-gateway/config/config.yaml",
            nvcfApiEndpoint: "http://invocation.nvcf.svc.cluster.local:8080",
            shadowMaxConcurrent: 256,
          },
          mappingConfig: vg.mappingConfig,
          serviceMonitor: { enabled: false, interval: "60s", labels: {} },
          ...c.placement("controlplane"),
        },
      };
    },
    "nvcf-ui": (cfg) => {
      const c = common(cfg);
      return {
        nvcfUi: {
          imagePullSecrets: c.ips,
          image: { repository: `${c.reg}/${c.img("nvcf-ui")}` },
          config: {
            apiUrl: "http://api.nvcf.svc.cluster.local:8080",
            nvctApiUrl: "http://nvct-api.nvcf.svc.cluster.local:8080",
            sisUrl: "http://api.sis.svc.cluster.local:8080",
          },
          openbaoMigrations: {
            image: { registry: c.reg, repository: c.img("nvcf-openbao-migrations"), tag: "0.16.2" },
          },
        },
      };
    },
    ingress: (cfg) => {
      const g = cfg.gateway;
      const gateways: Values = {
        shared: { name: g.shared.name, namespace: g.shared.namespace },
        grpc: { name: g.grpc.name, namespace: g.grpc.namespace },
      };
      if (g.routes.nats)
        gateways["nats"] = {
          name: g.nats.name,
          namespace: g.nats.namespace,
          listenerName: g.nats.listenerName,
        };
      const hosts = httpRouteHostnames(cfg);
      return {
        nvcfGatewayRoutes: {
          domain: D(cfg),
          gateways,
          routes: {
            nvcfApi: { grpc: grpcRoute(g.routes.nvcfApiGrpc, `api-grpc.${D(cfg)}`) },
            nvctApi: { grpc: grpcRoute(g.routes.nvctApiGrpc, `tasks-grpc.${D(cfg)}`) },
            llmInvocation: { enabled: cfg.addons.llm.enabled },
            vanityGateway: {
              enabled: cfg.addons.vanityGateway.enabled,
              hostnames: hosts["vanity-gateway"] ?? [],
            },
            nvcfUi: { enabled: cfg.addons.nvcfUi.enabled },
            grpcWorker: {
              enabled: g.routes.grpcWorker.enabled,
              listenerName: g.routes.grpcWorker.listenerName,
            },
            nats: { enabled: g.routes.nats },
            ess: { enabled: g.routes.ess },
          },
          podMonitors: { enabled: cfg.observability.metrics.enabled },
        },
      };
    },
    "state-metrics": (cfg) => {
      const c = common(cfg);
      return {
        stateMetrics: {
          enabled: false,
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("nvcf-state-metrics-service") },
          ...c.placement("controlplane"),
          serviceMonitor: { enabled: false },
        },
      };
    },
    "function-autoscaler": (cfg) => {
      const c = common(cfg);
      const mb = cfg.observability.metricsBackend;
      const promql =
        mb.mode === "install"
          ? `http://vmsingle.${cfg.observability.namespace}.svc.cluster.local:8428`
          : mb.promqlEndpoint;
      return {
        functionautoscaler: {
          namespace: "nvcf",
          fullnameOverride: "function-autoscaler",
          imagePullSecrets: c.ips,
          image: { registry: c.reg, repository: c.img("nvcf-function-autoscaler") },
          env: {
            SECRETS_PATH: "/vault/secrets/secrets.json",
            REGION: "local",
            CASSANDRA__CONTACT_POINTS: "cassandra.cassandra-system.svc.cluster.local",
            CASSANDRA__IS_DEVELOPMENT: "false",
            NVCF_API__GRPC_ADDRESS: "http://api.nvcf.svc.cluster.local:9090",
            NVCF_API__DISABLE_AUTH: "false",
            NVCF_API__DRY_RUN: "false",
            TIMESERIES_DB__URL: promql,
            TIMESERIES_DB__IGNORE_ENV: "true",
          },
          ...c.placement("controlplane"),
          podDisruptionBudget: PDB,
        },
      };
    },
  };
}

/** The LLM request router address workers dial (spec §1.9): config value or the in-cluster default. */
export function llmRouterAddress(cfg: ControlPlaneConfig): string {
  return cfg.addons.llm.requestRouterAddress || "llm-request-router.nvcf.svc.cluster.local:50071";
}

/** Release names that have a values builder (every control-plane release of the catalog). */
export const CONTROL_VALUES_RELEASES: readonly string[] = Object.keys(builders<string>());

/**
 * The values a control-plane release is installed with: the `global.yaml.gotmpl` layer with the secrets
 * placed, then `nvcf:releaseValues.<release>` deep-merged on top (spec §1.7 precedence).
 * Input: release name, validated config, encoded secrets. Output: a values object (may hold `S` leaves).
 * Throws on an unknown release name.
 */
export function controlValues<S>(
  release: string,
  cfg: ControlPlaneConfig,
  secrets: ControlSecrets<S>,
): Values {
  const build = builders<S>()[release];
  if (!build) throw new Error(`no values builder for control-plane release "${release}"`);
  return deepMerge(build(cfg, secrets), cfg.releaseValues[release]);
}

/** The registry user for the sidecar credential: NGC's literal user for nvcr.io, else the pull-secret user. */
export function sidecarUser(cfg: ControlPlaneConfig): string {
  return cfg.images.registry === "nvcr.io" ? NGC_USER : cfg.pullSecret.username;
}
