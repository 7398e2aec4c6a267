set -euo pipefail
umask 077
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
args=()
if [ -n "${NVCFP_KUBECONFIG:-}" ]; then printf '%s' "$NVCFP_KUBECONFIG" > "$work/kubeconfig"; args+=(--kubeconfig "$work/kubeconfig"); fi
if [ -n "${NVCFP_KUBE_CONTEXT:-}" ]; then args+=(--context "$NVCFP_KUBE_CONTEXT"); fi
k() { "$NVCFP_KUBECTL" "${args[@]}" "$@"; }
