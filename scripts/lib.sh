# shellcheck shell=bash
# Shared shell helpers for nvcf-pulumi scripts. Source it; do not execute it.
#   log MSG...   -> "[  12s] MSG" on stderr (seconds since the first script that sourced this file started)
#   die MSG...   -> log "ERROR: MSG" and exit 1
#   now_s        -> current epoch seconds
#   tree_key ROOT DIR -> 12 hex digits naming the content of every file below ROOT/DIR (a cache key)
#   go_tool NAME VERSION PACKAGE VERSION_VAR [--path] [NOTE]
#                -> build (once) a Go command from the module proxy, print its cached path (see below)

now_s() { date +%s; }

# Exported so that child scripts keep counting from the same start.
: "${NVCF_T0:=$(now_s)}"
export NVCF_T0

log() {
  printf '[%5ss] %s\n' "$(( $(now_s) - NVCF_T0 ))" "$*" >&2
}

die() {
  log "ERROR: $*"
  exit 1
}

# go_tool NAME VERSION PACKAGE VERSION_VAR [--path] [NOTE]
# Builds the Go command PACKAGE@VERSION (e.g. helm.sh/helm/v3/cmd/helm, v3.22.0) from the Go module proxy
# once, static and stripped, with VERSION_VAR (the Go symbol holding the version string, set through -X) set
# to VERSION, and prints its path, ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/NAME-VERSION/NAME, on stdout.
# Later calls only print the path. With --path it builds nothing: prints the path if the binary is there,
# else returns 1. NOTE is appended to the "building" log line (e.g. how long it takes). A failed build prints
# the last lines of its log and dies naming the log file.
go_tool() {
  local name=$1 version=$2 package=$3 version_var=$4 only_path=${5:-} note=${6:-}
  local dir="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/$name-$version"
  if [[ "$only_path" == "--path" ]]; then
    [[ -x "$dir/$name" ]] || return 1
    echo "$dir/$name"
    return 0
  fi
  if [[ ! -x "$dir/$name" ]]; then
    mkdir -p "$dir"
    log "$name: building $package $version from the Go module proxy (once${note:+; $note})"
    GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$dir/.bin" go install -trimpath \
      -ldflags "-s -w -X $version_var=$version" "$package@$version" >"$dir/build.log" 2>&1 ||
      { tail -20 "$dir/build.log" >&2; die "$name build failed (log: $dir/build.log)"; }
    mv -f "$dir/.bin/$name" "$dir/$name"
    rmdir "$dir/.bin" 2>/dev/null || true
    log "$name: built $dir/$name"
  fi
  echo "$dir/$name"
}

# tree_key ROOT DIR
# Prints a 12-hex-digit key of the content and relative paths of every file below ROOT/DIR (sha256 of the
# sorted per-file sha256 lines): it changes whenever a file there is added, removed, renamed or edited, so a
# cache directory named after it is rebuilt exactly then.
tree_key() {
  (cd "$1" && find "$2" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-12
}
