/**
 * The server-side dry run of one Helm release's change: every object the new manifests hold is sent to the API
 * server the way `helm install`/`helm upgrade` (Helm 3.18, inside the Kubernetes provider) will send it, with
 * `dryRun=All`, so admission (webhooks, ValidatingAdmissionPolicies, quotas, LimitRanges, Pod Security),
 * validation (immutable fields, schemas), authorization and API discovery answer now instead of half-way
 * through `pulumi up`. Nothing is written: every request is a read or a dry run.
 *
 * What Helm does, and so what is sent (helm.sh/helm/v3 v3.18 `pkg/action/install.go`, `upgrade.go`, `hooks.go`,
 * `pkg/kube/client.go`):
 * - install: the chart's `crds/` CRDs that do not exist yet are created; every object is created; the hooks of
 *   `pre-install`/`post-install` are created;
 * - upgrade: an object the release did not have is created, unless it exists, when Helm adopts it only if its
 *   ownership metadata names this release (else the upgrade stops); an object it had is patched
 *   (kube/helmPatch.ts), and not at all when the patch is empty; an object it no longer renders is deleted
 *   (unless annotated `helm.sh/resource-policy: keep`); the hooks of `pre-upgrade`/`post-upgrade` are created,
 *   each after its old copy is deleted when its delete policy is `before-hook-creation` (the default);
 * - `crds/` is not touched by an upgrade;
 * - each revision is stored as a release record, a Secret `sh.helm.release.v1.<release>.v<revision>` in the
 *   release's namespace.
 *
 * Where the dry run cannot stand for the real step it says so instead of guessing: an object in a namespace that
 * the same update creates, or of a kind whose CRD the same update installs, is listed as not checked. An object an
 * earlier step of the same update deletes (a StatefulSet an upgrade step recreates) is dry-run as the create Helm
 * will make, under a generated name. Several creates that together exceed a ResourceQuota's object count are
 * refused here although the API server judges each alone.
 */
import * as yaml from "js-yaml";
import { mapBounded } from "./bounded";
import { type ApiResponse, type ApiServer, statusMessage } from "./apiServer";
import { type Obj, helmPatch, isEmptyPatch, isObj, jsonEqual, splitApiVersion } from "./helmPatch";
import type { HelmRelease } from "./helmRecords";

/** One thing the dry run found. */
export interface DryRunFinding {
  /** `refusal`: `up` would fail here; `warning`: the API server warns (it would apply); `note`: not checked, and why. */
  level: "refusal" | "warning" | "note";
  release: string;
  /** What Helm would do: `create`, `update`, `delete`, `hook` (a hook's create), `check` (before any request). */
  action: string;
  /** `Kind namespace/name` (or `Kind name` for cluster-scoped objects). */
  object: string;
  /** The cause in the API server's words, completed where they do not name the field. */
  cause: string;
  /** The rule that refused: a webhook's or policy's name, a quota, `immutable field`, `kind not served`… */
  rule?: string;
  /** `immutable field`: the refused field paths as the API server names them (`spec.selector`). */
  fields?: string[];
}

/** An object named by kind and place (version-less, as Helm matches objects). */
export interface ObjectRef {
  group: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** What one release's dry run needs. */
export interface ReleaseDryRun {
  release: string;
  /** The release's namespace (Helm's default namespace of its objects). */
  namespace: string;
  /** The objects the new chart renders (manifest and hooks), in order. */
  objects: Obj[];
  /** Install only: the CRDs of the chart's `crds/` directory. */
  crds?: Obj[];
  /** The record of the release as deployed (latest `deployed` revision); undefined: Helm installs it. */
  deployed?: HelmRelease;
  /** Objects an earlier step of the same update deletes before this release moves. */
  deletedFirst?: readonly ObjectRef[];
}

/** What is shared by the dry runs of one stack's preview. */
export interface DryRunScope {
  api: ApiServer;
  /** `group/version/Kind` of kinds whose CRD this update installs or changes → the release that carries it. */
  providedKinds: ReadonlyMap<string, string>;
  /** Namespaces this update creates (they cannot hold a dry-run object yet). */
  createdNamespaces: ReadonlySet<string>;
  /** The field manager Helm's requests carry (`pulumi-resource-kubernetes`, the provider's binary). */
  fieldManager: string;
  /** Objects created by the dry runs so far, per quota key (`<namespace>|<resource>`), for the quotas' counts. */
  created?: Map<string, number>;
}

const HOOK = "helm.sh/hook";
const HOOK_DELETE_POLICY = "helm.sh/hook-delete-policy";
const RESOURCE_POLICY = "helm.sh/resource-policy";

/** Identity of an object as Helm matches it: group, kind, namespace, name. */
export function refOf(o: Obj): ObjectRef {
  const meta = (o["metadata"] as Obj | undefined) ?? {};
  return {
    group: splitApiVersion(String(o["apiVersion"] ?? "")).group,
    kind: String(o["kind"] ?? ""),
    ...(typeof meta["namespace"] === "string" ? { namespace: meta["namespace"] } : {}),
    name: String(meta["name"] ?? meta["generateName"] ?? ""),
  };
}

const refKey = (r: ObjectRef) => `${r.group}|${r.kind}|${r.namespace ?? ""}|${r.name}`;

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export function describeRef(r: ObjectRef): string {
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
}

const metaOf = (o: Obj): Obj => (isObj(o["metadata"]) ? o["metadata"] : {});
const annotations = (o: Obj): Record<string, string> =>
  (metaOf(o)["annotations"] as Record<string, string> | undefined) ?? {};
const labels = (o: Obj): Record<string, string> =>
  (metaOf(o)["labels"] as Record<string, string> | undefined) ?? {};

/** The hook events of an object (`helm.sh/hook`), empty for a regular object. */
export function hookEvents(o: Obj): string[] {
  const v = annotations(o)[HOOK];
  return v
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

/** The documents of a multi-document YAML manifest that are objects. */
export function parseManifest(text: string | undefined): Obj[] {
  if (!text) return [];
  return yaml.loadAll(text).filter((d): d is Obj => isObj(d) && typeof d["kind"] === "string");
}

/** The `group/version/Kind` key of an object's type. */
export const gvkOf = (o: Obj): string => `${String(o["apiVersion"] ?? "")}/${String(o["kind"] ?? "")}`;

/**
 * The kinds an object defines when it is a CustomResourceDefinition: `group/version/Kind` for each served version.
 */
export function kindsDefined(o: Obj): string[] {
  if (o["kind"] !== "CustomResourceDefinition") return [];
  const spec = (o["spec"] as Obj | undefined) ?? {};
  const kind = (spec["names"] as Obj | undefined)?.["kind"];
  const group = spec["group"];
  const versions = (spec["versions"] as Obj[] | undefined) ?? [];
  if (typeof kind !== "string" || typeof group !== "string") return [];
  return versions.filter((v) => v["served"] !== false).map((v) => `${group}/${String(v["name"])}/${kind}`);
}

/** Classifies an API server refusal: its rule and the cause to print. */
export function classifyRefusal(
  r: ApiResponse,
  target?: Obj,
  live?: Obj,
): { rule: string; cause: string; fields?: string[] } {
  const msg = statusMessage(r);
  const body = isObj(r.body) ? r.body : {};
  const reason = String(body["reason"] ?? "");
  const causes = ((body["details"] as Obj | undefined)?.["causes"] as Obj[] | undefined) ?? [];
  let m: RegExpExecArray | null;
  if (r.status === 0) return { rule: "no answer", cause: msg };
  if ((m = /admission webhook "([^"]+)" denied the request:?\s*(.*)$/s.exec(msg)))
    return { rule: `admission webhook ${m[1]}`, cause: m[2] || msg };
  if (
    (m = /ValidatingAdmissionPolicy '([^']+)'(?: with binding '([^']+)')? denied request:?\s*(.*)$/s.exec(
      msg,
    ))
  )
    return {
      rule: `ValidatingAdmissionPolicy ${m[1]}${m[2] ? `, binding ${m[2]}` : ""}`,
      cause: m[3] || msg,
    };
  if ((m = /exceeded quota: ([^,\s]+),?\s*(.*)$/s.exec(msg)))
    return { rule: `ResourceQuota ${m[1]}`, cause: m[2] || msg };
  if (
    /maximum .* usage per|minimum .* usage per|must be less than or equal to .* limit|LimitRange/i.test(msg)
  )
    return { rule: "LimitRange", cause: msg };
  if (/violates PodSecurity/.test(msg)) return { rule: "Pod Security admission", cause: msg };
  if (r.status === 403 && /cannot (create|patch|update|delete|get)/.test(msg))
    return { rule: "RBAC", cause: msg };
  if (/Forbidden: updates to statefulset spec for fields other than/.test(msg)) {
    const changed =
      target && live ? changedFields(target["spec"], live["spec"], "spec", STATEFULSET_UPDATABLE) : [];
    const fields = [...new Set(changed.map((c) => c.split(/[.[ ]/).slice(0, 2).join(".")))];
    return {
      rule: "immutable field",
      fields,
      cause: changed.length
        ? `${fields.join(", ")} cannot change in place: ${changed.join("; ")} (API server: updates to a StatefulSet may change only replicas, template, updateStrategy and a few more)`
        : `a StatefulSet field other than replicas, template and updateStrategy changes (API server: ${msg})`,
    };
  }
  if (/field is immutable|immutable/i.test(msg)) {
    const immutable = causes.filter(
      (c) => typeof c["field"] === "string" && /immutable/i.test(String(c["message"] ?? "")),
    );
    const fields = [...new Set(immutable.map((c) => String(c["field"])))];
    // A cause's message repeats the whole new value before its verdict (`Invalid value: {…}: field is immutable`).
    const said =
      [
        ...new Set(immutable.map((c) => String(c["message"]).replace(/^Invalid value: .*: (?=[^:]*$)/s, ""))),
      ].join("; ") || msg;
    const changed = fields.flatMap((f) => changedFields(valueAtPath(target, f), valueAtPath(live, f), f));
    return {
      rule: "immutable field",
      fields,
      cause: `${fields.join(", ") || "a field"} cannot change in place${changed.length ? `: ${changed.join("; ")}` : ""} (API server: ${said})`,
    };
  }
  if (reason === "Invalid" && causes.length)
    return {
      rule: "validation",
      cause: causes.map((c) => `${String(c["field"] ?? "")}: ${String(c["message"] ?? "")}`).join("; "),
    };
  if (r.status === 409 || reason === "AlreadyExists") return { rule: "conflict", cause: msg };
  return { rule: reason || `HTTP ${r.status}`, cause: msg };
}

/** The StatefulSet spec fields Kubernetes lets an update change (apps validation of StatefulSet updates). */
const STATEFULSET_UPDATABLE = new Set([
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
  "revisionHistoryLimit",
]);

const short = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** A map key as a field path segment: `.key`, or `["key"]` when it holds anything but letters, digits, `_`, `-`. */
const fieldKey = (k: string): string => (/^[A-Za-z_][\w-]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/** The value at a dotted field path with `[i]` indexes (as the API server names fields). */
function valueAtPath(root: unknown, p: string): unknown {
  let cur = root;
  for (const part of p.split(/\.|(?=\[)/)) {
    if (cur === undefined || cur === null) return undefined;
    const idx = /^\[(\d+)\]$/.exec(part);
    cur = idx ? (Array.isArray(cur) ? cur[Number(idx[1])] : undefined) : (cur as Obj)[part];
  }
  return cur;
}

/**
 * The fields under `base` where the target sets a value that differs from the live one (fields the target leaves
 * out are the server's defaults and not compared), leaving out the top-level keys of `allowed`. Each as
 * `path (live → target)`.
 */
export function changedFields(
  target: unknown,
  live: unknown,
  base: string,
  allowed: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  const walk = (t: unknown, l: unknown, p: string, depth: number) => {
    if (out.length >= 6) return;
    if (isObj(t) && isObj(l)) {
      for (const [k, v] of Object.entries(t)) {
        if (depth === 0 && allowed.has(k)) continue;
        walk(v, l[k], `${p}${fieldKey(k)}`, depth + 1);
      }
      return;
    }
    if (Array.isArray(t) && Array.isArray(l) && t.length === l.length) {
      t.forEach((v, i) => walk(v, l[i], `${p}[${i}]`, depth + 1));
      return;
    }
    if (l === undefined || !jsonEqual(t, l))
      out.push(`${p} (${l === undefined ? "unset" : short(l)} → ${short(t)})`);
  };
  walk(target, live, base, 0);
  return out;
}

/** Object-count quota keys an object's create adds to (ResourceQuota `count/<resource>[.<group>]` and legacy names). */
function quotaKeys(resource: string, group: string): string[] {
  const keys = [`count/${resource}${group ? `.${group}` : ""}`];
  if (
    !group &&
    [
      "configmaps",
      "secrets",
      "services",
      "persistentvolumeclaims",
      "pods",
      "replicationcontrollers",
      "resourcequotas",
    ].includes(resource)
  )
    keys.push(resource);
  return keys;
}

/**
 * Dry-runs one release's change (see the module comment). Input: what the release renders and what it deployed,
 * and the stack's scope. Output: the findings (refusals, the API server's warnings, what was not checked); never
 * rejects: a request without an answer is a refusal naming why.
 */
export async function dryRunRelease(scope: DryRunScope, rel: ReleaseDryRun): Promise<DryRunFinding[]> {
  const { api } = scope;
  const findings: DryRunFinding[] = [];
  const install = rel.deployed === undefined;
  const events = install ? ["pre-install", "post-install"] : ["pre-upgrade", "post-upgrade"];
  const q = (extra = "") => `?dryRun=All&fieldManager=${encodeURIComponent(scope.fieldManager)}${extra}`;
  const namespaces = new Map<string, Promise<boolean>>();
  const namespaceExists = (ns: string) => {
    let p = namespaces.get(ns);
    if (!p) {
      p = api.get(`/api/v1/namespaces/${encodeURIComponent(ns)}`).then((x) => x !== undefined);
      namespaces.set(ns, p);
    }
    return p;
  };
  /** Objects not checked, counted by why. */
  const unchecked = new Map<string, number>();
  const skip = (why: string) => unchecked.set(why, (unchecked.get(why) ?? 0) + 1);
  /** Requests the API server accepted, by action, and objects Helm leaves alone (empty patch). */
  const accepted = new Map<string, number>();
  const count = (action: string) => accepted.set(action, (accepted.get(action) ?? 0) + 1);
  const add = (f: Omit<DryRunFinding, "release">) => findings.push({ release: rel.release, ...f });
  const warn = (action: string, ref: ObjectRef, res: ApiResponse) => {
    for (const w of res.warnings) add({ level: "warning", action, object: describeRef(ref), cause: w });
  };

  /** Where an object goes, or why it is not checked / refused before any request. */
  const locate = async (
    o: Obj,
    action: string,
  ): Promise<{ ref: ObjectRef; collection: string; path?: string; namespaced: boolean } | undefined> => {
    const apiVersion = String(o["apiVersion"] ?? "");
    const kind = String(o["kind"] ?? "");
    const served = await api.kind(apiVersion, kind);
    const meta = metaOf(o);
    if (!served) {
      const ref = refOf(o);
      const by = scope.providedKinds.get(gvkOf(o));
      if (by !== undefined) {
        skip(`kind ${apiVersion} ${kind} (its CRD comes with release ${by} in this update)`);
        return undefined;
      }
      add({
        level: "refusal",
        action,
        object: describeRef(ref),
        rule: "kind not served",
        cause: `the cluster does not serve ${apiVersion} ${kind}: no API group version or CRD defines it`,
      });
      return undefined;
    }
    if (served.namespaced && typeof meta["namespace"] !== "string") meta["namespace"] = rel.namespace;
    if (!served.namespaced) delete meta["namespace"];
    o["metadata"] = meta;
    const ref = refOf(o);
    if (served.namespaced && ref.namespace && !(await namespaceExists(ref.namespace))) {
      if (scope.createdNamespaces.has(ref.namespace)) {
        const why = `namespace ${ref.namespace} (this update creates it)`;
        skip(why);
      } else
        add({
          level: "refusal",
          action,
          object: describeRef(ref),
          rule: "namespace missing",
          cause: `namespace ${ref.namespace} does not exist and this stack does not create it`,
        });
      return undefined;
    }
    const collection = (await api.objectPath(apiVersion, kind, ref.namespace)) as string;
    const path =
      typeof meta["name"] === "string"
        ? await api.objectPath(apiVersion, kind, ref.namespace, meta["name"])
        : undefined;
    return { ref, collection, path, namespaced: served.namespaced };
  };

  /** A dry-run create; counts it against the namespace's object-count quotas when the server accepts it. */
  const create = async (
    o: Obj,
    action: string,
    where: { ref: ObjectRef; collection: string },
    asNew = false,
  ) => {
    let body = o;
    if (asNew) {
      const meta = { ...metaOf(o) };
      meta["generateName"] = `${String(meta["name"])}-`;
      delete meta["name"];
      body = { ...o, metadata: meta };
    }
    const res = await api.request("POST", `${where.collection}${q()}`, { body });
    warn(action, where.ref, res);
    if (res.status >= 200 && res.status < 300) {
      count(action);
      await countQuota(where.ref, o, action);
      return;
    }
    const c = classifyRefusal(res, o);
    add({ level: "refusal", action, object: describeRef(where.ref), ...c });
  };

  const quotas = new Map<string, Promise<Obj[]>>();
  const countQuota = async (ref: ObjectRef, o: Obj, action: string) => {
    if (!ref.namespace) return;
    const served = await api.kind(String(o["apiVersion"]), ref.kind);
    if (!served) return;
    let p = quotas.get(ref.namespace);
    if (!p) {
      p = api
        .get<{ items?: Obj[] }>(`/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/resourcequotas`)
        .then((l) => l?.items ?? [])
        .catch(() => []);
      quotas.set(ref.namespace, p);
    }
    const list = await p;
    if (!list.length) return;
    scope.created ??= new Map();
    for (const key of quotaKeys(served.resource, ref.group)) {
      const k = `${ref.namespace}|${key}`;
      const n = (scope.created.get(k) ?? 0) + 1;
      scope.created.set(k, n);
      for (const quota of list) {
        const status = (quota["status"] as Obj | undefined) ?? {};
        const hard = (status["hard"] as Record<string, string> | undefined)?.[key];
        if (hard === undefined) continue;
        const used = Number((status["used"] as Record<string, string> | undefined)?.[key] ?? 0);
        // The server judged this create alone (used + 1); the creates before it in this update come on top.
        if (n > 1 && used + n > Number(hard))
          add({
            level: "refusal",
            action,
            object: describeRef(ref),
            rule: `ResourceQuota ${String(metaOf(quota)["name"])}`,
            cause: `this update creates ${n} ${key} in namespace ${ref.namespace}; the quota allows ${hard} and ${used} are used`,
          });
      }
    }
  };

  const original = new Map<string, Obj>();
  for (const o of parseManifest(rel.deployed?.manifest)) {
    const served = await api.kind(String(o["apiVersion"] ?? ""), String(o["kind"] ?? ""));
    const meta = metaOf(o);
    if ((served?.namespaced ?? true) && typeof meta["namespace"] !== "string")
      meta["namespace"] = rel.namespace;
    if (served && !served.namespaced) delete meta["namespace"];
    o["metadata"] = meta;
    original.set(refKey(refOf(o)), o);
  }
  const deletedFirst = new Set((rel.deletedFirst ?? []).map(refKey));

  // crds/ on install: created when missing, left alone when present.
  for (const crd of rel.crds ?? []) {
    const where = await locate(crd, "create");
    if (!where?.path) continue;
    if ((await api.get(where.path)) === undefined) await create(crd, "create", where);
  }

  const regular = rel.objects.filter((o) => hookEvents(o).length === 0);
  const hooks = rel.objects.filter((o) => hookEvents(o).some((e) => events.includes(e)));
  const seen = new Set<string>();

  await mapBounded(regular, 8, async (o) => {
    const where = await locate(o, "create");
    if (!where) return;
    const key = refKey(where.ref);
    seen.add(key);
    const live = where.path ? await api.get(where.path).catch(() => undefined) : undefined;
    if (live === undefined || !where.path) return create(o, "create", where);
    if (deletedFirst.has(key)) return create(o, "create", where, true);
    let before = original.get(key);
    if (before === undefined) {
      const a = annotations(live);
      const owned =
        a["meta.helm.sh/release-name"] === rel.release &&
        a["meta.helm.sh/release-namespace"] === rel.namespace &&
        labels(live)["app.kubernetes.io/managed-by"] === "Helm";
      if (!owned) {
        add({
          level: "refusal",
          action: "create",
          object: describeRef(where.ref),
          rule: "ownership",
          cause: `it already exists and is not part of release ${rel.release} (annotation meta.helm.sh/release-name is ${a["meta.helm.sh/release-name"] ? `"${a["meta.helm.sh/release-name"]}"` : "missing"}): Helm refuses to adopt it`,
        });
        return;
      }
      // Helm adopts it: its original is the rendered object itself (existingResourceConflict returns the new
      // object), so the patch sets what the chart sets and deletes nothing.
      before = o;
    }
    const meta = await api.patchMeta(String(o["apiVersion"]), where.ref.kind);
    const { contentType, patch } = helmPatch(before, o, live, meta);
    if (isEmptyPatch(patch)) {
      count("unchanged");
      return;
    }
    const res = await api.request("PATCH", `${where.path}${q()}`, { body: patch, contentType });
    warn("update", where.ref, res);
    if (res.status >= 200 && res.status < 300) {
      count("update");
      return;
    }
    const c = classifyRefusal(res, o, live);
    add({ level: "refusal", action: "update", object: describeRef(where.ref), ...c });
  });

  // Objects the release no longer renders: Helm deletes them.
  if (!install) {
    const gone = [...original.entries()].filter(([k]) => !seen.has(k)).map(([, o]) => o);
    await mapBounded(gone, 8, async (o) => {
      const ref = refOf(o);
      const path = await api.objectPath(String(o["apiVersion"] ?? ""), ref.kind, ref.namespace, ref.name);
      if (!path) return;
      const live = await api.get(path).catch(() => undefined);
      if (live === undefined || annotations(live)[RESOURCE_POLICY] === "keep") return;
      const res = await api.request("DELETE", `${path}${q("&propagationPolicy=Background")}`);
      warn("delete", ref, res);
      if ((res.status >= 200 && res.status < 300) || res.status === 404) {
        count("delete");
        return;
      }
      const c = classifyRefusal(res);
      add({ level: "refusal", action: "delete", object: describeRef(ref), ...c });
    });
  }

  // The release record Helm writes for this revision: a Secret in the release's namespace (counted by quotas on
  // Secrets, and needing the permission to create Secrets there).
  const revision = (rel.deployed?.version ?? 0) + 1;
  const record: Obj = {
    apiVersion: "v1",
    kind: "Secret",
    type: "helm.sh/release.v1",
    metadata: {
      name: `sh.helm.release.v1.${rel.release}.v${revision}`,
      namespace: rel.namespace,
      labels: {
        name: rel.release,
        owner: "helm",
        status: "pending-" + (install ? "install" : "upgrade"),
        version: String(revision),
      },
    },
    data: { release: "" },
  };
  const recordAt = await locate(record, "record");
  if (recordAt) await create(record, "record", recordAt);

  // Hooks of this step, one after another as Helm runs them.
  for (const h of hooks) {
    const where = await locate(h, "hook");
    if (!where) continue;
    const live = where.path ? await api.get(where.path).catch(() => undefined) : undefined;
    if (live === undefined) {
      await create(h, "hook", where);
      continue;
    }
    const policies = (annotations(h)[HOOK_DELETE_POLICY] ?? "before-hook-creation")
      .split(",")
      .map((s) => s.trim());
    if (policies.includes("before-hook-creation")) await create(h, "hook", where, true);
    else
      add({
        level: "refusal",
        action: "hook",
        object: describeRef(where.ref),
        rule: "hook exists",
        cause: `it exists from an earlier run and its delete policy (${policies.join(", ")}) does not remove it before Helm creates it again`,
      });
  }

  for (const [why, n] of unchecked)
    add({
      level: "note",
      action: "check",
      object: `${n} object${n === 1 ? "" : "s"}`,
      cause: `not checked: ${why}`,
    });
  const parts = ["create", "update", "delete", "hook", "record"]
    .filter((a) => accepted.has(a))
    .map((a) => `${accepted.get(a)} ${a}${accepted.get(a) === 1 ? "" : "s"}`);
  const same = accepted.get("unchanged") ?? 0;
  add({
    level: "note",
    action: "summary",
    object: "",
    cause: `${parts.length ? `${parts.join(", ")} accepted` : "nothing sent"}${same ? `; ${same} object${same === 1 ? "" : "s"} unchanged (Helm sends no patch)` : ""}`,
  });
  return findings;
}
