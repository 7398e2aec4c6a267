/**
 * The drift summary (cli/verbs/drift.ts) from engine events recorded from a real refresh-preview (`pulumi preview
 * --refresh` through the Automation API) of the deployed dev control plane on the local cluster, after four changes:
 * `helm upgrade reval --reuse-values --set reval.securityContext.runAsUser=1000` (a release changed behind the
 * program's back), `kubectl delete secret nvcr-pull-secret -n nvcf` (an object deleted), `kubectl scale deployment
 * api-keys --replicas 3` (an object of a release edited with kubectl) and `pulumi config set --path
 * nvcf:releaseValues.sis.sis.replicaCount 3` (a config change not applied yet). The recording
 * (tests/unit/fixtures/cli-drift-events.json) keeps the events of those resources, of two the program only reads
 * (its own stack's previous outputs, the Gateway) and the summary; of the Helm releases only the inputs and outputs
 * that name what is installed, and no outputs of steps other than refreshes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { formatDrift, outsideChanges, stackDrift } from "../../../../cli/verbs/drift";
import { RELEASE_TYPE } from "../../../../catalog/releases";

const events = JSON.parse(
  fs.readFileSync(path.join(__dirname, "../../fixtures/cli-drift-events.json"), "utf8"),
) as EngineEvent[];

test("the recorded refresh-preview: the release upgraded by hand, the deleted Secret and the pending change", () => {
  const d = stackDrift("dev", events);
  expect(d.items.map((i) => [i.kind, i.type, i.name])).toEqual([
    ["changed", RELEASE_TYPE, "reval"],
    ["pending", RELEASE_TYPE, "sis"],
    ["deleted", "kubernetes:core/v1:Secret", "nvcf-pull-nvcf"],
  ]);
  const reval = d.items[0];
  expect(reval.revision).toEqual({ state: 1, cluster: 2 });
  expect(reval.outside).toEqual(["values.reval.securityContext.runAsUser: 65532 → 1000"]);
  expect(reval.back?.op).toBe("update");
});

test("what a release's refresh cannot see: a Deployment of api-keys scaled with kubectl is not reported", () => {
  const refreshed = events.filter((e) => e.resOutputsEvent?.metadata.urn.endsWith("::nvcf-api-keys"));
  // The release was refreshed (its record read) and found as the state holds it.
  expect(refreshed.map((e) => e.resOutputsEvent?.metadata.op)).toContain("refresh");
  expect(stackDrift("dev", events).items.map((i) => i.name)).not.toContain("api-keys");
});

test("resources the program only reads (stack reference, Gateway lookup) are never drift", () => {
  const readUrns = events
    .map((e) => e.resourcePreEvent?.metadata)
    .filter((m) => m?.op === "read")
    .map((m) => m?.urn);
  expect(readUrns.length).toBeGreaterThan(0);
  const names = stackDrift("dev", events).items.map((i) => i.name);
  expect(names).not.toContain("previous-outputs");
  expect(names).not.toContain("nvcf-gateway-envoy-gateway-nvcf-gateway");
});

test("the summary: a line per stack, per release and object, and the total with the command that puts it back", () => {
  const lines = formatDrift(
    "dev",
    [stackDrift("dev", events), { stack: "dev-gpu-a", items: [] }],
    [],
    [{ stack: "dev-gpu-b", why: "never deployed" }],
  );
  expect(lines).toEqual([
    "dev: 2 releases and 1 other object differ",
    "  ! release reval: changed outside the program (Helm revision 1 → 2): values.reval.securityContext.runAsUser: " +
      "65532 → 1000; nvcf up --refresh upgrades it back: values.reval.securityContext.runAsUser: 65532",
    "  ~ release sis: not applied yet (the program asks for other than its last update applied); nvcf up --refresh upgrades it: " +
      "values.sis.replicaCount: 3 (add)",
    "  - kubernetes:core/v1:Secret nvcf-pull-nvcf: deleted outside the program; nvcf up --refresh creates it again",
    "dev-gpu-a: no drift",
    "dev-gpu-b: not checked: never deployed",
    "drift in 1 of 3 stacks: 2 releases, 1 other object. nvcf up --env dev --refresh puts it back (nvcf preview --env dev --refresh shows how)",
  ]);
  expect(formatDrift("dev", [{ stack: "dev", items: [] }], ["dev-gpu-a"])).toEqual([
    "dev: no drift",
    "dev-gpu-a: drift check FAILED (see above)",
    "no drift in 1 stack; 1 stack failed",
  ]);
});

test("outsideChanges: the API server's bookkeeping is not drift; secrets stay masked; a release compares what is installed", () => {
  const old = {
    metadata: { name: "x", resourceVersion: "1", labels: { a: "1" } },
    data: "[secret]",
    status: { phase: "Active" },
  };
  const next = {
    metadata: { name: "x", resourceVersion: "9", labels: { a: "2" } },
    data: "[secret]",
    status: { phase: "Terminating" },
  };
  expect(outsideChanges("kubernetes:core/v1:Namespace", old, next)).toEqual(['metadata.labels.a: "1" → "2"']);
  expect(
    outsideChanges(
      "kubernetes:core/v1:Secret",
      { data: { k: "[secret]" } },
      { data: { k: "[secret]", j: "[secret]" } },
    ),
  ).toEqual(["data.j: (none) → [secret]"]);
  expect(
    outsideChanges(
      RELEASE_TYPE,
      { version: "1.0.0", values: { a: { password: "p1" } }, timeout: 300, status: { revision: 1 } },
      { version: "1.1.0", values: { a: { password: "p2" } }, timeout: 600, status: { revision: 2 } },
    ),
  ).toEqual(['version: "1.0.0" → "1.1.0"', "values.a.password: [secret] → [secret]"]);
  expect(outsideChanges(RELEASE_TYPE, undefined, { version: "1" })).toEqual([]);
});
