/**
 * config/rules/registry.ts: the image repository, the pull secret and the registry keys' format, through
 * `validateConfig`.
 */
import { validateConfig } from "../../../../config/load";
import { baseCompute, baseControl } from "../../fixtures/configs";
import { SECRET, j, problemsOf, ruleCases } from "../../support/rules";
import { sentinel } from "../../support/harness";

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "image repository placeholder",
      { images: j({ registry: "nvcr.io" }) },
      "nvcf:images.repository",
      { images: j({ registry: "nvcr.io", repository: "org/team" }) },
    ],
    [
      "pull secret without a registry key",
      { registryKey: undefined, sidecarRegistryKey: sentinel("s") },
      "nvcf:registryKey",
      {
        registryKey: undefined,
        sidecarRegistryKey: sentinel("s"),
        pullSecret: j({ name: null }),
        accounts: j({ registryCredentials: [] }),
      },
    ],
    [
      "registry key that is already base64(user:key) (docs/upstream-facts.md §4 row 2)",
      { registryKey: Buffer.from("$oauthtoken:abc123").toString("base64") },
      "nvcf:registryKey",
      { registryKey: "nvapi-abc123" },
    ],
    [
      "registry key placeholder",
      { registryKey: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL" },
      "nvcf:registryKey",
      { registryKey: "k" },
    ],
    [
      "registry key that is a dockerconfigjson",
      { registryKey: '{"auths":{}}' },
      "nvcf:registryKey",
      { registryKey: "k" },
    ],
  ]);
});

describe("compute plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseCompute, [
    [
      "registry key format",
      { registryKey: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL" },
      "nvcf:registryKey",
      { registryKey: undefined },
    ],
  ]);
});

describe("the problems say what was expected, what was found and the fix", () => {
  test("the placeholder image repository", () => {
    expect(problemsOf(baseControl({ images: j({ registry: "nvcr.io" }) }))).toEqual([
      {
        key: "nvcf:images.repository",
        expected: "your image repository",
        found: '"YOUR_ORG/YOUR_TEAM"',
        fix: "pulumi config set --path nvcf:images.repository <org>/<team>",
      },
    ]);
  });

  test("no key for the sidecar credential nvcf-api hands to workers", () => {
    expect(
      problemsOf(
        baseControl({
          registryKey: undefined,
          pullSecret: j({ name: null }),
          accounts: j({ registryCredentials: [] }),
        }),
      ),
    ).toEqual([
      {
        key: "nvcf:registryKey",
        expected:
          "a registry key (secret) for the sidecar image-pull credential that nvcf-api hands to workers",
        found: "nothing",
        fix: "pulumi config set --secret nvcf:registryKey <key> (or nvcf:sidecarRegistryKey)",
      },
    ]);
  });

  test("account registry credentials need the function-image registry key", () => {
    const p = problemsOf(
      baseControl({
        registryKey: undefined,
        sidecarRegistryKey: sentinel("s"),
        pullSecret: j({ name: null }),
      }),
    );
    expect(p).toEqual([
      {
        key: "nvcf:functionRegistryKey",
        expected: "the key of the function-image registry (secret) for accounts.registryCredentials",
        found: "nothing",
        fix: "pulumi config set --secret nvcf:functionRegistryKey <key> (or nvcf:registryKey)",
      },
    ]);
  });

  test("a compute stack without a key of its own has no problem; a malformed one is refused", () => {
    expect(problemsOf(baseCompute({ registryKey: undefined }))).toEqual([]);
    expect(problemsOf(baseCompute({ registryKey: '{"auths":{}}' })).map((p) => [p.key, p.expected])).toEqual([
      ["nvcf:registryKey", "the plain registry key or password"],
    ]);
  });
});

test("secret values never appear in problem messages", () => {
  const key = Buffer.from("$oauthtoken:SENTINEL-leak").toString("base64");
  try {
    validateConfig(baseControl({ registryKey: key }), SECRET, "prod");
    throw new Error("expected a ConfigError");
  } catch (e) {
    expect((e as Error).message).toMatch(
      /nvcf:registryKey: expected the plain registry key or password, found \[secret\]/,
    );
    expect((e as Error).message).not.toContain(key);
  }
});
