/**
 * engine/loader.ts: the source-map decoder on known mappings, the switches, and a real run of the loader under
 * ts-node (as Pulumi's run script starts it) that loads a fixture through the transpile cache and reports the
 * fixture's error at its TypeScript line; and that the SDK's Arborist require is deferred until first use and still
 * works then.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  SDK_TRACE_PREFIXES,
  decodeMappings,
  installFastLoader,
  quietSdkTraces,
} from "../../../engine/loader";

const ROOT = path.resolve(__dirname, "../../..");

describe("fast loader", () => {
  it("decodes Base64 VLQ mappings line by line", () => {
    // AAAA: column 0 -> line 0 col 0; AACA: next line, col 0 -> line 1; IAAI: col 4 -> col 4 of line 1;
    // AAEA: source line +2; the source column carries over from the previous segment (4), as the format says.
    expect(decodeMappings("AAAA;AACA,IAAI;;AAEA")).toEqual([
      [[0, 0, 0]],
      [
        [0, 1, 0],
        [4, 1, 4],
      ],
      [],
      [[0, 3, 4]],
    ]);
    // Negative deltas: gAAAA is column 16; then DAAC: column 16-1=15 with source column +1.
    expect(decodeMappings("gBAAA,DAAC")).toEqual([
      [
        [16, 0, 0],
        [15, 0, 1],
      ],
    ]);
  });

  it("stays off outside Pulumi's run script and when switched off", () => {
    expect(installFastLoader({})).toBe(false);
    expect(installFastLoader({ PULUMI_NODEJS_TYPESCRIPT: "true", NVCF_FAST_LOADER: "0" })).toBe(false);
  });

  it("loads project modules through the cache and reports errors at their TypeScript lines", () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-loader-"));
    const script = `
      const { installFastLoader } = require("./engine/loader");
      if (!installFastLoader()) throw new Error("loader not installed");
      try { require("./tests/unit/fixtures/loader-throw").check({ value: 1 }); }
      catch (e) { console.log(e.stack.split("\\n")[1]); }`;
    const run = () =>
      spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, PULUMI_NODEJS_TYPESCRIPT: "true", NVCF_FAST_LOADER_CACHE: cache },
      });
    const first = run();
    expect(first.stderr).toBe("");
    expect(first.stdout.trim()).toMatch(
      /at (Object\.)?check \(.*tests\/unit\/fixtures\/loader-throw\.ts:15:\d+\)$/,
    );
    const cached = fs.readdirSync(cache).filter((f) => f.endsWith(".js"));
    expect(cached.length).toBeGreaterThan(0);
    // Second run: from the cache, same position.
    const second = run();
    expect(second.stdout.trim()).toBe(first.stdout.trim());
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it("defers the SDK's Arborist until first use, which then loads and works", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-defer-"));
    fs.writeFileSync(path.join(dir, "package.json"), '{"name":"defer-check","version":"1.0.0"}');
    // Loads @pulumi/pulumi as the program does, then asks the SDK for code paths (its one use of Arborist) in an
    // empty package.
    const script = `
      const { installFastLoader } = require("./engine/loader");
      if (!installFastLoader()) throw new Error("loader not installed");
      const loaded = () => Object.keys(require.cache).some((k) => k.includes("/@npmcli/arborist/"));
      const pulumi = require("@pulumi/pulumi");
      const before = loaded();
      process.chdir(process.env.DEFER_DIR);
      pulumi.runtime.computeCodePaths({}).then((paths) => {
        console.log(JSON.stringify({ before, after: loaded(), paths: paths.size }));
      }, (e) => { console.log(JSON.stringify({ error: String(e) })); });`;
    const r = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PULUMI_NODEJS_TYPESCRIPT: "true", DEFER_DIR: dir },
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout.trim())).toEqual({ before: false, after: true, paths: 0 });
  });

  it("takes no stack trace of the SDK's tracked promises unless PULUMI_DEBUG_PROMISE_LEAKS asks for one", () => {
    // The SDK's own debuggablePromise, as it runs for every property of every resource; and an ordinary error.
    const script = `
      const { installFastLoader } = require("./engine/loader");
      if (!installFastLoader()) throw new Error("loader not installed");
      const d = require("@pulumi/pulumi/runtime/debuggable");
      const p = Promise.resolve(1);
      const tracked = d.debuggablePromise(p, "resolveURN(x)");
      let thrown;
      try { require("./tests/unit/fixtures/loader-throw").check({ value: 1 }); } catch (e) { thrown = e.stack; }
      tracked.then((v) => console.log(JSON.stringify({
        promise: p._debugStackTrace.split("\\n"), ctx: p._debugCtx, value: v, limit: Error.stackTraceLimit,
        thrown: thrown.split("\\n")[1],
      })));`;
    const run = (leaks: string | undefined) => {
      const env: NodeJS.ProcessEnv = { ...process.env, PULUMI_NODEJS_TYPESCRIPT: "true" };
      delete env["PULUMI_DEBUG_PROMISE_LEAKS"];
      if (leaks !== undefined) env["PULUMI_DEBUG_PROMISE_LEAKS"] = leaks;
      const r = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
        cwd: ROOT,
        encoding: "utf8",
        env,
      });
      expect(r.stderr).toBe("");
      return JSON.parse(r.stdout.trim()) as {
        promise: string[];
        ctx: string;
        value: number;
        limit: number;
        thrown: string;
      };
    };
    const quiet = run(undefined);
    // No frame captured; the promise is still tracked and resolves; the limit is back for everything else.
    expect(quiet.promise).toEqual(["Error"]);
    expect([quiet.ctx, quiet.value, quiet.limit]).toEqual(["resolveURN(x)", 1, 10]);
    expect(quiet.thrown).toMatch(/at (Object\.)?check \(.*tests\/unit\/fixtures\/loader-throw\.ts:15:\d+\)$/);
    const debug = run("1");
    expect(debug.promise[0]).toBe("Error");
    expect(debug.promise[1]).toMatch(
      /at (Object\.)?debuggablePromise \(.*@pulumi\/pulumi\/runtime\/debuggable\.js:\d+:\d+\)$/,
    );
    expect(debug.promise.length).toBeGreaterThan(2);
    expect(debug.thrown).toBe(quiet.thrown);
  });

  it("names the SDK function it quiets where the installed SDK defines it and takes its trace", () => {
    const src = fs.readFileSync(
      path.join(ROOT, "node_modules", "@pulumi", "pulumi", "runtime", "debuggable.js"),
      "utf8",
    );
    const body = src.slice(
      src.indexOf("function debuggablePromise("),
      src.indexOf("exports.debuggablePromise ="),
    );
    expect(body).toContain("_debugStackTrace");
    expect(body).toContain("new Error().stack");
    expect(src).toContain("exports.debuggablePromise = debuggablePromise;");
  });

  it("keeps the SDK's per-resource traces from the engine and passes every other debug message on", async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const log = require("@pulumi/pulumi/log") as { debug: (msg: string) => Promise<void> };
    const real = log.debug;
    const sent: string[] = [];
    // What reaches the engine: the SDK's own debug function, recording instead of calling an engine.
    log.debug = (msg: string) => {
      sent.push(msg);
      return Promise.resolve();
    };
    try {
      expect(quietSdkTraces({ NVCF_SDK_TRACES: "1" })).toBe(false);
      expect(quietSdkTraces({})).toBe(true);
      expect(quietSdkTraces({})).toBe(true); // a second call does not wrap again
      await log.debug(
        "Registering resource: t=kubernetes:core/v1:Namespace, name=nvcf-ns, custom=true, remote=false",
      );
      await log.debug("RegisterResource RPC prepared: t=kubernetes:core/v1:Namespace, name=nvcf-ns");
      await log.debug(
        "RegisterResource RPC finished: resource:nvcf-ns[kubernetes:core/v1:Namespace]; err: null",
      );
      await log.debug(
        "ReadResource RPC finished: resource:control-plane[pulumi:pulumi:StackReference]; err: null",
      );
      await log.debug("stack outputs not registered again: the engine is gone");
      await log.debug("Found typescript version 5.9.3");
      expect(sent).toEqual([
        "stack outputs not registered again: the engine is gone",
        "Found typescript version 5.9.3",
      ]);
    } finally {
      log.debug = real;
    }
  });

  it("names trace prefixes the installed SDK really logs with", () => {
    const runtime = path.join(ROOT, "node_modules", "@pulumi", "pulumi", "runtime");
    const logged = fs
      .readdirSync(runtime)
      .filter((f) => f.endsWith(".js"))
      .flatMap((f) => [...fs.readFileSync(path.join(runtime, f), "utf8").matchAll(/log\.debug\(`([^`$]*)/g)])
      .map((m) => m[1]);
    for (const prefix of SDK_TRACE_PREFIXES)
      expect([prefix, logged.some((l) => l.startsWith(prefix))]).toEqual([prefix, true]);
  });
});
