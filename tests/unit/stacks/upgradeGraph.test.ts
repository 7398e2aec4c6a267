/**
 * Bundle upgrades in the program, under Pulumi mocks (the real program, index.ts, for the committed dev stacks,
 * with the stack's previous outputs given as its reference to itself answers them): which steps exist, the order a
 * move imposes, the values an adopted Cassandra keeps, the outputs, and the refusals before anything is touched.
 */
import { RELEASE_INPUTS_OUTPUT } from "../../../engine/dryRun";
import * as path from "node:path";
import { API_INSTALL_ONLY_VALUES } from "../../../components/controlPlane";
import { SECRET_OUTPUT_NAMES } from "../../../contract/controlPlane";
import { INSTALLED_DIGESTS_OUTPUT } from "../../../stacks/installedSettings";
import { ConfigError } from "../../../config/problems";
import { enabledReleases } from "../../../catalog/releases";
import { controlFlags } from "../../../config/flags";
import { type RenderResult, type Rendered, mockGateway, render, validatedConfig } from "../support/harness";
import { devCredentialOverride } from "../fixtures/configs";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");
const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };

/** Every release the dev control plane deploys at 0.7.0, as its `releases` output lists them. */
const DEV_070_RELEASES = enabledReleases(
  "control",
  "0.7.0",
  controlFlags(validatedConfig("dev", { bundleVersion: "0.7.0" })),
).map((r) => r.name);
/** The step resources of dev's control plane once it has been at 0.7.0, in the order `steps` lists them. */
const DEV_STEPS = [
  "nvcf-openbao-rollout",
  "nvcf-cassandra-adoption-prepare",
  "nvcf-cassandra-adoption-verify",
];
const deployed = (bundle: string, layout?: string) => ({
  bundleVersion: bundle,
  releases: Object.fromEntries(DEV_070_RELEASES.map((n) => [n, "deployed"])),
  ...(layout ? { cassandraDataLayout: layout } : {}),
});

/** A resource by name; for a release, its Helm release resource (the component of the same name carries nothing). */
const byName = (r: RenderResult, name: string): Rendered => {
  const x = r.resources.find((y) => y.name === name && y.custom);
  if (!x) throw new Error(`no resource ${name}`);
  return x;
};
const steps = (r: RenderResult) =>
  r.resources
    .filter((x) => x.type === "command:local:Command" && /openbao-rollout|cassandra-adoption/.test(x.name))
    .map((x) => x.name);
const env = (x: Rendered) => x.inputs["environment"] as Record<string, string>;
const cassandraValues = (r: RenderResult) =>
  (byName(r, "nvcf-cassandra").inputs["values"] as { cassandra: Record<string, unknown> }).cassandra;

describe("dev, 0.7.0 → 0.8.0", () => {
  let r: RenderResult;
  beforeAll(async () => {
    r = await render({
      stack: "dev",
      gateways: GATEWAYS,
      previousOutputs: deployed("0.7.0"),
    });
  });

  test("renders; the steps of the move are in place", () => {
    expect(r.error).toBeUndefined();
    expect(steps(r)).toEqual(DEV_STEPS);
  });

  test("OpenBao first and alone: only its prerequisites before it, its rollout after it", () => {
    expect(byName(r, "nvcf-openbao-server").dependsOn).not.toContain("nvcf-openbao-rollout");
    expect(byName(r, "nvcf-openbao-rollout").dependsOn).toEqual(["nvcf-openbao-server"]);
    expect(byName(r, "nvcf-nats").dependsOn).not.toContain("nvcf-openbao-rollout");
  });

  test("then Cassandra alone: prepare after the rollout, the release after prepare, verify after the release", () => {
    expect(byName(r, "nvcf-cassandra-adoption-prepare").dependsOn).toEqual(["nvcf-openbao-rollout"]);
    expect(byName(r, "nvcf-cassandra").dependsOn).toContain("nvcf-cassandra-adoption-prepare");
    expect(byName(r, "nvcf-cassandra-adoption-verify").dependsOn).toEqual(["nvcf-cassandra"]);
  });

  test("then every other release, after the Cassandra phase", () => {
    const others = r.resources.filter(
      (x) =>
        x.type === "kubernetes:helm.sh/v3:Release" &&
        !["nvcf-nats", "nvcf-openbao-server", "nvcf-cassandra"].includes(x.name),
    );
    expect(others.length).toBeGreaterThan(15);
    for (const x of others)
      expect([x.name, x.dependsOn.includes("nvcf-cassandra-adoption-verify")]).toEqual([x.name, true]);
  });

  test("the new chart mounts the same claims with subPath data and the settings the Bitnami-written data needs", () => {
    const v = cassandraValues(r);
    // No rollback across the change of lineage; every other release keeps rolling back a failed upgrade.
    expect(byName(r, "nvcf-cassandra").inputs["atomic"]).toBe(false);
    expect(byName(r, "nvcf-api").inputs["atomic"]).toBe(true);
    expect(byName(r, "nvcf-cassandra").inputs["version"]).toBe("0.20.1");
    expect(v["persistence"]).toEqual({ size: "10Gi", subPath: "data" });
    expect(v["config"]).toEqual({
      uuid_sstable_identifiers_enabled: true,
      storage_compatibility_mode: "NONE",
    });
  });

  test("the Cassandra steps: the namespaces of the writers, the superuser's password secret, kubectl on the stack's context", () => {
    const e = env(byName(r, "nvcf-cassandra-adoption-prepare"));
    expect(e["NVCFP_WRITER_NAMESPACES"]).toBe("api-keys ess nvcf sis");
    expect(e["NVCFP_CQL_USER"]).toBe("cassandra");
    expect(e["NVCFP_CQL_PASSWORD"]).toBe("[secret]");
    expect(e["NVCFP_KUBE_CONTEXT"]).toBe("kwok-nvcf-dev");
    expect(e["NVCFP_REPLICAS"]).toBe("3");
    expect(byName(r, "nvcf-cassandra-adoption-prepare").inputs["create"]).toBe('eval "$NVCFP_STEP_SCRIPT"');
  });

  test("outputs: the bundle reached, Cassandra's layout kept for later runs", () => {
    expect(r.outputs["bundleVersion"]).toBe("0.8.0");
    expect(r.outputs["cassandraDataLayout"]).toBe("bitnami");
    expect(r.secretOutputs.sort()).toEqual(
      [...SECRET_OUTPUT_NAMES, INSTALLED_DIGESTS_OUTPUT, RELEASE_INPUTS_OUTPUT].sort(),
    );
  });

  test("the account commands follow the api release at the new bundle, so the move's phases too", () => {
    // 0.8.0's api chart (catalog/releases.ts), upgraded from 0.7.0's 1.23.9 in the same Pulumi resource.
    expect(byName(r, "nvcf-api").inputs["version"]).toBe("1.25.1");
    expect(byName(r, "nvcf-api").dependsOn).toContain("nvcf-cassandra-adoption-verify");
    expect(byName(r, "nvcf-api").ignoreChanges).toEqual(
      expect.arrayContaining(API_INSTALL_ONLY_VALUES.map((p) => `values.${p}`)),
    );
    expect(byName(r, "nvcf-account-limits").dependsOn).toContain("nvcf-api");
    expect(byName(r, "nvcf-account-credential-registry.nvcf.test").dependsOn).toEqual([
      "nvcf-account-limits",
    ]);
  });
});

describe("dev after the move (deployed at 0.8.0, data adopted)", () => {
  let r: RenderResult;
  beforeAll(async () => {
    r = await render({ stack: "dev", gateways: GATEWAYS, previousOutputs: deployed("0.8.0", "bitnami") });
  });

  test("the same steps with the same inputs stay in place, and the move's order is gone", () => {
    expect(r.error).toBeUndefined();
    expect(steps(r)).toEqual(DEV_STEPS);
    expect(byName(r, "nvcf-cassandra-adoption-prepare").dependsOn).toEqual([]);
    expect(byName(r, "nvcf-api").dependsOn).not.toContain("nvcf-cassandra-adoption-verify");
    expect(byName(r, "nvcf-cassandra").dependsOn).toContain("nvcf-cassandra-adoption-prepare");
  });

  test("the step inputs do not depend on the bundle moved from (a second preview changes nothing)", async () => {
    const moving = await render({ stack: "dev", gateways: GATEWAYS, previousOutputs: deployed("0.7.0") });
    for (const n of DEV_STEPS) expect([n, byName(r, n).inputs]).toEqual([n, byName(moving, n).inputs]);
    expect(cassandraValues(r)).toEqual(cassandraValues(moving));
  });

  test("the adopted data keeps subPath data (and no automatic rollback)", () => {
    expect(byName(r, "nvcf-cassandra").inputs["atomic"]).toBe(false);
    expect((cassandraValues(r)["persistence"] as Record<string, unknown>)["subPath"]).toBe("data");
    expect(r.outputs["cassandraDataLayout"]).toBe("bitnami");
  });
});

describe("a first install at 0.8.0", () => {
  let r: RenderResult;
  beforeAll(async () => {
    r = await render({ stack: "dev", gateways: GATEWAYS });
  });

  test("only OpenBao's rollout (OnDelete pods after each upgrade), no adoption, no subPath", () => {
    expect(r.error).toBeUndefined();
    expect(steps(r)).toEqual(["nvcf-openbao-rollout"]);
    expect(cassandraValues(r)["persistence"]).toEqual({ size: "10Gi" });
    expect(cassandraValues(r)["config"]).toBeUndefined();
    expect(r.outputs["cassandraDataLayout"]).toBe("official");
  });

  test("the rollout runs again after each Helm upgrade of openbao-server: its Helm revision is an input", () => {
    expect(env(byName(r, "nvcf-openbao-rollout"))["NVCFP_REVISION"]).toBe("1");
  });

  test("no step waits on another: the install keeps its own order", () => {
    expect(byName(r, "nvcf-cassandra").dependsOn).not.toContain("nvcf-openbao-rollout");
    expect(byName(r, "nvcf-api").dependsOn).not.toContain("nvcf-openbao-rollout");
  });
});

describe("refused before anything is touched", () => {
  test("a downgrade: the program's ConfigError, and no resource but the stack's reference to itself", async () => {
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS,
      overrides: { bundleVersion: "0.7.0" },
      previousOutputs: deployed("0.8.0", "bitnami"),
    });
    expect(r.error).toBeInstanceOf(ConfigError);
    expect(r.error?.message).toMatch(
      /^stack "dev" has 1 config problem; nothing was changed:\n {2}- nvcf:bundleVersion: expected 0\.8\.0 or a later bundle/,
    );
    expect(r.resources.map((x) => x.type)).toEqual(["pulumi:pulumi:StackReference"]);
  });

  test("with a change the API cannot make to the account: both refusals in one ConfigError", async () => {
    const at080 = await render({
      stack: "dev",
      gateways: GATEWAYS,
      previousOutputs: deployed("0.8.0", "bitnami"),
    });
    expect(at080.error).toBeUndefined();
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS,
      overrides: {
        bundleVersion: "0.7.0",
        accounts: devCredentialOverride({ description: "changed" }),
      },
      previousOutputs: { ...deployed("0.8.0", "bitnami"), accountSettings: at080.outputs["accountSettings"] },
    });
    expect(r.error).toBeInstanceOf(ConfigError);
    expect((r.error as ConfigError).problems.map((p) => p.key)).toEqual([
      "nvcf:accounts.registryCredentials[0].description",
      "nvcf:bundleVersion",
    ]);
    expect(r.error?.message).toMatch(/^stack "dev" has 2 config problems; nothing was changed:/);
    expect(r.resources.map((x) => x.type)).toEqual(["pulumi:pulumi:StackReference"]);
  });

  test("a compute plane moving past its own bundle, checked with its control plane's", async () => {
    const cp = await render({
      stack: "dev",
      gateways: GATEWAYS,
      previousOutputs: deployed("0.8.0", "bitnami"),
    });
    const r = await render({
      stack: "dev-gpu-a",
      overrides: { bundleVersion: "0.7.0" },
      controlPlaneOutputs: cp.outputs,
      controlPlaneSecretOutputs: [...SECRET_OUTPUT_NAMES],
      previousOutputs: { bundleVersion: "0.8.0" },
    });
    expect(r.error).toBeInstanceOf(ConfigError);
    const keys = (r.error as ConfigError).problems.map((p) => p.key);
    expect(keys).toEqual(["nvcf:bundleVersion", "nvcf:bundleVersion"]);
    expect(r.error?.message).toMatch(
      /expected "0\.8\.0", the NVCF bundle control-plane stack organization\/nvcf\/dev runs/,
    );
    expect(r.error?.message).toMatch(
      /expected 0\.8\.0 or a later bundle: stack dev-gpu-a is deployed at NVCF bundle 0\.8\.0/,
    );
    expect(r.resources.filter((x) => x.custom && x.type !== "pulumi:pulumi:StackReference")).toEqual([]);
  });
});

test("a compute plane exports the bundle it reached", async () => {
  const cp = await render({ stack: "dev", gateways: GATEWAYS });
  const r = await render({
    stack: "dev-gpu-a",
    controlPlaneOutputs: cp.outputs,
    controlPlaneSecretOutputs: [...SECRET_OUTPUT_NAMES],
    previousOutputs: { bundleVersion: "0.7.0" },
  });
  expect(r.error).toBeUndefined();
  expect(r.outputs["bundleVersion"]).toBe("0.8.0");
});

// Last in this file: a render with moduleMocks resets the module registry, so classes imported above (ConfigError)
// are not the ones later renders throw.
describe("dev, 0.7.0 → 0.8.0: what the program reads for Cassandra's adoption", () => {
  test("the prepare step takes the StatefulSet the adoption works from as read by the program; verify does not", async () => {
    // Under the mocks nothing is read: "".
    const plain = await render({ stack: "dev", gateways: GATEWAYS, previousOutputs: deployed("0.7.0") });
    expect(env(byName(plain, "nvcf-cassandra-adoption-prepare"))["NVCFP_SOURCE_UID"]).toBe("");
    const read: unknown[] = [];
    const withSource = await render({
      stack: "dev",
      gateways: GATEWAYS,
      previousOutputs: deployed("0.7.0"),
      moduleMocks: {
        "recovery/recover": {
          cassandraAdoptionSource: (access: unknown, names: unknown) => {
            read.push(access, names);
            return Promise.resolve("uid-of-the-bitnami-statefulset");
          },
        },
      },
    });
    expect(withSource.error).toBeUndefined();
    expect(read).toEqual([
      { kubectl: "kubectl", context: "kwok-nvcf-dev" },
      {
        namespace: "cassandra-system",
        statefulSet: "cassandra",
        record: "nvcf-cassandra-adoption",
        bitnamiClaimLabel: "app.kubernetes.io/name",
      },
    ]);
    expect(env(byName(withSource, "nvcf-cassandra-adoption-prepare"))["NVCFP_SOURCE_UID"]).toBe(
      "uid-of-the-bitnami-statefulset",
    );
    expect(env(byName(withSource, "nvcf-cassandra-adoption-verify"))["NVCFP_SOURCE_UID"]).toBeUndefined();
  });
});
