/**
 * The MEK rotation's script (components/scripts/mek-rotate.sh with mek-inpod.sh, as components/mekRotation.ts
 * joins them) against the fake cluster (tests/unit/support/fakeCluster.ts), whose pods run `bao` on the stand-in's
 * KV engine (tests/bin/inpod/lib/openbaoKv.js): a rotation, a re-run, runs interrupted after the backup and after
 * the write, a second generation, a lower one; and that no key, token or backup reaches the script's output or any
 * command line. The rendered dev stack: the Command exists only with the key set, its inputs hold no key material,
 * and a lower generation than deployed is refused.
 */
import * as path from "node:path";
import { MEK_PATH, MEK_RECORD, MEK_ROTATE, ROOT_TOKEN_SECRET } from "../../../components/mekRotation";
import { type FakeRun, type FakeState, runFake } from "../support/fakeCluster";
import { mockGateway, render, unwrapSecrets } from "../support/harness";

const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };
// The example stacks' kubeconfig contexts (the program reads the ambient kubeconfig).
process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const kvLib = require("../../bin/inpod/lib/openbaoKv.js") as {
  initialStoredData(): Record<string, string>;
  MEK_MOUNT: string;
  MEK_ENTRY: string;
};

const NS = "vault-system";
const TOKEN = "s.SENTINEL-root-token-7f3a9c";
const env = {
  NVCFP_NAMESPACE: NS,
  NVCFP_STATEFULSET: "openbao-server",
  NVCFP_RECORD: MEK_RECORD,
  NVCFP_TOKEN_SECRET: ROOT_TOKEN_SECRET,
  NVCFP_MEK_PATH: MEK_PATH,
  NVCFP_WAIT_SECONDS: "5",
};

function pod(i: number, active: boolean): any {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `openbao-server-${i}`,
      namespace: NS,
      labels: { "app.kubernetes.io/name": "openbao", "openbao-active": String(active) },
    },
  };
}

function installed(): { state: FakeState; initial: Record<string, string> } {
  const initial = kvLib.initialStoredData();
  const state: FakeState = {
    objects: {
      [`${NS}/Pod/openbao-server-0`]: pod(0, false),
      [`${NS}/Pod/openbao-server-1`]: pod(1, true),
      [`${NS}/Secret/${ROOT_TOKEN_SECRET}`]: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: ROOT_TOKEN_SECRET, namespace: NS },
        data: { root_token: Buffer.from(TOKEN).toString("base64") },
      },
    },
    openbao: {
      kv: {
        rootToken: TOKEN,
        mounts: {
          [kvLib.MEK_MOUNT]: {
            [kvLib.MEK_ENTRY]: { versions: [{ data: initial, created_time: "2026-01-01T00:00:00Z" }] },
          },
        },
      },
    },
  };
  return { state, initial };
}

const rotate = (state: FakeState, generation: number): FakeRun =>
  runFake(MEK_ROTATE, state, { ...env, NVCFP_GENERATION: String(generation) });

const stored = (s: FakeState): Record<string, string> => {
  const v = s.openbao.kv.mounts[kvLib.MEK_MOUNT][kvLib.MEK_ENTRY].versions;
  return v[v.length - 1].data;
};
const keysOf = (d: Record<string, string>): any[] =>
  JSON.parse(Buffer.from(d["keys"], "base64").toString("utf8")).keys;
const record = (s: FakeState): Record<string, string> =>
  s.objects[`${NS}/ConfigMap/${MEK_RECORD}`]?.data ?? {};
const baoCalls = (r: FakeRun) => r.calls.filter((c) => c[0] === "bao");
const puts = (r: FakeRun) => baoCalls(r).filter((c) => c[1] === "kv" && c[2] === "put");

/** Every secret a run must never show: the token, each key's material, the backup's encoded form. */
function noSecrets(r: FakeRun, extra: string[] = []): void {
  const secrets = [
    TOKEN,
    Buffer.from(TOKEN).toString("base64"),
    ...keysOf(stored(r.state)).map((k) => k.k as string),
    stored(r.state)["keys"],
    ...extra,
  ];
  const lines = [r.stdout, r.stderr, ...r.calls.map((c) => c.join(" "))];
  for (const s of secrets) for (const l of lines) expect(l).not.toContain(s);
}

const UUID_V1 = /^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("MEK rotation script", () => {
  test("a rotation: backup Secret, new key first, old kept, the four fields in one put, record", () => {
    const { state, initial } = installed();
    const oldKid = initial["current_kid"];
    const r = rotate(state, 1);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const now = stored(r.state);
    const keys = keysOf(now);
    expect(keys).toHaveLength(2);
    expect(keys[1].kid).toBe(oldKid);
    expect(keys[1].k).toBe(keysOf(initial)[0].k);
    expect(keys[0]).toEqual({ kty: "oct", use: "enc", kid: keys[0].kid, k: keys[0].k, alg: "A256GCM" });
    expect(keys[0].kid).toMatch(UUID_V1);
    expect(keys[0].k).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(keys[0].k, "base64url")).toHaveLength(32);
    expect(now["current_kid"]).toBe(keys[0].kid);
    expect(JSON.parse(now["jwe_mapping"])).toEqual({ payload_jwe_kid: keys[0].kid });
    expect(now["private_jwks"]).toBe(now["keys"]);
    // One write, with data on standard input only.
    expect(puts(r)).toEqual([["bao", "kv", "put", MEK_PATH, "-"]]);
    // The backup: stored_data as `bao kv get -format=json` printed it before the write.
    const backup = r.state.objects[`${NS}/Secret/nvcf-mek-backup-1`];
    const saved = JSON.parse(Buffer.from(backup.data["stored_data.json"], "base64").toString("utf8"));
    expect(saved.data.data).toEqual(initial);
    expect(backup.metadata.labels["nvcf.nvidia.com/mek-generation"]).toBe("1");
    expect(backup.metadata.annotations["nvcf.nvidia.com/current-kid"]).toBe(oldKid);
    expect(record(r.state)).toMatchObject({
      generation: "1",
      kid: keys[0].kid,
      backup: "nvcf-mek-backup-1",
      previous_kid: oldKid,
      pending: "",
    });
    expect(record(r.state)["rotated_at"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // The active server is the one exec'ed into.
    expect(r.calls.filter((c) => c.includes("exec")).every((c) => c.includes("openbao-server-1"))).toBe(true);
    noSecrets(r, [keysOf(initial)[0].k, initial["keys"], backup.data["stored_data.json"]]);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines[lines.length - 1]).toBe(
      `MEK generation 1 in place: kid ${keys[0].kid}, rotated at ${record(r.state)["rotated_at"]}; ESS encrypts with it once its 48 h grace has passed`,
    );
  });

  test("the same generation again does nothing", () => {
    const first = rotate(installed().state, 1);
    const again = rotate(first.state, 1);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("MEK generation 1 is in place (kid ");
    expect(again.stdout).toContain("nothing to do");
    expect(baoCalls(again)).toEqual([]);
    expect(stored(again.state)).toEqual(stored(first.state));
  });

  test("interrupted after the backup: the re-run keeps the backup and rotates once", () => {
    const { state, initial } = installed();
    state.openbao.failPut = true;
    const failed = rotate(state, 1);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain("the rotation in pod vault-system/openbao-server-1 failed");
    expect(record(failed.state)).toMatchObject({ pending: "1", previous_kid: initial["current_kid"] });
    expect(record(failed.state)["generation"]).toBeUndefined();
    const backup = failed.state.objects[`${NS}/Secret/nvcf-mek-backup-1`];
    expect(backup).toBeDefined();
    failed.state.openbao.failPut = false;
    const resumed = rotate(failed.state, 1);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).not.toContain("backed up");
    expect(resumed.state.objects[`${NS}/Secret/nvcf-mek-backup-1`]).toEqual(backup);
    expect(keysOf(stored(resumed.state))).toHaveLength(2);
    expect(record(resumed.state)["generation"]).toBe("1");
  });

  test("interrupted after the write, before the record: the re-run does not rotate twice", () => {
    const done = rotate(installed().state, 1);
    const newKid = record(done.state)["kid"];
    const cm = done.state.objects[`${NS}/ConfigMap/${MEK_RECORD}`];
    cm.data = {
      previous_kid: cm.data.previous_kid,
      previous_kids: cm.data.previous_kids,
      backup: cm.data.backup,
      pending: "1",
    };
    const backup = done.state.objects[`${NS}/Secret/nvcf-mek-backup-1`];
    const r = rotate(done.state, 1);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `current_kid is already ${newKid} (written by an interrupted run): not rotated again`,
    );
    expect(puts(r)).toEqual([]);
    expect(keysOf(stored(r.state))).toHaveLength(2);
    expect(r.state.objects[`${NS}/Secret/nvcf-mek-backup-1`]).toEqual(backup);
    expect(record(r.state)).toMatchObject({ generation: "1", kid: newKid, pending: "" });
  });

  test("a second generation keeps every earlier key and has its own backup", () => {
    const { state, initial } = installed();
    const one = rotate(state, 1);
    const kid1 = record(one.state)["kid"];
    const two = rotate(one.state, 2);
    expect(two.stderr).toBe("");
    expect(two.code).toBe(0);
    const kids = keysOf(stored(two.state)).map((k) => k.kid);
    expect(kids).toHaveLength(3);
    expect(kids.slice(1)).toEqual([kid1, initial["current_kid"]]);
    expect(stored(two.state)["current_kid"]).toBe(kids[0]);
    expect(two.state.objects[`${NS}/Secret/nvcf-mek-backup-1`]).toEqual(
      one.state.objects[`${NS}/Secret/nvcf-mek-backup-1`],
    );
    const b2 = two.state.objects[`${NS}/Secret/nvcf-mek-backup-2`];
    const saved = JSON.parse(Buffer.from(b2.data["stored_data.json"], "base64").toString("utf8"));
    expect(saved.data.data).toEqual(stored(one.state));
    noSecrets(two);
  });

  test("a lower generation than the recorded one is refused, nothing written", () => {
    const two = rotate(rotate(installed().state, 1).state, 2);
    const r = rotate(two.state, 1);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "MEK generation 2 is recorded in configmap vault-system/nvcf-mek-rotation, higher than 1: the program never goes back to an older key set",
    );
    expect(baoCalls(r)).toEqual([]);
  });

  test("without the root token Secret it stops before touching anything", () => {
    const { state } = installed();
    delete state.objects[`${NS}/Secret/${ROOT_TOKEN_SECRET}`];
    const r = rotate(state, 1);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("secret vault-system/openbao-server-root-token has no root_token");
    expect(baoCalls(r)).toEqual([]);
  });
});

describe("MEK rotation in the rendered stack", () => {
  jest.setTimeout(120000);

  test("unset: no rotation Command", async () => {
    const r = await render({ stack: "dev", gateways: GATEWAYS });
    expect(r.error).toBeUndefined();
    expect(r.resources.filter((x) => x.name.endsWith("-mek-rotation"))).toEqual([]);
  });

  test("set: one Command after OpenBao whose inputs name the generation and hold no key material", async () => {
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS,
      overrides: { openbao: { issuerDiscovery: true, mekGeneration: 2 } },
      previousOutputs: { bundleVersion: "0.8.0", mekGeneration: 1 },
    });
    expect(r.error).toBeUndefined();
    const cmds = r.resources.filter((x) => x.name.endsWith("-mek-rotation"));
    expect(cmds.map((c) => [c.type, c.name])).toEqual([["command:local:Command", "nvcf-mek-rotation"]]);
    const c = cmds[0];
    expect(c.dependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/nvcf-openbao-server$/)]));
    const envIn = unwrapSecrets(c.inputs["environment"]) as Record<string, string>;
    expect(envIn).toMatchObject({
      NVCFP_GENERATION: "2",
      NVCFP_NAMESPACE: "vault-system",
      NVCFP_RECORD: MEK_RECORD,
      NVCFP_TOKEN_SECRET: ROOT_TOKEN_SECRET,
      NVCFP_MEK_PATH: MEK_PATH,
      NVCFP_STEP_SCRIPT: MEK_ROTATE,
    });
    // No input holds key material: besides the script text, only names, numbers and the access.
    const text = JSON.stringify(c.inputs);
    expect(text).not.toMatch(/"k"\s*:\s*"[A-Za-z0-9_-]{43}"/);
    expect(text).not.toMatch(/root_token"?\s*[:=]\s*"?s\./);
    expect(Object.keys(envIn).sort()).toEqual(
      [
        "NVCFP_GENERATION",
        "NVCFP_KUBECONFIG",
        "NVCFP_KUBECTL",
        "NVCFP_KUBE_CONTEXT",
        "NVCFP_MEK_PATH",
        "NVCFP_NAMESPACE",
        "NVCFP_RECORD",
        "NVCFP_STATEFULSET",
        "NVCFP_STEP_SCRIPT",
        "NVCFP_TOKEN_SECRET",
        "NVCFP_WAIT_SECONDS",
      ].sort(),
    );
    expect(r.outputs["mekGeneration"]).toBe(2);
  });

  test("a lower generation than deployed is refused before anything is registered", async () => {
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS,
      overrides: { openbao: { issuerDiscovery: true, mekGeneration: 1 } },
      previousOutputs: { bundleVersion: "0.8.0", mekGeneration: 2 },
    });
    expect(r.error?.message).toContain("nvcf:openbao.mekGeneration: expected 2 or higher");
    expect(r.resources.filter((x) => x.name.endsWith("-mek-rotation"))).toEqual([]);
  });
});
