/**
 * The teardown guard's delete script (components/scripts/teardown-guard.sh, components/teardownGuard.ts
 * `GUARD_SCRIPT`) with a fake `pulumi` on PATH that answers `stack ls --json` and `stack export --stack <s>` from a
 * state given by the test: a stack whose state holds a StackReference to the guarded stack blocks the delete and is
 * named; the guarded stack itself, stacks that reference others and stacks that cannot be exported do not.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GUARD_SCRIPT } from "../../../../components/teardownGuard";

const FQN = "organization/nvcf/dev";

const FAKE_PULUMI = String.raw`#!/usr/bin/env node
const fs = require("fs");
const st = JSON.parse(fs.readFileSync(process.env.FK_STATE, "utf8"));
const a = process.argv.slice(2);
fs.appendFileSync(process.env.FK_LOG, a.join(" ") + "\n");
if (a[0] === "stack" && a[1] === "ls") {
  if (st.lsFails) process.exit(1);
  process.stdout.write(JSON.stringify(Object.keys(st.stacks).map((name) => ({ name }))));
} else if (a[0] === "stack" && a[1] === "export") {
  const s = st.stacks[a[a.indexOf("--stack") + 1]];
  if (s === null) { process.stderr.write("error: could not export\n"); process.exit(1); }
  process.stdout.write(JSON.stringify({ version: 3, deployment: { resources: s } }));
} else process.exit(2);
`;

/** A stack's resources: one StackReference to `name`, in its inputs or only in its outputs. */
const references = (name: string, where: "inputs" | "outputs" = "inputs") => [
  { type: "pulumi:pulumi:Stack" },
  { type: "pulumi:pulumi:StackReference", [where]: { name } },
];

/** Runs the guard with the fake; `stacks` by name: resources, or null for one whose export fails. */
function guard(stacks: Record<string, object[] | null>, opts: { lsFails?: boolean } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "teardown-guard-"));
  try {
    fs.writeFileSync(path.join(dir, "pulumi"), FAKE_PULUMI, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, "state.json"), JSON.stringify({ stacks, ...opts }));
    const r = spawnSync("/bin/bash", ["-c", GUARD_SCRIPT], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: `${dir}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
        FK_STATE: path.join(dir, "state.json"),
        FK_LOG: path.join(dir, "log"),
        NVCF_STACK_FQN: FQN,
        NVCF_STACK_SHORT: "dev",
      },
    });
    const calls = fs.existsSync(path.join(dir, "log"))
      ? fs.readFileSync(path.join(dir, "log"), "utf8").split("\n").filter(Boolean)
      : [];
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, calls };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("no other stack references the control plane: the delete goes on", () => {
  const r = guard({ dev: references(FQN), "prod-gpu-east-1": references("organization/nvcf/prod-eks") });
  expect([r.code, r.stdout, r.stderr]).toEqual([0, `no compute-plane stack references ${FQN}\n`, ""]);
  // The guarded stack itself is not exported.
  expect(r.calls).toEqual(["stack ls --json", "stack export --stack prod-gpu-east-1"]);
});

test("stacks that reference it (in inputs or outputs) block the delete and are named", () => {
  const r = guard({
    dev: [],
    "dev-gpu-a": references(FQN),
    "dev-gpu-b": references(FQN, "outputs"),
    other: [],
  });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe(
    `refusing to destroy control-plane stack ${FQN}: compute-plane stack(s) dev-gpu-a dev-gpu-b still reference it.\n` +
      "Destroy them first (pulumi destroy -s <stack>), then destroy this stack again.\n",
  );
});

test("a stack that cannot be exported, or no stack list at all, blocks nothing", () => {
  expect(guard({ "dev-gpu-a": null }).code).toBe(0);
  const r = guard({ "dev-gpu-a": references(FQN) }, { lsFails: true });
  expect([r.code, r.calls]).toEqual([0, ["stack ls --json"]]);
});
