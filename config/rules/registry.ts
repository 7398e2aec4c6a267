/**
 * Rules of the image registries and their credentials (pure): the image repository, the pull secret and the
 * registry keys (`nvcf:registryKey`, `sidecarRegistryKey`, `functionRegistryKey`) in the format each takes.
 * Sources: docs/upstream-facts.md §4 row 2 (the key is the plain key or password, never an encoded
 * credential: config/credentials.ts `registryKeyProblems`).
 */
import { registryKeyProblems } from "../credentials";
import { type Problem, describe } from "../problems";
import type { ControlPlaneConfig } from "../schema";
import { K, PLACEHOLDER_REPO, problemList } from "./context";

/**
 * A secret registry key's format (docs/upstream-facts.md §4 row 2). Input: the key (unset: no problem) and its
 * config path. Output: one problem per reason config/credentials.ts `registryKeyProblems` gives; reasons never
 * quote the key.
 */
export function registryKeyRules(key: string | undefined, path: string): Problem[] {
  if (key === undefined) return [];
  return registryKeyProblems(key).map((reason) => ({
    key: K(path),
    expected: "the plain registry key or password",
    found: `[secret] (${reason})`,
    fix: `pulumi config set --secret nvcf:${path} <key>`,
  }));
}

/** A pull secret to create (`pullSecret.create` with a name) needs `nvcf:registryKey`. */
function pullSecretRules(cfg: {
  pullSecret: ControlPlaneConfig["pullSecret"];
  registryKey?: string;
}): Problem[] {
  if (cfg.pullSecret.name !== null && cfg.pullSecret.create && cfg.registryKey === undefined) {
    return [
      {
        key: K("registryKey"),
        expected: "the image registry key (secret) because pullSecret.create is true",
        found: "nothing",
        fix: "pulumi config set --secret nvcf:registryKey <key>, or pulumi config set --path nvcf:pullSecret.create false if the secret exists, or --path nvcf:pullSecret.name null if nodes authenticate to the registry",
      },
    ];
  }
  return [];
}

/**
 * Rules of the control plane's images and registry keys. Input: the validated config. Output, in this order:
 * the placeholder `images.repository`, a pull secret to create without `registryKey`, each key's format
 * (`registryKey`, `sidecarRegistryKey`, `functionRegistryKey`), no key for `accounts.registryCredentials`, and
 * no key for the sidecar image-pull credential nvcf-api hands to workers.
 */
export function registryRules(cfg: ControlPlaneConfig): Problem[] {
  const { out, add } = problemList();
  if (cfg.images.repository === PLACEHOLDER_REPO)
    add(
      "images.repository",
      "your image repository",
      describe(cfg.images.repository),
      "pulumi config set --path nvcf:images.repository <org>/<team>",
    );
  out.push(...pullSecretRules(cfg));
  out.push(...registryKeyRules(cfg.registryKey, "registryKey"));
  out.push(...registryKeyRules(cfg.sidecarRegistryKey, "sidecarRegistryKey"));
  out.push(...registryKeyRules(cfg.functionRegistryKey, "functionRegistryKey"));
  if (
    cfg.accounts.registryCredentials.length > 0 &&
    (cfg.functionRegistryKey ?? cfg.registryKey) === undefined
  )
    add(
      "functionRegistryKey",
      "the key of the function-image registry (secret) for accounts.registryCredentials",
      "nothing",
      "pulumi config set --secret nvcf:functionRegistryKey <key> (or nvcf:registryKey)",
    );
  if (cfg.sidecarRegistryKey === undefined && cfg.registryKey === undefined)
    add(
      "registryKey",
      "a registry key (secret) for the sidecar image-pull credential that nvcf-api hands to workers",
      "nothing",
      "pulumi config set --secret nvcf:registryKey <key> (or nvcf:sidecarRegistryKey)",
    );
  return out;
}
