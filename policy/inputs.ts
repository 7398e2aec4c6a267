/**
 * Reading resource properties as the engine sent them: which leaves are secrets, which are unknown, and the
 * image references a Helm release's values carry.
 *
 * `@pulumi/policy` 1.21 hands `validateResource`/`validateStack` the properties with every secret already
 * unwrapped to its plain value (its deserializer, `deserialize.js`, keeps secret wrappers only for remediations),
 * so "is this value a plain-text credential?" cannot be answered from `args.props`. `installSecretTracking()`
 * wraps that deserializer once, at pack start, to remember the engine's own encoding of each property bag
 * (secret leaves keep Pulumi's secret signature); `rawProps()` returns it for a given `args.props`. When the
 * properties did not come through the engine (unit tests construct them), `rawProps()` returns them as they are,
 * so a test marks a secret leaf with `secretValue()`.
 */
import * as rpc from "@pulumi/pulumi/runtime/rpc";

type Obj = Record<string, unknown>;

/** The engine's encoding of each deserialized property bag (key: the object `@pulumi/policy` wraps in a proxy). */
const rawOf = new WeakMap<object, Obj>();
/** `@pulumi/policy/proxy` `getSpecialProxyTarget`: the property that returns a proxy's target. */
const PROXY_TARGET = "__getSpecialProxyTarget";

/**
 * Wraps `@pulumi/policy`'s property deserializer so that secret leaves stay recognisable (see the module
 * comment). Idempotent. Throws when the installed `@pulumi/policy` no longer has that deserializer (pinned 1.21.0).
 */
export function installSecretTracking(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const d = require("@pulumi/policy/deserialize") as {
    deserializeProperties: ((s: { toJavaScript(): Obj }, p: boolean) => Obj) & { nvcfTracked?: boolean };
  };
  if (typeof d.deserializeProperties !== "function")
    throw new Error(
      "policy/inputs.ts: @pulumi/policy/deserialize.deserializeProperties is missing (pinned @pulumi/policy 1.21.0)",
    );
  if (d.deserializeProperties.nvcfTracked) return;
  const original = d.deserializeProperties;
  const tracked = (struct: { toJavaScript(): Obj }, proxySecrets: boolean) => {
    const out = original(struct, proxySecrets);
    rawOf.set(out, struct.toJavaScript());
    return out;
  };
  tracked.nvcfTracked = true;
  d.deserializeProperties = tracked;
}

/** The engine's encoding of `props` (secret signatures kept), or `props` itself when it did not come from the engine. */
export function rawProps(props: Obj): Obj {
  let target: unknown;
  try {
    target = (props as Record<string, unknown>)[PROXY_TARGET];
  } catch {
    target = undefined;
  }
  const key = (target && typeof target === "object" ? target : props) as object;
  return rawOf.get(key) ?? (key as Obj);
}

/** A secret leaf in the engine's encoding (what `pulumi.secret(value)` becomes on the wire). */
export function secretValue(value: unknown): Obj {
  return { [rpc.specialSigKey]: rpc.specialSecretSig, value };
}

const isSecret = (v: unknown): v is Obj =>
  v !== null && typeof v === "object" && (v as Obj)[rpc.specialSigKey] === rpc.specialSecretSig;

/** True for Pulumi's "unknown during preview" marker. */
export const isUnknown = (v: unknown): boolean => v === rpc.unknownValue;

/** One leaf of a property tree: its path (`a.b[0].c`), value and whether a secret encloses it. */
export interface Leaf {
  path: string;
  value: unknown;
  secret: boolean;
}

/** Every known leaf under `value` (unknown leaves are skipped), secret wrappers unwrapped and recorded. */
export function leaves(value: unknown, path = "", secret = false): Leaf[] {
  if (isUnknown(value)) return [];
  if (isSecret(value)) return leaves(value["value"], path, true);
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`, secret));
  if (value !== null && typeof value === "object") {
    return Object.entries(value as Obj).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k, secret));
  }
  return [{ path, value, secret }];
}

/** `value` with secret wrappers removed (secrets become their plain values) and unknowns as `undefined`. */
export function plain(value: unknown): unknown {
  if (isUnknown(value)) return undefined;
  if (isSecret(value)) return plain(value["value"]);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value as Obj).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** One image reference found in a release's values: the values path and the reference (`host/path[:tag]`). */
export interface ImageRef {
  path: string;
  ref: string;
  /** The `registry` part when the chart takes it separately (`image: {registry, repository}`). */
  registry?: string;
  repository: string;
}

/**
 * The image references in Helm values, in the shapes the NVCF and third-party charts use: a key ending in
 * `image`/`Image` holding a reference string or `{registry?, repository, tag?}`, and a `global.registry` image
 * base (KAI). Input: plain values (see `plain`). Output: one entry per reference, in document order.
 */
export function imageRefs(values: unknown, path = ""): ImageRef[] {
  const out: ImageRef[] = [];
  if (Array.isArray(values)) {
    values.forEach((v, i) => out.push(...imageRefs(v, `${path}[${i}]`)));
    return out;
  }
  if (values === null || typeof values !== "object") return out;
  for (const [k, v] of Object.entries(values as Obj)) {
    const p = path ? `${path}.${k}` : k;
    if (/image$/i.test(k) && typeof v === "string" && v !== "") {
      out.push({ path: p, ref: v, repository: v });
      continue;
    }
    if (/image$/i.test(k) && v !== null && typeof v === "object" && !Array.isArray(v)) {
      const o = v as Obj;
      if (typeof o["repository"] === "string" && o["repository"] !== "") {
        const registry =
          typeof o["registry"] === "string" && o["registry"] !== "" ? o["registry"] : undefined;
        const repository = o["repository"];
        out.push({
          path: p,
          ref: registry ? `${registry}/${repository}` : repository,
          registry,
          repository,
        });
        continue;
      }
    }
    if (k === "global" && v !== null && typeof v === "object" && typeof (v as Obj)["registry"] === "string") {
      const r = (v as Obj)["registry"] as string;
      if (r) out.push({ path: `${p}.registry`, ref: r, repository: r });
    }
    out.push(...imageRefs(v, p));
  }
  return out;
}
