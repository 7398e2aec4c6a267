/**
 * Rules of observability (pure): the mode rules of NVIDIA's observability stack on either plane, the control
 * plane's own services that read metrics (the function autoscaler and its backend's authentication), and a GPU
 * cluster's explicit install where the bundle ships no stack. Sources: docs/upstream-facts.md §1.5, §4 row 31;
 * `deploy/stacks/observability/helmfile.d/01-observability.yaml.gotmpl`; config/observability.ts.
 */
import { type BundleVersion, releaseSpec } from "../../catalog/releases";
import {
  type ObservabilitySettings,
  bundleShipsObservability,
  installsObservability,
} from "../observability";
import { type Problem, describe } from "../problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../schema";
import { K } from "./context";

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
