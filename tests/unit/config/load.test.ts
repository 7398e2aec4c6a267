/**
 * Config validation: every rule with a failing and a passing config, every committed stack file, and many
 * problems reported at once with secrets redacted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseRaw, validateConfig } from "../../../config/load";
import { ConfigError } from "../../../config/problems";
import { ROOT, readStackFile, sentinel } from "../support/harness";
import { baseCompute, baseControl } from "../fixtures/configs";
import { SECRET, gw, j, problemTexts } from "../support/rules";

const problems = (raw: Record<string, string>, stack = "prod") => problemTexts(raw, stack, SECRET);
const keys = (raw: Record<string, string>, stack = "prod") => problems(raw, stack).map((p) => p.key);

describe("committed stack files validate", () => {
  const files = fs.readdirSync(ROOT).filter((f) => /^Pulumi\..+\.yaml$/.test(f));
  test("there are example stacks", () => expect(files.length).toBeGreaterThanOrEqual(4));
  test.each(files)("%s", (f) => {
    const stack = f.replace(/^Pulumi\.(.+)\.yaml$/, "$1");
    const file = readStackFile(stack);
    const raw = Object.fromEntries(Object.entries(file.config).map(([k, v]) => [k.replace(/^nvcf:/, ""), v]));
    const secrets = new Set(file.secretKeys.map((k) => k.replace(/^nvcf:/, "")));
    expect(() => validateConfig(raw, secrets, stack)).not.toThrow();
  });
});

test("the valid base configs pass", () => {
  expect(problems(baseControl())).toEqual([]);
  expect(problems(baseCompute())).toEqual([]);
});

describe("structure", () => {
  test("unknown keys are errors at every level", () => {
    expect(keys(baseControl({ invocation: j({ env: { NATS_PROPERTIES__REGION: "x" } }) }))).toContain(
      "nvcf:invocation",
    );
    expect(keys(baseControl({ cassandra: j({ replicas: 3, resources: { limits: {} } }) }))).toContain(
      "nvcf:cassandra.resources",
    );
    expect(
      keys(baseControl({ gateway: gw({ shared: { name: "g", namespace: "gw", listenerName: "web" } }) })),
    ).toContain("nvcf:gateway.shared.listenerName");
  });
  test("types: booleans and numbers set as top-level strings are read as the user meant", () => {
    expect(parseRaw("true")).toBe(true);
    expect(parseRaw("3")).toBe(3);
    expect(parseRaw("0.8.0")).toBe("0.8.0");
    expect(keys(baseControl({ remoteAccess: "true" }))).toEqual([]);
    expect(keys(baseControl({ remoteAccess: "yes" }))).toContain("nvcf:remoteAccess");
  });
  test("a wrong type names key, expectation and found value", () => {
    const p = problems(baseControl({ cassandra: j({ replicas: "three" }) }));
    expect(p).toEqual([
      {
        key: "nvcf:cassandra.replicas",
        text: expect.stringMatching(
          /^a whole number \| "three" \| pulumi config set --path nvcf:cassandra.replicas <a whole number>/,
        ),
      },
    ]);
  });
  test("enums list the allowed values", () => {
    expect(problems(baseControl({ bundleVersion: "0.9.0" }))[0].text).toMatch(
      /one of "0.6.1", "0.7.0", "0.8.0"/,
    );
  });
  test("secret keys must be set with --secret", () => {
    expect(() => validateConfig(baseControl(), new Set(), "prod")).toThrow(
      /nvcf:registryKey: expected a secret value, found a plain-text value/,
    );
  });
});

describe("compute-plane keys the schema refuses", () => {
  const cases: [string, Record<string, string | undefined>, string, Record<string, string | undefined>][] = [
    [
      "control-plane stack is fully qualified",
      { controlPlaneStack: "dev" },
      "nvcf:controlPlaneStack",
      { controlPlaneStack: "acme/nvcf/dev" },
    ],
    [
      "GPU-cluster observability: settings of control-plane services are not keys of a GPU cluster",
      { observability: j({ tracing: { enabled: true } }) },
      "nvcf:observability.tracing",
      { observability: j({ namespace: "observability" }) },
    ],
  ];
  test.each(cases)("%s", (_name, bad, key, good) => {
    expect(keys(baseCompute(bad))).toContain(key);
    expect(keys(baseCompute(good))).toEqual([]);
  });
});

test("a config with many mistakes lists every one at once, secrets redacted", () => {
  const raw = baseControl({
    bundleVersion: "0.6.1",
    domain: "localhost",
    remoteAccess: "true",
    registryKey: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL",
    cassandraPassword: "ch@ng3m3",
    cassandra: j({ preset: "small", replicas: "3x" }),
    accounts: j({ limits: { maxFunctions: 100, maxTasks: 0 } }),
    gateway: j({ routes: { nats: true } }),
    addons: j({ llm: { enabled: true, requestRouterAddress: "nohost" }, nvcfUi: { enabled: true } }),
    observability: j({ metricsBackend: { mode: "existing" } }),
    stateMetrics: j({ enabled: false }),
    charts: j({ source: "local" }),
    bogusKey: "1",
  });
  let err: ConfigError | undefined;
  try {
    validateConfig(raw, SECRET, "prod");
  } catch (e) {
    err = e as ConfigError;
  }
  expect(err).toBeInstanceOf(ConfigError);
  const got = err!.problems.map((p) => p.key);
  for (const k of [
    "nvcf:bogusKey",
    "nvcf:cassandra.replicas",
    "nvcf:registryKey",
    "nvcf:cassandraPassword",
    "nvcf:accounts.limits.maxFunctions",
    "nvcf:accounts.limits.maxTasks",
    "nvcf:gateway.controllerNamespace",
    "nvcf:gateway.shared.name",
    "nvcf:gateway.nats.name",
    "nvcf:domain",
    "nvcf:addons.llm.enabled",
    "nvcf:addons.nvcfUi.enabled",
    "nvcf:charts.path",
    "nvcf:stateMetrics.enabled",
    // Bundle 0.6.1 installs no observability stack, so only the function autoscaler's rule of an existing
    // backend applies (the stack's own mode rules, e.g. metricsBackend.type, do not).
    "nvcf:observability.metricsBackend.promqlEndpoint",
  ]) {
    expect(got).toContain(k);
  }
  expect(got.length).toBeGreaterThanOrEqual(15);
  expect(err!.message).toMatch(/has \d+ config problems; nothing was changed/);
  expect(err!.message).not.toContain(sentinel("registryKey"));
});

test("stack files in the repo are the ones the README documents", () => {
  const readme = fs.existsSync(path.join(ROOT, "README.md"))
    ? fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
    : "";
  for (const f of fs.readdirSync(ROOT).filter((x) => /^Pulumi\..+\.yaml$/.test(x)))
    expect(readme).toContain(f);
});
