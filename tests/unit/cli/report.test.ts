/**
 * What the nvcf command prints for findings (cli/report.ts): one line per failing finding with object,
 * found, needed and fix; warnings after errors; passing ones only when verbose; the summary count; JSON as
 * the Finding array; the exit code from the failing severities.
 */
import { countFindings, formatFinding, formatFindings, printFindings } from "../../../cli/report";
import { EXIT, type Finding } from "../../../cli/types";

const pass: Finding = {
  check: "storage.default-class",
  stack: "dev",
  object: "StorageClass standard",
  ok: true,
  severity: "error",
  found: "standard is the default StorageClass",
  needed: "",
  fix: "",
};
const fail: Finding = {
  check: "gateway.listeners",
  stack: "dev",
  object: "Gateway envoy-gateway/nvcf-gateway",
  ok: false,
  severity: "error",
  found: "listeners http, tcp, worker-tcp",
  needed: "a listener named nats on port 4222",
  fix: "add the nats listener to the Gateway\n(see the README)",
};
const warn: Finding = {
  check: "kubernetes.version-skew",
  stack: "dev-gpu-a",
  object: "cluster kwok-nvcf-gpu-a",
  ok: false,
  severity: "warning",
  found: "v1.27",
  needed: "v1.28 or later",
  fix: "",
};

test("a failing finding is one line: object, check, found, needed, fix (line breaks flattened)", () => {
  expect(formatFinding(fail)).toBe(
    "FAIL dev: Gateway envoy-gateway/nvcf-gateway (gateway.listeners): found listeners http, tcp, worker-tcp; " +
      "needed a listener named nats on port 4222; fix: add the nats listener to the Gateway (see the README)",
  );
  expect(formatFinding(warn)).toBe(
    "WARN dev-gpu-a: cluster kwok-nvcf-gpu-a (kubernetes.version-skew): found v1.27; needed v1.28 or later",
  );
  expect(formatFinding(pass)).toBe(
    "ok   dev: StorageClass standard (storage.default-class): standard is the default StorageClass",
  );
});

test("the report lists errors, then warnings, then the summary; passing checks only when verbose", () => {
  const findings = [pass, warn, fail];
  expect(formatFindings("preflight", findings)).toEqual([
    formatFinding(fail),
    formatFinding(warn),
    "preflight: 3 checks, 1 passed, 1 failed, 1 warning",
  ]);
  expect(formatFindings("status", findings, true)).toEqual([
    formatFinding(fail),
    formatFinding(warn),
    formatFinding(pass),
    "status: 3 checks, 1 passed, 1 failed, 1 warning",
  ]);
  expect(formatFindings("status", [pass])).toEqual(["status: 1 check, 1 passed, 0 failed, 0 warnings"]);
  expect(countFindings(findings)).toEqual({ total: 3, passed: 1, failed: 1, warnings: 1 });
});

test("printFindings: the exit code comes from errors only; --json prints the Finding array alone", () => {
  const lines: string[] = [];
  const write = (l: string) => lines.push(l);
  expect(printFindings("status", [pass, warn], { failCode: EXIT.health }, write)).toBe(EXIT.ok);
  expect(printFindings("status", [pass, fail], { failCode: EXIT.health }, write)).toBe(EXIT.health);
  lines.length = 0;
  expect(printFindings("preflight", [fail], { json: true, failCode: EXIT.preflight }, write)).toBe(
    EXIT.preflight,
  );
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0])).toEqual([fail]);
});
