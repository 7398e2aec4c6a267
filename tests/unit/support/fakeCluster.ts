/**
 * A fake cluster for the upgrade steps' scripts (components/scripts/, upgradeSteps.ts): a `kubectl` over a JSON state file
 * that plays the API server and the controllers the scripts rely on, and a `cqlsh` for `kubectl exec`. Go templates
 * (`-o go-template=…`) are rendered by the real kubectl offline (`kubectl label --local -f <object>`), so the
 * scripts' templates are checked with Go's own semantics; a list template `{{range .items}}…{{end}}` is rendered
 * by giving kubectl a List, whose items it renders one by one with the body.
 *
 * State: `{ objects: { "<ns>/<kind>/<name>": object }, cassandra: { password, nodes: ["UN", …], migrations:
 * { <keyspace>: { version, dirty } }, tables: { "<ks>.<table>": rows }, snapshots: { <pod>: [tags] } },
 * reactions: …, openbao: { kv: <the KV state of tests/bin/inpod/lib/openbaoKv.js>, failPut } }`. Every kubectl
 * call is logged (arguments, one line each) for the tests to read, and so is every `bao` call of a pod's shell
 * (`kubectl exec … -- sh -c …` runs here, with the fake `cqlsh` and `bao`, the stand-in's KV engine, on PATH).
 *
 * What the fake controllers do: deleting a pod owned by a StatefulSet recreates it at the set's update revision
 * (OpenBao's service registration labels come back after `comeBackAfter` reads of it, sealed or not as the state
 * says; a pod read by name or in a list counts as read); scaling a Deployment sets its replicas and its status at
 * once; deleting a StatefulSet with `--cascade=orphan` keeps its pods and strips their owner; a merge patch of a
 * pod template raises the object's generation, which its controller observes at once (a StatefulSet then names a
 * new update revision, `r<generation>`), and `rollout status` succeeds at once. `get` takes several kinds at once
 * (`deployments,statefulsets,daemonsets`) and returns them kind by kind.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const KUBECTL = String.raw`#!/usr/bin/env node
const fs = require("fs"), os = require("os"), path = require("path"), cp = require("child_process");
const STATE = process.env.FK_STATE;
const st = JSON.parse(fs.readFileSync(STATE, "utf8"));
const save = () => { const t = STATE + "." + process.pid; fs.writeFileSync(t, JSON.stringify(st, null, 1)); fs.renameSync(t, STATE); };
let a = process.argv.slice(2);
fs.appendFileSync(process.env.FK_LOG, JSON.stringify(a) + "\n");
let ns = "default", tpl, ignore = false, stdinFlag = false, container, selector, replicas, cascade, patch;
const rest = [];
for (let i = 0; i < a.length; i++) {
  const x = a[i];
  if (x === "--context" || x === "--kubeconfig" || x === "-c" && rest[0] === "exec" && !a.slice(0, i).includes("--")) {
    if (x === "-c") container = a[++i]; else i++;
    continue;
  }
  if (x === "--") { rest.push(...a.slice(i)); break; }
  if (x === "-n") { ns = a[++i]; continue; }
  if (x === "-l") { selector = a[++i]; continue; }
  if (x === "-p") { patch = a[++i]; continue; }
  if (x === "-i") { stdinFlag = true; continue; }
  if (x === "--ignore-not-found") { ignore = true; continue; }
  if (x.startsWith("-o")) { const v = x === "-o" ? a[++i] : x.slice(2).replace(/^=/, ""); tpl = v.replace(/^go-template=/, ""); continue; }
  if (x.startsWith("--replicas=")) { replicas = Number(x.split("=")[1]); continue; }
  if (x.startsWith("--cascade=")) { cascade = x.split("=")[1]; continue; }
  if (x.startsWith("--")) { if (x === "--type") i++; continue; }
  rest.push(x);
}
if (st.unreachable) { process.stderr.write("The connection to the server was refused\n"); process.exit(1); }
const KIND = { statefulset: "StatefulSet", statefulsets: "StatefulSet", pod: "Pod", pods: "Pod", deployment: "Deployment",
  deployments: "Deployment", daemonset: "DaemonSet", daemonsets: "DaemonSet", configmap: "ConfigMap",
  persistentvolumeclaim: "PersistentVolumeClaim", secret: "Secret", secrets: "Secret" };
const ref = (kindName, name) => { let [k, n] = kindName.includes("/") ? kindName.split("/") : [kindName, name]; return { kind: KIND[k], name: n }; };
const key = (kind, name, n = ns) => n + "/" + kind + "/" + name;
const obj = (kind, name) => st.objects[key(kind, name)];
const matches = (o, sel) => !sel || sel.split(",").every((t) => { const [k, v] = t.split("="); return (o.metadata.labels || {})[k] === v; });
const list = (kind) => Object.entries(st.objects).filter(([k, o]) => k.startsWith(ns + "/" + kind + "/") && matches(o, selector)).map(([, o]) => o).sort((x, y) => x.metadata.name.localeCompare(y.metadata.name));
const real = (o, t) => {
  const f = path.join(os.tmpdir(), "fk-" + process.pid + "-" + Math.random().toString(36).slice(2) + ".json");
  fs.writeFileSync(f, JSON.stringify(o));
  const r = cp.spawnSync(process.env.FK_REAL_KUBECTL, ["label", "--local", "-f", f, "nvcf-fake=1", "-o", "go-template=" + t], { encoding: "utf8" });
  fs.rmSync(f);
  if (r.status !== 0) { process.stderr.write(r.stderr); process.exit(1); }
  return r.stdout;
};
const render = (objs, isList) => {
  if (!isList) return real(objs[0], tpl);
  const m = /^\{\{range \.items\}\}([\s\S]*)\{\{end\}\}$/.exec(tpl);
  if (!m) throw new Error("list templates must be {{range .items}}...{{end}}: " + tpl);
  // kubectl renders each item of a List with the template: one call for all of them.
  return objs.length === 0 ? "" : real({ apiVersion: "v1", kind: "List", items: objs }, m[1]);
};
const readsOf = (o) => (o.__reads = (o.__reads || 0) + 1);
/** A recreated pod reports its labels and readiness after a few reads (OpenBao's as its service registration would). */
const settle = (o) => {
  if (!o.__pending) return false;
  if (readsOf(o) >= o.__pending.after) { Object.assign(o.metadata.labels, o.__pending.labels); if (o.__pending.ready) o.status.conditions = [{ type: "Ready", status: "True" }]; delete o.__pending; }
  return true;
};
/** An object as the API server would return it (the fake's own bookkeeping left out). */
const bare = (o) => { const c = JSON.parse(JSON.stringify(o)); delete c.__reads; delete c.__pending; return c; };
const [verb, what, name2] = rest;
if (verb === "get") {
  const r = ref(what, name2);
  if (r.name) {
    const o = obj(r.kind, r.name);
    if (!o) { if (ignore) process.exit(0); process.stderr.write("Error from server (NotFound)\n"); process.exit(1); }
    if (settle(o)) save();
    process.stdout.write(render([bare(o)], false));
  } else {
    // Several kinds at once ("deployments,statefulsets"): one List, kind by kind, as kubectl returns it.
    const items = what.split(",").flatMap((w) => list(KIND[w]));
    for (const o of items) settle(o);
    save();
    process.stdout.write(render(items.map(bare), true));
  }
} else if (verb === "create" && what === "configmap") {
  st.objects[key("ConfigMap", name2)] = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: name2, namespace: ns } };
  save();
} else if (verb === "create" && what === "secret" && name2 === "generic") {
  // kubectl create secret generic <name> --from-file=<key>=<file>: the file's bytes, base64, under <key>.
  const name = rest[3];
  if (obj("Secret", name)) { process.stderr.write("error: failed to create secret secrets \"" + name + "\" already exists\n"); process.exit(1); }
  const data = {};
  for (const x of a.filter((y) => y.startsWith("--from-file="))) {
    const [k, f] = x.slice("--from-file=".length).split("=");
    data[k] = fs.readFileSync(f === "/dev/stdin" ? 0 : f).toString("base64");
  }
  st.objects[key("Secret", name)] = { apiVersion: "v1", kind: "Secret", type: "Opaque", metadata: { name, namespace: ns }, data };
  save();
} else if (verb === "label" || verb === "annotate") {
  const o = obj(KIND[what], name2);
  const field = verb === "label" ? "labels" : "annotations";
  for (const kv of rest.slice(3)) {
    o.metadata[field] = o.metadata[field] || {};
    if (kv.endsWith("-")) delete o.metadata[field][kv.slice(0, -1)]; else { const [k, v] = kv.split("="); o.metadata[field][k] = v; }
  }
  save();
} else if (verb === "patch") {
  const r = ref(what, name2);
  const o = obj(r.kind, r.name);
  const p = JSON.parse(patch);
  // A JSON merge patch (RFC 7386), the only kind the scripts send.
  const merge = (t, q) => { for (const [k, v] of Object.entries(q)) { if (v === null) delete t[k]; else if (typeof v === "object" && !Array.isArray(v)) t[k] = merge(t[k] && typeof t[k] === "object" ? t[k] : {}, v); else t[k] = v; } return t; };
  merge(o, p);
  // A changed pod template: the controller sees it at once and, for a StatefulSet, names a new update revision;
  // "rollout status" of any workload succeeds at once; an OnDelete set's pods wait for their deletion.
  if (p.spec && p.spec.template) {
    o.metadata.generation = (o.metadata.generation || 1) + 1;
    o.status = Object.assign(o.status || {}, { observedGeneration: o.metadata.generation });
    if (r.kind === "StatefulSet") o.status.updateRevision = "r" + o.metadata.generation;
  }
  save();
} else if (verb === "rollout" && what === "status") {
  process.stdout.write(name2 + " successfully rolled out\n");
} else if (verb === "scale") {
  const o = obj("Deployment", name2);
  o.spec.replicas = replicas;
  o.status = replicas ? { replicas } : {};
  save();
} else if (verb === "delete") {
  const r = ref(what, name2);
  const o = obj(r.kind, r.name);
  if (!o) { if (ignore) process.exit(0); process.stderr.write("NotFound\n"); process.exit(1); }
  delete st.objects[key(r.kind, r.name)];
  if (r.kind === "StatefulSet" && cascade === "orphan") {
    for (const p of list("Pod")) if ((p.metadata.ownerReferences || []).some((x) => x.name === r.name)) delete p.metadata.ownerReferences;
  }
  if (r.kind === "Pod" && (o.metadata.ownerReferences || []).length) {
    const set = obj("StatefulSet", o.metadata.ownerReferences[0].name);
    const rev = set.status.updateRevision;
    const back = JSON.parse(JSON.stringify(o));
    back.metadata.labels["controller-revision-hash"] = rev;
    const bao = st.openbao || {};
    for (const k of ["openbao-active", "openbao-sealed", "openbao-initialized"]) delete back.metadata.labels[k];
    back.status = { conditions: [{ type: "Ready", status: "False" }] };
    back.__pending = { after: bao.comeBackAfter || 1, ready: true, labels: { "openbao-active": o.metadata.labels["openbao-active"] === "true" && !bao.activeMoves ? "true" : "false", "openbao-sealed": bao.comesBackSealed ? "true" : "false", "openbao-initialized": "true" } };
    st.objects[key("Pod", r.name)] = back;
  }
  save();
} else if (verb === "exec") {
  const pod = what;
  const cmd = rest.slice(rest.indexOf("--") + 1);
  if (!obj("Pod", pod)) { process.stderr.write("pods \"" + pod + "\" not found\n"); process.exit(1); }
  const c = st.cassandra;
  if (cmd[0] === "nodetool") {
    if (cmd[1] === "status") {
      process.stdout.write("Datacenter: ncp\n===============\nStatus=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n--  Address     Load       Tokens  Owns  Host ID   Rack\n");
      c.nodes.forEach((s, i) => process.stdout.write(s + "  10.0.0." + (i + 1) + "  1.2 MiB  8  ?  id-" + i + "  rack1\n"));
    } else if (cmd[1] === "flush") { c.flushed = (c.flushed || []).concat([pod]); save(); }
    else if (cmd[1] === "snapshot") {
      const tag = cmd[cmd.indexOf("-t") + 1];
      c.snapshots = c.snapshots || {};
      c.snapshots[pod] = (c.snapshots[pod] || []);
      if (c.snapshots[pod].includes(tag)) { process.stderr.write("Snapshot " + tag + " already exists.\n"); process.exit(2); }
      c.snapshots[pod].push(tag); save();
    }
    process.exit(0);
  }
  // sh -c <script> <args...>: run it here, with the fake cqlsh on PATH and standard input passed through.
  const r = cp.spawnSync(cmd[0], cmd.slice(1), { stdio: [stdinFlag ? "inherit" : "ignore", "inherit", "inherit"], env: { ...process.env, PATH: process.env.FK_BIN + ":" + process.env.PATH } });
  process.exit(r.status === null ? 1 : r.status);
} else {
  process.stderr.write("fake kubectl: unsupported " + JSON.stringify(rest) + "\n");
  process.exit(1);
}
`;

/**
 * OpenBao's CLI in the fake's pods: the stand-in's KV engine (tests/bin/inpod/lib/openbaoKv.js, the contract the
 * local clusters' stand-in `bao` serves) over the state's `openbao.kv`. Every call is logged with its arguments.
 */
const BAO = String.raw`#!/usr/bin/env node
const fs = require("fs");
const a = process.argv.slice(2);
fs.appendFileSync(process.env.FK_LOG, JSON.stringify(["bao", ...a]) + "\n");
const STATE = process.env.FK_STATE;
const load = () => JSON.parse(fs.readFileSync(STATE, "utf8"));
if (a[0] !== "kv") { process.stderr.write("fake bao: only kv\n"); process.exit(1); }
const st0 = load();
if (st0.openbao && st0.openbao.failPut && a[1] === "put") { process.stderr.write("Error writing data: connection reset\n"); process.exit(2); }
const code = require(process.env.FK_BAO_KV).kvCommand(a.slice(1), {
  env: process.env,
  stdin: () => fs.readFileSync(0, "utf8"),
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  load: () => load().openbao.kv,
  save: (kv) => { const st = load(); st.openbao.kv = kv; const t = STATE + "." + process.pid; fs.writeFileSync(t, JSON.stringify(st, null, 1)); fs.renameSync(t, STATE); },
});
process.exit(code);
`;

const CQLSH = String.raw`#!/usr/bin/env node
const fs = require("fs");
const st = JSON.parse(fs.readFileSync(process.env.FK_STATE, "utf8"));
const a = process.argv.slice(2);
fs.appendFileSync(process.env.FK_LOG, JSON.stringify(["cqlsh", ...a]) + "\n");
const cred = fs.readFileSync(a[a.indexOf("--credentials") + 1], "utf8");
const user = /username = (.*)/.exec(cred)[1], pw = /password = (.*)/.exec(cred)[1];
const c = st.cassandra;
if (user !== "cassandra" || pw !== c.password) { process.stderr.write("Connection error: AuthenticationFailed('Provided username and/or password are incorrect')\n"); process.exit(1); }
const table = (head, rows) => {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)) + 2);
  const line = (cells) => cells.map((x, i) => (" " + String(x)).padEnd(w[i])).join("|");
  return "\n" + line(head) + "\n" + w.map((n) => "-".repeat(n)).join("+") + "\n" + rows.map((r) => line(r) + "\n").join("") + "\n(" + rows.length + " rows)\n";
};
let out = "";
for (const q of a[a.indexOf("-e") + 1].split(";").map((s) => s.trim()).filter(Boolean)) {
  let m;
  if (/WHERE keyspace_name = 'schema_migrations'/.test(q)) out += table(["table_name"], Object.keys(c.migrations).map((k) => [k]));
  else if ((m = /^SELECT version, dirty FROM schema_migrations\.(\w+)$/.exec(q))) { const v = c.migrations[m[1]]; out += table(["version", "dirty"], [[v.version, v.dirty ? "True" : "False"]]); }
  else if (/^SELECT keyspace_name, table_name FROM system_schema\.tables$/.test(q)) out += table(["keyspace_name", "table_name"], [...Object.keys(c.tables).map((t) => t.split(".")), ...Object.keys(c.migrations).map((k) => ["schema_migrations", k]), ["system", "local"]]);
  else if ((m = /^SELECT COUNT\(\*\) FROM (\w+\.\w+)$/.exec(q))) out += table(["count"], [[c.tables[m[1]]]]);
  else { process.stderr.write("fake cqlsh: unsupported " + q + "\n"); process.exit(2); }
}
process.stdout.write(out);
`;

/** One run of a script against the fake cluster. */
export interface FakeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The state after the run. */
  state: FakeState;
  /** kubectl's (and cqlsh's and bao's) argument lists, in order. */
  calls: string[][];
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export type FakeState = {
  objects: Record<string, any>;
  cassandra?: any;
  openbao?: any;
  unreachable?: boolean;
};

/**
 * Runs `script` with bash against the fake cluster holding `state`. `env` adds to the script's environment
 * (NVCFP_KUBECTL, FK_* are set here). The real kubectl (for templates) is `kubectl` on PATH, or NVCF_KUBECTL.
 */
export function runFake(script: string, state: FakeState, env: Record<string, string>): FakeRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-cluster-"));
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "kubectl"), KUBECTL, { mode: 0o755 });
  fs.writeFileSync(path.join(bin, "cqlsh"), CQLSH, { mode: 0o755 });
  fs.writeFileSync(path.join(bin, "bao"), BAO, { mode: 0o755 });
  const stateFile = path.join(dir, "state.json");
  fs.writeFileSync(stateFile, JSON.stringify(state));
  const log = path.join(dir, "log");
  fs.writeFileSync(log, "");
  const realKubectl =
    process.env["NVCF_KUBECTL"] ??
    spawnSync("bash", ["-c", "command -v kubectl"], { encoding: "utf8" }).stdout.trim();
  if (!realKubectl)
    throw new Error(
      "the fake cluster renders go-templates with the real kubectl: put it on PATH (source scripts/env.sh)",
    );
  const r = spawnSync("/bin/bash", ["-c", script], {
    encoding: "utf8",
    env: {
      ...process.env,
      TMPDIR: dir,
      NVCFP_KUBECTL: path.join(bin, "kubectl"),
      NVCFP_KUBE_CONTEXT: "kwok-nvcf-dev",
      NVCFP_KUBECONFIG: "",
      FK_STATE: stateFile,
      FK_LOG: log,
      FK_BIN: bin,
      FK_REAL_KUBECTL: realKubectl,
      FK_BAO_KV: path.resolve(__dirname, "../../bin/inpod/lib/openbaoKv.js"),
      NVCFP_POLL_SECONDS: "0.3",
      ...env,
    },
  });
  const after = JSON.parse(fs.readFileSync(stateFile, "utf8")) as FakeState;
  const calls = fs
    .readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string[]);
  fs.rmSync(dir, { recursive: true, force: true });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, state: after, calls };
}
