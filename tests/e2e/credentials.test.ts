/**
 * End to end, the image-credential preflight check (cli/preflight/images.ts) as a user meets it: `npx nvcf
 * preflight --env dev` in a private copy of the project, against the local kwok clusters (scripts/cluster.sh
 * up), with the dev control plane's `nvcf:images.registry` pointed at a registry stand-in this test starts (a
 * real HTTP server speaking the registry API v2 token protocol, tests/unit/standins/registryStandIn.ts). With a wrong
 * `nvcf:registryKey` the command prints the finding line and exits EXIT.preflight; with the right one the check
 * passes and the command exits 0. No key appears in anything the command printed.
 */
import { spawn } from "node:child_process";
import { EXIT } from "../../cli/types";
import { type StandIn, startRegistry } from "../unit/standins/registryStandIn";
import { type E2eProject, e2eProject, resetLocalClusters } from "./project";

/** The dev stacks' registry key in plain text (the ciphertext in Pulumi.dev.yaml, dev passphrase). */
const REGISTRY_KEY = "local-registry-key-for-stand-in-registry";
const WRONG_KEY = "not-the-registry-key-3b7d";

let p: E2eProject;
let registry: StandIn;

beforeAll(async () => {
  // Leftovers of an earlier suite that failed before its teardown would fail other preflight checks.
  resetLocalClusters(["dev", "gpu-a", "gpu-b"]);
  registry = await startRegistry({
    users: { robot: REGISTRY_KEY },
    repos: {
      "nvcf/mirror/alpine-k8s": { tags: ["1.36.1"], readers: ["robot"] },
      "nvcf/mirror/nvca-operator": { tags: ["3.2.7"], readers: ["robot"] },
    },
  });
  p = e2eProject("nvcf-e2e-credentials");
  delete p.env["NVCF_POLICY_PACKS"];
  // The backend must know the stack for the command to decrypt its secrets.
  p.run("pulumi", ["stack", "init", "dev", "--non-interactive"]);
  // One engine call for both edits: the registry points at the stand-in, the key is a wrong one.
  p.pulumi("dev", [
    "config",
    "set-all",
    "--path",
    "--plaintext",
    `nvcf:images.registry=${registry.host}`,
    "--secret",
    `nvcf:registryKey=${WRONG_KEY}`,
  ]);
});

afterAll(async () => {
  await registry?.close();
  p?.remove();
});

/**
 * `npx nvcf <args>` in the copy (stdout and stderr pipes, stdin closed), asynchronous: the stand-in registry
 * answers from this process's event loop, which a synchronous spawn would block.
 */
const printed: string[] = [];
function nvcf(...args: string[]): Promise<{ code: number | null; out: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["nvcf", ...args], {
      cwd: p.work,
      env: p.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      printed.push(out, err);
      resolve({ code, out: out.split("\n").filter(Boolean) });
    });
  });
}

test("a wrong nvcf:registryKey: the finding names the registry, the key and the fix; exit EXIT.preflight", async () => {
  const r = await nvcf("preflight", "--env", "dev");
  const h = registry.host;
  expect(r.out.filter((l) => /^(FAIL|WARN)/.test(l))).toEqual([
    `FAIL dev: image registry ${h} (images.pull): found the token service http://${h}/token answered 401 unauthorized for user robot (UNAUTHORIZED: authentication required); ` +
      `needed a login to ${h} as robot with nvcf:registryKey (stack dev) that may pull ${h}/nvcf/mirror/alpine-k8s, used by dev: pull secret nvcr-pull-secret, dev: worker sidecar pulls, dev-gpu-a: pull secret nvcr-pull-secret, dev-gpu-b: pull secret nvcr-pull-secret; ` +
      `fix: likely cause: the registry refused the user robot (nvcf:pullSecret.username of stack dev) with the key in nvcf:registryKey (stack dev): a wrong, expired or revoked key, or the wrong user (NGC wants the literal $oauthtoken with an NGC API key); ` +
      `fix: pulumi config set --secret nvcf:registryKey <key> -s dev, or pulumi config set --path nvcf:pullSecret.username <user> -s dev`,
  ]);
  expect(r.out[r.out.length - 1]).toMatch(/^preflight: (\d+) checks, \d+ passed, 1 failed, 0 warnings$/);
  expect(r.code).toBe(EXIT.preflight);
  // The login really reached the stand-in, with basic auth only to its token service.
  expect(
    registry.requests.filter((q) => q.auth?.startsWith("basic")).map((q) => q.path.split("?")[0]),
  ).toEqual(["/token"]);
});

test("the right nvcf:registryKey: the check passes (pinned manifest found) and preflight exits 0", async () => {
  p.pulumi("dev", ["config", "set", "--secret", "nvcf:registryKey", REGISTRY_KEY]);
  const r = await nvcf("preflight", "--env", "dev", "--verbose");
  const line = r.out.find((l) => l.includes("(images.pull)"));
  expect(line).toMatch(
    new RegExp(
      `^ok {3}dev: image registry ${registry.host.replace(/\./g, "\\.")} \\(images\\.pull\\): logged in with a token for user robot from ${registry.host.replace(/\./g, "\\.")} and found the manifest of .*/nvcf/mirror/alpine-k8s:1\\.36\\.1 \\(sha256:`,
    ),
  );
  expect(r.out[r.out.length - 1]).toMatch(/^preflight: (\d+) checks, \1 passed, 0 failed, 0 warnings$/);
  expect(r.code).toBe(EXIT.ok);
});

test("no key in anything the command printed", () => {
  expect(printed.length).toBe(4);
  const all = printed.join("\n");
  for (const s of [REGISTRY_KEY, WRONG_KEY, Buffer.from(`robot:${WRONG_KEY}`).toString("base64")])
    expect(all).not.toContain(s);
});
