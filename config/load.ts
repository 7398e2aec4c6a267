/**
 * The one place that reads stack config. `validateConfig` is pure (raw key/value pairs in, typed config or
 * every problem out); `loadConfig` feeds it from the Pulumi engine.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { ConfigError, type Problem, describe } from "./problems";
import { computePlaneRules, controlPlaneRules } from "./rules";
import {
  type ComputePlaneConfig,
  type ControlPlaneConfig,
  SECRET_KEYS,
  computePlaneSchema,
  controlPlaneSchema,
} from "./schema";

export type StackConfig = ControlPlaneConfig | ComputePlaneConfig;

const NS = "nvcf";
const secretKeySet: ReadonlySet<string> = new Set(SECRET_KEYS);

/**
 * Turns a raw config string into a value. Pulumi stores top-level keys as strings and `--path` objects as
 * JSON, so `"true"`/`"3"`/`"{…}"` become typed values, everything else stays a string (user report C17).
 */
export function parseRaw(raw: string): unknown {
  const t = raw.trim();
  if (
    t === "true" ||
    t === "false" ||
    t === "null" ||
    /^-?[0-9]+$/.test(t) ||
    t.startsWith("{") ||
    t.startsWith("[")
  ) {
    try {
      return JSON.parse(t);
    } catch {
      return raw;
    }
  }
  return raw;
}

function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)),
    "",
  );
}

function getPath(obj: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

function deletePath(obj: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  const parent = getPath(obj, path.slice(0, -1));
  if (parent === null || typeof parent !== "object") return false;
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
  else delete (parent as Record<PropertyKey, unknown>)[last];
  return true;
}

function zodProblems(issues: readonly z.core.$ZodIssue[], input: unknown): Problem[] {
  const out: Problem[] = [];
  for (const i of issues) {
    const path = issuePath(i.path);
    const secret = secretKeySet.has(String(i.path[0]));
    if (i.code === "unrecognized_keys") {
      for (const k of i.keys) {
        const key = path ? `${path}.${k}` : k;
        out.push({
          key: `${NS}:${key}`,
          expected: "a known key",
          found: "an unknown key",
          fix: `remove it (pulumi config rm --path ${NS}:${key}); no chart reads it. See Pulumi.yaml for the keys`,
        });
      }
      continue;
    }
    const value = getPath(input, i.path);
    const expected =
      i.code === "invalid_type"
        ? String(i.expected)
        : i.code === "invalid_value"
          ? `one of ${i.values.map((v) => JSON.stringify(v)).join(", ")}`
          : i.message.replace(/^Invalid input: /, "");
    out.push({
      key: `${NS}:${path}`,
      expected,
      found: describe(value, secret),
      fix: `pulumi config set --path ${NS}:${path} <value>${secret ? " --secret" : ""}`,
    });
  }
  return out;
}

/**
 * Validates a stack's raw config: structure (zod, strict), then the cross-field rules; both kinds are
 * reported together. Input: `raw` maps keys without the `nvcf:` prefix to raw strings, `secretKeys` names
 * the keys set with `--secret`, `stack` is the stack name. Output: the typed config.
 * Throws `ConfigError` listing every problem (secret values redacted) when anything is wrong.
 */
export function validateConfig(
  raw: Record<string, string>,
  secretKeys: ReadonlySet<string>,
  stack: string,
): StackConfig {
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw))
    input[k] = secretKeySet.has(k) && !k.endsWith("Kubeconfigs") ? v : parseRaw(v);
  const problems: Problem[] = [];
  for (const k of SECRET_KEYS) {
    if (k in raw && !secretKeys.has(k))
      problems.push({
        key: `${NS}:${k}`,
        expected: "a secret value",
        found: "a plain-text value",
        fix: `pulumi config set --secret ${NS}:${k} <value>`,
      });
  }
  const plane = input["plane"] ?? "control";
  const schema = plane === "compute" ? computePlaneSchema : controlPlaneSchema;
  if (input["plane"] === undefined) input["plane"] = "control";
  if (plane !== "control" && plane !== "compute") {
    problems.push({
      key: `${NS}:plane`,
      expected: `"control" or "compute"`,
      found: describe(plane),
      fix: `pulumi config set ${NS}:plane control`,
    });
    throw new ConfigError(stack, problems);
  }
  let result = schema.safeParse(input);
  if (!result.success) {
    problems.push(...zodProblems(result.error.issues, input));
    // Drop the offending entries and parse again, so that the rules still run on everything else
    // and the user sees every problem in one go.
    const lenient = structuredClone(input);
    for (let round = 0; round < 5 && !result.success; round++) {
      let removed = false;
      for (const i of result.error.issues) {
        const path = i.code === "unrecognized_keys" ? null : i.path;
        if (i.code === "unrecognized_keys")
          for (const k of i.keys) removed = deletePath(lenient, [...i.path, k]) || removed;
        else if (path) removed = deletePath(lenient, path) || removed;
      }
      if (!removed) break;
      result = schema.safeParse(lenient);
    }
  }
  if (result.success) {
    const seen = new Set(problems.map((p) => p.key));
    const ctx = { stack };
    const ruleProblems =
      result.data.plane === "compute"
        ? computePlaneRules(result.data as ComputePlaneConfig, ctx)
        : controlPlaneRules(result.data as ControlPlaneConfig, ctx);
    problems.push(...ruleProblems.filter((p) => !seen.has(p.key)));
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(stack, problems);
  return result.data as StackConfig;
}

/**
 * Reads this stack's `nvcf:` config from the Pulumi engine and validates it (see `validateConfig`).
 * Throws `ConfigError` before any resource is registered.
 */
export function loadConfig(): StackConfig {
  // Present in the SDK's runtime since 3.x but missing from its typings.
  const isConfigSecret = (pulumi.runtime as unknown as { isConfigSecret(k: string): boolean }).isConfigSecret;
  const all = pulumi.runtime.allConfig();
  const raw: Record<string, string> = {};
  const secret = new Set<string>();
  for (const [full, value] of Object.entries(all)) {
    const [ns, ...rest] = full.split(":");
    if (ns !== NS) continue;
    const key = rest.join(":");
    raw[key] = value;
    if (isConfigSecret(full)) secret.add(key);
  }
  return validateConfig(raw, secret, pulumi.getStack());
}
