/**
 * The registration's scripts (components/scripts/cluster-*.sh after the nvcf-cli runner, as components/registration.ts
 * `REGISTRATION_SCRIPTS` joins them) with a fake nvcf-cli (tests/unit/support/fakeCli.ts): the calls each action
 * makes, that the operator's NVCF_* settings reach none of them, what is printed (only the Helm values block), and
 * each failure mapped to a message naming the nvcf-cli command and the cluster, the CLI's errors redacted.
 * tests/unit/standins/nvcfCli.test.ts runs the same scripts against the stand-in nvcf-cli.
 */
import { REGISTRATION_SCRIPTS } from "../../../../components/registration";
import { CLI_CONFIG_YAML } from "../../standins/nvcfApiStandIn";
import { registerOutput, sentinelKubeconfig } from "../../support/harness";
import { type FakeCliRun, runWithFakeCli } from "../../support/fakeCli";

const KUBECONFIG = sentinelKubeconfig("gpu-a");
const ENV = {
  NVCFP_CLI_CONFIG_YAML: CLI_CONFIG_YAML,
  NVCFP_CLUSTER_NAME: "gpu-a",
  NVCFP_NCA_ID: "nvcf-default",
  NVCFP_REGION: "us-east-1",
  NVCFP_ICMS_URL: "http://203.0.113.10",
  NVCFP_API_SERVER: "https://gpu-a.example.com:6443",
  NVCFP_KUBECONFIG: KUBECONFIG,
  // The operator's shell: a setting nvcf-cli would read.
  NVCF_FOO: "from-the-operator",
  NVCF_NATS_URL: "nats://elsewhere.test:4222",
};
const OUTPUT = registerOutput("gpu-a", "us-east-1");
/** The values block the create prints and the command records (PULUMI_COMMAND_STDOUT on update and delete). */
const BLOCK = OUTPUT.slice(OUTPUT.indexOf("clusterID:"));
const ID = /^clusterID: (.*)$/m.exec(BLOCK)![1]!;
/** What a failing CLI might print: tokens and key values the runner's `redact` removes. */
const LEAKY =
  'Error: ICMS API error 401: {"detail":"bad", "token": eyJhbGciOi.eyJzdWIi.c2ln} key nvapi-Zx9_8\n';
const REDACTED = 'Error: ICMS API error 401: {"detail":"bad", "token": [redacted] key [redacted]\n';

/** Every call saw the runner's environment, none of the operator's settings. */
function expectCleared(r: FakeCliRun) {
  expect(r.calls.length).toBeGreaterThan(0);
  for (const c of r.calls) expect(Object.keys(c.env).sort()).toEqual(["HOME", "NO_COLOR"]);
  expect(r.left).toEqual([]);
}

describe("create: NVCFP_REGISTER_SCRIPT", () => {
  const run = (answers: Parameters<typeof runWithFakeCli>[2], env: Record<string, string> = {}) =>
    runWithFakeCli(REGISTRATION_SCRIPTS.NVCFP_REGISTER_SCRIPT, { ...ENV, ...env }, answers);

  test("init, then cluster register --ignore-existing with the cluster's kubeconfig; only the values block printed", () => {
    const r = run([{ command: "cluster register", stdout: OUTPUT, stderr: "[INFO] registering\n" }]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(BLOCK);
    expect(r.stderr).toBe("[INFO] registering\n");
    expect(r.calls.map((c) => c.args[0])).toEqual(["init", "cluster"]);
    const register = r.calls[1]!;
    const kubeconfig = register.args[register.args.indexOf("--kubeconfig") + 1]!;
    expect(register.args).toEqual([
      "cluster",
      "register",
      "--name",
      "gpu-a",
      "--nca-id",
      "nvcf-default",
      "--region",
      "us-east-1",
      "--icms-url",
      "http://203.0.113.10",
      "--kubeconfig",
      kubeconfig,
      "--ignore-existing",
    ]);
    expect(register.files[kubeconfig]).toBe(KUBECONFIG);
    expectCleared(r);
  });

  test("a failed register names the command, the cluster and its API server; the CLI's errors redacted", () => {
    const r = run([{ command: "cluster register", exit: 1, stderr: LEAKY }]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `nvcf-cli cluster register failed for gpu-a (API server https://gpu-a.example.com:6443):\n${REDACTED}`,
    );
    expectCleared(r);
  });

  test("a register that prints no values block fails", () => {
    const r = run([{ command: "cluster register", stdout: "Cluster ID: x\n" }]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      "",
      "nvcf-cli cluster register printed no Helm values for gpu-a\n",
    ]);
  });
});

describe("update: NVCFP_UPDATE_SCRIPT", () => {
  const run = (answers: Parameters<typeof runWithFakeCli>[2], env: Record<string, string> = {}) =>
    runWithFakeCli(
      REGISTRATION_SCRIPTS.NVCFP_UPDATE_SCRIPT,
      { ...ENV, PULUMI_COMMAND_STDOUT: BLOCK, ...env },
      answers,
    );

  test("the same values block: cluster rotate --force on the recorded ID, the block printed again", () => {
    const r = run([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${BLOCK}\n`);
    expect(r.stderr).toBe(`rotated the issuer and JWKS of gpu-a (${ID}) in ICMS; its IDs are kept\n`);
    const rotate = r.calls[1]!;
    expect(rotate.args).toEqual([
      "cluster",
      "rotate",
      "--cluster-id",
      ID,
      "--kubeconfig",
      expect.stringMatching(/\/kubeconfig$/),
      "--icms-url",
      "http://203.0.113.10",
      "--force",
    ]);
    expectCleared(r);
  });

  test("a failed rotate names the command, the cluster, its ID and API server; errors and output redacted", () => {
    const r = run([{ command: "cluster rotate", exit: 1, stderr: LEAKY, stdout: "token=abc\n" }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `nvcf-cli cluster rotate failed for gpu-a (${ID}, API server https://gpu-a.example.com:6443):\n${REDACTED}token=[redacted]\n`,
    );
    expect(r.stdout).toBe("");
  });

  test("a new region re-registers; new IDs from ICMS are said", () => {
    const again = registerOutput("gpu-a-new", "eu-west-1");
    const r = run([{ command: "cluster register", stdout: again }], { NVCFP_REGION: "eu-west-1" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(again.slice(again.indexOf("clusterID:")));
    const now = /^clusterID: (.*)$/m.exec(again)![1];
    expect(r.stderr).toBe(
      `warning: ICMS no longer had gpu-a (${ID}): it is registered again with cluster ID ${now}\n`,
    );
    expect(r.calls.map((c) => c.args.slice(0, 2))).toEqual([["init"], ["cluster", "register"]]);
    expectCleared(r);
  });

  test("another NCA id is refused; nothing but init runs", () => {
    const r = run([], { NVCFP_NCA_ID: "another-account" });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `gpu-a (${ID}) is registered in account nvcf-default; nvcf-cli cannot move a registration to account another-account keeping its IDs\n`,
    );
    expect(r.calls.map((c) => c.args)).toEqual([["init"]]);
  });
});

describe("delete: NVCFP_DEREGISTER_SCRIPT", () => {
  const run = (answers: Parameters<typeof runWithFakeCli>[2], env: Record<string, string> = {}) =>
    runWithFakeCli(
      REGISTRATION_SCRIPTS.NVCFP_DEREGISTER_SCRIPT,
      { ...ENV, PULUMI_COMMAND_STDOUT: BLOCK, ...env },
      answers,
    );

  test("cluster delete --ignore-missing of the recorded ID", () => {
    const r = run([]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `deregistered gpu-a (${ID})\n`, ""]);
    expect(r.calls[1]!.args).toEqual([
      "cluster",
      "delete",
      "--cluster-id",
      ID,
      "--nca-id",
      "nvcf-default",
      "--ignore-missing",
    ]);
    expectCleared(r);
  });

  test("a failed delete names the command, the cluster and its ID; errors redacted", () => {
    const r = run([{ command: "cluster delete", exit: 1, stderr: LEAKY }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nvcf-cli cluster delete failed for gpu-a (${ID}):\n${REDACTED}`);
  });

  test("nothing recorded: nothing to deregister", () => {
    const r = run([], { PULUMI_COMMAND_STDOUT: "" });
    expect([r.code, r.stderr]).toEqual([0, "no recorded clusterID for gpu-a; nothing to deregister\n"]);
    expect(r.calls.map((c) => c.args)).toEqual([["init"]]);
  });
});
