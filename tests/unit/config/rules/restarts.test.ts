/**
 * config/rules/restarts.ts: `nvcf:restarts` names releases the stack installs, on both planes, through
 * `validateConfig`; the schema takes positive integers only.
 */
import { baseCompute, baseControl } from "../../fixtures/configs";
import { j, problemTexts, ruleCases } from "../../support/rules";

describe("restart generations: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "a control-plane release that is off in this config (the rate limiter)",
      { restarts: j({ ratelimiter: 1 }), rateLimiter: j({ enabled: false }) },
      "nvcf:restarts.ratelimiter",
      { restarts: j({ ratelimiter: 1 }) },
    ],
    [
      "a compute-plane release on the control plane",
      { restarts: j({ "nvca-operator": 1 }) },
      "nvcf:restarts.nvca-operator",
      { restarts: j({ api: 1, "openbao-server": 3 }) },
    ],
  ]);
  ruleCases(baseCompute, [
    [
      "a control-plane release on a GPU cluster",
      { restarts: j({ api: 1 }) },
      "nvcf:restarts.api",
      { restarts: j({ "nvca-operator": 2 }) },
    ],
  ]);
});

describe("restart generations: what the user reads", () => {
  test("a name the stack does not install: the releases it does install, and the command that removes it", () => {
    const [p] = problemTexts(baseCompute({ restarts: j({ "nvca-operatr": 1 }) }));
    expect(p?.key).toBe("nvcf:restarts.nvca-operatr");
    expect(p?.text).toMatch(
      /^the Helm release name of a release this stack installs \| "nvca-operatr", which this stack does not install \| pulumi config rm --path nvcf:restarts\.nvca-operatr; the releases this stack installs: .*\bnvca-operator\b/,
    );
  });

  test("a generation that is not a positive integer is refused by the schema, at its key", () => {
    for (const g of [0, 1.5, -1, "next"])
      expect(problemTexts(baseControl({ restarts: j({ api: g }) })).map((p) => p.key)).toEqual([
        "nvcf:restarts.api",
      ]);
  });
});
