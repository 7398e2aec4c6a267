/**
 * What the preflight reads from one cluster, in one parallel round of read-only kubectl calls. The checks
 * (cli/preflight/checks.ts) are pure functions of these facts and the validated config, so they are unit
 * tested on recorded or constructed cluster JSON.
 */
import type { Kube, KubeObject } from "../../kube/kubectl";

/** A CustomResourceDefinition's name and the Helm release that owns it (annotations), if any. */
export interface CrdFact {
  name: string;
  helmRelease?: string;
  helmNamespace?: string;
}

/** The facts of one cluster. Absent lists are empty; `openid`/`jwks` are undefined when not served. */
export interface ClusterFacts {
  /** `kube-system` namespace UID: a stable identity of the cluster. */
  clusterUid?: string;
  serverVersion?: { major: string; minor: string; gitVersion: string };
  clientVersion?: { major: string; minor: string; gitVersion: string };
  nodes: KubeObject[];
  storageClasses: KubeObject[];
  crds: CrdFact[];
  csiDrivers: KubeObject[];
  /** Gateway API Gateways in every namespace (control clusters). */
  gateways: KubeObject[];
  /** Deployments labelled `app.kubernetes.io/name=cert-manager` in any namespace (control clusters). */
  certManagerDeployments: KubeObject[];
  /** ServiceAccount `cert-manager/cert-manager`, when present. */
  certManagerServiceAccount?: KubeObject;
  /** KAI `Queue` objects (`queues.scheduling.run.ai`), when the CRD exists. */
  kaiQueues: KubeObject[];
  /**
   * Deployments named `kai-operator` (the KAI chart's operator) in any namespace: a KAI that runs. Read with
   * the KAI facts; absent in facts built without them.
   */
  kaiOperators?: KubeObject[];
  /** Helm releases recorded in the cluster, as `namespace/name` (read with the KAI and observability facts). */
  helmReleases: string[];
  /**
   * Deployments labelled `app.kubernetes.io/name=opentelemetry-operator` in any namespace (the OpenTelemetry
   * Operator chart's label): an operator that runs. Read with the observability facts.
   */
  otelOperators?: KubeObject[];
  /** `/.well-known/openid-configuration` of the API server. */
  openid?: { issuer?: string; jwks_uri?: string };
  /** `/openid/v1/jwks`: the service-account signing keys. */
  jwks?: { keys?: { kid?: string; n?: string }[] };
}

/**
 * Which parts to read: control-plane clusters need Gateway API and cert-manager facts, GPU clusters KAI, a
 * cluster the stack installs NVIDIA's observability stack on the observability facts.
 */
export interface FactNeeds {
  gateways?: boolean;
  certManager?: boolean;
  kai?: boolean;
  observability?: boolean;
}

const CRD_COLUMNS =
  'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.metadata.annotations.meta\\.helm\\.sh/release-name}{"\\t"}{.metadata.annotations.meta\\.helm\\.sh/release-namespace}{"\\n"}{end}';

const HELM_COLUMNS = 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.labels.name}{"\\n"}{end}';

/**
 * Reads the facts of one cluster (all calls in parallel, read-only). Throws `KubeError` when the cluster does
 * not answer the first call (`kubectl version`); later calls that fail for a kind the cluster does not serve
 * give empty lists.
 */
export async function gatherFacts(kube: Kube, needs: FactNeeds): Promise<ClusterFacts> {
  const version = await kube.json<{
    serverVersion?: ClusterFacts["serverVersion"];
    clientVersion?: ClusterFacts["clientVersion"];
  }>(["version"]);
  const crdsText = kube.run(["get", "crd", "-o", CRD_COLUMNS]);
  const [ns, nodes, storageClasses, crdOut, csiDrivers, openid, jwks] = await Promise.all([
    kube.maybe<KubeObject>(["get", "namespace", "kube-system"]),
    kube.items(["nodes"]),
    kube.items(["storageclasses.storage.k8s.io"]),
    crdsText,
    kube.items(["csidrivers.storage.k8s.io"]),
    kube.raw<ClusterFacts["openid"]>("/.well-known/openid-configuration").catch(() => undefined),
    kube.raw<ClusterFacts["jwks"]>("/openid/v1/jwks").catch(() => undefined),
  ]);
  const crds: CrdFact[] = crdOut.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [name, rel, relNs] = l.split("\t");
      return { name, helmRelease: rel || undefined, helmNamespace: relNs || undefined };
    });
  const has = (n: string) => crds.some((c) => c.name === n);
  const [
    gateways,
    certManagerDeployments,
    certManagerServiceAccount,
    kaiQueues,
    helm,
    kaiOperators,
    otelOperators,
  ] = await Promise.all([
    needs.gateways && has("gateways.gateway.networking.k8s.io")
      ? kube.items(["gateways.gateway.networking.k8s.io", "-A"])
      : Promise.resolve([]),
    needs.certManager
      ? kube.items(["deployments.apps", "-A", "-l", "app.kubernetes.io/name=cert-manager"])
      : Promise.resolve([]),
    needs.certManager
      ? kube.maybe<KubeObject>(["get", "serviceaccount", "cert-manager", "-n", "cert-manager"])
      : Promise.resolve(undefined),
    needs.kai && has("queues.scheduling.run.ai")
      ? kube.items(["queues.scheduling.run.ai", "-A"])
      : Promise.resolve([]),
    needs.kai || needs.observability
      ? kube.run(["get", "secrets", "-A", "-l", "owner=helm", "-o", HELM_COLUMNS])
      : Promise.resolve({ code: 0, stdout: "", stderr: "" }),
    needs.kai
      ? kube.items(["deployments.apps", "-A", "--field-selector", "metadata.name=kai-operator"])
      : Promise.resolve([]),
    needs.observability
      ? kube.items(["deployments.apps", "-A", "-l", "app.kubernetes.io/name=opentelemetry-operator"])
      : Promise.resolve(undefined),
  ]);
  return {
    clusterUid: ns?.metadata.uid,
    serverVersion: version.serverVersion,
    clientVersion: version.clientVersion,
    nodes,
    storageClasses,
    crds,
    csiDrivers,
    gateways,
    certManagerDeployments,
    certManagerServiceAccount,
    kaiQueues,
    kaiOperators,
    otelOperators,
    helmReleases: [...new Set(helm.stdout.split("\n").filter(Boolean))],
    openid,
    jwks,
  };
}
