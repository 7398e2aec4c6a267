/**
 * `InotifyTuner`: the node inotify-tuning DaemonSet of the NVCA docs (NVIDIA docs `docs/user/cluster-management/self-managed.md` "Node inotify limits",
 * docs/upstream-facts.md §4 row 12), with the limits from config. It runs in `kube-system` (its priority class
 * `system-node-critical` is admitted only there); its images come from `inotify.initImage`/`pauseImage` or the
 * mirror (values/compute.ts `inotifyImages`), and it references the pull secret, which the compute plane also
 * creates in `kube-system`.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { withoutDependsOn } from "./options";

export interface InotifyTunerArgs {
  /** `fs.inotify.max_user_instances` (count; docs: 8192). */
  maxUserInstances: number;
  /** `fs.inotify.max_user_watches` (count; docs: 524288). */
  maxUserWatches: number;
  /** Init-container image (runs the sysctl script; needs `sh` and `nsenter`), e.g. `values/compute.ts` `inotifyImages`. */
  initImage: pulumi.Input<string>;
  /** Main-container image (sleeps; the pod only keeps the DaemonSet ready). */
  pauseImage: pulumi.Input<string>;
  /** Pull secret names in `kube-system` the pod references (empty: nodes authenticate to the registry). */
  imagePullSecrets?: string[];
  /** Require at least one scheduled and ready pod (GPU nodes are expected), else fail. */
  requireNodes: boolean;
  /** How long to wait for the DaemonSet to be ready, in seconds. */
  timeoutSeconds: number;
}

/** Renders the sysctl script the init container runs (pure). */
export function inotifyScript(maxUserInstances: number, maxUserWatches: number): string {
  return [
    "set -e",
    "mkdir -p /host/etc/sysctl.d",
    `printf 'fs.inotify.max_user_instances=%s\\nfs.inotify.max_user_watches=%s\\n' ${maxUserInstances} ${maxUserWatches} > /host/etc/sysctl.d/99-inotify.conf`,
    `nsenter -t 1 -m -u -i -n -p -- sysctl -w fs.inotify.max_user_instances=${maxUserInstances}`,
    `nsenter -t 1 -m -u -i -n -p -- sysctl -w fs.inotify.max_user_watches=${maxUserWatches}`,
  ].join("\n");
}

/**
 * Output: `scheduled`, the number of nodes the DaemonSet runs on once ready. Errors: the deployment fails
 * when `requireNodes` is on and the DaemonSet is scheduled on zero nodes. Its `dependsOn` goes to the
 * DaemonSet, not to the component (components/options.ts).
 */
export class InotifyTuner extends pulumi.ComponentResource {
  readonly daemonSet: k8s.apps.v1.DaemonSet;
  readonly scheduled: pulumi.Output<number>;

  constructor(name: string, args: InotifyTunerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:InotifyTuner", name, {}, withoutDependsOn(opts));
    const labels = { "app.kubernetes.io/name": "node-inotify-tuner" };
    this.daemonSet = new k8s.apps.v1.DaemonSet(
      name,
      {
        metadata: { name: "node-inotify-tuner", namespace: "kube-system", labels },
        spec: {
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              hostPID: true,
              ...(args.imagePullSecrets && args.imagePullSecrets.length > 0
                ? { imagePullSecrets: args.imagePullSecrets.map((n) => ({ name: n })) }
                : {}),
              tolerations: [{ operator: "Exists" }],
              priorityClassName: "system-node-critical",
              terminationGracePeriodSeconds: 1,
              initContainers: [
                {
                  name: "set-sysctl",
                  image: args.initImage,
                  securityContext: { privileged: true },
                  command: ["sh", "-c", inotifyScript(args.maxUserInstances, args.maxUserWatches)],
                  volumeMounts: [{ name: "host", mountPath: "/host" }],
                },
              ],
              containers: [
                {
                  name: "pause",
                  image: args.pauseImage,
                  resources: {
                    requests: { cpu: "1m", memory: "1Mi" },
                    limits: { cpu: "10m", memory: "16Mi" },
                  },
                },
              ],
              volumes: [{ name: "host", hostPath: { path: "/" } }],
            },
          },
        },
      },
      {
        parent: this,
        dependsOn: opts?.dependsOn,
        customTimeouts: { create: `${args.timeoutSeconds}s`, update: `${args.timeoutSeconds}s` },
      },
    );
    this.scheduled = this.daemonSet.status.apply((s) => {
      const n = s?.desiredNumberScheduled ?? 0;
      if (args.requireNodes && n === 0) {
        throw new pulumi.ResourceError(
          "node-inotify-tuner is scheduled on 0 nodes, but GPU nodes are expected: check that the cluster has schedulable " +
            "GPU nodes (and their taints), or set nvcf:inotify.requireGpuNodes false",
          this.daemonSet,
        );
      }
      return n;
    });
    this.registerOutputs({ scheduled: this.scheduled });
  }
}
