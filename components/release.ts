/**
 * `NvcfRelease`: the one wrapper around `kubernetes.helm.v3.Release` every release of the stack goes through.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { type ResolvedChart, resolveChart } from "../catalog/sources";
import type { ControlPlaneConfig } from "../config/schema";
import { adoptOptions } from "../recovery/recover";
import { withoutDependsOn } from "./options";

/** Where charts come from, with the secret password as a Pulumi secret (never in plain text). */
export interface ChartSource {
  config: ControlPlaneConfig["charts"];
  password?: pulumi.Output<string>;
}

/** The project directory (where `Pulumi.yaml` is): relative chart paths are relative to it. */
export const PROJECT_DIR = path.resolve(__dirname, "..");

/** True when `p` (absolute, or relative to the project directory) is an existing directory. */
export function projectDirectoryExists(p: string): boolean {
  try {
    return fs.statSync(path.resolve(PROJECT_DIR, p)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The chart reference for a source (docs/upstream-facts.md §1.2 "Chart reference for an implementation"), resolved through the
 * chart's origin (catalog/sources.ts `resolveChart`): a `charts.mirrors` entry of its origin, else every chart
 * from `charts.path` with `source: local`, else a third-party chart's own upstream repository, else the NVCF
 * source. Input: source settings, chart name, pinned version (for the `<path>/<chart>-<version>/` layout),
 * and optionally how to test that a directory exists (default: on disk, relative to the project directory).
 * Output: `chart` (OCI URL, repository chart name or local path), the repository URL for HTTPS locations,
 * the kind of location and whether the NVCF credentials go with the pull. Local paths given relative stay
 * relative to the project, so state does not depend on the checkout path; absolute ones stay absolute.
 */
export function chartReference(
  source: ControlPlaneConfig["charts"],
  chart: string,
  version: string,
  exists: (p: string) => boolean = projectDirectoryExists,
): ResolvedChart {
  return resolveChart(source, chart, version, exists);
}

/**
 * Helm repository options for a resolved chart: none for local charts and anonymous OCI pulls; the HTTPS
 * repository URL for HTTPS locations; `charts.username` and the secret password only when the chart's
 * location takes the NVCF credentials (`ResolvedChart.credentials`), so they never reach another host.
 */
export function repositoryOptions(
  ref: ResolvedChart,
  username: string | undefined,
  password: pulumi.Output<string> | undefined,
): k8s.types.input.helm.v3.RepositoryOpts | undefined {
  if (ref.kind === "local") return undefined;
  if (!ref.credentials) return ref.repo ? { repo: ref.repo } : undefined;
  return { repo: ref.repo, username, password };
}

/**
 * What a release hands to the server-side dry run of a preview (engine/dryRun.ts `ServerDryRun`): the inputs of
 * its Helm release, as `pulumi up` will give them to Helm.
 */
export interface ReleaseInputs {
  /** Helm release name. */
  releaseName: string;
  namespace: pulumi.Input<string>;
  /** Where the chart resolves (`chartReference`). */
  chart: ResolvedChart;
  /** Pinned chart version. */
  version: string;
  /** Registry user and secret password, when the chart's location takes the NVCF credentials. */
  username?: string;
  password?: pulumi.Output<string>;
  /** Values (may contain secret leaves). */
  values: pulumi.Input<Record<string, unknown>>;
  /** Paths under `values` whose changes Pulumi ignores (`installOnlyValues`). */
  ignoredValuePaths: readonly string[];
  /** The Helm release resource. */
  resource: pulumi.Resource;
}

/**
 * Follows a release's inputs for the server-side dry run; returns the digest of the inputs (a secret), which the
 * stack records so that the next preview checks only the releases whose inputs changed.
 */
export type ReleaseWatch = (inputs: ReleaseInputs) => pulumi.Output<string>;

/** Inputs of one release. */
export interface NvcfReleaseArgs {
  /** Helm release name (fixed by the catalog). */
  releaseName: string;
  /** Chart name in the source. */
  chart: string;
  /** Pinned chart version (catalog or override). */
  version: string;
  /**
   * Namespace name. Helm never creates it: pass the plain name and put the Namespace resource (or the pull secret
   * in it, which waits for the namespace) in `dependsOn`.
   */
  namespace: pulumi.Input<string>;
  /** Values (may contain secret leaves). */
  values: pulumi.Input<Record<string, unknown>>;
  source: ChartSource;
  /** Helm wait timeout, seconds. */
  timeoutSeconds: number;
  /**
   * `namespace/name` of a deployed Helm release that the Pulumi state lost (an interrupted run): it is imported
   * instead of installed again (recovery/recover.ts `recoverReleases`).
   */
  adopt?: string;
  /**
   * Paths under `values` (e.g. `api.accountBootstrap.limits`) whose changes are not applied to an installed
   * release: Pulumi's `ignoreChanges` on `values.<path>`. An install takes them as given; later changes neither
   * show in the release's diff nor reach Helm (for settings a hook applies only when it creates something, which
   * another resource keeps up to date: components/accounts.ts).
   */
  installOnlyValues?: string[];
  /**
   * Roll a failed install or upgrade back (`atomic`; default true). Off for a Cassandra whose data was adopted
   * from the Bitnami chart (components/upgradeSteps.ts): a rollback across the change of chart lineage would put
   * the Bitnami StatefulSet back over the adopted claims, or fail on its immutable fields.
   */
  atomic?: boolean;
  /** The server-side dry run that follows this release's inputs (unset: none). */
  watch?: ReleaseWatch;
}

/**
 * One Helm release. Helm hooks run (this is a real `helm install/upgrade`), the namespace is never created
 * by Helm, the chart version is pinned, resources are awaited (including hook Jobs) within the timeout,
 * and a failed install is rolled back (`atomic`) so that the next run installs afresh with its install-only
 * hooks instead of upgrading a broken release (docs/upstream-facts.md §1.11, §4 row 5).
 * Chart registry credentials are passed on the resource, never taken from the host's Helm login, and
 * only to the locations that take them (`repositoryOptions`). The chart is resolved through its origin
 * (`chartReference`).
 *
 * Helm's OpenAPI check is off on install (`disableOpenapiValidation`). With it on, Helm (3.18, inside the
 * Kubernetes provider) asks, for every object of the rendered chart, whether the API server supports
 * server-side field validation. It does so by fetching and parsing that API group's whole OpenAPI v3 document
 * (about 2.7 MB for one small chart). On a server that supports it, Helm then validates nothing on the client
 * (k8s.io/kubectl `paramVerifyingSchema`), and Helm's requests do not ask for strict validation either. Every
 * Kubernetes release from 1.27 supports it, and NVIDIA's kubectl floor of 1.28 (±1 minor) implies such a
 * server, so Helmfile's `helm upgrade --install` checks no more than this does. The check was about half of the
 * provider's CPU time in a GPU-cluster install
 * (docs/performance.md#releases-install-without-helms-openapi-validation). The provider applies the flag only on
 * install, and `ignoreChanges` keeps releases installed before this change from showing a diff.
 *
 * Its `dependsOn` goes to the Helm release resource, not to the component (components/options.ts).
 *
 * Outputs: `status` (Helm's release status), `releaseName`, and with `watch` the secret `inputDigest`.
 */
export class NvcfRelease extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  /** Where the chart was resolved to (origin, location kind, deciding config key). */
  readonly chartReference: ResolvedChart;
  readonly status: pulumi.Output<string>;
  readonly releaseName: pulumi.Output<string>;
  /** The digest of the release's inputs (secret), when a dry run watches it (`NvcfReleaseArgs.watch`). */
  readonly inputDigest?: pulumi.Output<string>;

  constructor(name: string, args: NvcfReleaseArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:Release", name, {}, withoutDependsOn(opts));
    const ref = chartReference(args.source.config, args.chart, args.version);
    this.chartReference = ref;
    const repositoryOpts = repositoryOptions(ref, args.source.config.username, args.source.password);
    this.release = new k8s.helm.v3.Release(
      name,
      {
        name: args.releaseName,
        chart: ref.chart,
        version: args.version,
        repositoryOpts,
        namespace: args.namespace,
        createNamespace: false,
        values: args.values,
        timeout: args.timeoutSeconds,
        atomic: args.atomic ?? true,
        cleanupOnFail: true,
        waitForJobs: true,
        maxHistory: 5,
        disableOpenapiValidation: true,
      },
      {
        parent: this,
        dependsOn: opts?.dependsOn,
        ignoreChanges: [
          "disableOpenapiValidation",
          ...(args.installOnlyValues ?? []).map((p) => `values.${p}`),
        ],
        ...adoptOptions(args.adopt),
      },
    );
    this.status = this.release.status.status;
    this.releaseName = this.release.name;
    this.inputDigest = args.watch?.({
      releaseName: args.releaseName,
      namespace: args.namespace,
      chart: ref,
      version: args.version,
      username: ref.credentials ? args.source.config.username : undefined,
      password: ref.credentials ? args.source.password : undefined,
      values: args.values,
      ignoredValuePaths: args.installOnlyValues ?? [],
      resource: this.release,
    });
    this.registerOutputs({ status: this.status, releaseName: this.releaseName });
  }
}

/**
 * The input digests of releases (those a dry run watches), by Helm release name, each known only once its release
 * reports a status (a release that fails keeps the stack's previous digest out of the next registration). Secret.
 */
export function deployedDigests(
  releases: Record<string, NvcfRelease>,
): Record<string, pulumi.Output<string>> {
  const out: Record<string, pulumi.Output<string>> = {};
  for (const [name, r] of Object.entries(releases)) {
    const d = r.inputDigest;
    if (d) out[name] = pulumi.secret(pulumi.all([r.status, d]).apply(([, x]) => x));
  }
  return out;
}
