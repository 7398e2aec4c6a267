/**
 * End to end, the `nvcf` command as a user runs it (`npx nvcf …` from the project directory: the package's
 * bin, cli/nvcf.js, running cli/main.ts) against the local kwok clusters (scripts/cluster.sh up), with the
 * stand-in charts and nvcf-cli, in a private copy of the project with a fresh local state backend.
 *
 * Order (one `nvcf up` serves every later assertion): a bad config is refused with the program's formatted
 * lines and exit 3, by `up` before anything is touched and by `preview` through the engine → `nvcf up --env
 * dev --yes --plain` from nothing brings up dev, dev-gpu-a and dev-gpu-b with progress lines, then verifies
 * → a second preview changes nothing (exit 0) and a config change is drift (exit 7) → `status` is healthy
 * (exit 0, also as JSON) → a stale JWKS: `status` names `nvcf rotate`, which refreshes the issuer and JWKS and
 * keeps the IDs → a second `up` changes nothing → destroying the control plane alone is refused
 * (exit 5) → `destroy` leaves no stack namespace on any cluster. Each GPU cluster also gets NVIDIA's
 * observability stack (profile compute: operators, collector, VictoriaMetrics, the NVCA, DCGM and worker
 * monitors in `monitoring` with the pull secret), which `status` checks and `destroy` removes in order, CRDs
 * and namespace included. No secret appears in anything the command printed. The NVCFBackend and the agent on each GPU cluster come from the stand-in NVCA operator that
 * scripts/cluster.sh runs next to each local GPU cluster (tests/bin/nvca-operator), and route status from the stand-in
 * gateway controller it runs next to nvcf-dev (tests/bin/gateway-controller); nothing here emulates either.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EXIT, type Finding } from "../../cli/types";
import { OBSERVABILITY_RELEASE_NAMES } from "../../values/observability";
import { LOCAL_API_DIR, copyProject } from "./project";

const CACHE = process.env["NVCF_CACHE"] ?? path.join(os.homedir(), ".cache/nvcf-pulumi");
const KUBECONFIG = path.join(process.env["NVCF_LOCAL_DIR"] ?? CACHE, "clusters/kubeconfig");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-cli-"));
const state = path.join(work, ".state");
const icms = path.join(work, ".icms");
/** The dev stacks' registry key in plain text (the ciphertext in Pulumi.dev.yaml, dev passphrase). */
const REGISTRY_KEY = "local-registry-key-for-stand-in-registry";
const CONTEXTS = ["kwok-nvcf-dev", "kwok-nvcf-gpu-a", "kwok-nvcf-gpu-b"];
/** The GPU stacks and their clusters' contexts. */
const GPU_STACKS = [
  ["dev-gpu-a", "kwok-nvcf-gpu-a"],
  ["dev-gpu-b", "kwok-nvcf-gpu-b"],
] as const;
/** NVIDIA's observability stack (catalog/releases.ts OBSERVABILITY_RELEASES). */
const OBSERVABILITY: readonly string[] = OBSERVABILITY_RELEASE_NAMES;

const env: NodeJS.ProcessEnv = {
  ...process.env,
  PULUMI_BACKEND_URL: `file://${state}`,
  PULUMI_CONFIG_PASSPHRASE: "nvcf-dev-local-passphrase",
  KUBECONFIG,
  NVCF_CLI_ICMS_DIR: icms,
  NVCF_CLI_API_DIR: LOCAL_API_DIR,
  PULUMI_SKIP_UPDATE_CHECK: "true",
  PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
};
delete env["NVCF_POLICY_PACKS"];
/** Everything the command printed, searched for secrets at the end. */
const transcript: string[] = [];

function run(cmd: string, args: string[]): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd: work, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

/** `npx nvcf <args>` in the project copy; stdout and stderr are pipes (not a terminal), stdin is closed. */
function nvcf(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync("npx", ["nvcf", ...args], {
    cwd: work,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  transcript.push(`$ nvcf ${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const lines = (text: string) => text.split("\n").filter((l) => l.length > 0);

/**
 * The preflight block that opens `up`'s output: any `WARN` lines (a check that cannot run on the embedded
 * default, e.g. credentials against a registry that does not exist, warns), then the summary with nothing
 * failed and the counts adding up. Returns the summary's index.
 */
function preflightPassed(out: string[]): number {
  const i = out.findIndex((l) => l.startsWith("preflight: "));
  expect(out.slice(0, i).filter((l) => !l.startsWith("WARN "))).toEqual([]);
  const m = /^preflight: (\d+) checks, (\d+) passed, 0 failed, (\d+) warnings?$/.exec(out[i] ?? "");
  expect([out[i], !!m && Number(m[1]) === Number(m[2]) + Number(m[3])]).toEqual([out[i], true]);
  expect(Number(m?.[3])).toBe(i);
  return i;
}
const namespaces = (context: string) =>
  run("kubectl", ["--context", context, "get", "ns", "-o", "jsonpath={.items[*].metadata.name}"])
    .stdout.split(" ")
    .filter(Boolean)
    .sort();
/** CRDs of the API groups the observability stack's releases install (Prometheus Operator, OpenTelemetry). */
const observabilityCrds = (context: string) =>
  run("kubectl", ["--context", context, "get", "crd", "-o", "jsonpath={.items[*].metadata.name}"])
    .stdout.split(" ")
    .filter((n) => /\.(monitoring\.coreos\.com|opentelemetry\.io)$/.test(n))
    .sort();
/** Resources of a stack in the backend (none for a stack never deployed). */
function resources(stack: string): unknown[] {
  const r = run("pulumi", ["stack", "export", "-s", stack, "--non-interactive"]);
  if (r.status !== 0) return [];
  return (JSON.parse(r.stdout) as { deployment: { resources?: unknown[] } }).deployment.resources ?? [];
}

/** The namespaces each cluster has before anything is deployed: what must be left after destroy. */
const before = new Map<string, string[]>();

beforeAll(() => {
  copyProject(work);
  fs.mkdirSync(state, { recursive: true });
  fs.mkdirSync(icms, { recursive: true });
  for (const c of CONTEXTS) before.set(c, namespaces(c));
}, 120_000);

afterAll(() => {
  // The command lines and what they printed, for documentation (docs/nvcf-transcripts.md was taken from one).
  const keep = process.env["NVCF_E2E_TRANSCRIPT"];
  if (keep) fs.writeFileSync(keep, transcript.join("\n"));
  // Best effort: leave nothing behind when a test failed half-way (compute planes first).
  for (const s of ["dev-gpu-a", "dev-gpu-b", "dev"])
    run("pulumi", ["destroy", "--yes", "--skip-preview", "-s", s, "--non-interactive"]);
  fs.rmSync(work, { recursive: true, force: true });
}, 900_000);

describe("a bad config", () => {
  const PROBLEMS = [
    'stack "dev" has 1 config problem; nothing was changed:',
    "  - nvcf:cassandra.replicas: expected a whole number of at least 1, found 0. Fix: pulumi config set --path nvcf:cassandra.replicas <a whole number of at least 1>",
  ];

  beforeAll(() => {
    run("pulumi", ["stack", "init", "dev", "--non-interactive"]);
    run("pulumi", ["config", "set", "-s", "dev", "--path", "nvcf:cassandra.replicas", "0"]);
  }, 120_000);

  test("up refuses it with the program's formatted lines, exit 3, before preflight or any stack is touched", () => {
    const r = nvcf("up", "--env", "dev", "--yes", "--plain");
    expect(r.code).toBe(EXIT.config);
    expect(lines(r.err)).toEqual(PROBLEMS);
    expect(r.out).toBe("");
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"]) expect(resources(s)).toEqual([]);
  }, 120_000);

  test("preview shows the same lines from the program run by the engine, no stack trace, exit 3", () => {
    const r = nvcf("preview", "--env", "dev");
    expect(r.code).toBe(EXIT.config);
    expect(lines(r.err)).toEqual(PROBLEMS);
    expect(r.err + r.out).not.toMatch(/unhandled exception|ConfigError|^\s+at .+:\d+:\d+\)?$/m);
    expect(lines(r.out)).toEqual([
      "dev: preview FAILED (see above)",
      "no changes in 0 stacks; 1 stack failed",
      "dev-gpu-a: not previewed: control-plane stack dev is not deployed yet (nvcf up deploys it first)",
      "dev-gpu-b: not previewed: control-plane stack dev is not deployed yet (nvcf up deploys it first)",
    ]);
    run("pulumi", ["config", "rm", "-s", "dev", "--path", "nvcf:cassandra.replicas"]);
  }, 300_000);
});

describe("up, preview, status, destroy", () => {
  let up = { code: null as number | null, out: "", err: "" };

  test("nvcf up --env dev --yes --plain brings up dev and both GPU clusters from nothing, then verifies", () => {
    up = nvcf("up", "--env", "dev", "--yes", "--plain");
    if (up.code !== 0) throw new Error(`nvcf up exited ${up.code}\n${up.out}\n${up.err}`);
    const out = lines(up.out);
    expect(up.out).not.toContain("\u001b[");
    // Preflight first, nothing failing, then the control plane, then the two GPU clusters, then verification.
    const pre = preflightPassed(out);
    const at = (re: RegExp) => out.findIndex((l) => re.test(l));
    const stamp = "^\\[ *\\d+s\\] ";
    const line = (stack: string, text: string) => new RegExp(`${stamp}${stack} +${text}$`);
    const devDone = at(line("dev", "up done in \\d+m?\\d*s: \\d+ created"));
    // Then the preview, before anything is touched: the control plane's, the GPU clusters' named as not previewed
    // yet (their control plane is not deployed; they are previewed once it is).
    const previewed = out.map((l, i) => (l.startsWith("preview: ") ? i : -1)).filter((i) => i >= 0);
    expect(previewed[0]).toBe(pre + 1);
    const lastPreview = previewed[previewed.length - 1];
    expect(previewed).toEqual(Array.from({ length: lastPreview - pre }, (_, k) => pre + 1 + k));
    expect(out[pre + 1]).toMatch(/^preview: dev: \d+ releases and \d+ other resources would change$/);
    expect(out.slice(lastPreview - 1, lastPreview + 1)).toEqual([
      "preview: dev-gpu-a: not previewed: control-plane stack dev is not deployed yet (nvcf up deploys it first)",
      "preview: dev-gpu-b: not previewed: control-plane stack dev is not deployed yet (nvcf up deploys it first)",
    ]);
    expect(at(line("dev", "up started"))).toBe(lastPreview + 1);
    expect(devDone).toBeGreaterThan(pre + 1);
    for (const s of ["dev-gpu-a", "dev-gpu-b"]) {
      expect(at(line(s, "up started"))).toBeGreaterThan(devDone);
      expect(at(line(s, "up done in \\d+m?\\d*s: \\d+ created"))).toBeGreaterThan(devDone);
      expect(at(line(s, "release nvca-operator installed \\(\\d+m?\\d*s\\)"))).toBeGreaterThan(devDone);
    }
    // Per release: when it starts and when it is done, with its duration.
    for (const r of ["cassandra", "openbao-server", "api"]) {
      const started = at(line("dev", `release ${r} installing`));
      expect(started).toBeGreaterThan(pre + 1);
      expect(at(line("dev", `release ${r} installed \\(\\d+m?\\d*s\\)`))).toBeGreaterThan(started);
    }
    expect(at(line("dev-gpu-b", "release kai-scheduler installed \\(\\d+m?\\d*s\\)"))).toBeGreaterThan(
      devDone,
    );
    // NVIDIA's observability stack on each GPU cluster, each release after the ones it needs.
    for (const [s] of GPU_STACKS) {
      const installed = (r: string) => at(line(s, `release ${r} installed \\(\\d+m?\\d*s\\)`));
      const installing = (r: string) => at(line(s, `release ${r} installing`));
      for (const r of OBSERVABILITY) expect([s, r, installed(r) > devDone]).toEqual([s, r, true]);
      for (const r of ["opentelemetry-operator", "victoria-metrics", "otel-collector", "default-monitors"])
        expect([s, r, installing(r) > installed("prometheus-operator-crds")]).toEqual([s, r, true]);
      expect(installing("otel-collector")).toBeGreaterThan(installed("opentelemetry-operator"));
      expect(installing("otel-collector")).toBeGreaterThan(installed("victoria-metrics"));
    }
    expect(out[out.length - 1]).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
    // Every line is preflight, the preview, a progress line or the verification summary.
    expect(out.filter((l) => !new RegExp(stamp).test(l))).toEqual([
      ...out.slice(0, lastPreview + 1),
      out[out.length - 1],
    ]);
    for (const c of CONTEXTS) expect(namespaces(c).length).toBeGreaterThan(before.get(c)?.length ?? 0);
  }, 1_200_000);

  test("a second preview changes nothing: one summary, exit 0 with --expect-no-changes", () => {
    const r = nvcf("preview", "--env", "dev", "--expect-no-changes");
    expect(r.code).toBe(EXIT.ok);
    expect(lines(r.out)).toEqual([
      "dev: no changes",
      "dev-gpu-a: no changes",
      "dev-gpu-b: no changes",
      "no changes in 3 stacks",
    ]);
  }, 600_000);

  test("a changed input is drift: the release and the input named, exit 7", () => {
    run("pulumi", ["config", "set", "-s", "dev", "--path", "nvcf:releaseValues.sis.sis.replicaCount", "3"]);
    const r = nvcf("preview", "--env", "dev", "--stack", "dev", "--expect-no-changes");
    run("pulumi", ["config", "rm", "-s", "dev", "nvcf:releaseValues"]);
    expect(r.code).toBe(EXIT.drift);
    expect(lines(r.out)).toEqual([
      "dev: 1 release and 0 other resources would change",
      "  ~ release sis (upgrade): values.sis.replicaCount: 3 (add)",
      "1 of 1 stack would change: 1 release, 0 other resources",
    ]);
  }, 300_000);

  test("nvcf status reports healthy (exit 0), and --json prints the findings", () => {
    const r = nvcf("status", "--env", "dev");
    expect(r.code).toBe(EXIT.ok);
    expect(lines(r.out)).toEqual([
      expect.stringMatching(/^status: (\d+) checks, \1 passed, 0 failed, 0 warnings$/),
    ]);
    const j = nvcf("status", "--env", "dev", "--json");
    expect(j.code).toBe(EXIT.ok);
    const findings = JSON.parse(j.out) as Finding[];
    expect(new Set(findings.map((f) => f.stack))).toEqual(new Set(["dev", "dev-gpu-a", "dev-gpu-b"]));
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    // Route status as a Gateway API controller writes it (on the local clusters the stand-in gateway controller that
    // scripts/cluster.sh runs): the API routes NVIDIA's multi-cluster install enables, each Accepted with its
    // references resolved.
    const routes = new Map(
      findings
        .filter((f) => f.stack === "dev" && f.check === "health.routes")
        .map((f) => [f.object, f.found]),
    );
    for (const r of [
      "HTTPRoute envoy-gateway/nvcf-api",
      "GRPCRoute envoy-gateway/nvcf-api-grpc",
      "GRPCRoute envoy-gateway/nvct-api-grpc",
    ])
      expect([r, routes.get(r)]).toEqual([
        r,
        "Accepted=True, ResolvedRefs=True from Gateway envoy-gateway/nvcf-gateway:http",
      ]);
    // The operator's objects on each GPU cluster: its NVCFBackend, named after the cluster, and the agent.
    for (const c of ["gpu-a", "gpu-b"]) {
      const of = (check: string) =>
        findings.filter((f) => f.stack === `dev-${c}` && f.check === check).map((f) => [f.object, f.found]);
      expect(of("health.nvcfbackend")).toEqual([[`NVCFBackend nvca-operator/${c}`, "agentStatus healthy"]]);
      expect(of("health.agent")).toEqual([[expect.stringMatching(/^pod nvca-system\/nvca-/), "Ready"]]);
      // NVIDIA's observability stack, as its compute-cluster feature checks it: the releases in monitoring,
      // the collector object with its Target Allocator, the NVCA, DCGM and worker monitors, the pull secret.
      const releases = of("health.release").map(([o]) => o);
      for (const r of OBSERVABILITY) expect(releases).toContain(`release monitoring/${r}`);
      const selected = "exists, selected by collector nvcf-observability's Target Allocator";
      expect(of("health.observability")).toEqual([
        ["OpenTelemetryCollector monitoring/nvcf-observability", "exists, Target Allocator enabled"],
        ["ServiceMonitor monitoring/nvcf-default-monitors-nvca", selected],
        ["PodMonitor monitoring/nvcf-default-monitors-dcgm", selected],
        ["PodMonitor monitoring/nvcf-default-monitors-worker", selected],
        ["Secret monitoring/nvcr-pull-secret", "the image pull secret (kubernetes.io/dockerconfigjson)"],
      ]);
    }
    // The control plane's own (profile control): its monitors, no compute ones.
    const control = findings
      .filter((f) => f.stack === "dev" && f.check === "health.observability")
      .map((f) => f.object);
    expect(control).toContain("ServiceMonitor monitoring/nvcf-default-monitors-grpc-proxy");
    expect(control.filter((o) => /-(nvca|dcgm|worker)$/.test(o))).toEqual([]);
  }, 300_000);

  test("a stale JWKS: status names nvcf rotate, which refreshes the issuer and JWKS in ICMS and keeps the IDs", () => {
    const registry = () =>
      JSON.parse(fs.readFileSync(path.join(icms, "nvcf-default.json"), "utf8")) as {
        clusters: Record<string, unknown>[];
      };
    const entry = (name: string) => registry().clusters.find((c) => c["name"] === name)!;
    const kube = (...args: string[]) => run("kubectl", ["--context", "kwok-nvcf-gpu-a", ...args]);
    const health = (state: string) =>
      kube(
        "patch",
        "nvcfbackends.nvcf.nvidia.io",
        "gpu-a",
        "-n",
        "nvca-operator",
        "--subresource=status",
        "--type=merge",
        "-p",
        JSON.stringify({ status: { agentStatus: state } }),
      );
    // What a stale JWKS looks like: ICMS holds keys the cluster no longer signs with, the agent is refused (401)
    // and its NVCFBackend is not healthy. Here the emulated ICMS's record is made stale and the status set.
    const fresh = entry("gpu-a");
    const b0 = entry("gpu-b");
    const file = path.join(icms, "nvcf-default.json");
    const doc = registry();
    Object.assign(doc.clusters.find((c) => c["name"] === "gpu-a")!, {
      oidcIssuer: "https://stale-issuer.test",
      jwksKeyIds: ["stale-key"],
      jwksSha256: "0".repeat(64),
    });
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    expect(health("unhealthy").status).toBe(0);

    const st = nvcf("status", "--env", "dev");
    expect(st.code).toBe(EXIT.health);
    expect(lines(st.out)).toContainEqual(
      "FAIL dev-gpu-a: NVCFBackend nvca-operator/gpu-a (health.nvcfbackend): found agentStatus is unhealthy; " +
        "needed agentStatus healthy (normally within 10 minutes of the install); fix: kubectl logs -n nvca-system " +
        "-l app.kubernetes.io/name=nvca; a 401 from ICMS means the registration's issuer or JWKS is stale: " +
        "nvcf rotate --env dev --cluster gpu-a refreshes them in ICMS, keeping the cluster's IDs",
    );

    const r = nvcf("rotate", "--env", "dev", "--cluster", "gpu-a", "--yes", "--plain");
    if (r.code !== 0) throw new Error(`nvcf rotate exited ${r.code}\n${r.out}\n${r.err}`);
    expect(lines(r.out)).toEqual([
      expect.stringMatching(/^\[ *\d+s\] dev +up started$/),
      expect.stringMatching(/^\[ *\d+s\] dev +up done in \d+m?\d*s: 1 updated, \d+ unchanged$/),
      expect.stringMatching(
        new RegExp(
          `^gpu-a: OIDC issuer and JWKS refreshed in ICMS \\(nvcf-cli cluster rotate, request \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z\\); ` +
            `cluster ID ${fresh["clusterID"]} and cluster group ID ${fresh["clusterGroupID"]} kept$`,
        ),
      ),
      "next: the NVCA agent retries with the refreshed keys; nvcf status --env dev shows when it is healthy",
    ]);
    // ICMS has the cluster's live issuer and keys again, on the same registration; gpu-b was not touched.
    expect(entry("gpu-a")).toEqual({
      ...fresh,
      updatedAt: expect.any(String),
      rotateCount: 1,
    });
    expect(entry("gpu-b")).toEqual(b0);
    // The request is recorded in the stack file, so a preview shows nothing left to do.
    expect(fs.readFileSync(path.join(work, "Pulumi.dev.yaml"), "utf8")).toMatch(/jwksRotation: "?\d{4}-/);
    const p = nvcf("preview", "--env", "dev", "--expect-no-changes");
    expect([p.code, lines(p.out).pop()]).toEqual([EXIT.ok, "no changes in 3 stacks"]);
    // The agent retries with the refreshed keys (the real operator reports it healthy again; here, by hand).
    expect(health("healthy").status).toBe(0);
  }, 600_000);

  test("a second nvcf up changes nothing: every stack unchanged, no release touched, verification healthy", () => {
    const created = (text: string, stack: string) =>
      new RegExp(`^\\[ *\\d+s\\] ${stack} +up done in \\d+m?\\d*s: (\\d+) created$`, "m").exec(text)?.[1];
    const r = nvcf("up", "--env", "dev", "--yes", "--plain");
    if (r.code !== 0) throw new Error(`nvcf up exited ${r.code}\n${r.out}\n${r.err}`);
    const out = lines(r.out);
    const pre = preflightPassed(out);
    // The preview before the update: all three stacks (the control plane is deployed), nothing to change.
    expect(out.slice(pre + 1, pre + 2 + 3)).toEqual([
      "preview: dev: no changes",
      "preview: dev-gpu-a: no changes",
      "preview: dev-gpu-b: no changes",
      "preview: no changes in 3 stacks",
    ]);
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"]) {
      const first = created(up.out, s);
      expect([s, first]).toEqual([s, expect.stringMatching(/^\d+$/)]);
      expect(out).toContainEqual(
        expect.stringMatching(new RegExp(`^\\[ *\\d+s\\] ${s} +up done in \\d+m?\\d*s: ${first} unchanged$`)),
      );
    }
    expect(out.filter((l) => / release /.test(l))).toEqual([]);
    expect(out[out.length - 1]).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
  }, 900_000);

  test("restart generations roll only their releases' pods: api and OpenBao (standbys first) on dev, the operator on gpu-a", () => {
    /** Pod name → UID of every pod of a cluster, by namespace/name. */
    const pods = (context: string) =>
      Object.fromEntries(
        lines(
          run("kubectl", [
            "--context",
            context,
            "get",
            "pods",
            "-A",
            "-o",
            'go-template={{range .items}}{{.metadata.namespace}}/{{.metadata.name}} {{.metadata.uid}}{{"\\n"}}{{end}}',
          ]).stdout,
        ).map((l) => l.split(" ") as [string, string]),
      );
    const before = {
      dev: pods("kwok-nvcf-dev"),
      gpuA: pods("kwok-nvcf-gpu-a"),
      gpuB: pods("kwok-nvcf-gpu-b"),
    };
    const set = (stack: string, release: string) =>
      run("pulumi", [
        "config",
        "set",
        "--path",
        `nvcf:restarts.${release}`,
        "1",
        "-s",
        stack,
        "--non-interactive",
      ]);
    set("dev", "api");
    set("dev", "openbao-server");
    set("dev-gpu-a", "nvca-operator");
    const r = nvcf("up", "--env", "dev", "--yes", "--plain");
    if (r.code !== 0) throw new Error(`nvcf up exited ${r.code}\n${r.out}\n${r.err}`);
    const after = {
      dev: pods("kwok-nvcf-dev"),
      gpuA: pods("kwok-nvcf-gpu-a"),
      gpuB: pods("kwok-nvcf-gpu-b"),
    };
    /** The pods of `b` (before) that `match` selects and that are gone or have another UID in `a` (after). */
    const replaced = (
      b: Record<string, string>,
      a: Record<string, string>,
      match: (pod: string) => boolean,
    ) =>
      Object.keys(b)
        .filter(match)
        .filter((k) => a[k] !== b[k])
        .sort();
    const api = (k: string) => /^nvcf\/nvcf-api-/.test(k); // Deployment nvcf-api (NVIDIA control-plane-operations.md)
    const bao = (k: string) => /^vault-system\/openbao-server-\d+$/.test(k);
    // The release's other workload: the agent injector's Deployment, restarted with it.
    const baoRelease = (k: string) => /^vault-system\/openbao-server-/.test(k);
    const operator = (k: string) => /^nvca-operator\/nvca-operator-/.test(k);
    expect(replaced(before.dev, after.dev, api).length).toBeGreaterThan(0);
    expect(replaced(before.dev, after.dev, bao)).toEqual(Object.keys(before.dev).filter(bao).sort());
    expect(replaced(before.gpuA, after.gpuA, operator).length).toBeGreaterThan(0);
    // Every other pod kept (hook Jobs' pods aside: none runs in an update that changes no release).
    expect(
      replaced(before.dev, after.dev, (k) => /^vault-system\/openbao-server-agent-injector-/.test(k)).length,
    ).toBeGreaterThan(0);
    expect(replaced(before.dev, after.dev, (k) => !api(k) && !baoRelease(k))).toEqual([]);
    expect(replaced(before.gpuA, after.gpuA, (k) => !operator(k))).toEqual([]);
    expect(replaced(before.gpuB, after.gpuB, () => true)).toEqual([]);
    // OpenBao's pods in the restart's own output: the standbys first, the active pod last, each back before the next.
    const state = JSON.parse(run("pulumi", ["stack", "export", "-s", "dev", "--non-interactive"]).stdout) as {
      deployment: { resources: { urn: string; outputs?: { stdout?: string } }[] };
    };
    const restart = state.deployment.resources.find((x) => x.urn.endsWith("::nvcf-restart-openbao-server"));
    const rotations = lines(restart?.outputs?.stdout ?? "").filter((l) => / rotating pod /.test(l));
    expect(rotations.map((l) => /\((standby|active)\)/.exec(l)?.[1])).toEqual(
      Object.keys(before.dev)
        .filter(bao)
        .map((_, i, all) => (i < all.length - 1 ? "standby" : "active")),
    );
    // The same generation again changes nothing.
    const again = nvcf("preview", "--env", "dev", "--expect-no-changes");
    expect([again.code, lines(again.out)]).toEqual([
      EXIT.ok,
      ["dev: no changes", "dev-gpu-a: no changes", "dev-gpu-b: no changes", "no changes in 3 stacks"],
    ]);
  }, 900_000);

  test("MEK rotation as config: generation 1 rotates once in the cluster, the same does nothing, a lower is refused", () => {
    const kube = (...args: string[]) =>
      run("kubectl", ["--context", "kwok-nvcf-dev", "-n", "vault-system", ...args]);
    const token = Buffer.from(
      kube("get", "secret", "openbao-server-root-token", "-o", "jsonpath={.data.root_token}").stdout,
      "base64",
    ).toString("utf8");
    // The token reaches the stand-in bao on standard input, as the program's script passes it.
    const bao = (...args: string[]) => {
      const r = spawnSync(
        "kubectl",
        [
          "--context",
          "kwok-nvcf-dev",
          "-n",
          "vault-system",
          "exec",
          "-i",
          "openbao-server-0",
          "-c",
          "openbao",
          "--",
          "sh",
          "-c",
          `IFS= read -r VAULT_TOKEN; export VAULT_TOKEN; bao kv ${args.join(" ")}`,
        ],
        { env, encoding: "utf8", input: `${token}\n` },
      );
      if (r.status !== 0) throw new Error(`bao kv ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
      return r.stdout;
    };
    const PATH = "services/all/kv/encryption/keys/stored_data";
    const kids = () =>
      (
        JSON.parse(Buffer.from(bao("get", "-field=keys", PATH), "base64").toString("utf8")) as {
          keys: { kid: string }[];
        }
      ).keys.map((k) => k.kid);
    // What NVIDIA's migration left at install: one key, a time-based kid.
    const installedKid = bao("get", "-field=current_kid", PATH);
    expect(installedKid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(kids()).toEqual([installedKid]);

    // The preview names the rotation: the program's line, and the Command that changes.
    run("pulumi", ["config", "set", "-s", "dev", "--path", "nvcf:openbao.mekGeneration", "1"]);
    const p = run("pulumi", ["preview", "-s", "dev", "--diff"]);
    expect(p.stdout).toMatch(/\+ command:local:Command: \(create\)\n\s+\[urn=\S+::nvcf-mek-rotation\]/);
    // The program's line about the stack, as nvcf preview lists it (the engine's info diagnostics of the stack).
    const named = nvcf("preview", "--env", "dev", "--stack", "dev");
    expect(named.code).toBe(EXIT.ok);
    expect(named.out).toContain("MEK rotation: generation none → 1");

    const r = nvcf("up", "--env", "dev", "--stack", "dev", "--yes", "--plain");
    if (r.code !== 0) throw new Error(`nvcf up exited ${r.code}\n${r.out}\n${r.err}`);
    const out = lines(r.out);
    expect(out[out.length - 1]).toMatch(/^verification: (\d+) checks, \d+ passed, 0 failed, 1 warnings?$/);
    expect(out).toContainEqual(
      expect.stringMatching(
        /^WARN dev: ConfigMap vault-system\/nvcf-mek-rotation \(openbao\.mek-grace\): found MEK generation 1 \(kid [0-9a-f-]{36}\) was rotated at \S+Z; ESS encrypts with it from \S+Z \(in about 4[78] h\)/,
      ),
    );
    // In the cluster: a new key first, the installed one kept, current_kid the new one; the backup and the record.
    const now = kids();
    expect(now).toHaveLength(2);
    expect(now[1]).toBe(installedKid);
    expect(bao("get", "-field=current_kid", PATH)).toBe(now[0]);
    const record = JSON.parse(kube("get", "configmap", "nvcf-mek-rotation", "-o", "json").stdout) as {
      data: Record<string, string>;
    };
    expect(record.data).toMatchObject({
      generation: "1",
      kid: now[0],
      backup: "nvcf-mek-backup-1",
      pending: "",
    });
    const backup = JSON.parse(
      Buffer.from(
        kube("get", "secret", "nvcf-mek-backup-1", "-o", "jsonpath={.data.stored_data\\.json}").stdout,
        "base64",
      ).toString("utf8"),
    ) as { data: { data: Record<string, string> } };
    expect(backup.data.data["current_kid"]).toBe(installedKid);
    expect(run("pulumi", ["stack", "output", "-s", "dev", "mekGeneration"]).stdout.trim()).toBe("1");
    // No key material in the output of the run.
    for (const k of JSON.parse(Buffer.from(bao("get", "-field=keys", PATH), "base64").toString("utf8"))
      .keys as {
      k: string;
    }[])
      expect(r.out + r.err).not.toContain(k.k);

    // The same generation again: nothing to change.
    const again = nvcf("preview", "--env", "dev", "--stack", "dev", "--expect-no-changes");
    expect(again.code).toBe(EXIT.ok);
    // Generation 2 rotates again, keeping both earlier keys; then 1 is refused before anything is touched (the
    // program never removes keys).
    run("pulumi", ["config", "set", "-s", "dev", "--path", "nvcf:openbao.mekGeneration", "2"]);
    const two = nvcf("up", "--env", "dev", "--stack", "dev", "--yes", "--plain");
    if (two.code !== 0) throw new Error(`nvcf up exited ${two.code}\n${two.out}\n${two.err}`);
    expect(kids().slice(1)).toEqual(now);
    run("pulumi", ["config", "set", "-s", "dev", "--path", "nvcf:openbao.mekGeneration", "1"]);
    const refused = nvcf("preview", "--env", "dev", "--stack", "dev");
    run("pulumi", ["config", "set", "-s", "dev", "--path", "nvcf:openbao.mekGeneration", "2"]);
    expect(refused.code).toBe(EXIT.config);
    expect(refused.out + refused.err).toContain(
      "nvcf:openbao.mekGeneration: expected 2 or higher: generation 2 is deployed and the program never removes keys",
    );
    expect(kids()).toHaveLength(3);

    // Past the 48 h grace (the record's time moved back), status passes and names the key ESS encrypts with.
    const past = new Date(Date.now() - 49 * 3600 * 1000).toISOString().replace(/\.\d+Z$/, "Z");
    expect(
      kube(
        "patch",
        "configmap",
        "nvcf-mek-rotation",
        "--type=merge",
        "-p",
        JSON.stringify({ data: { rotated_at: past } }),
      ).status,
    ).toBe(0);
    const st = nvcf("status", "--env", "dev");
    expect(st.code).toBe(EXIT.ok);
    expect(lines(st.out).pop()).toMatch(/^status: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
  }, 900_000);

  test("nvcf up --stack verifies the control plane and the stacks it brought up, not a GPU cluster left out", () => {
    run("pulumi", ["destroy", "--yes", "--skip-preview", "-s", "dev-gpu-b", "--non-interactive"]);
    expect(resources("dev-gpu-b")).toEqual([]);
    // dev-gpu-b is not deployed: verifying it would wait for its operator until --verify-seconds ran out (exit 6).
    const a = nvcf(
      "up",
      "--env",
      "dev",
      "--stack",
      "dev-gpu-a",
      "--yes",
      "--plain",
      "--verify-seconds",
      "30",
    );
    if (a.code !== 0) throw new Error(`nvcf up exited ${a.code}\n${a.out}\n${a.err}`);
    const out = lines(a.out);
    preflightPassed(out);
    expect(out.filter((l) => /^\[ *\d+s\] /.test(l))).toEqual([
      expect.stringMatching(/^\[ *\d+s\] dev-gpu-a +up started$/),
      expect.stringMatching(/^\[ *\d+s\] dev-gpu-a +up done in \d+m?\d*s: \d+ unchanged$/),
    ]);
    expect(out[out.length - 1]).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
    expect(a.out).not.toMatch(/not healthy yet/);
    // One GPU cluster from nothing through the command (the program runs inside it), verified with the rest.
    const b = nvcf("up", "--env", "dev", "--stack", "dev-gpu-b", "--yes", "--plain");
    if (b.code !== 0) throw new Error(`nvcf up exited ${b.code}\n${b.out}\n${b.err}`);
    expect(lines(b.out)).toContainEqual(
      expect.stringMatching(/^\[ *\d+s\] dev-gpu-b +up done in \d+m?\d*s: \d+ created$/),
    );
    expect(lines(b.out).pop()).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
  }, 900_000);

  test("destroying the control plane alone while GPU clusters are deployed is refused (exit 5), nothing touched", () => {
    const count = resources("dev").length;
    const r = nvcf("destroy", "--env", "dev", "--stack", "dev", "--yes", "--plain");
    expect(r.code).toBe(EXIT.deployment);
    expect(lines(r.err)).toEqual([
      "error: refusing to destroy control-plane stack dev: compute-plane stack(s) dev-gpu-a, dev-gpu-b still have " +
        "resources and reference it. Nothing was changed. Fix: nvcf destroy --env dev (destroys them first), or " +
        "nvcf destroy --env dev --stack dev-gpu-a --stack dev-gpu-b first",
    ]);
    expect(resources("dev").length).toBe(count);
  }, 120_000);

  test("nvcf destroy --env dev --yes: GPU clusters first, then the control plane; no stack namespace is left", () => {
    for (const c of CONTEXTS) expect([c, observabilityCrds(c).length > 0]).toEqual([c, true]);
    const r = nvcf("destroy", "--env", "dev", "--yes", "--plain");
    if (r.code !== 0) throw new Error(`nvcf destroy exited ${r.code}\n${r.out}\n${r.err}`);
    const out = lines(r.out);
    const at = (re: RegExp) => out.findIndex((l) => re.test(l));
    const devStart = at(/^\[ *\d+s\] dev +destroy started$/);
    for (const s of ["dev-gpu-a", "dev-gpu-b"]) {
      const done = at(new RegExp(`^\\[ *\\d+s\\] ${s} +destroy done in \\d+m?\\d*s: \\d+ deleted$`));
      expect(done).toBeGreaterThanOrEqual(0);
      expect(done).toBeLessThan(devStart);
      expect(
        at(new RegExp(`^\\[ *\\d+s\\] ${s} +release nvca-operator uninstalled \\(\\d+m?\\d*s\\)$`)),
      ).toBeLessThan(done);
      // The observability stack in order: the collector object and the monitors before the operators and CRDs.
      const uninstalled = (rel: string) =>
        at(new RegExp(`^\\[ *\\d+s\\] ${s} +release ${rel} uninstalled \\(\\d+m?\\d*s\\)$`));
      const uninstalling = (rel: string) =>
        at(new RegExp(`^\\[ *\\d+s\\] ${s} +release ${rel} uninstalling$`));
      for (const rel of OBSERVABILITY) expect([s, rel, uninstalled(rel) >= 0]).toEqual([s, rel, true]);
      expect(uninstalling("opentelemetry-operator")).toBeGreaterThan(uninstalled("otel-collector"));
      for (const rel of ["opentelemetry-operator", "victoria-metrics", "otel-collector", "default-monitors"])
        expect([s, rel, uninstalling("prometheus-operator-crds") > uninstalled(rel)]).toEqual([s, rel, true]);
    }
    expect(at(/^\[ *\d+s\] dev +destroy done in \d+m?\d*s: \d+ deleted$/)).toBeGreaterThan(devStart);
    // Every namespace is gone, none left Terminating (a Terminating one is still listed), and with the
    // observability releases their CRDs.
    for (const c of CONTEXTS) expect([c, namespaces(c)]).toEqual([c, before.get(c)]);
    for (const c of CONTEXTS) expect([c, observabilityCrds(c)]).toEqual([c, []]);
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"]) expect(resources(s)).toEqual([]);
  }, 900_000);
});

test("no secret appeared in plain text in anything the command printed", () => {
  const all = transcript.join("\n");
  expect(all.length).toBeGreaterThan(0);
  expect(all).not.toContain(REGISTRY_KEY);
  expect(all).not.toContain(Buffer.from(`robot:${REGISTRY_KEY}`).toString("base64"));
});
