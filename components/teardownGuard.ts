/**
 * `TeardownGuard`: makes `pulumi destroy` of a control-plane stack refuse while any compute-plane stack
 * still references it (docs/upstream-facts.md §4 row 13: every compute plane goes before the control plane).
 *
 * It is a command whose create does nothing and whose delete inspects the state backend: every other
 * stack of the project whose exported state still holds a StackReference to this stack blocks the delete.
 * The guard depends on every release and registration, so it is deleted first and a refusal leaves
 * everything untouched.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import { withoutDependsOn } from "./options";
import { scriptText } from "./scripts";

/**
 * The guard's delete script (`components/scripts/teardown-guard.sh`): reads `pulumi stack ls --json` and
 * `pulumi stack export` of each other stack (no secrets are decrypted) with the same backend and project as the
 * running engine. Exit 1 names the dependent stacks.
 */
export const GUARD_SCRIPT = scriptText("teardown-guard.sh");

export interface TeardownGuardArgs {
  /** Fully qualified name of the guarded stack (`organization/project/stack`). */
  stackName: string;
}

/**
 * See the module comment. Output: `ready`, true once the guard is in place in this run (after every resource
 * it depends on): whatever lets a compute plane use this stack (its registrations) is exported only then, so
 * no compute-plane stack can come to reference a control plane that has no guard yet, e.g. after a first
 * `pulumi up` that failed part-way. Errors: the delete fails, naming the dependent stacks. Its `dependsOn` goes
 * to the guard's command, not to the component (components/options.ts).
 */
export class TeardownGuard extends pulumi.ComponentResource {
  readonly ready: pulumi.Output<boolean>;

  constructor(name: string, args: TeardownGuardArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:TeardownGuard", name, {}, withoutDependsOn(opts));
    const guard = new command.local.Command(
      name,
      {
        create: "true",
        delete: 'eval "$NVCFP_GUARD_SCRIPT"',
        interpreter: ["/bin/bash", "-c"],
        environment: {
          NVCFP_GUARD_SCRIPT: GUARD_SCRIPT,
          NVCF_STACK_FQN: args.stackName,
          NVCF_STACK_SHORT: args.stackName.split("/").pop() ?? args.stackName,
        },
      },
      { parent: this, dependsOn: opts?.dependsOn },
    );
    this.ready = guard.urn.apply(() => true);
    this.registerOutputs({});
  }
}
