/**
 * Chart availability for every pinned chart of an environment (docs/upstream-facts.md §4 rows 23-24): each
 * chart is resolved as the program resolves it (catalog/sources.ts `resolveChart`) and then, once per
 * distinct (location, version): a local directory must exist and its Chart.yaml carry the chart's name and the
 * pinned version; an OCI or HTTPS chart is pulled with the Helm CLI into a temporary directory, with the
 * configured credentials when the chart takes them (password on standard input, never on the command line), and
 * the keys it declares are written to the key cache the program checks `nvcf:releaseValues` against
 * (config/chartKeys.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { chartVersion } from "../../catalog/releases";
import { ENVOY_GATEWAY_CHART_VERSION, type ResolvedChart, resolveChart } from "../../catalog/sources";
import type { ChartSourceSettings } from "../../catalog/sources";
import { cacheLocation, chartKeysCacheDir, writeChartKeysCache } from "../../config/chartKeys";
import { stackReleases } from "../../config/stackReleases";
import { mapBounded } from "../../kube/bounded";
import { execCommand } from "../../kube/kubectl";
import type { Finding } from "../types";
import { fail, pass, skipped } from "../findings";
import { type CheckedStack, controlConfig } from "../stacks";

/** One chart to check: where it resolves and which releases of which stacks install it. */
export interface ChartToCheck {
  stack: string;
  releases: string[];
  chart: string;
  version: string;
  resolved: ResolvedChart;
  /** Registry user (`charts.username`), when credentials are attached. */
  username?: string;
  /** The secret `chartRegistryPassword`, when credentials are attached and it was decrypted. */
  password?: string;
  /** Credentials are attached but the password was not decrypted for the checks. */
  passwordMissing?: boolean;
}

/** The Envoy Gateway chart of `gateway.install`, resolved as components/gateway.ts does. */
function envoyGatewaySettings(s: CheckedStack): ChartSourceSettings {
  const cfg = controlConfig(s);
  const g = cfg.gateway.envoyGateway;
  return {
    ...cfg.charts,
    mirrors: {
      envoyGateway: g.localChartPath
        ? { location: g.localChartPath, credentials: "none" }
        : { location: `oci://${g.registry}/${g.repository}`, credentials: "none" },
      ...cfg.charts.mirrors,
    },
  };
}

/**
 * Every chart the stacks install, deduplicated by (resolved location, version, credentials). Input: checked
 * stacks and the project directory (relative chart paths resolve against it). Output: one entry per pull.
 */
export function chartsToCheck(stacks: readonly CheckedStack[], projectDir: string): ChartToCheck[] {
  const exists = (p: string) => fs.existsSync(path.resolve(projectDir, p));
  const out = new Map<string, ChartToCheck>();
  const add = (
    s: CheckedStack,
    release: string,
    chart: string,
    version: string,
    settings: ChartSourceSettings,
  ) => {
    const resolved = resolveChart(settings, chart, version, exists);
    const key = `${resolved.kind}|${resolved.repo ?? ""}|${resolved.chart}|${version}|${resolved.credentials}`;
    const had = out.get(key);
    if (had) {
      had.releases.push(`${s.file.stack}/${release}`);
      return;
    }
    const password = resolved.credentials ? s.secrets["chartRegistryPassword"] : undefined;
    out.set(key, {
      stack: s.file.stack,
      releases: [`${s.file.stack}/${release}`],
      chart,
      version,
      resolved,
      username: resolved.credentials ? s.config.charts.username : undefined,
      password,
      passwordMissing:
        resolved.credentials && password === undefined && s.secretKeys.has("chartRegistryPassword"),
    });
  };
  for (const s of stacks) {
    const cfg = s.config;
    for (const r of stackReleases(cfg).inCatalogOrder)
      add(s, r.name, r.chart, chartVersion(r, cfg.bundleVersion, cfg.charts.versionOverrides), cfg.charts);
    if (cfg.plane === "control" && controlConfig(s).gateway.install)
      add(
        s,
        "eg",
        "gateway-helm",
        controlConfig(s).gateway.envoyGateway.version ?? ENVOY_GATEWAY_CHART_VERSION,
        envoyGatewaySettings(s),
      );
  }
  return [...out.values()];
}

const where = (c: ChartToCheck) =>
  c.resolved.kind === "https" ? `${c.resolved.repo} (${c.chart})` : c.resolved.chart;

/** A local chart directory: exists, has Chart.yaml with the chart's name and the pinned version. */
export function checkLocalChart(c: ChartToCheck, projectDir: string): Finding {
  const dir = path.resolve(projectDir, c.resolved.chart);
  const obj = `chart ${c.chart} ${c.version}`;
  const used = `used by ${c.releases.join(", ")}`;
  const file = path.join(dir, "Chart.yaml");
  if (!fs.existsSync(file))
    return fail(
      "charts.pull",
      c.stack,
      obj,
      `no chart directory ${c.resolved.chart} (no Chart.yaml there; ${c.resolved.decidedBy})`,
      `the chart ${c.chart} at version ${c.version}, ${used}`,
      `unpack it there (helm pull <source>/${c.chart} --version ${c.version} --untar --untardir <dir>), or fix nvcf:${c.resolved.decidedBy}`,
    );
  const meta = (yaml.load(fs.readFileSync(file, "utf8")) ?? {}) as { name?: string; version?: string };
  if (meta.name !== c.chart || String(meta.version) !== c.version)
    return fail(
      "charts.pull",
      c.stack,
      obj,
      `${c.resolved.chart}/Chart.yaml is ${meta.name} ${meta.version}`,
      `chart ${c.chart} at version ${c.version}, ${used}`,
      `put ${c.chart} ${c.version} in ${path.dirname(c.resolved.chart)}/${c.chart}-${c.version}/ (preferred over ${c.chart}/), or pin it with nvcf:charts.versionOverrides`,
    );
  return pass("charts.pull", c.stack, obj, `${c.resolved.chart} holds ${c.chart} ${c.version}`);
}

/** Runs a command (no shell; `input` on standard input), both streams in `out`, never rejecting. */
async function run(
  cmd: string,
  args: string[],
  input?: string,
  timeoutMs = 120000,
): Promise<{ code: number; out: string }> {
  const r = await execCommand(cmd, args, { timeoutMs, input });
  return { code: r.code, out: `${r.stdout}\n${r.stderr}${r.notFound ? `\nspawn ${cmd} ENOENT` : ""}` };
}

/** A likely cause from Helm's message. */
export function pullCause(message: string): string {
  if (/ENOENT/.test(message)) return "the Helm CLI was not found (set NVCF_HELM or put helm on PATH)";
  if (/401|unauthorized|authentication required|denied|403|forbidden/i.test(message))
    return "the registry refused the credentials (nvcf:charts.username and the secret nvcf:chartRegistryPassword, or none for a public mirror)";
  if (/not found|404|manifest unknown|no chart version|no chart name/i.test(message))
    return "the chart or this version is not in that repository";
  if (
    /connection refused|no such host|i\/o timeout|timeout|dial tcp|network is unreachable|TLS handshake|certificate/i.test(
      message,
    )
  )
    return "the registry is unreachable from this machine (network, proxy or TLS)";
  return "Helm could not pull it";
}

/** Pulls one OCI or HTTPS chart with the Helm CLI into a throwaway directory (with its own registry/repo config). */
export async function pullChart(c: ChartToCheck, helm: string): Promise<Finding> {
  const obj = `chart ${c.chart} ${c.version}`;
  const used = `used by ${c.releases.join(", ")}`;
  if (c.passwordMissing)
    return skipped(
      "charts.pull",
      c.stack,
      obj,
      `the pull needs the secret nvcf:chartRegistryPassword, which was not decrypted for the checks`,
      "run the checks through `nvcf preflight`, which reads the stack's secrets",
    );
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-pull-"));
  const common = [
    "--registry-config",
    path.join(tmp, "registry.json"),
    "--repository-config",
    path.join(tmp, "repositories.yaml"),
    "--repository-cache",
    path.join(tmp, "cache"),
  ];
  try {
    const creds = c.username !== undefined && c.password !== undefined;
    let res: { code: number; out: string };
    if (c.resolved.kind === "oci") {
      if (creds) {
        const host = c.resolved.chart.slice("oci://".length).split("/")[0];
        const login = await run(
          helm,
          [
            "registry",
            "login",
            host,
            "--username",
            c.username as string,
            "--password-stdin",
            ...common.slice(0, 2),
          ],
          c.password,
        );
        if (login.code !== 0) return failed(c, obj, used, login.out);
      }
      res = await run(helm, [
        "pull",
        c.resolved.chart,
        "--version",
        c.version,
        "--destination",
        tmp,
        ...common,
      ]);
    } else {
      if (creds) {
        const add = await run(
          helm,
          [
            "repo",
            "add",
            "nvcf-preflight",
            c.resolved.repo as string,
            "--username",
            c.username as string,
            "--password-stdin",
            ...common.slice(2),
          ],
          c.password,
        );
        if (add.code !== 0) return failed(c, obj, used, add.out);
        res = await run(helm, [
          "pull",
          `nvcf-preflight/${c.chart}`,
          "--version",
          c.version,
          "--destination",
          tmp,
          ...common,
        ]);
      } else
        res = await run(helm, [
          "pull",
          c.chart,
          "--repo",
          c.resolved.repo as string,
          "--version",
          c.version,
          "--destination",
          tmp,
          ...common,
        ]);
    }
    if (res.code !== 0) return failed(c, obj, used, res.out);
    return pass(
      "charts.pull",
      c.stack,
      obj,
      `pulled from ${where(c)}${creds ? ` as ${c.username}` : ""}; ${cacheKeys(c, tmp)}`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Records the keys a pulled chart declares in the key cache (config/chartKeys.ts), which the program reads to
 * check `nvcf:releaseValues` of charts from OCI or HTTPS locations. Output: the words for the finding.
 */
function cacheKeys(c: ChartToCheck, dir: string): string {
  const tgz = fs.readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tgz) return "no chart archive to read its keys from";
  try {
    writeChartKeysCache(c.chart, c.version, cacheLocation(c.resolved), fs.readFileSync(path.join(dir, tgz)));
    return `its keys cached in ${chartKeysCacheDir()} for the nvcf:releaseValues check`;
  } catch (e) {
    return `its keys not cached (${(e as Error).message}): nvcf:releaseValues of its releases is checked at the top level only`;
  }
}

function failed(c: ChartToCheck, obj: string, used: string, message: string): Finding {
  const line =
    message
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .find((l) => /error|fail|denied|not found/i.test(l)) ?? message.trim().split("\n")[0];
  const cause = pullCause(message);
  const registry =
    c.resolved.kind === "oci"
      ? c.resolved.chart.slice("oci://".length).split("/")[0]
      : (c.resolved.repo ?? "");
  return fail(
    "charts.pull",
    c.stack,
    obj,
    `pulling ${where(c)} from ${registry} failed: ${line.replace(/[\r\n]+/g, " ").slice(0, 300)}`,
    `chart ${c.chart} ${c.version} pullable${c.resolved.credentials ? " with the configured credentials" : ""}, ${used}`,
    `likely cause: ${cause}; fix nvcf:${c.resolved.decidedBy} or the credentials, or mirror the chart (docs/chart-sources.md)`,
  );
}

/**
 * Checks every chart of the stacks (local directories read directly, remote charts pulled in parallel, at most
 * four at a time). `helm`: the Helm CLI (default `$NVCF_HELM`, else `helm`).
 */
export async function checkCharts(
  stacks: readonly CheckedStack[],
  projectDir: string,
  helm?: string,
): Promise<Finding[]> {
  const list = chartsToCheck(stacks, projectDir);
  const bin = helm ?? process.env["NVCF_HELM"] ?? "helm";
  return mapBounded(list, 4, async (c) =>
    c.resolved.kind === "local" ? checkLocalChart(c, projectDir) : pullChart(c, bin),
  );
}
