#!/usr/bin/env bash
# The extended tests (tests/extended/, the jest project `extended`): what needs more than the default test command
# starts, kept out of it for CI's time limit (docs/testing.md, "Extended tests"). `bash scripts/test.sh extended`
# runs this. Builds or reuses the toolchain and SeaweedFS (scripts/seaweedfs.sh: once, several minutes), starts fresh
# local clusters (the three of the default run and the optional nvcf-gpu-c and nvcf-gpu-d), the local S3 state store
# (scripts/state-store.sh) and, where scripts/postgres.sh can provide it, PostgreSQL; runs sharedstate.test.ts once
# per shared backend (NVCF_SHARED_BACKEND_URL), the cases of tests/e2e written with extendedTest, and
# environments.test.ts once (its own file backend); stops
# everything it started. Ends with one line "N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
bash scripts/toolchain.sh || die "toolchain build failed"
bash scripts/policy-analyzer.sh >/dev/null || die "policy analyzer build failed"
# shellcheck source=scripts/env.sh
source scripts/env.sh
bash scripts/npm-install.sh || die "npm ci failed"
NVCF_HELM=$(bash scripts/helm.sh) || die "helm build failed"
export NVCF_HELM
bash scripts/seaweedfs.sh >/dev/null || die "seaweedfs build failed"

results=$(mktemp -d)
status=0
CLUSTERS=(nvcf-dev nvcf-gpu-a nvcf-gpu-b nvcf-gpu-c nvcf-gpu-d)
bash scripts/cluster.sh down >/dev/null 2>&1 || true
bash scripts/state-store.sh down >/dev/null 2>&1 || true
backends=()
if bash scripts/cluster.sh up "${CLUSTERS[@]}" >/dev/null; then
  if store=$(bash scripts/state-store.sh up); then
    # The state store's credentials (local test keys) for the Pulumi CLI the tests run.
    eval "$store"
    backends+=("s3 $PULUMI_BACKEND_URL")
    unset PULUMI_BACKEND_URL
  else
    status=1
  fi
  if pg=$(bash scripts/postgres.sh up 2>"$results/postgres.log"); then
    backends+=("postgres $pg")
    # The pinned CLI's PostgreSQL backend opens at most 2 x GOMAXPROCS connections and lists stacks with more
    # workers than that: `pulumi stack ls` hangs once the backend holds that many stacks (docs/shared-state.md).
    # Fewer listing workers than connections avoids it.
    export PULUMI_DIY_BACKEND_PARALLEL=2
  else
    log "PostgreSQL: not tested ($(tail -n 1 "$results/postgres.log"))"
  fi
  for b in "${backends[@]}"; do
    read -r name url <<<"$b"
    log "extended tests on the $name state backend"
    NVCF_SHARED_BACKEND_URL="$url" npx jest --selectProjects extended --ci --runInBand --json \
      --outputFile="$results/$name.json" --runTestsByPath tests/extended/sharedstate.test.ts || status=1
  done
  # The cases of the default suites kept for this target (tests/e2e/project.ts extendedTest): each needs what its
  # suite sets up (the upgrade suite's 0.7.0 install; recovery's clean run, the reference every interrupted case
  # converges to), so they run in their own suite's file, selected by name with that set-up.
  log "extended cases of the end-to-end suites (API server lost during an install, rehearsal refusals)"
  NVCF_E2E_EXTENDED=1 npx jest --selectProjects e2e --ci --runInBand --json --outputFile="$results/e2e-extended.json" \
    --runTestsByPath tests/e2e/recovery.test.ts tests/e2e/upgrade.test.ts \
    -t "a clean run: every enabled release deployed once|the API server lost during an install|a rehearsal of a change a cluster-side rule refuses|SIGINT during a rehearsal" ||
    status=1
  log "extended tests of an environment's life (nvcf init, drift, up --refresh)"
  npx jest --selectProjects extended --ci --runInBand --json --outputFile="$results/environments.json" \
    --runTestsByPath tests/extended/environments.test.ts || status=1
else
  status=1
fi
bash scripts/postgres.sh down >/dev/null 2>&1 || true
bash scripts/state-store.sh down >/dev/null || { echo "state-store.sh down failed" >&2; status=1; }
bash scripts/cluster.sh down >/dev/null || { echo "cluster.sh down left processes behind" >&2; status=1; }

node -e '
  const fs = require("fs");
  let p = 0, f = 0;
  const files = fs.readdirSync(process.argv[1]).filter((n) => n.endsWith(".json"));
  if (files.length === 0) { f += 1; console.error("no results"); }
  for (const n of files) {
    const r = JSON.parse(fs.readFileSync(process.argv[1] + "/" + n, "utf8"));
    p += r.numPassedTests; f += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
  }
  console.log(p + " passed, " + f + " failed");
' "$results"
exit $status
