/**
 * scripts/cluster.sh: the kwok Stages a local cluster is created with (`cluster.sh stages NAME`, what `up` writes
 * into the kwokctl configuration). kwok runs no container, so it completes a Job's pod as soon as the pod runs; the
 * cluster holds the pods of the hooks a host process plays (nvcf-api's account bootstrap on nvcf-dev, played by
 * tests/bin/account-bootstrap) until that process annotates them played, keyed on what NVIDIA's chart renders on
 * the pod (label app.kubernetes.io/component=account-bootstrap), not on anything only a stand-in renders.
 *
 * The Stages are read from the script's real output and matched against pods with kwok's selector rules (kwok
 * v0.8.0 pkg/utils/expression/selector.go `Requirement.Matches`: In/Exists need the key, NotIn/DoesNotExist match
 * when it is absent; Exists needs a non-empty value). The e2e suite (tests/e2e/standins.test.ts) shows the same on
 * a running cluster. Needs Go and the kwok module in the toolchain cache, as `cluster.sh up` does.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import * as yaml from "js-yaml";

const SCRIPT = path.resolve(__dirname, "../../../scripts/cluster.sh");
const PLAYED = "nvcf.stand-in/played";

interface Expr {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  values?: string[];
}
interface Stage {
  metadata: { name: string };
  spec: {
    resourceRef: { kind: string };
    selector: { matchExpressions: Expr[] };
    delay?: { durationMilliseconds: number };
    next: { statusTemplate?: string };
  };
}

/** The Stages `cluster.sh stages NAME` prints, by name (readiness profile from `profile`, default none). */
function stages(name: string, profile = "none"): Map<string, Stage> {
  const r = spawnSync("bash", [SCRIPT, "stages", name], {
    encoding: "utf8",
    env: { ...process.env, NVCF_READINESS_PROFILE: profile },
  });
  if (r.status !== 0) throw new Error(`cluster.sh stages ${name} failed: ${r.stderr}`);
  const docs = (yaml.loadAll(r.stdout) as Stage[]).filter(Boolean);
  return new Map(docs.map((d) => [d.metadata.name, d]));
}

/**
 * The values a query of the forms the Stages use selects: paths `.a.b`, `.a["k"]`, `.a.[].b`, joined by ` | `, and
 * `select( .k == "v" )`; undefined when none.
 */
function query(obj: unknown, key: string): unknown[] | undefined {
  let cur: unknown[] = [obj];
  for (const part of key.split(" | ")) {
    const sel = /^select\( \.(\w+) == "([^"]*)" \)$/.exec(part);
    if (sel) {
      cur = cur.filter((c) => (c as Record<string, unknown>)[sel[1]] === sel[2]);
      continue;
    }
    for (const s of part.match(/\.\[\]|\["[^"]*"\]|\.[A-Za-z]+/g) ?? []) {
      const next: unknown[] = [];
      for (const c of cur) {
        if (s === ".[]") next.push(...(c as unknown[]));
        else next.push((c as Record<string, unknown>)[s.startsWith("[") ? s.slice(2, -2) : s.slice(1)]);
      }
      cur = next.filter((v) => v !== undefined && v !== null);
    }
  }
  return cur.length ? cur : undefined;
}

/** kwok's Requirement.Matches for one expression. */
function matches(obj: unknown, e: Expr): boolean {
  const data = query(obj, e.key);
  if (data === undefined) return e.operator === "NotIn" || e.operator === "DoesNotExist";
  const has = data.some((d) => (e.values ?? []).includes(String(d)));
  const exists = data.some((d) => d !== "" && d !== false);
  return { In: has, NotIn: !has, Exists: exists, DoesNotExist: !exists }[e.operator];
}

/** The names of the pod Stages whose selector selects this pod. */
const applying = (all: Map<string, Stage>, pod: unknown) =>
  [...all.values()]
    .filter(
      (s) =>
        s.spec.resourceRef.kind === "Pod" && s.spec.selector.matchExpressions.every((e) => matches(pod, e)),
    )
    .map((s) => s.metadata.name)
    .sort();

/** A running pod of a Job, with these labels and annotations. */
function jobPod(labels: Record<string, string>, annotations: Record<string, string> = {}) {
  return {
    metadata: { labels, annotations, ownerReferences: [{ kind: "Job", name: "j" }] },
    status: { phase: "Running" },
  };
}
const BOOTSTRAP = { "app.kubernetes.io/component": "account-bootstrap", "app.kubernetes.io/instance": "api" };

describe("scripts/cluster.sh: the kwok Stages of a local cluster", () => {
  const dev = stages("nvcf-dev");
  const gpu = stages("nvcf-gpu-a");

  test("nvcf-dev: a Job's pod completes at once, but the account-bootstrap hook's pod only once played", () => {
    // Any other Job pod (e.g. Cassandra's hook Jobs): kwok's pod-complete, as without held hooks.
    expect(applying(dev, jobPod({ "app.kubernetes.io/instance": "cassandra" }))).toEqual(["pod-complete"]);
    // NVIDIA's hook pod as rendered (the label, no gate): held, nothing completes it.
    expect(applying(dev, jobPod(BOOTSTRAP))).toEqual([]);
    // Once tests/bin/account-bootstrap annotated it: completed by the played stage, once.
    expect(applying(dev, jobPod(BOOTSTRAP, { [PLAYED]: "account-bootstrap" }))).toEqual([
      "pod-complete-played",
    ]);
    // The same label on a pod no Job owns (a Deployment's): no complete stage, as for every such pod.
    const bare = { metadata: { labels: BOOTSTRAP }, status: { phase: "Running" } };
    expect(applying(dev, bare)).toEqual([]);
  });

  test("the two complete stages are kwok's own pod-complete: same transition, no delay", () => {
    const complete = dev.get("pod-complete")!;
    const played = dev.get("pod-complete-played")!;
    expect(played.spec.next).toEqual(complete.spec.next);
    expect(complete.spec.next.statusTemplate).toMatch(/phase: Succeeded/);
    expect([complete.spec.delay, played.spec.delay]).toEqual([undefined, undefined]);
  });

  test("a GPU cluster holds no hook: the account-bootstrap label alone does not keep a pod from completing", () => {
    expect(applying(gpu, jobPod(BOOTSTRAP))).toEqual(["pod-complete"]);
    expect(applying(gpu, jobPod({}))).toEqual(["pod-complete"]);
  });

  test("a running pod that is not a Job's, or one being deleted, gets no complete stage", () => {
    const deleting = jobPod({});
    (deleting.metadata as Record<string, unknown>)["deletionTimestamp"] = "2026-01-01T00:00:00Z";
    expect(applying(dev, deleting).filter((n) => n.startsWith("pod-complete"))).toEqual([]);
  });

  test("under the readiness profile the pod-ready stages are delayed per release and the held hook stays held", () => {
    const real = stages("nvcf-dev", "real");
    const ready = [...real.keys()].filter((n) => n.startsWith("pod-ready"));
    // One delayed stage per per-pod delay, plus the undelayed one for every other release.
    expect(ready).toContain("pod-ready");
    expect(ready.length).toBeGreaterThan(1);
    for (const n of ready.filter((x) => x !== "pod-ready"))
      expect(real.get(n)!.spec.delay?.durationMilliseconds).toBe(Number(n.slice("pod-ready-".length, -2)));
    // A pending pod of the api release: exactly one pod-ready stage selects it.
    const pending = {
      metadata: { labels: BOOTSTRAP },
      status: { phase: "Pending" },
      spec: { nodeName: "n" },
    };
    expect(applying(real, pending).filter((n) => n.startsWith("pod-ready"))).toHaveLength(1);
    expect(applying(real, jobPod(BOOTSTRAP))).toEqual([]);
    expect(applying(real, jobPod(BOOTSTRAP, { [PLAYED]: "account-bootstrap" }))).toEqual([
      "pod-complete-played",
    ]);
  });
});
