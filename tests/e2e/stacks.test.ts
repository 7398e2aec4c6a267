/**
 * End to end: the real `pulumi` CLI (scripts/toolchain.sh) against the local kwok clusters
 * (scripts/cluster.sh up), with the stand-in charts and the stand-in nvcf-cli. Runs in a copy of the
 * project (so config edits never touch the checkout) with a fresh local state backend.
 *
 * Order: up dev → no-change preview → add-on adds only its release → account settings changed after install
 * (a registry credential's key and a limit reach the stand-in NVCF API through nvcf-cli; a change the API cannot
 * make is refused) → up both GPU clusters (dev-gpu-b with
 * every add-on: KAI, Grove, Dynamo, topology) → operator identity, add-on releases and node tuner checked on
 * the clusters → no-change previews → an NCA id change is refused → a region change of gpu-a keeps its IDs and
 * restarts its operator with the new region → wrong-order destroy refused → ordered destroy leaves nothing behind.
 */
import { spawnSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { enabledReleases } from "../../catalog/releases";
import { releaseNamespace } from "../../components/controlPlane";
import { validateConfig } from "../../config/load";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../config/schema";
import { computeFlags, controlFlags } from "../../config/flags";
import { configProblemLines } from "../../cli/automation";
import { LOCAL_API_DIR, diagnostics, e2eProject, resetLocalClusters } from "./project";

const REGISTRY_KEY = "local-registry-key-for-stand-in-registry";
/** The function-registry key the account-settings tests rotate to (a sentinel: it must never be printed). */
const NEW_FUNCTION_KEY = "rotated-function-registry-key-sentinel-5e0c";

/** `pulumi preview` and `pulumi up` run with the project's policy pack (policy/, docs/policy-and-ci.md). */
const withPolicy = (args: string[]) =>
  args[0] === "preview" || args[0] === "up" ? [...args, "--policy-pack", "policy"] : args;
const project = e2eProject("nvcf-e2e", { pulumiArgs: withPolicy });
const { work, icms, transcript } = project;
const pulumi = (stack: string, ...args: string[]) => project.pulumi(stack, args);
const pulumiMayFail = (stack: string, ...args: string[]) => project.pulumi(stack, args, { allowFail: true });
const kubectl = project.kubectl;
const outputs = (stack: string) =>
  JSON.parse(pulumi(stack, "stack", "output", "--json").stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const icmsRegistry = () => JSON.parse(fs.readFileSync(path.join(icms, "nvcf-default.json"), "utf8"));

/** Polls `kubectl <args>` on a cluster every second until it prints something; returns it, or "" after `seconds`. */
function waitForOutput(cluster: string, args: string[], seconds: number): string {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const r = project.run("kubectl", ["--context", `kwok-nvcf-${cluster}`, ...args], { allowFail: true });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
    if (Date.now() > deadline) return "";
    spawnSync("sleep", ["1"]);
  }
}

/** Polls `kubectl <args>` on a cluster every second until it prints `want`; returns the last output. */
function waitForValue(cluster: string, args: string[], want: string, seconds: number): string {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const r = project.run("kubectl", ["--context", `kwok-nvcf-${cluster}`, ...args], { allowFail: true });
    const got = r.status === 0 ? r.stdout.trim() : "";
    if (got === want || Date.now() > deadline) return got;
    spawnSync("sleep", ["1"]);
  }
}

/** The operator pods of helm-nvca-operator (its Deployment's selector, `nvcaop.baseSelectorLabels`). */
const OPERATOR_SELECTOR = "app.kubernetes.io/name=nvca-operator";

/** Helm releases recorded as deployed in a cluster (Helm's own storage secrets). */
function deployedReleases(context: string): string[] {
  const out = kubectl(
    context,
    "get",
    "secrets",
    "-A",
    "-l",
    "owner=helm,status=deployed",
    "-o",
    'jsonpath={range .items[*]}{.metadata.labels.name}{"\\n"}{end}',
  );
  return out.split("\n").filter(Boolean).sort();
}

/** Fails unless every Deployment, StatefulSet and DaemonSet in the given namespaces is fully ready. */
function expectWorkloadsReady(context: string, namespaces: string[]) {
  for (const ns of namespaces) {
    const items = JSON.parse(kubectl(context, "get", "deploy,statefulset,daemonset", "-n", ns, "-o", "json"))
      .items as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const w of items) {
      const want = w.kind === "DaemonSet" ? w.status.desiredNumberScheduled : (w.spec.replicas ?? 1);
      const ready = w.kind === "DaemonSet" ? w.status.numberReady : (w.status.readyReplicas ?? 0);
      expect([`${ns}/${w.kind}/${w.metadata.name}`, ready]).toEqual([
        `${ns}/${w.kind}/${w.metadata.name}`,
        want,
      ]);
    }
  }
}

/** The cluster identity the operator chart rendered (ConfigMap nvcfbackend-self-managed, docs/upstream-facts.md §2.8). */
function clusterDto(context: string): Record<string, unknown> {
  const text = kubectl(
    context,
    "get",
    "cm",
    "nvcfbackend-self-managed",
    "-n",
    "nvca-operator",
    "-o",
    "jsonpath={.data.cluster-dto\\.yaml}",
  );
  return yaml.load(text) as Record<string, unknown>;
}

/** The namespaces the control plane creates for its releases (the gateway controller's is the user's). */
function controlNamespaces(cfg: ControlPlaneConfig): string[] {
  const names = enabledReleases("control", cfg.bundleVersion, controlFlags(cfg)).map((r) =>
    releaseNamespace(r, cfg),
  );
  return [...new Set(names)].filter((n) => n !== cfg.gateway.controllerNamespace).sort();
}

/** The compute-plane releases a GPU stack of the working copy enables, from its own config. */
function computeReleases(stack: string): ReturnType<typeof enabledReleases> {
  const doc = yaml.load(fs.readFileSync(path.join(work, `Pulumi.${stack}.yaml`), "utf8")) as {
    config: Record<string, unknown>;
  };
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc.config)) {
    if (typeof v === "object" && v !== null && "secure" in v) continue;
    raw[k.replace(/^nvcf:/, "")] = typeof v === "string" ? v : JSON.stringify(v);
  }
  const cfg = validateConfig(raw, new Set(), stack) as ComputePlaneConfig;
  return enabledReleases("compute", cfg.bundleVersion, computeFlags(cfg));
}

function devConfig(): ControlPlaneConfig {
  const doc = yaml.load(fs.readFileSync(path.join(work, "Pulumi.dev.yaml"), "utf8")) as {
    config: Record<string, unknown>;
  };
  const raw: Record<string, string> = {};
  // A secret's value does not matter here (the registry keys' stand-in); which keys are secret does.
  const secret = new Set<string>();
  for (const [k, v] of Object.entries(doc.config)) {
    const key = k.replace(/^nvcf:/, "");
    const isSecret = typeof v === "object" && v !== null && "secure" in v;
    if (isSecret) secret.add(key);
    raw[key] = isSecret ? REGISTRY_KEY : typeof v === "string" ? v : JSON.stringify(v);
  }
  return validateConfig(raw, secret, "dev") as ControlPlaneConfig;
}

beforeAll(() => {
  resetLocalClusters(["dev", "gpu-a", "gpu-b"]);
  for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"]) pulumi(s, "stack", "init");
}, 300_000);

afterAll(() => {
  // Best effort: leave no stack behind even when a test failed half-way.
  for (const s of ["dev-gpu-a", "dev-gpu-b", "dev"]) pulumiMayFail(s, "destroy", "--yes", "--skip-preview");
  project.remove();
});

describe("control plane", () => {
  test("pulumi up of dev installs every enabled release and every workload becomes ready", () => {
    pulumi("dev", "up", "--yes", "--skip-preview");
    const cfg = devConfig();
    const want = enabledReleases("control", cfg.bundleVersion, controlFlags(cfg))
      .map((r) => r.name)
      .sort();
    expect(deployedReleases("dev")).toEqual(want);
    expect(controlNamespaces(cfg)).toEqual(
      expect.arrayContaining([
        "nats-system",
        "vault-system",
        "cassandra-system",
        "nvcf",
        "sis",
        "ess",
        "api-keys",
        "monitoring",
      ]),
    );
    expectWorkloadsReady("dev", controlNamespaces(cfg));
    const out = outputs("dev");
    for (const r of want) expect([r, out["releases"][r]]).toEqual([r, "deployed"]);
  });

  test("the hook jobs ran: OpenBao init and migrations, Cassandra init and migrations, account bootstrap", () => {
    // Hook Jobs stay until their delete policy removes them; the account bootstrap is TTL-deleted after 300 s.
    const jobs = (ns: string) =>
      kubectl(
        "dev",
        "get",
        "jobs",
        "-n",
        ns,
        "-o",
        'jsonpath={range .items[*]}{.metadata.name}={.status.succeeded}{"\\n"}{end}',
      );
    expect(jobs("vault-system")).toMatch(/openbao-server-initialize-cluster=1/);
    expect(jobs("vault-system")).toMatch(/openbao-server-migrations=1/);
    expect(jobs("cassandra-system")).toMatch(/initialize-cluster=1/);
    expect(jobs("cassandra-system")).toMatch(/migrations=1/);
    expect(jobs("nvcf")).toMatch(/nvcf-api-account-bootstrap=1/);
  });

  test("the Cassandra password is the same in both places, and not the chart default", () => {
    const job = JSON.parse(
      kubectl("dev", "get", "job", "openbao-server-migrations", "-n", "vault-system", "-o", "json"),
    );
    type EnvVar = {
      name: string;
      value?: string;
      valueFrom?: { secretKeyRef?: { name: string; key: string } };
    };
    const env = job.spec.template.spec.containers[0].env as EnvVar[];
    // The two credentials come by reference from a Secret of the program (components/controlPlane.ts), not inline.
    const fromSecret = (name: string) => {
      const ref = env.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
      expect(ref).toBeDefined();
      const data = kubectl(
        "dev",
        "get",
        "secret",
        ref!.name,
        "-n",
        "vault-system",
        "-o",
        `jsonpath={.data.${ref!.key}}`,
      );
      return Buffer.from(data, "base64").toString();
    };
    const fromOpenbao = fromSecret("DEFAULT_CASSANDRA_PASSWORD");
    // The real helm-nvcf-cassandra chart keeps the service-role password in no Secret: its post-install
    // migrations hook Job `cassandra-migrations` (container nvcf-cassandra-migrations) gets it as the plain
    // env SERVICE_ROLE_PASSWORD (deploy/helm/cassandra/helm/templates/hook-post-02-migrations.yaml, at
    // 0.7.0 and HEAD); its delete policy (before-hook-creation) keeps the Job after it succeeded.
    const migrations = JSON.parse(
      kubectl("dev", "get", "job", "cassandra-migrations", "-n", "cassandra-system", "-o", "json"),
    );
    const cassandraEnv = (
      migrations.spec.template.spec.containers as { env?: { name: string; value?: string }[] }[]
    ).flatMap((c) => c.env ?? []);
    const fromCassandra = cassandraEnv.find((e) => e.name === "SERVICE_ROLE_PASSWORD")?.value;
    expect(fromOpenbao).toBeTruthy();
    expect(fromCassandra).toBe(fromOpenbao);
    expect(fromCassandra).not.toBe("ch@ng3m3");
    expect(env.find((e) => e.name === "ADMIN_CLIENT_ID")?.value).toBe("ncp");
    const sidecar = fromSecret("NVCF_API_SIDECARS_IMAGE_PULL_SECRET");
    expect(Buffer.from(sidecar, "base64").toString()).toBe(`robot:${REGISTRY_KEY}`);
  });

  test("a second preview shows no changes and sends no dry run; the program asked the API server for its OpenAPI document first", () => {
    const r = pulumi("dev", "preview", "--expect-no-changes", "--diff", "--debug");
    // engine/dryRun.ts: no release's inputs changed, so no object goes to the API server.
    expect(r.stderr).toContain(
      "server-side dry run: no release's inputs changed; nothing sent to the API server",
    );
    expect(r.stdout).not.toContain("server-side dry run of release");
    // engine/warmup.ts warmUpFromRawConfig, under the real engine, with the dev stack's context (kwok-nvcf-dev); with
    // --diff the CLI prints debug messages on standard error.
    expect(`${r.stdout}\n${r.stderr}`).toMatch(
      /debug: OpenAPI document warm-up: asking https:\/\/127\.0\.0\.1:\d+/,
    );
  });

  test("a preview shows each changed non-secret value of openbao-server, cassandra and api; each secret is masked by itself", () => {
    const NEW_PASSWORD = "preview-only-cassandra-password-93c1";
    pulumi("dev", "config", "set", "--path", "nvcf:openbao.injectorReplicas", "3");
    pulumi(
      "dev",
      "config",
      "set",
      "--path",
      "nvcf:releaseValues.cassandra.cassandra.resourcesPreset",
      "large",
    );
    pulumi("dev", "config", "set", "--secret", "nvcf:cassandraPassword", NEW_PASSWORD);
    // A new Cassandra password is refused unless allowed (config/installed.ts); allowed, the preview shows it.
    pulumi("dev", "config", "set", "--path", "nvcf:allowInstalledChanges[0]", "cassandra.password");
    const run = pulumi("dev", "preview", "--diff");
    const out = run.stdout;
    expect(run.stdout + run.stderr).toMatch(
      /let through by nvcf:allowInstalledChanges \(cassandra\.password\)/,
    );
    // The printed diff of one resource: from its `[urn=…::<name>]` line to the next resource's line.
    const block = (name: string) => {
      const lines = out.split("\n");
      const at = lines.findIndex((l) => l.trim().startsWith("[urn=") && l.trim().endsWith(`::${name}]`));
      expect([name, at >= 0]).toEqual([name, true]);
      const end = lines.findIndex((l, i) => i > at && /^ {4}\S/.test(l) && !l.trim().startsWith("["));
      return lines.slice(at, end < 0 ? undefined : end).join("\n");
    };
    const openbao = block("nvcf-openbao-server");
    const cassandra = block("nvcf-cassandra");
    // Every changed non-secret leaf, with its old and new value.
    expect(openbao).toMatch(/~ replicas: 2 => 3/);
    expect(cassandra).toMatch(/~ resourcesPreset\s*: "xlarge" => "large"/);
    // The secret leaf is masked by itself, next to the visible change of the same release.
    expect(cassandra).toMatch(/~ serviceRolePassword: \[secret\] => \[secret\]/);
    // OpenBao takes the password by reference: the reference (a new Secret name) shows, the value does not.
    expect(openbao).toMatch(
      /~ name: "nvcf-openbao-migrations-credentials-[0-9a-z]+" => "nvcf-openbao-migrations-credentials-[0-9a-z]+"/,
    );
    expect(block("nvcf-openbao-migrations-credentials")).toMatch(
      /~ DEFAULT_CASSANDRA_PASSWORD: \[secret\] => \[secret\]/,
    );
    // No release's values, and no list in them, is masked as a whole.
    for (const b of [openbao, cassandra])
      expect(b).not.toMatch(/(values|env|migrations|cassandra|api)\s*: \[secret\]/);
    expect(out).not.toContain(NEW_PASSWORD);
    expect(out).not.toContain(REGISTRY_KEY);
    // Back to the stack's own config: nothing to change.
    pulumi("dev", "config", "rm", "nvcf:cassandraPassword");
    pulumi("dev", "config", "rm", "nvcf:allowInstalledChanges");
    pulumi("dev", "config", "rm", "--path", "nvcf:openbao.injectorReplicas");
    pulumi("dev", "config", "rm", "nvcf:releaseValues");
    pulumi("dev", "preview", "--expect-no-changes");
  });

  test("a chart value the chart does not read is refused by Helm, naming the release and the key; nothing changes", () => {
    const revision = () =>
      kubectl("dev", "get", "secrets", "-n", "nvcf", "-l", "owner=helm,name=api", "-o", "name")
        .split("\n")
        .filter(Boolean)
        .sort();
    const before = revision();
    pulumi("dev", "config", "set", "--path", "nvcf:releaseValues.api.api.replicaCuont", "2");
    // The program refuses a key the chart does not declare (config/meaning.ts) unless it is marked as intended:
    // marked, it reaches Helm, whose schema check refuses it in the middle of the update.
    pulumi("dev", "config", "set", "--path", "nvcf:releaseValuesUnchecked[0]", "api.api.replicaCuont");
    const r = pulumiMayFail("dev", "up", "--yes", "--skip-preview");
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status).not.toBe(0);
    // The engine names the release's resource; Helm's schema error names the chart and the key's path.
    expect(out).toMatch(/kubernetes:helm\.sh\/v3:Release \(nvcf-api\):/);
    expect(out).toMatch(/values don't meet the specifications of the schema/);
    expect(out).toMatch(/helm-nvcf-api:[\s\S]*\/api[\s\S]*replicaCuont/);
    expect(revision()).toEqual(before);
    // The failed run still registered the outputs it got to (engine/outputs.ts): api and the releases that wait
    // for it are "unfinished"; every release api waited for is deployed (each release registers only once the
    // engine holds its prerequisites' entries); a release running beside api may read either. The registrations
    // and the teardown guard stay.
    const after = outputs("dev");
    for (const r of ["api", "invocation-service", "grpc-proxy", "ratelimiter"])
      expect([r, after["releases"][r]]).toEqual([r, "unfinished"]);
    for (const r of ["ess-api", "cassandra", "openbao-server", "nats"])
      expect([r, after["releases"][r]]).toEqual([r, "deployed"]);
    expect(new Set(Object.values(after["releases"]))).toEqual(new Set(["deployed", "unfinished"]));
    expect(Object.keys(after["clusterRegistrations"]).sort()).toEqual(["gpu-a", "gpu-b"]);
    const guard = (
      JSON.parse(pulumi("dev", "stack", "export").stdout).deployment.resources as { urn: string }[]
    ).filter((x) => x.urn.endsWith("command:local:Command::nvcf-teardown-guard"));
    expect(guard).toHaveLength(1);
    pulumi("dev", "config", "rm", "nvcf:releaseValues");
    pulumi("dev", "config", "rm", "nvcf:releaseValuesUnchecked");
    pulumi("dev", "preview", "--expect-no-changes");
    // The next up converges: every release deployed again.
    pulumi("dev", "up", "--yes", "--skip-preview");
    expect(new Set(Object.values(outputs("dev")["releases"]))).toEqual(new Set(["deployed"]));
  });

  test("enabling an add-on adds only that add-on", () => {
    pulumi("dev", "config", "set", "--path", "nvcf:addons.nvcfUi.enabled", "true");
    const plan = JSON.parse(pulumi("dev", "preview", "--json").stdout) as {
      steps: { op: string; urn: string }[];
    };
    const changed = plan.steps
      .filter((s) => s.op !== "same" && s.op !== "read")
      .map((s) => `${s.op} ${s.urn.split("::").pop()}`)
      .sort();
    expect(changed).toEqual(
      [
        "create nvcf-ns-nvcf-ui",
        "create nvcf-nvcf-ui",
        "create nvcf-nvcf-ui",
        "create nvcf-pull-nvcf-ui",
        "update nvcf-ingress",
      ].sort(),
    );
    pulumi("dev", "up", "--yes", "--skip-preview");
    expect(deployedReleases("dev")).toContain("nvcf-ui");
    pulumi("dev", "preview", "--expect-no-changes");
  });
});

describe("account settings after install: applied through nvcf-cli, refused where the API cannot change them", () => {
  /** The stand-in NVCF API's state (tests/bin/nvcf-api.js), written by the account-bootstrap stand-in and nvcf-cli. */
  const apiState = () =>
    JSON.parse(fs.readFileSync(path.join(LOCAL_API_DIR, "nvcf-api.json"), "utf8")) as {
      accounts: {
        ncaId: string;
        adminClientIds: string[];
        maxFunctionsAllowed: number;
        registryCredentials: {
          registryHostname: string;
          registryCredentialId: string;
          provisionedBy: string;
          artifactTypes: string[];
          secretSha256: string;
        }[];
      }[];
      events: { by: string; op: string; status: number; secretSha256?: string }[];
    };
  const account = () => apiState().accounts.find((a) => a.ncaId === "nvcf-default")!;
  const credential = () =>
    account().registryCredentials.find((c) => c.registryHostname === "registry.nvcf.test")!;
  /** What the stand-in API keeps of a credential's secret (base64 of user:key, as the API receives it). */
  const digest = (key: string) =>
    crypto
      .createHash("sha256")
      .update(Buffer.from(`robot:${key}`).toString("base64"))
      .digest("hex");

  test("the install: the bootstrap hook created the account with the stack's credential and limits; the resources took it over", () => {
    const state = apiState();
    // The hook of the first install (the stand-in plays its container), then the program's nvcf-cli runs.
    expect(state.events[0]).toMatchObject({ by: "account-bootstrap", op: "create-account", status: 200 });
    expect(state.events.filter((e) => e.op === "create-account" && e.status === 200)).toHaveLength(1);
    expect(account()).toMatchObject({ adminClientIds: ["ncp"], maxFunctionsAllowed: 10 });
    expect(credential()).toMatchObject({
      provisionedBy: "SYSTEM",
      artifactTypes: ["CONTAINER"],
      secretSha256: digest(REGISTRY_KEY),
    });
    // The stack's record of it (config/accounts.ts), which the next run's refusals compare with.
    const settings = outputs("dev")["accountSettings"];
    expect(settings.limits).toEqual({
      maxFunctions: 10,
      maxTasks: 10,
      maxTelemetries: 10,
      maxRegistryCreds: 10,
    });
    expect(settings.registryCredentials["registry.nvcf.test"]).toMatchObject({
      registryCredentialId: credential().registryCredentialId,
      provisionedBy: "SYSTEM",
      secretName: "nvcr-containers",
    });
  });

  test("a new key and a new limit preview as the commands that apply them; the api release does not change", () => {
    // The key on standard input, so that no command line (nor the transcript) holds it.
    project.pulumi("dev", ["config", "set", "--secret", "nvcf:functionRegistryKey"], {
      input: NEW_FUNCTION_KEY,
    });
    pulumi("dev", "config", "set", "--path", "nvcf:accounts.limits.maxFunctions", "7");
    // The project's own summary (cli/verbs/preview.ts): every change with the resource that applies it.
    const r = project.run("npx", ["nvcf", "preview", "--env", "dev", "--stack", "dev"]);
    const out = r.stdout;
    const summary = out.split("\n").filter((l) => /^(dev:|  [~+-]|1 of 1 stack)/.test(l));
    expect(summary).toHaveLength(4);
    expect(summary).toEqual(
      expect.arrayContaining([
        "dev: 0 releases and 2 other resources would change",
        expect.stringMatching(
          /^ {2}~ command:local:Command nvcf-account-credential-registry\.nvcf\.test \(update\): environment\.NVCFP_KEY_FINGERPRINT: "[0-9a-f]{16}" → "[0-9a-f]{16}"$/,
        ),
        '  ~ command:local:Command nvcf-account-limits (update): environment.NVCFP_MAX_FUNCTIONS: "10" → "7"',
        "1 of 1 stack would change: 0 releases, 2 other resources",
      ]),
    );
    expect(out + r.stderr).not.toContain(NEW_FUNCTION_KEY);
  });

  test("a change the API cannot make to the deployed account is refused before anything is touched, with the fix", () => {
    pulumi(
      "dev",
      "config",
      "set",
      "--path",
      "nvcf:accounts.registryCredentials[0].description",
      "other text",
    );
    const r = pulumiMayFail("dev", "preview");
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status).not.toBe(0);
    expect(out).toContain(
      'error: stack "dev" has 1 config problem; nothing was changed:\n' +
        '      - nvcf:accounts.registryCredentials[0].description: expected "", the description the API holds ' +
        '(nvcf-cli cannot change a credential\'s description after it is created), found "other text". ' +
        "Fix: pulumi config set --path 'nvcf:accounts.registryCredentials[0].description' ''",
    );
    expect(out).not.toMatch(/unhandled exception|\n\s+at /);
    pulumi("dev", "config", "rm", "--path", "nvcf:accounts.registryCredentials[0].description");
  });

  test("up applies both through nvcf-cli: the API holds the new key and limit; a second preview shows no changes", () => {
    const before = apiState().events.length;
    pulumi("dev", "up", "--yes", "--skip-preview");
    expect(credential().secretSha256).toBe(digest(NEW_FUNCTION_KEY));
    expect(account().maxFunctionsAllowed).toBe(7);
    const calls = apiState()
      .events.slice(before)
      .map((e) => [e.by, e.op, e.status]);
    expect(calls).toEqual(
      expect.arrayContaining([
        ["nvcf-cli", "update-account", 200],
        ["nvcf-cli", "update-credential", 200],
      ]),
    );
    // Nothing went through the api release: no account-bootstrap run.
    expect(calls.filter(([by]) => by === "account-bootstrap")).toEqual([]);
    expect(outputs("dev")["accountSettings"].limits.maxFunctions).toBe(7);
    pulumi("dev", "preview", "--expect-no-changes");
  });
});

describe("settings that cannot change in place", () => {
  /** Helm's revisions of a release (its storage Secrets), and the URNs the stack's state holds. */
  const revisions = (ns: string, release: string) =>
    kubectl("dev", "get", "secrets", "-n", ns, "-l", `owner=helm,name=${release}`, "-o", "name")
      .split("\n")
      .filter(Boolean)
      .sort();
  const urns = () =>
    (JSON.parse(pulumi("dev", "stack", "export").stdout).deployment.resources as { urn: string }[])
      .map((r) => r.urn)
      .sort();
  const NEW_PASSWORD = "refused-cassandra-password-5d2e";
  const EXPECTED = [
    'stack "dev" has 2 config problems; nothing was changed:',
    '  - nvcf:storage.size: expected "10Gi", the value deployed for Cassandra\'s data volumes (StatefulSet cassandra-system/cassandra) and OpenBao\'s volumes (StatefulSet vault-system/openbao-server) (Kubernetes does not change a StatefulSet\'s volumeClaimTemplates, so helm upgrade fails), found "20Gi". ' +
      "Fix: pulumi config set --path nvcf:storage.size 10Gi; or, to change it, grow each PersistentVolumeClaim (kubectl patch pvc; the StorageClass must allow expansion) or move the data to new claims, then delete the StatefulSet with kubectl delete statefulset --cascade=orphan (pods and claims stay), " +
      "then pulumi config set --path 'nvcf:allowInstalledChanges[0]' cassandra.volumes and pulumi config set --path 'nvcf:allowInstalledChanges[1]' openbao-server.volumes (docs/installed-settings.md)",
    "  - nvcf:cassandraPassword: expected the password deployed, which the program generated (Cassandra keeps the service roles' password from the install, while OpenBao would hand the new one to every service, which then cannot log in), found [secret] (another password). " +
      "Fix: pulumi config rm nvcf:cassandraPassword; or, to change it, rotate it in a separate maintenance step first (ALTER ROLE … WITH PASSWORD for each service role in cqlsh), then pulumi config set --path 'nvcf:allowInstalledChanges[2]' cassandra.password (docs/installed-settings.md)",
  ];

  test("a new Cassandra volume size and password are refused by preview and up, with the fix, before anything is touched", () => {
    const before = {
      cassandra: revisions("cassandra-system", "cassandra"),
      openbao: revisions("vault-system", "openbao-server"),
      urns: urns(),
    };
    pulumi("dev", "config", "set", "--path", "nvcf:storage.size", "20Gi");
    pulumi("dev", "config", "set", "--secret", "nvcf:cassandraPassword", NEW_PASSWORD);
    for (const cmd of [["preview"], ["up", "--yes", "--skip-preview"]]) {
      const r = pulumiMayFail("dev", ...cmd);
      const out = `${r.stdout}\n${r.stderr}`;
      expect(r.status).not.toBe(0);
      expect(diagnostics(out)).toEqual(EXPECTED);
      expect(out).not.toMatch(/unhandled exception|\n\s+at /);
      expect(out).not.toContain(NEW_PASSWORD);
    }
    // Nothing was touched: no Helm revision, the same resources in the state.
    expect(revisions("cassandra-system", "cassandra")).toEqual(before.cassandra);
    expect(revisions("vault-system", "openbao-server")).toEqual(before.openbao);
    expect(urns()).toEqual(before.urns);
    pulumi("dev", "config", "rm", "nvcf:storage");
    pulumi("dev", "config", "rm", "nvcf:cassandraPassword");
    pulumi("dev", "preview", "--expect-no-changes");
  });
});

describe("changes the live cluster refuses: the preview's server-side dry run", () => {
  /** Every Helm release record on nvcf-dev (one Secret per revision): a refused preview adds none. */
  const records = () =>
    kubectl("dev", "get", "secrets", "-A", "-l", "owner=helm", "-o", "name")
      .split("\n")
      .filter(Boolean)
      .sort();
  const kubectlDev = (...args: string[]) => kubectl("dev", ...args);
  const apply = (doc: string) =>
    project.run("kubectl", ["--context", "kwok-nvcf-dev", "apply", "-f", "-"], { input: doc });
  /** A preview that must fail: its output (both streams), after checking the exit status and that no stack trace shows. */
  const refusedPreview = (...extra: string[]) => {
    const r = pulumiMayFail("dev", "preview", ...extra);
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status).not.toBe(0);
    expect(out).not.toMatch(/unhandled exception|\n\s+at /);
    return out;
  };
  const HEADER = (n: number) =>
    `stack "dev": the cluster refuses ${n} change${n === 1 ? "" : "s"} of this preview (server-side dry run); nothing was changed:`;
  const RULE_FIX =
    "Fix: change the setting so that the object meets the rule, or have the cluster's administrators change the rule";

  // The rules are cluster-wide objects the program does not own: none is left behind, also when a case failed.
  const removeRules = () => {
    for (const [kind, name] of [
      ["validatingadmissionpolicybinding", "one-replica-in-api-keys"],
      ["validatingadmissionpolicy", "one-replica-per-workload"],
      ["crd", "scaledobjects.keda.sh"],
    ])
      kubectlDev("delete", kind, name, "--ignore-not-found");
    kubectlDev("delete", "quota", "secrets-cap", "-n", "api-keys", "--ignore-not-found");
  };
  beforeAll(removeRules);
  afterAll(removeRules);

  // An organisation's admission rule the program knows nothing of: at most one replica per workload in api-keys.
  const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: one-replica-per-workload
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments", "statefulsets"]
  validations:
    - expression: "!has(object.spec.replicas) || object.spec.replicas <= 1"
      message: "workloads in api-keys run one replica"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: one-replica-in-api-keys
spec:
  policyName: one-replica-per-workload
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: api-keys
`;

  test("an admission policy: preview and the pull-request step fail naming release, object and policy; no revision is written", () => {
    apply(POLICY);
    const before = records();
    pulumi("dev", "config", "set", "--path", "nvcf:releaseValues.api-keys.apikeys.replicaCount", "2");
    // The pull-request workflow's preview step (.github/workflows/preview.yml runs this script): `pulumi preview
    // --diff` of each stack of the environment; dev's fails, and the comment shows the refusal under it.
    const report = path.join(work, ".preview/report.md");
    const step = project.run("bash", ["scripts/preview-environment.sh", "dev", report], { allowFail: true });
    expect(step.status).toBe(1);
    const out = fs.readFileSync(path.join(work, ".preview/preview-dev.txt"), "utf8");
    expect(out).not.toMatch(/unhandled exception|\n\s+at /);
    const refusal = `  - release api-keys: update Deployment api-keys/api-keys: workloads in api-keys run one replica (ValidatingAdmissionPolicy one-replica-per-workload, binding one-replica-in-api-keys). ${RULE_FIX}`;
    // `--diff` prints the error outside a Diagnostics block; the `nvcf` command's reader finds it anywhere.
    expect(configProblemLines(out)).toEqual([HEADER(1), refusal]);
    const comment = fs.readFileSync(report, "utf8");
    expect(comment).toContain("<summary><code>dev</code>: FAILED");
    expect(comment).toContain(refusal.slice(4));
    expect(records()).toEqual(before);
  });

  test("without the policy the same change previews with the API server's warnings, and up applies it", () => {
    kubectlDev("delete", "validatingadmissionpolicybinding", "one-replica-in-api-keys");
    kubectlDev("delete", "validatingadmissionpolicy", "one-replica-per-workload");
    // Pod Security admission in warn mode: the API server accepts and warns; the preview shows it and passes.
    kubectlDev("label", "namespace", "api-keys", "pod-security.kubernetes.io/warn=restricted");
    const r = pulumi("dev", "preview");
    expect(r.stdout).toMatch(
      /warning: server-side dry run of release api-keys: update Deployment api-keys\/api-keys: would violate PodSecurity "restricted:latest": /,
    );
    expect(r.stdout).toContain("server-side dry run of release api-keys: 1 update, 1 record accepted");
    kubectlDev("label", "namespace", "api-keys", "pod-security.kubernetes.io/warn-");
    pulumi("dev", "up", "--yes", "--skip-preview");
    expect(kubectlDev("get", "deploy", "api-keys", "-n", "api-keys", "-o", "jsonpath={.spec.replicas}")).toBe(
      "2",
    );
  });

  test("a quota: the release record Helm would write is refused; without the quota the change applies", () => {
    const secrets = kubectlDev("get", "secrets", "-n", "api-keys", "-o", "name")
      .split("\n")
      .filter(Boolean).length;
    kubectlDev("create", "quota", "secrets-cap", "-n", "api-keys", `--hard=count/secrets=${secrets}`);
    // The quota controller fills in what is used; the API server judges creates against that.
    expect(
      waitForValue(
        "dev",
        ["get", "quota", "secrets-cap", "-n", "api-keys", "-o", "jsonpath={.status.used.count/secrets}"],
        String(secrets),
        60,
      ),
    ).toBe(String(secrets));
    const before = records();
    // Back to the chart's default replica count: a new revision of api-keys.
    pulumi("dev", "config", "rm", "nvcf:releaseValues");
    const lines = diagnostics(refusedPreview());
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(HEADER(1));
    expect(lines[1]).toMatch(
      new RegExp(
        `^  - release api-keys: record Secret api-keys/sh\\.helm\\.release\\.v1\\.api-keys\\.v\\d+: .*count/secrets=${secrets}.* \\(ResourceQuota secrets-cap\\)\\. Fix: raise the quota, or have the release create fewer or smaller objects there$`,
      ),
    );
    expect(records()).toEqual(before);
    kubectlDev("delete", "quota", "secrets-cap", "-n", "api-keys");
    pulumi("dev", "up", "--yes", "--skip-preview");
    expect(kubectlDev("get", "deploy", "api-keys", "-n", "api-keys", "-o", "jsonpath={.spec.replicas}")).toBe(
      "1",
    );
  });

  // A hot-fix chart version of api-keys (charts.versionOverrides) that changes the Deployment's selector and adds an
  // object of a CRD the cluster does not have: a stand-in copy in the working copy's chart directory.
  const HOTFIX = "1.6.98";
  const SCALED_OBJECT_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: scaledobjects.keda.sh
spec:
  group: keda.sh
  scope: Namespaced
  names: {kind: ScaledObject, listKind: ScaledObjectList, plural: scaledobjects, singular: scaledobject}
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

  test("an immutable field no install-only setting names and a kind the cluster does not serve: both listed, with the field and the fix", () => {
    const dir = path.join(work, "tests/charts", `helm-nvcf-api-keys-${HOTFIX}`);
    fs.cpSync(path.join(work, "tests/charts/helm-nvcf-api-keys"), dir, { recursive: true });
    const chartYaml = path.join(dir, "Chart.yaml");
    fs.writeFileSync(
      chartYaml,
      fs.readFileSync(chartYaml, "utf8").replace(/^version: .*$/m, `version: ${HOTFIX}`),
    );
    const workload = path.join(dir, "templates/workload.yaml");
    const text = fs.readFileSync(workload, "utf8");
    expect(text).toContain('"app" "helm-nvcf-api-keys"');
    fs.writeFileSync(workload, text.replace('"app" "helm-nvcf-api-keys"', '"app" "helm-nvcf-api-keys-v2"'));
    fs.writeFileSync(
      path.join(dir, "templates/scaledobject.yaml"),
      "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: api-keys\nspec:\n  scaleTargetRef:\n    name: api-keys\n  maxReplicaCount: 2\n",
    );
    const before = records();
    pulumi("dev", "config", "set", "--path", "nvcf:charts.versionOverrides.api-keys", HOTFIX);
    expect(diagnostics(refusedPreview())).toEqual([
      HEADER(2),
      "  - release api-keys: create ScaledObject api-keys/api-keys: the cluster does not serve keda.sh/v1alpha1 ScaledObject: no API group version or CRD defines it (kind not served). " +
        "Fix: install the CRD or enable the API that serves it before this update, or turn off the setting that renders the object",
      '  - release api-keys: update Deployment api-keys/api-keys: spec.selector cannot change in place: spec.selector.matchLabels["app.kubernetes.io/name"] ("helm-nvcf-api-keys" → "helm-nvcf-api-keys-v2") (API server: field is immutable) (immutable field). ' +
        "Fix: keep spec.selector as deployed, or delete the object first (kubectl delete deployment api-keys -n api-keys: its pods are replaced when the update creates it anew; docs/installed-settings.md)",
    ]);
    expect(records()).toEqual(before);
  });

  test("with the CRD installed and the Deployment deleted as the fix says, the same change previews and applies", () => {
    apply(SCALED_OBJECT_CRD);
    kubectlDev("delete", "deployment", "api-keys", "-n", "api-keys");
    expect(pulumi("dev", "preview").stdout).toContain(
      "server-side dry run of release api-keys: 2 creates, 3 updates, 1 record accepted",
    );
    pulumi("dev", "up", "--yes", "--skip-preview");
    expect(kubectlDev("get", "scaledobject", "api-keys", "-n", "api-keys", "-o", "name").trim()).toBe(
      "scaledobject.keda.sh/api-keys",
    );
    expect(
      kubectlDev(
        "get",
        "deploy",
        "api-keys",
        "-n",
        "api-keys",
        "-o",
        "jsonpath={.spec.selector.matchLabels.app\\.kubernetes\\.io/name}",
      ),
    ).toBe("helm-nvcf-api-keys-v2");
    // Back to the bundle's chart: the selector changes back the same way.
    pulumi("dev", "config", "rm", "--path", "nvcf:charts.versionOverrides");
    kubectlDev("delete", "deployment", "api-keys", "-n", "api-keys");
    pulumi("dev", "up", "--yes", "--skip-preview");
    kubectlDev("delete", "crd", "scaledobjects.keda.sh");
    // Every change of this block is undone: the program previews no changes.
    pulumi("dev", "preview", "--expect-no-changes");
  });
});

describe("compute planes", () => {
  test("a compute stack on another bundle than its control plane fails before it registers anything", () => {
    pulumi("dev-gpu-a", "config", "set", "nvcf:bundleVersion", "0.7.0");
    const r = pulumiMayFail("dev-gpu-a", "up", "--yes", "--skip-preview");
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status).not.toBe(0);
    expect(out).toContain(
      'error: stack "dev-gpu-a" has 1 config problem; nothing was changed:\n' +
        '      - nvcf:bundleVersion: expected "0.8.0", the NVCF bundle control-plane stack organization/nvcf/dev runs, ' +
        'found "0.7.0". Fix: pulumi config set nvcf:bundleVersion 0.8.0, or upgrade the control plane first',
    );
    expect(out).not.toMatch(/unhandled exception|\n\s+at /);
    const state = JSON.parse(pulumi("dev-gpu-a", "stack", "export").stdout) as {
      deployment: { resources?: { type: string }[] };
    };
    const types = (state.deployment.resources ?? []).map((x) => x.type);
    expect(types.filter((t) => !t.startsWith("pulumi:"))).toEqual([]);
    pulumi("dev-gpu-a", "config", "set", "nvcf:bundleVersion", "0.8.0");
  });

  test("up of dev-gpu-a and dev-gpu-b; the operator gets exactly the IDs registration returned", () => {
    const regs = outputs("dev")["clusterRegistrations"];
    for (const [stack, cluster] of [
      ["dev-gpu-a", "gpu-a"],
      ["dev-gpu-b", "gpu-b"],
    ] as const) {
      pulumi(stack, "up", "--yes", "--skip-preview");
      const ctx = stack.replace("dev-", "");
      const releases = computeReleases(stack);
      expect(deployedReleases(ctx)).toEqual(releases.map((r) => r.name).sort());
      const namespaces = [
        ...new Set(releases.map((r) => ("fixed" in r.namespace ? r.namespace.fixed : ""))),
      ].filter(Boolean);
      expectWorkloadsReady(ctx, namespaces);
      const dto = clusterDto(ctx);
      expect(dto["clusterId"]).toBe(regs[cluster].clusterID);
      expect(dto["clusterGroupId"]).toBe(regs[cluster].clusterGroupID);
      expect(dto["region"]).toBe(cluster === "gpu-a" ? "us-west-1" : "us-east-1");
      // Every namespace that runs a workload of this stack gets the pull secret (add-on charts too).
      for (const ns of new Set(["nvca-operator", "nvca-system", "nvcf-backend", ...namespaces])) {
        expect([
          ns,
          kubectl(ctx, "get", "secret", "nvcr-pull-secret", "-n", ns, "-o", "jsonpath={.type}"),
        ]).toEqual([ns, "kubernetes.io/dockerconfigjson"]);
      }
    }
  });

  test("dev-gpu-b is the all-add-ons GPU cluster: KAI, Grove, Dynamo and both topology releases are deployed", () => {
    // Pulumi.dev-gpu-b.yaml turns on every compute add-on; each is its own Helm release (catalog/releases.ts).
    expect(deployedReleases("gpu-b")).toEqual(
      expect.arrayContaining([
        "kai-scheduler",
        "grove-operator",
        "dynamo-operator",
        "nvcf-kai-topology",
        "nvcf-grove-topology",
        "nvca-operator",
      ]),
    );
    // dev-gpu-a turns on no add-on: only the operator and its observability stack (profile compute).
    const addOns = [
      "kai-scheduler",
      "grove-operator",
      "dynamo-operator",
      "nvcf-kai-topology",
      "nvcf-grove-topology",
    ];
    expect(deployedReleases("gpu-a").filter((r) => addOns.includes(r))).toEqual([]);
    expect(deployedReleases("gpu-a")).toEqual(
      computeReleases("dev-gpu-a")
        .map((r) => r.name)
        .sort(),
    );
    const out = outputs("dev-gpu-b");
    expect(out["operatorStatus"]).toBe("deployed");
  });

  test("the inotify tuner runs on every GPU node", () => {
    for (const ctx of ["gpu-a", "gpu-b"]) {
      const gpuNodes = kubectl(
        ctx,
        "get",
        "nodes",
        "-l",
        "nvidia.com/gpu.present=true",
        "-o",
        "jsonpath={.items[*].metadata.name}",
      )
        .split(" ")
        .filter(Boolean)
        .sort();
      expect(gpuNodes.length).toBeGreaterThan(0);
      const pods = JSON.parse(
        kubectl(
          ctx,
          "get",
          "pods",
          "-n",
          "kube-system",
          "-l",
          "app.kubernetes.io/name=node-inotify-tuner",
          "-o",
          "json",
        ),
      ).items as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
      const running = pods.filter((p) => p.status.phase === "Running").map((p) => p.spec.nodeName);
      for (const n of gpuNodes) expect(running).toContain(n);
    }
  });

  test("second previews of all three stacks show no changes", () => {
    for (const s of ["dev", "dev-gpu-a", "dev-gpu-b"]) pulumi(s, "preview", "--expect-no-changes");
  });

  test("an NCA id the deployed registrations are not in is refused before anything is touched", () => {
    const before = JSON.stringify(icmsRegistry());
    pulumi("dev", "config", "set", "nvcf:ncaId", "another-account");
    const r = pulumiMayFail("dev", "preview");
    pulumi("dev", "config", "rm", "nvcf:ncaId");
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status).not.toBe(0);
    const regs = outputs("dev")["clusterRegistrations"];
    expect(out).toContain(
      'error: stack "dev" has 1 config problem; nothing was changed:\n' +
        `      - nvcf:ncaId: expected "nvcf-default", the account GPU cluster(s) gpu-a (${regs["gpu-a"].clusterID}), ` +
        `gpu-b (${regs["gpu-b"].clusterID}) are registered in: a registration cannot move to another account keeping its IDs`,
    );
    expect(out).toContain('found "another-account". Fix: pulumi config set nvcf:ncaId nvcf-default.');
    expect(out).not.toMatch(/unhandled exception|\n\s+at /);
    expect(JSON.stringify(icmsRegistry())).toBe(before);
  });

  test("changing a cluster's region keeps its IDs: the registration is updated, the operator restarted with the new region", () => {
    const find = (name: string) => icmsRegistry().clusters.find((c: { name: string }) => c.name === name);
    const [a0, b0] = [find("gpu-a"), find("gpu-b")];
    const regs0 = outputs("dev")["clusterRegistrations"];
    // The operator's pods that are not being deleted (a replaced one may still be terminating for a moment).
    const operatorPods = () =>
      (
        JSON.parse(
          kubectl("gpu-a", "get", "pods", "-n", "nvca-operator", "-l", OPERATOR_SELECTOR, "-o", "json"),
        ).items as { metadata: { uid: string; deletionTimestamp?: string } }[]
      )
        .filter((p) => !p.metadata.deletionTimestamp)
        .map((p) => p.metadata.uid);
    const [pod0, ...more0] = operatorPods();
    expect([pod0, more0]).toEqual([expect.any(String), []]);

    pulumi("dev", "config", "set", "--path", "nvcf:gpuClusters[0].region", "eu-west-1");
    // The preview: one update (not a replacement) of gpu-a's registration, and a line saying what it runs.
    const plan = JSON.parse(pulumi("dev", "preview", "--json").stdout) as {
      steps: { op: string; urn: string }[];
      diagnostics?: { message: string; urn?: string }[];
    };
    const changed = plan.steps
      .filter((st) => st.op !== "same" && st.op !== "read")
      .map((st) => [st.op, st.urn.split("::").pop()]);
    expect(changed).toEqual([["update", "nvcf-register-gpu-a-register"]]);
    expect((plan.diagnostics ?? []).map((d) => d.message.trim())).toContainEqual(
      "runs nvcf-cli cluster register --name gpu-a --region eu-west-1 --ignore-existing: clusterID and " +
        "clusterGroupID are kept, the issuer and JWKS refreshed; the GPU cluster's stack then gives its operator " +
        "region eu-west-1 and restarts it (ICMS keeps us-west-1, the region of the first registration)",
    );

    pulumi("dev", "up", "--yes", "--skip-preview");
    // ICMS: the same registration (IDs, region of record), re-registered once; gpu-b untouched.
    const a1 = find("gpu-a");
    expect(a1).toMatchObject({
      clusterID: a0.clusterID,
      clusterGroupID: a0.clusterGroupID,
      region: "us-west-1",
      registerCount: a0.registerCount + 1,
    });
    expect(find("gpu-b")).toEqual(b0);
    const regs1 = outputs("dev")["clusterRegistrations"];
    expect(regs1).toEqual({ ...regs0, "gpu-a": { ...regs0["gpu-a"], region: "eu-west-1" } });

    // The GPU cluster: the operator's values and its restart, nothing else.
    const cplan = JSON.parse(pulumi("dev-gpu-a", "preview", "--json").stdout) as {
      steps: { op: string; urn: string }[];
    };
    expect(
      cplan.steps
        .filter((st) => st.op !== "same" && st.op !== "read")
        .map((st) => [st.op, st.urn.split("::").pop()]),
    ).toEqual([
      ["update", "nvcf-nvca-operator"],
      ["update", "nvcf-operator-restart"],
    ]);
    pulumi("dev-gpu-a", "up", "--yes", "--skip-preview");
    const dto = clusterDto("gpu-a");
    expect([dto["clusterId"], dto["clusterGroupId"], dto["region"]]).toEqual([
      a0.clusterID,
      a0.clusterGroupID,
      "eu-west-1",
    ]);
    // Restarted: `rollout status` returned once the new pod was ready.
    const pods1 = operatorPods();
    expect(pods1).toHaveLength(1);
    expect(pods1[0]).not.toBe(pod0);
    // The stand-in operator reads the identity only when its pod starts: the new pod made it take the region.
    const backend = (field: string) => [
      "get",
      "nvcfbackends.nvcf.nvidia.io",
      "gpu-a",
      "-n",
      "nvca-operator",
      "-o",
      `jsonpath={.spec.clusterConfig.${field}}`,
    ];
    expect(waitForValue("gpu-a", backend("region"), "eu-west-1", 120)).toBe("eu-west-1");
    expect(kubectl("gpu-a", ...backend("clusterID"))).toBe(a0.clusterID);
    for (const st of ["dev", "dev-gpu-a", "dev-gpu-b"]) pulumi(st, "preview", "--expect-no-changes");
  });
});

describe("teardown", () => {
  test("destroying the control plane while compute planes reference it is refused, and nothing is touched", () => {
    const r = pulumiMayFail("dev", "destroy", "--yes", "--skip-preview");
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(
      /refusing to destroy control-plane stack organization\/nvcf\/dev: compute-plane stack\(s\).*dev-gpu-a/,
    );
    expect(deployedReleases("dev")).toContain("cassandra");
    pulumi("dev", "preview", "--expect-no-changes");
  });

  test("compute planes destroy in order and leave none of their namespaces", () => {
    for (const [stack, ctx] of [
      ["dev-gpu-a", "gpu-a"],
      ["dev-gpu-b", "gpu-b"],
    ] as const) {
      // The operator (on the local clusters the stand-in scripts/cluster.sh runs) has created the NVCFBackend
      // and the agent: the drain step must delete it and wait for the agent to go.
      expect(waitForOutput(ctx, ["get", "nvcfbackend", ctx, "-n", "nvca-operator", "-o", "name"], 120)).toBe(
        `nvcfbackend.nvcf.nvidia.io/${ctx}`,
      );
      const r = pulumi(stack, "destroy", "--yes", "--skip-preview");
      // The NVCFBackend goes (drain step) before the operator release is uninstalled.
      const lines = r.stdout.split("\n");
      const drained = lines.findIndex((l) => /command:local:Command nvcf-drain deleted/.test(l));
      const operatorGone = lines.findIndex((l) => /helm.sh\/v3:Release nvcf-nvca-operator deleting/.test(l));
      expect(drained).toBeGreaterThanOrEqual(0);
      expect(operatorGone).toBeGreaterThan(drained);
      const ns = kubectl(ctx, "get", "ns", "-o", "jsonpath={.items[*].metadata.name}");
      const addonNs = computeReleases(stack).map((r) => ("fixed" in r.namespace ? r.namespace.fixed : ""));
      for (const n of new Set(["nvca-operator", "nvca-system", "nvcf-backend", ...addonNs.filter(Boolean)]))
        expect(ns.split(" ")).not.toContain(n);
      expect(deployedReleases(ctx)).toEqual([]);
      expect(kubectl(ctx, "get", "crd", "-o", "name")).not.toMatch(/nvcfbackends/);
      expect(kubectl(ctx, "get", "ds", "-n", "kube-system", "-o", "name")).not.toMatch(/node-inotify-tuner/);
    }
  });

  test("then the control plane destroys, deregisters its clusters and leaves no namespace behind", () => {
    pulumi("dev", "destroy", "--yes", "--skip-preview");
    const ns = kubectl("dev", "get", "ns", "-o", "jsonpath={.items[*].metadata.name}").split(" ");
    for (const n of controlNamespaces(devConfig())) expect(ns).not.toContain(n);
    expect(deployedReleases("dev")).toEqual([]);
    const reg = icmsRegistry();
    expect((reg.clusters ?? reg).length).toBe(0);
  });

  test("no secret appeared in plain text in any command output or in the exported state", () => {
    const exported = ["dev", "dev-gpu-a", "dev-gpu-b"]
      .map((s) => pulumi(s, "stack", "export", "--show-secrets=false").stdout)
      .join("\n");
    const all = transcript.join("\n") + exported;
    for (const key of [REGISTRY_KEY, NEW_FUNCTION_KEY]) {
      expect(all).not.toContain(key);
      expect(all).not.toContain(Buffer.from(`robot:${key}`).toString("base64"));
    }
    expect(all).not.toMatch(/nvapi-stand-in-[0-9a-f]+/);
  });
});
