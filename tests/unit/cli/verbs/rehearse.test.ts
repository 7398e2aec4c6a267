/**
 * The parts of `nvcf rehearse` (cli/verbs/rehearse.ts) that decide without a cluster: which context a stack's
 * replica stands for, the namespaces its state names, the rehearsal's kubeconfig and state, the report's release
 * lines, nvcf-cli's stand-in, and the refusals printed before anything is made (through the command line).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { EXIT, type StackFile } from "../../../../cli/types";
import {
  latestReleases,
  nvcfCliGuard,
  rehearsalKubeconfig,
  rehearsedArgs,
  releaseLines,
  repointProviders,
  shadowInCopy,
  stackContext,
  stateNamespaces,
} from "../../../../cli/verbs/rehearse";
import { kubeconfigView } from "../../../../kube/kubeconfig";
import { findReplicaBinaries, replicaKwokctlConfig } from "../../../../kube/replica";
import { nvcf } from "../../support/cliRun";

const ROOT = path.resolve(__dirname, "../../../..");
const stack = (config: Record<string, unknown>): StackFile => ({
  stack: "s",
  file: "Pulumi.s.yaml",
  plane: "control",
  config,
});
const KUBECONFIG = yaml.dump({
  contexts: [
    { name: "a", context: { cluster: "a", user: "a" } },
    { name: "b", context: { cluster: "b", user: "b" } },
  ],
  "current-context": "b",
});
const view = kubeconfigView([["k", KUBECONFIG]], ["k"]);

test("a stack's replica stands for its nvcf:kubernetes.context, else the current context", () => {
  expect(stackContext(stack({ kubernetes: { context: "a" } }), view)).toEqual({ context: "a" });
  expect(stackContext(stack({}), view)).toEqual({ context: "b" });
  expect(stackContext(stack({ kubernetes: { context: "c" } }), view)).toEqual({
    problem: 'stack s: kubeconfig context "c" not found (looked in k)',
  });
  for (const c of [{ kubeconfig: { secure: "x" } }, { aws: { eksClusterName: "prod" } }])
    expect(stackContext(stack(c), view)).toEqual({
      problem: expect.stringMatching(
        /^stack s reaches its cluster through nvcf:kubeconfig .* Fix: give the stack nvcf:kubernetes\.context/,
      ),
    });
});

test("the namespaces a stack's state names: namespaces, releases' and objects' namespaces", () => {
  const exported = {
    deployment: {
      resources: [
        { type: "kubernetes:core/v1:Namespace", outputs: { metadata: { name: "nvcf" } } },
        { type: "kubernetes:helm.sh/v3:Release", outputs: { namespace: "cassandra-system" } },
        {
          type: "kubernetes:core/v1:Secret",
          outputs: { metadata: { name: "s", namespace: "vault-system" } },
        },
        { type: "command:local:Command", outputs: { metadata: { namespace: "ignored" } } },
      ],
    },
  };
  expect([...stateNamespaces(exported)].sort()).toEqual(["cassandra-system", "nvcf", "vault-system"]);
  expect(stateNamespaces(undefined).size).toBe(0);
});

test("the rehearsal's kubeconfig: the real context names reach the replicas; other contexts kept", () => {
  const replica = yaml.dump({
    clusters: [
      {
        name: "kwok-r0",
        cluster: { server: "https://127.0.0.1:40000", "certificate-authority": "/t/ca.crt" },
      },
    ],
    users: [{ name: "kwok-r0", user: { "client-certificate": "/t/a.crt", "client-key": "/t/a.key" } }],
    contexts: [{ name: "kwok-r0", context: { cluster: "kwok-r0", user: "kwok-r0" } }],
  });
  // As kube/kubeconfig.ts minifyKubeconfig writes one context.
  const other = yaml.dump({
    clusters: [{ name: "x", cluster: { server: "https://gpu.example:6443" } }],
    users: [{ name: "x", user: { token: "t" } }],
    contexts: [{ name: "b", context: { cluster: "x", user: "x" } }],
  });
  const doc = yaml.load(
    rehearsalKubeconfig(
      new Map([["a", { kubeconfigText: replica, context: "kwok-r0" }]]),
      "b",
      new Map([["b", other]]),
    ),
  ) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(doc["contexts"]).toEqual([
    { name: "b", context: { cluster: "source-b", user: "source-b" } },
    { name: "a", context: { cluster: "rehearsal-a", user: "rehearsal-a" } },
  ]);
  expect(doc["clusters"][1]).toEqual({
    name: "rehearsal-a",
    cluster: { server: "https://127.0.0.1:40000", "certificate-authority": "/t/ca.crt" },
  });
  expect(doc["clusters"][0].cluster.server).toBe("https://gpu.example:6443");
  // The current context is the real one when a replica stands for it, else the first replica's: what takes the
  // current context reaches a replica, never a live cluster.
  expect(doc["current-context"]).toBe("a");
  expect(
    (
      yaml.load(
        rehearsalKubeconfig(new Map([["a", { kubeconfigText: replica, context: "kwok-r0" }]]), "z"),
      ) as Record<string, unknown>
    )["current-context"],
  ).toBe("a");
  expect(() => rehearsalKubeconfig(new Map([["a", { kubeconfigText: replica, context: "nope" }]]))).toThrow(
    "the replica's kubeconfig has no context nope",
  );
});

test("the rehearsal's state: every Kubernetes provider records the rehearsal's kubeconfig, nothing else changes", () => {
  const exported = {
    version: 3,
    deployment: {
      resources: [
        {
          type: "pulumi:providers:kubernetes",
          inputs: { context: "a", kubeconfig: "/home/u/.kube/config" },
          outputs: { kubeconfig: "/home/u/.kube/config" },
        },
        { type: "kubernetes:core/v1:Secret", inputs: { kubeconfig: "kept" } },
      ],
    },
  };
  const out = repointProviders(exported, "/tmp/r/kubeconfig") as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(out.deployment.resources[0].inputs).toEqual({ context: "a", kubeconfig: "/tmp/r/kubeconfig" });
  expect(out.deployment.resources[0].outputs).toEqual({ kubeconfig: "/tmp/r/kubeconfig" });
  expect(out.deployment.resources[1]).toEqual(exported.deployment.resources[1]);
  expect(exported.deployment.resources[0].inputs.kubeconfig).toBe("/home/u/.kube/config");
});

test("the report's release lines: what moved or is not deployed, new and removed releases, the unchanged counted", () => {
  const rec = (name: string, version: number, status: string, namespace = "n") => ({
    metadata: { namespace, labels: { owner: "helm", name, version: String(version), status } },
  });
  const before = latestReleases([
    rec("a", 1, "superseded"),
    rec("a", 2, "deployed"),
    rec("b", 1, "deployed"),
    rec("gone", 3, "deployed"),
  ]);
  expect(before.get("n/a")).toEqual({ namespace: "n", name: "a", revision: 2, status: "deployed" });
  const after = latestReleases([
    rec("a", 3, "failed"),
    rec("b", 1, "deployed"),
    rec("new", 1, "deployed"),
    { metadata: { namespace: "n", labels: { name: "not-helm" } } },
  ]);
  expect(releaseLines(before, after)).toEqual([
    "release n/a: revision 2 (deployed) -> 3 (failed)",
    "release n/new: installed, revision 1 (deployed)",
    "release n/gone: uninstalled (was revision 3)",
    "1 release(s) unchanged",
  ]);
});

test("nvcf-cli's stand-in refuses every call, says why, and journals it", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-guard-"));
  try {
    const rel = "tests/bin/nvcf-cli";
    const real = path.join(dir, "real");
    fs.mkdirSync(path.join(real, "tests", "bin"), { recursive: true });
    fs.writeFileSync(path.join(real, "tests", "bin", "nvcf-cli"), "real");
    fs.writeFileSync(path.join(real, "tests", "bin", "other"), "other");
    const copy = path.join(dir, "copy");
    fs.mkdirSync(copy);
    fs.symlinkSync(path.join(real, "tests"), path.join(copy, "tests"));
    shadowInCopy(copy, real, rel, nvcfCliGuard());
    // The guard sits at the relative path inside the copy; the real file and its siblings are untouched.
    expect(fs.lstatSync(path.join(copy, "tests")).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(path.join(copy, "tests", "bin", "other"), "utf8")).toBe("other");
    expect(fs.readFileSync(path.join(real, "tests", "bin", "nvcf-cli"), "utf8")).toBe("real");
    const journal = path.join(dir, "journal");
    const r = spawnSync(path.join(copy, rel), ["cluster", "register", "--name", "gpu a"], {
      encoding: "utf8",
      env: { ...process.env, NVCFPULUMI_REHEARSAL: journal },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "not rehearsed: nvcf-cli cluster register --name gpu\\ a - it calls the NVCF API, which a rehearsal does not replicate\n",
    );
    expect(fs.readFileSync(journal, "utf8")).toBe(r.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the replica's programs are found on PATH, or named when missing; its components listen on 127.0.0.1", () => {
  const have = new Set([
    "/a/kwokctl",
    "/b/kwok",
    "/b/kube-apiserver",
    "/b/kube-controller-manager",
    "/b/kube-scheduler",
  ]);
  const r = findReplicaBinaries("/a:/b", (f) => have.has(f));
  expect(r).toEqual({
    found: {
      kwokctl: "/a/kwokctl",
      kwok: "/b/kwok",
      "kube-apiserver": "/b/kube-apiserver",
      "kube-controller-manager": "/b/kube-controller-manager",
      "kube-scheduler": "/b/kube-scheduler",
    },
    missing: ["etcd"],
  });
  expect((yaml.load(replicaKwokctlConfig()) as any).options).toEqual({ bindAddress: "127.0.0.1" }); // eslint-disable-line @typescript-eslint/no-explicit-any
});

test("nvcf rehearse refuses, before anything is made, a stack it cannot point at a replica", async () => {
  const r = await nvcf("rehearse", "--env", "prod-eks", "--cwd", ROOT);
  expect(r.code).toBe(EXIT.usage);
  expect(r.err).toMatch(
    /^cannot rehearse: stack prod-eks reaches its cluster through nvcf:kubeconfig or nvcf:aws\.eksClusterName; .* Fix: give the stack nvcf:kubernetes\.context/m,
  );
});

test("up --rehearse and upgrade --rehearse rehearse first: refused there, nothing else runs", async () => {
  for (const args of [
    ["up", "--env", "prod-eks", "--cwd", ROOT, "--yes", "--rehearse"],
    ["upgrade", "--env", "prod-eks", "--cwd", ROOT, "--yes", "--to", "0.8.0", "--rehearse"],
  ]) {
    const r = await nvcf(...args);
    expect([args[0], r.code]).toEqual([args[0], EXIT.usage]);
    expect(r.err).toMatch(/^cannot rehearse: stack prod-eks reaches its cluster through nvcf:kubeconfig/m);
  }
});

test("the rehearsed run: up keeps --stack and --refresh, upgrade keeps --to and --set, both non-interactive", () => {
  const common = [
    "--env",
    "dev",
    "--cwd",
    "/r/project",
    "--yes",
    "--plain",
    "--parallel",
    "2",
    "--kubeconfig",
    "/r/kc",
  ];
  expect(
    rehearsedArgs("dev", "/r/project", "/r/kc", {
      parallel: 2,
      stack: ["dev"],
      refresh: true,
      policyPack: ["p"],
    }),
  ).toEqual(["up", ...common, "--stack", "dev", "--refresh", "--policy-pack", path.resolve("p")]);
  expect(
    rehearsedArgs("dev", "/r/project", "/r/kc", {
      parallel: 2,
      to: "0.8.0",
      set: ["dev:a=b"],
      refresh: true,
    }),
  ).toEqual(["upgrade", ...common, "--to", "0.8.0", "--set", "dev:a=b"]);
});

test("options that do not go together are usage errors", async () => {
  const a = await nvcf("rehearse", "--env", "dev", "--cwd", ROOT, "--to", "0.8.0", "--stack", "dev");
  expect([a.code, a.err]).toEqual([
    EXIT.usage,
    "error: --stack does not go with --to: an upgrade moves the whole environment\n",
  ]);
  const b = await nvcf("rehearse", "--env", "dev", "--cwd", ROOT, "--set", "dev:a=b");
  expect([b.code, b.err]).toEqual([
    EXIT.usage,
    "error: --set goes with --to (the changes that go with a bundle move)\n",
  ]);
});
