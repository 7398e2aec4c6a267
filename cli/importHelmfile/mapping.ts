/**
 * From NVIDIA's Helmfile bundle files to this program's stack config (pure functions, no I/O).
 *
 * Inputs, as parsed YAML: the control plane's `environments/<env>.yaml` and `secrets/<env>-secrets.yaml`
 * (`deploy/stacks/self-managed`), a GPU cluster's compute-plane `environments/<env>.yaml`
 * (`deploy/stacks/nvcf-compute-plane`) and its `registration/<cluster>-register-values.yaml`. Output: the
 * `nvcf:` keys (plain and secret, separately) and one note per key found, saying where it went or why it
 * went nowhere. Every key of NVIDIA's `environments/base.yaml` (docs/upstream-facts.md §1.6 control plane,
 * §2.4 compute plane, per bundle) has a rule here: mapped to its `nvcf:` key, unmappable (with the reason),
 * or ignored because NVIDIA's own stack never passes it on (its `global.yaml.gotmpl`, §1.8, does not read it).
 * Keys equal to base.yaml's default are noted and not written (the program's defaults are base.yaml's).
 *
 * Secrets (docs/upstream-facts.md §1.10): the Cassandra password, the sidecar pull credential and the
 * account-bootstrap registry credentials are taken as they are, so nothing is rotated; the credentials are
 * base64(`user:key`) and are decoded to the plain key the program encodes again (config/credentials.ts).
 * Secret values never appear in a note or in `formatNotes`.
 */
import {
  type BundleVersion,
  CONTROL_PLANE_RELEASES,
  COMPUTE_PLANE_RELEASES,
  type ReleaseSpec,
} from "../../catalog/releases";
import {
  CASSANDRA_DEFAULT_PASSWORD,
  CREDENTIAL_PLACEHOLDER,
  NGC_USER,
  looksLikeEncodedAuth,
} from "../../config/credentials";
import { setPath, valueAt } from "../../config/paths";

/** What happened to one key of a Helmfile file. */
export type NoteStatus =
  /** Written to `target`. */
  | "mapped"
  /** Written to `target` as a Pulumi secret (the value is never shown). */
  | "secret"
  /** Equal to NVIDIA's base.yaml default, which is also the program's: nothing written. */
  | "default"
  /** Documented by NVIDIA, but the program has no place for it; `reason` says why and what to do. */
  | "unmappable"
  /** NVIDIA's own stack never passes it to a chart; `reason` says so. */
  | "ignored"
  /** Not a key NVIDIA's base.yaml documents (a typo or a local extension): not mapped. */
  | "unknown"
  /** Cannot be moved without changing the installation (e.g. two different passwords); the move is refused. */
  | "conflict";

/** One key found in a Helmfile file and what the mapping did with it. */
export interface Note {
  /** `env`, `secrets` or `registration`: the file the key was found in. */
  file: "env" | "secrets" | "registration";
  /** Dotted path in that file, e.g. `global.helm.sources.registry`, `openbao.migrations.env[DEFAULT_CASSANDRA_PASSWORD]`. */
  key: string;
  status: NoteStatus;
  /** The `nvcf:` key written (without the prefix), for `mapped`/`secret`. */
  target?: string;
  /** One sentence for the user, for every status but `mapped`/`secret`/`default`. */
  reason?: string;
}

/** The result of a mapping: config to write and what happened to every key. */
export interface Mapping {
  /** Plain `nvcf:` keys (without the prefix), top-level key → value (objects nested). */
  config: Record<string, unknown>;
  /** Secret `nvcf:` keys (without the prefix) → plain-text value; set with `secret: true`, never printed. */
  secrets: Record<string, string>;
  notes: Note[];
}

/** A GPU cluster's registration as `make register-cluster` wrote it (docs/upstream-facts.md §2.7). */
export interface RegistrationFile {
  clusterID: string;
  clusterGroupID: string;
  ncaID: string;
  region: string;
  selfManaged: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** Deep equality of YAML values (maps, lists, scalars). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameValue(a[k], b[k]));
  }
  return false;
}

/**
 * Decodes a raw docker registry auth string, base64(`user:key`), the form NVIDIA's secrets file uses
 * (docs/upstream-facts.md §1.10). Output: `{user, key}`. Throws (without the value in the message) when the
 * text is the template placeholder or not base64 of `user:key`.
 */
export function decodeDockerAuth(text: string): { user: string; key: string } {
  const t = text.trim();
  if (t.includes(CREDENTIAL_PLACEHOLDER))
    throw new Error(`it is still the template placeholder ${CREDENTIAL_PLACEHOLDER}`);
  if (!looksLikeEncodedAuth(t))
    throw new Error("it is not base64 of user:key (NVIDIA's secrets file wants the raw docker auth string)");
  const decoded = Buffer.from(t, "base64").toString("utf8");
  const at = decoded.indexOf(":");
  return { user: decoded.slice(0, at), key: decoded.slice(at + 1) };
}

// ---------------------------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------------------------

/** Context of one mapping run. */
interface Ctx {
  bundle: BundleVersion;
  config: Obj;
  secrets: Record<string, string>;
  notes: Note[];
  file: Note["file"];
  /** The whole file `applyRules` is mapping, for rules whose effect depends on another key of it. */
  doc?: unknown;
}

/** How one documented key is handled. */
interface Rule {
  /** Dotted path in the Helmfile file; the rule takes the whole value found there (map or list included). */
  path: string;
  /** Bundles whose base.yaml documents the key (default: all); in another bundle NVIDIA's stack ignores it. */
  bundles?: readonly BundleVersion[];
  /** base.yaml's default (per bundle when a function); a value equal to it is noted `default`. */
  default?: unknown;
  /** The `nvcf:` key it is written to (value as is), or a function doing the writing and noting. */
  to?: string | ((v: unknown, ctx: Ctx, key: string) => void);
  /** Documented, but the program has no place for it: why. */
  unmappable?: string;
  /** NVIDIA's stack never passes it on: why. */
  ignored?: string;
}

const note = (ctx: Ctx, n: Omit<Note, "file">): void => {
  ctx.notes.push({ file: ctx.file, ...n });
};
const put = (ctx: Ctx, key: string, target: string, v: unknown) => {
  setPath(ctx.config, target, clone(v));
  note(ctx, { key, status: "mapped", target });
};
const putSecret = (ctx: Ctx, key: string, target: string, v: string) => {
  ctx.secrets[target] = v;
  note(ctx, { key, status: "secret", target });
};

/** The values key of a release (catalog/releases.ts), for `releaseValues.<release>.<valuesKey>.<path>`. */
function releaseValuesPath(release: string, chartPath: string): string {
  const spec: ReleaseSpec | undefined = [...CONTROL_PLANE_RELEASES, ...COMPUTE_PLANE_RELEASES].find(
    (r) => r.name === release,
  );
  if (!spec) throw new Error(`unknown release ${release}`);
  return ["releaseValues", release, ...(spec.valuesKey ? [spec.valuesKey] : []), chartPath].join(".");
}

/** A rule writing the value into `releaseValues` of a release at the chart path NVIDIA's stack gives it. */
const rv =
  (release: string, chartPath: string) =>
  (v: unknown, ctx: Ctx, key: string): void =>
    put(ctx, key, releaseValuesPath(release, chartPath), v);

/** Not read by NVIDIA's stack: a PDB knob of a chart whose pinned version renders no PodDisruptionBudget. */
const noPdb = (chart: string) =>
  `${chart} has no PodDisruptionBudget template, so the value has no effect on the installation (the program leaves it out, docs/differences.md "Values only where the pinned chart reads them")`;

const PDB_OFF = { enabled: false, maxUnavailable: 1 };
const ONLY_080: readonly BundleVersion[] = ["0.8.0"];

/** A bool-or-string env value as NVIDIA's stack quotes it into the function-autoscaler env. */
const faEnv = (name: string) => (v: unknown, ctx: Ctx, key: string) =>
  put(ctx, key, `${releaseValuesPath("function-autoscaler", "env")}.${name}`, String(v));

/** Rules for the control plane's `environments/<env>.yaml` (sm/environments/base.yaml, docs/upstream-facts.md §1.6). */
export const CONTROL_RULES: readonly Rule[] = [
  { path: "global.domain", default: "localhost", to: "domain" },
  {
    path: "global.helm.sources",
    default: { registry: "nvcr.io", repository: "YOUR_ORG/YOUR_TEAM" },
    to: (v, ctx, key) => chartSources(v, ctx, key),
  },
  // No default on purpose: base.yaml's [] (no pull secret) is not the program's default, so it is always written.
  { path: "global.imagePullSecrets", to: (v, ctx, key) => pullSecrets(v, ctx, key) },
  { path: "global.image.registry", default: "nvcr.io", to: "images.registry" },
  { path: "global.image.repository", default: "YOUR_ORG/YOUR_TEAM", to: "images.repository" },
  ...[
    "nvcfServiceURL",
    "nvcfGrpcServiceURL",
    "nvcfNatsServiceURL",
    "essServiceURL",
    "nvctServiceURL",
    "nvctGrpcServiceURL",
    "invocationServiceURL",
    "grpcProxyWorkerConnectURL",
  ].map((k) => ({ path: `global.workerEndpoints.${k}`, default: "", to: `workerEndpoints.${k}` })),
  {
    path: "global.workerEndpoints.llmRequestRouterAddress",
    bundles: ONLY_080,
    default: "",
    to: "addons.llm.requestRouterAddress",
  },
  { path: "global.nodeSelectors.enabled", default: false, to: "placement.nodeSelectors.enabled" },
  { path: "global.nodeSelectors.all", to: "placement.nodeSelectors.all" },
  ...(["vault", "cassandra", "controlplane"] as const).map((t) => ({
    path: `global.nodeSelectors.${t}`,
    default: { key: "nvcf.nvidia.com/workload", value: t === "controlplane" ? "control-plane" : t },
    to: `placement.nodeSelectors.${t}`,
  })),
  {
    path: "global.nodeSelectors.worker",
    ignored:
      "no control-plane chart is given the worker selector (global.yaml.gotmpl only asks for vault, cassandra and controlplane); GPU-cluster placement is nvcf:placement.nodeSelector of the compute-plane stack",
  },
  { path: "global.tolerations.enabled", default: false, to: "placement.tolerations.enabled" },
  { path: "global.tolerations.all", default: [], to: "placement.tolerations.all" },
  ...(["vault", "cassandra", "controlplane"] as const).map((t) => ({
    path: `global.tolerations.${t}`,
    to: `placement.tolerations.${t}`,
  })),
  {
    path: "global.tolerations.worker",
    ignored:
      "no control-plane chart is given the worker tolerations (global.yaml.gotmpl only asks for vault, cassandra and controlplane); GPU-cluster tolerations are nvcf:placement.tolerations of the compute-plane stack",
  },
  { path: "global.storageClass", default: "", to: "storage.className" },
  { path: "global.storageSize", default: "10Gi", to: "storage.size" },
  { path: "global.observability.tracing.enabled", default: false, to: "observability.tracing.enabled" },
  {
    path: "global.observability.tracing.collectorEndpoint",
    default: "",
    to: "observability.tracing.collectorEndpoint",
  },
  {
    path: "global.observability.tracing.collectorPort",
    default: 4317,
    to: "observability.tracing.collectorPort",
  },
  {
    path: "global.observability.tracing.collectorProtocol",
    default: "http",
    to: "observability.tracing.collectorProtocol",
  },
  { path: "global.observability.metrics.enabled", default: false, to: "observability.metrics.enabled" },
  { path: "observability.profile", default: "control", to: "observability.profile" },
  { path: "observability.namespace", default: "monitoring", to: "observability.namespace" },
  { path: "functionAutoscaler.region", default: "local", to: faEnv("REGION") },
  {
    path: "functionAutoscaler.cassandra.contactPoints",
    default: "cassandra.cassandra-system.svc.cluster.local",
    to: faEnv("CASSANDRA__CONTACT_POINTS"),
  },
  {
    path: "functionAutoscaler.cassandra.isDevelopment",
    default: false,
    to: faEnv("CASSANDRA__IS_DEVELOPMENT"),
  },
  {
    path: "functionAutoscaler.nvcfApi.grpcAddress",
    default: "http://api.nvcf.svc.cluster.local:9090",
    to: faEnv("NVCF_API__NVCF_API_GRPC_ADDRESS"),
  },
  { path: "functionAutoscaler.nvcfApi.disableAuth", default: false, to: faEnv("NVCF_API__DISABLE_AUTH") },
  { path: "functionAutoscaler.nvcfApi.dryRun", default: false, to: faEnv("NVCF_API__DRY_RUN") },
  {
    path: "functionAutoscaler.timeseriesDb.ignoreEnv",
    default: true,
    to: faEnv("TIMESERIES_DB__IGNORE_ENV"),
  },
  {
    path: "functionAutoscaler.chartVersion",
    bundles: ["0.7.0"],
    default: "0.1.0",
    to: (v, ctx, key) => put(ctx, key, "charts.versionOverrides.function-autoscaler", String(v)),
  },
  ...["maxFunctions", "maxTasks", "maxTelemetries", "maxRegistryCreds"].map((k) => ({
    path: `accounts.limits.${k}`,
    default: 10,
    to: `accounts.limits.${k}`,
  })),
  { path: "nats.enabled", default: true, to: "nats.enabled" },
  {
    path: "nats.podDisruptionBudget",
    bundles: ONLY_080,
    default: { enabled: false, merge: { spec: { minAvailable: 2 } } },
    to: rv("nats", "podDisruptionBudget"),
  },
  { path: "cassandra.enabled", default: true, to: "cassandra.enabled" },
  { path: "cassandra.replicaCount", default: 3, to: "cassandra.replicas" },
  { path: "cassandra.resourcesPreset", default: "xlarge", to: "cassandra.preset" },
  {
    path: "cassandra.podDisruptionBudget",
    bundles: ONLY_080,
    default: { enabled: false, minAvailable: 2 },
    to: rv("cassandra", "podDisruptionBudget"),
  },
  { path: "certManager.enabled", default: true, to: "certManager.managed" },
  { path: "openbao.enabled", default: true, to: "openbao.enabled" },
  { path: "openbao.migrations.issuerDiscovery.enabled", default: false, to: "openbao.issuerDiscovery" },
  { path: "openbao.migrations.image.tag", default: "", to: "openbao.migrationsImageTag" },
  { path: "openbao.injector.replicas", default: 2, to: "openbao.injectorReplicas" },
  {
    path: "openbao.injector.webhook",
    default: { failurePolicy: "Ignore" },
    to: rv("openbao-server", "injector.webhook"),
  },
  {
    path: "openbao.injector.podDisruptionBudget.minAvailable",
    bundles: ONLY_080,
    default: 1,
    to: rv("openbao-server", "injector.podDisruptionBudget.minAvailable"),
  },
  {
    path: "openbao.server.ha.disruptionBudget",
    bundles: ONLY_080,
    default: { enabled: false, maxUnavailable: 1 },
    to: rv("openbao-server", "server.ha.disruptionBudget"),
  },
  { path: "addons.lls.enabled", default: false, to: "addons.lls.enabled" },
  { path: "addons.lls.hmacRotation.image.tag", default: "", to: "addons.lls.hmacRotation.image.tag" },
  { path: "addons.llm.enabled", default: false, to: "addons.llm.enabled" },
  { path: "addons.llm.pki.enabled", default: false, to: "addons.llm.pki.enabled" },
  { path: "addons.llm.pki.mode", bundles: ONLY_080, default: "certManager", to: "addons.llm.pki.mode" },
  { path: "addons.llm.pki.allowedDomains", default: "", to: "addons.llm.pki.allowedDomains" },
  { path: "addons.llm.pki.dnsNames", default: [], to: "addons.llm.pki.dnsNames" },
  { path: "addons.llm.pki.secretName", default: "stargate-quic-tls", to: "addons.llm.pki.secretName" },
  { path: "addons.llm.pki.issuerKind", default: "ClusterIssuer", to: "addons.llm.pki.issuerKind" },
  { path: "addons.llm.pki.issuerName", default: "nvcf-openbao-pki", to: "addons.llm.pki.issuerName" },
  {
    path: "addons.llm.pki.clusterIssuer.enabled",
    bundles: ONLY_080,
    to: "addons.llm.pki.manageClusterIssuer",
  },
  { path: "addons.llm.pki.image.tag", default: "", to: "addons.llm.pki.imageTag" },
  ...["namespace", "mountPath", "certPath", "keyPath"].map((k) => ({
    path: `addons.llm.pki.${k}`,
    unmappable: `the program keeps NVIDIA's default ${k} of the request router's certificate (vault-system, /etc/stargate/tls); to change it, set it under nvcf:releaseValues.llm-request-router after the move`,
  })),
  ...["registry", "repository"].map((k) => ({
    path: `addons.llm.pki.image.${k}`,
    unmappable: `the PKI job's image follows nvcf:images.registry/repository (nvcf-openbao-migrations); a separate ${k} has no key`,
  })),
  { path: "addons.vanityGateway.enabled", default: false, to: "addons.vanityGateway.enabled" },
  { path: "addons.vanityGateway.replicaCount", default: 2, to: "addons.vanityGateway.replicaCount" },
  {
    path: "addons.vanityGateway.mappingConfig",
    default: { v2config: { openai: {}, vanity: {} } },
    to: "addons.vanityGateway.mappingConfig",
  },
  { path: "addons.vanityGateway.image.tag", default: "", to: rv("vanity-gateway", "image.tag") },
  {
    path: "addons.vanityGateway.image.pullPolicy",
    default: "IfNotPresent",
    to: rv("vanity-gateway", "image.pullPolicy"),
  },
  ...(
    [
      ["mappingPath", "/etc/vanity-gateway/config/config.yaml"],
      ["nvcfApiEndpoint", "http://invocation.nvcf.svc.cluster.local:8080"],
      ["secretsPath", ""],
      ["privateModelNameRegexPattern", ""],
      ["awsRegion", ""],
      ["shadowMaxConcurrent", 256],
    ] as const
  ).map(([k, d]) => ({
    path: `addons.vanityGateway.config.${k}`,
    default: d,
    to: rv("vanity-gateway", `config.${k}`),
  })),
  {
    path: "addons.vanityGateway.serviceMonitor",
    default: { enabled: false, interval: "60s", labels: {} },
    to: rv("vanity-gateway", "serviceMonitor"),
  },
  ...[
    "service",
    "serviceAccount",
    "podAnnotations",
    "podLabels",
    "podSecurityContext",
    "securityContext",
    "resources",
    "affinity",
  ].map((k) => ({ path: `addons.vanityGateway.${k}`, default: {}, to: rv("vanity-gateway", k) })),
  {
    path: "addons.vanityGateway.nodeSelector",
    default: {},
    // global.yaml.gotmpl reads the add-on's own selector only while global.nodeSelectors is off; when it is on,
    // the gateway runs on the control-plane pool, which nvcf:placement.nodeSelectors already gives it.
    to: (v, ctx, key) =>
      valueAt(ctx.doc, "global.nodeSelectors.enabled") === true
        ? note(ctx, {
            key,
            status: "ignored",
            reason:
              "with global.nodeSelectors.enabled NVIDIA's stack pins the vanity gateway to the controlplane selector and never passes this one on",
          })
        : rv("vanity-gateway", "nodeSelector")(v, ctx, key),
  },
  { path: "addons.vanityGateway.tolerations", default: [], to: rv("vanity-gateway", "tolerations") },
  { path: "addons.nvcfUi.enabled", default: false, to: "addons.nvcfUi.enabled" },
  { path: "stateMetrics.enabled", default: true, to: "stateMetrics.enabled" },
  {
    path: "stateMetrics.serviceMonitor.enabled",
    default: false,
    ignored:
      "global.yaml.gotmpl writes stateMetrics.serviceMonitor.enabled: false whatever the environment says",
  },
  { path: "rateLimiter.enabled", default: true, to: "rateLimiter.enabled" },
  { path: "rateLimiter.replicaCount", default: 1, to: "rateLimiter.replicaCount" },
  {
    path: "rateLimiter.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    unmappable: noPdb("helm-nvcf-rate-limiter 1.1.0"),
  },
  {
    path: "apikeys.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    to: rv("api-keys", "podDisruptionBudget"),
  },
  {
    path: "ess.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    unmappable: noPdb("helm-nvcf-ess-api 1.7.2"),
  },
  {
    path: "invocation.env",
    default: { NATS_PROPERTIES__REGION: "local" },
    ignored:
      "global.yaml.gotmpl never reads invocation.env; the invocation service gets only the env it builds itself",
  },
  {
    path: "invocation.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    unmappable: noPdb("helm-nvcf-invocation-service 1.5.6"),
  },
  {
    path: "adminIssuerProxy.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    unmappable: noPdb("helm-admin-token-issuer-proxy 1.4.3"),
  },
  {
    path: "functionautoscaler.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    unmappable: noPdb("helm-nvcf-function-autoscaler 0.2.1"),
  },
  {
    path: "reval.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    to: rv("reval", "podDisruptionBudget"),
  },
  {
    path: "llmApiGateway.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    to: rv("llm-api-gateway", "podDisruptionBudget"),
  },
  {
    path: "llmRequestRouter.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    to: rv("llm-request-router", "podDisruptionBudget"),
  },
  {
    path: "ingress.gatewayApi.enabled",
    default: true,
    unmappable:
      "the program always installs the Gateway API routes (release ingress); an installation without them cannot be adopted as is",
  },
  { path: "ingress.gatewayApi.controllerNamespace", default: "", to: "gateway.controllerNamespace" },
  ...(["nvcfApi", "nvctApi"] as const).flatMap((r) => [
    {
      path: `ingress.gatewayApi.routes.${r}.grpc.enabled`,
      default: false,
      to: `gateway.routes.${r}Grpc.enabled`,
    },
    {
      path: `ingress.gatewayApi.routes.${r}.grpc.hostnames`,
      default: [],
      to: `gateway.routes.${r}Grpc.hostnames`,
    },
  ]),
  ...[
    "nvcfApi",
    "nvctApi",
    "apiKeys",
    "invocation",
    "llmInvocation",
    "vanityGateway",
    "nvcfUi",
    "grpc",
    "grpcWorker",
    "nats",
    "ess",
  ].map((r) => ({
    path: `ingress.gatewayApi.routes.${r}.routeAnnotations`,
    default: {},
    to: rv("ingress", `routes.${r}.routeAnnotations`),
  })),
  {
    path: "ingress.gatewayApi.routes.vanityGateway.hostnames",
    default: [],
    to: "addons.vanityGateway.hostnames",
  },
  {
    path: "ingress.gatewayApi.routes.grpcWorker.enabled",
    default: false,
    to: "gateway.routes.grpcWorker.enabled",
  },
  {
    path: "ingress.gatewayApi.routes.grpcWorker.listenerName",
    default: "worker-tcp",
    to: "gateway.routes.grpcWorker.listenerName",
  },
  { path: "ingress.gatewayApi.routes.nats.enabled", default: false, to: "gateway.routes.nats" },
  { path: "ingress.gatewayApi.routes.ess.enabled", default: false, to: "gateway.routes.ess" },
  ...(["shared", "grpc", "nats"] as const).flatMap((g) => [
    { path: `ingress.gatewayApi.gateways.${g}.name`, default: "", to: `gateway.${g}.name` },
    { path: `ingress.gatewayApi.gateways.${g}.namespace`, default: "", to: `gateway.${g}.namespace` },
  ]),
  { path: "ingress.gatewayApi.gateways.nats.listenerName", default: "nats", to: "gateway.nats.listenerName" },
  {
    path: "grpcproxy.podDisruptionBudget",
    bundles: ONLY_080,
    default: PDB_OFF,
    to: rv("grpc-proxy", "podDisruptionBudget"),
  },
  { path: "grpcproxy.nvcfGrpcServiceURL", default: "", to: "grpcproxy.nvcfGrpcServiceURL" },
  { path: "grpcproxy.workerConnectBaseURL", default: "", to: "grpcproxy.workerConnectBaseURL" },
];

/** `global.helm.sources`: OCI registry/repository, or an HTTPS url, with the pull credentials. */
function chartSources(v: unknown, ctx: Ctx, key: string): void {
  if (!isObj(v))
    return note(ctx, { key, status: "unknown", reason: "expected a map (registry/repository or url)" });
  for (const [k, val] of Object.entries(v)) {
    const sub = `${key}.${k}`;
    if (k === "registry" || k === "repository") {
      if (val === (k === "registry" ? "nvcr.io" : "YOUR_ORG/YOUR_TEAM") && v["url"] === undefined)
        note(ctx, { key: sub, status: "default" });
      else put(ctx, sub, `charts.${k}`, val);
    } else if (k === "url") {
      put(ctx, sub, "charts.url", val);
      setPath(ctx.config, "charts.source", "https");
    } else if (k === "username") put(ctx, sub, "charts.username", val);
    else if (k === "password") putSecret(ctx, sub, "chartRegistryPassword", String(val));
    else note(ctx, { key: sub, status: "unknown", reason: "not a chart-source setting of NVIDIA's stack" });
  }
  if (v["url"] === undefined && (v["registry"] !== undefined || v["repository"] !== undefined))
    setPath(ctx.config, "charts.source", "oci");
}

/** `global.imagePullSecrets`: the program references one pull secret by name (and creates it, when it has the key). */
function pullSecrets(v: unknown, ctx: Ctx, key: string): void {
  const list = Array.isArray(v) ? v : [];
  if (list.length === 0) {
    put(ctx, key, "pullSecret.name", null);
    return;
  }
  const names = list.map((e) => (isObj(e) ? String(e["name"] ?? "") : String(e)));
  put(ctx, `${key}[0].name`, "pullSecret.name", names[0]);
  for (const [i, n] of names.slice(1).entries())
    note(ctx, {
      key: `${key}[${i + 1}].name`,
      status: "unmappable",
      reason: `the program references one pull secret (nvcf:pullSecret.name = ${names[0]}); ${n} is no longer referenced by the charts`,
    });
}

/** Rules for a compute-plane `environments/<env>.yaml` (cmp/environments/base.yaml, docs/upstream-facts.md §2.4). */
export const COMPUTE_RULES: readonly Rule[] = [
  {
    path: "global.helm.sources",
    default: { registry: "nvcr.io", repository: "YOUR_ORG/YOUR_TEAM" },
    to: (v, ctx, key) => chartSources(v, ctx, key),
  },
  ...["registry", "repository"].map((k) => ({
    path: `global.image.${k}`,
    unmappable: `a compute-plane stack takes the image mirror from its control plane (nvcf:images.${k} there, read through the stack reference); check that it is the same value`,
  })),
  { path: "global.imagePullSecrets", to: (v: unknown, ctx: Ctx, key: string) => pullSecrets(v, ctx, key) },
  {
    path: "global.nvcaOperator.imageTag",
    default: (b: BundleVersion) => (b === "0.8.0" ? "3.2.7" : undefined),
    to: "nvcaOperator.imageTag",
  },
  {
    path: "global.nvcaOperator.selfManaged.nvcaVersion",
    default: (b: BundleVersion) => (b === "0.8.0" ? "3.2.7" : undefined),
    to: "nvcaOperator.nvcaVersion",
  },
  {
    path: "global.nvcaOperator.selfManaged.otelCollector.imageTag",
    default: (b: BundleVersion) => (b === "0.8.0" ? "0.157.9" : undefined),
    to: "nvcaOperator.otelCollectorImageTag",
  },
  {
    path: "global.nvcaOperator.selfManaged.otelCollector.imageRepository",
    to: "nvcaOperator.otelCollectorImageRepository",
  },
  {
    path: "global.nvcaOperator.selfManaged.otelCollector.enabled",
    unmappable:
      "the collector is on exactly when nvcf:observability.profile is compute or all (as NVIDIA's default); set the profile instead",
  },
  ...["icmsServiceURL", "revalServiceURL", "natsURL"].map((k) => ({
    path: `global.nvcaOperator.selfManaged.${k}`,
    default: "",
    unmappable: `the program passes the control plane's gateway URL (its stack output) as ${k}; a per-cluster URL has no key`,
  })),
  ...["icmsServiceHostHeaderOverride", "revalServiceHostHeaderOverride", "natsHostOverride"].map((k) => ({
    path: `global.nvcaOperator.selfManaged.${k}`,
    default: "",
    to: (_v: unknown, ctx: Ctx, key: string) => {
      put(ctx, key, "nvcaOperator.hostHeaderOverrides", true);
      ctx.notes[ctx.notes.length - 1].reason =
        `the program sets ${k} from the control plane's route hostnames (nvcf:nvcaOperator.hostHeaderOverrides); the given value is not kept`;
    },
  })),
  { path: "global.nvcaOperator.selfManaged.featureGateValues", default: [], to: "nvcaOperator.featureGates" },
  {
    path: "global.nvcaOperator.selfManaged.imageCredHelper.imageTag",
    to: rv("nvca-operator", "selfManaged.imageCredHelper.imageTag"),
  },
  {
    path: "global.nvcaOperator.selfManaged.sharedStorage.imageTag",
    to: rv("nvca-operator", "selfManaged.sharedStorage.imageTag"),
  },
  { path: "global.nvcaOperator.agent.tolerations", default: [], to: "nvcaOperator.agentTolerations" },
  {
    path: "global.nvcaOperator.agent.workload.tolerations",
    default: [],
    to: "nvcaOperator.workloadTolerations",
  },
  {
    path: "global.nodeSelector",
    default: { enabled: false },
    to: (v, ctx, key) => {
      const o = isObj(v) ? v : {};
      if (o["enabled"] === true)
        put(ctx, key, "placement.nodeSelector", { key: o["key"], value: o["value"] });
      else note(ctx, { key, status: "default" });
    },
  },
  { path: "global.tolerations", default: [], to: "placement.tolerations" },
  { path: "observability.profile", default: "compute", to: "observability.profile" },
  {
    path: "addons.topologyAwareScheduling.enabled",
    bundles: ONLY_080,
    default: false,
    to: "addons.topologyAwareScheduling.enabled",
  },
  {
    path: "addons.topologyAwareScheduling.topologies",
    bundles: ONLY_080,
    default: [
      {
        name: "nvcf-mnnvl-topology",
        levels: [{ nodeLabel: "nvidia.com/gpu.clique" }, { nodeLabel: "kubernetes.io/hostname" }],
      },
    ],
    to: "addons.topologyAwareScheduling.topologies",
  },
  {
    path: "addons.kaiScheduler.enabled",
    bundles: ONLY_080,
    default: false,
    to: "addons.kaiScheduler.enabled",
  },
  ...[
    "operator",
    "podgrouper",
    "podgroupcontroller",
    "binder",
    "scheduler",
    "queuecontroller",
    "admission",
    "nodescaleadjuster",
    "numaPlacementExporter",
  ].map((c) => ({
    path: `addons.kaiScheduler.${c}.resources`,
    bundles: ONLY_080,
    to: `releaseValues.kai-scheduler.${c}.resources`,
  })),
  { path: "addons.groveOperator.enabled", default: false, to: "addons.groveOperator.enabled" },
  { path: "addons.groveOperator.network", default: {}, to: "addons.groveOperator.network" },
  {
    path: "addons.groveOperator.topologyAwareScheduling",
    bundles: ["0.7.0"],
    default: {},
    to: rv("grove-operator", "config.topologyAwareScheduling"),
  },
  { path: "addons.dynamoOperator.enabled", default: false, to: "addons.dynamoOperator.enabled" },
  { path: "agentConfig.mergeConfig", to: "releaseValues.nvca-operator.agentConfig.mergeConfig" },
  { path: "networkPolicy", to: "releaseValues.nvca-operator.networkPolicy" },
];

/**
 * Applies `rules` to one parsed file. A rule takes the whole value at its path; maps without a rule are
 * walked; a value no rule covers is noted `unknown`. Keys absent from the file stay at the program's
 * defaults (which are base.yaml's).
 */
function applyRules(doc: unknown, rules: readonly Rule[], ctx: Ctx): void {
  ctx.doc = doc;
  const byPath = new Map(rules.map((r) => [r.path, r]));
  const prefixes = new Set(
    rules.flatMap((r) => r.path.split(".").map((_, i, a) => a.slice(0, i + 1).join("."))),
  );
  const walk = (v: unknown, path: string[]) => {
    const key = path.join(".");
    const rule = byPath.get(key);
    if (rule) return applyRule(rule, v, ctx, key);
    if (isObj(v) && (path.length === 0 || prefixes.has(key))) {
      for (const [k, sub] of Object.entries(v)) walk(sub, [...path, k]);
      return;
    }
    note(ctx, {
      key,
      status: "unknown",
      reason:
        "not a key of NVIDIA's environments/base.yaml for this stack; not mapped (set nvcf:releaseValues by hand if a chart should get it)",
    });
  };
  walk(doc ?? {}, []);
}

function applyRule(rule: Rule, v: unknown, ctx: Ctx, key: string): void {
  if (rule.bundles && !rule.bundles.includes(ctx.bundle))
    return note(ctx, {
      key,
      status: "ignored",
      reason: `NVIDIA's ${ctx.bundle} stack does not read it (documented from bundle ${rule.bundles.join(", ")})`,
    });
  const def =
    typeof rule.default === "function"
      ? (rule.default as (b: BundleVersion) => unknown)(ctx.bundle)
      : rule.default;
  if (rule.ignored) return note(ctx, { key, status: "ignored", reason: rule.ignored });
  if (def !== undefined && sameValue(v, def)) return note(ctx, { key, status: "default" });
  if (rule.unmappable) return note(ctx, { key, status: "unmappable", reason: rule.unmappable });
  if (typeof rule.to === "string") put(ctx, key, rule.to, v);
  else if (rule.to) rule.to(v, ctx, key);
}

// ---------------------------------------------------------------------------------------------------------
// Secrets file
// ---------------------------------------------------------------------------------------------------------

/** A live pull secret's credential, when the adoption step could read it (it wins over the secrets file). */
export interface PullCredential {
  username: string;
  password: string;
}

/**
 * Maps `secrets/<env>-secrets.yaml`: the Cassandra password(s), the sidecar pull credential and the account
 * bootstrap's registry credentials (docs/upstream-facts.md §1.10). `pull` is the live pull secret's
 * credential (preferred source of `registryKey` and `pullSecret.username`).
 */
function mapSecrets(doc: unknown, ctx: Ctx, pull: PullCredential | undefined): void {
  const s = isObj(doc) ? doc : {};
  const cassandraPw = new Map<string, string>();
  let sidecar: { user: string; key: string } | undefined;
  let sidecarNote: Note | undefined;
  const fnNotes: Note[] = [];
  const handled = new Set([
    "openbao.migrations.env",
    "cassandra.serviceRolePassword",
    "cassandra.dbUser",
    "api.accountBootstrap.registryCredentials",
    "global.helm.sources.password",
  ]);

  const env = valueAt(s, "openbao.migrations.env");
  for (const e of Array.isArray(env) ? env : []) {
    const name = isObj(e) ? String(e["name"] ?? "") : "";
    const value = isObj(e) ? String(e["value"] ?? "") : "";
    const key = `openbao.migrations.env[${name}]`;
    if (name === "DEFAULT_CASSANDRA_PASSWORD") cassandraPw.set(key, value);
    else if (name === "NVCF_API_SIDECARS_IMAGE_PULL_SECRET") {
      try {
        sidecar = decodeDockerAuth(value);
        note(ctx, { key, status: "secret", target: "sidecarRegistryKey" });
        sidecarNote = ctx.notes[ctx.notes.length - 1];
      } catch (err) {
        note(ctx, {
          key,
          status: "conflict",
          reason: `the sidecar credential cannot be decoded: ${(err as Error).message}`,
        });
      }
    } else if (name === "ADMIN_CLIENT_ID") {
      if (value === "ncp") note(ctx, { key, status: "default" });
      else
        note(ctx, {
          key,
          status: "conflict",
          reason: `the program always uses ADMIN_CLIENT_ID ncp (NVIDIA's template says to keep it); the installation uses another value`,
        });
    } else
      note(ctx, { key, status: "unknown", reason: "not an entry of NVIDIA's secrets template; not mapped" });
  }
  const srp = valueAt(s, "cassandra.serviceRolePassword");
  if (srp !== undefined) cassandraPw.set("cassandra.serviceRolePassword", String(srp));
  const pws = [...new Set(cassandraPw.values())];
  if (pws.length === 1) {
    const [first, ...rest] = [...cassandraPw.keys()];
    putSecret(ctx, first, "cassandraPassword", pws[0]);
    for (const k of rest) note(ctx, { key: k, status: "secret", target: "cassandraPassword" });
    if (pws[0] === CASSANDRA_DEFAULT_PASSWORD)
      ctx.notes[ctx.notes.length - 1].reason =
        "the installation still uses the chart's built-in Cassandra password; kept so nothing is rotated, change it deliberately later";
  } else if (pws.length > 1)
    for (const k of cassandraPw.keys())
      note(ctx, {
        key: k,
        status: "conflict",
        reason:
          "DEFAULT_CASSANDRA_PASSWORD and cassandra.serviceRolePassword differ; the program feeds one nvcf:cassandraPassword to both, so one of them would be rotated",
      });
  const dbUser = valueAt(s, "cassandra.dbUser");
  if (dbUser !== undefined)
    putSecretReleaseValue(ctx, "cassandra.dbUser", releaseValuesPath("cassandra", "dbUser"), dbUser);

  const pw = valueAt(s, "global.helm.sources.password");
  if (pw !== undefined) putSecret(ctx, "global.helm.sources.password", "chartRegistryPassword", String(pw));

  // Account-bootstrap registry credentials: one function key for all of them.
  const creds = valueAt(s, "api.accountBootstrap.registryCredentials");
  const out: Obj[] = [];
  const keys = new Set<string>();
  for (const [i, c] of (Array.isArray(creds) ? creds : []).entries()) {
    const key = `api.accountBootstrap.registryCredentials[${i}]`;
    if (!isObj(c)) continue;
    const secret = isObj(c["secret"]) ? c["secret"] : {};
    let dec: { user: string; key: string };
    try {
      dec = decodeDockerAuth(String(secret["value"] ?? ""));
    } catch (err) {
      note(ctx, {
        key: `${key}.secret.value`,
        status: "conflict",
        reason: `cannot be decoded: ${(err as Error).message}`,
      });
      continue;
    }
    keys.add(dec.key);
    const tags = c["tags"];
    out.push({
      registryHostname: c["registryHostname"],
      secretName: secret["name"],
      artifactTypes: c["artifactTypes"],
      username: dec.user,
      description: c["description"] ?? "",
      ...(Array.isArray(tags) && tags.length > 0 ? { tags } : {}),
    });
    note(ctx, { key, status: "mapped", target: `accounts.registryCredentials[${out.length - 1}]` });
    note(ctx, { key: `${key}.secret.value`, status: "secret", target: "functionRegistryKey" });
    fnNotes.push(ctx.notes[ctx.notes.length - 1]);
  }
  if (keys.size > 1)
    note(ctx, {
      key: "api.accountBootstrap.registryCredentials",
      status: "conflict",
      reason:
        "the credentials use different keys; the program encodes every account-bootstrap credential from one nvcf:functionRegistryKey",
    });
  if (out.length > 0) setPath(ctx.config, "accounts.registryCredentials", out);
  else if (Array.isArray(creds)) setPath(ctx.config, "accounts.registryCredentials", []);

  // Which plain key is the registry key, and which are extra keys.
  const registryKey = pull?.password ?? sidecar?.key ?? [...keys][0];
  if (registryKey !== undefined) ctx.secrets["registryKey"] = registryKey;
  if (sidecar && sidecar.key !== registryKey) ctx.secrets["sidecarRegistryKey"] = sidecar.key;
  const fnKey = [...keys][0];
  if (fnKey !== undefined && fnKey !== registryKey) ctx.secrets["functionRegistryKey"] = fnKey;
  // A credential holding the registry key itself is kept as nvcf:registryKey (the program's fallback for both).
  if (sidecarNote && sidecar?.key === registryKey) sidecarNote.target = "registryKey";
  for (const n of fnNotes) if (fnKey === registryKey) n.target = "registryKey";
  if (pull)
    note(ctx, {
      key: "live pull secret (global.imagePullSecrets[0])",
      status: "secret",
      target: "registryKey",
    });
  const registry = String(valueAt(ctx.config, "images.registry") ?? "nvcr.io");
  const pullUser = pull?.username ?? (registry === "nvcr.io" ? NGC_USER : sidecar?.user);
  if (pullUser !== undefined && pullUser !== NGC_USER) setPath(ctx.config, "pullSecret.username", pullUser);
  // The program encodes the sidecar credential with NGC's user on nvcr.io, else with the pull-secret user.
  const expectedUser = registry === "nvcr.io" ? NGC_USER : (pullUser ?? NGC_USER);
  if (sidecar && sidecar.user !== expectedUser)
    note(ctx, {
      key: "openbao.migrations.env[NVCF_API_SIDECARS_IMAGE_PULL_SECRET]",
      status: "conflict",
      reason: `the sidecar credential's user differs from the one the program encodes it with (${registry === "nvcr.io" ? "NGC's $oauthtoken on nvcr.io" : "nvcf:pullSecret.username"}), so it would change`,
    });
  const pullKnown = registryKey !== undefined;
  if (valueAt(ctx.config, "pullSecret.name") !== null) setPath(ctx.config, "pullSecret.create", pullKnown);

  for (const [k, v] of Object.entries(flattenTop(s)))
    if (
      ![...handled].some((h) => k === h || k.startsWith(`${h}.`) || h.startsWith(`${k}.`)) &&
      v !== undefined
    )
      note(ctx, {
        key: k,
        status: "unknown",
        reason: "not an entry of NVIDIA's secrets template; not mapped (nothing is printed of its value)",
      });
}

/** A credential that must reach a chart through releaseValues: `releaseValues` is then set as a secret. */
function putSecretReleaseValue(ctx: Ctx, key: string, target: string, v: unknown): void {
  setPath(ctx.config, target, clone(v));
  ctx.secrets["__releaseValuesIsSecret"] = "true";
  note(ctx, { key, status: "secret", target });
}

/** Leaf paths of a document (lists are leaves). */
function flattenTop(doc: Obj, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (isObj(v)) Object.assign(out, flattenTop(v, p));
    else out[p] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------------------

/** One GPU cluster the control plane registered, as the control-plane import is told about it. */
export interface GpuClusterInput {
  name: string;
  registration: RegistrationFile;
  /** Kubeconfig context of the GPU cluster (for its registration record). */
  context?: string;
}

/**
 * Maps a control-plane installation. Input: the parsed environment file (the user's overlay of base.yaml),
 * the parsed secrets file, the bundle, the GPU clusters with their registration files, and the live pull
 * secret's credential when known. Output: a `Mapping` with `plane: control` and `bundleVersion` set.
 * Never throws on a bad key: every problem is a note (`conflict` notes make the move refuse).
 */
export function mapControlPlane(input: {
  env: unknown;
  secrets?: unknown;
  bundle: BundleVersion;
  gpuClusters?: GpuClusterInput[];
  pullCredential?: PullCredential;
}): Mapping {
  const ctx: Ctx = {
    bundle: input.bundle,
    config: { plane: "control", bundleVersion: input.bundle },
    secrets: {},
    notes: [],
    file: "env",
  };
  applyRules(input.env, CONTROL_RULES, ctx);
  ctx.file = "secrets";
  if (input.secrets !== undefined) mapSecrets(input.secrets, ctx, input.pullCredential);
  ctx.file = "registration";
  const clusters = input.gpuClusters ?? [];
  if (clusters.length > 0) {
    const ncaIds = [...new Set(clusters.map((c) => c.registration.ncaID || "nvcf-default"))];
    if (ncaIds.length > 1)
      note(ctx, {
        key: "ncaID",
        status: "conflict",
        reason: `the registrations name different NCA ids (${ncaIds.join(", ")}); one control-plane stack has one nvcf:ncaId`,
      });
    if (ncaIds[0] !== "nvcf-default") setPath(ctx.config, "ncaId", ncaIds[0]);
    ctx.config["gpuClusters"] = clusters.map((c) => {
      note(ctx, {
        key: `${c.name}: clusterID, clusterGroupID`,
        status: "mapped",
        target: `gpuClusters[name=${c.name}].registered`,
      });
      return {
        name: c.name,
        region: c.registration.region || "us-west-1",
        ...(c.context ? { context: c.context } : {}),
        registered: { clusterID: c.registration.clusterID, clusterGroupID: c.registration.clusterGroupID },
      };
    });
  }
  return finish(ctx);
}

/**
 * Maps one GPU cluster's compute-plane installation. Input: the parsed compute environment file, the
 * registration file, the bundle, the control-plane stack (`<org>/<project>/<stack>`) and the cluster name.
 * Output: a `Mapping` with `plane: compute`. The registration itself is adopted by the control-plane stack
 * (`gpuClusters[].registered`); here only its region is checked against the control plane's.
 */
export function mapComputePlane(input: {
  env: unknown;
  registration?: RegistrationFile;
  bundle: BundleVersion;
  controlPlaneStack: string;
  clusterName: string;
  pullCredential?: PullCredential;
}): Mapping {
  const ctx: Ctx = {
    bundle: input.bundle,
    config: {
      plane: "compute",
      bundleVersion: input.bundle,
      controlPlaneStack: input.controlPlaneStack,
      clusterName: input.clusterName,
    },
    secrets: {},
    notes: [],
    file: "env",
  };
  applyRules(input.env, COMPUTE_RULES, ctx);
  if (valueAt(ctx.config, "pullSecret.name")) {
    // The live pull secret's key is kept (the stack's own nvcf:registryKey); without one the secret is the user's.
    const pc = input.pullCredential;
    setPath(ctx.config, "pullSecret.create", pc !== undefined);
    if (pc) {
      ctx.secrets["registryKey"] = pc.password;
      if (pc.username !== NGC_USER) setPath(ctx.config, "pullSecret.username", pc.username);
      ctx.notes.push({
        file: "env",
        key: "global.imagePullSecrets (live secret)",
        status: "secret",
        target: "registryKey",
      });
    }
  }
  if (input.registration) {
    ctx.file = "registration";
    for (const k of Object.keys(input.registration)) {
      if (k === "clusterID" || k === "clusterGroupID" || k === "ncaID" || k === "region")
        note(ctx, {
          key: k,
          status: "mapped",
          target: `gpuClusters[name=${input.clusterName}] of the control-plane stack`,
        });
      else if (k === "selfManaged")
        note(ctx, {
          key: k,
          status: "ignored",
          reason:
            "the operator gets the control plane's gateway URLs (its stack outputs), which win over the registration file's, as NVIDIA's environment URLs do",
        });
      else if (k === "clusterName") note(ctx, { key: k, status: "mapped", target: "clusterName" });
      else
        note(ctx, {
          key: k,
          status: "unknown",
          reason: "not a field nvcf-cli cluster register prints; not mapped",
        });
    }
  }
  return finish(ctx);
}

function finish(ctx: Ctx): Mapping {
  if (
    valueAt(ctx.config, "pullSecret.name") === undefined &&
    !ctx.notes.some((n) => n.key.startsWith("global.imagePullSecrets"))
  ) {
    // base.yaml's `imagePullSecrets: []`: no pull secret is referenced (the program's own default names one).
    setPath(ctx.config, "pullSecret.name", null);
    ctx.notes.push({
      file: "env",
      key: "global.imagePullSecrets (not set: base.yaml's [])",
      status: "mapped",
      target: "pullSecret.name",
    });
  }
  return { config: ctx.config, secrets: ctx.secrets, notes: ctx.notes };
}

/** True when the mapping has a conflict: the move must not go on. */
export const hasConflicts = (m: Mapping): boolean => m.notes.some((n) => n.status === "conflict");

/**
 * The mapping as `pulumi config` would store it: top-level `nvcf:` key → raw string (objects as JSON), as
 * `config/load.ts` `validateConfig` takes it, and the set of keys that are secrets.
 */
export function rawConfig(m: Mapping): { raw: Record<string, string>; secretKeys: Set<string> } {
  const raw: Record<string, string> = {};
  const secretKeys = new Set<string>();
  for (const [k, v] of Object.entries(m.config)) raw[k] = typeof v === "string" ? v : JSON.stringify(v);
  for (const [k, v] of Object.entries(m.secrets)) {
    if (k.startsWith("__")) continue;
    raw[k] = v;
    secretKeys.add(k);
  }
  if (m.secrets["__releaseValuesIsSecret"] && "releaseValues" in raw) secretKeys.add("releaseValues");
  return { raw, secretKeys };
}

const LABEL: Record<NoteStatus, string> = {
  mapped: "mapped",
  secret: "secret",
  default: "default",
  unmappable: "NOT MAPPED",
  ignored: "ignored",
  unknown: "unknown",
  conflict: "CONFLICT",
};

/**
 * The notes as lines for the user, grouped by status (conflicts first). Secret notes name only the target
 * key, never a value; no note carries a value at all.
 */
export function formatNotes(notes: readonly Note[]): string[] {
  const order: NoteStatus[] = ["conflict", "unmappable", "ignored", "unknown", "secret", "mapped", "default"];
  const lines: string[] = [];
  for (const st of order) {
    for (const n of notes.filter((x) => x.status === st)) {
      const where = `${n.file === "env" ? "" : `${n.file}: `}${n.key}`;
      if (st === "mapped")
        lines.push(
          `  ${LABEL[st].padEnd(10)} ${where} → nvcf:${n.target}${n.reason ? ` (${n.reason})` : ""}`,
        );
      else if (st === "secret")
        lines.push(
          `  ${LABEL[st].padEnd(10)} ${where} → nvcf:${n.target} (set with --secret, value not shown)${n.reason ? `; ${n.reason}` : ""}`,
        );
      else if (st === "default")
        lines.push(`  ${LABEL[st].padEnd(10)} ${where} (base.yaml's default, which the program also uses)`);
      else lines.push(`  ${LABEL[st].padEnd(10)} ${where}: ${n.reason}`);
    }
  }
  return lines;
}
