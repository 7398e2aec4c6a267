/**
 * Rules of Cassandra's keys (pure): the service-role password (`nvcf:cassandraPassword`) and the resource
 * preset (`nvcf:cassandra.preset`). Sources: docs/upstream-facts.md §4 rows 1 (the chart's built-in password,
 * `deploy/helm/cassandra/helm/values.yaml`) and 27 (the small presets run out of memory at first boot).
 */
import { CASSANDRA_DEFAULT_PASSWORD } from "../credentials";
import { type Problem, describe } from "../problems";
import type { ControlPlaneConfig } from "../schema";
import { isDevStack } from "../stackName";
import { type RuleContext, problemList } from "./context";

/** What a preset is expected to be outside dev stacks (the text of the preset problems). */
export const PRESET_EXPECTED = "medium or larger outside dev stacks (small runs out of memory at first boot)";

/**
 * Whether a Cassandra resource preset is too small for the stack. Input: a preset name and the rule context.
 * Output: true for `none`, `nano`, `micro` and `small` on a stack that is not a dev stack (config/stackName.ts).
 */
export function presetTooSmall(preset: string, ctx: RuleContext): boolean {
  return !isDevStack(ctx.stack) && ["none", "nano", "micro", "small"].includes(preset);
}

/**
 * The Cassandra password rules of `nvcf:cassandraPassword` (docs/upstream-facts.md §4 rows 1, 27) for a value set elsewhere.
 * Returns the reasons (never the value); empty when fine.
 */
export function cassandraPasswordReasons(v: unknown): string[] {
  if (typeof v !== "string") return [`not text (${typeof v})`];
  if (v === CASSANDRA_DEFAULT_PASSWORD) return ["the chart's default password"];
  if (v.length < 8) return ["shorter than 8 characters"];
  return [];
}

/**
 * Rules of the control plane's Cassandra keys. Input: the validated config and the rule context. Output, in
 * this order: `nvcf:cassandraPassword` when it is the chart's default or shorter than 8 characters (redacted:
 * the value never appears), then `nvcf:cassandra.preset` when it is too small outside a dev stack.
 */
export function cassandraRules(cfg: ControlPlaneConfig, ctx: RuleContext): Problem[] {
  const { out, add } = problemList();
  if (cfg.cassandraPassword !== undefined) {
    if (cfg.cassandraPassword === CASSANDRA_DEFAULT_PASSWORD)
      add(
        "cassandraPassword",
        "a password other than the chart default",
        "[secret] (the chart's default password)",
        "pulumi config rm nvcf:cassandraPassword to have one generated, or set another with --secret",
      );
    else if (cfg.cassandraPassword.length < 8)
      add(
        "cassandraPassword",
        "at least 8 characters",
        "[secret] (shorter)",
        "pulumi config set --secret nvcf:cassandraPassword <password>",
      );
  }
  if (presetTooSmall(cfg.cassandra.preset, ctx))
    add(
      "cassandra.preset",
      PRESET_EXPECTED,
      describe(cfg.cassandra.preset),
      "pulumi config set --path nvcf:cassandra.preset xlarge",
    );
  return out;
}
