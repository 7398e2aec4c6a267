/** Two projects: `unit` (Pulumi mocks, seconds) and `e2e` (real pulumi CLI against the local cluster). */
const tsJest = ["ts-jest", { tsconfig: "tsconfig.json", diagnostics: { warnOnly: false } }];
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
  ],
};
