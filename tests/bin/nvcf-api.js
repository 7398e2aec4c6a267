/**
 * STAND-IN for the state behind the NVCF API's account and registry-credential endpoints, for tests only: what the
 * real API (nvcf-core) keeps in Cassandra and the encrypted secret store, kept as one JSON file,
 * `<dir>/nvcf-api.json`, that tests/bin/nvcf-cli (the endpoints nvcf-cli calls) and tests/bin/account-bootstrap
 * (the account-bootstrap hook's POST) share, and that the end-to-end tests read.
 *
 * Each operation answers as its HTTP endpoint does: `{ status, body }`, the body of an error being
 * `{ "detail": <message> }` with the message text of nvcf-core (NVIDIA/nvcf
 * src/control-plane-services/cloud-functions/nvcf-core: service/account/AccountService.java,
 * service/registry/RegistryCredentialService.java, RegistryCredentialLookupService.java,
 * rest/account/dto/{CreateAccountRequest,AccountUpdateRequest}.java, rest/registry/dto/AddRegistryCredentialRequest.java,
 * util/NvcfConstants.java):
 *   POST   /v2/nvcf/accounts/{ncaId}                     createAccount (the bootstrap hook)
 *   GET    /v2/nvcf/accounts                             listAccounts
 *   PATCH  /v2/nvcf/accounts/{ncaId}                     updateAccount
 *   GET    /v2/nvcf/registry-credentials                 listCredentials
 *   POST   /v2/nvcf/registry-credentials                 addCredential
 *   GET    /v2/nvcf/registry-credentials/{id}            getCredential
 *   PATCH  /v2/nvcf/registry-credentials/{id}            updateCredential
 *   DELETE /v2/nvcf/registry-credentials/{id}            deleteCredential
 * The registry-credential endpoints act on the account of the caller's client id (the admin token's subject:
 * OpenBao's admin client `ncp`, migrations/openbao 10_setup_admin-issuer.sh); an unknown client is 404.
 *
 * Emulated: account creation with its registry credentials (provisioned by SYSTEM, never deletable through the
 * API), 409 for an existing client or account, the limits' ranges, the secret's format (base64 of exactly
 * `user:password`, `$oauthtoken` for NGC hosts), hostname and tag syntax, the account's credential limit,
 * unique hostname + credential name, additive artifact types, a PATCH renaming the credential to its secret's
 * name. Not emulated: token scopes, recognized registries (every hostname is recognized; its registry name is
 * the hostname), the artifact types the API requires at account provisioning (a setting of the API), a
 * registry login with the credential, credentials in use by functions. The store keeps a SHA-256 of each
 * secret value (the base64 text), never the secret.
 *
 * The store belongs to one installation: `createAccount` is given the identity of the database it writes to
 * (account-bootstrap passes the UID of the api release's namespace, which a fresh install after a teardown
 * does not share) and starts from an empty store when it differs from the store's. Writes go through a lock
 * (`<file>.lock`, a directory) and a rename, so concurrent CLI runs neither lose updates nor read a torn file.
 * `events` records every call that changed or tried to change something (operation, status, caller), so a
 * test can see what reached the API.
 */
"use strict";

const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

const STORE = "nvcf-api.json";
const ARTIFACT_TYPES = ["CONTAINER", "HELM", "MODEL", "RESOURCE"];
const HOSTNAME_REGEX = /(?=^.{4,253}$)(^((?!-)[a-zA-Z0-9-]{1,63}(?<!-)\.)+[a-zA-Z0-9]{2,63}$)/;
const TAG_REGEX = /^[a-zA-Z0-9\-_:=]+$/;
const ACCOUNT_NAME_REGEX = /^[a-z0-9A-Z][a-z0-9A-Z\-_]*$/;
/** nvcf.account.* defaults (configuration/account/AccountLimitsProperties.java) and NvcfConstants. */
const LIMITS = {
  createMaxFunctions: 50,
  createMaxTasks: 50,
  createMaxTelemetries: 25,
  createMaxRegistryCredentials: 25,
  updateMaxTelemetries: 50,
  updateMaxRegistryCredentials: 50,
};

const MESG = {
  invalidSecret: "Invalid request: Registry credential secret must be base64 encoded username:password format",
  missingOauthtoken: "Invalid request: Missing $oauthtoken username in NGC registry credential",
  missingBoth: "Invalid request: Either secret or artifact types must be specified",
  systemProvisioned: "Invalid request: Cannot delete system provisioned registry credential",
  updateAccountEmpty: "Invalid request: Either name, credential fields or limits should be specified",
  ncaIdNonAlphanumeric: "Invalid request: ncaId should start with alphanumeric character",
};

class StoreError extends Error {}

const ok = (body) => ({ status: 200, body });
const fail = (status, detail) => ({ status, body: { detail } });
const now = () => new Date().toISOString();

function storeFile(dir) {
  if (!dir) throw new StoreError("no directory for the stand-in NVCF API state");
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, STORE);
}

function emptyStore(database) {
  return { database: database || "", accounts: [], clients: {}, events: [] };
}

/** The store as a plain object (an empty one when the file does not exist). */
function read(dir) {
  const file = storeFile(dir);
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if (e.code === "ENOENT") return emptyStore();
    throw new StoreError(`cannot read ${file}: ${e.code || e.message}`);
  }
  try {
    const doc = JSON.parse(text);
    if (doc && Array.isArray(doc.accounts) && doc.clients && Array.isArray(doc.events)) return doc;
  } catch {
    /* reported below */
  }
  throw new StoreError(`${file} is not a stand-in NVCF API store`);
}

function pause(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `fn(store)` under the store's lock and writes the store back when `fn` returns `{ write: true }`.
 * A lock older than 10 s was left by a killed process and is broken. Returns `fn`'s `result`.
 */
function transact(dir, fn) {
  const file = storeFile(dir);
  const lock = `${file}.lock`;
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw new StoreError(`cannot lock ${file}: ${e.code || e.message}`);
      let age = 0;
      try {
        age = Date.now() - fs.statSync(lock).mtimeMs;
      } catch {
        continue;
      }
      if (age > 10000) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new StoreError(`${file} stays locked (${lock})`);
      else pause(5 + Math.floor(Math.random() * 20));
    }
  }
  try {
    const store = read(dir);
    const out = fn(store);
    if (out.write) {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(store, null, 2) + "\n", { mode: 0o644 });
      fs.renameSync(tmp, file);
    }
    return out.result;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

const sha256 = (s) => crypto.createHash("sha256").update(String(s)).digest("hex");

/** RegistryCredentialService.validateSecretFormat; the error message, or "" when valid. */
function secretProblem(hostname, secret) {
  const value = secret && secret.value;
  if (typeof value !== "string") return MESG.invalidSecret;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) return MESG.invalidSecret;
  const raw = Buffer.from(value, "base64").toString("utf8");
  // Java's String.split(":") drops trailing empty strings: "user:" is one part, "a:b:c" three.
  const parts = raw.split(":");
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length !== 2 || !parts[0].trim() || !parts[1].trim()) return MESG.invalidSecret;
  if ((hostname.endsWith("nvcr.io") || hostname.endsWith("ngc.nvidia.com")) && !raw.includes("$oauthtoken"))
    return MESG.missingOauthtoken;
  return "";
}

/** Bean validation of AddRegistryCredentialRequest / RegistryCredentialDto; the first message, or "". */
function credentialRequestProblem(req) {
  const host = req && req.registryHostname;
  if (typeof host !== "string" || !host.trim()) return "registryHostname: must not be blank";
  if (host.length > 255) return "Invalid hostname: Must be 1 - 255 chars long";
  if (!HOSTNAME_REGEX.test(host)) return `Invalid hostname: Must conform to regex ${HOSTNAME_REGEX.source}`;
  if (!req.secret || typeof req.secret !== "object") return "secret: must not be null";
  const types = req.artifactTypes;
  if (!Array.isArray(types) || types.length === 0) return "artifactTypes: must not be empty";
  for (const t of types) if (!ARTIFACT_TYPES.includes(t)) return `artifactTypes: unknown value '${t}'`;
  const tags = req.tags || [];
  if (tags.length > 64) return "Maximum number of tags of 64 is exceeded.";
  for (const t of tags) {
    if (String(t).length > 128) return "Maximum tag length of 128 is exceeded.";
    if (!TAG_REGEX.test(String(t))) return `tags: must match "${TAG_REGEX.source.slice(1, -1)}"`;
  }
  if (req.description && String(req.description).length > 256)
    return "Maximum description length of 256 is exceeded.";
  return "";
}

const unique = (list) => [...new Set(list)];

/** A credential as RegistryCredentialDetailsDto (registry/dto): no secret, tags and description only when set. */
function details(c) {
  const d = {
    registryCredentialId: c.registryCredentialId,
    ncaId: c.ncaId,
    registryCredentialName: c.registryCredentialName,
    registryName: c.registryName,
    registryHostname: c.registryHostname,
    artifactTypes: [...c.artifactTypes],
  };
  if (c.tags && c.tags.length) d.tags = [...c.tags];
  if (c.description) d.description = c.description;
  d.provisionedBy = c.provisionedBy;
  d.lastUpdatedAt = c.lastUpdatedAt;
  d.createdAt = c.createdAt;
  return d;
}

/** An account as AccountDto. */
function accountDto(a) {
  return {
    ncaId: a.ncaId,
    adminClientIds: [...a.adminClientIds],
    name: a.name,
    maxFunctionsAllowed: a.maxFunctionsAllowed,
    maxTasksAllowed: a.maxTasksAllowed,
    maxTelemetriesAllowed: a.maxTelemetriesAllowed,
    maxRegistryCredentialsAllowed: a.maxRegistryCredentialsAllowed,
    lastUpdatedAt: a.lastUpdatedAt,
  };
}

function event(store, by, op, res, extra) {
  store.events.push({ at: now(), by, op, status: res.status, ...extra, ...(res.status >= 400 ? { detail: res.body.detail } : {}) });
}

/** The new credential of an add request, or an error result (validateAddRegistryCredentialRequest). */
function newCredential(store, account, req, provisionedBy) {
  const bad = credentialRequestProblem(req);
  if (bad) return { error: fail(400, bad) };
  const secretBad = secretProblem(req.registryHostname, req.secret);
  if (secretBad) return { error: fail(400, secretBad) };
  const count = account.registryCredentials.length;
  if (account.maxRegistryCredentialsAllowed != null && count >= account.maxRegistryCredentialsAllowed)
    return {
      error: fail(
        400,
        `Account '${account.ncaId}': Cannot add registry credential - maximum allowed registry credentials (${account.maxRegistryCredentialsAllowed}) exceeded. Current count: ${count}`,
      ),
    };
  const name = String(req.secret.name || "");
  if (account.registryCredentials.some((c) => c.registryHostname === req.registryHostname && c.registryCredentialName === name))
    return {
      error: fail(
        409,
        `Account '${account.ncaId}': Registry credential '${name}' for hostname '${req.registryHostname}' already exists in the account - Registry credentials must have unique hostname and credential name within an account`,
      ),
    };
  const at = now();
  return {
    credential: {
      registryCredentialId: crypto.randomUUID(),
      ncaId: account.ncaId,
      registryCredentialName: name,
      registryName: req.registryHostname,
      registryHostname: req.registryHostname,
      artifactTypes: unique(req.artifactTypes),
      tags: unique(req.tags || []),
      description: req.description || "",
      provisionedBy,
      createdAt: at,
      lastUpdatedAt: at,
      secretSha256: sha256(req.secret.value),
    },
  };
}

/**
 * POST /v2/nvcf/accounts/{ncaId} (AccountService.createCloudAccount). `opts.database`: the installation the call
 * writes to (a different one than the store's starts an empty store); `opts.by`: who called, for `events`.
 */
function createAccount(dir, ncaId, req, opts = {}) {
  return transact(dir, (store) => {
    let reset = false;
    if (opts.database && store.database !== opts.database) {
      Object.assign(store, emptyStore(opts.database));
      reset = true;
    }
    const res = createAccountIn(store, ncaId, req || {});
    event(store, opts.by || "api", "create-account", res, { ncaId });
    return { write: true, result: { ...res, reset } };
  });
}

function createAccountIn(store, ncaId, req) {
  const range = (field, v, max) =>
    v == null ? "" : !Number.isInteger(v) || v < 1 ? `${field}: must be greater than or equal to 1` : max && v > max ? `${field}: must be less than or equal to ${max}` : "";
  const limitBad =
    range("maxTelemetriesAllowed", req.maxTelemetriesAllowed, LIMITS.createMaxTelemetries) ||
    range("maxRegistryCredentialsAllowed", req.maxRegistryCredentialsAllowed, LIMITS.createMaxRegistryCredentials) ||
    range("maxFunctionsAllowed", req.maxFunctionsAllowed) ||
    range("maxTasksAllowed", req.maxTasksAllowed);
  if (limitBad) return fail(400, limitBad);
  const name = req.name;
  if (typeof name !== "string" || !name.trim()) return fail(400, "name: must not be blank");
  if (!ACCOUNT_NAME_REGEX.test(name)) return fail(400, `Invalid account name: Must conform to regex ${ACCOUNT_NAME_REGEX.source}`);
  if (name.length < 4 || name.length > 36) return fail(400, "Invalid account name: Must be 4 - 36 characters long");
  if (req.maxFunctionsAllowed != null && req.maxFunctionsAllowed > LIMITS.createMaxFunctions)
    return fail(400, `Invalid request: 'maxFunctionsAllowed' must not exceed ${LIMITS.createMaxFunctions}`);
  if (req.maxTasksAllowed != null && req.maxTasksAllowed > LIMITS.createMaxTasks)
    return fail(400, `Invalid request: 'maxTasksAllowed' must not exceed ${LIMITS.createMaxTasks}`);
  if (!/^[a-z0-9A-Z]/.test(ncaId)) return fail(400, MESG.ncaIdNonAlphanumeric);
  const creds = req.registryCredentials || [];
  for (const c of creds) {
    if (c && c.secret && typeof c.secret.value === "object" && c.secret.value !== null)
      return fail(400, "Invalid request: Registry secret value must be string");
    const bad = credentialRequestProblem(c) || secretProblem(c.registryHostname, c.secret);
    if (bad) return fail(400, bad);
  }
  const client = req.adminClientId;
  if (client && store.clients[client]) return fail(409, `Client with id '${client}' already exists`);
  if (store.accounts.some((a) => a.ncaId === ncaId)) return fail(409, `Account with ncaId '${ncaId}' already exists`);
  const at = now();
  const account = {
    ncaId,
    name,
    adminClientIds: client ? [client] : [],
    maxFunctionsAllowed: req.maxFunctionsAllowed ?? LIMITS.createMaxFunctions,
    maxTasksAllowed: req.maxTasksAllowed ?? LIMITS.createMaxTasks,
    maxTelemetriesAllowed: req.maxTelemetriesAllowed ?? LIMITS.createMaxTelemetries,
    maxRegistryCredentialsAllowed: req.maxRegistryCredentialsAllowed ?? LIMITS.createMaxRegistryCredentials,
    createdAt: at,
    lastUpdatedAt: at,
    registryCredentials: [],
  };
  // RegistryCredentialService.addRegistryCredentials: all or nothing; the error is the failing credential's.
  for (const c of creds) {
    const made = newCredential(store, account, c, "SYSTEM");
    if (made.error) return made.error;
    account.registryCredentials.push(made.credential);
  }
  store.accounts.push(account);
  if (client) store.clients[client] = ncaId;
  return ok({ account: accountDto(account) });
}

/** GET /v2/nvcf/accounts. */
function listAccounts(dir) {
  const store = read(dir);
  return ok({ cloudAccounts: store.accounts.map(accountDto) });
}

/** PATCH /v2/nvcf/accounts/{ncaId} (AccountUpdateRequest, AccountService.updateAccount). */
function updateAccount(dir, ncaId, req, opts = {}) {
  return transact(dir, (store) => {
    const res = updateAccountIn(store, ncaId, req || {});
    event(store, opts.by || "api", "update-account", res, { ncaId, request: req });
    return { write: true, result: res };
  });
}

function updateAccountIn(store, ncaId, req) {
  const fields = ["maxFunctionsAllowed", "maxTasksAllowed", "maxTelemetriesAllowed", "maxRegistryCredentialsAllowed"];
  if (!(req.name && String(req.name).trim()) && fields.every((f) => req[f] == null)) return fail(400, MESG.updateAccountEmpty);
  for (const f of fields)
    if (req[f] != null && (!Number.isInteger(req[f]) || req[f] < 0)) return fail(400, `${f}: must be greater than or equal to 0`);
  if (req.maxTelemetriesAllowed > LIMITS.updateMaxTelemetries)
    return fail(400, `Max telemetries allowed cannot exceed ${LIMITS.updateMaxTelemetries}`);
  if (req.maxRegistryCredentialsAllowed > LIMITS.updateMaxRegistryCredentials)
    return fail(400, `Max registry credentials allowed cannot exceed ${LIMITS.updateMaxRegistryCredentials}`);
  if (req.name) {
    if (!ACCOUNT_NAME_REGEX.test(req.name)) return fail(400, `Invalid account name: Must conform to regex ${ACCOUNT_NAME_REGEX.source}`);
    if (req.name.length < 4 || req.name.length > 36) return fail(400, "Invalid account name: Must be 4 - 36 characters long");
  }
  const account = store.accounts.find((a) => a.ncaId === ncaId);
  if (!account) return fail(404, `Account with ncaId '${ncaId}' not found`);
  if (req.name) account.name = req.name;
  for (const f of fields) if (req[f] != null) account[f] = req[f];
  account.lastUpdatedAt = now();
  return ok({ account: accountDto(account) });
}

/** The account of a client id (AccountService.getNcaId for a JWT), or an error result. */
function accountOf(store, clientId) {
  const ncaId = store.clients[clientId];
  const account = ncaId && store.accounts.find((a) => a.ncaId === ncaId);
  return account ? { account } : { error: fail(404, `Unknown client_id '${clientId}' when finding account id`) };
}

const UUID_REGEX = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The account's credential `id`, or an error result (lookupRegistryCredentialByAccountAndIdOrThrow). */
function credentialOf(account, id) {
  if (!UUID_REGEX.test(String(id))) return { error: fail(400, `registryCredentialId: '${id}' is not a valid UUID`) };
  const c = account.registryCredentials.find((x) => x.registryCredentialId === String(id).toLowerCase());
  return c ? { credential: c } : { error: fail(404, `Registry Credential '${id}': Not found in account '${account.ncaId}'`) };
}

/** GET /v2/nvcf/registry-credentials (filters: artifact types, provisioned by; both default to all). */
function listCredentials(dir, clientId, filters = {}) {
  const store = read(dir);
  const found = accountOf(store, clientId);
  if (found.error) return found.error;
  const types = filters.artifactTypes && filters.artifactTypes.length ? filters.artifactTypes : ARTIFACT_TYPES;
  const by = filters.provisionedBy && filters.provisionedBy.length ? filters.provisionedBy : ["SYSTEM", "USER"];
  const list = found.account.registryCredentials.filter(
    (c) => by.includes(c.provisionedBy) && c.artifactTypes.some((t) => types.includes(t)),
  );
  return ok({ registryCredentials: list.map(details) });
}

/** GET /v2/nvcf/registry-credentials/{id}. */
function getCredential(dir, clientId, id) {
  const store = read(dir);
  const found = accountOf(store, clientId);
  if (found.error) return found.error;
  const c = credentialOf(found.account, id);
  return c.error || ok({ registryCredential: details(c.credential) });
}

/** POST /v2/nvcf/registry-credentials (provisioned by USER). */
function addCredential(dir, clientId, req, opts = {}) {
  return transact(dir, (store) => {
    const found = accountOf(store, clientId);
    let res;
    let id;
    if (found.error) res = found.error;
    else {
      const made = newCredential(store, found.account, req || {}, "USER");
      if (made.error) res = made.error;
      else {
        found.account.registryCredentials.push(made.credential);
        id = made.credential.registryCredentialId;
        res = ok({ registryCredential: details(made.credential) });
      }
    }
    event(store, opts.by || "api", "add-credential", res, {
      registryHostname: req && req.registryHostname,
      ...(id ? { registryCredentialId: id, secretSha256: sha256(req.secret.value) } : {}),
    });
    return { write: true, result: res };
  });
}

/** PATCH /v2/nvcf/registry-credentials/{id} (UpdateRegistryCredentialRequest: secret and/or types to add). */
function updateCredential(dir, clientId, id, req, opts = {}) {
  return transact(dir, (store) => {
    const res = updateCredentialIn(store, clientId, id, req || {});
    event(store, opts.by || "api", "update-credential", res, {
      registryCredentialId: String(id),
      ...(res.status === 200 && req.secret ? { secretSha256: sha256(req.secret.value) } : {}),
      ...(req.artifactTypeEnums ? { addedArtifactTypes: req.artifactTypeEnums } : {}),
    });
    return { write: true, result: res };
  });
}

function updateCredentialIn(store, clientId, id, req) {
  const found = accountOf(store, clientId);
  if (found.error) return found.error;
  const c = credentialOf(found.account, id);
  if (c.error) return c.error;
  const cred = c.credential;
  const add = req.artifactTypeEnums || [];
  if (add.length === 0 && !req.secret) return fail(400, MESG.missingBoth);
  for (const t of add) if (!ARTIFACT_TYPES.includes(t)) return fail(400, `artifactTypeEnums: unknown value '${t}'`);
  if (req.secret) {
    const bad = secretProblem(cred.registryHostname, req.secret);
    if (bad) return fail(400, bad);
    const name = String(req.secret.name || "");
    const clash = found.account.registryCredentials.find(
      (o) => o !== cred && name && o.registryHostname === cred.registryHostname && o.registryCredentialName === name,
    );
    if (clash)
      return fail(
        409,
        `Account '${found.account.ncaId}': Registry credential '${cred.registryCredentialId}' with name '${name}' for hostname '${cred.registryHostname}' exists - Registry credentials must have unique hostname and credential name within an account `,
      );
    cred.registryCredentialName = name;
    cred.secretSha256 = sha256(req.secret.value);
  }
  cred.artifactTypes = unique([...cred.artifactTypes, ...add]);
  cred.lastUpdatedAt = now();
  return ok({ registryCredential: details(cred) });
}

/** DELETE /v2/nvcf/registry-credentials/{id}: 204; SYSTEM-provisioned credentials are refused. */
function deleteCredential(dir, clientId, id, opts = {}) {
  return transact(dir, (store) => {
    let res;
    const found = accountOf(store, clientId);
    const c = found.error ? found : credentialOf(found.account, id);
    if (c.error) res = c.error;
    else if (c.credential.provisionedBy === "SYSTEM") res = fail(400, MESG.systemProvisioned);
    else {
      found.account.registryCredentials = found.account.registryCredentials.filter((x) => x !== c.credential);
      res = { status: 204, body: undefined };
    }
    event(store, opts.by || "api", "delete-credential", res, { registryCredentialId: String(id) });
    return { write: true, result: res };
  });
}

const BOOTSTRAP_ENV = [
  "API_SERVICE_NAME",
  "API_NAMESPACE",
  "NVCF_ACCOUNT_NAME",
  "NVCF_ADMIN_CLIENT_ID",
  "NVCF_REGISTRY_CREDENTIALS_JSON",
  "NVCF_MAX_FUNCTIONS_ALLOWED",
  "NVCF_MAX_TASKS_ALLOWED",
  "NVCF_MAX_TELEMETRIES_ALLOWED",
  "NVCF_MAX_REGISTRY_CREDENTIALS_ALLOWED",
];

/**
 * The steps of nvcf-api's account-bootstrap.sh (deploy/helm/cloud-functions/nvcf-api/scripts) for one run of the hook
 * container, against this store: the required variables, NVCF_REGISTRY_CREDENTIALS_JSON a JSON array, credentials
 * with a MODEL or RESOURCE artifact type dropped, the limits as JSON numbers (jq --argjson), the POST of the account.
 * Input: the store's directory, the container's environment, `{ database, log(level, message) }`. Output:
 * `{ code, message }` with the script's exit code: 0 for 2xx and for 409, 4 for 401/403, 5 for another status,
 * 1 for a configuration error, 2 for a value jq cannot read.
 */
function accountBootstrap(dir, env, { database, log = () => {} } = {}) {
  const missing = BOOTSTRAP_ENV.filter((k) => !env[k]);
  if (missing.length) return { code: 1, message: `Missing required environment variables: ${missing.join(" ")}` };
  let creds;
  try {
    creds = JSON.parse(env.NVCF_REGISTRY_CREDENTIALS_JSON);
  } catch {
    creds = undefined;
  }
  if (!Array.isArray(creds)) return { code: 1, message: "NVCF_REGISTRY_CREDENTIALS_JSON must be a JSON array" };
  const kept = creds.filter((c) => {
    const types = (c && Array.isArray(c.artifactTypes) ? c.artifactTypes : []).map((t) => String(t).toUpperCase());
    return !types.includes("MODEL") && !types.includes("RESOURCE");
  });
  if (kept.length < creds.length)
    log("WARNING", `Dropped ${creds.length - kept.length} credential(s) with MODEL/RESOURCE types (not supported in self-hosted)`);
  const limits = {};
  for (const [field, name] of [
    ["maxFunctionsAllowed", "NVCF_MAX_FUNCTIONS_ALLOWED"],
    ["maxTasksAllowed", "NVCF_MAX_TASKS_ALLOWED"],
    ["maxTelemetriesAllowed", "NVCF_MAX_TELEMETRIES_ALLOWED"],
    ["maxRegistryCredentialsAllowed", "NVCF_MAX_REGISTRY_CREDENTIALS_ALLOWED"],
  ]) {
    try {
      limits[field] = JSON.parse(env[name]);
    } catch {
      return { code: 2, message: `jq: invalid JSON text passed to --argjson (${name})` };
    }
  }
  const payload = {
    name: env.NVCF_ACCOUNT_NAME,
    adminClientId: env.NVCF_ADMIN_CLIENT_ID,
    ...limits,
    ...(kept.length ? { registryCredentials: kept } : {}),
  };
  log("INFO", `Account endpoint: http://${env.API_SERVICE_NAME}.${env.API_NAMESPACE}.svc.cluster.local:8080/v2/nvcf/accounts/${env.NVCF_ACCOUNT_NAME}`);
  const res = createAccount(dir, env.NVCF_ACCOUNT_NAME, payload, { database, by: "account-bootstrap" });
  log("INFO", `HTTP Status: ${res.status}`);
  if (res.status >= 200 && res.status < 300)
    return { code: 0, message: `NVCF account created successfully! Account '${env.NVCF_ACCOUNT_NAME}' is ready` };
  if (res.status === 409) return { code: 0, message: "Account already exists (HTTP 409); treating as success since the account is available" };
  if (res.status === 401 || res.status === 403) return { code: 4, message: `Authentication failed (HTTP ${res.status})` };
  return { code: 5, message: `Account creation failed (HTTP ${res.status}): ${res.body && res.body.detail}` };
}

module.exports = {
  accountBootstrap,
  StoreError,
  ARTIFACT_TYPES,
  read,
  sha256,
  createAccount,
  listAccounts,
  updateAccount,
  listCredentials,
  getCredential,
  addCredential,
  updateCredential,
  deleteCredential,
};
