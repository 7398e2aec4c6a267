/**
 * Running the config rules through their public entry point, `validateConfig` (config/load.ts), for the
 * per-area rule tests of tests/unit/config/rules/: the problems a raw config (tests/unit/fixtures/configs.ts)
 * gets, and a table runner for "this override is refused under this key, that one passes".
 */
import { validateConfig } from "../../../config/load";
import { ConfigError, type Problem } from "../../../config/problems";
import { SECRET_KEYS } from "../../../config/schema";

/** The keys set with `--secret` in a well-made stack file. */
export const SECRET: ReadonlySet<string> = new Set(SECRET_KEYS);
/** As SECRET, with `nvcf:releaseValues` set with --secret too (credentials inside it are then allowed). */
export const SECRET_RV: ReadonlySet<string> = new Set([...SECRET_KEYS, "releaseValues"]);

/** A value as a raw config string (what `pulumi config set --path` stores for an object). */
export const j = (v: unknown) => JSON.stringify(v);

/** The ConfigError a raw config throws (fails the test when it does not throw one). */
export function configError(raw: Record<string, string>, stack = "prod", secrets = SECRET_RV): ConfigError {
  try {
    validateConfig(raw, secrets, stack);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

/** The problems of a raw config, in the order reported (empty when it validates). */
export function problemsOf(raw: Record<string, string>, stack = "prod", secrets = SECRET_RV): Problem[] {
  try {
    validateConfig(raw, secrets, stack);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return [...e.problems];
  }
}

/** The problems of a raw config as `{ key, text: "expected | found | fix" }`, in the order reported. */
export const problemTexts = (raw: Record<string, string>, stack = "prod", secrets = SECRET_RV) =>
  problemsOf(raw, stack, secrets).map((p) => ({ key: p.key, text: `${p.expected} | ${p.found} | ${p.fix}` }));

/** The problem keys of a raw config, in the order reported (empty when it validates). */
export const keys = (raw: Record<string, string>, stack = "prod", secrets = SECRET_RV): string[] =>
  problemsOf(raw, stack, secrets).map((p) => p.key);

/** The problem of a raw config under one key, if any. */
export const problemAt = (raw: Record<string, string>, key: string, stack = "prod"): Problem | undefined =>
  problemsOf(raw, stack).find((p) => p.key === key);

/** A rule case: its name, a failing override, the key its problem names, and a passing override. */
export type RuleCase = [
  string,
  Record<string, string | undefined>,
  string,
  Record<string, string | undefined>,
];

/**
 * One test per case: the base config with the failing override has a problem under the key, and with the
 * passing override it has no problem at all.
 */
export function ruleCases(
  base: (over?: Record<string, string | undefined>) => Record<string, string>,
  cases: RuleCase[],
): void {
  test.each(cases)("%s", (_name, bad, key, good) => {
    expect(keys(base(bad))).toContain(key);
    expect(keys(base(good))).toEqual([]);
  });
}

/** A complete `nvcf:gateway` value (controller namespace, shared and gRPC Gateways) with `extra` merged in. */
export const gw = (extra: object = {}) =>
  j({
    controllerNamespace: "envoy-gateway-system",
    shared: { name: "g", namespace: "gw" },
    grpc: { name: "g", namespace: "gw" },
    ...extra,
  });
