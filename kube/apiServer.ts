/**
 * Requests to a cluster's API server for the server-side dry run of a preview (kube/dryRun.ts): many small
 * requests (a read, then a dry-run create, patch or delete per object), which one kubectl process per request
 * would make slow. `ApiServer.open` starts one `kubectl proxy` for the cluster on a unix socket in a private
 * directory (mode 0700, so no other user of the machine can use the credentials through it) and sends every
 * request through it: kubectl authenticates exactly as it does for the program's other calls (contexts, client
 * certificates, tokens, exec plugins such as `aws eks get-token`). `close()` stops the proxy and removes the
 * directory.
 *
 * Also here: API discovery (is a kind served, under which resource name, namespaced or not) and each kind's
 * patch metadata from the server's OpenAPI v3 document (kube/helmPatch.ts `PatchMetaLookup`).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { type FieldPatchMeta, type Obj, type PatchMetaLookup, isObj, splitApiVersion } from "./helmPatch";
import { type KubeTarget, kubeconfigFile } from "./kubectl";

/** One answer of the API server. */
export interface ApiResponse {
  /** HTTP status; 0 when the request did not get an answer (then `error` says why). */
  status: number;
  /** The body parsed as JSON, when it is JSON. */
  body: unknown;
  /** The `Warning` headers' texts (RFC 7234 299 warnings: Pod Security admission, deprecated APIs, unknown fields). */
  warnings: string[];
  /** Why there was no answer (connection refused, timeout). */
  error?: string;
}

/** How a kind is served. */
export interface ServedKind {
  /** The resource name in paths (`statefulsets`). */
  resource: string;
  namespaced: boolean;
}

/** How to reach the cluster: a kubeconfig context and/or file, or a kubeconfig's text, and the kubectl binary. */
export interface ApiServerAccess extends KubeTarget {
  kubectl?: string;
  /** A kubeconfig's text (a secret): written to a private file for the proxy's lifetime. */
  kubeconfigText?: string;
}

/** Parses `Warning` header values (`299 - "text"`) into their texts. */
export function warningTexts(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const out: string[] = [];
  for (const v of values) {
    const re = /\d{3}\s+\S+\s+"((?:[^"\\]|\\.)*)"/g;
    let found = false;
    for (let m = re.exec(v); m; m = re.exec(v)) {
      out.push(m[1].replace(/\\(.)/g, "$1"));
      found = true;
    }
    if (!found && v.trim()) out.push(v.trim());
  }
  return out;
}

/** A cluster's API server, reached through a private `kubectl proxy`. */
export class ApiServer {
  private readonly served = new Map<string, Promise<Obj | undefined>>();
  private readonly openapi = new Map<string, Promise<Obj | undefined>>();
  private openapiIndex?: Promise<Obj | undefined>;

  private constructor(
    private readonly socket: string,
    private readonly cleanup: () => void,
    /** Milliseconds each request may take. */
    private readonly timeoutMs: number,
  ) {}

  /**
   * Starts the proxy. Input: the access, and how long starting and each request may take (ms). Output: the
   * server, once the proxy serves. Rejects with kubectl's own message when the proxy does not start (no such
   * context, unreadable kubeconfig, kubectl missing).
   */
  static async open(access: ApiServerAccess, timeoutMs = 30000): Promise<ApiServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-api-"));
    fs.chmodSync(dir, 0o700);
    const socket = path.join(dir, "proxy.sock");
    const kc = access.kubeconfigText !== undefined ? kubeconfigFile(access.kubeconfigText) : undefined;
    const args = [
      ...(kc ? ["--kubeconfig", kc.file] : access.kubeconfig ? ["--kubeconfig", access.kubeconfig] : []),
      ...(access.context ? ["--context", access.context] : []),
      "proxy",
      `--unix-socket=${socket}`,
      // Only this process's requests arrive, over a socket no one else can open: every path is let through.
      "--reject-paths=^$",
    ];
    const child = spawn(access.kubectl ?? "kubectl", args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: process.env,
    });
    const cleanup = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      kc?.remove();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    try {
      await new Promise<void>((resolve, reject) => {
        let err = "";
        const timer = setTimeout(
          () => reject(new Error(`kubectl proxy did not start in ${timeoutMs} ms`)),
          timeoutMs,
        );
        child.stdout?.on("data", (d: Buffer) => {
          if (d.toString().includes("Starting to serve")) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
        child.on("error", (e) => {
          clearTimeout(timer);
          reject(e);
        });
        child.on("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`kubectl proxy exited (${code}): ${err.trim() || "no message"}`));
        });
      });
    } catch (e) {
      cleanup();
      throw e;
    }
    child.stdout?.resume();
    child.stderr?.resume();
    // The proxy must not keep the program alive, nor outlive it.
    child.unref();
    const onExit = () => cleanup();
    process.once("exit", onExit);
    return new ApiServer(
      socket,
      () => {
        process.off("exit", onExit);
        cleanup();
      },
      timeoutMs,
    );
  }

  /** Stops the proxy and removes its directory. Safe to call twice. */
  close(): void {
    this.cleanup();
  }

  /**
   * One request. Input: method, path (with its query), and optionally a JSON body and its content type. Output:
   * the answer; never rejects (a request without an answer has status 0 and `error`).
   */
  request(
    method: string,
    p: string,
    opts: { body?: unknown; contentType?: string } = {},
  ): Promise<ApiResponse> {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    return new Promise((resolve) => {
      const req = http.request(
        {
          socketPath: this.socket,
          path: p,
          method,
          headers: {
            Accept: "application/json",
            ...(payload !== undefined
              ? {
                  "Content-Type": opts.contentType ?? "application/json",
                  "Content-Length": Buffer.byteLength(payload),
                }
              : {}),
          },
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON: kept as text
            }
            resolve({ status: res.statusCode ?? 0, body, warnings: warningTexts(res.headers["warning"]) });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer in ${this.timeoutMs} ms`)));
      req.on("error", (e) => resolve({ status: 0, body: undefined, warnings: [], error: e.message }));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** GET of a path, parsed; undefined on 404. Throws with the server's message on any other failure. */
  async get<T = Obj>(p: string): Promise<T | undefined> {
    const r = await this.request("GET", p);
    if (r.status === 404) return undefined;
    if (r.status < 200 || r.status >= 300) throw new Error(`GET ${p}: ${statusMessage(r)}`);
    return r.body as T;
  }

  /** The resource list of one group version (`/api/v1`, `/apis/<group>/<version>`), cached; undefined: not served. */
  private resourceList(apiVersion: string): Promise<Obj | undefined> {
    let p = this.served.get(apiVersion);
    if (!p) {
      const { group, version } = splitApiVersion(apiVersion);
      p = this.get<Obj>(group === "" ? `/api/${version}` : `/apis/${group}/${version}`);
      this.served.set(apiVersion, p);
    }
    return p;
  }

  /** How `kind` of `apiVersion` is served; undefined when the cluster does not serve it. */
  async kind(apiVersion: string, kind: string): Promise<ServedKind | undefined> {
    const list = await this.resourceList(apiVersion);
    const resources = (list?.["resources"] as { name: string; kind: string; namespaced: boolean }[]) ?? [];
    const r = resources.find((x) => x.kind === kind && !x.name.includes("/"));
    return r ? { resource: r.name, namespaced: r.namespaced } : undefined;
  }

  /** The path of an object (or of its collection, without `name`). */
  async objectPath(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name?: string,
  ): Promise<string | undefined> {
    const k = await this.kind(apiVersion, kind);
    if (!k) return undefined;
    const { group, version } = splitApiVersion(apiVersion);
    const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const ns = k.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
    return `${base}${ns}/${k.resource}${name !== undefined ? `/${encodeURIComponent(name)}` : ""}`;
  }

  /**
   * The patch metadata of `kind` (`x-kubernetes-patch-strategy`/`-merge-key` of its fields, from the server's
   * OpenAPI v3 document of the group version). A lookup that knows nothing when the document cannot be read.
   */
  async patchMeta(apiVersion: string, kind: string): Promise<PatchMetaLookup> {
    const doc = await this.openapiDoc(apiVersion).catch(() => undefined);
    const schemas = (doc?.["components"] as Obj | undefined)?.["schemas"] as Record<string, Obj> | undefined;
    if (!schemas) return () => undefined;
    const { group, version } = splitApiVersion(apiVersion);
    const root = Object.values(schemas).find((s) =>
      ((s["x-kubernetes-group-version-kind"] as Obj[] | undefined) ?? []).some(
        (g) => g["group"] === group && g["version"] === version && g["kind"] === kind,
      ),
    );
    if (!root) return () => undefined;
    return openapiPatchMeta(root, schemas);
  }

  private openapiDoc(apiVersion: string): Promise<Obj | undefined> {
    let p = this.openapi.get(apiVersion);
    if (!p) {
      p = (async () => {
        this.openapiIndex ??= this.get<Obj>("/openapi/v3");
        const index = await this.openapiIndex;
        const { group, version } = splitApiVersion(apiVersion);
        const key = group === "" ? `api/${version}` : `apis/${group}/${version}`;
        const entry = (index?.["paths"] as Record<string, { serverRelativeURL?: string }> | undefined)?.[key];
        return entry?.serverRelativeURL ? this.get<Obj>(entry.serverRelativeURL) : undefined;
      })();
      this.openapi.set(apiVersion, p);
    }
    return p;
  }
}

/** The API server's message of a failed answer (a `Status`'s `message`), else the body or the error. */
export function statusMessage(r: ApiResponse): string {
  if (isObj(r.body) && typeof r.body["message"] === "string") return r.body["message"];
  if (r.error) return r.error;
  return `HTTP ${r.status}${typeof r.body === "string" && r.body.trim() ? `: ${r.body.trim().slice(0, 300)}` : ""}`;
}

/**
 * The patch metadata lookup of one kind's OpenAPI v3 schema (pure). `$ref`s (plain or inside `allOf`) resolve in
 * `schemas` (`#/components/schemas/<name>`); the metadata of a field sits on the property itself.
 */
export function openapiPatchMeta(root: Obj, schemas: Record<string, Obj>): PatchMetaLookup {
  const resolve = (s: Obj | undefined): Obj | undefined => {
    let cur = s;
    for (let i = 0; i < 20 && cur; i++) {
      const ref =
        (cur["$ref"] as string | undefined) ??
        ((cur["allOf"] as Obj[] | undefined)?.find((x) => typeof x["$ref"] === "string")?.["$ref"] as
          | string
          | undefined);
      if (!ref || cur["properties"] || cur["items"]) return cur;
      cur = schemas[ref.replace(/^#\/components\/schemas\//, "")];
    }
    return cur;
  };
  return (p: readonly string[]): FieldPatchMeta | undefined => {
    let node: Obj | undefined = resolve(root);
    let field: Obj | undefined;
    for (const step of p) {
      if (!node) return undefined;
      if (step === "[]") {
        field = undefined;
        node = resolve(node["items"] as Obj | undefined);
        continue;
      }
      field = (node["properties"] as Record<string, Obj> | undefined)?.[step];
      if (!field) return undefined;
      node = field["type"] === "array" ? field : resolve(field);
    }
    if (!field) return undefined;
    const strategy = field["x-kubernetes-patch-strategy"];
    const mergeKey = field["x-kubernetes-patch-merge-key"];
    return {
      strategies: typeof strategy === "string" ? strategy.split(",").map((s) => s.trim()) : [],
      ...(typeof mergeKey === "string" ? { mergeKey } : {}),
    };
  };
}
