/**
 * `nvcf preflight` and `nvcf status`: thin verbs over the check library functions (cli/preflight, cli/health).
 * Each prints through cli/report.ts and returns its exit code.
 */
import { printFindings } from "../report";
import { EXIT, type Environment, type ExitCode } from "../types";

/** Options of `nvcf preflight` and `nvcf status`. */
export interface CheckVerbOptions {
  kubeconfig?: string;
  json?: boolean;
  verbose?: boolean;
}

const out = (l: string) => process.stdout.write(`${l}\n`);

/**
 * Runs every preflight check of the environment (touches nothing). Prints each failing finding and the
 * count (`--json`: the Finding array). Exit: EXIT.preflight when any check fails, else EXIT.ok.
 */
export async function preflight(env: Environment, opts: CheckVerbOptions): Promise<ExitCode> {
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
export async function status(env: Environment, opts: CheckVerbOptions): Promise<ExitCode> {
  const { checkHealth } = await import("../health");
  const { asConfigError, registrationsOf, secretsOf } = await import("../automation");
  const registrations = await registrationsOf(env);
  const findings = await asConfigError(() =>
    checkHealth(env, { kubeconfig: opts.kubeconfig, secrets: secretsOf(env), registrations }),
  );
  return printFindings("status", findings, { ...opts, failCode: EXIT.health }, out);
}
