#!/usr/bin/env bash
# Makes `pulumi preview|up --policy-pack <dir>` work with the embedded toolchain (Node.js policy packs, e.g. policy/).
#
# pulumi 3.248 starts a Node.js policy pack through the Node.js language host's RunPlugin call; the embedded host
# (built from sdk/v3 v3.68.0, toolchain/versions.env) does not implement it. This script builds a small front for
# that host from scripts/policy-analyzer/ (Go module proxy, once, cached) and lays out a bin directory:
#   <dir>/pulumi                       hard link to the toolchain's pulumi (so the CLI finds its bundled
#                                      language host next to itself, in <dir>)
#   <dir>/pulumi-language-nodejs       the front: runs policy packs as pulumi 3.248's own host does, forwards
#                                      every other call to the embedded host
#   <dir>/real/pulumi-language-nodejs  symlink to the toolchain's (embedded) host
# scripts/env.sh puts <dir> first on PATH when it is ready. A real Pulumi CLI needs none of this.
#   bash scripts/policy-analyzer.sh              build/refresh if needed, print <dir> on stdout
#   bash scripts/policy-analyzer.sh --print-bin  print <dir> if it is ready for the current toolchain (exit 1 otherwise)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
SRC="$ROOT/scripts/policy-analyzer"
CACHE="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}"
TOOLCHAIN_BIN="${NVCF_TOOLCHAIN_BIN:-$(bash "$ROOT/scripts/toolchain.sh" --print-bin)}"
SRC_KEY=$(tree_key "$ROOT" scripts/policy-analyzer)
BUILT="$CACHE/tools/policy-analyzer-$SRC_KEY/pulumi-language-nodejs"
# One bin directory per toolchain build (its directory name is the toolchain's cache key).
DIR="$CACHE/tools/policy-analyzer-$SRC_KEY/$(basename "$(dirname "$TOOLCHAIN_BIN")")"

ready() {
  [[ -x "$DIR/pulumi-language-nodejs" && "$DIR/pulumi" -ef "$TOOLCHAIN_BIN/pulumi" \
    && "$(readlink "$DIR/real/pulumi-language-nodejs" 2>/dev/null)" == "$TOOLCHAIN_BIN/pulumi-language-nodejs" ]]
}

if [[ "${1:-}" == "--print-bin" ]]; then
  ready || exit 1
  echo "$DIR"
  exit 0
fi
[[ -x "$TOOLCHAIN_BIN/pulumi" ]] || die "the toolchain is not built ($TOOLCHAIN_BIN); run: bash scripts/toolchain.sh"
if ready; then
  echo "$DIR"
  exit 0
fi
if [[ ! -x "$BUILT" ]]; then
  mkdir -p "$(dirname "$BUILT")"
  log "policy analyzer: building the Node.js policy-pack front from scripts/policy-analyzer (once; a minute or two)"
  (cd "$SRC" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" \
    -o "$BUILT.tmp" .) >"$(dirname "$BUILT")/build.log" 2>&1 \
    || { tail -20 "$(dirname "$BUILT")/build.log" >&2; die "policy analyzer build failed (log: $(dirname "$BUILT")/build.log)"; }
  mv -f "$BUILT.tmp" "$BUILT"
fi
mkdir -p "$DIR/real"
# A hard link keeps os.Executable() in $DIR (a symlink would resolve back to the toolchain directory).
ln -f "$TOOLCHAIN_BIN/pulumi" "$DIR/pulumi" 2>/dev/null || cp -f "$TOOLCHAIN_BIN/pulumi" "$DIR/pulumi"
ln -f "$BUILT" "$DIR/pulumi-language-nodejs" 2>/dev/null || cp -f "$BUILT" "$DIR/pulumi-language-nodejs"
ln -sfn "$TOOLCHAIN_BIN/pulumi-language-nodejs" "$DIR/real/pulumi-language-nodejs"
ready || die "policy analyzer: $DIR is incomplete"
log "policy analyzer: ready in $DIR"
echo "$DIR"
