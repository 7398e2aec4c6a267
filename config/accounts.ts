/**
 * Account settings after install (pure): which registry credentials and limits the program keeps applied through
 * nvcf-cli (components/accounts.ts), what those runs record, and which config changes NVIDIA's API cannot apply to
 * an existing account, so they are refused before anything is touched.
 *
 * Facts (NVIDIA/nvcf):
 * - deploy/helm/cloud-functions/nvcf-api/scripts/account-bootstrap.sh (hook post-install and post-upgrade) creates
 *   the account with one POST, treats HTTP 409 as success and drops every credential with a MODEL or RESOURCE
 *   artifact type ("not supported in self-hosted"): credentials and limits in the chart's values reach an account
 *   only when it is created.
 * - After install: docs/user/third-party-registries.md "Managing Credentials After Deployment" and
 *   docs/user/runbooks/update-nvcf-account-quota-limits.md, i.e. src/clis/nvcf-cli/cmd/registry.go
 *   (`registry-credential add|update|delete`; tags and description "cannot be updated after creation"; artifact
 *   types are additive; every credential it adds or updates is named `credentials`) and cmd/admin.go
 *   (`admin accounts update`).
 * - src/control-plane-services/cloud-functions/nvcf-core: RegistryCredentialService (hostname + credential name
 *   unique per account; no credential beyond maxRegistryCredentialsAllowed; a SYSTEM-provisioned credential, one the
 *   account was created with, cannot be deleted; NGC hosts need the `$oauthtoken` user), util/NvcfConstants.java
 *   (hostname and tag syntax, tag and description lengths).
 */
import type { Problem } from "./problems";
import { describe } from "./problems";
import type { ControlPlaneConfig } from "./schema";

export type AccountLimits = ControlPlaneConfig["accounts"]["limits"];
export type RegistryCredentialConfig = ControlPlaneConfig["accounts"]["registryCredentials"][number];

/** The chart's default account (helm-nvcf-api values `api.accountBootstrap.accountName`). */
export const DEFAULT_ACCOUNT_NAME = "nvcf-default";

/** Artifact types the account bootstrap drops, with the whole credential (account-bootstrap.sh). */
const DROPPED_TYPES = ["MODEL", "RESOURCE"];

/** nvcf-core NvcfConstants.HOSTNAME_REGEX and TAG_REGEX (matched whole, as bean validation does). */
const HOSTNAME_REGEX = /^(?=.{4,253}$)((?!-)[a-zA-Z0-9-]{1,63}(?<!-)\.)+[a-zA-Z0-9]{2,63}$/;
const TAG_REGEX = /^[a-zA-Z0-9\-_:=]+$/;

const K = (path: string) => `nvcf:${path}`;
const credKey = (i: number, field: string) => K(`accounts.registryCredentials[${i}].${field}`);
const q = (path: string) => `'${path}'`;

/**
 * The account the bootstrap creates and the program's nvcf-cli runs act on: `nvcf:releaseValues.api.api.
 * accountBootstrap.accountName` when set, else the chart's default `nvcf-default`.
 */
export function accountName(cfg: ControlPlaneConfig): string {
  const api = (cfg.releaseValues["api"] ?? {}) as Record<string, unknown>;
  const ab = ((api["api"] ?? {}) as Record<string, unknown>)["accountBootstrap"] as
    | Record<string, unknown>
    | undefined;
  const name = ab?.["accountName"];
  return typeof name === "string" && name !== "" ? name : DEFAULT_ACCOUNT_NAME;
}

/** True when the account bootstrap applies the credential (it drops those with a MODEL or RESOURCE artifact type). */
export function appliedByBootstrap(c: { artifactTypes: readonly string[] }): boolean {
  return !c.artifactTypes.some((t) => DROPPED_TYPES.includes(t));
}

/**
 * The registry credentials the program keeps applied after install, with their index in
 * `nvcf:accounts.registryCredentials`: every entry the account bootstrap applies. Each is keyed by its
 * `registryHostname` (unique among them: `accountConfigRules`), so reordering the list changes nothing.
 */
export function managedCredentials(
  cfg: ControlPlaneConfig,
): { index: number; credential: RegistryCredentialConfig }[] {
  return cfg.accounts.registryCredentials
    .map((credential, index) => ({ index, credential }))
    .filter((x) => appliedByBootstrap(x.credential));
}

/** What a credential's nvcf-cli run recorded (from `registry-credential … --json`; no secret in it). */
export interface AppliedCredential {
  registryCredentialId: string;
  /** SYSTEM: created with the account by the bootstrap; USER: added through nvcf-cli. */
  provisionedBy: string;
  registryCredentialName: string;
  artifactTypes: string[];
  description: string;
  tags: string[];
}

/** The limits `admin accounts update --json` reported. */
export interface AppliedLimits {
  ncaId: string;
  maxFunctions: number;
  maxTasks: number;
  maxTelemetries: number;
  maxRegistryCreds: number;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** The object at `key` of the JSON document a command printed; throws naming `what` when there is none. */
function printed(stdout: string, key: string, what: string): Record<string, unknown> | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw new Error(`the nvcf-cli run of ${what} printed no JSON document`);
  }
  const v = (doc as Record<string, unknown> | null)?.[key];
  return v && typeof v === "object" ? (v as Record<string, unknown>) : undefined;
}

/**
 * Parses what a credential resource printed: `{"registryCredential": {...}}` as nvcf-cli's `--json` output of
 * `registry-credential add|update` has it. Throws when it is not such a document or has no credential ID.
 */
export function parseCredentialOutput(stdout: string): AppliedCredential {
  const c = printed(stdout, "registryCredential", "the registry credential");
  if (!c || typeof c["registryCredentialId"] !== "string" || !c["registryCredentialId"])
    throw new Error("the registry credential's nvcf-cli run printed no registryCredential with an ID");
  return {
    registryCredentialId: String(c["registryCredentialId"]),
    provisionedBy: String(c["provisionedBy"] ?? ""),
    registryCredentialName: String(c["registryCredentialName"] ?? ""),
    artifactTypes: strings(c["artifactTypes"]),
    description: String(c["description"] ?? ""),
    tags: strings(c["tags"]),
  };
}

/** Parses `{"account": {...}}` (`admin accounts update --json`). Throws when it is not such a document. */
export function parseLimitsOutput(stdout: string): AppliedLimits {
  const a = printed(stdout, "account", "the account limits");
  const n = (k: string) => (typeof a?.[k] === "number" ? (a[k] as number) : NaN);
  const out = {
    ncaId: String(a?.["ncaId"] ?? ""),
    maxFunctions: n("maxFunctionsAllowed"),
    maxTasks: n("maxTasksAllowed"),
    maxTelemetries: n("maxTelemetriesAllowed"),
    maxRegistryCreds: n("maxRegistryCredentialsAllowed"),
  };
  if (!out.ncaId || Object.values(out).some((v) => typeof v === "number" && Number.isNaN(v)))
    throw new Error("the account limits' nvcf-cli run printed no account with its four limits");
  return out;
}

/** One credential as the last `pulumi up` left it: the API's view, plus the config's name and user. */
export interface DeployedCredential {
  registryCredentialId: string;
  provisionedBy: string;
  /** `secretName` of the config when it was applied (the bootstrap's credential name). */
  secretName: string;
  /** `username` of the config when it was applied. */
  username: string;
  artifactTypes: string[];
  description: string;
  tags: string[];
}

/**
 * The stack output `accountSettings`: what the last `pulumi up` applied to the account (no secret). Credentials by
 * `registryHostname`.
 */
export interface DeployedAccountSettings {
  accountName: string;
  limits: AccountLimits;
  registryCredentials: Record<string, DeployedCredential>;
}

/** The stack output's name (stacks/control.ts exports it; the next run reads it back). */
export const ACCOUNT_SETTINGS_OUTPUT = "accountSettings";

/**
 * The deployed settings from a previous `accountSettings` output value; undefined when it is absent or not of that
 * shape (a stack deployed before the output existed, or one never deployed).
 */
export function readDeployedAccountSettings(value: unknown): DeployedAccountSettings | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  const creds = v["registryCredentials"];
  if (typeof v["accountName"] !== "string" || !creds || typeof creds !== "object" || !v["limits"])
    return undefined;
  const out: Record<string, DeployedCredential> = {};
  for (const [host, raw] of Object.entries(creds as Record<string, unknown>)) {
    const c = (raw ?? {}) as Record<string, unknown>;
    out[host] = {
      registryCredentialId: String(c["registryCredentialId"] ?? ""),
      provisionedBy: String(c["provisionedBy"] ?? ""),
      secretName: String(c["secretName"] ?? ""),
      username: String(c["username"] ?? ""),
      artifactTypes: strings(c["artifactTypes"]),
      description: String(c["description"] ?? ""),
      tags: strings(c["tags"]),
    };
  }
  return { accountName: v["accountName"], limits: v["limits"] as AccountLimits, registryCredentials: out };
}

/** The `accountSettings` record of one applied credential (pure). */
export function deployedCredential(
  c: RegistryCredentialConfig,
  applied: AppliedCredential,
): DeployedCredential {
  return {
    registryCredentialId: applied.registryCredentialId,
    provisionedBy: applied.provisionedBy,
    secretName: c.secretName,
    username: c.username,
    artifactTypes: [...applied.artifactTypes],
    description: applied.description,
    tags: [...applied.tags],
  };
}

/** A string for a problem's text, quoted even when empty (`describe` says "nothing" for ""). */
const quoted = (s: string) => (s.length > 80 ? `${JSON.stringify(s.slice(0, 77))}...` : JSON.stringify(s));

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join("\n") === [...b].sort().join("\n");

/**
 * Rules of the account settings on the config alone (config/rules/accounts.ts runs them with the other control-plane
 * rules): what the API would refuse at the bootstrap or at a later nvcf-cli run. Input: the validated config.
 * Output: every problem (key, expected, found, fix); none for a valid config.
 */
export function accountConfigRules(cfg: ControlPlaneConfig): Problem[] {
  const out: Problem[] = [];
  const managed = managedCredentials(cfg);
  const seen = new Map<string, number>();
  for (const { index: i, credential: c } of managed) {
    const first = seen.get(c.registryHostname);
    if (first !== undefined)
      out.push({
        key: credKey(i, "registryHostname"),
        expected:
          "a hostname no other entry has: after install the program applies each credential through nvcf-cli, which names every credential it adds or updates `credentials`, and the API keeps hostname and name unique in an account",
        found: `${describe(c.registryHostname)}, also at accounts.registryCredentials[${first}]`,
        fix: `merge the two entries into one (artifactTypes: both entries' types), or remove accounts.registryCredentials[${i}]`,
      });
    else seen.set(c.registryHostname, i);
    if (!HOSTNAME_REGEX.test(c.registryHostname))
      out.push({
        key: credKey(i, "registryHostname"),
        expected:
          "a registry hostname without scheme, port or path, such as nvcr.io (the Account API's hostname syntax)",
        found: describe(c.registryHostname),
        fix: `pulumi config set --path ${q(`nvcf:accounts.registryCredentials[${i}].registryHostname`)} <hostname>`,
      });
    const ngc = c.registryHostname.endsWith("nvcr.io") || c.registryHostname.endsWith("ngc.nvidia.com");
    if (ngc && c.username !== "$oauthtoken")
      out.push({
        key: credKey(i, "username"),
        expected: "$oauthtoken for an NGC registry (the Account API refuses an NGC credential without it)",
        found: describe(c.username),
        fix: `pulumi config set --path ${q(`nvcf:accounts.registryCredentials[${i}].username`)} '$oauthtoken'`,
      });
    const badTags = c.tags.filter((t) => t.length > 128 || !TAG_REGEX.test(t));
    if (badTags.length > 0 || c.tags.length > 64)
      out.push({
        key: credKey(i, "tags"),
        expected:
          "at most 64 tags of letters, digits and - _ : =, each at most 128 characters (the Account API's tag rules)",
        found: badTags.length ? describe(badTags) : `${c.tags.length} tags`,
        fix: `pulumi config set --path ${q(`nvcf:accounts.registryCredentials[${i}].tags`)} with valid tags`,
      });
    if (c.description.length > 256)
      out.push({
        key: credKey(i, "description"),
        expected: "a description of at most 256 characters",
        found: `${c.description.length} characters`,
        fix: `pulumi config set --path ${q(`nvcf:accounts.registryCredentials[${i}].description`)} <shorter text>`,
      });
  }
  if (managed.length > cfg.accounts.limits.maxRegistryCreds)
    out.push({
      key: K("accounts.limits.maxRegistryCreds"),
      expected: `at least ${managed.length}, the number of registry credentials the account gets (the API refuses a credential beyond the limit)`,
      found: describe(cfg.accounts.limits.maxRegistryCreds),
      fix: `pulumi config set --path nvcf:accounts.limits.maxRegistryCreds ${managed.length}`,
    });
  return out;
}

/**
 * Rules of a change against what the stack's last `pulumi up` applied (`deployed`, the previous `accountSettings`
 * output; nothing to check when undefined). What nvcf-cli and the API cannot do to an existing account is refused,
 * naming the key, the deployed value and the way out: renaming the account, removing (or turning MODEL/RESOURCE) a
 * credential the account was created with (SYSTEM: the API never deletes it), changing a credential's name,
 * description or tags, removing one of its artifact types. Limits, the secret and the user of a credential, added
 * artifact types and credentials added or removed later (USER) are applied. Output: every problem.
 */
export function accountChangeRules(
  cfg: ControlPlaneConfig,
  deployed: DeployedAccountSettings | undefined,
): Problem[] {
  if (!deployed) return [];
  const out: Problem[] = [];
  const name = accountName(cfg);
  if (name !== deployed.accountName)
    out.push({
      key: K("releaseValues.api.api.accountBootstrap.accountName"),
      expected: `${describe(deployed.accountName)}, the account this control plane was installed with (the account bootstrap creates an account once; a second one would need the admin client ncp, which the first holds)`,
      found: describe(name),
      fix:
        deployed.accountName === DEFAULT_ACCOUNT_NAME
          ? "pulumi config rm --path nvcf:releaseValues.api.api.accountBootstrap.accountName"
          : `pulumi config set --path nvcf:releaseValues.api.api.accountBootstrap.accountName ${deployed.accountName}`,
    });
  const entries = cfg.accounts.registryCredentials;
  for (const [host, d] of Object.entries(deployed.registryCredentials)) {
    const i = entries.findIndex((c) => c.registryHostname === host);
    const c = i < 0 ? undefined : entries[i];
    const system = d.provisionedBy === "SYSTEM";
    const restore = JSON.stringify({
      registryHostname: host,
      secretName: d.secretName,
      artifactTypes: d.artifactTypes,
      username: d.username,
      description: d.description,
      tags: d.tags,
    });
    if (!c || !appliedByBootstrap(c)) {
      if (!system && !c) continue; // a credential added through nvcf-cli: removing the entry deletes it
      out.push({
        key: c ? credKey(i, "artifactTypes") : K("accounts.registryCredentials"),
        expected: system
          ? `the entry for registryHostname "${host}" with CONTAINER or HELM artifact types only: the account was created with that credential, and the API never deletes a credential provisioned by the system`
          : `CONTAINER or HELM artifact types only for "${host}": the program applies no MODEL or RESOURCE credential, as NVIDIA's account bootstrap drops them`,
        found: c ? describe(c.artifactTypes) : `no entry for "${host}"`,
        fix: c
          ? `pulumi config set --path ${q(`nvcf:accounts.registryCredentials[${i}].artifactTypes`)} with the deployed types ${JSON.stringify(d.artifactTypes)}`
          : `add the entry back to nvcf:accounts.registryCredentials (deployed: ${restore}); it stays in the account as long as the account exists`,
      });
      continue;
    }
    const orReadd = system
      ? ""
      : ", or remove the entry, run pulumi up (nvcf-cli deletes the credential) and add it back changed";
    if (c.secretName !== d.secretName)
      out.push({
        key: credKey(i, "secretName"),
        expected: `${quoted(d.secretName)}, the name the credential was created with (nvcf-cli cannot rename a credential: it names every credential it adds or updates "credentials")`,
        found: quoted(c.secretName),
        fix: `pulumi config set --path ${q(`nvcf:accounts.registryCredentials[${i}].secretName`)} ${d.secretName}`,
      });
    if (c.description !== d.description)
      out.push({
        key: credKey(i, "description"),
        expected: `${quoted(d.description)}, the description the API holds (nvcf-cli cannot change a credential's description after it is created)`,
        found: quoted(c.description),
        fix: `pulumi config set --path ${q(`nvcf:accounts.registryCredentials[${i}].description`)} '${d.description}'${orReadd}`,
      });
    if (!sameSet(c.tags, d.tags))
      out.push({
        key: credKey(i, "tags"),
        expected: `${describe(d.tags)}, the tags the API holds (nvcf-cli cannot change a credential's tags after it is created)`,
        found: describe(c.tags),
        fix: `set nvcf:accounts.registryCredentials[${i}].tags back to ${JSON.stringify(d.tags)}${orReadd}`,
      });
    const removed = d.artifactTypes.filter(
      (t) => !c.artifactTypes.includes(t as (typeof c.artifactTypes)[number]),
    );
    if (removed.length > 0)
      out.push({
        key: credKey(i, "artifactTypes"),
        expected: `every artifact type the credential has, ${JSON.stringify(d.artifactTypes)} (the API only adds artifact types; nvcf-cli registry-credential update adds, nothing removes one)`,
        found: `${describe(c.artifactTypes)}, without ${removed.join(", ")}`,
        fix: `add ${removed.join(", ")} back to nvcf:accounts.registryCredentials[${i}].artifactTypes${orReadd}`,
      });
  }
  return out;
}
