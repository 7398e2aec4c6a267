/**
 * Settings that cannot change in place once a release is installed, and settings a chart reads only at install
 * (docs/installed-settings.md lists them all, with the way out of each).
 *
 * The program records, at every `pulumi up`, the value each such setting was deployed with: plain values in the
 * stack output `installed` (`InstalledRecord`), credentials as digests in the secret output `installedDigests`.
 * The next run reads both back (stacks/installedSettings.ts `readDeployed`, from the backend, so `pulumi preview` can do
 * it too) and, before it registers any resource, refuses every change of a setting the cluster cannot take in
 * place, each naming the config key, the deployed value and the way out: a documented procedure followed by
 * `nvcf:allowInstalledChanges`. Settings a chart applies again on every upgrade through a hook are let through,
 * and the preview says which hook applies them (`InstalledChanges.notes`).
 *
 * Facts (charts at the versions the catalog pins, NVIDIA/nvcf): a StatefulSet's `selector`, `serviceName`,
 * `podManagementPolicy` and `volumeClaimTemplates` cannot be updated (Kubernetes' StatefulSet update validation
 * allows `replicas`, `ordinals`, `template`, `updateStrategy`, `revisionHistoryLimit`,
 * `persistentVolumeClaimRetentionPolicy` and `minReadySeconds` only) and a Deployment's `selector` neither,
 * so `helm upgrade` fails on them; a renamed StatefulSet is a new one with new, empty volumes.
 * `deploy/helm/cassandra/helm/templates/hook-pre-01-initdb-configmap.yaml` (pre-install only) writes the system
 * keyspaces' replication from `replicaCount`, and `migrations/cassandra/keyspaces/*` create the keyspaces and the
 * service roles (with `SERVICE_ROLE_PASSWORD`) only if they do not exist; `deploy/helm/openbao/helm/scripts/
 * deploy.sh` (post-install Job `initialize-cluster`) initialises OpenBao once and joins pods 0-2 to its raft
 * cluster; `deploy/helm/nats/templates/nkey-secret.yaml` and `nats-auth-callout-nkeys-secret.yaml` keep their
 * NKeys by `lookup` under the configured Secret names; KAI's chart renders its default Queues only when
 * `.Release.IsInstall` (kai-scheduler v0.16.7 `deployments/kai-scheduler`).
 */
import { createHash } from "node:crypto";
import type { Plane } from "../catalog/releases";
import { valueAt } from "./paths";
import { type Problem, describe } from "./problems";

/** How the program treats a change of an installed setting. */
export type InstalledHandling =
  /** Refused before anything is touched, with the procedure; `nvcf:allowInstalledChanges` lets it through. */
  | "refuse"
  /** Let through: a hook of the release applies it on every upgrade; the preview names that hook. */
  | "applied";

/** One setting whose deployed value is recorded and compared. */
export interface InstalledSetting {
  /** Identifier, as `nvcf:allowInstalledChanges` names it and docs/installed-settings.md lists it. */
  id: string;
  /** The planes whose stacks install the release (the observability releases are on both). */
  planes: readonly Plane[];
  /** The release whose objects carry it (a catalog release name). */
  release: string;
  /** Paths in the release's values (as installed: the program's values with `nvcf:releaseValues` merged). */
  paths: readonly string[];
  /** Paths among `paths` that hold a credential: recorded as a digest, compared without ever being shown. */
  secretPaths?: readonly string[];
  /** First-class config keys (without `nvcf:`) that set a path, by path; unlisted paths come only from releaseValues. */
  configKeys?: Readonly<Record<string, string>>;
  /** What carries the setting on the cluster, e.g. the StatefulSet field or the install-only hook. */
  carriedBy: string;
  /** Why a change cannot be applied by `helm upgrade`, or how it is applied (`applied`). */
  why: string;
  handling: InstalledHandling;
  /** `refuse`: the way out (a procedure, before `nvcf:allowInstalledChanges`). `applied`: the resource that applies it. */
  fix: string;
}

/** Where the procedures are written out. */
export const INSTALLED_DOC = "docs/installed-settings.md";

const STATEFULSET_WHY =
  "Kubernetes does not change a StatefulSet's selector, serviceName or podManagementPolicy, and a renamed StatefulSet gets new, empty volumes";
const VOLUMES_WHY = "Kubernetes does not change a StatefulSet's volumeClaimTemplates, so helm upgrade fails";
const VOLUMES_FIX =
  "grow each PersistentVolumeClaim (kubectl patch pvc; the StorageClass must allow expansion) or move the data to new claims, then delete the StatefulSet with kubectl delete statefulset --cascade=orphan (pods and claims stay)";
const SELECTOR_WHY = "Kubernetes does not change a workload's selector, so helm upgrade fails";
const SELECTOR_FIX = "delete the release's Deployments and StatefulSets with kubectl delete --cascade=orphan";

/**
 * NVIDIA's service charts whose `<name>.name` helper (`templates/_helpers.tpl`, HEAD and the pinned tags) reads
 * `<values key>.nameOverride` into the workloads' `app.kubernetes.io/name` selector label: release → the values
 * path of that `nameOverride`. The program sets `fullnameOverride` on these charts, so a new `nameOverride`
 * keeps the object names and changes only the selector.
 */
const SELECTOR_NAME_OVERRIDES: readonly [Plane, string, string][] = [
  ["control", "cert-manager", "cert-manager.nameOverride"],
  ["control", "api-keys", "apikeys.nameOverride"],
  ["control", "sis", "sis.nameOverride"],
  ["control", "api", "api.nameOverride"],
  ["control", "nvct-api", "nvctApi.nameOverride"],
  ["control", "invocation-service", "invocation.nameOverride"],
  ["control", "grpc-proxy", "grpcproxy.nameOverride"],
  ["control", "ratelimiter", "rateLimiter.nameOverride"],
  ["control", "ess-api", "ess.nameOverride"],
  ["control", "notary-service", "notary.nameOverride"],
  ["control", "admin-issuer-proxy", "adminIssuerProxy.nameOverride"],
  ["control", "reval", "reval.nameOverride"],
  ["control", "nats-auth-callout-service", "nameOverride"],
  ["control", "llm-api-gateway", "llmApiGateway.nameOverride"],
  ["control", "vanity-gateway", "vanityGateway.nameOverride"],
  ["control", "nvcf-ui", "nvcfUi.nameOverride"],
  ["control", "function-autoscaler", "functionautoscaler.nameOverride"],
  ["compute", "nvca-operator", "nameOverride"],
];

/**
 * The way out of an immutable field the API server refuses to change (a refusal of the preview's server-side dry
 * run, engine/dryRun.ts). Input: the object (kind, namespace, name) and the refused field paths as the API server
 * names them (`spec.volumeClaimTemplates`, `spec.selector`). Output: the fix, naming the object's own
 * `kubectl delete`: a StatefulSet's volumes follow docs/installed-settings.md's procedure; any other object is
 * deleted so that the update creates it anew, a StatefulSet with `--cascade=orphan` (pods and claims stay).
 */
export function immutableFieldFix(
  object: { kind: string; namespace?: string; name: string },
  fields: readonly string[],
): string {
  const { kind, namespace, name } = object;
  if (kind === "StatefulSet" && fields.some((f) => /(^|\.)volumeClaimTemplates\b/.test(f)))
    return `${VOLUMES_FIX} (${INSTALLED_DOC})`;
  const orphan = kind === "StatefulSet" ? " --cascade=orphan" : "";
  const where = namespace ? ` -n ${namespace}` : "";
  const after =
    kind === "StatefulSet"
      ? "pods and claims stay, and the update creates it anew"
      : kind === "Deployment" || kind === "DaemonSet"
        ? "its pods are replaced when the update creates it anew"
        : "the update creates it anew";
  return `keep ${fields.join(", ") || "the field"} as deployed, or delete the object first (kubectl delete ${kind.toLowerCase()} ${name}${where}${orphan}: ${after}; ${INSTALLED_DOC})`;
}

/** Every setting the program records and compares (docs/installed-settings.md has the same table). */
export const INSTALLED_SETTINGS: readonly InstalledSetting[] = [
  {
    id: "cassandra.volumes",
    planes: ["control"],
    release: "cassandra",
    paths: [
      "cassandra.persistence.size",
      "cassandra.persistence.storageClass",
      "cassandra.persistence.enabled",
      "cassandra.persistence.accessModes",
      "cassandra.global.defaultStorageClass",
      "cassandra.global.storageClass",
    ],
    configKeys: {
      "cassandra.persistence.size": "storage.size",
      "cassandra.global.defaultStorageClass": "storage.className",
    },
    carriedBy: "Cassandra's data volumes (StatefulSet cassandra-system/cassandra)",
    why: VOLUMES_WHY,
    handling: "refuse",
    fix: VOLUMES_FIX,
  },
  {
    id: "cassandra.statefulSet",
    planes: ["control"],
    release: "cassandra",
    paths: [
      "cassandra.namespace",
      "cassandra.fullnameOverride",
      "cassandra.nameOverride",
      "cassandra.podManagementPolicy",
    ],
    carriedBy: "StatefulSet cassandra-system/cassandra",
    why: STATEFULSET_WHY,
    handling: "refuse",
    fix: "move the data to a new Cassandra (datacenter expansion, or backup and restore)",
  },
  {
    id: "cassandra.cluster",
    planes: ["control"],
    release: "cassandra",
    paths: ["cassandra.cluster.name", "cassandra.cluster.datacenter", "cassandra.cluster.numTokens"],
    carriedBy: "the cluster name, datacenter and tokens in Cassandra's data",
    why: "a node configured otherwise than its data does not start",
    handling: "refuse",
    fix: "move the data to a new Cassandra (datacenter expansion, or backup and restore)",
  },
  {
    id: "cassandra.replication",
    planes: ["control"],
    release: "cassandra",
    paths: ["cassandra.replicaCount"],
    configKeys: { "cassandra.replicaCount": "cassandra.replicas" },
    carriedBy: "the replication of Cassandra's keyspaces",
    why: "only the install-only hooks set it (ConfigMap cassandra-init-cql, CREATE KEYSPACE IF NOT EXISTS), so an upgrade changes the pods, not the replication",
    handling: "refuse",
    fix: "scale, then ALTER KEYSPACE every keyspace to the new replication and run nodetool repair -full on each node",
  },
  {
    id: "cassandra.superuser",
    planes: ["control"],
    release: "cassandra",
    paths: ["cassandra.dbUser.user", "cassandra.dbUser.password"],
    secretPaths: ["cassandra.dbUser.password"],
    carriedBy: "Cassandra's superuser",
    why: "the initialize-cluster hook can set it only while Cassandra has its default one, so a later change fails the hook",
    handling: "refuse",
    fix: "ALTER ROLE the superuser in cqlsh first",
  },
  {
    id: "nats.volumes",
    planes: ["control"],
    release: "nats",
    paths: [
      "nats.config.jetstream.enabled",
      "nats.config.jetstream.fileStore.enabled",
      "nats.config.jetstream.fileStore.pvc.enabled",
      "nats.config.jetstream.fileStore.pvc.name",
      "nats.config.jetstream.fileStore.pvc.size",
      "nats.config.jetstream.fileStore.pvc.storageClassName",
    ],
    configKeys: { "nats.config.jetstream.fileStore.pvc.storageClassName": "storage.className" },
    carriedBy: "NATS JetStream's volumes (StatefulSet nats-system/nats)",
    why: VOLUMES_WHY,
    handling: "refuse",
    fix: VOLUMES_FIX,
  },
  {
    id: "nats.statefulSet",
    planes: ["control"],
    release: "nats",
    paths: [
      "nats.fullnameOverride",
      "nats.nameOverride",
      "nats.namespaceOverride",
      "nats.statefulSet.name",
      "nats.headlessService.name",
      "nats.statefulSet.merge.spec.podManagementPolicy",
      "nats.statefulSet.merge.spec.serviceName",
      "nats.statefulSet.merge.spec.selector",
      "nats.statefulSet.merge.spec.volumeClaimTemplates",
    ],
    carriedBy: "StatefulSet nats-system/nats",
    why: STATEFULSET_WHY,
    handling: "refuse",
    fix: "delete StatefulSet nats-system/nats and its claims (JetStream's data is lost)",
  },
  {
    id: "nats.nkeys",
    planes: ["control"],
    release: "nats",
    paths: [
      "nats.natsBox.contexts.default.nkey.secretName",
      "nats.authCallout.secretName",
      "nats.authCallout.createNkeySecret",
      "authCallout.secretName",
      "authCallout.createNkeySecret",
    ],
    carriedBy: "NATS's NKey Secrets",
    why: "the chart generates NKeys once per Secret name (lookup), so a new name means new keys that OpenBao's copy does not hold",
    handling: "refuse",
    fix: "copy the NKey Secrets to the new names first",
  },
  {
    id: "openbao-server.volumes",
    planes: ["control"],
    release: "openbao-server",
    paths: [
      "openbao.server.dataStorage.enabled",
      "openbao.server.dataStorage.size",
      "openbao.server.dataStorage.storageClass",
      "openbao.server.dataStorage.accessMode",
      "openbao.server.auditStorage.enabled",
      "openbao.server.auditStorage.size",
      "openbao.server.auditStorage.storageClass",
      "openbao.server.auditStorage.accessMode",
    ],
    configKeys: {
      "openbao.server.dataStorage.size": "storage.size",
      "openbao.server.dataStorage.storageClass": "storage.className",
    },
    carriedBy: "OpenBao's volumes (StatefulSet vault-system/openbao-server)",
    why: VOLUMES_WHY,
    handling: "refuse",
    fix: VOLUMES_FIX,
  },
  {
    id: "openbao-server.statefulSet",
    planes: ["control"],
    release: "openbao-server",
    paths: [
      "openbao.fullnameOverride",
      "openbao.nameOverride",
      "openbao.namespace",
      "openbao.server.podManagementPolicy",
    ],
    carriedBy: "StatefulSet vault-system/openbao-server and its unseal Secret",
    why: `${STATEFULSET_WHY}, and the install-only initialize-cluster Job does not run again`,
    handling: "refuse",
    fix: "keep them (every service reaches OpenBao as openbao-server in vault-system), or install OpenBao afresh",
  },
  {
    id: "openbao-server.raft",
    planes: ["control"],
    release: "openbao-server",
    paths: ["openbao.server.ha.enabled", "openbao.server.ha.replicas", "openbao.server.ha.raft.enabled"],
    carriedBy: "OpenBao's raft cluster",
    why: "only the install-only initialize-cluster Job joins raft peers (pods 0-2)",
    handling: "refuse",
    fix: "join or remove the raft peers with bao operator raft as the pods change",
  },
  {
    id: "victoria-metrics.volumes",
    planes: ["control", "compute"],
    release: "victoria-metrics",
    paths: [
      "server.mode",
      "server.persistentVolume.enabled",
      "server.persistentVolume.name",
      "server.persistentVolume.size",
      "server.persistentVolume.storageClassName",
      "server.persistentVolume.accessModes",
    ],
    carriedBy: "the metrics store's volume (StatefulSet vmsingle)",
    why: VOLUMES_WHY,
    handling: "refuse",
    fix: VOLUMES_FIX,
  },
  {
    id: "victoria-metrics.statefulSet",
    planes: ["control", "compute"],
    release: "victoria-metrics",
    paths: ["server.fullnameOverride", "fullnameOverride", "nameOverride", "server.service.clusterIP"],
    carriedBy: "StatefulSet and Service vmsingle",
    why: `${STATEFULSET_WHY}; a Service's clusterIP cannot change either`,
    handling: "refuse",
    fix: "delete StatefulSet and Service vmsingle and the claim (the metrics are lost)",
  },
  {
    id: "llm-request-router.statefulSet",
    planes: ["control"],
    release: "llm-request-router",
    paths: ["llmRequestRouter.service.headlessName", "llmRequestRouter.nameOverride"],
    carriedBy: "StatefulSet nvcf/llm-request-router",
    why: STATEFULSET_WHY,
    handling: "refuse",
    fix: "delete StatefulSet nvcf/llm-request-router with --cascade=orphan (it keeps no data)",
  },
  {
    id: "openbao-server.issuerDiscovery",
    planes: ["control"],
    release: "openbao-server",
    paths: ["openbao.migrations.issuerDiscovery"],
    configKeys: { "openbao.migrations.issuerDiscovery.enabled": "openbao.issuerDiscovery" },
    carriedBy: "OpenBao's JWT auth configuration, written by the migrations",
    why: "applied on every upgrade",
    handling: "applied",
    fix: "the post-install/post-upgrade hook Job vault-system/openbao-server-migrations of release openbao-server",
  },
  {
    id: "sis.lls",
    planes: ["control"],
    release: "sis",
    paths: ["sis.lls"],
    configKeys: { "sis.lls.enabled": "addons.lls.enabled" },
    carriedBy: "the LLS records the sis migrations write to OpenBao and Cassandra",
    why: "applied on every upgrade",
    handling: "applied",
    fix: "the post-install/post-upgrade hook Job addons-lls-migrations of release sis",
  },
  {
    id: "llm-request-router.pki",
    planes: ["control"],
    release: "llm-request-router",
    paths: ["llmRequestRouter.pki"],
    configKeys: {
      "llmRequestRouter.pki.allowedDomains": "addons.llm.pki.allowedDomains",
      "llmRequestRouter.pki.image.tag": "addons.llm.pki.imageTag",
    },
    carriedBy: "the router's OpenBao PKI role and issuing hierarchy",
    why: "applied on every upgrade",
    handling: "applied",
    fix: "the pre-install/pre-upgrade hook Job addons-llm-migrations of release llm-request-router",
  },
  {
    id: "kai-scheduler.defaultQueues",
    planes: ["compute"],
    release: "kai-scheduler",
    paths: ["defaultQueue"],
    carriedBy: "KAI's default Queues",
    why: "the chart renders them only at install (.Release.IsInstall), so an upgrade leaves them as they are",
    handling: "refuse",
    fix: "edit the Queues with kubectl edit queues.scheduling.run.ai",
  },
  {
    id: "dynamo-operator.natsVolumes",
    planes: ["compute"],
    release: "dynamo-operator",
    paths: [
      "nats.fullnameOverride",
      "nats.nameOverride",
      "nats.config.jetstream.fileStore.pvc.enabled",
      "nats.config.jetstream.fileStore.pvc.name",
      "nats.config.jetstream.fileStore.pvc.size",
      "nats.config.jetstream.fileStore.pvc.storageClassName",
    ],
    carriedBy: "Dynamo's NATS StatefulSet in dynamo-system",
    why: VOLUMES_WHY,
    handling: "refuse",
    fix: VOLUMES_FIX,
  },
  ...SELECTOR_NAME_OVERRIDES.map(
    ([plane, release, path]): InstalledSetting => ({
      id: `${release}.selector`,
      planes: [plane],
      release,
      paths: [path],
      carriedBy: `the selector of release ${release}'s workloads`,
      why: SELECTOR_WHY,
      handling: "refuse",
      fix: SELECTOR_FIX,
    }),
  ),
];

/** The Cassandra password's setting id (recorded by digest from `nvcf:cassandraPassword` or the generated one). */
export const CASSANDRA_PASSWORD_ID = "cassandra.password";

/** Every id `nvcf:allowInstalledChanges` may name on a plane (refused settings only). */
export function allowableIds(plane: Plane): string[] {
  const ids = INSTALLED_SETTINGS.filter((s) => s.planes.includes(plane) && s.handling === "refuse").map(
    (s) => s.id,
  );
  return plane === "control" ? [CASSANDRA_PASSWORD_ID, ...ids] : ids;
}

/**
 * What a stack records about its installed settings (stack output `installed`): per setting id, per values path,
 * the deployed value (`null`: the chart's default; a secret path holds `"[digest]"`, its digest is in
 * `installedDigests`), and how the Cassandra password was chosen.
 */
export interface InstalledRecord {
  version: 1;
  settings: Record<string, Record<string, unknown>>;
  /** `config`: nvcf:cassandraPassword; `generated`: the program's RandomPassword. Control plane only. */
  cassandraPassword?: "config" | "generated";
}

/** Digests of the recorded credentials (stack output `installedDigests`, secret): `<id>:<path>` → digest. */
export type InstalledDigests = Record<string, string>;

/** A value's digest as recorded (SHA-256, hex, of a fixed label, the key and the value's JSON). */
export function digestOf(key: string, value: unknown): string {
  return createHash("sha256")
    .update(`nvcf-pulumi installed setting\0${key}\0${canonical(value)}`)
    .digest("hex");
}

/** JSON with object keys sorted (so equal values compare equal), `null` for undefined. */
function canonical(v: unknown): string {
  if (v === undefined || v === null) return "null";
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object")
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** The settings that apply to a stack: its plane's, for the releases it installs. */
export function settingsInForce(plane: Plane, releases: readonly string[]): InstalledSetting[] {
  const on = new Set(releases);
  return INSTALLED_SETTINGS.filter((s) => s.planes.includes(plane) && on.has(s.release));
}

/** Input of `installedRecord`: what the stack installs and with which values. */
export interface InstalledInput {
  plane: Plane;
  /** Release names the stack installs (enabled in its config and bundle). */
  releases: readonly string[];
  /** The values a release is installed with (program values with `nvcf:releaseValues` merged; secrets as plain text). */
  values: (release: string) => Record<string, unknown>;
  /** Control plane: the Cassandra password's origin. */
  cassandraPassword?: "config" | "generated";
}

/**
 * The record of a stack's installed settings (pure). Input: `InstalledInput`. Output: the plain record (the
 * `installed` output) and the digests of its secret paths (part of `installedDigests`; the Cassandra
 * password's digest is added by `cassandraPasswordDigest`).
 */
export function installedRecord(input: InstalledInput): {
  record: InstalledRecord;
  digests: InstalledDigests;
} {
  const record: InstalledRecord = { version: 1, settings: {} };
  const digests: InstalledDigests = {};
  const cache = new Map<string, Record<string, unknown>>();
  const valuesOf = (r: string) => {
    let v = cache.get(r);
    if (!v) cache.set(r, (v = input.values(r)));
    return v;
  };
  for (const s of settingsInForce(input.plane, input.releases)) {
    const entry: Record<string, unknown> = {};
    for (const p of s.paths) {
      const v = valueAt(valuesOf(s.release), p);
      if (s.secretPaths?.includes(p)) {
        entry[p] = v === undefined ? null : "[digest]";
        if (v !== undefined) digests[`${s.id}:${p}`] = digestOf(`${s.id}:${p}`, v);
      } else entry[p] = v === undefined ? null : JSON.parse(canonical(v));
    }
    record.settings[s.id] = entry;
  }
  if (input.cassandraPassword) record.cassandraPassword = input.cassandraPassword;
  return { record, digests };
}

/** The digest entry of the Cassandra password (`installedDigests`). */
export function cassandraPasswordDigest(password: string): InstalledDigests {
  return { [CASSANDRA_PASSWORD_ID]: digestOf(CASSANDRA_PASSWORD_ID, password) };
}

/** The current state to compare with the deployed one. */
export interface CurrentInstalled {
  record: InstalledRecord;
  digests: InstalledDigests;
  /** Control plane: `nvcf:cassandraPassword` when set (plain, compared by digest only). */
  cassandraPassword?: string;
  /** `nvcf:allowInstalledChanges`. */
  allow: readonly string[];
  /** `nvcf:releaseValues` of the stack (to name the key a path comes from). */
  releaseValues: Record<string, Record<string, unknown>>;
}

/** What was deployed, as the stack's previous outputs hold it (absent parts: nothing recorded). */
export interface DeployedInstalled {
  record?: InstalledRecord;
  digests?: InstalledDigests;
}

/** The result of comparing: problems (refused changes) and the lines the preview prints (`warn` or `info`). */
export interface InstalledChanges {
  problems: Problem[];
  notes: { level: "info" | "warn"; message: string }[];
}

const K = (key: string) => `nvcf:${key}`;
/** `nvcf:<path>` quoted for a shell when it holds `[`/`]`. */
const Q = (key: string) => (/[[\]]/.test(key) ? `'${K(key)}'` : K(key));

/**
 * Whether the user's `releaseValues` of a release sets a path: the path itself, or an ancestor given as a value
 * that is not a map (which replaces everything below it).
 */
function setInReleaseValues(
  rv: Record<string, Record<string, unknown>>,
  release: string,
  path: string,
): boolean {
  const parts = path.split(".");
  for (let i = 1; i <= parts.length; i++) {
    const v = valueAt(rv[release], parts.slice(0, i));
    if (v === undefined) return false;
    if (v === null || typeof v !== "object" || Array.isArray(v)) return true;
  }
  return true;
}

/** One changed path. */
interface Change {
  setting: InstalledSetting;
  path: string;
  /** Config key the change comes from (without `nvcf:`). */
  key: string;
  /** True when `key` is a first-class key (not a releaseValues path). */
  firstClass: boolean;
  deployed: unknown;
  now: unknown;
  secret: boolean;
}

/** The config key (without `nvcf:`) that decides a path now: its releaseValues path, else its first-class key. */
function keyOf(
  s: InstalledSetting,
  path: string,
  rv: Record<string, Record<string, unknown>>,
): { key: string; firstClass: boolean } {
  const first = Object.entries(s.configKeys ?? {}).find(([p]) => p === path || p.startsWith(`${path}.`));
  if (setInReleaseValues(rv, s.release, path) || !first)
    return { key: `releaseValues.${s.release}.${path}`, firstClass: false };
  return { key: first[1], firstClass: true };
}

/** How to put a key back to its deployed value. */
function restore(c: Change): string {
  if (c.secret) return `set ${K(c.key)} back to the deployed value`;
  if (c.deployed === null || c.deployed === undefined) return `pulumi config rm --path ${Q(c.key)}`;
  const v = typeof c.deployed === "string" ? c.deployed : JSON.stringify(c.deployed);
  return `pulumi config set --path ${Q(c.key)} ${/^[\w./:-]+$/.test(v) ? v : `'${v}'`}`;
}

/** Where the password problem's fix names its override command (filled in with the next free index). */
const ALLOW_PLACEHOLDER = "<allow>";

/**
 * Compares what a stack would install with what it deployed (pure). Input: the current record, digests,
 * Cassandra password, allow list and releaseValues; the deployed record and digests (absent on a first run:
 * nothing is compared). Output: one problem per config key whose change is refused (key, the deployed value,
 * what it would become, the procedure and the override), and notes: changes let through by
 * `nvcf:allowInstalledChanges` or applied by a hook (with the hook), and allow-list entries with nothing to allow.
 * Secrets are never shown: a changed credential reads `[secret]`.
 */
export function installedChanges(current: CurrentInstalled, deployed: DeployedInstalled): InstalledChanges {
  const out: InstalledChanges = { problems: [], notes: [] };
  const prev = deployed.record;
  if (!prev || prev.version !== 1) return out;
  const changes: Change[] = [];
  for (const [id, entry] of Object.entries(current.record.settings)) {
    const setting = INSTALLED_SETTINGS.find((s) => s.id === id);
    const before = prev.settings[id];
    if (!setting || !before) continue;
    for (const path of setting.paths) {
      // A path the deployed record does not hold (recorded by an older program) is recorded now, not compared.
      if (!(path in before)) continue;
      const secret = setting.secretPaths?.includes(path) === true;
      const was = before[path] ?? null;
      const now = entry[path] ?? null;
      let changed: boolean;
      if (secret) {
        const k = `${id}:${path}`;
        changed =
          (was === null) !== (now === null) || (now !== null && deployed.digests?.[k] !== current.digests[k]);
      } else changed = canonical(was) !== canonical(now);
      if (!changed) continue;
      const { key, firstClass } = keyOf(setting, path, current.releaseValues);
      changes.push({ setting, path, key, firstClass, deployed: was, now, secret });
    }
  }
  const passwordProblem = cassandraPasswordChange(current, prev, deployed.digests);
  const allowed = new Set(current.allow);
  const changedIds = new Set(changes.map((c) => c.setting.id));
  if (passwordProblem) changedIds.add(CASSANDRA_PASSWORD_ID);

  // Refused changes, one problem per config key; each override command takes the next free list index.
  const refused = changes.filter((c) => c.setting.handling === "refuse" && !allowed.has(c.setting.id));
  const byKey = new Map<string, Change[]>();
  for (const c of refused) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
  let nextIndex = current.allow.length;
  const allowCommands = (ids: readonly string[]) =>
    ids
      .map((id) => `pulumi config set --path 'nvcf:allowInstalledChanges[${nextIndex++}]' ${id}`)
      .join(" and ");
  for (const [key, list] of byKey) {
    const first = list[0];
    const settings = [...new Set(list.map((c) => c.setting))];
    const whys = [...new Set(settings.map((s) => s.why))];
    const fixes = [...new Set(settings.map((s) => s.fix))];
    out.problems.push({
      key: K(key),
      expected: `${first.secret ? "the deployed value" : describe(first.deployed)}, the value deployed for ${settings
        .map((s) => s.carriedBy)
        .join(" and ")} (${whys.join("; ")})`,
      found: first.secret ? "[secret] (another value)" : describe(first.now),
      fix: `${restore(first)}; or, to change it, ${fixes.join("; ")}, then ${allowCommands(settings.map((s) => s.id))} (${INSTALLED_DOC})`,
    });
  }
  if (passwordProblem && !allowed.has(CASSANDRA_PASSWORD_ID))
    out.problems.push({
      ...passwordProblem,
      fix: passwordProblem.fix.replace(ALLOW_PLACEHOLDER, allowCommands([CASSANDRA_PASSWORD_ID])),
    });

  // Let through: allowed, or applied by a hook.
  for (const c of changes) {
    const what = c.secret ? "[secret] → [secret]" : `${describe(c.deployed)} → ${describe(c.now)}`;
    if (c.setting.handling === "applied")
      out.notes.push({
        level: "info",
        message: `${K(c.key)}: ${what}, applied by ${c.setting.fix} (${c.setting.carriedBy})`,
      });
    else if (allowed.has(c.setting.id))
      out.notes.push({
        level: "warn",
        message: `${K(c.key)}: ${what} for ${c.setting.carriedBy}, let through by nvcf:allowInstalledChanges (${c.setting.id}): release ${c.setting.release} applies it, which works only after: ${c.setting.fix} (${INSTALLED_DOC})`,
      });
  }
  if (passwordProblem && allowed.has(CASSANDRA_PASSWORD_ID))
    out.notes.push({
      level: "warn",
      message: `${passwordProblem.key}: the Cassandra password changes, let through by nvcf:allowInstalledChanges (${CASSANDRA_PASSWORD_ID}): releases cassandra and openbao-server (its migrations) apply it, which works only after the service roles' passwords were changed in Cassandra (${INSTALLED_DOC})`,
    });
  current.allow.forEach((id, i) => {
    if (!changedIds.has(id))
      out.notes.push({
        level: "warn",
        message: `nvcf:allowInstalledChanges[${i}] (${id}): nothing of it changes against what is deployed; remove it once the change it allowed is deployed (pulumi config rm --path 'nvcf:allowInstalledChanges[${i}]')`,
      });
  });
  return out;
}

/**
 * The Cassandra password's change, if any (a problem, whether or not it is allowed). The deployed password is
 * known by its digest and origin: a password set now must have the deployed digest; none set now is fine only
 * if the deployed one was generated (the RandomPassword in the state keeps it).
 */
function cassandraPasswordChange(
  current: CurrentInstalled,
  prev: InstalledRecord,
  digests: InstalledDigests | undefined,
): Problem | undefined {
  if (prev.cassandraPassword === undefined || current.record.cassandraPassword === undefined)
    return undefined;
  const deployedDigest = digests?.[CASSANDRA_PASSWORD_ID];
  const why =
    "Cassandra keeps the service roles' password from the install, while OpenBao would hand the new one to every service, which then cannot log in";
  const procedure = `rotate it in a separate maintenance step first (ALTER ROLE … WITH PASSWORD for each service role in cqlsh), then ${ALLOW_PLACEHOLDER} (${INSTALLED_DOC})`;
  if (current.cassandraPassword === undefined) {
    if (prev.cassandraPassword === "generated") return undefined;
    return {
      key: K("cassandraPassword"),
      expected: `the password deployed, set in nvcf:cassandraPassword (${why})`,
      found: "nothing, so the program would generate a new password",
      fix: `pulumi config set --secret nvcf:cassandraPassword <the deployed password>; or, to change it, ${procedure}`,
    };
  }
  if (
    deployedDigest === undefined ||
    digestOf(CASSANDRA_PASSWORD_ID, current.cassandraPassword) === deployedDigest
  )
    return undefined;
  return {
    key: K("cassandraPassword"),
    expected: `the password deployed${prev.cassandraPassword === "generated" ? ", which the program generated" : ""} (${why})`,
    found: "[secret] (another password)",
    fix: `${prev.cassandraPassword === "generated" ? "pulumi config rm nvcf:cassandraPassword" : "pulumi config set --secret nvcf:cassandraPassword <the deployed password>"}; or, to change it, ${procedure}`,
  };
}

/**
 * `nvcf:allowInstalledChanges` entries that name no setting of the plane (pure). Output: one problem per
 * unknown id, listing the ids there are.
 */
export function allowListProblems(plane: Plane, allow: readonly string[]): Problem[] {
  const ids = allowableIds(plane);
  return allow.flatMap((id, i) =>
    ids.includes(id)
      ? []
      : [
          {
            key: K(`allowInstalledChanges[${i}]`),
            expected: `a setting that cannot change in place on the ${plane} plane: one of ${ids.join(", ")}`,
            found: describe(id),
            fix: `pulumi config rm --path 'nvcf:allowInstalledChanges[${i}]' (${INSTALLED_DOC} lists the settings)`,
          },
        ],
  );
}
