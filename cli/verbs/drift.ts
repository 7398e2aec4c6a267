/**
 * `nvcf drift --env <env>`: finds what changed on the clusters behind the program's back. Every stack of the
 * environment gets a preview that refreshes first, in memory (`pulumi preview --refresh`: nothing is written to
 * the state or the clusters), control plane first, then the compute planes, bounded in parallel. Per stack the
 * summary names each release and each other object that differs, and how:
 *
 * - `changed outside the program`: the refresh read something other than the state holds (for a Helm release:
 *   its release record, i.e. a Helm revision, chart version or values the program did not write; for any other
 *   object: the object itself), with the leaves that differ, and what `nvcf up --refresh` would do to put it back
 *   (a plain `nvcf up` compares with the state, which still holds what the program applied, and changes nothing);
 * - `deleted outside the program`: the refresh found the object gone; `nvcf up --refresh` creates it again;
 * - `not applied yet`: nothing changed on the cluster, but the program (its config or code) now asks for
 *   something else; `nvcf up` applies it.
 *
 * What a Helm release's refresh reads is its release record, not the objects the release made: an object edited
 * with kubectl (a Deployment scaled, a ConfigMap patched) leaves the record as it was and is not reported
 * (docs/drift.md). Exit: EXIT.drift when anything differs, EXIT.ok when nothing does; EXIT.config or
 * EXIT.deployment when a preview failed (its lines on stderr).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { RELEASE_TYPE } from "../../catalog/releases";
import { releaseName, urnName } from "../progress";
import { CliError } from "../report";
import { EXIT, type Environment, type ExitCode, type StackFile } from "../types";
import {
  describeInput,
  displayValue,
  hidden,
  leafDiffs,
  plural,
  type ResourceChange,
  stackChanges,
} from "./preview";

/** How a resource differs from what the program last applied. */
export type DriftKind = "changed" | "deleted" | "pending";

/** One release or object that differs. */
export interface DriftItem {
  /** The Helm release name for a release, else the resource name. */
  name: string;
  type: string;
  kind: DriftKind;
  /**
   * What the refresh read that the state did not hold, one entry per leaf: `path: state → cluster` (values
   * shortened, `[secret]` for secrets; the path alone when the value is an object or long). Empty for `deleted`
   * and `pending`.
   */
  outside: string[];
  /** For a release: the Helm revision in the state and on the cluster, when they differ. */
  revision?: { state: number; cluster: number };
  /** What `nvcf up` would do to it (the preview's step after the refresh); absent when it would change nothing. */
  back?: ResourceChange;
}

/** What one stack's refresh-preview found. */
export interface StackDrift {
  stack: string;
  items: DriftItem[];
}

/** A step's resource, as the engine's event names it. */
type OutputsMetadata = NonNullable<EngineEvent["resOutputsEvent"]>["metadata"];

/**
 * Outputs that change without anyone changing the object (the API server's bookkeeping, the status it writes,
 * the provider's own records): not drift. Keys at the top of a resource's outputs, or paths under `metadata`.
 */
const BOOKKEEPING_TOP = new Set(["status", "__fieldManager", "__initialApiVersion", "__inputs"]);
const BOOKKEEPING_METADATA = new Set([
  "resourceVersion",
  "managedFields",
  "generation",
  "uid",
  "creationTimestamp",
  "selfLink",
]);
/** The outputs of a Helm release that say what is installed (the rest repeats the program's own options). */
const RELEASE_OUTPUTS = ["chart", "version", "values", "name", "namespace"];

/**
 * The leaves where a refresh found a resource's outputs other than the state held (`old` the state's, `new` the
 * cluster's), as `path: state → cluster` lines; the bookkeeping the API server and the provider change by
 * themselves is left out (`BOOKKEEPING_TOP`, `BOOKKEEPING_METADATA`), and of a Helm release only what is installed
 * is compared (`RELEASE_OUTPUTS`; its revision is `releaseRevisions`). Secrets show as `[secret]`.
 */
export function outsideChanges(
  type: string,
  old: Record<string, unknown> | undefined,
  next: Record<string, unknown> | undefined,
): string[] {
  if (!old || !next) return [];
  const keys =
    type === RELEASE_TYPE
      ? RELEASE_OUTPUTS
      : [...new Set([...Object.keys(old), ...Object.keys(next)])]
          .filter((k) => !BOOKKEEPING_TOP.has(k))
          .sort();
  const out: string[] = [];
  for (const k of keys) {
    if (JSON.stringify(old[k]) === JSON.stringify(next[k])) continue;
    const leaves = (leafDiffs(old[k], next[k], k, 20) ?? [k]).filter((p) => {
      const m = /^metadata\.([A-Za-z]+)/.exec(p);
      return !(m && BOOKKEEPING_METADATA.has(m[1]));
    });
    for (const p of leaves) {
      const a = displayValue(old, p);
      const b = displayValue(next, p);
      out.push(a !== undefined || b !== undefined ? `${p}: ${a ?? "(none)"} → ${b ?? "(none)"}` : p);
    }
  }
  return out;
}

/** A release's Helm revision in its outputs (`status.revision`), when it has one. */
function revisionOf(outputs: Record<string, unknown> | undefined): number | undefined {
  const r = (outputs?.["status"] as Record<string, unknown> | undefined)?.["revision"];
  return typeof r === "number" ? r : undefined;
}

/**
 * What one stack's refresh-preview found, from its engine events: the refresh steps (`resOutputsEvent` with op
 * `refresh`: the state's outputs as `old`, what was read as `new`, none when the object is gone) and the preview's
 * steps after them (`stackChanges`). Resources the program only reads (`get` lookups, stack references), the
 * stack and component resources are left out. Items sorted releases first, then by name.
 */
export function stackDrift(stack: string, events: readonly EngineEvent[]): StackDrift {
  const reads = new Set<string>();
  const refreshed = new Map<string, OutputsMetadata>();
  for (const e of events) {
    const pre = e.resourcePreEvent?.metadata;
    if (pre && (pre.op === "read" || pre.op === "read-replacement")) reads.add(pre.urn);
    const m = e.resOutputsEvent?.metadata;
    if (m && m.op === "refresh" && !hidden(m.type)) refreshed.set(m.urn, m);
  }
  const changes = stackChanges(stack, events);
  const byName = new Map<string, ResourceChange>();
  for (const c of [...changes.releases, ...changes.others]) byName.set(`${c.type}\0${c.name}`, c);
  const items: DriftItem[] = [];
  const seen = new Set<string>();
  for (const [urn, m] of refreshed) {
    if (reads.has(urn)) continue;
    const release = m.type === RELEASE_TYPE;
    const name = release ? releaseName(m) : urnName(urn);
    const key = `${m.type}\0${name}`;
    const back = byName.get(key);
    const gone = !!m.old?.outputs && !m.new?.outputs;
    const outside = gone ? [] : outsideChanges(m.type, m.old?.outputs, m.new?.outputs);
    const from = revisionOf(m.old?.outputs);
    const to = revisionOf(m.new?.outputs);
    const revision =
      release && from !== undefined && to !== undefined && from !== to
        ? { state: from, cluster: to }
        : undefined;
    if (!gone && outside.length === 0 && !revision) continue;
    seen.add(key);
    items.push({
      name,
      type: m.type,
      kind: gone ? "deleted" : "changed",
      outside,
      ...(revision ? { revision } : {}),
      ...(back ? { back } : {}),
    });
  }
  for (const [key, c] of byName) {
    if (seen.has(key)) continue;
    items.push({ name: c.name, type: c.type, kind: "pending", outside: [], back: c });
  }
  const rank = (i: DriftItem) => (i.type === RELEASE_TYPE ? 0 : 1);
  items.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name) || a.type.localeCompare(b.type));
  return { stack, items };
}

const BACK: Record<string, string> = {
  create: "creates it again",
  update: "updates it back",
  delete: "deletes it",
  replace: "replaces it",
  import: "imports it",
};
const RELEASE_BACK: Record<string, string> = {
  create: "installs it again",
  update: "upgrades it back",
  delete: "uninstalls it",
  replace: "reinstalls it",
  import: "imports it",
};

/** One item's line: what differs, then what `nvcf up` would do (with the inputs it would set). */
function itemLine(i: DriftItem): string {
  const release = i.type === RELEASE_TYPE;
  const what = release ? `release ${i.name}` : `${i.type} ${i.name}`;
  const parts: string[] = [];
  if (i.kind === "deleted") parts.push("deleted outside the program");
  if (i.kind === "changed") {
    const rev = i.revision ? ` (Helm revision ${i.revision.state} → ${i.revision.cluster})` : "";
    parts.push(`changed outside the program${rev}${i.outside.length ? `: ${i.outside.join("; ")}` : ""}`);
  }
  if (i.kind === "pending")
    parts.push("not applied yet (the program asks for other than its last update applied)");
  if (i.back) {
    const back = (release ? RELEASE_BACK : BACK)[i.back.op] ?? i.back.op;
    // Nothing to put back for a change not applied yet: up applies it.
    const verb = i.kind === "pending" ? back.replace(/ (back|again)$/, "") : back;
    // The step's old inputs are the state's, which the refresh leaves as they were: only the value up sets is shown.
    const inputs = i.back.inputs
      .map((x) => describeInput({ ...x, from: i.kind === "pending" ? x.from : undefined }))
      .join("; ");
    parts.push(`nvcf up --refresh ${verb}${inputs ? `: ${inputs}` : ""}`);
  } else if (i.kind === "changed") {
    parts.push("nvcf up --refresh changes nothing here: the program does not set what changed");
  }
  const mark = i.kind === "deleted" ? "-" : i.kind === "pending" ? "~" : "!";
  return `  ${mark} ${what}: ${parts.join("; ")}`;
}

/**
 * The drift summary: per stack a line (`no drift`, or the counts), under it one line per release and per other
 * object (`itemLine`: `!` changed outside the program, `-` deleted outside it, `~` not applied yet), then the
 * stacks that failed or were not checked, then a total line naming the command that puts things back.
 */
export function formatDrift(
  env: string,
  drifts: readonly StackDrift[],
  failed: readonly string[] = [],
  notChecked: readonly { stack: string; why: string }[] = [],
): string[] {
  const lines: string[] = [];
  let stacks = 0;
  let releases = 0;
  let others = 0;
  for (const d of drifts) {
    if (d.items.length === 0) {
      lines.push(`${d.stack}: no drift`);
      continue;
    }
    stacks++;
    const r = d.items.filter((i) => i.type === RELEASE_TYPE).length;
    releases += r;
    others += d.items.length - r;
    lines.push(
      `${d.stack}: ${plural(r, "release")} and ${plural(d.items.length - r, "other object")} differ`,
    );
    for (const i of d.items) lines.push(itemLine(i));
  }
  for (const f of failed) lines.push(`${f}: drift check FAILED (see above)`);
  for (const n of notChecked) lines.push(`${n.stack}: not checked: ${n.why}`);
  const total = drifts.length + failed.length + notChecked.length;
  lines.push(
    stacks === 0
      ? `no drift in ${plural(drifts.length, "stack")}` +
          (failed.length ? `; ${plural(failed.length, "stack")} failed` : "") +
          (notChecked.length ? `; ${plural(notChecked.length, "stack")} not checked` : "")
      : `drift in ${stacks} of ${plural(total, "stack")}: ${plural(releases, "release")}, ${plural(others, "other object")}` +
          (failed.length ? `; ${plural(failed.length, "stack")} failed` : "") +
          `. nvcf up --env ${env} --refresh puts it back (nvcf preview --env ${env} --refresh shows how)`,
  );
  return lines;
}

/** Options of `nvcf drift`. */
export interface DriftOptions {
  stack?: string[];
  parallel: number;
  json?: boolean;
}

/**
 * Runs the verb: a refresh-preview of every selected stack the backend holds resources for (a stack never
 * deployed is reported as not checked; compute planes are not checked while their control plane is not deployed),
 * failures' lines on stderr, the summary (`formatDrift`) or with `json` the `StackDrift` list on stdout. Nothing is
 * written to the state or the clusters. Exit: EXIT.config / EXIT.deployment when a preview failed, else EXIT.drift
 * when anything differs, else EXIT.ok.
 */
export async function drift(env: Environment, opts: DriftOptions): Promise<ExitCode> {
  const { mapBounded, openStack, resourceCounts, runOperation } = await import("../automation");
  const { reportFailures, selectStacks } = await import("./select");
  const { control, compute } = selectStacks(env, opts.stack);
  const counts = await resourceCounts(env);
  const deployed = (s: StackFile) => (counts.get(s.stack) ?? 0) > 0;
  const notChecked: { stack: string; why: string }[] = [];
  const one = async (s: StackFile) => {
    const stack = await openStack(env, s);
    if (!stack) throw new CliError(EXIT.internal, `stack ${s.stack} could not be opened`);
    return runOperation("preview", stack, { refresh: true });
  };
  const targets: StackFile[] = [];
  for (const s of [...(control ? [control] : []), ...compute]) {
    if (deployed(s)) targets.push(s);
    else
      notChecked.push({ stack: s.stack, why: "never deployed (nothing on its cluster belongs to it yet)" });
  }
  const first = targets[0] === control && control ? [await one(control)] : [];
  const results = [...first, ...(await mapBounded(targets.slice(first.length), opts.parallel, one))];
  const code = reportFailures(results);
  const drifts = results.filter((r) => r.ok).map((r) => stackDrift(r.stack, r.events));
  const failed = results.filter((r) => !r.ok).map((r) => r.stack);
  if (opts.json) process.stdout.write(`${JSON.stringify({ stacks: drifts, failed, notChecked }, null, 2)}\n`);
  else for (const l of formatDrift(env.name, drifts, failed, notChecked)) process.stdout.write(`${l}\n`);
  if (code !== EXIT.ok) return code;
  return drifts.some((d) => d.items.length > 0) ? EXIT.drift : EXIT.ok;
}
