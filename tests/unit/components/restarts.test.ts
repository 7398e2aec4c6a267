/**
 * The restart generation's script (components/scripts/restart.sh, run as components/restarts.ts joins it)
 * against the fake cluster (tests/unit/support/fakeCluster.ts): only the release's own workloads are patched, a
 * generation already on a template patches nothing, OpenBao's OnDelete server is left to the rollout that follows
 * (standbys first), another OnDelete StatefulSet's pods are deleted highest ordinal first, and a release without
 * workloads is refused naming the key. Then the stacks rendered under Pulumi mocks: a generation adds one command
 * after its release and changes nothing else.
 */
import { RESTART, RESTART_ANNOTATION } from "../../../components/restarts";
import { OPENBAO_ROLLOUT, stepScript } from "../../../components/upgradeSteps";
import * as path from "node:path";
import { type FakeState, runFake } from "../support/fakeCluster";
import { type RenderResult, mockGateway, render } from "../support/harness";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** A workload of a Helm release, with its pod template's restart generation when given. */
function workload(
  kind: string,
  name: string,
  ns: string,
  release: string,
  extra: any = {},
  generation?: string,
): any {
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: { name, namespace: ns, generation: 1, annotations: { "meta.helm.sh/release-name": release } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: generation === undefined ? {} : { annotations: { [RESTART_ANNOTATION]: generation } },
      },
      ...extra,
    },
    status: { observedGeneration: 1 },
  };
}

function state(...objects: any[]): FakeState {
  return {
    objects: Object.fromEntries(
      objects.map((o) => [`${o.metadata.namespace}/${o.kind}/${o.metadata.name}`, o]),
    ),
  };
}

const env = (release: string, ns: string, generation = "2") => ({
  NVCFP_NAMESPACE: ns,
  NVCFP_RELEASE: release,
  NVCFP_GENERATION: generation,
  NVCFP_ANNOTATION: RESTART_ANNOTATION,
  NVCFP_ONDELETE_BY: "",
  NVCFP_WAIT_SECONDS: "8",
  NVCFP_POLL_SECONDS: "0",
});
const verbs = (calls: string[][], verb: string) =>
  calls.filter((c) => c.includes(verb)).map((c) => c.slice(c.indexOf(verb) + 1).join(" "));
const out = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => l.replace(/^\S+Z /, ""));

describe("restart.sh", () => {
  test("patches and waits for every workload of the release, and nothing of another release", () => {
    const s = state(
      workload("Deployment", "api", "nvcf", "api", {}, "1"),
      workload("DaemonSet", "api-node", "nvcf", "api"),
      workload("Deployment", "sis", "nvcf", "sis"),
    );
    const r = runFake(stepScript(RESTART), s, env("api", "nvcf"));
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(verbs(r.calls, "patch")).toEqual([
      `deployment/api --type merge -p {"spec":{"template":{"metadata":{"annotations":{"${RESTART_ANNOTATION}":"2"}}}}}`,
      `daemonset/api-node --type merge -p {"spec":{"template":{"metadata":{"annotations":{"${RESTART_ANNOTATION}":"2"}}}}}`,
    ]);
    expect(verbs(r.calls, "rollout")).toEqual([
      "status deployment/api --timeout=8s",
      "status daemonset/api-node --timeout=8s",
    ]);
    expect(out(r.stdout)).toEqual([
      "restarting deployment nvcf/api: restart generation 1 -> 2",
      "restarting daemonset nvcf/api-node: restart generation none -> 2",
      "deployment nvcf/api: rolled out at restart generation 2",
      "daemonset nvcf/api-node: rolled out at restart generation 2",
    ]);
    expect(r.state.objects["nvcf/Deployment/sis"].spec.template.metadata).toEqual({});
  });

  test("run again (after an interruption, or the same generation): nothing patched, the rollouts waited for", () => {
    const s = state(workload("Deployment", "api", "nvcf", "api", {}, "2"));
    const r = runFake(stepScript(RESTART), s, env("api", "nvcf"));
    expect(r.code).toBe(0);
    expect(verbs(r.calls, "patch")).toEqual([]);
    expect(out(r.stdout)).toEqual([
      "deployment nvcf/api: pod template already at restart generation 2",
      "deployment nvcf/api: rolled out at restart generation 2",
    ]);
  });

  test("a release without a Deployment, StatefulSet or DaemonSet: refused, naming the key to remove", () => {
    const r = runFake(
      stepScript(RESTART),
      state(workload("Deployment", "sis", "nvcf", "sis")),
      env("api", "nvcf"),
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'release nvcf/api has no Deployment, StatefulSet or DaemonSet to restart; remove nvcf:restarts.api (docs/operations.md "Restart generations")',
    );
  });

  test("an OnDelete StatefulSet of another release: its pods deleted one at a time, highest ordinal first", () => {
    const set = workload("StatefulSet", "store", "data", "store", {
      replicas: 3,
      updateStrategy: { type: "OnDelete" },
    });
    set.status.updateRevision = "r1";
    const pods = [0, 1, 2].map((i) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `store-${i}`,
        namespace: "data",
        labels: { app: "store", "controller-revision-hash": "r1" },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "store" }],
      },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    }));
    const r = runFake(stepScript(RESTART), state(set, ...pods), env("store", "data"));
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(verbs(r.calls, "delete").map((c) => c.split(" --")[0])).toEqual([
      "pod store-2",
      "pod store-1",
      "pod store-0",
    ]);
    for (let i = 0; i < 3; i++)
      expect(r.state.objects[`data/Pod/store-${i}`].metadata.labels["controller-revision-hash"]).toBe("r2");
  });

  test("OpenBao's server: the template patched, then its pods rotated by the rollout script, standbys first", () => {
    const set = workload("StatefulSet", "openbao-server", "vault-system", "openbao-server", {
      replicas: 3,
      updateStrategy: { type: "OnDelete" },
    });
    set.spec.selector.matchLabels = { "app.kubernetes.io/name": "openbao", component: "server" };
    set.status.updateRevision = "r1";
    const pods = [0, 1, 2].map((i) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `openbao-server-${i}`,
        namespace: "vault-system",
        labels: {
          "app.kubernetes.io/name": "openbao",
          component: "server",
          "controller-revision-hash": "r1",
          "openbao-active": String(i === 0),
          "openbao-sealed": "false",
          "openbao-initialized": "true",
        },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "openbao-server" }],
      },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    }));
    const s = { ...state(set, ...pods), openbao: { comeBackAfter: 2 } };
    const r = runFake(stepScript(`${RESTART}\n${OPENBAO_ROLLOUT}`), s, {
      ...env("openbao-server", "vault-system"),
      NVCFP_ONDELETE_BY: "openbao-server",
      NVCFP_STATEFULSET: "openbao-server",
      NVCFP_REVISION: "restart generation 2",
    });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(out(r.stdout)).toEqual([
      "restarting statefulset vault-system/openbao-server: restart generation none -> 2",
      "statefulset vault-system/openbao-server (update strategy OnDelete): its pods are rotated next, standbys first",
      "rotating pod vault-system/openbao-server-1 (standby) onto revision r2",
      "pod vault-system/openbao-server-1 is back: ready, initialized, unsealed",
      "rotating pod vault-system/openbao-server-2 (standby) onto revision r2",
      "pod vault-system/openbao-server-2 is back: ready, initialized, unsealed",
      "rotating pod vault-system/openbao-server-0 (active) onto revision r2",
      "pod vault-system/openbao-server-0 is back: ready, initialized, unsealed",
      "every OpenBao server pod of statefulset/openbao-server runs revision r2 (Helm revision restart generation 2; 3 rotated in this run)",
    ]);
  });
});

describe("rendered stacks", () => {
  process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");
  const gateways = { "envoy-gateway/nvcf-gateway": mockGateway() };
  const renders: Record<string, RenderResult> = {};
  beforeAll(async () => {
    renders["dev"] = await render({ stack: "dev", gateways });
    renders["restarts"] = await render({
      stack: "dev",
      gateways,
      overrides: { restarts: JSON.stringify({ api: 2, "openbao-server": 1 }) },
    });
    const controlPlaneOutputs = renders["dev"].outputs;
    renders["gpu"] = await render({
      stack: "dev-gpu-a",
      controlPlaneOutputs,
      overrides: { restarts: JSON.stringify({ "nvca-operator": 1 }) },
    });
  }, 120_000);
  const byName = (r: RenderResult) => new Map(r.resources.map((x) => [x.name, x]));

  test("a generation adds the release's restart command, after the release; every other resource is as before", () => {
    const before = byName(renders["dev"]);
    const after = byName(renders["restarts"]);
    expect(renders["restarts"].error).toBeUndefined();
    expect([...after.keys()].filter((n) => !before.has(n)).sort()).toEqual([
      "nvcf-restart-api",
      "nvcf-restart-openbao-server",
    ]);
    for (const [n, x] of before)
      expect([n, JSON.stringify(after.get(n)?.inputs)]).toEqual([n, JSON.stringify(x.inputs)]);
    const api = after.get("nvcf-restart-api")!;
    const env = api.inputs["environment"] as Record<string, string>;
    expect([
      env["NVCFP_RELEASE"],
      env["NVCFP_NAMESPACE"],
      env["NVCFP_GENERATION"],
      env["NVCFP_ONDELETE_BY"],
    ]).toEqual(["api", "nvcf", "2", ""]);
    expect(api.dependsOn).toContain("nvcf-api");
    const bao = after.get("nvcf-restart-openbao-server")!;
    const baoEnv = bao.inputs["environment"] as Record<string, string>;
    expect([baoEnv["NVCFP_ONDELETE_BY"], baoEnv["NVCFP_STATEFULSET"]]).toEqual([
      "openbao-server",
      "openbao-server",
    ]);
    // After OpenBao's own rollout step, which rolls the same pods after an upgrade.
    expect(bao.dependsOn).toEqual(expect.arrayContaining(["nvcf-openbao-server", "nvcf-openbao-rollout"]));
  });

  test("on a GPU cluster: the operator's restart, with the cluster's own access", () => {
    const gpu = byName(renders["gpu"]);
    expect(renders["gpu"].error).toBeUndefined();
    const op = gpu.get("nvcf-restart-nvca-operator")!;
    const env = op.inputs["environment"] as Record<string, string>;
    expect([env["NVCFP_RELEASE"], env["NVCFP_NAMESPACE"], env["NVCFP_KUBE_CONTEXT"]]).toEqual([
      "nvca-operator",
      "nvca-operator",
      "kwok-nvcf-gpu-a",
    ]);
    expect(op.dependsOn).toContain("nvcf-nvca-operator");
  });
});
