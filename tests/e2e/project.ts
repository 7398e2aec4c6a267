/**
 * Shared set-up of the end-to-end suites: each runs in a private copy of the project, so config edits never
 * touch the checkout.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The project's root directory (where Pulumi.yaml is). */
export const ROOT = path.resolve(__dirname, "../..");

/**
 * Copies the project into `work` (everything but .git, node_modules, local state and coverage) and links
 * node_modules read-only from the checkout. Input: an existing empty directory. Throws on I/O errors.
 */
export function copyProject(work: string): void {
  for (const entry of fs.readdirSync(ROOT)) {
    if ([".git", "node_modules", ".pulumi-state", "coverage"].includes(entry)) continue;
    fs.cpSync(path.join(ROOT, entry), path.join(work, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(work, "node_modules"));
}
