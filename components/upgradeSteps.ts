/**
 * The migration steps of bundle upgrades, as resources of the control plane: `command.local.Command`s that run
 * kubectl against the control-plane cluster with the stack's own access (a context, or the kubeconfig as a secret
 * written to a private file for the call), like the compute plane's teardown steps (components/computePlane.ts).
 * Their scripts are files of `components/scripts/` (shared functions in `lib.sh` and `cassandra-lib.sh`); each is
 * idempotent, resumable from any point an interrupted run left, and prints what it did (never a secret: the
 * Cassandra password reaches the script as a secret environment value and cqlsh through standard input).
 *
 * Which steps exist, and when they run (upgrade/plan.ts decides the plan):
 * - `openbao-rollout`, whenever OpenBao is enabled: the server StatefulSet uses `OnDelete`, so after each Helm
 *   upgrade of openbao-server (its Helm revision is an input) the pods still on the previous revision are rotated,
 *   standbys first. With nothing to rotate it does nothing, so it stays in place between upgrades.
 * - `cassandra-adoption-prepare` and `-verify`, whenever Cassandra's data is in the Bitnami layout under a chart
 *   of NVIDIA's own lineage (the data stays on those volumes, so they stay too): before the cassandra release,
 *   the checks, backup and recreate of a Bitnami-shaped StatefulSet; after it, the verification and the writers
 *   restored. Against NVIDIA's own shape they do nothing.
 * - During a move, the order NVIDIA's notes give: openbao-server (after only its own prerequisites) and its
 *   rollout first, then the Cassandra phase, then every other release; these edges exist only in the run that
 *   moves, so installs and later runs keep their own order.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import type { EnableFlag } from "../catalog/releases";
import { type StepConditions, type StepName, activeStepNeeds, stepSpec } from "../catalog/steps";
import type { NvcfRelease } from "./release";
import { REPLICAS_ANNOTATION, type UpgradePlan, upgradeValues } from "../upgrade/plan";
import type { Values } from "../values/merge";
import { KUBECTL_PREAMBLE, scriptText as script } from "./scripts";

/** The functions every step script starts with (after `KUBECTL_PREAMBLE`). */
export const STEP_LIB = script("lib.sh");
/** The functions of the Cassandra steps (after `STEP_LIB`). */
export const CASSANDRA_LIB = script("cassandra-lib.sh");
/** OpenBao's rollout (see the module comment). */
export const OPENBAO_ROLLOUT = script("openbao-rollout.sh");
/** Cassandra's adoption, the half before the release (with its functions). */
export const CASSANDRA_PREPARE = `${CASSANDRA_LIB}\n${script("cassandra-prepare.sh")}`;
/** Cassandra's adoption, the half after the release (with its functions). */
export const CASSANDRA_VERIFY = `${CASSANDRA_LIB}\n${script("cassandra-verify.sh")}`;

/** A step's whole script: kubectl set up, the shared functions, then the step's own part. */
export function stepScript(body: string): string {
  return `${KUBECTL_PREAMBLE}${STEP_LIB}\n${body}`;
}

/**
 * The environment every step-like command starts with (upgrade steps, restart generations, the MEK rotation):
 * its whole script (`NVCFP_STEP_SCRIPT`, which `create` evaluates) and the cluster access `KUBECTL_PREAMBLE`
 * reads (the kubeconfig as a secret), with the wait limit of `lib.sh`. Input: the joined script and the access.
 */
export function stepEnvironment(script: string, a: StepAccess): Record<string, pulumi.Input<string>> {
  return {
    NVCFP_STEP_SCRIPT: script,
    NVCFP_KUBECTL: a.kubectl,
    NVCFP_KUBE_CONTEXT: a.context ?? "",
    NVCFP_KUBECONFIG: a.kubeconfig === undefined ? "" : pulumi.secret(a.kubeconfig),
    NVCFP_WAIT_SECONDS: String(a.waitSeconds),
  };
}

/** How the steps reach the cluster. */
export interface StepAccess {
  /** kubectl binary (name on PATH or path). */
  kubectl: string;
  /** A context of the ambient kubeconfig (unset: the kubeconfig below, else the current context). */
  context?: string;
  /** The cluster's kubeconfig (secret), when the stack has one instead of a context. */
  kubeconfig?: pulumi.Input<string>;
  /** How long each wait of a step may take, seconds (the stack's Helm timeout). */
  waitSeconds: number;
}

/**
 * The superuser the checks run cqlsh as: helm-nvcf-cassandra's `dbUser` defaults (0.17.0 and 0.20.1 alike,
 * `deploy/helm/cassandra/helm/values.yaml`), unless `nvcf:releaseValues.cassandra.cassandra.dbUser` sets them.
 */
export const CASSANDRA_SUPERUSER = { user: "cassandra", password: "cassandra" } as const;

/** The label Bitnami's claim template carries and NVIDIA's own chart's does not (upgrade-from-bitnami.md). */
export const BITNAMI_CLAIM_LABEL = "app.kubernetes.io/name";

/** The ConfigMap (in Cassandra's namespace) that records an adoption in progress and its outcome. */
export const ADOPTION_RECORD = "nvcf-cassandra-adoption";

/** What the Cassandra steps need besides access. */
export interface CassandraStepArgs {
  namespace: string;
  replicas: number;
  /** Namespaces whose Deployments write to Cassandra (upgrade/plan.ts `cassandraWriterNamespaces`). */
  writerNamespaces: string[];
  /** The superuser's name and password (secret). */
  cqlUser: pulumi.Input<string>;
  cqlPassword: pulumi.Input<string>;
  /**
   * The StatefulSet the adoption works from, as the cluster shows it now (recovery/plan.ts `adoptionSource`):
   * an input of the prepare step only, so that a rollback that puts the Bitnami StatefulSet back runs it again.
   */
  source?: pulumi.Input<string>;
}

/** What `UpgradeSteps` is built from. */
export interface UpgradeStepsArgs {
  plan: UpgradePlan;
  access: StepAccess;
  /** The control plane's enable flags (config/stackReleases.ts), for the conditions of the steps' prerequisites. */
  flags: Readonly<Record<EnableFlag, boolean>>;
  /** OpenBao's namespace, when OpenBao is enabled. */
  openbaoNamespace?: string;
  /** Set when Cassandra is enabled. */
  cassandra?: CassandraStepArgs;
  /**
   * Releases that must not wait for the upgrade's phases (they are prerequisites of openbao-server, which starts
   * the move): names (upgrade/plan.ts `movePhaseOrder`, whose order the releases are created in).
   */
  phaseExempt: ReadonlySet<string>;
}

/**
 * The steps of one control plane and the order they impose, created as the releases are (the ControlPlane asks
 * `before` for a release's extra prerequisites, then hands the release to `after`). Children of `parent`. Each
 * step waits for its prerequisites of the catalog (catalog/steps.ts); the releases that wait for the steps are
 * decided here (`before`). Outputs: `done`, the steps whose completion the stack's `bundleVersion` output waits for.
 */
export class UpgradeSteps {
  private rollout?: command.local.Command;
  private prepare?: command.local.Command;
  private verify?: command.local.Command;
  /** The releases handed to `after` so far, by name: the targets of the steps' prerequisites. */
  private readonly releases = new Map<string, pulumi.Resource>();
  /** Every step created, in order. */
  readonly done: command.local.Command[] = [];

  constructor(
    private readonly name: string,
    private readonly args: UpgradeStepsArgs,
    private readonly parent: pulumi.Resource,
  ) {}

  /** The facts that decide which of the steps' prerequisites are in force (catalog/steps.ts). */
  private get facts(): StepConditions {
    const plan = this.args.plan;
    return {
      flags: this.args.flags,
      openbaoPhase: plan.moving && plan.openbaoPhase,
      cassandraAdopted: this.adopting,
    };
  }

  /** What a step waits for: its prerequisites in force (catalog/steps.ts), among the releases and steps created. */
  private needsOf(step: StepName): pulumi.Resource[] {
    const steps: Partial<Record<StepName, pulumi.Resource>> = {
      "openbao-rollout": this.rollout,
      "cassandra-adoption-prepare": this.prepare,
      "cassandra-adoption-verify": this.verify,
    };
    return activeStepNeeds(stepSpec(step), this.facts)
      .map((n) => ("release" in n ? this.releases.get(n.release) : steps[n.step]))
      .filter((r): r is pulumi.Resource => r !== undefined);
  }

  /** Whether the Cassandra adoption steps are in place (see the module comment). */
  get adopting(): boolean {
    return this.args.plan.cassandraAdopted && this.args.cassandra !== undefined;
  }

  /** The values a release gets on top of its own (upgrade/plan.ts `upgradeValues`). */
  values(release: string): Values {
    return upgradeValues(release, this.adopting);
  }

  /**
   * The extra prerequisites of a release, created as needed. Cassandra: the adoption's first half (which itself
   * waits for OpenBao's rollout in a move that upgrades openbao-server). During a move, every other release but
   * openbao-server and its prerequisites waits for the end of the OpenBao and Cassandra phases.
   */
  before(release: string): pulumi.Resource[] {
    const plan = this.args.plan;
    const openbaoEnd = plan.moving && plan.openbaoPhase ? this.rollout : undefined;
    if (release === "cassandra") {
      if (this.adopting) {
        this.prepare = this.cassandraStep(
          "cassandra-adoption-prepare",
          CASSANDRA_PREPARE,
          this.needsOf("cassandra-adoption-prepare"),
          { NVCFP_SOURCE_UID: this.args.cassandra?.source ?? "" },
        );
        return [this.prepare];
      }
      return openbaoEnd ? [openbaoEnd] : [];
    }
    if (!plan.moving || release === "openbao-server" || this.args.phaseExempt.has(release)) return [];
    const end = this.verify ?? openbaoEnd;
    return end ? [end] : [];
  }

  /** Creates the steps that follow a release: OpenBao's rollout, the adoption's second half. */
  after(release: string, rel: NvcfRelease): void {
    this.releases.set(release, rel);
    if (release === "openbao-server" && this.args.openbaoNamespace !== undefined) {
      this.rollout = this.step(
        "openbao-rollout",
        OPENBAO_ROLLOUT,
        {
          NVCFP_NAMESPACE: this.args.openbaoNamespace,
          NVCFP_STATEFULSET: "openbao-server",
          NVCFP_REVISION: rel.release.status.revision.apply((r) => String(r)),
        },
        this.needsOf("openbao-rollout"),
      );
    }
    if (release === "cassandra" && this.adopting) {
      this.verify = this.cassandraStep(
        "cassandra-adoption-verify",
        CASSANDRA_VERIFY,
        this.needsOf("cassandra-adoption-verify"),
      );
    }
  }

  private cassandraStep(
    suffix: string,
    body: string,
    dependsOn: pulumi.Resource[],
    extra: Record<string, pulumi.Input<string>> = {},
  ): command.local.Command {
    const c = this.args.cassandra as CassandraStepArgs;
    return this.step(
      suffix,
      body,
      {
        NVCFP_NAMESPACE: c.namespace,
        NVCFP_STATEFULSET: "cassandra",
        NVCFP_CONTAINER: "cassandra",
        NVCFP_REPLICAS: String(c.replicas),
        NVCFP_RECORD: ADOPTION_RECORD,
        NVCFP_BITNAMI_CLAIM_LABEL: BITNAMI_CLAIM_LABEL,
        NVCFP_WRITER_NAMESPACES: c.writerNamespaces.join(" "),
        NVCFP_ANNOTATION: REPLICAS_ANNOTATION,
        NVCFP_CQL_USER: c.cqlUser,
        NVCFP_CQL_PASSWORD: pulumi.secret(c.cqlPassword),
        ...extra,
      },
      dependsOn,
    );
  }

  private step(
    suffix: string,
    body: string,
    env: Record<string, pulumi.Input<string>>,
    dependsOn: pulumi.Resource[],
  ): command.local.Command {
    const a = this.args.access;
    const cmd = new command.local.Command(
      `${this.name}-${suffix}`,
      {
        create: 'eval "$NVCFP_STEP_SCRIPT"',
        interpreter: ["/bin/bash", "-c"],
        environment: { ...stepEnvironment(stepScript(body), a), ...env },
      },
      { parent: this.parent, dependsOn },
    );
    this.done.push(cmd);
    return cmd;
  }
}
