/**
 * End to end: the stand-ins of the embedded default behave as the real charts and tools do, on the local cluster
 * nvcf-dev (scripts/cluster.sh up), with the Helm CLI (`NVCF_HELM`) and kubectl only; the program is not involved.
 *
 * 1. Cassandra, chart 0.17.0 (Bitnami lineage, bundle 0.7.0), installed as release `cassandra` in
 *    cassandra-system: `kubectl exec` runs the in-pod tools (tests/bin/inpod) in its pods, which answer from the
 *    data on the pods' volumes: `nodetool status` lists the three nodes Up/Normal, `cqlsh` shows the tables and
 *    rows the migrations hook left in schema_migrations (and refuses a wrong password), `nodetool snapshot` writes
 *    the snapshot into the volume's host directory.
 * 2. A naive `helm upgrade` of that release to chart 0.20.1 (NVIDIA's own lineage, bundle 0.8.0) fails as on a
 *    real cluster: the API server forbids the StatefulSet update (the claim template's labels differ), the release
 *    is left failed, the Bitnami StatefulSet, the claim and its data stay.
 * 3. OpenBao (helm-nvcf-openbao-server): the servers label their pods as OpenBao's Kubernetes service
 *    registration does (one active, the others standby, unsealed), `bao status` in each pod says the same, and
 *    when the active server's pod is deleted a standby takes over.
 * 4. nvcf-api's account-bootstrap hook as NVIDIA's chart renders it (tests/charts/_fixtures/nvcf-api-account-hook: the
 *    Job's and Secret's names, labels, hook annotations, envFrom, no scheduling gate): the cluster holds the hook's
 *    pod until tests/bin/account-bootstrap created the account in the stand-in NVCF API, then Helm goes on; the
 *    program's account-settings scripts (components/accounts.ts `accountScripts`) change its limits and credential through
 *    nvcf-cli; a payload the API refuses leaves the pod running and Helm's wait times out.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { accountScripts } from "../../components/accounts";
import { CLI_CONFIG_YAML, api } from "../unit/standins/nvcfApiStandIn";
import { LOCAL_API_DIR, LOCAL_KUBECONFIG, ROOT, resetLocalClusters } from "./project";

jest.setTimeout(600_000);

const CTX = "kwok-nvcf-dev";
const CHARTS = path.join(ROOT, "tests/charts");
const env = { ...process.env, KUBECONFIG: LOCAL_KUBECONFIG };
const helmBin = process.env["NVCF_HELM"] ?? "";

interface Out {
  status: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], allowFail = false): Out {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  const out = { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
  if (!allowFail && out.status !== 0)
    throw new Error(
      `${cmd} ${args.join(" ")} exited ${out.status}\n${out.stdout.slice(-3000)}\n${out.stderr.slice(-3000)}`,
    );
  return out;
}
const kubectl = (...args: string[]) => run("kubectl", ["--context", CTX, ...args]).stdout;
const helm = (args: string[], allowFail = false) => run(helmBin, ["--kube-context", CTX, ...args], allowFail);
/** `kubectl exec` into a pod's container; whatever it exited with. */
const exec = (ns: string, pod: string, container: string, ...cmd: string[]) =>
  run("kubectl", ["--context", CTX, "-n", ns, "exec", pod, "-c", container, "--", ...cmd], true);

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
/** Calls `probe` every second until it returns a value (not undefined); throws `what` after `seconds`. */
function until<T>(what: string, seconds: number, probe: () => T | undefined): T {
  for (let i = 0; i < seconds; i++) {
    const v = probe();
    if (v !== undefined) return v;
    sleep(1000);
  }
  throw new Error(`timed out after ${seconds} s waiting for ${what}`);
}

/** The host directory of a claim's volume (the local StorageClass: host path under /tmp/hostpath_pv). */
function claimDir(ns: string, claim: string): string {
  const pv = kubectl("-n", ns, "get", "pvc", claim, "-o", "jsonpath={.spec.volumeName}");
  return kubectl("get", "pv", pv, "-o", "jsonpath={.spec.hostPath.path}");
}

/** Creates the namespaces with the program's label, so a later suite's reset removes them if this one fails. */
function namespace(ns: string) {
  kubectl("create", "namespace", ns);
  kubectl("label", "namespace", ns, "app.kubernetes.io/part-of=nvcf");
}

/**
 * A stand-in chart with its ci/full-values.yaml, as `helm <verb> <release>` arguments; `clear` names the values set
 * to null (the node selectors: the kwok nodes carry no workload labels).
 */
const chartArgs = (verb: string, release: string, dir: string, ns: string, clear: string[]) => [
  verb,
  release,
  path.join(CHARTS, dir),
  "-n",
  ns,
  "-f",
  path.join(CHARTS, dir, "ci/full-values.yaml"),
  ...clear.flatMap((k) => ["--set", `${k}=null`]),
  "--timeout",
  "5m",
];

beforeAll(() => {
  if (!helmBin)
    throw new Error(
      "NVCF_HELM is not set: run NVCF_HELM=$(bash scripts/helm.sh) first (scripts/test.sh does)",
    );
  resetLocalClusters(["dev"]);
  for (const ns of ["cassandra-system", "vault-system"])
    run("kubectl", ["--context", CTX, "delete", "namespace", ns, "--ignore-not-found", "--wait=true"]);
  namespace("cassandra-system");
  namespace("vault-system");
});

afterAll(() => {
  for (const [rel, ns] of [
    ["cassandra", "cassandra-system"],
    ["openbao-server", "vault-system"],
  ])
    helm(["uninstall", rel, "-n", ns, "--wait"], true);
  run(
    "kubectl",
    ["--context", CTX, "delete", "namespace", "cassandra-system", "vault-system", "--wait=true"],
    true,
  );
});

describe("Cassandra chart 0.17.0 (Bitnami lineage) as release cassandra", () => {
  const NS = "cassandra-system";
  const cqlsh = (password: string, cql: string) =>
    exec(NS, "cassandra-0", "cassandra", "cqlsh", "-u", "cassandra", "-p", password, "-e", cql);
  const TABLES = "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'schema_migrations'";
  let dataDir = "";
  let claimUid = "";

  test("kubectl exec runs nodetool and cqlsh against the data on the pods' volumes", () => {
    helm([
      ...chartArgs("install", "cassandra", "helm-nvcf-cassandra-0.17.0", NS, ["cassandra.nodeSelector"]),
      "--wait",
    ]);
    // The superuser password the release set (the chart's dbUser.password; ci values keep the default).
    const password = String(
      (
        yaml.load(fs.readFileSync(path.join(CHARTS, "helm-nvcf-cassandra-0.17.0/values.yaml"), "utf8")) as {
          cassandra: { dbUser: { password: string } };
        }
      ).cassandra.dbUser.password,
    );
    // The hooks ran (kwok completes Job pods); their data reaches the volumes on the in-pod agent's next pass.
    const tables = until("the migrations hook's tables in schema_migrations", 90, () => {
      const r = cqlsh(password, TABLES);
      return r.status === 0 && r.stdout.includes("(4 rows)") ? r.stdout : undefined;
    });
    expect(tables).toBe(
      "\n table_name\n--------------\n api_keys_api\n      ess_api\n     nvcf_api\n      sis_api\n\n(4 rows)\n",
    );
    expect(cqlsh(password, "SELECT version, dirty FROM schema_migrations.nvcf_api").stdout).toBe(
      "\n version | dirty\n---------+-------\n       7 | False\n\n(1 rows)\n",
    );
    const wrong = cqlsh("not-the-password", TABLES);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toContain("Provided username cassandra and/or password are incorrect");

    const status = exec(NS, "cassandra-1", "cassandra", "nodetool", "status");
    expect(status.status).toBe(0);
    const lines = status.stdout.split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "Datacenter: ncp",
      "===============",
      "Status=Up/Down",
      "|/ State=Normal/Leaving/Joining/Moving",
    ]);
    expect(lines[4]).toMatch(/^--\s+Address\s+Load\s+Tokens\s+Owns \(effective\)\s+Host ID\s+Rack$/);
    const nodes = lines.filter((l) => /^[UD][NLJM] /.test(l));
    expect(nodes).toHaveLength(3);
    for (const n of nodes)
      expect(n).toMatch(/^UN {2}\S+\s+\d+(\.\d+)? \S+\s+8\s+100\.0%\s+[0-9a-f-]{36} {2}rack1$/);

    expect(exec(NS, "cassandra-0", "cassandra", "nodetool", "flush")).toMatchObject({
      status: 0,
      stdout: "",
    });
    expect(exec(NS, "cassandra-0", "cassandra", "nodetool", "snapshot", "-t", "pre-upgrade").stdout).toBe(
      "Requested creating snapshot(s) for [all keyspaces] with snapshot name [pre-upgrade] and options {skipFlush=false}\n" +
        "Snapshot directory: pre-upgrade\n",
    );
    // Bitnami's image keeps its data under <mount>/data/data: on the host, <claim's directory>/data/data.
    dataDir = path.join(claimDir(NS, "data-cassandra-0"), "data/data");
    const table = fs
      .readdirSync(path.join(dataDir, "schema_migrations"))
      .find((d) => d.startsWith("nvcf_api-"));
    expect(table).toMatch(/^nvcf_api-[0-9a-f]{32}$/);
    const snap = path.join(dataDir, "schema_migrations", table!, "snapshots/pre-upgrade");
    expect(fs.readdirSync(snap).sort()).toEqual(expect.arrayContaining(["manifest.json", "schema.cql"]));
    // A marker written by the test into the volume, as an upgrade test does.
    fs.writeFileSync(path.join(dataDir, "standins-e2e-marker"), "kept\n");
    claimUid = kubectl("-n", NS, "get", "pvc", "data-cassandra-0", "-o", "jsonpath={.metadata.uid}");
  });

  test("a naive helm upgrade to chart 0.20.1 fails as on a real cluster, and the data stays", () => {
    const r = helm(
      chartArgs("upgrade", "cassandra", "helm-nvcf-cassandra", NS, ["cassandra.nodeSelector"]),
      true,
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /UPGRADE FAILED: cannot patch "cassandra" with kind StatefulSet: StatefulSet\.apps "cassandra" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', .* are forbidden/,
    );
    const history = JSON.parse(helm(["history", "cassandra", "-n", NS, "-o", "json"]).stdout) as {
      status: string;
      chart: string;
    }[];
    expect(history.map((h) => `${h.chart} ${h.status}`)).toEqual([
      "helm-nvcf-cassandra-0.17.0 deployed",
      "helm-nvcf-cassandra-0.20.1 failed",
    ]);
    // The Bitnami StatefulSet is still there, with its claim template's labels; claim and data untouched.
    expect(
      JSON.parse(
        kubectl(
          "-n",
          NS,
          "get",
          "statefulset",
          "cassandra",
          "-o",
          "jsonpath={.spec.volumeClaimTemplates[0].metadata.labels}",
        ),
      ),
    ).toEqual({ "app.kubernetes.io/instance": "cassandra", "app.kubernetes.io/name": "cassandra" });
    expect(kubectl("-n", NS, "get", "pvc", "data-cassandra-0", "-o", "jsonpath={.metadata.uid}")).toBe(
      claimUid,
    );
    expect(fs.readFileSync(path.join(dataDir, "standins-e2e-marker"), "utf8")).toBe("kept\n");
  });
});

describe("OpenBao (helm-nvcf-openbao-server) as release openbao-server", () => {
  const NS = "vault-system";
  const status = (pod: string) =>
    exec(NS, pod, "openbao", "sh", "-c", "BAO_ADDR=http://127.0.0.1:8200 bao status");
  /** The server pods' names by their openbao-active / openbao-sealed labels, once every pod is labelled. */
  const roles = () => {
    const items = (
      JSON.parse(
        kubectl(
          "-n",
          NS,
          "get",
          "pods",
          "-l",
          "app.kubernetes.io/name=openbao,component=server",
          "-o",
          "json",
        ),
      ) as {
        items: { metadata: { name: string; labels: Record<string, string> } }[];
      }
    ).items;
    if (items.length !== 3 || items.some((p) => p.metadata.labels["openbao-sealed"] !== "false"))
      return undefined;
    const active = items
      .filter((p) => p.metadata.labels["openbao-active"] === "true")
      .map((p) => p.metadata.name);
    return active.length === 1
      ? { active: active[0], all: items.map((p) => p.metadata.name).sort() }
      : undefined;
  };

  test("one active server, the others standby; a standby takes over when the active pod is deleted", () => {
    helm([
      ...chartArgs("install", "openbao-server", "helm-nvcf-openbao-server", NS, [
        "openbao.server.nodeSelector",
        "openbao.injector.nodeSelector",
      ]),
      "--wait",
    ]);
    const first = until("three unsealed servers, one active", 60, roles);
    expect(first.all).toEqual(["openbao-server-0", "openbao-server-1", "openbao-server-2"]);
    for (const pod of first.all) {
      const r = status(pod);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(
        /^Key +Value\n--- +-----\nSeal Type +shamir\nInitialized +true\nSealed +false\n/,
      );
      // OpenBao's table: every value starts in the same column, four spaces after the widest key.
      const starts = r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => /^\S+(?: \S+)* {4,}/.exec(l)?.[0].length);
      expect(new Set(starts).size).toBe(1);
      if (pod === first.active) expect(r.stdout).toMatch(/\nHA Mode +active\nActive Since +\S+\n/);
      else expect(r.stdout).toMatch(/\nHA Mode +standby\nActive Node Address +http:\/\/\S+:8200\n/);
    }
    kubectl("-n", NS, "delete", "pod", first.active, "--wait=true");
    const next = until("a standby to take over", 60, () => {
      const r = roles();
      return r && r.active !== first.active ? r : undefined;
    });
    expect(status(next.active).stdout).toMatch(/\nHA Mode +active\n/);
    // The deleted server came back (same name, OnDelete StatefulSet) as a standby, unsealed.
    expect(status(first.active)).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/\nHA Mode +standby\n/),
    });
  });
});

describe("nvcf-api's account-bootstrap hook as NVIDIA's chart renders it (fixture chart, no stand-in gate)", () => {
  const NS = "nvcf-hook";
  const FIXTURE = path.join(CHARTS, "_fixtures/nvcf-api-account-hook");
  const JOB = "nvcf-api-account-bootstrap";
  const KEY = "hook-fixture-registry-key";
  const NEW_KEY = "hook-fixture-rotated-key";
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  /** The stand-in NVCF API of nvcf-dev (tests/bin/nvcf-api.js), where the hook's player and nvcf-cli write. */
  const store = () => api.read(LOCAL_API_DIR);
  const account = () => store().accounts.find((a) => a.ncaId === "nvcf-default");
  const credentialValues = (key: string) => [
    "--set-json",
    `account.registryCredentials=${JSON.stringify([
      {
        registryHostname: "registry.nvcf.test",
        secret: { name: "nvcr-containers", value: b64(`robot:${key}`) },
        artifactTypes: ["CONTAINER"],
        tags: [],
        description: "",
      },
    ])}`,
  ];
  /** The hook Job's pods: phase, and the annotation the player leaves once it has done the script's work. */
  const hookPods = () =>
    (
      JSON.parse(kubectl("-n", NS, "get", "pods", "-l", `job-name=${JOB}`, "-o", "json")) as {
        items: {
          metadata: { annotations?: Record<string, string> };
          spec: { schedulingGates?: unknown[] };
          status: { phase: string };
        }[];
      }
    ).items;

  /** The program's account-settings apply script (components/accounts.ts) as the command provider runs it. */
  function accountScript(kind: "limits" | "credential", extra: Record<string, string>) {
    return spawnSync("/bin/bash", ["-c", 'eval "$NVCFP_APPLY_SCRIPT"'], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        NVCF_CLI_API_DIR: LOCAL_API_DIR,
        ...accountScripts(kind),
        NVCFP_CLI: path.join(ROOT, "tests/bin/nvcf-cli"),
        NVCFP_CLI_CONFIG_YAML: CLI_CONFIG_YAML,
        NVCFP_ICMS_URL: "http://127.0.0.1",
        NVCFP_ACCOUNT: "nvcf-default",
        ...extra,
      },
    });
  }

  beforeAll(() => {
    run("kubectl", ["--context", CTX, "delete", "namespace", NS, "--ignore-not-found", "--wait=true"]);
    namespace(NS);
  });
  afterAll(() => {
    helm(["uninstall", "api", "-n", NS, "--wait"], true);
    run("kubectl", ["--context", CTX, "delete", "namespace", NS, "--wait=true"], true);
  });

  test("the cluster holds the hook's pod until the player created the account; then Helm goes on", () => {
    helm(["install", "api", FIXTURE, "-n", NS, ...credentialValues(KEY), "--wait", "--timeout", "2m"]);
    // The Job succeeded through the played pod: the one pod, no gate, annotated by the player, completed.
    expect(kubectl("-n", NS, "get", "job", JOB, "-o", "jsonpath={.status.succeeded}")).toBe("1");
    const pods = hookPods();
    expect(pods).toHaveLength(1);
    expect(pods[0].spec.schedulingGates).toBeUndefined();
    expect(pods[0].metadata.annotations?.["nvcf.stand-in/played"]).toBe("account-bootstrap");
    expect(pods[0].status.phase).toBe("Succeeded");
    // The account as the hook's Secret has it, in the database of this installation (the namespace's UID).
    const s = store();
    expect(s.database).toBe(kubectl("get", "namespace", NS, "-o", "jsonpath={.metadata.uid}"));
    expect(s.events.map((e) => [e.by, e.op, e.status])).toEqual([
      ["account-bootstrap", "create-account", 200],
    ]);
    expect(account()).toMatchObject({ ncaId: "nvcf-default", maxFunctionsAllowed: 5 });
    expect(account()!.registryCredentials).toEqual([
      expect.objectContaining({
        registryHostname: "registry.nvcf.test",
        provisionedBy: "SYSTEM",
        secretSha256: api.sha256(b64(`robot:${KEY}`)),
      }),
    ]);
  });

  test("the program's account settings apply to that account through nvcf-cli", () => {
    const limits = accountScript("limits", {
      NVCFP_MAX_FUNCTIONS: "7",
      NVCFP_MAX_TASKS: "2",
      NVCFP_MAX_TELEMETRIES: "2",
      NVCFP_MAX_REGISTRY_CREDS: "6",
    });
    expect([limits.status, limits.stderr]).toEqual([0, expect.any(String)]);
    const cred = accountScript("credential", {
      NVCFP_REGISTRY_HOST: "registry.nvcf.test",
      NVCFP_SECRET_NAME: "nvcr-containers",
      NVCFP_ARTIFACT_TYPES: "CONTAINER",
      NVCFP_REGISTRY_USER: "robot",
      NVCFP_REGISTRY_PASSWORD: NEW_KEY,
      NVCFP_DESCRIPTION: "",
      NVCFP_TAGS: "[]",
    });
    expect([cred.status, cred.stderr]).toEqual([0, expect.any(String)]);
    expect(account()).toMatchObject({
      maxFunctionsAllowed: 7,
      maxTasksAllowed: 2,
      maxTelemetriesAllowed: 2,
      maxRegistryCredentialsAllowed: 6,
    });
    expect(account()!.registryCredentials).toEqual([
      expect.objectContaining({ provisionedBy: "SYSTEM", secretSha256: api.sha256(b64(`robot:${NEW_KEY}`)) }),
    ]);
    expect(store().events.map((e) => [e.by, e.op, e.status])).toEqual(
      expect.arrayContaining([
        ["nvcf-cli", "update-account", 200],
        ["nvcf-cli", "update-credential", 200],
      ]),
    );
  });

  test("a bootstrap the API refuses leaves the hook's pod running: Helm times out, as with the real Job", () => {
    const r = helm(
      ["upgrade", "api", FIXTURE, "-n", NS, "--set", "account.name=-refused", "--wait", "--timeout", "20s"],
      true,
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/post-upgrade hooks failed.*timed out waiting for the condition/s);
    const pods = hookPods();
    expect(pods).toHaveLength(1);
    expect(pods[0].status.phase).toBe("Running");
    expect(pods[0].metadata.annotations?.["nvcf.stand-in/played"]).toBeUndefined();
    expect(kubectl("-n", NS, "get", "job", JOB, "-o", "jsonpath={.status.succeeded}")).toBe("");
    expect(
      store()
        .events.filter((e) => e.by === "account-bootstrap")
        .map((e) => e.status),
    ).toContain(400);
  });
});
