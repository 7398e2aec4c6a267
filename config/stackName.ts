/**
 * What a stack's name says about the stack (pure). The one rule of which stacks are dev stacks: local and
 * throwaway environments, where the config rules relax production-only limits (config/rules/cassandra.ts),
 * stateful data is not protected by default (`nvcf:protectStatefulData`, components/controlPlane.ts and
 * components/computePlane.ts), an upgrade need not copy backups off the node first (upgrade/plan.ts) and the
 * policy pack's default `devStackPattern` applies (policy/settings.ts).
 */

/**
 * Whether a stack is a dev stack. Input: the Pulumi stack name (without organization and project). Output: true
 * for `dev`, `dev-*` and `dev_*`; false for anything else (`devel`, `prod-dev`).
 */
export const isDevStack = (stack: string) => /^dev($|[-_])/.test(stack);
