/**
 * The KV version 2 secrets engine of the stand-in OpenBao server and the `bao kv get` / `bao kv put` commands over
 * it, as OpenBao's CLI has them (openbao.org/docs/commands/kv/get, …/kv/put; the path-like syntax
 * `<mount>/<path>` and `-mount=<mount> <path>`):
 *   bao kv get [-format=table|json] [-field=<name>] [-mount=<mount>] <path>
 *     table: `== Secret Path ==`, `<mount>/data/<path>`, an empty line, `======= Metadata =======` and its
 *     Key/Value rows (created_time, custom_metadata <nil>, deletion_time n/a, destroyed false, version), an
 *     empty line, `====== Data ======` and the data's rows sorted by key; json: request_id, lease_id "",
 *     lease_duration 0, renewable false, data { data, metadata }, warnings null, mount_type "kv";
 *     -field: the value alone, without a trailing newline (a missing field: `Field "<name>" not present in
 *     secret`, exit 1). Nothing at the path: `No value found at <mount>/data/<path>` (exit 2).
 *   bao kv put [-format=table|json] [-mount=<mount>] <path> (<key>=<value> | <key>=@<file> | <key>=- …) | -
 *     a new version with exactly the data given (`-` alone: a JSON object on standard input; `<key>=-`: that
 *     value from standard input); prints the Secret Path and Metadata sections (json: the metadata as data).
 *     No data: `Must supply data` (exit 1).
 * Both need a token (BAO_TOKEN, else VAULT_TOKEN) that the server knows (the root token): otherwise OpenBao's
 * API error, `Error making API request.` … `Code: 403. Errors:` … `* permission denied` (exit 2). A path under no
 * KV mount: `* no handler for route …` (exit 2). Usage errors exit 1.
 *
 * State (one JSON object, kept by the caller: `load()` / `save(state)`): { rootToken, mounts: { "<mount>": {
 * "<path>": { versions: [{ data, created_time }] } } } }. Test equipment only: the program never loads it.
 */
"use strict";

const crypto = require("crypto");
const fs = require("fs");

/** The mount of a path-like argument: the longest mount name the state knows that prefixes it. */
function splitPath(state, arg, mount) {
  if (mount) return { mount: mount.replace(/\/+$/, ""), sub: arg.replace(/^\/+/, "") };
  const clean = arg.replace(/^\/+/, "");
  const m = Object.keys(state.mounts || {})
    .filter((name) => clean === name || clean.startsWith(`${name}/`))
    .sort((a, b) => b.length - a.length)[0];
  return m ? { mount: m, sub: clean.slice(m.length + 1) } : { mount: undefined, sub: clean };
}

/** OpenBao's table of Key/Value rows: keys padded to the widest, four spaces before the value. */
function rows(pairs) {
  const all = [["Key", "Value"], ["---", "-----"], ...pairs];
  const w = Math.max(...all.map((r) => r[0].length));
  return all.map(([k, v]) => `${k.padEnd(w)}    ${v}`).join("\n");
}

const metaRows = (m) => [
  ["created_time", m.created_time],
  ["custom_metadata", "<nil>"],
  ["deletion_time", "n/a"],
  ["destroyed", "false"],
  ["version", String(m.version)],
];

const apiError = (addr, method, urlPath, message) =>
  `Error making API request.\n\nURL: ${method} ${addr}/v1/${urlPath}\nCode: ${message.code}. Errors:\n\n* ${message.text}\n`;

/**
 * Runs `bao kv <argv…>`. Input: the arguments after `kv`; io { env, stdin() → string, out(s), err(s), load(),
 * save(state) }. Output: the exit code (0 done, 1 usage or a missing field, 2 an API error or no value).
 */
function kvCommand(argv, io) {
  let format = io.env.BAO_FORMAT || io.env.VAULT_FORMAT || "table";
  let field;
  let mount;
  const args = [];
  const [sub, ...rest] = argv;
  for (const a of rest) {
    let m;
    if ((m = /^--?format=(.*)$/.exec(a))) format = m[1];
    else if ((m = /^--?field=(.*)$/.exec(a))) field = m[1];
    else if ((m = /^--?mount=(.*)$/.exec(a))) mount = m[1];
    else if (/^--?(address|tls-skip-verify)/.test(a)) continue;
    else if (/^-.+/.test(a)) {
      io.err(`flag provided but not defined: ${a.replace(/=.*/, "")}\n`);
      return 1;
    } else args.push(a);
  }
  if (sub !== "get" && sub !== "put") {
    io.err(`stand-in bao: only "kv get" and "kv put" are served (got: kv ${argv.join(" ")})\n`);
    return 1;
  }
  if (!["table", "json"].includes(format)) {
    io.err(`Invalid output format: ${format}\n`);
    return 1;
  }
  if (args.length < 1 || (sub === "get" && args.length > 1)) {
    io.err(`Not enough arguments (expected ${sub === "get" ? 1 : "1 or more"}, got ${args.length})\n`);
    return 1;
  }
  const state = io.load();
  const addr = io.env.BAO_ADDR || io.env.VAULT_ADDR || "https://127.0.0.1:8200";
  const token = io.env.BAO_TOKEN || io.env.VAULT_TOKEN || "";
  const { mount: mnt, sub: p } = splitPath(state, args[0], mount);
  if (!token || token !== state.rootToken) {
    io.err(apiError(addr, "GET", `sys/internal/ui/mounts/${args[0]}`, { code: 403, text: "permission denied" }));
    return 2;
  }
  if (!mnt || !(state.mounts || {})[mnt]) {
    io.err(apiError(addr, sub === "get" ? "GET" : "PUT", args[0], { code: 404, text: `no handler for route "${args[0]}". route entry not found.` }));
    return 2;
  }
  const dataPath = `${mnt}/data/${p}`;
  const entries = state.mounts[mnt];
  if (sub === "get") {
    const entry = entries[p];
    const last = entry?.versions?.[entry.versions.length - 1];
    if (!last) {
      io.err(`No value found at ${dataPath}\n`);
      return 2;
    }
    const meta = { created_time: last.created_time, custom_metadata: null, deletion_time: "", destroyed: false, version: entry.versions.length };
    if (field !== undefined) {
      if (!(field in last.data)) {
        io.err(`Field "${field}" not present in secret\n`);
        return 1;
      }
      io.out(String(last.data[field]));
      return 0;
    }
    if (format === "json") {
      io.out(`${JSON.stringify({ request_id: crypto.randomUUID(), lease_id: "", lease_duration: 0, renewable: false, data: { data: last.data, metadata: meta }, warnings: null, mount_type: "kv" }, null, 2)}\n`);
      return 0;
    }
    const data = Object.keys(last.data).sort().map((k) => [k, String(last.data[k])]);
    io.out(`== Secret Path ==\n${dataPath}\n\n======= Metadata =======\n${rows(metaRows(meta))}\n\n====== Data ======\n${rows(data)}\n`);
    return 0;
  }
  // put
  let data = {};
  const kvs = args.slice(1);
  if (kvs.length === 1 && kvs[0] === "-") {
    try {
      data = JSON.parse(io.stdin());
    } catch (e) {
      io.err(`Failed to parse K=V data: failed to parse JSON input: ${e.message}\n`);
      return 1;
    }
  } else {
    for (const kv of kvs) {
      const i = kv.indexOf("=");
      if (i <= 0) {
        io.err(`Failed to parse K=V data: invalid key/value pair "${kv}": format must be key=value\n`);
        return 1;
      }
      const k = kv.slice(0, i);
      let v = kv.slice(i + 1);
      if (v === "-") v = io.stdin();
      else if (v.startsWith("@")) {
        try {
          v = fs.readFileSync(v.slice(1), "utf8");
        } catch (e) {
          io.err(`Failed to parse K=V data: error reading file: ${e.message}\n`);
          return 1;
        }
      }
      data[k] = v;
    }
  }
  if (Object.keys(data).length === 0) {
    io.err("Must supply data\n");
    return 1;
  }
  const entry = (entries[p] = entries[p] || { versions: [] });
  const created = new Date().toISOString();
  entry.versions.push({ data, created_time: created });
  io.save(state);
  const meta = { created_time: created, custom_metadata: null, deletion_time: "", destroyed: false, version: entry.versions.length };
  if (format === "json")
    io.out(`${JSON.stringify({ request_id: crypto.randomUUID(), lease_id: "", lease_duration: 0, renewable: false, data: meta, warnings: null, mount_type: "kv" }, null, 2)}\n`);
  else io.out(`== Secret Path ==\n${dataPath}\n\n======= Metadata =======\n${rows(metaRows(meta))}\n`);
  return 0;
}

/** A random root token in OpenBao's shape (`s.` and 24 characters). */
const newRootToken = () => `s.${crypto.randomBytes(18).toString("base64url").slice(0, 24)}`;

/** A version-1 (time-based) UUID, as NVIDIA's migration makes its key IDs (`uuidgen -t`). */
function uuid1(now = Date.now()) {
  const ts = BigInt(now) * 10000n + 0x01b21dd213814000n;
  const hex = (n, w) => n.toString(16).padStart(w, "0");
  const cs = (crypto.randomBytes(2).readUInt16BE() & 0x3fff) | 0x8000;
  const node = crypto.randomBytes(6);
  node[0] |= 1;
  return `${hex(ts & 0xffffffffn, 8)}-${hex((ts >> 32n) & 0xffffn, 4)}-${hex(((ts >> 48n) & 0x0fffn) | 0x1000n, 4)}-${hex(BigInt(cs), 4)}-${node.toString("hex")}`;
}

/**
 * The fields NVIDIA's OpenBao migration writes at `services/all/kv/encryption/keys/stored_data` on a fresh
 * install (`migrations/openbao/migrations/03_setup_shared_secrets.sh`): one AES-256 JWK (kid a time-based UUID)
 * as base64 of `{"keys":[jwk]}` in `keys` and `private_jwks`, its kid in `current_kid`, `jwe_mapping`
 * `{"payload_jwe_kid":"<kid>"}`.
 */
function initialStoredData() {
  const kid = uuid1();
  const jwk = { kty: "oct", use: "enc", kid, k: crypto.randomBytes(32).toString("base64url"), alg: "A256GCM" };
  const b64 = Buffer.from(JSON.stringify({ keys: [jwk] })).toString("base64");
  return { keys: b64, current_kid: kid, jwe_mapping: JSON.stringify({ payload_jwe_kid: kid }), private_jwks: b64 };
}

/** The KV mount and entry of the MEK. */
const MEK_MOUNT = "services/all/kv";
const MEK_ENTRY = "encryption/keys/stored_data";

/**
 * What the migrations Job does to the stand-in's KV state: the `services/all/kv` mount, and stored_data only when
 * it is absent (the migration never overwrites it). Output: true when stored_data was written.
 */
function migrate(state) {
  state.mounts = state.mounts || {};
  const m = (state.mounts[MEK_MOUNT] = state.mounts[MEK_MOUNT] || {});
  if (m[MEK_ENTRY]?.versions?.length) return false;
  m[MEK_ENTRY] = { versions: [{ data: initialStoredData(), created_time: new Date().toISOString() }] };
  return true;
}

module.exports = { kvCommand, newRootToken, uuid1, initialStoredData, migrate, MEK_MOUNT, MEK_ENTRY };
