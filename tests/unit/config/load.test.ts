/**
 * Config validation: every rule with a failing and a passing config, every committed stack file, and many
 * problems reported at once with secrets redacted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseRaw, validateConfig } from "../../../config/load";
import { ConfigError } from "../../../config/problems";
import { SECRET_KEYS } from "../../../config/schema";
import { ROOT, readStackFile, sentinel } from "../support/harness";
import { baseCompute, baseControl } from "../fixtures/configs";

const SECRET: ReadonlySet<string> = new Set(SECRET_KEYS);

/** The problems of a raw config, as `key: expected` strings (empty when valid). */
function problems(raw: Record<string, string>, stack = "prod"): { key: string; text: string }[] {
  try {
    validateConfig(raw, SECRET, stack);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.problems.map((p) => ({ key: p.key, text: `${p.expected} | ${p.found} | ${p.fix}` }));
  }
}
const keys = (raw: Record<string, string>, stack = "prod") => problems(raw, stack).map((p) => p.key);
const j = (v: unknown) => JSON.stringify(v);
/**
 * Router certificate names that satisfy helm-nvcf-llm-request-router 1.7.2: with 3 replicas each pod
 * advertises `<pod>.llm-request-router-headless.nvcf.svc.cluster.local`, covered only by the wildcard.
 */
const RR = [
  "llm-request-router.nvcf.svc.cluster.local",
  "*.llm-request-router-headless.nvcf.svc.cluster.local",
];
const gw = (extra: object = {}) =>
  j({
    controllerNamespace: "envoy-gateway-system",
    shared: { name: "g", namespace: "gw" },
    grpc: { name: "g", namespace: "gw" },
    ...extra,
  });

describe("committed stack files validate", () => {
  const files = fs.readdirSync(ROOT).filter((f) => /^Pulumi\..+\.yaml$/.test(f));
  test("there are example stacks", () => expect(files.length).toBeGreaterThanOrEqual(4));
  test.each(files)("%s", (f) => {
    const stack = f.replace(/^Pulumi\.(.+)\.yaml$/, "$1");
    const file = readStackFile(stack);
    const raw = Object.fromEntries(Object.entries(file.config).map(([k, v]) => [k.replace(/^nvcf:/, ""), v]));
    const secrets = new Set(file.secretKeys.map((k) => k.replace(/^nvcf:/, "")));
    expect(() => validateConfig(raw, secrets, stack)).not.toThrow();
  });
});

test("the valid base configs pass", () => {
  expect(problems(baseControl())).toEqual([]);
  expect(problems(baseCompute())).toEqual([]);
});

describe("structure", () => {
  test("unknown keys are errors at every level", () => {
    expect(keys(baseControl({ invocation: j({ env: { NATS_PROPERTIES__REGION: "x" } }) }))).toContain(
      "nvcf:invocation",
    );
    expect(keys(baseControl({ cassandra: j({ replicas: 3, resources: { limits: {} } }) }))).toContain(
      "nvcf:cassandra.resources",
    );
    expect(
      keys(baseControl({ gateway: gw({ shared: { name: "g", namespace: "gw", listenerName: "web" } }) })),
    ).toContain("nvcf:gateway.shared.listenerName");
  });
  test("types: booleans and numbers set as top-level strings are read as the user meant", () => {
    expect(parseRaw("true")).toBe(true);
    expect(parseRaw("3")).toBe(3);
    expect(parseRaw("0.8.0")).toBe("0.8.0");
    expect(keys(baseControl({ remoteAccess: "true" }))).toEqual([]);
    expect(keys(baseControl({ remoteAccess: "yes" }))).toContain("nvcf:remoteAccess");
  });
  test("a wrong type names key, expectation and found value", () => {
    const p = problems(baseControl({ cassandra: j({ replicas: "three" }) }));
    expect(p).toEqual([
      {
        key: "nvcf:cassandra.replicas",
        text: expect.stringMatching(
          /^a whole number \| "three" \| pulumi config set --path nvcf:cassandra.replicas <a whole number>/,
        ),
      },
    ]);
  });
  test("enums list the allowed values", () => {
    expect(problems(baseControl({ bundleVersion: "0.9.0" }))[0].text).toMatch(
      /one of "0.6.1", "0.7.0", "0.8.0"/,
    );
  });
  test("secret keys must be set with --secret", () => {
    expect(() => validateConfig(baseControl(), new Set(), "prod")).toThrow(
      /nvcf:registryKey: expected a secret value, found a plain-text value/,
    );
  });
});

describe("control-plane rules", () => {
  // [name, failing override, expected key, passing override]
  const cases: [string, Record<string, string | undefined>, string, Record<string, string | undefined>][] = [
    [
      "local charts need a path",
      { charts: j({ source: "local" }) },
      "nvcf:charts.path",
      { charts: j({ source: "local", path: "tests/charts" }) },
    ],
    [
      "https charts need an https URL",
      { charts: j({ source: "https", url: "http://x" }) },
      "nvcf:charts.url",
      { charts: j({ source: "https", url: "https://helm.example.com/nvcf" }) },
    ],
    [
      "OCI repository placeholder",
      { charts: j({ source: "oci" }) },
      "nvcf:charts.repository",
      { charts: j({ source: "oci", repository: "a/b" }) },
    ],
    [
      "version override of an unknown release",
      { charts: j({ source: "oci", repository: "a/b", versionOverrides: { casandra: "1" } }) },
      "nvcf:charts.versionOverrides.casandra",
      { charts: j({ source: "oci", repository: "a/b", versionOverrides: { cassandra: "0.20.2" } }) },
    ],
    [
      "image repository placeholder",
      { images: j({ registry: "nvcr.io" }) },
      "nvcf:images.repository",
      { images: j({ registry: "nvcr.io", repository: "org/team" }) },
    ],
    [
      "pull secret without a registry key",
      { registryKey: undefined, sidecarRegistryKey: sentinel("s") },
      "nvcf:registryKey",
      {
        registryKey: undefined,
        sidecarRegistryKey: sentinel("s"),
        pullSecret: j({ name: null }),
        accounts: j({ registryCredentials: [] }),
      },
    ],
    [
      "registry key that is already base64(user:key) (docs/upstream-facts.md §4 row 2)",
      { registryKey: Buffer.from("$oauthtoken:abc123").toString("base64") },
      "nvcf:registryKey",
      { registryKey: "nvapi-abc123" },
    ],
    [
      "registry key placeholder",
      { registryKey: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL" },
      "nvcf:registryKey",
      { registryKey: "k" },
    ],
    [
      "registry key that is a dockerconfigjson",
      { registryKey: '{"auths":{}}' },
      "nvcf:registryKey",
      { registryKey: "k" },
    ],
    [
      "cassandra default password (docs/upstream-facts.md §4 row 1)",
      { cassandraPassword: "ch@ng3m3" },
      "nvcf:cassandraPassword",
      { cassandraPassword: "a-strong-password" },
    ],
    [
      "small cassandra preset outside dev (docs/upstream-facts.md §4 row 27)",
      { cassandra: j({ preset: "small" }) },
      "nvcf:cassandra.preset",
      { cassandra: j({ preset: "large" }) },
    ],
    [
      "account limit maxFunctions (docs/upstream-facts.md §1.9)",
      { accounts: j({ limits: { maxFunctions: 51 } }) },
      "nvcf:accounts.limits.maxFunctions",
      { accounts: j({ limits: { maxFunctions: 50 } }) },
    ],
    [
      "account limit maxTelemetries",
      { accounts: j({ limits: { maxTelemetries: 0 } }) },
      "nvcf:accounts.limits.maxTelemetries",
      { accounts: j({ limits: { maxTelemetries: 25 } }) },
    ],
    [
      "account limit maxRegistryCreds",
      { accounts: j({ limits: { maxRegistryCreds: 26 } }) },
      "nvcf:accounts.limits.maxRegistryCreds",
      // The default credentials the account gets: NGC containers and Helm (the models entry is not applied).
      { accounts: j({ limits: { maxRegistryCreds: 2 } }) },
    ],
    [
      "account limit maxTasks",
      { accounts: j({ limits: { maxTasks: 0 } }) },
      "nvcf:accounts.limits.maxTasks",
      { accounts: j({ limits: { maxTasks: 10 } }) },
    ],
    [
      "gateway controller namespace required (docs/upstream-facts.md §4 row 19)",
      { gateway: j({ shared: { name: "g", namespace: "gw" }, grpc: { name: "g", namespace: "gw" } }) },
      "nvcf:gateway.controllerNamespace",
      { gateway: gw() },
    ],
    [
      "shared gateway name required",
      {
        gateway: j({
          controllerNamespace: "c",
          grpc: { name: "g", namespace: "gw" },
          shared: { namespace: "gw" },
        }),
      },
      "nvcf:gateway.shared.name",
      { gateway: gw() },
    ],
    [
      "grpc gateway namespace required",
      {
        gateway: j({ controllerNamespace: "c", shared: { name: "g", namespace: "gw" }, grpc: { name: "g" } }),
      },
      "nvcf:gateway.grpc.namespace",
      { gateway: gw() },
    ],
    [
      "nats gateway required when the NATS route is on",
      { gateway: gw({ routes: { nats: true } }) },
      "nvcf:gateway.nats.name",
      { gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }) },
    ],
    [
      "NATS route needs NATS",
      {
        nats: j({ enabled: false }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:gateway.routes.nats",
      { nats: j({ enabled: false }) },
    ],
    [
      "grpc worker route needs a CONNECT URL (docs/upstream-facts.md §4 row 34)",
      { gateway: gw({ routes: { grpcWorker: { enabled: true } } }) },
      "nvcf:grpcproxy.workerConnectBaseURL",
      {
        gateway: gw({ routes: { grpcWorker: { enabled: true } } }),
        grpcproxy: j({ workerConnectBaseURL: "grpc.example.com:10086" }),
      },
    ],
    [
      "vanity hostname equal to a standard route (docs/upstream-facts.md §4 rows 7-8)",
      { addons: j({ vanityGateway: { enabled: true, hostnames: ["api.nvcf.example.com"] } }) },
      "nvcf:addons.vanityGateway.hostnames",
      { addons: j({ vanityGateway: { enabled: true, hostnames: ["chat.nvcf.example.com"] } }) },
    ],
    [
      "localhost domain with remote access (docs/upstream-facts.md §4 row 20)",
      { domain: "localhost", remoteAccess: "true" },
      "nvcf:domain",
      { domain: "localhost" },
    ],
    [
      "add-on missing from the bundle",
      { bundleVersion: "0.6.1", addons: j({ llm: { enabled: true } }) },
      "nvcf:addons.llm.enabled",
      { bundleVersion: "0.7.0", addons: j({ llm: { enabled: true } }) },
    ],
    [
      "observability: collector needs the OTel operator (docs/upstream-facts.md §1.5)",
      { observability: j({ components: { otelOperator: "disabled" } }) },
      "nvcf:observability.components.otelOperator",
      { observability: j({ components: { otelOperator: "existing" } }) },
    ],
    [
      "observability: target allocator needs the collector",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "install", discoveryRbac: "existing" },
        }),
      },
      "nvcf:observability.components.targetAllocator",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "existing", discoveryRbac: "existing" },
        }),
      },
    ],
    [
      "observability: an existing target allocator needs an existing collector (NVIDIA's helmfile fails the render)",
      { observability: j({ components: { targetAllocator: "existing" } }) },
      "nvcf:observability.components.targetAllocator",
      { observability: j({ components: { targetAllocator: "disabled", discoveryRbac: "disabled" } }) },
    ],
    [
      "observability: discovery RBAC is installed only with a stack-owned collector",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "existing", discoveryRbac: "install" },
        }),
      },
      "nvcf:observability.components.discoveryRbac",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "existing", discoveryRbac: "existing" },
        }),
      },
    ],
    [
      "observability: target allocator needs discovery RBAC",
      { observability: j({ components: { discoveryRbac: "disabled" } }) },
      "nvcf:observability.components.discoveryRbac",
      { observability: j({ components: { discoveryRbac: "existing" } }) },
    ],
    [
      "observability: CRDs needed when enabled",
      { observability: j({ components: { prometheusOperatorCrds: "disabled" } }) },
      "nvcf:observability.components.prometheusOperatorCrds",
      { observability: j({ profile: "disabled", components: { prometheusOperatorCrds: "disabled" } }) },
    ],
    [
      "observability: control profile needs a metrics backend",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "disabled", discoveryRbac: "disabled" },
          metricsBackend: { mode: "disabled" },
        }),
      },
      "nvcf:observability.metricsBackend.mode",
      {
        observability: j({
          profile: "compute",
          components: { collector: "existing", targetAllocator: "disabled", discoveryRbac: "disabled" },
          metricsBackend: { mode: "disabled" },
        }),
      },
    ],
    [
      "observability: control profile needs state metrics",
      { stateMetrics: j({ enabled: false }) },
      "nvcf:stateMetrics.enabled",
      { stateMetrics: j({ enabled: false }), observability: j({ profile: "compute" }) },
    ],
    [
      "observability: installed backend is VictoriaMetrics",
      { observability: j({ metricsBackend: { type: "external" } }) },
      "nvcf:observability.metricsBackend.type",
      { observability: j({ metricsBackend: { type: "victoriaMetrics" } }) },
    ],
    [
      "observability: installed backend has no auth",
      { observability: j({ metricsBackend: { auth: { mode: "token", authnEndpoint: "https://a" } } }) },
      "nvcf:observability.metricsBackend.auth.mode",
      { observability: j({ metricsBackend: { auth: { mode: "none" } } }) },
    ],
    [
      "observability: existing backend needs a remote-write URL",
      {
        observability: j({
          metricsBackend: { mode: "existing", type: "external", promqlEndpoint: "https://q" },
        }),
      },
      "nvcf:observability.metricsBackend.remoteWriteEndpoint",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
          },
        }),
      },
    ],
    [
      "observability: existing backend needs PromQL for control",
      {
        observability: j({
          metricsBackend: { mode: "existing", type: "external", remoteWriteEndpoint: "https://w" },
        }),
      },
      "nvcf:observability.metricsBackend.promqlEndpoint",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
          },
        }),
      },
    ],
    [
      "observability: mtls needs cert and key",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
            auth: { mode: "mtls", certPath: "/c" },
          },
        }),
      },
      "nvcf:observability.metricsBackend.auth.keyPath",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
            auth: { mode: "mtls", certPath: "/c", keyPath: "/k" },
          },
        }),
      },
    ],
    [
      "LLM router address format (docs/upstream-facts.md §1.9)",
      { addons: j({ llm: { enabled: true, requestRouterAddress: "router" } }) },
      "nvcf:addons.llm.requestRouterAddress",
      { addons: j({ llm: { enabled: true, requestRouterAddress: "router.example.com:50071" } }) },
    ],
    [
      "LLM PKI dnsNames required in certManager mode",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", imageTag: "1" } } }) },
      "nvcf:addons.llm.pki.dnsNames",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, allowedDomains: "a", imageTag: "1", dnsNames: RR },
          },
        }),
      },
    ],
    [
      "LLM managed issuer needs allowedDomains",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, imageTag: "1", dnsNames: RR } } }) },
      "nvcf:addons.llm.pki.allowedDomains",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, imageTag: "1", dnsNames: RR, manageClusterIssuer: false },
          },
        }),
      },
    ],
    [
      "LLM managed issuer needs an image tag",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", dnsNames: RR } } }) },
      "nvcf:addons.llm.pki.imageTag",
      {
        addons: j({ llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", dnsNames: RR } } }),
        openbao: j({ migrationsImageTag: "0.18.0" }),
      },
    ],
    [
      "LLM managed issuer needs OpenBao",
      {
        openbao: j({ enabled: false }),
        addons: j({
          llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", dnsNames: RR, imageTag: "1" } },
        }),
      },
      "nvcf:openbao.enabled",
      {
        openbao: j({ enabled: false }),
        addons: j({
          llm: { enabled: true, pki: { enabled: true, dnsNames: RR, manageClusterIssuer: false } },
        }),
      },
    ],
    [
      "LLM issuer name RFC 1123",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "Bad_Name", dnsNames: RR, manageClusterIssuer: false },
          },
        }),
      },
      "nvcf:addons.llm.pki.issuerName",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "good-name", dnsNames: RR, manageClusterIssuer: false },
          },
        }),
      },
    ],
    [
      "LLM router certificate must cover the headless service wildcard (chart 1.7.2 validateCertificateDnsNames)",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: {
              enabled: true,
              allowedDomains: "a",
              imageTag: "1",
              dnsNames: ["llm-request-router.nvcf.svc.cluster.local"],
            },
          },
        }),
      },
      "nvcf:addons.llm.pki.dnsNames",
      {
        addons: j({
          llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", imageTag: "1", dnsNames: RR } },
        }),
      },
    ],
    [
      "bundle 0.7.0: the router provisions its own PKI, certManager mode only",
      {
        bundleVersion: "0.7.0",
        addons: j({ llm: { enabled: true, pki: { enabled: true, mode: "existingSecret" } } }),
      },
      "nvcf:addons.llm.pki.mode",
      {
        bundleVersion: "0.7.0",
        addons: j({
          llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", imageTag: "1", dnsNames: ["r"] } },
        }),
      },
    ],
    [
      "bundle 0.7.0: the router's PKI hook needs allowedDomains even for a custom issuer",
      {
        bundleVersion: "0.7.0",
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "custom", imageTag: "1", dnsNames: ["r"] },
          },
        }),
      },
      "nvcf:addons.llm.pki.allowedDomains",
      {
        bundleVersion: "0.7.0",
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "custom", allowedDomains: "a", imageTag: "1", dnsNames: ["r"] },
          },
        }),
      },
    ],
    [
      "LLM existingSecret mode keeps dnsNames empty",
      {
        addons: j({
          llm: { enabled: true, pki: { enabled: true, mode: "existingSecret", dnsNames: ["r"] } },
        }),
      },
      "nvcf:addons.llm.pki.dnsNames",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, mode: "existingSecret" } } }) },
    ],
    [
      "GPU clusters need issuer discovery (docs/upstream-facts.md §4 row 26)",
      {
        gpuClusters: j([{ name: "gpu-a", context: "c" }]),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:openbao.issuerDiscovery",
      {
        gpuClusters: j([{ name: "gpu-a", context: "c" }]),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
        openbao: j({ issuerDiscovery: true }),
      },
    ],
    [
      "GPU clusters need a way to reach them",
      {
        gpuClusters: j([{ name: "gpu-a" }]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:gpuClusters[0].context",
      {
        gpuClusters: j([{ name: "gpu-a" }]),
        gpuClusterKubeconfigs: j({ "gpu-a": "apiVersion: v1" }),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
    ],
    [
      "GPU cluster names are unique",
      {
        gpuClusters: j([
          { name: "gpu-a", context: "c" },
          { name: "gpu-a", context: "d" },
        ]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:gpuClusters[1].name",
      {
        gpuClusters: j([
          { name: "gpu-a", context: "c" },
          { name: "gpu-b", context: "d" },
        ]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
    ],
    [
      "GPU clusters need the NATS route",
      { gpuClusters: j([{ name: "gpu-a", context: "c" }]), openbao: j({ issuerDiscovery: true }) },
      "nvcf:gateway.routes.nats",
      {
        gpuClusters: j([{ name: "gpu-a", context: "c" }]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
    ],
    [
      "release values for an unknown release",
      { releaseValues: j({ casandra: { a: 1 } }) },
      "nvcf:releaseValues.casandra",
      { releaseValues: j({ cassandra: { cassandra: { a: 1 } } }) },
    ],
  ];
  test.each(cases)("%s", (_name, bad, key, good) => {
    expect(keys(baseControl(bad))).toContain(key);
    expect(keys(baseControl(good))).not.toContain(key);
    expect(keys(baseControl(good))).toEqual([]);
  });

  test("dev stacks may use a small Cassandra preset", () => {
    expect(keys(baseControl({ cassandra: j({ preset: "small" }) }), "dev")).toEqual([]);
  });
});

describe("compute-plane rules", () => {
  const cases: [string, Record<string, string | undefined>, string, Record<string, string | undefined>][] = [
    [
      "topology needs KAI (docs/upstream-facts.md §4 row 37)",
      { addons: j({ topologyAwareScheduling: { enabled: true } }) },
      "nvcf:addons.topologyAwareScheduling.enabled",
      { addons: j({ topologyAwareScheduling: { enabled: true }, kaiScheduler: { enabled: true } }) },
    ],
    [
      "Grove needs KAI",
      { addons: j({ groveOperator: { enabled: true } }) },
      "nvcf:addons.groveOperator.enabled",
      { addons: j({ groveOperator: { enabled: true }, kaiScheduler: { enabled: true } }) },
    ],
    [
      "Dynamo needs Grove",
      { addons: j({ dynamoOperator: { enabled: true }, kaiScheduler: { enabled: true } }) },
      "nvcf:addons.dynamoOperator.enabled",
      {
        addons: j({
          dynamoOperator: { enabled: true },
          groveOperator: { enabled: true },
          kaiScheduler: { enabled: true },
        }),
      },
    ],
    [
      "KAIScheduler gate only with KAI (docs/upstream-facts.md §4 row 9)",
      { nvcaOperator: j({ featureGates: ["KAIScheduler"] }) },
      "nvcf:nvcaOperator.featureGates[0]",
      { nvcaOperator: j({ featureGates: ["KAIScheduler"] }), addons: j({ kaiScheduler: { enabled: true } }) },
    ],
    [
      "gate spelling",
      { nvcaOperator: j({ featureGates: ["log posting"] }) },
      "nvcf:nvcaOperator.featureGates[0]",
      { nvcaOperator: j({ featureGates: ["LogPosting", "-InfraResourceOverhead"] }) },
    ],
    [
      "host-header overrides need operator >= 1.12.0 (docs/upstream-facts.md §4 row 11)",
      { charts: j({ source: "oci", repository: "a/b", versionOverrides: { "nvca-operator": "1.11.0" } }) },
      "nvcf:nvcaOperator.hostHeaderOverrides",
      {
        charts: j({ source: "oci", repository: "a/b", versionOverrides: { "nvca-operator": "1.11.0" } }),
        nvcaOperator: j({ hostHeaderOverrides: false }),
      },
    ],
    [
      "generateImagePullSecret is refused (docs/upstream-facts.md §4 row 10)",
      { releaseValues: j({ "nvca-operator": { generateImagePullSecret: true } }) },
      "nvcf:releaseValues.nvca-operator.generateImagePullSecret",
      { releaseValues: j({ "nvca-operator": { networkPolicy: {} } }) },
    ],
    [
      "inotify instances at least 8192 (docs/upstream-facts.md §4 row 12)",
      { inotify: j({ maxUserInstances: 128 }) },
      "nvcf:inotify.maxUserInstances",
      { inotify: j({ maxUserInstances: 16384 }) },
    ],
    [
      "inotify watches at least 524288",
      { inotify: j({ maxUserWatches: 8192 }) },
      "nvcf:inotify.maxUserWatches",
      { inotify: j({ maxUserWatches: 524288 }) },
    ],
    [
      "control-plane stack is fully qualified",
      { controlPlaneStack: "dev" },
      "nvcf:controlPlaneStack",
      { controlPlaneStack: "acme/nvcf/dev" },
    ],
    [
      "registry key format",
      { registryKey: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL" },
      "nvcf:registryKey",
      { registryKey: undefined },
    ],
    [
      "GPU-cluster observability: the collector needs an operator (the control plane's mode rules)",
      { observability: j({ components: { otelOperator: "disabled" } }) },
      "nvcf:observability.components.otelOperator",
      { observability: j({ components: { otelOperator: "existing" } }) },
    ],
    [
      "GPU-cluster observability: the mode rules apply only where the stack installs it",
      { observability: j({ profile: "all", components: { prometheusOperatorCrds: "disabled" } }) },
      "nvcf:observability.components.prometheusOperatorCrds",
      { observability: j({ profile: "control", components: { prometheusOperatorCrds: "disabled" } }) },
    ],
    [
      "GPU-cluster observability: an existing backend needs its remote-write URL",
      { observability: j({ metricsBackend: { mode: "existing", type: "external" } }) },
      "nvcf:observability.metricsBackend.remoteWriteEndpoint",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            remoteWriteEndpoint: "https://metrics.example.com/write",
          },
        }),
      },
    ],
    [
      "GPU-cluster observability: bundle 0.6.1 ships no observability stack to install",
      { bundleVersion: "0.6.1", observability: j({ install: true }) },
      "nvcf:observability.install",
      { bundleVersion: "0.6.1", observability: j({ install: false }) },
    ],
    [
      "GPU-cluster observability: settings of control-plane services are not keys of a GPU cluster",
      { observability: j({ tracing: { enabled: true } }) },
      "nvcf:observability.tracing",
      { observability: j({ namespace: "observability" }) },
    ],
  ];
  test.each(cases)("%s", (_name, bad, key, good) => {
    expect(keys(baseCompute(bad))).toContain(key);
    expect(keys(baseCompute(good))).toEqual([]);
  });

  test("the GPU-cluster observability problems say what was expected, what was found and the fix", () => {
    expect(problems(baseCompute({ bundleVersion: "0.6.1", observability: j({ install: true }) }))).toEqual([
      {
        key: "nvcf:observability.install",
        text:
          "unset or false: NVCF bundle 0.6.1 ships no observability stack (docs/v0.6.1/manifest.md lists none of its charts) | true | " +
          "pulumi config rm --path nvcf:observability.install (NVCA's collector and gate still follow nvcf:observability.profile), or set nvcf:bundleVersion to 0.7.0 or 0.8.0",
      },
    ]);
    expect(
      problems(baseCompute({ observability: j({ components: { targetAllocator: "existing" } }) })),
    ).toEqual([
      {
        key: "nvcf:observability.components.targetAllocator",
        text:
          'install or disabled when the stack installs the collector (existing needs an existing collector) | "existing" | ' +
          "set components.targetAllocator to install or disabled, or components.collector to existing",
      },
    ]);
  });
});

test("a config with many mistakes lists every one at once, secrets redacted", () => {
  const raw = baseControl({
    bundleVersion: "0.6.1",
    domain: "localhost",
    remoteAccess: "true",
    registryKey: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL",
    cassandraPassword: "ch@ng3m3",
    cassandra: j({ preset: "small", replicas: "3x" }),
    accounts: j({ limits: { maxFunctions: 100, maxTasks: 0 } }),
    gateway: j({ routes: { nats: true } }),
    addons: j({ llm: { enabled: true, requestRouterAddress: "nohost" }, nvcfUi: { enabled: true } }),
    observability: j({ metricsBackend: { mode: "existing" } }),
    stateMetrics: j({ enabled: false }),
    charts: j({ source: "local" }),
    bogusKey: "1",
  });
  let err: ConfigError | undefined;
  try {
    validateConfig(raw, SECRET, "prod");
  } catch (e) {
    err = e as ConfigError;
  }
  expect(err).toBeInstanceOf(ConfigError);
  const got = err!.problems.map((p) => p.key);
  for (const k of [
    "nvcf:bogusKey",
    "nvcf:cassandra.replicas",
    "nvcf:registryKey",
    "nvcf:cassandraPassword",
    "nvcf:accounts.limits.maxFunctions",
    "nvcf:accounts.limits.maxTasks",
    "nvcf:gateway.controllerNamespace",
    "nvcf:gateway.shared.name",
    "nvcf:gateway.nats.name",
    "nvcf:domain",
    "nvcf:addons.llm.enabled",
    "nvcf:addons.nvcfUi.enabled",
    "nvcf:charts.path",
    "nvcf:stateMetrics.enabled",
    // Bundle 0.6.1 installs no observability stack, so only the function autoscaler's rule of an existing
    // backend applies (the stack's own mode rules, e.g. metricsBackend.type, do not).
    "nvcf:observability.metricsBackend.promqlEndpoint",
  ]) {
    expect(got).toContain(k);
  }
  expect(got.length).toBeGreaterThanOrEqual(15);
  expect(err!.message).toMatch(/has \d+ config problems; nothing was changed/);
  expect(err!.message).not.toContain(sentinel("registryKey"));
});

test("secret values never appear in problem messages", () => {
  const key = Buffer.from("$oauthtoken:SENTINEL-leak").toString("base64");
  try {
    validateConfig(baseControl({ registryKey: key }), SECRET, "prod");
    throw new Error("expected a ConfigError");
  } catch (e) {
    expect((e as Error).message).toMatch(
      /nvcf:registryKey: expected the plain registry key or password, found \[secret\]/,
    );
    expect((e as Error).message).not.toContain(key);
  }
});

test("stack files in the repo are the ones the README documents", () => {
  const readme = fs.existsSync(path.join(ROOT, "README.md"))
    ? fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
    : "";
  for (const f of fs.readdirSync(ROOT).filter((x) => /^Pulumi\..+\.yaml$/.test(x)))
    expect(readme).toContain(f);
});
