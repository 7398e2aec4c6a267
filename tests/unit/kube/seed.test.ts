/**
 * What a rehearsal copies into a replica (kube/seed.ts): which objects are copied, what is stripped from them, the
 * statuses written after them, the creation order, and when a replica has caught up with its source's workloads.
 */
import {
  type ApiKind,
  notCopiedReason,
  replicaObject,
  replicaStatus,
  seedOrder,
  type SourceSnapshot,
  unreadyWorkloads,
} from "../../../kube/seed";

const kind = (apiVersion: string, k: string, namespaced = true, statusSubresource = false): ApiKind => ({
  apiVersion,
  kind: k,
  resource: `${k.toLowerCase()}s`,
  namespaced,
  verbs: ["create", "list"],
  statusSubresource,
});
const NS = new Set(["cassandra-system", "nvcf"]);

test("objects of the stack's namespaces are copied; controller-made ones, tokens and other namespaces are not", () => {
  const cm = kind("v1", "ConfigMap");
  expect(notCopiedReason(cm, { metadata: { name: "a", namespace: "nvcf" } }, NS)).toBeUndefined();
  expect(notCopiedReason(cm, { metadata: { name: "a", namespace: "other" } }, NS)).toBe(
    "namespace not touched by the stack",
  );
  expect(notCopiedReason(cm, { metadata: { name: "kube-root-ca.crt", namespace: "nvcf" } }, NS)).toBe(
    "the replica's own CA bundle",
  );
  const pod = {
    metadata: { name: "p", namespace: "nvcf", ownerReferences: [{ kind: "ReplicaSet", controller: true }] },
  };
  expect(notCopiedReason(kind("v1", "Pod"), pod, NS)).toBe("made again by its controller in the replica");
  // An orphan pod (Cassandra's adoption leaves them) is copied.
  expect(
    notCopiedReason(
      kind("v1", "Pod"),
      { metadata: { name: "cassandra-0", namespace: "cassandra-system" } },
      NS,
    ),
  ).toBeUndefined();
  expect(
    notCopiedReason(
      kind("v1", "Secret"),
      { type: "kubernetes.io/service-account-token", metadata: { name: "t", namespace: "nvcf" } },
      NS,
    ),
  ).toBe("service-account token: the replica issues its own");
  expect(notCopiedReason(kind("v1", "Event"), { metadata: { name: "e", namespace: "nvcf" } }, NS)).toMatch(
    /made again/,
  );
  expect(
    notCopiedReason(
      kind("kwok.x-k8s.io/v1alpha1", "Exec"),
      { metadata: { name: "x", namespace: "nvcf" } },
      NS,
    ),
  ).toBe("the replica's own runtime");
  expect(
    notCopiedReason(
      kind("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", false),
      { metadata: { name: "w" } },
      NS,
    ),
  ).toMatch(/its server does not run in the replica/);
});

test("cluster-scoped: namespaces touched, nodes, classes, policies, CRDs and what the stack's releases own", () => {
  expect(notCopiedReason(kind("v1", "Namespace", false), { metadata: { name: "nvcf" } }, NS)).toBeUndefined();
  expect(notCopiedReason(kind("v1", "Namespace", false), { metadata: { name: "kube-system" } }, NS)).toBe(
    "not touched",
  );
  expect(notCopiedReason(kind("v1", "Node", false), { metadata: { name: "n" } }, NS)).toBeUndefined();
  for (const k of [
    kind("storage.k8s.io/v1", "StorageClass", false),
    kind("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", false),
    kind("apiextensions.k8s.io/v1", "CustomResourceDefinition", false),
  ])
    expect([k.kind, notCopiedReason(k, { metadata: { name: "x" } }, NS)]).toEqual([k.kind, undefined]);
  const role = kind("rbac.authorization.k8s.io/v1", "ClusterRole", false);
  const owned = { metadata: { name: "r", annotations: { "meta.helm.sh/release-namespace": "nvcf" } } };
  expect(notCopiedReason(role, owned, NS)).toBeUndefined();
  expect(notCopiedReason(role, { metadata: { name: "system:x" } }, NS)).toBe(
    "cluster-scoped, not owned by the stack's releases",
  );
  expect(
    notCopiedReason(
      kind("apiextensions.k8s.io/v1", "CustomResourceDefinition", false),
      { metadata: { name: "execs.kwok.x-k8s.io" }, spec: { group: "kwok.x-k8s.io" } },
      NS,
    ),
  ).toBe("the replica's own runtime");
});

test("a copy carries nothing the source's API server assigned", () => {
  const svc = {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "api",
      namespace: "nvcf",
      uid: "u",
      resourceVersion: "7",
      creationTimestamp: "t",
      managedFields: [{}],
      ownerReferences: [{ kind: "X" }],
      labels: { a: "b" },
    },
    spec: { clusterIP: "10.0.0.7", clusterIPs: ["10.0.0.7"], ports: [{ port: 80 }] },
    status: { loadBalancer: {} },
  };
  expect(replicaObject(kind("v1", "Service"), svc)).toEqual({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "api", namespace: "nvcf", labels: { a: "b" } },
    spec: { ports: [{ port: 80 }] },
  });
  expect(svc.metadata.uid).toBe("u"); // the input is not changed
  const headless = { metadata: { name: "h" }, spec: { clusterIP: "None" } };
  expect(replicaObject(kind("v1", "Service"), headless)).toEqual(headless);
  const job = {
    metadata: { name: "j", labels: { "controller-uid": "u", keep: "1" } },
    spec: {
      selector: { matchLabels: { "controller-uid": "u" } },
      template: { metadata: { labels: { "controller-uid": "u", "job-name": "j", app: "x" } } },
    },
  };
  expect(replicaObject(kind("batch/v1", "Job"), job)).toEqual({
    metadata: { name: "j", labels: { keep: "1" } },
    spec: { template: { metadata: { labels: { app: "x" } } } },
  });
  expect(
    replicaObject(kind("v1", "Node", false), {
      metadata: { name: "n" },
      spec: { providerID: "aws://x", taints: [] },
    }),
  ).toEqual({
    metadata: { name: "n", annotations: { "kwok.x-k8s.io/node": "fake" } },
    spec: { taints: [] },
  });
  expect(
    replicaObject(kind("v1", "PersistentVolume", false), {
      metadata: { name: "pv" },
      spec: { claimRef: { name: "c", namespace: "n", uid: "u", resourceVersion: "1" } },
    }),
  ).toEqual({
    metadata: { name: "pv" },
    spec: { claimRef: { name: "c", namespace: "n" }, persistentVolumeReclaimPolicy: "Retain" },
  });
  expect(
    replicaObject(kind("v1", "PersistentVolumeClaim"), {
      metadata: {
        name: "c",
        annotations: {
          "pv.kubernetes.io/bind-completed": "yes",
          "pv.kubernetes.io/bound-by-controller": "yes",
          a: "b",
        },
      },
      spec: { volumeName: "pv" },
    }),
  ).toEqual({ metadata: { name: "c", annotations: { a: "b" } }, spec: { volumeName: "pv" } });
});

test("statuses written after the object: custom resources of the copied CRDs, and node capacity", () => {
  const gw = kind("gateway.networking.k8s.io/v1", "Gateway", true, true);
  const status = { addresses: [{ value: "127.0.0.1" }] };
  expect(replicaStatus(gw, { status }, new Set(["gateway.networking.k8s.io"]))).toEqual(status);
  expect(replicaStatus(gw, { status }, new Set())).toBeUndefined();
  // Built-in kinds get their status from the replica's own controllers; CRDs from its API server.
  expect(
    replicaStatus(kind("apps/v1", "Deployment", true, true), { status: { readyReplicas: 1 } }, new Set()),
  ).toBeUndefined();
  expect(
    replicaStatus(
      kind("apiextensions.k8s.io/v1", "CustomResourceDefinition", false, true),
      { status: {} },
      new Set(),
    ),
  ).toBeUndefined();
  expect(
    replicaStatus(
      kind("v1", "Node", false, true),
      { status: { capacity: { cpu: "8" }, allocatable: { cpu: "7" }, conditions: [] } },
      new Set(),
    ),
  ).toEqual({ capacity: { cpu: "8" }, allocatable: { cpu: "7" } });
});

test("creation order: CRDs, namespaces, cluster-scoped, volumes, then what workloads use, then the rest", () => {
  const order = [
    kind("apps/v1", "Deployment"),
    kind("v1", "Secret"),
    kind("v1", "PersistentVolume", false),
    kind("rbac.authorization.k8s.io/v1", "ClusterRole", false),
    kind("v1", "Namespace", false),
    kind("apiextensions.k8s.io/v1", "CustomResourceDefinition", false),
  ]
    .sort((a, b) => seedOrder(a) - seedOrder(b))
    .map((k) => k.kind);
  expect(order).toEqual([
    "CustomResourceDefinition",
    "Namespace",
    "ClusterRole",
    "PersistentVolume",
    "Secret",
    "Deployment",
  ]);
});

test("a replica has caught up when each workload is as ready as in the source", () => {
  const snap: SourceSnapshot = {
    objects: [
      {
        kind: kind("apps/v1", "StatefulSet"),
        object: { metadata: { name: "cassandra", namespace: "c" }, status: { readyReplicas: 3 } },
      },
      {
        kind: kind("apps/v1", "DaemonSet"),
        object: { metadata: { name: "tuner", namespace: "k" }, status: { numberReady: 2 } },
      },
      {
        kind: kind("apps/v1", "Deployment"),
        object: { metadata: { name: "down", namespace: "n" }, status: {} },
      },
    ],
    webhooks: [],
    unreadable: [],
  };
  expect(
    unreadyWorkloads(snap, [
      { kind: "StatefulSet", metadata: { name: "cassandra", namespace: "c" }, status: { readyReplicas: 1 } },
    ]),
  ).toEqual(["DaemonSet k/tuner: 0/2 ready", "StatefulSet c/cassandra: 1/3 ready"]);
  expect(
    unreadyWorkloads(snap, [
      { kind: "StatefulSet", metadata: { name: "cassandra", namespace: "c" }, status: { readyReplicas: 3 } },
      { kind: "DaemonSet", metadata: { name: "tuner", namespace: "k" }, status: { numberReady: 2 } },
    ]),
  ).toEqual([]);
});
