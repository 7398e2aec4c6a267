/**
 * What this stack's last `pulumi up` left: its own outputs, read back through a StackReference to the stack
 * itself. The engine reads them from the backend's checkpoint (the same read a compute-plane stack makes of
 * its control plane), so `pulumi preview` sees them too, and nothing asks the cluster.
 *
 * Used where a change can only be judged against what is deployed: the bundle an environment is really at
 * (upgrades), and settings a chart applies only at install or that Kubernetes will not change in place.
 */
import * as pulumi from "@pulumi/pulumi";

/**
 * The previous outputs bundle upgrades read back (upgrade/plan.ts `PreviousUpgradeOutputs`): part of
 * the one read a stack makes per run (stacks/installedSettings.ts `DEPLOYED_OUTPUT_NAMES`). A compute-plane stack has only
 * `bundleVersion` of them.
 */
export const UPGRADE_PREVIOUS_OUTPUTS: readonly string[] = [
  "bundleVersion",
  "releases",
  "cassandraDataLayout",
];

/** The outputs of this stack's last update, as far as the caller asked for them. */
export interface PreviousOutputs {
  /**
   * True when the stack has been updated before and registered outputs (at least one of the names asked for
   * has a value); false on a stack's first `pulumi up`, or after `pulumi destroy`.
   */
  deployed: boolean;
  /**
   * Each asked-for output that has a value (plain or secret) by name; a name without a value is absent.
   * Secret outputs are returned in plain text: the caller compares them and must never print them.
   */
  values: Record<string, unknown>;
}

/** The fully qualified name of the running stack: `<organization>/<project>/<stack>`. */
export function selfStackName(): string {
  return `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
}

/**
 * Reads the named outputs of this stack's previous update. Input: output names (e.g. `["bundleVersion"]`).
 * Output: `PreviousOutputs`. One StackReference resource named `previous-outputs` is registered (a read:
 * it creates nothing, and a preview shows it as unchanged). Rejects only when the engine cannot read the
 * stack (the same failure any stack reference has, e.g. an unreadable backend).
 */
export async function previousOutputs(names: readonly string[]): Promise<PreviousOutputs> {
  const ref = new pulumi.StackReference("previous-outputs", { name: selfStackName() });
  const values: Record<string, unknown> = {};
  for (const n of names) {
    const d = await ref.getOutputDetails(n);
    const v = d.value ?? d.secretValue;
    if (v !== undefined) values[n] = v;
  }
  return { deployed: Object.keys(values).length > 0, values };
}
