/**
 * The server-side dry run of a preview: a Helm release's preview (`kubernetes.helm.v3.Release`) compares only its
 * inputs, so what the live cluster refuses (admission webhooks and policies, quotas, LimitRanges, immutable fields,
 * kinds it does not serve, missing permissions) would show up only in `pulumi up`, after other releases moved. In
 * every preview, `ServerDryRun` sends each object of each release that the update will install or change to the API
 * server as Helm will send it, with `dryRun=All` (kube/dryRun.ts), and fails the preview listing every refusal before
 * anything is touched; the API server's warnings (Pod Security admission, deprecated APIs, unknown fields) are shown
 * as warnings on the release.
 *
 * - Which releases: each stack records the digest of every release's inputs in its secret output `releaseInputs`
 *   (`RELEASE_INPUTS_OUTPUT`); a release whose digest differs (or that has none yet) is checked. So an unchanged
 *   program sends nothing and starts nothing. A stack deployed before it recorded digests compares each release
 *   with its Helm release record (chart version and values) instead.
 * - Rendering: the Kubernetes provider's own Helm (`kubernetes:helm:template`, the Helm that installs the release),
 *   with the cluster's Kubernetes version and API versions, the same chart source, version, credentials and values
 *   (nulls left out, as the provider leaves them out of a release's values). It renders as `helm template` does:
 *   a chart that branches on `.Release.IsUpgrade` or reads the cluster with `lookup` renders here as a fresh install
 *   would.
 * - Requests go through one `kubectl proxy` per preview (kube/apiServer.ts), as the identity `pulumi up` uses: a
 *   dry run needs the same write permissions as the change (docs/previews-and-checks.md).
 *
 * Runs only in previews (`pulumi preview`, the preview `pulumi up` shows before it asks, `nvcf preview`, `nvcf up`
 * and `nvcf upgrade` before they touch anything); `pulumi up --skip-preview` skips it, as it skips every preview.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { PROJECT_DIR, type ReleaseInputs } from "../components/release";
import { DryRunRefusal } from "../config/refusals";
import { ApiServer } from "../kube/apiServer";
import { type DryRunFinding, type ObjectRef, dryRunRelease, kindsDefined } from "../kube/dryRun";
import { type Obj, isObj, jsonEqual } from "../kube/helmPatch";
import { type HelmRelease, readHelmRelease } from "../kube/helmRecords";

/** The stack output holding each release's input digest (secret), by Helm release name. */
export const RELEASE_INPUTS_OUTPUT = "releaseInputs";

/** The field manager of Helm's requests inside the Kubernetes provider (Helm names them after the binary). */
export const HELM_FIELD_MANAGER = "pulumi-resource-kubernetes";

/** How the dry run reaches the cluster: as the stack's other kubectl calls do. */
export interface DryRunAccess {
  kubectl: string;
  context?: string;
  /** The cluster's kubeconfig text (a secret), when the stack has one instead of a context. */
  kubeconfig?: pulumi.Input<string>;
}

/** What one stack's dry run is built from. */
export interface ServerDryRunArgs {
  /** The stack's name, as refusals name it. */
  stack: string;
  /** The Kubernetes provider the releases use (its Helm renders the charts). */
  provider: k8s.Provider;
  access: DryRunAccess;
  /** The previous `releaseInputs` output (release → digest), when there is one. */
  previous: unknown;
  /** The stack has been deployed (it has previous outputs). */
  deployed: boolean;
  /** The objects an earlier step of this update deletes before a release moves (upgrade steps), by release. */
  deletedFirst?: (release: string) => readonly ObjectRef[];
}

/** A release the dry run follows, once its inputs are resolved. */
interface Watched {
  inputs: ReleaseInputs;
  /** Unset while the inputs are not known (a preview before the values exist). */
  resolved?: { namespace: string; values: Obj; password?: string; digest: string };
  /** Strings to redact from anything printed: the release's secret values (and their base64). */
  secrets: string[];
}

/** The text of a value removed at dotted paths (a copy). */
function without(values: Obj, paths: readonly string[]): Obj {
  const copy = JSON.parse(JSON.stringify(values)) as Obj;
  for (const p of paths) {
    const parts = p.split(".");
    let cur: unknown = copy;
    for (const k of parts.slice(0, -1)) cur = isObj(cur) ? cur[k] : undefined;
    if (isObj(cur)) delete cur[parts[parts.length - 1]];
  }
  return copy;
}

/** Values without null leaves (the provider drops them from a release's values before Helm sees them). */
export function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null && x !== undefined)
      .map(([k, x]) => [k, withoutNulls(x)]),
  );
}

/** JSON with object keys sorted (a stable text for digests). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v ?? null);
}

/**
 * The digest of a release's inputs (pure): sha256 of the canonical JSON of name, namespace, chart location,
 * version, credentials and values, without the value paths Pulumi ignores.
 */
export function inputDigest(
  i: Pick<ReleaseInputs, "releaseName" | "chart" | "version" | "username" | "ignoredValuePaths">,
  namespace: string,
  values: Obj,
  password: string | undefined,
): string {
  const text = canonical({
    name: i.releaseName,
    namespace,
    chart: i.chart.chart,
    repo: i.chart.repo ?? null,
    version: i.version,
    username: i.username ?? null,
    password: password ?? null,
    values: without(values, i.ignoredValuePaths),
  });
  return createHash("sha256").update(text).digest("hex");
}

const known = (o: pulumi.Output<unknown>): Promise<boolean> =>
  (o as unknown as { isKnown: Promise<boolean> }).isKnown;

/** The value of a known output. */
const valueOf = <T>(o: pulumi.Output<T>): Promise<T> => new Promise((resolve) => o.apply((v) => resolve(v)));

/** The string leaves of every secret output inside an input (a release's values), resolved. */
async function secretStrings(v: unknown, secret = false): Promise<string[]> {
  if (pulumi.Output.isInstance(v)) {
    if (!(await known(v))) return [];
    const s = secret || (await pulumi.isSecret(v));
    return secretStrings(await valueOf(v), s);
  }
  if (Array.isArray(v)) return (await Promise.all(v.map((x) => secretStrings(x, secret)))).flat();
  if (isObj(v)) return (await Promise.all(Object.values(v).map((x) => secretStrings(x, secret)))).flat();
  if (secret && (typeof v === "string" || typeof v === "number")) return [String(v)];
  return [];
}

/** Replaces every secret (and its base64 form) in a text by `[secret]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  const forms = secrets
    .filter((s) => s.length >= 4)
    .flatMap((s) => [s, Buffer.from(s).toString("base64")])
    .sort((a, b) => b.length - a.length);
  for (const f of forms) out = out.split(f).join("[secret]");
  return out;
}

/** The latest record of a release a `helm upgrade` starts from: the newest `deployed`, else the newest of any status. */
export function currentRecord(records: readonly HelmRelease[]): HelmRelease | undefined {
  const sorted = [...records].sort((a, b) => b.version - a.version);
  return sorted.find((r) => r.info?.status === "deployed") ?? sorted[0];
}

/**
 * The options of the provider's `kubernetes:helm:template` invoke that render a release as its `helm.v3.Release`
 * installs it (pure): a local chart by its directory (relative paths from `projectDir`), an OCI or HTTPS chart by
 * the same reference, repository and credentials the release fetches it with; the same version, namespace,
 * release name and values (null leaves dropped, as the provider drops them). `skipCrds`: without the chart's
 * `crds/`. The password is a secret: the options never leave the program but to the provider.
 */
export function templateOptions(
  inputs: Pick<ReleaseInputs, "chart" | "version" | "releaseName" | "username">,
  resolved: { namespace: string; values: Obj; password?: string },
  skipCrds: boolean,
  projectDir: string = PROJECT_DIR,
): Record<string, unknown> {
  const ref = inputs.chart;
  const local = ref.kind === "local";
  return {
    ...(local ? { path: path.resolve(projectDir, ref.chart) } : { chart: ref.chart }),
    version: inputs.version,
    namespace: resolved.namespace,
    release_name: inputs.releaseName,
    values: withoutNulls(resolved.values),
    skip_crd_rendering: skipCrds,
    ...(local
      ? {}
      : {
          fetch_opts: {
            ...(ref.repo ? { repo: ref.repo } : {}),
            ...(inputs.username ? { username: inputs.username } : {}),
            ...(resolved.password ? { password: resolved.password } : {}),
          },
        }),
  };
}

/** See the module comment. */
export class ServerDryRun {
  private readonly watched: Promise<Watched>[] = [];

  constructor(private readonly args: ServerDryRunArgs) {}

  /** Follows a release (components/release.ts `ReleaseWatch`); returns its input digest, secret. */
  readonly watch = (inputs: ReleaseInputs): pulumi.Output<string> => {
    const all = pulumi.output({
      namespace: inputs.namespace,
      values: inputs.values,
      password: inputs.password ?? pulumi.output(undefined),
    }) as unknown as pulumi.Output<{ namespace: string; values: Obj; password?: string }>;
    const digest = all.apply((r) => inputDigest(inputs, r.namespace, r.values, r.password));
    this.watched.push(
      (async (): Promise<Watched> => {
        const secrets = [
          ...(await secretStrings(inputs.values)),
          ...(inputs.password ? await secretStrings(inputs.password, true) : []),
        ];
        if (!(await known(all))) return { inputs, secrets };
        const r = await valueOf(all);
        return {
          inputs,
          secrets,
          resolved: { ...r, digest: inputDigest(inputs, r.namespace, r.values, r.password) },
        };
      })(),
    );
    return pulumi.secret(digest);
  };

  /**
   * In a preview, dry-runs every release whose inputs changed; elsewhere does nothing. Input: the namespaces the
   * stack creates (objects in those not yet there are not checked). Logs the API server's
   * warnings and what was not checked on each release; rejects with `DryRunRefusal` listing every refusal. Never
   * starts the proxy when no release changes.
   */
  async settle(createdNamespaces: readonly string[]): Promise<void> {
    // Only in a preview under a real engine: unit tests run the program with mocks and never touch a cluster.
    if (!pulumi.runtime.isDryRun() || pulumi.runtime.getEngine() === undefined) return;
    const watched = await Promise.all(this.watched);
    const previous = isObj(this.args.previous) ? (this.args.previous as Record<string, unknown>) : undefined;
    const candidates = watched.filter((w) => {
      if (!w.resolved) {
        pulumi.log.info(
          `server-side dry run: release ${w.inputs.releaseName} not checked: its values are not known until the update`,
          w.inputs.resource,
        );
        return false;
      }
      return previous === undefined || previous[w.inputs.releaseName] !== w.resolved.digest;
    });
    if (candidates.length === 0) {
      pulumi.log.debug("server-side dry run: no release's inputs changed; nothing sent to the API server");
      return;
    }
    const secrets = watched.flatMap((w) => w.secrets);
    let api: ApiServer;
    try {
      const kubeconfigText =
        this.args.access.kubeconfig === undefined
          ? undefined
          : await valueOf(pulumi.output(this.args.access.kubeconfig));
      api = await ApiServer.open({
        kubectl: this.args.access.kubectl,
        context: this.args.access.context,
        ...(kubeconfigText !== undefined ? { kubeconfigText } : {}),
      });
    } catch (e) {
      throw new DryRunRefusal(this.args.stack, [
        {
          level: "refusal",
          release: candidates.map((c) => c.inputs.releaseName).join(", "),
          action: "check",
          object: "the cluster",
          rule: "no answer",
          cause: redact(`the server-side dry run cannot reach the cluster: ${(e as Error).message}`, secrets),
        },
      ]);
    }
    try {
      const findings = await this.run(
        api,
        candidates,
        previous === undefined && this.args.deployed,
        createdNamespaces,
      );
      for (const f of findings) {
        const w = candidates.find((c) => c.inputs.releaseName === f.release);
        const what = f.object ? `${f.action} ${f.object}: ` : "";
        const text = redact(`server-side dry run of release ${f.release}: ${what}${f.cause}`, secrets);
        if (f.level === "warning") pulumi.log.warn(text, w?.inputs.resource);
        if (f.level === "note") pulumi.log.info(text, w?.inputs.resource);
      }
      const refusals = findings
        .filter((f) => f.level === "refusal")
        .map((f) => ({ ...f, cause: redact(f.cause, secrets) }));
      if (refusals.length) throw new DryRunRefusal(this.args.stack, refusals);
    } finally {
      api.close();
    }
  }

  /** Renders and dry-runs the candidates; `compareRecords`: keep only those whose Helm record differs. */
  private async run(
    api: ApiServer,
    candidates: Watched[],
    compareRecords: boolean,
    createdNamespaces: readonly string[],
  ): Promise<DryRunFinding[]> {
    const records = new Map<string, HelmRelease | undefined>();
    for (const c of candidates) {
      const r = c.resolved as NonNullable<Watched["resolved"]>;
      const list = await api.get<{ items?: Obj[] }>(
        `/api/v1/namespaces/${encodeURIComponent(r.namespace)}/secrets?labelSelector=${encodeURIComponent(`owner=helm,name=${c.inputs.releaseName}`)}`,
      );
      const decoded = (list?.items ?? [])
        .map((s) => readHelmRelease((s["data"] as Record<string, string> | undefined)?.["release"]))
        .filter((x): x is HelmRelease => x !== undefined);
      records.set(c.inputs.releaseName, currentRecord(decoded));
    }
    const checked = compareRecords
      ? candidates.filter((c) => {
          const rec = records.get(c.inputs.releaseName);
          const r = c.resolved as NonNullable<Watched["resolved"]>;
          return !(
            rec !== undefined &&
            rec.chart?.metadata?.version === c.inputs.version &&
            jsonEqual(
              without((rec.config ?? {}) as Obj, c.inputs.ignoredValuePaths),
              withoutNulls(without(r.values, c.inputs.ignoredValuePaths)),
            )
          );
        })
      : candidates;
    const rendered = new Map<string, { objects: Obj[]; crds?: Obj[] } | { error: string }>();
    await Promise.all(
      checked.map(async (c) => {
        const install = records.get(c.inputs.releaseName) === undefined;
        try {
          const objects = await this.render(c, true);
          const crds = install
            ? (await this.render(c, false)).filter((o) => !objects.some((x) => jsonEqual(x, o)))
            : undefined;
          rendered.set(c.inputs.releaseName, { objects, ...(crds ? { crds } : {}) });
        } catch (e) {
          rendered.set(c.inputs.releaseName, { error: (e as Error).message });
        }
      }),
    );
    const providedKinds = new Map<string, string>();
    for (const [name, r] of rendered)
      if ("objects" in r)
        for (const o of [...r.objects, ...(r.crds ?? [])])
          for (const k of kindsDefined(o)) providedKinds.set(k, name);
    const scope = {
      api,
      providedKinds,
      createdNamespaces: new Set(createdNamespaces),
      fieldManager: HELM_FIELD_MANAGER,
    };
    const findings: DryRunFinding[] = [];
    for (const c of checked) {
      const name = c.inputs.releaseName;
      const r = rendered.get(name);
      if (!r) continue;
      if ("error" in r) {
        findings.push({
          level: "refusal",
          release: name,
          action: "render",
          object: "its chart",
          rule: "render",
          cause: r.error,
        });
        continue;
      }
      findings.push(
        ...(await dryRunRelease(scope, {
          release: name,
          namespace: (c.resolved as NonNullable<Watched["resolved"]>).namespace,
          objects: r.objects,
          ...(r.crds ? { crds: r.crds } : {}),
          deployed: records.get(name),
          deletedFirst: this.args.deletedFirst?.(name) ?? [],
        })),
      );
    }
    return findings;
  }

  /** The objects the provider's Helm renders for a release (`skipCrds`: without the chart's `crds/`). */
  private async render(c: Watched, skipCrds: boolean): Promise<Obj[]> {
    const opts = templateOptions(c.inputs, c.resolved as NonNullable<Watched["resolved"]>, skipCrds);
    const res = (await pulumi.runtime.invoke(
      "kubernetes:helm:template",
      { jsonOpts: JSON.stringify(opts) },
      { provider: this.args.provider },
    )) as { result?: unknown[] };
    return (res.result ?? []).filter(isObj);
  }
}
