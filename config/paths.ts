/**
 * Paths into nested values (config, Helm values, resource inputs): reading and setting the value at a path, and
 * parsing a Pulumi property path. The one helper for this job in the config rules and loader, the Helmfile
 * import and the preview summary. Pure.
 */

/**
 * The value at `path` in `root`: a dotted string (`a.b.c`; keys may not contain dots) or a list of keys, where a
 * number indexes a list. Undefined when a step is missing, reaches a scalar, or names a list by a string key.
 */
export function valueAt(root: unknown, path: string | readonly PropertyKey[]): unknown {
  const parts = typeof path === "string" ? path.split(".") : path;
  let cur = root;
  for (const p of parts) {
    if (cur === null || typeof cur !== "object" || (Array.isArray(cur) && typeof p !== "number"))
      return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/**
 * Sets the value at a dotted path (or list of keys) of a nested object, making a map of every step on the way that
 * is not one (a list or scalar there is replaced). Keys may not contain dots.
 */
export function setPath(
  obj: Record<string, unknown>,
  path: string | readonly string[],
  value: unknown,
): void {
  const parts = typeof path === "string" ? path.split(".") : path;
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (next === null || typeof next !== "object" || Array.isArray(next)) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

/**
 * Parses a Pulumi property path (`a.b[0]["c.d"]`, as the engine's diffs and the config rules write them) into its
 * keys: strings, and numbers for list indexes.
 */
export function parsePropertyPath(p: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (let m = re.exec(p); m; m = re.exec(p)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(m[3].replace(/\\(.)/g, "$1"));
  }
  return out;
}
