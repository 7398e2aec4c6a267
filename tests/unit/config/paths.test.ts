/**
 * Paths into nested values (config/paths.ts): the one reader, setter and property-path parser the config rules,
 * the loader, the Helmfile import and the preview summary share.
 */
import { parsePropertyPath, setPath, valueAt } from "../../../config/paths";

describe("valueAt", () => {
  const doc = { a: { b: [{ c: 1 }, { c: 2 }], n: null, s: "x" } };
  test("a dotted string and a list of keys read the same value", () => {
    expect(valueAt(doc, "a.s")).toBe("x");
    expect(valueAt(doc, ["a", "s"])).toBe("x");
    expect(valueAt(doc, [])).toBe(doc);
  });
  test("a number indexes a list; a string key on a list reads nothing", () => {
    expect(valueAt(doc, ["a", "b", 1, "c"])).toBe(2);
    expect(valueAt(doc, ["a", "b", "length"])).toBeUndefined();
    expect(valueAt(doc, "a.b.0")).toBeUndefined();
  });
  test("a missing step, null or a scalar on the way reads undefined", () => {
    expect(valueAt(doc, "a.missing.c")).toBeUndefined();
    expect(valueAt(doc, "a.n.c")).toBeUndefined();
    expect(valueAt(doc, "a.s.length")).toBeUndefined();
    expect(valueAt(undefined, "a")).toBeUndefined();
  });
});

test("setPath makes a map of every step that is not one, and sets the leaf", () => {
  const o: Record<string, unknown> = { a: { keep: 1 }, l: [1], s: "x" };
  setPath(o, "a.b.c", 1);
  setPath(o, ["l", "x"], 2);
  setPath(o, "s.y", 3);
  expect(o).toEqual({ a: { keep: 1, b: { c: 1 } }, l: { x: 2 }, s: { y: 3 } });
});

test("setPath makes a list where a list index follows, keeps a fitting list, and takes keys with dots", () => {
  const o: Record<string, unknown> = { l: [{ k: "a" }], m: { x: 1 } };
  setPath(o, ["l", 0, "v"], 1);
  setPath(o, ["t", 0, "key"], "gpu");
  setPath(o, ["m", 1], "y");
  setPath(o, ["q", "c.d"], true);
  expect(o).toEqual({ l: [{ k: "a", v: 1 }], m: [undefined, "y"], t: [{ key: "gpu" }], q: { "c.d": true } });
});

test("parsePropertyPath splits keys, list indexes and quoted keys", () => {
  expect(parsePropertyPath('a.b[0]["c.d"].e')).toEqual(["a", "b", 0, "c.d", "e"]);
  expect(parsePropertyPath("openbao-server.openbao.migrations.env[1].value")).toEqual([
    "openbao-server",
    "openbao",
    "migrations",
    "env",
    1,
    "value",
  ]);
  expect(parsePropertyPath('x["a\\"b"]')).toEqual(["x", 'a"b']);
});
