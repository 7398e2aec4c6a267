/**
 * Config that cannot mean anything (config/meaning.ts), as `validateConfig` refuses it with every other problem:
 * releaseValues keys the chart does not declare (at every depth, local charts and the key cache), the mark that
 * lets one through and the preview lines about them, config keys in a near miss of the `nvcf` namespace, and
 * routes of any kind that claim the same traffic.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { cacheLocation, chartKeysFromSources, writeChartKeysCache } from "../../../config/chartKeys";
import { type ValidationEnvironment, parseRaw, validateConfig } from "../../../config/load";
import { namespaceProblems, nearness, routeProblems } from "../../../config/meaning";
import { ConfigError, type Problem, formatProblem } from "../../../config/problems";
import { type ControlPlaneConfig, SECRET_KEYS, controlPlaneSchema } from "../../../config/schema";
import { resolveChart } from "../../../catalog/sources";
import { baseCompute, baseControl } from "../fixtures/configs";
import { ROOT } from "../support/harness";

const SECRET: ReadonlySet<string> = new Set(SECRET_KEYS);
const j = (v: unknown) => JSON.stringify(v);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-meaning-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const CACHE = path.join(tmp, "cache");
const LOCAL = j({ source: "local", path: "tests/charts" });

/** Validates with the chart keys of the stand-ins (or the cache) and collects the preview's lines. */
function check(raw: Record<string, string>, extra: ValidationEnvironment = {}) {
  const notes: string[] = [];
  let problems: Problem[] = [];
  try {
    validateConfig(raw, SECRET, "prod", {
      chartKeys: chartKeysFromSources(ROOT, CACHE),
      note: (level, m) => notes.push(`${level}: ${m}`),
      ...extra,
    });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problems = [...e.problems];
  }
  return { problems, notes, keys: problems.map((p) => p.key) };
}

describe("releaseValues keys against what the chart declares", () => {
  test("a misspelt key below the values key is refused, naming the chart, its version, the nearest key and both ways out", () => {
    const r = check(
      baseControl({ charts: LOCAL, releaseValues: j({ cassandra: { cassandra: { replicaCont: 5 } } }) }),
    );
    expect(r.problems.map(formatProblem)).toEqual([
      "nvcf:releaseValues.cassandra.cassandra.replicaCont: expected a key chart helm-nvcf-cassandra 0.20.1 declares under cassandra (its values.schema.json and values.yaml, read from ./tests/charts/helm-nvcf-cassandra): did you mean replicaCount?, found a key the chart does not declare, so it would be ignored. Fix: pulumi config rm --path nvcf:releaseValues.cassandra.cassandra.replicaCont, then set nvcf:releaseValues.cassandra.cassandra.replicaCount; or, if the chart reads it all the same, pulumi config set --path 'nvcf:releaseValuesUnchecked[0]' cassandra.cassandra.replicaCont",
    ]);
  });

  test("every depth is checked, every problem listed; free-form maps and lists are not looked into", () => {
    const r = check(
      baseControl({
        charts: LOCAL,
        releaseValues: j({
          cassandra: {
            cassandra: {
              persistence: { sise: "20Gi" },
              resources: { limits: { cpu: "2", anything: "goes" } },
              tolerations: [{ key: "k", whatever: 1 }],
            },
          },
          api: { api: { replicaCuont: 2 } },
        }),
      }),
    );
    expect(r.keys.sort()).toEqual(
      [
        "nvcf:releaseValues.api.api.replicaCuont",
        "nvcf:releaseValues.cassandra.cassandra.persistence.sise",
      ].sort(),
    );
    expect(r.problems.find((p) => p.key.endsWith("sise"))?.expected).toMatch(
      /declares under cassandra\.persistence .*did you mean size\?/,
    );
    // Each fix's mark takes its own list index.
    expect(r.problems.map((p) => /releaseValuesUnchecked\[(\d)\]/.exec(p.fix)?.[1]).sort()).toEqual([
      "0",
      "1",
    ]);
  });

  test("a top-level key other than the chart's values key is reported once (by the values-key rule)", () => {
    const r = check(baseControl({ charts: LOCAL, releaseValues: j({ api: { image: { tag: "1" } } }) }));
    expect(r.keys).toEqual(["nvcf:releaseValues.api.image"]);
  });

  test("a key marked in nvcf:releaseValuesUnchecked passes, with everything below it, and the preview lists it", () => {
    const r = check(
      baseControl({
        charts: LOCAL,
        releaseValues: j({ cassandra: { cassandra: { jvm: { extraOpts: "-X" }, replicaCount: 3 } } }),
        releaseValuesUnchecked: j(["cassandra.cassandra.jvm.extraOpts", "cassandra.cassandra.replicaCount"]),
      }),
    );
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([
      "info: nvcf:releaseValues.cassandra.cassandra.jvm.extraOpts is passed to chart helm-nvcf-cassandra 0.20.1 unchecked (nvcf:releaseValuesUnchecked: the chart does not declare it)",
      "info: nvcf:releaseValues.cassandra.cassandra.replicaCount is passed to chart helm-nvcf-cassandra 0.20.1 unchecked (nvcf:releaseValuesUnchecked; the chart declares it, so the mark can go)",
    ]);
  });

  test("a mark that names nothing set is refused", () => {
    const r = check(
      baseControl({ charts: LOCAL, releaseValuesUnchecked: j(["cassandra.cassandra.replicaCont"]) }),
    );
    expect(r.keys).toEqual(["nvcf:releaseValuesUnchecked[0]"]);
  });

  test("a remote chart not in the key cache is checked at its top level only, and the preview says so", () => {
    const r = check(baseControl({ releaseValues: j({ sis: { sis: { replicaCuont: 3 } } }) }));
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([
      `warn: nvcf:releaseValues.sis is checked only at its top level: the keys of chart helm-nvcf-sis 2.0.0 are not known (not in the key cache yet (${CACHE}); nvcf preflight fills it when it pulls the chart)`,
    ]);
  });

  test("once preflight cached the remote chart's keys, the same key is refused", () => {
    const settings = JSON.parse(baseControl()["charts"]) as {
      source: "oci";
      registry: string;
      repository: string;
    };
    const resolved = resolveChart(settings, "helm-nvcf-sis", "2.0.0", () => false);
    const out = path.join(tmp, "sis.tgz");
    const dir = path.join(ROOT, "tests/charts/helm-nvcf-sis");
    spawnSync("tar", ["-czf", out, "-C", path.dirname(dir), path.basename(dir)]);
    writeChartKeysCache("helm-nvcf-sis", "2.0.0", cacheLocation(resolved), fs.readFileSync(out), CACHE);
    const r = check(baseControl({ releaseValues: j({ sis: { sis: { replicaCuont: 3 } } }) }));
    expect(r.keys).toEqual(["nvcf:releaseValues.sis.sis.replicaCuont"]);
    expect(r.problems[0].expected).toContain("read from the key cache");
  });

  test("compute plane: a flat chart is checked from its top level", () => {
    const r = check(
      baseCompute({
        charts: LOCAL,
        addons: j({ kaiScheduler: { enabled: true } }),
        releaseValues: j({ "kai-scheduler": { scheduler: { placementStratgy: "spread" } } }),
      }),
    );
    expect(r.keys).toEqual(["nvcf:releaseValues.kai-scheduler.scheduler.placementStratgy"]);
    expect(r.problems[0].expected).toContain("did you mean placementStrategy?");
  });

  test("without a way to read charts, only the marks are checked", () => {
    const raw = baseControl({ releaseValues: j({ cassandra: { cassandra: { replicaCont: 5 } } }) });
    expect(() => validateConfig(raw, SECRET, "prod")).not.toThrow();
  });
});

describe("config keys in a near miss of the nvcf namespace", () => {
  test("transpositions, case and small edits are refused; Pulumi's and the providers' namespaces are not", () => {
    expect(nearness("nvfc", "nvcf")).toBe(1);
    const p = namespaceProblems([
      "nvfc:domain",
      "NVCF:storage",
      "ncvf:cassandra",
      "nvc:bundleVersion",
      "nvcf:domain",
      "kubernetes:context",
      "aws:region",
      "pulumi:template",
      "myapp:setting",
    ]);
    expect(p.map((x) => x.key)).toEqual([
      "nvfc:domain",
      "NVCF:storage",
      "ncvf:cassandra",
      "nvc:bundleVersion",
    ]);
    expect(formatProblem(p[0])).toBe(
      'nvfc:domain: expected a key in the nvcf namespace (this program reads nvcf:domain; nothing reads nvfc:domain, so nvcf:domain keeps its default), found a key in namespace "nvfc". Fix: pulumi config rm nvfc:domain, then set the same value as nvcf:domain',
    );
  });

  test("listed with every other problem, also when the nvcf: config itself is fine", () => {
    const r = check(baseControl(), { configKeys: ["nvcf:plane", "nvfc:domain"] });
    expect(r.keys).toEqual(["nvfc:domain"]);
    const both = check(baseControl({ cassandra: j({ replicas: 0 }) }), { configKeys: ["nvfc:domain"] });
    expect(both.keys).toEqual(["nvcf:cassandra.replicas", "nvfc:domain"]);
  });
});

describe("routes that claim the same traffic, across route kinds", () => {
  // Parsed by the schema alone: validateConfig would refuse these configs for the very conflicts tested here.
  const cfg = (over: Record<string, string> = {}) =>
    controlPlaneSchema.parse(
      Object.fromEntries(
        Object.entries(baseControl(over)).map(([k, v]) => [k, k === "registryKey" ? v : parseRaw(v)]),
      ),
    ) as ControlPlaneConfig;
  const gateway = (routes: unknown, extra: object = {}) =>
    j({
      controllerNamespace: "envoy-gateway-system",
      shared: { name: "nvcf-gateway", namespace: "envoy-gateway" },
      grpc: { name: "nvcf-gateway", namespace: "envoy-gateway" },
      routes,
      ...extra,
    });

  test("the defaults claim nothing twice (admin-token-issuer-proxy shares api-keys' hostname on its own path)", () => {
    expect(routeProblems(cfg())).toEqual([]);
    expect(
      routeProblems(
        cfg({ gateway: gateway({ nvcfApiGrpc: { enabled: true }, nvctApiGrpc: { enabled: true } }) }),
      ),
    ).toEqual([]);
  });

  test("two GRPCRoutes with one hostname", () => {
    const p = routeProblems(
      cfg({
        gateway: gateway({
          nvcfApiGrpc: { enabled: true, hostnames: ["grpc.nvcf.example.com"] },
          nvctApiGrpc: { enabled: true, hostnames: ["GRPC.nvcf.example.com."] },
        }),
      }),
    );
    expect(p.map(formatProblem)).toEqual([
      "nvcf:gateway.routes.nvctApiGrpc.hostnames: expected hostnames no other route of the program uses on Gateway envoy-gateway/nvcf-gateway listener http (both match every gRPC service, so one API's calls may reach the other's backend), found \"grpc.nvcf.example.com\" on both GRPCRoute nvcf-api-grpc and GRPCRoute nvct-api-grpc. Fix: give GRPCRoute nvct-api-grpc its own hostname: pulumi config set --path 'nvcf:gateway.routes.nvctApiGrpc.hostnames[0]' <hostname>",
    ]);
  });

  test.each([
    [
      "a GRPCRoute on an HTTPRoute's hostname (GEP-1016)",
      { gateway: gateway({ nvcfApiGrpc: { enabled: true, hostnames: ["api.nvcf.example.com"] } }) },
      "nvcf:gateway.routes.nvcfApiGrpc.hostnames",
      '"api.nvcf.example.com" on both HTTPRoute nvcf-api and GRPCRoute nvcf-api-grpc',
      "Gateway API does not accept an HTTPRoute and a GRPCRoute with one hostname on a listener (GEP-1016)",
    ],
    [
      "an HTTPRoute on another's hostname, named by the setting that gave it",
      { addons: j({ vanityGateway: { enabled: true, hostnames: ["sis.nvcf.example.com"] } }) },
      "nvcf:addons.vanityGateway.hostnames",
      '"sis.nvcf.example.com" on both HTTPRoute vanity-gateway and HTTPRoute sis',
      "both match path / there",
    ],
    [
      "hostnames given through the ingress release's values count",
      {
        releaseValues: j({
          ingress: {
            nvcfGatewayRoutes: {
              routes: { reval: { hostnames: ["api.{{ .Values.nvcfGatewayRoutes.domain }}"] } },
            },
          },
        }),
      },
      "nvcf:releaseValues.ingress.nvcfGatewayRoutes.routes.reval.hostnames",
      '"api.nvcf.example.com" on both HTTPRoute nvcf-api and HTTPRoute reval',
      "both match path / there",
    ],
  ])("%s", (_title, over, key, found, why) => {
    const p = routeProblems(cfg(over));
    expect(p.map((x) => [x.key, x.found])).toEqual([[key, found]]);
    expect(p[0].expected).toContain(why);
  });

  test("two TCPRoutes on one TCP listener", () => {
    const p = routeProblems(
      cfg({
        gateway: gateway(
          { nats: true },
          { nats: { name: "nvcf-gateway", namespace: "envoy-gateway", listenerName: "tcp" } },
        ),
      }),
    );
    expect(p.map(formatProblem)).toEqual([
      "nvcf:gateway.nats.listenerName: expected one TCPRoute per TCP listener (a TCP listener forwards every connection to one backend), found TCPRoutes grpc and nats both on Gateway envoy-gateway/nvcf-gateway listener tcp. Fix: give TCPRoute nats its own listener: pulumi config set --path nvcf:gateway.nats.listenerName <a TCP listener of the Gateway>",
    ]);
  });
});
