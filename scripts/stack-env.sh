# shellcheck shell=bash
# Source me: the environment the embedded default runs in (after scripts/env.sh).
#   - local state backend under the cache (never in the repo), the documented dev passphrase,
#   - the kubeconfig of the local clusters, and the stand-in nvcf-cli's ICMS registry directory.
# A real user sets PULUMI_BACKEND_URL / PULUMI_CONFIG_PASSPHRASE / KUBECONFIG their own way instead.
: "${NVCF_CACHE:=$HOME/.cache/nvcf-pulumi}"
export NVCF_CACHE
# Where the local clusters, state and ICMS live (scripts/cluster.sh); default: the cache.
export NVCF_LOCAL_DIR="${NVCF_LOCAL_DIR:-$NVCF_CACHE}"
export PULUMI_BACKEND_URL="${PULUMI_BACKEND_URL:-file://$NVCF_LOCAL_DIR/state}"
# The dev stacks' secrets provider is a passphrase; the dev stacks hold only stand-in credentials.
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE:-nvcf-dev-local-passphrase}"
export KUBECONFIG="${KUBECONFIG_NVCF:-$NVCF_LOCAL_DIR/clusters/kubeconfig}"
# The stand-in nvcf-cli (tests/bin/nvcf-cli) keeps its emulated ICMS here, and finds the stand-in NVCF API (accounts,
# registry credentials) that scripts/cluster.sh's account-bootstrap stand-in writes to here.
export NVCF_CLI_ICMS_DIR="${NVCF_CLI_ICMS_DIR:-$NVCF_LOCAL_DIR/icms}"
export NVCF_CLI_API_DIR="${NVCF_CLI_API_DIR:-$NVCF_LOCAL_DIR/nvcf-api}"
mkdir -p "${PULUMI_BACKEND_URL#file://}" "$NVCF_CLI_ICMS_DIR"
