/**
 * Kubeconfig access shared by the test stand-ins (nvcf-cli, nvca-operator): reads the kubeconfig as kubectl does
 * and gives the TLS options and headers to call the API server with. Test equipment only; the program reaches its
 * clusters through the Kubernetes provider and kubectl.
 */
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
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

module.exports = { KubeconfigError, loadKubeconfig, kubeTransport };
