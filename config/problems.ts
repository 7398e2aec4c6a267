/**
 * Config problems and the error that lists them all at once.
 */
import { RunError } from "@pulumi/pulumi";

/** One thing wrong with a stack's config. `found` never holds a secret's value (it says `[secret]`). */
export interface Problem {
  /** Config key path as `pulumi config set --path` takes it, e.g. `nvcf:cassandra.replicas`. */
  key: string;
  expected: string;
  found: string;
  fix: string;
}

/** Renders a problem as one line: `nvcf:x.y: expected …, found …. Fix: …` (line breaks become spaces). */
export function formatProblem(p: Problem): string {
  const flat = (s: string) => s.replace(/\s*[\r\n]+\s*/g, " ");
  return `${flat(p.key)}: expected ${flat(p.expected)}, found ${flat(p.found)}. Fix: ${flat(p.fix)}`;
}

/**
 * The text a user sees for a stack's config problems: a header line naming the stack and the count, then one
 * line `  - <key>: expected …, found …. Fix: …` per problem, in the order given. Plain text (no colour codes).
 */
export function formatProblems(stackName: string, problems: readonly Problem[]): string {
  const n = problems.length;
  return (
    `stack "${stackName}" has ${n} config problem${n === 1 ? "" : "s"}; nothing was changed:\n` +
    problems.map((p) => `  - ${formatProblem(p)}`).join("\n")
  );
}

/**
 * Thrown before any resource is registered when a stack's config is invalid. `problems` lists every problem
 * found (structure and rules); the message is `formatProblems(stackName, problems)`.
 *
 * It is a Pulumi `RunError` (exported by `@pulumi/pulumi`): the Node.js run script
 * (`@pulumi/pulumi/cmd/run/run.js`, its uncaught-error handler) logs a RunError as `err.message` alone, with
 * no "Running program … failed with an unhandled exception", no stack trace and no inspected object, so
 * `pulumi preview` and `pulumi up` show exactly the formatted list. (The stack name lives in `stackName`:
 * a field called `stack` would shadow `Error.stack`, which the run script prints for other errors.)
 */
export class ConfigError extends RunError {
  constructor(
    readonly stackName: string,
    readonly problems: readonly Problem[],
  ) {
    super(formatProblems(stackName, problems));
    this.name = "ConfigError";
  }
}

/** Describes a value for a `found` field: JSON-ish, shortened; `[secret]` for secrets; `nothing` for absent. */
export function describe(value: unknown, secret = false): string {
  if (value === undefined || value === null || value === "") return "nothing";
  if (secret) return "[secret]";
  const s = JSON.stringify(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
