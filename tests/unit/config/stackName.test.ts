/**
 * config/stackName.ts: which stack names are dev stacks.
 */
import { isDevStack } from "../../../config/stackName";

test("dev, dev-* and dev_* are dev stacks; other names are not", () => {
  for (const s of ["dev", "dev-local", "dev_ci", "dev-"]) expect(isDevStack(s)).toBe(true);
  for (const s of ["devel", "prod", "prod-dev", "Dev", "staging-dev-1", ""])
    expect(isDevStack(s)).toBe(false);
});
