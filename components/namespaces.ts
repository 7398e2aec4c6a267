/**
 * Namespaces and image pull secrets: the program owns every namespace a release goes into (Helm never
 * creates one), so teardown removes workloads first and namespaces last.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { dockerConfigJson } from "../config/credentials";

/** One namespace to create. */
export interface NamespaceSpec {
  name: string;
  /** Gateway listeners admit routes only from namespaces labelled `nvcf/platform=true` (docs/upstream-facts.md §1.12). */
  platform?: boolean;
  /** Holds stateful data: protected from deletion when protection is on. */
  stateful?: boolean;
}

export interface NamespacesArgs {
  namespaces: NamespaceSpec[];
  /** Protect namespaces that hold stateful data. */
  protectStateful: boolean;
}

/**
 * Creates each namespace once. Output: `names`, namespace name → `Output<string>` of the created
 * namespace (an input built from it waits for the namespace), and `resources`, the Namespace resources by name
 * (for `dependsOn` where the plain name is passed, as the releases do).
 */
export class Namespaces extends pulumi.ComponentResource {
  readonly names: Record<string, pulumi.Output<string>> = {};
  readonly resources: Record<string, k8s.core.v1.Namespace> = {};

  constructor(name: string, args: NamespacesArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:Namespaces", name, {}, opts);
    for (const ns of args.namespaces) {
      if (this.resources[ns.name]) continue;
      const labels: Record<string, string> = {
        "app.kubernetes.io/managed-by": "pulumi",
        "app.kubernetes.io/part-of": "nvcf",
      };
      if (ns.platform) labels["nvcf/platform"] = "true";
      const res = new k8s.core.v1.Namespace(
        `${name}-${ns.name}`,
        { metadata: { name: ns.name, labels } },
        { parent: this, protect: args.protectStateful && ns.stateful === true },
      );
      this.resources[ns.name] = res;
      this.names[ns.name] = res.metadata.name;
    }
    this.registerOutputs({ names: this.names });
  }
}

export interface PullSecretsArgs {
  /** Secret name (e.g. `nvcr-pull-secret`). */
  secretName: string;
  /** Registry host the credential is for. */
  server: pulumi.Input<string>;
  username: string;
  /** Registry key, a secret Output. */
  key: pulumi.Output<string>;
  /** Namespace names (Outputs from `Namespaces`), keyed by plain name. */
  namespaces: Record<string, pulumi.Input<string>>;
}

/**
 * A `kubernetes.io/dockerconfigjson` Secret in every given namespace (docs/upstream-facts.md §4 row 30). The credential is
 * built from secret config and stays secret in state and previews. Output: `secrets` by namespace.
 */
export class PullSecrets extends pulumi.ComponentResource {
  readonly secrets: Record<string, k8s.core.v1.Secret> = {};

  constructor(name: string, args: PullSecretsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:PullSecrets", name, {}, opts);
    const json = pulumi.secret(
      pulumi
        .all([args.server, args.key])
        .apply(([server, key]) => dockerConfigJson(server, args.username, key)),
    );
    for (const [ns, nsName] of Object.entries(args.namespaces)) {
      this.secrets[ns] = new k8s.core.v1.Secret(
        `${name}-${ns}`,
        {
          metadata: { name: args.secretName, namespace: nsName },
          type: "kubernetes.io/dockerconfigjson",
          stringData: { ".dockerconfigjson": json },
        },
        { parent: this },
      );
    }
    this.registerOutputs({});
  }
}

/**
 * What a release in namespace `ns` waits for before it installs: the pull secret the stack creates there (which
 * itself waits for the namespace), else the stack's Namespace resource; undefined when the stack creates neither
 * (a namespace the user brings). Releases take the plain namespace name and put this in `dependsOn`
 * (docs/performance.md#releases-and-their-namespaces).
 */
export function namespacePrerequisite(
  ns: string,
  namespaces: Namespaces,
  pullSecrets: PullSecrets | undefined,
): pulumi.Resource | undefined {
  return pullSecrets?.secrets[ns] ?? namespaces.resources[ns];
}
