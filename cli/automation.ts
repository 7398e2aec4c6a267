/**
 * The `nvcf` command's use of the Pulumi Automation API (`@pulumi/pulumi/automation`): one LocalWorkspace on
 * the project directory (the `pulumi` CLI on PATH runs the engine with the environment's backend, passphrase
 * and kubeconfig; the program is the project's own entry point, run inside this process, `inlineProgram`),
 * stacks selected by name, engine events streamed to a callback, and the program's config problems recognised
 * in the engine's diagnostics.
 */
import {
  type EngineEvent,
  LocalWorkspace,
  type OpMap,
  type PulumiFn,
  Stack,
  StackNotFoundError,
} from "@pulumi/pulumi/automation";
import * as path from "node:path";
import { CliError } from "./report";
import { EXIT, type Environment, type StackFile } from "./types";
import { REFUSALS_HEADER } from "../config/refusals";

export { mapBounded } from "../kube/bounded";

/**
 * The header line config/problems.ts `formatProblems` writes: `stack "<name>" has <n> config problem(s);
 * nothing was changed:`.
 */
const PROBLEMS_HEADER = /^stack "[^"]+" has \d+ config problems?; nothing was changed:$/;

/**
 * The program's refusals before anything is touched inside a text (an engine diagnostic, the CLI's output), or
 * `undefined` when it holds none: the header line and the `  - ` lines under it, exactly as config/problems.ts
 * `formatProblems` (config problems) or config/refusals.ts `formatRefusals` (changes the cluster refuses in the
 * preview's server-side dry run) wrote them (any indentation the engine added in front is removed; the text is
 * expected without colour codes).
 */
export function configProblemLines(text: string): string[] | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(?:error: )?(.*)$/.exec(lines[i]);
    if (!m || !(PROBLEMS_HEADER.test(m[2]) || REFUSALS_HEADER.test(m[2]))) continue;
    const indent = m[1].length;
    const out = [m[2]];
    for (const l of lines.slice(i + 1)) {
      const body = l.slice(indent);
      if (!/^ {2}- /.test(body)) break;
      out.push(body);
    }
    return out;
  }
  return undefined;
}

/**
 * The policy packs to run with preview and up: every `--policy-pack <dir>` given, then every entry of the
 * comma-separated `NVCF_POLICY_PACKS` (empty entries ignored), without duplicates. Default: none.
 */
export function policyPacks(flags: readonly string[] = [], env = process.env["NVCF_POLICY_PACKS"]): string[] {
  const fromEnv = (env ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return [...new Set([...flags, ...fromEnv])];
}

/** One LocalWorkspace per project directory and process. */
const workspaces = new Map<string, Promise<LocalWorkspace>>();

/**
 * The program `nvcf` gives the engine for `preview` and `up`: the project's own entry point (`main` of its
 * package.json, index.ts), loaded into this process and run as a Pulumi inline program. The engine then
 * talks to this process instead of starting a Node.js language host, so Node.js, TypeScript and the SDK
 * start once per `nvcf` run instead of once per stack, and compute-plane stacks run side by side share them
 * (the SDK keeps each inline run's state apart, `@pulumi/pulumi/automation` `LanguageServer`). Same program,
 * config, state and URNs as `pulumi up` in the project directory. Input: the project directory and the
 * environment (`NVCF_INLINE_PROGRAM=0` turns it off). Output: the program, or `undefined`, and the CLI runs
 * the project as usual, when turned off or when the project resolves `@pulumi/pulumi` to another copy than
 * this process's (its program would register resources with an SDK the engine never hears from, e.g.
 * `--cwd` naming another checkout with its own node_modules).
 */
export function inlineProgram(
  projectDir: string,
  env: NodeJS.ProcessEnv = process.env,
): PulumiFn | undefined {
  if (env["NVCF_INLINE_PROGRAM"] === "0") return undefined;
  let entry: string;
  try {
    if (require.resolve("@pulumi/pulumi", { paths: [projectDir] }) !== require.resolve("@pulumi/pulumi"))
      return undefined;
    entry = require.resolve(path.resolve(projectDir));
  } catch {
    return undefined;
  }
  return async () => {
    // The SDK's per-resource traces stay out of the engine here too, and its per-promise stack traces are not
    // taken (engine/loader.ts `quietSdkTraces`, `quietPromiseTraces`).
    const { quietPromiseTraces, quietSdkTraces } = await import("../engine/loader");
    quietSdkTraces(env);
    quietPromiseTraces(env);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const program = require(entry) as PulumiFn;
    return program();
  };
}

/**
 * The LocalWorkspace on the environment's project directory (created once), with the project's program as
 * its inline program where `inlineProgram` gives one.
 */
export function workspace(env: Environment): Promise<LocalWorkspace> {
  let ws = workspaces.get(env.projectDir);
  if (!ws) {
    const program = inlineProgram(env.projectDir);
    ws = LocalWorkspace.create({ workDir: env.projectDir, ...(program ? { program } : {}) });
    workspaces.set(env.projectDir, ws);
  }
  return ws;
}

/**
 * The stack of a stack file. `create: true` initialises it in the backend when missing (what `pulumi stack
 * init` does; the stack file, with its secrets provider salt, is kept). Without `create`, a stack the
 * backend does not know yields `undefined`.
 */
export async function openStack(
  env: Environment,
  s: StackFile,
  opts: { create?: boolean } = {},
): Promise<Stack | undefined> {
  const ws = await workspace(env);
  if (opts.create) return Stack.createOrSelect(s.stack, ws);
  try {
    return await Stack.select(s.stack, ws);
  } catch (e) {
    if (e instanceof StackNotFoundError) return undefined;
    throw e;
  }
}

/**
 * Resource counts per stack name as the backend knows them (`pulumi stack ls --json`); a stack with no
 * entry was never initialised, one with 0 resources was never deployed or is destroyed.
 */
export async function resourceCounts(env: Environment): Promise<Map<string, number>> {
  const ws = await workspace(env);
  const out = new Map<string, number>();
  for (const s of await ws.listStacks()) out.set(s.name.split("/").pop() ?? s.name, s.resourceCount ?? 0);
  return out;
}

/**
 * Validates a stack's config in this process exactly as the program does at its start (config/load.ts
 * `validateConfig`, over the stack's `nvcf:` config read through the engine, secrets decrypted in memory
 * only, with the charts' keys of the project and every config key of the stack), so `up` can refuse a bad config
 * before any stack is touched. Checks that need a stack's outputs (the compute plane's bundle against its control
 * plane, changes against what the stack deployed) still run in the program.
 * Throws `CliError` (EXIT.config) whose lines are the program's formatted problem list.
 */
export async function validateStackConfig(stack: Stack): Promise<void> {
  const { raw, secret, keys } = await stackConfig(stack);
  const { validateConfig } = await import("../config/load");
  const { chartKeysFromSources } = await import("../config/chartKeys");
  await asConfigError(async () =>
    validateConfig(raw, secret, stack.name, {
      // Local chart paths are relative to the project the workspace runs (`--cwd`).
      chartKeys: chartKeysFromSources(stack.workspace.workDir),
      configKeys: keys,
    }),
  );
}

/** A stack's `nvcf:` config as the engine gives it: raw values by key (no prefix), and the secret keys. */
export interface RawStackConfig {
  raw: Record<string, string>;
  secret: Set<string>;
  /** Every config key of the stack, any namespace (`<namespace>:<key>`). */
  keys: string[];
}

const configs = new Map<string, Promise<RawStackConfig>>();

/**
 * A stack's `nvcf:` config read through the engine (`pulumi config --show-secrets --json`), secrets
 * decrypted in memory only; read once per stack and process.
 */
export function stackConfig(stack: Stack): Promise<RawStackConfig> {
  let c = configs.get(stack.name);
  if (!c) {
    c = stack.getAllConfig().then((all) => {
      const raw: Record<string, string> = {};
      const secret = new Set<string>();
      for (const [full, v] of Object.entries(all)) {
        const [ns, ...rest] = full.split(":");
        if (ns !== "nvcf") continue;
        const key = rest.join(":");
        raw[key] = v.value;
        if (v.secret) secret.add(key);
      }
      return { raw, secret, keys: Object.keys(all) };
    });
    configs.set(stack.name, c);
  }
  return c;
}

/**
 * The `secrets` callback the checks take (cli/preflight `CheckOptions.secrets`): a stack's decrypted `nvcf:`
 * config by stack name; `{}` for a stack the backend does not know (the checks then skip what needs a
 * secret, saying so).
 */
export function secretsOf(env: Environment): (stack: string) => Promise<Record<string, string>> {
  return async (name) => {
    const file = [env.control, ...env.compute].find((s) => s.stack === name);
    const stack = file ? await openStack(env, file) : undefined;
    return stack ? (await stackConfig(stack)).raw : {};
  };
}

/**
 * The control plane's `clusterRegistrations` output (GPU cluster name → its IDs), or `undefined` when the
 * control stack is not deployed or exports none.
 */
export async function registrationsOf(
  env: Environment,
): Promise<Record<string, { clusterID: string; clusterGroupID: string }> | undefined> {
  const stack = await openStack(env, env.control);
  if (!stack) return undefined;
  const v = (await stack.outputs())["clusterRegistrations"]?.value;
  return v && typeof v === "object"
    ? (v as Record<string, { clusterID: string; clusterGroupID: string }>)
    : undefined;
}

/**
 * Runs `fn`; a `ConfigError` (config/problems.ts) it throws becomes `CliError` (EXIT.config) whose lines
 * are the program's formatted problem list, exactly.
 */
export async function asConfigError<T>(fn: () => Promise<T>): Promise<T> {
  const { ConfigError } = await import("../config/problems");
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(EXIT.config, e.message, e.message.split("\n"));
    throw e;
  }
}

/** What one engine operation on one stack ended with. */
export interface OperationResult {
  stack: string;
  ok: boolean;
  /** Every engine event, in order. */
  events: EngineEvent[];
  /** The engine's resource change counts (summary event), when it got that far. */
  changes?: OpMap;
  /** When the program refused its config: the formatted problem lines. */
  configProblems?: string[];
  /** When it failed otherwise: the engine's error diagnostics (one entry per message, trimmed). */
  errors: string[];
}

export type Operation = "preview" | "up" | "destroy";

/**
 * The stack as `runOperation` drives it. The Automation API's `up` ends by reading the stack's outputs (`pulumi
 * stack output`, once masked and once with secrets) and its last history entry (`pulumi stack history`), and
 * `destroy` the history entry: up to three more CLI runs after the operation, each starting the CLI and reading
 * the state again, for results `runOperation` never uses (it reads the engine's events). This view answers those
 * reads with nothing; every other property and method is the stack's own. Input: a stack. Output: a view of it.
 */
export function eventsOnly(stack: Stack): Stack {
  return Object.assign(Object.create(stack) as Stack, {
    outputs: async () => ({}),
    info: async () => undefined,
  });
}

/**
 * Runs `preview`, `up` or `destroy` on a stack, streaming each engine event to `onEvent`. Never throws for
 * a failed operation: the result says what failed (config problems recognised in the diagnostics, else the
 * error diagnostics, else the last lines the CLI printed on stderr). `policyPacks` go to preview and up;
 * `parallel` is the engine's resource parallelism (`--parallel` of pulumi) when given; `target` limits an
 * `up` to those URNs; `refresh` makes a preview or an up refresh first.
 */
export async function runOperation(
  op: Operation,
  stack: Stack,
  opts: {
    onEvent?: (e: EngineEvent) => void;
    policyPacks?: string[];
    parallel?: number;
    /** `up` only: the URNs to update (`pulumi up --target`); every other resource is left as it is. */
    target?: string[];
    /**
     * Refresh first (`--refresh`): the operation then compares the program with what the provider reads from the
     * cluster instead of with the state. A preview keeps what it read in memory; an `up` writes it to the state.
     */
    refresh?: boolean;
  } = {},
): Promise<OperationResult> {
  const events: EngineEvent[] = [];
  const onEvent = (e: EngineEvent) => {
    events.push(e);
    opts.onEvent?.(e);
  };
  const common = { onEvent, color: "never" as const, ...(opts.parallel ? { parallel: opts.parallel } : {}) };
  const packs = opts.policyPacks?.length ? { policyPacks: opts.policyPacks } : {};
  let failure: unknown;
  const run = eventsOnly(stack);
  try {
    if (op === "preview")
      await run.preview({ ...common, ...packs, diff: true, ...(opts.refresh ? { refresh: true } : {}) });
    else if (op === "up")
      await run.up({
        ...common,
        ...packs,
        ...(opts.target ? { target: opts.target } : {}),
        ...(opts.refresh ? { refresh: true } : {}),
      });
    else await run.destroy({ ...common });
  } catch (e) {
    failure = e;
  }
  const summary = events.find((e) => e.summaryEvent)?.summaryEvent;
  const diagnostics = events
    .map((e) => e.diagnosticEvent)
    .filter((d): d is NonNullable<typeof d> => !!d && d.severity === "error");
  const result: OperationResult = {
    stack: stack.name,
    ok: failure === undefined,
    events,
    changes: summary?.resourceChanges,
    errors: [],
  };
  if (failure === undefined) return result;
  for (const d of diagnostics) {
    const lines = configProblemLines(d.message);
    if (lines) {
      result.configProblems = lines;
      return result;
    }
  }
  const fromCli = configProblemLines(String((failure as Error)?.message ?? failure));
  if (fromCli) {
    result.configProblems = fromCli;
    return result;
  }
  result.errors = diagnostics.map((d) => d.message.trim()).filter(Boolean);
  if (!result.errors.length) {
    const text = String((failure as { stderr?: string }).stderr ?? (failure as Error)?.message ?? failure);
    result.errors = [
      text
        .split("\n")
        .filter((l) => l.trim())
        .slice(-8)
        .join("\n"),
    ];
  }
  return result;
}
