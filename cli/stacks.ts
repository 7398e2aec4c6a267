/**
 * The CLI's stacks: each stack's validated config as the checks, the graph and the verbs read it (from the stack
 * file, secrets supplied by the caller or replaced by placeholders), and how to reach each stack's cluster. The
 * `Finding` constructors are in cli/findings.ts. Nothing here contacts a cluster.
 */
import { validateConfig, type StackConfig } from "../config/load";
import { SECRET_KEYS, type ComputePlaneConfig, type ControlPlaneConfig } from "../config/schema";
import { Kube, type KubeTarget, kubeconfigFile } from "../kube/kubectl";
import type { Environment, StackFile } from "./types";

/** Options every check entry point takes. */
export interface CheckOptions {
  /** A kubeconfig file used instead of the ambient one (KUBECONFIG, else ~/.kube/config). */
  kubeconfig?: string;
  /**
   * The decrypted `nvcf:` config of a stack (keys without the prefix), e.g. from the Automation API's
   * `stack.getAllConfig()`. Only the secret keys are read from it (`kubeconfig`, `gpuClusterKubeconfigs`,
   * `chartRegistryPassword`). Without it, checks that need a secret are skipped with a warning saying so.
   */
  secrets?: (stack: string) => Promise<Record<string, string>>;
  /** kubectl binary (default `kubectl` on PATH). */
  kubectl?: string;
  /** Helm CLI for chart pulls (default `$NVCF_HELM`, else `helm` on PATH). */
  helm?: string;
  /** Timeout of each kubectl call in milliseconds (default 20000). */
  timeoutMs?: number;
}

/**
 * A value that passes the config rules where a secret is set but not decrypted here. It is never sent
 * anywhere: checks that need the real value read it from `CheckOptions.secrets` or skip.
 */
const PLACEHOLDER = "preflight-secret-not-decrypted";

/** One stack with its validated config and the secrets the caller decrypted (empty when none were given). */
export interface CheckedStack {
  file: StackFile;
  config: StackConfig;
  /** Decrypted secret keys (only those the caller supplied). */
  secrets: Record<string, string>;
  /** Secret keys the stack file sets (whether or not they were decrypted). */
  secretKeys: ReadonlySet<string>;
}

/** One placeholder per GPU cluster listed without a context (the rules require a kubeconfig for each). */
function kubeconfigsPlaceholder(file: StackFile): string {
  const list = Array.isArray(file.config["gpuClusters"])
    ? (file.config["gpuClusters"] as { name?: string; context?: string }[])
    : [];
  return JSON.stringify(
    Object.fromEntries(list.filter((c) => !c.context && c.name).map((c) => [c.name, PLACEHOLDER])),
  );
}

/** The raw string form `validateConfig` takes, from a stack file value (objects as JSON, as Pulumi stores them). */
const rawOf = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * Validates a stack file's config as the program will (config/load.ts `validateConfig`, so defaults apply).
 * Secure values are taken from `secrets` when given, else a placeholder. Throws `ConfigError` when the config
 * is invalid (callers report config problems before any check runs).
 */
export function checkedStack(file: StackFile, secrets: Record<string, string> = {}): CheckedStack {
  const raw: Record<string, string> = {};
  const secretKeys = new Set<string>();
  const known = new Set<string>(SECRET_KEYS);
  for (const [k, v] of Object.entries(file.config)) {
    const secure = typeof v === "object" && v !== null && "secure" in v;
    if (secure || known.has(k)) secretKeys.add(k);
    if (secure)
      raw[k] = secrets[k] ?? (k === "gpuClusterKubeconfigs" ? kubeconfigsPlaceholder(file) : PLACEHOLDER);
    else raw[k] = rawOf(v);
  }
  const got: Record<string, string> = {};
  for (const k of secretKeys) if (secrets[k] !== undefined) got[k] = secrets[k];
  return { file, config: validateConfig(raw, secretKeys, file.stack), secrets: got, secretKeys };
}

/** Every stack of an environment, checked (control first). Secrets come from `opts.secrets` when given. */
export async function checkedEnvironment(
  env: Environment,
  opts: CheckOptions,
): Promise<{ control: CheckedStack; compute: CheckedStack[] }> {
  const load = async (f: StackFile) => checkedStack(f, opts.secrets ? await opts.secrets(f.stack) : {});
  const [control, ...compute] = await Promise.all([env.control, ...env.compute].map(load));
  return { control, compute };
}

export const controlConfig = (s: CheckedStack) => s.config as ControlPlaneConfig;
export const computeConfig = (s: CheckedStack) => s.config as ComputePlaneConfig;

/** A cluster a check talks to, or why it cannot be reached without a secret. */
export interface CheckCluster {
  /** What the user calls it, e.g. `context kwok-nvcf-dev` or `nvcf:gpuClusterKubeconfigs.gpu-a`. */
  label: string;
  kube?: Kube;
  /** Set when the cluster cannot be reached with what the checks were given. */
  unavailable?: string;
  /** Removes temporary kubeconfig files. */
  cleanup: () => void;
}

function access(
  target: KubeTarget,
  label: string,
  opts: CheckOptions,
  kubeconfigText?: string,
): CheckCluster {
  const kubeOpts = { kubectl: opts.kubectl, timeoutMs: opts.timeoutMs };
  if (kubeconfigText !== undefined) {
    const tmp = kubeconfigFile(kubeconfigText);
    return {
      label,
      kube: new Kube({ context: target.context, kubeconfig: tmp.file }, kubeOpts),
      cleanup: tmp.remove,
    };
  }
  return {
    label,
    kube: new Kube({ context: target.context, kubeconfig: target.kubeconfig ?? opts.kubeconfig }, kubeOpts),
    cleanup: () => {},
  };
}

/**
 * How to reach a stack's own cluster: `nvcf:kubeconfig` (secret, when decrypted) with `nvcf:kubernetes.context`,
 * else the context in the ambient kubeconfig (or `opts.kubeconfig`). A stack that sets `nvcf:kubeconfig` whose
 * value was not supplied, or that reads its cluster from EKS, is unavailable.
 */
export function stackCluster(s: CheckedStack, opts: CheckOptions): CheckCluster {
  const cfg = s.config;
  const ctx = cfg.kubernetes.context;
  if (s.secretKeys.has("kubeconfig")) {
    const text = s.secrets["kubeconfig"];
    if (text === undefined)
      return {
        label: "nvcf:kubeconfig",
        unavailable:
          "the cluster's kubeconfig is the secret nvcf:kubeconfig, which was not decrypted for the checks",
        cleanup: () => {},
      };
    return access({ context: ctx }, ctx ? `nvcf:kubeconfig (context ${ctx})` : "nvcf:kubeconfig", opts, text);
  }
  if (cfg.plane === "control" && cfg.aws?.eksClusterName && !ctx)
    return {
      label: `EKS cluster ${cfg.aws.eksClusterName}`,
      unavailable: `the cluster is read from EKS (nvcf:aws.eksClusterName); set nvcf:kubernetes.context to check it`,
      cleanup: () => {},
    };
  return access({ context: ctx }, ctx ? `context ${ctx}` : "the current kubeconfig context", opts);
}

/**
 * How the control plane reaches a GPU cluster it registers (`nvcf:gpuClusters[].context`, else the secret
 * `nvcf:gpuClusterKubeconfigs.<name>`). Undefined when the control plane does not list the cluster.
 */
export function registrationCluster(
  control: CheckedStack,
  clusterName: string,
  opts: CheckOptions,
): CheckCluster | undefined {
  const cfg = controlConfig(control);
  const entry = cfg.gpuClusters.find((c) => c.name === clusterName);
  if (!entry) return undefined;
  if (entry.context) return access({ context: entry.context }, `context ${entry.context}`, opts);
  const all = control.secrets["gpuClusterKubeconfigs"];
  const text = all ? (JSON.parse(all) as Record<string, string>)[clusterName] : undefined;
  if (text === undefined)
    return {
      label: `nvcf:gpuClusterKubeconfigs.${clusterName}`,
      unavailable: `the kubeconfig is the secret nvcf:gpuClusterKubeconfigs.${clusterName}, which was not decrypted for the checks`,
      cleanup: () => {},
    };
  return access({}, `nvcf:gpuClusterKubeconfigs.${clusterName}`, opts, text);
}
