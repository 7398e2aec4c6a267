/**
 * config/schema.ts, key by key: for every key of both planes' schemas that has a type to get wrong (a boolean, a
 * number, one of an enum's values, a map's values), a config with only that key wrong is refused with a problem
 * at the key's own path, and the base configs (every key at its default) pass. The keys are read from the schemas
 * themselves (zod's JSON Schema export), so a new key is covered without a case of its own.
 */
import { z } from "zod";
import { computePlaneSchema, controlPlaneSchema, SECRET_KEYS } from "../../../config/schema";
import { baseCompute, baseControl } from "../fixtures/configs";
import { keys } from "../support/rules";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

/** A value of the wrong type for a JSON Schema node, or undefined when any string would do. */
function wrongFor(node: Json): unknown {
  if (Array.isArray(node["enum"])) return "not-one-of-the-values";
  if (node["type"] === "boolean") return "maybe";
  if (node["type"] === "integer" || node["type"] === "number") return "many";
  if (node["type"] === "array") return 5;
  return undefined;
}

/** Every wrong-typed key of a schema: its path and the wrong value (a map key is named `example`). */
function leaves(node: Json, path: string[]): [string[], unknown][] {
  const out: [string[], unknown][] = [];
  if (node["type"] === "object" && node["properties"]) {
    for (const [k, child] of Object.entries(node["properties"] as Json))
      out.push(...leaves(child, [...path, k]));
  } else if (node["type"] === "object" && typeof node["additionalProperties"] === "object") {
    out.push(...leaves(node["additionalProperties"], [...path, "example"]));
  } else {
    const wrong = wrongFor(node);
    if (wrong !== undefined && path.length > 0) out.push([path, wrong]);
  }
  return out;
}

/** The raw config (top-level keys as strings, nested ones as JSON) with one key set to `value`. */
function withKey(base: Record<string, string>, path: string[], value: unknown): Record<string, string> {
  const [top, ...rest] = path;
  if (rest.length === 0) return { ...base, [top]: typeof value === "string" ? value : JSON.stringify(value) };
  const obj: Json = {};
  let cur = obj;
  rest.slice(0, -1).forEach((k) => (cur = cur[k] = {}));
  cur[rest[rest.length - 1]] = value;
  return { ...base, [top]: JSON.stringify(obj) };
}

const PLANES = [
  ["control", controlPlaneSchema, baseControl],
  ["compute", computePlaneSchema, baseCompute],
] as const;

describe.each(PLANES)("%s plane", (_plane, schema, base) => {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  const secret = new Set<string>(SECRET_KEYS);
  const cases = leaves(json, []).filter(([p]) => !secret.has(p[0]) && p[0] !== "plane");

  test("the schema has the keys the docs list", () => expect(cases.length).toBeGreaterThan(20));

  test("every key at its default: the base config passes", () => expect(keys(base())).toEqual([]));

  test.each(cases.map(([p, v]) => [p.join("."), p, v] as const))(
    "%s of the wrong type is refused at its own key",
    (name, p, v) => {
      expect(keys(withKey(base(), [...p], v))).toContain(`nvcf:${name}`);
    },
  );
});
