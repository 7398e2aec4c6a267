/**
 * `NvcfRelease`: the one wrapper around `kubernetes.helm.v3.Release` every release of the stack goes through.
 */
import * as path from "node:path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../config/schema";

/** Where charts come from, with the secret password as a Pulumi secret (never in plain text). */
export interface ChartSource {
  config: ControlPlaneConfig["charts"];
  password?: pulumi.Output<string>;
}

/**
 * The chart reference for a source (spec §1.2 "Chart reference for an implementation"). Input: source
 * settings and chart name. Output: `chart` (OCI URL, repo chart name or local path) and the repository URL
 * for HTTPS sources. Local paths stay relative to the project, so state does not depend on the checkout path.
 */
export function chartReference(
  source: ControlPlaneConfig["charts"],
  chart: string,
): { chart: string; repo?: string } {
  switch (source.source) {
    case "oci":
      return { chart: `oci://${source.registry}/${source.repository}/${chart}` };
    case "https":
      return { chart, repo: source.url };
    case "local":
      return { chart: `./${path.posix.join(source.path ?? ".", chart)}` };
  }
}

/** Inputs of one release. */
export interface NvcfReleaseArgs {
  /** Helm release name (fixed by the catalog). */
  releaseName: string;
  /** Chart name in the source. */
  chart: string;
  /** Pinned chart version (catalog or override). */
  version: string;
  /** Namespace name, taken from the Namespace resource so the release waits for it. */
  namespace: pulumi.Input<string>;
  /** Values (may contain secret leaves). */
  values: pulumi.Input<Record<string, unknown>>;
  source: ChartSource;
  /** Helm wait timeout, seconds. */
  timeoutSeconds: number;
}

/**
 * One Helm release. Helm hooks run (this is a real `helm install/upgrade`), the namespace is never created
 * by Helm, the chart version is pinned, resources are awaited (including hook Jobs) within the timeout,
 * and a failed install is rolled back (`atomic`) so that the next run installs afresh with its install-only
 * hooks instead of upgrading a broken release (spec §1.11, §4 row 5; user report C3).
 * Chart registry credentials are passed on the resource, never taken from the host's Helm login (C1).
 *
 * Outputs: `status` (Helm's release status) and `releaseName`.
 */
export class NvcfRelease extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  readonly status: pulumi.Output<string>;
  readonly releaseName: pulumi.Output<string>;

  constructor(name: string, args: NvcfReleaseArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:Release", name, {}, opts);
    const ref = chartReference(args.source.config, args.chart);
    const cfg = args.source.config;
    const repositoryOpts: k8s.types.input.helm.v3.RepositoryOpts | undefined =
      cfg.source === "local"
        ? undefined
        : {
            repo: ref.repo,
            username: cfg.username,
            password: args.source.password,
          };
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
        atomic: true,
        cleanupOnFail: true,
        waitForJobs: true,
        maxHistory: 5,
      },
      { parent: this, dependsOn: opts?.dependsOn },
    );
    this.status = this.release.status.status;
    this.releaseName = this.release.name;
    this.registerOutputs({ status: this.status, releaseName: this.releaseName });
  }
}
