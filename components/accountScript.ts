/**
 * The script behind the account-settings commands (components/accounts.ts): Node.js source, run by the command
 * provider as `node -e` with the settings in `NVCFP_*` environment variables, so no secret is part of a command
 * line Pulumi records. It evaluates to a function `(kind, action)`: kind `credential` or `limits`, action `apply`
 * (create and update) or `delete`. It calls nvcf-cli as NVIDIA documents it (src/clis/nvcf-cli/cmd/registry.go,
 * admin.go, apikey.go; docs/user/runbooks/update-nvcf-account-quota-limits.md) and prints only the CLI's
 * `--json` answer about the credential or the account, which holds no secret.
 *
 * Every run works in a private temporary directory (mode 0700) that is also the CLI's HOME, so the admin token
 * `init` stores and any API key die with it; the CLI gets the config file the program wrote and none of the
 * operator's NVCF_*, API_KEYS_* or host-override variables (its own NVCF_CLI_* switches pass). Whatever the CLI
 * prints on failure is passed on with the credential (plain and base64), tokens and keys replaced by
 * `[redacted]`. NVIDIA's CLI takes a registry password only as a flag (`--password`, `--secret`), so it is in
 * that nvcf-cli process's argument list while it runs: that is the one place it appears outside the state.
 */

/**
 * The Node.js source of the script (no template placeholders: the text is stored in each command's inputs, so it
 * changes only with this file). Environment: NVCFP_CLI (nvcf-cli), NVCFP_CLI_CONFIG_YAML (its config),
 * NVCFP_GATEWAY_URL, NVCFP_ACCOUNT; a credential's NVCFP_REGISTRY_HOST, NVCFP_SECRET_NAME, NVCFP_ARTIFACT_TYPES
 * (comma-separated), NVCFP_REGISTRY_USER, NVCFP_REGISTRY_PASSWORD (secret), NVCFP_DESCRIPTION, NVCFP_TAGS (JSON
 * list); the limits' NVCFP_MAX_FUNCTIONS, NVCFP_MAX_TASKS, NVCFP_MAX_TELEMETRIES, NVCFP_MAX_REGISTRY_CREDS; and
 * PULUMI_COMMAND_STDOUT, the previous run's output, from the command provider on update and delete.
 */
export const ACCOUNT_SCRIPT = String.raw`(function (kind, action) {
  "use strict";
  const fs = require("fs");
  const os = require("os");
  const path = require("path");
  const cp = require("child_process");
  const env = process.env;
  const say = (m) => process.stderr.write(m + "\n");
  const stop = (m) => {
    const e = new Error(m);
    e.reported = true;
    throw e;
  };

  // The CLI's environment: the operator's settings the CLI would read are left out (root.go binds NVCF_*,
  // API_KEYS_*, API_HOST, INVOKE_HOST, NVCT_HOST), its own NVCF_CLI_* switches kept, the script's NVCFP_* dropped.
  const cliEnv = {};
  for (const k of Object.keys(env)) {
    if (/^(NVCF_|API_KEYS_|API_HOST$|INVOKE_HOST$|NVCT_HOST$)/.test(k) && !/^NVCF_CLI_/.test(k)) continue;
    if (/^NVCFP_/.test(k)) continue;
    cliEnv[k] = env[k];
  }
  const secrets = [];
  if (env.NVCFP_REGISTRY_PASSWORD) {
    secrets.push(env.NVCFP_REGISTRY_PASSWORD);
    secrets.push(Buffer.from((env.NVCFP_REGISTRY_USER || "") + ":" + env.NVCFP_REGISTRY_PASSWORD).toString("base64"));
  }
  const scrub = (text) => {
    let t = String(text || "");
    for (const s of secrets) t = t.split(s).join("[redacted]");
    return t
      .replace(/(nvapi-|eyJ)[A-Za-z0-9._-]+/g, "[redacted]")
      .replace(/("?(token|value|api_?key|apiKey|password|secret)"?\s*[:=]\s*)"?[^",\s}]+"?/gi, "$1[redacted]");
  };
  // What a failed CLI run said: its "Error:" lines (cobra prints the command's usage after them), else its output.
  const said = (r) => {
    const text = scrub((r.stderr || "") + "\n" + (r.stdout || ""));
    const errors = text.split("\n").filter((l) => /^Error: /.test(l));
    return (errors.length ? errors : text.split("\n").filter((l) => l.trim()).slice(-10)).join("\n");
  };

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-account-"));
  const config = path.join(work, "cli.yaml");
  cliEnv.HOME = work;
  // A relative path names the CLI from the working directory (the project's); a bare name is looked up in PATH.
  const bin = env.NVCFP_CLI && env.NVCFP_CLI.indexOf("/") >= 0 ? path.resolve(env.NVCFP_CLI) : env.NVCFP_CLI;
  const cli = (args, extra) =>
    cp.spawnSync(bin, ["--config", config].concat(args), {
      cwd: work,
      env: Object.assign({}, cliEnv, extra || {}),
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
  const json = (what, r) => {
    if (r.error) stop("cannot run nvcf-cli (" + env.NVCFP_CLI + "): " + r.error.message);
    if (r.status !== 0) stop("nvcf-cli " + what + " failed (exit " + r.status + "):\n" + said(r));
    try {
      return JSON.parse(r.stdout);
    } catch (e) {
      stop("nvcf-cli " + what + " printed no JSON:\n" + scrub(r.stdout).slice(0, 2000));
    }
  };
  const previous = () => {
    try {
      return JSON.parse(env.PULUMI_COMMAND_STDOUT || "");
    } catch (e) {
      return undefined;
    }
  };
  const init = () => {
    if (!env.NVCFP_GATEWAY_URL)
      stop("the control plane's gateway address is empty: set nvcf:gateway.address or wait until the Gateway reports one");
    fs.writeFileSync(config, env.NVCFP_CLI_CONFIG_YAML || "", { mode: 0o600 });
    const r = cli(["init"]);
    if (r.error) stop("cannot run nvcf-cli (" + env.NVCFP_CLI + "): " + r.error.message);
    if (r.status !== 0) stop("nvcf-cli init failed (exit " + r.status + "):\n" + said(r));
  };
  const account = env.NVCFP_ACCOUNT;

  const applyCredential = () => {
    const host = env.NVCFP_REGISTRY_HOST;
    const want = (env.NVCFP_ARTIFACT_TYPES || "").split(",").filter(Boolean);
    const tags = JSON.parse(env.NVCFP_TAGS || "[]");
    const description = env.NVCFP_DESCRIPTION || "";
    init();
    const all = json("registry-credential list", cli(["--json", "registry-credential", "list"])).registryCredentials || [];
    const known = ((previous() || {}).registryCredential || {}).registryCredentialId;
    const mine = all.filter((c) => c.registryHostname === host);
    let target = mine.find((c) => c.registryCredentialId === known);
    if (!target) {
      const byName = (n) => mine.filter((c) => c.registryCredentialName === n);
      const pick = [byName(env.NVCFP_SECRET_NAME), byName("credentials"), mine].find((l) => l.length === 1);
      if (!pick && mine.length > 1)
        stop(
          "account " + account + " has " + mine.length + " registry credentials for " + host + " (" +
            mine.map((c) => c.registryCredentialId + " " + c.registryCredentialName).join(", ") +
            "): the program manages one per hostname; delete the others with nvcf-cli registry-credential delete <id> --force",
        );
      target = pick && pick[0];
    }
    const auth = ["--username", env.NVCFP_REGISTRY_USER, "--password", env.NVCFP_REGISTRY_PASSWORD];
    let done;
    if (target) {
      const extra = (target.artifactTypes || []).filter((t) => want.indexOf(t) < 0);
      if (extra.length)
        stop(
          "the credential for " + host + " in account " + account + " has artifact types " + extra.join(", ") +
            " that nvcf:accounts.registryCredentials does not list for it; the API cannot remove an artifact type: add them to its artifactTypes",
        );
      if ((target.description || "") !== description || JSON.stringify((target.tags || []).slice().sort()) !== JSON.stringify(tags.slice().sort()))
        say("note: the credential for " + host + " keeps its description and tags (nvcf-cli cannot change them after it was created)");
      const add = want.filter((t) => (target.artifactTypes || []).indexOf(t) < 0);
      const args = ["--json", "registry-credential", "update", target.registryCredentialId].concat(auth);
      for (const t of add) args.push("--artifact-type", t);
      done = json("registry-credential update", cli(args));
      say("updated registry credential " + target.registryCredentialId + " (" + host + ") of account " + account);
    } else {
      const args = ["--json", "registry-credential", "add", "--hostname", host].concat(auth);
      for (const t of want) args.push("--artifact-type", t);
      if (description) args.push("--description", description);
      for (const t of tags) args.push("--tag", t);
      done = json("registry-credential add", cli(args));
      say("added a registry credential for " + host + " to account " + account);
    }
    const c = done.registryCredential || {};
    process.stdout.write(
      JSON.stringify({
        registryCredential: {
          registryCredentialId: c.registryCredentialId,
          registryCredentialName: c.registryCredentialName,
          registryHostname: c.registryHostname,
          artifactTypes: c.artifactTypes || [],
          description: c.description || "",
          tags: c.tags || [],
          provisionedBy: c.provisionedBy,
        },
      }) + "\n",
    );
  };

  const deleteCredential = () => {
    const c = (previous() || {}).registryCredential;
    if (!c || !c.registryCredentialId) return say("no registry credential recorded for " + env.NVCFP_REGISTRY_HOST + "; nothing to delete");
    if (c.provisionedBy === "SYSTEM")
      return say(
        "kept registry credential " + c.registryCredentialId + " (" + c.registryHostname + ") of account " + account +
          ": the account was created with it, and the API does not delete a credential provisioned by the system",
      );
    init();
    const r = cli(["--json", "registry-credential", "delete", c.registryCredentialId, "--force"]);
    if (r.status !== 0 && /API error 404/.test(r.stderr || "")) return say("registry credential " + c.registryCredentialId + " was already gone");
    json("registry-credential delete", r);
    say("deleted registry credential " + c.registryCredentialId + " (" + c.registryHostname + ") of account " + account);
  };

  const applyLimits = () => {
    init();
    // The runbook's steps: an API key with account_setup, then admin accounts update (admin commands are hidden
    // unless NVCF_CLI_ENABLE_ADMIN is set). The key is printed by the CLI, so that output is never kept.
    const key = cli([
      "--json", "api-key", "generate", "--for", "function",
      "--scopes", "invoke_function,list_functions,queue_details,list_functions_details,account_setup",
      "--expires-in", "1h", "--description", "nvcf-pulumi account limits",
    ]);
    if (key.status !== 0) stop("nvcf-cli api-key generate failed (exit " + key.status + "):\n" + said(key));
    const r = cli(
      [
        "--json", "admin", "accounts", "update", "--nca-id", account,
        "--max-functions", env.NVCFP_MAX_FUNCTIONS, "--max-tasks", env.NVCFP_MAX_TASKS,
        "--max-telemetries", env.NVCFP_MAX_TELEMETRIES, "--max-registry-credentials", env.NVCFP_MAX_REGISTRY_CREDS,
      ],
      { NVCF_CLI_ENABLE_ADMIN: "1" },
    );
    const a = json("admin accounts update", r).account || {};
    say("set the limits of account " + account);
    process.stdout.write(JSON.stringify({ account: a }) + "\n");
  };

  try {
    if (kind === "credential") (action === "delete" ? deleteCredential : applyCredential)();
    else if (action === "delete") say("the limits of account " + account + " stay as they are (the account goes with the control plane)");
    else applyLimits();
  } catch (e) {
    say(e.reported ? e.message : scrub(e.stack || e.message));
    process.exitCode = 1;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
})`;
