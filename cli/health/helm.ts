/**
 * Helm's release records as the cluster stores them (Helm 3 storage driver "secret": Secrets of type
 * `helm.sh/release.v1` labelled `owner=helm`, `name`, `status`, `version`; `data.release` is base64 of
 * Helm's own base64 of a gzip'ed JSON release). Decoding is pure; nothing here contacts a cluster.
 */
import * as zlib from "node:zlib";
import * as yaml from "js-yaml";
import type { KubeObject } from "../kube";

/** When a hook last ran, as Helm records it. `phase`: `Running`, `Succeeded`, `Failed` or `Unknown` (or empty). */
export interface HookRun {
  started_at?: string;
  completed_at?: string;
  phase?: string;
}

/** One hook of a release record. */
export interface HelmHook {
  name: string;
  kind: string;
  path?: string;
  manifest?: string;
  events?: string[];
  last_run?: HookRun;
  delete_policies?: string[];
}

/** The fields of a Helm release record the health checks read. */
export interface HelmRelease {
  name: string;
  namespace: string;
  /** Revision number. */
  version: number;
  info?: { status?: string; last_deployed?: string; description?: string };
  chart?: { metadata?: { name?: string; version?: string } };
  /** The rendered manifest of the release's (non-hook) objects, multi-document YAML. */
  manifest?: string;
  hooks?: HelmHook[];
}

/** Decodes one storage Secret's `data.release` (as `kubectl get -o json` returns it). Throws on corrupt data. */
export function decodeRelease(secret: KubeObject): HelmRelease {
  const outer = Buffer.from(String(secret.data?.release ?? ""), "base64").toString("utf8");
  let bytes = Buffer.from(outer, "base64");
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
  return JSON.parse(bytes.toString("utf8")) as HelmRelease;
}

/** Encodes a release record as Helm stores it (the inverse of `decodeRelease`; used to build test fixtures). */
export function encodeRelease(rel: HelmRelease): string {
  const inner = zlib.gzipSync(Buffer.from(JSON.stringify(rel), "utf8")).toString("base64");
  return Buffer.from(inner, "utf8").toString("base64");
}

/**
 * Every release's records, newest revision first, keyed `namespace/name`. Input: the storage Secrets of one
 * cluster. Records that cannot be decoded are skipped (the newest decodable one counts).
 */
export function releasesByName(secrets: readonly KubeObject[]): Map<string, HelmRelease[]> {
  const out = new Map<string, HelmRelease[]>();
  for (const s of secrets) {
    if (s.metadata.labels?.["owner"] !== "helm") continue;
    let rel: HelmRelease;
    try {
      rel = decodeRelease(s);
    } catch {
      continue;
    }
    const key = `${rel.namespace}/${rel.name}`;
    out.set(key, [...(out.get(key) ?? []), rel]);
  }
  for (const list of out.values()) list.sort((a, b) => b.version - a.version);
  return out;
}

/** An object of a rendered manifest: kind, name, namespace (the release namespace when the template sets none). */
export interface ManifestObject {
  kind: string;
  apiVersion?: string;
  name: string;
  namespace: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
}

/** The objects of a manifest (multi-document YAML); documents that are not objects are skipped. */
export function manifestObjects(manifest: string | undefined, releaseNamespace: string): ManifestObject[] {
  const out: ManifestObject[] = [];
  if (!manifest) return out;
  for (const doc of yaml.loadAll(manifest)) {
    const o = doc as {
      kind?: string;
      apiVersion?: string;
      metadata?: { name?: string; namespace?: string };
      spec?: unknown;
    } | null;
    if (!o || typeof o !== "object" || !o.kind || !o.metadata?.name) continue;
    out.push({
      kind: o.kind,
      apiVersion: o.apiVersion,
      name: o.metadata.name,
      namespace: o.metadata.namespace ?? releaseNamespace,
      spec: o.spec,
    });
  }
  return out;
}
