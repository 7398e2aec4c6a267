/**
 * `nvcf graph`: the release dependency graph of an environment, built from the catalog for the control plane and
 * each compute plane: the releases each stack installs (config/stackReleases.ts) and their `needs`
 * (catalog/releases.ts), and the control plane's steps that are not releases with their prerequisites
 * (catalog/steps.ts: the registration of each GPU cluster, the account settings, the upgrade steps in place),
 * each edge labelled with its reason; plus the edges the components add: the Gateway before the routes, the
 * StackReference from each compute plane to its registration, and the node inotify tuner before the NVCA operator
 * (components/computePlane.ts).
 *
 * Arrows point from a prerequisite to what waits for it. Each edge is labelled with its kind, one word
 * (catalog/releases.ts `NEED_KINDS`, e.g. `webhook`, `CRD`), and carries its full reason: in the SVG as the
 * edge's tooltip (`<title>`), with a legend of the kinds drawn; in Mermaid only the kind. The stacks are grouped
 * per plane (control plane, compute planes). Output: Mermaid flowchart text built here, or SVG rendered from the
 * same graph as Graphviz DOT with @viz-js/viz.
 */
import { activeNeedSpecs, chartVersion, NEED_KINDS, type Plane } from "../catalog/releases";
import {
  CONTROL_PLANE_STEPS,
  STEP_KINDS,
  type StepConditions,
  activeStepNeeds,
  stepInPlace,
} from "../catalog/steps";
import { accountName } from "../config/accounts";
import { stackReleases } from "../config/stackReleases";
import type { UpgradePlan } from "../upgrade/plan";
import { type CheckedStack, checkedStack, computeConfig, controlConfig } from "./stacks";
import type { Environment } from "./types";

/** One node: a Helm release or another resource the order depends on. */
export interface GraphNode {
  id: string;
  /** First line: the release (or resource); second line: chart and version, or what it is. */
  label: string[];
}

/** One group of nodes: a stack, of the control or the compute plane. */
export interface GraphGroup {
  id: string;
  label: string;
  plane: Plane;
  nodes: GraphNode[];
}

/** The kinds of edge: the catalog's kinds of need, those of the edges the components add, and the steps' own. */
export const EDGE_KINDS = {
  ...NEED_KINDS,
  Gateway: "the routes attach to the listeners of the Gateway",
  StackReference: "the compute plane reads the control plane's outputs through a StackReference",
  ...STEP_KINDS,
} as const;
/** One word naming what an edge's target needs of its source (`EDGE_KINDS`). */
export type EdgeKind = keyof typeof EDGE_KINDS;

/** One edge: `from` must be ready before `to`; `kind` says what of it in one word, `reason` in full. */
export interface GraphEdge {
  from: string;
  to: string;
  kind: EdgeKind;
  reason: string;
}

/** The environment's graph: one group per stack (control plane first), and the edges. */
export interface ReleaseGraph {
  groups: GraphGroup[];
  edges: GraphEdge[];
}

const ident = (s: string) => s.replace(/[^A-Za-z0-9]/g, "_");

/**
 * The id of a node: its stack's name and its own, each with every character but letters and digits as `_`. A
 * release's node is named by the release, a step's by the step (catalog/steps.ts), a GPU cluster's registration
 * `register-<cluster>`.
 */
export const nodeId = (stack: string, name: string) => `${ident(stack)}__${ident(name)}`;

/**
 * The control plane's steps that are not releases (catalog/steps.ts) and their edges: one registration per GPU
 * cluster, the account settings, and the upgrade steps `facts` put in place, each after its prerequisites in
 * force among the releases and steps the stack has.
 */
function stepNodes(
  s: CheckedStack,
  facts: StepConditions,
  enabled: ReadonlySet<string>,
  nodes: GraphNode[],
  edges: GraphEdge[],
) {
  const c = controlConfig(s);
  const st = s.file.stack;
  const steps = CONTROL_PLANE_STEPS.filter((spec) => stepInPlace(spec, facts));
  const present = new Set(steps.map((spec) => spec.name));
  for (const spec of steps) {
    const instances: GraphNode[] = spec.perGpuCluster
      ? c.gpuClusters.map((g) => ({
          id: nodeId(st, `register-${g.name}`),
          label: [`registration ${g.name}`, `${spec.what} (${g.region})`, "later changes keep its IDs"],
        }))
      : [
          {
            id: nodeId(st, spec.name),
            label: [
              spec.name === "account-settings" ? `account settings ${accountName(c)}` : spec.name,
              spec.what,
            ],
          },
        ];
    for (const node of instances) {
      nodes.push(node);
      for (const need of activeStepNeeds(spec, facts)) {
        const from = "release" in need ? need.release : need.step;
        if ("release" in need ? !enabled.has(from) : !present.has(need.step)) continue;
        edges.push({ from: nodeId(st, from), to: node.id, kind: need.kind, reason: need.reason });
      }
    }
  }
}

function stackGroup(s: CheckedStack, groups: GraphGroup[], edges: GraphEdge[], upgrade?: UpgradePlan) {
  const cfg = s.config;
  const st = s.file.stack;
  const { flags, inCatalogOrder: list } = stackReleases(cfg);
  const nodes: GraphNode[] = list.map((r) => ({
    id: nodeId(st, r.name),
    label: [r.name, `${r.chart} ${chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides)}`],
  }));
  const enabled = new Set(list.map((r) => r.name));
  for (const r of list)
    for (const need of activeNeedSpecs(r, flags)) {
      if (!enabled.has(need.release)) continue;
      edges.push({
        from: nodeId(st, need.release),
        to: nodeId(st, r.name),
        kind: need.kind,
        reason: need.reason ?? "declared need",
      });
    }
  const ctx = cfg.kubernetes.context;
  if (cfg.plane === "control") {
    const c = controlConfig(s);
    const gw = `${c.gateway.shared.namespace}/${c.gateway.shared.name}`;
    nodes.push({
      id: nodeId(st, "gateway"),
      label: [
        `Gateway ${gw}`,
        c.gateway.install ? "installed by the stack (Envoy Gateway)" : "the user's Gateway (checked)",
      ],
    });
    if (enabled.has("ingress"))
      edges.push({
        from: nodeId(st, "gateway"),
        to: nodeId(st, "ingress"),
        kind: "Gateway",
        reason: "the routes attach to the Gateway's listeners",
      });
    stepNodes(
      s,
      {
        flags,
        openbaoPhase: upgrade !== undefined && upgrade.moving && upgrade.openbaoPhase,
        cassandraAdopted: upgrade?.cassandraAdopted ?? false,
      },
      enabled,
      nodes,
      edges,
    );
    groups.push({
      id: ident(st),
      label: `${st}: control plane${ctx ? ` (${ctx})` : ""}`,
      plane: "control",
      nodes,
    });
  } else {
    const c = computeConfig(s);
    nodes.push({ id: nodeId(st, "inotify-tuner"), label: ["node-inotify-tuner", "DaemonSet kube-system"] });
    if (enabled.has("nvca-operator"))
      edges.push({
        from: nodeId(st, "inotify-tuner"),
        to: nodeId(st, "nvca-operator"),
        kind: "node",
        reason: 'node inotify limits set before NVCA runs (else "too many open files")',
      });
    groups.push({
      id: ident(st),
      label: `${st}: compute plane ${c.clusterName}${ctx ? ` (${ctx})` : ""}`,
      plane: "compute",
      nodes,
    });
  }
}

/**
 * The graph of checked stacks (pure). Input: the control stack and its compute stacks, validated
 * (cli/stacks.ts `checkedStack`), and optionally the control plane's upgrade plan for the run
 * (upgrade/plan.ts `planUpgrade`), which decides the upgrade steps in place and the edges of a move; without it,
 * the steps of a first install (no move, Cassandra's data in its chart's own layout). Output: groups and edges;
 * every catalog edge (of a release or a step) whose condition holds and whose target is in place appears once,
 * with the catalog's reason.
 */
export function releaseGraph(
  control: CheckedStack,
  compute: readonly CheckedStack[],
  upgrade?: UpgradePlan,
): ReleaseGraph {
  const groups: GraphGroup[] = [];
  const edges: GraphEdge[] = [];
  stackGroup(control, groups, edges, upgrade);
  const registered = new Set(controlConfig(control).gpuClusters.map((g) => g.name));
  for (const s of compute) {
    stackGroup(s, groups, edges);
    const c = computeConfig(s);
    if (registered.has(c.clusterName))
      edges.push({
        from: nodeId(control.file.stack, `register-${c.clusterName}`),
        to: nodeId(s.file.stack, "nvca-operator"),
        kind: "StackReference",
        reason: `StackReference ${c.controlPlaneStack}: the registration's cluster IDs, endpoints and registry reach the operator's values; a change of them restarts the operator (it reads them at start)`,
      });
  }
  return { groups, edges };
}

/** Text inside a Mermaid quoted string: quotes, angle brackets, `|` and `#` as Mermaid entity codes. */
const mermaidText = (s: string) =>
  s
    .replace(/#/g, "#35;")
    .replace(/"/g, "#quot;")
    .replace(/</g, "#lt;")
    .replace(/>/g, "#gt;")
    .replace(/\|/g, "#124;")
    .replace(/`/g, "'");

/** The two planes, in drawing order, with the title of each. */
const PLANES = [
  { plane: "control", id: "control_plane", label: "control plane" },
  { plane: "compute", id: "compute_planes", label: "compute planes (GPU clusters)" },
] as const;

/** The groups of one plane (none: the plane is not drawn). */
const groupsOf = (g: ReleaseGraph, plane: GraphGroup["plane"]) => g.groups.filter((x) => x.plane === plane);

/** The kinds the graph's edges use, in `EDGE_KINDS` order. */
export function usedKinds(g: ReleaseGraph): EdgeKind[] {
  const used = new Set(g.edges.map((e) => e.kind));
  return (Object.keys(EDGE_KINDS) as EdgeKind[]).filter((k) => used.has(k));
}

/**
 * Mermaid flowchart (left to right): one subgraph per plane holding one per stack, edge labels = kinds (the
 * reasons are in the SVG's tooltips and docs/graph.md).
 */
export function toMermaid(g: ReleaseGraph): string {
  const lines = ["flowchart LR"];
  for (const p of PLANES) {
    const groups = groupsOf(g, p.plane);
    if (groups.length === 0) continue;
    lines.push(`  subgraph ${p.id} ["${mermaidText(p.label)}"]`);
    for (const grp of groups) {
      lines.push(`    subgraph ${grp.id} ["${mermaidText(grp.label)}"]`);
      for (const n of grp.nodes) lines.push(`      ${n.id}["${n.label.map(mermaidText).join("<br/>")}"]`);
      lines.push("    end");
    }
    lines.push("  end");
  }
  for (const e of g.edges) lines.push(`  ${e.from} -->|"${mermaidText(e.kind)}"| ${e.to}`);
  return `${lines.join("\n")}\n`;
}

/** A DOT string literal. */
const dotText = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** XML text, escaped as Graphviz escapes its SVG text: for HTML-like DOT labels and for the SVG's titles. */
const xmlText = (s: string) =>
  s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");

/** Edge colours, one per kind in `EDGE_KINDS` order (dark enough on white, told apart from their neighbours). */
const PALETTE = [
  "#6b7280",
  "#b45309",
  "#7c3aed",
  "#0369a1",
  "#be123c",
  "#15803d",
  "#a16207",
  "#0f766e",
  "#c2410c",
  "#4338ca",
  "#65a30d",
  "#9d174d",
  "#1d4ed8",
];

/** The colour of a kind's edges. */
export function kindColor(kind: EdgeKind): string {
  return PALETTE[(Object.keys(EDGE_KINDS) as EdgeKind[]).indexOf(kind) % PALETTE.length];
}

/**
 * Graphviz DOT of the same graph: one cluster per plane holding one per stack, each edge labelled with its kind
 * in its kind's colour and with its full reason as tooltip, and a legend of the kinds used.
 */
export function toDot(g: ReleaseGraph): string {
  const lines = [
    "digraph nvcf {",
    '  rankdir=LR; newrank=true; nodesep=0.15; ranksep=0.6; fontname="Helvetica"; fontsize=12;',
    '  node [shape=box, style="rounded,filled", fillcolor="white", fontname="Helvetica", fontsize=10];',
    '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.6];',
  ];
  for (const p of PLANES) {
    const groups = groupsOf(g, p.plane);
    if (groups.length === 0) continue;
    const fill = p.plane === "control" ? "#eef4fb" : "#f1f8ee";
    lines.push(
      `  subgraph cluster_${p.id} {`,
      `    label=${dotText(p.label)}; style="filled"; fillcolor="${fill}"; color="#9ca3af";`,
    );
    for (const grp of groups) {
      lines.push(
        `    subgraph cluster_${grp.id} {`,
        `      label=${dotText(grp.label)}; style="dashed,filled"; fillcolor="#ffffff80";`,
      );
      for (const n of grp.nodes) lines.push(`      ${n.id} [label=${dotText(n.label.join("\n"))}];`);
      lines.push("    }");
    }
    lines.push("  }");
  }
  g.edges.forEach((e, i) => {
    const c = kindColor(e.kind);
    lines.push(
      `  ${e.from} -> ${e.to} [id="e${i}", label=${dotText(e.kind)}, color="${c}", fontcolor="${c}", tooltip=${dotText(e.reason)}];`,
    );
  });
  const kinds = usedKinds(g);
  if (kinds.length > 0) {
    const rows = kinds
      .map(
        (k) =>
          `<tr><td align="left"><font color="${kindColor(k)}"><b>${xmlText(k)}</b></font></td><td align="left">${xmlText(EDGE_KINDS[k])}</td></tr>`,
      )
      .join("");
    lines.push(
      "  subgraph cluster_legend {",
      '    label="edge kinds (hover an edge for its reason)"; style="rounded"; color="#9ca3af";',
      `    legend [shape=plaintext, style="", label=<<table border="0" cellborder="0" cellspacing="2">${rows}</table>>];`,
      "  }",
    );
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/**
 * Puts each edge's full reason into its SVG `<title>` (Graphviz writes `from->to` there), so viewers show it on
 * hover. Input: the SVG of `toDot(g)` and the same graph. Throws when an edge's group is missing (a DOT/SVG
 * mismatch, a programming error).
 */
export function titleEdges(svg: string, g: ReleaseGraph): string {
  let out = svg;
  g.edges.forEach((e, i) => {
    const re = new RegExp(`(<g id="e${i}" class="edge">\\s*<title>)[^<]*(</title>)`);
    if (!re.test(out)) throw new Error(`nvcf graph: edge e${i} (${e.from} -> ${e.to}) not found in the SVG`);
    out = out.replace(re, (_m, a: string, b: string) => `${a}${xmlText(`${e.kind}: ${e.reason}`)}${b}`);
  });
  return out;
}

/** Renders DOT to SVG with @viz-js/viz (Graphviz compiled to WebAssembly; no binary needed). */
export async function dotToSvg(dot: string): Promise<string> {
  const { instance } = await import("@viz-js/viz");
  const viz = await instance();
  return viz.renderString(dot, { format: "svg", engine: "dot" });
}

/**
 * The release dependency graph of an environment as Mermaid text or SVG. Input: the environment (its stack
 * files; secrets are not needed) and the format. Throws `ConfigError` when a stack's config is invalid.
 */
export async function renderGraph(env: Environment, format: "mermaid" | "svg"): Promise<string> {
  const g = releaseGraph(
    checkedStack(env.control),
    env.compute.map((s) => checkedStack(s)),
  );
  return format === "mermaid" ? toMermaid(g) : titleEdges(await dotToSvg(toDot(g)), g);
}
