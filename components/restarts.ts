/**
 * Restart generations (`nvcf:restarts`, docs/operations.md "Restart generations"): a release whose generation is
 * set gets a `command.local.Command` after it that puts the generation on the pod template of each of its
 * Deployments, StatefulSets and DaemonSets and waits for the rollouts (`components/scripts/restart.sh`).
 * The generation is an input of the command, so a new number runs it again in the next update, and a preview
 * shows the change as the command's `NVCFP_GENERATION`; the same number changes nothing. OpenBao's server
 * StatefulSet uses `OnDelete`: its pods are then rotated standbys first by the same script as after an upgrade
 * of the release (`openbao-rollout.sh`, NVIDIA `docs/v0.6.1/release-notes/0.6.1.md` "Step 2"), the restart
 * of a service that NVIDIA's `docs/user/control-plane-operations.md` does by hand.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import { scriptText } from "./scripts";
import { OPENBAO_ROLLOUT, type StepAccess, stepEnvironment, stepScript } from "./upgradeSteps";

/** The pod-template annotation that carries a release's restart generation. */
export const RESTART_ANNOTATION = "nvcf.nvidia.com/restart-generation";

/** The restart script (`components/scripts/restart.sh`), joined after the upgrade steps' functions. */
export const RESTART = scriptText("restart.sh");

/** One release's restart. */
export interface RestartArgs {
  /** The Helm release name (its workloads carry it in `meta.helm.sh/release-name`). */
  release: string;
  /** The release's namespace. */
  namespace: pulumi.Input<string>;
  /** The generation (`nvcf:restarts.<release>`, a positive integer). */
  generation: number;
  /** How the script reaches the cluster, and how long each rollout may take. */
  access: StepAccess;
  /**
   * OpenBao's server StatefulSet, when the release is openbao-server: its pods are rotated standbys first after
   * the template change, as `openbao-rollout.sh` does after an upgrade.
   */
  openbaoStatefulSet?: string;
}

/**
 * Creates the restart command of one release, named `<name>-restart-<release>`. Input: the args above and the
 * resource options (parent; dependsOn: the release, and any step that rolls the same pods). Output: the command,
 * whose standard output lists each workload patched and rolled out. The command fails, naming the workload, when
 * a rollout does not finish within `access.waitSeconds`, or when the release has no workload.
 */
export function restartCommand(
  name: string,
  args: RestartArgs,
  opts: pulumi.CustomResourceOptions,
): command.local.Command {
  const body = args.openbaoStatefulSet === undefined ? RESTART : `${RESTART}\n${OPENBAO_ROLLOUT}`;
  return new command.local.Command(
    `${name}-restart-${args.release}`,
    {
      create: 'eval "$NVCFP_STEP_SCRIPT"',
      interpreter: ["/bin/bash", "-c"],
      environment: {
        ...stepEnvironment(stepScript(body), args.access),
        NVCFP_NAMESPACE: args.namespace,
        NVCFP_RELEASE: args.release,
        NVCFP_GENERATION: String(args.generation),
        NVCFP_ANNOTATION: RESTART_ANNOTATION,
        NVCFP_ONDELETE_BY: args.openbaoStatefulSet ?? "",
        ...(args.openbaoStatefulSet !== undefined
          ? {
              NVCFP_STATEFULSET: args.openbaoStatefulSet,
              NVCFP_REVISION: `restart generation ${args.generation}`,
            }
          : {}),
      },
      logging: "stdoutAndStderr",
    },
    opts,
  );
}
