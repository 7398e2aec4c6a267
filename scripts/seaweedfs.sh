#!/usr/bin/env bash
# SeaweedFS (Apache-2.0), the S3-compatible object store the shared-state tests keep Pulumi state in
# (scripts/state-store.sh starts it; docs/shared-state.md). Built once from the Go module proxy, like the rest of
# the toolchain, and cached under ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/weed-<version>/weed.
#   bash scripts/seaweedfs.sh            build if missing, print the binary's path on stdout
#   bash scripts/seaweedfs.sh --path     print the path if it is already built (exit 1 otherwise); builds nothing
# The module has no release tags on the proxy: the pin is a pseudo-version of its main branch. Its go.mod carries a
# replace directive, which `go install pkg@version` refuses, so the build goes through a wrapper module that
# repeats it. The build is large (see docs/testing.md, "Extended tests"): only `scripts/test.sh extended` runs it.
set -euo pipefail
SEAWEEDFS_MODULE=github.com/seaweedfs/seaweedfs
SEAWEEDFS_VERSION=v0.0.0-20261109003541-7506e5f91cd6
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

# The cache layout and the --path answer are go_tool's (scripts/lib.sh); only the build differs.
if path=$(go_tool weed "$SEAWEEDFS_VERSION" "$SEAWEEDFS_MODULE/weed" "" --path); then
  echo "$path"
  exit 0
fi
[[ "${1:-}" != "--path" ]] || exit 1
dir="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/weed-$SEAWEEDFS_VERSION"
mkdir -p "$dir/work"
log "seaweedfs: building $SEAWEEDFS_MODULE/weed $SEAWEEDFS_VERSION from the Go module proxy (once; several minutes)"
t0=$(now_s)
(
  cd "$dir/work"
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOWORK=off GOFLAGS="-trimpath -modcacherw -buildvcs=false"
  gomod=$(go mod download -json "$SEAWEEDFS_MODULE@$SEAWEEDFS_VERSION" | jq -r .GoMod)
  {
    printf 'module nvcf.local/tools/seaweedfs\n\ngo 1.26.0\n\nrequire %s %s\n' "$SEAWEEDFS_MODULE" "$SEAWEEDFS_VERSION"
    grep -E '^replace ' "$gomod" || true
  } >go.mod
  go get "$SEAWEEDFS_MODULE/weed@$SEAWEEDFS_VERSION"
  go build -mod=mod -ldflags "-s -w" -o "$dir/.weed.tmp" "$SEAWEEDFS_MODULE/weed"
) >"$dir/build.log" 2>&1 || { tail -20 "$dir/build.log" >&2; die "seaweedfs build failed (log: $dir/build.log)"; }
mv -f "$dir/.weed.tmp" "$dir/weed"
log "seaweedfs: built $dir/weed in $(($(now_s) - t0))s ($(du -h "$dir/weed" | cut -f1))"
echo "$dir/weed"
