/**
 * What the policies need to know about the stack under review, and where each fact comes from.
 *
 * Order of precedence, per setting: the policy's own config (`--policy-pack-config <file>`, see docs/policy-and-ci.md)
 * → the stack's config → the program's defaults (config/schema.ts). The stack's config reaches a Node.js policy
 * pack as the `PULUMI_CONFIG` environment variable (a JSON map `"nvcf:<key>"` → string, the same source
 * `pulumi.Config` reads): pulumi 3.248's Node.js language host sets it from the engine's ConfigureStack call, and so
 * does the embedded toolchain's front (scripts/policy-analyzer/). Secret config values arrive decrypted; they stay in
 * the analyzer process and are never printed. The stack name comes from the resource URN.
 *
 * On a compute-plane stack the image mirror is the control plane's (`imageRegistry`/`imageRepository` outputs,
 * read through the StackReference); the stack policies that need it read it from that resource.
 */
import { BUNDLE_VERSIONS, type BundleVersion } from "../catalog/releases";
import { parseRaw } from "../config/load";
import { isDevStack } from "../config/stackName";
import { SECRET_KEYS, computePlaneSchema, controlPlaneSchema } from "../config/schema";

/** The facts about one stack the policies check against. */
export interface StackSettings {
  /** Stack name (from the URN). */
  stack: string;
  plane: "control" | "compute";
  bundleVersion: BundleVersion;
  /** `nvcf:charts.versionOverrides`: release name → chart version (documented hot-fix pins). */
  versionOverrides: Record<string, string>;
  /** `nvcf:images.registry` / `.repository` (control plane only; compute planes read them from the control plane). */
  imageRegistry?: string;
  imageRepository?: string;
  /** `nvcf:images.thirdParty`: `upstream` allows the upstream third-party images (values/images.ts `UPSTREAM`). */
  thirdParty: "upstream" | "mirror";
  /** `nvcf:pullSecret.name` (null: nodes authenticate, no pull secret) and `.create`. */
  pullSecretName: string | null;
  pullSecretCreate: boolean;
  /** Config-given namespaces of the catalog's `fromConfig` releases. */
  gatewayControllerNamespace?: string;
  observabilityNamespace?: string;
  /** Values of the secret config keys (config/schema.ts `SECRET_KEYS`), with the key each came from. */
  secrets: { key: string; value: string }[];
}

/** The stack name of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
export function stackOfUrn(urn: string): string {
  const m = /^urn:pulumi:([^:]+)::/.exec(urn);
  return m ? m[1] : "";
}

/**
 * Whether a stack counts as a dev stack: its name matches `pattern` (policy config `devStackPattern`) when given,
 * else the program's own rule (config/stackName.ts `isDevStack`: `dev`, `dev-*`, `dev_*`), the same rule that turns
 * `nvcf:protectStatefulData` off by default.
 */
export function isDev(stack: string, pattern?: string): boolean {
  return pattern ? new RegExp(pattern).test(stack) : isDevStack(stack);
}

/** The stack's config as the analyzer received it: `nvcf:` keys without the prefix, raw strings. */
export function analyzerConfig(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const text = env["PULUMI_CONFIG"];
  if (!text) return {};
  let all: Record<string, unknown>;
  try {
    all = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) {
    const m = /^nvcf:(.+)$/.exec(k);
    if (m && typeof v === "string") out[m[1].replace(/^config:/, "")] = v;
  }
  return out;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * The stack settings from the raw stack config (see `analyzerConfig`) and the policy's own config, which wins.
 * Input: stack name, raw `nvcf:` config, policy config (any of `bundleVersion`, `versionOverrides`,
 * `imageRegistry`, `imageRepository`, `thirdParty`, `pullSecretName`). The config is read through the program's
 * schema, so defaults are the program's; a config the schema refuses (the program refuses it too) is read key
 * by key with the same defaults. Never throws.
 */
export function resolveSettings(stack: string, raw: Record<string, string>, policy: Obj = {}): StackSettings {
  const input: Obj = {};
  for (const [k, v] of Object.entries(raw)) input[k] = parseRaw(v);
  const plane = input["plane"] === "compute" ? "compute" : "control";
  input["plane"] = plane;
  const schema = plane === "compute" ? computePlaneSchema : controlPlaneSchema;
  const parsed = schema.safeParse(input);
  const cfg: Obj = parsed.success ? (parsed.data as Obj) : input;
  const charts = obj(cfg["charts"]);
  const images = obj(cfg["images"]);
  const pull = obj(cfg["pullSecret"]);
  const bundle = str(policy["bundleVersion"]) ?? str(cfg["bundleVersion"]) ?? "0.8.0";
  const secrets: { key: string; value: string }[] = [];
  for (const key of SECRET_KEYS) {
    const v = raw[key];
    if (v === undefined) continue;
    const parsedSecret = key === "gpuClusterKubeconfigs" ? obj(parseRaw(v)) : { [key]: v };
    for (const [sub, value] of Object.entries(parsedSecret)) {
      if (typeof value === "string" && value.length >= 8)
        secrets.push({ key: key === sub ? `nvcf:${key}` : `nvcf:${key}.${sub}`, value });
    }
  }
  const pullName =
    "pullSecretName" in policy
      ? policy["pullSecretName"]
      : "name" in pull
        ? pull["name"]
        : "nvcr-pull-secret";
  return {
    stack,
    plane,
    bundleVersion: (BUNDLE_VERSIONS as readonly string[]).includes(bundle)
      ? (bundle as BundleVersion)
      : "0.8.0",
    versionOverrides: {
      ...(Object.fromEntries(
        Object.entries(obj(charts["versionOverrides"])).filter(([, v]) => typeof v === "string"),
      ) as Record<string, string>),
      ...(obj(policy["versionOverrides"]) as Record<string, string>),
    },
    imageRegistry:
      str(policy["imageRegistry"]) ??
      (plane === "control" ? (str(images["registry"]) ?? "nvcr.io") : undefined),
    imageRepository:
      str(policy["imageRepository"]) ??
      (plane === "control" ? (str(images["repository"]) ?? "YOUR_ORG/YOUR_TEAM") : undefined),
    thirdParty: (str(policy["thirdParty"]) ?? str(images["thirdParty"])) === "mirror" ? "mirror" : "upstream",
    pullSecretName: typeof pullName === "string" ? pullName : null,
    pullSecretCreate: pull["create"] !== false,
    gatewayControllerNamespace: str(obj(cfg["gateway"])["controllerNamespace"]),
    observabilityNamespace: str(obj(cfg["observability"])["namespace"]),
    secrets,
  };
}

/** The settings of the stack a resource belongs to (URN), from the analyzer's environment and the policy config. */
export function settingsFor(urn: string, policy: Obj = {}): StackSettings {
  return resolveSettings(stackOfUrn(urn), analyzerConfig(), policy);
}
