/**
 * What the `nvcf` command prints for findings (preflight, health) and the error every verb ends with.
 * Pure text formatting: no colour codes, no I/O except through the `write` callbacks given.
 */
import { EXIT, type ExitCode, type Finding } from "./types";

/**
 * An error that ends a verb with a given exit code and message. `lines` are printed to stderr as they are
 * (e.g. a stack's formatted config problems); main.ts prints no stack trace for it.
 */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
    readonly lines: readonly string[] = [message],
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Flattens a sentence to one line (line breaks and runs of white space become one space). */
const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * One line for a finding: `FAIL <stack>: <object> (<check>): found <found>; needed <needed>; fix: <fix>`
 * (`WARN` for a failing warning; `ok` with only `found` for a passing finding). Empty parts are left out.
 */
export function formatFinding(f: Finding): string {
  const tag = f.ok ? "ok  " : f.severity === "warning" ? "WARN" : "FAIL";
  const head = `${tag} ${f.stack}: ${flat(f.object)} (${f.check})`;
  if (f.ok) return f.found ? `${head}: ${flat(f.found)}` : head;
  const parts = [`found ${flat(f.found)}`];
  if (f.needed) parts.push(`needed ${flat(f.needed)}`);
  if (f.fix) parts.push(`fix: ${flat(f.fix)}`);
  return `${head}: ${parts.join("; ")}`;
}

/** Counts of a finding list: checks run, passed, failing errors, failing warnings. */
export function countFindings(findings: readonly Finding[]): {
  total: number;
  passed: number;
  failed: number;
  warnings: number;
} {
  const failed = findings.filter((f) => !f.ok && f.severity === "error").length;
  const warnings = findings.filter((f) => !f.ok && f.severity === "warning").length;
  return { total: findings.length, passed: findings.length - failed - warnings, failed, warnings };
}

/**
 * The report of a check run, as lines: one per failing finding (errors first, then warnings, each in the
 * order given), with `verbose` also one per passing finding, then the summary
 * `<title>: <n> checks, <p> passed, <f> failed, <w> warnings`.
 */
export function formatFindings(title: string, findings: readonly Finding[], verbose = false): string[] {
  const errors = findings.filter((f) => !f.ok && f.severity === "error");
  const warnings = findings.filter((f) => !f.ok && f.severity === "warning");
  const passed = findings.filter((f) => f.ok);
  const lines = [...errors, ...warnings, ...(verbose ? passed : [])].map(formatFinding);
  const c = countFindings(findings);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push(
    `${title}: ${plural(c.total, "check")}, ${c.passed} passed, ${c.failed} failed, ${plural(c.warnings, "warning")}`,
  );
  return lines;
}

/** True when any finding fails with severity `error` (warnings never fail a verb). */
export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => !f.ok && f.severity === "error");
}

/**
 * Prints a check run: `json` prints the Finding array (pretty JSON) alone; otherwise `formatFindings`.
 * Returns `failCode` when any finding fails (severity error), else EXIT.ok.
 */
export function printFindings(
  title: string,
  findings: readonly Finding[],
  opts: { json?: boolean; verbose?: boolean; failCode: ExitCode },
  write: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): ExitCode {
  if (opts.json) write(JSON.stringify(findings, null, 2));
  else for (const l of formatFindings(title, findings, opts.verbose)) write(l);
  return hasErrors(findings) ? opts.failCode : EXIT.ok;
}
