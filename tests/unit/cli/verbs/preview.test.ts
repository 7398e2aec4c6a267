/**
 * The preview summary (cli/verbs/preview.ts) from engine events recorded from a real `pulumi preview` of the
 * dev control plane through the Automation API (tests/unit/fixtures/cli-preview-events.json), after four
 * config changes on a deployed dev stack: `releaseValues.api.api.replicaCount 2`,
 * `releaseValues.sis.sis.replicaCount 3`, `addons.nvcfUi.enabled true` and `gpuClusters[1].region eu-west-1`.
 * The recording keeps every step that changes something, three unchanged ones and the summary event, each
 * as the engine wrote it but without the resources' `outputs` (the summary reads inputs only) and with the
 * recording machine's kubeconfig path replaced by a home-directory one.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { displayValue, formatPreview, leafDiffs, stackChanges } from "../../../../cli/verbs/preview";

const events = JSON.parse(
  fs.readFileSync(path.join(__dirname, "../../fixtures/cli-preview-events.json"), "utf8"),
) as EngineEvent[];

test("the recorded preview: which releases change and which input, old → new", () => {
  const c = stackChanges("dev", events);
  expect(c.releases.map((r) => [r.op, r.name])).toEqual([
    ["update", "api"],
    ["update", "ingress"],
    ["create", "nvcf-ui"],
    ["update", "sis"],
  ]);
  expect(c.releases[1].inputs).toEqual([
    { path: "values.nvcfGatewayRoutes.routes.nvcfUi.enabled", kind: "update", from: "false", to: "true" },
  ]);
  expect(formatPreview([c, { stack: "dev-gpu-a", releases: [], others: [], notes: [] }])).toEqual([
    "dev: 4 releases and 3 other resources would change",
    "  ~ release api (upgrade): values.api.replicaCount: 2 (add)",
    "  ~ release ingress (upgrade): values.nvcfGatewayRoutes.routes.nvcfUi.enabled: false → true",
    "  + release nvcf-ui (install)",
    "  ~ release sis (upgrade): values.sis.replicaCount: 3 (add)",
    "  + kubernetes:core/v1:Namespace nvcf-ns-nvcf-ui (create)",
    "  + kubernetes:core/v1:Secret nvcf-pull-nvcf-ui (create)",
    // The registration is updated, not replaced: the line says what it runs; the whole-object diff names the
    // leaves inside it.
    "  ~ command:local:Command nvcf-register-gpu-b-register (update): runs nvcf-cli cluster register --name gpu-b " +
      "--region eu-west-1 --ignore-existing: clusterID and clusterGroupID are kept, the issuer and JWKS refreshed; " +
      "the GPU cluster's stack then gives its operator region eu-west-1 and restarts it (ICMS keeps us-east-1, the " +
      'region of the first registration); environment.NVCFP_REGION: "us-east-1" → "eu-west-1"',
    "dev-gpu-a: no changes",
    "1 of 2 stacks would change: 4 releases, 3 other resources",
  ]);
});

test("unchanged steps, reads, the stack and component resources are not listed", () => {
  const quiet = events.filter((e) => {
    const op = e.resourcePreEvent?.metadata.op;
    return op === "same" || op === "read" || e.summaryEvent;
  });
  expect(quiet.length).toBeGreaterThan(2);
  expect(stackChanges("dev", quiet)).toEqual({ stack: "dev", releases: [], others: [], notes: [] });
  expect(formatPreview([stackChanges("dev", quiet)])).toEqual(["dev: no changes", "no changes in 1 stack"]);
  const all = stackChanges("dev", events);
  expect([...all.releases, ...all.others].map((r) => r.type)).not.toContain("nvcf:index:Release");
});

test("the program's own information and warnings about the stack are listed under it, once each", () => {
  const stackUrn = "urn:pulumi:dev::nvcf::pulumi:pulumi:Stack::nvcf-dev";
  const diag = (severity: string, message: string, urn?: string, ephemeral?: boolean) =>
    ({
      sequence: 0,
      timestamp: 0,
      diagnosticEvent: { urn, message, severity, color: "never", ephemeral },
    }) as EngineEvent;
  const noted = [
    ...events,
    diag(
      "info",
      "nvcf:releaseValues.a.b is passed to chart c 1.0.0 unchecked (nvcf:releaseValuesUnchecked: the chart does not declare it)\n",
      stackUrn,
    ),
    diag("warning", "the engine's own warning", undefined),
    diag("warning", "nvcf:allowInstalledChanges[0] (cassandra.volumes): nothing of it changes", stackUrn),
    diag("warning", "nvcf:allowInstalledChanges[0] (cassandra.volumes): nothing of it changes", stackUrn),
    diag(
      "warning",
      "a release's own warning",
      "urn:pulumi:dev::nvcf::kubernetes:helm.sh/v3:Release::nvcf-api",
    ),
    diag("info", "progress", stackUrn, true),
    diag("error", "an error", stackUrn),
    // The server-side dry run: the API server's warnings on a release are listed, its summary note is not.
    diag(
      "warning",
      'server-side dry run of release api: update Deployment api/api: would violate PodSecurity "restricted:latest": runAsNonRoot != true',
      "urn:pulumi:dev::nvcf::kubernetes:helm.sh/v3:Release::nvcf-api",
    ),
    diag(
      "info",
      "server-side dry run of release api: 1 update, 1 record accepted",
      "urn:pulumi:dev::nvcf::kubernetes:helm.sh/v3:Release::nvcf-api",
    ),
  ];
  const c = stackChanges("dev", noted);
  expect(c.notes).toEqual([
    "nvcf:releaseValues.a.b is passed to chart c 1.0.0 unchecked (nvcf:releaseValuesUnchecked: the chart does not declare it)",
    "nvcf:allowInstalledChanges[0] (cassandra.volumes): nothing of it changes",
    'server-side dry run of release api: update Deployment api/api: would violate PodSecurity "restricted:latest": runAsNonRoot != true',
  ]);
  const lines = formatPreview([c, { stack: "dev-gpu-a", releases: [], others: [], notes: ["one note"] }]);
  expect(lines.slice(7, 13)).toEqual([
    expect.stringMatching(
      /^  ~ command:local:Command nvcf-register-gpu-b-register \(update\): runs nvcf-cli/,
    ),
    `  note: ${c.notes[0]}`,
    `  note: ${c.notes[1]}`,
    `  note: ${c.notes[2]}`,
    "dev-gpu-a: no changes",
    "  note: one note",
  ]);
});

test("the recording holds masked secrets, and nothing of them reaches the summary", () => {
  const text = JSON.stringify(events);
  expect(text).toContain('"[secret]"');
  const lines = formatPreview([stackChanges("dev", events)]).join("\n");
  expect(lines).not.toContain("4dabf18193072939515e22adb298388d");
});

test("values: secret markers, credential-like keys, objects and long values are not shown", () => {
  const inputs = {
    values: {
      api: { replicaCount: 2, image: { tag: "1.2.3" }, env: { NGC_API_KEY: "plain" } },
      sealed: "[secret]",
      signed: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "x" },
      long: "x".repeat(80),
      "dotted.key": true,
    },
  };
  expect(displayValue(inputs, "values.api.replicaCount")).toBe("2");
  expect(displayValue(inputs, "values.api.image.tag")).toBe('"1.2.3"');
  expect(displayValue(inputs, 'values["dotted.key"]')).toBe("true");
  expect(displayValue(inputs, "values.api.env.NGC_API_KEY")).toBe("[secret]");
  expect(displayValue(inputs, "values.sealed.password")).toBe("[secret]");
  expect(displayValue(inputs, "values.sealed.inner")).toBe("[secret]");
  expect(displayValue(inputs, "values.signed.value")).toBe("[secret]");
  expect(displayValue(inputs, "values.api.image")).toBeUndefined();
  expect(displayValue(inputs, "values.long")).toBeUndefined();
  expect(displayValue(inputs, "values.absent")).toBeUndefined();
  expect(leafDiffs({ a: 1, s: "[secret]" }, { a: 2, s: "[secret]" }, "env")).toEqual(["env.a"]);
  expect(leafDiffs("[secret]", "[secret]", "env")).toBeUndefined();
});
