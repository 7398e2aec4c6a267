/**
 * End to end: the preview's server-side dry run of one release (kube/dryRun.ts `dryRunRelease`) against the real
 * API server of the local cluster nvcf-dev (scripts/cluster.sh up), on a release of its own in a namespace of its
 * own: what Helm's upgrade does that a naive dry run gets wrong, and that nothing is written. The program and the
 * Pulumi CLI are not involved (tests/e2e/stacks.test.ts runs the dry run through `pulumi preview`).
 *
 * The release `demo` is deployed as revision 1 (its objects applied with Helm's ownership metadata, its record
 * given to the dry run) and moves to a chart that:
 * - installs a CRD and an object of it (the kind is not served yet: listed as not checked, not refused);
 * - renders an object with a generated name (a create);
 * - no longer renders two ConfigMaps, one of them annotated `helm.sh/resource-policy: keep` (a delete, and none);
 * - grows the StatefulSet's volume claim template, which an earlier step of the same update deletes first (a
 *   create under a generated name; without that step, the immutable field is refused);
 * - runs two post-upgrade hooks that exist from the last run: one with Helm's default delete policy
 *   (`before-hook-creation`: created anew), one without it (refused: Helm's create would conflict);
 * - puts an object in a namespace the same update creates (not checked).
 * Then an install of the same release over what is left (Helm adopts the objects that carry its ownership
 * metadata and refuses one that does not), and a check that the cluster is as before.
 */
import { spawnSync } from "node:child_process";
import * as yaml from "js-yaml";
import { ApiServer } from "../../kube/apiServer";
import { type DryRunFinding, type ObjectRef, dryRunRelease, kindsDefined } from "../../kube/dryRun";
import type { Obj } from "../../kube/helmPatch";
import { LOCAL_KUBECONFIG } from "./project";

const CTX = "kwok-nvcf-dev";
const NS = "nvcf-dryrun-e2e";
const RELEASE = "demo";
const env = { ...process.env, KUBECONFIG: LOCAL_KUBECONFIG };

function kubectl(args: string[], input?: string, allowFail = false): string {
  const r = spawnSync("kubectl", ["--context", CTX, ...args], { env, encoding: "utf8", input });
  if (r.status !== 0 && !allowFail) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** Helm's ownership metadata of release demo, on an object of revision 1. */
const owned = (o: Obj): Obj => {
  const meta = (o["metadata"] ?? {}) as Obj;
  return {
    ...o,
    metadata: {
      ...meta,
      labels: { ...((meta["labels"] as Obj) ?? {}), "app.kubernetes.io/managed-by": "Helm" },
      annotations: {
        ...((meta["annotations"] as Obj) ?? {}),
        "meta.helm.sh/release-name": RELEASE,
        "meta.helm.sh/release-namespace": NS,
      },
    },
  };
};

const configMap = (name: string, annotations: Record<string, string> = {}): Obj => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: NS, annotations },
  data: { a: "1" },
});

const statefulSet = (storage: string): Obj => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "db", namespace: NS },
  spec: {
    serviceName: "db",
    replicas: 1,
    selector: { matchLabels: { app: "db" } },
    template: {
      metadata: { labels: { app: "db" } },
      spec: { containers: [{ name: "db", image: "registry.invalid/db:1" }] },
    },
    volumeClaimTemplates: [
      {
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } },
      },
    ],
  },
});

const hookJob = (name: string, deletePolicy?: string): Obj => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: {
    name,
    namespace: NS,
    annotations: {
      "helm.sh/hook": "post-install,post-upgrade",
      ...(deletePolicy ? { "helm.sh/hook-delete-policy": deletePolicy } : {}),
    },
  },
  spec: {
    template: {
      spec: { restartPolicy: "Never", containers: [{ name: "job", image: "registry.invalid/job:1" }] },
    },
  },
});

const CRD: Obj = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.dryrun.nvcf.test" },
  spec: {
    group: "dryrun.nvcf.test",
    scope: "Namespaced",
    names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

/** Revision 1: what the cluster holds and what the release record's manifest says. */
const REVISION_1 = [
  configMap("old-config"),
  configMap("kept-config", { "helm.sh/resource-policy": "keep" }),
  statefulSet("1Gi"),
];

/** The new chart's objects (manifest and hooks), in Helm's order. */
const REVISION_2: Obj[] = [
  CRD,
  {
    apiVersion: "dryrun.nvcf.test/v1",
    kind: "Widget",
    metadata: { name: "w", namespace: NS },
    spec: { size: 1 },
  },
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { generateName: "generated-", namespace: NS },
    data: { b: "2" },
  },
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "elsewhere", namespace: "nvcf-dryrun-new" },
    data: {},
  },
  statefulSet("2Gi"),
  hookJob("migrate"),
  hookJob("seed", "hook-succeeded"),
];

const STATEFULSET: ObjectRef = { group: "apps", kind: "StatefulSet", namespace: NS, name: "db" };

let api: ApiServer;

beforeAll(async () => {
  kubectl(["delete", "namespace", NS, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  kubectl(["create", "namespace", NS]);
  const live = [...REVISION_1.map(owned), hookJob("migrate"), hookJob("seed", "hook-succeeded")];
  // And one object no release owns.
  live.push(configMap("foreign"));
  kubectl(["apply", "-f", "-"], live.map((o) => yaml.dump(o)).join("---\n"));
  api = await ApiServer.open({ context: CTX, kubeconfig: LOCAL_KUBECONFIG });
}, 180_000);

afterAll(() => {
  api?.close();
  kubectl(["delete", "namespace", NS, "--ignore-not-found", "--wait=false"], undefined, true);
});

/** The dry run of demo's upgrade to REVISION_2 (fresh copies: the dry run fills in namespaces). */
function dryRun(deletedFirst: ObjectRef[]): Promise<DryRunFinding[]> {
  const objects = REVISION_2.map((o) => JSON.parse(JSON.stringify(o)) as Obj);
  const providedKinds = new Map(objects.flatMap((o) => kindsDefined(o).map((k) => [k, RELEASE] as const)));
  return dryRunRelease(
    {
      api,
      providedKinds,
      createdNamespaces: new Set(["nvcf-dryrun-new"]),
      fieldManager: "pulumi-resource-kubernetes",
    },
    {
      release: RELEASE,
      namespace: NS,
      objects,
      deployed: {
        name: RELEASE,
        namespace: NS,
        version: 1,
        info: { status: "deployed" },
        manifest: REVISION_1.map((o) => yaml.dump(o)).join("---\n"),
      },
      deletedFirst,
    },
  );
}

const lines = (fs: DryRunFinding[]) =>
  fs.map((f) => `${f.level} ${f.action} ${f.object}: ${f.cause}${f.rule ? ` (${f.rule})` : ""}`);

test("the upgrade as Helm makes it: no false alarm; only the hook Helm cannot create again is refused", async () => {
  expect(lines(await dryRun([STATEFULSET]))).toEqual([
    "refusal hook Job nvcf-dryrun-e2e/seed: it exists from an earlier run and its delete policy (hook-succeeded) does not remove it before Helm creates it again (hook exists)",
    "note check 1 object: not checked: kind dryrun.nvcf.test/v1 Widget (its CRD comes with release demo in this update)",
    "note check 1 object: not checked: namespace nvcf-dryrun-new (this update creates it)",
    "note summary : 3 creates, 1 delete, 1 hook, 1 record accepted",
  ]);
});

test("without the step that deletes the StatefulSet first, its grown volume claim template is refused as immutable", async () => {
  const found = (await dryRun([])).filter((f) => f.level === "refusal");
  expect(lines(found)).toEqual([
    'refusal update StatefulSet nvcf-dryrun-e2e/db: spec.volumeClaimTemplates cannot change in place: spec.volumeClaimTemplates[0].spec.resources.requests.storage ("1Gi" → "2Gi") (API server: updates to a StatefulSet may change only replicas, template, updateStrategy and a few more) (immutable field)',
    "refusal hook Job nvcf-dryrun-e2e/seed: it exists from an earlier run and its delete policy (hook-succeeded) does not remove it before Helm creates it again (hook exists)",
  ]);
});

test("an install over objects a lost install left: Helm's adoption of its own objects passes, another's object is refused", async () => {
  // No record: Helm installs, and adopts each existing object that carries this release's ownership metadata by
  // patching it from the rendered object itself.
  const objects = [
    { ...configMap("old-config"), data: { a: "2" } },
    statefulSet("1Gi"),
    configMap("foreign"),
  ];
  const found = await dryRunRelease(
    {
      api,
      providedKinds: new Map(),
      createdNamespaces: new Set(),
      fieldManager: "pulumi-resource-kubernetes",
    },
    { release: RELEASE, namespace: NS, objects },
  );
  expect(lines(found)).toEqual([
    "refusal create ConfigMap nvcf-dryrun-e2e/foreign: it already exists and is not part of release demo (annotation meta.helm.sh/release-name is missing): Helm refuses to adopt it (ownership)",
    // The StatefulSet's patch carries its claim templates as rendered (the live ones hold the server's defaults);
    // the API server accepts it, as it accepts Helm's.
    "note summary : 2 updates, 1 record accepted",
  ]);
});

test("nothing was written: the CRD, the generated ConfigMap, the record and new hook Jobs do not exist; the deleted ones stay", () => {
  expect(kubectl(["get", "crd", "widgets.dryrun.nvcf.test", "--ignore-not-found", "-o", "name"])).toBe("");
  expect(kubectl(["get", "configmaps", "-n", NS, "-o", "name"]).split("\n").filter(Boolean).sort()).toEqual([
    "configmap/foreign",
    "configmap/kept-config",
    "configmap/kube-root-ca.crt",
    "configmap/old-config",
  ]);
  expect(kubectl(["get", "jobs", "-n", NS, "-o", "name"]).split("\n").filter(Boolean).sort()).toEqual([
    "job.batch/migrate",
    "job.batch/seed",
  ]);
  expect(kubectl(["get", "secrets", "-n", NS, "-l", "owner=helm", "-o", "name"])).toBe("");
  expect(
    kubectl([
      "get",
      "statefulset",
      "db",
      "-n",
      NS,
      "-o",
      "jsonpath={.spec.volumeClaimTemplates[0].spec.resources.requests.storage}",
    ]),
  ).toBe("1Gi");
});
