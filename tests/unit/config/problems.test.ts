/**
 * What a user reads when the config is wrong: the formatted problem list (one plain
 * line per problem, secrets redacted, no validator wording, no object dump) carried by a Pulumi RunError, and
 * every `releaseValues` mistake reported as a problem that names its key.
 *
 * Facts behind the expectations:
 * - `@pulumi/pulumi/cmd/run/run.js` (3.248.0) logs an uncaught RunError as its message alone; any other error
 *   as "Running program … failed with an unhandled exception:" plus its stack, or an inspected object when
 *   the error's `stack` is not a string.
 * - NVIDIA's charts with a values key read nothing else: e.g. `deploy/helm/cloud-functions/nvcf-api/values.yaml`
 *   has the single top-level key `api:`, `deploy/helm/cassandra/helm/values.yaml` only `cassandra:`;
 *   `deploy/helm/openbao/helm/Chart.yaml` depends on the upstream openbao chart, which reads Helm's `global`.
 *   `deploy/helm/nats-auth-callout/values.yaml` is flat (replicaCount, image, … at the top).
 * - The Cassandra chart's built-in service-role password is `ch@ng3m3` (`deploy/helm/cassandra/helm/values.yaml`);
 *   the OpenBao migrations read it as env DEFAULT_CASSANDRA_PASSWORD (secrets template), next to
 *   NVCF_API_SIDECARS_IMAGE_PULL_SECRET and ADMIN_CLIENT_ID.
 * - Bundle 0.7.0 (`deploy/stacks/self-managed` at v0.7.0) has no nvcf-pki release; HEAD (0.8.0) has it.
 *   The nvcf-ui add-on is off unless `addons.nvcfUi.enabled`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ResourceError, RunError, type Resource } from "@pulumi/pulumi";
import { failsAs } from "../../../components/errors";
import { validateConfig } from "../../../config/load";
import { ConfigError, type Problem, formatProblem, formatProblems } from "../../../config/problems";
import { type ComputePlaneConfig, SECRET_KEYS } from "../../../config/schema";
import { requireRegistryKey } from "../../../stacks/compute";
import { type KubeconfigView, kubeconfigView } from "../../../kube/kubeconfig";
import { baseCompute, baseControl } from "../fixtures/configs";
import { sentinelKubeconfig } from "../support/harness";

const SECRET: ReadonlySet<string> = new Set(SECRET_KEYS);
/** As SECRET, with `nvcf:releaseValues` set with --secret too (credentials inside it are then allowed). */
const SECRET_RV: ReadonlySet<string> = new Set([...SECRET_KEYS, "releaseValues"]);
const j = (v: unknown) => JSON.stringify(v);
const DEFAULT_PW = "ch@ng3m3";

/** The ConfigError a raw config throws (fails the test when it does not throw one). */
function configError(raw: Record<string, string>, stack = "prod", secrets = SECRET_RV): ConfigError {
  try {
    validateConfig(raw, secrets, stack);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}
/** Problem keys of a raw config (empty when it validates). */
function keys(raw: Record<string, string>, stack = "prod", secrets = SECRET_RV): string[] {
  try {
    validateConfig(raw, secrets, stack);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.problems.map((p) => p.key);
  }
}
const problemAt = (raw: Record<string, string>, key: string, stack = "prod"): Problem | undefined =>
  configError(raw, stack).problems.find((p) => p.key === key);

describe("the formatted list", () => {
  const p1: Problem = { key: "nvcf:a.b", expected: "true or false", found: '"yes"', fix: "set it to true" };
  const p2: Problem = {
    key: "nvcf:c",
    expected: "text",
    found: "nothing",
    fix: "pulumi config set nvcf:c x",
  };

  test("one line per problem: key, expected, found, fix", () => {
    expect(formatProblem(p1)).toBe('nvcf:a.b: expected true or false, found "yes". Fix: set it to true');
    expect(formatProblems("prod", [p1, p2])).toBe(
      [
        'stack "prod" has 2 config problems; nothing was changed:',
        '  - nvcf:a.b: expected true or false, found "yes". Fix: set it to true',
        "  - nvcf:c: expected text, found nothing. Fix: pulumi config set nvcf:c x",
      ].join("\n"),
    );
    expect(formatProblems("dev", [p2]).split("\n")[0]).toBe(
      'stack "dev" has 1 config problem; nothing was changed:',
    );
  });

  test("a line break inside a field cannot split a problem over two lines", () => {
    expect(formatProblem({ ...p1, fix: "first\n  second" })).toBe(
      'nvcf:a.b: expected true or false, found "yes". Fix: first second',
    );
  });

  test("ConfigError is a Pulumi RunError whose message is the list, and keeps a real stack trace", () => {
    const err = new ConfigError("prod", [p1, p2]);
    // run.js tests RunError.isInstance and then logs err.message only.
    expect(RunError.isInstance(err)).toBe(true);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe(formatProblems("prod", [p1, p2]));
    expect(err.stackName).toBe("prod");
    expect(err.problems).toEqual([p1, p2]);
    // Error.stack is not shadowed by the stack name (a field called `stack` would replace it).
    expect(typeof err.stack).toBe("string");
    expect(err.stack).toMatch(/^ConfigError: stack "prod" has 2 config problems/);
  });
});

describe("structural problems in plain words", () => {
  test("several problems, each one line a user can act on, nothing of the validator's wording", () => {
    const raw = baseControl({
      observability: j({ profile: "everything" }),
      cassandra: j({ replicas: 0 }),
      "kubernetes.context": "kwok-nvcf-dev",
      sidecarRegistryKey: "SENTINEL-plain-sidecar",
    });
    // sidecarRegistryKey was set without --secret.
    const secrets = new Set([...SECRET].filter((k) => k !== "sidecarRegistryKey"));
    const err = configError(raw, "dev-bad", secrets);
    const msg = err.message;
    expect(msg.split("\n")[0]).toBe(
      `stack "dev-bad" has ${err.problems.length} config problems; nothing was changed:`,
    );
    expect(msg.split("\n")).toHaveLength(err.problems.length + 1);
    expect(msg.split("\n").slice(1)).toEqual(
      expect.arrayContaining([
        '  - nvcf:observability.profile: expected one of "disabled", "control", "compute", "all", found "everything". Fix: pulumi config set --path nvcf:observability.profile <disabled|control|compute|all>',
        "  - nvcf:cassandra.replicas: expected a whole number of at least 1, found 0. Fix: pulumi config set --path nvcf:cassandra.replicas <a whole number of at least 1>",
        '  - nvcf:kubernetes.context: expected kubernetes as an object whose fields are set with --path, found a key literally named "kubernetes.context" (set without --path). Fix: pulumi config rm nvcf:kubernetes.context, then pulumi config set --path nvcf:kubernetes.context <value>',
        "  - nvcf:sidecarRegistryKey: expected a secret value, found a plain-text value. Fix: pulumi config set --secret nvcf:sidecarRegistryKey <value>",
      ]),
    );
    expect(msg).not.toMatch(/Too small|Too big|Invalid input|Invalid option|>=|<=|received|\{|\[object/);
    expect(msg).not.toContain("\u001b["); // no colour codes
    expect(msg).not.toContain("SENTINEL-plain-sidecar");
  });

  test("wrong types say what was expected in words", () => {
    const p = problemAt(baseControl({ cassandra: j({ replicas: "three" }) }), "nvcf:cassandra.replicas");
    expect(p).toEqual({
      key: "nvcf:cassandra.replicas",
      expected: "a whole number",
      found: '"three"',
      fix: "pulumi config set --path nvcf:cassandra.replicas <a whole number>",
    });
    expect(problemAt(baseControl({ nats: j({ enabled: "yes" }) }), "nvcf:nats.enabled")?.expected).toBe(
      "true or false",
    );
  });

  test("a misspelt key names the key it probably meant", () => {
    expect(problemAt(baseControl({ cassandra: j({ replcias: 3 }) }), "nvcf:cassandra.replcias")).toEqual({
      key: "nvcf:cassandra.replcias",
      expected: "a known key (did you mean nvcf:cassandra.replicas?)",
      found: "an unknown key",
      fix: "pulumi config rm --path nvcf:cassandra.replcias, then set nvcf:cassandra.replicas",
    });
    expect(problemAt(baseControl({ bogusKey: "1" }), "nvcf:bogusKey")?.fix).toBe(
      "pulumi config rm nvcf:bogusKey (docs/configuration.md lists every key)",
    );
  });

  test("a secret's value never appears, even in a wrong-type problem", () => {
    const err = configError(baseControl({ cassandraPassword: "SENTINEL-pw-123", registryKey: "" }));
    expect(err.message).not.toContain("SENTINEL-pw-123");
  });
});

describe("releaseValues mistakes are problems naming the key", () => {
  test("an override for a release that is off in this config", () => {
    const p = problemAt(
      baseControl({ releaseValues: j({ "nvcf-ui": { nvcfUi: { replicaCount: 2 } } }) }),
      "nvcf:releaseValues.nvcf-ui",
    );
    expect(p?.expected).toBe("an override for a release this stack installs");
    expect(p?.found).toBe('"nvcf-ui", which is off in this config (nvcf:addons.nvcfUi.enabled)');
    expect(p?.fix).toMatch(/^pulumi config rm --path nvcf:releaseValues\.nvcf-ui, or turn the release on/);
    // Turned on, the same override is fine.
    expect(
      keys(
        baseControl({
          addons: j({ nvcfUi: { enabled: true } }),
          releaseValues: j({ "nvcf-ui": { nvcfUi: { replicaCount: 2 } } }),
        }),
      ),
    ).toEqual([]);
  });

  test("an override for a release the bundle does not ship", () => {
    const raw = baseControl({
      bundleVersion: "0.7.0",
      releaseValues: j({ "nvcf-pki": { clusterIssuer: {} } }),
    });
    expect(problemAt(raw, "nvcf:releaseValues.nvcf-pki")?.expected).toBe(
      "a release that NVCF bundle 0.7.0 ships",
    );
  });

  test("an override of the other plane's release, and an unknown release", () => {
    expect(
      problemAt(
        baseControl({ releaseValues: j({ "nvca-operator": { logLevel: "debug" } }) }),
        "nvcf:releaseValues.nvca-operator",
      )?.found,
    ).toBe('"nvca-operator", a compute-plane release');
    expect(keys(baseControl({ releaseValues: j({ casandra: { cassandra: {} } }) }))).toEqual([
      "nvcf:releaseValues.casandra",
    ]);
  });

  test("a key written without the chart's top-level values key", () => {
    const p = problemAt(
      baseControl({ releaseValues: j({ api: { image: { tag: "1.2.3" } } }) }),
      "nvcf:releaseValues.api.image",
    );
    expect(p).toEqual({
      key: "nvcf:releaseValues.api.image",
      expected: "keys under api (helm-nvcf-api reads its values only under api:)",
      found: 'a top-level "image", which the chart never reads',
      fix: "pulumi config rm --path nvcf:releaseValues.api.image, then set it as nvcf:releaseValues.api.api.image",
    });
    expect(keys(baseControl({ releaseValues: j({ api: { api: { image: { tag: "1.2.3" } } } }) }))).toEqual(
      [],
    );
  });

  test("global is read only by charts that wrap upstream subcharts; flat charts take top-level keys", () => {
    expect(
      keys(baseControl({ releaseValues: j({ "openbao-server": { global: { enabled: true } } }) })),
    ).toEqual([]);
    expect(keys(baseControl({ releaseValues: j({ cassandra: { global: { x: 1 } } }) }))).toEqual([
      "nvcf:releaseValues.cassandra.global",
    ]);
    expect(
      keys(baseControl({ releaseValues: j({ "nats-auth-callout-service": { replicaCount: 2 } }) })),
    ).toEqual([]);
  });
});

describe("first-class rules also hold through releaseValues", () => {
  test("the Cassandra default password is refused in the Cassandra chart and in the OpenBao migrations env", () => {
    const viaCassandra = baseControl({
      releaseValues: j({ cassandra: { cassandra: { serviceRolePassword: DEFAULT_PW } } }),
    });
    const p = problemAt(viaCassandra, "nvcf:releaseValues.cassandra.cassandra.serviceRolePassword");
    expect(p?.found).toBe("[secret] (the chart's default password)");
    expect(configError(viaCassandra).message).not.toContain(DEFAULT_PW);

    const viaOpenbao = baseControl({
      releaseValues: j({
        "openbao-server": {
          openbao: {
            migrations: {
              env: [
                { name: "DEFAULT_CASSANDRA_PASSWORD", value: DEFAULT_PW },
                { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: "x" },
                { name: "ADMIN_CLIENT_ID", value: "ncp" },
              ],
            },
          },
        },
      }),
    });
    const q = problemAt(viaOpenbao, "nvcf:releaseValues.openbao-server.openbao.migrations.env[0].value");
    expect(q?.found).toBe("[secret] (the chart's default password)");
    expect(configError(viaOpenbao).message).not.toContain(DEFAULT_PW);
  });

  test("a short Cassandra password is refused there too; one password for both places", () => {
    const short = baseControl({
      releaseValues: j({ cassandra: { cassandra: { serviceRolePassword: "abc" } } }),
    });
    expect(problemAt(short, "nvcf:releaseValues.cassandra.cassandra.serviceRolePassword")).toBeDefined();
    // A good password set only for Cassandra leaves the services with another one: refused.
    const onlyOne = baseControl({
      releaseValues: j({ cassandra: { cassandra: { serviceRolePassword: "a-long-password-1" } } }),
    });
    expect(
      problemAt(onlyOne, "nvcf:releaseValues.cassandra.cassandra.serviceRolePassword")?.expected,
    ).toMatch(/^the same Cassandra password/);
    // Equal to nvcf:cassandraPassword, it is the same password in both places.
    expect(
      keys(
        baseControl({
          cassandraPassword: "a-long-password-1",
          releaseValues: j({ cassandra: { cassandra: { serviceRolePassword: "a-long-password-1" } } }),
        }),
      ),
    ).toEqual([]);
  });

  test("a credential in releaseValues must be a secret, as nvcf:cassandraPassword must", () => {
    const raw = baseControl({
      cassandraPassword: "a-long-password-1",
      releaseValues: j({ cassandra: { cassandra: { serviceRolePassword: "a-long-password-1" } } }),
    });
    expect(keys(raw, "prod", SECRET)).toEqual(["nvcf:releaseValues.cassandra.cassandra.serviceRolePassword"]);
    const p = configError(raw, "prod", SECRET).problems[0];
    expect([p.expected, p.found]).toEqual([
      "a secret value (a credential in releaseValues is stored in plain text otherwise)",
      "a plain-text value",
    ]);
    expect(configError(raw, "prod", SECRET).message).not.toContain("a-long-password-1");
    expect(keys(raw, "prod", SECRET_RV)).toEqual([]);
  });

  test("an overridden migrations env list must keep all three names", () => {
    const raw = baseControl({
      releaseValues: j({
        "openbao-server": { openbao: { migrations: { env: [{ name: "ADMIN_CLIENT_ID", value: "ncp" }] } } },
      }),
    });
    expect(problemAt(raw, "nvcf:releaseValues.openbao-server.openbao.migrations.env")?.found).toBe(
      "no DEFAULT_CASSANDRA_PASSWORD, NVCF_API_SIDECARS_IMAGE_PULL_SECRET",
    );
  });

  test("replica counts and account limits keep their first-class bounds", () => {
    const raw = baseControl({
      releaseValues: j({
        cassandra: { cassandra: { replicaCount: 0, resourcesPreset: "small" } },
        "openbao-server": { openbao: { injector: { replicas: 0 } } },
        api: { api: { accountBootstrap: { limits: { maxFunctions: 100, maxTasks: 5 } } } },
      }),
    });
    expect(keys(raw).sort()).toEqual(
      [
        "nvcf:releaseValues.api.api.accountBootstrap.limits.maxFunctions",
        "nvcf:releaseValues.cassandra.cassandra.replicaCount",
        "nvcf:releaseValues.cassandra.cassandra.resourcesPreset",
        "nvcf:releaseValues.openbao-server.openbao.injector.replicas",
      ].sort(),
    );
    expect(problemAt(raw, "nvcf:releaseValues.api.api.accountBootstrap.limits.maxFunctions")?.expected).toBe(
      "a whole number from 1 to 50",
    );
    // A dev stack may run the small preset, as with nvcf:cassandra.preset.
    expect(keys(raw, "dev")).not.toContain("nvcf:releaseValues.cassandra.cassandra.resourcesPreset");
  });

  test("compute plane: NVCA feature gates, and Grove's nodeSelector that bundle 0.7.0 does not have", () => {
    const gates = baseCompute({
      releaseValues: j({
        "nvca-operator": { selfManaged: { featureGateValues: ["KAIScheduler", "-LogPosting"] } },
      }),
    });
    expect(keys(gates)).toEqual([
      "nvcf:releaseValues.nvca-operator.selfManaged.featureGateValues[0]",
      "nvcf:releaseValues.nvca-operator.selfManaged.featureGateValues[1]",
    ]);
    const grove = baseCompute({
      bundleVersion: "0.7.0",
      addons: j({ groveOperator: { enabled: true } }),
      releaseValues: j({ "grove-operator": { nodeSelector: { pool: "gpu" } } }),
    });
    expect(keys(grove)).toContain("nvcf:releaseValues.grove-operator.nodeSelector");
    // A compute override for an add-on that is off is reported like on the control plane.
    expect(keys(baseCompute({ releaseValues: j({ "kai-scheduler": { scheduler: {} } }) }))).toEqual([
      "nvcf:releaseValues.kai-scheduler",
    ]);
  });
});

describe("Kubernetes access is checked with the config, before anything is registered", () => {
  // The fixture defines the contexts kwok-nvcf-dev, kwok-nvcf-gpu-a, kwok-nvcf-gpu-b (current: kwok-nvcf-dev).
  const FIXTURE = path.join(__dirname, "../fixtures/kubeconfig");
  const KUBE: KubeconfigView = kubeconfigView([[FIXTURE, fs.readFileSync(FIXTURE, "utf8")]], [FIXTURE]);
  const NO_FILE: KubeconfigView = kubeconfigView([], ["/nowhere/kubeconfig"]);
  const gpu = (clusters: unknown[]) => ({
    gpuClusters: j(clusters),
    openbao: j({ issuerDiscovery: true }),
    gateway: j({
      controllerNamespace: "envoy-gateway-system",
      shared: { name: "nvcf-gateway", namespace: "envoy-gateway" },
      grpc: { name: "nvcf-gateway", namespace: "envoy-gateway" },
      nats: { name: "nvcf-gateway", namespace: "envoy-gateway" },
      routes: { nats: true },
    }),
  });
  function problems(raw: Record<string, string>, kube: KubeconfigView, secrets = SECRET_RV): Problem[] {
    try {
      validateConfig(raw, secrets, "prod", { kubeconfig: kube });
      return [];
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return [...e.problems];
    }
  }
  const CONTEXTS = '"kwok-nvcf-dev", "kwok-nvcf-gpu-a", "kwok-nvcf-gpu-b"';

  test("the contexts of the kubeconfig are read as kubectl merges them", () => {
    const second =
      "contexts: [{name: kwok-nvcf-dev, context: {cluster: other, user: other}}, {name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n";
    const v = kubeconfigView(
      [
        [FIXTURE, fs.readFileSync(FIXTURE, "utf8")],
        ["/b", second],
        ["/c", "{not yaml"],
      ],
      [FIXTURE, "/b", "/c"],
    );
    expect(Object.keys(v.contexts).sort()).toEqual([
      "kwok-nvcf-dev",
      "kwok-nvcf-gpu-a",
      "kwok-nvcf-gpu-b",
      "x",
    ]);
    expect(v.contexts["kwok-nvcf-dev"]).toEqual({ cluster: "kwok-nvcf-dev", user: "kwok-nvcf-dev" });
    expect(v.currentContext).toBe("kwok-nvcf-dev");
    expect(v.files).toEqual([FIXTURE, "/b"]);
    expect(v.unreadable.map((u) => u.file)).toEqual(["/c"]);
  });

  test("an existing context passes; an unknown one names the key, the contexts there are and the fix", () => {
    expect(problems(baseControl({ kubernetes: j({ context: "kwok-nvcf-dev" }) }), KUBE)).toEqual([]);
    expect(problems(baseControl({ kubernetes: j({ context: "kwok-nvcf-prod" }) }), KUBE)).toEqual([
      {
        key: "nvcf:kubernetes.context",
        expected: `a context of the kubeconfig (${FIXTURE}): one of ${CONTEXTS}`,
        found: '"kwok-nvcf-prod", which it does not define',
        fix: 'pulumi config set --path nvcf:kubernetes.context <one of them>, or point KUBECONFIG at the file that defines "kwok-nvcf-prod"',
      },
    ]);
    // The compute plane's context is checked the same way.
    expect(problems(baseCompute({ kubernetes: j({ context: "gpu-z" }) }), KUBE).map((p) => p.key)).toEqual([
      "nvcf:kubernetes.context",
    ]);
  });

  test("a GPU cluster's context is checked unless its kubeconfig is given, and reported with every other problem", () => {
    const raw = baseControl({
      kubernetes: j({ context: "kwok-nvcf-dev" }),
      cassandra: j({ replicas: 0 }),
      ...gpu([
        { name: "gpu-a", region: "us-west-1", context: "kwok-nvcf-gpu-a" },
        { name: "gpu-b", region: "us-east-1", context: "kwok-nvcf-gpu-z" },
        { name: "gpu-c", region: "us-east-1" },
      ]),
      gpuClusterKubeconfigs: j({ "gpu-c": sentinelKubeconfig("gpu-c") }),
    });
    const found = problems(raw, KUBE);
    expect(found.map((p) => p.key)).toEqual(["nvcf:cassandra.replicas", "nvcf:gpuClusters[1].context"]);
    expect(formatProblem(found[1])).toBe(
      `nvcf:gpuClusters[1].context: expected a context of the kubeconfig (${FIXTURE}): one of ${CONTEXTS}, ` +
        `found "kwok-nvcf-gpu-z", which it does not define. Fix: pulumi config set --path 'nvcf:gpuClusters[1].context' <one of them>, ` +
        'or point KUBECONFIG at the file that defines "kwok-nvcf-gpu-z"',
    );
  });

  test("no kubeconfig file at all, a context whose cluster is missing, no current context", () => {
    expect(problems(baseControl({ kubernetes: j({ context: "kwok-nvcf-dev" }) }), NO_FILE)).toEqual([
      {
        key: "nvcf:kubernetes.context",
        expected: "a context of a kubeconfig file (none of /nowhere/kubeconfig exists)",
        found: '"kwok-nvcf-dev", which no kubeconfig defines',
        fix: "point KUBECONFIG at your kubeconfig file (kubectl config get-contexts lists its contexts), or give the kubeconfig itself as a secret",
      },
    ]);
    const dangling = kubeconfigView(
      [["/k", "contexts: [{name: a, context: {cluster: gone, user: u}}]\nusers: [{name: u}]\n"]],
      ["/k"],
    );
    expect(problems(baseControl({ kubernetes: j({ context: "a" }) }), dangling)[0]?.found).toBe(
      '"a", whose cluster "gone" is not defined there',
    );
    // No context configured: the kubeconfig's current context must exist.
    expect(problems(baseControl(), KUBE)).toEqual([]);
    expect(problems(baseControl(), dangling)[0]).toMatchObject({
      key: "nvcf:kubernetes.context",
      found: "nothing, and the kubeconfig sets no usable current-context",
      fix: "pulumi config set --path nvcf:kubernetes.context <context>",
    });
  });

  test("a kubeconfig given as a secret must name a server; its text never appears", () => {
    const bad = "apiVersion: v1\nkind: Config\n# SENTINEL-not-a-cluster-7f3a9c\n";
    const found = problems(
      baseControl({
        kubeconfig: bad,
        ...gpu([{ name: "gpu-a", region: "us-west-1" }]),
        gpuClusterKubeconfigs: j({ "gpu-a": bad }),
      }),
      NO_FILE,
    );
    expect(found.map((p) => p.key)).toEqual(["nvcf:kubeconfig", "nvcf:gpuClusterKubeconfigs.gpu-a"]);
    expect(found.map((p) => p.found)).toEqual([
      "[secret] (not a kubeconfig, or no cluster server in it)",
      "[secret] (not a kubeconfig, or no cluster server in it)",
    ]);
    expect(JSON.stringify(found)).not.toContain("SENTINEL");
    // With a good kubeconfig no context is looked up, even when no kubeconfig file exists.
    expect(problems(baseControl({ kubeconfig: sentinelKubeconfig("cp") }), NO_FILE)).toEqual([]);
  });
});

describe("the compute plane's registry key is checked before it registers anything", () => {
  const ref = (details: { value?: unknown; secretValue?: unknown }) =>
    ({ getOutputDetails: async () => details }) as unknown as import("@pulumi/pulumi").StackReference;
  const cfg = (over: Record<string, string | undefined> = {}) =>
    validateConfig(baseCompute({ registryKey: undefined, ...over }), SECRET, "gpu") as ComputePlaneConfig;

  test("no key here and none exported by the control plane: a config problem naming nvcf:registryKey", async () => {
    const err = await requireRegistryKey(ref({ secretValue: "" }), cfg()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.key)).toEqual(["nvcf:registryKey"]);
    expect((err as ConfigError).problems[0].fix).toMatch(
      /^pulumi config set --secret nvcf:registryKey <key>/,
    );
  });

  test("a key from the control plane, a key of its own, or no pull secret to create: nothing to report", async () => {
    await expect(requireRegistryKey(ref({ secretValue: "k" }), cfg())).resolves.toBeUndefined();
    await expect(
      requireRegistryKey(ref({}), cfg({ pullSecret: j({ name: "nvcr-pull-secret", create: false }) })),
    ).resolves.toBeUndefined();
    await expect(
      requireRegistryKey(ref({}), validateConfig(baseCompute(), SECRET, "gpu") as ComputePlaneConfig),
    ).resolves.toBeUndefined();
  });
});

test("failsAs: a failure inside apply is raised as a ResourceError of its resource, with the same message", () => {
  const resource = { urn: "urn:pulumi:dev::nvcf::command:local:Command::x" } as unknown as Resource;
  expect(failsAs(resource, () => 3)).toBe(3);
  let caught: unknown;
  try {
    failsAs(resource, () => {
      throw new Error("nvcf-cli cluster register printed no Helm values");
    });
  } catch (e) {
    caught = e;
  }
  expect(ResourceError.isInstance(caught)).toBe(true);
  expect((caught as ResourceError).message).toBe("nvcf-cli cluster register printed no Helm values");
  expect((caught as ResourceError).resource).toBe(resource);
});
