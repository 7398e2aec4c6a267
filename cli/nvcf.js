#!/usr/bin/env node
/*
 * Launcher of the `nvcf` command (package.json "bin"): runs cli/main.ts through ts-node in transpile-only
 * mode (no build step, no type check at run time; the test command type-checks), then exits with the verb's
 * exit code once standard output and standard error are flushed.
 */
"use strict";
const path = require("node:path");

require("ts-node").register({
  transpileOnly: true,
  project: path.join(__dirname, "..", "tsconfig.json"),
  compilerOptions: { module: "commonjs" },
});

const { main } = require("./main.ts");

main(process.argv).then(
  (code) => {
    process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
  },
  (err) => {
    process.stderr.write(`internal error: ${err && err.stack ? err.stack : err}\n`, () => process.exit(1));
  },
);
