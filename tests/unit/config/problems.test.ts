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
import type { ComputePlaneConfig } from "../../../config/schema";
import { requireRegistryKey } from "../../../stacks/compute";
import { type KubeconfigView, kubeconfigView } from "../../../kube/kubeconfig";
import { baseCompute, baseControl } from "../fixtures/configs";
import { sentinelKubeconfig } from "../support/harness";
import { SECRET, SECRET_RV, configError, j, problemAt } from "../support/rules";

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
