/**
 * Rules of `nvcf:releaseValues`, the per-release overrides (pure): which releases an override may name, which
 * top-level keys it may set, and, through config/rules/releaseValueParity.ts, the rules of first-class keys
 * that set the same chart values. Sources: the release catalog (catalog/releases.ts: planes, versions per
 * bundle, enable flags, values keys) and each chart's `values.yaml` and `Chart.yaml` under NVIDIA's
 * `deploy/helm/`.
 */
import { CONTROL_PLANE_RELEASES, COMPUTE_PLANE_RELEASES, enabledBy } from "../../catalog/releases";
import { stackReleases } from "../stackReleases";
import { type Problem, describe } from "../problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../schema";
import { K, type RuleContext } from "./context";
import { releaseValueParityRules } from "./releaseValueParity";

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
  const { flags } = stackReleases(cfg);
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
        found: `${describe(name)}, which is off in this config (${enabledBy(spec.enabled)})`,
        fix: `pulumi config rm --path ${K(where)}, or turn the release on (${enabledBy(spec.enabled)})`,
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

/**
 * Releases whose chart wraps upstream subcharts (a `dependencies:` entry in its `Chart.yaml`:
 * `deploy/helm/openbao/helm`, `deploy/helm/nats`, `deploy/helm/cert-manager`, at 0.7.0 and HEAD); Helm hands
 * the top-level `global` to those subcharts, so it is read there besides the values key.
 */
const CHARTS_READING_GLOBAL: ReadonlySet<string> = new Set(["openbao-server", "nats", "cert-manager"]);
