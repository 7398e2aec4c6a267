/**
 * Kubernetes access shared by both stack programs: which kubeconfig files the ambient configuration names,
 * what contexts they hold (read before any resource is registered, so a wrong context is a config problem),
 * and one context extracted as a self-contained kubeconfig.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { minifyKubeconfig } from "../values/registration";

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
 * One context of the ambient kubeconfig as a self-contained kubeconfig. Output: YAML text (contains
 * credentials: wrap it with `pulumi.secret`) and the API server URL. Throws when the context is missing
 * (the config checks of config/load.ts report that first, naming the key).
 */
export function kubeconfigForContext(context: string): { yaml: string; server: string } {
  const files = ambientKubeconfigFiles();
  // Relative certificate paths resolve against the first kubeconfig file, as kubectl does for most setups.
  const base = files.length ? path.dirname(files[0]) : process.cwd();
  return minifyKubeconfig(
    files.map((f) => fs.readFileSync(f, "utf8")),
    context,
    (p) => fs.readFileSync(path.resolve(base, p)),
  );
}
