/**
 * `nvcf init` (cli/verbs/init.ts) without a backend: the flags read into stack files (`initPlan`), the chart and
 * registry forms, the refusals, where secrets are read from, and the stack files' text; each plan's control-plane
 * config is then validated exactly as the program validates it (config/load.ts `validateConfig`).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { validateConfig } from "../../../../config/load";
import { CliError } from "../../../../cli/report";
import { EXIT } from "../../../../cli/types";
import {
  type InitOptions,
  initPlan,
  parseCharts,
  parseRegistry,
  secretFromFlag,
  renderStackFile,
} from "../../../../cli/verbs/init";

const ROOT = path.resolve(__dirname, "../../../..");

function options(over: Partial<InitOptions> = {}): InitOptions {
  return {
    env: "prod",
    domain: "nvcf.example.com",
    context: "prod-control",
    gpuCluster: ["gpu-a=arn:aws:eks:us-west-2:123456789012:cluster/gpu-a", "gpu-b=gpu-b-context"],
    region: ["gpu-a=us-west-2"],
    registry: "nvcr.io/my-org/my-team",
    charts: "oci://nvcr.io/my-org/my-team",
    gateway: "envoy-gateway/nvcf-gateway",
    gatewayControllerNamespace: "envoy-gateway-system",
    org: "organization",
    set: [],
    secret: [],
    preflight: true,
    ...over,
  };
}

/** The CliError `fn` throws: its exit code and message. */
function refusal(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof CliError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected a CliError");
}

/** A stack file's `nvcf:` keys as the program reads them: raw strings (objects as JSON), no prefix. */
function raw(config: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k.slice(5), typeof v === "string" ? v : JSON.stringify(v)]),
  );
}

test("a control plane and two GPU clusters from flags: the keys each stack file gets", () => {
  const plan = initPlan(options(), "nvcf", ROOT);
  expect(plan.files.map((f) => f.stack)).toEqual(["prod", "prod-gpu-a", "prod-gpu-b"]);
  const [control, a] = plan.files.map((f) => f.config);
  expect(control["nvcf:charts"]).toEqual({
    source: "oci",
    registry: "nvcr.io",
    repository: "my-org/my-team",
  });
  expect(control["nvcf:images"]).toEqual({ registry: "nvcr.io", repository: "my-org/my-team" });
  expect(control["nvcf:gpuClusters"]).toEqual([
    { name: "gpu-a", region: "us-west-2", context: "arn:aws:eks:us-west-2:123456789012:cluster/gpu-a" },
    { name: "gpu-b", context: "gpu-b-context" },
  ]);
  expect(control["nvcf:bundleVersion"]).toBe("0.8.0");
  expect(a).toEqual({
    "nvcf:plane": "compute",
    "nvcf:bundleVersion": "0.8.0",
    "nvcf:controlPlaneStack": "organization/nvcf/prod",
    "nvcf:clusterName": "gpu-a",
    "nvcf:kubernetes": { context: "arn:aws:eks:us-west-2:123456789012:cluster/gpu-a" },
    "nvcf:charts": { source: "oci", registry: "nvcr.io", repository: "my-org/my-team" },
  });
});

test("the control plane's config passes the program's own validation, with GPU clusters and without", () => {
  for (const gpuCluster of [[], ["gpu-a=ctx-a"]]) {
    const plan = initPlan(options({ gpuCluster, region: [] }), "nvcf", ROOT);
    const secrets = { registryKey: "nvapi-" + "x".repeat(64) };
    expect(() =>
      validateConfig({ ...raw(plan.files[0].config), ...secrets }, new Set(["registryKey"]), "prod"),
    ).not.toThrow();
  }
  // The same validation refuses the plan without what GPU clusters require: the check above is not vacuous.
  const plan = initPlan(options(), "nvcf", ROOT);
  delete plan.files[0].config["nvcf:openbao"];
  expect(() => validateConfig(raw(plan.files[0].config), new Set(), "prod")).toThrow(
    /openbao\.issuerDiscovery/,
  );
});

test("--set reaches the stack it names as YAML values at a property path; --secret reads env: or file:", () => {
  const plan = initPlan(
    options({
      set: [
        "prod:charts.timeoutSeconds=300",
        "prod-gpu-b:observability.profile=compute",
        "prod:gpuClusters[1].region=eu-west-1",
      ],
      secret: ["registryKey=env:NGC_API_KEY", "prod:gpuClusterKubeconfigs.gpu-b=file:/tmp/kc"],
    }),
    "nvcf",
    ROOT,
  );
  expect((plan.files[0].config["nvcf:charts"] as Record<string, unknown>)["timeoutSeconds"]).toBe(300);
  expect((plan.files[0].config["nvcf:gpuClusters"] as Record<string, unknown>[])[1]["region"]).toBe(
    "eu-west-1",
  );
  expect(plan.files[2].config["nvcf:observability"]).toEqual({ profile: "compute" });
  expect(plan.secrets).toEqual([
    { stack: "prod", key: "registryKey", from: { env: "NGC_API_KEY" } },
    { stack: "prod", key: "gpuClusterKubeconfigs.gpu-b", from: { file: "/tmp/kc" } },
  ]);
  expect(secretFromFlag(plan.secrets[0], { NGC_API_KEY: "v" })).toBe("v");
  expect(refusal(() => secretFromFlag(plan.secrets[0], {}))).toEqual({
    code: EXIT.usage,
    message:
      "--secret registryKey=env:NGC_API_KEY: the variable NGC_API_KEY is unset or empty. Fix: export it first",
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-init-"));
  fs.writeFileSync(path.join(dir, "kc"), "apiVersion: v1\n");
  expect(secretFromFlag({ stack: "prod", key: "kubeconfig", from: { file: path.join(dir, "kc") } })).toBe(
    "apiVersion: v1",
  );
  fs.rmSync(dir, { recursive: true });
});

test("refusals name the flag and the form it takes", () => {
  const noDomain = refusal(() => initPlan(options({ domain: undefined, charts: undefined }), "nvcf", ROOT));
  expect(noDomain).toEqual({
    code: EXIT.usage,
    message:
      "nvcf init needs --domain, --charts. Fix: nvcf init --env prod --domain <the domain the routes use, e.g. " +
      "nvcf.example.com> --charts <charts: oci://<registry>/<repository>, https://<Helm repository URL> or a directory>",
  });
  expect(
    refusal(() => initPlan(options({ secret: ["registryKey=nvapi-plaintext"] }), "nvcf", ROOT)).message,
  ).toMatch(/^--secret registryKey=nvapi-plaintext: expected \[<stack>:\]<key>=env:<VARIABLE>/);
  expect(refusal(() => initPlan(options({ secret: ["domain=env:X"] }), "nvcf", ROOT)).message).toMatch(
    /^--secret domain=env:X: nvcf:domain is not a secret key\. Secret keys: registryKey, /,
  );
  expect(refusal(() => initPlan(options({ set: ["prod:registryKey=abc"] }), "nvcf", ROOT)).message).toBe(
    "--set prod:registryKey=abc: nvcf:registryKey is a secret: give it with --secret prod:registryKey=env:<VAR>",
  );
  expect(refusal(() => initPlan(options({ set: ["staging:domain=x"] }), "nvcf", ROOT)).message).toBe(
    "--set staging:domain=x: staging is not a stack of the new environment. Its stacks: prod, prod-gpu-a, prod-gpu-b",
  );
  expect(refusal(() => initPlan(options({ region: ["gpu-c=us-east-1"] }), "nvcf", ROOT)).message).toBe(
    "--region gpu-c=…: no --gpu-cluster gpu-c=<context> was given",
  );
  expect(refusal(() => initPlan(options({ gpuCluster: ["GPU_A=ctx"] }), "nvcf", ROOT)).message).toMatch(
    /lowercase DNS label/,
  );
  expect(refusal(() => initPlan(options({ bundle: "0.5.0" }), "nvcf", ROOT)).message).toBe(
    "--bundle 0.5.0: expected one of 0.6.1, 0.7.0, 0.8.0",
  );
});

test("chart sources and registries: the three forms and what is refused", () => {
  expect(parseCharts("https://helm.ngc.nvidia.com/nvidia/nvcf/", ROOT)).toEqual({
    source: "https",
    url: "https://helm.ngc.nvidia.com/nvidia/nvcf",
  });
  expect(parseCharts("tests/charts", ROOT)).toEqual({ source: "local", path: "tests/charts" });
  expect(refusal(() => parseCharts("no/such/dir", ROOT)).message).toMatch(
    /^--charts no\/such\/dir: expected oci:/,
  );
  expect(refusal(() => parseCharts("s3://bucket/charts", ROOT)).code).toBe(EXIT.usage);
  expect(parseRegistry("registry.example.com:5000/a/b")).toEqual({
    registry: "registry.example.com:5000",
    repository: "a/b",
  });
  expect(refusal(() => parseRegistry("nvcr.io")).message).toBe(
    "--registry nvcr.io: expected <registry host>/<repository>, e.g. nvcr.io/my-org/my-team",
  );
});

test("a stack file's text reads back as the plan's config, with the control plane's salt on a GPU cluster's", () => {
  const plan = initPlan(options(), "nvcf", ROOT);
  const text = renderStackFile("prod", plan.files[1].config, "v1:salt");
  expect(text.split("\n")[0]).toBe("# GPU cluster gpu-a of environment prod, made by nvcf init.");
  expect(yaml.load(text)).toEqual({ config: plan.files[1].config, encryptionsalt: "v1:salt" });
});
