/**
 * Environment discovery from the stack files of a project directory: which stacks make up an environment.
 * Reads files only (js-yaml); never the state backend, a cluster or a secret.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { CliError } from "./report";
import type { Plane } from "../catalog/releases";
import { EXIT, type Environment, type StackFile } from "./types";

/** `Pulumi.<stack>.yaml`, but not `Pulumi.yaml` itself. */
const STACK_FILE = /^Pulumi\.(.+)\.ya?ml$/;

/**
 * The project name from `<projectDir>/Pulumi.yaml` (its `name:`). Throws `CliError` (EXIT.usage) when the
 * directory holds no `Pulumi.yaml`, so a command run from the wrong directory says so.
 */
export function projectName(projectDir: string): string {
  const file = path.join(projectDir, "Pulumi.yaml");
  if (!fs.existsSync(file)) {
    throw new CliError(
      EXIT.usage,
      `no Pulumi.yaml in ${projectDir}. Fix: run nvcf from the project directory, or pass --cwd <project directory>`,
    );
  }
  const doc = yaml.load(fs.readFileSync(file, "utf8")) as { name?: unknown } | null;
  return typeof doc?.name === "string" ? doc.name : path.basename(projectDir);
}

/**
 * Every stack file of the project directory, sorted by stack name. `plane` is the file's `nvcf:plane`
 * (`control` when absent: the default Pulumi.yaml declares). `config` holds the `nvcf:` keys without the
 * prefix, exactly as written (secure values stay `{ secure: … }`). Throws `CliError` (EXIT.config) naming the
 * file when one is not valid YAML or declares a plane other than control or compute.
 */
export function readStackFiles(projectDir: string): StackFile[] {
  const dir = path.resolve(projectDir);
  const out: StackFile[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const m = STACK_FILE.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    let doc: { config?: Record<string, unknown> } | null;
    try {
      doc = yaml.load(fs.readFileSync(file, "utf8")) as typeof doc;
    } catch (e) {
      throw new CliError(EXIT.config, `${name} is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
    }
    const config: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(doc?.config ?? {})) {
      if (k.startsWith("nvcf:")) config[k.slice("nvcf:".length)] = v;
    }
    const plane = config["plane"] ?? "control";
    if (plane !== "control" && plane !== "compute") {
      throw new CliError(
        EXIT.config,
        `stack "${m[1]}" (${name}): nvcf:plane: expected "control" or "compute", found ${JSON.stringify(plane)}. ` +
          `Fix: pulumi config set -s ${m[1]} nvcf:plane <control|compute>`,
      );
    }
    out.push({ stack: m[1], file, plane: plane as Plane, config });
  }
  return out.sort((a, b) => a.stack.localeCompare(b.stack));
}

/**
 * True when a compute stack's `nvcf:controlPlaneStack` value names the control stack `control` of project
 * `project`: the bare stack name, `<org>/<stack>`, or `<org>/<project>/<stack>` (any organization: the
 * backend decides it, a file backend's is `organization`).
 */
export function referencesControl(ref: unknown, project: string, control: string): boolean {
  if (typeof ref !== "string") return false;
  const parts = ref.split("/");
  if (parts.length === 1 || parts.length === 2) return parts[parts.length - 1] === control;
  if (parts.length === 3) return parts[1] === project && parts[2] === control;
  return false;
}

/** The environments of a project directory: the names of its control-plane stacks, sorted. */
export function listEnvironments(projectDir: string): string[] {
  return readStackFiles(projectDir)
    .filter((s) => s.plane === "control")
    .map((s) => s.stack);
}

/**
 * The environment `env` of the project in `projectDir`: the control-plane stack `Pulumi.<env>.yaml`
 * (`nvcf:plane: control`) and every stack file with `nvcf:plane: compute` whose `nvcf:controlPlaneStack`
 * names it (see `referencesControl`), sorted by `nvcf:clusterName` (then stack name).
 *
 * Errors (`CliError`, EXIT.usage): no `Pulumi.yaml`; no stack file `env`, or `env` is a compute-plane stack.
 * The message lists the environments that exist.
 */
export function loadEnvironment(projectDir: string, env: string): Environment {
  const dir = path.resolve(projectDir);
  const project = projectName(dir);
  const files = readStackFiles(dir);
  const control = files.find((s) => s.stack === env);
  const known = files.filter((s) => s.plane === "control").map((s) => s.stack);
  const list = known.length ? known.join(", ") : "none (no Pulumi.<stack>.yaml with nvcf:plane control)";
  if (!control) {
    throw new CliError(EXIT.usage, `unknown environment "${env}" in ${dir}. Environments: ${list}`);
  }
  if (control.plane !== "control") {
    const parent = String(control.config["controlPlaneStack"] ?? "")
      .split("/")
      .pop();
    throw new CliError(
      EXIT.usage,
      `"${env}" is a compute-plane stack${parent ? ` of environment "${parent}"` : ""}, not an environment. ` +
        `Environments: ${list}`,
    );
  }
  const clusterName = (s: StackFile) =>
    typeof s.config["clusterName"] === "string" ? (s.config["clusterName"] as string) : s.stack;
  const compute = files
    .filter((s) => s.plane === "compute" && referencesControl(s.config["controlPlaneStack"], project, env))
    .sort((a, b) => clusterName(a).localeCompare(clusterName(b)) || a.stack.localeCompare(b.stack));
  return { name: env, projectDir: dir, control, compute };
}
