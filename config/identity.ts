/**
 * GPU-cluster identity settings judged against what is deployed: a registration keeps its cluster and group
 * IDs across changes (components/registration.ts), so a change it cannot make keeping them is refused before
 * anything is touched, with the deployed value and the way out.
 */
import type { RegistrationRecord } from "../contract/controlPlane";
import type { Problem } from "./problems";
import type { ControlPlaneConfig } from "./schema";

const REGISTRATION_FIELDS = [
  "clusterID",
  "clusterGroupID",
  "ncaID",
  "region",
  "identitySource",
  "icmsServiceURL",
  "revalServiceURL",
  "natsURL",
] as const;

/**
 * The control plane's `clusterRegistrations` output read back from the stack's previous update (plain value,
 * GPU cluster name → registration), keeping the entries that carry a cluster ID and an NCA id, each field a
 * string (absent ones ""); `{}` for anything else (no previous update, no such output, another shape).
 */
export function deployedRegistrations(value: unknown): Record<string, RegistrationRecord> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  const out: Record<string, RegistrationRecord> = {};
  for (const [name, r] of Object.entries(value as Record<string, unknown>)) {
    const o = (r && typeof r === "object" ? r : {}) as Record<string, unknown>;
    const reg = Object.fromEntries(
      REGISTRATION_FIELDS.map((f) => [f, typeof o[f] === "string" ? o[f] : ""]),
    ) as unknown as RegistrationRecord;
    if (reg.clusterID && reg.ncaID) out[name] = reg;
  }
  return out;
}

/**
 * Settings of `nvcf:gpuClusters` a deployed registration cannot take in place. Today one: `nvcf:ncaId` of a
 * cluster that stays in the list. ICMS keeps cluster names per account (its POST to
 * `/v1/accounts/<nca>/clusters` refuses only a name already in that account, ICMS
 * `ClusterCreationService.validateClusterNameForNcaId`) and nvcf-cli has no command that moves a registration
 * (`src/clis/nvcf-cli/cmd/cluster_registration.go`: register, rotate, delete), so the cluster would be
 * registered anew in the other account with new IDs. A region change is taken (re-registration keeps the IDs);
 * a cluster leaving the list is deregistered; a new one is registered in the configured account.
 * Input: the validated config, the deployed registrations (`deployedRegistrations`). Output: at most one
 * problem, naming every cluster concerned. Pure.
 */
export function identityProblems(
  cfg: ControlPlaneConfig,
  deployed: Record<string, Pick<RegistrationRecord, "clusterID" | "ncaID">>,
): Problem[] {
  const moved = cfg.gpuClusters.filter((c) => deployed[c.name] && deployed[c.name].ncaID !== cfg.ncaId);
  if (moved.length === 0) return [];
  const accounts = [...new Set(moved.map((c) => deployed[c.name].ncaID))];
  const list = moved.map((c) => `${c.name} (${deployed[c.name].clusterID})`).join(", ");
  const names = moved.map((c) => c.name).join(", ");
  return [
    {
      key: "nvcf:ncaId",
      expected:
        `${accounts.map((a) => JSON.stringify(a)).join(" or ")}, the account GPU cluster(s) ${list} are registered in: ` +
        "a registration cannot move to another account keeping its IDs (nvcf-cli has no command for it, and a " +
        "new registration gets new IDs, orphaning the cluster's function deployments)",
      found: JSON.stringify(cfg.ncaId),
      fix:
        accounts.length === 1
          ? `pulumi config set nvcf:ncaId ${accounts[0]}. To really move ${names}: remove them from nvcf:gpuClusters ` +
            "and pulumi up (deregisters them; undeploy their functions first), then set nvcf:ncaId and add them back"
          : `set nvcf:ncaId back to the account the clusters are registered in. To really move ${names}: remove them ` +
            "from nvcf:gpuClusters and pulumi up (deregisters them; undeploy their functions first), then set nvcf:ncaId and add them back",
    },
  ];
}
