/**
 * The image-credential preflight check (cli/preflight/images.ts) against a real registry: the stand-in of
 * tests/unit/standins/registryStandIn.ts, an HTTP(S) server on 127.0.0.1 speaking the registry API v2 and its token
 * protocol. Which credentials each stack's pull secrets carry is derived from the real stack files. Covered:
 * a good login (token and basic), a wrong password (401), no pull access (a token without the access, and a
 * 403 from the token service), a missing manifest, an unknown host, a timeout, an untrusted certificate, a
 * CONNECT proxy from HTTPS_PROXY, and the embedded default's `.test` stand-in name. No secret in any finding.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { readStackFiles } from "../../../../cli/environment";
import { type CheckedStack, checkedStack } from "../../../../cli/stacks";
import {
  type ImageCredential,
  checkCredential,
  checkImages,
  imageCredentials,
  parseChallenge,
  proxyFor,
} from "../../../../cli/preflight/images";
import type { Finding, StackFile } from "../../../../cli/types";
import { type StandIn, startRegistry } from "../../standins/registryStandIn";

const ROOT = path.resolve(__dirname, "../../../..");
const KEY = "right-key-9c1e";
const REPO = "nvcf/mirror/alpine-k8s";

/**
 * A stack file of the project as cli/environment.ts `readStackFiles` reads it, with `edit` applied to a copy
 * of its config.
 */
function stackFile(stack: string, edit: (c: Record<string, unknown>) => void = () => {}): StackFile {
  const file = readStackFiles(ROOT).find((s) => s.stack === stack);
  if (!file) throw new Error(`no Pulumi.${stack}.yaml in ${ROOT}`);
  const config = structuredClone(file.config);
  edit(config);
  return { ...file, config };
}
const secure = { secure: "v1:not-decrypted-here" };
/** The dev environment with the control plane's registry at `registry`, secrets as given. */
function devStacks(registry: string, secrets: Record<string, string> = { registryKey: KEY }): CheckedStack[] {
  const control = stackFile("dev", (c) => {
    c["images"] = { registry, repository: "nvcf/mirror" };
  });
  return [
    checkedStack(control, secrets),
    checkedStack(stackFile("dev-gpu-a")),
    checkedStack(stackFile("dev-gpu-b")),
  ];
}
/** The single credential of the dev environment (every stack shares it). */
function devCredential(registry: string, password = KEY): ImageCredential {
  const { creds } = imageCredentials(...split(devStacks(registry, { registryKey: password })));
  expect(creds).toHaveLength(1);
  return creds[0];
}
const split = (s: CheckedStack[]): [CheckedStack, CheckedStack[]] => [s[0], s.slice(1)];

const registries: StandIn[] = [];
async function registry(opts: Partial<Parameters<typeof startRegistry>[0]> = {}): Promise<StandIn> {
  const r = await startRegistry({
    users: { robot: KEY },
    repos: {
      [REPO]: { tags: ["1.36.1"], readers: ["robot"] },
      "nvcf/mirror/nvca-operator": { tags: ["3.2.7"], readers: ["robot"] },
    },
    ...opts,
  });
  registries.push(r);
  return r;
}
afterAll(async () => {
  await Promise.all(registries.map((r) => r.close()));
});

/** Asserts no secret of the test reaches any text of the finding. */
function noSecret(f: Finding, ...secrets: string[]) {
  const text = JSON.stringify(f);
  for (const s of [KEY, ...secrets]) expect(text).not.toContain(s);
  expect(text).not.toContain(Buffer.from(`robot:${KEY}`).toString("base64"));
}

describe("which credentials the pull secrets carry", () => {
  test("dev: one credential (registry, user robot, dev's nvcf:registryKey) for both pull secrets and the sidecars", () => {
    const [c] = imageCredentials(...split(devStacks("registry.nvcf.test"))).creds;
    expect(c).toMatchObject({
      stack: "dev",
      registry: "registry.nvcf.test",
      username: "robot",
      password: KEY,
      sources: [{ key: "nvcf:registryKey", stack: "dev" }],
      probe: { repository: REPO, tag: "1.36.1" },
    });
    expect(c.uses).toEqual([
      "dev: pull secret nvcr-pull-secret",
      "dev: worker sidecar pulls",
      "dev-gpu-a: pull secret nvcr-pull-secret",
      "dev-gpu-b: pull secret nvcr-pull-secret",
    ]);
  });

  test("a GPU cluster with its own key, a sidecar key and nvcr.io's literal user are separate credentials", () => {
    const control = checkedStack(
      stackFile("dev", (c) => {
        c["images"] = { registry: "nvcr.io", repository: "acme/team" };
        c["sidecarRegistryKey"] = secure;
      }),
      { registryKey: KEY, sidecarRegistryKey: "sidecar-key" },
    );
    const gpuA = checkedStack(
      stackFile("dev-gpu-a", (c) => (c["registryKey"] = secure)),
      {
        registryKey: "gpu-a-key",
      },
    );
    const { creds } = imageCredentials(control, [gpuA, checkedStack(stackFile("dev-gpu-b"))]);
    expect(
      creds.map((c) => [
        c.username,
        c.sources.map((s) => `${s.key}@${s.stack}`).join(","),
        c.uses.join(","),
        c.probe,
      ]),
    ).toEqual([
      [
        "robot",
        "nvcf:registryKey@dev",
        "dev: pull secret nvcr-pull-secret,dev-gpu-b: pull secret nvcr-pull-secret",
        { repository: "acme/team/alpine-k8s", tag: "1.36.1" },
      ],
      [
        "$oauthtoken",
        "nvcf:sidecarRegistryKey@dev",
        "dev: worker sidecar pulls",
        { repository: "acme/team/alpine-k8s", tag: "1.36.1" },
      ],
      [
        "robot",
        "nvcf:registryKey@dev-gpu-a",
        "dev-gpu-a: pull secret nvcr-pull-secret",
        { repository: "acme/team/nvca-operator", tag: "3.2.7" },
      ],
    ]);
    expect(creds.every((c) => c.registry === "nvcr.io")).toBe(true);
  });

  test("no pull secret passes saying why; a secret managed outside the stack is a warning; a GPU cluster without any key fails", () => {
    const prod = imageCredentials(checkedStack(stackFile("prod-eks"), { sidecarRegistryKey: "s" }), [
      checkedStack(stackFile("prod-gpu-east-1")),
    ]);
    expect(prod.findings.map((f) => [f.stack, f.ok, f.found.slice(0, 56)])).toEqual([
      ["prod-eks", true, "no pull secret (nvcf:pullSecret.name is null): the nodes"],
      ["prod-gpu-east-1", true, "no pull secret (nvcf:pullSecret.name is null): the nodes"],
    ]);
    // Only the worker sidecar credential is left to try.
    expect(prod.creds.map((c) => c.uses)).toEqual([["prod-eks: worker sidecar pulls"]]);

    const control = checkedStack(
      stackFile("dev", (c) => {
        c["pullSecret"] = { name: "mine", create: false };
        delete c["registryKey"];
        c["sidecarRegistryKey"] = secure;
        c["functionRegistryKey"] = secure;
      }),
      { sidecarRegistryKey: KEY, functionRegistryKey: KEY },
    );
    const r = imageCredentials(control, [checkedStack(stackFile("dev-gpu-a"))]);
    expect(r.findings.map((f) => [f.stack, f.object, f.ok, f.severity])).toEqual([
      ["dev", "pull secret mine", false, "warning"],
      ["dev-gpu-a", "pull secret nvcr-pull-secret", false, "error"],
    ]);
    expect(r.findings[1].found).toBe(
      "no registry key: neither stack dev-gpu-a nor its control plane dev sets nvcf:registryKey",
    );
  });

  test("an undecrypted key is a warning that names the key, without a request", async () => {
    const stacks = devStacks("127.0.0.1:1", {});
    const [f] = await checkImages(stacks);
    expect(f).toMatchObject({ check: "images.pull", ok: false, severity: "warning" });
    expect(f.found).toMatch(
      /^not checked: the login needs the secret nvcf:registryKey \(stack dev\), which was not decrypted/,
    );
  });
});

describe("logging in to a real registry (token flow)", () => {
  test("the right key: a token for the repository and the pinned manifest found; the password only to the token service", async () => {
    const r = await registry();
    const [f, ...rest] = await checkImages(devStacks(r.host));
    expect(rest).toEqual([]);
    expect(f).toMatchObject({
      check: "images.pull",
      stack: "dev",
      object: `image registry ${r.host}`,
      ok: true,
    });
    expect(f.found).toMatch(
      new RegExp(
        `^logged in with a token for user robot from ${r.host} and found the manifest of ${r.host}/${REPO}:1\\.36\\.1 \\(sha256:`,
      ),
    );
    expect(r.requests.map((q) => [q.method, q.path.replace(/\?.*/, ""), q.auth])).toEqual([
      ["GET", "/v2/", undefined],
      ["GET", "/token", "basic:robot"],
      ["HEAD", `/v2/${REPO}/manifests/1.36.1`, "bearer"],
    ]);
    expect(r.requests[1].path).toContain(
      `scope=repository%3A${encodeURIComponent(REPO).replace(/%2F/g, "%2F")}%3Apull`,
    );
    noSecret(f);
  });

  test("a wrong key: 401 from the token service, named with the key, the user and the fix", async () => {
    const r = await registry();
    const f = await checkCredential(devCredential(r.host, "wrong-key-1234"), "dev");
    expect(f).toMatchObject({ ok: false, severity: "error", object: `image registry ${r.host}` });
    expect(f.found).toBe(
      `the token service http://${r.host}/token answered 401 unauthorized for user robot (UNAUTHORIZED: authentication required)`,
    );
    expect(f.fix).toMatch(
      /^likely cause: the registry refused the user robot \(nvcf:pullSecret\.username of stack dev\) with the key in nvcf:registryKey \(stack dev\)/,
    );
    expect(f.fix).toContain("pulumi config set --secret nvcf:registryKey <key> -s dev");
    noSecret(f, "wrong-key-1234");
  });

  test("no pull access: a token without the access, then 401 insufficient_scope on the manifest", async () => {
    const r = await registry({ repos: { [REPO]: { tags: ["1.36.1"], readers: ["someone-else"] } } });
    const f = await checkCredential(devCredential(r.host), "dev");
    expect(f.ok).toBe(false);
    expect(f.found).toBe(
      `logged in with a token for user robot from ${r.host}, but reading the manifest of ${r.host}/${REPO}:1.36.1 answered 401 unauthorized: no pull access to repository ${REPO} (insufficient_scope)`,
    );
    expect(f.fix).toMatch(
      /^likely cause: the credentials are accepted but may not pull nvcf\/mirror\/alpine-k8s/,
    );
    noSecret(f);
  });

  test("no pull access: the token service answers 403", async () => {
    const r = await registry({ denyOnToken: true, repos: { [REPO]: { tags: ["1.36.1"], readers: [] } } });
    const f = await checkCredential(devCredential(r.host), "dev");
    expect(f.found).toBe(
      `the token service http://${r.host}/token answered 403 forbidden for user robot and scope repository:${REPO}:pull (DENIED: requested access to ${REPO} is denied)`,
    );
    expect(f.fix).toContain("may not pull nvcf/mirror/alpine-k8s");
  });

  test("the pinned image is not in the registry: 404 manifest unknown", async () => {
    const r = await registry({ repos: { [REPO]: { tags: ["1.35.0"], readers: ["robot"] } } });
    const f = await checkCredential(devCredential(r.host), "dev");
    expect(f.found).toMatch(/but the manifest of .*alpine-k8s:1\.36\.1 answered 404 not found$/);
    expect(f.fix).toMatch(/^likely cause: the image is not in this registry/);
  });
});

describe("logging in to a real registry (basic challenge)", () => {
  test("the right key passes with basic auth; a wrong one is 401", async () => {
    const r = await registry({ mode: "basic" });
    const ok = await checkCredential(devCredential(r.host), "dev");
    expect(ok.ok).toBe(true);
    expect(ok.found).toMatch(/^logged in with basic auth for user robot and found the manifest of /);
    const bad = await checkCredential(devCredential(r.host, "nope-5678"), "dev");
    expect(bad.found).toBe(
      `http://${r.host}/v2/ answered 401 unauthorized to basic auth for user robot (UNAUTHORIZED: authentication required)`,
    );
    noSecret(bad, "nope-5678");
  });
});

describe("no answer", () => {
  test("an unknown host names the registry key to fix", async () => {
    const f = await checkCredential(devCredential("registry.nowhere.invalid"), "dev");
    expect(f).toMatchObject({ ok: false, severity: "error" });
    expect(f.found).toMatch(
      /^https:\/\/registry\.nowhere\.invalid\/v2\/: unknown host \((ENOTFOUND|EAI_AGAIN)\)$/,
    );
    expect(f.fix).toContain("pulumi config set --path nvcf:images.registry <registry host> -s dev");
  });

  test("a registry that never answers: a timeout within the deadline", async () => {
    const r = await registry({ hang: true });
    const t0 = Date.now();
    const f = await checkCredential(devCredential(r.host), "dev", { timeoutMs: 400 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(f.found).toBe(`http://${r.host}/v2/: no answer within 0.4s (timeout)`);
    expect(f.fix).toMatch(
      /^likely cause: no answer within 0.4s: a firewall drops the traffic, or this network needs a proxy/,
    );
  });

  test("the embedded default's registry.nvcf.test: a warning that says it was not checked and why", async () => {
    const [f] = await checkImages(devStacks("registry.nvcf.test"));
    expect(f).toMatchObject({ ok: false, severity: "warning", object: "image registry registry.nvcf.test" });
    expect(f.found).toMatch(
      /^not checked: registry\.nvcf\.test does not resolve and is under \.test, a name reserved for testing/,
    );
  });
});

describe("HTTPS: certificates and proxies", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-registry-tls-"));
  const NAME = "registry.stand-in.internal";
  let pem = { key: "", cert: "" };
  beforeAll(() => {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        `/CN=${NAME}`,
        "-addext",
        `subjectAltName=DNS:${NAME}`,
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    pem = {
      key: fs.readFileSync(path.join(dir, "key.pem"), "utf8"),
      cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"),
    };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("an untrusted certificate is a TLS error; trusted, the login passes", async () => {
    const r = await registry({ tls: pem, publicHost: NAME });
    const resolve = { [NAME]: "127.0.0.1" };
    const bad = await checkCredential(devCredential(r.host), "dev", { resolve, env: {} });
    expect(bad.found).toMatch(
      new RegExp(`^https://${NAME}:${r.port}/v2/: TLS error: .*(self[- ]signed|SELF_SIGNED)`),
    );
    expect(bad.fix).toMatch(
      /^likely cause: the registry's certificate is not trusted here \(a private CA: point NODE_EXTRA_CA_CERTS/,
    );
    const ok = await checkCredential(devCredential(r.host), "dev", { resolve, ca: pem.cert, env: {} });
    expect(ok.found).toMatch(
      /^logged in with a token for user robot from registry\.stand-in\.internal:\d+ and found the manifest/,
    );
  });

  test("HTTPS_PROXY: the login goes through a CONNECT tunnel (the proxy resolves the name)", async () => {
    const r = await registry({ tls: pem, publicHost: NAME });
    const tunnels: string[] = [];
    const proxy = http.createServer();
    proxy.on("connect", (req: http.IncomingMessage, client: net.Socket) => {
      tunnels.push(String(req.url));
      const up = net.connect(r.port, "127.0.0.1", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        up.pipe(client);
        client.pipe(up);
      });
      up.on("error", () => client.destroy());
      client.on("error", () => up.destroy());
    });
    await new Promise<void>((res) => proxy.listen(0, "127.0.0.1", res));
    try {
      const env = { HTTPS_PROXY: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}` };
      const f = await checkCredential(devCredential(r.host), "dev", { ca: pem.cert, env });
      expect(f.ok).toBe(true);
      expect(tunnels).toEqual([`${NAME}:${r.port}`, `${NAME}:${r.port}`, `${NAME}:${r.port}`]);
    } finally {
      proxy.close();
    }
  });

  test("proxy selection follows the standard variables (loopback and NO_PROXY bypass it)", () => {
    const env = { HTTPS_PROXY: "proxy.corp:3128", NO_PROXY: "internal.example,.corp.example:443" };
    expect(proxyFor(new URL("https://nvcr.io/v2/"), env)?.host).toBe("proxy.corp:3128");
    expect(proxyFor(new URL("https://reg.internal.example/v2/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://a.corp.example/v2/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://a.corp.example:5000/v2/"), env)?.host).toBe("proxy.corp:3128");
    expect(proxyFor(new URL("http://127.0.0.1:5000/v2/"), { HTTP_PROXY: "http://p:1" })).toBeUndefined();
  });
});

test("WWW-Authenticate challenges are parsed as registries send them", () => {
  expect(
    parseChallenge(
      'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull",error="insufficient_scope"',
    ),
  ).toEqual({
    scheme: "bearer",
    params: {
      realm: "https://auth.example/token",
      service: "registry.example",
      scope: "repository:a/b:pull",
      error: "insufficient_scope",
    },
  });
  expect(parseChallenge('Basic realm="Registry"')).toEqual({
    scheme: "basic",
    params: { realm: "Registry" },
  });
});
