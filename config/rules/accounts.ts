/**
 * Rules of the control plane's account settings (pure): what the account bootstrap and a later nvcf-cli run
 * would have the API refuse (config/accounts.ts `accountConfigRules`), and the bootstrap's limits. Sources:
 * docs/upstream-facts.md §1.9 and §4 row 33 (the limits and their maximum).
 */
import { accountConfigRules } from "../accounts";
import { type Problem, describe } from "../problems";
import type { ControlPlaneConfig } from "../schema";
import { problemList } from "./context";

/**
 * Account-bootstrap limits and their maximum (docs/upstream-facts.md §1.9, §4 row 33), as `accounts.limits`
 * checks them, and `releaseValues.api.api.accountBootstrap.limits` through config/rules/releaseValueParity.ts.
 */
export const ACCOUNT_LIMITS_MAX = {
  maxFunctions: 50,
  maxTasks: 50,
  maxTelemetries: 25,
  maxRegistryCreds: 25,
} as const;

/**
 * Rules of `nvcf:accounts`. Input: the validated config. Output, in this order: the problems of
 * config/accounts.ts `accountConfigRules` (registry credentials and account fields the API would refuse), then
 * one per limit outside 1 to its maximum (`ACCOUNT_LIMITS_MAX`), keyed `nvcf:accounts.limits.<limit>`.
 */
export function accountRules(cfg: ControlPlaneConfig): Problem[] {
  const { out, add } = problemList();
  out.push(...accountConfigRules(cfg));
  for (const [k, max] of Object.entries(ACCOUNT_LIMITS_MAX)) {
    const v = cfg.accounts.limits[k as keyof typeof ACCOUNT_LIMITS_MAX];
    if (v < 1 || v > max)
      add(
        `accounts.limits.${k}`,
        `a whole number from 1 to ${max}`,
        describe(v),
        `pulumi config set --path nvcf:accounts.limits.${k} ${Math.min(max, 10)}`,
      );
  }
  return out;
}
