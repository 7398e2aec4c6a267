/**
 * Chart sources per origin: which origin each chart has, how `charts.*` and
 * `charts.mirrors.*` resolve it, absolute / relative / per-version local paths, what goes to Helm's
 * repository options, and the validation problems.
 *
 * The origin expectations below are written from NVIDIA's stack files (bundle 0.8.0 = NVIDIA/nvcf HEAD,
 * 0.7.0 = tag deploy/stacks/self-managed/v0.7.0), not from catalog/sources.ts:
 * - deploy/stacks/nvcf-compute-plane/helmfile.d/01-dependencies.yaml.gotmpl `repositories:` kai-scheduler =
 *   OCI ghcr.io/kai-scheduler/kai-scheduler, nvidia-ai-dynamo-grove = OCI ghcr.io/ai-dynamo/grove,
 *   nvidia-ai-dynamo = https://helm.ngc.nvidia.com/nvidia/ai-dynamo; charts kai-scheduler/kai-scheduler,
 *   nvidia-ai-dynamo-grove/grove-charts, nvidia-ai-dynamo/dynamo-platform, ../charts/nvcf-cluster-topology.
 * - deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl: nvcf/prometheus-operator-crds,
 *   nvcf/opentelemetry-operator, nvcf/victoria-metrics-single (the repository nvcf is
 *   <global.helm.sources.registry>/<repository>), ../charts/nvcf-otel-collector, ../charts/nvcf-default-monitors.
 * - docs/user/gateway-routing.md: oci://docker.io/envoyproxy/gateway-helm.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { CONTROL_PLANE_RELEASES, COMPUTE_PLANE_RELEASES } from "../../../catalog/releases";
import {
  CHART_ORIGINS,
  MIRROR_KEYS,
  chartOrigin,
  chartsOfMirror,
  localChartPath,
  mirrorList,
  parseLocation,
  resolveChart,
  type ChartSourceSettings,
} from "../../../catalog/sources";
import { validateConfig } from "../../../config/load";
import { ConfigError } from "../../../config/problems";
import { SECRET_KEYS, controlPlaneSchema } from "../../../config/schema";
import {
  NvcfRelease,
  PROJECT_DIR,
  chartReference,
  projectDirectoryExists,
  repositoryOptions,
} from "../../../components/release";
import { ROOT, unwrapSecrets } from "../support/harness";
import { baseCompute, baseControl } from "../fixtures/configs";

const nowhere = () => false;
/** Pulumi's marker of a secret value in resource inputs (`pulumi.runtime` rpc "special sig"). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";
const oci: ChartSourceSettings = {
  source: "oci",
  registry: "registry.example.com",
  repository: "nvcf/charts",
};
const https: ChartSourceSettings = {
  source: "https",
  registry: "nvcr.io",
  repository: "YOUR_ORG/YOUR_TEAM",
  url: "https://helm.ngc.nvidia.com/nvidia/nvcf",
};
const local = (p: string, mirrors: ChartSourceSettings["mirrors"] = {}): ChartSourceSettings => ({
  source: "local",
  registry: "nvcr.io",
  repository: "YOUR_ORG/YOUR_TEAM",
  path: p,
  mirrors,
});

describe("origins per chart, as NVIDIA's stacks pull them", () => {
  // [chart, origin, Helm chart argument with the oci source above, HTTPS repository]
  const facts: [string, string, string, string | undefined][] = [
    ["kai-scheduler", "upstream", "oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler", undefined],
    ["grove-charts", "upstream", "oci://ghcr.io/ai-dynamo/grove/grove-charts", undefined],
    ["dynamo-platform", "upstream", "dynamo-platform", "https://helm.ngc.nvidia.com/nvidia/ai-dynamo"],
    ["gateway-helm", "upstream", "oci://docker.io/envoyproxy/gateway-helm", undefined],
    [
      "prometheus-operator-crds",
      "nvcf",
      "oci://registry.example.com/nvcf/charts/prometheus-operator-crds",
      undefined,
    ],
    [
      "opentelemetry-operator",
      "nvcf",
      "oci://registry.example.com/nvcf/charts/opentelemetry-operator",
      undefined,
    ],
    [
      "victoria-metrics-single",
      "nvcf",
      "oci://registry.example.com/nvcf/charts/victoria-metrics-single",
      undefined,
    ],
    ["helm-nvcf-api", "nvcf", "oci://registry.example.com/nvcf/charts/helm-nvcf-api", undefined],
    ["helm-nvca-operator", "nvcf", "oci://registry.example.com/nvcf/charts/helm-nvca-operator", undefined],
    // Stack-local charts have no published home: without a mirror they are looked up in the NVCF source.
    [
      "nvcf-otel-collector",
      "stack-local",
      "oci://registry.example.com/nvcf/charts/nvcf-otel-collector",
      undefined,
    ],
    [
      "nvcf-default-monitors",
      "stack-local",
      "oci://registry.example.com/nvcf/charts/nvcf-default-monitors",
      undefined,
    ],
    [
      "nvcf-cluster-topology",
      "stack-local",
      "oci://registry.example.com/nvcf/charts/nvcf-cluster-topology",
      undefined,
    ],
  ];
  test.each(facts)("%s: %s, %s", (chart, origin, ref, repo) => {
    expect(chartOrigin(chart).kind).toBe(origin);
    const r = resolveChart(oci, chart, "1.0.0", nowhere);
    expect(r.chart).toBe(ref);
    expect(r.repo).toBe(repo);
    // NVCF credentials go to the NVCF source only, never to a third-party host.
    expect(r.credentials).toBe(origin !== "upstream");
  });

  test("stack-local charts name their directory in NVIDIA's stack", () => {
    expect(chartOrigin("nvcf-otel-collector").stackDirectory).toBe(
      "deploy/stacks/observability/charts/nvcf-otel-collector",
    );
    expect(chartOrigin("nvcf-default-monitors").stackDirectory).toBe(
      "deploy/stacks/observability/charts/nvcf-default-monitors",
    );
    expect(chartOrigin("nvcf-cluster-topology").stackDirectory).toBe(
      "deploy/stacks/nvcf-compute-plane/charts/nvcf-cluster-topology",
    );
  });

  test("every chart of the catalog, and Envoy Gateway's, has an explicit origin with its fact", () => {
    const charts = new Set([...CONTROL_PLANE_RELEASES, ...COMPUTE_PLANE_RELEASES].map((r) => r.chart));
    charts.add("gateway-helm");
    const listed = new Set(CHART_ORIGINS.map((o) => o.chart));
    expect([...charts].filter((c) => !listed.has(c))).toEqual([]);
    for (const o of CHART_ORIGINS) expect(o.fact).toMatch(/^(deploy\/stacks\/|docs\/)/);
    expect(CHART_ORIGINS.length).toBe(listed.size); // no chart listed twice
  });

  test("an unlisted chart is taken as NVIDIA's own", () => {
    expect(chartOrigin("helm-nvcf-something-new").kind).toBe("nvcf");
  });

  test("with an HTTPS NVCF source, NVIDIA's charts come from it and upstream charts from their own repository", () => {
    expect(resolveChart(https, "helm-nvcf-api", "1.25.1", nowhere)).toMatchObject({
      chart: "helm-nvcf-api",
      repo: "https://helm.ngc.nvidia.com/nvidia/nvcf",
      kind: "https",
      credentials: true,
    });
    expect(resolveChart(https, "kai-scheduler", "v0.16.7", nowhere)).toMatchObject({
      chart: "oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler",
      kind: "oci",
      credentials: false,
    });
  });

  test("mirror keys: each serves the charts of one origin; the schema offers exactly those keys", () => {
    expect(chartsOfMirror("kaiScheduler")).toEqual(["kai-scheduler"]);
    expect(chartsOfMirror("grove")).toEqual(["grove-charts"]);
    expect(chartsOfMirror("dynamo")).toEqual(["dynamo-platform"]);
    expect(chartsOfMirror("envoyGateway")).toEqual(["gateway-helm"]);
    expect(chartsOfMirror("stackLocal").sort()).toEqual(
      ["nvcf-cluster-topology", "nvcf-default-monitors", "nvcf-otel-collector"].sort(),
    );
    for (const k of MIRROR_KEYS) expect(chartsOfMirror(k).length).toBeGreaterThan(0);
    const shape = controlPlaneSchema.shape.charts.unwrap().shape.mirrors.unwrap().shape;
    expect(Object.keys(shape).sort()).toEqual([...MIRROR_KEYS].sort());
  });
});

describe("local source: every chart from charts.path unless a mirror repoints it", () => {
  test("relative paths stay relative to the project (state does not depend on the checkout path)", () => {
    for (const chart of ["helm-nvcf-api", "kai-scheduler", "gateway-helm", "nvcf-otel-collector"])
      expect(resolveChart(local("tests/charts"), chart, "1.0.0", nowhere)).toMatchObject({
        chart: `./tests/charts/${chart}`,
        kind: "local",
        credentials: false,
      });
    expect(resolveChart(local("./tests/charts/"), "helm-nvcf-api", "1", nowhere).chart).toBe(
      "./tests/charts/helm-nvcf-api",
    );
    expect(resolveChart(local("../charts"), "helm-nvcf-api", "1", nowhere).chart).toBe(
      "../charts/helm-nvcf-api",
    );
    expect(resolveChart(local("."), "helm-nvcf-api", "1", nowhere).chart).toBe("./helm-nvcf-api");
  });

  test("absolute paths stay absolute (they used to become a wrong relative path)", () => {
    expect(resolveChart(local("/srv/nvcf/charts"), "helm-nvcf-api", "1.25.1", nowhere).chart).toBe(
      "/srv/nvcf/charts/helm-nvcf-api",
    );
    expect(resolveChart(local("/srv/nvcf/charts/"), "grove-charts", "v0.1.0-alpha.9", nowhere).chart).toBe(
      "/srv/nvcf/charts/grove-charts",
    );
  });

  test("per-version layout: <path>/<chart>-<version>/ wins when it exists, else <path>/<chart>/", () => {
    const present = new Set(["./tests/charts/grove-charts-v0.1.0-alpha.9", "/abs/kai-scheduler-v0.16.7"]);
    const exists = (p: string) => present.has(p);
    expect(localChartPath("tests/charts", "grove-charts", "v0.1.0-alpha.9", exists)).toBe(
      "./tests/charts/grove-charts-v0.1.0-alpha.9",
    );
    expect(localChartPath("tests/charts", "grove-charts", "v0.1.0-alpha.11", exists)).toBe(
      "./tests/charts/grove-charts",
    );
    expect(localChartPath("/abs", "kai-scheduler", "v0.16.7", exists)).toBe("/abs/kai-scheduler-v0.16.7");
    expect(localChartPath("/abs", "kai-scheduler", "v0.15.0", exists)).toBe("/abs/kai-scheduler");
  });

  test("per-version layout on disk, through chartReference (absolute directory)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-sources-"));
    try {
      fs.mkdirSync(path.join(dir, "grove-charts"));
      fs.mkdirSync(path.join(dir, "grove-charts-v0.1.0-alpha.9"));
      fs.writeFileSync(path.join(dir, "grove-charts-v0.1.0-alpha.11"), "a file, not a chart directory");
      const cfg = controlPlaneSchema.shape.charts.parse({ source: "local", path: dir });
      expect(chartReference(cfg, "grove-charts", "v0.1.0-alpha.9").chart).toBe(
        `${dir}/grove-charts-v0.1.0-alpha.9`,
      );
      expect(chartReference(cfg, "grove-charts", "v0.1.0-alpha.11").chart).toBe(`${dir}/grove-charts`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("relative directories are looked up in the project directory, whatever the working directory", () => {
    expect(PROJECT_DIR).toBe(ROOT);
    const cwd = process.cwd();
    try {
      process.chdir(os.tmpdir());
      expect(projectDirectoryExists("tests/charts/helm-nvcf-api")).toBe(true);
      expect(projectDirectoryExists("tests/charts/helm-nvcf-api-0.0.0-no-such-version")).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("mirrors per origin", () => {
  test("an OCI mirror with the NVCF credentials (one private registry for everything)", () => {
    const s: ChartSourceSettings = {
      ...oci,
      username: "AWS",
      mirrors: { kaiScheduler: { location: "oci://mirror.example.com/third-party/", credentials: "charts" } },
    };
    expect(resolveChart(s, "kai-scheduler", "v0.16.7", nowhere)).toMatchObject({
      chart: "oci://mirror.example.com/third-party/kai-scheduler",
      kind: "oci",
      credentials: true,
      decidedBy: "charts.mirrors.kaiScheduler",
    });
    // Other upstream charts keep their default.
    expect(resolveChart(s, "grove-charts", "v0.1.0-alpha.11", nowhere).chart).toBe(
      "oci://ghcr.io/ai-dynamo/grove/grove-charts",
    );
  });

  test("an HTTPS mirror, anonymous by default", () => {
    const s = {
      ...oci,
      mirrors: { dynamo: { location: "https://charts.example.com/dynamo/", credentials: "none" as const } },
    };
    expect(resolveChart(s, "dynamo-platform", "1.2.1", nowhere)).toMatchObject({
      chart: "dynamo-platform",
      repo: "https://charts.example.com/dynamo",
      credentials: false,
    });
  });

  test("a directory for the stack-local charts (the unpacked bundle), absolute or relative, per version", () => {
    const s = {
      ...oci,
      mirrors: { stackLocal: { location: "/opt/nvcf-stack/charts", credentials: "none" as const } },
    };
    expect(resolveChart(s, "nvcf-otel-collector", "0.2.0", nowhere)).toMatchObject({
      chart: "/opt/nvcf-stack/charts/nvcf-otel-collector",
      kind: "local",
      origin: "stack-local",
    });
    const rel = {
      ...oci,
      mirrors: { stackLocal: { location: "vendor/stack-charts", credentials: "none" as const } },
    };
    const exists = (p: string) => p === "./vendor/stack-charts/nvcf-cluster-topology-0.1.0";
    expect(resolveChart(rel, "nvcf-cluster-topology", "0.1.0", exists).chart).toBe(
      "./vendor/stack-charts/nvcf-cluster-topology-0.1.0",
    );
    // NVIDIA's charts are not touched by the stack-local mirror.
    expect(resolveChart(s, "helm-nvcf-api", "1.25.1", nowhere).chart).toBe(
      "oci://registry.example.com/nvcf/charts/helm-nvcf-api",
    );
  });

  test("a mirror wins over the local source; credentials never go to a directory", () => {
    const s = local("tests/charts", {
      victoriaMetrics: { location: "https://victoriametrics.github.io/helm-charts", credentials: "none" },
      envoyGateway: { location: "/mnt/charts", credentials: "charts" },
    });
    expect(resolveChart(s, "victoria-metrics-single", "0.38.0", nowhere)).toMatchObject({
      chart: "victoria-metrics-single",
      repo: "https://victoriametrics.github.io/helm-charts",
      origin: "nvcf",
    });
    expect(resolveChart(s, "gateway-helm", "v1.1.3", nowhere)).toMatchObject({
      chart: "/mnt/charts/gateway-helm",
      credentials: false,
    });
    expect(resolveChart(s, "helm-nvcf-api", "1.25.1", nowhere).chart).toBe("./tests/charts/helm-nvcf-api");
  });

  test("location strings", () => {
    expect(parseLocation("oci://ghcr.io/ai-dynamo/grove")).toEqual({
      kind: "oci",
      base: "ghcr.io/ai-dynamo/grove",
    });
    expect(parseLocation("oci://localhost:5000")).toEqual({ kind: "oci", base: "localhost:5000" });
    expect(parseLocation("https://a.example/b/")).toEqual({ kind: "https", url: "https://a.example/b" });
    expect(parseLocation("/abs/dir")).toEqual({ kind: "local", dir: "/abs/dir" });
    expect(parseLocation("My Charts/dir")).toEqual({ kind: "local", dir: "My Charts/dir" });
    for (const bad of [
      "",
      "oci://",
      "oci://host//x",
      "http://a.example/b",
      "s3://bucket/x",
      "~/charts",
      "https://a b",
    ])
      expect(parseLocation(bad)).toHaveProperty("error");
  });
});

describe("repository options", () => {
  const password = pulumi.secret("pw");
  test("local charts and anonymous OCI pulls carry none", () => {
    expect(
      repositoryOptions(resolveChart(local("tests/charts"), "helm-nvcf-api", "1", nowhere), "u", password),
    ).toBeUndefined();
    expect(
      repositoryOptions(resolveChart(oci, "kai-scheduler", "v0.16.7", nowhere), "u", password),
    ).toBeUndefined();
  });
  test("an anonymous HTTPS repository carries only its URL", () => {
    expect(repositoryOptions(resolveChart(oci, "dynamo-platform", "1.2.1", nowhere), "u", password)).toEqual({
      repo: "https://helm.ngc.nvidia.com/nvidia/ai-dynamo",
    });
  });
  test("the NVCF source carries the user and the secret password", () => {
    const opts = repositoryOptions(
      resolveChart(https, "helm-nvcf-api", "1.25.1", nowhere),
      "$oauthtoken",
      password,
    );
    expect(opts).toEqual({
      repo: "https://helm.ngc.nvidia.com/nvidia/nvcf",
      username: "$oauthtoken",
      password,
    });
  });
});

describe("validation of charts.path and charts.mirrors", () => {
  const SECRET: ReadonlySet<string> = new Set(SECRET_KEYS);
  const problems = (raw: Record<string, string>) => {
    try {
      validateConfig(raw, SECRET, "prod");
      return [];
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return e.problems.map((p) => ({ key: p.key, expected: p.expected, fix: p.fix }));
    }
  };
  const charts = (c: object) =>
    JSON.stringify({ source: "oci", registry: "registry.example.com", repository: "nvcf/charts", ...c });

  test("absolute, relative and mirrored settings are valid", () => {
    expect(
      problems(baseControl({ charts: JSON.stringify({ source: "local", path: "/srv/charts" }) })),
    ).toEqual([]);
    expect(problems(baseCompute({ charts: JSON.stringify({ source: "local", path: "../charts" }) }))).toEqual(
      [],
    );
    expect(
      problems(
        baseCompute({
          charts: charts({
            username: "AWS",
            mirrors: {
              kaiScheduler: { location: "oci://mirror.example.com/kai", credentials: "charts" },
              grove: { location: "oci://mirror.example.com/grove" },
              dynamo: { location: "https://mirror.example.com/dynamo" },
              stackLocal: { location: "/opt/stack/charts" },
            },
          }),
        }),
      ),
    ).toEqual([]);
    expect(
      problems(
        baseControl({
          charts: charts({ mirrors: { envoyGateway: { location: "oci://mirror.example.com/envoyproxy" } } }),
        }),
      ),
    ).toEqual([]);
  });

  test("an unknown mirror key or mirror field is refused, naming the key", () => {
    const keys = problems(
      baseCompute({ charts: charts({ mirrors: { kai: { location: "oci://a/b" } } }) }),
    ).map((p) => p.key);
    expect(keys).toContain("nvcf:charts.mirrors.kai");
    const keys2 = problems(
      baseCompute({ charts: charts({ mirrors: { grove: { location: "oci://a/b", password: "x" } } }) }),
    ).map((p) => p.key);
    expect(keys2).toContain("nvcf:charts.mirrors.grove.password");
  });

  test("an unusable location names the key and the accepted forms", () => {
    const p = problems(
      baseCompute({ charts: charts({ mirrors: { dynamo: { location: "http://charts.example.com" } } }) }),
    );
    expect(p).toEqual([
      expect.objectContaining({
        key: "nvcf:charts.mirrors.dynamo.location",
        expected: expect.stringContaining("https://"),
        fix: expect.stringContaining("nvcf:charts.mirrors.dynamo.location"),
      }),
    ]);
  });

  test("a mirror for charts the plane never installs is refused", () => {
    const p = problems(
      baseControl({ charts: charts({ mirrors: { kaiScheduler: { location: "oci://a/b" } } }) }),
    );
    expect(p.map((x) => x.key)).toEqual(["nvcf:charts.mirrors.kaiScheduler"]);
    expect(p[0].expected).toContain("kai-scheduler");
    const q = problems(
      baseCompute({ charts: charts({ mirrors: { envoyGateway: { location: "oci://a/b" } } }) }),
    );
    expect(q.map((x) => x.key)).toEqual(["nvcf:charts.mirrors.envoyGateway"]);
  });

  test("credentials: charts needs a registry location and charts.username", () => {
    const dir = problems(
      baseCompute({
        charts: charts({
          username: "u",
          mirrors: { stackLocal: { location: "/opt/x", credentials: "charts" } },
        }),
      }),
    );
    expect(dir.map((x) => x.key)).toEqual(["nvcf:charts.mirrors.stackLocal.credentials"]);
    expect(dir[0].fix).toContain("credentials none");
    const nouser = problems(
      baseCompute({
        charts: charts({ mirrors: { grove: { location: "oci://m.example/g", credentials: "charts" } } }),
      }),
    );
    expect(nouser.map((x) => x.key)).toEqual(["nvcf:charts.mirrors.grove.credentials"]);
    expect(nouser[0].fix).toContain("nvcf:charts.username");
    const bad = problems(
      baseCompute({
        charts: charts({ mirrors: { grove: { location: "oci://m.example/g", credentials: "yes" } } }),
      }),
    );
    expect(bad.map((x) => x.key)).toEqual(["nvcf:charts.mirrors.grove.credentials"]);
  });

  test("charts.path must be a directory: ~ is not expanded, URLs belong elsewhere", () => {
    const tilde = problems(baseControl({ charts: JSON.stringify({ source: "local", path: "~/charts" }) }));
    expect(tilde.map((x) => x.key)).toEqual(["nvcf:charts.path"]);
    expect(tilde[0].expected).toContain("~");
    const url = problems(
      baseControl({ charts: JSON.stringify({ source: "local", path: "oci://registry.example.com/x" }) }),
    );
    expect(url.map((x) => x.key)).toEqual(["nvcf:charts.path"]);
    expect(url[0].expected).toContain("charts.mirrors");
    const none = problems(baseControl({ charts: JSON.stringify({ source: "local" }) }));
    expect(none.map((x) => x.key)).toEqual(["nvcf:charts.path"]);
  });
});

describe("what an air-gapped install mirrors, per bundle", () => {
  const catalog = [...CONTROL_PLANE_RELEASES, ...COMPUTE_PLANE_RELEASES];
  const third = (bundle: string) =>
    mirrorList(catalog, bundle)
      .filter((e) => e.origin !== "nvcf")
      .map((e) => `${e.plane} ${e.chart} ${e.version} ${e.origin} ${e.configKey}`);

  test("0.8.0: KAI v0.16.7, Grove v0.1.0-alpha.11, Dynamo 1.2.1 upstream; topology, collector, monitors stack-local", () => {
    // Versions: deploy/stacks/nvcf-compute-plane/helmfile.d/01-dependencies.yaml.gotmpl at HEAD.
    const t = third("0.8.0");
    expect(t).toEqual(
      expect.arrayContaining([
        "compute kai-scheduler v0.16.7 upstream charts.mirrors.kaiScheduler",
        "compute grove-charts v0.1.0-alpha.11 upstream charts.mirrors.grove",
        "compute dynamo-platform 1.2.1 upstream charts.mirrors.dynamo",
        "control gateway-helm v1.1.3 upstream charts.mirrors.envoyGateway",
      ]),
    );
    const stackLocal = mirrorList(catalog, "0.8.0").filter((e) => e.origin === "stack-local");
    expect(stackLocal.map((e) => `${e.plane} ${e.chart}`).sort()).toEqual(
      [
        "compute nvcf-cluster-topology",
        "compute nvcf-default-monitors",
        "compute nvcf-otel-collector",
        "control nvcf-default-monitors",
        "control nvcf-otel-collector",
      ].sort(),
    );
    // One chart, two releases (nvcf-kai-topology and nvcf-grove-topology): mirrored once.
    expect(stackLocal.find((e) => e.chart === "nvcf-cluster-topology")?.releases.length).toBe(2);
    // The observability releases of both planes: one entry per plane, each naming its release once.
    expect(stackLocal.filter((e) => e.chart === "nvcf-otel-collector").map((e) => e.releases)).toEqual([
      ["otel-collector"],
      ["otel-collector"],
    ]);
  });

  test("0.7.0: the compute stack pulls Grove v0.1.0-alpha.9 and Dynamo 1.2.1 only (no KAI, no topology chart)", () => {
    // deploy/stacks/nvcf-compute-plane/helmfile.d/01-dependencies.yaml.gotmpl at deploy/stacks/self-managed/v0.7.0,
    // and the observability stack of the same tag on the GPU cluster.
    const compute = third("0.7.0").filter((x) => x.startsWith("compute "));
    expect(compute).toEqual([
      "compute nvcf-otel-collector 0.2.0 stack-local charts.mirrors.stackLocal",
      "compute nvcf-default-monitors 0.2.0 stack-local charts.mirrors.stackLocal",
      "compute grove-charts v0.1.0-alpha.9 upstream charts.mirrors.grove",
      "compute dynamo-platform 1.2.1 upstream charts.mirrors.dynamo",
    ]);
  });

  test("0.6.1 ships no observability stack: none of its charts on either plane", () => {
    const charts = mirrorList(catalog, "0.6.1").map((e) => e.chart);
    for (const c of [
      "prometheus-operator-crds",
      "opentelemetry-operator",
      "victoria-metrics-single",
      "nvcf-otel-collector",
      "nvcf-default-monitors",
    ])
      expect(charts).not.toContain(c);
  });

  test("entries say where to copy each chart from", () => {
    const all = mirrorList(catalog, "0.8.0");
    expect(all.find((e) => e.chart === "kai-scheduler")?.from).toBe(
      "oci://ghcr.io/kai-scheduler/kai-scheduler",
    );
    expect(all.find((e) => e.chart === "helm-nvcf-api")?.from).toBe(
      "https://helm.ngc.nvidia.com/nvidia/nvcf",
    );
    expect(all.find((e) => e.chart === "victoria-metrics-single")?.from).toContain(
      "https://victoriametrics.github.io/helm-charts",
    );
    expect(all.find((e) => e.chart === "nvcf-otel-collector")?.from).toContain(
      "deploy/stacks/observability/charts/nvcf-otel-collector",
    );
  });
});

describe("NvcfRelease installs the resolved chart (Pulumi mocks)", () => {
  const seen: Record<string, Record<string, unknown>> = {};
  beforeAll(() => {
    pulumi.runtime.setMocks(
      {
        newResource(args) {
          if (args.type === "kubernetes:helm.sh/v3:Release") seen[args.name] = args.inputs;
          return { id: `${args.name}-id`, state: { ...args.inputs, status: { status: "deployed" } } };
        },
        call: () => ({}),
      },
      "nvcf",
      "sources-test",
      false,
    );
  });

  const install = async (name: string, chart: string, version: string, charts: object) => {
    const cfg = controlPlaneSchema.shape.charts.parse(charts);
    const rel = new NvcfRelease(name, {
      releaseName: name,
      chart,
      version,
      namespace: "ns",
      values: {},
      source: { config: cfg, password: pulumi.secret("chart-password") },
      timeoutSeconds: 300,
    });
    await new Promise((res) => rel.release.urn.apply(res));
    return { rel, inputs: seen[name] };
  };

  test("a mirrored upstream chart, with the NVCF credentials it asks for", async () => {
    const { rel, inputs } = await install("kai", "kai-scheduler", "v0.16.7", {
      source: "oci",
      registry: "123456789012.dkr.ecr.us-west-2.amazonaws.com",
      repository: "nvcf/charts",
      username: "AWS",
      mirrors: {
        kaiScheduler: {
          location: "oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/nvcf/charts",
          credentials: "charts",
        },
      },
    });
    expect(inputs["chart"]).toBe(
      "oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/nvcf/charts/kai-scheduler",
    );
    expect(inputs["version"]).toBe("v0.16.7");
    // The options travel as a secret (they hold the password), with the user and the password inside.
    const opts = inputs["repositoryOpts"] as Record<string, unknown>;
    expect(opts[SECRET_SIG]).toBe(SECRET_SIG_VALUE);
    expect(unwrapSecrets(opts)).toEqual({ username: "AWS", password: "chart-password" });
    expect(rel.chartReference.decidedBy).toBe("charts.mirrors.kaiScheduler");
  });

  test("an upstream chart with no mirror: its own repository, no credentials", async () => {
    const { inputs } = await install("dynamo", "dynamo-platform", "1.2.1", {
      source: "oci",
      registry: "registry.example.com",
      repository: "nvcf/charts",
      username: "robot",
    });
    expect(inputs["chart"]).toBe("dynamo-platform");
    expect(inputs["repositoryOpts"]).toEqual({ repo: "https://helm.ngc.nvidia.com/nvidia/ai-dynamo" });
  });

  test("an absolute local directory stays absolute; no repository options", async () => {
    const { inputs } = await install("api", "helm-nvcf-api", "1.25.1", {
      source: "local",
      path: `${ROOT}/tests/charts`,
    });
    expect(inputs["chart"]).toBe(`${ROOT}/tests/charts/helm-nvcf-api`);
    expect(inputs["repositoryOpts"]).toBeUndefined();
  });
});
