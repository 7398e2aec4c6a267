/**
 * cli/automation.ts `inlineProgram`: which program the `nvcf` command gives the engine. The project's own entry
 * point, run in the command's process, unless turned off or unless the project directory would load another copy of
 * the SDK (whose resources the engine would never hear of).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inlineProgram } from "../../../cli/automation";

const ROOT = path.resolve(__dirname, "../../..");

describe("inlineProgram", () => {
  it("runs the project's entry point in this process when the project shares this process's SDK", () => {
    const program = inlineProgram(ROOT, {});
    expect(typeof program).toBe("function");
  });

  it("leaves the program to the CLI when turned off", () => {
    expect(inlineProgram(ROOT, { NVCF_INLINE_PROGRAM: "0" })).toBeUndefined();
  });

  it("leaves the program to the CLI when the project directory has its own copy of @pulumi/pulumi", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-inline-"));
    try {
      const sdk = path.join(dir, "node_modules", "@pulumi", "pulumi");
      fs.mkdirSync(sdk, { recursive: true });
      fs.writeFileSync(
        path.join(sdk, "package.json"),
        '{"name":"@pulumi/pulumi","version":"3.0.0","main":"index.js"}',
      );
      fs.writeFileSync(path.join(sdk, "index.js"), "module.exports = {};\n");
      fs.writeFileSync(path.join(dir, "package.json"), '{"name":"other","main":"index.js"}');
      fs.writeFileSync(path.join(dir, "index.js"), "module.exports = async () => ({});\n");
      expect(inlineProgram(dir, {})).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves the program to the CLI when the directory is no package it can load", () => {
    const dir = fs.mkdtempSync(path.join(ROOT, "node_modules", ".nvcf-inline-"));
    try {
      // Resolves this process's SDK (it is inside the project's node_modules) but has no entry point.
      expect(inlineProgram(dir, {})).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
