#!/usr/bin/env node
/*
 * Launcher of the `nvcf` command (package.json "bin"): runs cli/main.ts through ts-node in transpile-only
 * mode (no build step, no type check at run time; the test command type-checks) with the project's modules taken
 * from the transpile cache of engine/loader.ts, then exits with the verb's exit code once standard output and
 * standard error are flushed.
 */
"use strict";
const path = require("node:path");

require("ts-node").register({
  transpileOnly: true,
  project: path.join(__dirname, "..", "tsconfig.json"),
  compilerOptions: { module: "commonjs" },
});
// The stack program's loader (engine/loader.ts) for this process too: the project's modules come from its transpile
// cache instead of being transpiled at every start, npm's Arborist is loaded only if used, and the SDK's
// per-resource traces stay out of the engine. This matters most because `nvcf up` and `nvcf preview` run the stack
// program inside this process (cli/automation.ts inlineProgram). NVCF_FAST_LOADER=0 turns it off.
require("../engine/loader.ts").installFastLoader({ ...process.env, PULUMI_NODEJS_TYPESCRIPT: "true" });

const { main } = require("./main.ts");

main(process.argv).then(
  (code) => {
    process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
  },
  (err) => {
    process.stderr.write(`internal error: ${err && err.stack ? err.stack : err}\n`, () => process.exit(1));
  },
);
