/**
 * `openbao.mek-grace` of `nvcf status` (cli/health/mek.ts): from the rotation's record, a warning naming when ESS
 * starts encrypting with the new MEK while inside its 48 h grace (NVIDIA ess-encryption README), a pass otherwise.
 */
import { MEK_GRACE_MS, checkMekGrace } from "../../../../cli/health/mek";

const AT = "2026-03-01T10:00:00Z";
const record = {
  generation: "2",
  kid: "1f0c3a80-0000-1000-8000-010203040506",
  rotated_at: AT,
  backup: "nvcf-mek-backup-2",
};
const t = Date.parse(AT);

describe("openbao.mek-grace", () => {
  test("inside the grace: a warning with the time ESS switches and until when the backup may be restored", () => {
    const f = checkMekGrace("dev", record, t + 10 * 3600 * 1000);
    expect(f).toEqual({
      check: "openbao.mek-grace",
      stack: "dev",
      object: "ConfigMap vault-system/nvcf-mek-rotation",
      ok: false,
      severity: "warning",
      found:
        "MEK generation 2 (kid 1f0c3a80-0000-1000-8000-010203040506) was rotated at 2026-03-01T10:00:00Z; ESS encrypts with it from 2026-03-03T10:00:00Z (in about 38 h), with the previous key until then",
      needed: "nothing: the grace lets every ESS pod load the new key before it is used",
      fix: 'to undo the rotation, restore secret vault-system/nvcf-mek-backup-2 before 2026-03-03T10:00:00Z (docs/operations.md "MEK rotation"); after that, keep the new key',
    });
  });

  test("past the grace, or no rotation: a pass", () => {
    const past = checkMekGrace("dev", record, t + MEK_GRACE_MS);
    expect(past.ok).toBe(true);
    expect(past.found).toBe(
      "MEK generation 2 (kid 1f0c3a80-0000-1000-8000-010203040506) is the key ESS encrypts with since 2026-03-03T10:00:00Z",
    );
    expect(checkMekGrace("dev", undefined, t)).toMatchObject({ ok: true, found: "no MEK rotation recorded" });
    // A rotation still pending (interrupted before its record): nothing recorded yet.
    expect(checkMekGrace("dev", { pending: "1" }, t).ok).toBe(true);
  });
});
