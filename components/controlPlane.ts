/**
 * `ControlPlane`: every control-plane release of the chosen NVCF bundle, its namespaces and pull secrets,
 * the gateway wiring, and the registration of each GPU cluster.
 */
import type * as command from "@pulumi/command";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import {
  type ReleaseSpec,
  activeNeeds,
  chartVersion,
  configNamespaces,
  resolveNamespace,
} from "../catalog/releases";
import { type StepConditions, type StepName, activeStepNeeds, stepSpec } from "../catalog/steps";
import { isDevStack } from "../config/stackName";
import type { ControlPlaneConfig } from "../config/schema";
import type { RegistrationRecord as Registration } from "../contract/controlPlane";
import {
  type ControlSecrets,
  OPENBAO_MIGRATIONS_SECRET_KEYS,
  controlValues,
  sidecarUser,
} from "../values/control";
import type { StackReleases } from "../config/stackReleases";
import { accountName, managedCredentials } from "../config/accounts";
import { dockerAuth } from "../config/credentials";
import { serviceHosts } from "../config/routes";
import { AccountSettings } from "./accounts";
import { ENVOY_GATEWAY_RELEASE, NvcfGateway } from "./gateway";
import { Namespaces, type NamespaceSpec, namespacePrerequisite, PullSecrets } from "./namespaces";
import { ClusterRegistration } from "./registration";
import { NvcfRelease, type ReleaseWatch, deployedDigests } from "./release";
import { mekRotation } from "./mekRotation";
import { TeardownGuard } from "./teardownGuard";
import { cassandraWriterNamespaces, movePhaseOrder, type UpgradePlan } from "../upgrade/plan";
import { restartCommand } from "./restarts";
import { CASSANDRA_SUPERUSER, type StepAccess, UpgradeSteps } from "./upgradeSteps";
import { deepMerge } from "../values/merge";

/** Secret config of the control plane, each a secret Output (undefined when not set). */
export interface ControlPlaneSecrets {
  registryKey?: pulumi.Output<string>;
  chartRegistryPassword?: pulumi.Output<string>;
  cassandraPassword?: pulumi.Output<string>;
  sidecarRegistryKey?: pulumi.Output<string>;
  functionRegistryKey?: pulumi.Output<string>;
}

/** How to reach one GPU cluster for registration. */
export interface GpuClusterAccess {
  kubeconfig: pulumi.Output<string>;
  apiServer: pulumi.Input<string>;
  /** Its registration as the stack's last update recorded it, when there is one (components/registration.ts). */
  deployed?: Registration;
}

export interface ControlPlaneArgs {
  config: ControlPlaneConfig;
  /** What the stack installs (config/stackReleases.ts `stackReleases` of `config`), computed by the stack program. */
  releases: StackReleases;
  secrets: ControlPlaneSecrets;
  /** Access to each GPU cluster listed in `config.gpuClusters`, by name. */
  gpuClusters: Record<string, GpuClusterAccess>;
  /** Fully qualified name of this stack (for the teardown guard). */
  stackName: string;
  /**
   * Optional: given release names, resolves once the engine holds their entries of the stack's `releases`
   * output as known (engine/outputs.ts `Acknowledgements.wait`). When given, a release registers only after
   * its prerequisites' entries are acknowledged, so when it fails, the run's outputs list every release it
   * waited for as `deployed` (the engine drops output registrations still on their way when a step fails).
   * Costs one engine round trip per edge; left out in a preview, where no outputs are published.
   */
  releasesReported?: (releaseNames: string[]) => Promise<void>;
  /**
   * The bundle upgrade this run makes (upgrade/plan.ts) and how its steps reach the cluster
   * (components/upgradeSteps.ts). Unset: no upgrade steps and no phase order.
   */
  upgrade?: {
    plan: UpgradePlan;
    access: StepAccess;
    /** The StatefulSet Cassandra's adoption works from (`CassandraStepArgs.source`), when the plan adopts. */
    cassandraSource?: pulumi.Input<string>;
  };
  /** The server-side dry run that follows every release's inputs (components/release.ts `ReleaseWatch`). */
  watch?: ReleaseWatch;
}

/**
 * The api release's values that only its account-bootstrap hook reads, and only when it creates the account: a
 * later change is applied by `AccountSettings` (components/accounts.ts) and does not touch the release.
 */
export const API_INSTALL_ONLY_VALUES = [
  "api.accountBootstrap.registryCredentials",
  "api.accountBootstrap.limits",
];

/** Namespaces that route backends live in; they carry `nvcf/platform=true` (docs/upstream-facts.md §1.12). */
const PLATFORM_NAMESPACES = new Set(["api-keys", "ess", "sis", "nvcf", "nvcf-ui"]);

/** The namespace a release goes into (docs/upstream-facts.md §1.3a). */
export function releaseNamespace(spec: ReleaseSpec, cfg: ControlPlaneConfig): string {
  return resolveNamespace(spec, configNamespaces(cfg));
}

/** What `ControlPlane`'s first step hands to its second. */
interface FirstStep {
  flags: StackReleases["flags"];
  /** The releases in dependency order. */
  releases: readonly ReleaseSpec[];
  protect: boolean;
  namespaces: Namespaces;
  /** A namespace's name as an Input that waits for the Namespace (names the program does not create pass through). */
  nsName: (ns: string) => pulumi.Input<string>;
  pullSecrets: PullSecrets | undefined;
  secrets: ControlSecrets<pulumi.Output<string>>;
  /** The key of the account's registry credentials (`functionRegistryKey`, else `registryKey`), a secret. */
  functionKey: pulumi.Output<string> | undefined;
}

/**
 * The control plane. Each release waits only for its real prerequisites (docs/upstream-facts.md §1.4 `needs`), its
 * namespace and the pull secret in it; there are no stage barriers between unrelated releases.
 * Cassandra, OpenBao, NATS and the metrics store are protected from deletion unless
 * `nvcf:protectStatefulData` is false (default: protected outside `dev*` stacks).
 *
 * Outputs: `releases` (release name → component), `gatewayAddress`, `gatewayUrl`, `natsUrl`, `registrations` (GPU cluster name →
 * registration), `hosts` (public hostnames by service).
 */
export class ControlPlane extends pulumi.ComponentResource {
  readonly releases: Record<string, NvcfRelease> = {};
  readonly hosts: ReturnType<typeof serviceHosts>;
  // Set by `create` once the releases are registered (the second step); never reassigned after that.
  gatewayAddress!: pulumi.Output<string>;
  /** `http://<gateway address>` (SIS/ICMS and ReVal through the gateway), "" while there is no address. */
  gatewayUrl!: pulumi.Output<string>;
  /** `nats://<gateway address>:4222`, "" while there is no address. */
  natsUrl!: pulumi.Output<string>;
  registrations!: pulumi.Output<Record<string, Registration>>;
  /** The account's registry credentials and limits as applied after install. */
  accounts!: AccountSettings;
  /** The namespaces this component creates (Namespace resources), by name. */
  readonly namespaces: string[];
  /**
   * Each release's input digest (secret, components/release.ts `ReleaseWatch`) by Helm release name, known once
   * the release is deployed; empty without a watch.
   */
  inputDigests: Record<string, pulumi.Output<string>> = {};
  /** Refuses `pulumi destroy` while compute planes reference this stack; `ready` once it is in place. */
  teardownGuard!: TeardownGuard;
  /** The upgrade steps (components/upgradeSteps.ts), in the order created; empty without `upgrade`. */
  upgradeSteps: command.local.Command[] = [];
  /** The MEK rotation (components/mekRotation.ts), when `nvcf:openbao.mekGeneration` is set and OpenBao is on. */
  mekRotation?: command.local.Command;
  /** The Cassandra password the releases get (`nvcf:cassandraPassword`, else the generated one), secret. */
  readonly cassandraPassword: pulumi.Output<string>;
  /** What the first step leaves to the second. */
  private readonly first: FirstStep;

  /**
   * Builds the control plane in two steps. First, at once: the component, the namespaces, the pull secrets and
   * the credentials, which recovery never changes, so the engine creates them while recovery
   * (recovery/recover.ts) reads the cluster; then, when `adopt` settles, the gateway wiring, the releases (those
   * in `adopt` imported instead of installed), the GPU cluster registrations and the teardown guard.
   *
   * Input: the component's name, its arguments, `adopt` (a promise of the releases to import, `namespace/name` by
   * release name; `{}` when there are none) and resource options. Output: the component, once every resource is
   * registered. Errors: rejects with `adopt`'s error (a recovery refusal), when only the first step's resources
   * exist; no release is installed or upgraded then.
   */
  static async create(
    name: string,
    args: ControlPlaneArgs,
    adopt: Promise<Record<string, string>>,
    opts?: pulumi.ComponentResourceOptions,
  ): Promise<ControlPlane> {
    let cp: ControlPlane;
    try {
      cp = new ControlPlane(name, args, opts);
    } catch (e) {
      adopt.catch(() => undefined); // the first error is the one reported
      throw e;
    }
    cp.addReleases(name, args, await adopt);
    return cp;
  }

  private constructor(name: string, args: ControlPlaneArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:ControlPlane", name, {}, opts);
    const cfg = args.config;
    const { flags, releases } = args.releases;
    const protect = cfg.protectStatefulData ?? !isDevStack(pulumi.getStack());
    this.hosts = serviceHosts(cfg.domain);

    // Namespaces: every release namespace, except the gateway controller's when the user brings the gateway.
    const byo = !cfg.gateway.install;
    const nsSpecs = new Map<string, NamespaceSpec>();
    for (const r of releases) {
      const ns = releaseNamespace(r, cfg);
      if (byo && ns === cfg.gateway.controllerNamespace) continue;
      const prev = nsSpecs.get(ns);
      nsSpecs.set(ns, {
        name: ns,
        platform: PLATFORM_NAMESPACES.has(ns),
        stateful: (prev?.stateful ?? false) || r.stateful === true,
      });
    }
    if (cfg.gateway.install) {
      nsSpecs.set(cfg.gateway.controllerNamespace, { name: cfg.gateway.controllerNamespace });
      nsSpecs.set(cfg.gateway.shared.namespace, { name: cfg.gateway.shared.namespace, platform: true });
    }
    const namespaces = new Namespaces(
      `${name}-ns`,
      { namespaces: [...nsSpecs.values()], protectStateful: protect },
      { parent: this },
    );
    const nsName = (ns: string): pulumi.Input<string> => namespaces.names[ns] ?? ns;
    this.namespaces = Object.keys(namespaces.names);

    let pullSecrets: PullSecrets | undefined;
    if (cfg.pullSecret.name !== null && cfg.pullSecret.create && args.secrets.registryKey) {
      const owned: Record<string, pulumi.Input<string>> = {};
      for (const ns of nsSpecs.keys()) owned[ns] = namespaces.names[ns];
      pullSecrets = new PullSecrets(
        `${name}-pull`,
        {
          secretName: cfg.pullSecret.name,
          server: cfg.images.registry,
          username: cfg.pullSecret.username,
          key: args.secrets.registryKey,
          namespaces: owned,
        },
        { parent: this },
      );
    }

    // Credentials by construction (docs/upstream-facts.md §4 rows 1-3).
    const cassandraPassword =
      args.secrets.cassandraPassword ??
      new random.RandomPassword(
        `${name}-cassandra-password`,
        { length: 32, special: false },
        { parent: this, protect },
      ).result;
    const sidecarKey = args.secrets.sidecarRegistryKey ?? args.secrets.registryKey;
    const functionKey = args.secrets.functionRegistryKey ?? args.secrets.registryKey;
    const encode = (user: string, key: pulumi.Output<string> | undefined) =>
      pulumi.secret((key ?? pulumi.output("")).apply((k) => dockerAuth(user, k)));
    this.cassandraPassword = pulumi.secret(cassandraPassword);
    const secrets: ControlSecrets<pulumi.Output<string>> = {
      cassandraPassword: this.cassandraPassword,
      sidecarAuth: encode(sidecarUser(cfg), sidecarKey),
      functionAuth: cfg.accounts.registryCredentials.map((rc) => encode(rc.username, functionKey)),
    };
    // The OpenBao migrations take their two credentials by reference from this Secret (values/control.ts
    // `migrationsSecretName`), so no secret sits in the release's env list, which the Kubernetes provider would
    // mask as a whole in every preview (docs/previews-and-checks.md). Immutable and auto-named: a new credential
    // replaces it under a new name, which changes the release's values, so Helm upgrades and the post-upgrade
    // migrations hook runs with it, as it did when the values held the credential.
    const openbao = releases.find((r) => r.name === "openbao-server");
    if (openbao) {
      secrets.migrationsSecretName = new k8s.core.v1.Secret(
        `${name}-openbao-migrations-credentials`,
        {
          metadata: { namespace: nsName(releaseNamespace(openbao, cfg)) },
          immutable: true,
          type: "Opaque",
          stringData: {
            [OPENBAO_MIGRATIONS_SECRET_KEYS[0]]: secrets.cassandraPassword,
            [OPENBAO_MIGRATIONS_SECRET_KEYS[1]]: secrets.sidecarAuth,
          },
        },
        { parent: this },
      ).metadata.name;
    }

    this.first = { flags, releases, protect, namespaces, nsName, pullSecrets, secrets, functionKey };
  }

  /** The second step of `create`: everything that recovery's `adopt` decides or that depends on the releases. */
  private addReleases(name: string, args: ControlPlaneArgs, adopt: Record<string, string>): void {
    const cfg = args.config;
    const { flags, releases, protect, namespaces, nsName, pullSecrets, secrets, functionKey } = this.first;
    const source = { config: cfg.charts, password: args.secrets.chartRegistryPassword };
    const gateway = new NvcfGateway(
      `${name}-gateway`,
      { config: cfg, source, namespace: nsName, adopt: adopt[ENVOY_GATEWAY_RELEASE], watch: args.watch },
      { parent: this },
    );
    this.gatewayAddress = gateway.address;
    this.gatewayUrl = this.gatewayAddress.apply((a) => (a ? `http://${a}` : ""));
    this.natsUrl = this.gatewayAddress.apply((a) => (a ? `nats://${a}:4222` : ""));

    // The upgrade's steps and, in a move, its phase order (components/upgradeSteps.ts).
    const phases = args.upgrade?.plan.moving ? movePhaseOrder(releases, flags) : undefined;
    const steps = this.upgradeStepsFor(name, args, phases?.exempt ?? new Set());

    // Releases in dependency order; each depends on its active needs only (and in a move on the phases).
    for (const r of phases?.order ?? releases) {
      const ns = releaseNamespace(r, cfg);
      const needNames = activeNeeds(r, flags);
      const deps: pulumi.Resource[] = needNames.map((n) => this.releases[n]);
      // Its namespace (Helm never creates it), through the pull secret in it where there is one.
      const prerequisite = namespacePrerequisite(ns, namespaces, pullSecrets);
      if (prerequisite) deps.push(prerequisite);
      if (r.name === "ingress") deps.push(...gateway.dependencies);
      if (steps) deps.push(...steps.before(r.name));
      const dependsOn =
        args.releasesReported && needNames.length > 0
          ? args.releasesReported(needNames).then(() => deps)
          : deps;
      this.releases[r.name] = new NvcfRelease(
        `${name}-${r.name}`,
        {
          releaseName: r.name,
          chart: r.chart,
          version: chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides),
          namespace: ns,
          values: steps
            ? deepMerge(controlValues(r.name, cfg, secrets), steps.values(r.name))
            : controlValues(r.name, cfg, secrets),
          source,
          timeoutSeconds: cfg.charts.timeoutSeconds,
          adopt: adopt[r.name],
          installOnlyValues: r.name === "api" ? API_INSTALL_ONLY_VALUES : undefined,
          watch: args.watch,
          ...(r.name === "cassandra" && steps?.adopting ? { atomic: false } : {}),
        },
        { parent: this, dependsOn, protect: protect && r.stateful === true },
      );
      steps?.after(r.name, this.releases[r.name]);
      const generation = cfg.restarts[r.name];
      if (generation !== undefined) {
        if (!args.upgrade)
          throw new Error(`nvcf:restarts.${r.name} needs the control plane's cluster access`);
        restartCommand(
          name,
          {
            release: r.name,
            namespace: ns,
            generation,
            access: args.upgrade.access,
            ...(r.name === "openbao-server" ? { openbaoStatefulSet: "openbao-server" } : {}),
          },
          // After the release and the steps that roll the same pods (OpenBao's rollout after an upgrade).
          { parent: this, dependsOn: [this.releases[r.name], ...(steps?.done ?? [])] },
        );
      }
    }
    this.upgradeSteps = steps?.done ?? [];
    // The MEK rotation of nvcf:openbao.mekGeneration, once OpenBao and its rollout are done.
    const mekGeneration = cfg.openbao.mekGeneration;
    if (mekGeneration !== undefined && flags.openbao && args.upgrade) {
      this.mekRotation = mekRotation(
        name,
        { generation: mekGeneration, access: args.upgrade.access, namespace: "vault-system" },
        this,
        [this.releases["openbao-server"], ...this.upgradeSteps],
      );
    }
    this.inputDigests = deployedDigests({
      ...this.releases,
      ...Object.fromEntries(gateway.releases.map((r) => [ENVOY_GATEWAY_RELEASE, r])),
    });

    // The steps that are not releases wait for the releases the catalog lists for them (catalog/steps.ts).
    const plan = args.upgrade?.plan;
    const facts: StepConditions = {
      flags,
      openbaoPhase: plan !== undefined && plan.moving && plan.openbaoPhase,
      cassandraAdopted: plan?.cassandraAdopted ?? false,
    };
    const endpoints = this.gatewayUrl.apply((u) => ({
      gatewayUrl: u,
      hosts: {
        api: this.hosts.api,
        apiKeys: this.hosts.apiKeys,
        sis: this.hosts.sis,
        invocation: this.hosts.invocation,
      },
      ncaId: cfg.ncaId,
    }));
    // GPU cluster registration: needs SIS and the admin-token route reachable, and OpenBao's issuer discovery.
    const regDeps = this.stepDependsOn("registration", facts);
    const regs: Record<string, pulumi.Output<Registration>> = {};
    const regResources: pulumi.Resource[] = [];
    for (const c of cfg.gpuClusters) {
      const access = args.gpuClusters[c.name];
      const reg = new ClusterRegistration(
        `${name}-register-${c.name}`,
        {
          clusterName: c.name,
          region: c.region,
          ncaId: cfg.ncaId,
          endpoints,
          kubeconfig: access.kubeconfig,
          apiServer: access.apiServer,
          cliPath: cfg.nvcfCli.path,
          registered: c.registered,
          jwksRotation: c.jwksRotation,
          deployed: access.deployed,
        },
        { parent: this, dependsOn: regDeps },
      );
      regs[c.name] = reg.registration;
      regResources.push(reg);
    }
    this.registrations = pulumi.output(regs) as pulumi.Output<Record<string, Registration>>;

    // Account settings after install: the account exists once the api release (and its bootstrap hook) is done;
    // the CLI reaches the API through the gateway routes with an admin token from admin-issuer-proxy and api-keys.
    // In a bundle move these are the releases at the new bundle, so the commands follow the move's phases too.
    const accountDeps = this.stepDependsOn("account-settings", facts);
    this.accounts = new AccountSettings(
      `${name}-account`,
      {
        accountName: accountName(cfg),
        limits: cfg.accounts.limits,
        credentials: managedCredentials(cfg).map((m) => m.credential),
        key: functionKey ?? pulumi.secret(""),
        endpoints,
        cliPath: cfg.nvcfCli.path,
      },
      { parent: this, dependsOn: accountDeps },
    );

    // Deleted first on destroy: refuses while a compute-plane stack still references this one.
    this.teardownGuard = new TeardownGuard(
      `${name}-teardown-guard`,
      { stackName: args.stackName },
      {
        parent: this,
        dependsOn: [...Object.values(this.releases), ...gateway.releases, ...regResources, this.accounts],
      },
    );

    this.registerOutputs({ gatewayAddress: this.gatewayAddress, registrations: this.registrations });
  }

  /**
   * The releases a step waits for: its prerequisites in force (catalog/steps.ts `activeStepNeeds`) that are
   * releases this component registered, in the order of the step's list.
   */
  private stepDependsOn(step: StepName, facts: StepConditions): NvcfRelease[] {
    return activeStepNeeds(stepSpec(step), facts)
      .map((n) => ("release" in n ? this.releases[n.release] : undefined))
      .filter((x): x is NvcfRelease => x !== undefined);
  }

  /** The upgrade steps of this control plane (see `ControlPlaneArgs.upgrade`). */
  private upgradeStepsFor(
    name: string,
    args: ControlPlaneArgs,
    exempt: ReadonlySet<string>,
  ): UpgradeSteps | undefined {
    const upgrade = args.upgrade;
    if (!upgrade) return undefined;
    const cfg = args.config;
    const flags = this.first.flags;
    const dbUser = (cfg.releaseValues["cassandra"]?.["cassandra"] as Record<string, unknown> | undefined)?.[
      "dbUser"
    ] as Record<string, pulumi.Input<string>> | undefined;
    return new UpgradeSteps(
      name,
      {
        plan: upgrade.plan,
        access: upgrade.access,
        flags,
        phaseExempt: exempt,
        ...(flags.openbao ? { openbaoNamespace: "vault-system" } : {}),
        ...(flags.cassandra
          ? {
              cassandra: {
                namespace: "cassandra-system",
                replicas: cfg.cassandra.replicas,
                writerNamespaces: cassandraWriterNamespaces(flags),
                cqlUser: dbUser?.["user"] ?? CASSANDRA_SUPERUSER.user,
                cqlPassword: dbUser?.["password"] ?? CASSANDRA_SUPERUSER.password,
                ...(upgrade.cassandraSource !== undefined ? { source: upgrade.cassandraSource } : {}),
              },
            }
          : {}),
      },
      this,
    );
  }
}
