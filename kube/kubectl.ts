/**
 * The one way this project runs kubectl from TypeScript: every call runs `kubectl` as a child process (no shell,
 * no client library) against one kubeconfig context or file, with a timeout, and parses JSON. The `nvcf`
 * command's checks and Helmfile import read through `Kube`; the program's recovery of interrupted runs
 * (recovery/recover.ts) reads and deletes Helm records through it. A kubeconfig held in memory (a secret
 * config value) is written to a private temporary file for the calls (`kubeconfigFile`).
 *
 * The scripts the command provider runs (the teardown steps, the operator restart, the upgrade steps) reach the
 * cluster the same way in bash, through the one preamble `components/scripts/kubectl.sh` (`--kubeconfig` of a
 * 0600 temporary file, else `--context`; components/scripts.ts `KUBECTL_PREAMBLE`): they run from the script text
 * stored with their resource, also when it is deleted, where no TypeScript of this project runs.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** What one child process did: its exit code (1 when it could not start or was killed), both streams. */
export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Killed because it ran longer than `timeoutMs`. */
  timedOut: boolean;
  /** The command was not found (spawn ENOENT). */
  notFound: boolean;
  /** Why the command could not be started or was stopped (no exit code), e.g. `spawn kubectl ENOENT`. */
  error?: string;
}

/**
 * Runs `cmd args` as a child process (no shell) with a timeout in milliseconds (0: none), optional standard input
 * and an output limit in bytes (default 64 MiB). Never rejects: every failure is in the result. The child gets this
 * module's view of the environment (KUBECONFIG, HELM_*…) explicitly: under a test runner that gives each module
 * its own copy of process.env it would otherwise see the original.
 */
export function execCommand(
  cmd: string,
  args: readonly string[],
  opts: { timeoutMs: number; input?: string; maxBuffer?: number },
): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = execFile(
      cmd,
      args,
      {
        timeout: opts.timeoutMs,
        maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
        encoding: "utf8",
        env: process.env,
      },
      (err, stdout, stderr) => {
        const e = err as { code?: unknown; killed?: boolean; message?: string } | null;
        resolve({
          code: e === null ? 0 : typeof e.code === "number" ? e.code : 1,
          stdout: stdout ?? "",
          stderr: stderr ?? "",
          timedOut: e !== null && e.killed === true,
          notFound: e?.code === "ENOENT",
          ...(e !== null && typeof e.code !== "number" ? { error: e.message } : {}),
        });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** How to reach one cluster: a context of the ambient kubeconfig (KUBECONFIG) or of `kubeconfig` (a file path). */
export interface KubeTarget {
  /** Context name; undefined: the kubeconfig's current context. */
  context?: string;
  /** A kubeconfig file; undefined: kubectl's own resolution (KUBECONFIG, else ~/.kube/config). */
  kubeconfig?: string;
}

/** The result of one kubectl run. */
export interface KubeResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Why kubectl could not be started or was stopped (no exit code). */
  error?: string;
}

/** A kubectl failure other than "not found": names the command (never a credential) and kubectl's message. */
export class KubeError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly result: KubeResult,
  ) {
    super(`kubectl ${args.join(" ")} failed: ${firstLine(result.stderr) || `exit ${result.code}`}`);
  }
}

const firstLine = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "") ?? "";

/** kubectl's message for an object or kind that does not exist. */
const NOT_FOUND = /NotFound|not found|the server doesn't have a resource type|no matches for kind/i;

/** kubectl's messages for failures worth one more try: a timeout or an API server that did not answer. */
const TRANSIENT =
  /timed out after|i\/o timeout|TLS handshake timeout|connection refused|connection reset|unable to return a response|Client\.Timeout|EOF$/im;

/** How `Kube` runs kubectl. */
export interface KubeOptions {
  /** The binary: a name on PATH or a path (default `kubectl`, e.g. from scripts/env.sh). */
  kubectl?: string;
  /** Per call, milliseconds (default 20 s; 0: no limit); a call that runs longer is killed and fails. */
  timeoutMs?: number;
  /** kubectl's `--request-timeout` for each request to the API server (default `15s`). */
  requestTimeout?: string;
  /** The most output a call may print, bytes (default 512 MiB); more fails the call. */
  maxBuffer?: number;
}

/** One cluster as kubectl sees it (`target`), run as `opts` says. */
export class Kube {
  constructor(
    readonly target: KubeTarget,
    readonly opts: KubeOptions = {},
  ) {}

  /** Runs `kubectl <args>` with the target's context and kubeconfig. Never throws: the exit code is returned. */
  run(args: readonly string[], input?: string): Promise<KubeResult> {
    const full = [
      ...(this.target.kubeconfig ? ["--kubeconfig", this.target.kubeconfig] : []),
      ...(this.target.context ? ["--context", this.target.context] : []),
      `--request-timeout=${this.opts.requestTimeout ?? "15s"}`,
      ...args,
    ];
    const timeoutMs = this.opts.timeoutMs ?? 20000;
    return execCommand(this.opts.kubectl ?? "kubectl", full, {
      timeoutMs,
      input,
      maxBuffer: this.opts.maxBuffer ?? 512 * 1024 * 1024,
    }).then((r) => ({
      code: r.code,
      stdout: r.stdout,
      stderr: r.timedOut ? `timed out after ${timeoutMs} ms\n${r.stderr}` : r.stderr,
      ...(r.error !== undefined ? { error: r.error } : {}),
    }));
  }

  /**
   * Runs a read and parses its JSON output, trying once more after a transient failure (the call timed out,
   * the API server did not answer, or kubectl exited 0 without printing a whole JSON document, as seen on a
   * machine under heavy load). Returns `undefined` for "not found" when `notFoundOk`; throws `KubeError` for
   * any other failure, or when the second try fails too.
   */
  private async read<T>(
    args: readonly string[],
    output: readonly string[],
    notFoundOk: boolean,
  ): Promise<T | undefined> {
    let last: KubeResult = { code: 1, stdout: "", stderr: "" };
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await this.run([...args, ...output]);
      if (r.code === 0) {
        try {
          return JSON.parse(r.stdout) as T;
        } catch {
          last = { ...r, code: 1, stderr: `kubectl exited 0 but printed no JSON document\n${r.stderr}` };
          continue;
        }
      }
      if (notFoundOk && NOT_FOUND.test(r.stderr)) return undefined;
      last = r;
      if (!TRANSIENT.test(r.stderr)) break;
    }
    throw new KubeError(args, last);
  }

  /** `kubectl <args> -o json` parsed. Throws `KubeError` on any failure (after one retry of a transient one). */
  async json<T = unknown>(args: readonly string[]): Promise<T> {
    return (await this.read<T>(args, ["-o", "json"], false)) as T;
  }

  /** Like `json`, but `undefined` when the object or the kind does not exist. */
  async maybe<T = unknown>(args: readonly string[]): Promise<T | undefined> {
    return this.read<T>(args, ["-o", "json"], true);
  }

  /** The `items` of a list (`kubectl get <kind> …`); empty when the kind is not served by this cluster. */
  async items<T = KubeObject>(args: readonly string[]): Promise<T[]> {
    const list = await this.maybe<{ items?: T[] }>(["get", ...args]);
    return list?.items ?? [];
  }

  /** `kubectl get --raw <path>` parsed as JSON; `undefined` when the path is not served (404). */
  async raw<T = unknown>(p: string): Promise<T | undefined> {
    return this.read<T>(["get", "--raw", p], [], true);
  }
}

/** The fields of any Kubernetes object the checks read. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    ownerReferences?: { kind: string; name: string }[];
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: any;
}

/**
 * Writes a kubeconfig held in memory (a decrypted secret config value) to a private temporary file (mode 0600)
 * and returns its path and a `remove()`; the caller removes it when the checks are done.
 */
export function kubeconfigFile(text: string): { file: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-kubeconfig-"));
  const file = path.join(dir, "config");
  fs.writeFileSync(file, text, { mode: 0o600 });
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The `status` of a condition type (`True`/`False`/`Unknown`), with its reason and message; undefined when absent. */
export function condition(
  o: { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } },
  type: string,
): { status: string; reason?: string; message?: string } | undefined {
  return o.status?.conditions?.find((c) => c.type === type);
}
