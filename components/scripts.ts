/**
 * The scripts the command resources (`command:local:Command`) run: files of `components/scripts/`, one folder
 * (its README.md says which command runs which file, joined with which). The components read them when the program
 * runs and pass the joined text whole as a command input, never a path: the command's state keeps the text it ran,
 * and its delete runs that text, also after the file changed or where no file of this project is at hand. So a
 * file's text is part of its commands' inputs: an edit shows as an update of those commands in the preview of every
 * deployed stack (tests/unit/stacks/commands.test.ts holds the record of them).
 *
 * Reading these files is this module's only I/O (docs/architecture.md, "What each layer may do").
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The folder of the scripts. */
export const SCRIPTS_DIR = path.join(__dirname, "scripts");

/**
 * The text of one file of `components/scripts/`, byte for byte: nothing stripped or substituted, so the joined
 * scripts are exactly the files' texts. Input: the file's name. Throws (ENOENT) when there is no such file.
 */
export function scriptText(name: string): string {
  return fs.readFileSync(path.join(SCRIPTS_DIR, name), "utf8");
}

/**
 * The kubectl runner (`kubectl.sh`), the start of every script that reaches a cluster (teardown steps, operator
 * restart, upgrade steps): strict mode, a private temporary directory `$work` removed on exit, and `k`, kubectl
 * aimed at the cluster (NVCFP_KUBECTL, with NVCFP_KUBECONFIG written to a 0600 file, else NVCFP_KUBE_CONTEXT).
 */
export const KUBECTL_PREAMBLE = scriptText("kubectl.sh");

/**
 * The nvcf-cli runner (`nvcf-cli.sh`), the start of every script that runs nvcf-cli (the registration's register,
 * rotate and deregister, the account settings): strict mode; every variable nvcf-cli would read from the
 * environment removed (NVCF_* and API_KEYS_*, except its own NVCF_CLI_* switches; docs/upstream-facts.md §3.1);
 * a private temporary directory `$work` that is also HOME (the CLI's token state dies with it) and holds the CLI's
 * config (`$work/cli.yaml`, from NVCFP_CLI_CONFIG_YAML); `redact`, which copies standard input to standard error
 * with tokens and the values of token, value and api_key keys replaced by `[redacted]`; a refusal when
 * NVCFP_ICMS_URL (the control plane's gateway URL) is empty; and `nvcf-cli init` (NVCFP_CLI), whose admin token
 * is never printed: a failure ends the script with `nvcf-cli init failed:` and the CLI's errors, redacted.
 * After it, a script runs `"$NVCFP_CLI" --config "$work/cli.yaml" <command>`, its output in `$work/out` and
 * `$work/err`, and on failure prints `nvcf-cli <command> failed for <what it was for>:` and the redacted errors.
 * Its text is the start of the registration command's inputs: see components/registration.ts before changing it.
 */
export const NVCF_CLI_RUNNER = scriptText("nvcf-cli.sh");
