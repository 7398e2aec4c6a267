/** The nvcf command line (cli/main.ts) run in-process, for the unit tests of its verbs. */
import { main } from "../../../cli/main";

/**
 * Runs `nvcf <args>` in this process. Returns the exit code and everything written to stdout and stderr. Throws
 * only what main itself throws (it reports errors as exit codes).
 */
export async function nvcf(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(["node", "nvcf", ...args], {
    write: (s) => (out += s),
    writeErr: (s) => (err += s),
  });
  return { code, out, err };
}
