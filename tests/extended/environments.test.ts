/**
 * End to end, a new environment's life with the `nvcf` command as a user runs it (`npx nvcf …` in a private copy of
 * the project with its own file state backend and ICMS store), against the local kwok clusters (scripts/cluster.sh
 * up): `nvcf init` refuses to guess when nothing can be asked, then makes environment `dev-team` (control plane on
 * nvcf-dev, GPU clusters gpu-a and gpu-b, stand-in charts and registry, the registry key from an environment
 * variable), refuses to make it twice, and `nvcf up` installs it. Then `nvcf drift`: nothing after the install; a
 * release upgraded with `helm upgrade`, a Secret deleted and a Deployment scaled with kubectl behind the program's
 * back (and a Secret on a GPU cluster), of which all but the scaled Deployment are reported (exit 7) by the command
 * and by the drift step of .github/workflows/drift.yml run as the workflow runs it: a Helm release's refresh reads
 * its release record, not its objects (docs/drift.md). A plain `nvcf up` changes nothing (it compares with the
 * state); `nvcf up --refresh` puts the reported ones back and drift is clean again, while the scaled Deployment
 * stays as it was. Last, `nvcf destroy`. The environment's name starts with `dev`, so its
 * stateful releases are not protected (nvcf:protectStatefulData) and destroy removes them.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { EXIT } from "../../cli/types";
import { type E2eProject, e2eProject, resetLocalClusters } from "../e2e/project";

const ENV = "dev-team";
const STACKS = [ENV, `${ENV}-gpu-a`, `${ENV}-gpu-b`];
/** The stand-in registry's key (the one the dev stacks hold encrypted). */
const REGISTRY_KEY = "local-registry-key-for-stand-in-registry";
const HELM = process.env["NVCF_HELM"] ?? "helm";

let p: E2eProject;

/** `npx nvcf <args>` in the project copy; stdout and stderr are pipes (not a terminal), stdin is closed. */
function nvcf(...args: string[]): { code: number | null; out: string[]; err: string[] } {
  const r = p.run("npx", ["nvcf", ...args], { allowFail: true });
  const lines = (t: string) => t.split("\n").filter((l) => l.length > 0);
  return { code: r.status, out: lines(r.stdout), err: lines(r.stderr) };
}

const INIT = [
  "init",
  "--env",
  ENV,
  "--domain",
  "dev-team.test",
  "--context",
  "kwok-nvcf-dev",
  "--gpu-cluster",
  "gpu-a=kwok-nvcf-gpu-a",
  "--gpu-cluster",
  "gpu-b=kwok-nvcf-gpu-b",
  "--region",
  "gpu-b=us-east-1",
  "--registry",
  "registry.nvcf.test/nvcf/mirror",
  "--charts",
  "tests/charts",
  "--image-user",
  "robot",
  "--nvcf-cli",
  "tests/bin/nvcf-cli",
  "--set",
  `${ENV}:charts.timeoutSeconds=300`,
  "--secret",
  "registryKey=env:DEVTEAM_REGISTRY_KEY",
];

beforeAll(() => {
  resetLocalClusters(["dev", "gpu-a", "gpu-b"]);
  p = e2eProject("nvcf-e2e-environments", { env: { DEVTEAM_REGISTRY_KEY: REGISTRY_KEY } });
  delete p.env["NVCF_POLICY_PACKS"];
}, 300_000);

afterAll(() => {
  if (!p) return;
  if (fs.existsSync(path.join(p.work, `Pulumi.${ENV}.yaml`)))
    nvcf("destroy", "--env", ENV, "--yes", "--plain");
  // Nothing the command printed holds the registry key in plain text.
  expect(p.transcript.filter((t) => t.includes(REGISTRY_KEY))).toEqual([]);
  p.remove();
}, 600_000);

test("nvcf init without a terminal asks nothing: the flags still needed, exit 2, nothing written", () => {
  const r = nvcf("init", "--env", ENV, "--context", "kwok-nvcf-dev");
  expect(r.code).toBe(EXIT.usage);
  expect(r.err).toEqual([
    "error: nvcf init needs --domain, --registry, --charts. Fix: nvcf init --env dev-team --domain <the domain the " +
      "routes use, e.g. nvcf.example.com> --registry <images: <registry host>/<repository>, e.g. " +
      "nvcr.io/my-org/my-team> --charts <charts: oci://<registry>/<repository>, https://<Helm repository URL> or a " +
      "directory>",
  ]);
  expect(fs.existsSync(path.join(p.work, `Pulumi.${ENV}.yaml`))).toBe(false);
}, 120_000);

test("nvcf init makes the environment (stack files, stacks, encrypted secret, preflight), once; nvcf up installs it", () => {
  const r = nvcf(...INIT);
  expect([r.code, r.err]).toEqual([EXIT.ok, []]);
  expect(r.out[0]).toBe(`created stack ${ENV} (control plane): Pulumi.${ENV}.yaml`);
  expect(r.out.slice(1, 4)).toEqual([
    `created stack ${ENV}-gpu-a (GPU cluster gpu-a): Pulumi.${ENV}-gpu-a.yaml`,
    `created stack ${ENV}-gpu-b (GPU cluster gpu-b): Pulumi.${ENV}-gpu-b.yaml`,
    `set secret nvcf:registryKey of stack ${ENV} (encrypted by its secrets provider)`,
  ]);
  // Preflight: only the warning that the stand-in registry (under .test) cannot be tried, nothing failed.
  const summary = r.out.find((l) => l.startsWith("preflight: "));
  expect(summary).toMatch(/^preflight: (\d+) checks, \d+ passed, 0 failed, 1 warning$/);
  expect(r.out.filter((l) => l.startsWith("FAIL "))).toEqual([]);
  expect(r.out[r.out.length - 1]).toBe(`next: nvcf preview --env ${ENV}, then nvcf up --env ${ENV}`);

  // The files: the control plane's salt on every stack; the key only as ciphertext; pulumi decrypts it.
  const doc = (s: string) =>
    yaml.load(fs.readFileSync(path.join(p.work, `Pulumi.${s}.yaml`), "utf8")) as {
      config: Record<string, unknown>;
      encryptionsalt: string;
    };
  const [control, a, b] = STACKS.map(doc);
  expect([a.encryptionsalt, b.encryptionsalt]).toEqual([control.encryptionsalt, control.encryptionsalt]);
  expect(a.config["nvcf:controlPlaneStack"]).toBe(`organization/nvcf/${ENV}`);
  expect(control.config["nvcf:gpuClusters"]).toEqual([
    { name: "gpu-a", context: "kwok-nvcf-gpu-a" },
    { name: "gpu-b", region: "us-east-1", context: "kwok-nvcf-gpu-b" },
  ]);
  expect(control.config["nvcf:registryKey"]).toEqual({ secure: expect.stringMatching(/^v1:/) });
  expect(p.pulumi(ENV, ["config", "get", "nvcf:registryKey"]).stdout.trim()).toBe(REGISTRY_KEY);
  p.transcript.pop(); // the one command here that prints the key, on purpose

  const again = nvcf(...INIT);
  expect([again.code, again.err]).toEqual([
    EXIT.usage,
    [
      `error: Pulumi.${ENV}.yaml, Pulumi.${ENV}-gpu-a.yaml, Pulumi.${ENV}-gpu-b.yaml already exist: nvcf init never ` +
        "overwrites a stack file. Fix: choose another --env, or remove the file(s) after checking nothing uses them",
    ],
  ]);

  const up = nvcf("up", "--env", ENV, "--yes", "--plain");
  expect([up.code, up.err.filter((l) => !l.startsWith("WARN"))]).toEqual([EXIT.ok, []]);
  expect(up.out[up.out.length - 1]).toMatch(/^verification: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
}, 900_000);

/** The `run` of the drift step of .github/workflows/drift.yml. */
function driftStep(): string {
  const wf = yaml.load(fs.readFileSync(path.join(p.work, ".github/workflows/drift.yml"), "utf8")) as {
    jobs: { drift: { steps: { id?: string; run?: string }[] } };
  };
  const run = wf.jobs.drift.steps.find((s) => s.id === "drift")?.run;
  if (!run) throw new Error("drift.yml has no step with id drift");
  return run;
}

test("nvcf drift and the scheduled workflow's step, then nvcf up --refresh: changes behind the program's back, and what a refresh cannot see", () => {
  const clean = [
    `${ENV}: no drift`,
    `${ENV}-gpu-a: no drift`,
    `${ENV}-gpu-b: no drift`,
    "no drift in 3 stacks",
  ];
  const first = nvcf("drift", "--env", ENV);
  expect([first.code, first.out, first.err]).toEqual([EXIT.ok, clean, []]);

  const charts = path.join(p.work, "tests/charts/helm-reval");
  p.run(
    HELM,
    ["--kube-context", "kwok-nvcf-dev", "upgrade", "reval", charts, "-n", "nvcf", "--reuse-values"].concat([
      "--set",
      "reval.securityContext.runAsUser=1000",
    ]),
  );
  p.kubectl("dev", "delete", "secret", "nvcr-pull-secret", "-n", "nvcf");
  p.kubectl("dev", "scale", "deployment", "api-keys", "-n", "api-keys", "--replicas", "3");
  p.kubectl("gpu-b", "delete", "secret", "nvcr-pull-secret", "-n", "nvca-operator");

  const expected = [
    `${ENV}: 1 release and 1 other object differ`,
    "  ! release reval: changed outside the program (Helm revision 1 → 2): values.reval.securityContext.runAsUser: " +
      "65532 → 1000; nvcf up --refresh upgrades it back: values.reval.securityContext.runAsUser: 65532",
    "  - kubernetes:core/v1:Secret nvcf-pull-nvcf: deleted outside the program; nvcf up --refresh creates it again",
    `${ENV}-gpu-a: no drift`,
    `${ENV}-gpu-b: 0 releases and 1 other object differ`,
    "  - kubernetes:core/v1:Secret nvcf-pull-nvca-operator: deleted outside the program; nvcf up --refresh creates it again",
    `drift in 2 of 3 stacks: 1 release, 2 other objects. nvcf up --env ${ENV} --refresh puts it back (nvcf preview --env ${ENV} --refresh shows how)`,
  ];
  const found = nvcf("drift", "--env", ENV);
  expect([found.code, found.out, found.err]).toEqual([EXIT.drift, expected, []]);
  // Nothing was written: the state still holds revision 1 of reval, so a second check finds the same.
  expect(nvcf("drift", "--env", ENV).out).toEqual(expected);

  // The workflow's step, run as the runner runs it (bash, in the checkout, with the runner's files).
  const runner = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-runner-"));
  const summary = path.join(runner, "summary.md");
  const step = spawnSync("bash", ["-e", "-c", driftStep()], {
    cwd: p.work,
    env: { ...p.env, ENVIRONMENT: ENV, RUNNER_TEMP: runner, GITHUB_STEP_SUMMARY: summary },
    encoding: "utf8",
  });
  p.transcript.push(`$ drift step\n${step.stdout}\n${step.stderr}`);
  expect(step.status).toBe(EXIT.drift);
  expect(step.stdout.split("\n").filter(Boolean)).toEqual([
    ...expected,
    `::error title=drift in ${ENV}::${expected[expected.length - 1]}`,
  ]);
  expect(fs.readFileSync(summary, "utf8")).toBe(
    `### Drift of environment \`${ENV}\`\n\n\`\`\`\n${expected.join("\n")}\n\`\`\`\n`,
  );
  fs.rmSync(runner, { recursive: true });

  // A plain up compares with the state, which still holds what the program applied: it changes nothing.
  const plain = nvcf("up", "--env", ENV, "--yes", "--plain");
  const done = plain.out.filter((l) => / up done in /.test(l));
  expect([plain.code, done.length, done.filter((l) => !/: \d+ unchanged$/.test(l))]).toEqual([
    EXIT.ok,
    3,
    [],
  ]);
  expect(nvcf("drift", "--env", ENV).code).toBe(EXIT.drift);
  const up = nvcf("up", "--env", ENV, "--refresh", "--yes", "--plain");
  expect(up.code).toBe(EXIT.ok);
  expect(up.out.filter((l) => / release reval upgraded /.test(l))).toHaveLength(1);
  const back = nvcf("drift", "--env", ENV);
  expect([back.code, back.out]).toEqual([EXIT.ok, clean]);
  // The Deployment scaled with kubectl: not in the release record, so neither drift nor up saw or undid it.
  expect(
    p.kubectl("dev", "get", "deployment", "api-keys", "-n", "api-keys", "-o", "jsonpath={.spec.replicas}"),
  ).toBe("3");
}, 900_000);

test("nvcf destroy removes the environment made by nvcf init", () => {
  const r = nvcf("destroy", "--env", ENV, "--yes", "--plain");
  expect(r.code).toBe(EXIT.ok);
  for (const s of STACKS) {
    const exported = JSON.parse(p.pulumi(s, ["stack", "export"]).stdout) as {
      deployment: { resources?: unknown[] };
    };
    expect([s, exported.deployment.resources ?? []]).toEqual([s, []]);
  }
}, 600_000);
