/**
 * The scripts the command resources run (components/scripts/, read by components/scripts.ts): every script as a
 * command runs it (the files joined as each component joins them) passes ShellCheck (scripts/shellcheck.sh, passed
 * as NVCF_SHELLCHECK by scripts/test.sh; the test fails, never skips, without it); every file of the folder is part
 * of such a script and named in the folder's README.md; the files are read byte for byte. The JavaScript file
 * (account-records.js) is type-checked and linted with the project's TypeScript and ESLint rules (`npx tsc`,
 * `npm run lint`). What each script does is tested in tests/unit/components/scripts/ and the tests README.md names.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { accountScripts } from "../../../components/accounts";
import { DRAIN, START_UNFINALIZE, UNFINALIZE } from "../../../components/computePlane";
import { RESTART_OPERATOR } from "../../../components/operatorRestart";
import { MEK_ROTATE } from "../../../components/mekRotation";
import { RESTART } from "../../../components/restarts";
import { REGISTRATION_SCRIPTS } from "../../../components/registration";
import { KUBECTL_PREAMBLE, NVCF_CLI_RUNNER, SCRIPTS_DIR, scriptText } from "../../../components/scripts";
import { GUARD_SCRIPT } from "../../../components/teardownGuard";
import {
  CASSANDRA_PREPARE,
  CASSANDRA_VERIFY,
  OPENBAO_ROLLOUT,
  stepScript,
} from "../../../components/upgradeSteps";

/** Every bash script a command runs, by the command and input that carries it. */
const SCRIPTS: Record<string, string> = {
  "registration NVCFP_REGISTER_SCRIPT": REGISTRATION_SCRIPTS.NVCFP_REGISTER_SCRIPT,
  "registration NVCFP_UPDATE_SCRIPT": REGISTRATION_SCRIPTS.NVCFP_UPDATE_SCRIPT,
  "registration NVCFP_DEREGISTER_SCRIPT": REGISTRATION_SCRIPTS.NVCFP_DEREGISTER_SCRIPT,
  "account credential NVCFP_APPLY_SCRIPT": accountScripts("credential")["NVCFP_APPLY_SCRIPT"]!,
  "account credential NVCFP_DELETE_SCRIPT": accountScripts("credential")["NVCFP_DELETE_SCRIPT"]!,
  "account limits NVCFP_APPLY_SCRIPT": accountScripts("limits")["NVCFP_APPLY_SCRIPT"]!,
  "account limits NVCFP_DELETE_SCRIPT": accountScripts("limits")["NVCFP_DELETE_SCRIPT"]!,
  "teardown guard NVCFP_GUARD_SCRIPT": GUARD_SCRIPT,
  "operator restart NVCFP_RESTART_SCRIPT": RESTART_OPERATOR,
  "operator finalizers delete": START_UNFINALIZE,
  "operator finalizers NVCFP_UNFINALIZE_SCRIPT": UNFINALIZE,
  "drain NVCFP_DRAIN_SCRIPT": DRAIN,
  "openbao-rollout NVCFP_STEP_SCRIPT": stepScript(OPENBAO_ROLLOUT),
  "cassandra-adoption-prepare NVCFP_STEP_SCRIPT": stepScript(CASSANDRA_PREPARE),
  "cassandra-adoption-verify NVCFP_STEP_SCRIPT": stepScript(CASSANDRA_VERIFY),
  "restart NVCFP_STEP_SCRIPT": stepScript(RESTART),
  "restart of openbao-server NVCFP_STEP_SCRIPT": stepScript(`${RESTART}\n${OPENBAO_ROLLOUT}`),
  "mek rotation NVCFP_STEP_SCRIPT": MEK_ROTATE,
};

/**
 * Findings accepted, each in the scripts of the files named: their texts are inputs of deployed commands (an
 * edit shows as an update in every deployed stack's preview), and each finding is what the script means.
 * - SC2016 (expressions in single quotes): kubectl's go-templates (`{{$k}}`, `{{$n := …}}`) and the `sh -c '…'`
 *   script cassandra-lib.sh runs in a pod, whose shell expands them: literal here on purpose.
 * - SC2015 (`A && B || C`): `[ … ] && [ … ] || continue` in openbao-rollout.sh and cassandra-lib.sh, where B is a
 *   test too and C is meant to run when either fails.
 * - SC2034 (`i` unused): operator-drain.sh counts seconds with `for i in $(seq …)`.
 * - SC2317 (unreachable): restart.sh's `observed`, called through `until_true … observed` (seen once openbao-rollout.sh
 *   follows it).
 */
const ACCEPTED: Record<string, string[]> = {
  "openbao-rollout NVCFP_STEP_SCRIPT": ["SC2016", "SC2015"],
  "cassandra-adoption-prepare NVCFP_STEP_SCRIPT": ["SC2016", "SC2015"],
  "cassandra-adoption-verify NVCFP_STEP_SCRIPT": ["SC2016", "SC2015"],
  "operator finalizers NVCFP_UNFINALIZE_SCRIPT": ["SC2016"],
  "drain NVCFP_DRAIN_SCRIPT": ["SC2034"],
  "restart NVCFP_STEP_SCRIPT": ["SC2016"],
  "restart of openbao-server NVCFP_STEP_SCRIPT": ["SC2016", "SC2317", "SC2015"],
};

test("ShellCheck finds nothing in any script a command runs, as the command runs it", () => {
  const bin = process.env["NVCF_SHELLCHECK"];
  if (!bin)
    throw new Error(
      "NVCF_SHELLCHECK is not set: run NVCF_SHELLCHECK=$(bash scripts/shellcheck.sh) npx jest …",
    );
  const findings: Record<string, string> = {};
  for (const [name, text] of Object.entries(SCRIPTS)) {
    const exclude = ACCEPTED[name] ?? [];
    const r = spawnSync(
      bin,
      ["--shell=bash", "--format=gcc", ...(exclude.length ? [`--exclude=${exclude.join(",")}`] : []), "-"],
      { input: text, encoding: "utf8" },
    );
    if (r.error) throw r.error;
    // gcc format: `-:<line>:<column>: <level>: <message> [SCxxxx]`; the script's line is shown with it.
    const lines = text.split("\n");
    const out = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => `${l}\n    ${lines[Number(l.split(":")[1]) - 1]?.trim()}`);
    if (r.status !== 0 || out.length) findings[name] = out.join("\n") || r.stderr;
  }
  expect(findings).toEqual({});
});

test("every accepted finding is still there (an exclusion that finds nothing to excuse goes)", () => {
  const bin = process.env["NVCF_SHELLCHECK"];
  if (!bin) throw new Error("NVCF_SHELLCHECK is not set");
  for (const [name, codes] of Object.entries(ACCEPTED)) {
    const r = spawnSync(bin, ["--shell=bash", "--format=gcc", "-"], {
      input: SCRIPTS[name],
      encoding: "utf8",
    });
    for (const code of codes) expect([name, r.stdout]).toEqual([name, expect.stringContaining(`[${code}]`)]);
  }
});

test("every file of components/scripts/ is part of a script a command runs, and README.md says what it is", () => {
  const files = fs.readdirSync(SCRIPTS_DIR).filter((f) => f !== "README.md");
  const texts = [...Object.values(SCRIPTS), accountScripts("credential")["NVCFP_RECORDS_JS"]!];
  const readme = fs.readFileSync(path.join(SCRIPTS_DIR, "README.md"), "utf8");
  for (const f of files) {
    expect([f, texts.some((t) => t.includes(scriptText(f)))]).toEqual([f, true]);
    expect([f, readme.includes(`\`${f}\``)]).toEqual([f, true]);
  }
  expect(files.filter((f) => !/\.(sh|js)$/.test(f))).toEqual([]);
});

test("a file is read byte for byte; the runners are the files' texts", () => {
  expect(scriptText("nvcf-cli.sh")).toBe(fs.readFileSync(path.join(SCRIPTS_DIR, "nvcf-cli.sh"), "utf8"));
  expect(NVCF_CLI_RUNNER).toBe(scriptText("nvcf-cli.sh"));
  expect(KUBECTL_PREAMBLE).toBe(scriptText("kubectl.sh"));
  expect(() => scriptText("no-such-script.sh")).toThrow(/ENOENT/);
  // Every script that runs nvcf-cli starts with the runner; every script that reaches a cluster with kubectl's.
  for (const [name, text] of Object.entries(SCRIPTS)) {
    if (/^(registration|account)/.test(name) && !name.startsWith("account limits NVCFP_DELETE"))
      expect([name, text.startsWith(NVCF_CLI_RUNNER)]).toEqual([name, true]);
    if (/^(operator restart|operator finalizers NVCFP|drain|openbao|cassandra)/.test(name))
      expect([name, text.startsWith(KUBECTL_PREAMBLE)]).toEqual([name, true]);
  }
});
