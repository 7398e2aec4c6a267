/**
 * Adoption of a Helmfile-made installation by a stack: which live objects become which resources of the
 * program (same type, logical name and parent, so the URN is the one the program registers), the checks of
 * the live Helm releases against the catalog, and the Pulumi operations that move them into the stack.
 *
 * How the move is done (each step is one Automation API call on the stack):
 * 1. an inline program registers only the Kubernetes provider (with the program's own arguments) and the
 *    program's components that parent adopted objects, as empty components; nothing in the cluster is
 *    touched and the stack's program does not run (so it neither installs nor looks anything up yet);
 * 2. `pulumi import` (`Stack.import`) adopts every namespace, pull secret and Helm release by its live ID
 *    (`<name>`, `<namespace>/<name>`, `<namespace>/<release>`) under those components and that provider;
 * 3. for a control plane with registered GPU clusters, a targeted `up` of the stack's program records each
 *    registration (`nvcf:gpuClusters[].registered`): the command prints the kept IDs, nvcf-cli is not run.
 * After that `pulumi preview` shows updates of adopted objects (what the program sets differently) and
 * creates only of objects Helmfile never made (teardown steps, the node tuner, labels).
 */
import { type ReleaseSpec, chartVersion, configNamespaces, resolveNamespace } from "../../catalog/releases";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../config/schema";
import { stackReleases } from "../../config/stackReleases";
import { isObservabilityRelease } from "../../values/observability";
import { type HelmRelease, decodeHelmRelease } from "../../kube/helmRecords";
import type { Kube } from "../../kube/kubectl";

/** Resource types of the objects adopted. */
export const TYPES = {
  namespace: "kubernetes:core/v1:Namespace",
  secret: "kubernetes:core/v1:Secret",
  release: "kubernetes:helm.sh/v3:Release",
} as const;

/** One component of the program, as the import creates it (empty) or the targeted `up` does. */
export interface PlannedComponent {
  /** Unique name inside the import file. */
  key: string;
  type: string;
  /** The program's logical name (the last part of the URN). */
  name: string;
  /** `key` of the parent component; undefined: the stack. */
  parent?: string;
}

/** One live object to adopt. */
export interface PlannedImport {
  key: string;
  kind: "namespace" | "secret" | "release";
  type: string;
  name: string;
  /** The live ID the provider reads (`<ns>`, `<ns>/<secret>`, `<ns>/<release>`). */
  id: string;
  parent: string;
  /** For releases: the catalog's chart and pinned version. */
  release?: { name: string; namespace: string; chart: string; version: string };
}

/** Everything the move of one stack creates or imports, with the URNs the program registers. */
export interface AdoptionPlan {
  stack: string;
  project: string;
  plane: "control" | "compute";
  /** `<provider URN>` of the stack's Kubernetes provider. */
  providerUrn: string;
  components: PlannedComponent[];
  imports: PlannedImport[];
  /** The provider's logical name (`control-plane-cluster` / `compute-plane-cluster`). */
  providerName: string;
  /** URNs the registration `up` creates (control plane with adopted registrations). */
  registrationTargets: string[];
  /** Every namespace the program owns (to check which exist). */
  namespaces: string[];
  /** Namespaces holding the program's pull secret (empty: none created). */
  pullSecretNamespaces: string[];
  pullSecretName: string | null;
}

/** URN of a resource: `urn:pulumi:<stack>::<project>::<type chain>::<name>`. */
export function urnOf(stack: string, project: string, typeChain: string[], name: string): string {
  return `urn:pulumi:${stack}::${project}::${typeChain.join("$")}::${name}`;
}

/**
 * The adoption plan of a stack from its validated config, mirroring what `components/controlPlane.ts` and
 * `components/computePlane.ts` register: the same release set (config/stackReleases.ts `stackReleases`, in
 * dependency order), the same namespace set and pull-secret namespaces, the same logical names and parents.
 * Input: the config, the stack and project names. Output: an `AdoptionPlan`. Throws only on a release without a
 * namespace.
 */
export function adoptionPlan(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  stack: string,
  project: string,
): AdoptionPlan {
  const top = "nvcf";
  const components: PlannedComponent[] = [];
  const imports: PlannedImport[] = [];
  const comp = (key: string, type: string, name: string, parent?: string) =>
    components.push({ key, type, name, parent });
  const control = cfg.plane === "control";
  const rootType = control ? "nvcf:index:ControlPlane" : "nvcf:index:ComputePlane";
  comp("plane", rootType, top);

  const releases: readonly ReleaseSpec[] = stackReleases(cfg).releases;
  let namespaces: string[];
  let pullNamespaces: string[];
  if (control) {
    const c = cfg as ControlPlaneConfig;
    const ns = new Set<string>();
    for (const r of releases) {
      const n = resolveNamespace(r, configNamespaces(c));
      if (!c.gateway.install && n === c.gateway.controllerNamespace) continue;
      ns.add(n);
    }
    if (c.gateway.install) {
      ns.add(c.gateway.controllerNamespace);
      ns.add(c.gateway.shared.namespace);
    }
    namespaces = [...ns];
    pullNamespaces = c.pullSecret.name !== null && c.pullSecret.create && c.registryKey ? namespaces : [];
  } else {
    const c = cfg as ComputePlaneConfig;
    const ns = new Set<string>(["nvca-operator", "nvca-system", "nvcf-backend", ...c.pullSecretNamespaces]);
    for (const r of releases) ns.add(resolveNamespace(r, configNamespaces(c)));
    namespaces = [...ns];
    const pull = new Set<string>(c.pullSecretNamespaces);
    for (const r of releases) pull.add(resolveNamespace(r, configNamespaces(c)));
    // The compute plane creates pull secrets when it has a key: its own, or the control plane's.
    pullNamespaces = c.pullSecret.name !== null && c.pullSecret.create ? [...pull] : [];
  }

  comp("ns", "nvcf:index:Namespaces", `${top}-ns`, "plane");
  for (const n of namespaces)
    imports.push({
      key: `ns:${n}`,
      kind: "namespace",
      type: TYPES.namespace,
      name: `${top}-ns-${n}`,
      id: n,
      parent: "ns",
    });
  if (pullNamespaces.length > 0) {
    comp("pull", "nvcf:index:PullSecrets", `${top}-pull`, "plane");
    for (const n of pullNamespaces)
      imports.push({
        key: `secret:${n}`,
        kind: "secret",
        type: TYPES.secret,
        name: `${top}-pull-${n}`,
        id: `${n}/${cfg.pullSecret.name}`,
        parent: "pull",
      });
  }
  for (const r of releases) {
    const ns = resolveNamespace(r, configNamespaces(cfg));
    comp(`rel:${r.name}`, "nvcf:index:Release", `${top}-${r.name}`, "plane");
    imports.push({
      key: `helm:${r.name}`,
      kind: "release",
      type: TYPES.release,
      name: `${top}-${r.name}`,
      id: `${ns}/${r.name}`,
      parent: `rel:${r.name}`,
      release: {
        name: r.name,
        namespace: ns,
        chart: r.chart,
        version: chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides),
      },
    });
  }

  const providerName = control ? "control-plane-cluster" : "compute-plane-cluster";
  const providerUrn = urnOf(stack, project, ["pulumi:providers:kubernetes"], providerName);
  const registrationTargets: string[] = [];
  if (control) {
    const c = cfg as ControlPlaneConfig;
    // The Gateway component parents the program's Gateway lookups, which run in every update (also a
    // targeted one), so it must exist before the registration step.
    comp("gateway", "nvcf:index:Gateway", `${top}-gateway`, "plane");
    for (const g of c.gpuClusters.filter((x) => x.registered)) {
      const regType = [rootType, "nvcf:index:ClusterRegistration"];
      registrationTargets.push(urnOf(stack, project, regType, `${top}-register-${g.name}`));
      registrationTargets.push(
        urnOf(stack, project, [...regType, "command:local:Command"], `${top}-register-${g.name}-register`),
      );
    }
  }
  return {
    stack,
    project,
    plane: cfg.plane,
    providerUrn,
    providerName,
    components,
    imports,
    registrationTargets,
    namespaces,
    pullSecretNamespaces: pullNamespaces,
    pullSecretName: cfg.pullSecret.name,
  };
}

/** The URN of every planned component and import, keyed by plan key. */
export function planUrns(plan: AdoptionPlan): Map<string, string> {
  const chain = new Map<string, string[]>();
  const out = new Map<string, string>();
  for (const c of plan.components) {
    const parent = c.parent ? (chain.get(c.parent) ?? []) : [];
    chain.set(c.key, [...parent, c.type]);
    out.set(c.key, urnOf(plan.stack, plan.project, [...parent, c.type], c.name));
  }
  for (const i of plan.imports)
    out.set(i.key, urnOf(plan.stack, plan.project, [...(chain.get(i.parent) ?? []), i.type], i.name));
  return out;
}

/**
 * The import file's content (`pulumi import --file` / `Stack.import`): every object with its live ID, its
 * parent and the provider named through the name table (they exist once `scaffoldProgram` ran).
 */
export function importSpec(plan: AdoptionPlan): {
  nameTable: Record<string, string>;
  resources: {
    type: string;
    name: string;
    logicalName: string;
    id: string;
    parent: string;
    provider: string;
  }[];
} {
  const urns = planUrns(plan);
  const nameTable: Record<string, string> = { provider: plan.providerUrn };
  for (const c of plan.components) nameTable[c.key] = urns.get(c.key) as string;
  const resources = plan.imports.map((i) => ({
    type: i.type,
    name: i.key,
    logicalName: i.name,
    id: i.id,
    parent: i.parent,
    provider: "provider",
  }));
  return { nameTable, resources };
}

/**
 * The inline program of step 1: the stack's Kubernetes provider with the arguments the stack program gives
 * it (stacks/control.ts, stacks/compute.ts: the kubeconfig context, Helm hook warnings suppressed), so the
 * program later finds it unchanged, and every planned component, empty, parents first. Input: the plan and
 * the kubeconfig context. Output: a Pulumi program function for `LocalWorkspace` inline stacks.
 */
export function scaffoldProgram(plan: AdoptionPlan, context: string | undefined): () => Promise<void> {
  return async () => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const pulumi = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
    const k8s = require("@pulumi/kubernetes") as typeof import("@pulumi/kubernetes");
    /* eslint-enable @typescript-eslint/no-require-imports */
    new k8s.Provider(plan.providerName, { context, suppressHelmHookWarnings: true });
    const made = new Map<string, import("@pulumi/pulumi").ComponentResource>();
    for (const c of plan.components) {
      const parent = c.parent ? made.get(c.parent) : undefined;
      made.set(c.key, new pulumi.ComponentResource(c.type, c.name, {}, parent ? { parent } : {}));
    }
  };
}

// ---------------------------------------------------------------------------------------------------------
// Live checks
// ---------------------------------------------------------------------------------------------------------

/** One Helm release as Helm's storage Secret records it (the newest revision). */
export interface LiveRelease {
  name: string;
  namespace: string;
  revision: number;
  status: string;
  chart: string;
  chartVersion: string;
}

/** The fields of a decoded Helm release record (kube/helmRecords.ts) that the live checks compare. */
export function liveRelease(rel: HelmRelease): LiveRelease {
  return {
    name: rel.name,
    namespace: rel.namespace,
    revision: rel.version,
    status: rel.info?.status ?? "",
    chart: rel.chart?.metadata?.name ?? "",
    chartVersion: rel.chart?.metadata?.version ?? "",
  };
}

/** Every Helm release of a cluster (newest revision of each), from Helm's storage Secrets. */
export async function liveReleases(kube: Kube): Promise<LiveRelease[]> {
  const items = await kube.items<{
    metadata: { labels?: Record<string, string> };
    data?: { release?: string };
  }>(["secrets", "--all-namespaces", "-l", "owner=helm"]);
  const newest = new Map<string, LiveRelease>();
  for (const s of items) {
    if (!s.data?.release) continue;
    const r = liveRelease(decodeHelmRelease(s.data.release));
    const k = `${r.namespace}/${r.name}`;
    if ((newest.get(k)?.revision ?? -1) < r.revision) newest.set(k, r);
  }
  return [...newest.values()];
}

/** A problem found before anything is written, for the user. */
export interface Mismatch {
  object: string;
  found: string;
  needed: string;
  fix: string;
}

/**
 * Checks the live releases against the plan: every planned release exists in its namespace, is deployed,
 * and runs the catalog's chart at the bundle's pinned version; a release of the catalog's name found in
 * another namespace, or one the config would not install, is a mismatch too. Input: plan, live releases,
 * the bundle (for the messages). Output: the mismatches (empty: the releases can be adopted).
 */
export function adoptionMismatches(
  plan: AdoptionPlan,
  live: readonly LiveRelease[],
  bundle: string,
): Mismatch[] {
  const out: Mismatch[] = [];
  const planned = plan.imports.filter((i) => i.release);
  for (const i of planned) {
    const want = i.release as NonNullable<PlannedImport["release"]>;
    const here = live.find((l) => l.name === want.name && l.namespace === want.namespace);
    const elsewhere = live.filter((l) => l.name === want.name && l.namespace !== want.namespace);
    if (!here) {
      out.push({
        object: `release ${want.namespace}/${want.name}`,
        found: elsewhere.length
          ? `release ${want.name} in namespace ${elsewhere.map((l) => l.namespace).join(", ")}`
          : "no such Helm release",
        needed: `release ${want.name} (chart ${want.chart} ${want.version}) in namespace ${want.namespace}, as NVIDIA's stack installs it`,
        fix: elsewhere.length
          ? "check the namespace settings of the environment file (e.g. ingress.gatewayApi.controllerNamespace, observability.namespace)"
          : plan.plane === "compute" && isObservabilityRelease(want.name)
            ? "NVIDIA installs the observability stack on a GPU cluster separately (make -C deploy/stacks/observability install); if it was never installed here, run again with --set observability.install=false (the stack installs it later when that is removed)"
            : "check that the environment file is the one this installation was made with (a disabled component in it stays uninstalled), then run again",
      });
      continue;
    }
    if (here.status !== "deployed")
      out.push({
        object: `release ${want.namespace}/${want.name}`,
        found: `status ${here.status} (revision ${here.revision})`,
        needed: "status deployed",
        fix: `repair the release with Helmfile first (helmfile apply, or helm rollback ${want.name} -n ${want.namespace})`,
      });
    if (here.chart !== want.chart || here.chartVersion !== want.version)
      out.push({
        object: `release ${want.namespace}/${want.name}`,
        found: `chart ${here.chart} ${here.chartVersion}`,
        needed: `chart ${want.chart} ${want.version} (catalog/releases.ts, bundle ${bundle})`,
        fix:
          here.chart !== want.chart
            ? "this is not the release NVIDIA's stack installs under that name; remove or rename it"
            : `give the bundle the installation runs (--bundle-version), or pin the hot-fix with --set charts.versionOverrides='{"${want.name}":"${here.chartVersion}"}'`,
      });
  }
  return out;
}

/** Releases of the installation the plan does not adopt (they stay as they are, unmanaged). */
export function unadoptedReleases(plan: AdoptionPlan, live: readonly LiveRelease[]): LiveRelease[] {
  const ids = new Set(plan.imports.filter((i) => i.kind === "release").map((i) => i.id));
  return live.filter((l) => !ids.has(`${l.namespace}/${l.name}`));
}

/**
 * The credential of a `kubernetes.io/dockerconfigjson` Secret for one registry host (`server` undefined: its
 * first entry); undefined when absent or unreadable. Output: the plain user and password (handle as secrets).
 */
export function dockerConfigCredential(
  secret: { type?: string; data?: Record<string, string> } | undefined,
  server?: string,
): { username: string; password: string } | undefined {
  const raw = secret?.data?.[".dockerconfigjson"];
  if (!raw) return undefined;
  try {
    const doc = JSON.parse(Buffer.from(raw, "base64").toString("utf8")) as {
      auths?: Record<string, { username?: string; password?: string; auth?: string }>;
    };
    const hit = Object.entries(doc.auths ?? {}).find(
      ([host]) => server === undefined || host.replace(/^https?:\/\//, "").replace(/\/.*$/, "") === server,
    )?.[1];
    if (!hit) return undefined;
    if (hit.username !== undefined && hit.password !== undefined)
      return { username: hit.username, password: hit.password };
    if (hit.auth) {
      const d = Buffer.from(hit.auth, "base64").toString("utf8");
      const at = d.indexOf(":");
      return { username: d.slice(0, at), password: d.slice(at + 1) };
    }
  } catch {
    return undefined;
  }
  return undefined;
}
