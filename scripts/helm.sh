#!/usr/bin/env bash
# Build (once) and print the path of the Helm 3 CLI the tests use to render and validate the stand-in
# charts (`helm lint` / `helm template` check values against each chart's values.schema.json).
# Built from the Go module proxy like the rest of the toolchain; cached under
# ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/helm-<version>/helm, so later runs cost nothing.
# The program itself never needs it: the kubernetes provider embeds Helm.
#   bash scripts/helm.sh            build if missing, print the binary's path on stdout
#   bash scripts/helm.sh --path     print the path if Helm is already built (exit 1 otherwise); builds nothing
# scripts/test.sh exports the path as NVCF_HELM for the chart contract tests (tests/unit/standins/charts.test.ts).
set -euo pipefail
HELM_VERSION=v3.22.0
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
go_tool helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm helm.sh/helm/v3/internal/version.version "${1:-}" "a few minutes"
