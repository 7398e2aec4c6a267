/**
 * The stand-in nvcf-cli's registry-credential, admin accounts and api-key generate commands
 * (tests/bin/nvcf-cli-accounts.js) and the stand-in NVCF API behind them (tests/bin/nvcf-api.js), including the steps
 * of nvcf-api's account-bootstrap hook that tests/bin/account-bootstrap runs: flags, arguments, outputs, errors and exit
 * codes as NVIDIA's CLI has them (src/clis/nvcf-cli/cmd/registry.go, admin.go, apikey.go), answers as nvcf-core gives
 * them.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CLI_CONFIG_YAML, api, bootstrapAccount } from "./nvcfApiStandIn";

jest.setTimeout(60_000);

const CLI = path.resolve(__dirname, "../../bin/nvcf-cli");
const KEY = "stand-in-registry-key-5b1e";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const roots: string[] = [];
afterAll(() => {
  for (const d of roots) fs.rmSync(d, { recursive: true, force: true });
});

/** A temp HOME, API dir and the program's CLI config; `cli` runs the stand-in with them (no inherited NVCF_*). */
function sandbox() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cli-accounts-"));
  roots.push(dir);
  const home = path.join(dir, "home");
  const apiDir = path.join(dir, "api");
  fs.mkdirSync(home);
  const config = path.join(dir, "cli.yaml");
  fs.writeFileSync(config, CLI_CONFIG_YAML);
  const env = { HOME: home, NVCF_CLI_API_DIR: apiDir, NO_COLOR: "1" };
  const cli = (args: string[], extra: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) =>
      execFile(
        CLI,
        ["--config", config, ...args],
        {
          env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env, ...extra },
          cwd: dir,
          timeout: 30_000,
        },
        (err, stdout, stderr) =>
          resolve({
            code: err ? (typeof err.code === "number" ? err.code : -1) : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          }),
      ),
    );
  return { dir, home, apiDir, config, cli };
}

/** The account as the bootstrap creates it (one SYSTEM credential for registry.example.com). */
const bootstrap = (apiDir: string) =>
  bootstrapAccount(apiDir, {
    registryHostname: "registry.example.com",
    secretName: "example-containers",
    user: "robot",
    key: KEY,
  });

async function initialised() {
  const sb = sandbox();
  expect(bootstrap(sb.apiDir).status).toBe(200);
  expect((await sb.cli(["init"])).code).toBe(0);
  return sb;
}

/** The line cobra prints for the error (the transport's log lines come before it). */
const errorLine = (r: Run) => r.stderr.split("\n").find((l) => l.startsWith("Error: "));

const listJson = async (sb: ReturnType<typeof sandbox>) => {
  const r = await sb.cli(["--json", "registry-credential", "list"]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).registryCredentials as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
};

describe("command line (cobra's rules)", () => {
  test("every error exits 1 with 'Error: <message>' and the command's usage; a group prints its help", async () => {
    const sb = await initialised();
    const cases: [string[], string][] = [
      [
        ["registry-credential", "add", "--hostname", "x.example.com"],
        'required flag(s) "artifact-type" not set',
      ],
      [["registry-credential", "add", "--artifact-type", "CONTAINER"], 'required flag(s) "hostname" not set'],
      [["registry-credential", "get"], "accepts 1 arg(s), received 0"],
      [["registry-credential", "update", "a", "b"], "accepts 1 arg(s), received 2"],
      [["registry-credential", "list", "--bogus"], "unknown flag: --bogus"],
      [["registry-credential", "add", "--hostname"], "flag needs an argument: --hostname"],
      [
        ["registry-credential", "update", "x"],
        "no updates specified. Use --username/--password or --artifact-type flags",
      ],
      [
        ["registry-credential", "update", "x", "--username", "u"],
        "both username and password must be provided together when updating credentials",
      ],
      [
        [
          "registry-credential",
          "add",
          "--hostname",
          "h.example.com",
          "--artifact-type",
          "IMAGE",
          "--secret",
          "eDp5",
        ],
        "invalid artifact type 'IMAGE'. Valid types: CONTAINER, HELM, MODEL, RESOURCE",
      ],
      [
        [
          "registry-credential",
          "add",
          "--hostname",
          "h.example.com",
          "--artifact-type",
          "HELM",
          "--secret",
          "eDp5",
          "--username",
          "u",
        ],
        "cannot use --secret with --username/--password. Choose one authentication method",
      ],
      [
        ["registry-credential", "add", "--hostname", "h.example.com", "--artifact-type", "HELM"],
        "must provide either --secret OR both --username and --password",
      ],
    ];
    for (const [args, message] of cases) {
      const r = await sb.cli(args);
      expect({ args, code: r.code, first: r.stderr.split("\n")[0] }).toEqual({
        args,
        code: 1,
        first: `Error: ${message}`,
      });
      expect(r.stderr).toMatch(/\nUsage:\n {2}nvcf-cli registry-credential \S+/);
      expect(r.stderr).toMatch(/Global Flags:\n.*--config string/);
    }
    const group = await sb.cli(["registry-credential"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/Available Commands:\n {2}list\s+List all registry credentials/);
    const notEmulated = await sb.cli(["registry-credential", "list-recognized"]);
    expect(notEmulated).toMatchObject({ code: 1 });
    expect(notEmulated.stderr).toMatch(
      /^Error: "registry-credential list-recognized" is not emulated by the nvcf-cli stand-in/,
    );
  });

  test("admin is unknown without NVCF_CLI_ENABLE_ADMIN; its errors print no usage", async () => {
    const sb = await initialised();
    const hidden = await sb.cli(["admin", "accounts", "list"]);
    expect(hidden).toEqual({
      code: 1,
      stdout: "",
      stderr: `Error: unknown command "admin" for "nvcf-cli"\nRun 'nvcf-cli --help' for usage.\n`,
    });
    const admin = (args: string[]) => sb.cli(args, { NVCF_CLI_ENABLE_ADMIN: "1" });
    for (const [args, message] of [
      [["admin", "accounts", "update"], 'required flag(s) "nca-id" not set'],
      [
        ["admin", "accounts", "update", "--nca-id", "nvcf-default"],
        "at least one update field must be provided (--name, --max-functions, --max-tasks, --max-telemetries, --max-registry-credentials)",
      ],
      [
        ["admin", "accounts", "update", "--nca-id", "nvcf-default", "--max-functions", "-2"],
        "--max-functions must be greater than or equal to 0",
      ],
      [
        ["admin", "accounts", "update", "--nca-id", "nvcf-default", "--max-telemetries", "51"],
        "max-telemetries cannot exceed 50",
      ],
      [
        ["admin", "accounts", "update", "--nca-id", "nvcf-default", "--max-tasks", "ten"],
        'invalid argument "ten" for "--max-tasks" flag: strconv.ParseInt: parsing "ten": invalid syntax',
      ],
    ] as [string[], string][]) {
      const r = await admin(args);
      expect({ args, r }).toEqual({ args, r: { code: 1, stdout: "", stderr: `Error: ${message}\n` } });
    }
  });
});

describe("tokens", () => {
  test("without init: the CLI's missing-credentials error; admin wants the token, not an API key", async () => {
    const sb = sandbox();
    bootstrap(sb.apiDir);
    const r = await sb.cli(["registry-credential", "list"]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      "Error: failed to load configuration: missing authentication credentials, unset: NVCF_API_KEY or NVCF_TOKEN, NVCF_OAUTH2_CLIENT_ID, NVCF_OAUTH2_CLIENT_SECRET, NVCF_OAUTH2_TOKEN_ENDPOINT",
    );
    const a = await sb.cli(["admin", "accounts", "list"], {
      NVCF_CLI_ENABLE_ADMIN: "1",
      NVCF_API_KEY: "nvapi-x",
    });
    expect(a.stderr).toBe(
      "Error: admin commands require NVCF_TOKEN with the appropriate admin scope; NVCF_API_KEY is not accepted\n",
    );
    // NVCF_TOKEN from the environment is a token as good as init's.
    expect((await sb.cli(["--json", "registry-credential", "list"], { NVCF_TOKEN: "t" })).code).toBe(0);
  });
  test("the transport logs which token it uses (standard error), not with --json", async () => {
    const sb = await initialised();
    const r = await sb.cli(["registry-credential", "list"]);
    expect(r.stderr).toMatch(
      /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d DEBUG: Using FUNCTION TOKEN \(function operation\) for GET \/v2\/nvcf\/registry-credentials - expects scope: register_function, deploy_function, delete_function, update_function, etc\.$/m,
    );
    expect((await sb.cli(["--json", "registry-credential", "list"])).stderr).toBe("");
    const u = await sb.cli(["admin", "accounts", "update", "--nca-id", "nvcf-default", "--max-tasks", "3"], {
      NVCF_CLI_ENABLE_ADMIN: "1",
    });
    expect(u.stderr).toMatch(
      /DEBUG: Using ADMIN JWT \(account management operation\) for PATCH \/v2\/nvcf\/accounts\/nvcf-default - expects scope: account_setup/,
    );
  });
});

describe("registry-credential", () => {
  test("list: the table and --json (Go's field order; no secret)", async () => {
    const sb = await initialised();
    const r = await sb.cli(["registry-credential", "list"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("[INFO] Listing registry credentials...");
    expect(lines[1]).toBe("[SUCCESS] Found 1 registry credential(s):");
    expect(lines[3]).toMatch(/^ID {35}Registry {23}Hostname {18}Artifact Types  Provisioned By$/);
    expect(lines[5]).toMatch(
      /^[0-9a-f-]{36} registry\.example\.com {11}registry\.example\.com {6}CONTAINER {7}SYSTEM {4}$/,
    );
    const list = await listJson(sb);
    expect(Object.keys(list[0])).toEqual([
      "registryCredentialId",
      "ncaId",
      "registryCredentialName",
      "registryName",
      "registryHostname",
      "artifactTypes",
      "provisionedBy",
      "lastUpdatedAt",
      "createdAt",
    ]);
    expect(list[0]).toMatchObject({
      registryCredentialName: "example-containers",
      provisionedBy: "SYSTEM",
      ncaId: "nvcf-default",
    });
    expect(JSON.stringify(list)).not.toContain(b64(`robot:${KEY}`));
    expect(await listJson(sb)).toHaveLength(1);
    const filtered = await sb.cli([
      "--json",
      "registry-credential",
      "list",
      "--provisioned-by",
      "user",
      "--artifact-type",
      "CONTAINER,HELM",
    ]);
    expect(JSON.parse(filtered.stdout)).toEqual({ registryCredentials: [] });
    // Colour unless NO_COLOR or TERM=dumb, as the real logger.
    expect((await sb.cli(["registry-credential", "list"], { NO_COLOR: "" })).stdout).toMatch(
      /^\x1b\[34m\[INFO\]\x1b\[0m Listing/,
    );
  });

  test("add, get, update (renames to 'credentials', adds types), delete; the API's rules", async () => {
    const sb = await initialised();
    const add = await sb.cli([
      "registry-credential",
      "add",
      "--hostname",
      "nvcr.io",
      "--username",
      "$oauthtoken",
      "--password",
      KEY,
      "--artifact-type",
      "CONTAINER",
      "--artifact-type",
      "helm",
      "--description",
      "NGC",
      "--tag",
      "team:ml",
    ]);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(
      /^\[INFO\] Adding registry credential for hostname 'nvcr.io'...\n\[SUCCESS\] Registry credential added successfully!\n\nCredential ID: [0-9a-f-]{36}\nRegistry Name: nvcr.io\nHostname: nvcr.io\nArtifact Types: CONTAINER, HELM\nProvisioned By: USER\nCreated At: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\nDescription: NGC\nTags: team:ml\n$/,
    );
    const id = /Credential ID: (\S+)/.exec(add.stdout)![1];
    expect(id).toMatch(UUID);
    const store = api.read(sb.apiDir).accounts[0].registryCredentials;
    expect(store.find((c: { registryCredentialId: string }) => c.registryCredentialId === id)).toMatchObject({
      registryCredentialName: "credentials",
      secretSha256: api.sha256(b64(`$oauthtoken:${KEY}`)),
    });
    // The same hostname and name again: 409 from the API.
    const again = await sb.cli([
      "registry-credential",
      "add",
      "--hostname",
      "nvcr.io",
      "--secret",
      b64(`$oauthtoken:${KEY}`),
      "--artifact-type",
      "HELM",
    ]);
    expect(again.code).toBe(1);
    expect(errorLine(again)).toBe(
      `Error: failed to add registry credential: API error 409: {"detail":"Account 'nvcf-default': Registry credential 'credentials' for hostname 'nvcr.io' already exists in the account - Registry credentials must have unique hostname and credential name within an account"}`,
    );
    const get = await sb.cli(["--json", "registry-credential", "get", id]);
    expect(JSON.parse(get.stdout).registryCredential).toMatchObject({
      registryCredentialId: id,
      description: "NGC",
      tags: ["team:ml"],
    });
    const sys = (await listJson(sb)).find((c) => c["registryHostname"] === "registry.example.com")!;
    const upd = await sb.cli([
      "--json",
      "registry-credential",
      "update",
      sys["registryCredentialId"],
      "--username",
      "robot",
      "--password",
      "k2",
      "--artifact-type",
      "HELM",
    ]);
    expect(upd.code).toBe(0);
    expect(JSON.parse(upd.stdout).registryCredential).toMatchObject({
      registryCredentialName: "credentials",
      artifactTypes: ["CONTAINER", "HELM"],
      provisionedBy: "SYSTEM",
    });
    const refused = await sb.cli(["registry-credential", "delete", sys["registryCredentialId"], "--force"]);
    expect(errorLine(refused)).toBe(
      'Error: failed to delete registry credential: API error 400: {"detail":"Invalid request: Cannot delete system provisioned registry credential"}',
    );
    const del = await sb.cli(["--json", "registry-credential", "delete", id, "--force"]);
    expect(JSON.parse(del.stdout)).toEqual({ status: "deleted", registryCredentialId: id });
    const missing = await sb.cli(["registry-credential", "get", id]);
    expect(errorLine(missing)).toBe(
      `Error: failed to get registry credential: API error 404: {"detail":"Registry Credential '${id}': Not found in account 'nvcf-default'"}`,
    );
    expect((await sb.cli(["registry-credential", "delete", id])).stderr).toMatch(
      /confirmation prompt is not emulated/,
    );
  });

  test("the secret's format and the account's credential limit, as the API checks them", async () => {
    const sb = await initialised();
    const add = (host: string, secret: string) =>
      sb.cli([
        "registry-credential",
        "add",
        "--hostname",
        host,
        "--secret",
        secret,
        "--artifact-type",
        "CONTAINER",
      ]);
    for (const secret of [b64("no-colon"), b64("a:b:c"), b64("user:"), "%%%"]) {
      const r = await add("a.example.com", secret);
      expect(errorLine(r)).toBe(
        'Error: failed to add registry credential: API error 400: {"detail":"Invalid request: Registry credential secret must be base64 encoded username:password format"}',
      );
    }
    expect((await add("nvcr.io", b64("robot:k"))).stderr).toMatch(
      /Missing \$oauthtoken username in NGC registry credential/,
    );
    expect((await add("localhost", b64("robot:k"))).stderr).toMatch(
      /Invalid hostname: Must conform to regex/,
    );
    const u = await sb.cli(
      ["admin", "accounts", "update", "--nca-id", "nvcf-default", "--max-registry-credentials", "1"],
      { NVCF_CLI_ENABLE_ADMIN: "1" },
    );
    expect(u.code).toBe(0);
    expect(errorLine(await add("b.example.com", b64("robot:k")))).toBe(
      `Error: failed to add registry credential: API error 400: {"detail":"Account 'nvcf-default': Cannot add registry credential - maximum allowed registry credentials (1) exceeded. Current count: 1"}`,
    );
  });

  test("an account for the token's client must exist (the real API: 404 Unknown client_id)", async () => {
    const sb = sandbox();
    expect((await sb.cli(["init"])).code).toBe(0);
    const r = await sb.cli(["registry-credential", "list"]);
    expect(r.stderr).toMatch(
      /^Error: failed to list registry credentials: API error 404: \{"detail":"Unknown client_id 'ncp' when finding account id"\}$/m,
    );
    const noDir = await sb.cli(["registry-credential", "list"], { NVCF_CLI_API_DIR: "" });
    expect(noDir.stderr).toMatch(/^Error: NVCF_CLI_API_DIR is not set: this nvcf-cli is the test stand-in/);
  });
});

describe("admin accounts and api-key generate", () => {
  test("list and update: human lines and --json", async () => {
    const sb = await initialised();
    const env = { NVCF_CLI_ENABLE_ADMIN: "1" };
    const u = await sb.cli(
      [
        "admin",
        "accounts",
        "update",
        "--nca-id",
        "nvcf-default",
        "--max-functions",
        "20",
        "--max-registry-credentials",
        "12",
      ],
      env,
    );
    expect(u.stdout).toBe(
      "Updating account nvcf-default...\nAccount updated successfully!\nAccount ID: nvcf-default\nName: nvcf-default\nMax Functions: 20\nMax Tasks: 10\nMax Telemetries: 10\nMax Registry Credentials: 12\nAdmin Client IDs: ncp\n",
    );
    const j = await sb.cli(
      ["--json", "admin", "accounts", "update", "--nca-id", "nvcf-default", "--max-tasks", "0"],
      env,
    );
    expect(JSON.parse(j.stdout)).toEqual({
      account: {
        ncaId: "nvcf-default",
        adminClientIds: ["ncp"],
        name: "nvcf-default",
        maxFunctionsAllowed: 20,
        maxTasksAllowed: 0,
        maxTelemetriesAllowed: 10,
        maxRegistryCredentialsAllowed: 12,
      },
    });
    const list = await sb.cli(["admin", "accounts", "list"], env);
    expect(list.stdout).toMatch(/^Listing all NVIDIA Cloud Accounts...\n\nAccount ID {11}Name/);
    expect(list.stdout).toMatch(
      /\nnvcf-default {9}nvcf-default {19}20 {12}0 {10}10 {14}12 {16}ncp {12}\n\nTotal: 1 accounts\n$/,
    );
    const other = await sb.cli(["admin", "accounts", "update", "--nca-id", "acme", "--max-tasks", "1"], env);
    expect(other.code).toBe(1);
    expect(errorLine(other)).toBe(
      `Error: failed to update account: API error 404: {"detail":"Account with ncaId 'acme' not found"}`,
    );
  });

  test("api-key generate stores the key in the state and prints it (only there)", async () => {
    const sb = await initialised();
    const r = await sb.cli([
      "api-key",
      "generate",
      "--for",
      "function",
      "--scopes",
      "account_setup,list_functions",
      "--expires-in",
      "2h",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^\[INFO\] Generating API key...\n\[INFO\] Description: Generated by nvcf-cli\n\[INFO\] Expires: .* UTC\n\[INFO\] Generating function API key...\n\[SUCCESS\] API key\(s\) generated successfully!\nfunction key: nvapi-stand-in-[0-9a-f]{48}\nExpires: .* UTC\n$/,
    );
    const key = /function key: (\S+)/.exec(r.stdout)![1];
    const state = JSON.parse(fs.readFileSync(path.join(sb.home, ".nvcf-cli.cli.state"), "utf8"));
    expect(state.apiKey).toBe(key);
    const j = await sb.cli(["--json", "api-key", "generate", "--for", "function"]);
    expect(JSON.parse(j.stdout)).toMatchObject({
      description: "Generated by nvcf-cli",
      keys: [
        {
          service: "function",
          scopes: ["invoke_function", "list_functions", "queue_details", "list_functions_details"],
          validated: false,
        },
      ],
    });
    expect((await sb.cli(["api-key", "generate", "--scopes", "x"])).stderr.split("\n")[0]).toBe(
      "Error: --scopes requires --for to specify which service (function or task)",
    );
    expect((await sb.cli(["api-key", "generate", "--expires-in", "3x"])).stderr.split("\n")[0]).toBe(
      `Error: invalid expiration duration '3x': time: invalid duration "3x"`,
    );
  });
});

describe("the stand-in API behind them", () => {
  const env = (over: Record<string, string> = {}) => ({
    API_SERVICE_NAME: "api",
    API_NAMESPACE: "nvcf",
    NVCF_ACCOUNT_NAME: "nvcf-default",
    NVCF_ADMIN_CLIENT_ID: "ncp",
    NVCF_REGISTRY_CREDENTIALS_JSON: JSON.stringify([
      {
        registryHostname: "registry.example.com",
        secret: { name: "c", value: b64("robot:k") },
        artifactTypes: ["CONTAINER"],
      },
      {
        registryHostname: "api.ngc.nvidia.com",
        secret: { name: "m", value: b64("$oauthtoken:k") },
        artifactTypes: ["MODEL", "RESOURCE"],
      },
    ]),
    NVCF_MAX_FUNCTIONS_ALLOWED: "10",
    NVCF_MAX_TASKS_ALLOWED: "10",
    NVCF_MAX_TELEMETRIES_ALLOWED: "10",
    NVCF_MAX_REGISTRY_CREDENTIALS_ALLOWED: "10",
    ...over,
  });

  test("the bootstrap hook's steps: created once (MODEL/RESOURCE dropped), 409 afterwards, a new database starts empty", () => {
    const dir = path.join(sandbox().dir, "api");
    expect(api.accountBootstrap(dir, env(), { database: "ns-1" })).toEqual({
      code: 0,
      message: "NVCF account created successfully! Account 'nvcf-default' is ready",
    });
    const s = api.read(dir);
    expect(s.database).toBe("ns-1");
    expect(s.clients).toEqual({ ncp: "nvcf-default" });
    expect(
      s.accounts[0].registryCredentials.map((c: { registryHostname: string; provisionedBy: string }) => [
        c.registryHostname,
        c.provisionedBy,
      ]),
    ).toEqual([["registry.example.com", "SYSTEM"]]);
    // The upgrade's hook: the account exists (the API answers 409), which the script takes as success; nothing changes.
    const limits = env({ NVCF_MAX_FUNCTIONS_ALLOWED: "20" });
    expect(api.accountBootstrap(dir, limits, { database: "ns-1" })).toEqual({
      code: 0,
      message: "Account already exists (HTTP 409); treating as success since the account is available",
    });
    expect(api.read(dir).accounts[0].maxFunctionsAllowed).toBe(10);
    expect(api.read(dir).events.map((e: { op: string; status: number }) => [e.op, e.status])).toEqual([
      ["create-account", 200],
      ["create-account", 409],
    ]);
    // A fresh install (a new namespace) has a new database: the account is created again, with the new limits.
    expect(api.accountBootstrap(dir, limits, { database: "ns-2" }).code).toBe(0);
    expect(api.read(dir).accounts[0].maxFunctionsAllowed).toBe(20);
  });

  test("the hook's failures and their exit codes", () => {
    const dir = path.join(sandbox().dir, "api");
    expect(api.accountBootstrap(dir, env({ NVCF_ADMIN_CLIENT_ID: "" })).code).toBe(1);
    expect(api.accountBootstrap(dir, env({ NVCF_REGISTRY_CREDENTIALS_JSON: "{}" }))).toEqual({
      code: 1,
      message: "NVCF_REGISTRY_CREDENTIALS_JSON must be a JSON array",
    });
    expect(api.accountBootstrap(dir, env({ NVCF_MAX_TASKS_ALLOWED: "ten" })).code).toBe(2);
    expect(api.accountBootstrap(dir, env({ NVCF_MAX_TELEMETRIES_ALLOWED: "26" }))).toEqual({
      code: 5,
      message: "Account creation failed (HTTP 400): maxTelemetriesAllowed: must be less than or equal to 25",
    });
    const bad = JSON.stringify([
      {
        registryHostname: "nvcr.io",
        secret: { name: "c", value: b64("robot:k") },
        artifactTypes: ["CONTAINER"],
      },
    ]);
    expect(api.accountBootstrap(dir, env({ NVCF_REGISTRY_CREDENTIALS_JSON: bad }))).toEqual({
      code: 5,
      message:
        "Account creation failed (HTTP 400): Invalid request: Missing $oauthtoken username in NGC registry credential",
    });
    expect(api.read(dir).accounts).toEqual([]);
  });
});
