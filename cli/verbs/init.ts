/**
 * `nvcf init --env <env> …`: creates a new environment, its control-plane stack and one compute-plane stack per
 * GPU cluster, from a few answers: the stack files `Pulumi.<env>.yaml` and `Pulumi.<env>-<cluster>.yaml` in the
 * project directory, each stack initialised in the backend the user is logged in to (`pulumi stack init`, with the
 * secrets provider asked for), the secrets given with `--secret` written encrypted by that provider, then preflight
 * on the clusters named. Every answer is a flag; on a terminal the required ones not given are asked for, otherwise
 * (scripts, CI) a missing one is a usage error naming every flag still needed.
 *
 * Nothing is deployed: `nvcf up --env <env>` does that. An existing stack file or stack of the same name is never
 * overwritten.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { BUNDLE_VERSIONS } from "../../catalog/releases";
import { SECRET_KEYS } from "../../config/schema";
import { parsePropertyPath, setPath } from "../../config/paths";
import { CliError } from "../report";
import { EXIT, type ExitCode } from "../types";

/** The flags of `nvcf init` as commander gives them. */
export interface InitOptions {
  env: string;
  cwd?: string;
  domain?: string;
  context?: string;
  /** `<name>=<context>`, one per GPU cluster (repeatable). */
  gpuCluster: string[];
  /** `<name>=<region>` (repeatable); a GPU cluster without one gets the schema's default region. */
  region: string[];
  /** `<registry host>/<repository>` of the images, e.g. `nvcr.io/my-org/my-team`. */
  registry?: string;
  /** `oci://<host>/<repository>`, `https://<Helm repository URL>`, or a local directory of charts. */
  charts?: string;
  chartUser?: string;
  imageUser?: string;
  /** Default: the newest of catalog/releases.ts `BUNDLE_VERSIONS`. */
  bundle?: string;
  /** `<namespace>/<name>` of the Gateway the routes attach to. */
  gateway: string;
  gatewayControllerNamespace: string;
  nvcfCli?: string;
  /** The organization part of the compute planes' `nvcf:controlPlaneStack` (`organization` on a DIY backend). */
  org: string;
  /** `<stack>:<key>=<value>` settings (YAML values; `--path` keys). */
  set: string[];
  /** `<key>=env:<VAR>` or `<key>=file:<path>`, optionally `<stack>:` first (repeatable). */
  secret: string[];
  secretsProvider?: string;
  /** `--no-preflight` makes this false. */
  preflight: boolean;
  kubeconfig?: string;
}

/** Where charts come from, as `nvcf:charts` keys. */
export type ChartsFlag =
  | { source: "oci"; registry: string; repository: string }
  | { source: "https"; url: string }
  | { source: "local"; path: string };

/**
 * Reads `--charts`: `oci://<host>/<repository>` (an OCI registry), `https://…` (a Helm repository), anything else
 * a local directory (kept as given; relative paths are relative to the project directory, which must hold it).
 * Throws `CliError` (EXIT.usage) naming the flag and the forms it takes.
 */
export function parseCharts(value: string, projectDir: string): ChartsFlag {
  const oci = /^oci:\/\/([^/\s]+)\/(\S+?)\/?$/.exec(value);
  if (oci) return { source: "oci", registry: oci[1], repository: oci[2] };
  if (/^https:\/\/\S+$/.test(value)) return { source: "https", url: value.replace(/\/$/, "") };
  if (/^[a-z]+:\/\//.test(value) || !fs.existsSync(path.resolve(projectDir, value)))
    throw new CliError(
      EXIT.usage,
      `--charts ${value}: expected oci://<registry>/<repository>, https://<Helm repository URL>, or a directory ` +
        `of charts that exists (relative to ${projectDir})`,
    );
  return { source: "local", path: value };
}

/** Reads `--registry <host>/<repository>` into `nvcf:images` keys. Throws `CliError` (EXIT.usage) otherwise. */
export function parseRegistry(value: string): { registry: string; repository: string } {
  const m = /^([^/\s]+)\/([^\s]+?)\/?$/.exec(value);
  if (!m)
    throw new CliError(
      EXIT.usage,
      `--registry ${value}: expected <registry host>/<repository>, e.g. nvcr.io/my-org/my-team`,
    );
  return { registry: m[1], repository: m[2] };
}

/** `<name>=<value>` pairs of a repeatable flag, in order. Throws `CliError` (EXIT.usage) naming the flag. */
function pairs(flag: string, list: readonly string[], example: string): [string, string][] {
  return list.map((raw) => {
    const i = raw.indexOf("=");
    if (i < 1 || i === raw.length - 1) throw new CliError(EXIT.usage, `${flag} ${raw}: expected ${example}`);
    return [raw.slice(0, i), raw.slice(i + 1)];
  });
}

/** One GPU cluster of the new environment. */
export interface InitCluster {
  name: string;
  context: string;
  region?: string;
  /** Its compute-plane stack: `<env>-<name>`. */
  stack: string;
}

/** One secret to write: the stack, the `nvcf:` key (a `--path` key path) and where its value is read from. */
export interface InitSecret {
  stack: string;
  key: string;
  from: { env: string } | { file: string };
}

/** The stack files `nvcf init` writes: stack name → the file's `config:` map (with the `nvcf:` prefix). */
export interface InitPlan {
  env: string;
  clusters: InitCluster[];
  files: { stack: string; config: Record<string, unknown> }[];
  secrets: InitSecret[];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** The answers `nvcf init` cannot do without, with their flags. */
const REQUIRED: [keyof InitOptions, string, string][] = [
  ["domain", "--domain", "the domain the routes use, e.g. nvcf.example.com"],
  ["context", "--context", "the control-plane cluster's kubeconfig context"],
  ["registry", "--registry", "images: <registry host>/<repository>, e.g. nvcr.io/my-org/my-team"],
  [
    "charts",
    "--charts",
    "charts: oci://<registry>/<repository>, https://<Helm repository URL> or a directory",
  ],
];

/** The required answers still missing: `[option, flag, question]` each. */
export function missingAnswers(o: InitOptions): [keyof InitOptions, string, string][] {
  return REQUIRED.filter(([k]) => !o[k]);
}

/**
 * The stack files and secrets of the new environment (pure). Control plane `<env>`: plane, bundle, domain, context,
 * chart source, images, Gateway, the GPU clusters (name, region, context) and the nvcf-cli path, and with GPU
 * clusters what the program's config rules then require (`openbao.issuerDiscovery`, `gateway.routes.nats`); each GPU cluster's
 * stack `<env>-<name>`: plane, bundle, `controlPlaneStack <org>/<project>/<env>`, cluster name, context, chart
 * source. `--set` settings then apply to the stack they name, as `pulumi config set --path` would (values read as
 * YAML: `true`, `3` and `[a, b]` are a boolean, a number and a list). Throws `CliError` (EXIT.usage) for a
 * malformed flag, a stack or GPU cluster name that is not a DNS label, a duplicate cluster, a region or setting for
 * a cluster or stack that does not exist, a secret key that is not one of the program's secret keys, or a `--set`
 * of a secret key.
 */
export function initPlan(o: InitOptions, project: string, projectDir: string): InitPlan {
  const missing = missingAnswers(o);
  if (missing.length)
    throw new CliError(
      EXIT.usage,
      `nvcf init needs ${missing.map(([, f]) => f).join(", ")}. ` +
        `Fix: nvcf init --env ${o.env} ${missing.map(([, f, q]) => `${f} <${q}>`).join(" ")}`,
    );
  if (!DNS_LABEL.test(o.env))
    throw new CliError(
      EXIT.usage,
      `--env ${o.env}: the environment's name must be a lowercase DNS label, e.g. prod`,
    );
  const bundle = o.bundle ?? BUNDLE_VERSIONS[BUNDLE_VERSIONS.length - 1];
  if (!(BUNDLE_VERSIONS as readonly string[]).includes(bundle))
    throw new CliError(EXIT.usage, `--bundle ${bundle}: expected one of ${BUNDLE_VERSIONS.join(", ")}`);
  const charts = parseCharts(o.charts as string, projectDir);
  const images = parseRegistry(o.registry as string);
  const gw = /^([^/\s]+)\/([^/\s]+)$/.exec(o.gateway);
  if (!gw) throw new CliError(EXIT.usage, `--gateway ${o.gateway}: expected <namespace>/<name>`);
  const regions = new Map(pairs("--region", o.region, "<gpu cluster>=<region>, e.g. gpu-a=us-west-2"));
  const clusters: InitCluster[] = [];
  for (const [name, context] of pairs(
    "--gpu-cluster",
    o.gpuCluster,
    "<name>=<kubeconfig context>, e.g. gpu-a=my-gpu-cluster",
  )) {
    if (!DNS_LABEL.test(name))
      throw new CliError(
        EXIT.usage,
        `--gpu-cluster ${name}=…: the cluster's name must be a lowercase DNS label, e.g. gpu-a`,
      );
    if (clusters.some((c) => c.name === name))
      throw new CliError(EXIT.usage, `--gpu-cluster ${name}=…: GPU cluster ${name} is named twice`);
    clusters.push({ name, context, region: regions.get(name), stack: `${o.env}-${name}` });
  }
  for (const name of regions.keys())
    if (!clusters.some((c) => c.name === name))
      throw new CliError(EXIT.usage, `--region ${name}=…: no --gpu-cluster ${name}=<context> was given`);
  const chartKeys: Record<string, unknown> = { ...charts, ...(o.chartUser ? { username: o.chartUser } : {}) };
  const control: Record<string, unknown> = {
    "nvcf:plane": "control",
    "nvcf:bundleVersion": bundle,
    "nvcf:domain": o.domain,
    "nvcf:kubernetes": { context: o.context },
    "nvcf:charts": chartKeys,
    "nvcf:images": images,
    ...(o.imageUser ? { "nvcf:pullSecret": { username: o.imageUser } } : {}),
    "nvcf:gateway": {
      controllerNamespace: o.gatewayControllerNamespace,
      shared: { name: gw[2], namespace: gw[1] },
      grpc: { name: gw[2], namespace: gw[1] },
      nats: { name: gw[2], namespace: gw[1] },
      // Registered GPU clusters reach NATS through the Gateway (a config rule of the program).
      ...(clusters.length ? { routes: { nats: true } } : {}),
    },
    // With GPU clusters, nvcf-cli discovers the control plane's issuer (a config rule of the program).
    ...(clusters.length ? { "nvcf:openbao": { issuerDiscovery: true } } : {}),
    ...(clusters.length
      ? {
          "nvcf:gpuClusters": clusters.map((c) => ({
            name: c.name,
            ...(c.region ? { region: c.region } : {}),
            context: c.context,
          })),
        }
      : {}),
    ...(o.nvcfCli ? { "nvcf:nvcfCli": { path: o.nvcfCli } } : {}),
  };
  const files = [
    { stack: o.env, config: control },
    ...clusters.map((c) => ({
      stack: c.stack,
      config: {
        "nvcf:plane": "compute",
        "nvcf:bundleVersion": bundle,
        "nvcf:controlPlaneStack": `${o.org}/${project}/${o.env}`,
        "nvcf:clusterName": c.name,
        "nvcf:kubernetes": { context: c.context },
        "nvcf:charts": chartKeys,
        ...(o.imageUser ? { "nvcf:pullSecret": { username: o.imageUser } } : {}),
      } as Record<string, unknown>,
    })),
  ];
  const stackOf = (flag: string, raw: string, name: string) => {
    const f = files.find((x) => x.stack === name);
    if (!f)
      throw new CliError(
        EXIT.usage,
        `${flag} ${raw}: ${name} is not a stack of the new environment. Its stacks: ${files.map((x) => x.stack).join(", ")}`,
      );
    return f;
  };
  const secretKey = (flag: string, raw: string, key: string) => {
    const top = String(parsePropertyPath(key)[0]);
    if (!(SECRET_KEYS as readonly string[]).includes(top))
      throw new CliError(
        EXIT.usage,
        `${flag} ${raw}: nvcf:${top} is not a secret key. Secret keys: ${SECRET_KEYS.join(", ")}`,
      );
  };
  for (const raw of o.set) {
    const m = /^([^:=\s]+):(?:nvcf:)?([A-Za-z][\w.[\]"-]*)=(.*)$/s.exec(raw);
    if (!m)
      throw new CliError(
        EXIT.usage,
        `--set ${raw}: expected <stack>:<key>=<value>, e.g. --set ${o.env}:charts.timeoutSeconds=300`,
      );
    const f = stackOf("--set", raw, m[1]);
    const keys = parsePropertyPath(m[2]);
    if ((SECRET_KEYS as readonly string[]).includes(String(keys[0])))
      throw new CliError(
        EXIT.usage,
        `--set ${raw}: nvcf:${keys[0]} is a secret: give it with --secret ${m[1]}:${keys[0]}=env:<VAR>`,
      );
    const value = yaml.load(m[3]);
    setPath(f.config, [`nvcf:${keys[0]}`, ...keys.slice(1)], value === undefined ? "" : value);
  }
  const secrets: InitSecret[] = o.secret.map((raw) => {
    const m = /^(?:([^:=\s]+):)?(?:nvcf:)?([A-Za-z][\w.[\]"-]*)=(env|file):(.+)$/.exec(raw);
    if (!m)
      throw new CliError(
        EXIT.usage,
        `--secret ${raw}: expected [<stack>:]<key>=env:<VARIABLE> or [<stack>:]<key>=file:<path> ` +
          `(the value itself never goes on the command line), e.g. --secret registryKey=env:NGC_API_KEY`,
      );
    const stack = m[1] ?? o.env;
    stackOf("--secret", raw, stack);
    secretKey("--secret", raw, m[2]);
    return { stack, key: m[2], from: m[3] === "env" ? { env: m[4] } : { file: m[4] } };
  });
  return { env: o.env, clusters, files, secrets };
}

/**
 * A secret's value from where `--secret` says (an environment variable, or a file whose one trailing newline is
 * dropped). Throws `CliError` (EXIT.usage) naming the variable or file when it is unset, empty or unreadable; the
 * value itself is never printed.
 */
export function secretFromFlag(s: InitSecret, env: NodeJS.ProcessEnv = process.env): string {
  if ("env" in s.from) {
    const v = env[s.from.env];
    if (!v)
      throw new CliError(
        EXIT.usage,
        `--secret ${s.key}=env:${s.from.env}: the variable ${s.from.env} is unset or empty. Fix: export it first`,
      );
    return v;
  }
  let v: string;
  try {
    v = fs.readFileSync(s.from.file, "utf8").replace(/\r?\n$/, "");
  } catch (e) {
    throw new CliError(
      EXIT.usage,
      `--secret ${s.key}=file:${s.from.file}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  if (!v) throw new CliError(EXIT.usage, `--secret ${s.key}=file:${s.from.file}: the file is empty`);
  return v;
}

/** The text of a stack file: a header naming what made it, then the `config:` map (and the salt, when given). */
export function renderStackFile(env: string, config: Record<string, unknown>, salt?: string): string {
  const head =
    config["nvcf:plane"] === "control"
      ? `# Control plane of environment ${env}, made by nvcf init. Every key: docs/configuration.md.\n`
      : `# GPU cluster ${String(config["nvcf:clusterName"])} of environment ${env}, made by nvcf init.\n`;
  return (
    head + yaml.dump({ config, ...(salt ? { encryptionsalt: salt } : {}) }, { lineWidth: 120, noRefs: true })
  );
}

/** The `encryptionsalt:` of a stack file (the passphrase provider's salt), if it has one. */
function saltOf(file: string): string | undefined {
  const doc = yaml.load(fs.readFileSync(file, "utf8")) as { encryptionsalt?: unknown } | null;
  return typeof doc?.encryptionsalt === "string" ? doc.encryptionsalt : undefined;
}

/** Asks each missing required answer on the terminal (one line each); an empty answer leaves it missing. */
async function ask(o: InitOptions): Promise<void> {
  const missing = missingAnswers(o);
  if (!missing.length) return;
  const readline = await import("node:readline/promises");
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    for (const [k, , q] of missing) {
      const a = (await rl.question(`${q}: `)).trim();
      if (a) (o as unknown as Record<string, unknown>)[k] = a;
    }
  } finally {
    rl.close();
  }
}

/**
 * Runs the verb. On a terminal, asks the required answers not given as flags. Refuses (EXIT.usage) when a stack
 * file of the new environment exists or the backend already holds one of its stacks, before anything is written.
 * Writes the control plane's file and initialises its stack (`--secrets-provider`, default the passphrase of
 * `PULUMI_CONFIG_PASSPHRASE`), then each GPU cluster's file, with the control plane's salt when the provider is the
 * passphrase (one key derivation per run, docs/configuration.md), and its stack; writes the secrets through the
 * stacks' provider; then runs preflight unless `preflight` is false. Prints what it made and the next command.
 * Exit: EXIT.ok, EXIT.usage, or EXIT.preflight when a check failed (the files and stacks stay, for `nvcf up` once
 * the cluster is fixed).
 */
export async function init(o: InitOptions): Promise<ExitCode> {
  const projectDir = path.resolve(o.cwd ?? process.cwd());
  const { projectName, loadEnvironment } = await import("../environment");
  const project = projectName(projectDir);
  const { interactive } = await import("./select");
  if (interactive()) await ask(o);
  const plan = initPlan(o, project, projectDir);
  const fileOf = (stack: string) => path.join(projectDir, `Pulumi.${stack}.yaml`);
  const existing = plan.files.map((f) => fileOf(f.stack)).filter((f) => fs.existsSync(f));
  if (existing.length)
    throw new CliError(
      EXIT.usage,
      `${existing.map((f) => path.basename(f)).join(", ")} already exist: nvcf init never overwrites a stack file. ` +
        `Fix: choose another --env, or remove the file(s) after checking nothing uses them`,
    );
  const values = plan.secrets.map((s) => ({ ...s, value: secretFromFlag(s) }));
  const { LocalWorkspace, Stack } = await import("@pulumi/pulumi/automation");
  const ws = await LocalWorkspace.create({
    workDir: projectDir,
    ...(o.secretsProvider ? { secretsProvider: o.secretsProvider } : {}),
  });
  const known = new Set((await ws.listStacks()).map((s) => s.name.split("/").pop()));
  const taken = plan.files.map((f) => f.stack).filter((s) => known.has(s));
  if (taken.length)
    throw new CliError(
      EXIT.usage,
      `the backend already holds stack(s) ${taken.join(", ")}: nvcf init makes new stacks only. ` +
        `Fix: choose another --env, or pulumi stack rm the old ones after checking nothing uses them`,
    );
  const out = (l: string) => process.stdout.write(`${l}\n`);
  const [control, ...computes] = plan.files;
  fs.writeFileSync(fileOf(control.stack), renderStackFile(plan.env, control.config));
  const stacks = new Map([[control.stack, await Stack.create(control.stack, ws)]]);
  out(`created stack ${control.stack} (control plane): ${path.basename(fileOf(control.stack))}`);
  // The passphrase provider keeps its salt in the stack file: the GPU clusters' stacks share the control plane's.
  const salt =
    o.secretsProvider && o.secretsProvider !== "passphrase" ? undefined : saltOf(fileOf(control.stack));
  for (const f of computes) {
    fs.writeFileSync(fileOf(f.stack), renderStackFile(plan.env, f.config, salt));
    stacks.set(f.stack, await Stack.create(f.stack, ws));
    out(
      `created stack ${f.stack} (GPU cluster ${String(f.config["nvcf:clusterName"])}): ${path.basename(fileOf(f.stack))}`,
    );
  }
  for (const s of values) {
    const key = `nvcf:${s.key}`;
    await stacks.get(s.stack)?.setConfig(key, { value: s.value, secret: true }, /[.[]/.test(s.key));
    out(`set secret ${key} of stack ${s.stack} (encrypted by its secrets provider)`);
  }
  const next = `next: nvcf preview --env ${plan.env}, then nvcf up --env ${plan.env}`;
  if (!o.preflight) {
    out(next);
    return EXIT.ok;
  }
  const { preflight } = await import("./checks");
  const code = await preflight(loadEnvironment(projectDir, plan.env), { kubeconfig: o.kubeconfig });
  out(
    code === EXIT.ok
      ? next
      : `fix what preflight found, then: nvcf preflight --env ${plan.env}; ${next.slice(6)}`,
  );
  return code;
}
