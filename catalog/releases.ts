/**
 * The release catalog: every Helm release the control plane and the compute plane install, as data.
 *
 * One entry per release gives its chart, the pinned chart version for each supported NVCF bundle version,
 * its namespace, when it is enabled, its prerequisites (the `needs` edges) and the top-level values key its
 * chart reads. A reader finds any release's chart, version, namespace and prerequisites here in one hop; its
 * values are built by the function of the same name in `values/control.ts` or `values/compute.ts` (the
 * observability releases, which both planes install, by `values/observability.ts`).
 *
 * Facts: docs/upstream-facts.md §1.3 (releases), §1.4 (dependency DAG), §2.3 (compute releases),
 * §5.2 (chart versions by source). Bundle 0.8.0 is the HEAD train of the repository, 0.7.0 the
 * `deploy/stacks/self-managed/v0.7.0` tag, 0.6.1 the docs v0.6.1 artifact manifest.
 */

/**
 * The Pulumi type token of @pulumi/kubernetes' Helm release resource, which every release of this catalog is
 * deployed as (components/release.ts `NvcfRelease` wraps one): the CLI and the policy pack find releases by it.
 */
export const RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";

/** NVCF bundle versions this program can install (docs/upstream-facts.md §5.2). */
export const BUNDLE_VERSIONS = ["0.6.1", "0.7.0", "0.8.0"] as const;
export type BundleVersion = (typeof BUNDLE_VERSIONS)[number];

/** Which kind of stack installs a release. */
export type Plane = "control" | "compute";

/**
 * What one enable flag says about the config (pure data; `config/flags.ts` computes the flags).
 * - `switch`: the boolean config key that alone decides the flag (`nats.enabled`): `config/flags.ts` reads it
 *   for the plane of the flag's releases, so such a flag needs no code there.
 * - `by`: how a user turns it on, as the refusals print it (`config/rules/releaseValues.ts`); default
 *   `nvcf:<switch>`. Required without a switch (the flag is then computed by hand in `config/flags.ts`).
 * - `addon`: the flag's releases are optional add-ons that not every bundle ships; the key named (`true`: the
 *   switch) being on with a bundle that lacks the flag's first release is refused (`config/rules/addons.ts`).
 */
export interface FlagSpec {
  switch?: string;
  by?: string;
  addon?: true | string;
}

/**
 * The settings that switch releases on and off, by name (`stackReleases` in `config/stackReleases.ts` turns a
 * config into the releases it installs). Sources: the `condition`s of NVIDIA's helmfiles (control
 * plane `deploy/stacks/self-managed/helmfile.d/`, compute plane `deploy/stacks/nvcf-compute-plane/helmfile.d/`,
 * observability `deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl`; docs/upstream-facts.md
 * §2.3), and for add-ons the bundles that ship them (§5.2).
 */
export const ENABLE_FLAGS = {
  always: { by: "always on" },
  observabilityEnabled: {
    by: "nvcf:observability.profile: not disabled on the control plane; compute or all on a GPU cluster (with nvcf:observability.install not false)",
  },
  prometheusOperatorCrdsInstall: { by: "nvcf:observability.components.prometheusOperatorCrds install" },
  otelOperatorInstall: { by: "nvcf:observability.components.otelOperator install" },
  metricsBackendInstall: { by: "nvcf:observability.metricsBackend.mode install" },
  collectorInstall: { by: "nvcf:observability.components.collector install" },
  nats: { switch: "nats.enabled" },
  certManager: { switch: "certManager.managed" },
  openbao: { switch: "openbao.enabled" },
  llmManagedPki: { by: "nvcf:addons.llm.pki with a managed ClusterIssuer" },
  cassandra: { switch: "cassandra.enabled" },
  rateLimiter: { switch: "rateLimiter.enabled" },
  llm: { switch: "addons.llm.enabled", addon: true },
  vanityGateway: { switch: "addons.vanityGateway.enabled", addon: true },
  nvcfUi: { switch: "addons.nvcfUi.enabled", addon: true },
  ingress: { by: "always on" },
  stateMetrics: { switch: "stateMetrics.enabled" },
  functionAutoscaler: { by: "nvcf:observability.profile control or all" },
  kaiScheduler: { switch: "addons.kaiScheduler.enabled", addon: true },
  kaiTopology: {
    by: "nvcf:addons.topologyAwareScheduling.enabled with nvcf:addons.kaiScheduler.enabled",
    addon: "addons.topologyAwareScheduling.enabled",
  },
  groveOperator: { switch: "addons.groveOperator.enabled", addon: true },
  groveTopology: { by: "nvcf:addons.topologyAwareScheduling.enabled with nvcf:addons.groveOperator.enabled" },
  dynamoOperator: { switch: "addons.dynamoOperator.enabled", addon: true },
} as const satisfies Record<string, FlagSpec>;

/** The name of a setting that switches releases on and off (a key of `ENABLE_FLAGS`). */
export type EnableFlag = keyof typeof ENABLE_FLAGS;

/** The flags `config/flags.ts` computes by hand: those without a `switch`. */
export type ComputedFlag = {
  [F in EnableFlag]: (typeof ENABLE_FLAGS)[F] extends { switch: string } ? never : F;
}[EnableFlag];

/** How a user turns a flag on, as refusals print it (`by`, else `nvcf:<switch>`). */
export function enabledBy(flag: EnableFlag): string {
  const f: FlagSpec = ENABLE_FLAGS[flag];
  return f.by ?? `nvcf:${f.switch}`;
}

/** Where a release's namespace comes from: a fixed name, or a config setting resolved at run time. */
export type NamespaceRef =
  | { fixed: string }
  | { fromConfig: "gatewayControllerNamespace" | "observabilityNamespace" };

/** A release's prerequisite: another release of the same plane, and the flag under which the edge exists. */
export interface Need {
  release: string;
  /** The edge exists only when this flag is on (the target is optional, e.g. "(if installed)"). */
  when?: EnableFlag;
  /**
   * Why the release cannot start without the target, from the charts (e.g. "pods carry OpenBao agent-injection
   * annotations") or NVIDIA's helmfile `needs`. Every control-plane edge has one (tests/unit/catalog/releases.test.ts).
   */
  reason?: string;
  /**
   * What the release needs of the target, in one word (`NEED_KINDS`): the short label of the edge in the
   * graph picture (cli/graph.ts), whose full text is `reason`. Every edge has one (tests/unit/catalog/releases.test.ts).
   */
  kind: NeedKind;
}

/**
 * The kinds of prerequisite, each with what it means; `nvcf graph` labels an edge with its kind and lists the
 * kinds in its legend (docs/graph.md).
 */
export const NEED_KINDS = {
  helmfile: "NVIDIA's helmfile declares the need (`needs:`)",
  CRD: "the release creates objects of a CRD (or webhook) the target installs",
  webhook: "the target's admission webhook must be up before the release's pods are created",
  schema: "the release opens a database schema the target's hook creates",
  secret: "the release reads credentials or keys the target writes",
  object: "the release names an object the target creates",
  scheduler: "the release hands its pods to a scheduler the target installs",
  API: "a step calls the target's API",
  route: "traffic reaches the target through routes on the Gateway",
  node: "a node setting the target makes must be in place first",
} as const;
/** One word naming what a release needs of its prerequisite (`NEED_KINDS`). */
export type NeedKind = keyof typeof NEED_KINDS;

/** One Helm release of the catalog. */
export interface ReleaseSpec {
  /** Helm release name (also the Pulumi resource name suffix). Fixed: OpenBao bound claims depend on it (docs/upstream-facts.md §4 row 17). */
  name: string;
  /**
   * The kinds of stack that install it: one plane for most releases; both for the observability stack, which
   * NVIDIA installs once per cluster (`deploy/stacks/observability/README.md`) on the control-plane cluster
   * and on each GPU cluster. Such a release is one entry (one chart, version, namespace rule and set of edges),
   * listed in `CONTROL_PLANE_RELEASES` and in `COMPUTE_PLANE_RELEASES`; each stack decides from its own config
   * whether it installs it (`enabledFlags` of the plane).
   */
  planes: readonly Plane[];
  /** Chart name inside the chart source (`oci://<registry>/<repository>/<chart>`, an HTTPS repo, or a local directory). */
  chart: string;
  /** Pinned chart version per bundle; a bundle without the release omits it (the release is then unavailable). */
  versions: Partial<Record<BundleVersion, string>>;
  namespace: NamespaceRef;
  enabled: EnableFlag;
  needs: Need[];
  /** Top-level values key the chart reads (docs/upstream-facts.md §1.3 "Key"); `null` for charts that read flat values. */
  valuesKey: string | null;
  /** Holds state that must survive (protected from deletion outside dev stacks). */
  stateful?: boolean;
  /**
   * Install-only hook Jobs of the chart (the names it gives them under this release name) that change nothing
   * and so may run again when recovery installs the release afresh after an interrupted install had run them.
   * Every other install-only hook Job counts as initialising data: recovery refuses to install its release a
   * second time once it has completed (recovery/plan.ts `planRelease`, docs/recovery.md).
   */
  rerunnableInstallHooks?: string[];
}

const all = (v: string): Record<BundleVersion, string> => ({ "0.6.1": v, "0.7.0": v, "0.8.0": v });
/** A chart of NVIDIA's observability stack: shipped from bundle 0.7.0 on (0.6.1 has no observability stack). */
const observabilityBundles = (v: string): Partial<Record<BundleVersion, string>> => ({
  "0.7.0": v,
  "0.8.0": v,
});

/**
 * Kinds and reasons of the shared `needs` edges. `hf`: NVIDIA's helmfile declares the edge (`needs:` in
 * `deploy/stacks/self-managed/helmfile.d/*` and `deploy/stacks/observability/helmfile.d/*`); the others are
 * found in the charts and migrations named in each text.
 */
const WHY = {
  hf: {
    kind: "helmfile",
    reason: "NVIDIA's helmfile declares this need",
  },
  inject: {
    kind: "webhook",
    reason:
      "its pod template carries vault.hashicorp.com/agent-inject annotations; the injector webhook fails open " +
      "(failurePolicy Ignore), so pods created before OpenBao's injector run without their secrets",
  },
  cassandra: {
    kind: "schema",
    reason:
      "it opens its keyspace at start; helm-nvcf-cassandra's post-install migrations hook creates the keyspaces " +
      "(migrations/cassandra/keyspaces: api_keys_api, sis_api, nvcf_api, nvct_api, ess_api, nvcf_autoscaler)",
  },
  natsKeys: {
    kind: "secret",
    reason:
      "the OpenBao migrations job copies the NATS nkey Secrets of nats-system into OpenBao " +
      "(migrations/openbao 03_setup_shared_secrets.sh; helm-nvcf-nats nkey-bao-access-rbac.yaml)",
  },
  pkiIssuer: {
    kind: "API",
    reason: "the ClusterIssuer signs through OpenBao's PKI and logs in with OpenBao's JWT auth",
  },
  certManagerCrds: {
    kind: "CRD",
    reason: "the chart creates a cert-manager ClusterIssuer (cert-manager's CRD)",
  },
  monitorCrds: {
    kind: "CRD",
    reason: "it creates ServiceMonitor/PodMonitor objects (monitoring.coreos.com CRDs)",
  },
  collectorCr: {
    kind: "CRD",
    reason: "it creates an OpenTelemetryCollector object (the operator's CRD and webhook)",
  },
  calloutCreds: {
    kind: "secret",
    reason:
      "its vault-agent sidecar reads the auth-callout credentials the OpenBao migrations write " +
      "(migrations/openbao 19_setup_nats-auth-callout.sh; helm-nvcf-nats nats-auth-callout-nkeys-secret.yaml)",
  },
  routerIssuer: {
    kind: "object",
    reason: "its Certificate names the ClusterIssuer nvcf-openbao-pki that nvcf-pki creates",
  },
  uiOpenbao: {
    kind: "webhook",
    reason:
      "its pods are agent-injected (the stack adds the nvcf-ui namespace to the injector's namespace selector) " +
      "and its OpenBao migrations job writes to OpenBao",
  },
} satisfies Record<string, { kind: NeedKind; reason: string }>;

/** Releases whose chart templates carry OpenBao agent-injection annotations wait for the injector. */
const NEEDS_OPENBAO_INJECTOR: Need = { release: "openbao-server", when: "openbao", ...WHY.inject };
/** Releases that read a Cassandra keyspace at start wait for the Cassandra release (and its schema hook). */
const NEEDS_CASSANDRA_SCHEMA: Need = { release: "cassandra", when: "cassandra", ...WHY.cassandra };

/** The observability releases are installed by both kinds of stack (one per cluster, see `ReleaseSpec.planes`). */
const BOTH_PLANES: readonly Plane[] = ["control", "compute"];

/**
 * NVIDIA's observability stack (`deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl`, the same
 * file at HEAD and at the v0.7.0 tag): the control plane installs it as its stage 0 (the self-managed stack's
 * `00-observability-infrastructure` includes it), each GPU cluster as NVIDIA's compute-cluster acceptance feature
 * does (`tests/bdd/features/observability-compute.feature`: the same helmfile with profile `compute`, on the GPU
 * cluster). Bundle 0.6.1 has no such stack (its documentation leaves observability to the user:
 * `docs/v0.6.1/observability.md`, and its artifact manifest `docs/v0.6.1/manifest.md` lists none of these charts).
 */
export const OBSERVABILITY_RELEASES: readonly ReleaseSpec[] = [
  {
    name: "prometheus-operator-crds",
    planes: BOTH_PLANES,
    chart: "prometheus-operator-crds",
    versions: observabilityBundles("30.0.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "prometheusOperatorCrdsInstall",
    needs: [],
    valuesKey: null,
  },
  {
    name: "opentelemetry-operator",
    planes: BOTH_PLANES,
    chart: "opentelemetry-operator",
    versions: observabilityBundles("0.114.1"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "otelOperatorInstall",
    needs: [{ release: "prometheus-operator-crds", when: "prometheusOperatorCrdsInstall", ...WHY.hf }],
    valuesKey: null,
  },
  {
    name: "victoria-metrics",
    planes: BOTH_PLANES,
    chart: "victoria-metrics-single",
    versions: observabilityBundles("0.38.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "metricsBackendInstall",
    // Not a helmfile `needs`: the stack turns the chart's ServiceMonitor on, which fails to install before
    // the monitoring.coreos.com CRDs exist (NVIDIA's stage-0 file runs both side by side).
    needs: [
      { release: "prometheus-operator-crds", when: "prometheusOperatorCrdsInstall", ...WHY.monitorCrds },
    ],
    valuesKey: null,
    stateful: true,
  },
  {
    name: "otel-collector",
    planes: BOTH_PLANES,
    chart: "nvcf-otel-collector",
    // Stack-local: `version` of deploy/stacks/observability/charts/nvcf-otel-collector/Chart.yaml (HEAD and v0.7.0).
    versions: observabilityBundles("0.2.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "collectorInstall",
    needs: [
      { release: "opentelemetry-operator", when: "otelOperatorInstall", ...WHY.collectorCr },
      { release: "prometheus-operator-crds", when: "prometheusOperatorCrdsInstall", ...WHY.monitorCrds },
      { release: "victoria-metrics", when: "metricsBackendInstall", ...WHY.hf },
    ],
    valuesKey: null,
  },
  {
    name: "default-monitors",
    planes: BOTH_PLANES,
    chart: "nvcf-default-monitors",
    // Stack-local: `version` of deploy/stacks/observability/charts/nvcf-default-monitors/Chart.yaml (HEAD and v0.7.0).
    versions: observabilityBundles("0.2.0"),
    namespace: { fromConfig: "observabilityNamespace" },
    enabled: "observabilityEnabled",
    needs: [
      { release: "prometheus-operator-crds", when: "prometheusOperatorCrdsInstall", ...WHY.monitorCrds },
    ],
    valuesKey: null,
  },
];

/** Control-plane releases in Helmfile order (docs/upstream-facts.md §1.3; edges: the `needs` reasons). */
export const CONTROL_PLANE_RELEASES: readonly ReleaseSpec[] = [
  // Stage 0: observability infrastructure ([OBS] sub-helmfile).
  ...OBSERVABILITY_RELEASES,
  // Stage 1: dependencies.
  {
    name: "nats",
    planes: ["control"],
    chart: "helm-nvcf-nats",
    versions: all("0.7.1"),
    namespace: { fixed: "nats-system" },
    enabled: "nats",
    needs: [],
    valuesKey: "nats",
    stateful: true,
  },
  {
    name: "cert-manager",
    planes: ["control"],
    chart: "helm-nvcf-cert-manager",
    versions: all("0.1.0"),
    namespace: { fixed: "cert-manager" },
    enabled: "certManager",
    needs: [],
    valuesKey: "cert-manager",
    // cert-manager's post-install `startupapicheck` Job runs `check api`: it waits until the API server accepts
    // a dry-run Certificate (CRDs and webhook reachable) and persists nothing (upstream chart
    // templates/startupapicheck-job.yaml, which NVIDIA's wrapper chart includes as its subchart).
    rerunnableInstallHooks: ["cert-manager-startupapicheck"],
  },
  {
    name: "openbao-server",
    planes: ["control"],
    chart: "helm-nvcf-openbao-server",
    versions: { "0.6.1": "0.30.25", "0.7.0": "0.30.25", "0.8.0": "0.30.25" },
    namespace: { fixed: "vault-system" },
    enabled: "openbao",
    needs: [{ release: "nats", when: "nats", ...WHY.natsKeys }],
    valuesKey: "openbao",
    stateful: true,
  },
  {
    name: "nvcf-pki",
    planes: ["control"],
    chart: "helm-nvcf-pki",
    versions: { "0.8.0": "0.1.0" },
    namespace: { fixed: "cert-manager" },
    enabled: "llmManagedPki",
    needs: [
      { release: "openbao-server", ...WHY.pkiIssuer },
      { release: "cert-manager", when: "certManager", ...WHY.certManagerCrds },
    ],
    valuesKey: null,
  },
  {
    name: "cassandra",
    planes: ["control"],
    chart: "helm-nvcf-cassandra",
    versions: { "0.6.1": "0.18.0", "0.7.0": "0.17.0", "0.8.0": "0.20.1" },
    namespace: { fixed: "cassandra-system" },
    enabled: "cassandra",
    needs: [],
    valuesKey: "cassandra",
    stateful: true,
  },
  // Stage 2: core services.
  {
    name: "api-keys",
    planes: ["control"],
    chart: "helm-nvcf-api-keys",
    versions: all("1.6.0"),
    namespace: { fixed: "api-keys" },
    enabled: "always",
    needs: [NEEDS_OPENBAO_INJECTOR, NEEDS_CASSANDRA_SCHEMA],
    valuesKey: "apikeys",
  },
  {
    name: "sis",
    planes: ["control"],
    chart: "helm-nvcf-sis",
    versions: { "0.6.1": "1.18.8", "0.7.0": "2.0.0", "0.8.0": "2.0.0" },
    namespace: { fixed: "sis" },
    enabled: "always",
    needs: [NEEDS_OPENBAO_INJECTOR, NEEDS_CASSANDRA_SCHEMA],
    valuesKey: "sis",
  },
  {
    name: "api",
    planes: ["control"],
    chart: "helm-nvcf-api",
    versions: { "0.6.1": "1.23.9", "0.7.0": "1.23.9", "0.8.0": "1.25.1" },
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [{ release: "ess-api", ...WHY.hf }, NEEDS_OPENBAO_INJECTOR, NEEDS_CASSANDRA_SCHEMA],
    valuesKey: "api",
  },
  {
    name: "nvct-api",
    planes: ["control"],
    chart: "helm-nvcf-nvct-api",
    versions: all("1.4.3"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [NEEDS_OPENBAO_INJECTOR, NEEDS_CASSANDRA_SCHEMA],
    valuesKey: "nvctApi",
  },
  {
    name: "invocation-service",
    planes: ["control"],
    chart: "helm-nvcf-invocation-service",
    versions: all("1.5.6"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [{ release: "api", ...WHY.hf }, NEEDS_OPENBAO_INJECTOR],
    valuesKey: "invocation",
  },
  {
    name: "grpc-proxy",
    planes: ["control"],
    chart: "helm-nvcf-grpc-proxy",
    versions: { "0.6.1": "1.6.7", "0.7.0": "1.6.7", "0.8.0": "1.7.1" },
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [{ release: "api", ...WHY.hf }, NEEDS_OPENBAO_INJECTOR],
    valuesKey: "grpcproxy",
  },
  {
    name: "ratelimiter",
    planes: ["control"],
    chart: "helm-nvcf-rate-limiter",
    versions: { "0.6.1": "1.0.3", "0.7.0": "1.1.0", "0.8.0": "1.1.0" },
    namespace: { fixed: "nvcf" },
    enabled: "rateLimiter",
    needs: [{ release: "api", ...WHY.hf }, NEEDS_OPENBAO_INJECTOR],
    valuesKey: "rateLimiter",
  },
  {
    name: "ess-api",
    planes: ["control"],
    chart: "helm-nvcf-ess-api",
    versions: { "0.6.1": "1.6.1", "0.7.0": "1.7.0", "0.8.0": "1.7.2" },
    namespace: { fixed: "ess" },
    enabled: "always",
    needs: [NEEDS_OPENBAO_INJECTOR, NEEDS_CASSANDRA_SCHEMA],
    valuesKey: "ess",
  },
  {
    name: "notary-service",
    planes: ["control"],
    chart: "helm-nvcf-notary-service",
    versions: all("1.4.2"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [NEEDS_OPENBAO_INJECTOR],
    valuesKey: "notary",
  },
  {
    // No need on sis (NVIDIA declares none; helmfile 1.1.9 layering made it wait on a slow sis): only the injector.
    name: "admin-issuer-proxy",
    planes: ["control"],
    chart: "helm-admin-token-issuer-proxy",
    versions: all("1.4.3"),
    namespace: { fixed: "api-keys" },
    enabled: "always",
    needs: [NEEDS_OPENBAO_INJECTOR],
    valuesKey: "adminIssuerProxy",
  },
  {
    name: "reval",
    planes: ["control"],
    chart: "helm-reval",
    versions: all("1.3.8"),
    namespace: { fixed: "nvcf" },
    enabled: "always",
    needs: [],
    valuesKey: "reval",
  },
  {
    name: "nats-auth-callout-service",
    planes: ["control"],
    chart: "helm-nvcf-nats-auth-callout-service",
    versions: all("1.1.3"),
    namespace: { fixed: "nats-system" },
    enabled: "always",
    needs: [{ release: "openbao-server", when: "openbao", ...WHY.calloutCreds }],
    valuesKey: null,
  },
  {
    name: "llm-request-router",
    planes: ["control"],
    chart: "helm-nvcf-llm-request-router",
    versions: { "0.7.0": "1.6.6", "0.8.0": "1.7.2" },
    namespace: { fixed: "nvcf" },
    enabled: "llm",
    needs: [
      { release: "api", ...WHY.hf },
      NEEDS_OPENBAO_INJECTOR,
      { release: "nvcf-pki", when: "llmManagedPki", ...WHY.routerIssuer },
    ],
    valuesKey: "llmRequestRouter",
  },
  {
    name: "llm-api-gateway",
    planes: ["control"],
    chart: "helm-nvcf-llm-api-gateway",
    versions: { "0.7.0": "1.0.1", "0.8.0": "1.4.1" },
    namespace: { fixed: "nvcf" },
    enabled: "llm",
    needs: [{ release: "llm-request-router", ...WHY.hf }, NEEDS_OPENBAO_INJECTOR],
    valuesKey: "llmApiGateway",
  },
  {
    name: "vanity-gateway",
    planes: ["control"],
    chart: "helm-nvcf-vanity-gateway",
    versions: { "0.6.1": "0.1.0-nvcf-10204.1", "0.7.0": "0.1.0-nvcf-10204.1", "0.8.0": "0.3.0" },
    namespace: { fixed: "nvcf" },
    enabled: "vanityGateway",
    needs: [{ release: "invocation-service", ...WHY.hf }],
    valuesKey: "vanityGateway",
  },
  {
    name: "nvcf-ui",
    planes: ["control"],
    chart: "helm-nvcf-ui",
    versions: { "0.7.0": "1.1.2", "0.8.0": "1.1.2" },
    namespace: { fixed: "nvcf-ui" },
    enabled: "nvcfUi",
    needs: [{ release: "openbao-server", when: "openbao", ...WHY.uiOpenbao }],
    valuesKey: "nvcfUi",
  },
  {
    name: "ingress",
    planes: ["control"],
    chart: "nvcf-gateway-routes",
    versions: { "0.6.1": "1.14.0", "0.7.0": "1.15.0", "0.8.0": "1.15.0" },
    namespace: { fromConfig: "gatewayControllerNamespace" },
    enabled: "ingress",
    needs: [
      { release: "notary-service", ...WHY.hf },
      { release: "api-keys", ...WHY.hf },
      { release: "nvcf-ui", when: "nvcfUi", ...WHY.hf },
    ],
    valuesKey: "nvcfGatewayRoutes",
  },
  // Stage 3: observability services.
  {
    name: "state-metrics",
    planes: ["control"],
    chart: "helm-nvcf-state-metrics",
    versions: { "0.6.1": "1.0.1", "0.7.0": "1.0.1", "0.8.0": "1.0.2" },
    namespace: { fixed: "nvcf" },
    enabled: "stateMetrics",
    needs: [],
    valuesKey: "stateMetrics",
  },
  {
    name: "function-autoscaler",
    planes: ["control"],
    chart: "helm-nvcf-function-autoscaler",
    versions: { "0.7.0": "0.1.0", "0.8.0": "0.2.1" },
    namespace: { fixed: "nvcf" },
    enabled: "functionAutoscaler",
    needs: [
      { release: "state-metrics", when: "stateMetrics", ...WHY.hf },
      NEEDS_OPENBAO_INJECTOR,
      NEEDS_CASSANDRA_SCHEMA,
    ],
    valuesKey: "functionautoscaler",
  },
];

/**
 * Compute-plane releases (docs/upstream-facts.md §2.3; NVIDIA's `deploy/stacks/nvcf-compute-plane/helmfile.d/*`
 * at HEAD for 0.8.0 and at `deploy/stacks/self-managed/v0.7.0` for 0.7.0; `docs/user/manifest.md` for 0.6.1).
 * 0.6.1 ships only the operator (chart 1.12.7); 0.7.0 adds Grove (alpha.9) and Dynamo, but no KAI scheduler
 * and no topology chart; 0.8.0 ships all six. Each GPU cluster also gets NVIDIA's observability stack
 * (`OBSERVABILITY_RELEASES`, 0.7.0 and 0.8.0), first, as NVIDIA's compute-cluster feature installs it before
 * the compute-plane stack; no compute release waits for it (the monitors find their targets by label whenever
 * they appear).
 */
export const COMPUTE_PLANE_RELEASES: readonly ReleaseSpec[] = [
  ...OBSERVABILITY_RELEASES,
  {
    name: "kai-scheduler",
    planes: ["compute"],
    chart: "kai-scheduler",
    versions: { "0.8.0": "v0.16.7" },
    namespace: { fixed: "kai-scheduler" },
    enabled: "kaiScheduler",
    needs: [],
    valuesKey: null,
  },
  {
    name: "nvcf-kai-topology",
    planes: ["compute"],
    chart: "nvcf-cluster-topology",
    versions: { "0.8.0": "0.1.0" },
    namespace: { fixed: "nvca-operator" },
    enabled: "kaiTopology",
    needs: [
      {
        release: "kai-scheduler",
        kind: "CRD",
        reason: "the chart creates kai.scheduler/v1alpha1 Topology objects, whose CRD the KAI chart installs",
      },
    ],
    valuesKey: null,
  },
  {
    name: "grove-operator",
    planes: ["compute"],
    chart: "grove-charts",
    versions: { "0.7.0": "v0.1.0-alpha.9", "0.8.0": "v0.1.0-alpha.11" },
    namespace: { fixed: "grove-system" },
    enabled: "groveOperator",
    needs: [
      {
        release: "kai-scheduler",
        when: "kaiScheduler",
        kind: "scheduler",
        reason:
          "Grove hands its pod gangs to the kai-scheduler profile (NVIDIA's 0.8.0 `needs`; 0.7.0 ships no KAI)",
      },
    ],
    valuesKey: null,
  },
  {
    name: "nvcf-grove-topology",
    planes: ["compute"],
    chart: "nvcf-cluster-topology",
    versions: { "0.8.0": "0.1.0" },
    namespace: { fixed: "nvca-operator" },
    enabled: "groveTopology",
    needs: [
      {
        release: "grove-operator",
        kind: "CRD",
        reason: "the chart creates grove.io ClusterTopologyBindings, whose CRD Grove installs",
      },
      {
        release: "nvcf-kai-topology",
        kind: "object",
        reason: "each binding references a KAI Topology object by name",
      },
    ],
    valuesKey: null,
  },
  {
    name: "dynamo-operator",
    planes: ["compute"],
    chart: "dynamo-platform",
    versions: { "0.7.0": "1.2.1", "0.8.0": "1.2.1" },
    namespace: { fixed: "dynamo-system" },
    enabled: "dynamoOperator",
    needs: [
      {
        release: "grove-operator",
        kind: "CRD",
        reason:
          "Dynamo runs its graphs as Grove PodCliqueSets and is told Grove is already installed (global.grove)",
      },
    ],
    valuesKey: null,
  },
  {
    name: "nvca-operator",
    planes: ["compute"],
    chart: "helm-nvca-operator",
    versions: { "0.6.1": "1.12.7", "0.7.0": "1.14.0", "0.8.0": "1.21.3" },
    namespace: { fixed: "nvca-operator" },
    enabled: "always",
    needs: [],
    valuesKey: null,
  },
];

/** Every release of the catalog once (a release of both planes appears once), control plane first. */
export const ALL_RELEASES: readonly ReleaseSpec[] = [
  ...CONTROL_PLANE_RELEASES,
  ...COMPUTE_PLANE_RELEASES.filter((r) => !CONTROL_PLANE_RELEASES.includes(r)),
];

/** The releases a plane can install, in catalog order. */
export function planeReleases(plane: Plane): readonly ReleaseSpec[] {
  return plane === "control" ? CONTROL_PLANE_RELEASES : COMPUTE_PLANE_RELEASES;
}

/** Looks a release up by name in either plane. Throws when the name is unknown (a programming error). */
export function releaseSpec(name: string): ReleaseSpec {
  const spec = ALL_RELEASES.find((r) => r.name === name);
  if (!spec) throw new Error(`unknown release "${name}"`);
  return spec;
}

/** The namespaces a stack's config names for the releases that take theirs from config (`NamespaceRef`). */
export type ConfigNamespaces = Partial<
  Record<"gatewayControllerNamespace" | "observabilityNamespace", string>
>;

/**
 * The namespaces a stack's validated config names (any plane's config: the structural fields read here):
 * the observability namespace on both planes, the gateway controller's on the control plane.
 */
export function configNamespaces(cfg: {
  observability: { namespace: string };
  gateway?: { controllerNamespace: string };
}): ConfigNamespaces {
  return {
    observabilityNamespace: cfg.observability.namespace,
    ...(cfg.gateway ? { gatewayControllerNamespace: cfg.gateway.controllerNamespace } : {}),
  };
}

/**
 * The namespace a release goes into: its fixed one, else the one the stack's config names. Input: the release
 * and the stack's config namespaces. Output: the namespace name. Throws when the release takes its namespace
 * from a setting the stack does not have (a programming error: e.g. the gateway namespace on a GPU cluster).
 */
export function resolveNamespace(spec: ReleaseSpec, settings: ConfigNamespaces): string {
  if ("fixed" in spec.namespace) return spec.namespace.fixed;
  const ns = settings[spec.namespace.fromConfig];
  if (ns === undefined)
    throw new Error(
      `release "${spec.name}" takes its namespace from ${spec.namespace.fromConfig}, which is not set`,
    );
  return ns;
}

/**
 * The releases of a plane that are on for the given flags and exist in the bundle, in catalog order. A catalog
 * primitive: what a stack installs is `stackReleases` (config/stackReleases.ts), which calls it.
 */
export function enabledReleases(
  plane: Plane,
  bundle: BundleVersion,
  flags: Readonly<Record<EnableFlag, boolean>>,
): ReleaseSpec[] {
  return planeReleases(plane).filter((r) => flags[r.enabled] && r.versions[bundle] !== undefined);
}

/**
 * The prerequisite edges in force for a release: its `needs` without a condition or whose condition is on,
 * each with its kind and reason.
 */
export function activeNeedSpecs(spec: ReleaseSpec, flags: Readonly<Record<EnableFlag, boolean>>): Need[] {
  return spec.needs.filter((n) => n.when === undefined || flags[n.when]);
}

/** The release names of `activeNeedSpecs`. */
export function activeNeeds(spec: ReleaseSpec, flags: Readonly<Record<EnableFlag, boolean>>): string[] {
  return activeNeedSpecs(spec, flags).map((n) => n.release);
}

/**
 * Orders releases so that each comes after its active needs (stable: catalog order otherwise).
 * Throws when a need is not among the given releases (an enabled release needing a disabled one is a
 * catalog error) or on a cycle. A catalog primitive: `stackReleases` (config/stackReleases.ts) orders a stack's
 * releases with it.
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

/**
 * Whether a chart version is at least `min`, comparing dotted numbers (a leading `v` and a pre-release or build
 * suffix are ignored, a missing or non-numeric part counts as 0). Input: the version found (a catalog pin or a
 * hot-fix override) and the least version a value or layout needs. Output: true when `version >= min`.
 */
export function versionAtLeast(version: string, min: string): boolean {
  const parse = (v: string) =>
    v
      .replace(/^v/, "")
      .split(/[-+]/)[0]
      .split(".")
      .map((n) => Number(n) || 0);
  const a = parse(version);
  const b = parse(min);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}
