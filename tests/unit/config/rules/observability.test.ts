/**
 * config/rules/observability.ts: the observability stack's mode rules on both planes, the control plane's
 * services that read metrics, and a GPU cluster's install where the bundle ships no stack, through
 * `validateConfig`.
 */
import { baseCompute, baseControl } from "../../fixtures/configs";
import { j, problemTexts, problemsOf, ruleCases } from "../../support/rules";

const problems = problemTexts;

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "observability: collector needs the OTel operator (docs/upstream-facts.md §1.5)",
      { observability: j({ components: { otelOperator: "disabled" } }) },
      "nvcf:observability.components.otelOperator",
      { observability: j({ components: { otelOperator: "existing" } }) },
    ],
    [
      "observability: target allocator needs the collector",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "install", discoveryRbac: "existing" },
        }),
      },
      "nvcf:observability.components.targetAllocator",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "existing", discoveryRbac: "existing" },
        }),
      },
    ],
    [
      "observability: an existing target allocator needs an existing collector (NVIDIA's helmfile fails the render)",
      { observability: j({ components: { targetAllocator: "existing" } }) },
      "nvcf:observability.components.targetAllocator",
      { observability: j({ components: { targetAllocator: "disabled", discoveryRbac: "disabled" } }) },
    ],
    [
      "observability: discovery RBAC is installed only with a stack-owned collector",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "existing", discoveryRbac: "install" },
        }),
      },
      "nvcf:observability.components.discoveryRbac",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "existing", discoveryRbac: "existing" },
        }),
      },
    ],
    [
      "observability: target allocator needs discovery RBAC",
      { observability: j({ components: { discoveryRbac: "disabled" } }) },
      "nvcf:observability.components.discoveryRbac",
      { observability: j({ components: { discoveryRbac: "existing" } }) },
    ],
    [
      "observability: CRDs needed when enabled",
      { observability: j({ components: { prometheusOperatorCrds: "disabled" } }) },
      "nvcf:observability.components.prometheusOperatorCrds",
      { observability: j({ profile: "disabled", components: { prometheusOperatorCrds: "disabled" } }) },
    ],
    [
      "observability: control profile needs a metrics backend",
      {
        observability: j({
          components: { collector: "existing", targetAllocator: "disabled", discoveryRbac: "disabled" },
          metricsBackend: { mode: "disabled" },
        }),
      },
      "nvcf:observability.metricsBackend.mode",
      {
        observability: j({
          profile: "compute",
          components: { collector: "existing", targetAllocator: "disabled", discoveryRbac: "disabled" },
          metricsBackend: { mode: "disabled" },
        }),
      },
    ],
    [
      "observability: control profile needs state metrics",
      { stateMetrics: j({ enabled: false }) },
      "nvcf:stateMetrics.enabled",
      { stateMetrics: j({ enabled: false }), observability: j({ profile: "compute" }) },
    ],
    [
      "observability: installed backend is VictoriaMetrics",
      { observability: j({ metricsBackend: { type: "external" } }) },
      "nvcf:observability.metricsBackend.type",
      { observability: j({ metricsBackend: { type: "victoriaMetrics" } }) },
    ],
    [
      "observability: installed backend has no auth",
      { observability: j({ metricsBackend: { auth: { mode: "token", authnEndpoint: "https://a" } } }) },
      "nvcf:observability.metricsBackend.auth.mode",
      { observability: j({ metricsBackend: { auth: { mode: "none" } } }) },
    ],
    [
      "observability: existing backend needs a remote-write URL",
      {
        observability: j({
          metricsBackend: { mode: "existing", type: "external", promqlEndpoint: "https://q" },
        }),
      },
      "nvcf:observability.metricsBackend.remoteWriteEndpoint",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
          },
        }),
      },
    ],
    [
      "observability: existing backend needs PromQL for control",
      {
        observability: j({
          metricsBackend: { mode: "existing", type: "external", remoteWriteEndpoint: "https://w" },
        }),
      },
      "nvcf:observability.metricsBackend.promqlEndpoint",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
          },
        }),
      },
    ],
    [
      "observability: mtls needs cert and key",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
            auth: { mode: "mtls", certPath: "/c" },
          },
        }),
      },
      "nvcf:observability.metricsBackend.auth.keyPath",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            promqlEndpoint: "https://q",
            remoteWriteEndpoint: "https://w",
            auth: { mode: "mtls", certPath: "/c", keyPath: "/k" },
          },
        }),
      },
    ],
  ]);
});

describe("compute plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseCompute, [
    [
      "GPU-cluster observability: the collector needs an operator (the control plane's mode rules)",
      { observability: j({ components: { otelOperator: "disabled" } }) },
      "nvcf:observability.components.otelOperator",
      { observability: j({ components: { otelOperator: "existing" } }) },
    ],
    [
      "GPU-cluster observability: the mode rules apply only where the stack installs it",
      { observability: j({ profile: "all", components: { prometheusOperatorCrds: "disabled" } }) },
      "nvcf:observability.components.prometheusOperatorCrds",
      { observability: j({ profile: "control", components: { prometheusOperatorCrds: "disabled" } }) },
    ],
    [
      "GPU-cluster observability: an existing backend needs its remote-write URL",
      { observability: j({ metricsBackend: { mode: "existing", type: "external" } }) },
      "nvcf:observability.metricsBackend.remoteWriteEndpoint",
      {
        observability: j({
          metricsBackend: {
            mode: "existing",
            type: "external",
            remoteWriteEndpoint: "https://metrics.example.com/write",
          },
        }),
      },
    ],
    [
      "GPU-cluster observability: bundle 0.6.1 ships no observability stack to install",
      { bundleVersion: "0.6.1", observability: j({ install: true }) },
      "nvcf:observability.install",
      { bundleVersion: "0.6.1", observability: j({ install: false }) },
    ],
  ]);
});

test("the GPU-cluster observability problems say what was expected, what was found and the fix", () => {
  expect(problems(baseCompute({ bundleVersion: "0.6.1", observability: j({ install: true }) }))).toEqual([
    {
      key: "nvcf:observability.install",
      text:
        "unset or false: NVCF bundle 0.6.1 ships no observability stack (docs/v0.6.1/manifest.md lists none of its charts) | true | " +
        "pulumi config rm --path nvcf:observability.install (NVCA's collector and gate still follow nvcf:observability.profile), or set nvcf:bundleVersion to 0.7.0 or 0.8.0",
    },
  ]);
  expect(
    problems(baseCompute({ observability: j({ components: { targetAllocator: "existing" } }) })),
  ).toEqual([
    {
      key: "nvcf:observability.components.targetAllocator",
      text:
        'install or disabled when the stack installs the collector (existing needs an existing collector) | "existing" | ' +
        "set components.targetAllocator to install or disabled, or components.collector to existing",
    },
  ]);
});

test("the control plane's function autoscaler needs state metrics", () => {
  expect(problemsOf(baseControl({ stateMetrics: j({ enabled: false }) }))).toEqual([
    {
      key: "nvcf:stateMetrics.enabled",
      expected: "true when observability.profile is control (the function autoscaler reads it)",
      found: "false",
      fix: "pulumi config set --path nvcf:stateMetrics.enabled true, or set observability.profile to disabled/compute",
    },
  ]);
});
