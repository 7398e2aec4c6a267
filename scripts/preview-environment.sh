#!/usr/bin/env bash
# The pull-request preview of one environment (.github/workflows/preview.yml runs it; the end-to-end suite runs it
# on the local clusters): `pulumi preview --diff --policy-pack policy` of the environment's control-plane stack and
# then of every compute-plane stack whose nvcf:controlPlaneStack names it, each stack's output printed, and a
# Markdown report with one collapsible section per stack (verdict and the end of its output) written for the
# pull-request comment.
#
#   bash scripts/preview-environment.sh ENVIRONMENT REPORT
#
# ENVIRONMENT  the control-plane stack's name (the project directory holds its Pulumi.<ENVIRONMENT>.yaml)
# REPORT       the Markdown file to write (its directory also gets preview-<stack>.txt, each stack's output)
#
# Runs in the project directory, with pulumi on PATH and logged in to the state backend. Exit status: 0 when every
# stack's preview passed; 1 when one failed (a preview error: a config problem, a change the cluster refuses, or a
# mandatory policy violation); 2 on bad arguments. Every stack is previewed either way.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/preview-environment.sh ENVIRONMENT REPORT" >&2; exit 2; }
environment=$1 report=$2
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
[ -f "Pulumi.$environment.yaml" ] || { echo "no stack file Pulumi.$environment.yaml in $(pwd)" >&2; exit 2; }
outdir=$(dirname "$report")
mkdir -p "$outdir" || exit 2

stacks=("$environment")
for f in Pulumi.*.yaml; do
  s=${f#Pulumi.}; s=${s%.yaml}
  cp=$(sed -n 's/^  nvcf:controlPlaneStack: *//p' "$f" | tr -d "\"'")
  [ -n "$cp" ] && [ "${cp##*/}" = "$environment" ] && stacks+=("$s")
done
{
  echo "<!-- nvcf-preview:$environment -->"
  echo "#### Pulumi preview of environment \`$environment\` (${#stacks[@]} stacks, policy pack \`policy\`)"
} >"$report"
failed=0
for s in "${stacks[@]}"; do
  out="$outdir/preview-$s.txt"
  if pulumi preview --stack "$s" --diff --non-interactive --color never --policy-pack policy >"$out" 2>&1; then
    verdict="passed"
  else
    verdict="FAILED (a config problem, a change the cluster refuses, a mandatory policy violation or another preview error)"
    failed=1
  fi
  cat "$out"
  {
    echo ""
    echo "<details><summary><code>$s</code>: $verdict</summary>"
    echo ""
    echo '```'
    tail -c 20000 "$out"
    echo '```'
    echo "</details>"
  } >>"$report"
done
exit "$failed"
