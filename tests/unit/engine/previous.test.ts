/**
 * engine/previous.ts: a stack reads its own previous outputs through a StackReference to itself.
 */
import * as pulumi from "@pulumi/pulumi";
import { previousOutputs, selfStackName } from "../../../engine/previous";

/** Mocks a stack `dev` whose reference to itself returns `outputs` (secret: the names in `secret`). */
function mockSelf(outputs: Record<string, unknown>, secret: string[] = []): string[] {
  const asked: string[] = [];
  pulumi.runtime.setMocks(
    {
      newResource(args) {
        if (args.type !== "pulumi:pulumi:StackReference") throw new Error(`unexpected ${args.type}`);
        asked.push(String(args.inputs.name));
        return {
          id: String(args.inputs.name),
          state: { name: args.inputs.name, outputs, secretOutputNames: secret },
        };
      },
      call(args) {
        throw new Error(`unmocked call ${args.token}`);
      },
    },
    "nvcf",
    "dev",
    false,
    "organization",
  );
  return asked;
}

test("the reference names this stack, fully qualified", () => {
  mockSelf({});
  expect(selfStackName()).toBe("organization/nvcf/dev");
});

test("a first update: nothing deployed, no values", async () => {
  const asked = mockSelf({});
  await expect(previousOutputs(["bundleVersion"])).resolves.toEqual({ deployed: false, values: {} });
  expect(asked).toEqual(["organization/nvcf/dev"]);
});

test("plain and secret outputs are returned by name; names not asked for are left out", async () => {
  mockSelf({ bundleVersion: "0.7.0", installed: { size: "10Gi" }, other: 1, fp: "abc" }, ["fp"]);
  await expect(previousOutputs(["bundleVersion", "installed", "fp", "missing"])).resolves.toEqual({
    deployed: true,
    values: { bundleVersion: "0.7.0", installed: { size: "10Gi" }, fp: "abc" },
  });
});
