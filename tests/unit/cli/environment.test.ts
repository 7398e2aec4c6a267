/**
 * Environment discovery (cli/environment.ts) on the repository's own example stack files, and on small
 * stack files written to a temporary directory for the error cases.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  listEnvironments,
  loadEnvironment,
  readStackFiles,
  referencesControl,
} from "../../../cli/environment";
import { CliError } from "../../../cli/report";
import { EXIT } from "../../../cli/types";

const ROOT = path.resolve(__dirname, "../../..");

/** The CliError a call throws (fails the test when it throws nothing or something else). */
function cliError(fn: () => unknown): CliError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CliError) return e;
    throw e;
  }
  throw new Error("expected a CliError");
}

function tempProject(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cli-env-"));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("the repository's example stacks", () => {
  test("dev is the control plane dev and its two GPU clusters, in cluster-name order", () => {
    const env = loadEnvironment(ROOT, "dev");
    expect(env.name).toBe("dev");
    expect(env.projectDir).toBe(ROOT);
    expect(env.control).toMatchObject({
      stack: "dev",
      plane: "control",
      file: path.join(ROOT, "Pulumi.dev.yaml"),
    });
    expect(env.compute.map((s) => [s.stack, s.plane, s.config["clusterName"]])).toEqual([
      ["dev-gpu-a", "compute", "gpu-a"],
      ["dev-gpu-b", "compute", "gpu-b"],
    ]);
    // Config as written, without the namespace, secure values untouched.
    expect(env.control.config["kubernetes"]).toEqual({ context: "kwok-nvcf-dev" });
    expect(env.control.config["registryKey"]).toEqual({ secure: expect.stringMatching(/^v1:/) });
    expect(env.compute[0].config["controlPlaneStack"]).toBe("organization/nvcf/dev");
  });

  test("prod-eks has its own GPU cluster, referenced under another organization", () => {
    const env = loadEnvironment(ROOT, "prod-eks");
    expect(env.compute.map((s) => s.stack)).toEqual(["prod-gpu-east-1"]);
    expect(listEnvironments(ROOT)).toEqual(["dev", "prod-eks"]);
  });

  test("an unknown environment is a usage error listing the environments that exist", () => {
    const e = cliError(() => loadEnvironment(ROOT, "staging"));
    expect(e.code).toBe(EXIT.usage);
    expect(e.message).toBe(`unknown environment "staging" in ${ROOT}. Environments: dev, prod-eks`);
  });

  test("a compute-plane stack is not an environment; the error names the one it belongs to", () => {
    const e = cliError(() => loadEnvironment(ROOT, "dev-gpu-a"));
    expect(e.code).toBe(EXIT.usage);
    expect(e.message).toBe(
      '"dev-gpu-a" is a compute-plane stack of environment "dev", not an environment. Environments: dev, prod-eks',
    );
  });
});

describe("references and stack files", () => {
  test("controlPlaneStack may name the control stack bare, with an organization, or fully qualified", () => {
    expect(referencesControl("dev", "nvcf", "dev")).toBe(true);
    expect(referencesControl("acme/dev", "nvcf", "dev")).toBe(true);
    expect(referencesControl("acme/nvcf/dev", "nvcf", "dev")).toBe(true);
    expect(referencesControl("acme/other-project/dev", "nvcf", "dev")).toBe(false);
    expect(referencesControl("acme/nvcf/dev2", "nvcf", "dev")).toBe(false);
    expect(referencesControl(undefined, "nvcf", "dev")).toBe(false);
  });

  test("a stack file without nvcf:plane is a control plane (the Pulumi.yaml default); others are ignored", () => {
    const dir = tempProject({
      "Pulumi.yaml": "name: nvcf\nruntime: nodejs\n",
      "Pulumi.a.yaml": "config:\n  nvcf:domain: a.test\n",
      "Pulumi.a-gpu.yaml":
        "config:\n  nvcf:plane: compute\n  nvcf:controlPlaneStack: a\n  nvcf:clusterName: z\n  other:key: 1\n",
      "Pulumi.b-gpu.yaml": "config:\n  nvcf:plane: compute\n  nvcf:controlPlaneStack: organization/nvcf/b\n",
      "notes.yaml": "not: a stack\n",
    });
    const env = loadEnvironment(dir, "a");
    expect(env.control.plane).toBe("control");
    expect(env.compute.map((s) => s.stack)).toEqual(["a-gpu"]);
    expect(env.compute[0].config).toEqual({ plane: "compute", controlPlaneStack: "a", clusterName: "z" });
    expect(readStackFiles(dir).map((s) => s.stack)).toEqual(["a", "a-gpu", "b-gpu"]);
  });

  test("a directory without Pulumi.yaml is a usage error that says where to run from", () => {
    const dir = tempProject({ "Pulumi.dev.yaml": "config: {}\n" });
    const e = cliError(() => loadEnvironment(dir, "dev"));
    expect(e.code).toBe(EXIT.usage);
    expect(e.message).toBe(
      `no Pulumi.yaml in ${dir}. Fix: run nvcf from the project directory, or pass --cwd <project directory>`,
    );
  });

  test("a plane other than control or compute is a config error naming the stack and the fix", () => {
    const dir = tempProject({
      "Pulumi.yaml": "name: nvcf\n",
      "Pulumi.x.yaml": "config:\n  nvcf:plane: gpu\n",
    });
    const e = cliError(() => loadEnvironment(dir, "x"));
    expect(e.code).toBe(EXIT.config);
    expect(e.message).toBe(
      'stack "x" (Pulumi.x.yaml): nvcf:plane: expected "control" or "compute", found "gpu". Fix: pulumi config set -s x nvcf:plane <control|compute>',
    );
  });
});
