/**
 * The upgrade planner (upgrade/plan.ts): its rules, one by one, on the committed example stacks'
 * configs, and the plan it makes of the moves it allows.
 */
import * as path from "node:path";
import { ConfigError } from "../../../config/problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";
import {
  type PreviousUpgradeOutputs,
  type UpgradePlan,
  cassandraLineage,
  cassandraWriterNamespaces,
  computeSubject,
  controlSubject,
  formatPlan,
  movePhaseOrder,
  planUpgrade,
  upgradeValues,
} from "../../../upgrade/plan";
import { enabledReleases, inDependencyOrder } from "../../../catalog/releases";
import { controlFlags } from "../../../config/flags";
import type { ComputeInputs } from "../../../values/compute";
import { thrown, validatedConfig } from "../support/harness";

process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");

const control = (bundle: string, overrides: Record<string, unknown> = {}) =>
  validatedConfig("dev", { bundleVersion: bundle, ...overrides });

/** The previous outputs of a dev control plane deployed at `bundle` (every release of it deployed). */
function deployedAt(bundle: string, extra: PreviousUpgradeOutputs = {}): PreviousUpgradeOutputs {
  const cfg = control(bundle);
  const names = enabledReleases("control", cfg.bundleVersion, controlFlags(cfg)).map((r) => r.name);
  return {
    bundleVersion: bundle,
    releases: Object.fromEntries(names.map((n) => [n, "deployed"])),
    ...extra,
  };
}

/** The problems a refused plan names. */
const refusal = (f: () => unknown): ConfigError => thrown(ConfigError, f);

const kinds = (p: UpgradePlan) => Object.fromEntries(p.releases.map((r) => [r.name, r.kind]));

describe("rule 1: nothing deployed", () => {
  test("a first update installs every release; Cassandra's layout is the target chart's", () => {
    for (const [bundle, layout] of [
      ["0.7.0", "bitnami"],
      ["0.8.0", "official"],
      ["0.6.1", "official"],
    ] as const) {
      const cfg = control(bundle);
      const p = planUpgrade(controlSubject(cfg, "dev"), {});
      expect(p.moving).toBe(false);
      expect(p.from).toBeUndefined();
      expect(new Set(p.releases.map((r) => r.kind))).toEqual(new Set(["install"]));
      expect(p.cassandraLayout).toBe(layout);
      expect(p.cassandraAdopted).toBe(false);
      expect(p.steps).toEqual([]);
      expect(formatPlan(p)).toEqual([`stack dev: first deployment at NVCF bundle ${bundle}`]);
    }
  });
});

test("rule 1: a run that stopped before the stack had its bundle output keeps the layout it recorded", () => {
  const cfg = control("0.8.0");
  const p = planUpgrade(controlSubject(cfg, "dev"), {
    releases: { cassandra: "unfinished" },
    cassandraDataLayout: "bitnami",
  });
  expect(p.moving).toBe(false);
  expect(p.cassandraLayout).toBe("bitnami");
  expect(p.cassandraAdopted).toBe(true);
  // Without Cassandra among the releases it had, the record is not about these volumes.
  expect(planUpgrade(controlSubject(cfg, "dev"), { cassandraDataLayout: "bitnami" }).cassandraAdopted).toBe(
    false,
  );
});

describe("rules 2-5: refused moves, before anything is touched", () => {
  test("2: a deployed bundle this program does not know", () => {
    const e = refusal(() => planUpgrade(controlSubject(control("0.8.0"), "dev"), { bundleVersion: "0.9.0" }));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0].key).toBe("nvcf:bundleVersion");
    expect(e.problems[0].found).toMatch(
      /deployed at NVCF bundle "0\.9\.0", which this program does not know/,
    );
  });

  test("3: a downgrade names the deployed bundle and the way back", () => {
    const e = refusal(() => planUpgrade(controlSubject(control("0.7.0"), "dev"), deployedAt("0.8.0")));
    expect(e.message).toMatch(/^stack "dev" has 1 config problem; nothing was changed:/);
    expect(e.problems[0]).toMatchObject({
      key: "nvcf:bundleVersion",
      found: '"0.7.0"',
    });
    expect(e.problems[0].expected).toMatch(
      /^0\.8\.0 or a later bundle: stack dev is deployed at NVCF bundle 0\.8\.0/,
    );
    expect(e.problems[0].fix).toMatch(
      /pulumi config set nvcf:bundleVersion 0\.8\.0\. To go back to 0\.7\.0, roll back each release with Helm or restore the backups/,
    );
  });

  test("4: a skipped bundle names the next one, and from 0.6.1 the manual path of the step between", () => {
    const e = refusal(() => planUpgrade(controlSubject(control("0.8.0"), "dev"), deployedAt("0.6.1")));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0].expected).toMatch(/^0\.7\.0, the next bundle after 0\.6\.1/);
    expect(e.problems[0].found).toBe('"0.8.0", which skips 0.7.0');
    expect(e.problems[0].fix).toMatch(
      /^pulumi config set nvcf:bundleVersion 0\.7\.0 and pulumi up, then 0\.8\.0; the step to 0\.7\.0 moves Cassandra back to the Bitnami chart, which this program does not automate: back up and restore/,
    );
  });

  test("5: 0.6.1 → 0.7.0 with Cassandra deployed is refused, naming the reason and the manual path", () => {
    const e = refusal(() => planUpgrade(controlSubject(control("0.7.0"), "dev"), deployedAt("0.6.1")));
    expect(e.problems).toHaveLength(1);
    const p = e.problems[0];
    expect(p.key).toBe("nvcf:bundleVersion");
    expect(p.expected).toMatch(
      /changes Cassandra from NVIDIA's own chart \(helm-nvcf-cassandra 0\.18\.0, Apache Cassandra, data at the volume root\) back to the Bitnami wrapper \(0\.17\.0/,
    );
    expect(p.expected).toMatch(/NVIDIA documents no procedure for/);
    expect(p.fix).toMatch(
      /^back up and restore \(docs\/upgrading\.md "0\.6\.1 to 0\.7\.0"\): nodetool flush and nodetool snapshot/,
    );
    expect(p.fix).toMatch(/nvcf:cassandra\.enabled false/);
    expect(p.fix).toMatch(/sstableloader; or stay at 0\.6\.1$/);
  });

  test("5: without Cassandra deployed (the manual path's middle), 0.6.1 → 0.7.0 installs 0.7.0's Cassandra afresh", () => {
    const prev = deployedAt("0.6.1");
    delete (prev.releases as Record<string, string>)["cassandra"];
    const p = planUpgrade(controlSubject(control("0.7.0"), "dev"), {
      ...prev,
      cassandraDataLayout: "official",
    });
    expect(p.moving).toBe(true);
    expect(kinds(p)["cassandra"]).toBe("install");
    expect(p.cassandraLayout).toBe("bitnami");
    expect(p.cassandraAdopted).toBe(false);
  });

  test("a compute plane refuses its own downgrade and skip the same way", () => {
    const gpuA = (b: string) => validatedConfig<ComputePlaneConfig>("dev-gpu-a", { bundleVersion: b });
    expect(
      refusal(() => planUpgrade(computeSubject(gpuA("0.7.0"), "dev-gpu-a"), { bundleVersion: "0.8.0" }))
        .problems[0].expected,
    ).toMatch(/^0\.8\.0 or a later bundle: stack dev-gpu-a is deployed at NVCF bundle 0\.8\.0/);
    expect(
      refusal(() => planUpgrade(computeSubject(gpuA("0.8.0"), "dev-gpu-a"), { bundleVersion: "0.6.1" }))
        .problems[0].found,
    ).toBe('"0.8.0", which skips 0.7.0');
  });
});

describe("rule 6: backups acknowledged outside dev stacks", () => {
  const prod = (ack?: string) =>
    validatedConfig<ControlPlaneConfig>("prod-eks", {
      bundleVersion: "0.8.0",
      ...(ack ? { upgrade: { backupsCopiedOffNode: ack } } : {}),
    });
  const prev = { bundleVersion: "0.7.0" };

  test("refused without the acknowledgement, naming the key, what is touched and the docs", () => {
    const e = refusal(() => planUpgrade(controlSubject(prod(), "prod-eks"), prev));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0].key).toBe("nvcf:upgrade.backupsCopiedOffNode");
    expect(e.problems[0].expected).toMatch(
      /^"0\.8\.0": the move 0\.7\.0 → 0\.8\.0 touches Cassandra's data \(adopted by NVIDIA's own chart\) and OpenBao/,
    );
    expect(e.problems[0].found).toBe("nothing");
    expect(e.problems[0].fix).toMatch(
      /docs\/upgrading\.md "Backups"\), then pulumi config set --path nvcf:upgrade\.backupsCopiedOffNode 0\.8\.0$/,
    );
  });

  test("an acknowledgement for another move does not count; one for this move does", () => {
    expect(
      refusal(() => planUpgrade(controlSubject(prod("0.7.0"), "prod-eks"), prev)).problems[0].found,
    ).toMatch(/"0\.7\.0" \(backups for another move\)/);
    expect(planUpgrade(controlSubject(prod("0.8.0"), "prod-eks"), prev).moving).toBe(true);
  });

  test("a dev stack needs none", () => {
    expect(planUpgrade(controlSubject(control("0.8.0"), "dev"), deployedAt("0.7.0")).moving).toBe(true);
  });
});

describe("rule 7: the plan of 0.7.0 → 0.8.0", () => {
  let p: UpgradePlan;
  beforeAll(() => {
    p = planUpgrade(controlSubject(control("0.8.0"), "dev"), deployedAt("0.7.0"));
  });

  test("per release: chart versions before and after, only what changes is upgraded", () => {
    const byName = Object.fromEntries(p.releases.map((r) => [r.name, r]));
    expect(byName["cassandra"]).toMatchObject({ from: "0.17.0", to: "0.20.1", kind: "upgrade" });
    expect(byName["api"]).toMatchObject({ from: "1.23.9", to: "1.25.1", kind: "upgrade" });
    expect(byName["grpc-proxy"]).toMatchObject({ from: "1.6.7", to: "1.7.1", kind: "upgrade" });
    expect(byName["ess-api"]).toMatchObject({ from: "1.7.0", to: "1.7.2", kind: "upgrade" });
    expect(byName["function-autoscaler"]).toMatchObject({ from: "0.1.0", to: "0.2.1", kind: "upgrade" });
    expect(byName["state-metrics"]).toMatchObject({ from: "1.0.1", to: "1.0.2", kind: "upgrade" });
    // Same chart, values the bundle gives it change (0.8.0's PodDisruptionBudget knobs, values/control.ts `pdb`).
    for (const n of ["openbao-server", "nats", "api-keys", "reval"])
      expect([n, byName[n]]).toEqual([n, expect.objectContaining({ kind: "upgrade", valuesOnly: true })]);
    expect(byName["openbao-server"]).toMatchObject({ from: "0.30.25", to: "0.30.25" });
    // Same chart and the same values at both bundles.
    for (const n of [
      "nats-auth-callout-service",
      "notary-service",
      "nvct-api",
      "invocation-service",
      "cert-manager",
    ])
      expect([n, byName[n]?.kind]).toEqual([n, "unchanged"]);
    expect(byName["notary-service"]).toMatchObject({ from: "1.4.2", to: "1.4.2" });
    expect(p.releases.filter((r) => r.kind === "install" || r.kind === "uninstall")).toEqual([]);
  });

  test("the phases: OpenBao alone with its rollout, then Cassandra's adoption, then the rest", () => {
    expect(p.openbaoPhase).toBe(true);
    expect(p.cassandraAdopted).toBe(true);
    expect(p.cassandraAdoptionRuns).toBe(true);
    expect(p.cassandraLayout).toBe("bitnami");
    expect(p.steps.map((s) => s.name)).toEqual([
      "openbao-server",
      "openbao-rollout",
      "cassandra-adoption-prepare",
      "cassandra",
      "cassandra-adoption-verify",
      "releases",
    ]);
    expect(p.releases[0].name).toBe("openbao-server");
    expect(p.releases[1].name).toBe("cassandra");
    const prepare = p.steps.find((s) => s.name === "cassandra-adoption-prepare")!.what;
    expect(prepare).toMatch(/no dirty row in schema_migrations/);
    expect(prepare).toMatch(/Deployments in api-keys, ess, nvcf, sis\) scaled to zero/);
    expect(prepare).toMatch(/nodetool flush and nodetool snapshot on every node/);
    expect(prepare).toMatch(/--cascade=orphan \(pods and claims kept\), pod cassandra-0 deleted$/);
  });

  test("each data store touched and how its data is kept", () => {
    expect(p.dataStores.map((d) => d.store)).toEqual([
      "Cassandra (cassandra-system, claims data-cassandra-0..2)",
      "OpenBao (vault-system, claims data-openbao-server-*)",
      "NATS JetStream (nats-system)",
    ]);
    expect(p.dataStores[0].how).toMatch(
      /claims are never deleted.*persistence\.subPath data.*nodetool snapshot.*passwords unchanged/,
    );
  });

  test("the text a preview and nvcf upgrade show", () => {
    const lines = formatPlan(p);
    expect(lines[0]).toBe("upgrade plan of stack dev: NVCF bundle 0.7.0 → 0.8.0");
    expect(lines).toContain("    cassandra                  upgrade helm-nvcf-cassandra 0.17.0 → 0.20.1");
    expect(lines).toContain(
      "    openbao-server             upgrade helm-nvcf-openbao-server 0.30.25 (same chart, the values 0.8.0 gives it change)",
    );
    expect(lines).toContain("    notary-service             unchanged helm-nvcf-notary-service 1.4.2");
    expect(lines.indexOf("  steps, in order:")).toBeGreaterThan(0);
    expect(lines.indexOf("  data stores:")).toBeGreaterThan(lines.indexOf("  steps, in order:"));
  });

  test("a stack deployed before the layout was recorded: 0.7.0's chart says Bitnami", () => {
    const q = planUpgrade(controlSubject(control("0.8.0"), "dev"), { bundleVersion: "0.7.0" });
    expect(q.cassandraLayout).toBe("bitnami");
    expect(q.cassandraAdoptionRuns).toBe(true);
  });
});

describe("after the move", () => {
  test("at 0.8.0 with adopted data nothing moves, and the adoption's settings and steps stay", () => {
    const p = planUpgrade(
      controlSubject(control("0.8.0"), "dev"),
      deployedAt("0.8.0", { cassandraDataLayout: "bitnami" }),
    );
    expect(p.moving).toBe(false);
    expect(new Set(p.releases.map((r) => r.kind))).toEqual(new Set(["unchanged"]));
    expect(p.cassandraAdopted).toBe(true);
    expect(p.cassandraLayout).toBe("bitnami");
    expect(p.steps).toEqual([]);
    expect(formatPlan(p)).toEqual(["stack dev: at NVCF bundle 0.8.0, nothing to upgrade"]);
  });

  test("a Cassandra installed at 0.8.0 (official layout) has no adoption", () => {
    const p = planUpgrade(
      controlSubject(control("0.8.0"), "dev"),
      deployedAt("0.8.0", { cassandraDataLayout: "official" }),
    );
    expect(p.cassandraAdopted).toBe(false);
  });

  test("an adopted Cassandra keeps persistence.subPath data and the cassandra.yaml settings its data needs", () => {
    expect(upgradeValues("cassandra", true)).toEqual({
      cassandra: {
        persistence: { subPath: "data" },
        config: { uuid_sstable_identifiers_enabled: true, storage_compatibility_mode: "NONE" },
      },
    });
    expect(upgradeValues("cassandra", false)).toEqual({});
    expect(upgradeValues("api", true)).toEqual({});
  });
});

describe("the compute plane's plan", () => {
  const inputs: ComputeInputs = {
    imageRegistry: "registry.nvcf.test",
    imageRepository: "nvcf/mirror",
    clusterID: "c",
    clusterGroupID: "g",
    ncaID: "nvcf-default",
    region: "us-east-1",
    icmsServiceURL: "http://gw",
    revalServiceURL: "http://gw",
    natsURL: "nats://gw:4222",
    icmsHost: "sis.nvcf.test",
    revalHost: "reval.nvcf.test",
    natsHost: "nats.nvcf.test",
  };

  test("gpu-b: the operator and Grove upgraded, KAI and topology installed with the bundle change, Dynamo kept", () => {
    const cfg = validatedConfig<ComputePlaneConfig>("dev-gpu-b");
    const p = planUpgrade(computeSubject(cfg, "dev-gpu-b", inputs), {
      bundleVersion: "0.7.0",
      releases: undefined,
    });
    const byName = Object.fromEntries(p.releases.map((r) => [r.name, r]));
    expect(byName["nvca-operator"]).toMatchObject({ from: "1.14.0", to: "1.21.3", kind: "upgrade" });
    expect(byName["grove-operator"]).toMatchObject({
      from: "v0.1.0-alpha.9",
      to: "v0.1.0-alpha.11",
      kind: "upgrade",
    });
    expect(byName["kai-scheduler"]).toMatchObject({ to: "v0.16.7", kind: "install" });
    expect(byName["nvcf-kai-topology"]).toMatchObject({ kind: "install" });
    expect(byName["nvcf-grove-topology"]).toMatchObject({ kind: "install" });
    expect(byName["dynamo-operator"]?.from).toBe("1.2.1");
    expect(p.openbaoPhase).toBe(false);
    expect(p.steps.map((s) => s.name)).toEqual(["releases"]);
  });
});

describe("helpers", () => {
  test("Cassandra's chart lineage by version", () => {
    expect(cassandraLineage("0.15.5")).toBe("bitnami");
    expect(cassandraLineage("0.17.0")).toBe("bitnami");
    expect(cassandraLineage("0.18.0")).toBe("official");
    expect(cassandraLineage("0.20.1")).toBe("official");
  });

  test("the writers are the Deployments of the releases with a Cassandra keyspace", () => {
    expect(cassandraWriterNamespaces(controlFlags(control("0.8.0")))).toEqual([
      "api-keys",
      "ess",
      "nvcf",
      "sis",
    ]);
  });

  test("in a move, openbao-server and its prerequisites come first, then cassandra, still in dependency order", () => {
    const cfg = control("0.8.0");
    const flags = controlFlags(cfg);
    const list = inDependencyOrder(enabledReleases("control", "0.8.0", flags), flags);
    const { order, exempt } = movePhaseOrder(list, flags);
    expect(order.slice(0, 3).map((r) => r.name)).toEqual(["nats", "openbao-server", "cassandra"]);
    expect([...exempt]).toEqual(["nats"]);
    expect(order).toHaveLength(list.length);
    const seen = new Set<string>();
    for (const r of order) {
      for (const n of r.needs.filter((x) => x.when === undefined || flags[x.when]).map((x) => x.release))
        if (order.some((o) => o.name === n)) expect([r.name, seen.has(n)]).toEqual([r.name, true]);
      seen.add(r.name);
    }
  });
});
