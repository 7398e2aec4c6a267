/**
 * `ClusterRegistration`: registers one GPU cluster with the control plane by running nvcf-cli through
 * `@pulumi/command`, keeps its IDs across changes (re-registration or `cluster rotate`), and deregisters it
 * only on delete. Facts: docs/upstream-facts.md §3.1-§3.3, §2.2 (`register-cluster`).
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import * as yaml from "js-yaml";
import type { RegistrationRecord as Registration } from "../contract/controlPlane";
import {
  type CliEndpoints,
  cliConfigYaml,
  describeRegistrationUpdate,
  parseRegistration,
} from "../values/registration";
import { failsAs } from "./errors";
import { withoutDependsOn } from "./options";
import { NVCF_CLI_RUNNER, scriptText } from "./scripts";

export interface ClusterRegistrationArgs {
  clusterName: string;
  region: string;
  ncaId: string;
  /** Endpoints and host-header overrides the CLI uses (from the control plane's own gateway and domain). */
  endpoints: pulumi.Input<CliEndpoints>;
  /** The GPU cluster's kubeconfig (secret): the CLI reads the cluster's issuer and JWKS through it (docs/upstream-facts.md §4 row 14). */
  kubeconfig: pulumi.Output<string>;
  /** The GPU cluster's API server URL (plain): a change re-runs the registration (`cluster rotate`). */
  apiServer: pulumi.Input<string>;
  /** Path of the nvcf-cli executable. */
  cliPath: string;
  /**
   * IDs of a registration made outside this stack (`nvcf:gpuClusters[].registered`): on create the values block
   * is printed from them and nvcf-cli is not run, so the cluster keeps its IDs; delete still deregisters them.
   */
  registered?: { clusterID: string; clusterGroupID: string };
  /**
   * `nvcf:gpuClusters[].jwksRotation`: any text; a new value runs `nvcf-cli cluster rotate --force` on the next
   * update (the issuer and JWKS read again from the cluster, the IDs kept). Unset: no such input.
   */
  jwksRotation?: string;
  /**
   * The registration the stack's last update recorded (its `clusterRegistrations` output), when there is one:
   * a region or ICMS URL that differs from it is announced with what the update will run.
   */
  deployed?: Registration;
}

/**
 * The scripts of the registration command (components/scripts/, README.md there), each the nvcf-cli runner
 * (`nvcf-cli.sh`: environment cleared, private HOME and config, `redact`, `init`; components/scripts.ts
 * `NVCF_CLI_RUNNER`) followed by the registration's own part, which prints only the Helm values block of
 * `cluster register` and maps each failure to `nvcf-cli <command> failed for <cluster> (…):` and the CLI's redacted
 * errors. Settings reach them as NVCFP_* variables.
 * - NVCFP_REGISTER_SCRIPT (create): `cluster-register.sh`, `cluster register --ignore-existing` into `$work/out`,
 *   its values block printed.
 * - NVCFP_UPDATE_SCRIPT (update): the decision of values/registration.ts `registrationUpdate`, taken from the values
 *   block the last run printed (PULUMI_COMMAND_STDOUT) in `cluster-update.sh`: a different NCA id is refused; a
 *   values block that changes (region, ICMS URL) or none recorded re-registers (`cluster-register.sh`, same IDs,
 *   found by name; `cluster-update-ids.sh` warns when ICMS gave new ones); anything else (the JWKS rotation
 *   request, the kubeconfig, the CLI or its endpoints' host names) runs `cluster rotate --force` and keeps the
 *   recorded block.
 * - NVCFP_DEREGISTER_SCRIPT (delete): `cluster-delete.sh`, `cluster delete --ignore-missing` of the recorded ID.
 *
 * These texts are inputs of every deployed registration: any change to them (the runner included) makes the next
 * `pulumi up` run the update above, `cluster rotate`, for every GPU cluster. tests/unit/stacks/commands.test.ts
 * holds them byte for byte.
 */
export const REGISTRATION_SCRIPTS = {
  NVCFP_REGISTER_SCRIPT: NVCF_CLI_RUNNER + scriptText("cluster-register.sh"),
  NVCFP_UPDATE_SCRIPT:
    NVCF_CLI_RUNNER +
    scriptText("cluster-update.sh") +
    scriptText("cluster-register.sh") +
    scriptText("cluster-update-ids.sh"),
  NVCFP_DEREGISTER_SCRIPT: NVCF_CLI_RUNNER + scriptText("cluster-delete.sh"),
} as const;

/**
 * The Helm values block `nvcf-cli cluster register` would print for an existing registration (docs/upstream-facts.md
 * §2.7): the kept IDs, the NCA id and region of this stack, and the gateway URL as ICMS, ReVal and NATS address.
 * Input: IDs, NCA id, region, `http://<gateway address>`. Output: YAML text starting at `clusterID:`. No secret.
 */
export function registeredValuesText(
  ids: { clusterID: string; clusterGroupID: string },
  ncaId: string,
  region: string,
  gatewayUrl: string,
): string {
  const host = gatewayUrl.replace(/^[a-z]+:\/\//, "");
  return yaml.dump({
    clusterID: ids.clusterID,
    clusterGroupID: ids.clusterGroupID,
    ncaID: ncaId,
    region,
    selfManaged: {
      identitySource: "psat",
      icmsServiceURL: gatewayUrl,
      revalServiceURL: gatewayUrl,
      natsURL: host ? `nats://${host}:4222` : "",
    },
  });
}

const registeredValuesBlock = (
  ids: { clusterID: string; clusterGroupID: string },
  ncaId: string,
  region: string,
  gatewayUrl: pulumi.Output<string>,
) => gatewayUrl.apply((u) => registeredValuesText(ids, ncaId, region, u));

/**
 * Registers one GPU cluster and keeps its IDs (NVIDIA: deleting a registration creates a new identity and can
 * orphan the cluster's function deployments, `docs/v0.6.1/release-notes/0.5.0-to-0.6.0-upgrade.md`):
 * - create: `cluster register --ignore-existing` (or, with `registered`, the values block of those IDs);
 * - update, when any input changes (values/registration.ts `registrationUpdate`): a new region or gateway
 *   address re-registers with `--ignore-existing` (the IDs are found by name, the issuer and JWKS refreshed,
 *   the values block carries the new values); any other change — `jwksRotation`, the kubeconfig or API server,
 *   the CLI or its endpoints' host names — runs `cluster rotate --cluster-id <id> --force` and keeps the block;
 *   a different NCA id fails (config/identity.ts refuses it before anything runs);
 * - delete, only when the cluster leaves `nvcf:gpuClusters` (or the stack is destroyed): `cluster delete
 *   --ignore-missing`.
 * No input replaces the command. Nothing else re-runs it.
 *
 * Output: `registration`, the typed values that followed the helm-values marker (plain: IDs and URLs are
 * not secret). Throws at deploy time when the CLI fails or returns empty IDs (docs/upstream-facts.md §4 row 15).
 * Its `dependsOn` goes to the command, not to the component (components/options.ts).
 */
export class ClusterRegistration extends pulumi.ComponentResource {
  readonly registration: pulumi.Output<Registration>;

  constructor(name: string, args: ClusterRegistrationArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:ClusterRegistration", name, {}, withoutDependsOn(opts));
    const endpoints = pulumi.output(args.endpoints);
    // An adopted registration prints the recorded values block instead of registering; without one the
    // inputs are exactly those of a registration made here.
    const ids = args.registered;
    const adopted: Record<string, pulumi.Input<string>> = ids
      ? { NVCFP_REGISTERED_VALUES: registeredValuesBlock(ids, args.ncaId, args.region, endpoints.gatewayUrl) }
      : {};
    // Present only when set, so stacks that never asked for a rotation see no new input.
    const rotation: Record<string, string> =
      args.jwksRotation !== undefined ? { NVCFP_JWKS_ROTATION: args.jwksRotation } : {};
    const cmd = new command.local.Command(
      `${name}-register`,
      {
        create: ids ? "printf '%s\\n' \"$NVCFP_REGISTERED_VALUES\"" : 'eval "$NVCFP_REGISTER_SCRIPT"',
        update: 'eval "$NVCFP_UPDATE_SCRIPT"',
        delete: 'eval "$NVCFP_DEREGISTER_SCRIPT"',
        interpreter: ["/bin/bash", "-c"],
        environment: {
          ...REGISTRATION_SCRIPTS,
          NVCFP_CLI: args.cliPath,
          NVCFP_CLI_CONFIG_YAML: endpoints.apply(cliConfigYaml),
          NVCFP_CLUSTER_NAME: args.clusterName,
          NVCFP_NCA_ID: args.ncaId,
          NVCFP_REGION: args.region,
          NVCFP_ICMS_URL: endpoints.gatewayUrl,
          NVCFP_API_SERVER: args.apiServer,
          NVCFP_KUBECONFIG: pulumi.secret(args.kubeconfig),
          ...rotation,
          ...adopted,
        },
        logging: "stderr",
      },
      {
        parent: this,
        dependsOn: opts?.dependsOn,
        // A state may hold `triggers` (cluster name, NCA id, region) from a registration made with them, and
        // a changed trigger replaces a command (deregister, register: new IDs). Ignoring them keeps every
        // change an update.
        ignoreChanges: ["triggers"],
        // Should the command ever be replaced, the old registration goes first: a replacement created first
        // would find the same IDs by name, and the delete that follows would deregister them.
        deleteBeforeReplace: true,
        additionalSecretOutputs: ["stderr"],
      },
    );
    const deployed = args.deployed;
    if (deployed) {
      endpoints.gatewayUrl.apply((icmsUrl) => {
        if (deployed.region === args.region && deployed.icmsServiceURL === icmsUrl) return;
        const change = { recorded: deployed, ncaId: args.ncaId, region: args.region, icmsUrl };
        void pulumi.log.info(describeRegistrationUpdate(args.clusterName, change), cmd);
      });
    }
    // The script prints only the values block (IDs and URLs), so the parsed fields are not secret. An
    // adopted registration's IDs come from config, so they are known even when the command is not run.
    // Output the command printed that is not a registration fails as an error of the command.
    const parsed = (text: string): Registration => failsAs(cmd, () => parseRegistration(text));
    this.registration = ids
      ? pulumi.unsecret(
          pulumi
            .all([cmd.stdout, endpoints.gatewayUrl])
            .apply(([out, url]) => parsed(out || registeredValuesText(ids, args.ncaId, args.region, url))),
        )
      : pulumi.unsecret(cmd.stdout.apply(parsed));
    this.registerOutputs({ registration: this.registration });
  }
}
