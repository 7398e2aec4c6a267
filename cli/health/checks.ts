/**
 * The health checks as pure functions: what the stacks declare (releases at pinned versions) and what one
 * cluster holds (Helm's release records, workloads, Jobs, routes, the NVCA objects) in, `Finding`s out. Facts:
 * docs/upstream-facts.md §1.11 (hooks), §1.12 (routes), §2.8-§2.9 (identity ConfigMap, NVCFBackend, agent).
 */
import * as yaml from "js-yaml";
import { type KubeObject, condition } from "../../kube/kubectl";
import { fail, pass } from "../findings";
import type { Finding } from "../types";
import type { HelmHook, HelmRelease } from "../../kube/helmRecords";
import { type ManifestObject, manifestObjects } from "./helm";

/** A release a stack declares: name, namespace and the chart version it pins. */
export interface ExpectedRelease {
  name: string;
  namespace: string;
  chart: string;
  version: string;
  /** The Pulumi resource name of the release (`nvcf-<release>`), for fixes that name it. */
  resource: string;
}

/** What the health checks read from one cluster. */
export interface LiveState {
  /** Helm release records by `namespace/name`, newest first (cli/health/helm.ts `releasesByName`). */
  releases: Map<string, HelmRelease[]>;
  /** Deployments, StatefulSets and DaemonSets in every namespace. */
  workloads: KubeObject[];
  jobs: KubeObject[];
  /** HTTPRoutes, GRPCRoutes, TCPRoutes (and TLS/UDP routes) in every namespace. */
  routes: KubeObject[];
  gateways: KubeObject[];
  /** GatewayClasses (cluster-scoped), to name why a route has no controller status; undefined when not read. */
  gatewayClasses?: KubeObject[];
  namespaces: KubeObject[];
  /** Services as `namespace/name`. */
  services: Set<string>;
  /** Seconds since the epoch, for "stuck" Jobs (default: now). */
  now?: number;
}

const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "DaemonSet"];
const ROUTE_KINDS = ["HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute"];
const HOOK_EVENTS = ["pre-install", "post-install", "pre-upgrade", "post-upgrade"];

/** Re-running a release with the Pulumi CLI: its hooks fire again on the fresh install. */
const rerun = (stack: string, r: ExpectedRelease) =>
  `pulumi up -s ${stack} --replace <URN of the Release ${r.resource}> (pulumi stack -s ${stack} --show-urns lists it)`;

/** Every declared release is deployed at its pinned chart version (Helm's newest record). */
export function checkReleases(
  stack: string,
  expected: readonly ExpectedRelease[],
  live: LiveState,
): Finding[] {
  return expected.map((r) => {
    const obj = `release ${r.namespace}/${r.name}`;
    const rel = live.releases.get(`${r.namespace}/${r.name}`)?.[0];
    if (!rel)
      return fail(
        "health.release",
        stack,
        obj,
        "not installed (no Helm release record)",
        `release ${r.name} deployed with chart ${r.chart} ${r.version}`,
        `pulumi up -s ${stack} --refresh (the refresh notices the missing release, the update installs it again)`,
      );
    const status = rel.info?.status ?? "unknown";
    const version = rel.chart?.metadata?.version ?? "?";
    if (status !== "deployed")
      return fail(
        "health.release",
        stack,
        obj,
        `revision ${rel.version} is ${status}${rel.info?.description ? ` (${rel.info.description.slice(0, 200)})` : ""}`,
        `release ${r.name} deployed with chart ${r.chart} ${r.version}`,
        `pulumi up -s ${stack} --refresh, after fixing the cause Helm reports (helm history ${r.name} -n ${r.namespace})`,
      );
    if (version !== r.version)
      return fail(
        "health.release",
        stack,
        obj,
        `deployed with chart ${rel.chart?.metadata?.name} ${version}`,
        `chart ${r.chart} ${r.version}, the version the bundle (or nvcf:charts.versionOverrides) pins`,
        `pulumi up -s ${stack} --refresh`,
      );
    return pass(
      "health.release",
      stack,
      obj,
      `deployed, chart ${r.chart} ${version}, revision ${rel.version}`,
    );
  });
}

/** Ready replicas of a workload against what it wants; undefined when ready. */
export function workloadGap(w: KubeObject): string | undefined {
  const s = w.status ?? {};
  if (w.kind === "DaemonSet") {
    const want = s.desiredNumberScheduled ?? 0;
    const ready = s.numberReady ?? 0;
    return ready >= want ? undefined : `${ready}/${want} pods ready`;
  }
  const want = w.spec?.replicas ?? 1;
  const ready = s.readyReplicas ?? 0;
  if (ready < want) return `${ready}/${want} replicas ready`;
  if (w.kind === "Deployment" && (s.updatedReplicas ?? want) < want)
    return `${s.updatedReplicas}/${want} replicas updated`;
  return undefined;
}

/** The workloads each release renders (from its manifest) exist and are ready. */
export function checkWorkloads(
  stack: string,
  expected: readonly ExpectedRelease[],
  live: LiveState,
): Finding[] {
  const out: Finding[] = [];
  const byId = new Map(
    live.workloads.map((w) => [`${w.kind}/${w.metadata.namespace}/${w.metadata.name}`, w]),
  );
  for (const r of expected) {
    const rel = live.releases.get(`${r.namespace}/${r.name}`)?.[0];
    if (!rel) continue;
    const wanted = manifestObjects(rel.manifest, r.namespace).filter((o) => WORKLOAD_KINDS.includes(o.kind));
    const bad: Finding[] = [];
    for (const o of wanted) {
      const w = byId.get(`${o.kind}/${o.namespace}/${o.name}`);
      const obj = `${o.kind} ${o.namespace}/${o.name}`;
      if (!w)
        bad.push(
          fail(
            "health.workloads",
            stack,
            obj,
            `missing (release ${r.name} renders it)`,
            "the workload the release installed",
            `pulumi up -s ${stack} --refresh`,
          ),
        );
      else {
        const gap = workloadGap(w);
        if (gap)
          bad.push(
            fail(
              "health.workloads",
              stack,
              obj,
              gap,
              "every replica ready",
              `kubectl describe ${o.kind.toLowerCase()} -n ${o.namespace} ${o.name} and its pods' events (image pulls, scheduling, probes)`,
            ),
          );
      }
    }
    out.push(
      ...(bad.length
        ? bad
        : wanted.length
          ? [
              pass(
                "health.workloads",
                stack,
                `release ${r.namespace}/${r.name}`,
                `${wanted.length} workload(s) ready`,
              ),
            ]
          : []),
    );
  }
  return out;
}

/** What a failed hook means and how to recover, by hook (docs/upstream-facts.md §1.11, §4 row 26). */
function hookAdvice(
  stack: string,
  r: ExpectedRelease,
  hook: HelmHook,
  ns: string,
): { needed: string; fix: string } {
  const logs = `kubectl logs -n ${ns} job/${hook.name}`;
  if (/account-bootstrap/.test(hook.name))
    return {
      needed:
        'the account-bootstrap Job to succeed: without the account every API call returns 404 "Unknown client_id"',
      fix: `read ${logs}, then re-run the api release so the bootstrap hook fires: ${rerun(stack, r)}`,
    };
  if (/initialize-cluster/.test(hook.name) && r.name === "openbao-server")
    return {
      needed: "OpenBao initialised and unsealed by its install-only hook",
      fix: `read ${logs}; an install whose first run failed skips this hook on upgrades: uninstall openbao-server, empty vault-system and install again (this deletes OpenBao's data)`,
    };
  if (/migrations/.test(hook.name) && r.name === "openbao-server")
    return {
      needed: "the OpenBao migrations (policies, JWT auth, shared secrets) applied",
      fix: `read ${logs}, then kubectl delete job -n ${ns} ${hook.name} and re-run the release: ${rerun(stack, r)}`,
    };
  if (r.name === "cassandra")
    return {
      needed: "Cassandra initialised and its keyspace migrations applied",
      fix: `read ${logs}; check the Cassandra pods (a small nvcf:cassandra.preset can be OOM-killed on first boot), then re-run the release: ${rerun(stack, r)}`,
    };
  return {
    needed: `the ${r.name} hook Job ${hook.name} to succeed`,
    fix: `read ${logs}, fix the cause, then re-run the release: ${rerun(stack, r)}`,
  };
}

const hookNamespace = (h: HelmHook, fallback: string) => {
  try {
    const m = yaml.load(h.manifest ?? "") as { metadata?: { namespace?: string } } | undefined;
    return m?.metadata?.namespace ?? fallback;
  } catch {
    return fallback;
  }
};

/**
 * The hook Jobs of every release succeeded, or their effect is recorded: a live Job decides (Failed → unhealthy,
 * still active after 10 minutes → stuck); a Job removed by its TTL or delete policy counts when Helm recorded
 * its last run as Succeeded. Install-only hooks are judged by the first revision's record. Pre/post-delete
 * hooks are not checked (they run on uninstall).
 */
export function checkHooks(stack: string, expected: readonly ExpectedRelease[], live: LiveState): Finding[] {
  const out: Finding[] = [];
  const now = live.now ?? Date.now() / 1000;
  const jobs = new Map(live.jobs.map((j) => [`${j.metadata.namespace}/${j.metadata.name}`, j]));
  for (const r of expected) {
    const records = live.releases.get(`${r.namespace}/${r.name}`);
    const rel = records?.[0];
    if (!rel) continue;
    for (const hook of (rel.hooks ?? []).filter((h) => h.kind === "Job")) {
      const events = hook.events ?? [];
      if (!events.some((e) => HOOK_EVENTS.includes(e))) continue;
      const ns = hookNamespace(hook, r.namespace);
      const obj = `Job ${ns}/${hook.name}`;
      const advice = hookAdvice(stack, r, hook, ns);
      const job = jobs.get(`${ns}/${hook.name}`);
      if (job) {
        const failed = condition(job, "Failed");
        const done = condition(job, "Complete");
        if (failed?.status === "True") {
          out.push(
            fail(
              "health.hooks",
              stack,
              obj,
              `the Job failed (${failed.reason ?? "Failed"}${failed.message ? `: ${failed.message.slice(0, 160)}` : ""})`,
              advice.needed,
              advice.fix,
            ),
          );
          continue;
        }
        if (done?.status === "True" || (job.status?.succeeded ?? 0) > 0) {
          out.push(pass("health.hooks", stack, obj, "succeeded"));
          continue;
        }
        const started = Date.parse(job.status?.startTime ?? job.metadata.creationTimestamp ?? "") / 1000;
        const age = Number.isNaN(started) ? 0 : now - started;
        out.push(
          age > 600
            ? fail(
                "health.hooks",
                stack,
                obj,
                `still running after ${Math.round(age / 60)} minutes`,
                advice.needed,
                advice.fix,
              )
            : fail(
                "health.hooks",
                stack,
                obj,
                "still running",
                advice.needed,
                "wait, then run nvcf status again",
                "warning",
              ),
        );
        continue;
      }
      // No Job: judge by Helm's record. Install-only hooks ran (if ever) in revision 1.
      const installOnly = !events.some((e) => e.endsWith("upgrade"));
      const record = installOnly ? records?.find((x) => x.version === 1) : rel;
      const run = record?.hooks?.find((h) => h.name === hook.name && h.kind === "Job")?.last_run;
      if (installOnly && !record) {
        out.push(
          fail(
            "health.hooks",
            stack,
            obj,
            "the Job is gone and Helm's first revision is no longer kept, so whether it ran cannot be told",
            advice.needed,
            advice.fix,
            "warning",
          ),
        );
        continue;
      }
      if (run?.phase === "Succeeded")
        out.push(
          pass(
            "health.hooks",
            stack,
            obj,
            `succeeded${run.completed_at ? ` (${run.completed_at.slice(0, 19)}Z)` : ""}; the Job was removed afterwards by its TTL or delete policy`,
          ),
        );
      else
        out.push(
          fail(
            "health.hooks",
            stack,
            obj,
            run?.phase
              ? `Helm recorded the hook as ${run.phase} and the Job is gone`
              : "the Job is gone and Helm recorded no run of the hook (hooks skipped?)",
            advice.needed,
            advice.fix,
          ),
        );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Routes (Gateway API)

const GATEWAY_GROUP = "gateway.networking.k8s.io";

interface ParentRef {
  name: string;
  namespace?: string;
  sectionName?: string;
  port?: number;
  group?: string;
  kind?: string;
}

interface RouteCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** One entry of a route's status.parents (Gateway API RouteParentStatus). */
interface RouteParentStatus {
  parentRef?: ParentRef;
  controllerName?: string;
  conditions?: RouteCondition[];
}

interface Listener {
  name: string;
  protocol?: string;
  allowedRoutes?: {
    namespaces?: { from?: string; selector?: { matchLabels?: Record<string, string> } };
  };
}

/** What is wrong with a route on one parent: the sentence for `found` and the fix for it. */
interface RouteProblem {
  text: string;
  fix: string;
}

/** Whether a listener admits routes from a namespace (allowedRoutes.namespaces; default Same). */
function admits(listener: Listener, gwNs: string, routeNs: KubeObject | undefined, routeNsName: string) {
  const from = listener.allowedRoutes?.namespaces?.from ?? "Same";
  if (from === "All") return true;
  if (from === "Same") return gwNs === routeNsName;
  const want = listener.allowedRoutes?.namespaces?.selector?.matchLabels ?? {};
  const labels = routeNs?.metadata.labels ?? {};
  return Object.entries(want).every(([k, v]) => labels[k] === v);
}

/** A parentRef with the defaults the Gateway API applies (group, kind Gateway, the route's namespace). */
function normalRef(p: ParentRef, routeNs: string) {
  return {
    group: p.group ?? GATEWAY_GROUP,
    kind: p.kind ?? "Gateway",
    namespace: p.namespace ?? routeNs,
    name: p.name,
    sectionName: p.sectionName ?? "",
    port: p.port ?? 0,
  };
}

/** `namespace/name[:section]` of a parentRef, as the findings name a parent. */
function parentLabel(p: ParentRef, routeNs: string): string {
  const r = normalRef(p, routeNs);
  return `${r.namespace}/${r.name}${r.sectionName ? `:${r.sectionName}` : ""}${r.port ? ` (port ${r.port})` : ""}`;
}

/** The backend Services a route's rules name that do not exist (`namespace/name`). */
function missingBackends(route: ManifestObject, live: LiveState): string[] {
  const out: string[] = [];
  for (const rule of (route.spec?.rules ?? []) as {
    backendRefs?: { name: string; namespace?: string; kind?: string; group?: string }[];
  }[])
    for (const b of rule.backendRefs ?? []) {
      if ((b.kind && b.kind !== "Service") || (b.group && b.group !== "")) continue;
      const id = `${b.namespace ?? route.namespace}/${b.name}`;
      if (!live.services.has(id)) out.push(id);
    }
  return out;
}

/**
 * Why a route would not attach to one parent, judged from the Gateway's spec alone: the Gateway and the
 * `sectionName` listener exist and the listener admits the route's namespace; undefined when they do.
 */
function staticParentProblem(route: ManifestObject, p: ParentRef, live: LiveState): string | undefined {
  const ns = p.namespace ?? route.namespace;
  const gw = live.gateways.find((g) => g.metadata.namespace === ns && g.metadata.name === p.name);
  if (!gw) return `its parent Gateway ${ns}/${p.name} does not exist`;
  const listeners = (gw.spec?.listeners ?? []) as Listener[];
  const cand = p.sectionName ? listeners.filter((l) => l.name === p.sectionName) : listeners;
  if (cand.length === 0) return `Gateway ${ns}/${p.name} has no listener "${p.sectionName}"`;
  const routeNs = live.namespaces.find((n) => n.metadata.name === route.namespace);
  if (!cand.some((l) => admits(l, ns, routeNs, route.namespace)))
    return `no listener of Gateway ${ns}/${p.name}${p.sectionName ? ` ("${p.sectionName}")` : ""} admits routes from namespace ${route.namespace} (allowedRoutes; label nvcf/platform=true)`;
  return undefined;
}

/**
 * A parent that no controller has reported on. On a real cluster the Gateway's controller writes status on every
 * route that names one of its Gateways, so a missing entry is a finding: the Gateway does not exist, its
 * GatewayClass is missing or accepted by no controller (none runs), or the controller has not reported (yet).
 */
function unreportedParent(stack: string, route: ManifestObject, p: ParentRef, live: LiveState): RouteProblem {
  const ns = p.namespace ?? route.namespace;
  const label = parentLabel(p, route.namespace);
  const gw = live.gateways.find((g) => g.metadata.namespace === ns && g.metadata.name === p.name);
  if (!gw)
    return {
      text: `no status for parent ${label}: the Gateway does not exist, so no controller reports on the route`,
      fix: `create Gateway ${ns}/${p.name}, or point nvcf:gateway.shared/grpc/nats at an existing Gateway and run pulumi up -s ${stack}`,
    };
  const className = String(gw.spec?.gatewayClassName ?? "");
  const cls = live.gatewayClasses?.find((c) => c.metadata.name === className);
  const controller = String(cls?.spec?.controllerName ?? "");
  const statik = staticParentProblem(route, p, live);
  const missing = missingBackends(route, live);
  const seen = [statik, missing.length ? `backend Service ${missing.join(", ")} does not exist` : ""].filter(
    Boolean,
  );
  const judged = seen.length ? `; from the Gateway's spec and the cluster: ${seen.join("; ")}` : "";
  if (live.gatewayClasses && !cls)
    return {
      text: `no status for parent ${label}: Gateway ${ns}/${p.name} names GatewayClass ${className}, which does not exist${judged}`,
      fix: `create GatewayClass ${className} for your Gateway API controller (or set the Gateway's gatewayClassName to an existing class)`,
    };
  if (cls && condition(cls, "Accepted")?.status !== "True")
    return {
      text: `no status for parent ${label}: no controller has accepted GatewayClass ${className} (controllerName ${controller}), so no Gateway API controller is running for it${judged}`,
      fix: `install or start the Gateway API controller for ${controller} (Envoy Gateway: its Deployment in nvcf:gateway.controllerNamespace), then run nvcf status again`,
    };
  return {
    text: `no status for parent ${label}: ${controller ? `the controller ${controller}` : "no controller"} has written none on the route${judged}`,
    fix: `run nvcf status again in a moment; if the status stays missing, read the logs of the Gateway API controller${controller ? ` (${controller})` : ""}${statik ? ", and fix the Gateway's listeners or namespace labels" : ""}${missing.length ? ", and install the release that serves the backend" : ""}`,
  };
}

/** The fix for a condition a controller reported false, by the specification's reason. */
function conditionFix(
  stack: string,
  route: ManifestObject,
  p: ParentRef,
  c: RouteCondition,
  live: LiveState,
): string {
  const ns = p.namespace ?? route.namespace;
  const gw = live.gateways.find((g) => g.metadata.namespace === ns && g.metadata.name === p.name);
  const names = ((gw?.spec?.listeners ?? []) as Listener[]).map((l) => l.name).join(", ");
  const kind = route.kind;
  switch (c.reason) {
    case "NoMatchingParent":
      return `give Gateway ${ns}/${p.name} a listener named "${p.sectionName ?? ""}"${p.port ? ` on port ${p.port}` : ""}, or point the route's parentRef at one it has (${names || "none"})`;
    case "NotAllowedByListeners":
      return `let the listener admit the route: label namespace ${route.namespace} nvcf/platform=true (the listeners' allowedRoutes selector), or allow ${kind}s from it in the listener's allowedRoutes`;
    case "NoMatchingListenerHostname":
      return `give the route a hostname under the listener's hostname, or change the listener's hostname (the routes' hostnames end in nvcf:domain)`;
    case "BackendNotFound": {
      const gone = missingBackends(route, live);
      return `install the release that serves ${gone.length ? `Service ${gone.join(", ")}` : "the backend"} (pulumi up -s ${stack} --refresh reinstalls a release removed outside Pulumi), or fix the route's backendRef`;
    }
    case "RefNotPermitted":
      return `add a ReferenceGrant in the backend's namespace that allows ${kind}s from namespace ${route.namespace} (the ingress release renders them: pulumi up -s ${stack} --refresh)`;
    case "InvalidKind":
      return "point the route's backendRef at a core Service";
    default:
      return `kubectl get ${kind.toLowerCase()} -n ${route.namespace} ${route.name} -o yaml shows the controller's message; fix the listener (name, protocol, allowedRoutes) or the backend and its ReferenceGrant`;
  }
}

const conditionText = (c: RouteCondition, label: string) =>
  `${c.type}=${c.status} (${c.reason ?? "no reason"}) from Gateway ${label}${c.message ? `: ${c.message.slice(0, 200)}` : ""}`;

/**
 * Every route the releases render reports, from its Gateway's controller, `Accepted` True and `ResolvedRefs` not
 * False for each of its parentRefs (the status a Gateway API controller writes). A parent without status is itself a
 * finding, named by its cause (Gateway or GatewayClass missing, no controller running, none reported yet; what the
 * Gateway's spec says is added). A found problem names the route, the condition, the reason and the fix. `optional`:
 * route names whose backend may be absent (a `BackendNotFound` there passes, with the reason given).
 */
export function checkRoutes(
  stack: string,
  expected: readonly ExpectedRelease[],
  live: LiveState,
  optional: Readonly<Record<string, string>> = {},
): Finding[] {
  const out: Finding[] = [];
  const byId = new Map(live.routes.map((r) => [`${r.kind}/${r.metadata.namespace}/${r.metadata.name}`, r]));
  for (const r of expected) {
    const rel = live.releases.get(`${r.namespace}/${r.name}`)?.[0];
    if (!rel) continue;
    for (const o of manifestObjects(rel.manifest, r.namespace).filter((x) => ROUTE_KINDS.includes(x.kind))) {
      const obj = `${o.kind} ${o.namespace}/${o.name}`;
      const route = byId.get(`${o.kind}/${o.namespace}/${o.name}`);
      if (!route) {
        out.push(
          fail(
            "health.routes",
            stack,
            obj,
            `missing (release ${r.name} renders it)`,
            "the route the release installed",
            `pulumi up -s ${stack} --refresh`,
          ),
        );
        continue;
      }
      const live0 = { ...o, spec: route.spec ?? o.spec };
      const refs = (live0.spec?.parentRefs ?? []) as ParentRef[];
      const entries = (route.status?.parents ?? []) as RouteParentStatus[];
      const problems: RouteProblem[] = [];
      const notes: string[] = [];
      if (refs.length === 0)
        problems.push({
          text: "it names no parent Gateway",
          fix: "give the route a parentRef to the Gateway (the ingress release renders them from nvcf:gateway.*)",
        });
      for (const p of refs) {
        const want = JSON.stringify(normalRef(p, o.namespace));
        const entry = entries.find(
          (e) => e.parentRef && JSON.stringify(normalRef(e.parentRef, o.namespace)) === want,
        );
        if (!entry) {
          problems.push(unreportedParent(stack, live0, p, live));
          continue;
        }
        const label = parentLabel(p, o.namespace);
        const acc = entry.conditions?.find((c) => c.type === "Accepted");
        const res = entry.conditions?.find((c) => c.type === "ResolvedRefs");
        if (acc?.status !== "True")
          problems.push(
            acc
              ? { text: conditionText(acc, label), fix: conditionFix(stack, live0, p, acc, live) }
              : {
                  text: `no Accepted condition from Gateway ${label}`,
                  fix: `read the logs of the Gateway API controller${entry.controllerName ? ` ${entry.controllerName}` : ""}`,
                },
          );
        if (res && res.status === "False") {
          if (optional[o.name] && res.reason === "BackendNotFound")
            notes.push(`${conditionText(res, label)}, as expected: ${optional[o.name]}`);
          else
            problems.push({ text: conditionText(res, label), fix: conditionFix(stack, live0, p, res, live) });
        }
      }
      if (problems.length) {
        out.push(
          fail(
            "health.routes",
            stack,
            obj,
            problems.map((x) => x.text).join("; "),
            "the route Accepted by its Gateway's controller on every parent, with its references resolved (ResolvedRefs)",
            [...new Set(problems.map((x) => x.fix))].join("; "),
          ),
        );
        continue;
      }
      const parents = refs.map((p) => parentLabel(p, o.namespace)).join(", ");
      out.push(
        pass(
          "health.routes",
          stack,
          obj,
          notes.length
            ? `Accepted by Gateway ${parents}; ${notes.join("; ")}`
            : `Accepted=True, ResolvedRefs=True from Gateway ${parents}`,
        ),
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// GPU clusters (docs/upstream-facts.md §2.8, §2.9, §4 row 15)

/** What the compute checks read from a GPU cluster. */
export interface ComputeState {
  /** ConfigMap nvca-operator/nvcfbackend-self-managed, when present. */
  identity?: KubeObject;
  /** NVCFBackends in nvca-operator; undefined when the CRD is not served. */
  backends?: KubeObject[];
  /** Pods of namespace nvca-system. */
  agentPods: KubeObject[];
  /** DaemonSet kube-system/node-inotify-tuner, when present. */
  tuner?: KubeObject;
}

/** The registration a cluster should carry (the control plane's `clusterRegistrations` output), when known. */
export interface ExpectedIdentity {
  clusterID: string;
  clusterGroupID: string;
}

/**
 * Per GPU cluster: the identity ConfigMap holds both IDs (and the expected ones when given), the NVCFBackend
 * reports `agentStatus: healthy`, the NVCA agent pods are ready, the inotify tuner runs. `env` names the
 * environment in fixes (`nvcf rotate --env <env> --cluster <name>` refreshes a stale JWKS).
 */
export function checkCompute(
  stack: string,
  clusterName: string,
  st: ComputeState,
  want?: ExpectedIdentity,
  env = "<env>",
): Finding[] {
  const out: Finding[] = [];
  const cmObj = "ConfigMap nvca-operator/nvcfbackend-self-managed";
  let dtoName: string | undefined;
  if (!st.identity)
    out.push(
      fail(
        "health.identity",
        stack,
        cmObj,
        "missing",
        "the identity ConfigMap helm-nvca-operator renders for a self-managed cluster",
        `pulumi up -s ${stack} --refresh`,
      ),
    );
  else {
    let dto: Record<string, unknown> = {};
    try {
      dto = (yaml.load(String(st.identity.data?.["cluster-dto.yaml"] ?? "")) ?? {}) as Record<
        string,
        unknown
      >;
    } catch {
      dto = {};
    }
    dtoName = typeof dto["clusterName"] === "string" ? (dto["clusterName"] as string) : undefined;
    const id = String(dto["clusterId"] ?? "");
    const group = String(dto["clusterGroupId"] ?? "");
    const missing = [!id && "clusterId", !group && "clusterGroupId"].filter(Boolean);
    if (missing.length)
      out.push(
        fail(
          "health.identity",
          stack,
          cmObj,
          `cluster-dto.yaml has no ${missing.join(" and no ")}`,
          "both registration IDs, or the operator cannot create a working NVCFBackend",
          `re-run the registration and this stack: pulumi up -s <control stack> then pulumi up -s ${stack} (the IDs come from the control plane's clusterRegistrations.${clusterName})`,
        ),
      );
    else if (want && (want.clusterID !== id || want.clusterGroupID !== group))
      out.push(
        fail(
          "health.identity",
          stack,
          cmObj,
          `clusterId ${id} / clusterGroupId ${group} differ from the control plane's registration (${want.clusterID} / ${want.clusterGroupID})`,
          "the IDs the registration returned",
          `pulumi up -s ${stack} (it reads the registration through the StackReference)`,
        ),
      );
    else out.push(pass("health.identity", stack, cmObj, `clusterId ${id}, clusterGroupId ${group}`));
  }
  const beObj = `NVCFBackend nvca-operator/${dtoName ?? clusterName}`;
  if (st.backends === undefined)
    out.push(
      fail(
        "health.nvcfbackend",
        stack,
        beObj,
        "the NVCFBackend CRD is not served",
        "helm-nvca-operator installed (it templates the CRD)",
        `pulumi up -s ${stack} --refresh`,
      ),
    );
  else {
    const be =
      st.backends.find((b) => b.metadata.name === dtoName || b.metadata.name === clusterName) ??
      (st.backends.length === 1 ? st.backends[0] : undefined);
    if (!be)
      out.push(
        fail(
          "health.nvcfbackend",
          stack,
          beObj,
          st.backends.length
            ? `no NVCFBackend for this cluster (found ${st.backends.map((b) => b.metadata.name).join(", ")})`
            : "no NVCFBackend",
          "the NVCFBackend the operator creates at start from nvcfbackend-self-managed",
          "kubectl logs -n nvca-operator deploy/nvca-operator -c nvca-operator shows why the operator did not create it",
        ),
      );
    else if (be.status?.agentStatus !== "healthy")
      out.push(
        fail(
          "health.nvcfbackend",
          stack,
          `NVCFBackend nvca-operator/${be.metadata.name}`,
          `agentStatus is ${be.status?.agentStatus ?? "not reported"}`,
          "agentStatus healthy (normally within 10 minutes of the install)",
          `kubectl logs -n nvca-system -l app.kubernetes.io/name=nvca; a 401 from ICMS means the registration's issuer or JWKS is stale: nvcf rotate --env ${env} --cluster ${clusterName} refreshes them in ICMS, keeping the cluster's IDs`,
        ),
      );
    else
      out.push(
        pass(
          "health.nvcfbackend",
          stack,
          `NVCFBackend nvca-operator/${be.metadata.name}`,
          "agentStatus healthy",
        ),
      );
  }
  const agents = st.agentPods.filter(
    (p) => p.metadata.labels?.["app.kubernetes.io/name"] === "nvca" || /^nvca-/.test(p.metadata.name),
  );
  if (agents.length === 0)
    out.push(
      fail(
        "health.agent",
        stack,
        "pods nvca-system/nvca-*",
        "no NVCA agent pod",
        "the agent pod the operator creates in nvca-system",
        "kubectl get nvcfbackends -n nvca-operator -o yaml and the operator's logs show why it has not deployed the agent",
      ),
    );
  for (const p of agents) {
    const ready = condition(p, "Ready")?.status === "True";
    const obj = `pod nvca-system/${p.metadata.name}`;
    if (ready) {
      out.push(pass("health.agent", stack, obj, "Ready"));
      continue;
    }
    const waiting = (
      (p.status?.containerStatuses ?? []) as {
        name: string;
        ready?: boolean;
        state?: { waiting?: { reason?: string } };
      }[]
    )
      .filter((c) => !c.ready)
      .map((c) => `${c.name}${c.state?.waiting?.reason ? ` ${c.state.waiting.reason}` : ""}`);
    out.push(
      fail(
        "health.agent",
        stack,
        obj,
        `not Ready (phase ${p.status?.phase ?? "?"}${waiting.length ? `; waiting: ${waiting.join(", ")}` : ""})`,
        "the agent pod Ready (agent, admission webhook and vault-agent containers)",
        `kubectl describe pod -n nvca-system ${p.metadata.name}; a crash-looping vault-agent means OpenBao or its migrations Job is not healthy on the control plane`,
      ),
    );
  }
  if (st.tuner) {
    const gap = workloadGap(st.tuner);
    out.push(
      gap
        ? fail(
            "health.workloads",
            stack,
            "DaemonSet kube-system/node-inotify-tuner",
            gap,
            "the tuner on every node",
            "kubectl describe ds -n kube-system node-inotify-tuner",
          )
        : pass("health.workloads", stack, "DaemonSet kube-system/node-inotify-tuner", "ready on every node"),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// NVIDIA's observability stack (deploy/stacks/observability; both planes)

/** What a stack's observability releases should have made, from its config (cli/health/index.ts). */
export interface ExpectedObservability {
  /** The observability namespace. */
  namespace: string;
  /** The OpenTelemetryCollector the stack's otel-collector release renders; absent when the collector is not installed. */
  collector?: {
    name: string;
    /** Whether its spec asks for the Target Allocator (`components.targetAllocator: install`). */
    targetAllocator: boolean;
    /** The labels its Target Allocator selects ServiceMonitors and PodMonitors by (`prometheusCR.*Selector.matchLabels`). */
    selectors: Record<"ServiceMonitor" | "PodMonitor", Record<string, string>>;
  };
  /** The monitors the default-monitors release renders for the profile (ServiceMonitors and PodMonitors). */
  monitors: { kind: "ServiceMonitor" | "PodMonitor"; name: string; namespace: string }[];
  /** The pull secret the stack's pods reference there; absent when the nodes authenticate themselves. */
  pullSecret?: string;
}

/** What the observability checks read from a cluster. */
export interface ObservabilityState {
  /** OpenTelemetryCollectors of the observability namespace; undefined when the CRD is not served. */
  collectors?: KubeObject[];
  /** ServiceMonitors and PodMonitors of the namespaces the monitors go to; undefined when the CRDs are not served. */
  serviceMonitors?: KubeObject[];
  podMonitors?: KubeObject[];
  /** The pull secret's `type` in the observability namespace; undefined when there is no such Secret. */
  pullSecretType?: string;
}

const matches = (labels: Record<string, string> | undefined, want: Record<string, string>) =>
  Object.entries(want).every(([k, v]) => labels?.[k] === v);

/**
 * The observability stack of one cluster: the collector object the otel-collector release renders exists, with
 * the Target Allocator on when the stack installs it (NVIDIA's acceptance feature checks
 * `spec.targetAllocator.enabled: true`); every monitor of the profile exists (on a GPU cluster the NVCA
 * ServiceMonitor and the DCGM and worker PodMonitors) and carries the labels the collector's Target Allocator
 * selects (the collector is wired to it); the pull secret is in the observability namespace. Input: the stack,
 * what it declares and what the cluster holds. Output: one finding per object.
 */
export function checkObservability(
  stack: string,
  want: ExpectedObservability,
  st: ObservabilityState,
): Finding[] {
  const out: Finding[] = [];
  const ns = want.namespace;
  const bad = (obj: string, found: string, needed: string, fix: string) =>
    out.push(fail("health.observability", stack, obj, found, needed, fix));
  const ok = (obj: string, found: string) => out.push(pass("health.observability", stack, obj, found));
  const rerunRelease = (release: string) =>
    `pulumi up -s ${stack} --refresh (the refresh notices the release's missing objects; helm history ${release} -n ${ns} shows what it last did)`;
  if (want.collector) {
    const c = want.collector;
    const obj = `OpenTelemetryCollector ${ns}/${c.name}`;
    const live = st.collectors?.find((x) => x.metadata.name === c.name);
    if (st.collectors === undefined)
      bad(
        obj,
        "the OpenTelemetryCollector CRD is not served",
        "the CRDs of the OpenTelemetry Operator (release opentelemetry-operator, or the existing operator of observability.components.otelOperator: existing)",
        rerunRelease("opentelemetry-operator"),
      );
    else if (!live)
      bad(
        obj,
        "missing",
        "the collector object release otel-collector renders",
        rerunRelease("otel-collector"),
      );
    else if (c.targetAllocator && live.spec?.targetAllocator?.enabled !== true)
      bad(
        obj,
        "spec.targetAllocator.enabled is not true",
        "the Target Allocator on (observability.components.targetAllocator: install), which discovers the monitors",
        rerunRelease("otel-collector"),
      );
    else
      ok(
        obj,
        c.targetAllocator
          ? "exists, Target Allocator enabled"
          : "exists (no Target Allocator: not installed by the stack)",
      );
  }
  for (const m of want.monitors) {
    const obj = `${m.kind} ${m.namespace}/${m.name}`;
    const list = m.kind === "ServiceMonitor" ? st.serviceMonitors : st.podMonitors;
    const live = list?.find((x) => x.metadata.name === m.name && x.metadata.namespace === m.namespace);
    const selector = want.collector?.targetAllocator ? want.collector.selectors[m.kind] : undefined;
    if (list === undefined)
      bad(
        obj,
        `the ${m.kind} CRD is not served`,
        "the Prometheus Operator CRDs (release prometheus-operator-crds, or existing ones)",
        rerunRelease("prometheus-operator-crds"),
      );
    else if (!live)
      bad(
        obj,
        "missing",
        "the monitor release default-monitors renders for the profile",
        rerunRelease("default-monitors"),
      );
    else if (selector && !matches(live.metadata.labels, selector))
      bad(
        obj,
        `its labels lack ${Object.entries(selector)
          .map(([k, v]) => `${k}=${v}`)
          .join(", ")}`,
        `the labels collector ${want.collector?.name}'s Target Allocator selects, or it scrapes nothing from this monitor`,
        `set the label through nvcf:releaseValues.default-monitors.commonLabels, then pulumi up -s ${stack}`,
      );
    else
      ok(
        obj,
        selector ? `exists, selected by collector ${want.collector?.name}'s Target Allocator` : "exists",
      );
  }
  if (want.pullSecret) {
    const obj = `Secret ${ns}/${want.pullSecret}`;
    if (st.pullSecretType === undefined)
      bad(
        obj,
        "missing",
        "the image pull secret the observability releases' pods reference",
        `pulumi up -s ${stack} --refresh (nvcf:pullSecret.create true), or create it in ${ns} (create false)`,
      );
    else if (st.pullSecretType !== "kubernetes.io/dockerconfigjson")
      bad(
        obj,
        `of type ${st.pullSecretType}`,
        "a kubernetes.io/dockerconfigjson Secret",
        `pulumi up -s ${stack} --refresh`,
      );
    else ok(obj, "the image pull secret (kubernetes.io/dockerconfigjson)");
  }
  return out;
}
