/**
 * The compute plane's teardown of helm-nvca-operator's cleanup finalizers (components/computePlane.ts
 * `UNFINALIZE`), run against a fake kubectl that plays the API server: the chart (1.14.0 and 1.21.3,
 * templates/role.yaml, role_binding.yaml, shutdown-sentinel.yaml) marks its ClusterRole, ClusterRoleBinding
 * and shutdown-sentinel ConfigMap with `nvca.nvcf.nvidia.io/operator-cleanup`.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { OPERATOR_CLEANUP_FINALIZER, START_UNFINALIZE, UNFINALIZE } from "../../../components/computePlane";

/**
 * A fake kubectl over a JSON state file `{kind: {name: {finalizers: [], deleting: bool}}}`: `get <kind>
 * -o go-template=…` prints `name state index` for objects carrying the finalizer (what the real template
 * prints), `patch … --type=json -p` applies `test`+`remove`; every call is logged.
 */
const FAKE = `#!/usr/bin/env node
const fs = require("fs");
const st = JSON.parse(fs.readFileSync(process.env.FK_STATE, "utf8"));
// Written whole (temporary file, then rename): the test reads the state while this fake runs.
const save = () => {
  const tmp = process.env.FK_STATE + "." + process.pid + ".tmp";
  fs.writeFileSync(tmp, JSON.stringify(st));
  fs.renameSync(tmp, process.env.FK_STATE);
};
const a = process.argv.slice(2);
fs.appendFileSync(process.env.FK_LOG, a.join(" ") + "\\n");
while (a[0] === "--context" || a[0] === "--kubeconfig") a.splice(0, 2);
const [verb, kind, name] = a;
const objs = st[kind] || {};
if (verb === "get") {
  if (st.unreachable) process.exit(1);
  // The release's uninstall starts deleting after the first look.
  for (const o of Object.values(objs)) if (o.deleteAfterFirstGet) o.deleting = true;
  save();
  for (const [n, o] of Object.entries(objs)) {
    const i = o.finalizers.indexOf(process.env.NVCFP_FINALIZER);
    if (i >= 0) process.stdout.write(n + " " + (o.deleting ? "terminating" : "live") + " " + i + "\\n");
  }
} else if (verb === "patch") {
  const ops = JSON.parse(a[a.indexOf("-p") + 1]);
  const o = objs[name];
  const idx = Number(ops[0].path.split("/").pop());
  if (o.finalizers[idx] !== ops[0].value) process.exit(1);
  o.finalizers.splice(idx, 1);
  save();
}
`;

function run(state: object, waitSeconds = 6, script = UNFINALIZE) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "unfinalize-"));
  const kubectl = path.join(dir, "kubectl");
  fs.writeFileSync(kubectl, FAKE, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "state.json"), JSON.stringify(state));
  const env = {
    ...process.env,
    TMPDIR: dir,
    NVCFP_CLUSTER: "gpu-a",
    NVCFP_UNFINALIZE_SCRIPT: UNFINALIZE,
    FK_STATE: path.join(dir, "state.json"),
    FK_LOG: path.join(dir, "log"),
    NVCFP_KUBECTL: kubectl,
    NVCFP_FINALIZER: OPERATOR_CLEANUP_FINALIZER,
    NVCFP_NAMESPACE: "nvca-operator",
    NVCFP_KUBE_CONTEXT: "kwok-nvcf-gpu-a",
    NVCFP_KUBECONFIG: "",
    NVCFP_WAIT_SECONDS: String(waitSeconds),
  };
  const r = spawnSync("/bin/bash", ["-c", script], { env, encoding: "utf8" });
  if (script === START_UNFINALIZE) {
    // The step returned at once; the detached watcher goes on until the objects are handled (or its deadline).
    const watcherLog = path.join(dir, "nvcf-operator-finalizers-gpu-a.log");
    const deadline = Date.now() + (waitSeconds + 5) * 1000;
    const pending = () =>
      Object.values(JSON.parse(fs.readFileSync(path.join(dir, "state.json"), "utf8")) as object)
        .flatMap((k) => Object.values(k as Record<string, { finalizers: string[] }>))
        .some((o) => o.finalizers.includes(OPERATOR_CLEANUP_FINALIZER));
    while (pending() && Date.now() < deadline) spawnSync("sleep", ["0.5"]);
    spawnSync("sleep", ["0.5"]);
    (r as { watcherLog?: string }).watcherLog = fs.existsSync(watcherLog)
      ? fs.readFileSync(watcherLog, "utf8")
      : "";
  }
  const after = JSON.parse(fs.readFileSync(path.join(dir, "state.json"), "utf8"));
  const log = fs.existsSync(env.FK_LOG) ? fs.readFileSync(env.FK_LOG, "utf8") : "";
  fs.rmSync(dir, { recursive: true, force: true });
  const watcherLog = (r as { watcherLog?: string }).watcherLog ?? "";
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, after, log, watcherLog };
}

const F = OPERATOR_CLEANUP_FINALIZER;
const chartObjects = (deleting: boolean | "later") => ({
  clusterrole: {
    "nvca-operator": {
      finalizers: [F],
      deleting: deleting === true,
      deleteAfterFirstGet: deleting === "later",
    },
  },
  clusterrolebinding: {
    "nvca-operator": {
      finalizers: ["other/keep", F],
      deleting: deleting === true,
      deleteAfterFirstGet: deleting === "later",
    },
  },
  configmap: {
    "nvca-operator-shutdown-sentinel": {
      finalizers: [F],
      deleting: deleting === true,
      deleteAfterFirstGet: deleting === "later",
    },
  },
});

describe("teardown of the operator's cleanup finalizers", () => {
  test("once helm deletes them, only that finalizer goes from the ClusterRole, ClusterRoleBinding and sentinel", () => {
    const r = run(chartObjects("later"));
    expect(r.code).toBe(0);
    expect(r.after.clusterrole["nvca-operator"].finalizers).toEqual([]);
    expect(r.after.clusterrolebinding["nvca-operator"].finalizers).toEqual(["other/keep"]);
    expect(r.after.configmap["nvca-operator-shutdown-sentinel"].finalizers).toEqual([]);
    expect(r.log).toMatch(/get configmap -n nvca-operator/);
    expect(r.log).toMatch(/--context kwok-nvcf-gpu-a/);
  });

  test("objects that are not being deleted are left alone, and the step fails naming the release", () => {
    const r = run(chartObjects(false), 3);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/still not being deleted .* nvca-operator release uninstalled/);
    expect(r.after.clusterrole["nvca-operator"].finalizers).toEqual([F]);
    expect(r.log).not.toMatch(/patch/);
  });

  test("the delete step returns at once and its detached watcher strips the finalizers while helm uninstalls", () => {
    const t0 = Date.now();
    const r = run(chartObjects("later"), 6, START_UNFINALIZE);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /watching the nvca-operator uninstall for nvca\.nvcf\.nvidia\.io\/operator-cleanup finalizers \(pid \d+, log .*nvcf-operator-finalizers-gpu-a\.log\)/,
    );
    expect(r.after.clusterrole["nvca-operator"].finalizers).toEqual([]);
    expect(r.after.clusterrolebinding["nvca-operator"].finalizers).toEqual(["other/keep"]);
    expect(r.after.configmap["nvca-operator-shutdown-sentinel"].finalizers).toEqual([]);
    expect(r.watcherLog).toMatch(
      /removed nvca\.nvcf\.nvidia\.io\/operator-cleanup from clusterrole\/nvca-operator/,
    );
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  test("nothing left (or an unreachable cluster) is success", () => {
    expect(run({}).code).toBe(0);
    expect(run({ unreachable: true }).code).toBe(0);
  });
});
