/**
 * config/rules/releaseValues.ts: which releases an `nvcf:releaseValues` override may name and which top-level
 * keys it may set, through `validateConfig`.
 *
 * Facts behind the expectations: NVIDIA's charts with a values key read nothing else (e.g.
 * `deploy/helm/cloud-functions/nvcf-api/values.yaml` has the single top-level key `api:`,
 * `deploy/helm/cassandra/helm/values.yaml` only `cassandra:`); `deploy/helm/openbao/helm/Chart.yaml` depends on
 * the upstream openbao chart, which reads Helm's `global`; `deploy/helm/nats-auth-callout/values.yaml` is flat.
 * Bundle 0.7.0 has no nvcf-pki release; the nvcf-ui add-on is off unless `addons.nvcfUi.enabled`.
 */
import { baseCompute, baseControl } from "../../fixtures/configs";
import { j, keys, problemAt, ruleCases } from "../../support/rules";

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "release values for an unknown release",
      { releaseValues: j({ casandra: { a: 1 } }) },
      "nvcf:releaseValues.casandra",
      { releaseValues: j({ cassandra: { cassandra: { a: 1 } } }) },
    ],
  ]);
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

test("an override of a compute add-on that is off", () => {
  expect(
    problemAt(
      baseCompute({ releaseValues: j({ "kai-scheduler": { scheduler: {} } }) }),
      "nvcf:releaseValues.kai-scheduler",
    ),
  ).toEqual({
    key: "nvcf:releaseValues.kai-scheduler",
    expected: "an override for a release this stack installs",
    found: '"kai-scheduler", which is off in this config (nvcf:addons.kaiScheduler.enabled)',
    fix: "pulumi config rm --path nvcf:releaseValues.kai-scheduler, or turn the release on (nvcf:addons.kaiScheduler.enabled)",
  });
});
