/**
 * nvcf-cli registration: the CLI config it is given and the parsing of what it prints (pure).
 * Facts: docs/upstream-facts.md §3.1 (config keys), §3.3 (`cluster register` output), §2.7 (the values block), §2.2
 * (the Makefile keeps the text from the first `clusterID:` line).
 */
import * as yaml from "js-yaml";
import type { ClusterRegistration } from "../contract/controlPlane";

/** The marker line `cluster register` prints before the Helm values block. */
export const HELM_VALUES_MARKER = "--- Helm values for nvca-operator ---";

/** Endpoints the CLI talks to: the gateway address plus host-header overrides (docs/upstream-facts.md §3.1 registration config). */
export interface CliEndpoints {
  /** `http://<gateway address>` */
  gatewayUrl: string;
  hosts: { api: string; apiKeys: string; sis: string; invocation: string };
  ncaId: string;
}

/** The YAML text of the nvcf-cli config file for registration. Contains no secret. */
export function cliConfigYaml(e: CliEndpoints): string {
  return yaml.dump({
    base_http_url: e.gatewayUrl,
    invoke_url: e.gatewayUrl,
    api_keys_service_url: e.gatewayUrl,
    icms_url: e.gatewayUrl,
    api_keys_host: e.hosts.apiKeys,
    api_host: e.hosts.api,
    icms_host: e.hosts.sis,
    invoke_host: e.hosts.invocation,
    api_keys_service_id: "nvidia-cloud-functions-ncp-service-id-aketm",
    api_keys_issuer_service: "nvcf-api",
    api_keys_owner_id: "svc@nvcf-api.local",
    client_id: e.ncaId,
  });
}

/**
 * Parses the stdout of `nvcf-cli cluster register` into a typed registration. Summary lines, the marker
 * and the hint line before the values block are skipped (the block starts at the first `clusterID:` line).
 * Throws when there is no block or `clusterID`/`clusterGroupID` is empty (docs/upstream-facts.md §4 row 15).
 */
export function parseRegistration(stdout: string): ClusterRegistration {
  const lines = stdout.split(/\r?\n/);
  const start = lines.findIndex((l) => /^clusterID:/.test(l));
  if (start < 0)
    throw new Error("nvcf-cli cluster register printed no Helm values (no line starting with clusterID:)");
  const doc = yaml.load(lines.slice(start).join("\n")) as Record<string, unknown> | null;
  const sm = (doc?.["selfManaged"] ?? {}) as Record<string, unknown>;
  const s = (v: unknown) => (v === undefined || v === null ? "" : String(v));
  const r: ClusterRegistration = {
    clusterID: s(doc?.["clusterID"]),
    clusterGroupID: s(doc?.["clusterGroupID"]),
    ncaID: s(doc?.["ncaID"]),
    region: s(doc?.["region"]),
    identitySource: s(sm["identitySource"]),
    icmsServiceURL: s(sm["icmsServiceURL"]),
    revalServiceURL: s(sm["revalServiceURL"]),
    natsURL: s(sm["natsURL"]),
  };
  if (!r.clusterID || !r.clusterGroupID)
    throw new Error("nvcf-cli cluster register returned an empty clusterID or clusterGroupID");
  return r;
}

/** File-path fields of a kubeconfig and the inline field each becomes when flattened. */
const FILE_FIELDS: [section: "cluster" | "user", file: string, data: string][] = [
  ["cluster", "certificate-authority", "certificate-authority-data"],
  ["user", "client-certificate", "client-certificate-data"],
  ["user", "client-key", "client-key-data"],
];

/**
 * Extracts one context from kubeconfig documents as a self-contained kubeconfig (like
 * `kubectl config view --minify --flatten --context X`): certificate and key files are inlined as base64
 * data, read with `readFile` (paths relative to the kubeconfig they come from, given as `sources`).
 * Input: kubeconfig YAML texts in KUBECONFIG order, the context name. Output: YAML text and the API
 * server URL. Throws when the context, its cluster or its user is missing, or a referenced file is.
 */
export function minifyKubeconfig(
  texts: string[],
  context: string,
  readFile: (path: string) => Buffer = () => {
    throw new Error("kubeconfig references a file but no reader was given");
  },
): { yaml: string; server: string } {
  type Named = { name: string; [k: string]: unknown };
  const docs = texts.map((t) => (yaml.load(t) ?? {}) as Record<string, Named[] | undefined>);
  const find = (kind: string, name: string) => {
    for (const d of docs) {
      const hit = (d[kind] ?? []).find((x) => x.name === name);
      if (hit) return hit;
    }
    return undefined;
  };
  const ctx = find("contexts", context) as
    | { name: string; context: { cluster: string; user: string } }
    | undefined;
  if (!ctx) throw new Error(`kubeconfig context "${context}" not found (looked in KUBECONFIG)`);
  const cluster = find("clusters", ctx.context.cluster) as
    | { name: string; cluster: { server: string } }
    | undefined;
  const user = find("users", ctx.context.user);
  if (!cluster || !user)
    throw new Error(`kubeconfig context "${context}" names a cluster or user that does not exist`);
  const flat = (entry: Named, section: "cluster" | "user"): Named => {
    const body = { ...((entry[section] ?? {}) as Record<string, unknown>) };
    for (const [sec, file, data] of FILE_FIELDS) {
      if (sec !== section || typeof body[file] !== "string") continue;
      body[data] = readFile(body[file] as string).toString("base64");
      delete body[file];
    }
    return { ...entry, [section]: body };
  };
  const out = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [flat(cluster as Named, "cluster")],
    users: [flat(user, "user")],
    contexts: [ctx],
    "current-context": context,
  };
  return { yaml: yaml.dump(out), server: cluster.cluster.server };
}

/** The API server URL of a kubeconfig's current context (or its only cluster). */
export function kubeconfigServer(text: string): string {
  const doc = (yaml.load(text) ?? {}) as {
    "current-context"?: string;
    contexts?: { name: string; context: { cluster: string } }[];
    clusters?: { name: string; cluster: { server: string } }[];
  };
  const ctx = doc.contexts?.find((c) => c.name === doc["current-context"]);
  const cluster = doc.clusters?.find((c) => c.name === ctx?.context.cluster) ?? doc.clusters?.[0];
  return cluster?.cluster.server ?? "";
}
