/**
 * End to end, what a user sees for a bad config: the real `pulumi` CLI
 * (scripts/toolchain.sh, on PATH through scripts/env.sh) runs `pulumi preview` and `pulumi up` on a stack with
 * several config problems, in a copy of the project with a fresh local file backend. The test asserts the exact
 * lines printed (the formatted list: one line per problem, plain words, secrets redacted), that nothing else
 * of the program's error is shown (no "unhandled exception", stack trace, object dump or colour codes: the
 * output is a pipe, not a TTY), that preview and up print the same list, and that nothing was created.
 *
 * A second stack names kubeconfig contexts that do not exist: the same formatted list names
 * each key, the contexts the kubeconfig has and the fix, before any resource is registered.
 *
 * Needs no cluster: the program validates its config (kubeconfig contexts included) before it registers a
 * resource, so KUBECONFIG points at the unit tests' kubeconfig fixture, whose API servers are documentation
 * addresses that are never dialled.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { diagnostics, e2eProject } from "./project";

const STACK = "dev-bad";
const CTX_STACK = "dev-bad-context";
const project = e2eProject("nvcf-e2e-errors");
const { work } = project;
project.env["KUBECONFIG"] = path.join(work, "kubeconfig");
/** The Cassandra chart's built-in password (deploy/helm/cassandra/helm/values.yaml), refused everywhere. */
const DEFAULT_PW = "ch@ng3m3";
const PLAIN_KEY = "plain-text-sidecar-key";

/** `pulumi <args> --non-interactive` in the project copy; throws on a non-zero exit unless `allowFail`. */
const pulumi = (args: string[], allowFail = false) =>
  project.run("pulumi", [...args, "--non-interactive"], { allowFail });

/**
 * The config commands a user typed, each with a mistake, on top of the embedded default `Pulumi.dev.yaml`
 * (which validates on its own, tests/unit/config/load.test.ts).
 */
const MISTAKES: string[][] = [
  ["--path", "nvcf:observability.profile", "everything"],
  ["--path", "nvcf:cassandra.replicas", "0"],
  ["--secret", "nvcf:cassandraPassword", DEFAULT_PW],
  ["nvcf:sidecarRegistryKey", PLAIN_KEY],
  ["nvcf:kubernetes.context", "kwok-nvcf-dev"], // without --path
  ["--path", "nvcf:releaseValues.nvcf-ui.nvcfUi.replicaCount", "2"], // nvcf-ui is off in dev
  ["--path", "nvcf:releaseValues.api.image.tag", "1.2.3"], // helm-nvcf-api reads only api.*
  ["--path", "nvcf:releaseValues.cassandra.cassandra.serviceRolePassword", DEFAULT_PW],
];

/** The lines a user must see, in this order (after the engine's own `error: ` and indentation). */
const EXPECTED = [
  `stack "${STACK}" has 9 config problems; nothing was changed:`,
  "  - nvcf:sidecarRegistryKey: expected a secret value, found a plain-text value. Fix: pulumi config set --secret nvcf:sidecarRegistryKey <value>",
  '  - nvcf:observability.profile: expected one of "disabled", "control", "compute", "all", found "everything". Fix: pulumi config set --path nvcf:observability.profile <disabled|control|compute|all>',
  "  - nvcf:cassandra.replicas: expected a whole number of at least 1, found 0. Fix: pulumi config set --path nvcf:cassandra.replicas <a whole number of at least 1>",
  '  - nvcf:kubernetes.context: expected kubernetes as an object whose fields are set with --path, found a key literally named "kubernetes.context" (set without --path). Fix: pulumi config rm nvcf:kubernetes.context, then pulumi config set --path nvcf:kubernetes.context <value>',
  '  - nvcf:releaseValues.api.image: expected keys under api (helm-nvcf-api reads its values only under api:), found a top-level "image", which the chart never reads. Fix: pulumi config rm --path nvcf:releaseValues.api.image, then set it as nvcf:releaseValues.api.api.image',
  '  - nvcf:releaseValues.nvcf-ui: expected an override for a release this stack installs, found "nvcf-ui", which is off in this config (nvcf:addons.nvcfUi.enabled). Fix: pulumi config rm --path nvcf:releaseValues.nvcf-ui, or turn the release on (nvcf:addons.nvcfUi.enabled)',
  "  - nvcf:releaseValues.cassandra.cassandra.serviceRolePassword: expected a Cassandra password other than the chart default, of at least 8 characters, found [secret] (the chart's default password). Fix: pulumi config rm --path nvcf:releaseValues.cassandra.cassandra.serviceRolePassword, and pulumi config set --secret nvcf:cassandraPassword <password> (it feeds both places), or leave both unset to have one generated",
  // The engine masks every secret config value wherever it appears (here the default password itself).
  "  - nvcf:cassandraPassword: expected a password other than the chart default, found [secret] (the chart's default password). Fix: pulumi config rm nvcf:cassandraPassword to have one generated, or set another with --secret",
  "  - nvcf:releaseValues.cassandra.cassandra.serviceRolePassword: expected a secret value (a credential in releaseValues is stored in plain text otherwise), found a plain-text value. Fix: pulumi config set --secret --path nvcf:releaseValues.cassandra.cassandra.serviceRolePassword <value>, or better remove it and use nvcf:cassandraPassword (--secret)",
];

/** Kubeconfig contexts the kubeconfig (the fixture: kwok-nvcf-dev, kwok-nvcf-gpu-a, kwok-nvcf-gpu-b) lacks. */
const CONTEXT_MISTAKES: string[][] = [
  ["--path", "nvcf:kubernetes.context", "kwok-nvcf-prod"],
  ["--path", "nvcf:gpuClusters[1].context", "kwok-nvcf-gpu-z"],
];
const CONTEXTS = '"kwok-nvcf-dev", "kwok-nvcf-gpu-a", "kwok-nvcf-gpu-b"';
const CONTEXT_EXPECTED = [
  `stack "${CTX_STACK}" has 2 config problems; nothing was changed:`,
  `  - nvcf:kubernetes.context: expected a context of the kubeconfig (<work>/kubeconfig): one of ${CONTEXTS}, found "kwok-nvcf-prod", which it does not define. Fix: pulumi config set --path nvcf:kubernetes.context <one of them>, or point KUBECONFIG at the file that defines "kwok-nvcf-prod"`,
  `  - nvcf:gpuClusters[1].context: expected a context of the kubeconfig (<work>/kubeconfig): one of ${CONTEXTS}, found "kwok-nvcf-gpu-z", which it does not define. Fix: pulumi config set --path 'nvcf:gpuClusters[1].context' <one of them>, or point KUBECONFIG at the file that defines "kwok-nvcf-gpu-z"`,
];

/** What must never be in the output: the old object dump, a stack trace, colour codes, a secret. */
function expectClean(out: string) {
  expect(out).not.toContain("\u001b[");
  expect(out).not.toMatch(/unhandled exception|Running program|ConfigError|problems: \[|\{\s*key:/);
  expect(out).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(out).not.toMatch(/Too small|Invalid input|>=1/);
  expect(out).not.toContain(DEFAULT_PW);
  expect(out).not.toContain(PLAIN_KEY);
}

/**
 * Config that cannot mean anything (config/meaning.ts): releaseValues keys the chart (the dev stack's local
 * stand-ins) does not declare, at two depths, one marked as intended; a key in a near miss of the nvcf
 * namespace; two GRPCRoutes given one hostname.
 */
const MEANINGLESS_STACK = "dev-meaningless";
const MEANINGLESS: string[][] = [
  ["--path", "nvcf:releaseValues.cassandra.cassandra.replicaCont", "5"],
  ["--path", "nvcf:releaseValues.cassandra.cassandra.persistence.sise", "20Gi"],
  ["--path", "nvcf:releaseValues.cassandra.cassandra.jvm.extraOpts", "verbose"],
  ["--path", "nvcf:releaseValuesUnchecked[0]", "cassandra.cassandra.jvm.extraOpts"],
  ["nvfc:domain", "nvcf.example.org"],
  ["--path", "nvcf:gateway.routes.nvcfApiGrpc.enabled", "true"],
  ["--path", "nvcf:gateway.routes.nvcfApiGrpc.hostnames[0]", "grpc.nvcf.test"],
  ["--path", "nvcf:gateway.routes.nvctApiGrpc.enabled", "true"],
  ["--path", "nvcf:gateway.routes.nvctApiGrpc.hostnames[0]", "grpc.nvcf.test"],
];
// In the order the stack file holds them (the CLI sorts a map's keys).
const CASSANDRA_KEYS = "its values.schema.json and values.yaml, read from ./tests/charts/helm-nvcf-cassandra";
const MEANINGLESS_EXPECTED = [
  `stack "${MEANINGLESS_STACK}" has 4 config problems; nothing was changed:`,
  `  - nvcf:gateway.routes.nvctApiGrpc.hostnames: expected hostnames no other route of the program uses on Gateway envoy-gateway/nvcf-gateway listener http (both match every gRPC service, so one API's calls may reach the other's backend), found "grpc.nvcf.test" on both GRPCRoute nvcf-api-grpc and GRPCRoute nvct-api-grpc. Fix: give GRPCRoute nvct-api-grpc its own hostname: pulumi config set --path 'nvcf:gateway.routes.nvctApiGrpc.hostnames[0]' <hostname>`,
  `  - nvcf:releaseValues.cassandra.cassandra.persistence.sise: expected a key chart helm-nvcf-cassandra 0.20.1 declares under cassandra.persistence (${CASSANDRA_KEYS}): did you mean size?, found a key the chart does not declare, so it would be ignored. Fix: pulumi config rm --path nvcf:releaseValues.cassandra.cassandra.persistence.sise, then set nvcf:releaseValues.cassandra.cassandra.persistence.size; or, if the chart reads it all the same, pulumi config set --path 'nvcf:releaseValuesUnchecked[1]' cassandra.cassandra.persistence.sise`,
  `  - nvcf:releaseValues.cassandra.cassandra.replicaCont: expected a key chart helm-nvcf-cassandra 0.20.1 declares under cassandra (${CASSANDRA_KEYS}): did you mean replicaCount?, found a key the chart does not declare, so it would be ignored. Fix: pulumi config rm --path nvcf:releaseValues.cassandra.cassandra.replicaCont, then set nvcf:releaseValues.cassandra.cassandra.replicaCount; or, if the chart reads it all the same, pulumi config set --path 'nvcf:releaseValuesUnchecked[2]' cassandra.cassandra.replicaCont`,
  '  - nvfc:domain: expected a key in the nvcf namespace (this program reads nvcf:domain; nothing reads nvfc:domain, so nvcf:domain keeps its default), found a key in namespace "nvfc". Fix: pulumi config rm nvfc:domain, then set the same value as nvcf:domain',
];

beforeAll(() => {
  // The dev stack file keeps its encryption salt, so its secret registry key decrypts with the dev passphrase.
  fs.copyFileSync(path.join(work, "Pulumi.dev.yaml"), path.join(work, `Pulumi.${STACK}.yaml`));
  fs.copyFileSync(path.join(work, "Pulumi.dev.yaml"), path.join(work, `Pulumi.${CTX_STACK}.yaml`));
  fs.copyFileSync(path.join(work, "tests/unit/fixtures/kubeconfig"), path.join(work, "kubeconfig"));
  pulumi(["stack", "init", STACK]);
  for (const args of MISTAKES) pulumi(["config", "set", "-s", STACK, ...args]);
  pulumi(["stack", "init", CTX_STACK]);
  for (const args of CONTEXT_MISTAKES) pulumi(["config", "set", "-s", CTX_STACK, ...args]);
  fs.copyFileSync(path.join(work, "Pulumi.dev.yaml"), path.join(work, `Pulumi.${MEANINGLESS_STACK}.yaml`));
  pulumi(["stack", "init", MEANINGLESS_STACK]);
  for (const args of MEANINGLESS) pulumi(["config", "set", "-s", MEANINGLESS_STACK, ...args]);
}, 180_000);

afterAll(() => project.remove());

let previewOut = "";

test("pulumi preview prints exactly the formatted list of every problem and fails", () => {
  const r = pulumi(["preview", "-s", STACK], true);
  previewOut = r.stdout + r.stderr;
  expect(r.status).not.toBe(0);
  expect(diagnostics(previewOut)).toEqual(EXPECTED);
  expectClean(previewOut);
}, 300_000);

test("pulumi up prints the same list, fails, and creates nothing", () => {
  const r = pulumi(["up", "--yes", "-s", STACK], true);
  const out = r.stdout + r.stderr;
  expect(r.status).not.toBe(0);
  expect(diagnostics(out)).toEqual(EXPECTED);
  if (previewOut) expect(diagnostics(out)).toEqual(diagnostics(previewOut));
  expectClean(out);
  const exported = JSON.parse(pulumi(["stack", "export", "-s", STACK]).stdout) as {
    deployment: { resources?: unknown[] };
  };
  expect(exported.deployment.resources ?? []).toEqual([]);
}, 300_000);

test("unknown kubeconfig contexts are config problems naming the key, the contexts there are and the fix", () => {
  const r = pulumi(["preview", "-s", CTX_STACK], true);
  const out = r.stdout + r.stderr;
  expect(r.status).not.toBe(0);
  expect(diagnostics(out).map((l) => l.split(work).join("<work>"))).toEqual(CONTEXT_EXPECTED);
  expectClean(out);
  const exported = JSON.parse(pulumi(["stack", "export", "-s", CTX_STACK]).stdout) as {
    deployment: { resources?: unknown[] };
  };
  expect(exported.deployment.resources ?? []).toEqual([]);
}, 300_000);

test("a GPU cluster whose control-plane stack was never deployed gets one config problem, nothing else", () => {
  // An initialised but empty control-plane stack: dev-empty exists in the backend with no outputs.
  pulumi(["stack", "init", "dev-empty"]);
  fs.writeFileSync(
    path.join(work, "Pulumi.gpu-of-empty.yaml"),
    fs
      .readFileSync(path.join(work, "Pulumi.dev-gpu-a.yaml"), "utf8")
      .replace("organization/nvcf/dev", "organization/nvcf/dev-empty"),
  );
  pulumi(["stack", "init", "gpu-of-empty"]);
  const r = pulumi(["preview", "-s", "gpu-of-empty"], true);
  const out = r.stdout + r.stderr;
  expect(r.status).not.toBe(0);
  expect(diagnostics(out)).toEqual([
    'stack "gpu-of-empty" has 1 config problem; nothing was changed:',
    "  - nvcf:controlPlaneStack: expected a deployed control-plane stack exporting contractVersion, bundleVersion, imageRegistry, imageRepository, hosts, icmsUrl, revalUrl, natsUrl, clusterRegistrations, found organization/nvcf/dev-empty without them (never deployed, or its last update did not finish). Fix: pulumi up -s dev-empty (and check its outputs with pulumi stack output -s dev-empty)",
  ]);
  expectClean(out);
  expect(out).not.toMatch(/Required output/);
}, 300_000);

test("config that cannot mean anything: unknown chart keys at any depth, a near-miss namespace, one hostname on two GRPCRoutes", () => {
  for (const cmd of [["preview"], ["up", "--yes"]]) {
    const r = pulumi([...cmd, "-s", MEANINGLESS_STACK], true);
    const out = r.stdout + r.stderr;
    expect(r.status).not.toBe(0);
    expect(diagnostics(out)).toEqual(MEANINGLESS_EXPECTED);
    // The key marked as intended is listed, passed unchecked.
    expect(out).toContain(
      "nvcf:releaseValues.cassandra.cassandra.jvm.extraOpts is passed to chart helm-nvcf-cassandra 0.20.1 unchecked (nvcf:releaseValuesUnchecked: the chart does not declare it)",
    );
    expectClean(out);
  }
  const exported = JSON.parse(pulumi(["stack", "export", "-s", MEANINGLESS_STACK]).stdout) as {
    deployment: { resources?: unknown[] };
  };
  expect(exported.deployment.resources ?? []).toEqual([]);
}, 600_000);
