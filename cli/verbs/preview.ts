/**
 * `nvcf preview --env <env>`: previews every stack of the environment (control plane first, then the compute
 * planes, bounded in parallel) and prints one summary: per stack, which Helm releases would change and why
 * (the inputs the engine's diff names, old → new where the value is short and not secret), then the other
 * resources. `--expect-no-changes` exits EXIT.drift when anything would change.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { parsePropertyPath } from "../../config/paths";
import { describeRegistrationUpdate } from "../../values/registration";
import { RELEASE_TYPE } from "../../catalog/releases";
import { releaseName, urnName } from "../progress";
import { CliError } from "../report";
import type { OperationResult } from "../automation";
import { EXIT, type Environment, type ExitCode, type StackFile } from "../types";

/** One input of a resource that changes, as the engine's diff names it. */
export interface InputChange {
  /** Property path, e.g. `values.api.replicaCount` or `version`. */
  path: string;
  /** add, delete, update (the engine's diff kind without `-replace`); `replace` when it forces one. */
  kind: string;
  /** Old and new value, shortened, or `[secret]`; absent when the value is an object or not known. */
  from?: string;
  to?: string;
}

/** One resource that would change. */
export interface ResourceChange {
  /** Helm release name for a release, else the resource name. */
  name: string;
  type: string;
  /** create, update, delete or replace. */
  op: string;
  inputs: InputChange[];
  /** What the step will run, for steps whose effect the inputs alone do not say (`stepAction`). */
  action?: string;
}

/** What a stack's preview says would change. */
export interface StackChanges {
  stack: string;
  releases: ResourceChange[];
  others: ResourceChange[];
  /**
   * The program's own information and warnings for the stack (e.g. keys passed unchecked, changes let through
   * by `nvcf:allowInstalledChanges`, a hook that applies a change; docs/installed-settings.md), once each.
   */
  notes: string[];
}

const SECRET_MARK = "[secret]";
/** The engine's stand-in for a value a preview cannot know yet (`resource.UnknownStringValue`), and how it is shown. */
const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const UNKNOWN_MARK = "[unknown]";
/** The engine's marker of a secret value in serialized state (the `4dabf…` signature key). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
/** Key names whose value is treated as secret even when not marked so (masking more than needed is safe). */
const SECRET_NAME = /(password|passwd|secret|token|credential|apikey|api_key|registrykey|kubeconfig|auth)/i;

/** True for a value the engine marks secret (in events: `[secret]`; in state: the secret signature). */
export function isSecret(v: unknown): boolean {
  return v === SECRET_MARK || (typeof v === "object" && v !== null && SECRET_SIG in v);
}

/**
 * The value at a property path of a resource's inputs for display: `[secret]` when the value or any object
 * on the way is secret or the path names a credential; `[unknown]` for a value the preview cannot know yet
 * (known once the update has run); a short JSON text for scalars; `undefined` for objects, lists, long values
 * and absent ones.
 */
export function displayValue(inputs: Record<string, unknown> | undefined, path: string): string | undefined {
  const segs = parsePropertyPath(path);
  if (segs.some((s) => typeof s === "string" && SECRET_NAME.test(s))) return SECRET_MARK;
  let cur: unknown = inputs;
  for (const s of segs) {
    if (isSecret(cur)) return SECRET_MARK;
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[s];
  }
  if (isSecret(cur)) return SECRET_MARK;
  if (cur === UNKNOWN_VALUE) return UNKNOWN_MARK;
  if (cur === undefined || (typeof cur === "object" && cur !== null)) return undefined;
  const text = JSON.stringify(cur);
  return text.length > 60 ? undefined : text;
}

/** The raw value at a property path, or `undefined` when absent or secret anywhere on the way. */
export function rawValue(inputs: Record<string, unknown> | undefined, path: string): unknown {
  let cur: unknown = inputs;
  for (const s of parsePropertyPath(path)) {
    if (isSecret(cur) || cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[s];
  }
  return isSecret(cur) ? undefined : cur;
}

/** Appends a key to a property path (`a.b`, `a["x.y"]`, `a[0]`). */
function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

/**
 * The leaf paths under `base` where two plain (non-secret) objects or lists differ, at most `limit`
 * (`undefined` when there are more, or when either side is not an object).
 */
export function leafDiffs(a: unknown, b: unknown, base: string, limit = 6): string[] | undefined {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, p: string): boolean => {
    const obj = (v: unknown) => typeof v === "object" && v !== null && !isSecret(v);
    if (obj(x) && obj(y) && Array.isArray(x) === Array.isArray(y)) {
      const xs = x as Record<string, unknown>;
      const ys = y as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(xs), ...Object.keys(ys)])].sort();
      for (const k of keys) {
        const key = Array.isArray(x) ? Number(k) : k;
        if (!walk(xs[k], ys[k], joinPath(p, key))) return false;
      }
      return true;
    }
    if (JSON.stringify(x) === JSON.stringify(y)) return true;
    out.push(p);
    return out.length <= limit;
  };
  const isObj = (v: unknown) => typeof v === "object" && v !== null && !isSecret(v);
  if (!isObj(a) || !isObj(b)) return undefined;
  return walk(a, b, base) && out.length > 0 ? out : undefined;
}

/** The ops a summary reports; replacement steps fold into `replace`. */
function foldOp(op: string): string | undefined {
  if (op === "create" || op === "update" || op === "delete" || op === "replace" || op === "import") return op;
  if (op === "create-replacement" || op === "delete-replaced") return "replace";
  return undefined;
}

/** Resources not worth a line of their own: the stack, components (their children are shown). */
export function hidden(type: string): boolean {
  return type === "pulumi:pulumi:Stack" || type.startsWith("nvcf:index:");
}

/** A step's resource, as the engine's event names it. */
type PreMetadata = NonNullable<EngineEvent["resourcePreEvent"]>["metadata"];

/** The plain string environment of a command's inputs (secret entries left out). */
function commandEnv(inputs: Record<string, unknown> | undefined): Record<string, string> {
  const env = inputs?.["environment"];
  if (!env || typeof env !== "object" || isSecret(env)) return {};
  return Object.fromEntries(
    Object.entries(env as Record<string, unknown>).filter(
      (e): e is [string, string] => typeof e[1] === "string",
    ),
  );
}

/**
 * What a step runs, where its inputs alone do not say it: a GPU cluster's registration (components/
 * registration.ts: which nvcf-cli command, what it keeps) and the NVCA operator's restart
 * (components/operatorRestart.ts). Undefined for every other step.
 */
export function stepAction(m: PreMetadata, op: string): string | undefined {
  if (m.type !== "command:local:Command") return undefined;
  const name = urnName(m.urn);
  if (m.urn.includes("nvcf:index:ClusterRegistration$")) {
    const next = commandEnv(m.new?.inputs);
    const old = commandEnv(m.old?.inputs);
    const cluster = next["NVCFP_CLUSTER_NAME"] ?? old["NVCFP_CLUSTER_NAME"] ?? name;
    if (op === "create")
      return `runs nvcf-cli cluster register --name ${cluster} --region ${next["NVCFP_REGION"] ?? "?"} --ignore-existing`;
    if (op === "delete") return `runs nvcf-cli cluster delete: deregisters ${cluster} from ICMS`;
    if (op !== "update") return undefined;
    // The last run's inputs are what its values block was printed from; the ID itself is not needed here.
    const recorded = {
      clusterID: "recorded",
      ncaID: old["NVCFP_NCA_ID"] ?? "",
      region: old["NVCFP_REGION"] ?? "",
      icmsServiceURL: old["NVCFP_ICMS_URL"] ?? "",
    };
    return describeRegistrationUpdate(cluster, {
      recorded,
      ncaId: next["NVCFP_NCA_ID"] ?? "",
      region: next["NVCFP_REGION"] ?? "",
      icmsUrl: next["NVCFP_ICMS_URL"] ?? "",
    });
  }
  if (name.endsWith("-operator-restart") && op === "update")
    return "runs kubectl rollout restart deployment/nvca-operator -n nvca-operator: the operator reads the cluster identity only when it starts";
  return undefined;
}

/**
 * What would change in one stack, from its preview's engine events (resourcePreEvent steps): releases and
 * other resources, each with the inputs its diff names (`detailedDiff` when the provider gave one, else
 * `diffs`). Steps that change nothing, the stack resource and component resources are left out.
 */
export function stackChanges(stack: string, events: readonly EngineEvent[]): StackChanges {
  const byUrn = new Map<string, ResourceChange>();
  for (const e of events) {
    const m = e.resourcePreEvent?.metadata;
    if (!m || hidden(m.type)) continue;
    const op = foldOp(m.op);
    if (!op) continue;
    const prev = byUrn.get(m.urn);
    // A replacement comes as several steps (delete-replaced, replace, create-replacement); keep the one
    // that carries the diff.
    if (prev && prev.op === "replace" && (prev.inputs.length > 0 || !(m.detailedDiff || m.diffs))) continue;
    const inputs: InputChange[] = [];
    if (op === "update" || op === "replace") {
      const detailed = m.detailedDiff ?? {};
      const paths = Object.keys(detailed).length ? Object.keys(detailed) : (m.diffs ?? []);
      for (const p of paths.sort()) {
        const d = detailed[p];
        const kind = d ? d.diffKind.replace(/-replace$/, "") : "update";
        const forces = d ? d.diffKind.endsWith("-replace") : (m.keys ?? []).includes(p);
        const k = forces ? "replace" : kind;
        // A whole object named (e.g. a command's environment): name the leaves that differ inside it.
        const leaves = leafDiffs(rawValue(m.old?.inputs, p), rawValue(m.new?.inputs, p), p) ?? [p];
        for (const leaf of leaves) {
          const from = kind === "add" ? undefined : displayValue(m.old?.inputs, leaf);
          const to = kind === "delete" ? undefined : displayValue(m.new?.inputs, leaf);
          inputs.push({ path: leaf, kind: k, from, to });
        }
      }
    }
    const name = m.type === RELEASE_TYPE ? releaseName(m) : urnName(m.urn);
    const action = stepAction(m, op);
    byUrn.set(m.urn, { name, type: m.type, op, inputs, ...(action ? { action } : {}) });
  }
  const all = [...byUrn.values()];
  const order = (a: ResourceChange, b: ResourceChange) =>
    a.name.localeCompare(b.name) || a.type.localeCompare(b.type);
  return {
    stack,
    releases: all.filter((r) => r.type === RELEASE_TYPE).sort(order),
    others: all.filter((r) => r.type !== RELEASE_TYPE).sort(order),
    notes: programNotes(events),
  };
}

/**
 * The program's information and warning messages about the stack as a whole (diagnostics of the stack resource,
 * which the program's config checks log against it), and the API server's warnings the server-side dry run logs
 * on a release (engine/dryRun.ts: `server-side dry run of release …`, severity warning), trimmed, each once, in
 * order. Other diagnostics of no resource (the engine's and plugins' own) and of other resources are left out.
 */
export function programNotes(events: readonly EngineEvent[]): string[] {
  const notes: string[] = [];
  for (const e of events) {
    const d = e.diagnosticEvent;
    if (!d || (d.severity !== "info" && d.severity !== "warning") || d.ephemeral) continue;
    const dryRunWarning = d.severity === "warning" && d.message.startsWith("server-side dry run of release ");
    if (!d.urn?.includes("::pulumi:pulumi:Stack::") && !dryRunWarning) continue;
    const text = d.message.trim();
    if (text && !notes.includes(text)) notes.push(text);
  }
  return notes;
}

const SYMBOL: Record<string, string> = { create: "+", update: "~", delete: "-", replace: "+-", import: "=" };
const RELEASE_OP: Record<string, string> = {
  create: "install",
  update: "upgrade",
  delete: "uninstall",
  replace: "reinstall",
  import: "import",
};

/** One input change as the summaries print it: `path: old → new`, with the kind when it is not an update. */
export function describeInput(i: InputChange): string {
  const tag = i.kind === "update" ? "" : ` (${i.kind === "replace" ? "forces a replacement" : i.kind})`;
  if (i.from !== undefined && i.to !== undefined) return `${i.path}: ${i.from} → ${i.to}${tag}`;
  if (i.to !== undefined) return `${i.path}: ${i.to}${tag}`;
  if (i.from !== undefined) return `${i.path}: was ${i.from}${tag}`;
  return `${i.path}${tag}`;
}

/** `1 release`, `2 releases`: a count and its noun. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * The lines of the preview summary for the stacks given (in order): a line per stack (`no changes`, or the
 * count of releases and other resources), under it one line per release (`~ release api (upgrade):
 * values.api.replicaCount: 1 → 2; version: "1.0.0" → "1.1.0"`) and per other resource, then a total line.
 * Each stack's notes (the program's information and warnings) follow its lines as `  note: …`.
 * `failed` names stacks whose preview failed (shown as such, not counted).
 */
export function formatPreview(changes: readonly StackChanges[], failed: readonly string[] = []): string[] {
  const lines: string[] = [];
  let changedStacks = 0;
  let releases = 0;
  let others = 0;
  for (const c of changes) {
    const n = c.releases.length + c.others.length;
    const notes = (c.notes ?? []).map((m) => `  note: ${m.replace(/\s*\n\s*/g, " ")}`);
    if (n === 0) {
      lines.push(`${c.stack}: no changes`, ...notes);
      continue;
    }
    changedStacks++;
    releases += c.releases.length;
    others += c.others.length;
    lines.push(
      `${c.stack}: ${plural(c.releases.length, "release")} and ${plural(c.others.length, "other resource")} would change`,
    );
    for (const r of c.releases) {
      const why = r.inputs.map(describeInput).join("; ");
      lines.push(
        `  ${SYMBOL[r.op] ?? r.op} release ${r.name} (${RELEASE_OP[r.op] ?? r.op})${why ? `: ${why}` : ""}`,
      );
    }
    for (const r of c.others) {
      const why = [...(r.action ? [r.action] : []), ...r.inputs.map(describeInput)].join("; ");
      lines.push(`  ${SYMBOL[r.op] ?? r.op} ${r.type} ${r.name} (${r.op})${why ? `: ${why}` : ""}`);
    }
    lines.push(...notes);
  }
  for (const f of failed) lines.push(`${f}: preview FAILED (see above)`);
  const total = changes.length + failed.length;
  lines.push(
    changedStacks === 0
      ? `no changes in ${plural(changes.length, "stack")}${failed.length ? `; ${plural(failed.length, "stack")} failed` : ""}`
      : `${changedStacks} of ${plural(total, "stack")} would change: ${plural(releases, "release")}, ${plural(others, "other resource")}` +
          (failed.length ? `; ${plural(failed.length, "stack")} failed` : ""),
  );
  return lines;
}

/**
 * The upgrade plan a stack's program printed in its preview (an info diagnostic beginning `upgrade plan of stack`,
 * upgrade/plan.ts `formatPlan`), as lines; none when the stack does not move to another bundle.
 */
export function upgradePlanLines(events: readonly EngineEvent[]): string[] {
  const d = events
    .map((e) => e.diagnosticEvent)
    .find((x) => x?.severity === "info" && /^upgrade plan of stack /.test(x.message));
  return d ? d.message.replace(/\s+$/, "").split("\n") : [];
}

/** Options of `nvcf preview`. */
export interface PreviewOptions {
  stack?: string[];
  expectNoChanges?: boolean;
  /** Refresh first, in memory: compare with the clusters instead of the state (`pulumi preview --refresh`). */
  refresh?: boolean;
  policyPack?: string[];
  parallel: number;
  json?: boolean;
}

/**
 * Runs the verb: previews the selected stacks (all of the environment by default), prints each failure's
 * lines to stderr and the summary to stdout (`--json`: the StackChanges array). Exit: EXIT.config when a
 * stack's program refused its config, EXIT.deployment when a preview failed otherwise, EXIT.drift with
 * `expectNoChanges` when anything would change, else EXIT.ok. A stack never initialised in the backend is
 * initialised (stack metadata only; no resource is touched).
 */
export async function preview(env: Environment, opts: PreviewOptions): Promise<ExitCode> {
  const { policyPacks } = await import("../automation");
  const { reportFailures, selectStacks } = await import("./select");
  const { control, compute } = selectStacks(env, opts.stack);
  const { results, notPreviewed } = await previewStacks(env, control, compute, {
    policyPacks: policyPacks(opts.policyPack),
    parallel: opts.parallel,
    refresh: opts.refresh,
  });
  const code = reportFailures(results);
  const changes = results.filter((r) => r.ok).map((r) => stackChanges(r.stack, r.events));
  if (opts.json) {
    const failed = results.filter((r) => !r.ok).map((r) => r.stack);
    process.stdout.write(`${JSON.stringify({ stacks: changes, failed, notPreviewed }, null, 2)}\n`);
  } else for (const l of previewLines(env, results, notPreviewed)) process.stdout.write(`${l}\n`);
  if (code !== EXIT.ok) return code;
  const drift = notPreviewed.length > 0 || changes.some((c) => c.releases.length + c.others.length > 0);
  return opts.expectNoChanges && drift ? EXIT.drift : EXIT.ok;
}

/**
 * Previews stacks of an environment: the control plane (when given) first, then the compute planes, at most
 * `parallel` at once, when the control-plane stack has resources in the backend; without them a compute plane has
 * no outputs to be previewed against and is returned in `notPreviewed`. A stack never initialised in the backend is
 * initialised (stack metadata only). Each preview runs the program, so its config checks and the server-side dry
 * run of every changed release (engine/dryRun.ts) refuse what `up` would fail on. Output: one result per previewed
 * stack, in order. Throws CliError(EXIT.internal) when a stack cannot be opened.
 */
export async function previewStacks(
  env: Environment,
  control: StackFile | undefined,
  compute: readonly StackFile[],
  opts: { policyPacks?: string[]; parallel: number; refresh?: boolean },
): Promise<{ results: OperationResult[]; notPreviewed: string[] }> {
  const { mapBounded, openStack, resourceCounts, runOperation } = await import("../automation");
  const one = async (s: StackFile) => {
    const stack = await openStack(env, s, { create: true });
    if (!stack) throw new CliError(EXIT.internal, `stack ${s.stack} could not be opened`);
    return runOperation("preview", stack, { policyPacks: opts.policyPacks, refresh: opts.refresh });
  };
  const controlDeployed = ((await resourceCounts(env)).get(env.control.stack) ?? 0) > 0;
  const results = [
    ...(control ? [await one(control)] : []),
    ...(controlDeployed ? await mapBounded(compute, opts.parallel, one) : []),
  ];
  return { results, notPreviewed: controlDeployed ? [] : compute.map((s) => s.stack) };
}

/**
 * The summary lines of `previewStacks`' results: each moving stack's upgrade plan (upgrade/plan.ts) first, then
 * `formatPreview`, then a line per stack not previewed (its control plane is not deployed yet).
 */
export function previewLines(
  env: Environment,
  results: readonly OperationResult[],
  notPreviewed: readonly string[],
): string[] {
  const changes = results.filter((r) => r.ok).map((r) => stackChanges(r.stack, r.events));
  const failed = results.filter((r) => !r.ok).map((r) => r.stack);
  return [
    ...results.flatMap((r) => upgradePlanLines(r.events)),
    ...formatPreview(changes, failed),
    ...notPreviewed.map(
      (n) =>
        `${n}: not previewed: control-plane stack ${env.control.stack} is not deployed yet (nvcf up deploys it first)`,
    ),
  ];
}
