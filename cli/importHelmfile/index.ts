/**
 * `nvcf import-helmfile`: moves a running Helmfile installation of NVCF into a stack of this program without
 * reinstalling anything.
 *
 *   nvcf import-helmfile --stack dev --env-file environments/dev.yaml --secrets-file secrets/dev-secrets.yaml \
 *        [--registration registration/gpu-a-register-values.yaml --gpu-context gpu-a=<context>]... [--context C]
 *   nvcf import-helmfile --stack dev-gpu-a --compute --env-file <compute env> \
 *        --registration registration/gpu-a-register-values.yaml --control-plane-stack <org>/nvcf/dev [--context C]
 *
 * Steps: map the files (mapping.ts; every key noted), validate the result as the program does, check the
 * live installation (every release's name, namespace, chart and version against the catalog, the pull
 * secret), and only when nothing conflicts: write `Pulumi.<stack>.yaml` (plain keys in the file, secrets with
 * the Automation API as Pulumi secrets), adopt the live objects (adopt.ts), and preview the stack, listing
 * every change to an adopted object with its reason. Exit codes (cli/types.ts): 2 usage, 3 config, 4 a
 * conflict or mismatch (nothing written), 5 a Pulumi operation failed or the preview would create, replace
 * or delete an adopted object.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import type { Command } from "commander";
import * as yaml from "js-yaml";
import { BUNDLE_VERSIONS, type BundleVersion } from "../../catalog/releases";
import { validateConfig } from "../../config/load";
import { ConfigError } from "../../config/problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../config/schema";
import { projectName } from "../environment";
import { Kube } from "../../kube/kubectl";
import { CliError } from "../report";
import { EXIT } from "../types";
import {
  type AdoptionPlan,
  type Mismatch,
  adoptionPlan,
  adoptionMismatches,
  dockerConfigCredential,
  importSpec,
  liveReleases,
  planUrns,
  scaffoldProgram,
  unadoptedReleases,
} from "./adopt";
import {
  type GpuClusterInput,
  type Mapping,
  type PullCredential,
  type RegistrationFile,
  formatNotes,
  hasConflicts,
  mapComputePlane,
  mapControlPlane,
  rawConfig,
} from "./mapping";
import { setPath } from "../../config/paths";

/** The options of the verb, as commander parses them. */
export interface ImportOptions {
  stack: string;
  envFile: string;
  secretsFile?: string;
  compute?: boolean;
  controlPlaneStack?: string;
  clusterName?: string;
  registration: string[];
  gpuContext: string[];
  bundleVersion: string;
  context?: string;
  set: string[];
  cwd: string;
  dryRun?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Registers the `import-helmfile` verb on the `nvcf` command (called by cli/main.ts). */
export function registerImportHelmfile(program: Command): void {
  program
    .command("import-helmfile")
    .description(
      "move a running Helmfile installation into a stack without reinstalling: write its config, adopt its releases, namespaces, pull secrets and GPU-cluster registrations",
    )
    .requiredOption("--stack <stack>", "the stack to create (Pulumi.<stack>.yaml)")
    .requiredOption("--env-file <file>", "the Helmfile environment file (environments/<env>.yaml)")
    .option("--secrets-file <file>", "control plane: the Helmfile secrets file (secrets/<env>-secrets.yaml)")
    .option("--compute", "a GPU cluster's compute-plane installation (nvcf-compute-plane stack)")
    .option(
      "--control-plane-stack <stack>",
      "compute plane: the control-plane stack, <org>/<project>/<stack>",
    )
    .option(
      "--cluster-name <name>",
      "compute plane: the GPU cluster's name (default: from --registration's file name)",
    )
    .option(
      "--registration <file>",
      "registration/<cluster>-register-values.yaml (control plane: one per registered GPU cluster, repeatable)",
      collect,
      [],
    )
    .option(
      "--gpu-context <name=context>",
      "control plane: kubeconfig context of a GPU cluster (repeatable)",
      collect,
      [],
    )
    .option(
      "--bundle-version <version>",
      `the NVCF bundle the installation runs (${BUNDLE_VERSIONS.join(", ")})`,
      "0.8.0",
    )
    .option(
      "--context <context>",
      "kubeconfig context of the installation's cluster (nvcf:kubernetes.context)",
    )
    .option(
      "--set <key=value>",
      "an extra nvcf: key (JSON or text), e.g. charts.source=local (repeatable)",
      collect,
      [],
    )
    .option("--cwd <dir>", "the project directory (where Pulumi.yaml is)", process.cwd())
    .option("--dry-run", "map and check only; write nothing")
    .action(async (o: ImportOptions) => {
      await importHelmfile(o, (s) => process.stdout.write(s));
    });
}

function readYaml(file: string, what: string): unknown {
  try {
    return yaml.load(fs.readFileSync(file, "utf8")) ?? {};
  } catch (e) {
    throw new CliError(EXIT.usage, `cannot read the ${what} ${file}: ${(e as Error).message.split("\n")[0]}`);
  }
}

/** The cluster name of `registration/<cluster>-register-values.yaml`. */
export function clusterNameOf(file: string): string {
  return path.basename(file).replace(/-register-values\.ya?ml$/, "");
}

function registrationOf(file: string): RegistrationFile {
  const doc = readYaml(file, "registration file") as Record<string, unknown>;
  const r = {
    clusterID: String(doc["clusterID"] ?? ""),
    clusterGroupID: String(doc["clusterGroupID"] ?? ""),
    ncaID: String(doc["ncaID"] ?? "nvcf-default"),
    region: String(doc["region"] ?? ""),
    selfManaged: (doc["selfManaged"] ?? {}) as Record<string, unknown>,
  };
  if (!r.clusterID || !r.clusterGroupID)
    throw new CliError(
      EXIT.usage,
      `${file} has no clusterID or clusterGroupID: is it the file make register-cluster wrote?`,
    );
  return r;
}

/** `--set key=value`: the value as JSON when it parses, else as text. */
function applySets(m: Mapping, sets: readonly string[]): void {
  for (const s of sets) {
    const eq = s.indexOf("=");
    if (eq < 1) throw new CliError(EXIT.usage, `--set ${s}: expected key=value`);
    const key = s.slice(0, eq).replace(/^nvcf:/, "");
    const text = s.slice(eq + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      /* text */
    }
    setPath(m.config, key, value);
    m.notes.push({ file: "env", key: `--set ${key}`, status: "mapped", target: key });
  }
}

interface Mapped {
  mapping: Mapping;
  cfg: ControlPlaneConfig | ComputePlaneConfig;
}

function mapAll(o: ImportOptions, bundle: BundleVersion, pull?: PullCredential): Mapped {
  const env = readYaml(o.envFile, "environment file");
  let mapping: Mapping;
  if (o.compute) {
    if (!o.controlPlaneStack)
      throw new CliError(EXIT.usage, "--compute needs --control-plane-stack <org>/<project>/<stack>");
    const regFile = o.registration[0];
    const clusterName = o.clusterName ?? (regFile ? clusterNameOf(regFile) : undefined);
    if (!clusterName)
      throw new CliError(EXIT.usage, "--compute needs --registration <file> or --cluster-name <name>");
    mapping = mapComputePlane({
      env,
      registration: regFile ? registrationOf(regFile) : undefined,
      bundle,
      controlPlaneStack: o.controlPlaneStack,
      clusterName,
      pullCredential: pull,
    });
  } else {
    const contexts = new Map(
      o.gpuContext.map((g) => {
        const eq = g.indexOf("=");
        if (eq < 1) throw new CliError(EXIT.usage, `--gpu-context ${g}: expected <cluster>=<context>`);
        return [g.slice(0, eq), g.slice(eq + 1)] as const;
      }),
    );
    const gpuClusters: GpuClusterInput[] = o.registration.map((f) => ({
      name: clusterNameOf(f),
      registration: registrationOf(f),
      context: contexts.get(clusterNameOf(f)),
    }));
    mapping = mapControlPlane({
      env,
      secrets: o.secretsFile ? readYaml(o.secretsFile, "secrets file") : undefined,
      bundle,
      gpuClusters,
      pullCredential: pull,
    });
  }
  if (o.context) setPath(mapping.config, "kubernetes.context", o.context);
  applySets(mapping, o.set);
  const { raw, secretKeys } = rawConfig(mapping);
  try {
    return {
      mapping,
      cfg: validateConfig(raw, secretKeys, o.stack) as ControlPlaneConfig | ComputePlaneConfig,
    };
  } catch (e) {
    if (e instanceof ConfigError) {
      // The mapped notes first, so the user sees where each key came from; then the program's problems.
      throw new CliError(EXIT.config, e.message, [
        `The mapped config of stack ${o.stack} is not valid for the program:`,
        ...e.message.split("\n"),
        "Fix: correct the environment file, or add the missing keys with --set key=value. Nothing was written.",
      ]);
    }
    throw e;
  }
}

/** Reads the live pull secret's credential (the first pull-secret namespace that has it). */
async function livePullCredential(
  kube: Kube,
  plan: AdoptionPlan,
  server?: string,
): Promise<PullCredential | undefined> {
  if (!plan.pullSecretName) return undefined;
  const candidates = plan.pullSecretNamespaces.length ? plan.pullSecretNamespaces : plan.namespaces;
  for (const ns of candidates) {
    const s = await kube.maybe<{ type?: string; data?: Record<string, string> }>([
      "get",
      "secret",
      plan.pullSecretName,
      "-n",
      ns,
    ]);
    const c = dockerConfigCredential(s, server);
    if (c) return c;
  }
  return undefined;
}

/**
 * The verb. `write` receives every line for the user (secrets never included). Throws `CliError` with the
 * exit code on any refusal or failure.
 */
export async function importHelmfile(o: ImportOptions, write: (s: string) => void): Promise<void> {
  const say = (l = "") => write(`${l}\n`);
  const bundle = o.bundleVersion as BundleVersion;
  if (!BUNDLE_VERSIONS.includes(bundle))
    throw new CliError(
      EXIT.usage,
      `--bundle-version ${o.bundleVersion}: expected one of ${BUNDLE_VERSIONS.join(", ")}`,
    );
  const projectDir = path.resolve(o.cwd);
  const project = projectName(projectDir);

  // 1. Map once to learn the pull secret and cluster, read the live credential, map again with it.
  let { mapping, cfg } = mapAll(o, bundle);
  if (
    cfg.kubeconfig !== undefined ||
    (cfg.plane === "control" && (cfg as ControlPlaneConfig).aws?.eksClusterName)
  )
    throw new CliError(
      EXIT.usage,
      "import-helmfile reaches the cluster through a kubeconfig context: give --context <context> instead of nvcf:kubeconfig or nvcf:aws.eksClusterName (set those after the move)",
    );
  const kube = new Kube({ context: cfg.kubernetes.context });
  let plan = adoptionPlan(cfg, o.stack, project);
  const server = cfg.plane === "control" ? (cfg as ControlPlaneConfig).images.registry : undefined;
  const pull = await livePullCredential(kube, plan, server);
  if (pull) ({ mapping, cfg } = mapAll(o, bundle, pull));
  plan = adoptionPlan(cfg, o.stack, project);

  say(`Mapping the Helmfile files to stack ${o.stack} (${cfg.plane} plane, bundle ${bundle}):`);
  for (const l of formatNotes(mapping.notes)) say(l);

  // 2. The live installation.
  let live;
  try {
    live = await liveReleases(kube);
  } catch (e) {
    throw new CliError(
      EXIT.preflight,
      `cannot list the Helm releases of the cluster (${cfg.kubernetes.context ?? "current context"}): ${(e as Error).message.split("\n")[0]}`,
    );
  }
  const mismatches: Mismatch[] = adoptionMismatches(plan, live, bundle);
  const nsLive = new Set(
    (await kube.items<{ metadata: { name: string } }>(["namespaces"])).map((n) => n.metadata.name),
  );
  const pullLive = new Set<string>();
  if (plan.pullSecretName)
    for (const ns of plan.pullSecretNamespaces.filter((n) => nsLive.has(n)))
      if (await kube.maybe(["get", "secret", plan.pullSecretName, "-n", ns])) pullLive.add(ns);
  if (plan.pullSecretNamespaces.length > 0 && !pull)
    mismatches.push({
      object: `pull secret ${plan.pullSecretName}`,
      found: "no readable registry credential in it",
      needed: "the dockerconfigjson Secret the charts reference, so its key is kept",
      fix: "check global.imagePullSecrets of the environment file, or set --set pullSecret.create=false to keep managing it yourself",
    });
  const releasesToAdopt = plan.imports.filter((i) => i.kind === "release");
  say("");
  say(`Live installation (${cfg.kubernetes.context ?? "current context"}):`);
  say(
    `  ${releasesToAdopt.length - mismatches.filter((m) => m.object.startsWith("release")).length}/${releasesToAdopt.length} releases match the catalog of bundle ${bundle} (name, namespace, chart, version)`,
  );
  for (const m of mismatches)
    say(`  MISMATCH ${m.object}: found ${m.found}; needed ${m.needed}. Fix: ${m.fix}`);
  for (const l of unadoptedReleases(plan, live))
    say(
      `  left alone: release ${l.namespace}/${l.name} (${l.chart} ${l.chartVersion}) is not one the program installs`,
    );
  const missingNs = plan.namespaces.filter((n) => !nsLive.has(n));
  if (missingNs.length)
    say(`  namespaces the program will create (not in the cluster): ${missingNs.join(", ")}`);
  const newPull = plan.pullSecretNamespaces.filter((n) => !pullLive.has(n));
  if (plan.pullSecretName && newPull.length)
    say(`  pull secret ${plan.pullSecretName} will be created in: ${newPull.join(", ")} (same credential)`);

  if (hasConflicts(mapping) || mismatches.length > 0) {
    throw new CliError(EXIT.preflight, "the installation cannot be moved as it is", [
      "",
      "error: the installation cannot be moved as it is (see CONFLICT and MISMATCH above). Nothing was written.",
    ]);
  }
  if (o.dryRun) {
    say("");
    say("Dry run: nothing was written.");
    return;
  }

  // 3. The stack and its config.
  // Only the adoption plan's objects that exist are imported; the rest are created by the next `up`.
  plan = {
    ...plan,
    imports: plan.imports.filter(
      (i) =>
        (i.kind === "namespace" && nsLive.has(i.id)) ||
        (i.kind === "secret" && pullLive.has(i.id.split("/")[0])) ||
        i.kind === "release",
    ),
  };
  const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
  const ws = await LocalWorkspace.create({ workDir: projectDir });
  const stackFile = path.join(projectDir, `Pulumi.${o.stack}.yaml`);
  const before = fs.existsSync(stackFile)
    ? (yaml.load(fs.readFileSync(stackFile, "utf8")) as Record<string, unknown>)
    : {};
  if (Object.keys((before["config"] as object | undefined) ?? {}).some((k) => k.startsWith("nvcf:")))
    throw new CliError(
      EXIT.usage,
      `${stackFile} already holds nvcf: keys; import into a new stack (or remove the file first)`,
    );
  const stacks = await ws.listStacks();
  const known = stacks.find((s) => s.name === o.stack);
  if (known && (known.resourceCount ?? 0) > 0)
    throw new CliError(EXIT.usage, `stack ${o.stack} already has resources; import into a new, empty stack`);
  const { Stack: StackClass } = await import("@pulumi/pulumi/automation");
  const stack = await StackClass.createOrSelect(o.stack, ws);
  writeStackConfig(stackFile, mapping, o.stack);
  const secretEntries = Object.entries(rawConfig(mapping).raw).filter(([k]) =>
    rawConfig(mapping).secretKeys.has(k),
  );
  if (secretEntries.length)
    await stack.setAllConfig(
      Object.fromEntries(secretEntries.map(([k, v]) => [`nvcf:${k}`, { value: v, secret: true }])),
    );
  say("");
  say(
    `Wrote ${path.relative(process.cwd(), stackFile) || stackFile}: ${Object.keys(mapping.config).length} keys, ${secretEntries.length} secret (${secretEntries.map(([k]) => `nvcf:${k}`).join(", ") || "none"}).`,
  );

  // 4. Adoption.
  await adopt(stack, plan, cfg.kubernetes.context, say);

  // 5. The preview.
  await previewAdopted(stack, plan, say);
}

/** Writes the plain keys into the stack file (keeping its secrets-provider settings); secrets follow via the API. */
function writeStackConfig(file: string, m: Mapping, stack: string): void {
  const doc = fs.existsSync(file)
    ? ((yaml.load(fs.readFileSync(file, "utf8")) ?? {}) as Record<string, unknown>)
    : {};
  const { secretKeys } = rawConfig(m);
  const config: Record<string, unknown> = {
    ...((doc["config"] as Record<string, unknown> | undefined) ?? {}),
  };
  for (const [k, v] of Object.entries(m.config)) if (!secretKeys.has(k)) config[`nvcf:${k}`] = v;
  const header = `# Stack ${stack}: written by nvcf import-helmfile from a Helmfile installation (see docs/helmfile-import.md).\n`;
  fs.writeFileSync(file, header + yaml.dump({ ...doc, config }, { lineWidth: 120, noRefs: true }));
}

/** Runs an engine operation, keeping its output; on failure the tail is shown and the verb fails. */
/**
 * The lines of a failed engine run worth printing: the `Diagnostics:` section of Pulumi's update summary
 * (the errored resources and their messages) where the output has one, else the last lines; at most 25,
 * blank lines dropped.
 */
export function failureLines(output: string): string[] {
  const lines = output.split("\n").filter((l) => l.trim());
  const start = lines.findIndex((l) => l.trim() === "Diagnostics:");
  if (start < 0) return lines.slice(-25);
  const end = lines.findIndex((l, i) => i > start && /^\S/.test(l) && l.trim() !== "Diagnostics:");
  return lines.slice(start, end < 0 ? undefined : end).slice(0, 25);
}

async function step<T>(
  label: string,
  say: (l?: string) => void,
  fn: (onOutput: (s: string) => void) => Promise<T>,
): Promise<T> {
  let out = "";
  const t0 = Date.now();
  try {
    const r = await fn((s) => (out += s));
    say(`  ${label}: done (${Math.round((Date.now() - t0) / 1000)} s)`);
    return r;
  } catch (e) {
    const tail = failureLines(`${out}\n${(e as { stderr?: string }).stderr ?? (e as Error).message}`);
    throw new CliError(EXIT.deployment, `${label} failed`, [
      `error: ${label} failed:`,
      ...tail.map((l) => `  ${l}`),
    ]);
  }
}

/**
 * Moves the live objects into the stack (module doc of adopt.ts): targeted `up` of the provider and the
 * lookup-holding components, `import` of every planned object, targeted `up` of adopted registrations.
 */
export async function adopt(
  stack: Stack,
  plan: AdoptionPlan,
  context: string | undefined,
  say: (l?: string) => void,
): Promise<void> {
  say("");
  say(`Adopting into stack ${plan.stack}:`);
  const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
  const inline = await LocalWorkspace.selectStack(
    { stackName: plan.stack, projectName: plan.project, program: scaffoldProgram(plan, context) },
    { workDir: stack.workspace.workDir },
  );
  await step(`provider and ${plan.components.length} empty components`, say, (onOutput) =>
    inline.up({ onOutput, color: "never" }),
  );
  const spec = importSpec(plan);
  const counts = (k: string) => plan.imports.filter((i) => i.kind === k).length;
  await step(
    `import of ${counts("release")} Helm releases, ${counts("namespace")} namespaces, ${counts("secret")} pull secrets by their live IDs`,
    say,
    (onOutput) =>
      stack.import({
        resources: spec.resources,
        nameTable: spec.nameTable,
        protect: false,
        generateCode: false,
        onOutput,
      }),
  );
  await step("imported Helm values marked secret in the state", say, () => secureImportedValues(stack, plan));
  if (plan.registrationTargets.length > 0)
    await step(
      `registration records of ${plan.registrationTargets.length / 2} GPU cluster(s), kept IDs (nvcf-cli not run)`,
      say,
      (onOutput) => stack.up({ target: plan.registrationTargets, onOutput, color: "never" }),
    );
}

/** Pulumi's marker of a secret value in a deployment (`pulumi stack export` format). */
const SECRET_SIG = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

/**
 * The import reads each Helm release's values back from Helm, credentials included (e.g. the Cassandra
 * password), and records them as plain state, which `pulumi preview --json` would print as the old state.
 * This marks the `values` of every adopted release as a secret in the state (exported, rewritten, imported
 * back: the backend encrypts them), before any later command reads them.
 */
export async function secureImportedValues(stack: Stack, plan: AdoptionPlan): Promise<void> {
  const urns = planUrns(plan);
  const releases = new Set(plan.imports.filter((i) => i.kind === "release").map((i) => urns.get(i.key)));
  const dep = await stack.exportStack();
  const resources = (dep.deployment as { resources?: Record<string, unknown>[] }).resources ?? [];
  for (const r of resources) {
    if (!releases.has(r["urn"] as string)) continue;
    for (const side of ["inputs", "outputs"]) {
      const o = r[side] as Record<string, unknown> | undefined;
      const v = o?.["values"];
      if (
        o &&
        v !== undefined &&
        !(typeof v === "object" && v !== null && "4dabf18193072939515e22adb298388d" in v)
      )
        o["values"] = { ...SECRET_SIG, plaintext: JSON.stringify(v) };
    }
  }
  await stack.importStack(dep);
}

/** Why the program changes a property of an adopted object (first match wins). */
const REASONS: [type: RegExp, property: RegExp, reason: string][] = [
  [
    /helm\.sh\/v3:Release$/,
    /^(chart|repositoryOpts)/,
    "the program names the chart where nvcf:charts resolves it (same chart and version)",
  ],
  [
    /helm\.sh\/v3:Release$/,
    /^(atomic|cleanupOnFail)$/,
    'on purpose: failed installs roll back (docs/differences.md "Failed installs roll back")',
  ],
  [/helm\.sh\/v3:Release$/, /^timeout$/, "nvcf:charts.timeoutSeconds"],
  [/helm\.sh\/v3:Release$/, /^maxHistory$/, "the program keeps 5 revisions"],
  [/helm\.sh\/v3:Release$/, /^waitForJobs$/, "the program waits for hook Jobs"],
  [
    /helm\.sh\/v3:Release$/,
    /podDisruptionBudget/,
    "on purpose: values only where the pinned chart reads them (docs/differences.md)",
  ],
  [
    /helm\.sh\/v3:Release$/,
    /^values\.image\.repository/,
    "on purpose: nats-auth-callout-service's image comes from the mirror (docs/differences.md)",
  ],
  [
    /helm\.sh\/v3:Release$/,
    /^values\.grpcproxy\.deployment/,
    "on purpose: grpc-proxy is placed where its chart reads placement (docs/differences.md)",
  ],
  [
    /helm\.sh\/v3:Release$/,
    /tolerations/,
    "on purpose: the rate limiter and vanity gateway tolerate the pool they are pinned to (docs/differences.md)",
  ],
  [
    /helm\.sh\/v3:Release$/,
    /^values/,
    "a value differs from the installed one: helm upgrade applies the program's value",
  ],
  [
    /core\/v1:Namespace$/,
    /labels/,
    "the program labels the namespaces it owns (app.kubernetes.io/managed-by, part-of, nvcf/platform); Helm's name label goes",
  ],
  [/core\/v1:Namespace$/, /^spec/, "no spec is declared (the finalizers stay as Kubernetes sets them)"],
  [
    /core\/v1:Secret$/,
    /./,
    "the pull secret is written from nvcf:registryKey (the same credential, no rotation)",
  ],
];

/** The reason for one changed property of one resource type. */
export function reasonFor(type: string, property: string): string {
  return (
    REASONS.find(([t, p]) => t.test(type) && p.test(property))?.[2] ??
    "differs from the live object; up applies the program's value"
  );
}

/** Ops that must not happen to an adopted object. */
const FORBIDDEN = new Set([
  "create",
  "replace",
  "create-replacement",
  "delete-replaced",
  "delete",
  "import-replacement",
]);

/**
 * Previews the stack after the move and lists, per adopted object, the operation and each changed property
 * with its reason; other new objects are listed as such. Throws `CliError` (EXIT.deployment) when an adopted
 * object would be created, replaced or deleted.
 */
export async function previewAdopted(
  stack: Stack,
  plan: AdoptionPlan,
  say: (l?: string) => void,
): Promise<void> {
  const urns = planUrns(plan);
  const adopted = new Set(plan.imports.map((i) => urns.get(i.key)));
  for (const u of plan.registrationTargets) adopted.add(u);
  const steps: { op: string; urn: string; type: string; keys: string[] }[] = [];
  await step("pulumi preview", say, (onOutput) =>
    stack.preview({
      onOutput,
      color: "never",
      onEvent: (e: EngineEvent) => {
        const m = e.resourcePreEvent?.metadata;
        if (!m || m.op === "same" || m.op === "read") return;
        const keys = Object.keys(m.detailedDiff ?? {}).length
          ? Object.keys(m.detailedDiff ?? {})
          : (m.diffs ?? []);
        steps.push({ op: m.op, urn: m.urn, type: m.type, keys });
      },
    }),
  );
  const name = (urn: string) => urn.split("::").pop() ?? urn;
  const bad = steps.filter((s) => adopted.has(s.urn) && FORBIDDEN.has(s.op));
  const updates = steps.filter((s) => adopted.has(s.urn) && s.op === "update");
  const others = steps.filter((s) => !adopted.has(s.urn));
  say("");
  say(
    `Preview of ${plan.stack} after the move: ${adopted.size} adopted objects, ${updates.length} to update, ${bad.length} to create/replace/delete.`,
  );
  for (const s of updates) {
    const byReason = new Map<string, string[]>();
    for (const k of s.keys)
      byReason.set(reasonFor(s.type, k), [...(byReason.get(reasonFor(s.type, k)) ?? []), k]);
    say(`  ~ update ${s.type} ${name(s.urn)}`);
    for (const [reason, keys] of byReason) say(`      ${keys.join(", ")}: ${reason}`);
  }
  for (const s of others.filter((x) => !x.type.startsWith("nvcf:index:")))
    say(`  ${s.op === "create" ? "+" : "~"} ${s.op} ${s.type} ${name(s.urn)} (not made by Helmfile)`);
  for (const s of bad) say(`  ! ${s.op} ${s.type} ${name(s.urn)}: an adopted object would be ${s.op}d`);
  if (bad.length)
    throw new CliError(EXIT.deployment, "the preview would create, replace or delete adopted objects", [
      "error: the preview would create, replace or delete adopted objects (listed above); do not run up, report it",
    ]);
  say("");
  say(
    `Next: pulumi preview --diff -s ${plan.stack} to see every value, then pulumi up -s ${plan.stack} (helm upgrade of the updated releases, revision +1; no reinstall).`,
  );
}
