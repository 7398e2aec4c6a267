#!/usr/bin/env bash
# Every test: type check and lint, the unit tests (Pulumi mocks, and the stand-in charts' contract through the
# Helm CLI of scripts/helm.sh), then the end-to-end suite that runs the
# real pulumi CLI against fresh local clusters (up, second preview with no changes, compute planes,
# re-registration, refused wrong-order destroy, ordered destroy). Builds or reuses the toolchain first.
# Ends with one line "N passed, N failed".
# `bash scripts/test.sh extended` runs the extended tests instead (scripts/test-extended.sh, docs/testing.md).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[ "${1:-}" != extended ] || exec bash scripts/test-extended.sh
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
bash scripts/toolchain.sh || die "toolchain build failed"
bash scripts/policy-analyzer.sh >/dev/null || die "policy analyzer build failed"
# shellcheck source=scripts/env.sh
source scripts/env.sh
bash scripts/npm-install.sh || die "npm ci failed"

results=$(mktemp -d)
status=0
log "type check and lint"
npx tsc --noEmit -p tsconfig.json || status=1
npm run --silent lint || status=1

log "unit tests"
# The chart contract tests (tests/unit/standins/charts.test.ts) run the Helm CLI; they fail, not skip, without it.
NVCF_HELM=$(bash scripts/helm.sh) || die "helm build failed"
export NVCF_HELM
# The workflow linter of tests/unit/github/workflows.test.ts (.github/workflows/*.yml).
NVCF_ACTIONLINT=$(bash scripts/actionlint.sh) || die "actionlint build failed"
export NVCF_ACTIONLINT
# The shell linter of tests/unit/components/scripts.test.ts (the scripts the command resources run).
NVCF_SHELLCHECK=$(bash scripts/shellcheck.sh) || die "shellcheck fetch failed"
export NVCF_SHELLCHECK
# Every core: the type check and lint are done, and ts-jest only transpiles (tsconfig.jest.json).
npx jest --selectProjects unit --ci --maxWorkers=100% --json --outputFile="$results/unit.json" || status=1

log "end-to-end tests (fresh local clusters)"
bash scripts/cluster.sh down >/dev/null 2>&1 || true
if bash scripts/cluster.sh up >/dev/null; then
  npx jest --selectProjects e2e --ci --runInBand --json --outputFile="$results/e2e.json" || status=1
else
  status=1
fi
# Stopping must leave no process of the local clusters behind (cluster.sh down fails otherwise).
bash scripts/cluster.sh down >/dev/null || { echo "cluster.sh down left processes behind" >&2; status=1; }

node -e '
  const fs = require("fs");
  let p = 0, f = 0;
  for (const n of ["unit.json", "e2e.json"]) {
    const file = process.argv[1] + "/" + n;
    if (!fs.existsSync(file)) { f += 1; console.error("no results for " + n); continue; }
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    p += r.numPassedTests; f += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
  }
  console.log(p + " passed, " + f + " failed");
' "$results"
exit $status
