/**
 * `nvcf:maintenance` of a compute stack (config/maintenance.ts): the values it takes, what it refuses with the
 * reason, and the refusal of an AccountIsolation toggle that does not drain the cluster (NVIDIA/nvcf
 * `docs/user/cluster-management/configuration.md` "Cluster Maintenance Modes", "Account-Isolated Clusters").
 */
import { validateConfig } from "../../../config/load";
import { accountIsolationChangeProblems, maintenanceRecord } from "../../../config/maintenance";
import { ConfigError } from "../../../config/problems";
import { type ComputePlaneConfig, SECRET_KEYS } from "../../../config/schema";
import { baseCompute } from "../fixtures/configs";

const SECRET: ReadonlySet<string> = new Set(SECRET_KEYS);
const j = (v: unknown) => JSON.stringify(v);

/** The problems of a raw compute config, as `key: expected | found | fix` lines. */
function problems(raw: Record<string, string>): string[] {
  try {
    validateConfig(raw, SECRET, "prod");
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.problems.map((p) => `${p.key}: ${p.expected} | ${p.found} | ${p.fix}`);
  }
}

const config = (over: Record<string, string> = {}) =>
  validateConfig(baseCompute(over), SECRET, "prod") as ComputePlaneConfig;

describe("nvcf:maintenance", () => {
  test("default off; off, cordon and drain are accepted", () => {
    expect(config().maintenance).toBe("off");
    for (const m of ["off", "cordon", "drain"]) {
      expect(problems(baseCompute({ maintenance: m }))).toEqual([]);
      expect(config({ maintenance: m }).maintenance).toBe(m);
    }
  });

  test("another value is refused, naming the key and the allowed values", () => {
    expect(problems(baseCompute({ maintenance: "on" }))).toEqual([
      'nvcf:maintenance: one of "off", "cordon", "drain" | "on" | pulumi config set nvcf:maintenance <off|cordon|drain>',
    ]);
    // NVIDIA's names are not the key's values.
    expect(problems(baseCompute({ maintenance: "CordonAndDrain" }))).toHaveLength(1);
  });

  test("a maintenance flag among the feature gates is refused: nvcf:maintenance is the one place", () => {
    expect(
      problems(
        baseCompute({
          nvcaOperator: j({
            featureGates: ["LogPosting", "CordonAndDrainMaintenance", "-CordonMaintenance"],
          }),
        }),
      ),
    ).toEqual([
      'nvcf:nvcaOperator.featureGates[1]: no maintenance flag: nvcf:maintenance sets CordonMaintenance or CordonAndDrainMaintenance | "CordonAndDrainMaintenance" | remove it, and pulumi config set nvcf:maintenance drain (or off)',
      'nvcf:nvcaOperator.featureGates[2]: no maintenance flag: nvcf:maintenance sets CordonMaintenance or CordonAndDrainMaintenance | "-CordonMaintenance" | remove it, and pulumi config set nvcf:maintenance cordon (or off)',
    ]);
  });

  test("agent.maintenanceMode in the operator's merge config is refused (NVCA would not start on a mismatch)", () => {
    const merge = (text: string) =>
      baseCompute({ releaseValues: j({ "nvca-operator": { agentConfig: { mergeConfig: text } } }) });
    expect(problems(merge("agent:\n  maintenanceMode: CordonAndDrain\n"))).toEqual([
      'nvcf:releaseValues.nvca-operator.agentConfig.mergeConfig: no agent.maintenanceMode: NVCA derives it from the flag nvcf:maintenance sets | agent.maintenanceMode "CordonAndDrain" | remove agent.maintenanceMode from the merge config, and set nvcf:maintenance (off, cordon or drain)',
    ]);
    expect(problems(merge("agent:\n  logLevel: debug\n"))).toEqual([]);
  });
});

describe("AccountIsolation toggles only while the cluster drains", () => {
  const isolated = (on: boolean, maintenance = "off") =>
    config({
      maintenance,
      releaseValues: j({
        "nvca-operator": { selfManaged: { clusterAttributes: on ? ["AccountIsolation"] : [] } },
      }),
    });
  const deployed = (accountIsolation: boolean) => ({ mode: "off", accountIsolation });

  test("the record holds the mode and the attribute", () => {
    expect(maintenanceRecord(isolated(true, "cordon"))).toEqual({ mode: "cordon", accountIsolation: true });
    expect(maintenanceRecord(config())).toEqual({ mode: "off", accountIsolation: false });
  });

  test("added or removed without drain: refused with the reason and the fix", () => {
    const p = accountIsolationChangeProblems(isolated(true), deployed(false));
    expect(p).toEqual([
      {
        key: "nvcf:releaseValues.nvca-operator.selfManaged.clusterAttributes",
        expected:
          "AccountIsolation added or removed only while nvcf:maintenance is drain (NVIDIA: the attribute does not apply to running workloads, so the cluster is drained while it changes)",
        found: "AccountIsolation added with nvcf:maintenance off",
        fix: "pulumi config set nvcf:maintenance drain in the same update; once its workloads are gone, set it back to off and pulumi up again",
      },
    ]);
    expect(accountIsolationChangeProblems(isolated(false, "cordon"), deployed(true))[0].found).toBe(
      "AccountIsolation removed with nvcf:maintenance cordon",
    );
  });

  test("with drain, unchanged, or with nothing deployed to compare with: let through", () => {
    expect(accountIsolationChangeProblems(isolated(true, "drain"), deployed(false))).toEqual([]);
    expect(accountIsolationChangeProblems(isolated(false, "drain"), deployed(true))).toEqual([]);
    expect(accountIsolationChangeProblems(isolated(true), deployed(true))).toEqual([]);
    expect(accountIsolationChangeProblems(isolated(true), undefined)).toEqual([]);
    expect(accountIsolationChangeProblems(isolated(true), { some: "other" })).toEqual([]);
  });
});
