/**
 * Every image through the mirror, every workload with the pull secret.
 *
 * For every example stack (`Pulumi.*.yaml`, with `images.thirdParty: mirror`) and all-add-ons configurations
 * (every control-plane add-on, observability `all` and Envoy Gateway installed; every GPU-cluster add-on;
 * bundles 0.8.0 and 0.7.0; with the mirror and the dev stacks' pull secret), the program runs under Pulumi
 * mocks (tests/unit/support/harness.ts) and every Helm release it registers is RENDERED with the real Helm CLI
 * (`helm template` of its schema-carrying stand-in under tests/charts, with exactly the values the program
 * computes: `tools/values.ts` `stackValues`, or the release's own inputs where that tool has none). The
 * rendered objects and the program-made workloads (the node tuner DaemonSet, the EnvoyProxy object) are
 * searched for every image reference: container and init-container images, image strings in custom resources
 * and ConfigMaps (OpenTelemetryCollector, KAI's Config, Envoy Gateway's configuration, NVCA's cluster
 * configuration), `--*-image=` arguments, `*_IMAGE` environment variables and `*-image` annotations.
 *
 * It fails on an image outside `<images.registry>/<images.repository>/`, on a pod spec (or an operator's pod
 * template: KAI's Config, the collectors' ServiceAccounts, the EnvoyProxy, Envoy Gateway's rate-limit
 * deployment) without the pull secret, on a pull secret reference the namespace does not hold, and on a
 * namespace running a workload without the program's pull secret. The one exception is listed in
 * `NO_PULL_SECRET_KEY` with its reason, and the test checks the reason still holds.
 *
 * Helm comes from NVCF_HELM (as tests/unit/standins/charts.test.ts) or `bash scripts/helm.sh --path`.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { releaseSpec } from "../../../catalog/releases";
import { SECRET_OUTPUT_NAMES } from "../../../contract/controlPlane";
import { stackValues } from "../../../tools/values";
import { THIRD_PARTY_IMAGES, mirrorImage, splitImage } from "../../../values/images";
import { ROOT, type RenderResult, mockGateway, render } from "../support/harness";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");
jest.setTimeout(300_000);

const CHARTS = path.join(ROOT, "tests/charts");
const KUBE_VERSION = "v1.36.1";
const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };

// ---------------------------------------------------------------------------------------------------------
// Helm, a few processes at a time

function findHelm(): string {
  const given = process.env.NVCF_HELM;
  if (given) return given;
  const r = spawnSync("bash", [path.join(ROOT, "scripts/helm.sh"), "--path"], { encoding: "utf8" });
  if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  throw new Error("no Helm CLI: run `bash scripts/helm.sh` and export NVCF_HELM=<the path it prints>");
}
let helm = "";
const queue: (() => void)[] = [];
let running = 0;
const POOL = Math.max(1, Math.min(3, os.cpus().length));
function pump(): void {
  while (running < POOL && queue.length > 0) {
    running++;
    queue.shift()!();
  }
}
type HelmResult = { code: number; out: string; err: string };
/** Renders already asked for (scenarios share many releases with the same values): one Helm run each. */
const rendered = new Map<string, Promise<HelmResult>>();
/** `helm template` of one release; resolves with exit code and output. */
function helmTemplate(name: string, dir: string, namespace: string, values: unknown): Promise<HelmResult> {
  const key = JSON.stringify([name, dir, namespace, values]);
  if (!rendered.has(key)) rendered.set(key, helmRun(name, dir, namespace, values));
  return rendered.get(key)!;
}
function helmRun(name: string, dir: string, namespace: string, values: unknown): Promise<HelmResult> {
  return new Promise<HelmResult>((resolve) => {
    queue.push(() => {
      const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(file, JSON.stringify(values));
      const args = ["template", name, dir, "-n", namespace, "--kube-version", KUBE_VERSION, "-f", file];
      const child = spawn(helm, args, { cwd: ROOT });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code) => {
        running--;
        resolve({ code: code ?? 1, out, err });
        pump();
      });
    });
    pump();
  });
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-images-test-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The stand-in directory of a chart at a version: `<chart>-<version>/` when present, else `<chart>/`. */
function standIn(chart: string, version: string): string {
  const versioned = path.join(CHARTS, `${chart}-${version}`);
  return fs.existsSync(versioned) ? versioned : path.join(CHARTS, chart);
}

// ---------------------------------------------------------------------------------------------------------
// Scenarios

type Obj = Record<string, unknown>;
const stackFile = (stack: string): Obj =>
  ((yaml.load(fs.readFileSync(path.join(ROOT, `Pulumi.${stack}.yaml`), "utf8")) as { config?: Obj }).config ??
    {}) as Obj;
const EXAMPLES = fs
  .readdirSync(ROOT)
  .filter((f) => /^Pulumi\..+\.yaml$/.test(f))
  .map((f) => f.replace(/^Pulumi\.(.+)\.yaml$/, "$1"));

interface Scenario {
  label: string;
  stack: string;
  /** `nvcf:` keys (without prefix) set on top of the stack file. */
  sets: Record<string, unknown>;
}

const mirrorOn = (stack: string): Record<string, unknown> => {
  const f = stackFile(stack);
  return f["nvcf:plane"] === "control"
    ? { images: { ...((f["nvcf:images"] as Obj) ?? {}), thirdParty: "mirror" } }
    : { images: { thirdParty: "mirror" } };
};
const allControl = (bundle: string): Record<string, unknown> => ({
  bundleVersion: bundle,
  ...mirrorOn("dev"),
  observability: { profile: "all" },
  stateMetrics: { enabled: true },
  gateway: { ...(stackFile("dev")["nvcf:gateway"] as Obj), install: true },
  addons: {
    llm: {
      enabled: true,
      pki: {
        enabled: bundle === "0.8.0",
        dnsNames: [
          "llm-request-router.nvcf.svc.cluster.local",
          "*.llm-request-router-headless.nvcf.svc.cluster.local",
        ],
        allowedDomains: "nvcf.svc.cluster.local",
        imageTag: "0.18.0",
      },
    },
    ...(bundle === "0.8.0" ? { vanityGateway: { enabled: true } } : {}),
    nvcfUi: { enabled: true },
    lls: { enabled: true },
  },
});
const allCompute = (bundle: string): Record<string, unknown> => ({
  bundleVersion: bundle,
  ...mirrorOn("dev-gpu-b"),
  observability: { profile: "all" },
  // Off by default; on here so its (otherwise public NGC) image is rendered and checked too.
  releaseValues: { "nvca-operator": { clusterValidator: { enabled: true } } },
  addons: {
    kaiScheduler: { enabled: bundle === "0.8.0" },
    groveOperator: { enabled: true },
    dynamoOperator: { enabled: true },
    topologyAwareScheduling: { enabled: bundle === "0.8.0" },
  },
});

const SCENARIOS: Scenario[] = [
  ...EXAMPLES.map((s) => ({
    label: `example ${s} (images.thirdParty: mirror)`,
    stack: s,
    sets: mirrorOn(s),
  })),
  { label: "all-add-ons control plane, bundle 0.8.0", stack: "dev", sets: allControl("0.8.0") },
  { label: "all-add-ons GPU cluster, bundle 0.8.0", stack: "dev-gpu-b", sets: allCompute("0.8.0") },
  { label: "all-add-ons control plane, bundle 0.7.0", stack: "dev", sets: allControl("0.7.0") },
  { label: "all-add-ons GPU cluster, bundle 0.7.0", stack: "dev-gpu-b", sets: allCompute("0.7.0") },
];

const raw = (sets: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(sets).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );

/** Control-plane renders, cached by stack and bundle (a compute plane reads the outputs of its control plane). */
const controlRenders = new Map<string, Promise<RenderResult>>();
function controlRender(stack: string, sets: Record<string, unknown>): Promise<RenderResult> {
  const key = `${stack} ${JSON.stringify(sets)}`;
  if (!controlRenders.has(key))
    controlRenders.set(key, render({ stack, overrides: sets, gateways: GATEWAYS }));
  return controlRenders.get(key)!;
}

// ---------------------------------------------------------------------------------------------------------
// What the images and pull-secret rules look at

/** Kinds whose objects hold a pod template, and where it is. */
function podSpecOf(o: Obj): Obj | undefined {
  const spec = o["spec"] as Obj | undefined;
  switch (o["kind"]) {
    case "Pod":
      return spec;
    case "Deployment":
    case "StatefulSet":
    case "DaemonSet":
    case "ReplicaSet":
    case "Job":
      return (spec?.["template"] as Obj | undefined)?.["spec"] as Obj | undefined;
    case "CronJob":
      return (
        ((spec?.["jobTemplate"] as Obj | undefined)?.["spec"] as Obj | undefined)?.["template"] as
          | Obj
          | undefined
      )?.["spec"] as Obj | undefined;
  }
  return undefined;
}

/** An image written as a map (`{registry?, repository, name?, tag?}`, e.g. KAI's Config) as one reference. */
function imageOfMap(m: Obj): string | undefined {
  if (typeof m["repository"] !== "string") return undefined;
  const ref = [m["registry"], m["repository"], m["name"]].filter((x) => typeof x === "string" && x).join("/");
  return m["tag"] ? `${ref}:${String(m["tag"])}` : ref;
}

/** Every image reference in a value, with where it was found (a JSON-ish path). */
function imagesIn(v: unknown, where: string, out: { where: string; image: string }[] = []) {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (typeof x === "string") {
        const m = /^--[a-z0-9-]*image=(.+)$/.exec(x);
        if (m) out.push({ where: `${where}[${i}]`, image: m[1] });
      } else if (x && typeof x === "object" && typeof (x as Obj)["name"] === "string") {
        const e = x as Obj;
        if (/IMAGE(_REPO)?$/.test(String(e["name"])) && typeof e["value"] === "string" && e["value"])
          out.push({ where: `${where}[${i}] ${String(e["name"])}`, image: e["value"] });
        else imagesIn(x, `${where}[${i}]`, out);
      } else imagesIn(x, `${where}[${i}]`, out);
    });
    return out;
  }
  if (!v || typeof v !== "object") return out;
  for (const [k, x] of Object.entries(v as Obj)) {
    const at = `${where}.${k}`;
    if (typeof x === "string") {
      const imageKey = /^image$|Image$|-image$|^imageRepository$|^repositoryOverride$/.test(k);
      const repoOfImage = k === "repository" && /image/i.test(where.split(".").pop() ?? "");
      if ((imageKey || repoOfImage) && x) out.push({ where: at, image: x });
      else if (k !== "image" && /\n/.test(x) && /image/i.test(x)) {
        // Embedded YAML (ConfigMap data): parse and search it.
        try {
          imagesIn(yaml.load(x), `${at}|`, out);
        } catch {
          /* not YAML */
        }
      }
    } else if (k === "image" && x && typeof x === "object" && !Array.isArray(x)) {
      const ref = imageOfMap(x as Obj);
      if (ref) out.push({ where: at, image: ref });
    } else imagesIn(x, at, out);
  }
  return out;
}

/** Names in an `imagePullSecrets` list (`[{name}]` or `[name]`). */
const secretNames = (list: unknown): string[] =>
  Array.isArray(list)
    ? list.map((x) => (typeof x === "string" ? x : String((x as Obj)?.["name"] ?? ""))).filter(Boolean)
    : [];

/** Pod specs a release renders no `imagePullSecrets` for because its chart has no value for one. */
const NO_PULL_SECRET_KEY: Record<string, string> = {
  "grove-operator Deployment/grove-operator":
    "grove-charts (v0.1.0-alpha.9, -alpha.11) renders the operator's pod without imagePullSecrets and has no value for them; the nodes must be able to pull Grove's images (docs/images-and-mirrors.md)",
};

interface Workload {
  /** `<release or program> <kind>/<name>`. */
  id: string;
  namespace: string;
  /** Pull secrets the pods get (direct or through their ServiceAccount). */
  secrets: string[];
}

interface Checked {
  images: { where: string; image: string }[];
  workloads: Workload[];
  /** `namespace/name` of dockerconfigjson Secrets that exist (program-made or chart-rendered). */
  secrets: Set<string>;
  programSecretNamespaces: Set<string>;
  errors: string[];
}

/** Collects images and workloads of one release's rendered objects. */
function collect(release: string, namespace: string, docs: Obj[], acc: Checked): void {
  const meta = (o: Obj) => (o["metadata"] ?? {}) as Obj;
  const nsOf = (o: Obj) => String(meta(o)["namespace"] ?? namespace);
  const sas = new Map<string, string[]>();
  for (const o of docs)
    if (o["kind"] === "ServiceAccount")
      sas.set(`${nsOf(o)}/${String(meta(o)["name"])}`, secretNames(o["imagePullSecrets"]));
  const viaSa = (ns: string, sa: unknown) => (typeof sa === "string" ? (sas.get(`${ns}/${sa}`) ?? []) : []);
  for (const o of docs) {
    const id = `${release} ${String(o["kind"])}/${String(meta(o)["name"])}`;
    const ns = nsOf(o);
    for (const img of imagesIn(o, id)) acc.images.push(img);
    if (o["kind"] === "Secret" && o["type"] === "kubernetes.io/dockerconfigjson")
      acc.secrets.add(`${ns}/${String(meta(o)["name"])}`);
    const pod = podSpecOf(o);
    if (pod) {
      acc.workloads.push({
        id,
        namespace: ns,
        secrets: [...secretNames(pod["imagePullSecrets"]), ...viaSa(ns, pod["serviceAccountName"])],
      });
      continue;
    }
    // Operators that turn an object into pods: the pods' pull secrets come from that object.
    if (o["kind"] === "OpenTelemetryCollector") {
      const spec = (o["spec"] ?? {}) as Obj;
      acc.workloads.push({ id, namespace: ns, secrets: viaSa(ns, spec["serviceAccount"]) });
      const ta = spec["targetAllocator"] as Obj | undefined;
      if (ta?.["enabled"])
        acc.workloads.push({
          id: `${id} targetAllocator`,
          namespace: ns,
          secrets: viaSa(ns, ta["serviceAccount"]),
        });
    }
    if (o["kind"] === "ConfigMap") {
      for (const [k, text] of Object.entries((o["data"] ?? {}) as Obj)) {
        let doc: unknown;
        try {
          doc = yaml.load(String(text));
        } catch {
          continue;
        }
        const d = (doc ?? {}) as Obj;
        if (d["kind"] === "Config" && String(d["apiVersion"]).startsWith("kai.scheduler/")) {
          const spec = (d["spec"] ?? {}) as Obj;
          acc.workloads.push({
            id: `${id} ${k} (KAI components)`,
            namespace: String(spec["namespace"] ?? ns),
            secrets: secretNames(((spec["global"] ?? {}) as Obj)["additionalImagePullSecrets"]),
          });
        }
        const rl = (((d["provider"] ?? {}) as Obj)["kubernetes"] as Obj | undefined)?.[
          "rateLimitDeployment"
        ] as Obj | undefined;
        if (rl)
          acc.workloads.push({
            id: `${id} ${k} (rate-limit deployment)`,
            namespace: ns,
            secrets: secretNames(((rl["pod"] ?? {}) as Obj)["imagePullSecrets"]),
          });
      }
    }
  }
}

interface Prepared {
  scenario: Scenario;
  pullSecret: string | null;
  base: string;
  graph: RenderResult;
  releases: { name: string; chart: string; version: string; namespace: string; values: unknown }[];
  /** Releases the graph has but stackValues lacks (or the reverse), other than the program-made `eg`. */
  mismatch: string[];
}

async function prepare(sc: Scenario): Promise<Prepared> {
  const file = stackFile(sc.stack);
  const compute = file["nvcf:plane"] === "compute";
  let graph: RenderResult;
  let control: RenderResult | undefined;
  if (compute) {
    const cpStack = String(file["nvcf:controlPlaneStack"]).split("/").pop()!;
    control = await controlRender(cpStack, {
      ...mirrorOn(cpStack),
      ...(sc.sets["bundleVersion"] ? { bundleVersion: sc.sets["bundleVersion"] } : {}),
    });
    if (control.error) throw control.error;
    graph = await render({
      stack: sc.stack,
      overrides: sc.sets,
      controlPlaneOutputs: control.outputs,
      controlPlaneSecretOutputs: [...SECRET_OUTPUT_NAMES],
    });
  } else graph = await controlRender(sc.stack, sc.sets);
  if (graph.error) throw graph.error;
  const ps = ((sc.sets["pullSecret"] ?? file["nvcf:pullSecret"] ?? {}) as Obj)["name"];
  const pullSecret = ps === null ? null : String(ps ?? "nvcr-pull-secret");
  const src = compute ? control!.outputs : graph.outputs;
  const base = `${String(src["imageRegistry"])}/${String(src["imageRepository"])}`;
  const cpStack = compute ? String(file["nvcf:controlPlaneStack"]).split("/").pop()! : "";
  const computed = stackValues(sc.stack, {
    sets: raw(sc.sets),
    secrets: "sentinel",
    namespaces: "resolved",
    ...(compute
      ? {
          registration: {
            clusterID: "6f1d2c3b-4a59-4e7d-8c6b-0a1b2c3d4e5f",
            clusterGroupID: "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
            ncaID: "nvcf-default",
            region: "us-west-1",
          },
          gatewayAddress: cpStack === "dev" ? "127.0.0.1" : "203.0.113.10",
        }
      : {}),
  });
  const releases: Prepared["releases"] = [];
  const seen = new Set<string>();
  for (const r of graph.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release")) {
    const name = String(r.inputs["name"]);
    seen.add(name);
    const chart = name === "eg" ? "gateway-helm" : releaseSpec(name).chart;
    releases.push({
      name,
      chart,
      version: String(r.inputs["version"]),
      namespace: String(r.inputs["namespace"]),
      // The program's values with secret leaves of their real shape (the graph masks them).
      values: computed[name]?.values ?? r.inputs["values"],
    });
  }
  const mismatch = [
    ...Object.keys(computed).filter((n) => !seen.has(n)),
    ...[...seen].filter((n) => n !== "eg" && !(n in computed)),
  ];
  return { scenario: sc, pullSecret, base, graph, releases, mismatch };
}

async function check(p: Prepared): Promise<Checked> {
  const acc: Checked = {
    images: [],
    workloads: [],
    secrets: new Set(),
    programSecretNamespaces: new Set(),
    errors: [],
  };
  for (const r of p.graph.resources) {
    const inputs = r.inputs as Obj;
    const md = (inputs["metadata"] ?? {}) as Obj;
    if (r.type === "kubernetes:core/v1:Secret" && inputs["type"] === "kubernetes.io/dockerconfigjson") {
      acc.secrets.add(`${String(md["namespace"])}/${String(md["name"])}`);
      acc.programSecretNamespaces.add(String(md["namespace"]));
    }
  }
  // Program-made workloads.
  for (const r of p.graph.resources) {
    const inputs = r.inputs as Obj;
    const md = (inputs["metadata"] ?? {}) as Obj;
    if (r.type === "kubernetes:apps/v1:DaemonSet")
      collect(`program ${r.name}`, String(md["namespace"]), [{ kind: "DaemonSet", ...inputs }], acc);
    if (r.type.endsWith(":EnvoyProxy")) {
      const dep = ((((inputs["spec"] as Obj)["provider"] as Obj)["kubernetes"] as Obj)["envoyDeployment"] ??
        {}) as Obj;
      const id = `program EnvoyProxy/${String(md["name"])}`;
      for (const img of imagesIn(inputs, id)) acc.images.push(img);
      acc.workloads.push({
        id: `${id} (Envoy proxy pods)`,
        namespace: String(md["namespace"]),
        secrets: secretNames(((dep["pod"] ?? {}) as Obj)["imagePullSecrets"]),
      });
    }
  }
  const renders = await Promise.all(
    p.releases.map(async (r) => ({
      r,
      res: await helmTemplate(r.name, standIn(r.chart, r.version), r.namespace, r.values),
    })),
  );
  for (const { r, res } of renders) {
    if (res.code !== 0) {
      acc.errors.push(`helm template ${r.name} (${r.chart} ${r.version}) failed: ${res.err.trim()}`);
      continue;
    }
    const docs = (yaml.loadAll(res.out) as Obj[]).filter(
      (d) =>
        d &&
        !String(((d["metadata"] ?? {}) as Obj)["annotations"]?.["helm.sh/hook" as never] ?? "").includes(
          "test",
        ),
    );
    collect(r.name, r.namespace, docs, acc);
  }
  return acc;
}

/**
 * Every scenario, prepared one after the other (the Pulumi mocks are process-wide, so program runs cannot
 * overlap) while Helm renders the releases of the ones before (the Helm pool runs alongside).
 */
const results = new Map<string, Promise<{ prepared: Prepared; checked: Checked }>>();
let chain: Promise<unknown> = Promise.resolve();
function start(): void {
  if (results.size > 0) return;
  helm ||= findHelm();
  for (const sc of SCENARIOS) {
    const prepared = chain.then(() => prepare(sc));
    chain = prepared.catch(() => undefined);
    const result = prepared.then(async (p) => ({ prepared: p, checked: await check(p) }));
    // Awaited by the scenario's beforeAll; a scenario filtered out by -t must not raise an unhandled rejection.
    result.catch(() => undefined);
    results.set(sc.label, result);
  }
}

describe.each(SCENARIOS)("$label", (sc) => {
  let prepared: Prepared;
  let checked: Checked;
  beforeAll(async () => {
    start();
    ({ prepared, checked } = await results.get(sc.label)!);
  });

  test("every release renders through its stand-in, and the rendered set is the program's", () => {
    expect(checked.errors).toEqual([]);
    expect(prepared.mismatch).toEqual([]);
    expect(checked.images.length).toBeGreaterThan(0);
    // The program-made workloads are part of what is checked.
    const file = stackFile(sc.stack);
    const ids = checked.workloads.map((w) => w.id);
    if (file["nvcf:plane"] === "compute")
      expect(ids).toContain("program nvcf-inotify DaemonSet/node-inotify-tuner");
    const gateway = (sc.sets["gateway"] ?? file["nvcf:gateway"]) as Obj | undefined;
    if (gateway?.["install"] === true) {
      expect(ids.filter((i) => i.startsWith("program EnvoyProxy/"))).toHaveLength(1);
      expect(ids.filter((i) => i.startsWith("eg ")).length).toBeGreaterThan(0);
    }
  });

  test("every image reference is in the mirror <images.registry>/<images.repository>/", () => {
    const outside = checked.images.filter((i) => !i.image.startsWith(`${prepared.base}/`));
    expect(outside.map((i) => `${i.where}: ${i.image}`)).toEqual([]);
  });

  test("every mirrored third-party image is one of the air-gap list (values/images.ts THIRD_PARTY_IMAGES)", () => {
    const known = new Set(
      THIRD_PARTY_IMAGES.map((t) => splitImage(mirrorImage(t.upstream.split(" ")[0], prepared.base)).path),
    );
    const nvidiaBase = `${prepared.base}/`;
    const unknown = checked.images
      .map((i) => ({ ...i, path: splitImage(i.image).path }))
      // A third-party image keeps its upstream path (with a `/`) below the mirror; NVIDIA's are one name deep.
      .filter((i) => i.image.startsWith(nvidiaBase) && i.image.slice(nvidiaBase.length).includes("/"))
      .filter(
        (i) =>
          ![...known].some((k) => i.path === k || k.startsWith(`${i.path}/`) || i.path.startsWith(`${k}/`)),
      );
    expect(unknown.map((i) => `${i.where}: ${i.image}`)).toEqual([]);
  });

  test("every workload pulls with the pull secret, the secret exists where it runs, and every reference resolves", () => {
    const problems: string[] = [];
    for (const w of checked.workloads) {
      for (const s of w.secrets)
        if (!checked.secrets.has(`${w.namespace}/${s}`))
          problems.push(`${w.id}: references pull secret ${s}, which namespace ${w.namespace} does not hold`);
      if (prepared.pullSecret === null) continue;
      if (!checked.programSecretNamespaces.has(w.namespace))
        problems.push(`${w.id}: namespace ${w.namespace} has no ${prepared.pullSecret} Secret`);
      const exempt = NO_PULL_SECRET_KEY[w.id];
      if (!w.secrets.includes(prepared.pullSecret) && !exempt)
        problems.push(`${w.id}: its pods do not reference ${prepared.pullSecret}`);
      if (exempt && w.secrets.length > 0)
        problems.push(`${w.id}: listed as without a pull-secret key, but has one`);
    }
    expect(problems).toEqual([]);
  });
});

test("the pull-secret exception still holds: grove-charts has no value for imagePullSecrets", () => {
  for (const dir of ["grove-charts", "grove-charts-v0.1.0-alpha.9"]) {
    const schema = fs.readFileSync(path.join(CHARTS, dir, "values.schema.json"), "utf8");
    expect([dir, /pullSecret/i.test(schema)]).toEqual([dir, false]);
  }
});
