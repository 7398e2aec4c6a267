import {
  type PatchMetaLookup,
  helmPatch,
  isEmptyPatch,
  jsonMergePatch,
  strategicMergePatch,
  usesStrategicMerge,
} from "../../../kube/helmPatch";

/**
 * The patch metadata of the fields these cases touch, as the API server's OpenAPI v3 document gives them
 * (k8s.io/api: PodSpec.containers and .volumes merge by name, Container.env by name, .ports by containerPort,
 * ObjectMeta.finalizers merge as a set; volumeClaimTemplates has none: replaced whole).
 */
const META: Record<string, { strategies: string[]; mergeKey?: string }> = {
  "spec.template.spec.containers": { strategies: ["merge"], mergeKey: "name" },
  "spec.template.spec.containers.[].env": { strategies: ["merge"], mergeKey: "name" },
  "spec.template.spec.containers.[].ports": { strategies: ["merge"], mergeKey: "containerPort" },
  "spec.template.spec.volumes": { strategies: ["merge", "retainKeys"], mergeKey: "name" },
  "metadata.finalizers": { strategies: ["merge"] },
};
const meta: PatchMetaLookup = (p) => META[p.join(".")];

const deployment = (
  image: string,
  env: { name: string; value: string }[],
  labels: Record<string, string> = {},
) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "api", namespace: "nvcf", labels: { app: "api", ...labels } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "api" } },
    template: {
      metadata: { labels: { app: "api" } },
      spec: { containers: [{ name: "api", image, env, ports: [{ containerPort: 8080 }] }] },
    },
  },
});

/** The live object: what was applied, plus fields the API server defaults and a container another party injected. */
const live = (applied: ReturnType<typeof deployment>) => {
  const o = JSON.parse(JSON.stringify(applied));
  o.metadata.uid = "1234";
  o.metadata.resourceVersion = "99";
  o.spec.progressDeadlineSeconds = 600;
  o.spec.template.spec.containers[0].imagePullPolicy = "IfNotPresent";
  o.spec.template.spec.containers[0].ports[0].protocol = "TCP";
  o.spec.template.spec.containers.push({ name: "sidecar", image: "mesh:1" });
  o.status = { readyReplicas: 1 };
  return o;
};

describe("usesStrategicMerge: Helm's typed kinds take a strategic merge patch, the rest a JSON merge patch", () => {
  test.each([
    ["v1", true],
    ["apps/v1", true],
    ["batch/v1", true],
    ["networking.k8s.io/v1", true],
    ["apiextensions.k8s.io/v1", true],
    ["apiextensions.k8s.io/v1beta1", false],
    ["monitoring.coreos.com/v1", false],
    ["gateway.networking.k8s.io/v1", false],
    ["resource.k8s.io/v1", false],
  ])("%s → %s", (apiVersion, expected) => {
    expect(usesStrategicMerge(apiVersion)).toBe(expected);
  });
});

describe("jsonMergePatch (RFC 7386, Helm's patch of custom resources)", () => {
  test("equal objects give an empty patch", () => {
    const o = { spec: { a: 1, list: [1, 2] }, metadata: { name: "x" } };
    expect(jsonMergePatch(o, JSON.parse(JSON.stringify(o)))).toEqual({});
  });
  test("changed and added keys carry their value, removed keys null, lists whole", () => {
    expect(
      jsonMergePatch(
        { spec: { keep: 1, change: "a", drop: true, list: [1, 2], nested: { x: 1, y: 2 } } },
        { spec: { keep: 1, change: "b", add: 3, list: [1], nested: { x: 1 } } },
      ),
    ).toEqual({ spec: { change: "b", drop: null, add: 3, list: [1], nested: { y: null } } });
  });
});

describe("strategicMergePatch (three-way, as Helm computes it for typed kinds)", () => {
  const before = deployment("api:1", [
    { name: "A", value: "1" },
    { name: "B", value: "2" },
  ]);

  test("an unchanged object: fields only the server or another party set do not count, the patch is empty", () => {
    const p = strategicMergePatch(before, JSON.parse(JSON.stringify(before)), live(before), meta);
    expect(isEmptyPatch(p)).toBe(true);
  });

  test("a changed image: only that container's field, with its merge key", () => {
    const after = deployment("api:2", before.spec.template.spec.containers[0].env);
    expect(strategicMergePatch(before, after, live(before), meta)).toEqual({
      spec: { template: { spec: { containers: [{ name: "api", image: "api:2" }] } } },
    });
  });

  test("a removed env entry becomes a $patch: delete item; a removed label becomes null", () => {
    const original = deployment("api:1", before.spec.template.spec.containers[0].env, { tier: "web" });
    const after = deployment("api:1", [{ name: "A", value: "1" }]);
    expect(strategicMergePatch(original, after, live(original), meta)).toEqual({
      metadata: { labels: { tier: null } },
      spec: { template: { spec: { containers: [{ name: "api", env: [{ name: "B", $patch: "delete" }] }] } } },
    });
  });

  test("a live value changed by hand is set back to the manifest's (overwrite)", () => {
    const drifted = live(before);
    drifted.spec.replicas = 5;
    expect(strategicMergePatch(before, before, drifted, meta)).toEqual({ spec: { replicas: 1 } });
  });

  test("a list without patch metadata is replaced whole when it differs from the live one (server defaults included)", () => {
    const sts = (size: string) => ({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "cassandra" },
      spec: {
        volumeClaimTemplates: [
          { metadata: { name: "data" }, spec: { resources: { requests: { storage: size } } } },
        ],
      },
    });
    const current = JSON.parse(JSON.stringify(sts("1Gi")));
    current.spec.volumeClaimTemplates[0].spec.volumeMode = "Filesystem";
    expect(strategicMergePatch(sts("1Gi"), sts("2Gi"), current, meta)).toEqual({
      spec: { volumeClaimTemplates: sts("2Gi").spec.volumeClaimTemplates },
    });
  });

  test("a list of scalars merged as a set: removed items under $deleteFromPrimitiveList", () => {
    const o = (f: string[]) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", finalizers: f },
    });
    expect(strategicMergePatch(o(["a", "b"]), o(["a"]), o(["a", "b"]), meta)).toEqual({
      metadata: { "$deleteFromPrimitiveList/finalizers": ["b"] },
    });
  });
});

describe("helmPatch picks the patch type by kind", () => {
  test("a Deployment: strategic merge patch", () => {
    const before = deployment("api:1", []);
    const r = helmPatch(before, deployment("api:2", []), live(before), meta);
    expect(r.contentType).toBe("application/strategic-merge-patch+json");
  });
  test("a custom resource: JSON merge patch from the old manifest to the new, whatever the live object holds", () => {
    const cr = (replicas: number) => ({
      apiVersion: "opentelemetry.io/v1beta1",
      kind: "OpenTelemetryCollector",
      metadata: { name: "c" },
      spec: { replicas },
    });
    const current = { ...cr(1), status: { x: 1 }, spec: { replicas: 1, defaulted: true } };
    expect(helmPatch(cr(1), cr(2), current, meta)).toEqual({
      contentType: "application/merge-patch+json",
      patch: { spec: { replicas: 2 } },
    });
  });
});
