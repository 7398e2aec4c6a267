/**
 * What a stack installs, from its validated config (pure): its plane, its enable flags (config/flags.ts) and the
 * catalog releases those flags turn on in its NVCF bundle (catalog/releases.ts), in dependency order. The one place
 * that answers the question: the stack programs compute it once and hand it to the components and their helpers;
 * the config rules, the `nvcf` command, the upgrade planner and the developer tools ask it too.
 */
import {
  type BundleVersion,
  type EnableFlag,
  type Plane,
  type ReleaseSpec,
  enabledReleases,
  inDependencyOrder,
} from "../catalog/releases";
import { computeFlags, controlFlags } from "./flags";
import type { ComputePlaneConfig, ControlPlaneConfig } from "./schema";

/** The releases of one stack (`stackReleases`). */
export interface StackReleases {
  /** The stack's plane (`nvcf:plane`). */
  readonly plane: Plane;
  /** The bundle the releases are taken from: the config's `nvcf:bundleVersion`, unless another one was asked for. */
  readonly bundle: BundleVersion;
  /** The enable flags of the config (config/flags.ts `controlFlags` / `computeFlags`). */
  readonly flags: Readonly<Record<EnableFlag, boolean>>;
  /** The releases the flags turn on and the bundle ships, in catalog order (NVIDIA's Helmfile order). */
  readonly inCatalogOrder: readonly ReleaseSpec[];
  /**
   * The same releases in dependency order: each after the releases its needs in force name (catalog
   * `inDependencyOrder`), catalog order otherwise. Ordered when first read; that read throws when an enabled
   * release needs one that is not enabled (a catalog error, or a config the rules refuse, such as
   * `addons.dynamoOperator.enabled` without `addons.groveOperator.enabled`; also possible at a bundle other than
   * the config's own, whose releases the config's flags were not made for).
   */
  readonly releases: readonly ReleaseSpec[];
  /** Whether the stack installs the release of this name. */
  has(name: string): boolean;
}

/**
 * The releases a stack installs. Input: a validated config of either plane (config/load.ts `validateConfig`;
 * the rules need not have passed), and optionally another bundle to take the releases from (the upgrade planner
 * asks for the bundle a stack is deployed at); the flags are always the config's own, computed for its own
 * bundle. Output: `StackReleases` (plane, bundle, flags, the releases in catalog and in dependency order).
 * Errors: none here; reading `releases` throws as that field says.
 */
export function stackReleases(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  bundle: BundleVersion = cfg.bundleVersion,
): StackReleases {
  const flags = cfg.plane === "control" ? controlFlags(cfg) : computeFlags(cfg);
  const inCatalogOrder = enabledReleases(cfg.plane, bundle, flags);
  const names = new Set(inCatalogOrder.map((r) => r.name));
  let ordered: readonly ReleaseSpec[] | undefined;
  return {
    plane: cfg.plane,
    bundle,
    flags,
    inCatalogOrder,
    get releases() {
      ordered ??= inDependencyOrder(inCatalogOrder, flags);
      return ordered;
    },
    has: (name) => names.has(name),
  };
}
