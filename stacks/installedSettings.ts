/**
 * The settings a stack installed that cannot change in place, as a stack program meets them: the one read of what
 * its own last `pulumi up` left (`readDeployed`: engine/previous.ts `previousOutputs`, a StackReference to the stack
 * itself, read by the engine from the backend, so previews see it too), the installed record it publishes
 * (`INSTALLED_OUTPUT`, `INSTALLED_DIGESTS_OUTPUT`, built from config/installed.ts), and the refusal of a change to
 * one of them (`installedChangeProblems`, `refuseInstalledChanges`).
 *
 * A stack may register that reference only once per run, so every feature that judges a change against what is
 * deployed reads it here: the stack program calls `readDeployed` once, before it registers anything else, and
 * hands the result to the checks that need it. A feature that needs another of its stack's previous outputs adds
 * the output's name to `DEPLOYED_OUTPUT_NAMES` (and exports that output itself).
 */
import * as pulumi from "@pulumi/pulumi";
import {
  INSTALLED_SETTINGS,
  type InstalledDigests,
  type InstalledRecord,
  cassandraPasswordDigest,
  installedChanges,
  installedRecord,
} from "../config/installed";
import { ConfigError, type Problem } from "../config/problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../config/schema";
import { blankComputeInputs, computeValues } from "../values/compute";
import { type StackReleases, stackReleases } from "../config/stackReleases";
import { ACCOUNT_SETTINGS_OUTPUT } from "../config/accounts";
import { MAINTENANCE_OUTPUT } from "../config/maintenance";
import { type ControlSecrets, controlValues } from "../values/control";
import { type PreviousOutputs, UPGRADE_PREVIOUS_OUTPUTS, previousOutputs } from "../engine/previous";
import { RELEASE_INPUTS_OUTPUT } from "../engine/dryRun";

/**
 * Output holding the settings a stack deployed that cannot change in place (config/installed.ts
 * `InstalledRecord`): plain values only, never a secret.
 */
export const INSTALLED_OUTPUT = "installed";

/**
 * Secret output holding digests of the deployed credentials that cannot change in place (the Cassandra
 * password and the like, config/installed.ts `InstalledDigests`), so a change can be refused without the
 * credential ever being compared in plain text outside the program.
 */
export const INSTALLED_DIGESTS_OUTPUT = "installedDigests";

/** The outputs of this stack's previous update that the program reads back, all in one call. */
export const DEPLOYED_OUTPUT_NAMES: readonly string[] = [
  INSTALLED_OUTPUT,
  INSTALLED_DIGESTS_OUTPUT,
  // What the account got (control plane; config/accounts.ts `accountChangeRules`).
  ACCOUNT_SETTINGS_OUTPUT,
  // A GPU cluster's maintenance mode and account isolation (compute plane; config/maintenance.ts).
  MAINTENANCE_OUTPUT,
  ...UPGRADE_PREVIOUS_OUTPUTS,
  // What each release was given, as digests (engine/dryRun.ts).
  RELEASE_INPUTS_OUTPUT,
];

/**
 * What this stack's last update left, for every name of `DEPLOYED_OUTPUT_NAMES` (or `names`). Registers the one
 * StackReference `previous-outputs` (a read: nothing is created or changed). Output: `PreviousOutputs`
 * (`deployed: false` on a first `pulumi up` or after `pulumi destroy`; secret outputs in plain text, for
 * comparison only, never to print). Rejects only when the engine cannot read the stack.
 */
export function readDeployed(names: readonly string[] = DEPLOYED_OUTPUT_NAMES): Promise<PreviousOutputs> {
  return previousOutputs(names);
}

/** The control plane's secrets where a path of the installed record never reads them (the record holds none). */
const NO_CONTROL_SECRETS: ControlSecrets<string> = {
  cassandraPassword: "",
  sidecarAuth: "",
  functionAuth: [],
};

/**
 * The installed record of a stack's config (config/installed.ts `installedRecord`) with the values its releases
 * get (`nvcf:releaseValues` merged). Input: a validated config of either plane and what it installs (default:
 * its `stackReleases`). Output: the plain record and the digests of its secret paths; the Cassandra password's
 * digest is not in them (see `passwordDigests`).
 */
export function installedOf(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  releases: StackReleases = stackReleases(cfg),
): {
  record: InstalledRecord;
  digests: InstalledDigests;
} {
  const names = releases.inCatalogOrder.map((r) => r.name);
  if (cfg.plane === "control")
    return installedRecord({
      plane: "control",
      releases: names,
      values: (r) => controlValues(r, cfg, NO_CONTROL_SECRETS),
      cassandraPassword: !cfg.cassandra.enabled ? undefined : cfg.cassandraPassword ? "config" : "generated",
    });
  const c = cfg as ComputePlaneConfig;
  return installedRecord({
    plane: "compute",
    releases: names,
    // The control plane's inputs: no path of the record reads them.
    values: (r) => computeValues(r, c, blankComputeInputs()),
  });
}

/**
 * The engine's log, attached to the stack resource (so `nvcf preview` lists the lines under the stack,
 * cli/verbs/preview.ts `programNotes`): `info` and `warn` of `pulumi.log`.
 */
export const stackLog = {
  info: (m: string) => pulumi.log.info(m, pulumi.runtime.getStackResource()),
  warn: (m: string) => pulumi.log.warn(m, pulumi.runtime.getStackResource()),
};

const isRecord = (v: unknown): v is InstalledRecord =>
  typeof v === "object" && v !== null && (v as { version?: unknown }).version === 1;

/**
 * Every change of a setting that cannot change in place against what this stack deployed (config/installed.ts
 * `installedChanges`), as config problems; prints the preview's lines about the others. Input: the validated
 * config, what `readDeployed` returned, where the lines go (default: the engine's log) and what the config
 * installs (default: its `stackReleases`). Output: the refused changes (none on a first run).
 */
export function installedChangeProblems(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  previous: PreviousOutputs,
  log: { info(m: string): void; warn(m: string): void } = stackLog,
  releases: StackReleases = stackReleases(cfg),
): Problem[] {
  const prev = previous.values[INSTALLED_OUTPUT];
  if (!isRecord(prev)) return [];
  const { record, digests } = installedOf(cfg, releases);
  const password = cfg.plane === "control" ? (cfg as ControlPlaneConfig).cassandraPassword : undefined;
  const result = installedChanges(
    {
      record,
      digests: { ...digests, ...(password === undefined ? {} : cassandraPasswordDigest(password)) },
      cassandraPassword: password,
      allow: cfg.allowInstalledChanges,
      releaseValues: cfg.releaseValues,
    },
    { record: prev, digests: previous.values[INSTALLED_DIGESTS_OUTPUT] as InstalledDigests | undefined },
  );
  for (const n of result.notes) log[n.level](n.message);
  return result.problems;
}

/**
 * `installedChangeProblems`, refused: throws `ConfigError` (stack `stack`) listing every refused change; does
 * nothing on a first run or when nothing is refused.
 */
export function refuseInstalledChanges(
  stack: string,
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  previous: PreviousOutputs,
  log: { info(m: string): void; warn(m: string): void } = stackLog,
  releases: StackReleases = stackReleases(cfg),
): void {
  const problems = installedChangeProblems(cfg, previous, log, releases);
  if (problems.length > 0) throw new ConfigError(stack, problems);
}

/**
 * The stack outputs that record the installed settings once the releases carrying them are deployed:
 * `installed` (plain) and `installedDigests` (secret; with the digest of `password`, the Cassandra password the
 * releases got, when given). Input: the config, what it installs (config/stackReleases.ts), each release's
 * status by name, and the password (control plane). Output: the two outputs, each known once every release of
 * the record reports a status.
 */
export function installedOutputs(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  releases: StackReleases,
  statuses: Record<string, pulumi.Output<unknown>>,
  password?: pulumi.Output<string>,
): Record<string, pulumi.Output<unknown>> {
  const { record, digests } = installedOf(cfg, releases);
  const gates = Object.keys(record.settings)
    .map((id) => INSTALLED_RELEASE_OF.get(id))
    .filter((r): r is string => r !== undefined && statuses[r] !== undefined)
    .map((r) => statuses[r]);
  const done = pulumi.all(gates);
  return {
    [INSTALLED_OUTPUT]: done.apply(() => record),
    [INSTALLED_DIGESTS_OUTPUT]: pulumi.secret(
      pulumi
        .all([done, password ?? pulumi.output(undefined)])
        .apply(([, pw]) => ({ ...digests, ...(pw === undefined ? {} : cassandraPasswordDigest(pw)) })),
    ),
  };
}

/** The release of each installed setting, by id. */
const INSTALLED_RELEASE_OF = new Map(INSTALLED_SETTINGS.map((s) => [s.id, s.release]));
