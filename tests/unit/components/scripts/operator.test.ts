/**
 * The compute plane's operator scripts after the kubectl runner (components/scripts/kubectl.sh): the drain
 * (operator-drain.sh, components/computePlane.ts `DRAIN`) and the restart (operator-restart.sh,
 * components/operatorRestart.ts `RESTART_OPERATOR`), with a fake kubectl that plays the GPU cluster from a state the
 * test gives. Also the runner itself: the cluster reached through the kubeconfig (a private 0600 file, removed on
 * exit) or the context. The finalizer watcher (operator-finalizers*.sh): tests/unit/components/computePlane.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DRAIN } from "../../../../components/computePlane";
import { RESTART_OPERATOR } from "../../../../components/operatorRestart";
import { sentinelKubeconfig } from "../../support/harness";

/**
 * A fake kubectl over a JSON state: `crd` (the NVCFBackend CRD exists), `pods` (nvca-system's pods, one fewer each
 * time they are listed), `rolloutFails`. Logs each call's arguments, with the kubeconfig file's text and mode.
 */
const FAKE_KUBECTL = String.raw`#!/usr/bin/env node
const fs = require("fs");
const st = JSON.parse(fs.readFileSync(process.env.FK_STATE, "utf8"));
const save = () => fs.writeFileSync(process.env.FK_STATE, JSON.stringify(st));
let a = process.argv.slice(2);
const k = a.indexOf("--kubeconfig");
const kubeconfig = k >= 0 ? { text: fs.readFileSync(a[k + 1], "utf8"), mode: (fs.statSync(a[k + 1]).mode & 0o777).toString(8) } : undefined;
fs.appendFileSync(process.env.FK_LOG, JSON.stringify({ args: a, kubeconfig }) + "\n");
while (a[0] === "--context" || a[0] === "--kubeconfig") a = a.slice(2);
const w = a.join(" ");
if (w === "get crd nvcfbackends.nvcf.nvidia.io") process.exit(st.crd ? 0 : 1);
else if (w.startsWith("delete nvcfbackends.nvcf.nvidia.io --all -n nvca-operator")) { st.deleted = true; save(); }
else if (w === "get pods -n nvca-system --no-headers") {
  for (let i = 0; i < st.pods; i++) process.stdout.write("nvca-" + i + "   1/1   Running   0   1m\n");
  if (st.pods > 0 && !st.stuck) st.pods -= 1;
  save();
} else if (a[0] === "rollout" && a[1] === "restart") process.stdout.write(a[2] + " restarted\n");
else if (a[0] === "rollout" && a[1] === "status") {
  if (st.rolloutFails) { process.stderr.write("error: timed out waiting for the condition\n"); process.exit(1); }
  process.stdout.write(a[2] + ' successfully rolled out\n');
} else { process.stderr.write("fake kubectl: unsupported " + w + "\n"); process.exit(2); }
`;

interface Call {
  args: string[];
  kubeconfig?: { text: string; mode: string };
}

function run(script: string, given: object, env: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "operator-scripts-"));
  try {
    const kubectl = path.join(dir, "kubectl");
    fs.writeFileSync(kubectl, FAKE_KUBECTL, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, "state.json"), JSON.stringify(given));
    fs.writeFileSync(path.join(dir, "log"), "");
    const tmp = path.join(dir, "tmp");
    fs.mkdirSync(tmp);
    const r = spawnSync("/bin/bash", ["-c", script], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        TMPDIR: tmp,
        FK_STATE: path.join(dir, "state.json"),
        FK_LOG: path.join(dir, "log"),
        NVCFP_KUBECTL: kubectl,
        NVCFP_KUBE_CONTEXT: "kwok-nvcf-gpu-a",
        NVCFP_KUBECONFIG: "",
        ...env,
      },
    });
    const calls = fs
      .readFileSync(path.join(dir, "log"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Call);
    const state = JSON.parse(fs.readFileSync(path.join(dir, "state.json"), "utf8")) as Record<
      string,
      unknown
    >;
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, calls, state, left: fs.readdirSync(tmp) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("the drain (operator-drain.sh)", () => {
  test("deletes every NVCFBackend, then waits until nvca-system has no pods", () => {
    const r = run(DRAIN, { crd: true, pods: 2 }, { NVCFP_DRAIN_SECONDS: "10" });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "nvca-system is empty\n", ""]);
    expect(r.state["deleted"]).toBe(true);
    expect(r.calls[1]!.args).toEqual([
      "--context",
      "kwok-nvcf-gpu-a",
      "delete",
      "nvcfbackends.nvcf.nvidia.io",
      "--all",
      "-n",
      "nvca-operator",
      "--timeout=120s",
      "--ignore-not-found",
    ]);
  });

  test("without the CRD nothing is deleted; pods still there after NVCFP_DRAIN_SECONDS fail the step", () => {
    const r = run(DRAIN, { crd: false, pods: 1, stuck: true }, { NVCFP_DRAIN_SECONDS: "2" });
    expect(r.code).toBe(1);
    expect(r.state["deleted"]).toBeUndefined();
    expect(r.stderr).toBe(
      "nvca-system still has pods after 2 s; undeploy functions and check NVCFBackend finalizers\n",
    );
  });
});

describe("the restart (operator-restart.sh)", () => {
  const ENV = {
    NVCFP_NAMESPACE: "nvca-operator",
    NVCFP_DEPLOYMENT: "nvca-operator",
    NVCFP_TIMEOUT_SECONDS: "300",
    NVCFP_CLUSTER_ID: "c-1",
    NVCFP_REGION: "eu-west-1",
  };

  test("rollout restart, then rollout status within the timeout; one line names the identity it starts with", () => {
    const r = run(RESTART_OPERATOR, {}, ENV);
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => c.args.slice(2))).toEqual([
      ["rollout", "restart", "deployment/nvca-operator", "-n", "nvca-operator"],
      ["rollout", "status", "deployment/nvca-operator", "-n", "nvca-operator", "--timeout=300s"],
    ]);
    expect(r.stdout.trim().split("\n").pop()).toBe(
      "restarted nvca-operator/nvca-operator: it starts with cluster c-1, region eu-west-1",
    );
  });

  test("a rollout that does not finish fails the step", () => {
    const r = run(RESTART_OPERATOR, { rolloutFails: true }, ENV);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: timed out waiting for the condition\n");
  });

  test("the kubectl runner: a kubeconfig goes to kubectl as a private file, removed on exit", () => {
    const kubeconfig = sentinelKubeconfig("gpu-a");
    const r = run(RESTART_OPERATOR, {}, { ...ENV, NVCFP_KUBECONFIG: kubeconfig, NVCFP_KUBE_CONTEXT: "" });
    expect(r.code).toBe(0);
    for (const c of r.calls) {
      expect(c.args.slice(0, 2)).toEqual(["--kubeconfig", expect.stringMatching(/\/kubeconfig$/)]);
      expect(c.kubeconfig).toEqual({ text: kubeconfig, mode: "600" });
    }
    expect(r.left).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain("SENTINEL");
  });
});
