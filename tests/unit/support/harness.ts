/**
 * Runs the real program (index.ts) under Pulumi mocks for a committed stack file and records the resource
 * graph: type, name, parent, inputs (secrets masked) and options. Mocks fail on any unmocked call.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { type StackConfig, validateConfig } from "../../../config/load";
import type { ControlPlaneConfig } from "../../../config/schema";

export const ROOT = path.resolve(__dirname, "../../..");

/** The Pulumi project name (`name` in Pulumi.yaml), as the mocks run the program. */
export const PROJECT = "nvcf";

/** A sentinel secret per key: tests assert these never appear in plain text. */
export const sentinel = (key: string) => `SENTINEL-${key}-7f3a9c`;

/** A kubeconfig whose token is a sentinel. */
export function sentinelKubeconfig(name: string): string {
  return yaml.dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: `https://${name}.example.com:6443` } }],
    users: [{ name, user: { token: sentinel(`kubeconfig-${name}`) } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });
}

/** What a `secure:` entry stands for in tests: a sentinel of the right shape for its key. */
function secureStandIn(key: string, config: Record<string, unknown>): string {
  if (key === "kubeconfig") return sentinelKubeconfig("cluster");
  if (key === "gpuClusterKubeconfigs") {
    const clusters = (config["nvcf:gpuClusters"] ?? []) as { name: string }[];
    return JSON.stringify(Object.fromEntries(clusters.map((c) => [c.name, sentinelKubeconfig(c.name)])));
  }
  return sentinel(key);
}

export interface Rendered {
  type: string;
  name: string;
  /**
   * The URN the engine gives the resource: `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, the qualified
   * type being the types of its ancestors below the stack and its own, joined by `$` (Pulumi's URN format; the
   * mock monitor's own URNs keep only the parent's type, so the harness builds them from the parent chain).
   */
  urn: string;
  parent?: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  dependsOn: string[];
  /**
   * Names of the resources its inputs are built from (the resources behind each Output in its inputs, and
   * resources passed as inputs): the engine orders these before it as it does `dependsOn`.
   */
  inputDependsOn: string[];
  protect: boolean;
  /** The resource option `ignoreChanges` (property paths), empty when not set. */
  ignoreChanges: string[];
  /** The resource option `import` (the ID to import), only when set. */
  importId?: string;
  /** The props as the program passed them (Outputs unresolved). */
  props?: unknown;
  /** The resource object (read after construction, for inherited options). */
  ref?: unknown;
}

export interface StackFile {
  config: Record<string, string>;
  secretKeys: string[];
}

/**
 * Reads `Pulumi.<stack>.yaml` as the engine would hand it to the program: objects as JSON text, scalars as
 * strings; every `secure:` value replaced by a sentinel and marked secret. `overrides` (key without the
 * `nvcf:` prefix → value) are applied on top; a value of `undefined` removes the key.
 */
export function readStackFile(
  stack: string,
  overrides: Record<string, unknown> = {},
  secrets: Record<string, string> = {},
): StackFile {
  const doc = yaml.load(fs.readFileSync(path.join(ROOT, `Pulumi.${stack}.yaml`), "utf8")) as {
    config?: Record<string, unknown>;
  };
  const config: Record<string, string> = {};
  const secretKeys: string[] = [];
  const put = (key: string, v: unknown) => {
    if (v !== null && typeof v === "object" && "secure" in (v as object)) {
      config[key] = secureStandIn(key.replace(/^nvcf:/, ""), doc.config ?? {});
      secretKeys.push(key);
    } else config[key] = typeof v === "string" ? v : JSON.stringify(v);
  };
  for (const [k, v] of Object.entries(doc.config ?? {})) put(k, v);
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete config[`nvcf:${k}`];
    else put(`nvcf:${k}`, v);
  }
  for (const [k, v] of Object.entries(secrets)) {
    config[`nvcf:${k}`] = v;
    secretKeys.push(`nvcf:${k}`);
  }
  return { config, secretKeys };
}

/**
 * A stack file's config as the program validates it (config/load.ts validateConfig): secrets as sentinels,
 * `overrides` as readStackFile takes them; `T` names the plane's config type. Throws the program's ConfigError
 * when it has problems.
 */
export function validatedConfig<T extends StackConfig = ControlPlaneConfig>(
  stack: string,
  overrides: Record<string, unknown> = {},
): T {
  const f = readStackFile(stack, overrides);
  const raw = Object.fromEntries(Object.entries(f.config).map(([k, v]) => [k.replace(/^nvcf:/, ""), v]));
  return validateConfig(raw, new Set(f.secretKeys.map((k) => k.replace(/^nvcf:/, ""))), stack) as T;
}

/** The error of class `cls` that `fn` throws; anything else thrown is rethrown, nothing thrown fails the test. */
export function thrown<E extends Error>(cls: abstract new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof cls) return e;
    throw e;
  }
  throw new Error(`expected a ${cls.name}`);
}

/** A mocked Gateway with the four documented listeners. */
export function mockGateway(listeners = ["http", "tcp", "nats", "worker-tcp"]) {
  return {
    spec: { listeners: listeners.map((name) => ({ name })) },
    status: { addresses: [{ value: "203.0.113.10" }] },
  };
}

/** Realistic `nvcf-cli cluster register` output (summary lines, marker, hint, values). */
export function registerOutput(name: string, region: string): string {
  const id = (s: string) => {
    const h = Buffer.from(s).toString("hex").padEnd(32, "0").slice(0, 32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  };
  return [
    `Cluster Group ID: ${id(`g-${name}`)}`,
    `Cluster Group Name: ${name}`,
    `Cluster ID: ${id(name)}`,
    "OIDC Issuer: https://kwok.test",
    `Region: ${region}`,
    "",
    "--- Helm values for nvca-operator ---",
    "Add the following to your nvca-operator Helm values:",
    "",
    `clusterID: ${id(name)}`,
    `clusterGroupID: ${id(`g-${name}`)}`,
    "ncaID: nvcf-default",
    `region: ${region}`,
    "selfManaged:",
    "  identitySource: psat",
    "  icmsServiceURL: http://203.0.113.10",
    "  revalServiceURL: http://203.0.113.10",
    "  natsURL: nats://203.0.113.10:4222",
    "",
  ].join("\n");
}

/**
 * What the account-settings commands (components/accounts.ts) print, as nvcf-cli's `--json` answers: the account's
 * limits for the limits command, the credential (provisioned by the account bootstrap) for a credential command.
 */
export function accountCommandOutput(env: Record<string, string>): string {
  if (env["NVCFP_REGISTRY_HOST"]) {
    const host = env["NVCFP_REGISTRY_HOST"];
    const hex = Buffer.from(host).toString("hex").padEnd(32, "0").slice(0, 32);
    return JSON.stringify({
      registryCredential: {
        registryCredentialId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`,
        registryCredentialName: "credentials",
        registryHostname: host,
        artifactTypes: (env["NVCFP_ARTIFACT_TYPES"] ?? "").split(",").filter(Boolean),
        description: env["NVCFP_DESCRIPTION"] ?? "",
        tags: JSON.parse(env["NVCFP_TAGS"] ?? "[]"),
        provisionedBy: "SYSTEM",
      },
    });
  }
  return JSON.stringify({
    account: {
      ncaId: env["NVCFP_ACCOUNT"],
      adminClientIds: ["ncp"],
      name: env["NVCFP_ACCOUNT"],
      maxFunctionsAllowed: Number(env["NVCFP_MAX_FUNCTIONS"]),
      maxTasksAllowed: Number(env["NVCFP_MAX_TASKS"]),
      maxTelemetriesAllowed: Number(env["NVCFP_MAX_TELEMETRIES"]),
      maxRegistryCredentialsAllowed: Number(env["NVCFP_MAX_REGISTRY_CREDS"]),
    },
  });
}

/** Strips the wire form of secrets (`{<sig>: <secret sig>, value}`) that mocks may receive. */
export function unwrapSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (o["4dabf18193072939515e22adb298388d"] === "1b47061264138c4ac30d75fd1eb44270")
      return unwrapSecrets(o["value"]);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrapSecrets(x)]));
  }
  return v;
}

export interface RenderOptions {
  stack: string;
  overrides?: Record<string, unknown>;
  secrets?: Record<string, string>;
  /** Gateways returned by reads, keyed `namespace/name`. */
  gateways?: Record<string, unknown>;
  /** Outputs of the referenced control-plane stack (compute stacks). */
  controlPlaneOutputs?: Record<string, unknown>;
  controlPlaneSecretOutputs?: string[];
  /**
   * Outputs of this stack's previous update, as its reference to itself reads them (engine/previous.ts);
   * default: none (a first `pulumi up`).
   */
  previousOutputs?: Record<string, unknown>;
  /** Which of `previousOutputs` were secret. */
  previousSecretOutputs?: string[];
  /** DaemonSet scheduled count returned by the mock. */
  daemonSetScheduled?: number;
  preview?: boolean;
  /**
   * Project modules replaced for this run (path relative to the repository root, e.g. `recovery/recover` →
   * its exports, merged over the real ones), to steer what the program cannot be given through config.
   */
  moduleMocks?: Record<string, Record<string, unknown>>;
}

export interface RenderResult {
  resources: Rendered[];
  outputs: Record<string, unknown>;
  /** Which outputs were secret. */
  secretOutputs: string[];
  /**
   * What reached the mock engine, in order: `register <type>::<name>` for each resource registration, and
   * `outputs <JSON of the releases output>` for each registration of the stack's outputs that holds `releases`.
   */
  events: string[];
  error?: Error;
}

type PulumiModule = typeof import("@pulumi/pulumi");

/** The parts of the SDK's RegisterResourceOutputsRequest the harness reads. */
interface RegisterOutputsRequest {
  getUrn(): string;
  getOutputs(): { toJavaScript(): Record<string, unknown> } | undefined;
}

/** A value that reached a resource's inputs as a secret: the resource, the input path and the value in clear. */
export interface SecretInput {
  resource: string;
  path: string;
  value: unknown;
}

/** What resolving one resource's inputs finds besides their values: input dependencies and secret values. */
interface InputWalk {
  deps: Set<string>;
  secrets: { path: string; value: unknown }[];
}

/** The SDK's Output as the harness reads it (`allResources` and `promise` are the SDK's own internals). */
interface OutputInternals {
  isSecret: Promise<boolean>;
  apply: (f: (x: unknown) => unknown) => unknown;
  allResources?: () => Promise<Set<unknown>>;
  resources: () => Set<unknown>;
  promise: (withUnknowns?: boolean) => Promise<unknown>;
}

const resourceName = (r: unknown) => (r as { __name?: string }).__name ?? "?";

/**
 * Resolves a value as the program built it: secret Outputs become "[secret]", other Outputs and promises
 * their values, recursively. A plain-text sentinel stays visible (that is a leak the tests look for).
 * With `walk`, also records the resources each Output is built from, and each secret's value in clear (kept
 * out of the rendered inputs). Without `walk`, secrets are not masked (the value of a secret, in clear).
 */
async function resolveMasked(pulumi: PulumiModule, v: unknown, walk?: InputWalk, at = ""): Promise<unknown> {
  if (pulumi.Output.isInstance(v)) {
    const o = v as unknown as OutputInternals;
    if (walk) {
      const from = o.allResources ? await o.allResources() : o.resources();
      for (const r of from) walk.deps.add(resourceName(r));
      if (await o.isSecret) {
        walk.secrets.push({ path: at, value: await resolveMasked(pulumi, await o.promise(true)) });
        return "[secret]";
      }
    }
    const inner = await new Promise((res) => o.apply((x) => res(x)));
    return resolveMasked(pulumi, inner, walk, at);
  }
  if (v instanceof Promise) return resolveMasked(pulumi, await v, walk, at);
  if (pulumi.Resource.isInstance(v)) {
    walk?.deps.add(resourceName(v));
    return `[resource ${resourceName(v)}]`;
  }
  if (typeof v === "string" && v.includes(ROOT)) return v.split(ROOT).join("<repo>");
  if (Array.isArray(v)) return Promise.all(v.map((x, i) => resolveMasked(pulumi, x, walk, `${at}[${i}]`)));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      if (x !== undefined) out[k] = await resolveMasked(pulumi, x, walk, at ? `${at}.${k}` : k);
    return out;
  }
  return v;
}

/** The secret values of each render, kept apart so that no serialisation of a result shows them. */
const SECRET_INPUTS = new WeakMap<RenderResult, SecretInput[]>();

/**
 * Every value that reached a resource's inputs as a secret, in clear (for tests that follow a secret from the
 * config to where it is used). Empty for a render that failed before inputs were read.
 */
export function secretInputs(r: RenderResult): SecretInput[] {
  return SECRET_INPUTS.get(r) ?? [];
}

/**
 * Runs the program for a stack under mocks. Returns the graph and the outputs (resolved, secrets flagged);
 * a program error is returned in `error` instead of thrown.
 */
export async function render(opts: RenderOptions): Promise<RenderResult> {
  const file = readStackFile(opts.stack, opts.overrides, opts.secrets);
  const resources: Rendered[] = [];
  const pendingDeps: Promise<unknown>[] = [];
  const events: string[] = [];
  const qualifiedTypes = new WeakMap<object, string>();
  let result: RenderResult = { resources, outputs: {}, secretOutputs: [], events };
  let rejected: Error | undefined;
  let programError: Error | undefined;
  const onRejection = (e: unknown) => {
    rejected ??= e as Error;
  };
  process.on("unhandledRejection", onRejection);
  await new Promise<void>((resolve) => {
    // The program's dynamic imports resolve after isolateModules returns, in the shared registry: with mocks, that
    // registry is emptied before and after, so they load with the mocks and nothing keeps them.
    if (opts.moduleMocks) jest.resetModules();
    jest.isolateModules(() => {
      for (const [mod, replaced] of Object.entries(opts.moduleMocks ?? {})) {
        const file = path.join(ROOT, mod);
        jest.doMock(file, () => ({ ...jest.requireActual<Record<string, unknown>>(file), ...replaced }));
      }
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const pulumi = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
      pulumi.runtime.setMocks(
        {
          newResource(args) {
            events.push(`register ${args.type}::${args.name}`);
            const state: Record<string, unknown> = { ...args.inputs };
            switch (args.type) {
              case "kubernetes:helm.sh/v3:Release":
                state["status"] = {
                  status: "deployed",
                  name: args.inputs.name,
                  namespace: args.inputs.namespace,
                  revision: 1,
                };
                break;
              case "command:local:Command": {
                const env = unwrapSecrets(args.inputs.environment ?? {}) as Record<string, string>;
                state["stdout"] = env["NVCFP_CLUSTER_NAME"]
                  ? registerOutput(env["NVCFP_CLUSTER_NAME"], env["NVCFP_REGION"])
                  : env["NVCFP_ACCOUNT"]
                    ? accountCommandOutput(env)
                    : "";
                state["stderr"] = "";
                break;
              }
              case "random:index/randomPassword:RandomPassword":
                state["result"] = "mock-random-password-0123456789";
                break;
              case "kubernetes:apps/v1:DaemonSet":
                state["status"] = {
                  desiredNumberScheduled: opts.daemonSetScheduled ?? 3,
                  numberReady: opts.daemonSetScheduled ?? 3,
                };
                break;
              case "kubernetes:gateway.networking.k8s.io/v1:Gateway":
                if (args.id) return { id: args.id, state: (opts.gateways ?? {})[args.id] ?? {} };
                state["status"] = { addresses: [{ value: "203.0.113.20" }] };
                break;
              case "pulumi:pulumi:StackReference":
                if (args.inputs.name === `organization/nvcf/${opts.stack}`)
                  return {
                    id: String(args.inputs.name),
                    state: {
                      name: args.inputs.name,
                      outputs: opts.previousOutputs ?? {},
                      secretOutputNames: opts.previousSecretOutputs ?? [],
                    },
                  };
                return {
                  id: String(args.inputs.name),
                  state: {
                    name: args.inputs.name,
                    outputs: opts.controlPlaneOutputs ?? {},
                    secretOutputNames: opts.controlPlaneSecretOutputs ?? [],
                  },
                };
            }
            return { id: args.id ?? `${args.name}-id`, state };
          },
          call(args) {
            switch (args.token) {
              case "aws:eks/getCluster:getCluster":
                return {
                  name: args.inputs.name,
                  endpoint: "https://eks.example.com",
                  certificateAuthorities: [{ data: "Q0EK" }],
                };
              case "aws:eks/getClusterAuth:getClusterAuth":
                return { name: args.inputs.name, token: sentinel("eks-token") };
            }
            throw new Error(`unmocked call ${args.token}`);
          },
        },
        PROJECT,
        opts.stack,
        opts.preview ?? false,
        "organization",
      );
      pulumi.runtime.setAllConfig(file.config, file.secretKeys);
      const monitor = pulumi.runtime.getMonitor() as unknown as {
        registerResourceOutputs: (req: RegisterOutputsRequest, cb: (e: Error | null) => void) => void;
      };
      const registerOutputs = monitor.registerResourceOutputs.bind(monitor);
      monitor.registerResourceOutputs = (req, cb) => {
        const releases = req.getOutputs()?.toJavaScript()["releases"];
        if (req.getUrn().endsWith("::pulumi:pulumi:Stack::nvcf-" + opts.stack) && releases !== undefined)
          events.push(`outputs ${JSON.stringify(releases)}`);
        registerOutputs(req, cb);
      };
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const program = require("../../../index") as () => Promise<Record<string, unknown>>;
      (async () => {
        try {
          let out: Record<string, unknown> = {};
          await pulumi.runtime.runInPulumiStack(async () => {
            pulumi.runtime.registerStackTransformation((a) => {
              const parent = a.opts.parent as unknown as
                | { __pulumiType?: string; __name?: string }
                | undefined;
              // A `dependsOn` given as a promise (a release that waits for its prerequisites' outputs to be
              // acknowledged, engine/outputs.ts) is recorded once it resolves; the run waits for it below.
              const given = a.opts.dependsOn as unknown;
              const names = (d: unknown) =>
                ([] as unknown[]).concat(d ?? []).map((x) => (x as { __name?: string }).__name ?? "?");
              // The SDK's mergeOptions turns a promised `dependsOn` into an Output.
              const later = pulumi.Output.isInstance(given)
                ? new Promise((res) => (given as import("@pulumi/pulumi").Output<unknown>).apply(res))
                : typeof (given as { then?: unknown } | undefined)?.then === "function"
                  ? (given as Promise<unknown>)
                  : undefined;
              const deps = later ? [] : names(given);
              const underStack = parent === undefined || parent.__pulumiType === "pulumi:pulumi:Stack";
              const qualifiedType = underStack
                ? a.type
                : `${qualifiedTypes.get(parent) ?? `<unrecorded ${parent.__pulumiType}>`}$${a.type}`;
              qualifiedTypes.set(a.resource, qualifiedType);
              const rec: Rendered = {
                type: a.type,
                name: a.name,
                urn: `urn:pulumi:${opts.stack}::${PROJECT}::${qualifiedType}::${a.name}`,
                parent: parent?.__pulumiType === "pulumi:pulumi:Stack" ? undefined : parent?.__name,
                custom: !a.type.startsWith("nvcf:"),
                inputs: {},
                props: a.props,
                ref: a.resource,
                dependsOn: deps,
                inputDependsOn: [],
                protect: a.opts.protect === true,
                ignoreChanges: [...(a.opts.ignoreChanges ?? [])],
                ...((a.opts as { import?: string }).import
                  ? { importId: (a.opts as { import?: string }).import }
                  : {}),
              };
              resources.push(rec);
              if (later) pendingDeps.push(later.then((d) => (rec.dependsOn = names(d))));
              return undefined;
            });
            // The program's own error is kept here rather than failing the stack's init: a failed init rejects the
            // stack's outputs once per consumer, which Jest reports as unhandled rejections of the test.
            out = await program().catch((e: unknown) => {
              programError = e as Error;
              return {};
            });
            return undefined;
          });
          if (programError) throw programError;
          const outputs: Record<string, unknown> = {};
          const secretOutputs: string[] = [];
          for (const [k, v] of Object.entries(out)) {
            if (pulumi.Output.isInstance(v)) {
              if (await (v as unknown as { isSecret: Promise<boolean> }).isSecret) secretOutputs.push(k);
              outputs[k] = await new Promise((res) =>
                (v as import("@pulumi/pulumi").Output<unknown>).apply((x) => res(x)),
              );
            } else outputs[k] = v;
          }
          // Let every registration settle, then copy inputs in.
          await new Promise((r) => setTimeout(r, 50));
          await Promise.all(pendingDeps);
          const secrets: SecretInput[] = [];
          for (const r of resources) {
            const walk: InputWalk = { deps: new Set(), secrets: [] };
            r.inputs = (await resolveMasked(pulumi, r.props ?? {}, walk)) as Record<string, unknown>;
            r.inputDependsOn = [...walk.deps];
            for (const x of walk.secrets) secrets.push({ resource: `${r.type}::${r.name}`, ...x });
            r.protect = (r.ref as { __protect?: boolean }).__protect === true;
            delete r.props;
            delete r.ref;
          }
          result = { resources, outputs, secretOutputs, events };
          SECRET_INPUTS.set(result, secrets);
        } catch (e) {
          result = { resources, outputs: {}, secretOutputs: [], events, error: e as Error };
        }
        resolve();
      })();
    });
  });
  // Failed Outputs reject once per consumer; let them all land here before handing back.
  await new Promise((r) => setTimeout(r, result.error || rejected ? 500 : 20));
  process.off("unhandledRejection", onRejection);
  for (const mod of Object.keys(opts.moduleMocks ?? {})) jest.unmock(path.join(ROOT, mod));
  if (opts.moduleMocks) jest.resetModules();
  if (rejected && !result.error) result = { ...result, error: rejected };
  return result;
}
