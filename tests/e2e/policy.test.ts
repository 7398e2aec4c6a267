/**
 * End to end: the policy pack (policy/) under the real `pulumi` CLI of the toolchain, against the local kwok
 * clusters (scripts/cluster.sh up), in a private copy of the project with a fresh state backend. Two previews
 * of the control-plane stack dev: as shipped (every policy passes) and with a config that points an image
 * outside the mirror and puts a base64 `user:key` into plain values (both reported as the CLI prints them; a policy
 * config file lowers the credential policy to advisory, the mandatory image policy still fails the preview).
 * The embedded toolchain needs the Node.js policy front on PATH (scripts/policy-analyzer.sh, via scripts/env.sh).
 */
import type { SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { e2eProject } from "./project";

const project = e2eProject("nvcf-e2e-policy");
const { work } = project;
/** `pulumi <args> -s dev`, returning whatever the CLI exited with. */
const pulumi = (...args: string[]) => project.pulumi("dev", args, { allowFail: true });
const ok = (r: SpawnSyncReturns<string>) => {
  if (r.status !== 0)
    throw new Error(`pulumi exited ${r.status}\n${r.stdout.slice(-6000)}\n${r.stderr.slice(-4000)}`);
  return r;
};
/** The CLI's "Policies:" block (up to the next section), one entry per line with the indentation removed. */
const policiesBlock = (out: string) => {
  const m = /\nPolicies:\n([\s\S]*?)\n(?:\S|$)/.exec(out);
  return (m ? m[1] : "")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
};

beforeAll(() => {
  ok(pulumi("stack", "init"));
});

afterAll(() => project.remove());

test("the compliant dev stack passes every policy of the pack", () => {
  const r = ok(pulumi("preview", "--policy-pack", "policy"));
  expect(policiesBlock(r.stdout)).toEqual(["✅ nvcf@v0.1.0 (local: policy)"]);
});

test("an image outside the mirror and a plain-text base64 user:key are reported as the CLI shows them", () => {
  const userKey = Buffer.from("robot:not-a-real-key-but-shaped-like-one").toString("base64");
  ok(pulumi("config", "set", "--path", "nvcf:releaseValues.reval.reval.image.registry", "docker.io"));
  ok(
    pulumi("config", "set", "--path", "nvcf:releaseValues.reval.reval.image.repository", "evil/reval-server"),
  );
  ok(pulumi("config", "set", "--path", "nvcf:releaseValues.reval.reval.image.tag", userKey));
  // The standard policy config file lowers one policy to advisory; the other stays mandatory and fails the preview.
  const levels = path.join(work, "policy-config.json");
  fs.writeFileSync(levels, JSON.stringify({ "no-plaintext-credentials": "advisory" }));
  const r = pulumi("preview", "--policy-pack", "policy", "--policy-pack-config", levels);
  expect(r.status).not.toBe(0);
  const lines = policiesBlock(r.stdout);
  expect(lines[0]).toBe("❌ nvcf@v0.1.0 (local: policy)");
  expect(lines).toContain(
    "- [advisory]  no-plaintext-credentials  (kubernetes:helm.sh/v3:Release: nvcf-reval)",
  );
  expect(lines).toContain(
    `Release nvcf-reval (Helm release "reval") has values.reval.image.tag = <redacted, ${userKey.length} characters> in plain ` +
      'text: it is base64 of "robot:<key>". Fix: remove it from the values (nvcf:releaseValues.reval: ' +
      "reval.image.tag); set the credential with pulumi config set --secret (e.g. nvcf:registryKey) and let the " +
      "program place it as a secret.",
  );
  expect(lines).toContain("- [mandatory]  images-from-mirror  (kubernetes:helm.sh/v3:Release: nvcf-reval)");
  expect(lines).toContain(
    'Release nvcf-reval (Helm release "reval") runs image docker.io/evil/reval-server (values.reval.image), which ' +
      "is not under the image mirror registry.nvcf.test/nvcf/mirror. Fix: copy the image into " +
      "registry.nvcf.test/nvcf/mirror and point reval.image at it (nvcf:releaseValues.reval…), or set " +
      "nvcf:images.thirdParty mirror for the program's third-party images.",
  );
  // Only the two violations; the value itself is never printed by the pack.
  expect(lines.filter((l) => l.startsWith("- ["))).toHaveLength(2);
  expect(policiesBlock(r.stdout).join("\n")).not.toContain(userKey);
});
