/**
 * Helm's release records as a cluster stores them: Helm 3's storage driver "secret" keeps one Secret per
 * release revision, of type `helm.sh/release.v1`, labelled `owner=helm`, `name`, `status`, `version` (and
 * `modifiedAt`); its `data.release`, as the Kubernetes API returns it, is base64 of Helm's own base64 of the
 * gzipped JSON release (`helm/pkg/storage/driver/util.go` `encodeRelease`/`decodeRelease`). The one decoder of
 * those records for the program's recovery (recovery/recover.ts) and the `nvcf` command's checks and
 * Helmfile import (cli/health, cli/importHelmfile). Pure: nothing here contacts a cluster.
 */
import * as zlib from "node:zlib";

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

/** The fields of a Helm release record this project reads. */
export interface HelmRelease {
  name: string;
  namespace: string;
  /** Revision number. */
  version: number;
  info?: { status?: string; last_deployed?: string; description?: string };
  chart?: { metadata?: { name?: string; version?: string } };
  /** The values given to the install or upgrade (Helm's `config`: user-supplied values only, not the chart's defaults). */
  config?: Record<string, unknown>;
  /** The rendered manifest of the release's (non-hook) objects, multi-document YAML. */
  manifest?: string;
  hooks?: HelmHook[];
}

/**
 * Decodes a storage Secret's `data.release` (as `kubectl get -o json` returns it) into Helm's release object.
 * A payload that is not gzipped is read as plain JSON. Throws on a payload that is not a Helm record.
 */
export function decodeHelmRelease(payload: string): HelmRelease {
  let bytes = Buffer.from(Buffer.from(payload, "base64").toString("utf8"), "base64");
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
  return JSON.parse(bytes.toString("utf8")) as HelmRelease;
}

/** Like `decodeHelmRelease`, but undefined when the payload is missing or not a Helm record. Never throws. */
export function readHelmRelease(payload: string | undefined): HelmRelease | undefined {
  if (!payload) return undefined;
  try {
    return decodeHelmRelease(payload);
  } catch {
    return undefined;
  }
}

/** Encodes a release record as Helm stores it, the inverse of `decodeHelmRelease` (for test fixtures). */
export function encodeHelmRelease(rel: HelmRelease): string {
  const inner = zlib.gzipSync(Buffer.from(JSON.stringify(rel), "utf8")).toString("base64");
  return Buffer.from(inner, "utf8").toString("base64");
}
