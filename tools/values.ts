/**
 * Prints what every Helm release of a stack would be installed with: chart, version, namespace and the
 * values document, computed by the same pure functions the program uses (no engine, no cluster).
 *
 *   npx ts-node --transpile-only tools/values.ts <stack> [--set key=json ...] [--registration file]
 *
 * `<stack>` names `Pulumi.<stack>.yaml`; `--set` overrides one `nvcf:` key (without the prefix) with a
 * JSON or plain value; secret keys set in the file are replaced by the marker `<secret:KEY>` and every
 * secret leaf of the values is printed as `<secret>`. Compute-plane stacks use the registration values
 * of `--registration` (YAML: clusterID, clusterGroupID, ncaID, region, selfManaged.*) or placeholders,
 * and the image mirror of `--image-registry` / `--image-repository` (defaults: `nvcr.io`,
 * `YOUR_ORG/YOUR_TEAM`; `stackValues` without them reads the control plane's stack file instead).
 * Output: one YAML document on stdout, `{<release>: {chart, version, namespace, values}}`.
 * Exits 2 on a config error (the formatted problem list on stderr).
 *
 * The same computation is exported as `stackValues` (used by tests/unit/standins/charts.test.ts to render every
 * release's chart with exactly these values).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { type ReleaseSpec, chartVersion, configNamespaces } from "../catalog/releases";
import { validateConfig } from "../config/load";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../config/schema";
import { SECRET_KEYS } from "../config/schema";
import { computeValues, type ComputeInputs } from "../values/compute";
import { type StackReleases, stackReleases } from "../config/stackReleases";
import { controlValues, sidecarUser, type ControlSecrets } from "../values/control";
import { dockerAuth } from "../config/credentials";
import { serviceHosts } from "../config/routes";

const ROOT = path.resolve(__dirname, "..");

/** One release as the program would install it. */
export interface ReleaseValues {
  chart: string;
  version: string;
  /** Namespace name, or `<setting>` for a namespace taken from config at run time. */
  namespace: string;
  values: Record<string, unknown>;
}

/** Options of `stackValues`. */
export interface StackValuesOptions {
  /** `nvcf:` keys (without the prefix) to override, raw strings as `pulumi config set` stores them. */
  sets?: Record<string, string>;
  /**
   * How secrets appear. `marker` (default): secret config keys become `<secret:KEY>` and every secret leaf of
   * the values `<secret>`. `sentinel`: secret config keys become `SENTINEL-<KEY>` and the secret leaves are
   * encoded from them exactly as the program encodes the real keys (`config/credentials.ts` `dockerAuth`),
   * so they have the real shape (e.g. one-line base64) without holding a real secret.
   */
  secrets?: "marker" | "sentinel";
  /** Compute plane: the registration `nvcf-cli` printed (clusterID, clusterGroupID, ncaID, region, selfManaged.*). */
  registration?: Record<string, unknown>;
  /** Compute plane: the image mirror, when the control plane's stack file is not in the project. */
  imageRegistry?: string;
  imageRepository?: string;
  /** Compute plane: the control plane's gateway address (dev: the kwok Gateway reports 127.0.0.1). */
  gatewayAddress?: string;
  /** Directory holding the `Pulumi.<stack>.yaml` files (default: the project root). */
  root?: string;
  /**
   * Namespaces taken from config at run time: `placeholder` (default) prints `<setting>`, `resolved` gives
   * the configured name (`gateway.controllerNamespace`, `observability.namespace`).
   */
  namespaces?: "placeholder" | "resolved";
}

/** The `nvcf:` config of a stack file as raw strings, and which keys were set with `--secret`. */
function readStackFile(
  root: string,
  stack: string,
  secrets: "marker" | "sentinel",
): { raw: Record<string, string>; secretKeys: Set<string> } {
  const file = path.join(root, `Pulumi.${stack}.yaml`);
  const doc = yaml.load(fs.readFileSync(file, "utf8")) as { config?: Record<string, unknown> };
  const config = doc.config ?? {};
  const raw: Record<string, string> = {};
  const secretKeys = new Set<string>();
  const stand = (key: string) => (secrets === "marker" ? `<secret:${key}>` : `SENTINEL-${key}`);
  for (const [k, v] of Object.entries(config)) {
    if (!k.startsWith("nvcf:")) continue;
    const key = k.slice(5);
    if (v !== null && typeof v === "object" && "secure" in v) {
      if (key === "gpuClusterKubeconfigs") {
        const clusters = (config["nvcf:gpuClusters"] ?? []) as { name: string }[];
        raw[key] = JSON.stringify(
          Object.fromEntries(clusters.map((c) => [c.name, standInKubeconfig(c.name, stand(key))])),
        );
      } else raw[key] = key === "kubeconfig" ? standInKubeconfig(stack, stand(key)) : stand(key);
      secretKeys.add(key);
    } else raw[key] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return { raw, secretKeys };
}

/** A kubeconfig of the right shape for a `secure:` kubeconfig key; its token is the marker or sentinel. */
function standInKubeconfig(name: string, token: string): string {
  return yaml.dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: `https://${name}.example.com:6443` } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });
}

/**
 * Every enabled release of a stack with its chart, pinned version, namespace and values, in dependency
 * order, computed by the program's own pure code (`config/load.ts` validation, `catalog/releases.ts`,
 * `values/control.ts` / `values/compute.ts`). Input: the stack name (`Pulumi.<stack>.yaml`) and options.
 * Output: release name → `ReleaseValues`. Throws `ConfigError` when the (overridden) config is invalid.
 */
export function stackValues(stack: string, opts: StackValuesOptions = {}): Record<string, ReleaseValues> {
  const root = opts.root ?? ROOT;
  const mode = opts.secrets ?? "marker";
  const { raw, secretKeys } = readStackFile(root, stack, mode);
  for (const [k, v] of Object.entries(opts.sets ?? {})) {
    raw[k] = v;
    if ((SECRET_KEYS as readonly string[]).includes(k)) secretKeys.add(k);
  }
  const cfg = validateConfig(raw, secretKeys, stack);
  const fromConfig = configNamespaces(cfg);
  const ns = (r: ReleaseSpec) => {
    if ("fixed" in r.namespace) return r.namespace.fixed;
    const name = fromConfig[r.namespace.fromConfig];
    return opts.namespaces === "resolved" && name ? name : `<${r.namespace.fromConfig}>`;
  };
  if (cfg.plane === "control") {
    const c = cfg as ControlPlaneConfig;
    const secrets: ControlSecrets<string> =
      mode === "marker"
        ? {
            cassandraPassword: "<secret>",
            sidecarAuth: "<secret>",
            functionAuth: c.accounts.registryCredentials.map(() => "<secret>"),
          }
        : {
            // As components/controlPlane.ts: the configured password (else a generated one), and
            // base64("user:key") of the sidecar / function key, falling back to registryKey.
            cassandraPassword: c.cassandraPassword ?? "SENTINEL-generated-cassandra-password",
            sidecarAuth: dockerAuth(sidecarUser(c), c.sidecarRegistryKey ?? c.registryKey ?? ""),
            functionAuth: c.accounts.registryCredentials.map((rc) =>
              dockerAuth(rc.username, c.functionRegistryKey ?? c.registryKey ?? ""),
            ),
          };
    return releasesOf(c, stackReleases(c), ns, (r) => controlValues(r, c, secrets));
  }
  const c = cfg as ComputePlaneConfig;
  const inputs = computeInputsFor(c, root, opts);
  return releasesOf(c, stackReleases(c), ns, (r) => computeValues(r, c, inputs));
}

/** The releases a stack installs in dependency order, each with its chart, pinned version, namespace and values. */
function releasesOf(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  installed: StackReleases,
  ns: (r: ReleaseSpec) => string,
  values: (release: string) => Record<string, unknown>,
): Record<string, ReleaseValues> {
  const out: Record<string, ReleaseValues> = {};
  for (const r of installed.releases) {
    out[r.name] = {
      chart: r.chart,
      version: chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides),
      namespace: ns(r),
      values: values(r.name),
    };
  }
  return out;
}

/**
 * What the compute plane reads from its control plane (as `stacks/compute.ts` `computeInputs` builds it
 * from the stack reference): the image mirror and domain of `Pulumi.<control stack>.yaml` when that file is
 * in `root`, the gateway URLs from `gatewayAddress`, and the registration from `opts.registration`
 * (placeholders `<clusterID>`, ... when absent).
 */
function computeInputsFor(c: ComputePlaneConfig, root: string, opts: StackValuesOptions): ComputeInputs {
  let imageRegistry = opts.imageRegistry ?? "nvcr.io";
  let imageRepository = opts.imageRepository ?? "YOUR_ORG/YOUR_TEAM";
  let hosts: Record<string, string> = {};
  const controlStack = c.controlPlaneStack.split("/").pop() ?? "";
  const controlFile = path.join(root, `Pulumi.${controlStack}.yaml`);
  if (opts.imageRegistry === undefined && fs.existsSync(controlFile)) {
    const doc = yaml.load(fs.readFileSync(controlFile, "utf8")) as { config?: Record<string, unknown> };
    const images = (doc.config?.["nvcf:images"] ?? {}) as { registry?: string; repository?: string };
    if (images.registry) imageRegistry = images.registry;
    if (images.repository !== undefined) imageRepository = images.repository;
    const domain = doc.config?.["nvcf:domain"];
    if (typeof domain === "string") hosts = serviceHosts(domain);
  }
  const reg = opts.registration ?? {};
  const sm = (reg["selfManaged"] ?? {}) as Record<string, string>;
  const gw = opts.gatewayAddress;
  return {
    imageRegistry,
    imageRepository,
    clusterID: String(reg["clusterID"] ?? "<clusterID>"),
    clusterGroupID: String(reg["clusterGroupID"] ?? "<clusterGroupID>"),
    ncaID: String(reg["ncaID"] ?? "nvcf-default"),
    region: String(reg["region"] ?? "<region>"),
    icmsServiceURL: gw ? `http://${gw}` : (sm["icmsServiceURL"] ?? "<icmsServiceURL>"),
    revalServiceURL: gw ? `http://${gw}` : (sm["revalServiceURL"] ?? "<revalServiceURL>"),
    natsURL: gw ? `nats://${gw}:4222` : (sm["natsURL"] ?? "<natsURL>"),
    icmsHost: hosts["sis"] ?? "",
    revalHost: hosts["reval"] ?? "",
    natsHost: hosts["nats"] ?? "",
  };
}

function parseArgs(argv: string[]) {
  const [stack, ...rest] = argv;
  if (!stack) throw new Error("usage: tools/values.ts <stack> [--set key=value ...] [--registration file]");
  const sets: Record<string, string> = {};
  let registration: string | undefined;
  let imageRegistry: string | undefined;
  let imageRepository: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const next = () => rest[++i] ?? "";
    if (a === "--set") {
      const kv = next();
      const eq = kv.indexOf("=");
      sets[kv.slice(0, eq)] = kv.slice(eq + 1);
    } else if (a === "--registration") registration = next();
    else if (a === "--image-registry") imageRegistry = next();
    else if (a === "--image-repository") imageRepository = next();
    else throw new Error(`unknown argument ${a}`);
  }
  return { stack, sets, registration, imageRegistry, imageRepository };
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const registration = args.registration
    ? (yaml.load(fs.readFileSync(args.registration, "utf8")) as Record<string, unknown>)
    : undefined;
  let out;
  try {
    out = stackValues(args.stack, {
      sets: args.sets,
      registration,
      imageRegistry: args.imageRegistry ?? "nvcr.io",
      imageRepository: args.imageRepository ?? "YOUR_ORG/YOUR_TEAM",
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
  process.stdout.write(yaml.dump(out, { noRefs: true, lineWidth: 200, sortKeys: true }));
}

if (require.main === module) main();
