/**
 * Settings that cannot change in place, and settings a chart reads only at install (config/installed.ts): the
 * record a stack exports, each setting's rule against a deployed record, the Cassandra password by digest, the
 * override, and the program refusing before anything is registered (under mocks, tests/unit/support/harness.ts).
 */
import * as path from "node:path";
import { planeReleases } from "../../../catalog/releases";
import { validateConfig } from "../../../config/load";
import {
  CASSANDRA_PASSWORD_ID,
  INSTALLED_SETTINGS,
  type InstalledSetting,
  allowListProblems,
  allowableIds,
  cassandraPasswordDigest,
  installedChanges,
} from "../../../config/installed";
import { ConfigError, formatProblem } from "../../../config/problems";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../../../config/schema";
import { installedOf, refuseInstalledChanges } from "../../../stacks/installedSettings";
import { baseCompute, baseControl } from "../fixtures/configs";
import { mockGateway, render, sentinel } from "../support/harness";

// The program checks kubeconfig contexts before anything else: the dev stacks' contexts are in the fixture.
process.env["KUBECONFIG"] = path.join(__dirname, "../fixtures/kubeconfig");

const GATEWAYS = { "envoy-gateway/nvcf-gateway": mockGateway() };
const j = (v: unknown) => JSON.stringify(v);
const SECRETS = new Set(["registryKey", "cassandraPassword", "releaseValues"]);

/** A raw config validated (secrets as SECRETS says), typed as the caller expects. */
const valid = <C>(raw: Record<string, string>): C => validateConfig(raw, SECRETS, "prod") as C;

/** A control-plane config with every add-on whose release carries a setting (LLM with its PKI, LLS, UI, vanity). */
function allControl(over: Record<string, string | undefined> = {}): ControlPlaneConfig {
  const llm = {
    enabled: true,
    pki: {
      enabled: true,
      allowedDomains: "nvcf.svc.cluster.local",
      imageTag: "0.16.3",
      dnsNames: [
        "llm-request-router.nvcf.svc.cluster.local",
        "*.llm-request-router-headless.nvcf.svc.cluster.local",
      ],
    },
  };
  const on = { enabled: true };
  return valid(baseControl({ addons: j({ llm, lls: on, nvcfUi: on, vanityGateway: on }), ...over }));
}

/** A compute-plane config with KAI, Grove and Dynamo. */
function allCompute(over: Record<string, string | undefined> = {}): ComputePlaneConfig {
  const on = { enabled: true };
  return valid(
    baseCompute({ addons: j({ kaiScheduler: on, groveOperator: on, dynamoOperator: on }), ...over }),
  );
}

/** The config with `releaseValues.<release>.<path>` set to `value` (no validation: the rules are tested apart). */
function withValue<C extends ControlPlaneConfig | ComputePlaneConfig>(
  cfg: C,
  release: string,
  path: string,
  value: unknown,
): C {
  // A JSON copy (structuredClone would make objects of another realm under Jest, which deepMerge does not merge).
  const rv = JSON.parse(JSON.stringify(cfg.releaseValues)) as Record<string, Record<string, unknown>>;
  let cur = (rv[release] ??= {}) as Record<string, unknown>;
  const parts = path.split(".");
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
  cur[parts[parts.length - 1]] = value;
  return { ...cfg, releaseValues: rv };
}

/** Compares a config with a deployed one, as the stack does (stacks/installedSettings.ts `refuseInstalledChanges`). */
function compare(
  now: ControlPlaneConfig | ComputePlaneConfig,
  deployed: ControlPlaneConfig | ComputePlaneConfig,
  deployedPassword = "generated-password-0123456789",
) {
  const prev = installedOf(deployed);
  const cur = installedOf(now);
  const pw = now.plane === "control" ? (now as ControlPlaneConfig).cassandraPassword : undefined;
  const prevPw =
    deployed.plane === "control"
      ? ((deployed as ControlPlaneConfig).cassandraPassword ?? deployedPassword)
      : "";
  return installedChanges(
    {
      record: cur.record,
      digests: { ...cur.digests, ...(pw ? cassandraPasswordDigest(pw) : {}) },
      cassandraPassword: pw,
      allow: now.allowInstalledChanges,
      releaseValues: now.releaseValues,
    },
    { record: prev.record, digests: { ...prev.digests, ...(prevPw ? cassandraPasswordDigest(prevPw) : {}) } },
  );
}

describe("the record a stack exports", () => {
  test("control plane: the deployed volume sizes, classes, replication and names, the password's origin", () => {
    const { record, digests } = installedOf(allControl());
    expect(record.version).toBe(1);
    expect(record.cassandraPassword).toBe("generated");
    expect(record.settings["cassandra.volumes"]).toMatchObject({
      "cassandra.persistence.size": "10Gi",
      "cassandra.global.defaultStorageClass": null,
    });
    expect(record.settings["cassandra.replication"]).toEqual({ "cassandra.replicaCount": 3 });
    expect(record.settings["openbao-server.volumes"]).toMatchObject({
      "openbao.server.dataStorage.size": "10Gi",
    });
    expect(record.settings["victoria-metrics.volumes"]).toMatchObject({
      "server.persistentVolume.size": "16Gi",
    });
    expect(record.settings["victoria-metrics.statefulSet"]).toMatchObject({
      "server.fullnameOverride": "vmsingle",
    });
    expect(record.settings["openbao-server.issuerDiscovery"]).toEqual({
      "openbao.migrations.issuerDiscovery": { enabled: false },
    });
    // Every setting of every installed release is recorded, nothing of a release the stack does not install.
    const ids = INSTALLED_SETTINGS.filter((s) => s.planes.includes("control")).map((s) => s.id);
    expect(Object.keys(record.settings).sort()).toEqual(ids.sort());
    expect(digests).toEqual({});
    expect(
      Object.keys(
        installedOf(validateConfig(baseControl(), SECRETS, "prod") as ControlPlaneConfig).record.settings,
      ),
    ).not.toContain("vanity-gateway.selector");
  });

  test("a storage class set in config reaches Cassandra, NATS and OpenBao's records", () => {
    const { record } = installedOf(allControl({ storage: j({ className: "fast", size: "20Gi" }) }));
    expect(record.settings["cassandra.volumes"]).toMatchObject({
      "cassandra.global.defaultStorageClass": "fast",
      "cassandra.persistence.size": "20Gi",
    });
    expect(record.settings["nats.volumes"]).toMatchObject({
      "nats.config.jetstream.fileStore.pvc.storageClassName": "fast",
    });
    expect(record.settings["openbao-server.volumes"]).toMatchObject({
      "openbao.server.dataStorage.storageClass": "fast",
      "openbao.server.dataStorage.size": "20Gi",
    });
  });

  test("a credential path is recorded as a digest, never in plain text", () => {
    const cfg = withValue(allControl(), "cassandra", "cassandra.dbUser.password", sentinel("superuser"));
    const { record, digests } = installedOf(cfg);
    expect(record.settings["cassandra.superuser"]["cassandra.dbUser.password"]).toBe("[digest]");
    expect(Object.keys(digests)).toEqual(["cassandra.superuser:cassandra.dbUser.password"]);
    expect(JSON.stringify({ record, digests })).not.toContain(sentinel("superuser"));
  });

  test("compute plane: KAI's default queues, Dynamo's NATS, the operator's selector, the cluster's metrics store", () => {
    const { record } = installedOf(allCompute());
    expect(Object.keys(record.settings).sort()).toEqual(
      [
        "dynamo-operator.natsVolumes",
        "kai-scheduler.defaultQueues",
        "nvca-operator.selector",
        "victoria-metrics.statefulSet",
        "victoria-metrics.volumes",
      ].sort(),
    );
    expect(record.settings["kai-scheduler.defaultQueues"]["defaultQueue"]).toMatchObject({
      parentName: "default-parent-queue",
      childName: "default-queue",
    });
    expect(record.cassandraPassword).toBeUndefined();
  });
});

/** A value different from whatever the setting's first path holds now. */
const other = (v: unknown): unknown =>
  typeof v === "number" ? v + 1 : v === true ? false : `changed-${String(v)}`;

describe("every installed setting has its rule", () => {
  test("every stateful release has its volumes recorded on each plane that installs it", () => {
    for (const plane of ["control", "compute"] as const)
      for (const r of planeReleases(plane).filter((x) => x.stateful))
        expect(
          INSTALLED_SETTINGS.filter(
            (s) => s.release === r.name && s.planes.includes(plane) && s.id.endsWith(".volumes"),
          ).map((s) => `${plane}: ${s.id}`),
        ).toEqual([`${plane}: ${r.name}.volumes`]);
  });

  const control = allControl();
  const compute = allCompute();
  const cases = INSTALLED_SETTINGS.flatMap((s) =>
    s.planes.map((plane) => [`${s.id} (${plane} plane)`, s, plane] as [string, InstalledSetting, string]),
  );

  test.each(cases)("%s", (_id, s, plane) => {
    const base = plane === "control" ? control : compute;
    const path = s.paths[0];
    const was = installedOf(base).record.settings[s.id][path];
    const changed = withValue(base, s.release, path, other(was));
    const r = compare(changed, base);
    const key = `nvcf:releaseValues.${s.release}.${path}`;
    if (s.handling === "refuse") {
      expect(r.problems.map((p) => p.key)).toEqual([key]);
      const p = r.problems[0];
      expect(p.expected).toContain(s.carriedBy);
      expect(p.expected).toContain(s.why);
      expect(p.fix).toContain(`nvcf:allowInstalledChanges[0]' ${s.id}`);
      expect(p.fix).toContain(s.fix);
      // The override lets it through, and the preview says what must have happened first.
      const allowed = compare({ ...changed, allowInstalledChanges: [s.id] }, base);
      expect(allowed.problems).toEqual([]);
      expect(allowed.notes).toEqual([
        expect.objectContaining({
          level: "warn",
          message: expect.stringContaining(`let through by nvcf:allowInstalledChanges (${s.id})`),
        }),
      ]);
    } else {
      // Applied by a hook: no problem, and the preview names the hook.
      expect(r.problems).toEqual([]);
      expect(r.notes).toEqual([{ level: "info", message: expect.stringContaining(`applied by ${s.fix}`) }]);
    }
  });

  test("an unchanged config has nothing to say", () => {
    expect(compare(control, control)).toEqual({ problems: [], notes: [] });
    expect(compare(compute, compute)).toEqual({ problems: [], notes: [] });
  });

  test("a setting or path the deployed record does not hold (an older program recorded it) is recorded, not compared", () => {
    const prev = installedOf(control).record;
    delete prev.settings["cassandra.cluster"];
    delete prev.settings["cassandra.volumes"]["cassandra.persistence.size"];
    const now = withValue(
      withValue(control, "cassandra", "cassandra.cluster.name", "x"),
      "cassandra",
      "cassandra.persistence.size",
      "1Ti",
    );
    const cur = installedOf(now);
    expect(
      installedChanges(
        { record: cur.record, digests: {}, allow: [], releaseValues: now.releaseValues },
        { record: prev, digests: {} },
      ),
    ).toEqual({ problems: [], notes: [] });
  });

  test("a first run compares nothing", () => {
    const cur = installedOf(control);
    expect(
      installedChanges(
        { record: cur.record, digests: {}, allow: [], releaseValues: {}, cassandraPassword: "x" },
        {},
      ),
    ).toEqual({ problems: [], notes: [] });
  });
});

describe("first-class keys are named as the user set them", () => {
  const base = allControl();
  test("nvcf:storage.size: one problem for Cassandra's and OpenBao's volumes, with the deployed size and the way out", () => {
    const r = compare(allControl({ storage: j({ size: "20Gi" }) }), base);
    expect(r.problems).toHaveLength(1);
    expect(formatProblem(r.problems[0])).toBe(
      'nvcf:storage.size: expected "10Gi", the value deployed for Cassandra\'s data volumes (StatefulSet cassandra-system/cassandra) and OpenBao\'s volumes (StatefulSet vault-system/openbao-server) (Kubernetes does not change a StatefulSet\'s volumeClaimTemplates, so helm upgrade fails), found "20Gi". ' +
        "Fix: pulumi config set --path nvcf:storage.size 10Gi; or, to change it, grow each PersistentVolumeClaim (kubectl patch pvc; the StorageClass must allow expansion) or move the data to new claims, then delete the StatefulSet with kubectl delete statefulset --cascade=orphan (pods and claims stay), " +
        "then pulumi config set --path 'nvcf:allowInstalledChanges[0]' cassandra.volumes and pulumi config set --path 'nvcf:allowInstalledChanges[1]' openbao-server.volumes (docs/installed-settings.md)",
    );
  });

  test("nvcf:storage.className from the cluster default: removing it is the way back", () => {
    const r = compare(allControl({ storage: j({ className: "fast" }) }), base);
    expect(r.problems.map((p) => p.key)).toEqual(["nvcf:storage.className"]);
    expect(r.problems[0].found).toBe('"fast"');
    expect(r.problems[0].fix).toMatch(/^pulumi config rm --path nvcf:storage.className; /);
    for (const id of ["cassandra.volumes", "nats.volumes", "openbao-server.volumes"])
      expect(r.problems[0].fix).toContain(id);
  });

  test("nvcf:cassandra.replicas: the keyspaces' replication is install-only", () => {
    const r = compare(allControl({ cassandra: j({ replicas: 5 }) }), base);
    expect(r.problems.map((p) => [p.key, p.found])).toEqual([["nvcf:cassandra.replicas", "5"]]);
    expect(r.problems[0].fix).toMatch(
      /^pulumi config set --path nvcf:cassandra.replicas 3; .*ALTER KEYSPACE/,
    );
  });

  test("a releaseValues override of a first-class path is named by its releaseValues key", () => {
    const r = compare(withValue(base, "cassandra", "cassandra.persistence.size", "30Gi"), base);
    expect(r.problems.map((p) => p.key)).toEqual(["nvcf:releaseValues.cassandra.cassandra.persistence.size"]);
  });

  test("nvcf:openbao.issuerDiscovery is applied by the migrations hook: the preview says so", () => {
    const r = compare(allControl({ openbao: j({ issuerDiscovery: true }) }), base);
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([
      {
        level: "info",
        message:
          'nvcf:openbao.issuerDiscovery: {"enabled":false} → {"enabled":true}, applied by the post-install/post-upgrade hook Job vault-system/openbao-server-migrations of release openbao-server (OpenBao\'s JWT auth configuration, written by the migrations)',
      },
    ]);
  });
});

describe("the Cassandra password, compared by digest", () => {
  const generated = allControl();
  const set = allControl({ cassandraPassword: sentinel("cassandra-a") });
  test("generated, and still generated: nothing to compare", () => {
    expect(compare(generated, generated).problems).toEqual([]);
  });
  test("generated, then the same password set in config: fine", () => {
    expect(
      compare(allControl({ cassandraPassword: "generated-password-0123456789" }), generated).problems,
    ).toEqual([]);
  });
  test("generated, then another password set: refused, the fix removes it", () => {
    const r = compare(set, generated);
    expect(r.problems.map((p) => [p.key, p.found])).toEqual([
      ["nvcf:cassandraPassword", "[secret] (another password)"],
    ]);
    expect(r.problems[0].expected).toContain("which the program generated");
    expect(r.problems[0].fix).toMatch(
      /^pulumi config rm nvcf:cassandraPassword; .*ALTER ROLE.*'nvcf:allowInstalledChanges\[0\]' cassandra.password/,
    );
  });
  test("set, then another: refused; set, then removed: refused (a new one would be generated)", () => {
    const r = compare(allControl({ cassandraPassword: sentinel("cassandra-b") }), set);
    expect(r.problems.map((p) => p.key)).toEqual(["nvcf:cassandraPassword"]);
    expect(r.problems[0].fix).toMatch(
      /^pulumi config set --secret nvcf:cassandraPassword <the deployed password>/,
    );
    const removed = compare(generated, set);
    expect(removed.problems.map((p) => p.found)).toEqual([
      "nothing, so the program would generate a new password",
    ]);
  });
  test("set, then the same: fine; allowed: a warning instead", () => {
    expect(compare(allControl({ cassandraPassword: sentinel("cassandra-a") }), set).problems).toEqual([]);
    const allowed = compare(
      {
        ...allControl({ cassandraPassword: sentinel("cassandra-b") }),
        allowInstalledChanges: [CASSANDRA_PASSWORD_ID],
      },
      set,
    );
    expect(allowed.problems).toEqual([]);
    expect(allowed.notes.map((n) => n.level)).toEqual(["warn"]);
  });
  test("no password or digest is ever in a problem or a note", () => {
    const r = compare(allControl({ cassandraPassword: sentinel("cassandra-b") }), set);
    expect(JSON.stringify(r)).not.toMatch(/SENTINEL/);
  });
});

describe("nvcf:allowInstalledChanges", () => {
  test("an entry with nothing to let through is pointed out for removal", () => {
    const cfg = allControl();
    const r = compare({ ...cfg, allowInstalledChanges: ["cassandra.volumes"] }, cfg);
    expect(r.notes).toEqual([
      {
        level: "warn",
        message:
          "nvcf:allowInstalledChanges[0] (cassandra.volumes): nothing of it changes against what is deployed; remove it once the change it allowed is deployed (pulumi config rm --path 'nvcf:allowInstalledChanges[0]')",
      },
    ]);
  });
  test("an unknown id is a config problem listing the ids of the plane", () => {
    expect(allowListProblems("control", ["cassandra.volumes", "cassandra.volume"]).map((p) => p.key)).toEqual(
      ["nvcf:allowInstalledChanges[1]"],
    );
    expect(allowListProblems("compute", ["cassandra.volumes"])[0].expected).toContain(
      "kai-scheduler.defaultQueues",
    );
    expect(allowableIds("control")).toContain(CASSANDRA_PASSWORD_ID);
    expect(allowableIds("control")).not.toContain("openbao-server.issuerDiscovery");
  });
});

describe("the stack program", () => {
  test("refuseInstalledChanges throws a ConfigError listing every refused change and logs the notes", () => {
    const base = allControl();
    const prev = installedOf(base);
    const lines: string[] = [];
    const now = allControl({
      storage: j({ size: "20Gi" }),
      openbao: j({ issuerDiscovery: true }),
      cassandra: j({ replicas: 5 }),
    });
    let err: unknown;
    try {
      refuseInstalledChanges(
        "prod",
        now,
        {
          deployed: true,
          values: { installed: prev.record, installedDigests: cassandraPasswordDigest("p") },
        },
        { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`) },
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.key)).toEqual([
      "nvcf:storage.size",
      "nvcf:cassandra.replicas",
    ]);
    expect(lines).toEqual([expect.stringMatching(/^info nvcf:openbao.issuerDiscovery: /)]);
    // A first run (no record) compares nothing.
    expect(() => refuseInstalledChanges("prod", now, { deployed: false, values: {} })).not.toThrow();
  });

  test("dev: the first up exports the record; a changed size and password are refused before any resource is registered", async () => {
    const first = await render({ stack: "dev", gateways: GATEWAYS });
    expect(first.error).toBeUndefined();
    expect(first.secretOutputs).toContain("installedDigests");
    expect(first.secretOutputs).not.toContain("installed");
    const installed = first.outputs["installed"] as { settings: Record<string, Record<string, unknown>> };
    expect(installed.settings["cassandra.volumes"]["cassandra.persistence.size"]).toBe("10Gi");
    const digests = first.outputs["installedDigests"] as Record<string, string>;
    expect(digests).toEqual(cassandraPasswordDigest("mock-random-password-0123456789"));

    const second = await render({
      stack: "dev",
      preview: true,
      overrides: { storage: { size: "20Gi" } },
      secrets: { cassandraPassword: "another-cassandra-password" },
      previousOutputs: { installed, installedDigests: digests },
      previousSecretOutputs: ["installedDigests"],
    });
    expect(second.error).toBeInstanceOf(ConfigError);
    expect((second.error as ConfigError).problems.map((p) => p.key)).toEqual([
      "nvcf:storage.size",
      "nvcf:cassandraPassword",
    ]);
    // Only the stack itself and the read of its own outputs: nothing else was registered.
    expect(second.events).toEqual([
      "register pulumi:pulumi:Stack::nvcf-dev",
      "register pulumi:pulumi:StackReference::previous-outputs",
    ]);
    expect(second.error?.message).not.toContain("another-cassandra-password");

    // The same config as deployed: no refusal, the same record.
    const again = await render({
      stack: "dev",
      gateways: GATEWAYS,
      previousOutputs: { installed, installedDigests: digests },
      previousSecretOutputs: ["installedDigests"],
    });
    expect(again.error).toBeUndefined();
    expect(again.outputs["installed"]).toEqual(installed);
  }, 120_000);
});
