/**
 * The compute-plane stack program (`nvcf:plane: compute`): reads its control plane through a
 * StackReference and the typed contract, refuses a mismatched bundle or a missing registration, and
 * builds the `ComputePlane` component for one GPU cluster.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ComputePlane } from "../components/computePlane";
import type { ComputePlaneConfig } from "../config/schema";
import { CONTRACT_VERSION, readControlPlane, registrationFor } from "../contract/controlPlane";
import type { ComputeInputs } from "../values/compute";

/**
 * Checks what the control plane exported against this stack's config and builds the inputs of the
 * compute plane (pure). Throws naming the stack to update when the contract version or the bundle version
 * differ, or when the cluster has no registration.
 */
export function computeInputs(
  cfg: ComputePlaneConfig,
  cp: {
    contractVersion: number;
    bundleVersion: string;
    imageRegistry: string;
    imageRepository: string;
    hosts: Record<string, string>;
    icmsUrl: string;
    revalUrl: string;
    natsUrl: string;
    clusterRegistrations: Parameters<typeof registrationFor>[0];
  },
): ComputeInputs {
  const short = cfg.controlPlaneStack.split("/").pop();
  if (cp.contractVersion !== CONTRACT_VERSION) {
    throw new Error(
      `control-plane stack ${cfg.controlPlaneStack} exports contract version ${cp.contractVersion}, this program needs ${CONTRACT_VERSION}: run pulumi up -s ${short} with this program first`,
    );
  }
  if (cp.bundleVersion !== cfg.bundleVersion) {
    throw new Error(
      `NVCF bundle mismatch: control-plane stack ${cfg.controlPlaneStack} runs ${cp.bundleVersion}, this stack (nvcf:bundleVersion) is ${cfg.bundleVersion}. ` +
        `Set nvcf:bundleVersion ${cp.bundleVersion} here, or upgrade the control plane first.`,
    );
  }
  const reg = registrationFor(cp.clusterRegistrations, cfg.clusterName, cfg.controlPlaneStack);
  return {
    imageRegistry: cp.imageRegistry,
    imageRepository: cp.imageRepository,
    clusterID: reg.clusterID,
    clusterGroupID: reg.clusterGroupID,
    ncaID: reg.ncaID,
    region: reg.region,
    // The registration's URLs are what the CLI resolved; the control plane's are compute-reachable.
    icmsServiceURL: cp.icmsUrl || reg.icmsServiceURL,
    revalServiceURL: cp.revalUrl || reg.revalServiceURL,
    natsURL: cp.natsUrl || reg.natsURL,
    icmsHost: cp.hosts["sis"] ?? "",
    revalHost: cp.hosts["reval"] ?? "",
    natsHost: cp.hosts["nats"] ?? "",
  };
}

/** Builds one GPU cluster's compute plane. Output: stack outputs (cluster identity, inotify nodes). */
export async function computePlaneStack(
  cfg: ComputePlaneConfig,
): Promise<Record<string, pulumi.Output<unknown>>> {
  const ref = new pulumi.StackReference("control-plane", { name: cfg.controlPlaneStack });
  const cp = readControlPlane(ref);
  const inputs = pulumi
    .output({
      contractVersion: cp.contractVersion,
      bundleVersion: cp.bundleVersion,
      imageRegistry: cp.imageRegistry,
      imageRepository: cp.imageRepository,
      hosts: cp.hosts,
      icmsUrl: cp.icmsUrl,
      revalUrl: cp.revalUrl,
      natsUrl: cp.natsUrl,
      clusterRegistrations: cp.clusterRegistrations,
    })
    .apply((v) => computeInputs(cfg, v));
  const kubeconfig = cfg.kubeconfig === undefined ? undefined : pulumi.secret(cfg.kubeconfig);
  const provider = new k8s.Provider("compute-plane-cluster", {
    kubeconfig,
    context: kubeconfig === undefined ? cfg.kubernetes.context : undefined,
    suppressHelmHookWarnings: true,
  });
  // The registry key: this stack's own, else the control plane's (a secret output of the contract).
  const registryKey =
    cfg.registryKey !== undefined
      ? pulumi.secret(cfg.registryKey)
      : cp.imageRegistryKey.apply((k) => {
          if (!k && cfg.pullSecret.name !== null && cfg.pullSecret.create) {
            throw new Error(
              `the pull secret needs a registry key: set nvcf:registryKey (secret) in this stack, or nvcf:registryKey in ${cfg.controlPlaneStack}`,
            );
          }
          return k;
        });
  const plane = new ComputePlane(
    "nvcf",
    {
      config: cfg,
      inputs,
      registryKey,
      chartRegistryPassword:
        cfg.chartRegistryPassword === undefined ? undefined : pulumi.secret(cfg.chartRegistryPassword),
      kubeconfig,
    },
    { providers: { kubernetes: provider } },
  );
  return {
    clusterName: pulumi.output(cfg.clusterName),
    clusterID: inputs.clusterID,
    clusterGroupID: inputs.clusterGroupID,
    inotifyTunerNodes: plane.inotifyNodes,
    operatorStatus: plane.releases["nvca-operator"].status,
  };
}
