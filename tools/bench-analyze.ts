/**
 * The analysis behind scripts/bench.sh: per-resource durations from a Pulumi engine event log, the critical-path
 * bound of those durations over the state's dependencies, the same durations scheduled as Helmfile would run the
 * releases (tools/bench-stages.ts), each release's duration against the readiness profile's figure for it
 * (scripts/cluster.sh), and min/median/max of repeated figures.
 *
 *   npx ts-node --transpile-only tools/bench-analyze.ts stamp <fifo> <out>
 *       reads the event log Pulumi writes into <fifo> (`pulumi up --event-log <fifo>`, a flag Pulumi shows only
 *       with PULUMI_DEBUG_COMMANDS=true) and writes each event to <out> as `<epoch ms>\t<json>`: the engine's own
 *       timestamps are whole seconds, the arrival time is exact to a few milliseconds. Creates `<out>.ready`
 *       once it reads, and ends at the engine's closing event.
 *   npx ts-node --transpile-only tools/bench-analyze.ts run <stamped log> <state.json> <t0 ms>
 *       prints one JSON object (`RunFigures`) for one `pulumi up`: <state.json> is `pulumi stack export` right
 *       after it, <t0 ms> the time the command was started.
 *   npx ts-node --transpile-only tools/bench-analyze.ts stats <rows file>
 *       rows `<figure> <value>`; prints min/median/max per figure, in the order figures first appear.
 *   npx ts-node --transpile-only tools/bench-analyze.ts release-rows <profile> <figures.json>
 *       for one run under the readiness profile (<profile>: `bash scripts/cluster.sh readiness`, <figures.json>:
 *       the `run` output), prints the rows `real-release-max-over-profile` and `real-release-min-over-profile`
 *       (the largest and smallest measured ÷ profile duration over the releases the profile delays) and
 *       `real-release-helm-only-s` (median duration of the releases that make no pod: Helm's own time).
 *   npx ts-node --transpile-only tools/bench-analyze.ts releases <profile> <figures.json>...
 *       prints one line per release over the given runs: readiness steps, per-pod delay, profile figure, and
 *       the medians of its measured duration, measured ÷ profile and measured − profile.
 *
 * Errors: unreadable files, a log without resource events or a malformed profile line end the command with a
 * message and exit code 1.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as readline from "node:readline";
import { CONTROL_PLANE_STAGES, type HelmfileStage } from "./bench-stages";

/** One engine event with the time it arrived (epoch milliseconds). */
export interface StampedEvent {
  ms: number;
  event: Record<string, unknown>;
}

/** Start and end (epoch ms) of one resource's step in an update: its pre event to its outputs (or failure) event. */
export interface Timing {
  urn: string;
  type: string;
  start: number;
  end: number;
}

/** The parts of `pulumi stack export` this tool reads. */
export interface StateExport {
  deployment: { resources?: StateResource[] };
}

/** One resource of the exported state. */
export interface StateResource {
  urn: string;
  type: string;
  custom?: boolean;
  parent?: string;
  provider?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
  inputs?: Record<string, unknown>;
}

/** Parses `<ms>\t<json>` lines (blank and unparsable lines are skipped). */
export function parseStamped(text: string): StampedEvent[] {
  const out: StampedEvent[] = [];
  for (const line of text.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab < 0) continue;
    try {
      out.push({
        ms: Number(line.slice(0, tab)),
        event: JSON.parse(line.slice(tab + 1)) as Record<string, unknown>,
      });
    } catch {
      // A line cut by an interrupted run.
    }
  }
  return out;
}

const STACK_TYPE = "pulumi:pulumi:Stack";

function metadataOf(e: Record<string, unknown>, kind: string): { urn?: string; type?: string } | undefined {
  const body = e[kind] as { metadata?: { urn?: string; type?: string } } | undefined;
  return body?.metadata;
}

/**
 * Per-resource step times of one update: for every URN with a `resourcePreEvent`, the first pre event to the last
 * `resOutputsEvent` or `resOpFailedEvent`. The stack resource is left out. Output in order of start.
 */
export function resourceTimings(events: readonly StampedEvent[]): Timing[] {
  const byUrn = new Map<string, Timing>();
  for (const { ms, event } of events) {
    const pre = metadataOf(event, "resourcePreEvent");
    if (pre?.urn && pre.type !== STACK_TYPE) {
      if (!byUrn.has(pre.urn)) byUrn.set(pre.urn, { urn: pre.urn, type: pre.type ?? "", start: ms, end: ms });
      continue;
    }
    const done = metadataOf(event, "resOutputsEvent") ?? metadataOf(event, "resOpFailedEvent");
    const t = done?.urn ? byUrn.get(done.urn) : undefined;
    if (t) t.end = Math.max(t.end, ms);
  }
  return [...byUrn.values()].sort((a, b) => a.start - b.start);
}

/**
 * The dependencies of every custom resource of a state, as custom resources: `dependencies`,
 * `propertyDependencies` and the provider reference (`<urn>::<id>`); a component named as a dependency stands
 * for every custom resource below it (that is what waiting on a component means in Pulumi). Output: URN to the
 * URNs it waits for.
 */
export function customDependencies(state: StateExport): Map<string, Set<string>> {
  const resources = state.deployment.resources ?? [];
  const custom = new Set(resources.filter((r) => r.custom).map((r) => r.urn));
  const children = new Map<string, string[]>();
  for (const r of resources) if (r.parent) children.set(r.parent, [...(children.get(r.parent) ?? []), r.urn]);
  const expand = (urn: string, seen = new Set<string>()): string[] => {
    if (custom.has(urn)) return [urn];
    if (seen.has(urn)) return [];
    seen.add(urn);
    return (children.get(urn) ?? []).flatMap((c) => expand(c, seen));
  };
  const deps = new Map<string, Set<string>>();
  for (const r of resources) {
    if (!r.custom) continue;
    const direct = [...(r.dependencies ?? []), ...Object.values(r.propertyDependencies ?? {}).flat()];
    if (r.provider) direct.push(r.provider.split("::").slice(0, -1).join("::"));
    deps.set(r.urn, new Set(direct.flatMap((d) => expand(d)).filter((d) => d !== r.urn)));
  }
  return deps;
}

/**
 * The longest chain of durations over the dependencies (the critical-path bound: no schedule that honours the
 * dependencies and keeps the durations finishes sooner). Input: duration in ms per URN, dependencies per URN
 * (dependencies without a duration count 0). Output: the bound in ms and the chain, first resource first.
 * Throws on a dependency cycle.
 */
export function criticalPath(
  durations: ReadonlyMap<string, number>,
  deps: ReadonlyMap<string, ReadonlySet<string>>,
): { ms: number; path: string[] } {
  const finish = new Map<string, { ms: number; via?: string }>();
  const visiting = new Set<string>();
  const visit = (urn: string): number => {
    const known = finish.get(urn);
    if (known) return known.ms;
    if (visiting.has(urn)) throw new Error(`dependency cycle through ${urn}`);
    visiting.add(urn);
    let best = 0;
    let via: string | undefined;
    for (const d of deps.get(urn) ?? []) {
      const f = visit(d);
      if (f > best) [best, via] = [f, d];
    }
    visiting.delete(urn);
    const ms = best + (durations.get(urn) ?? 0);
    finish.set(urn, { ms, via });
    return ms;
  };
  let end: string | undefined;
  let bound = 0;
  for (const urn of durations.keys()) {
    const f = visit(urn);
    if (end === undefined || f > bound) [bound, end] = [f, urn];
  }
  const path: string[] = [];
  for (let u = end; u !== undefined; u = finish.get(u)?.via) path.unshift(u);
  return { ms: bound, path };
}

/**
 * The same release durations run as Helmfile runs its stack: the files one after the other; inside a file,
 * releases in layers of their `needs` (a layer is the releases whose needs are all in earlier layers), every
 * layer starting when the whole previous layer has finished, as Helmfile 1.x does (NVIDIA's 02-core notes this
 * layer-by-layer behaviour). Releases without a duration (not installed) are left out, with their edges.
 * Output: total ms and per file ms.
 */
export function stageSchedule(
  durations: ReadonlyMap<string, number>,
  stages: readonly HelmfileStage[] = CONTROL_PLANE_STAGES,
): { ms: number; perStage: { file: string; ms: number; layers: string[][] }[] } {
  const perStage = stages.map((stage) => {
    const present = Object.keys(stage.releases).filter((r) => durations.has(r));
    const layerOf = new Map<string, number>();
    const layer = (r: string, seen: Set<string> = new Set()): number => {
      const known = layerOf.get(r);
      if (known !== undefined) return known;
      if (seen.has(r)) throw new Error(`needs cycle through ${r} in ${stage.file}`);
      seen.add(r);
      const needs = (stage.releases[r] ?? []).filter((n) => durations.has(n));
      const l = needs.length === 0 ? 0 : 1 + Math.max(...needs.map((n) => layer(n, seen)));
      layerOf.set(r, l);
      return l;
    };
    const layers: string[][] = [];
    for (const r of present) (layers[layer(r)] ??= []).push(r);
    const ms = layers.reduce((sum, l) => sum + Math.max(...l.map((r) => durations.get(r) ?? 0)), 0);
    return { file: stage.file, ms, layers };
  });
  return { ms: perStage.reduce((s, p) => s + p.ms, 0), perStage };
}

/** min, median, max of a non-empty list. */
export function minMedianMax(values: readonly number[]): { min: number; median: number; max: number } {
  if (values.length === 0) throw new Error("no values");
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  return { min: v[0], median: mid, max: v[v.length - 1] };
}

/** The figures of one `pulumi up`, all in milliseconds. */
export interface RunFigures {
  /** Command start to the engine's first resource from the program (start-up). */
  startupMs: number;
  /** First resource step start to last resource step end. */
  resourcePhaseMs: number;
  /** Critical-path bound of the same run's step durations over the state's dependencies. */
  criticalPathMs: number;
  criticalPath: string[];
  /** Helm releases: step duration per release name. */
  releases: Record<string, number>;
  /** Helmfile's stage-barrier schedule of the release durations (control plane; 0 without releases of it). */
  stageScheduleMs: number;
  /** Custom resources (providers included) that had a step. */
  resources: number;
}

const RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";

/** Computes `RunFigures` from one run's stamped events, its exported state and its start time (ms). */
export function runFigures(events: readonly StampedEvent[], state: StateExport, t0: number): RunFigures {
  const timings = resourceTimings(events);
  if (timings.length === 0) throw new Error("the event log has no resource events");
  const byUrn = new Map((state.deployment.resources ?? []).map((r) => [r.urn, r]));
  // Components span their children's steps; only custom resources (and providers) do work of their own.
  const own = timings.filter((t) => byUrn.get(t.urn)?.custom === true);
  const durations = new Map(own.map((t) => [t.urn, t.end - t.start]));
  const cp = criticalPath(durations, customDependencies(state));
  const releases: Record<string, number> = {};
  for (const t of timings) {
    if (t.type !== RELEASE_TYPE) continue;
    const name = byUrn.get(t.urn)?.inputs?.["name"];
    releases[typeof name === "string" ? name : (t.urn.split("::").pop() ?? t.urn)] = t.end - t.start;
  }
  const start = Math.min(...timings.map((t) => t.start));
  const end = Math.max(...timings.map((t) => t.end));
  return {
    startupMs: start - t0,
    resourcePhaseMs: end - start,
    criticalPathMs: cp.ms,
    criticalPath: cp.path.map((u) => u.split("::").pop() ?? u),
    releases,
    stageScheduleMs: stageSchedule(new Map(Object.entries(releases))).ms,
    resources: own.length,
  };
}

/** Prints min/median/max per figure of `<figure> <value>` rows, in first-seen order. */
export function statsTable(rows: string): string {
  const by = new Map<string, number[]>();
  for (const line of rows.split("\n")) {
    const [k, v] = line.trim().split(/\s+/);
    if (!k || v === undefined || Number.isNaN(Number(v))) continue;
    by.set(k, [...(by.get(k) ?? []), Number(v)]);
  }
  const lines = [
    `${"figure".padEnd(44)} ${"runs".padStart(4)} ${"min".padStart(8)} ${"median".padStart(8)} ${"max".padStart(8)}`,
  ];
  for (const [k, v] of by) {
    const s = minMedianMax(v);
    const f = (x: number) => x.toFixed(2).padStart(8);
    lines.push(`${k.padEnd(44)} ${String(v.length).padStart(4)} ${f(s.min)} ${f(s.median)} ${f(s.max)}`);
  }
  return lines.join("\n");
}

/**
 * One release of the local clusters' readiness profile, as `bash scripts/cluster.sh readiness` prints it:
 * `<release> <documented minutes> <readiness steps> <per-pod delay ms>` (the delay at the scale it was run with).
 */
export interface ProfileRelease {
  release: string;
  minutes: number;
  /** Readiness steps the release's install passes through one after another (0: it makes no pod). */
  steps: number;
  podDelayMs: number;
}

/** Parses the profile lines (blank lines and `#` comments skipped). Throws on a malformed line. */
export function parseProfile(text: string): ProfileRelease[] {
  const out: ProfileRelease[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "" || t.startsWith("#")) continue;
    const [release, ...nums] = t.split(/\s+/);
    const [minutes, steps, podDelayMs] = nums.map(Number);
    if (nums.length !== 3 || [minutes, steps, podDelayMs].some((n) => !Number.isFinite(n) || n < 0))
      throw new Error(`readiness profile: bad line "${t}" (want: release minutes steps pod-delay-ms)`);
    out.push({ release, minutes, steps, podDelayMs });
  }
  return out;
}

/** One Helm release of one run under the readiness profile, against the profile's figure for it. */
export interface ReleaseAgainstProfile {
  release: string;
  steps: number;
  podDelayMs: number;
  /** The profile's time for the whole release: steps × per-pod delay; 0 when no pod of it is delayed. */
  profileMs: number;
  measuredMs: number;
}

/**
 * Every release measured in one run (`RunFigures.releases`), in the profile's order, then the releases the
 * profile does not list (not delayed: profile 0).
 */
export function releasesAgainstProfile(
  releases: Readonly<Record<string, number>>,
  profile: readonly ProfileRelease[],
): ReleaseAgainstProfile[] {
  const listed = profile.filter((p) => p.release in releases);
  const known = new Set(listed.map((p) => p.release));
  return [
    ...listed.map((p) => ({
      release: p.release,
      steps: p.steps,
      podDelayMs: p.podDelayMs,
      profileMs: p.steps * p.podDelayMs,
      measuredMs: releases[p.release],
    })),
    ...Object.keys(releases)
      .filter((r) => !known.has(r))
      .map((r) => ({ release: r, steps: 0, podDelayMs: 0, profileMs: 0, measuredMs: releases[r] })),
  ];
}

/**
 * The summary of one run over the releases the profile delays: the largest and the smallest measured ÷ profile
 * ratio (and which release each is), and Helm's own time per release, the median duration of the releases that
 * make no pod (what every release adds to its profile figure here: its objects, hooks and waits, unscaled). A
 * release counted with too few steps stands out by a large ratio, an excess over Helm's own time of about one pod
 * delay per missed step; one counted with too many finishes sooner than its profile (ratio below 1), which a
 * correctly counted release cannot. `helmOnlyMs` is undefined when every release makes pods; the ratios are 0
 * (and the names empty) when none does.
 */
export function profileSummary(rs: readonly ReleaseAgainstProfile[]): {
  maxOverProfile: number;
  maxRelease: string;
  minOverProfile: number;
  minRelease: string;
  helmOnlyMs: number | undefined;
} {
  let [maxOverProfile, maxRelease, minOverProfile, minRelease] = [0, "", 0, ""];
  for (const r of rs) {
    if (r.profileMs <= 0) continue;
    const ratio = r.measuredMs / r.profileMs;
    if (ratio > maxOverProfile) [maxOverProfile, maxRelease] = [ratio, r.release];
    if (minRelease === "" || ratio < minOverProfile) [minOverProfile, minRelease] = [ratio, r.release];
  }
  const podless = rs.filter((r) => r.profileMs <= 0).map((r) => r.measuredMs);
  return {
    maxOverProfile,
    maxRelease,
    minOverProfile,
    minRelease,
    helmOnlyMs: podless.length ? minMedianMax(podless).median : undefined,
  };
}

/** `<figure> <value>` rows of one run for the benchmark's closing table. */
export function profileRows(rs: readonly ReleaseAgainstProfile[]): string {
  const s = profileSummary(rs);
  const rows = [
    `real-release-max-over-profile ${s.maxOverProfile.toFixed(3)}`,
    `real-release-min-over-profile ${s.minOverProfile.toFixed(3)}`,
  ];
  if (s.helmOnlyMs !== undefined) rows.push(`real-release-helm-only-s ${(s.helmOnlyMs / 1000).toFixed(3)}`);
  return rows.join("\n");
}

/**
 * The per-release table of the readiness runs: for each release, its steps, per-pod delay, profile figure, and
 * the medians over the runs of its measured duration, measured ÷ profile and measured − profile (seconds).
 */
export function profileTable(runs: readonly (readonly ReleaseAgainstProfile[])[]): string {
  if (runs.length === 0) throw new Error("no runs");
  const order: string[] = [];
  const by = new Map<string, ReleaseAgainstProfile[]>();
  for (const run of runs)
    for (const r of run) {
      if (!by.has(r.release)) order.push(r.release);
      by.set(r.release, [...(by.get(r.release) ?? []), r]);
    }
  const s = (ms: number) => (ms / 1000).toFixed(2).padStart(8);
  const med = (v: number[]) => minMedianMax(v).median;
  const lines = [
    `${"release".padEnd(28)} ${"steps".padStart(5)} ${"pod-s".padStart(8)} ${"profile-s".padStart(9)} ` +
      `${"measured-s".padStart(10)} ${"÷profile".padStart(8)} ${"excess-s".padStart(8)}`,
  ];
  for (const name of order) {
    const rs = by.get(name) ?? [];
    const r = rs[0];
    const measured = med(rs.map((x) => x.measuredMs));
    const ratio = r.profileMs > 0 ? med(rs.map((x) => x.measuredMs / x.profileMs)).toFixed(2) : "-";
    lines.push(
      `${name.padEnd(28)} ${String(r.steps).padStart(5)} ${s(r.podDelayMs)} ${s(r.profileMs).padStart(9)} ` +
        `${s(measured).padStart(10)} ${ratio.padStart(8)} ${s(med(rs.map((x) => x.measuredMs - x.profileMs)))}`,
    );
  }
  const helmOnly = runs.map((run) => profileSummary(run).helmOnlyMs).filter((x) => x !== undefined);
  if (helmOnly.length)
    lines.push(
      `Helm's own time per release (median duration of the releases that make no pod): ${s(med(helmOnly)).trim()} s`,
    );
  return lines.join("\n");
}

/**
 * `stamp`: copies the lines Pulumi writes into a FIFO to a file, each prefixed by its arrival time, until the
 * engine's closing `cancelEvent`. The FIFO is opened read-write, so opening never waits for the writer; `<out>.ready`
 * is created once it is open, so the caller can start Pulumi knowing that no event waits in the pipe unstamped.
 */
async function stamp(fifo: string, out: string): Promise<void> {
  const fd = fs.openSync(out, "w");
  // A pipe handle (event loop), not a file stream: a file read of a FIFO would block a thread-pool thread,
  // and a blocked thread keeps the process from exiting.
  const input = new net.Socket({ fd: fs.openSync(fifo, "r+"), readable: true, writable: false });
  fs.writeFileSync(`${out}.ready`, "");
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  await new Promise<void>((resolve) => {
    lines.on("line", (line) => {
      if (line.trim() === "") return;
      fs.writeSync(fd, `${Date.now()}\t${line}\n`);
      if (line.includes('"cancelEvent"')) resolve();
    });
  });
  fs.closeSync(fd);
  input.destroy();
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...args] = argv;
  if (cmd === "stamp" && args.length === 2) return stamp(args[0], args[1]);
  if (cmd === "run" && args.length === 3) {
    const events = parseStamped(fs.readFileSync(args[0], "utf8"));
    const state = JSON.parse(fs.readFileSync(args[1], "utf8")) as StateExport;
    console.log(JSON.stringify(runFigures(events, state, Number(args[2]))));
    return;
  }
  if (cmd === "stats" && args.length === 1) {
    console.log(statsTable(fs.readFileSync(args[0], "utf8")));
    return;
  }
  if ((cmd === "release-rows" && args.length === 2) || (cmd === "releases" && args.length >= 2)) {
    const profile = parseProfile(fs.readFileSync(args[0], "utf8"));
    const runs = args.slice(1).map((f) => {
      const figures = JSON.parse(fs.readFileSync(f, "utf8")) as RunFigures;
      return releasesAgainstProfile(figures.releases, profile);
    });
    console.log(cmd === "releases" ? profileTable(runs) : profileRows(runs[0]));
    return;
  }
  throw new Error(
    "usage: bench-analyze.ts stamp <fifo> <out> | run <stamped log> <state.json> <t0 ms> | stats <rows> | " +
      "release-rows <profile> <figures.json> | releases <profile> <figures.json>...",
  );
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(`bench-analyze: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
