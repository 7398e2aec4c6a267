/**
 * Values per release against the documented facts (docs/upstream-facts.md §1.8 control plane, §2.5-§2.6 compute plane), credential encodings
 * (§4 rows 1-3), the merge rule (§1.7) and change isolation between releases.
 */
import { COMPUTE_PLANE_RELEASES, CONTROL_PLANE_RELEASES, releaseSpec } from "../../../catalog/releases";
import { validateConfig } from "../../../config/load";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";
import * as yaml from "js-yaml";
import {
  COMPUTE_VALUES_RELEASES,
  type ComputeInputs,
  agentMergeConfig,
  computeValues,
  featureGates,
  inotifyImages,
  nvcaOperatorValues,
} from "../../../values/compute";
import {
  CONTROL_VALUES_RELEASES,
  type ControlSecrets,
  controlValues,
  envoyGatewayValues,
  envoyProxyKubernetes,
} from "../../../values/control";
import { mirrorImage, splitImage } from "../../../values/images";
import { dockerAuth, dockerConfigJson, looksLikeEncodedAuth } from "../../../config/credentials";
import { deepMerge } from "../../../values/merge";
import { baseCompute, baseControl } from "../fixtures/configs";

const SECRET = new Set(["registryKey"]);
const control = (over: Record<string, string> = {}) =>
  validateConfig(baseControl(over), SECRET, "prod") as ControlPlaneConfig;
const compute = (over: Record<string, string> = {}) =>
  validateConfig(baseCompute(over), SECRET, "prod") as ComputePlaneConfig;
const secrets: ControlSecrets<string> = {
  cassandraPassword: "cass-pw",
  sidecarAuth: dockerAuth("$oauthtoken", "k1"),
  functionAuth: [dockerAuth("u", "k2"), dockerAuth("u", "k3")],
};
const REPO = "nvcf/images";
const REG = "registry.example.com";
type V = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("credentials (docs/upstream-facts.md §4 rows 1-3)", () => {
  test("docker auth is base64 of user:key, not a dockerconfigjson", () => {
    expect(Buffer.from(dockerAuth("$oauthtoken", "abc"), "base64").toString()).toBe("$oauthtoken:abc");
    expect(dockerAuth("$oauthtoken", "abc")).not.toMatch(/[\n{]/);
  });
  test("dockerconfigjson has the registry, user, key and auth", () => {
    expect(JSON.parse(dockerConfigJson("nvcr.io", "$oauthtoken", "k"))).toEqual({
      auths: { "nvcr.io": { username: "$oauthtoken", password: "k", auth: dockerAuth("$oauthtoken", "k") } },
    });
  });
  test("an encoded credential is recognised, a plain key is not", () => {
    expect(looksLikeEncodedAuth(dockerAuth("$oauthtoken", "nvapi-123"))).toBe(true);
    expect(looksLikeEncodedAuth("nvapi-1234567890abcdef")).toBe(false);
  });
});

describe("control-plane values (docs/upstream-facts.md §1.8)", () => {
  const cfg = control({
    addons: JSON.stringify({
      llm: { enabled: true },
      vanityGateway: { enabled: true },
      nvcfUi: { enabled: true },
    }),
    accounts: JSON.stringify({
      registryCredentials: [
        { registryHostname: "nvcr.io", secretName: "nvcr-containers", artifactTypes: ["CONTAINER"] },
        {
          registryHostname: "charts.example.org",
          secretName: "charts",
          artifactTypes: ["HELM"],
          tags: ["team-a", "gpu"],
          description: "team charts",
        },
      ],
    }),
  });
  const v = (r: string) => controlValues(r, cfg, secrets) as V;

  test("every catalog release has a builder", () => {
    expect([...CONTROL_VALUES_RELEASES].sort()).toEqual(CONTROL_PLANE_RELEASES.map((r) => r.name).sort());
  });

  test("each release gets only the top-level key its chart reads", () => {
    for (const r of CONTROL_PLANE_RELEASES) {
      if (r.valuesKey === null) continue;
      expect([r.name, Object.keys(v(r.name))]).toEqual([r.name, [r.valuesKey]]);
    }
  });

  test("one Cassandra password feeds DEFAULT_CASSANDRA_PASSWORD and serviceRolePassword", () => {
    const env = v("openbao-server").openbao.migrations.env as { name: string; value: string }[];
    expect(env.map((e) => e.name)).toEqual([
      "DEFAULT_CASSANDRA_PASSWORD",
      "NVCF_API_SIDECARS_IMAGE_PULL_SECRET",
      "ADMIN_CLIENT_ID",
    ]);
    expect(env[0].value).toBe("cass-pw");
    expect(v("cassandra").cassandra.serviceRolePassword).toBe("cass-pw");
    expect(env[2].value).toBe("ncp");
    expect(Buffer.from(env[1].value, "base64").toString()).toBe("$oauthtoken:k1");
  });

  test("cassandra", () => {
    expect(v("cassandra").cassandra).toMatchObject({
      global: { imagePullSecrets: [{ name: "nvcr-pull-secret" }] },
      replicaCount: 3,
      resourcesPreset: "xlarge",
      persistence: { size: "10Gi" },
      image: { registry: REG, repository: `${REPO}/cassandra` },
      migrations: { image: { repository: `${REPO}/nvcf-cassandra-migrations` } },
    });
    expect(v("cassandra").cassandra.global.defaultStorageClass).toBeUndefined();
    const withSc = controlValues(
      "cassandra",
      control({ storage: JSON.stringify({ className: "gp3", size: "50Gi" }) }),
      secrets,
    ) as V;
    expect(withSc.cassandra.global.defaultStorageClass).toBe("gp3");
    expect(withSc.cassandra.persistence.size).toBe("50Gi");
  });

  test("openbao: issuer discovery passes through, injector and server images", () => {
    const o = v("openbao-server").openbao;
    expect(o.migrations.issuerDiscovery).toEqual({ enabled: false });
    expect(o.injector).toMatchObject({
      replicas: 2,
      image: { repository: `${REPO}/oss-vault-k8s` },
      agentImage: { repository: `${REPO}/nvcf-openbao` },
      podDisruptionBudget: { minAvailable: 1 },
    });
    expect(o.server.image.repository).toBe(`${REPO}/nvcf-openbao`);
  });

  test("nats: pinned image tags and pull-secret names", () => {
    const n = v("nats").nats;
    expect(n.global.image.pullSecretNames).toEqual(["nvcr-pull-secret"]);
    expect(n.container.image).toMatchObject({ repository: `${REPO}/nats-server`, tag: "2.11.17-alpine3.22" });
    expect(n.reloader.image.tag).toBe("0.23.0");
    expect(n.natsBox.container.image.tag).toBe("0.19.7-nonroot");
  });

  test("api: fullname, sidecar env, account bootstrap with encoded credentials and limits", () => {
    const a = v("api").api;
    expect(a.fullnameOverride).toBe("nvcf-api");
    expect(a.env).toMatchObject({
      NVCF_NATS_REGION_PLACEMENT_TAG: "dc",
      NVCF_SIDECARS_HOSTNAME: REG,
      NVCF_SIDECARS_REPOSITORY: REPO,
    });
    expect(a.accountBootstrap.image).toEqual({
      registry: REG,
      repository: `${REPO}/alpine-k8s`,
      tag: "1.36.1",
      pullPolicy: "IfNotPresent",
    });
    expect(a.accountBootstrap.limits).toEqual({
      maxFunctions: 10,
      maxTasks: 10,
      maxTelemetries: 10,
      maxRegistryCreds: 10,
    });
    expect(a.accountBootstrap.registryCredentials).toEqual([
      {
        registryHostname: "nvcr.io",
        secret: { name: "nvcr-containers", value: dockerAuth("u", "k2") },
        artifactTypes: ["CONTAINER"],
        tags: [],
        description: "",
      },
      // Tags and description reach the chart's account-bootstrap payload as configured.
      {
        registryHostname: "charts.example.org",
        secret: { name: "charts", value: dockerAuth("u", "k3") },
        artifactTypes: ["HELM"],
        tags: ["team-a", "gpu"],
        description: "team charts",
      },
    ]);
    expect(a.remoteConfig.configData.nvcf["llm-request-router"]["worker-address"]).toBe(
      "llm-request-router.nvcf.svc.cluster.local:50071",
    );
  });

  test("fullname overrides of the services", () => {
    expect(v("invocation-service").invocation.fullnameOverride).toBe("invocation-service");
    expect(v("grpc-proxy").grpcproxy.fullnameOverride).toBe("grpc-proxy");
    expect(v("ess-api").ess.fullnameOverride).toBe("ess-api");
    expect(v("notary-service").notary.fullnameOverride).toBe("notary-service");
    expect(v("sis").sis.fullnameOverride).toBe("spot-instance-service");
    expect(v("api-keys").apikeys.fullnameOverride).toBe("api-keys");
    expect(v("reval").reval).toMatchObject({
      fullnameOverride: "reval",
      securityContext: { runAsNonRoot: true, runAsUser: 65532 },
    });
    expect(v("admin-issuer-proxy").adminIssuerProxy.fullnameOverride).toBe("admin-token-issuer-proxy");
  });

  test("invocation: rate limiter env when the rate limiter is on", () => {
    expect(v("invocation-service").invocation.env).toMatchObject({
      RATE_LIMIT_ENABLED: "true",
      RATE_LIMIT_ADDRESS: "http://ratelimiter.nvcf.svc.cluster.local:7777",
    });
    const off = controlValues(
      "invocation-service",
      control({ rateLimiter: '{"enabled": false}' }),
      secrets,
    ) as V;
    expect(off.invocation.env.RATE_LIMIT_ENABLED).toBeUndefined();
  });

  test("grpc-proxy: no replicaCount or autoscaling is emitted (docs/upstream-facts.md §1.8)", () => {
    expect(v("grpc-proxy").grpcproxy.replicaCount).toBeUndefined();
    expect(v("grpc-proxy").grpcproxy.deployment).toBeUndefined();
  });

  test("admin issuer proxy route", () => {
    expect(v("admin-issuer-proxy").adminIssuerProxy.gateway).toEqual({
      enabled: true,
      namespace: "envoy-gateway",
      gatewayRef: { name: "nvcf-gateway" },
      hostname: "api-keys.nvcf.example.com",
      path: "/v1/admin/keys",
    });
  });

  test("gateway routes", () => {
    const g = v("ingress").nvcfGatewayRoutes;
    expect(g.domain).toBe("nvcf.example.com");
    expect(g.gateways).toEqual({
      shared: { name: "nvcf-gateway", namespace: "envoy-gateway" },
      grpc: { name: "nvcf-gateway", namespace: "envoy-gateway" },
    });
    expect(g.routes.nvcfApi.grpc.hostnames).toEqual(["api-grpc.nvcf.example.com"]);
    expect(g.routes.nvctApi.grpc.hostnames).toEqual(["tasks-grpc.nvcf.example.com"]);
    expect(g.routes.vanityGateway).toMatchObject({
      enabled: true,
      hostnames: ["vanity.nvcf.example.com"],
      backend: { name: "vanity-gateway", namespace: "nvcf", port: 8080 },
    });
    expect(g.routes.llmInvocation.backend).toEqual({
      name: "llm-api-gateway",
      namespace: "nvcf",
      port: 8080,
    });
    expect(g.routes.llmInvocation.enabled).toBe(true);
  });

  test("state metrics: the chart value enabled is hard-coded false (docs/upstream-facts.md §1.8)", () => {
    expect(v("state-metrics").stateMetrics.enabled).toBe(false);
  });

  test("function autoscaler reads the bundled VictoriaMetrics and the API under the names the app reads", () => {
    // The autoscaler's settings: section `timeseries_db` field `timeseries_db_url`, section `nvcf_api` field
    // `nvcf_api_grpc_address` (src/control-plane-services/function-autoscaler settings), env `<SECTION>__<FIELD>`.
    const env = v("function-autoscaler").functionautoscaler.env;
    expect(env.TIMESERIES_DB__TIMESERIES_DB_URL).toBe("http://vmsingle.monitoring.svc.cluster.local:8428");
    expect(env.NVCF_API__NVCF_API_GRPC_ADDRESS).toBe("http://api.nvcf.svc.cluster.local:9090");
    expect(env.TIMESERIES_DB__URL).toBeUndefined();
    expect(env.NVCF_API__GRPC_ADDRESS).toBeUndefined();
    expect(env).toMatchObject({
      CONFIG: "/etc/server/config/settings-local.yaml",
      TIMESERIES_DB__AUTH_MODE: "none",
      TIMESERIES_DB__IGNORE_ENV: "true",
      NVCF_API__DISABLE_AUTH: "false",
    });
  });

  test("node selectors and tolerations only when enabled, per type with fallback to all", () => {
    expect(v("cassandra").cassandra.nodeSelector).toBeUndefined();
    const placed = control({
      placement: JSON.stringify({
        nodeSelectors: {
          enabled: true,
          all: { key: "pool", value: "nvcf" },
          cassandra: { key: "nvcf.nvidia.com/workload", value: "cassandra" },
          controlplane: null,
        },
        tolerations: { enabled: true, all: [{ key: "dedicated", operator: "Exists" }] },
      }),
    });
    expect((controlValues("cassandra", placed, secrets) as V).cassandra.nodeSelector).toEqual({
      "nvcf.nvidia.com/workload": "cassandra",
    });
    expect((controlValues("api", placed, secrets) as V).api.nodeSelector).toEqual({ pool: "nvcf" });
    // base.yaml's per-type terms apply unless a type is set to null: vault keeps nvcf.nvidia.com/workload=vault.
    expect((controlValues("openbao-server", placed, secrets) as V).openbao.server.nodeSelector).toEqual({
      "nvcf.nvidia.com/workload": "vault",
    });
    const onlyOn = control({ placement: JSON.stringify({ nodeSelectors: { enabled: true } }) });
    expect((controlValues("api", onlyOn, secrets) as V).api.nodeSelector).toEqual({
      "nvcf.nvidia.com/workload": "control-plane",
    });
    expect((controlValues("api", placed, secrets) as V).api.tolerations).toEqual([
      { key: "dedicated", operator: "Exists" },
    ]);
  });

  test("no pull secret referenced when nodes authenticate to the registry", () => {
    const noSecret = control({ pullSecret: '{"name": null}' });
    // NVIDIA's stack writes the key only for a non-empty list.
    for (const [r, key] of [
      ["api", "api"],
      ["sis", "sis"],
      ["reval", "reval"],
    ] as const)
      expect(Object.keys((controlValues(r, noSecret, secrets) as V)[key])).not.toContain("imagePullSecrets");
    expect((controlValues("nats", noSecret, secrets) as V).nats.global).toBeUndefined();
    expect(
      (controlValues("cassandra", noSecret, secrets) as V).cassandra.global?.imagePullSecrets,
    ).toBeUndefined();
  });

  test("per-release overrides merge last: maps merge, lists replace", () => {
    const over = control({
      releaseValues: JSON.stringify({
        cassandra: {
          cassandra: {
            replicaCount: 5,
            global: { imagePullSecrets: [{ name: "other" }] },
            resources: { limits: { cpu: "8" } },
          },
        },
      }),
    });
    const c = (controlValues("cassandra", over, secrets) as V).cassandra;
    expect(c.replicaCount).toBe(5);
    expect(c.global.imagePullSecrets).toEqual([{ name: "other" }]);
    expect(c.global.defaultStorageClass).toBeUndefined();
    expect(c.resources).toEqual({ limits: { cpu: "8" } });
  });
});

describe("values where the charts and applications read them (NVIDIA/nvcf HEAD and v0.7.0)", () => {
  const llm = (pki: object, extra: Record<string, string> = {}) =>
    control({ addons: JSON.stringify({ llm: { enabled: true, pki } }), ...extra });
  const ROUTER_DNS = [
    "llm-request-router.nvcf.svc.cluster.local",
    "*.llm-request-router-headless.nvcf.svc.cluster.local",
  ];
  const managed = {
    enabled: true,
    dnsNames: ROUTER_DNS,
    allowedDomains: "nvcf.example.com",
    imageTag: "0.18.0",
  };
  const traced = control({
    observability: JSON.stringify({
      tracing: { enabled: true, collectorEndpoint: "otel.monitoring", collectorPort: 4318 },
    }),
  });
  const val = (r: string, c: ControlPlaneConfig) => controlValues(r, c, secrets) as V;

  test("grpc-proxy: the rate limiter under RATE_LIMIT_ADDR (proxy.go mapstructure tag)", () => {
    const env = val("grpc-proxy", control()).grpcproxy.env;
    expect(env.RATE_LIMIT_ADDR).toBe("http://ratelimiter.nvcf.svc.cluster.local:7777");
    expect(env.RATE_LIMIT_ADDRESS).toBeUndefined();
    // The chart's default NATS_FQDN (in-cluster) stays unless a worker NATS URL is configured.
    expect(env.NATS_FQDN).toBeUndefined();
    const w = control({
      workerEndpoints: JSON.stringify({ nvcfNatsServiceURL: "nats://nats.example.com:4222" }),
    });
    expect(val("grpc-proxy", w).grpcproxy.env.NATS_FQDN).toBe("nats://nats.example.com:4222");
  });

  test("Spring services: MANAGEMENT_TRACING_ENABLED off by default, the OTLP traces endpoint when on", () => {
    for (const [r, k] of [
      ["api", "api"],
      ["ess-api", "ess"],
      ["notary-service", "notary"],
      ["sis", "sis"],
    ] as const) {
      expect(val(r, control())[k].env.MANAGEMENT_TRACING_ENABLED).toBe("false");
      expect(val(r, traced)[k].env).toMatchObject({
        MANAGEMENT_TRACING_ENABLED: "true",
        MANAGEMENT_OTLP_TRACING_ENDPOINT: "http://otel.monitoring:4318/v1/traces",
      });
    }
    expect(val("sis", control()).sis.env).toMatchObject({
      MANAGEMENT_PROMETHEUS_METRICS_EXPORT_ENABLED: "false",
      MANAGEMENT_METRICS_ENABLE_ALL: "false",
    });
  });

  test("invocation: the log filter turns the OTLP exporter off unless tracing is on", () => {
    const off = val("invocation-service", control()).invocation.env.SERVER__ENVFILTER_DIRECTIVE as string;
    expect(off.split(",")).toEqual(expect.arrayContaining(["otel::tracing=off", "otel=off"]));
    expect(val("invocation-service", traced).invocation.env).toEqual(
      expect.objectContaining({
        SERVER__TRACING__ENDPOINT_IP: "http://otel.monitoring",
        SERVER__TRACING__ENDPOINT_PORT: 4318,
      }),
    );
  });

  test("nvcf-pki: the ClusterIssuer under clusterIssuer.enabled / path / auth.* (deploy/helm/nvcf-pki/values.yaml)", () => {
    const ci = val("nvcf-pki", llm(managed)).clusterIssuer;
    expect(ci).toEqual({
      enabled: true,
      name: "nvcf-openbao-pki",
      server: "http://openbao-server.vault-system.svc.cluster.local:8200",
      path: "services/all/pki/nvcf-service-issuing/sign/nvcf-service-server",
      auth: {
        mountPath: "/v1/auth/jwt",
        role: "cert-manager",
        serviceAccount: {
          name: "cert-manager",
          audience: "http://openbao-server.vault-system.svc.cluster.local:8200",
        },
      },
    });
  });

  test("llm-request-router: certificate, TLS mount and the managed PKI hook", () => {
    const r = val("llm-request-router", llm(managed)).llmRequestRouter;
    expect(r.certificate).toEqual({
      enabled: true,
      secretName: "stargate-quic-tls",
      issuerRef: { kind: "ClusterIssuer", name: "nvcf-openbao-pki" },
      dnsNames: ROUTER_DNS,
    });
    expect(r.tls).toEqual({
      secretName: "stargate-quic-tls",
      mountPath: "/etc/stargate/tls",
      certPath: "/etc/stargate/tls/tls.crt",
      keyPath: "/etc/stargate/tls/tls.key",
      quicInsecure: false,
    });
    expect(r.pki).toMatchObject({
      enabled: true,
      namespace: "vault-system",
      allowedDomains: "nvcf.example.com",
    });
    expect(r.pki.image).toEqual({
      registry: REG,
      repository: `${REPO}/nvcf-openbao-migrations`,
      tag: "0.18.0",
      pullPolicy: "IfNotPresent",
    });
    expect(r.service).toEqual({ grpcPort: 50071 });
    const own = val(
      "llm-request-router",
      llm({ enabled: true, mode: "existingSecret", secretName: "mine" }),
    ).llmRequestRouter;
    expect(own.certificate).toEqual({ enabled: false });
    // ON PURPOSE: chart 1.7.2 reads no tls.mode; the Secret is mounted by name.
    expect(own.tls).toMatchObject({ secretName: "mine" });
    expect(own.tls.mode).toBeUndefined();
    expect(own.pki).toBeUndefined();
  });

  test("otel-collector: `image` is one string; default monitors by plane; only the monitor CRDs", () => {
    const o = val("otel-collector", control());
    expect(typeof o.image).toBe("string");
    expect(o.image).toMatch(/^ghcr\.io\/open-telemetry\/.+opentelemetry-collector-contrib:0\.129\.1$/);
    expect(o.config.exporters.prometheusremotewrite.endpoint).toBe(
      "http://vmsingle.monitoring.svc.cluster.local:8428/api/v1/write",
    );
    const m = val("default-monitors", control());
    expect(Object.keys(m).sort()).toEqual(["commonLabels", "computePlane", "controlPlane"]);
    expect([m.controlPlane.enabled, m.computePlane.enabled]).toEqual([true, false]);
    const all = val("default-monitors", control({ observability: '{"profile": "all"}' }));
    expect([all.controlPlane.enabled, all.computePlane.enabled]).toEqual([true, true]);
    const crds = val("prometheus-operator-crds", control()).crds as Record<string, { enabled: boolean }>;
    expect(
      Object.keys(crds)
        .filter((k) => crds[k].enabled)
        .sort(),
    ).toEqual(["podmonitors", "servicemonitors"]);
    expect(Object.keys(crds)).toHaveLength(10);
  });

  test("victoria-metrics: server.fullnameOverride, size, retention, resources, ServiceMonitor", () => {
    expect(val("victoria-metrics", control()).server).toEqual({
      fullnameOverride: "vmsingle",
      retentionPeriod: "1",
      persistentVolume: { enabled: true, size: "16Gi" },
      resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { cpu: "1", memory: "1Gi" } },
      serviceMonitor: { enabled: true },
    });
  });

  test("account bootstrap defaults to the three NGC registries of the secrets template", () => {
    const c = control();
    const three = [
      { registryHostname: "nvcr.io", secretName: "nvcr-containers", artifactTypes: ["CONTAINER"] },
      { registryHostname: "helm.ngc.nvidia.com", secretName: "nvcr-containers", artifactTypes: ["HELM"] },
      {
        registryHostname: "api.ngc.nvidia.com",
        secretName: "ngc-model",
        artifactTypes: ["MODEL", "RESOURCE"],
      },
    ];
    expect(c.accounts.registryCredentials).toMatchObject(three);
    const creds = controlValues("api", c, { ...secrets, functionAuth: ["a", "b", "c"] }).api as V;
    expect(creds.accountBootstrap.registryCredentials.map((r: V) => r.secret.value)).toEqual(["a", "b", "c"]);
  });

  test("ON PURPOSE: nats-auth-callout-service's image from the mirror, in the flat key the chart reads", () => {
    // deploy/helm/nats-auth-callout: flat values, `image.repository` holds the whole reference, no image.registry.
    expect(val("nats-auth-callout-service", control())).toEqual({
      imagePullSecrets: [{ name: "nvcr-pull-secret" }],
      image: { repository: `${REG}/${REPO}/nvcf-nats-auth-callout-service` },
    });
  });

  test("ON PURPOSE: keys the pinned chart never reads are not passed", () => {
    const c = control({ addons: JSON.stringify({ llm: { enabled: true } }) });
    // helm-nvcf-cassandra 0.20.1 renders its own StatefulSet: no `initialization`, no `global.security`;
    // 0.17.0 (bundle 0.7.0) runs the Bitnami subchart, which reads `global.security.allowInsecureImages`.
    const cass = val("cassandra", c).cassandra;
    expect(cass.initialization).toBeUndefined();
    expect(cass.global.security).toBeUndefined();
    expect(val("cassandra", control({ bundleVersion: "0.7.0" })).cassandra.global.security).toEqual({
      allowInsecureImages: true,
    });
    // The NATS chart renders its NKeys as Secrets: no nkey job.
    expect(val("nats", c).nats.nkeyJob).toBeUndefined();
    // Pinned charts without a PodDisruptionBudget template: ess-api 1.7.2, function-autoscaler 0.2.1,
    // rate-limiter 1.1.0, invocation-service 1.5.6, admin-token-issuer-proxy 1.4.3.
    for (const [r, k] of [
      ["ess-api", "ess"],
      ["function-autoscaler", "functionautoscaler"],
      ["ratelimiter", "rateLimiter"],
      ["invocation-service", "invocation"],
      ["admin-issuer-proxy", "adminIssuerProxy"],
    ] as const)
      expect([r, val(r, c)[k].podDisruptionBudget]).toEqual([r, undefined]);
    // ...and the ones that have one (api-keys 1.6.0, grpc-proxy 1.7.1, llm-* 1.4.1/1.7.2) get base.yaml's knob.
    for (const [r, k] of [
      ["api-keys", "apikeys"],
      ["grpc-proxy", "grpcproxy"],
      ["llm-request-router", "llmRequestRouter"],
      ["llm-api-gateway", "llmApiGateway"],
    ] as const)
      expect([r, val(r, c)[k].podDisruptionBudget]).toEqual([r, { enabled: false, maxUnavailable: 1 }]);
    // The proxy reads no TRACING variable; nvct-api binds only nvct.ess.base-url; the LLM charts read no `enabled`.
    expect(val("grpc-proxy", c).grpcproxy.env?.TRACING).toBeUndefined();
    const ess = control({ workerEndpoints: JSON.stringify({ essServiceURL: "http://ess.example.com" }) });
    expect(val("nvct-api", ess).nvctApi.env).toMatchObject({ NVCT_ESS_BASE_URL: "http://ess.example.com" });
    expect(val("nvct-api", ess).nvctApi.env.NVCT_ESS_WORKER_BASE_URL).toBeUndefined();
    expect(val("llm-request-router", c).llmRequestRouter.enabled).toBeUndefined();
    expect(val("llm-api-gateway", c).llmApiGateway.enabled).toBeUndefined();
    // The default-monitors chart reads dcgm's selectors under computePlane.dcgm, not under computePlane.
    const cp = val("default-monitors", c).computePlane;
    expect([cp.namespaceSelector, cp.selector]).toEqual([undefined, undefined]);
  });

  test("ON PURPOSE: placement only where the chart reads it (grpc-proxy under deployment.*, none for api-keys)", () => {
    const placed = control({
      placement: JSON.stringify({
        nodeSelectors: { enabled: true, controlplane: { key: "pool", value: "cp" } },
        tolerations: { enabled: true, all: [{ key: "dedicated", operator: "Exists" }] },
      }),
    });
    const g = val("grpc-proxy", placed).grpcproxy;
    expect(g.deployment).toEqual({
      nodeSelector: { pool: "cp" },
      tolerations: [{ key: "dedicated", operator: "Exists" }],
    });
    expect([g.nodeSelector, g.tolerations]).toEqual([undefined, undefined]);
    const k = val("api-keys", placed).apikeys;
    expect([k.nodeSelector, k.tolerations]).toEqual([undefined, undefined]);
    // ess-api's chart has a nodeSelector but no tolerations value.
    const e = val("ess-api", placed).ess;
    expect([e.nodeSelector, e.tolerations]).toEqual([{ pool: "cp" }, undefined]);
  });

  test("ON PURPOSE: the rate limiter and vanity gateway get the pool's tolerations with its node selector", () => {
    const placed = control({
      addons: JSON.stringify({ vanityGateway: { enabled: true } }),
      placement: JSON.stringify({
        nodeSelectors: { enabled: true, controlplane: { key: "pool", value: "cp" } },
        tolerations: { enabled: true, all: [{ key: "dedicated", operator: "Exists" }] },
      }),
    });
    for (const [r, k] of [
      ["ratelimiter", "rateLimiter"],
      ["vanity-gateway", "vanityGateway"],
    ] as const) {
      expect(val(r, placed)[k].nodeSelector).toEqual({ pool: "cp" });
      expect(val(r, placed)[k].tolerations).toEqual([{ key: "dedicated", operator: "Exists" }]);
    }
  });

  test("an empty per-type toleration list falls back to `all` (the stack's nvcf.tolerations helper)", () => {
    const c = control({
      placement: JSON.stringify({
        tolerations: { enabled: true, all: [{ key: "a", operator: "Exists" }], cassandra: [] },
      }),
    });
    expect(val("cassandra", c).cassandra.tolerations).toEqual([{ key: "a", operator: "Exists" }]);
    const none = control({ placement: JSON.stringify({ tolerations: { enabled: true } }) });
    expect(val("cassandra", none).cassandra.tolerations).toBeUndefined();
  });

  test("bundle 0.6.1 (docs/v0.6.1/manifest.md): images cassandra and ess-api, no seed discovery", () => {
    const b061 = control({ bundleVersion: "0.6.1" });
    expect(val("cassandra", b061).cassandra.image.repository).toBe(`${REPO}/cassandra`);
    expect(val("cassandra", b061).cassandra.dynamicSeedDiscovery).toBeUndefined();
    expect(val("ess-api", b061).ess.image.repository).toBe(`${REPO}/ess-api`);
  });

  test("bundle 0.7.0 gets the v0.7.0 stack's values", () => {
    const old = control({ bundleVersion: "0.7.0" });
    const c = val("cassandra", old).cassandra;
    expect(c.image.repository).toBe(`${REPO}/bitnami-cassandra`);
    expect(c.dynamicSeedDiscovery.image).toEqual({ registry: REG, repository: `${REPO}/bitnami-cassandra` });
    expect(c.podDisruptionBudget).toBeUndefined();
    expect(val("ess-api", old).ess.image.repository).toBe(`${REPO}/ess-api`);
    expect(val("ess-api", control()).ess.image.repository).toBe(`${REPO}/nvcf-ess`);
    const env = val("api", old).api.env;
    expect(env.NVCF_REGISTRIES_NGC_CONTAINER_REGISTRY_URL).toBe("https://nvcr.io");
    expect(Object.keys(env).filter((k) => k.startsWith("NVCF_REGISTRIES_"))).toHaveLength(14);
    expect(
      Object.keys(val("api", control()).api.env).filter((k) => k.startsWith("NVCF_REGISTRIES_")),
    ).toEqual([]);
    expect(val("openbao-server", old).openbao.server.ha).toBeUndefined();
    // 0.7.0's router provisions its own PKI; no nvcf-pki release and no issuer choice.
    const r = val("llm-request-router", llm(managed, { bundleVersion: "0.7.0" })).llmRequestRouter;
    expect(r.pki).toMatchObject({ enabled: true, allowedDomains: "nvcf.example.com" });
    expect(r.service).toBeUndefined();
    expect(val("api", llm(managed, { bundleVersion: "0.7.0" })).api.remoteConfig).toBeUndefined();
  });
});

test("deepMerge: later layers win, maps merge, lists and scalars replace, inputs untouched", () => {
  const a = { x: { y: 1, l: [1, 2] }, s: "a" };
  const b = { x: { z: 2, l: [3] }, s: "b" };
  expect(deepMerge(a, b, undefined)).toEqual({ x: { y: 1, z: 2, l: [3] }, s: "b" });
  expect(a).toEqual({ x: { y: 1, l: [1, 2] }, s: "a" });
});

describe("a change to one service's settings changes only that release", () => {
  const all = (cfg: ControlPlaneConfig) =>
    Object.fromEntries(
      CONTROL_VALUES_RELEASES.map((r) => [r, JSON.stringify(controlValues(r, cfg, secrets))]),
    );
  const changed = (over: Record<string, string>) => {
    const before = all(control());
    const after = all(control(over));
    return Object.keys(before)
      .filter((k) => before[k] !== after[k])
      .sort();
  };
  test.each([
    [{ rateLimiter: '{"replicaCount": 3}' }, ["ratelimiter"]],
    [{ cassandra: '{"replicas": 5}' }, ["cassandra"]],
    [{ openbao: '{"injectorReplicas": 3}' }, ["openbao-server"]],
    [{ accounts: '{"limits": {"maxFunctions": 20}}' }, ["api"]],
    [{ releaseValues: '{"sis": {"sis": {"replicaCount": 2}}}' }, ["sis"]],
    [{ grpcproxy: '{"workerConnectBaseURL": "grpc.example.com:10086"}' }, ["grpc-proxy"]],
  ])("%j changes %j", (over, want) => {
    expect(changed(over as Record<string, string>)).toEqual(want);
  });
});

/** What a control plane hands a GPU cluster in these tests (stacks/compute.ts `computeInputs`). */
const COMPUTE_INPUTS: ComputeInputs = {
  imageRegistry: REG,
  imageRepository: REPO,
  clusterID: "c-1",
  clusterGroupID: "g-1",
  ncaID: "nvcf-default",
  region: "eu-north-1",
  icmsServiceURL: "http://gw.example.com",
  revalServiceURL: "http://gw.example.com",
  natsURL: "nats://gw.example.com:4222",
  icmsHost: "sis.nvcf.example.com",
  revalHost: "reval.nvcf.example.com",
  natsHost: "nats.nvcf.example.com",
};

describe("compute-plane values (NVIDIA's nvcf-compute-plane stack, helm-nvca-operator 1.14.0 / 1.21.3)", () => {
  const inputs = COMPUTE_INPUTS;
  const ALL = JSON.stringify({
    kaiScheduler: { enabled: true },
    groveOperator: { enabled: true },
    dynamoOperator: { enabled: true },
    topologyAwareScheduling: { enabled: true },
  });
  const op = (over: Record<string, string> = {}, inp: ComputeInputs = inputs) =>
    nvcaOperatorValues(compute(over), inp) as V;

  test("0.8.0 operator values carry the registration identity and the stack's pins where the chart reads them", () => {
    const v = op();
    expect(v).toMatchObject({
      clusterID: "c-1",
      clusterGroupID: "g-1",
      ncaID: "nvcf-default",
      clusterName: "gpu-a",
      generateImagePullSecret: false,
      ngcConfig: { clusterSource: "self-managed" },
      image: { repository: `${REG}/${REPO}/nvca-operator`, tag: "3.2.7", pullPolicy: "IfNotPresent" },
      nvcaImage: { repositoryOverride: `${REG}/${REPO}/nvca`, pullPolicy: "IfNotPresent" },
      imagePullSecrets: [{ name: "nvcr-pull-secret" }],
    });
    expect(v.selfManaged).toMatchObject({
      nvcaVersion: "3.2.7",
      icmsServiceURL: "http://gw.example.com",
      icmsServiceHostHeaderOverride: "sis.nvcf.example.com",
      revalServiceHostHeaderOverride: "reval.nvcf.example.com",
      natsHostOverride: "nats.nvcf.example.com",
      otelCollector: { enabled: true, imageTag: "0.157.9" },
      imageCredHelper: { imageRepository: `${REG}/${REPO}/nvcf-image-credential-helper` },
      sharedStorage: { imageRepository: `${REG}/${REPO}/samba` },
    });
  });

  test("on purpose: the region goes to selfManaged.region and the NCA id only to ncaID (the keys the chart reads)", () => {
    const v = op();
    expect(v.selfManaged.region).toBe("eu-north-1");
    expect(v.region).toBeUndefined();
    expect(v.ncaId).toBeUndefined();
  });

  test("on purpose: keys no helm-nvca-operator template or values.yaml has are not sent", () => {
    // NVIDIA's stack sends selfManaged.identitySource and webhookConfig.imageConfig.pullPolicy; charts
    // 1.14.0 and 1.21.3 read neither (their stand-ins refuse them).
    for (const b of ["0.7.0", "0.8.0"]) {
      const v = op({ bundleVersion: b });
      expect(v.selfManaged.identitySource).toBeUndefined();
      expect(v.webhookConfig).toBeUndefined();
    }
  });

  test("keys NVIDIA's template sends only when non-empty are left out when empty", () => {
    const v = op({ pullSecret: '{"name": null}' }, { ...inputs, icmsHost: "", revalHost: "", natsHost: "" });
    expect(v.imagePullSecrets).toBeUndefined();
    for (const k of ["icmsServiceHostHeaderOverride", "revalServiceHostHeaderOverride", "natsHostOverride"])
      expect(v.selfManaged[k]).toBeUndefined();
    expect(v.tolerations).toBeUndefined();
    expect(v.agent).toBeUndefined();
    expect(v.nodeSelector).toBeUndefined();
  });

  test("host-header overrides can be turned off", () => {
    expect(
      op({ nvcaOperator: '{"hostHeaderOverrides": false}' }).selfManaged.icmsServiceHostHeaderOverride,
    ).toBeUndefined();
  });

  test("0.7.0 leaves image tags, NVCA version, collector tag and the pull-secret switches to chart 1.14.0", () => {
    const v = op({
      bundleVersion: "0.7.0",
      addons: JSON.stringify({ groveOperator: { enabled: true }, dynamoOperator: { enabled: true } }),
    });
    expect(v.image).toEqual({ repository: `${REG}/${REPO}/nvca-operator`, pullPolicy: "IfNotPresent" });
    expect(v.selfManaged.nvcaVersion).toBeUndefined();
    expect(v.selfManaged.otelCollector).toEqual({ enabled: true });
    expect(v.generateImagePullSecret).toBeUndefined();
    expect(v.ngcConfig).toBeUndefined();
    // The v0.7.0 compute stack adds no add-on types and neither the KAIScheduler nor the Dynamo gate.
    expect(v.agentConfig).toBeUndefined();
    expect(v.selfManaged.featureGateValues).not.toContain("DynamoOperatorSupport");
  });

  test("0.6.1 pins NVCA and the operator image at 3.0.3 (docs/user/manifest.md)", () => {
    const v = op({ bundleVersion: "0.6.1" });
    expect(v.image.tag).toBe("3.0.3");
    expect(v.selfManaged.nvcaVersion).toBe("3.0.3");
  });

  test("a user tag wins over the bundle pin in every bundle", () => {
    for (const b of ["0.6.1", "0.7.0", "0.8.0"]) {
      const v = op({ bundleVersion: b, nvcaOperator: '{"imageTag": "9.9.9", "nvcaVersion": "9.9.8"}' });
      expect([v.image.tag, v.selfManaged.nvcaVersion]).toEqual(["9.9.9", "9.9.8"]);
    }
  });

  test("with every add-on, NVCA's validation policy lists the 12 kinds with the resource the chart requires", () => {
    const v = computeValues("nvca-operator", compute({ addons: ALL }), inputs) as V;
    const mc = yaml.load(v.agentConfig.mergeConfig) as V;
    expect(mc.cluster.validationPolicy.name).toBe("Default");
    const types = mc.cluster.validationPolicy.allowedExtraKubernetesTypes as V[];
    expect(types).toHaveLength(12);
    expect(types).toContainEqual({
      group: "scheduling.run.ai",
      version: "v2alpha2",
      kind: "PodGroup",
      resource: "podgroups",
    });
    expect(types).toContainEqual({
      group: "scheduler.grove.io",
      version: "v1alpha1",
      kind: "PodGang",
      resource: "podgangs",
    });
    expect(types).toContainEqual({
      group: "nvidia.com",
      version: "v1alpha1",
      kind: "DynamoWorkerMetadata",
      resource: "dynamoworkermetadatas",
    });
    // helm-nvca-operator's rbac_allowed_extra_types.yaml fails on an entry without `resource`.
    for (const t of types) expect(t.resource).toMatch(/^[a-z]+s$/);
  });

  test("the user's own merge config is kept: its entries win, its policy name stays", () => {
    const user =
      "cluster:\n  validationPolicy:\n    name: Unrestricted\n    allowedExtraKubernetesTypes:\n      - {group: grove.io, version: v1alpha1, kind: PodClique, resource: custom}\nagent: {x: 1}\n";
    const c = compute({
      addons: JSON.stringify({ kaiScheduler: { enabled: true }, groveOperator: { enabled: true } }),
      releaseValues: JSON.stringify({ "nvca-operator": { agentConfig: { mergeConfig: user } } }),
    });
    const mc = yaml.load(agentMergeConfig(c) ?? "") as V;
    expect(mc.agent).toEqual({ x: 1 });
    expect(mc.cluster.validationPolicy.name).toBe("Unrestricted");
    const cliques = (mc.cluster.validationPolicy.allowedExtraKubernetesTypes as V[]).filter(
      (t) => t.kind === "PodClique",
    );
    expect(cliques).toEqual([
      { group: "grove.io", version: "v1alpha1", kind: "PodClique", resource: "custom" },
    ]);
    expect(mc.cluster.validationPolicy.allowedExtraKubernetesTypes).toHaveLength(5);
  });

  test("placement reaches every release; the operator's own selector and tolerations override it for the operator", () => {
    const place = JSON.stringify({
      nodeSelector: { key: "pool", value: "gpu" },
      tolerations: [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }],
    });
    const c = compute({ placement: place, addons: ALL });
    const tol = [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }];
    const kai = computeValues("kai-scheduler", c, inputs) as V;
    expect(kai.global.nodeSelector).toEqual({ pool: "gpu" });
    expect(kai.global.tolerations).toEqual(tol);
    const grove = computeValues("grove-operator", c, inputs) as V;
    expect([grove.nodeSelector, grove.tolerations]).toEqual([{ pool: "gpu" }, tol]);
    const dyn = computeValues("dynamo-operator", c, inputs) as V;
    expect(
      dyn["dynamo-operator"].controllerManager.affinity.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution,
    ).toEqual({
      nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["gpu"] }] }],
    });
    expect(dyn.nats.podTemplate.merge.spec).toEqual({ nodeSelector: { pool: "gpu" }, tolerations: tol });
    expect(op({ placement: place })).toMatchObject({
      nodeSelector: { key: "pool", value: "gpu" },
      tolerations: tol,
    });
    const own = op({
      placement: place,
      nvcaOperator: '{"tolerations": [], "nodeSelector": {"key": "k", "value": "v"}}',
    });
    expect([own.nodeSelector, own.tolerations]).toEqual([{ key: "k", value: "v" }, undefined]);
  });

  test("KAI v0.16.7: placement strategy, actions and default queues at the chart's paths", () => {
    const v = computeValues("kai-scheduler", compute({ addons: ALL }), inputs) as V;
    expect(v.scheduler).toMatchObject({
      placementStrategy: "binpack",
      plugins: { nodeplacement: { arguments: { gpu: "binpack", cpu: "spread" } } },
      actions: { preempt: { enabled: false }, consolidation: { enabled: false } },
    });
    const unlimited = { quota: -1, limit: -1, overQuotaWeight: 1 };
    expect(v.defaultQueue).toEqual({
      createDefaultQueue: true,
      parentName: "default-parent-queue",
      childName: "default-queue",
      parentResources: { cpu: unlimited, gpu: unlimited, memory: unlimited },
      childResources: { cpu: unlimited, gpu: unlimited, memory: unlimited },
    });
    expect(v.global.securityContext).toEqual({
      runAsUser: 10000,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(v.global.imagePullSecrets).toEqual([{ name: "nvcr-pull-secret" }]);
    expect(v.scheduler.resources.requests).toEqual({ cpu: "500m", memory: "3Gi" });
  });

  test("images: upstream registries unless a mirror is set (KAI global.registry, Grove and Dynamo repositories)", () => {
    const plain = compute({ addons: ALL });
    expect((computeValues("kai-scheduler", plain, inputs) as V).global.registry).toBeUndefined();
    expect((computeValues("grove-operator", plain, inputs) as V).image.repository).toBe(
      "ghcr.io/ai-dynamo/grove/grove-operator",
    );
    expect(
      (computeValues("dynamo-operator", plain, inputs) as V)["dynamo-operator"].controllerManager.manager
        .image.repository,
    ).toBe("nvcr.io/nvidia/ai-dynamo/kubernetes-operator");
    const m = "mirror.example.com/3p";
    const mirrored = compute({
      addons: JSON.stringify({
        kaiScheduler: { enabled: true, imageRegistry: `${m}/kai` },
        groveOperator: { enabled: true, imageRegistry: `${m}/grove` },
        dynamoOperator: {
          enabled: true,
          imageRegistry: `${m}/dynamo`,
          natsImageRegistry: "mirror.example.com",
        },
      }),
      nvcaOperator: JSON.stringify({
        otelCollectorImageRepository: `${m}/otel`,
        byooOtelCollectorImageRepository: `${m}/byoo`,
      }),
    });
    expect((computeValues("kai-scheduler", mirrored, inputs) as V).global.registry).toBe(`${m}/kai`);
    const g = computeValues("grove-operator", mirrored, inputs) as V;
    expect(g.image.repository).toBe(`${m}/grove/grove-operator`);
    // The chart requires a tag next to the repository (crdInstaller.image needs both).
    expect(g.crdInstaller).toEqual({
      enabled: true,
      image: { repository: `${m}/grove/grove-install-crds`, tag: "v0.1.0-alpha.11" },
    });
    expect(g.deployment.env).toEqual([
      { name: "GROVE_INIT_CONTAINER_IMAGE", value: `${m}/grove/grove-initc` },
    ]);
    const d = computeValues("dynamo-operator", mirrored, inputs) as V;
    expect(d["dynamo-operator"].controllerManager.manager.image.repository).toBe(
      `${m}/dynamo/kubernetes-operator`,
    );
    expect([d.nats.container.image.registry, d.nats.reloader.image.registry]).toEqual([
      "mirror.example.com",
      "mirror.example.com",
    ]);
    const o = nvcaOperatorValues(mirrored, inputs) as V;
    expect(o.selfManaged.otelCollector.imageRepository).toBe(`${m}/otel`);
    expect(o.agent.byooOtelCollector.imageRepository).toBe(`${m}/byoo`);
  });

  test("images.thirdParty: mirror takes every add-on image from <registry>/<repository>/<upstream path>", () => {
    const b = `${REG}/${REPO}`;
    const c = compute({
      addons: ALL,
      images: '{"thirdParty": "mirror"}',
      observability: '{"profile": "all"}',
    });
    expect((computeValues("kai-scheduler", c, inputs) as V).global.registry).toBe(
      `${b}/kai-scheduler/kai-scheduler`,
    );
    const g = computeValues("grove-operator", c, inputs) as V;
    expect(g.image.repository).toBe(`${b}/ai-dynamo/grove/grove-operator`);
    expect(g.crdInstaller.image).toEqual({
      repository: `${b}/ai-dynamo/grove/grove-install-crds`,
      tag: "v0.1.0-alpha.11",
    });
    expect(g.deployment.env).toEqual([
      { name: "GROVE_INIT_CONTAINER_IMAGE", value: `${b}/ai-dynamo/grove/grove-initc` },
    ]);
    const d = computeValues("dynamo-operator", c, inputs) as V;
    expect(d["dynamo-operator"].controllerManager.manager.image.repository).toBe(
      `${b}/nvidia/ai-dynamo/kubernetes-operator`,
    );
    // The NATS chart composes <registry>/<repository>:<tag>; Docker Hub's `nats` keeps its short name.
    expect(d.nats.container.image).toEqual({ registry: REG, repository: `${REPO}/nats` });
    expect(d.nats.reloader.image).toEqual({
      registry: REG,
      repository: `${REPO}/natsio/nats-server-config-reloader`,
    });
    const o = nvcaOperatorValues(c, inputs) as V;
    expect(o.selfManaged.otelCollector.imageRepository).toBe(`${b}/nvidia/nvcf-byoc/nvcf-otel-collector`);
    expect(o.agent.byooOtelCollector.imageRepository).toBe(`${b}/nvidia/nvcf-byoc/byoo-otel-collector`);
    expect(o.clusterValidator).toEqual({
      image: { repository: `${b}/nvidia/nvcf-byoc/nvca-cluster-validator` },
    });
    expect(inotifyImages(c, inputs)).toEqual({
      initImage: `${b}/busybox:1.36`,
      pauseImage: `${b}/pause:3.9`,
    });
    // Unset (the default): the images NVIDIA's stack and the NVCA docs use.
    expect(inotifyImages(compute(), inputs)).toEqual({
      initImage: "busybox:1.36",
      pauseImage: "registry.k8s.io/pause:3.9",
    });
    // An explicit setting wins over the mirror.
    const own = compute({
      images: '{"thirdParty": "mirror"}',
      addons: JSON.stringify({ kaiScheduler: { enabled: true, imageRegistry: "own.example.com/kai" } }),
      inotify: '{"initImage": "own.example.com/tools:1"}',
    });
    expect((computeValues("kai-scheduler", own, inputs) as V).global.registry).toBe("own.example.com/kai");
    expect(inotifyImages(own, inputs).initImage).toBe("own.example.com/tools:1");
  });

  test("ON PURPOSE: Dynamo's operator and NATS reference the pull secret (NVIDIA's stack passes none)", () => {
    const d = computeValues("dynamo-operator", compute({ addons: ALL }), inputs) as V;
    expect(d["dynamo-operator"].imagePullSecrets).toEqual([{ name: "nvcr-pull-secret" }]);
    expect(d.nats.global).toEqual({ image: { pullSecretNames: ["nvcr-pull-secret"] } });
    const none = computeValues(
      "dynamo-operator",
      compute({ addons: ALL, pullSecret: '{"name": null}' }),
      inputs,
    ) as V;
    expect(none["dynamo-operator"].imagePullSecrets).toBeUndefined();
    expect(none.nats.global).toBeUndefined();
  });

  test("Grove: operator settings under config.*, tag per bundle, topology only with the 0.8.0 toggle", () => {
    const g8 = computeValues("grove-operator", compute({ addons: ALL }), inputs) as V;
    expect(g8.image.tag).toBe("v0.1.0-alpha.11");
    expect(g8.config.topologyAwareScheduling).toEqual({ enabled: true });
    expect(g8.config.leaderElection.resourceName).toBe("grove-operator-leader-election");
    expect(g8.config.server.webhooks).toEqual({
      port: 9443,
      certProvisionMode: "auto",
      secretName: "grove-webhook-server-cert",
    });
    expect(g8).toMatchObject({ webhookServerSecret: { enabled: false }, crdInstaller: { enabled: true } });
    expect(g8.topologyAwareScheduling).toBeUndefined();
    const g7 = computeValues(
      "grove-operator",
      compute({
        bundleVersion: "0.7.0",
        addons: JSON.stringify({ groveOperator: { enabled: true, network: { autoMNNVLEnabled: true } } }),
      }),
      inputs,
    ) as V;
    expect(g7.image.tag).toBe("v0.1.0-alpha.9");
    expect(g7.config.topologyAwareScheduling).toBeUndefined();
    expect(g7.config.network).toEqual({ autoMNNVLEnabled: true });
  });

  test("Dynamo: the umbrella's switches under global.*; on purpose JetStream, resources and metrics at the read paths", () => {
    const d = computeValues("dynamo-operator", compute({ addons: ALL }), inputs) as V;
    expect(d.global).toEqual({
      nats: { install: true },
      etcd: { enabled: false, install: false },
      grove: { enabled: true, install: false },
      "kai-scheduler": { enabled: false, install: false },
    });
    expect([d.grove, d.kaiScheduler, d.etcd]).toEqual([undefined, undefined, undefined]);
    // nats-io's chart reads JetStream under config.jetstream; NVIDIA's nats.jetstream is ignored by it.
    expect(d.nats.config.jetstream).toEqual({
      enabled: true,
      fileStore: { enabled: true, pvc: { enabled: true } },
    });
    expect(d.nats.jetstream).toBeUndefined();
    expect(d["dynamo-operator"]).toMatchObject({
      upgradeCRD: true,
      webhook: { failurePolicy: "Fail", certManager: { enabled: false } },
      namespaceRestriction: { enabled: false },
      metricsService: { enabled: true },
    });
    expect(d.metricsService).toBeUndefined();
    expect(d["dynamo-operator"].controllerManager.manager.resources).toEqual({
      limits: { memory: "2Gi" },
      requests: { cpu: "512m", memory: "1Gi" },
    });
    expect(d["dynamo-operator"].controllerManager.resources).toBeUndefined();
  });

  test("topology chart: kaiScheduler.enabled / groveOperator.enabled and levels[].nodeLabel", () => {
    const c = compute({ addons: ALL });
    const levels = [{ nodeLabel: "nvidia.com/gpu.clique" }, { nodeLabel: "kubernetes.io/hostname" }];
    expect(computeValues("nvcf-kai-topology", c, inputs)).toEqual({
      topologies: [{ name: "nvcf-mnnvl-topology", levels }],
      kaiScheduler: { enabled: true },
      groveOperator: { enabled: false },
    });
    expect(computeValues("nvcf-grove-topology", c, inputs)).toMatchObject({
      kaiScheduler: { enabled: false },
      groveOperator: { enabled: true },
    });
  });
});

describe("NVIDIA's observability stack on a GPU cluster (deploy/stacks/observability, profile compute)", () => {
  const obs = (release: string, over: Record<string, string> = {}) =>
    computeValues(release, compute(over), COMPUTE_INPUTS) as V;

  test("every compute-plane release of the catalog has a values builder", () => {
    expect([...COMPUTE_VALUES_RELEASES].sort()).toEqual(COMPUTE_PLANE_RELEASES.map((r) => r.name).sort());
  });

  test("default monitors: the compute group (NVCA ServiceMonitor in nvca-system, DCGM and worker PodMonitors), not the control group", () => {
    const m = obs("default-monitors");
    expect(m.commonLabels).toEqual({ "nvcf.nvidia.com/observability-target": "true" });
    expect([m.controlPlane.enabled, m.computePlane.enabled]).toEqual([false, true]);
    expect(m.computePlane.services).toEqual([
      {
        name: "nvca",
        enabled: true,
        namespaces: ["nvca-system"],
        port: "nvca",
        selector: { "app.kubernetes.io/name": "nvca" },
        labels: {},
      },
    ]);
    expect(m.computePlane.dcgm).toEqual({ enabled: true });
    expect(m.computePlane.worker).toMatchObject({
      enabled: true,
      namespaceSelector: { any: true },
      selector: { matchExpressions: [{ key: "icms-request-id", operator: "Exists" }] },
      port: "metrics",
    });
    const all = obs("default-monitors", { observability: '{"profile": "all"}' });
    expect([all.controlPlane.enabled, all.computePlane.enabled]).toEqual([true, true]);
  });

  test("the collector: Target Allocator selecting the monitors' label everywhere, writing to the cluster's own VictoriaMetrics", () => {
    const c = obs("otel-collector");
    expect(c.collectorName).toBe("nvcf-observability");
    expect(c.image).toBe(
      "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.129.1",
    );
    expect(c.targetAllocator).toMatchObject({
      enabled: true,
      allocationStrategy: "consistent-hashing",
      prometheusCR: {
        enabled: true,
        serviceMonitorSelector: { matchLabels: { "nvcf.nvidia.com/observability-target": "true" } },
        podMonitorSelector: { matchLabels: { "nvcf.nvidia.com/observability-target": "true" } },
        serviceMonitorNamespaceSelector: {},
        podMonitorNamespaceSelector: {},
      },
    });
    expect(c.targetAllocatorRbac).toEqual({ create: true });
    expect(c.imagePullSecrets).toEqual([{ name: "nvcr-pull-secret" }]);
    expect(c.config.exporters.prometheusremotewrite.endpoint).toBe(
      "http://vmsingle.monitoring.svc.cluster.local:8428/api/v1/write",
    );
    const elsewhere = obs("otel-collector", { observability: '{"namespace": "obs"}' });
    expect(elsewhere.config.exporters.prometheusremotewrite.endpoint).toBe(
      "http://vmsingle.obs.svc.cluster.local:8428/api/v1/write",
    );
    const external = obs("otel-collector", {
      observability: JSON.stringify({
        components: { discoveryRbac: "existing" },
        metricsBackend: {
          mode: "existing",
          type: "external",
          remoteWriteEndpoint: "https://m.example.com/w",
        },
      }),
    });
    expect(external.config.exporters.prometheusremotewrite.endpoint).toBe("https://m.example.com/w");
    expect(external.targetAllocatorRbac).toEqual({ create: false });
  });

  test("pull secret: this stack's, in every chart that takes one; none when the nodes authenticate themselves", () => {
    expect(obs("opentelemetry-operator").imagePullSecrets).toEqual([{ name: "nvcr-pull-secret" }]);
    expect(obs("victoria-metrics").global).toEqual({ imagePullSecrets: [{ name: "nvcr-pull-secret" }] });
    const none = { pullSecret: '{"name": null}' };
    expect(obs("opentelemetry-operator", none).imagePullSecrets).toBeUndefined();
    expect(obs("victoria-metrics", none).global).toBeUndefined();
    expect(obs("otel-collector", none).imagePullSecrets).toBeUndefined();
  });

  test("images.thirdParty: mirror takes the images from the control plane's mirror", () => {
    const m = { images: '{"thirdParty": "mirror"}' };
    expect(obs("otel-collector", m).image).toBe(
      `${REG}/${REPO}/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.129.1`,
    );
    expect(obs("opentelemetry-operator", m).manager.image).toEqual({
      repository: `${REG}/${REPO}/open-telemetry/opentelemetry-operator/opentelemetry-operator`,
    });
    expect(obs("victoria-metrics", m).server.image).toEqual({
      registry: REG,
      repository: `${REPO}/victoriametrics/victoria-metrics`,
    });
  });

  test("one home: the same settings give the same values on both planes; releaseValues merge last on the GPU cluster", () => {
    const ctl = control({ observability: '{"profile": "compute"}' });
    for (const r of [
      "prometheus-operator-crds",
      "opentelemetry-operator",
      "victoria-metrics",
      "otel-collector",
      "default-monitors",
    ])
      expect([r, obs(r)]).toEqual([r, controlValues(r, ctl, secrets)]);
    const over = obs("victoria-metrics", {
      releaseValues: JSON.stringify({ "victoria-metrics": { server: { retentionPeriod: "3" } } }),
    });
    expect(over.server).toMatchObject({ retentionPeriod: "3", fullnameOverride: "vmsingle" });
  });
});

describe("feature gates (02-nvca featureGateValues helper)", () => {
  const DEFAULTS = [
    "DynamicGPUDiscovery",
    "InfraResourceOverhead",
    "EnforceHelmFunctionResourceLimits",
    "EnforceContainerFunctionResourceLimits",
    "EnforceHelmTaskResourceLimits",
    "EnforceContainerTaskResourceLimits",
  ];
  test("defaults filled, BYOObservability with the compute profile", () => {
    expect(featureGates(compute())).toEqual([...DEFAULTS, "BYOObservability"]);
  });
  test("user gates first, no duplicates; on purpose a -Gate entry removes the default and is not passed on", () => {
    expect(
      featureGates(
        compute({
          nvcaOperator: '{"featureGates": ["LogPosting", "DynamicGPUDiscovery", "-InfraResourceOverhead"]}',
          observability: '{"profile": "disabled"}',
        }),
      ),
    ).toEqual([
      "LogPosting",
      "DynamicGPUDiscovery",
      ...DEFAULTS.filter((g) => g !== "DynamicGPUDiscovery" && g !== "InfraResourceOverhead"),
    ]);
  });
  test("0.8.0: KAIScheduler only with KAI, DynamoOperatorSupport with Dynamo, after the defaults", () => {
    expect(featureGates(compute())).not.toContain("KAIScheduler");
    const all = featureGates(
      compute({
        addons:
          '{"kaiScheduler": {"enabled": true}, "groveOperator": {"enabled": true}, "dynamoOperator": {"enabled": true}}',
      }),
    );
    expect(all).toEqual([...DEFAULTS, "BYOObservability", "KAIScheduler", "DynamoOperatorSupport"]);
  });
  test("0.7.0: Dynamo on adds no gate (the v0.7.0 helper knows only BYOObservability)", () => {
    expect(
      featureGates(
        compute({
          bundleVersion: "0.7.0",
          addons: '{"groveOperator": {"enabled": true}, "dynamoOperator": {"enabled": true}}',
        }),
      ),
    ).toEqual([...DEFAULTS, "BYOObservability"]);
  });
  test("the operator values carry the list", () => {
    expect(
      (
        nvcaOperatorValues(compute(), {
          ...({} as ComputeInputs),
          imageRegistry: "r",
          imageRepository: "p",
        }) as V
      ).selfManaged.featureGateValues,
    ).toEqual(featureGates(compute()));
  });
});

test("releases with a values key are documented in the catalog", () => {
  expect(releaseSpec("api").valuesKey).toBe("api");
});

describe("third-party images and the mirror (values/images.ts)", () => {
  test("the mirror form keeps the upstream path without its registry host (Docker Hub's library/ dropped)", () => {
    const b = "mirror.example.com/nvcf";
    expect(mirrorImage("ghcr.io/kai-scheduler/kai-scheduler/operator:v0.16.7", b)).toBe(
      `${b}/kai-scheduler/kai-scheduler/operator:v0.16.7`,
    );
    expect(mirrorImage("busybox:1.36", b)).toBe(`${b}/busybox:1.36`);
    expect(mirrorImage("docker.io/library/nats", b)).toBe(`${b}/nats`);
    expect(mirrorImage("natsio/nats-server-config-reloader:0.16.0", b)).toBe(
      `${b}/natsio/nats-server-config-reloader:0.16.0`,
    );
    expect(mirrorImage("registry.k8s.io/pause:3.9", b)).toBe(`${b}/pause:3.9`);
    expect(mirrorImage("localhost:5000/a/b@sha256:0123", b)).toBe(`${b}/a/b@sha256:0123`);
    expect(splitImage("quay.io:443/x/y:1")).toEqual({ host: "quay.io:443", path: "x/y", suffix: ":1" });
  });

  test("control plane: upstream by default (NVIDIA's values), the mirror form with images.thirdParty: mirror", () => {
    const obs = { observability: '{"profile": "all"}' };
    const plain = control(obs);
    expect(
      (controlValues("opentelemetry-operator", plain, secrets) as V).manager.collectorImage.repository,
    ).toBe("ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib");
    expect((controlValues("opentelemetry-operator", plain, secrets) as V).manager.image).toBeUndefined();
    expect((controlValues("victoria-metrics", plain, secrets) as V).server.image).toBeUndefined();
    expect((controlValues("otel-collector", plain, secrets) as V).targetAllocator.image).toBeUndefined();
    const m = control({
      ...obs,
      images: JSON.stringify({ registry: REG, repository: REPO, thirdParty: "mirror" }),
    });
    const b = `${REG}/${REPO}`;
    const op = controlValues("opentelemetry-operator", m, secrets) as V;
    expect(op.manager.image).toEqual({
      repository: `${b}/open-telemetry/opentelemetry-operator/opentelemetry-operator`,
    });
    expect(op.manager.collectorImage).toEqual({
      repository: `${b}/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib`,
      tag: "0.129.1",
    });
    expect((controlValues("victoria-metrics", m, secrets) as V).server.image).toEqual({
      registry: REG,
      repository: `${REPO}/victoriametrics/victoria-metrics`,
    });
    const col = controlValues("otel-collector", m, secrets) as V;
    expect(col.image).toBe(
      `${b}/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.129.1`,
    );
    expect(col.targetAllocator.image).toBe(
      `${b}/open-telemetry/opentelemetry-operator/target-allocator:0.152.0`,
    );
  });

  test("Envoy Gateway: empty values and the default proxy unless a pull secret or the mirror is set", () => {
    const none = control({ pullSecret: '{"name": null}' });
    expect(envoyGatewayValues(none)).toEqual({});
    expect(envoyProxyKubernetes(none)).toEqual({ envoyDeployment: { replicas: 2 } });
    const m = control({
      images: JSON.stringify({ registry: REG, repository: REPO, thirdParty: "mirror" }),
    });
    const b = `${REG}/${REPO}`;
    const ps = [{ name: "nvcr-pull-secret" }];
    expect(envoyGatewayValues(m)).toEqual({
      global: {
        images: {
          envoyGateway: { pullSecrets: ps, image: `${b}/envoyproxy/gateway:v1.1.3` },
          ratelimit: { pullSecrets: ps, image: `${b}/envoyproxy/ratelimit:26f28d78` },
        },
      },
    });
    expect(envoyProxyKubernetes(m)).toEqual({
      envoyDeployment: {
        replicas: 2,
        pod: { imagePullSecrets: ps },
        container: { image: `${b}/envoyproxy/envoy:distroless-v1.31.3` },
      },
    });
  });
});
