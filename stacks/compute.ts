/**
 * The compute-plane stack program (`nvcf:plane: compute`): reads its control plane through a
 * StackReference and the typed contract, refuses a mismatched bundle or a missing registration, and
 * builds the `ComputePlane` component for one GPU cluster.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as k8s from "@pulumi/kubernetes";
import * as yaml from "js-yaml";
import * as pulumi from "@pulumi/pulumi";
import { ComputePlane, computeReleaseNamespace } from "../components/computePlane";
import { PROJECT_DIR } from "../components/release";
import { recoverReleases } from "../recovery/recover";
import { ConfigError, type Problem } from "../config/problems";
import type { ComputePlaneConfig } from "../config/schema";
import { MAINTENANCE_OUTPUT, accountIsolationChangeProblems, maintenanceRecord } from "../config/maintenance";
import { CONTRACT_VERSION, type ControlPlanePlainOutputs, readControlPlane } from "../contract/controlPlane";
import { type ComputeInputs } from "../values/compute";
import { stackReleases } from "../config/stackReleases";
import { installedOutputs, readDeployed, refuseInstalledChanges, stackLog } from "./installedSettings";
import { computeUpgradePlan } from "./upgrade";
import { RELEASE_INPUTS_OUTPUT, ServerDryRun } from "../engine/dryRun";

/** The plain outputs `computeInputs` needs, in the order they are checked (`contract/controlPlane.ts`). */
export const CONTROL_PLANE_VALUE_NAMES = [
  "contractVersion",
  "bundleVersion",
  "imageRegistry",
  "imageRepository",
  "hosts",
  "icmsUrl",
  "revalUrl",
  "natsUrl",
  "clusterRegistrations",
] as const satisfies readonly (keyof ControlPlanePlainOutputs)[];

/** What the compute plane reads from its control plane's plain outputs: those of `CONTROL_PLANE_VALUE_NAMES`. */
export type ControlPlaneValues = Pick<ControlPlanePlainOutputs, (typeof CONTROL_PLANE_VALUE_NAMES)[number]>;

/**
 * Checks what the control plane exported against this stack's config and builds the inputs of the
 * compute plane (pure). Throws `ConfigError` listing every mismatch, each naming the key and the stack to
 * update: a different contract version (`nvcf:controlPlaneStack`), a different bundle (`nvcf:bundleVersion`),
 * no registration for this cluster (`nvcf:clusterName`). `controlTarget`: in a preview only, the bundle the
 * control plane's own stack file moves it to (`controlPlaneTarget`); a bundle equal to it is not a mismatch, as the
 * same change moves both planes (the update of this stack still needs the control plane there first).
 */
export function computeInputs(
  cfg: ComputePlaneConfig,
  cp: ControlPlaneValues,
  stackName: string = pulumi.getStack(),
  controlTarget?: string,
): ComputeInputs {
  const short = cfg.controlPlaneStack.split("/").pop();
  const problems: Problem[] = [];
  if (cp.contractVersion !== CONTRACT_VERSION)
    problems.push({
      key: "nvcf:controlPlaneStack",
      expected: `a control-plane stack exporting contract version ${CONTRACT_VERSION} (this program's)`,
      found: `${cfg.controlPlaneStack} exporting contract version ${cp.contractVersion}`,
      fix: `run pulumi up -s ${short} with this program first`,
    });
  if (cp.bundleVersion !== cfg.bundleVersion && controlTarget !== cfg.bundleVersion)
    problems.push({
      key: "nvcf:bundleVersion",
      expected: `"${cp.bundleVersion}", the NVCF bundle control-plane stack ${cfg.controlPlaneStack} runs`,
      found: `"${cfg.bundleVersion}"`,
      fix: `pulumi config set nvcf:bundleVersion ${cp.bundleVersion}, or upgrade the control plane first`,
    });
  const known = Object.keys(cp.clusterRegistrations ?? {});
  const reg = (cp.clusterRegistrations ?? {})[cfg.clusterName];
  if (!reg || !reg.clusterID || !reg.clusterGroupID)
    problems.push({
      key: "nvcf:clusterName",
      expected: `a GPU cluster registered by control-plane stack ${cfg.controlPlaneStack} (registered: ${known.length ? known.join(", ") : "none"})`,
      found: `"${cfg.clusterName}", which has no registration there`,
      fix: `add it to nvcf:gpuClusters of stack ${short} and run pulumi up -s ${short} first`,
    });
  if (!reg || problems.length > 0) throw new ConfigError(stackName, problems);
  return {
    imageRegistry: cp.imageRegistry,
    imageRepository: cp.imageRepository,
    clusterID: reg.clusterID,
    clusterGroupID: reg.clusterGroupID,
    ncaID: reg.ncaID,
    region: reg.region,
    // The registration's URLs are what the CLI resolved; the control plane's are compute-reachable.
    icmsServiceURL: cp.icmsUrl || reg.icmsServiceURL,
    revalServiceURL: cp.revalUrl || reg.revalServiceURL,
    natsURL: cp.natsUrl || reg.natsURL,
    icmsHost: cp.hosts["sis"] ?? "",
    revalHost: cp.hosts["reval"] ?? "",
    natsHost: cp.hosts["nats"] ?? "",
  };
}

/**
 * The bundle the control-plane stack's own stack file names (`nvcf:bundleVersion` of `Pulumi.<stack>.yaml` in the
 * project directory, `<stack>` the last part of `nvcf:controlPlaneStack`), or undefined when there is no such file
 * or it names none (stack config kept elsewhere). A pull request that moves every stack file of an environment to a
 * new bundle is previewed against it: the control plane's preview shows its upgrade plan, each GPU cluster's its
 * own plan at that bundle.
 */
export function controlPlaneTarget(
  cfg: ComputePlaneConfig,
  projectDir: string = PROJECT_DIR,
): string | undefined {
  const file = path.join(projectDir, `Pulumi.${cfg.controlPlaneStack.split("/").pop()}.yaml`);
  let doc: unknown;
  try {
    doc = yaml.load(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  const config = (doc as { config?: Record<string, unknown> } | undefined)?.config;
  const v = config?.["nvcf:bundleVersion"];
  return typeof v === "string" ? v : undefined;
}

/**
 * Awaits the control plane's plain outputs that `computeInputs` needs (`StackReference.getOutputDetails`), so
 * they can be checked before any resource is registered. Throws `ConfigError` (key `nvcf:controlPlaneStack`)
 * naming every output that is missing or not known, e.g. a control plane never deployed or whose last update
 * did not finish, instead of previewing a compute plane built on unknown values.
 */
export async function controlPlaneValues(
  ref: pulumi.StackReference,
  cfg: ComputePlaneConfig,
): Promise<ControlPlaneValues> {
  const out: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const n of CONTROL_PLANE_VALUE_NAMES) {
    const d = await ref.getOutputDetails(n);
    if (d.value === undefined) missing.push(n);
    else out[n] = d.value;
  }
  if (missing.length > 0) {
    const short = cfg.controlPlaneStack.split("/").pop();
    throw new ConfigError(pulumi.getStack(), [
      {
        key: "nvcf:controlPlaneStack",
        expected: `a deployed control-plane stack exporting ${missing.join(", ")}`,
        found: `${cfg.controlPlaneStack} without them (never deployed, or its last update did not finish)`,
        fix: `pulumi up -s ${short} (and check its outputs with pulumi stack output -s ${short})`,
      },
    ]);
  }
  return out as unknown as ControlPlaneValues;
}

/**
 * When this stack creates its pull secret and has no `nvcf:registryKey` of its own, the control plane's
 * secret output `imageRegistryKey` must hold one: checked (awaited, the value is never printed) before any
 * resource of this stack is registered. Throws `ConfigError` naming `nvcf:registryKey` and both ways to fix it.
 */
export async function requireRegistryKey(ref: pulumi.StackReference, cfg: ComputePlaneConfig): Promise<void> {
  if (cfg.registryKey !== undefined || cfg.pullSecret.name === null || !cfg.pullSecret.create) return;
  const d = await ref.getOutputDetails("imageRegistryKey");
  if (d.secretValue || d.value) return;
  const short = cfg.controlPlaneStack.split("/").pop();
  throw new ConfigError(pulumi.getStack(), [
    {
      key: "nvcf:registryKey",
      expected: `the image registry key for the pull secret ${cfg.pullSecret.name} (this stack's, or the one of control-plane stack ${cfg.controlPlaneStack})`,
      found: "nothing in either",
      fix: `pulumi config set --secret nvcf:registryKey <key> (here, or in stack ${short} and pulumi up -s ${short}), or pulumi config set --path nvcf:pullSecret.create false if the secret exists`,
    },
  ]);
}

/**
 * Builds one GPU cluster's compute plane. Output: stack outputs (cluster identity, inotify nodes, the
 * installed-settings record). Errors: `ConfigError` for a setting that cannot change in place against what the
 * stack deployed, or a mismatch with the control plane, before any resource but the stack references is registered.
 */
export async function computePlaneStack(
  cfg: ComputePlaneConfig,
): Promise<Record<string, pulumi.Output<unknown>>> {
  // What the last `pulumi up` deployed (one read of this stack's own outputs): settings that cannot change in place
  // are refused before anything else.
  const previous = await readDeployed();
  // What the stack installs, computed once here and handed to everything below (config/stackReleases.ts).
  const releases = stackReleases(cfg);
  refuseInstalledChanges(pulumi.getStack(), cfg, previous, stackLog, releases);
  // NVIDIA: AccountIsolation changes only while the cluster drains (config/maintenance.ts).
  const toggled = accountIsolationChangeProblems(cfg, previous.values[MAINTENANCE_OUTPUT]);
  if (toggled.length > 0) throw new ConfigError(pulumi.getStack(), toggled);
  const ref = new pulumi.StackReference("control-plane", { name: cfg.controlPlaneStack });
  // Checked before any resource of this stack is registered: a mismatch fails with nothing touched. The
  // contract's outputs are read (readControlPlane: required outputs) only once they are known to exist, so a
  // missing one is reported once, as the config problem, not also as an unhandled exception per output. With it,
  // the move from the bundle this stack is deployed at (upgrade/plan.ts); every problem of both is
  // reported at once.
  const cpValues = await controlPlaneValues(ref, cfg);
  const problems: Problem[] = [];
  const checked = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(...e.problems);
      return undefined;
    }
  };
  // A preview may run against the bundle the control plane's stack file moves it to (controlPlaneTarget); `up`
  // never does: it needs the control plane at this stack's bundle.
  const target = pulumi.runtime.isDryRun() ? controlPlaneTarget(cfg) : undefined;
  const plain = checked(() => computeInputs(cfg, cpValues, pulumi.getStack(), target));
  if (plain && cpValues.bundleVersion !== cfg.bundleVersion)
    pulumi.log.info(
      `previewed against the target of control-plane stack ${cfg.controlPlaneStack}: its stack file moves it to bundle ` +
        `${cfg.bundleVersion} (it runs ${cpValues.bundleVersion}); pulumi up of this stack needs the control plane ` +
        `upgraded first (nvcf up --env ${cfg.controlPlaneStack.split("/").pop()} runs them in order)`,
      pulumi.runtime.getStackResource(),
    );
  checked(() => computeUpgradePlan(cfg, releases, previous, plain));
  if (!plain || problems.length > 0) throw new ConfigError(pulumi.getStack(), problems);
  const inputs = pulumi.output(plain);
  await requireRegistryKey(ref, cfg);
  const cp = readControlPlane(ref, ["imageRegistryKey"]);
  const kubeconfig = cfg.kubeconfig === undefined ? undefined : pulumi.secret(cfg.kubeconfig);
  const provider = new k8s.Provider("compute-plane-cluster", {
    kubeconfig,
    context: kubeconfig === undefined ? cfg.kubernetes.context : undefined,
    suppressHelmHookWarnings: true,
  });
  // The registry key: this stack's own, else the control plane's (a secret output of the contract).
  const registryKey = cfg.registryKey !== undefined ? pulumi.secret(cfg.registryKey) : cp.imageRegistryKey;
  // Interrupted or failed earlier runs: stale Helm records and leftover hooks are cleared, lost releases adopted.
  const adopt = await recoverReleases({
    access: { kubectl: cfg.kubectlPath, context: cfg.kubernetes.context, kubeconfig: cfg.kubeconfig },
    releases: releases.inCatalogOrder.map((r) => ({
      name: r.name,
      namespace: computeReleaseNamespace(r, cfg),
      timeoutSeconds: cfg.charts.timeoutSeconds,
      rerunnableHooks: r.rerunnableInstallHooks,
    })),
    stack: `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`,
    dryRun: pulumi.runtime.isDryRun(),
  });
  // The preview's server-side dry run of every release whose inputs change (engine/dryRun.ts).
  const dryRun = new ServerDryRun({
    stack: pulumi.getStack(),
    provider,
    access: {
      kubectl: cfg.kubectlPath,
      context: kubeconfig === undefined ? cfg.kubernetes.context : undefined,
      kubeconfig,
    },
    previous: previous.values[RELEASE_INPUTS_OUTPUT],
    deployed: previous.deployed,
  });
  const plane = new ComputePlane(
    "nvcf",
    {
      config: cfg,
      releases,
      inputs,
      adopt,
      watch: dryRun.watch,
      registryKey,
      chartRegistryPassword:
        cfg.chartRegistryPassword === undefined ? undefined : pulumi.secret(cfg.chartRegistryPassword),
      kubeconfig,
    },
    { providers: { kubernetes: provider } },
  );
  const statuses = Object.fromEntries(Object.entries(plane.releases).map(([k, r]) => [k, r.status]));
  // The bundle this GPU cluster is really at: known once every release finished at this bundle's chart (a failed
  // update keeps the previous value).
  const atBundle = pulumi.all(Object.values(statuses)).apply(() => cfg.bundleVersion);
  // Every change the cluster refuses fails the preview here, all listed at once.
  await dryRun.settle(plane.namespaces);
  return {
    // What each release was given (secret digests): the next preview dry-runs only the releases whose inputs differ.
    [RELEASE_INPUTS_OUTPUT]: pulumi.output(plane.inputDigests) as pulumi.Output<unknown>,
    bundleVersion: atBundle,
    ...installedOutputs(cfg, releases, statuses),
    clusterName: pulumi.output(cfg.clusterName),
    clusterID: inputs.clusterID,
    clusterGroupID: inputs.clusterGroupID,
    inotifyTunerNodes: plane.inotifyNodes,
    operatorStatus: plane.releases["nvca-operator"].status,
    // Known once the operator's release is deployed: a failed update keeps the previous record.
    [MAINTENANCE_OUTPUT]: plane.releases["nvca-operator"].status.apply(() => maintenanceRecord(cfg)),
  };
}
