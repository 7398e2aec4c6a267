/**
 * Plain progress lines (cli/progress.ts) from the engine events of a real `pulumi up` of the dev control plane
 * through the Automation API (tests/unit/fixtures/cli-up-events.json: its resourcePreEvent and
 * resOutputsEvent steps with the metadata the display reads, inputs trimmed to the release name, and the
 * summary event). The clock is the events' own timestamps, so durations are the recorded ones.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { Progress, duration, formatCounts } from "../../../cli/progress";
import { stackChanges } from "../../../cli/verbs/preview";

const events = JSON.parse(
  fs.readFileSync(path.join(__dirname, "../fixtures/cli-up-events.json"), "utf8"),
) as EngineEvent[];

function replay(tty: boolean): string {
  let out = "";
  let now = events[0].timestamp * 1000;
  const p = new Progress("up", ["dev", "dev-gpu-a"], { tty, write: (t) => (out += t), now: () => now });
  p.start("dev");
  for (const e of events) {
    now = e.timestamp * 1000;
    p.event("dev", e);
  }
  const summary = events.find((e) => e.summaryEvent)?.summaryEvent;
  p.finish("dev", true, summary?.resourceChanges);
  p.skip("dev-gpu-a", "example");
  p.close();
  return out;
}

test("one line per release started and finished, with its duration, and the stack's totals", () => {
  const lines = replay(false).split("\n").filter(Boolean);
  const releases = stackChanges("dev", events).releases.map((r) => r.name);
  expect(releases.length).toBeGreaterThan(20);
  for (const r of releases) {
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^\\[ *\\d+s\\] dev +release ${r} installing$`)),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^\\[ *\\d+s\\] dev +release ${r} installed \\(\\d+s\\)$`)),
    );
  }
  // Every release ends after it starts; cassandra waits for nothing, openbao-server for the namespaces and nats.
  const at = (text: string) => lines.findIndex((l) => l.endsWith(text));
  expect(at("release openbao-server installing")).toBeGreaterThan(at("release nats installing"));
  expect(lines[0]).toMatch(/^\[ +0s\] dev +up started$/);
  expect(lines).toContainEqual(expect.stringMatching(/^\[ *\d+s\] dev +up done in \dm\d\ds: 80 created$/));
  expect(lines[lines.length - 1]).toMatch(/^\[ *\d+s\] dev-gpu-a +up skipped: example$/);
  expect(
    lines.filter((l) => !/ (installing|installed \(\d+s\)|started|done in .*|skipped: example)$/.test(l)),
  ).toEqual([]);
});

test("on a terminal the finished lines are the same; the live block is redrawn in place and removed", () => {
  const out = replay(true);
  // Cursor-up + clear-to-end escapes redraw the block; what remains after them are the same lines.
  expect(out).toMatch(/\x1b\[\d+A\x1b\[J/);
  expect(out).toContain("    release cassandra installing ");
  const plain = replay(false)
    .split("\n")
    .filter((l) => !/ installing$/.test(l));
  const finished = out
    .split("\n")
    .map((l) => l.replace(/^.*\x1b\[J/, ""))
    .filter((l) => /^\[ *\d+s\]/.test(l) && !/ installing$/.test(l));
  expect(finished).toEqual(plain.filter(Boolean));
});

test("durations and counts", () => {
  expect(duration(42.4)).toBe("42s");
  expect(duration(185)).toBe("3m05s");
  expect(formatCounts({ create: 3, same: 10, update: 0, delete: 1 })).toBe(
    "3 created, 1 deleted, 10 unchanged",
  );
  expect(formatCounts(undefined)).toBe("");
});
