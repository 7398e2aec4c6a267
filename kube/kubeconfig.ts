/**
 * Kubeconfig reading, the one home of it: which kubeconfig files the ambient configuration names, what contexts
 * they hold (read before any resource is registered, so a wrong context is a config problem), one context found
 * with the cluster and user it names, one context extracted as a self-contained kubeconfig, and a kubeconfig's
 * API server URL. Reads files; contacts no cluster.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as os from "node:os";
import * as yaml from "js-yaml";

/** The kubeconfig files the ambient configuration names (KUBECONFIG list, else ~/.kube/config), existing ones only. */
export function ambientKubeconfigFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  return kubeconfigSearchList(env).filter((f) => f !== "" && fs.existsSync(f));
}

/** Every file KUBECONFIG names (or ~/.kube/config when it is unset), whether it exists or not. */
export function kubeconfigSearchList(env: NodeJS.ProcessEnv = process.env): string[] {
  return env["KUBECONFIG"]
    ? env["KUBECONFIG"].split(path.delimiter).filter((f) => f !== "")
    : [path.join(os.homedir(), ".kube", "config")];
}

/** What the ambient kubeconfig offers, as far as the config checks need it (no credentials). */
export interface KubeconfigView {
  /** The files looked at, in KUBECONFIG order (`searched`), and those that exist and parse (`files`). */
  searched: string[];
  files: string[];
  /** Context name → the cluster and user it names (first definition wins, as kubectl merges). */
  contexts: Record<string, { cluster: string; user: string }>;
  /** Cluster and user names defined anywhere in the files. */
  clusters: string[];
  users: string[];
  /** `current-context` of the first file that sets one. */
  currentContext?: string;
  /** Files that exist but are not a kubeconfig (YAML error), with the reason. */
  unreadable: { file: string; reason: string }[];
}

/**
 * Reads kubeconfig texts into a `KubeconfigView` (pure). Input: `[file, text]` pairs in KUBECONFIG order, and
 * the full search list. Merges as kubectl does: the first file that defines a name wins.
 */
export function kubeconfigView(texts: [file: string, text: string][], searched: string[]): KubeconfigView {
  const view: KubeconfigView = { searched, files: [], contexts: {}, clusters: [], users: [], unreadable: [] };
  type Named = { name?: unknown; context?: { cluster?: unknown; user?: unknown } };
  for (const [file, text] of texts) {
    let doc: Record<string, unknown>;
    try {
      const d = yaml.load(text);
      doc = d && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
    } catch (e) {
      view.unreadable.push({ file, reason: (e as Error).message.split("\n")[0] });
      continue;
    }
    view.files.push(file);
    const list = (k: string) => (Array.isArray(doc[k]) ? (doc[k] as Named[]) : []);
    for (const c of list("contexts")) {
      const name = typeof c.name === "string" ? c.name : undefined;
      if (name && !(name in view.contexts))
        view.contexts[name] = {
          cluster: String(c.context?.cluster ?? ""),
          user: String(c.context?.user ?? ""),
        };
    }
    for (const c of list("clusters")) if (typeof c.name === "string") view.clusters.push(c.name);
    for (const u of list("users")) if (typeof u.name === "string") view.users.push(u.name);
    const cur = doc["current-context"];
    if (view.currentContext === undefined && typeof cur === "string" && cur !== "") view.currentContext = cur;
  }
  return view;
}

/** The ambient kubeconfig (KUBECONFIG, else ~/.kube/config) as a `KubeconfigView`. Never throws. */
export function ambientKubeconfigView(env: NodeJS.ProcessEnv = process.env): KubeconfigView {
  const searched = kubeconfigSearchList(env);
  const texts: [string, string][] = [];
  const unreadable: { file: string; reason: string }[] = [];
  for (const f of searched) {
    if (!fs.existsSync(f)) continue;
    try {
      texts.push([f, fs.readFileSync(f, "utf8")]);
    } catch (e) {
      unreadable.push({ file: f, reason: (e as Error).message });
    }
  }
  const view = kubeconfigView(texts, searched);
  view.unreadable.push(...unreadable);
  return view;
}

/**
 * One context of the ambient kubeconfig (`env`'s KUBECONFIG) as a self-contained kubeconfig. Output: YAML text (contains
 * credentials: wrap it with `pulumi.secret`) and the API server URL. Throws when the context is missing
 * (the config checks of config/load.ts report that first, naming the key).
 */
export function kubeconfigForContext(
  context: string,
  env: NodeJS.ProcessEnv = process.env,
): { yaml: string; server: string } {
  const { texts, baseDir } = readAmbientKubeconfigs(env);
  return minifyKubeconfig(texts, context, (p) => fs.readFileSync(path.resolve(baseDir, p)));
}

/**
 * Reads the existing ambient kubeconfig files (`ambientKubeconfigFiles`, KUBECONFIG order). Output: the files, their
 * texts, and the directory relative file names in them resolve against: the first file's, as kubectl does for most
 * setups (the working directory when there is none). Throws when a file cannot be read.
 */
export function readAmbientKubeconfigs(env: NodeJS.ProcessEnv = process.env): {
  files: string[];
  texts: string[];
  baseDir: string;
} {
  const files = ambientKubeconfigFiles(env);
  return {
    files,
    texts: files.map((f) => fs.readFileSync(f, "utf8")),
    baseDir: files.length ? path.dirname(files[0]) : process.cwd(),
  };
}

/** An entry of a kubeconfig's `contexts`, `clusters` or `users` list (`name` plus its section). */
export type KubeconfigEntry = { name?: unknown; [section: string]: unknown };

/** One context of a kubeconfig and the entries it names. */
export interface KubeContextEntries {
  context: KubeconfigEntry;
  /** The `cluster` section of the cluster the context names; undefined when no document defines that cluster. */
  cluster?: Record<string, unknown>;
  clusterEntry?: KubeconfigEntry;
  /** The `user` section of the user the context names; undefined when no document defines that user. */
  user?: Record<string, unknown>;
  userEntry?: KubeconfigEntry;
}

/**
 * Finds a context and the cluster and user it names in parsed kubeconfig documents (pure; the one lookup behind
 * `minifyKubeconfig`, `kubeconfigServer` and engine/warmup.ts `openApiWarmRequest`). Input: the documents in KUBECONFIG
 * order, as `yaml.load` returns them (for each name the first document that defines it wins, as kubectl merges
 * them; documents of another shape define nothing), and the context's name. Output: the context's entry and the
 * cluster and user sections it names, or undefined when no document defines the context. Throws nothing.
 */
export function kubeContextEntries(docs: unknown[], context: string): KubeContextEntries | undefined {
  const find = (kind: string, name: unknown): KubeconfigEntry | undefined => {
    for (const d of docs) {
      if (!d || typeof d !== "object" || Array.isArray(d)) continue;
      const list = (d as Record<string, unknown>)[kind];
      const hit = Array.isArray(list)
        ? (list as unknown[]).find(
            (x): x is KubeconfigEntry => !!x && typeof x === "object" && (x as KubeconfigEntry).name === name,
          )
        : undefined;
      if (hit) return hit;
    }
    return undefined;
  };
  const section = (e: KubeconfigEntry | undefined, key: string) => {
    const v = e?.[key];
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  };
  const ctx = find("contexts", context);
  if (!ctx) return undefined;
  const refs = section(ctx, "context") ?? {};
  const clusterEntry = refs["cluster"] === undefined ? undefined : find("clusters", refs["cluster"]);
  const userEntry = refs["user"] === undefined ? undefined : find("users", refs["user"]);
  return {
    context: ctx,
    cluster: clusterEntry && (section(clusterEntry, "cluster") ?? {}),
    clusterEntry,
    user: userEntry && (section(userEntry, "user") ?? {}),
    userEntry,
  };
}

/** File-path fields of a kubeconfig and the inline field each becomes when flattened. */
const FILE_FIELDS: [section: "cluster" | "user", file: string, data: string][] = [
  ["cluster", "certificate-authority", "certificate-authority-data"],
  ["user", "client-certificate", "client-certificate-data"],
  ["user", "client-key", "client-key-data"],
];

/**
 * Extracts one context from kubeconfig documents as a self-contained kubeconfig (like
 * `kubectl config view --minify --flatten --context X`): certificate and key files are inlined as base64
 * data, read with `readFile` (paths relative to the kubeconfig they come from, given as `sources`).
 * Input: kubeconfig YAML texts in KUBECONFIG order, the context name. Output: YAML text and the API
 * server URL. Throws when the context, its cluster or its user is missing, or a referenced file is.
 */
export function minifyKubeconfig(
  texts: string[],
  context: string,
  readFile: (path: string) => Buffer = () => {
    throw new Error("kubeconfig references a file but no reader was given");
  },
): { yaml: string; server: string } {
  const found = kubeContextEntries(
    texts.map((t) => yaml.load(t)),
    context,
  );
  if (!found) throw new Error(`kubeconfig context "${context}" not found (looked in KUBECONFIG)`);
  const { clusterEntry, userEntry } = found;
  if (!clusterEntry || !userEntry)
    throw new Error(`kubeconfig context "${context}" names a cluster or user that does not exist`);
  const flat = (entry: KubeconfigEntry, section: "cluster" | "user"): KubeconfigEntry => {
    const body = { ...((entry[section] ?? {}) as Record<string, unknown>) };
    for (const [sec, file, data] of FILE_FIELDS) {
      if (sec !== section || typeof body[file] !== "string") continue;
      body[data] = readFile(body[file] as string).toString("base64");
      delete body[file];
    }
    return { ...entry, [section]: body };
  };
  const out = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [flat(clusterEntry, "cluster")],
    users: [flat(userEntry, "user")],
    contexts: [found.context],
    "current-context": context,
  };
  return { yaml: yaml.dump(out), server: String(found.cluster?.["server"] ?? "") };
}

/** The API server URL of a kubeconfig's current context (or its first cluster); "" when it has none. */
export function kubeconfigServer(text: string): string {
  const doc = yaml.load(text) as Record<string, unknown> | undefined;
  const current = doc?.["current-context"];
  const cluster =
    (typeof current === "string" ? kubeContextEntries([doc], current)?.cluster : undefined) ??
    (Array.isArray(doc?.["clusters"])
      ? (doc["clusters"] as { cluster?: Record<string, unknown> }[])[0]?.cluster
      : undefined);
  return typeof cluster?.["server"] === "string" ? cluster["server"] : "";
}
