/**
 * Start-up cost of the stack program under `pulumi preview`/`up`
 * (docs/performance.md#start-up-of-the-stack-program): a transpile cache for the project's own `.ts` modules, a
 * stack-trace formatter that maps only the project's frames, and the SDK's one heavy unused dependency (npm's
 * Arborist) loaded on first use instead of at start (`DEFERRED_MODULES`).
 *
 * Pulumi's run script registers ts-node (transpile-only, tsconfig.pulumi.json), which transpiles every project
 * module afresh at every run and installs source-map-support, which rewrites every frame of every stack trace the
 * SDK takes (the SDK takes one per resource and per tracked promise). `installFastLoader` replaces both for this
 * process, without changing what runs:
 * - `.ts` modules of the project are transpiled with the same TypeScript and the same compiler options, once per
 *   content, into `node_modules/.cache/nvcf-pulumi/ts/` (key: SHA-256 of TypeScript version, options, path and
 *   source; written atomically, so parallel stacks share it);
 * - stack traces keep TypeScript positions: frames in those modules are mapped through their inline source maps
 *   (decoded on first use), every other frame is printed as V8 prints it;
 * - the requires of `DEFERRED_MODULES` return a stand-in that loads the module when it is first used
 *   (`deferModules`);
 * - the SDK's per-resource debug traces are not sent to the engine (`quietSdkTraces`), and the stack trace it takes
 *   of every promise it tracks is not taken unless `PULUMI_DEBUG_PROMISE_LEAKS` asks for it (`quietPromiseTraces`).
 *
 * Active only inside Pulumi's Node.js run script (`PULUMI_NODEJS_TYPESCRIPT=true`, set by the language host) and
 * the `nvcf` command (cli/nvcf.js, which runs the program inline), unless `NVCF_FAST_LOADER=0`; under Jest or
 * plain ts-node nothing changes. `NVCF_FAST_LOADER_CACHE` names another
 * cache directory. The emit options restate tsconfig.json's (ES2022, CommonJS, esModuleInterop); change both
 * together. Errors in the cache directory (read only, full disk) fall back to transpiling in memory.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/** Minimal view of the TypeScript module this loader uses (the one ts-node loaded). */
interface TypeScriptApi {
  version: string;
  ScriptTarget: { ES2022: number };
  ModuleKind: { CommonJS: number };
  transpileModule(
    input: string,
    opts: { compilerOptions: Record<string, unknown>; fileName: string },
  ): { outputText: string; sourceMapText?: string };
}

/** One decoded source-map line: `[generatedColumn, originalLine, originalColumn]` segments, by column. */
type MapLine = [number, number, number][];

const PROJECT_DIR = path.resolve(__dirname, "..");
const maps = new Map<string, { encoded: string; lines?: MapLine[] }>();

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

/**
 * Decodes the `mappings` of a source map (Source Map Revision 3, Base64 VLQ) into per-line segments of
 * generated column, original line and original column (all 0-based). Segments without a source are skipped.
 * Input: the `mappings` string. Output: one array per generated line. Throws nothing (bad digits read as 0).
 */
export function decodeMappings(mappings: string): MapLine[] {
  const out: MapLine[] = [];
  let srcLine = 0;
  let srcCol = 0;
  for (const line of mappings.split(";")) {
    const segs: MapLine = [];
    let genCol = 0;
    for (const seg of line.split(",")) {
      if (seg === "") continue;
      const f: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const digit = B64_INDEX.get(ch) ?? 0;
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          f.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      genCol += f[0] ?? 0;
      if (f.length >= 4) {
        srcLine += f[2];
        srcCol += f[3];
        segs.push([genCol, srcLine, srcCol]);
      }
    }
    out.push(segs);
  }
  return out;
}

/** Maps a 1-based generated line/column to the 1-based original position, or undefined when unmapped. */
function originalPosition(
  file: string,
  line: number,
  column: number,
): { line: number; column: number } | undefined {
  const m = maps.get(file);
  if (!m) return undefined;
  m.lines ??= decodeMappings(m.encoded);
  const segs = m.lines[line - 1];
  if (!segs || segs.length === 0) return undefined;
  let best = segs[0];
  for (const s of segs) {
    if (s[0] <= column - 1) best = s;
    else break;
  }
  return { line: best[1] + 1, column: best[2] + 1 };
}

/** `Error.prepareStackTrace`: V8's format, with the project's transpiled frames at their TypeScript positions. */
function prepareStackTrace(error: Error, frames: NodeJS.CallSite[]): string {
  let header: string;
  try {
    header = String(error);
  } catch {
    header = "Error";
  }
  let text = header;
  for (const f of frames) {
    let s = String(f);
    const file = f.getFileName();
    if (file !== undefined && file !== null && maps.has(file)) {
      const line = f.getLineNumber();
      const col = f.getColumnNumber();
      const pos = line && col ? originalPosition(file, line, col) : undefined;
      if (pos) s = s.replace(`${file}:${line}:${col}`, `${file}:${pos.line}:${pos.column}`);
    }
    text += `\n    at ${s}`;
  }
  return text;
}

/** Where transpiled modules are kept: `NVCF_FAST_LOADER_CACHE`, else `node_modules/.cache/nvcf-pulumi/ts`. */
let cacheRoot = path.join(PROJECT_DIR, "node_modules", ".cache", "nvcf-pulumi", "ts");
const cacheDir = (): string => cacheRoot;

/** Transpiles one module (or reads it from the cache) and records its source map. Output: JavaScript text. */
function transpile(
  ts: TypeScriptApi,
  options: Record<string, unknown>,
  filename: string,
  source: string,
): string {
  const key = crypto
    .createHash("sha256")
    .update(`${ts.version}\0${JSON.stringify(options)}\0${filename}\0${source}`)
    .digest("hex");
  const cached = path.join(cacheDir(), `${key}.js`);
  let js: string | undefined;
  try {
    js = fs.readFileSync(cached, "utf8");
  } catch {
    js = undefined;
  }
  if (js === undefined) {
    js = ts.transpileModule(source, { compilerOptions: options, fileName: filename }).outputText;
    try {
      fs.mkdirSync(cacheDir(), { recursive: true });
      const tmp = `${cached}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, js);
      fs.renameSync(tmp, cached);
    } catch {
      // An unwritable cache only costs the transpile next time.
    }
  }
  const marker = "//# sourceMappingURL=data:application/json;base64,";
  const at = js.lastIndexOf(marker);
  if (at >= 0) {
    try {
      const map = JSON.parse(Buffer.from(js.slice(at + marker.length).trim(), "base64").toString("utf8")) as {
        mappings: string;
      };
      maps.set(filename, { encoded: map.mappings });
    } catch {
      // A map that does not parse leaves the frames unmapped.
    }
  }
  return js;
}

/**
 * Installs the cached `.ts` loader, the stack-trace formatter and the deferred requires for this process (see the
 * module comment).
 * Input: the environment (for the switches). Output: true when installed. Throws nothing: without TypeScript
 * or outside Pulumi's run script it leaves the process as it is.
 */
export function installFastLoader(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env["PULUMI_NODEJS_TYPESCRIPT"] !== "true" || env["NVCF_FAST_LOADER"] === "0") return false;
  if (env["NVCF_FAST_LOADER_CACHE"]) cacheRoot = env["NVCF_FAST_LOADER_CACHE"];
  // The CommonJS extension hook ts-node itself uses.
  const exts = require.extensions;
  if (!exts[".ts"]) return false;
  let ts: TypeScriptApi;
  try {
    // The TypeScript ts-node already loaded (same resolution, so the same module instance).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ts = require(require.resolve("typescript", { paths: [PROJECT_DIR] })) as TypeScriptApi;
  } catch {
    return false;
  }
  // tsconfig.pulumi.json's emit settings, with inline source maps for the formatter.
  const options: Record<string, unknown> = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    esModuleInterop: true,
    resolveJsonModule: true,
    inlineSourceMap: true,
    sourceMap: false,
  };
  const projectPrefix = PROJECT_DIR + path.sep;
  const nodeModules = path.join(PROJECT_DIR, "node_modules") + path.sep;
  const previous = exts[".ts"];
  exts[".ts"] = (m: NodeJS.Module, filename: string) => {
    if (
      !filename.startsWith(projectPrefix) ||
      filename.startsWith(nodeModules) ||
      filename.endsWith(".d.ts")
    ) {
      previous(m, filename);
      return;
    }
    const js = transpile(ts, options, filename, fs.readFileSync(filename, "utf8"));
    (m as unknown as { _compile(code: string, file: string): void })._compile(js, filename);
  };
  Error.prepareStackTrace = prepareStackTrace;
  deferModules(DEFERRED_MODULES);
  quietSdkTraces(env);
  quietPromiseTraces(env);
  return true;
}

/**
 * The SDK's own per-resource and per-call traces, by how their debug messages start (`@pulumi/pulumi` 3.248,
 * `runtime/resource.js`, `runtime/invoke.js`, `runtime/rpc.js`): three or more for every resource.
 */
export const SDK_TRACE_PREFIXES: readonly string[] = [
  "Registering resource",
  "RegisterResource RPC",
  "RegisterResourceOutputs RPC",
  "Reading resource",
  "ReadResource RPC",
  "Getting resource",
  "getResource Invoke RPC",
  "Invoke RPC",
  "Call RPC",
  "Resource RPC serialization",
];

/**
 * Keeps the SDK's per-resource traces (`SDK_TRACE_PREFIXES`) from being sent to the engine. The SDK sends every
 * debug message as a gRPC call of its own, each waiting for the one before, and the engine turns each into an
 * event that only `pulumi ... --debug` displays: for the control plane's ~85 resources about 300 calls, 3–10 % of
 * a no-op preview's CPU in the program and the CLI together (docs/performance.md#start-up-of-the-stack-program).
 * Every other debug message (the program's own, the SDK's others) still goes to the engine. `NVCF_SDK_TRACES=1`
 * keeps them all, e.g. with `pulumi up --debug`. Input: the environment. Output: true when the traces are dropped.
 * Throws nothing: without the SDK's `log` module at the expected place it changes nothing.
 */
export function quietSdkTraces(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env["NVCF_SDK_TRACES"] === "1") return false;
  let log: { debug: (msg: string, ...rest: unknown[]) => Promise<void> };
  try {
    // The SDK's module instance the run script (or the nvcf command) already loaded.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    log = require(require.resolve("@pulumi/pulumi/log", { paths: [PROJECT_DIR] })) as typeof log;
  } catch {
    return false;
  }
  const debug = log.debug;
  if ((debug as { quiet?: boolean }).quiet) return true;
  const quiet = (msg: string, ...rest: unknown[]) =>
    typeof msg === "string" && SDK_TRACE_PREFIXES.some((p) => msg.startsWith(p))
      ? Promise.resolve()
      : debug(msg, ...rest);
  log.debug = Object.assign(quiet, { quiet: true });
  return true;
}

/** A module the SDK requires at start but this program never uses: loaded on first use instead. */
export interface DeferredModule {
  /** The request as the requiring module writes it. */
  request: string;
  /** Path suffix (with `/`) of the one requiring module whose require is deferred. */
  from: string;
}

/**
 * What `installFastLoader` defers. `@pulumi/pulumi`'s index loads `runtime/closure/codePaths.js` (through the
 * Automation API's exports), which requires npm's Arborist at its top: over 400 modules (pacote, cacache,
 * sigstore, ...) loaded at every run (their cost: docs/performance.md#start-up-of-the-stack-program). Arborist is
 * used only to find a function's package dependencies when a closure is serialized
 * (`pulumi.runtime.serializeFunction`, dynamic providers), which no stack of this project does.
 */
export const DEFERRED_MODULES: readonly DeferredModule[] = [
  { request: "@npmcli/arborist", from: "/@pulumi/pulumi/runtime/closure/codePaths.js" },
];

/**
 * Makes each listed `require` (request `m.request` from a module whose file name ends with `m.from`) return a
 * stand-in that loads the real module on first use: any property read, `in` test or key listing loads it and
 * answers from it. The stand-in says `__esModule: true` without loading, so TypeScript's `__importStar` helper
 * keeps it as it is instead of copying its keys (which would load it at once). Requests from other modules,
 * and every other request, load as usual. Input: the list. Output: none. Throws nothing; a module that fails
 * to load throws its error at first use, where the SDK would otherwise have thrown it at start.
 */
export function deferModules(list: readonly DeferredModule[]): void {
  if (list.length === 0) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Module = require("node:module") as unknown as {
    _load(request: string, parent: NodeJS.Module | undefined, isMain: boolean): unknown;
  };
  const load = Module._load;
  // Every require of the process passes here: the request is compared first, the requiring file only when listed.
  const requests = new Set(list.map((m) => m.request));
  Module._load = function (request, parent, isMain) {
    if (!requests.has(request)) return load.call(this, request, parent, isMain);
    const file = parent?.filename?.split(path.sep).join("/");
    if (file === undefined || !list.some((m) => m.request === request && file.endsWith(m.from)))
      return load.call(this, request, parent, isMain);
    let real: object | undefined;
    const target = (): object => (real ??= load.call(Module, request, parent, isMain) as object);
    return new Proxy(
      {},
      {
        get: (_t, key) => (key === "__esModule" ? true : Reflect.get(target(), key)),
        has: (_t, key) => Reflect.has(target(), key),
        ownKeys: () => Reflect.ownKeys(target()),
        getOwnPropertyDescriptor: (_t, key) => {
          const d = Reflect.getOwnPropertyDescriptor(target(), key);
          return d === undefined ? undefined : { ...d, configurable: true };
        },
      },
    );
  };
}

/** Marks the SDK's `debuggablePromise` once `quietPromiseTraces` has wrapped it. */
const QUIET_PROMISES = Symbol.for("nvcf-pulumi.quietPromiseTraces");

/**
 * Keeps the SDK from taking a stack trace of every promise it tracks. The SDK's `debuggablePromise`
 * (`@pulumi/pulumi` 3.248, `runtime/debuggable.js`) runs once per property of every resource it registers (about
 * 5,000 times in a control-plane run) and keeps `new Error().stack` on the promise, which it reads only to print
 * leaked promises when `PULUMI_DEBUG_PROMISE_LEAKS` is set. Capturing and formatting those traces would take a
 * large share of the program's CPU in a control-plane run, most of it before the first release can be registered
 * (docs/performance.md#the-first-gap-provider-to-first-namespace). The wrapper runs it with `Error.stackTraceLimit`
 * at 0, so V8 captures no frame; everything else it does (its leak bookkeeping included) is unchanged. Input: the
 * environment. Output: true when wrapped (or already). Throws nothing: without the SDK's module at the expected
 * place it changes nothing.
 */
export function quietPromiseTraces(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env["PULUMI_DEBUG_PROMISE_LEAKS"]) return false;
  type Tracker = ((...args: unknown[]) => unknown) & { [QUIET_PROMISES]?: true };
  let debuggable: { debuggablePromise?: Tracker };
  try {
    // The SDK's module instance the run script (or the nvcf command) already loaded.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    debuggable = require(require.resolve("@pulumi/pulumi/runtime/debuggable", { paths: [PROJECT_DIR] })) as {
      debuggablePromise?: Tracker;
    };
  } catch {
    return false;
  }
  const real = debuggable.debuggablePromise;
  if (typeof real !== "function") return false;
  if (real[QUIET_PROMISES]) return true;
  const quiet: Tracker = function (this: unknown, ...args: unknown[]) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return real.apply(this, args);
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
  quiet[QUIET_PROMISES] = true;
  debuggable.debuggablePromise = quiet;
  return true;
}
