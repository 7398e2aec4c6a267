/**
 * Kubeconfig access shared by the test stand-ins (nvcf-cli, nvca-operator, gateway-controller): reads the
 * kubeconfig as kubectl does and gives the TLS options and headers to call the API server with; `kubeClient` is the
 * REST client of the long-running stand-ins (one kept-alive HTTPS connection). Test equipment only; the program
 * reaches its clusters through the Kubernetes provider and kubectl.
 */
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const https = require("https");
const childProcess = require("child_process");
const yaml = require(path.join(__dirname, "../../node_modules/js-yaml"));

/** A kubeconfig that cannot be used; the message names the file, context, cluster or user at fault. */
class KubeconfigError extends Error {}

/**
 * Reads the kubeconfig as kubectl does: `flagPath`, else every file of KUBECONFIG (first definition wins), else
 * ~/.kube/config; the context `contextName`, else the first current-context (or the only context). Output: { files,
 * context, server (no trailing slash), cluster, clusterDir, user, userDir } (the *Dir entries resolve relative
 * paths). Throws KubeconfigError naming what is missing.
 */
function loadKubeconfig(flagPath, contextName) {
  let files;
  if (flagPath) {
    if (!fs.existsSync(flagPath)) throw new KubeconfigError(`kubeconfig ${flagPath} not found`);
    files = [path.resolve(flagPath)];
  } else if (process.env.KUBECONFIG) {
    files = process.env.KUBECONFIG.split(path.delimiter)
      .filter(Boolean)
      .map((f) => path.resolve(f))
      .filter((f) => fs.existsSync(f));
    if (!files.length) throw new KubeconfigError(`no kubeconfig found: none of KUBECONFIG=${process.env.KUBECONFIG} exists`);
  } else {
    const def = path.join(os.homedir(), ".kube", "config");
    if (!fs.existsSync(def)) throw new KubeconfigError(`no kubeconfig: pass --kubeconfig, set KUBECONFIG or create ${def}`);
    files = [def];
  }
  let current = contextName || "";
  const found = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const f of files) {
    let doc;
    try {
      doc = yaml.load(fs.readFileSync(f, "utf8")) || {};
    } catch (e) {
      throw new KubeconfigError(`cannot parse kubeconfig ${f}: ${e.message.split("\n")[0]}`);
    }
    if (typeof doc !== "object" || Array.isArray(doc)) throw new KubeconfigError(`kubeconfig ${f} is not a YAML mapping`);
    if (!current && doc["current-context"]) current = String(doc["current-context"]);
    for (const kind of ["clusters", "users", "contexts"]) {
      for (const item of Array.isArray(doc[kind]) ? doc[kind] : []) {
        if (item && item.name !== undefined && !found[kind].has(String(item.name))) {
          found[kind].set(String(item.name), { item, dir: path.dirname(f) });
        }
      }
    }
  }
  if (!current) {
    if (found.contexts.size === 1) current = [...found.contexts.keys()][0];
    else throw new KubeconfigError(`kubeconfig ${files.join(path.delimiter)} has no current-context`);
  }
  const ctx = found.contexts.get(current);
  if (!ctx || !ctx.item.context) throw new KubeconfigError(`kubeconfig context "${current}" not found`);
  const cl = found.clusters.get(String(ctx.item.context.cluster));
  if (!cl || !cl.item.cluster) throw new KubeconfigError(`kubeconfig context "${current}" names cluster "${ctx.item.context.cluster}", which is not defined`);
  const us = ctx.item.context.user !== undefined ? found.users.get(String(ctx.item.context.user)) : undefined;
  if (ctx.item.context.user !== undefined && !us) {
    throw new KubeconfigError(`kubeconfig context "${current}" names user "${ctx.item.context.user}", which is not defined`);
  }
  const server = String(cl.item.cluster.server || "");
  if (!server) throw new KubeconfigError(`kubeconfig cluster "${ctx.item.context.cluster}" has no server`);
  let u;
  try {
    u = new URL(server);
  } catch {
    throw new KubeconfigError(`kubeconfig server "${server}" is not a valid URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new KubeconfigError(`kubeconfig server "${server}" must be an http(s) URL`);
  }
  return {
    files,
    context: current,
    server: server.replace(/\/+$/, ""),
    cluster: cl.item.cluster,
    clusterDir: cl.dir,
    user: (us && us.item.user) || {},
    userDir: us ? us.dir : path.dirname(files[0]),
  };
}

function readRelative(dir, file, what) {
  const p = path.isAbsolute(file) ? file : path.join(dir, file);
  try {
    return fs.readFileSync(p);
  } catch (e) {
    throw new KubeconfigError(`cannot read ${what} ${p}: ${e.code || e.message}`);
  }
}

function b64(value, what) {
  const buf = Buffer.from(String(value), "base64");
  if (!buf.length) throw new KubeconfigError(`kubeconfig ${what} is empty or not base64`);
  return buf;
}

/**
 * TLS options and headers for talking to the API server with the kubeconfig's credentials (loadKubeconfig's
 * result): CA, insecure-skip-tls-verify, tls-server-name; client certificate and key, bearer token or token file,
 * basic auth, or an exec plugin's ExecCredential. Output: { tls (for https.request or an https.Agent), headers }.
 * Throws KubeconfigError (auth-provider users are not supported).
 */
function kubeTransport(kc) {
  const c = kc.cluster;
  const u = kc.user;
  const tls = {};
  const headers = {};
  if (c["certificate-authority-data"]) tls.ca = b64(c["certificate-authority-data"], "certificate-authority-data");
  else if (c["certificate-authority"]) tls.ca = readRelative(kc.clusterDir, c["certificate-authority"], "certificate-authority");
  if (c["insecure-skip-tls-verify"] === true) tls.rejectUnauthorized = false;
  if (c["tls-server-name"]) tls.servername = String(c["tls-server-name"]);
  if (u["auth-provider"]) throw new KubeconfigError(`kubeconfig user auth-provider "${u["auth-provider"].name}" is not supported`);
  let cred = {};
  if (u.exec) cred = runExecPlugin(u.exec, kc.userDir);
  const certData = cred.clientCertificateData || u["client-certificate-data"];
  const keyData = cred.clientKeyData || u["client-key-data"];
  if (certData) tls.cert = cred.clientCertificateData ? Buffer.from(certData) : b64(certData, "client-certificate-data");
  else if (u["client-certificate"]) tls.cert = readRelative(kc.userDir, u["client-certificate"], "client-certificate");
  if (keyData) tls.key = cred.clientKeyData ? Buffer.from(keyData) : b64(keyData, "client-key-data");
  else if (u["client-key"]) tls.key = readRelative(kc.userDir, u["client-key"], "client-key");
  if (Boolean(tls.cert) !== Boolean(tls.key)) throw new KubeconfigError("kubeconfig user has a client certificate without a key (or a key without a certificate)");
  let token = cred.token || u.token;
  if (!token && u.tokenFile) token = readRelative(kc.userDir, u.tokenFile, "tokenFile").toString("utf8").trim();
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (u.username !== undefined) {
    headers.Authorization = `Basic ${Buffer.from(`${u.username}:${u.password || ""}`).toString("base64")}`;
  }
  return { tls, headers };
}

function runExecPlugin(ex, dir) {
  let cmd = String(ex.command || "");
  if (!cmd) throw new KubeconfigError("kubeconfig exec plugin has no command");
  if (cmd.includes("/") && !path.isAbsolute(cmd)) cmd = path.join(dir, cmd);
  const env = { ...process.env };
  for (const e of Array.isArray(ex.env) ? ex.env : []) env[e.name] = String(e.value);
  env.KUBERNETES_EXEC_INFO = JSON.stringify({
    apiVersion: ex.apiVersion || "client.authentication.k8s.io/v1",
    kind: "ExecCredential",
    spec: { interactive: false },
  });
  const r = childProcess.spawnSync(cmd, (ex.args || []).map(String), {
    env,
    encoding: "utf8",
    timeout: 60000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (r.error) throw new KubeconfigError(`kubeconfig exec plugin ${cmd} could not run: ${r.error.code || r.error.message}`);
  if (r.status !== 0) {
    throw new KubeconfigError(`kubeconfig exec plugin ${cmd} failed (exit ${r.status}): ${String(r.stderr).trim().slice(0, 300)}`);
  }
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new KubeconfigError(`kubeconfig exec plugin ${cmd} printed no ExecCredential JSON`);
  }
  return (out && out.status) || {};
}

/**
 * A REST client for the long-running stand-ins (nvca-operator, gateway-controller): plain requests to the API server
 * of the kubeconfig's context (`kubeconfig` file, `context` or its current-context), over one kept-alive HTTPS
 * connection (closed after 60 s unused, before the API server's 90 s idle limit), each with a `timeoutMs` limit
 * (default 20 s, as kubectl's --request-timeout=20s). The kubeconfig is read again only when the file changes or a
 * request got no answer. `isStopping()` ends the retries of a 429/5xx early; `sleep(ms)` waits between them (the
 * caller's, so a signal can cut it short). Output: { request, get, list, patch, deleteAll, apiPath, failure }, each
 * documented below; no method throws.
 */
function kubeClient({ kubeconfig, context, userAgent, timeoutMs = 20000, isStopping = () => false, sleep }) {
  const wait = sleep || ((ms) => new Promise((r) => setTimeout(r, ms)));
  /** The connection in use: { stamp, server, headers, agent, stale }. */
  let conn;

  /** The connection, made again (kubeconfig re-read) when the file changed or the last request got no answer. */
  function connection() {
    const st = fs.statSync(kubeconfig);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    if (conn && conn.stamp === stamp && !conn.stale) return conn;
    if (conn) conn.agent.destroy();
    conn = undefined;
    const kc = loadKubeconfig(kubeconfig, context);
    const server = new URL(kc.server);
    if (server.protocol !== "https:") throw new Error(`server ${kc.server} is not https`);
    const { tls, headers } = kubeTransport(kc);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, timeout: 60000, ...tls });
    conn = { stamp, server, headers, agent, stale: false };
    return conn;
  }

  /**
   * One request; resolves { status, body, message } and never rejects. status 0: no answer (kubeconfig unreadable,
   * server unreachable, timeoutMs passed); body: the parsed JSON response; message: the API's Status message, or
   * the error. Options: query (object), body (sent as JSON), type (Content-Type), accept (Accept; default JSON).
   * Sent again, as client-go (so kubectl) does, when the server asks for it: a 429 or 5xx with Retry-After (e.g.
   * "storage is (re)initializing" for a CRD just established), at most 10 times.
   */
  async function request(method, apiPath, options) {
    for (let attempt = 1; ; attempt++) {
      const r = await send(method, apiPath, options);
      const retryable = r.status === 429 || (r.status >= 500 && r.status <= 504);
      const after = Number.parseInt(r.retryAfter, 10);
      if (!retryable || !(after >= 0) || attempt > 10 || isStopping()) return r;
      await wait(Math.min(after, 10) * 1000);
    }
  }

  /** request()'s one attempt; { ..., retryAfter } is the response's Retry-After header. */
  function send(method, apiPath, { query, body, type, accept } = {}, retry = true) {
    let c;
    try {
      c = connection();
    } catch (e) {
      return Promise.resolve({ status: 0, message: e.message });
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = { Accept: accept || "application/json", "User-Agent": userAgent, ...c.headers };
    if (payload) {
      headers["Content-Type"] = type || "application/json";
      headers["Content-Length"] = payload.length;
    }
    const qs = query ? `?${new URLSearchParams(query)}` : "";
    return new Promise((resolve) => {
      let done = false;
      const finish = (r) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(r);
      };
      const req = https.request(
        {
          agent: c.agent,
          hostname: c.server.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: c.server.port || 443,
          path: c.server.pathname.replace(/\/$/, "") + apiPath + qs,
          method,
          headers,
        },
        (res) => {
          const chunks = [];
          res.on("data", (d) => chunks.push(d));
          res.on("error", (e) => finish({ status: 0, message: e.message }));
          res.on("end", () => {
            let parsed;
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              /* not JSON */
            }
            const message = parsed?.message || res.statusMessage;
            finish({ status: res.statusCode, body: parsed, message, retryAfter: res.headers["retry-after"] });
          });
        },
      );
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      req.on("error", (e) => {
        if (done) return;
        // A kept-alive connection the server closed as it was reused: the request never got there; once more.
        if (retry && req.reusedSocket && e.code === "ECONNRESET") {
          done = true;
          clearTimeout(timer);
          resolve(send(method, apiPath, { query, body, type, accept }, false));
          return;
        }
        c.stale = true; // read the kubeconfig again before the next request (the cluster may have moved)
        finish({ status: 0, message: e.message });
      });
      req.end(payload);
    });
  }

  /** The API path of a collection, or of object `name` in it (and its subresource `sub`); gv "v1" is the core group. */
  function apiPath(gv, plural, ns, name, sub) {
    let p = gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`;
    if (ns) p += `/namespaces/${encodeURIComponent(ns)}`;
    p += `/${plural}`;
    if (name) p += `/${encodeURIComponent(name)}`;
    if (sub) p += `/${sub}`;
    return p;
  }

  /**
   * The objects of a collection (all namespaces when `ns` is empty), kind and apiVersion set on each (a list's items
   * lack them); undefined on failure. `opts.metadataOnly`: only each object's metadata (PartialObjectMetadata,
   * kind/apiVersion then those of the metadata list), a fraction of the bytes. `opts.notFound` is returned instead
   * of undefined when the collection does not exist (404: its CRD is not installed).
   */
  async function list(gv, plural, ns, selector, opts = {}) {
    const query = selector ? { labelSelector: selector } : undefined;
    const accept = opts.metadataOnly
      ? "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json"
      : undefined;
    const r = await request("GET", apiPath(gv, plural, ns), { query, accept });
    if (r.status === 404 && "notFound" in opts) return opts.notFound;
    if (r.status !== 200 || !Array.isArray(r.body?.items)) return undefined;
    const kind = String(r.body.kind || "").replace(/List$/, "");
    return r.body.items.map((o) => ({ apiVersion: r.body.apiVersion, kind, ...o }));
  }

  /** One object; null when it does not exist (404), undefined when the server did not answer or refused. */
  async function get(gv, plural, ns, name) {
    const r = await request("GET", apiPath(gv, plural, ns, name));
    if (r.status === 200 && r.body) return r.body;
    return r.status === 404 ? null : undefined;
  }

  /**
   * Patches an object (type "json": a JSON patch, "merge": a merge patch), or its subresource `sub`; resolves the
   * response ({ status, body, message }; status 200 when done, 409 when a resourceVersion in the patch is stale).
   */
  function patch(gv, plural, ns, name, type, body, sub) {
    const ct = type === "json" ? "application/json-patch+json" : "application/merge-patch+json";
    return request("PATCH", apiPath(gv, plural, ns, name, sub), { body, type: ct });
  }

  /** Deletes the objects of a collection that match a label selector, dependents in the background. */
  function deleteAll(gv, plural, ns, selector) {
    const body = { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background" };
    return request("DELETE", apiPath(gv, plural, ns), { query: { labelSelector: selector }, body });
  }

  /** A failed request, for a log line. */
  const failure = (r) =>
    r.status ? `${r.status}${r.body?.reason ? ` ${r.body.reason}` : ""}: ${r.message}` : r.message;

  return { request, get, list, patch, deleteAll, apiPath, failure };
}

module.exports = { KubeconfigError, loadKubeconfig, kubeTransport, kubeClient };
