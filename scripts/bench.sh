#!/usr/bin/env bash
# Benchmark (prints figures; not a test): wall time of `pulumi up`, a no-op `pulumi preview` and
# `pulumi destroy` of the dev stack on the local cluster, and the program's own start-up time
# (loading the stack program and validating the config, without the engine), over N runs.
#   bash scripts/bench.sh [N=3]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
RUNS="${1:-3}"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
bash scripts/toolchain.sh >/dev/null
# shellcheck source=scripts/env.sh
source scripts/env.sh
bench_state=$(mktemp -d)
export PULUMI_BACKEND_URL="file://$bench_state" NVCF_CLI_ICMS_DIR="$bench_state/icms"
# shellcheck source=scripts/stack-env.sh
source scripts/stack-env.sh
bash scripts/npm-install.sh
bash scripts/cluster.sh up nvcf-dev nvcf-gpu-a nvcf-gpu-b >/dev/null
pulumi stack select --create dev >/dev/null

times=$(mktemp)
timed() { # label cmd...
  local t0 t1
  t0=$(date +%s%N)
  "${@:2}" >/dev/null
  t1=$(date +%s%N)
  echo "$1 $(( (t1 - t0) / 1000000 ))" >>"$times"
}
for i in $(seq 1 "$RUNS"); do
  log "run $i/$RUNS"
  timed "pulumi-up" pulumi up -s dev --yes --skip-preview
  timed "pulumi-preview-noop" pulumi preview -s dev --expect-no-changes
  timed "pulumi-destroy" pulumi destroy -s dev --yes --skip-preview
  timed "program-startup-control" npx ts-node --transpile-only -P tsconfig.json -e 'require("./stacks/control"); require("./config/load")'
  timed "program-startup-compute" npx ts-node --transpile-only -P tsconfig.json -e 'require("./stacks/compute"); require("./config/load")'
done
node -e '
  const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" "));
  const by = {};
  for (const [k, v] of rows) (by[k] ??= []).push(Number(v) / 1000);
  console.log("figure                        runs     min   median      max  (seconds)");
  for (const [k, v] of Object.entries(by)) {
    v.sort((a, b) => a - b);
    const med = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    console.log(k.padEnd(28), String(v.length).padStart(5), v[0].toFixed(2).padStart(8), med.toFixed(2).padStart(8), v[v.length - 1].toFixed(2).padStart(8));
  }
' "$times"
pulumi stack rm dev --yes --force --preserve-config >/dev/null 2>&1 || true
rm -rf "$bench_state"
