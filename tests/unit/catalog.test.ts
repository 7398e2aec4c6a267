/**
 * The release catalog against the spec: prerequisite edges (§1.4), chart versions per bundle (§5.2),
 * namespaces (§1.3a). Expected data is written here from the spec, independently of catalog/releases.ts.
 */
import {
  BUNDLE_VERSIONS,
  COMPUTE_PLANE_RELEASES,
  CONTROL_PLANE_RELEASES,
  activeNeeds,
  chartVersion,
  enabledReleases,
  inDependencyOrder,
  releaseSpec,
} from "../../catalog/releases";
import { validateConfig } from "../../config/load";
import type { ControlPlaneConfig } from "../../config/schema";
import { controlFlags } from "../../values/control";
import { baseControl } from "./fixtures/configs";

/** Spec §1.4 edges with everything enabled (observability installs, LLM PKI managed, nvcf-ui on). */
const SPEC_EDGES: Record<string, string[]> = {
  "prometheus-operator-crds": [],
  "opentelemetry-operator": ["prometheus-operator-crds"],
  "victoria-metrics": [],
  "otel-collector": ["opentelemetry-operator", "prometheus-operator-crds", "victoria-metrics"],
  "default-monitors": ["prometheus-operator-crds"],
  nats: [],
  "cert-manager": [],
  "openbao-server": ["nats"],
  "nvcf-pki": ["openbao-server", "cert-manager"],
  cassandra: [],
  "api-keys": [],
  sis: [],
  api: ["ess-api"],
  "nvct-api": [],
  "invocation-service": ["api"],
  "grpc-proxy": ["api"],
  ratelimiter: ["api"],
  "ess-api": [],
  "notary-service": [],
  "admin-issuer-proxy": [],
  reval: [],
  "nats-auth-callout-service": [],
  "llm-request-router": ["api"],
  "llm-api-gateway": ["llm-request-router"],
  "vanity-gateway": ["invocation-service"],
  "nvcf-ui": [],
  ingress: ["notary-service", "api-keys", "nvcf-ui"],
  "state-metrics": [],
  "function-autoscaler": ["state-metrics"],
};

const everything = (): ControlPlaneConfig =>
  validateConfig(
    baseControl({
      addons: JSON.stringify({
        llm: {
          enabled: true,
          pki: {
            enabled: true,
            dnsNames: ["llm-request-router.nvcf.svc.cluster.local"],
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

describe("prerequisite edges (spec §1.4)", () => {
  const cfg = everything();
  const flags = controlFlags(cfg);

  test("with everything on, each release needs exactly the spec's releases", () => {
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

  test("no stage barriers: stage-2 services without needs have no edge to stage 1", () => {
    for (const name of [
      "api-keys",
      "sis",
      "nvct-api",
      "ess-api",
      "notary-service",
      "admin-issuer-proxy",
      "reval",
    ]) {
      expect(releaseSpec(name).needs).toEqual([]);
    }
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

  test("compute-plane dependency rules (spec §2.3)", () => {
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

describe("chart versions per bundle (spec §5.2)", () => {
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

  test("chart names follow helm-nvcf-<release> where the spec says so", () => {
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

test("fixed namespaces (spec §1.3a, §4 row 17)", () => {
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
