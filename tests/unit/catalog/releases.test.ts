/**
 * The release catalog against docs/upstream-facts.md: prerequisite edges (§1.4), chart versions per bundle (§5.2),
 * namespaces (§1.3a). Expected data is written here from docs/upstream-facts.md, independently of catalog/releases.ts.
 */
import {
  ALL_RELEASES,
  BUNDLE_VERSIONS,
  COMPUTE_PLANE_RELEASES,
  CONTROL_PLANE_RELEASES,
  NEED_KINDS,
  activeNeeds,
  chartVersion,
  configNamespaces,
  enabledReleases,
  inDependencyOrder,
  planeReleases,
  releaseSpec,
  resolveNamespace,
  versionAtLeast,
} from "../../../catalog/releases";
import { validateConfig } from "../../../config/load";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";
import { helmfileNeeds } from "../../../tools/bench-stages";
import { computeFlags, controlFlags } from "../../../config/flags";
import { baseCompute, baseControl } from "../fixtures/configs";

/**
 * Facts from NVIDIA/nvcf HEAD, written here independently of catalog/releases.ts:
 * - charts whose pod templates carry `vault.hashicorp.com/agent-inject: "true"` (deploy/helm/<dir>/templates/
 *   _helpers.tpl of admin-token-issuer-proxy, api-keys-colocated, cloud-functions, cloud-tasks,
 *   encrypted-secret-store, function-autoscaler, grpc-proxy, http-invocation, icms, llm-api-gateway,
 *   llm-request-router, notary, ratelimiter), plus nats-auth-callout-service (its vault agent reads the
 *   credentials migrations/openbao 19_setup_nats-auth-callout.sh provisions) and nvcf-ui (the stack adds its
 *   namespace to the injector's selector; its OpenBao migrations job writes to OpenBao);
 * - services with a keyspace in migrations/cassandra/keyspaces (api_keys_api, sis_api, nvcf_api, nvct_api,
 *   ess_api, nvcf_autoscaler), created by helm-nvcf-cassandra's post-install migrations hook.
 * Charts without injection: helm-reval, vanity-gateway (base.yaml: "does not create Vault Agent injection"),
 * nvcf-gateway-routes, state-metrics, and the dependencies and observability charts.
 */
const INJECTED = [
  "admin-issuer-proxy",
  "api-keys",
  "api",
  "nvct-api",
  "ess-api",
  "function-autoscaler",
  "grpc-proxy",
  "invocation-service",
  "sis",
  "llm-api-gateway",
  "llm-request-router",
  "notary-service",
  "ratelimiter",
  "nats-auth-callout-service",
  "nvcf-ui",
];
const KEYSPACE_OWNERS = ["api-keys", "sis", "api", "nvct-api", "ess-api", "function-autoscaler"];

/**
 * NVIDIA's helmfile `needs` (self-managed 01/02/03 and observability 01), with everything enabled: the one
 * restatement of those files, shared with the benchmark's stage-barrier schedule (tools/bench-stages.ts).
 */
const HELMFILE_EDGES: Record<string, string[]> = helmfileNeeds();

/** The expected edges: NVIDIA's, the injector and schema prerequisites, and the router's Certificate issuer. */
const SPEC_EDGES: Record<string, string[]> = Object.fromEntries(
  Object.entries(HELMFILE_EDGES).map(([r, needs]) => {
    const all = new Set(needs);
    if (INJECTED.includes(r)) all.add("openbao-server");
    if (KEYSPACE_OWNERS.includes(r)) all.add("cassandra");
    // The router's Certificate names ClusterIssuer nvcf-openbao-pki, which the nvcf-pki release creates.
    if (r === "llm-request-router") all.add("nvcf-pki");
    // victoria-metrics-single renders a ServiceMonitor (server.serviceMonitor.enabled, which the stack turns on):
    // a monitoring.coreos.com kind, so the CRDs must be installed first.
    if (r === "victoria-metrics") all.add("prometheus-operator-crds");
    return [r, [...all]];
  }),
);

const everything = (): ControlPlaneConfig =>
  validateConfig(
    baseControl({
      addons: JSON.stringify({
        llm: {
          enabled: true,
          pki: {
            enabled: true,
            dnsNames: [
              "llm-request-router.nvcf.svc.cluster.local",
              "*.llm-request-router-headless.nvcf.svc.cluster.local",
            ],
            allowedDomains: "nvcf.svc.cluster.local",
            imageTag: "0.18.0",
          },
        },
        vanityGateway: { enabled: true },
        nvcfUi: { enabled: true },
      }),
    }),
    new Set(["registryKey"]),
    "dev",
  ) as ControlPlaneConfig;

describe("prerequisite edges (docs/upstream-facts.md §1.4)", () => {
  const cfg = everything();
  const flags = controlFlags(cfg);

  test("with everything on, each release needs exactly the documented releases", () => {
    const got = Object.fromEntries(
      enabledReleases("control", "0.8.0", flags).map((r) => [r.name, activeNeeds(r, flags).sort()]),
    );
    const want = Object.fromEntries(Object.entries(SPEC_EDGES).map(([k, v]) => [k, [...v].sort()]));
    expect(got).toEqual(want);
  });

  test("conditional edges vanish with their condition", () => {
    const plain = validateConfig(
      baseControl({ certManager: '{"managed": false}' }),
      new Set(["registryKey"]),
      "dev",
    ) as ControlPlaneConfig;
    const f = controlFlags(plain);
    expect(activeNeeds(releaseSpec("ingress"), f)).toEqual(["notary-service", "api-keys"]);
    expect(activeNeeds(releaseSpec("nvcf-pki"), f)).toEqual(["openbao-server"]);
    expect(enabledReleases("control", "0.8.0", f).map((r) => r.name)).not.toContain("cert-manager");
  });

  test("no stage barriers: a service NVIDIA gives no needs waits only for OpenBao's injector and its schema", () => {
    for (const name of [
      "api-keys",
      "sis",
      "nvct-api",
      "ess-api",
      "notary-service",
      "admin-issuer-proxy",
      "reval",
    ]) {
      const want = [
        ...(INJECTED.includes(name) ? ["openbao-server"] : []),
        ...(KEYSPACE_OWNERS.includes(name) ? ["cassandra"] : []),
      ].sort();
      expect(activeNeeds(releaseSpec(name), flags).sort()).toEqual(want);
    }
  });

  test("every control-plane edge says why", () => {
    for (const r of CONTROL_PLANE_RELEASES)
      for (const n of r.needs)
        expect({ edge: `${r.name} -> ${n.release}`, reason: n.reason ?? "" }).toEqual({
          edge: `${r.name} -> ${n.release}`,
          reason: expect.stringMatching(/\w{3,}.*\w{3,}/),
        });
  });

  test("agent-injected pods never start before the injector; keyspace readers never before Cassandra", () => {
    const order = inDependencyOrder(enabledReleases("control", "0.8.0", flags), flags).map((r) => r.name);
    for (const r of INJECTED) expect(order.indexOf("openbao-server")).toBeLessThan(order.indexOf(r));
    for (const r of KEYSPACE_OWNERS) expect(order.indexOf("cassandra")).toBeLessThan(order.indexOf(r));
    // No other release waits for OpenBao or Cassandra (only nvcf-pki, which signs through OpenBao).
    for (const r of enabledReleases("control", "0.8.0", flags)) {
      const needs = activeNeeds(r, flags);
      if (!INJECTED.includes(r.name) && r.name !== "nvcf-pki") expect(needs).not.toContain("openbao-server");
      if (!KEYSPACE_OWNERS.includes(r.name)) expect(needs).not.toContain("cassandra");
    }
  });

  test("with OpenBao or Cassandra managed outside the stack, their edges vanish", () => {
    const ext = validateConfig(
      baseControl({ openbao: '{"enabled": false}', cassandra: '{"enabled": false}' }),
      new Set(["registryKey"]),
      "dev",
    ) as ControlPlaneConfig;
    const f = controlFlags(ext);
    const rels = enabledReleases("control", "0.8.0", f);
    for (const r of rels) expect(activeNeeds(r, f)).not.toContain("openbao-server");
    for (const r of rels) expect(activeNeeds(r, f)).not.toContain("cassandra");
    expect(() => inDependencyOrder(rels, f)).not.toThrow();
  });

  test("every need names a release of the same plane, and the install order puts needs first", () => {
    for (const list of [CONTROL_PLANE_RELEASES, COMPUTE_PLANE_RELEASES]) {
      const names = list.map((r) => r.name);
      for (const r of list) for (const n of r.needs) expect(names).toContain(n.release);
    }
    const order = inDependencyOrder(enabledReleases("control", "0.8.0", flags), flags).map((r) => r.name);
    expect(order.indexOf("ess-api")).toBeLessThan(order.indexOf("api"));
    for (const r of enabledReleases("control", "0.8.0", flags))
      for (const n of activeNeeds(r, flags)) expect(order.indexOf(n)).toBeLessThan(order.indexOf(r.name));
  });

  test("an enabled release whose need is disabled is a catalog error, not a silently dropped edge", () => {
    const api = releaseSpec("api");
    expect(() => inDependencyOrder([api], flags)).toThrow(/needs "ess-api", which is not enabled/);
  });

  test("compute-plane dependency rules (docs/upstream-facts.md §2.3)", () => {
    const needs = (n: string) =>
      releaseSpec(n)
        .needs.map((x) => x.release)
        .sort();
    expect(needs("nvcf-kai-topology")).toEqual(["kai-scheduler"]);
    expect(needs("grove-operator")).toEqual(["kai-scheduler"]);
    expect(needs("nvcf-grove-topology")).toEqual(["grove-operator", "nvcf-kai-topology"]);
    expect(needs("dynamo-operator")).toEqual(["grove-operator"]);
    expect(needs("nvca-operator")).toEqual([]);
  });
});

describe("chart versions per bundle (docs/upstream-facts.md §5.2)", () => {
  const v = (rel: string, b: (typeof BUNDLE_VERSIONS)[number]) => releaseSpec(rel).versions[b];
  test.each([
    ["cassandra", "0.18.0", "0.17.0", "0.20.1"],
    ["api", "1.23.9", "1.23.9", "1.25.1"],
    ["sis", "1.18.8", "2.0.0", "2.0.0"],
    ["grpc-proxy", "1.6.7", "1.6.7", "1.7.1"],
    ["ess-api", "1.6.1", "1.7.0", "1.7.2"],
    ["ratelimiter", "1.0.3", "1.1.0", "1.1.0"],
    ["ingress", "1.14.0", "1.15.0", "1.15.0"],
    ["state-metrics", "1.0.1", "1.0.1", "1.0.2"],
    ["vanity-gateway", "0.1.0-nvcf-10204.1", "0.1.0-nvcf-10204.1", "0.3.0"],
    ["nvca-operator", "1.12.7", "1.14.0", "1.21.3"],
    ["openbao-server", "0.30.25", "0.30.25", "0.30.25"],
    ["nats", "0.7.1", "0.7.1", "0.7.1"],
  ])("%s: 0.6.1=%s 0.7.0=%s 0.8.0=%s", (rel, a, b, c) => {
    expect([v(rel, "0.6.1"), v(rel, "0.7.0"), v(rel, "0.8.0")]).toEqual([a, b, c]);
  });

  test("releases a bundle does not ship", () => {
    expect(v("nvcf-pki", "0.7.0")).toBeUndefined();
    expect(v("llm-request-router", "0.6.1")).toBeUndefined();
    expect(v("nvcf-ui", "0.6.1")).toBeUndefined();
    expect(v("function-autoscaler", "0.6.1")).toBeUndefined();
  });

  test("a per-release override wins over the bundle pin", () => {
    expect(chartVersion(releaseSpec("cassandra"), "0.8.0", { cassandra: "0.20.2" })).toBe("0.20.2");
    expect(chartVersion(releaseSpec("cassandra"), "0.8.0", {})).toBe("0.20.1");
    expect(() => chartVersion(releaseSpec("nvcf-pki"), "0.7.0", {})).toThrow(/not part of NVCF bundle 0.7.0/);
  });

  test("chart names follow helm-nvcf-<release> where NVIDIA's stack says so", () => {
    for (const r of [
      "nats",
      "cassandra",
      "api-keys",
      "sis",
      "api",
      "nvct-api",
      "invocation-service",
      "grpc-proxy",
      "ess-api",
      "notary-service",
      "state-metrics",
    ]) {
      expect(releaseSpec(r).chart).toBe(`helm-nvcf-${r}`);
    }
    expect(releaseSpec("ingress").chart).toBe("nvcf-gateway-routes");
    expect(releaseSpec("admin-issuer-proxy").chart).toBe("helm-admin-token-issuer-proxy");
    expect(releaseSpec("ratelimiter").chart).toBe("helm-nvcf-rate-limiter");
  });
});

test("fixed namespaces (docs/upstream-facts.md §1.3a, §4 row 17)", () => {
  const ns = (n: string) => {
    const s = releaseSpec(n).namespace;
    return "fixed" in s ? s.fixed : s.fromConfig;
  };
  expect(ns("openbao-server")).toBe("vault-system");
  expect(ns("cassandra")).toBe("cassandra-system");
  expect(ns("nats")).toBe("nats-system");
  expect(ns("nats-auth-callout-service")).toBe("nats-system");
  expect(ns("admin-issuer-proxy")).toBe("api-keys");
  expect(ns("sis")).toBe("sis");
  expect(ns("ess-api")).toBe("ess");
  expect(ns("nvcf-ui")).toBe("nvcf-ui");
  expect(ns("nvcf-pki")).toBe("cert-manager");
  expect(ns("ingress")).toBe("gatewayControllerNamespace");
  for (const n of [
    "api",
    "nvct-api",
    "invocation-service",
    "grpc-proxy",
    "ratelimiter",
    "notary-service",
    "reval",
    "state-metrics",
  ])
    expect(ns(n)).toBe("nvcf");
  expect(ns("nvca-operator")).toBe("nvca-operator");
});

describe("compute-plane releases per bundle (NVIDIA's deploy/stacks/nvcf-compute-plane per tag)", () => {
  const SECRET = new Set(["registryKey"]);
  const cfg = (over: Record<string, string>) =>
    validateConfig(baseCompute(over), SECRET, "prod") as ComputePlaneConfig;
  const names = (bundle: (typeof BUNDLE_VERSIONS)[number]) =>
    COMPUTE_PLANE_RELEASES.filter((r) => r.versions[bundle] !== undefined).map((r) => r.name);
  const ALL = JSON.stringify({
    kaiScheduler: { enabled: true },
    groveOperator: { enabled: true },
    dynamoOperator: { enabled: true },
    topologyAwareScheduling: { enabled: true },
  });

  test("0.6.1 ships only the operator; 0.7.0 adds Grove, Dynamo and the observability stack; 0.8.0 adds KAI and the topology charts", () => {
    // docs/user/manifest.md lists helm-nvca-operator as the only compute chart of 0.6.1 (and no observability
    // stack); the v0.7.0 01-dependencies file has grove-operator and dynamo-operator only; the observability
    // stack (deploy/stacks/observability) is the same at v0.7.0 and HEAD.
    expect(names("0.6.1")).toEqual(["nvca-operator"]);
    expect(names("0.7.0").sort()).toEqual(
      ["dynamo-operator", "grove-operator", "nvca-operator", ...OBSERVABILITY].sort(),
    );
    expect(names("0.8.0").sort()).toEqual(
      [
        "dynamo-operator",
        "grove-operator",
        "kai-scheduler",
        "nvca-operator",
        "nvcf-grove-topology",
        "nvcf-kai-topology",
        ...OBSERVABILITY,
      ].sort(),
    );
  });

  test.each([
    ["kai-scheduler", undefined, "v0.16.7"],
    ["grove-operator", "v0.1.0-alpha.9", "v0.1.0-alpha.11"],
    ["dynamo-operator", "1.2.1", "1.2.1"],
    ["nvcf-kai-topology", undefined, "0.1.0"],
  ])("%s: 0.7.0=%s 0.8.0=%s", (rel, a, b) => {
    expect([releaseSpec(rel).versions["0.7.0"], releaseSpec(rel).versions["0.8.0"]]).toEqual([a, b]);
  });

  test("every compute-plane edge says why", () => {
    for (const r of COMPUTE_PLANE_RELEASES)
      for (const n of r.needs) expect(n.reason ?? "").toMatch(/\w{3,}.*\w{3,}/);
  });

  test("every edge of either plane has a kind of NEED_KINDS, the one word the graph labels it with", () => {
    const kinds = Object.keys(NEED_KINDS);
    let n = 0;
    for (const r of ALL_RELEASES)
      for (const need of r.needs) {
        expect(kinds).toContain(need.kind);
        expect(need.kind).toMatch(/^\w+$/);
        n++;
      }
    expect(n).toBeGreaterThan(30);
    // The shared edges carry the kind of their reason.
    const api = releaseSpec("api").needs;
    expect(api.find((x) => x.release === "cassandra")?.kind).toBe("schema");
    expect(api.find((x) => x.release === "openbao-server")?.kind).toBe("webhook");
    expect(api.find((x) => x.release === "ess-api")?.kind).toBe("helmfile");
  });

  test("0.7.0 installs Grove and Dynamo without KAI, in order; asking for KAI or topology there is a config error", () => {
    const c = cfg({
      bundleVersion: "0.7.0",
      addons: JSON.stringify({ groveOperator: { enabled: true }, dynamoOperator: { enabled: true } }),
    });
    const f = computeFlags(c);
    const order = inDependencyOrder(enabledReleases("compute", "0.7.0", f), f).map((r) => r.name);
    expect(order.indexOf("grove-operator")).toBeLessThan(order.indexOf("dynamo-operator"));
    expect(order).not.toContain("kai-scheduler");
    expect(() => cfg({ bundleVersion: "0.7.0", addons: ALL })).toThrow(
      /addons\.kaiScheduler\.enabled: expected false: NVCF bundle 0\.7\.0 does not ship kai-scheduler/,
    );
    expect(() => cfg({ bundleVersion: "0.7.0", addons: ALL })).toThrow(/does not ship nvcf-kai-topology/);
    expect(() =>
      cfg({ bundleVersion: "0.6.1", addons: JSON.stringify({ groveOperator: { enabled: true } }) }),
    ).toThrow(/does not ship grove-operator/);
  });

  test("settings a bundle's charts cannot take are config errors, not silent drops", () => {
    // grove-charts v0.1.0-alpha.9 (0.7.0) has no nodeSelector value; agent.byooOtelCollector needs chart 1.21.
    expect(() =>
      cfg({
        bundleVersion: "0.7.0",
        addons: JSON.stringify({ groveOperator: { enabled: true } }),
        placement: JSON.stringify({ nodeSelector: { key: "pool", value: "gpu" } }),
      }),
    ).toThrow(/placement\.nodeSelector: expected unset while Grove is on in bundle 0\.7\.0/);
    expect(() =>
      cfg({
        bundleVersion: "0.7.0",
        nvcaOperator: JSON.stringify({ byooOtelCollectorImageRepository: "m/byoo" }),
      }),
    ).toThrow(/byooOtelCollectorImageRepository: expected unset with helm-nvca-operator 1\.14\.0/);
    expect(() =>
      cfg({ nvcaOperator: JSON.stringify({ byooOtelCollectorImageRepository: "m/byoo" }) }),
    ).not.toThrow();
  });

  test("0.8.0 with every add-on: KAI first, Grove after KAI, bindings after both topology inputs, Dynamo after Grove", () => {
    const f = computeFlags(cfg({ addons: ALL }));
    const order = inDependencyOrder(enabledReleases("compute", "0.8.0", f), f).map((r) => r.name);
    const before = (a: string, b: string) => expect(order.indexOf(a)).toBeLessThan(order.indexOf(b));
    before("kai-scheduler", "grove-operator");
    before("kai-scheduler", "nvcf-kai-topology");
    before("grove-operator", "nvcf-grove-topology");
    before("nvcf-kai-topology", "nvcf-grove-topology");
    before("grove-operator", "dynamo-operator");
    expect(order.filter((r) => !OBSERVABILITY.includes(r))).toHaveLength(6);
  });
});

/** NVIDIA's observability stack (deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl), written here. */
const OBSERVABILITY = [
  "prometheus-operator-crds",
  "opentelemetry-operator",
  "victoria-metrics",
  "otel-collector",
  "default-monitors",
];

describe("a release of both planes: NVIDIA's observability stack, once per cluster", () => {
  const SECRET = new Set(["registryKey"]);
  const compute = (over: Record<string, string> = {}) =>
    validateConfig(baseCompute(over), SECRET, "prod") as ComputePlaneConfig;

  test("each is one catalog entry listed on both planes; every other release on exactly one", () => {
    for (const name of OBSERVABILITY) {
      const spec = releaseSpec(name);
      expect([name, spec.planes]).toEqual([name, ["control", "compute"]]);
      expect(CONTROL_PLANE_RELEASES.filter((r) => r === spec)).toHaveLength(1);
      expect(COMPUTE_PLANE_RELEASES.filter((r) => r === spec)).toHaveLength(1);
    }
    for (const r of ALL_RELEASES.filter((x) => !OBSERVABILITY.includes(x.name))) {
      expect([r.name, r.planes.length]).toEqual([r.name, 1]);
      expect(planeReleases(r.planes[0]).includes(r)).toBe(true);
    }
    expect(new Set(ALL_RELEASES.map((r) => r.name)).size).toBe(ALL_RELEASES.length);
  });

  test("bundles 0.7.0 and 0.8.0 ship it (the same stack at both tags), 0.6.1 does not", () => {
    for (const name of OBSERVABILITY)
      expect([name, Object.keys(releaseSpec(name).versions).sort()]).toEqual([name, ["0.7.0", "0.8.0"]]);
  });

  test("a GPU cluster installs it for profile compute or all, in the observability namespace, with NVIDIA's edges", () => {
    for (const profile of ["compute", "all"]) {
      const c = compute({ observability: JSON.stringify({ profile, namespace: "obs" }) });
      const f = computeFlags(c);
      const order = inDependencyOrder(enabledReleases("compute", "0.8.0", f), f).map((r) => r.name);
      expect(order.filter((r) => OBSERVABILITY.includes(r))).toEqual(OBSERVABILITY);
      expect(
        Object.fromEntries(
          enabledReleases("compute", "0.8.0", f)
            .filter((r) => OBSERVABILITY.includes(r.name))
            .map((r) => [r.name, activeNeeds(r, f).sort()]),
        ),
      ).toEqual(Object.fromEntries(OBSERVABILITY.map((r) => [r, [...SPEC_EDGES[r]].sort()])));
      for (const r of OBSERVABILITY)
        expect(resolveNamespace(releaseSpec(r), configNamespaces(c))).toBe("obs");
    }
    for (const profile of ["control", "disabled"]) {
      const f = computeFlags(compute({ observability: JSON.stringify({ profile }) }));
      expect(enabledReleases("compute", "0.8.0", f).map((r) => r.name)).toEqual(["nvca-operator"]);
    }
    const off = computeFlags(compute({ observability: JSON.stringify({ install: false }) }));
    expect(enabledReleases("compute", "0.8.0", off).map((r) => r.name)).toEqual(["nvca-operator"]);
    const none = computeFlags(compute({ bundleVersion: "0.6.1" }));
    expect(enabledReleases("compute", "0.6.1", none).map((r) => r.name)).toEqual(["nvca-operator"]);
  });

  test("component modes existing and disabled drop a release and the edges to it, as on the control plane", () => {
    const c = compute({
      observability: JSON.stringify({
        components: { prometheusOperatorCrds: "existing", otelOperator: "existing" },
        metricsBackend: {
          mode: "existing",
          type: "external",
          remoteWriteEndpoint: "https://m.example.com/w",
        },
      }),
    });
    const f = computeFlags(c);
    const rels = enabledReleases("compute", "0.8.0", f);
    expect(rels.map((r) => r.name).filter((r) => OBSERVABILITY.includes(r))).toEqual([
      "otel-collector",
      "default-monitors",
    ]);
    for (const r of rels) expect([r.name, activeNeeds(r, f)]).toEqual([r.name, []]);
  });
});

test("versionAtLeast compares dotted numbers, ignoring a leading v and pre-release or build suffixes", () => {
  expect(versionAtLeast("1.12.0", "1.12.0")).toBe(true);
  expect(versionAtLeast("1.11.9", "1.12.0")).toBe(false);
  expect(versionAtLeast("1.21.3", "1.12.0")).toBe(true);
  expect(versionAtLeast("v0.18.0", "0.18.0")).toBe(true);
  expect(versionAtLeast("0.18.0-rc.1", "0.18.0")).toBe(true);
  expect(versionAtLeast("0.17.10", "0.18.0")).toBe(false);
  expect(versionAtLeast("1.2", "1.2.0")).toBe(true);
  expect(versionAtLeast("0", "1.12.0")).toBe(false);
});
