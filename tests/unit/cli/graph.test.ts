/**
 * `nvcf graph` (cli/graph.ts) on the example environments: every catalog edge in force appears once with the
 * catalog's reason, the component edges (Gateway, registration, StackReference, inotify tuner) are there, the
 * Mermaid text has a valid flowchart shape, and the SVG is rendered by Graphviz (@viz-js/viz).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readStackFiles } from "../../../cli/environment";
import { activeNeeds, enabledReleases } from "../../../catalog/releases";
import { releaseGraph, renderGraph, toDot, toMermaid, wrap } from "../../../cli/graph";
import { checkedStack } from "../../../cli/preflight/context";
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
          reason: r.needs.find((n) => n.release === t)?.reason,
        })),
    );
    expect(want.length).toBeGreaterThan(20);
    for (const e of want) expect(g.edges.filter((x) => x.from === e.from && x.to === e.to)).toEqual([e]);
    // One concrete edge, spelled out: the api waits for Cassandra's schema hook.
    const api = g.edges.find((e) => e.from === "dev__cassandra" && e.to === "dev__api");
    expect(api?.reason).toMatch(/post-install migrations hook creates the keyspaces/);
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
    for (const l of lines.slice(1)) {
      let m: RegExpExecArray | null;
      if ((m = /^ {2}subgraph ([A-Za-z0-9_]+) \["([^"]*)"\]$/.exec(l))) depth++;
      else if (/^ {2}end$/.test(l)) depth--;
      else if ((m = /^ {4}([A-Za-z0-9_]+)\["([^"]*)"\]$/.exec(l))) {
        expect(depth).toBe(1);
        declared.add(m[1]);
      } else if ((m = /^ {2}([A-Za-z0-9_]+) -->\|"([^"|]*)"\| ([A-Za-z0-9_]+)$/.exec(l))) {
        expect(declared.has(m[1])).toBe(true);
        expect(declared.has(m[3])).toBe(true);
        expect(m[2].replace(/<br\/>/g, "")).not.toMatch(/[<>"]/);
        edges++;
      } else throw new Error(`not a flowchart line: ${l}`);
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
    expect(edges).toBe(g.edges.length);
    expect(declared.size).toBe(g.groups.reduce((n, x) => n + x.nodes.length, 0));
  });

  test("labels escape what Mermaid and DOT would parse, and wrap long reasons", () => {
    const g = {
      groups: [
        {
          id: "s",
          label: 'a "b" #c <d>',
          nodes: [
            { id: "s__x", label: ["x"] },
            { id: "s__y", label: ["y"] },
          ],
        },
      ],
      edges: [{ from: "s__x", to: "s__y", reason: 'needs "quotes" and a back\\slash | pipe' }],
    };
    expect(toMermaid(g)).toContain('subgraph s ["a #quot;b#quot; #35;c #lt;d#gt;"]');
    expect(toMermaid(g)).toContain('s__x -->|"needs #quot;quotes#quot; and a back\\slash #124; pipe"| s__y');
    expect(toDot(g)).toContain('label="needs \\"quotes\\" and a back\\\\slash | pipe"');
    expect(wrap("one two three four five six", 9)).toEqual(["one two", "three", "four five", "six"]);
  });

  test("SVG is rendered from the DOT of the same graph, with a cluster per stack and every edge label", async () => {
    const svg = await renderGraph(dev, "svg");
    expect(svg).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\s*$/);
    const g = graph();
    expect((svg.match(/<g id="edge\d+" class="edge">/g) ?? []).length).toBe(g.edges.length);
    expect((svg.match(/<g id="clust\d+" class="cluster">/g) ?? []).length).toBe(3);
    expect(svg).toContain("StackReference organization/nvcf/dev:");
    const mermaid = await renderGraph(dev, "mermaid");
    expect(mermaid).toBe(toMermaid(g));
  });
});

describe("the README's graph of the dev environment", () => {
  test("is what nvcf graph --env dev --format mermaid prints today", async () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const m = /```mermaid\n([\s\S]*?)\n```/.exec(readme);
    expect(m).not.toBeNull();
    expect(m![1]).toBe((await renderGraph(dev, "mermaid")).replace(/\n$/, ""));
    expect(fs.existsSync(path.join(ROOT, "docs/graph-dev.svg"))).toBe(true);
  });
});
