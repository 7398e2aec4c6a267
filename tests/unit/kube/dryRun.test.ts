/**
 * The preview's server-side dry run, its pure parts: how an API server refusal is classified and printed
 * (kube/dryRun.ts `classifyRefusal`, config/refusals.ts), how the patch metadata is read from OpenAPI v3
 * (kube/apiServer.ts `openapiPatchMeta`), what is redacted and what a release's input digest depends on
 * (engine/dryRun.ts), and that the `nvcf` command finds the refusal list in the engine's output
 * (cli/automation.ts `configProblemLines`). The Status bodies are the API server's own answers to dry-run requests
 * on the local clusters (Kubernetes v1.33), with names shortened.
 */
import type { ApiResponse } from "../../../kube/apiServer";
import { openapiPatchMeta } from "../../../kube/apiServer";
import {
  changedFields,
  classifyRefusal,
  describeRef,
  hookEvents,
  kindsDefined,
  refOf,
} from "../../../kube/dryRun";
import type { DryRunFinding } from "../../../kube/dryRun";
import { DryRunRefusal, fixFor, formatRefusal, formatRefusals } from "../../../config/refusals";
import { inputDigest, redact, templateOptions, withoutNulls } from "../../../engine/dryRun";
import { configProblemLines } from "../../../cli/automation";

const status = (code: number, body: Record<string, unknown>): ApiResponse => ({
  status: code,
  body: { kind: "Status", apiVersion: "v1", status: "Failure", code, ...body },
  warnings: [],
});

describe("classifyRefusal", () => {
  test("a ValidatingAdmissionPolicy: the policy and binding as the rule, its message as the cause", () => {
    const r = status(422, {
      reason: "Invalid",
      message: `deployments.apps "api-keys" is forbidden: ValidatingAdmissionPolicy 'one-replica' with binding 'one-replica-in-api-keys' denied request: workloads in api-keys run one replica`,
    });
    expect(classifyRefusal(r)).toEqual({
      rule: "ValidatingAdmissionPolicy one-replica, binding one-replica-in-api-keys",
      cause: "workloads in api-keys run one replica",
    });
  });

  test("an admission webhook (NVCA's chart validation): the webhook's name and its message", () => {
    const r = status(400, {
      reason: "BadRequest",
      message: `admission webhook "validate-helm-charts.nvca.nvcf.nvidia.io" denied the request: container app has no resource limits`,
    });
    expect(classifyRefusal(r)).toEqual({
      rule: "admission webhook validate-helm-charts.nvca.nvcf.nvidia.io",
      cause: "container app has no resource limits",
    });
  });

  test("a ResourceQuota: the quota's name and the counts", () => {
    const r = status(403, {
      reason: "Forbidden",
      message: `secrets "sh.helm.release.v1.api-keys.v3" is forbidden: exceeded quota: secrets-cap, requested: count/secrets=1, used: count/secrets=4, limited: count/secrets=4`,
    });
    expect(classifyRefusal(r)).toEqual({
      rule: "ResourceQuota secrets-cap",
      cause: "requested: count/secrets=1, used: count/secrets=4, limited: count/secrets=4",
    });
  });

  test("an immutable field: the field, the leaf that changes with both values, the API server's verdict; the fix names the object", () => {
    const r = status(422, {
      reason: "Invalid",
      message: `Deployment.apps "api-keys" is invalid: spec.selector: Invalid value: {"matchLabels":{"app.kubernetes.io/name":"v2"}}: field is immutable`,
      details: {
        name: "api-keys",
        group: "apps",
        kind: "Deployment",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: `Invalid value: {"matchLabels":{"app.kubernetes.io/name":"v2"}}: field is immutable`,
            field: "spec.selector",
          },
        ],
      },
    });
    const target = { spec: { selector: { matchLabels: { "app.kubernetes.io/name": "v2", app: "a" } } } };
    const live = { spec: { selector: { matchLabels: { "app.kubernetes.io/name": "v1", app: "a" } } } };
    const c = classifyRefusal(r, target, live);
    expect(c).toEqual({
      rule: "immutable field",
      fields: ["spec.selector"],
      cause: `spec.selector cannot change in place: spec.selector.matchLabels["app.kubernetes.io/name"] ("v1" → "v2") (API server: field is immutable)`,
    });
    const f: DryRunFinding = {
      level: "refusal",
      release: "api-keys",
      action: "update",
      object: "Deployment api-keys/api-keys",
      ...c,
    };
    expect(formatRefusal(f)).toBe(
      `release api-keys: update Deployment api-keys/api-keys: ${c.cause} (immutable field). ` +
        "Fix: keep spec.selector as deployed, or delete the object first (kubectl delete deployment api-keys -n api-keys: its pods are replaced when the update creates it anew; docs/installed-settings.md)",
    );
  });

  test("a StatefulSet's forbidden update names the fields outside the updatable ones; its volumes take the documented procedure", () => {
    const r = status(422, {
      reason: "Invalid",
      message: `StatefulSet.apps "cassandra" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden`,
    });
    const live = {
      spec: {
        replicas: 3,
        volumeClaimTemplates: [{ spec: { resources: { requests: { storage: "10Gi" } } } }],
      },
    };
    const target = {
      spec: {
        replicas: 5,
        volumeClaimTemplates: [{ spec: { resources: { requests: { storage: "20Gi" } } } }],
      },
    };
    const c = classifyRefusal(r, target, live);
    expect(c.rule).toBe("immutable field");
    expect(c.fields).toEqual(["spec.volumeClaimTemplates"]);
    expect(c.cause).toBe(
      'spec.volumeClaimTemplates cannot change in place: spec.volumeClaimTemplates[0].spec.resources.requests.storage ("10Gi" → "20Gi") ' +
        "(API server: updates to a StatefulSet may change only replicas, template, updateStrategy and a few more)",
    );
    const fix = fixFor({
      level: "refusal",
      release: "cassandra",
      action: "update",
      object: "StatefulSet cassandra-system/cassandra",
      ...c,
    });
    expect(fix).toMatch(
      /^grow each PersistentVolumeClaim .*--cascade=orphan \(pods and claims stay\) \(docs\/installed-settings\.md\)$/,
    );
  });

  test("RBAC, a LimitRange, Pod Security enforcement and a failed request each get their rule", () => {
    expect(
      classifyRefusal(
        status(403, {
          reason: "Forbidden",
          message: `secrets is forbidden: User "ci" cannot create resource "secrets" in API group "" in the namespace "api-keys"`,
        }),
      ).rule,
    ).toBe("RBAC");
    expect(
      classifyRefusal(
        status(403, {
          reason: "Forbidden",
          message: `pods "p" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`,
        }),
      ).rule,
    ).toBe("LimitRange");
    expect(
      classifyRefusal(
        status(403, {
          reason: "Forbidden",
          message: `pods "p" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true`,
        }),
      ).rule,
    ).toBe("Pod Security admission");
    expect(
      classifyRefusal({ status: 0, body: undefined, warnings: [], error: "connect ECONNREFUSED" }),
    ).toEqual({
      rule: "no answer",
      cause: "connect ECONNREFUSED",
    });
  });

  test("a validation error lists each field with its message", () => {
    const r = status(422, {
      reason: "Invalid",
      message: `Service "x" is invalid: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`,
      details: {
        causes: [
          {
            field: "spec.ports[0].port",
            message: "Invalid value: 0: must be between 1 and 65535, inclusive",
          },
        ],
      },
    });
    expect(classifyRefusal(r)).toEqual({
      rule: "validation",
      cause: "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
    });
  });
});

test("changedFields compares only what the target sets, and names keys with dots in brackets", () => {
  expect(
    changedFields(
      { a: { "x.y/z": 1, b: 2 }, c: [1, 2] },
      { a: { "x.y/z": 1, b: 3, d: 4 }, c: [1, 3] },
      "spec",
    ),
  ).toEqual(["spec.a.b (3 → 2)", "spec.c[1] (3 → 2)"]);
  expect(changedFields({ a: 1 }, {}, "spec")).toEqual(["spec.a (unset → 1)"]);
});

test("object identity, hook events and the kinds a CRD defines", () => {
  const hook = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: "init",
      namespace: "ns",
      annotations: { "helm.sh/hook": "post-install, post-upgrade" },
    },
  };
  expect(refOf(hook)).toEqual({ group: "batch", kind: "Job", namespace: "ns", name: "init" });
  expect(describeRef(refOf(hook))).toBe("Job ns/init");
  expect(describeRef({ group: "", kind: "Namespace", name: "x" })).toBe("Namespace x");
  expect(hookEvents(hook)).toEqual(["post-install", "post-upgrade"]);
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    spec: {
      group: "keda.sh",
      names: { kind: "ScaledObject" },
      versions: [{ name: "v1alpha1" }, { name: "v1beta1", served: false }],
    },
  };
  expect(kindsDefined(crd)).toEqual(["keda.sh/v1alpha1/ScaledObject"]);
});

test("openapiPatchMeta reads the patch strategy and merge key through $ref and allOf", () => {
  const schemas = {
    "io.k8s.api.apps.v1.DeploymentSpec": {
      properties: {
        template: { allOf: [{ $ref: "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec" }] },
      },
    },
    "io.k8s.api.core.v1.PodTemplateSpec": {
      properties: { spec: { allOf: [{ $ref: "#/components/schemas/io.k8s.api.core.v1.PodSpec" }] } },
    },
    "io.k8s.api.core.v1.PodSpec": {
      properties: {
        containers: {
          type: "array",
          items: { allOf: [{ $ref: "#/components/schemas/io.k8s.api.core.v1.Container" }] },
          "x-kubernetes-patch-merge-key": "name",
          "x-kubernetes-patch-strategy": "merge",
        },
      },
    },
    "io.k8s.api.core.v1.Container": {
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-patch-merge-key": "containerPort",
          "x-kubernetes-patch-strategy": "merge",
        },
        args: { type: "array" },
      },
    },
  };
  const root = { properties: { spec: { $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec" } } };
  const meta = openapiPatchMeta(root, schemas);
  expect(meta(["spec", "template", "spec", "containers"])).toEqual({
    strategies: ["merge"],
    mergeKey: "name",
  });
  expect(meta(["spec", "template", "spec", "containers", "[]", "ports"])).toEqual({
    strategies: ["merge"],
    mergeKey: "containerPort",
  });
  expect(meta(["spec", "template", "spec", "containers", "[]", "args"])).toEqual({ strategies: [] });
  expect(meta(["spec", "nothing"])).toBeUndefined();
});

describe("what a failed preview prints", () => {
  const refusals: DryRunFinding[] = [
    {
      level: "refusal",
      release: "api-keys",
      action: "create",
      object: "ScaledObject api-keys/api-keys",
      rule: "kind not served",
      cause:
        "the cluster does not serve keda.sh/v1alpha1 ScaledObject: no API group version or CRD defines it",
    },
    {
      level: "refusal",
      release: "api-keys",
      action: "record",
      object: "Secret api-keys/sh.helm.release.v1.api-keys.v3",
      rule: "ResourceQuota secrets-cap",
      cause: "requested: count/secrets=1, used: count/secrets=4, limited: count/secrets=4.",
    },
  ];

  test("a header naming the stack and the count, one line per refusal with its fix; the nvcf command finds it", () => {
    const text = formatRefusals("dev", refusals);
    expect(text.split("\n")).toEqual([
      'stack "dev": the cluster refuses 2 changes of this preview (server-side dry run); nothing was changed:',
      "  - release api-keys: create ScaledObject api-keys/api-keys: the cluster does not serve keda.sh/v1alpha1 ScaledObject: no API group version or CRD defines it (kind not served). Fix: install the CRD or enable the API that serves it before this update, or turn off the setting that renders the object",
      "  - release api-keys: record Secret api-keys/sh.helm.release.v1.api-keys.v3: requested: count/secrets=1, used: count/secrets=4, limited: count/secrets=4 (ResourceQuota secrets-cap). Fix: raise the quota, or have the release create fewer or smaller objects there",
    ]);
    // As the engine prints it in the Diagnostics, indented under the stack's resource.
    const engineOutput = `Diagnostics:\n  pulumi:pulumi:Stack (nvcf-dev):\n    error: ${text.split("\n").join("\n    ")}\n\nResources:\n`;
    expect(configProblemLines(engineOutput)).toEqual(text.split("\n"));
    expect(new DryRunRefusal("dev", refusals).message).toBe(text);
    expect(formatRefusals("dev", refusals.slice(0, 1)).split("\n")[0]).toBe(
      'stack "dev": the cluster refuses 1 change of this preview (server-side dry run); nothing was changed:',
    );
  });
});

describe("secrets and digests", () => {
  test("redact replaces a secret and its base64 form, the longest first, and leaves short strings alone", () => {
    const secret = "s3cret-password";
    const b64 = Buffer.from(secret).toString("base64");
    expect(redact(`password ${secret} data ${b64} abc`, [secret, "abc"])).toBe(
      "password [secret] data [secret] abc",
    );
  });

  test("a release's input digest changes with its values and version, not with ignored paths or key order", () => {
    const inputs = {
      releaseName: "api-keys",
      chart: {
        kind: "local",
        chart: "./tests/charts/helm-nvcf-api-keys",
        credentials: false,
        origin: "nvcf",
        decidedBy: "charts.path",
      },
      version: "1.6.0",
      ignoredValuePaths: ["global.checksum"],
    } as Parameters<typeof inputDigest>[0];
    const base = inputDigest(inputs, "api-keys", { a: 1, b: { c: 2 } }, undefined);
    expect(inputDigest(inputs, "api-keys", { b: { c: 2 }, a: 1 }, undefined)).toBe(base);
    expect(inputDigest(inputs, "api-keys", { a: 1, global: { checksum: "x" } }, undefined)).toBe(
      inputDigest(inputs, "api-keys", { a: 1, global: { checksum: "y" } }, undefined),
    );
    expect(inputDigest(inputs, "api-keys", { a: 2, b: { c: 2 } }, undefined)).not.toBe(base);
    expect(
      inputDigest({ ...inputs, version: "1.6.1" }, "api-keys", { a: 1, b: { c: 2 } }, undefined),
    ).not.toBe(base);
    expect(inputDigest(inputs, "api-keys", { a: 1, b: { c: 2 } }, "pw")).not.toBe(base);
  });

  test("withoutNulls drops null leaves as the provider does before Helm sees the values", () => {
    expect(withoutNulls({ a: null, b: { c: null, d: 1 }, e: [{ f: null }] })).toEqual({
      b: { d: 1 },
      e: [{}],
    });
  });
});

describe("how a release is rendered for the dry run: as its helm.v3.Release fetches the chart", () => {
  const base = { version: "1.6.0", releaseName: "api-keys" };
  const resolved = { namespace: "api-keys", values: { a: 1, b: null }, password: "chart-pass" };
  const chart = (kind: "local" | "oci" | "https", ref: string, repo?: string, credentials = false) => ({
    kind,
    chart: ref,
    ...(repo ? { repo } : {}),
    credentials,
    origin: "nvcf" as const,
    decidedBy: "charts.source",
  });

  test("a local chart by its directory, relative to the project; no fetch options", () => {
    expect(
      templateOptions({ ...base, chart: chart("local", "./tests/charts/x") }, resolved, true, "/p"),
    ).toEqual({
      path: "/p/tests/charts/x",
      version: "1.6.0",
      namespace: "api-keys",
      release_name: "api-keys",
      values: { a: 1 },
      skip_crd_rendering: true,
    });
  });

  test("an OCI chart by its reference, with the NVCF credentials when the location takes them", () => {
    const opts = templateOptions(
      {
        ...base,
        chart: chart("oci", "oci://nvcr.io/org/helm-nvcf-api-keys", undefined, true),
        username: "$oauthtoken",
      },
      resolved,
      false,
    );
    expect(opts).toMatchObject({
      chart: "oci://nvcr.io/org/helm-nvcf-api-keys",
      skip_crd_rendering: false,
      fetch_opts: { username: "$oauthtoken", password: "chart-pass" },
    });
    expect(opts).not.toHaveProperty("path");
  });

  test("an HTTPS chart by name and repository, anonymous when the location takes no credentials", () => {
    expect(
      templateOptions(
        { ...base, chart: chart("https", "kai-scheduler", "https://charts.example.com") },
        { namespace: "kai", values: {} },
        true,
      ),
    ).toMatchObject({ chart: "kai-scheduler", fetch_opts: { repo: "https://charts.example.com" } });
  });
});
