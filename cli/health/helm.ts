/**
 * Helm's release records as the health checks read them: every release's records newest first, and the objects
 * of a rendered manifest (records decoded by kube/helmRecords.ts). Pure; nothing here contacts a cluster.
 */
import * as yaml from "js-yaml";
import { type HelmRelease, readHelmRelease } from "../../kube/helmRecords";
import type { KubeObject } from "../../kube/kubectl";

/**
 * Every release's records, newest revision first, keyed `namespace/name`. Input: the storage Secrets of one
 * cluster. Records that cannot be decoded are skipped (the newest decodable one counts).
 */
export function releasesByName(secrets: readonly KubeObject[]): Map<string, HelmRelease[]> {
  const out = new Map<string, HelmRelease[]>();
  for (const s of secrets) {
    if (s.metadata.labels?.["owner"] !== "helm") continue;
    const rel = readHelmRelease(s.data?.release);
    if (rel === undefined) continue;
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
