/**
 * The nvcf policy pack (policy/): each policy with one passing and one violating resource, its message asserted.
 * The policies are called as the analyzer calls them (validateResource / validateStack with the argument bag of
 * @pulumi/policy), with the stack's config in PULUMI_CONFIG as the language host passes it.
 */
import type {
  PolicyResource,
  ResourceValidation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { secretValue } from "../../../policy/inputs";
import { RELEASE_TYPE } from "../../../catalog/releases";
import {
  POLICIES,
  chartVersionMatchesBundle,
  chartVersionPinned,
  imagesFromMirror,
  noPlaintextCredentials,
  pullSecretInReleaseNamespaces,
  releaseNamespaceFixed,
  routeHostnamesUnique,
  statefulReleaseProtected,
} from "../../../policy/policies";
import { resolveSettings } from "../../../policy/settings";

type Obj = Record<string, unknown>;

const urn = (stack: string, type: string, name: string) =>
  `urn:pulumi:${stack}::nvcf::nvcf:index:ControlPlane$nvcf:index:Release$${type}::${name}`;

/** Sets the stack config the analyzer would receive (PULUMI_CONFIG, `nvcf:` keys, values as strings). */
function stackConfig(cfg: Record<string, unknown>): void {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(cfg)) out[`nvcf:${k}`] = typeof v === "string" ? v : JSON.stringify(v);
  process.env["PULUMI_CONFIG"] = JSON.stringify(out);
}

const DEV_LIKE = {
  plane: "control",
  bundleVersion: "0.8.0",
  images: { registry: "registry.example.com", repository: "nvcf/mirror" },
  pullSecret: { name: "nvcr-pull-secret" },
  registryKey: "super-secret-registry-key-123",
};

beforeEach(() => stackConfig(DEV_LIKE));
afterAll(() => delete process.env["PULUMI_CONFIG"]);

interface ReleaseProps {
  name: string;
  chart?: string;
  version?: string;
  namespace?: string;
  values?: Obj;
}

/** Runs a resource policy on one Helm release; returns the violation messages. */
function checkRelease(
  policy: ResourceValidationPolicy,
  r: ReleaseProps,
  opts: { stack?: string; protect?: boolean; config?: Obj } = {},
): string[] {
  const out: string[] = [];
  const name = `nvcf-${r.name}`;
  const args = {
    type: RELEASE_TYPE,
    props: { chart: `helm-nvcf-${r.name}`, version: "1.0.0", namespace: "nvcf", values: {}, ...r },
    urn: urn(opts.stack ?? "prod", RELEASE_TYPE, name),
    name,
    opts: { protect: opts.protect ?? false, ignoreChanges: [], aliases: [], additionalSecretOutputs: [] },
    stackTags: new Map(),
    getConfig: () => opts.config ?? {},
  } as unknown as ResourceValidationArgs;
  (policy.validateResource as ResourceValidation)(args, (m) => out.push(m));
  return out;
}

const resource = (stack: string, type: string, name: string, props: Obj): PolicyResource =>
  ({
    type,
    props,
    urn: urn(stack, type, name),
    name,
    dependencies: [],
    propertyDependencies: {},
  }) as unknown as PolicyResource;

/** Runs a stack policy over resources; returns the violation messages. */
function checkStack(policy: StackValidationPolicy, resources: PolicyResource[], config: Obj = {}): string[] {
  const out: string[] = [];
  const args = { resources, stackTags: new Map(), getConfig: () => config } as unknown as StackValidationArgs;
  policy.validateStack(args, (m) => out.push(m));
  return out;
}

test("the pack holds the eight documented policies, each mandatory by default (no per-policy level)", () => {
  expect(POLICIES.map((p) => p.name)).toEqual([
    "chart-version-pinned",
    "chart-version-matches-bundle",
    "stateful-release-protected",
    "no-plaintext-credentials",
    "images-from-mirror",
    "pull-secret-in-release-namespaces",
    "release-namespace-fixed",
    "route-hostnames-unique",
  ]);
  for (const p of POLICIES) expect(p.enforcementLevel).toBeUndefined();
});

describe("chart-version-pinned", () => {
  test("an exact version passes (pre-release included)", () => {
    expect(checkRelease(chartVersionPinned, { name: "api", version: "1.25.1" })).toEqual([]);
    expect(
      checkRelease(chartVersionPinned, { name: "vanity-gateway", version: "0.1.0-nvcf-10204.1" }),
    ).toEqual([]);
  });
  test("a range is refused, naming the release, the value and the fix", () => {
    expect(checkRelease(chartVersionPinned, { name: "api", version: "^1.25.0" })).toEqual([
      'Release nvcf-api (Helm release "api") installs chart helm-nvcf-api with version "^1.25.0", which is not an ' +
        "exact version. Fix: pin one exact version, e.g. remove nvcf:charts.versionOverrides.api to use the bundle's, " +
        "or set it to an exact version (e.g. 1.2.3).",
    ]);
  });
});

describe("chart-version-matches-bundle", () => {
  test("the bundle's pin passes, and so does a documented override", () => {
    expect(checkRelease(chartVersionMatchesBundle, { name: "api", version: "1.25.1" })).toEqual([]);
    stackConfig({ ...DEV_LIKE, charts: { versionOverrides: { api: "1.25.2" } } });
    expect(checkRelease(chartVersionMatchesBundle, { name: "api", version: "1.25.2" })).toEqual([]);
  });
  test("another version is refused with the bundle's pin and the override command", () => {
    expect(checkRelease(chartVersionMatchesBundle, { name: "api", version: "1.23.9" })).toEqual([
      'Release nvcf-api (Helm release "api") installs chart helm-nvcf-api version 1.23.9; bundle 0.8.0 pins 1.25.1 ' +
        "(catalog/releases.ts). Fix: install 1.25.1, or record a hot fix with " +
        "pulumi config set --path nvcf:charts.versionOverrides.api 1.23.9.",
    ]);
  });
  test("the policy config can name the bundle to hold the stack to", () => {
    const msgs = checkRelease(
      chartVersionMatchesBundle,
      { name: "api", version: "1.25.1" },
      { config: { bundleVersion: "0.7.0" } },
    );
    expect(msgs[0]).toContain("bundle 0.7.0 pins 1.23.9");
  });
});

describe("stateful-release-protected", () => {
  test("a protected Cassandra passes; a dev stack may leave it unprotected", () => {
    expect(checkRelease(statefulReleaseProtected, { name: "cassandra" }, { protect: true })).toEqual([]);
    expect(checkRelease(statefulReleaseProtected, { name: "cassandra" }, { stack: "dev-gpu-a" })).toEqual([]);
    expect(checkRelease(statefulReleaseProtected, { name: "api" }, { stack: "prod" })).toEqual([]);
  });
  test("an unprotected Cassandra outside dev is refused", () => {
    expect(checkRelease(statefulReleaseProtected, { name: "cassandra" }, { stack: "prod" })).toEqual([
      'Release nvcf-cassandra (Helm release "cassandra") holds state (helm-nvcf-cassandra) but is not protected on ' +
        "stack prod (protect: false). Fix: remove nvcf:protectStatefulData false (or set it true) so the program " +
        "protects it; only dev stacks may run unprotected.",
    ]);
  });
  test("devStackPattern in the policy config decides what a dev stack is", () => {
    const msgs = checkRelease(
      statefulReleaseProtected,
      { name: "openbao-server" },
      { stack: "dev", config: { devStackPattern: "^sandbox-" } },
    );
    expect(msgs).toHaveLength(1);
  });
});

describe("no-plaintext-credentials", () => {
  const key = DEV_LIKE.registryKey;
  test("credentials placed as secrets pass", () => {
    const values = {
      api: {
        env: { KEY: secretValue(key), AUTH: secretValue(Buffer.from(`robot:${key}`).toString("base64")) },
      },
    };
    expect(checkRelease(noPlaintextCredentials, { name: "api", values })).toEqual([]);
  });
  test("a configured secret in plain text is refused without printing it", () => {
    const msgs = checkRelease(noPlaintextCredentials, {
      name: "api",
      values: { api: { env: { KEY: key } } },
    });
    expect(msgs).toEqual([
      'Release nvcf-api (Helm release "api") has values.api.env.KEY = <redacted, 29 characters> in plain text: it is ' +
        "the value of the secret config nvcf:registryKey. Fix: remove it from the values " +
        "(nvcf:releaseValues.api: api.env.KEY); set the credential with pulumi config set --secret (e.g. " +
        "nvcf:registryKey) and let the program place it as a secret.",
    ]);
    expect(msgs.join("")).not.toContain(key);
  });
  test("a base64 user:key and a Docker config JSON in plain text are refused", () => {
    const b64 = Buffer.from("robot:another-key-0001").toString("base64");
    const docker = JSON.stringify({ auths: { "nvcr.io": { auth: b64 } } });
    const msgs = checkRelease(noPlaintextCredentials, {
      name: "sis",
      values: { sis: { a: b64, b: docker } },
    });
    expect(msgs).toHaveLength(2);
    expect(msgs[0]).toContain(
      'values.sis.a = <redacted, 32 characters> in plain text: it is base64 of "robot:<key>"',
    );
    expect(msgs[1]).toContain("values.sis.b = <redacted,");
    expect(msgs[1]).toContain("it is a Docker config JSON");
    expect(msgs.join("")).not.toContain(b64);
  });
});

describe("images-from-mirror", () => {
  const release = (values: Obj) =>
    resource("prod", RELEASE_TYPE, "nvcf-api", {
      name: "api",
      chart: "helm-nvcf-api",
      namespace: "nvcf",
      values,
    });
  test("images under the mirror pass, in both shapes; upstream third-party images pass with thirdParty upstream", () => {
    const values = {
      api: { image: { registry: "registry.example.com", repository: "nvcf/mirror/nvcf-api" } },
      x: { image: "registry.example.com/nvcf/mirror/cert-manager:1.0" },
      otel: {
        collectorImage: {
          repository:
            "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib",
        },
      },
    };
    expect(checkStack(imagesFromMirror, [release(values)])).toEqual([]);
  });
  test("an image outside the mirror is refused", () => {
    expect(
      checkStack(imagesFromMirror, [release({ api: { image: { repository: "docker.io/evil/api" } } })]),
    ).toEqual([
      'Release nvcf-api (Helm release "api") runs image docker.io/evil/api (values.api.image), which is not under the ' +
        "image mirror registry.example.com/nvcf/mirror. Fix: copy the image into registry.example.com/nvcf/mirror and " +
        "point api.image at it (nvcf:releaseValues.api…), or set nvcf:images.thirdParty mirror for the program's " +
        "third-party images.",
    ]);
  });
  test("with thirdParty mirror, upstream images are refused too", () => {
    stackConfig({ ...DEV_LIKE, images: { ...DEV_LIKE.images, thirdParty: "mirror" } });
    const values = {
      image:
        "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.129.1",
    };
    expect(checkStack(imagesFromMirror, [release(values)])[0]).toContain(
      "runs image ghcr.io/open-telemetry/",
    );
  });
  test("a compute plane takes the mirror from its control plane's StackReference outputs", () => {
    stackConfig({ plane: "compute", controlPlaneStack: "org/nvcf/prod", clusterName: "gpu-a" });
    const ref = resource("prod-gpu", "pulumi:pulumi:StackReference", "control-plane", {
      name: "org/nvcf/prod",
      outputs: { imageRegistry: "registry.example.com", imageRepository: "nvcf/mirror" },
    });
    const op = (image: string) =>
      resource("prod-gpu", RELEASE_TYPE, "nvcf-nvca-operator", {
        name: "nvca-operator",
        namespace: "nvca-operator",
        values: { image },
      });
    expect(
      checkStack(imagesFromMirror, [ref, op("registry.example.com/nvcf/mirror/nvca-operator:1.21.3")]),
    ).toEqual([]);
    expect(checkStack(imagesFromMirror, [ref, op("quay.io/x/nvca-operator:1")])[0]).toContain(
      "runs image quay.io/x/nvca-operator:1 (values.image), which is not under the image mirror registry.example.com/nvcf/mirror",
    );
  });
});

describe("pull-secret-in-release-namespaces", () => {
  const rel = resource("prod", RELEASE_TYPE, "nvcf-api", {
    name: "api",
    namespace: "nvcf",
    values: {
      api: { image: { registry: "r", repository: "x" }, imagePullSecrets: [{ name: "nvcr-pull-secret" }] },
    },
  });
  const secret = (ns: string) =>
    resource("prod", "kubernetes:core/v1:Secret", `nvcf-pull-${ns}`, {
      metadata: { name: "nvcr-pull-secret", namespace: ns },
      type: "kubernetes.io/dockerconfigjson",
    });
  test("a release namespace with the pull secret passes; a release without images needs none", () => {
    expect(checkStack(pullSecretInReleaseNamespaces, [rel, secret("nvcf")])).toEqual([]);
    const routes = resource("prod", RELEASE_TYPE, "nvcf-ingress", {
      name: "ingress",
      namespace: "envoy-gateway-system",
      values: { domain: "x" },
    });
    expect(checkStack(pullSecretInReleaseNamespaces, [routes])).toEqual([]);
  });
  test("a release namespace without it is refused", () => {
    expect(checkStack(pullSecretInReleaseNamespaces, [rel, secret("sis")])).toEqual([
      'Release nvcf-api (Helm release "api") is in namespace nvcf, which has no pull secret nvcr-pull-secret (no ' +
        "kubernetes.io/dockerconfigjson Secret nvcf/nvcr-pull-secret in the stack). Fix: let the program create it " +
        "(nvcf:pullSecret.create true with nvcf:registryKey set; compute planes also list extra namespaces in " +
        "nvcf:pullSecretNamespaces).",
    ]);
  });
});

describe("release-namespace-fixed", () => {
  test("OpenBao in vault-system passes", () => {
    expect(
      checkRelease(releaseNamespaceFixed, { name: "openbao-server", namespace: "vault-system" }),
    ).toEqual([]);
  });
  test("OpenBao elsewhere is refused", () => {
    expect(checkRelease(releaseNamespaceFixed, { name: "openbao-server", namespace: "openbao" })).toEqual([
      'Release nvcf-openbao-server (Helm release "openbao-server") is in namespace openbao; the catalog puts it in ' +
        "vault-system (a fixed namespace: OpenBao's bound service-account namespaces and the other charts' service " +
        "URLs name it). Fix: install it into vault-system; release namespaces are not configurable.",
    ]);
  });
});

describe("route-hostnames-unique", () => {
  const routes = (vanityHosts: string[]) => ({
    nvcfGatewayRoutes: {
      domain: "nvcf.test",
      routes: { vanityGateway: { enabled: true, hostnames: vanityHosts } },
    },
  });
  test("distinct hostnames pass", () => {
    expect(
      checkRelease(routeHostnamesUnique, {
        name: "ingress",
        chart: "nvcf-gateway-routes",
        values: routes(["vanity.nvcf.test"]),
      }),
    ).toEqual([]);
  });
  test("a vanity hostname equal to the API's is refused", () => {
    expect(
      checkRelease(routeHostnamesUnique, {
        name: "ingress",
        chart: "nvcf-gateway-routes",
        values: routes(["api.nvcf.test"]),
      }),
    ).toEqual([
      'Release nvcf-ingress (Helm release "ingress") routes hostname api.nvcf.test twice: route nvcf-api and route ' +
        "vanity-gateway. Fix: give route vanity-gateway its own hostname (e.g. nvcf:addons.vanityGateway.hostnames or " +
        "nvcf:releaseValues.ingress.nvcfGatewayRoutes.routes.*.hostnames).",
    ]);
  });
});

test("settings: the stack's config through the program's schema, the policy config first", () => {
  const s = resolveSettings(
    "prod",
    { plane: "control", images: JSON.stringify({ registry: "r.example.com" }) },
    { pullSecretName: "mine" },
  );
  expect([s.bundleVersion, s.imageRegistry, s.imageRepository, s.pullSecretName, s.thirdParty]).toEqual([
    "0.8.0",
    "r.example.com",
    "YOUR_ORG/YOUR_TEAM",
    "mine",
    "upstream",
  ]);
});
