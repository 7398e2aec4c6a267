/**
 * The values an adopted Cassandra gets (upgrade/plan.ts `upgradeValues`) through the chart's contract:
 * the schema-carrying stand-in of helm-nvcf-cassandra 0.20.1 (tests/charts) takes them, mounts the claim with
 * `subPath: data` and puts the cassandra.yaml settings in its overrides ConfigMap; and the one immutable field that
 * differs from 0.17.0's StatefulSet is the claim template's labels (what the adoption steps detect). Helm from
 * NVCF_HELM, else `bash scripts/helm.sh --path` (fails, never skips, without it).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { upgradeValues } from "../../../upgrade/plan";
import { BITNAMI_CLAIM_LABEL } from "../../../components/upgradeSteps";
import { deepMerge } from "../../../values/merge";
import { stackValues } from "../../../tools/values";

const ROOT = path.resolve(__dirname, "../../..");
process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");

function helm(): string {
  if (process.env["NVCF_HELM"]) return process.env["NVCF_HELM"];
  const r = spawnSync("bash", [path.join(ROOT, "scripts/helm.sh"), "--path"], { encoding: "utf8" });
  if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  throw new Error("no Helm CLI: run `bash scripts/helm.sh` and export NVCF_HELM=<the path it prints>");
}

/* eslint-disable @typescript-eslint/no-explicit-any */
/** The objects `helm template` renders for the cassandra release from `dir` with `values`. */
function render(dir: string, values: Record<string, unknown>): any[] {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-charts-"));
  const file = path.join(tmp, "values.json");
  fs.writeFileSync(file, JSON.stringify(values));
  const r = spawnSync(
    helm(),
    ["template", "cassandra", path.join(ROOT, "tests/charts", dir), "-n", "cassandra-system", "-f", file],
    { encoding: "utf8" },
  );
  fs.rmSync(tmp, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`helm template ${dir} failed:\n${r.stderr}`);
  return yaml.loadAll(r.stdout).filter((o): o is any => !!o);
}

const valuesAt = (bundle: string) =>
  stackValues("dev", { sets: { bundleVersion: bundle }, secrets: "sentinel" })["cassandra"].values;

test("the 0.20.1 chart takes the adoption's values: subPath data and the settings the Bitnami-written data needs", () => {
  const objects = render(
    "helm-nvcf-cassandra",
    deepMerge(valuesAt("0.8.0"), upgradeValues("cassandra", true)),
  );
  const sts = objects.find((o) => o.kind === "StatefulSet" && o.metadata.name === "cassandra");
  const mount = sts.spec.template.spec.containers[0].volumeMounts.find((m: any) => m.name === "data");
  expect(mount).toMatchObject({ mountPath: "/var/lib/cassandra", subPath: "data" });
  const conf = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "cassandra-conf");
  const overrides = yaml.load(conf.data["cassandra-overrides.yaml"]) as Record<string, unknown>;
  expect(overrides).toMatchObject({
    uuid_sstable_identifiers_enabled: true,
    storage_compatibility_mode: "NONE",
  });
});

test("only the claim template's labels tell the 0.17.0 StatefulSet from 0.20.1's: the label the steps look for", () => {
  const sts = (dir: string, values: Record<string, unknown>) =>
    render(dir, values).find((o) => o.kind === "StatefulSet" && o.metadata.name === "cassandra");
  const bitnami = sts("helm-nvcf-cassandra-0.17.0", valuesAt("0.7.0"));
  const own = sts("helm-nvcf-cassandra", deepMerge(valuesAt("0.8.0"), upgradeValues("cassandra", true)));
  expect(bitnami.spec.volumeClaimTemplates[0].metadata.labels?.[BITNAMI_CLAIM_LABEL]).toBe("cassandra");
  expect(own.spec.volumeClaimTemplates[0].metadata.labels?.[BITNAMI_CLAIM_LABEL]).toBeUndefined();
  // The fields the adoption relies on are the same: name, selector, service name, claim name.
  expect(own.spec.selector).toEqual(bitnami.spec.selector);
  expect(own.spec.serviceName).toBe(bitnami.spec.serviceName);
  expect(own.spec.volumeClaimTemplates[0].metadata.name).toBe(
    bitnami.spec.volumeClaimTemplates[0].metadata.name,
  );
});
