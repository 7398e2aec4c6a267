/**
 * The shipped GitHub Actions workflows (.github/workflows/preview.yml, drift.yml): actionlint (scripts/actionlint.sh,
 * passed as NVCF_ACTIONLINT by scripts/test.sh) finds nothing in any workflow, the preview workflow has the shape
 * docs/policy-and-ci.md describes and the drift workflow the shape docs/drift.md describes. Fails, never skips, without actionlint.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";

const ROOT = path.resolve(__dirname, "../../..");
const WORKFLOWS = path.join(ROOT, ".github/workflows");
const FILE = path.join(WORKFLOWS, "preview.yml");
/** The script the preview step runs (the end-to-end suite runs it on the local clusters). */
const PREVIEW_SCRIPT = fs.readFileSync(path.join(ROOT, "scripts/preview-environment.sh"), "utf8");

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const wf = yaml.load(fs.readFileSync(FILE, "utf8")) as Obj;
const steps = (job: string): Obj[] => wf["jobs"][job]["steps"];
const runs = (job: string): string =>
  steps(job)
    .map((s) => String(s["run"] ?? ""))
    .join("\n");

test("actionlint finds nothing in .github/workflows/*.yml", () => {
  const bin = process.env["NVCF_ACTIONLINT"];
  if (!bin)
    throw new Error(
      "NVCF_ACTIONLINT is not set: run NVCF_ACTIONLINT=$(bash scripts/actionlint.sh) npx jest …",
    );
  const files = fs.readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));
  expect(files).toContain("preview.yml");
  const r = spawnSync(bin, ["-no-color", ...files.map((f) => path.join(WORKFLOWS, f))], { encoding: "utf8" });
  expect({ status: r.status, findings: r.stdout + r.stderr }).toEqual({ status: 0, findings: "" });
});

test("it runs on pull requests and on pushes to main", () => {
  expect(Object.keys(wf["on"]).sort()).toEqual(["pull_request", "push"]);
  expect(wf["on"]["push"]["branches"]).toEqual(["main"]);
});

test("previews install the real Pulumi CLI the documented way, Node 20 and npm ci", () => {
  for (const job of ["preview", "up"]) {
    const s = steps(job);
    expect(s.find((x) => String(x["uses"]).startsWith("pulumi/actions@"))?.["with"]?.["pulumi-version"]).toBe(
      "${{ env.PULUMI_VERSION }}",
    );
    expect(
      s.find((x) => String(x["uses"]).startsWith("actions/setup-node@"))?.["with"]?.["node-version"],
    ).toBe("${{ env.NODE_VERSION }}");
    expect(s.some((x) => x["run"] === "npm ci")).toBe(true);
  }
  expect(wf["env"]).toEqual({ PULUMI_VERSION: "3.248.0", NODE_VERSION: "20" });
});

test("every preview and update runs with the policy pack; a failed preview fails the check", () => {
  expect(runs("preview")).toContain('bash scripts/preview-environment.sh "$ENVIRONMENT" "$report"');
  expect(PREVIEW_SCRIPT).toMatch(/pulumi preview --stack "\$s" --diff .*--policy-pack policy/);
  expect(PREVIEW_SCRIPT).toContain('exit "$failed"');
  expect(runs("up")).toContain(
    'pulumi up --stack "$ENVIRONMENT" --yes --non-interactive --policy-pack policy',
  );
  expect(runs("up")).toContain('pulumi up --stack "$s" --yes --non-interactive --policy-pack policy');
  const fail = steps("preview").find((x) => x["run"] === "exit 1");
  expect(fail?.["if"]).toBe("steps.preview.outputs.failed != '0'");
});

test("one comment per environment on the pull request, found by its marker and edited in place", () => {
  expect(wf["jobs"]["preview"]["strategy"]["matrix"]["environment"]).toBe(
    "${{ fromJSON(needs.environments.outputs.list) }}",
  );
  expect(wf["jobs"]["preview"]["permissions"]["pull-requests"]).toBe("write");
  expect(PREVIEW_SCRIPT).toContain('echo "<!-- nvcf-preview:$environment -->"');
  const comment = steps("preview").find((x) => String(x["uses"]).startsWith("actions/github-script@"));
  expect(comment?.["with"]?.["script"]).toContain("c.body.startsWith(marker)");
  expect(comment?.["with"]?.["script"]).toContain("github.rest.issues.updateComment");
  expect(comment?.["if"]).toContain("always()");
});

test("updates on main wait for the environment's approval, one environment at a time", () => {
  const up = wf["jobs"]["up"];
  expect(up["if"]).toContain("github.event_name == 'push'");
  expect(up["environment"]).toBe("${{ matrix.environment }}");
  expect(up["strategy"]["max-parallel"]).toBe(1);
  expect(wf["jobs"]["preview"]["environment"]).toBeUndefined();
});

test("credentials come from repository secrets only", () => {
  const text = fs.readFileSync(FILE, "utf8");
  for (const job of ["preview", "up"]) {
    for (const [k, v] of Object.entries(wf["jobs"][job]["env"] as Record<string, string>))
      expect([k, v]).toEqual([k, `\${{ secrets.${k} }}`]);
  }
  expect(text).not.toMatch(/PULUMI_ACCESS_TOKEN:\s*[^$\s]/);
  expect(text).not.toMatch(/pul-[0-9a-f]{20,}/);
});

/** The scheduled drift workflow (.github/workflows/drift.yml); the end-to-end suite runs its drift step. */
const drift = yaml.load(fs.readFileSync(path.join(WORKFLOWS, "drift.yml"), "utf8")) as Obj;

test("drift: scheduled and on demand, every listed environment, with the same pins and secrets as the previews", () => {
  expect(Object.keys(drift["on"]).sort()).toEqual(["schedule", "workflow_dispatch"]);
  expect(drift["on"]["schedule"][0]["cron"]).toMatch(/^\d+ \d+ \* \* \*$/);
  expect(drift["env"]).toEqual(wf["env"]);
  const job = drift["jobs"]["drift"];
  expect(job["strategy"]["matrix"]["environment"]).toBe("${{ fromJSON(needs.environments.outputs.list) }}");
  expect(job["strategy"]["fail-fast"]).toBe(false);
  expect(job["env"]).toEqual(wf["jobs"]["preview"]["env"]);
  expect(drift["permissions"]).toEqual({ contents: "read" });
});

test("drift: the step runs nvcf drift, puts its summary on the run's page and fails the job with its exit code", () => {
  const step = (drift["jobs"]["drift"]["steps"] as Obj[]).find((s) => s["id"] === "drift");
  const run = String(step?.["run"]);
  expect(run).toContain('npx nvcf drift --env "$ENVIRONMENT" > "$RUNNER_TEMP/drift.txt" || code=$?');
  expect(run).toContain('>> "$GITHUB_STEP_SUMMARY"');
  expect(run.trim().split("\n").pop()).toBe('exit "$code"');
  expect(step?.["env"]).toEqual({ ENVIRONMENT: "${{ matrix.environment }}" });
});
