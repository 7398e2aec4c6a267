/**
 * `nvcf:openbao.mekGeneration` judged against what the stack deployed (its previous output `mekGeneration`): the
 * refusals and the program's log line. The rotation itself is components/mekRotation.ts; docs/operations.md
 * "MEK rotation" says what it does.
 *
 * A generation only goes up: the program never removes keys or goes back to an older key set, since ESS needs
 * every old MEK to decrypt the namespace keys wrapped with it (NVIDIA `docs/user/runbooks/
 * control-plane-key-rotation-mek.md`); going back is the manual restore of a backup, inside ESS's 48 h grace.
 */
import { type Problem, describe } from "./problems";
import type { ControlPlaneConfig } from "./schema";

/** Stack output: the MEK generation in place once the rotation Command finished (absent: never rotated). */
export const MEK_OUTPUT = "mekGeneration";

const KEY = "nvcf:openbao.mekGeneration";

/** The deployed generation from the previous output's value; undefined for anything but a positive integer. */
export function deployedMekGeneration(previous: unknown): number | undefined {
  return typeof previous === "number" && Number.isInteger(previous) && previous > 0 ? previous : undefined;
}

/**
 * Problems of `nvcf:openbao.mekGeneration` (pure). Input: the config and the previous value of `MEK_OUTPUT`.
 * Output: a problem when it is set while OpenBao is off (nothing to rotate), and when it is lower than the
 * deployed generation (the program cannot take a rotation back). Unset after a rotation is no problem: nothing
 * rotates, and the stack keeps exporting the deployed generation (`mekGenerationOutput`).
 */
export function mekGenerationProblems(cfg: ControlPlaneConfig, previous: unknown): Problem[] {
  const now = cfg.openbao.mekGeneration;
  const was = deployedMekGeneration(previous);
  const out: Problem[] = [];
  if (now !== undefined && !cfg.openbao.enabled)
    out.push({
      key: KEY,
      expected: "unset while nvcf:openbao.enabled is false (the MEK lives in OpenBao)",
      found: describe(now),
      fix: "pulumi config rm nvcf:openbao.mekGeneration, or enable OpenBao",
    });
  if (was !== undefined && now !== undefined && now < was)
    out.push({
      key: KEY,
      expected: `${was} or higher: generation ${was} is deployed and the program never removes keys or goes back to an older key set (ESS needs every old MEK)`,
      found: describe(now),
      fix: `pulumi config set --path nvcf:openbao.mekGeneration ${was} (or ${was + 1} to rotate again); to go back to the key set before a rotation, restore its backup by hand within 48 h (docs/operations.md "MEK rotation")`,
    });
  return out;
}

/**
 * The program's log line for a rotation this run makes: `MEK rotation: generation 1 → 2` (`none → 1` for the
 * first), undefined when the generation does not go up. Pure.
 */
export function mekRotationLine(cfg: ControlPlaneConfig, previous: unknown): string | undefined {
  const now = cfg.openbao.mekGeneration;
  const was = deployedMekGeneration(previous);
  if (now === undefined || (was !== undefined && now <= was)) return undefined;
  return `MEK rotation: generation ${was ?? "none"} → ${now} (a new key first in OpenBao's stored_data, every old key kept; ESS encrypts with it 48 h after the rotation)`;
}

/**
 * The value of `MEK_OUTPUT` this run exports (before the rotation finishes, the engine keeps the previous one):
 * the configured generation, else the deployed one (so a later lower value is still refused), else none.
 */
export function mekGenerationOutput(cfg: ControlPlaneConfig, previous: unknown): number | undefined {
  return cfg.openbao.mekGeneration ?? deployedMekGeneration(previous);
}
