/**
 * The nvcf policies (CrossGuard, `@pulumi/policy`): every one is mandatory unless the policy config says
 * otherwise (docs/policy-and-ci.md). Each violation message names the resource, the value found and the fix.
 *
 * Facts: release names, charts, versions per bundle, fixed namespaces and which releases hold state come from
 * the release catalog (catalog/releases.ts); dev stacks are named as config/stackName.ts `isDevStack` says; route
 * hostnames are rendered as config/routes.ts `httpRouteHostnames` says; upstream third-party images are
 * values/images.ts `UPSTREAM`.
 */
import type {
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import {
  COMPUTE_PLANE_RELEASES,
  CONTROL_PLANE_RELEASES,
  RELEASE_TYPE,
  type ReleaseSpec,
} from "../catalog/releases";
import type { ControlPlaneConfig } from "../config/schema";
import { UPSTREAM } from "../values/images";
import { httpRouteHostnames } from "../config/routes";
import { type ImageRef, imageRefs, isUnknown, leaves, plain, rawProps } from "./inputs";
import {
  type StackSettings,
  isDev,
  resolveSettings,
  settingsFor,
  analyzerConfig,
  stackOfUrn,
} from "./settings";

const SECRET_TYPE = "kubernetes:core/v1:Secret";
const STACK_REFERENCE_TYPE = "pulumi:pulumi:StackReference";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const known = (v: unknown): v is string => typeof v === "string" && !isUnknown(v);

/** A Helm release's inputs as the policies read them (secrets kept recognisable, see policy/inputs.ts). */
interface ReleaseProps {
  /** Pulumi resource name, e.g. `nvcf-cassandra`. */
  resource: string;
  urn: string;
  /** Helm release name (the catalog's name), chart, version, namespace; undefined while unknown. */
  name?: string;
  chart?: string;
  version?: string;
  namespace?: string;
  /** `values` in the engine's encoding (secret leaves wrapped). */
  values: unknown;
}

function releaseInputs(props: Obj, urn: string, resource: string): ReleaseProps {
  const raw = rawProps(props);
  const s = (k: string) => (known(plain(raw[k])) ? (plain(raw[k]) as string) : undefined);
  return {
    resource,
    urn,
    name: s("name"),
    chart: s("chart"),
    version: s("version"),
    namespace: s("namespace"),
    values: raw["values"],
  };
}

/** The catalog entry of a Helm release name, in the stack's plane (undefined: not an NVCF catalog release, e.g. `eg`). */
export function catalogEntry(
  name: string | undefined,
  plane: "control" | "compute",
): ReleaseSpec | undefined {
  if (!name) return undefined;
  const list = plane === "compute" ? COMPUTE_PLANE_RELEASES : CONTROL_PLANE_RELEASES;
  return list.find((r) => r.name === name);
}

const who = (r: ReleaseProps) => `Release ${r.resource}${r.name ? ` (Helm release "${r.name}")` : ""}`;

/** A credential-shaped value for a message: never the value itself. */
const redacted = (v: string) => `<redacted, ${v.length} characters>`;

/** Policy config of one policy (`--policy-pack-config`), as a plain object. */
const policyConfig = (args: { getConfig<T extends object>(): T }): Obj => obj(args.getConfig<Obj>());

/** Exact chart versions: semver `MAJOR.MINOR.PATCH` with optional `v`, pre-release and build (no ranges, no `latest`). */
const EXACT_VERSION = /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

const resourcePolicy = (
  p: Omit<ResourceValidationPolicy, "validateResource"> & {
    validate: (r: ReleaseProps, args: ResourceValidationArgs, report: ReportViolation) => void;
  },
): ResourceValidationPolicy => ({
  name: p.name,
  description: p.description,
  enforcementLevel: p.enforcementLevel,
  configSchema: p.configSchema,
  remediationSteps: p.remediationSteps,
  validateResource: Object.assign(
    (args: ResourceValidationArgs, report: ReportViolation) => {
      if (args.type !== RELEASE_TYPE) return;
      p.validate(releaseInputs(args.props, args.urn, args.name), args, report);
    },
    // Lets @pulumi/policy skip other resource types without calling the function.
    { __pulumiType: RELEASE_TYPE },
  ),
});

/** Every Helm release has an exact chart version. */
export const chartVersionPinned = resourcePolicy({
  name: "chart-version-pinned",
  description: "Every Helm release pins an exact chart version (no range, no latest, not empty).",
  validate: (r, _args, report) => {
    const v = r.version;
    if (v !== undefined && EXACT_VERSION.test(v)) return;
    const spec = catalogEntry(r.name, "control") ?? catalogEntry(r.name, "compute");
    report(
      `${who(r)} installs chart ${r.chart ?? "(unknown)"} with version ${v === undefined || v === "" ? "(none)" : JSON.stringify(v)}, ` +
        `which is not an exact version. Fix: pin one exact version` +
        (spec
          ? `, e.g. remove nvcf:charts.versionOverrides.${spec.name} to use the bundle's, or set it to an exact version (e.g. 1.2.3)`
          : "") +
        ".",
    );
  },
});

/** Chart versions are the catalog's for the stack's bundle, or the documented override. */
export const chartVersionMatchesBundle = resourcePolicy({
  name: "chart-version-matches-bundle",
  description:
    "Every NVCF release installs the chart version catalog/releases.ts pins for the stack's bundle (nvcf:bundleVersion), unless nvcf:charts.versionOverrides sets one.",
  configSchema: {
    properties: {
      bundleVersion: {
        type: "string",
        description: "The bundle to check against (default: the stack's nvcf:bundleVersion).",
      },
      versionOverrides: { type: "object", description: "Extra accepted overrides: release → version." },
    },
  },
  validate: (r, args, report) => {
    const s = settingsFor(args.urn, policyConfig(args));
    const spec = catalogEntry(r.name, s.plane);
    if (!spec || r.version === undefined) return;
    const override = s.versionOverrides[spec.name];
    const pinned = spec.versions[s.bundleVersion];
    const expected = override ?? pinned;
    if (expected === undefined) {
      report(
        `${who(r)} is installed, but NVCF bundle ${s.bundleVersion} does not ship it (catalog/releases.ts). ` +
          `Fix: turn the release off or change nvcf:bundleVersion.`,
      );
      return;
    }
    if (r.version === expected) return;
    report(
      `${who(r)} installs chart ${spec.chart} version ${r.version}; bundle ${s.bundleVersion} pins ${pinned ?? "none"}` +
        (override ? ` and nvcf:charts.versionOverrides.${spec.name} is ${override}` : "") +
        ` (catalog/releases.ts). Fix: install ${expected}, or record a hot fix with ` +
        `pulumi config set --path nvcf:charts.versionOverrides.${spec.name} ${r.version}.`,
    );
  },
});

/** Releases holding state are protected outside dev stacks. */
export const statefulReleaseProtected = resourcePolicy({
  name: "stateful-release-protected",
  description:
    "Releases that hold state (catalog/releases.ts `stateful`: Cassandra, OpenBao, NATS JetStream, VictoriaMetrics) carry the protect option on every stack that is not a dev stack.",
  configSchema: {
    properties: {
      devStackPattern: {
        type: "string",
        description:
          "Regular expression for dev stack names (default: the program's rule, dev, dev-* and dev_*).",
      },
    },
  },
  validate: (r, args, report) => {
    const stack = stackOfUrn(args.urn);
    const s = resolveSettings(stack, analyzerConfig(), policyConfig(args));
    const spec = catalogEntry(r.name, s.plane);
    const pattern = policyConfig(args)["devStackPattern"];
    if (!spec?.stateful || isDev(stack, typeof pattern === "string" ? pattern : undefined)) return;
    if (args.opts.protect) return;
    report(
      `${who(r)} holds state (${spec.chart}) but is not protected on stack ${stack} (protect: false). ` +
        `Fix: remove nvcf:protectStatefulData false (or set it true) so the program protects it; only dev stacks may run unprotected.`,
    );
  },
});

/** True when the base64 text decodes to `user:key` (printable, no spaces). */
function base64UserKey(v: string): string | undefined {
  if (v.length < 12 || v.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(v)) return undefined;
  const d = Buffer.from(v, "base64").toString("utf8");
  const m = /^([\x21-\x39\x3b-\x7e]+):([\x21-\x7e]{4,})$/.exec(d);
  return m ? m[1] : undefined;
}

/** True when a string is a Docker config JSON (`{"auths": {...}}`). */
function isDockerConfigJson(v: string): boolean {
  if (!v.includes("auths")) return false;
  try {
    const j = JSON.parse(v) as Obj;
    return typeof j === "object" && j !== null && typeof j["auths"] === "object";
  } catch {
    return false;
  }
}

/** Why a plain-text value looks like a credential, or undefined. */
export function credentialKind(path: string, value: string, s: StackSettings): string | undefined {
  const hit = s.secrets.find((x) => value.includes(x.value));
  if (hit) return `the value of the secret config ${hit.key}`;
  if (isDockerConfigJson(value) || /(^|\.)\.dockerconfigjson$/.test(path)) return "a Docker config JSON";
  if (/(^|\.)auths\.[^.]+\.(auth|password)$/.test(path)) return "a Docker config credential";
  const user = base64UserKey(value);
  if (user) return `base64 of "${user}:<key>"`;
  return undefined;
}

/** No Release values carry a plain-text credential. */
export const noPlaintextCredentials = resourcePolicy({
  name: "no-plaintext-credentials",
  description:
    "No Helm release value is a plain-text (non-secret) credential: a secret config value, a base64 user:key or a Docker config JSON.",
  validate: (r, args, report) => {
    const s = settingsFor(args.urn, policyConfig(args));
    for (const leaf of leaves(r.values, "values")) {
      if (leaf.secret || typeof leaf.value !== "string") continue;
      const kind = credentialKind(leaf.path, leaf.value, s);
      if (!kind) continue;
      const at = leaf.path.replace(/^values\./, "");
      report(
        `${who(r)} has ${leaf.path} = ${redacted(leaf.value)} in plain text: it is ${kind}. ` +
          `Fix: remove it from the values (${r.name ? `nvcf:releaseValues.${r.name}: ${at}` : at}); set the credential ` +
          `with pulumi config set --secret (e.g. nvcf:registryKey) and let the program place it as a secret.`,
      );
    }
  },
});

/** Every release namespace is the catalog's fixed one (OpenBao's bound service-account claims name it). */
export const releaseNamespaceFixed = resourcePolicy({
  name: "release-namespace-fixed",
  description:
    "Every NVCF release goes into the namespace catalog/releases.ts fixes for it: OpenBao's Kubernetes-auth roles bind each service account by namespace (docs/upstream-facts.md §4 row 17).",
  validate: (r, args, report) => {
    if (r.namespace === undefined) return;
    const s = settingsFor(args.urn, policyConfig(args));
    const spec = catalogEntry(r.name, s.plane);
    if (!spec) return;
    const expected =
      "fixed" in spec.namespace
        ? spec.namespace.fixed
        : spec.namespace.fromConfig === "gatewayControllerNamespace"
          ? s.gatewayControllerNamespace
          : s.observabilityNamespace;
    if (expected === undefined || r.namespace === expected) return;
    report(
      `${who(r)} is in namespace ${r.namespace}; the catalog puts it in ${expected}` +
        ("fixed" in spec.namespace
          ? " (a fixed namespace: OpenBao's bound service-account namespaces and the other charts' service URLs name it)"
          : ` (nvcf:${spec.namespace.fromConfig === "gatewayControllerNamespace" ? "gateway.controllerNamespace" : "observability.namespace"})`) +
        `. Fix: install it into ${expected}; release namespaces are not configurable.`,
    );
  },
});

/** Hostnames of every route the gateway-routes release renders, by route (config/routes.ts plus explicit lists). */
export function routeHostnames(values: unknown): Record<string, string[]> {
  const v = obj(obj(plain(values))["nvcfGatewayRoutes"]);
  const domain = typeof v["domain"] === "string" ? v["domain"] : undefined;
  const routes = obj(v["routes"]);
  const on = (k: string) => obj(routes[k])["enabled"] === true;
  const out: Record<string, string[]> = {};
  if (domain) {
    const vanity = obj(routes["vanityGateway"]);
    const cfgLike = {
      domain,
      addons: {
        llm: { enabled: on("llmInvocation") },
        vanityGateway: {
          enabled: on("vanityGateway"),
          hostnames: Array.isArray(vanity["hostnames"]) ? (vanity["hostnames"] as string[]) : [],
        },
        nvcfUi: { enabled: on("nvcfUi") },
      },
      gateway: { routes: { ess: on("ess") } },
    } as unknown as ControlPlaneConfig;
    Object.assign(out, httpRouteHostnames(cfgLike));
  }
  // gRPC routes of nvcf-api and nvct-api, when on, list their hostnames explicitly.
  for (const [k, name] of [
    ["nvcfApi", "nvcf-api-grpc"],
    ["nvctApi", "nvct-api-grpc"],
  ] as const) {
    const g = obj(obj(routes[k])["grpc"]);
    if (g["enabled"] === true && Array.isArray(g["hostnames"])) out[name] = g["hostnames"] as string[];
  }
  return out;
}

/** The gateway routes' hostnames are unique (every route matches PathPrefix `/`). */
export const routeHostnamesUnique = resourcePolicy({
  name: "route-hostnames-unique",
  description:
    "No two gateway routes of the nvcf-gateway-routes release share a hostname (each matches PathPrefix /, so the second would never receive traffic).",
  validate: (r, _args, report) => {
    if (r.name !== "ingress" && !(r.chart ?? "").endsWith("nvcf-gateway-routes")) return;
    const seen = new Map<string, string>();
    for (const [route, hosts] of Object.entries(routeHostnames(r.values))) {
      for (const h of hosts) {
        const first = seen.get(h);
        if (first === undefined) seen.set(h, route);
        else if (first !== route)
          report(
            `${who(r)} routes hostname ${h} twice: route ${first} and route ${route}. ` +
              `Fix: give route ${route} its own hostname (e.g. nvcf:addons.vanityGateway.hostnames or ` +
              `nvcf:releaseValues.ingress.nvcfGatewayRoutes.routes.*.hostnames).`,
          );
      }
    }
  },
});

/** The stack settings for a stack validation: the stack is named by any resource's URN. */
function stackSettings(args: StackValidationArgs): StackSettings {
  const urn = args.resources.find((x) => x.urn)?.urn ?? "";
  return settingsFor(urn, policyConfig(args));
}

const releasesOf = (args: StackValidationArgs): ReleaseProps[] =>
  args.resources.filter((x) => x.type === RELEASE_TYPE).map((x) => releaseInputs(x.props, x.urn, x.name));

/** The control plane's image mirror as a compute plane reads it (its StackReference's outputs). */
function mirrorFromStackReference(resources: PolicyResource[]): { registry?: string; repository?: string } {
  for (const r of resources) {
    if (r.type !== STACK_REFERENCE_TYPE) continue;
    const out = obj(plain(obj(rawProps(r.props))["outputs"]));
    if (typeof out["imageRegistry"] === "string")
      return { registry: out["imageRegistry"], repository: String(out["imageRepository"] ?? "") };
  }
  return {};
}

/** Whether an image reference is under `<registry>/<repository>`. */
export function underMirror(img: ImageRef, registry: string, repository: string): boolean {
  const base = [registry, repository].filter(Boolean).join("/");
  if (img.registry !== undefined)
    return (
      img.registry === registry &&
      (repository === "" || img.repository === repository || img.repository.startsWith(`${repository}/`))
    );
  return img.ref === base || img.ref.startsWith(`${base}/`) || img.ref.startsWith(`${base}:`);
}

/** Every image in release values is under the configured mirror. */
export const imagesFromMirror: StackValidationPolicy = {
  name: "images-from-mirror",
  description:
    "Every image a Helm release's values name is under the image mirror (nvcf:images.registry/repository; a compute plane's is its control plane's). With nvcf:images.thirdParty upstream (the default), the upstream third-party images NVIDIA's stacks use are accepted too.",
  configSchema: {
    properties: {
      imageRegistry: { type: "string", description: "The mirror registry (default: the stack's)." },
      imageRepository: { type: "string", description: "The mirror repository (default: the stack's)." },
      thirdParty: {
        type: "string",
        enum: ["upstream", "mirror"],
        description: "Override nvcf:images.thirdParty.",
      },
      allowedPrefixes: {
        type: "array",
        items: { type: "string" },
        description: "Further accepted image prefixes.",
      },
    },
  },
  validateStack: (args, report) => {
    const s = stackSettings(args);
    const fromRef = mirrorFromStackReference(args.resources);
    const registry = s.imageRegistry ?? fromRef.registry;
    const repository = s.imageRepository ?? fromRef.repository ?? "";
    if (!registry) return;
    const extra = policyConfig(args)["allowedPrefixes"];
    const allowed = [
      ...(s.thirdParty === "upstream" ? Object.values(UPSTREAM) : []),
      ...(Array.isArray(extra) ? extra.filter((x): x is string => typeof x === "string") : []),
    ];
    const base = [registry, repository].filter(Boolean).join("/");
    for (const r of releasesOf(args)) {
      for (const img of imageRefs(plain(r.values), "values")) {
        if (underMirror(img, registry, repository)) continue;
        if (allowed.some((a) => img.ref === a || img.ref.startsWith(`${a}/`) || img.ref.startsWith(`${a}:`)))
          continue;
        report(
          `${who(r)} runs image ${img.ref} (${img.path}), which is not under the image mirror ${base}. ` +
            `Fix: copy the image into ${base} and point ${img.path.replace(/^values\./, "")} at it` +
            (r.name ? ` (nvcf:releaseValues.${r.name}…)` : "") +
            `, or set nvcf:images.thirdParty mirror for the program's third-party images.`,
          r.urn,
        );
      }
    }
  },
};

/** Every namespace with a release that runs images has the configured pull secret. */
export const pullSecretInReleaseNamespaces: StackValidationPolicy = {
  name: "pull-secret-in-release-namespaces",
  description:
    "Every namespace holding a Helm release that names images or the pull secret has the configured pull secret (nvcf:pullSecret.name) created by the stack. Not applicable with pullSecret.name null or create false.",
  configSchema: {
    properties: {
      pullSecretName: {
        type: "string",
        description: "The pull secret name (default: the stack's nvcf:pullSecret.name).",
      },
    },
  },
  validateStack: (args, report) => {
    const s = stackSettings(args);
    const name = s.pullSecretName;
    if (name === null || !s.pullSecretCreate) return;
    const have = new Set<string>();
    for (const x of args.resources) {
      if (x.type !== SECRET_TYPE) continue;
      const meta = obj(plain(obj(rawProps(x.props))["metadata"]));
      if (meta["name"] === name && typeof meta["namespace"] === "string") have.add(meta["namespace"]);
    }
    const unknownNamespaces = args.resources.some(
      (x) => x.type === SECRET_TYPE && isUnknown(obj(obj(rawProps(x.props))["metadata"])["namespace"]),
    );
    if (unknownNamespaces) return;
    const reported = new Set<string>();
    for (const r of releasesOf(args)) {
      if (r.namespace === undefined || have.has(r.namespace) || reported.has(r.namespace)) continue;
      const values = plain(r.values);
      const refsSecret = JSON.stringify(values ?? {}).includes(`"${name}"`);
      if (imageRefs(values).length === 0 && !refsSecret) continue;
      reported.add(r.namespace);
      report(
        `${who(r)} is in namespace ${r.namespace}, which has no pull secret ${name} (no kubernetes.io/dockerconfigjson ` +
          `Secret ${r.namespace}/${name} in the stack). Fix: let the program create it (nvcf:pullSecret.create true with ` +
          `nvcf:registryKey set; compute planes also list extra namespaces in nvcf:pullSecretNamespaces).`,
        r.urn,
      );
    }
  },
};

/** Every policy of the pack, in the order the CLI lists them. */
export const POLICIES = [
  chartVersionPinned,
  chartVersionMatchesBundle,
  statefulReleaseProtected,
  noPlaintextCredentials,
  imagesFromMirror,
  pullSecretInReleaseNamespaces,
  releaseNamespaceFixed,
  routeHostnamesUnique,
];
