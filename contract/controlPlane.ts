/**
 * The control plane → compute plane contract: the stack outputs a compute-plane stack reads through a
 * StackReference. Both sides use this module: the control-plane stack exports with `toStackOutputs`,
 * compute-plane stacks read with `readControlPlane` (`requireOutput`, so a missing output fails with its
 * name). Non-secret values are plain outputs; each secret is its own output, so a compute plane reads a
 * secret without making the plain values secret too.
 */
import * as pulumi from "@pulumi/pulumi";

/** Bump when an output is renamed or changes meaning; the compute plane refuses a different version. */
export const CONTRACT_VERSION = 1;

/** What `nvcf-cli cluster register` returned for one GPU cluster (docs/upstream-facts.md §2.7), as typed data. */
export interface RegistrationRecord {
  clusterID: string;
  clusterGroupID: string;
  ncaID: string;
  region: string;
  identitySource: string;
  icmsServiceURL: string;
  revalServiceURL: string;
  natsURL: string;
}

/** The plain (non-secret) outputs. */
export interface ControlPlanePlainOutputs {
  contractVersion: number;
  bundleVersion: string;
  domain: string;
  /** Address compute planes dial (Gateway `.status.addresses[0].value` or `nvcf:gateway.address`). */
  gatewayAddress: string;
  /** Public hostnames by service: api, apiKeys, sis, reval, nats, invocation, tasks. */
  hosts: Record<string, string>;
  /** Compute-reachable URLs; pair each with its host-header override in `hosts`. */
  icmsUrl: string;
  revalUrl: string;
  natsUrl: string;
  imageRegistry: string;
  imageRepository: string;
  /** Image pull secret name compute planes reference (null: nodes authenticate to the registry). */
  pullSecretName: string | null;
  ncaId: string;
  /** Registration outputs by GPU cluster name. */
  clusterRegistrations: Record<string, RegistrationRecord>;
}

/** The secret outputs, one output each. */
export interface ControlPlaneSecretOutputs {
  /** The image registry key, for compute planes that create their own pull secrets. */
  imageRegistryKey: string;
}

export type ControlPlaneOutputs = ControlPlanePlainOutputs & ControlPlaneSecretOutputs;

/** Every output name of the contract, plain first. */
export const PLAIN_OUTPUT_NAMES: readonly (keyof ControlPlanePlainOutputs)[] = [
  "contractVersion",
  "bundleVersion",
  "domain",
  "gatewayAddress",
  "hosts",
  "icmsUrl",
  "revalUrl",
  "natsUrl",
  "imageRegistry",
  "imageRepository",
  "pullSecretName",
  "ncaId",
  "clusterRegistrations",
];
export const SECRET_OUTPUT_NAMES: readonly (keyof ControlPlaneSecretOutputs)[] = ["imageRegistryKey"];

type Inputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/**
 * The stack outputs of a control-plane stack. Input: every contract value (Inputs). Output: a record to
 * return from the program; secrets are wrapped with `pulumi.secret`, plain values are left as they are.
 */
export function toStackOutputs(v: Inputs<ControlPlaneOutputs>): Record<string, pulumi.Output<unknown>> {
  const out: Record<string, pulumi.Output<unknown>> = {};
  for (const k of PLAIN_OUTPUT_NAMES) out[k] = pulumi.output(v[k] as pulumi.Input<unknown>);
  for (const k of SECRET_OUTPUT_NAMES) out[k] = pulumi.secret(v[k] as pulumi.Input<unknown>);
  return out;
}

/** The typed view a compute plane gets of its control plane. */
export type ControlPlaneView = { [K in keyof ControlPlaneOutputs]: pulumi.Output<ControlPlaneOutputs[K]> };

/**
 * Reads the named outputs of the control plane through a StackReference (only those: the reader names what it
 * uses). Each is read with `requireOutput`, so a missing one fails the deployment with its name. Secrets stay
 * secret.
 */
export function readControlPlane<K extends keyof ControlPlaneOutputs>(
  ref: pulumi.StackReference,
  names: readonly K[],
): Pick<ControlPlaneView, K> {
  const view: Record<string, pulumi.Output<unknown>> = {};
  for (const k of names) view[k] = ref.requireOutput(k);
  return view as Pick<ControlPlaneView, K>;
}
