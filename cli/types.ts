/**
 * Shared shapes of the `nvcf` command (cli/): an environment, a check's finding and the exit codes. Every verb
 * and every check module uses these; nothing here touches a cluster or a stack.
 */

import type { Plane } from "../catalog/releases";

/**
 * One stack of an environment, read from `Pulumi.<stack>.yaml` in the project directory.
 * `config` holds the file's `nvcf:` keys without the namespace prefix, exactly as written (secure values stay
 * `{ secure: "…" }` ciphertext objects: nothing here decrypts).
 */
export interface StackFile {
  /** Stack name (the `<stack>` of `Pulumi.<stack>.yaml`). */
  stack: string;
  /** Absolute path of the stack file. */
  file: string;
  plane: Plane;
  config: Record<string, unknown>;
}

/**
 * An environment: one control-plane stack and the compute-plane stacks whose `nvcf:controlPlaneStack` names it
 * (`<org>/<project>/<stack>`, or a bare stack name), in the order of their cluster names.
 */
export interface Environment {
  /** The control-plane stack's name, which is also the environment's name (`--env`). */
  name: string;
  /** The project directory (where `Pulumi.yaml` is). */
  projectDir: string;
  control: StackFile;
  compute: StackFile[];
}

/**
 * The result of one preflight or health check on one object. `ok: false` with `severity: "error"` fails the
 * verb; `"warning"` is printed and does not. `found`, `needed` and `fix` are one sentence each, written for
 * the user (no object dumps, secrets never included).
 */
export interface Finding {
  /** Stable check id, e.g. `gateway.listeners`, `storage.default-class`, `health.bootstrap-job`. */
  check: string;
  /** The stack the check belongs to. */
  stack: string;
  /** The object checked, e.g. `Gateway envoy-gateway/nvcf-gateway`, `node gpu-0`, `Job api/bootstrap`. */
  object: string;
  ok: boolean;
  severity: "error" | "warning";
  /** What was found (for a passing check, a short confirmation). */
  found: string;
  /** What is needed (empty for a passing check). */
  needed: string;
  /** How to fix it (empty for a passing check). */
  fix: string;
}

/**
 * Exit codes of every verb (documented in docs/nvcf.md "Exit codes"). A verb exits with the first that applies, in the
 * order usage, config, preflight, deployment, health.
 */
export const EXIT = {
  /** Everything succeeded (for `preview --expect-no-changes`: and nothing would change). */
  ok: 0,
  /** Unexpected internal error (a bug: please report it). */
  internal: 1,
  /** Wrong command line: unknown verb or flag, missing `--env`, unknown environment. */
  usage: 2,
  /** A stack's config is invalid (the program's config problems), nothing was touched. */
  config: 3,
  /** A preflight check failed, nothing was touched. */
  preflight: 4,
  /** A `pulumi` operation failed (preview, update or destroy), or a refused order. */
  deployment: 5,
  /** Deployed, but verification or `status` found something unhealthy. */
  health: 6,
  /** `nvcf drift` found a difference, or `preview --expect-no-changes` found changes. */
  drift: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
