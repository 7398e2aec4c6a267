/**
 * `nvcf rotate --env <env> --cluster <name>`: refreshes a GPU cluster's OIDC issuer and JWKS in ICMS (NVIDIA's
 * `nvcf-cli cluster rotate --force`, `docs/v0.6.1/release-notes/0.5.0-to-0.6.0-upgrade.md` "Recover an NVCA
 * agent that returns HTTP 401"), keeping the cluster's IDs. The request is a config change, so it is recorded
 * and `pulumi preview` shows it: the verb sets `nvcf:gpuClusters[<i>].jwksRotation` of the control-plane stack to
 * the current UTC time, then runs a `pulumi up` of that stack targeted at the cluster's registration step
 * (components/registration.ts runs `cluster rotate` for a changed `jwksRotation`). Nothing else of the stack is
 * updated; the GPU cluster's stack is not touched (its operator's values do not change).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { CliError } from "../report";
import { EXIT, type Environment, type ExitCode } from "../types";
import { progressFor } from "./up";
import { confirm, reportFailures, requireYesOrTerminal } from "./select";

/** Options of `nvcf rotate`. */
export interface RotateOptions {
  /** The GPU cluster's name, as listed in the control plane's `nvcf:gpuClusters`. */
  cluster: string;
  yes?: boolean;
  plain?: boolean;
}

/** The resource name of a GPU cluster's registration step (components/controlPlane.ts, registration.ts). */
export const registrationStepName = (cluster: string) => `nvcf-register-${cluster}-register`;

/**
 * The position of a GPU cluster in the control-plane stack file's `nvcf:gpuClusters` (the list as written).
 * Throws `CliError` (EXIT.usage) when it is not listed, naming the clusters there are.
 */
export function clusterIndex(env: Environment, cluster: string): number {
  const list = env.control.config["gpuClusters"];
  const names = Array.isArray(list)
    ? list.map((c) => (c && typeof c === "object" ? String((c as Record<string, unknown>)["name"]) : ""))
    : [];
  const i = names.indexOf(cluster);
  if (i < 0)
    throw new CliError(
      EXIT.usage,
      `--cluster ${cluster}: not a GPU cluster of environment "${env.name}" (nvcf:gpuClusters of ${env.control.stack}). ` +
        `Its GPU clusters: ${names.length ? names.join(", ") : "none"}`,
    );
  return i;
}

/**
 * The URN of the cluster's registration step in a stack's state (`pulumi stack export` resources), or undefined
 * when the state has none (never registered, or registered by an older layout).
 */
export function registrationStepUrn(resources: readonly { urn?: string; type?: string }[], cluster: string) {
  const suffix = `::${registrationStepName(cluster)}`;
  return resources.find((r) => r.type === "command:local:Command" && r.urn?.endsWith(suffix))?.urn;
}

const out = (l: string) => process.stdout.write(`${l}\n`);

/**
 * Runs the verb (see the module comment). Refuses, touching nothing: an unknown cluster (EXIT.usage), a missing
 * `--yes` when not interactive (EXIT.usage), a cluster the control plane has not registered yet
 * (EXIT.deployment, fix `nvcf up`), an invalid config (EXIT.config). A failed update exits EXIT.deployment with
 * the CLI's error. On success prints the kept IDs. Returns the exit code.
 */
export async function rotate(env: Environment, opts: RotateOptions): Promise<ExitCode> {
  const index = clusterIndex(env, opts.cluster);
  requireYesOrTerminal(opts.yes, "rotate");
  const a = await import("../automation");
  const before = (await a.registrationsOf(env))?.[opts.cluster];
  const stack = before ? await a.openStack(env, env.control) : undefined;
  const resources = stack
    ? (((await stack.exportStack()).deployment as { resources?: { urn?: string; type?: string }[] })
        .resources ?? [])
    : [];
  const urn = registrationStepUrn(resources, opts.cluster);
  if (!before || !stack || !urn)
    throw new CliError(
      EXIT.deployment,
      `GPU cluster ${opts.cluster} is not registered by control-plane stack ${env.control.stack} yet. Nothing was changed. ` +
        `Fix: nvcf up --env ${env.name} (registers it)`,
    );
  await confirm(
    `Refresh the OIDC issuer and JWKS of GPU cluster ${opts.cluster} (cluster ID ${before.clusterID}) in ICMS, keeping its IDs?`,
    opts.yes,
    "rotate",
  );

  const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  await stack.setConfig(`nvcf:gpuClusters[${index}].jwksRotation`, { value: stamp }, true);
  await a.validateStackConfig(stack);

  const progress = progressFor("up", [env.control.stack], opts.plain);
  progress.start(env.control.stack);
  const r = await a.runOperation("up", stack, {
    policyPacks: a.policyPacks(),
    target: [urn],
    onEvent: (e: EngineEvent) => progress.event(env.control.stack, e),
  });
  progress.finish(env.control.stack, r.ok, r.changes);
  progress.close();
  if (!r.ok) return reportFailures([r]);

  const after = (await a.registrationsOf(env))?.[opts.cluster];
  const kept = after?.clusterID === before.clusterID && after?.clusterGroupID === before.clusterGroupID;
  if (!kept)
    throw new CliError(
      EXIT.deployment,
      `GPU cluster ${opts.cluster}: the registration now reads cluster ID ${after?.clusterID ?? "none"} (was ${before.clusterID}). ` +
        `Fix: nvcf up --env ${env.name}, so its GPU-cluster stack gets the new IDs`,
    );
  out(
    `${opts.cluster}: OIDC issuer and JWKS refreshed in ICMS (nvcf-cli cluster rotate, request ${stamp}); ` +
      `cluster ID ${before.clusterID} and cluster group ID ${before.clusterGroupID} kept`,
  );
  out(
    `next: the NVCA agent retries with the refreshed keys; nvcf status --env ${env.name} shows when it is healthy`,
  );
  return EXIT.ok;
}
