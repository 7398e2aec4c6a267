/**
 * A fake nvcf-cli for the scripts that run nvcf-cli through the runner (components/scripts/nvcf-cli.sh): it answers
 * each call as the test says (standard output, standard error, exit status, by the command's words) and records
 * what it was given: its arguments (without `--config <file>`), the environment variables nvcf-cli would read
 * (NVCF_*, API_*, INVOKE_HOST, NVCT_HOST) with HOME and NO_COLOR, the config file's text, HOME's mode, and the text
 * of every argument that names a file (the kubeconfig). It never calls anything.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const FAKE = String.raw`#!/usr/bin/env node
const fs = require("fs");
const all = process.argv.slice(2);
const at = all.indexOf("--config");
const config = at >= 0 ? all[at + 1] : undefined;
const args = at >= 0 ? all.slice(0, at).concat(all.slice(at + 2)) : all;
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => /^(NVCF_|API_|INVOKE_HOST$|NVCT_HOST$|HOME$|NO_COLOR$)/.test(k)),
);
const files = Object.fromEntries(
  args.filter((a) => a.startsWith("/") && fs.existsSync(a) && fs.statSync(a).isFile()).map((a) => [a, fs.readFileSync(a, "utf8")]),
);
const mode = (f) => (f && fs.existsSync(f) ? (fs.statSync(f).mode & 0o777).toString(8) : null);
fs.appendFileSync(
  process.env.FK_LOG,
  JSON.stringify({ args, env, config: config && fs.existsSync(config) ? fs.readFileSync(config, "utf8") : null,
    configMode: mode(config), homeMode: mode(process.env.HOME), files }) + "\n",
);
const words = args.filter((a) => a !== "--json").join(" ");
const answer = JSON.parse(process.env.FK_ANSWERS || "[]").find((x) => words.startsWith(x.command));
if (answer) {
  if (answer.stdout) process.stdout.write(answer.stdout);
  if (answer.stderr) process.stderr.write(answer.stderr);
  process.exit(answer.exit || 0);
}
`;

/** How the fake answers the calls whose words (arguments but `--config` and `--json`) start with `command`. */
export interface Answer {
  command: string;
  stdout?: string;
  stderr?: string;
  exit?: number;
}

/** One call of the fake, as it recorded it. */
export interface Call {
  args: string[];
  env: Record<string, string>;
  config: string | null;
  configMode: string | null;
  homeMode: string | null;
  files: Record<string, string>;
}

/** One run of a script with the fake. */
export interface FakeCliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  calls: Call[];
  /** What the script left in its TMPDIR (the runner's private directory must be gone). */
  left: string[];
  /** The script's TMPDIR (removed after the run). */
  tmp: string;
}

/**
 * Runs `script` with bash, as the command provider runs it (standard input from /dev/null), with NVCFP_CLI the fake
 * and a TMPDIR of its own. The environment: PATH, TMPDIR, the fake's own FK_* variables, then `env` (the command's
 * environment and whatever the operator's shell would add). The first answer whose `command` starts a call's words
 * is given; a call no answer matches exits 0 with no output.
 */
export function runWithFakeCli(
  script: string,
  env: Record<string, string>,
  answers: Answer[] = [],
): FakeCliRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-nvcf-cli-"));
  const cli = path.join(dir, "nvcf-cli");
  fs.writeFileSync(cli, FAKE, { mode: 0o755 });
  const tmp = path.join(dir, "tmp");
  fs.mkdirSync(tmp);
  const log = path.join(dir, "log");
  fs.writeFileSync(log, "");
  try {
    const r = spawnSync("/bin/bash", ["-c", script], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        TMPDIR: tmp,
        FK_LOG: log,
        FK_ANSWERS: JSON.stringify(answers),
        NVCFP_CLI: cli,
        ...env,
      },
    });
    const calls = fs
      .readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Call);
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, calls, left: fs.readdirSync(tmp), tmp };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
