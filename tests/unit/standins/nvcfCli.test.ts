/**
 * The stand-in nvcf-cli (tests/bin/nvcf-cli) against its documented interface (docs/upstream-facts.md §3.1-§3.3, §2.7), run as
 * a child process against a fake Kubernetes API server (plain HTTP on 127.0.0.1) that serves OIDC discovery
 * and a JWKS. Then the program's own registration scripts (components/registration.ts, captured under
 * Pulumi mocks) are run against the stand-in.
 */
import { execFile } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as yaml from "js-yaml";
import { ClusterRegistration } from "../../../components/registration";
import type { RegistrationRecord as Registration } from "../../../contract/controlPlane";
import {
  type CliEndpoints,
  HELM_VALUES_MARKER,
  cliConfigYaml,
  parseRegistration,
} from "../../../values/registration";

jest.setTimeout(60_000);

const CLI = path.resolve(__dirname, "../../bin/nvcf-cli");
const NCA = "nvcf-default";
const GATEWAY = "http://203.0.113.20";
const ENDPOINTS: CliEndpoints = {
  gatewayUrl: GATEWAY,
  hosts: {
    api: "api.nvcf.test",
    apiKeys: "api-keys.nvcf.test",
    sis: "sis.nvcf.test",
    invocation: "invocation.nvcf.test",
  },
  ncaId: NCA,
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TOKEN = /nvapi-stand-in-[0-9a-f]+/;

// ---------------------------------------------------------------------------------------------------------
// Fake Kubernetes API server
// ---------------------------------------------------------------------------------------------------------

interface FakeApiServer {
  url: string;
  kid: string;
  requests: { path: string; auth: string }[];
  close(): Promise<void>;
}

/** Serves /version, /.well-known/openid-configuration and /openid/v1/jwks to `Bearer <token>` only. */
async function startApiServer(opts: {
  issuer: string;
  token?: string;
  jwksUri?: (base: string) => string;
}): Promise<FakeApiServer> {
  const kid = crypto.randomBytes(6).toString("hex");
  const requests: FakeApiServer["requests"] = [];
  let base = "";
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    requests.push({ path: req.url ?? "", auth });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (opts.token !== undefined && auth !== `Bearer ${opts.token}`)
      return send(401, { kind: "Status", code: 401, reason: "Unauthorized" });
    const url = (req.url ?? "").endsWith("/.well-known/openid-configuration")
      ? "/.well-known/openid-configuration"
      : req.url;
    switch (url) {
      case "/version":
        return send(200, { major: "1", minor: "31", gitVersion: "v1.31.0" });
      case "/.well-known/openid-configuration":
        return send(200, {
          issuer: opts.issuer,
          jwks_uri: opts.jwksUri ? opts.jwksUri(base) : `${base}/openid/v1/jwks`,
          response_types_supported: ["id_token"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
        });
      case "/openid/v1/jwks":
        // Like kube-apiserver: the JWKS is application/jwk-set+json (406 for Accept: application/json only).
        if (!/application\/jwk-set\+json|\*\/\*/.test(req.headers.accept ?? ""))
          return send(406, { kind: "Status", code: 406 });
        return send(200, { keys: [{ use: "sig", kty: "RSA", kid, alg: "RS256", n: "sXch", e: "AQAB" }] });
      default:
        return send(404, { kind: "Status", code: 404 });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    kid,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function kubeconfigYaml(server: string, token: string, name = "gpu-a"): string {
  return yaml.dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server } }],
    users: [{ name: `${name}-admin`, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin` } }],
    "current-context": name,
  });
}

// ---------------------------------------------------------------------------------------------------------
// Running the stand-in
// ---------------------------------------------------------------------------------------------------------

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command without the parent's environment (no stray NVCF_* or KUBECONFIG leaks in); `input` is written
 * to its standard input, which is then closed (without it, standard input is closed at once).
 */
function spawn(
  file: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  input = "",
): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env }, cwd, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    child.stdin?.end(input);
  });
}

interface Sandbox {
  dir: string;
  home: string;
  icms: string;
  config: string;
  kubeconfig: string;
  env: Record<string, string>;
  cli(args: string[], extraEnv?: Record<string, string>): Promise<Run>;
  registry(): Record<string, unknown>[];
  writeConfig(doc: Record<string, unknown> | string): void;
}

const tmpRoots: string[] = [];

/** Temp HOME and ICMS dir, the program's CLI config (as `cli.yaml`) and a kubeconfig for `server`. */
function sandbox(server: string, kubeToken: string): Sandbox {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cli-test-"));
  tmpRoots.push(dir);
  const home = path.join(dir, "home");
  const icms = path.join(dir, "icms");
  fs.mkdirSync(home);
  const config = path.join(dir, "cli.yaml");
  const kubeconfig = path.join(dir, "kubeconfig");
  fs.writeFileSync(config, cliConfigYaml(ENDPOINTS));
  fs.writeFileSync(kubeconfig, kubeconfigYaml(server, kubeToken));
  const env = { HOME: home, NVCF_CLI_ICMS_DIR: icms };
  const sb: Sandbox = {
    dir,
    home,
    icms,
    config,
    kubeconfig,
    env,
    cli: (args, extraEnv = {}) => spawn(CLI, ["--config", config, ...args], { ...env, ...extraEnv }, dir),
    registry: () => {
      const f = path.join(icms, `${NCA}.json`);
      return fs.existsSync(f)
        ? (JSON.parse(fs.readFileSync(f, "utf8")) as { clusters: Record<string, unknown>[] }).clusters
        : [];
    },
    writeConfig: (doc) => fs.writeFileSync(config, typeof doc === "string" ? doc : yaml.dump(doc)),
  };
  return sb;
}

const registerArgs = (sb: Sandbox, name: string, extra: string[] = []) => [
  "cluster",
  "register",
  "--name",
  name,
  "--nca-id",
  NCA,
  "--kubeconfig",
  sb.kubeconfig,
  ...extra,
];

/** `init`, returning the minted token (the only place it may appear). */
async function init(sb: Sandbox): Promise<string> {
  const r = await sb.cli(["init"]);
  expect(r).toMatchObject({ code: 0 });
  const m = TOKEN.exec(r.stdout);
  expect(m).not.toBeNull();
  return m![0];
}

function expectNoToken(token: string, ...runs: Run[]) {
  for (const r of runs) {
    expect(r.stdout).not.toContain(token);
    expect(r.stderr).not.toContain(token);
    expect(r.stdout + r.stderr).not.toMatch(TOKEN);
  }
}

const entry = (sb: Sandbox, name: string) => sb.registry().find((c) => c["name"] === name);

let gpuA: FakeApiServer;

beforeAll(async () => {
  gpuA = await startApiServer({ issuer: "https://gpu-a.test", token: "kube-token-a" });
});

afterAll(async () => {
  await gpuA.close();
  for (const d of tmpRoots) fs.rmSync(d, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------------------

describe("command line", () => {
  test("help and version succeed; unknown commands and flags are usage errors (exit 2)", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const help = await spawn(CLI, ["--help"], sb.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("cluster register --name NAME --nca-id ID");
    const sub = await spawn(CLI, ["cluster", "register", "--help"], sb.env);
    expect(sub.code).toBe(0);
    expect((await spawn(CLI, ["version"], sb.env)).stdout).toMatch(/stand-in/);
    expect((await spawn(CLI, ["--version"], sb.env)).code).toBe(0);

    for (const args of [
      ["frobnicate"],
      ["cluster", "frobnicate"],
      ["cluster"],
      ["cluster", "register", "--name", "x", "--nca-id", NCA, "--bogus"],
      ["cluster", "register", "--name", "x", "--nca-id", NCA, "--cluster-id", "y"],
      ["cluster", "delete", "--cluster-id", "x", "--nca-id", NCA, "--region", "r"],
      ["init", "--name"],
      ["init", "extra"],
      ["cluster", "register", "--nca-id", NCA],
      ["cluster", "delete", "--nca-id", NCA],
    ]) {
      const r = await sb.cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/Error: /);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// init and the token
// ---------------------------------------------------------------------------------------------------------

describe("init", () => {
  test("mints a token into $HOME/.nvcf-cli.<config>.state (0600) and prints token and expiry", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const r = await sb.cli(["init"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Admin token: nvapi-stand-in-[0-9a-f]{48}$/m);
    expect(r.stdout).toMatch(/^Expires at: \d{4}-\d\d-\d\dT/m);
    const stateFile = path.join(sb.home, ".nvcf-cli.cli.state");
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);
    const state = JSON.parse(fs.readFileSync(stateFile, "utf8")) as Record<string, string>;
    expect(r.stdout).toContain(state["token"]);
    expect(state["account"]).toBe(NCA);
    // A second init replaces the token.
    const again = await init(sb);
    expect(again).not.toBe(state["token"]);
  });

  test("fails without api_keys_service_url / base_http_url, and without a config file", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    sb.writeConfig({ client_id: NCA, icms_url: GATEWAY });
    const r = await sb.cli(["init"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/api_keys_service_url/);
    const none = await spawn(CLI, ["init"], sb.env, sb.home);
    expect(none.code).toBe(1);
    const missing = await sb.cli(["--config", path.join(sb.dir, "nope.yaml"), "init"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not found/);
  });

  test("a config found as ./.nvcf-cli.yaml is used when --config is absent", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    fs.copyFileSync(sb.config, path.join(sb.dir, ".nvcf-cli.yaml"));
    const r = await spawn(CLI, ["init"], sb.env, sb.dir);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(sb.home, ".nvcf-cli.state"))).toBe(true);
  });

  test("cluster commands without init fail and point at init; an expired token fails too", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const before = gpuA.requests.length;
    for (const args of [
      registerArgs(sb, "gpu-a"),
      ["cluster", "delete", "--cluster-id", "x", "--nca-id", NCA],
      ["cluster", "list", "--nca-id", NCA],
    ]) {
      const r = await sb.cli(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/nvcf-cli init/);
    }
    expect(sb.registry()).toEqual([]);
    expect(gpuA.requests.length).toBe(before); // it stopped before touching the cluster

    const expired = await sb.cli(["init"], { NVCF_CLI_TOKEN_TTL_SECONDS: "-1" });
    expect(expired.code).toBe(0);
    const r = await sb.cli(registerArgs(sb, "gpu-a"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/expired/);
  });

  test("a token from another config's state file does not count", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    await init(sb);
    const other = path.join(sb.dir, "other.yaml");
    fs.copyFileSync(sb.config, other);
    const r = await spawn(CLI, ["--config", other, ...registerArgs(sb, "gpu-a")], sb.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".nvcf-cli.other.state");
  });
});

// ---------------------------------------------------------------------------------------------------------
// cluster register / delete / list
// ---------------------------------------------------------------------------------------------------------

describe("cluster register", () => {
  test("prints the summary, the marker, the hint and a values block parseRegistration accepts", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const token = await init(sb);
    const before = gpuA.requests.length;
    const r = await sb.cli(registerArgs(sb, "gpu-a", ["--icms-url", GATEWAY]));
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    expectNoToken(token, r);

    const lines = r.stdout.split("\n");
    const marker = lines.indexOf(HELM_VALUES_MARKER);
    expect(marker).toBe(6);
    expect(lines.slice(0, marker + 3)).toEqual([
      expect.stringMatching(/^Cluster Group ID: [0-9a-f-]{36}$/),
      "Cluster Group Name: gpu-a",
      expect.stringMatching(/^Cluster ID: [0-9a-f-]{36}$/),
      "OIDC Issuer: https://gpu-a.test",
      "Region: us-west-1",
      "",
      HELM_VALUES_MARKER,
      "Add the following to your nvca-operator Helm values:",
      "",
    ]);
    expect(lines[marker + 3]).toMatch(/^clusterID: /);

    const reg = parseRegistration(r.stdout);
    expect(reg).toEqual<Registration>({
      clusterID: expect.stringMatching(UUID),
      clusterGroupID: expect.stringMatching(UUID),
      ncaID: NCA,
      region: "us-west-1",
      identitySource: "psat",
      icmsServiceURL: GATEWAY,
      revalServiceURL: GATEWAY,
      natsURL: "nats://203.0.113.20:4222",
    });
    expect(reg.clusterID).not.toBe(reg.clusterGroupID);
    expect(lines).toContain(`Cluster ID: ${reg.clusterID}`);
    // The block is exactly the §2.7 shape (no clusterName, no host overrides).
    const block = yaml.load(lines.slice(marker + 3).join("\n")) as Record<string, unknown>;
    expect(Object.keys(block)).toEqual(["clusterID", "clusterGroupID", "ncaID", "region", "selfManaged"]);
    expect(Object.keys(block["selfManaged"] as object)).toEqual([
      "identitySource",
      "icmsServiceURL",
      "revalServiceURL",
      "natsURL",
    ]);

    // It read the cluster through the kubeconfig's credentials.
    const seen = gpuA.requests.slice(before);
    expect(seen.map((q) => q.path)).toEqual([
      "/version",
      "/.well-known/openid-configuration",
      "/openid/v1/jwks",
    ]);
    expect(seen.every((q) => q.auth === "Bearer kube-token-a")).toBe(true);

    expect(entry(sb, "gpu-a")).toMatchObject({
      name: "gpu-a",
      clusterID: reg.clusterID,
      clusterGroupID: reg.clusterGroupID,
      ncaId: NCA,
      region: "us-west-1",
      identitySource: "psat",
      oidcIssuer: "https://gpu-a.test",
      jwksSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      jwksKeyIds: [gpuA.kid],
      apiServer: gpuA.url,
      registeredAt: expect.any(String),
      updatedAt: expect.any(String),
      registerCount: 1,
    });
    expect(fs.readdirSync(sb.icms)).toEqual([`${NCA}.json`]); // no temp files left behind
  });

  test("IDs are stable: --ignore-existing reuses them and counts; without it the re-run fails", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const token = await init(sb);
    const first = await sb.cli(registerArgs(sb, "gpu-a", ["--region", "us-east-1"]));
    expect(first.code).toBe(0);
    const a = parseRegistration(first.stdout);
    expect(a.region).toBe("us-east-1");

    const dup = await sb.cli(registerArgs(sb, "gpu-a", ["--region", "us-east-1"]));
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    expect(dup.stdout).not.toMatch(/^clusterID:/m);
    expect(entry(sb, "gpu-a")?.["registerCount"]).toBe(1);

    const again = await sb.cli(registerArgs(sb, "gpu-a", ["--region", "us-east-1", "--ignore-existing"]));
    expect(again.code).toBe(0);
    expect(parseRegistration(again.stdout)).toEqual(a);
    expect(entry(sb, "gpu-a")?.["registerCount"]).toBe(2);

    // Another --region: same IDs; the summary and the values block carry it, as the real CLI prints its
    // flag; the registration keeps the region it was created with (only its JWKS and issuer are updated).
    const moved = await sb.cli(registerArgs(sb, "gpu-a", ["--region", "eu-west-1", "--ignore-existing"]));
    expect(moved.code).toBe(0);
    expect(parseRegistration(moved.stdout)).toEqual({ ...a, region: "eu-west-1" });
    expect(moved.stdout).toContain("\nRegion: eu-west-1\n");
    expect(moved.stderr).not.toMatch(/Warning/);
    expect(entry(sb, "gpu-a")).toMatchObject({
      registerCount: 3,
      region: "us-east-1",
      clusterID: a.clusterID,
    });

    const other = await sb.cli(registerArgs(sb, "gpu-b"));
    expect(other.code).toBe(0);
    const b = parseRegistration(other.stdout);
    expect(b.clusterID).toMatch(UUID);
    expect(b.clusterID).not.toBe(a.clusterID);
    expect(b.clusterGroupID).not.toBe(a.clusterGroupID);
    expect(sb.registry().map((c) => c["name"])).toEqual(["gpu-a", "gpu-b"]);

    // Stable across registries too: a fresh ICMS derives the same IDs for the same (nca-id, name).
    const fresh = sandbox(gpuA.url, "kube-token-a");
    await init(fresh);
    const r = await fresh.cli(registerArgs(fresh, "gpu-a"));
    expect(parseRegistration(r.stdout).clusterID).toBe(a.clusterID);
    expectNoToken(token, first, dup, again, moved, other);
  });

  test("ICMS URL precedence and the derived ReVal and NATS URLs", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    await init(sb);
    const values = async (extra: string[], env: Record<string, string> = {}) => {
      const r = await sb.cli(registerArgs(sb, "gpu-a", ["--ignore-existing", ...extra]), env);
      expect(r.stderr).not.toMatch(/Error/);
      const reg = parseRegistration(r.stdout);
      return [reg.icmsServiceURL, reg.revalServiceURL, reg.natsURL];
    };
    // --icms-url wins over env and config.
    expect(
      await values(["--icms-url", "http://sis.nvcf.test:8080"], { NVCF_ICMS_URL: "http://x.test" }),
    ).toEqual(["http://sis.nvcf.test:8080", "http://reval.nvcf.test:8080", "nats://nats.nvcf.test:4222"]);
    // An empty --icms-url counts as unset (cobra), so env NVCF_ICMS_URL applies.
    expect(await values(["--icms-url", ""], { NVCF_ICMS_URL: "https://api.env.test" })).toEqual([
      "https://api.env.test",
      "https://reval.env.test",
      "nats://nats.env.test:4222",
    ]);
    // Then config icms_url (the gateway address: no prefix, so ReVal is the same URL).
    expect(await values([])).toEqual([GATEWAY, GATEWAY, "nats://203.0.113.20:4222"]);
    // Then base_http_url with api. swapped to sis.
    sb.writeConfig({
      base_http_url: "https://api.example.test",
      api_keys_service_url: "https://api-keys.example.test",
    });
    expect(await values([])).toEqual([
      "https://sis.example.test",
      "https://reval.example.test",
      "nats://nats.example.test:4222",
    ]);
    // Viper env override of a config key.
    expect(await values([], { NVCF_BASE_HTTP_URL: "http://api.override.test:9000" })).toEqual([
      "http://sis.override.test:9000",
      "http://reval.override.test:9000",
      "nats://nats.override.test:4222",
    ]);
    // --nats-url, then NVCF_NATS_URL.
    expect(
      (await values(["--nats-url", "nats://n.test:4222"], { NVCF_NATS_URL: "nats://env.test:4222" }))[2],
    ).toBe("nats://n.test:4222");
    expect((await values([], { NVCF_NATS_URL: "nats://env.test:4222" }))[2]).toBe("nats://env.test:4222");
    // Nothing configured: an error.
    sb.writeConfig({ api_keys_service_url: "https://api-keys.example.test" });
    const none = await sb.cli(registerArgs(sb, "gpu-a", ["--ignore-existing"]));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no ICMS URL/);
  });

  test("a host-header key with a scheme is rejected", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    sb.writeConfig(
      cliConfigYaml({ ...ENDPOINTS, hosts: { ...ENDPOINTS.hosts, sis: "http://sis.nvcf.test" } }),
    );
    const r = await sb.cli(["init"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/icms_host must be a bare hostname/);
  });

  test("fails clearly when the API server cannot be reached or rejects the credentials", async () => {
    const gone = await startApiServer({ issuer: "https://gone.test", token: "t" });
    await gone.close();
    const sb = sandbox(gone.url, "t");
    await init(sb);
    const r = await sb.cli(registerArgs(sb, "gpu-a"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the Kubernetes API server ${gone.url}`);
    expect(r.stderr).toMatch(/ECONNREFUSED/);
    expect(r.stdout).toBe("");
    expect(sb.registry()).toEqual([]);

    const wrong = sandbox(gpuA.url, "not-the-token");
    await init(wrong);
    const denied = await wrong.cli(registerArgs(wrong, "gpu-a"));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/rejected the kubeconfig credentials .*HTTP 401/);
  });

  test("reads the kubeconfig from KUBECONFIG when --kubeconfig is absent, and fails without one", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    await init(sb);
    const args = ["cluster", "register", "--name", "gpu-a", "--nca-id", NCA];
    const viaEnv = await sb.cli(args, {
      KUBECONFIG: `${path.join(sb.dir, "missing")}${path.delimiter}${sb.kubeconfig}`,
    });
    expect(viaEnv.code).toBe(0);
    const none = await sb.cli(args);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no kubeconfig/);
  });

  test("warns when the issuer is the shared in-cluster default", async () => {
    const vanilla = await startApiServer({
      issuer: "https://kubernetes.default.svc.cluster.local",
      token: "t",
    });
    try {
      const sb = sandbox(vanilla.url, "t");
      await init(sb);
      const r = await sb.cli(registerArgs(sb, "gpu-v"));
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        /Warning: the cluster's OIDC issuer is https:\/\/kubernetes\.default\.svc\.cluster\.local/,
      );
      expect(r.stdout).toContain("OIDC Issuer: https://kubernetes.default.svc.cluster.local");
      const quiet = sandbox(gpuA.url, "kube-token-a");
      await init(quiet);
      expect((await quiet.cli(registerArgs(quiet, "gpu-a"))).stderr).not.toMatch(/Warning/);
    } finally {
      await vanilla.close();
    }
  });

  test("an unreachable jwks_uri on another origin falls back to the API server's /openid/v1/jwks", async () => {
    const eks = await startApiServer({
      issuer: "https://oidc.eks.test/id/X",
      token: "t",
      jwksUri: () => "http://127.0.0.1:1/keys",
    });
    // kube-apiserver advertises its JWKS under its advertise address, which may be unreachable (kwok: 192.0.2.2).
    const kwok = await startApiServer({
      issuer: "https://kubernetes.default.svc.cluster.local",
      token: "t",
      jwksUri: () => "https://192.0.2.2:6443/openid/v1/jwks",
    });
    try {
      for (const [srv, name] of [
        [eks, "gpu-e"],
        [kwok, "gpu-k"],
      ] as const) {
        const sb = sandbox(srv.url, "t");
        await init(sb);
        const started = Date.now();
        const r = await sb.cli(registerArgs(sb, name));
        expect(r.stderr).not.toMatch(/Error/);
        expect(r.code).toBe(0);
        expect(Date.now() - started).toBeLessThan(4000);
        expect(entry(sb, name)).toMatchObject({
          jwksUri: `${srv.url}/openid/v1/jwks`,
          jwksKeyIds: [srv.kid],
        });
      }
      expect(kwok.requests.filter((q) => q.path === "/openid/v1/jwks")).toHaveLength(1);
    } finally {
      await eks.close();
      await kwok.close();
    }
  });

  test("--oidc-issuer-url reads that issuer's discovery document directly (source custom, or spire)", async () => {
    const issuer = await startApiServer({ issuer: "", jwksUri: (base) => `${base}/openid/v1/jwks` });
    try {
      const sb = sandbox(gpuA.url, "kube-token-a");
      await init(sb);
      for (const [suffix, source] of [
        ["/custom", "custom"],
        ["/spire-oidc", "spire"],
      ] as const) {
        const r = await sb.cli(
          registerArgs(sb, "gpu-a", ["--ignore-existing", "--oidc-issuer-url", `${issuer.url}${suffix}`]),
        );
        expect(r.stderr).not.toMatch(/Error/);
        expect(parseRegistration(r.stdout).identitySource).toBe(source);
        expect(r.stdout).toContain(`OIDC Issuer: ${issuer.url}${suffix}`);
      }
      expect(issuer.requests.map((q) => q.path)).toContain("/spire-oidc/.well-known/openid-configuration");
      expect(issuer.requests.every((q) => q.auth === "")).toBe(true); // the cluster's credentials stay with the cluster
    } finally {
      await issuer.close();
    }
  });

  test("requires NVCF_CLI_ICMS_DIR", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    await init(sb);
    const r = await spawn(CLI, ["--config", sb.config, ...registerArgs(sb, "gpu-a")], { HOME: sb.home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/NVCF_CLI_ICMS_DIR is not set/);
  });

  test("parallel registrations in one account are all recorded", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    await init(sb);
    const names = ["p1", "p2", "p3", "p4", "p5", "p6"];
    const runs = await Promise.all(names.map((n) => sb.cli(registerArgs(sb, n))));
    expect(runs.map((r) => r.code)).toEqual(names.map(() => 0));
    expect(
      sb
        .registry()
        .map((c) => c["name"])
        .sort(),
    ).toEqual(names);
    expect(sb.registry().every((c) => c["registerCount"] === 1)).toBe(true);
  });
});

describe("cluster delete and list", () => {
  test("delete removes the entry; a second delete fails unless --ignore-missing", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const token = await init(sb);
    const reg = parseRegistration((await sb.cli(registerArgs(sb, "gpu-a"))).stdout);
    await sb.cli(registerArgs(sb, "gpu-b"));

    const list = await sb.cli(["cluster", "list", "--nca-id", NCA]);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((c) => c.name)).toEqual(["gpu-a", "gpu-b"]);

    const del = await sb.cli(["cluster", "delete", "--cluster-id", reg.clusterID, "--nca-id", NCA]);
    expect(del.code).toBe(0);
    expect(del.stdout).toContain(reg.clusterID);
    expect(sb.registry().map((c) => c["name"])).toEqual(["gpu-b"]);

    const again = await sb.cli(["cluster", "delete", "--cluster-id", reg.clusterID, "--nca-id", NCA]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not found/);

    const ignored = await sb.cli([
      "cluster",
      "delete",
      "--cluster-id",
      reg.clusterID,
      "--nca-id",
      NCA,
      "--ignore-missing",
      "--force",
    ]);
    expect(ignored.code).toBe(0);
    expect(sb.registry().map((c) => c["name"])).toEqual(["gpu-b"]);

    // Re-registering after a delete starts a new entry with the same (derived) IDs.
    const back = await sb.cli(registerArgs(sb, "gpu-a"));
    expect(parseRegistration(back.stdout).clusterID).toBe(reg.clusterID);
    expect(entry(sb, "gpu-a")?.["registerCount"]).toBe(1);
    expectNoToken(token, list, del, again, ignored, back);
  });
});

describe("cluster rotate", () => {
  let rotated: FakeApiServer;
  beforeAll(async () => {
    // The same cluster after its service-account keys and issuer changed.
    rotated = await startApiServer({ issuer: "https://gpu-a-rotated.test", token: "kube-token-a" });
  });
  afterAll(() => rotated.close());

  const rotateArgs = (sb: Sandbox, id: string, extra: string[] = []) => [
    "cluster",
    "rotate",
    "--cluster-id",
    id,
    "--kubeconfig",
    sb.kubeconfig,
    "--icms-url",
    GATEWAY,
    ...extra,
  ];

  test("--force: the registration with that ID gets the issuer and JWKS read again; every ID and the region stay", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const token = await init(sb);
    const reg = parseRegistration(
      (await sb.cli(registerArgs(sb, "gpu-a", ["--region", "us-east-1"]))).stdout,
    );
    const before = entry(sb, "gpu-a")!;
    fs.writeFileSync(sb.kubeconfig, kubeconfigYaml(rotated.url, "kube-token-a"));

    const r = await sb.cli(rotateArgs(sb, reg.clusterID, ["--force"]), { NO_COLOR: "1" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // The real CLI's lines (internal/logging prefixes on standard output), in its order.
    expect(r.stdout.split("\n")).toEqual([
      `[INFO] Rotating JWKS for cluster '${reg.clusterID}'`,
      "[INFO] Fetching OIDC configuration from cluster...",
      "[INFO] Detected OIDC issuer: https://gpu-a-rotated.test",
      "[INFO] Fetching JWKS from cluster...",
      expect.stringMatching(/^\[SUCCESS\] Successfully fetched JWKS \(\d+ bytes\)$/),
      `[INFO] Updating JWKS in ICMS at ${GATEWAY}...`,
      `[SUCCESS] JWKS rotated successfully for cluster '${reg.clusterID}'`,
      "OIDC Issuer: https://gpu-a-rotated.test",
      "",
    ]);
    expect(r.stdout).not.toMatch(/^clusterID:/m); // rotate prints no values block
    expect(entry(sb, "gpu-a")).toEqual({
      ...before,
      oidcIssuer: "https://gpu-a-rotated.test",
      jwksKeyIds: [rotated.kid],
      jwksSha256: expect.not.stringMatching(before["jwksSha256"] as string),
      jwksUri: `${rotated.url}/openid/v1/jwks`,
      apiServer: rotated.url,
      updatedAt: expect.any(String),
      rotateCount: 1,
    });
    expect(entry(sb, "gpu-a")).toMatchObject({
      clusterID: reg.clusterID,
      clusterGroupID: reg.clusterGroupID,
      region: "us-east-1",
      registerCount: 1,
    });

    // Without NO_COLOR the prefixes are coloured, as the real logger does.
    const coloured = await sb.cli(rotateArgs(sb, reg.clusterID, ["--force"]));
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toContain("\x1b[34m[INFO]\x1b[0m Rotating JWKS");
    expect(entry(sb, "gpu-a")?.["rotateCount"]).toBe(2);
    expectNoToken(token, r, coloured);
  });

  test("without --force it asks: y or yes rotates, anything else cancels (exit 0), no answer fails (exit 1)", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    await init(sb);
    const reg = parseRegistration((await sb.cli(registerArgs(sb, "gpu-a"))).stdout);
    const ask = (input: string) =>
      spawn(
        CLI,
        ["--config", sb.config, ...rotateArgs(sb, reg.clusterID)],
        { ...sb.env, NO_COLOR: "1" },
        sb.dir,
        input,
      );

    const no = await ask("n\n");
    expect(no.code).toBe(0);
    expect(no.stdout).toContain(
      [
        "",
        `About to overwrite JWKS for cluster: ${reg.clusterID}`,
        "  New OIDC issuer:    https://gpu-a.test",
        "  Identity source:    psat",
        `  ICMS endpoint:      ${GATEWAY}`,
        "",
        "This replaces the cluster's trust root. Proceed? [y/N]: [INFO] Rotation cancelled",
      ].join("\n"),
    );
    expect(entry(sb, "gpu-a")?.["rotateCount"]).toBeUndefined();

    const none = await ask("");
    expect(none.code).toBe(1);
    expect(none.stderr).toBe("Error: failed to read confirmation: EOF\n");
    expect(entry(sb, "gpu-a")?.["rotateCount"]).toBeUndefined();

    const yes = await ask("YES\n");
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain(`[SUCCESS] JWKS rotated successfully for cluster '${reg.clusterID}'`);
    expect(entry(sb, "gpu-a")?.["rotateCount"]).toBe(1);
  });

  test("errors: an ID ICMS does not have (404, exit 1), the cluster unreachable, no token, flags it does not take", async () => {
    const sb = sandbox(gpuA.url, "kube-token-a");
    const none = await sb.cli(rotateArgs(sb, "00000000-0000-5000-8000-000000000000", ["--force"]));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/Error: not authenticated: .*run "nvcf-cli init" first/);

    await init(sb);
    const missing = await sb.cli(rotateArgs(sb, "00000000-0000-5000-8000-000000000000", ["--force"]));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'Error: failed to update cluster JWKS: ICMS API error 404: {"error":"Cluster 00000000-0000-5000-8000-000000000000 not found"}\n',
    );

    const reg = parseRegistration((await sb.cli(registerArgs(sb, "gpu-a"))).stdout);
    fs.writeFileSync(sb.kubeconfig, kubeconfigYaml("http://127.0.0.1:1", "x"));
    const down = await sb.cli(rotateArgs(sb, reg.clusterID, ["--force"]));
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^Error: cluster access validation failed: cannot reach the Kubernetes API server/,
    );
    expect(entry(sb, "gpu-a")?.["rotateCount"]).toBeUndefined();

    for (const args of [
      ["cluster", "rotate", "--force"],
      ["cluster", "rotate", "--cluster-id", reg.clusterID, "--nca-id", NCA],
      ["cluster", "rotate", "--cluster-id", reg.clusterID, "--region", "x"],
      ["cluster", "rotate", "--cluster-id", reg.clusterID, "--oidc-issuer-url", "https://x"],
    ]) {
      const r = await sb.cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/^Error: (required flag|unknown flag)/);
    }
    const help = await sb.cli(["cluster", "--help"]);
    expect(help.stdout).toContain(
      "cluster rotate --cluster-id ID [--kubeconfig FILE] [--icms-url URL] [--force]",
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// The program's registration scripts against the stand-in
// ---------------------------------------------------------------------------------------------------------

const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

function unwrapSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (Object.values(o).includes(SECRET_SIG) && "value" in o) return unwrapSecrets(o["value"]);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrapSecrets(x)]));
  }
  return v;
}

describe("components/registration.ts scripts", () => {
  interface Captured {
    create: string;
    update: string;
    delete: string;
    interpreter: string[];
    environment: Record<string, string>;
  }
  let captured: Captured | undefined;
  let icmsDir: string;
  const runScript = (script: string, env: Record<string, string>) =>
    spawn(captured!.interpreter[0]!, [...captured!.interpreter.slice(1), script], {
      NVCF_CLI_ICMS_DIR: icmsDir,
      ...env,
    });

  beforeAll(() => {
    icmsDir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cli-icms-"));
    tmpRoots.push(icmsDir);
    pulumi.runtime.setMocks(
      {
        async newResource(args) {
          if (args.type !== "command:local:Command")
            return { id: args.custom ? `${args.name}-id` : undefined, state: {} };
          const inputs = unwrapSecrets(args.inputs) as Record<string, unknown>;
          captured = {
            create: String(inputs["create"]),
            update: String(inputs["update"]),
            delete: String(inputs["delete"]),
            interpreter: inputs["interpreter"] as string[],
            environment: inputs["environment"] as Record<string, string>,
          };
          const r = await runScript(captured.create, captured.environment);
          if (r.code !== 0) throw new Error(`create failed (${r.code}): ${r.stderr}`);
          return { id: `${args.name}-id`, state: { ...args.inputs, stdout: r.stdout, stderr: r.stderr } };
        },
        call(args) {
          throw new Error(`unmocked call ${args.token}`);
        },
      },
      "nvcf",
      "unit",
      false,
    );
  });

  /** A ClusterRegistration of `name` against gpuA (its create runs under the mocks); resolves to its registration. */
  const registered = (name: string, region: string, extra: { jwksRotation?: string } = {}) => {
    const comp = new ClusterRegistration(name, {
      clusterName: name,
      region,
      ncaId: NCA,
      endpoints: ENDPOINTS,
      kubeconfig: pulumi.secret(kubeconfigYaml(gpuA.url, "kube-token-a")),
      apiServer: gpuA.url,
      cliPath: CLI,
      ...extra,
    });
    return new Promise<Registration>((resolve) => comp.registration.apply(resolve));
  };

  test("create registers through init + register, prints only the values block; delete deregisters", async () => {
    const kubeconfig = kubeconfigYaml(gpuA.url, "kube-token-a");
    const reg = await registered("gpu-a", "us-east-1");
    expect(reg).toMatchObject({
      ncaID: NCA,
      region: "us-east-1",
      identitySource: "psat",
      icmsServiceURL: GATEWAY,
    });
    expect(reg.clusterID).toMatch(UUID);
    const c = captured!;
    expect(c.environment["NVCFP_KUBECONFIG"]).toBe(kubeconfig);

    // Create again (a registration that exists): same IDs, the registry counts it; output is the block alone.
    const rerun = await runScript(c.create, c.environment);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout.split("\n")[0]).toBe(`clusterID: ${reg.clusterID}`);
    expect(rerun.stdout).not.toContain(HELM_VALUES_MARKER);
    expect(parseRegistration(rerun.stdout)).toEqual(reg);
    const registry = () =>
      (
        JSON.parse(fs.readFileSync(path.join(icmsDir, `${NCA}.json`), "utf8")) as {
          clusters: Record<string, unknown>[];
        }
      ).clusters;
    expect(registry()).toEqual([
      expect.objectContaining({ name: "gpu-a", registerCount: 2, apiServer: gpuA.url }),
    ]);
    expect(rerun.stdout + rerun.stderr).not.toMatch(TOKEN);

    // The operator's shell cannot override what the program configured (the CLI reads NVCF_* variables).
    const shell = await runScript(c.create, {
      ...c.environment,
      NVCF_NATS_URL: "nats://elsewhere.test:4222",
      NVCF_BASE_HTTP_URL: "http://elsewhere.test",
    });
    expect(shell.code).toBe(0);
    expect(parseRegistration(shell.stdout).natsURL).toBe(reg.natsURL);

    // A failing register is reported with the CLI's error, without a token.
    const down = await runScript(c.create, {
      ...c.environment,
      NVCFP_KUBECONFIG: kubeconfigYaml("http://127.0.0.1:1", "x"),
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cluster register failed for gpu-a/);
    expect(down.stderr).toMatch(/cannot reach the Kubernetes API server/);
    expect(down.stdout + down.stderr).not.toMatch(TOKEN);

    // Delete uses the clusterID from the recorded stdout; a second delete is a no-op (--ignore-missing).
    const del = await runScript(c.delete, { ...c.environment, PULUMI_COMMAND_STDOUT: rerun.stdout });
    expect(del).toMatchObject({ code: 0, stdout: `deregistered gpu-a (${reg.clusterID})\n` });
    expect(registry()).toEqual([]);
    const del2 = await runScript(c.delete, { ...c.environment, PULUMI_COMMAND_STDOUT: rerun.stdout });
    expect(del2.code).toBe(0);
    expect(del.stdout + del.stderr + del2.stdout + del2.stderr).not.toMatch(TOKEN);
  });

  test("update keeps the IDs: rotate when the values block stays, re-register for a new region, refuse another account", async () => {
    const reg = await registered("gpu-u", "us-west-1", { jwksRotation: "2026-01-01T00:00:00Z" });
    const c = captured!;
    expect(c.update).toBe('eval "$NVCFP_UPDATE_SCRIPT"');
    expect(c.environment["NVCFP_JWKS_ROTATION"]).toBe("2026-01-01T00:00:00Z");
    const recorded = (await runScript(c.create, c.environment)).stdout;
    const registry = () =>
      (
        JSON.parse(fs.readFileSync(path.join(icmsDir, `${NCA}.json`), "utf8")) as {
          clusters: Record<string, unknown>[];
        }
      ).clusters.find((x) => x["name"] === "gpu-u")!;
    const counts = () => [registry()["registerCount"], registry()["rotateCount"]];
    expect(counts()).toEqual([2, undefined]);

    // A new rotation request (nothing else changed): cluster rotate on the recorded ID, the block kept as it was.
    const rot = await runScript(c.update, {
      ...c.environment,
      NVCFP_JWKS_ROTATION: "2026-02-01T00:00:00Z",
      PULUMI_COMMAND_STDOUT: recorded,
    });
    expect(rot.code).toBe(0);
    expect(rot.stdout).toBe(recorded + "\n");
    expect(rot.stderr).toContain(
      `rotated the issuer and JWKS of gpu-u (${reg.clusterID}) in ICMS; its IDs are kept`,
    );
    expect(counts()).toEqual([2, 1]);

    // A new region: register --ignore-existing; same IDs, the block carries the region; ICMS keeps its own.
    const moved = await runScript(c.update, {
      ...c.environment,
      NVCFP_REGION: "eu-west-1",
      PULUMI_COMMAND_STDOUT: recorded,
    });
    expect(moved.code).toBe(0);
    expect(parseRegistration(moved.stdout)).toEqual({ ...reg, region: "eu-west-1" });
    expect(counts()).toEqual([3, 1]);
    expect(registry()["region"]).toBe("us-west-1");

    // Another NCA id: refused by the script itself, nothing run.
    const other = await runScript(c.update, {
      ...c.environment,
      NVCFP_NCA_ID: "another-account",
      PULUMI_COMMAND_STDOUT: recorded,
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      `gpu-u (${reg.clusterID}) is registered in account ${NCA}; nvcf-cli cannot move a registration to account another-account keeping its IDs`,
    );
    expect(counts()).toEqual([3, 1]);

    // The registration gone from ICMS: rotate fails with ICMS's 404 (no silent new IDs).
    await runScript(c.delete, { ...c.environment, PULUMI_COMMAND_STDOUT: recorded });
    const gone = await runScript(c.update, {
      ...c.environment,
      NVCFP_JWKS_ROTATION: "2026-03-01T00:00:00Z",
      PULUMI_COMMAND_STDOUT: recorded,
    });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`nvcf-cli cluster rotate failed for gpu-u (${reg.clusterID}`);
    expect(gone.stderr).toContain("ICMS API error 404");
    expect([rot, moved, other, gone].map((r) => r.stdout + r.stderr).join("")).not.toMatch(TOKEN);
  });
});
