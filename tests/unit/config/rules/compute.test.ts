/**
 * config/rules/compute.ts: a GPU cluster's add-ons, NVCA operator settings and inotify limits, through
 * `validateConfig`, and the operator version the rules judge by (`opVersionOf`).
 */
import { opVersionOf } from "../../../../config/rules/compute";
import { validateConfig } from "../../../../config/load";
import type { ComputePlaneConfig } from "../../../../config/schema";
import { baseCompute } from "../../fixtures/configs";
import { SECRET, j, problemsOf, ruleCases } from "../../support/rules";

describe("compute plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseCompute, [
    [
      "topology needs KAI (docs/upstream-facts.md §4 row 37)",
      { addons: j({ topologyAwareScheduling: { enabled: true } }) },
      "nvcf:addons.topologyAwareScheduling.enabled",
      { addons: j({ topologyAwareScheduling: { enabled: true }, kaiScheduler: { enabled: true } }) },
    ],
    [
      "Grove needs KAI",
      { addons: j({ groveOperator: { enabled: true } }) },
      "nvcf:addons.groveOperator.enabled",
      { addons: j({ groveOperator: { enabled: true }, kaiScheduler: { enabled: true } }) },
    ],
    [
      "Dynamo needs Grove",
      { addons: j({ dynamoOperator: { enabled: true }, kaiScheduler: { enabled: true } }) },
      "nvcf:addons.dynamoOperator.enabled",
      {
        addons: j({
          dynamoOperator: { enabled: true },
          groveOperator: { enabled: true },
          kaiScheduler: { enabled: true },
        }),
      },
    ],
    [
      "KAIScheduler gate only with KAI (docs/upstream-facts.md §4 row 9)",
      { nvcaOperator: j({ featureGates: ["KAIScheduler"] }) },
      "nvcf:nvcaOperator.featureGates[0]",
      { nvcaOperator: j({ featureGates: ["KAIScheduler"] }), addons: j({ kaiScheduler: { enabled: true } }) },
    ],
    [
      "gate spelling",
      { nvcaOperator: j({ featureGates: ["log posting"] }) },
      "nvcf:nvcaOperator.featureGates[0]",
      { nvcaOperator: j({ featureGates: ["LogPosting", "-InfraResourceOverhead"] }) },
    ],
    [
      "host-header overrides need operator >= 1.12.0 (docs/upstream-facts.md §4 row 11)",
      { charts: j({ source: "oci", repository: "a/b", versionOverrides: { "nvca-operator": "1.11.0" } }) },
      "nvcf:nvcaOperator.hostHeaderOverrides",
      {
        charts: j({ source: "oci", repository: "a/b", versionOverrides: { "nvca-operator": "1.11.0" } }),
        nvcaOperator: j({ hostHeaderOverrides: false }),
      },
    ],
    [
      "generateImagePullSecret is refused (docs/upstream-facts.md §4 row 10)",
      { releaseValues: j({ "nvca-operator": { generateImagePullSecret: true } }) },
      "nvcf:releaseValues.nvca-operator.generateImagePullSecret",
      { releaseValues: j({ "nvca-operator": { networkPolicy: {} } }) },
    ],
    [
      "inotify instances at least 8192 (docs/upstream-facts.md §4 row 12)",
      { inotify: j({ maxUserInstances: 128 }) },
      "nvcf:inotify.maxUserInstances",
      { inotify: j({ maxUserInstances: 16384 }) },
    ],
    [
      "inotify watches at least 524288",
      { inotify: j({ maxUserWatches: 8192 }) },
      "nvcf:inotify.maxUserWatches",
      { inotify: j({ maxUserWatches: 524288 }) },
    ],
  ]);
});

describe("the problems say what was expected, what was found and the fix", () => {
  test("Dynamo without Grove", () => {
    expect(
      problemsOf(
        baseCompute({ addons: j({ dynamoOperator: { enabled: true }, kaiScheduler: { enabled: true } }) }),
      ),
    ).toEqual([
      {
        key: "nvcf:addons.dynamoOperator.enabled",
        expected: "false unless addons.groveOperator.enabled (Dynamo needs Grove)",
        found: "true",
        fix: "enable addons.groveOperator or turn Dynamo off",
      },
    ]);
  });

  test("host header overrides with an operator before 1.12.0", () => {
    const p = problemsOf(
      baseCompute({
        charts: j({ source: "oci", repository: "a/b", versionOverrides: { "nvca-operator": "1.11.0" } }),
      }),
    );
    expect(p).toEqual([
      {
        key: "nvcf:nvcaOperator.hostHeaderOverrides",
        expected: "false with helm-nvca-operator 1.11.0 (overrides need >= 1.12.0)",
        found: "true",
        fix: "set nvcaOperator.hostHeaderOverrides false or use chart 1.12.0 or later",
      },
    ]);
  });

  test("Grove's node selector in bundle 0.7.0", () => {
    const p = problemsOf(
      baseCompute({
        bundleVersion: "0.7.0",
        addons: j({ groveOperator: { enabled: true } }),
        placement: j({ nodeSelector: { key: "pool", value: "gpu" } }),
      }),
    );
    expect(p.map((x) => [x.key, x.expected, x.fix])).toEqual([
      [
        "nvcf:placement.nodeSelector",
        "unset while Grove is on in bundle 0.7.0 (grove-charts v0.1.0-alpha.9 has no nodeSelector value)",
        "remove placement.nodeSelector, turn Grove off, or set nvcf:bundleVersion 0.8.0",
      ],
    ]);
  });
});

test("the operator version: the hot-fix override, else the bundle's pin", () => {
  const parse = (over: Record<string, string | undefined>) =>
    validateConfig(baseCompute(over), SECRET, "prod") as ComputePlaneConfig;
  expect(opVersionOf(parse({}))).toMatch(/^\d+\.\d+\.\d+/);
});
