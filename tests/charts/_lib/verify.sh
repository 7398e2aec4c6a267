#!/usr/bin/env bash
# Checks every stand-in chart (directories `<chart>/` and versioned `<chart>-<version>/`): helpers in sync,
# a values.schema.json, `helm lint` + `helm template` with ci/full-values.yaml succeed, the rendered objects
# suit the local clusters (check-manifests.js), and every negative case in negative-cases.txt makes
# `helm template` fail with the expected message. tests/unit/standins/charts.test.ts runs the same checks under jest.
# Usage: HELM=/path/to/helm bash tests/charts/_lib/verify.sh [chart-dir...]   (HELM default: scripts/helm.sh)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
charts="$(dirname "$here")"
HELM="${HELM:-$(bash "$here/../../../scripts/helm.sh" --path 2>/dev/null || echo helm)}"
command -v "$HELM" >/dev/null || { echo "helm not found (set HELM=...)" >&2; exit 2; }
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

bash "$here/sync.sh" --check && ok || bad "helpers out of sync: run tests/charts/_lib/sync.sh"

declare -A REL NS
while IFS=$'\t' read -r c r n; do
  [[ -z "$c" || "$c" == \#* ]] && continue
  REL[$c]="$r"; NS[$c]="$n"
done <"$here/releases.tsv"

selected=("$@")
if [[ ${#selected[@]} -eq 0 ]]; then
  for d in "$charts"/*/Chart.yaml; do selected+=("$(basename "$(dirname "$d")")"); done
fi

for c in "${selected[@]}"; do
  dir="$charts/$c"
  name=$(sed -n 's/^name: *//p' "$dir/Chart.yaml" | head -1 | tr -d "\"'"); version=$(sed -n 's/^version: *//p' "$dir/Chart.yaml" | head -1 | tr -d "\"'")
  rel="${REL[$name]:-$name}"; ns="${NS[$name]:-default}"
  [[ -f "$dir/ci/full-values.yaml" ]] || { bad "$c: no ci/full-values.yaml"; continue; }
  [[ "$c" == "$name" || "$c" == "$name-$version" ]] || bad "$c: directory is neither the Chart.yaml name nor <name>-<version>"
  [[ -f "$dir/values.schema.json" ]] || bad "$c: no values.schema.json"
  if out=$("$HELM" lint "$dir" --namespace "$ns" --kube-version v1.36.1 -f "$dir/ci/full-values.yaml" 2>&1); then ok; else bad "$c: helm lint"; echo "$out" >&2; fi
  if out=$("$HELM" template "$rel" "$dir" --namespace "$ns" --kube-version v1.36.1 -f "$dir/ci/full-values.yaml" 2>&1); then
    if msg=$(printf '%s\n' "$out" | node "$here/check-manifests.js" "$c" 2>&1); then ok; echo "ok   $msg"; else bad "$msg"; fi
  else
    bad "$c: helm template"; echo "$out" >&2
  fi
done

# Negative cases.
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  c="${line%% | *}"; rest="${line#* | }"; args="${rest%% | *}"; want="${rest#* | }"
  if [[ ${#@} -gt 0 ]] && [[ ! " $* " == *" $c "* ]]; then continue; fi
  dir="$charts/$c"
  name=$(sed -n 's/^name: *//p' "$dir/Chart.yaml" 2>/dev/null | head -1); name="${name:-$c}"
  rel="${REL[$name]:-$name}"; ns="${NS[$name]:-default}"
  eval "extra=($args)"
  if out=$("$HELM" template "$rel" "$dir" --namespace "$ns" --kube-version v1.36.1 -f "$dir/ci/full-values.yaml" "${extra[@]}" 2>&1); then
    bad "$c [$args]: rendered, expected failure /$want/"
  elif printf '%s' "$out" | grep -Eq -- "$want"; then
    ok; echo "ok   $c refuses [$args]: $(printf '%s' "$out" | grep -Eo 'error at \([^)]*\): .*' | head -1 | sed 's/^error at ([^)]*): //')"
  else
    bad "$c [$args]: wrong error (want /$want/): $out"
  fi
done <"$here/negative-cases.txt"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
