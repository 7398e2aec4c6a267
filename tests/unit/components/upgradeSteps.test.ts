/**
 * The upgrade steps' scripts (components/scripts/, run as components/upgradeSteps.ts joins them) against a
 * fake cluster (tests/unit/support/fakeCluster.ts): OpenBao's OnDelete rollout (standbys first, one at a time, stops on a
 * pod that does not come back unsealed) and Cassandra's in-place adoption (checks, record, writers, backup,
 * orphan delete; verification and restore), each from a clean start and resumed from the points an interrupted
 * run leaves. The Cassandra password is a sentinel that must appear on no command line and in no output.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  ADOPTION_RECORD,
  BITNAMI_CLAIM_LABEL,
  CASSANDRA_PREPARE,
  CASSANDRA_VERIFY,
  OPENBAO_ROLLOUT,
  stepScript,
} from "../../../components/upgradeSteps";
import { REPLICAS_ANNOTATION } from "../../../upgrade/plan";
import { type FakeState, runFake } from "../support/fakeCluster";

/* eslint-disable @typescript-eslint/no-explicit-any */
const PASSWORD = "SENTINEL-cql-password-7f3a9c";

// ---------------------------------------------------------------------------------------------------------------
// OpenBao

const BAO = "vault-system";
function baoPod(i: number, rev: string, active: boolean, sealed = false): any {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `openbao-server-${i}`,
      namespace: BAO,
      labels: {
        "app.kubernetes.io/name": "openbao",
        component: "server",
        "controller-revision-hash": rev,
        "openbao-active": String(active),
        "openbao-sealed": String(sealed),
        "openbao-initialized": "true",
      },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "openbao-server" }],
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}
function baoState(revs: string[], opts: { sealed?: number; comesBackSealed?: boolean } = {}): FakeState {
  const objects: Record<string, any> = {
    [`${BAO}/StatefulSet/openbao-server`]: {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "openbao-server", namespace: BAO, generation: 2 },
      spec: {
        replicas: revs.length,
        updateStrategy: { type: "OnDelete" },
        selector: { matchLabels: { "app.kubernetes.io/name": "openbao", component: "server" } },
      },
      status: { observedGeneration: 2, updateRevision: "r2" },
    },
  };
  revs.forEach(
    (rev, i) => (objects[`${BAO}/Pod/openbao-server-${i}`] = baoPod(i, rev, i === 0, opts.sealed === i)),
  );
  // A hook Job's pod the set's selector also matches (the chart's hooks carry its name and instance labels).
  objects[`${BAO}/Pod/openbao-server-migrations-x7k2p`] = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "openbao-server-migrations-x7k2p",
      namespace: BAO,
      labels: { "app.kubernetes.io/name": "openbao", component: "server" },
    },
    status: { phase: "Succeeded", conditions: [{ type: "Ready", status: "False" }] },
  };
  return { objects, openbao: { comeBackAfter: 2, comesBackSealed: opts.comesBackSealed } };
}
const baoEnv = {
  NVCFP_NAMESPACE: BAO,
  NVCFP_STATEFULSET: "openbao-server",
  NVCFP_REVISION: "2",
  NVCFP_WAIT_SECONDS: "8",
};
const deletes = (calls: string[][]) =>
  calls
    .filter((c) => c.includes("delete"))
    .map((c) => c.slice(c.indexOf("delete") + 1, c.indexOf("delete") + 3).join(" "));

describe("OpenBao's rollout", () => {
  test("standbys first, the active pod last, each back ready and unsealed before the next", () => {
    const r = runFake(stepScript(OPENBAO_ROLLOUT), baoState(["r1", "r1", "r1"]), baoEnv);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(deletes(r.calls)).toEqual([
      "pod openbao-server-1",
      "pod openbao-server-2",
      "pod openbao-server-0",
    ]);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines.map((l) => l.replace(/^\S+Z /, ""))).toEqual([
      "rotating pod vault-system/openbao-server-1 (standby) onto revision r2",
      "pod vault-system/openbao-server-1 is back: ready, initialized, unsealed",
      "rotating pod vault-system/openbao-server-2 (standby) onto revision r2",
      "pod vault-system/openbao-server-2 is back: ready, initialized, unsealed",
      "rotating pod vault-system/openbao-server-0 (active) onto revision r2",
      "pod vault-system/openbao-server-0 is back: ready, initialized, unsealed",
      "every OpenBao server pod of statefulset/openbao-server runs revision r2 (Helm revision 2; 3 rotated in this run)",
    ]);
    for (let i = 0; i < 3; i++)
      expect(
        r.state.objects[`${BAO}/Pod/openbao-server-${i}`].metadata.labels["controller-revision-hash"],
      ).toBe("r2");
  });

  test("resumed after one standby was rotated: only the pods still on the old revision", () => {
    const r = runFake(stepScript(OPENBAO_ROLLOUT), baoState(["r1", "r2", "r1"]), baoEnv);
    expect(r.code).toBe(0);
    expect(deletes(r.calls)).toEqual(["pod openbao-server-2", "pod openbao-server-0"]);
  });

  test("nothing on an old revision: nothing deleted", () => {
    const r = runFake(stepScript(OPENBAO_ROLLOUT), baoState(["r2", "r2", "r2"]), baoEnv);
    expect(r.code).toBe(0);
    expect(deletes(r.calls)).toEqual([]);
    expect(r.stdout.trim()).toBe(
      "every OpenBao server pod of statefulset/openbao-server runs revision r2 (Helm revision 2; nothing to rotate)",
    );
  });

  test("a sealed pod before anything starts: nothing is deleted, the pods' states are named", () => {
    const r = runFake(stepScript(OPENBAO_ROLLOUT), baoState(["r1", "r1", "r1"], { sealed: 2 }), {
      ...baoEnv,
      NVCFP_WAIT_SECONDS: "3",
    });
    expect(r.code).toBe(1);
    expect(deletes(r.calls)).toEqual([]);
    expect(r.stderr).toMatch(
      /openbao-server-2: revision r1, active false, sealed true, initialized true, ready True/,
    );
    expect(r.stderr).toMatch(
      /not every OpenBao server pod of statefulset\/openbao-server is ready, initialized and unsealed/,
    );
  });

  test("a rotated pod that stays sealed stops the rollout: no other pod is deleted", () => {
    const r = runFake(stepScript(OPENBAO_ROLLOUT), baoState(["r1", "r1", "r1"], { comesBackSealed: true }), {
      ...baoEnv,
      NVCFP_WAIT_SECONDS: "4",
    });
    expect(r.code).toBe(1);
    expect(deletes(r.calls)).toEqual(["pod openbao-server-1"]);
    expect(r.stderr).toMatch(
      /pod vault-system\/openbao-server-1 did not come back ready, initialized and unsealed on revision r2; no other pod is rotated/,
    );
  });

  test("another update strategy, or no StatefulSet: nothing to do", () => {
    const s = baoState(["r1"]);
    s.objects[`${BAO}/StatefulSet/openbao-server`].spec.updateStrategy.type = "RollingUpdate";
    const r = runFake(stepScript(OPENBAO_ROLLOUT), s, baoEnv);
    expect([r.code, r.stdout.trim()]).toEqual([
      0,
      "statefulset/openbao-server has update strategy RollingUpdate: its controller rolls the pods itself",
    ]);
    const none = runFake(stepScript(OPENBAO_ROLLOUT), { objects: {} }, baoEnv);
    expect([none.code, none.stdout.trim()]).toEqual([
      0,
      "statefulset vault-system/openbao-server not found: no OpenBao pods to roll",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Cassandra

const CAS = "cassandra-system";
const WRITERS: [string, string, number][] = [
  ["api-keys", "api-keys", 1],
  ["ess", "ess-api-helm-nvcf-ess-api-deployment", 2],
  ["nvcf", "nvcf-api", 2],
  ["nvcf", "invocation-service", 1],
  ["sis", "spot-instance-service", 1],
];
function casState(
  shape: "bitnami" | "own" | "none",
  extra: { dirty?: string; whenDeleted?: string } = {},
): FakeState {
  const objects: Record<string, any> = {};
  if (shape !== "none")
    objects[`${CAS}/StatefulSet/cassandra`] = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "cassandra", namespace: CAS, generation: 1, uid: "sts-uid-1" },
      spec: {
        replicas: 3,
        ...(extra.whenDeleted
          ? { persistentVolumeClaimRetentionPolicy: { whenDeleted: extra.whenDeleted } }
          : {}),
        selector: { matchLabels: { "app.kubernetes.io/name": "cassandra" } },
        volumeClaimTemplates: [
          {
            metadata: {
              name: "data",
              ...(shape === "bitnami"
                ? {
                    labels: { [BITNAMI_CLAIM_LABEL]: "cassandra", "app.kubernetes.io/instance": "cassandra" },
                  }
                : {}),
            },
            spec: { accessModes: ["ReadWriteOnce"] },
          },
        ],
      },
      status: { observedGeneration: 1, readyReplicas: 3, updatedReplicas: 3 },
    };
  for (let i = 0; i < 3; i++) {
    objects[`${CAS}/Pod/cassandra-${i}`] = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `cassandra-${i}`,
        namespace: CAS,
        labels: { "app.kubernetes.io/name": "cassandra" },
        ...(shape === "none"
          ? {}
          : { ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "cassandra" }] }),
      },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    };
    objects[`${CAS}/PersistentVolumeClaim/data-cassandra-${i}`] = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: `data-cassandra-${i}`, namespace: CAS, uid: `uid-${i}` },
      spec: { accessModes: ["ReadWriteOnce"] },
      status: { phase: "Bound" },
    };
  }
  for (const [ns, name, n] of WRITERS)
    objects[`${ns}/Deployment/${name}`] = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace: ns },
      spec: {
        replicas: n,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } } },
      },
      status: { replicas: n },
    };
  return {
    objects,
    cassandra: {
      password: PASSWORD,
      nodes: ["UN", "UN", "UN"],
      migrations: {
        nvcf_api: { version: 12, dirty: extra.dirty === "nvcf_api" },
        sis_api: { version: 4, dirty: extra.dirty === "sis_api" },
      },
      tables: { "nvcf_api.accounts": 3, "nvcf_api.functions": 5, "sis_api.clusters": 2 },
    },
  };
}
const casEnv = {
  NVCFP_NAMESPACE: CAS,
  NVCFP_STATEFULSET: "cassandra",
  NVCFP_CONTAINER: "cassandra",
  NVCFP_REPLICAS: "3",
  NVCFP_RECORD: ADOPTION_RECORD,
  NVCFP_BITNAMI_CLAIM_LABEL: BITNAMI_CLAIM_LABEL,
  NVCFP_WRITER_NAMESPACES: "api-keys ess nvcf sis",
  NVCFP_ANNOTATION: REPLICAS_ANNOTATION,
  NVCFP_CQL_USER: "cassandra",
  NVCFP_CQL_PASSWORD: PASSWORD,
  NVCFP_WAIT_SECONDS: "6",
};
const record = (s: FakeState) =>
  s.objects[`${CAS}/ConfigMap/${ADOPTION_RECORD}`]?.data as Record<string, string> | undefined;
/** The adoption record ConfigMap, as an earlier run of the step left it. */
function putRecord(s: FakeState, data: Record<string, string>): void {
  s.objects[`${CAS}/ConfigMap/${ADOPTION_RECORD}`] = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: ADOPTION_RECORD, namespace: CAS },
    data,
  };
}
const deployment = (s: FakeState, ns: string, name: string) => s.objects[`${ns}/Deployment/${name}`];
/** No secret on a command line (kubectl's or cqlsh's) nor in anything printed. */
function noLeak(r: ReturnType<typeof runFake>) {
  expect(JSON.stringify(r.calls)).not.toContain(PASSWORD);
  expect(r.stdout + r.stderr).not.toContain(PASSWORD);
}

describe("Cassandra's adoption: prepare", () => {
  let r: ReturnType<typeof runFake>;
  beforeAll(() => {
    r = runFake(stepScript(CASSANDRA_PREPARE), casState("bitnami"), casEnv);
  });

  test("succeeds, printing each thing it did", () => {
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\S+Z /g, "");
    expect(text).toMatch(
      /adopting Cassandra's data in place: record kept in configmap cassandra-system\/nvcf-cassandra-adoption/,
    );
    expect(text).toMatch(/nodetool status: 3 node\(s\) UN; claims data-cassandra-0\.\.2 Bound/);
    expect(text).toMatch(/schema_migrations: no dirty migration \(nvcf_api sis_api\)/);
    expect(text).toMatch(
      /row counts recorded: nvcf_api\.accounts=3 nvcf_api\.functions=5 sis_api\.clusters=2/,
    );
    expect(text).toMatch(
      /writer deployment nvcf\/nvcf-api: 2 replica\(s\) recorded in annotation nvcf\.nvidia\.com\/replicas-before-upgrade/,
    );
    expect(text).toMatch(
      /statefulset\/cassandra deleted with --cascade=orphan: its pods and the claims data-cassandra-\* stay/,
    );
    expect(text).toMatch(/pod cassandra-0 deleted \(claim data-cassandra-0 kept\)/);
    noLeak(r);
  });

  test("the record: when, the snapshot tag, the nodes snapshotted, the row counts", () => {
    const rec = record(r.state)!;
    expect(rec["snapshot"]).toMatch(/^nvcf-adoption-\d{8}t\d{6}z$/);
    expect(rec["snapshotted"]).toBe("cassandra-0 cassandra-1 cassandra-2");
    expect(rec["counts"]).toBe("nvcf_api.accounts=3 nvcf_api.functions=5 sis_api.clusters=2");
    expect(rec["phase"]).toBe("orphaned");
    expect(rec["source"]).toBe("sts-uid-1");
    expect(r.state.cassandra.snapshots).toEqual({
      "cassandra-0": [rec["snapshot"]],
      "cassandra-1": [rec["snapshot"]],
      "cassandra-2": [rec["snapshot"]],
    });
    expect(r.state.cassandra.flushed).toEqual(["cassandra-0", "cassandra-1", "cassandra-2"]);
  });

  test("the writers at zero, each carrying its replica count", () => {
    for (const [ns, name, n] of WRITERS) {
      const d = deployment(r.state, ns, name);
      expect([name, d.spec.replicas, d.metadata.annotations[REPLICAS_ANNOTATION]]).toEqual([
        name,
        0,
        String(n),
      ]);
    }
  });

  test("the StatefulSet gone with --cascade=orphan, cassandra-0 deleted, the other pods and every claim kept", () => {
    expect(r.state.objects[`${CAS}/StatefulSet/cassandra`]).toBeUndefined();
    expect(r.calls.some((c) => c.includes("statefulset") && c.includes("--cascade=orphan"))).toBe(true);
    expect(r.state.objects[`${CAS}/Pod/cassandra-0`]).toBeUndefined();
    expect(r.state.objects[`${CAS}/Pod/cassandra-1`].metadata.ownerReferences).toBeUndefined();
    for (let i = 0; i < 3; i++)
      expect(r.state.objects[`${CAS}/PersistentVolumeClaim/data-cassandra-${i}`]).toBeDefined();
    // The order NVIDIA's notes give: writers down, then flush and snapshot, then the orphan delete.
    const order = r.calls.map((c) => c.join(" "));
    const at = (re: RegExp) => order.findIndex((l) => re.test(l));
    expect(at(/scale deployment/)).toBeLessThan(at(/nodetool flush/));
    expect(at(/nodetool snapshot/)).toBeLessThan(at(/delete statefulset/));
    expect(at(/delete statefulset/)).toBeLessThan(at(/delete pod cassandra-0/));
  });

  test("run again (resumed after it finished): only confirms, nothing deleted twice, the first counts kept", () => {
    const again = runFake(stepScript(CASSANDRA_PREPARE), r.state, casEnv);
    expect(again.code).toBe(0);
    expect(again.calls.filter((c) => c.includes("delete"))).toEqual([]);
    expect(record(again.state)).toEqual(record(r.state));
    expect(again.stdout).toMatch(/ready for NVIDIA's own chart/);
  });
});

describe("Cassandra's adoption: prepare, resumed and refused", () => {
  test("resumed after the writers were scaled and one node snapshotted: counts, annotations and snapshots kept", () => {
    const s = casState("bitnami");
    for (const [ns, name, n] of WRITERS) {
      const d = s.objects[`${ns}/Deployment/${name}`];
      d.metadata.annotations = { [REPLICAS_ANNOTATION]: String(n) };
      d.spec.replicas = 0;
      d.status = {};
    }
    putRecord(s, {
      started: "x",
      snapshot: "nvcf-adoption-t1",
      counts: "nvcf_api.accounts=3",
      snapshotted: "cassandra-0",
    });
    s.cassandra.snapshots = { "cassandra-0": ["nvcf-adoption-t1"] };
    const r = runFake(stepScript(CASSANDRA_PREPARE), s, casEnv);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /resuming the adoption recorded in configmap cassandra-system\/nvcf-cassandra-adoption \(started x\)/,
    );
    expect(record(r.state)!["counts"]).toBe("nvcf_api.accounts=3");
    expect(r.state.cassandra.snapshots).toEqual({
      "cassandra-0": ["nvcf-adoption-t1"],
      "cassandra-1": ["nvcf-adoption-t1"],
      "cassandra-2": ["nvcf-adoption-t1"],
    });
    for (const [ns, name, n] of WRITERS)
      expect(deployment(r.state, ns, name).metadata.annotations[REPLICAS_ANNOTATION]).toBe(String(n));
    expect(r.stdout).not.toMatch(/recorded in annotation/);
  });

  test("a Bitnami StatefulSet put back by a rollback after the orphan delete: the adoption starts again", () => {
    // As docs/upgrading.md's rollback leaves it: the recorded adoption deleted sts-uid-0; `helm rollback
    // cassandra` made sts-uid-1 over the same claims; the writers were scaled back.
    const s = casState("bitnami");
    putRecord(s, {
      started: "x",
      source: "sts-uid-0",
      snapshot: "nvcf-adoption-t1",
      counts: "nvcf_api.accounts=1",
      snapshotted: "cassandra-0 cassandra-1 cassandra-2",
      phase: "orphaned",
    });
    s.cassandra.snapshots = { "cassandra-0": ["nvcf-adoption-t1"] };
    const r = runFake(stepScript(CASSANDRA_PREPARE), s, casEnv);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /statefulset\/cassandra was put back after the adoption recorded in configmap cassandra-system\/nvcf-cassandra-adoption \(started x\) deleted its predecessor: starting the adoption again \(that adoption's snapshot nvcf-adoption-t1 stays on each node's volume\)/,
    );
    const rec = record(r.state)!;
    expect(rec["source"]).toBe("sts-uid-1");
    expect(rec["snapshot"]).not.toBe("nvcf-adoption-t1");
    // Counted and snapshotted again, on every node; the first adoption's snapshot kept.
    expect(rec["counts"]).toBe("nvcf_api.accounts=3 nvcf_api.functions=5 sis_api.clusters=2");
    expect(rec["snapshotted"]).toBe("cassandra-0 cassandra-1 cassandra-2");
    expect(r.state.cassandra.snapshots!["cassandra-0"]).toEqual(["nvcf-adoption-t1", rec["snapshot"]]);
    expect(r.state.cassandra.snapshots!["cassandra-2"]).toEqual([rec["snapshot"]]);
    expect(r.state.objects[`${CAS}/StatefulSet/cassandra`]).toBeUndefined();
    expect(deletes(r.calls)).toEqual([
      `configmap ${ADOPTION_RECORD}`,
      "statefulset cassandra",
      "pod cassandra-0",
    ]);
  });

  test("the recorded StatefulSet itself (interrupted before its orphan delete): resumed, not started again", () => {
    const s = casState("bitnami");
    putRecord(s, {
      started: "x",
      source: "sts-uid-1",
      snapshot: "nvcf-adoption-t1",
      counts: "c=1",
      phase: "orphaned",
    });
    const r = runFake(stepScript(CASSANDRA_PREPARE), s, casEnv);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/resuming the adoption recorded in configmap/);
    expect(record(r.state)!["counts"]).toBe("c=1");
    expect(record(r.state)!["snapshot"]).toBe("nvcf-adoption-t1");
  });

  test("resumed after the orphan delete: only the old pod is left to delete", () => {
    const s = casState("none");
    putRecord(s, { snapshot: "nvcf-adoption-t1", phase: "orphaned" });
    const r = runFake(stepScript(CASSANDRA_PREPARE), s, casEnv);
    expect(r.code).toBe(0);
    expect(deletes(r.calls)).toEqual(["pod cassandra-0"]);
    expect(r.calls.some((c) => c.includes("exec"))).toBe(false);
  });

  test("against NVIDIA's own shape: nothing to adopt, nothing touched", () => {
    const r = runFake(stepScript(CASSANDRA_PREPARE), casState("own"), casEnv);
    expect([r.code, r.stdout.trim()]).toEqual([
      0,
      "statefulset/cassandra has NVIDIA's own chart's shape: nothing to adopt",
    ]);
    expect(r.calls.filter((c) => !c.includes("get"))).toEqual([]);
  });

  test("a dirty schema migration: refused before the writers or the StatefulSet are touched", () => {
    const r = runFake(stepScript(CASSANDRA_PREPARE), casState("bitnami", { dirty: "sis_api" }), casEnv);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /schema_migrations has a dirty migration for: sis_api - reconcile it before upgrading/,
    );
    expect(r.state.objects[`${CAS}/StatefulSet/cassandra`]).toBeDefined();
    expect(r.calls.some((c) => c.includes("scale") || c.includes("delete"))).toBe(false);
    noLeak(r);
  });

  test("a node not UN: refused after waiting, nothing touched", () => {
    const s = casState("bitnami");
    s.cassandra.nodes = ["UN", "DN", "UN"];
    const r = runFake(stepScript(CASSANDRA_PREPARE), s, { ...casEnv, NVCFP_WAIT_SECONDS: "3" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/timed out after 3 s waiting for every Cassandra node to be UN/);
    expect(r.calls.some((c) => c.includes("scale") || c.includes("delete"))).toBe(false);
  });

  test("a StatefulSet that would delete its claims: refused", () => {
    const r = runFake(stepScript(CASSANDRA_PREPARE), casState("bitnami", { whenDeleted: "Delete" }), casEnv);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /persistentVolumeClaimRetentionPolicy\.whenDeleted Delete: deleting it would delete the claims/,
    );
    expect(r.calls.some((c) => c.includes("delete"))).toBe(false);
  });

  test("a wrong password: cqlsh refuses and the step stops, nothing touched, the password printed nowhere", () => {
    const r = runFake(stepScript(CASSANDRA_PREPARE), casState("bitnami"), {
      ...casEnv,
      NVCFP_CQL_PASSWORD: "wrong-SENTINEL",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/AuthenticationFailed/);
    expect(r.stderr).toMatch(/cqlsh in pod cassandra-0 failed; Cassandra was not touched/);
    expect(JSON.stringify(r.calls) + r.stdout + r.stderr).not.toContain("wrong-SENTINEL");
  });
});

describe("Cassandra's adoption: verify", () => {
  let prepared: FakeState;
  beforeAll(() => {
    prepared = runFake(stepScript(CASSANDRA_PREPARE), casState("bitnami"), casEnv).state;
  });
  /** The state after prepare, then NVIDIA's own chart installed by the release (its StatefulSet, new pods). */
  function afterRelease(counts?: Record<string, number>): FakeState {
    const s = JSON.parse(JSON.stringify(prepared)) as FakeState;
    const own = casState("own");
    for (const k of Object.keys(own.objects))
      if (/\/(StatefulSet|Pod)\//.test(k)) s.objects[k] = own.objects[k];
    if (counts) Object.assign(s.cassandra.tables, counts);
    return s;
  }

  test("every node UN, the counts found again, no dirty migration: the writers restored and the record verified", () => {
    const r = runFake(stepScript(CASSANDRA_VERIFY), afterRelease(), casEnv);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\S+Z /g, "");
    expect(text).toMatch(/nodetool status: 3 node\(s\) UN on NVIDIA's own chart/);
    expect(text).toMatch(
      /row counts as recorded before the adoption: nvcf_api\.accounts=3 nvcf_api\.functions=5 sis_api\.clusters=2/,
    );
    expect(text).toMatch(
      /writers restored: api-keys\/api-keys=1 ess\/ess-api-helm-nvcf-ess-api-deployment=2 nvcf\/invocation-service=1 nvcf\/nvcf-api=2 sis\/spot-instance-service=1/,
    );
    for (const [ns, name, n] of WRITERS) {
      const d = deployment(r.state, ns, name);
      expect([name, d.spec.replicas, d.metadata.annotations?.[REPLICAS_ANNOTATION]]).toEqual([
        name,
        n,
        undefined,
      ]);
    }
    expect(record(r.state)!["phase"]).toBe("verified");
    noLeak(r);
    // Run again: nothing to verify twice, nothing scaled.
    const again = runFake(stepScript(CASSANDRA_VERIFY), r.state, casEnv);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/was verified at/);
    expect(again.calls.some((c) => c.includes("scale") || c.includes("exec"))).toBe(false);
  });

  test("counts that differ: the step fails naming both, and the writers stay at zero", () => {
    const r = runFake(stepScript(CASSANDRA_VERIFY), afterRelease({ "nvcf_api.functions": 4 }), casEnv);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /row counts differ after the adoption; recorded before: nvcf_api\.accounts=3 nvcf_api\.functions=5 sis_api\.clusters=2; found: nvcf_api\.accounts=3 nvcf_api\.functions=4 sis_api\.clusters=2\. The writers stay at zero/,
    );
    for (const [ns, name] of WRITERS) expect(deployment(r.state, ns, name).spec.replicas).toBe(0);
  });

  test("a StatefulSet still in the Bitnami shape: the release did not replace it; writers stay down", () => {
    const s = afterRelease();
    s.objects[`${CAS}/StatefulSet/cassandra`] = casState("bitnami").objects[`${CAS}/StatefulSet/cassandra`];
    const r = runFake(stepScript(CASSANDRA_VERIFY), s, casEnv);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/still has the Bitnami chart's shape after the cassandra release/);
  });

  test("nothing recorded (no adoption here): writers a stopped run left annotated are restored", () => {
    const s = casState("own");
    const d = s.objects["nvcf/Deployment/nvcf-api"];
    d.metadata.annotations = { [REPLICAS_ANNOTATION]: "2" };
    d.spec.replicas = 0;
    const r = runFake(stepScript(CASSANDRA_VERIFY), s, casEnv);
    expect(r.code).toBe(0);
    expect(deployment(r.state, "nvcf", "nvcf-api").spec.replicas).toBe(2);
    expect(r.stdout).toMatch(
      /no adoption recorded in configmap cassandra-system\/nvcf-cassandra-adoption: nothing to verify/,
    );
  });
});

describe("Cassandra's adoption in a rehearsal (NVCFPULUMI_REHEARSAL, docs/rehearsals.md)", () => {
  const journal = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-journal-"));
    return { dir, file: path.join(dir, "journal") };
  };

  test("prepare and verify do their Kubernetes work, run nothing in a pod, and journal what they did not run", () => {
    const j = journal();
    try {
      const env = { ...casEnv, NVCFPULUMI_REHEARSAL: j.file };
      const prep = runFake(stepScript(CASSANDRA_PREPARE), casState("bitnami"), env);
      expect([prep.code, prep.stderr]).toEqual([0, ""]);
      expect(prep.calls.some((c) => c.includes("exec"))).toBe(false);
      // The StatefulSet deleted with --cascade=orphan, the writers at zero, the old pod deleted, as in the real run.
      expect(prep.state.objects[`${CAS}/StatefulSet/cassandra`]).toBeUndefined();
      expect(prep.state.objects[`${CAS}/Pod/cassandra-0`]).toBeUndefined();
      for (const [ns, name] of WRITERS)
        expect([name, deployment(prep.state, ns, name).spec.replicas]).toEqual([name, 0]);
      expect(record(prep.state)!["counts"]).toBe("none");
      const own = casState("own");
      const s = JSON.parse(JSON.stringify(prep.state)) as FakeState;
      for (const k of Object.keys(own.objects))
        if (/\/(StatefulSet|Pod)\//.test(k)) s.objects[k] = own.objects[k];
      const ver = runFake(stepScript(CASSANDRA_VERIFY), s, env);
      expect([ver.code, ver.stderr]).toEqual([0, ""]);
      expect(ver.calls.some((c) => c.includes("exec"))).toBe(false);
      expect(record(ver.state)!["phase"]).toBe("verified");
      for (const [ns, name, n] of WRITERS)
        expect([name, deployment(ver.state, ns, name).spec.replicas]).toEqual([name, n]);
      expect(fs.readFileSync(j.file, "utf8").split("\n").filter(Boolean)).toEqual([
        "in pod cassandra-0: nodetool status, the schema_migrations check and the row counts (no container runs in the replica)",
        expect.stringMatching(
          /^in pod cassandra-0: nodetool flush, nodetool snapshot -t nvcf-adoption-\d{8}t\d{6}z$/,
        ),
        expect.stringMatching(/^in pod cassandra-1: nodetool flush/),
        expect.stringMatching(/^in pod cassandra-2: nodetool flush/),
        "in pod cassandra-0: nodetool status, the row counts and the schema_migrations check after the adoption (no container runs in the replica)",
      ]);
      expect(prep.stdout).toMatch(/^not rehearsed: in pod cassandra-2: nodetool flush/m);
    } finally {
      fs.rmSync(j.dir, { recursive: true, force: true });
    }
  });
});
