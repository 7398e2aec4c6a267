/**
 * The control-plane stack program (`nvcf:plane: control`): a Kubernetes provider for the control-plane
 * cluster, the `ControlPlane` component, and the stack outputs of the contract in `contract/controlPlane.ts`.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  ControlPlane,
  type ControlPlaneArgs,
  type GpuClusterAccess,
  releaseNamespace,
} from "../components/controlPlane";
import { ENVOY_GATEWAY_RELEASE } from "../components/gateway";
import { ADOPTION_RECORD, BITNAMI_CLAIM_LABEL } from "../components/upgradeSteps";
import { cassandraAdoptionSource, recoverReleases } from "../recovery/recover";
import { type ReleaseRef } from "../recovery/plan";
import { MEK_OUTPUT, mekGenerationOutput, mekGenerationProblems, mekRotationLine } from "../config/mek";
import { deployedRegistrations, identityProblems } from "../config/identity";
import { stackFileText, withSecretReleaseValues } from "../config/load";
import type { ControlPlaneConfig } from "../config/schema";
import { toStackOutputs } from "../contract/controlPlane";
import { ACCOUNT_SETTINGS_OUTPUT, accountChangeRules, readDeployedAccountSettings } from "../config/accounts";
import { type StackReleases, stackReleases } from "../config/stackReleases";
import { kubeconfigServer, kubeconfigForContext } from "../kube/kubeconfig";
import {
  DEPLOYED_OUTPUT_NAMES,
  installedChangeProblems,
  installedOutputs,
  readDeployed,
  stackLog,
} from "./installedSettings";
import { Acknowledgements, afterSettled, publishAsKnown } from "../engine/outputs";
import { controlUpgradePlan } from "./upgrade";
import { RELEASE_INPUTS_OUTPUT, ServerDryRun } from "../engine/dryRun";
import { deletedBeforeRelease } from "../upgrade/plan";

const secretOf = (v: string | undefined) => (v === undefined ? undefined : pulumi.secret(v));

/**
 * The Helm releases of the control-plane stack that recovery (recovery/recover.ts) looks after: every
 * enabled catalog release in its namespace, and Envoy Gateway's release `eg` in `gateway.controllerNamespace`
 * when `gateway.install` is on (components/gateway.ts). Input: the config and what it installs (default: its
 * `stackReleases`). Output: one `ReleaseRef` each, in catalog order, with the stack's Helm timeout (seconds) and
 * the catalog's rerunnable install hooks.
 */
export function controlRecoveryReleases(
  cfg: ControlPlaneConfig,
  releases: StackReleases = stackReleases(cfg),
): ReleaseRef[] {
  const refs: ReleaseRef[] = releases.inCatalogOrder.map((r) => ({
    name: r.name,
    namespace: releaseNamespace(r, cfg),
    timeoutSeconds: cfg.charts.timeoutSeconds,
    rerunnableHooks: r.rerunnableInstallHooks,
  }));
  if (cfg.gateway.install) {
    refs.push({
      name: ENVOY_GATEWAY_RELEASE,
      namespace: cfg.gateway.controllerNamespace,
      timeoutSeconds: cfg.charts.timeoutSeconds,
    });
  }
  return refs;
}

/**
 * Builds the control plane from a validated config. Output: the stack outputs (contract), the `releases`
 * statuses, the installed-settings record (`installed`, secret `installedDigests`) and what the account got
 * (`accountSettings`). Errors: `ConfigError` listing at once every setting that cannot change in place against
 * what the stack deployed (config/installed.ts), every GPU-cluster setting the deployed registrations cannot take
 * (config/identity.ts) and every account setting the API cannot change (config/accounts.ts
 * `accountChangeRules`) or a bundle move the planner refuses (upgrade/plan.ts `planUpgrade`), then a
 * missing kubeconfig context of a GPU cluster, all before any resource but the read
 * of the stack's own outputs is registered.
 */
export async function controlPlaneStack(
  cfg: ControlPlaneConfig,
): Promise<Record<string, pulumi.Output<unknown>>> {
  // What the stack installs, computed once here and handed to everything below (config/stackReleases.ts).
  const releases = stackReleases(cfg);
  // What the last `pulumi up` deployed (one read of this stack's own outputs, with the control plane's own
  // `clusterRegistrations`): a setting that cannot change in place, a registration cannot take, or the API cannot
  // make to the account is refused here, before anything is touched or read from a cluster (config/installed.ts,
  // config/identity.ts, config/accounts.ts), and so is a bundle upgrade the program cannot make
  // (upgrade/plan.ts); every refusal in one ConfigError.
  const previous = await readDeployed([...DEPLOYED_OUTPUT_NAMES, "clusterRegistrations", MEK_OUTPUT]);
  const deployed = deployedRegistrations(previous.values["clusterRegistrations"]);
  const problems = [
    ...identityProblems(cfg, deployed),
    ...accountChangeRules(cfg, readDeployedAccountSettings(previous.values[ACCOUNT_SETTINGS_OUTPUT])),
    ...installedChangeProblems(cfg, previous, stackLog, releases),
    ...mekGenerationProblems(cfg, previous.values[MEK_OUTPUT]),
  ];
  const plan = controlUpgradePlan(cfg, releases, previous, problems);
  // A MEK rotation this run makes, named in the preview's and the update's log (config/mek.ts).
  const mekLine = mekRotationLine(cfg, previous.values[MEK_OUTPUT]);
  if (mekLine) void stackLog.info(mekLine);
  // Resolve every GPU cluster's access first, so a wrong context fails before anything is touched. In a rehearsal
  // (cli/verbs/rehearse.ts) the contexts reach replicas, but nvcf-cli is handed the real clusters' access, read
  // from the kubeconfig the rehearsal names, so the registrations' inputs are those of the real run.
  const rehearsalSource = process.env["NVCF_REHEARSAL_SOURCE_KUBECONFIG"];
  const accessEnv = rehearsalSource ? { ...process.env, KUBECONFIG: rehearsalSource } : process.env;
  const gpuClusters: Record<string, GpuClusterAccess> = {};
  for (const c of cfg.gpuClusters) {
    const given = cfg.gpuClusterKubeconfigs[c.name];
    if (given !== undefined) {
      gpuClusters[c.name] = { kubeconfig: pulumi.secret(given), apiServer: kubeconfigServer(given) };
    } else {
      const k = kubeconfigForContext(c.context as string, accessEnv);
      gpuClusters[c.name] = { kubeconfig: pulumi.secret(k.yaml), apiServer: k.server };
    }
    gpuClusters[c.name].deployed = deployed[c.name];
  }

  let kubeconfig: pulumi.Input<string> | undefined = secretOf(cfg.kubeconfig);
  if (cfg.aws?.eksClusterName) {
    // Loaded only when an AWS feature is configured: other stacks never pay its start-up cost.
    const { eksKubeconfig } = await import("./aws");
    kubeconfig = eksKubeconfig(cfg.aws.region, cfg.aws.eksClusterName);
  }
  const provider = new k8s.Provider("control-plane-cluster", {
    kubeconfig,
    context: kubeconfig === undefined ? cfg.kubernetes.context : undefined,
    suppressHelmHookWarnings: true,
  });

  const stackName = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
  // Interrupted or failed earlier runs: stale Helm records and leftover hooks are cleared, lost releases adopted.
  // The namespaces, pull secrets and credentials are registered meanwhile; the releases wait for it.
  const adopt = cfg.aws?.eksClusterName
    ? Promise.resolve({})
    : recoverReleases({
        access: { kubectl: "kubectl", context: cfg.kubernetes.context, kubeconfig: cfg.kubeconfig },
        releases: controlRecoveryReleases(cfg, releases),
        stack: stackName,
        dryRun: pulumi.runtime.isDryRun(),
      });
  // Cassandra's adoption: the StatefulSet it works from, as the cluster shows it now. A rollback that put the Bitnami
  // StatefulSet back after the adoption deleted it changes this input, so the prepare step runs again.
  const cassandraSource =
    plan.cassandraAdopted && !cfg.aws?.eksClusterName
      ? cassandraAdoptionSource(
          { kubectl: "kubectl", context: cfg.kubernetes.context, kubeconfig: cfg.kubeconfig },
          {
            namespace: "cassandra-system",
            statefulSet: "cassandra",
            record: ADOPTION_RECORD,
            bitnamiClaimLabel: BITNAMI_CLAIM_LABEL,
          },
        )
      : undefined;
  // In an update, a release waits until the engine holds its prerequisites' `releases` entries (engine/outputs.ts).
  const acks = pulumi.runtime.isDryRun() ? undefined : new Acknowledgements();
  try {
    const access = {
      kubectl: "kubectl",
      context: kubeconfig === undefined ? cfg.kubernetes.context : undefined,
      kubeconfig,
      waitSeconds: cfg.charts.timeoutSeconds,
    };
    // The preview's server-side dry run of every release whose inputs change (engine/dryRun.ts).
    const dryRun = new ServerDryRun({
      stack: pulumi.getStack(),
      provider,
      access,
      previous: previous.values[RELEASE_INPUTS_OUTPUT],
      deployed: previous.deployed,
      deletedFirst: (release) => deletedBeforeRelease(plan, release),
    });
    return await buildControlPlane(
      cfg,
      releases,
      gpuClusters,
      provider,
      stackName,
      adopt,
      acks,
      { plan, access, ...(cassandraSource !== undefined ? { cassandraSource } : {}) },
      dryRun,
      mekGenerationOutput(cfg, previous.values[MEK_OUTPUT]),
    );
  } catch (e) {
    // The program failed before publishing began (publishing ends the waits itself): no release waits on.
    acks?.end();
    throw e;
  }
}

/** The rest of `controlPlaneStack`: the component, DNS records and the outputs. */
async function buildControlPlane(
  cfg: ControlPlaneConfig,
  releases: StackReleases,
  gpuClusters: Record<string, GpuClusterAccess>,
  provider: k8s.Provider,
  stackName: string,
  adopt: Promise<Record<string, string>>,
  acks: Acknowledgements | undefined,
  upgrade: NonNullable<ControlPlaneArgs["upgrade"]>,
  dryRun: ServerDryRun,
  mekGeneration: number | undefined,
): Promise<Record<string, pulumi.Output<unknown>>> {
  const cp = await ControlPlane.create(
    "nvcf",
    {
      // Secret leaves of nvcf:releaseValues stay secret, each by itself (config/load.ts).
      config: { ...cfg, releaseValues: withSecretReleaseValues(cfg.releaseValues, stackFileText()) },
      releases,
      secrets: {
        registryKey: secretOf(cfg.registryKey),
        chartRegistryPassword: secretOf(cfg.chartRegistryPassword),
        cassandraPassword: secretOf(cfg.cassandraPassword),
        sidecarRegistryKey: secretOf(cfg.sidecarRegistryKey),
        functionRegistryKey: secretOf(cfg.functionRegistryKey),
      },
      gpuClusters,
      stackName,
      releasesReported: acks && ((names) => acks.wait(names.map((n) => `releases/${n}`))),
      upgrade,
      watch: dryRun.watch,
    },
    adopt,
    { providers: { kubernetes: provider } },
  );

  if (cfg.aws?.route53ZoneId) {
    const { dnsRecords } = await import("./aws");
    dnsRecords(cfg.aws.region, cfg.aws.route53ZoneId, Object.values(cp.hosts), cp.gatewayAddress);
  }

  const statuses = Object.fromEntries(Object.entries(cp.releases).map(([k, r]) => [k, r.status]));
  // The bundle the control plane is really at: known only once every release finished at this bundle's chart
  // and every upgrade step is done, so a failed or interrupted update keeps the previous value (engine/outputs.ts)
  // and GPU-cluster stacks refuse to move before it has.
  const atBundle = pulumi
    .all([...Object.values(statuses), ...cp.upgradeSteps.map((s) => s.stdout)])
    .apply(() => cfg.bundleVersion);
  const contract = toStackOutputs({
    contractVersion: 1,
    bundleVersion: atBundle,
    domain: cfg.domain,
    gatewayAddress: cp.gatewayAddress,
    hosts: cp.hosts,
    icmsUrl: cp.gatewayUrl,
    revalUrl: cp.gatewayUrl,
    natsUrl: cp.natsUrl,
    imageRegistry: cfg.images.registry,
    imageRepository: cfg.images.repository,
    pullSecretName: cfg.pullSecret.name,
    ncaId: cfg.ncaId,
    // Exported once the teardown guard is in place, so no compute plane can rely on a stack without one.
    clusterRegistrations: pulumi.all([cp.registrations, cp.teardownGuard.ready]).apply(([r]) => r),
    imageRegistryKey: cfg.registryKey ?? "",
  });
  // Where Cassandra's files sit on its volumes: read back on every run (upgrade/plan.ts).
  const layout = upgrade.plan.cassandraLayout;
  const extra: Record<string, pulumi.Output<unknown>> = layout === undefined
    ? {}
    : { cassandraDataLayout: pulumi.output(layout) };
  // The MEK generation in place: known once its rotation finished (config/mek.ts).
  if (mekGeneration !== undefined)
    extra[MEK_OUTPUT] = cp.mekRotation
      ? cp.mekRotation.stdout.apply(() => mekGeneration)
      : pulumi.output(mekGeneration);
  // The settings that cannot change in place, as deployed, for the next run to compare (stacks/installedSettings.ts), and
  // what the account got (config/accounts.ts): the next run refuses the changes the API cannot make to it.
  const installed = installedOutputs(cfg, releases, statuses, cp.cassandraPassword);
  const accountSettings = { [ACCOUNT_SETTINGS_OUTPUT]: cp.accounts.settings as pulumi.Output<unknown> };
  // What each release was given (secret digests), once it is deployed: the next preview dry-runs only the
  // releases whose inputs differ (engine/dryRun.ts).
  const digests = cp.inputDigests;
  const outputs = {
    ...contract,
    ...extra,
    releases: pulumi.output(statuses),
    ...installed,
    ...accountSettings,
    [RELEASE_INPUTS_OUTPUT]: pulumi.output(digests) as pulumi.Output<unknown>,
  };
  if (pulumi.runtime.isDryRun()) {
    // Every change the cluster refuses fails the preview here, all listed at once.
    await dryRun.settle(cp.namespaces);
    return outputs;
  }
  // A failed or interrupted update keeps every output it got to; `releases` says which releases it finished.
  // A stack deployed before keeps naming its bundle in every registration until the new one is reached.
  const { bundleVersion, ...rest } = contract;
  const from = upgrade.plan.from;
  const settled = publishAsKnown(
    {
      values: {
        ...rest,
        ...extra,
        ...installed,
        ...accountSettings,
        ...(from === undefined ? { bundleVersion } : {}),
      },
      maps: {
        releases: { entries: statuses, placeholder: RELEASE_UNFINISHED },
        [RELEASE_INPUTS_OUTPUT]: { entries: digests, placeholder: "" },
      },
      ...(from === undefined ? {} : { held: { bundleVersion: { value: bundleVersion, until: from } } }),
    },
    undefined,
    acks,
  );
  return afterSettled(outputs, settled);
}

/**
 * The `releases` output's value for a release the last `pulumi up` did not finish (it failed, or the run
 * stopped first); every other entry is Helm's status of the release (`deployed`).
 */
export const RELEASE_UNFINISHED = "unfinished";
