/**
 * `nvcf:openbao.mekGeneration` (config/mek.ts): accepted values, the refusals against the deployed generation
 * (a lower one: the program never removes keys, NVIDIA's MEK runbook keeps every old key for ESS) and with OpenBao
 * off, the program's log line and the exported value.
 */
import { validateConfig } from "../../../config/load";
import { mekGenerationOutput, mekGenerationProblems, mekRotationLine } from "../../../config/mek";
import { ConfigError, formatProblem } from "../../../config/problems";
import { type ControlPlaneConfig, SECRET_KEYS } from "../../../config/schema";
import { baseControl } from "../fixtures/configs";

const SECRET: ReadonlySet<string> = new Set(SECRET_KEYS);
const config = (openbao: Record<string, unknown>) =>
  validateConfig(baseControl({ openbao: JSON.stringify(openbao) }), SECRET, "prod") as ControlPlaneConfig;

describe("nvcf:openbao.mekGeneration", () => {
  test("unset by default; positive integers accepted", () => {
    expect(config({}).openbao.mekGeneration).toBeUndefined();
    expect(config({ mekGeneration: 3 }).openbao.mekGeneration).toBe(3);
  });

  test("zero, negatives and fractions are refused at the key", () => {
    for (const v of [0, -1, 1.5, "2"]) {
      const e = (() => {
        try {
          config({ mekGeneration: v });
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.map((p) => p.key)).toEqual(["nvcf:openbao.mekGeneration"]);
    }
  });

  test("a lower generation than deployed is refused, word for word", () => {
    expect(mekGenerationProblems(config({ mekGeneration: 1 }), 2).map(formatProblem)).toEqual([
      'nvcf:openbao.mekGeneration: expected 2 or higher: generation 2 is deployed and the program never removes keys or goes back to an older key set (ESS needs every old MEK), found 1. Fix: pulumi config set --path nvcf:openbao.mekGeneration 2 (or 3 to rotate again); to go back to the key set before a rotation, restore its backup by hand within 48 h (docs/operations.md "MEK rotation")',
    ]);
  });

  test("the same or a higher generation, unset, or nothing deployed: no problem", () => {
    expect(mekGenerationProblems(config({ mekGeneration: 2 }), 2)).toEqual([]);
    expect(mekGenerationProblems(config({ mekGeneration: 3 }), 2)).toEqual([]);
    expect(mekGenerationProblems(config({}), 2)).toEqual([]);
    expect(mekGenerationProblems(config({ mekGeneration: 1 }), undefined)).toEqual([]);
    expect(mekGenerationProblems(config({ mekGeneration: 1 }), "garbage")).toEqual([]);
  });

  test("set with OpenBao off is refused", () => {
    expect(
      mekGenerationProblems(config({ enabled: false, mekGeneration: 1 }), undefined).map(formatProblem),
    ).toEqual([
      "nvcf:openbao.mekGeneration: expected unset while nvcf:openbao.enabled is false (the MEK lives in OpenBao), found 1. Fix: pulumi config rm nvcf:openbao.mekGeneration, or enable OpenBao",
    ]);
  });

  test("the log line names the move; none when nothing rotates", () => {
    expect(mekRotationLine(config({ mekGeneration: 2 }), 1)).toBe(
      "MEK rotation: generation 1 → 2 (a new key first in OpenBao's stored_data, every old key kept; ESS encrypts with it 48 h after the rotation)",
    );
    expect(mekRotationLine(config({ mekGeneration: 1 }), undefined)).toMatch(
      /^MEK rotation: generation none → 1 /,
    );
    expect(mekRotationLine(config({ mekGeneration: 2 }), 2)).toBeUndefined();
    expect(mekRotationLine(config({}), 2)).toBeUndefined();
  });

  test("the exported generation: the configured one, else the deployed one", () => {
    expect(mekGenerationOutput(config({ mekGeneration: 2 }), 1)).toBe(2);
    expect(mekGenerationOutput(config({}), 2)).toBe(2);
    expect(mekGenerationOutput(config({}), undefined)).toBeUndefined();
  });
});
