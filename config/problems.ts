/**
 * Config problems and the error that lists them all at once.
 */

/** One thing wrong with a stack's config. `found` never holds a secret's value (it says `[secret]`). */
export interface Problem {
  /** Config key path as `pulumi config set --path` takes it, e.g. `nvcf:cassandra.replicas`. */
  key: string;
  expected: string;
  found: string;
  fix: string;
}

/** Renders a problem as one line: `nvcf:x.y: expected …, found …. Fix: …`. */
export function formatProblem(p: Problem): string {
  return `${p.key}: expected ${p.expected}, found ${p.found}. Fix: ${p.fix}`;
}

/**
 * Thrown before any resource is created when a stack's config is invalid. `problems` lists every problem
 * found (structure and rules), in key order; the message has one line per problem.
 */
export class ConfigError extends Error {
  constructor(
    readonly stack: string,
    readonly problems: readonly Problem[],
  ) {
    super(
      `stack "${stack}" has ${problems.length} config problem${problems.length === 1 ? "" : "s"}; nothing was changed:\n` +
        problems.map((p) => `  - ${formatProblem(p)}`).join("\n"),
    );
    this.name = "ConfigError";
  }
}

/** Describes a value for a `found` field: JSON-ish, shortened; `[secret]` for secrets; `nothing` for absent. */
export function describe(value: unknown, secret = false): string {
  if (value === undefined || value === null || value === "") return "nothing";
  if (secret) return "[secret]";
  const s = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
