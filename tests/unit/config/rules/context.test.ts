/**
 * config/rules/context.ts: how a problem names its key, and the collector every area pushes into.
 */
import { K, Q, problemList } from "../../../../config/rules/context";

test("keys are named nvcf:<path>, quoted for a shell only when they hold brackets", () => {
  expect(K("cassandra.preset")).toBe("nvcf:cassandra.preset");
  expect(Q("cassandra.preset")).toBe("nvcf:cassandra.preset");
  expect(Q("gpuClusters[0].context")).toBe("'nvcf:gpuClusters[0].context'");
});

test("problemList keeps the problems in the order they are added, found as given", () => {
  const { out, add } = problemList();
  add("b", "expected b", "nothing", "fix b");
  add("a", "expected a", '"x"', "fix a");
  expect(out).toEqual([
    { key: "nvcf:b", expected: "expected b", found: "nothing", fix: "fix b" },
    { key: "nvcf:a", expected: "expected a", found: '"x"', fix: "fix a" },
  ]);
});
