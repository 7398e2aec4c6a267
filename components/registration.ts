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

/*
 * The scripts write the CLI config and kubeconfig into a private temporary directory (HOME too, so the
 * CLI's token state file dies with it), never print the admin token (init's output is discarded, errors
 * and warnings are redacted), and print only the Helm values block of `cluster register`. Settings reach
 * the scripts as NVCFP_* variables; every variable the CLI itself would read (NVCF_*, API_KEYS_*, except
 * its own NVCF_CLI_* settings) is removed first, so the operator's shell cannot override the config.
 */
const PRELUDE = `set -euo pipefail
umask 077
for v in $(compgen -e | grep -E '^(NVCF_|API_KEYS_)' | grep -v '^NVCF_CLI_' || true); do unset "$v"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work" NO_COLOR=1
printf '%s' "$NVCFP_CLI_CONFIG_YAML" > "$work/cli.yaml"
redact() { sed -E 's/(nvapi-|eyJ)[A-Za-z0-9._-]+/[redacted]/g; s/("?(token|value|api_key)"?[:=] *)"?[^", ]+/\\1[redacted]/Ig' >&2; }
if [ -z "$NVCFP_ICMS_URL" ]; then
  echo "the control plane's gateway address is empty: set nvcf:gateway.address or wait until the Gateway reports one" >&2; exit 1
fi
if ! "$NVCFP_CLI" --config "$work/cli.yaml" init >/dev/null 2>"$work/init.err"; then
  echo "nvcf-cli init failed:" >&2; redact < "$work/init.err"; exit 1
fi
`;

/** `cluster register --ignore-existing` into $work/out, its values block printed (shared by create and update). */
const REGISTER = `printf '%s' "$NVCFP_KUBECONFIG" > "$work/kubeconfig"
if ! "$NVCFP_CLI" --config "$work/cli.yaml" cluster register --name "$NVCFP_CLUSTER_NAME" --nca-id "$NVCFP_NCA_ID" \\
    --region "$NVCFP_REGION" --icms-url "$NVCFP_ICMS_URL" --kubeconfig "$work/kubeconfig" --ignore-existing \\
    >"$work/out" 2>"$work/err"; then
  echo "nvcf-cli cluster register failed for $NVCFP_CLUSTER_NAME (API server $NVCFP_API_SERVER):" >&2
  redact < "$work/err"; exit 1
fi
redact < "$work/err"
if ! grep -q '^clusterID:' "$work/out"; then
  echo "nvcf-cli cluster register printed no Helm values for $NVCFP_CLUSTER_NAME" >&2; exit 1
fi
sed -n '/^clusterID:/,$p' "$work/out"
`;

const CREATE = `${PRELUDE}${REGISTER}`;

/*
 * Update: the decision of values/registration.ts `registrationUpdate`, taken from the values block the last run
 * printed (PULUMI_COMMAND_STDOUT): a different NCA id is refused; a values block that changes (region, ICMS URL)
 * or none recorded re-registers (same IDs, found by name); anything else (the JWKS rotation request, the
 * kubeconfig, the CLI or its endpoints' host names) runs `cluster rotate --force` and keeps the recorded block.
 */
const UPDATE = `${PRELUDE}old=\${PULUMI_COMMAND_STDOUT:-}
field() { printf '%s\\n' "$old" | sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" | head -n1 | tr -d "\\"'"; }
id=$(field clusterID); nca=$(field ncaID); region=$(field region); icms=$(field icmsServiceURL)
if [ -n "$id" ] && [ -n "$nca" ] && [ "$nca" != "$NVCFP_NCA_ID" ]; then
  echo "$NVCFP_CLUSTER_NAME ($id) is registered in account $nca; nvcf-cli cannot move a registration to account $NVCFP_NCA_ID keeping its IDs" >&2
  exit 1
fi
if [ -n "$id" ] && [ "$region" = "$NVCFP_REGION" ] && [ "$icms" = "$NVCFP_ICMS_URL" ]; then
  printf '%s' "$NVCFP_KUBECONFIG" > "$work/kubeconfig"
  if ! "$NVCFP_CLI" --config "$work/cli.yaml" cluster rotate --cluster-id "$id" --kubeconfig "$work/kubeconfig" \\
      --icms-url "$NVCFP_ICMS_URL" --force >"$work/out" 2>"$work/err"; then
    echo "nvcf-cli cluster rotate failed for $NVCFP_CLUSTER_NAME ($id, API server $NVCFP_API_SERVER):" >&2
    redact < "$work/err"; redact < "$work/out"; exit 1
  fi
  echo "rotated the issuer and JWKS of $NVCFP_CLUSTER_NAME ($id) in ICMS; its IDs are kept" >&2
  printf '%s\\n' "$old" | sed -n '/^clusterID:/,$p'
  exit 0
fi
${REGISTER}now=$(sed -n 's/^clusterID:[[:space:]]*//p' "$work/out" | head -n1 | tr -d "\\"'")
if [ -n "$id" ] && [ "$now" != "$id" ]; then
  echo "warning: ICMS no longer had $NVCFP_CLUSTER_NAME ($id): it is registered again with cluster ID $now" >&2
fi
`;

const DELETE = `${PRELUDE}id=$(printf '%s\\n' "\${PULUMI_COMMAND_STDOUT:-}" | sed -n 's/^clusterID:[[:space:]]*//p' | head -n1 | tr -d "\\"'")
if [ -z "$id" ]; then echo "no recorded clusterID for $NVCFP_CLUSTER_NAME; nothing to deregister" >&2; exit 0; fi
"$NVCFP_CLI" --config "$work/cli.yaml" cluster delete --cluster-id "$id" --nca-id "$NVCFP_NCA_ID" --ignore-missing >/dev/null 2>"$work/err" || {
  echo "nvcf-cli cluster delete failed for $NVCFP_CLUSTER_NAME ($id):" >&2; redact < "$work/err"; exit 1; }
echo "deregistered $NVCFP_CLUSTER_NAME ($id)"
`;

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
          NVCFP_REGISTER_SCRIPT: CREATE,
          NVCFP_UPDATE_SCRIPT: UPDATE,
          NVCFP_DEREGISTER_SCRIPT: DELETE,
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
