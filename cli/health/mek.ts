/**
 * The MEK rotation's grace in `nvcf status`: ESS keeps encrypting with the previous Master Encryption Key for
 * 48 hours after a rotation (NVIDIA `src/control-plane-services/encrypted-secret-store/ess-encryption/README.md`
 * "Grace period after MEK rotation", `encryption.mekRotationGracePeriod: 48h`; docs/upstream-facts.md "MEK
 * rotation"). The record the rotation writes (components/mekRotation.ts, ConfigMap vault-system/nvcf-mek-rotation:
 * generation, kid, rotated_at, backup; no key material) says when it happened.
 */
import { fail, pass } from "../findings";
import type { Finding } from "../types";

/** ESS's grace after a rotation, in milliseconds. */
export const MEK_GRACE_MS = 48 * 3600 * 1000;

/** The check's id. */
export const MEK_GRACE_CHECK = "openbao.mek-grace";

/**
 * The grace finding of one control-plane stack (pure). Input: the stack, the record ConfigMap's `data` (undefined:
 * no rotation recorded) and the time now (ms). Output: one finding: a warning while the last rotation is inside
 * its 48 h (when ESS starts encrypting with the new key, and until when restoring the backup is safe), a pass
 * otherwise (no rotation, a rotation still pending, or one past its grace).
 */
export function checkMekGrace(
  stack: string,
  record: Record<string, string> | undefined,
  now: number,
): Finding {
  const object = "ConfigMap vault-system/nvcf-mek-rotation";
  const gen = record?.["generation"];
  const at = Date.parse(record?.["rotated_at"] ?? "");
  if (!gen || Number.isNaN(at)) return pass(MEK_GRACE_CHECK, stack, object, "no MEK rotation recorded");
  const until = new Date(at + MEK_GRACE_MS).toISOString().replace(/\.\d+Z$/, "Z");
  const kid = record?.["kid"] ?? "?";
  if (now >= at + MEK_GRACE_MS)
    return pass(
      MEK_GRACE_CHECK,
      stack,
      object,
      `MEK generation ${gen} (kid ${kid}) is the key ESS encrypts with since ${until}`,
    );
  const hours = Math.ceil((at + MEK_GRACE_MS - now) / 3600000);
  const backup = record?.["backup"] || `nvcf-mek-backup-${gen}`;
  return fail(
    MEK_GRACE_CHECK,
    stack,
    object,
    `MEK generation ${gen} (kid ${kid}) was rotated at ${record?.["rotated_at"]}; ESS encrypts with it from ${until} (in about ${hours} h), with the previous key until then`,
    "nothing: the grace lets every ESS pod load the new key before it is used",
    `to undo the rotation, restore secret vault-system/${backup} before ${until} (docs/operations.md "MEK rotation"); after that, keep the new key`,
    "warning",
  );
}
