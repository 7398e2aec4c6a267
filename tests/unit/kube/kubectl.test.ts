/**
 * The `nvcf` command's kubectl client (kube/kubectl.ts) against a scripted kubectl: a real executable that answers
 * each call from a queue of canned outcomes, so the client's handling of exit codes, output and retries runs as
 * it does against the real binary.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Kube, KubeError } from "../../../kube/kubectl";

let dir: string;

/**
 * Writes a kubectl stand-in that plays `outcomes` in order, one per call (`<exit code> <stdout> <stderr>`
 * separated by `|`), and records each call's arguments; returns the client and the recorded calls.
 */
function scripted(outcomes: string[]): { kube: Kube; calls: () => string[] } {
  const bin = path.join(dir, "kubectl");
  const queue = path.join(dir, "queue");
  const log = path.join(dir, "calls");
  fs.writeFileSync(queue, outcomes.join("\n") + "\n");
  fs.writeFileSync(log, "");
  fs.writeFileSync(
    bin,
    `#!/usr/bin/env bash
echo "$*" >> ${JSON.stringify(log)}
line=$(head -n 1 ${JSON.stringify(queue)}); sed -i 1d ${JSON.stringify(queue)}
IFS='|' read -r code out err <<< "$line"
printf '%s' "$out"; printf '%s' "$err" >&2
exit "$code"
`,
    { mode: 0o755 },
  );
  return {
    kube: new Kube({ context: "ctx" }, { kubectl: bin, timeoutMs: 5000 }),
    calls: () => fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean),
  };
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-kube-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test("a read that exits 0 with no JSON is tried once more, and the second answer is used", async () => {
  const { kube, calls } = scripted(["0||", '0|{"items":[{"metadata":{"name":"a"}}]}|']);
  await expect(kube.items(["pods", "-n", "x"])).resolves.toEqual([{ metadata: { name: "a" } }]);
  const call = "--context ctx --request-timeout=15s get pods -n x -o json";
  expect(calls()).toEqual([call, call]);
});

test("an API server that did not answer is tried once more; a second failure names kubectl's message", async () => {
  const refused = "1||The connection to the server 127.0.0.1:6443 was refused - connection refused";
  const { kube, calls } = scripted([refused, refused]);
  const err = await kube.json(["get", "ns"]).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(KubeError);
  expect((err as Error).message).toBe(
    "kubectl get ns failed: The connection to the server 127.0.0.1:6443 was refused - connection refused",
  );
  expect(calls()).toHaveLength(2);
});

test("a permanent failure is not retried, and not found is undefined for maybe()", async () => {
  const { kube, calls } = scripted([
    '1||Error from server (Forbidden): pods is forbidden: User "u" cannot list',
    '1||Error from server (NotFound): configmaps "c" not found',
  ]);
  await expect(kube.json(["get", "pods"])).rejects.toThrow(/Forbidden/);
  await expect(kube.maybe(["get", "cm", "c"])).resolves.toBeUndefined();
  expect(calls()).toHaveLength(2);
});

test("two answers without JSON fail with a message that says so", async () => {
  const { kube } = scripted(["0|not json|", "0||"]);
  await expect(kube.json(["get", "ns"])).rejects.toThrow(
    "kubectl get ns failed: kubectl exited 0 but printed no JSON document",
  );
});
