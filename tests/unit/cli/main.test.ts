/**
 * The nvcf command line (cli/main.ts) run in-process: argument errors and their exit codes, the
 * never-wait-on-stdin rule of up/destroy when not interactive (jest's stdin is not a terminal), and the
 * refused destroy order. None of these reach the state backend or a cluster: each fails before.
 */
import * as path from "node:path";
import { loadEnvironment } from "../../../cli/environment";
import { nvcf } from "../support/cliRun";
import { CliError } from "../../../cli/report";
import { EXIT } from "../../../cli/types";
import { checkDestroyOrder } from "../../../cli/verbs/destroy";
import { clusterIndex, registrationStepUrn } from "../../../cli/verbs/rotate";
import { selectStacks } from "../../../cli/verbs/select";

const ROOT = path.resolve(__dirname, "../../..");

/** Runs `nvcf <args>`, expects the usage exit code and returns what it printed on stderr. */
async function usageError(...args: string[]): Promise<string> {
  const r = await nvcf(...args);
  expect(r.code).toBe(EXIT.usage);
  return r.err;
}

test("no verb prints the help on stderr and is a usage error", async () => {
  const r = await nvcf();
  expect(r.code).toBe(EXIT.usage);
  expect(r.err).toMatch(/Usage: nvcf \[options\] \[command\]/);
  for (const v of [
    "preview",
    "up",
    "upgrade",
    "rehearse",
    "destroy",
    "rotate",
    "preflight",
    "status",
    "graph",
    "import-helmfile",
  ])
    expect(r.err).toMatch(new RegExp(`^\\s+${v}\\b`, "m"));
});

test("--help exits 0 and lists the exit codes", async () => {
  const r = await nvcf("--help");
  expect(r.code).toBe(EXIT.ok);
  expect(r.out).toContain(
    "Exit codes: 0 ok, 1 internal error, 2 usage, 3 config, 4 preflight, 5 deployment, 6 health, 7 drift",
  );
});

test("an unknown verb is a usage error", async () => {
  const r = await nvcf("deploy", "--env", "dev");
  expect(r.code).toBe(EXIT.usage);
  expect(r.err).toContain("error: unknown command 'deploy'");
});

test("a verb without --env is a usage error naming the option", async () => {
  const r = await nvcf("status");
  expect(r.code).toBe(EXIT.usage);
  expect(r.err).toContain("error: required option '--env <env>' not specified");
});

test("an unknown environment is a usage error listing the environments", async () => {
  const r = await nvcf("status", "--env", "staging", "--cwd", ROOT);
  expect(r.code).toBe(EXIT.usage);
  expect(r.err).toBe(`error: unknown environment "staging" in ${ROOT}. Environments: dev, prod-eks\n`);
});

test("bad option values are usage errors", async () => {
  expect(await usageError("preview", "--env", "dev", "--cwd", ROOT, "--parallel", "0")).toContain(
    "error: option '--parallel <n>' argument '0' is invalid. expected a whole number of at least 1",
  );
  expect(await usageError("graph", "--env", "dev", "--cwd", ROOT, "--format", "png")).toContain(
    "error: option '--format <format>' argument 'png' is invalid. Allowed choices are mermaid, svg.",
  );
  expect(await usageError("up", "--env", "dev", "--cwd", ROOT, "--yes", "--stack", "dev-gpu-c")).toBe(
    'error: --stack dev-gpu-c: not a stack of environment "dev". Its stacks: dev, dev-gpu-a, dev-gpu-b\n',
  );
});

test("up and destroy without --yes refuse at once when not interactive (stdin is never read)", async () => {
  for (const verb of ["up", "destroy"]) {
    const r = await nvcf(verb, "--env", "dev", "--cwd", ROOT);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toBe(
      `error: nvcf ${verb} changes clusters and needs --yes when not run from a terminal. Fix: nvcf ${verb} --env <env> --yes\n`,
    );
  }
});

describe("rotate", () => {
  test("needs --cluster, a GPU cluster of the environment, and --yes when not interactive; nothing is touched", async () => {
    expect(await usageError("rotate", "--env", "dev", "--cwd", ROOT, "--yes")).toContain(
      "error: required option '--cluster <name>' not specified",
    );
    expect(await usageError("rotate", "--env", "dev", "--cwd", ROOT, "--cluster", "gpu-c", "--yes")).toBe(
      'error: --cluster gpu-c: not a GPU cluster of environment "dev" (nvcf:gpuClusters of dev). Its GPU clusters: gpu-a, gpu-b\n',
    );
    expect(await usageError("rotate", "--env", "dev", "--cwd", ROOT, "--cluster", "gpu-a")).toBe(
      "error: nvcf rotate changes clusters and needs --yes when not run from a terminal. Fix: nvcf rotate --env <env> --yes\n",
    );
  });

  test("the position of the cluster in the stack file, and its registration step in a state", () => {
    const env = loadEnvironment(ROOT, "dev");
    expect([clusterIndex(env, "gpu-a"), clusterIndex(env, "gpu-b")]).toEqual([0, 1]);
    const urn = (t: string, n: string) => `urn:pulumi:dev::nvcf::nvcf:index:ControlPlane$${t}::${n}`;
    const resources = [
      {
        type: "nvcf:index:ClusterRegistration",
        urn: urn("nvcf:index:ClusterRegistration", "nvcf-register-gpu-b"),
      },
      {
        type: "command:local:Command",
        urn: urn("nvcf:index:ClusterRegistration$command:local:Command", "nvcf-register-gpu-b-register"),
      },
      { type: "command:local:Command", urn: urn("command:local:Command", "nvcf-teardown-guard") },
    ];
    expect(registrationStepUrn(resources, "gpu-b")).toBe(resources[1].urn);
    expect(registrationStepUrn(resources, "gpu-a")).toBeUndefined();
  });
});

describe("destroy order", () => {
  const env = loadEnvironment(ROOT, "dev");
  const deployed = new Map([
    ["dev", 60],
    ["dev-gpu-a", 12],
    ["dev-gpu-b", 0],
  ]);

  test("the control plane alone is refused while a compute plane still has resources", () => {
    let err: unknown;
    try {
      checkDestroyOrder(env, selectStacks(env, ["dev"]), deployed);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe(EXIT.deployment);
    expect((err as CliError).message).toBe(
      "refusing to destroy control-plane stack dev: compute-plane stack(s) dev-gpu-a still have resources and " +
        "reference it. Nothing was changed. Fix: nvcf destroy --env dev (destroys them first), or nvcf destroy " +
        "--env dev --stack dev-gpu-a first",
    );
  });

  test("with the deployed compute planes selected too, or only compute planes, the order is fine", () => {
    expect(() => checkDestroyOrder(env, selectStacks(env, ["dev", "dev-gpu-a"]), deployed)).not.toThrow();
    expect(() => checkDestroyOrder(env, selectStacks(env, ["dev-gpu-a"]), deployed)).not.toThrow();
    expect(() => checkDestroyOrder(env, selectStacks(env), deployed)).not.toThrow();
  });
});
