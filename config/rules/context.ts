/**
 * What every module of the config rules shares (pure): the context a rule may need beyond the config, how a
 * problem names its key, and the collector the rules push their problems into (`config/problems.ts` `Problem`:
 * key, expected, found, fix).
 */
import type { Problem } from "../problems";

/** Context a rule may need beyond the config: the stack name (dev stacks relax production-only rules). */
export interface RuleContext {
  stack: string;
}

/** A config key as problems name it: `nvcf:<path>`. */
export const K = (path: string) => `nvcf:${path}`;

/** `nvcf:<path>` quoted for a shell when it holds `[` or `]`. */
export const Q = (path: string) => (/[[\]]/.test(path) ? `'${K(path)}'` : K(path));

/** The repository the example stack files name for charts and images until the user sets theirs. */
export const PLACEHOLDER_REPO = "YOUR_ORG/YOUR_TEAM";

/**
 * A list of problems and the way to add one. Output: `out`, the list in the order the rules found them, and
 * `add(path, expected, found, fix)`, which pushes a problem keyed `nvcf:<path>` (`found` as given: the caller
 * describes or redacts it).
 */
export function problemList(): {
  out: Problem[];
  add: (path: string, expected: string, found: string, fix: string) => void;
} {
  const out: Problem[] = [];
  return { out, add: (path, expected, found, fix) => void out.push({ key: K(path), expected, found, fix }) };
}
