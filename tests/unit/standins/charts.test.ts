/**
 * Chart contract tests: the stand-in charts under tests/charts, checked with the real Helm CLI.
 *
 * 1. Every stand-in chart (including versioned `<chart>-<version>/` directories) has a values.schema.json,
 *    and `helm lint` / `helm template` with its `ci/full-values.yaml` pass; the rendered objects are fit for
 *    the local kwok clusters (`_lib/check-manifests.js`).
 * 2. Every case of `_lib/negative-cases.txt` makes `helm template` fail with the expected error, and that
 *    error names the chart and the key the case sets.
 * 3. The program's own values pass the charts: for every committed example stack, the dev stacks at bundles
 *    0.7.0 and 0.6.1, and an all-add-ons control plane and GPU cluster at every bundle, every enabled release's
 *    stand-in chart, at exactly the pinned version (its Chart.yaml), renders with exactly the values the program
 *    computes (`tools/values.ts` `stackValues`, secret leaves as sentinels of the real shape).
 * 4. The observability stand-ins render, per profile, the monitors and the collector `nvcf status` looks for.
 * 5. The hooks the local clusters' host processes play (nvcf-api's account bootstrap, Cassandra's initialize-cluster
 *    and migrations) render as NVIDIA's charts render them, with nothing only a stand-in renders for those processes.
 *
 * Helm comes from NVCF_HELM (scripts/test.sh exports the path `bash scripts/helm.sh` prints) or, when that is
 * unset, from the cache (`bash scripts/helm.sh --path`). Without Helm every test fails with the fix.
 * Helm runs a few processes at a time (a small pool); tests await their own result.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { BUNDLE_VERSIONS, releaseSpec, type BundleVersion } from "../../../catalog/releases";
import { stackValues, type ReleaseValues } from "../../../tools/values";
import { OBSERVABILITY_TARGET_LABEL, monitorObjects } from "../../../values/observability";

const ROOT = path.resolve(__dirname, "../../..");
const CHARTS = path.join(ROOT, "tests/charts");
const LIB = path.join(CHARTS, "_lib");
/** The local clusters' Kubernetes version (toolchain/versions.env KUBERNETES_VERSION). */
const KUBE_VERSION = "v1.36.1";

// ---------------------------------------------------------------------------------------------------------
// Helm, run through a small pool

interface Run {
  code: number;
  out: string;
}

let helm = "";

/** The Helm CLI to use; throws with the fix when there is none. */
function findHelm(): string {
  const given = process.env.NVCF_HELM;
  if (given) {
    try {
      fs.accessSync(given, fs.constants.X_OK);
    } catch {
      throw new Error(`NVCF_HELM=${given} is not an executable Helm CLI: run \`bash scripts/helm.sh\``);
    }
    return given;
  }
  const r = spawnSync("bash", [path.join(ROOT, "scripts/helm.sh"), "--path"], { encoding: "utf8" });
  if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  throw new Error(
    "no Helm CLI for the chart contract tests: run `bash scripts/helm.sh` (builds Helm 3 into the cache, once) " +
      "and export NVCF_HELM=<the path it prints>; scripts/test.sh does both",
  );
}

const queue: (() => void)[] = [];
let running = 0;
let started = false;
const POOL = Math.max(1, Math.min(3, os.cpus().length));

function pump(): void {
  while (started && running < POOL && queue.length > 0) {
    running++;
    queue.shift()!();
  }
}

/**
 * Runs a command in the pool once the pool started (beforeAll); resolves with exit code and output (never
 * rejects). `first`: queue it ahead of the rest (follow-up steps of a test that is already being awaited).
 */
function pooled(cmd: () => string, args: () => string[], input?: () => string, first = false): Promise<Run> {
  return new Promise((resolve) => {
    queue[first ? "unshift" : "push"](() => {
      let out = "";
      const done = (code: number) => {
        running--;
        resolve({ code, out });
        pump();
      };
      let child;
      try {
        child = spawn(cmd(), args(), { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
      } catch (e) {
        out = String(e);
        done(127);
        return;
      }
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("error", (e) => {
        out += String(e);
      });
      child.on("close", (code) => done(code ?? 1));
      // A command that reads no input may exit before its stdin is written: that write then fails with EPIPE,
      // which says nothing about the run (its exit code and output do).
      child.stdin.on("error", (e: NodeJS.ErrnoException) => {
        if (e.code !== "EPIPE") out += String(e);
      });
      child.stdin.end(input ? input() : "");
    });
  });
}

const helmRun = (args: () => string[]) => pooled(() => helm, args);

/** `helm template <release> <chart dir> -n <namespace>` at the clusters' Kubernetes version, values files first. */
const templateArgs = (
  release: string,
  dir: string,
  namespace: string,
  valuesFile: string,
  ...extra: string[]
) => [
  "template",
  release,
  dir,
  "--namespace",
  namespace,
  "--kube-version",
  KUBE_VERSION,
  "-f",
  valuesFile,
  ...extra,
];

// Tests await results of a shared queue: allow for a slow (busy) machine.
jest.setTimeout(300_000);

beforeAll(() => {
  helm = findHelm();
  started = true;
  pump();
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-charts-test-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------------------
// The stand-in charts

interface ChartDir {
  /** Directory name under tests/charts (`<chart>` or `<chart>-<version>`). */
  dir: string;
  path: string;
  name: string;
  version: string;
}

const chartDirs: ChartDir[] = fs
  .readdirSync(CHARTS, { withFileTypes: true })
  .filter(
    (d) =>
      d.isDirectory() && !d.name.startsWith("_") && fs.existsSync(path.join(CHARTS, d.name, "Chart.yaml")),
  )
  .map((d) => {
    const meta = yaml.load(fs.readFileSync(path.join(CHARTS, d.name, "Chart.yaml"), "utf8")) as {
      name: string;
      version: string;
    };
    return {
      dir: d.name,
      path: path.join(CHARTS, d.name),
      name: String(meta.name),
      version: String(meta.version),
    };
  })
  .sort((a, b) => a.dir.localeCompare(b.dir));

/** chart name → release name and namespace as the stacks install it (`_lib/releases.tsv`). */
const releaseOf = new Map<string, { release: string; namespace: string }>();
for (const line of fs.readFileSync(path.join(LIB, "releases.tsv"), "utf8").split("\n")) {
  if (!line.trim() || line.startsWith("#")) continue;
  const [chart, release, namespace] = line.split("\t");
  releaseOf.set(chart, { release, namespace });
}
const placement = (c: ChartDir) => releaseOf.get(c.name) ?? { release: c.name, namespace: "default" };

/** The stand-in for a release's chart at a version: `<chart>-<version>/` when present, else `<chart>/`. */
function standIn(chart: string, version: string): ChartDir | undefined {
  return (
    chartDirs.find((c) => c.dir === `${chart}-${version}`) ??
    chartDirs.find((c) => c.dir === chart) ??
    chartDirs.find((c) => c.name === chart && c.version === version)
  );
}

describe("stand-in charts: schema, lint and template with ci/full-values.yaml", () => {
  for (const c of chartDirs) {
    const { release, namespace } = placement(c);
    const full = path.join(c.path, "ci/full-values.yaml");
    const lint = helmRun(() => [
      "lint",
      c.path,
      "--namespace",
      namespace,
      "--kube-version",
      KUBE_VERSION,
      "-f",
      full,
    ]);
    const rendered = helmRun(() => templateArgs(release, c.path, namespace, full));
    const checked = rendered.then((r) =>
      r.code !== 0
        ? r
        : pooled(
            () => process.execPath,
            () => [path.join(LIB, "check-manifests.js"), c.dir],
            () => r.out,
            true,
          ),
    );

    test(`chart ${c.dir} (${c.name} ${c.version}) has values.schema.json and ci/full-values.yaml`, () => {
      expect({
        schema: fs.existsSync(path.join(c.path, "values.schema.json")),
        ciValues: fs.existsSync(full),
      }).toEqual({ schema: true, ciValues: true });
      const schema = JSON.parse(fs.readFileSync(path.join(c.path, "values.schema.json"), "utf8")) as {
        type?: string;
        additionalProperties?: unknown;
      };
      // Keys the chart does not read are refused at the top level too.
      expect({ type: schema.type, additionalProperties: schema.additionalProperties }).toEqual({
        type: "object",
        additionalProperties: false,
      });
    });

    test(`chart ${c.dir}: helm lint -f ci/full-values.yaml passes`, async () => {
      const r = await lint;
      if (r.code !== 0) throw new Error(`helm lint ${c.dir} failed:\n${r.out}`);
    });

    test(`chart ${c.dir}: helm template ${release} -n ${namespace} -f ci/full-values.yaml renders kwok-ready objects`, async () => {
      const r = await rendered;
      if (r.code !== 0) throw new Error(`helm template ${c.dir} failed:\n${r.out}`);
      const chk = await checked;
      if (chk.code !== 0) throw new Error(`rendered objects of ${c.dir}:\n${chk.out}`);
    });
  }
});

// ---------------------------------------------------------------------------------------------------------
// Negative cases

/** Splits a shell-quoted argument string the way bash does for `eval "extra=($args)"` (quotes, backslashes). */
function shellWords(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let have = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${s}`);
      cur += s.slice(i + 1, end);
      i = end;
      have = true;
    } else if (ch === '"') {
      i++;
      for (; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === "\\" && i + 1 < s.length && '"\\$`'.includes(s[i + 1])) i++;
        cur += s[i];
      }
      if (i >= s.length) throw new Error(`unterminated " in: ${s}`);
      have = true;
    } else if (ch === "\\" && i + 1 < s.length) {
      cur += s[++i];
      have = true;
    } else if (/\s/.test(ch)) {
      if (have) out.push(cur);
      cur = "";
      have = false;
    } else {
      cur += ch;
      have = true;
    }
  }
  if (have) out.push(cur);
  return out;
}

/** The value keys a case sets (`--set a.b=1,c=2`, `--set-string`, `--set-json`), as lists of path segments. */
function keysSet(args: string[]): string[][] {
  const keys: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (!["--set", "--set-string", "--set-json", "--set-file"].includes(flag)) continue;
    const v = args[++i] ?? "";
    const assignments = flag === "--set-json" ? [v] : v.split(/(?<!\\),/);
    for (const a of assignments) {
      const eq = a.search(/(?<!\\)=/);
      if (eq <= 0) continue;
      const segs = a
        .slice(0, eq)
        .split(/(?<!\\)\./)
        .flatMap((s) =>
          s
            .replace(/\\\./g, ".")
            .split(/\[(\d+)\]/)
            .filter(Boolean),
        );
      keys.push(segs);
    }
  }
  return keys;
}

/**
 * Whether Helm's error names a key: as its dotted path (`a.b[0].c`, with or without the chart's top-level
 * values key `valuesKey`), as its JSON pointer (`/a/b/0/c`, or deeper), as the pointer of one of its
 * ancestors with the next segment quoted (`at '/a': additional properties 'b' not allowed`,
 * `at '/a/b': missing property 'c'`), or as the dotted path of the ancestor a template guard refuses
 * (`podDisruptionBudget: set exactly one ...`), followed by `:`, a quote or a bracket.
 */
function namesKey(err: string, segs: string[], valuesKey: string | null): boolean {
  const dotted = (s: string[]) => s.map((x, i) => (/^\d+$/.test(x) ? `[${x}]` : (i ? "." : "") + x)).join("");
  const pointer = (s: string[]) =>
    s.length === 0 ? "" : "/" + s.map((x) => x.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
  if (err.includes(dotted(segs))) return true;
  if (segs.length > 1 && err.includes(dotted(segs.slice(1)))) return true;
  const p = pointer(segs);
  if (err.includes(`'${p}'`) || err.includes(`'${p}/`)) return true;
  for (let i = 1; i <= segs.length; i++)
    if (err.includes(`at '${pointer(segs.slice(0, i - 1))}'`) && err.includes(`'${segs[i - 1]}'`))
      return true;
  const bases = valuesKey !== null && segs[0] === valuesKey ? [segs, segs.slice(1)] : [segs];
  for (const base of bases)
    for (let i = 1; i < base.length; i++) {
      const d = dotted(base.slice(0, i)).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (new RegExp(`(^|[^\\w.-])${d}(?=[:'"\\[\\])]|$)`, "m").test(err)) return true;
    }
  return false;
}

/** The catalog's top-level values key of a release (`null`: flat values, or a release the catalog lacks). */
function valuesKeyOf(release: string): string | null {
  try {
    return releaseSpec(release).valuesKey;
  } catch {
    return null;
  }
}

interface NegativeCase {
  line: number;
  chart: string;
  args: string;
  want: string;
}

const negativeCases: NegativeCase[] = fs
  .readFileSync(path.join(LIB, "negative-cases.txt"), "utf8")
  .split("\n")
  .map((text, i) => ({ text, line: i + 1 }))
  .filter(({ text }) => text.trim() && !text.startsWith("#"))
  .map(({ text, line }) => {
    const [chart, args, ...rest] = text.split(" | ");
    return { line, chart: chart.trim(), args: (args ?? "").trim(), want: rest.join(" | ").trim() };
  });

describe("negative cases (tests/charts/_lib/negative-cases.txt): the chart refuses, naming chart and key", () => {
  for (const nc of negativeCases) {
    const c = chartDirs.find((d) => d.dir === nc.chart);
    const { release, namespace } = c ? placement(c) : { release: nc.chart, namespace: "default" };
    let extra: string[] = [];
    let parseError = "";
    try {
      extra = shellWords(nc.args);
    } catch (e) {
      parseError = (e as Error).message;
    }
    const run = c
      ? helmRun(() =>
          templateArgs(release, c.path, namespace, path.join(c.path, "ci/full-values.yaml"), ...extra),
        )
      : Promise.resolve({ code: 0, out: "" });

    test(`line ${nc.line}: release ${release} (chart ${nc.chart}) refuses [${nc.args}] with /${nc.want}/`, async () => {
      if (!c) throw new Error(`line ${nc.line}: no stand-in chart directory tests/charts/${nc.chart}`);
      if (parseError) throw new Error(`line ${nc.line}: ${parseError}`);
      const r = await run;
      if (r.code === 0)
        throw new Error(`helm template ${release} ${nc.chart} ${nc.args} rendered; expected /${nc.want}/`);
      const err = r.out.trim();
      expect(err).toMatch(new RegExp(nc.want));
      // Helm names the chart whose values were refused (schema errors: "<chart>:" header; template
      // failures: "execution error at (<chart>/templates/...)"); the caller (Pulumi) names the release.
      if (!err.includes(c.name)) throw new Error(`Helm's error does not name the chart ${c.name}:\n${err}`);
      const keys = keysSet(extra);
      const named = keys.filter((k) => namesKey(err, k, valuesKeyOf(release)));
      if (keys.length > 0 && named.length === 0)
        throw new Error(
          `Helm's error for release ${release} does not name the key it refused (${keys.map((k) => k.join(".")).join(", ")}):\n${err}`,
        );
    });
  }
});

// ---------------------------------------------------------------------------------------------------------
// The program's own values against the charts

/** Stand-in registration identity (nvcf-cli prints UUIDs); region from the control plane's gpuClusters. */
function registrationFor(controlStack: string, cluster: string): Record<string, unknown> {
  const file = path.join(ROOT, `Pulumi.${controlStack}.yaml`);
  const doc = yaml.load(fs.readFileSync(file, "utf8")) as { config?: Record<string, unknown> };
  const clusters = (doc.config?.["nvcf:gpuClusters"] ?? []) as { name: string; region?: string }[];
  return {
    clusterID: "6f1d2c3b-4a59-4e7d-8c6b-0a1b2c3d4e5f",
    clusterGroupID: "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
    ncaID: (doc.config?.["nvcf:ncaId"] as string | undefined) ?? "nvcf-default",
    region: clusters.find((c) => c.name === cluster)?.region ?? "us-west-1",
  };
}

function stackFile(stack: string): Record<string, unknown> {
  const doc = yaml.load(fs.readFileSync(path.join(ROOT, `Pulumi.${stack}.yaml`), "utf8")) as {
    config?: Record<string, unknown>;
  };
  return doc.config ?? {};
}

/** Whether the bundle ships every given release (the catalog offers a release only where the stack has it). */
const ships = (bundle: BundleVersion, ...releases: string[]) =>
  releases.every((r) => {
    try {
      return releaseSpec(r).versions[bundle] !== undefined;
    } catch {
      return false;
    }
  });

/** Every control-plane add-on the bundle ships, on top of a stack's config. */
function allControlAddons(bundle: BundleVersion): Record<string, string> {
  return {
    addons: JSON.stringify({
      ...(ships(bundle, "llm-request-router", "llm-api-gateway")
        ? {
            llm: {
              enabled: true,
              pki: {
                enabled: ships(bundle, "nvcf-pki"),
                dnsNames: [
                  "llm-request-router.nvcf.svc.cluster.local",
                  "*.llm-request-router-headless.nvcf.svc.cluster.local",
                ],
                allowedDomains: "nvcf.svc.cluster.local",
                imageTag: "0.18.0",
              },
            },
          }
        : {}),
      ...(ships(bundle, "vanity-gateway") ? { vanityGateway: { enabled: true } } : {}),
      ...(ships(bundle, "nvcf-ui") ? { nvcfUi: { enabled: true } } : {}),
      lls: { enabled: true },
    }),
    observability: JSON.stringify({ profile: "all" }),
    stateMetrics: JSON.stringify({ enabled: true }),
  };
}

/**
 * GPU-cluster add-ons (KAI, Grove, Dynamo, topology-aware scheduling) that are both wanted and shipped by the
 * bundle: `want` (default: all) names the add-ons to turn on, e.g. those a stack file enables.
 */
function computeAddons(
  bundle: BundleVersion,
  want?: Record<string, { enabled?: boolean }>,
): Record<string, string> {
  const on = (k: string) => want === undefined || want[k]?.enabled === true;
  const kai = on("kaiScheduler") && ships(bundle, "kai-scheduler");
  const grove = on("groveOperator") && ships(bundle, "grove-operator");
  const topology =
    on("topologyAwareScheduling") &&
    ((kai && ships(bundle, "nvcf-kai-topology")) || (grove && ships(bundle, "nvcf-grove-topology")));
  return {
    addons: JSON.stringify({
      kaiScheduler: { enabled: kai },
      groveOperator: { enabled: grove },
      dynamoOperator: { enabled: on("dynamoOperator") && ships(bundle, "dynamo-operator") },
      topologyAwareScheduling: { enabled: topology },
    }),
  };
}

interface StackCase {
  label: string;
  stack: string;
  sets: Record<string, string>;
}

const EXAMPLE_STACKS = ["dev", "dev-gpu-a", "dev-gpu-b", "prod-eks", "prod-gpu-east-1"];
const DEV_STACKS = ["dev", "dev-gpu-a", "dev-gpu-b"];
const stackCases: StackCase[] = [];
for (const s of EXAMPLE_STACKS) stackCases.push({ label: `stack ${s}`, stack: s, sets: {} });
for (const b of BUNDLE_VERSIONS.filter((x) => x !== "0.8.0"))
  for (const s of DEV_STACKS) {
    // The stack file at an older bundle; a GPU stack keeps only the add-ons that bundle ships.
    const file = stackFile(s);
    const addons = file["nvcf:plane"] === "compute" ? file["nvcf:addons"] : undefined;
    stackCases.push({
      label: `stack ${s} at bundle ${b}`,
      stack: s,
      sets: {
        bundleVersion: b,
        ...(addons ? computeAddons(b, addons as Record<string, { enabled?: boolean }>) : {}),
      },
    });
  }
for (const b of BUNDLE_VERSIONS) {
  stackCases.push({
    label: `all-add-ons control plane (dev) at bundle ${b}`,
    stack: "dev",
    sets: { bundleVersion: b, ...allControlAddons(b) },
  });
  stackCases.push({
    label: `all-add-ons GPU cluster (dev-gpu-b) at bundle ${b}`,
    stack: "dev-gpu-b",
    sets: { bundleVersion: b, ...computeAddons(b) },
  });
}

/** The program's values for a stack case, or the config error it raises. */
function valuesOf(sc: StackCase): Record<string, ReleaseValues> | Error {
  try {
    const cfg = stackFile(sc.stack);
    const controlStack =
      String(cfg["nvcf:controlPlaneStack"] ?? "")
        .split("/")
        .pop() ?? "";
    const compute = cfg["nvcf:plane"] === "compute";
    return stackValues(sc.stack, {
      sets: sc.sets,
      secrets: "sentinel",
      namespaces: "resolved",
      ...(compute
        ? {
            registration: registrationFor(controlStack, String(cfg["nvcf:clusterName"])),
            // The kwok Gateway reports 127.0.0.1 (scripts/cluster.sh); elsewhere a documentation address.
            gatewayAddress: controlStack === "dev" ? "127.0.0.1" : "203.0.113.10",
          }
        : {}),
    });
  } catch (e) {
    return e as Error;
  }
}

/** The rendering of each release of each stack case (`<label>/<release>`), for the tests that read what it renders. */
const rendered = new Map<string, Promise<Run>>();

describe("the program's values pass the stand-in charts' schemas", () => {
  for (const sc of stackCases) {
    const releases = valuesOf(sc);
    if (releases instanceof Error) {
      test(`${sc.label}: the config is valid`, () => {
        // Prefixed with the scenario, so the report says which configuration was refused.
        throw new Error(`${sc.label}: ${releases.message}`);
      });
      continue;
    }
    for (const [name, r] of Object.entries(releases)) {
      const c = standIn(r.chart, r.version);
      const file = path.join(tmp, `${sc.label.replace(/[^A-Za-z0-9.-]+/g, "_")}--${name}.json`);
      const namespace = r.namespace.startsWith("<") ? (c ? placement(c).namespace : "default") : r.namespace;
      const run = c
        ? helmRun(() => {
            fs.writeFileSync(file, JSON.stringify(r.values));
            return templateArgs(name, c.path, namespace, file);
          })
        : Promise.resolve({ code: 0, out: "" });
      rendered.set(`${sc.label}/${name}`, run);
      test(`${sc.label}: release ${name} renders chart ${r.chart} ${r.version} (${c ? c.dir : "no stand-in"}) with the program's values`, async () => {
        if (!c) throw new Error(`no stand-in chart for ${r.chart} ${r.version} under tests/charts`);
        // The local chart source installs this directory; `nvcf up`'s preflight and Helm read its Chart.yaml.
        if (c.version !== r.version)
          throw new Error(
            `${sc.label}: release ${name} pins ${r.chart} ${r.version}, but its stand-in tests/charts/${c.dir} is ` +
              `version ${c.version}: add tests/charts/${r.chart}-${r.version}/`,
          );
        const res = await run;
        if (res.code !== 0)
          throw new Error(
            `${sc.label}: helm template ${name} tests/charts/${c.dir} refused the program's values:\n${res.out.trim()}\n` +
              `values: ${JSON.stringify(r.values).slice(0, 2000)}`,
          );
      });
    }
  }
});

/** The objects a release renders for a stack case, by `Kind/name`. */
async function objects(label: string, release: string) {
  const res = await rendered.get(`${label}/${release}`);
  if (!res || res.code !== 0) throw new Error(`${label}: release ${release} did not render`);
  const docs = yaml.loadAll(res.out) as { kind?: string; metadata?: { name?: string } }[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return new Map<string, any>(docs.filter((d) => d?.kind).map((d) => [`${d.kind}/${d.metadata?.name}`, d]));
}

describe("objects NVIDIA's acceptance suite checks, rendered from the program's values (tests/charts/README.md, Audit)", () => {
  test.each(["stack dev", "stack dev at bundle 0.7.0", "stack dev at bundle 0.6.1"])(
    "%s: ConfigMaps nvcf-api-env and nvct-api-env carry the worker endpoints, read through envFrom",
    async (label) => {
      const api = await objects(label, "api");
      expect(api.get("ConfigMap/nvcf-api-env")?.data).toMatchObject({
        NVCF_FQDN: "http://api.nvcf.test",
        NVCF_GLOBAL_FQDN_GRPC: "http://worker-api.nvcf.test",
        NVCF_NATS_WORKER_URL: "nats://127.0.0.1:4222",
      });
      const container = api.get("Deployment/nvcf-api")?.spec.template.spec.containers[0];
      expect(container.envFrom).toEqual([{ configMapRef: { name: "nvcf-api-env" } }]);
      expect(container.env.map((e: { name: string }) => e.name)).not.toContain("NVCF_FQDN");
      const nvct = await objects(label, "nvct-api");
      expect(nvct.get("ConfigMap/nvct-api-env")?.data).toMatchObject({
        NVCT_FQDN: "http://tasks.nvcf.test",
        NVCT_GLOBAL_FQDN_GRPC: "http://worker-tasks.nvcf.test",
        // Every value a string, as the real chart quotes them (the stack passes this one as a boolean).
        MANAGEMENT_TRACING_ENABLED: "false",
      });
    },
  );

  test("stack dev: the routes the suite names, the NKey Secret from nkey-secret.yaml, the invocation env default", async () => {
    const ingress = await objects("stack dev", "ingress");
    expect(ingress.get("HTTPRoute/nvcf-api")?.spec.hostnames).toEqual(["api.nvcf.test"]);
    expect(ingress.get("GRPCRoute/nvcf-api-grpc")?.spec.hostnames).toEqual(["worker-api.nvcf.test"]);
    expect(ingress.get("GRPCRoute/nvct-api-grpc")?.spec.hostnames).toEqual(["worker-tasks.nvcf.test"]);
    // The collector and the monitors of each profile: "the observability stand-ins render what each cluster's
    // profile needs" below.
    const nats = await rendered.get("stack dev/nats");
    expect(nats?.out).toContain("# Source: helm-nvcf-nats/templates/nkey-secret.yaml");
    expect(
      (await objects("stack dev", "invocation-service")).get("ConfigMap/invocation-service-env")?.data,
    ).toMatchObject({
      WORKER_STREAM_PROPERTIES__SERVICE_ADDRESS: "http://invocation.nvcf.svc.cluster.local:8080",
    });
  });
});

describe("hooks the local clusters' host processes play are rendered as NVIDIA's charts render them (tests/charts/README.md)", () => {
  const DEV_BUNDLES = ["stack dev", "stack dev at bundle 0.7.0", "stack dev at bundle 0.6.1"];

  test.each(DEV_BUNDLES)(
    "%s: nvcf-api's account-bootstrap hook: names, labels, hook annotations, envFrom Secret, no scheduling gate",
    async (label) => {
      const api = await objects(label, "api");
      const job = api.get("Job/nvcf-api-account-bootstrap");
      const secret = api.get("Secret/nvcf-api-account-bootstrap-secret");
      expect(job.metadata.annotations).toEqual({
        "helm.sh/hook": "post-install,post-upgrade",
        "helm.sh/hook-weight": "2",
        "helm.sh/hook-delete-policy": "before-hook-creation",
      });
      expect(secret.metadata.annotations).toEqual({
        "helm.sh/hook": "post-install,post-upgrade",
        "helm.sh/hook-weight": "0",
        "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded",
      });
      // The label the local clusters hold the pod by (scripts/cluster.sh held_hooks) and its player watches.
      expect(job.spec.template.metadata.labels["app.kubernetes.io/component"]).toBe("account-bootstrap");
      const pod = job.spec.template.spec;
      expect(pod.schedulingGates).toBeUndefined();
      expect(pod.restartPolicy).toBe("OnFailure");
      expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(["account-bootstrap-creator"]);
      expect(pod.containers[0].envFrom).toEqual([
        { secretRef: { name: "nvcf-api-account-bootstrap-secret" } },
      ]);
      expect(pod.containers[0].env).toEqual(
        expect.arrayContaining([
          { name: "API_SERVICE_NAME", value: "api" },
          { name: "API_NAMESPACE", value: "nvcf" },
        ]),
      );
    },
  );

  test.each(DEV_BUNDLES)(
    "%s: Cassandra's hook Jobs carry the containers tests/bin/inpod-agent knows them by; the migrations image's tag has rows",
    async (label) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const cass = require("../../bin/inpod/lib/cassandra.js") as {
        HOOK_CONTAINERS: Record<string, string>;
        migrationsOfImage(image: string): string | undefined;
      };
      const jobs = [...(await objects(label, "cassandra")).values()].filter((o) => o.kind === "Job");
      const byKind = new Map(
        jobs.map((j) => [
          cass.HOOK_CONTAINERS[j.spec.template.spec.containers[0].name],
          j.spec.template.spec.containers[0],
        ]),
      );
      expect([...byKind.keys()].sort()).toEqual(["initialize-cluster", "migrations"]);
      expect(cass.migrationsOfImage(byKind.get("migrations").image)).toMatch(/^([a-z_]+=\d+,)+[a-z_]+=\d+$/);
      for (const j of jobs)
        expect(Object.keys(j.metadata.annotations ?? {}).filter((k) => k.startsWith("nvcf."))).toEqual([]);
    },
  );
});

describe("the observability stand-ins render what each cluster's profile needs (and what nvcf status looks for)", () => {
  const cases: [string, string, Record<string, string>][] = [
    ["dev-gpu-a (profile compute)", "dev-gpu-a", {}],
    ["dev-gpu-a (profile all)", "dev-gpu-a", { observability: '{"profile":"all"}' }],
    ["dev (profile control)", "dev", {}],
  ];
  for (const [label, stack, sets] of cases) {
    const sc: StackCase = { label, stack, sets };
    const releases = valuesOf(sc);
    const render = (release: string) => {
      if (releases instanceof Error) return Promise.resolve({ code: 1, out: releases.message });
      const r = releases[release];
      const c = standIn(r.chart, r.version)!;
      const file = path.join(tmp, `observability-${stack}-${label.length}-${release}.json`);
      return helmRun(() => {
        fs.writeFileSync(file, JSON.stringify(r.values));
        return templateArgs(release, c.path, r.namespace, file);
      });
    };
    const monitors = render("default-monitors");
    const collector = render("otel-collector");
    test(`${label}: default-monitors renders exactly the monitors monitorObjects() expects, each labelled for the Target Allocator`, async () => {
      if (releases instanceof Error) throw releases;
      const res = await monitors;
      expect(res.code).toBe(0);
      const objs = yaml.loadAll(res.out).filter(
        (
          o,
        ): o is {
          kind: string;
          metadata: { name: string; namespace: string; labels: Record<string, string> };
        } => !!o,
      );
      const r = releases["default-monitors"];
      // Helm prints the objects ordered by kind; the expectation is in the chart's template order.
      const key = (o: { kind: string; name: string }) => `${o.kind}/${o.name}`;
      const byKey = (a: { kind: string; name: string }, b: { kind: string; name: string }) =>
        key(a).localeCompare(key(b));
      expect(
        objs
          .map((o) => ({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace }))
          .sort(byKey),
      ).toEqual([...monitorObjects(r.values, r.namespace)].sort(byKey));
      for (const o of objs) expect(o.metadata.labels).toMatchObject(OBSERVABILITY_TARGET_LABEL);
      const names = objs.map((o) => o.metadata.name);
      const compute = [
        "nvcf-default-monitors-nvca",
        "nvcf-default-monitors-dcgm",
        "nvcf-default-monitors-worker",
      ];
      const profile = (r.values as { computePlane: { enabled: boolean } }).computePlane.enabled;
      for (const n of compute) expect([n, names.includes(n)]).toEqual([n, profile]);
    });
    test(`${label}: otel-collector renders the OpenTelemetryCollector with the Target Allocator on`, async () => {
      if (releases instanceof Error) throw releases;
      const res = await collector;
      expect(res.code).toBe(0);
      const col = yaml
        .loadAll(res.out)
        .find((o) => (o as { kind?: string } | null)?.kind === "OpenTelemetryCollector") as {
        metadata: { name: string };
        spec: { targetAllocator: { enabled: boolean; prometheusCR: { serviceMonitorSelector: unknown } } };
      };
      expect(col.metadata.name).toBe("nvcf-observability");
      expect(col.spec.targetAllocator.enabled).toBe(true);
      expect(col.spec.targetAllocator.prometheusCR.serviceMonitorSelector).toEqual({
        matchLabels: OBSERVABILITY_TARGET_LABEL,
      });
    });
  }
});
