/**
 * Cross-field config rules (pure functions). Each returns the problems it finds; `controlPlaneRules` and
 * `computePlaneRules` run them all. Sources: docs/upstream-facts.md §1.5 (observability), §1.9 (template validations),
 * §2.3/§2.6 (compute plane) and the control/compute rows of §4 that can be checked from config.
 */
import {
  CONTROL_PLANE_RELEASES,
  COMPUTE_PLANE_RELEASES,
  type BundleVersion,
  releaseSpec,
} from "../catalog/releases";
import { MIRROR_KEYS, chartsOfMirror, parseLocation } from "../catalog/sources";
import { accountConfigRules } from "./accounts";
import { CASSANDRA_DEFAULT_PASSWORD, registryKeyProblems } from "./credentials";
import { routeProblems } from "./meaning";
import { maintenanceRules } from "./maintenance";
import { valueAt } from "./paths";
import { type Problem, describe } from "./problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "./schema";
import type { EnableFlag } from "../catalog/releases";
import { computeFlags, controlFlags, llmManagesIssuer } from "./flags";
import { type ObservabilitySettings, bundleShipsObservability, installsObservability } from "./observability";

const K = (path: string) => `nvcf:${path}`;
const PLACEHOLDER_REPO = "YOUR_ORG/YOUR_TEAM";

/** Context a rule may need beyond the config: the stack name (dev stacks relax production-only rules). */
export interface RuleContext {
  stack: string;
}

/** True for stacks whose name starts with `dev` (local and throwaway environments). */
export const isDevStack = (stack: string) => /^dev($|[-_])/.test(stack);

type Charts = ControlPlaneConfig["charts"];

/**
 * Chart source rules (docs/upstream-facts.md §1.2; origins and mirrors: catalog/sources.ts). Input: the
 * validated `charts` object, the plane and the bundle. Output: one problem per wrong key, naming the key and
 * the fix: a missing or unusable `charts.path`, a missing or non-https `charts.url`, the placeholder OCI
 * repository, unknown or unshipped `versionOverrides`, and per mirror an unparsable `location`, `credentials:
 * charts` on a directory or without `charts.username`, or a mirror for charts this plane never installs.
 */
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
  if (charts.path !== undefined && charts.path !== "") {
    const loc = parseLocation(charts.path);
    const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(charts.path.trim());
    if ("error" in loc || loc.kind !== "local")
      out.push({
        key: K("charts.path"),
        expected:
          "error" in loc && !isUrl
            ? `a directory: ${loc.error}`
            : "a directory (absolute, or relative to the project); registries go in charts.source/registry/url or charts.mirrors",
        found: describe(charts.path),
        fix: "pulumi config set --path nvcf:charts.path <absolute dir, or dir relative to the project>",
      });
  }
  // Charts this plane can install: its catalog releases, plus Envoy Gateway's chart on the control plane
  // (components/gateway.ts, gateway.install).
  const planeCharts = new Set(
    (plane === "control" ? CONTROL_PLANE_RELEASES : COMPUTE_PLANE_RELEASES).map((r) => r.chart),
  );
  if (plane === "control") planeCharts.add("gateway-helm");
  for (const key of MIRROR_KEYS) {
    const mirror = charts.mirrors[key];
    if (!mirror) continue;
    const at = `charts.mirrors.${key}`;
    const served = chartsOfMirror(key);
    if (!served.some((c) => planeCharts.has(c))) {
      out.push({
        key: K(at),
        expected: `a mirror for charts the ${plane} plane installs (${key} serves ${served.join(", ")})`,
        found: describe(mirror.location),
        fix: `pulumi config rm --path nvcf:${at} (set it on the stack of the other plane)`,
      });
      continue;
    }
    const loc = parseLocation(mirror.location);
    if ("error" in loc) {
      out.push({
        key: K(`${at}.location`),
        expected: loc.error,
        found: describe(mirror.location),
        fix: `pulumi config set --path nvcf:${at}.location <oci://host/path | https://repo | directory>`,
      });
      continue;
    }
    if (mirror.credentials === "charts" && loc.kind === "local")
      out.push({
        key: K(`${at}.credentials`),
        expected: "credentials only for oci:// or https:// locations (a directory needs none)",
        found: describe(mirror.credentials),
        fix: `pulumi config set --path nvcf:${at}.credentials none`,
      });
    else if (mirror.credentials === "charts" && !charts.username)
      out.push({
        key: K(`${at}.credentials`),
        expected:
          "nvcf:charts.username set: credentials: charts logs in as that user with nvcf:chartRegistryPassword",
        found: "no charts.username",
        fix: `pulumi config set --path nvcf:charts.username <user> (or set ${at}.credentials none)`,
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

/**
 * `releaseValues` rules: every mistake in a per-release override is a problem naming
 * its key. Input: the validated config of either plane and the rule context. Output, per override:
 * - a release this plane's catalog does not have (or one of the other plane), one that the stack's NVCF bundle
 *   does not ship, or one that is off in this config (the override would be silently unused);
 * - a top-level key other than the chart's values key (`catalog/releases.ts` `valuesKey`: NVIDIA's charts that
 *   have one read nothing else, see each chart's `values.yaml` under `deploy/helm/`), e.g.
 *   `releaseValues.api.image` for `releaseValues.api.api.image`; `global` is also accepted where the chart
 *   wraps upstream subcharts, which read Helm's `global` (openbao, nats, cert-manager);
 * - every rule of a first-class key that sets the same chart value (`releaseValueParityRules`).
 */
export function releaseValuesRules(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  ctx: RuleContext,
): Problem[] {
  const plane = cfg.plane;
  const bundle = cfg.bundleVersion;
  const own = plane === "control" ? CONTROL_PLANE_RELEASES : COMPUTE_PLANE_RELEASES;
  const other = plane === "control" ? COMPUTE_PLANE_RELEASES : CONTROL_PLANE_RELEASES;
  const flags =
    cfg.plane === "control"
      ? controlFlags(cfg as ControlPlaneConfig)
      : computeFlags(cfg as ComputePlaneConfig);
  const out: Problem[] = [];
  /** The overrides of releases this stack installs: the first-class rules apply to those. */
  const installed: ControlPlaneConfig["releaseValues"] = {};
  for (const [name, override] of Object.entries(cfg.releaseValues)) {
    const where = `releaseValues.${name}`;
    const spec = own.find((r) => r.name === name);
    if (!spec) {
      const otherPlane = plane === "control" ? "compute" : "control";
      const elsewhere = other.some((r) => r.name === name);
      out.push({
        key: K(where),
        expected: `a ${plane}-plane release name`,
        found: elsewhere ? `${describe(name)}, a ${otherPlane}-plane release` : describe(name),
        fix: elsewhere
          ? `pulumi config rm --path ${K(where)}, and set it on the ${otherPlane}-plane stack`
          : `use one of: ${own.map((r) => r.name).join(", ")}`,
      });
      continue;
    }
    if (spec.versions[bundle] === undefined) {
      out.push({
        key: K(where),
        expected: `a release that NVCF bundle ${bundle} ships`,
        found: `${describe(name)}, which bundle ${bundle} does not have`,
        fix: `pulumi config rm --path ${K(where)}, or set nvcf:bundleVersion to ${Object.keys(spec.versions).join(" or ")}`,
      });
      continue;
    }
    if (!flags[spec.enabled]) {
      out.push({
        key: K(where),
        expected: "an override for a release this stack installs",
        found: `${describe(name)}, which is off in this config (${ENABLED_BY[spec.enabled]})`,
        fix: `pulumi config rm --path ${K(where)}, or turn the release on (${ENABLED_BY[spec.enabled]})`,
      });
      continue;
    }
    installed[name] = override;
    if (spec.valuesKey !== null) {
      const accepted = new Set([spec.valuesKey, ...(CHARTS_READING_GLOBAL.has(spec.name) ? ["global"] : [])]);
      for (const k of Object.keys(override))
        if (!accepted.has(k))
          out.push({
            key: K(`${where}.${k}`),
            expected: `keys under ${spec.valuesKey} (${spec.chart} reads its values only under ${spec.valuesKey}:)`,
            found: `a top-level ${describe(k)}, which the chart never reads`,
            fix: `pulumi config rm --path ${K(`${where}.${k}`)}, then set it as ${K(`${where}.${spec.valuesKey}.${k}`)}`,
          });
    }
  }
  out.push(...releaseValueParityRules({ ...cfg, releaseValues: installed }, ctx));
  return out;
}

/** A secret registry key's format (docs/upstream-facts.md §4 row 2); reasons never quote the key. */
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

/**
 * The mode rules of NVIDIA's observability stack (`deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl`
 * fails the render on each; docs/upstream-facts.md §1.5, §4 row 31), for a stack that installs it on its
 * cluster (`installsObservability`): the collector needs an operator and a metrics backend, the target
 * allocator a stack-owned collector and discovery RBAC, the default monitors the Prometheus Operator CRDs; an
 * installed backend is VictoriaMetrics without authentication, an existing one is external with a
 * remote-write URL; profiles control and all need a metrics backend. Input: the plane, its observability
 * settings and the bundle. Output: one problem per broken rule, keyed under `nvcf:observability.`.
 */
export function observabilityStackRules(
  plane: "control" | "compute",
  o: ObservabilitySettings & { metricsBackend: { auth?: { mode: string } } },
  bundle: BundleVersion,
): Problem[] {
  const c = o.components;
  const mb = o.metricsBackend;
  const out: Problem[] = [];
  const add = (key: string, expected: string, found: unknown, fix: string) =>
    out.push({ key: K(key), expected, found: describe(found), fix });
  if (!installsObservability(plane, o, bundle)) return out;
  const controlish = o.profile === "control" || o.profile === "all";
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
  if (c.targetAllocator === "existing" && c.collector === "install")
    add(
      "observability.components.targetAllocator",
      "install or disabled when the stack installs the collector (existing needs an existing collector)",
      c.targetAllocator,
      "set components.targetAllocator to install or disabled, or components.collector to existing",
    );
  if (c.discoveryRbac === "install" && c.collector !== "install")
    add(
      "observability.components.discoveryRbac",
      "not install unless the collector is installed",
      c.discoveryRbac,
      "set components.discoveryRbac to existing/disabled, or components.collector to install",
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
      `install or existing when observability.profile is ${o.profile} (the default monitors need the APIs)`,
      c.prometheusOperatorCrds,
      plane === "control"
        ? "set it to install or existing, or observability.profile to disabled"
        : "set it to install or existing, or observability.profile to disabled/control",
    );
  if (controlish && mb.mode === "disabled")
    add(
      "observability.metricsBackend.mode",
      `install or existing when observability.profile is ${o.profile}`,
      mb.mode,
      "set metricsBackend.mode to install or existing",
    );
  if (mb.mode === "install" && mb.type !== "victoriaMetrics")
    add(
      "observability.metricsBackend.type",
      "victoriaMetrics when metricsBackend.mode is install",
      mb.type,
      "set metricsBackend.type to victoriaMetrics",
    );
  if (mb.mode === "install" && mb.auth !== undefined && mb.auth.mode !== "none")
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
  }
  return out;
}

/**
 * Observability rules of the control plane: the stack's mode rules (`observabilityStackRules`), then those of
 * the control plane's own services: the function autoscaler (profiles control and all) reads state metrics
 * and an existing backend's PromQL URL, and its authentication needs its endpoint or client certificate.
 */
export function observabilityRules(cfg: ControlPlaneConfig): Problem[] {
  const o = cfg.observability;
  const mb = o.metricsBackend;
  const out: Problem[] = observabilityStackRules("control", o, cfg.bundleVersion);
  const add = (key: string, expected: string, found: unknown, fix: string) =>
    out.push({ key: K(key), expected, found: describe(found), fix });
  if (o.profile === "disabled") return out;
  const controlish = o.profile === "control" || o.profile === "all";
  if (controlish && !cfg.stateMetrics.enabled)
    add(
      "stateMetrics.enabled",
      `true when observability.profile is ${o.profile} (the function autoscaler reads it)`,
      false,
      "pulumi config set --path nvcf:stateMetrics.enabled true, or set observability.profile to disabled/compute",
    );
  if (mb.mode === "existing" && controlish && !mb.promqlEndpoint)
    add(
      "observability.metricsBackend.promqlEndpoint",
      `a URL when metricsBackend.mode is existing and profile is ${o.profile}`,
      mb.promqlEndpoint,
      "set metricsBackend.promqlEndpoint",
    );
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

/**
 * Observability rules of a GPU cluster: the stack's mode rules when it installs the stack, and an explicit
 * `observability.install: true` refused where the bundle ships no observability stack (0.6.1: the releases of
 * `OBSERVABILITY_RELEASES` have no version for it; unset, `install` installs nothing there).
 */
export function computeObservabilityRules(cfg: ComputePlaneConfig): Problem[] {
  const o = cfg.observability;
  const out = observabilityStackRules("compute", o, cfg.bundleVersion);
  if (o.install === true && !bundleShipsObservability(cfg.bundleVersion))
    out.push({
      key: K("observability.install"),
      expected: `unset or false: NVCF bundle ${cfg.bundleVersion} ships no observability stack (docs/v0.6.1/manifest.md lists none of its charts)`,
      found: "true",
      fix: `pulumi config rm --path nvcf:observability.install (NVCA's collector and gate still follow nvcf:observability.profile), or set nvcf:bundleVersion to ${Object.keys(releaseSpec("default-monitors").versions).join(" or ")}`,
    });
  return out;
}

const HOSTPORT =
  /^(([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\]):([0-9]{1,5})$/;
const RFC1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The certificate name that covers every request-router replica's advertised host (headless service wildcard). */
export const LLM_ROUTER_HEADLESS_WILDCARD = "*.llm-request-router-headless.nvcf.svc.cluster.local";

/** LLM addon rules (docs/upstream-facts.md §1.9, §4 row 32). */
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
  if (cfg.bundleVersion !== "0.8.0") {
    // Before 0.8.0 (stack v0.7.0 `global.yaml.gotmpl`) the request-router chart's own hook always provisions
    // the OpenBao issuing hierarchy: certManager mode only, with its allowed domains and the hook's image tag.
    if (pki.mode !== "certManager" || pki.manageClusterIssuer !== undefined)
      out.push({
        key: K(pki.mode !== "certManager" ? "addons.llm.pki.mode" : "addons.llm.pki.manageClusterIssuer"),
        expected: `certManager mode without manageClusterIssuer: NVCF bundle ${cfg.bundleVersion} has no issuer choice`,
        found: describe(pki.mode !== "certManager" ? pki.mode : pki.manageClusterIssuer),
        fix: "remove it, or set nvcf:bundleVersion 0.8.0",
      });
    if (pki.dnsNames.length === 0)
      out.push({
        key: K("addons.llm.pki.dnsNames"),
        expected: "at least one DNS name",
        found: "[]",
        fix: "pulumi config set --path 'nvcf:addons.llm.pki.dnsNames[0]' llm-request-router.nvcf.svc.cluster.local",
      });
    if (!pki.allowedDomains)
      out.push({
        key: K("addons.llm.pki.allowedDomains"),
        expected: "the domains the router's OpenBao role may sign",
        found: "nothing",
        fix: "set addons.llm.pki.allowedDomains",
      });
    if (!pki.imageTag && !cfg.openbao.migrationsImageTag)
      out.push({
        key: K("addons.llm.pki.imageTag"),
        expected: "an image tag (or openbao.migrationsImageTag) for the router's PKI hook",
        found: "nothing",
        fix: "set addons.llm.pki.imageTag",
      });
    return out;
  }
  if (pki.mode === "certManager") {
    if (!RFC1123.test(pki.issuerName) || pki.issuerName.length > 253)
      out.push({
        key: K("addons.llm.pki.issuerName"),
        expected: "a lowercase RFC 1123 subdomain of at most 253 characters",
        found: describe(pki.issuerName),
        fix: "e.g. nvcf-openbao-pki",
      });
    // helm-nvcf-llm-request-router 1.7.2 (`validateCertificateDnsNames`) refuses a certificate that does not
    // cover the name each of its replicas advertises: `<pod>.llm-request-router-headless.nvcf.svc.cluster.local`
    // (the stack runs 3 replicas), i.e. the wildcard of the headless service.
    if (!pki.dnsNames.some((n) => n.toLowerCase() === LLM_ROUTER_HEADLESS_WILDCARD))
      out.push({
        key: K("addons.llm.pki.dnsNames"),
        expected: `the DNS names of the router's certificate, including ${LLM_ROUTER_HEADLESS_WILDCARD} (the name each replica advertises)`,
        found: describe(pki.dnsNames),
        fix: `pulumi config set --path 'nvcf:addons.llm.pki.dnsNames' '["llm-request-router.nvcf.svc.cluster.local","${LLM_ROUTER_HEADLESS_WILDCARD}"]'`,
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

/**
 * Add-ons switched on that the bundle's stack does not ship. Input: `[on, release, config key]` triples and
 * the bundle. Output: one problem per such add-on, naming its switch and the bundles that ship it
 * (docs/upstream-facts.md §5.2).
 */
function addonsNotInBundle(addons: readonly [boolean, string, string][], bundle: BundleVersion): Problem[] {
  return addons
    .filter(([on, rel]) => on && releaseSpec(rel).versions[bundle] === undefined)
    .map(([, rel, key]) => ({
      key: K(key),
      expected: `false: NVCF bundle ${bundle} does not ship ${rel}`,
      found: "true",
      fix: `turn it off or set nvcf:bundleVersion to ${Object.keys(releaseSpec(rel).versions).join(" or ")}`,
    }));
}

/** Rules of the control-plane stack (docs/upstream-facts.md §1.5, §1.9, §4). Returns every problem found. */
export function controlPlaneRules(cfg: ControlPlaneConfig, ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  const add = (key: string, expected: string, found: string, fix: string) =>
    out.push({ key: K(key), expected, found, fix });
  const dev = isDevStack(ctx.stack);
  const bundle = cfg.bundleVersion;

  out.push(...chartSourceRules(cfg.charts, "control", bundle));
  out.push(...releaseValuesRules(cfg, ctx));
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

  // Cassandra (docs/upstream-facts.md §4 rows 1, 27).
  if (cfg.cassandraPassword !== undefined) {
    if (cfg.cassandraPassword === CASSANDRA_DEFAULT_PASSWORD)
      add(
        "cassandraPassword",
        "a password other than the chart default",
        "[secret] (the chart's default password)",
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

  // Registry credentials the account bootstrap and nvcf-cli would have the API refuse (config/accounts.ts).
  out.push(...accountConfigRules(cfg));

  // Account limits (docs/upstream-facts.md §1.9, §4 row 33).
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

  // Gateway (docs/upstream-facts.md §1.9, §4 rows 7, 8, 18, 19, 20, 34).
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
  // Routes that claim the same traffic, across every route kind (config/meaning.ts).
  out.push(...routeProblems(cfg));
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

  // Add-ons available in the bundle (docs/upstream-facts.md §5.2).
  const addonReleases: [boolean, string, string][] = [
    [cfg.addons.llm.enabled, "llm-request-router", "addons.llm.enabled"],
    [cfg.addons.nvcfUi.enabled, "nvcf-ui", "addons.nvcfUi.enabled"],
    [cfg.addons.vanityGateway.enabled, "vanity-gateway", "addons.vanityGateway.enabled"],
  ];
  out.push(...addonsNotInBundle(addonReleases, bundle));

  out.push(...observabilityRules(cfg));
  out.push(...llmRules(cfg));

  // GPU clusters (docs/upstream-facts.md §4 rows 14, 26).
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

/** The default feature gates NVCA gets (docs/upstream-facts.md §2.6). */
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

/** The helm-nvca-operator chart version a compute stack installs (its hot-fix override, else the bundle's pin). */
function opVersionOf(cfg: ComputePlaneConfig): string {
  return (
    cfg.charts.versionOverrides["nvca-operator"] ??
    releaseSpec("nvca-operator").versions[cfg.bundleVersion] ??
    "0"
  );
}

/** Rules of a compute-plane stack (docs/upstream-facts.md §2.3, §2.6, §4 rows 9-12, 37). Returns every problem found. */
export function computePlaneRules(cfg: ComputePlaneConfig, _ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  const add = (key: string, expected: string, found: string, fix: string) =>
    out.push({ key: K(key), expected, found, fix });
  const a = cfg.addons;
  out.push(...chartSourceRules(cfg.charts, "compute", cfg.bundleVersion));
  out.push(...releaseValuesRules(cfg, _ctx));
  out.push(...computeObservabilityRules(cfg));
  // No registry key here is fine: the pull secret then uses the control plane's key (contract output).
  out.push(...registryKeyRules(cfg.registryKey, "registryKey"));
  if (a.topologyAwareScheduling.enabled && !a.kaiScheduler.enabled)
    add(
      "addons.topologyAwareScheduling.enabled",
      "false unless addons.kaiScheduler.enabled (topology needs KAI)",
      "true",
      "enable addons.kaiScheduler or turn topology off",
    );
  // Add-ons the bundle's compute stack ships (0.6.1: none; 0.7.0: Grove and Dynamo; 0.8.0: all).
  const bundle = cfg.bundleVersion;
  const addonReleases: [boolean, string, string][] = [
    [a.kaiScheduler.enabled, "kai-scheduler", "addons.kaiScheduler.enabled"],
    [a.topologyAwareScheduling.enabled, "nvcf-kai-topology", "addons.topologyAwareScheduling.enabled"],
    [a.groveOperator.enabled, "grove-operator", "addons.groveOperator.enabled"],
    [a.dynamoOperator.enabled, "dynamo-operator", "addons.dynamoOperator.enabled"],
  ];
  out.push(...addonsNotInBundle(addonReleases, bundle));
  // Grove schedules through KAI where the bundle ships KAI (0.8.0); the 0.7.0 stack installs Grove alone.
  const kaiShipped = releaseSpec("kai-scheduler").versions[bundle] !== undefined;
  if (a.groveOperator.enabled && !a.kaiScheduler.enabled && kaiShipped)
    add(
      "addons.groveOperator.enabled",
      "false unless addons.kaiScheduler.enabled (Grove needs KAI)",
      "true",
      "enable addons.kaiScheduler or turn Grove off",
    );
  if (a.groveOperator.enabled && cfg.placement.nodeSelector && bundle === "0.7.0")
    add(
      "placement.nodeSelector",
      "unset while Grove is on in bundle 0.7.0 (grove-charts v0.1.0-alpha.9 has no nodeSelector value)",
      describe(cfg.placement.nodeSelector),
      "remove placement.nodeSelector, turn Grove off, or set nvcf:bundleVersion 0.8.0",
    );
  if (
    cfg.nvcaOperator.byooOtelCollectorImageRepository !== undefined &&
    !versionAtLeast(opVersionOf(cfg), "1.21.0")
  )
    add(
      "nvcaOperator.byooOtelCollectorImageRepository",
      `unset with helm-nvca-operator ${opVersionOf(cfg)} (agent.byooOtelCollector needs >= 1.21.0)`,
      describe(cfg.nvcaOperator.byooOtelCollectorImageRepository),
      "remove it or set nvcf:bundleVersion 0.8.0",
    );
  if (a.dynamoOperator.enabled && !a.groveOperator.enabled)
    add(
      "addons.dynamoOperator.enabled",
      "false unless addons.groveOperator.enabled (Dynamo needs Grove)",
      "true",
      "enable addons.groveOperator or turn Dynamo off",
    );
  out.push(...maintenanceRules(cfg));
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
  const opVersion = opVersionOf(cfg);
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

// ---- releaseValues: which config turns each release on, and the rules of first-class keys ----

/** The config keys that turn each catalog flag on (`controlFlags` / `computeFlags` in config/flags.ts), for fixes. */
const ENABLED_BY: Record<EnableFlag, string> = {
  always: "always on",
  observabilityEnabled:
    "nvcf:observability.profile: not disabled on the control plane; compute or all on a GPU cluster (with nvcf:observability.install not false)",
  prometheusOperatorCrdsInstall: "nvcf:observability.components.prometheusOperatorCrds install",
  otelOperatorInstall: "nvcf:observability.components.otelOperator install",
  metricsBackendInstall: "nvcf:observability.metricsBackend.mode install",
  collectorInstall: "nvcf:observability.components.collector install",
  nats: "nvcf:nats.enabled",
  certManager: "nvcf:certManager.managed",
  openbao: "nvcf:openbao.enabled",
  llmManagedPki: "nvcf:addons.llm.pki with a managed ClusterIssuer",
  cassandra: "nvcf:cassandra.enabled",
  rateLimiter: "nvcf:rateLimiter.enabled",
  llm: "nvcf:addons.llm.enabled",
  vanityGateway: "nvcf:addons.vanityGateway.enabled",
  nvcfUi: "nvcf:addons.nvcfUi.enabled",
  ingress: "always on",
  stateMetrics: "nvcf:stateMetrics.enabled",
  functionAutoscaler: "nvcf:observability.profile control or all",
  kaiScheduler: "nvcf:addons.kaiScheduler.enabled",
  kaiTopology: "nvcf:addons.topologyAwareScheduling.enabled with nvcf:addons.kaiScheduler.enabled",
  groveOperator: "nvcf:addons.groveOperator.enabled",
  groveTopology: "nvcf:addons.topologyAwareScheduling.enabled with nvcf:addons.groveOperator.enabled",
  dynamoOperator: "nvcf:addons.dynamoOperator.enabled",
};

/**
 * Releases whose chart wraps upstream subcharts (a `dependencies:` entry in its `Chart.yaml`:
 * `deploy/helm/openbao/helm`, `deploy/helm/nats`, `deploy/helm/cert-manager`, at 0.7.0 and HEAD); Helm hands
 * the top-level `global` to those subcharts, so it is read there besides the values key.
 */
const CHARTS_READING_GLOBAL: ReadonlySet<string> = new Set(["openbao-server", "nats", "cert-manager"]);

/** Account-bootstrap limits and their maximum (docs/upstream-facts.md §1.9, §4 row 33), as `accounts.limits` checks them. */
export const ACCOUNT_LIMITS_MAX = {
  maxFunctions: 50,
  maxTasks: 50,
  maxTelemetries: 25,
  maxRegistryCreds: 25,
} as const;

/** The env names the OpenBao migrations job must get, all three (secrets template; `values/control.ts`). */
export const OPENBAO_MIGRATIONS_ENV = [
  "DEFAULT_CASSANDRA_PASSWORD",
  "NVCF_API_SIDECARS_IMAGE_PULL_SECRET",
  "ADMIN_CLIENT_ID",
] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** `nvcf:<path>` quoted for a shell when it holds `[` or `]`. */
const Q = (path: string) => (/[[\]]/.test(path) ? `'${K(path)}'` : K(path));

/**
 * The Cassandra password rules of `nvcf:cassandraPassword` (docs/upstream-facts.md §4 rows 1, 27) for a value set elsewhere.
 * Returns the reasons (never the value); empty when fine.
 */
function cassandraPasswordReasons(v: unknown): string[] {
  if (typeof v !== "string") return [`not text (${typeof v})`];
  if (v === CASSANDRA_DEFAULT_PASSWORD) return ["the chart's default password"];
  if (v.length < 8) return ["shorter than 8 characters"];
  return [];
}

/**
 * The rules of first-class keys applied to the chart values they set, when those values are written through
 * `releaseValues` instead. Input: the validated config of either plane and the rule context. Output: one
 * problem per breach, keyed by the `releaseValues` path, secrets redacted:
 * - control plane: the Cassandra password (`cassandra.cassandra.serviceRolePassword` and the OpenBao
 *   migrations env `DEFAULT_CASSANDRA_PASSWORD`) is refused when it is the chart default or shorter than 8
 *   characters, and both must stay the same password (one feeds Cassandra's service role, the other what
 *   the NVCF services log in with); an overridden migrations `env` list (lists replace) must still carry all
 *   of `OPENBAO_MIGRATIONS_ENV`, with `ADMIN_CLIENT_ID` `ncp`; Cassandra `replicaCount` (whole number >= 1)
 *   and `resourcesPreset` (medium or larger outside dev stacks), OpenBao `injector.replicas`, the rate
 *   limiter's and the vanity gateway's `replicaCount` (>= 1), the API's `accountBootstrap.limits` (1 to max);
 * - compute plane: NVCA `selfManaged.featureGateValues` (gate names; KAIScheduler only with KAI), the host
 *   header overrides (helm-nvca-operator >= 1.12.0), `agent.byooOtelCollector` (>= 1.21.0), and Grove's
 *   `nodeSelector`, which grove-charts v0.1.0-alpha.9 (bundle 0.7.0) does not have.
 */
export function releaseValueParityRules(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  ctx: RuleContext,
): Problem[] {
  const out: Problem[] = [];
  const rv = cfg.releaseValues;
  const add = (path: string, expected: string, found: string, fix: string) =>
    out.push({ key: K(path), expected, found, fix });
  const wholeAtLeast = (path: string, v: unknown, min: number, max?: number) => {
    if (v === undefined) return;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || (max !== undefined && v > max))
      add(
        path,
        max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`,
        describe(v),
        `pulumi config set --path ${Q(path)} ${max === undefined ? min : Math.min(max, 10)}`,
      );
  };
  if (cfg.plane === "control") {
    const c = cfg as ControlPlaneConfig;
    // Cassandra password, both places (docs/upstream-facts.md §4 rows 1, 27; docs/differences.md "Credentials by construction").
    const cassPath = "releaseValues.cassandra.cassandra.serviceRolePassword";
    const cassPw = valueAt(rv["cassandra"], ["cassandra", "serviceRolePassword"]);
    if (cassPw !== undefined)
      for (const r of cassandraPasswordReasons(cassPw))
        add(
          cassPath,
          "a Cassandra password other than the chart default, of at least 8 characters",
          `[secret] (${r})`,
          `pulumi config rm --path ${K(cassPath)}, and pulumi config set --secret nvcf:cassandraPassword <password> (it feeds both places), or leave both unset to have one generated`,
        );
    const envPath = "releaseValues.openbao-server.openbao.migrations.env";
    const env = valueAt(rv["openbao-server"], ["openbao", "migrations", "env"]);
    let baoPw: unknown = undefined;
    if (env !== undefined) {
      if (!Array.isArray(env) || !env.every((e) => isObj(e) && typeof e["name"] === "string")) {
        add(
          envPath,
          "a list of {name, value} entries",
          describe(env, true),
          `pulumi config rm --path ${K(envPath)}`,
        );
      } else {
        const names = env.map((e) => (e as Obj)["name"] as string);
        const missing = OPENBAO_MIGRATIONS_ENV.filter((n) => !names.includes(n));
        if (missing.length > 0)
          add(
            envPath,
            `all of ${OPENBAO_MIGRATIONS_ENV.join(", ")} (a list replaces the program's whole list)`,
            `no ${missing.join(", ")}`,
            `pulumi config rm --path ${K(envPath)}; the program sets all three (the Cassandra password from nvcf:cassandraPassword)`,
          );
        env.forEach((e, i) => {
          const entry = e as Obj;
          const p = `${envPath}[${i}].value`;
          if (entry["name"] === "DEFAULT_CASSANDRA_PASSWORD") {
            baoPw = entry["value"];
            for (const r of cassandraPasswordReasons(entry["value"]))
              add(
                p,
                "a Cassandra password other than the chart default, of at least 8 characters",
                `[secret] (${r})`,
                `pulumi config rm --path ${K(envPath)}, and pulumi config set --secret nvcf:cassandraPassword <password>`,
              );
          }
          if (entry["name"] === "ADMIN_CLIENT_ID" && entry["value"] !== "ncp")
            add(
              p,
              `"ncp" (the admin client the NVCF services trust)`,
              describe(entry["value"]),
              `pulumi config rm --path ${K(envPath)}`,
            );
        });
      }
    }
    if (cassPw !== undefined || baoPw !== undefined) {
      const first = cassPw ?? c.cassandraPassword;
      const second = baoPw ?? c.cassandraPassword;
      if (first === undefined || second === undefined || first !== second)
        add(
          cassPw !== undefined ? cassPath : `${envPath}`,
          "the same Cassandra password for Cassandra's service role and the OpenBao migrations env DEFAULT_CASSANDRA_PASSWORD",
          `[secret] (${cassPw !== undefined ? "set only here or different from the other" : "different from Cassandra's service-role password"})`,
          "remove both overrides and pulumi config set --secret nvcf:cassandraPassword <password> (it feeds both)",
        );
    }
    const cass = rv["cassandra"];
    wholeAtLeast(
      "releaseValues.cassandra.cassandra.replicaCount",
      valueAt(cass, ["cassandra", "replicaCount"]),
      1,
    );
    const preset = valueAt(cass, ["cassandra", "resourcesPreset"]);
    const presets = ["none", "nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"];
    if (preset !== undefined && (typeof preset !== "string" || !presets.includes(preset)))
      add(
        "releaseValues.cassandra.cassandra.resourcesPreset",
        `one of ${presets.join(", ")}`,
        describe(preset),
        "pulumi config set --path nvcf:cassandra.preset xlarge (and remove the override)",
      );
    else if (
      preset !== undefined &&
      !isDevStack(ctx.stack) &&
      ["none", "nano", "micro", "small"].includes(preset as string)
    )
      add(
        "releaseValues.cassandra.cassandra.resourcesPreset",
        "medium or larger outside dev stacks (small runs out of memory at first boot)",
        describe(preset),
        "pulumi config set --path nvcf:cassandra.preset xlarge (and remove the override)",
      );
    wholeAtLeast(
      "releaseValues.openbao-server.openbao.injector.replicas",
      valueAt(rv["openbao-server"], ["openbao", "injector", "replicas"]),
      1,
    );
    wholeAtLeast(
      "releaseValues.ratelimiter.rateLimiter.replicaCount",
      valueAt(rv["ratelimiter"], ["rateLimiter", "replicaCount"]),
      1,
    );
    wholeAtLeast(
      "releaseValues.vanity-gateway.vanityGateway.replicaCount",
      valueAt(rv["vanity-gateway"], ["vanityGateway", "replicaCount"]),
      1,
    );
    const limits = valueAt(rv["api"], ["api", "accountBootstrap", "limits"]);
    if (isObj(limits))
      for (const [k, max] of Object.entries(ACCOUNT_LIMITS_MAX))
        wholeAtLeast(`releaseValues.api.api.accountBootstrap.limits.${k}`, limits[k], 1, max);
    return out;
  }
  const cc = cfg as ComputePlaneConfig;
  const op = rv["nvca-operator"];
  const gates = valueAt(op, ["selfManaged", "featureGateValues"]);
  const gatesPath = "releaseValues.nvca-operator.selfManaged.featureGateValues";
  if (gates !== undefined) {
    if (!Array.isArray(gates))
      add(
        gatesPath,
        "a list of feature gate names",
        describe(gates),
        `pulumi config rm --path ${K(gatesPath)}, and use nvcf:nvcaOperator.featureGates`,
      );
    else
      gates.forEach((g, i) => {
        const p = `${gatesPath}[${i}]`;
        if (typeof g !== "string" || !/^[A-Z][A-Za-z0-9]*$/.test(g))
          add(
            p,
            "a gate name such as LogPosting (this list goes to NVCA verbatim)",
            describe(g),
            `fix the spelling, or use nvcf:nvcaOperator.featureGates`,
          );
        else if (g === "KAIScheduler" && !cc.addons.kaiScheduler.enabled)
          add(
            p,
            "KAIScheduler only when the KAI scheduler is installed",
            describe(g),
            "remove it, or enable nvcf:addons.kaiScheduler (which adds the gate itself)",
          );
      });
  }
  const opVersion = opVersionOf(cc);
  const hostOverrides = [
    "icmsServiceHostHeaderOverride",
    "revalServiceHostHeaderOverride",
    "natsHostOverride",
  ];
  for (const h of hostOverrides)
    if (valueAt(op, ["selfManaged", h]) !== undefined && !versionAtLeast(opVersion, "1.12.0"))
      add(
        `releaseValues.nvca-operator.selfManaged.${h}`,
        `unset with helm-nvca-operator ${opVersion} (host header overrides need >= 1.12.0)`,
        describe(valueAt(op, ["selfManaged", h])),
        "remove it, or use chart 1.12.0 or later",
      );
  if (valueAt(op, ["agent", "byooOtelCollector"]) !== undefined && !versionAtLeast(opVersion, "1.21.0"))
    add(
      "releaseValues.nvca-operator.agent.byooOtelCollector",
      `unset with helm-nvca-operator ${opVersion} (agent.byooOtelCollector needs >= 1.21.0)`,
      describe(valueAt(op, ["agent", "byooOtelCollector"])),
      "remove it or set nvcf:bundleVersion 0.8.0",
    );
  if (valueAt(rv["grove-operator"], ["nodeSelector"]) !== undefined && cc.bundleVersion === "0.7.0")
    add(
      "releaseValues.grove-operator.nodeSelector",
      "unset in bundle 0.7.0 (grove-charts v0.1.0-alpha.9 has no nodeSelector value)",
      describe(valueAt(rv["grove-operator"], ["nodeSelector"])),
      "remove it, or set nvcf:bundleVersion 0.8.0",
    );
  return out;
}

/**
 * The `releaseValues` paths that hold a credential (the Cassandra service-role password, and the OpenBao
 * migrations env entries DEFAULT_CASSANDRA_PASSWORD and NVCF_API_SIDECARS_IMAGE_PULL_SECRET). Input: the
 * validated overrides. Output: key paths without `nvcf:`. `validateConfig` refuses them unless
 * `nvcf:releaseValues` is a secret, as it refuses a plain-text `nvcf:cassandraPassword`.
 */
export function releaseValueSecretPaths(releaseValues: Record<string, Record<string, unknown>>): string[] {
  const out: string[] = [];
  if (valueAt(releaseValues["cassandra"], ["cassandra", "serviceRolePassword"]) !== undefined)
    out.push("releaseValues.cassandra.cassandra.serviceRolePassword");
  const env = valueAt(releaseValues["openbao-server"], ["openbao", "migrations", "env"]);
  if (Array.isArray(env))
    env.forEach((e, i) => {
      if (
        isObj(e) &&
        ["DEFAULT_CASSANDRA_PASSWORD", "NVCF_API_SIDECARS_IMAGE_PULL_SECRET"].includes(String(e["name"]))
      )
        out.push(`releaseValues.openbao-server.openbao.migrations.env[${i}].value`);
    });
  return out;
}
