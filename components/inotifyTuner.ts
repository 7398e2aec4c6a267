/**
 * `InotifyTuner`: the node inotify-tuning DaemonSet of the NVCA docs (NVIDIA docs `docs/user/cluster-management/self-managed.md` "Node inotify limits",
 * docs/upstream-facts.md §4 row 12), with the limits from config.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

export interface InotifyTunerArgs {
  /** `fs.inotify.max_user_instances` (count; docs: 8192). */
  maxUserInstances: number;
  /** `fs.inotify.max_user_watches` (count; docs: 524288). */
  maxUserWatches: number;
  initImage: string;
  pauseImage: string;
  /** Require at least one scheduled and ready pod (GPU nodes are expected), else fail (user report C16). */
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
 * when `requireNodes` is on and the DaemonSet is scheduled on zero nodes.
 */
export class InotifyTuner extends pulumi.ComponentResource {
  readonly daemonSet: k8s.apps.v1.DaemonSet;
  readonly scheduled: pulumi.Output<number>;

  constructor(name: string, args: InotifyTunerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:InotifyTuner", name, {}, opts);
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
        throw new Error(
          "node-inotify-tuner is scheduled on 0 nodes, but GPU nodes are expected: check that the cluster has schedulable " +
            "GPU nodes (and their taints), or set nvcf:inotify.requireGpuNodes false",
        );
      }
      return n;
    });
    this.registerOutputs({ scheduled: this.scheduled });
  }
}
