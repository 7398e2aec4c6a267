/**
 * The stand-in Cassandra node of the local clusters: what `nodetool` and `cqlsh` (tests/bin/inpod) and their host
 * process (tests/bin/inpod-agent) read and write, all of it in the node's data directory on its volume, so that
 * data moves with the PersistentVolumeClaim exactly as a real node's data does.
 *
 * Where a node's data lives. The container's data directory is the image's: Bitnami's cassandra image (chart
 * 0.17.0, claim mounted at /bitnami/cassandra) keeps it at /bitnami/cassandra/data/data; the Apache image of
 * NVIDIA's own chart (0.18.0, 0.20.1, claim at /var/lib/cassandra, optionally with persistence.subPath) at
 * /var/lib/cassandra/data. On the host that is <PV host path>/[<subPath>/]<rest>: /tmp/hostpath_pv/<id>/data/data
 * for Bitnami, /tmp/hostpath_pv/<id>/data for Apache, and again /tmp/hostpath_pv/<id>/data/data for the Apache
 * image adopting a Bitnami volume with subPath "data" (NVIDIA docs/v0.6.1/release-notes/0.6.0-to-0.6.1-upgrade.md).
 *
 * Layout of a data directory, as Cassandra's: <keyspace>/<table>-<32 hex table id>/ holding SSTable files
 * `oa-<generation>-big-Data.db` and `snapshots/<tag>/`. The stand-in's Data.db file is JSON ({ columns, types,
 * key, rows }), rewritten whole on every write (a new generation, the old file removed), so a snapshot's hard
 * links keep the rows as they were. Generations are UUID identifiers (letters, digits and `_`) when the writing
 * node runs with uuid_sstable_identifiers_enabled (the Bitnami fleet did), else sequence numbers.
 *   - system/local-7ad54392bcdd35a684174e047860b377: the node's identity (host_id, cluster_name, data_center,
 *     rack, broadcast_address, tokens), written when the node first starts;
 *   - system_auth/roles-5bc52802de2535edaeab188eecebb090: the superuser role and a salted SHA-256 of its password,
 *     written when the chart's initialize-cluster hook Job has run (no roles: the default cassandra/cassandra);
 *   - schema_migrations/<keyspace>-<id>: golang-migrate's row (version bigint, dirty boolean) per migrated
 *     keyspace, written when the chart's migrations hook Job has run (the rows its image's tag leaves,
 *     MIGRATIONS_BY_TAG).
 *
 * When a node runs ("up"): its pod is Running and Ready, its claim is bound, and its configuration can read its
 * data: an Apache node without uuid_sstable_identifiers_enabled: true in the cassandra-conf overrides refuses
 * SSTables with UUID identifiers, and a node refuses data saved under another cluster name (both as Cassandra
 * does at start-up). A node that cannot start is down (DN) for the others; in its own pod the tools cannot
 * connect to it.
 */
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const yaml = require(path.join(__dirname, "../../../../node_modules/js-yaml"));
const { corePath, podReady, containerOf, envOf, hostPathOf, statefulSetOf, mountFor } = require("./kube.js");

const BITNAMI_MOUNT = "/bitnami/cassandra";
/** The in-container data directory of each image. */
const DATA_DIR = { bitnami: "/bitnami/cassandra/data/data", apache: "/var/lib/cassandra/data" };
/** Cassandra's fixed table ids of the system tables the stand-in writes. */
const TABLE_ID = {
  "system.local": "7ad54392bcdd35a684174e047860b377",
  "system_auth.roles": "5bc52802de2535edaeab188eecebb090",
};
const CONTAINER = "cassandra";
const DATA_FILE = /^([a-z]{2})-([0-9a-z_]+)-(big|bti)-Data\.db$/;

/** Which image layout the cassandra container has: Bitnami when it mounts something at /bitnami/cassandra. */
function layoutOf(container) {
  const bitnami = (container?.volumeMounts || []).some(
    (m) => m.mountPath === BITNAMI_MOUNT || m.mountPath.startsWith(`${BITNAMI_MOUNT}/`),
  );
  return bitnami ? "bitnami" : "apache";
}

/**
 * The cassandra.yaml settings that decide what data a node reads: the Bitnami fleet ran with UUID SSTable
 * identifiers (NVIDIA deploy/helm/cassandra/docs/upgrade-from-bitnami.md); an Apache node's come from the
 * `cassandra-overrides.yaml` of its config-map volume (the chart's cassandra-conf, merged by its init container).
 */
async function effectiveConfig(kube, pod, layout) {
  if (layout === "bitnami") return { uuid_sstable_identifiers_enabled: true };
  for (const v of pod.spec.volumes || []) {
    if (!v.configMap?.name) continue;
    const cm = await kube.get(corePath("configmaps", pod.metadata.namespace, v.configMap.name));
    const text = cm?.data?.["cassandra-overrides.yaml"];
    if (text !== undefined) return yaml.load(text) || {};
  }
  return {};
}

/**
 * One Cassandra node as the stand-in sees it. Input: the API client, the node's pod (null for a replica whose pod
 * is gone), and `ref` { pod: a pod of the same StatefulSet whose spec stands in for a missing one, sts, ordinal }.
 * Output: { name, namespace, sts, ordinal, pod, layout, dataDir (host path, null when unknown), error (why),
 * config }.
 */
async function resolveNode(kube, pod, ref = {}) {
  const specPod = pod || ref.pod;
  const ss = pod ? statefulSetOf(pod) : { name: ref.sts, ordinal: ref.ordinal };
  const name = pod ? pod.metadata.name : `${ss.name}-${ss.ordinal}`;
  const container = containerOf(specPod, CONTAINER);
  const layout = layoutOf(container);
  const node = { name, namespace: specPod.metadata.namespace, sts: ss.name, ordinal: ss.ordinal, pod, layout };
  node.dataDir = null;
  node.config = {};
  try {
    let claim;
    if (!pod) {
      const m = mountFor(container, DATA_DIR[layout]);
      claim = m ? `${m.name}-${name}` : undefined;
    }
    node.dataDir = (await hostPathOf(kube, specPod, CONTAINER, DATA_DIR[layout], claim)).host;
    node.config = await effectiveConfig(kube, specPod, layout);
  } catch (e) {
    node.error = e.message;
  }
  return node;
}

// ---------------------------------------------------------------------------------------------------------
// Tables on disk

const keyspaceDirs = (dataDir) =>
  fs.existsSync(dataDir)
    ? fs
        .readdirSync(dataDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];

/** The tables of a keyspace directory: [{ table, dir }]. */
function tablesOf(dataDir, ks) {
  const ksDir = path.join(dataDir, ks);
  if (!fs.existsSync(ksDir)) return [];
  return fs
    .readdirSync(ksDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => /^(.+)-([0-9a-f]{32})$/.exec(d.name))
    .filter(Boolean)
    .map((m) => ({ table: m[1], dir: path.join(ksDir, m[0]) }))
    .sort((a, b) => a.table.localeCompare(b.table));
}

const tableDir = (dataDir, ks, table) => tablesOf(dataDir, ks).find((t) => t.table === table)?.dir;

const dataFiles = (dir) =>
  fs
    .readdirSync(dir)
    .filter((f) => DATA_FILE.test(f))
    .map((f) => path.join(dir, f));

/** A table's contents { columns, types, key, rows }, or null when the table does not exist. */
function readTable(dataDir, ks, table) {
  const dir = tableDir(dataDir, ks, table);
  if (!dir) return null;
  const files = dataFiles(dir).sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
  if (!files.length) return { columns: [], types: {}, key: [], rows: [] };
  return JSON.parse(fs.readFileSync(files[files.length - 1], "utf8"));
}

/** A new SSTable generation: a UUID identifier (base 36, `_`-separated, as Cassandra 5 prints them) or the next number. */
function newGeneration(dir, uuidIds) {
  if (uuidIds) {
    const t = Date.now().toString(36).padStart(8, "0");
    const r = crypto.randomBytes(12).toString("hex");
    return `${t.slice(0, 4)}_${t.slice(4, 8)}_${BigInt(`0x${r}`).toString(36).slice(0, 18).padStart(18, "0")}`;
  }
  const nums = dataFiles(dir).map((f) => Number(DATA_FILE.exec(path.basename(f))[2])).filter(Number.isFinite);
  return String(nums.length ? Math.max(...nums) + 1 : 1);
}

/**
 * Writes a table's whole contents as a new SSTable (created with its directory when missing; the table id is
 * Cassandra's for the system tables, else random) and removes the older Data.db files of the table directory.
 */
function writeTable(dataDir, ks, table, doc, uuidIds) {
  let dir = tableDir(dataDir, ks, table);
  if (!dir) {
    const id = TABLE_ID[`${ks}.${table}`] || crypto.randomBytes(16).toString("hex");
    dir = path.join(dataDir, ks, `${table}-${id}`);
    fs.mkdirSync(dir, { recursive: true });
  }
  const old = dataFiles(dir);
  const file = path.join(dir, `oa-${newGeneration(dir, uuidIds)}-big-Data.db`);
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify({ keyspace: ks, table, ...doc })}\n`);
  fs.renameSync(`${file}.tmp`, file);
  for (const f of old) fs.unlinkSync(f);
}

/** Whether any live SSTable (not a snapshot) of the data directory has a UUID identifier. */
function hasUuidSstables(dataDir) {
  for (const ks of keyspaceDirs(dataDir))
    for (const t of tablesOf(dataDir, ks))
      if (dataFiles(t.dir).some((f) => DATA_FILE.exec(path.basename(f))[2].includes("_"))) return true;
  return false;
}

/** Bytes of the live data of a directory (snapshots excluded), as nodetool prints a load: "12.34 KiB". */
function load(dataDir) {
  let n = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (e.name !== "snapshots") walk(path.join(d, e.name));
      } else n += fs.statSync(path.join(d, e.name)).size;
    }
  };
  if (dataDir && fs.existsSync(dataDir)) walk(dataDir);
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (n < 1024) return `${n} bytes`;
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(2)} ${units[u]}`;
}

// ---------------------------------------------------------------------------------------------------------
// Identity, start-up, ring

/** The node's saved identity (system.local's row), or null before its first start. */
function identityOf(node) {
  if (!node.dataDir) return null;
  return readTable(node.dataDir, "system", "local")?.rows?.[0] || null;
}

const uuidIdsOf = (node) => node.config.uuid_sstable_identifiers_enabled === true;

/**
 * Whether the node can run now: { ok, reason }. Its pod must be Running and Ready and its claim bound; then what
 * Cassandra checks at start-up against the data it finds (see the module header).
 */
function canStart(node) {
  if (!node.pod || !podReady(node.pod)) return { ok: false, reason: "its pod is not running" };
  if (!node.dataDir) return { ok: false, reason: node.error || "no data directory" };
  if (node.layout === "apache" && !uuidIdsOf(node) && hasUuidSstables(node.dataDir))
    return {
      ok: false,
      reason: "UUID sstable identifiers are disabled but some sstables have been created with UUID identifiers",
    };
  const id = identityOf(node);
  const configured = envOf(containerOf(node.pod, CONTAINER), "CASSANDRA_CLUSTER_NAME") || "Test Cluster";
  if (id && id.cluster_name !== configured)
    return { ok: false, reason: `Saved cluster name ${id.cluster_name} != configured name ${configured}` };
  return { ok: true };
}

/**
 * Starts the node when it can (the stand-in of the Cassandra process): writes its identity on first start (a new
 * host ID), keeps its address current. Output: canStart's { ok, reason }.
 */
function start(node) {
  const st = canStart(node);
  if (!st.ok) return st;
  const c = containerOf(node.pod, CONTAINER);
  const now = identityOf(node);
  const want = {
    key: "local",
    host_id: now?.host_id || crypto.randomUUID(),
    cluster_name: envOf(c, "CASSANDRA_CLUSTER_NAME") || "Test Cluster",
    data_center: envOf(c, "CASSANDRA_DC") || envOf(c, "CASSANDRA_DATACENTER") || "datacenter1",
    rack: now?.rack || "rack1",
    broadcast_address: node.pod.status?.podIP || now?.broadcast_address || "127.0.0.1",
    tokens: Number(envOf(c, "CASSANDRA_NUM_TOKENS") || 16),
    bootstrapped: "COMPLETED",
  };
  if (JSON.stringify(now) !== JSON.stringify(want))
    writeTable(
      node.dataDir,
      "system",
      "local",
      { columns: Object.keys(want), types: {}, key: ["key"], rows: [want] },
      uuidIdsOf(node),
    );
  return st;
}

/**
 * The ring as the node of `pod` sees it: every replica of its StatefulSet (pods `<sts>-<n>` and claims
 * `<volume>-<sts>-<n>` of the namespace) whose data holds an identity, each { node, identity, up }, by ordinal.
 */
async function ring(kube, pod) {
  const ns = pod.metadata.namespace;
  const { name: sts } = statefulSetOf(pod);
  const own = await resolveNode(kube, pod);
  const mount = mountFor(containerOf(pod, CONTAINER), DATA_DIR[own.layout]);
  const ordinals = new Map();
  const re = new RegExp(`^${sts.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d+)$`);
  for (const p of await kube.list(corePath("pods", ns))) {
    const m = re.exec(p.metadata.name);
    if (m) ordinals.set(Number(m[1]), p);
  }
  if (mount)
    for (const c of await kube.list(corePath("persistentvolumeclaims", ns))) {
      const m = re.exec(c.metadata.name.slice(mount.name.length + 1));
      if (c.metadata.name.startsWith(`${mount.name}-`) && m && !ordinals.has(Number(m[1]))) ordinals.set(Number(m[1]), null);
    }
  const out = [];
  for (const ord of [...ordinals.keys()].sort((a, b) => a - b)) {
    const p = ordinals.get(ord);
    const node = p?.metadata.name === pod.metadata.name ? own : await resolveNode(kube, p, { pod, sts, ordinal: ord });
    const identity = identityOf(node);
    if (!identity) continue;
    out.push({ node, identity, up: canStart(node).ok });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// What the chart's hook Jobs leave behind

const hash = (salt, password) => crypto.createHash("sha256").update(`${salt}:${password}`).digest("hex");

/** Sets the superuser role (the initialize-cluster hook), unless the node already has roles (set once). */
function ensureSuperuser(node, user, password) {
  const roles = readTable(node.dataDir, "system_auth", "roles");
  if (roles && roles.rows.length) return false;
  const salt = crypto.randomBytes(8).toString("hex");
  const row = { role: user, is_superuser: true, can_login: true, salted_hash: `sha256$${salt}$${hash(salt, password)}` };
  writeTable(
    node.dataDir,
    "system_auth",
    "roles",
    { columns: ["role", "can_login", "is_superuser", "salted_hash"], types: {}, key: ["role"], rows: [row] },
    uuidIdsOf(node),
  );
  return true;
}

/** Whether user/password log in on the node: its roles, or Cassandra's default cassandra/cassandra before any. */
function checkLogin(node, user, password) {
  const roles = readTable(node.dataDir, "system_auth", "roles");
  if (!roles || !roles.rows.length) return user === "cassandra" && password === "cassandra";
  const r = roles.rows.find((x) => x.role === user && x.can_login);
  if (!r) return false;
  const [, salt, h] = String(r.salted_hash).split("$");
  return hash(salt, password) === h;
}

/**
 * The Cassandra chart's hook Jobs, known by their container's name, which NVIDIA's chart renders at every version
 * (deploy/helm/cassandra/helm templates/hook-post-01-initdb.yaml and hook-post-02-migrations.yaml, tags v0.17.0
 * to v0.20.1; the Job names differ: `cassandra-…` from 0.18.0 on, `<wrapper fullname>-…` in 0.17.0) and the
 * stand-ins alike: the initialize-cluster Job (superuser login from its CASSANDRA_USER / CASSANDRA_PASSWORD) and
 * the migrations Job (the schema_migrations rows of its image).
 */
const HOOK_CONTAINERS = { "cassandra-init": "initialize-cluster", "nvcf-cassandra-migrations": "migrations" };

/**
 * The schema_migrations rows NVIDIA's Cassandra migrations image leaves, by image tag ("table=version,…"): one
 * table per keyspace directory of NVIDIA/nvcf migrations/cassandra/keyspaces (golang-migrate's
 * x-migrations-table, execute_sqls.sh), each with one row, version = the highest migration number, dirty = false,
 * at tags migrations/cassandra/v0.11.0 (the default of charts 0.17.0 and 0.18.0) and v0.16.0 (the default of
 * 0.20.1). Another tag: unknown, nothing is written.
 */
const MIGRATIONS_BY_TAG = {
  "0.11.0": "api_keys_api=3,ess_api=8,nvcf_api=7,sis_api=6",
  "0.16.0": "api_keys_api=3,ess_api=8,event_ledger=3,nvcf_api=8,nvcf_autoscaler=3,nvct_api=3,sis_api=8",
};

/** The tag of an image reference (`host[:port]/path:tag[@digest]`); "" without one. */
function imageTag(image) {
  const ref = String(image || "").split("@")[0];
  const last = ref.slice(ref.lastIndexOf("/") + 1);
  const at = last.lastIndexOf(":");
  return at < 0 ? "" : last.slice(at + 1);
}

/** The schema_migrations rows a migrations Job of this image leaves ("table=version,…"), undefined if unknown. */
const migrationsOfImage = (image) => MIGRATIONS_BY_TAG[imageTag(image)];

/** Writes golang-migrate's schema_migrations rows (the migrations hook): "table=version,..." → one row per table. */
function applyMigrations(node, list) {
  for (const item of String(list).split(",").filter(Boolean)) {
    const [table, version] = item.split("=");
    writeTable(
      node.dataDir,
      "schema_migrations",
      table,
      {
        columns: ["version", "dirty"],
        types: { version: "bigint", dirty: "boolean" },
        key: ["version"],
        rows: [{ version: Number(version), dirty: false }],
      },
      uuidIdsOf(node),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// Snapshots

/**
 * `nodetool snapshot -t <tag> [keyspaces]`: per table, snapshots/<tag>/ with hard links to its SSTables, a
 * manifest.json and a schema.cql. Throws "Snapshot <tag> already exists." / "Keyspace <ks> does not exist".
 */
function snapshot(node, tag, keyspaces) {
  const all = keyspaceDirs(node.dataDir);
  for (const ks of keyspaces) if (!all.includes(ks)) throw new Error(`Keyspace ${ks} does not exist`);
  const chosen = keyspaces.length ? keyspaces : all;
  const tables = chosen.flatMap((ks) => tablesOf(node.dataDir, ks).map((t) => ({ ks, ...t })));
  if (tables.some((t) => fs.existsSync(path.join(t.dir, "snapshots", tag))))
    throw new Error(`Snapshot ${tag} already exists.`);
  const created = new Date().toISOString();
  for (const t of tables) {
    const dest = path.join(t.dir, "snapshots", tag);
    fs.mkdirSync(dest, { recursive: true });
    const files = fs.readdirSync(t.dir).filter((f) => fs.statSync(path.join(t.dir, f)).isFile());
    for (const f of files) fs.linkSync(path.join(t.dir, f), path.join(dest, f));
    fs.writeFileSync(path.join(dest, "manifest.json"), `${JSON.stringify({ files, created_at: created, expires_at: null, ephemeral: false }, null, 2)}\n`);
    const doc = readTable(node.dataDir, t.ks, t.table);
    const cols = (doc.columns || []).map((c) => `    ${c} ${doc.types?.[c] || "text"}`);
    const key = (doc.key || []).join(", ");
    fs.writeFileSync(
      path.join(dest, "schema.cql"),
      `CREATE TABLE IF NOT EXISTS ${t.ks}.${t.table} (\n${[...cols, `    PRIMARY KEY (${key})`].join(",\n")}\n);\n`,
    );
  }
  return tables.length;
}

module.exports = {
  CONTAINER,
  DATA_DIR,
  layoutOf,
  resolveNode,
  keyspaceDirs,
  tablesOf,
  readTable,
  writeTable,
  identityOf,
  canStart,
  start,
  ring,
  load,
  ensureSuperuser,
  checkLogin,
  applyMigrations,
  HOOK_CONTAINERS,
  imageTag,
  migrationsOfImage,
  snapshot,
};
