/**
 * The constructors of a check's `Finding` (cli/types.ts), shared by the preflight checks (cli/preflight) and the
 * health checks (cli/health). Pure.
 */
import type { Finding } from "./types";

/** A passing finding: `found` says what was confirmed. */
export function pass(check: string, stack: string, object: string, found: string): Finding {
  return { check, stack, object, ok: true, severity: "error", found, needed: "", fix: "" };
}

/** A failing finding (an error unless `severity` says warning); each text one sentence for the user. */
export function fail(
  check: string,
  stack: string,
  object: string,
  found: string,
  needed: string,
  fix: string,
  severity: Finding["severity"] = "error",
): Finding {
  return { check, stack, object, ok: false, severity, found, needed, fix };
}

/** A check that could not run (cluster unreachable, secret not decrypted): a warning naming why. */
export function skipped(check: string, stack: string, object: string, why: string, fix: string): Finding {
  return fail(check, stack, object, `not checked: ${why}`, "the check to run", fix, "warning");
}
