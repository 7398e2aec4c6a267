/**
 * Values per release against the spec (§1.8 control plane, §2.5-§2.6 compute plane), credential encodings
 * (§4 rows 1-3), the merge rule (§1.7) and change isolation between releases.
 */
import { CONTROL_PLANE_RELEASES, releaseSpec } from "../../catalog/releases";
import { validateConfig } from "../../config/load";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../config/schema";
import { type ComputeInputs, computeValues, featureGates, nvcaOperatorValues } from "../../values/compute";
import { CONTROL_VALUES_RELEASES, type ControlSecrets, controlValues } from "../../values/control";
import { dockerAuth, dockerConfigJson, looksLikeEncodedAuth } from "../../values/credentials";
import { deepMerge } from "../../values/merge";
import { baseCompute, baseControl } from "./fixtures/configs";

const SECRET = new Set(["registryKey"]);
const control = (over: Record<string, string> = {}) =>
  validateConfig(baseControl(over), SECRET, "prod") as ControlPlaneConfig;
const compute = (over: Record<string, string> = {}) =>
  validateConfig(baseCompute(over), SECRET, "prod") as ComputePlaneConfig;
const secrets: ControlSecrets<string> = {
  cassandraPassword: "cass-pw",
  sidecarAuth: dockerAuth("$oauthtoken", "k1"),
  functionAuth: [dockerAuth("u", "k2")],
};
const REPO = "nvcf/images";
const REG = "registry.example.com";
type V = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("credentials (spec §4 rows 1-3)", () => {
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

describe("control-plane values (spec §1.8)", () => {
  const cfg = control({
    addons: JSON.stringify({
      llm: { enabled: true },
      vanityGateway: { enabled: true },
      nvcfUi: { enabled: true },
    }),
    accounts: JSON.stringify({
      registryCredentials: [
        { registryHostname: "nvcr.io", secretName: "nvcr-containers", artifactTypes: ["CONTAINER"] },
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
      global: { imagePullSecrets: [{ name: "nvcr-pull-secret" }], security: { allowInsecureImages: true } },
      replicaCount: 3,
      resourcesPreset: "xlarge",
      persistence: { size: "10Gi" },
      image: { registry: REG, repository: `${REPO}/cassandra` },
      migrations: { image: { repository: `${REPO}/nvcf-cassandra-migrations` } },
      initialization: { image: { repository: `${REPO}/alpine-k8s` } },
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

  test("grpc-proxy: no replicaCount or autoscaling is emitted (spec §1.8)", () => {
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
    expect(g.routes.vanityGateway).toEqual({ enabled: true, hostnames: ["vanity.nvcf.example.com"] });
    expect(g.routes.llmInvocation.enabled).toBe(true);
  });

  test("state metrics: the chart value enabled is hard-coded false (spec §1.8)", () => {
    expect(v("state-metrics").stateMetrics.enabled).toBe(false);
  });

  test("function autoscaler reads the bundled VictoriaMetrics", () => {
    expect(v("function-autoscaler").functionautoscaler.env.TIMESERIES_DB__URL).toBe(
      "http://vmsingle.monitoring.svc.cluster.local:8428",
    );
  });

  test("node selectors and tolerations only when enabled, per type with fallback to all", () => {
    expect(v("cassandra").cassandra.nodeSelector).toBeUndefined();
    const placed = control({
      placement: JSON.stringify({
        nodeSelectors: {
          enabled: true,
          all: { key: "pool", value: "nvcf" },
          cassandra: { key: "nvcf.nvidia.com/workload", value: "cassandra" },
        },
        tolerations: { enabled: true, all: [{ key: "dedicated", operator: "Exists" }] },
      }),
    });
    expect((controlValues("cassandra", placed, secrets) as V).cassandra.nodeSelector).toEqual({
      "nvcf.nvidia.com/workload": "cassandra",
    });
    expect((controlValues("api", placed, secrets) as V).api.nodeSelector).toEqual({ pool: "nvcf" });
    expect((controlValues("api", placed, secrets) as V).api.tolerations).toEqual([
      { key: "dedicated", operator: "Exists" },
    ]);
  });

  test("no pull secret referenced when nodes authenticate to the registry", () => {
    const noSecret = control({ pullSecret: '{"name": null}' });
    expect((controlValues("api", noSecret, secrets) as V).api.imagePullSecrets).toEqual([]);
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
    expect(c.global.security).toEqual({ allowInsecureImages: true });
    expect(c.resources).toEqual({ limits: { cpu: "8" } });
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

describe("compute-plane values (spec §2.5-§2.7)", () => {
  const inputs: ComputeInputs = {
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

  test("operator values carry the registration identity where the chart reads it", () => {
    const v = nvcaOperatorValues(compute(), inputs) as V;
    expect(v).toMatchObject({
      clusterID: "c-1",
      clusterGroupID: "g-1",
      ncaID: "nvcf-default",
      clusterName: "gpu-a",
      generateImagePullSecret: false,
      ngcConfig: { clusterSource: "self-managed" },
      image: { repository: `${REG}/${REPO}/nvca-operator`, tag: "3.2.7", pullPolicy: "IfNotPresent" },
      nvcaImage: { repositoryOverride: `${REG}/${REPO}/nvca` },
      imagePullSecrets: [{ name: "nvcr-pull-secret" }],
      webhookConfig: { imageConfig: { pullPolicy: "IfNotPresent" } },
    });
    expect(v.selfManaged).toMatchObject({
      identitySource: "psat",
      region: "eu-north-1",
      icmsServiceURL: "http://gw.example.com",
      icmsServiceHostHeaderOverride: "sis.nvcf.example.com",
      revalServiceHostHeaderOverride: "reval.nvcf.example.com",
      natsHostOverride: "nats.nvcf.example.com",
      imageCredHelper: { imageRepository: `${REG}/${REPO}/nvcf-image-credential-helper` },
      sharedStorage: { imageRepository: `${REG}/${REPO}/samba` },
    });
    expect(v.region).toBeUndefined();
    expect(v.ncaId).toBeUndefined();
  });

  test("host-header overrides can be turned off; user values cannot re-enable generateImagePullSecret silently", () => {
    const v = nvcaOperatorValues(compute({ nvcaOperator: '{"hostHeaderOverrides": false}' }), inputs) as V;
    expect(v.selfManaged.icmsServiceHostHeaderOverride).toBeUndefined();
  });

  test("add-on kinds are allowed in the agent's validation policy", () => {
    const v = computeValues(
      "nvca-operator",
      compute({ addons: '{"kaiScheduler": {"enabled": true}}' }),
      inputs,
    ) as V;
    expect(v.agentConfig.mergeConfig).toContain("name: Default");
    expect(v.agentConfig.mergeConfig).toContain("kind: PodGroup");
  });

  test("KAI default queues with unlimited quota (spec §4 row 9)", () => {
    const v = computeValues(
      "kai-scheduler",
      compute({ addons: '{"kaiScheduler": {"enabled": true}}' }),
      inputs,
    ) as V;
    expect(v.defaultQueue.parent.name).toBe("default-parent-queue");
    expect(v.defaultQueue.child.resources.gpu).toEqual({ quota: -1, limit: -1, overQuotaWeight: 1 });
  });
});

describe("feature gates (spec §2.6)", () => {
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
  test("user gates first, no duplicates, -Gate removes a default", () => {
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
  test("KAIScheduler only with KAI, DynamoOperatorSupport with Dynamo", () => {
    expect(featureGates(compute())).not.toContain("KAIScheduler");
    const all = featureGates(
      compute({
        addons:
          '{"kaiScheduler": {"enabled": true}, "groveOperator": {"enabled": true}, "dynamoOperator": {"enabled": true}}',
      }),
    );
    expect(all).toContain("KAIScheduler");
    expect(all).toContain("DynamoOperatorSupport");
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
