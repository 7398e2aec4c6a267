/**
 * End to end, bundle upgrades through the README's command (`nvcf upgrade --env dev --to <bundle>`, the real
 * `pulumi` CLI under it) on the local kwok clusters, with the stand-in charts of every bundle and their in-pod tools
 * (`kubectl exec … nodetool|cqlsh`, OpenBao's service-registration labels; tests/charts/README.md), in private
 * copies of the project with fresh state backends.
 *
 * Order (lean: one install per bundle):
 * 1. 0.6.1: the dev control plane alone, installed with `pulumi up`; moving it to 0.8.0 (a skipped bundle) and to
 *    0.7.0 (Cassandra back to the Bitnami chart) is refused before anything is touched, naming the reason and the
 *    way (the manual path for 0.7.0), by `nvcf upgrade` and by the program under `pulumi up`; then destroyed.
 * 2. 0.7.0: dev, dev-gpu-a and dev-gpu-b (every add-on 0.7.0 ships) installed with `nvcf up`; marker files written
 *    into every claim's directory (the local StorageClass's host paths) and a table with rows on every Cassandra
 *    node; a downgrade to 0.6.1 refused before anything is touched.
 * 3. Rehearsals of the upgrade (`nvcf rehearse --to 0.8.0`, docs/rehearsals.md) on replicas of the three clusters: one
 *    that passes, reading the live clusters through a ServiceAccount bound to get, list and watch only (the
 *    clusters' audit log shows that identity asked nothing else; objects, releases, stack files and state unchanged);
 *    one that an admission policy of the live cluster refuses; one interrupted with SIGINT, leaving nothing behind.
 * 4. The upgrade to 0.8.0 (KAI and topology-aware scheduling joining gpu-b with the bundle change, `--set`),
 *    interrupted with SIGINT to the command's process group once the Cassandra phase has started (its record
 *    ConfigMap exists); then `nvcf up --env dev` resumes and converges (control plane first). Before it, the
 *    state a pull request moving the three stack files meets (the files at 0.8.0, every stack at 0.7.0):
 *    `nvcf preview` and the pull-request workflow's preview step (scripts/preview-environment.sh) pass with every
 *    stack's plan, the GPU stacks previewed against the control plane's target; a GPU stack's update is still
 *    refused before its control plane is there, and a GPU stack moved alone fails its preview.
 * 5. Then: every release at its 0.8.0 chart version, only the releases whose chart or values changed upgraded (Helm
 *    revisions), every marker and row still there, every claim with its UID, the GPU clusters' registration IDs
 *    unchanged and their NVCFBackends healthy, `nvcf status` exit 0, `bundleVersion` 0.8.0 on every stack, and a
 *    second `nvcf preview --expect-no-changes` exit 0. No secret in anything printed.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { EXIT } from "../../cli/types";
import { readHelmRelease } from "../../kube/helmRecords";
import { type E2eProject, e2eProject, extendedTest, resetLocalClusters } from "./project";

/** The dev stacks' registry key in plain text (the ciphertext in Pulumi.dev.yaml, dev passphrase). */
const REGISTRY_KEY = "local-registry-key-for-stand-in-registry";
const CLUSTERS = ["dev", "gpu-a", "gpu-b"];
const TARGET_SETS = [
  "--set",
  "dev-gpu-b:addons.kaiScheduler.enabled=true",
  "--set",
  "dev-gpu-b:addons.topologyAwareScheduling.enabled=true",
];

const lines = (text: string) => text.split("\n").filter((l) => l.length > 0);
/** Every command both parts ran and what it printed (NVCF_E2E_TRANSCRIPT keeps them, for docs/upgrading.md). */
const transcript: string[] = [];
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `npx nvcf <args>` in a project copy (stdin closed: not a terminal). */
function nvcf(p: E2eProject, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = p.run("npx", ["nvcf", ...args], { allowFail: true });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/* eslint-disable @typescript-eslint/no-explicit-any */
/** Each Helm release's latest record on a cluster: `ns/name` → revision, status, chart version, values given. */
function releases(
  p: E2eProject,
  cluster: string,
): Record<string, { rev: number; status: string; chart: string; config: string }> {
  const items = JSON.parse(p.kubectl(cluster, "get", "secrets", "-A", "-l", "owner=helm", "-o", "json"))
    .items as any[];
  const out: Record<string, { rev: number; status: string; chart: string; config: string }> = {};
  for (const s of items) {
    const k = `${s.metadata.namespace}/${s.metadata.labels.name}`;
    const rev = Number(s.metadata.labels.version);
    if ((out[k]?.rev ?? 0) > rev) continue;
    const rel = readHelmRelease(s.data?.release);
    out[k] = {
      rev,
      status: s.metadata.labels.status,
      chart: `${rel?.chart?.metadata?.name}@${rel?.chart?.metadata?.version}`,
      config: JSON.stringify(rel?.config ?? {}),
    };
  }
  return out;
}

/** Every claim of a cluster: `ns/name` → UID and its volume's directory on this host (the local StorageClass). */
function claims(p: E2eProject, cluster: string): Record<string, { uid: string; dir: string }> {
  const pvcs = JSON.parse(p.kubectl(cluster, "get", "pvc", "-A", "-o", "json")).items as any[];
  const pvs = JSON.parse(p.kubectl(cluster, "get", "pv", "-o", "json")).items as any[];
  const dirOf = (volume: string) => pvs.find((v) => v.metadata.name === volume)?.spec?.hostPath?.path ?? "";
  return Object.fromEntries(
    pvcs.map((c) => [
      `${c.metadata.namespace}/${c.metadata.name}`,
      { uid: c.metadata.uid as string, dir: dirOf(c.spec.volumeName) },
    ]),
  );
}

/** Stack outputs of a stack (plain ones). */
function outputs(p: E2eProject, stack: string): Record<string, unknown> {
  return JSON.parse(p.pulumi(stack, ["stack", "output", "--json"]).stdout) as Record<string, unknown>;
}

const MARKER_TABLE = "upgrade_marker-0123456789abcdef0123456789abcdef";
/**
 * A table of nvcf_api with three rows on a Cassandra node's volume, in the stand-in's SSTable form and with a UUID
 * generation as Bitnami's Cassandra names its files (tests/charts/README.md "In-pod tools"): Apache Cassandra reads
 * it only with `uuid_sstable_identifiers_enabled: true`.
 */
function writeMarkerTable(dir: string): void {
  const t = path.join(dir, "data", "data", "nvcf_api", MARKER_TABLE);
  fs.mkdirSync(t, { recursive: true });
  fs.writeFileSync(
    path.join(t, "oa-mxc4_v9r0_2a7kq0upgrade0marker-big-Data.db"),
    JSON.stringify({
      keyspace: "nvcf_api",
      table: "upgrade_marker",
      columns: ["id", "note"],
      types: { id: "int", note: "text" },
      key: ["id"],
      rows: [
        { id: 1, note: "written at 0.7.0" },
        { id: 2, note: "on every node" },
        { id: 3, note: "read after the upgrade" },
      ],
    }),
  );
}

/** kubectl on one namespace of the dev cluster, never failing: exit code and both streams. */
function devKubectl(p: E2eProject, namespace: string, args: string[], input = "") {
  return spawnSync("kubectl", ["--context", "kwok-nvcf-dev", "-n", namespace, ...args], {
    env: p.env,
    encoding: "utf8",
    input,
  });
}

/** `devKubectl` on the cassandra-system namespace. */
function devCassandra(p: E2eProject, args: string[], input = "") {
  return devKubectl(p, "cassandra-system", args, input);
}

/** Rows of nvcf_api.upgrade_marker as cassandra-0's cqlsh counts them (the login from a private credentials file). */
function markerRows(p: E2eProject): string {
  const r = devCassandra(
    p,
    [
      "exec",
      "-i",
      "cassandra-0",
      "-c",
      "cassandra",
      "--",
      "sh",
      "-c",
      'umask 077; f=$(mktemp); IFS= read -r p; printf "[PlainTextAuthProvider]\\nusername = cassandra\\npassword = %s\\n" "$p" >"$f"; cqlsh --credentials "$f" -e "SELECT COUNT(*) FROM nvcf_api.upgrade_marker"; rc=$?; rm -f "$f"; exit $rc',
    ],
    "cassandra\n",
  );
  return `${r.stdout}${r.stderr}`;
}

/** Every cluster's Helm releases (`releases` of each of CLUSTERS), by cluster. */
function allReleases(p: E2eProject): Record<string, ReturnType<typeof releases>> {
  return Object.fromEntries(CLUSTERS.map((c) => [c, releases(p, c)]));
}

describe("0.6.1: installed by nvcf up, then refusals before anything is touched", () => {
  let p: E2eProject;
  beforeAll(() => {
    resetLocalClusters(CLUSTERS);
    p = e2eProject("nvcf-e2e-upgrade-061");
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"]) {
      p.run("pulumi", ["stack", "init", s, "--non-interactive"]);
      p.pulumi(s, ["config", "set", "nvcf:bundleVersion", "0.6.1"]);
    }
    // Bundle 0.6.1 ships none of gpu-b's add-ons (KAI, Grove, Dynamo, topology-aware scheduling).
    for (const a of ["kaiScheduler", "groveOperator", "dynamoOperator", "topologyAwareScheduling"])
      p.pulumi("dev-gpu-b", ["config", "set", "--path", `nvcf:addons.${a}.enabled`, "false"]);
    // The whole environment through the command, as the later bundles are installed.
    const up = nvcf(p, "up", "--env", "dev", "--yes", "--plain");
    if (up.code !== 0) throw new Error(`nvcf up exited ${up.code}\n${up.out}\n${up.err}`);
    expect(up.out).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed/m);
  }, 900_000);

  afterAll(() => {
    for (const s of ["dev-gpu-a", "dev-gpu-b", "dev"])
      p.pulumi(s, ["destroy", "--yes", "--skip-preview"], { allowFail: true });
    transcript.push(...p.transcript);
    p.remove();
  }, 900_000);

  test("a skipped bundle (0.6.1 → 0.8.0): refused, naming the next bundle and its manual path; nothing touched", () => {
    const before = allReleases(p);
    const file = fs.readFileSync(path.join(p.work, "Pulumi.dev.yaml"), "utf8");
    const r = nvcf(p, "upgrade", "--env", "dev", "--to", "0.8.0", "--yes", "--plain");
    expect(r.code).toBe(EXIT.config);
    expect(lines(r.err)[0]).toBe('stack "dev" has 1 config problem; nothing was changed:');
    expect(r.err).toMatch(
      /- nvcf:bundleVersion: expected 0\.7\.0, the next bundle after 0\.6\.1 .* found "0\.8\.0", which skips 0\.7\.0\. Fix: pulumi config set nvcf:bundleVersion 0\.7\.0 and pulumi up, then 0\.8\.0; the step to 0\.7\.0 moves Cassandra back to the Bitnami chart, which this program does not automate: back up and restore/,
    );
    expect(lines(r.err).pop()).toMatch(/^nvcf upgrade: refused; nothing was changed\./);
    expect(fs.readFileSync(path.join(p.work, "Pulumi.dev.yaml"), "utf8")).toBe(file);
    expect(allReleases(p)).toEqual(before);
  }, 300_000);

  test("0.6.1 → 0.7.0 with Cassandra deployed: refused with the reason and the manual path (backup and restore)", () => {
    const before = allReleases(p);
    const r = nvcf(p, "upgrade", "--env", "dev", "--to", "0.7.0", "--yes", "--plain");
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(
      /- nvcf:bundleVersion: expected a move this program can make safely: 0\.6\.1 → 0\.7\.0 changes Cassandra from NVIDIA's own chart \(helm-nvcf-cassandra 0\.18\.0, Apache Cassandra, data at the volume root\) back to the Bitnami wrapper \(0\.17\.0, an older Cassandra that reads its data one directory deeper\), a change of chart lineage and on-disk layout NVIDIA documents no procedure for, found "0\.7\.0" with Cassandra deployed at 0\.6\.1 \(stack dev\)\. Fix: back up and restore \(docs\/upgrading\.md "0\.6\.1 to 0\.7\.0"\)/,
    );
    expect(allReleases(p)).toEqual(before);
  }, 300_000);

  test("the program itself refuses it under a plain pulumi up, before any release is touched", () => {
    const before = allReleases(p);
    p.pulumi("dev", ["config", "set", "nvcf:bundleVersion", "0.7.0"]);
    const r = p.pulumi("dev", ["up", "--yes", "--skip-preview"], { allowFail: true });
    p.pulumi("dev", ["config", "set", "nvcf:bundleVersion", "0.6.1"]);
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toMatch(
      /stack "dev" has 1 config problem; nothing was changed:\n\s+- nvcf:bundleVersion: expected a move this program can make safely: 0\.6\.1 → 0\.7\.0/,
    );
    expect(allReleases(p)).toEqual(before);
    expect(outputs(p, "dev")["bundleVersion"]).toBe("0.6.1");
  }, 300_000);
});

describe("0.7.0 → 0.8.0 with nvcf upgrade, interrupted in the Cassandra phase", () => {
  let p: E2eProject;
  const before: Record<string, ReturnType<typeof releases>> = {};
  const claimsBefore: Record<string, ReturnType<typeof claims>> = {};
  let registrations: unknown;
  const identity: Record<string, string> = {};
  const marker = (cluster: string, claim: string) => `nvcf-upgrade-marker ${cluster}/${claim}\n`;

  beforeAll(() => {
    resetLocalClusters(CLUSTERS);
    p = e2eProject("nvcf-e2e-upgrade");
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"]) {
      p.run("pulumi", ["stack", "init", s, "--non-interactive"]);
      p.pulumi(s, ["config", "set", "nvcf:bundleVersion", "0.7.0"]);
    }
    // gpu-b: every add-on 0.7.0 ships (Grove, Dynamo); KAI and topology-aware scheduling join at 0.8.0.
    p.pulumi("dev-gpu-b", ["config", "set", "--path", "nvcf:addons.kaiScheduler.enabled", "false"]);
    p.pulumi("dev-gpu-b", [
      "config",
      "set",
      "--path",
      "nvcf:addons.topologyAwareScheduling.enabled",
      "false",
    ]);
    const up = nvcf(p, "up", "--env", "dev", "--yes", "--plain");
    if (up.code !== 0) throw new Error(`nvcf up exited ${up.code}\n${up.out}\n${up.err}`);
    for (const c of CLUSTERS) {
      before[c] = releases(p, c);
      claimsBefore[c] = claims(p, c);
      for (const [k, v] of Object.entries(claimsBefore[c])) {
        if (!v.dir) throw new Error(`claim ${c}/${k} has no host-path directory`);
        fs.writeFileSync(path.join(v.dir, "nvcf-upgrade-marker"), marker(c, k));
      }
    }
    for (let i = 0; i < 3; i++)
      writeMarkerTable(claimsBefore["dev"][`cassandra-system/data-cassandra-${i}`].dir);
    registrations = outputs(p, "dev")["clusterRegistrations"];
    for (const c of ["gpu-a", "gpu-b"]) identity[c] = ids(p, c);
  }, 1_200_000);

  /** The registration IDs the operator's cluster DTO carries (the rest of it changes with the chart). */
  function ids(p: E2eProject, cluster: string): string {
    const dto = p.kubectl(
      cluster,
      "get",
      "configmap",
      "nvcfbackend-self-managed",
      "-n",
      "nvca-operator",
      "-o",
      "jsonpath={.data.cluster-dto\\.yaml}",
    );
    return lines(dto)
      .filter((l) => /^(clusterId|clusterGroupId|ncaID):/.test(l))
      .join("\n");
  }

  afterAll(() => {
    const keep = process.env["NVCF_E2E_TRANSCRIPT"];
    if (keep) fs.writeFileSync(keep, [...transcript, ...p.transcript].join("\n"));
    for (const s of ["dev-gpu-a", "dev-gpu-b", "dev"])
      p.pulumi(s, ["destroy", "--yes", "--skip-preview"], { allowFail: true });
    p.remove();
  }, 1_200_000);

  test("what the upgrade starts from: every stateful release's claims hold the markers, Cassandra the rows", () => {
    expect(Object.keys(claimsBefore["dev"]).sort()).toEqual(
      expect.arrayContaining([
        "cassandra-system/data-cassandra-0",
        "cassandra-system/data-cassandra-1",
        "cassandra-system/data-cassandra-2",
        "vault-system/data-openbao-server-0",
      ]),
    );
    expect(Object.keys(claimsBefore["gpu-b"]).length).toBeGreaterThan(0); // Dynamo's NATS
    expect(markerRows(p)).toMatch(/^\s+count\n-+\n\s+3\n/m);
    expect(before["dev"]["cassandra-system/cassandra"].chart).toBe("helm-nvcf-cassandra@0.17.0");
    for (const c of ["gpu-a", "gpu-b"])
      expect(identity[c]).toMatch(/^clusterGroupId: \S+\nclusterId: \S+\nncaID: nvcf-default$/);
  });

  test("a downgrade (0.7.0 → 0.6.1) is refused before anything is touched", () => {
    const r = nvcf(p, "upgrade", "--env", "dev", "--to", "0.6.1", "--yes", "--plain");
    expect(r.code).toBe(EXIT.config);
    expect(r.err).toMatch(
      /- nvcf:bundleVersion: expected 0\.7\.0 or a later bundle: stack dev is deployed at NVCF bundle 0\.7\.0, and this program does not downgrade .* found "0\.6\.1"\. Fix: pulumi config set nvcf:bundleVersion 0\.7\.0\. To go back to 0\.6\.1, roll back each release with Helm or restore the backups/,
    );
    for (const c of CLUSTERS) expect([c, releases(p, c)]).toEqual([c, before[c]]);
    expect(fs.readFileSync(path.join(p.work, "Pulumi.dev.yaml"), "utf8")).toMatch(
      /nvcf:bundleVersion: "?0\.7\.0"?$/m,
    );
  }, 300_000);

  /**
   * A read-only identity on every local cluster (a ServiceAccount bound to get, list and watch on everything) and a
   * kubeconfig of it whose contexts carry the stacks' context names: what `nvcf rehearse --kubeconfig` reads the live
   * clusters through. The clusters' audit policy logs exactly the requests made with a service account's token
   * (scripts/cluster.sh audit_policy).
   */
  function readerKubeconfig(): string {
    const file = path.join(p.work, "reader.kubeconfig");
    const doc: any = { apiVersion: "v1", kind: "Config", clusters: [], users: [], contexts: [] };
    const rbac = path.join(p.work, "reader-rbac.json");
    const name = "nvcf-rehearsal-reader";
    fs.writeFileSync(
      rbac,
      JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [
          { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: "default" } },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRole",
            metadata: { name },
            rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["get", "list", "watch"] }],
          },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRoleBinding",
            metadata: { name },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
            subjects: [{ kind: "ServiceAccount", name, namespace: "default" }],
          },
        ],
      }),
    );
    for (const c of CLUSTERS) {
      p.kubectl(c, "apply", "-f", rbac);
      const token = p.kubectl(c, "create", "token", "nvcf-rehearsal-reader", "-n", "default").trim();
      const own = JSON.parse(
        p.kubectl(c, "config", "view", "--minify", "--flatten", "-o", "json", "--context", `kwok-nvcf-${c}`),
      );
      doc.clusters.push({ name: c, cluster: own.clusters[0].cluster });
      doc.users.push({ name: c, user: { token } });
      doc.contexts.push({ name: `kwok-nvcf-${c}`, context: { cluster: c, user: c } });
    }
    doc["current-context"] = "kwok-nvcf-dev";
    fs.writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
    return file;
  }

  /**
   * What is left in a TMPDIR a rehearsal ran with: everything but Node.js's own compile cache of the command's
   * process (v8-compile-cache-<uid>), which is not the rehearsal's.
   */
  const leftIn = (dir: string) => fs.readdirSync(dir).filter((e) => !/^v8-compile-cache-\d+$/.test(e));

  /** The audit log of a local cluster (scripts/cluster.sh audit_policy): one JSON event per line. */
  function auditEvents(cluster: string): any[] {
    const dir =
      process.env["NVCF_LOCAL_DIR"] ?? path.join(process.env["HOME"] ?? "", ".cache", "nvcf-pulumi");
    const file = path.join(dir, "kwok", "clusters", `nvcf-${cluster}`, "logs", "audit.log");
    return lines(fs.readFileSync(file, "utf8")).map((l) => JSON.parse(l));
  }

  /** What a write to a cluster would change: every object's resourceVersion in the namespaces the stacks use. */
  function fingerprint(cluster: string): Record<string, string> {
    const items = JSON.parse(
      p.kubectl(
        cluster,
        "get",
        "secrets,configmaps,statefulsets,deployments,persistentvolumeclaims",
        "-A",
        "-o",
        "json",
      ),
    ).items as any[];
    return Object.fromEntries(
      items.map((o) => [`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]),
    );
  }

  test("nvcf rehearse --to 0.8.0 passes on replicas, reading the live clusters with a read-only identity; nothing live is written", () => {
    const reader = readerKubeconfig();
    const auditFrom = Object.fromEntries(CLUSTERS.map((c) => [c, auditEvents(c).length]));
    const prints = Object.fromEntries(CLUSTERS.map((c) => [c, fingerprint(c)]));
    const files = ["dev", "dev-gpu-a", "dev-gpu-b"].map((s) =>
      fs.readFileSync(path.join(p.work, `Pulumi.${s}.yaml`), "utf8"),
    );
    const state = ["dev", "dev-gpu-a", "dev-gpu-b"].map((s) => p.pulumi(s, ["stack", "export"]).stdout);
    const tmp = fs.mkdtempSync(path.join(p.work, "tmp-"));
    const r = p.run(
      "npx",
      ["nvcf", "rehearse", "--env", "dev", "--to", "0.8.0", ...TARGET_SETS, "--kubeconfig", reader],
      { allowFail: true, env: { TMPDIR: tmp } },
    );
    const out = `${r.stdout}${r.stderr}`;
    transcript.push(
      `$ nvcf rehearse --env dev --to 0.8.0 ${TARGET_SETS.join(" ")} --kubeconfig reader.kubeconfig\n${out}`,
    );
    expect([r.status, out]).toEqual([
      0,
      expect.stringMatching(/^rehearsal passed in \d+ s: the live clusters were only read/m),
    ]);
    expect(out).toMatch(
      /^replica of kwok-nvcf-dev: made in [\d.]+ s; \d+ object\(s\) read with GET requests only/m,
    );
    // The upgrade's own lines, as the real run prints them, and the report.
    expect(out).toMatch(/^ {2}\| .*statefulset\/cassandra deleted with --cascade=orphan/m);
    // Nothing runs in a replica to verify: said once, with no empty summary after it.
    expect(out).toMatch(/^ {2}\| verification: not rehearsed \(no container runs in a replica/m);
    expect(out).not.toMatch(/^ {2}\| verification: \d+ checks/m);
    expect(out).toMatch(
      /^ {2}kwok-nvcf-dev: release cassandra-system\/cassandra: revision \d+ \(deployed\) -> \d+ \(deployed\)$/m,
    );
    expect(out).toMatch(
      /^ {2}kwok-nvcf-gpu-b: release kai-scheduler\/kai-scheduler: installed, revision 1 \(deployed\)$/m,
    );
    expect(out).toMatch(
      /^ {2}not rehearsed: in pod cassandra-0: nodetool status, the schema_migrations check and the row counts/m,
    );
    expect(out).toMatch(
      /^ {2}not rehearsed: in pod cassandra-2: nodetool flush, nodetool snapshot -t nvcf-adoption-/m,
    );
    // Nothing live written: the reader asked only get/list/watch (the audit log), every object kept its
    // resourceVersion, the stack files and the state are as they were, and no file or process is left.
    for (const c of CLUSTERS) {
      const events = auditEvents(c).slice(auditFrom[c]);
      const mine = events.filter(
        (e) => e.user?.username === "system:serviceaccount:default:nvcf-rehearsal-reader",
      );
      expect([c, mine.length > 0]).toEqual([c, true]);
      expect([c, [...new Set(mine.map((e) => e.verb))].sort()]).toEqual([
        c,
        expect.arrayContaining(["list"]),
      ]);
      expect([
        c,
        mine
          .filter((e) => !["get", "list", "watch"].includes(e.verb))
          .map((e) => `${e.verb} ${e.requestURI}`),
      ]).toEqual([c, []]);
      expect([c, releases(p, c)]).toEqual([c, before[c]]);
      expect([c, fingerprint(c)]).toEqual([c, prints[c]]);
    }
    expect(
      ["dev", "dev-gpu-a", "dev-gpu-b"].map((s) =>
        fs.readFileSync(path.join(p.work, `Pulumi.${s}.yaml`), "utf8"),
      ),
    ).toEqual(files);
    expect(["dev", "dev-gpu-a", "dev-gpu-b"].map((s) => p.pulumi(s, ["stack", "export"]).stdout)).toEqual(
      state,
    );
    expect(leftIn(tmp)).toEqual([]);
    expect(spawnSync("pgrep", ["-f", tmp], { encoding: "utf8" }).stdout).toBe("");
  }, 900_000);

  extendedTest(
    "a rehearsal of a change a cluster-side rule refuses reports the refusal and exits non-zero",
    () => {
      // An admission policy of the live cluster, copied into the replica: no StatefulSet of cassandra-system may change.
      const policy = {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
        metadata: { name: "e2e-frozen-cassandra" },
        spec: {
          failurePolicy: "Fail",
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: ["apps"],
                apiVersions: ["v1"],
                operations: ["UPDATE", "DELETE"],
                resources: ["statefulsets"],
              },
            ],
          },
          validations: [
            { expression: "false", message: "cassandra-system is frozen by e2e-frozen-cassandra" },
          ],
        },
      };
      const binding = {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: "e2e-frozen-cassandra" },
        spec: {
          policyName: "e2e-frozen-cassandra",
          validationActions: ["Deny"],
          matchResources: {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "cassandra-system" } },
          },
        },
      };
      const file = path.join(p.work, "frozen.json");
      fs.writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "List", items: [policy, binding] }));
      p.kubectl("dev", "apply", "-f", file);
      try {
        const r = nvcf(p, "rehearse", "--env", "dev", "--to", "0.8.0", ...TARGET_SETS);
        const out = `${r.out}${r.err}`;
        transcript.push(
          `$ nvcf rehearse --env dev --to 0.8.0 ${TARGET_SETS.join(" ")}   # admission policy\n${out}`,
        );
        expect(r.code).not.toBe(0);
        expect(out).toMatch(/cassandra-system is frozen by e2e-frozen-cassandra/);
        expect(r.err).toMatch(
          /^rehearsal failed in \d+ s \(the rehearsed nvcf upgrade --to 0\.8\.0 exited \d+\): the real run would stop the same way/m,
        );
        for (const c of CLUSTERS) expect([c, releases(p, c)]).toEqual([c, before[c]]);
      } finally {
        p.kubectl("dev", "delete", "-f", file);
      }
    },
    900_000,
  );

  extendedTest(
    "SIGINT during a rehearsal leaves no replica process and no file",
    async () => {
      const tmp = fs.mkdtempSync(path.join(p.work, "tmp-"));
      // The nvcf command's own node process (no npx in between), so SIGINT reaches it as Ctrl-C would.
      const child: ChildProcess = spawn(
        process.execPath,
        [path.join(p.work, "cli", "nvcf.js"), "rehearse", "--env", "dev", "--to", "0.8.0", ...TARGET_SETS],
        { cwd: p.work, env: { ...p.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout?.on("data", (b) => (out += b));
      child.stderr?.on("data", (b) => (out += b));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      // Interrupted while the rehearsed upgrade runs on the replicas (every replica made and seeded).
      const deadline = Date.now() + 300_000;
      while (
        !/^rehearsal: nvcf upgrade --to 0\.8\.0 against the replicas$/m.test(out) &&
        Date.now() < deadline
      )
        await sleep(250);
      await sleep(3000);
      const during = spawnSync("pgrep", ["-f", tmp], { encoding: "utf8" }).stdout;
      child.kill("SIGINT");
      const code = await exited;
      expect(during).not.toBe(""); // the replicas ran under the rehearsal's directory
      expect(out).toMatch(/^rehearsal interrupted \(SIGINT\): deleting the replicas and /m);
      expect(code).not.toBe(0);
      await sleep(1000);
      expect(spawnSync("pgrep", ["-af", tmp], { encoding: "utf8" }).stdout).toBe("");
      expect(leftIn(tmp)).toEqual([]);
      for (const c of CLUSTERS) expect([c, releases(p, c)]).toEqual([c, before[c]]);
    },
    600_000,
  );

  test("the pull request's view of the stack files at 0.8.0: nvcf preview and the pull-request step pass with every stack's plan", () => {
    // The state a pull request that moves all three stack files meets: the files name 0.8.0 (and the settings that
    // go with it), every stack still runs 0.7.0. Each GPU stack is previewed against its control plane's target,
    // and says so.
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"])
      p.pulumi(s, ["config", "set", "nvcf:bundleVersion", "0.8.0"]);
    for (const k of ["kaiScheduler", "topologyAwareScheduling"])
      p.pulumi("dev-gpu-b", ["config", "set", "--path", `nvcf:addons.${k}.enabled`, "true"]);
    const r = nvcf(p, "preview", "--env", "dev");
    if (r.code !== 0) throw new Error(`nvcf preview exited ${r.code}\n${r.out}\n${r.err}`);
    const out = lines(r.out);
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"])
      expect(out).toContainEqual(`upgrade plan of stack ${s}: NVCF bundle 0.7.0 → 0.8.0`);
    const note =
      "  note: previewed against the target of control-plane stack organization/nvcf/dev: its stack file moves it to bundle 0.8.0 " +
      "(it runs 0.7.0); pulumi up of this stack needs the control plane upgraded first (nvcf up --env dev runs them in order)";
    expect(out.filter((l) => l === note)).toHaveLength(2);
    const report = path.join(p.work, ".preview/report.md");
    const step = p.run("bash", ["scripts/preview-environment.sh", "dev", report], { allowFail: true });
    expect(step.status).toBe(0);
    const comment = fs.readFileSync(report, "utf8");
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"])
      expect(comment).toContain(`<summary><code>${s}</code>: passed</summary>`);
  }, 900_000);

  test("a GPU stack's update still needs its control plane there first, and a GPU stack moved alone fails its preview", () => {
    const gpuA = releases(p, "gpu-a");
    const upA = p.pulumi("dev-gpu-a", ["up", "--yes", "--skip-preview"], { allowFail: true });
    expect(upA.status).not.toBe(0);
    expect(`${upA.stdout}\n${upA.stderr}`).toMatch(
      /- nvcf:bundleVersion: expected "0\.7\.0", the NVCF bundle control-plane stack organization\/nvcf\/dev runs, found "0\.8\.0"\. Fix: pulumi config set nvcf:bundleVersion 0\.7\.0, or upgrade the control plane first/,
    );
    // A pull request that moves only the GPU stacks: the control plane's stack file still names 0.7.0.
    const file = path.join(p.work, "Pulumi.dev.yaml");
    const text = fs.readFileSync(file, "utf8");
    const moved = text.replace(
      /^(\s*nvcf:bundleVersion:\s*)"?0\.8\.0"?$/m,
      (_, key: string) => `${key}0.7.0`,
    );
    expect(moved).not.toBe(text);
    fs.writeFileSync(file, moved);
    try {
      const pv = p.pulumi("dev-gpu-a", ["preview"], { allowFail: true });
      expect(pv.status).not.toBe(0);
      expect(`${pv.stdout}\n${pv.stderr}`).toMatch(
        /- nvcf:bundleVersion: expected "0\.7\.0", the NVCF bundle control-plane stack/,
      );
    } finally {
      fs.writeFileSync(file, text);
    }
    expect(releases(p, "gpu-a")).toEqual(gpuA);
    // Back to the files the deployment has: `nvcf upgrade` moves them itself.
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"])
      p.pulumi(s, ["config", "set", "nvcf:bundleVersion", "0.7.0"]);
    for (const k of ["kaiScheduler", "topologyAwareScheduling"])
      p.pulumi("dev-gpu-b", ["config", "set", "--path", `nvcf:addons.${k}.enabled`, "false"]);
    for (const c of CLUSTERS) expect([c, releases(p, c)]).toEqual([c, before[c]]);
  }, 600_000);

  test("SIGINT during the Cassandra phase stops the upgrade; the outputs still name 0.7.0", async () => {
    const child: ChildProcess = spawn(
      "npx",
      ["nvcf", "upgrade", "--env", "dev", "--to", "0.8.0", "--yes", "--plain", ...TARGET_SETS],
      { cwd: p.work, env: p.env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout?.on("data", (b) => (out += b));
    child.stderr?.on("data", (b) => (err += b));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // The Cassandra phase has started once its record exists (the prepare step's first write).
    const deadline = Date.now() + 600_000;
    let started = false;
    while (!started && Date.now() < deadline) {
      const r = devCassandra(p, [
        "get",
        "configmap",
        "nvcf-cassandra-adoption",
        "-o",
        "name",
        "--ignore-not-found",
      ]);
      started = r.status === 0 && r.stdout.trim() !== "";
      if (!started) await sleep(250);
    }
    try {
      expect(started).toBe(true);
      process.kill(-(child.pid as number), "SIGINT");
    } catch (e) {
      process.kill(-(child.pid as number), "SIGKILL");
      throw e;
    }
    const code = await exited;
    p.transcript.push(
      `$ nvcf upgrade --env dev --to 0.8.0 --yes --plain ${TARGET_SETS.join(" ")}   # SIGINT\n${out}\n${err}`,
    );
    expect(code).not.toBe(0);
    expect(err).toMatch(/nvcf upgrade: interrupted; waiting for the operations in flight to stop/);
    expect(err).toMatch(/[Rr]un nvcf upgrade --env dev --to 0\.8\.0 again/);
    expect(outputs(p, "dev")["bundleVersion"]).toBe("0.7.0");
    expect(fs.readFileSync(path.join(p.work, "Pulumi.dev.yaml"), "utf8")).toMatch(
      /nvcf:bundleVersion: "?0\.8\.0"?$/m,
    );
  }, 1_200_000);

  test("docs/upgrading.md's rollback before Cassandra's release was upgraded: helm rollback puts the Bitnami StatefulSet back", () => {
    // Where the interruption left it: prepare done (StatefulSet deleted with its claims kept), release not upgraded.
    const rec = JSON.parse(
      devCassandra(p, ["get", "configmap", "nvcf-cassandra-adoption", "-o", "json"]).stdout,
    );
    expect(rec.data.phase).toBe("orphaned");
    const first = rec.data.source as string;
    expect(
      devCassandra(p, ["get", "statefulset", "cassandra", "--ignore-not-found", "-o", "name"]).stdout,
    ).toBe("");
    // The rollback row: the release's own revision applied again, then the writers back to their recorded counts.
    if (!process.env["NVCF_HELM"])
      process.env["NVCF_HELM"] = spawnSync("bash", ["scripts/helm.sh"], { encoding: "utf8" }).stdout.trim();
    const helm = (...args: string[]) => {
      const r = spawnSync(process.env["NVCF_HELM"] as string, ["--kube-context", "kwok-nvcf-dev", ...args], {
        env: p.env,
        encoding: "utf8",
      });
      p.transcript.push(`$ helm ${args.join(" ")}\n${r.stdout}${r.stderr}`);
      if (r.status !== 0) throw new Error(`helm ${args.join(" ")}: ${r.stderr}`);
      return r.stdout;
    };
    const revision = JSON.parse(helm("status", "cassandra", "-n", "cassandra-system", "-o", "json")).version;
    helm("rollback", "cassandra", String(revision), "-n", "cassandra-system", "--wait", "--timeout", "5m");
    for (const ns of ["api-keys", "ess", "nvcf", "sis"]) {
      const list = devKubectl(p, ns, ["get", "deployments", "-o", "json"]);
      for (const d of JSON.parse(list.stdout).items) {
        const n = d.metadata.annotations?.["nvcf.nvidia.com/replicas-before-upgrade"];
        if (n === undefined) continue;
        const r = devKubectl(p, ns, ["scale", "deployment", d.metadata.name, `--replicas=${n}`]);
        expect([d.metadata.name, r.status]).toEqual([d.metadata.name, 0]);
      }
    }
    const back = JSON.parse(devCassandra(p, ["get", "statefulset", "cassandra", "-o", "json"]).stdout);
    expect(back.metadata.uid).not.toBe(first);
    // A preview names the prepare step again: the StatefulSet it works from changed.
    const pr = nvcf(p, "preview", "--env", "dev", "--stack", "dev");
    expect(pr.code).toBe(0);
    expect(lines(pr.out)).toContainEqual(expect.stringMatching(/cassandra-adoption-prepare/));
  }, 900_000);

  test("nvcf up --env dev resumes the interrupted upgrade and converges, control plane first", () => {
    const r = nvcf(p, "up", "--env", "dev", "--yes", "--plain");
    if (r.code !== 0) throw new Error(`nvcf up exited ${r.code}\n${r.out}\n${r.err}`);
    const out = lines(r.out);
    // The preview before anything is touched: the control plane's resumed plan. The GPU stacks cannot be previewed
    // against the outputs the interrupted update left (their registrations are not published yet): they are
    // previewed again once the control plane is updated.
    expect(out).toContainEqual("preview: upgrade plan of stack dev: NVCF bundle 0.7.0 → 0.8.0");
    for (const s of ["dev-gpu-a", "dev-gpu-b"])
      expect(out).toContainEqual(
        `preview: ${s}: previewed again after control-plane stack dev is updated (its preview against the control plane's present outputs failed)`,
      );
    // The rollback above put the Bitnami StatefulSet back: prepare ran again, on it, before the release.
    expect(out).toContainEqual(
      expect.stringMatching(
        /^\[ *\d+s\] dev +step cassandra-adoption-prepare: .*statefulset\/cassandra was put back after the adoption recorded in configmap cassandra-system\/nvcf-cassandra-adoption .*: starting the adoption again/,
      ),
    );
    expect(out).toContainEqual(
      expect.stringMatching(
        /^\[ *\d+s\] dev +step cassandra-adoption-verify: .*row counts as recorded before the adoption: .*nvcf_api\.upgrade_marker=3/,
      ),
    );
    expect(out).toContainEqual(
      expect.stringMatching(/^\[ *\d+s\] dev +step cassandra-adoption-verify: writers restored: /),
    );
    const at = (re: RegExp) => out.findIndex((l) => re.test(l));
    const devDone = at(/^\[ *\d+s\] dev +up done in /);
    expect(devDone).toBeGreaterThan(0);
    for (const s of ["dev-gpu-a", "dev-gpu-b"])
      expect(at(new RegExp(`^\\[ *\\d+s\\] ${s} +up started$`))).toBeGreaterThan(devDone);
    expect(out.pop()).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
  }, 1_800_000);

  test("every release at its 0.8.0 chart version; only releases whose chart or values changed were upgraded", () => {
    const after = Object.fromEntries(CLUSTERS.map((c) => [c, releases(p, c)]));
    for (const c of CLUSTERS)
      for (const [k, v] of Object.entries(after[c])) expect([c, k, v.status]).toEqual([c, k, "deployed"]);
    expect(after["dev"]["cassandra-system/cassandra"].chart).toBe("helm-nvcf-cassandra@0.20.1");
    expect(after["dev"]["nvcf/api"].chart).toBe("helm-nvcf-api@1.25.1");
    expect(after["gpu-a"]["nvca-operator/nvca-operator"].chart).toBe("helm-nvca-operator@1.21.3");
    expect(after["gpu-b"]["grove-system/grove-operator"].chart).toBe("grove-charts@v0.1.0-alpha.11");
    expect(after["gpu-b"]["kai-scheduler/kai-scheduler"].chart).toBe("kai-scheduler@v0.16.7");
    for (const c of CLUSTERS)
      for (const [k, b] of Object.entries(before[c])) {
        const a = after[c][k];
        const changed = a.chart !== b.chart || a.config !== b.config;
        // A release upgraded has a new chart or new values; one with neither kept its revision.
        expect([c, k, a.rev > b.rev]).toEqual([c, k, changed]);
      }
    for (const k of ["nvcf/nvct-api", "nvcf/notary-service", "sis/sis", "cert-manager/cert-manager"])
      expect([k, after["dev"][k].rev]).toEqual([k, before["dev"][k].rev]);
  });

  test("the data: every marker and claim where it was (same UIDs, none deleted), Cassandra's rows readable", () => {
    for (const c of CLUSTERS) {
      const now = claims(p, c);
      for (const [k, v] of Object.entries(claimsBefore[c])) {
        expect([c, k, now[k]?.uid]).toEqual([c, k, v.uid]);
        expect([c, k, fs.readFileSync(path.join(v.dir, "nvcf-upgrade-marker"), "utf8")]).toEqual([
          c,
          k,
          marker(c, k),
        ]);
      }
    }
    expect(markerRows(p)).toMatch(/^\s+count\n-+\n\s+3\n/m);
    // NVIDIA's own chart mounts the Bitnami-nested data with subPath data.
    expect(
      p.kubectl(
        "dev",
        "-n",
        "cassandra-system",
        "get",
        "statefulset",
        "cassandra",
        "-o",
        "jsonpath={.spec.template.spec.containers[0].volumeMounts[0].subPath}",
      ),
    ).toBe("data");
  });

  test("the GPU clusters keep their registration IDs; NVCFBackends healthy; nvcf status exit 0; outputs at 0.8.0", () => {
    expect(outputs(p, "dev")["clusterRegistrations"]).toEqual(registrations);
    for (const c of ["gpu-a", "gpu-b"]) {
      expect(ids(p, c)).toBe(identity[c]);
      expect(
        p.kubectl(
          c,
          "get",
          "nvcfbackends.nvcf.nvidia.io",
          "-n",
          "nvca-operator",
          "-o",
          "jsonpath={.items[*].status.agentStatus}",
        ),
      ).toBe("healthy");
    }
    const s = nvcf(p, "status", "--env", "dev");
    expect([s.code, lines(s.out).pop()]).toEqual([
      EXIT.ok,
      expect.stringMatching(/^status: (\d+) checks, \1 passed, 0 failed, 0 warnings$/),
    ]);
    for (const st of ["dev", "dev-gpu-a", "dev-gpu-b"])
      expect([st, outputs(p, st)["bundleVersion"]]).toEqual([st, "0.8.0"]);
    expect(outputs(p, "dev")["cassandraDataLayout"]).toBe("bitnami");
  }, 300_000);

  test("a second preview shows no changes; a second upgrade has nothing to do", () => {
    const r = nvcf(p, "preview", "--env", "dev", "--expect-no-changes");
    expect([r.code, lines(r.out)]).toEqual([
      EXIT.ok,
      ["dev: no changes", "dev-gpu-a: no changes", "dev-gpu-b: no changes", "no changes in 3 stacks"],
    ]);
    const again = nvcf(p, "upgrade", "--env", "dev", "--to", "0.8.0", "--yes", "--plain");
    expect([again.code, again.out]).toEqual([
      EXIT.ok,
      "environment dev is at NVCF bundle 0.8.0: nothing to upgrade\n",
    ]);
  }, 600_000);

  test("no secret in anything printed", () => {
    expect([...transcript, ...p.transcript].join("\n")).not.toContain(REGISTRY_KEY);
  });
});
