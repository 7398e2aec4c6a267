/**
 * Gateway route hostnames and listeners (pure). Facts: docs/upstream-facts.md §1.12.
 */
import type { ControlPlaneConfig } from "./schema";

/** Listeners the routes attach to, with protocol and port (docs/upstream-facts.md §1.12 listener table). */
export const GATEWAY_LISTENERS = [
  { name: "http", protocol: "HTTP", port: 80 },
  { name: "tcp", protocol: "TCP", port: 10081 },
  { name: "nats", protocol: "TCP", port: 4222 },
  { name: "worker-tcp", protocol: "TCP", port: 10086 },
] as const;

/** The public hostname of each service the compute planes and nvcf-cli use (docs/upstream-facts.md §1.12, §3.1). */
export function serviceHosts(domain: string) {
  return {
    api: `api.${domain}`,
    apiKeys: `api-keys.${domain}`,
    sis: `sis.${domain}`,
    reval: `reval.${domain}`,
    nats: `nats.${domain}`,
    invocation: `invocation.${domain}`,
    tasks: `tasks.${domain}`,
  };
}

/** One HTTPRoute of the gateway-routes chart: its values key, object name, default host prefixes, when it is on. */
interface HttpRouteSpec {
  key: string;
  name: string;
  /** Default hostnames as `<prefix>.<domain>` (the chart's values.yaml). */
  hosts: string[];
  on: (cfg: ControlPlaneConfig) => boolean;
}

/**
 * The HTTPRoutes nvcf-gateway-routes renders (its `routes.<key>` values, names and default hostnames,
 * `deploy/helm/gateway-routes/chart/values.yaml` at 1.15.0), each matching PathPrefix `/` on the shared Gateway's
 * listener. `llm-api-gateway` is rendered even with the LLM add-on off (docs/upstream-facts.md §1.12).
 */
const HTTP_ROUTES: readonly HttpRouteSpec[] = [
  { key: "nvcfApi", name: "nvcf-api", hosts: ["api"], on: () => true },
  { key: "nvctApi", name: "nvct-api", hosts: ["tasks"], on: () => true },
  { key: "apiKeys", name: "api-keys", hosts: ["api-keys"], on: () => true },
  { key: "invocation", name: "invocation-service", hosts: ["*.invocation", "invocation"], on: () => true },
  { key: "llmApiGateway", name: "llm-api-gateway", hosts: ["llm"], on: () => true },
  {
    key: "llmInvocation",
    name: "llm-invocation",
    hosts: ["llm.invocation"],
    on: (c) => c.addons.llm.enabled,
  },
  {
    key: "vanityGateway",
    name: "vanity-gateway",
    hosts: ["vanity"],
    on: (c) => c.addons.vanityGateway.enabled,
  },
  { key: "reval", name: "reval", hosts: ["reval"], on: () => true },
  { key: "sis", name: "sis", hosts: ["sis"], on: () => true },
  { key: "nvcfUi", name: "nvcf-ui", hosts: ["nvcf-ui"], on: (c) => c.addons.nvcfUi.enabled },
  { key: "ess", name: "ess", hosts: ["ess"], on: (c) => c.gateway.routes.ess },
];

/** The hostnames of a gRPC route of the gateway-routes chart: the configured ones, else `<service>-grpc.<domain>`. */
export function grpcHostnames(
  route: { hostnames: string[] },
  service: "api" | "tasks",
  domain: string,
): string[] {
  return route.hostnames.length ? [...route.hostnames] : [`${service}-grpc.${domain}`];
}

/**
 * Hostnames of every HTTPRoute the gateway-routes chart renders for this config, by route name.
 * All use PathPrefix `/`, so two enabled routes may not share a hostname (docs/upstream-facts.md §1.9, §4 row 8).
 */
export function httpRouteHostnames(cfg: ControlPlaneConfig): Record<string, string[]> {
  const routes: Record<string, string[]> = {};
  for (const r of HTTP_ROUTES) {
    if (!r.on(cfg)) continue;
    routes[r.name] =
      r.key === "vanityGateway" && cfg.addons.vanityGateway.hostnames.length
        ? [...cfg.addons.vanityGateway.hostnames]
        : r.hosts.map((h) => `${h}.${cfg.domain}`);
  }
  return routes;
}

/** One route object the program creates on a Gateway listener, for the conflict check (config/meaning.ts). */
export interface RouteAttachment {
  kind: "HTTPRoute" | "GRPCRoute" | "TCPRoute";
  /** The route object's name. */
  name: string;
  /** `<namespace>/<name>` of the Gateway. */
  gateway: string;
  /** The listener (sectionName) it attaches to. */
  listener: string;
  /** Hostnames, lower case without a trailing dot; empty for TCPRoutes. */
  hostnames: string[];
  /** The path prefix an HTTPRoute matches. */
  path?: string;
  /** The config key (without `nvcf:`) that sets its hostnames or its listener. */
  key: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/**
 * Every route object the program creates on a Gateway, with hostnames and listener (pure): the HTTPRoutes and
 * GRPCRoutes of the ingress release (gateway-routes chart) and admin-issuer-proxy's HTTPRoute on the shared
 * Gateway's HTTP listener, and the TCPRoutes `grpc`, `grpc-worker` and `nats`. Hostnames and `enabled` set
 * through `nvcf:releaseValues.ingress.nvcfGatewayRoutes.routes.<route>` count (the chart's
 * `{{ .Values.nvcfGatewayRoutes.domain }}` template is replaced by the domain). Input: validated config.
 */
export function routeAttachments(cfg: ControlPlaneConfig): RouteAttachment[] {
  const d = cfg.domain;
  const g = cfg.gateway;
  const over = obj(obj(cfg.releaseValues["ingress"])["nvcfGatewayRoutes"]);
  const overRoutes = obj(over["routes"]);
  const overGateways = obj(over["gateways"]);
  const gw = (which: "shared" | "grpc" | "nats") => {
    const o = obj(overGateways[which]);
    const ref = g[which];
    return `${String(o["namespace"] ?? ref.namespace)}/${String(o["name"] ?? ref.name)}`;
  };
  const listenerOf = (which: "shared" | "grpc" | "nats", fallback: string) =>
    String(obj(overGateways[which])["listenerName"] ?? fallback);
  const norm = (h: string) =>
    h
      .replace(/\{\{-?\s*\.Values\.nvcfGatewayRoutes\.domain\s*-?\}\}/g, d)
      .toLowerCase()
      .replace(/\.$/, "");
  const rvKey = (route: string, field: string) =>
    `releaseValues.ingress.nvcfGatewayRoutes.routes.${route}.${field}`;
  const shared = gw("shared");
  const http = listenerOf("shared", "http");
  const out: RouteAttachment[] = [];
  const onFromOverride = (o: Obj, dflt: boolean) => (typeof o["enabled"] === "boolean" ? o["enabled"] : dflt);
  for (const r of HTTP_ROUTES) {
    if (r.key === "nvcfUi" && cfg.bundleVersion === "0.6.1") continue;
    const o = obj(overRoutes[r.key]);
    if (!onFromOverride(o, r.on(cfg))) continue;
    const own = Array.isArray(o["hostnames"]) ? (o["hostnames"] as unknown[]).map(String) : undefined;
    const vanity = r.key === "vanityGateway" && cfg.addons.vanityGateway.hostnames.length > 0;
    out.push({
      kind: "HTTPRoute",
      name: String(o["name"] ?? r.name),
      gateway: shared,
      listener: http,
      hostnames: (own ?? (vanity ? cfg.addons.vanityGateway.hostnames : r.hosts.map((h) => `${h}.${d}`))).map(
        norm,
      ),
      path: "/",
      key: own ? rvKey(r.key, "hostnames") : vanity ? "addons.vanityGateway.hostnames" : "domain",
    });
  }
  for (const [k, service, cfgKey] of [
    ["nvcfApi", "api", "nvcfApiGrpc"],
    ["nvctApi", "tasks", "nvctApiGrpc"],
  ] as const) {
    const o = obj(obj(overRoutes[k])["grpc"]);
    if (!onFromOverride(o, g.routes[cfgKey].enabled)) continue;
    const own = Array.isArray(o["hostnames"]) ? (o["hostnames"] as unknown[]).map(String) : undefined;
    out.push({
      kind: "GRPCRoute",
      name: String(o["name"] ?? `${k === "nvcfApi" ? "nvcf-api" : "nvct-api"}-grpc`),
      gateway: shared,
      listener: http,
      hostnames: (own ?? grpcHostnames(g.routes[cfgKey], service, d)).map(norm),
      key: own
        ? `releaseValues.ingress.nvcfGatewayRoutes.routes.${k}.grpc.hostnames`
        : `gateway.routes.${cfgKey}.hostnames`,
    });
  }
  // admin-token-issuer-proxy's own HTTPRoute (no sectionName: the shared Gateway's HTTP listener), one path only.
  out.push({
    kind: "HTTPRoute",
    name: "admin-token-issuer-proxy",
    gateway: shared,
    listener: http,
    hostnames: [norm(`api-keys.${d}`)],
    path: "/v1/admin/keys",
    key: "domain",
  });
  const tcp = (route: string, name: string, on: boolean, gateway: string, listener: string, key: string) => {
    const o = obj(overRoutes[route]);
    if (!onFromOverride(o, on)) return;
    out.push({
      kind: "TCPRoute",
      name: String(o["name"] ?? name),
      gateway,
      listener: String(o["listenerName"] ?? listener),
      hostnames: [],
      key: typeof o["listenerName"] === "string" ? rvKey(route, "listenerName") : key,
    });
  };
  tcp("grpc", "grpc", true, gw("grpc"), listenerOf("grpc", "tcp"), "gateway.grpc.name");
  tcp(
    "grpcWorker",
    "grpc-worker",
    g.routes.grpcWorker.enabled,
    gw("grpc"),
    g.routes.grpcWorker.listenerName,
    "gateway.routes.grpcWorker.listenerName",
  );
  tcp(
    "nats",
    "nats",
    g.routes.nats,
    gw("nats"),
    listenerOf("nats", g.nats.listenerName),
    "gateway.nats.listenerName",
  );
  return out;
}

/** Listener names the enabled routes need on each gateway (shared, grpc, nats), for the bring-your-own check. */
export function requiredListeners(
  cfg: ControlPlaneConfig,
): { gateway: "shared" | "grpc" | "nats"; listener: string }[] {
  const need: { gateway: "shared" | "grpc" | "nats"; listener: string }[] = [
    { gateway: "shared", listener: "http" },
    { gateway: "grpc", listener: "tcp" },
  ];
  if (cfg.gateway.routes.grpcWorker.enabled)
    need.push({ gateway: "grpc", listener: cfg.gateway.routes.grpcWorker.listenerName });
  if (cfg.gateway.routes.nats) need.push({ gateway: "nats", listener: cfg.gateway.nats.listenerName });
  return need;
}

/** A Gateway as read from the cluster (only the fields the checks use). */
export interface GatewayObject {
  spec?: { listeners?: { name: string; port?: number; protocol?: string }[] };
  status?: { addresses?: { value?: string }[] };
}

/**
 * Listener problems of the user's Gateways. Input: config and the Gateways read, keyed `namespace/name`.
 * Output: one message per missing listener, naming the gateway and the listener (empty when fine).
 */
export function missingListeners(
  cfg: ControlPlaneConfig,
  gateways: Record<string, GatewayObject | undefined>,
): string[] {
  const ref = { shared: cfg.gateway.shared, grpc: cfg.gateway.grpc, nats: cfg.gateway.nats };
  const out: string[] = [];
  for (const need of requiredListeners(cfg)) {
    const id = `${ref[need.gateway].namespace}/${ref[need.gateway].name}`;
    const gw = gateways[id];
    const names = (gw?.spec?.listeners ?? []).map((l) => l.name);
    if (!gw) out.push(`Gateway ${id} (nvcf:gateway.${need.gateway}) was not found`);
    else if (!names.includes(need.listener)) {
      const doc = GATEWAY_LISTENERS.find((l) => l.name === need.listener);
      out.push(
        `Gateway ${id} has no listener "${need.listener}"${doc ? ` (${doc.protocol} ${doc.port})` : ""}; it has: ${names.join(", ") || "none"}`,
      );
    }
  }
  return [...new Set(out)];
}
