/**
 * What a stack installs (config/stackReleases.ts `stackReleases`): the plane and flags of its config, the catalog's
 * releases those flags turn on in its bundle, in catalog order and in dependency order; another bundle's releases
 * for the same flags; and the dependency order left until it is read, so a config the rules refuse can still be
 * asked for its flags.
 */
import { type ReleaseSpec, activeNeeds, enabledReleases, inDependencyOrder } from "../../../catalog/releases";
import { computeFlags, controlFlags } from "../../../config/flags";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";
import { stackReleases } from "../../../config/stackReleases";
import { validatedConfig } from "../support/harness";

const names = (list: readonly ReleaseSpec[]) => list.map((r) => r.name);

test.each(["dev", "prod-eks"])("control stack %s: its plane, flags and releases, in both orders", (stack) => {
  const cfg = validatedConfig<ControlPlaneConfig>(stack);
  const s = stackReleases(cfg);
  const flags = controlFlags(cfg);
  expect(s.plane).toBe("control");
  expect(s.bundle).toBe(cfg.bundleVersion);
  expect(s.flags).toEqual(flags);
  const catalog = enabledReleases("control", cfg.bundleVersion, flags);
  expect(names(s.inCatalogOrder)).toEqual(names(catalog));
  expect(names(s.releases)).toEqual(names(inDependencyOrder(catalog, flags)));
  // Dependency order: every release after the releases it needs.
  const at = new Map(s.releases.map((r, i) => [r.name, i]));
  for (const r of s.releases)
    for (const n of activeNeeds(r, flags)) expect(at.get(n)!).toBeLessThan(at.get(r.name)!);
  expect(s.has("api")).toBe(true);
  expect(s.has("nvca-operator")).toBe(false);
});

test.each(["dev-gpu-a", "dev-gpu-b", "prod-gpu-east-1"])(
  "compute stack %s: its plane, flags and releases",
  (stack) => {
    const cfg = validatedConfig<ComputePlaneConfig>(stack);
    const s = stackReleases(cfg);
    const flags = computeFlags(cfg);
    expect(s.plane).toBe("compute");
    expect(s.flags).toEqual(flags);
    const catalog = enabledReleases("compute", cfg.bundleVersion, flags);
    expect(names(s.inCatalogOrder)).toEqual(names(catalog));
    expect(names(s.releases)).toEqual(names(inDependencyOrder(catalog, flags)));
    expect(s.has("nvca-operator")).toBe(true);
  },
);

test("another bundle: the releases it ships, for the config's own flags", () => {
  const cfg = validatedConfig<ControlPlaneConfig>("dev");
  const at070 = stackReleases(cfg, "0.7.0");
  expect(at070.bundle).toBe("0.7.0");
  expect(at070.flags).toEqual(controlFlags(cfg));
  expect(names(at070.inCatalogOrder)).toEqual(names(enabledReleases("control", "0.7.0", controlFlags(cfg))));
  const at061 = stackReleases(cfg, "0.6.1");
  expect(at061.has("nvcf-ui")).toBe(false);
  expect(at061.has("victoria-metrics")).toBe(false);
});

test("the dependency order is made when read: a config whose enabled release needs a disabled one throws only then", () => {
  const cfg = validatedConfig<ComputePlaneConfig>("dev-gpu-b");
  // Dynamo without Grove: the rules refuse it (config/rules/compute.ts); the flags and the set are still there.
  const broken = {
    ...cfg,
    addons: { ...cfg.addons, groveOperator: { ...cfg.addons.groveOperator, enabled: false } },
  } as ComputePlaneConfig;
  const s = stackReleases(broken);
  expect(s.flags.dynamoOperator).toBe(true);
  expect(s.has("dynamo-operator")).toBe(true);
  expect(() => s.releases).toThrow(/release "dynamo-operator" needs "grove-operator", which is not enabled/);
});
