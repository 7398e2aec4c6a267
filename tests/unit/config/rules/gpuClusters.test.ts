/**
 * config/rules/gpuClusters.ts: the GPU clusters the control plane registers, through `validateConfig`.
 */
import { baseControl } from "../../fixtures/configs";
import { gw, j, problemsOf, ruleCases } from "../../support/rules";

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "GPU clusters need issuer discovery (docs/upstream-facts.md §4 row 26)",
      {
        gpuClusters: j([{ name: "gpu-a", context: "c" }]),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:openbao.issuerDiscovery",
      {
        gpuClusters: j([{ name: "gpu-a", context: "c" }]),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
        openbao: j({ issuerDiscovery: true }),
      },
    ],
    [
      "GPU clusters need a way to reach them",
      {
        gpuClusters: j([{ name: "gpu-a" }]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:gpuClusters[0].context",
      {
        gpuClusters: j([{ name: "gpu-a" }]),
        gpuClusterKubeconfigs: j({ "gpu-a": "apiVersion: v1" }),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
    ],
    [
      "GPU cluster names are unique",
      {
        gpuClusters: j([
          { name: "gpu-a", context: "c" },
          { name: "gpu-a", context: "d" },
        ]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
      "nvcf:gpuClusters[1].name",
      {
        gpuClusters: j([
          { name: "gpu-a", context: "c" },
          { name: "gpu-b", context: "d" },
        ]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
    ],
    [
      "GPU clusters need the NATS route",
      { gpuClusters: j([{ name: "gpu-a", context: "c" }]), openbao: j({ issuerDiscovery: true }) },
      "nvcf:gateway.routes.nats",
      {
        gpuClusters: j([{ name: "gpu-a", context: "c" }]),
        openbao: j({ issuerDiscovery: true }),
        gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
      },
    ],
  ]);
});

describe("the problems say what was expected, what was found and the fix", () => {
  const reachable = {
    openbao: j({ issuerDiscovery: true }),
    gateway: gw({ routes: { nats: true }, nats: { name: "g", namespace: "gw" } }),
  };

  test("a kubeconfig for a cluster that is not listed", () => {
    expect(
      problemsOf(
        baseControl({
          ...reachable,
          gpuClusters: j([{ name: "gpu-a", context: "c" }]),
          gpuClusterKubeconfigs: j({ "gpu-b": "apiVersion: v1" }),
        }),
      ),
    ).toEqual([
      {
        key: "nvcf:gpuClusterKubeconfigs.gpu-b",
        expected: "a kubeconfig for a cluster listed in nvcf:gpuClusters",
        found: '"gpu-b"',
        fix: "remove it or add the cluster to nvcf:gpuClusters",
      },
    ]);
  });

  test("without issuer discovery and the NATS route, both in that order", () => {
    expect(problemsOf(baseControl({ gpuClusters: j([{ name: "gpu-a", context: "c" }]) }))).toEqual([
      {
        key: "nvcf:openbao.issuerDiscovery",
        expected: "true when GPU clusters are registered (the CLI discovers the issuer)",
        found: "false",
        fix: "pulumi config set --path nvcf:openbao.issuerDiscovery true",
      },
      {
        key: "nvcf:gateway.routes.nats",
        expected: "true when GPU clusters are registered (NVCA reaches NATS through the gateway)",
        found: "false",
        fix: "pulumi config set --path nvcf:gateway.routes.nats true",
      },
    ]);
  });
});
