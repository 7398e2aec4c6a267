#!/usr/bin/env bash
# Checks every stand-in chart: helpers in sync, `helm lint` + `helm template` with ci/full-values.yaml succeed,
# every rendered object carries nvcf.stand-in=true (no Namespace/PVC/webhook objects), and every negative case
# in negative-cases.txt makes `helm template` fail with the expected message.
# Usage: HELM=/path/to/helm bash tests/charts/_lib/verify.sh [chart...]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
charts="$(dirname "$here")"
HELM="${HELM:-helm}"
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
  rel="${REL[$c]:-$c}"; ns="${NS[$c]:-default}"
  [[ -f "$dir/ci/full-values.yaml" ]] || { bad "$c: no ci/full-values.yaml"; continue; }
  grep -q "^name: $c\$" "$dir/Chart.yaml" || bad "$c: Chart.yaml name differs from directory"
  if out=$("$HELM" lint "$dir" --namespace "$ns" -f "$dir/ci/full-values.yaml" 2>&1); then ok; else bad "$c: helm lint"; echo "$out" >&2; fi
  if out=$("$HELM" template "$rel" "$dir" --namespace "$ns" -f "$dir/ci/full-values.yaml" 2>&1); then
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
  dir="$charts/$c"; rel="${REL[$c]:-$c}"; ns="${NS[$c]:-default}"
  eval "extra=($args)"
  if out=$("$HELM" template "$rel" "$dir" --namespace "$ns" -f "$dir/ci/full-values.yaml" "${extra[@]}" 2>&1); then
    bad "$c [$args]: rendered, expected failure /$want/"
  elif printf '%s' "$out" | grep -Eq -- "$want"; then
    ok; echo "ok   $c refuses [$args]: $(printf '%s' "$out" | grep -Eo 'error at \([^)]*\): .*' | head -1 | sed 's/^error at ([^)]*): //')"
  else
    bad "$c [$args]: wrong error (want /$want/): $out"
  fi
done <"$here/negative-cases.txt"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
