/**
 * What a preview and a failed update leave a reviewer (previews, and the outputs of a failed run):
 * - no control-plane release's values hold a secret inside a list, except the one list whose chart takes the
 *   credential only inline (nvcf-api's `api.accountBootstrap.registryCredentials`): the Kubernetes provider marks
 *   a list that holds a secret as secret as a whole (pulumi-kubernetes provider/pkg/provider/provider.go
 *   `annotateSecrets` recurses into maps only), so every other value must sit in a map or be taken by reference;
 * - the stack outputs are registered again as each one becomes known (engine/outputs.ts).
 * The end-to-end proof, with the real CLI and provider, is in tests/e2e/stacks.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import * as pulumi from "@pulumi/pulumi";
import { enabledReleases } from "../../../catalog/releases";
import { secureReleaseValuePaths, validateConfig, withSecretReleaseValues } from "../../../config/load";
import type { ControlPlaneConfig } from "../../../config/schema";
import { Acknowledgements, publishAsKnown, snapshot } from "../../../engine/outputs";
import { type ControlSecrets, controlValues } from "../../../values/control";
import { controlFlags } from "../../../config/flags";
import { ROOT, sentinelKubeconfig } from "../support/harness";

type Leaf = string | { secret: string };
const secret = (name: string): Leaf => ({ secret: name });

/** The example stack's config as the engine hands it over (secure values replaced by a stand-in). */
function exampleConfig(stack: string): ControlPlaneConfig {
  const doc = yaml.load(fs.readFileSync(path.join(ROOT, `Pulumi.${stack}.yaml`), "utf8")) as {
    config: Record<string, unknown>;
  };
  const raw: Record<string, string> = {};
  const secretKeys = new Set<string>();
  for (const [k, v] of Object.entries(doc.config)) {
    const key = k.replace(/^nvcf:/, "");
    if (v && typeof v === "object" && "secure" in v) {
      const clusters = (doc.config["nvcf:gpuClusters"] ?? []) as { name: string }[];
      raw[key] = key.endsWith("Kubeconfigs")
        ? JSON.stringify(Object.fromEntries(clusters.map((c) => [c.name, sentinelKubeconfig(c.name)])))
        : "stand-in-secret-value-0123456789";
      secretKeys.add(key);
    } else raw[key] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return validateConfig(raw, secretKeys, stack) as ControlPlaneConfig;
}

/** Paths of lists that hold a secret leaf anywhere below them. */
function listsWithSecrets(v: unknown, at = ""): string[] {
  const holds = (x: unknown): boolean =>
    x !== null &&
    typeof x === "object" &&
    ("secret" in (x as object) || Object.values(x as object).some((y) => holds(y)));
  if (Array.isArray(v)) return holds(v) ? [at] : [];
  if (v && typeof v === "object" && !("secret" in v))
    return Object.entries(v).flatMap(([k, x]) => listsWithSecrets(x, at ? `${at}.${k}` : k));
  return [];
}

describe("secrets in release values are masked one by one in previews", () => {
  for (const stack of ["dev", "prod-eks"]) {
    test(`${stack}: no release keeps a secret inside a list, except nvcf-api's registry credentials`, () => {
      const cfg = exampleConfig(stack);
      const secrets: ControlSecrets<Leaf> = {
        cassandraPassword: secret("cassandraPassword"),
        sidecarAuth: secret("sidecarAuth"),
        functionAuth: cfg.accounts.registryCredentials.map((_, i) => secret(`functionAuth[${i}]`)),
        migrationsSecretName: "nvcf-openbao-migrations-credentials-0a1b2c3d",
      };
      const found: string[] = [];
      for (const r of enabledReleases("control", cfg.bundleVersion, controlFlags(cfg)))
        for (const p of listsWithSecrets(controlValues(r.name, cfg, secrets))) found.push(`${r.name}: ${p}`);
      expect(found).toEqual(
        cfg.accounts.registryCredentials.length ? ["api: api.accountBootstrap.registryCredentials"] : [],
      );
    });
  }

  test("the OpenBao migrations take both credentials by reference when the Secret's name is given", () => {
    const cfg = exampleConfig("dev");
    const base = { cassandraPassword: "pw", sidecarAuth: "auth", functionAuth: ["fa"] };
    const env = (s: ControlSecrets<string>) =>
      (controlValues("openbao-server", cfg, s) as { openbao: { migrations: { env: unknown[] } } }).openbao
        .migrations.env;
    expect(env({ ...base, migrationsSecretName: "creds-1" })).toEqual([
      {
        name: "DEFAULT_CASSANDRA_PASSWORD",
        valueFrom: { secretKeyRef: { name: "creds-1", key: "DEFAULT_CASSANDRA_PASSWORD" } },
      },
      {
        name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET",
        valueFrom: { secretKeyRef: { name: "creds-1", key: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET" } },
      },
      { name: "ADMIN_CLIENT_ID", value: "ncp" },
    ]);
    // Without it (e.g. the values tool) the values are inline, as NVIDIA's secrets template writes them.
    expect(env(base)).toEqual([
      { name: "DEFAULT_CASSANDRA_PASSWORD", value: "pw" },
      { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: "auth" },
      { name: "ADMIN_CLIENT_ID", value: "ncp" },
    ]);
  });
});

describe("stack outputs are registered as they become known", () => {
  const later = <T>(v: T) => {
    let resolve: (x: T) => void = () => undefined;
    const o = pulumi.output(new Promise<T>((r) => (resolve = r)));
    return { o, resolve: () => resolve(v) };
  };
  const tick = () => new Promise((r) => setImmediate(r));

  test("a snapshot holds the known values and a placeholder for every unknown map entry", () => {
    const spec = {
      values: { domain: pulumi.output("d"), hosts: pulumi.output({}) },
      maps: {
        releases: {
          entries: { a: pulumi.output("deployed"), b: pulumi.output("deployed") },
          placeholder: "unfinished",
        },
      },
    };
    const s = snapshot(spec, new Set(["domain", "releases/a"]));
    expect(Object.keys(s).sort()).toEqual(["domain", "releases"]);
    expect(s["domain"]).toBe(spec.values.domain);
    expect(s["releases"]).toEqual({ a: spec.maps.releases.entries.a, b: "unfinished" });
  });

  test("a held output is registered as its value until the new one is known, then as the new one", async () => {
    const bundle = later("0.8.0");
    const spec = {
      values: { domain: pulumi.output("d") },
      maps: {},
      held: { bundleVersion: { value: bundle.o, until: "0.7.0" } },
    };
    expect(snapshot(spec, new Set(["domain"]))).toEqual({
      domain: spec.values.domain,
      bundleVersion: "0.7.0",
    });
    expect(snapshot(spec, new Set(["domain", "bundleVersion"]))["bundleVersion"]).toBe(bundle.o);
    const sent: Record<string, unknown>[] = [];
    const done = publishAsKnown(spec, async (o) => {
      sent.push(o);
    });
    for (let i = 0; i < 3; i++) await tick();
    // Every registration so far names the bundle the stack was at: a run cancelled now keeps it.
    expect(sent.length).toBeGreaterThan(0);
    for (const o of sent) expect(o["bundleVersion"]).toBe("0.7.0");
    bundle.resolve();
    await done;
    expect(sent[sent.length - 1]["bundleVersion"]).toBe(bundle.o);
  });

  test("each newly known output is registered again, one registration at a time; settled after the complete one", async () => {
    const a = later("deployed");
    const b = later("deployed");
    const reg = later({ "gpu-a": { clusterID: "x" } });
    const sent: Record<string, unknown>[] = [];
    let inFlight = 0;
    let overlapped = false;
    let settled = false;
    const done = publishAsKnown(
      {
        values: { domain: pulumi.output("nvcf.test"), clusterRegistrations: reg.o },
        maps: { releases: { entries: { a: a.o, b: b.o }, placeholder: "unfinished" } },
      },
      async (o) => {
        if (inFlight++ > 0) overlapped = true;
        await tick();
        sent.push(o);
        inFlight--;
      },
    ).then(() => (settled = true));
    const last = () => sent[sent.length - 1] ?? {};
    await tick();
    await tick();
    expect(Object.keys(last()).sort()).toEqual(["domain", "releases"]);
    expect((last()["releases"] as Record<string, unknown>)["b"]).toBe("unfinished");
    a.resolve();
    b.resolve();
    for (let i = 0; i < 5; i++) await tick();
    expect(
      Object.values(last()["releases"] as Record<string, unknown>).every((v) => v !== "unfinished"),
    ).toBe(true);
    // A failed run stops here: clusterRegistrations is never known, nothing more is registered, never settled.
    expect(settled).toBe(false);
    expect(last()).not.toHaveProperty("clusterRegistrations");
    reg.resolve();
    await done;
    expect(Object.keys(last()).sort()).toEqual(["clusterRegistrations", "domain", "releases"]);
    expect(overlapped).toBe(false);
  });

  test("a wait for outputs resolves once a registration holding them as known was acknowledged, not before", async () => {
    const a = later("deployed");
    const b = later("deployed");
    const acks = new Acknowledgements();
    const sent: Record<string, unknown>[] = [];
    let acknowledge: () => void = () => undefined;
    const order: string[] = [];
    publishAsKnown(
      { values: {}, maps: { releases: { entries: { a: a.o, b: b.o }, placeholder: "unfinished" } } },
      async (o) => {
        sent.push(o);
        order.push(
          `sent ${JSON.stringify(Object.keys(o["releases"] as object).filter((k) => (o["releases"] as Record<string, unknown>)[k] !== "unfinished"))}`,
        );
        await new Promise<void>((r) => (acknowledge = r));
        order.push("acknowledged");
      },
      acks,
    );
    const waitA = acks.wait(["releases/a"]).then(() => order.push("a waited"));
    const waitAB = acks.wait(["releases/a", "releases/b"]).then(() => order.push("a+b waited"));
    a.resolve();
    for (let i = 0; i < 5; i++) await tick();
    expect(order).toEqual(['sent ["a"]']);
    b.resolve();
    for (let i = 0; i < 5; i++) await tick();
    acknowledge();
    await waitA;
    for (let i = 0; i < 5; i++) await tick();
    acknowledge();
    await waitAB;
    expect(order).toEqual([
      'sent ["a"]',
      "acknowledged",
      "a waited",
      'sent ["a","b"]',
      "acknowledged",
      "a+b waited",
    ]);
    // Already acknowledged: at once.
    await acks.wait(["releases/a"]);
    expect(sent).toHaveLength(2);
  });

  test("when the engine refuses a registration, every wait resolves (no release is held for ever)", async () => {
    const a = later("deployed");
    const acks = new Acknowledgements();
    const settled = publishAsKnown(
      {
        values: {},
        maps: { releases: { entries: { a: a.o, b: pulumi.output("deployed") }, placeholder: "unfinished" } },
      },
      async () => {
        throw new Error("the engine is shutting down");
      },
      acks,
    );
    await settled;
    // `a` never became known; the waits resolve because publishing is over.
    await acks.wait(["releases/a"]);
    const ended = new Acknowledgements();
    ended.end();
    await ended.wait(["anything"]);
    a.resolve();
  });
});

describe("secret leaves of nvcf:releaseValues stay secret, each by itself", () => {
  const STACK_FILE = [
    "config:",
    "  nvcf:releaseValues:",
    "    cassandra:",
    "      cassandra:",
    "        resourcesPreset: large",
    "    nats:",
    "      nats:",
    "        auth:",
    "          token:",
    "            secure: v1:abc",
    "    openbao-server:",
    "      openbao:",
    "        migrations:",
    "          env:",
    "            - name: ADMIN_CLIENT_ID",
    "              value: ncp",
    "            - name: OTHER",
    "              value:",
    "                secure: v1:def",
    "",
  ].join("\n");

  test("the stack file says which leaves were set with --secret", () => {
    expect(secureReleaseValuePaths(STACK_FILE)).toEqual([
      ["nats", "nats", "auth", "token"],
      ["openbao-server", "openbao", "migrations", "env", 1, "value"],
    ]);
    expect(secureReleaseValuePaths("{not yaml")).toEqual([]);
  });

  test("those leaves and the known credential paths become secrets; every other leaf stays plain", async () => {
    const rv = {
      cassandra: { cassandra: { resourcesPreset: "large", serviceRolePassword: "a-long-password" } },
      nats: { nats: { auth: { token: "t0ken" } } },
      "openbao-server": {
        openbao: {
          migrations: {
            env: [
              { name: "ADMIN_CLIENT_ID", value: "ncp" },
              { name: "OTHER", value: "x" },
            ],
          },
        },
      },
    };
    const out = withSecretReleaseValues(rv, STACK_FILE) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const isSecret = (v: unknown) =>
      pulumi.Output.isInstance(v) ? (v as unknown as { isSecret: Promise<boolean> }).isSecret : false;
    expect(await isSecret(out.cassandra.cassandra.serviceRolePassword)).toBe(true);
    expect(await isSecret(out.nats.nats.auth.token)).toBe(true);
    expect(await isSecret(out["openbao-server"].openbao.migrations.env[1].value)).toBe(true);
    expect(out.cassandra.cassandra.resourcesPreset).toBe("large");
    expect(out["openbao-server"].openbao.migrations.env[0]).toEqual({
      name: "ADMIN_CLIENT_ID",
      value: "ncp",
    });
    // The input is left alone.
    expect(rv.nats.nats.auth.token).toBe("t0ken");
  });
});
