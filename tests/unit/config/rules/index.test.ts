/**
 * config/rules/index.ts: each plane's rules run every area, and the problems come in the areas' order (the
 * order `nvcf up` prints them), through `validateConfig`.
 */
import { baseCompute, baseControl } from "../../fixtures/configs";
import { j, keys, problemsOf } from "../../support/rules";

test("control plane: one problem per area, in the order charts, releaseValues, registry, Cassandra, accounts, gateway, observability, LLM, GPU clusters", () => {
  const raw = baseControl({
    charts: j({ source: "local" }),
    releaseValues: j({ casandra: { a: 1 } }),
    images: j({ registry: "nvcr.io" }),
    cassandraPassword: "short",
    accounts: j({ limits: { maxTasks: 0 } }),
    gateway: j({ shared: { name: "g", namespace: "gw" }, grpc: { name: "g", namespace: "gw" } }),
    stateMetrics: j({ enabled: false }),
    addons: j({ llm: { enabled: true, requestRouterAddress: "router" } }),
    gpuClusters: j([{ name: "gpu-a", context: "c" }]),
  });
  expect(keys(raw)).toEqual([
    "nvcf:charts.path",
    "nvcf:releaseValues.casandra",
    "nvcf:images.repository",
    "nvcf:cassandraPassword",
    "nvcf:accounts.limits.maxTasks",
    "nvcf:gateway.controllerNamespace",
    "nvcf:stateMetrics.enabled",
    "nvcf:addons.llm.requestRouterAddress",
    "nvcf:openbao.issuerDiscovery",
    "nvcf:gateway.routes.nats",
  ]);
});

test("compute plane: charts, releaseValues, observability, registry key, then the cluster's own keys", () => {
  const raw = baseCompute({
    charts: j({ source: "https", url: "http://x" }),
    releaseValues: j({ "kai-scheduler": { scheduler: {} } }),
    observability: j({ components: { otelOperator: "disabled" } }),
    registryKey: "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL",
    addons: j({ topologyAwareScheduling: { enabled: true } }),
    inotify: j({ maxUserInstances: 128 }),
  });
  expect(keys(raw)).toEqual([
    "nvcf:charts.url",
    "nvcf:releaseValues.kai-scheduler",
    "nvcf:observability.components.otelOperator",
    "nvcf:registryKey",
    "nvcf:addons.topologyAwareScheduling.enabled",
    "nvcf:inotify.maxUserInstances",
  ]);
  expect(problemsOf(raw)[0]).toEqual({
    key: "nvcf:charts.url",
    expected: "an https:// Helm repository URL when charts.source is https",
    found: '"http://x"',
    fix: "pulumi config set --path nvcf:charts.url https://helm.ngc.nvidia.com/<org>/<team>",
  });
});

test("a valid config of either plane has no problem", () => {
  expect(keys(baseControl())).toEqual([]);
  expect(keys(baseCompute())).toEqual([]);
});
