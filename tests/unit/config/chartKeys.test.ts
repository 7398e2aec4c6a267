/**
 * config/chartKeys.ts: the keys a chart declares (values.yaml key tree, values.schema.json, subcharts), read from
 * a chart directory or a packaged chart, and the key cache preflight fills for remote charts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import {
  type KeyNode,
  cacheLocation,
  chartKeysCacheDir,
  chartKeysCacheFile,
  chartKeysOf,
  keysOfSchema,
  keysOfValues,
  lookupChartKeys,
  readArchive,
  readDirectory,
  writeChartKeysCache,
} from "../../../config/chartKeys";
import { resolveChart } from "../../../catalog/sources";
import { ROOT } from "../support/harness";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-chart-keys-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Writes files (path → text) under a new directory of `tmp`; returns it. */
function chartDir(name: string, files: Record<string, string>): string {
  const dir = path.join(tmp, name);
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), text);
  }
  return dir;
}

/** Packages a directory as Helm does: a gzipped tar whose top directory is the chart's name. */
function pack(dir: string, top: string): Buffer {
  const out = path.join(tmp, `${top}-${Date.now()}-${Math.random()}.tgz`);
  const r = spawnSync("tar", [
    "-czf",
    out,
    "-C",
    path.dirname(dir),
    `--transform=s,^${path.basename(dir)},${top},`,
    path.basename(dir),
  ]);
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr}`);
  return fs.readFileSync(out);
}

describe("what values.yaml declares", () => {
  test("maps declare their keys; {} and null are free-form; lists and scalars are values", () => {
    expect(keysOfValues({ a: { b: 1, c: {} }, d: null, e: [1], f: "x" })).toEqual({
      k: { a: { k: { b: {}, c: { o: 1, k: {} } } }, d: { o: 1 }, e: {}, f: {} },
    });
  });
  test("Kubernetes pass-through maps are free-form whatever their defaults", () => {
    const t = keysOfValues({
      resources: { limits: { cpu: 1 } },
      podAnnotations: { a: "b" },
      nodeSelector: { x: "y" },
    });
    expect(t.k?.["resources"]?.o).toBe(1);
    expect(t.k?.["podAnnotations"]?.o).toBe(1);
    expect(t.k?.["nodeSelector"]?.o).toBe(1);
  });
});

describe("what values.schema.json declares", () => {
  test("properties, closed by additionalProperties false, open otherwise", () => {
    const t = keysOfSchema({
      type: "object",
      additionalProperties: false,
      properties: {
        closed: { type: "object", additionalProperties: false, properties: { a: { type: "string" } } },
        open: { type: "object", additionalProperties: { type: "string" } },
        bare: { type: "object" },
        pattern: { type: "object", patternProperties: { "^x": {} } },
        n: { type: "integer" },
      },
    });
    expect(t.o).toBeUndefined();
    expect(t.k?.["closed"]).toEqual({ k: { a: {} } });
    expect(t.k?.["open"]?.o).toBe(1);
    expect(t.k?.["bare"]?.o).toBe(1);
    expect(t.k?.["pattern"]?.o).toBe(1);
    expect(t.k?.["n"]).toEqual({});
  });
  test("$ref to definitions and allOf/anyOf are followed", () => {
    const t = keysOfSchema({
      type: "object",
      additionalProperties: false,
      properties: {
        img: { $ref: "#/definitions/image" },
        both: { allOf: [{ properties: { a: {} } }, { properties: { b: {} } }], additionalProperties: false },
      },
      definitions: {
        image: { type: "object", additionalProperties: false, properties: { repository: {}, tag: {} } },
      },
    });
    expect(Object.keys(t.k?.["img"]?.k ?? {})).toEqual(["repository", "tag"]);
    expect(Object.keys(t.k?.["both"]?.k ?? {}).sort()).toEqual(["a", "b"]);
  });
});

describe("charts", () => {
  test("a stand-in directory: schema and values.yaml together, Helm's global free-form", () => {
    const keys = chartKeysOf(readDirectory(path.join(ROOT, "tests/charts/helm-nvcf-cassandra")));
    expect(keys.schema).toBe(true);
    const cass = keys.tree.k?.["cassandra"];
    expect(cass?.k?.["replicaCount"]).toBeDefined();
    expect(cass?.k?.["replicaCont"]).toBeUndefined();
    expect(cass?.k?.["persistence"]?.k?.["size"]).toBeDefined();
    expect(keys.tree.k?.["global"]?.o).toBe(1);
  });

  test("every stand-in declares every key of its realistic full values (ci/full-values.yaml): the tree is not too strict", () => {
    const undeclared = (v: unknown, node: KeyNode, at: string[]): string[] => {
      if (node.o || v === null || typeof v !== "object" || Array.isArray(v)) return [];
      return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) =>
        node.k?.[k] ? undeclared(x, node.k[k], [...at, k]) : [`${at.join(".")}.${k}`],
      );
    };
    const dirs = fs
      .readdirSync(path.join(ROOT, "tests/charts"))
      .filter((d) => fs.existsSync(path.join(ROOT, "tests/charts", d, "ci/full-values.yaml")));
    expect(dirs.length).toBeGreaterThan(40);
    for (const d of dirs) {
      const dir = path.join(ROOT, "tests/charts", d);
      const full = yaml.load(fs.readFileSync(path.join(dir, "ci/full-values.yaml"), "utf8"));
      expect([d, undeclared(full, chartKeysOf(readDirectory(dir)).tree, [])]).toEqual([d, []]);
    }
  });

  test("a chart without a schema declares its values.yaml keys, and a subchart's under its alias (directory and archive)", () => {
    const sub = chartDir("sub", {
      "Chart.yaml": "apiVersion: v2\nname: upstream\nversion: 1.0.0\n",
      "values.yaml": "server:\n  replicas: 1\n  dataStorage:\n    size: 10Gi\n",
    });
    const subTgz = pack(sub, "upstream");
    const parent = chartDir("parent", {
      "Chart.yaml":
        "apiVersion: v2\nname: wrapper\nversion: 0.1.0\ndependencies:\n  - name: upstream\n    alias: bao\n    version: 1.0.0\n",
      "values.yaml": "bao:\n  fullnameOverride: x\nhooks:\n  enabled: true\n",
    });
    fs.mkdirSync(path.join(parent, "charts"));
    // A file name longer than a tar header holds: the archive carries it as a GNU long name.
    fs.writeFileSync(path.join(parent, "charts", `upstream-${"x".repeat(110)}-1.0.0.tgz`), subTgz);
    for (const keys of [
      chartKeysOf(readDirectory(parent)),
      chartKeysOf(readArchive(pack(parent, "wrapper"))),
    ]) {
      expect(keys.schema).toBe(false);
      expect(Object.keys(keys.tree.k ?? {}).sort()).toEqual(["bao", "global", "hooks"]);
      expect(Object.keys(keys.tree.k?.["bao"]?.k ?? {}).sort()).toEqual([
        "fullnameOverride",
        "global",
        "server",
      ]);
      expect(keys.tree.k?.["bao"]?.k?.["server"]?.k?.["dataStorage"]?.k?.["size"]).toEqual({});
    }
  });

  test("a packaged stand-in reads like its directory", () => {
    const dir = path.join(ROOT, "tests/charts/helm-nvcf-openbao-server");
    const fromDir = chartKeysOf(readDirectory(dir));
    const fromTgz = chartKeysOf(readArchive(pack(dir, "helm-nvcf-openbao-server")));
    expect(fromTgz).toEqual(fromDir);
  });
});

describe("the key cache", () => {
  const settings = { source: "oci" as const, registry: "registry.example.com", repository: "nvcf/charts" };
  test("the cache directory follows NVCF_CHART_KEYS_CACHE, else XDG_CACHE_HOME, else ~/.cache", () => {
    expect(chartKeysCacheDir({ NVCF_CHART_KEYS_CACHE: "/c" })).toBe("/c");
    expect(chartKeysCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/nvcf-pulumi/chart-keys");
    expect(chartKeysCacheDir({})).toBe(path.join(os.homedir(), ".cache/nvcf-pulumi/chart-keys"));
  });
  test("a remote chart not cached is missing, with the reason; once preflight cached it, its keys are known", () => {
    const cache = path.join(tmp, "cache");
    const before = lookupChartKeys(settings, "helm-nvcf-api", "1.25.1", ROOT, cache);
    expect(before).toEqual({
      chart: "helm-nvcf-api",
      version: "1.25.1",
      missing: `not in the key cache yet (${cache}); nvcf preflight fills it when it pulls the chart`,
    });
    const resolved = resolveChart(settings, "helm-nvcf-api", "1.25.1", () => false);
    const tgz = pack(path.join(ROOT, "tests/charts/helm-nvcf-api"), "helm-nvcf-api");
    const file = writeChartKeysCache("helm-nvcf-api", "1.25.1", cacheLocation(resolved), tgz, cache);
    expect(file).toBe(
      chartKeysCacheFile(
        "helm-nvcf-api",
        "1.25.1",
        "oci://registry.example.com/nvcf/charts/helm-nvcf-api",
        cache,
      ),
    );
    const after = lookupChartKeys(settings, "helm-nvcf-api", "1.25.1", ROOT, cache);
    expect("missing" in after).toBe(false);
    if (!("missing" in after)) {
      expect(after.from).toBe(`the key cache (${file})`);
      expect(after.tree.k?.["api"]?.k?.["replicaCount"]).toBeDefined();
    }
    // Another location of the same chart version is another cache entry.
    expect(
      "missing" in
        lookupChartKeys(
          { ...settings, registry: "mirror.example.com" },
          "helm-nvcf-api",
          "1.25.1",
          ROOT,
          cache,
        ),
    ).toBe(true);
  });
  test("a local chart source is read from its directory (the per-version one first)", () => {
    const local = { source: "local" as const, registry: "", repository: "", path: "tests/charts" };
    const r = lookupChartKeys(local, "helm-nvcf-cassandra", "0.17.0", ROOT, path.join(tmp, "unused"));
    expect("missing" in r ? r.missing : r.from).toBe("./tests/charts/helm-nvcf-cassandra-0.17.0");
    const missing = lookupChartKeys({ ...local, path: "no/such/dir" }, "helm-nvcf-cassandra", "0.20.1", ROOT);
    expect(missing).toMatchObject({ missing: "no chart directory ./no/such/dir/helm-nvcf-cassandra" });
  });
});
