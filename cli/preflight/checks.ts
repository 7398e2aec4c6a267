/**
 * The preflight checks as pure functions: validated config + cluster facts (cli/preflight/facts.ts) in,
 * `Finding`s out. Every finding says what was found, what is needed and the fix, one sentence each. Facts
 * come from docs/upstream-facts.md (cited per check) and NVIDIA's docs as named.
 */
import type { ComputePlaneConfig, ControlPlaneConfig, Toleration } from "../../config/schema";
import { missingListeners, GATEWAY_LISTENERS, requiredListeners } from "../../config/routes";
import { featureGates } from "../../values/compute";
import { controlValues } from "../../values/control";
import { stackReleases } from "../../config/stackReleases";
import { OBSERVABILITY_RELEASE_NAMES } from "../../values/observability";
import { type ObservabilitySettings, installsObservability } from "../../config/observability";
import { type KubeObject, condition } from "../../kube/kubectl";
import type { Finding } from "../types";
import type { ClusterFacts } from "./facts";
import { fail, pass } from "../findings";

// ---------------------------------------------------------------------------------------------------------
// Nodes and scheduling

/** A node label/selector as `{key: value}`. */
export type Selector = Record<string, string>;

/** Whether a toleration list tolerates one taint (Kubernetes' matching rules). */
export function tolerates(
  tolerations: readonly Toleration[],
  taint: { key?: string; value?: string; effect?: string },
) {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (!t.key) return t.operator === "Exists";
    if (t.key !== taint.key) return false;
    return t.operator === "Exists" || (t.value ?? "") === (taint.value ?? "");
  });
}

/** Ready, not cordoned, and every NoSchedule/NoExecute taint tolerated; matching the selector when given. */
export function schedulable(
  node: KubeObject,
  selector: Selector = {},
  tolerations: readonly Toleration[] = [],
) {
  if (condition(node, "Ready")?.status !== "True") return false;
  if (node.spec?.unschedulable) return false;
  const labels = node.metadata.labels ?? {};
  if (Object.entries(selector).some(([k, v]) => labels[k] !== v)) return false;
  const taints = (node.spec?.taints ?? []) as { key?: string; value?: string; effect?: string }[];
  return taints.filter((t) => t.effect !== "PreferNoSchedule").every((t) => tolerates(tolerations, t));
}

const selectorText = (s: Selector) =>
  Object.keys(s).length
    ? ` matching ${Object.entries(s)
        .map(([k, v]) => `${k}=${v}`)
        .join(",")}`
    : "";

/** Values a control-plane release is installed with (secrets not needed: placeholders). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function valuesOf(cfg: ControlPlaneConfig, release: string): Record<string, any> {
  return controlValues(release, cfg, { cassandraPassword: "", sidecarAuth: "", functionAuth: [] });
}

/**
 * Enough schedulable nodes for the workloads that need one node per replica: Cassandra (each replica on its
 * own node, docs/upstream-facts.md §4 row 27) and the OpenBao injector (hard anti-affinity per node, row 28).
 * Replica counts, node selectors and tolerations are read from the values the release gets.
 */
export function checkReplicaNodes(cfg: ControlPlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  const out: Finding[] = [];
  const items: {
    name: string;
    replicas: number;
    selector: Selector;
    tolerations: Toleration[];
    key: string;
    why: string;
  }[] = [];
  if (cfg.cassandra.enabled) {
    const c = valuesOf(cfg, "cassandra")["cassandra"] ?? {};
    items.push({
      name: "StatefulSet cassandra-system/cassandra",
      replicas: Number(c.replicaCount ?? cfg.cassandra.replicas),
      selector: c.nodeSelector ?? {},
      tolerations: c.tolerations ?? [],
      key: "nvcf:cassandra.replicas",
      why: "each Cassandra replica runs on its own node",
    });
  }
  if (cfg.openbao.enabled) {
    const inj = valuesOf(cfg, "openbao-server")["openbao"]?.injector ?? {};
    items.push({
      name: "Deployment vault-system/openbao-server-agent-injector",
      replicas: Number(inj.replicas ?? cfg.openbao.injectorReplicas),
      selector: inj.nodeSelector ?? {},
      tolerations: inj.tolerations ?? [],
      key: "nvcf:openbao.injectorReplicas",
      why: "the injector's replicas repel each other (required anti-affinity per node)",
    });
  }
  for (const it of items) {
    const nodes = facts.nodes.filter((n) => schedulable(n, it.selector, it.tolerations));
    const check = it.name.includes("cassandra") ? "nodes.cassandra" : "nodes.openbao-injector";
    if (nodes.length >= it.replicas)
      out.push(
        pass(
          check,
          stack,
          it.name,
          `${nodes.length} schedulable node(s)${selectorText(it.selector)} for ${it.replicas} replica(s)`,
        ),
      );
    else
      out.push(
        fail(
          check,
          stack,
          it.name,
          `${nodes.length} schedulable node(s)${selectorText(it.selector)} (Ready, not cordoned, taints tolerated) for ${it.replicas} replica(s)`,
          `at least ${it.replicas} such nodes, because ${it.why}`,
          `add nodes${selectorText(it.selector)}, or lower ${it.key} (pulumi config set --path ${it.key} ${Math.max(1, nodes.length)})`,
        ),
      );
  }
  return out;
}

/** With node selectors on, the labelled nodes exist (docs/upstream-facts.md §4 row 29). */
export function checkControlNodeLabels(
  cfg: ControlPlaneConfig,
  facts: ClusterFacts,
  stack: string,
): Finding[] {
  const ns = cfg.placement.nodeSelectors;
  if (!ns.enabled) return [];
  const out: Finding[] = [];
  for (const t of ["vault", "cassandra", "controlplane"] as const) {
    const term = ns[t] ?? ns.all;
    if (!term) continue;
    const n = facts.nodes.filter((x) => (x.metadata.labels ?? {})[term.key] === term.value).length;
    const key = ns[t] ? `nvcf:placement.nodeSelectors.${t}` : "nvcf:placement.nodeSelectors.all";
    out.push(
      n > 0
        ? pass("nodes.labels", stack, `node selector ${t}`, `${n} node(s) labelled ${term.key}=${term.value}`)
        : fail(
            "nodes.labels",
            stack,
            `node selector ${t}`,
            `no node is labelled ${term.key}=${term.value}`,
            `nodes carrying the label ${key} names, since node selectors are on`,
            `kubectl label node <node> ${term.key}=${term.value}, or change ${key}`,
          ),
    );
  }
  return out;
}

/** A compute stack's node selector (`placement.nodeSelector`, `nvcaOperator.nodeSelector`) matches a node. */
export function checkComputeNodeLabels(
  cfg: ComputePlaneConfig,
  facts: ClusterFacts,
  stack: string,
): Finding[] {
  const out: Finding[] = [];
  const terms = [
    ["nvcf:placement.nodeSelector", cfg.placement.nodeSelector],
    ["nvcf:nvcaOperator.nodeSelector", cfg.nvcaOperator.nodeSelector],
  ] as const;
  for (const [key, term] of terms) {
    if (!term) continue;
    const n = facts.nodes.filter((x) => (x.metadata.labels ?? {})[term.key] === term.value).length;
    out.push(
      n > 0
        ? pass("nodes.labels", stack, key, `${n} node(s) labelled ${term.key}=${term.value}`)
        : fail(
            "nodes.labels",
            stack,
            key,
            `no node is labelled ${term.key}=${term.value}`,
            `at least one node with the label ${key} names`,
            `kubectl label node <node> ${term.key}=${term.value}, or change ${key}`,
          ),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Kubernetes version

/**
 * The newest Kubernetes minor this program knows (the toolchain's kube-apiserver pin, toolchain/versions.env
 * KUBERNETES_VERSION 1.36.1). NVIDIA supports the latest minor and the two before it ("N-2", NVIDIA docs
 * `docs/user/cluster-management/index.md` "Supported Kubernetes Versions").
 */
export const NEWEST_KUBERNETES_MINOR = 36;
export const SUPPORTED_MINORS = 3;

const minorOf = (v?: { minor: string }) => (v ? parseInt(v.minor.replace(/[^0-9]/g, ""), 10) : NaN);

/** The server's minor in the supported range, and kubectl within one minor of it (docs/upstream-facts.md §4 row 35). */
export function checkVersion(facts: ClusterFacts, stack: string, label: string): Finding[] {
  const out: Finding[] = [];
  const server = minorOf(facts.serverVersion);
  const oldest = NEWEST_KUBERNETES_MINOR - SUPPORTED_MINORS + 1;
  const range = `1.${oldest}–1.${NEWEST_KUBERNETES_MINOR}`;
  const gv = facts.serverVersion?.gitVersion ?? "unknown";
  if (Number.isNaN(server))
    out.push(
      fail(
        "kubernetes.version",
        stack,
        label,
        "the server did not report its version",
        `a Kubernetes server in ${range}`,
        "check the context reaches a Kubernetes API server",
        "warning",
      ),
    );
  else if (server < oldest)
    out.push(
      fail(
        "kubernetes.version",
        stack,
        label,
        `Kubernetes ${gv}`,
        `a supported Kubernetes minor (${range}: the newest and the two before it)`,
        `upgrade the cluster to Kubernetes 1.${oldest} or later`,
      ),
    );
  else if (server > NEWEST_KUBERNETES_MINOR)
    out.push(
      fail(
        "kubernetes.version",
        stack,
        label,
        `Kubernetes ${gv}, newer than the newest minor this tool knows (1.${NEWEST_KUBERNETES_MINOR})`,
        `a Kubernetes minor in ${range}`,
        "check NVIDIA's release notes for this Kubernetes minor before installing",
        "warning",
      ),
    );
  else out.push(pass("kubernetes.version", stack, label, `Kubernetes ${gv} (supported: ${range})`));
  const client = minorOf(facts.clientVersion);
  if (!Number.isNaN(client) && !Number.isNaN(server) && Math.abs(client - server) > 1)
    out.push(
      fail(
        "kubernetes.client-skew",
        stack,
        label,
        `kubectl ${facts.clientVersion?.gitVersion} against server ${gv}`,
        "kubectl within one minor of the server (newer clients fail apply and patch)",
        `use a kubectl 1.${server - 1}–1.${server + 1} (nvcf:kubectlPath on compute stacks)`,
        "warning",
      ),
    );
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Gateway API (docs/upstream-facts.md §1.12, §4 row 18)

/** CRDs the routes need: TCPRoute is in the experimental channel only. */
export const GATEWAY_CRDS = [
  "gatewayclasses.gateway.networking.k8s.io",
  "gateways.gateway.networking.k8s.io",
  "httproutes.gateway.networking.k8s.io",
  "grpcroutes.gateway.networking.k8s.io",
  "referencegrants.gateway.networking.k8s.io",
  "tcproutes.gateway.networking.k8s.io",
] as const;

export function checkGatewayCrds(cfg: ControlPlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  if (cfg.gateway.install)
    return [
      pass(
        "gateway.crds",
        stack,
        "Gateway API CRDs",
        "installed with Envoy Gateway by this stack (nvcf:gateway.install)",
      ),
    ];
  const names = new Set(facts.crds.map((c) => c.name));
  const missing = GATEWAY_CRDS.filter((c) => !names.has(c));
  if (missing.length === 0)
    return [
      pass(
        "gateway.crds",
        stack,
        "Gateway API CRDs",
        "GatewayClass, Gateway, HTTPRoute, GRPCRoute, ReferenceGrant and TCPRoute are served",
      ),
    ];
  const tcpOnly = missing.length === 1 && missing[0].startsWith("tcproutes");
  return [
    fail(
      "gateway.crds",
      stack,
      "Gateway API CRDs",
      `missing CRD(s): ${missing.join(", ")}`,
      tcpOnly
        ? "the TCPRoute CRD of the experimental channel, for the grpc and nats TCPRoutes"
        : "the Gateway API CRDs v1.2.0 of the experimental channel (they include TCPRoute)",
      "kubectl apply --server-side -f https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.2.0/experimental-install.yaml",
    ),
  ];
}

/** The Gateways the config names exist, are Programmed and have an address; their listeners are present. */
export function checkGateways(cfg: ControlPlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  if (cfg.gateway.install)
    return [
      pass(
        "gateway.programmed",
        stack,
        `Gateway ${cfg.gateway.shared.namespace}/${cfg.gateway.shared.name}`,
        "installed by this stack (nvcf:gateway.install)",
      ),
    ];
  const out: Finding[] = [];
  const byId = new Map(facts.gateways.map((g) => [`${g.metadata.namespace}/${g.metadata.name}`, g]));
  const refs = new Map<string, string>();
  for (const need of requiredListeners(cfg)) {
    const r = cfg.gateway[need.gateway];
    refs.set(
      `${r.namespace}/${r.name}`,
      refs.has(`${r.namespace}/${r.name}`)
        ? `${refs.get(`${r.namespace}/${r.name}`)}, ${need.gateway}`
        : need.gateway,
    );
  }
  for (const [id, roles] of refs) {
    const gw = byId.get(id);
    const obj = `Gateway ${id}`;
    const keys = roles
      .split(", ")
      .map((r) => `nvcf:gateway.${r}`)
      .join(", ");
    if (!gw) {
      out.push(
        fail(
          "gateway.programmed",
          stack,
          obj,
          `no Gateway ${id} (named by ${keys})`,
          "a Gateway the routes attach to, Programmed by its controller",
          `create the Gateway with the listeners http 80, tcp 10081, nats 4222 (worker-tcp 10086), fix ${keys}, or set nvcf:gateway.install true`,
        ),
      );
      continue;
    }
    const prog = condition(gw, "Programmed");
    const addr = gw.status?.addresses?.[0]?.value as string | undefined;
    if (prog?.status !== "True")
      out.push(
        fail(
          "gateway.programmed",
          stack,
          obj,
          `Programmed is ${prog ? `${prog.status} (${prog.reason ?? "no reason"})` : "not reported"}`,
          "a Gateway its controller reports Programmed",
          `check the gateway controller (kubectl get gateway -n ${gw.metadata.namespace} ${gw.metadata.name} -o yaml, and the controller's logs in ${cfg.gateway.controllerNamespace || "its namespace"})`,
        ),
      );
    else if (!addr && !cfg.gateway.address)
      out.push(
        fail(
          "gateway.programmed",
          stack,
          obj,
          "Programmed, but no address in its status",
          "an address compute planes and nvcf-cli dial",
          "wait for the load balancer, or set nvcf:gateway.address to the address clients use",
        ),
      );
    else
      out.push(pass("gateway.programmed", stack, obj, `Programmed, address ${addr ?? cfg.gateway.address}`));
  }
  // Listeners: names (config/routes.ts missingListeners, also run by the program) and protocols.
  const gws: Record<string, { spec?: { listeners?: { name: string; port?: number; protocol?: string }[] } }> =
    {};
  for (const [id] of refs) if (byId.has(id)) gws[id] = byId.get(id) as never;
  const present = Object.fromEntries([...refs.keys()].map((id) => [id, gws[id]]));
  const problems = missingListeners(cfg, present).filter((p) => !/was not found/.test(p));
  for (const p of problems) {
    const m = /^Gateway (\S+) has no listener "([^"]+)"/.exec(p);
    const doc = GATEWAY_LISTENERS.find((l) => l.name === m?.[2]);
    out.push(
      fail(
        "gateway.listeners",
        stack,
        `Gateway ${m?.[1] ?? "?"}`,
        p.replace(/^Gateway \S+ /, ""),
        `a listener "${m?.[2]}"${doc ? ` (${doc.protocol} ${doc.port})` : ""}, which the enabled routes attach to`,
        `add the listener to the Gateway's spec.listeners${doc ? ` (name ${doc.name}, protocol ${doc.protocol}, port ${doc.port})` : ""}`,
      ),
    );
  }
  for (const need of requiredListeners(cfg)) {
    const r = cfg.gateway[need.gateway];
    const gw = byId.get(`${r.namespace}/${r.name}`);
    const l = (gw?.spec?.listeners ?? []).find((x: { name: string }) => x.name === need.listener) as
      | { protocol?: string }
      | undefined;
    if (!l) continue;
    const wantHttp = need.gateway === "shared";
    const okProto = wantHttp ? ["HTTP", "HTTPS"].includes(l.protocol ?? "") : l.protocol === "TCP";
    if (!okProto)
      out.push(
        fail(
          "gateway.listeners",
          stack,
          `Gateway ${r.namespace}/${r.name}`,
          `listener "${need.listener}" has protocol ${l.protocol}`,
          `protocol ${wantHttp ? "HTTP (or HTTPS)" : "TCP"} for the ${wantHttp ? "HTTPRoutes" : "TCPRoutes"} that attach to it`,
          `set the listener's protocol to ${wantHttp ? "HTTP" : "TCP"}`,
        ),
      );
  }
  if (problems.length === 0 && refs.size > 0 && [...refs.keys()].every((id) => byId.has(id)))
    out.push(
      pass(
        "gateway.listeners",
        stack,
        [...refs.keys()].map((id) => `Gateway ${id}`).join(", "),
        `listeners ${[...new Set(requiredListeners(cfg).map((n) => n.listener))].join(", ")} present`,
      ),
    );
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Storage

const isDefault = (sc: KubeObject) =>
  sc.metadata.annotations?.["storageclass.kubernetes.io/is-default-class"] === "true" ||
  sc.metadata.annotations?.["storageclass.beta.kubernetes.io/is-default-class"] === "true";

/** The configured StorageClass, or a default one, exists for the Cassandra, OpenBao and NATS claims. */
export function checkStorage(cfg: ControlPlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  const users = [
    cfg.cassandra.enabled && "Cassandra",
    cfg.openbao.enabled && "OpenBao",
    cfg.nats.enabled && "NATS",
  ]
    .filter(Boolean)
    .join(", ");
  if (!users) return [];
  const name = cfg.storage.className;
  if (name) {
    const sc = facts.storageClasses.find((s) => s.metadata.name === name);
    return [
      sc
        ? pass(
            "storage.class",
            stack,
            `StorageClass ${name}`,
            `exists (provisioner ${(sc as { provisioner?: string }).provisioner ?? "?"})`,
          )
        : fail(
            "storage.class",
            stack,
            `StorageClass ${name}`,
            `no StorageClass ${name} (nvcf:storage.className)`,
            `the StorageClass the volume claims of ${users} name`,
            `create StorageClass ${name}, or pulumi config set --path nvcf:storage.className <existing class> ("" for the default)`,
          ),
    ];
  }
  const defaults = facts.storageClasses.filter(isDefault);
  if (defaults.length === 0)
    return [
      fail(
        "storage.class",
        stack,
        "default StorageClass",
        facts.storageClasses.length
          ? `no default StorageClass among ${facts.storageClasses.map((s) => s.metadata.name).join(", ")}`
          : "no StorageClass at all",
        `a default StorageClass, since the volume claims of ${users} name none (nvcf:storage.className is empty)`,
        "mark one default (kubectl annotate storageclass <name> storageclass.kubernetes.io/is-default-class=true), or pulumi config set --path nvcf:storage.className <name>",
      ),
    ];
  const d = defaults[0] as KubeObject & { provisioner?: string };
  return [
    pass(
      "storage.class",
      stack,
      `StorageClass ${d.metadata.name}`,
      `default StorageClass ${d.metadata.name} (provisioner ${d.provisioner ?? "?"}) for ${users}`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// cert-manager and OpenBao issuer (docs/upstream-facts.md §4 rows 6 and 26)

const CM_CRDS = ["certificates.cert-manager.io", "issuers.cert-manager.io", "clusterissuers.cert-manager.io"];

/**
 * `certManager.managed: true` with a cert-manager not installed by this stack's release `cert-manager` in
 * namespace `cert-manager` is refused (the stack would own and on destroy remove it); with `managed: false`
 * and the managed LLM issuer, the external install must provide the CRDs and ServiceAccount cert-manager.
 */
export function checkCertManager(cfg: ControlPlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  const crds = facts.crds.filter((c) => CM_CRDS.includes(c.name) || c.name.endsWith(".cert-manager.io"));
  const ours = (rel?: string, ns?: string) => rel === "cert-manager" && ns === "cert-manager";
  const foreignCrd = crds.find((c) => !ours(c.helmRelease, c.helmNamespace));
  const foreignDeploy = facts.certManagerDeployments.find(
    (d) =>
      !ours(
        d.metadata.annotations?.["meta.helm.sh/release-name"],
        d.metadata.annotations?.["meta.helm.sh/release-namespace"],
      ),
  );
  const obj = "cert-manager";
  if (cfg.certManager.managed) {
    if (foreignCrd || foreignDeploy) {
      const what = foreignDeploy
        ? `Deployment ${foreignDeploy.metadata.namespace}/${foreignDeploy.metadata.name}`
        : `CRD ${foreignCrd?.name}`;
      const owner = foreignDeploy
        ? foreignDeploy.metadata.annotations?.["meta.helm.sh/release-name"]
        : foreignCrd?.helmRelease;
      return [
        fail(
          "certmanager.external",
          stack,
          obj,
          `an existing cert-manager (${what}, ${owner ? `Helm release ${owner}` : "not installed by Helm"}) that this stack did not install`,
          "nvcf:certManager.managed false when cert-manager is installed outside this stack, or the stack would take it over and remove it on destroy",
          "pulumi config set --path nvcf:certManager.managed false",
        ),
      ];
    }
    return [
      pass(
        "certmanager.external",
        stack,
        obj,
        crds.length
          ? "cert-manager is this stack's release cert-manager/cert-manager"
          : "no cert-manager installed yet; the stack installs it",
      ),
    ];
  }
  if (!stackReleases(cfg).flags.llmManagedPki)
    return [
      pass(
        "certmanager.external",
        stack,
        obj,
        "not managed by this stack and not needed by the enabled releases",
      ),
    ];
  const missing = CM_CRDS.filter((n) => !crds.some((c) => c.name === n));
  if (missing.length || !facts.certManagerServiceAccount)
    return [
      fail(
        "certmanager.external",
        stack,
        obj,
        `${missing.length ? `missing CRD(s) ${missing.join(", ")}` : "the CRDs exist"}${facts.certManagerServiceAccount ? "" : ", no ServiceAccount cert-manager/cert-manager"}`,
        "an external cert-manager with its CRDs and ServiceAccount cert-manager in namespace cert-manager, for the managed LLM ClusterIssuer",
        "install cert-manager in namespace cert-manager, or pulumi config set --path nvcf:certManager.managed true",
      ),
    ];
  return [
    pass(
      "certmanager.external",
      stack,
      obj,
      "an external cert-manager with its CRDs and ServiceAccount cert-manager/cert-manager",
    ),
  ];
}

/** Issuers that vanilla clusters report (not a managed OIDC issuer). */
export const DEFAULT_ISSUERS = [
  "https://kubernetes.default.svc.cluster.local",
  "https://kubernetes.default.svc",
  "kubernetes/serviceaccount",
];

/** A managed (non-default) service-account issuer needs `openbao.issuerDiscovery: true`. */
export function checkIssuer(
  cfg: ControlPlaneConfig,
  facts: ClusterFacts,
  stack: string,
  label: string,
): Finding[] {
  if (!cfg.openbao.enabled) return [];
  const iss = facts.openid?.issuer;
  if (!iss)
    return [
      fail(
        "openbao.issuer",
        stack,
        label,
        "the API server serves no /.well-known/openid-configuration",
        "service-account issuer discovery, which OpenBao's JWT auth and cluster registration read",
        "enable the API server's service-account issuer discovery (--service-account-issuer, --service-account-jwks-uri)",
        cfg.openbao.issuerDiscovery ? "error" : "warning",
      ),
    ];
  if (!DEFAULT_ISSUERS.includes(iss) && !cfg.openbao.issuerDiscovery)
    return [
      fail(
        "openbao.issuer",
        stack,
        label,
        `service-account issuer ${iss} (a managed OIDC issuer) with nvcf:openbao.issuerDiscovery false`,
        'issuer discovery on, else vault-agent-init fails with 400 "no known key successfully validated the token signature"',
        "pulumi config set --path nvcf:openbao.issuerDiscovery true",
      ),
    ];
  return [
    pass(
      "openbao.issuer",
      stack,
      label,
      `service-account issuer ${iss}, issuer discovery ${cfg.openbao.issuerDiscovery ? "on" : "off"}`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// GPU clusters (docs/upstream-facts.md §2.9, §4 rows 9, 12, 14)

const GPU = "nvidia.com/gpu";
const GPU_LABEL = "nvidia.com/gpu.present";
const gpuCount = (n: KubeObject) => parseInt(String(n.status?.allocatable?.[GPU] ?? "0"), 10) || 0;

/** The GPU operator runs: GPU nodes advertise `nvidia.com/gpu` (device plugin) and carry its labels (feature discovery). */
export function checkGpuOperator(facts: ClusterFacts, stack: string): Finding[] {
  const out: Finding[] = [];
  const withGpu = facts.nodes.filter((n) => gpuCount(n) > 0);
  const labelled = facts.nodes.filter((n) => n.metadata.labels?.[GPU_LABEL] === "true");
  for (const n of withGpu.filter((x) => !labelled.includes(x)))
    out.push(
      fail(
        "gpu.operator",
        stack,
        `node ${n.metadata.name}`,
        `advertises ${gpuCount(n)} ${GPU} but has no ${GPU_LABEL}=true label`,
        "the GPU operator's node labels (GPU feature discovery) on every GPU node",
        `check the GPU operator's gpu-feature-discovery pod on ${n.metadata.name} (kubectl get pods -A -o wide --field-selector spec.nodeName=${n.metadata.name})`,
      ),
    );
  for (const n of labelled.filter((x) => !withGpu.includes(x)))
    out.push(
      fail(
        "gpu.operator",
        stack,
        `node ${n.metadata.name}`,
        `labelled ${GPU_LABEL}=true but advertises no allocatable ${GPU}`,
        `the GPU operator's device plugin advertising ${GPU} on the node`,
        `check the GPU operator's nvidia-device-plugin pod on ${n.metadata.name}`,
      ),
    );
  if (withGpu.length === 0 && labelled.length === 0)
    out.push(
      fail(
        "gpu.operator",
        stack,
        "GPU nodes",
        `no node advertises ${GPU} or carries ${GPU_LABEL}`,
        "the NVIDIA GPU Operator on the GPU cluster (or the fake GPU operator for tests)",
        "install the NVIDIA GPU Operator (helm install gpu-operator nvidia/gpu-operator -n gpu-operator --create-namespace)",
      ),
    );
  if (out.length === 0)
    out.push(
      pass(
        "gpu.operator",
        stack,
        "GPU nodes",
        `${withGpu.length} GPU node(s) advertise ${GPU} and carry the GPU operator's labels`,
      ),
    );
  return out;
}

/** The SMB CSI driver (`smb.csi.k8s.io`) when NVCA's shared storage gate (HelmSharedStorage) is on. */
export function checkSmbCsi(cfg: ComputePlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  const on = featureGates(cfg).includes("HelmSharedStorage");
  const has = facts.csiDrivers.some((d) => d.metadata.name === "smb.csi.k8s.io");
  if (has) return [pass("csi.smb", stack, "CSIDriver smb.csi.k8s.io", "installed")];
  if (!on)
    return [
      pass(
        "csi.smb",
        stack,
        "CSIDriver smb.csi.k8s.io",
        "not installed; needed only with the HelmSharedStorage gate (shared storage), which is off",
      ),
    ];
  return [
    fail(
      "csi.smb",
      stack,
      "CSIDriver smb.csi.k8s.io",
      "no CSIDriver smb.csi.k8s.io",
      "the SMB CSI driver, because the HelmSharedStorage gate (NVCA shared storage, samba sidecar) is on",
      "helm install csi-driver-smb csi-driver-smb/csi-driver-smb -n kube-system --version v1.17.0 (repo https://raw.githubusercontent.com/kubernetes-csi/csi-driver-smb/master/charts)",
    ),
  ];
}

/**
 * KAI (docs/upstream-facts.md §4 row 9). With the add-on on, the stack installs KAI: a KAI already running in
 * the cluster from elsewhere (a `kai-operator` Deployment, no Helm release kai-scheduler/kai-scheduler) would
 * clash. KAI's CRDs alone are not a clash: Helm installs a chart's `crds/` once and never deletes them, so an
 * earlier install that was uninstalled leaves them, and the stack's release reuses them.
 * With only the KAIScheduler gate (the config rules refuse that today), KAI and its two queues must exist.
 */
export function checkKai(cfg: ComputePlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  const gate = featureGates(cfg).includes("KAIScheduler");
  const crd = facts.crds.some((c) => c.name === "queues.scheduling.run.ai");
  const obj = "KAI scheduler";
  if (cfg.addons.kaiScheduler.enabled) {
    const ours = facts.helmReleases.includes("kai-scheduler/kai-scheduler");
    const running = (facts.kaiOperators ?? []).map((d) => `${d.metadata.namespace}/${d.metadata.name}`);
    if (running.length && !ours)
      return [
        fail(
          "kai.scheduler",
          stack,
          obj,
          `KAI is already running outside this stack (Deployment ${running.join(", ")}, no Helm release kai-scheduler/kai-scheduler)`,
          "one KAI per cluster: the stack's kai-scheduler release, or the existing one with the add-on off",
          "pulumi config set --path nvcf:addons.kaiScheduler.enabled false (and keep the KAIScheduler gate), or uninstall the existing KAI",
        ),
      ];
    return [
      pass(
        "kai.scheduler",
        stack,
        obj,
        ours
          ? "the stack's release kai-scheduler/kai-scheduler"
          : crd
            ? "not installed; KAI's CRDs are left from an earlier install (Helm keeps crds/), the stack's release reuses them"
            : "not installed yet; the stack installs it (nvcf:addons.kaiScheduler.enabled)",
      ),
    ];
  }
  if (!gate) return [];
  const names = facts.kaiQueues.map((q) => q.metadata.name);
  const missing = ["default-parent-queue", "default-queue"].filter((q) => !names.includes(q));
  if (!crd || missing.length)
    return [
      fail(
        "kai.scheduler",
        stack,
        obj,
        crd
          ? `no KAI queue(s) ${missing.join(", ")}`
          : "KAI is not installed (no queues.scheduling.run.ai CRD)",
        "KAI in namespace kai-scheduler with queues default-parent-queue and default-queue (quota and limit -1), because the KAIScheduler gate is on",
        crd
          ? "create the two queues (NVIDIA docs: cluster-management/self-managed.md)"
          : "pulumi config set --path nvcf:addons.kaiScheduler.enabled true, or install KAI and create its queues",
      ),
    ];
  return [pass("kai.scheduler", stack, obj, "KAI and the queues default-parent-queue, default-queue exist")];
}

/**
 * Node inotify limits (row 12). The API does not expose sysctls; the stack's `node-inotify-tuner` DaemonSet
 * (tolerates every taint, no selector) sets them on each node. Checked: the nodes it will run on, and, with
 * `inotify.requireGpuNodes`, that GPU nodes are among them.
 */
export function checkInotify(cfg: ComputePlaneConfig, facts: ClusterFacts, stack: string): Finding[] {
  const ready = facts.nodes.filter((n) => condition(n, "Ready")?.status === "True");
  const gpu = ready.filter((n) => gpuCount(n) > 0 || n.metadata.labels?.[GPU_LABEL] === "true");
  const obj = "DaemonSet kube-system/node-inotify-tuner";
  const sets = `fs.inotify.max_user_instances=${cfg.inotify.maxUserInstances} and max_user_watches=${cfg.inotify.maxUserWatches}`;
  if (cfg.inotify.requireGpuNodes && gpu.length === 0)
    return [
      fail(
        "nodes.inotify",
        stack,
        obj,
        "no Ready GPU node for the tuner to run on",
        `Ready GPU nodes, where the tuner sets ${sets}`,
        "add Ready GPU nodes, or pulumi config set --path nvcf:inotify.requireGpuNodes false",
      ),
    ];
  return [
    pass(
      "nodes.inotify",
      stack,
      obj,
      `the tuner will set ${sets} on ${ready.length} Ready node(s), ${gpu.length} of them GPU nodes (current values are not readable through the Kubernetes API)`,
    ),
  ];
}

/** One cluster's identity for the comparisons: kube-system UID and the JWKS key ids. */
export interface ClusterIdentity {
  label: string;
  uid?: string;
  kids: string[];
  issuer?: string;
}

export const identityOf = (label: string, f: ClusterFacts): ClusterIdentity => ({
  label,
  uid: f.clusterUid,
  kids: (f.jwks?.keys ?? []).map((k) => k.kid ?? k.n ?? "").filter(Boolean),
  issuer: f.openid?.issuer,
});

export const sameCluster = (a: ClusterIdentity, b: ClusterIdentity) =>
  (a.uid !== undefined && a.uid === b.uid) || a.kids.some((k) => b.kids.includes(k));

/**
 * Each GPU cluster's kubeconfig reaches the cluster it names (row 14): the control plane's registration
 * access (`gpuClusters[].context` or `gpuClusterKubeconfigs`) and the compute stack's own access reach the
 * same cluster, which is neither the control-plane cluster nor another GPU cluster (distinct JWKS).
 */
export function checkGpuIdentity(
  stack: string,
  clusterName: string,
  own: ClusterIdentity,
  registration: ClusterIdentity | undefined,
  control: ClusterIdentity | undefined,
  others: { stack: string; id: ClusterIdentity }[],
): Finding[] {
  const obj = `GPU cluster ${clusterName}`;
  const out: Finding[] = [];
  if (own.kids.length === 0)
    out.push(
      fail(
        "gpu.identity",
        stack,
        obj,
        `${own.label} serves no service-account keys (/openid/v1/jwks)`,
        "the GPU cluster's JWKS, which registration sends to ICMS",
        "enable service-account issuer discovery on the GPU cluster's API server",
      ),
    );
  if (registration && !sameCluster(own, registration))
    out.push(
      fail(
        "gpu.identity",
        stack,
        obj,
        `the control plane registers it through ${registration.label}, which reaches another cluster than this stack's ${own.label}`,
        'registration through the GPU cluster\'s own kubeconfig, else its pods fail with "Signed JWT rejected: no matching key(s) found"',
        `point nvcf:gpuClusters[name=${clusterName}].context (control stack) and nvcf:kubernetes.context (${stack}) at the same GPU cluster`,
      ),
    );
  if (control && sameCluster(own, control))
    out.push(
      fail(
        "gpu.identity",
        stack,
        obj,
        `${own.label} reaches the control-plane cluster (same service-account keys)`,
        "the GPU cluster's own kubeconfig",
        `set nvcf:kubernetes.context of ${stack} to the GPU cluster's context`,
        "warning",
      ),
    );
  for (const o of others)
    if (sameCluster(own, o.id))
      out.push(
        fail(
          "gpu.identity",
          stack,
          obj,
          `${own.label} reaches the same cluster as ${o.stack} (${o.id.label})`,
          "one compute-plane stack per GPU cluster, each with distinct service-account keys",
          `point nvcf:kubernetes.context of ${stack} or ${o.stack} at its own cluster`,
        ),
      );
  if (out.length === 0) {
    const shared = [control, ...others.map((o) => o.id)].filter(
      (x) => x?.issuer && x.issuer === own.issuer,
    ).length;
    out.push(
      pass(
        "gpu.identity",
        stack,
        obj,
        `${own.label}${registration ? ` and the registration's ${registration.label}` : ""} reach the same cluster, with service-account keys distinct from every other cluster of the environment${shared ? ` (the issuer ${own.issuer} is shared, as on vanilla clusters; the keys tell them apart)` : ""}`,
      ),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// NVIDIA's observability stack (both planes; deploy/stacks/observability)

/** The CRDs of the observability stack's infrastructure: what the default monitors and the collector create. */
const MONITOR_CRDS = ["servicemonitors.monitoring.coreos.com", "podmonitors.monitoring.coreos.com"];
const COLLECTOR_CRD = "opentelemetrycollectors.opentelemetry.io";

/**
 * The observability stack a stack installs on its cluster, against what the cluster already runs (as
 * `checkCertManager` and `checkKai` do for theirs). With `install` mode, a component installed outside this
 * stack would clash (Helm refuses to adopt CRDs another release owns, "invalid ownership metadata") and, on
 * destroy, the stack would remove it: the Prometheus Operator CRDs (monitoring.coreos.com) or the OpenTelemetry
 * Operator (its opentelemetry.io CRDs, or a Deployment labelled app.kubernetes.io/name=opentelemetry-operator)
 * not owned by this stack's release in the observability namespace. With `existing` mode, what the stack then
 * uses must be there: the ServiceMonitor/PodMonitor CRDs, and the OpenTelemetryCollector CRD when the stack
 * installs the collector. And one observability stack per cluster (NVIDIA's README): one of its release names in
 * another namespace is another installation. Input: the stack's config (either plane), the cluster facts (read
 * with `observability: true`), the stack. Output: findings of check `observability.external` (none when the
 * stack installs no observability stack there).
 */
export function checkObservabilityStack(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  facts: ClusterFacts,
  stack: string,
): Finding[] {
  const plane = cfg.plane;
  const o: ObservabilitySettings = cfg.observability;
  if (!installsObservability(plane, o, cfg.bundleVersion)) return [];
  const ns = o.namespace;
  const c = o.components;
  const obj = `observability stack (namespace ${ns})`;
  const out: Finding[] = [];
  const bad = (found: string, needed: string, fix: string) =>
    out.push(fail("observability.external", stack, obj, found, needed, fix));
  const set = (key: string, value: string) => `pulumi config set --path nvcf:observability.${key} ${value}`;
  const owner = (rel?: string, relNs?: string) =>
    rel ? `Helm release ${relNs ?? "?"}/${rel}` : "not installed by Helm";
  const ours = (release: string) => (rel?: string, relNs?: string) => rel === release && relNs === ns;

  const elsewhere = facts.helmReleases.filter((r) => {
    const [rNs, name] = r.split("/");
    return rNs !== ns && (OBSERVABILITY_RELEASE_NAMES as readonly string[]).includes(name);
  });
  if (elsewhere.length)
    bad(
      `another installation of NVIDIA's observability stack on this cluster (Helm release ${elsewhere.join(", ")})`,
      "the observability stack installed at most once per cluster (deploy/stacks/observability/README.md), by this stack in namespace " +
        ns,
      plane === "compute"
        ? `keep the other one: ${set("install", "false")} -s ${stack}; or uninstall it first`
        : `keep the other one: ${set("profile", "disabled")} -s ${stack}, or set nvcf:observability.namespace to its namespace; or uninstall it first`,
    );

  const monitorCrds = facts.crds.filter((x) => x.name.endsWith(".monitoring.coreos.com"));
  if (c.prometheusOperatorCrds === "install") {
    const foreign = monitorCrds.find(
      (x) => !ours("prometheus-operator-crds")(x.helmRelease, x.helmNamespace),
    );
    if (foreign)
      bad(
        `Prometheus Operator CRDs installed outside this stack (CRD ${foreign.name}, ${owner(foreign.helmRelease, foreign.helmNamespace)})`,
        "observability.components.prometheusOperatorCrds existing when the CRDs are installed outside this stack (its release would clash with them and, on destroy, remove them with every monitor of the cluster)",
        `${set("components.prometheusOperatorCrds", "existing")} -s ${stack}`,
      );
  } else if (c.prometheusOperatorCrds === "existing") {
    const missing = MONITOR_CRDS.filter((n) => !facts.crds.some((x) => x.name === n));
    if (missing.length)
      bad(
        `no CRD ${missing.join(", ")}`,
        "the Prometheus Operator CRDs the default monitors create objects of (observability.components.prometheusOperatorCrds: existing)",
        `install the Prometheus Operator CRDs, or ${set("components.prometheusOperatorCrds", "install")} -s ${stack}`,
      );
  }

  const otelCrds = facts.crds.filter((x) => x.name.endsWith(".opentelemetry.io"));
  if (c.otelOperator === "install") {
    const isOurs = ours("opentelemetry-operator");
    const foreignCrd = otelCrds.find((x) => !isOurs(x.helmRelease, x.helmNamespace));
    const foreignDeploy = (facts.otelOperators ?? []).find(
      (d) =>
        !isOurs(
          d.metadata.annotations?.["meta.helm.sh/release-name"],
          d.metadata.annotations?.["meta.helm.sh/release-namespace"],
        ),
    );
    if (foreignCrd || foreignDeploy)
      bad(
        `an OpenTelemetry Operator installed outside this stack (${
          foreignDeploy
            ? `Deployment ${foreignDeploy.metadata.namespace}/${foreignDeploy.metadata.name}, ${owner(foreignDeploy.metadata.annotations?.["meta.helm.sh/release-name"], foreignDeploy.metadata.annotations?.["meta.helm.sh/release-namespace"])}`
            : `CRD ${foreignCrd?.name}, ${owner(foreignCrd?.helmRelease, foreignCrd?.helmNamespace)}`
        })`,
        "observability.components.otelOperator existing when an OpenTelemetry Operator runs outside this stack (one operator per cluster; its CRDs would clash)",
        `${set("components.otelOperator", "existing")} -s ${stack}`,
      );
  } else if (
    c.otelOperator === "existing" &&
    c.collector === "install" &&
    !otelCrds.some((x) => x.name === COLLECTOR_CRD)
  )
    bad(
      `no CRD ${COLLECTOR_CRD}`,
      "an OpenTelemetry Operator that serves OpenTelemetryCollector objects, for the collector this stack installs (observability.components.otelOperator: existing)",
      `install the OpenTelemetry Operator, or ${set("components.otelOperator", "install")} -s ${stack}`,
    );

  if (out.length === 0) {
    const uses = [
      c.prometheusOperatorCrds === "existing" ? "the existing Prometheus Operator CRDs" : "",
      c.otelOperator === "existing" ? "the existing OpenTelemetry Operator" : "",
    ].filter(Boolean);
    out.push(
      pass(
        "observability.external",
        stack,
        obj,
        `no other observability stack, Prometheus Operator CRDs or OpenTelemetry Operator in the way${uses.length ? `; uses ${uses.join(" and ")}` : ""}`,
      ),
    );
  }
  return out;
}

/**
 * One observability stack per cluster across the environment: a GPU cluster that is the control-plane cluster
 * (same service-account keys, `checkGpuIdentity`) gets it from the control plane when both would install it.
 * Input: the compute stack, whether it and the control plane install it, whether the clusters are the same.
 * Output: a finding of check `observability.external` when both would, else none.
 */
export function checkObservabilityOnce(
  stack: string,
  controlStack: string,
  computeInstalls: boolean,
  controlInstalls: boolean,
  sameClusterAsControl: boolean,
): Finding[] {
  if (!(computeInstalls && controlInstalls && sameClusterAsControl)) return [];
  return [
    fail(
      "observability.external",
      stack,
      "observability stack",
      `this GPU cluster is the control-plane cluster, where stack ${controlStack} installs NVIDIA's observability stack too`,
      "the observability stack installed at most once per cluster (deploy/stacks/observability/README.md): by the control plane, with its profile all giving both monitor families",
      `pulumi config set --path nvcf:observability.install false -s ${stack} (NVCA's collector still follows nvcf:observability.profile), and nvcf:observability.profile all -s ${controlStack}`,
    ),
  ];
}
