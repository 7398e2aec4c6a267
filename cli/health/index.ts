/**
 * `checkHealth`: verification after `up`, and `nvcf status`. Read-only: per stack it reads the
 * cluster's Helm release records, workloads, Jobs, routes and (GPU clusters) the NVCA objects with kubectl, in
 * parallel, and judges them with the pure checks of cli/health/checks.ts. Documented in docs/checks.md.
 */
import { chartVersion, configNamespaces, resolveNamespace } from "../../catalog/releases";
import { observabilityFlags } from "../../config/flags";
import { stackReleases } from "../../config/stackReleases";
import { type Values, deepMerge } from "../../values/merge";
import { monitorObjects, observabilityValues } from "../../values/observability";
import type { Kube, KubeObject } from "../../kube/kubectl";
import {
  type CheckOptions,
  type CheckedStack,
  checkedEnvironment,
  computeConfig,
  controlConfig,
  stackCluster,
} from "../stacks";
import { fail } from "../findings";
import type { Environment, Finding } from "../types";
import {
  type ComputeState,
  type ExpectedIdentity,
  type ExpectedRelease,
  type ExpectedObservability,
  type LiveState,
  type ObservabilityState,
  checkCompute,
  checkHooks,
  checkObservability,
  checkReleases,
  checkRoutes,
  checkWorkloads,
} from "./checks";
import { releasesByName } from "./helm";
import { checkMekGrace } from "./mek";

/** The MEK rotation's record (components/mekRotation.ts `MEK_RECORD`), read for `checkMekGrace`. */
const MEK_RECORD_READ = ["get", "configmap", "nvcf-mek-rotation", "-n", "vault-system"];

/** Options of `checkHealth`: those of the preflight, plus the registrations to compare the identity with. */
export interface HealthOptions extends CheckOptions {
  /** The control plane's `clusterRegistrations` output by GPU cluster name; when given, the IDs must match. */
  registrations?: Record<string, ExpectedIdentity>;
  /**
   * Seconds to keep re-checking while an error remains (default 0: check once). For verification right after
   * `up`: the NVCA operator creates the NVCFBackend and the agent some time after its release is deployed.
   */
  retryForSeconds?: number;
  /**
   * The longest wait between re-checks, in seconds (default 10). The first re-check comes after 2 s (or this, if
   * shorter) and each wait is 1.5 times the one before, up to this: an operator that reports a few seconds after
   * `up` is seen a few seconds later, one that takes minutes is not polled more than once every 10 s.
   */
  retryIntervalSeconds?: number;
  /** Called before each wait for a re-check, with the unhealthy findings and the seconds until the deadline. */
  onRetry?: (unhealthy: Finding[], secondsLeft: number) => void;
}

/** The releases a stack declares, with namespaces and pinned versions. */
export function expectedReleases(s: CheckedStack): ExpectedRelease[] {
  const cfg = s.config;
  return stackReleases(cfg).inCatalogOrder.map((r) => ({
    name: r.name,
    namespace: resolveNamespace(r, configNamespaces(cfg)),
    chart: r.chart,
    version: chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides),
    resource: `nvcf-${r.name}`,
  }));
}

/**
 * What a stack's observability releases render that the checks look for (`checkObservability`), from its
 * config: the collector object when the stack installs the collector, the monitors of its profile, the pull
 * secret. The values are the program's (`values/observability.ts` with `nvcf:releaseValues` merged), so an
 * override such as another `collectorName` is followed. Undefined when the stack installs no observability
 * stack (profile, `observability.install`, or a bundle without it).
 */
export function expectedObservability(s: CheckedStack): ExpectedObservability | undefined {
  const cfg = s.config;
  const c = cfg.plane === "control" ? controlConfig(s) : computeConfig(s);
  const o = c.observability;
  const flags = observabilityFlags(cfg.plane, o, cfg.bundleVersion);
  if (!flags.observabilityEnabled) return undefined;
  // Images do not change what is checked: the mirror is left empty.
  const img = {
    registry: "",
    repository: "",
    thirdParty: "upstream" as const,
    pullSecret: cfg.pullSecret.name,
  };
  const values = (release: string): Values =>
    deepMerge(observabilityValues(release, o, img), c.releaseValues[release]);
  const ns = o.namespace;
  const col = values("otel-collector");
  const ta = (col["targetAllocator"] ?? {}) as Values;
  const cr = (ta["prometheusCR"] ?? {}) as Values;
  const labels = (sel: unknown) =>
    ((sel as Values | undefined)?.["matchLabels"] ?? {}) as Record<string, string>;
  return {
    namespace: ns,
    collector: flags.collectorInstall
      ? {
          name: String(col["collectorName"]),
          targetAllocator: ta["enabled"] === true,
          selectors: {
            ServiceMonitor: labels(cr["serviceMonitorSelector"]),
            PodMonitor: labels(cr["podMonitorSelector"]),
          },
        }
      : undefined,
    monitors: monitorObjects(values("default-monitors"), ns),
    pullSecret: cfg.pullSecret.name ?? undefined,
  };
}

/** Reads the observability objects of one cluster a stack's `ExpectedObservability` names (in parallel). */
export async function readObservability(
  kube: Kube,
  want: ExpectedObservability,
): Promise<ObservabilityState> {
  const list = async (kind: string, namespaces: string[]): Promise<KubeObject[] | undefined> => {
    const got = await Promise.all(
      namespaces.map((n) => kube.maybe<{ items?: KubeObject[] }>(["get", kind, "-n", n])),
    );
    return got.some((g) => g === undefined) ? undefined : got.flatMap((g) => g?.items ?? []);
  };
  const nsOf = (k: string) => [...new Set(want.monitors.filter((m) => m.kind === k).map((m) => m.namespace))];
  const [collectors, serviceMonitors, podMonitors, secret] = await Promise.all([
    want.collector ? list("opentelemetrycollectors.opentelemetry.io", [want.namespace]) : Promise.resolve([]),
    list("servicemonitors.monitoring.coreos.com", nsOf("ServiceMonitor")),
    list("podmonitors.monitoring.coreos.com", nsOf("PodMonitor")),
    want.pullSecret
      ? kube.run(["get", "secret", want.pullSecret, "-n", want.namespace, "-o", "jsonpath={.type}"])
      : Promise.resolve(undefined),
  ]);
  return {
    collectors,
    serviceMonitors,
    podMonitors,
    pullSecretType: secret && secret.code === 0 ? secret.stdout.trim() : undefined,
  };
}

const SERVICE_COLUMNS = 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}';

/** Reads what the checks need from one cluster (every call in parallel). Throws `KubeError` when it does not answer. */
export async function readLive(kube: Kube, withRoutes: boolean): Promise<LiveState> {
  const none = Promise.resolve([] as KubeObject[]);
  const [secrets, deploys, sts, ds, jobs, http, grpc, tcp, gateways, classes, namespaces, services] =
    await Promise.all([
      kube.items(["secrets", "-A", "-l", "owner=helm"]),
      kube.items(["deployments.apps", "-A"]),
      kube.items(["statefulsets.apps", "-A"]),
      kube.items(["daemonsets.apps", "-A"]),
      kube.items(["jobs.batch", "-A"]),
      withRoutes ? kube.items(["httproutes.gateway.networking.k8s.io", "-A"]) : none,
      withRoutes ? kube.items(["grpcroutes.gateway.networking.k8s.io", "-A"]) : none,
      withRoutes ? kube.items(["tcproutes.gateway.networking.k8s.io", "-A"]) : none,
      withRoutes ? kube.items(["gateways.gateway.networking.k8s.io", "-A"]) : none,
      withRoutes ? kube.items(["gatewayclasses.gateway.networking.k8s.io"]) : none,
      withRoutes ? kube.items(["namespaces"]) : none,
      withRoutes
        ? kube.run(["get", "services", "-A", "-o", SERVICE_COLUMNS])
        : Promise.resolve({ code: 0, stdout: "", stderr: "" }),
    ]);
  const kinded = (list: KubeObject[], kind: string) => list.map((o) => ({ ...o, kind }));
  return {
    releases: releasesByName(secrets),
    workloads: [...kinded(deploys, "Deployment"), ...kinded(sts, "StatefulSet"), ...kinded(ds, "DaemonSet")],
    jobs,
    routes: [...kinded(http, "HTTPRoute"), ...kinded(grpc, "GRPCRoute"), ...kinded(tcp, "TCPRoute")],
    gateways,
    gatewayClasses: classes,
    namespaces,
    services: new Set(services.stdout.split("\n").filter(Boolean)),
  };
}

/** Reads the NVCA objects of a GPU cluster. */
export async function readCompute(kube: Kube): Promise<ComputeState> {
  const [identity, backends, agentPods, tuner] = await Promise.all([
    kube.maybe<KubeObject>(["get", "configmap", "nvcfbackend-self-managed", "-n", "nvca-operator"]),
    kube.maybe<{ items: KubeObject[] }>(["get", "nvcfbackends.nvcf.nvidia.io", "-n", "nvca-operator"]),
    kube.items(["pods", "-n", "nvca-system"]),
    kube.maybe<KubeObject>(["get", "daemonset", "node-inotify-tuner", "-n", "kube-system"]),
  ]);
  return {
    identity,
    backends: backends?.items,
    agentPods,
    tuner: tuner ? { ...tuner, kind: "DaemonSet" } : undefined,
  };
}

/**
 * Routes the charts render whose backend is legitimately absent: nvcf-gateway-routes renders the
 * llm-api-gateway HTTPRoute by default even with the LLM add-on off (docs/upstream-facts.md §1.12).
 */
function optionalRoutes(s: CheckedStack): Record<string, string> {
  if (s.config.plane !== "control" || controlConfig(s).addons.llm.enabled) return {};
  return {
    "llm-api-gateway":
      "the chart renders this route even with the LLM add-on off (nvcf:addons.llm.enabled false)",
  };
}

async function stackHealth(s: CheckedStack, opts: HealthOptions, envName: string): Promise<Finding[]> {
  const st = s.file.stack;
  const access = stackCluster(s, opts);
  const obj = `cluster (${access.label})`;
  try {
    if (!access.kube)
      return [
        fail(
          "cluster.reachable",
          st,
          obj,
          `not checked: ${access.unavailable}`,
          "the cluster's kubeconfig",
          "run the checks through `nvcf status`, which decrypts the stack's secrets",
          "warning",
        ),
      ];
    const compute = s.config.plane === "compute";
    const obs = expectedObservability(s);
    let live: LiveState;
    let cstate: ComputeState | undefined;
    let ostate: ObservabilityState | undefined;
    try {
      [live, cstate, ostate] = await Promise.all([
        readLive(access.kube, !compute),
        compute ? readCompute(access.kube) : Promise.resolve(undefined),
        obs ? readObservability(access.kube, obs) : Promise.resolve(undefined),
      ]);
    } catch (e) {
      return [
        fail(
          "cluster.reachable",
          st,
          obj,
          `the cluster did not answer: ${(e as Error).message.split("\n")[0].slice(0, 300)}`,
          "a reachable Kubernetes API server for this stack",
          `check nvcf:kubernetes.context and the kubeconfig`,
        ),
      ];
    }
    const expected = expectedReleases(s);
    const out = [
      ...checkReleases(st, expected, live),
      ...checkWorkloads(st, expected, live),
      ...checkHooks(st, expected, live),
      ...checkRoutes(st, expected, live, optionalRoutes(s)),
    ];
    if (obs && ostate) out.push(...checkObservability(st, obs, ostate));
    if (s.config.plane === "control" && s.config.openbao.enabled) {
      const rec = await access.kube.maybe<{ data?: Record<string, string> }>(MEK_RECORD_READ);
      out.push(checkMekGrace(st, rec?.data, Date.now()));
    }
    if (cstate) {
      const name = computeConfig(s).clusterName;
      out.push(...checkCompute(st, name, cstate, opts.registrations?.[name], envName));
    }
    return out;
  } finally {
    access.cleanup();
  }
}

/**
 * Checks the health of every stack of an environment; while an error remains and `retryForSeconds` has not run
 * out, the stacks with an error again, at growing intervals up to `retryIntervalSeconds` (`checkUntilHealthy`).
 * Input: the environment and options (see `HealthOptions`). Output: one `Finding` per checked object, passing ones
 * included, control plane first. Throws `ConfigError` when a stack's config is invalid; every other problem is a
 * finding.
 */
export async function checkHealth(env: Environment, opts: HealthOptions = {}): Promise<Finding[]> {
  const { control, compute } = await checkedEnvironment(env, opts);
  return checkUntilHealthy([control, ...compute], (s) => stackHealth(s, opts, env.name), opts);
}

/** Time as `checkUntilHealthy` sees it (replaced in tests). */
export interface RetryClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/**
 * The waits between re-checks, in milliseconds: 2 s (or `maxSeconds`, if shorter), then 1.5 times the one before,
 * at most `maxSeconds` (2, 3, 4.5, 6.75, 10, 10, … for the default 10).
 */
export function retryWaitMs(round: number, maxSeconds = 10): number {
  return Math.round(Math.min(maxSeconds, 2 * 1.5 ** round) * 1000);
}

/**
 * Checks every stack (side by side), then, while any stack has an error finding and `retryForSeconds` has not run
 * out, checks again only the stacks that had one (waits: `retryWaitMs`, never past the deadline, and one last check
 * at it). A stack without errors keeps the findings of its last check. Calls `onRetry` before each wait with the
 * error findings and the whole seconds left. Output: the last findings of every stack, in the order of `stacks`,
 * passing ones included. Errors thrown by `check` propagate.
 */
export async function checkUntilHealthy<S>(
  stacks: readonly S[],
  check: (s: S) => Promise<Finding[]>,
  opts: Pick<HealthOptions, "retryForSeconds" | "retryIntervalSeconds" | "onRetry"> = {},
  clock: RetryClock = realClock,
): Promise<Finding[]> {
  const deadline = clock.now() + (opts.retryForSeconds ?? 0) * 1000;
  const last: Finding[][] = stacks.map(() => []);
  let pending = stacks.map((_, i) => i);
  for (let round = 0; ; round++) {
    const found = await Promise.all(pending.map((i) => check(stacks[i])));
    pending.forEach((i, k) => (last[i] = found[k]));
    pending = pending.filter((i) => last[i].some(isError));
    const now = clock.now();
    if (pending.length === 0 || now >= deadline) return last.flat();
    opts.onRetry?.(
      pending.flatMap((i) => last[i].filter(isError)),
      Math.ceil((deadline - now) / 1000),
    );
    await clock.sleep(Math.min(retryWaitMs(round, opts.retryIntervalSeconds ?? 10), deadline - now));
  }
}

const isError = (f: Finding) => !f.ok && f.severity === "error";
