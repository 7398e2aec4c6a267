#!/usr/bin/env bash
# Copies the shared stand-in helpers into every chart (charts must stay standalone directories).
# Usage: bash tests/charts/_lib/sync.sh [--check]   (--check: exit 1 when a chart's copy differs)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
charts="$(dirname "$here")"
rc=0
for chart in "$charts"/*/Chart.yaml; do
  dir="$(dirname "$chart")"
  dst="$dir/templates/_standin.tpl"
  if [[ "${1:-}" == "--check" ]]; then
    if ! cmp -s "$here/_standin.tpl" "$dst"; then echo "out of date: $dst" >&2; rc=1; fi
  else
    mkdir -p "$dir/templates"
    cp "$here/_standin.tpl" "$dst"
  fi
done
exit $rc
