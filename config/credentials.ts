/**
 * Credential encodings (pure). Facts: NVIDIA skill `ai-tooling/user/skills/nvcf-self-managed-installation/SKILL.md` "Image Pull Secrets", docs/upstream-facts.md §1.10 and §4 rows 1-3.
 */

/** The NGC registry user: a literal, not a shell variable. */
export const NGC_USER = "$oauthtoken";

/** The Cassandra chart's built-in service-role password that must never stay in use (docs/upstream-facts.md §4 row 1). */
export const CASSANDRA_DEFAULT_PASSWORD = "ch@ng3m3";

/** The placeholder shipped by the secrets template (docs/upstream-facts.md §1.10). */
export const CREDENTIAL_PLACEHOLDER = "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL";

/**
 * The raw docker `auth` string that nvcf-api and the sidecars consume: base64("user:key"), no newline.
 * Input: registry user and key (plain strings). Output: base64 text. Not a dockerconfigjson (docs/upstream-facts.md §4 row 2).
 */
export function dockerAuth(username: string, key: string): string {
  return Buffer.from(`${username}:${key}`, "utf8").toString("base64");
}

/**
 * A `kubernetes.io/dockerconfigjson` document for one registry. Input: server host, user, key.
 * Output: the JSON text to store under `.dockerconfigjson`.
 */
export function dockerConfigJson(server: string, username: string, key: string): string {
  return JSON.stringify({
    auths: { [server]: { username, password: key, auth: dockerAuth(username, key) } },
  });
}

/**
 * Problems with a registry key as typed by the user (an API key or password, never an encoded credential).
 * Returns human-readable reasons (empty when fine). The key itself never appears in a reason.
 */
export function registryKeyProblems(key: string): string[] {
  const reasons: string[] = [];
  if (key.trim() === "") reasons.push("the key is empty");
  if (key.includes(CREDENTIAL_PLACEHOLDER))
    reasons.push(`the key is the template placeholder ${CREDENTIAL_PLACEHOLDER}`);
  if (/[\r\n]/.test(key)) reasons.push("the key contains a line break");
  if (key.trim().startsWith("{")) reasons.push("the key looks like a dockerconfigjson document, not a key");
  if (looksLikeEncodedAuth(key)) {
    reasons.push(
      "the key looks like an already-encoded base64(user:key) credential; give the plain key, the program encodes it",
    );
  }
  return reasons;
}

/** True when `s` is base64 text that decodes to printable `user:password`. */
export function looksLikeEncodedAuth(s: string): boolean {
  if (!/^[A-Za-z0-9+/]{8,}={0,2}$/.test(s) || s.length % 4 !== 0) return false;
  const decoded = Buffer.from(s, "base64").toString("utf8");
  return /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded) && !decoded.includes("\ufffd");
}
