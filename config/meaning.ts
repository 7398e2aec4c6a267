/**
 * Config that cannot mean anything, refused before anything is touched (pure functions; `validateConfig` in
 * config/load.ts runs them with the structural checks and the rules, so every problem is listed at once):
 *
 * - `releaseValuesKeyProblems`: an `nvcf:releaseValues` key, at any depth, that the release's chart does not
 *   declare (config/chartKeys.ts: its values.schema.json where it ships one, else its values.yaml), unless
 *   `nvcf:releaseValuesUnchecked` marks it as intended; the preview lists the marked keys;
 * - `namespaceProblems`: a config key in a namespace that is a near miss of `nvcf` (`nvfc:domain`), which
 *   nothing reads, so the default of the `nvcf:` key it was meant for is deployed;
 * - `routeProblems`: two routes of the program on one Gateway listener that claim the same traffic: the same
 *   hostname and path on two HTTPRoutes, a hostname on an HTTPRoute and a GRPCRoute, or on two GRPCRoutes, and
 *   two TCPRoutes on one TCP listener (config/routes.ts `routeAttachments`).
 */
import { type ReleaseSpec, chartVersion } from "../catalog/releases";
import { valueAt } from "./paths";
import { routeAttachments } from "./routes";
import type { ChartKeysLookup, KeyNode } from "./chartKeys";
import { type Problem, describe } from "./problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "./schema";
import type { StackReleases } from "./stackReleases";

const K = (path: string) => `nvcf:${path}`;

/** A key path written as `pulumi config set --path` takes it: `.name`, or `["name"]` for names with dots and the like. */
export function pathText(parts: readonly string[]): string {
  return parts
    .map((p, i) => (/^[A-Za-z0-9_-]+$/.test(p) ? `${i === 0 ? "" : "."}${p}` : `[${JSON.stringify(p)}]`))
    .join("");
}

/** `nvcf:<path>` quoted for a shell when it holds characters a shell would expand. */
const shellKey = (path: string) => (/[[\]"*? ]/.test(path) ? `'${K(path)}'` : K(path));

/** Levenshtein distance with transpositions (optimal string alignment), case-insensitive. */
export function nearness(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++)
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[x.length][y.length];
}

/** The closest of `names` to `name`, when it is a likely misspelling. */
function closest(name: string, names: readonly string[]): string | undefined {
  return names
    .map((n) => [n, nearness(name, n)] as const)
    .filter(([, dist]) => dist <= Math.max(1, Math.floor(name.length / 4)))
    .sort((a, b) => a[1] - b[1])[0]?.[0];
}

// ---- nvcf:releaseValues against what the chart declares ----

/** How `releaseValuesKeyProblems` finds a release's chart keys (config/chartKeys.ts `lookupChartKeys`). */
export type ChartKeysFor = (release: ReleaseSpec, chartVersion: string) => ChartKeysLookup;

/** The result of checking `nvcf:releaseValues`: problems, and the lines the preview prints. */
export interface ReleaseValuesCheck {
  problems: Problem[];
  notes: { level: "info" | "warn"; message: string }[];
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The marks of `nvcf:releaseValuesUnchecked` as key paths (`<release>.<key>…`, split on dots). */
function markPaths(marks: readonly string[]): string[][] {
  return marks.map((m) => m.split("."));
}

/** Whether a path is a mark or lies below one. */
function marked(path: readonly string[], marks: readonly string[][]): boolean {
  return marks.some((m) => m.length <= path.length && m.every((p, i) => p === path[i]));
}

/** Whether a releaseValues object holds a path (marks must name something that is set). */
function holds(rv: Record<string, unknown>, path: readonly string[]): boolean {
  return valueAt(rv, path) !== undefined;
}

/**
 * Every `nvcf:releaseValues` key the chart of its release does not declare, at every depth (pure). Input: the
 * validated config, the releases it installs (config/stackReleases.ts `stackReleases`), and how to find a chart's
 * keys (undefined: only the marks are checked).
 * Output: problems (each naming the key,
 * the chart and version and what it declares there, the nearest declared key, and the fix: remove it, or mark
 * it with `nvcf:releaseValuesUnchecked`); marks that name nothing set; and notes for the preview: each marked
 * key, and each release whose chart keys are not known (a remote chart not in the key cache; checked at its
 * top level only). Releases that the stack does not install are left to `releaseValuesRules`, and a top-level
 * key other than the chart's values key too.
 */
export function releaseValuesKeyProblems(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  installed: StackReleases,
  chartKeys: ChartKeysFor | undefined,
): ReleaseValuesCheck {
  const out: ReleaseValuesCheck = { problems: [], notes: [] };
  const marks = markPaths(cfg.releaseValuesUnchecked);
  const rv = cfg.releaseValues as Record<string, unknown>;
  cfg.releaseValuesUnchecked.forEach((m, i) => {
    if (!holds(rv, m.split(".")))
      out.problems.push({
        key: K(`releaseValuesUnchecked[${i}]`),
        expected: "a key path set under nvcf:releaseValues (<release>.<key>…, as passed to the chart)",
        found: `${describe(m)}, which nvcf:releaseValues does not set`,
        fix: `pulumi config rm --path 'nvcf:releaseValuesUnchecked[${i}]', or name the key as it is set (e.g. cassandra.cassandra.<key>)`,
      });
  });
  if (!chartKeys) return out;
  const specs = installed.inCatalogOrder;
  const nextMark = cfg.releaseValuesUnchecked.length;
  let pendingMarks = 0;
  for (const [release, override] of Object.entries(cfg.releaseValues)) {
    const spec = specs.find((r) => r.name === release);
    if (!spec || !isMap(override)) continue;
    const version = chartVersion(spec, cfg.bundleVersion, cfg.charts.versionOverrides);
    const keys = chartKeys(spec, version);
    if ("missing" in keys) {
      out.notes.push({
        level: "warn",
        message: `nvcf:releaseValues.${release} is checked only at its top level: the keys of chart ${keys.chart} ${keys.version} are not known (${keys.missing})`,
      });
      continue;
    }
    const source = `${keys.schema ? "its values.schema.json and values.yaml" : "its values.yaml (it ships no values.schema.json)"}, read from ${keys.from}`;
    const walk = (value: Record<string, unknown>, node: KeyNode, at: string[]) => {
      if (node.o) return;
      for (const [k, v] of Object.entries(value)) {
        const path = [...at, k];
        // A top-level key other than the chart's values key is releaseValuesRules' problem.
        if (at.length === 1 && spec.valuesKey !== null && k !== spec.valuesKey && k !== "global") continue;
        if (marked(path, marks)) continue;
        const child = node.k?.[k];
        if (child === undefined) {
          const siblings = Object.keys(node.k ?? {});
          const near = closest(k, siblings);
          const where = at.length > 1 ? `under ${pathText(at.slice(1))}` : "at its top level";
          const full = `releaseValues.${pathText(path)}`;
          const markPath = path.join(".");
          out.problems.push({
            key: K(full),
            expected: `a key chart ${keys.chart} ${keys.version} declares ${where} (${source})${near ? `: did you mean ${near}?` : ""}`,
            found: "a key the chart does not declare, so it would be ignored",
            fix: `pulumi config rm --path ${shellKey(full)}${near ? `, then set ${K(`releaseValues.${pathText([...at, near])}`)}` : ""}; or, if the chart reads it all the same, pulumi config set --path 'nvcf:releaseValuesUnchecked[${nextMark + pendingMarks}]' ${markPath.includes(" ") ? `'${markPath}'` : markPath}`,
          });
          pendingMarks++;
          continue;
        }
        if (isMap(v)) walk(v, child, path);
      }
    };
    walk({ [release]: override }, { k: { [release]: keys.tree } }, []);
    for (const m of cfg.releaseValuesUnchecked.filter((x) => x.split(".")[0] === release))
      out.notes.push({
        level: "info",
        message: `nvcf:releaseValues.${m} is passed to chart ${keys.chart} ${keys.version} unchecked (nvcf:releaseValuesUnchecked${declared(m.split(".").slice(1), keys.tree) ? "; the chart declares it, so the mark can go" : ": the chart does not declare it"})`,
      });
  }
  return out;
}

/** Whether a chart's key tree declares a path (or it lies below a free-form map). */
function declared(path: readonly string[], tree: KeyNode): boolean {
  let node: KeyNode | undefined = tree;
  for (const p of path) {
    if (!node) return false;
    if (node.o) return true;
    node = node.k?.[p];
  }
  return node !== undefined;
}

// ---- config keys in a near miss of the nvcf namespace ----

/** Namespaces of Pulumi and of the providers this program uses: never reported as a near miss of `nvcf`. */
const OTHER_NAMESPACES = new Set(["pulumi", "kubernetes", "aws", "random", "command"]);

/**
 * Config keys whose namespace is a near miss of `nvcf` (pure): a different case, or at most two edits away
 * (`nvfc`, `ncvf`, `nvc`, `nvcff`…), and not a namespace of Pulumi or a provider the program uses.
 * Input: every config key of the stack, `<namespace>:<key>` (`pulumi.runtime.allConfig()`). Output: one problem
 * per such key, naming the `nvcf:` key it was likely meant for. Values are never shown.
 */
export function namespaceProblems(keys: readonly string[]): Problem[] {
  const out: Problem[] = [];
  for (const full of keys) {
    const at = full.indexOf(":");
    if (at <= 0) continue;
    const ns = full.slice(0, at);
    const rest = full.slice(at + 1);
    if (ns === "nvcf" || OTHER_NAMESPACES.has(ns)) continue;
    if (ns.toLowerCase() !== "nvcf" && nearness(ns, "nvcf") > 2) continue;
    out.push({
      key: full,
      expected: `a key in the nvcf namespace (this program reads nvcf:${rest}; nothing reads ${ns}:${rest}, so nvcf:${rest} keeps its default)`,
      found: `a key in namespace ${JSON.stringify(ns)}`,
      fix: `pulumi config rm ${/[[\]*? ]/.test(full) ? `'${full}'` : full}, then set the same value as nvcf:${rest}`,
    });
  }
  return out;
}

// ---- routes that claim the same traffic ----

/**
 * Routes of the program that claim the same traffic on one Gateway listener (pure; config/routes.ts
 * `routeAttachments`). Refused: a hostname and path on two HTTPRoutes (all but admin-token-issuer-proxy's match
 * PathPrefix `/`, so the second never receives traffic); a hostname on an HTTPRoute and a GRPCRoute (Gateway API
 * GEP-1016: the two may not share a hostname on one listener, and one of them is not accepted); a hostname on two
 * GRPCRoutes (each matches every gRPC service, so one API's calls may reach the other's backend); two TCPRoutes on
 * one listener (a TCP listener forwards each connection to one backend). Hostnames compare case-insensitively,
 * without a trailing dot. Output: one problem per conflict, keyed by the setting of the route found second.
 */
export function routeProblems(cfg: ControlPlaneConfig): Problem[] {
  const out: Problem[] = [];
  const routes = routeAttachments(cfg);
  type Route = (typeof routes)[number];
  /** Hostname claims by `<gateway> listener <listener>|<hostname>`. */
  const claims = new Map<string, Route[]>();
  const tcp = new Map<string, Route>();
  for (const r of routes) {
    const where = `${r.gateway} listener ${r.listener}`;
    if (r.kind === "TCPRoute") {
      const other = tcp.get(where);
      if (other) {
        const blame = r.key.startsWith("gateway.grpc.") ? other : r;
        out.push({
          key: K(blame.key),
          expected: "one TCPRoute per TCP listener (a TCP listener forwards every connection to one backend)",
          found: `TCPRoutes ${other.name} and ${r.name} both on Gateway ${where}`,
          fix: `give TCPRoute ${blame.name} its own listener: pulumi config set --path ${shellKey(blame.key)} <a TCP listener of the Gateway>`,
        });
      } else tcp.set(where, r);
      continue;
    }
    for (const h of r.hostnames) {
      const slot = `${where}|${h}`;
      const earlier = claims.get(slot) ?? [];
      const other = earlier.find(
        (o) => o.kind === "GRPCRoute" || r.kind === "GRPCRoute" || o.path === r.path,
      );
      if (!other) {
        claims.set(slot, [...earlier, r]);
        continue;
      }
      // Named by the route whose hostnames a setting of its own gives (the other keeps the chart's default).
      const blame = r.key === "domain" && other.key !== "domain" ? other : r;
      const why =
        other.kind === "HTTPRoute" && r.kind === "HTTPRoute"
          ? `both match path ${r.path} there, so one of them never receives traffic`
          : other.kind === "GRPCRoute" && r.kind === "GRPCRoute"
            ? "both match every gRPC service, so one API's calls may reach the other's backend"
            : "Gateway API does not accept an HTTPRoute and a GRPCRoute with one hostname on a listener (GEP-1016): one of them is not accepted";
      out.push({
        key: K(blame.key),
        expected: `hostnames no other route of the program uses on Gateway ${where} (${why})`,
        found: `${describe(h)} on both ${other.kind} ${other.name} and ${r.kind} ${r.name}`,
        fix: `give ${blame.kind} ${blame.name} its own hostname: pulumi config set --path ${shellKey(blame.key.endsWith("hostnames") ? `${blame.key}[0]` : blame.key)} <hostname>`,
      });
    }
  }
  return out;
}
