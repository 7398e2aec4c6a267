/**
 * Rules of the Gateway and the routes of the control plane (pure): the Gateways the routes attach to, the NATS
 * and gRPC worker routes and what they need, routes that claim the same traffic (config/meaning.ts
 * `routeProblems`), and a domain other clusters and clients can reach. Sources: docs/upstream-facts.md §1.9 and
 * §4 rows 7, 8, 18, 19, 20, 34.
 */
import { routeProblems } from "../meaning";
import { type Problem, describe } from "../problems";
import type { ControlPlaneConfig } from "../schema";
import { problemList } from "./context";

/**
 * Rules of `nvcf:gateway` and the keys its routes need. Input: the validated config. Output, in this order: a
 * missing controller namespace, a missing name or namespace of the shared and gRPC Gateways, with the NATS route
 * on a missing NATS Gateway or NATS itself off, the gRPC worker route without a CONNECT URL, the route
 * conflicts, and `localhost` as the domain when other clusters or clients reach the control plane.
 */
export function gatewayRules(cfg: ControlPlaneConfig): Problem[] {
  const { out, add } = problemList();
  const g = cfg.gateway;
  if (!g.controllerNamespace)
    add(
      "gateway.controllerNamespace",
      "the gateway controller's namespace (the ingress release goes there)",
      "nothing",
      "pulumi config set --path nvcf:gateway.controllerNamespace envoy-gateway-system",
    );
  for (const which of ["shared", "grpc"] as const) {
    for (const f of ["name", "namespace"] as const) {
      if (!g[which][f])
        add(
          `gateway.${which}.${f}`,
          `the ${which} Gateway's ${f}`,
          "nothing",
          `pulumi config set --path nvcf:gateway.${which}.${f} ${f === "name" ? "nvcf-gateway" : "envoy-gateway"}`,
        );
    }
  }
  if (g.routes.nats) {
    for (const f of ["name", "namespace"] as const)
      if (!g.nats[f])
        add(
          `gateway.nats.${f}`,
          `the NATS Gateway's ${f} when gateway.routes.nats is on`,
          "nothing",
          `pulumi config set --path nvcf:gateway.nats.${f} <value>`,
        );
    if (!cfg.nats.enabled)
      add(
        "gateway.routes.nats",
        "false when nats.enabled is false",
        "true",
        "turn the NATS route off or enable NATS",
      );
  }
  if (
    g.routes.grpcWorker.enabled &&
    !cfg.grpcproxy.workerConnectBaseURL &&
    !cfg.workerEndpoints.grpcProxyWorkerConnectURL
  )
    add(
      "grpcproxy.workerConnectBaseURL",
      "a worker CONNECT base URL when gateway.routes.grpcWorker is on",
      "nothing",
      "set grpcproxy.workerConnectBaseURL or workerEndpoints.grpcProxyWorkerConnectURL",
    );
  // Routes that claim the same traffic, across every route kind (config/meaning.ts).
  out.push(...routeProblems(cfg));
  if (
    (cfg.remoteAccess || cfg.gpuClusters.length > 0 || cfg.aws?.route53ZoneId) &&
    cfg.domain === "localhost"
  )
    add(
      "domain",
      "a DNS suffix other than localhost when other clusters or clients reach the control plane",
      describe(cfg.domain),
      "pulumi config set nvcf:domain nvcf.example.com",
    );
  return out;
}
