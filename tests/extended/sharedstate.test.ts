/**
 * Extended (scripts/test.sh extended): the dev environment with four GPU clusters kept in a shared state backend, the
 * one `NVCF_SHARED_BACKEND_URL` names (the test script runs this file once per backend: the local S3-compatible
 * store of scripts/state-store.sh, and PostgreSQL when scripts/postgres.sh provides it), each run under a prefix or
 * table of its own. The `nvcf` command as a user runs it, in a private copy of the project, against the local kwok
 * clusters nvcf-dev and nvcf-gpu-a … nvcf-gpu-d (scripts/cluster.sh up, the last two named).
 *
 * Order: `nvcf up --env dev` brings up the control plane and then the four GPU-cluster stacks at once (their
 * progress overlaps), the backend lists the five stacks, and a second preview changes nothing → a `pulumi up` of the
 * control plane held by a release Helm waits for; while it runs, the GPU-cluster stacks preview against the control
 * plane's outputs (a stack reference read during an update of the stack it reads) with no changes; then that run
 * is killed (SIGKILL to its process group, as a lost CI runner): its lock stays in the backend, the next
 * `nvcf up` names it and the `pulumi cancel` to run, and after it (and the fixed config) `nvcf up` converges and a
 * preview changes nothing → `nvcf destroy` leaves no resource in any stack. Nothing printed holds a secret.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { EXIT } from "../../cli/types";
import { type E2eProject, e2eProject, resetLocalClusters } from "../e2e/project";

const URL = process.env["NVCF_SHARED_BACKEND_URL"];
const GPU = ["gpu-a", "gpu-b", "gpu-c", "gpu-d"];
const GPU_STACKS = GPU.map((g) => `dev-${g}`);
/** The dev stacks' registry key in plain text (the ciphertext in Pulumi.dev.yaml, dev passphrase). */
const REGISTRY_KEY = "local-registry-key-for-stand-in-registry";

let p: E2eProject;
const children: ChildProcess[] = [];

/** `npx nvcf <args>` in the project copy; stdout and stderr are pipes, stdin is closed. */
function nvcf(...args: string[]): { code: number | null; out: string[]; err: string[] } {
  const r = p.run("npx", ["nvcf", ...args], { allowFail: true });
  const lines = (t: string) => t.split("\n").filter((l) => l.length > 0);
  return { code: r.status, out: lines(r.stdout), err: lines(r.stderr) };
}

/**
 * The backend URL of this run: the one given, with a prefix of its own for an object store (`s3://bucket/<run>`) or
 * a table of its own for PostgreSQL (`table=<run>`), so runs never meet each other's stacks or locks.
 */
function backendFor(base: string, run: string): string {
  const u = new globalThis.URL(base);
  if (u.protocol === "postgres:" || u.protocol === "postgresql:")
    u.searchParams.set("table", run.replace(/-/g, "_"));
  else u.pathname = `${u.pathname.replace(/\/$/, "")}/${run}`;
  return u.toString();
}

beforeAll(() => {
  if (!URL)
    throw new Error(
      "NVCF_SHARED_BACKEND_URL is not set: run bash scripts/test.sh extended (it starts the backends and the clusters)",
    );
  resetLocalClusters(["dev", ...GPU]);
  const run = `e2e-${process.pid}-${Date.now()}`;
  p = e2eProject("nvcf-extended-state", { env: { PULUMI_BACKEND_URL: backendFor(URL, run) } });
  delete p.env["NVCF_POLICY_PACKS"];
  // Two more GPU clusters in the dev environment: listed in the control plane, each with a stack like gpu-a's.
  const devFile = path.join(p.work, "Pulumi.dev.yaml");
  const dev = yaml.load(fs.readFileSync(devFile, "utf8")) as { config: Record<string, unknown> };
  const clusters = dev.config["nvcf:gpuClusters"] as Record<string, unknown>[];
  for (const g of ["gpu-c", "gpu-d"]) {
    clusters.push({ name: g, region: "us-west-2", context: `kwok-nvcf-${g}` });
    const a = fs.readFileSync(path.join(p.work, "Pulumi.dev-gpu-a.yaml"), "utf8");
    fs.writeFileSync(path.join(p.work, `Pulumi.dev-${g}.yaml`), a.replace(/gpu-a/g, g));
  }
  fs.writeFileSync(devFile, yaml.dump(dev, { lineWidth: 120 }));
}, 300_000);

afterAll(() => {
  for (const c of children) {
    try {
      if (c.pid) process.kill(-c.pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  }
  if (!p) return;
  nvcf("destroy", "--env", "dev", "--yes", "--plain");
  expect(p.transcript.filter((t) => t.includes(REGISTRY_KEY))).toEqual([]);
  p.remove();
}, 900_000);

/** Progress lines `[  12s] <stack>  …` of a run: per stack, the seconds of its first and its last line. */
function spans(out: string[]): Map<string, [number, number]> {
  const m = new Map<string, [number, number]>();
  for (const l of out) {
    const x = /^\[\s*(\d+)s\] (\S+)\s/.exec(l);
    if (!x) continue;
    const t = Number(x[1]);
    const s = m.get(x[2]);
    m.set(x[2], s ? [s[0], t] : [t, t]);
  }
  return m;
}

test("nvcf up --env dev: the control plane, then four GPU-cluster stacks at once, all kept in the shared backend", () => {
  const up = nvcf("up", "--env", "dev", "--yes", "--plain", "--parallel", "4");
  expect([up.code, up.err.filter((l) => !l.startsWith("WARN"))]).toEqual([EXIT.ok, []]);
  expect(up.out[up.out.length - 1]).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
  const s = spans(up.out);
  // Every GPU-cluster stack started after the control plane ended, and before any other GPU stack ended.
  const control = s.get("dev") as [number, number];
  const gpu = GPU_STACKS.map((g) => s.get(g) as [number, number]);
  expect(gpu.every((g) => g[0] >= control[1])).toBe(true);
  expect(Math.max(...gpu.map((g) => g[0]))).toBeLessThan(Math.min(...gpu.map((g) => g[1])));
  const listed = JSON.parse(p.run("pulumi", ["stack", "ls", "--json", "--non-interactive"]).stdout) as {
    name: string;
    resourceCount?: number;
  }[];
  expect(
    listed
      .filter((x) => (x.resourceCount ?? 0) > 0)
      .map((x) => x.name.split("/").pop())
      .sort(),
  ).toEqual(["dev", ...GPU_STACKS]);
  const again = nvcf("preview", "--env", "dev", "--expect-no-changes");
  expect([again.code, again.out[again.out.length - 1]]).toEqual([EXIT.ok, "no changes in 5 stacks"]);
}, 1_500_000);

/** Resolves once `child`'s standard output has printed a line matching `re` (rejects after `seconds`). */
function lineOf(child: ChildProcess, re: RegExp, seconds: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(
      () => reject(new Error(`no line ${re} after ${seconds}s:\n${text}`)),
      seconds * 1000,
    );
    child.stdout?.on("data", (d: Buffer) => {
      text += d.toString();
      const l = text.split("\n").find((x) => re.test(x));
      if (l) {
        clearTimeout(timer);
        resolve(l);
      }
    });
  });
}

test("a stack reference read during the control plane's update; a killed run's lock named with its pulumi cancel", async () => {
  // An update Helm waits on until its timeout: the injector's replicas repel each other (one per node) and nvcf-dev
  // has four nodes, so two of six stay Pending. `nvcf up` would refuse it in preflight; a plain `pulumi up` (as a CI
  // job may run) does not check. A changed number, not an added key: the killed run leaves it on the Deployment, and
  // Helm's three-way merge on the next upgrade sets a changed field back, while it keeps a key only the cluster has.
  p.pulumi("dev", ["config", "set", "--path", "nvcf:openbao.injectorReplicas", "6"]);
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "-s", "dev", "--non-interactive"], {
    cwd: p.work,
    env: p.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  await lineOf(child, /nvcf-openbao-server\s+updating/, 300);

  // The GPU-cluster stacks read the control plane's outputs while its update holds the stack.
  const during = nvcf("preview", "--env", "dev", ...GPU_STACKS.flatMap((s) => ["--stack", s]));
  expect([during.code, during.out]).toEqual([
    EXIT.ok,
    [...GPU_STACKS.map((s) => `${s}: no changes`), "no changes in 4 stacks"],
  ]);

  // The whole run dies at once (SIGKILL to its process group, as a lost runner): its lock stays.
  process.kill(-(child.pid as number), "SIGKILL");
  await exited;
  p.pulumi("dev", ["config", "rm", "--path", "nvcf:openbao.injectorReplicas"]);

  // The preview of `nvcf up` takes no lock (a DIY backend locks updates, refreshes and destroys): its update is refused.
  const locked = nvcf("up", "--env", "dev", "--stack", "dev", "--yes", "--plain");
  expect(locked.code).toBe(EXIT.deployment);
  const i = locked.err.findIndex((l) => l.startsWith("dev: stack dev is locked"));
  const head =
    /^dev: stack dev is locked in the state backend by (\d+) locks? \(a DIY backend's locks never expire; nothing was changed\):$/.exec(
      locked.err[i] ?? "",
    );
  expect([locked.err[i], !!head]).toEqual([locked.err[i], true]);
  const n = Number(head?.[1]);
  const lock = new RegExp(
    "^dev: {3}\\S+/\\.pulumi/locks/organization/nvcf/dev/\\S+\\.json\\S*: taken by \\S+@\\S+ \\(pid \\d+\\) at \\S+; " +
      "that process is no longer running on this machine: the lock was left by a run that was killed$",
  );
  expect(locked.err.slice(i + 1, i + 1 + n).filter((l) => !lock.test(l))).toEqual([]);
  expect(locked.err[i + 1 + n]).toBe(
    "dev: fix: run pulumi cancel --stack dev --yes in the project directory (it deletes every lock of the stack), then run this again",
  );

  p.pulumi("dev", ["cancel", "--yes"]);
  const up = nvcf("up", "--env", "dev", "--yes", "--plain");
  expect([up.code, up.out[up.out.length - 1]]).toEqual([
    EXIT.ok,
    expect.stringMatching(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/),
  ]);
  const again = nvcf("preview", "--env", "dev", "--expect-no-changes");
  expect([again.code, again.out[again.out.length - 1]]).toEqual([EXIT.ok, "no changes in 5 stacks"]);
}, 1_500_000);

test("nvcf destroy leaves no resource in any of the five stacks in the shared backend", () => {
  const r = nvcf("destroy", "--env", "dev", "--yes", "--plain");
  expect(r.code).toBe(EXIT.ok);
  const listed = JSON.parse(p.run("pulumi", ["stack", "ls", "--json", "--non-interactive"]).stdout) as {
    name: string;
    resourceCount?: number;
  }[];
  expect(listed.map((x) => [x.name.split("/").pop(), x.resourceCount ?? 0]).sort()).toEqual(
    ["dev", ...GPU_STACKS].map((s) => [s, 0]),
  );
}, 900_000);
