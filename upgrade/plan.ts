/**
 * Bundle upgrades: what moving a stack from the NVCF bundle it is deployed at to the one its config names
 * means, decided before anything is touched. Pure: the deployed bundle comes from the stack's own previous
 * outputs (engine/previous.ts), the rest from the release catalog and the values builders.
 *
 * `planUpgrade` either refuses the move (a `ConfigError` naming `nvcf:bundleVersion`, the deployed bundle and
 * the way to go) or returns the plan: per release its chart version before and after and whether the bundle
 * changes it, the migration steps the program runs (components/upgradeSteps.ts), each data store touched and
 * how its data is kept. `formatPlan` renders it for `pulumi preview`/`up` and for `nvcf upgrade`.
 *
 * Facts (NVIDIA/nvcf): `docs/v0.6.1/release-notes/0.6.0-to-0.6.1-upgrade.md` (Cassandra across the change of
 * chart lineage: checks, backup, in-place adoption of the claims with `persistence.subPath: data`),
 * `docs/v0.6.1/release-notes/0.6.1.md` (OpenBao upgraded alone, its `OnDelete` pods rotated by hand, standbys
 * first), `docs/user/control-plane-operations.md` "Upgrading Services" (per-release rollback with Helm), and at
 * tag `deploy/helm/cassandra/v0.20.1` `deploy/helm/cassandra/docs/upgrade-from-bitnami.md` (the cassandra.yaml
 * settings the Bitnami-written data needs, `uuid_sstable_identifiers_enabled: true` among them, which the chart
 * takes under `cassandra.config`). docs/upgrading.md has the user's view.
 */
import {
  BUNDLE_VERSIONS,
  CONTROL_PLANE_RELEASES,
  type BundleVersion,
  type EnableFlag,
  type Plane,
  type ReleaseSpec,
  activeNeeds,
  chartVersion,
  releaseSpec,
  versionAtLeast,
} from "../catalog/releases";
import { ConfigError, type Problem } from "../config/problems";
import type { ObjectRef } from "../kube/dryRun";
import { isDevStack } from "../config/stackName";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../config/schema";
import { type ComputeInputs, computeValues } from "../values/compute";
import { type StackReleases, stackReleases } from "../config/stackReleases";
import { type ControlSecrets, controlValues } from "../values/control";
import { type Values, deepMerge } from "../values/merge";

/**
 * Where Cassandra's files sit on its volumes. `bitnami`: nested one directory down (`<claim>/data/{data,
 * commitlog,hints,saved_caches}`), as Bitnami's image writes them (chart 0.17.0 and earlier); `official`: at the
 * claim's root, as the official Apache Cassandra image writes them (NVIDIA's own chart, 0.18.0 and later).
 */
export type CassandraLayout = "bitnami" | "official";

/**
 * The layout a helm-nvcf-cassandra chart version writes: the Bitnami wrapper up to 0.17.x, NVIDIA's own
 * StatefulSet chart from 0.18.0 (tags `deploy/helm/cassandra/v0.17.0`, `v0.18.0`, `v0.20.1`).
 */
export function cassandraLineage(chartVersionText: string): CassandraLayout {
  return versionAtLeast(chartVersionText, "0.18.0") ? "official" : "bitnami";
}

/** The previous outputs an upgrade is judged by (any of them may be missing). */
export interface PreviousUpgradeOutputs {
  /** The bundle every release was last deployed at (`bundleVersion` output). */
  bundleVersion?: unknown;
  /** The `releases` output (release name → Helm status, or `unfinished`). */
  releases?: unknown;
  /** The `cassandraDataLayout` output. */
  cassandraDataLayout?: unknown;
}

/** How one release fares in a move. */
export type ReleaseChangeKind = "install" | "upgrade" | "unchanged" | "uninstall";

/** One release of the plan. */
export interface ReleaseChange {
  name: string;
  chart: string;
  /** Chart version deployed (absent for an install). */
  from?: string;
  /** Chart version after the move (absent for an uninstall). */
  to?: string;
  kind: ReleaseChangeKind;
  /** For an upgrade whose chart version stays: the values the bundle gives it differ. */
  valuesOnly?: boolean;
}

/** A migration step the program runs as a resource (components/upgradeSteps.ts). */
export interface PlannedStep {
  /** The step's resource name suffix, e.g. `cassandra-adoption-prepare`. */
  name: string;
  /** What it does, one sentence. */
  what: string;
}

/** A data store the move touches and how its data is kept. */
export interface DataStoreNote {
  store: string;
  how: string;
}

/** The decision for one stack. */
export interface UpgradePlan {
  plane: Plane;
  stack: string;
  /** The bundle deployed (undefined: nothing deployed yet). */
  from?: BundleVersion;
  to: BundleVersion;
  /** True when the stack moves from one bundle to another in this run. */
  moving: boolean;
  /** Every release deployed or to be deployed, in dependency order (uninstalls last). */
  releases: ReleaseChange[];
  /** OpenBao is upgraded alone, first, and its pods rotated (a move that upgrades openbao-server). */
  openbaoPhase: boolean;
  /**
   * Cassandra's data layout on its volumes (control plane with Cassandra deployed or enabled); kept in the
   * `cassandraDataLayout` output and read back on every run.
   */
  cassandraLayout?: CassandraLayout;
  /**
   * The release's chart expects the official layout but the data is Bitnami's: the new chart mounts the claims
   * with `persistence.subPath: data` and the adoption steps are in place (they act only on a Bitnami-shaped
   * StatefulSet), for as long as the data lives on those volumes.
   */
  cassandraAdopted: boolean;
  /** The adoption acts in this move: the deployed StatefulSet still has the Bitnami chart's shape. */
  cassandraAdoptionRuns: boolean;
  /** The steps of this move, in order (empty when not moving). */
  steps: PlannedStep[];
  /** The data stores this move touches (empty when not moving). */
  dataStores: DataStoreNote[];
}

/** What `planUpgrade` needs about the stack, besides its previous outputs. */
export interface UpgradeSubject {
  stack: string;
  /**
   * What the stack's config installs (config/stackReleases.ts `stackReleases`): its plane, its enable flags and
   * the releases of its own bundle, the target of the move.
   */
  releases: StackReleases;
  /** The releases the same config gives at another bundle (`stackReleases` with that bundle): the deployed one. */
  releasesAt: (bundle: BundleVersion) => StackReleases;
  versionOverrides: Readonly<Record<string, string>>;
  /**
   * Whether the values the bundle gives a release differ between the two bundles (same config otherwise);
   * undefined: not compared (then only chart versions decide).
   */
  valuesDiffer?: (release: string, from: BundleVersion, to: BundleVersion, adopted: boolean) => boolean;
  /** `nvcf:upgrade.backupsCopiedOffNode` (control plane): the bundle the user's off-node backups were taken for. */
  backupsCopiedOffNode?: string;
  /** The Cassandra namespace and replica count (control plane), for the plan's text. */
  cassandra?: { namespace: string; replicas: number };
}

const K = "nvcf:bundleVersion";
const index = (b: string) => (BUNDLE_VERSIONS as readonly string[]).indexOf(b);
const isBundle = (b: unknown): b is BundleVersion => typeof b === "string" && index(b) >= 0;

/** Releases by name, in the order given. */
const byName = (list: readonly ReleaseSpec[]) => new Map(list.map((r) => [r.name, r]));

/**
 * The releases the previous run deployed: the keys of its `releases` output when there is one (every release it
 * registered, finished or not), else the catalog's at the deployed bundle for today's flags (catalog order: a past
 * bundle may lack a release today's flags make another need, so it has no dependency order).
 */
function deployedNames(
  subject: UpgradeSubject,
  from: BundleVersion,
  previous: PreviousUpgradeOutputs,
): Set<string> {
  const r = previous.releases;
  if (r && typeof r === "object" && !Array.isArray(r)) return new Set(Object.keys(r));
  return new Set(subject.releasesAt(from).inCatalogOrder.map((x) => x.name));
}

/**
 * The manual way from 0.6.1 to 0.7.0 (docs/upgrading.md "0.6.1 to 0.7.0"): NVIDIA's backup and restore
 * (`docs/v0.6.1/release-notes/0.6.0-to-0.6.1-upgrade.md` "Method: backup and restore"), in the other direction.
 */
const MANUAL_0_7 =
  'back up and restore (docs/upgrading.md "0.6.1 to 0.7.0"): nodetool flush and nodetool snapshot on every ' +
  "Cassandra node and the snapshots copied off-node, then pulumi config set --path nvcf:cassandra.enabled false " +
  "and pulumi up (the 0.6.1 Cassandra release is uninstalled; its claims stay), the claims data-cassandra-* " +
  "deleted, then nvcf:bundleVersion 0.7.0 with nvcf:cassandra.enabled true and pulumi up (0.7.0's Cassandra " +
  "installs on new volumes), then the snapshots loaded with sstableloader";

/**
 * Decides a stack's move from the bundle it is deployed at to the bundle of `subject.releases`. Inputs: the stack
 * (name, what its config installs at the target bundle and at another, chart-version overrides, optionally how to
 * compare values and the backup acknowledgement) and its previous outputs. Output: the plan. Throws `ConfigError` (every problem at once, key
 * `nvcf:bundleVersion` or `nvcf:upgrade.backupsCopiedOffNode`) when the move is refused; nothing has been
 * touched then. The rules, in order:
 *
 * 1. Nothing deployed (no `bundleVersion` among the previous outputs: a first update, or a stack destroyed):
 *    nothing to migrate. Cassandra's layout is that of the target's chart, unless a run that stopped early
 *    recorded the layout of a Cassandra it had deployed.
 * 2. Deployed at a bundle this program does not know (a newer program deployed it): refused.
 * 3. The target is older than the deployed bundle: refused (a downgrade; Helm would run older charts on data
 *    newer charts migrated). The way back is Helm's rollback per release or the backups.
 * 4. The target is more than one bundle ahead: refused (bundles are upgraded one at a time, each with its own
 *    migrations).
 * 5. The move changes a deployed Cassandra from NVIDIA's own chart (official layout) to the Bitnami wrapper
 *    (0.6.1 → 0.7.0: the data would have to move up into Bitnami's nesting under an older Cassandra, and NVIDIA
 *    documents no procedure): refused, naming the manual path (backup and restore).
 * 6. The move touches Cassandra's data (an adoption across the chart lineage) or OpenBao (openbao-server is
 *    upgraded) on a stack that is not a dev stack (config/stackName.ts `isDevStack`), and
 *    `nvcf:upgrade.backupsCopiedOffNode` does not name the target bundle: refused until the user has copied
 *    the backups off-node (docs/upgrading.md "Backups") and says so.
 * 7. Otherwise the plan: releases new in the target are installed, those gone uninstalled, those whose chart
 *    version or bundle-given values differ upgraded, the rest unchanged. A move that upgrades openbao-server
 *    upgrades it alone first and rotates its pods; a Cassandra whose data is in Bitnami's layout under a chart
 *    of the official lineage is adopted in place (checks, backup, StatefulSet recreated, claims kept) before
 *    anything else that writes to it moves.
 *
 * The Cassandra layout is the previous `cassandraDataLayout` output when Cassandra was deployed, else (stacks
 * deployed before the output existed) the layout of the deployed bundle's chart; a Cassandra not deployed
 * before takes the target chart's.
 */
export function planUpgrade(subject: UpgradeSubject, previous: PreviousUpgradeOutputs): UpgradePlan {
  const { stack } = subject;
  const { plane, bundle: target, flags } = subject.releases;
  const deployedText = previous.bundleVersion;
  const problems: Problem[] = [];
  // The target's releases in dependency order: the config's flags are made for its own bundle.
  const toRel = byName(subject.releases.releases);
  const casSpec = plane === "control" && flags.cassandra ? releaseSpec("cassandra") : undefined;
  const targetLayout = casSpec
    ? cassandraLineage(chartVersion(casSpec, target, subject.versionOverrides))
    : undefined;
  const base: UpgradePlan = {
    plane,
    stack,
    to: target,
    moving: false,
    releases: [],
    openbaoPhase: false,
    cassandraAdopted: false,
    cassandraAdoptionRuns: false,
    steps: [],
    dataStores: [],
  };
  const recorded = previous.cassandraDataLayout;
  const recordedLayout = recorded === "bitnami" || recorded === "official" ? recorded : undefined;

  // Rule 1. A run that stopped before the stack had its bundle output may still have recorded the layout of data
  // it found on the volumes (the output is published first): that record holds.
  if (deployedText === undefined || deployedText === null || deployedText === "") {
    const listed =
      previous.releases !== null &&
      typeof previous.releases === "object" &&
      "cassandra" in (previous.releases as object);
    const layout = casSpec && listed && recordedLayout ? recordedLayout : targetLayout;
    return {
      ...base,
      releases: [...toRel.values()].map((r) => ({
        name: r.name,
        chart: r.chart,
        to: chartVersion(r, target, subject.versionOverrides),
        kind: "install",
      })),
      cassandraLayout: layout,
      cassandraAdopted: !!casSpec && layout === "bitnami" && targetLayout === "official",
    };
  }
  // Rule 2.
  if (!isBundle(deployedText)) {
    throw new ConfigError(stack, [
      {
        key: K,
        expected: `a bundle this program can judge a move from (${BUNDLE_VERSIONS.join(", ")})`,
        found: `stack ${stack} deployed at NVCF bundle ${JSON.stringify(deployedText)}, which this program does not know (deployed by a newer program?)`,
        fix: "run pulumi up with the program that deployed it",
      },
    ]);
  }
  const from = deployedText;
  const deployed = deployedNames(subject, from, previous);
  const wasCassandra = plane === "control" && deployed.has("cassandra");
  const fromCasVersion = wasCassandra ? releaseSpec("cassandra").versions[from] : undefined;
  const layout: CassandraLayout | undefined = !casSpec
    ? recordedLayout
    : wasCassandra
      ? (recordedLayout ?? cassandraLineage(fromCasVersion ?? "0.18.0"))
      : targetLayout;
  const adopted = !!casSpec && layout === "bitnami" && targetLayout === "official";

  if (from === target) {
    // Steady state: nothing moves, but settings the data's layout needs stay (rule 7's adoption).
    return {
      ...base,
      from,
      releases: [...toRel.values()].map((r) => {
        const v = chartVersion(r, target, subject.versionOverrides);
        return { name: r.name, chart: r.chart, from: v, to: v, kind: "unchanged" as const };
      }),
      cassandraLayout: layout,
      cassandraAdopted: adopted,
    };
  }

  const delta = index(target) - index(from);
  // Rule 3.
  if (delta < 0)
    problems.push({
      key: K,
      expected: `${from} or a later bundle: stack ${stack} is deployed at NVCF bundle ${from}, and this program does not downgrade (Helm would run older charts against data that newer charts migrated)`,
      found: JSON.stringify(target),
      fix: `pulumi config set nvcf:bundleVersion ${from}. To go back to ${target}, roll back each release with Helm or restore the backups taken before the upgrade (docs/upgrading.md "Rolling back")`,
    });
  // Rule 4.
  if (delta > 1) {
    const next = BUNDLE_VERSIONS[index(from) + 1];
    problems.push({
      key: K,
      expected: `${next}, the next bundle after ${from} (stack ${stack} is deployed at ${from}; bundles are upgraded one at a time, each with its own migrations)`,
      found: `${JSON.stringify(target)}, which skips ${BUNDLE_VERSIONS.slice(index(from) + 1, index(target)).join(", ")}`,
      fix:
        `pulumi config set nvcf:bundleVersion ${next} and pulumi up, then ${target}` +
        (from === "0.6.1" && wasCassandra
          ? `; the step to 0.7.0 moves Cassandra back to the Bitnami chart, which this program does not automate: ${MANUAL_0_7}`
          : ""),
    });
  }
  // Rule 5.
  if (delta === 1 && wasCassandra && casSpec && layout === "official" && targetLayout === "bitnami")
    problems.push({
      key: K,
      expected: `a move this program can make safely: ${from} → ${target} changes Cassandra from NVIDIA's own chart (helm-nvcf-cassandra ${fromCasVersion}, Apache Cassandra, data at the volume root) back to the Bitnami wrapper (${chartVersion(casSpec, target, subject.versionOverrides)}, an older Cassandra that reads its data one directory deeper), a change of chart lineage and on-disk layout NVIDIA documents no procedure for`,
      found: `${JSON.stringify(target)} with Cassandra deployed at ${from} (stack ${stack})`,
      fix: `${MANUAL_0_7}; or stay at ${from}`,
    });
  if (problems.length > 0) throw new ConfigError(stack, problems);

  // Rule 7: the releases.
  const fromRel = byName(subject.releasesAt(from).inCatalogOrder);
  const releases: ReleaseChange[] = [];
  for (const r of toRel.values()) {
    const to = chartVersion(r, target, subject.versionOverrides);
    if (!deployed.has(r.name) || !fromRel.has(r.name) || r.versions[from] === undefined) {
      releases.push({ name: r.name, chart: r.chart, to, kind: "install" });
      continue;
    }
    const before = chartVersion(r, from, subject.versionOverrides);
    const valuesChange = subject.valuesDiffer?.(r.name, from, target, adopted) ?? false;
    const kind: ReleaseChangeKind = before !== to || valuesChange ? "upgrade" : "unchanged";
    releases.push({
      name: r.name,
      chart: r.chart,
      from: before,
      to,
      kind,
      ...(kind === "upgrade" && before === to ? { valuesOnly: true } : {}),
    });
  }
  for (const name of deployed) {
    if (toRel.has(name)) continue;
    const spec = fromRel.get(name);
    if (!spec) continue;
    releases.push({
      name,
      chart: spec.chart,
      from: chartVersion(spec, from, subject.versionOverrides),
      kind: "uninstall",
    });
  }
  const upgraded = (n: string) => releases.some((r) => r.name === n && r.kind === "upgrade");
  const openbaoPhase = plane === "control" && upgraded("openbao-server");
  const cassandraUpgraded = wasCassandra && upgraded("cassandra");
  // The StatefulSet still has the Bitnami chart's shape: the adoption runs in this move.
  const adopting = adopted && cassandraUpgraded && cassandraLineage(fromCasVersion ?? "0.18.0") === "bitnami";

  // Rule 6.
  const touchesData = openbaoPhase || cassandraUpgraded;
  if (touchesData && !isDevStack(stack) && subject.backupsCopiedOffNode !== target) {
    const what = [
      ...(adopting
        ? ["Cassandra's data (adopted by NVIDIA's own chart)"]
        : cassandraUpgraded
          ? ["Cassandra (upgraded, its schema migrations run)"]
          : []),
      ...(openbaoPhase ? ["OpenBao (upgraded, its pods recreated)"] : []),
    ].join(" and ");
    throw new ConfigError(stack, [
      {
        key: "nvcf:upgrade.backupsCopiedOffNode",
        expected: `"${target}": the move ${from} → ${target} touches ${what}; stack ${stack} is not a dev stack, so the program needs your word that backups of them are copied off-node`,
        found:
          subject.backupsCopiedOffNode === undefined
            ? "nothing"
            : `${JSON.stringify(subject.backupsCopiedOffNode)} (backups for another move)`,
        fix: `take the backups and copy them off the cluster's nodes (docs/upgrading.md "Backups"), then pulumi config set --path nvcf:upgrade.backupsCopiedOffNode ${target}`,
      },
    ]);
  }

  const order = (r: ReleaseChange) =>
    r.kind === "uninstall"
      ? 3
      : r.name === "openbao-server" && openbaoPhase
        ? 0
        : r.name === "cassandra" && adopting
          ? 1
          : 2;
  const sorted = releases
    .map((r, i) => ({ r, i }))
    .sort((a, b) => order(a.r) - order(b.r) || a.i - b.i)
    .map((x) => x.r);
  const plan: UpgradePlan = {
    ...base,
    from,
    moving: true,
    releases: sorted,
    openbaoPhase,
    cassandraLayout: layout,
    cassandraAdopted: adopted,
    cassandraAdoptionRuns: adopting,
  };
  plan.steps = plannedSteps(plan, subject);
  plan.dataStores = dataStores(plan, subject);
  return plan;
}

/** The Deployment annotation that keeps a writer's replica count while it is scaled to zero. */
export const REPLICAS_ANNOTATION = "nvcf.nvidia.com/replicas-before-upgrade";

/**
 * The namespaces whose Deployments write to Cassandra: those of the releases with a Cassandra keyspace
 * (catalog/releases.ts, the `needs` on cassandra), which NVIDIA quiesces before a Cassandra migration
 * (`docs/v0.6.1/release-notes/0.5.0-to-0.6.0-upgrade.md` "Stop 1": every Deployment in nvcf, api-keys, ess, sis).
 * Input: the enable flags. Output: sorted namespace names.
 */
export function cassandraWriterNamespaces(flags: Readonly<Record<EnableFlag, boolean>>): string[] {
  const ns = new Set<string>();
  for (const r of CONTROL_PLANE_RELEASES)
    if (flags[r.enabled] && activeNeeds(r, flags).includes("cassandra") && "fixed" in r.namespace)
      ns.add(r.namespace.fixed);
  return [...ns].sort();
}

function plannedSteps(plan: UpgradePlan, subject: UpgradeSubject): PlannedStep[] {
  const steps: PlannedStep[] = [];
  // openbao-server's own prerequisites that change go before it (movePhaseOrder).
  const first = plan.openbaoPhase
    ? [...prerequisitesOf("openbao-server", subject.releases.inCatalogOrder, subject.releases.flags)]
    : [];
  const firstMoving = plan.releases.filter((r) => first.includes(r.name) && r.kind !== "unchanged");
  if (plan.openbaoPhase)
    steps.push(
      {
        name: "openbao-server",
        what:
          (firstMoving.length
            ? `after its own prerequisites (${firstMoving.map((r) => `${r.name} (${r.kind})`).join(", ")}), `
            : "") +
          "openbao-server upgraded alone, before every other release that changes; Helm waits for its post-upgrade migrations Job",
      },
      {
        name: "openbao-rollout",
        what: "the OpenBao server pods still on the StatefulSet's previous revision (OnDelete) deleted one at a time, standbys first and the active pod last, each recreated pod ready, initialized and unsealed before the next",
      },
    );
  if (plan.cassandraAdoptionRuns) {
    const c = subject.cassandra ?? { namespace: "cassandra-system", replicas: 3 };
    const writers = cassandraWriterNamespaces(subject.releases.flags).join(", ");
    const to = plan.releases.find((r) => r.name === "cassandra")?.to;
    steps.push(
      {
        name: "cassandra-adoption-prepare",
        what:
          `checks (every node UN in nodetool status, no dirty row in schema_migrations, claims Bound, StatefulSet not deleting its claims), ` +
          `row counts recorded, the writers (Deployments in ${writers}) scaled to zero with their replica counts kept in the annotation ${REPLICAS_ANNOTATION}, ` +
          `nodetool flush and nodetool snapshot on every node, StatefulSet ${c.namespace}/cassandra deleted with --cascade=orphan (pods and claims kept), pod cassandra-0 deleted`,
      },
      {
        name: "cassandra",
        what: `cassandra upgraded alone to helm-nvcf-cassandra ${to}, mounting the same claims with persistence.subPath data and the cassandra.yaml settings the Bitnami-written data needs; its new StatefulSet re-adopts data-cassandra-0..${c.replicas - 1}; Helm waits for the initialize and migrations hook Jobs, and does not roll back on failure (a rollback would put the Bitnami StatefulSet back): the next run continues`,
      },
      {
        name: "cassandra-adoption-verify",
        what: "every node UN, the recorded row counts found again, no dirty row in schema_migrations; then the writers scaled back to their recorded replica counts",
      },
    );
  }
  const rest = plan.releases.filter(
    (r) =>
      r.kind !== "unchanged" &&
      !firstMoving.includes(r) &&
      !(r.name === "openbao-server" && plan.openbaoPhase) &&
      !(r.name === "cassandra" && plan.cassandraAdoptionRuns),
  );
  if (rest.length > 0)
    steps.push({
      name: "releases",
      what: `then ${rest.length} other release${rest.length === 1 ? "" : "s"} in dependency order: ${rest.map((r) => `${r.name} (${r.kind})`).join(", ")}`,
    });
  return steps;
}

function dataStores(plan: UpgradePlan, subject: UpgradeSubject): DataStoreNote[] {
  const out: DataStoreNote[] = [];
  const kind = (n: string) => plan.releases.find((r) => r.name === n)?.kind;
  if (plan.plane === "control") {
    const c = subject.cassandra ?? { namespace: "cassandra-system", replicas: 3 };
    const cas = kind("cassandra");
    if (cas === "upgrade" && plan.cassandraAdoptionRuns)
      out.push({
        store: `Cassandra (${c.namespace}, claims data-cassandra-0..${c.replicas - 1})`,
        how: "kept in place: the claims are never deleted and the new StatefulSet mounts them with persistence.subPath data; a nodetool snapshot on every node's volume before the StatefulSet is recreated; passwords unchanged",
      });
    else if (cas === "upgrade")
      out.push({
        store: `Cassandra (${c.namespace})`,
        how:
          "kept: Helm upgrades the StatefulSet in place and its migrations hook runs" +
          (plan.cassandraAdopted ? "; the adopted data keeps persistence.subPath data" : ""),
      });
    const bao = kind("openbao-server");
    if (bao === "upgrade")
      out.push({
        store: "OpenBao (vault-system, claims data-openbao-server-*)",
        how: "kept: the Raft storage stays on its claims; each pod is recreated on the same claim and unseals before the next is rotated",
      });
    for (const [name, store] of [
      ["nats", "NATS JetStream (nats-system)"],
      ["victoria-metrics", "VictoriaMetrics (metrics store)"],
    ] as const) {
      if (kind(name) === "upgrade")
        out.push({ store, how: "kept: Helm upgrades the StatefulSet in place; its claims stay" });
    }
  } else if (kind("dynamo-operator") === "upgrade") {
    out.push({
      store: "Dynamo's NATS JetStream (dynamo-system)",
      how: "kept: Helm upgrades the StatefulSet in place; its claim stays",
    });
  }
  return out;
}

/**
 * The plan as text, for `pulumi preview`/`up` (the program logs it) and `nvcf upgrade`. Input: a plan. Output:
 * lines; a plan that does not move says so in one line.
 */
export function formatPlan(plan: UpgradePlan): string[] {
  if (!plan.moving)
    return [
      plan.from === undefined
        ? `stack ${plan.stack}: first deployment at NVCF bundle ${plan.to}`
        : `stack ${plan.stack}: at NVCF bundle ${plan.to}, nothing to upgrade`,
    ];
  const lines = [`upgrade plan of stack ${plan.stack}: NVCF bundle ${plan.from} → ${plan.to}`, "  releases:"];
  const w = Math.max(...plan.releases.map((r) => r.name.length));
  for (const r of plan.releases) {
    const what =
      r.kind === "install"
        ? `install ${r.chart} ${r.to} (new in ${plan.to})`
        : r.kind === "uninstall"
          ? `uninstall ${r.chart} ${r.from} (not in ${plan.to})`
          : r.kind === "unchanged"
            ? `unchanged ${r.chart} ${r.to}`
            : r.valuesOnly
              ? `upgrade ${r.chart} ${r.to} (same chart, the values ${plan.to} gives it change)`
              : `upgrade ${r.chart} ${r.from} → ${r.to}`;
    lines.push(`    ${r.name.padEnd(w)}  ${what}`);
  }
  lines.push("  steps, in order:");
  plan.steps.forEach((s, i) => lines.push(`    ${i + 1}. ${s.name}: ${s.what}`));
  lines.push("  data stores:");
  if (plan.dataStores.length === 0) lines.push("    none touched");
  for (const d of plan.dataStores) lines.push(`    ${d.store}: ${d.how}`);
  return lines;
}

/** Placeholder secrets for comparing values between bundles (the same on both sides). */
const SAME_SECRETS: ControlSecrets<string> = {
  cassandraPassword: "<secret>",
  sidecarAuth: "<secret>",
  functionAuth: [],
  migrationsSecretName: "<secret>",
};

/** JSON text of a value with object keys sorted (for comparing values documents). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/**
 * Whether the values a control-plane release gets differ between two bundles for one config (same secrets on
 * both sides; the adoption settings of `upgradeValues` included at the target). Pure.
 */
export function controlValuesDiffer(
  cfg: ControlPlaneConfig,
): (release: string, from: BundleVersion, to: BundleVersion, adopted: boolean) => boolean {
  return (release, from, to, adopted) => {
    const funcAuth = cfg.accounts.registryCredentials.map(() => "<secret>");
    const s = { ...SAME_SECRETS, functionAuth: funcAuth };
    try {
      const a = controlValues(release, { ...cfg, bundleVersion: from }, s);
      const b = deepMerge(
        controlValues(release, { ...cfg, bundleVersion: to }, s),
        upgradeValues(release, adopted),
      );
      return canonical(a) !== canonical(b);
    } catch {
      return true;
    }
  };
}

/** The same for a compute-plane release (same control-plane inputs on both sides). Pure. */
export function computeValuesDiffer(
  cfg: ComputePlaneConfig,
  inputs: ComputeInputs,
): (release: string, from: BundleVersion, to: BundleVersion) => boolean {
  return (release, from, to) => {
    try {
      const a = computeValues(release, { ...cfg, bundleVersion: from }, inputs);
      const b = computeValues(release, { ...cfg, bundleVersion: to }, inputs);
      return canonical(a) !== canonical(b);
    } catch {
      return true;
    }
  };
}

/**
 * The objects the upgrade's steps delete before a release moves, so that Helm creates them anew: the Bitnami-shaped
 * StatefulSet `cassandra-system/cassandra`, which the adoption's first half deletes (`--cascade=orphan`) when it
 * acts in this move (components/upgradeSteps.ts). The preview's server-side dry run sends these as creates
 * (engine/dryRun.ts). Input: the plan and a release name. Output: the objects (none for other releases).
 */
export function deletedBeforeRelease(plan: UpgradePlan, release: string): ObjectRef[] {
  if (release !== "cassandra" || !plan.cassandraAdoptionRuns) return [];
  return [{ group: "apps", kind: "StatefulSet", namespace: "cassandra-system", name: "cassandra" }];
}

/**
 * The values an adopted Cassandra needs on top of what the bundle gives it (merged last, over
 * `nvcf:releaseValues`: the layout of the data on the volumes is not a choice): `persistence.subPath: data`, so
 * the Bitnami nesting surfaces at the official image's paths, and the cassandra.yaml settings the Bitnami fleet
 * wrote its data with (`uuid_sstable_identifiers_enabled: true`, `storage_compatibility_mode: NONE`), which
 * NVIDIA's chart takes under `cassandra.config` (also its defaults at 0.20.1; set here so no override drops
 * them). Input: release name, whether the data is adopted. Output: a values layer (empty otherwise).
 */
export function upgradeValues(release: string, adopted: boolean): Values {
  if (release !== "cassandra" || !adopted) return {};
  return {
    cassandra: {
      persistence: { subPath: "data" },
      config: { uuid_sstable_identifiers_enabled: true, storage_compatibility_mode: "NONE" },
    },
  };
}

/**
 * The subject of a control-plane stack's plan (pure). Input: the validated config, the stack's name and what the
 * config installs (default: its `stackReleases`). Output: the subject.
 */
export function controlSubject(
  cfg: ControlPlaneConfig,
  stack: string,
  releases: StackReleases = stackReleases(cfg),
): UpgradeSubject {
  return {
    stack,
    releases,
    releasesAt: (bundle) => stackReleases(cfg, bundle),
    versionOverrides: cfg.charts.versionOverrides,
    valuesDiffer: controlValuesDiffer(cfg),
    backupsCopiedOffNode: cfg.upgrade.backupsCopiedOffNode,
    cassandra: { namespace: "cassandra-system", replicas: cfg.cassandra.replicas },
  };
}

/**
 * The subject of a compute-plane stack's plan (pure). Input: the validated config, the stack's name, the inputs
 * the control plane hands it (for comparing values) and what the config installs (default: its `stackReleases`).
 * Output: the subject.
 */
export function computeSubject(
  cfg: ComputePlaneConfig,
  stack: string,
  inputs?: ComputeInputs,
  releases: StackReleases = stackReleases(cfg),
): UpgradeSubject {
  return {
    stack,
    releases,
    releasesAt: (bundle) => stackReleases(cfg, bundle),
    versionOverrides: cfg.charts.versionOverrides,
    ...(inputs ? { valuesDiffer: computeValuesDiffer(cfg, inputs) } : {}),
  };
}

/** A spec's needs, transitively (release names), for the flags given. */
export function prerequisitesOf(
  name: string,
  specs: readonly ReleaseSpec[],
  flags: Readonly<Record<EnableFlag, boolean>>,
): Set<string> {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const out = new Set<string>();
  const visit = (n: string) => {
    const s = byName.get(n);
    if (!s) return;
    for (const d of activeNeeds(s, flags))
      if (!out.has(d)) {
        out.add(d);
        visit(d);
      }
  };
  visit(name);
  return out;
}

/**
 * The order a control plane registers its releases in during a move (still a dependency order): openbao-server
 * and its prerequisites first, then cassandra, then the rest as given, so that every later release can wait for
 * the OpenBao and Cassandra phases (components/upgradeSteps.ts). Input: releases in dependency order and the
 * flags. Output: the same releases, reordered; and the names that must not wait (openbao-server's prerequisites).
 */
export function movePhaseOrder(
  releases: readonly ReleaseSpec[],
  flags: Readonly<Record<EnableFlag, boolean>>,
): { order: ReleaseSpec[]; exempt: Set<string> } {
  const exempt = releases.some((r) => r.name === "openbao-server")
    ? prerequisitesOf("openbao-server", releases, flags)
    : new Set<string>();
  const first = releases.filter((r) => exempt.has(r.name) || r.name === "openbao-server");
  const cassandra = releases.filter((r) => r.name === "cassandra");
  const rest = releases.filter((r) => !first.includes(r) && !cassandra.includes(r));
  return { order: [...first, ...cassandra, ...rest], exempt };
}
