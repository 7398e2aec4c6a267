import * as path from "node:path";
import { mockGateway, render, sentinel } from "./harness";

process.env["KUBECONFIG"] = path.join(__dirname, "fixtures/kubeconfig");

test("dev renders", async () => {
  jest.setTimeout(60000);
  const r = await render({
    stack: "dev",
    secrets: { registryKey: sentinel("registryKey") },
    gateways: { "envoy-gateway/nvcf-gateway": mockGateway() },
  });
  if (r.error) throw r.error;
  console.log(r.resources.map((x) => `${x.type} ${x.name} <- ${x.parent} deps=${x.dependsOn.join(",")}`).join("\n"));
  console.log(JSON.stringify(r.outputs, null, 1).slice(0, 3000));
  console.log(r.secretOutputs);
});
