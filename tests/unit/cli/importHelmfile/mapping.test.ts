/**
 * `nvcf import-helmfile`, the pure parts: the mapping of NVIDIA's Helmfile files to stack config
 * (cli/importHelmfile/mapping.ts) and the adoption plan (cli/importHelmfile/adopt.ts).
 *
 * The fixtures under tests/unit/fixtures/helmfile/every-key set every key NVIDIA's environments/base.yaml
 * documents (control and compute plane, bundle 0.8.0) to values of their own; each must end up mapped to
 * its nvcf: key or reported (unmappable or ignored, with the reason), and the mapped config must be one the
 * program accepts. The adoption plan must name every adopted object as the program itself registers it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { validateConfig } from "../../../../config/load";
import { valueAt } from "../../../../config/paths";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../../config/schema";
import {
  adoptionPlan,
  adoptionMismatches,
  liveRelease,
  dockerConfigCredential,
  importSpec,
  planUrns,
} from "../../../../cli/importHelmfile/adopt";
import {
  COMPUTE_RULES,
  CONTROL_RULES,
  type Mapping,
  type Note,
  type RegistrationFile,
  decodeDockerAuth,
  formatNotes,
  hasConflicts,
  mapComputePlane,
  mapControlPlane,
  rawConfig,
} from "../../../../cli/importHelmfile/mapping";
import { registeredValuesText } from "../../../../components/registration";
import { failureLines } from "../../../../cli/importHelmfile/index";
import { parseRegistration } from "../../../../values/registration";
import { decodeHelmRelease } from "../../../../kube/helmRecords";
import { readStackFile, render, mockGateway, validatedConfig } from "../../support/harness";
import * as zlib from "node:zlib";

process.env["KUBECONFIG"] = path.join(__dirname, "../../fixtures/kubeconfig");

const FIX = path.join(__dirname, "../../fixtures/helmfile/every-key");
const load = (f: string) => yaml.load(fs.readFileSync(path.join(FIX, f), "utf8"));
const auth = (user: string, key: string) => Buffer.from(`${user}:${key}`).toString("base64");

// Made-up credentials: they must be kept (no rotation) and never printed.
const CASSANDRA = "cass-pw-1e5b7c";
const KEY = "registry-key-9f2d44";
const FN_KEY = "function-key-3a8c61";
const secretsFile = (over: Record<string, unknown> = {}) => ({
  openbao: {
    migrations: {
      env: [
        { name: "DEFAULT_CASSANDRA_PASSWORD", value: CASSANDRA },
        { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: auth("robot", KEY) },
        { name: "ADMIN_CLIENT_ID", value: "ncp" },
      ],
    },
  },
  cassandra: { serviceRolePassword: CASSANDRA },
  api: {
    accountBootstrap: {
      registryCredentials: [
        {
          registryHostname: "registry.example.org",
          secret: { name: "containers", value: auth("robot", FN_KEY) },
          artifactTypes: ["CONTAINER"],
          tags: [],
          description: "functions",
        },
        {
          registryHostname: "charts.example.org",
          secret: { name: "charts", value: auth("robot", FN_KEY) },
          artifactTypes: ["HELM"],
          tags: ["team-a"],
          description: "",
        },
      ],
    },
  },
  ...over,
});
const registration = load("gpu-east-register-values.yaml") as RegistrationFile;

function controlMapping(secrets: unknown = secretsFile()): Mapping {
  return mapControlPlane({
    env: load("control-env.yaml"),
    secrets,
    bundle: "0.8.0",
    gpuClusters: [{ name: "gpu-east", registration, context: "gpu-east-ctx" }],
  });
}
const validate = (m: Mapping, stack: string) => {
  const { raw, secretKeys } = rawConfig(m);
  return validateConfig(raw, secretKeys, stack);
};
const noteOf = (m: Mapping, key: string): Note | undefined => m.notes.find((n) => n.key === key);
/** Every leaf path of a YAML document (lists are leaves). */
function leaves(doc: unknown, prefix = ""): string[] {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc) || Object.keys(doc).length === 0)
    return [prefix];
  return Object.entries(doc as Record<string, unknown>).flatMap(([k, v]) =>
    leaves(v, prefix ? `${prefix}.${k}` : k),
  );
}

describe("control plane: an environment file that sets every documented key", () => {
  const m = controlMapping();

  test("every rule of the table is exercised by the fixture and every key of it gets a note (none unknown)", () => {
    const noted = m.notes.filter((n) => n.file === "env").map((n) => n.key);
    for (const r of CONTROL_RULES.filter((x) => !x.bundles || x.bundles.includes("0.8.0")))
      expect([
        r.path,
        noted.some((k) => k === r.path || k.startsWith(`${r.path}.`) || k.startsWith(`${r.path}[`)),
      ]).toEqual([r.path, true]);
    for (const leaf of leaves(load("control-env.yaml"))) {
      const covered = CONTROL_RULES.some((r) => leaf === r.path || leaf.startsWith(`${r.path}.`));
      expect([leaf, covered]).toEqual([leaf, true]);
    }
    expect(m.notes.filter((n) => n.status === "unknown")).toEqual([]);
  });

  test("mapped keys land on their nvcf: keys with the file's values", () => {
    const c = m.config as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(c["domain"]).toBe("fn.example.org");
    expect(c["charts"]).toMatchObject({
      source: "oci",
      registry: "registry.example.org",
      repository: "platform/nvcf",
      username: "chart-reader",
    });
    expect(c["images"]).toEqual({ registry: "registry.example.org", repository: "platform/images" });
    expect(c["pullSecret"]).toEqual({ name: "example-pull", username: "robot", create: true });
    expect(c["placement"]["nodeSelectors"]).toEqual({
      enabled: true,
      all: { key: "pool", value: "system" },
      vault: { key: "pool", value: "secrets" },
      cassandra: { key: "pool", value: "db" },
      controlplane: { key: "pool", value: "services" },
    });
    expect(c["storage"]).toEqual({ className: "fast-ssd", size: "40Gi" });
    // cassandra.enabled is set to its default (true): noted, not written.
    expect(c["cassandra"]).toEqual({ replicas: 5, preset: "large" });
    expect(noteOf(m, "cassandra.enabled")?.status).toBe("default");
    expect(c["openbao"]).toEqual({
      issuerDiscovery: true,
      migrationsImageTag: "0.17.1",
      injectorReplicas: 3,
    });
    expect(c["certManager"]).toEqual({ managed: false });
    expect(c["addons"]["llm"]).toMatchObject({
      enabled: true,
      requestRouterAddress: "router.fn.example.org:50071",
    });
    expect(noteOf(m, "addons.llm.pki.mode")?.status).toBe("default");
    expect(c["addons"]["llm"]["pki"]).toMatchObject({
      manageClusterIssuer: true,
      imageTag: "0.17.1",
      issuerName: "example-pki",
    });
    expect(c["addons"]["vanityGateway"]).toMatchObject({
      enabled: true,
      replicaCount: 4,
      hostnames: ["models.fn.example.org"],
    });
    expect(c["gateway"]).toMatchObject({
      controllerNamespace: "gateway-system",
      shared: { name: "edge", namespace: "gateway-system" },
      nats: { name: "edge-nats", namespace: "gateway-system", listenerName: "nats-tcp" },
      routes: {
        nats: true,
        ess: true,
        grpcWorker: { enabled: true, listenerName: "workers" },
        nvcfApiGrpc: { enabled: true, hostnames: ["api-rpc.fn.example.org"] },
      },
    });
    // Chart values NVIDIA's stack passes through go to releaseValues at the chart's own path.
    expect(c["releaseValues"]["nats"]["nats"]["podDisruptionBudget"]).toEqual({
      enabled: true,
      merge: { spec: { minAvailable: 1 } },
    });
    expect(c["releaseValues"]["openbao-server"]["openbao"]["injector"]).toEqual({
      webhook: { failurePolicy: "Fail" },
      podDisruptionBudget: { minAvailable: 2 },
    });
    expect(c["releaseValues"]["function-autoscaler"]["functionautoscaler"]["env"]).toEqual({
      REGION: "eu-north",
      CASSANDRA__CONTACT_POINTS: "cassandra.db.svc.cluster.local",
      CASSANDRA__IS_DEVELOPMENT: "true",
      NVCF_API__NVCF_API_GRPC_ADDRESS: "http://api.nvcf.svc.cluster.local:9091",
      NVCF_API__DISABLE_AUTH: "true",
      NVCF_API__DRY_RUN: "true",
      TIMESERIES_DB__IGNORE_ENV: "false",
    });
    expect(c["releaseValues"]["ingress"]["nvcfGatewayRoutes"]["routes"]["apiKeys"]).toEqual({
      routeAnnotations: { "example.org/route": "keys" },
    });
    expect(c["gpuClusters"]).toEqual([
      {
        name: "gpu-east",
        region: "eu-north-1",
        context: "gpu-east-ctx",
        registered: { clusterID: registration.clusterID, clusterGroupID: registration.clusterGroupID },
      },
    ]);
    expect(c["ncaId"]).toBe("example-nca");
  });

  test("the program accepts the mapped config as it is", () => {
    const cfg = validate(m, "prod-moved") as ControlPlaneConfig;
    expect(cfg.plane).toBe("control");
    expect(cfg.gpuClusters[0].registered).toEqual({
      clusterID: registration.clusterID,
      clusterGroupID: registration.clusterGroupID,
    });
  });

  test.each([
    ["global.nodeSelectors.worker", "ignored", /worker selector/],
    ["global.tolerations.worker", "ignored", /worker tolerations/],
    ["stateMetrics.serviceMonitor.enabled", "ignored", /writes stateMetrics.serviceMonitor.enabled: false/],
    ["invocation.env", "ignored", /never reads invocation.env/],
    [
      "rateLimiter.podDisruptionBudget",
      "unmappable",
      /rate-limiter 1.1.0 has no PodDisruptionBudget template/,
    ],
    ["ess.podDisruptionBudget", "unmappable", /ess-api 1.7.2/],
    ["invocation.podDisruptionBudget", "unmappable", /invocation-service 1.5.6/],
    ["adminIssuerProxy.podDisruptionBudget", "unmappable", /admin-token-issuer-proxy 1.4.3/],
    ["functionautoscaler.podDisruptionBudget", "unmappable", /function-autoscaler 0.2.1/],
    ["ingress.gatewayApi.enabled", "unmappable", /always installs the Gateway API routes/],
    ["addons.llm.pki.namespace", "unmappable", /keeps NVIDIA's default namespace/],
    ["addons.llm.pki.mountPath", "unmappable", /mountPath/],
    ["addons.llm.pki.certPath", "unmappable", /certPath/],
    ["addons.llm.pki.keyPath", "unmappable", /keyPath/],
    ["addons.llm.pki.image.registry", "unmappable", /follows nvcf:images.registry/],
    ["addons.llm.pki.image.repository", "unmappable", /follows nvcf:images.registry/],
    ["global.imagePullSecrets[1].name", "unmappable", /references one pull secret/],
    ["addons.vanityGateway.nodeSelector", "ignored", /pins the vanity gateway to the controlplane selector/],
  ])("%s is reported %s with its reason", (key, status, reason) => {
    const n = m.notes.find((x) => `${x.file === "env" ? "" : `${x.file}: `}${x.key}` === key);
    expect(n?.status).toBe(status);
    expect(n?.reason).toMatch(reason);
  });

  test("the vanity gateway's own node selector is kept only while global.nodeSelectors is off, as the stack reads it", () => {
    const c = m.config as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    // On (the fixture): the gateway runs on the controlplane pool; the add-on's selector is not carried over.
    expect(c["releaseValues"]["vanity-gateway"]["vanityGateway"]["nodeSelector"]).toBeUndefined();
    expect(c["releaseValues"]["vanity-gateway"]["vanityGateway"]["tolerations"]).toEqual([
      { key: "edge", operator: "Exists" },
    ]);
    const env = load("control-env.yaml") as { global: { nodeSelectors: { enabled: boolean } } };
    env.global.nodeSelectors.enabled = false;
    const off = mapControlPlane({ env, secrets: secretsFile(), bundle: "0.8.0" });
    expect(valueAt(off.config, "releaseValues.vanity-gateway.vanityGateway.nodeSelector")).toEqual({
      pool: "edge",
    });
  });

  test("every unmappable and ignored rule of the table has a reason", () => {
    for (const r of [...CONTROL_RULES, ...COMPUTE_RULES])
      if (r.unmappable !== undefined || r.ignored !== undefined)
        expect([r.path, (r.unmappable ?? r.ignored ?? "").length > 20]).toEqual([r.path, true]);
  });
});

describe("control plane: secrets", () => {
  test("the existing credentials are kept as secrets, decoded to the plain keys the program encodes again", () => {
    const m = controlMapping();
    expect(m.secrets).toEqual({
      cassandraPassword: CASSANDRA,
      registryKey: KEY,
      functionRegistryKey: FN_KEY,
    });
    expect(m.config["accounts"]).toEqual({
      limits: { maxFunctions: 20, maxTasks: 30, maxTelemetries: 15, maxRegistryCreds: 12 },
      registryCredentials: [
        {
          registryHostname: "registry.example.org",
          secretName: "containers",
          artifactTypes: ["CONTAINER"],
          username: "robot",
          description: "functions",
        },
        {
          registryHostname: "charts.example.org",
          secretName: "charts",
          artifactTypes: ["HELM"],
          username: "robot",
          description: "",
          tags: ["team-a"],
        },
      ],
    });
    expect(noteOf(m, "openbao.migrations.env[DEFAULT_CASSANDRA_PASSWORD]")).toMatchObject({
      status: "secret",
      target: "cassandraPassword",
    });
    expect(noteOf(m, "cassandra.serviceRolePassword")).toMatchObject({
      status: "secret",
      target: "cassandraPassword",
    });
    expect(noteOf(m, "openbao.migrations.env[NVCF_API_SIDECARS_IMAGE_PULL_SECRET]")).toMatchObject({
      status: "secret",
      target: "registryKey",
    });
    const { secretKeys } = rawConfig(m);
    expect([...secretKeys].sort()).toEqual(["cassandraPassword", "functionRegistryKey", "registryKey"]);
  });

  test("the live pull secret's key wins for nvcf:registryKey; a different sidecar key becomes nvcf:sidecarRegistryKey", () => {
    const m = mapControlPlane({
      env: load("control-env.yaml"),
      secrets: secretsFile(),
      bundle: "0.8.0",
      pullCredential: { username: "robot", password: "pull-key-77aa01" },
    });
    expect(m.secrets).toMatchObject({
      registryKey: "pull-key-77aa01",
      sidecarRegistryKey: KEY,
      functionRegistryKey: FN_KEY,
    });
  });

  test("no secret value appears in the notes or in what is printed", () => {
    const m = controlMapping(
      secretsFile({
        cassandra: { serviceRolePassword: CASSANDRA, dbUser: { user: "admin", password: "db-pw-c0ffee" } },
      }),
    );
    const printed = [JSON.stringify(m.notes), ...formatNotes(m.notes)].join("\n");
    for (const s of [CASSANDRA, KEY, FN_KEY, auth("robot", KEY), auth("robot", FN_KEY), "db-pw-c0ffee"])
      expect(printed).not.toContain(s);
    expect(formatNotes(m.notes)).toContain(
      "  secret     secrets: openbao.migrations.env[DEFAULT_CASSANDRA_PASSWORD] → nvcf:cassandraPassword (set with --secret, value not shown)",
    );
    // A credential that reaches a chart through releaseValues makes releaseValues a secret key.
    expect(rawConfig(m).secretKeys.has("releaseValues")).toBe(true);
  });

  test.each([
    [
      "two different Cassandra passwords",
      secretsFile({ cassandra: { serviceRolePassword: "another-pw" } }),
      /feeds one nvcf:cassandraPassword to both/,
    ],
    [
      "a credential still holding the template placeholder",
      {
        openbao: {
          migrations: {
            env: [
              { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL" },
            ],
          },
        },
      },
      /template placeholder/,
    ],
    [
      "another ADMIN_CLIENT_ID",
      { openbao: { migrations: { env: [{ name: "ADMIN_CLIENT_ID", value: "admin" }] } } },
      /always uses ADMIN_CLIENT_ID ncp/,
    ],
  ])("%s is a conflict: the move is refused", (_what, secrets, reason) => {
    const m = controlMapping(secrets);
    expect(hasConflicts(m)).toBe(true);
    expect(
      m.notes
        .filter((n) => n.status === "conflict")
        .map((n) => n.reason)
        .join("\n"),
    ).toMatch(reason);
  });

  test("a sidecar credential whose user is not the live pull secret's user is a conflict (it would change)", () => {
    const m = mapControlPlane({
      env: load("control-env.yaml"),
      secrets: secretsFile(),
      bundle: "0.8.0",
      pullCredential: { username: "ci-bot", password: KEY },
    });
    expect(m.notes.find((n) => n.status === "conflict")?.reason).toMatch(/user differs/);
  });

  test("decodeDockerAuth splits user:key and refuses what is not base64 of user:key without echoing it", () => {
    expect(decodeDockerAuth(auth("$oauthtoken", "nvapi-abc:def"))).toEqual({
      user: "$oauthtoken",
      key: "nvapi-abc:def",
    });
    expect(() => decodeDockerAuth("plain-key-not-encoded")).toThrow(/not base64 of user:key/);
    try {
      decodeDockerAuth("plain-key-not-encoded");
    } catch (e) {
      expect((e as Error).message).not.toContain("plain-key-not-encoded");
    }
  });
});

describe("bundle 0.7.0", () => {
  test("keys only the 0.8.0 stack reads are ignored; the function-autoscaler chart version becomes a version override", () => {
    const env = load("control-env.yaml") as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    env["functionAutoscaler"]["chartVersion"] = "0.1.1";
    const m = mapControlPlane({ env, secrets: secretsFile(), bundle: "0.7.0" });
    for (const k of [
      "nats.podDisruptionBudget",
      "cassandra.podDisruptionBudget",
      "global.workerEndpoints.llmRequestRouterAddress",
      "addons.llm.pki.mode",
      "addons.llm.pki.clusterIssuer.enabled",
    ])
      expect([k, noteOf(m, k)?.status, noteOf(m, k)?.reason]).toEqual([
        k,
        "ignored",
        expect.stringMatching(/0\.7\.0 stack does not read it/),
      ]);
    expect(noteOf(m, "functionAutoscaler.chartVersion")).toMatchObject({
      status: "mapped",
      target: "charts.versionOverrides.function-autoscaler",
    });
    // What the 0.7.0 stack ignores is not carried over, so the program accepts the moved config as it is.
    expect(hasConflicts(m)).toBe(false);
    expect(validate(m, "prod-moved-070").bundleVersion).toBe("0.7.0");
  });
});

describe("compute plane", () => {
  const m = mapComputePlane({
    env: load("compute-env.yaml"),
    registration,
    bundle: "0.8.0",
    controlPlaneStack: "organization/nvcf/prod-moved",
    clusterName: "gpu-east",
    pullCredential: { username: "robot", password: "gpu-pull-key-51" },
  });

  test("every rule is exercised, every key gets a note, and the program accepts the result", () => {
    const noted = m.notes.map((n) => n.key);
    for (const r of COMPUTE_RULES.filter((x) => !x.bundles || x.bundles.includes("0.8.0")))
      expect([
        r.path,
        noted.some((k) => k === r.path || k.startsWith(`${r.path}.`) || k.startsWith(`${r.path}[`)),
      ]).toEqual([r.path, true]);
    expect(m.notes.filter((n) => n.status === "unknown")).toEqual([]);
    const cfg = validate(m, "prod-moved-gpu-east") as ComputePlaneConfig;
    expect(cfg.clusterName).toBe("gpu-east");
    expect(cfg.charts).toMatchObject({
      source: "https",
      url: "https://charts.example.org/nvcf",
      username: "chart-reader",
    });
    expect(cfg.placement).toEqual({
      nodeSelector: { key: "pool", value: "gpu" },
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
    });
    expect(cfg.nvcaOperator).toMatchObject({
      imageTag: "3.2.8",
      nvcaVersion: "3.2.8",
      otelCollectorImageTag: "0.158.0",
      featureGates: ["LogPosting", "-InfraResourceOverhead"],
      hostHeaderOverrides: true,
    });
    expect(m.secrets).toEqual({
      chartRegistryPassword: "chart-password-f00d",
      registryKey: "gpu-pull-key-51",
    });
  });

  test("the URLs of the environment and the registration file are reported: the control plane's gateway URLs are used", () => {
    expect(noteOf(m, "global.nvcaOperator.selfManaged.icmsServiceURL")).toMatchObject({
      status: "unmappable",
      reason: expect.stringMatching(/control plane's gateway URL/),
    });
    expect(m.notes.find((n) => n.file === "registration" && n.key === "selfManaged")).toMatchObject({
      status: "ignored",
    });
    expect(noteOf(m, "global.image.registry")).toMatchObject({
      status: "unmappable",
      reason: expect.stringMatching(/from its control plane/),
    });
  });
});

describe("adoption plan", () => {
  /** The dev stack's config as the program validates it (secrets as sentinels). */
  const devConfig = () => validatedConfig("dev");

  test("every planned object has the type, logical name and parent the program registers (so the URNs are the same)", async () => {
    const cfg = devConfig();
    const plan = adoptionPlan(cfg, "dev", "nvcf");
    const r = await render({ stack: "dev", gateways: { "envoy-gateway/nvcf-gateway": mockGateway() } });
    expect(r.error).toBeUndefined();
    const byKey = new Map(plan.components.map((c) => [c.key, c]));
    for (const i of plan.imports) {
      const parent = byKey.get(i.parent)!;
      const hit = r.resources.find((x) => x.type === i.type && x.name === i.name);
      expect([i.key, hit?.parent]).toEqual([i.key, parent.name]);
      const parentRendered = r.resources.find((x) => x.name === parent.name && x.type === parent.type);
      expect([i.key, parentRendered?.parent ?? "(stack)"]).toEqual([
        i.key,
        parent.parent ? byKey.get(parent.parent)!.name : "(stack)",
      ]);
    }
    // Nothing of those kinds is left out of the plan.
    const kinds = new Set([
      "kubernetes:core/v1:Namespace",
      "kubernetes:core/v1:Secret",
      "kubernetes:helm.sh/v3:Release",
    ]);
    // (Secrets other than the pull secret are the program's own, which Helmfile never made.)
    expect(
      r.resources
        .filter(
          (x) =>
            kinds.has(x.type) && (x.type !== "kubernetes:core/v1:Secret" || x.name.startsWith("nvcf-pull-")),
        )
        .map((x) => x.name)
        .sort(),
    ).toEqual(plan.imports.map((i) => i.name).sort());
    expect(
      r.resources.some((x) => x.type === "pulumi:providers:kubernetes" && x.name === "control-plane-cluster"),
    ).toBe(true);
  }, 60000);

  test("URNs, import IDs and the import file", () => {
    const plan = adoptionPlan(devConfig(), "dev", "nvcf");
    const urns = planUrns(plan);
    expect(urns.get("helm:cassandra")).toBe(
      "urn:pulumi:dev::nvcf::nvcf:index:ControlPlane$nvcf:index:Release$kubernetes:helm.sh/v3:Release::nvcf-cassandra",
    );
    expect(plan.imports.find((i) => i.key === "helm:cassandra")?.id).toBe("cassandra-system/cassandra");
    expect(plan.imports.find((i) => i.key === "secret:nvcf")?.id).toBe("nvcf/nvcr-pull-secret");
    expect(plan.imports.find((i) => i.key === "ns:vault-system")?.id).toBe("vault-system");
    const spec = importSpec(plan);
    // The provider and every component come from the inline scaffold program, through the name table.
    expect(spec.nameTable["provider"]).toBe(
      "urn:pulumi:dev::nvcf::pulumi:providers:kubernetes::control-plane-cluster",
    );
    expect(spec.nameTable["rel:cassandra"]).toBe(
      "urn:pulumi:dev::nvcf::nvcf:index:ControlPlane$nvcf:index:Release::nvcf-cassandra",
    );
    expect(spec.nameTable["gateway"]).toBe(
      "urn:pulumi:dev::nvcf::nvcf:index:ControlPlane$nvcf:index:Gateway::nvcf-gateway",
    );
    expect(spec.resources.every((x) => x.provider === "provider" && x.parent in spec.nameTable)).toBe(true);
    expect(spec.resources.find((x) => x.name === "helm:cassandra")).toEqual({
      type: "kubernetes:helm.sh/v3:Release",
      name: "helm:cassandra",
      logicalName: "nvcf-cassandra",
      id: "cassandra-system/cassandra",
      parent: "rel:cassandra",
      provider: "provider",
    });
    expect(plan.registrationTargets).toEqual([]);
  });

  test("a release with another chart or version, or in another namespace, is a mismatch", () => {
    const plan = adoptionPlan(devConfig(), "dev", "nvcf");
    const live = plan.imports
      .filter((i) => i.release)
      .map((i) => ({
        name: i.release!.name,
        namespace: i.release!.namespace,
        revision: 1,
        status: "deployed",
        chart: i.release!.chart,
        chartVersion: i.release!.version,
      }));
    expect(adoptionMismatches(plan, live, "0.8.0")).toEqual([]);
    const bad = live.map((l) =>
      l.name === "cassandra"
        ? { ...l, chartVersion: "0.19.0" }
        : l.name === "nats"
          ? { ...l, namespace: "nats" }
          : l,
    );
    const mm = adoptionMismatches(plan, bad, "0.8.0");
    expect(mm.map((x) => x.object).sort()).toEqual([
      "release cassandra-system/cassandra",
      "release nats-system/nats",
    ]);
    expect(mm.find((x) => x.object.includes("cassandra"))?.fix).toMatch(/charts.versionOverrides/);
  });

  test("a GPU cluster adopts its observability releases in the observability namespace; a cluster without them is told how to move", () => {
    const f = readStackFile("dev-gpu-a");
    const raw = Object.fromEntries(Object.entries(f.config).map(([k, v]) => [k.replace(/^nvcf:/, ""), v]));
    const cfg = validateConfig(raw, new Set(["registryKey"]), "dev-gpu-a") as ComputePlaneConfig;
    const plan = adoptionPlan(cfg, "dev-gpu-a", "nvcf");
    const releases = plan.imports.filter((i) => i.kind === "release").map((i) => i.id);
    expect(releases).toEqual([
      "monitoring/prometheus-operator-crds",
      "monitoring/opentelemetry-operator",
      "monitoring/victoria-metrics",
      "monitoring/otel-collector",
      "monitoring/default-monitors",
      "nvca-operator/nvca-operator",
    ]);
    expect(plan.namespaces).toContain("monitoring");
    expect(plan.pullSecretNamespaces).toContain("monitoring");
    const live = [
      {
        name: "nvca-operator",
        namespace: "nvca-operator",
        revision: 1,
        status: "deployed",
        chart: "helm-nvca-operator",
        chartVersion: "1.21.3",
      },
    ];
    const mm = adoptionMismatches(plan, live, "0.8.0");
    expect(mm.map((x) => x.object)).toEqual(releases.slice(0, 5).map((r) => `release ${r}`));
    expect(mm[0].fix).toMatch(/--set observability\.install=false/);
    cfg.observability.install = false;
    expect(adoptionMismatches(adoptionPlan(cfg, "dev-gpu-a", "nvcf"), live, "0.8.0")).toEqual([]);
  });

  test("Helm's release record and a dockerconfigjson Secret are read as Helm and kubectl write them", () => {
    const record = {
      name: "nats",
      namespace: "nats-system",
      version: 3,
      info: { status: "deployed" },
      chart: { metadata: { name: "helm-nvcf-nats", version: "0.7.1" } },
    };
    const data = Buffer.from(zlib.gzipSync(JSON.stringify(record)).toString("base64")).toString("base64");
    expect(liveRelease(decodeHelmRelease(data))).toEqual({
      name: "nats",
      namespace: "nats-system",
      revision: 3,
      status: "deployed",
      chart: "helm-nvcf-nats",
      chartVersion: "0.7.1",
    });
    const dcj = {
      auths: { "registry.example.org": { username: "robot", password: KEY, auth: auth("robot", KEY) } },
    };
    const secret = { data: { ".dockerconfigjson": Buffer.from(JSON.stringify(dcj)).toString("base64") } };
    expect(dockerConfigCredential(secret, "registry.example.org")).toEqual({
      username: "robot",
      password: KEY,
    });
    expect(dockerConfigCredential(secret, "other.example.org")).toBeUndefined();
  });
});

describe("an adopted registration (nvcf:gpuClusters[].registered)", () => {
  test("the values block printed instead of registering parses to the kept IDs, NCA id and region", () => {
    const ids = { clusterID: registration.clusterID, clusterGroupID: registration.clusterGroupID };
    const text = registeredValuesText(ids, "example-nca", "eu-north-1", "http://198.51.100.7");
    expect(parseRegistration(text)).toEqual({
      ...ids,
      ncaID: "example-nca",
      region: "eu-north-1",
      identitySource: "psat",
      icmsServiceURL: "http://198.51.100.7",
      revalServiceURL: "http://198.51.100.7",
      natsURL: "nats://198.51.100.7:4222",
    });
  });
});

describe("failureLines: what a failed import step prints", () => {
  test("Pulumi's Diagnostics section (the errored resource and its message), not the resource list", () => {
    const out = [
      "Updating (dev):",
      "    pulumi:pulumi:Stack nvcf-dev running",
      " +  command:local:Command nvcf-register-gpu-a created",
      "Diagnostics:",
      "  pulumi:pulumi:Stack (nvcf-dev):",
      "    error: Running program failed with an unhandled exception:",
      "    TypeError: the cause",
      "",
      "Outputs:",
      ...Array.from({ length: 30 }, (_, i) => `    out${i}: "x"`),
      "Resources:",
      "    1 errored",
    ].join("\n");
    expect(failureLines(out)).toEqual([
      "Diagnostics:",
      "  pulumi:pulumi:Stack (nvcf-dev):",
      "    error: Running program failed with an unhandled exception:",
      "    TypeError: the cause",
    ]);
  });

  test("without a Diagnostics section: the last 25 non-blank lines", () => {
    const out = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n\n");
    const lines = failureLines(out);
    expect(lines).toHaveLength(25);
    expect(lines[0]).toBe("line 15");
    expect(lines[24]).toBe("line 39");
  });
});
