/**
 * `nvcf graph`: the release dependency graph of an environment, built from the catalog (catalog/releases.ts
 * `needs`, each edge labelled with its reason) for the control plane and each compute plane, plus the edges the
 * components add: the Gateway before the routes, the registration of each GPU cluster after the services it
 * calls (components/controlPlane.ts), the StackReference from each compute plane to its registration, and the
 * node inotify tuner before the NVCA operator (components/computePlane.ts).
 *
 * Arrows point from a prerequisite to what waits for it. Output: Mermaid flowchart text built here, or SVG
 * rendered from the same graph as Graphviz DOT with @viz-js/viz.
 */
import { activeNeeds, chartVersion, enabledReleases, type ReleaseSpec } from "../catalog/releases";
import { computeFlags, controlFlags } from "../config/flags";
import { type CheckedStack, checkedStack, computeConfig, controlConfig } from "./preflight/context";
import type { Environment } from "./types";

/** One node: a Helm release or another resource the order depends on. */
export interface GraphNode {
  id: string;
  /** First line: the release (or resource); second line: chart and version, or what it is. */
  label: string[];
}

/** One group of nodes: a stack. */
export interface GraphGroup {
  id: string;
  label: string;
  nodes: GraphNode[];
}

/** One edge: `from` must be ready before `to`; `reason` says why. */
export interface GraphEdge {
  from: string;
  to: string;
  reason: string;
}

/** The environment's graph: one group per stack (control plane first), and the edges. */
export interface ReleaseGraph {
  groups: GraphGroup[];
  edges: GraphEdge[];
}

const ident = (s: string) => s.replace(/[^A-Za-z0-9]/g, "_");
const nodeId = (stack: string, name: string) => `${ident(stack)}__${ident(name)}`;

/** Why the registration waits for these releases (components/controlPlane.ts, the registration's dependsOn). */
const REGISTRATION_NEEDS: Record<string, string> = {
  sis: "nvcf-cli cluster register calls SIS through the gateway",
  "admin-issuer-proxy": "nvcf-cli mints its admin token through the admin-token route",
  "api-keys": "the admin token is an api-keys token",
  ingress: "SIS and the admin-token route are reached through the gateway routes",
  "openbao-server": "registration records the GPU cluster's issuer for OpenBao's JWT auth (issuer discovery)",
};

function releasesOf(s: CheckedStack): ReleaseSpec[] {
  const cfg = s.config;
  return cfg.plane === "control"
    ? enabledReleases("control", cfg.bundleVersion, controlFlags(controlConfig(s)))
    : enabledReleases("compute", cfg.bundleVersion, computeFlags(computeConfig(s)));
}

function stackGroup(s: CheckedStack, groups: GraphGroup[], edges: GraphEdge[]) {
  const cfg = s.config;
  const st = s.file.stack;
  const flags = cfg.plane === "control" ? controlFlags(controlConfig(s)) : computeFlags(computeConfig(s));
  const list = releasesOf(s);
  const nodes: GraphNode[] = list.map((r) => ({
    id: nodeId(st, r.name),
    label: [r.name, `${r.chart} ${chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides)}`],
  }));
  const enabled = new Set(list.map((r) => r.name));
  for (const r of list)
    for (const target of activeNeeds(r, flags)) {
      if (!enabled.has(target)) continue;
      const need = r.needs.find((n) => n.release === target);
      edges.push({
        from: nodeId(st, target),
        to: nodeId(st, r.name),
        reason: need?.reason ?? "declared need",
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
        reason: "the routes attach to the Gateway's listeners",
      });
    for (const g of c.gpuClusters) {
      const id = nodeId(st, `register-${g.name}`);
      nodes.push({
        id,
        label: [
          `registration ${g.name}`,
          `nvcf-cli cluster register (${g.region})`,
          "later changes keep its IDs",
        ],
      });
      for (const [rel, why] of Object.entries(REGISTRATION_NEEDS))
        if (enabled.has(rel)) edges.push({ from: nodeId(st, rel), to: id, reason: why });
    }
    groups.push({ id: ident(st), label: `${st}: control plane${ctx ? ` (${ctx})` : ""}`, nodes });
  } else {
    const c = computeConfig(s);
    nodes.push({ id: nodeId(st, "inotify-tuner"), label: ["node-inotify-tuner", "DaemonSet kube-system"] });
    if (enabled.has("nvca-operator"))
      edges.push({
        from: nodeId(st, "inotify-tuner"),
        to: nodeId(st, "nvca-operator"),
        reason: 'node inotify limits set before NVCA runs (else "too many open files")',
      });
    groups.push({
      id: ident(st),
      label: `${st}: compute plane ${c.clusterName}${ctx ? ` (${ctx})` : ""}`,
      nodes,
    });
  }
}

/**
 * The graph of checked stacks (pure). Input: the control stack and its compute stacks, validated
 * (cli/preflight/context.ts `checkedStack`). Output: groups and edges; every catalog edge whose condition is
 * on and whose target is enabled appears once, with the catalog's reason.
 */
export function releaseGraph(control: CheckedStack, compute: readonly CheckedStack[]): ReleaseGraph {
  const groups: GraphGroup[] = [];
  const edges: GraphEdge[] = [];
  stackGroup(control, groups, edges);
  const registered = new Set(controlConfig(control).gpuClusters.map((g) => g.name));
  for (const s of compute) {
    stackGroup(s, groups, edges);
    const c = computeConfig(s);
    if (registered.has(c.clusterName))
      edges.push({
        from: nodeId(control.file.stack, `register-${c.clusterName}`),
        to: nodeId(s.file.stack, "nvca-operator"),
        reason: `StackReference ${c.controlPlaneStack}: the registration's cluster IDs, endpoints and registry reach the operator's values; a change of them restarts the operator (it reads them at start)`,
      });
  }
  return { groups, edges };
}

/** Breaks a label into lines of at most `width` characters (at spaces). */
export function wrap(text: string, width = 44): string[] {
  const out: string[] = [];
  let line = "";
  for (const w of text.split(/\s+/)) {
    if (line && line.length + 1 + w.length > width) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out;
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

/** Mermaid flowchart (left to right): one subgraph per stack, edge labels = reasons (wrapped with `<br/>`). */
export function toMermaid(g: ReleaseGraph): string {
  const lines = ["flowchart LR"];
  for (const grp of g.groups) {
    lines.push(`  subgraph ${grp.id} ["${mermaidText(grp.label)}"]`);
    for (const n of grp.nodes) lines.push(`    ${n.id}["${n.label.map(mermaidText).join("<br/>")}"]`);
    lines.push("  end");
  }
  for (const e of g.edges)
    lines.push(`  ${e.from} -->|"${wrap(e.reason).map(mermaidText).join("<br/>")}"| ${e.to}`);
  return `${lines.join("\n")}\n`;
}

/** A DOT string literal. */
const dotText = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** Graphviz DOT of the same graph: one cluster per stack, edge labels = reasons. */
export function toDot(g: ReleaseGraph): string {
  const lines = [
    "digraph nvcf {",
    '  rankdir=LR; fontname="Helvetica"; node [shape=box, style="rounded", fontname="Helvetica", fontsize=10]; edge [fontname="Helvetica", fontsize=8];',
  ];
  for (const grp of g.groups) {
    lines.push(`  subgraph cluster_${grp.id} {`, `    label=${dotText(grp.label)};`);
    for (const n of grp.nodes) lines.push(`    ${n.id} [label=${dotText(n.label.join("\n"))}];`);
    lines.push("  }");
  }
  for (const e of g.edges)
    lines.push(`  ${e.from} -> ${e.to} [label=${dotText(wrap(e.reason).join("\n"))}];`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
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
  return format === "mermaid" ? toMermaid(g) : dotToSvg(toDot(g));
}
