/**
 * Recovery from interrupted and failed runs. Runs inside the program, before any release is
 * registered, and brings Helm's own records and the Pulumi state back to something the next install or
 * upgrade can proceed from, so that a `pulumi up` after Ctrl-C, a killed CLI, a lost API server or a failed
 * install converges without hand-run commands. What it looks at and why (docs/recovery.md has the user's view):
 *
 * - Helm keeps one storage Secret per release revision (`owner=helm`, labels `name`, `status`, `version`).
 *   A revision left `pending-install`/`pending-upgrade`/`pending-rollback` makes every later Helm operation on
 *   that release fail with "another operation (install/upgrade/rollback) is in progress"; an install that
 *   never reached `deployed` makes the next install fail with "cannot re-use a name that is still in use".
 * - The Pulumi state (`pulumi stack export`) says whether the CLI died while an operation was in flight
 *   (`pending_operations`), and whether Pulumi knows a release at all.
 * - An install rolled back by `atomic` removes the release's objects but not its hook objects; hooks whose
 *   delete policy lacks `before-hook-creation` (e.g. OpenBao's pre-install unseal Secret, policy
 *   `hook-failed`) then make the next install fail with "already exists".
 *
 * The decisions are pure (`planRelease`, `healthyImports`), the cluster and state reads and the deletions are in
 * `recoverReleases`. During `pulumi preview` nothing is changed: the plan is only reported. When nothing is
 * wrong (every release's latest record `deployed`), one kubectl call for Helm's labels is all it costs.
 */
import * as pulumi from "@pulumi/pulumi";
import { readHelmRelease } from "../kube/helmRecords";
import { Kube, execCommand, kubeconfigFile } from "../kube/kubectl";

/** One revision record of Helm's storage (a Secret labelled `owner=helm`). */
export interface HelmRecord {
  namespace: string;
  /** Release name (label `name`). */
  name: string;
  /** Revision number (label `version`). */
  revision: number;
  /** Helm's status: `deployed`, `superseded`, `failed`, `pending-install`, `pending-upgrade`, … */
  status: string;
  /** Name of the storage Secret. */
  secret: string;
  /** When the record was last written, ms since the epoch (label `modifiedAt`, else the Secret's creation). */
  modifiedMs: number;
  /**
   * Hook objects the revision's chart declared (`kind/name`), from the record's payload; empty when the record
   * was read without its payload (`parseHelmRecordTable`).
   */
  hooks: string[];
}

/** What the Pulumi state says about the stack's Helm releases, keyed by `namespace/name`. */
export interface StateView {
  /** Releases the state holds as resources. */
  known: Set<string>;
  /** Releases with an operation in flight when the CLI stopped: `creating`, `updating`, `deleting`, … */
  pending: Map<string, { type: string; urn: string }>;
}

/** A hook object left in a release's namespace (from `kubectl get … -o json`). */
export interface HookObject {
  kind: string;
  name: string;
  /** The `helm.sh/hook` annotation, e.g. `pre-install` or `post-install,post-upgrade`. */
  events: string[];
  /** The `helm.sh/hook-delete-policy` annotation; empty means Helm's default, `before-hook-creation`. */
  deletePolicies: string[];
  /** For Jobs: at least one pod succeeded. */
  succeeded: boolean;
}

/** One release of the stack, as the recovery needs it. */
export interface ReleaseRef {
  name: string;
  namespace: string;
  /** The release's Helm timeout, seconds (`charts.timeoutSeconds`): bounds how long an operation may still run. */
  timeoutSeconds: number;
  /**
   * Install-only hook Jobs (names) that only read and may run again on a fresh install (catalog/releases.ts
   * `rerunnableInstallHooks`); every other completed install-only hook Job makes recovery refuse to reinstall.
   */
  rerunnableHooks?: readonly string[];
}

/** What to do for one release. */
export type RecoveryAction =
  | { kind: "none" }
  /** An operation a killed CLI left to its plugins may still be running: wait until `untilMs`, then plan again. */
  | { kind: "wait"; untilMs: number; reason: string }
  /** Delete Helm storage records (only Helm's bookkeeping; the objects stay and the next install adopts them). */
  | { kind: "deleteRecords"; secrets: string[]; reason: string }
  /** Delete hook objects an install that was rolled back left behind, then install afresh. */
  | { kind: "deleteHooks"; objects: string[]; reason: string }
  /** The release is deployed but the state lost it: import it (`ns/name`) instead of installing it again. */
  | { kind: "adopt"; id: string; reason: string }
  /** Not safe to do automatically: stop with this message (it names the exact step). */
  | { kind: "refuse"; message: string };

const key = (namespace: string, name: string) => `${namespace}/${name}`;
const isPending = (s: string) => s.startsWith("pending-");

/** Hook objects that survive a rolled-back install and make the next one fail ("already exists"). */
function blocksReinstall(h: HookObject): boolean {
  const install = h.events.some((e) => e === "pre-install" || e === "post-install");
  return install && h.deletePolicies.length > 0 && !h.deletePolicies.includes("before-hook-creation");
}

/**
 * Install-only hook Jobs of `rel` that already ran to success and may not run again: a fresh install would run
 * them a second time on the data they initialised. Jobs the release lists as rerunnable (read-only checks) are
 * not among them.
 */
function installOnlyJobDone(rel: ReleaseRef, h: HookObject): boolean {
  const install = h.events.some((e) => e === "pre-install" || e === "post-install");
  const upgrade = h.events.some((e) => e === "pre-upgrade" || e === "post-upgrade");
  const rerunnable = rel.rerunnableHooks?.includes(h.name) ?? false;
  return h.kind === "Job" && install && !upgrade && h.succeeded && !rerunnable;
}

/**
 * Decides what one release needs before this run registers it. Inputs: the release, its Helm records (any
 * order), the Pulumi state (undefined when it could not be read: then nothing is adopted and a pending record
 * is only treated as abandoned once it is older than the release's timeout), the hook objects found in its
 * namespace that no deployed release there claims, the kubectl prefix to print in messages, and the time.
 * Output: one action; `planRelease` never touches anything. The rules, in order:
 *
 * 1. Latest record pending, the state shows the CLI died with this release in flight, and the record is younger
 *    than the timeout: the orphaned provider may still finish it, so wait.
 * 2. Latest record pending otherwise (or older than the timeout): nobody is running it. Never deployed: delete
 *    all its records (the install starts afresh and adopts the objects already created), unless an install-only
 *    hook Job the pending record declares already completed and the release does not list it as rerunnable
 *    (then refuse, as in 5). Deployed before: delete the records newer than the last deployed one (the upgrade
 *    starts from that revision).
 * 3. Only `failed` records and Pulumi does not hold the release: delete them (the install starts afresh).
 * 4. Deployed, but Pulumi holds it neither as a resource nor… (only a pending create, or nothing): adopt it.
 * 5. About to install afresh and hook objects of an earlier, rolled-back install block it: delete them, unless
 *    an install-only hook Job of that install already completed that is not rerunnable (then refuse: running
 *    it twice is unsafe).
 */
export function planRelease(
  rel: ReleaseRef,
  records: readonly HelmRecord[],
  state: StateView | undefined,
  leftovers: readonly HookObject[],
  kubectlHint: string,
  nowMs: number,
): RecoveryAction {
  const k = key(rel.namespace, rel.name);
  const sorted = [...records].sort((a, b) => b.revision - a.revision);
  const latest = sorted[0];
  const lastDeployed = sorted.find((r) => r.status === "deployed" || r.status === "superseded");
  const inState = state?.known.has(k) ?? false;
  const pendingOp = state?.pending.get(k);
  const timeoutMs = rel.timeoutSeconds * 1000;

  if (latest && isPending(latest.status)) {
    const deadline = latest.modifiedMs + timeoutMs;
    const orphanMayRun = state === undefined || pendingOp !== undefined;
    if (orphanMayRun && nowMs < deadline) {
      return {
        kind: "wait",
        untilMs: deadline,
        reason:
          `Helm release ${k} is ${latest.status} (revision ${latest.revision}) and the last update stopped while ` +
          `it was in flight; a provider left running by a killed CLI may still finish it`,
      };
    }
    const stale = lastDeployed ? sorted.filter((r) => r.revision > lastDeployed.revision) : sorted;
    // An install that never finished but whose install-only hook Job had already completed (e.g. the API server
    // went away after OpenBao's initialisation): installing afresh would run that hook a second time.
    const ranOnce = lastDeployed
      ? []
      : leftovers.filter((h) => installOnlyJobDone(rel, h) && latest.hooks.includes(`Job/${h.name}`));
    if (ranOnce.length > 0) {
      const jobs = ranOnce.map((h) => `job/${h.name}`);
      return {
        kind: "refuse",
        message:
          `Helm release ${k} was left ${latest.status} by an interrupted install after its install-only hook ` +
          `${jobs.join(", ")} had completed. Installing again would run that hook a second time on data it ` +
          `already initialised. If the release may start afresh (its data is lost), remove the hook and the ` +
          `stale Helm records and run pulumi up again:\n    ${kubectlHint} -n ${rel.namespace} delete ` +
          [...jobs, ...stale.map((r) => `secret/${r.secret}`)].join(" "),
      };
    }
    return {
      kind: "deleteRecords",
      secrets: stale.map((r) => r.secret),
      reason: lastDeployed
        ? `Helm release ${k} was left ${latest.status} at revision ${latest.revision} by an interrupted run; ` +
          `its last deployed revision ${lastDeployed.revision} becomes current again and this run upgrades from it`
        : `Helm release ${k} was left ${latest.status} by an interrupted install that never finished; ` +
          `its records are removed and this run installs it afresh (the objects already created are adopted)`,
    };
  }
  if (latest && !lastDeployed && !inState && sorted.every((r) => r.status === "failed")) {
    return {
      kind: "deleteRecords",
      secrets: sorted.map((r) => r.secret),
      reason: `Helm release ${k} has only failed revisions and was never deployed; this run installs it afresh`,
    };
  }
  if (latest && latest.status === "deployed" && state !== undefined && !inState) {
    return {
      kind: "adopt",
      id: k,
      reason:
        `Helm release ${k} is deployed (revision ${latest.revision}) but the Pulumi state does not hold it` +
        (pendingOp ? ` (the CLI stopped while it was being ${pendingOp.type.replace(/ing$/, "ed")})` : "") +
        `; it is imported into the state instead of being installed a second time, and upgraded where this program's settings differ`,
    };
  }
  const freshInstall = latest === undefined && !inState;
  if (freshInstall) {
    const blocking = leftovers.filter(blocksReinstall);
    if (blocking.length > 0) {
      const done = leftovers.filter((h) => installOnlyJobDone(rel, h));
      const names = blocking.map((h) => `${h.kind.toLowerCase()}/${h.name}`);
      if (done.length > 0) {
        const all = [...names, ...done.map((h) => `job/${h.name}`)];
        return {
          kind: "refuse",
          message:
            `Helm release ${k} is not installed, but an earlier install of it that was rolled back left hook ` +
            `objects behind (${names.join(", ")}) after its install-only hook ` +
            `${done.map((h) => `job/${h.name}`).join(", ")} had completed. Installing again would run that hook ` +
            `a second time on data it already initialised. If the release may start afresh (its data is lost), ` +
            `remove them and run pulumi up again:\n    ${kubectlHint} -n ${rel.namespace} delete ${all.join(" ")}`,
        };
      }
      return {
        kind: "deleteHooks",
        objects: names,
        reason:
          `Helm release ${k} is not installed, but an earlier install that was rolled back or interrupted left ` +
          `hook objects behind that would make this install fail with "already exists" (${names.join(", ")}); ` +
          `none of its install-only hooks had completed, so they are removed and the release installs afresh`,
      };
    }
  }
  return { kind: "none" };
}

/** Error that stops the run with a message naming the exact step (a RunError: the CLI prints only the text). */
export class RecoveryError extends pulumi.RunError {
  constructor(message: string) {
    super(message);
    this.name = "RecoveryError";
  }
}

/** How the program reaches the cluster with kubectl. */
export interface ClusterAccess {
  /** kubectl binary (name on PATH or path). */
  kubectl: string;
  /** A context of the ambient kubeconfig, or… */
  context?: string;
  /** …a whole kubeconfig (secret text; written to a private temporary file for the call only). */
  kubeconfig?: string;
}

/** The hook objects (`kind/name`) a Helm storage payload declares. */
export function recordHooks(payloadB64: string | undefined): string[] {
  const rel = readHelmRelease(payloadB64);
  return (rel?.hooks ?? []).map((h) => `${h.kind ?? ""}/${h.name ?? ""}`);
}

/* eslint-disable @typescript-eslint/no-explicit-any */
/** Parses `kubectl get secrets -l owner=helm -o json` into records (with the hooks each payload declares). */
export function parseHelmRecords(list: any): HelmRecord[] {
  return ((list?.items ?? []) as any[]).map((s) => {
    const labels = s.metadata?.labels ?? {};
    const modified = Number(labels["modifiedAt"]);
    return {
      namespace: s.metadata.namespace,
      name: labels["name"],
      revision: Number(labels["version"]),
      status: labels["status"],
      secret: s.metadata.name,
      modifiedMs:
        Number.isFinite(modified) && modified > 0
          ? modified * 1000
          : Date.parse(s.metadata.creationTimestamp),
      hooks: recordHooks(s.data?.release),
    };
  });
}

/**
 * Parses the table `kubectl get secrets -A -l owner=helm --show-labels --no-headers` prints (columns NAMESPACE,
 * NAME, TYPE, DATA, AGE, LABELS; the API server renders it, so no payload is transferred) into records without
 * hooks. `modifiedMs` is NaN when a record lacks the `modifiedAt` label (the table's AGE is too coarse); only the
 * healthy-path check reads these records, and it does not use the time. Lines that are not a Helm record are
 * skipped.
 */
export function parseHelmRecordTable(text: string): HelmRecord[] {
  const out: HelmRecord[] = [];
  for (const line of text.split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 6) continue;
    const labels = Object.fromEntries(
      cols[cols.length - 1].split(",").map((kv) => {
        const i = kv.indexOf("=");
        return [kv.slice(0, i), kv.slice(i + 1)];
      }),
    );
    const revision = Number(labels["version"]);
    if (labels["owner"] !== "helm" || !labels["name"] || !labels["status"] || !Number.isInteger(revision))
      continue;
    const modified = Number(labels["modifiedAt"]);
    out.push({
      namespace: cols[0],
      name: labels["name"],
      revision,
      status: labels["status"],
      secret: cols[1],
      modifiedMs: Number.isFinite(modified) && modified > 0 ? modified * 1000 : NaN,
      hooks: [],
    });
  }
  return out;
}

/** Parses `kubectl get <kinds> -o json` into the hook objects among them. */
export function parseHookObjects(list: any): HookObject[] {
  const split = (v: unknown) =>
    typeof v === "string"
      ? v
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean)
      : [];
  return ((list?.items ?? []) as any[])
    .filter((o) => o.metadata?.annotations?.["helm.sh/hook"])
    .map((o) => ({
      kind: o.kind,
      name: o.metadata.name,
      events: split(o.metadata.annotations["helm.sh/hook"]),
      deletePolicies: split(o.metadata.annotations["helm.sh/hook-delete-policy"]),
      succeeded: (o.status?.succeeded ?? 0) > 0,
    }));
}

/** Parses `pulumi stack export` into what the state says about Helm releases. */
export function parseState(exported: any): StateView {
  const d = exported?.deployment ?? {};
  const id = (r: any) =>
    key(r.inputs?.namespace ?? r.outputs?.namespace ?? "", r.inputs?.name ?? r.outputs?.name ?? "");
  const isRelease = (r: any) => r?.type === "kubernetes:helm.sh/v3:Release";
  const known = new Set<string>(((d.resources ?? []) as any[]).filter(isRelease).map(id));
  const pending = new Map<string, { type: string; urn: string }>();
  for (const op of (d.pending_operations ?? []) as any[]) {
    if (isRelease(op.resource)) pending.set(id(op.resource), { type: op.type, urn: op.resource.urn });
  }
  return { known, pending };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Options of `recoverReleases`. */
export interface RecoverOptions {
  access: ClusterAccess;
  releases: readonly ReleaseRef[];
  /** Fully qualified stack name (`org/project/stack`) for `pulumi stack export`. */
  stack: string;
  /** True during `pulumi preview`: report only. */
  dryRun: boolean;
  /** Seconds between polls while waiting for an orphaned operation (default 2). */
  pollSeconds?: number;
}

/**
 * Reads Helm's labels of every record (one kubectl call). When every release's latest record is `deployed`,
 * returns an import of every release (`healthyImports`: the engine ignores it for releases the state holds) and
 * reads nothing else. Otherwise reads the hook objects in the namespaces of releases without records (side by
 * side; with more than one such namespace, only those that exist, after one call that lists the namespaces), and
 * only where a rule needs them the records with their payloads and the Pulumi state (`pulumi stack export`): a
 * release without records and without blocking hook objects needs neither, so a fresh install costs two kubectl
 * calls (labels, namespaces) plus one per release namespace that already exists. Then applies `planRelease` to
 * every release: waits, deletes stale Helm records and blocking leftover hooks (only during `pulumi up`; each
 * step is logged as a warning naming the release and what was done), and returns the releases to import
 * (`namespace/name` by release name) for `NvcfRelease`'s `adopt`. Throws `RecoveryError` when a step is not safe
 * to take automatically (the message names the exact command). When the cluster cannot be reached it returns
 * nothing and lets the provider report the connection error. Does nothing (returns no imports) when the program
 * runs under Pulumi's mocks (no engine address).
 */
export async function recoverReleases(opts: RecoverOptions): Promise<Record<string, string>> {
  // Only under a real engine: unit tests run the program with mocks and must never touch a cluster.
  if (!underEngine()) return {};
  const kube = kubectlRunner(opts.access);
  try {
    const adopt: Record<string, string> = {};
    // The healthy path: one call, Helm's labels only (a table the API server renders, no payloads).
    const table = await kube.text([
      "get",
      "secrets",
      "-A",
      "-l",
      "owner=helm",
      "--show-labels",
      "--no-headers",
    ]);
    if (table === undefined) return adopt;
    const labels = parseHelmRecordTable(table);
    const healthy = healthyImports(opts.releases, labels);
    if (healthy !== undefined) return healthy;
    // Read when a rule needs them, each at most once: Helm's records with their payloads (every rule of a release
    // that has records; the claims of hook objects found in a namespace) and the Pulumi state (every rule of a
    // release that has records; rule 5 of one without). A fresh install into namespaces without leftover hooks
    // reads neither.
    let records: HelmRecord[] = [];
    let payloads: Promise<boolean> | undefined;
    const readPayloads = () =>
      (payloads ??= kube.json(["get", "secrets", "-A", "-l", "owner=helm", "-o", "json"]).then((all) => {
        if (all === undefined) return false;
        records = parseHelmRecords(all);
        return true;
      }));
    const ours = new Set(opts.releases.map((r) => key(r.namespace, r.name)));
    if (labels.some((r) => ours.has(key(r.namespace, r.name))) && !(await readPayloads())) return adopt;
    let stateRead: Promise<StateView | undefined> | undefined;
    const readStateOnce = () =>
      (stateRead ??= readState(opts.stack).then((state) => {
        if (state === undefined)
          pulumi.log.warn(
            `could not read the Pulumi state of ${opts.stack} with \`pulumi stack export\` (is the pulumi CLI on PATH?); ` +
              "releases left deployed by an interrupted run are not imported automatically",
          );
        return state;
      }));
    const recorded = new Set(labels.map((r) => key(r.namespace, r.name)));
    const toRead = new Set(
      opts.releases.filter((r) => !recorded.has(key(r.namespace, r.name))).map((r) => r.namespace),
    );
    // With more than one namespace to read, one call first lists the namespaces there are: a namespace that does
    // not exist yet (a fresh install) holds no hook objects and is not read. Undefined: not listed (read all).
    const present: Promise<Set<string> | undefined> =
      toRead.size > 1
        ? kube.text(["get", "namespaces", "-o", "name"]).then(namespaceNames)
        : Promise.resolve(undefined);
    // Hook objects nobody claims, in a namespace; the records are read only where there are hook objects.
    const leftoversIn = async (namespace: string) => {
      if ((await present)?.has(namespace) === false) return [];
      const found = await hookObjects(kube, namespace);
      if (found.length === 0 || !(await readPayloads())) return [];
      return unclaimed(found, namespace, records);
    };
    const refusals: string[] = [];
    // The namespaces of releases without records are read at once, side by side.
    const hookCache = new Map<string, Promise<HookObject[]>>();
    for (const ns of toRead) hookCache.set(ns, leftoversIn(ns));
    for (const rel of opts.releases) {
      const mineOf = () => records.filter((r) => r.namespace === rel.namespace && r.name === rel.name);
      // Waiting (bounded by the record's timeout), then removing stale records, then leftover hooks.
      for (let round = 0; round < 10_000; round++) {
        const mine = mineOf();
        let leftovers: HookObject[] = [];
        if (mine.length === 0) {
          const cached = hookCache.get(rel.namespace) ?? leftoversIn(rel.namespace);
          hookCache.set(rel.namespace, cached);
          leftovers = await cached;
          // No record: only rule 5 could apply, and only to hook objects that block an install.
          if (!leftovers.some(blocksReinstall)) break;
        }
        const state = await readStateOnce();
        if (mine.length === 0 && state?.known.has(key(rel.namespace, rel.name))) leftovers = [];
        let action = planRelease(rel, mine, state, leftovers, kube.hint, Date.now());
        if (
          action.kind === "deleteRecords" &&
          !mine.some((r) => !isPending(r.status) && r.status !== "failed")
        ) {
          // An install that never finished: its install-only hooks may have run (rule 2's refusal). Read now, not
          // cached: they may have completed while this run waited for the install.
          leftovers = await leftoversIn(rel.namespace);
          action = planRelease(rel, mine, state, leftovers, kube.hint, Date.now());
        }
        if (action.kind === "none") break;
        if (action.kind === "refuse") {
          refusals.push(action.message);
          break;
        }
        if (action.kind === "adopt") {
          adopt[rel.name] = action.id;
          pulumi.log.warn(action.reason);
          break;
        }
        if (action.kind === "wait") {
          if (opts.dryRun) {
            pulumi.log.warn(
              `${action.reason}; pulumi up waits for it (at most until ${iso(action.untilMs)})`,
            );
            break;
          }
          if (round === 0)
            pulumi.log.warn(`${action.reason}; waiting for it (at most until ${iso(action.untilMs)})`);
          await sleep((opts.pollSeconds ?? 2) * 1000);
          const again = await kube.json([
            "get",
            "secrets",
            "-n",
            rel.namespace,
            "-l",
            `owner=helm,name=${rel.name}`,
            "-o",
            "json",
          ]);
          if (again === undefined) break;
          records = [...records.filter((r) => !mine.includes(r)), ...parseHelmRecords(again)];
          continue;
        }
        const objects =
          action.kind === "deleteRecords" ? action.secrets.map((s) => `secret/${s}`) : action.objects;
        if (opts.dryRun) {
          pulumi.log.warn(
            `${action.reason} (pulumi up deletes ${objects.join(", ")} in namespace ${rel.namespace})`,
          );
        } else {
          await kube.run(["-n", rel.namespace, "delete", "--ignore-not-found", ...objects]);
          pulumi.log.warn(`${action.reason}: deleted ${objects.join(", ")} in namespace ${rel.namespace}`);
        }
        if (action.kind === "deleteHooks") {
          const gone = new Set(action.objects);
          hookCache.set(
            rel.namespace,
            Promise.resolve(leftovers.filter((h) => !gone.has(`${h.kind.toLowerCase()}/${h.name}`))),
          );
          break;
        }
        records = records.filter((r) => !action.secrets.includes(r.secret));
      }
    }
    await Promise.all(hookCache.values()); // reads no release needed in the end still finish before kube.close()
    const state = stateRead ? await stateRead : undefined;
    const pendingCreates = [...(state?.pending.entries() ?? [])].filter(([, p]) => p.type === "creating");
    if (pendingCreates.length > 0) {
      // The engine keeps these entries until a refresh drops them, even once the release is in the state.
      pulumi.log.warn(
        `the Pulumi state still lists ${pendingCreates.length} pending create operation(s) a killed CLI left ` +
          `(${pendingCreates.map(([k]) => k).join(", ")}); this run recovers those releases. When it has ` +
          `finished, drop the entries with: pulumi refresh --clear-pending-creates --yes --stack ${opts.stack}`,
      );
    }
    if (refusals.length > 0) {
      throw new RecoveryError(
        `${refusals.length} release${refusals.length === 1 ? "" : "s"} cannot be recovered automatically; no release was installed or upgraded:\n` +
          refusals.map((m) => `  - ${m}`).join("\n"),
      );
    }
    return adopt;
  } finally {
    kube.close();
  }
}

/**
 * The healthy path of `recoverReleases`: when the latest Helm record of every release is `deployed` (nothing
 * pending, failed or missing, so rules 1-3 and 5 of `planRelease` have nothing to do), returns an import of every
 * release (`name` → `namespace/name`) without reading the Pulumi state. The engine imports a release only when
 * its state holds no resource with that ID (`pulumi/pkg/resource/deploy/step_generator.go`: an import step only
 * when there is no old resource or its ID differs), so a release the state holds is updated as usual and one it
 * lost (rule 4) is imported. Returns undefined when some release needs the full look (its records' payloads, the
 * state, leftover hooks).
 */
export function healthyImports(
  releases: readonly ReleaseRef[],
  records: readonly HelmRecord[],
): Record<string, string> | undefined {
  const latest = new Map<string, HelmRecord>();
  for (const r of records) {
    const k = key(r.namespace, r.name);
    if ((latest.get(k)?.revision ?? 0) < r.revision) latest.set(k, r);
  }
  const out: Record<string, string> = {};
  for (const rel of releases) {
    const k = key(rel.namespace, rel.name);
    if (latest.get(k)?.status !== "deployed") return undefined;
    out[rel.name] = k;
  }
  return out;
}

/**
 * The namespace names in `kubectl get namespaces -o name` output (`namespace/<name>` per line); undefined for
 * undefined (kubectl failed).
 */
export function namespaceNames(text: string | undefined): Set<string> | undefined {
  if (text === undefined) return undefined;
  return new Set(
    text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("namespace/"))
      .map((l) => l.slice("namespace/".length)),
  );
}

/** The kinds hook objects are looked for in (namespaced kinds charts use for hooks). */
const HOOK_KINDS = "secrets,configmaps,serviceaccounts,roles,rolebindings,jobs";

/** The hook objects in a namespace (kinds `HOOK_KINDS`), claimed or not. */
async function hookObjects(kube: KubectlRunner, namespace: string): Promise<HookObject[]> {
  return parseHookObjects(await kube.json(["get", HOOK_KINDS, "-n", namespace, "-o", "json"]));
}

/** Of the hook objects found in a namespace, those that no deployed release recorded there declares. */
function unclaimed(
  found: readonly HookObject[],
  namespace: string,
  records: readonly HelmRecord[],
): HookObject[] {
  const claimed = new Set(
    records.filter((r) => r.namespace === namespace && r.status === "deployed").flatMap((r) => r.hooks),
  );
  return found.filter((h) => !claimed.has(`${h.kind}/${h.name}`));
}

/** The most output a child process may print, bytes (a stack export or every Helm record of a cluster). */
const MAX_OUTPUT = 256 * 1024 * 1024;

async function readState(stack: string): Promise<StateView | undefined> {
  const r = await execCommand("pulumi", ["stack", "export", "--stack", stack, "--non-interactive"], {
    timeoutMs: 0,
    maxBuffer: MAX_OUTPUT,
  });
  if (r.code !== 0 || !r.stdout) return undefined;
  try {
    return parseState(JSON.parse(r.stdout));
  } catch {
    return undefined;
  }
}

/**
 * True when the program runs under a real engine (the CLI's Node.js language host, or an inline program of the
 * Automation API as `nvcf` runs it), false under the unit tests' mocks: only the former have an engine address.
 */
function underEngine(): boolean {
  return pulumi.runtime.getEngine() !== undefined;
}

interface KubectlRunner {
  /** Runs kubectl; resolves to its standard output, or undefined when kubectl fails. */
  text(args: string[]): Promise<string | undefined>;
  /**
   * Runs kubectl; resolves to parsed JSON, or undefined when kubectl fails (unreachable cluster, missing
   * namespace).
   */
  json(args: string[]): Promise<unknown>;
  /** Runs kubectl; rejects with RecoveryError when it fails. */
  run(args: string[]): Promise<void>;
  /** The command prefix to print in messages (the kubeconfig file is never named: it is temporary). */
  hint: string;
  close(): void;
}

/**
 * kubectl aimed at the cluster of `access` (kube/kubectl.ts `Kube`: a kubeconfig text is written to a private
 * temporary file until `close()`), with a 20 s request timeout and no limit on a call's duration, one try per call.
 */
function kubectlRunner(access: ClusterAccess): KubectlRunner {
  const file = access.kubeconfig !== undefined ? kubeconfigFile(access.kubeconfig) : undefined;
  const kube = new Kube(file !== undefined ? { kubeconfig: file.file } : { context: access.context }, {
    kubectl: access.kubectl,
    requestTimeout: "20s",
    timeoutMs: 0,
    maxBuffer: MAX_OUTPUT,
  });
  return {
    async text(args) {
      const r = await kube.run(args);
      return r.code === 0 ? r.stdout : undefined;
    },
    async json(args) {
      const r = await kube.run(args);
      if (r.code !== 0) return undefined;
      try {
        return JSON.parse(r.stdout);
      } catch {
        return undefined;
      }
    },
    async run(args) {
      const r = await kube.run(args);
      if (r.code !== 0) {
        throw new RecoveryError(`kubectl ${args.join(" ")} failed: ${(r.stderr || r.error || "").trim()}`);
      }
    },
    hint: access.context !== undefined ? `kubectl --context ${access.context}` : "kubectl",
    close() {
      file?.remove();
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resource options that import a deployed Helm release (`namespace/name`) into the state instead of installing
 * it again (which Helm refuses: "cannot re-use a name that is still in use"). The engine reads the release
 * back from Helm, and where the program's inputs differ from what it read (settings Helm does not record,
 * such as `atomic` or the timeout, and the chart's path), it upgrades the release in the same run (post-upgrade
 * hooks only; install-only hooks do not run again). No options when `id` is undefined.
 */
export function adoptOptions(id: string | undefined): pulumi.CustomResourceOptions {
  return id === undefined ? {} : { import: id };
}
