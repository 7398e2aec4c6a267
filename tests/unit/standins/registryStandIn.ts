/**
 * A small container registry for tests: a real HTTP(S) server that speaks the parts of the Docker Registry
 * HTTP API v2 / OCI distribution spec a login and a manifest lookup use, with its own token service, as
 * registries such as Docker's distribution, Harbor or NGC do:
 *
 * - `GET /v2/` without valid credentials: 401 with `WWW-Authenticate: Bearer realm="<base>/token",service=…`
 *   (mode `bearer`) or `Basic realm=…` (mode `basic`); with a valid token or basic auth: 200.
 * - `GET /token?service=…&scope=repository:<repo>:pull` with basic auth: 401 for an unknown user or a wrong
 *   password; else 200 `{token, access_token}` whose grant holds only the repositories the user may read
 *   (distribution's behaviour: no 403, a token without the access), or 403 with `denyOnToken`.
 * - `HEAD|GET /v2/<repo>/manifests/<tag>` and `GET /v2/<repo>/tags/list`: 401 `insufficient_scope` when the
 *   credentials do not grant pull on `<repo>`, 404 `MANIFEST_UNKNOWN` / `NAME_UNKNOWN`, else 200 with a digest.
 * - `hang`: accept connections and never answer (for timeouts).
 *
 * Every request is recorded (method, path, whether and how it authenticated) for assertions.
 */
import { createHash, randomBytes } from "node:crypto";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";

export interface StandInOptions {
  /** `bearer` (token service, the default) or `basic`. */
  mode?: "bearer" | "basic";
  /** user → password. */
  users: Record<string, string>;
  /** repository path → its tags and the users who may pull it. */
  repos: Record<string, { tags: string[]; readers: string[] }>;
  /** The token service answers 403 instead of a token without access when the user may not pull. */
  denyOnToken?: boolean;
  /** Never answer anything. */
  hang?: boolean;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** Host name put into the token realm (default 127.0.0.1). */
  publicHost?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** `basic:<user>`, `bearer`, or undefined. */
  auth?: string;
}

export interface StandIn {
  /** `127.0.0.1:<port>` (or `<publicHost>:<port>`): the registry host as an image reference names it. */
  host: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const json = (
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(res.req.method === "HEAD" ? undefined : text);
};

/** Starts the stand-in on 127.0.0.1 (a free port). Resolves once it listens. */
export async function startRegistry(opts: StandInOptions): Promise<StandIn> {
  const users = { ...opts.users };
  const tokens = new Map<string, { user?: string; pull: Set<string> }>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let base = "";
  const mayPull = (user: string | undefined, repo: string) =>
    user !== undefined && (opts.repos[repo]?.readers.includes(user) ?? false);
  const basicUser = (h: string | undefined): { user?: string; valid: boolean; present: boolean } => {
    if (!h?.startsWith("Basic ")) return { valid: false, present: false };
    const [user, ...rest] = Buffer.from(h.slice(6), "base64").toString("utf8").split(":");
    return { user, valid: users[user] !== undefined && users[user] === rest.join(":"), present: true };
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (opts.hang) return;
    const url = new URL(req.url ?? "/", "http://x");
    const h = req.headers.authorization;
    requests.push({
      method: req.method ?? "",
      path: `${url.pathname}${url.search}`,
      auth: h?.startsWith("Basic ")
        ? `basic:${basicUser(h).user}`
        : h?.startsWith("Bearer ")
          ? "bearer"
          : undefined,
    });
    const challenge =
      opts.mode === "basic"
        ? 'Basic realm="stand-in registry"'
        : `Bearer realm="${base}/token",service="stand-in-registry"`;
    // Who is asking on a registry endpoint, and what may they pull.
    const grant = (): { ok: boolean; user?: string; pull: Set<string> } => {
      if (opts.mode === "basic") {
        const b = basicUser(h);
        return {
          ok: b.valid,
          user: b.user,
          pull: new Set(Object.keys(opts.repos).filter((r) => b.valid && mayPull(b.user, r))),
        };
      }
      const t = h?.startsWith("Bearer ") ? tokens.get(h.slice(7)) : undefined;
      return t ? { ok: true, user: t.user, pull: t.pull } : { ok: false, pull: new Set() };
    };
    if (url.pathname === "/token" && opts.mode !== "basic") {
      const b = basicUser(h);
      if (b.present && !b.valid)
        return json(res, 401, { errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] });
      const scope = url.searchParams.get("scope") ?? "";
      const m = /^repository:([^:]+):([a-z,]+)$/.exec(scope);
      const pull = new Set<string>();
      if (m && m[2].split(",").includes("pull") && mayPull(b.user, m[1])) pull.add(m[1]);
      if (m && pull.size === 0 && opts.denyOnToken)
        return json(res, 403, {
          errors: [{ code: "DENIED", message: `requested access to ${m[1]} is denied` }],
        });
      const token = randomBytes(16).toString("hex");
      tokens.set(token, { user: b.user, pull });
      return json(res, 200, { token, access_token: token, expires_in: 300 });
    }
    if (url.pathname === "/v2/" || url.pathname === "/v2") {
      const g = grant();
      return g.ok
        ? json(res, 200, {})
        : json(
            res,
            401,
            { errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] },
            {
              "WWW-Authenticate": challenge,
            },
          );
    }
    const mm = /^\/v2\/(.+)\/(manifests\/([^/]+)|tags\/list)$/.exec(url.pathname);
    if (mm) {
      const repo = mm[1];
      const g = grant();
      if (!g.ok || !g.pull.has(repo))
        return json(
          res,
          401,
          {
            errors: [
              {
                code: "UNAUTHORIZED",
                message: "authentication required",
                detail: [{ Type: "repository", Name: repo, Action: "pull" }],
              },
            ],
          },
          {
            "WWW-Authenticate":
              opts.mode === "basic"
                ? challenge
                : `${challenge},scope="repository:${repo}:pull",error="insufficient_scope"`,
          },
        );
      const r = opts.repos[repo];
      if (!r)
        return json(res, 404, {
          errors: [{ code: "NAME_UNKNOWN", message: "repository name not known to registry" }],
        });
      if (mm[2] === "tags/list") return json(res, 200, { name: repo, tags: r.tags });
      const tag = decodeURIComponent(mm[3]);
      if (!r.tags.includes(tag))
        return json(res, 404, { errors: [{ code: "MANIFEST_UNKNOWN", message: "manifest unknown" }] });
      const manifest = JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        repo,
        tag,
      });
      res.writeHead(200, {
        "Content-Type": "application/vnd.oci.image.manifest.v1+json",
        "Docker-Content-Digest": `sha256:${createHash("sha256").update(manifest).digest("hex")}`,
        "Content-Length": Buffer.byteLength(manifest),
      });
      return res.end(req.method === "HEAD" ? undefined : manifest);
    }
    return json(res, 404, { errors: [{ code: "NOT_FOUND", message: "no such endpoint" }] });
  };
  const server = opts.tls
    ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler)
    : http.createServer(handler);
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const host = `${opts.publicHost ?? "127.0.0.1"}:${port}`;
  base = `${opts.tls ? "https" : "http"}://${host}`;
  return {
    host,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
