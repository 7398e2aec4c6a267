/**
 * `nvcf rehearse --env <env>` (also `nvcf up --rehearse` and `nvcf upgrade --rehearse`): runs a change on
 * throwaway replicas of the environment's clusters before it touches them, and reports what the real run would do.
 *
 * 1. Each cluster the selected stacks target (their `nvcf:kubernetes.context`, else the current context) gets a
 *    replica (kube/replica.ts: local kube-apiserver, etcd, controller manager and scheduler, kwok for kubelets, on
 *    127.0.0.1), seeded from the live cluster with GET requests only (kube/seed.ts: the namespaces the stacks
 *    touch, their objects and Helm release records, claims, quotas, admission policies, CRDs, nodes).
 * 2. A private copy of the project (links to its files; its own copies of the stack files) and a private file
 *    state backend holding each stack's exported state (`pulumi stack export` of the real backend, read only).
 * 3. The same `nvcf up` (or `nvcf upgrade --to`) runs there with a kubeconfig whose contexts, named as the real
 *    ones, reach the replicas. What the replica cannot do is stood in for and reported: in-pod commands of the
 *    upgrade steps are journaled instead of run (`NVCFPULUMI_REHEARSAL`, components/scripts/lib.sh), nvcf-cli
 *    is replaced by a stand-in that refuses every call (the NVCF API is not replicated), verification of running
 *    workloads is skipped, and the GPU clusters' access handed to nvcf-cli is read from the real kubeconfig
 *    (`NVCF_REHEARSAL_SOURCE_KUBECONFIG`, stacks/control.ts), so registrations see the same clusters.
 * 4. A report: each changed release's Helm revision and status in the replica, what was not rehearsed (journal,
 *    admission webhooks, kinds that could not be read), and on failure what the failed run left behind.
 * 5. The replicas and every file are deleted, also on Ctrl-C (SIGINT) or SIGTERM.
 *
 * Exit code: the rehearsed run's (EXIT.ok when it passed); EXIT.usage when a stack cannot be rehearsed (its cluster
 * is given as a kubeconfig text, or nvcf-cli by an absolute path); EXIT.internal when a replica cannot be made.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import * as yaml from "js-yaml";
import { ApiServer } from "../../kube/apiServer";
import { mapBounded } from "../../kube/bounded";
import {
  ambientKubeconfigView,
  kubeContextEntries,
  type KubeconfigView,
  minifyKubeconfig,
  readAmbientKubeconfigs,
} from "../../kube/kubeconfig";
import { createReplica, deleteReplicas, findReplicaBinaries, type Replica } from "../../kube/replica";
import { readSource, replicaCaughtUp, seedReplica, type SourceSnapshot } from "../../kube/seed";
import { CliError } from "../report";
import { EXIT, type Environment, type ExitCode, type StackFile } from "../types";
import { selectStacks } from "./select";

/** The environment variable that marks a rehearsal's run; its value is the journal file of what was not rehearsed. */
export const REHEARSAL_JOURNAL_ENV = "NVCFPULUMI_REHEARSAL";
/** The kubeconfig (list) the control plane reads its GPU clusters' access from during a rehearsal. */
export const REHEARSAL_SOURCE_KUBECONFIG_ENV = "NVCF_REHEARSAL_SOURCE_KUBECONFIG";

/** True inside a rehearsal's run (`nvcf rehearse` started this process). */
export function inRehearsal(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!env[REHEARSAL_JOURNAL_ENV];
}

/** Options of `nvcf rehearse` (and of `--rehearse` on up and upgrade). */
export interface RehearseOptions {
  stack?: string[];
  /** Rehearse `nvcf upgrade --to <bundle>` instead of `nvcf up`. */
  to?: string;
  /** With `to`: the `--set` changes that go with the move. */
  set?: string[];
  parallel: number;
  policyPack?: string[];
  /** Rehearse `nvcf up --refresh` (the replicas' objects are the live ones, so the refresh sees the same drift). */
  refresh?: boolean;
  /** The kubeconfig the live clusters are read through (a read-only identity is enough). Default: $KUBECONFIG. */
  kubeconfig?: string;
}

type Obj = Record<string, unknown>;

/**
 * The kubeconfig context a stack deploys to, or why it cannot be rehearsed (pure). Input: the stack file and the
 * ambient kubeconfig's view. A stack that reaches its cluster through `nvcf:kubeconfig` (a kubeconfig text) or an
 * EKS cluster (`nvcf:aws.eksClusterName`) cannot be pointed at a replica by a context.
 */
export function stackContext(s: StackFile, view: KubeconfigView): { context: string } | { problem: string } {
  const c = s.config;
  if (c["kubeconfig"] !== undefined || (c["aws"] as Obj | undefined)?.["eksClusterName"] !== undefined)
    return {
      problem:
        `stack ${s.stack} reaches its cluster through nvcf:kubeconfig or nvcf:aws.eksClusterName; a rehearsal points ` +
        `kubeconfig contexts at replicas. Fix: give the stack nvcf:kubernetes.context (a context of your kubeconfig)`,
    };
  const ctx = (c["kubernetes"] as Obj | undefined)?.["context"];
  const context = typeof ctx === "string" && ctx ? ctx : view.currentContext;
  if (!context) return { problem: `stack ${s.stack}: no nvcf:kubernetes.context and no current context` };
  if (!(context in view.contexts))
    return {
      problem: `stack ${s.stack}: kubeconfig context "${context}" not found (looked in ${view.searched.join(", ")})`,
    };
  return { context };
}

/**
 * The namespaces a stack's resources live in, from its exported state (pure): Namespace resources, Helm releases'
 * namespaces and every Kubernetes object's `metadata.namespace`.
 */
export function stateNamespaces(exported: Obj | undefined): Set<string> {
  const out = new Set<string>();
  const resources = ((exported?.["deployment"] as Obj | undefined)?.["resources"] as Obj[] | undefined) ?? [];
  for (const r of resources) {
    const type = String(r["type"] ?? "");
    if (!type.startsWith("kubernetes:")) continue;
    const o = (r["outputs"] ?? r["inputs"] ?? {}) as Obj;
    const m = (o["metadata"] ?? {}) as Obj;
    if (type === "kubernetes:core/v1:Namespace" && typeof m["name"] === "string") out.add(m["name"]);
    if (type === "kubernetes:helm.sh/v3:Release" && typeof o["namespace"] === "string")
      out.add(o["namespace"]);
    if (typeof m["namespace"] === "string") out.add(m["namespace"]);
  }
  return out;
}

/**
 * A stack's exported state with its Kubernetes providers pointed at the rehearsal's kubeconfig (pure; a new
 * object): the provider records the kubeconfig file it was configured with (`kubeconfig`, a path, when the stack
 * gives a context), and a kubeconfig whose active cluster differs makes the provider, and so every object, a
 * replacement. The rehearsal's file names the same contexts, so with it recorded the run sees the providers as the
 * real run does: unchanged.
 */
export function repointProviders(exported: Obj, kubeconfigPath: string): Obj {
  const out = structuredClone(exported);
  const resources = ((out["deployment"] as Obj | undefined)?.["resources"] as Obj[] | undefined) ?? [];
  for (const r of resources) {
    if (!String(r["type"] ?? "").startsWith("pulumi:providers:kubernetes")) continue;
    for (const side of ["inputs", "outputs"]) {
      const props = r[side] as Obj | undefined;
      if (props && typeof props["kubeconfig"] === "string") props["kubeconfig"] = kubeconfigPath;
    }
  }
  return out;
}

/**
 * The rehearsal's kubeconfig (YAML text, pure): one context per real context name, reaching that context's replica
 * with the replica's own cluster and user entries. Input: real context → the replica's kubeconfig text and context;
 * the current context (kept when a replica stands for it, else the first replica's: what takes the current context
 * reaches a replica, never a live cluster); `others`, real contexts kept as they are (context → a self-contained kubeconfig of it,
 * kube/kubeconfig.ts `minifyKubeconfig`).
 */
export function rehearsalKubeconfig(
  replicas: Map<string, { kubeconfigText: string; context: string }>,
  current?: string,
  others: Map<string, string> = new Map(),
): string {
  const clusters: Obj[] = [];
  const users: Obj[] = [];
  const contexts: Obj[] = [];
  /** Context `ctx` of the file, reaching what context `from` of `text` reaches (its entries renamed `name`). */
  const add = (ctx: string, text: string, from: string, name: string, missing: string) => {
    const found = kubeContextEntries([yaml.load(text)], from);
    if (!found?.clusterEntry || !found.userEntry) throw new Error(missing);
    clusters.push({ ...found.clusterEntry, name });
    users.push({ ...found.userEntry, name });
    contexts.push({ name: ctx, context: { cluster: name, user: name } });
  };
  for (const [ctx, text] of others)
    add(ctx, text, ctx, `source-${ctx}`, `the kubeconfig of context ${ctx} is not complete`);
  for (const [ctx, r] of replicas)
    add(
      ctx,
      r.kubeconfigText,
      r.context,
      `rehearsal-${ctx}`,
      `the replica's kubeconfig has no context ${r.context}`,
    );
  const cur = current && replicas.has(current) ? current : [...replicas.keys()][0];
  return yaml.dump({ apiVersion: "v1", kind: "Config", clusters, users, contexts, "current-context": cur });
}

/** A Helm release's latest record: revision and status (from the record Secret's labels). */
export interface ReleaseRecord {
  namespace: string;
  name: string;
  revision: number;
  status: string;
}

/** The latest record of each Helm release among Secrets (pure): labels `owner=helm`, `name`, `version`, `status`. */
export function latestReleases(secrets: Obj[]): Map<string, ReleaseRecord> {
  const out = new Map<string, ReleaseRecord>();
  for (const s of secrets) {
    const m = (s["metadata"] ?? {}) as Obj;
    const l = (m["labels"] ?? {}) as Record<string, string>;
    if (l["owner"] !== "helm" || !l["name"]) continue;
    const rec = {
      namespace: String(m["namespace"]),
      name: l["name"],
      revision: Number(l["version"]),
      status: l["status"] ?? "?",
    };
    const k = `${rec.namespace}/${rec.name}`;
    const had = out.get(k);
    if (!had || had.revision < rec.revision) out.set(k, rec);
  }
  return out;
}

/**
 * The report's lines for one cluster's releases (pure): each release whose latest record moved or is not
 * `deployed`, as `release <ns>/<name>: revision <a> (<status>) -> <b> (<status>)`, new ones as `installed`, then a
 * count of the unchanged ones.
 */
export function releaseLines(
  before: Map<string, ReleaseRecord>,
  after: Map<string, ReleaseRecord>,
): string[] {
  const lines: string[] = [];
  let unchanged = 0;
  for (const [k, a] of [...after].sort(([x], [y]) => x.localeCompare(y))) {
    const b = before.get(k);
    if (b && b.revision === a.revision && a.status === "deployed") {
      unchanged++;
      continue;
    }
    lines.push(
      b
        ? `release ${k}: revision ${b.revision} (${b.status}) -> ${a.revision} (${a.status})`
        : `release ${k}: installed, revision ${a.revision} (${a.status})`,
    );
  }
  for (const [k, b] of before)
    if (!after.has(k)) lines.push(`release ${k}: uninstalled (was revision ${b.revision})`);
  if (unchanged) lines.push(`${unchanged} release(s) unchanged`);
  return lines;
}

/**
 * The guard that stands in for nvcf-cli in a rehearsal (shell text): every call fails, saying what it would have
 * called and why, and is noted in the journal.
 */
export function nvcfCliGuard(): string {
  return `#!/usr/bin/env bash
# nvcf-cli's stand-in in a rehearsal: the NVCF API it would call is not replicated, so no call is made.
msg="not rehearsed: nvcf-cli $(printf '%q ' "$@")- it calls the NVCF API, which a rehearsal does not replicate"
echo "$msg" >&2
[ -z "\${${REHEARSAL_JOURNAL_ENV}:-}" ] || printf '%s\\n' "$msg" >>"\$${REHEARSAL_JOURNAL_ENV}"
exit 1
`;
}

/**
 * Replaces the entry at `rel` (a path relative to the project copy `copy`, whose top-level entries link to the real
 * project `real`) with `file`'s text, turning each linked directory on the way into a real directory of links.
 */
export function shadowInCopy(copy: string, real: string, rel: string, text: string): void {
  const parts = rel.split("/").filter((p) => p && p !== ".");
  let dir = copy;
  let realDir = real;
  for (let i = 0; i < parts.length; i++) {
    const entry = path.join(dir, parts[i]);
    const realEntry = path.join(realDir, parts[i]);
    if (i === parts.length - 1) {
      fs.rmSync(entry, { force: true });
      fs.writeFileSync(entry, text, { mode: 0o700 });
      return;
    }
    if (fs.lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink()) {
      fs.rmSync(entry);
      fs.mkdirSync(entry, { mode: 0o700 });
      for (const e of fs.readdirSync(realEntry)) fs.symlinkSync(path.join(realEntry, e), path.join(entry, e));
    } else if (!fs.existsSync(entry)) fs.mkdirSync(entry, { recursive: true, mode: 0o700 });
    dir = entry;
    realDir = realEntry;
  }
}

const out = (l: string) => process.stdout.write(`${l}\n`);

/** Runs a command to completion (no shell); resolves to its exit code and output. */
function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }) {
  const r = spawnSync(cmd, args, { ...opts, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  return {
    code: r.status ?? 1,
    stdout: r.stdout ?? "",
    stderr: (r.stderr ?? "") + (r.error ? r.error.message : ""),
  };
}

/**
 * The command line of the `nvcf up` (or, with `opts.to`, `nvcf upgrade`) a rehearsal runs in its copy of the
 * project (pure). Input: the environment's name, the copy's directory, the rehearsal's kubeconfig and the
 * rehearsal's options. Output: the arguments after the `nvcf` script: always `--yes --plain` (the run is not
 * interactive), `--stack` and `--refresh` only for `up`, `--set` only for `upgrade`, policy packs as absolute paths.
 */
export function rehearsedArgs(
  envName: string,
  project: string,
  kubeconfig: string,
  opts: RehearseOptions,
): string[] {
  return [
    opts.to ? "upgrade" : "up",
    "--env",
    envName,
    "--cwd",
    project,
    "--yes",
    "--plain",
    "--parallel",
    String(opts.parallel),
    "--kubeconfig",
    kubeconfig,
    ...(opts.to ? ["--to", opts.to, ...(opts.set ?? []).flatMap((s) => ["--set", s])] : []),
    ...(!opts.to ? (opts.stack ?? []).flatMap((s) => ["--stack", s]) : []),
    ...(!opts.to && opts.refresh ? ["--refresh"] : []),
    ...(opts.policyPack ?? []).flatMap((pp) => ["--policy-pack", path.resolve(pp)]),
  ];
}

/** Runs the verb (see the module comment). Returns the exit code. */
export async function rehearse(env: Environment, opts: RehearseOptions): Promise<ExitCode> {
  if (opts.to && opts.stack?.length)
    throw new CliError(EXIT.usage, "--stack does not go with --to: an upgrade moves the whole environment");
  if (!opts.to && opts.set?.length)
    throw new CliError(EXIT.usage, "--set goes with --to (the changes that go with a bundle move)");
  const { control, compute } = opts.to
    ? { control: env.control, compute: env.compute }
    : selectStacks(env, opts.stack);
  const selected = [...(control ? [control] : []), ...compute];
  const sourceEnv = { ...process.env, ...(opts.kubeconfig ? { KUBECONFIG: opts.kubeconfig } : {}) };
  const view = ambientKubeconfigView(sourceEnv);

  // What cannot be rehearsed is refused before anything is made.
  const problems: string[] = [];
  const contextOf = new Map<string, string>();
  for (const s of selected) {
    const c = stackContext(s, view);
    if ("problem" in c) problems.push(c.problem);
    else contextOf.set(s.stack, c.context);
  }
  const cli = String((env.control.config["nvcfCli"] as Obj | undefined)?.["path"] ?? "nvcf-cli");
  if (path.isAbsolute(cli))
    problems.push(
      `stack ${env.control.stack}: nvcf:nvcfCli.path is an absolute path (${cli}); a rehearsal puts a stand-in that ` +
        `refuses every call in nvcf-cli's place, at a name on PATH or a path inside the project. Fix: a path relative to the project, or nvcf-cli on PATH`,
    );
  const bins = findReplicaBinaries(process.env["PATH"]);
  if (bins.missing.length)
    problems.push(
      `the replica's programs are not on PATH: ${bins.missing.join(", ")}. Fix: bash scripts/toolchain.sh, then source scripts/env.sh`,
    );
  if (problems.length)
    throw new CliError(
      EXIT.usage,
      `cannot rehearse: ${problems[0]}`,
      problems.map((p) => `cannot rehearse: ${p}`),
    );

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-rehearsal-"));
  fs.chmodSync(dir, 0o700);
  const children = new Set<ChildProcess>();
  const apis: ApiServer[] = [];
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    for (const c of children) {
      try {
        if (c.pid) process.kill(-c.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    for (const a of apis) a.close();
    deleteReplicas(dir, bins.found["kwokctl"]);
  };
  // A second Ctrl-C while the replicas are deleted is ignored (the handler stays installed): the deletion is
  // synchronous and takes about a second.
  const onSignal = (sig: NodeJS.Signals) => {
    if (cleaned) return;
    process.stderr.write(`rehearsal interrupted (${sig}): deleting the replicas and ${dir}\n`);
    cleanup();
    process.exit(128 + (sig === "SIGINT" ? 2 : 15));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.once("exit", cleanup);
  try {
    return await rehearseIn(dir, env, opts, {
      control,
      compute,
      contextOf,
      bins: bins.found,
      view,
      sourceEnv,
      cli,
      children,
      apis,
    });
  } finally {
    cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("exit", cleanup);
  }
}

interface Plan {
  control?: StackFile;
  compute: StackFile[];
  contextOf: Map<string, string>;
  bins: Record<string, string>;
  view: KubeconfigView;
  sourceEnv: NodeJS.ProcessEnv;
  cli: string;
  children: Set<ChildProcess>;
  apis: ApiServer[];
}

async function rehearseIn(dir: string, env: Environment, opts: RehearseOptions, p: Plan): Promise<ExitCode> {
  const t0 = Date.now();
  const what = opts.to ? `nvcf upgrade --to ${opts.to}` : "nvcf up";
  const contexts = [...new Set(p.contextOf.values())].sort();
  out(`rehearsal of ${what} (environment ${env.name}) on replicas of ${contexts.join(", ")}`);

  // The project copy and the stacks' state.
  const project = path.join(dir, "project");
  fs.mkdirSync(project, { mode: 0o700 });
  for (const e of fs.readdirSync(env.projectDir)) {
    if (e === ".git") continue;
    const from = path.join(env.projectDir, e);
    if (/^Pulumi\..+\.ya?ml$/.test(e)) fs.copyFileSync(from, path.join(project, e));
    else fs.symlinkSync(from, path.join(project, e));
  }
  const guard = nvcfCliGuard();
  const guardBin = path.join(dir, "guard");
  fs.mkdirSync(guardBin, { mode: 0o700 });
  fs.writeFileSync(path.join(guardBin, "nvcf-cli"), guard, { mode: 0o700 });
  if (p.cli.includes("/")) shadowInCopy(project, env.projectDir, p.cli, guard);
  else if (p.cli !== "nvcf-cli") fs.writeFileSync(path.join(guardBin, p.cli), guard, { mode: 0o700 });

  // The replicas are made while the state is copied. kwokctl picks each component's port as the first free one from
  // a fixed start, so two replicas made at the same moment can pick the same ports: they are made one after the
  // other (a few seconds each), and read and seeded side by side below.
  const making = new Map<string, Promise<{ replica: Replica; ms: number }>>();
  let previous: Promise<unknown> = Promise.resolve();
  for (const [i, ctx] of contexts.entries()) {
    const t = Date.now();
    const made = previous
      .catch(() => undefined)
      .then(() =>
        createReplica(dir, `nvcf-rh-${process.pid}-${i}`, p.bins, {
          onSpawn: (c) => {
            p.children.add(c);
            c.on("close", () => p.children.delete(c));
          },
        }),
      )
      .then((replica) => ({ replica, ms: Date.now() - t }));
    made.catch(() => undefined); // awaited below; a failure is reported there
    making.set(ctx, made);
    previous = made;
  }

  const state = path.join(dir, "state");
  fs.mkdirSync(state, { mode: 0o700 });
  const rehearsalEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${state}`,
    // One file (the Kubernetes provider takes KUBECONFIG as one path): rehearsalKubeconfig's.
    KUBECONFIG: path.join(dir, "kubeconfig"),
    [REHEARSAL_JOURNAL_ENV]: path.join(dir, "journal"),
    // The kubeconfig the real run uses (not --kubeconfig's reader): the registrations' inputs are read from it.
    [REHEARSAL_SOURCE_KUBECONFIG_ENV]: ambientKubeconfigView(process.env).searched.join(path.delimiter),
    PATH: `${guardBin}${path.delimiter}${process.env["PATH"] ?? ""}`,
    // What the run's programs write to a temporary directory (the Kubernetes provider's kubeconfig copies, for
    // one) goes with the rehearsal's directory.
    TMPDIR: path.join(dir, "tmp"),
  };
  fs.mkdirSync(path.join(dir, "tmp"), { mode: 0o700 });
  fs.writeFileSync(path.join(dir, "journal"), "", { mode: 0o600 });
  const namespacesOf = new Map<string, Set<string>>();
  for (const s of [env.control, ...env.compute]) {
    const exported = run("pulumi", ["stack", "export", "--stack", s.stack], {
      cwd: env.projectDir,
      env: process.env,
    });
    if (exported.code !== 0) {
      if (/no stack named|not found/i.test(exported.stderr)) continue;
      throw new CliError(
        EXIT.internal,
        `pulumi stack export --stack ${s.stack} failed: ${exported.stderr.trim()}`,
      );
    }
    const file = path.join(dir, `${s.stack}.state.json`);
    const deployment = JSON.parse(exported.stdout) as Obj;
    fs.writeFileSync(file, JSON.stringify(repointProviders(deployment, path.join(dir, "kubeconfig"))), {
      mode: 0o600,
    });
    for (const args of [
      ["stack", "init", s.stack],
      ["stack", "import", "--stack", s.stack, "--file", file],
    ]) {
      const r = run("pulumi", args, { cwd: project, env: rehearsalEnv });
      if (r.code !== 0)
        throw new CliError(
          EXIT.internal,
          `pulumi ${args.slice(0, 2).join(" ")} (rehearsal state) failed: ${r.stderr.trim()}`,
        );
    }
    fs.rmSync(file);
    namespacesOf.set(s.stack, stateNamespaces(deployment));
  }

  // One replica per context, seeded from the live cluster.
  const replicas = new Map<string, Replica>();
  const before = new Map<string, Map<string, ReleaseRecord>>();
  const notRehearsed: string[] = [];
  await mapBounded(contexts, 3, async (ctx) => {
    const t = Date.now();
    let read = 0;
    const [{ replica, ms: made }, snap] = await Promise.all([
      making.get(ctx) as Promise<{ replica: Replica; ms: number }>,
      (async (): Promise<SourceSnapshot> => {
        const namespaces = new Set<string>();
        for (const [stack, c] of p.contextOf)
          if (c === ctx) for (const n of namespacesOf.get(stack) ?? []) namespaces.add(n);
        const kc = p.sourceEnv["KUBECONFIG"];
        const source = await ApiServer.open({ context: ctx, ...(kc ? { kubeconfig: kc } : {}) });
        p.apis.push(source);
        try {
          const snap = await readSource(source, namespaces);
          read = Date.now() - t;
          return snap;
        } finally {
          source.close();
        }
      })(),
    ]);
    replicas.set(ctx, replica);
    const api = await ApiServer.open({ kubeconfig: replica.kubeconfig, context: replica.context });
    p.apis.push(api);
    try {
      // Its own API server answers through its own kubeconfig (throws with the reason otherwise).
      await api.get("/version");
      const seeded = await seedReplica(api, snap);
      before.set(
        ctx,
        latestReleases(snap.objects.filter((o) => o.kind.kind === "Secret").map((o) => o.object)),
      );
      // The workloads' pods as ready as in the source before the run (what the run checks first, e.g. an
      // upgrade's health check of the bundle deployed, is then what it is in the source).
      const behind = await replicaCaughtUp(api, snap);
      for (const b of behind) out(`replica of ${ctx}: not as ready as the source after 120 s: ${b}`);
      const sec = (ms: number) => (ms / 1000).toFixed(1);
      out(
        `replica of ${ctx}: made in ${sec(made)} s; ${snap.objects.length} object(s) read with GET requests only in ` +
          `${sec(read)} s; ${seeded.created} copied into it, ready after ${sec(Date.now() - t)} s`,
      );
      for (const r of seeded.refused) out(`replica of ${ctx}: not copied, the replica refused it: ${r}`);
      for (const w of snap.webhooks)
        notRehearsed.push(`${ctx}: ${w}: admission webhook, its server does not run in a replica`);
      for (const u of snap.unreadable)
        notRehearsed.push(`${ctx}: ${u}: could not be listed with this identity`);
    } finally {
      api.close();
    }
  });
  // GPU clusters the control plane names but no rehearsed stack deploys to (a control plane rehearsed alone): their
  // real contexts, which the run only reads through (the registrations' access comes from the real kubeconfig).
  const named = ((env.control.config["gpuClusters"] as Obj[] | undefined) ?? [])
    .map((c) => c["context"])
    .filter((c): c is string => typeof c === "string" && !replicas.has(c));
  const { texts, baseDir } = readAmbientKubeconfigs(p.sourceEnv);
  const others = new Map(
    [...new Set(named)].map((ctx) => [
      ctx,
      minifyKubeconfig(texts, ctx, (f) => fs.readFileSync(path.resolve(baseDir, f))).yaml,
    ]),
  );
  const replicaConfigs = new Map(
    [...replicas].map(([ctx, r]) => [
      ctx,
      { kubeconfigText: fs.readFileSync(r.kubeconfig, "utf8"), context: r.context },
    ]),
  );
  fs.writeFileSync(
    path.join(dir, "kubeconfig"),
    rehearsalKubeconfig(replicaConfigs, p.view.currentContext, others),
    { mode: 0o600 },
  );

  // The same run, against the replicas.
  const args = [
    path.resolve(__dirname, "..", "nvcf.js"),
    ...rehearsedArgs(env.name, project, path.join(dir, "kubeconfig"), opts),
  ];
  out(`rehearsal: ${what} against the replicas`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: project,
      env: rehearsalEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    p.children.add(child);
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on("line", (l) => out(`  | ${l}`));
    }
    child.on("error", () => resolve(EXIT.internal));
    child.on("close", (c) => {
      p.children.delete(child);
      resolve(c ?? EXIT.internal);
    });
  });

  // The report.
  out(`rehearsal report (${what}, environment ${env.name}):`);
  for (const [ctx, replica] of replicas) {
    const api = await ApiServer.open({ kubeconfig: replica.kubeconfig, context: replica.context });
    p.apis.push(api);
    try {
      const list = await api.get<{ items?: Obj[] }>("/api/v1/secrets?labelSelector=owner%3Dhelm");
      const after = latestReleases(list?.items ?? []);
      for (const l of releaseLines(before.get(ctx) ?? new Map(), after)) out(`  ${ctx}: ${l}`);
    } finally {
      api.close();
    }
  }
  const journal = fs.readFileSync(path.join(dir, "journal"), "utf8").split("\n").filter(Boolean);
  for (const l of [...new Set(journal)]) out(`  not rehearsed: ${l.replace(/^not rehearsed: /, "")}`);
  for (const l of notRehearsed) out(`  not rehearsed: ${l}`);
  out(
    "  not rehearsed: running containers (no container runs in a replica: hook Jobs complete without doing their work, " +
      "and the verification of running workloads is left to the real run), and the data in volumes",
  );
  const secs = ((Date.now() - t0) / 1000).toFixed(0);
  if (code === EXIT.ok) {
    out(
      `rehearsal passed in ${secs} s: the live clusters were only read; the replicas and their files are deleted`,
    );
    return EXIT.ok;
  }
  process.stderr.write(
    `rehearsal failed in ${secs} s (the rehearsed ${what} exited ${code}): the real run would stop the same way. ` +
      `The live clusters were only read; the replicas and their files are deleted\n`,
  );
  return code as ExitCode;
}
