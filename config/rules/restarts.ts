/**
 * Rules of `nvcf:restarts`, the restart generations (pure): each names a release this stack installs, since the
 * restart command runs after that release (components/restarts.ts) and a name that matches none would restart
 * nothing. Source: what the stack installs (config/stackReleases.ts: the release catalog and its enable flags).
 */
import { stackReleases } from "../stackReleases";
import { type Problem, describe } from "../problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../schema";
import { problemList } from "./context";

/**
 * `restarts` rules. Input: the validated config of either plane. Output: one problem per key of `nvcf:restarts`
 * that is not the Helm release name of a release this stack installs at its bundle with its config, naming the
 * releases it does install. Throws nothing.
 */
export function restartRules(cfg: ControlPlaneConfig | ComputePlaneConfig): Problem[] {
  const { out, add } = problemList();
  const names = Object.keys(cfg.restarts);
  if (names.length === 0) return out;
  const installed = stackReleases(cfg).inCatalogOrder.map((r) => r.name);
  for (const name of names)
    if (!installed.includes(name))
      add(
        `restarts.${name}`,
        "the Helm release name of a release this stack installs",
        `${describe(name)}, which this stack does not install`,
        `pulumi config rm --path nvcf:restarts.${name}; the releases this stack installs: ${installed.join(", ")}`,
      );
  return out;
}
