/**
 * config/rules/accounts.ts: the account settings and the account-bootstrap limits, through `validateConfig`.
 */
import { baseControl } from "../../fixtures/configs";
import { j, keys, problemsOf, ruleCases } from "../../support/rules";

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "account limit maxFunctions (docs/upstream-facts.md §1.9)",
      { accounts: j({ limits: { maxFunctions: 51 } }) },
      "nvcf:accounts.limits.maxFunctions",
      { accounts: j({ limits: { maxFunctions: 50 } }) },
    ],
    [
      "account limit maxTelemetries",
      { accounts: j({ limits: { maxTelemetries: 0 } }) },
      "nvcf:accounts.limits.maxTelemetries",
      { accounts: j({ limits: { maxTelemetries: 25 } }) },
    ],
    [
      "account limit maxRegistryCreds",
      { accounts: j({ limits: { maxRegistryCreds: 26 } }) },
      "nvcf:accounts.limits.maxRegistryCreds",
      // The default credentials the account gets: NGC containers and Helm (the models entry is not applied).
      { accounts: j({ limits: { maxRegistryCreds: 2 } }) },
    ],
    [
      "account limit maxTasks",
      { accounts: j({ limits: { maxTasks: 0 } }) },
      "nvcf:accounts.limits.maxTasks",
      { accounts: j({ limits: { maxTasks: 10 } }) },
    ],
  ]);
});

describe("the problems say what was expected, what was found and the fix", () => {
  test("a limit above its maximum", () => {
    expect(problemsOf(baseControl({ accounts: j({ limits: { maxTelemetries: 26 } }) }))).toEqual([
      {
        key: "nvcf:accounts.limits.maxTelemetries",
        expected: "a whole number from 1 to 25",
        found: "26",
        fix: "pulumi config set --path nvcf:accounts.limits.maxTelemetries 10",
      },
    ]);
  });

  test("every limit out of range, in the order maxFunctions, maxTasks, maxTelemetries, maxRegistryCreds", () => {
    expect(
      keys(
        baseControl({
          accounts: j({ limits: { maxRegistryCreds: 26, maxTelemetries: 0, maxTasks: 51, maxFunctions: 0 } }),
        }),
      ),
    ).toEqual([
      "nvcf:accounts.limits.maxFunctions",
      "nvcf:accounts.limits.maxTasks",
      "nvcf:accounts.limits.maxTelemetries",
      "nvcf:accounts.limits.maxRegistryCreds",
    ]);
  });
});
