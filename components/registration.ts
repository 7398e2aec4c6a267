/**
 * `ClusterRegistration`: registers one GPU cluster with the control plane by running nvcf-cli through
 * `@pulumi/command`, and deregisters it on delete. Facts: spec §3.1-§3.3, §2.2 (`register-cluster`).
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterRegistration as Registration } from "../contract/controlPlane";
import { type CliEndpoints, cliConfigYaml, parseRegistration } from "../values/registration";

export interface ClusterRegistrationArgs {
  clusterName: string;
  region: string;
  ncaId: string;
  /** Endpoints and host-header overrides the CLI uses (from the control plane's own gateway and domain). */
  endpoints: pulumi.Input<CliEndpoints>;
  /** The GPU cluster's kubeconfig (secret): the CLI reads the cluster's issuer and JWKS through it (spec §4 row 14). */
  kubeconfig: pulumi.Output<string>;
  /** The GPU cluster's API server URL (plain): a change re-runs the registration. */
  apiServer: pulumi.Input<string>;
  /** Path of the nvcf-cli executable. */
  cliPath: string;
}

/*
 * The scripts write the CLI config and kubeconfig into a private temporary directory (HOME too, so the
 * CLI's token state file dies with it), never print the admin token (init's output is discarded, errors
 * are redacted), and print only the Helm values block of `cluster register`.
 */
const PRELUDE = `set -euo pipefail
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work"
printf '%s' "$NVCF_CLI_CONFIG_YAML" > "$work/cli.yaml"
redact() { sed -E 's/(nvapi-|eyJ)[A-Za-z0-9._-]+/[redacted]/g; s/("?(token|value|api_key)"?[:=] *)"?[^", ]+/\\1[redacted]/Ig' >&2; }
if ! "$NVCF_CLI" --config "$work/cli.yaml" init >/dev/null 2>"$work/init.err"; then
  echo "nvcf-cli init failed:" >&2; redact < "$work/init.err"; exit 1
fi
`;

const CREATE = `${PRELUDE}printf '%s' "$NVCF_KUBECONFIG" > "$work/kubeconfig"
if ! "$NVCF_CLI" --config "$work/cli.yaml" cluster register --name "$NVCF_CLUSTER_NAME" --nca-id "$NVCF_NCA_ID" \\
    --region "$NVCF_REGION" --icms-url "$NVCF_ICMS_URL" --kubeconfig "$work/kubeconfig" --ignore-existing \\
    >"$work/out" 2>"$work/err"; then
  echo "nvcf-cli cluster register failed for $NVCF_CLUSTER_NAME (API server $NVCF_API_SERVER):" >&2
  redact < "$work/err"; exit 1
fi
sed -n '/^clusterID:/,$p' "$work/out"
`;

const DELETE = `${PRELUDE}id=$(printf '%s\\n' "\${PULUMI_COMMAND_STDOUT:-}" | awk '/^clusterID:/ { gsub(/"/, "", $2); print $2; exit }')
if [ -z "$id" ]; then echo "no recorded clusterID for $NVCF_CLUSTER_NAME; nothing to deregister" >&2; exit 0; fi
"$NVCF_CLI" --config "$work/cli.yaml" cluster delete --cluster-id "$id" --nca-id "$NVCF_NCA_ID" --ignore-missing >/dev/null 2>"$work/err" || {
  echo "nvcf-cli cluster delete failed for $NVCF_CLUSTER_NAME ($id):" >&2; redact < "$work/err"; exit 1; }
echo "deregistered $NVCF_CLUSTER_NAME ($id)"
`;

/**
 * Registers one GPU cluster. Re-runs exactly when its inputs change: the cluster name, NCA id or region
 * replace the registration (deregister, then register); endpoints, the CLI path or the cluster's API
 * server re-run `register --ignore-existing` (same IDs, refreshed issuer and JWKS). Nothing else re-runs it
 * (user report C11). On delete it deregisters (`cluster delete --ignore-missing`).
 *
 * Output: `registration`, the typed values that followed the helm-values marker (plain: IDs and URLs are
 * not secret). Throws at deploy time when the CLI fails or returns empty IDs (spec §4 row 15).
 */
export class ClusterRegistration extends pulumi.ComponentResource {
  readonly registration: pulumi.Output<Registration>;

  constructor(name: string, args: ClusterRegistrationArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:ClusterRegistration", name, {}, opts);
    const endpoints = pulumi.output(args.endpoints);
    const cmd = new command.local.Command(
      `${name}-register`,
      {
        create: CREATE,
        delete: DELETE,
        interpreter: ["/bin/bash", "-c"],
        environment: {
          NVCF_CLI: args.cliPath,
          NVCF_CLI_CONFIG_YAML: endpoints.apply(cliConfigYaml),
          NVCF_CLUSTER_NAME: args.clusterName,
          NVCF_NCA_ID: args.ncaId,
          NVCF_REGION: args.region,
          NVCF_ICMS_URL: endpoints.gatewayUrl,
          NVCF_API_SERVER: args.apiServer,
          NVCF_KUBECONFIG: pulumi.secret(args.kubeconfig),
        },
        triggers: [args.clusterName, args.ncaId, args.region],
        logging: "stderr",
      },
      {
        parent: this,
        dependsOn: opts?.dependsOn,
        deleteBeforeReplace: true,
        additionalSecretOutputs: ["stderr"],
      },
    );
    // The script prints only the values block (IDs and URLs), so the parsed fields are not secret.
    this.registration = pulumi.unsecret(cmd.stdout.apply(parseRegistration));
    this.registerOutputs({ registration: this.registration });
  }
}
