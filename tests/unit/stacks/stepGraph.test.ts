/**
 * The drawn graph (cli/graph.ts `releaseGraph`) and the program agree on the control plane's steps that are not
 * releases (catalog/steps.ts): for every example stack, the program (index.ts under Pulumi mocks) registers a
 * registration, account-settings or upgrade-step resource exactly where the graph draws a step node, and each such
 * resource's `dependsOn` is the list of the edges the graph draws into that node, in the same order. Checked for
 * a first install of every environment, and for the dev control plane's move from bundle 0.7.0 (OpenBao upgraded
 * first, Cassandra's data adopted) and the run after it (the data stays adopted), with the plan the program makes.
 */
import * as path from "node:path";
import { CONTROL_PLANE_STEPS } from "../../../catalog/steps";
import { listEnvironments, loadEnvironment } from "../../../cli/environment";
import { type ReleaseGraph, nodeId, releaseGraph } from "../../../cli/graph";
import { checkedStack } from "../../../cli/stacks";
import type { ControlPlaneConfig } from "../../../config/schema";
import { stackReleases } from "../../../config/stackReleases";
import { SECRET_OUTPUT_NAMES } from "../../../contract/controlPlane";
import { type PreviousUpgradeOutputs, controlSubject, planUpgrade } from "../../../upgrade/plan";
import {
  ROOT,
  type RenderResult,
  type Rendered,
  mockGateway,
  render,
  validatedConfig,
} from "../support/harness";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");
const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };

/** The registration command of a GPU cluster (components/registration.ts), named after its component. */
const REGISTRATION = /^nvcf-register-(.+)-register$/;
/** The command of the account settings that carries the component's `dependsOn` (components/accounts.ts). */
const ACCOUNT_LIMITS = "nvcf-account-limits";
/** The upgrade steps' resource names (components/upgradeSteps.ts): `nvcf-<step>`. */
const UPGRADE_STEPS = CONTROL_PLANE_STEPS.filter(
  (s) => !s.perGpuCluster && s.name !== "account-settings",
).map((s) => s.name);

/** The step resources of a control-plane render, each with the id of the graph node it is drawn as. */
function stepResources(r: RenderResult, stack: string): { resource: Rendered; node: string }[] {
  const out: { resource: Rendered; node: string }[] = [];
  for (const x of r.resources.filter((y) => y.type === "command:local:Command")) {
    const reg = REGISTRATION.exec(x.name);
    if (reg) out.push({ resource: x, node: nodeId(stack, `register-${reg[1]}`) });
    else if (x.name === ACCOUNT_LIMITS) out.push({ resource: x, node: nodeId(stack, "account-settings") });
    else {
      const step = UPGRADE_STEPS.find((s) => x.name === `nvcf-${s}`);
      if (step) out.push({ resource: x, node: nodeId(stack, step) });
    }
  }
  return out;
}

/** The ids of the step nodes the graph draws for a stack (every node that is neither a release nor a component edge's). */
function stepNodes(g: ReleaseGraph, stack: string): string[] {
  const group = g.groups.find((x) => x.id === nodeId(stack, "").replace(/__$/, ""));
  if (!group) throw new Error(`no group of stack ${stack} in the graph`);
  const steps = new Set(CONTROL_PLANE_STEPS.map((s) => nodeId(stack, s.name)));
  return group.nodes
    .map((n) => n.id)
    .filter((id) => steps.has(id) || id.startsWith(nodeId(stack, "register-")));
}

/**
 * Checks one control-plane render against the graph: the same step nodes, and each step resource's `dependsOn`
 * (resource names `nvcf-<release or step>`) equal, in order, to the sources of the graph's edges into its node.
 * Output: the number of step resources checked.
 */
function expectAgreement(r: RenderResult, g: ReleaseGraph, stack: string): number {
  expect(r.error).toBeUndefined();
  const steps = stepResources(r, stack);
  expect(steps.map((s) => s.node).sort()).toEqual(stepNodes(g, stack).sort());
  for (const { resource, node } of steps) {
    const drawn = g.edges.filter((e) => e.to === node).map((e) => e.from);
    const registered = resource.dependsOn.map((d) => nodeId(stack, d.replace(/^nvcf-/, "")));
    expect([resource.name, registered]).toEqual([resource.name, drawn]);
  }
  // The account's credential commands wait for its limits (inside the component, not drawn).
  for (const x of r.resources.filter((y) => y.name.startsWith("nvcf-account-credential-")))
    expect([x.name, x.dependsOn]).toEqual([x.name, [ACCOUNT_LIMITS]]);
  return steps.length;
}

/** The previous outputs of the dev control plane deployed at `bundle`: every release of it deployed. */
function deployed(bundle: string, layout?: string): PreviousUpgradeOutputs & Record<string, unknown> {
  const names = stackReleases(validatedConfig("dev", { bundleVersion: bundle })).inCatalogOrder.map(
    (r) => r.name,
  );
  return {
    bundleVersion: bundle,
    releases: Object.fromEntries(names.map((n) => [n, "deployed"])),
    ...(layout ? { cassandraDataLayout: layout } : {}),
  };
}

describe.each(listEnvironments(ROOT))("environment %s, a first install", (env) => {
  const e = loadEnvironment(ROOT, env);
  const g = releaseGraph(
    checkedStack(e.control),
    e.compute.map((s) => checkedStack(s)),
  );
  let control: RenderResult;
  beforeAll(async () => {
    control = await render({ stack: env, gateways: GATEWAYS });
  });

  test("each registration, account-settings and upgrade-step resource waits for what the graph draws into it", () => {
    // One registration per GPU cluster, the account settings and OpenBao's rollout (with OpenBao) at least.
    const gpus = (e.control.config["gpuClusters"] as unknown[] | undefined)?.length ?? 0;
    expect(expectAgreement(control, g, env)).toBeGreaterThanOrEqual(gpus + 1);
  });

  test.each(e.compute.map((s) => s.stack))(
    "compute stack %s: no step in the program, none drawn",
    async (stack) => {
      if (control.error) throw control.error;
      const r = await render({
        stack,
        controlPlaneOutputs: control.outputs,
        controlPlaneSecretOutputs: [...SECRET_OUTPUT_NAMES],
      });
      expect(r.error).toBeUndefined();
      expect(stepResources(r, stack)).toEqual([]);
      expect(stepNodes(g, stack)).toEqual([]);
    },
  );
});

describe.each([
  ["the move from 0.7.0 (OpenBao first, then Cassandra's adoption)", deployed("0.7.0")],
  ["the run after the move (data adopted, no move)", deployed("0.8.0", "bitnami")],
])("dev, %s", (_what, previous) => {
  const e = loadEnvironment(ROOT, "dev");
  // The plan the program makes from the same previous outputs (stacks/upgrade.ts `controlUpgradePlan`).
  const plan = planUpgrade(controlSubject(validatedConfig<ControlPlaneConfig>("dev"), "dev"), previous);
  const g = releaseGraph(
    checkedStack(e.control),
    e.compute.map((s) => checkedStack(s)),
    plan,
  );

  test("the adoption steps are drawn and registered, each after what the graph draws into it", async () => {
    const r = await render({ stack: "dev", gateways: GATEWAYS, previousOutputs: previous });
    expect(plan.cassandraAdopted).toBe(true);
    expect(stepNodes(g, "dev")).toEqual(
      expect.arrayContaining(["dev__cassandra_adoption_prepare", "dev__cassandra_adoption_verify"]),
    );
    expect(expectAgreement(r, g, "dev")).toBe(2 + 1 + 3);
    // In the move, the adoption waits for OpenBao's rollout; afterwards it waits for nothing.
    const into = g.edges.filter((x) => x.to === "dev__cassandra_adoption_prepare").map((x) => x.from);
    expect(into).toEqual(plan.moving ? ["dev__openbao_rollout"] : []);
  });
});
