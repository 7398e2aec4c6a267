/**
 * The `nvcf` command (`npx nvcf <verb> --env <env>`, launched by cli/nvcf.js): operates an environment, one
 * control-plane stack and the compute-plane stacks that reference it, as one thing.
 *
 * Verbs: preview, drift, init, up, upgrade, rehearse, destroy, rotate, preflight, status, graph (this file wires them;
 * each lives in cli/verbs/) and import-helmfile (cli/importHelmfile). Start-up loads only commander and the environment reader; a
 * verb loads the Automation API or the checks when it runs. Exit codes: cli/types.ts `EXIT` (usage errors,
 * including commander's own, exit EXIT.usage; a CliError its code; anything else EXIT.internal).
 */
import { Command, CommanderError, InvalidArgumentError, Option, type OptionValues } from "commander";
import { loadEnvironment } from "./environment";
import { CliError } from "./report";
import { EXIT, type Environment, type ExitCode } from "./types";

/** The verbs defined here (import-helmfile is registered by its own module). */
export const VERBS = [
  "preview",
  "drift",
  "init",
  "up",
  "upgrade",
  "rehearse",
  "destroy",
  "rotate",
  "preflight",
  "status",
  "graph",
] as const;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number of at least 1");
  return n;
}

const collect = (value: string, previous: string[]) => [...previous, value];

interface Common {
  env: string;
  cwd?: string;
}

/**
 * Builds the command. `setCode` receives each verb's exit code; `write`/`writeErr` receive commander's
 * output (help, usage errors). `withImportHelmfile: false` skips loading the import-helmfile module (a
 * known verb of this file is being run).
 */
export function buildProgram(
  setCode: (code: ExitCode) => void,
  io: { write: (s: string) => void; writeErr: (s: string) => void },
  withImportHelmfile = true,
): Command {
  const program = new Command("nvcf")
    .description(
      "Operate an NVCF environment (a control-plane stack and the GPU-cluster stacks that reference it) as one thing.",
    )
    .exitOverride()
    .configureOutput({ writeOut: io.write, writeErr: io.writeErr })
    .showHelpAfterError("(run nvcf <verb> --help for the options)")
    .addHelpText(
      "after",
      "\nExit codes: 0 ok, 1 internal error, 2 usage, 3 config, 4 preflight, 5 deployment, 6 health, 7 drift (drift found something, or preview --expect-no-changes found changes).",
    );

  const verb = (name: string, description: string) =>
    program
      .command(name)
      .description(description)
      .requiredOption("--env <env>", "the environment: its control-plane stack's name (Pulumi.<env>.yaml)")
      .option("--cwd <dir>", "the project directory (where Pulumi.yaml is)", process.cwd());
  const env = (o: Common): Environment => loadEnvironment(o.cwd ?? process.cwd(), o.env);
  const parallel = () =>
    new Option("--parallel <n>", "how many GPU-cluster stacks run at once").argParser(positiveInt).default(4);
  const stacks = () =>
    new Option("--stack <stack>", "only this stack of the environment (repeatable)")
      .argParser(collect)
      .default([]);
  const policy = () =>
    new Option(
      "--policy-pack <dir>",
      "run this policy pack with the engine (repeatable; also NVCF_POLICY_PACKS, comma-separated)",
    )
      .argParser(collect)
      .default([]);
  const verifySeconds = () =>
    new Option(
      "--verify-seconds <n>",
      "how long verification keeps re-checking while something is not healthy yet (the NVCA operator " +
        "reports its agent healthy within about 10 minutes of its install)",
    )
      .argParser(positiveInt)
      .default(600);
  const kubeconfig = () =>
    new Option("--kubeconfig <file>", "kubeconfig for the checks (default: $KUBECONFIG)").default(
      process.env["KUBECONFIG"],
      "$KUBECONFIG",
    );

  verb("preview", "preview every stack and summarise which releases change and why")
    .addOption(stacks())
    .addOption(parallel())
    .addOption(policy())
    .option("--expect-no-changes", `exit ${EXIT.drift} when anything would change`)
    .option(
      "--refresh",
      "refresh first, in memory: compare with the clusters, not the state (nothing is written)",
    )
    .option("--json", "print the summary as JSON")
    .action(async (o) => {
      const { preview } = await import("./verbs/preview");
      setCode(await preview(env(o), { ...o, policyPack: o.policyPack, stack: o.stack }));
    });

  verb(
    "drift",
    "refresh-preview every stack (nothing is written) and list each release and object changed behind the program's back",
  )
    .addOption(stacks())
    .addOption(parallel())
    .option("--json", "print the findings as JSON")
    .action(async (o) => {
      const { drift } = await import("./verbs/drift");
      setCode(await drift(env(o), o));
    });

  program
    .command("init")
    .description(
      "create a new environment: the control plane's and each GPU cluster's stack files and stacks, its secrets, then preflight",
    )
    .requiredOption("--env <env>", "the new environment: its control-plane stack's name (Pulumi.<env>.yaml)")
    .option("--cwd <dir>", "the project directory (where Pulumi.yaml is)", process.cwd())
    .option("--domain <domain>", "the domain of the routes (nvcf:domain), e.g. nvcf.example.com")
    .option("--context <context>", "the control-plane cluster's kubeconfig context")
    .addOption(
      new Option(
        "--gpu-cluster <name=context>",
        "a GPU cluster and its kubeconfig context; its stack is <env>-<name> (repeatable)",
      )
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option("--region <name=region>", "a GPU cluster's region (repeatable; default us-west-1)")
        .argParser(collect)
        .default([]),
    )
    .option(
      "--registry <host/repository>",
      "where the images come from (nvcf:images), e.g. nvcr.io/my-org/my-team",
    )
    .option(
      "--charts <source>",
      "where NVIDIA's charts come from: oci://<registry>/<repository>, https://<Helm repository URL>, or a directory",
    )
    .option(
      "--chart-user <user>",
      "registry user for chart pulls (password: --secret chartRegistryPassword=…)",
    )
    .option("--image-user <user>", "registry user of the image pull secret (default $oauthtoken)")
    .option("--bundle <version>", "the NVCF bundle (default: the newest the program knows)")
    .option("--gateway <namespace/name>", "the Gateway the routes attach to", "envoy-gateway/nvcf-gateway")
    .option(
      "--gateway-controller-namespace <namespace>",
      "the gateway controller's namespace",
      "envoy-gateway-system",
    )
    .option(
      "--nvcf-cli <path>",
      "the nvcf-cli the control plane registers GPU clusters with (default: on PATH)",
    )
    .option(
      "--org <org>",
      "organization of the stack references (a DIY backend's is organization)",
      "organization",
    )
    .addOption(
      new Option(
        "--set <stack:key=value>",
        "any other setting of one stack, as pulumi config set --path (repeatable)",
      )
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        "--secret <[stack:]key=env:VAR|file:PATH>",
        "a secret key, read from an environment variable or a file, written encrypted (repeatable; stack: the control plane)",
      )
        .argParser(collect)
        .default([]),
    )
    .option(
      "--secrets-provider <provider>",
      "the stacks' secrets provider (default: passphrase), e.g. awskms://…",
    )
    .option("--no-preflight", "do not run preflight after creating the stacks")
    .addOption(kubeconfig())
    .action(async (o) => {
      const { init } = await import("./verbs/init");
      setCode(await init(o));
    });

  /** The options of the verbs that deploy (up, upgrade), after their own. */
  const deploying = (c: Command) =>
    c
      .addOption(parallel())
      .addOption(policy())
      .addOption(kubeconfig())
      .addOption(verifySeconds())
      .option("--yes", "do not ask for confirmation (required when not interactive)")
      .option("--plain", "plain progress lines even on a terminal")
      .option(
        "--rehearse",
        "first run the same change on throwaway replicas of the clusters (nvcf rehearse); go on only when it passes",
      );
  /**
   * A deploying verb's action: with `--rehearse`, `nvcf rehearse` with the verb's options first, and the verb only
   * when the rehearsal passed (its exit code otherwise).
   */
  const deployAction =
    (run: (e: Environment, o: OptionValues) => Promise<ExitCode>) => async (o: OptionValues) => {
      const e = env(o as Common);
      if (o["rehearse"]) {
        const { rehearse } = await import("./verbs/rehearse");
        const code = await rehearse(e, {
          stack: o["stack"] as string[] | undefined,
          to: o["to"] as string | undefined,
          set: o["set"] as string[] | undefined,
          parallel: o["parallel"] as number,
          policyPack: o["policyPack"] as string[] | undefined,
          refresh: o["refresh"] as boolean | undefined,
        });
        if (code !== EXIT.ok) {
          process.stderr.write("the rehearsal failed: nothing was changed\n");
          return setCode(code);
        }
      }
      setCode(await run(e, o));
    };

  deploying(
    verb("up", "preflight, the control plane, the GPU clusters in parallel, then verification")
      .addOption(stacks())
      .option(
        "--refresh",
        "refresh every stack first: put back what was changed or deleted behind the program's back (nvcf drift)",
      ),
  ).action(
    deployAction(async (e, o) => {
      const { up } = await import("./verbs/up");
      return up(e, o as Parameters<typeof up>[1]);
    }),
  );

  deploying(
    verb(
      "upgrade",
      "move the deployed environment to another NVCF bundle: checks, plan, control plane, GPU clusters, verification",
    )
      .requiredOption("--to <bundle>", "the NVCF bundle to move to (one bundle after the deployed one)")
      .addOption(
        new Option(
          "--set <stack:key=value>",
          "a config change that goes with the bundle change, written to that stack's file like `pulumi config set --path` (repeatable)",
        )
          .argParser(collect)
          .default([]),
      ),
  ).action(
    deployAction(async (e, o) => {
      const { upgrade } = await import("./verbs/upgrade");
      return upgrade(e, o as Parameters<typeof upgrade>[1]);
    }),
  );

  verb(
    "rehearse",
    "run nvcf up (or nvcf upgrade --to) on throwaway local replicas of the environment's clusters and report; the live clusters are only read",
  )
    .addOption(stacks())
    .addOption(parallel())
    .addOption(policy())
    .option("--to <bundle>", "rehearse nvcf upgrade --to <bundle> instead of nvcf up")
    .addOption(
      new Option(
        "--set <stack:key=value>",
        "with --to: a config change that goes with the bundle change (repeatable)",
      )
        .argParser(collect)
        .default([]),
    )
    .option(
      "--kubeconfig <file>",
      "kubeconfig the live clusters are read through, contexts named as the stacks name them (a read-only identity is enough; default: $KUBECONFIG)",
    )
    .action(async (o) => {
      const { rehearse } = await import("./verbs/rehearse");
      setCode(await rehearse(env(o), o));
    });

  verb("destroy", "destroy the GPU-cluster stacks (drained), then the control plane")
    .addOption(stacks())
    .addOption(parallel())
    .option("--yes", "do not ask for confirmation (required when not interactive)")
    .option("--plain", "plain progress lines even on a terminal")
    .action(async (o) => {
      const { destroy } = await import("./verbs/destroy");
      setCode(await destroy(env(o), o));
    });

  verb(
    "rotate",
    "refresh a GPU cluster's OIDC issuer and JWKS in ICMS, keeping its IDs (nvcf-cli cluster rotate)",
  )
    .requiredOption("--cluster <name>", "the GPU cluster (its name in the control plane's nvcf:gpuClusters)")
    .option("--yes", "do not ask for confirmation (required when not interactive)")
    .option("--plain", "plain progress lines even on a terminal")
    .action(async (o) => {
      const { rotate } = await import("./verbs/rotate");
      setCode(await rotate(env(o), o));
    });

  verb("preflight", "check every prerequisite of the environment's clusters; touches nothing")
    .addOption(kubeconfig())
    .option("--json", "print the findings as JSON")
    .option("--verbose", "also print the checks that pass")
    .action(async (o) => {
      const { preflight } = await import("./verbs/checks");
      setCode(await preflight(env(o), o));
    });

  verb("status", "verify the deployed environment: releases, workloads, hooks, routes, GPU clusters")
    .addOption(kubeconfig())
    .option("--json", "print the findings as JSON")
    .option("--verbose", "also print the checks that pass")
    .action(async (o) => {
      const { status } = await import("./verbs/checks");
      setCode(await status(env(o), o));
    });

  verb("graph", "write the release dependency graph of the environment")
    .addOption(
      new Option("--format <format>", "output format").choices(["mermaid", "svg"]).default("mermaid"),
    )
    .option("--output <file>", "write to this file instead of stdout")
    .action(async (o) => {
      const { graph } = await import("./verbs/graph");
      setCode(await graph(env(o), o));
    });

  if (withImportHelmfile) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { registerImportHelmfile } = require("./importHelmfile") as typeof import("./importHelmfile");
    registerImportHelmfile(program);
  }
  return program;
}

/**
 * Runs the command line `argv` (as process.argv: node, script, verb, …) and resolves to the exit code.
 * Never throws: a CliError prints its lines to stderr (a one-line message as `error: <message>`, a
 * formatted list such as a stack's config problems exactly as given); other errors print `internal error:`
 * and the message (the stack trace only with NVCF_DEBUG=1).
 */
export async function main(
  argv: string[],
  io: { write: (s: string) => void; writeErr: (s: string) => void } = {
    write: (s) => process.stdout.write(s),
    writeErr: (s) => process.stderr.write(s),
  },
): Promise<ExitCode> {
  let code: ExitCode = EXIT.ok;
  const first = argv[2];
  const known = (VERBS as readonly string[]).includes(first ?? "");
  try {
    const program = buildProgram((c) => (code = c), io, !known);
    if (argv.length <= 2) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(argv);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; every other commander error is a usage error (commander printed it).
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof CliError) {
      if (e.lines.length === 1 && e.lines[0] === e.message) io.writeErr(`error: ${e.message}\n`);
      else for (const l of e.lines) io.writeErr(`${l}\n`);
      return e.code;
    }
    const err = e as Error;
    io.writeErr(`internal error: ${err?.message ?? String(e)}\n`);
    if (process.env["NVCF_DEBUG"] === "1" && err?.stack) io.writeErr(`${err.stack}\n`);
    return EXIT.internal;
  }
}
