/**
 * Account settings after install (config/accounts.ts, components/accounts.ts): the rules that refuse what the API
 * cannot change in an existing account, the component under Pulumi mocks (names, order, secrets, the api release's
 * install-only values, the `accountSettings` output, a refusal before anything is registered), and the program's
 * own scripts (components/scripts/account-*.sh and account-records.js after the nvcf-cli runner, as
 * `accountScripts` joins them) run with bash as the command provider runs them, against the stand-in nvcf-cli and
 * stand-in NVCF API; tests/unit/components/scripts/account.test.ts runs them against a fake nvcf-cli.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { accountScripts, credentialFingerprint } from "../../../components/accounts";
import { API_INSTALL_ONLY_VALUES } from "../../../components/controlPlane";
import type { ControlPlaneConfig } from "../../../config/schema";
import { controlPlaneSchema } from "../../../config/schema";
import {
  type DeployedAccountSettings,
  accountChangeRules,
  accountConfigRules,
  accountName,
  managedCredentials,
  parseCredentialOutput,
  parseLimitsOutput,
  readDeployedAccountSettings,
} from "../../../config/accounts";
import { mockGateway, render, sentinel } from "../support/harness";
import { devCredentialOverride } from "../fixtures/configs";
import { CLI_CONFIG_YAML, api, bootstrapAccount } from "../standins/nvcfApiStandIn";

jest.setTimeout(120_000);
// The example stacks' kubeconfig contexts (the program reads the ambient kubeconfig).
process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");

/** A control-plane config from partial input (schema defaults for the rest). */
function control(input: Record<string, unknown> = {}): ControlPlaneConfig {
  return controlPlaneSchema.parse({ plane: "control", ...input });
}

const CRED = {
  registryHostname: "registry.example.com",
  secretName: "example-containers",
  artifactTypes: ["CONTAINER"],
  username: "robot",
  description: "images",
  tags: ["team:ml"],
};

/** What `accountSettings` records for a config applied as it is (provisioned by `by`). */
function deployedOf(cfg: ControlPlaneConfig, by: Record<string, string> = {}): DeployedAccountSettings {
  return {
    accountName: accountName(cfg),
    limits: { ...cfg.accounts.limits },
    registryCredentials: Object.fromEntries(
      managedCredentials(cfg).map(({ credential: c }, i) => [
        c.registryHostname,
        {
          registryCredentialId: `00000000-0000-4000-8000-00000000000${i}`,
          provisionedBy: by[c.registryHostname] ?? "SYSTEM",
          secretName: c.secretName,
          username: c.username,
          artifactTypes: [...c.artifactTypes],
          description: c.description,
          tags: [...c.tags],
        },
      ]),
    ),
  };
}

describe("which credentials the program applies", () => {
  test("the bootstrap's: MODEL and RESOURCE credentials are not applied (NVIDIA's bootstrap drops them)", () => {
    const cfg = control();
    expect(cfg.accounts.registryCredentials.map((c) => c.registryHostname)).toEqual([
      "nvcr.io",
      "helm.ngc.nvidia.com",
      "api.ngc.nvidia.com",
    ]);
    expect(managedCredentials(cfg).map((m) => [m.index, m.credential.registryHostname])).toEqual([
      [0, "nvcr.io"],
      [1, "helm.ngc.nvidia.com"],
    ]);
  });
  test("the account: the chart's nvcf-default unless releaseValues name another", () => {
    expect(accountName(control())).toBe("nvcf-default");
    expect(
      accountName(
        control({ releaseValues: { api: { api: { accountBootstrap: { accountName: "acme-prod" } } } } }),
      ),
    ).toBe("acme-prod");
  });
});

describe("parsing what the commands print", () => {
  test("a credential: the API's record, no secret", () => {
    const out = JSON.stringify({
      registryCredential: {
        registryCredentialId: "0f0e0d0c-0000-4000-8000-000000000001",
        registryCredentialName: "credentials",
        registryHostname: "nvcr.io",
        artifactTypes: ["CONTAINER", "HELM"],
        provisionedBy: "USER",
      },
    });
    expect(parseCredentialOutput(out)).toEqual({
      registryCredentialId: "0f0e0d0c-0000-4000-8000-000000000001",
      provisionedBy: "USER",
      registryCredentialName: "credentials",
      artifactTypes: ["CONTAINER", "HELM"],
      description: "",
      tags: [],
    });
    expect(() => parseCredentialOutput("Error: nope")).toThrow(/printed no JSON/);
    expect(() => parseCredentialOutput("{}")).toThrow(/no registryCredential with an ID/);
  });
  test("the limits", () => {
    const out = JSON.stringify({
      account: {
        ncaId: "nvcf-default",
        maxFunctionsAllowed: 7,
        maxTasksAllowed: 10,
        maxTelemetriesAllowed: 3,
        maxRegistryCredentialsAllowed: 4,
      },
    });
    expect(parseLimitsOutput(out)).toEqual({
      ncaId: "nvcf-default",
      maxFunctions: 7,
      maxTasks: 10,
      maxTelemetries: 3,
      maxRegistryCreds: 4,
    });
    expect(() => parseLimitsOutput(JSON.stringify({ account: { ncaId: "x" } }))).toThrow(/four limits/);
  });
  test("a previous accountSettings output is read back; anything else is none", () => {
    const d = deployedOf(control());
    expect(readDeployedAccountSettings(JSON.parse(JSON.stringify(d)))).toEqual(d);
    for (const v of [undefined, null, "x", {}, { accountName: "a" }])
      expect(readDeployedAccountSettings(v)).toBeUndefined();
  });
});

test("a credential's fingerprint: 16 hex digits, changes with the key or user and with the stack's secret, holds neither", () => {
  const f = credentialFingerprint("salt-1", "robot", "key-1");
  expect(f).toMatch(/^[0-9a-f]{16}$/);
  expect(credentialFingerprint("salt-1", "robot", "key-1")).toBe(f);
  for (const other of [
    credentialFingerprint("salt-1", "robot", "key-2"),
    credentialFingerprint("salt-1", "robot2", "key-1"),
    credentialFingerprint("salt-2", "robot", "key-1"),
  ])
    expect(other).not.toBe(f);
  expect(f).not.toContain("key-1");
});

describe("rules on the config alone (what the API would refuse)", () => {
  const keys = (cfg: ControlPlaneConfig) => accountConfigRules(cfg).map((p) => p.key);
  test("the default and the example stacks' credentials pass", () => {
    expect(accountConfigRules(control())).toEqual([]);
    expect(accountConfigRules(control({ accounts: { registryCredentials: [CRED] } }))).toEqual([]);
  });
  test("two credentials for one hostname", () => {
    const cfg = control({
      accounts: { registryCredentials: [CRED, { ...CRED, secretName: "other", artifactTypes: ["HELM"] }] },
    });
    const p = accountConfigRules(cfg);
    expect(p).toEqual([
      {
        key: "nvcf:accounts.registryCredentials[1].registryHostname",
        expected: expect.stringContaining("names every credential it adds or updates `credentials`"),
        found: '"registry.example.com", also at accounts.registryCredentials[0]',
        fix: expect.stringContaining("merge the two entries into one"),
      },
    ]);
  });
  test("hostname syntax, the NGC user, tags, description length", () => {
    expect(
      keys(
        control({ accounts: { registryCredentials: [{ ...CRED, registryHostname: "registry:5000/x" }] } }),
      ),
    ).toEqual(["nvcf:accounts.registryCredentials[0].registryHostname"]);
    expect(
      keys(control({ accounts: { registryCredentials: [{ ...CRED, registryHostname: "nvcr.io" }] } })),
    ).toEqual(["nvcf:accounts.registryCredentials[0].username"]);
    expect(keys(control({ accounts: { registryCredentials: [{ ...CRED, tags: ["no spaces"] }] } }))).toEqual([
      "nvcf:accounts.registryCredentials[0].tags",
    ]);
    expect(
      keys(control({ accounts: { registryCredentials: [{ ...CRED, description: "x".repeat(257) }] } })),
    ).toEqual(["nvcf:accounts.registryCredentials[0].description"]);
  });
  test("more credentials than maxRegistryCreds (the API refuses the one beyond)", () => {
    const p = accountConfigRules(control({ accounts: { limits: { maxRegistryCreds: 1 } } }));
    expect(p).toEqual([
      {
        key: "nvcf:accounts.limits.maxRegistryCreds",
        expected: expect.stringContaining("at least 2"),
        found: "1",
        fix: "pulumi config set --path nvcf:accounts.limits.maxRegistryCreds 2",
      },
    ]);
  });
  test("entries that are not applied (MODEL, RESOURCE) are not checked", () => {
    const cfg = control({
      accounts: {
        registryCredentials: [CRED, { ...CRED, artifactTypes: ["MODEL"], registryHostname: "bad host" }],
      },
    });
    expect(accountConfigRules(cfg)).toEqual([]);
  });
});

describe("rules on a change against what is deployed", () => {
  const base = control({
    accounts: {
      registryCredentials: [
        CRED,
        { ...CRED, registryHostname: "charts.example.com", artifactTypes: ["HELM"] },
      ],
    },
  });
  const change = (mutate: (c: typeof CRED) => typeof CRED, by: Record<string, string> = {}) => {
    const cfg = control({
      accounts: {
        registryCredentials: [
          mutate({ ...CRED }),
          { ...CRED, registryHostname: "charts.example.com", artifactTypes: ["HELM"] },
        ],
      },
    });
    return accountChangeRules(cfg, deployedOf(base, by));
  };

  test("nothing deployed yet, or nothing changed: no problem", () => {
    expect(accountChangeRules(base, undefined)).toEqual([]);
    expect(accountChangeRules(base, deployedOf(base))).toEqual([]);
  });
  test("applied after install: the key and user, limits, added artifact types, new credentials, reordering", () => {
    expect(change((c) => ({ ...c, username: "robot2" }))).toEqual([]);
    expect(change((c) => ({ ...c, artifactTypes: ["CONTAINER", "HELM"] }))).toEqual([]);
    const more = control({
      accounts: {
        limits: { maxFunctions: 30, maxRegistryCreds: 20 },
        registryCredentials: [
          { ...CRED, registryHostname: "charts.example.com", artifactTypes: ["HELM"] },
          { ...CRED, registryHostname: "new.example.com" },
          CRED,
        ],
      },
    });
    expect(accountChangeRules(more, deployedOf(base))).toEqual([]);
  });
  test("a credential's name, description and tags are refused, naming the deployed value and the way back", () => {
    expect(change((c) => ({ ...c, secretName: "renamed" }))).toEqual([
      {
        key: "nvcf:accounts.registryCredentials[0].secretName",
        expected: expect.stringMatching(
          /^"example-containers", the name the credential was created with \(nvcf-cli cannot rename/,
        ),
        found: '"renamed"',
        fix: "pulumi config set --path 'nvcf:accounts.registryCredentials[0].secretName' example-containers",
      },
    ]);
    const d = change((c) => ({ ...c, description: "other" }));
    expect(d).toEqual([
      {
        key: "nvcf:accounts.registryCredentials[0].description",
        expected: expect.stringMatching(/^"images", the description the API holds/),
        found: '"other"',
        fix: "pulumi config set --path 'nvcf:accounts.registryCredentials[0].description' 'images'",
      },
    ]);
    // A credential added through nvcf-cli (USER) can also be deleted and added again.
    expect(change((c) => ({ ...c, tags: [] }), { "registry.example.com": "USER" })[0]).toEqual({
      key: "nvcf:accounts.registryCredentials[0].tags",
      expected: expect.stringContaining('["team:ml"], the tags the API holds'),
      found: "[]",
      fix: 'set nvcf:accounts.registryCredentials[0].tags back to ["team:ml"], or remove the entry, run pulumi up (nvcf-cli deletes the credential) and add it back changed',
    });
  });
  test("an artifact type cannot be removed", () => {
    expect(change((c) => ({ ...c, artifactTypes: ["HELM"] }))).toEqual([
      {
        key: "nvcf:accounts.registryCredentials[0].artifactTypes",
        expected: expect.stringContaining('["CONTAINER"] (the API only adds artifact types'),
        found: '["HELM"], without CONTAINER',
        fix: "add CONTAINER back to nvcf:accounts.registryCredentials[0].artifactTypes",
      },
    ]);
  });
  test("a credential the account was created with cannot leave the list (nor become MODEL); one added later can", () => {
    const only = control({
      accounts: {
        registryCredentials: [{ ...CRED, registryHostname: "charts.example.com", artifactTypes: ["HELM"] }],
      },
    });
    const p = accountChangeRules(only, deployedOf(base));
    expect(p).toEqual([
      {
        key: "nvcf:accounts.registryCredentials",
        expected: expect.stringContaining("the API never deletes a credential provisioned by the system"),
        found: 'no entry for "registry.example.com"',
        fix: expect.stringContaining(
          'add the entry back to nvcf:accounts.registryCredentials (deployed: {"registryHostname":"registry.example.com","secretName":"example-containers"',
        ),
      },
    ]);
    expect(accountChangeRules(only, deployedOf(base, { "registry.example.com": "USER" }))).toEqual([]);
    expect(change((c) => ({ ...c, artifactTypes: ["CONTAINER", "MODEL"] }))).toEqual([
      expect.objectContaining({
        key: "nvcf:accounts.registryCredentials[0].artifactTypes",
        found: '["CONTAINER","MODEL"]',
      }),
    ]);
  });
  test("the account's name cannot change", () => {
    const renamed = control({
      accounts: base.accounts,
      releaseValues: { api: { api: { accountBootstrap: { accountName: "acme-prod" } } } },
    });
    expect(accountChangeRules(renamed, deployedOf(base))).toEqual([
      {
        key: "nvcf:releaseValues.api.api.accountBootstrap.accountName",
        expected: expect.stringContaining(
          '"nvcf-default", the account this control plane was installed with',
        ),
        found: '"acme-prod"',
        fix: "pulumi config rm --path nvcf:releaseValues.api.api.accountBootstrap.accountName",
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The component under Pulumi mocks
// ---------------------------------------------------------------------------------------------------------

const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };

describe("AccountSettings in the dev stack (mocks)", () => {
  let r: Awaited<ReturnType<typeof render>>;
  beforeAll(async () => {
    r = await render({ stack: "dev", gateways: GATEWAYS });
    expect(r.error).toBeUndefined();
  });
  const find = (name: string) => r.resources.find((x) => x.name === name)!;

  test("one command for the limits, one per credential by hostname, after the api release and the routes", () => {
    const children = r.resources.filter((x) => x.parent === "nvcf-account").map((x) => [x.type, x.name]);
    expect(children).toEqual([
      ["command:local:Command", "nvcf-account-limits"],
      ["random:index/randomPassword:RandomPassword", "nvcf-account-fingerprint-key"],
      ["command:local:Command", "nvcf-account-credential-registry.nvcf.test"],
    ]);
    expect(find("nvcf-account")).toMatchObject({ type: "nvcf:index:AccountSettings", parent: "nvcf" });
    expect(find("nvcf-account-limits").dependsOn.sort()).toEqual(
      ["nvcf-admin-issuer-proxy", "nvcf-api", "nvcf-api-keys", "nvcf-ingress", "nvcf-openbao-server"].sort(),
    );
    expect(find("nvcf-account-credential-registry.nvcf.test").dependsOn).toEqual(["nvcf-account-limits"]);
    const guard = r.resources.find(
      (x) => x.name === "nvcf-teardown-guard" && x.type === "command:local:Command",
    )!;
    expect(guard.dependsOn).toContain("nvcf-account");
  });

  test("the credential's key is only a secret environment variable; commands name no secret", () => {
    const cred = find("nvcf-account-credential-registry.nvcf.test").inputs as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(cred["create"]).toBe('eval "$NVCFP_APPLY_SCRIPT"');
    expect(cred["update"]).toBe('eval "$NVCFP_APPLY_SCRIPT"');
    expect(cred["delete"]).toBe('eval "$NVCFP_DELETE_SCRIPT"');
    expect(cred["interpreter"]).toEqual(["/bin/bash", "-c"]);
    const env = cred["environment"] as Record<string, string>;
    expect(env).toMatchObject({
      NVCFP_REGISTRY_HOST: "registry.nvcf.test",
      NVCFP_SECRET_NAME: "nvcr-containers",
      NVCFP_ARTIFACT_TYPES: "CONTAINER",
      NVCFP_REGISTRY_USER: "robot",
      NVCFP_REGISTRY_PASSWORD: "[secret]",
      NVCFP_ACCOUNT: "nvcf-default",
      ...accountScripts("credential"),
    });
    expect(JSON.stringify(r.resources.map((x) => x.inputs))).not.toContain(sentinel("registryKey"));
    // A plain fingerprint beside it, so that a preview shows the key changed (keyed by the stack's random secret).
    expect(env["NVCFP_KEY_FINGERPRINT"]).toBe(
      credentialFingerprint("mock-random-password-0123456789", "robot", sentinel("registryKey")),
    );
    const limits = find("nvcf-account-limits").inputs as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(limits["environment"]).toMatchObject({
      NVCFP_MAX_FUNCTIONS: "10",
      NVCFP_MAX_TASKS: "10",
      NVCFP_MAX_TELEMETRIES: "10",
      NVCFP_MAX_REGISTRY_CREDS: "10",
      ...accountScripts("limits"),
    });
  });

  test("the api release installs with the bootstrap's values and ignores later changes to them; no other release does", () => {
    const releases = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release");
    for (const rel of releases) {
      const want =
        rel.name === "nvcf-api"
          ? ["disableOpenapiValidation", ...API_INSTALL_ONLY_VALUES.map((p) => `values.${p}`)]
          : ["disableOpenapiValidation"];
      expect([rel.name, rel.ignoreChanges]).toEqual([rel.name, want]);
    }
    expect(API_INSTALL_ONLY_VALUES).toEqual([
      "api.accountBootstrap.registryCredentials",
      "api.accountBootstrap.limits",
    ]);
    // The install still gets them (the hook creates the account with them).
    const apiRelease = releases.find((x) => x.name === "nvcf-api")!.inputs as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(apiRelease["values"].api.accountBootstrap.limits).toEqual({
      maxFunctions: 10,
      maxTasks: 10,
      maxTelemetries: 10,
      maxRegistryCreds: 10,
    });
    expect(apiRelease["values"].api.accountBootstrap.registryCredentials[0].secret.value).toBe("[secret]");
  });

  test("the accountSettings output: what was applied, plain, no secret", () => {
    expect(r.secretOutputs).not.toContain("accountSettings");
    expect(r.outputs["accountSettings"]).toEqual({
      accountName: "nvcf-default",
      limits: { maxFunctions: 10, maxTasks: 10, maxTelemetries: 10, maxRegistryCreds: 10 },
      registryCredentials: {
        "registry.nvcf.test": {
          registryCredentialId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          provisionedBy: "SYSTEM",
          secretName: "nvcr-containers",
          username: "robot",
          artifactTypes: ["CONTAINER"],
          description: "",
          tags: [],
        },
      },
    });
    expect(JSON.stringify(r.outputs["accountSettings"])).not.toContain("SENTINEL");
  });

  test("the default credentials: one command each for NGC containers and Helm, none for the models entry", async () => {
    const d = await render({ stack: "dev", gateways: GATEWAYS, overrides: { accounts: undefined } });
    expect(d.error).toBeUndefined();
    expect(d.resources.filter((x) => x.parent === "nvcf-account").map((x) => x.name)).toEqual([
      "nvcf-account-limits",
      "nvcf-account-fingerprint-key",
      "nvcf-account-credential-nvcr.io",
      "nvcf-account-credential-helm.ngc.nvidia.com",
    ]);
  });

  test("a change the API cannot make to the deployed account is refused before any resource is registered", async () => {
    const deployed = r.outputs["accountSettings"] as DeployedAccountSettings;
    const edited = await render({
      stack: "dev",
      gateways: GATEWAYS,
      previousOutputs: { accountSettings: deployed },
      overrides: {
        accounts: devCredentialOverride({ description: "changed" }),
      },
    });
    expect(edited.error?.name).toBe("ConfigError");
    expect(edited.error?.message).toBe(
      'stack "dev" has 1 config problem; nothing was changed:\n' +
        "  - nvcf:accounts.registryCredentials[0].description: expected \"\", the description the API holds (nvcf-cli cannot change a credential's description after it is created), found \"changed\". Fix: pulumi config set --path 'nvcf:accounts.registryCredentials[0].description' ''",
    );
    expect(edited.resources.map((x) => x.type)).toEqual(["pulumi:pulumi:StackReference"]);
    // The same change of the limits and the key is applied, not refused.
    const ok = await render({
      stack: "dev",
      gateways: GATEWAYS,
      previousOutputs: { accountSettings: deployed },
      overrides: {
        accounts: {
          limits: { maxFunctions: 7 },
          registryCredentials: [
            {
              registryHostname: "registry.nvcf.test",
              secretName: "nvcr-containers",
              artifactTypes: ["CONTAINER", "HELM"],
              username: "robot2",
            },
          ],
        },
      },
    });
    expect(ok.error).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// The script against the stand-in nvcf-cli and the stand-in NVCF API
// ---------------------------------------------------------------------------------------------------------

/** As the dev stacks name it (`nvcf:nvcfCli.path`): relative to the project directory, where the script runs. */
const CLI = "tests/bin/nvcf-cli";
const ROOT = path.resolve(__dirname, "../../..");
const KEY1 = "old-key-for-the-stand-in-81c7";
const KEY2 = "new-key-for-the-stand-in-3d02";
const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("the account scripts against the stand-in nvcf-cli and NVCF API", () => {
  let dir: string;
  let apiDir: string;
  let tmp: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-acct-script-"));
    apiDir = path.join(dir, "api");
    tmp = path.join(dir, "tmp");
    fs.mkdirSync(tmp);
    // The account as the bootstrap hook creates it: one SYSTEM credential.
    const res = bootstrapAccount(apiDir, {
      registryHostname: "registry.nvcf.test",
      secretName: "nvcr-containers",
      user: "robot",
      key: KEY1,
    });
    expect(res.status).toBe(200);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs a script as the command provider does (`/bin/bash -c <create or delete>` with the command's environment). */
  function run(
    kind: "credential" | "limits",
    action: "apply" | "delete",
    extra: Record<string, string> = {},
  ) {
    const env = {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      TMPDIR: tmp,
      NVCF_CLI_API_DIR: apiDir,
      // The operator's own settings never reach the CLI (a wrong token here would fail every call).
      NVCF_TOKEN: "operator-token-that-must-not-be-used",
      API_HOST: "wrong.example.com",
      ...accountScripts(kind),
      NVCFP_CLI: CLI,
      NVCFP_CLI_CONFIG_YAML: CLI_CONFIG_YAML,
      NVCFP_ICMS_URL: "http://127.0.0.1",
      NVCFP_ACCOUNT: "nvcf-default",
      ...(kind === "credential"
        ? {
            NVCFP_REGISTRY_HOST: "registry.nvcf.test",
            NVCFP_SECRET_NAME: "nvcr-containers",
            NVCFP_ARTIFACT_TYPES: "CONTAINER",
            NVCFP_REGISTRY_USER: "robot",
            NVCFP_REGISTRY_PASSWORD: KEY1,
            NVCFP_DESCRIPTION: "",
            NVCFP_TAGS: "[]",
          }
        : {
            NVCFP_MAX_FUNCTIONS: "10",
            NVCFP_MAX_TASKS: "10",
            NVCFP_MAX_TELEMETRIES: "10",
            NVCFP_MAX_REGISTRY_CREDS: "10",
          }),
      ...extra,
    };
    const r = spawnSync(
      "/bin/bash",
      ["-c", action === "apply" ? 'eval "$NVCFP_APPLY_SCRIPT"' : 'eval "$NVCFP_DELETE_SCRIPT"'],
      // Standard input from /dev/null, as the provider runs it (bash reads ~/.bashrc when it is a socket).
      { env, cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    // The private HOME and everything in it are gone.
    expect(fs.readdirSync(tmp)).toEqual([]);
    for (const secret of [KEY1, KEY2, b64(`robot:${KEY1}`), b64(`robot:${KEY2}`)])
      expect(`${r.stdout}\n${r.stderr}`).not.toContain(secret);
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/nvapi-stand-in-/);
    return r;
  }
  const account = () => api.read(apiDir).accounts[0];
  const cred = (host: string) => account().registryCredentials.find((c) => c.registryHostname === host)!;

  test("create adopts the bootstrap's credential; update sends the new key", () => {
    const created = run("credential", "apply");
    expect(created.status).toBe(0);
    const out = parseCredentialOutput(created.stdout);
    expect(out).toMatchObject({
      provisionedBy: "SYSTEM",
      registryCredentialId: cred("registry.nvcf.test").registryCredentialId,
    });
    expect(created.stderr).toMatch(
      /^updated registry credential [0-9a-f-]{36} \(registry\.nvcf\.test\) of account nvcf-default$/m,
    );
    const updated = run("credential", "apply", {
      NVCFP_REGISTRY_PASSWORD: KEY2,
      PULUMI_COMMAND_STDOUT: created.stdout,
    });
    expect(updated.status).toBe(0);
    expect(cred("registry.nvcf.test").secretSha256).toBe(api.sha256(b64(`robot:${KEY2}`)));
    expect(account().registryCredentials).toHaveLength(1);
  });

  test("artifact types the config adds are added; a credential with none in the account is added (USER) and deleted", () => {
    const r = run("credential", "apply", { NVCFP_ARTIFACT_TYPES: "CONTAINER,HELM" });
    expect(r.status).toBe(0);
    expect(cred("registry.nvcf.test").artifactTypes).toEqual(["CONTAINER", "HELM"]);
    const added = run("credential", "apply", {
      NVCFP_REGISTRY_HOST: "charts.example.com",
      NVCFP_ARTIFACT_TYPES: "HELM",
      NVCFP_DESCRIPTION: "charts",
      NVCFP_TAGS: '["team:ml"]',
      NVCFP_REGISTRY_PASSWORD: KEY2,
    });
    expect(added.status).toBe(0);
    expect(cred("charts.example.com")).toMatchObject({
      provisionedBy: "USER",
      description: "charts",
      tags: ["team:ml"],
    });
    const gone = run("credential", "delete", {
      NVCFP_REGISTRY_HOST: "charts.example.com",
      PULUMI_COMMAND_STDOUT: added.stdout,
    });
    expect(gone.status).toBe(0);
    expect(account().registryCredentials.map((c) => c.registryHostname)).toEqual(["registry.nvcf.test"]);
    // The bootstrap's own credential is kept (the API refuses to delete it).
    const kept = run("credential", "delete", { PULUMI_COMMAND_STDOUT: r.stdout });
    expect(kept.status).toBe(0);
    expect(kept.stderr).toMatch(
      /kept registry credential .* the API does not delete a credential provisioned by the system/,
    );
    expect(account().registryCredentials).toHaveLength(1);
  });

  test("limits: an API key with account_setup, then admin accounts update; delete leaves them", () => {
    const r = run("limits", "apply", { NVCFP_MAX_FUNCTIONS: "7", NVCFP_MAX_REGISTRY_CREDS: "4" });
    expect(r.status).toBe(0);
    expect(parseLimitsOutput(r.stdout)).toEqual({
      ncaId: "nvcf-default",
      maxFunctions: 7,
      maxTasks: 10,
      maxTelemetries: 10,
      maxRegistryCreds: 4,
    });
    expect(account().maxFunctionsAllowed).toBe(7);
    expect(run("limits", "delete").stderr).toMatch(/limits of account nvcf-default stay as they are/);
    expect(account().maxFunctionsAllowed).toBe(7);
  });

  test("failures name the CLI step and the API's answer, never the key", () => {
    const ngc = run("credential", "apply", { NVCFP_REGISTRY_HOST: "nvcr.io", NVCFP_REGISTRY_PASSWORD: KEY2 });
    expect(ngc.status).toBe(1);
    expect(ngc.stderr).toBe(
      "nvcf-cli registry-credential add failed for account nvcf-default (exit 1):\n" +
        'Error: failed to add registry credential: API error 400: {"detail":"Invalid request: Missing $oauthtoken username in NGC registry credential"}\n',
    );
    const extra = run("credential", "apply", { NVCFP_ARTIFACT_TYPES: "HELM" });
    expect(extra.status).toBe(1);
    expect(extra.stderr).toMatch(
      /has artifact types CONTAINER that nvcf:accounts.registryCredentials does not list/,
    );
    const noGateway = run("limits", "apply", { NVCFP_ICMS_URL: "" });
    expect(noGateway.stderr).toMatch(/the control plane's gateway address is empty/);
    const noAccount = run("limits", "apply", { NVCFP_ACCOUNT: "acme-prod" });
    expect(noAccount.stderr).toMatch(
      /admin accounts update failed for account acme-prod \(exit 1\):\nError: failed to update account: API error 404: \{"detail":"Account with ncaId 'acme-prod' not found"\}/,
    );
  });
});
