/**
 * The inputs of every command resource (`command:local:Command`) of each example stack, against the reviewed
 * record in tests/unit/fixtures/commands/<stack>.yaml. A command's inputs are its scripts (components/scripts/, as
 * the components join them) and their environment: on a stack deployed before, an input that changes shows as an
 * update in `pulumi preview`, and the next `pulumi up` runs the command's `update` (its `create` when it has none).
 *
 * The registration commands (`ClusterRegistration`, components/registration.ts) are held harder: any change of
 * their inputs runs `nvcf-cli cluster rotate --force` (or a registration) for every GPU cluster of a deployed
 * stack, so they must stay byte for byte as they are; NVCF_UPDATE_COMMANDS rewrites the other records only.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isDeepStrictEqual } from "node:util";
import * as yaml from "js-yaml";
import { SECRET_OUTPUT_NAMES } from "../../../contract/controlPlane";
import { ROOT, type RenderResult, mockGateway, render } from "../support/harness";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");

const DIR = path.join(__dirname, "../fixtures/commands");
const UPDATE = "NVCF_UPDATE_COMMANDS=1 npx jest --selectProjects=unit -- tests/unit/stacks/commands.test.ts";
const header = (stack: string) =>
  [
    `# The inputs of stack ${stack}'s command resources as the program registers them (tests/unit/stacks/commands.test.ts).`,
    "# A value that changes shows as an update of that command in the preview of every deployed stack, and the next",
    "# `pulumi up` runs the command's update (or create). Regenerate only for a deliberate change, then review the diff:",
    `#   ${UPDATE}`,
    "# The registration commands (<cluster>-register) must never change: the test refuses a new record of them.",
  ].join("\n");

const stacks = fs
  .readdirSync(ROOT)
  .filter((f) => /^Pulumi\..+\.yaml$/.test(f))
  .map((f) => f.replace(/^Pulumi\.(.+)\.yaml$/, "$1"));
const isControl = (s: string) =>
  fs.readFileSync(path.join(ROOT, `Pulumi.${s}.yaml`), "utf8").includes("nvcf:plane: control");
const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };

const rendered = new Map<string, Promise<RenderResult>>();
/** A stack's render (once per stack); a compute stack reads its control plane's render (dev, or prod-eks). */
function renderStack(stack: string): Promise<RenderResult> {
  if (!rendered.has(stack)) {
    if (isControl(stack)) rendered.set(stack, render({ stack, gateways: GATEWAYS }));
    else
      rendered.set(
        stack,
        renderStack(stack.startsWith("prod") ? "prod-eks" : "dev").then((cp) => {
          if (cp.error) throw cp.error;
          return render({
            stack,
            controlPlaneOutputs: cp.outputs,
            controlPlaneSecretOutputs: [...SECRET_OUTPUT_NAMES],
          });
        }),
      );
  }
  return rendered.get(stack)!;
}

type Commands = Record<string, Record<string, unknown>>;

/** The command resources of a render by name, their inputs as the harness resolved them (secrets masked). */
function commandsOf(r: RenderResult): Commands {
  return Object.fromEntries(
    r.resources
      .filter((x) => x.type === "command:local:Command")
      .map((x) => [x.name, x.inputs] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** The names of the registration commands: children of a ClusterRegistration. */
function registrationCommands(r: RenderResult): string[] {
  const components = new Set(
    r.resources.filter((x) => x.type === "nvcf:index:ClusterRegistration").map((x) => x.name),
  );
  return r.resources
    .filter((x) => x.type === "command:local:Command" && components.has(x.parent ?? ""))
    .map((x) => x.name);
}

const dump = (stack: string, c: Commands) =>
  `${header(stack)}\n${yaml.dump(c, { lineWidth: -1, noRefs: true, sortKeys: true })}`;
const read = (stack: string): Commands | undefined => {
  const file = path.join(DIR, `${stack}.yaml`);
  return fs.existsSync(file) ? (yaml.load(fs.readFileSync(file, "utf8")) as Commands) : undefined;
};

describe.each(stacks)("stack %s", (stack) => {
  let r: RenderResult;
  beforeAll(async () => {
    r = await renderStack(stack);
    expect(r.error).toBeUndefined();
  });

  test("the registration commands' inputs are those recorded, byte for byte", () => {
    const want = read(stack);
    if (want === undefined) throw new Error(`tests/unit/fixtures/commands/${stack}.yaml is missing`);
    const got = commandsOf(r);
    for (const name of registrationCommands(r)) {
      expect(want[name]).toBeDefined();
      // Written out so that a failure names the input that moved.
      expect({ name, inputs: got[name] }).toEqual({ name, inputs: want[name] });
    }
  });

  test(`every command's inputs are those of tests/unit/fixtures/commands/${stack}.yaml`, () => {
    const got = commandsOf(r);
    const file = path.join(DIR, `${stack}.yaml`);
    if (process.env["NVCF_UPDATE_COMMANDS"] === "1") {
      if (process.env["CI"])
        throw new Error("NVCF_UPDATE_COMMANDS rewrites the command records: never in CI");
      const before = read(stack) ?? {};
      for (const name of registrationCommands(r))
        if (name in before && !isDeepStrictEqual(before[name], got[name]))
          throw new Error(`${name}: the registration's inputs changed; its record is not rewritten`);
      fs.mkdirSync(DIR, { recursive: true });
      fs.writeFileSync(file, dump(stack, got));
    }
    const want = read(stack);
    if (want === undefined)
      throw new Error(
        `tests/unit/fixtures/commands/${stack}.yaml is missing; write it on purpose with: ${UPDATE}`,
      );
    expect(got).toEqual(want);
  });
});
