/**
 * engine/warmup.ts, the OpenAPI warm-up: the request built from each kind of kubeconfig credential (and the cases it
 * leaves to the provider), a real HTTPS exchange with a local server that holds an API server's contract for it
 * (client certificate or token, the protobuf media type, the status and headers before the body), and that nothing
 * is sent without an engine.
 */
import * as fs from "node:fs";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import {
  OPENAPI_V2_PROTOBUF,
  type OpenApiWarmRequest,
  openApiWarmRequest,
  startOpenApiWarmUp,
  warmOpenApi,
  warmUpFromRawConfig,
} from "../../../engine/warmup";

const TLS = path.join(__dirname, "../fixtures", "tls");
const pem = (f: string) => fs.readFileSync(path.join(TLS, f));
const b64 = (f: string) => pem(f).toString("base64");

/** A one-context kubeconfig with the given cluster and user sections. */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, current = "c"): string {
  return yaml.dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "k", cluster }],
    users: [{ name: "u", user }],
    contexts: [{ name: "c", context: { cluster: "k", user: "u" } }],
    "current-context": current,
  });
}

const noProxy: NodeJS.ProcessEnv = {};

describe("openApiWarmRequest", () => {
  it("builds the provider's request from certificate data, files, tokens and basic auth", () => {
    const certs = openApiWarmRequest(
      kubeconfig(
        { server: "https://10.0.0.1:6443", "certificate-authority-data": b64("ca.crt") },
        { "client-certificate-data": b64("client.crt"), "client-key-data": b64("client.key") },
      ),
      undefined,
      "/",
      noProxy,
    ) as OpenApiWarmRequest;
    expect(certs.url.toString()).toBe("https://10.0.0.1:6443/openapi/v2");
    expect(certs.headers["Accept"]).toBe(OPENAPI_V2_PROTOBUF);
    expect(certs.headers["Authorization"]).toBeUndefined();
    expect([certs.ca, certs.cert, certs.key]).toEqual([pem("ca.crt"), pem("client.crt"), pem("client.key")]);
    expect(certs.rejectUnauthorized).toBe(true);

    // Files resolve against the given directory, as the kubeconfig's own directory in the program.
    const files = openApiWarmRequest(
      kubeconfig(
        { server: "https://h:6443/", "certificate-authority": "ca.crt", "tls-server-name": "apiserver.test" },
        { "client-certificate": "client.crt", "client-key": "client.key" },
      ),
      "c",
      TLS,
      noProxy,
    ) as OpenApiWarmRequest;
    expect([files.ca, files.cert, files.key]).toEqual([pem("ca.crt"), pem("client.crt"), pem("client.key")]);
    expect(files.servername).toBe("apiserver.test");

    const token = openApiWarmRequest(
      kubeconfig({ server: "https://h", "insecure-skip-tls-verify": true }, { token: "t0k" }),
      undefined,
      "/",
      noProxy,
    ) as OpenApiWarmRequest;
    expect(token.headers["Authorization"]).toBe("Bearer t0k");
    expect(token.rejectUnauthorized).toBe(false);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-kube-"));
    fs.writeFileSync(path.join(dir, "token"), "from-file\n");
    const tokenFile = openApiWarmRequest(
      kubeconfig({ server: "https://h" }, { tokenFile: "token" }),
      undefined,
      dir,
      noProxy,
    ) as OpenApiWarmRequest;
    expect(tokenFile.headers["Authorization"]).toBe("Bearer from-file");
    fs.rmSync(dir, { recursive: true, force: true });

    const basic = openApiWarmRequest(
      kubeconfig({ server: "https://h" }, { username: "admin", password: "pw" }),
      undefined,
      "/",
      noProxy,
    ) as OpenApiWarmRequest;
    expect(basic.headers["Authorization"]).toBe(`Basic ${Buffer.from("admin:pw").toString("base64")}`);
  });

  it("leaves to the provider what it cannot ask the way the provider would", () => {
    const skip = (text: string, context?: string, env = noProxy) =>
      (openApiWarmRequest(text, context, "/", env) as { skip?: string }).skip;
    expect(skip(kubeconfig({ server: "https://h" }, { exec: { command: "aws" } }))).toMatch(/plugin/);
    expect(skip(kubeconfig({ server: "https://h" }, { "auth-provider": { name: "oidc" } }))).toMatch(
      /plugin/,
    );
    expect(skip(kubeconfig({ server: "https://h", "proxy-url": "http://p:3128" }, { token: "t" }))).toMatch(
      /proxy/,
    );
    expect(
      skip(kubeconfig({ server: "https://h" }, { token: "t" }), undefined, { HTTPS_PROXY: "http://p" }),
    ).toMatch(/proxy/);
    expect(skip(kubeconfig({ server: "http://h:8080" }, { token: "t" }))).toMatch(/not https/);
    expect(skip(kubeconfig({ server: "https://h" }, { token: "t" }), "other")).toMatch(/no context other/);
    expect(skip(kubeconfig({ server: "https://h" }, { tokenFile: "/nonexistent/token" }))).toMatch(
      /cannot be read/,
    );
    expect(skip(": not yaml: [")).toMatch(/does not parse/);
  });
});

describe("warmOpenApi against a local HTTPS server", () => {
  let server: https.Server;
  let port = 0;
  const seen: { url?: string; accept?: string; auth?: string; clientCert: boolean }[] = [];
  /** Whether the last response's body was written to the end (the client must not wait for it). */
  let bodyFinished = false;

  beforeAll(async () => {
    server = https.createServer(
      {
        key: pem("server.key"),
        cert: pem("server.crt"),
        ca: pem("ca.crt"),
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => {
        const sock = req.socket as import("node:tls").TLSSocket;
        const clientCert = sock.authorized === true;
        seen.push({ url: req.url, accept: req.headers.accept, auth: req.headers.authorization, clientCert });
        // Like an API server: unauthenticated requests are refused, the document answers after it is built.
        if (!clientCert && req.headers.authorization !== "Bearer good") {
          res.writeHead(401).end();
          return;
        }
        res.writeHead(200, { "content-type": `${OPENAPI_V2_PROTOBUF}` });
        bodyFinished = false;
        // A large body in pieces: a client that waits for it would take seconds.
        let left = 40;
        const more = () => {
          if (res.destroyed) return;
          if (left-- === 0) {
            bodyFinished = true;
            res.end();
            return;
          }
          res.write(Buffer.alloc(64 * 1024));
          setTimeout(more, 100);
        };
        more();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("asks with the client certificate and returns at the status line, not after the body", async () => {
    const req = openApiWarmRequest(
      kubeconfig(
        { server: `https://127.0.0.1:${port}`, "certificate-authority-data": b64("ca.crt") },
        { "client-certificate-data": b64("client.crt"), "client-key-data": b64("client.key") },
      ),
      undefined,
      "/",
      noProxy,
    ) as OpenApiWarmRequest;
    seen.length = 0;
    expect(await warmOpenApi(req)).toBe(200);
    expect(bodyFinished).toBe(false);
    expect(seen).toEqual([
      { url: "/openapi/v2", accept: OPENAPI_V2_PROTOBUF, auth: undefined, clientCert: true },
    ]);
  });

  it("asks with a bearer token, checks the server's certificate by tls-server-name, and reports refusals", async () => {
    const config = (token: string, serverName?: string) =>
      openApiWarmRequest(
        kubeconfig(
          {
            server: `https://127.0.0.1:${port}`,
            "certificate-authority-data": b64("ca.crt"),
            ...(serverName ? { "tls-server-name": serverName } : {}),
          },
          { token },
        ),
        undefined,
        "/",
        noProxy,
      ) as OpenApiWarmRequest;
    seen.length = 0;
    expect(await warmOpenApi(config("good", "apiserver.test"))).toBe(200);
    expect(seen[0].auth).toBe("Bearer good");
    expect(await warmOpenApi(config("bad"))).toBe(401);
    // A name the certificate does not carry: the TLS check fails, nothing is sent.
    const wrongName = await warmOpenApi(config("good", "elsewhere.test"));
    expect(typeof wrongName).toBe("string");
    expect(String(wrongName)).toMatch(/elsewhere\.test|altnames/i);
    expect(seen).toHaveLength(2);
  });

  it("a context of the ambient kubeconfig: merged across KUBECONFIG files, file names against the first file's directory", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-kube-"));
    const saved = process.env["KUBECONFIG"];
    try {
      fs.mkdirSync(path.join(dir, "pki"));
      for (const f of ["ca.crt", "client.crt", "client.key"])
        fs.copyFileSync(path.join(TLS, f), path.join(dir, "pki", f));
      // The first file holds the cluster and the user (relative file names); the second the context, which the
      // first file's namesake context must not shadow since it does not define one by that name.
      fs.writeFileSync(
        path.join(dir, "a.yaml"),
        yaml.dump({
          clusters: [
            {
              name: "k",
              cluster: { server: `https://127.0.0.1:${port}`, "certificate-authority": "pki/ca.crt" },
            },
          ],
          users: [
            { name: "u", user: { "client-certificate": "pki/client.crt", "client-key": "pki/client.key" } },
          ],
          contexts: [{ name: "other", context: { cluster: "missing", user: "u" } }],
        }),
      );
      fs.mkdirSync(path.join(dir, "b"));
      fs.writeFileSync(
        path.join(dir, "b", "b.yaml"),
        yaml.dump({
          contexts: [{ name: "mine", context: { cluster: "k", user: "u" } }],
          "current-context": "mine",
        }),
      );
      process.env["KUBECONFIG"] = [path.join(dir, "a.yaml"), path.join(dir, "b", "b.yaml")].join(
        path.delimiter,
      );
      seen.length = 0;
      expect(startOpenApiWarmUp({ context: "mine" })).toBe(`asking https://127.0.0.1:${port}`);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([
        { url: "/openapi/v2", accept: OPENAPI_V2_PROTOBUF, auth: undefined, clientCert: true },
      ]);
      // The current context (of the second file) when none is given; a context whose cluster is missing is left.
      expect(startOpenApiWarmUp({})).toBe(`asking https://127.0.0.1:${port}`);
      expect(startOpenApiWarmUp({ context: "other" })).toBe(
        "skipped: no context other with a cluster in the kubeconfig",
      );
    } finally {
      if (saved === undefined) delete process.env["KUBECONFIG"];
      else process.env["KUBECONFIG"] = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives up after its timeout when the server does not answer", async () => {
    const silent = https.createServer({ key: pem("server.key"), cert: pem("server.crt") }, () => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const req = openApiWarmRequest(
      kubeconfig(
        {
          server: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`,
          "certificate-authority-data": b64("ca.crt"),
        },
        { token: "good" },
      ),
      undefined,
      "/",
      noProxy,
    ) as OpenApiWarmRequest;
    expect(await warmOpenApi(req, 300)).toBe("no answer in 300 ms");
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });
});

describe("warmUpFromRawConfig", () => {
  it("sends nothing without an engine (the unit tests' mocks, a plain import)", () => {
    expect(
      warmUpFromRawConfig({ "nvcf:kubeconfig": kubeconfig({ server: "https://127.0.0.1:1" }, {}) }),
    ).toBe(undefined);
  });
});
