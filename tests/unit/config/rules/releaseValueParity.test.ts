/**
 * config/rules/releaseValueParity.ts: the rules of first-class keys held through `nvcf:releaseValues`, and the
 * overrides that must be secret, through `validateConfig`.
 *
 * Facts behind the expectations: the Cassandra chart's built-in service-role password is `ch@ng3m3`
 * (`deploy/helm/cassandra/helm/values.yaml`); the OpenBao migrations read it as env DEFAULT_CASSANDRA_PASSWORD
 * (secrets template), next to NVCF_API_SIDECARS_IMAGE_PULL_SECRET and ADMIN_CLIENT_ID.
 */
import { releaseValueSecretPaths } from "../../../../config/rules/releaseValueParity";
import { baseCompute, baseControl } from "../../fixtures/configs";
import { SECRET, SECRET_RV, configError, j, keys, problemAt } from "../../support/rules";

const DEFAULT_PW = "ch@ng3m3";

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

test("an ADMIN_CLIENT_ID other than ncp, and a Grove node selector in bundle 0.7.0, word for word", () => {
  const env = [
    { name: "DEFAULT_CASSANDRA_PASSWORD", value: "a-long-password-1" },
    { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: "x" },
    { name: "ADMIN_CLIENT_ID", value: "admin" },
  ];
  const raw = baseControl({
    cassandraPassword: "a-long-password-1",
    releaseValues: j({ "openbao-server": { openbao: { migrations: { env } } } }),
  });
  expect(problemAt(raw, "nvcf:releaseValues.openbao-server.openbao.migrations.env[2].value")).toEqual({
    key: "nvcf:releaseValues.openbao-server.openbao.migrations.env[2].value",
    expected: '"ncp" (the admin client the NVCF services trust)',
    found: '"admin"',
    fix: "pulumi config rm --path nvcf:releaseValues.openbao-server.openbao.migrations.env",
  });
  const grove = baseCompute({
    bundleVersion: "0.7.0",
    addons: j({ groveOperator: { enabled: true } }),
    releaseValues: j({ "grove-operator": { nodeSelector: { pool: "gpu" } } }),
  });
  expect(problemAt(grove, "nvcf:releaseValues.grove-operator.nodeSelector")).toEqual({
    key: "nvcf:releaseValues.grove-operator.nodeSelector",
    expected: "unset in bundle 0.7.0 (grove-charts v0.1.0-alpha.9 has no nodeSelector value)",
    found: '{"pool":"gpu"}',
    fix: "remove it, or set nvcf:bundleVersion 0.8.0",
  });
});

test("the credential paths of releaseValues", () => {
  expect(
    releaseValueSecretPaths({
      cassandra: { cassandra: { serviceRolePassword: "p" } },
      "openbao-server": {
        openbao: {
          migrations: {
            env: [
              { name: "ADMIN_CLIENT_ID", value: "ncp" },
              { name: "DEFAULT_CASSANDRA_PASSWORD", value: "p" },
              { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: "s" },
            ],
          },
        },
      },
    }),
  ).toEqual([
    "releaseValues.cassandra.cassandra.serviceRolePassword",
    "releaseValues.openbao-server.openbao.migrations.env[1].value",
    "releaseValues.openbao-server.openbao.migrations.env[2].value",
  ]);
  expect(releaseValueSecretPaths({ api: { api: {} } })).toEqual([]);
});
