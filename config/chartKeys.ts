/**
 * The keys a chart declares, for checking `nvcf:releaseValues` at every depth (config/meaning.ts).
 *
 * What a chart declares is read from the chart itself, whatever it ships: its `values.schema.json` when it has
 * one (only three of NVIDIA's charts do at the pinned versions: helm-nvca-operator, helm-nvcf-vanity-gateway and
 * the cert-manager subchart of helm-nvcf-cert-manager) and always the key tree of its default `values.yaml`;
 * subcharts (`charts/<name>/` or `charts/<name>-<version>.tgz`) under their name or alias, and Helm's `global`
 * as a free-form map. A key either source declares is accepted. The program never assumes which charts have a
 * schema: a local directory of stand-ins (tests/charts, which all carry one) is read exactly like a real chart.
 *
 * Free-form maps, under which any key is accepted: a `values.yaml` default of `{}` or `null`; a map whose name is
 * one Kubernetes passes through as its own API object (`FREE_FORM_NAMES`: annotations, labels, resources, node
 * selectors, affinity, tolerations, security contexts, probes, env maps); in a schema, an object with
 * `additionalProperties` other than `false`, `patternProperties`, or no `properties` at all. Lists are values:
 * their items are not checked.
 *
 * Where the tree comes from: a local chart directory (`charts.source: local`, a directory mirror) is read at
 * each run; a chart from an OCI or HTTPS location is read from the key cache (`chartKeysCacheDir`, one file per
 * chart, version and location), which `nvcf preflight` (cli/preflight/charts.ts, run by `nvcf up` too) fills
 * when it pulls the chart. A remote chart not in the cache yet is checked only at its top level; the preview
 * says so.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import * as yaml from "js-yaml";
import type { ReleaseSpec } from "../catalog/releases";
import { type ChartSourceSettings, resolveChart } from "../catalog/sources";

/**
 * A node of a chart's key tree: `o` set when any key below it is accepted (a free-form map); `k` the keys the
 * chart declares below it. A node with neither is a declared value that is not a map.
 */
export interface KeyNode {
  o?: 1;
  k?: Record<string, KeyNode>;
}

/**
 * Map names Kubernetes takes as its own objects or free-form maps (the chart passes them through with toYaml):
 * any key below them is accepted when the chart's `values.yaml` declares them.
 */
export const FREE_FORM_NAMES =
  /^(annotations|labels|[A-Za-z]*Annotations|[A-Za-z]*Labels|nodeSelector|affinity|tolerations|resources|[A-Za-z]*[sS]ecurityContext|livenessProbe|readinessProbe|startupProbe|env|extraEnv|extraEnvs|extraArgs)$/;

/** Merges two nodes: open if either is; declared keys of both. */
export function mergeNodes(a: KeyNode | undefined, b: KeyNode | undefined): KeyNode {
  if (!a) return b ?? {};
  if (!b) return a;
  const out: KeyNode = {};
  if (a.o || b.o) out.o = 1;
  if (a.k || b.k) {
    const k: Record<string, KeyNode> = {};
    for (const [name, n] of Object.entries(a.k ?? {})) k[name] = n;
    for (const [name, n] of Object.entries(b.k ?? {})) k[name] = mergeNodes(k[name], n);
    out.k = k;
  }
  return out;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The key tree of a values document (a chart's `values.yaml`, parsed). */
export function keysOfValues(v: unknown, name = ""): KeyNode {
  if (v === null || v === undefined) return { o: 1 };
  if (!isMap(v)) return {};
  const keys = Object.keys(v);
  if (keys.length === 0 || FREE_FORM_NAMES.test(name)) return { o: 1, k: {} };
  const k: Record<string, KeyNode> = {};
  for (const key of keys) k[key] = keysOfValues(v[key], key);
  return { k };
}

type Schema = Record<string, unknown>;

/**
 * The key tree a JSON schema declares (`$ref` to local definitions, properties, the branches of
 * allOf/anyOf/oneOf and if/then/else). A schema that constrains nothing (`{}`, `true`) is free-form; a branch
 * contributes its keys and opens its node only when it says so itself (`additionalProperties`,
 * `patternProperties`, or `type: object` without properties), so conditions such as `if`/`required` open nothing.
 */
export function keysOfSchema(schema: unknown, root: unknown = schema, depth = 0, branch = false): KeyNode {
  if (!isMap(schema) || depth > 64) return schema === false || branch ? {} : { o: 1 };
  let s: Schema = schema;
  const ref = s["$ref"];
  if (typeof ref === "string" && ref.startsWith("#/")) {
    let target: unknown = root;
    for (const part of ref.slice(2).split("/")) target = isMap(target) ? target[part] : undefined;
    s = { ...(isMap(target) ? target : {}), ...s, $ref: undefined };
  }
  let node: KeyNode = {};
  const branches = [
    ...["allOf", "anyOf", "oneOf"].flatMap((c) => (Array.isArray(s[c]) ? (s[c] as unknown[]) : [])),
    ...["then", "else"].map((c) => s[c]).filter((x) => x !== undefined),
  ];
  for (const sub of branches) node = mergeNodes(node, keysOfSchema(sub, root, depth + 1, true));
  const types = ([] as unknown[]).concat(s["type"] ?? []);
  const props = isMap(s["properties"]) ? s["properties"] : undefined;
  if (props) {
    const k: Record<string, KeyNode> = {};
    for (const [name, sub] of Object.entries(props)) k[name] = keysOfSchema(sub, root, depth + 1);
    node = mergeNodes(node, { k });
  }
  const additional = s["additionalProperties"];
  const objectish = types.length === 0 || types.includes("object");
  const explicitlyOpen =
    (additional !== undefined && additional !== false) ||
    isMap(s["patternProperties"]) ||
    (types.includes("object") && props === undefined);
  const constrainsNothing =
    !branch && types.length === 0 && props === undefined && additional === undefined && branches.length === 0;
  if (objectish && (explicitlyOpen || constrainsNothing)) node = mergeNodes(node, { o: 1 });
  return node;
}

/** A chart's files as read: path (relative, `/`-separated) → content. */
export type ChartFiles = Map<string, Buffer>;

const WANTED = /(^|\/)(Chart\.yaml|values\.yaml|values\.schema\.json)$|(^|\/)charts\/[^/]+\.tgz$/;

/**
 * The files of a gzipped tar archive (a packaged chart) that the key tree needs. Minimal tar reader: ustar and
 * GNU long names, pax `path` records. Throws on data that is not gzip.
 */
export function readArchive(tgz: Buffer): ChartFiles {
  const buf = gunzipSync(tgz);
  const out: ChartFiles = new Map();
  const str = (b: Buffer, at: number, len: number) => {
    const s = b.subarray(at, at + len);
    const end = s.indexOf(0);
    return s.subarray(0, end < 0 ? s.length : end).toString("utf8");
  };
  let off = 0;
  let longName: string | undefined;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const size = parseInt(str(h, 124, 12).trim() || "0", 8) || 0;
    const type = h[156] === 0 ? "0" : String.fromCharCode(h[156]);
    const body = buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = str(body, 0, body.length);
      continue;
    }
    if (type === "x") {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      if (m) longName = m[1];
      continue;
    }
    if (type === "g") continue;
    const prefix = str(h, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${str(h, 0, 100)}` : str(h, 0, 100));
    longName = undefined;
    if ((type === "0" || type === "7") && WANTED.test(name))
      out.set(name.replace(/^\.\//, ""), Buffer.from(body));
  }
  return out;
}

/** The files of a chart directory that the key tree needs (the chart's own and its subcharts'). */
export function readDirectory(dir: string): ChartFiles {
  const out: ChartFiles = new Map();
  const walk = (rel: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && depth < 6 && (e.name === "charts" || rel.endsWith("charts"))) walk(r, depth + 1);
      else if (e.isFile() && WANTED.test(r)) out.set(r, fs.readFileSync(path.join(dir, r)));
    }
  };
  walk("", 0);
  return out;
}

/** What a chart declares, with where it came from. */
export interface ChartKeys {
  tree: KeyNode;
  /** True when the chart (not a subchart) ships a `values.schema.json`. */
  schema: boolean;
}

/**
 * The key tree of a chart from its files (pure). The chart's root is where its `Chart.yaml` is (the archive's
 * top directory, or the directory itself). Throws nothing: unreadable YAML or JSON declares nothing.
 */
export function chartKeysOf(files: ChartFiles, depth = 0): ChartKeys {
  const chartYaml = [...files.keys()]
    .filter((p) => /(^|\/)Chart\.yaml$/.test(p))
    .sort((a, b) => a.length - b.length)[0];
  const root = chartYaml ? chartYaml.replace(/Chart\.yaml$/, "") : "";
  const read = (p: string) => files.get(`${root}${p}`);
  const load = (text: Buffer | undefined, json: boolean): unknown => {
    if (!text) return undefined;
    try {
      return json ? JSON.parse(text.toString("utf8")) : yaml.load(text.toString("utf8"));
    } catch {
      return undefined;
    }
  };
  const meta = (load(read("Chart.yaml"), false) ?? {}) as {
    dependencies?: { name?: string; alias?: string }[];
  };
  const values = load(read("values.yaml"), false);
  const schemaDoc = load(read("values.schema.json"), true);
  let tree = keysOfValues(values ?? {});
  if (tree.o) tree = { k: {} };
  if (schemaDoc !== undefined) tree = mergeNodes(tree, keysOfSchema(schemaDoc));
  tree = mergeNodes(tree, { k: { global: { o: 1 } } });
  if (depth < 4) {
    const aliasOf = (name: string) => meta.dependencies?.find((d) => d.name === name)?.alias ?? name;
    const subDirs = new Set<string>();
    for (const p of files.keys()) {
      if (!p.startsWith(`${root}charts/`)) continue;
      const rest = p.slice(`${root}charts/`.length);
      if (/^[^/]+\.tgz$/.test(rest)) {
        try {
          const subFiles = readArchive(files.get(p) as Buffer);
          const sub = chartKeysOf(subFiles, depth + 1);
          const name = subchartName(subFiles) ?? rest.replace(/-v?\d[^/]*\.tgz$/, "");
          tree = mergeNodes(tree, { k: { [aliasOf(name)]: sub.tree } });
        } catch {
          // An archive that does not read declares nothing.
        }
      } else if (/^[^/]+\/Chart\.yaml$/.test(rest)) subDirs.add(rest.split("/")[0]);
    }
    for (const d of subDirs) {
      const prefix = `${root}charts/${d}/`;
      const subFiles: ChartFiles = new Map();
      for (const [p, b] of files) if (p.startsWith(prefix)) subFiles.set(p.slice(prefix.length), b);
      const name = subchartName(subFiles) ?? d;
      tree = mergeNodes(tree, { k: { [aliasOf(name)]: chartKeysOf(subFiles, depth + 1).tree } });
    }
  }
  return { tree, schema: schemaDoc !== undefined };
}

/** The `name` of the chart whose Chart.yaml is shallowest in `files`. */
function subchartName(files: ChartFiles): string | undefined {
  const p = [...files.keys()]
    .filter((f) => /(^|\/)Chart\.yaml$/.test(f))
    .sort((a, b) => a.length - b.length)[0];
  if (!p) return undefined;
  try {
    const name = (yaml.load((files.get(p) as Buffer).toString("utf8")) as { name?: unknown })?.name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where chart key trees are cached: `NVCF_CHART_KEYS_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/nvcf-pulumi/chart-keys`.
 */
export function chartKeysCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env["NVCF_CHART_KEYS_CACHE"]) return env["NVCF_CHART_KEYS_CACHE"];
  const base = env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache");
  return path.join(base, "nvcf-pulumi", "chart-keys");
}

/** The cache file of one chart version at one location (`<chart>-<version>-<digest of the location>.json`). */
export function chartKeysCacheFile(
  chart: string,
  version: string,
  location: string,
  dir = chartKeysCacheDir(),
): string {
  const id = createHash("sha256").update(location).digest("hex").slice(0, 12);
  return path.join(dir, `${chart}-${version}-${id}.json`);
}

/** The location string a resolved remote chart is cached under (its chart reference and repository). */
export function cacheLocation(resolved: { chart: string; repo?: string }): string {
  return resolved.repo ? `${resolved.repo} ${resolved.chart}` : resolved.chart;
}

/**
 * Writes a pulled chart's key tree to the cache (atomically: a temporary file, then a rename). Input: chart,
 * version, location (`cacheLocation`), the packaged chart. Errors: throws when the archive does not read or
 * the cache directory cannot be written (preflight reports it as a warning).
 */
export function writeChartKeysCache(
  chart: string,
  version: string,
  location: string,
  tgz: Buffer,
  dir = chartKeysCacheDir(),
): string {
  const keys = chartKeysOf(readArchive(tgz));
  const file = chartKeysCacheFile(chart, version, location, dir);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ chart, version, location, schema: keys.schema, tree: keys.tree }));
  fs.renameSync(tmp, file);
  return file;
}

/** The result of looking a chart's keys up for a release. */
export type ChartKeysLookup =
  | (ChartKeys & { chart: string; version: string; from: string })
  | { missing: string; chart: string; version: string };

/**
 * The declared keys of a chart as the program installs it (resolved like the release, catalog/sources.ts):
 * a local directory is read (relative paths against `projectDir`); an OCI or HTTPS chart comes from the cache.
 * Output: the tree and where it came from, or `missing` saying why it is not known (never throws).
 */
export function lookupChartKeys(
  settings: ChartSourceSettings,
  chart: string,
  version: string,
  projectDir: string,
  cacheDir = chartKeysCacheDir(),
): ChartKeysLookup {
  const exists = (p: string) => {
    try {
      return fs.statSync(path.resolve(projectDir, p)).isDirectory();
    } catch {
      return false;
    }
  };
  let resolved;
  try {
    resolved = resolveChart(settings, chart, version, exists);
  } catch (e) {
    return { missing: (e as Error).message, chart, version };
  }
  if (resolved.kind === "local") {
    const dir = path.resolve(projectDir, resolved.chart);
    if (!exists(dir)) return { missing: `no chart directory ${resolved.chart}`, chart, version };
    return { ...chartKeysOf(readDirectory(dir)), chart, version, from: resolved.chart };
  }
  const file = chartKeysCacheFile(chart, version, cacheLocation(resolved), cacheDir);
  try {
    const doc = JSON.parse(fs.readFileSync(file, "utf8")) as { tree: KeyNode; schema: boolean };
    return { tree: doc.tree, schema: doc.schema, chart, version, from: `the key cache (${file})` };
  } catch {
    return {
      missing: `not in the key cache yet (${cacheDir}); nvcf preflight fills it when it pulls the chart`,
      chart,
      version,
    };
  }
}

/**
 * The chart-key lookup of a stack's config, as the program installs its charts: `(release, version)` →
 * `lookupChartKeys` with the stack's `nvcf:charts` settings, local paths against `projectDir`.
 */
export function chartKeysFromSources(
  projectDir: string,
  cacheDir = chartKeysCacheDir(),
): (charts: ChartSourceSettings) => (release: ReleaseSpec, version: string) => ChartKeysLookup {
  return (charts) => (release, version) =>
    lookupChartKeys(charts, release.chart, version, projectDir, cacheDir);
}
