#!/usr/bin/env bash
# The main job on the embedded default: build (or reuse) the toolchain, start the local clusters, then
# `pulumi up` the control plane (stack dev) and the two GPU clusters' compute planes (dev-gpu-a,
# dev-gpu-b), print their outputs, and verify the environment with `nvcf status --env dev` (exit 6 when
# unhealthy; on the local GPU clusters the NVCFBackend and agent come from cluster.sh's stand-in NVCA
# operator). Re-running it is harmless (everything is idempotent).
#   bash scripts/main.sh            up
#   bash scripts/main.sh destroy    destroy in the only safe order (compute planes first), stop the clusters
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
bash scripts/toolchain.sh
bash scripts/policy-analyzer.sh >/dev/null
# shellcheck source=scripts/env.sh
source scripts/env.sh
# shellcheck source=scripts/stack-env.sh
source scripts/stack-env.sh
bash scripts/npm-install.sh

# Started with SIGINT ignored (in the background, nohup), every pulumi command would end 5 s late (scripts/lib.sh).
if sigint_ignored && command -v python3 >/dev/null; then
  pulumi() { sigint_default pulumi "$@"; }
fi

COMPUTE_STACKS=(dev-gpu-a dev-gpu-b)
select_stack() { pulumi stack select --create "$1" >/dev/null; }

if [ "${1:-up}" = destroy ]; then
  for s in "${COMPUTE_STACKS[@]}" dev; do
    select_stack "$s"
    log "pulumi destroy -s $s"
    pulumi destroy -s "$s" --yes --skip-preview
  done
  bash scripts/cluster.sh down
  exit 0
fi

bash scripts/cluster.sh up >/dev/null
for s in dev "${COMPUTE_STACKS[@]}"; do
  select_stack "$s"
  log "pulumi up -s $s"
  pulumi up -s "$s" --yes --skip-preview --policy-pack policy
done
for s in dev "${COMPUTE_STACKS[@]}"; do
  log "outputs of $s"
  pulumi stack output -s "$s"
done
log "nvcf status --env dev"
npx nvcf status --env dev
log "done: control plane dev and compute planes ${COMPUTE_STACKS[*]} are up (KUBECONFIG=$KUBECONFIG)"
