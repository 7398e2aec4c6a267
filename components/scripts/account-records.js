/*
 * The JSON side of the account-settings scripts (account-*.sh): it reads nvcf-cli's `--json` answers, chooses the
 * credential a change goes to and writes what the command prints. It runs no process and reads no file: the
 * scripts run nvcf-cli through the runner (nvcf-cli.sh) and run this text as `node -e "$NVCFP_RECORDS_JS" <op>`,
 * the CLI's answer on standard input. The commands and their rules: docs/upstream-facts.md §3.5 (NVIDIA's
 * src/clis/nvcf-cli/cmd/registry.go, admin.go).
 *
 * <op>:
 * - `plan` (input: the answer of `registry-credential list`): the arguments of the call that applies the
 *   credential, each followed by a NUL: those after `registry-credential` and before the user and password. When
 *   the account has the credential for NVCFP_REGISTRY_HOST (the one the command recorded, else the only one named
 *   NVCFP_SECRET_NAME, else the only one named `credentials`, else the only one for the hostname): `update <id>`
 *   and `--artifact-type <type>` for each type the config adds. Else `add` with the hostname, the types, the
 *   description and the tags. Refused: more than one candidate and none of them recorded or named, or a credential
 *   with an artifact type the config does not list (the API cannot remove one). A description or tags that
 *   differ are kept, with a note (the CLI cannot change them).
 * - `credential` (input: the answer of `registry-credential add` or `update`): `{"registryCredential": {...}}`,
 *   the API's record of the credential (IDs, name, hostname, types, description, tags, provisioned by), no secret.
 * - `account` (input: the answer of `admin accounts update`): `{"account": {...}}`.
 * - `json` (any answer): prints nothing; the answer must be JSON.
 * - `recorded` (no input; PULUMI_COMMAND_STDOUT, what the command printed last): three lines, the recorded
 *   credential's ID, who provisioned it and its hostname; nothing when none is recorded.
 *
 * Exit status: 0; 1 a refusal (the reason on standard error); 2 an unknown op; 3 the answer is no JSON.
 * Environment: NVCFP_ACCOUNT, NVCFP_REGISTRY_HOST, NVCFP_SECRET_NAME, NVCFP_ARTIFACT_TYPES (comma-separated),
 * NVCFP_DESCRIPTION, NVCFP_TAGS (JSON list of strings), PULUMI_COMMAND_STDOUT.
 */
(function records(op) {
  "use strict";

  /**
   * A registry credential as the API describes it.
   * @typedef {{ registryCredentialId?: string, registryCredentialName?: string, registryHostname?: string,
   *   artifactTypes?: string[], description?: string, tags?: string[], provisionedBy?: string }} Credential
   */

  const env = process.env;
  const account = env["NVCFP_ACCOUNT"] ?? "";
  const host = env["NVCFP_REGISTRY_HOST"] ?? "";

  /**
   * The object a JSON text holds; undefined for any other text or value.
   * @param {string} text
   * @returns {Record<string, any> | undefined}
   */
  const object = (text) => {
    try {
      const v = JSON.parse(text);
      return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
    } catch {
      return undefined;
    }
  };

  /**
   * Ends the op with a refusal.
   * @param {string} message
   */
  const refuse = (message) => {
    process.stderr.write(message + "\n");
    process.exitCode = 1;
  };

  /**
   * The credential the command printed last (PULUMI_COMMAND_STDOUT), if any.
   * @returns {Credential | undefined}
   */
  const recorded = () => object(env["PULUMI_COMMAND_STDOUT"] ?? "")?.["registryCredential"];

  /**
   * The `plan` op (see the header).
   * @param {Record<string, any>} list
   */
  const plan = (list) => {
    /** @type {Credential[]} */
    const all = Array.isArray(list["registryCredentials"]) ? list["registryCredentials"] : [];
    const want = (env["NVCFP_ARTIFACT_TYPES"] ?? "").split(",").filter(Boolean);
    /** @type {string[]} */
    const tags = JSON.parse(env["NVCFP_TAGS"] || "[]");
    const description = env["NVCFP_DESCRIPTION"] ?? "";
    const known = recorded()?.registryCredentialId;
    const mine = all.filter((c) => c.registryHostname === host);
    let target = known ? mine.find((c) => c.registryCredentialId === known) : undefined;
    if (!target) {
      /** @param {string | undefined} name */
      const named = (name) => mine.filter((c) => c.registryCredentialName === name);
      const pick = [named(env["NVCFP_SECRET_NAME"]), named("credentials"), mine].find((l) => l.length === 1);
      if (!pick && mine.length > 1)
        return refuse(
          `account ${account} has ${mine.length} registry credentials for ${host} (` +
            mine.map((c) => `${c.registryCredentialId} ${c.registryCredentialName}`).join(", ") +
            "): the program manages one per hostname; delete the others with nvcf-cli registry-credential delete <id> --force",
        );
      target = pick?.[0];
    }
    /** @type {string[]} */
    let args;
    if (target) {
      const has = target.artifactTypes ?? [];
      const extra = has.filter((t) => !want.includes(t));
      if (extra.length)
        return refuse(
          `the credential for ${host} in account ${account} has artifact types ${extra.join(", ")}` +
            " that nvcf:accounts.registryCredentials does not list for it; the API cannot remove an artifact type: add them to its artifactTypes",
        );
      const sorted = (/** @type {string[]} */ l) => JSON.stringify([...l].sort());
      if ((target.description ?? "") !== description || sorted(target.tags ?? []) !== sorted(tags))
        process.stderr.write(
          `note: the credential for ${host} keeps its description and tags (nvcf-cli cannot change them after it was created)\n`,
        );
      args = ["update", String(target.registryCredentialId)];
      for (const t of want.filter((t) => !has.includes(t))) args.push("--artifact-type", t);
    } else {
      args = ["add", "--hostname", host];
      for (const t of want) args.push("--artifact-type", t);
      if (description) args.push("--description", description);
      for (const t of tags) args.push("--tag", t);
    }
    process.stdout.write(args.map((a) => a + "\0").join(""));
  };

  /**
   * The `credential` op (see the header).
   * @param {Record<string, any>} answer
   */
  const credential = (answer) => {
    /** @type {Credential} */
    const c = answer["registryCredential"] ?? {};
    const record = {
      registryCredentialId: c.registryCredentialId,
      registryCredentialName: c.registryCredentialName,
      registryHostname: c.registryHostname,
      artifactTypes: c.artifactTypes ?? [],
      description: c.description ?? "",
      tags: c.tags ?? [],
      provisionedBy: c.provisionedBy,
    };
    process.stdout.write(JSON.stringify({ registryCredential: record }) + "\n");
  };

  /** @type {Record<string, (answer: Record<string, any>) => void>} */
  const withAnswer = {
    plan,
    credential,
    account: (answer) => process.stdout.write(JSON.stringify({ account: answer["account"] ?? {} }) + "\n"),
    json: () => undefined,
  };

  if (op === "recorded") {
    const c = recorded();
    if (c?.registryCredentialId)
      process.stdout.write(
        [c.registryCredentialId, c.provisionedBy ?? "", c.registryHostname ?? ""].join("\n") + "\n",
      );
    return;
  }
  const run = op !== undefined && Object.hasOwn(withAnswer, op) ? withAnswer[op] : undefined;
  if (!run) {
    process.stderr.write(`account-records.js: unknown op ${op}\n`);
    process.exitCode = 2;
    return;
  }
  let input = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => (input += chunk));
  process.stdin.on("end", () => {
    const answer = object(input);
    if (answer === undefined) process.exitCode = 3;
    else run(answer);
  });
})(process.argv[1]);
