/**
 * One definition per name (docs/architecture.md "Names"): across the project's TypeScript (the folders of the
 * layers and index.ts; tests aside), no two modules export the same name, and a type name declared in several
 * modules (an interface, a type alias, a class, an enum, exported or not) has the same definition in each. Read
 * with the TypeScript compiler's parser, top-level declarations only.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "../..");
const FOLDERS = [
  "catalog",
  "contract",
  "kube",
  "config",
  "values",
  "recovery",
  "upgrade",
  "components",
  "engine",
  "stacks",
  "cli",
  "policy",
  "tools",
];

function sources(): string[] {
  const out = ["index.ts"];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (/\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name)) out.push(rel);
    }
  };
  FOLDERS.forEach(walk);
  return out.sort();
}

interface Declaration {
  name: string;
  file: string;
  exported: boolean;
  /** A type's definition with whitespace collapsed (undefined for values). */
  typeText?: string;
}

function declarations(file: string): Declaration[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Declaration[] = [];
  const exported = (n: ts.Node) =>
    (ts.getCombinedModifierFlags(n as ts.Declaration) & ts.ModifierFlags.Export) !== 0;
  // Without its doc comment and modifiers: two definitions mean the same when their bodies are equal.
  const body = (n: ts.Node) =>
    n
      .getText(sf)
      .replace(/^export\s+/, "")
      .replace(/\s+/g, " ");
  for (const st of sf.statements) {
    if (
      ts.isInterfaceDeclaration(st) ||
      ts.isTypeAliasDeclaration(st) ||
      ts.isClassDeclaration(st) ||
      ts.isEnumDeclaration(st)
    ) {
      if (st.name) out.push({ name: st.name.text, file, exported: exported(st), typeText: body(st) });
    } else if (ts.isFunctionDeclaration(st) && st.name && exported(st)) {
      out.push({ name: st.name.text, file, exported: true });
    } else if (ts.isVariableStatement(st) && exported(st)) {
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name)) out.push({ name: d.name.text, file, exported: true });
    }
  }
  return out;
}

const all = sources().flatMap(declarations);
const byName = new Map<string, Declaration[]>();
for (const d of all) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);

test("the parser sees the project's declarations", () => {
  expect(all.length).toBeGreaterThan(500);
  expect(byName.get("enabledReleases")?.map((d) => d.file)).toEqual(["catalog/releases.ts"]);
});

test("no two modules export the same name", () => {
  const twice = [...byName]
    .map(([name, ds]) => [name, ds.filter((d) => d.exported).map((d) => d.file)] as const)
    .filter(([, files]) => files.length > 1);
  expect(twice).toEqual([]);
});

test("a type name declared in several modules has one definition", () => {
  const differing = [...byName]
    .map(([name, ds]) => [name, ds.filter((d) => d.typeText !== undefined)] as const)
    .filter(([, ds]) => new Set(ds.map((d) => d.typeText)).size > 1)
    .map(([name, ds]) => [name, ds.map((d) => d.file)]);
  expect(differing).toEqual([]);
});
