/**
 * Shared set-up of the end-to-end suites: each runs in a private copy of the project with its own file state
 * backend, so config edits and stacks never touch the checkout, and all of them run commands the same way.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The project's root directory (where Pulumi.yaml is). */
export const ROOT = path.resolve(__dirname, "../..");

/** The directory of the local kwok clusters, their kubeconfig and state (scripts/cluster.sh, `NVCF_LOCAL_DIR`). */
export const LOCAL_DIR =
  process.env["NVCF_LOCAL_DIR"] ?? process.env["NVCF_CACHE"] ?? path.join(os.homedir(), ".cache/nvcf-pulumi");

/** The kubeconfig scripts/cluster.sh writes for the local clusters (contexts `kwok-nvcf-<cluster>`). */
export const LOCAL_KUBECONFIG = path.join(LOCAL_DIR, "clusters/kubeconfig");

/**
 * The stand-in NVCF API of the local clusters (accounts, registry credentials): scripts/cluster.sh's account-bootstrap
 * stand-in writes the account there, and the stand-in nvcf-cli finds it through `NVCF_CLI_API_DIR`.
 */
export const LOCAL_API_DIR = path.join(LOCAL_DIR, "nvcf-api");

/** The passphrase of the embedded default's stack files (their secrets decrypt with it). */
export const PASSPHRASE = "nvcf-dev-local-passphrase";

/**
 * Copies the project into `work` (everything but .git, node_modules, local state and coverage) and links
 * node_modules read-only from the checkout. Input: an existing empty directory. Throws on I/O errors.
 */
export function copyProject(work: string): void {
  for (const entry of fs.readdirSync(ROOT)) {
    if ([".git", "node_modules", ".pulumi-state", "coverage"].includes(entry)) continue;
    fs.cpSync(path.join(ROOT, entry), path.join(work, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(work, "node_modules"));
}

/**
 * `test` for a case of the extended target (`bash scripts/test.sh extended`, docs/testing.md "Extended tests"),
 * `test.skip` in the default run: a case whose time would take a cold CI run over its limit, kept in the suite
 * whose install it shares. scripts/test-extended.sh sets `NVCF_E2E_EXTENDED=1` and selects these cases by name.
 */
export const extendedTest: typeof test = process.env["NVCF_E2E_EXTENDED"] === "1" ? test : test.skip;

/** How one command of a suite runs. */
export interface RunOptions {
  /** Return a non-zero exit instead of throwing. */
  allowFail?: boolean;
  /** Text for the command's standard input (none: standard input is empty). */
  input?: string;
  /** Working directory (default: the project copy). */
  cwd?: string;
  /** Environment entries for this command only, over the suite's. */
  env?: Record<string, string>;
}

/** A private copy of the project for one suite, with the commands that run in it. */
export interface E2eProject {
  /** The copy's root directory (a fresh temporary directory). */
  work: string;
  /** The copy's file state backend directory (`PULUMI_BACKEND_URL=file://<state>`). */
  state: string;
  /** The stand-in nvcf-cli's registration store of this copy (`NVCF_CLI_ICMS_DIR`). */
  icms: string;
  /** The environment every command gets (the caller's, plus the backend, passphrase, kubeconfig…). */
  env: NodeJS.ProcessEnv;
  /** Every command and what it printed, in order: searched for leaked secrets by the suites. */
  transcript: string[];
  /** Runs `cmd args` in the copy. Throws, with the ends of both streams, on a non-zero exit unless allowed. */
  run(cmd: string, args: string[], opts?: RunOptions): SpawnSyncReturns<string>;
  /** `pulumi <args> -s <stack> --non-interactive` (through `pulumiArgs` when the suite set one). */
  pulumi(stack: string, args: string[], opts?: RunOptions): SpawnSyncReturns<string>;
  /** `kubectl --context kwok-nvcf-<cluster> <args>`; returns standard output, throws on failure. */
  kubectl(cluster: string, ...args: string[]): string;
  /** Deletes the copy. */
  remove(): void;
}

/**
 * Makes a private copy of the project under the system temporary directory (`<prefix>` names it) with an
 * empty state backend and registration store. Options: `kubeconfig` (default: the local clusters'), extra
 * `env` entries, and `pulumiArgs` to rewrite the arguments of every `pulumi` call (e.g. add a policy pack).
 * Throws on I/O errors.
 */
export function e2eProject(
  prefix: string,
  options: {
    kubeconfig?: string;
    env?: Record<string, string>;
    pulumiArgs?: (args: string[]) => string[];
  } = {},
): E2eProject {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const state = path.join(work, ".state");
  const icms = path.join(work, ".icms");
  copyProject(work);
  fs.mkdirSync(state, { recursive: true });
  fs.mkdirSync(icms, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    KUBECONFIG: options.kubeconfig ?? LOCAL_KUBECONFIG,
    NVCF_CLI_ICMS_DIR: icms,
    NVCF_CLI_API_DIR: LOCAL_API_DIR,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    ...options.env,
  };
  const transcript: string[] = [];
  const run = (cmd: string, args: string[], opts: RunOptions = {}): SpawnSyncReturns<string> => {
    const r = spawnSync(cmd, args, {
      cwd: opts.cwd ?? work,
      env: opts.env ? { ...env, ...opts.env } : env,
      encoding: "utf8",
      input: opts.input ?? "",
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.error) throw r.error;
    transcript.push(`$ ${path.basename(cmd)} ${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
    if (!opts.allowFail && r.status !== 0) {
      throw new Error(
        `${cmd} ${args.join(" ")} exited ${r.status}\n${r.stdout.slice(-6000)}\n${r.stderr.slice(-6000)}`,
      );
    }
    return r;
  };
  const rewrite = options.pulumiArgs ?? ((a: string[]) => a);
  return {
    work,
    state,
    icms,
    env,
    transcript,
    run,
    pulumi: (stack, args, opts) => run("pulumi", [...rewrite(args), "-s", stack, "--non-interactive"], opts),
    kubectl: (cluster, ...args) => run("kubectl", ["--context", `kwok-nvcf-${cluster}`, ...args]).stdout,
    remove: () => fs.rmSync(work, { recursive: true, force: true }),
  };
}

/** The label the program puts on every namespace it creates (components/namespaces.ts). */
const PROGRAM_NAMESPACES = "app.kubernetes.io/part-of=nvcf";

/**
 * Start-of-suite clean-up of the local kwok clusters (`kwok-nvcf-<cluster>` contexts of the local kubeconfig
 * only): deletes the namespaces the program creates (its label, `PROGRAM_NAMESPACES`) that an earlier suite
 * which failed before its teardown left, and with them their Helm records and objects (e.g. pull Secrets or
 * OpenBao's unseal hook Secret), then waits until they are gone, so one failing suite cannot make the next one
 * fail. The clusters' own prerequisites (scripts/cluster.sh: the Gateway's namespaces) stay. Returns what it
 * deleted, `<cluster>/<namespace>`. Throws when kubectl fails or a namespace is still there after
 * `timeoutSeconds`.
 */
export function resetLocalClusters(clusters: string[], timeoutSeconds = 180): string[] {
  const env = { ...process.env, KUBECONFIG: LOCAL_KUBECONFIG };
  const kubectl = (cluster: string, ...args: string[]) => {
    const r = spawnSync("kubectl", ["--context", `kwok-nvcf-${cluster}`, ...args], { env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")} on ${cluster}: ${r.stderr.trim()}`);
    return r.stdout;
  };
  const deleted: string[] = [];
  for (const cluster of clusters) {
    const names = kubectl(cluster, "get", "namespaces", "-l", PROGRAM_NAMESPACES, "-o", "name")
      .split("\n")
      .map((l) => l.trim().replace(/^namespace\//, ""))
      .filter(Boolean);
    if (names.length === 0) continue;
    kubectl(cluster, "delete", "namespace", ...names, "--wait=true", `--timeout=${timeoutSeconds}s`);
    deleted.push(...names.map((n) => `${cluster}/${n}`));
  }
  return deleted;
}

/**
 * The program's error as the CLI's Diagnostics section shows it: the `error: ` line of the stack resource and the
 * lines indented under it, with the engine's indentation removed. Throws when the output holds no error.
 */
export function diagnostics(out: string): string[] {
  const all = out.split("\n");
  const start = all.findIndex((l) => /^ {4}error: /.test(l));
  if (start < 0) throw new Error(`no error in the Diagnostics:\n${out}`);
  const block = [all[start].replace(/^ {4}error: /, "")];
  for (const l of all.slice(start + 1)) {
    if (!l.startsWith("      ")) break;
    block.push(l.slice(4));
  }
  return block;
}
