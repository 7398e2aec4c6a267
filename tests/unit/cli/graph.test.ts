/**
 * `nvcf graph` (cli/graph.ts) on the example environments: every catalog edge in force appears once with the
 * catalog's reason, the component edges (Gateway, registration, StackReference, inotify tuner) are there, the
 * Mermaid text has a valid flowchart shape, each edge is labelled with its kind and carries its reason, the
 * planes are drawn as groups, the SVG is rendered by Graphviz (@viz-js/viz), and docs/graph.md and
 * docs/graph-dev.svg are what the command draws today.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readStackFiles } from "../../../cli/environment";
import { activeNeeds, enabledReleases, NEED_KINDS } from "../../../catalog/releases";
import {
  EDGE_KINDS,
  kindColor,
  releaseGraph,
  renderGraph,
  toDot,
  toMermaid,
  usedKinds,
} from "../../../cli/graph";
import { checkedStack } from "../../../cli/stacks";
import type { Environment, StackFile } from "../../../cli/types";
import { computeFlags, controlFlags } from "../../../config/flags";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";

const ROOT = path.resolve(__dirname, "../../..");

/** A stack file of the checkout, as cli/environment.ts `readStackFiles` reads it. */
function stackFile(stack: string): StackFile {
  const file = readStackFiles(ROOT).find((s) => s.stack === stack);
  if (!file) throw new Error(`no Pulumi.${stack}.yaml in ${ROOT}`);
  return file;
}

const dev: Environment = {
  name: "dev",
  projectDir: ROOT,
  control: stackFile("dev"),
  compute: [stackFile("dev-gpu-a"), stackFile("dev-gpu-b")],
};

const graph = () =>
  releaseGraph(
    checkedStack(dev.control),
    dev.compute.map((s) => checkedStack(s)),
  );

describe("release graph of the dev environment", () => {
  test("every catalog need in force is one edge carrying the catalog's reason", () => {
    const g = graph();
    const ctl = checkedStack(dev.control).config as ControlPlaneConfig;
    const flags = controlFlags(ctl);
    const releases = enabledReleases("control", ctl.bundleVersion, flags);
    const names = new Set(releases.map((r) => r.name));
    const want = releases.flatMap((r) =>
      activeNeeds(r, flags)
        .filter((t) => names.has(t))
        .map((t) => ({
          from: `dev__${t.replace(/-/g, "_")}`,
          to: `dev__${r.name.replace(/-/g, "_")}`,
          kind: r.needs.find((n) => n.release === t)?.kind,
          reason: r.needs.find((n) => n.release === t)?.reason,
        })),
    );
    expect(want.length).toBeGreaterThan(20);
    for (const e of want) expect(g.edges.filter((x) => x.from === e.from && x.to === e.to)).toEqual([e]);
    // One concrete edge, spelled out: the api waits for Cassandra's schema hook.
    const api = g.edges.find((e) => e.from === "dev__cassandra" && e.to === "dev__api");
    expect(api?.reason).toMatch(/post-install migrations hook creates the keyspaces/);
    expect(api?.kind).toBe("schema");
    // Every edge has a kind of the legend, the component edges included.
    for (const e of g.edges) expect(Object.keys(EDGE_KINDS)).toContain(e.kind);
    expect(g.edges.find((e) => e.from === "dev__openbao_server" && e.to === "dev__api")?.kind).toBe(
      "webhook",
    );
  });

  test("the all-add-ons GPU cluster has its add-on chain; both compute planes reference their registration", () => {
    const g = graph();
    const b = checkedStack(dev.compute[1]).config as ComputePlaneConfig;
    const flags = computeFlags(b);
    const rels = enabledReleases("compute", b.bundleVersion, flags).map((r) => r.name);
    expect(rels).toEqual(expect.arrayContaining(["kai-scheduler", "grove-operator", "dynamo-operator"]));
    const dyn = g.edges.find(
      (e) => e.from === "dev_gpu_b__grove_operator" && e.to === "dev_gpu_b__dynamo_operator",
    );
    expect(dyn?.reason).toMatch(/Grove PodCliqueSets/);
    for (const [st, cl] of [
      ["dev_gpu_a", "gpu_a"],
      ["dev_gpu_b", "gpu_b"],
    ]) {
      const ref = g.edges.find((e) => e.from === `dev__register_${cl}` && e.to === `${st}__nvca_operator`);
      expect(ref?.reason).toMatch(/^StackReference organization\/nvcf\/dev: /);
      expect(ref?.kind).toBe("StackReference");
      expect(
        g.edges.find((e) => e.from === `${st}__inotify_tuner` && e.to === `${st}__nvca_operator`),
      ).toBeDefined();
    }
    // The registration waits for the services nvcf-cli calls.
    const into = g.edges.filter((e) => e.to === "dev__register_gpu_a").map((e) => e.from);
    expect(into.sort()).toEqual(
      ["dev__admin_issuer_proxy", "dev__api_keys", "dev__ingress", "dev__openbao_server", "dev__sis"].sort(),
    );
    expect(g.edges.find((e) => e.from === "dev__gateway" && e.to === "dev__ingress")).toBeDefined();
    expect(g.groups.map((x) => x.plane)).toEqual(["control", "compute", "compute"]);
    expect(g.groups.map((x) => x.label)).toEqual([
      "dev: control plane (kwok-nvcf-dev)",
      "dev-gpu-a: compute plane gpu-a (kwok-nvcf-gpu-a)",
      "dev-gpu-b: compute plane gpu-b (kwok-nvcf-gpu-b)",
    ]);
  });

  test("Mermaid text is a well-formed flowchart: balanced subgraphs, declared nodes, quoted labels", () => {
    const g = graph();
    const text = toMermaid(g);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("flowchart LR");
    const declared = new Set<string>();
    let depth = 0;
    let edges = 0;
    const planes: string[] = [];
    for (const l of lines.slice(1)) {
      let m: RegExpExecArray | null;
      if ((m = /^( {2}| {4})subgraph ([A-Za-z0-9_]+) \["([^"]*)"\]$/.exec(l))) {
        // Planes at the top, stacks inside them.
        expect(m[1].length / 2).toBe(depth + 1);
        if (depth === 0) planes.push(m[2]);
        depth++;
      } else if ((m = /^( {2}| {4})end$/.exec(l))) {
        expect(m[1].length / 2).toBe(depth);
        depth--;
      } else if ((m = /^ {6}([A-Za-z0-9_]+)\["([^"]*)"\]$/.exec(l))) {
        expect(depth).toBe(2);
        declared.add(m[1]);
      } else if ((m = /^ {2}([A-Za-z0-9_]+) -->\|"([^"|]*)"\| ([A-Za-z0-9_]+)$/.exec(l))) {
        expect(declared.has(m[1])).toBe(true);
        expect(declared.has(m[3])).toBe(true);
        // The label is the edge's kind, one word of the legend.
        expect(Object.keys(EDGE_KINDS)).toContain(m[2]);
        edges++;
      } else throw new Error(`not a flowchart line: ${l}`);
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
    expect(planes).toEqual(["control_plane", "compute_planes"]);
    expect(edges).toBe(g.edges.length);
    expect(declared.size).toBe(g.groups.reduce((n, x) => n + x.nodes.length, 0));
  });

  test("labels escape what Mermaid and DOT would parse; the reason is the DOT tooltip, the kind the label", () => {
    const g = {
      groups: [
        {
          id: "s",
          label: 'a "b" #c <d>',
          plane: "control" as const,
          nodes: [
            { id: "s__x", label: ["x"] },
            { id: "s__y", label: ["y"] },
          ],
        },
      ],
      edges: [
        {
          from: "s__x",
          to: "s__y",
          kind: "secret" as const,
          reason: 'needs "quotes" and a back\\slash | pipe',
        },
      ],
    };
    expect(toMermaid(g)).toContain('subgraph s ["a #quot;b#quot; #35;c #lt;d#gt;"]');
    expect(toMermaid(g)).toContain('s__x -->|"secret"| s__y');
    expect(toMermaid(g)).not.toContain("quotes");
    expect(toDot(g)).toContain('label="secret"');
    expect(toDot(g)).toContain('tooltip="needs \\"quotes\\" and a back\\\\slash | pipe"');
    expect(toDot(g)).toContain('label="a \\"b\\" #c <d>"');
  });

  test("SVG: a cluster per plane and per stack, a legend of the kinds used, each edge in its kind's colour with its reason as <title>", async () => {
    const svg = await renderGraph(dev, "svg");
    expect(svg).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\s*$/);
    const g = graph();
    const edges = [
      ...svg.matchAll(
        /<g id="e(\d+)" class="edge">\s*<title>([^<]*)<\/title>[\s\S]*?<path fill="none" stroke="([^"]+)"/g,
      ),
    ];
    expect(edges.length).toBe(g.edges.length);
    // SVG text with its character references resolved (Graphviz writes `-` and `'` as numeric ones).
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    const text = (s: string) =>
      s.replace(/&(#\d+|\w+);/g, (_m, r: string) =>
        r.startsWith("#") ? String.fromCharCode(Number(r.slice(1))) : (named[r] ?? `&${r};`),
      );
    const plain = text(svg);
    for (const [, i, title, stroke] of edges) {
      const e = g.edges[Number(i)];
      expect(text(title)).toBe(`${e.kind}: ${e.reason}`);
      expect(stroke).toBe(kindColor(e.kind));
    }
    // Planes (2), stacks (3), legend (1).
    expect((svg.match(/<g id="clust\d+" class="cluster">/g) ?? []).length).toBe(6);
    for (const t of ["control plane", "compute planes (GPU clusters)", "dev: control plane (kwok-nvcf-dev)"])
      expect(plain).toContain(`>${t}</text>`);
    const kinds = usedKinds(g);
    expect(kinds).toEqual(
      expect.arrayContaining(["helmfile", "webhook", "schema", "CRD", "API", "StackReference"]),
    );
    for (const k of kinds) expect(plain).toContain(`>${EDGE_KINDS[k]}</text>`);
    // Distinct colours for the kinds drawn.
    expect(new Set(kinds.map(kindColor)).size).toBe(kinds.length);
    const mermaid = await renderGraph(dev, "mermaid");
    expect(mermaid).toBe(toMermaid(g));
  });
});

describe("docs/graph.md and docs/graph-dev.svg: the dev environment's graph", () => {
  const doc = () => fs.readFileSync(path.join(ROOT, "docs/graph.md"), "utf8");

  test("the Mermaid block is what nvcf graph --env dev --format mermaid prints today", async () => {
    const m = /```mermaid\n([\s\S]*?)\n```/.exec(doc());
    expect(m).not.toBeNull();
    expect(m![1]).toBe((await renderGraph(dev, "mermaid")).replace(/\n$/, ""));
  });

  test("docs/graph-dev.svg is what nvcf graph --env dev --format svg draws today", async () => {
    const file = fs.readFileSync(path.join(ROOT, "docs/graph-dev.svg"), "utf8");
    expect(file).toBe(await renderGraph(dev, "svg"));
  });

  test("the legend lists every kind with its meaning, and every edge's reason is written out under its kind", () => {
    const text = doc().replace(/\s+/g, " ");
    for (const [k, meaning] of Object.entries(EDGE_KINDS))
      expect(text).toContain(`| \`${k}\` | ${meaning} |`);
    expect(Object.keys(NEED_KINDS).every((k) => k in EDGE_KINDS)).toBe(true);
    for (const e of graph().edges) expect(text).toContain(`\`${e.kind}\`: ${e.reason}`);
  });
});
