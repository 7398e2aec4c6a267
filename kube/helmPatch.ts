/**
 * The patch Helm 3 sends for an object a release upgrade changes, computed as Helm's Kubernetes client computes it
 * (helm.sh/helm/v3 v3.18 `pkg/kube/client.go` `createPatch`, the Helm the Kubernetes provider embeds), so a
 * server-side dry run of that patch meets what `helm upgrade` will meet:
 *
 * - a kind of Kubernetes' own API groups (client-go's scheme at the provider's k8s.io/client-go v0.33, plus
 *   apiextensions.k8s.io/v1): a three-way strategic merge patch of the manifest the release last deployed
 *   (`original`), the new one (`target`) and the live object (`current`): what changed from the live object to the
 *   new manifest, without deletions, plus what the new manifest deletes from the old one
 *   (k8s.io/apimachinery `strategicpatch.CreateThreeWayMergePatch` with overwrite);
 * - any other kind (custom resources, aggregated APIs, apiextensions.k8s.io/v1beta1): a JSON merge patch
 *   (RFC 7386) from the old manifest to the new one, which Helm 3 uses for unstructured objects.
 *
 * Lists of a strategic merge patch follow the field's patch metadata (`x-kubernetes-patch-strategy`,
 * `x-kubernetes-patch-merge-key`, which the API server publishes in its OpenAPI document): lists merged by key are
 * diffed item by item and a removed item becomes a `$patch: delete` entry; lists of scalars merged as sets lose
 * removed items through `$deleteFromPrimitiveList/<field>`; every other list is replaced whole when it differs.
 * Where no metadata is known, a list is treated as replaced whole. The list order directives Helm also sends
 * (`$setElementOrder`) and `$retainKeys` are not computed: they change no field a dry run judges. Pure.
 */

/** A JSON object. */
export type Obj = Record<string, unknown>;

/** The patch metadata of one field of a kind's schema. */
export interface FieldPatchMeta {
  /** `x-kubernetes-patch-strategy`, split on commas (`merge`, `replace`, `retainKeys`); empty when unset. */
  strategies: readonly string[];
  /** `x-kubernetes-patch-merge-key`, for lists of objects merged by key. */
  mergeKey?: string;
}

/**
 * Answers the patch metadata of the field at `path`: property names from the object's root, where `[]` steps into
 * the items of a list (`["spec","template","spec","containers","[]","env"]`). Undefined: nothing known.
 */
export type PatchMetaLookup = (path: readonly string[]) => FieldPatchMeta | undefined;

/** Kubernetes' own API groups and versions that Helm's client decodes into typed objects (see the module comment). */
const TYPED_GROUP_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  "": ["v1"],
  "admissionregistration.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  "internal.apiserver.k8s.io": ["v1alpha1"],
  apps: ["v1", "v1beta1", "v1beta2"],
  "authentication.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  "authorization.k8s.io": ["v1", "v1beta1"],
  autoscaling: ["v1", "v2", "v2beta1", "v2beta2"],
  batch: ["v1", "v1beta1"],
  "certificates.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  "coordination.k8s.io": ["v1", "v1alpha2", "v1beta1"],
  "discovery.k8s.io": ["v1", "v1beta1"],
  "events.k8s.io": ["v1", "v1beta1"],
  extensions: ["v1beta1"],
  "flowcontrol.apiserver.k8s.io": ["v1", "v1beta1", "v1beta2", "v1beta3"],
  "networking.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  "node.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  policy: ["v1", "v1beta1"],
  "rbac.authorization.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  "resource.k8s.io": ["v1alpha3", "v1beta1", "v1beta2"],
  "scheduling.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  "storage.k8s.io": ["v1", "v1alpha1", "v1beta1"],
  "storagemigration.k8s.io": ["v1alpha1"],
  // Registered by Helm's client itself; only v1 is typed for the patch (v1beta1 takes the JSON merge patch).
  "apiextensions.k8s.io": ["v1"],
};

/** Splits an `apiVersion` into group and version (`apps/v1` → `apps`, `v1`; `v1` → ``, `v1`). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf("/");
  return i < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** True when Helm 3 patches objects of `apiVersion` with a strategic merge patch (else a JSON merge patch). */
export function usesStrategicMerge(apiVersion: string): boolean {
  const { group, version } = splitApiVersion(apiVersion);
  return TYPED_GROUP_VERSIONS[group]?.includes(version) ?? false;
}

/** A plain JSON object (not a list, not null). */
export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values (key order does not matter; list order does). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (!isObj(a) || !isObj(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => k in b && jsonEqual(a[k], b[k]));
}

/** A patch with nothing in it (`{}`), which Helm does not send. */
export function isEmptyPatch(p: Obj): boolean {
  return Object.keys(p).length === 0;
}

/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`: changed and added keys with their new value (maps
 * diffed key by key, lists whole), removed keys as `null`. Empty when they are equal.
 */
export function jsonMergePatch(from: Obj, to: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(to)) {
    const old = from[k];
    if (jsonEqual(old, v)) continue;
    if (isObj(old) && isObj(v)) {
      const d = jsonMergePatch(old, v);
      if (!isEmptyPatch(d)) out[k] = d;
    } else out[k] = v;
  }
  for (const k of Object.keys(from)) if (!(k in to)) out[k] = null;
  return out;
}

/** How a list field is patched, from its metadata. */
function listKind(
  meta: FieldPatchMeta | undefined,
  a: unknown[],
  b: unknown[],
): { kind: "keyed"; key: string } | { kind: "set" } | { kind: "whole" } {
  if (!meta?.strategies.includes("merge")) return { kind: "whole" };
  const items = [...a, ...b];
  if (meta.mergeKey !== undefined && items.every(isObj)) return { kind: "keyed", key: meta.mergeKey };
  if (meta.mergeKey === undefined && items.every((x) => !isObj(x) && !Array.isArray(x)))
    return { kind: "set" };
  return { kind: "whole" };
}

const keyOf = (item: unknown, key: string): string => JSON.stringify((item as Obj)[key] ?? null);

/**
 * The delta from `current` to `modified` without deletions (strategicpatch `diffMaps` with `IgnoreDeletions`):
 * keys `modified` adds or changes; keyed lists item by item; set lists the items `current` lacks; other lists
 * whole when they differ.
 */
function delta(current: Obj, modified: Obj, path: readonly string[], meta: PatchMetaLookup): Obj {
  const out: Obj = {};
  for (const [k, m] of Object.entries(modified)) {
    const c = current[k];
    const here = [...path, k];
    if (c === undefined) {
      out[k] = m;
    } else if (isObj(c) && isObj(m)) {
      const d = delta(c, m, here, meta);
      if (!isEmptyPatch(d)) out[k] = d;
    } else if (Array.isArray(c) && Array.isArray(m)) {
      const lk = listKind(meta(here), c, m);
      if (lk.kind === "keyed") {
        const items: Obj[] = [];
        for (const mi of m as Obj[]) {
          const ci = (c as Obj[]).find((x) => keyOf(x, lk.key) === keyOf(mi, lk.key));
          if (ci === undefined) items.push(mi);
          else {
            const d = delta(ci, mi, [...here, "[]"], meta);
            if (!isEmptyPatch(d)) items.push({ ...d, [lk.key]: mi[lk.key] });
          }
        }
        if (items.length) out[k] = items;
      } else if (lk.kind === "set") {
        const added = m.filter((x) => !c.some((y) => jsonEqual(x, y)));
        if (added.length) out[k] = added;
      } else if (!jsonEqual(c, m)) out[k] = m;
    } else if (!jsonEqual(c, m)) {
      out[k] = m;
    }
  }
  return out;
}

/**
 * What `modified` deletes from `original` (strategicpatch `diffMaps` with `IgnoreChangesAndAdditions`): removed
 * keys as `null`, removed items of keyed lists as `{<key>: …, $patch: delete}`, removed items of set lists under
 * `$deleteFromPrimitiveList/<field>`.
 */
function deletions(original: Obj, modified: Obj, path: readonly string[], meta: PatchMetaLookup): Obj {
  const out: Obj = {};
  for (const [k, o] of Object.entries(original)) {
    const here = [...path, k];
    if (!(k in modified)) {
      out[k] = null;
      continue;
    }
    const m = modified[k];
    if (isObj(o) && isObj(m)) {
      const d = deletions(o, m, here, meta);
      if (!isEmptyPatch(d)) out[k] = d;
    } else if (Array.isArray(o) && Array.isArray(m)) {
      const lk = listKind(meta(here), o, m);
      if (lk.kind === "keyed") {
        const items: Obj[] = [];
        for (const oi of o as Obj[]) {
          const mi = (m as Obj[]).find((x) => keyOf(x, lk.key) === keyOf(oi, lk.key));
          if (mi === undefined) items.push({ [lk.key]: oi[lk.key], $patch: "delete" });
          else {
            const d = deletions(oi, mi, [...here, "[]"], meta);
            if (!isEmptyPatch(d)) items.push({ ...d, [lk.key]: mi[lk.key] });
          }
        }
        if (items.length) out[k] = items;
      } else if (lk.kind === "set") {
        const removed = o.filter((x) => !m.some((y) => jsonEqual(x, y)));
        if (removed.length) out[`$deleteFromPrimitiveList/${k}`] = removed;
      }
    }
  }
  return out;
}

/** Merges two partial patches (the deletions and the delta), keyed list items by their key. */
function mergePatches(a: Obj, b: Obj, path: readonly string[], meta: PatchMetaLookup): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const had = out[k];
    const here = [...path, k];
    if (isObj(had) && isObj(v)) out[k] = mergePatches(had, v, here, meta);
    else if (Array.isArray(had) && Array.isArray(v)) {
      const lk = listKind(meta(here), had, v);
      if (lk.kind === "keyed") {
        const items = [...(had as Obj[])];
        for (const item of v as Obj[]) {
          const i = items.findIndex((x) => keyOf(x, lk.key) === keyOf(item, lk.key));
          if (i < 0) items.push(item);
          else items[i] = mergePatches(items[i], item, [...here, "[]"], meta);
        }
        out[k] = items;
      } else out[k] = v;
    } else out[k] = v;
  }
  return out;
}

/**
 * The three-way strategic merge patch Helm sends for a typed object (see the module comment). Input: the object as
 * the release last deployed it (its manifest), as the new manifest renders it, as the cluster holds it, and the
 * kind's patch metadata. Output: the patch; empty (`isEmptyPatch`) when Helm would send nothing.
 */
export function strategicMergePatch(original: Obj, target: Obj, current: Obj, meta: PatchMetaLookup): Obj {
  return mergePatches(deletions(original, target, [], meta), delta(current, target, [], meta), [], meta);
}

/**
 * The patch Helm sends to update an object from `original` (the release's last manifest) to `target`, given the
 * live object: its content type and body. The body is empty when Helm would skip the object.
 */
export function helmPatch(
  original: Obj,
  target: Obj,
  current: Obj,
  meta: PatchMetaLookup,
): { contentType: string; patch: Obj } {
  const apiVersion = String(target["apiVersion"] ?? "");
  return usesStrategicMerge(apiVersion)
    ? {
        contentType: "application/strategic-merge-patch+json",
        patch: strategicMergePatch(original, target, current, meta),
      }
    : { contentType: "application/merge-patch+json", patch: jsonMergePatch(original, target) };
}
