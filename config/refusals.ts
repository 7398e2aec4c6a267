/**
 * Changes the live cluster refuses, found by the preview's server-side dry run (engine/dryRun.ts, kube/dryRun.ts):
 * the way out the program knows for each kind of refusal, the lines a failed preview prints, and the error it
 * fails with. The `nvcf` command recognises the list by its header (`REFUSALS_HEADER`).
 */
import { RunError } from "@pulumi/pulumi";
import type { DryRunFinding } from "../kube/dryRun";
import { immutableFieldFix } from "./installed";

/** The way out the program knows for a refusal (see the rule names of kube/dryRun.ts `classifyRefusal`). */
export function fixFor(f: DryRunFinding): string {
  const rule = f.rule ?? "";
  if (rule === "immutable field") {
    const [kind, place = ""] = f.object.split(" ");
    const [namespace, name] = place.includes("/") ? place.split("/") : [undefined, place];
    return immutableFieldFix({ kind, namespace, name }, f.fields ?? []);
  }
  if (
    rule.startsWith("admission webhook") ||
    rule.startsWith("ValidatingAdmissionPolicy") ||
    rule === "Pod Security admission"
  )
    return `change the setting so that the object meets the rule, or have the cluster's administrators change the rule`;
  if (rule.startsWith("ResourceQuota"))
    return `raise the quota, or have the release create fewer or smaller objects there`;
  if (rule === "LimitRange")
    return `set resources within the namespace's LimitRange, or change the LimitRange`;
  if (rule === "RBAC")
    return `grant the identity the stack runs as this verb (docs/previews-and-checks.md lists what a preview and an update need)`;
  if (rule === "kind not served")
    return `install the CRD or enable the API that serves it before this update, or turn off the setting that renders the object`;
  if (rule === "ownership")
    return `delete the object, or give it Helm's ownership metadata of this release (annotations meta.helm.sh/release-name, meta.helm.sh/release-namespace, label app.kubernetes.io/managed-by=Helm)`;
  if (rule === "hook exists") return `delete the leftover hook object`;
  if (rule === "namespace missing") return `create the namespace, or point the release at one that exists`;
  if (rule === "render") return `fix the values the chart refuses`;
  return `change the setting so that the API server accepts the object`;
}

/** The header line of a dry run's refusal list (`formatRefusals`), as the `nvcf` command recognises it. */
export const REFUSALS_HEADER =
  /^stack "[^"]+": the cluster refuses \d+ changes? of this preview \(server-side dry run\); nothing was changed:$/;

/** One refusal as a line: `release <r>: <action> <object>: <cause> (<rule>). Fix: <fix>`. */
export function formatRefusal(f: DryRunFinding): string {
  const flat = (s: string) => s.replace(/\s*[\r\n]+\s*/g, " ").replace(/\.$/, "");
  return `release ${f.release}: ${f.action} ${f.object}: ${flat(f.cause)}${f.rule ? ` (${f.rule})` : ""}. Fix: ${flat(fixFor(f))}`;
}

/** The text a preview fails with: a header naming the stack and the count, then `  - ` and one refusal per line. */
export function formatRefusals(stack: string, refusals: readonly DryRunFinding[]): string {
  const n = refusals.length;
  return (
    `stack "${stack}": the cluster refuses ${n} change${n === 1 ? "" : "s"} of this preview (server-side dry run); nothing was changed:\n` +
    refusals.map((f) => `  - ${formatRefusal(f)}`).join("\n")
  );
}

/** The error a preview ends with when the cluster refuses changes: a RunError, printed as its message alone. */
export class DryRunRefusal extends RunError {
  constructor(
    readonly stackName: string,
    readonly refusals: readonly DryRunFinding[],
  ) {
    super(formatRefusals(stackName, refusals));
    this.name = "DryRunRefusal";
  }
}
