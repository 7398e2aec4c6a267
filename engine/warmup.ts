/**
 * The warm-up of the API server's OpenAPI document that the Kubernetes provider reads before its first check
 * (`startOpenApiWarmUp`), started by index.ts from the stack's raw configuration.
 */
import * as fs from "node:fs";
import * as https from "node:https";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as yaml from "js-yaml";
import { kubeContextEntries, kubeconfigView, readAmbientKubeconfigs } from "../kube/kubeconfig";

/**
 * The media type the Kubernetes provider asks for when it reads the API server's OpenAPI v2 document (client-go's
 * discovery client, `OpenAPISchema`). The API server builds and caches each media type on its own, so a warm-up
 * must ask for this one.
 */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/** The request `warmOpenApi` sends: URL, TLS material and headers, all from one kubeconfig context. */
export interface OpenApiWarmRequest {
  url: URL;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** Name to check the server's certificate against (`tls-server-name`), when it differs from the URL's host. */
  servername?: string;
  /** False with `insecure-skip-tls-verify: true`, as kubectl does. */
  rejectUnauthorized: boolean;
  headers: Record<string, string>;
}

/**
 * Builds the warm-up request from a kubeconfig (pure apart from reading the files it names). Input: the kubeconfig
 * text, the context to use (default: its current context, else its only one), the directory relative file names
 * resolve against (default: the working directory), and the environment (for proxy settings). Output: the request,
 * or `{ skip }` with the reason when this client cannot make the request the way the provider would: the
 * credentials come from an exec or auth-provider plugin, the cluster is reached through a proxy, the server is not
 * `https`, or the context is missing. Throws nothing.
 */
export function openApiWarmRequest(
  kubeconfigText: string,
  context?: string,
  baseDir: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): OpenApiWarmRequest | { skip: string } {
  let doc: Record<string, unknown>;
  try {
    const d = yaml.load(kubeconfigText);
    doc = d && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
  } catch {
    return { skip: "the kubeconfig does not parse" };
  }
  const contexts = Array.isArray(doc["contexts"]) ? (doc["contexts"] as { name?: unknown }[]) : [];
  const wanted =
    context ??
    (typeof doc["current-context"] === "string" && doc["current-context"] !== ""
      ? doc["current-context"]
      : contexts.length === 1
        ? String(contexts[0].name)
        : undefined);
  return contextWarmRequest([doc], wanted, baseDir, env);
}

/**
 * `openApiWarmRequest` for parsed kubeconfig documents (KUBECONFIG order, merged as kubectl does) and a context name
 * (undefined: none could be chosen). Same output; throws nothing.
 */
function contextWarmRequest(
  docs: unknown[],
  wanted: string | undefined,
  baseDir: string,
  env: NodeJS.ProcessEnv,
): OpenApiWarmRequest | { skip: string } {
  const found = wanted === undefined ? undefined : kubeContextEntries(docs, wanted);
  const cluster = found?.cluster;
  const user = found?.user ?? {};
  if (!cluster) return { skip: `no context ${wanted ?? "(current)"} with a cluster in the kubeconfig` };
  if (user["exec"] !== undefined || user["auth-provider"] !== undefined)
    return { skip: "the credentials come from a kubeconfig plugin" };
  if (cluster["proxy-url"] !== undefined || env["HTTPS_PROXY"] || env["https_proxy"] || env["ALL_PROXY"])
    return { skip: "the cluster is reached through a proxy" };
  let url: URL;
  try {
    url = new URL("/openapi/v2", String(cluster["server"] ?? ""));
  } catch {
    return { skip: "the cluster's server is not a URL" };
  }
  if (url.protocol !== "https:") return { skip: "the cluster's server is not https" };
  const material = (section: Record<string, unknown>, data: string, file: string): Buffer | undefined => {
    if (typeof section[data] === "string") return Buffer.from(section[data] as string, "base64");
    if (typeof section[file] === "string")
      return fs.readFileSync(path.resolve(baseDir, section[file] as string));
    return undefined;
  };
  const headers: Record<string, string> = { Accept: OPENAPI_V2_PROTOBUF, "User-Agent": "nvcf-pulumi" };
  try {
    let token = typeof user["token"] === "string" ? (user["token"] as string) : undefined;
    if (token === undefined && typeof user["tokenFile"] === "string")
      token = fs.readFileSync(path.resolve(baseDir, user["tokenFile"] as string), "utf8").trim();
    if (token) headers["Authorization"] = `Bearer ${token}`;
    else if (typeof user["username"] === "string")
      headers["Authorization"] =
        `Basic ${Buffer.from(`${user["username"]}:${String(user["password"] ?? "")}`).toString("base64")}`;
    return {
      url,
      ca: material(cluster, "certificate-authority-data", "certificate-authority"),
      cert: material(user, "client-certificate-data", "client-certificate"),
      key: material(user, "client-key-data", "client-key"),
      servername:
        typeof cluster["tls-server-name"] === "string" ? (cluster["tls-server-name"] as string) : undefined,
      rejectUnauthorized: cluster["insecure-skip-tls-verify"] !== true,
      headers,
    };
  } catch (e) {
    return { skip: `a file the kubeconfig names cannot be read (${(e as Error).message})` };
  }
}

/**
 * Sends the warm-up request and drops the answer as soon as its status line and headers arrive: the API server has
 * built (and cached) the document by then, and its body (about 3 MB) is of no use here. The socket does not keep the
 * process alive. Input: the request and a timeout in milliseconds. Output: the HTTP status, or the error's message.
 * Never rejects.
 */
export function warmOpenApi(req: OpenApiWarmRequest, timeoutMs = 30_000): Promise<number | string> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v: number | string) => {
      if (!done) resolve(v);
      done = true;
    };
    const r = https.request(req.url, {
      method: "GET",
      headers: req.headers,
      ca: req.ca,
      cert: req.cert,
      key: req.key,
      servername: req.servername,
      rejectUnauthorized: req.rejectUnauthorized,
      agent: false,
      timeout: timeoutMs,
    });
    r.on("socket", (s) => s.unref());
    r.on("response", (res) => {
      finish(res.statusCode ?? 0);
      res.destroy();
      r.destroy();
    });
    r.on("timeout", () => r.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    r.on("error", (e) => finish(e.message));
    r.end();
  });
}

/**
 * Asks the stack's API server for its OpenAPI v2 document while the program is still starting, so that the
 * Kubernetes provider finds it built when it checks the first resource. The provider reads that document before
 * its first check, and after a CustomResourceDefinition changes (an install or a teardown) the API server builds it
 * afresh on the next read, which is otherwise on the critical path of every install (how long it takes:
 * docs/performance.md#the-first-gap-provider-to-first-namespace). Best effort: nothing waits for the request and
 * nothing fails with it.
 *
 * Input: how the provider reaches the cluster, a kubeconfig text (`nvcf:kubeconfig`) or a context of the ambient
 * kubeconfig (default: its current context). Output, at once: `asking <server>` when the request was sent, else
 * `skipped: <reason>` (see `openApiWarmRequest`), for the debug log. Throws nothing.
 */
export function startOpenApiWarmUp(access: { kubeconfig?: string; context?: string }): string {
  let req: OpenApiWarmRequest | { skip: string };
  try {
    if (access.kubeconfig !== undefined) req = openApiWarmRequest(access.kubeconfig);
    else {
      // The ambient files as they are, read once (relative file names resolve as kubeconfigForContext's do).
      const { files, texts, baseDir } = readAmbientKubeconfigs();
      const context =
        access.context ??
        kubeconfigView(
          files.map((f, i): [string, string] => [f, texts[i]]),
          files,
        ).currentContext;
      if (context === undefined) return "skipped: no current context";
      req = contextWarmRequest(
        texts.map((t) => yaml.load(t)),
        context,
        baseDir,
        process.env,
      );
    }
  } catch (e) {
    return `skipped: ${(e as Error).message}`;
  }
  if ("skip" in req) return `skipped: ${req.skip}`;
  void warmOpenApi(req);
  return `asking ${req.url.origin}`;
}

/**
 * Starts `startOpenApiWarmUp` from the stack's raw configuration, before it is validated and before the stack
 * program's modules load (index.ts), which is as early as the cluster is known: the API server then builds the
 * document while the program loads, validates and runs recovery. Only under a real engine (the unit tests' mocks
 * have none). It reads only `nvcf:kubeconfig`, `nvcf:kubernetes.context` and `nvcf:aws.eksClusterName` (an EKS
 * cluster's credentials come from a plugin: no warm-up); a value that does not parse means no warm-up, and the
 * validation that follows reports it. Input: the stack's config (key → raw text, as the engine hands it over).
 * Output: what `startOpenApiWarmUp` said, also sent to the debug log; undefined when nothing was tried. Throws
 * nothing.
 */
export function warmUpFromRawConfig(
  all: Record<string, string> = pulumi.runtime.allConfig(),
): string | undefined {
  if (pulumi.runtime.getEngine() === undefined) return undefined;
  const object = (key: string): Record<string, unknown> => {
    try {
      const v = JSON.parse(all[key] ?? "{}") as unknown;
      return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  if (object("nvcf:aws")["eksClusterName"] !== undefined) return undefined;
  const context = object("nvcf:kubernetes")["context"];
  const outcome = startOpenApiWarmUp({
    kubeconfig: all["nvcf:kubeconfig"],
    context: typeof context === "string" ? context : undefined,
  });
  void pulumi.log.debug(`OpenAPI document warm-up: ${outcome}`);
  return outcome;
}
