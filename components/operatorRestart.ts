/**
 * The restart of the NVCA operator when the cluster identity in its values changes.
 *
 * The operator reads the cluster identity from the `nvcfbackend-self-managed` ConfigMap when it starts (NVIDIA
 * docs `docs/user/cluster-management/self-managed.md` "Re-registering a cluster": re-running the install
 * "restarts it with the new values"). helm-nvca-operator's pod template carries no checksum or annotation of
 * that ConfigMap (`templates/deployment.yaml` at chart 1.14.0 and 1.21.3: labels only, no pod annotations value),
 * so a `helm upgrade` that changes only the ConfigMap leaves the running pod as it is. The compute plane
 * therefore restarts the operator's Deployment itself (`kubectl rollout restart`, then `rollout status`) in a
 * step that runs exactly when the identity changes, after the release's upgrade.
 */

import type * as pulumi from "@pulumi/pulumi";
import { KUBECTL_PREAMBLE, scriptText } from "./scripts";

/**
 * The update script: the kubectl runner (components/scripts.ts `KUBECTL_PREAMBLE`, `k` aimed at the GPU cluster),
 * then `components/scripts/operator-restart.sh`, which restarts Deployment `$NVCFP_NAMESPACE/$NVCFP_DEPLOYMENT` and
 * waits up to `$NVCFP_TIMEOUT_SECONDS` for the rollout. Prints one line naming the region the operator starts with;
 * fails (non-zero) when the rollout does not finish.
 */
export const RESTART_OPERATOR = KUBECTL_PREAMBLE + scriptText("operator-restart.sh");

/** Environment variable per identity field of values/compute.ts `operatorIdentity`. */
const IDENTITY_ENV: Record<string, string> = {
  clusterID: "NVCFP_CLUSTER_ID",
  clusterGroupID: "NVCFP_CLUSTER_GROUP_ID",
  ncaID: "NVCFP_NCA_ID",
  region: "NVCFP_REGION",
  icmsServiceURL: "NVCFP_ICMS_URL",
  revalServiceURL: "NVCFP_REVAL_URL",
  natsURL: "NVCFP_NATS_URL",
  icmsHost: "NVCFP_ICMS_HOST",
  revalHost: "NVCFP_REVAL_HOST",
  natsHost: "NVCFP_NATS_HOST",
};

/**
 * The identity as the restart step's environment: one variable per field, each its own input, so a preview
 * names the field that changed. Input: `operatorIdentity`'s record (an Output). Output: `NVCFP_*` → value.
 */
export function identityEnvironment(
  identity: pulumi.Output<Record<string, string>>,
): Record<string, pulumi.Output<string>> {
  return Object.fromEntries(
    Object.entries(IDENTITY_ENV).map(([field, name]) => [name, identity.apply((i) => i[field] ?? "")]),
  );
}
