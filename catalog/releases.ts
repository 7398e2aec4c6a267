/**
 * The release catalog: every Helm release the control plane and the compute plane install, as data.
 *
 * One entry per release gives its chart, the pinned chart version for each supported NVCF bundle version,
 * its namespace, when it is enabled, its prerequisites (the `needs` edges) and the top-level values key its
 * chart reads. A reader finds any release's chart, version, namespace and prerequisites here in one hop; its
 * values are built by the function of the same name in `values/control.ts` or `values/compute.ts`.
 *
 * Facts: ../shared/spec/nvcf-stack.md §1.3 (releases), §1.4 (dependency DAG), §2.3 (compute releases),
 * §5.2 (chart versions by source). Bundle 0.8.0 is the HEAD train of the repository, 0.7.0 the
 * `deploy/stacks/self-managed/v0.7.0` tag, 0.6.1 the docs v0.6.1 artifact manifest.
 */

/** NVCF bundle versions this program can install (spec §5.2). */
export const BUNDLE_VERSIONS = ["0.6.1", "0.7.0", "0.8.0"] as const;
export type BundleVersion = (typeof BUNDLE_VERSIONS)[number];

/** Which stack a release belongs to. */
export type Plane = "control" | "compute";

/**
 * Names of the settings that switch releases on and off; each is computed from the validated config by
 * `enabledFlags()` in `values/control.ts` / `values/compute.ts`, so the catalog stays pure data.
 */
export type EnableFlag =
  | "always"
  | "observabilityEnabled"
  | "prometheusOperatorCrdsInstall"
  | "otelOperatorInstall"
  | "metricsBackendInstall"
  | "collectorInstall"
  | "nats"
  | "certManager"
  | "openbao"
  | "llmManagedPki"
  | "cassandra"
  | "rateLimiter"
  | "llm"
  | "vanityGateway"
  | "nvcfUi"
  | "ingress"
  | "stateMetrics"
  | "functionAutoscaler"
  | "kaiScheduler"
  | "kaiTopology"
  | "groveOperator"
  | "groveTopology"
  | "dynamoOperator";

/** Where a release's namespace comes from: a fixed name, or a config setting resolved at run time. */
export type NamespaceRef =
  | { fixed: string }
  | { fromConfig: "gatewayControllerNamespace" | "observabilityNamespace" };

/** A release's prerequisite: another release of the same plane, and the flag under which the edge exists. */
export interface Need {
  release: string;
  /** The edge exists only when this flag is on (spec §1.4 "(if installed)", "+ nvcf-ui when enabled"). */
  when?: EnableFlag;
}

/** One Helm release of the catalog. */
export interface ReleaseSpec {
  /** Helm release name (also the Pulumi resource name suffix). Fixed: OpenBao bound claims depend on it (spec §4 row 17). */
  name: string;
  plane: Plane;
  /** Chart name inside the chart source (`oci://<registry>/<repository>/<chart>`, an HTTPS repo, or a local directory). */
  chart: string;
  /** Pinned chart version per bundle; a bundle without the release omits it (the release is then unavailable). */
  versions: Partial<Record<BundleVersion, string>>;
  namespace: NamespaceRef;
  enabled: EnableFlag;
  needs: Need[];
  /** Top-level values key the chart reads (spec §1.3 "Key"); `null` for charts that read flat values. */
  valuesKey: string | null;
  /** Holds state that must survive (protected from deletion outside dev stacks). */
  stateful?: boolean;
  /** Helmfile release-group label (spec §1.2), kept for reference and for `--target` style selection in docs. */
  group: "observability" | "dependencies" | "services" | "ingress" | "workers";
}

const all = (v: string): Record<BundleVersion, string> => ({ "0.6.1": v, "0.7.0": v, "0.8.0": v });

/** Control-plane releases in Helmfile order (spec §1.3). */
export const CONTROL_PLANE_RELEASES: readonly ReleaseSpec[] = [
  // Stage 0: observability infrastructure ([OBS] sub-helmfile).
  {
    name: "prometheus-operator-crds",
    plane: "control",
    chart: "prometheus-operator-crds",
    versions: all("30.0.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "prometheusOperatorCrdsInstall",
    needs: [],
    valuesKey: null,
    group: "observability",
  },
  {
    name: "opentelemetry-operator",
    plane: "control",
    chart: "opentelemetry-operator",
    versions: all("0.114.1"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "otelOperatorInstall",
    needs: [{ release: "prometheus-operator-crds", when: "prometheusOperatorCrdsInstall" }],
    valuesKey: null,
    group: "observability",
  },
  {
    name: "victoria-metrics",
    plane: "control",
    chart: "victoria-metrics-single",
    versions: all("0.38.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "metricsBackendInstall",
    needs: [],
    valuesKey: null,
    stateful: true,
    group: "observability",
  },
  {
    name: "otel-collector",
    plane: "control",
    chart: "nvcf-otel-collector",
    versions: all("0.1.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "collectorInstall",
    needs: [
      { release: "opentelemetry-operator", when: "otelOperatorInstall" },
      { release: "prometheus-operator-crds", when: "prometheusOperatorCrdsInstall" },
      { release: "victoria-metrics", when: "metricsBackendInstall" },
    ],
    valuesKey: null,
    group: "observability",
  },
  {
    name: "default-monitors",
    plane: "control",
    chart: "nvcf-default-monitors",
    versions: all("0.1.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "observabilityEnabled",
    needs: [{ release: "prometheus-operator-crds", when: "prometheusOperatorCrdsInstall" }],
    valuesKey: null,
    group: "observability",
  },
  // Stage 1: dependencies.
  {
    name: "nats",
    plane: "control",
    chart: "helm-nvcf-nats",
    versions: all("0.7.1"),
    namespace: { fixed: "nats-system" },
    enabled: "nats",
    needs: [],
    valuesKey: "nats",
    stateful: true,
    group: "dependencies",
  },
  {
    name: "cert-manager",
    plane: "control",
    chart: "helm-nvcf-cert-manager",
    versions: all("0.1.0"),
    namespace: { fixed: "cert-manager" },
    enabled: "certManager",
    needs: [],
    valuesKey: "cert-manager",
    group: "dependencies",
  },
  {
    name: "openbao-server",
    plane: "control",
    chart: "helm-nvcf-openbao-server",
    versions: { "0.6.1": "0.30.25", "0.7.0": "0.30.25", "0.8.0": "0.30.25" },
    namespace: { fixed: "vault-system" },
    enabled: "openbao",
    needs: [{ release: "nats", when: "nats" }],
    valuesKey: "openbao",
    stateful: true,
    group: "dependencies",
  },
  {
    name: "nvcf-pki",
    plane: "control",
    chart: "helm-nvcf-pki",
    versions: { "0.8.0": "0.1.0" },
    namespace: { fixed: "cert-manager" },
    enabled: "llmManagedPki",
    needs: [{ release: "openbao-server" }, { release: "cert-manager", when: "certManager" }],
    valuesKey: null,
    group: "dependencies",
  },
  {
    name: "cassandra",
    plane: "control",
    chart: "helm-nvcf-cassandra",
    versions: { "0.6.1": "0.18.0", "0.7.0": "0.17.0", "0.8.0": "0.20.1" },
    namespace: { fixed: "cassandra-system" },
    enabled: "cassandra",
    needs: [],
    valuesKey: "cassandra",
    stateful: true,
    group: "dependencies",
  },
  // Stage 2: core services.
  {
    name: "api-keys",
    plane: "control",
    chart: "helm-nvcf-api-keys",
    versions: all("1.6.0"),
    namespace: { fixed: "api-keys" },
    enabled: "always",
    needs: [],
    valuesKey: "apikeys",
    group: "services",
  },
  {
    name: "sis",
    plane: "control",
    chart: "helm-nvcf-sis",
    versions: { "0.6.1": "1.18.8", "0.7.0": "2.0.0", "0.8.0": "2.0.0" },
    namespace: { fixed: "sis" },
    enabled: "always",
    needs: [],
    valuesKey: "sis",
    group: "services",
  },
  {
    name: "api",
    plane: "control",
    chart: "helm-nvcf-api",
    versions: { "0.6.1": "1.23.9", "0.7.0": "1.23.9", "0.8.0": "1.25.1" },
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [{ release: "ess-api" }],
    valuesKey: "api",
    group: "services",
  },
  {
    name: "nvct-api",
    plane: "control",
    chart: "helm-nvcf-nvct-api",
    versions: all("1.4.3"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [],
    valuesKey: "nvctApi",
    group: "services",
  },
  {
    name: "invocation-service",
    plane: "control",
    chart: "helm-nvcf-invocation-service",
    versions: all("1.5.6"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [{ release: "api" }],
    valuesKey: "invocation",
    group: "services",
  },
  {
    name: "grpc-proxy",
    plane: "control",
    chart: "helm-nvcf-grpc-proxy",
    versions: { "0.6.1": "1.6.7", "0.7.0": "1.6.7", "0.8.0": "1.7.1" },
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [{ release: "api" }],
    valuesKey: "grpcproxy",
    group: "services",
  },
  {
    name: "ratelimiter",
    plane: "control",
    chart: "helm-nvcf-rate-limiter",
    versions: { "0.6.1": "1.0.3", "0.7.0": "1.1.0", "0.8.0": "1.1.0" },
    namespace: { fixed: "nvcf" },
    enabled: "rateLimiter",
    needs: [{ release: "api" }],
    valuesKey: "rateLimiter",
    group: "services",
  },
  {
    name: "ess-api",
    plane: "control",
    chart: "helm-nvcf-ess-api",
    versions: { "0.6.1": "1.6.1", "0.7.0": "1.7.0", "0.8.0": "1.7.2" },
    namespace: { fixed: "ess" },
    enabled: "always",
    needs: [],
    valuesKey: "ess",
    group: "services",
  },
  {
    name: "notary-service",
    plane: "control",
    chart: "helm-nvcf-notary-service",
    versions: all("1.4.2"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [],
    valuesKey: "notary",
    group: "services",
  },
  {
    // No `needs` on purpose: helmfile 1.1.9 layering made it wait on (and be skipped after) a slow sis (spec §1.3 note).
    name: "admin-issuer-proxy",
    plane: "control",
    chart: "helm-admin-token-issuer-proxy",
    versions: all("1.4.3"),
    namespace: { fixed: "api-keys" },
    enabled: "always",
    needs: [],
    valuesKey: "adminIssuerProxy",
    group: "services",
  },
  {
    name: "reval",
    plane: "control",
    chart: "helm-reval",
    versions: all("1.3.8"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [],
    valuesKey: "reval",
    group: "services",
  },
  {
    name: "nats-auth-callout-service",
    plane: "control",
    chart: "helm-nvcf-nats-auth-callout-service",
    versions: all("1.1.3"),
    namespace: { fixed: "nats-system" },
    enabled: "always",
    needs: [],
    valuesKey: null,
    group: "services",
  },
  {
    name: "llm-request-router",
    plane: "control",
    chart: "helm-nvcf-llm-request-router",
    versions: { "0.7.0": "1.6.6", "0.8.0": "1.7.2" },
    namespace: { fixed: "nvcf" },
    enabled: "llm",
    needs: [{ release: "api" }],
    valuesKey: "llmRequestRouter",
    group: "services",
  },
  {
    name: "llm-api-gateway",
    plane: "control",
    chart: "helm-nvcf-llm-api-gateway",
    versions: { "0.7.0": "1.0.1", "0.8.0": "1.4.1" },
    namespace: { fixed: "nvcf" },
    enabled: "llm",
    needs: [{ release: "llm-request-router" }],
    valuesKey: "llmApiGateway",
    group: "services",
  },
  {
    name: "vanity-gateway",
    plane: "control",
    chart: "helm-nvcf-vanity-gateway",
    versions: { "0.6.1": "0.1.0-nvcf-10204.1", "0.7.0": "0.1.0-nvcf-10204.1", "0.8.0": "0.3.0" },
    namespace: { fixed: "nvcf" },
    enabled: "vanityGateway",
    needs: [{ release: "invocation-service" }],
    valuesKey: "vanityGateway",
    group: "services",
  },
  {
    name: "nvcf-ui",
    plane: "control",
    chart: "helm-nvcf-ui",
    versions: { "0.7.0": "1.1.2", "0.8.0": "1.1.2" },
    namespace: { fixed: "nvcf-ui" },
    enabled: "nvcfUi",
    needs: [],
    valuesKey: "nvcfUi",
    group: "services",
  },
  {
    name: "ingress",
    plane: "control",
    chart: "nvcf-gateway-routes",
    versions: { "0.6.1": "1.14.0", "0.7.0": "1.15.0", "0.8.0": "1.15.0" },
    namespace: { fromConfig: "gatewayControllerNamespace" },
    enabled: "ingress",
    needs: [{ release: "notary-service" }, { release: "api-keys" }, { release: "nvcf-ui", when: "nvcfUi" }],
    valuesKey: "nvcfGatewayRoutes",
    group: "ingress",
  },
  // Stage 3: observability services.
  {
    name: "state-metrics",
    plane: "control",
    chart: "helm-nvcf-state-metrics",
    versions: { "0.6.1": "1.0.1", "0.7.0": "1.0.1", "0.8.0": "1.0.2" },
    namespace: { fixed: "nvcf" },
    enabled: "stateMetrics",
    needs: [],
    valuesKey: "stateMetrics",
    group: "observability",
  },
  {
    name: "function-autoscaler",
    plane: "control",
    chart: "helm-nvcf-function-autoscaler",
    versions: { "0.7.0": "0.1.0", "0.8.0": "0.2.1" },
    namespace: { fixed: "nvcf" },
    enabled: "functionAutoscaler",
    needs: [{ release: "state-metrics", when: "stateMetrics" }],
    valuesKey: "functionautoscaler",
    group: "observability",
  },
];

/** Compute-plane releases (spec §2.3). */
export const COMPUTE_PLANE_RELEASES: readonly ReleaseSpec[] = [
  {
    name: "kai-scheduler",
    plane: "compute",
    chart: "kai-scheduler",
    versions: all("v0.16.7"),
    namespace: { fixed: "kai-scheduler" },
    enabled: "kaiScheduler",
    needs: [],
    valuesKey: null,
    group: "workers",
  },
  {
    name: "nvcf-kai-topology",
    plane: "compute",
    chart: "nvcf-cluster-topology",
    versions: all("0.1.0"),
    namespace: { fixed: "nvca-operator" },
    enabled: "kaiTopology",
    needs: [{ release: "kai-scheduler" }],
    valuesKey: null,
    group: "workers",
  },
  {
    name: "grove-operator",
    plane: "compute",
    chart: "grove-charts",
    versions: all("v0.1.0-alpha.11"),
    namespace: { fixed: "grove-system" },
    enabled: "groveOperator",
    needs: [{ release: "kai-scheduler" }],
    valuesKey: null,
    group: "workers",
  },
  {
    name: "nvcf-grove-topology",
    plane: "compute",
    chart: "nvcf-cluster-topology",
    versions: all("0.1.0"),
    namespace: { fixed: "nvca-operator" },
    enabled: "groveTopology",
    needs: [{ release: "grove-operator" }, { release: "nvcf-kai-topology" }],
    valuesKey: null,
    group: "workers",
  },
  {
    name: "dynamo-operator",
    plane: "compute",
    chart: "dynamo-platform",
    versions: all("1.2.1"),
    namespace: { fixed: "dynamo-system" },
    enabled: "dynamoOperator",
    needs: [{ release: "grove-operator" }],
    valuesKey: null,
    group: "workers",
  },
  {
    name: "nvca-operator",
    plane: "compute",
    chart: "helm-nvca-operator",
    versions: { "0.6.1": "1.12.7", "0.7.0": "1.14.0", "0.8.0": "1.21.3" },
    namespace: { fixed: "nvca-operator" },
    enabled: "always",
    needs: [],
    valuesKey: null,
    group: "workers",
  },
];

/** Looks a release up by name in either plane. Throws when the name is unknown (a programming error). */
export function releaseSpec(name: string): ReleaseSpec {
  const spec = [...CONTROL_PLANE_RELEASES, ...COMPUTE_PLANE_RELEASES].find((r) => r.name === name);
  if (!spec) throw new Error(`unknown release "${name}"`);
  return spec;
}

/** The releases of a plane that are on for the given flags and exist in the bundle, in catalog order. */
export function enabledReleases(
  plane: Plane,
  bundle: BundleVersion,
  flags: Readonly<Record<EnableFlag, boolean>>,
): ReleaseSpec[] {
  const list = plane === "control" ? CONTROL_PLANE_RELEASES : COMPUTE_PLANE_RELEASES;
  return list.filter((r) => flags[r.enabled] && r.versions[bundle] !== undefined);
}

/**
 * The prerequisite edges in force for a release: its `needs` whose condition is on and whose target is
 * itself enabled. Returns release names.
 */
export function activeNeeds(spec: ReleaseSpec, flags: Readonly<Record<EnableFlag, boolean>>): string[] {
  return spec.needs.filter((n) => n.when === undefined || flags[n.when]).map((n) => n.release);
}

/**
 * Orders releases so that each comes after its active needs (stable: catalog order otherwise).
 * Throws when a need is not among the given releases (an enabled release needing a disabled one is a
 * catalog error) or on a cycle.
 */
export function inDependencyOrder(
  releases: readonly ReleaseSpec[],
  flags: Readonly<Record<EnableFlag, boolean>>,
): ReleaseSpec[] {
  const byName = new Map(releases.map((r) => [r.name, r]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: ReleaseSpec[] = [];
  const visit = (r: ReleaseSpec) => {
    if (done.has(r.name)) return;
    if (visiting.has(r.name)) throw new Error(`release dependency cycle through "${r.name}"`);
    visiting.add(r.name);
    for (const n of activeNeeds(r, flags)) {
      const dep = byName.get(n);
      if (!dep) throw new Error(`release "${r.name}" needs "${n}", which is not enabled`);
      visit(dep);
    }
    visiting.delete(r.name);
    done.add(r.name);
    out.push(r);
  };
  releases.forEach(visit);
  return out;
}

/**
 * The chart version to install: a per-release override (hot fix) when given, else the bundle's pin.
 * Throws when the bundle does not ship the release (callers check availability during validation first).
 */
export function chartVersion(
  spec: ReleaseSpec,
  bundle: BundleVersion,
  overrides: Readonly<Record<string, string>>,
): string {
  const v = overrides[spec.name] ?? spec.versions[bundle];
  if (v === undefined) throw new Error(`release "${spec.name}" is not part of NVCF bundle ${bundle}`);
  return v;
}
