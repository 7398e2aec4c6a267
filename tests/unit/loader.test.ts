/**
 * stacks/loader.ts: the source-map decoder on known mappings, the switches, and a real run of the loader under
 * ts-node (as Pulumi's run script starts it) that loads a fixture through the transpile cache and reports the
 * fixture's error at its TypeScript line.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { decodeMappings, installFastLoader } from "../../stacks/loader";

const ROOT = path.resolve(__dirname, "../..");

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
      const { installFastLoader } = require("./stacks/loader");
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
});
