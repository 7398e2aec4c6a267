/**
 * `runPreflight`: the checks made before anything is touched (docs/checks.md). Read-only: it reads each stack's
 * cluster with kubectl (kube/kubectl.ts), the chart sources and the image registries (a login and one manifest
 * lookup per credential, cli/preflight/images.ts), and never writes to a cluster or a stack.
 *
 * Clusters: the control plane's (`nvcf:kubernetes.context` / `nvcf:kubeconfig` of the control stack), each GPU
 * cluster's as its compute stack reaches it, and as the control plane's registration reaches it
 * (`nvcf:gpuClusters[].context` / `nvcf:gpuClusterKubeconfigs.<name>`). Checks per cluster run in parallel.
 * The checks and their fixes are documented in docs/checks.md.
 */
import type { Environment, Finding } from "../types";
import { checkCharts } from "./charts";
import {
  checkCertManager,
  checkComputeNodeLabels,
  checkControlNodeLabels,
  checkGatewayCrds,
  checkGateways,
  checkGpuIdentity,
  checkGpuOperator,
  checkInotify,
  checkIssuer,
  checkKai,
  checkObservabilityOnce,
  checkObservabilityStack,
  checkReplicaNodes,
  checkSmbCsi,
  checkStorage,
  checkVersion,
  identityOf,
  sameCluster,
} from "./checks";
import {
  type CheckOptions,
  type CheckCluster,
  checkedEnvironment,
  computeConfig,
  controlConfig,
  registrationCluster,
  stackCluster,
} from "../stacks";
import { fail, pass } from "../findings";
import { type ClusterFacts, type FactNeeds, gatherFacts } from "./facts";
import { checkImages } from "./images";
import { installsObservability } from "../../config/observability";

export type { CheckOptions } from "../stacks";

/** Facts of one cluster, or the finding that says why it could not be read. */
type Read = { facts?: ClusterFacts; finding: Finding };

async function read(access: CheckCluster, stack: string, needs: FactNeeds): Promise<Read> {
  const obj = `cluster (${access.label})`;
  if (!access.kube)
    return {
      finding: fail(
        "cluster.reachable",
        stack,
        obj,
        `not checked: ${access.unavailable}`,
        "the cluster's kubeconfig",
        "run the checks through `nvcf preflight`, which decrypts the stack's secrets",
        "warning",
      ),
    };
  try {
    const facts = await gatherFacts(access.kube, needs);
    return {
      facts,
      finding: pass(
        "cluster.reachable",
        stack,
        obj,
        `reached Kubernetes ${facts.serverVersion?.gitVersion ?? "?"}`,
      ),
    };
  } catch (e) {
    return {
      finding: fail(
        "cluster.reachable",
        stack,
        obj,
        `the cluster did not answer: ${(e as Error).message.split("\n")[0].slice(0, 300)}`,
        "a reachable Kubernetes API server for this stack",
        `check nvcf:kubernetes.context and the kubeconfig (kubectl ${access.kube.target.context ? `--context ${access.kube.target.context} ` : ""}get --raw /readyz)`,
      ),
    };
  }
}

/**
 * Runs every preflight check of an environment. Input: the environment (cli/types.ts) and options (a
 * kubeconfig file instead of the ambient one; a `secrets` callback giving a stack's decrypted config, without
 * which checks that need a secret — chart and image registry logins among them — are skipped with a warning;
 * the kubectl and Helm binaries). Output: one
 * `Finding` per check and object, passing ones included, control plane first. Throws `ConfigError` when a
 * stack's config is invalid (validate first), nothing else: a check that cannot run becomes a finding.
 */
export async function runPreflight(env: Environment, opts: CheckOptions = {}): Promise<Finding[]> {
  const { control, compute } = await checkedEnvironment(env, opts);
  const ccfg = controlConfig(control);
  const ctlAccess = stackCluster(control, opts);
  const compAccess = compute.map((s) => stackCluster(s, opts));
  const regAccess = compute.map((s) => registrationCluster(control, computeConfig(s).clusterName, opts));
  const all = [ctlAccess, ...compAccess, ...regAccess.filter((a): a is CheckCluster => a !== undefined)];
  // A registration that uses the compute stack's own context reads nothing twice.
  const sameTarget = (a: CheckCluster, b: CheckCluster) =>
    a.kube !== undefined &&
    b.kube !== undefined &&
    a.kube.target.context === b.kube.target.context &&
    a.kube.target.kubeconfig === b.kube.target.kubeconfig;
  try {
    const installs = (s: (typeof compute)[number]) =>
      installsObservability("compute", computeConfig(s).observability, computeConfig(s).bundleVersion);
    const controlInstalls = installsObservability("control", ccfg.observability, ccfg.bundleVersion);
    const compReads = compAccess.map((a, i) =>
      read(a, compute[i].file.stack, { kai: true, observability: installs(compute[i]) }),
    );
    const [ctl, comps, regs, charts, images] = await Promise.all([
      read(ctlAccess, control.file.stack, {
        gateways: true,
        certManager: true,
        observability: controlInstalls,
      }),
      Promise.all(compReads),
      Promise.all(
        regAccess.map((a, i) =>
          !a
            ? Promise.resolve(undefined)
            : sameTarget(a, compAccess[i])
              ? compReads[i]
              : read(a, control.file.stack, {}),
        ),
      ),
      checkCharts([control, ...compute], env.projectDir, opts.helm),
      checkImages([control, ...compute]),
    ]);
    const out: Finding[] = [ctl.finding];
    const cs = control.file.stack;
    if (ctl.facts) {
      const f = ctl.facts;
      const label = `cluster (${ctlAccess.label})`;
      out.push(
        ...checkVersion(f, cs, label),
        ...checkGatewayCrds(ccfg, f, cs),
        ...checkGateways(ccfg, f, cs),
        ...checkStorage(ccfg, f, cs),
        ...checkReplicaNodes(ccfg, f, cs),
        ...checkControlNodeLabels(ccfg, f, cs),
        ...checkCertManager(ccfg, f, cs),
        ...checkIssuer(ccfg, f, cs, label),
        ...checkObservabilityStack(ccfg, f, cs),
      );
    }
    const ids = comps.map((r, i) => (r.facts ? identityOf(compAccess[i].label, r.facts) : undefined));
    compute.forEach((s, i) => {
      const st = s.file.stack;
      const cfg = computeConfig(s);
      const r = comps[i];
      out.push(r.finding);
      if (!r.facts) return;
      const f = r.facts;
      out.push(
        ...checkVersion(f, st, `cluster (${compAccess[i].label})`),
        ...checkGpuOperator(f, st),
        ...checkSmbCsi(cfg, f, st),
        ...checkKai(cfg, f, st),
        ...checkInotify(cfg, f, st),
        ...checkComputeNodeLabels(cfg, f, st),
        ...checkObservabilityStack(cfg, f, st),
        ...checkObservabilityOnce(
          st,
          cs,
          installs(s),
          controlInstalls,
          ctl.facts !== undefined && sameCluster(identityOf("", f), identityOf("", ctl.facts)),
        ),
      );
      const reg = regs[i];
      if (!regAccess[i]) {
        out.push(
          fail(
            "gpu.identity",
            st,
            `GPU cluster ${cfg.clusterName}`,
            `the control plane ${cs} does not list ${cfg.clusterName} in nvcf:gpuClusters`,
            "the cluster registered by the control plane before its compute stack is installed",
            `add it to the control stack: pulumi config set --path 'nvcf:gpuClusters[${ccfg.gpuClusters.length}].name' ${cfg.clusterName} -s ${cs} (and its context)`,
          ),
        );
      } else if (reg && !reg.facts) out.push(reg.finding);
      const others = compute
        .map((o, j) => ({ stack: o.file.stack, id: ids[j] }))
        .filter(
          (o, j): o is { stack: string; id: NonNullable<typeof o.id> } => j !== i && o.id !== undefined,
        );
      out.push(
        ...checkGpuIdentity(
          st,
          cfg.clusterName,
          identityOf(compAccess[i].label, f),
          reg?.facts ? identityOf(`${cs}'s ${regAccess[i]?.label}`, reg.facts) : undefined,
          ctl.facts ? identityOf(`the control-plane cluster (${ctlAccess.label})`, ctl.facts) : undefined,
          others,
        ),
      );
    });
    out.push(...charts, ...images);
    return out;
  } finally {
    for (const a of all) a.cleanup();
  }
}
