/**
 * The control plane's steps that are not Helm releases, and what each waits for, as data: the registration of
 * each GPU cluster (components/registration.ts), the account settings (components/accounts.ts) and the steps of
 * bundle upgrades (components/upgradeSteps.ts, planned by upgrade/plan.ts). Each prerequisite carries a kind and
 * a reason, like a release's `needs` (catalog/releases.ts). The components set each step's `dependsOn` from these
 * lists (`activeStepNeeds`), and `nvcf graph` (cli/graph.ts) draws the same edges.
 */
import type { EnableFlag, NeedKind } from "./releases";

/** The steps, by name: the name of the step's node in the graph. */
export type StepName =
  | "registration"
  | "account-settings"
  | "openbao-rollout"
  | "cassandra-adoption-prepare"
  | "cassandra-adoption-verify";

/** The kinds of a step's prerequisite that no release has (the graph's legend lists them with `NEED_KINDS`). */
export const STEP_KINDS = {
  upgrade: "during a bundle move, NVIDIA's upgrade notes finish the target before the step starts",
} as const;

/** One word naming what a step needs of its prerequisite: a kind of `NEED_KINDS` or of `STEP_KINDS`. */
export type StepNeedKind = NeedKind | keyof typeof STEP_KINDS;

/**
 * When a step, or one of its edges, exists: an enable flag of the config, or a fact of the run's upgrade plan
 * (upgrade/plan.ts `UpgradePlan`): `openbaoPhase`, a bundle move that upgrades openbao-server alone, first;
 * `cassandraAdopted`, Cassandra's data kept in the Bitnami layout under NVIDIA's own chart.
 */
export type StepCondition = EnableFlag | "openbaoPhase" | "cassandraAdopted";

/** A step's prerequisite: a release of the control plane or another step, and the condition of the edge. */
export type StepNeed = ({ release: string } | { step: StepName }) & {
  /** The edge exists only while this holds (a release the config may leave out, a phase of a move). */
  when?: StepCondition;
  kind: StepNeedKind;
  /** Why the step cannot run before the target, from NVIDIA's CLI, charts or upgrade notes. */
  reason: string;
};

/** One step of the control plane. */
export interface StepSpec {
  name: StepName;
  /** What the step does, one line (the second line of its node in the graph). */
  what: string;
  /** One step per GPU cluster of `nvcf:gpuClusters` (the registration); otherwise one for the stack. */
  perGpuCluster?: boolean;
  /** The stack has the step only while this holds; unset: always. */
  when?: StepCondition;
  needs: StepNeed[];
}

/**
 * The steps of the control plane and their prerequisites, each list in the order the step's `dependsOn` takes.
 * Facts: docs/upstream-facts.md §3.2 (`nvcf-cli init`: the admin token from the admin-token-issuer-proxy route),
 * §3.3 (`nvcf-cli cluster register`), §3.5 (the account calls; the admin token is OpenBao's `ncp` client's), and
 * the upgrade notes upgrade/plan.ts cites (OpenBao upgraded alone and its `OnDelete` pods rotated, then
 * Cassandra adopted).
 */
export const CONTROL_PLANE_STEPS: readonly StepSpec[] = [
  {
    name: "registration",
    what: "nvcf-cli cluster register",
    perGpuCluster: true,
    needs: [
      { release: "sis", kind: "API", reason: "nvcf-cli cluster register calls SIS through the gateway" },
      {
        release: "admin-issuer-proxy",
        kind: "API",
        reason: "nvcf-cli mints its admin token through the admin-token route",
      },
      { release: "api-keys", kind: "API", reason: "the admin token is an api-keys token" },
      {
        release: "ingress",
        kind: "route",
        reason: "SIS and the admin-token route are reached through the gateway routes",
      },
      {
        release: "openbao-server",
        when: "openbao",
        kind: "API",
        reason: "registration records the GPU cluster's issuer for OpenBao's JWT auth (issuer discovery)",
      },
    ],
  },
  {
    name: "account-settings",
    what: "nvcf-cli admin accounts update, registry-credential add/update",
    needs: [
      {
        release: "api",
        kind: "API",
        reason:
          "nvcf-cli changes the account through the API, and the api release's account-bootstrap hook " +
          "(post-install) creates the account",
      },
      {
        release: "ingress",
        kind: "route",
        reason: "the API and the admin-token route are reached through the gateway routes",
      },
      {
        release: "admin-issuer-proxy",
        kind: "API",
        reason: "nvcf-cli init mints the admin token the account calls send, through the admin-token route",
      },
      {
        release: "api-keys",
        kind: "API",
        reason: "the admin token is an api-keys token",
      },
      {
        release: "openbao-server",
        when: "openbao",
        kind: "API",
        reason:
          "the admin token is OpenBao's ncp client token: OpenBao's migrations set up the admin issuer " +
          "(10_setup_admin-issuer.sh)",
      },
    ],
  },
  {
    name: "openbao-rollout",
    what: "OnDelete pods rotated after each upgrade, standbys first",
    when: "openbao",
    needs: [
      {
        release: "openbao-server",
        when: "openbao",
        kind: "object",
        reason:
          "it deletes the OpenBao server pods the release's upgrade left on the StatefulSet's previous revision " +
          "(updateStrategy OnDelete); the release's Helm revision is its input",
      },
    ],
  },
  {
    name: "cassandra-adoption-prepare",
    what: "checks, backup, Bitnami StatefulSet deleted (pods and claims kept)",
    when: "cassandraAdopted",
    needs: [
      {
        step: "openbao-rollout",
        when: "openbaoPhase",
        kind: "upgrade",
        reason: "OpenBao is upgraded alone and its pods rotated before Cassandra's data is touched",
      },
    ],
  },
  {
    name: "cassandra-adoption-verify",
    what: "nodes, row counts and migrations checked; writers scaled back",
    when: "cassandraAdopted",
    needs: [
      {
        release: "cassandra",
        when: "cassandra",
        kind: "object",
        reason:
          "it checks the Cassandra nodes of the StatefulSet the release creates on the adopted claims before " +
          "the writers are scaled back",
      },
    ],
  },
];

/** Looks a step up by name. Throws when the name is unknown (a programming error). */
export function stepSpec(name: StepName): StepSpec {
  const spec = CONTROL_PLANE_STEPS.find((s) => s.name === name);
  if (!spec) throw new Error(`unknown step "${name}"`);
  return spec;
}

/** The facts that decide which steps exist and which of their edges are in force (`StepCondition`). */
export interface StepConditions {
  flags: Readonly<Record<EnableFlag, boolean>>;
  /** The run moves the stack and upgrades openbao-server alone, first (upgrade/plan.ts `openbaoPhase`). */
  openbaoPhase: boolean;
  /** Cassandra's data is adopted by NVIDIA's own chart (upgrade/plan.ts `cassandraAdopted`). */
  cassandraAdopted: boolean;
}

/** Whether a condition holds. */
function holds(c: StepCondition, facts: StepConditions): boolean {
  if (c === "openbaoPhase") return facts.openbaoPhase;
  if (c === "cassandraAdopted") return facts.cassandraAdopted;
  return facts.flags[c];
}

/** Whether the stack has the step (its `when` holds or it has none). */
export function stepInPlace(spec: StepSpec, facts: StepConditions): boolean {
  return spec.when === undefined || holds(spec.when, facts);
}

/**
 * The prerequisites in force for a step: its `needs` without a condition or whose condition holds. A need on a
 * release the stack does not install, or on a step it does not have, names nothing to wait for; the caller
 * leaves it out.
 */
export function activeStepNeeds(spec: StepSpec, facts: StepConditions): StepNeed[] {
  return spec.needs.filter((n) => n.when === undefined || holds(n.when, facts));
}
