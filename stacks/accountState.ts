/**
 * What this stack's last `pulumi up` applied to the NVCF account (the `accountSettings` output, values/accounts.ts),
 * read back before anything is registered, so that a change the API cannot apply to an existing account is refused
 * in `pulumi preview` as well as in `pulumi up`.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  ACCOUNT_SETTINGS_OUTPUT,
  type DeployedAccountSettings,
  readDeployedAccountSettings,
} from "../values/accounts";

/**
 * Reads named outputs of this stack's previous update. Output: `deployed` (the stack has outputs from an earlier
 * update) and the values found by name (secret ones in plain text: never print them).
 */
export type PreviousOutputsReader = (
  names: readonly string[],
) => Promise<{ deployed: boolean; values: Record<string, unknown> }>;

/**
 * The reader over a StackReference to this stack itself (`previous-outputs`): the engine reads the outputs from the
 * backend's checkpoint, in a preview too, and asks no cluster. The reference is a read; it creates nothing.
 * Rejects only when the engine cannot read the stack.
 */
export const ownPreviousOutputs: PreviousOutputsReader = async (names) => {
  const ref = new pulumi.StackReference("previous-outputs", {
    name: `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`,
  });
  const values: Record<string, unknown> = {};
  for (const n of names) {
    const d = await ref.getOutputDetails(n);
    const v = d.value ?? d.secretValue;
    if (v !== undefined) values[n] = v;
  }
  return { deployed: Object.keys(values).length > 0, values };
};

/**
 * The account settings the last update applied, or undefined when there are none (a first `pulumi up`, a stack
 * deployed before the output existed, or one destroyed since). Input: the reader. Rejects as the reader does.
 */
export async function deployedAccountSettings(
  read: PreviousOutputsReader,
): Promise<DeployedAccountSettings | undefined> {
  const prev = await read([ACCOUNT_SETTINGS_OUTPUT]);
  return readDeployedAccountSettings(prev.values[ACCOUNT_SETTINGS_OUTPUT]);
}
