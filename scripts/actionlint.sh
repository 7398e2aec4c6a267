#!/usr/bin/env bash
# Build (once) and print the path of actionlint, the GitHub Actions workflow linter the tests run on
# .github/workflows/*.yml (tests/unit/workflow.test.ts). Built from the Go module proxy like the rest of the
# toolchain; cached under ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/actionlint-<version>/actionlint.
#   bash scripts/actionlint.sh            build if missing, print the binary's path on stdout
#   bash scripts/actionlint.sh --path     print the path if it is already built (exit 1 otherwise); builds nothing
# scripts/test.sh exports the path as NVCF_ACTIONLINT for the unit tests.
set -euo pipefail
ACTIONLINT_VERSION=v1.7.12
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
DIR="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/actionlint-$ACTIONLINT_VERSION"
if [[ "${1:-}" == "--path" ]]; then
  [[ -x "$DIR/actionlint" ]] || exit 1
  echo "$DIR/actionlint"
  exit 0
fi
if [[ ! -x "$DIR/actionlint" ]]; then
  mkdir -p "$DIR"
  log "actionlint: building github.com/rhysd/actionlint $ACTIONLINT_VERSION from the Go module proxy (once)"
  GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$DIR/.bin" go install -trimpath \
    -ldflags "-s -w -X github.com/rhysd/actionlint.version=$ACTIONLINT_VERSION" \
    "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" >"$DIR/build.log" 2>&1 \
    || { tail -20 "$DIR/build.log" >&2; die "actionlint build failed (log: $DIR/build.log)"; }
  mv -f "$DIR/.bin/actionlint" "$DIR/actionlint"
  rmdir "$DIR/.bin" 2>/dev/null || true
  log "actionlint: built $DIR/actionlint"
fi
echo "$DIR/actionlint"
