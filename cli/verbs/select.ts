/**
 * What the verbs share: which stacks of the environment a `--stack` list selects, the confirmation of `up`
 * and `destroy` (never read from standard input when not interactive), and the exit code of failed
 * operations.
 */
import type { OperationResult } from "../automation";
import { CliError } from "../report";
import { EXIT, type Environment, type ExitCode, type StackFile } from "../types";

/**
 * The stacks `names` selects (default: all): the control plane (when selected) and the selected compute
 * planes in the environment's order. Throws `CliError` (EXIT.usage) for a name that is not a stack of the
 * environment, listing its stacks.
 */
export function selectStacks(
  env: Environment,
  names?: readonly string[],
): { control?: StackFile; compute: StackFile[] } {
  if (!names || names.length === 0) return { control: env.control, compute: [...env.compute] };
  const all = [env.control, ...env.compute].map((s) => s.stack);
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length) {
    throw new CliError(
      EXIT.usage,
      `--stack ${unknown.join(", ")}: not a stack of environment "${env.name}". Its stacks: ${all.join(", ")}`,
    );
  }
  return {
    control: names.includes(env.control.stack) ? env.control : undefined,
    compute: env.compute.filter((s) => names.includes(s.stack)),
  };
}

/** True when both standard input and standard output are terminals (a person can answer a question). */
export function interactive(): boolean {
  return !!process.stdin.isTTY && !!process.stdout.isTTY;
}

/**
 * Throws `CliError` (EXIT.usage) when `yes` is not set and nobody can answer a question (not interactive);
 * the verbs call it before they touch the backend or a cluster.
 */
export function requireYesOrTerminal(yes: boolean | undefined, verb: string): void {
  if (yes || interactive()) return;
  throw new CliError(
    EXIT.usage,
    `nvcf ${verb} changes clusters and needs --yes when not run from a terminal. Fix: nvcf ${verb} --env <env> --yes`,
  );
}

/**
 * Confirms a verb that changes clusters. With `yes`, resolves at once. Not interactive and no `yes`:
 * throws `CliError` (EXIT.usage) saying `--yes` is needed; standard input is never read then. Interactive:
 * asks `question [y/N]` and throws `CliError` (EXIT.usage, "cancelled") unless the answer is y or yes.
 */
export async function confirm(question: string, yes: boolean | undefined, verb: string): Promise<void> {
  if (yes) return;
  requireYesOrTerminal(yes, verb);
  const readline = await import("node:readline/promises");
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(`${question} [y/N] `)).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") throw new CliError(EXIT.usage, `nvcf ${verb} cancelled`);
  } finally {
    rl.close();
  }
}

/**
 * Prints what failed operations said (to stderr): a config refusal as the program's formatted lines,
 * exactly; any other failure as its error lines prefixed with the stack name. Returns EXIT.config when any
 * refused its config, else EXIT.deployment when any failed, else EXIT.ok.
 */
export function reportFailures(
  results: readonly OperationResult[],
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): ExitCode {
  let config = false;
  let failed = false;
  for (const r of results) {
    if (r.ok) continue;
    failed = true;
    if (r.configProblems) {
      config = true;
      for (const l of r.configProblems) write(l);
      continue;
    }
    for (const e of r.errors) for (const l of e.split("\n")) write(`${r.stack}: ${l}`);
  }
  return config ? EXIT.config : failed ? EXIT.deployment : EXIT.ok;
}
