/**
 * config/rules/charts.ts: the chart-source rules (`nvcf:charts`), through `validateConfig` and through
 * `chartSourceRules` itself for the mirrors.
 */
import { chartsOfMirror } from "../../../../catalog/sources";
import { chartSourceRules } from "../../../../config/rules/charts";
import { controlPlaneSchema } from "../../../../config/schema";
import { baseControl } from "../../fixtures/configs";
import { j, problemsOf, ruleCases } from "../../support/rules";

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "local charts need a path",
      { charts: j({ source: "local" }) },
      "nvcf:charts.path",
      { charts: j({ source: "local", path: "tests/charts" }) },
    ],
    [
      "https charts need an https URL",
      { charts: j({ source: "https", url: "http://x" }) },
      "nvcf:charts.url",
      { charts: j({ source: "https", url: "https://helm.example.com/nvcf" }) },
    ],
    [
      "OCI repository placeholder",
      { charts: j({ source: "oci" }) },
      "nvcf:charts.repository",
      { charts: j({ source: "oci", repository: "a/b" }) },
    ],
    [
      "version override of an unknown release",
      { charts: j({ source: "oci", repository: "a/b", versionOverrides: { casandra: "1" } }) },
      "nvcf:charts.versionOverrides.casandra",
      { charts: j({ source: "oci", repository: "a/b", versionOverrides: { cassandra: "0.20.2" } }) },
    ],
  ]);
});

/** The validated `charts` of a control-plane config with `charts` set to `value`. */
const chartsOf = (value: object) =>
  controlPlaneSchema.parse({ plane: "control", ...JSON.parse(j({ charts: value })) }).charts;

describe("the problems say what was expected, what was found and the fix", () => {
  test("local charts without a directory", () => {
    expect(problemsOf(baseControl({ charts: j({ source: "local" }) }))).toEqual([
      {
        key: "nvcf:charts.path",
        expected: "a directory of charts when charts.source is local",
        found: "nothing",
        fix: "pulumi config set --path nvcf:charts.path <dir>",
      },
    ]);
  });

  test("a registry URL given as charts.path", () => {
    expect(
      problemsOf(baseControl({ charts: j({ source: "local", path: "oci://registry.example.com/charts" }) })),
    ).toEqual([
      {
        key: "nvcf:charts.path",
        expected:
          "a directory (absolute, or relative to the project); registries go in charts.source/registry/url or charts.mirrors",
        found: '"oci://registry.example.com/charts"',
        fix: "pulumi config set --path nvcf:charts.path <absolute dir, or dir relative to the project>",
      },
    ]);
  });

  test("a version override of a release the bundle does not ship", () => {
    expect(
      problemsOf(
        baseControl({
          bundleVersion: "0.7.0",
          charts: j({ source: "oci", repository: "a/b", versionOverrides: { "nvcf-pki": "1.0.0" } }),
        }),
      ),
    ).toEqual([
      {
        key: "nvcf:charts.versionOverrides.nvcf-pki",
        expected: "a release that NVCF bundle 0.7.0 ships",
        found: '"nvcf-pki"',
        fix: "remove the override, or choose a bundleVersion that includes nvcf-pki",
      },
    ]);
  });
});

describe("mirrors", () => {
  test("a mirror for charts the plane never installs is refused on that plane only", () => {
    const charts = chartsOf({
      source: "oci",
      repository: "a/b",
      mirrors: { kaiScheduler: { location: "oci://m.example.com/kai" } },
    });
    expect(chartSourceRules(charts, "control", "0.8.0")).toEqual([
      {
        key: "nvcf:charts.mirrors.kaiScheduler",
        expected: `a mirror for charts the control plane installs (kaiScheduler serves ${chartsOfMirror("kaiScheduler").join(", ")})`,
        found: '"oci://m.example.com/kai"',
        fix: "pulumi config rm --path nvcf:charts.mirrors.kaiScheduler (set it on the stack of the other plane)",
      },
    ]);
    expect(chartSourceRules(charts, "compute", "0.8.0")).toEqual([]);
  });

  test("Envoy Gateway's chart counts as a control-plane chart", () => {
    const charts = chartsOf({
      source: "oci",
      repository: "a/b",
      mirrors: { envoyGateway: { location: "oci://m.example.com/eg" } },
    });
    expect(chartSourceRules(charts, "control", "0.8.0")).toEqual([]);
  });

  test("credentials: charts on a directory, and without charts.username", () => {
    const onDir = chartsOf({
      source: "oci",
      repository: "a/b",
      mirrors: { envoyGateway: { location: "/srv/charts", credentials: "charts" } },
    });
    expect(chartSourceRules(onDir, "control", "0.8.0")).toEqual([
      {
        key: "nvcf:charts.mirrors.envoyGateway.credentials",
        expected: "credentials only for oci:// or https:// locations (a directory needs none)",
        found: '"charts"',
        fix: "pulumi config set --path nvcf:charts.mirrors.envoyGateway.credentials none",
      },
    ]);
    const noUser = chartsOf({
      source: "oci",
      repository: "a/b",
      mirrors: { envoyGateway: { location: "oci://m.example.com/eg", credentials: "charts" } },
    });
    expect(chartSourceRules(noUser, "control", "0.8.0").map((p) => [p.key, p.found])).toEqual([
      ["nvcf:charts.mirrors.envoyGateway.credentials", "no charts.username"],
    ]);
  });
});
