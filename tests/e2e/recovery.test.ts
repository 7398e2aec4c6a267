/**
 * End to end: interrupted and failed runs of the dev control-plane stack converge on the next
 * `pulumi up`, with the real `pulumi` CLI against the local kwok cluster nvcf-dev (scripts/cluster.sh up), in a
 * private copy of the project with a fresh local state backend.
 *
 * The stack is the dev control plane with the releases these cases do not need turned off through config
 * (observability, rate limiter, state metrics; no GPU clusters), and a 60 s Helm timeout (the least the config takes) (bounds the failed
 * install and any wait for an orphaned operation). Every case interrupts or fails the install of
 * `openbao-server`, the release whose hooks make a second install hardest: a pre-install unseal Secret
 * (delete policy `hook-failed`, survives a rolled-back install) and an install-only post-install Job.
 *
 * Order: clean run (the reference) → drift by `helm upgrade`, seen by `pulumi refresh`, undone by `pulumi up`
 * → destroy; failed install, fixed config → destroy; Ctrl-C (SIGINT to the CLI's process group) → destroy;
 * SIGKILL of the CLI → destroy; the API server killed mid-install (its port held by a stand-in that resets
 * every connection, so that no other local cluster takes it) and started again by kwokctl. After each case the
 * next run must reach the reference: the same deployed releases at the same chart versions (Helm's storage
 * Secrets), no release left pending or failed, no pending operation in the Pulumi state, a preview with no
 * changes, and every install-only hook Job completed as often as INSTALL_HOOKS allows (the job controller's
 * `Completed` events): a data-initialising hook exactly once; a read-only check once per install of its
 * release, i.e. once more when the interrupted run's install of that release was undone (Helm's records right
 * after the interrupted run say which), counted once that run's hook Jobs have settled.
 */
import { type ChildProcess, spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { releaseSpec } from "../../catalog/releases";
import { readHelmRelease } from "../../kube/helmRecords";
import { LOCAL_API_DIR, copyProject, extendedTest } from "./project";

const CACHE = process.env["NVCF_CACHE"] ?? path.join(os.homedir(), ".cache/nvcf-pulumi");
const LOCAL = process.env["NVCF_LOCAL_DIR"] ?? CACHE;
const KUBECONFIG = path.join(LOCAL, "clusters/kubeconfig");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-recovery-"));
const state = path.join(work, ".state");
const CONTEXT = "kwok-nvcf-dev";
const STACK = "dev";
const HELM = process.env["NVCF_HELM"] ?? "helm";

const env: NodeJS.ProcessEnv = {
  ...process.env,
  PULUMI_BACKEND_URL: `file://${state}`,
  PULUMI_CONFIG_PASSPHRASE: "nvcf-dev-local-passphrase",
  KUBECONFIG,
  KWOK_WORKDIR: path.join(LOCAL, "kwok"),
  NVCF_CLI_ICMS_DIR: path.join(work, ".icms"),
  NVCF_CLI_API_DIR: LOCAL_API_DIR,
  PULUMI_SKIP_UPDATE_CHECK: "true",
  PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
};

function run(cmd: string, args: string[], allowFail = false): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd: work, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (!allowFail && r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(" ")} exited ${r.status}${r.error ? ` (${r.error.message})` : ""}\n` +
        `${(r.stdout ?? "").slice(-6000)}\n${(r.stderr ?? "").slice(-6000)}`,
    );
  }
  return r;
}
const pulumiArgs = (...args: string[]) => [...args, "-s", STACK, "--non-interactive"];
const pulumi = (...args: string[]) => run("pulumi", pulumiArgs(...args));
const pulumiMayFail = (...args: string[]) => run("pulumi", pulumiArgs(...args), true);
const up = () => pulumi("up", "--yes", "--skip-preview");
const kubectl = (...args: string[]) => run("kubectl", ["--context", CONTEXT, ...args]).stdout;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const output = (r: SpawnSyncReturns<string>) => `${r.stdout}\n${r.stderr}`;

/* eslint-disable @typescript-eslint/no-explicit-any */
/** Helm's storage records of the cluster: one per release revision. */
function helmRecords(): { ns: string; name: string; revision: number; status: string; payload: any }[] {
  const list = JSON.parse(kubectl("get", "secrets", "-A", "-l", "owner=helm", "-o", "json")).items as any[];
  return list.map((s) => ({
    ns: s.metadata.namespace,
    name: s.metadata.labels.name,
    revision: Number(s.metadata.labels.version),
    status: s.metadata.labels.status,
    payload: s.data?.release,
  }));
}

/** Each release's latest revision: `ns/name` → `status chart@version` (from `records`, by default read now). */
function releaseSummary(records = helmRecords()): Record<string, string> {
  const latest = new Map<string, ReturnType<typeof helmRecords>[number]>();
  for (const r of records) {
    const k = `${r.ns}/${r.name}`;
    if ((latest.get(k)?.revision ?? 0) < r.revision) latest.set(k, r);
  }
  const out: Record<string, string> = {};
  for (const [k, r] of [...latest].sort(([a], [b]) => a.localeCompare(b))) {
    const chart = readHelmRelease(r.payload)?.chart?.metadata;
    out[k] = `${r.status} ${chart?.name}@${chart?.version}`;
  }
  return out;
}

/**
 * Install-only hook Jobs (post-/pre-install, not upgrade) the deployed releases declare: `ns/job` → `ns/release`
 * (from `records`, by default read now).
 */
function installOnlyHookJobs(records = helmRecords()): Record<string, string> {
  const jobs: [string, string][] = [];
  for (const r of records.filter((x) => x.status === "deployed")) {
    for (const h of (readHelmRelease(r.payload)?.hooks ?? []) as any[]) {
      const ev: string[] = h.events ?? [];
      const install = ev.some((e) => /install/.test(e));
      const upgrade = ev.some((e) => /upgrade/.test(e));
      if (h.kind === "Job" && install && !upgrade) jobs.push([`${r.ns}/${h.name}`, `${r.ns}/${r.name}`]);
    }
  }
  return Object.fromEntries(jobs.sort(([a], [b]) => a.localeCompare(b)));
}

/** How often each Job completed (the job controller's `Completed` events; deleted Jobs keep theirs). */
function jobCompletions(): Record<string, number> {
  const items = JSON.parse(
    kubectl(
      "get",
      "events",
      "-A",
      "--field-selector",
      "reason=Completed,involvedObject.kind=Job",
      "-o",
      "json",
    ),
  ).items as any[];
  const n: Record<string, number> = {};
  for (const e of items) {
    const k = `${e.involvedObject.namespace}/${e.involvedObject.name}`;
    n[k] = (n[k] ?? 0) + (e.count ?? 1);
  }
  return n;
}

/**
 * The hook completions once the interrupted run's hook Jobs have settled. A cancelled Helm leaves the hook Job it
 * created behind, and the job controller may finish it after the CLI has exited: counted too early, that
 * completion would look like a second run by the recovery run. Waits (at most `seconds`) until no Job of
 * INSTALL_HOOKS is still active and each completed one has its `Completed` event, then returns jobCompletions().
 */
async function settledCompletions(seconds = 120): Promise<Record<string, number>> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const jobs = (JSON.parse(kubectl("get", "jobs", "-A", "-o", "json")).items as any[]).filter(
      (j) => `${j.metadata.namespace}/${j.metadata.name}` in INSTALL_HOOKS,
    );
    const finished = (j: any, type: string) =>
      ((j.status?.conditions ?? []) as any[]).some((c) => c.type === type && c.status === "True");
    const active = jobs.filter((j) => !finished(j, "Complete") && !finished(j, "Failed"));
    // The events are read only once nothing is running any more.
    const done = active.length === 0 ? jobCompletions() : {};
    const unrecorded = jobs.filter(
      (j) => finished(j, "Complete") && !done[`${j.metadata.namespace}/${j.metadata.name}`],
    );
    if (active.length === 0 && unrecorded.length === 0) return done;
    if (Date.now() > deadline) {
      throw new Error(
        `hook Jobs still running after ${seconds} s: ${[...active, ...unrecorded].map((j) => j.metadata.name).join(", ")}`,
      );
    }
    await sleep(500);
  }
}

function pendingOperations(): string[] {
  const d = JSON.parse(pulumi("stack", "export").stdout).deployment;
  return ((d.pending_operations ?? []) as any[]).map((p) => `${p.type} ${p.resource.urn}`);
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * What each install-only hook Job of the stack does, which decides how often it may complete across an
 * interrupted run and the run that recovers it (docs/recovery.md, "What converged means"):
 * - `initialises data`: exactly once, whatever happened. A second run would work on data the first one
 *   initialised (OpenBao's initialisation refuses to run on an initialised OpenBao), so recovery refuses rather
 *   than install such a release again (planRelease rules 2 and 5).
 * - `read-only check`: once per install of its release. When the interrupted run's install was undone (Helm
 *   holds no deployed record of the release right after it: rolled back by `atomic`, a rollback that itself
 *   failed, or a record left pending or failed), the next run installs the release afresh and the check runs
 *   once more; a release that was not installed again runs it exactly once.
 * The clean run fails when a chart gains an install-only hook Job not listed here: classify it first.
 */
const INSTALL_HOOKS: Record<string, "initialises data" | "read-only check"> = {
  "vault-system/openbao-server-initialize-cluster": "initialises data",
  "cert-manager/cert-manager-startupapicheck": "read-only check",
};

/** What a clean run leaves; filled by the first test. */
let reference: { releases: Record<string, string>; hookJobs: Record<string, string> };

/** What an interrupted run left: its hook completions, and the releases whose install was undone (`ns/name`). */
interface Interrupted {
  completions: Record<string, number>;
  reinstalled: Set<string>;
}

/**
 * The releases whose install the interrupted run undid, from Helm's own records: those of the clean run's
 * releases that have no deployed record right after the interrupted run (`after` is releaseSummary() then),
 * whichever way it ended (rolled back by `atomic`, a rollback that itself failed, a record left pending or
 * failed). The next run installs exactly these afresh, so only their install hooks can run again.
 */
function undoneInstalls(after: Record<string, string>): Set<string> {
  return new Set(Object.keys(reference.releases).filter((k) => !/^deployed /.test(after[k] ?? "")));
}

/**
 * What an interrupted run left, read before the next run: Helm's records right after it (`releases`, as
 * releaseSummary()), then its hook completions once its hook Jobs have settled, and the installs it undid.
 */
async function afterInterruption(): Promise<{ releases: Record<string, string>; interrupted: Interrupted }> {
  const releases = releaseSummary();
  const completions = await settledCompletions();
  return { releases, interrupted: { completions, reinstalled: undoneInstalls(releases) } };
}

/**
 * Fails unless the cluster and the state are what the clean run left: the same deployed releases and chart
 * versions, no pending operation, a preview without changes, and every install-only hook completed as often as
 * INSTALL_HOOKS allows (once; a read-only check of a release whose interrupted install was undone: once more).
 */
function expectConverged(interrupted?: Interrupted) {
  const records = helmRecords();
  expect(releaseSummary(records)).toEqual(reference.releases);
  expect(pendingOperations()).toEqual([]);
  const done = jobCompletions();
  expect(installOnlyHookJobs(records)).toEqual(reference.hookJobs);
  for (const [job, release] of Object.entries(reference.hookJobs)) {
    const before = interrupted?.completions[job] ?? 0;
    expect(before).toBeLessThanOrEqual(1); // an interrupted run installs a release at most once
    const again =
      INSTALL_HOOKS[job] === "read-only check" && interrupted?.reinstalled.has(release) ? before : 0;
    expect([job, done[job] ?? 0]).toEqual([job, 1 + again]);
  }
  pulumi("preview", "--expect-no-changes");
}

/** A `pulumi up` running in its own process group (as in a terminal), to be interrupted. */
function startUp(): { child: ChildProcess; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn("pulumi", pulumiArgs("up", "--yes", "--skip-preview"), {
    cwd: work,
    env,
    detached: true,
  });
  let out = "";
  child.stdout?.on("data", (b) => (out += b));
  child.stderr?.on("data", (b) => (out += b));
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, out })),
  );
  return { child, done };
}

/** Polls until `probe` (kubectl arguments) prints something; fails after `seconds`. */
async function waitFor(probe: string[], seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const r = spawnSync("kubectl", ["--context", CONTEXT, ...probe], { env, encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for kubectl ${probe.join(" ")}`);
}
const UNSEAL_SECRET = [
  "get",
  "secret",
  "openbao-server-unseal",
  "-n",
  "vault-system",
  "-o",
  "name",
  "--ignore-not-found",
];

/** Process groups this suite started; killed at the end (a killed CLI leaves its plugins running). */
const groups: number[] = [];

beforeAll(() => {
  copyProject(work);
  fs.mkdirSync(state, { recursive: true });
  fs.mkdirSync(path.join(work, ".icms"), { recursive: true });
  run("pulumi", ["stack", "init", STACK, "--non-interactive"]);
  for (const [k, v] of [
    ["observability.profile", "disabled"],
    ["rateLimiter.enabled", "false"],
    ["stateMetrics.enabled", "false"],
    ["charts.timeoutSeconds", "60"],
  ])
    pulumi("config", "set", "--path", `nvcf:${k}`, v);
  pulumi("config", "rm", "nvcf:gpuClusters");
});

afterAll(() => {
  for (const g of groups) {
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      // already gone
    }
  }
  pulumiMayFail("cancel", "--yes");
  pulumiMayFail("destroy", "--yes", "--skip-preview");
  fs.rmSync(work, { recursive: true, force: true });
});

/** Each interrupted case starts from an empty stack, whatever the case before it left. */
function emptyStack() {
  pulumiMayFail("cancel", "--yes");
  pulumiMayFail("refresh", "--clear-pending-creates", "--yes");
  pulumiMayFail("config", "rm", "nvcf:releaseValues");
  pulumi("destroy", "--yes", "--skip-preview");
  expect(helmRecords()).toEqual([]);
}

test("a clean run: every enabled release deployed once, install-only hooks ran once", () => {
  up();
  reference = { releases: releaseSummary(), hookJobs: installOnlyHookJobs() };
  expect(Object.keys(reference.releases)).toEqual(
    expect.arrayContaining(["vault-system/openbao-server", "cassandra-system/cassandra", "nvcf/api"]),
  );
  for (const s of Object.values(reference.releases)) expect(s).toMatch(/^deployed /);
  // The install-only hooks of these charts: OpenBao's cluster initialisation and cert-manager's API check.
  expect(Object.keys(reference.hookJobs)).toEqual(Object.keys(INSTALL_HOOKS).sort());
  // The program's recovery knows the read-only checks from the catalog (`rerunnableInstallHooks`); it agrees.
  for (const [job, release] of Object.entries(reference.hookJobs)) {
    const rerunnable = releaseSpec(release.split("/")[1]).rerunnableInstallHooks ?? [];
    expect([job, rerunnable.includes(job.split("/")[1])]).toEqual([
      job,
      INSTALL_HOOKS[job] === "read-only check",
    ]);
  }
  expectConverged();
}, 600_000);

test("pulumi refresh shows a manual helm upgrade of one release as drift, and pulumi up undoes it", () => {
  const values = () =>
    JSON.parse(
      run(HELM, ["--kube-context", CONTEXT, "get", "values", "reval", "-n", "nvcf", "-o", "json"]).stdout,
    );
  expect(values().reval.securityContext.runAsUser).toBe(65532);
  run(HELM, [
    "--kube-context",
    CONTEXT,
    "upgrade",
    "reval",
    path.join(work, "tests/charts/helm-reval"),
    "-n",
    "nvcf",
    "--reuse-values",
    "--set",
    "reval.securityContext.runAsUser=1000",
  ]);
  const refresh = pulumi("refresh", "--yes", "--diff");
  expect(refresh.stdout).toMatch(/~ kubernetes:helm\.sh\/v3:Release: \(update\)[\s\S]*nvcf-reval/);
  expect(refresh.stdout).toMatch(/runAsUser\s*: 65532 => 1000/);
  const preview = pulumi("preview", "--diff");
  expect(preview.stdout).toMatch(/runAsUser\s*: 1000 => 65532/);
  expect(preview.stdout).toMatch(/1 to update/);
  up();
  expect(values().reval.securityContext.runAsUser).toBe(65532);
  expectConverged();
}, 600_000);

test("a failed install (a bad value for openbao-server) converges once the config is fixed", () => {
  emptyStack();
  // No node carries this label: the agent injector's pods stay Pending, Helm's wait times out after
  // charts.timeoutSeconds and `atomic` rolls the install back. (A selector on the server would not do: its
  // StatefulSet's update strategy is OnDelete, which Helm does not wait for.)
  pulumi(
    "config",
    "set",
    "--path",
    'nvcf:releaseValues["openbao-server"].openbao.injector.nodeSelector.pool',
    "none",
  );
  const failed = pulumiMayFail("up", "--yes", "--skip-preview");
  expect(failed.status).not.toBe(0);
  expect(output(failed)).toMatch(
    /Release \(nvcf-openbao-server\):\s+error: release openbao-server failed, and has been uninstalled due to atomic being set/,
  );
  // The rolled-back install left its pre-install unseal Secret: a plain reinstall fails with "already exists".
  expect(kubectl(...UNSEAL_SECRET)).toMatch(/openbao-server-unseal/);
  pulumi("config", "rm", "nvcf:releaseValues");
  const fixed = up();
  expect(output(fixed)).toMatch(
    /warning: Helm release vault-system\/openbao-server is not installed, but an earlier install .* left hook objects behind .*\(secret\/openbao-server-unseal\).*: deleted secret\/openbao-server-unseal in namespace vault-system/,
  );
  expectConverged();
}, 900_000);

test("Ctrl-C (SIGINT to the CLI's process group) during an install: the next pulumi up converges", async () => {
  emptyStack();
  const { child, done } = startUp();
  groups.push(child.pid as number);
  await waitFor(UNSEAL_SECRET, 300); // OpenBao's pre-install hook ran: its install is under way
  process.kill(-(child.pid as number), "SIGINT");
  const first = await done;
  expect(first.code).not.toBe(0);
  // Which releases were in flight varies: each one Pulumi cancelled was rolled back (atomic) and says so.
  expect(first.out).toMatch(
    /error: release \S+ failed, and has been uninstalled due to atomic being set: context canceled/,
  );
  const { interrupted } = await afterInterruption();
  const next = up();
  expect(output(next)).toMatch(
    /warning: Helm release vault-system\/openbao-server .*(deleted secret\/openbao-server-unseal|imported into the state)/,
  );
  expectConverged(interrupted);
}, 900_000);

test("SIGKILL of the CLI during an install: pulumi cancel (as the CLI says), then pulumi up converges", async () => {
  emptyStack();
  const { child, done } = startUp();
  groups.push(child.pid as number);
  await waitFor(UNSEAL_SECRET, 300); // OpenBao's install is under way: its pre-install hook ran
  process.kill(child.pid as number, "SIGKILL"); // the CLI only: its plugins keep running, as after a crash
  await done;
  const locked = pulumiMayFail("up", "--yes", "--skip-preview");
  expect(locked.status).not.toBe(0);
  expect(output(locked)).toMatch(
    /the stack is currently locked by 1 lock\(s\)\. .*delete the lock file with `pulumi cancel`/,
  );
  pulumi("cancel", "--yes");
  const next = up();
  // The orphaned provider finished the install; the program imports it instead of installing it again.
  expect(output(next)).toMatch(
    /warning: Helm release vault-system\/openbao-server is deployed \(revision 1\) but the Pulumi state does not hold it \(the CLI stopped while it was being created\); it is imported/,
  );
  expect(next.stdout).toMatch(/= +kubernetes:helm\.sh\/v3:Release nvcf-openbao-server imported/);
  // The engine keeps the killed run's pending creates until a refresh drops them; the program prints the step.
  const step = /drop the entries with: pulumi refresh --clear-pending-creates --yes --stack (\S+)/.exec(
    output(next),
  );
  expect(step).not.toBeNull();
  run("pulumi", [
    "refresh",
    "--clear-pending-creates",
    "--yes",
    "--stack",
    (step as RegExpExecArray)[1],
    "--non-interactive",
  ]);
  expectConverged();
}, 900_000);

/**
 * Holds a TCP port of 127.0.0.1 and resets every connection to it, until closed; resolves once bound (retrying
 * while a killed process still holds the port). On a machine with other local clusters a freed port is taken
 * by the next cluster created, and the API server could not come back on it.
 */
async function holdPort(port: number): Promise<net.Server> {
  for (let i = 0; i < 500; i++) {
    const server = net.createServer((socket) => socket.resetAndDestroy());
    const bound = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (bound) return server;
    await sleep(10);
  }
  throw new Error(`port ${port} stayed in use after the API server was killed`);
}

/**
 * The block of the CLI's Diagnostics section under `header` (a resource's `type (name):` line): that line and the
 * lines indented under it, up to the next resource's header or the next section; "" when there is none.
 */
function diagnosticBlock(out: string, header: string): string {
  const lines = out.split("\n");
  const section = lines.indexOf("Diagnostics:");
  const start = section < 0 ? -1 : lines.indexOf(`  ${header}:`, section);
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && /^ {0,2}\S/.test(l));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join("\n")
    .trimEnd();
}

extendedTest(
  "the API server lost during an install, then back: pulumi up fails readably, the next pulumi up converges",
  async () => {
    emptyStack();
    const server = kubectl(
      "config",
      "view",
      "-o",
      `jsonpath={.clusters[?(@.name=="${CONTEXT}")].cluster.server}`,
    );
    const port = Number(new URL(server).port);
    const { child, done } = startUp();
    groups.push(child.pid as number);
    // openbao-server's install has started (Helm wrote its pending-install record): the API server goes away
    // (killed; a stand-in holds its port and resets every connection until it is started again).
    await waitFor(
      ["get", "secret", "-n", "vault-system", "-l", "owner=helm,name=openbao-server", "-o", "name"],
      300,
    );
    const pidFile = path.join(LOCAL, "kwok/clusters/nvcf-dev/pids/kube-apiserver.pid");
    process.kill(Number(fs.readFileSync(pidFile, "utf8").trim()), "SIGKILL");
    const holder = await holdPort(port);
    const first = await done;
    await new Promise((resolve) => holder.close(resolve));
    // Back: kwokctl starts the components that are not running (here the API server only: the local clusters
    // run the controller manager and the scheduler without leader election, so they ride out the outage).
    run("kwokctl", ["start", "cluster", "--name", "nvcf-dev", "--wait", "2m"]);
    await waitFor(["get", "--raw", "/readyz"], 120); // serving again, as a user would check before re-running
    expect(first.code).not.toBe(0);
    // Helm's own words, in openbao-server's own block (its client retries for about 30 s before giving up). Which
    // words depends on where each request was when the API server died: a request in flight reads a reset or an
    // EOF (the kernel closed the killed server's socket), a dial in the moment before the stand-in holds the port
    // is refused, a dial after it is reset.
    const block = diagnosticBlock(first.out, "kubernetes:helm.sh/v3:Release (nvcf-openbao-server)");
    expect(block).toMatch(/^ {4}error: /);
    expect(block).toMatch(
      /connection reset by peer|connection refused|\bEOF\b|broken pipe|client connection lost/,
    );
    const { releases, interrupted } = await afterInterruption();
    expect(releases["vault-system/openbao-server"]).toMatch(/^pending-install /);
    const next = up();
    expect(output(next)).toMatch(
      /warning: Helm release vault-system\/openbao-server was left pending-install by an interrupted install that never finished; its records are removed/,
    );
    expectConverged(interrupted);
  },
  900_000,
);
