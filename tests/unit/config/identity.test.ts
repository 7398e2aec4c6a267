/**
 * GPU-cluster identity kept across changes: the rule that refuses what a registration cannot take
 * (config/identity.ts), the decision of what an update of a registration runs (values/registration.ts, the
 * twin of components/registration.ts's update script), the rendered registration and operator-restart steps
 * under Pulumi mocks, and the preview lines that say what a step will run (cli/verbs/preview.ts).
 */
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { formatPreview, stackChanges, stepAction } from "../../../cli/verbs/preview";
import { identityEnvironment } from "../../../components/operatorRestart";
import { deployedRegistrations, identityProblems } from "../../../config/identity";
import { validateConfig } from "../../../config/load";
import { formatProblems } from "../../../config/problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";
import type { RegistrationRecord } from "../../../contract/controlPlane";
import { operatorIdentity } from "../../../values/compute";
import { describeRegistrationUpdate, registrationUpdate } from "../../../values/registration";
import { baseCompute, computeInputsFixture } from "../fixtures/configs";
import { mockGateway, render } from "../support/harness";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");
const GATEWAYS_FOR_TESTS = { "envoy-gateway/nvcf-gateway": mockGateway() };

const reg = (over: Partial<RegistrationRecord> = {}): RegistrationRecord => ({
  clusterID: "11111111-1111-5111-8111-111111111111",
  clusterGroupID: "22222222-2222-5222-8222-222222222222",
  ncaID: "nvcf-default",
  region: "us-west-1",
  identitySource: "psat",
  icmsServiceURL: "http://203.0.113.20",
  revalServiceURL: "http://203.0.113.20",
  natsURL: "nats://203.0.113.20:4222",
  ...over,
});

/** The two settings identityProblems reads (the rest of a control-plane config does not matter to it). */
const control = (over: { ncaId?: string } = {}) =>
  ({
    ncaId: over.ncaId ?? "nvcf-default",
    gpuClusters: [
      { name: "gpu-a", region: "us-west-1", context: "kwok-nvcf-gpu-a" },
      { name: "gpu-b", region: "us-east-1", context: "kwok-nvcf-gpu-b" },
    ],
  }) as unknown as ControlPlaneConfig;

describe("config/identity.ts: what a deployed registration cannot take", () => {
  test("deployed registrations: entries with a cluster ID and an NCA id, strings only; anything else is none", () => {
    expect(deployedRegistrations(undefined)).toEqual({});
    expect(deployedRegistrations("x")).toEqual({});
    expect(deployedRegistrations([reg()])).toEqual({});
    expect(
      deployedRegistrations({
        "gpu-a": reg(),
        "gpu-b": { clusterID: "c" },
        "gpu-c": null,
        "gpu-d": { ...reg(), region: 3 },
      }),
    ).toEqual({ "gpu-a": reg(), "gpu-d": { ...reg(), region: "" } });
  });

  test("the same account, a new region, a cluster added or removed: no problem", () => {
    const cfg = control();
    expect(identityProblems(cfg, {})).toEqual([]);
    expect(identityProblems(cfg, { "gpu-a": reg({ region: "eu-west-1" }) })).toEqual([]);
    expect(identityProblems(cfg, { "gpu-c": reg({ ncaID: "elsewhere" }) })).toEqual([]);
  });

  test("another NCA id for clusters that stay is one problem: key, deployed value, both ways out", () => {
    const cfg = control({ ncaId: "other-account" });
    const problems = identityProblems(cfg, {
      "gpu-a": reg(),
      "gpu-b": reg({ clusterID: "33333333-3333-5333-8333-333333333333" }),
    });
    expect(formatProblems("dev", problems).split("\n")).toEqual([
      'stack "dev" has 1 config problem; nothing was changed:',
      '  - nvcf:ncaId: expected "nvcf-default", the account GPU cluster(s) gpu-a (11111111-1111-5111-8111-111111111111), ' +
        "gpu-b (33333333-3333-5333-8333-333333333333) are registered in: a registration cannot move to another account " +
        "keeping its IDs (nvcf-cli has no command for it, and a new registration gets new IDs, orphaning the cluster's " +
        'function deployments), found "other-account". Fix: pulumi config set nvcf:ncaId nvcf-default. To really move ' +
        "gpu-a, gpu-b: remove them from nvcf:gpuClusters and pulumi up (deregisters them; undeploy their functions " +
        "first), then set nvcf:ncaId and add them back",
    ]);
  });
});

describe("values/registration.ts: what an update of a registration runs", () => {
  const change = (over: Partial<Parameters<typeof registrationUpdate>[0]> = {}) => ({
    recorded: reg(),
    ncaId: "nvcf-default",
    region: "us-west-1",
    icmsUrl: "http://203.0.113.20",
    ...over,
  });

  test("rotate when the values block stays; register for a new region or gateway, or nothing recorded; refuse a new account", () => {
    expect(registrationUpdate(change())).toBe("rotate");
    expect(registrationUpdate(change({ region: "eu-west-1" }))).toBe("register");
    expect(registrationUpdate(change({ icmsUrl: "http://198.51.100.7" }))).toBe("register");
    expect(registrationUpdate(change({ recorded: undefined }))).toBe("register");
    expect(registrationUpdate(change({ recorded: { ...reg(), clusterID: "" } }))).toBe("register");
    expect(registrationUpdate(change({ ncaId: "other" }))).toBe("refuse");
  });

  test("the sentences name the command and what it keeps", () => {
    expect(describeRegistrationUpdate("gpu-a", change())).toBe(
      "runs nvcf-cli cluster rotate --force on gpu-a's recorded cluster ID: ICMS gets the issuer and JWKS read " +
        "again from the cluster; clusterID and clusterGroupID are kept",
    );
    expect(describeRegistrationUpdate("gpu-a", change({ region: "eu-west-1" }))).toBe(
      "runs nvcf-cli cluster register --name gpu-a --region eu-west-1 --ignore-existing: clusterID and " +
        "clusterGroupID are kept, the issuer and JWKS refreshed; the GPU cluster's stack then gives its operator " +
        "region eu-west-1 and restarts it (ICMS keeps us-west-1, the region of the first registration)",
    );
    expect(describeRegistrationUpdate("gpu-a", change({ ncaId: "other" }))).toBe(
      "refused: gpu-a is registered in account nvcf-default; nvcf-cli cannot move a registration to account " +
        "other keeping its IDs",
    );
  });
});

describe("the operator's identity and its restart step", () => {
  const inputs = computeInputsFixture();
  const compute = (over: Record<string, string> = {}) =>
    validateConfig(baseCompute(over), new Set(["registryKey"]), "dev-gpu-a") as ComputePlaneConfig;

  test("identity: the region as sent to the chart (nvcaOperator.region wins), host overrides only when on", () => {
    const off = compute({ nvcaOperator: JSON.stringify({ hostHeaderOverrides: false }) });
    const { imageRegistry, imageRepository, ...identity } = inputs;
    expect([imageRegistry, imageRepository]).toEqual(["r", "p"]); // not part of the identity
    expect(operatorIdentity(off, inputs)).toEqual({ ...identity, icmsHost: "", revalHost: "", natsHost: "" });
    expect(operatorIdentity(compute(), inputs)).toEqual(identity);
    const on = operatorIdentity(compute({ nvcaOperator: JSON.stringify({ region: "ap-south-1" }) }), inputs);
    expect([on["region"], on["icmsHost"], on["revalHost"], on["natsHost"]]).toEqual([
      "ap-south-1",
      "sis.d",
      "reval.d",
      "nats.d",
    ]);
  });

  test("every identity field has its own environment variable", async () => {
    const pulumi = await import("@pulumi/pulumi");
    const id = operatorIdentity(compute(), inputs);
    const env = identityEnvironment(pulumi.output(id));
    const values = await Promise.all(
      Object.entries(env).map(([k, v]) => new Promise((res) => v.apply((x) => res([k, x])))),
    );
    expect(Object.fromEntries(values as [string, string][])).toEqual({
      NVCFP_CLUSTER_ID: "c1",
      NVCFP_CLUSTER_GROUP_ID: "g1",
      NVCFP_NCA_ID: "nvcf-default",
      NVCFP_REGION: "us-west-1",
      NVCFP_ICMS_URL: "http://gw",
      NVCFP_REVAL_URL: "http://gw",
      NVCFP_NATS_URL: "nats://gw:4222",
      NVCFP_ICMS_HOST: "sis.d",
      NVCFP_REVAL_HOST: "reval.d",
      NVCFP_NATS_HOST: "nats.d",
    });
    expect(Object.keys(env).length).toBe(Object.keys(id).length);
  });
});

describe("rendered under mocks", () => {
  const registrationStep = (r: Awaited<ReturnType<typeof render>>, cluster: string) =>
    r.resources.find((x) => x.name === `nvcf-register-${cluster}-register`)!;

  test("a registration step: create, update and delete scripts, no triggers (ignored in old states), no rotation input unless asked", async () => {
    const r = await render({ stack: "dev", gateways: GATEWAYS_FOR_TESTS });
    expect(r.error).toBeUndefined();
    const step = registrationStep(r, "gpu-a");
    expect(step.inputs["triggers"]).toBeUndefined();
    expect(step.ignoreChanges).toEqual(["triggers"]);
    expect(step.inputs["update"]).toBe('eval "$NVCFP_UPDATE_SCRIPT"');
    const env = step.inputs["environment"] as Record<string, string>;
    expect(env["NVCFP_UPDATE_SCRIPT"]).toContain("cluster rotate --cluster-id");
    expect(env["NVCFP_KUBECONFIG"]).toBe("[secret]");
    expect(Object.keys(env)).not.toContain("NVCFP_JWKS_ROTATION");
  });

  test("gpuClusters[].jwksRotation reaches only that cluster's step", async () => {
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS_FOR_TESTS,
      overrides: {
        gpuClusters: [
          {
            name: "gpu-a",
            region: "us-west-1",
            context: "kwok-nvcf-gpu-a",
            jwksRotation: "2026-07-01T10:00:00Z",
          },
          { name: "gpu-b", region: "us-east-1", context: "kwok-nvcf-gpu-b" },
        ],
      },
    });
    expect(r.error).toBeUndefined();
    const env = (c: string) => registrationStep(r, c).inputs["environment"] as Record<string, string>;
    expect(env("gpu-a")["NVCFP_JWKS_ROTATION"]).toBe("2026-07-01T10:00:00Z");
    expect(Object.keys(env("gpu-b"))).not.toContain("NVCFP_JWKS_ROTATION");
  });

  test("another NCA id than the deployed registrations' is refused before any registration or release", async () => {
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS_FOR_TESTS,
      overrides: { ncaId: "other-account" },
      previousOutputs: {
        clusterRegistrations: { "gpu-a": reg(), "gpu-b": reg({ region: "us-east-1" }) },
      },
    });
    expect(r.error?.name).toBe("ConfigError");
    expect(r.error?.message).toMatch(
      /^stack "dev" has 1 config problem; nothing was changed:\n {2}- nvcf:ncaId: /,
    );
    expect(r.resources.map((x) => x.type)).toEqual(["pulumi:pulumi:StackReference"]);
  });

  test("a deployed region differs: the update renders (no refusal), the step gets the new region", async () => {
    const r = await render({
      stack: "dev",
      gateways: GATEWAYS_FOR_TESTS,
      previousOutputs: { clusterRegistrations: { "gpu-a": reg({ region: "eu-west-1" }) } },
    });
    expect(r.error).toBeUndefined();
    const env = registrationStep(r, "gpu-a").inputs["environment"] as Record<string, string>;
    expect(env["NVCFP_REGION"]).toBe("us-west-1");
  });

  test("the compute plane restarts its operator after the operator's release, on an identity change only", async () => {
    const cp = await render({ stack: "dev", gateways: GATEWAYS_FOR_TESTS });
    const r = await render({ stack: "dev-gpu-a", controlPlaneOutputs: cp.outputs });
    expect(r.error).toBeUndefined();
    const step = r.resources.find((x) => x.name === "nvcf-operator-restart")!;
    expect(step.type).toBe("command:local:Command");
    expect(step.dependsOn).toEqual(["nvcf-nvca-operator"]);
    expect(step.inputs["create"]).toBe("true");
    expect(step.inputs["update"]).toBe('eval "$NVCFP_RESTART_SCRIPT"');
    const env = step.inputs["environment"] as Record<string, string>;
    const regs = cp.outputs["clusterRegistrations"] as Record<string, RegistrationRecord>;
    expect([env["NVCFP_CLUSTER_ID"], env["NVCFP_CLUSTER_GROUP_ID"], env["NVCFP_REGION"]]).toEqual([
      regs["gpu-a"].clusterID,
      regs["gpu-a"].clusterGroupID,
      regs["gpu-a"].region,
    ]);
    expect(env["NVCFP_RESTART_SCRIPT"]).toContain('k rollout restart "deployment/$NVCFP_DEPLOYMENT"');
    expect([env["NVCFP_NAMESPACE"], env["NVCFP_DEPLOYMENT"]]).toEqual(["nvca-operator", "nvca-operator"]);
  });
});

describe("preview lines say what a step will run", () => {
  // Steps shaped as the engine reports them (resourcePreEvent metadata), built here for each case.
  const REG_URN =
    "urn:pulumi:dev::nvcf::nvcf:index:ControlPlane$nvcf:index:ClusterRegistration$command:local:Command::nvcf-register-gpu-a-register";
  const env = (over: Record<string, string> = {}) => ({
    environment: {
      NVCFP_CLUSTER_NAME: "gpu-a",
      NVCFP_NCA_ID: "nvcf-default",
      NVCFP_REGION: "us-west-1",
      NVCFP_ICMS_URL: "http://203.0.113.20",
      NVCFP_KUBECONFIG: "[secret]",
      ...over,
    },
  });
  const step = (urn: string, old: Record<string, unknown>, next: Record<string, unknown>) =>
    ({
      resourcePreEvent: {
        metadata: {
          op: "update",
          urn,
          type: "command:local:Command",
          provider: "",
          old: { type: "command:local:Command", urn, custom: true, inputs: old },
          new: { type: "command:local:Command", urn, custom: true, inputs: next },
          diffs: ["environment"],
          detailedDiff: { environment: { diffKind: "update", inputDiff: true } },
        },
      },
    }) as unknown as EngineEvent;

  test("a region change is an update of the registration that re-registers, keeping the IDs", () => {
    const c = stackChanges("dev", [step(REG_URN, env(), env({ NVCFP_REGION: "eu-west-1" }))]);
    expect(formatPreview([c])).toEqual([
      "dev: 0 releases and 1 other resource would change",
      "  ~ command:local:Command nvcf-register-gpu-a-register (update): runs nvcf-cli cluster register --name gpu-a " +
        "--region eu-west-1 --ignore-existing: clusterID and clusterGroupID are kept, the issuer and JWKS refreshed; " +
        "the GPU cluster's stack then gives its operator region eu-west-1 and restarts it (ICMS keeps us-west-1, the " +
        'region of the first registration); environment.NVCFP_REGION: "us-west-1" → "eu-west-1"',
      "1 of 1 stack would change: 0 releases, 1 other resource",
    ]);
  });

  test("a rotation request runs cluster rotate; the operator's restart says why", () => {
    const rotation = step(REG_URN, env(), env({ NVCFP_JWKS_ROTATION: "2026-07-01T10:00:00Z" }));
    expect(stepAction(rotation.resourcePreEvent!.metadata, "update")).toMatch(
      /^runs nvcf-cli cluster rotate --force on gpu-a's recorded cluster ID/,
    );
    const urn =
      "urn:pulumi:dev-gpu-a::nvcf::nvcf:index:ComputePlane$command:local:Command::nvcf-operator-restart";
    const restart = step(
      urn,
      { environment: { NVCFP_REGION: "us-west-1" } },
      { environment: { NVCFP_REGION: "eu-west-1" } },
    );
    expect(formatPreview([stackChanges("dev-gpu-a", [restart])])[1]).toBe(
      "  ~ command:local:Command nvcf-operator-restart (update): runs kubectl rollout restart deployment/nvca-operator " +
        "-n nvca-operator: the operator reads the cluster identity only when it starts; " +
        'environment.NVCFP_REGION: "us-west-1" → "eu-west-1"',
    );
    const other = step(urn.replace("nvcf-operator-restart", "nvcf-drain"), {}, {});
    expect(stepAction(other.resourcePreEvent!.metadata, "update")).toBeUndefined();
  });
});
