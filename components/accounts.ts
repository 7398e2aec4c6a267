/**
 * `AccountSettings`: keeps the NVCF account's registry credentials and limits as the config says after install,
 * through nvcf-cli (NVIDIA's documented path: docs/user/third-party-registries.md "Managing Credentials After
 * Deployment", docs/user/runbooks/update-nvcf-account-quota-limits.md). The api release's account-bootstrap hook
 * creates the account with the same settings at the first install and never again (it treats "Account already
 * exists" as success), so these resources apply every later change; config/accounts.ts has the facts and the rules.
 */
import * as crypto from "node:crypto";
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import {
  type AccountLimits,
  type AppliedLimits,
  type DeployedAccountSettings,
  type DeployedCredential,
  type RegistryCredentialConfig,
  deployedCredential,
  parseCredentialOutput,
  parseLimitsOutput,
} from "../config/accounts";
import { type CliEndpoints, cliConfigYaml } from "../values/registration";
import { failsAs } from "./errors";
import { withoutDependsOn } from "./options";
import { NVCF_CLI_RUNNER, scriptText } from "./scripts";

export interface AccountSettingsArgs {
  /** The account (`api.accountBootstrap.accountName`; config/accounts.ts `accountName`). */
  accountName: string;
  limits: AccountLimits;
  /** The credentials to keep applied (config/accounts.ts `managedCredentials`), one resource each, by hostname. */
  credentials: RegistryCredentialConfig[];
  /** The key (password) of every credential, a secret: `nvcf:functionRegistryKey`, else `nvcf:registryKey`. */
  key: pulumi.Output<string>;
  /** Endpoints and host-header overrides the CLI uses (the control plane's own gateway and domain). */
  endpoints: pulumi.Input<CliEndpoints>;
  /** Path of the nvcf-cli executable. */
  cliPath: string;
}

/**
 * The scripts of an account-settings command (components/scripts/, README.md there), by kind: NVCFP_APPLY_SCRIPT
 * (create and update) and NVCFP_DELETE_SCRIPT, bash; NVCFP_RECORDS_JS, their JSON side (`account-records.js`, run
 * with `node -e`). Every script that calls nvcf-cli is the nvcf-cli runner (`nvcf-cli.sh`: environment cleared,
 * private HOME and config, `redact`, `init`; components/scripts.ts `NVCF_CLI_RUNNER`), then `account-lib.sh` (the
 * host overrides API_HOST, INVOKE_HOST and NVCT_HOST removed too; each failed call mapped to `nvcf-cli <command>
 * failed for account <account> (exit <status>):` and the CLI's errors, the registry password and keys redacted),
 * then the action's own file. The limits' delete runs no nvcf-cli (`account-limits-delete.sh`). A change to any of
 * these texts shows as an update of every account-settings command of a deployed stack, and the next `pulumi up`
 * runs its apply again: the same limits set again (after one more API key, which expires in an hour), the same
 * credential found (the one recorded) and given the same user and password.
 * Input: the command's kind. Output: those three environment entries by name, the files' texts joined. Throws
 * (ENOENT) when a file of components/scripts/ is missing.
 */
export function accountScripts(kind: "credential" | "limits"): Record<string, string> {
  const withCli = (file: string) => NVCF_CLI_RUNNER + scriptText("account-lib.sh") + scriptText(file);
  return {
    NVCFP_APPLY_SCRIPT: withCli(`account-${kind}-apply.sh`),
    NVCFP_DELETE_SCRIPT:
      kind === "credential"
        ? withCli("account-credential-delete.sh")
        : scriptText("account-limits-delete.sh"),
    NVCFP_RECORDS_JS: scriptText("account-records.js"),
  };
}

/** The `create`, `update` and `delete` of an account-settings command: its scripts, from the environment. */
const RUN = {
  create: 'eval "$NVCFP_APPLY_SCRIPT"',
  update: 'eval "$NVCFP_APPLY_SCRIPT"',
  delete: 'eval "$NVCFP_DELETE_SCRIPT"',
  interpreter: ["/bin/bash", "-c"],
};

/**
 * A short fingerprint of a credential (`user:key`) for previews: HMAC-SHA256 keyed with a random secret of the
 * stack, first 16 hex digits. It changes when the credential changes; without the stack's secrets it tells nothing
 * about the key (and with them the key itself is readable).
 */
export function credentialFingerprint(salt: string, user: string, key: string): string {
  return crypto.createHmac("sha256", salt).update(`${user}:${key}`).digest("hex").slice(0, 16);
}

/** The name of a credential's command: its hostname, so its place in the config list does not matter. */
export const credentialResourceName = (component: string, hostname: string) =>
  `${component}-credential-${hostname}`;

/**
 * The account's settings. Children (all `command:local:Command`, bash scripts: `accountScripts`): `<name>-limits`
 * runs `admin accounts update` with the four limits (after an `api-key generate` with the account_setup scope, as the
 * runbook does) on create and update, and nothing on delete (the account keeps its limits). One
 * `<name>-credential-<registryHostname>` per credential, after the limits (a raised limit makes room first): on
 * create and update it finds the credential in the account (the one it recorded, else the one the bootstrap made
 * for that hostname) and updates its user and password, adding artifact types the config adds, or adds it when there
 * is none; on delete it deletes a credential it added and keeps one the account was created with (the API refuses
 * to delete those). Each re-runs exactly when one of its inputs changes: for a credential its key (a secret input,
 * compared by the engine, shown as `[secret]`, with a plain fingerprint beside it, `credentialFingerprint`, so a
 * preview shows that it changed), user, artifact types, description, tags, name, the endpoints or the CLI; for the
 * limits a limit, the endpoints or the CLI. A RandomPassword `<name>-fingerprint-key` keys the fingerprints.
 *
 * The key reaches the command only as a secret environment variable; stdout (the CLI's answer, no secret) and
 * stderr are secret outputs all the same. Output: `settings`, what was applied (the `accountSettings` stack output,
 * plain: IDs, names, types, limits). Errors at deploy time: the CLI's, redacted (`accountScripts`).
 * Its `dependsOn` goes to the commands (components/options.ts).
 */
export class AccountSettings extends pulumi.ComponentResource {
  readonly settings: pulumi.Output<DeployedAccountSettings | undefined>;

  constructor(name: string, args: AccountSettingsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:AccountSettings", name, {}, withoutDependsOn(opts));
    const endpoints = pulumi.output(args.endpoints);
    const common = {
      NVCFP_CLI: args.cliPath,
      NVCFP_CLI_CONFIG_YAML: endpoints.apply(cliConfigYaml),
      // The runner's name for the gateway URL: nvcf-cli reaches every service, ICMS included, through it.
      NVCFP_ICMS_URL: endpoints.gatewayUrl,
      NVCFP_ACCOUNT: args.accountName,
    };
    const secretOutputs = { additionalSecretOutputs: ["stdout", "stderr"] };
    const l = args.limits;
    const limits = new command.local.Command(
      `${name}-limits`,
      {
        ...RUN,
        environment: {
          ...accountScripts("limits"),
          ...common,
          NVCFP_MAX_FUNCTIONS: String(l.maxFunctions),
          NVCFP_MAX_TASKS: String(l.maxTasks),
          NVCFP_MAX_TELEMETRIES: String(l.maxTelemetries),
          NVCFP_MAX_REGISTRY_CREDS: String(l.maxRegistryCreds),
        },
        logging: "stderr",
      },
      { parent: this, dependsOn: opts?.dependsOn, ...secretOutputs },
    );
    const applied: Record<string, pulumi.Output<DeployedCredential | undefined>> = {};
    // The key of the credentials' fingerprints (a secret of this stack; see credentialFingerprint).
    const salt =
      args.credentials.length > 0
        ? new random.RandomPassword(
            `${name}-fingerprint-key`,
            { length: 32, special: false },
            { parent: this },
          ).result
        : undefined;
    for (const c of args.credentials) {
      const fingerprint = pulumi.unsecret(
        pulumi
          .all([salt!, args.key])
          .apply(([s, k]) => (s === undefined ? "" : credentialFingerprint(s, c.username, k))),
      );
      const cmd = new command.local.Command(
        credentialResourceName(name, c.registryHostname),
        {
          ...RUN,
          environment: {
            ...accountScripts("credential"),
            ...common,
            NVCFP_REGISTRY_HOST: c.registryHostname,
            NVCFP_SECRET_NAME: c.secretName,
            NVCFP_ARTIFACT_TYPES: c.artifactTypes.join(","),
            NVCFP_REGISTRY_USER: c.username,
            NVCFP_REGISTRY_PASSWORD: pulumi.secret(args.key),
            NVCFP_KEY_FINGERPRINT: fingerprint,
            NVCFP_DESCRIPTION: c.description,
            NVCFP_TAGS: JSON.stringify(c.tags),
          },
          logging: "stderr",
        },
        { parent: this, dependsOn: [limits], ...secretOutputs },
      );
      // The script prints only the API's record of the credential (IDs, names, types), so it is not secret.
      applied[c.registryHostname] = pulumi.unsecret(
        cmd.stdout.apply((out) =>
          ranIn(out, (o) => failsAs(cmd, () => deployedCredential(c, parseCredentialOutput(o)))),
        ),
      );
    }
    const appliedLimits = pulumi.unsecret(
      limits.stdout.apply((out) => ranIn(out, (o) => failsAs(limits, () => parseLimitsOutput(o)))),
    );
    this.settings = pulumi.all([appliedLimits, pulumi.output(applied)]).apply(([lim, creds]) =>
      lim === undefined
        ? undefined
        : {
            accountName: args.accountName,
            limits: limitsOf(lim),
            registryCredentials: Object.fromEntries(
              Object.entries(creds).filter((e): e is [string, DeployedCredential] => e[1] !== undefined),
            ),
          },
    );
    this.registerOutputs({ settings: this.settings });
  }
}

/**
 * `parse(stdout)` of a command that ran in this update; `undefined` for one that did not: a targeted update
 * (`pulumi up --target`, as `nvcf import-helmfile` runs for the registrations) skips creating an untargeted
 * command, and the engine then gives the program its inputs back, without `stdout` (nor a RandomPassword's
 * `result`, which the fingerprints handle the same way).
 */
function ranIn<T>(stdout: string | undefined, parse: (out: string) => T): T | undefined {
  return stdout === undefined ? undefined : parse(stdout);
}

/** The config's form of the limits the CLI reported. */
function limitsOf(a: AppliedLimits): AccountLimits {
  return {
    maxFunctions: a.maxFunctions,
    maxTasks: a.maxTasks,
    maxTelemetries: a.maxTelemetries,
    maxRegistryCreds: a.maxRegistryCreds,
  };
}
