#!/usr/bin/env bash
# Build (once) and print the path of actionlint, the GitHub Actions workflow linter the tests run on
# .github/workflows/*.yml (tests/unit/github/workflows.test.ts). Built from the Go module proxy like the rest of the
# toolchain; cached under ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/actionlint-<version>/actionlint.
#   bash scripts/actionlint.sh            build if missing, print the binary's path on stdout
#   bash scripts/actionlint.sh --path     print the path if it is already built (exit 1 otherwise); builds nothing
# scripts/test.sh exports the path as NVCF_ACTIONLINT for the unit tests.
set -euo pipefail
ACTIONLINT_VERSION=v1.7.12
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
go_tool actionlint "$ACTIONLINT_VERSION" github.com/rhysd/actionlint/cmd/actionlint github.com/rhysd/actionlint.version "${1:-}"
