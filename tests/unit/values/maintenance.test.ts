/**
 * `nvcf:maintenance` in the operator's values (values/compute.ts `featureGates`) and in a rendered compute
 * stack: the mode changes helm-nvca-operator's `selfManaged.featureGateValues` and nothing else, and an
 * AccountIsolation toggle without drain stops the stack before any release (config/maintenance.ts).
 */
import * as path from "node:path";
import { validateConfig } from "../../../config/load";
import { MAINTENANCE_OUTPUT } from "../../../config/maintenance";
import { type ComputePlaneConfig, SECRET_KEYS } from "../../../config/schema";
import { computeValues, featureGates } from "../../../values/compute";
import { baseCompute, computeInputsFixture } from "../fixtures/configs";
import { type RenderResult, mockGateway, render } from "../support/harness";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");
const GATEWAYS_FOR_TESTS = { "envoy-gateway/nvcf-gateway": mockGateway() };

const compute = (maintenance: string) =>
  validateConfig(baseCompute({ maintenance }), new Set(SECRET_KEYS), "prod") as ComputePlaneConfig;
const gates = (maintenance: string) =>
  (
    computeValues("nvca-operator", compute(maintenance), computeInputsFixture()) as {
      selfManaged: { featureGateValues: string[] };
    }
  ).selfManaged.featureGateValues;

describe("the operator's feature gates per mode", () => {
  test("off: no maintenance flag; cordon: CordonMaintenance; drain: CordonAndDrainMaintenance, last", () => {
    const off = gates("off");
    expect(off).not.toContain("CordonMaintenance");
    expect(off).not.toContain("CordonAndDrainMaintenance");
    expect(gates("cordon")).toEqual([...off, "CordonMaintenance"]);
    expect(gates("drain")).toEqual([...off, "CordonAndDrainMaintenance"]);
    expect(featureGates(compute("drain"))).toEqual(gates("drain"));
  });
});

describe("a rendered compute stack", () => {
  let cpOutputs: Record<string, unknown>;
  const renders: Record<string, RenderResult> = {};
  const gpuA = (over: Record<string, unknown> = {}, previousOutputs?: Record<string, unknown>) =>
    render({ stack: "dev-gpu-a", controlPlaneOutputs: cpOutputs, overrides: over, previousOutputs });
  beforeAll(async () => {
    cpOutputs = (await render({ stack: "dev", gateways: GATEWAYS_FOR_TESTS })).outputs;
    for (const m of ["off", "drain"]) renders[m] = await gpuA({ maintenance: m });
  }, 120_000);

  test("changing the mode changes the operator release's values only", () => {
    const byName = (r: RenderResult) =>
      new Map(r.resources.map((x) => [`${x.type}::${x.name}`, JSON.stringify(x.inputs)]));
    const off = byName(renders["off"]);
    const drain = byName(renders["drain"]);
    expect(renders["off"].error).toBeUndefined();
    expect(renders["drain"].error).toBeUndefined();
    expect([...drain.keys()].sort()).toEqual([...off.keys()].sort());
    const changed = [...off.keys()].filter((n) => off.get(n) !== drain.get(n));
    expect(changed).toEqual(["kubernetes:helm.sh/v3:Release::nvcf-nvca-operator"]);
    const release = renders["drain"].resources.find(
      (x) => x.type === "kubernetes:helm.sh/v3:Release" && x.name === "nvcf-nvca-operator",
    )!;
    const values = release.inputs["values"] as { selfManaged: { featureGateValues: string[] } };
    expect(values.selfManaged.featureGateValues.at(-1)).toBe("CordonAndDrainMaintenance");
    expect(renders["off"].outputs[MAINTENANCE_OUTPUT]).toEqual({ mode: "off", accountIsolation: false });
    expect(renders["drain"].outputs[MAINTENANCE_OUTPUT]).toEqual({ mode: "drain", accountIsolation: false });
  });

  test("AccountIsolation added without drain: refused before any release; with drain: rendered", async () => {
    const attrs = {
      releaseValues: { "nvca-operator": { selfManaged: { clusterAttributes: ["AccountIsolation"] } } },
    };
    const deployed = { [MAINTENANCE_OUTPUT]: { mode: "off", accountIsolation: false } };
    const refused = await gpuA(attrs, deployed);
    expect(refused.error?.name).toBe("ConfigError");
    expect(refused.error?.message).toContain(
      "nvcf:releaseValues.nvca-operator.selfManaged.clusterAttributes: expected AccountIsolation added or removed only while nvcf:maintenance is drain",
    );
    expect(refused.resources.some((x) => x.name === "nvcf-nvca-operator")).toBe(false);
    const drained = await gpuA({ ...attrs, maintenance: "drain" }, deployed);
    expect(drained.error).toBeUndefined();
    expect(drained.outputs[MAINTENANCE_OUTPUT]).toEqual({ mode: "drain", accountIsolation: true });
  }, 120_000);
});
