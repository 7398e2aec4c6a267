/**
 * Three projects: `unit` (Pulumi mocks, seconds), `e2e` (real pulumi CLI against the local cluster) and `extended`
 * (the e2e tests that need more than the default test run starts: `bash scripts/test.sh extended`).
 */
// Transpile only (tsconfig.jest.json sets isolatedModules): scripts/test.sh type-checks everything with tsc first.
const tsJest = ["ts-jest", { tsconfig: "tsconfig.jest.json" }];
module.exports = {
  testTimeout: 120000,
  projects: [
    {
      displayName: "unit",
      testEnvironment: "node",
      roots: ["<rootDir>/tests/unit"],
      transform: { "^.+\\.ts$": tsJest },
    },
    {
      displayName: "e2e",
      testEnvironment: "node",
      roots: ["<rootDir>/tests/e2e"],
      transform: { "^.+\\.ts$": tsJest },
    },
    {
      // The extended tests (scripts/test.sh extended): heavier servers than the default run starts.
      displayName: "extended",
      testEnvironment: "node",
      roots: ["<rootDir>/tests/extended"],
      transform: { "^.+\\.ts$": tsJest },
    },
  ],
};
