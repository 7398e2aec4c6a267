/**
 * `nvcf graph`: a thin verb over cli/graph.ts, which draws the environment's release dependency graph.
 */
import * as fs from "node:fs";
import { EXIT, type Environment, type ExitCode } from "../types";

/** Options of `nvcf graph`. */
export interface GraphOptions {
  format: "mermaid" | "svg";
  output?: string;
}

/** Writes the environment's release dependency graph to `output` (default: stdout). Exit: EXIT.ok. */
export async function graph(env: Environment, opts: GraphOptions): Promise<ExitCode> {
  const { renderGraph } = await import("../graph");
  const { asConfigError } = await import("../automation");
  const text = await asConfigError(() => renderGraph(env, opts.format));
  if (opts.output) fs.writeFileSync(opts.output, text.endsWith("\n") ? text : `${text}\n`);
  else process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  return EXIT.ok;
}
