/**
 * nvcf-cli registration: the CLI config it is given and the parsing of what it prints (pure).
 * Facts: docs/upstream-facts.md §3.1 (config keys), §3.3 (`cluster register` output), §2.7 (the values block), §2.2
 * (the Makefile keeps the text from the first `clusterID:` line).
 */
import * as yaml from "js-yaml";
import type { RegistrationRecord } from "../contract/controlPlane";

/** The marker line `cluster register` prints before the Helm values block. */
export const HELM_VALUES_MARKER = "--- Helm values for nvca-operator ---";

/** Endpoints the CLI talks to: the gateway address plus host-header overrides (docs/upstream-facts.md §3.1 registration config). */
export interface CliEndpoints {
  /** `http://<gateway address>` */
  gatewayUrl: string;
  hosts: { api: string; apiKeys: string; sis: string; invocation: string };
  ncaId: string;
}

/** The YAML text of the nvcf-cli config file for registration. Contains no secret. */
export function cliConfigYaml(e: CliEndpoints): string {
  return yaml.dump({
    base_http_url: e.gatewayUrl,
    invoke_url: e.gatewayUrl,
    api_keys_service_url: e.gatewayUrl,
    icms_url: e.gatewayUrl,
    api_keys_host: e.hosts.apiKeys,
    api_host: e.hosts.api,
    icms_host: e.hosts.sis,
    invoke_host: e.hosts.invocation,
    api_keys_service_id: "nvidia-cloud-functions-ncp-service-id-aketm",
    api_keys_issuer_service: "nvcf-api",
    api_keys_owner_id: "svc@nvcf-api.local",
    client_id: e.ncaId,
  });
}

/**
 * Parses the stdout of `nvcf-cli cluster register` into a typed registration. Summary lines, the marker
 * and the hint line before the values block are skipped (the block starts at the first `clusterID:` line).
 * Throws when there is no block or `clusterID`/`clusterGroupID` is empty (docs/upstream-facts.md §4 row 15).
 */
export function parseRegistration(stdout: string): RegistrationRecord {
  const lines = stdout.split(/\r?\n/);
  const start = lines.findIndex((l) => /^clusterID:/.test(l));
  if (start < 0)
    throw new Error("nvcf-cli cluster register printed no Helm values (no line starting with clusterID:)");
  const doc = yaml.load(lines.slice(start).join("\n")) as Record<string, unknown> | null;
  const sm = (doc?.["selfManaged"] ?? {}) as Record<string, unknown>;
  const s = (v: unknown) => (v === undefined || v === null ? "" : String(v));
  const r: RegistrationRecord = {
    clusterID: s(doc?.["clusterID"]),
    clusterGroupID: s(doc?.["clusterGroupID"]),
    ncaID: s(doc?.["ncaID"]),
    region: s(doc?.["region"]),
    identitySource: s(sm["identitySource"]),
    icmsServiceURL: s(sm["icmsServiceURL"]),
    revalServiceURL: s(sm["revalServiceURL"]),
    natsURL: s(sm["natsURL"]),
  };
  if (!r.clusterID || !r.clusterGroupID)
    throw new Error("nvcf-cli cluster register returned an empty clusterID or clusterGroupID");
  return r;
}

/** What a registration update compares: the registration recorded last time, and this run's settings. */
export interface RegistrationChange {
  /** The registration recorded by the last run (its values block); undefined when none was recorded. */
  recorded?: Pick<RegistrationRecord, "clusterID" | "ncaID" | "region" | "icmsServiceURL">;
  /** This run's NCA id, region and ICMS URL (`http://<gateway address>`). */
  ncaId: string;
  region: string;
  icmsUrl: string;
}

/**
 * Which nvcf-cli command an update of a GPU cluster's registration runs (pure; components/registration.ts
 * `UPDATE` makes the same decision in its script, from the values block the last run printed):
 * - `refuse` when the NCA id differs from the recorded one: ICMS keeps cluster names per account (the POST
 *   to `/v1/accounts/<nca>/clusters` only refuses a name already in that account) and nvcf-cli has no command
 *   that moves a registration, so a new account would mean new IDs;
 * - `register` (`cluster register --ignore-existing`, NVIDIA's "Re-registering a cluster") when the values
 *   block the operator gets changes (region or ICMS URL), or nothing was recorded: ICMS answers that the name
 *   exists, the CLI looks the IDs up by name, refreshes the issuer and JWKS (PUT
 *   `/v1/nvca/clusters/<id>/jwks`) and prints the block with the new values; ICMS keeps the region of the
 *   first registration (no nvcf-cli command changes it);
 * - `rotate` (`cluster rotate --cluster-id <recorded> --force`) otherwise: the issuer and JWKS are read from
 *   the cluster again and stored on the registration (same PUT), and the recorded block is kept.
 * Sources: `src/clis/nvcf-cli/cmd/cluster_registration.go` (`runClusterRegister`, `runClusterRotate`),
 * `src/clis/nvcf-cli/internal/client/clusters.go`, ICMS `ClusterCreationService.validateClusterNameForNcaId`.
 */
export function registrationUpdate(c: RegistrationChange): "refuse" | "register" | "rotate" {
  const r = c.recorded;
  if (!r?.clusterID) return "register";
  if (r.ncaID && r.ncaID !== c.ncaId) return "refuse";
  return r.region === c.region && r.icmsServiceURL === c.icmsUrl ? "rotate" : "register";
}

/**
 * The sentence a preview shows for an update of a registration: which nvcf-cli command runs and what it
 * keeps. Input: as `registrationUpdate`, plus the cluster's name. Output: one line, no secret.
 */
export function describeRegistrationUpdate(name: string, c: RegistrationChange): string {
  const r = c.recorded;
  switch (registrationUpdate(c)) {
    case "refuse":
      return (
        `refused: ${name} is registered in account ${r?.ncaID}; nvcf-cli cannot move a registration to ` +
        `account ${c.ncaId} keeping its IDs`
      );
    case "rotate":
      return (
        `runs nvcf-cli cluster rotate --force on ${name}'s recorded cluster ID: ICMS gets the issuer and JWKS ` +
        "read again from the cluster; clusterID and clusterGroupID are kept"
      );
    case "register":
      return (
        `runs nvcf-cli cluster register --name ${name} --region ${c.region} --ignore-existing: ` +
        (r?.clusterID
          ? "clusterID and clusterGroupID are kept, the issuer and JWKS refreshed" +
            (r.region !== c.region
              ? `; the GPU cluster's stack then gives its operator region ${c.region} and restarts it ` +
                `(ICMS keeps ${r.region}, the region of the first registration)`
              : "")
          : "registers it, or finds it by name and refreshes its issuer and JWKS")
      );
  }
}
