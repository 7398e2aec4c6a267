/**
 * The recovery decisions (recovery/plan.ts `planRelease`, the healthy path `healthyImports`) and the parsers of what kubectl and
 * `pulumi stack export` print. The end-to-end proof on a real cluster is tests/e2e/recovery.test.ts.
 */
import * as path from "node:path";
import * as zlib from "node:zlib";
import { loadEnvironment } from "../../../cli/environment";
import { checkedStack } from "../../../cli/stacks";
import {
  type HelmRecord,
  type HookObject,
  type StateView,
  adoptionSource,
  healthyImports,
  namespaceNames,
  parseHelmRecordTable,
  parseHelmRecords,
  parseHookObjects,
  parseState,
  planRelease,
} from "../../../recovery/plan";
import type { ControlPlaneConfig } from "../../../config/schema";
import { readHelmRelease } from "../../../kube/helmRecords";
import { controlRecoveryReleases } from "../../../stacks/control";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const rel = { name: "openbao-server", namespace: "vault-system", timeoutSeconds: 300 };
const record = (revision: number, status: string, ageSeconds = 3600): HelmRecord => ({
  namespace: "vault-system",
  name: "openbao-server",
  revision,
  status,
  secret: `sh.helm.release.v1.openbao-server.v${revision}`,
  modifiedMs: NOW - ageSeconds * 1000,
  hooks: [],
});
const state = (known: string[] = [], pending: [string, string][] = []): StateView => ({
  known: new Set(known),
  pending: new Map(pending.map(([k, type]) => [k, { type, urn: `urn:${k}` }])),
});
const unseal: HookObject = {
  kind: "Secret",
  name: "openbao-server-unseal",
  events: ["pre-install"],
  deletePolicies: ["hook-failed"],
  succeeded: false,
};
const initJob: HookObject = {
  kind: "Job",
  name: "openbao-server-initialize-cluster",
  events: ["post-install"],
  deletePolicies: [],
  succeeded: true,
};
const plan = (records: HelmRecord[], s: StateView | undefined, leftovers: HookObject[] = []) =>
  planRelease(rel, records, s, leftovers, "kubectl --context c", NOW);

describe("planRelease", () => {
  test("a deployed release the state holds, or nothing installed and nothing left over: no action", () => {
    expect(plan([record(1, "deployed")], state(["vault-system/openbao-server"]))).toEqual({ kind: "none" });
    expect(plan([], state())).toEqual({ kind: "none" });
  });

  test("pending-install while the state shows the CLI died with it in flight, younger than the timeout: wait", () => {
    const a = plan(
      [record(1, "pending-install", 10)],
      state([], [["vault-system/openbao-server", "creating"]]),
    );
    expect(a).toMatchObject({ kind: "wait", untilMs: NOW - 10_000 + 300_000 });
  });

  test("pending-install that no operation runs any more: its records go, the install starts afresh", () => {
    // The update that wrote it ended (no pending operation), or the record is older than the timeout.
    for (const s of [state(), state([], [["vault-system/openbao-server", "creating"]])]) {
      const age = s.pending.size ? 400 : 5;
      expect(plan([record(1, "pending-install", age)], s)).toMatchObject({
        kind: "deleteRecords",
        secrets: ["sh.helm.release.v1.openbao-server.v1"],
      });
    }
  });

  test("pending-install whose install-only hook Job had completed (API server lost after it): refuse", () => {
    const pending = {
      ...record(1, "pending-install", 400),
      hooks: ["Secret/openbao-server-unseal", "Job/openbao-server-initialize-cluster"],
    };
    const a = plan([pending], state(), [initJob]);
    expect(a.kind).toBe("refuse");
    expect((a as { message: string }).message).toContain(
      "kubectl --context c -n vault-system delete job/openbao-server-initialize-cluster secret/sh.helm.release.v1.openbao-server.v1",
    );
    // A completed Job the pending record does not declare (another release's) does not stop it.
    expect(plan([{ ...pending, hooks: [] }], state(), [initJob])).toMatchObject({ kind: "deleteRecords" });
  });

  test("a completed install-only hook Job the release lists as rerunnable (a read-only check) does not refuse", () => {
    // cert-manager after the API server was lost past its post-install API check (the API-server e2e case).
    const cm = { name: "cert-manager", namespace: "cert-manager", timeoutSeconds: 300 };
    const check: HookObject = { ...initJob, name: "cert-manager-startupapicheck" };
    const pending = {
      ...record(1, "pending-install", 400),
      namespace: "cert-manager",
      name: "cert-manager",
      secret: "sh.helm.release.v1.cert-manager.v1",
      hooks: ["Job/cert-manager-startupapicheck"],
    };
    const planCm = (r: typeof cm, records: HelmRecord[], leftovers: HookObject[]) =>
      planRelease(r, records, state(), leftovers, "kubectl --context c", NOW);
    const rerun = { ...cm, rerunnableHooks: ["cert-manager-startupapicheck"] };
    expect(planCm(rerun, [pending], [check])).toMatchObject({
      kind: "deleteRecords",
      secrets: ["sh.helm.release.v1.cert-manager.v1"],
    });
    // Not listed: treated as initialising data, as any install-only hook Job by default.
    expect(planCm(cm, [pending], [check]).kind).toBe("refuse");
    // Rule 5: leftover blocking hooks are removed when the only completed Job is rerunnable.
    const blocker: HookObject = { ...unseal, name: "cert-manager-leftover" };
    expect(planCm(rerun, [], [blocker, check])).toMatchObject({
      kind: "deleteHooks",
      objects: ["secret/cert-manager-leftover"],
    });
    expect(planCm(cm, [], [blocker, check]).kind).toBe("refuse");
  });

  test("pending-upgrade after a deployed revision: only the newer records go, the upgrade starts from it", () => {
    const a = plan(
      [record(1, "superseded"), record(2, "deployed"), record(3, "pending-upgrade")],
      state(["vault-system/openbao-server"]),
    );
    expect(a).toMatchObject({ kind: "deleteRecords", secrets: ["sh.helm.release.v1.openbao-server.v3"] });
  });

  test("only failed revisions and no state: they go; with the release in the state they stay", () => {
    expect(plan([record(1, "failed")], state())).toMatchObject({ kind: "deleteRecords" });
    expect(plan([record(1, "failed")], state(["vault-system/openbao-server"]))).toEqual({ kind: "none" });
  });

  test("deployed but lost by the state (a pending create, or gone): adopt it; an unreadable state adopts nothing", () => {
    const a = plan([record(1, "deployed")], state([], [["vault-system/openbao-server", "creating"]]));
    expect(a).toMatchObject({ kind: "adopt", id: "vault-system/openbao-server" });
    expect((a as { reason: string }).reason).toMatch(/the CLI stopped while it was being created/);
    expect(plan([record(1, "deployed")], undefined)).toEqual({ kind: "none" });
  });

  test("a fresh install blocked by a rolled-back install's hook objects: they go", () => {
    const a = plan([], state(), [unseal]);
    expect(a).toMatchObject({ kind: "deleteHooks", objects: ["secret/openbao-server-unseal"] });
  });

  test("hooks Helm deletes itself (default or before-hook-creation policy) are left alone", () => {
    const cm: HookObject = { ...unseal, kind: "ConfigMap", deletePolicies: ["before-hook-creation"] };
    const job: HookObject = { ...initJob, succeeded: false };
    expect(plan([], state(), [cm, job])).toEqual({ kind: "none" });
  });

  test("an install-only hook Job already completed: refuse, naming the exact kubectl step", () => {
    const a = plan([], state(), [unseal, initJob]);
    expect(a.kind).toBe("refuse");
    expect((a as { message: string }).message).toContain(
      "kubectl --context c -n vault-system delete secret/openbao-server-unseal job/openbao-server-initialize-cluster",
    );
  });
});

describe("parsers", () => {
  test("namespaceNames: the names kubectl get namespaces -o name prints; undefined when kubectl failed", () => {
    expect(namespaceNames("namespace/default\nnamespace/nats-system\n\n")).toEqual(
      new Set(["default", "nats-system"]),
    );
    expect(namespaceNames("")).toEqual(new Set());
    expect(namespaceNames(undefined)).toBeUndefined();
  });

  const payload = (obj: unknown) =>
    Buffer.from(zlib.gzipSync(Buffer.from(JSON.stringify(obj))).toString("base64")).toString("base64");

  test("Helm storage Secrets: labels, the hooks each payload declares, modifiedAt in seconds", () => {
    const list = {
      items: [
        {
          metadata: {
            name: "sh.helm.release.v1.reval.v2",
            namespace: "nvcf",
            creationTimestamp: "2026-12-01T11:00:00Z",
            labels: {
              name: "reval",
              owner: "helm",
              status: "deployed",
              version: "2",
              modifiedAt: "1764590400",
            },
          },
          data: { release: payload({ name: "reval", hooks: [{ kind: "Job", name: "reval-migrate" }] }) },
        },
      ],
    };
    expect(parseHelmRecords(list)).toEqual([
      {
        namespace: "nvcf",
        name: "reval",
        revision: 2,
        status: "deployed",
        secret: "sh.helm.release.v1.reval.v2",
        modifiedMs: 1764590400_000,
        hooks: ["Job/reval-migrate"],
      },
    ]);
    expect(readHelmRelease(list.items[0].data.release)?.name).toBe("reval");
    expect(readHelmRelease("not a record")).toBeUndefined();
  });

  test("the label table (no payloads): one record per line, modifiedAt optional, other lines skipped", () => {
    const text = [
      "nvcf     sh.helm.release.v1.reval.v2   helm.sh/release.v1   1   5m   modifiedAt=1764590400,name=reval,owner=helm,status=deployed,version=2",
      "vault-system   sh.helm.release.v1.openbao-server.v1   helm.sh/release.v1   1   1m   name=openbao-server,owner=helm,status=pending-install,version=1",
      "No resources found",
      "",
    ].join("\n");
    const r = parseHelmRecordTable(text);
    expect(r.map((x) => [x.namespace, x.name, x.revision, x.status, x.secret])).toEqual([
      ["nvcf", "reval", 2, "deployed", "sh.helm.release.v1.reval.v2"],
      ["vault-system", "openbao-server", 1, "pending-install", "sh.helm.release.v1.openbao-server.v1"],
    ]);
    expect(r[0].modifiedMs).toBe(1764590400_000);
    expect(r[1].modifiedMs).toBeNaN();
  });

  test("healthy path: every release's latest record deployed imports all; anything else needs the full look", () => {
    const rels = [rel, { name: "reval", namespace: "nvcf", timeoutSeconds: 300 }];
    const reval = (revision: number, status: string): HelmRecord => ({
      ...record(revision, status),
      namespace: "nvcf",
      name: "reval",
      secret: `sh.helm.release.v1.reval.v${revision}`,
    });
    const deployed = [record(1, "deployed"), reval(1, "superseded"), reval(2, "deployed")];
    expect(healthyImports(rels, deployed)).toEqual({
      "openbao-server": "vault-system/openbao-server",
      reval: "nvcf/reval",
    });
    expect(healthyImports(rels, [...deployed, reval(3, "pending-upgrade")])).toBeUndefined();
    expect(healthyImports(rels, [record(1, "deployed"), reval(1, "failed")])).toBeUndefined();
    expect(healthyImports(rels, [record(1, "deployed")])).toBeUndefined(); // reval has no record: a fresh install
  });

  test("hook objects: only annotated ones, events and policies split", () => {
    const list = {
      items: [
        { kind: "Secret", metadata: { name: "plain" } },
        {
          kind: "Job",
          metadata: {
            name: "init",
            annotations: {
              "helm.sh/hook": "post-install",
              "helm.sh/hook-delete-policy": "hook-succeeded, hook-failed",
            },
          },
          status: { succeeded: 1 },
        },
      ],
    };
    expect(parseHookObjects(list)).toEqual([
      {
        kind: "Job",
        name: "init",
        events: ["post-install"],
        deletePolicies: ["hook-succeeded", "hook-failed"],
        succeeded: true,
      },
    ]);
  });

  test("stack export: Helm releases held and pending operations, by namespace/name", () => {
    const t = "kubernetes:helm.sh/v3:Release";
    const s = parseState({
      deployment: {
        resources: [
          { type: t, urn: "u1", inputs: { name: "nats", namespace: "nats-system" } },
          { type: "kubernetes:core/v1:Namespace", urn: "u2", inputs: { metadata: { name: "x" } } },
        ],
        pending_operations: [
          { type: "creating", resource: { type: t, urn: "u3", inputs: { name: "api", namespace: "nvcf" } } },
        ],
      },
    });
    expect([...s.known]).toEqual(["nats-system/nats"]);
    expect([...s.pending]).toEqual([["nvcf/api", { type: "creating", urn: "u3" }]]);
  });
});

describe("the releases recovery looks after", () => {
  const dev = () =>
    structuredClone(
      checkedStack(loadEnvironment(path.join(__dirname, "../../.."), "dev").control).config,
    ) as ControlPlaneConfig;

  test("control plane: every enabled release, cert-manager's API check rerunnable; Envoy Gateway only when installed", () => {
    const cfg = dev();
    const refs = controlRecoveryReleases(cfg);
    expect(refs.map((r) => `${r.namespace}/${r.name}`)).toEqual(
      expect.arrayContaining(["vault-system/openbao-server", "cert-manager/cert-manager", "nvcf/api"]),
    );
    expect(refs.find((r) => r.name === "cert-manager")?.rerunnableHooks).toEqual([
      "cert-manager-startupapicheck",
    ]);
    expect(refs.find((r) => r.name === "openbao-server")?.rerunnableHooks).toBeUndefined();
    expect(refs.some((r) => r.name === "eg")).toBe(false);
    cfg.gateway.install = true;
    expect(controlRecoveryReleases(cfg).find((r) => r.name === "eg")).toEqual({
      name: "eg",
      namespace: cfg.gateway.controllerNamespace,
      timeoutSeconds: cfg.charts.timeoutSeconds,
    });
  });
});

describe("the StatefulSet a Cassandra adoption works from", () => {
  const LABEL = "app.kubernetes.io/name";
  const sts = (uid: string, bitnami: boolean, deleting = false) => ({
    metadata: { uid, ...(deleting ? { deletionTimestamp: "2026-12-07T00:00:00Z" } : {}) },
    spec: { volumeClaimTemplates: [{ metadata: bitnami ? { labels: { [LABEL]: "cassandra" } } : {} }] },
  });

  test("a live Bitnami-shaped StatefulSet: its UID, whatever the record says", () => {
    expect(adoptionSource(sts("a", true), undefined, LABEL)).toBe("a");
    expect(adoptionSource(sts("b", true), { source: "a", phase: "orphaned" }, LABEL)).toBe("b");
  });

  test("deleted by the adoption, being deleted, or replaced by NVIDIA's shape: the UID the record started from", () => {
    expect(adoptionSource(undefined, { source: "a" }, LABEL)).toBe("a");
    expect(adoptionSource(sts("a", true, true), { source: "a" }, LABEL)).toBe("a");
    expect(adoptionSource(sts("c", false), { source: "a" }, LABEL)).toBe("a");
  });

  test("neither a Bitnami StatefulSet nor a record: empty", () => {
    expect(adoptionSource(undefined, undefined, LABEL)).toBe("");
    expect(adoptionSource(sts("c", false), undefined, LABEL)).toBe("");
    expect(adoptionSource(undefined, { phase: "orphaned" }, LABEL)).toBe("");
  });
});
