/**
 * The control plane's steps that are not releases (catalog/steps.ts): every prerequisite names a control-plane
 * release or another step, has a kind of the graph's legend and a reason, and a condition the facts decide; the
 * steps exist and their edges hold under the facts of a first install, a move and an adopted Cassandra. Whether
 * the program's `dependsOn` follows these lists is tests/unit/stacks/stepGraph.test.ts.
 */
import { CONTROL_PLANE_RELEASES, type EnableFlag, NEED_KINDS } from "../../../catalog/releases";
import {
  CONTROL_PLANE_STEPS,
  STEP_KINDS,
  type StepConditions,
  activeStepNeeds,
  stepInPlace,
  stepSpec,
} from "../../../catalog/steps";
import type { ControlPlaneConfig } from "../../../config/schema";
import { stackReleases } from "../../../config/stackReleases";
import { validatedConfig } from "../support/harness";

const dev = () => stackReleases(validatedConfig<ControlPlaneConfig>("dev"));
const facts = (over: Partial<StepConditions> = {}): StepConditions => ({
  flags: dev().flags,
  openbaoPhase: false,
  cassandraAdopted: false,
  ...over,
});
const target = (n: ReturnType<typeof activeStepNeeds>[number]) => ("release" in n ? n.release : n.step);

test("every prerequisite names a control-plane release or another step, with a kind, a reason and a known condition", () => {
  const releases = new Set(
    CONTROL_PLANE_RELEASES.filter((r) => r.planes.includes("control")).map((r) => r.name),
  );
  const steps = new Set(CONTROL_PLANE_STEPS.map((s) => s.name));
  const flags = Object.keys(dev().flags);
  const conditions = [...flags, "openbaoPhase", "cassandraAdopted"];
  expect(steps.size).toBe(CONTROL_PLANE_STEPS.length);
  for (const s of CONTROL_PLANE_STEPS) {
    expect(s.what.length).toBeGreaterThan(0);
    if (s.when !== undefined) expect(conditions).toContain(s.when);
    for (const n of s.needs) {
      if ("release" in n) expect([s.name, releases.has(n.release)]).toEqual([s.name, true]);
      else expect([s.name, steps.has(n.step) && n.step !== s.name]).toEqual([s.name, true]);
      expect([...Object.keys(NEED_KINDS), ...Object.keys(STEP_KINDS)]).toContain(n.kind);
      expect(n.reason.length).toBeGreaterThan(10);
      if (n.when !== undefined) expect(conditions).toContain(n.when);
    }
  }
});

test("a release a step waits for that the config may leave out is conditional on the flag that turns it on", () => {
  for (const s of CONTROL_PLANE_STEPS)
    for (const n of s.needs) {
      if (!("release" in n)) continue;
      const enabled = CONTROL_PLANE_RELEASES.find((r) => r.name === n.release)!.enabled;
      if (enabled !== "always" && enabled !== "ingress")
        expect([s.name, n.release, n.when]).toEqual([s.name, n.release, enabled as EnableFlag]);
    }
});

test("a first install: the registration, the account settings and OpenBao's rollout, each after its releases", () => {
  const f = facts();
  expect(CONTROL_PLANE_STEPS.filter((s) => stepInPlace(s, f)).map((s) => s.name)).toEqual([
    "registration",
    "account-settings",
    "openbao-rollout",
  ]);
  expect(activeStepNeeds(stepSpec("registration"), f).map(target)).toEqual([
    "sis",
    "admin-issuer-proxy",
    "api-keys",
    "ingress",
    "openbao-server",
  ]);
  expect(activeStepNeeds(stepSpec("account-settings"), f).map(target)).toEqual([
    "api",
    "ingress",
    "admin-issuer-proxy",
    "api-keys",
    "openbao-server",
  ]);
  expect(activeStepNeeds(stepSpec("openbao-rollout"), f).map(target)).toEqual(["openbao-server"]);
  // Without OpenBao: no rollout, and no step waits for it.
  const off = facts({ flags: { ...dev().flags, openbao: false } });
  expect(stepInPlace(stepSpec("openbao-rollout"), off)).toBe(false);
  for (const s of CONTROL_PLANE_STEPS)
    expect(activeStepNeeds(s, off).map(target)).not.toContain("openbao-server");
});

test("Cassandra's adoption: in place while the data is adopted; after OpenBao's rollout only in a move that upgrades it", () => {
  const adopted = facts({ cassandraAdopted: true });
  expect(stepInPlace(stepSpec("cassandra-adoption-prepare"), adopted)).toBe(true);
  expect(stepInPlace(stepSpec("cassandra-adoption-verify"), facts())).toBe(false);
  expect(activeStepNeeds(stepSpec("cassandra-adoption-prepare"), adopted)).toEqual([]);
  expect(
    activeStepNeeds(stepSpec("cassandra-adoption-prepare"), { ...adopted, openbaoPhase: true }).map(target),
  ).toEqual(["openbao-rollout"]);
  expect(activeStepNeeds(stepSpec("cassandra-adoption-verify"), adopted).map(target)).toEqual(["cassandra"]);
});

test("an unknown step name is a programming error", () => {
  expect(() => stepSpec("nope" as never)).toThrow('unknown step "nope"');
});
