/**
 * The account-settings scripts (components/scripts/account-*.sh and account-records.js after the nvcf-cli runner, as
 * components/accounts.ts `accountScripts` joins them) with a fake nvcf-cli (tests/unit/support/fakeCli.ts): the calls
 * each action makes, that none of the operator's settings reach the CLI (NVCF_*, API_KEYS_*, and the host overrides
 * API_HOST, INVOKE_HOST, NVCT_HOST), each failure mapped to a message naming the nvcf-cli command and the account
 * with the CLI's "Error:" lines, the registry password and every key's value redacted, and the choices and refusals of
 * account-records.js. tests/unit/components/accounts.test.ts runs the same scripts against the stand-in nvcf-cli and
 * NVCF API.
 */
import { spawnSync } from "node:child_process";
import { accountScripts } from "../../../../components/accounts";
import { CLI_CONFIG_YAML } from "../../standins/nvcfApiStandIn";
import { type Answer, type FakeCliRun, runWithFakeCli } from "../../support/fakeCli";

const KEY = "SENTINEL-registry-key-4f1e";
const BASIC = Buffer.from(`robot:${KEY}`).toString("base64");
const ID = "0f0e0d0c-0000-4000-8000-000000000001";
const COMMON = {
  NVCFP_CLI_CONFIG_YAML: CLI_CONFIG_YAML,
  NVCFP_ICMS_URL: "http://203.0.113.10",
  NVCFP_ACCOUNT: "nvcf-default",
  // The operator's shell: settings nvcf-cli would read, and one of its own switches.
  NVCF_FOO: "from-the-operator",
  NVCF_TOKEN: "operator-token",
  API_KEYS_HOST: "elsewhere.test",
  API_HOST: "elsewhere.test",
  INVOKE_HOST: "elsewhere.test",
  NVCT_HOST: "elsewhere.test",
  NVCF_CLI_DEBUG: "1",
};
const CREDENTIAL = {
  NVCFP_REGISTRY_HOST: "registry.nvcf.test",
  NVCFP_SECRET_NAME: "nvcr-containers",
  NVCFP_ARTIFACT_TYPES: "CONTAINER",
  NVCFP_REGISTRY_USER: "robot",
  NVCFP_REGISTRY_PASSWORD: KEY,
  NVCFP_DESCRIPTION: "",
  NVCFP_TAGS: "[]",
};
const LIMITS = {
  NVCFP_MAX_FUNCTIONS: "7",
  NVCFP_MAX_TASKS: "10",
  NVCFP_MAX_TELEMETRIES: "10",
  NVCFP_MAX_REGISTRY_CREDS: "4",
};

/** A credential as the API lists it. */
const cred = (extra: Record<string, unknown> = {}) => ({
  registryCredentialId: ID,
  registryCredentialName: "credentials",
  registryHostname: "registry.nvcf.test",
  artifactTypes: ["CONTAINER"],
  description: "",
  tags: [],
  provisionedBy: "SYSTEM",
  ...extra,
});
const list = (...creds: object[]): Answer => ({
  command: "registry-credential list",
  stdout: JSON.stringify({ registryCredentials: creds }),
});

function run(
  kind: "credential" | "limits",
  action: "apply" | "delete",
  answers: Answer[],
  env: Record<string, string> = {},
): FakeCliRun {
  const script = accountScripts(kind)[action === "apply" ? "NVCFP_APPLY_SCRIPT" : "NVCFP_DELETE_SCRIPT"]!;
  const r = runWithFakeCli(
    script,
    { ...accountScripts(kind), ...COMMON, ...(kind === "credential" ? CREDENTIAL : LIMITS), ...env },
    answers,
  );
  // Never the registry password, its basic-auth form, or an API key, whatever the CLI printed.
  expect(r.stdout + r.stderr).not.toContain(KEY);
  expect(r.stdout + r.stderr).not.toContain(BASIC);
  expect(r.stdout + r.stderr).not.toMatch(/nvapi-/);
  expect(r.left).toEqual([]);
  return r;
}

/**
 * Every call saw the runner's environment, none of the operator's settings but the CLI's own switch. The runner's
 * `init` (the first call) reaches only the api-keys service (docs/upstream-facts.md §3.2), before account-lib.sh
 * removes the API's host overrides.
 */
function expectCleared(r: FakeCliRun, extra: Record<string, string>[] = []) {
  expect(r.calls.length).toBeGreaterThan(0);
  const hosts = { API_HOST: "elsewhere.test", INVOKE_HOST: "elsewhere.test", NVCT_HOST: "elsewhere.test" };
  r.calls.forEach((c, i) =>
    expect(c.env).toEqual({
      HOME: expect.any(String),
      NO_COLOR: "1",
      NVCF_CLI_DEBUG: "1",
      ...(i === 0 ? hosts : {}),
      ...extra[i],
    }),
  );
}

describe("a credential's apply", () => {
  test("the recorded or bootstrap credential: list, then update with the user and password", () => {
    const r = run("credential", "apply", [
      list(cred({ registryCredentialName: "nvcr-containers" })),
      {
        command: "registry-credential update",
        stdout: JSON.stringify({ registryCredential: cred(), extra: 1 }),
      },
    ]);
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => c.args)).toEqual([
      ["init"],
      ["--json", "registry-credential", "list"],
      ["--json", "registry-credential", "update", ID, "--username", "robot", "--password", KEY],
    ]);
    expectCleared(r);
    expect(JSON.parse(r.stdout)).toEqual({ registryCredential: cred() });
    expect(r.stderr).toBe(`updated registry credential ${ID} (registry.nvcf.test) of account nvcf-default\n`);
  });

  test("added artifact types are added; a description or tags that differ are kept, with a note", () => {
    const r = run(
      "credential",
      "apply",
      [list(cred({ tags: ["x"] })), { command: "registry-credential update", stdout: "{}" }],
      { NVCFP_ARTIFACT_TYPES: "CONTAINER,HELM" },
    );
    expect(r.code).toBe(0);
    expect(r.calls[2]!.args.slice(4)).toEqual([
      "--artifact-type",
      "HELM",
      "--username",
      "robot",
      "--password",
      KEY,
    ]);
    expect(r.stderr).toContain(
      "note: the credential for registry.nvcf.test keeps its description and tags (nvcf-cli cannot change them after it was created)\n",
    );
  });

  test("none for the hostname: add with the hostname, types, description and tags", () => {
    const r = run(
      "credential",
      "apply",
      [list(cred({ registryHostname: "other.test" })), { command: "registry-credential add", stdout: "{}" }],
      { NVCFP_DESCRIPTION: "images of team ml", NVCFP_TAGS: '["team:ml","a b"]' },
    );
    expect(r.code).toBe(0);
    expect(r.calls[2]!.args).toEqual([
      "--json",
      "registry-credential",
      "add",
      "--hostname",
      "registry.nvcf.test",
      "--artifact-type",
      "CONTAINER",
      "--description",
      "images of team ml",
      "--tag",
      "team:ml",
      "--tag",
      "a b",
      "--username",
      "robot",
      "--password",
      KEY,
    ]);
    expect(r.stderr).toBe("added a registry credential for registry.nvcf.test to account nvcf-default\n");
  });

  test("refused: two candidates and none recorded or named; an artifact type the config does not list", () => {
    const two = run("credential", "apply", [
      list(
        cred({ registryCredentialName: "a" }),
        cred({ registryCredentialId: "id-2", registryCredentialName: "b" }),
      ),
    ]);
    expect(two.code).toBe(1);
    expect(two.stderr).toBe(
      `account nvcf-default has 2 registry credentials for registry.nvcf.test (${ID} a, id-2 b): the program manages one per hostname; delete the others with nvcf-cli registry-credential delete <id> --force\n`,
    );
    expect(two.calls).toHaveLength(2);
    // The one the command recorded is chosen among them.
    const recorded = run(
      "credential",
      "apply",
      [
        list(
          cred({ registryCredentialName: "a" }),
          cred({ registryCredentialId: "id-2", registryCredentialName: "b" }),
        ),
        { command: "registry-credential update", stdout: "{}" },
      ],
      { PULUMI_COMMAND_STDOUT: JSON.stringify({ registryCredential: { registryCredentialId: "id-2" } }) },
    );
    expect(recorded.calls[2]!.args.slice(0, 4)).toEqual(["--json", "registry-credential", "update", "id-2"]);
    const extra = run("credential", "apply", [list(cred({ artifactTypes: ["CONTAINER", "HELM"] }))]);
    expect(extra.code).toBe(1);
    expect(extra.stderr).toBe(
      "the credential for registry.nvcf.test in account nvcf-default has artifact types HELM that nvcf:accounts.registryCredentials does not list for it; the API cannot remove an artifact type: add them to its artifactTypes\n",
    );
  });

  test("a failed call: the command and the account, the CLI's Error: lines, the password and every key's value redacted", () => {
    const r = run("credential", "apply", [
      list(cred()),
      {
        command: "registry-credential update",
        exit: 1,
        stderr:
          `Error: registry refused robot:${KEY} (Authorization: Basic ${BASIC}) {"password": "${KEY}", "secret":"s3", "apiKey" : "k1", "token":"t1"} nvapi-Zx9\n` +
          "Usage:\n  nvcf-cli registry-credential update <credential-id> [flags]\n",
        stdout: "Error: password=hunter2\n",
      },
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "nvcf-cli registry-credential update failed for account nvcf-default (exit 1):\n" +
        'Error: registry refused robot:[redacted] (Authorization: Basic [redacted]) {"password": [redacted], "secret":[redacted], "apiKey" : [redacted], "token":[redacted] [redacted]\n' +
        "Error: password=[redacted]\n",
    );
    expect(r.stdout).toBe("");
  });

  test("a failure without Error: lines shows the CLI's last ten lines", () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
    const r = run("credential", "apply", [
      { command: "registry-credential list", exit: 2, stderr: lines.join("\n") },
    ]);
    expect(r.stderr).toBe(
      `nvcf-cli registry-credential list failed for account nvcf-default (exit 2):\n${lines.slice(2).join("\n")}\n`,
    );
  });

  test("an answer that is no JSON ends the script naming the command, the answer redacted", () => {
    const r = run("credential", "apply", [
      { command: "registry-credential list", stdout: `<html>gateway error for ${KEY}</html>` },
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "nvcf-cli registry-credential list printed no JSON:\n<html>gateway error for [redacted]</html>\n",
    );
  });
});

describe("a credential's delete", () => {
  const recorded = (provisionedBy: string) => ({
    PULUMI_COMMAND_STDOUT: JSON.stringify({ registryCredential: cred({ provisionedBy }) }),
  });

  test("one the program added is deleted; one already gone counts as deleted", () => {
    const r = run(
      "credential",
      "delete",
      [{ command: "registry-credential delete", stdout: "{}" }],
      recorded("USER"),
    );
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => c.args)).toEqual([
      ["init"],
      ["--json", "registry-credential", "delete", ID, "--force"],
    ]);
    expect(r.stderr).toBe(`deleted registry credential ${ID} (registry.nvcf.test) of account nvcf-default\n`);
    expectCleared(r);
    const gone = run(
      "credential",
      "delete",
      [
        {
          command: "registry-credential delete",
          exit: 1,
          stderr: 'Error: API error 404: {"detail":"not found"}\n',
        },
      ],
      recorded("USER"),
    );
    expect([gone.code, gone.stderr]).toEqual([0, `registry credential ${ID} was already gone\n`]);
  });

  test("one the system provisioned is kept; none recorded: nothing to delete", () => {
    const kept = run("credential", "delete", [], recorded("SYSTEM"));
    expect(kept.code).toBe(0);
    expect(kept.stderr).toMatch(
      /^kept registry credential .* the API does not delete a credential provisioned by the system\n$/,
    );
    expect(kept.calls.map((c) => c.args)).toEqual([["init"]]);
    const none = run("credential", "delete", [], { PULUMI_COMMAND_STDOUT: "" });
    expect([none.code, none.stderr]).toEqual([
      0,
      "no registry credential recorded for registry.nvcf.test; nothing to delete\n",
    ]);
  });

  test("a failed delete is mapped", () => {
    const r = run(
      "credential",
      "delete",
      [{ command: "registry-credential delete", exit: 1, stderr: "Error: API error 500: token=abc\n" }],
      recorded("USER"),
    );
    expect([r.code, r.stderr]).toEqual([
      1,
      "nvcf-cli registry-credential delete failed for account nvcf-default (exit 1):\nError: API error 500: token=[redacted]\n",
    ]);
  });
});

describe("the limits", () => {
  const ACCOUNT = { ncaId: "nvcf-default", maxFunctionsAllowed: 7, maxTasksAllowed: 10 };

  test("apply: an API key with account_setup (its answer never kept), then admin accounts update as admin", () => {
    const r = run("limits", "apply", [
      { command: "api-key generate", stdout: JSON.stringify({ apiKey: "nvapi-generated-key-1" }) },
      { command: "admin accounts update", stdout: JSON.stringify({ account: ACCOUNT }) },
    ]);
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => c.args)).toEqual([
      ["init"],
      [
        "--json",
        "api-key",
        "generate",
        "--for",
        "function",
        "--scopes",
        "invoke_function,list_functions,queue_details,list_functions_details,account_setup",
        "--expires-in",
        "1h",
        "--description",
        "nvcf-pulumi account limits",
      ],
      [
        "--json",
        "admin",
        "accounts",
        "update",
        "--nca-id",
        "nvcf-default",
        "--max-functions",
        "7",
        "--max-tasks",
        "10",
        "--max-telemetries",
        "10",
        "--max-registry-credentials",
        "4",
      ],
    ]);
    expectCleared(r, [{}, {}, { NVCF_CLI_ENABLE_ADMIN: "1" }]);
    expect(JSON.parse(r.stdout)).toEqual({ account: ACCOUNT });
    expect(r.stderr).toBe("set the limits of account nvcf-default\n");
  });

  test("a failed update is mapped", () => {
    const r = run("limits", "apply", [
      { command: "admin accounts update", exit: 1, stderr: "Error: API error 403: forbidden\nUsage: ...\n" },
    ]);
    expect([r.code, r.stderr]).toEqual([
      1,
      "nvcf-cli admin accounts update failed for account nvcf-default (exit 1):\nError: API error 403: forbidden\n",
    ]);
  });

  test("delete runs no nvcf-cli: the account keeps its limits", () => {
    const r = run("limits", "delete", []);
    expect([r.code, r.stdout, r.stderr, r.calls]).toEqual([
      0,
      "",
      "the limits of account nvcf-default stay as they are (the account goes with the control plane)\n",
      [],
    ]);
  });
});

test("account-records.js: an unknown op is an error", () => {
  const js = accountScripts("credential")["NVCFP_RECORDS_JS"]!;
  for (const op of ["nope", "toString"]) {
    const r = spawnSync("node", ["-e", js, op], { input: "{}", encoding: "utf8" });
    expect([r.status, r.stderr]).toEqual([2, `account-records.js: unknown op ${op}\n`]);
  }
});
