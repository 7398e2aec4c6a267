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
 * Sets the value at a dotted path (or list of keys) of a nested object. Each step on the way that is not of the
 * kind the next key needs is replaced: by a list when the next key is a number (a list index), else by a map (so a
 * list or scalar where a string key follows becomes a map). Keys of a dotted path may not contain dots; a list of
 * keys from `parsePropertyPath` may.
 */
export function setPath(
  obj: Record<string, unknown>,
  path: string | readonly (string | number)[],
  value: unknown,
): void {
  const parts = typeof path === "string" ? path.split(".") : path;
  let cur = obj as Record<string | number, unknown>;
  parts.slice(0, -1).forEach((p, i) => {
    const next = cur[p];
    const wantList = typeof parts[i + 1] === "number";
    const fits =
      next !== null && typeof next === "object" && (wantList ? Array.isArray(next) : !Array.isArray(next));
    if (!fits) cur[p] = wantList ? [] : {};
    cur = cur[p] as Record<string | number, unknown>;
  });
  cur[parts[parts.length - 1]] = value;
}

/**
 * Parses a Pulumi property path (`a.b[0]["c.d"]`, as the engine's diffs, the config rules and `nvcf upgrade --set`
 * write them) into its keys: strings, and numbers for list indexes.
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
