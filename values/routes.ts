/**
 * Gateway route hostnames and listeners (pure). Facts: docs/upstream-facts.md §1.12.
 */
import type { ControlPlaneConfig } from "../config/schema";

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

/**
 * Hostnames of every HTTPRoute the gateway-routes chart renders for this config, by route name.
 * All use PathPrefix `/`, so two enabled routes may not share a hostname (docs/upstream-facts.md §1.9, §4 row 8).
 */
export function httpRouteHostnames(cfg: ControlPlaneConfig): Record<string, string[]> {
  const d = cfg.domain;
  const routes: Record<string, string[]> = {
    "nvcf-api": [`api.${d}`],
    "nvct-api": [`tasks.${d}`],
    "api-keys": [`api-keys.${d}`],
    "invocation-service": [`*.invocation.${d}`, `invocation.${d}`],
    // Chart default: rendered even with the LLM addon off (docs/upstream-facts.md §1.12).
    "llm-api-gateway": [`llm.${d}`],
    reval: [`reval.${d}`],
    sis: [`sis.${d}`],
  };
  if (cfg.addons.llm.enabled) routes["llm-invocation"] = [`llm.invocation.${d}`];
  if (cfg.addons.vanityGateway.enabled) {
    routes["vanity-gateway"] = cfg.addons.vanityGateway.hostnames.length
      ? [...cfg.addons.vanityGateway.hostnames]
      : [`vanity.${d}`];
  }
  if (cfg.addons.nvcfUi.enabled) routes["nvcf-ui"] = [`nvcf-ui.${d}`];
  if (cfg.gateway.routes.ess) routes["ess"] = [`ess.${d}`];
  return routes;
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
