/**
 * nvcf-cli hand-off (docs/upstream-facts.md §2.7, §3.1, §3.3): parsing real-shaped `cluster register` output, the CLI
 * config the program writes, and kubeconfig extraction for registration.
 */
import * as yaml from "js-yaml";
import { HELM_VALUES_MARKER, cliConfigYaml, parseRegistration } from "../../../values/registration";
import { kubeContextEntries, kubeconfigServer, minifyKubeconfig } from "../../../kube/kubeconfig";
import { registerOutput } from "../support/harness";

describe("parseRegistration", () => {
  test("skips summary lines, the marker and the hint; returns typed values", () => {
    const out = registerOutput("gpu-a", "us-east-1");
    expect(out).toContain(HELM_VALUES_MARKER);
    const r = parseRegistration(out);
    expect(r).toEqual({
      clusterID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      clusterGroupID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ncaID: "nvcf-default",
      region: "us-east-1",
      identitySource: "psat",
      icmsServiceURL: "http://203.0.113.10",
      revalServiceURL: "http://203.0.113.10",
      natsURL: "nats://203.0.113.10:4222",
    });
  });
  test("quoted values and CRLF line ends", () => {
    const out =
      'Cluster ID: x\r\n--- Helm values for nvca-operator ---\r\nclusterID: "abc"\r\nclusterGroupID: "def"\r\nregion: eu\r\n';
    expect(parseRegistration(out)).toMatchObject({ clusterID: "abc", clusterGroupID: "def", region: "eu" });
  });
  test("an output without the values block fails (as the Makefile does)", () => {
    expect(() => parseRegistration("Error: cluster already exists\n")).toThrow(/no Helm values/);
  });
  test("empty IDs fail (docs/upstream-facts.md §4 row 15)", () => {
    expect(() => parseRegistration('clusterID: ""\nclusterGroupID: g\n')).toThrow(
      /empty clusterID or clusterGroupID/,
    );
  });
});

test("the CLI config carries the gateway URL and the host-header overrides, no secret (docs/upstream-facts.md §3.1)", () => {
  const doc = yaml.load(
    cliConfigYaml({
      gatewayUrl: "http://gw",
      hosts: { api: "api.d", apiKeys: "api-keys.d", sis: "sis.d", invocation: "invocation.d" },
      ncaId: "nca",
    }),
  ) as Record<string, string>;
  expect(doc).toEqual({
    base_http_url: "http://gw",
    invoke_url: "http://gw",
    api_keys_service_url: "http://gw",
    icms_url: "http://gw",
    api_keys_host: "api-keys.d",
    api_host: "api.d",
    icms_host: "sis.d",
    invoke_host: "invocation.d",
    api_keys_service_id: "nvidia-cloud-functions-ncp-service-id-aketm",
    api_keys_issuer_service: "nvcf-api",
    api_keys_owner_id: "svc@nvcf-api.local",
    client_id: "nca",
  });
});

describe("minifyKubeconfig", () => {
  const a = yaml.dump({
    clusters: [
      { name: "c1", cluster: { server: "https://one:6443", "certificate-authority": "pki/ca.crt" } },
    ],
    users: [{ name: "u1", user: { "client-certificate": "/abs/u.crt", "client-key": "/abs/u.key" } }],
    contexts: [{ name: "ctx1", context: { cluster: "c1", user: "u1" } }],
  });
  const b = yaml.dump({
    clusters: [{ name: "c2", cluster: { server: "https://two:6443" } }],
    users: [{ name: "u2", user: { token: "t" } }],
    contexts: [{ name: "ctx2", context: { cluster: "c2", user: "u2" } }],
  });
  const files: Record<string, string> = { "pki/ca.crt": "CA", "/abs/u.crt": "CERT", "/abs/u.key": "KEY" };

  test("extracts one context across files and inlines certificate files", () => {
    const m = minifyKubeconfig([a, b], "ctx1", (p) => Buffer.from(files[p]));
    expect(m.server).toBe("https://one:6443");
    const doc = yaml.load(m.yaml) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(doc["current-context"]).toBe("ctx1");
    expect(doc.clusters).toEqual([
      {
        name: "c1",
        cluster: {
          server: "https://one:6443",
          "certificate-authority-data": Buffer.from("CA").toString("base64"),
        },
      },
    ]);
    expect(doc.users[0].user).toEqual({
      "client-certificate-data": Buffer.from("CERT").toString("base64"),
      "client-key-data": Buffer.from("KEY").toString("base64"),
    });
    expect(kubeconfigServer(m.yaml)).toBe("https://one:6443");
  });
  test("a second file's context", () => {
    expect(minifyKubeconfig([a, b], "ctx2").server).toBe("https://two:6443");
  });
  test("a missing context is named", () => {
    expect(() => minifyKubeconfig([a, b], "nope")).toThrow(/kubeconfig context "nope" not found/);
  });
  test("a context naming a cluster no file defines is refused", () => {
    const c = yaml.dump({ contexts: [{ name: "ctx3", context: { cluster: "nowhere", user: "u2" } }] });
    expect(() => minifyKubeconfig([a, b, c], "ctx3")).toThrow(/names a cluster or user that does not exist/);
  });
});

describe("kubeContextEntries", () => {
  test("the first file that defines a name wins, as kubectl merges", () => {
    const docs = [
      {
        contexts: [{ name: "x", context: { cluster: "k", user: "u" } }],
        clusters: [{ name: "k", cluster: { server: "https://first" } }],
      },
      {
        contexts: [{ name: "x", context: { cluster: "other", user: "other" } }],
        clusters: [{ name: "k", cluster: { server: "https://second" } }],
        users: [{ name: "u", user: { token: "t" } }],
      },
    ];
    const e = kubeContextEntries(docs, "x");
    expect(e?.cluster).toEqual({ server: "https://first" });
    expect(e?.user).toEqual({ token: "t" });
    expect(e?.clusterEntry?.name).toBe("k");
  });
  test("missing pieces are undefined; documents of another shape define nothing; nothing throws", () => {
    expect(kubeContextEntries([null, "text", [], { contexts: "no" }], "x")).toBeUndefined();
    const bare = kubeContextEntries([{ contexts: [{ name: "x" }, null] }], "x");
    expect(bare).toEqual({
      context: { name: "x" },
      cluster: undefined,
      clusterEntry: undefined,
      user: undefined,
      userEntry: undefined,
    });
    const noUser = kubeContextEntries(
      [{ contexts: [{ name: "x", context: { cluster: "k", user: "u" } }], clusters: [{ name: "k" }] }],
      "x",
    );
    expect([noUser?.cluster, noUser?.user]).toEqual([{}, undefined]);
  });
  test("kubeconfigServer: the current context's cluster, else the first cluster, else empty", () => {
    const two = {
      clusters: [
        { name: "a", cluster: { server: "https://a" } },
        { name: "b", cluster: { server: "https://b" } },
      ],
      contexts: [{ name: "cb", context: { cluster: "b", user: "u" } }],
    };
    expect(kubeconfigServer(yaml.dump({ ...two, "current-context": "cb" }))).toBe("https://b");
    expect(kubeconfigServer(yaml.dump(two))).toBe("https://a");
    expect(kubeconfigServer("")).toBe("");
  });
});
