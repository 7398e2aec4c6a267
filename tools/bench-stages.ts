/**
 * NVIDIA's Helmfile files of the control plane, restated once for both their readers: the stage-barrier schedule
 * of scripts/bench.sh (tools/bench-analyze.ts `stageSchedule`, which needs the files and their order) and the
 * catalog's fidelity test (tests/unit/catalog/releases.test.ts, which needs every release's `needs:`, `helmfileNeeds`).
 *
 * NVIDIA's self-managed stack (`deploy/stacks/self-managed/helmfile.d/`) is four files that Helmfile runs one
 * after the other: `00-observability-infrastructure` (which pulls in the observability sub-stack's
 * `deploy/stacks/observability/helmfile.d/01-observability`), `01-dependencies`, `02-core` and
 * `03-observability`. Inside a file, a release waits for the releases its `needs:` names; a file starts only
 * when the previous one has finished. The table restates, in this project's release names (catalog/releases.ts),
 * which file each release is in and which `needs:` it has there. Edges the program adds for the charts' real
 * prerequisites (catalog/releases.ts `needs` reasons) are not Helmfile's and are not listed.
 */

/** One Helmfile file: its releases and, per release, the releases of the same file it `needs`. */
export interface HelmfileStage {
  file: string;
  releases: Record<string, string[]>;
}

/** The four control-plane files in the order Helmfile runs them. */
export const CONTROL_PLANE_STAGES: readonly HelmfileStage[] = [
  {
    file: "00-observability-infrastructure (observability/helmfile.d/01-observability)",
    releases: {
      "prometheus-operator-crds": [],
      "opentelemetry-operator": ["prometheus-operator-crds"],
      "victoria-metrics": [],
      "otel-collector": ["opentelemetry-operator", "prometheus-operator-crds", "victoria-metrics"],
      "default-monitors": ["prometheus-operator-crds"],
    },
  },
  {
    file: "01-dependencies",
    releases: {
      nats: [],
      "cert-manager": [],
      "openbao-server": ["nats"],
      "nvcf-pki": ["openbao-server", "cert-manager"],
      cassandra: [],
    },
  },
  {
    file: "02-core",
    releases: {
      "api-keys": [],
      sis: [],
      api: ["ess-api"],
      "nvct-api": [],
      "invocation-service": ["api"],
      "grpc-proxy": ["api"],
      ratelimiter: ["api"],
      "ess-api": [],
      "notary-service": [],
      "admin-issuer-proxy": [],
      reval: [],
      "nats-auth-callout-service": [],
      "llm-request-router": ["api"],
      "llm-api-gateway": ["llm-request-router"],
      "vanity-gateway": ["invocation-service"],
      "nvcf-ui": [],
      ingress: ["notary-service", "api-keys", "nvcf-ui"],
    },
  },
  {
    file: "03-observability",
    releases: {
      "state-metrics": [],
      "function-autoscaler": ["state-metrics"],
    },
  },
];

/**
 * Every release's Helmfile `needs:` across the files, by this project's release name (every optional release listed,
 * every condition of the files taken as true). Input: the files (default: the control
 * plane's). Output: release name → the releases it needs, in the files' order. Throws when a release is in two
 * files or needs a release of no file (a mistake in the table).
 */
export function helmfileNeeds(
  stages: readonly HelmfileStage[] = CONTROL_PLANE_STAGES,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const stage of stages)
    for (const [release, needs] of Object.entries(stage.releases)) {
      if (release in out) throw new Error(`release ${release} is listed in two Helmfile files`);
      out[release] = [...needs];
    }
  for (const [release, needs] of Object.entries(out))
    for (const n of needs)
      if (!(n in out)) throw new Error(`release ${release} needs ${n}, which no Helmfile file lists`);
  return out;
}
