/**
 * Where each chart comes from: its origin, as NVIDIA's Helmfile stacks pull it, and how the program resolves
 * a chart to the reference Helm installs (an `oci://` URL, a chart name in an HTTPS repository, or a local
 * directory). Pure data and pure functions; the only outside input is an `exists` callback that the caller
 * supplies for the per-version local layout (see `localChartPath`).
 *
 * Three origins:
 * - `nvcf`: the one configured NVCF source (`nvcf:charts.source` with `registry`/`repository`, `url` or
 *   `path`). NVIDIA's stacks declare it as the repository `nvcf` in every helmfile
 *   (`deploy/stacks/self-managed/helmfile.d/0[1-3]-*.yaml.gotmpl`,
 *   `deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl`,
 *   `deploy/stacks/nvcf-compute-plane/helmfile.d/02-nvca.yaml.gotmpl`). This includes three third-party
 *   charts NVIDIA republishes under its own repository: `prometheus-operator-crds`, `opentelemetry-operator`
 *   and `victoria-metrics-single` are `nvcf/<chart>` in the observability helmfile, at bundle 0.8.0 (HEAD)
 *   and 0.7.0 alike.
 * - `upstream`: a third-party repository of its own, named in the stack file: KAI and Grove from ghcr.io
 *   OCI, Dynamo from NGC's HTTPS repository (`deploy/stacks/nvcf-compute-plane/helmfile.d/01-dependencies.yaml.gotmpl`,
 *   `repositories:`), Envoy Gateway from Docker Hub OCI (`docs/user/gateway-routing.md`, the install step the
 *   stack expects to have been done).
 * - `stack-local`: charts NVIDIA ships inside the stack bundle, referenced by a relative path
 *   (`chart: ../charts/<name>`): `deploy/stacks/observability/charts/{nvcf-otel-collector,nvcf-default-monitors}`
 *   and `deploy/stacks/nvcf-compute-plane/charts/nvcf-cluster-topology`. They are published nowhere else, so
 *   the user points the program at a directory (the unpacked bundle, or a copy) or a mirror.
 *
 * Every origin except NVIDIA's own charts can be repointed with `nvcf:charts.mirrors.<key>` (see
 * `MIRROR_KEYS`); the facts are collected in docs/chart-sources.md.
 */
import * as path from "node:path";

/** The origin of a chart: the configured NVCF source, its own upstream repository, or the stack bundle. */
export type OriginKind = "nvcf" | "upstream" | "stack-local";

/**
 * Keys of `nvcf:charts.mirrors`: one per third-party repository, plus `stackLocal` for the charts that ship
 * inside NVIDIA's stack. Each repoints the charts of that origin (see `CHART_ORIGINS[].mirrorKey`).
 */
export const MIRROR_KEYS = [
  "kaiScheduler",
  "grove",
  "dynamo",
  "envoyGateway",
  "prometheusOperatorCrds",
  "opentelemetryOperator",
  "victoriaMetrics",
  "stackLocal",
] as const;
export type MirrorKey = (typeof MIRROR_KEYS)[number];

/** One chart's origin, with the NVIDIA path that states it. */
export interface ChartOrigin {
  /** Chart name as the repository publishes it (`Chart.yaml` `name`). */
  chart: string;
  kind: OriginKind;
  /** `nvcf:charts.mirrors.<key>` that repoints this chart; absent for NVIDIA's own charts (only `charts.*`). */
  mirrorKey?: MirrorKey;
  /**
   * `upstream` only: the repository NVIDIA's stack pulls from when nothing overrides it, as a location string
   * (`oci://<host>/<path>` or an `https://` Helm repository URL; see `parseLocation`).
   */
  defaultLocation?: string;
  /** `stack-local` only: the chart's directory in NVIDIA's repository. */
  stackDirectory?: string;
  /** Third-party charts NVIDIA republishes (`nvcf` origin): the project's own repository, for a mirror. */
  upstreamHome?: string;
  /** Where NVIDIA states the origin (public path in NVIDIA/nvcf). */
  fact: string;
}

const SELF_MANAGED = "deploy/stacks/self-managed/helmfile.d";
const OBSERVABILITY = "deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl";
const COMPUTE_DEPS = "deploy/stacks/nvcf-compute-plane/helmfile.d/01-dependencies.yaml.gotmpl";
const COMPUTE_NVCA = "deploy/stacks/nvcf-compute-plane/helmfile.d/02-nvca.yaml.gotmpl";

/** NVIDIA's own charts: `nvcf/<chart>` in the self-managed and compute-plane helmfiles. */
const NVCF_CHARTS: readonly { chart: string; file: string }[] = [
  { chart: "helm-nvcf-nats", file: `${SELF_MANAGED}/01-dependencies.yaml.gotmpl` },
  { chart: "helm-nvcf-cert-manager", file: `${SELF_MANAGED}/01-dependencies.yaml.gotmpl` },
  { chart: "helm-nvcf-openbao-server", file: `${SELF_MANAGED}/01-dependencies.yaml.gotmpl` },
  { chart: "helm-nvcf-pki", file: `${SELF_MANAGED}/01-dependencies.yaml.gotmpl` },
  { chart: "helm-nvcf-cassandra", file: `${SELF_MANAGED}/01-dependencies.yaml.gotmpl` },
  { chart: "helm-nvcf-api-keys", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-sis", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-api", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-nvct-api", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-invocation-service", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-grpc-proxy", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-rate-limiter", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-ess-api", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-notary-service", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-admin-token-issuer-proxy", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-reval", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-nats-auth-callout-service", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-llm-request-router", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-llm-api-gateway", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-vanity-gateway", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-ui", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "nvcf-gateway-routes", file: `${SELF_MANAGED}/02-core.yaml.gotmpl` },
  { chart: "helm-nvcf-state-metrics", file: `${SELF_MANAGED}/03-observability.yaml.gotmpl` },
  { chart: "helm-nvcf-function-autoscaler", file: `${SELF_MANAGED}/03-observability.yaml.gotmpl` },
  { chart: "helm-nvca-operator", file: COMPUTE_NVCA },
];

/**
 * Every chart the program installs, with its origin. Facts (bundle 0.8.0 = NVIDIA/nvcf HEAD, 0.7.0 = tag
 * `deploy/stacks/self-managed/v0.7.0`; the origins are the same in both where the chart ships):
 * - KAI: repository `kai-scheduler`, OCI `ghcr.io/kai-scheduler/kai-scheduler`, chart `kai-scheduler`
 *   (`01-dependencies.yaml.gotmpl` at 0.8.0; the 0.7.0 compute stack has no KAI release).
 * - Grove: repository `nvidia-ai-dynamo-grove`, OCI `ghcr.io/ai-dynamo/grove`, chart `grove-charts`.
 * - Dynamo: repository `nvidia-ai-dynamo`, HTTPS `https://helm.ngc.nvidia.com/nvidia/ai-dynamo`, chart
 *   `dynamo-platform`.
 * - Envoy Gateway: `oci://docker.io/envoyproxy/gateway-helm` (`docs/user/gateway-routing.md`).
 * - `nvcf-otel-collector`, `nvcf-default-monitors`: `chart: ../charts/<name>` in the observability helmfile;
 *   `nvcf-cluster-topology`: `chart: ../charts/nvcf-cluster-topology` in the compute `01-dependencies` (0.8.0
 *   only; the 0.7.0 compute stack has no `charts/` directory).
 * - `prometheus-operator-crds`, `opentelemetry-operator`, `victoria-metrics-single`: `nvcf/<chart>` in the
 *   observability helmfile, whose only repository is the OCI form
 *   `<global.helm.sources.registry>/<global.helm.sources.repository>` (it has no HTTPS branch, unlike the
 *   self-managed helmfiles). Their upstream homes are the charts' own public Helm repositories.
 */
export const CHART_ORIGINS: readonly ChartOrigin[] = [
  ...NVCF_CHARTS.map(({ chart, file }) => ({
    chart,
    kind: "nvcf" as const,
    fact: `${file}: chart nvcf/${chart} (repository nvcf = charts.source)`,
  })),
  {
    chart: "prometheus-operator-crds",
    kind: "nvcf",
    mirrorKey: "prometheusOperatorCrds",
    upstreamHome: "https://prometheus-community.github.io/helm-charts",
    fact: `${OBSERVABILITY}: chart nvcf/prometheus-operator-crds`,
  },
  {
    chart: "opentelemetry-operator",
    kind: "nvcf",
    mirrorKey: "opentelemetryOperator",
    upstreamHome: "https://open-telemetry.github.io/opentelemetry-helm-charts",
    fact: `${OBSERVABILITY}: chart nvcf/opentelemetry-operator`,
  },
  {
    chart: "victoria-metrics-single",
    kind: "nvcf",
    mirrorKey: "victoriaMetrics",
    upstreamHome: "https://victoriametrics.github.io/helm-charts",
    fact: `${OBSERVABILITY}: chart nvcf/victoria-metrics-single`,
  },
  {
    chart: "kai-scheduler",
    kind: "upstream",
    mirrorKey: "kaiScheduler",
    defaultLocation: "oci://ghcr.io/kai-scheduler/kai-scheduler",
    fact: `${COMPUTE_DEPS}: repository kai-scheduler (OCI ghcr.io/kai-scheduler/kai-scheduler), chart kai-scheduler/kai-scheduler`,
  },
  {
    chart: "grove-charts",
    kind: "upstream",
    mirrorKey: "grove",
    defaultLocation: "oci://ghcr.io/ai-dynamo/grove",
    fact: `${COMPUTE_DEPS}: repository nvidia-ai-dynamo-grove (OCI ghcr.io/ai-dynamo/grove), chart nvidia-ai-dynamo-grove/grove-charts`,
  },
  {
    chart: "dynamo-platform",
    kind: "upstream",
    mirrorKey: "dynamo",
    defaultLocation: "https://helm.ngc.nvidia.com/nvidia/ai-dynamo",
    fact: `${COMPUTE_DEPS}: repository nvidia-ai-dynamo (https://helm.ngc.nvidia.com/nvidia/ai-dynamo), chart nvidia-ai-dynamo/dynamo-platform`,
  },
  {
    chart: "gateway-helm",
    kind: "upstream",
    mirrorKey: "envoyGateway",
    defaultLocation: "oci://docker.io/envoyproxy",
    fact: "docs/user/gateway-routing.md: helm upgrade --install eg oci://docker.io/envoyproxy/gateway-helm",
  },
  {
    chart: "nvcf-otel-collector",
    kind: "stack-local",
    mirrorKey: "stackLocal",
    stackDirectory: "deploy/stacks/observability/charts/nvcf-otel-collector",
    fact: `${OBSERVABILITY}: chart ../charts/nvcf-otel-collector`,
  },
  {
    chart: "nvcf-default-monitors",
    kind: "stack-local",
    mirrorKey: "stackLocal",
    stackDirectory: "deploy/stacks/observability/charts/nvcf-default-monitors",
    fact: `${OBSERVABILITY}: chart ../charts/nvcf-default-monitors`,
  },
  {
    chart: "nvcf-cluster-topology",
    kind: "stack-local",
    mirrorKey: "stackLocal",
    stackDirectory: "deploy/stacks/nvcf-compute-plane/charts/nvcf-cluster-topology",
    fact: `${COMPUTE_DEPS}: chart ../charts/nvcf-cluster-topology`,
  },
];

/**
 * The origin of a chart by its name. Charts missing from `CHART_ORIGINS` are taken as NVIDIA's own (`nvcf`),
 * which is where every chart of NVIDIA's stacks lives unless its helmfile names another repository; the unit
 * tests hold that every chart of the catalog is listed explicitly.
 */
export function chartOrigin(chart: string): ChartOrigin {
  return (
    CHART_ORIGINS.find((o) => o.chart === chart) ?? {
      chart,
      kind: "nvcf",
      fact: "not listed in catalog/sources.ts; taken as an NVCF chart",
    }
  );
}

/** The charts that a `nvcf:charts.mirrors.<key>` entry repoints. */
export function chartsOfMirror(key: MirrorKey): string[] {
  return CHART_ORIGINS.filter((o) => o.mirrorKey === key).map((o) => o.chart);
}

/** A place charts can be pulled from, parsed from a location string (see `parseLocation`). */
export type ChartLocation =
  /** `base` is `<host>/<path>` without the scheme; a chart is `oci://<base>/<chart>`. */
  | { kind: "oci"; base: string }
  /** A classic Helm repository (`index.yaml` at `url`). */
  | { kind: "https"; url: string }
  /** A directory holding one sub-directory per chart; absolute, or relative to the project directory. */
  | { kind: "local"; dir: string };

/**
 * Parses a mirror location: `oci://<host>/<path>` (an OCI registry; the chart is appended), `https://…` (a
 * Helm repository URL) or anything else as a directory (absolute, or relative to the project directory).
 * Output: the location, or `{ error }` saying what is wrong (plain `http://`, a scheme other than these, an
 * OCI reference without a host or with an empty path segment, `~`, which is not expanded, a URL with blanks).
 */
export function parseLocation(location: string): ChartLocation | { error: string } {
  const s = location.trim();
  if (s === "") return { error: "a non-empty location" };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s) && /\s/.test(s)) return { error: "a URL without blanks" };
  if (s.startsWith("oci://")) {
    const base = s.slice("oci://".length).replace(/\/+$/, "");
    if (!/^[^/]+(\/[^/]+)*$/.test(base)) return { error: "oci://<registry host>[/<repository path>]" };
    return { kind: "oci", base };
  }
  if (s.startsWith("https://")) {
    if (s.length <= "https://".length) return { error: "https://<host>/<repository path>" };
    return { kind: "https", url: s.replace(/\/+$/, "") };
  }
  if (s.startsWith("http://"))
    return { error: "an https:// Helm repository URL (plain http is refused, as for charts.url)" };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return { error: "oci://…, https://… or a directory" };
  if (s === "~" || s.startsWith("~/"))
    return { error: "an absolute path or one relative to the project (~ is not expanded)" };
  return { kind: "local", dir: s };
}

/**
 * The local chart directory for a chart, as Helm is given it. Input: `dir` (absolute, or relative to the
 * project directory), the chart name, its pinned version, and `exists(p)` telling whether a directory
 * exists (`p` in the same form as the result). Output: `<dir>/<chart>-<version>` when that directory exists
 * (a per-version layout, so one directory can hold a chart for several bundles), else `<dir>/<chart>`.
 * An absolute `dir` gives an absolute path; a relative one stays relative and starts with `./` or `../`
 * (Helm reads `name/chart` without it as a repository reference), so state does not depend on where the
 * project is checked out.
 */
export function localChartPath(
  dir: string,
  chart: string,
  version: string,
  exists: (p: string) => boolean,
): string {
  const form = (sub: string): string => {
    const joined = path.posix.join(dir, sub);
    if (path.posix.isAbsolute(dir)) return joined;
    return joined === ".." || joined.startsWith("../") ? joined : `./${joined}`;
  };
  const versioned = form(`${chart}-${version}`);
  return exists(versioned) ? versioned : form(chart);
}

/** The part of `nvcf:charts` the resolution reads (the validated config object satisfies it). */
export interface ChartSourceSettings {
  source: "oci" | "https" | "local";
  registry: string;
  repository: string;
  url?: string;
  path?: string;
  username?: string;
  mirrors?: Partial<Record<MirrorKey, { location: string; credentials: "none" | "charts" } | undefined>>;
}

/** A chart resolved to what Helm installs. */
export interface ResolvedChart {
  /** Helm's chart argument: `oci://…/<chart>`, a chart name in `repo`, or a local path. */
  chart: string;
  /** The HTTPS repository URL, for HTTPS locations only. */
  repo?: string;
  kind: ChartLocation["kind"];
  /** Attach `nvcf:charts.username` and the secret `nvcf:chartRegistryPassword` to the pull. */
  credentials: boolean;
  origin: OriginKind;
  /** The config key (or default) that decided the location, e.g. `charts.mirrors.kaiScheduler`. */
  decidedBy: string;
}

function atLocation(
  loc: ChartLocation,
  chart: string,
  version: string,
  exists: (p: string) => boolean,
): Pick<ResolvedChart, "chart" | "repo" | "kind"> {
  switch (loc.kind) {
    case "oci":
      return { kind: "oci", chart: `oci://${loc.base}/${chart}` };
    case "https":
      return { kind: "https", chart, repo: loc.url };
    case "local":
      return { kind: "local", chart: localChartPath(loc.dir, chart, version, exists) };
  }
}

/**
 * Resolves a chart through its origin. Order: (1) `charts.mirrors.<key>` of the chart's origin, when set;
 * (2) with `charts.source: local`, the local directory `charts.path` for every chart (so the stand-ins of the
 * dev stacks cover third-party and stack-local charts too); (3) an `upstream` chart's default repository,
 * as NVIDIA's stack pulls it, without credentials (NVCF credentials never go to a third-party host);
 * (4) the NVCF source for NVIDIA's charts and for stack-local charts with no mirror (push them next to
 * NVIDIA's charts, or set `charts.mirrors.stackLocal`).
 * Input: validated chart settings, chart name, pinned version, `exists` for the per-version local layout.
 * Output: the resolved chart. Throws only for a location that validation refuses (never reached after
 * `chartSourceRules`).
 */
export function resolveChart(
  settings: ChartSourceSettings,
  chart: string,
  version: string,
  exists: (p: string) => boolean,
): ResolvedChart {
  const origin = chartOrigin(chart);
  const mirror = origin.mirrorKey ? settings.mirrors?.[origin.mirrorKey] : undefined;
  if (mirror) {
    const loc = parseLocation(mirror.location);
    if ("error" in loc) throw new Error(`charts.mirrors.${origin.mirrorKey}.location: expected ${loc.error}`);
    const at = atLocation(loc, chart, version, exists);
    return {
      ...at,
      credentials: mirror.credentials === "charts" && at.kind !== "local",
      origin: origin.kind,
      decidedBy: `charts.mirrors.${origin.mirrorKey}`,
    };
  }
  if (settings.source === "local")
    return {
      ...atLocation({ kind: "local", dir: settings.path ?? "." }, chart, version, exists),
      credentials: false,
      origin: origin.kind,
      decidedBy: "charts.path",
    };
  if (origin.kind === "upstream" && origin.defaultLocation) {
    const loc = parseLocation(origin.defaultLocation) as ChartLocation;
    return {
      ...atLocation(loc, chart, version, exists),
      credentials: false,
      origin: origin.kind,
      decidedBy: `default upstream ${origin.defaultLocation}`,
    };
  }
  const nvcf: ChartLocation =
    settings.source === "oci"
      ? { kind: "oci", base: `${settings.registry}/${settings.repository}` }
      : { kind: "https", url: settings.url ?? "" };
  return {
    ...atLocation(nvcf, chart, version, exists),
    credentials: true,
    origin: origin.kind,
    decidedBy: "charts.source",
  };
}

/** One chart an air-gapped install must mirror. */
export interface MirrorEntry {
  plane: "control" | "compute";
  /** Release names installing the chart in this bundle (a chart may back several releases). */
  releases: string[];
  chart: string;
  version: string;
  origin: OriginKind;
  /** The config key that repoints it (`charts.*` for NVIDIA's own charts). */
  configKey: string;
  /** Where to take it from: the upstream repository, NVIDIA's stack directory, or NVIDIA's NVCF repository. */
  from: string;
}

/**
 * NVIDIA's public repository of its NVCF charts, as the artifact manifest gives their distribution
 * (`docs/v0.6.1/manifest.md`: `https://helm.ngc.nvidia.com/nvidia/nvcf/<chart>:<version>`).
 */
export const NVCF_PUBLIC_REPOSITORY = "https://helm.ngc.nvidia.com/nvidia/nvcf";

/** Envoy Gateway chart version NVIDIA's docs install (`docs/user/gateway-routing.md`: `--version v1.1.3`). */
export const ENVOY_GATEWAY_CHART_VERSION = "v1.1.3";

/**
 * Every chart a bundle can install, per plane, with its origin and where to copy it from: the list an
 * air-gapped user mirrors. Input: the catalog's releases (`catalog/releases.ts`, passed in to keep this module
 * free of the catalog), the bundle, and the Envoy Gateway chart version (only for `gateway.install`).
 * Output: one entry per (plane, chart, version), in catalog order (a release of both planes, e.g. the
 * observability charts, once per plane; a release listed twice counts once), Envoy Gateway last on the
 * control plane.
 */
export function mirrorList(
  releases: readonly {
    name: string;
    planes: readonly ("control" | "compute")[];
    chart: string;
    versions: Partial<Record<string, string>>;
  }[],
  bundle: string,
  envoyGatewayVersion: string = ENVOY_GATEWAY_CHART_VERSION,
): MirrorEntry[] {
  const out: MirrorEntry[] = [];
  const entry = (plane: "control" | "compute", release: string, chart: string, version: string) => {
    const same = out.find((e) => e.plane === plane && e.chart === chart && e.version === version);
    if (same) {
      if (!same.releases.includes(release)) same.releases.push(release);
      return;
    }
    const o = chartOrigin(chart);
    const from =
      o.kind === "upstream"
        ? `${o.defaultLocation}`
        : o.kind === "stack-local"
          ? `${o.stackDirectory} (NVIDIA's stack bundle)`
          : o.upstreamHome
            ? `${o.upstreamHome} (NVIDIA's stack expects it in the NVCF source)`
            : NVCF_PUBLIC_REPOSITORY;
    out.push({
      plane,
      releases: [release],
      chart,
      version,
      origin: o.kind,
      configKey: o.mirrorKey ? `charts.mirrors.${o.mirrorKey}` : "charts.source",
      from,
    });
  };
  for (const r of releases) {
    const v = r.versions[bundle];
    if (v !== undefined) for (const plane of r.planes) entry(plane, r.name, r.chart, v);
  }
  entry("control", "eg (gateway.install)", "gateway-helm", envoyGatewayVersion);
  return out;
}
