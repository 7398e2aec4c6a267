/**
 * `ComputePlane`: one GPU cluster's side of NVCF (docs/upstream-facts.md §2): namespaces, pull secrets, the node inotify
 * tuner, NVIDIA's observability stack (profile compute/all), the optional KAI/Grove/Dynamo/topology releases and
 * the NVCA operator fed with the cluster's registration, torn down in the documented order.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import {
  type ReleaseSpec,
  activeNeeds,
  chartVersion,
  configNamespaces,
  resolveNamespace,
} from "../catalog/releases";
import { isDevStack } from "../config/stackName";
import type { ComputePlaneConfig } from "../config/schema";
import { type ComputeInputs, computeValues, inotifyImages, operatorIdentity } from "../values/compute";
import type { StackReleases } from "../config/stackReleases";
import { failsAs } from "./errors";
import { InotifyTuner } from "./inotifyTuner";
import { Namespaces, namespacePrerequisite, PullSecrets } from "./namespaces";
import { RESTART_OPERATOR, identityEnvironment } from "./operatorRestart";
import { NvcfRelease, type ReleaseWatch, deployedDigests } from "./release";
import { restartCommand } from "./restarts";
import { KUBECTL_PREAMBLE, scriptText } from "./scripts";

/**
 * The namespace a compute-plane release goes into: its catalog namespace (the observability releases: the
 * stack's `observability.namespace`).
 */
export function computeReleaseNamespace(r: ReleaseSpec, cfg: ComputePlaneConfig): string {
  return resolveNamespace(r, configNamespaces(cfg));
}

export interface ComputePlaneArgs {
  config: ComputePlaneConfig;
  /** What the stack installs (config/stackReleases.ts `stackReleases` of `config`), computed by the stack program. */
  releases: StackReleases;
  /** What the control plane hands this cluster (registration identity, URLs, registry). */
  inputs: pulumi.Output<ComputeInputs>;
  /** Registry key (secret) for pull secrets; undefined when none are created. */
  registryKey?: pulumi.Output<string>;
  chartRegistryPassword?: pulumi.Output<string>;
  /** The GPU cluster's kubeconfig for kubectl during teardown (secret; empty: ambient KUBECONFIG/context). */
  kubeconfig?: pulumi.Output<string>;
  /** Releases to import instead of install, `namespace/name` by release name (recovery/recover.ts). */
  adopt?: Record<string, string>;
  /** The server-side dry run that follows every release's inputs (components/release.ts `ReleaseWatch`). */
  watch?: ReleaseWatch;
}

/**
 * The teardown step of the docs' uninstall (NVIDIA docs `docs/user/cluster-management/self-managed.md` "Uninstalling" steps 1-2): delete every NVCFBackend,
 * then wait until `nvca-system` has no pods. Runs on delete, before the operator release is removed. The kubectl
 * runner, then `components/scripts/operator-drain.sh`.
 */
export const DRAIN = KUBECTL_PREAMBLE + scriptText("operator-drain.sh");

/** The finalizer helm-nvca-operator puts on its ClusterRole, ClusterRoleBinding and shutdown-sentinel ConfigMap. */
export const OPERATOR_CLEANUP_FINALIZER = "nvca.nvcf.nvidia.io/operator-cleanup";

/**
 * Teardown of the operator's cleanup finalizers. helm-nvca-operator (1.14.0 and 1.21.3,
 * `templates/role.yaml`, `role_binding.yaml`, `shutdown-sentinel.yaml`) marks its ClusterRole, its
 * ClusterRoleBinding and the `nvca-operator-shutdown-sentinel` ConfigMap with
 * `nvca.nvcf.nvidia.io/operator-cleanup`; only a running operator removes it, and `helm uninstall` deletes the
 * operator's Deployment together with them, so they stay Terminating (and the nvca-operator namespace with
 * them). The watcher waits until every such object is being deleted (or gone), then removes that one finalizer
 * (a JSON patch guarded by a `test` op, other finalizers untouched). An unreachable cluster counts as nothing
 * left; objects still live after `NVCFP_WAIT_SECONDS` end it with an error in its log (the uninstall did not
 * happen). The kubectl runner, then `components/scripts/operator-finalizers.sh`.
 */
export const UNFINALIZE = KUBECTL_PREAMBLE + scriptText("operator-finalizers.sh");

/**
 * The delete step of the finalizer watcher. Helm's uninstall of the operator waits until its objects are gone,
 * so the watcher cannot be a step that runs after it, and Pulumi deletes steps one dependency level at a time;
 * the step is therefore deleted just before the operator release and starts `UNFINALIZE` detached (own session,
 * output in a log file, no inherited pipes), so it outlives the step and strips the finalizers while helm
 * uninstalls (`components/scripts/operator-finalizers-start.sh`). Prints the watcher's pid and log path.
 */
export const START_UNFINALIZE = scriptText("operator-finalizers-start.sh");

/**
 * Outputs: `operator` (the NVCA operator release), `inotifyNodes` (nodes the tuner runs on).
 * Order on create: namespaces → pull secrets and the inotify tuner → operator (and add-ons and the
 * observability stack by their needs: CRDs before the operator, collector and monitors). On destroy the
 * reverse: NVCFBackend and nva-system drained, then the operator (its pre-delete hook runs, its CRD goes with
 * it) while the operator's cleanup finalizers are removed from what helm deletes; the add-ons; the collector
 * object and the monitors before the OpenTelemetry Operator and the Prometheus Operator CRDs (whose releases
 * remove their CRDs); then pull secrets and namespaces.
 */
export class ComputePlane extends pulumi.ComponentResource {
  readonly releases: Record<string, NvcfRelease> = {};
  readonly inotifyNodes: pulumi.Output<number>;
  /** The namespaces this component creates (Namespace resources), by name. */
  readonly namespaces: string[];
  /** Each release's input digest (secret) by Helm release name, known once it is deployed; empty without a watch. */
  readonly inputDigests: Record<string, pulumi.Output<string>>;

  constructor(name: string, args: ComputePlaneArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:ComputePlane", name, {}, opts);
    const cfg = args.config;
    const { flags, releases } = args.releases;
    // VictoriaMetrics holds the cluster's metrics: protected as on the control plane (nvcf:protectStatefulData).
    const protect = cfg.protectStatefulData ?? !isDevStack(pulumi.getStack());
    const nsList = new Set<string>([
      "nvca-operator",
      "nvca-system",
      "nvcf-backend",
      ...cfg.pullSecretNamespaces,
    ]);
    const statefulNs = new Set<string>();
    for (const r of releases) {
      const ns = computeReleaseNamespace(r, cfg);
      nsList.add(ns);
      if (r.stateful) statefulNs.add(ns);
    }
    const namespaces = new Namespaces(
      `${name}-ns`,
      {
        namespaces: [...nsList].map((n) => ({ name: n, stateful: statefulNs.has(n) })),
        protectStateful: protect,
      },
      { parent: this },
    );
    this.namespaces = Object.keys(namespaces.names);

    let pull: PullSecrets | undefined;
    if (cfg.pullSecret.name !== null && cfg.pullSecret.create && args.registryKey) {
      const targets: Record<string, pulumi.Input<string>> = {};
      for (const n of cfg.pullSecretNamespaces) targets[n] = namespaces.names[n];
      // The add-on and observability charts reference the same pull secret (KAI's global.imagePullSecrets, the
      // collector's and the operators' imagePullSecrets), so it must exist in their namespaces too.
      for (const r of releases) {
        const ns = computeReleaseNamespace(r, cfg);
        targets[ns] = namespaces.names[ns];
      }
      // The node tuner runs in kube-system (not a namespace of the stack) and pulls with the same secret.
      targets["kube-system"] = "kube-system";
      pull = new PullSecrets(
        `${name}-pull`,
        {
          secretName: cfg.pullSecret.name,
          server: args.inputs.imageRegistry,
          username: cfg.pullSecret.username,
          key: args.registryKey,
          namespaces: targets,
        },
        { parent: this },
      );
    }

    const tuner = new InotifyTuner(
      `${name}-inotify`,
      {
        maxUserInstances: cfg.inotify.maxUserInstances,
        maxUserWatches: cfg.inotify.maxUserWatches,
        initImage: args.inputs.apply((i) => inotifyImages(cfg, i).initImage),
        pauseImage: args.inputs.apply((i) => inotifyImages(cfg, i).pauseImage),
        imagePullSecrets: cfg.pullSecret.name === null ? [] : [cfg.pullSecret.name],
        requireNodes: cfg.inotify.requireGpuNodes,
        timeoutSeconds: cfg.inotify.timeoutSeconds,
      },
      { parent: this, dependsOn: pull?.secrets["kube-system"] ? [pull.secrets["kube-system"]] : [] },
    );
    this.inotifyNodes = tuner.scheduled;

    const source = { config: cfg.charts, password: args.chartRegistryPassword };
    for (const r of releases) {
      const ns = computeReleaseNamespace(r, cfg);
      const deps: pulumi.Resource[] = activeNeeds(r, flags).map((n) => this.releases[n]);
      if (r.name === "nvca-operator") {
        // Pull secrets before the operator (startup races, NVIDIA docs `docs/user/cluster-management/self-managed.md`) and node limits before NVCA (docs/upstream-facts.md §4 row 12).
        if (pull) deps.push(...Object.values(pull.secrets));
        deps.push(tuner);
      }
      // Its namespace (Helm never creates it), through the pull secret in it where there is one.
      const prerequisite = namespacePrerequisite(ns, namespaces, pull);
      if (prerequisite && !deps.includes(prerequisite)) deps.push(prerequisite);
      this.releases[r.name] = new NvcfRelease(
        `${name}-${r.name}`,
        {
          releaseName: r.name,
          chart: r.chart,
          version: chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides),
          namespace: ns,
          values: args.inputs.apply((inp) => failsAs(this, () => computeValues(r.name, cfg, inp))),
          source,
          timeoutSeconds: cfg.charts.timeoutSeconds,
          adopt: args.adopt?.[r.name],
          watch: args.watch,
        },
        { parent: this, dependsOn: deps, protect: protect && r.stateful === true },
      );
      const generation = cfg.restarts[r.name];
      if (generation !== undefined)
        restartCommand(
          name,
          {
            release: r.name,
            namespace: ns,
            generation,
            access: {
              kubectl: cfg.kubectlPath,
              ...(cfg.kubernetes.context !== undefined ? { context: cfg.kubernetes.context } : {}),
              ...(args.kubeconfig !== undefined ? { kubeconfig: args.kubeconfig } : {}),
              waitSeconds: cfg.charts.timeoutSeconds,
            },
          },
          { parent: this, dependsOn: [this.releases[r.name]] },
        );
    }

    this.inputDigests = deployedDigests(this.releases);

    // Runs after the operator's upgrade exactly when its cluster identity changes: the operator reads it only
    // at start-up (components/operatorRestart.ts). Create does nothing: a new pod starts with these values.
    new command.local.Command(
      `${name}-operator-restart`,
      {
        create: "true",
        update: 'eval "$NVCFP_RESTART_SCRIPT"',
        interpreter: ["/bin/bash", "-c"],
        environment: {
          NVCFP_RESTART_SCRIPT: RESTART_OPERATOR,
          NVCFP_NAMESPACE: "nvca-operator",
          NVCFP_DEPLOYMENT: "nvca-operator",
          NVCFP_TIMEOUT_SECONDS: String(cfg.charts.timeoutSeconds),
          NVCFP_KUBECTL: cfg.kubectlPath,
          NVCFP_KUBE_CONTEXT: cfg.kubernetes.context ?? "",
          NVCFP_KUBECONFIG: args.kubeconfig ? pulumi.secret(args.kubeconfig) : "",
          ...identityEnvironment(args.inputs.apply((i) => operatorIdentity(cfg, i))),
        },
        logging: "stdoutAndStderr",
      },
      { parent: this, dependsOn: [this.releases["nvca-operator"]] },
    );

    // Depends on the operator, so it is deleted just before it (after the drain, which depends on it):
    // starts the watcher that removes the operator's cleanup finalizers while helm uninstalls it.
    const unfinalize = new command.local.Command(
      `${name}-operator-finalizers`,
      {
        create: "true",
        delete: START_UNFINALIZE,
        interpreter: ["/bin/bash", "-c"],
        environment: {
          NVCFP_UNFINALIZE_SCRIPT: UNFINALIZE,
          NVCFP_FINALIZER: OPERATOR_CLEANUP_FINALIZER,
          NVCFP_NAMESPACE: "nvca-operator",
          NVCFP_CLUSTER: cfg.clusterName,
          NVCFP_KUBECTL: cfg.kubectlPath,
          NVCFP_KUBE_CONTEXT: cfg.kubernetes.context ?? "",
          NVCFP_KUBECONFIG: args.kubeconfig ? pulumi.secret(args.kubeconfig) : "",
          NVCFP_WAIT_SECONDS: String(cfg.charts.timeoutSeconds + 120),
        },
      },
      { parent: this, dependsOn: [this.releases["nvca-operator"]] },
    );

    // Depends on the operator, so it is deleted before it: NVCFBackend first, nvca-system drained.
    new command.local.Command(
      `${name}-drain`,
      {
        create: "true",
        delete: 'eval "$NVCFP_DRAIN_SCRIPT"',
        interpreter: ["/bin/bash", "-c"],
        environment: {
          NVCFP_DRAIN_SCRIPT: DRAIN,
          NVCFP_KUBECTL: cfg.kubectlPath,
          NVCFP_KUBE_CONTEXT: cfg.kubernetes.context ?? "",
          NVCFP_KUBECONFIG: args.kubeconfig ? pulumi.secret(args.kubeconfig) : "",
          NVCFP_DRAIN_SECONDS: "600",
        },
      },
      { parent: this, dependsOn: [this.releases["nvca-operator"], unfinalize] },
    );
    this.registerOutputs({ inotifyNodes: this.inotifyNodes });
  }
}
