/**
 * The one place that reads stack config. `validateConfig` is pure (raw key/value pairs in, typed config or
 * every problem out); `loadConfig` feeds it from the Pulumi engine.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as yaml from "js-yaml";
import type { z } from "zod";
import { type KubeconfigView, ambientKubeconfigView, kubeconfigServer } from "../kube/kubeconfig";
import type { ChartSourceSettings } from "../catalog/sources";
import { stackReleases } from "./stackReleases";
import { chartKeysFromSources } from "./chartKeys";
import { allowListProblems } from "./installed";
import { type ChartKeysFor, namespaceProblems, releaseValuesKeyProblems } from "./meaning";
import { parsePropertyPath, valueAt } from "./paths";
import { ConfigError, type Problem, describe } from "./problems";
import { computePlaneRules, controlPlaneRules } from "./rules";
import { releaseValueSecretPaths } from "./rules/releaseValueParity";
import {
  type ComputePlaneConfig,
  type ControlPlaneConfig,
  SECRET_KEYS,
  computePlaneSchema,
  controlPlaneSchema,
} from "./schema";

export type StackConfig = ControlPlaneConfig | ComputePlaneConfig;

const NS = "nvcf";
/** The project directory (where Pulumi.yaml and the stack files are). */
const PROJECT_ROOT = path.resolve(__dirname, "..");
const secretKeySet: ReadonlySet<string> = new Set(SECRET_KEYS);

/**
 * Turns a raw config string into a value. Pulumi stores top-level keys as strings and `--path` objects as
 * JSON, so `"true"`/`"3"`/`"{…}"` become typed values, everything else stays a string.
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

function deletePath(obj: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  const parent = valueAt(obj, path.slice(0, -1));
  if (parent === null || typeof parent !== "object") return false;
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
  else delete (parent as Record<PropertyKey, unknown>)[last];
  return true;
}

/** A zod schema's internal definition (zod 4 keeps it on `_zod.def`); only the fields read below. */
interface SchemaDef {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  element?: unknown;
  valueType?: unknown;
}
const defOf = (s: unknown): SchemaDef | undefined => (s as { _zod?: { def?: SchemaDef } })?._zod?.def;

/** The schema at a key path (wrappers such as default/optional looked through); undefined when unknown. */
function schemaAt(schema: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = schema;
  const unwrap = () => {
    for (
      let d = defOf(cur);
      d && ["optional", "nullable", "default", "prefault", "readonly", "catch", "pipe"].includes(d.type);
      d = defOf(cur)
    )
      cur = d.type === "pipe" ? d.in : d.innerType;
  };
  for (const p of path) {
    unwrap();
    const d = defOf(cur);
    if (!d) return undefined;
    if (d.type === "object") cur = d.shape?.[String(p)];
    else if (d.type === "array") cur = d.element;
    else if (d.type === "record") cur = d.valueType;
    else return undefined;
  }
  unwrap();
  return cur;
}

/** The keys an object schema accepts at a path (empty when it is not an object). */
function knownKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  const d = defOf(schemaAt(schema, path));
  return d?.type === "object" && d.shape ? Object.keys(d.shape) : [];
}

/** `nvcf:<path>` as typed in a shell: quoted when it holds characters a shell would expand (`[`, `]`). */
const shellKey = (path: string) => (/[[\]*?]/.test(path) ? `'${NS}:${path}'` : `${NS}:${path}`);

/** Levenshtein distance, for "did you mean" hints on misspelt keys. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(
        row[j] + 1,
        row[j - 1] + 1,
        prev + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
      prev = cur;
    }
  }
  return row[b.length];
}

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a map of keys",
  record: "a map of keys",
  null: "null",
  literal: "a fixed value",
};

/** Whether the number schema at a path only takes whole numbers (`z.number().int()`). */
function isIntAt(schema: unknown, path: readonly PropertyKey[]): boolean {
  const s = schemaAt(schema, path) as { _zod?: { bag?: { format?: string } } } | undefined;
  return /int/.test(s?._zod?.bag?.format ?? "");
}

/**
 * What a failed structural check expected, in plain words (never zod's own message text): e.g. `a whole
 * number of at least 1`, `one of "disabled", "control"`, `true or false`. `hint` is the `<value>` placeholder
 * the fix uses.
 */
function expectedOf(i: z.core.$ZodIssue, schema: unknown): { expected: string; hint: string } {
  switch (i.code) {
    case "invalid_type": {
      const type = i.expected === "number" && isIntAt(schema, i.path) ? "int" : String(i.expected);
      const words = TYPE_WORDS[type] ?? `a value of type ${type}`;
      return { expected: words, hint: `<${words}>` };
    }
    case "invalid_value": {
      const vs = i.values.map((v) => JSON.stringify(v));
      return vs.length === 1
        ? { expected: vs[0], hint: String(i.values[0]) }
        : { expected: `one of ${vs.join(", ")}`, hint: `<${i.values.map(String).join("|")}>` };
    }
    case "too_small":
    case "too_big": {
      const small = i.code === "too_small";
      const bound = Number(small ? i.minimum : i.maximum);
      const incl = i.inclusive !== false;
      const cmp = small ? (incl ? "of at least" : "more than") : incl ? "of at most" : "less than";
      let expected: string;
      if (i.origin === "string")
        expected = small && bound === 1 && incl ? "non-empty text" : `text ${cmp} ${bound} characters`;
      else if (i.origin === "array" || i.origin === "set")
        expected =
          small && bound === 1 && incl ? "a list with at least one entry" : `a list ${cmp} ${bound} entries`;
      else expected = `${isIntAt(schema, i.path) ? "a whole number" : "a number"} ${cmp} ${bound}`;
      return { expected, hint: `<${expected}>` };
    }
    case "invalid_format":
      return i.format === "regex" && "pattern" in i
        ? { expected: `text matching ${String(i.pattern)}`, hint: "<value>" }
        : { expected: `a valid ${i.format}`, hint: "<value>" };
    case "not_multiple_of":
      return { expected: `a multiple of ${String(i.divisor)}`, hint: "<value>" };
    case "invalid_union": {
      const kinds = [
        ...new Set(
          i.errors.flatMap((errs) =>
            errs
              .filter((e) => e.code === "invalid_type" && e.path.length === 0)
              .map(
                (e) =>
                  TYPE_WORDS[String((e as { expected: unknown }).expected)] ??
                  String((e as { expected: unknown }).expected),
              ),
          ),
        ),
      ];
      return {
        expected: kinds.length > 0 ? kinds.join(" or ") : "one of the accepted forms (docs/configuration.md)",
        hint: "<value>",
      };
    }
    default:
      return { expected: i.message.replace(/^Invalid input: /, ""), hint: "<value>" };
  }
}

/**
 * Structural problems (zod issues) in plain words. An unknown key says how to remove it (without `--path`
 * for a top-level key whose name holds a dot, i.e. one set without `--path` by mistake, which it then
 * explains) and names the closest known key when one is a likely misspelling.
 */
function zodProblems(issues: readonly z.core.$ZodIssue[], input: unknown, schema: unknown): Problem[] {
  const out: Problem[] = [];
  const topKeys = knownKeysAt(schema, []);
  for (const i of issues) {
    const path = issuePath(i.path);
    const secret = secretKeySet.has(String(i.path[0]));
    if (i.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, i.path);
      for (const k of i.keys) {
        const key = path ? `${path}.${k}` : k;
        const head = k.split(".")[0];
        if (!path && k.includes(".") && topKeys.includes(head)) {
          out.push({
            key: `${NS}:${key}`,
            expected: `${head} as an object whose fields are set with --path`,
            found: `a key literally named "${k}" (set without --path)`,
            fix: `pulumi config rm ${NS}:${key}, then pulumi config set --path ${NS}:${key} <value>`,
          });
          continue;
        }
        const near = known
          .map((c) => [c, distance(k, c)] as const)
          .filter(([, d]) => d <= Math.max(1, Math.floor(k.length / 4)))
          .sort((a, b) => a[1] - b[1])[0]?.[0];
        const rm = path ? `pulumi config rm --path ${shellKey(key)}` : `pulumi config rm ${shellKey(key)}`;
        out.push({
          key: `${NS}:${key}`,
          expected: near
            ? `a known key (did you mean ${NS}:${path ? `${path}.` : ""}${near}?)`
            : "a key this program reads",
          found: "an unknown key",
          fix: near
            ? `${rm}, then set ${NS}:${path ? `${path}.` : ""}${near}`
            : `${rm} (docs/configuration.md lists every key)`,
        });
      }
      continue;
    }
    const value = valueAt(input, i.path);
    const { expected, hint } = expectedOf(i, schema);
    out.push({
      key: `${NS}:${path}`,
      expected,
      found: describe(value, secret),
      fix: `pulumi config set ${i.path.length > 1 ? "--path " : ""}${secret ? "--secret " : ""}${shellKey(path)} ${hint}`,
    });
  }
  return out;
}

/** Names for a `found`/`expected` field: `"a", "b"`, at most `max` of them, then how many more. */
function nameList(names: readonly string[], max = 8): string {
  const shown = names.slice(0, max).map((n) => JSON.stringify(n));
  return names.length > max ? `${shown.join(", ")} and ${names.length - max} more` : shown.join(", ");
}

/**
 * Whether a kubeconfig context can be used, checked against the ambient kubeconfig (pure). Input: the config
 * key (without `nvcf:`), the context name (undefined: the kubeconfig's current context), the view. Output: a
 * problem naming the key, what the kubeconfig holds and the fix, or none.
 */
function contextProblem(key: string, context: string | undefined, kube: KubeconfigView): Problem[] {
  const where = kube.files.length
    ? `the kubeconfig (${kube.files.join(", ")})`
    : `a kubeconfig file (none of ${kube.searched.join(", ") || "the KUBECONFIG files"} exists)`;
  const set = `pulumi config set --path ${shellKey(key)}`;
  const available = Object.keys(kube.contexts).sort();
  const noFile =
    "point KUBECONFIG at your kubeconfig file (kubectl config get-contexts lists its contexts), or give the kubeconfig itself as a secret";
  const unreadable = kube.unreadable.length
    ? ` (not read: ${kube.unreadable.map((u) => `${u.file}: ${u.reason}`).join("; ")})`
    : "";
  if (context === undefined) {
    if (kube.currentContext && kube.contexts[kube.currentContext]) return [];
    return [
      {
        key: `${NS}:${key}`,
        expected: `a context of ${where}${available.length ? `: one of ${nameList(available)}` : ""}`,
        found: `nothing, and the kubeconfig sets no usable current-context${unreadable}`,
        fix: available.length ? `${set} <context>` : noFile,
      },
    ];
  }
  const ctx = kube.contexts[context];
  if (!ctx)
    return [
      {
        key: `${NS}:${key}`,
        expected: `a context of ${where}${available.length ? `: one of ${nameList(available)}` : ""}`,
        found: `${JSON.stringify(context)}, which ${kube.files.length ? "it does not define" : "no kubeconfig defines"}${unreadable}`,
        fix: available.length
          ? `${set} <one of them>, or point KUBECONFIG at the file that defines ${JSON.stringify(context)}`
          : noFile,
      },
    ];
  const missing = [
    ...(kube.clusters.includes(ctx.cluster) ? [] : [`cluster ${JSON.stringify(ctx.cluster)}`]),
    ...(kube.users.includes(ctx.user) ? [] : [`user ${JSON.stringify(ctx.user)}`]),
  ];
  if (missing.length === 0) return [];
  return [
    {
      key: `${NS}:${key}`,
      expected: `a context of ${where} whose cluster and user are defined`,
      found: `${JSON.stringify(context)}, whose ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not defined there`,
      fix: `add the missing entries to the kubeconfig (kubectl config set-cluster / set-credentials), or ${set} <another context>`,
    },
  ];
}

/** A kubeconfig given as a secret config value must name an API server (its current context's, or its only cluster's). */
function inlineKubeconfigProblem(key: string, text: string): Problem[] {
  let server = "";
  try {
    server = kubeconfigServer(text);
  } catch {
    server = "";
  }
  if (server) return [];
  return [
    {
      key: `${NS}:${key}`,
      expected: "a kubeconfig (YAML) whose current context names a cluster with a server URL",
      found: "[secret] (not a kubeconfig, or no cluster server in it)",
      fix: `pulumi config set --secret ${shellKey(key)} -- "$(kubectl config view --minify --flatten --context <context>)"`,
    },
  ];
}

/**
 * Kubernetes access problems of a structurally valid config, checked against the ambient kubeconfig before
 * anything reads it (pure). Control plane: `nvcf:kubernetes.context` when neither `nvcf:kubeconfig` nor
 * `nvcf:aws.eksClusterName` is set, each GPU cluster's `context` unless `nvcf:gpuClusterKubeconfigs.<name>`
 * is given, and every given kubeconfig must name a server. Compute plane: `nvcf:kubernetes.context` unless
 * `nvcf:kubeconfig` is set. Output: problems (empty when everything can be reached as configured).
 */
export function kubeAccessProblems(cfg: StackConfig, kube: KubeconfigView): Problem[] {
  const out: Problem[] = [];
  const control = cfg.plane === "control" ? (cfg as ControlPlaneConfig) : undefined;
  if (cfg.kubeconfig !== undefined) out.push(...inlineKubeconfigProblem("kubeconfig", cfg.kubeconfig));
  else if (!control?.aws?.eksClusterName)
    out.push(...contextProblem("kubernetes.context", cfg.kubernetes.context, kube));
  if (control) {
    control.gpuClusters.forEach((c, i) => {
      const given = control.gpuClusterKubeconfigs[c.name];
      if (given !== undefined) out.push(...inlineKubeconfigProblem(`gpuClusterKubeconfigs.${c.name}`, given));
      else if (c.context !== undefined)
        out.push(...contextProblem(`gpuClusters[${i}].context`, c.context, kube));
    });
  }
  return out;
}

/** Where `validateConfig` looks beyond the config itself (omitted in pure tests: those checks are skipped). */
export interface ValidationEnvironment {
  /** The ambient kubeconfig the stack would use (`kube/kubeconfig.ts ambientKubeconfigView`). */
  kubeconfig?: KubeconfigView;
  /**
   * How to find the keys a release's chart declares, given the stack's `nvcf:charts` (config/chartKeys.ts
   * `chartKeysFromSources`); without it `nvcf:releaseValues` is checked at its top level only.
   */
  chartKeys?: (charts: ChartSourceSettings) => ChartKeysFor;
  /** Every config key of the stack, `<namespace>:<key>`, for the near-miss namespace check. */
  configKeys?: readonly string[];
  /** Receives the lines the preview prints about the config (keys passed unchecked, charts not checked). */
  note?: (level: "info" | "warn", message: string) => void;
}

/**
 * Validates a stack's raw config: structure (zod, strict), then the cross-field rules, then (with `env`) the
 * Kubernetes access the config names, `nvcf:releaseValues` against the charts' keys, the entries of
 * `nvcf:allowInstalledChanges` and near-miss namespaces (config/meaning.ts); all kinds are reported together. Input: `raw` maps keys without the
 * `nvcf:` prefix to raw strings, `secretKeys` names the keys set with `--secret`, `stack` is the stack name,
 * `env.kubeconfig` the ambient kubeconfig. Output: the typed config.
 * Throws `ConfigError` listing every problem (secret values redacted) when anything is wrong.
 */
export function validateConfig(
  raw: Record<string, string>,
  secretKeys: ReadonlySet<string>,
  stack: string,
  env: ValidationEnvironment = {},
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
    problems.push(...zodProblems(result.error.issues, input, schema));
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
    // A credential written into releaseValues is stored in plain text unless releaseValues is a secret.
    if (!secretKeys.has("releaseValues"))
      for (const path of releaseValueSecretPaths(result.data.releaseValues))
        problems.push({
          key: `${NS}:${path}`,
          expected: "a secret value (a credential in releaseValues is stored in plain text otherwise)",
          found: "a plain-text value",
          fix: `pulumi config set --secret --path ${shellKey(path)} <value>, or better remove it and use ${NS}:cassandraPassword (--secret)`,
        });
    if (env.kubeconfig) {
      const known = new Set(problems.map((p) => p.key));
      problems.push(
        ...kubeAccessProblems(result.data as StackConfig, env.kubeconfig).filter((p) => !known.has(p.key)),
      );
    }
    // Config that cannot mean anything (config/meaning.ts) and overrides naming no setting (config/installed.ts).
    const cfg = result.data as StackConfig;
    const checked = releaseValuesKeyProblems(cfg, stackReleases(cfg), env.chartKeys?.(cfg.charts));
    const known = new Set(problems.map((p) => p.key));
    problems.push(
      ...[...checked.problems, ...allowListProblems(cfg.plane, cfg.allowInstalledChanges)].filter(
        (p) => !known.has(p.key),
      ),
    );
    for (const n of checked.notes) env.note?.(n.level, n.message);
  }
  if (env.configKeys) problems.push(...namespaceProblems(env.configKeys));
  if (problems.length > 0 || !result.success) throw new ConfigError(stack, problems);
  return result.data as StackConfig;
}

/**
 * Reads this stack's `nvcf:` config from the Pulumi engine and validates it (see `validateConfig`), with the
 * contexts of the ambient kubeconfig (KUBECONFIG, else ~/.kube/config), the keys the releases' charts declare
 * (config/chartKeys.ts: local chart directories, the key cache for remote charts) and every config key of the
 * stack (near misses of the `nvcf` namespace); the preview's lines about the config go to the engine's log.
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
  return validateConfig(raw, secret, pulumi.getStack(), {
    kubeconfig: ambientKubeconfigView(),
    chartKeys: chartKeysFromSources(PROJECT_ROOT),
    configKeys: Object.keys(all),
    note: (level, message) =>
      pulumi.log[level === "warn" ? "warn" : "info"](message, pulumi.runtime.getStackResource()),
  });
}

/**
 * Paths (below `nvcf:releaseValues`) of the leaves a stack file holds as `secure:` values, i.e. set with
 * `pulumi config set --secret --path`. Input: the stack file's text. Output: key paths as lists (`["cassandra",
 * "cassandra", "serviceRolePassword"]`, list indexes as numbers); empty when the text is unreadable. The engine
 * hands the program the whole `nvcf:releaseValues` decrypted and says only that some part of it is secret, so
 * the stack file is the one place that says which part.
 */
export function secureReleaseValuePaths(stackFileText: string): (string | number)[][] {
  let doc: { config?: Record<string, unknown> } | undefined;
  try {
    doc = yaml.load(stackFileText) as typeof doc;
  } catch {
    return [];
  }
  const out: (string | number)[][] = [];
  const walk = (v: unknown, at: (string | number)[]) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]));
    else if (v && typeof v === "object") {
      if ("secure" in v && Object.keys(v).length === 1) out.push(at);
      else for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
    }
  };
  walk(doc?.config?.[`${NS}:releaseValues`], []);
  return out;
}

/**
 * `releaseValues` with every secret leaf wrapped as a Pulumi secret, so it is masked by itself in previews and
 * encrypted in the state like any secret: the credential paths (`releaseValueSecretPaths`) and the leaves the
 * stack file holds as `secure:` (`secureReleaseValuePaths`). Input: the validated overrides and the stack file's
 * text (undefined when not readable). Output: a copy; leaves that are not secret stay as they are.
 */
export function withSecretReleaseValues(
  releaseValues: Record<string, Record<string, unknown>>,
  stackFileText: string | undefined,
): Record<string, Record<string, unknown>> {
  const out = structuredClone(releaseValues);
  const paths: (string | number)[][] = [
    ...releaseValueSecretPaths(releaseValues).map((p) =>
      parsePropertyPath(p.replace(/^releaseValues\./, "")),
    ),
    ...(stackFileText === undefined ? [] : secureReleaseValuePaths(stackFileText)),
  ];
  for (const p of paths) {
    const parent = valueAt(out, p.slice(0, -1));
    const last = p[p.length - 1];
    if (parent === null || typeof parent !== "object") continue;
    const v = (parent as Record<string | number, unknown>)[last];
    if (v !== undefined && !pulumi.Output.isInstance(v))
      (parent as Record<string | number, unknown>)[last] = pulumi.secret(v);
  }
  return out;
}

/** The text of this stack's `Pulumi.<stack>.yaml` in the project directory, or undefined. */
export function stackFileText(stack: string = pulumi.getStack()): string | undefined {
  try {
    return fs.readFileSync(path.join(PROJECT_ROOT, `Pulumi.${stack}.yaml`), "utf8");
  } catch {
    return undefined;
  }
}
