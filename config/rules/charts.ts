/**
 * Rules of the chart sources (pure): where the charts come from (`nvcf:charts`: source, path, URL, repository,
 * per-release version overrides and mirrors), for either plane. Sources: docs/upstream-facts.md §1.2; origins,
 * mirrors and locations: catalog/sources.ts.
 */
import {
  CONTROL_PLANE_RELEASES,
  COMPUTE_PLANE_RELEASES,
  type BundleVersion,
  releaseSpec,
} from "../../catalog/releases";
import { MIRROR_KEYS, chartsOfMirror, parseLocation } from "../../catalog/sources";
import { type Problem, describe } from "../problems";
import type { ControlPlaneConfig } from "../schema";
import { K, PLACEHOLDER_REPO } from "./context";

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
