/**
 * Rules of the GPU clusters the control plane registers (pure): their names, how the program reaches each one
 * (a kubeconfig context or `nvcf:gpuClusterKubeconfigs`), and what registration needs on the control plane
 * (OpenBao's issuer discovery for the CLI, the NATS route NVCA reaches NATS through). Sources:
 * docs/upstream-facts.md §4 rows 14, 26.
 */
import { type Problem, describe } from "../problems";
import type { ControlPlaneConfig } from "../schema";
import { problemList } from "./context";

/**
 * Rules of `nvcf:gpuClusters` and `nvcf:gpuClusterKubeconfigs`. Input: the validated config. Output, in this
 * order: per cluster a name used twice and no way to reach it, a kubeconfig for a cluster not listed, then with
 * any cluster `openbao.issuerDiscovery` off and `gateway.routes.nats` off.
 */
export function gpuClusterRules(cfg: ControlPlaneConfig): Problem[] {
  const { out, add } = problemList();
  const names = new Set<string>();
  cfg.gpuClusters.forEach((c, i) => {
    if (names.has(c.name))
      add(
        `gpuClusters[${i}].name`,
        "a name not used by another GPU cluster",
        describe(c.name),
        "rename one of them",
      );
    names.add(c.name);
    if (!c.context && cfg.gpuClusterKubeconfigs[c.name] === undefined)
      add(
        `gpuClusters[${i}].context`,
        `a kubeconfig context, or a kubeconfig at nvcf:gpuClusterKubeconfigs.${c.name}`,
        "nothing",
        `pulumi config set --path 'nvcf:gpuClusters[${i}].context' <context>`,
      );
  });
  for (const k of Object.keys(cfg.gpuClusterKubeconfigs))
    if (!names.has(k))
      add(
        `gpuClusterKubeconfigs.${k}`,
        "a kubeconfig for a cluster listed in nvcf:gpuClusters",
        describe(k),
        "remove it or add the cluster to nvcf:gpuClusters",
      );
  if (cfg.gpuClusters.length > 0 && !cfg.openbao.issuerDiscovery)
    add(
      "openbao.issuerDiscovery",
      "true when GPU clusters are registered (the CLI discovers the issuer)",
      "false",
      "pulumi config set --path nvcf:openbao.issuerDiscovery true",
    );
  if (cfg.gpuClusters.length > 0 && !cfg.gateway.routes.nats)
    add(
      "gateway.routes.nats",
      "true when GPU clusters are registered (NVCA reaches NATS through the gateway)",
      "false",
      "pulumi config set --path nvcf:gateway.routes.nats true",
    );
  return out;
}
