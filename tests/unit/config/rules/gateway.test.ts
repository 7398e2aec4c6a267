/**
 * config/rules/gateway.ts: the Gateways, the routes and the domain, through `validateConfig`.
 */
import { baseControl } from "../../fixtures/configs";
import { gw, j, problemsOf, ruleCases } from "../../support/rules";

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "gateway controller namespace required (docs/upstream-facts.md §4 row 19)",
      { gateway: j({ shared: { name: "g", namespace: "gw" }, grpc: { name: "g", namespace: "gw" } }) },
      "nvcf:gateway.controllerNamespace",
      { gateway: gw() },
    ],
    [
      "shared gateway name required",
      {
        gateway: j({
          controllerNamespace: "c",
          grpc: { name: "g", namespace: "gw" },
          shared: { namespace: "gw" },
        }),
      },
      "nvcf:gateway.shared.name",
      { gateway: gw() },
    ],
    [
      "grpc gateway namespace required",
      {
        gateway: j({ controllerNamespace: "c", shared: { name: "g", namespace: "gw" }, grpc: { name: "g" } }),
      },
      "nvcf:gateway.grpc.namespace",
      { gateway: gw() },
    ],
    [
      "nats gateway required when the NATS route is on",
      { gateway: gw({ routes: { nats: true } }) },
      "nvcf:gateway.nats.name",
      { gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }) },
    ],
    [
      "NATS route needs NATS",
      {
        nats: j({ enabled: false }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:gateway.routes.nats",
      { nats: j({ enabled: false }) },
    ],
    [
      "grpc worker route needs a CONNECT URL (docs/upstream-facts.md §4 row 34)",
      { gateway: gw({ routes: { grpcWorker: { enabled: true } } }) },
      "nvcf:grpcproxy.workerConnectBaseURL",
      {
        gateway: gw({ routes: { grpcWorker: { enabled: true } } }),
        grpcproxy: j({ workerConnectBaseURL: "grpc.example.com:10086" }),
      },
    ],
    [
      "vanity hostname equal to a standard route (docs/upstream-facts.md §4 rows 7-8)",
      { addons: j({ vanityGateway: { enabled: true, hostnames: ["api.nvcf.example.com"] } }) },
      "nvcf:addons.vanityGateway.hostnames",
      { addons: j({ vanityGateway: { enabled: true, hostnames: ["chat.nvcf.example.com"] } }) },
    ],
    [
      "localhost domain with remote access (docs/upstream-facts.md §4 row 20)",
      { domain: "localhost", remoteAccess: "true" },
      "nvcf:domain",
      { domain: "localhost" },
    ],
  ]);
});

describe("the problems say what was expected, what was found and the fix", () => {
  test("the NATS route with NATS off", () => {
    expect(
      problemsOf(
        baseControl({
          nats: j({ enabled: false }),
          gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
        }),
      ),
    ).toEqual([
      {
        key: "nvcf:gateway.routes.nats",
        expected: "false when nats.enabled is false",
        found: "true",
        fix: "turn the NATS route off or enable NATS",
      },
    ]);
  });

  test("a missing Gateway name and namespace, in the order shared then gRPC", () => {
    expect(
      problemsOf(baseControl({ gateway: j({ controllerNamespace: "c", shared: {}, grpc: { name: "g" } }) })),
    ).toEqual([
      {
        key: "nvcf:gateway.shared.name",
        expected: "the shared Gateway's name",
        found: "nothing",
        fix: "pulumi config set --path nvcf:gateway.shared.name nvcf-gateway",
      },
      {
        key: "nvcf:gateway.shared.namespace",
        expected: "the shared Gateway's namespace",
        found: "nothing",
        fix: "pulumi config set --path nvcf:gateway.shared.namespace envoy-gateway",
      },
      {
        key: "nvcf:gateway.grpc.namespace",
        expected: "the grpc Gateway's namespace",
        found: "nothing",
        fix: "pulumi config set --path nvcf:gateway.grpc.namespace envoy-gateway",
      },
    ]);
  });

  test("localhost when GPU clusters reach the control plane", () => {
    const p = problemsOf(baseControl({ domain: "localhost", remoteAccess: "true" }));
    expect(p).toEqual([
      {
        key: "nvcf:domain",
        expected: "a DNS suffix other than localhost when other clusters or clients reach the control plane",
        found: '"localhost"',
        fix: "pulumi config set nvcf:domain nvcf.example.com",
      },
    ]);
  });
});
