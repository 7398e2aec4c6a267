/**
 * The recovery planner (pure): what one release needs before a run registers it, decided from Helm's records, the
 * Pulumi state and the hook objects left in its namespace (`planRelease`, numbered rules), the healthy path
 * (`healthyImports`), and the parsers of the kubectl and `pulumi stack export` output it reads. recovery/recover.ts
 * does the reads and the deletions; docs/recovery.md has the user's view.
 */
import { readHelmRelease } from "../kube/helmRecords";

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

/** The key of a release, `namespace/name` (as Helm records and the state are matched). */
export const releaseKey = (namespace: string, name: string) => `${namespace}/${name}`;
/** Whether a Helm record status is one of the `pending-*` states. */
export const isPending = (s: string) => s.startsWith("pending-");

/** Hook objects that survive a rolled-back install and make the next one fail ("already exists"). */
export function blocksReinstall(h: HookObject): boolean {
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
  const k = releaseKey(rel.namespace, rel.name);
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
    releaseKey(r.inputs?.namespace ?? r.outputs?.namespace ?? "", r.inputs?.name ?? r.outputs?.name ?? "");
  const isRelease = (r: any) => r?.type === "kubernetes:helm.sh/v3:Release";
  const known = new Set<string>(((d.resources ?? []) as any[]).filter(isRelease).map(id));
  const pending = new Map<string, { type: string; urn: string }>();
  for (const op of (d.pending_operations ?? []) as any[]) {
    if (isRelease(op.resource)) pending.set(id(op.resource), { type: op.type, urn: op.resource.urn });
  }
  return { known, pending };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

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
    const k = releaseKey(r.namespace, r.name);
    if ((latest.get(k)?.revision ?? 0) < r.revision) latest.set(k, r);
  }
  const out: Record<string, string> = {};
  for (const rel of releases) {
    const k = releaseKey(rel.namespace, rel.name);
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

/** The fields of a StatefulSet `adoptionSource` reads. */
export interface AdoptedStatefulSet {
  metadata?: { uid?: string; deletionTimestamp?: string };
  spec?: { volumeClaimTemplates?: { metadata?: { labels?: Record<string, string> } }[] };
}

/**
 * Which StatefulSet a Cassandra adoption (components/scripts/cassandra-prepare.sh) works from (pure). Input:
 * the live StatefulSet (undefined when absent), the adoption record's data (undefined when absent), and the claim
 * label only the Bitnami chart's StatefulSet carries. Output: the UID of the live StatefulSet when it is not being
 * deleted and its claim template has the Bitnami label (what is to be adopted now); otherwise the UID the record
 * says the adoption started from (`source`); "" when neither exists. The value stays the same while one adoption
 * runs and resumes (the StatefulSet it deletes is the one recorded) and changes when a rollback puts a Bitnami
 * StatefulSet back, so the prepare step, which takes it as an input, runs again exactly then.
 */
export function adoptionSource(
  sts: AdoptedStatefulSet | undefined,
  record: Readonly<Record<string, string>> | undefined,
  bitnamiClaimLabel: string,
): string {
  const uid = sts?.metadata?.uid;
  const bitnami = (sts?.spec?.volumeClaimTemplates ?? []).some(
    (t) => t.metadata?.labels?.[bitnamiClaimLabel] !== undefined,
  );
  if (uid && bitnami && !sts?.metadata?.deletionTimestamp) return uid;
  return record?.["source"] ?? "";
}
