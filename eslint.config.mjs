import tseslint from "typescript-eslint";
import pulumi from "@pulumi/eslint-plugin";

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      "bin/**",
      "tests/charts/**",
      "tests/bin/**",
      "cli/nvcf.js",
      "jest.config.js",
      "eslint.config.mjs",
      ".dependency-cruiser.cjs",
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { "@pulumi": pulumi },
    rules: {
      "@pulumi/no-output-in-template-literal": "error",
      "@pulumi/no-output-instance-in-template-literal": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
);
