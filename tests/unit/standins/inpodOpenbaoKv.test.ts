/**
 * The stand-in OpenBao's KV version 2 engine and its `bao kv get` / `bao kv put` (tests/bin/inpod/lib/openbaoKv.js,
 * served by tests/bin/inpod/bao on the local clusters and by the fake cluster's pods): OpenBao's CLI contract
 * (openbao.org/docs/commands/kv/get, …/kv/put: output shapes, -field without a newline, exit codes, a token
 * required) and what NVIDIA's migration leaves at install (migrations/openbao/migrations/03_setup_shared_secrets.sh:
 * stored_data written once, never overwritten).
 */
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const kv = require("../../bin/inpod/lib/openbaoKv.js") as {
  kvCommand(argv: string[], io: any): number;
  migrate(state: any): boolean;
  uuid1(now?: number): string;
  MEK_MOUNT: string;
  MEK_ENTRY: string;
};

const TOKEN = "s.root-token-for-tests";
const PATH = "services/all/kv/encryption/keys/stored_data";

function run(argv: string[], state: any, env: Record<string, string> = { BAO_TOKEN: TOKEN }, stdin = "") {
  let out = "";
  let err = "";
  const code = kv.kvCommand(argv, {
    env,
    stdin: () => stdin,
    out: (t: string) => (out += t),
    err: (t: string) => (err += t),
    load: () => state,
    save: (s: any) => Object.assign(state, s),
  });
  return { code, out, err };
}

const fresh = () => {
  const state: any = { rootToken: TOKEN, mounts: {} };
  kv.migrate(state);
  return state;
};

describe("stand-in bao kv", () => {
  test("the migration writes stored_data once: one A256GCM JWK with a time-based kid, the four fields", () => {
    const state = fresh();
    const data = state.mounts[kv.MEK_MOUNT][kv.MEK_ENTRY].versions[0].data;
    expect(Object.keys(data).sort()).toEqual(["current_kid", "jwe_mapping", "keys", "private_jwks"]);
    const keys = JSON.parse(Buffer.from(data.keys, "base64").toString()).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "oct", use: "enc", alg: "A256GCM", kid: data.current_kid });
    expect(Buffer.from(keys[0].k, "base64url")).toHaveLength(32);
    expect(data.current_kid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(data.jwe_mapping)).toEqual({ payload_jwe_kid: data.current_kid });
    expect(kv.migrate(state)).toBe(false);
    expect(state.mounts[kv.MEK_MOUNT][kv.MEK_ENTRY].versions).toHaveLength(1);
  });

  test("a version-1 UUID carries the time (as ESS reads it)", () => {
    const t = Date.parse("2026-03-01T10:00:00Z");
    const u = kv.uuid1(t).replace(/-/g, "");
    const ts = BigInt(`0x${u.slice(13, 16)}${u.slice(8, 12)}${u.slice(0, 8)}`);
    expect(Number((ts - 0x01b21dd213814000n) / 10000n)).toBe(t);
  });

  test("get: the table of sections, -format=json, -field without a trailing newline", () => {
    const state = fresh();
    const data = state.mounts[kv.MEK_MOUNT][kv.MEK_ENTRY].versions[0].data;
    const t = run(["get", PATH], state);
    expect(t.code).toBe(0);
    const lines = t.out.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      "== Secret Path ==",
      "services/all/kv/data/encryption/keys/stored_data",
      "",
      "======= Metadata =======",
      "Key                Value",
    ]);
    expect(t.out).toContain(
      "\nversion            1\n\n====== Data ======\nKey             Value\n---             -----\n",
    );
    expect(t.out).toContain(`\ncurrent_kid     ${data.current_kid}\n`);
    const j = run(["get", "-format=json", PATH], state);
    const doc = JSON.parse(j.out);
    expect(doc.data.data).toEqual(data);
    expect(doc.data.metadata).toMatchObject({ version: 1, destroyed: false, deletion_time: "" });
    expect(doc).toMatchObject({ lease_id: "", lease_duration: 0, renewable: false, warnings: null });
    expect(run(["get", "-field=current_kid", PATH], state)).toEqual({
      code: 0,
      out: data.current_kid,
      err: "",
    });
    expect(
      run(["get", "-mount=services/all/kv", "-field=current_kid", "encryption/keys/stored_data"], state).out,
    ).toBe(data.current_kid);
  });

  test("put: a new version with exactly the data given, from k=v, from standard input (-), from k=-", () => {
    const state = fresh();
    const p = run(["put", PATH, "a=1", "b=x=y"], state);
    expect(p.code).toBe(0);
    expect(p.out).toContain(
      "== Secret Path ==\nservices/all/kv/data/encryption/keys/stored_data\n\n======= Metadata =======",
    );
    expect(p.out).toContain("\nversion            2\n");
    expect(p.out).not.toContain("Data");
    expect(JSON.parse(run(["get", "-format=json", PATH], state).out).data.data).toEqual({ a: "1", b: "x=y" });
    expect(run(["put", PATH, "-"], state, { BAO_TOKEN: TOKEN }, '{"c":"3"}').code).toBe(0);
    expect(run(["get", "-field=c", PATH], state).out).toBe("3");
    expect(run(["put", PATH, "d=-"], state, { VAULT_TOKEN: TOKEN }, "four").code).toBe(0);
    expect(run(["get", "-field=d", PATH], state).out).toBe("four");
    expect(state.mounts[kv.MEK_MOUNT][kv.MEK_ENTRY].versions).toHaveLength(4);
  });

  test("errors: no token or a wrong one (403, exit 2), nothing at the path (exit 2), a missing field and usage (exit 1)", () => {
    const state = fresh();
    for (const env of [{}, { BAO_TOKEN: "s.wrong" }] as Record<string, string>[]) {
      const r = run(["get", PATH], state, env);
      expect(r.code).toBe(2);
      expect(r.err).toContain("Error making API request.");
      expect(r.err).toContain("Code: 403. Errors:\n\n* permission denied\n");
      expect(r.out).toBe("");
    }
    expect(run(["get", "services/all/kv/nothing/here"], state)).toEqual({
      code: 2,
      out: "",
      err: "No value found at services/all/kv/data/nothing/here\n",
    });
    expect(run(["get", "-field=nope", PATH], state)).toEqual({
      code: 1,
      out: "",
      err: 'Field "nope" not present in secret\n',
    });
    expect(run(["put", PATH], state)).toMatchObject({ code: 1, err: "Must supply data\n" });
    expect(run(["get"], state)).toMatchObject({ code: 1 });
    expect(run(["get", "other/mount/x"], state).code).toBe(2);
    expect(run(["list", PATH], state).code).toBe(1);
  });
});
