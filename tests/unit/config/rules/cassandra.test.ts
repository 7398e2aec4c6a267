/**
 * config/rules/cassandra.ts: Cassandra's password and resource preset, through `validateConfig`.
 */
import { baseControl } from "../../fixtures/configs";
import { configError, j, keys, problemsOf, ruleCases } from "../../support/rules";

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "cassandra default password (docs/upstream-facts.md §4 row 1)",
      { cassandraPassword: "ch@ng3m3" },
      "nvcf:cassandraPassword",
      { cassandraPassword: "a-strong-password" },
    ],
    [
      "small cassandra preset outside dev (docs/upstream-facts.md §4 row 27)",
      { cassandra: j({ preset: "small" }) },
      "nvcf:cassandra.preset",
      { cassandra: j({ preset: "large" }) },
    ],
  ]);
});

describe("the problems say what was expected, what was found and the fix", () => {
  test("the chart's default password, redacted", () => {
    const raw = baseControl({ cassandraPassword: "ch@ng3m3" });
    expect(problemsOf(raw)).toEqual([
      {
        key: "nvcf:cassandraPassword",
        expected: "a password other than the chart default",
        found: "[secret] (the chart's default password)",
        fix: "pulumi config rm nvcf:cassandraPassword to have one generated, or set another with --secret",
      },
    ]);
    expect(configError(raw).message).not.toContain("ch@ng3m3");
  });

  test("a password shorter than 8 characters", () => {
    expect(problemsOf(baseControl({ cassandraPassword: "short" }))).toEqual([
      {
        key: "nvcf:cassandraPassword",
        expected: "at least 8 characters",
        found: "[secret] (shorter)",
        fix: "pulumi config set --secret nvcf:cassandraPassword <password>",
      },
    ]);
  });

  test("a small preset outside dev stacks", () => {
    expect(problemsOf(baseControl({ cassandra: j({ preset: "micro" }) }))).toEqual([
      {
        key: "nvcf:cassandra.preset",
        expected: "medium or larger outside dev stacks (small runs out of memory at first boot)",
        found: '"micro"',
        fix: "pulumi config set --path nvcf:cassandra.preset xlarge",
      },
    ]);
  });
});

test("dev stacks may use a small Cassandra preset", () => {
  expect(keys(baseControl({ cassandra: j({ preset: "small" }) }), "dev")).toEqual([]);
  expect(keys(baseControl({ cassandra: j({ preset: "none" }) }), "dev_local")).toEqual([]);
  expect(keys(baseControl({ cassandra: j({ preset: "small" }) }), "devel")).toEqual([
    "nvcf:cassandra.preset",
  ]);
});
