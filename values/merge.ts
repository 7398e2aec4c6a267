/**
 * Deep merge for Helm values layers (pure). Maps merge key by key, lists and scalars replace, later layers
 * win; anything that is not a plain object (arrays, Pulumi Outputs, null) is taken as a whole.
 * This is Helm's own rule for `-f a.yaml -f b.yaml` (docs/upstream-facts.md §1.7, §4 row 22).
 */
export type Values = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Values {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Merges `layers` left to right into a new object; inputs are not modified. */
export function deepMerge(...layers: readonly (Values | undefined)[]): Values {
  const out: Values = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [k, v] of Object.entries(layer)) {
      const prev = out[k];
      out[k] =
        isPlainObject(prev) && isPlainObject(v) ? deepMerge(prev, v) : isPlainObject(v) ? deepMerge(v) : v;
    }
  }
  return out;
}
