/**
 * End to end: the preflight (cli/preflight) and health (cli/health) checks against the local kwok clusters
 * (scripts/cluster.sh up). Every preflight check passes on the fresh clusters; each condition is then broken
 * on the cluster (or in the stack config) one at a time, the right finding is asserted, and the condition is
 * restored. After a real `pulumi up` of dev and dev-gpu-a (pulumi CLI, private state, a copy of the project)
 * every health check passes; each health condition is broken and restored the same way. The NVCFBackend and
 * the agent come from the stand-in NVCA operator scripts/cluster.sh runs next to each local GPU cluster
 * (tests/bin/nvca-operator), as the real operator creates them; the health conditions broken here are ones it
 * does not reconcile (it acts at start-up and on the NVCFBackend's deletion only). Route and Gateway status comes
 * from the stand-in gateway controller scripts/cluster.sh runs next to nvcf-dev (tests/bin/gateway-controller),
 * as Envoy Gateway's controller writes it; a route broken here is reported by it, and `nvcf status` (the real CLI)
 * prints the finding.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readStackFiles } from "../../cli/environment";
import { checkHealth } from "../../cli/health";
import { decodeHelmRelease, encodeHelmRelease } from "../../kube/helmRecords";
import { runPreflight } from "../../cli/preflight";
import { EXIT, type Environment, type Finding, type StackFile } from "../../cli/types";
import { LOCAL_API_DIR, copyProject } from "./project";

const CACHE = process.env["NVCF_CACHE"] ?? path.join(os.homedir(), ".cache/nvcf-pulumi");
const KUBECONFIG = path.join(process.env["NVCF_LOCAL_DIR"] ?? CACHE, "clusters/kubeconfig");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-checks-"));
const state = path.join(work, ".state");
const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  PULUMI_BACKEND_URL: `file://${state}`,
  PULUMI_CONFIG_PASSPHRASE: "nvcf-dev-local-passphrase",
  KUBECONFIG,
  NVCF_CLI_ICMS_DIR: path.join(work, ".icms"),
  NVCF_CLI_API_DIR: LOCAL_API_DIR,
  PULUMI_SKIP_UPDATE_CHECK: "true",
  PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
};
process.env["KUBECONFIG"] = KUBECONFIG;

function run(
  cmd: string,
  args: string[],
  opts: { input?: string; allowFail?: boolean } = {},
): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, {
    cwd: work,
    env: ENV,
    encoding: "utf8",
    input: opts.input,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (!opts.allowFail && r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(" ")} exited ${r.status}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
    );
  return r;
}
const kubectl = (ctx: string, ...args: string[]) =>
  run("kubectl", ["--context", `kwok-nvcf-${ctx}`, ...args]).stdout;
/** Merges `status` into an object's status subresource (what a controller would report), on cluster `ctx`. */
const patchStatus = (ctx: string, object: string, namespace: string, status: object) =>
  kubectl(
    ctx,
    "patch",
    object,
    "-n",
    namespace,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status }),
  );
const apply = (ctx: string, obj: object) =>
  run("kubectl", ["--context", `kwok-nvcf-${ctx}`, "apply", "-f", "-"], { input: JSON.stringify(obj) });
const pulumi = (stack: string, ...args: string[]) =>
  run("pulumi", [...args, "-s", stack, "--non-interactive"]);
/**
 * `npx nvcf status --env dev` in the working copy (the real CLI), and the lines it printed for the dev stack: dev-gpu-b
 * is not deployed in this suite, so its own findings are left out.
 */
function nvcfStatus(): { code: number | null; dev: string[] } {
  const r = run("npx", ["nvcf", "status", "--env", "dev"], { allowFail: true });
  return { code: r.status, dev: r.stdout.split("\n").filter((l) => / dev: /.test(l)) };
}
/** A field of the local Gateway envoy-gateway/nvcf-gateway (scripts/cluster.sh), by kubectl jsonpath. */
const devGateway = (jsonpath: string) =>
  kubectl("dev", "get", "gateway", "nvcf-gateway", "-n", "envoy-gateway", "-o", `jsonpath=${jsonpath}`);
/** The stand-in gateway controller's name (scripts/cluster.sh): Envoy Gateway's. */
const CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller";
interface RouteStatus {
  metadata: { name: string; namespace: string; generation: number };
  spec: { parentRefs: { sectionName?: string }[] };
  status?: {
    parents?: {
      parentRef: { name: string; sectionName?: string };
      controllerName: string;
      conditions: {
        type: string;
        status: string;
        reason: string;
        message: string;
        observedGeneration: number;
      }[];
    }[];
  };
}
/** A route of nvcf-dev (`kind` as kubectl names it, e.g. httproute), with its status. */
const route = (kind: string, name: string, ns = "envoy-gateway") =>
  JSON.parse(kubectl("dev", "get", kind, name, "-n", ns, "-o", "json")) as RouteStatus;
/**
 * The stand-in controller's conditions on a route for the parent listener `section`, as `type → [status, reason]`, once
 * they are for the route's current generation; undefined before.
 */
function controllerConditions(kind: string, name: string, section: string) {
  const r = route(kind, name);
  const p = r.status?.parents?.find(
    (x) => x.controllerName === CONTROLLER && x.parentRef.sectionName === section,
  );
  if (!p || p.conditions.some((c) => c.observedGeneration !== r.metadata.generation)) return undefined;
  return Object.fromEntries(p.conditions.map((c) => [c.type, [c.status, c.reason]]));
}

/** A stack file of the working copy, as cli/environment.ts `readStackFiles` reads it. */
function stackFile(stack: string): StackFile {
  const file = readStackFiles(work).find((s) => s.stack === stack);
  if (!file) throw new Error(`no Pulumi.${stack}.yaml in ${work}`);
  return file;
}
/** The dev environment of the working copy; `compute` limits its GPU stacks. */
function devEnv(compute = ["dev-gpu-a", "dev-gpu-b"]): Environment {
  return { name: "dev", projectDir: work, control: stackFile("dev"), compute: compute.map(stackFile) };
}

/**
 * A finding these checks cannot avoid: images.pull (cli/preflight/images.ts) logs in to the image registry with
 * the pull-secret credentials, which it warns "not checked" about when it cannot: here the checks run without
 * the stacks' decrypted secrets (no `secrets` option), and on the embedded default the registry is a stand-in
 * name under `.test` that nothing serves anyway. Every other warning or failure counts.
 */
const unavoidable = (f: Finding) =>
  f.check === "images.pull" && f.severity === "warning" && f.found.startsWith("not checked: ");
const failing = (fs: readonly Finding[]) => fs.filter((f) => !f.ok && !unavoidable(f));
const show = (fs: readonly Finding[]) =>
  fs.map((f) => `${f.severity} ${f.check} ${f.stack} ${f.object}: ${f.found}`).join("\n");
/** The failing findings, asserted to be exactly the expected (check, object) pairs. */
function expectFailures(findings: readonly Finding[], want: [string, string][]): Finding[] {
  const bad = failing(findings);
  expect(bad.map((f) => [f.check, f.object]).sort()).toEqual([...want].sort());
  return bad;
}

beforeAll(() => {
  copyProject(work);
  fs.mkdirSync(state, { recursive: true });
  fs.mkdirSync(ENV["NVCF_CLI_ICMS_DIR"] as string, { recursive: true });
  if (!process.env["NVCF_HELM"]) process.env["NVCF_HELM"] = run("bash", ["scripts/helm.sh"]).stdout.trim();
});

afterAll(() => {
  // Best effort: no stack left behind (compute plane first).
  for (const s of ["dev-gpu-a", "dev"])
    run("pulumi", ["destroy", "--yes", "--skip-preview", "-s", s, "--non-interactive"], { allowFail: true });
  fs.rmSync(work, { recursive: true, force: true });
});

describe("preflight on the fresh local clusters", () => {
  test("every check passes, on every cluster and every chart", async () => {
    const f = await runPreflight(devEnv());
    expect(show(failing(f))).toBe("");
    const checks = new Set(f.map((x) => x.check));
    for (const c of [
      "cluster.reachable",
      "kubernetes.version",
      "gateway.crds",
      "gateway.programmed",
      "gateway.listeners",
      "storage.class",
      "nodes.cassandra",
      "nodes.openbao-injector",
      "certmanager.external",
      "openbao.issuer",
      "gpu.operator",
      "csi.smb",
      "kai.scheduler",
      "nodes.inotify",
      "gpu.identity",
      "charts.pull",
    ])
      expect([c, checks.has(c)]).toEqual([c, true]);
  });

  test("a GPU node without the GPU operator's labels", async () => {
    kubectl("gpu-a", "label", "node", "nvcf-gpu-a-gpu-0", "nvidia.com/gpu.present-");
    try {
      const [f] = expectFailures(await runPreflight(devEnv(["dev-gpu-a"])), [
        ["gpu.operator", "node nvcf-gpu-a-gpu-0"],
      ]);
      expect(f.found).toBe("advertises 8 nvidia.com/gpu but has no nvidia.com/gpu.present=true label");
    } finally {
      kubectl("gpu-a", "label", "node", "nvcf-gpu-a-gpu-0", "nvidia.com/gpu.present=true");
    }
  });

  test("the Gateway without the nats listener", async () => {
    const listeners = JSON.parse(devGateway("{.spec.listeners}")) as { name: string }[];
    const i = listeners.findIndex((l) => l.name === "nats");
    kubectl(
      "dev",
      "patch",
      "gateway",
      "nvcf-gateway",
      "-n",
      "envoy-gateway",
      "--type=json",
      "-p",
      JSON.stringify([{ op: "remove", path: `/spec/listeners/${i}` }]),
    );
    try {
      const [f] = expectFailures(await runPreflight(devEnv([])), [
        ["gateway.listeners", "Gateway envoy-gateway/nvcf-gateway"],
      ]);
      expect(f.found).toBe('has no listener "nats" (TCP 4222); it has: http, tcp, worker-tcp');
      expect(f.fix).toBe(
        "add the listener to the Gateway's spec.listeners (name nats, protocol TCP, port 4222)",
      );
    } finally {
      kubectl(
        "dev",
        "patch",
        "gateway",
        "nvcf-gateway",
        "-n",
        "envoy-gateway",
        "--type=json",
        "-p",
        JSON.stringify([{ op: "add", path: `/spec/listeners/${i}`, value: listeners[i] }]),
      );
    }
  });

  test("no default StorageClass", async () => {
    kubectl(
      "dev",
      "annotate",
      "storageclass",
      "standard",
      "storageclass.kubernetes.io/is-default-class=false",
      "--overwrite",
    );
    try {
      const [f] = expectFailures(await runPreflight(devEnv([])), [["storage.class", "default StorageClass"]]);
      expect(f.found).toBe("no default StorageClass among standard");
    } finally {
      kubectl(
        "dev",
        "annotate",
        "storageclass",
        "standard",
        "storageclass.kubernetes.io/is-default-class=true",
        "--overwrite",
      );
    }
  });

  test("the TCPRoute CRD missing", async () => {
    const crd = JSON.parse(kubectl("dev", "get", "crd", "tcproutes.gateway.networking.k8s.io", "-o", "json"));
    kubectl("dev", "delete", "crd", "tcproutes.gateway.networking.k8s.io", "--wait=true", "--timeout=60s");
    try {
      const [f] = expectFailures(await runPreflight(devEnv([])), [["gateway.crds", "Gateway API CRDs"]]);
      expect(f.found).toBe("missing CRD(s): tcproutes.gateway.networking.k8s.io");
    } finally {
      delete crd.status;
      crd.metadata = {
        name: crd.metadata.name,
        labels: crd.metadata.labels,
        annotations: crd.metadata.annotations,
      };
      apply("dev", crd);
      kubectl(
        "dev",
        "wait",
        "--for=condition=Established",
        "crd/tcproutes.gateway.networking.k8s.io",
        "--timeout=60s",
      );
    }
  });

  test("too few schedulable nodes for Cassandra's replicas (two nodes cordoned)", async () => {
    kubectl("dev", "cordon", "nvcf-dev-cpu-0", "nvcf-dev-cpu-1");
    try {
      const [f] = expectFailures(await runPreflight(devEnv([])), [
        ["nodes.cassandra", "StatefulSet cassandra-system/cassandra"],
      ]);
      expect(f.found).toBe("2 schedulable node(s) (Ready, not cordoned, taints tolerated) for 3 replica(s)");
    } finally {
      kubectl("dev", "uncordon", "nvcf-dev-cpu-0", "nvcf-dev-cpu-1");
    }
  });

  test("a cert-manager installed outside the stack while nvcf:certManager.managed is true", async () => {
    apply("dev", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "cert-manager",
        namespace: "default",
        labels: { "app.kubernetes.io/name": "cert-manager" },
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "cm" } },
        template: {
          metadata: { labels: { app: "cm" } },
          spec: { containers: [{ name: "c", image: "quay.io/jetstack/cert-manager-controller:v1.20.2" }] },
        },
      },
    });
    try {
      const [f] = expectFailures(await runPreflight(devEnv([])), [["certmanager.external", "cert-manager"]]);
      expect(f.found).toBe(
        "an existing cert-manager (Deployment default/cert-manager, not installed by Helm) that this stack did not install",
      );
    } finally {
      kubectl("dev", "delete", "deployment", "cert-manager", "-n", "default");
    }
  });

  test("the registration's context names another cluster than the compute stack's", async () => {
    const env = devEnv(["dev-gpu-a"]);
    const list = env.control.config["gpuClusters"] as { name: string; context: string }[];
    list[0].context = "kwok-nvcf-gpu-b";
    const [f] = expectFailures(await runPreflight(env), [["gpu.identity", "GPU cluster gpu-a"]]);
    expect(f.found).toBe(
      "the control plane registers it through dev's context kwok-nvcf-gpu-b, which reaches another cluster than this stack's context kwok-nvcf-gpu-a",
    );
  });

  test("a missing chart directory, and an OCI registry that does not answer", async () => {
    fs.renameSync(path.join(work, "tests/charts/helm-nvcf-api"), path.join(work, "tests/charts/moved-api"));
    try {
      const [f] = expectFailures(await runPreflight(devEnv([])), [
        ["charts.pull", "chart helm-nvcf-api 1.25.1"],
      ]);
      expect(f.found).toBe(
        "no chart directory ./tests/charts/helm-nvcf-api (no Chart.yaml there; charts.path)",
      );
    } finally {
      fs.renameSync(path.join(work, "tests/charts/moved-api"), path.join(work, "tests/charts/helm-nvcf-api"));
    }
    const env = devEnv(["dev-gpu-b"]);
    const charts = env.compute[0].config["charts"] as Record<string, unknown>;
    charts["mirrors"] = { kaiScheduler: { location: "oci://127.0.0.1:9/nvcf" } };
    const [g] = expectFailures(await runPreflight(env), [["charts.pull", "chart kai-scheduler v0.16.7"]]);
    expect(g.found).toMatch(
      /^pulling oci:\/\/127\.0\.0\.1:9\/nvcf\/kai-scheduler from 127\.0\.0\.1:9 failed: /,
    );
    expect(g.fix).toMatch(
      /^likely cause: the registry is unreachable from this machine .*; fix nvcf:charts\.mirrors\.kaiScheduler/,
    );
  });

  test("config-driven conditions: shared storage without the SMB driver, node selectors without labels", async () => {
    const env = devEnv(["dev-gpu-a"]);
    env.compute[0].config["nvcaOperator"] = { featureGates: ["HelmSharedStorage"] };
    (env.control.config["placement"] as unknown) = { nodeSelectors: { enabled: true } };
    const bad = expectFailures(await runPreflight(env), [
      ["csi.smb", "CSIDriver smb.csi.k8s.io"],
      ["nodes.labels", "node selector vault"],
      ["nodes.labels", "node selector cassandra"],
      ["nodes.labels", "node selector controlplane"],
      ["nodes.cassandra", "StatefulSet cassandra-system/cassandra"],
      ["nodes.openbao-injector", "Deployment vault-system/openbao-server-agent-injector"],
    ]);
    expect(bad.find((b) => b.check === "csi.smb")?.fix).toMatch(/^helm install csi-driver-smb/);
    expect(bad.find((b) => b.object === "node selector vault")?.found).toBe(
      "no node is labelled nvcf.nvidia.com/workload=vault",
    );
    // With the SMB driver installed, that finding goes.
    apply("gpu-a", {
      apiVersion: "storage.k8s.io/v1",
      kind: "CSIDriver",
      metadata: { name: "smb.csi.k8s.io" },
      spec: { attachRequired: false, podInfoOnMount: true },
    });
    try {
      const only = devEnv(["dev-gpu-a"]);
      only.compute[0].config["nvcaOperator"] = { featureGates: ["HelmSharedStorage"] };
      expect(show(failing(await runPreflight(only)))).toBe("");
    } finally {
      kubectl("gpu-a", "delete", "csidriver", "smb.csi.k8s.io");
    }
  });

  test("a KAI running outside the stack clashes; CRDs left by an earlier install do not", async () => {
    // Helm keeps a chart's crds/ on uninstall: CRDs alone are what an earlier, uninstalled KAI leaves.
    apply("gpu-b", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "queues.scheduling.run.ai" },
      spec: {
        group: "scheduling.run.ai",
        scope: "Cluster",
        names: { kind: "Queue", plural: "queues", singular: "queue", listKind: "QueueList" },
        versions: [
          {
            name: "v2",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        ],
      },
    });
    try {
      expect(show(failing(await runPreflight(devEnv(["dev-gpu-b"]))))).toBe("");
      apply("gpu-b", {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "kai-operator", namespace: "default" },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "kai-operator" } },
          template: {
            metadata: { labels: { app: "kai-operator" } },
            spec: { containers: [{ name: "operator", image: "registry.nvcf.test/kai/operator:v0" }] },
          },
        },
      });
      const [f] = expectFailures(await runPreflight(devEnv(["dev-gpu-b"])), [
        ["kai.scheduler", "KAI scheduler"],
      ]);
      expect(f.found).toBe(
        "KAI is already running outside this stack (Deployment default/kai-operator, no Helm release kai-scheduler/kai-scheduler)",
      );
    } finally {
      kubectl(
        "gpu-b",
        "delete",
        "deployment",
        "kai-operator",
        "-n",
        "default",
        "--ignore-not-found",
        "--wait=true",
      );
      kubectl("gpu-b", "delete", "crd", "queues.scheduling.run.ai", "--wait=true");
    }
  });
});

describe("health after pulumi up of dev and dev-gpu-a", () => {
  const env = () => devEnv(["dev-gpu-a"]);
  const nvca = (...args: string[]) => kubectl("gpu-a", ...args);

  beforeAll(() => {
    for (const s of ["dev", "dev-gpu-a"]) run("pulumi", ["stack", "init", s, "--non-interactive"]);
    pulumi("dev", "up", "--yes", "--skip-preview");
    pulumi("dev-gpu-a", "up", "--yes", "--skip-preview");
  }, 900_000);

  /** The agent's pods (the stand-in operator's Deployment nvca-system/nvca), name → phase. */
  const agentPods = () =>
    Object.fromEntries(
      nvca(
        "get",
        "pods",
        "-n",
        "nvca-system",
        "-l",
        "app.kubernetes.io/name=nvca",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name}={.status.phase}{"\\n"}{end}',
      )
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("=")),
    );
  /** Polls `probe` every second until it returns a value, for at most `seconds`. */
  async function until<T>(what: string, probe: () => T | undefined, seconds = 60): Promise<T> {
    for (let i = 0; i < seconds; i++) {
      const v = probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 1000));
    }
    throw new Error(`timed out after ${seconds}s waiting for ${what}`);
  }

  test("every health check passes (once the operator has created its NVCFBackend and agent)", async () => {
    // The operator acts after its release is deployed: re-check for up to a minute, as `nvcf up` may.
    const f = await checkHealth(env(), { retryForSeconds: 60, retryIntervalSeconds: 2 });
    expect(show(failing(f))).toBe("");
    const checks = new Set(f.map((x) => x.check));
    for (const c of [
      "health.release",
      "health.workloads",
      "health.hooks",
      "health.routes",
      "health.identity",
      "health.nvcfbackend",
      "health.agent",
    ])
      expect([c, checks.has(c)]).toEqual([c, true]);
    for (const job of [
      "vault-system/openbao-server-initialize-cluster",
      "vault-system/openbao-server-migrations",
      "cassandra-system/cassandra-migrations",
      "nvcf/nvcf-api-account-bootstrap",
    ])
      expect(f.find((x) => x.object === `Job ${job}`)?.ok).toBe(true);
  });

  test("the account-bootstrap Job failed, then its Job gone with Helm's record of the hook not Succeeded", async () => {
    kubectl(
      "dev",
      "delete",
      "job",
      "nvcf-api-account-bootstrap",
      "-n",
      "nvcf",
      "--ignore-not-found",
      "--wait=true",
    );
    apply("dev", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "nvcf-api-account-bootstrap", namespace: "nvcf" },
      spec: {
        activeDeadlineSeconds: 1,
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: "Never",
            nodeSelector: { "nvcf.test/no-such-node": "true" },
            containers: [{ name: "bootstrap", image: "alpine/k8s:1.36.1" }],
          },
        },
      },
    });
    kubectl(
      "dev",
      "wait",
      "--for=condition=Failed",
      "job/nvcf-api-account-bootstrap",
      "-n",
      "nvcf",
      "--timeout=60s",
    );
    try {
      const [f] = expectFailures(await checkHealth(env()), [
        ["health.hooks", "Job nvcf/nvcf-api-account-bootstrap"],
      ]);
      expect(f.found).toBe(
        "the Job failed (DeadlineExceeded: Job was active longer than specified deadline)",
      );
      expect(f.needed).toBe(
        'the account-bootstrap Job to succeed: without the account every API call returns 404 "Unknown client_id"',
      );
      expect(f.fix).toMatch(
        /re-run the api release so the bootstrap hook fires: pulumi up -s dev --replace <URN of the Release nvcf-api>/,
      );
    } finally {
      kubectl("dev", "delete", "job", "nvcf-api-account-bootstrap", "-n", "nvcf", "--wait=true");
    }
    // The Job gone (as after its TTL): Helm's record decides. Rewrite the record as Helm writes a failed hook.
    const name = kubectl(
      "dev",
      "get",
      "secrets",
      "-n",
      "nvcf",
      "-l",
      "owner=helm,name=api,status=deployed",
      "-o",
      "name",
    ).trim();
    const secret = JSON.parse(kubectl("dev", "get", name, "-n", "nvcf", "-o", "json"));
    const original = secret.data.release as string;
    const rel = decodeHelmRelease(original);
    for (const h of rel.hooks ?? [])
      if (/account-bootstrap/.test(h.name) && h.kind === "Job")
        h.last_run = { ...h.last_run, phase: "Failed" };
    kubectl(
      "dev",
      "patch",
      name,
      "-n",
      "nvcf",
      "--type=merge",
      "-p",
      JSON.stringify({ data: { release: encodeHelmRelease(rel) } }),
    );
    try {
      const [f] = expectFailures(await checkHealth(env()), [
        ["health.hooks", "Job nvcf/nvcf-api-account-bootstrap"],
      ]);
      expect(f.found).toBe("Helm recorded the hook as Failed and the Job is gone");
    } finally {
      kubectl(
        "dev",
        "patch",
        name,
        "-n",
        "nvcf",
        "--type=merge",
        "-p",
        JSON.stringify({ data: { release: original } }),
      );
    }
  });

  test("the identity ConfigMap missing the cluster group ID", async () => {
    const cm = JSON.parse(nvca("get", "cm", "nvcfbackend-self-managed", "-n", "nvca-operator", "-o", "json"));
    const dto = cm.data["cluster-dto.yaml"] as string;
    const broken = dto.replace(/^clusterGroupId:.*$/m, 'clusterGroupId: ""');
    expect(broken).not.toBe(dto);
    nvca(
      "patch",
      "cm",
      "nvcfbackend-self-managed",
      "-n",
      "nvca-operator",
      "--type=merge",
      "-p",
      JSON.stringify({ data: { "cluster-dto.yaml": broken } }),
    );
    try {
      const [f] = expectFailures(await checkHealth(env()), [
        ["health.identity", "ConfigMap nvca-operator/nvcfbackend-self-managed"],
      ]);
      expect(f.found).toBe("cluster-dto.yaml has no clusterGroupId");
    } finally {
      nvca(
        "patch",
        "cm",
        "nvcfbackend-self-managed",
        "-n",
        "nvca-operator",
        "--type=merge",
        "-p",
        JSON.stringify({ data: { "cluster-dto.yaml": dto } }),
      );
    }
  });

  test("the NVCFBackend unhealthy, and the agent pod not ready", async () => {
    patchStatus("gpu-a", "nvcfbackend/gpu-a", "nvca-operator", { agentStatus: "unhealthy" });
    try {
      // Longer than the stand-in operator's period (3 s): it reports a status only while none is reported.
      await new Promise((r) => setTimeout(r, 5000));
      const [f] = expectFailures(await checkHealth(env()), [
        ["health.nvcfbackend", "NVCFBackend nvca-operator/gpu-a"],
      ]);
      expect(f.found).toBe("agentStatus is unhealthy");
    } finally {
      patchStatus("gpu-a", "nvcfbackend/gpu-a", "nvca-operator", { agentStatus: "healthy" });
    }
    // A rollout the scheduler cannot place (the operator does not revert the agent's spec): the new pod stays
    // Pending next to the old one.
    const ready = Object.keys(agentPods());
    nvca(
      "patch",
      "deployment",
      "nvca",
      "-n",
      "nvca-system",
      "--type=merge",
      "-p",
      JSON.stringify({
        spec: { template: { spec: { nodeSelector: { "nvcf.test/no-such-node": "true" } } } },
      }),
    );
    try {
      const pending = await until(
        "the agent's Pending pod",
        () =>
          Object.entries(agentPods()).find(([n, phase]) => phase === "Pending" && !ready.includes(n))?.[0],
      );
      const [f] = expectFailures(await checkHealth(env()), [["health.agent", `pod nvca-system/${pending}`]]);
      expect(f.found).toMatch(/^not Ready \(phase Pending/);
    } finally {
      nvca("rollout", "undo", "deployment/nvca", "-n", "nvca-system");
      nvca("rollout", "status", "deployment/nvca", "-n", "nvca-system", "--timeout=60s");
      await until("only Running agent pods", () =>
        Object.values(agentPods()).every((p) => p === "Running") ? true : undefined,
      );
    }
  });

  test("no agent pod (the agent scaled to zero, which the operator does not undo)", async () => {
    nvca("scale", "deployment/nvca", "-n", "nvca-system", "--replicas=0");
    try {
      await until("no agent pod", () => (Object.keys(agentPods()).length === 0 ? true : undefined));
      const [f] = expectFailures(await checkHealth(env()), [["health.agent", "pods nvca-system/nvca-*"]]);
      expect(f.found).toBe("no NVCA agent pod");
    } finally {
      nvca("scale", "deployment/nvca", "-n", "nvca-system", "--replicas=1");
      nvca("rollout", "status", "deployment/nvca", "-n", "nvca-system", "--timeout=60s");
    }
    expect(show(failing(await checkHealth(env())))).toBe("");
  });

  test("the controller's status on the dev routes and Gateway, and the env ConfigMaps, as NVIDIA's suite asserts them", () => {
    // NVIDIA's multi-cluster acceptance suite (tests/bdd/features/multi-cluster-eks-helmfile.feature), its commands.
    for (const type of ["Accepted", "ResolvedRefs"])
      kubectl(
        "dev",
        "wait",
        "grpcroute/nvcf-api-grpc",
        "grpcroute/nvct-api-grpc",
        "-n",
        "envoy-gateway",
        `--for=jsonpath={.status.parents[0].conditions[?(@.type=="${type}")].status}=True`,
        "--timeout=2m",
      );
    kubectl(
      "dev",
      "wait",
      "--for=condition=Programmed",
      "gateway/nvcf-gateway",
      "-n",
      "envoy-gateway",
      "--timeout=2m",
    );
    const address = devGateway("{.status.addresses[0].value}");
    expect(address).toBe("127.0.0.1");
    expect(route("httproute", "nvcf-api").spec).toMatchObject({ hostnames: ["api.nvcf.test"] });
    // Every route the ingress release renders: Accepted and ResolvedRefs from the stand-in controller, for the route's
    // generation; only the LLM gateway's route lacks its backend (the chart renders it with the add-on off).
    const all = JSON.parse(
      kubectl("dev", "get", "httproutes,grpcroutes,tcproutes", "-n", "envoy-gateway", "-o", "json"),
    ) as { items: (RouteStatus & { kind: string })[] };
    const seen = all.items.map((r) => {
      const mine = (r.status?.parents ?? []).filter((p) => p.controllerName === CONTROLLER);
      expect([r.metadata.name, mine.length]).toEqual([r.metadata.name, r.spec.parentRefs.length]);
      const bad = mine.flatMap((p) =>
        p.conditions
          .filter((c) => c.status !== "True" || c.observedGeneration !== r.metadata.generation)
          .map((c) => `${c.type}=${c.status} (${c.reason})`),
      );
      return `${r.kind} ${r.metadata.name}${bad.length ? `: ${bad.join(", ")}` : ""}`;
    });
    expect(seen.filter((l) => l.includes(": "))).toEqual([
      "HTTPRoute llm-api-gateway: ResolvedRefs=False (BackendNotFound)",
    ]);
    expect(seen).toEqual(
      expect.arrayContaining([
        "GRPCRoute nvcf-api-grpc",
        "GRPCRoute nvct-api-grpc",
        "HTTPRoute nvcf-api",
        "TCPRoute nats",
      ]),
    );
    // The environment ConfigMaps the API Deployments read (envFrom), with the worker-facing endpoints.
    const data = (name: string) =>
      (
        JSON.parse(kubectl("dev", "get", "configmap", name, "-n", "nvcf", "-o", "json")) as {
          data: Record<string, string>;
        }
      ).data;
    expect(data("nvcf-api-env")).toMatchObject({
      NVCF_FQDN: "http://api.nvcf.test",
      NVCF_GLOBAL_FQDN_GRPC: "http://worker-api.nvcf.test",
      NVCF_NATS_WORKER_URL: `nats://${address}:4222`,
    });
    expect(data("nvct-api-env")).toMatchObject({
      NVCT_FQDN: "http://tasks.nvcf.test",
      NVCT_GLOBAL_FQDN_GRPC: "http://worker-tasks.nvcf.test",
    });
    expect(
      kubectl(
        "dev",
        "get",
        "deployment",
        "nvcf-api",
        "-n",
        "nvcf",
        "-o",
        "jsonpath={.spec.template.spec.containers[0].envFrom}",
      ),
    ).toBe(JSON.stringify([{ configMapRef: { name: "nvcf-api-env" } }]));
  });

  test("a route whose listener does not exist: the controller reports NoMatchingParent, nvcf status names it", async () => {
    // As a wrong listener name would: the route's parentRef names a listener the Gateway does not have.
    const section = (value: string) =>
      kubectl(
        "dev",
        "patch",
        "httproute",
        "nvcf-api",
        "-n",
        "envoy-gateway",
        "--type=json",
        "-p",
        JSON.stringify([{ op: "replace", path: "/spec/parentRefs/0/sectionName", value }]),
      );
    section("no-such-listener");
    try {
      const conds = await until("the controller's status for listener no-such-listener", () =>
        controllerConditions("httproute", "nvcf-api", "no-such-listener"),
      );
      expect(conds).toEqual({
        Accepted: ["False", "NoMatchingParent"],
        ResolvedRefs: ["True", "ResolvedRefs"],
      });
      const r = nvcfStatus();
      expect(r.code).toBe(EXIT.health);
      expect(r.dev).toEqual([
        "FAIL dev: HTTPRoute envoy-gateway/nvcf-api (health.routes): found Accepted=False (NoMatchingParent) from " +
          'Gateway envoy-gateway/nvcf-gateway:no-such-listener: Gateway envoy-gateway/nvcf-gateway has no listener named "no-such-listener"; ' +
          "needed the route Accepted by its Gateway's controller on every parent, with its references resolved (ResolvedRefs); " +
          'fix: give Gateway envoy-gateway/nvcf-gateway a listener named "no-such-listener", or point the route\'s parentRef ' +
          "at one it has (http, tcp, nats, worker-tcp)",
      ]);
    } finally {
      section("http");
      await until("the route accepted again on listener http", () =>
        controllerConditions("httproute", "nvcf-api", "http")?.["Accepted"]?.[0] === "True"
          ? true
          : undefined,
      );
    }
  });

  test("a release uninstalled outside Pulumi: its route's backend is missing; the documented fix (pulumi up --refresh) restores it", async () => {
    run(process.env["NVCF_HELM"] as string, [
      "--kube-context",
      "kwok-nvcf-dev",
      "uninstall",
      "reval",
      "-n",
      "nvcf",
      "--wait",
    ]);
    // The controller reports the route's missing backend, as on a real cluster.
    const conds = await until("the controller's status for the route without its backend", () => {
      const c = controllerConditions("httproute", "reval", "http");
      return c?.["ResolvedRefs"]?.[0] === "False" ? c : undefined;
    });
    expect(conds).toEqual({ Accepted: ["True", "Accepted"], ResolvedRefs: ["False", "BackendNotFound"] });
    const r = nvcfStatus();
    expect(r.code).toBe(EXIT.health);
    expect(r.dev).toEqual([
      "FAIL dev: release nvcf/reval (health.release): found not installed (no Helm release record); needed release " +
        "reval deployed with chart helm-reval 1.3.8; fix: pulumi up -s dev --refresh (the refresh notices the missing " +
        "release, the update installs it again)",
      "FAIL dev: HTTPRoute envoy-gateway/reval (health.routes): found ResolvedRefs=False (BackendNotFound) from Gateway " +
        "envoy-gateway/nvcf-gateway:http: Service nvcf/reval not found; needed the route Accepted by its Gateway's " +
        "controller on every parent, with its references resolved (ResolvedRefs); fix: install the release that serves " +
        "Service nvcf/reval (pulumi up -s dev --refresh reinstalls a release removed outside Pulumi), or fix the route's backendRef",
    ]);
    pulumi("dev", "up", "--yes", "--skip-preview", "--refresh");
    // The controller sees the Service back within a pass or two: re-check as `nvcf up`'s verification does.
    expect(show(failing(await checkHealth(env(), { retryForSeconds: 60, retryIntervalSeconds: 2 })))).toBe(
      "",
    );
  }, 600_000);
});
