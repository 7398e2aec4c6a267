/**
 * The data side of the stand-in Cassandra in-pod tools (tests/bin/inpod/lib/cassandra.js), on a temporary data
 * directory: what `cqlsh` reads and `nodetool snapshot` writes there, the login check, the start-up checks that
 * keep a node down, how the chart's hook Jobs are known and which rows the migrations Job's image leaves (the e2e
 * suite tests/e2e/standins.test.ts runs the tools through `kubectl exec`).
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";

interface Doc {
  columns: string[];
  types: Record<string, string>;
  key: string[];
  rows: Record<string, unknown>[];
}
interface Node {
  name: string;
  layout: "bitnami" | "apache";
  dataDir: string | null;
  config: Record<string, unknown>;
  pod: unknown;
  error?: string;
}
interface CassandraLib {
  writeTable(
    dataDir: string,
    ks: string,
    table: string,
    doc: Omit<Doc, "rows"> & { rows: unknown[] },
    uuidIds: boolean,
  ): void;
  readTable(dataDir: string, ks: string, table: string): Doc | null;
  tablesOf(dataDir: string, ks: string): { table: string; dir: string }[];
  snapshot(node: Node, tag: string, keyspaces: string[]): number;
  applyMigrations(node: Node, list: string): void;
  HOOK_CONTAINERS: Record<string, string>;
  imageTag(image: string): string;
  migrationsOfImage(image: string): string | undefined;
  ensureSuperuser(node: Node, user: string, password: string): boolean;
  checkLogin(node: Node, user: string, password: string): boolean;
  canStart(node: Node): { ok: boolean; reason?: string };
  start(node: Node): { ok: boolean; reason?: string };
  identityOf(node: Node): Record<string, unknown> | null;
}
const cass = createRequire(__filename)("../../bin/inpod/lib/cassandra.js") as CassandraLib;

let dir = "";
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-inpod-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A running pod of StatefulSet cassandra, as the API server returns it. */
const pod = (env: Record<string, string> = {}) => ({
  metadata: { name: "cassandra-0", namespace: "cassandra-system" },
  spec: {
    containers: [{ name: "cassandra", env: Object.entries(env).map(([name, value]) => ({ name, value })) }],
  },
  status: { phase: "Running", podIP: "10.0.0.7", conditions: [{ type: "Ready", status: "True" }] },
});
const node = (
  layout: Node["layout"],
  config: Record<string, unknown>,
  env?: Record<string, string>,
): Node => ({
  name: "cassandra-0",
  layout,
  dataDir: dir,
  config,
  pod: pod(env ?? { CASSANDRA_CLUSTER_NAME: "cassandra", CASSANDRA_DC: "ncp", CASSANDRA_NUM_TOKENS: "8" }),
});
const dataFiles = (d: string) => fs.readdirSync(d).filter((f) => f.endsWith("-Data.db"));

test("the migrations hook's rows: one table per keyspace in schema_migrations, read back as written", () => {
  const n = node("bitnami", { uuid_sstable_identifiers_enabled: true });
  cass.applyMigrations(n, "api_keys_api=3,nvcf_api=7");
  expect(cass.tablesOf(dir, "schema_migrations").map((t) => t.table)).toEqual(["api_keys_api", "nvcf_api"]);
  expect(cass.readTable(dir, "schema_migrations", "nvcf_api")).toMatchObject({
    columns: ["version", "dirty"],
    rows: [{ version: 7, dirty: false }],
  });
  // A later migrations run (an upgrade's hook) writes a new SSTable and removes the old one.
  const t = cass.tablesOf(dir, "schema_migrations").find((x) => x.table === "nvcf_api")!;
  const before = dataFiles(t.dir);
  cass.applyMigrations(n, "nvcf_api=8");
  expect(dataFiles(t.dir)).toHaveLength(1);
  expect(dataFiles(t.dir)).not.toEqual(before);
  expect(cass.readTable(dir, "schema_migrations", "nvcf_api")?.rows).toEqual([{ version: 8, dirty: false }]);
});

test("SSTable generations: UUID identifiers where the node runs with them, sequence numbers otherwise", () => {
  cass.applyMigrations(node("bitnami", { uuid_sstable_identifiers_enabled: true }), "a=1");
  cass.applyMigrations(node("apache", {}), "b=1");
  cass.applyMigrations(node("apache", {}), "b=2");
  const [a, b] = ["a", "b"].map((x) =>
    dataFiles(cass.tablesOf(dir, "schema_migrations").find((t) => t.table === x)!.dir),
  );
  expect(a[0]).toMatch(/^oa-[0-9a-z]{4}_[0-9a-z]{4}_[0-9a-z]{18}-big-Data\.db$/);
  expect(b).toEqual(["oa-2-big-Data.db"]);
});

test("nodetool snapshot: per table snapshots/<tag>/ with the SSTables, manifest.json and schema.cql; a tag only once", () => {
  const n = node("apache", { uuid_sstable_identifiers_enabled: true });
  cass.applyMigrations(n, "nvcf_api=7,sis_api=6");
  expect(cass.snapshot(n, "pre-upgrade", [])).toBe(2);
  const t = cass.tablesOf(dir, "schema_migrations")[0];
  const snap = path.join(t.dir, "snapshots/pre-upgrade");
  expect(fs.readdirSync(snap).sort()).toEqual([...dataFiles(t.dir), "manifest.json", "schema.cql"].sort());
  expect(fs.readFileSync(path.join(snap, "schema.cql"), "utf8")).toBe(
    "CREATE TABLE IF NOT EXISTS schema_migrations.nvcf_api (\n    version bigint,\n    dirty boolean,\n    PRIMARY KEY (version)\n);\n",
  );
  // The snapshot keeps the rows it saw when the table changes afterwards (hard links to immutable SSTables).
  cass.applyMigrations(n, "nvcf_api=8");
  const kept = JSON.parse(fs.readFileSync(path.join(snap, dataFiles(snap)[0]), "utf8")) as Doc;
  expect(kept.rows).toEqual([{ version: 7, dirty: false }]);
  expect(() => cass.snapshot(n, "pre-upgrade", [])).toThrow("Snapshot pre-upgrade already exists.");
  expect(() => cass.snapshot(n, "x", ["nope"])).toThrow("Keyspace nope does not exist");
});

test("login: Cassandra's default superuser until the initialize-cluster hook sets one, once", () => {
  const n = node("bitnami", { uuid_sstable_identifiers_enabled: true });
  expect(cass.checkLogin(n, "cassandra", "cassandra")).toBe(true);
  expect(cass.ensureSuperuser(n, "cassandra", "s3cret")).toBe(true);
  expect(cass.checkLogin(n, "cassandra", "cassandra")).toBe(false);
  expect(cass.checkLogin(n, "cassandra", "s3cret")).toBe(true);
  // A second run (an upgrade with another password) keeps the password the data has.
  expect(cass.ensureSuperuser(n, "cassandra", "other")).toBe(false);
  expect(cass.checkLogin(n, "cassandra", "s3cret")).toBe(true);
  // The password is not in the data, only its salted hash.
  const roles = cass.tablesOf(dir, "system_auth")[0].dir;
  expect(fs.readFileSync(path.join(roles, dataFiles(roles)[0]), "utf8")).not.toContain("s3cret");
});

test("start-up checks: UUID SSTables need uuid_sstable_identifiers_enabled; the saved cluster name must match", () => {
  // Data a Bitnami node wrote (UUID identifiers), then the node identity.
  const bitnami = node("bitnami", { uuid_sstable_identifiers_enabled: true });
  expect(cass.start(bitnami)).toEqual({ ok: true });
  expect(cass.identityOf(bitnami)).toMatchObject({
    cluster_name: "cassandra",
    data_center: "ncp",
    tokens: 8,
    broadcast_address: "10.0.0.7",
  });
  // The Apache image adopting it without the setting does not start; with it, it does, and keeps the host ID.
  expect(cass.canStart(node("apache", {}))).toEqual({
    ok: false,
    reason: "UUID sstable identifiers are disabled but some sstables have been created with UUID identifiers",
  });
  const adopted = node("apache", { uuid_sstable_identifiers_enabled: true });
  expect(cass.start(adopted)).toEqual({ ok: true });
  expect(cass.identityOf(adopted)?.host_id).toBe(cass.identityOf(bitnami)?.host_id);
  expect(
    cass.canStart(
      node("apache", { uuid_sstable_identifiers_enabled: true }, { CASSANDRA_CLUSTER_NAME: "other" }),
    ),
  ).toEqual({
    ok: false,
    reason: "Saved cluster name cassandra != configured name other",
  });
});

test("the hook Jobs: known by their container's name; the migrations image's tag gives the rows, an unknown tag none", () => {
  expect(cass.HOOK_CONTAINERS).toEqual({
    "cassandra-init": "initialize-cluster",
    "nvcf-cassandra-migrations": "migrations",
  });
  expect(cass.imageTag("registry.nvcf.test:5000/nvcf/mirror/nvcf-cassandra-migrations:0.16.0")).toBe(
    "0.16.0",
  );
  expect(cass.imageTag("registry.nvcf.test:5000/nvcf/nvcf-cassandra-migrations")).toBe("");
  expect(cass.imageTag("nvcr.io/x/nvcf-cassandra-migrations:0.11.0@sha256:abc")).toBe("0.11.0");
  expect(cass.migrationsOfImage("r.test/m:0.11.0")).toBe("api_keys_api=3,ess_api=8,nvcf_api=7,sis_api=6");
  expect(cass.migrationsOfImage("r.test/m:0.16.0")).toBe(
    "api_keys_api=3,ess_api=8,event_ledger=3,nvcf_api=8,nvcf_autoscaler=3,nvct_api=3,sis_api=8",
  );
  expect(cass.migrationsOfImage("r.test/m:9.9.9")).toBeUndefined();
  // The rows reach the data as golang-migrate's: one table per keyspace, version and dirty.
  const n = node("apache", { uuid_sstable_identifiers_enabled: true });
  cass.applyMigrations(n, cass.migrationsOfImage("r.test/m:0.11.0")!);
  expect(
    cass
      .tablesOf(dir, "schema_migrations")
      .map((t) => t.table)
      .sort(),
  ).toEqual(["api_keys_api", "ess_api", "nvcf_api", "sis_api"]);
  expect(cass.readTable(dir, "schema_migrations", "nvcf_api")?.rows).toEqual([{ version: 7, dirty: false }]);
});
