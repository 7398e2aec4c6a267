/**
 * `nvcf upgrade` (cli/verbs/upgrade.ts) without a backend or a cluster: its arguments and the refusals that come
 * before anything is read, the decision it makes from what the backend holds (start, resume, done, a stack file
 * naming a third bundle), the config at the target with the `--set` changes, and the step lines it (and `nvcf up`) shows (cli/progress.ts `stepLines`).
 */
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { loadEnvironment } from "../../../../cli/environment";
import { nvcf } from "../../support/cliRun";
import { CliError } from "../../../../cli/report";
import { EXIT } from "../../../../cli/types";
import {
  type DeployedStack,
  configAtTarget,
  environmentAsDeployed,
  parseSettings,
  upgradeDecision,
} from "../../../../cli/verbs/upgrade";
import { stepLines } from "../../../../cli/progress";
import { upgradePlanLines } from "../../../../cli/verbs/preview";
import { parseRaw } from "../../../../config/load";

const ROOT = path.resolve(__dirname, "../../../..");
const env = loadEnvironment(ROOT, "dev");

describe("arguments", () => {
  test("--to is required, and must be a bundle this program knows", async () => {
    const none = await nvcf("upgrade", "--env", "dev", "--cwd", ROOT, "--yes");
    expect(none.code).toBe(EXIT.usage);
    expect(none.err).toContain("error: required option '--to <bundle>' not specified");
    const bad = await nvcf("upgrade", "--env", "dev", "--cwd", ROOT, "--yes", "--to", "0.9.0");
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err).toBe(
      "error: --to 0.9.0: not a bundle this program knows. Bundles: 0.6.1, 0.7.0, 0.8.0\n",
    );
  });

  test("without --yes it refuses at once when not interactive (stdin is never read)", async () => {
    const r = await nvcf("upgrade", "--env", "dev", "--cwd", ROOT, "--to", "0.8.0");
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toBe(
      "error: nvcf upgrade changes clusters and needs --yes when not run from a terminal. Fix: nvcf upgrade --env <env> --yes\n",
    );
  });

  test("the verb is listed in the help", async () => {
    const r = await nvcf("--help");
    expect(r.out).toMatch(
      /^\s+upgrade \[options\]\s+move the deployed environment to another NVCF\s+bundle/m,
    );
  });

  test("--set: <stack>:<key>=<value>, a stack of the environment, not the keys the upgrade sets itself", () => {
    expect(
      parseSettings(
        [
          "dev-gpu-b:addons.kaiScheduler.enabled=true",
          "dev-gpu-b:nvcf:addons.topologyAwareScheduling.enabled=true",
        ],
        env,
      ),
    ).toEqual([
      { stack: "dev-gpu-b", key: "addons.kaiScheduler.enabled", value: "true" },
      { stack: "dev-gpu-b", key: "addons.topologyAwareScheduling.enabled", value: "true" },
    ]);
    const usage = (list: string[]) => {
      try {
        parseSettings(list, env);
      } catch (e) {
        expect(e).toBeInstanceOf(CliError);
        expect((e as CliError).code).toBe(EXIT.usage);
        return (e as CliError).message;
      }
      throw new Error("expected a usage error");
    };
    expect(usage(["addons.kaiScheduler.enabled=true"])).toMatch(/expected <stack>:<key>=<value>/);
    expect(usage(["dev-gpu-c:x=1"])).toBe(
      '--set dev-gpu-c:x=1: dev-gpu-c is not a stack of environment "dev". Its stacks: dev, dev-gpu-a, dev-gpu-b',
    );
    expect(usage(["dev:bundleVersion=0.8.0"])).toMatch(
      /nvcf:bundleVersion is not set with --set \(--to sets the bundle\)/,
    );
  });
});

describe("the decision from what the backend holds", () => {
  const at = (i: number, fileBundle: string, bundle?: string, deployed = true): DeployedStack => ({
    file: [env.control, ...env.compute][i],
    fileBundle,
    deployed,
    outputs: bundle ? { bundleVersion: bundle } : {},
    ...(bundle ? { bundle } : {}),
  });

  test("a fresh start: every stack at the source, files at the source", () => {
    const d = upgradeDecision(
      [at(0, "0.7.0", "0.7.0"), at(1, "0.7.0", "0.7.0"), at(2, "0.7.0", "0.7.0")],
      "0.8.0",
      "dev",
    );
    expect(d).toMatchObject({ done: false, resuming: false, notDeployed: [], problems: [] });
    expect(d.moving.map((s) => s.file.stack)).toEqual(["dev", "dev-gpu-a", "dev-gpu-b"]);
  });

  test("resuming: the files name the target, the control plane's outputs still the source", () => {
    const d = upgradeDecision(
      [at(0, "0.8.0", "0.7.0"), at(1, "0.8.0", "0.7.0"), at(2, "0.8.0", "0.7.0")],
      "0.8.0",
      "dev",
    );
    expect(d.resuming).toBe(true);
  });

  test("resuming after the control plane finished: only the GPU clusters are left", () => {
    const d = upgradeDecision(
      [at(0, "0.8.0", "0.8.0"), at(1, "0.8.0", "0.8.0"), at(2, "0.8.0", "0.7.0")],
      "0.8.0",
      "dev",
    );
    expect(d.resuming).toBe(true);
    expect(d.moving.map((s) => s.file.stack)).toEqual(["dev-gpu-b"]);
  });

  test("done: every deployed stack at the target; a stack never deployed is named, not moved", () => {
    const d = upgradeDecision(
      [at(0, "0.8.0", "0.8.0"), at(1, "0.8.0", "0.8.0"), at(2, "0.7.0", undefined, false)],
      "0.8.0",
      "dev",
    );
    expect(d.done).toBe(true);
    expect(d.notDeployed).toEqual(["dev-gpu-b"]);
  });

  test("a stack file naming a third bundle is a refusal", () => {
    const d = upgradeDecision(
      [at(0, "0.6.1", "0.7.0"), at(1, "0.7.0", "0.7.0"), at(2, "0.7.0", "0.7.0")],
      "0.8.0",
      "dev",
    );
    expect(d.problems).toEqual([
      "stack dev: its stack file names NVCF bundle 0.6.1, but it is deployed at 0.7.0: set nvcf:bundleVersion back to 0.7.0 (pulumi config set -s dev nvcf:bundleVersion 0.7.0) before upgrading to 0.8.0",
    ]);
  });

  test("health before the move judges each stack at its deployed bundle, not at the bundle its file names", () => {
    // dev-gpu-b's file already names the target; everything is deployed at the source.
    const stacks = [at(0, "0.7.0", "0.7.0"), at(1, "0.7.0", "0.7.0"), at(2, "0.8.0", "0.7.0")];
    const before = JSON.stringify([env.control, ...env.compute].map((f) => f.config));
    const d = environmentAsDeployed(env, stacks);
    expect([d.control, ...d.compute].map((f) => [f.stack, f.config["bundleVersion"]])).toEqual([
      ["dev", "0.7.0"],
      ["dev-gpu-a", "0.7.0"],
      ["dev-gpu-b", "0.7.0"],
    ]);
    // The stack files themselves are left as they are; a GPU cluster never deployed is not judged.
    expect(JSON.stringify([env.control, ...env.compute].map((f) => f.config))).toBe(before);
    const notYet = environmentAsDeployed(env, [stacks[0], stacks[1], at(2, "0.8.0", undefined, false)]);
    expect(notYet.compute.map((f) => f.stack)).toEqual(["dev-gpu-a"]);
  });

  test("a control plane never deployed: nothing to upgrade, nvcf up installs", () => {
    let e: unknown;
    try {
      upgradeDecision([at(0, "0.7.0", undefined, false)], "0.8.0", "dev");
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).code).toBe(EXIT.deployment);
    expect((e as CliError).message).toMatch(
      /^control-plane stack dev is not deployed: there is nothing to upgrade\. Nothing was changed\. Fix: nvcf up --env dev/,
    );
  });
});

test("the config at the target: the bundle, top-level keys and key paths (list indexes, quoted keys) into their object", () => {
  const raw = {
    bundleVersion: "0.7.0",
    addons: JSON.stringify({ groveOperator: { enabled: true } }),
    domain: "a",
  };
  expect(
    configAtTarget(
      raw,
      "0.8.0",
      [
        { stack: "dev-gpu-b", key: "addons.kaiScheduler.enabled", value: "true" },
        { stack: "dev-gpu-b", key: "domain", value: "b" },
        { stack: "dev-gpu-b", key: "placement.tolerations[0].key", value: "gpu" },
        { stack: "dev-gpu-b", key: 'releaseValues["nvca-operator"]["a.b"]', value: "1" },
      ],
      parseRaw,
    ),
  ).toEqual({
    bundleVersion: "0.8.0",
    addons: JSON.stringify({ groveOperator: { enabled: true }, kaiScheduler: { enabled: true } }),
    domain: "b",
    placement: JSON.stringify({ tolerations: [{ key: "gpu" }] }),
    releaseValues: JSON.stringify({ "nvca-operator": { "a.b": 1 } }),
  });
});

test("step lines: what an upgrade step printed, from its outputs event; other resources and unchanged steps ignored", () => {
  const ev = (name: string, type: string, op: string, stdout: string) =>
    ({
      resOutputsEvent: {
        metadata: { urn: `urn:pulumi:dev::nvcf::${type}::${name}`, type, op, new: { outputs: { stdout } } },
      },
    }) as unknown as EngineEvent;
  const got: string[] = [];
  stepLines(ev("nvcf-cassandra-adoption-prepare", "command:local:Command", "create", "a\n\nb"), (l) =>
    got.push(l),
  );
  stepLines(ev("nvcf-teardown-guard", "command:local:Command", "create", "x"), (l) => got.push(l));
  stepLines(ev("nvcf-openbao-rollout", "command:local:Command", "same", "y"), (l) => got.push(l));
  expect(got).toEqual(["step cassandra-adoption-prepare: a", "step cassandra-adoption-prepare: b"]);
});

test("nvcf preview shows a moving stack's upgrade plan, from its program's info diagnostic", () => {
  const diag = (severity: string, message: string) =>
    ({ diagnosticEvent: { severity, message, color: "never" } }) as unknown as EngineEvent;
  expect(
    upgradePlanLines([
      diag("warning", "upgrade plan of stack x: not this one"),
      diag("info", "upgrade plan of stack dev: NVCF bundle 0.7.0 → 0.8.0\n  releases:\n    api  upgrade\n"),
    ]),
  ).toEqual(["upgrade plan of stack dev: NVCF bundle 0.7.0 → 0.8.0", "  releases:", "    api  upgrade"]);
  expect(upgradePlanLines([diag("info", "something else")])).toEqual([]);
});
