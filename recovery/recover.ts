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
 * The decisions are pure (recovery/plan.ts: `planRelease`, `healthyImports`); the cluster and state reads and the
 * deletions are in `recoverReleases`. During `pulumi preview` nothing is changed: the plan is only reported. When nothing is
 * wrong (every release's latest record `deployed`), one kubectl call for Helm's labels is all it costs.
 */
import * as pulumi from "@pulumi/pulumi";
import { Kube, execCommand, kubeconfigFile } from "../kube/kubectl";
import {
  type AdoptedStatefulSet,
  type HelmRecord,
  adoptionSource,
  type HookObject,
  type ReleaseRef,
  type StateView,
  blocksReinstall,
  healthyImports,
  isPending,
  namespaceNames,
  parseHelmRecordTable,
  parseHelmRecords,
  parseHookObjects,
  parseState,
  planRelease,
  releaseKey,
} from "./plan";

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
    const ours = new Set(opts.releases.map((r) => releaseKey(r.namespace, r.name)));
    if (labels.some((r) => ours.has(releaseKey(r.namespace, r.name))) && !(await readPayloads()))
      return adopt;
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
    const recorded = new Set(labels.map((r) => releaseKey(r.namespace, r.name)));
    const toRead = new Set(
      opts.releases.filter((r) => !recorded.has(releaseKey(r.namespace, r.name))).map((r) => r.namespace),
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
        if (mine.length === 0 && state?.known.has(releaseKey(rel.namespace, rel.name))) leftovers = [];
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

/** Where `cassandraAdoptionSource` looks: the namespace and the names the adoption steps use. */
export interface AdoptionNames {
  namespace: string;
  statefulSet: string;
  /** The adoption record ConfigMap (components/upgradeSteps.ts `ADOPTION_RECORD`). */
  record: string;
  /** The claim-template label only the Bitnami chart sets (components/upgradeSteps.ts `BITNAMI_CLAIM_LABEL`). */
  bitnamiClaimLabel: string;
}

/**
 * The StatefulSet a Cassandra adoption works from, read from the cluster with two GETs (`adoptionSource` in
 * recovery/plan.ts decides; read-only, also in a preview). Output: a UID, or "" when neither the StatefulSet nor
 * the record exists ("" also under the unit tests' mocks, which read no cluster). Throws `RecoveryError` when a
 * read fails for another reason than "not found" (the cluster does not answer), naming the kubectl call: a guess
 * would make the step run again, or not, for the wrong reason.
 */
export async function cassandraAdoptionSource(access: ClusterAccess, names: AdoptionNames): Promise<string> {
  // Unit tests run the program with mocks and must never touch a cluster.
  if (!underEngine()) return "";
  const { kube, close } = kubeFor(access, {});
  try {
    const get = async <T>(kind: string, name: string): Promise<T | undefined> => {
      try {
        return await kube.maybe<T>(["-n", names.namespace, "get", kind, name]);
      } catch (e) {
        throw new RecoveryError(`reading ${kind} ${names.namespace}/${name}: ${(e as Error).message}`);
      }
    };
    const [sts, record] = await Promise.all([
      get<AdoptedStatefulSet>("statefulset", names.statefulSet),
      get<{ data?: Record<string, string> }>("configmap", names.record),
    ]);
    return adoptionSource(sts, record?.data, names.bitnamiClaimLabel);
  } finally {
    close();
  }
}

/**
 * A `Kube` (kube/kubectl.ts) aimed at the cluster of `access` with a 20 s request timeout: a kubeconfig text is
 * written to a private temporary file, which `close()` removes; a context is passed as `--context`. `options`
 * adds to the `Kube` options (a call's time limit, the output buffer).
 */
function kubeFor(
  access: ClusterAccess,
  options: { timeoutMs?: number; maxBuffer?: number },
): { kube: Kube; close: () => void } {
  const file = access.kubeconfig !== undefined ? kubeconfigFile(access.kubeconfig) : undefined;
  const kube = new Kube(file !== undefined ? { kubeconfig: file.file } : { context: access.context }, {
    kubectl: access.kubectl,
    requestTimeout: "20s",
    ...options,
  });
  return { kube, close: () => file?.remove() };
}

/**
 * kubectl aimed at the cluster of `access` (kube/kubectl.ts `Kube`: a kubeconfig text is written to a private
 * temporary file until `close()`), with a 20 s request timeout and no limit on a call's duration, one try per call.
 */
function kubectlRunner(access: ClusterAccess): KubectlRunner {
  const { kube, close } = kubeFor(access, { timeoutMs: 0, maxBuffer: MAX_OUTPUT });
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
    close,
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
