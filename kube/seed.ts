/**
 * What a rehearsal copies from a live cluster into its replica (kube/replica.ts), and the copy itself.
 *
 * Read from the source cluster with GET requests only (API discovery, lists): the CustomResourceDefinitions; the
 * namespaces a stack touches and, in them, every object of every kind that can be listed and created (Helm's
 * release records, ConfigMaps, Secrets, claims, workloads, quotas, limit ranges, routes, custom resources…), except
 * what the replica's own controllers make again (pods, ReplicaSets and the like that a controller owns, Endpoints,
 * EndpointSlices, Events, Leases, service-account tokens); the cluster-scoped objects a stack's releases own (Helm's
 * `meta.helm.sh/release-namespace` naming one of those namespaces); the admission policies and their bindings; the
 * storage and priority classes; the nodes (as kwok nodes with the same labels, taints and capacity); the persistent
 * volumes bound to the copied claims. Admission webhooks are listed, not copied: their servers do not run in a
 * replica, so what they would say is not rehearsed.
 *
 * Written to the replica: each object without what the source's API server assigned (uid, resourceVersion,
 * creation time, managed fields, owner references, a Service's cluster IPs, a Job's generated selector), then the
 * `status` of custom resources and nodes through their status subresource (what a controller of the source
 * cluster reported, e.g. a Gateway's address, which no controller in the replica reports).
 */
import type { ApiServer } from "./apiServer";
import { statusMessage } from "./apiServer";
import { mapBounded } from "./bounded";

type Obj = Record<string, unknown>;

/** One kind as discovery lists it. */
export interface ApiKind {
  /** `v1` or `<group>/<version>`. */
  apiVersion: string;
  kind: string;
  /** The resource name in paths (`deployments`). */
  resource: string;
  namespaced: boolean;
  verbs: string[];
  /** Served with a `status` subresource. */
  statusSubresource: boolean;
}

/** What a source cluster holds for a stack's replica (`readSource`). */
export interface SourceSnapshot {
  /** CRDs first, then namespaces, then other cluster-scoped objects, then namespaced objects. */
  objects: { kind: ApiKind; object: Obj }[];
  /** Admission webhook configurations (not copied): `<kind>/<name>` with where each sends its requests. */
  webhooks: string[];
  /** Kinds a list of failed for (with the server's message); their objects are not in the replica. */
  unreadable: string[];
}

/** Kinds a replica's own controllers make again, or that only mean something in the source cluster. */
const NOT_COPIED = new Set([
  "v1/Event",
  "events.k8s.io/v1/Event",
  "v1/Endpoints",
  "discovery.k8s.io/v1/EndpointSlice",
  "coordination.k8s.io/v1/Lease",
  "v1/Binding",
  "v1/ComponentStatus",
  "authorization.k8s.io/v1/LocalSubjectAccessReview",
  "metrics.k8s.io/v1beta1/PodMetrics",
]);

/** Owners whose controllers make their dependants again in the replica. */
const CONTROLLER_OWNERS = new Set(["ReplicaSet", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"]);

/** Cluster-scoped kinds copied whole (every object). */
const CLUSTER_COPIED = new Set([
  "storage.k8s.io/v1/StorageClass",
  "scheduling.k8s.io/v1/PriorityClass",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding",
  "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy",
  "admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding",
  "apiextensions.k8s.io/v1/CustomResourceDefinition",
  "gateway.networking.k8s.io/v1/GatewayClass",
  "networking.k8s.io/v1/IngressClass",
]);

const WEBHOOK_KINDS = new Set([
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration",
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration",
]);

/** The group of the replica's own runtime (kwok's Stage, Exec… objects): the replica's, never the source's. */
const REPLICA_RUNTIME_GROUP = "kwok.x-k8s.io";

const key = (k: { apiVersion: string; kind: string }) => `${k.apiVersion}/${k.kind}`;
const meta = (o: Obj) => (o["metadata"] ?? {}) as Obj;

/**
 * Why an object is not copied into the replica, or `undefined` when it is (pure). `namespaces`: the namespaces the
 * stack touches.
 */
export function notCopiedReason(kind: ApiKind, o: Obj, namespaces: ReadonlySet<string>): string | undefined {
  const m = meta(o);
  const k = key(kind);
  if (NOT_COPIED.has(k)) return "made again by the replica's controllers or meaningless there";
  if (kind.apiVersion.split("/")[0] === REPLICA_RUNTIME_GROUP) return "the replica's own runtime";
  if (
    kind.kind === "CustomResourceDefinition" &&
    (o["spec"] as Obj | undefined)?.["group"] === REPLICA_RUNTIME_GROUP
  )
    return "the replica's own runtime";
  if (WEBHOOK_KINDS.has(k)) return "admission webhook: its server does not run in the replica";
  const owners = (m["ownerReferences"] as { kind?: string; controller?: boolean }[] | undefined) ?? [];
  if (owners.some((r) => r.controller && CONTROLLER_OWNERS.has(String(r.kind))))
    return "made again by its controller in the replica";
  if (kind.namespaced) {
    if (!namespaces.has(String(m["namespace"]))) return "namespace not touched by the stack";
    if (kind.kind === "Secret" && o["type"] === "kubernetes.io/service-account-token")
      return "service-account token: the replica issues its own";
    if (kind.kind === "ConfigMap" && m["name"] === "kube-root-ca.crt") return "the replica's own CA bundle";
    return undefined;
  }
  if (kind.kind === "Namespace") return namespaces.has(String(m["name"])) ? undefined : "not touched";
  if (kind.kind === "Node" && kind.apiVersion === "v1") return undefined;
  // Volumes: readSource keeps those bound to a copied claim.
  if (kind.kind === "PersistentVolume" && kind.apiVersion === "v1") return undefined;
  if (CLUSTER_COPIED.has(k)) return undefined;
  const ann = (m["annotations"] ?? {}) as Record<string, string>;
  const relNs = ann["meta.helm.sh/release-namespace"];
  if (relNs !== undefined && namespaces.has(relNs)) return undefined;
  return "cluster-scoped, not owned by the stack's releases";
}

/**
 * The object as the replica is given it (pure; a new object): without what the source's API server assigned
 * (uid, resourceVersion, generation, creation and deletion marks, managed fields, owner references), without
 * `status` (written afterwards through the status subresource where there is one), a Service without its cluster
 * IPs (the replica allocates its own; headless stays headless), a Job without its generated selector and labels,
 * a node marked for kwok (`kwok.x-k8s.io/node: fake`), a persistent volume with reclaim policy Retain and its claim
 * reference without the claim's uid, a claim without the marks of a completed binding (the replica binds it again).
 */
export function replicaObject(kind: ApiKind, o: Obj): Obj {
  const out = structuredClone(o);
  delete out["status"];
  const m = meta(out);
  for (const f of [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "ownerReferences",
    "selfLink",
  ])
    delete m[f];
  const spec = out["spec"] as Obj | undefined;
  if (kind.kind === "Service" && kind.apiVersion === "v1" && spec) {
    if (spec["clusterIP"] !== "None") {
      delete spec["clusterIP"];
      delete spec["clusterIPs"];
    }
  }
  if (kind.kind === "Job" && spec) {
    delete spec["selector"];
    const tm = ((spec["template"] as Obj | undefined)?.["metadata"] ?? {}) as Obj;
    const labels = (tm["labels"] ?? {}) as Record<string, string>;
    for (const l of [
      "controller-uid",
      "batch.kubernetes.io/controller-uid",
      "job-name",
      "batch.kubernetes.io/job-name",
    ])
      delete labels[l];
    const own = (m["labels"] ?? {}) as Record<string, string>;
    for (const l of ["controller-uid", "batch.kubernetes.io/controller-uid"]) delete own[l];
  }
  if (kind.kind === "Node" && kind.apiVersion === "v1") {
    m["annotations"] = { ...((m["annotations"] as Obj | undefined) ?? {}), "kwok.x-k8s.io/node": "fake" };
    if (spec) for (const f of ["podCIDR", "podCIDRs", "providerID"]) delete spec[f];
  }
  if (kind.kind === "PersistentVolume" && spec) {
    // Nothing in the replica may reclaim what the volume points at (a host path of this machine, for one).
    spec["persistentVolumeReclaimPolicy"] = "Retain";
    const ref = spec["claimRef"] as Obj | undefined;
    if (ref) {
      delete ref["uid"];
      delete ref["resourceVersion"];
    }
  }
  if (kind.kind === "PersistentVolumeClaim") {
    // Bound again by the replica's controller to the volume it names (a claim marked bound to a volume whose claim
    // reference carries another uid is "lost").
    const ann = (m["annotations"] ?? {}) as Record<string, string>;
    delete ann["pv.kubernetes.io/bind-completed"];
    delete ann["pv.kubernetes.io/bound-by-controller"];
  }
  return out;
}

/**
 * The status written after the object, else undefined (pure): a custom resource's (its group is one of
 * `crdGroups`, the groups the copied CRDs define) and a node's capacity, when the kind has a status subresource.
 */
export function replicaStatus(kind: ApiKind, o: Obj, crdGroups: ReadonlySet<string>): Obj | undefined {
  if (!kind.statusSubresource || o["status"] === undefined) return undefined;
  const node = kind.kind === "Node" && kind.apiVersion === "v1";
  const group = kind.apiVersion.includes("/") ? kind.apiVersion.split("/")[0] : "";
  if (!node && !crdGroups.has(group)) return undefined;
  if (node) {
    const s = o["status"] as Obj;
    return { capacity: s["capacity"], allocatable: s["allocatable"] };
  }
  return o["status"] as Obj;
}

/** Creation order: CRDs, namespaces, other cluster-scoped objects, then namespaced ones (pure). */
export function seedOrder(kind: ApiKind): number {
  if (kind.kind === "CustomResourceDefinition") return 0;
  if (kind.kind === "Namespace") return 1;
  if (!kind.namespaced) return kind.kind === "PersistentVolume" ? 3 : 2;
  if (
    [
      "ServiceAccount",
      "Secret",
      "ConfigMap",
      "PersistentVolumeClaim",
      "ResourceQuota",
      "LimitRange",
    ].includes(kind.kind)
  )
    return 4;
  return 5;
}

/**
 * The kinds a cluster serves that can be listed and created, each once (in its group's preferred version where it
 * is served there), from API discovery (`/api`, `/apis`, then each group version). GET requests only.
 */
export async function discoverKinds(api: ApiServer): Promise<ApiKind[]> {
  // Every version of every group, the preferred one first: a kind served only in another version (Gateway API's
  // TCPRoute in v1alpha2 beside v1) is found there, and a kind served in several is taken once, in the preferred one.
  const versions = ["v1"];
  const groups =
    (
      await api.get<{
        groups?: { preferredVersion?: { groupVersion?: string }; versions?: { groupVersion?: string }[] }[];
      }>("/apis")
    )?.groups ?? [];
  for (const g of groups) {
    const preferred = g.preferredVersion?.groupVersion;
    if (preferred) versions.push(preferred);
    for (const v of g.versions ?? [])
      if (v.groupVersion && v.groupVersion !== preferred) versions.push(v.groupVersion);
  }
  const lists = await mapBounded(versions, 8, async (gv) => ({
    gv,
    list: await api.get<{
      resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
    }>(gv === "v1" ? "/api/v1" : `/apis/${gv}`),
  }));
  const out: ApiKind[] = [];
  const seen = new Set<string>();
  for (const { gv, list } of lists) {
    const resources = list?.resources ?? [];
    const group = gv.includes("/") ? gv.split("/")[0] : "";
    for (const r of resources) {
      if (r.name.includes("/")) continue;
      if (seen.has(`${group}/${r.kind}`)) continue;
      seen.add(`${group}/${r.kind}`);
      const verbs = r.verbs ?? [];
      if (!verbs.includes("list") || !verbs.includes("create")) continue;
      out.push({
        apiVersion: gv,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        verbs,
        statusSubresource: resources.some((x) => x.name === `${r.name}/status`),
      });
    }
  }
  return out;
}

/** The path of a kind's collection: across namespaces, or in `namespace` (pure). */
const collectionPath = (k: ApiKind, namespace?: string) => {
  const ns = k.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return k.apiVersion === "v1" ? `/api/v1${ns}/${k.resource}` : `/apis/${k.apiVersion}${ns}/${k.resource}`;
};

/**
 * Reads what the replica of a stack's cluster is given (see the module comment), with GET requests only.
 * `namespaces`: the namespaces the stack touches. Kinds whose list fails are named in `unreadable`.
 */
export async function readSource(api: ApiServer, namespaces: ReadonlySet<string>): Promise<SourceSnapshot> {
  const kinds = await discoverKinds(api);
  const objects: { kind: ApiKind; object: Obj }[] = [];
  const webhooks: string[] = [];
  const unreadable: string[] = [];
  await mapBounded(kinds, 8, async (kind) => {
    if (NOT_COPIED.has(key(kind)) || kind.apiVersion.split("/")[0] === REPLICA_RUNTIME_GROUP) return;
    const r = await api.request("GET", collectionPath(kind));
    if (r.status < 200 || r.status >= 300) {
      unreadable.push(`${key(kind)}: ${statusMessage(r)}`);
      return;
    }
    for (const item of ((r.body as Obj)["items"] as Obj[] | undefined) ?? []) {
      const o = { apiVersion: kind.apiVersion, kind: kind.kind, ...item };
      if (WEBHOOK_KINDS.has(key(kind))) {
        webhooks.push(`${kind.kind}/${String(meta(o)["name"])}${webhookTargets(o)}`);
        continue;
      }
      if (notCopiedReason(kind, o, namespaces) === undefined) objects.push({ kind, object: o });
    }
  });
  // Persistent volumes only where a copied claim is bound to them.
  const claimed = new Set(
    objects
      .filter((x) => x.kind.kind === "PersistentVolumeClaim")
      .map((x) => String(((x.object["spec"] as Obj | undefined) ?? {})["volumeName"] ?? ""))
      .filter(Boolean),
  );
  const kept = objects.filter(
    (x) => x.kind.kind !== "PersistentVolume" || claimed.has(String(meta(x.object)["name"])),
  );
  kept.sort((a, b) => seedOrder(a.kind) - seedOrder(b.kind));
  return { objects: kept, webhooks: webhooks.sort(), unreadable: unreadable.sort() };
}

function webhookTargets(o: Obj): string {
  const hooks =
    (o["webhooks"] as {
      clientConfig?: { url?: string; service?: { namespace?: string; name?: string } };
    }[]) ?? [];
  const targets = hooks.map((h) =>
    h.clientConfig?.url
      ? h.clientConfig.url
      : h.clientConfig?.service
        ? `service ${h.clientConfig.service.namespace}/${h.clientConfig.service.name}`
        : "?",
  );
  return targets.length ? ` (calls ${[...new Set(targets)].join(", ")})` : "";
}

/** What `seedReplica` did: objects created, and those the replica refused (with its message). */
export interface SeedResult {
  created: number;
  refused: string[];
}

/**
 * Creates the snapshot's objects in the replica in `seedOrder` (each order level after the one before; within a
 * level, at most 8 requests at once), waits for every CRD to be established before the rest, then writes the
 * statuses (`replicaStatus`). An object the replica already has (a namespace's default ServiceAccount) counts as
 * created.
 */
export async function seedReplica(replica: ApiServer, snap: SourceSnapshot): Promise<SeedResult> {
  const refused: string[] = [];
  let created = 0;
  const levels = [...new Set(snap.objects.map((x) => seedOrder(x.kind)))].sort((a, b) => a - b);
  const crdGroups = new Set(
    snap.objects
      .filter((x) => x.kind.kind === "CustomResourceDefinition")
      .map((x) => String((x.object["spec"] as Obj | undefined)?.["group"] ?? "")),
  );
  for (const level of levels) {
    const items = snap.objects.filter((x) => seedOrder(x.kind) === level);
    await mapBounded(items, 8, async ({ kind, object }) => {
      const m = meta(object);
      const base = collectionPath(kind, String(m["namespace"]));
      const r = await replica.request("POST", base, { body: replicaObject(kind, object) });
      if (r.status === 409 || (r.status >= 200 && r.status < 300)) created++;
      else {
        refused.push(
          `${kind.kind} ${m["namespace"] ? `${String(m["namespace"])}/` : ""}${String(m["name"])}: ${statusMessage(r)}`,
        );
        return;
      }
      const status = replicaStatus(kind, object, crdGroups);
      if (status) {
        const p = `${base}/${encodeURIComponent(String(m["name"]))}/status`;
        await replica.request("PATCH", p, { body: { status }, contentType: "application/merge-patch+json" });
      }
    });
    if (level === 0)
      await crdsEstablished(
        replica,
        items.map((x) => String(meta(x.object)["name"])),
      );
  }
  return { created, refused: refused.sort() };
}

async function crdsEstablished(replica: ApiServer, names: string[], timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const n of names) {
    for (;;) {
      const crd = await replica
        .get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(n)}`)
        .catch(() => undefined);
      const conds =
        ((crd?.["status"] as Obj | undefined)?.["conditions"] as { type: string; status: string }[]) ?? [];
      if (conds.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline)
        throw new Error(`CRD ${n} not established in the replica after ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** A workload's ready count: StatefulSets and Deployments `status.readyReplicas`, DaemonSets `status.numberReady`. */
function readyCount(kind: string, o: Obj): number {
  const s = (o["status"] ?? {}) as Obj;
  return Number((kind === "DaemonSet" ? s["numberReady"] : s["readyReplicas"]) ?? 0);
}

const WORKLOADS = ["StatefulSet", "Deployment", "DaemonSet"];

/**
 * The workloads of the snapshot whose replica is not yet as ready as the source's (pure): `kind ns/name: <ready in the
 * replica>/<ready in the source> ready` for each apps/v1 StatefulSet, Deployment and DaemonSet. Input: the snapshot
 * and the replica's objects of those kinds.
 */
export function unreadyWorkloads(snap: SourceSnapshot, replicaObjects: Obj[]): string[] {
  const inReplica = new Map(
    replicaObjects.map((o) => {
      const m = meta(o);
      return [`${String(o["kind"])}/${String(m["namespace"])}/${String(m["name"])}`, o];
    }),
  );
  const out: string[] = [];
  for (const { kind, object } of snap.objects) {
    if (kind.apiVersion !== "apps/v1" || !WORKLOADS.includes(kind.kind)) continue;
    const m = meta(object);
    const want = readyCount(kind.kind, object);
    const r = inReplica.get(`${kind.kind}/${String(m["namespace"])}/${String(m["name"])}`);
    const got = r ? readyCount(kind.kind, r) : 0;
    if (got < want)
      out.push(`${kind.kind} ${String(m["namespace"])}/${String(m["name"])}: ${got}/${want} ready`);
  }
  return out.sort();
}

/**
 * Waits until every workload of the snapshot is as ready in the replica as in the source (its controllers make the
 * pods, kwok reports them ready), for at most `timeoutMs`. Resolves to those still behind (empty: all caught up).
 */
export async function replicaCaughtUp(
  replica: ApiServer,
  snap: SourceSnapshot,
  timeoutMs = 120000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const objects: Obj[] = [];
    for (const kind of WORKLOADS) {
      const list = await replica
        .get<{ items?: Obj[] }>(`/apis/apps/v1/${kind.toLowerCase()}s`)
        .catch(() => undefined);
      for (const o of list?.items ?? []) objects.push({ ...o, kind });
    }
    const behind = unreadyWorkloads(snap, objects);
    if (behind.length === 0 || Date.now() > deadline) return behind;
    await new Promise((r) => setTimeout(r, 1000));
  }
}
