/**
 * `nvcf preflight`, `nvcf status` and `nvcf graph`: thin verbs over the check and graph library functions
 * (cli/preflight, cli/health, cli/graph.ts). Each prints through cli/report.ts and returns its exit code.
 */
import * as fs from "node:fs";
import { printFindings } from "../report";
import { EXIT, type Environment, type ExitCode } from "../types";

/** Options of `nvcf preflight` and `nvcf status`. */
export interface CheckOptions {
  kubeconfig?: string;
  json?: boolean;
  verbose?: boolean;
}

const out = (l: string) => process.stdout.write(`${l}\n`);

/**
 * Runs every preflight check of the environment (touches nothing). Prints each failing finding and the
 * count (`--json`: the Finding array). Exit: EXIT.preflight when any check fails, else EXIT.ok.
 */
export async function preflight(env: Environment, opts: CheckOptions): Promise<ExitCode> {
  const { runPreflight } = await import("../preflight");
  const { asConfigError, secretsOf } = await import("../automation");
  const findings = await asConfigError(() =>
    runPreflight(env, { kubeconfig: opts.kubeconfig, secrets: secretsOf(env) }),
  );
  return printFindings("preflight", findings, { ...opts, failCode: EXIT.preflight }, out);
}

/**
 * Verifies the deployed environment (releases, workloads, hook Jobs, routes, per GPU cluster its identity,
 * NVCFBackend and agent). Prints each unhealthy finding and the count (`--json`: the Finding array).
 * Exit: EXIT.health when anything is unhealthy, else EXIT.ok.
 */
export async function status(env: Environment, opts: CheckOptions): Promise<ExitCode> {
  const { checkHealth } = await import("../health");
  const { asConfigError, registrationsOf, secretsOf } = await import("../automation");
  const registrations = await registrationsOf(env);
  const findings = await asConfigError(() =>
    checkHealth(env, { kubeconfig: opts.kubeconfig, secrets: secretsOf(env), registrations }),
  );
  return printFindings("status", findings, { ...opts, failCode: EXIT.health }, out);
}

/** Options of `nvcf graph`. */
export interface GraphOptions {
  format: "mermaid" | "svg";
  output?: string;
}

/** Writes the environment's release dependency graph to `output` (default: stdout). Exit: EXIT.ok. */
export async function graph(env: Environment, opts: GraphOptions): Promise<ExitCode> {
  const { renderGraph } = await import("../graph");
  const { asConfigError } = await import("../automation");
  const text = await asConfigError(() => renderGraph(env, opts.format));
  if (opts.output) fs.writeFileSync(opts.output, text.endsWith("\n") ? text : `${text}\n`);
  else process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  return EXIT.ok;
}
