/**
 * Throwaway replica clusters for a rehearsal (cli/verbs/rehearse.ts): one local Kubernetes control plane per
 * cluster a rehearsed stack targets, made with kwokctl (a real kube-apiserver, etcd, kube-controller-manager and
 * kube-scheduler, and kwok in place of kubelets: pods are scheduled and report Running and Ready, but no container
 * runs). Every component listens on 127.0.0.1 only. Everything a replica has (its etcd data, certificates, logs,
 * pid files, its kubeconfig) lives under one directory the caller owns (mode 0700), and `delete` removes it.
 *
 * The binaries are the embedded default's own (scripts/toolchain.sh builds them: kwokctl, kwok, kube-apiserver,
 * kube-controller-manager, kube-scheduler, etcd), found on PATH.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";

/** The programs a replica runs, each found on PATH. */
export const REPLICA_BINARIES = [
  "kwokctl",
  "kwok",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "etcd",
] as const;

/**
 * The path of each replica binary on `PATH` (`env.PATH`, colon-separated), or the names of those missing.
 * Pure apart from `exists` (default: the file exists and is executable).
 */
export function findReplicaBinaries(
  envPath: string | undefined,
  exists: (file: string) => boolean = isExecutable,
): { found: Record<string, string>; missing: string[] } {
  const dirs = (envPath ?? "").split(":").filter(Boolean);
  const found: Record<string, string> = {};
  const missing: string[] = [];
  for (const b of REPLICA_BINARIES) {
    const hit = dirs.map((d) => path.join(d, b)).find((f) => exists(f));
    if (hit) found[b] = hit;
    else missing.push(b);
  }
  return { found, missing };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * kwokctl's configuration of a replica (YAML text): components on 127.0.0.1; the controller manager's host-path
 * provisioner, so claims the rehearsed change adds get bound; no leader election (one instance of each).
 */
export function replicaKwokctlConfig(): string {
  return yaml.dump({
    apiVersion: "config.kwok.x-k8s.io/v1alpha1",
    kind: "KwokctlConfiguration",
    options: { bindAddress: "127.0.0.1" },
    componentsPatches: [
      {
        name: "kube-controller-manager",
        extraArgs: [
          { key: "enable-hostpath-provisioner", value: "true" },
          { key: "leader-elect", value: "false" },
        ],
      },
      { name: "kube-scheduler", extraArgs: [{ key: "leader-elect", value: "false" }] },
    ],
  });
}

/** A replica cluster: its kwokctl name, the kubeconfig file kwokctl wrote and the context in it. */
export interface Replica {
  name: string;
  kubeconfig: string;
  context: string;
  /** The API server URL (https://127.0.0.1:<port>). */
  server: string;
}

/**
 * kwokctl's work directory for replica `name` under `dir`: `<dir>/kwok/<name>`. One each, because kwokctl makes a
 * work directory's certificate authority on first use, and replicas made at once in one directory race for it.
 */
export function replicaWorkdir(dir: string, name: string): string {
  return path.join(dir, "kwok", name);
}

/**
 * Creates replica `name` under `dir` (created if missing) with `binaries` (`findReplicaBinaries`). Resolves once its
 * API server serves (kwokctl `--wait`); rejects with kwokctl's last lines when it cannot be created (the caller then
 * runs `deleteReplicas`). Options: `timeoutSeconds`, how long kwokctl waits for the components (default 180);
 * `onSpawn`, given the kwokctl process (its own process group) as soon as it starts.
 */
export async function createReplica(
  dir: string,
  name: string,
  binaries: Record<string, string>,
  opts: { timeoutSeconds?: number; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<Replica> {
  const timeoutSeconds = opts.timeoutSeconds ?? 180;
  const work = replicaWorkdir(dir, name);
  fs.mkdirSync(work, { recursive: true, mode: 0o700 });
  const config = path.join(work, `${name}.kwokctl.yaml`);
  fs.writeFileSync(config, replicaKwokctlConfig(), { mode: 0o600 });
  const kubeconfig = path.join(dir, `${name}.kubeconfig`);
  const args = [
    "--config",
    config,
    "create",
    "cluster",
    "--name",
    name,
    "--runtime",
    "binary",
    "--kubeconfig",
    kubeconfig,
    "--kube-apiserver-binary",
    binaries["kube-apiserver"],
    "--kube-controller-manager-binary",
    binaries["kube-controller-manager"],
    "--kube-scheduler-binary",
    binaries["kube-scheduler"],
    "--etcd-binary",
    binaries["etcd"],
    "--kwok-controller-binary",
    binaries["kwok"],
    "--wait",
    `${timeoutSeconds}s`,
  ];
  const log = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn(binaries["kwokctl"], args, {
      env: { ...process.env, KWOK_WORKDIR: work },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: a caller that stops early kills it, and what it started, as one.
      detached: true,
    });
    opts.onSpawn?.(child);
    let text = "";
    child.stdout.on("data", (d: Buffer) => (text += d.toString()));
    child.stderr.on("data", (d: Buffer) => (text += d.toString()));
    child.on("error", (e) => resolve({ code: 1, text: e.message }));
    child.on("exit", (code) => resolve({ code, text }));
  });
  if (log.code !== 0) {
    const tail = log.text.trim().split("\n").slice(-5).join("\n");
    throw new Error(`kwokctl could not create the replica ${name}: ${tail || `exit ${log.code}`}`);
  }
  const context = `kwok-${name}`;
  const doc = yaml.load(fs.readFileSync(kubeconfig, "utf8")) as {
    clusters?: { name: string; cluster?: { server?: string } }[];
  };
  const server = doc.clusters?.find((c) => c.name === context)?.cluster?.server ?? "";
  return { name, kubeconfig, context, server };
}

/** The replicas under `dir`: their names (one kwokctl work directory each). */
function replicaNames(dir: string): string[] {
  const root = path.join(dir, "kwok");
  return fs.existsSync(root) ? fs.readdirSync(root) : [];
}

/**
 * The process ids kwokctl recorded for the replicas under `dir` (`<work>/clusters/<name>/pids/*.pid`). Reads only
 * those files.
 */
export function replicaPids(dir: string): number[] {
  const pids: number[] = [];
  for (const name of replicaNames(dir)) {
    const pidDir = path.join(replicaWorkdir(dir, name), "clusters", name, "pids");
    if (!fs.existsSync(pidDir)) continue;
    for (const f of fs.readdirSync(pidDir)) {
      const n = Number(fs.readFileSync(path.join(pidDir, f), "utf8").trim());
      if (Number.isInteger(n) && n > 0) pids.push(n);
    }
  }
  return pids;
}

/**
 * Stops every replica under `dir` and removes `dir` (synchronous, so it also runs from a signal handler or an
 * `exit` listener): SIGKILL to every component kwokctl recorded (a throwaway cluster needs no graceful stop, and a
 * replica whose creation was interrupted may have no kwokctl record yet: `kwokctl delete cluster` then), then the
 * directory. Never throws; returns the pids it killed.
 */
export function deleteReplicas(dir: string, kwokctl = "kwokctl"): number[] {
  const killed: number[] = [];
  for (const pid of replicaPids(dir)) {
    try {
      process.kill(pid, "SIGKILL");
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  for (const name of replicaNames(dir)) {
    if (fs.existsSync(path.join(replicaWorkdir(dir, name), "clusters", name, "pids"))) continue;
    spawnSync(kwokctl, ["delete", "cluster", "--name", name], {
      env: { ...process.env, KWOK_WORKDIR: replicaWorkdir(dir, name) },
      stdio: "ignore",
      timeout: 30000,
    });
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return killed;
}
