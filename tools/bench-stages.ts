/**
 * Helmfile's order of the control-plane releases, for the stage-barrier schedule of scripts/bench.sh
 * (tools/bench-analyze.ts `stageSchedule`).
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
      "otel-collector": ["opentelemetry-operator"],
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
