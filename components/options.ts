/**
 * Resource options shared by the project's components.
 */
import type * as pulumi from "@pulumi/pulumi";

/**
 * A component's options without `dependsOn`, for the components whose work is one resource (a Helm release, a
 * command, a DaemonSet) that takes the `dependsOn` itself. Input: the options the component was given. Output:
 * the same options minus `dependsOn`, to pass to `super`.
 *
 * Why: the Node.js SDK (3.248, `runtime/resource.js` `prepareResource`) sends a resource's registration only
 * once every `dependsOn` resource has been created, and a child's only once its parent is registered. A
 * component that carries the `dependsOn` therefore waits for its prerequisites, then costs one more engine round
 * trip (the component's registration, a state write with it) before its resource can even be checked, on every
 * edge of the install order (docs/performance.md#components-register-at-once-their-resource-waits).
 * Registered at once instead, the component is in place when the prerequisites finish. Nothing else changes:
 * a resource that names the component in its `dependsOn` waits for the component's children, and teardown
 * follows the dependencies the resources themselves record.
 */
export function withoutDependsOn(
  opts: pulumi.ComponentResourceOptions | undefined,
): pulumi.ComponentResourceOptions | undefined {
  if (opts?.dependsOn === undefined) return opts;
  const rest = { ...opts };
  delete rest.dependsOn;
  return rest;
}
