/**
 * The preflight and health checks (cli/preflight/checks.ts, cli/preflight/charts.ts, cli/health/*) on
 * constructed cluster JSON: each check passes on a good cluster and names the object, what was found, what is
 * needed and the fix when one condition is broken. The same checks run against the local clusters in
 * tests/e2e/checks.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { readStackFiles } from "../../../../cli/environment";
import {
  type ExpectedRelease,
  type LiveState,
  checkCompute,
  checkHooks,
  checkObservability,
  checkReleases,
  checkRoutes,
  checkWorkloads,
} from "../../../../cli/health/checks";
import { expectedObservability } from "../../../../cli/health/index";
import { releasesByName } from "../../../../cli/health/helm";
import { type HelmRelease, decodeHelmRelease, encodeHelmRelease } from "../../../../kube/helmRecords";
import type { KubeObject } from "../../../../kube/kubectl";
import {
  type ChartToCheck,
  checkLocalChart,
  chartsToCheck,
  pullCause,
} from "../../../../cli/preflight/charts";
import {
  checkCertManager,
  checkControlNodeLabels,
  checkGatewayCrds,
  checkGateways,
  checkGpuIdentity,
  checkGpuOperator,
  checkInotify,
  checkIssuer,
  checkKai,
  checkObservabilityOnce,
  checkObservabilityStack,
  checkReplicaNodes,
  checkSmbCsi,
  checkStorage,
  checkVersion,
  GATEWAY_CRDS,
  schedulable,
} from "../../../../cli/preflight/checks";
import { checkedStack } from "../../../../cli/stacks";
import type { ClusterFacts } from "../../../../cli/preflight/facts";
import type { Finding, StackFile } from "../../../../cli/types";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../../config/schema";

const ROOT = path.resolve(__dirname, "../../../..");

/** A stack file of the checkout, as cli/environment.ts `readStackFiles` reads it. */
function stackFile(stack: string): StackFile {
  const file = readStackFiles(ROOT).find((s) => s.stack === stack);
  if (!file) throw new Error(`no Pulumi.${stack}.yaml in ${ROOT}`);
  return file;
}
const devCfg = () => structuredClone(checkedStack(stackFile("dev")).config) as ControlPlaneConfig;
const gpuCfg = (s = "dev-gpu-a") => structuredClone(checkedStack(stackFile(s)).config) as ComputePlaneConfig;

const ready = [{ type: "Ready", status: "True" }];
const node = (
  name: string,
  extra: { labels?: Record<string, string>; gpu?: number; taints?: object[]; notReady?: boolean } = {},
): KubeObject => ({
  metadata: { name, labels: { "kubernetes.io/hostname": name, ...(extra.labels ?? {}) } },
  spec: { taints: extra.taints },
  status: {
    conditions: extra.notReady ? [{ type: "Ready", status: "False" }] : ready,
    allocatable: { cpu: "32", ...(extra.gpu ? { "nvidia.com/gpu": String(extra.gpu) } : {}) },
  },
});
const gpuNode = (name: string) => node(name, { gpu: 8, labels: { "nvidia.com/gpu.present": "true" } });
const listener = (name: string, protocol: string, port: number) => ({
  name,
  protocol,
  port,
  allowedRoutes: { namespaces: { from: "Selector", selector: { matchLabels: { "nvcf/platform": "true" } } } },
});
const gateway = (
  listeners = [
    listener("http", "HTTP", 80),
    listener("tcp", "TCP", 10081),
    listener("nats", "TCP", 4222),
    listener("worker-tcp", "TCP", 10086),
  ],
  programmed = "True",
): KubeObject => ({
  metadata: { name: "nvcf-gateway", namespace: "envoy-gateway" },
  spec: { gatewayClassName: "eg", listeners },
  status: {
    addresses: [{ type: "IPAddress", value: "10.0.0.1" }],
    conditions: [
      {
        type: "Programmed",
        status: programmed,
        reason: programmed === "True" ? "Programmed" : "AddressNotAssigned",
      },
    ],
  },
});
function facts(over: Partial<ClusterFacts> = {}): ClusterFacts {
  return {
    clusterUid: "uid-control",
    serverVersion: { major: "1", minor: "36", gitVersion: "v1.36.1" },
    clientVersion: { major: "1", minor: "36", gitVersion: "v1.36.1" },
    nodes: [node("cpu-0"), node("cpu-1"), node("cpu-2")],
    storageClasses: [
      {
        metadata: {
          name: "standard",
          annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
        },
        provisioner: "ebs.csi.aws.com",
      } as KubeObject,
    ],
    crds: GATEWAY_CRDS.map((name) => ({ name })),
    csiDrivers: [],
    gateways: [gateway()],
    certManagerDeployments: [],
    kaiQueues: [],
    helmReleases: [],
    openid: { issuer: "https://kubernetes.default.svc.cluster.local" },
    jwks: { keys: [{ kid: "kid-control" }] },
    ...over,
  };
}
const failing = (fs: Finding[]) => fs.filter((f) => !f.ok);
const one = (fs: Finding[]) => {
  const bad = failing(fs);
  expect(bad).toHaveLength(1);
  return bad[0];
};
const allPass = (fs: Finding[]) => {
  expect(failing(fs)).toEqual([]);
  expect(fs.length).toBeGreaterThan(0);
};

describe("preflight: nodes", () => {
  test("schedulable: Ready, not cordoned, taints tolerated, selector matched", () => {
    expect(schedulable(node("a"))).toBe(true);
    expect(schedulable(node("a", { notReady: true }))).toBe(false);
    const tainted = node("a", { taints: [{ key: "gpu", value: "x", effect: "NoSchedule" }] });
    expect(schedulable(tainted)).toBe(false);
    expect(schedulable(tainted, {}, [{ key: "gpu", operator: "Exists" }])).toBe(true);
    expect(schedulable(tainted, {}, [{ operator: "Exists" }])).toBe(true);
    expect(schedulable(tainted, {}, [{ key: "gpu", operator: "Equal", value: "y" }])).toBe(false);
    expect(schedulable(node("a", { taints: [{ key: "k", effect: "PreferNoSchedule" }] }))).toBe(true);
    expect(schedulable(node("a"), { role: "db" })).toBe(false);
  });

  test("Cassandra's replicas and the OpenBao injector need one schedulable node per replica (from the release values)", () => {
    const cfg = devCfg();
    allPass(checkReplicaNodes(cfg, facts(), "dev"));
    const two = facts({ nodes: [node("a"), node("b"), node("c", { notReady: true })] });
    const f = one(checkReplicaNodes(cfg, two, "dev"));
    expect(f).toMatchObject({
      check: "nodes.cassandra",
      object: "StatefulSet cassandra-system/cassandra",
      severity: "error",
    });
    expect(f.found).toBe("2 schedulable node(s) (Ready, not cordoned, taints tolerated) for 3 replica(s)");
    expect(f.fix).toContain("pulumi config set --path nvcf:cassandra.replicas 2");
    // releaseValues reach the count: the values decide, not only the first-class key.
    cfg.releaseValues["openbao-server"] = { openbao: { injector: { replicas: 4 } } };
    const inj = failing(checkReplicaNodes(cfg, facts(), "dev")).find(
      (x) => x.check === "nodes.openbao-injector",
    );
    expect(inj?.found).toBe("3 schedulable node(s) (Ready, not cordoned, taints tolerated) for 4 replica(s)");
  });

  test("node selectors on: the selected nodes must exist, for replicas and per type", () => {
    const cfg = devCfg();
    cfg.placement.nodeSelectors.enabled = true;
    const labelled = (n: string, v: string) => node(n, { labels: { "nvcf.nvidia.com/workload": v } });
    const good = facts({
      nodes: [
        labelled("c0", "cassandra"),
        labelled("c1", "cassandra"),
        labelled("c2", "cassandra"),
        labelled("v0", "vault"),
        labelled("v1", "vault"),
        labelled("p0", "control-plane"),
      ],
    });
    allPass([...checkReplicaNodes(cfg, good, "dev"), ...checkControlNodeLabels(cfg, good, "dev")]);
    const noVault = facts({
      nodes: good.nodes.filter((n) => n.metadata.labels?.["nvcf.nvidia.com/workload"] !== "vault"),
    });
    const bad = failing([
      ...checkReplicaNodes(cfg, noVault, "dev"),
      ...checkControlNodeLabels(cfg, noVault, "dev"),
    ]);
    expect(bad.map((b) => `${b.check} ${b.object}`).sort()).toEqual([
      "nodes.labels node selector vault",
      "nodes.openbao-injector Deployment vault-system/openbao-server-agent-injector",
    ]);
    expect(bad.find((b) => b.check === "nodes.labels")?.fix).toBe(
      "kubectl label node <node> nvcf.nvidia.com/workload=vault, or change nvcf:placement.nodeSelectors.vault",
    );
  });
});

describe("preflight: cluster-wide", () => {
  test("Kubernetes version: supported range, newer warns, older fails; kubectl skew warns", () => {
    allPass(checkVersion(facts(), "dev", "cluster"));
    const old = one(
      checkVersion(
        facts({
          serverVersion: { major: "1", minor: "33", gitVersion: "v1.33.4" },
          clientVersion: { major: "1", minor: "33", gitVersion: "v1.33.4" },
        }),
        "dev",
        "cluster",
      ),
    );
    expect(old).toMatchObject({
      check: "kubernetes.version",
      severity: "error",
      found: "Kubernetes v1.33.4",
    });
    expect(old.fix).toBe("upgrade the cluster to Kubernetes 1.34 or later");
    expect(
      one(
        checkVersion(
          facts({
            serverVersion: { major: "1", minor: "37+", gitVersion: "v1.37.0-eks" },
            clientVersion: { major: "1", minor: "37", gitVersion: "v1.37.0" },
          }),
          "dev",
          "c",
        ),
      ).severity,
    ).toBe("warning");
    const skew = one(
      checkVersion(facts({ clientVersion: { major: "1", minor: "34", gitVersion: "v1.34.0" } }), "dev", "c"),
    );
    expect(skew).toMatchObject({ check: "kubernetes.client-skew", severity: "warning" });
  });

  test("Gateway API CRDs: TCPRoute missing is named with the experimental-channel fix", () => {
    const cfg = devCfg();
    allPass(checkGatewayCrds(cfg, facts(), "dev"));
    const f = one(
      checkGatewayCrds(
        cfg,
        facts({ crds: GATEWAY_CRDS.filter((c) => !c.startsWith("tcp")).map((name) => ({ name })) }),
        "dev",
      ),
    );
    expect(f.found).toBe("missing CRD(s): tcproutes.gateway.networking.k8s.io");
    expect(f.needed).toMatch(/TCPRoute CRD of the experimental channel/);
    expect(f.fix).toMatch(/experimental-install\.yaml$/);
    cfg.gateway.install = true;
    allPass(checkGatewayCrds(cfg, facts({ crds: [] }), "dev"));
  });

  test("Gateway: missing, not Programmed, a listener missing or with the wrong protocol", () => {
    const cfg = devCfg();
    allPass(checkGateways(cfg, facts(), "dev"));
    const noNats = one(
      checkGateways(
        cfg,
        facts({ gateways: [gateway([listener("http", "HTTP", 80), listener("tcp", "TCP", 10081)])] }),
        "dev",
      ),
    );
    expect(noNats).toMatchObject({
      check: "gateway.listeners",
      object: "Gateway envoy-gateway/nvcf-gateway",
    });
    expect(noNats.found).toBe('has no listener "nats" (TCP 4222); it has: http, tcp');
    expect(noNats.fix).toBe(
      "add the listener to the Gateway's spec.listeners (name nats, protocol TCP, port 4222)",
    );
    expect(one(checkGateways(cfg, facts({ gateways: [gateway(undefined, "False")] }), "dev")).found).toBe(
      "Programmed is False (AddressNotAssigned)",
    );
    expect(one(checkGateways(cfg, facts({ gateways: [] }), "dev")).found).toMatch(
      /^no Gateway envoy-gateway\/nvcf-gateway \(named by nvcf:gateway.shared, nvcf:gateway.grpc, nvcf:gateway.nats\)$/,
    );
    const proto = one(
      checkGateways(
        cfg,
        facts({
          gateways: [
            gateway([
              listener("http", "HTTP", 80),
              listener("tcp", "TCP", 10081),
              listener("nats", "HTTP", 4222),
            ]),
          ],
        }),
        "dev",
      ),
    );
    expect(proto.found).toBe('listener "nats" has protocol HTTP');
  });

  test("storage: a default StorageClass, or the configured one", () => {
    const cfg = devCfg();
    allPass(checkStorage(cfg, facts(), "dev"));
    const none = one(checkStorage(cfg, facts({ storageClasses: [{ metadata: { name: "slow" } }] }), "dev"));
    expect(none).toMatchObject({
      check: "storage.class",
      object: "default StorageClass",
      found: "no default StorageClass among slow",
    });
    cfg.storage.className = "fast";
    expect(one(checkStorage(cfg, facts(), "dev")).found).toBe(
      "no StorageClass fast (nvcf:storage.className)",
    );
  });

  test("cert-manager installed outside the stack with certManager.managed true is refused", () => {
    const cfg = devCfg();
    allPass(checkCertManager(cfg, facts(), "dev"));
    const ours = {
      metadata: {
        name: "cert-manager",
        namespace: "cert-manager",
        annotations: {
          "meta.helm.sh/release-name": "cert-manager",
          "meta.helm.sh/release-namespace": "cert-manager",
        },
      },
    };
    allPass(
      checkCertManager(
        cfg,
        facts({
          certManagerDeployments: [ours],
          crds: [
            {
              name: "certificates.cert-manager.io",
              helmRelease: "cert-manager",
              helmNamespace: "cert-manager",
            },
          ],
        }),
        "dev",
      ),
    );
    const theirs = {
      metadata: {
        name: "cert-manager",
        namespace: "infra",
        annotations: { "meta.helm.sh/release-name": "cm" },
      },
    };
    const f = one(checkCertManager(cfg, facts({ certManagerDeployments: [theirs] }), "dev"));
    expect(f.found).toBe(
      "an existing cert-manager (Deployment infra/cert-manager, Helm release cm) that this stack did not install",
    );
    expect(f.fix).toBe("pulumi config set --path nvcf:certManager.managed false");
    cfg.certManager.managed = false;
    allPass(checkCertManager(cfg, facts({ certManagerDeployments: [theirs] }), "dev"));
  });

  test("a managed OIDC issuer needs openbao.issuerDiscovery", () => {
    const cfg = devCfg();
    const eks = facts({ openid: { issuer: "https://oidc.eks.us-east-1.amazonaws.com/id/ABC" } });
    allPass(checkIssuer(cfg, eks, "dev", "cluster"));
    cfg.openbao.issuerDiscovery = false;
    const f = one(checkIssuer(cfg, eks, "dev", "cluster"));
    expect(f.fix).toBe("pulumi config set --path nvcf:openbao.issuerDiscovery true");
    allPass(checkIssuer(cfg, facts(), "dev", "cluster"));
  });
});

describe("preflight: GPU clusters", () => {
  const gpu = () =>
    facts({
      clusterUid: "uid-a",
      nodes: [node("cpu-0"), gpuNode("gpu-0"), gpuNode("gpu-1")],
      jwks: { keys: [{ kid: "kid-a" }] },
    });

  test("GPU operator: a GPU node without the feature-discovery labels, a labelled node without the resource, none at all", () => {
    allPass(checkGpuOperator(gpu(), "dev-gpu-a"));
    const f = gpu();
    f.nodes[1] = node("gpu-0", { gpu: 8 });
    const bad = one(checkGpuOperator(f, "dev-gpu-a"));
    expect(bad).toMatchObject({
      object: "node gpu-0",
      found: "advertises 8 nvidia.com/gpu but has no nvidia.com/gpu.present=true label",
    });
    f.nodes[1] = node("gpu-0", { labels: { "nvidia.com/gpu.present": "true" } });
    expect(one(checkGpuOperator(f, "dev-gpu-a")).found).toBe(
      "labelled nvidia.com/gpu.present=true but advertises no allocatable nvidia.com/gpu",
    );
    expect(one(checkGpuOperator(facts(), "dev-gpu-a")).needed).toMatch(/NVIDIA GPU Operator/);
  });

  test("SMB CSI only with the HelmSharedStorage gate; KAI with its gate and no add-on; inotify needs GPU nodes", () => {
    const cfg = gpuCfg();
    allPass(checkSmbCsi(cfg, gpu(), "dev-gpu-a"));
    cfg.nvcaOperator.featureGates = ["HelmSharedStorage"];
    expect(one(checkSmbCsi(cfg, gpu(), "dev-gpu-a")).found).toBe("no CSIDriver smb.csi.k8s.io");
    allPass(
      checkSmbCsi(cfg, { ...gpu(), csiDrivers: [{ metadata: { name: "smb.csi.k8s.io" } }] }, "dev-gpu-a"),
    );
    expect(checkKai(cfg, gpu(), "dev-gpu-a")).toEqual([]);
    cfg.nvcaOperator.featureGates = ["KAIScheduler"];
    expect(one(checkKai(cfg, gpu(), "dev-gpu-a")).found).toBe(
      "KAI is not installed (no queues.scheduling.run.ai CRD)",
    );
    const withKai = {
      ...gpu(),
      crds: [{ name: "queues.scheduling.run.ai" }],
      kaiQueues: [{ metadata: { name: "default-parent-queue" } }],
    };
    expect(one(checkKai(cfg, withKai, "dev-gpu-a")).found).toBe("no KAI queue(s) default-queue");
    allPass(checkKai(gpuCfg("dev-gpu-b"), gpu(), "dev-gpu-b"));
    // CRDs left by an earlier, uninstalled KAI (Helm keeps crds/) are no clash: the release reuses them.
    const leftover = { ...gpu(), crds: [{ name: "queues.scheduling.run.ai" }] };
    const reused = checkKai(gpuCfg("dev-gpu-b"), leftover, "dev-gpu-b");
    allPass(reused);
    expect(reused[0].found).toMatch(/left from an earlier install/);
    const foreign = {
      ...leftover,
      kaiOperators: [{ metadata: { name: "kai-operator", namespace: "other-kai" } }],
    };
    expect(one(checkKai(gpuCfg("dev-gpu-b"), foreign, "dev-gpu-b")).found).toBe(
      "KAI is already running outside this stack (Deployment other-kai/kai-operator, no Helm release kai-scheduler/kai-scheduler)",
    );
    allPass(
      checkKai(
        gpuCfg("dev-gpu-b"),
        { ...foreign, helmReleases: ["kai-scheduler/kai-scheduler"] },
        "dev-gpu-b",
      ),
    );
    allPass(checkInotify(cfg, gpu(), "dev-gpu-a"));
    expect(one(checkInotify(cfg, facts(), "dev-gpu-a")).found).toBe(
      "no Ready GPU node for the tuner to run on",
    );
  });

  test("identity: the registration's kubeconfig must reach the same cluster; clusters must have distinct keys", () => {
    const id = (label: string, uid: string, kid: string) => ({
      label,
      uid,
      kids: [kid],
      issuer: "https://kubernetes.default.svc.cluster.local",
    });
    const a = id("context a", "uid-a", "kid-a");
    const ctl = id("control", "uid-c", "kid-c");
    const b = id("context b", "uid-b", "kid-b");
    allPass(
      checkGpuIdentity("dev-gpu-a", "gpu-a", a, id("dev's context a", "uid-a", "kid-a"), ctl, [
        { stack: "dev-gpu-b", id: b },
      ]),
    );
    const wrong = one(
      checkGpuIdentity("dev-gpu-a", "gpu-a", a, id("dev's context b", "uid-b", "kid-b"), ctl, []),
    );
    expect(wrong.found).toBe(
      "the control plane registers it through dev's context b, which reaches another cluster than this stack's context a",
    );
    expect(wrong.needed).toMatch(/Signed JWT rejected/);
    const twice = one(
      checkGpuIdentity("dev-gpu-a", "gpu-a", a, undefined, ctl, [
        { stack: "dev-gpu-b", id: { ...b, uid: "uid-a" } },
      ]),
    );
    expect(twice.found).toBe("context a reaches the same cluster as dev-gpu-b (context b)");
  });
});

describe("preflight: NVIDIA's observability stack (both planes)", () => {
  const crd = (name: string, rel?: string, ns?: string) => ({ name, helmRelease: rel, helmNamespace: ns });
  const monitorCrds = (rel?: string, ns?: string) => [
    crd("servicemonitors.monitoring.coreos.com", rel, ns),
    crd("podmonitors.monitoring.coreos.com", rel, ns),
  ];
  const operator = (ns: string, rel?: string): KubeObject => ({
    metadata: {
      name: "opentelemetry-operator",
      namespace: ns,
      annotations: rel
        ? { "meta.helm.sh/release-name": rel, "meta.helm.sh/release-namespace": ns }
        : ({} as Record<string, string>),
    },
  });

  test("nothing installed yet, or only this stack's releases: passes, on either plane", () => {
    allPass(checkObservabilityStack(gpuCfg(), facts(), "dev-gpu-a"));
    allPass(checkObservabilityStack(devCfg(), facts(), "dev"));
    const ours = facts({
      crds: [
        ...monitorCrds("prometheus-operator-crds", "monitoring"),
        crd("opentelemetrycollectors.opentelemetry.io", "opentelemetry-operator", "monitoring"),
      ],
      otelOperators: [operator("monitoring", "opentelemetry-operator")],
      helmReleases: [
        "monitoring/default-monitors",
        "monitoring/otel-collector",
        "nvca-operator/nvca-operator",
      ],
    });
    allPass(checkObservabilityStack(gpuCfg(), ours, "dev-gpu-a"));
    // Bundle 0.6.1 ships no observability stack: nothing to check there.
    const old = gpuCfg();
    old.bundleVersion = "0.6.1";
    expect(checkObservabilityStack(old, facts({ crds: monitorCrds("kps", "infra") }), "g")).toEqual([]);
    // A GPU cluster without the stack (profile control) is not checked.
    const control = gpuCfg();
    control.observability.profile = "control";
    expect(checkObservabilityStack(control, facts({ crds: monitorCrds() }), "g")).toEqual([]);
  });

  test("Prometheus Operator CRDs or an OpenTelemetry Operator installed outside the stack: use them (existing)", () => {
    const f = one(
      checkObservabilityStack(gpuCfg(), facts({ crds: monitorCrds("kps", "infra") }), "dev-gpu-a"),
    );
    expect(f).toMatchObject({
      check: "observability.external",
      object: "observability stack (namespace monitoring)",
      found:
        "Prometheus Operator CRDs installed outside this stack (CRD servicemonitors.monitoring.coreos.com, Helm release infra/kps)",
      fix: "pulumi config set --path nvcf:observability.components.prometheusOperatorCrds existing -s dev-gpu-a",
    });
    expect(f.needed).toMatch(/^observability\.components\.prometheusOperatorCrds existing when/);
    const op = one(
      checkObservabilityStack(
        gpuCfg(),
        facts({ otelOperators: [operator("otel", "opentelemetry-operator")] }),
        "dev-gpu-a",
      ),
    );
    expect(op.found).toBe(
      "an OpenTelemetry Operator installed outside this stack (Deployment otel/opentelemetry-operator, Helm release otel/opentelemetry-operator)",
    );
    expect(op.fix).toBe(
      "pulumi config set --path nvcf:observability.components.otelOperator existing -s dev-gpu-a",
    );
    // With existing modes the same cluster passes, saying what the stack uses.
    const cfg = gpuCfg();
    cfg.observability.components.prometheusOperatorCrds = "existing";
    cfg.observability.components.otelOperator = "existing";
    const existing = checkObservabilityStack(
      cfg,
      facts({
        crds: [
          ...monitorCrds("kps", "infra"),
          crd("opentelemetrycollectors.opentelemetry.io", "otel", "otel"),
        ],
        otelOperators: [operator("otel", "otel")],
      }),
      "dev-gpu-a",
    );
    allPass(existing);
    expect(existing[0].found).toMatch(
      /uses the existing Prometheus Operator CRDs and the existing OpenTelemetry Operator$/,
    );
    // Existing components that are not there.
    const missing = checkObservabilityStack(cfg, facts(), "dev-gpu-a");
    expect(failing(missing).map((x) => x.found)).toEqual([
      "no CRD servicemonitors.monitoring.coreos.com, podmonitors.monitoring.coreos.com",
      "no CRD opentelemetrycollectors.opentelemetry.io",
    ]);
  });

  test("at most once per cluster: another installation, or a GPU cluster that is the control-plane cluster", () => {
    const f = one(
      checkObservabilityStack(
        gpuCfg(),
        facts({ helmReleases: ["observability/default-monitors"] }),
        "dev-gpu-a",
      ),
    );
    expect(f.found).toBe(
      "another installation of NVIDIA's observability stack on this cluster (Helm release observability/default-monitors)",
    );
    expect(f.fix).toBe(
      "keep the other one: pulumi config set --path nvcf:observability.install false -s dev-gpu-a; or uninstall it first",
    );
    expect(checkObservabilityOnce("dev-gpu-a", "dev", true, true, false)).toEqual([]);
    expect(checkObservabilityOnce("dev-gpu-a", "dev", false, true, true)).toEqual([]);
    const shared = one(checkObservabilityOnce("dev-gpu-a", "dev", true, true, true));
    expect(shared).toMatchObject({
      check: "observability.external",
      stack: "dev-gpu-a",
      found:
        "this GPU cluster is the control-plane cluster, where stack dev installs NVIDIA's observability stack too",
    });
    expect(shared.fix).toMatch(/^pulumi config set --path nvcf:observability\.install false -s dev-gpu-a /);
  });
});

describe("preflight: charts", () => {
  const local = (dir: string, chart = "helm-nvcf-api", version = "1.25.1"): ChartToCheck => ({
    stack: "dev",
    releases: ["dev/api"],
    chart,
    version,
    resolved: { chart: dir, kind: "local", credentials: false, origin: "nvcf", decidedBy: "charts.path" },
  });

  test("every enabled release's chart is listed once, resolved as the program does", () => {
    const list = chartsToCheck([checkedStack(stackFile("dev")), checkedStack(stackFile("dev-gpu-b"))], ROOT);
    expect(list.map((c) => c.chart)).toEqual(
      expect.arrayContaining([
        "helm-nvcf-api",
        "helm-nvcf-cassandra",
        "kai-scheduler",
        "nvcf-cluster-topology",
      ]),
    );
    // nvcf-cluster-topology backs two releases of dev-gpu-b: one check.
    expect(list.filter((c) => c.chart === "nvcf-cluster-topology")[0].releases).toEqual([
      "dev-gpu-b/nvcf-kai-topology",
      "dev-gpu-b/nvcf-grove-topology",
    ]);
    expect(list.find((c) => c.chart === "grove-charts")?.resolved.chart).toBe("./tests/charts/grove-charts");
  });

  test("a local chart directory: missing, or holding another version", () => {
    expect(checkLocalChart(local("./tests/charts/helm-nvcf-api"), ROOT).ok).toBe(true);
    const missing = checkLocalChart(local("./tests/charts/nope"), ROOT);
    expect(missing).toMatchObject({ ok: false, check: "charts.pull", object: "chart helm-nvcf-api 1.25.1" });
    expect(missing.found).toBe("no chart directory ./tests/charts/nope (no Chart.yaml there; charts.path)");
    const other = checkLocalChart(local("./tests/charts/helm-nvcf-api", "helm-nvcf-api", "1.23.9"), ROOT);
    expect(other.found).toBe("./tests/charts/helm-nvcf-api/Chart.yaml is helm-nvcf-api 1.25.1");
  });

  test("a failed pull names the likely cause", () => {
    expect(pullCause("Error: failed to authorize: 401 Unauthorized")).toMatch(/refused the credentials/);
    expect(pullCause("Error: nvcr.io/x/helm-nvcf-api:9.9.9: not found")).toMatch(/not in that repository/);
    expect(pullCause("dial tcp 127.0.0.1:1: connect: connection refused")).toMatch(/unreachable/);
    expect(pullCause("spawn helm ENOENT")).toMatch(/Helm CLI was not found/);
  });
});

describe("health", () => {
  const rel = (
    name: string,
    ns: string,
    manifest: string,
    hooks: HelmRelease["hooks"] = [],
    over: Partial<HelmRelease> = {},
  ): HelmRelease => ({
    name,
    namespace: ns,
    version: 1,
    info: { status: "deployed" },
    chart: { metadata: { name: `helm-nvcf-${name}`, version: "1.25.1" } },
    manifest,
    hooks,
    ...over,
  });
  const secretOf = (r: HelmRelease): KubeObject => ({
    metadata: {
      name: `sh.helm.release.v1.${r.name}.v${r.version}`,
      namespace: r.namespace,
      labels: { owner: "helm", name: r.name, version: String(r.version) },
    },
    data: { release: encodeHelmRelease(r) },
  });
  const deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n";
  const route =
    "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: nvcf-api\n  namespace: envoy-gateway\nspec:\n  parentRefs: [{name: nvcf-gateway, namespace: envoy-gateway, sectionName: http}]\n  rules: [{backendRefs: [{name: api, namespace: nvcf, port: 8080}]}]\n";
  const bootstrap = {
    name: "nvcf-api-account-bootstrap",
    kind: "Job",
    events: ["post-install", "post-upgrade"],
    manifest: "kind: Job\nmetadata:\n  name: nvcf-api-account-bootstrap\n",
    last_run: { phase: "Succeeded", completed_at: "2026-12-01T10:00:00Z" },
  };
  const api: ExpectedRelease = {
    name: "api",
    namespace: "nvcf",
    chart: "helm-nvcf-api",
    version: "1.25.1",
    resource: "nvcf-api",
  };
  const live = (over: Partial<LiveState> = {}): LiveState => ({
    releases: releasesByName([secretOf(rel("api", "nvcf", `${deploy}---\n${route}`, [bootstrap]))]),
    workloads: [
      {
        kind: "Deployment",
        metadata: { name: "api", namespace: "nvcf" },
        spec: { replicas: 2 },
        status: { readyReplicas: 2, updatedReplicas: 2 },
      },
    ],
    jobs: [],
    routes: [
      {
        kind: "HTTPRoute",
        metadata: { name: "nvcf-api", namespace: "envoy-gateway" },
        spec: (yaml.load(route) as { spec: unknown }).spec,
      },
    ],
    gateways: [gateway()],
    namespaces: [{ metadata: { name: "envoy-gateway", labels: { "nvcf/platform": "true" } } }],
    services: new Set(["nvcf/api"]),
    now: Date.parse("2026-12-01T11:00:00Z") / 1000,
    ...over,
  });

  test("Helm release records decode as Helm stores them (base64 of base64 of gzip JSON), newest first", () => {
    const r1 = rel("api", "nvcf", deploy);
    const r2 = { ...r1, version: 2, info: { status: "failed", description: "timed out" } };
    expect(decodeHelmRelease(secretOf(r1).data.release)).toEqual(r1);
    const m = releasesByName([
      secretOf(r1),
      secretOf(r2),
      { metadata: { name: "other", labels: { owner: "someone" } } },
    ]);
    expect([...m.keys()]).toEqual(["nvcf/api"]);
    expect(m.get("nvcf/api")?.map((r) => r.version)).toEqual([2, 1]);
  });

  test("releases: deployed at the pinned version; uninstalled, failed or another version are named", () => {
    allPass(checkReleases("dev", [api], live()));
    const gone = one(checkReleases("dev", [api], live({ releases: new Map() })));
    expect(gone).toMatchObject({
      object: "release nvcf/api",
      found: "not installed (no Helm release record)",
    });
    expect(gone.fix).toMatch(/^pulumi up -s dev --refresh/);
    const failedRel = live({
      releases: releasesByName([
        secretOf(
          rel("api", "nvcf", deploy, [], { info: { status: "failed", description: "timed out waiting" } }),
        ),
      ]),
    });
    expect(one(checkReleases("dev", [api], failedRel)).found).toBe(
      "revision 1 is failed (timed out waiting)",
    );
    expect(one(checkReleases("dev", [{ ...api, version: "1.25.2" }], live())).found).toBe(
      "deployed with chart helm-nvcf-api 1.25.1",
    );
  });

  test("workloads the manifest renders must exist and be ready", () => {
    allPass(checkWorkloads("dev", [api], live()));
    const l = live();
    l.workloads[0].status = { readyReplicas: 1 };
    expect(one(checkWorkloads("dev", [api], l))).toMatchObject({
      object: "Deployment nvcf/api",
      found: "1/2 replicas ready",
    });
    expect(one(checkWorkloads("dev", [api], live({ workloads: [] }))).found).toBe(
      "missing (release api renders it)",
    );
  });

  test("the account-bootstrap hook: a Job removed by its TTL counts when Helm recorded success; a failed Job or no run is unhealthy", () => {
    const ok = checkHooks("dev", [api], live());
    allPass(ok);
    expect(ok[0].found).toMatch(/succeeded \(2026-12-01T10:00:00Z\); the Job was removed afterwards/);
    const failedJob: KubeObject = {
      metadata: { name: "nvcf-api-account-bootstrap", namespace: "nvcf" },
      status: { conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] },
    };
    const f = one(checkHooks("dev", [api], live({ jobs: [failedJob] })));
    expect(f).toMatchObject({
      check: "health.hooks",
      object: "Job nvcf/nvcf-api-account-bootstrap",
      found: "the Job failed (BackoffLimitExceeded)",
    });
    expect(f.needed).toMatch(/404 "Unknown client_id"/);
    expect(f.fix).toMatch(
      /re-run the api release so the bootstrap hook fires: pulumi up -s dev --replace <URN of the Release nvcf-api>/,
    );
    const neverRan = live({
      releases: releasesByName([
        secretOf(rel("api", "nvcf", deploy, [{ ...bootstrap, last_run: { phase: "" } }])),
      ]),
    });
    expect(one(checkHooks("dev", [api], neverRan)).found).toBe(
      "the Job is gone and Helm recorded no run of the hook (hooks skipped?)",
    );
    const stuck: KubeObject = {
      metadata: { name: "nvcf-api-account-bootstrap", namespace: "nvcf" },
      status: { active: 1, startTime: "2026-12-01T10:30:00Z" },
    };
    expect(one(checkHooks("dev", [api], live({ jobs: [stuck] }))).found).toBe(
      "still running after 30 minutes",
    );
    // pre-delete hooks run on uninstall only and are not judged.
    const pre = live({
      releases: releasesByName([
        secretOf(rel("api", "nvcf", deploy, [{ name: "cleanup", kind: "Job", events: ["pre-delete"] }])),
      ]),
    });
    expect(checkHooks("dev", [api], pre)).toEqual([]);
  });

  /** A status.parents entry as a Gateway API controller writes it, on the `http` listener. */
  const parentStatus = (
    accepted: [string, string, string?],
    resolved?: [string, string, string?],
    sectionName = "http",
  ) => ({
    parentRef: {
      group: "gateway.networking.k8s.io",
      kind: "Gateway",
      name: "nvcf-gateway",
      namespace: "envoy-gateway",
      sectionName,
    },
    controllerName: "gateway.envoyproxy.io/gatewayclass-controller",
    conditions: [
      { type: "Accepted", status: accepted[0], reason: accepted[1], message: accepted[2] },
      ...(resolved
        ? [{ type: "ResolvedRefs", status: resolved[0], reason: resolved[1], message: resolved[2] }]
        : []),
    ],
  });
  const gatewayClass = (accepted: string): KubeObject => ({
    metadata: { name: "eg" },
    spec: { controllerName: "gateway.envoyproxy.io/gatewayclass-controller" },
    status: {
      conditions: [
        { type: "Accepted", status: accepted, reason: accepted === "True" ? "Accepted" : "Pending" },
      ],
    },
  });
  /** The health state with the route's status as a controller wrote it. */
  const withStatus = (parents: unknown[], over: Partial<LiveState> = {}) => {
    const l = live({ gatewayClasses: [gatewayClass("True")], ...over });
    l.routes[0].status = { parents };
    return l;
  };

  test("routes: the controller's Accepted and ResolvedRefs decide, per parentRef", () => {
    const ok = checkRoutes(
      "dev",
      [api],
      withStatus([parentStatus(["True", "Accepted"], ["True", "ResolvedRefs"])]),
    );
    allPass(ok);
    expect(ok[0].found).toBe("Accepted=True, ResolvedRefs=True from Gateway envoy-gateway/nvcf-gateway:http");
    const notAllowed = one(
      checkRoutes(
        "dev",
        [api],
        withStatus([parentStatus(["False", "NotAllowedByListeners", "no listener admits it"])]),
      ),
    );
    expect(notAllowed.found).toBe(
      "Accepted=False (NotAllowedByListeners) from Gateway envoy-gateway/nvcf-gateway:http: no listener admits it",
    );
    expect(notAllowed.fix).toMatch(
      /^let the listener admit the route: label namespace envoy-gateway nvcf\/platform=true/,
    );
    const backend = one(
      checkRoutes(
        "dev",
        [api],
        withStatus(
          [parentStatus(["True", "Accepted"], ["False", "BackendNotFound", "Service nvcf/api not found"])],
          {
            services: new Set(),
          },
        ),
      ),
    );
    expect(backend).toMatchObject({
      object: "HTTPRoute envoy-gateway/nvcf-api",
      found:
        "ResolvedRefs=False (BackendNotFound) from Gateway envoy-gateway/nvcf-gateway:http: Service nvcf/api not found",
      fix: "install the release that serves Service nvcf/api (pulumi up -s dev --refresh reinstalls a release removed outside Pulumi), or fix the route's backendRef",
    });
    // A route whose backend may be absent: BackendNotFound passes, saying why.
    const optional = checkRoutes(
      "dev",
      [api],
      withStatus([
        parentStatus(["True", "Accepted"], ["False", "BackendNotFound", "Service nvcf/api not found"]),
      ]),
      { "nvcf-api": "optional here" },
    );
    allPass(optional);
    expect(optional[0].found).toMatch(/BackendNotFound.*, as expected: optional here$/);
  });

  test("routes: a parentRef to a listener the Gateway lacks, as the controller reports it (NoMatchingParent)", () => {
    const l = withStatus([
      parentStatus(
        ["False", "NoMatchingParent", 'Gateway envoy-gateway/nvcf-gateway has no listener named "nope"'],
        ["True", "ResolvedRefs"],
        "nope",
      ),
    ]);
    l.routes[0].spec.parentRefs[0].sectionName = "nope";
    const f = one(checkRoutes("dev", [api], l));
    expect(f.found).toBe(
      'Accepted=False (NoMatchingParent) from Gateway envoy-gateway/nvcf-gateway:nope: Gateway envoy-gateway/nvcf-gateway has no listener named "nope"',
    );
    expect(f.fix).toBe(
      'give Gateway envoy-gateway/nvcf-gateway a listener named "nope", or point the route\'s parentRef at one it has (http, tcp, nats, worker-tcp)',
    );
    // The status of a parentRef the spec no longer names does not count: the current parentRef is unreported.
    const stale = withStatus([parentStatus(["True", "Accepted"], ["True", "ResolvedRefs"])]);
    stale.routes[0].spec.parentRefs[0].sectionName = "nope";
    expect(one(checkRoutes("dev", [api], stale)).found).toMatch(
      /^no status for parent envoy-gateway\/nvcf-gateway:nope: the controller gateway\.envoyproxy\.io\/gatewayclass-controller has written none on the route; from the Gateway's spec and the cluster: Gateway envoy-gateway\/nvcf-gateway has no listener "nope"$/,
    );
  });

  test("routes: no status at all is a finding that names its cause (no controller running, no Gateway)", () => {
    // The GatewayClass accepted by no controller: none runs.
    const none = one(checkRoutes("dev", [api], live({ gatewayClasses: [gatewayClass("Unknown")] })));
    expect(none.found).toBe(
      "no status for parent envoy-gateway/nvcf-gateway:http: no controller has accepted GatewayClass eg (controllerName gateway.envoyproxy.io/gatewayclass-controller), so no Gateway API controller is running for it",
    );
    expect(none.fix).toMatch(
      /^install or start the Gateway API controller for gateway\.envoyproxy\.io\/gatewayclass-controller/,
    );
    // What the Gateway's spec says is added.
    expect(
      one(
        checkRoutes(
          "dev",
          [api],
          live({ gatewayClasses: [gatewayClass("Unknown")], services: new Set(), namespaces: [] }),
        ),
      ).found,
    ).toMatch(
      /running for it; from the Gateway's spec and the cluster: no listener of Gateway envoy-gateway\/nvcf-gateway \("http"\) admits routes from namespace envoy-gateway .*; backend Service nvcf\/api does not exist$/,
    );
    expect(one(checkRoutes("dev", [api], live({ gatewayClasses: [] }))).found).toBe(
      "no status for parent envoy-gateway/nvcf-gateway:http: Gateway envoy-gateway/nvcf-gateway names GatewayClass eg, which does not exist",
    );
    expect(one(checkRoutes("dev", [api], live({ gateways: [] }))).found).toBe(
      "no status for parent envoy-gateway/nvcf-gateway:http: the Gateway does not exist, so no controller reports on the route",
    );
    // A class its controller accepted, but no word on the route (yet).
    expect(one(checkRoutes("dev", [api], live({ gatewayClasses: [gatewayClass("True")] }))).fix).toMatch(
      /^run nvcf status again in a moment; if the status stays missing, read the logs of the Gateway API controller/,
    );
  });

  test("GPU cluster: identity ConfigMap with both IDs, healthy NVCFBackend, ready agent pod", () => {
    const dto = (id: string, group: string) => ({
      metadata: { name: "nvcfbackend-self-managed", namespace: "nvca-operator" },
      data: { "cluster-dto.yaml": `clusterId: "${id}"\nclusterGroupId: "${group}"\nclusterName: gpu-a\n` },
    });
    const backend = (s: string) => ({
      metadata: { name: "gpu-a", namespace: "nvca-operator" },
      status: { agentStatus: s },
    });
    const agent = (readyStatus: string) => ({
      metadata: { name: "nvca-7d9f", namespace: "nvca-system", labels: { "app.kubernetes.io/name": "nvca" } },
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", status: readyStatus }],
        containerStatuses: [
          {
            name: "vault-agent",
            ready: readyStatus === "True",
            state: { waiting: { reason: "CrashLoopBackOff" } },
          },
        ],
      },
    });
    const good = { identity: dto("c1", "g1"), backends: [backend("healthy")], agentPods: [agent("True")] };
    allPass(checkCompute("dev-gpu-a", "gpu-a", good, { clusterID: "c1", clusterGroupID: "g1" }));
    expect(one(checkCompute("dev-gpu-a", "gpu-a", { ...good, identity: dto("c1", "") })).found).toBe(
      "cluster-dto.yaml has no clusterGroupId",
    );
    expect(
      one(checkCompute("dev-gpu-a", "gpu-a", good, { clusterID: "c2", clusterGroupID: "g1" })).found,
    ).toMatch(/differ from the control plane's registration/);
    expect(one(checkCompute("dev-gpu-a", "gpu-a", { ...good, backends: [backend("unhealthy")] })).found).toBe(
      "agentStatus is unhealthy",
    );
    // The fix for a stale issuer or JWKS is the command that refreshes them (nvcf up would change nothing).
    expect(
      one(checkCompute("dev-gpu-a", "gpu-a", { ...good, backends: [backend("unhealthy")] }, undefined, "dev"))
        .fix,
    ).toBe(
      "kubectl logs -n nvca-system -l app.kubernetes.io/name=nvca; a 401 from ICMS means the registration's issuer " +
        "or JWKS is stale: nvcf rotate --env dev --cluster gpu-a refreshes them in ICMS, keeping the cluster's IDs",
    );
    const notReady = one(checkCompute("dev-gpu-a", "gpu-a", { ...good, agentPods: [agent("False")] }));
    expect(notReady).toMatchObject({
      object: "pod nvca-system/nvca-7d9f",
      found: "not Ready (phase Running; waiting: vault-agent CrashLoopBackOff)",
    });
    expect(one(checkCompute("dev-gpu-a", "gpu-a", { ...good, agentPods: [] })).found).toBe(
      "no NVCA agent pod",
    );
  });
});

describe("health: NVIDIA's observability stack", () => {
  const labelled = { "nvcf.nvidia.com/observability-target": "true" };
  const obj = (
    name: string,
    ns: string,
    labels: Record<string, string> = labelled,
    spec?: object,
  ): KubeObject => ({
    metadata: { name, namespace: ns, labels },
    spec,
  });
  const gpu = () => checkedStack(stackFile("dev-gpu-a"));
  const healthy = () => ({
    collectors: [obj("nvcf-observability", "monitoring", {}, { targetAllocator: { enabled: true } })],
    serviceMonitors: [obj("nvcf-default-monitors-nvca", "monitoring")],
    podMonitors: [
      obj("nvcf-default-monitors-dcgm", "monitoring"),
      obj("nvcf-default-monitors-worker", "monitoring"),
    ],
    pullSecretType: "kubernetes.io/dockerconfigjson",
  });

  test("a GPU cluster (profile compute) expects the collector, the NVCA, DCGM and worker monitors, and the pull secret", () => {
    const want = expectedObservability(gpu());
    expect(want).toEqual({
      namespace: "monitoring",
      collector: {
        name: "nvcf-observability",
        targetAllocator: true,
        selectors: { ServiceMonitor: labelled, PodMonitor: labelled },
      },
      monitors: [
        { kind: "ServiceMonitor", name: "nvcf-default-monitors-nvca", namespace: "monitoring" },
        { kind: "PodMonitor", name: "nvcf-default-monitors-dcgm", namespace: "monitoring" },
        { kind: "PodMonitor", name: "nvcf-default-monitors-worker", namespace: "monitoring" },
      ],
      pullSecret: "nvcr-pull-secret",
    });
    const f = checkObservability("dev-gpu-a", want!, healthy());
    allPass(f);
    expect(f.map((x) => [x.check, x.object, x.found])).toEqual([
      [
        "health.observability",
        "OpenTelemetryCollector monitoring/nvcf-observability",
        "exists, Target Allocator enabled",
      ],
      [
        "health.observability",
        "ServiceMonitor monitoring/nvcf-default-monitors-nvca",
        "exists, selected by collector nvcf-observability's Target Allocator",
      ],
      [
        "health.observability",
        "PodMonitor monitoring/nvcf-default-monitors-dcgm",
        "exists, selected by collector nvcf-observability's Target Allocator",
      ],
      [
        "health.observability",
        "PodMonitor monitoring/nvcf-default-monitors-worker",
        "exists, selected by collector nvcf-observability's Target Allocator",
      ],
      [
        "health.observability",
        "Secret monitoring/nvcr-pull-secret",
        "the image pull secret (kubernetes.io/dockerconfigjson)",
      ],
    ]);
  });

  test("the control plane (profile control) expects its own monitors; no stack, nothing expected", () => {
    const want = expectedObservability(checkedStack(stackFile("dev")));
    expect(want?.monitors.map((m) => m.name)).toEqual([
      "nvcf-default-monitors-state-metrics",
      "nvcf-default-monitors-invocation-service",
      "nvcf-default-monitors-grpc-proxy",
      "nvcf-default-monitors-llm-api-gateway",
    ]);
    const s = gpu();
    (s.config as ComputePlaneConfig).observability.install = false;
    expect(expectedObservability(s)).toBeUndefined();
  });

  test("each broken object is named with what was found, what is needed and the fix", () => {
    const want = expectedObservability(gpu())!;
    const h = healthy();
    const missing = one(checkObservability("dev-gpu-a", want, { ...h, collectors: [] }));
    expect(missing).toMatchObject({
      object: "OpenTelemetryCollector monitoring/nvcf-observability",
      found: "missing",
    });
    expect(missing.fix).toMatch(/^pulumi up -s dev-gpu-a --refresh/);
    expect(
      one(
        checkObservability("dev-gpu-a", want, {
          ...h,
          collectors: [obj("nvcf-observability", "monitoring", {}, { targetAllocator: { enabled: false } })],
        }),
      ).found,
    ).toBe("spec.targetAllocator.enabled is not true");
    expect(one(checkObservability("dev-gpu-a", want, { ...h, collectors: undefined })).found).toBe(
      "the OpenTelemetryCollector CRD is not served",
    );
    const worker = one(
      checkObservability("dev-gpu-a", want, { ...h, podMonitors: h.podMonitors.slice(0, 1) }),
    );
    expect([worker.object, worker.found]).toEqual([
      "PodMonitor monitoring/nvcf-default-monitors-worker",
      "missing",
    ]);
    const unwired = one(
      checkObservability("dev-gpu-a", want, {
        ...h,
        serviceMonitors: [obj("nvcf-default-monitors-nvca", "monitoring", {})],
      }),
    );
    expect(unwired.found).toBe("its labels lack nvcf.nvidia.com/observability-target=true");
    expect(one(checkObservability("dev-gpu-a", want, { ...h, pullSecretType: undefined })).object).toBe(
      "Secret monitoring/nvcr-pull-secret",
    );
  });
});

test("a local chart directory with the right name but a versioned sibling is preferred (as the program resolves)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-charts-"));
  try {
    fs.mkdirSync(path.join(dir, "helm-nvcf-api-1.23.9"));
    fs.writeFileSync(
      path.join(dir, "helm-nvcf-api-1.23.9", "Chart.yaml"),
      "name: helm-nvcf-api\nversion: 1.23.9\n",
    );
    const s = checkedStack(stackFile("dev"));
    s.config.bundleVersion = "0.7.0";
    s.config.charts.path = dir;
    const c = chartsToCheck([s], ROOT).find((x) => x.chart === "helm-nvcf-api");
    expect(c?.resolved.chart).toBe(path.join(dir, "helm-nvcf-api-1.23.9"));
    expect(checkLocalChart(c as ChartToCheck, ROOT).ok).toBe(true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
