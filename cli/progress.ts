/**
 * Live progress of `nvcf up` and `nvcf destroy`, per stack and per Helm release, from the engine events the
 * Automation API streams. Two renderings of the same state:
 * - plain (stdout not a TTY, or `--plain`): one line per event worth a line, never rewritten:
 *   `[    42s] dev        release cassandra installed (31s)`;
 * - TTY: the same lines for finished work, and below them a block redrawn in place (one line per stack,
 *   one per release in progress).
 */
import type { EngineEvent, OpMap } from "@pulumi/pulumi/automation";
import { RELEASE_TYPE } from "../catalog/releases";

/** The steps that change nothing (not shown, not counted as work). */
const NO_OP = new Set(["same", "read", "refresh", "discard", "discard-replaced", "remove-pending-replace"]);

/** Helm's words for what a step does to a release: [in progress, done]. */
const RELEASE_WORDS: Record<string, [string, string]> = {
  create: ["installing", "installed"],
  update: ["upgrading", "upgraded"],
  delete: ["uninstalling", "uninstalled"],
  replace: ["reinstalling", "reinstalled"],
  "create-replacement": ["reinstalling", "reinstalled"],
  "delete-replaced": ["uninstalling the replaced", "uninstalled the replaced"],
  import: ["importing", "imported"],
};

/** The last `::` part of a URN: the resource's name. */
export function urnName(urn: string): string {
  return urn.split("::").pop() ?? urn;
}

/**
 * The Helm release name of a release step (its `name` input, new state first), else the resource name.
 * Input: the metadata of a resourcePreEvent / resOutputsEvent / resOpFailedEvent.
 */
export function releaseName(m: {
  urn: string;
  new?: { inputs?: Record<string, unknown> };
  old?: { inputs?: Record<string, unknown> };
}): string {
  const n = m.new?.inputs?.["name"] ?? m.old?.inputs?.["name"];
  return typeof n === "string" && n ? n : urnName(m.urn);
}

/** Seconds as `42s` or `3m05s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** `12 created, 3 updated, 40 unchanged` from the engine's change counts, in that order (zero counts left out). */
export function formatCounts(changes: OpMap | undefined): string {
  if (!changes) return "";
  const words: [keyof OpMap, string][] = [
    ["create", "created"],
    ["update", "updated"],
    ["replace", "replaced"],
    ["delete", "deleted"],
    ["same", "unchanged"],
  ];
  return words
    .filter(([op]) => (changes[op] ?? 0) > 0)
    .map(([op, word]) => `${changes[op]} ${word}`)
    .join(", ");
}

type StackState = "waiting" | "running" | "done" | "failed";

interface ActiveRelease {
  name: string;
  op: string;
  started: number;
}

interface StackProgress {
  state: StackState;
  started?: number;
  ended?: number;
  /** Steps that do something, started and finished. */
  started_steps: number;
  done_steps: number;
  releases: Map<string, ActiveRelease>;
}

/** Where progress goes and how it is drawn. `now` (ms) is for tests; default Date.now. */
export interface ProgressOptions {
  tty: boolean;
  write: (text: string) => void;
  now?: () => number;
  /** Redraw interval of the TTY block in ms (default 500). */
  redrawMs?: number;
}

/** See the module comment. One instance per verb run; `close()` stops the TTY redraw. */
export class Progress {
  private readonly stacks = new Map<string, StackProgress>();
  private readonly now: () => number;
  private readonly t0: number;
  private width = 0;
  private drawn = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly verb: "up" | "destroy",
    stackNames: readonly string[],
    private readonly opts: ProgressOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.t0 = this.now();
    for (const s of stackNames) this.stacks.set(s, this.fresh());
    this.width = Math.max(0, ...stackNames.map((s) => s.length));
    if (opts.tty) {
      this.timer = setInterval(() => this.redraw(), opts.redrawMs ?? 500);
      this.timer.unref();
    }
  }

  private fresh(): StackProgress {
    return { state: "waiting", started_steps: 0, done_steps: 0, releases: new Map() };
  }

  private get(stack: string): StackProgress {
    let p = this.stacks.get(stack);
    if (!p) {
      p = this.fresh();
      this.stacks.set(stack, p);
      this.width = Math.max(this.width, stack.length);
    }
    return p;
  }

  private stamp(): string {
    return `[${String(Math.round((this.now() - this.t0) / 1000)).padStart(6)}s]`;
  }

  /** Prints one finished-work line (above the TTY block). */
  line(stack: string, text: string): void {
    this.emit(`${this.stamp()} ${stack.padEnd(this.width)}  ${text}`);
  }

  private emit(text: string): void {
    if (!this.opts.tty) {
      this.opts.write(`${text}\n`);
      return;
    }
    this.clear();
    this.opts.write(`${text}\n`);
    this.draw();
  }

  /** A stack's operation starts. */
  start(stack: string): void {
    const p = this.get(stack);
    p.state = "running";
    p.started = this.now();
    this.line(stack, `${this.verb} started`);
  }

  /** Feeds one engine event of a stack. */
  event(stack: string, e: EngineEvent): void {
    const p = this.get(stack);
    const pre = e.resourcePreEvent?.metadata;
    const out = e.resOutputsEvent?.metadata;
    const failed = e.resOpFailedEvent?.metadata;
    if (pre && !NO_OP.has(pre.op)) {
      p.started_steps++;
      if (pre.type === RELEASE_TYPE) {
        const name = releaseName(pre);
        p.releases.set(pre.urn, { name, op: pre.op, started: this.now() });
        this.line(stack, `release ${name} ${RELEASE_WORDS[pre.op]?.[0] ?? pre.op}`);
      }
    } else if (out && !NO_OP.has(out.op)) {
      p.done_steps++;
      const r = p.releases.get(out.urn);
      if (r) {
        p.releases.delete(out.urn);
        const took = duration((this.now() - r.started) / 1000);
        this.line(stack, `release ${r.name} ${RELEASE_WORDS[r.op]?.[1] ?? r.op} (${took})`);
      }
    } else if (failed) {
      const r = p.releases.get(failed.urn);
      p.releases.delete(failed.urn);
      const what = r ? `release ${r.name}` : `${failed.type} ${urnName(failed.urn)}`;
      this.line(stack, `${what} FAILED`);
    }
    if (this.opts.tty) this.redraw();
  }

  /** A stack's operation ended; `changes` are the engine's counts. */
  finish(stack: string, ok: boolean, changes?: OpMap): void {
    const p = this.get(stack);
    p.state = ok ? "done" : "failed";
    p.ended = this.now();
    p.releases.clear();
    const took = duration((p.ended - (p.started ?? p.ended)) / 1000);
    const counts = formatCounts(changes);
    this.line(
      stack,
      ok ? `${this.verb} done in ${took}${counts ? `: ${counts}` : ""}` : `${this.verb} FAILED after ${took}`,
    );
  }

  /** A stack the verb leaves alone (e.g. never deployed), with the reason. */
  skip(stack: string, reason: string): void {
    const p = this.get(stack);
    p.state = "done";
    this.line(stack, `${this.verb} skipped: ${reason}`);
  }

  /** The TTY block's lines: per stack its state and step counts, under it each release in progress. */
  block(): string[] {
    const lines: string[] = [];
    const t = this.now();
    for (const [name, p] of this.stacks) {
      if (p.state === "done" || p.state === "failed") continue;
      if (p.state === "waiting") {
        lines.push(`  ${name.padEnd(this.width)}  waiting`);
        continue;
      }
      const took = duration((t - (p.started ?? t)) / 1000);
      lines.push(
        `  ${name.padEnd(this.width)}  ${this.verb} running ${took}: ${p.done_steps}/${p.started_steps} steps done`,
      );
      for (const r of p.releases.values()) {
        lines.push(
          `    release ${r.name} ${RELEASE_WORDS[r.op]?.[0] ?? r.op} ${duration((t - r.started) / 1000)}`,
        );
      }
    }
    return lines;
  }

  private clear(): void {
    if (this.drawn > 0) this.opts.write(`\x1b[${this.drawn}A\x1b[J`);
    this.drawn = 0;
  }

  private draw(): void {
    const cols = process.stdout.columns || 120;
    const lines = this.block().map((l) => (l.length > cols - 1 ? l.slice(0, cols - 1) : l));
    if (lines.length) this.opts.write(`${lines.join("\n")}\n`);
    this.drawn = lines.length;
  }

  private redraw(): void {
    if (!this.opts.tty) return;
    this.clear();
    this.draw();
  }

  /** Stops the TTY redraw and removes the block. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.opts.tty) this.clear();
  }
}

/** The step resources of a bundle upgrade (components/upgradeSteps.ts) whose printed lines are shown. */
const STEP_NAME = /-(openbao-rollout|cassandra-adoption-prepare|cassandra-adoption-verify)$/;

/**
 * The lines an upgrade step printed (its `stdout` output), from its outputs event, each passed to `line` as
 * `step <name>: <text>`. Other events are ignored.
 */
export function stepLines(e: EngineEvent, line: (text: string) => void): void {
  const m = e.resOutputsEvent?.metadata;
  if (!m || m.type !== "command:local:Command" || !STEP_NAME.test(urnName(m.urn))) return;
  if (m.op === "same") return;
  const stdout = m.new?.outputs?.["stdout"];
  if (typeof stdout !== "string") return;
  const name = urnName(m.urn).replace(/^[^-]+-/, "");
  for (const l of stdout.split("\n").filter(Boolean)) line(`step ${name}: ${l}`);
}
