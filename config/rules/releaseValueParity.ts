/**
 * The rules of first-class keys held through `nvcf:releaseValues` (pure): an override that sets the same chart
 * value as a dedicated key (the Cassandra password, replica counts, account limits, NVCA's feature gates and
 * version-bound values) is judged by the same rule, and the overrides that hold a credential are named so that
 * `validateConfig` (config/load.ts) can require `nvcf:releaseValues` to be a secret. Sources: docs/upstream-facts.md
 * §1.9, §2.6, §4 rows 1, 9, 11, 27, 33; the charts' values under NVIDIA's `deploy/helm/`.
 */
import { versionAtLeast } from "../../catalog/releases";
import { valueAt } from "../paths";
import { type Problem, describe } from "../problems";
import { CASSANDRA_PRESETS, type ComputePlaneConfig, type ControlPlaneConfig } from "../schema";
import { ACCOUNT_LIMITS_MAX } from "./accounts";
import { PRESET_EXPECTED, cassandraPasswordReasons, presetTooSmall } from "./cassandra";
import { opVersionOf } from "./compute";
import { K, Q, type RuleContext, problemList } from "./context";

/** The env names the OpenBao migrations job must get, all three (secrets template; `values/control.ts`). */
export const OPENBAO_MIGRATIONS_ENV = [
  "DEFAULT_CASSANDRA_PASSWORD",
  "NVCF_API_SIDECARS_IMAGE_PULL_SECRET",
  "ADMIN_CLIENT_ID",
] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The rules of first-class keys applied to the chart values they set, when those values are written through
 * `releaseValues` instead. Input: the validated config of either plane and the rule context. Output: one
 * problem per breach, keyed by the `releaseValues` path, secrets redacted:
 * - control plane: the Cassandra password (`cassandra.cassandra.serviceRolePassword` and the OpenBao
 *   migrations env `DEFAULT_CASSANDRA_PASSWORD`) is refused when it is the chart default or shorter than 8
 *   characters, and both must stay the same password (one feeds Cassandra's service role, the other what
 *   the NVCF services log in with); an overridden migrations `env` list (lists replace) must still carry all
 *   of `OPENBAO_MIGRATIONS_ENV`, with `ADMIN_CLIENT_ID` `ncp`; Cassandra `replicaCount` (whole number >= 1)
 *   and `resourcesPreset` (medium or larger outside dev stacks), OpenBao `injector.replicas`, the rate
 *   limiter's and the vanity gateway's `replicaCount` (>= 1), the API's `accountBootstrap.limits` (1 to max);
 * - compute plane: NVCA `selfManaged.featureGateValues` (gate names; KAIScheduler only with KAI), the host
 *   header overrides (helm-nvca-operator >= 1.12.0), `agent.byooOtelCollector` (>= 1.21.0), and Grove's
 *   `nodeSelector`, which grove-charts v0.1.0-alpha.9 (bundle 0.7.0) does not have.
 */
export function releaseValueParityRules(
  cfg: ControlPlaneConfig | ComputePlaneConfig,
  ctx: RuleContext,
): Problem[] {
  const { out, add } = problemList();
  const rv = cfg.releaseValues;
  const wholeAtLeast = (path: string, v: unknown, min: number, max?: number) => {
    if (v === undefined) return;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || (max !== undefined && v > max))
      add(
        path,
        max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`,
        describe(v),
        `pulumi config set --path ${Q(path)} ${max === undefined ? min : Math.min(max, 10)}`,
      );
  };
  if (cfg.plane === "control") {
    const c = cfg as ControlPlaneConfig;
    // Cassandra password, both places (docs/upstream-facts.md §4 rows 1, 27; docs/differences.md "Credentials by construction").
    const cassPath = "releaseValues.cassandra.cassandra.serviceRolePassword";
    const cassPw = valueAt(rv["cassandra"], ["cassandra", "serviceRolePassword"]);
    if (cassPw !== undefined)
      for (const r of cassandraPasswordReasons(cassPw))
        add(
          cassPath,
          "a Cassandra password other than the chart default, of at least 8 characters",
          `[secret] (${r})`,
          `pulumi config rm --path ${K(cassPath)}, and pulumi config set --secret nvcf:cassandraPassword <password> (it feeds both places), or leave both unset to have one generated`,
        );
    const envPath = "releaseValues.openbao-server.openbao.migrations.env";
    const env = valueAt(rv["openbao-server"], ["openbao", "migrations", "env"]);
    let baoPw: unknown = undefined;
    if (env !== undefined) {
      if (!Array.isArray(env) || !env.every((e) => isObj(e) && typeof e["name"] === "string")) {
        add(
          envPath,
          "a list of {name, value} entries",
          describe(env, true),
          `pulumi config rm --path ${K(envPath)}`,
        );
      } else {
        const names = env.map((e) => (e as Obj)["name"] as string);
        const missing = OPENBAO_MIGRATIONS_ENV.filter((n) => !names.includes(n));
        if (missing.length > 0)
          add(
            envPath,
            `all of ${OPENBAO_MIGRATIONS_ENV.join(", ")} (a list replaces the program's whole list)`,
            `no ${missing.join(", ")}`,
            `pulumi config rm --path ${K(envPath)}; the program sets all three (the Cassandra password from nvcf:cassandraPassword)`,
          );
        env.forEach((e, i) => {
          const entry = e as Obj;
          const p = `${envPath}[${i}].value`;
          if (entry["name"] === "DEFAULT_CASSANDRA_PASSWORD") {
            baoPw = entry["value"];
            for (const r of cassandraPasswordReasons(entry["value"]))
              add(
                p,
                "a Cassandra password other than the chart default, of at least 8 characters",
                `[secret] (${r})`,
                `pulumi config rm --path ${K(envPath)}, and pulumi config set --secret nvcf:cassandraPassword <password>`,
              );
          }
          if (entry["name"] === "ADMIN_CLIENT_ID" && entry["value"] !== "ncp")
            add(
              p,
              `"ncp" (the admin client the NVCF services trust)`,
              describe(entry["value"]),
              `pulumi config rm --path ${K(envPath)}`,
            );
        });
      }
    }
    if (cassPw !== undefined || baoPw !== undefined) {
      const first = cassPw ?? c.cassandraPassword;
      const second = baoPw ?? c.cassandraPassword;
      if (first === undefined || second === undefined || first !== second)
        add(
          cassPw !== undefined ? cassPath : `${envPath}`,
          "the same Cassandra password for Cassandra's service role and the OpenBao migrations env DEFAULT_CASSANDRA_PASSWORD",
          `[secret] (${cassPw !== undefined ? "set only here or different from the other" : "different from Cassandra's service-role password"})`,
          "remove both overrides and pulumi config set --secret nvcf:cassandraPassword <password> (it feeds both)",
        );
    }
    const cass = rv["cassandra"];
    wholeAtLeast(
      "releaseValues.cassandra.cassandra.replicaCount",
      valueAt(cass, ["cassandra", "replicaCount"]),
      1,
    );
    const preset = valueAt(cass, ["cassandra", "resourcesPreset"]);
    const presets: readonly string[] = CASSANDRA_PRESETS;
    if (preset !== undefined && (typeof preset !== "string" || !presets.includes(preset)))
      add(
        "releaseValues.cassandra.cassandra.resourcesPreset",
        `one of ${presets.join(", ")}`,
        describe(preset),
        "pulumi config set --path nvcf:cassandra.preset xlarge (and remove the override)",
      );
    else if (preset !== undefined && presetTooSmall(preset as string, ctx))
      add(
        "releaseValues.cassandra.cassandra.resourcesPreset",
        PRESET_EXPECTED,
        describe(preset),
        "pulumi config set --path nvcf:cassandra.preset xlarge (and remove the override)",
      );
    wholeAtLeast(
      "releaseValues.openbao-server.openbao.injector.replicas",
      valueAt(rv["openbao-server"], ["openbao", "injector", "replicas"]),
      1,
    );
    wholeAtLeast(
      "releaseValues.ratelimiter.rateLimiter.replicaCount",
      valueAt(rv["ratelimiter"], ["rateLimiter", "replicaCount"]),
      1,
    );
    wholeAtLeast(
      "releaseValues.vanity-gateway.vanityGateway.replicaCount",
      valueAt(rv["vanity-gateway"], ["vanityGateway", "replicaCount"]),
      1,
    );
    const limits = valueAt(rv["api"], ["api", "accountBootstrap", "limits"]);
    if (isObj(limits))
      for (const [k, max] of Object.entries(ACCOUNT_LIMITS_MAX))
        wholeAtLeast(`releaseValues.api.api.accountBootstrap.limits.${k}`, limits[k], 1, max);
    return out;
  }
  const cc = cfg as ComputePlaneConfig;
  const op = rv["nvca-operator"];
  const gates = valueAt(op, ["selfManaged", "featureGateValues"]);
  const gatesPath = "releaseValues.nvca-operator.selfManaged.featureGateValues";
  if (gates !== undefined) {
    if (!Array.isArray(gates))
      add(
        gatesPath,
        "a list of feature gate names",
        describe(gates),
        `pulumi config rm --path ${K(gatesPath)}, and use nvcf:nvcaOperator.featureGates`,
      );
    else
      gates.forEach((g, i) => {
        const p = `${gatesPath}[${i}]`;
        if (typeof g !== "string" || !/^[A-Z][A-Za-z0-9]*$/.test(g))
          add(
            p,
            "a gate name such as LogPosting (this list goes to NVCA verbatim)",
            describe(g),
            `fix the spelling, or use nvcf:nvcaOperator.featureGates`,
          );
        else if (g === "KAIScheduler" && !cc.addons.kaiScheduler.enabled)
          add(
            p,
            "KAIScheduler only when the KAI scheduler is installed",
            describe(g),
            "remove it, or enable nvcf:addons.kaiScheduler (which adds the gate itself)",
          );
      });
  }
  const opVersion = opVersionOf(cc);
  const hostOverrides = [
    "icmsServiceHostHeaderOverride",
    "revalServiceHostHeaderOverride",
    "natsHostOverride",
  ];
  for (const h of hostOverrides)
    if (valueAt(op, ["selfManaged", h]) !== undefined && !versionAtLeast(opVersion, "1.12.0"))
      add(
        `releaseValues.nvca-operator.selfManaged.${h}`,
        `unset with helm-nvca-operator ${opVersion} (host header overrides need >= 1.12.0)`,
        describe(valueAt(op, ["selfManaged", h])),
        "remove it, or use chart 1.12.0 or later",
      );
  if (valueAt(op, ["agent", "byooOtelCollector"]) !== undefined && !versionAtLeast(opVersion, "1.21.0"))
    add(
      "releaseValues.nvca-operator.agent.byooOtelCollector",
      `unset with helm-nvca-operator ${opVersion} (agent.byooOtelCollector needs >= 1.21.0)`,
      describe(valueAt(op, ["agent", "byooOtelCollector"])),
      "remove it or set nvcf:bundleVersion 0.8.0",
    );
  if (valueAt(rv["grove-operator"], ["nodeSelector"]) !== undefined && cc.bundleVersion === "0.7.0")
    add(
      "releaseValues.grove-operator.nodeSelector",
      "unset in bundle 0.7.0 (grove-charts v0.1.0-alpha.9 has no nodeSelector value)",
      describe(valueAt(rv["grove-operator"], ["nodeSelector"])),
      "remove it, or set nvcf:bundleVersion 0.8.0",
    );
  return out;
}

/**
 * The `releaseValues` paths that hold a credential (the Cassandra service-role password, and the OpenBao
 * migrations env entries DEFAULT_CASSANDRA_PASSWORD and NVCF_API_SIDECARS_IMAGE_PULL_SECRET). Input: the
 * validated overrides. Output: key paths without `nvcf:`. `validateConfig` refuses them unless
 * `nvcf:releaseValues` is a secret, as it refuses a plain-text `nvcf:cassandraPassword`.
 */
export function releaseValueSecretPaths(releaseValues: Record<string, Record<string, unknown>>): string[] {
  const out: string[] = [];
  if (valueAt(releaseValues["cassandra"], ["cassandra", "serviceRolePassword"]) !== undefined)
    out.push("releaseValues.cassandra.cassandra.serviceRolePassword");
  const env = valueAt(releaseValues["openbao-server"], ["openbao", "migrations", "env"]);
  if (Array.isArray(env))
    env.forEach((e, i) => {
      if (
        isObj(e) &&
        ["DEFAULT_CASSANDRA_PASSWORD", "NVCF_API_SIDECARS_IMAGE_PULL_SECRET"].includes(String(e["name"]))
      )
        out.push(`releaseValues.openbao-server.openbao.migrations.env[${i}].value`);
    });
  return out;
}
