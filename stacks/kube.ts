/**
 * Kubernetes access shared by both stack programs.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { minifyKubeconfig } from "../values/registration";

/** The kubeconfig files the ambient configuration names (KUBECONFIG list, else ~/.kube/config), existing ones only. */
export function ambientKubeconfigFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const list = env["KUBECONFIG"]
    ? env["KUBECONFIG"].split(path.delimiter)
    : [path.join(os.homedir(), ".kube", "config")];
  return list.filter((f) => f !== "" && fs.existsSync(f));
}

/**
 * One context of the ambient kubeconfig as a self-contained kubeconfig. Output: YAML text (contains
 * credentials: wrap it with `pulumi.secret`) and the API server URL. Throws when the context is missing.
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
