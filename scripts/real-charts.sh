#!/usr/bin/env bash
# A chart directory for `nvcf:charts.path` made of NVIDIA's real chart sources, to run the dev stacks on the local
# clusters with NVIDIA's charts (docs/chart-sources.md "NVIDIA's real charts on the local clusters"). Not part of
# the test command: it needs a checkout of NVIDIA/nvcf, and the subcharts the real charts do not vendor.
#
#   bash scripts/real-charts.sh --nvcf DIR --out DIR [--bundle 0.8.0] [--subcharts DIR]
#
# --nvcf       a checkout of github.com/NVIDIA/nvcf (its deploy/helm, deploy/stacks and src/uis trees are read)
# --out        the directory to write (created; an existing one is refused): one <chart>/ per chart of the bundle
# --bundle     the catalog's bundle whose chart versions are stamped (default 0.8.0)
# --subcharts  a directory holding unpacked subcharts as <name>-<version>/ (`helm pull --untar`, or the chart's
#              directory at its release tag in its public source repository), used for a dependency the chart
#              source does not vendor; without it, or when it lacks one, `helm dependency build` fetches it from the
#              dependency's repository (network), and the script stops naming the chart and the subchart when
#              that fails. At NVIDIA/nvcf HEAD: helm-nvcf-nats needs nats 1.3.15 (nats-io/k8s, tag nats-1.3.15,
#              helm/charts/nats), helm-nvcf-openbao-server needs openbao 0.28.3 (openbao/openbao-helm, tag
#              openbao-0.28.3, charts/openbao); cert-manager is vendored.
#
# Each chart of NVIDIA's own (catalog origin nvcf and the stack-local charts) is copied from its source directory,
# with the version of its Chart.yaml set to the one the catalog pins for the bundle, as NVIDIA's release pipeline
# stamps a published chart (the sources say 0.0.0 or a version of their own). The charts NVIDIA's repository has no
# source for (the third-party charts NVIDIA's stacks take from upstream or republish, and helm-nvcf-state-metrics)
# are linked to their stand-ins under tests/charts (the one of the pinned version when there is one), and listed at
# the end. Prints the directory. Helm: NVCF_HELM, else scripts/helm.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

nvcf="" out="" bundle=0.8.0 subcharts=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nvcf) nvcf=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --bundle) bundle=${2:?}; shift 2 ;;
    --subcharts) subcharts=${2:?}; shift 2 ;;
    *) die "usage: scripts/real-charts.sh --nvcf DIR --out DIR [--bundle 0.8.0] [--subcharts DIR]" ;;
  esac
done
[ -n "$nvcf" ] && [ -n "$out" ] || die "--nvcf and --out are required"
[ -d "$nvcf/deploy/helm" ] || die "$nvcf has no deploy/helm: not a checkout of NVIDIA/nvcf"
[ ! -e "$out" ] || die "$out exists: give a new directory"
helm=${NVCF_HELM:-$(bash "$ROOT/scripts/helm.sh")}

# Where each of NVIDIA's charts lives in NVIDIA/nvcf (the chart's name in its Chart.yaml = the catalog's chart).
source_of() {
  case "$1" in
    helm-nvcf-nats) echo deploy/helm/nats ;;
    helm-nvcf-cert-manager) echo deploy/helm/cert-manager ;;
    helm-nvcf-openbao-server) echo deploy/helm/openbao/helm ;;
    helm-nvcf-pki) echo deploy/helm/nvcf-pki ;;
    helm-nvcf-cassandra) echo deploy/helm/cassandra/helm ;;
    helm-nvcf-api-keys) echo deploy/helm/api-keys-colocated/api-keys ;;
    helm-nvcf-sis) echo deploy/helm/icms/icms-api ;;
    helm-nvcf-api) echo deploy/helm/cloud-functions/nvcf-api ;;
    helm-nvcf-nvct-api) echo deploy/helm/cloud-tasks/nvct-api ;;
    helm-nvcf-invocation-service) echo deploy/helm/http-invocation/nvcf-invocation-service ;;
    helm-nvcf-grpc-proxy) echo deploy/helm/grpc-proxy/grpc-proxy ;;
    helm-nvcf-rate-limiter) echo deploy/helm/ratelimiter/nvcf-ratelimiter ;;
    helm-nvcf-ess-api) echo deploy/helm/encrypted-secret-store/ess-api ;;
    helm-nvcf-notary-service) echo deploy/helm/notary/nvcf-notary-service ;;
    helm-admin-token-issuer-proxy) echo deploy/helm/admin-token-issuer-proxy/chart ;;
    helm-reval) echo deploy/helm/helm-reval ;;
    helm-nvcf-nats-auth-callout-service) echo deploy/helm/nats-auth-callout ;;
    helm-nvcf-llm-request-router) echo deploy/helm/llm-request-router/llm-request-router ;;
    helm-nvcf-llm-api-gateway) echo deploy/helm/llm-api-gateway/llm-api-gateway ;;
    helm-nvcf-vanity-gateway) echo deploy/helm/vanity-gateway/helm-nvcf-vanity-gateway ;;
    helm-nvcf-ui) echo src/uis/nvcf-ui/helm ;;
    nvcf-gateway-routes) echo deploy/helm/gateway-routes/chart ;;
    helm-nvcf-function-autoscaler) echo deploy/helm/function-autoscaler ;;
    helm-nvca-operator) echo deploy/helm/nvca-operator/nvca-operator ;;
    nvcf-otel-collector | nvcf-default-monitors) echo "deploy/stacks/observability/charts/$1" ;;
    nvcf-cluster-topology) echo deploy/stacks/nvcf-compute-plane/charts/nvcf-cluster-topology ;;
  esac
}

# Every chart of the bundle, both planes, with its pinned version: "<chart> <version>" per line.
charts=$(cd "$ROOT" && npx ts-node --transpile-only -e '
  const c = require("./catalog/releases"), s = require("./catalog/sources");
  for (const e of s.mirrorList([...c.CONTROL_PLANE_RELEASES, ...c.COMPUTE_PLANE_RELEASES], process.argv[1]))
    console.log(e.chart, e.version);' "$bundle" | sort -u)
[ -n "$charts" ] || die "no charts for bundle $bundle"

mkdir -p "$out"
standins=()
while read -r chart version; do
  src=$(source_of "$chart")
  if [ -z "$src" ] || [ ! -f "$nvcf/$src/Chart.yaml" ]; then
    # The stand-in of that version when there is one (tests/charts/<chart>-<version>/), as charts.path resolves it.
    if [ -d "$ROOT/tests/charts/$chart-$version" ]; then
      ln -s "$ROOT/tests/charts/$chart-$version" "$out/$chart-$version"
    else
      [ -d "$ROOT/tests/charts/$chart" ] || die "no source and no stand-in for $chart"
      ln -s "$ROOT/tests/charts/$chart" "$out/$chart"
    fi
    standins+=("$chart")
    continue
  fi
  cp -r "$nvcf/$src" "$out/$chart"
  sed -i "s/^version:.*/version: $version/" "$out/$chart/Chart.yaml"
  # Subcharts the source does not vendor under charts/: from --subcharts, else fetched by Helm from their repository.
  deps=$(awk '/^dependencies:/ { d = 1; next } d && /^[^ -]/ { d = 0 }
    d && /name:/ { n = $NF } d && /version:/ { v = $NF } d && /repository:/ { r = $NF }
    d && n != "" && v != "" && r != "" { gsub(/"/, "", v); gsub(/"/, "", r); print n, v, r; n = v = r = "" }' "$out/$chart/Chart.yaml")
  missing=()
  while read -r dep depv repo; do
    [ -n "$dep" ] || continue
    [ -f "$out/$chart/charts/$dep/Chart.yaml" ] && continue
    if [ -n "$subcharts" ] && [ -f "$subcharts/$dep-$depv/Chart.yaml" ]; then
      mkdir -p "$out/$chart/charts"
      cp -r "$subcharts/$dep-$depv" "$out/$chart/charts/$dep"
    else
      missing+=("$dep $depv from $repo")
    fi
  done <<<"$deps"
  if [ ${#missing[@]} -gt 0 ]; then
    "$helm" dependency build "$out/$chart" >/dev/null ||
      die "$chart needs subcharts it does not vendor: ${missing[*]}; Helm could not fetch them: give them with --subcharts DIR (<name>-<version>/)"
  fi
  log "$chart $version: from $src"
done <<<"$charts"
log "stand-ins (no source in NVIDIA/nvcf): ${standins[*]:-none}"
echo "$out"
