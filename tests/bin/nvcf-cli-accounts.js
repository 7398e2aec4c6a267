/**
 * The registry-credential, admin accounts and api-key generate commands of the nvcf-cli STAND-IN (tests/bin/nvcf-cli
 * dispatches them here), for tests only. Written from NVIDIA/nvcf src/clis/nvcf-cli: cmd/registry.go, cmd/admin.go,
 * cmd/apikey.go, cmd/root.go (global flags), cmd/json_output.go, internal/client/{client,registry,accounts,
 * multi_token_transport}.go, internal/apikeys/client.go, internal/logging/logger.go; cobra's command-line rules.
 *
 *   nvcf-cli [--config F] [--json] [--debug] registry-credential list [--artifact-type T]... [--provisioned-by P]...
 *   nvcf-cli ... registry-credential add --hostname H --artifact-type T... (--username U --password P | --secret S)
 *                [--description D] [--tag T]...
 *   nvcf-cli ... registry-credential get <credential-id>
 *   nvcf-cli ... registry-credential update <credential-id> [--username U --password P] [--artifact-type T]...
 *   nvcf-cli ... registry-credential delete <credential-id> [--force]
 *   nvcf-cli ... admin accounts list                              (only with NVCF_CLI_ENABLE_ADMIN set)
 *   nvcf-cli ... admin accounts update --nca-id ID [--name N] [--max-functions N] [--max-tasks N]
 *                [--max-telemetries N] [--max-registry-credentials N]
 *   nvcf-cli ... api-key generate [--for function|task] [--scopes S,...] [--expires-in D] [--description D] [--validate]
 *
 * What is real: flags (string slices take repeats and commas), argument counts, the checks the CLI makes before it
 * calls the API, its output (human lines with [INFO]/[SUCCESS] prefixes in colour unless NO_COLOR or TERM=dumb,
 * or `--json` with Go's JSON field order and HTML escaping), its errors ("Error: <message>" on standard error,
 * then the command's usage unless the command silences it, as admin does) and exit codes (1 for every error, as
 * cobra returns them; a group without a known subcommand prints its help and exits 0), the token rules (NVCF_TOKEN
 * / config `token` / the state's token from `init` if unexpired; NVCF_API_KEY likewise; admin needs the token), and
 * the transport's "DEBUG: Using ..." log lines on standard error (not with --json).
 * What is emulated: the API, as tests/bin/nvcf-api.js in $NVCF_CLI_API_DIR (required); every token the stand-in
 * mints belongs to OpenBao's admin client `ncp`, and the API checks no scope; `api-key generate` mints a random
 * `nvapi-stand-in-…` key without calling an api-keys service.
 * Not emulated (an error says so): registry-credential list-recognized, admin secrets, admin queues, the other
 * api-key commands, OAuth2 client credentials, the delete confirmation prompt (use --force).
 */
"use strict";

const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const api = require(path.join(__dirname, "nvcf-api.js"));

/** An error of these commands: cobra prints "Error: <message>" (+ usage unless silenced) and exits 1. */
class CobraError extends Error {}

const GLOBAL = {
  config: { type: "string", usage: "config file (default is $HOME/.nvcf-cli.yaml)" },
  debug: { type: "bool", usage: "enable debug logging" },
  json: { type: "bool", usage: "output JSON for automation" },
};
const ARTIFACT_HELP = "(CONTAINER, HELM, MODEL, RESOURCE)";
const ADMIN_SCOPES_NOTE = "admin commands require NVCF_TOKEN with the appropriate admin scope; NVCF_API_KEY is not accepted";
const FUNCTION_SCOPES = ["invoke_function", "list_functions", "queue_details", "list_functions_details"];
const TASK_SCOPES = ["launch_task", "list_tasks", "task_details", "cancel_task", "delete_task", "list_events", "list_results", "update_secrets"];
/** The admin token's subject (migrations/openbao 10_setup_admin-issuer.sh: ADMIN_CLIENT_ID). */
const ADMIN_CLIENT = "ncp";

const notEmulated = (what) => ({ notEmulated: what });

/** The command tree (cobra commands): groups have `subs`; leaves `run`, `flags`, `required`, `args` (exact count). */
const TREE = {
  "registry-credential": {
    short: "Manage registry credentials",
    subs: {
      list: {
        short: "List all registry credentials",
        flags: {
          "artifact-type": { type: "strings", usage: `Filter by artifact type ${ARTIFACT_HELP}` },
          "provisioned-by": { type: "strings", usage: "Filter by provisioned by (SYSTEM, USER)" },
        },
        run: rcList,
      },
      add: {
        short: "Add a new registry credential",
        flags: {
          hostname: { type: "string", usage: "Registry hostname (required)" },
          username: { type: "string", usage: "Registry username (use with --password)" },
          password: { type: "string", usage: "Registry password (use with --username)" },
          secret: { type: "string", usage: "Base64 encoded 'username:password' string (alternative to --username/--password)" },
          "artifact-type": { type: "strings", usage: `Artifact types ${ARTIFACT_HELP} - required, can be specified multiple times` },
          description: { type: "string", usage: "Description of the credential" },
          tag: { type: "strings", usage: "Tags for the credential - can be specified multiple times" },
        },
        required: ["hostname", "artifact-type"],
        run: rcAdd,
      },
      get: { use: "get <credential-id>", short: "Get details of a specific registry credential", args: 1, run: rcGet },
      update: {
        use: "update <credential-id>",
        short: "Update an existing registry credential",
        args: 1,
        flags: {
          username: { type: "string", usage: "New registry username (must be provided with --password)" },
          password: { type: "string", usage: "New registry password (must be provided with --username)" },
          "artifact-type": { type: "strings", usage: `Artifact type(s) to ADD to existing types ${ARTIFACT_HELP} - can be specified multiple times` },
        },
        run: rcUpdate,
      },
      delete: {
        use: "delete <credential-id>",
        short: "Delete a registry credential",
        args: 1,
        flags: { force: { type: "bool", usage: "Skip confirmation prompt" } },
        run: rcDelete,
      },
      "list-recognized": { short: "List all recognized registries", ...notEmulated("registry-credential list-recognized") },
    },
  },
  admin: {
    short: "Admin commands for NVIDIA Super Admins",
    silenceUsage: true,
    enabled: () => !!process.env.NVCF_CLI_ENABLE_ADMIN,
    subs: {
      accounts: {
        short: "Manage NVIDIA Cloud Accounts",
        subs: {
          list: { short: "List all NVIDIA Cloud Accounts", run: accountsList },
          update: {
            short: "Update NVIDIA Cloud Account settings",
            flags: {
              "nca-id": { type: "string", usage: "NVIDIA Cloud Account ID (required)" },
              name: { type: "string", usage: "Human readable account/customer name (4-36 chars)" },
              "max-functions": { type: "int", usage: "Maximum number of functions allowed" },
              "max-tasks": { type: "int", usage: "Maximum number of tasks allowed" },
              "max-telemetries": { type: "int", usage: "Maximum number of telemetries allowed (max: 50)" },
              "max-registry-credentials": { type: "int", usage: "Maximum number of registry credentials allowed (max: 50)" },
            },
            required: ["nca-id"],
            run: accountsUpdate,
          },
        },
      },
      secrets: { short: "Manage secrets across accounts", ...notEmulated("admin secrets") },
      queues: { short: "Get queue details across accounts", ...notEmulated("admin queues") },
    },
  },
  "api-key": {
    short: "Manage API keys for NVCF operations",
    subs: {
      generate: {
        short: "Generate a new API key",
        flags: {
          "expires-in": { type: "string", default: "24h", usage: "API key expiration duration (e.g., 24h, 7d, 168h)" },
          description: { type: "string", default: "Generated by nvcf-cli", usage: "API key description" },
          validate: { type: "bool", usage: "Validate the generated API key after creation" },
          scopes: { type: "strings", usage: "Custom scopes (comma-separated). Requires --for to specify which service." },
          for: { type: "string", usage: "Generate key for a specific service only: function or task (default: both)" },
        },
        run: apiKeyGenerate,
      },
      list: notEmulated("api-key list"),
      delete: notEmulated("api-key delete"),
      revoke: notEmulated("api-key revoke"),
      show: notEmulated("api-key show"),
      clear: notEmulated("api-key clear"),
      "clear-all": notEmulated("api-key clear-all"),
    },
  },
};

/** The command groups this module runs (the first word after the global flags). */
const GROUPS = Object.keys(TREE);

/** The first command word of argv, skipping the global flags (and --config's value). */
function firstWord(argv) {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--config") i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/** True when argv names one of this module's command groups (tests/bin/nvcf-cli hands those over). */
function handles(argv) {
  const w = firstWord(argv);
  return w !== undefined && GROUPS.includes(w);
}

// ---------------------------------------------------------------------------------------------------------
// Command line (cobra and pflag behaviour)
// ---------------------------------------------------------------------------------------------------------

/** Every flag of the tree and the globals (the same name has the same type everywhere). */
function allFlags(node = { subs: TREE }, acc = { ...GLOBAL }) {
  Object.assign(acc, node.flags || {});
  for (const sub of Object.values(node.subs || {})) allFlags(sub, acc);
  return acc;
}

/** The words of argv that are not flags or flag values (cobra's stripFlags), for finding the command. */
function commandWords(argv) {
  const specs = allFlags();
  const words = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") return [...words, ...argv.slice(i + 1)];
    if (!a.startsWith("-") || a === "-") words.push(a);
    else if (a.startsWith("--") && !a.includes("=") && specs[a.slice(2)] && specs[a.slice(2)].type !== "bool") i++;
  }
  return words;
}

/** pflag's parse of argv for a command's flags (+ globals). Returns { flags, args }. Throws CobraError. */
function parseFlags(argv, specs) {
  const flags = {};
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (a === "-h" || a === "--help") {
      flags.help = true;
      continue;
    }
    if (!a.startsWith("-") || a === "-") {
      args.push(a);
      continue;
    }
    if (!a.startsWith("--")) throw new CobraError(`unknown shorthand flag: '${a[1]}' in ${a}`);
    const eq = a.indexOf("=");
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    const spec = specs[name];
    if (!spec) throw new CobraError(`unknown flag: --${name}`);
    let value;
    if (spec.type === "bool") {
      if (eq < 0) value = "true";
      else value = a.slice(eq + 1);
      if (!["true", "false", "1", "0", "t", "f", "TRUE", "FALSE", "True", "False"].includes(value))
        throw new CobraError(`invalid argument "${value}" for "--${name}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
      flags[name] = ["true", "1", "t", "TRUE", "True"].includes(value);
      continue;
    }
    if (eq >= 0) value = a.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new CobraError(`flag needs an argument: --${name}`);
    if (spec.type === "int") {
      if (!/^[+-]?\d+$/.test(value))
        throw new CobraError(`invalid argument "${value}" for "--${name}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`);
      flags[name] = Number(value);
    } else if (spec.type === "strings") {
      const parts = value === "" ? [] : value.split(",").map((s) => s.trim());
      flags[name] = [...(flags[name] || []), ...parts];
    } else flags[name] = value;
  }
  return { flags, args };
}

function commandPath(names) {
  return ["nvcf-cli", ...names].join(" ");
}

/** pflag's flag usage lines. */
function flagUsages(specs, withHelp, helpFor) {
  const rows = Object.entries(specs).map(([name, s]) => {
    const type = { string: " string", strings: " strings", int: " int", bool: "" }[s.type];
    const def = s.default !== undefined ? ` (default "${s.default}")` : "";
    return [`      --${name}${type}`, `${s.usage}${def}`];
  });
  if (withHelp) rows.push(["  -h, --help", `help for ${helpFor}`]);
  rows.sort((x, y) => x[0].trim().replace(/^-h, /, "").localeCompare(y[0].trim().replace(/^-h, /, "")));
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([l, r]) => `${l.padEnd(width)}   ${r}`).join("\n");
}

/** cobra's usage text of a command. */
function usageText(names, node) {
  const path = commandPath(names);
  const lines = ["Usage:"];
  if (node.subs) lines.push(`  ${path} [command]`);
  else lines.push(`  ${path.replace(/ [^ ]+$/, "")} ${node.use || names[names.length - 1]} [flags]`);
  if (node.subs) {
    lines.push("", "Available Commands:");
    const subs = Object.entries(node.subs);
    const w = Math.max(...subs.map(([n]) => n.length));
    for (const [n, s] of subs) lines.push(`  ${n.padEnd(w)} ${s.short || ""}`);
  }
  lines.push("", "Flags:", flagUsages(node.flags || {}, true, names[names.length - 1]));
  lines.push("", "Global Flags:", flagUsages(GLOBAL, false));
  if (node.subs) lines.push("", `Use "${path} [command] --help" for more information about a command.`);
  return lines.join("\n") + "\n";
}

/**
 * Runs one of this module's commands. Input: argv (after the program name) and the helpers of tests/bin/nvcf-cli
 * (`loadConfig`, `writeFileAtomic`, `checkHttpUrl`). Sets process.exitCode; never throws.
 */
async function run(argv, deps) {
  const words = commandWords(argv);
  // Walk the tree as cobra's Find does: command words first (flags may stand anywhere).
  const names = [];
  let node = { subs: TREE };
  let rest = words;
  while (node.subs && rest.length) {
    const sub = node.subs[rest[0]];
    if (!sub || (sub.enabled && !sub.enabled())) break;
    names.push(rest[0]);
    node = sub;
    rest = rest.slice(1);
  }
  if (names.length === 0) {
    // Only `admin` without NVCF_CLI_ENABLE_ADMIN gets here: cobra does not know the command.
    process.stderr.write(`Error: unknown command "${words[0]}" for "nvcf-cli"\nRun 'nvcf-cli --help' for usage.\n`);
    process.exitCode = 1;
    return;
  }
  const silence = TREE[names[0]].silenceUsage === true;
  try {
    const specs = { ...(node.flags || {}), ...GLOBAL };
    // Re-parse the original argv with the command's flags (values of string flags are taken from the next token).
    const parsed = parseFlags(argv, specs);
    const args = parsed.args.slice(names.length);
    if (parsed.flags.help || node.subs) {
      // A group (with or without an unknown word after it) is not runnable: cobra prints its help, exit 0.
      process.stdout.write(usageText(names, node));
      return;
    }
    if (node.notEmulated) throw new CobraError(`"${node.notEmulated}" is not emulated by the nvcf-cli stand-in`);
    if (node.args !== undefined && args.length !== node.args)
      throw new CobraError(`accepts ${node.args} arg(s), received ${args.length}`);
    const missing = (node.required || []).filter((f) => parsed.flags[f] === undefined).sort();
    if (missing.length)
      throw new CobraError(`required flag(s) ${missing.map((m) => `"${m}"`).join(", ")} not set`);
    const flags = { ...defaults(node.flags || {}), ...parsed.flags };
    await node.run({ flags, args, changed: new Set(Object.keys(parsed.flags)), deps });
  } catch (e) {
    if (!(e instanceof CobraError) && !(e instanceof api.StoreError) && !(e && e.exitCode)) throw e;
    process.stderr.write(`Error: ${e.message}\n`);
    // cobra prints the command's usage after every error of a command that does not silence it.
    if (!silence) process.stderr.write(`${usageText(names, node)}\n`);
    process.exitCode = 1;
  }
}

function defaults(specs) {
  const out = {};
  for (const [k, s] of Object.entries(specs)) {
    if (s.default !== undefined) out[k] = s.default;
    else out[k] = s.type === "bool" ? false : s.type === "strings" ? [] : s.type === "int" ? 0 : "";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Output (internal/logging/logger.go, cmd/json_output.go)
// ---------------------------------------------------------------------------------------------------------

let jsonMode = false;
const COLOR = { blue: "\x1b[34m", green: "\x1b[32m", yellow: "\x1b[33m", reset: "\x1b[0m" };
const colorOn = () => !jsonMode && !process.env.NO_COLOR && process.env.TERM !== "dumb";
const prefixed = (color, tag, msg) => {
  if (jsonMode) return;
  const p = colorOn() ? `${COLOR[color]}${tag}${COLOR.reset}` : tag;
  process.stdout.write(`${p} ${msg}\n`);
};
const out = {
  info: (m) => prefixed("blue", "[INFO]", m),
  success: (m) => prefixed("green", "[SUCCESS]", m),
  warning: (m) => prefixed("yellow", "[WARNING]", m),
  plain: (m) => {
    if (!jsonMode) process.stdout.write(`${m}\n`);
  },
  /** fmt.Printf / Println: stdout whatever the mode (admin guards them itself). */
  print: (m) => process.stdout.write(m),
  /** OutputJSON: Go's MarshalIndent (two spaces, <, > and & escaped) and a newline. */
  json: (data) =>
    process.stdout.write(
      JSON.stringify(data, null, 2).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`) + "\n",
    ),
};

/** formatTimestamp: RFC 3339 → "2006-01-02 15:04:05 MST" (the stand-in's times are UTC). */
function formatTimestamp(ts) {
  const t = Date.parse(ts);
  if (!Number.isFinite(t) || !/T/.test(String(ts))) return ts;
  return `${new Date(t).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Go's log.Printf line (standard error, date and time prefix); discarded in JSON mode. */
function goLog(msg) {
  if (jsonMode) return;
  const d = new Date();
  const p = (n) => String(n).padStart(2, "0");
  const stamp = `${d.getFullYear()}/${p(d.getMonth() + 1)}/${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  process.stderr.write(`${stamp} ${msg}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Configuration, tokens and the API (internal/client/client.go LoadConfig, NewClient, multi_token_transport.go)
// ---------------------------------------------------------------------------------------------------------

function readState(cfg) {
  try {
    return JSON.parse(fs.readFileSync(cfg.stateFile, "utf8")) || {};
  } catch {
    return {};
  }
}

/** getTokenWithFallback: environment or config first, then the state's value while unexpired. */
function tokens(cfg) {
  const st = readState(cfg);
  const fresh = (v, exp) => (v && (!exp || Date.parse(exp) > Date.now()) ? String(v) : "");
  return {
    token: cfg.get("token") || fresh(st.token, st.tokenExpiresAt),
    apiKey: cfg.get("api_key") || fresh(st.apiKey, st.apiKeyExpiresAt),
    state: st,
  };
}

function apiDir() {
  const dir = process.env.NVCF_CLI_API_DIR;
  if (!dir)
    throw new CobraError(
      "NVCF_CLI_API_DIR is not set: this nvcf-cli is the test stand-in and keeps its emulated NVCF API (accounts, registry credentials) in that directory",
    );
  return dir;
}

/**
 * client.LoadConfig + NewClient. `withoutAuth`: LoadConfigWithoutAuth (admin and init). Throws the CLI's
 * "failed to load configuration: …" when no credential is configured.
 */
function client(deps, flags, { withoutAuth = false } = {}) {
  const cfg = deps.loadConfig(flags.config || undefined);
  const t = tokens(cfg);
  if (!withoutAuth && !t.token && !t.apiKey) {
    const oauth = ["oauth2_client_id", "oauth2_client_secret", "oauth2_token_endpoint"];
    if (oauth.every((k) => cfg.get(k))) throw new CobraError("OAuth2 client credentials are not emulated by the nvcf-cli stand-in");
    const missing = ["NVCF_API_KEY or NVCF_TOKEN", ...oauth.filter((k) => !cfg.get(k)).map((k) => `NVCF_${k.toUpperCase()}`)];
    throw new CobraError(`failed to load configuration: missing authentication credentials, unset: ${missing.join(", ")}`);
  }
  const base = cfg.get("base_http_url") || "https://api.nvcf.nvidia.com";
  deps.checkHttpUrl(base, "base_http_url");
  const dir = apiDir();
  /** One request as the transport sends it: logs which token it uses, as multi_token_transport does. */
  const call = (method, p, fn, { account = false } = {}) => {
    if (t.token) {
      if (account) goLog(`DEBUG: Using ADMIN JWT (account management operation) for ${method} ${p} - expects scope: account_setup`);
      else goLog(`DEBUG: Using FUNCTION TOKEN (function operation) for ${method} ${p} - expects scope: register_function, deploy_function, delete_function, update_function, etc.`);
    }
    return fn();
  };
  return { cfg, tokens: t, dir, call, debug: cfg.get("debug") === "true" || flags.debug };
}

/** The error of a non-2xx answer, as the client formats it: `API error <status>: <body>`. */
function apiError(res) {
  return `API error ${res.status}: ${res.body === undefined ? "" : JSON.stringify(res.body)}`;
}

const by = { by: "nvcf-cli" };

// ---------------------------------------------------------------------------------------------------------
// registry-credential (cmd/registry.go)
// ---------------------------------------------------------------------------------------------------------

function artifactTypes(list) {
  const out = [];
  for (const s of list) {
    const u = String(s).toUpperCase();
    if (!api.ARTIFACT_TYPES.includes(u)) throw new CobraError(`invalid artifact type '${s}'. Valid types: CONTAINER, HELM, MODEL, RESOURCE`);
    out.push(u);
  }
  return out;
}

async function rcList({ flags, deps }) {
  const c = client(deps, flags);
  out.info("Listing registry credentials...");
  const filters = {
    artifactTypes: flags["artifact-type"].map((s) => String(s).toUpperCase()),
    provisionedBy: flags["provisioned-by"].map((s) => String(s).toUpperCase()),
  };
  // The transport logs the path without the query (artifactType=…&provisionedBy=…).
  const res = c.call("GET", "/v2/nvcf/registry-credentials", () => api.listCredentials(c.dir, ADMIN_CLIENT, filters));
  if (res.status !== 200) throw new CobraError(`failed to list registry credentials: ${apiError(res)}`);
  if (jsonMode) return out.json(res.body);
  const creds = res.body.registryCredentials;
  if (creds.length === 0) return out.info("No registry credentials found");
  out.success(`Found ${creds.length} registry credential(s):`);
  out.plain("");
  const row = (...v) => out.plain(`${v[0].padEnd(36)} ${v[1].padEnd(30)} ${v[2].padEnd(25)} ${v[3].padEnd(15)} ${v[4].padEnd(10)}`);
  row("ID", "Registry", "Hostname", "Artifact Types", "Provisioned By");
  row("-".repeat(36), "-".repeat(30), "-".repeat(25), "-".repeat(15), "-".repeat(10));
  for (const cr of creds) {
    const trunc = (s, max, keep) => (s.length > max ? `${s.slice(0, keep)}...` : s);
    row(
      cr.registryCredentialId,
      trunc(cr.registryName, 28, 25),
      trunc(cr.registryHostname, 23, 20),
      trunc(cr.artifactTypes.join(","), 13, 10),
      cr.provisionedBy,
    );
  }
  out.plain("");
  out.plain("Use 'nvcf-cli registry-credential get <credential-id>' for detailed information about a specific credential.");
}

/** validateAndEncodeCredentials. */
function encodeCredentials(secret, username, password) {
  if (secret !== "") {
    if (username !== "" || password !== "") throw new CobraError("cannot use --secret with --username/--password. Choose one authentication method");
    return secret;
  }
  if (username === "" || password === "") throw new CobraError("must provide either --secret OR both --username and --password");
  return Buffer.from(`${username}:${password}`).toString("base64");
}

const formatTypes = (types) => types.join(", ");

/** What add, get and update print after their title: their own fields (as registry.go lists them), then description and tags. */
/**
 * How `registry-credential add|get|update` end (cmd/registry.go): a failed call is `failed to <what>: <API error>`;
 * else the API's answer as it is with --json, or `title` and the credential's `fields(cr)` as label: value lines.
 */
function answerCredential(res, what, title, fields) {
  if (res.status !== 200) throw new CobraError(`failed to ${what}: ${apiError(res)}`);
  if (jsonMode) return out.json(res.body);
  const cr = res.body.registryCredential;
  out.success(title);
  out.plain("");
  for (const [label, value] of fields(cr)) out.plain(`${label}: ${value}`);
  if (cr.description) out.plain(`Description: ${cr.description}`);
  if (cr.tags && cr.tags.length) out.plain(`Tags: ${cr.tags.join(", ")}`);
}

async function rcAdd({ flags, deps }) {
  const c = client(deps, flags);
  const encoded = encodeCredentials(flags.secret, flags.username, flags.password);
  if (c.debug) {
    if (flags.secret !== "") out.plain(`[DEBUG] Using pre-encoded secret (length: ${flags.secret.length} chars)`);
    else out.plain(`[DEBUG] Encoding username:password to base64 (length: ${encoded.length} chars)`);
  }
  const types = artifactTypes(flags["artifact-type"]);
  if (types.length === 0) throw new CobraError("at least one artifact type must be specified");
  const req = {
    registryHostname: flags.hostname,
    secret: { name: "credentials", value: encoded },
    artifactTypes: types,
    ...(flags.tag.length ? { tags: flags.tag } : {}),
    ...(flags.description ? { description: flags.description } : {}),
  };
  out.info(`Adding registry credential for hostname '${flags.hostname}'...`);
  const res = c.call("POST", "/v2/nvcf/registry-credentials", () => api.addCredential(c.dir, ADMIN_CLIENT, req, by));
  answerCredential(res, "add registry credential", "Registry credential added successfully!", (cr) => [
    ["Credential ID", cr.registryCredentialId],
    ["Registry Name", cr.registryName],
    ["Hostname", cr.registryHostname],
    ["Artifact Types", formatTypes(cr.artifactTypes)],
    ["Provisioned By", cr.provisionedBy],
    ["Created At", formatTimestamp(cr.createdAt)],
  ]);
}

async function rcGet({ flags, args, deps }) {
  const c = client(deps, flags);
  const id = args[0];
  out.info(`Getting registry credential '${id}'...`);
  const res = c.call("GET", `/v2/nvcf/registry-credentials/${id}`, () => api.getCredential(c.dir, ADMIN_CLIENT, id));
  answerCredential(res, "get registry credential", "Registry Credential Details:", (cr) => [
    ["ID", cr.registryCredentialId],
    ["Name", cr.registryCredentialName],
    ["Registry Name", cr.registryName],
    ["Hostname", cr.registryHostname],
    ["NCA ID", cr.ncaId],
    ["Artifact Types", formatTypes(cr.artifactTypes)],
    ["Provisioned By", cr.provisionedBy],
    ["Created At", formatTimestamp(cr.createdAt)],
    ["Last Updated At", formatTimestamp(cr.lastUpdatedAt)],
  ]);
}

async function rcUpdate({ flags, args, deps }) {
  const c = client(deps, flags);
  const id = args[0];
  const req = {};
  let any = false;
  if (flags.username !== "" || flags.password !== "") {
    if (flags.username === "" || flags.password === "")
      throw new CobraError("both username and password must be provided together when updating credentials");
    req.secret = { name: "credentials", value: Buffer.from(`${flags.username}:${flags.password}`).toString("base64") };
    any = true;
  }
  if (flags["artifact-type"].length > 0) {
    req.artifactTypeEnums = artifactTypes(flags["artifact-type"]);
    any = true;
  }
  if (!any) throw new CobraError("no updates specified. Use --username/--password or --artifact-type flags");
  out.info(`Updating registry credential '${id}'...`);
  const res = c.call("PATCH", `/v2/nvcf/registry-credentials/${id}`, () => api.updateCredential(c.dir, ADMIN_CLIENT, id, req, by));
  answerCredential(res, "update registry credential", "Registry credential updated successfully!", (cr) => [
    ["Credential ID", cr.registryCredentialId],
    ["Registry Name", cr.registryName],
    ["Hostname", cr.registryHostname],
    ["Artifact Types", formatTypes(cr.artifactTypes)],
    ["Last Updated At", formatTimestamp(cr.lastUpdatedAt)],
  ]);
}

async function rcDelete({ flags, args, deps }) {
  const c = client(deps, flags);
  const id = args[0];
  if (!flags.force) throw new CobraError("the delete confirmation prompt is not emulated by the nvcf-cli stand-in: pass --force");
  out.info(`Deleting registry credential '${id}'...`);
  const res = c.call("DELETE", `/v2/nvcf/registry-credentials/${id}`, () => api.deleteCredential(c.dir, ADMIN_CLIENT, id, by));
  if (res.status !== 204) throw new CobraError(`failed to delete registry credential: ${apiError(res)}`);
  if (jsonMode) return out.json({ status: "deleted", registryCredentialId: id });
  out.success("Registry credential deleted successfully!");
}

// ---------------------------------------------------------------------------------------------------------
// admin accounts (cmd/admin.go)
// ---------------------------------------------------------------------------------------------------------

/** loadAdminClient: LoadConfigWithoutAuth, then the token is required. */
function adminClient(deps, flags) {
  let c;
  try {
    c = client(deps, flags, { withoutAuth: true });
  } catch (e) {
    if (e instanceof CobraError && /^NVCF_CLI_API_DIR/.test(e.message)) throw e;
    throw new CobraError(`failed to load configuration: ${e.message}`);
  }
  if (!c.tokens.token) throw new CobraError(ADMIN_SCOPES_NOTE);
  return c;
}

const adminIds = (ids) => (ids.length <= 1 ? ids[0] || "None" : JSON.stringify(ids));

async function accountsList({ flags, deps }) {
  const c = adminClient(deps, flags);
  if (!jsonMode) out.print("Listing all NVIDIA Cloud Accounts...\n");
  const res = c.call("GET", "/v2/nvcf/accounts", () => api.listAccounts(c.dir), { account: true });
  if (res.status !== 200) throw new CobraError(`failed to list accounts: ${apiError(res)}`);
  const accounts = res.body.cloudAccounts.map(({ lastUpdatedAt: _omit, ...a }) => a);
  if (jsonMode) return out.json({ cloudAccounts: accounts });
  if (accounts.length === 0) return out.print("No accounts found.\n");
  const row = (v) =>
    `${v[0].padEnd(20)} ${v[1].padEnd(30)} ${v[2].padEnd(13)} ${v[3].padEnd(10)} ${v[4].padEnd(15)} ${v[5].padEnd(17)} ${v[6].padEnd(15)}\n`;
  out.print(`\n${row(["Account ID", "Name", "Max Functions", "Max Tasks", "Max Telemetries", "Max Reg Creds", "Admin Clients"])}`);
  out.print(row(["----------", "----", "-------------", "---------", "---------------", "-------------", "-------------"]));
  for (const a of accounts) {
    const clients =
      a.adminClientIds.length === 0 ? "None" : a.adminClientIds.length === 1 ? a.adminClientIds[0] : `${a.adminClientIds[0]} (+${a.adminClientIds.length - 1} more)`;
    out.print(row([a.ncaId, a.name, ...[a.maxFunctionsAllowed, a.maxTasksAllowed, a.maxTelemetriesAllowed, a.maxRegistryCredentialsAllowed].map(String), clients]));
  }
  out.print(`\nTotal: ${accounts.length} accounts\n`);
}

/** buildAccountUpdateRequest: flags given (Changed), not their values, decide what is sent. */
function accountUpdateRequest(flags, changed) {
  const limits = [
    ["max-functions", "maxFunctionsAllowed"],
    ["max-tasks", "maxTasksAllowed"],
    ["max-telemetries", "maxTelemetriesAllowed"],
    ["max-registry-credentials", "maxRegistryCredentialsAllowed"],
  ];
  if (!flags.name && limits.every(([f]) => !changed.has(f)))
    throw new CobraError(
      "at least one update field must be provided (--name, --max-functions, --max-tasks, --max-telemetries, --max-registry-credentials)",
    );
  const req = {};
  if (flags.name) req.name = flags.name;
  for (const [f, field] of limits) {
    if (!changed.has(f)) continue;
    if (flags[f] < 0) throw new CobraError(`--${f} must be greater than or equal to 0`);
    if ((f === "max-telemetries" || f === "max-registry-credentials") && flags[f] > 50) throw new CobraError(`${f} cannot exceed 50`);
    req[field] = flags[f];
  }
  return req;
}

async function accountsUpdate({ flags, changed, deps }) {
  const req = accountUpdateRequest(flags, changed);
  const c = adminClient(deps, flags);
  const ncaId = flags["nca-id"];
  if (!jsonMode) out.print(`Updating account ${ncaId}...\n`);
  const p = `/v2/nvcf/accounts/${encodeURIComponent(ncaId)}`;
  const res = c.call("PATCH", p, () => api.updateAccount(c.dir, ncaId, req, by), { account: true });
  if (res.status !== 200) throw new CobraError(`failed to update account: ${apiError(res)}`);
  const { lastUpdatedAt: _omit, ...account } = res.body.account;
  if (jsonMode) return out.json({ account });
  out.print("Account updated successfully!\n");
  out.print(`Account ID: ${account.ncaId}\n`);
  out.print(`Name: ${account.name}\n`);
  out.print(`Max Functions: ${account.maxFunctionsAllowed}\n`);
  out.print(`Max Tasks: ${account.maxTasksAllowed}\n`);
  out.print(`Max Telemetries: ${account.maxTelemetriesAllowed}\n`);
  out.print(`Max Registry Credentials: ${account.maxRegistryCredentialsAllowed}\n`);
  if (account.adminClientIds.length) out.print(`Admin Client IDs: ${adminIds(account.adminClientIds)}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// api-key generate (cmd/apikey.go)
// ---------------------------------------------------------------------------------------------------------

/** parseExtendedDuration: Go durations plus <n>d and <n>w; milliseconds. */
function parseDuration(s) {
  const units = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
  if (/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s)) {
    let total = 0;
    for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * units[m[2]];
    return total;
  }
  const m = /^(.*)([dw])$/.exec(s);
  if (m && s.length >= 2) {
    if (!/^[+-]?\d+$/.test(m[1])) throw new CobraError(`invalid expiration duration '${s}': invalid number of ${m[2] === "d" ? "days" : "weeks"}: ${m[1]}`);
    return Number(m[1]) * (m[2] === "d" ? 1 : 7) * 86400000;
  }
  throw new CobraError(`invalid expiration duration '${s}': time: invalid duration "${s}"`);
}

async function apiKeyGenerate({ flags, deps }) {
  const c = client(deps, flags);
  const ttl = parseDuration(flags["expires-in"]);
  const expires = new Date(Date.now() + ttl);
  const stamp = `${expires.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  out.info("Generating API key...");
  out.info(`Description: ${flags.description}`);
  out.info(`Expires: ${stamp}`);
  const scopes = flags.scopes;
  if (scopes.length > 0 && flags.for === "") throw new CobraError("--scopes requires --for to specify which service (function or task)");
  const both = flags.for === "" || flags.for === "all";
  const generated = [];
  const mint = () => {
    // The api-keys service authenticates the call with the admin token (JWTToken: config.Token).
    if (!c.tokens.token) throw new CobraError(`failed to generate function API key: API error 401: ${JSON.stringify({ detail: "Unauthorized" })}`);
    return `nvapi-stand-in-${crypto.randomBytes(24).toString("hex")}`;
  };
  const state = c.tokens.state;
  const save = () => deps.writeFileAtomic(c.cfg.stateFile, JSON.stringify(state, null, 2) + "\n", 0o600);
  if (both || flags.for === "function") {
    out.info("Generating function API key...");
    const key = mint();
    state.apiKey = key;
    state.apiKeyExpiresAt = expires.toISOString();
    generated.push({ service: "function", apiKey: key, scopes: flags.for === "function" && scopes.length ? scopes : FUNCTION_SCOPES, validated: false });
    save();
  }
  if (both || flags.for === "task") {
    out.info("Generating task API key...");
    const key = mint();
    state.nvctApiKey = key;
    state.nvctApiKeyExpiresAt = expires.toISOString();
    generated.push({ service: "task", apiKey: key, scopes: flags.for === "task" && scopes.length ? scopes : TASK_SCOPES, validated: false });
    save();
  }
  if (!["", "all", "function", "task"].includes(flags.for)) throw new CobraError(`unknown --for value "${flags.for}": must be function or task`);
  if (flags.validate)
    for (const g of generated) {
      out.info(`Validating ${g.service} API key...`);
      g.validated = true;
      out.success(`${g.service} API key validation passed!`);
    }
  if (jsonMode) return out.json({ description: flags.description, expiresAt: expires.toISOString(), keys: generated });
  out.success("API key(s) generated successfully!");
  for (const g of generated) out.plain(`${g.service} key: ${g.apiKey}`);
  out.plain(`Expires: ${stamp}`);
}

/** Sets the JSON mode from argv before a command runs (root's PersistentPreRun: logging.SetJSONOutput). */
function setJsonMode(argv) {
  jsonMode = argv.some((a) => a === "--json" || a === "--json=true" || a === "--json=1");
}

module.exports = {
  handles,
  run: async (argv, deps) => {
    setJsonMode(argv);
    await run(argv, deps);
  },
  ADMIN_CLIENT,
};
