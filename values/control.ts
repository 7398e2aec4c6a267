/**
 * Values per control-plane release (pure functions): what NVIDIA's stack gives each chart
 * (`deploy/stacks/self-managed/global.yaml.gotmpl` for the NVCF charts, `values/observability.ts` for the
 * observability charts, the inline values of `helmfile.d/01-dependencies.yaml.gotmpl` for nvcf-pki), merged
 * with the secrets layer
 * (`secrets/secrets.yaml.template`) and the user's per-release overrides (`nvcf:releaseValues`).
 *
 * Each release receives only the top-level key its chart reads, so a change to one service's settings
 * changes only that release. Where the stack differs between bundles (0.7.0 tag vs HEAD = 0.8.0), the
 * builders follow `cfg.bundleVersion`; bundle 0.6.1 has no stack in the repository and takes the 0.7.0
 * shape (its chart versions are the docs v0.6.1 manifest's, `catalog/releases.ts`).
 * Deliberate differences from NVIDIA's stack are listed in docs/differences.md and marked `ON PURPOSE`.
 *
 * Secrets arrive as `S` (a plain string in tests, a secret `pulumi.Output<string>` in the program) and are
 * placed as leaves, so everything else in a release's values stays readable in previews.
 */
import type { BundleVersion } from "../catalog/releases";
import { llmManagesIssuer } from "../config/flags";
import type { ControlPlaneConfig, Toleration } from "../config/schema";
import { NGC_USER } from "../config/credentials";
import { PINNED_TAGS, UPSTREAM, mirrorBase, thirdPartyImage } from "./images";
import { type Values, deepMerge } from "./merge";
import {
  OBSERVABILITY_RELEASE_NAMES,
  type ObservabilityImages,
  observabilityValues,
  vmsingleUrl,
} from "./observability";
import { grpcHostnames } from "../config/routes";

/** The secret inputs of the control plane, already encoded (see `config/credentials.ts`). */
export interface ControlSecrets<S> {
  /** Feeds both `DEFAULT_CASSANDRA_PASSWORD` and `cassandra.serviceRolePassword`. */
  cassandraPassword: S;
  /** base64("user:key") for worker sidecar pulls (`NVCF_API_SIDECARS_IMAGE_PULL_SECRET`). */
  sidecarAuth: S;
  /** base64("user:key") for each account-bootstrap registry credential, in `accounts.registryCredentials` order. */
  functionAuth: S[];
  /**
   * Name of a Secret in the OpenBao namespace holding `cassandraPassword` and `sidecarAuth` under the env names
   * of `OPENBAO_MIGRATIONS_SECRET_KEYS`. When given, the migrations env takes both by reference
   * (`valueFrom.secretKeyRef`, which the chart renders as given: it writes `openbao.migrations.env` with
   * toYaml), so the env list holds no secret and a preview shows its other entries; otherwise inline values.
   */
  migrationsSecretName?: S;
}

/** The env names of the OpenBao migrations' credentials, as keys of the `migrationsSecretName` Secret. */
export const OPENBAO_MIGRATIONS_SECRET_KEYS = [
  "DEFAULT_CASSANDRA_PASSWORD",
  "NVCF_API_SIDECARS_IMAGE_PULL_SECRET",
] as const;

/** The control plane's image context of its observability releases: its own mirror and pull secret. */
export function observabilityImages(cfg: ControlPlaneConfig): ObservabilityImages {
  return {
    registry: cfg.images.registry,
    repository: cfg.images.repository,
    thirdParty: cfg.images.thirdParty,
    pullSecret: cfg.pullSecret.name,
  };
}

type PlacementType = "vault" | "cassandra" | "controlplane";

/** Bundles whose `global.yaml.gotmpl` has the 0.7.0 shape (no PDB knobs, NGC registry env, old image names). */
const before080 = (b: BundleVersion) => b !== "0.8.0";

/** Shared pieces every builder uses. */
function common(cfg: ControlPlaneConfig) {
  const reg = cfg.images.registry;
  const repo = cfg.images.repository;
  const old = before080(cfg.bundleVersion);
  /** `imagePullSecrets`, only when a pull secret is referenced (the stack emits the key only when non-empty). */
  const ips: Values =
    cfg.pullSecret.name === null ? {} : { imagePullSecrets: [{ name: cfg.pullSecret.name }] };
  const pullSecretList = cfg.pullSecret.name === null ? [] : [{ name: cfg.pullSecret.name }];
  const image = (name: string) => ({ registry: reg, repository: `${repo}/${name}` });
  /** The stack's `nvcf.nodeSelector` helper: the type's term, else `all`, only when enabled. */
  const nodeSelector = (t: PlacementType): Values | undefined => {
    const ns = cfg.placement.nodeSelectors;
    if (!ns.enabled) return undefined;
    const term = ns[t] ?? ns.all;
    return term ? { [term.key]: term.value } : undefined;
  };
  /** The stack's `nvcf.tolerations` helper: the type's non-empty list, else `all`, only when enabled and non-empty. */
  const tolerations = (t: PlacementType): Toleration[] | undefined => {
    const tl = cfg.placement.tolerations;
    if (!tl.enabled) return undefined;
    const own = tl[t];
    const list = own && own.length > 0 ? own : tl.all;
    return list && list.length > 0 ? list : undefined;
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
  /** `<protocol>://<endpoint>:<port>`: the stack writes the protocol setting as the URL scheme. */
  const otlp = `${tr.collectorProtocol}://${tr.collectorEndpoint}:${tr.collectorPort}`;
  /** Spring Boot services (api, ess, notary, sis): Micrometer tracing switch and OTLP traces endpoint. */
  const springTracing = (asString = true): Values => ({
    MANAGEMENT_TRACING_ENABLED: asString ? String(tr.enabled) : tr.enabled,
    ...(tr.enabled ? { MANAGEMENT_OTLP_TRACING_ENDPOINT: `${otlp}/v1/traces` } : {}),
  });
  /** A PDB knob of `environments/base.yaml` (0.8.0 only; the 0.7.0 stack passes none). */
  const pdb = (v: Values): Values => (old ? {} : { podDisruptionBudget: v });
  /** A third-party image or repository: upstream, or its mirror form with `images.thirdParty: mirror` (values/images.ts). */
  const thirdParty = (upstream: string) =>
    thirdPartyImage(upstream, cfg.images.thirdParty, mirrorBase(reg, repo));
  const mirrored = cfg.images.thirdParty === "mirror";
  return {
    reg,
    repo,
    old,
    ips,
    pullSecretList,
    image,
    placement,
    nodeSelector,
    tolerations,
    tr,
    otlp,
    springTracing,
    pdb,
    thirdParty,
    mirrored,
  };
}

type ControlBuilder<S> = (cfg: ControlPlaneConfig, secrets: ControlSecrets<S>) => Values;

const D = (cfg: ControlPlaneConfig) => cfg.domain;
const PDB_UNAVAILABLE_1 = { enabled: false, maxUnavailable: 1 };

/**
 * The services the nvcf-ui control-plane health monitor probes, as NVIDIA's stack lists them
 * (`global.yaml.gotmpl`, `nvcfUi.controlPlane.components`): optional services only when installed.
 */
function uiHealthComponents(cfg: ControlPlaneConfig): Values[] {
  const http = (name: string, ns: string, host: string, path = "/health") => ({
    name,
    namespace: ns,
    endpoints: [`${host}${path}`],
  });
  const workloads = (name: string, ns: string, list: [string, string][]) => ({
    name,
    namespace: ns,
    k8s_workloads: list.map(([n, type]) => ({ name: n, type })),
  });
  const out: Values[] = [
    http("api", "nvcf", "api.nvcf.svc.cluster.local:8080"),
    http("nvct-api", "nvcf", "nvct-api.nvcf.svc.cluster.local:8080"),
    http("notary-service", "nvcf", "notary.nvcf.svc.cluster.local:8080"),
    http("grpc-proxy", "nvcf", "grpc.nvcf.svc.cluster.local:10081"),
  ];
  if (cfg.rateLimiter.enabled)
    out.push(http("ratelimiter", "nvcf", "ratelimiter.nvcf.svc.cluster.local:8080"));
  if (cfg.addons.llm.enabled) {
    const gw = "llm-api-gateway.nvcf.svc.cluster.local:8080";
    const rr = "llm-request-router-headless.nvcf.svc.cluster.local:8000";
    out.push({ name: "llm-api-gateway", namespace: "nvcf", endpoints: [`${gw}/healthz`, `${gw}/readyz`] });
    out.push({ name: "llm-request-router", namespace: "nvcf", endpoints: [`${rr}/healthz`, `${rr}/readyz`] });
  }
  out.push(http("reval", "nvcf", "reval.nvcf.svc.cluster.local:8082", "/healthz"));
  out.push(http("invocation-service", "nvcf", "invocation.nvcf.svc.cluster.local:8080"));
  if (cfg.addons.vanityGateway.enabled)
    out.push(http("vanity-gateway", "nvcf", "vanity-gateway.nvcf.svc.cluster.local:8080"));
  out.push(http("sis", "sis", "api.sis.svc.cluster.local:8080"));
  out.push(http("ess-api", "ess", "ess-api.ess.svc.cluster.local:8080"));
  out.push(http("api-keys", "api-keys", "api-keys.api-keys.svc.cluster.local:8080"));
  out.push(
    http(
      "admin-issuer-proxy",
      "api-keys",
      "admin-token-issuer-proxy.api-keys.svc.cluster.local:8080",
      "/healthz",
    ),
  );
  out.push(
    http(
      "nats-auth-callout-service",
      "nats-system",
      "nvcf-nats-auth-callout-service.nats-system.svc.cluster.local:8080",
    ),
  );
  if (cfg.nats.enabled)
    out.push(
      http(
        "nats",
        "nats-system",
        "nats-headless.nats-system.svc.cluster.local:8222",
        "/healthz?js-server-only",
      ),
    );
  if (cfg.openbao.enabled)
    out.push({
      ...http(
        "openbao-server",
        "vault-system",
        "openbao-server.vault-system.svc.cluster.local:8200",
        "/v1/sys/health?standbyok=true",
      ),
      k8s_workloads: [{ name: "openbao-server-agent-injector", type: "deployment" }],
    });
  if (cfg.cassandra.enabled)
    out.push(workloads("cassandra", "cassandra-system", [["cassandra", "statefulset"]]));
  if (cfg.certManager.managed)
    out.push(
      workloads("cert-manager", "cert-manager", [
        ["cert-manager", "deployment"],
        ["cert-manager-cainjector", "deployment"],
        ["cert-manager-webhook", "deployment"],
      ]),
    );
  // The stack lists the Envoy Gateway controller under this fixed namespace whenever Gateway API is on.
  out.push(workloads("envoy-gateway", "envoy-gateway-system", [["envoy-gateway", "deployment"]]));
  return out;
}

/**
 * One builder per release, by family. The map key is the release name of `catalog/releases.ts`; every
 * control-plane release of the catalog has exactly one.
 */
function builders<S>(): Record<string, ControlBuilder<S>> {
  return {
    // NVIDIA's observability stack, as every cluster gets it (values/observability.ts).
    ...Object.fromEntries(
      OBSERVABILITY_RELEASE_NAMES.map((n) => [
        n,
        (cfg: ControlPlaneConfig) => observabilityValues(n, cfg.observability, observabilityImages(cfg)),
      ]),
    ),
    ...dependencyBuilders<S>(),
    ...serviceBuilders<S>(),
    ...llmBuilders<S>(),
    ...ingressBuilders<S>(),
    ...platformMetricsBuilders<S>(),
  };
}

/**
 * The dependencies (NVIDIA's `deploy/stacks/self-managed/helmfile.d/01-dependencies.yaml.gotmpl`, release-group
 * `dependencies`): NATS, cert-manager, OpenBao, the PKI, Cassandra.
 */
function dependencyBuilders<S>(): Record<string, ControlBuilder<S>> {
  return {
    nats: (cfg) => {
      const c = common(cfg);
      const nats: Values = {};
      if (c.pullSecretList.length)
        nats["global"] = { image: { pullSecretNames: c.pullSecretList.map((s) => s.name) } };
      nats["container"] = { image: { ...c.image("nats-server"), tag: "2.11.17-alpine3.22" } };
      nats["reloader"] = { image: { ...c.image("nats-server-config-reloader"), tag: "0.23.0" } };
      nats["natsBox"] = { container: { image: { ...c.image("nats-box"), tag: "0.19.7-nonroot" } } };
      // ON PURPOSE: no `nkeyJob.image`: the chart renders the NKeys as Secrets and has no nkey job any more.
      const spec = c.placement("controlplane");
      if (Object.keys(spec).length) nats["podTemplate"] = { merge: { spec } };
      if (cfg.storage.className)
        nats["config"] = { jetstream: { fileStore: { pvc: { storageClassName: cfg.storage.className } } } };
      Object.assign(nats, c.pdb({ enabled: false, merge: { spec: { minAvailable: 2 } } }));
      return { nats };
    },
    "cert-manager": (cfg) => {
      const c = common(cfg);
      const r = (n: string) => ({ image: { repository: `${c.reg}/${c.repo}/cert-manager-${n}` } });
      return {
        "cert-manager": {
          ...(c.pullSecretList.length ? { global: { imagePullSecrets: c.pullSecretList } } : {}),
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
      const server: Values = {
        image: c.image("nvcf-openbao"),
        ...c.placement("vault"),
        dataStorage: {
          ...(cfg.storage.className ? { storageClass: cfg.storage.className } : {}),
          size: cfg.storage.size,
        },
      };
      if (!c.old) server["ha"] = { disruptionBudget: { enabled: false, maxUnavailable: 1 } };
      return {
        openbao: {
          ...(c.pullSecretList.length ? { global: { imagePullSecrets: c.pullSecretList } } : {}),
          migrations: {
            image: {
              ...c.image("nvcf-openbao-migrations"),
              ...(cfg.openbao.migrationsImageTag ? { tag: cfg.openbao.migrationsImageTag } : {}),
            },
            issuerDiscovery: { enabled: cfg.openbao.issuerDiscovery },
            // The list replaces the chart default entirely: all three names, once each (secrets template).
            env: [
              ...(
                [
                  ["DEFAULT_CASSANDRA_PASSWORD", s.cassandraPassword],
                  ["NVCF_API_SIDECARS_IMAGE_PULL_SECRET", s.sidecarAuth],
                ] as const
              ).map(([name, value]) =>
                s.migrationsSecretName === undefined
                  ? { name, value }
                  : { name, valueFrom: { secretKeyRef: { name: s.migrationsSecretName, key: name } } },
              ),
              { name: "ADMIN_CLIENT_ID", value: "ncp" },
            ],
          },
          injector: {
            image: c.image("oss-vault-k8s"),
            agentImage: c.image("nvcf-openbao"),
            ...c.placement("vault"),
            replicas: cfg.openbao.injectorReplicas,
            webhook: { failurePolicy: "Ignore" },
            podDisruptionBudget: { minAvailable: 1 },
          },
          server,
        },
      };
    },
    // Flat chart values given inline by `helmfile.d/01-dependencies.yaml.gotmpl` (the chart reads `clusterIssuer.*`).
    "nvcf-pki": (cfg) => {
      const openbao = "http://openbao-server.vault-system.svc.cluster.local:8200";
      return {
        clusterIssuer: {
          enabled: true,
          name: cfg.addons.llm.pki.issuerName,
          server: openbao,
          path: "services/all/pki/nvcf-service-issuing/sign/nvcf-service-server",
          auth: {
            mountPath: "/v1/auth/jwt",
            role: "cert-manager",
            serviceAccount: { name: "cert-manager", audience: openbao },
          },
        },
      };
    },
    cassandra: (cfg, s) => {
      const c = common(cfg);
      // Only 0.7.0 (chart 0.17.0) runs the Bitnami subchart, which reads `global.security`; 0.6.1 (chart 0.18.0,
      // docs/v0.6.1/manifest.md) and 0.8.0 (chart 0.20.1) render their own StatefulSet without it.
      const bitnami = cfg.bundleVersion === "0.7.0";
      // ON PURPOSE: keys the pinned chart never reads are not passed (NVIDIA's stack also passes
      // `global.security` to 0.20.1 and `initialization` to every version; no template reads them).
      const global: Values = { ...c.ips, ...(bitnami ? { security: { allowInsecureImages: true } } : {}) };
      if (cfg.storage.className) global["defaultStorageClass"] = cfg.storage.className;
      // The Bitnami image, also for its seed-discovery init container, in 0.7.0 only.
      const image = bitnami ? "bitnami-cassandra" : "cassandra";
      return {
        cassandra: {
          ...(Object.keys(global).length ? { global } : {}),
          replicaCount: cfg.cassandra.replicas,
          resourcesPreset: cfg.cassandra.preset,
          ...c.pdb({ enabled: false, minAvailable: 2 }),
          ...c.placement("cassandra"),
          persistence: { size: cfg.storage.size },
          migrations: { image: c.image("nvcf-cassandra-migrations") },
          image: c.image(image),
          ...(bitnami ? { dynamicSeedDiscovery: { image: c.image(image) } } : {}),
          serviceRolePassword: s.cassandraPassword,
        },
      };
    },
  };
}

/** The core services (`helmfile.d/02-core.yaml.gotmpl`, release-group `services`) but the LLM add-on's. */
function serviceBuilders<S>(): Record<string, ControlBuilder<S>> {
  return {
    "api-keys": (cfg) => {
      const c = common(cfg);
      return {
        apikeys: {
          fullnameOverride: "api-keys",
          ...c.ips,
          image: c.image("nvcf-api-keys-service"),
          // ON PURPOSE: helm-nvcf-api-keys 1.6.0 has no nodeSelector/tolerations values; none are passed.
          ...c.pdb(PDB_UNAVAILABLE_1),
        },
      };
    },
    "nats-auth-callout-service": (cfg) => {
      const c = common(cfg);
      // The chart reads flat top-level keys and one `image.repository` with the registry host in it (no
      // `image.registry`). ON PURPOSE: NVIDIA's stack writes `natsAuthCalloutService.image`, which the chart
      // never reads, so the image never came from the mirror.
      return { ...c.ips, image: { repository: `${c.reg}/${c.repo}/nvcf-nats-auth-callout-service` } };
    },
    api: (cfg, s) => {
      const c = common(cfg);
      const w = cfg.workerEndpoints;
      const env: Values = {
        NVCF_NATS_REGION_PLACEMENT_TAG: "dc",
        NVCF_SIDECARS_HOSTNAME: c.reg,
        NVCF_SIDECARS_REPOSITORY: c.repo,
      };
      if (w.nvcfServiceURL) env["NVCF_FQDN"] = w.nvcfServiceURL;
      if (w.nvcfGrpcServiceURL) env["NVCF_GLOBAL_FQDN_GRPC"] = w.nvcfGrpcServiceURL;
      if (w.nvcfNatsServiceURL) env["NVCF_NATS_WORKER_URL"] = w.nvcfNatsServiceURL;
      if (w.essServiceURL) {
        env["NVCF_ESS_WORKER_BASE_URL"] = w.essServiceURL;
        env["NVCF_ESS_BASE_URL"] = w.essServiceURL;
      }
      // 0.7.0 (chart 1.23.9) is told NGC's registry endpoints; 0.8.0 has them built in.
      if (c.old) Object.assign(env, NGC_REGISTRY_ENV);
      Object.assign(env, c.springTracing());
      const api: Values = {
        fullnameOverride: "nvcf-api",
        ...c.ips,
        image: c.image("nvcf-service-oss"),
        ...c.placement("controlplane"),
      };
      // The worker address of the LLM router in the API's remote config (0.8.0 stack only).
      if (cfg.addons.llm.enabled && !c.old) {
        api["remoteConfig"] = {
          configData: { nvcf: { "llm-request-router": { "worker-address": llmRouterAddress(cfg) } } },
        };
      }
      api["accountBootstrap"] = {
        image: { ...c.image("alpine-k8s"), tag: "1.36.1", pullPolicy: "IfNotPresent" },
        registryCredentials: cfg.accounts.registryCredentials.map((rc, i) => ({
          registryHostname: rc.registryHostname,
          secret: { name: rc.secretName, value: s.functionAuth[i] },
          artifactTypes: rc.artifactTypes,
          tags: [...rc.tags],
          description: rc.description,
        })),
        limits: { ...cfg.accounts.limits },
      };
      api["env"] = env;
      return { api };
    },
    "nvct-api": (cfg) => {
      const c = common(cfg);
      const w = cfg.workerEndpoints;
      const env: Values = { NVCT_SIDECARS_HOSTNAME: c.reg, NVCT_SIDECARS_REPOSITORY: c.repo };
      if (w.nvctServiceURL) env["NVCT_FQDN"] = w.nvctServiceURL;
      if (w.nvctGrpcServiceURL) env["NVCT_GLOBAL_FQDN_GRPC"] = w.nvctGrpcServiceURL;
      if (w.essServiceURL) {
        // nvct-api binds `nvct.ess.base-url`; ON PURPOSE no NVCT_ESS_WORKER_BASE_URL (nothing reads it).
        env["NVCT_ESS_BASE_URL"] = w.essServiceURL;
      }
      // The stack writes this switch unquoted (a boolean) for nvct-api; the chart quotes every env value.
      Object.assign(env, c.springTracing(false));
      return {
        nvctApi: { fullnameOverride: "nvct-api", ...c.ips, image: c.image("nvct-service-oss"), env },
      };
    },
    "invocation-service": (cfg) => {
      const c = common(cfg);
      // The Rust server's log filter; without the `otel=off` directives the OTLP exporter stays on.
      const env: Values = c.tr.enabled
        ? {
            SERVER__TRACING__ENDPOINT_IP: `${c.tr.collectorProtocol}://${c.tr.collectorEndpoint}`,
            SERVER__TRACING__ENDPOINT_PORT: c.tr.collectorPort,
          }
        : { SERVER__ENVFILTER_DIRECTIVE: "otel::tracing=off,otel=off,server=trace,info" };
      if (cfg.rateLimiter.enabled) {
        env["RATE_LIMIT_ENABLED"] = "true";
        env["RATE_LIMIT_ADDRESS"] = RATE_LIMITER_URL;
      }
      if (cfg.workerEndpoints.invocationServiceURL)
        env["WORKER_STREAM_PROPERTIES__SELF_ADDRESS"] = cfg.workerEndpoints.invocationServiceURL;
      return {
        invocation: {
          fullnameOverride: "invocation-service",
          ...c.ips,
          image: c.image("nvcf-invocation-service"),
          ...c.placement("controlplane"),
          env,
        },
      };
    },
    "grpc-proxy": (cfg) => {
      const c = common(cfg);
      // The proxy reads any non-empty OTLP endpoint as "tracing on". ON PURPOSE: no `TRACING: none` (NVIDIA's
      // stack adds it only to keep its env list non-empty; the proxy reads no such variable).
      const env: Values = c.tr.enabled ? { OTEL_EXPORTER_OTLP_ENDPOINT: c.otlp } : {};
      const grpc = cfg.grpcproxy.nvcfGrpcServiceURL || cfg.workerEndpoints.nvcfGrpcServiceURL;
      if (grpc) env["NVCF_FQDN_GRPC"] = grpc;
      // Unset: the chart's in-cluster NATS address stays.
      if (cfg.workerEndpoints.nvcfNatsServiceURL) env["NATS_FQDN"] = cfg.workerEndpoints.nvcfNatsServiceURL;
      if (cfg.rateLimiter.enabled) {
        env["RATE_LIMIT_ENABLED"] = "true";
        env["RATE_LIMIT_ADDR"] = RATE_LIMITER_URL; // the proxy's config field is RATE_LIMIT_ADDR
      }
      const connect = cfg.grpcproxy.workerConnectBaseURL || cfg.workerEndpoints.grpcProxyWorkerConnectURL;
      return {
        grpcproxy: {
          fullnameOverride: "grpc-proxy",
          ...c.ips,
          image: c.image("nvcf-grpc-proxy"),
          // ON PURPOSE: the chart reads placement under `deployment.*` (its default deploymentType); NVIDIA's
          // stack writes top-level nodeSelector/tolerations, which the chart never reads.
          ...(Object.keys(c.placement("controlplane")).length
            ? { deployment: c.placement("controlplane") }
            : {}),
          ...(connect ? { workerConnectBaseURL: connect } : {}),
          ...(Object.keys(env).length ? { env } : {}),
          ...c.pdb(PDB_UNAVAILABLE_1),
        },
      };
    },
    ratelimiter: (cfg) => {
      const c = common(cfg);
      // The chart appends its own image name to `image.repository`.
      const v: Values = { ...c.ips, image: { registry: c.reg, repository: c.repo } };
      const ns = c.nodeSelector("controlplane");
      if (ns) {
        v["nodeSelector"] = ns;
        // ON PURPOSE: NVIDIA pins the rate limiter to the control-plane pool without its tolerations, so on a
        // tainted pool it stays Pending; the program adds the pool's tolerations (the chart reads them).
        const tl = c.tolerations("controlplane");
        if (tl) v["tolerations"] = tl;
      }
      v["replicaCount"] = cfg.rateLimiter.replicaCount;
      if (c.tr.enabled) v["env"] = { OTEL_EXPORTER_OTLP_ENDPOINT: c.otlp };
      return { rateLimiter: v };
    },
    "ess-api": (cfg) => {
      const c = common(cfg);
      return {
        ess: {
          fullnameOverride: "ess-api",
          ...c.ips,
          // The image is `ess-api` up to 0.7.0 (docs/v0.6.1/manifest.md, stack v0.7.0), `nvcf-ess` in 0.8.0.
          image: c.image(c.old ? "ess-api" : "nvcf-ess"),
          // ON PURPOSE: the chart reads `nodeSelector` but no tolerations; only the selector is passed.
          ...(c.nodeSelector("controlplane") ? { nodeSelector: c.nodeSelector("controlplane") } : {}),
          env: c.springTracing(),
        },
      };
    },
    "notary-service": (cfg) => {
      const c = common(cfg);
      return {
        notary: {
          fullnameOverride: "notary-service",
          ...c.ips,
          image: c.image("notary-service"),
          ...c.placement("controlplane"),
          env: c.springTracing(),
        },
      };
    },
    sis: (cfg) => {
      const c = common(cfg);
      const metrics = String(cfg.observability.metrics.enabled);
      const tracing = c.springTracing();
      return {
        sis: {
          fullnameOverride: "spot-instance-service",
          ...c.ips,
          image: c.image("icms-service-oss"),
          ...c.placement("controlplane"),
          lls: {
            enabled: cfg.addons.lls.enabled,
            // The tag only with LLS on: the chart needs one for the rotation CronJob (docs/differences.md).
            hmacRotation: {
              image: {
                ...c.image("nvcf-openbao-migrations"),
                ...(cfg.addons.lls.enabled ? { tag: cfg.addons.lls.hmacRotation.image.tag } : {}),
              },
            },
          },
          env: {
            MANAGEMENT_TRACING_ENABLED: tracing["MANAGEMENT_TRACING_ENABLED"],
            MANAGEMENT_PROMETHEUS_METRICS_EXPORT_ENABLED: metrics,
            MANAGEMENT_METRICS_ENABLE_ALL: metrics,
            ...tracing,
          },
        },
      };
    },
    "admin-issuer-proxy": (cfg) => {
      const c = common(cfg);
      return {
        adminIssuerProxy: {
          fullnameOverride: "admin-token-issuer-proxy",
          ...c.ips,
          image: c.image("admin-token-issuer-proxy"),
          ...c.placement("controlplane"),
          gateway: {
            enabled: true,
            namespace: cfg.gateway.shared.namespace,
            gatewayRef: { name: cfg.gateway.shared.name },
            hostname: `api-keys.${D(cfg)}`,
            path: "/v1/admin/keys",
          },
        },
      };
    },
    reval: (cfg) => {
      const c = common(cfg);
      return {
        reval: {
          fullnameOverride: "reval",
          ...c.ips,
          image: c.image("reval-server"),
          securityContext: { runAsNonRoot: true, runAsUser: 65532 },
          ...c.placement("controlplane"),
          ...c.pdb(PDB_UNAVAILABLE_1),
        },
      };
    },
    "vanity-gateway": (cfg) => {
      const c = common(cfg);
      const vg = cfg.addons.vanityGateway;
      const v: Values = {
        fullnameOverride: "vanity-gateway",
        replicaCount: vg.replicaCount,
        ...c.ips,
        image: { ...c.image("nvcf-ai-api-gateway-service"), pullPolicy: "IfNotPresent" },
        config: {
          mappingPath: "/etc/vanity-gateway/config/config.yaml",
          nvcfApiEndpoint: "http://invocation.nvcf.svc.cluster.local:8080",
          otelExporterOtlpEndpoint: c.tr.enabled ? c.otlp : "",
          // No OpenBao agent in this chart: no secrets file unless something else mounts one.
          secretsPath: "",
          privateModelNameRegexPattern: "",
          awsRegion: "",
          shadowMaxConcurrent: 256,
        },
        mappingConfig: vg.mappingConfig,
        serviceMonitor: { enabled: false, interval: "60s", labels: {} },
      };
      const ns = c.nodeSelector("controlplane");
      if (ns) {
        v["nodeSelector"] = ns;
        // ON PURPOSE: as for the rate limiter, the pool's tolerations come with its node selector.
        const tl = c.tolerations("controlplane");
        if (tl) v["tolerations"] = tl;
      }
      return { vanityGateway: v };
    },
    "nvcf-ui": (cfg) => {
      const c = common(cfg);
      return {
        nvcfUi: {
          fullnameOverride: "nvcf-ui",
          image: { repository: `${c.reg}/${c.repo}/nvcf-ui` },
          ...c.ips,
          config: {
            nvcfUrl: "api.nvcf.svc.cluster.local:8080",
            nvctUrl: "nvct-api.nvcf.svc.cluster.local:8080",
            sisUrl: "api.sis.svc.cluster.local:8080",
          },
          // 0.16.2 is the oldest migrations image the UI's OpenBao job works with.
          openbaoMigrations: { image: { ...c.image("nvcf-openbao-migrations"), tag: "0.16.2" } },
          controlPlane: { components: uiHealthComponents(cfg) },
          ...c.placement("controlplane"),
        },
      };
    },
  };
}

/** The LLM add-on's releases of `02-core` (`addons.llm`): the request router and the API gateway in front of it. */
function llmBuilders<S>(): Record<string, ControlBuilder<S>> {
  return {
    "llm-request-router": (cfg) => {
      const c = common(cfg);
      const pki = cfg.addons.llm.pki;
      const v: Values = {
        fullnameOverride: "llm-request-router",
        replicaCount: 3,
        ...(c.old ? {} : { service: { grpcPort: LLM_ROUTER_GRPC_PORT } }),
        ...c.ips,
        image: c.image("stargate"),
        ...c.placement("controlplane"),
        metrics: { enabled: true, serviceMonitor: { enabled: true } },
        observability: { tracing: { enabled: c.tr.enabled, ...(c.tr.enabled ? { endpoint: c.otlp } : {}) } },
      };
      if (pki.enabled) {
        // QUIC TLS of the router: where the chart mounts the certificate.
        const files = {
          mountPath: "/etc/stargate/tls",
          certPath: "/etc/stargate/tls/tls.crt",
          keyPath: "/etc/stargate/tls/tls.key",
        };
        if (pki.mode === "existingSecret" && !c.old) {
          v["certificate"] = { enabled: false };
          // ON PURPOSE: no `tls.mode` (NVIDIA passes `existingSecret`): chart 1.7.2 does not read it; with the
          // Certificate off it mounts the named Secret.
          v["tls"] = { secretName: pki.secretName, ...files, quicInsecure: false };
        } else {
          v["certificate"] = {
            enabled: true,
            secretName: pki.secretName,
            issuerRef: { kind: pki.issuerKind, name: pki.issuerName },
            dnsNames: pki.dnsNames,
          };
          v["tls"] = { secretName: pki.secretName, ...files, quicInsecure: false };
          // 0.7.0: the router's own hook always provisions the OpenBao hierarchy; 0.8.0: only for a managed issuer.
          if (c.old || llmManagesIssuer(cfg)) {
            v["pki"] = {
              enabled: true,
              namespace: "vault-system",
              allowedDomains: pki.allowedDomains,
              image: {
                ...c.image("nvcf-openbao-migrations"),
                tag: pki.imageTag || cfg.openbao.migrationsImageTag,
                pullPolicy: "IfNotPresent",
              },
              ...c.ips,
            };
          }
        }
      }
      Object.assign(v, c.pdb(PDB_UNAVAILABLE_1));
      return { llmRequestRouter: v };
    },
    "llm-api-gateway": (cfg) => {
      const c = common(cfg);
      return {
        llmApiGateway: {
          fullnameOverride: "llm-api-gateway",
          replicaCount: 3,
          ...c.ips,
          image: c.image("llm-api-gateway"),
          ...c.placement("controlplane"),
          metrics: { enabled: true, serviceMonitor: { enabled: true } },
          observability: {
            tracing: { enabled: c.tr.enabled, ...(c.tr.enabled ? { endpoint: c.otlp } : {}) },
          },
          ...c.pdb(PDB_UNAVAILABLE_1),
        },
      };
    },
  };
}

/** The ingress release (`02-core`, release-group `ingress`): the Gateway API routes to the services. */
function ingressBuilders<S>(): Record<string, ControlBuilder<S>> {
  return {
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
      const ann = { routeAnnotations: {} };
      const grpc = (r: { enabled: boolean; hostnames: string[] }, service: "api" | "tasks") => ({
        enabled: r.enabled,
        hostnames: grpcHostnames(r, service, D(cfg)),
      });
      const vanityHosts = cfg.addons.vanityGateway.hostnames.length
        ? [...cfg.addons.vanityGateway.hostnames]
        : [`vanity.${D(cfg)}`];
      return {
        nvcfGatewayRoutes: {
          domain: D(cfg),
          gateways,
          routes: {
            nvcfApi: { ...ann, grpc: grpc(g.routes.nvcfApiGrpc, "api") },
            nvctApi: { ...ann, grpc: grpc(g.routes.nvctApiGrpc, "tasks") },
            apiKeys: { ...ann },
            invocation: { ...ann },
            llmInvocation: {
              enabled: cfg.addons.llm.enabled,
              backend: { name: "llm-api-gateway", namespace: "nvcf", port: 8080 },
              ...ann,
            },
            vanityGateway: {
              enabled: cfg.addons.vanityGateway.enabled,
              hostnames: vanityHosts,
              backend: { name: "vanity-gateway", namespace: "nvcf", port: 8080 },
              ...ann,
            },
            // nvcf-gateway-routes 1.14.0 (bundle 0.6.1, which ships no nvcf-ui) has no nvcfUi route.
            ...(cfg.bundleVersion === "0.6.1"
              ? {}
              : { nvcfUi: { enabled: cfg.addons.nvcfUi.enabled, ...ann } }),
            grpc: { ...ann },
            grpcWorker: {
              enabled: g.routes.grpcWorker.enabled,
              listenerName: g.routes.grpcWorker.listenerName,
              ...ann,
            },
            nats: { enabled: g.routes.nats, ...ann },
            ess: { enabled: g.routes.ess, ...ann },
          },
          podMonitors: { enabled: cfg.observability.metrics.enabled },
        },
      };
    },
  };
}

/**
 * NVCF's releases of `helmfile.d/03-observability.yaml.gotmpl` (release-group `observability`): the state metrics
 * service and the function autoscaler.
 */
function platformMetricsBuilders<S>(): Record<string, ControlBuilder<S>> {
  return {
    "state-metrics": (cfg) => {
      const c = common(cfg);
      return {
        stateMetrics: {
          enabled: false,
          ...c.ips,
          image: c.image("nvcf-state-metrics-service"),
          ...c.placement("controlplane"),
          serviceMonitor: { enabled: false },
        },
      };
    },
    "function-autoscaler": (cfg) => {
      const c = common(cfg);
      const mb = cfg.observability.metricsBackend;
      const env: Values = {
        CONFIG: "/etc/server/config/settings-local.yaml",
        SECRETS_PATH: "/vault/secrets/secrets.json",
        REGION: "local",
        CASSANDRA__CONTACT_POINTS: "cassandra.cassandra-system.svc.cluster.local",
        CASSANDRA__IS_DEVELOPMENT: "false",
        // `<section>__<field>`: the autoscaler's settings fields are `nvcf_api_grpc_address`, `timeseries_db_url`.
        NVCF_API__NVCF_API_GRPC_ADDRESS: "http://api.nvcf.svc.cluster.local:9090",
        NVCF_API__DISABLE_AUTH: "false",
        NVCF_API__DRY_RUN: "false",
        TIMESERIES_DB__TIMESERIES_DB_URL:
          mb.mode === "install" ? vmsingleUrl(cfg.observability.namespace) : mb.promqlEndpoint,
        TIMESERIES_DB__AUTH_MODE: mb.auth.mode,
        TIMESERIES_DB__IGNORE_ENV: "true",
      };
      if (mb.auth.authnEndpoint) env["TIMESERIES_DB__AUTHN_URL"] = mb.auth.authnEndpoint;
      if (mb.auth.certPath) env["TIMESERIES_DB__CLIENT_CERTIFICATE_PATH"] = mb.auth.certPath;
      if (mb.auth.keyPath) env["TIMESERIES_DB__CLIENT_PRIVATE_KEY_PATH"] = mb.auth.keyPath;
      return {
        functionautoscaler: {
          namespace: "nvcf",
          fullnameOverride: "function-autoscaler",
          ...c.ips,
          image: c.image("nvcf-function-autoscaler"),
          env,
          ...c.placement("controlplane"),
        },
      };
    },
  };
}

/** The rate limiter's gRPC address inside the cluster. */
const RATE_LIMITER_URL = "http://ratelimiter.nvcf.svc.cluster.local:7777";

/** The LLM request router's gRPC port (`addons.llm.requestRouter.service.grpcPort` default). */
const LLM_ROUTER_GRPC_PORT = 50071;

/** NGC registry endpoints the 0.7.0 stack passes to nvcf-api (`global.yaml.gotmpl` at the v0.7.0 tag). */
const NGC_REGISTRY_ENV: Values = {
  NVCF_REGISTRIES_NGC_CONTAINER_REGISTRY_URL: "https://nvcr.io",
  NVCF_REGISTRIES_NGC_BASE_URL: "https://api.ngc.nvidia.com",
  NVCF_REGISTRIES_NGC_OAUTH2_BASE_URL: "https://authn.nvidia.com",
  NVCF_REGISTRIES_NGC_OAUTH2_GROUP_SCOPE: "ngc",
  NVCF_REGISTRIES_RECOGNIZED_CONTAINER_NGC_HOSTNAME: "nvcr.io",
  NVCF_REGISTRIES_RECOGNIZED_HELM_NGC_HOSTNAME: "helm.ngc.nvidia.com",
  NVCF_REGISTRIES_RECOGNIZED_HELM_NGC_OAUTH2_BASE_URL: "https://authn.nvidia.com",
  NVCF_REGISTRIES_RECOGNIZED_HELM_NGC_OAUTH2_GROUP_SCOPE: "ngc",
  NVCF_REGISTRIES_RECOGNIZED_MODEL_NGC_HOSTNAME: "api.ngc.nvidia.com",
  NVCF_REGISTRIES_RECOGNIZED_MODEL_NGC_OAUTH2_BASE_URL: "https://authn.nvidia.com",
  NVCF_REGISTRIES_RECOGNIZED_MODEL_NGC_OAUTH2_GROUP_SCOPE: "ngc",
  NVCF_REGISTRIES_RECOGNIZED_RESOURCE_NGC_HOSTNAME: "api.ngc.nvidia.com",
  NVCF_REGISTRIES_RECOGNIZED_RESOURCE_NGC_OAUTH2_BASE_URL: "https://authn.nvidia.com",
  NVCF_REGISTRIES_RECOGNIZED_RESOURCE_NGC_OAUTH2_GROUP_SCOPE: "ngc",
};

/** The LLM request router address workers dial: config value or the in-cluster default (`<name>.nvcf:50071`). */
export function llmRouterAddress(cfg: ControlPlaneConfig): string {
  return (
    cfg.addons.llm.requestRouterAddress || `llm-request-router.nvcf.svc.cluster.local:${LLM_ROUTER_GRPC_PORT}`
  );
}

/**
 * Values of the Envoy Gateway release (`gateway-helm`, `gateway.install: true`; components/gateway.ts). Empty, as
 * NVIDIA's docs install it, unless a pull secret is configured (then `global.images.*.pullSecrets`, read by
 * the controller Deployment, its certgen hook and the rate-limit Deployment) or `images.thirdParty: mirror`
 * (then `global.images.envoyGateway.image` and, at the pinned chart version, `global.images.ratelimit.image` in
 * their mirror forms; the chart's shutdown manager takes the controller image).
 * Input: config. Output: values for gateway-helm.
 */
export function envoyGatewayValues(cfg: ControlPlaneConfig): Values {
  const c = common(cfg);
  const version = cfg.gateway.envoyGateway.version;
  const eg: Values = {};
  const rl: Values = {};
  if (c.pullSecretList.length) {
    eg["pullSecrets"] = c.pullSecretList;
    rl["pullSecrets"] = c.pullSecretList;
  }
  if (c.mirrored) {
    eg["image"] = `${c.thirdParty(UPSTREAM.envoyGateway)}:${version}`;
    if (version === PINNED_TAGS.envoyGatewayVersion)
      rl["image"] = `${c.thirdParty(UPSTREAM.envoyRatelimit)}:${PINNED_TAGS.envoyRatelimit}`;
  }
  const images: Values = {};
  if (Object.keys(eg).length) images["envoyGateway"] = eg;
  if (Object.keys(rl).length) images["ratelimit"] = rl;
  return Object.keys(images).length ? { global: { images } } : {};
}

/**
 * The `spec.provider.kubernetes` of the EnvoyProxy object the program creates with Envoy Gateway (the Envoy
 * proxy Deployment of the Gateway): two replicas; with a pull secret, `envoyDeployment.pod.imagePullSecrets`;
 * with `images.thirdParty: mirror`, `envoyDeployment.container.image` in its mirror form (Envoy Gateway's
 * default proxy image otherwise). Input: config. Output: the `kubernetes` provider block.
 */
export function envoyProxyKubernetes(cfg: ControlPlaneConfig): Values {
  const c = common(cfg);
  const envoyDeployment: Values = { replicas: 2 };
  if (c.pullSecretList.length) envoyDeployment["pod"] = { imagePullSecrets: c.pullSecretList };
  if (c.mirrored)
    envoyDeployment["container"] = {
      image: `${c.thirdParty(UPSTREAM.envoyProxy)}:${PINNED_TAGS.envoyProxy}`,
    };
  return { envoyDeployment };
}

/** Release names that have a values builder (every control-plane release of the catalog). */
export const CONTROL_VALUES_RELEASES: readonly string[] = Object.keys(builders<string>());

/**
 * The values a control-plane release is installed with: NVIDIA's stack layer with the secrets placed, then
 * `nvcf:releaseValues.<release>` deep-merged on top (Helm's precedence: later files win).
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
