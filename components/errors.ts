/**
 * Failures that belong to a resource. A plain `Error` thrown inside `apply` reaches the user as an unhandled
 * exception of the program with its stack trace; a `pulumi.ResourceError` is reported under the resource it
 * names, with its message only.
 */
import * as pulumi from "@pulumi/pulumi";

/**
 * Runs `f` and returns its result; an error it throws is thrown again as a `pulumi.ResourceError` of `resource`
 * with the same message. For the pure functions a component calls inside `apply` (parsing a command's output,
 * building a release's values), which throw plain errors.
 */
export function failsAs<T>(resource: pulumi.Resource, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new pulumi.ResourceError(e instanceof Error ? e.message : String(e), resource);
  }
}
