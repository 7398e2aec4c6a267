/**
 * The API-server side of the stand-in in-pod tools (tests/bin/inpod) and of their host process
 * (tests/bin/inpod-agent): a small REST client over the kubeconfig's credentials, and the mapping from a path
 * inside a pod's container to the host directory that backs it (the PersistentVolume of the local StorageClass
 * `standard`, a host-path directory under /tmp/hostpath_pv/). Test equipment only: the program never loads it.
 */
"use strict";

const https = require("https");
const path = require("path");
const { loadKubeconfig, kubeTransport } = require(path.join(__dirname, "../../kube-access.js"));

/** A failed API call: `status` is the HTTP status (0: no answer), the message the API's Status message. */
class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * A REST client for one kubeconfig context. Input: the kubeconfig file, the context (empty: current-context),
 * the User-Agent to send. Each call resolves the parsed JSON body; `get` resolves null for a 404, every other
 * non-2xx status rejects with an ApiError naming the method, path and the API's message. One kept-alive TLS
 * connection; 20 s per request.
 */
class Kube {
  constructor(kubeconfig, context, userAgent) {
    const kc = loadKubeconfig(kubeconfig, context);
    this.server = new URL(kc.server);
    const { tls, headers } = kubeTransport(kc);
    this.headers = { Accept: "application/json", "User-Agent": userAgent, ...headers };
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 2, ...tls });
  }

  /** One request; resolves { status, body }; rejects only when no answer came. */
  send(method, apiPath, query, body, contentType) {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = { ...this.headers };
    if (payload) Object.assign(headers, { "Content-Type": contentType, "Content-Length": payload.length });
    const qs = query ? `?${new URLSearchParams(query)}` : "";
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          agent: this.agent,
          hostname: this.server.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: this.server.port || 443,
          path: this.server.pathname.replace(/\/$/, "") + apiPath + qs,
          method,
          headers,
          timeout: 20000,
        },
        (res) => {
          const chunks = [];
          res.on("data", (d) => chunks.push(d));
          res.on("error", reject);
          res.on("end", () => {
            let parsed;
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              parsed = undefined;
            }
            resolve({ status: res.statusCode, body: parsed });
          });
        },
      );
      req.on("timeout", () => req.destroy(new ApiError(0, `${method} ${apiPath}: no answer within 20 s`)));
      req.on("error", (e) => reject(e instanceof ApiError ? e : new ApiError(0, `${method} ${apiPath}: ${e.message}`)));
      req.end(payload);
    });
  }

  async call(method, apiPath, { query, body, type } = {}) {
    const r = await this.send(method, apiPath, query, body, type || "application/json");
    if (r.status >= 200 && r.status < 300) return r.body;
    const err = new ApiError(r.status, `${method} ${apiPath}: ${r.body?.message || `HTTP ${r.status}`}`);
    err.reason = r.body?.reason;
    throw err;
  }

  /** The object at `apiPath`, or null when there is none. */
  async get(apiPath) {
    try {
      return await this.call("GET", apiPath);
    } catch (e) {
      if (e.status === 404) return null;
      throw e;
    }
  }

  /** The items of a collection (optionally by label selector). */
  async list(apiPath, labelSelector) {
    const body = await this.call("GET", apiPath, { query: labelSelector ? { labelSelector } : undefined });
    return Array.isArray(body?.items) ? body.items : [];
  }

  create(apiPath, obj) {
    return this.call("POST", apiPath, { body: obj });
  }

  /** A merge patch (RFC 7386). */
  mergePatch(apiPath, patch) {
    return this.call("PATCH", apiPath, { body: patch, type: "application/merge-patch+json" });
  }

  close() {
    this.agent.destroy();
  }
}

/** The API path of namespaced object `name` (or the collection) of kind `plural` in core v1. */
const corePath = (plural, ns, name) =>
  `/api/v1${ns ? `/namespaces/${encodeURIComponent(ns)}` : ""}/${plural}${name ? `/${encodeURIComponent(name)}` : ""}`;

/** Whether the pod runs: phase Running and condition Ready True. */
function podReady(pod) {
  return (
    pod?.status?.phase === "Running" &&
    (pod.status.conditions || []).some((c) => c.type === "Ready" && c.status === "True") &&
    !pod.metadata.deletionTimestamp
  );
}

/** The container `name` of the pod's spec, or undefined. */
const containerOf = (pod, name) => (pod?.spec?.containers || []).find((c) => c.name === name);

/** A plain env value of the container (`value`, not `valueFrom`), or undefined. */
const envOf = (container, name) => (container?.env || []).find((e) => e.name === name)?.value;

/**
 * The volume mount of `container` that holds the in-container path `inPath` (the longest mountPath that is it or a
 * parent of it), or undefined.
 */
function mountFor(container, inPath) {
  const ms = (container?.volumeMounts || []).filter(
    (m) => inPath === m.mountPath || inPath.startsWith(m.mountPath.replace(/\/$/, "") + "/"),
  );
  return ms.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
}

/**
 * The host directory of a PersistentVolumeClaim's volume (PV spec.hostPath.path, or spec.local.path). Rejects
 * with a message when the claim does not exist, is not bound, or its volume has no host directory.
 */
async function claimHostDir(kube, ns, claimName) {
  const pvc = await kube.get(corePath("persistentvolumeclaims", ns, claimName));
  if (!pvc) throw new Error(`persistentvolumeclaim ${ns}/${claimName} not found`);
  const pvName = pvc.spec?.volumeName;
  if (!pvName || pvc.status?.phase !== "Bound") throw new Error(`persistentvolumeclaim ${ns}/${claimName} is not bound`);
  const pv = await kube.get(corePath("persistentvolumes", undefined, pvName));
  const dir = pv?.spec?.hostPath?.path || pv?.spec?.local?.path;
  if (!dir) throw new Error(`persistentvolume ${pvName} of ${ns}/${claimName} has no host directory`);
  return { dir, pvc };
}

/**
 * Where an in-container path of a pod lives on this host. Input: the pod, the container name, the in-container
 * path, and optionally `claimName` to use instead of the pod's own claim for that mount (the same mount of
 * another replica of the StatefulSet: `<volume>-<statefulset>-<ordinal>`). Output: { host, mount, claimName }.
 * Rejects with a message when no mount holds the path, or the mount is not a bound claim.
 */
async function hostPathOf(kube, pod, containerName, inPath, claimName) {
  const container = containerOf(pod, containerName);
  if (!container) throw new Error(`pod ${pod.metadata.name} has no container ${containerName}`);
  const m = mountFor(container, inPath);
  if (!m) throw new Error(`no volume of container ${containerName} holds ${inPath}`);
  let claim = claimName;
  if (!claim) {
    const vol = (pod.spec.volumes || []).find((v) => v.name === m.name);
    claim = vol?.persistentVolumeClaim?.claimName;
    if (!claim) throw new Error(`volume ${m.name} of pod ${pod.metadata.name} is not a persistent volume claim`);
  }
  const { dir } = await claimHostDir(kube, pod.metadata.namespace, claim);
  const rel = path.relative(m.mountPath, inPath);
  return { host: path.join(dir, m.subPath || "", rel), mount: m, claimName: claim };
}

/**
 * The StatefulSet a pod belongs to and its ordinal: the controller owner when there is one, else the pod name
 * without its `-<ordinal>` suffix (a pod orphaned by `kubectl delete statefulset --cascade=orphan`).
 */
function statefulSetOf(pod) {
  const m = /^(.*)-(\d+)$/.exec(pod.metadata.name);
  const owner = (pod.metadata.ownerReferences || []).find((o) => o.kind === "StatefulSet" && o.controller);
  return { name: owner?.name || (m ? m[1] : pod.metadata.name), ordinal: m ? Number(m[2]) : 0 };
}

/** The pod's context as the in-pod tools get it from their Exec object's environment (tests/bin/inpod-agent). */
function podContext() {
  const need = ["NVCF_INPOD_KUBECONFIG", "NVCF_INPOD_NAMESPACE", "NVCF_INPOD_POD", "NVCF_INPOD_STATE"];
  const missing = need.filter((k) => !process.env[k]);
  if (missing.length) {
    throw new Error(`not started by kubectl exec into a local cluster's pod (${missing.join(", ")} unset)`);
  }
  return {
    kube: new Kube(process.env.NVCF_INPOD_KUBECONFIG, process.env.NVCF_INPOD_CONTEXT || "", "nvcf-inpod-tool"),
    namespace: process.env.NVCF_INPOD_NAMESPACE,
    pod: process.env.NVCF_INPOD_POD,
    container: process.env.NVCF_INPOD_CONTAINER || "",
    stateDir: process.env.NVCF_INPOD_STATE,
  };
}

module.exports = {
  ApiError,
  Kube,
  corePath,
  podReady,
  containerOf,
  envOf,
  mountFor,
  claimHostDir,
  hostPathOf,
  statefulSetOf,
  podContext,
};
