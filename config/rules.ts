/**
 * Cross-field config rules (pure functions). Each returns the problems it finds; `controlPlaneRules` and
 * `computePlaneRules` run them all. Sources: spec §1.5 (observability), §1.9 (template validations),
 * §2.3/§2.6 (compute plane) and the control/compute rows of §4 that can be checked from config.
 */
import {
  CONTROL_PLANE_RELEASES,
  COMPUTE_PLANE_RELEASES,
  type BundleVersion,
  releaseSpec,
} from "../catalog/releases";
import { CASSANDRA_DEFAULT_PASSWORD, registryKeyProblems } from "../values/credentials";
import { httpRouteHostnames } from "../values/routes";
import { type Problem, describe } from "./problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "./schema";

const K = (path: string) => `nvcf:${path}`;
const PLACEHOLDER_REPO = "YOUR_ORG/YOUR_TEAM";

/** Context a rule may need beyond the config: the stack name (dev stacks relax production-only rules). */
export interface RuleContext {
  stack: string;
}

/** True for stacks whose name starts with `dev` (local and throwaway environments). */
export const isDevStack = (stack: string) => /^dev($|[-_])/.test(stack);

type Charts = ControlPlaneConfig["charts"];

/** Chart source rules (spec §1.2, user reports C1/C2). */
export function chartSourceRules(
  charts: Charts,
  plane: "control" | "compute",
  bundle: BundleVersion,
): Problem[] {
  const out: Problem[] = [];
  if (charts.source === "local" && !charts.path) {
    out.push({
      key: K("charts.path"),
      expected: "a directory of charts when charts.source is local",
      found: "nothing",
      fix: "pulumi config set --path nvcf:charts.path <dir>",
    });
  }
  if (charts.source === "https" && !/^https:\/\//.test(charts.url ?? "")) {
    out.push({
      key: K("charts.url"),
      expected: "an https:// Helm repository URL when charts.source is https",
      found: describe(charts.url),
      fix: "pulumi config set --path nvcf:charts.url https://helm.ngc.nvidia.com/<org>/<team>",
    });
  }
  if (charts.source === "oci" && charts.repository === PLACEHOLDER_REPO) {
    out.push({
      key: K("charts.repository"),
      expected: "your chart repository (the OCI path under charts.registry)",
      found: describe(charts.repository),
      fix: "pulumi config set --path nvcf:charts.repository <org>/<team>",
    });
  }
  const known = new Set(
    (plane === "control" ? CONTROL_PLANE_RELEASES : COMPUTE_PLANE_RELEASES).map((r) => r.name),
  );
  for (const name of Object.keys(charts.versionOverrides)) {
    if (!known.has(name)) {
      out.push({
        key: K(`charts.versionOverrides.${name}`),
        expected: `a ${plane}-plane release name (${[...known].join(", ")})`,
        found: describe(name),
        fix: `remove the key or use one of the release names`,
      });
    } else if (releaseSpec(name).versions[bundle] === undefined) {
      out.push({
        key: K(`charts.versionOverrides.${name}`),
        expected: `a release that NVCF bundle ${bundle} ships`,
        found: describe(name),
        fix: `remove the override, or choose a bundleVersion that includes ${name}`,
      });
    }
  }
  return out;
}

/** Release-values override rules: only known releases (user report C13). */
export function releaseValuesRules(values: Record<string, unknown>, plane: "control" | "compute"): Problem[] {
  const known = new Set(
    (plane === "control" ? CONTROL_PLANE_RELEASES : COMPUTE_PLANE_RELEASES).map((r) => r.name),
  );
  return Object.keys(values)
    .filter((k) => !known.has(k))
    .map((k) => ({
      key: K(`releaseValues.${k}`),
      expected: `a ${plane}-plane release name`,
      found: describe(k),
      fix: `use one of: ${[...known].join(", ")}`,
    }));
}

/** A secret registry key's format (spec §4 row 2); reasons never quote the key. */
export function registryKeyRules(key: string | undefined, path: string): Problem[] {
  if (key === undefined) return [];
  return registryKeyProblems(key).map((reason) => ({
    key: K(path),
    expected: "the plain registry key or password",
    found: `[secret] (${reason})`,
    fix: `pulumi config set --secret nvcf:${path} <key>`,
  }));
}

function pullSecretRules(cfg: {
  pullSecret: ControlPlaneConfig["pullSecret"];
  registryKey?: string;
}): Problem[] {
  if (cfg.pullSecret.name !== null && cfg.pullSecret.create && cfg.registryKey === undefined) {
    return [
      {
        key: K("registryKey"),
        expected: "the image registry key (secret) because pullSecret.create is true",
        found: "nothing",
        fix: "pulumi config set --secret nvcf:registryKey <key>, or pulumi config set --path nvcf:pullSecret.create false if the secret exists, or --path nvcf:pullSecret.name null if nodes authenticate to the registry",
      },
    ];
  }
  return [];
}

/** Observability mode rules (spec §1.5, §4 row 31). */
export function observabilityRules(cfg: ControlPlaneConfig): Problem[] {
  const o = cfg.observability;
  const c = o.components;
  const mb = o.metricsBackend;
  const out: Problem[] = [];
  const add = (key: string, expected: string, found: unknown, fix: string) =>
    out.push({ key: K(key), expected, found: describe(found), fix });
  const on = o.profile !== "disabled";
  const controlish = o.profile === "control" || o.profile === "all";
  if (!on) return out;
  if (c.collector === "install" && c.otelOperator === "disabled")
    add(
      "observability.components.otelOperator",
      "install or existing when the collector is installed",
      c.otelOperator,
      "set components.otelOperator to install or existing, or components.collector to existing/disabled",
    );
  if (c.collector === "install" && mb.mode === "disabled")
    add(
      "observability.metricsBackend.mode",
      "install or existing when the collector is installed",
      mb.mode,
      "set metricsBackend.mode to install or existing",
    );
  if (c.targetAllocator === "install" && c.collector !== "install")
    add(
      "observability.components.targetAllocator",
      "not install unless the collector is installed",
      c.targetAllocator,
      "set components.targetAllocator to existing/disabled, or components.collector to install",
    );
  if (c.targetAllocator === "install" && c.discoveryRbac === "disabled")
    add(
      "observability.components.discoveryRbac",
      "install or existing when the target allocator is installed",
      c.discoveryRbac,
      "set components.discoveryRbac to install",
    );
  if (c.prometheusOperatorCrds === "disabled")
    add(
      "observability.components.prometheusOperatorCrds",
      `install or existing when observability.profile is ${o.profile}`,
      c.prometheusOperatorCrds,
      "set it to install or existing, or observability.profile to disabled",
    );
  if (controlish && mb.mode === "disabled")
    add(
      "observability.metricsBackend.mode",
      `install or existing when observability.profile is ${o.profile}`,
      mb.mode,
      "set metricsBackend.mode to install or existing",
    );
  if (controlish && !cfg.stateMetrics.enabled)
    add(
      "stateMetrics.enabled",
      `true when observability.profile is ${o.profile} (the function autoscaler reads it)`,
      false,
      "pulumi config set --path nvcf:stateMetrics.enabled true, or set observability.profile to disabled/compute",
    );
  if (mb.mode === "install" && mb.type !== "victoriaMetrics")
    add(
      "observability.metricsBackend.type",
      "victoriaMetrics when metricsBackend.mode is install",
      mb.type,
      "set metricsBackend.type to victoriaMetrics",
    );
  if (mb.mode === "install" && mb.auth.mode !== "none")
    add(
      "observability.metricsBackend.auth.mode",
      "none when metricsBackend.mode is install",
      mb.auth.mode,
      "set auth.mode to none",
    );
  if (mb.mode === "existing") {
    if (mb.type !== "external")
      add(
        "observability.metricsBackend.type",
        "external when metricsBackend.mode is existing",
        mb.type,
        "set metricsBackend.type to external",
      );
    if (!mb.remoteWriteEndpoint)
      add(
        "observability.metricsBackend.remoteWriteEndpoint",
        "a URL when metricsBackend.mode is existing",
        mb.remoteWriteEndpoint,
        "set metricsBackend.remoteWriteEndpoint",
      );
    if (controlish && !mb.promqlEndpoint)
      add(
        "observability.metricsBackend.promqlEndpoint",
        `a URL when metricsBackend.mode is existing and profile is ${o.profile}`,
        mb.promqlEndpoint,
        "set metricsBackend.promqlEndpoint",
      );
  }
  if (mb.auth.mode === "token" && !mb.auth.authnEndpoint)
    add(
      "observability.metricsBackend.auth.authnEndpoint",
      "a URL when auth.mode is token",
      mb.auth.authnEndpoint,
      "set auth.authnEndpoint",
    );
  if (mb.auth.mode === "mtls") {
    if (!mb.auth.certPath)
      add(
        "observability.metricsBackend.auth.certPath",
        "a path when auth.mode is mtls",
        mb.auth.certPath,
        "set auth.certPath",
      );
    if (!mb.auth.keyPath)
      add(
        "observability.metricsBackend.auth.keyPath",
        "a path when auth.mode is mtls",
        mb.auth.keyPath,
        "set auth.keyPath",
      );
  }
  return out;
}

const HOSTPORT =
  /^(([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\]):([0-9]{1,5})$/;
const RFC1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** LLM addon rules (spec §1.9, §4 row 32). */
export function llmRules(cfg: ControlPlaneConfig): Problem[] {
  const llm = cfg.addons.llm;
  const out: Problem[] = [];
  if (!llm.enabled) return out;
  if (llm.requestRouterAddress) {
    const m = HOSTPORT.exec(llm.requestRouterAddress);
    const p = m ? Number(m[6]) : 0;
    if (!m || p < 1 || p > 65535)
      out.push({
        key: K("addons.llm.requestRouterAddress"),
        expected: "dns-or-ipv4:port or [ipv6]:port with port 1-65535",
        found: describe(llm.requestRouterAddress),
        fix: "e.g. llm-request-router.nvcf.svc.cluster.local:50071",
      });
  }
  const pki = llm.pki;
  if (!pki.enabled) return out;
  if (pki.mode === "certManager") {
    if (!RFC1123.test(pki.issuerName) || pki.issuerName.length > 253)
      out.push({
        key: K("addons.llm.pki.issuerName"),
        expected: "a lowercase RFC 1123 subdomain of at most 253 characters",
        found: describe(pki.issuerName),
        fix: "e.g. nvcf-openbao-pki",
      });
    if (pki.dnsNames.length === 0)
      out.push({
        key: K("addons.llm.pki.dnsNames"),
        expected: "at least one DNS name in certManager mode",
        found: "[]",
        fix: "pulumi config set --path 'nvcf:addons.llm.pki.dnsNames[0]' llm-request-router.nvcf.svc.cluster.local",
      });
    const managed = llmManagesIssuer(cfg);
    if (pki.manageClusterIssuer === true && pki.issuerKind !== "ClusterIssuer")
      out.push({
        key: K("addons.llm.pki.issuerKind"),
        expected: "ClusterIssuer when the stack manages the issuer",
        found: describe(pki.issuerKind),
        fix: "set issuerKind to ClusterIssuer or manageClusterIssuer to false",
      });
    if (managed && !cfg.openbao.enabled)
      out.push({
        key: K("openbao.enabled"),
        expected: "true when the stack manages the LLM PKI issuer",
        found: "false",
        fix: "enable OpenBao or set addons.llm.pki.manageClusterIssuer false",
      });
    if (managed && !pki.allowedDomains)
      out.push({
        key: K("addons.llm.pki.allowedDomains"),
        expected: "the domains the managed issuer may sign",
        found: "nothing",
        fix: "set addons.llm.pki.allowedDomains",
      });
    if (managed && !pki.imageTag && !cfg.openbao.migrationsImageTag)
      out.push({
        key: K("addons.llm.pki.imageTag"),
        expected: "an image tag (or openbao.migrationsImageTag) for the managed issuer",
        found: "nothing",
        fix: "set addons.llm.pki.imageTag",
      });
  } else {
    if (!pki.secretName)
      out.push({
        key: K("addons.llm.pki.secretName"),
        expected: "a kubernetes.io/tls Secret name in existingSecret mode",
        found: "nothing",
        fix: "set addons.llm.pki.secretName",
      });
    if (pki.manageClusterIssuer === true)
      out.push({
        key: K("addons.llm.pki.manageClusterIssuer"),
        expected: "false or unset in existingSecret mode",
        found: "true",
        fix: "remove addons.llm.pki.manageClusterIssuer",
      });
    if (pki.dnsNames.length > 0 || pki.allowedDomains)
      out.push({
        key: K("addons.llm.pki.dnsNames"),
        expected: "dnsNames and allowedDomains empty in existingSecret mode",
        found: describe({ dnsNames: pki.dnsNames, allowedDomains: pki.allowedDomains }),
        fix: "remove addons.llm.pki.dnsNames and allowedDomains",
      });
  }
  return out;
}

/** Whether the stack manages the LLM PKI ClusterIssuer (renders `nvcf-pki`, spec §1.3/§1.9). */
export function llmManagesIssuer(cfg: ControlPlaneConfig): boolean {
  const pki = cfg.addons.llm.pki;
  if (!cfg.addons.llm.enabled || !pki.enabled || pki.mode !== "certManager") return false;
  return (
    pki.manageClusterIssuer ?? (pki.issuerKind === "ClusterIssuer" && pki.issuerName === "nvcf-openbao-pki")
  );
}

/** Rules of the control-plane stack (spec §1.5, §1.9, §4). Returns every problem found. */
export function controlPlaneRules(cfg: ControlPlaneConfig, ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  const add = (key: string, expected: string, found: string, fix: string) =>
    out.push({ key: K(key), expected, found, fix });
  const dev = isDevStack(ctx.stack);
  const bundle = cfg.bundleVersion;

  out.push(...chartSourceRules(cfg.charts, "control", bundle));
  out.push(...releaseValuesRules(cfg.releaseValues, "control"));
  if (cfg.images.repository === PLACEHOLDER_REPO)
    add(
      "images.repository",
      "your image repository",
      describe(cfg.images.repository),
      "pulumi config set --path nvcf:images.repository <org>/<team>",
    );
  out.push(...pullSecretRules(cfg));
  out.push(...registryKeyRules(cfg.registryKey, "registryKey"));
  out.push(...registryKeyRules(cfg.sidecarRegistryKey, "sidecarRegistryKey"));
  out.push(...registryKeyRules(cfg.functionRegistryKey, "functionRegistryKey"));
  if (
    cfg.accounts.registryCredentials.length > 0 &&
    (cfg.functionRegistryKey ?? cfg.registryKey) === undefined
  )
    add(
      "functionRegistryKey",
      "the key of the function-image registry (secret) for accounts.registryCredentials",
      "nothing",
      "pulumi config set --secret nvcf:functionRegistryKey <key> (or nvcf:registryKey)",
    );
  if (cfg.sidecarRegistryKey === undefined && cfg.registryKey === undefined)
    add(
      "registryKey",
      "a registry key (secret) for the sidecar image-pull credential that nvcf-api hands to workers",
      "nothing",
      "pulumi config set --secret nvcf:registryKey <key> (or nvcf:sidecarRegistryKey)",
    );

  // Cassandra (spec §4 rows 1, 27).
  if (cfg.cassandraPassword !== undefined) {
    if (cfg.cassandraPassword === CASSANDRA_DEFAULT_PASSWORD)
      add(
        "cassandraPassword",
        "a password other than the chart default",
        "[secret] (the chart default ch@ng3m3)",
        "pulumi config rm nvcf:cassandraPassword to have one generated, or set another with --secret",
      );
    else if (cfg.cassandraPassword.length < 8)
      add(
        "cassandraPassword",
        "at least 8 characters",
        "[secret] (shorter)",
        "pulumi config set --secret nvcf:cassandraPassword <password>",
      );
  }
  if (!dev && ["none", "nano", "micro", "small"].includes(cfg.cassandra.preset))
    add(
      "cassandra.preset",
      "medium or larger outside dev stacks (small runs out of memory at first boot)",
      describe(cfg.cassandra.preset),
      "pulumi config set --path nvcf:cassandra.preset xlarge",
    );

  // Account limits (spec §1.9, §4 row 33).
  const limits: [keyof ControlPlaneConfig["accounts"]["limits"], number][] = [
    ["maxFunctions", 50],
    ["maxTasks", 50],
    ["maxTelemetries", 25],
    ["maxRegistryCreds", 25],
  ];
  for (const [k, max] of limits) {
    const v = cfg.accounts.limits[k];
    if (v < 1 || v > max)
      add(
        `accounts.limits.${k}`,
        `a whole number from 1 to ${max}`,
        describe(v),
        `pulumi config set --path nvcf:accounts.limits.${k} ${Math.min(max, 10)}`,
      );
  }

  // Gateway (spec §1.9, §4 rows 7, 8, 18, 19, 20, 34).
  const g = cfg.gateway;
  if (!g.controllerNamespace)
    add(
      "gateway.controllerNamespace",
      "the gateway controller's namespace (the ingress release goes there)",
      "nothing",
      "pulumi config set --path nvcf:gateway.controllerNamespace envoy-gateway-system",
    );
  for (const which of ["shared", "grpc"] as const) {
    for (const f of ["name", "namespace"] as const) {
      if (!g[which][f])
        add(
          `gateway.${which}.${f}`,
          `the ${which} Gateway's ${f}`,
          "nothing",
          `pulumi config set --path nvcf:gateway.${which}.${f} ${f === "name" ? "nvcf-gateway" : "envoy-gateway"}`,
        );
    }
  }
  if (g.routes.nats) {
    for (const f of ["name", "namespace"] as const)
      if (!g.nats[f])
        add(
          `gateway.nats.${f}`,
          `the NATS Gateway's ${f} when gateway.routes.nats is on`,
          "nothing",
          `pulumi config set --path nvcf:gateway.nats.${f} <value>`,
        );
    if (!cfg.nats.enabled)
      add(
        "gateway.routes.nats",
        "false when nats.enabled is false",
        "true",
        "turn the NATS route off or enable NATS",
      );
  }
  if (
    g.routes.grpcWorker.enabled &&
    !cfg.grpcproxy.workerConnectBaseURL &&
    !cfg.workerEndpoints.grpcProxyWorkerConnectURL
  )
    add(
      "grpcproxy.workerConnectBaseURL",
      "a worker CONNECT base URL when gateway.routes.grpcWorker is on",
      "nothing",
      "set grpcproxy.workerConnectBaseURL or workerEndpoints.grpcProxyWorkerConnectURL",
    );
  const hosts = httpRouteHostnames(cfg);
  const seen = new Map<string, string>();
  for (const [route, names] of Object.entries(hosts)) {
    for (const h of names) {
      const other = seen.get(h);
      if (other !== undefined)
        add(
          route === "vanity-gateway" || other === "vanity-gateway"
            ? "addons.vanityGateway.hostnames"
            : "domain",
          "unique hostnames across enabled HTTPRoutes (all match PathPrefix /)",
          `${describe(h)} on both ${other} and ${route}`,
          "give the vanity gateway its own hostnames",
        );
      else seen.set(h, route);
    }
  }
  if (
    (cfg.remoteAccess || cfg.gpuClusters.length > 0 || cfg.aws?.route53ZoneId) &&
    cfg.domain === "localhost"
  )
    add(
      "domain",
      "a DNS suffix other than localhost when other clusters or clients reach the control plane",
      describe(cfg.domain),
      "pulumi config set nvcf:domain nvcf.example.com",
    );

  // Add-ons available in the bundle (spec §5.2).
  const addonReleases: [boolean, string, string][] = [
    [cfg.addons.llm.enabled, "llm-request-router", "addons.llm.enabled"],
    [cfg.addons.nvcfUi.enabled, "nvcf-ui", "addons.nvcfUi.enabled"],
    [cfg.addons.vanityGateway.enabled, "vanity-gateway", "addons.vanityGateway.enabled"],
    [llmManagesIssuer(cfg), "nvcf-pki", "addons.llm.pki.enabled"],
  ];
  for (const [on, rel, key] of addonReleases)
    if (on && releaseSpec(rel).versions[bundle] === undefined)
      add(
        key,
        `false: NVCF bundle ${bundle} does not ship ${rel}`,
        "true",
        `turn it off or set nvcf:bundleVersion to ${Object.keys(releaseSpec(rel).versions).join(" or ")}`,
      );

  out.push(...observabilityRules(cfg));
  out.push(...llmRules(cfg));

  // GPU clusters (issue 4; spec §4 rows 14, 26).
  const names = new Set<string>();
  cfg.gpuClusters.forEach((c, i) => {
    if (names.has(c.name))
      add(
        `gpuClusters[${i}].name`,
        "a name not used by another GPU cluster",
        describe(c.name),
        "rename one of them",
      );
    names.add(c.name);
    if (!c.context && cfg.gpuClusterKubeconfigs[c.name] === undefined)
      add(
        `gpuClusters[${i}].context`,
        `a kubeconfig context, or a kubeconfig at nvcf:gpuClusterKubeconfigs.${c.name}`,
        "nothing",
        `pulumi config set --path 'nvcf:gpuClusters[${i}].context' <context>`,
      );
  });
  for (const k of Object.keys(cfg.gpuClusterKubeconfigs))
    if (!names.has(k))
      add(
        `gpuClusterKubeconfigs.${k}`,
        "a kubeconfig for a cluster listed in nvcf:gpuClusters",
        describe(k),
        "remove it or add the cluster to nvcf:gpuClusters",
      );
  if (cfg.gpuClusters.length > 0 && !cfg.openbao.issuerDiscovery)
    add(
      "openbao.issuerDiscovery",
      "true when GPU clusters are registered (the CLI discovers the issuer)",
      "false",
      "pulumi config set --path nvcf:openbao.issuerDiscovery true",
    );
  if (cfg.gpuClusters.length > 0 && !cfg.gateway.routes.nats)
    add(
      "gateway.routes.nats",
      "true when GPU clusters are registered (NVCA reaches NATS through the gateway)",
      "false",
      "pulumi config set --path nvcf:gateway.routes.nats true",
    );
  return out;
}

/** The default feature gates NVCA gets (spec §2.6). */
export const DEFAULT_FEATURE_GATES = [
  "DynamicGPUDiscovery",
  "InfraResourceOverhead",
  "EnforceHelmFunctionResourceLimits",
  "EnforceContainerFunctionResourceLimits",
  "EnforceHelmTaskResourceLimits",
  "EnforceContainerTaskResourceLimits",
] as const;

/** Compares dotted versions numerically (a leading `v` and pre-release suffixes ignored). */
export function versionAtLeast(version: string, min: string): boolean {
  const parse = (v: string) =>
    v
      .replace(/^v/, "")
      .split(/[-+]/)[0]
      .split(".")
      .map((n) => Number(n) || 0);
  const a = parse(version);
  const b = parse(min);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/** Rules of a compute-plane stack (spec §2.3, §2.6, §4 rows 9-12, 37). Returns every problem found. */
export function computePlaneRules(cfg: ComputePlaneConfig, _ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  const add = (key: string, expected: string, found: string, fix: string) =>
    out.push({ key: K(key), expected, found, fix });
  const a = cfg.addons;
  out.push(...chartSourceRules(cfg.charts, "compute", cfg.bundleVersion));
  out.push(...releaseValuesRules(cfg.releaseValues, "compute"));
  // No registry key here is fine: the pull secret then uses the control plane's key (contract output).
  out.push(...registryKeyRules(cfg.registryKey, "registryKey"));
  if (a.topologyAwareScheduling.enabled && !a.kaiScheduler.enabled)
    add(
      "addons.topologyAwareScheduling.enabled",
      "false unless addons.kaiScheduler.enabled (topology needs KAI)",
      "true",
      "enable addons.kaiScheduler or turn topology off",
    );
  if (a.groveOperator.enabled && !a.kaiScheduler.enabled)
    add(
      "addons.groveOperator.enabled",
      "false unless addons.kaiScheduler.enabled (Grove needs KAI)",
      "true",
      "enable addons.kaiScheduler or turn Grove off",
    );
  if (a.dynamoOperator.enabled && !a.groveOperator.enabled)
    add(
      "addons.dynamoOperator.enabled",
      "false unless addons.groveOperator.enabled (Dynamo needs Grove)",
      "true",
      "enable addons.groveOperator or turn Dynamo off",
    );
  cfg.nvcaOperator.featureGates.forEach((g, i) => {
    if (g === "KAIScheduler" && !a.kaiScheduler.enabled)
      add(
        `nvcaOperator.featureGates[${i}]`,
        "KAIScheduler only when the KAI scheduler is installed",
        describe(g),
        "remove it, or enable addons.kaiScheduler (which adds the gate itself)",
      );
    if (!/^-?[A-Z][A-Za-z0-9]*$/.test(g))
      add(
        `nvcaOperator.featureGates[${i}]`,
        "a gate name such as LogPosting, or -Gate to remove a default",
        describe(g),
        "fix the spelling",
      );
  });
  const opVersion =
    cfg.charts.versionOverrides["nvca-operator"] ??
    releaseSpec("nvca-operator").versions[cfg.bundleVersion] ??
    "0";
  if (cfg.nvcaOperator.hostHeaderOverrides && !versionAtLeast(opVersion, "1.12.0"))
    add(
      "nvcaOperator.hostHeaderOverrides",
      `false with helm-nvca-operator ${opVersion} (overrides need >= 1.12.0)`,
      "true",
      "set nvcaOperator.hostHeaderOverrides false or use chart 1.12.0 or later",
    );
  const opValues = cfg.releaseValues["nvca-operator"] ?? {};
  if (opValues["generateImagePullSecret"] === true)
    add(
      "releaseValues.nvca-operator.generateImagePullSecret",
      "false: it does not work in self-managed mode",
      "true",
      "remove it; the program creates the pull secret (nvcf:pullSecret)",
    );
  if (cfg.inotify.maxUserInstances < 8192)
    add(
      "inotify.maxUserInstances",
      "at least 8192",
      describe(cfg.inotify.maxUserInstances),
      "pulumi config set --path nvcf:inotify.maxUserInstances 8192",
    );
  if (cfg.inotify.maxUserWatches < 524288)
    add(
      "inotify.maxUserWatches",
      "at least 524288",
      describe(cfg.inotify.maxUserWatches),
      "pulumi config set --path nvcf:inotify.maxUserWatches 524288",
    );
  return out;
}
