/**
 * End to end: a running installation made the way NVIDIA's Helmfile bundles make it is moved into two stacks
 * with `nvcf import-helmfile`, without reinstalling anything.
 *
 * The "Helmfile" installation: the Helm CLI (scripts/helm.sh, `NVCF_HELM`) installs every control-plane release
 * of the environment with the names, namespaces and values NVIDIA's stack gives them (as tools/values.ts
 * prints them for the same settings: a fair stand-in for the Helmfile's values), Helm creating the namespaces
 * (`--create-namespace`, as helmfile does) and the user creating the pull secret in each namespace (NVIDIA's
 * docs); GPU cluster gpu-a is registered with nvcf-cli (the stand-in, as `make register-cluster` runs it, its
 * values block saved as registration/gpu-a-register-values.yaml) and its operator installed the same way. The
 * Helmfile environment and secrets files are written here in NVIDIA's format, with throwaway credentials.
 *
 * Then: import-helmfile of the control plane and of gpu-a (the real `nvcf` command), the previews show no
 * create/replace/delete of an adopted object, `pulumi up` of both succeeds without reinstalling (Helm revision
 * up by at most one, Cassandra and OpenBao pods keep their UIDs, install-only hook objects are not made again),
 * the GPU cluster keeps its IDs (nvcf-cli register is not run again), and secrets never appear in the output.
 * Needs the toolchain on PATH, the local clusters up and NVCF_HELM (scripts/test.sh provides all three).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { chartReference } from "../../components/release";
import { cliConfigYaml } from "../../values/registration";
import { minifyKubeconfig } from "../../kube/kubeconfig";
import { serviceHosts } from "../../config/routes";
import { stackValues } from "../../tools/values";
import { e2eProject, LOCAL_KUBECONFIG, resetLocalClusters } from "./project";

const HELM = process.env["NVCF_HELM"] ?? "";
const project = e2eProject("nvcf-import");
const { work, icms, transcript, run } = project;
const bundleDir = path.join(work, "helmfile-bundle");
const CONTROL = "dev-moved";
const COMPUTE = "dev-moved-gpu-a";

// Throwaway credentials of the "Helmfile" installation; the move must keep them and never print them.
const CASSANDRA_PASSWORD = "hf-cassandra-3b9e1d";
const REGISTRY_KEY = "hf-registry-key-5c7a20";
const REGISTRY_USER = "robot";
const AUTH = Buffer.from(`${REGISTRY_USER}:${REGISTRY_KEY}`).toString("base64");
const SECRETS = [CASSANDRA_PASSWORD, REGISTRY_KEY, AUTH];

const kubectl = project.kubectl;
const pulumi = (stack: string, ...args: string[]) => project.pulumi(stack, args);
/** import-helmfile settings that point the moved stacks at the embedded default's stand-in charts. */
const LOCAL_CHARTS = [
  "--set",
  "charts.source=local",
  "--set",
  "charts.path=tests/charts",
  "--set",
  "charts.timeoutSeconds=300",
];
const nvcf = (...args: string[]) =>
  run("node", [path.join(work, "cli/nvcf.js"), ...args], { allowFail: true });

/** Helm release revisions of a cluster, `<namespace>/<name>` → newest revision (Helm's storage Secrets). */
function revisions(ctx: string): Record<string, number> {
  const items = JSON.parse(kubectl(ctx, "get", "secrets", "-A", "-l", "owner=helm", "-o", "json")).items as {
    metadata: { namespace: string; labels: Record<string, string> };
  }[];
  const out: Record<string, number> = {};
  for (const s of items) {
    const k = `${s.metadata.namespace}/${s.metadata.labels["name"]}`;
    out[k] = Math.max(out[k] ?? 0, Number(s.metadata.labels["version"]));
  }
  return out;
}
/** UIDs of the named objects (`kind/name` in a namespace). */
const uids = (ctx: string, ns: string, ...objs: string[]) =>
  objs.map((o) => `${o}=${kubectl(ctx, "get", o, "-n", ns, "-o", "jsonpath={.metadata.uid}")}`);
const podUids = (ctx: string, ns: string, selector: string) =>
  kubectl(
    ctx,
    "get",
    "pods",
    "-n",
    ns,
    "-l",
    selector,
    "-o",
    'jsonpath={range .items[*]}{.metadata.name}={.metadata.uid}{"\\n"}{end}',
  )
    .split("\n")
    .filter(Boolean)
    .sort();

/** The StatefulSet pods (Cassandra's and OpenBao's data holders; hook Job pods are not among them). */
const STS_PODS = "statefulset.kubernetes.io/pod-name";

/** Preview steps of a stack as `pulumi preview --json` reports them: op and URN of every step. */
function previewSteps(stack: string): { op: string; urn: string }[] {
  const r = pulumi(stack, "preview", "--json");
  return (JSON.parse(r.stdout).steps ?? []) as { op: string; urn: string }[];
}
/** The objects the move adopted: what the stack's state holds right after import-helmfile (before any up). */
function adoptedUrns(stack: string): Set<string> {
  const dep = JSON.parse(pulumi(stack, "stack", "export").stdout) as {
    deployment: { resources: { urn: string; type: string }[] };
  };
  const kinds =
    /^(kubernetes:core\/v1:Namespace|kubernetes:core\/v1:Secret|kubernetes:helm\.sh\/v3:Release|command:local:Command)$/;
  return new Set(dep.deployment.resources.filter((r) => kinds.test(r.type)).map((r) => r.urn));
}

/** Installs every release of a stack the way Helmfile does: helm upgrade --install, values as the stack gives them. */
function helmInstall(ctx: string, stack: string, opts: Parameters<typeof stackValues>[1]): string[] {
  const releases = stackValues(stack, { root: work, secrets: "sentinel", namespaces: "resolved", ...opts });
  for (const [name, r] of Object.entries(releases)) {
    const ref = chartReference(
      { source: "local", path: "tests/charts", mirrors: {} } as never,
      r.chart,
      r.version,
      (p) => fs.existsSync(path.resolve(work, p)),
    );
    const file = path.join(work, `.values-${name}.yaml`);
    fs.writeFileSync(file, yaml.dump(r.values));
    run(HELM, [
      "--kube-context",
      `kwok-nvcf-${ctx}`,
      "upgrade",
      "--install",
      name,
      path.resolve(work, ref.chart),
      "-n",
      r.namespace,
      "--create-namespace",
      "-f",
      file,
      "--wait",
      "--wait-for-jobs",
      "--timeout",
      "300s",
    ]);
  }
  return Object.keys(releases);
}
/** The user's pull secret, as NVIDIA's docs have it created in each namespace. */
function pullSecret(ctx: string, ns: string) {
  if (run("kubectl", ["--context", `kwok-nvcf-${ctx}`, "get", "ns", ns], { allowFail: true }).status !== 0)
    kubectl(ctx, "create", "namespace", ns);
  kubectl(
    ctx,
    "create",
    "secret",
    "docker-registry",
    "nvcr-pull-secret",
    "-n",
    ns,
    "--docker-server=registry.nvcf.test",
    `--docker-username=${REGISTRY_USER}`,
    `--docker-password=${REGISTRY_KEY}`,
  );
}

const files = {
  controlEnv: path.join(bundleDir, "self-managed/environments/dev.yaml"),
  controlSecrets: path.join(bundleDir, "self-managed/secrets/dev-secrets.yaml"),
  computeEnv: path.join(bundleDir, "nvcf-compute-plane/environments/gpu-a.yaml"),
  registration: path.join(bundleDir, "nvcf-compute-plane/registration/gpu-a-register-values.yaml"),
};
const before: {
  revisions: Record<string, number>;
  gpuRevisions: Record<string, number>;
  pods: string[];
  hooks: string[];
} = {
  revisions: {},
  gpuRevisions: {},
  pods: [],
  hooks: [],
};
let registration: Record<string, unknown> = {};

beforeAll(() => {
  if (!HELM)
    throw new Error(
      "NVCF_HELM is not set: run NVCF_HELM=$(bash scripts/helm.sh) first (scripts/test.sh does)",
    );
  resetLocalClusters(["dev", "gpu-a"]);
  for (const f of Object.values(files)) fs.mkdirSync(path.dirname(f), { recursive: true });
  // The Helmfile files: environment and secrets of the control plane, environment of gpu-a (NVIDIA's format).
  fs.copyFileSync(
    path.join(work, "tests/unit/fixtures/helmfile/dev/environments/dev.yaml"),
    files.controlEnv,
  );
  fs.copyFileSync(
    path.join(work, "tests/unit/fixtures/helmfile/dev/environments/gpu-a.yaml"),
    files.computeEnv,
  );
  fs.writeFileSync(
    files.controlSecrets,
    yaml.dump({
      openbao: {
        migrations: {
          env: [
            { name: "DEFAULT_CASSANDRA_PASSWORD", value: CASSANDRA_PASSWORD },
            { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: AUTH },
            { name: "ADMIN_CLIENT_ID", value: "ncp" },
          ],
        },
      },
      api: {
        accountBootstrap: {
          registryCredentials: [
            {
              registryHostname: "registry.nvcf.test",
              secret: { name: "nvcr-containers", value: AUTH },
              artifactTypes: ["CONTAINER"],
              tags: [],
            },
          ],
        },
      },
    }),
  );
}, 60000);

afterAll(() => {
  // The stacks own everything after the move: destroying them (GPU cluster first) clears the clusters.
  for (const s of [COMPUTE, CONTROL])
    project.pulumi(s, ["destroy", "--yes", "--skip-preview"], { allowFail: true });
  project.remove();
}, 600000);

// The settings of the dev environment the Helmfile files describe (only gpu-a registered, no observability).
const DEV_SETS = {
  cassandraPassword: CASSANDRA_PASSWORD,
  registryKey: REGISTRY_KEY,
  observability: JSON.stringify({ profile: "disabled" }),
  gpuClusters: JSON.stringify([{ name: "gpu-a", region: "us-west-1", context: "kwok-nvcf-gpu-a" }]),
};

test("an installation made the way Helmfile makes it: helm installs, pull secrets, registered GPU cluster", () => {
  const control = stackValues("dev", {
    root: work,
    secrets: "sentinel",
    namespaces: "resolved",
    sets: DEV_SETS,
  });
  for (const ns of new Set(Object.values(control).map((r) => r.namespace)))
    if (ns !== "envoy-gateway-system") pullSecret("dev", ns);
  helmInstall("dev", "dev", { sets: DEV_SETS });
  // make register-cluster: nvcf-cli init, cluster register, the values block from the first clusterID: line.
  const cliConfig = path.join(work, ".nvcf-cli.yaml");
  fs.writeFileSync(
    cliConfig,
    cliConfigYaml({
      gatewayUrl: "http://127.0.0.1",
      hosts: serviceHosts("nvcf.test"),
      ncaId: "nvcf-default",
    }),
  );
  const kc = path.join(work, ".gpu-a.kubeconfig");
  fs.writeFileSync(
    kc,
    minifyKubeconfig([fs.readFileSync(LOCAL_KUBECONFIG, "utf8")], "kwok-nvcf-gpu-a", (p) =>
      fs.readFileSync(p),
    ).yaml,
  );
  const cli = path.join(work, "tests/bin/nvcf-cli");
  run(cli, ["--config", cliConfig, "init"]);
  const out = run(cli, [
    "--config",
    cliConfig,
    "cluster",
    "register",
    "--name",
    "gpu-a",
    "--nca-id",
    "nvcf-default",
    "--region",
    "us-west-1",
    "--icms-url",
    "http://127.0.0.1",
    "--kubeconfig",
    kc,
    "--ignore-existing",
  ]).stdout;
  fs.writeFileSync(files.registration, out.slice(out.search(/^clusterID:/m)));
  registration = yaml.load(fs.readFileSync(files.registration, "utf8")) as Record<string, unknown>;
  for (const ns of ["nvca-operator", "nvca-system", "nvcf-backend"]) pullSecret("gpu-a", ns);
  helmInstall("gpu-a", "dev-gpu-a", { registration, gatewayAddress: "127.0.0.1" });

  before.revisions = revisions("dev");
  before.gpuRevisions = revisions("gpu-a");
  before.pods = [
    ...podUids("dev", "cassandra-system", STS_PODS),
    ...podUids("dev", "vault-system", STS_PODS),
  ];
  // Install-only hook objects: OpenBao's unseal Secret (pre-install) and init Job (post-install), Cassandra's init CQL (pre-install).
  before.hooks = [
    ...uids("dev", "vault-system", "secret/openbao-server-unseal", "job/openbao-server-initialize-cluster"),
    ...uids("dev", "cassandra-system", "configmap/cassandra-init-cql"),
  ];
  expect(Object.values(before.revisions).every((r) => r === 1)).toBe(true);
  expect(before.pods.length).toBeGreaterThanOrEqual(6);
  expect(registration["clusterID"]).toEqual(expect.any(String));
}, 600000);

test("nvcf import-helmfile moves the control plane: every key noted, secrets kept and not printed, a clean preview", () => {
  // Renamed so the dev stack's own file cannot stand in for the one the import writes.
  fs.rmSync(path.join(work, "Pulumi.dev.yaml"));
  const r = nvcf(
    "import-helmfile",
    "--stack",
    CONTROL,
    "--env-file",
    files.controlEnv,
    "--secrets-file",
    files.controlSecrets,
    "--registration",
    files.registration,
    "--gpu-context",
    "gpu-a=kwok-nvcf-gpu-a",
    "--context",
    "kwok-nvcf-dev",
    ...LOCAL_CHARTS,
    "--set",
    "nvcfCli.path=tests/bin/nvcf-cli",
  );
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
  const out = r.stdout;
  expect(out).toMatch(/mapped +global\.domain → nvcf:domain/);
  expect(out).toMatch(
    /secret +secrets: openbao\.migrations\.env\[DEFAULT_CASSANDRA_PASSWORD\] → nvcf:cassandraPassword \(set with --secret, value not shown\)/,
  );
  expect(out).toMatch(/releases match the catalog of bundle 0\.8\.0/);
  expect(out).toMatch(
    /import of \d+ Helm releases, \d+ namespaces, \d+ pull secrets by their live IDs: done/,
  );
  expect(out).toMatch(/registration records of 1 GPU cluster\(s\), kept IDs \(nvcf-cli not run\): done/);
  expect(out).toMatch(/to create\/replace\/delete\.$/m);
  expect(out).toMatch(/, 0 to create\/replace\/delete\./);
  const file = fs.readFileSync(path.join(work, `Pulumi.${CONTROL}.yaml`), "utf8");
  for (const s of SECRETS) expect(file).not.toContain(s);
  expect(file).toMatch(/nvcf:cassandraPassword:\n\s+secure:/);
  // The preview as the user runs it: no adopted object is created, replaced or deleted.
  const adopted = adoptedUrns(CONTROL);
  expect([...adopted].filter((u) => u.includes("helm.sh/v3:Release")).length).toBeGreaterThanOrEqual(15);
  const steps = previewSteps(CONTROL);
  expect(steps.filter((s) => adopted.has(s.urn) && !["same", "update"].includes(s.op))).toEqual([]);
}, 600000);

test("pulumi up of the control plane upgrades in place: revision +1 at most, same pods, install-only hooks not re-run, IDs kept", () => {
  pulumi(CONTROL, "up", "--yes", "--skip-preview");
  const after = revisions("dev");
  for (const [k, v] of Object.entries(before.revisions)) expect([k, after[k] - v <= 1]).toEqual([k, true]);
  expect([
    ...podUids("dev", "cassandra-system", STS_PODS),
    ...podUids("dev", "vault-system", STS_PODS),
  ]).toEqual(before.pods);
  expect([
    ...uids("dev", "vault-system", "secret/openbao-server-unseal", "job/openbao-server-initialize-cluster"),
    ...uids("dev", "cassandra-system", "configmap/cassandra-init-cql"),
  ]).toEqual(before.hooks);
  const regs = JSON.parse(pulumi(CONTROL, "stack", "output", "clusterRegistrations", "--json").stdout);
  expect([regs["gpu-a"].clusterID, regs["gpu-a"].clusterGroupID]).toEqual([
    registration["clusterID"],
    registration["clusterGroupID"],
  ]);
  // nvcf-cli registered the cluster once (make register-cluster); the stack did not register it again.
  const icmsDoc = JSON.parse(fs.readFileSync(path.join(icms, "nvcf-default.json"), "utf8"));
  expect(
    icmsDoc.clusters.map((c: { name: string; registerCount: number }) => [c.name, c.registerCount]),
  ).toEqual([["gpu-a", 1]]);
}, 600000);

test("the GPU cluster moves too: clean preview, up keeps the operator release and the cluster's IDs", () => {
  const r = nvcf(
    "import-helmfile",
    "--stack",
    COMPUTE,
    "--compute",
    "--env-file",
    files.computeEnv,
    "--registration",
    files.registration,
    "--control-plane-stack",
    `organization/nvcf/${CONTROL}`,
    "--context",
    "kwok-nvcf-gpu-a",
    ...LOCAL_CHARTS,
  );
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
  expect(r.stdout).toMatch(/NOT MAPPED +global\.nvcaOperator\.selfManaged\.icmsServiceURL: /);
  expect(r.stdout).toMatch(/, 0 to create\/replace\/delete\./);
  const adopted = adoptedUrns(COMPUTE);
  expect([...adopted].some((u) => u.endsWith("::nvcf-nvca-operator"))).toBe(true);
  const steps = previewSteps(COMPUTE);
  expect(steps.filter((s) => adopted.has(s.urn) && !["same", "update"].includes(s.op))).toEqual([]);
  pulumi(COMPUTE, "up", "--yes", "--skip-preview");
  const after = revisions("gpu-a");
  for (const [k, v] of Object.entries(before.gpuRevisions)) expect([k, after[k] - v <= 1]).toEqual([k, true]);
  const out = JSON.parse(pulumi(COMPUTE, "stack", "output", "--json").stdout);
  expect([out.clusterID, out.clusterGroupID]).toEqual([
    registration["clusterID"],
    registration["clusterGroupID"],
  ]);
}, 600000);

test("no secret of the installation appears in anything printed", () => {
  const all = transcript.filter((t) => !t.startsWith("$ kubectl") && !t.startsWith("$ helm")).join("\n");
  for (const s of SECRETS) expect(all).not.toContain(s);
});
