/**
 * The rotation of OpenBao's Master Encryption Key (MEK) as config: `nvcf:openbao.mekGeneration`. A higher
 * generation than the one recorded rotates once; the same one does nothing; a lower one is refused by the config
 * rule (config/mek.ts) and by the script. The program never removes a key: NVIDIA's runbook
 * (`docs/user/runbooks/control-plane-key-rotation-mek.md`) keeps every old key, which ESS needs to decrypt the
 * namespace keys it wrapped with them.
 *
 * One `command.local.Command` of the control plane runs `components/scripts/mek-rotate.sh` (after
 * `KUBECTL_PREAMBLE` and the steps' `lib.sh`, as components/upgradeSteps.ts joins them) with the in-pod part
 * `mek-inpod.sh` as text. Its only changing input is the generation, so a preview shows the rotation as an update
 * of that one field. The key is made inside the OpenBao pod: no key material reaches the program, the Command's
 * inputs or outputs, or Pulumi state; the backup goes into a Secret of vault-system. docs/operations.md
 * "MEK rotation" says what it does and what stays manual.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import { scriptText as script } from "./scripts";
import { type StepAccess, stepEnvironment, stepScript } from "./upgradeSteps";

/** The part that runs inside the OpenBao server pod (POSIX sh; see the file's header). */
export const MEK_INPOD = script("mek-inpod.sh");

/** The ConfigMap (in OpenBao's namespace) that records each rotation: generation, kid, rotated_at, backup. */
export const MEK_RECORD = "nvcf-mek-rotation";

/** The Secret the OpenBao chart's initialization stores the root token in (key `root_token`). */
export const ROOT_TOKEN_SECRET = "openbao-server-root-token";

/** Where the MEK lives: KV v2 mount `services/all/kv`, entry `encryption/keys/stored_data`. */
export const MEK_PATH = "services/all/kv/encryption/keys/stored_data";

/**
 * The whole script of the rotation Command: kubectl set up, the steps' functions, the in-pod text as variable
 * `MEK_INPOD` (read from a quoted here-document: no expansion), then mek-rotate.sh.
 */
export const MEK_ROTATE = stepScript(
  `read -r -d '' MEK_INPOD <<'NVCF_MEK_INPOD' || true\n${MEK_INPOD}NVCF_MEK_INPOD\n${script("mek-rotate.sh")}`,
);

/** What the rotation Command is built from. */
export interface MekRotationArgs {
  /** The generation asked for (`nvcf:openbao.mekGeneration`), a positive integer. */
  generation: number;
  /** How the Command reaches the control-plane cluster. */
  access: StepAccess;
  /** OpenBao's namespace. */
  namespace: string;
}

/**
 * Registers the rotation Command `<name>-mek-rotation` (child of `parent`, after `dependsOn`: OpenBao's release
 * and its rollout). Its environment holds the script, the access (the kubeconfig as a secret) and the generation;
 * nothing else changes between runs. Output: the Command; its stdout is the script's progress lines (kids and
 * times, never a key).
 */
export function mekRotation(
  name: string,
  args: MekRotationArgs,
  parent: pulumi.Resource,
  dependsOn: pulumi.Input<pulumi.Resource>[],
): command.local.Command {
  return new command.local.Command(
    `${name}-mek-rotation`,
    {
      create: 'eval "$NVCFP_STEP_SCRIPT"',
      update: 'eval "$NVCFP_STEP_SCRIPT"',
      interpreter: ["/bin/bash", "-c"],
      environment: {
        ...stepEnvironment(MEK_ROTATE, args.access),
        NVCFP_NAMESPACE: args.namespace,
        NVCFP_STATEFULSET: "openbao-server",
        NVCFP_RECORD: MEK_RECORD,
        NVCFP_TOKEN_SECRET: ROOT_TOKEN_SECRET,
        NVCFP_MEK_PATH: MEK_PATH,
        NVCFP_GENERATION: String(args.generation),
      },
    },
    { parent, dependsOn },
  );
}
