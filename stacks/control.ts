/**
 * The control-plane stack program (`nvcf:plane: control`): a Kubernetes provider for the control-plane
 * cluster, the `ControlPlane` component, and the stack outputs of the contract in `contract/controlPlane.ts`.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ControlPlane, type GpuClusterAccess } from "../components/controlPlane";
import type { ControlPlaneConfig } from "../config/schema";
import { toStackOutputs } from "../contract/controlPlane";
import { kubeconfigServer } from "../values/registration";
import { kubeconfigForContext } from "./kube";

const secretOf = (v: string | undefined) => (v === undefined ? undefined : pulumi.secret(v));

/**
 * Builds the control plane from a validated config. Output: the stack outputs (contract). Errors: a
 * missing kubeconfig context of a GPU cluster fails before any resource is registered.
 */
export async function controlPlaneStack(
  cfg: ControlPlaneConfig,
): Promise<Record<string, pulumi.Output<unknown>>> {
  // Resolve every GPU cluster's access first, so a wrong context fails before anything is touched.
  const gpuClusters: Record<string, GpuClusterAccess> = {};
  for (const c of cfg.gpuClusters) {
    const given = cfg.gpuClusterKubeconfigs[c.name];
    if (given !== undefined) {
      gpuClusters[c.name] = { kubeconfig: pulumi.secret(given), apiServer: kubeconfigServer(given) };
    } else {
      const k = kubeconfigForContext(c.context as string);
      gpuClusters[c.name] = { kubeconfig: pulumi.secret(k.yaml), apiServer: k.server };
    }
  }

  let kubeconfig: pulumi.Input<string> | undefined = secretOf(cfg.kubeconfig);
  if (cfg.aws?.eksClusterName) {
    // Loaded only when an AWS feature is configured: other stacks never pay its start-up cost.
    const { eksKubeconfig } = await import("./aws");
    kubeconfig = eksKubeconfig(cfg.aws.region, cfg.aws.eksClusterName);
  }
  const provider = new k8s.Provider("control-plane-cluster", {
    kubeconfig,
    context: kubeconfig === undefined ? cfg.kubernetes.context : undefined,
    suppressHelmHookWarnings: true,
  });

  const stackName = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
  const cp = new ControlPlane(
    "nvcf",
    {
      config: cfg,
      secrets: {
        registryKey: secretOf(cfg.registryKey),
        chartRegistryPassword: secretOf(cfg.chartRegistryPassword),
        cassandraPassword: secretOf(cfg.cassandraPassword),
        sidecarRegistryKey: secretOf(cfg.sidecarRegistryKey),
        functionRegistryKey: secretOf(cfg.functionRegistryKey),
      },
      gpuClusters,
      stackName,
    },
    { providers: { kubernetes: provider } },
  );

  if (cfg.aws?.route53ZoneId) {
    const { dnsRecords } = await import("./aws");
    dnsRecords(cfg.aws.region, cfg.aws.route53ZoneId, Object.values(cp.hosts), cp.gatewayAddress);
  }

  return {
    ...toStackOutputs({
      contractVersion: 1,
      bundleVersion: cfg.bundleVersion,
      domain: cfg.domain,
      gatewayAddress: cp.gatewayAddress,
      hosts: cp.hosts,
      icmsUrl: cp.gatewayUrl,
      revalUrl: cp.gatewayUrl,
      natsUrl: cp.natsUrl,
      imageRegistry: cfg.images.registry,
      imageRepository: cfg.images.repository,
      pullSecretName: cfg.pullSecret.name,
      ncaId: cfg.ncaId,
      clusterRegistrations: cp.registrations,
      imageRegistryKey: cfg.registryKey ?? "",
    }),
    releases: pulumi.output(Object.fromEntries(Object.entries(cp.releases).map(([k, r]) => [k, r.status]))),
  };
}
