/**
 * The nvcf CrossGuard policy pack: `pulumi preview --policy-pack policy` (and `pulumi up`). Every policy is
 * mandatory by default; a policy config file (`--policy-pack-config <file.json>`) sets other enforcement levels
 * per policy (`advisory`, `disabled`) and the per-policy settings. Policies: policy/policies.ts; what they read
 * about the stack: policy/settings.ts; documentation: docs/policy-and-ci.md.
 */
import { PolicyPack } from "@pulumi/policy";
import { installSecretTracking } from "./inputs";
import { POLICIES } from "./policies";

installSecretTracking();

new PolicyPack("nvcf", {
  description:
    "Guards every preview and update of the NVCF stacks: pinned charts, protected state, mirror images, no plain-text credentials.",
  enforcementLevel: "mandatory",
  policies: POLICIES,
});
