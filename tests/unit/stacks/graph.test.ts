/**
 * The rendered resource graph of every example stack under Pulumi mocks, checked against rules: the URNs kept
 * (a checked-in list per stack), the install order against the release catalog (each edge with its reason),
 * namespaces and pull secrets before releases, secrets secret wherever they reach an input, protection, parents
 * and providers; plus architecture rules and the control plane → compute plane contract.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type ReleaseSpec, enabledReleases, planeReleases } from "../../../catalog/releases";
import { missingListeners } from "../../../config/routes";
import { validateConfig } from "../../../config/load";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";
import { PLAIN_OUTPUT_NAMES, SECRET_OUTPUT_NAMES, readControlPlane } from "../../../contract/controlPlane";
import { computeInputs, controlPlaneTarget, controlPlaneValues } from "../../../stacks/compute";
import { computeFlags, controlFlags } from "../../../config/flags";
import { computeInputsFixture } from "../fixtures/configs";
import { INSTALLED_DIGESTS_OUTPUT } from "../../../stacks/installedSettings";
import { RELEASE_INPUTS_OUTPUT } from "../../../engine/dryRun";
import {
  ROOT,
  type RenderResult,
  type Rendered,
  mockGateway,
  readStackFile,
  render,
  secretInputs,
  sentinel,
  validatedConfig,
} from "../support/harness";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");

const stacks = fs
  .readdirSync(ROOT)
  .filter((f) => /^Pulumi\..+\.yaml$/.test(f))
  .map((f) => f.replace(/^Pulumi\.(.+)\.yaml$/, "$1"));
const controlStacks = stacks.filter((s) =>
  fs.readFileSync(path.join(ROOT, `Pulumi.${s}.yaml`), "utf8").includes("nvcf:plane: control"),
);
const computeStacks = stacks.filter((s) => !controlStacks.includes(s));
const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };

const rendered = new Map<string, Promise<RenderResult>>();
/** The control-plane stack's render (once per stack and test file). */
function renderControl(stack: string): Promise<RenderResult> {
  if (!rendered.has(stack)) rendered.set(stack, render({ stack, gateways: GATEWAYS }));
  return rendered.get(stack)!;
}

/** The control plane a compute stack reads: the outputs of the dev (or prod) control-plane render. */
async function controlOutputsFor(stack: string) {
  const cp = stack.startsWith("prod") ? "prod-eks" : "dev";
  const r = await renderControl(cp);
  if (r.error) throw r.error;
  return r.outputs;
}

/**
 * Any example stack's render (once per stack and test file): a compute stack reads the outputs of its control
 * plane's render, the contract's secret outputs as secrets.
 */
function renderStack(stack: string): Promise<RenderResult> {
  if (controlStacks.includes(stack)) return renderControl(stack);
  if (!rendered.has(stack))
    rendered.set(
      stack,
      controlOutputsFor(stack).then((outputs) =>
        render({ stack, controlPlaneOutputs: outputs, controlPlaneSecretOutputs: [...SECRET_OUTPUT_NAMES] }),
      ),
    );
  return rendered.get(stack)!;
}

const summary = (r: RenderResult) =>
  r.resources.map((x) => ({
    type: x.type,
    name: x.name,
    parent: x.parent,
    dependsOn: x.dependsOn,
    protect: x.protect,
    inputs: x.inputs,
  }));

describe.each(controlStacks)("control-plane stack %s", (stack) => {
  let r: RenderResult;
  beforeAll(async () => {
    r = await renderControl(stack);
  });

  test("renders without error", () => {
    expect(r.error).toBeUndefined();
  });

  test("no secret appears in plain text in any input or output", () => {
    expect(JSON.stringify(summary(r))).not.toContain("SENTINEL-");
    const plain = Object.fromEntries(Object.entries(r.outputs).filter(([k]) => !r.secretOutputs.includes(k)));
    expect(JSON.stringify(plain)).not.toContain("SENTINEL-");
  });

  test("the contract: plain outputs plain, each secret its own secret output", () => {
    for (const k of PLAIN_OUTPUT_NAMES) expect(Object.keys(r.outputs)).toContain(k);
    // The contract's secret outputs, the digests of the installed settings (stacks/installedSettings.ts) and of
    // each release's inputs (engine/dryRun.ts).
    expect(r.secretOutputs.sort()).toEqual(
      [...SECRET_OUTPUT_NAMES, INSTALLED_DIGESTS_OUTPUT, RELEASE_INPUTS_OUTPUT].sort(),
    );
    // One digest per release, none in plain text.
    const digests = r.outputs[RELEASE_INPUTS_OUTPUT] as Record<string, unknown>;
    expect(Object.keys(digests).sort()).toEqual(
      Object.keys(r.outputs["releases"] as Record<string, unknown>)
        .concat(Object.keys(digests).includes("eg") ? ["eg"] : [])
        .sort(),
    );
  });

  test("every child has a parent", () => {
    const topLevel = r.resources.filter((x) => x.parent === undefined).map((x) => x.type);
    for (const t of topLevel)
      expect([
        "pulumi:providers:kubernetes",
        "pulumi:providers:aws",
        // The stack's own previous outputs (engine/previous.ts), read before anything else.
        "pulumi:pulumi:StackReference",
        "nvcf:index:ControlPlane",
        "aws:route53/record:Record",
      ]).toContain(t);
  });

  test("Helm releases: namespace from the namespace resource, never created by Helm, pinned, hooks awaited", () => {
    const releases = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release");
    expect(releases.length).toBeGreaterThan(10);
    for (const rel of releases) {
      expect(rel.inputs).toMatchObject({ createNamespace: false, waitForJobs: true, atomic: true });
      expect(typeof rel.inputs["version"]).toBe("string");
      expect(rel.inputs["timeout"]).toBeGreaterThan(0);
    }
  });

  test("Helm's OpenAPI check is skipped on install, and deployed releases keep what they were installed with", () => {
    const releases = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release");
    for (const rel of releases) {
      expect(rel.inputs["disableOpenapiValidation"]).toBe(true);
      expect(rel.ignoreChanges).toContain("disableOpenapiValidation");
    }
  });

  test("chart credentials travel on each release, never from the host's Helm login", () => {
    const releases = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release");
    for (const rel of releases) {
      const chart = String(rel.inputs["chart"]);
      const repo = rel.inputs["repositoryOpts"] as Record<string, unknown> | undefined;
      if (chart.startsWith("./")) {
        expect(repo).toBeUndefined();
      } else if (chart.startsWith("oci://docker.io/")) {
        expect(repo?.["username"]).toBeUndefined(); // Envoy Gateway's public chart
      } else {
        expect(chart).toMatch(/^oci:\/\/123456789012\.dkr\.ecr\.us-west-2\.amazonaws\.com\/nvcf\/charts\//);
        expect(repo).toEqual({ username: "AWS", password: "[secret]" });
      }
    }
  });

  test("stateful releases are protected outside dev stacks", () => {
    const prot = r.resources
      .filter((x) => x.type === "kubernetes:helm.sh/v3:Release" && x.protect)
      .map((x) => x.name)
      .sort();
    if (stack.startsWith("dev")) expect(prot).toEqual([]);
    else
      expect(prot).toEqual(["nvcf-cassandra", "nvcf-nats", "nvcf-openbao-server", "nvcf-victoria-metrics"]);
  });

  test("the teardown guard depends on every release and registration", () => {
    const guard = r.resources.find(
      (x) => x.type === "command:local:Command" && x.name.endsWith("teardown-guard"),
    )!;
    const releases = r.resources.filter((x) => x.type === "nvcf:index:Release").map((x) => x.name);
    for (const n of releases) expect(guard.dependsOn).toContain(n);
  });
});

describe.each(computeStacks)("compute-plane stack %s", (stack) => {
  let r: RenderResult;
  beforeAll(async () => {
    r = await renderStack(stack);
  });

  test("renders without error", () => {
    expect(r.error).toBeUndefined();
  });

  test("no secret in plain text", () => {
    expect(JSON.stringify(summary(r))).not.toContain("SENTINEL-");
  });

  test("Helm's OpenAPI check is skipped on install, and deployed releases keep what they were installed with", () => {
    const releases = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release");
    expect(releases.length).toBeGreaterThan(0);
    for (const rel of releases) {
      expect(rel.inputs["disableOpenapiValidation"]).toBe(true);
      expect(rel.ignoreChanges).toContain("disableOpenapiValidation");
    }
  });

  test("the operator gets the identity registration returned, and waits for pull secrets and the node tuner", () => {
    const op = r.resources.find(
      (x) => x.type === "kubernetes:helm.sh/v3:Release" && x.name.endsWith("nvca-operator"),
    )!;
    const values = op.inputs["values"] as Record<string, unknown>;
    expect(values["clusterID"]).toBe(r.outputs["clusterID"]);
    expect(values["generateImagePullSecret"]).toBe(false);
    expect(op.dependsOn).toContain("nvcf-inotify");
    const pulls = r.resources.filter((x) => x.type === "kubernetes:core/v1:Secret").map((x) => x.name);
    for (const p of pulls) expect(op.dependsOn).toContain(p);
  });

  test("the drain step depends on the operator (so it runs first on destroy)", () => {
    const drain = r.resources.find((x) => x.name === "nvcf-drain")!;
    expect(drain.dependsOn).toEqual(["nvcf-nvca-operator", "nvcf-operator-finalizers"]);
  });

  test("the finalizer watcher is deleted after the drain and just before the operator", () => {
    // The drain depends on it and it depends on the operator: destroy runs drain → watcher start → uninstall.
    const fin = r.resources.find((x) => x.name === "nvcf-operator-finalizers")!;
    const op = r.resources.find((x) => x.name === "nvcf-nvca-operator")!;
    expect(fin.dependsOn).toEqual(["nvcf-nvca-operator"]);
    expect(op.dependsOn).not.toContain("nvcf-operator-finalizers");
    const dependents = r.resources
      .filter((x) => x.dependsOn.includes("nvcf-operator-finalizers"))
      .map((x) => x.name);
    expect(dependents).toEqual(["nvcf-drain"]);
  });

  test("every child has a parent", () => {
    const topLevel = r.resources.filter((x) => x.parent === undefined).map((x) => x.type);
    for (const t of topLevel)
      expect([
        "pulumi:providers:kubernetes",
        "pulumi:pulumi:StackReference",
        "nvcf:index:ComputePlane",
      ]).toContain(t);
  });
});

/**
 * The checked-in URN list of each stack: one URN per line, sorted (`#` lines are comments). A URN is what the
 * engine matches state by: a changed type, name or parent replaces the resource in every deployed stack.
 */
const URN_DIR = path.join(__dirname, "../fixtures/urns");
const URN_UPDATE = "NVCF_UPDATE_URNS=1 npx jest --selectProjects=unit -- tests/unit/stacks/graph.test.ts";
const urnListHeader = (stack: string) =>
  [
    `# The URNs of stack ${stack} as the program registers them (tests/unit/stacks/graph.test.ts "names kept").`,
    "# A line that changes renames or drops a resource in every deployed stack (replaced, or deleted with its data)",
    "# unless the program gives it an alias. Regenerate only for a deliberate change, then review the diff:",
    `#   ${URN_UPDATE}`,
  ].join("\n");

function readUrnList(stack: string): string[] | undefined {
  const file = path.join(URN_DIR, `${stack}.txt`);
  if (!fs.existsSync(file)) return undefined;
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"));
}

/** Names of a release's prerequisites in the graph: what it waits for, by `dependsOn` or through its inputs. */
const waitsFor = (x: Rendered) => new Set([...x.dependsOn, ...x.inputDependsOn]);

/** Whether `from` waits for `to`, directly or through what it waits for (resources by name). */
function reaches(r: RenderResult, from: string, to: string): boolean {
  const byName = new Map<string, Set<string>>();
  for (const x of r.resources) {
    const deps = byName.get(x.name) ?? new Set<string>();
    for (const d of waitsFor(x)) deps.add(d);
    byName.set(x.name, deps);
  }
  const seen = new Set<string>();
  const todo = [...(byName.get(from) ?? [])];
  while (todo.length > 0) {
    const n = todo.pop()!;
    if (n === to) return true;
    if (seen.has(n)) continue;
    seen.add(n);
    todo.push(...(byName.get(n) ?? []));
  }
  return false;
}

/**
 * Helm releases a stack may install beyond the catalog, each with why. Envoy Gateway is not an NVCF release:
 * with `nvcf:gateway.install` the Gateway component (components/gateway.ts) installs it under its own name
 * (`ENVOY_GATEWAY_RELEASE`); the `ingress` release waits for the Gateway built on it, not for the release.
 */
const NON_CATALOG_RELEASES: Record<string, { when: (cfg: ControlPlaneConfig) => boolean; why: string }> = {
  "nvcf-gateway-envoy-gateway": {
    when: (cfg) => cfg.gateway.install,
    why: "Envoy Gateway, installed by the Gateway component when nvcf:gateway.install is on",
  },
};

/** A stack's plane, validated config and the catalog releases its config enables. */
function catalogView(stack: string) {
  if (controlStacks.includes(stack)) {
    const cfg = validatedConfig<ControlPlaneConfig>(stack);
    return {
      plane: "control" as const,
      cfg,
      enabled: enabledReleases("control", cfg.bundleVersion, controlFlags(cfg)),
    };
  }
  const cfg = validatedConfig<ComputePlaneConfig>(stack);
  return {
    plane: "compute" as const,
    cfg,
    enabled: enabledReleases("compute", cfg.bundleVersion, computeFlags(cfg)),
  };
}

describe.each(stacks)("the rules of stack %s's graph", (stack) => {
  let r: RenderResult;
  let view: ReturnType<typeof catalogView>;
  let helm: Rendered[];
  /** Resource name of a catalog release in the graph (the component and its Helm release share it). */
  const resourceOf = (release: string) => `nvcf-${release}`;
  beforeAll(async () => {
    r = await renderStack(stack);
    view = catalogView(stack);
    helm = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release");
  });

  test(`names kept: the URNs are exactly those of tests/unit/fixtures/urns/${stack}.txt`, () => {
    const got = r.resources.map((x) => x.urn).sort();
    // Two resources with one URN would be refused by the engine.
    expect(got.filter((u, i) => got.indexOf(u) !== i)).toEqual([]);
    if (process.env["NVCF_UPDATE_URNS"] === "1") {
      if (process.env["CI"]) throw new Error("NVCF_UPDATE_URNS rewrites the URN lists: never in CI");
      fs.mkdirSync(URN_DIR, { recursive: true });
      fs.writeFileSync(path.join(URN_DIR, `${stack}.txt`), `${urnListHeader(stack)}\n${got.join("\n")}\n`);
    }
    const want = readUrnList(stack);
    if (want === undefined)
      throw new Error(
        `tests/unit/fixtures/urns/${stack}.txt is missing; write it on purpose with: ${URN_UPDATE}`,
      );
    const lost = want.filter((u) => !got.includes(u));
    const added = got.filter((u) => !want.includes(u));
    if (lost.length > 0 || added.length > 0)
      throw new Error(
        [
          `stack ${stack}: the program's URNs differ from tests/unit/fixtures/urns/${stack}.txt.`,
          ...lost.map((u) => `  - no longer registered (renamed or lost): ${u}`),
          ...added.map((u) => `  + newly registered: ${u}`),
          "A renamed or re-parented resource is replaced (or deleted) in every deployed stack unless it gets an alias.",
          `If the change is deliberate, regenerate the lists and review the diff: ${URN_UPDATE}`,
        ].join("\n"),
      );
    expect(got).toEqual(want);
  });

  test("the Helm releases are exactly the catalog's releases the stack's config enables (plus the named non-catalog ones)", () => {
    const extra = Object.entries(NON_CATALOG_RELEASES)
      .filter(([, x]) => view.plane === "control" && x.when(view.cfg as ControlPlaneConfig))
      .map(([name]) => name);
    expect(helm.map((x) => x.name).sort()).toEqual(
      [...view.enabled.map((s) => resourceOf(s.name)), ...extra].sort(),
    );
  });

  test("order: each release waits for every release the catalog says it needs that is enabled here, and for no other", () => {
    const enabled = new Set(view.enabled.map((s) => s.name));
    const releaseNames = new Set(helm.map((x) => x.name));
    const got = Object.fromEntries(
      helm.map((x) => [x.name, [...waitsFor(x)].filter((d) => releaseNames.has(d)).sort()]),
    );
    const want = Object.fromEntries([
      ...view.enabled.map((s) => [
        resourceOf(s.name),
        s.needs
          .filter((n) => enabled.has(n.release))
          .map((n) => resourceOf(n.release))
          .sort(),
      ]),
      // Non-catalog releases wait for no release.
      ...Object.keys(NON_CATALOG_RELEASES)
        .filter((n) => releaseNames.has(n))
        .map((n) => [n, []]),
    ]);
    expect(got).toEqual(want);
  });

  test("edges and their reasons: every edge between releases is a catalog need of the same plane, with its reason", () => {
    const catalog = new Map<string, ReleaseSpec>(
      planeReleases(view.plane).map((s) => [resourceOf(s.name), s]),
    );
    const releaseNames = new Set(helm.map((x) => x.name));
    let edges = 0;
    for (const x of helm)
      for (const d of waitsFor(x)) {
        if (!releaseNames.has(d)) continue;
        edges++;
        const need = catalog.get(x.name)?.needs.find((n) => resourceOf(n.release) === d);
        expect({ edge: `${x.name} -> ${d}`, target: catalog.has(d), reason: need?.reason ?? "" }).toEqual({
          edge: `${x.name} -> ${d}`,
          target: true,
          reason: expect.stringMatching(/\w{3,}.*\w{3,}/),
        });
      }
    // Every stack's graph has install-order edges (each example enables releases with needs).
    expect(edges).toBeGreaterThan(0);
  });

  test("order: each release waits for its namespace and the pull secret in it; a namespace the stack does not create is the user's Gateway controller's", () => {
    const namespaces = new Map(
      r.resources
        .filter((x) => x.type === "kubernetes:core/v1:Namespace")
        .map((x) => [(x.inputs["metadata"] as { name: string }).name, x.name]),
    );
    const pullSecrets = new Map(
      r.resources
        .filter((x) => x.type === "kubernetes:core/v1:Secret" && x.urn.includes("$nvcf:index:PullSecrets$"))
        .map((x) => [(x.inputs["metadata"] as { namespace: string }).namespace, x.name]),
    );
    for (const x of helm) {
      const ns = String(x.inputs["namespace"]);
      const nsResource = namespaces.get(ns);
      if (nsResource === undefined) {
        // Bring-your-own Gateway: its controller's namespace (where the routes release goes) is the user's.
        const cfg = view.cfg as ControlPlaneConfig;
        expect([x.name, ns, cfg.gateway?.install]).toEqual([x.name, cfg.gateway?.controllerNamespace, false]);
        continue;
      }
      expect([x.name, ns, reaches(r, x.name, nsResource)]).toEqual([x.name, ns, true]);
      const pull = pullSecrets.get(ns);
      if (pull !== undefined)
        expect([x.name, [...waitsFor(x)]]).toEqual([x.name, expect.arrayContaining([pull])]);
    }
    // The pull secrets themselves are built from their namespaces.
    for (const [ns, pull] of pullSecrets)
      if (namespaces.has(ns)) expect([pull, reaches(r, pull, namespaces.get(ns)!)]).toEqual([pull, true]);
  });

  test("secrets: every secret the stack is given reaches a resource's inputs, and only as a secret", async () => {
    const file = readStackFile(stack);
    const SENTINEL = /SENTINEL-[A-Za-z0-9_.-]*?-7f3a9c/g;
    const given = new Set<string>();
    // Secret config values (`secure:` entries, sentinels per key; kubeconfigs hold one in their token).
    for (const k of file.secretKeys) for (const m of file.config[k]!.matchAll(SENTINEL)) given.add(m[0]);
    // The control plane's secret outputs a compute stack reads through its StackReference.
    if (view.plane === "compute") {
      const cp = await controlOutputsFor(stack);
      for (const k of SECRET_OUTPUT_NAMES)
        for (const m of JSON.stringify(cp[k] ?? "").matchAll(SENTINEL)) given.add(m[0]);
    }
    // The token the mocked aws:eks/getClusterAuth returns, for a control plane reached through EKS.
    if (view.plane === "control" && (view.cfg as ControlPlaneConfig).aws?.eksClusterName)
      given.add(sentinel("eks-token"));
    expect(given.size).toBeGreaterThan(0);
    // Where secrets went, in clear, with base64 credentials (docker auth, pull-secret values) decoded.
    const clear = secretInputs(r)
      .map((s) => JSON.stringify(s.value))
      .map((t) =>
        [
          t,
          ...[...t.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map((b) =>
            Buffer.from(b[0], "base64").toString("latin1"),
          ),
        ].join("\n"),
      )
      .join("\n");
    expect([...given].filter((g) => !clear.includes(g))).toEqual([]);
    // And nowhere in clear: inputs and outputs (secret ones masked) hold no sentinel.
    expect(JSON.stringify(r.resources.map((x) => x.inputs))).not.toMatch(SENTINEL);
    const plain = Object.fromEntries(Object.entries(r.outputs).filter(([k]) => !r.secretOutputs.includes(k)));
    expect(JSON.stringify(plain)).not.toMatch(SENTINEL);
  });
});

test("architecture: every component class passes {} as props, documents itself and registers its outputs", () => {
  const dir = path.join(ROOT, "components");
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".ts"))) {
    const src = fs.readFileSync(path.join(dir, f), "utf8");
    const classes = [
      ...src.matchAll(/export class (\w+) extends pulumi\.ComponentResource \{([\s\S]*?)\n\}/g),
    ];
    for (const [, name, body] of classes) {
      // `withoutDependsOn(opts)`: a component whose work is one resource hands that resource its dependsOn.
      expect([
        f,
        name,
        /super\("nvcf:index:\w+", name, \{\}, (opts|withoutDependsOn\(opts\))\)/.test(body),
      ]).toEqual([f, name, true]);
      expect([f, name, /this\.registerOutputs\(/.test(body)]).toEqual([f, name, true]);
      expect([f, name, src.includes(`/**`)]).toEqual([f, name, true]);
    }
  }
});

describe("stack reference contract", () => {
  const cp = {
    contractVersion: 1,
    bundleVersion: "0.8.0",
    imageRegistry: "r.example.com",
    imageRepository: "nvcf/images",
    hosts: { sis: "sis.d", reval: "reval.d", nats: "nats.d" },
    icmsUrl: "http://gw",
    revalUrl: "http://gw",
    natsUrl: "nats://gw:4222",
    clusterRegistrations: {
      "gpu-a": {
        clusterID: "c",
        clusterGroupID: "g",
        ncaID: "nvcf-default",
        region: "us-west-1",
        identitySource: "psat",
        icmsServiceURL: "",
        revalServiceURL: "",
        natsURL: "",
      },
    },
  };
  const cfg = () => {
    const f = readStackFile("dev-gpu-a");
    const raw = Object.fromEntries(Object.entries(f.config).map(([k, v]) => [k.replace(/^nvcf:/, ""), v]));
    return validateConfig(raw, new Set(), "dev-gpu-a") as ComputePlaneConfig;
  };

  test("each contract output the reader names is read with requireOutput (a missing one fails with its name)", () => {
    const asked: string[] = [];
    const ref = {
      requireOutput: (n: string) => (asked.push(n), n),
    } as unknown as import("@pulumi/pulumi").StackReference;
    const all = [...PLAIN_OUTPUT_NAMES, ...SECRET_OUTPUT_NAMES];
    expect(Object.keys(readControlPlane(ref, all)).sort()).toEqual([...all].sort());
    expect(asked.sort()).toEqual([...all].sort());
    asked.length = 0;
    expect(readControlPlane(ref, ["imageRegistryKey"])).toEqual({ imageRegistryKey: "imageRegistryKey" });
    expect(asked).toEqual(["imageRegistryKey"]);
  });
  test("a bundle mismatch is refused, naming both versions", () => {
    expect(() => computeInputs(cfg(), { ...cp, bundleVersion: "0.7.0" })).toThrow(
      /- nvcf:bundleVersion: expected "0\.7\.0", the NVCF bundle control-plane stack organization\/nvcf\/dev runs, found "0\.8\.0"\. Fix: pulumi config set nvcf:bundleVersion 0\.7\.0/,
    );
  });
  test("in a preview, a bundle the control plane's own stack file moves it to is not a mismatch; another one is", () => {
    expect(computeInputs(cfg(), { ...cp, bundleVersion: "0.7.0" }, "dev-gpu-a", "0.8.0")).toEqual(
      computeInputs(cfg(), cp),
    );
    expect(() => computeInputs(cfg(), { ...cp, bundleVersion: "0.7.0" }, "dev-gpu-a", "0.7.0")).toThrow(
      /- nvcf:bundleVersion: expected "0\.7\.0", the NVCF bundle control-plane stack organization\/nvcf\/dev runs, found "0\.8\.0"/,
    );
  });
  test("the control plane's target bundle is read from its stack file in the project directory, if there is one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-target-"));
    try {
      expect(controlPlaneTarget(cfg(), dir)).toBeUndefined();
      fs.writeFileSync(
        path.join(dir, "Pulumi.dev.yaml"),
        "config:\n  nvcf:bundleVersion: 0.8.0\n  nvcf:plane: control\n",
      );
      expect(controlPlaneTarget(cfg(), dir)).toBe("0.8.0");
      fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  nvcf:plane: control\n");
      expect(controlPlaneTarget(cfg(), dir)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  test("a different contract version is refused", () => {
    expect(() => computeInputs(cfg(), { ...cp, contractVersion: 2 })).toThrow(
      /- nvcf:controlPlaneStack: expected a control-plane stack exporting contract version 1 .*, found organization\/nvcf\/dev exporting contract version 2/,
    );
  });
  test("a cluster without registration is refused, naming the stack to update", () => {
    expect(() => computeInputs(cfg(), { ...cp, clusterRegistrations: {} })).toThrow(
      /- nvcf:clusterName: expected a GPU cluster registered by control-plane stack organization\/nvcf\/dev \(registered: none\), found "gpu-a", which has no registration there\. Fix: .*pulumi up -s dev first/,
    );
  });
  test("the inputs carry the registration and the compute-reachable URLs with host overrides", () => {
    expect(computeInputs(cfg(), cp)).toEqual(
      computeInputsFixture({
        imageRegistry: "r.example.com",
        imageRepository: "nvcf/images",
        clusterID: "c",
        clusterGroupID: "g",
      }),
    );
  });
  test("the control plane's values are awaited and checked; missing or unknown outputs are named", async () => {
    // A StackReference as the compute stack reads it up front (getOutputDetails per output).
    const refWith = (o: Record<string, unknown>) =>
      ({
        getOutputDetails: async (n: string) => ({ value: o[n] }),
      }) as unknown as import("@pulumi/pulumi").StackReference;
    const full = { ...cp, bundleVersion: "0.8.0" };
    await expect(controlPlaneValues(refWith(full), cfg())).resolves.toEqual(full);
    const partial: Record<string, unknown> = { ...full };
    delete partial["bundleVersion"];
    delete partial["clusterRegistrations"];
    const err = await controlPlaneValues(refWith(partial), cfg()).catch((e: Error) => e);
    expect((err as Error).name).toBe("ConfigError");
    expect((err as Error).message).toMatch(
      /- nvcf:controlPlaneStack: expected a deployed control-plane stack exporting bundleVersion, clusterRegistrations, found organization\/nvcf\/dev without them .* Fix: pulumi up -s dev/,
    );
  });
  test("the compute stack checks its control plane before it registers any resource of its own", () => {
    // Source order in stacks/compute.ts: the awaited check comes before the provider and the component.
    const src = fs.readFileSync(path.join(ROOT, "stacks/compute.ts"), "utf8");
    const body = src.slice(src.indexOf("export async function computePlaneStack"));
    // After the one read of the stack's own previous outputs (stacks/installedSettings.ts), awaited.
    const check = body.indexOf("await controlPlaneValues(ref, cfg)");
    expect(body.indexOf("await readDeployed()")).toBeGreaterThan(0);
    expect(body.indexOf("await readDeployed()")).toBeLessThan(check);
    expect(check).toBeGreaterThan(0);
    expect(check).toBeLessThan(body.indexOf("new k8s.Provider("));
    expect(check).toBeLessThan(body.indexOf("new ComputePlane("));
  });
  test("secrets stay secret across the reference: the pull secret data is not readable", async () => {
    const r = await renderStack("dev-gpu-a");
    const secretRes = r.resources.filter((x) => x.type === "kubernetes:core/v1:Secret");
    // pullSecretNamespaces (nvca-operator, nvca-system, nvcf-backend), kube-system for the node tuner and the
    // observability namespace (profile compute: NVIDIA's observability stack on the GPU cluster).
    expect(secretRes.map((x) => (x.inputs["metadata"] as { namespace?: string }).namespace).sort()).toEqual([
      "kube-system",
      "monitoring",
      "nvca-operator",
      "nvca-system",
      "nvcf-backend",
    ]);
    for (const s of secretRes)
      expect(JSON.stringify(s.inputs["stringData"])).toMatch(
        /^"\[secret\]"$|"\.dockerconfigjson":"\[secret\]"/,
      );
  });
});

test("@pulumi/aws is loaded only when an AWS feature is configured (no start-up cost elsewhere)", () => {
  // A fresh Node process loads both stack programs, as index.ts would, and reports what it loaded.
  const probe = (extra: string) =>
    execFileSync(
      process.execPath,
      [
        "-r",
        "ts-node/register/transpile-only",
        "-e",
        `require("./stacks/control"); require("./stacks/compute"); ${extra}
         console.log(Object.keys(require.cache).some((k) => k.includes("/node_modules/@pulumi/aws/")))`,
      ],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, TS_NODE_PROJECT: "tsconfig.json" } },
    ).trim();
  expect(probe("")).toBe("false");
  expect(probe('require("./stacks/aws");')).toBe("true");
});

describe("gateway", () => {
  test("bring-your-own: each missing listener or Gateway is named", async () => {
    const f = readStackFile("dev");
    const raw = Object.fromEntries(Object.entries(f.config).map(([k, v]) => [k.replace(/^nvcf:/, ""), v]));
    const cfg = validateConfig(
      raw,
      new Set(f.secretKeys.map((k) => k.replace(/^nvcf:/, ""))),
      "dev",
    ) as ControlPlaneConfig;
    expect(missingListeners(cfg, { "envoy-gateway/nvcf-gateway": mockGateway(["http", "tcp"]) })).toEqual([
      'Gateway envoy-gateway/nvcf-gateway has no listener "nats" (TCP 4222); it has: http, tcp',
    ]);
    expect(missingListeners(cfg, {})).toEqual([
      "Gateway envoy-gateway/nvcf-gateway (nvcf:gateway.shared) was not found",
      "Gateway envoy-gateway/nvcf-gateway (nvcf:gateway.grpc) was not found",
      "Gateway envoy-gateway/nvcf-gateway (nvcf:gateway.nats) was not found",
    ]);
    expect(missingListeners(cfg, { "envoy-gateway/nvcf-gateway": mockGateway() })).toEqual([]);
  });
  test("the address is the Gateway's status address", async () => {
    const r = await renderControl("dev");
    expect(r.outputs["gatewayAddress"]).toBe("203.0.113.10");
    expect(r.outputs["icmsUrl"]).toBe("http://203.0.113.10");
  });
});

describe("change isolation in the graph", () => {
  test("enabling an add-on adds only its release (and nothing else changes)", async () => {
    const base = await renderControl("dev");
    const withUi = await render({
      stack: "dev",
      gateways: GATEWAYS,
      overrides: { addons: { nvcfUi: { enabled: true } } },
    });
    const key = (x: { type: string; name: string }) => `${x.type}::${x.name}`;
    const before = new Map(base.resources.map((x) => [key(x), JSON.stringify(x)]));
    const added = withUi.resources.filter((x) => !before.has(key(x))).map((x) => x.name);
    expect(added.sort()).toEqual(
      ["nvcf-ns-nvcf-ui", "nvcf-nvcf-ui", "nvcf-nvcf-ui", "nvcf-pull-nvcf-ui"].sort(),
    );
    const changed = withUi.resources
      .filter((x) => before.has(key(x)) && before.get(key(x)) !== JSON.stringify(x))
      .map((x) => `${x.type}::${x.name}`);
    // The route chart renders the UI route, the ingress waits for nvcf-ui, and the guard waits for one more
    // release (the resources that do the work carry the dependsOn, not their components).
    expect(changed.sort()).toEqual(
      ["command:local:Command::nvcf-teardown-guard", "kubernetes:helm.sh/v3:Release::nvcf-ingress"].sort(),
    );
  });
});

describe("components register at once; their resource waits", () => {
  // components/options.ts `withoutDependsOn`: a component with dependsOn would wait for its prerequisites and
  // then cost one more engine round trip before its resource could start, on every edge of the install order.
  const WRAPPERS = new Set([
    "nvcf:index:Release",
    "nvcf:index:TeardownGuard",
    "nvcf:index:ClusterRegistration",
    "nvcf:index:InotifyTuner",
  ]);
  test.each(["dev", "prod-eks", "dev-gpu-a", "dev-gpu-b", "prod-gpu-east-1"])(
    "%s: the wrapping components carry no dependsOn, the resource inside carries all of it",
    async (stack) => {
      const r = await renderStack(stack);
      const wrappers = r.resources.filter((x) => WRAPPERS.has(x.type));
      expect(wrappers.length).toBeGreaterThan(0);
      for (const w of wrappers) {
        expect([w.type, w.name, w.dependsOn]).toEqual([w.type, w.name, []]);
        const inner = r.resources.filter((x) => x.parent === w.name && !WRAPPERS.has(x.type));
        expect(inner.length).toBeGreaterThan(0);
      }
      // A release with needs waits for them and for its namespace's pull secret (or namespace), itself.
      const release = (name: string) =>
        r.resources.find((x) => x.type === "kubernetes:helm.sh/v3:Release" && x.name === name);
      if (stack === "dev") {
        expect(release("nvcf-openbao-server")?.dependsOn.sort()).toEqual([
          "nvcf-nats",
          "nvcf-pull-vault-system",
        ]);
        expect(release("nvcf-nats")?.dependsOn).toEqual(["nvcf-pull-nats-system"]);
      }
      if (stack === "dev-gpu-a") {
        expect(release("nvcf-nvca-operator")?.dependsOn).toEqual(
          expect.arrayContaining(["nvcf-inotify", "nvcf-pull-nvca-operator"]),
        );
      }
    },
  );
});

describe("the control plane in two steps (ControlPlane.create)", () => {
  // stacks/control.ts: recovery reads the cluster while the namespaces, pull secrets and credentials are
  // registered; the releases wait for what it decides.
  const FIRST_STEP = new Set([
    // The stack's reference to itself (its previous outputs, read before anything else: a read, not a change).
    "pulumi:pulumi:StackReference",
    "nvcf:index:ControlPlane",
    "nvcf:index:Namespaces",
    "kubernetes:core/v1:Namespace",
    "nvcf:index:PullSecrets",
    "kubernetes:core/v1:Secret",
    "random:index/randomPassword:RandomPassword",
    // A read of the stack's own previous outputs (engine/previous.ts), before the first step.
    "pulumi:pulumi:StackReference",
  ]);

  test("a recovery refusal fails the run with only the first step registered: no release, guard or registration", async () => {
    const refusal = new Error(
      "1 release cannot be recovered automatically; no release was installed or upgraded",
    );
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS,
      moduleMocks: {
        "recovery/recover": {
          recoverReleases: () => Promise.reject(refusal),
        },
      },
    });
    expect(r.error?.message).toBe(refusal.message);
    const types = new Set(r.resources.map((x) => x.type));
    // Besides the first step: the provider, and the read of the stack's own previous outputs (stacks/installedSettings.ts).
    expect(
      [...types].filter(
        (t) =>
          !FIRST_STEP.has(t) && t !== "pulumi:providers:kubernetes" && t !== "pulumi:pulumi:StackReference",
      ),
    ).toEqual([]);
    const names = r.resources.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(["nvcf-ns-nats-system", "nvcf-pull-nats-system"]));
    expect(names).toContain("nvcf-openbao-migrations-credentials");
  });

  test("the releases recovery adopts are imported, the others installed", async () => {
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS,
      moduleMocks: {
        "recovery/recover": {
          recoverReleases: () => Promise.resolve({ nats: "nats-system/nats", eg: "envoy-gateway-system/eg" }),
        },
      },
    });
    expect(r.error).toBeUndefined();
    const imported = r.resources
      .filter((x) => x.importId !== undefined)
      .map((x) => [x.type, x.name, x.importId]);
    expect(imported).toEqual([["kubernetes:helm.sh/v3:Release", "nvcf-nats", "nats-system/nats"]]);
    expect(r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release").length).toBeGreaterThan(20);
  });
});

describe("a release waits until the engine holds its prerequisites' entries of the releases output", () => {
  // engine/outputs.ts: the engine drops output registrations still on their way when a step fails, so each
  // release registers only after a registration that lists its prerequisites as known was acknowledged.
  const prerequisites = (r: RenderResult, release: string) => {
    const components = new Set(r.resources.filter((x) => x.type === "nvcf:index:Release").map((x) => x.name));
    const helm = r.resources.find((x) => x.type === "kubernetes:helm.sh/v3:Release" && x.name === release);
    return (helm?.dependsOn ?? []).filter((d) => components.has(d)).map((d) => d.replace(/^nvcf-/, ""));
  };
  const lastOutputsBefore = (r: RenderResult, event: string) => {
    const at = r.events.indexOf(event);
    const before = r.events.slice(0, at).filter((e) => e.startsWith("outputs "));
    return at < 0 || before.length === 0
      ? undefined
      : (JSON.parse(before[before.length - 1]!.slice("outputs ".length)) as Record<string, string>);
  };

  test("in an update, each release is registered after its prerequisites read deployed in the stack's outputs", async () => {
    const r = await renderControl("dev");
    expect(r.error).toBeUndefined();
    const releases = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release").map((x) => x.name);
    const checked: string[] = [];
    for (const name of releases) {
      const needs = prerequisites(r, name);
      if (needs.length === 0) continue;
      const seen = lastOutputsBefore(r, `register kubernetes:helm.sh/v3:Release::${name}`);
      expect([name, needs.map((n) => [n, seen?.[n]])]).toEqual([name, needs.map((n) => [n, "deployed"])]);
      // Its own entry was not known yet when it registered.
      expect([name, seen?.[name.replace(/^nvcf-/, "")]]).toEqual([name, "unfinished"]);
      checked.push(name);
    }
    // The chain the e2e failure case relies on: api waits for ess-api, openbao-server and cassandra.
    expect(prerequisites(r, "nvcf-api").sort()).toEqual(["cassandra", "ess-api", "openbao-server"]);
    expect(checked.length).toBeGreaterThan(15);
  });

  test("in a preview nothing is published and no release waits for it", async () => {
    const r = await render({ stack: "dev", gateways: GATEWAYS, preview: true });
    expect(r.error).toBeUndefined();
    expect(r.events.filter((e) => e.startsWith("outputs "))).toEqual([]);
    expect(prerequisites(r, "nvcf-api").sort()).toEqual(["cassandra", "ess-api", "openbao-server"]);
  });
});
