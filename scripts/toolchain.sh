#!/usr/bin/env bash
# Build the nvcf-pulumi toolchain from the Go module proxy into a cache outside the repo.
#
#   bash scripts/toolchain.sh               build whatever is missing (nothing if all is cached)
#   bash scripts/toolchain.sh PIECE...      build only these pieces (if missing); see --list
#   bash scripts/toolchain.sh --print-bin   print the bin directory; builds nothing
#   bash scripts/toolchain.sh --check       exit 0 iff every binary and plugin is present; builds nothing
#   bash scripts/toolchain.sh --list        list the pieces and the binaries each one makes
#
# Pins: toolchain/versions.env. Cache: ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}
#   toolchain/<key>/bin      binaries (key = short hash of toolchain/, i.e. versions.env + helper sources)
#   toolchain/<key>/work     one throw-away wrapper Go module per piece, in a folder each (separate dependency graphs)
#   pulumi-home/plugins      provider plugins installed with `pulumi plugin install --file`
# Source scripts/env.sh to put the bin dir on PATH and point PULUMI_HOME at the cache.

# The build_* functions are called indirectly ("build_$piece"); shellcheck cannot see that.
# shellcheck disable=SC2317
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
# shellcheck source=toolchain/versions.env
source "$ROOT/toolchain/versions.env"

NVCF_CACHE="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}"

KEY=$(tree_key "$ROOT" toolchain)
TC_DIR="$NVCF_CACHE/toolchain/$KEY"
BIN="$TC_DIR/bin"
WORK="$TC_DIR/work"
PULUMI_HOME_DIR="$NVCF_CACHE/pulumi-home"

# Build order: the control plane first (kwok, etcd, kube), then Pulumi.
PIECES=(kwok etcd kube pulumi language-nodejs kubernetes random command)

piece_bins() {
  case "$1" in
    kwok) echo "kwok kwokctl" ;;
    etcd) echo "etcd" ;;
    kube) echo "kube-apiserver kube-controller-manager kube-scheduler kubectl" ;;
    pulumi) echo "pulumi" ;;
    language-nodejs) echo "pulumi-language-nodejs" ;;
    kubernetes) echo "pulumi-resource-kubernetes" ;;
    random) echo "pulumi-resource-random" ;;
    command) echo "pulumi-resource-command" ;;
    *) return 1 ;;
  esac
}

# "name version" of every provider that is installed as a Pulumi plugin.
PLUGINS=(
  "kubernetes $KUBERNETES_PROVIDER_VERSION"
  "random $RANDOM_PROVIDER_VERSION"
  "command $COMMAND_PROVIDER_VERSION"
)

missing_bins() { # piece -> names of its binaries that are not in $BIN
  local b out=()
  for b in $(piece_bins "$1"); do [[ -x "$BIN/$b" ]] || out+=("$b"); done
  echo "${out[*]:-}"
}

plugin_path() { echo "$PULUMI_HOME_DIR/plugins/resource-$1-v$2/pulumi-resource-$1"; }

plugin_ok() { # name version -> installed plugin is the binary from $BIN
  local p
  p=$(plugin_path "$1" "$2")
  [[ -x "$p" && -x "$BIN/pulumi-resource-$1" ]] && cmp -s "$p" "$BIN/pulumi-resource-$1"
}

all_present() {
  local p n v
  for p in "${PIECES[@]}"; do [[ -z "$(missing_bins "$p")" ]] || return 1; done
  for p in "${PLUGINS[@]}"; do
    read -r n v <<<"$p"
    plugin_ok "$n" "$v" || return 1
  done
}

usage() { sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# ---------------------------------------------------------------------------------------------
# Helpers

CUR_PIECE=""
CUR_LOG=""

# Run a go command for the current piece; keep its output in the piece's log. On failure, name
# the module/version the proxy refused (if that is what happened) and stop.
run_go() {
  if ! "$@" >>"$CUR_LOG" 2>&1; then
    local refused
    refused=$(grep -E '(403 Forbidden|404 Not Found|410 Gone|not available|unknown revision|invalid version)' "$CUR_LOG" | tail -5 || true)
    if [[ -n "$refused" ]]; then
      log "toolchain: piece '$CUR_PIECE': the Go module proxy refused a module:"
      printf '    %s\n' "$refused" >&2
    else
      log "toolchain: piece '$CUR_PIECE': '$*' failed; last lines of $CUR_LOG:"
      tail -25 "$CUR_LOG" | sed 's/^/    /' >&2
    fi
    die "piece '$CUR_PIECE' failed (full log: $CUR_LOG)"
  fi
}

# Ask the proxy for one module version up front so a refusal names exactly that module@version.
require_module() { # module version
  local out err
  out=$(cd "$WORK" && go mod download -json "$1@$2" 2>&1) || true
  err=$(jq -r '.Error // empty' <<<"$out" 2>/dev/null || echo "$out")
  if [[ -n "$err" ]] || ! jq -e '.GoMod' >/dev/null 2>&1 <<<"$out"; then
    die "piece '$CUR_PIECE': the Go module proxy refused $1@$2: ${err:-$out}"
  fi
}

module_field() { # module version field  (module must already be downloadable)
  (cd "$WORK" && go mod download -json "$1@$2") | jq -r ".$3"
}

# Start a fresh wrapper module for the current piece and cd into it.
new_wrapper() {
  local dir="$WORK/$CUR_PIECE"
  rm -rf "$dir"
  mkdir -p "$dir"
  cd "$dir"
  printf 'module nvcf.local/toolchain/%s\n\ngo %s\n' "$CUR_PIECE" "$GO_MIN_VERSION" >go.mod
}

# go build one main package into $BIN/<name> atomically (an interrupted build leaves nothing).
go_build_bin() { # name package ldflags [tags]
  local name=$1 pkg=$2 ld=$3 tags=${4:-}
  [[ -x "$BIN/$name" ]] && { log "  $name: present"; return 0; }
  local t0; t0=$(now_s)
  run_go go build -mod=mod -p "$JOBS" ${tags:+-tags "$tags"} -ldflags "$LDFLAGS_BASE $ld" \
    -o "$BIN/.$name.tmp" "$pkg"
  mv -f "$BIN/.$name.tmp" "$BIN/$name"
  log "  $name: built in $(( $(now_s) - t0 ))s"
}

# ---------------------------------------------------------------------------------------------
# Pieces

build_kwok() {
  local mod=sigs.k8s.io/kwok ver="v$KWOK_VERSION"
  require_module "$mod" "$ver"
  new_wrapper
  run_go go get "$mod/cmd/kwok@$ver" "$mod/cmd/kwokctl@$ver"
  local ld="-X $mod/pkg/consts.Version=$KWOK_VERSION -X $mod/pkg/consts.KubeVersion=$KUBERNETES_VERSION"
  go_build_bin kwok "$mod/cmd/kwok" "$ld"
  go_build_bin kwokctl "$mod/cmd/kwokctl" "$ld"
}

build_etcd() {
  local mod=go.etcd.io/etcd/server/v3 ver="v$ETCD_VERSION"
  require_module "$mod" "$ver"
  new_wrapper
  run_go go get "$mod@$ver"
  # The root package of server/v3 is etcd's main. GitSHA is only shown by --version.
  go_build_bin etcd "$mod" "-X go.etcd.io/etcd/api/v3/version.GitSHA=go-module-proxy"
}

build_kube() {
  local mod=k8s.io/kubernetes ver="v$KUBERNETES_VERSION" gomod btime
  require_module "$mod" "$ver"
  gomod=$(module_field "$mod" "$ver" GoMod)
  btime=$(cd "$WORK" && go list -m -json "$mod@$ver" | jq -r .Time)
  new_wrapper
  {
    echo "require $mod $ver"
    # k8s.io/kubernetes requires its staging modules at v0.0.0 with local (./staging) replaces,
    # which do not apply to a dependency: point each at its published v0.<minor>.<patch>.
    awk -v sv="v$KUBERNETES_STAGING_VERSION" '
      /=> *\.\/staging\// { m = ($1 == "replace") ? $2 : $1; print "replace " m " => " m " " sv }
    ' "$gomod"
  } >>go.mod
  # Explicit @version: a bare `go get PKG` would upgrade k8s.io/kubernetes to its latest release.
  run_go go get "$mod/cmd/kube-apiserver@$ver" "$mod/cmd/kube-controller-manager@$ver" \
    "$mod/cmd/kube-scheduler@$ver" "$mod/cmd/kubectl@$ver"
  local major=${KUBERNETES_VERSION%%.*} minor ld="" p
  minor=${KUBERNETES_VERSION#*.}; minor=${minor%%.*}
  # Version stamping like hack/lib/version.sh: kwokctl and kubectl read --version / version.
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=v$KUBERNETES_VERSION -X $p.gitMajor=$major -X $p.gitMinor=$minor"
    ld+=" -X $p.gitTreeState=clean -X $p.buildDate=$btime"
  done
  local b
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    go_build_bin "$b" "$mod/cmd/$b" "$ld"
  done
}

# pkg/v3's go.mod replaces atotto/clipboard with a fork; replaces of a dependency do not apply,
# so every wrapper that pulls in pkg/v3 repeats it.
CLIPBOARD_REPLACE="replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e"

build_pulumi() {
  local mod=github.com/pulumi/pulumi/pkg/v3 ver="v$PULUMI_VERSION"
  require_module "$mod" "$ver"
  new_wrapper
  printf 'require %s %s\n%s\n' "$mod" "$ver" "$CLIPBOARD_REPLACE" >>go.mod
  run_go go get "$mod/cmd/pulumi@$ver"
  go_build_bin pulumi "$mod/cmd/pulumi" \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION" "osusergo,grpcnotrace"
}

build_language-nodejs() {
  local mod=github.com/pulumi/pulumi/sdk/v3 ver="v$PULUMI_LANGUAGE_NODEJS_SDK_VERSION"
  require_module "$mod" "$ver"
  new_wrapper
  run_go go get "$mod/nodejs/cmd/pulumi-language-nodejs@$ver"
  go_build_bin pulumi-language-nodejs "$mod/nodejs/cmd/pulumi-language-nodejs" \
    "-X $mod/go/common/version.Version=v$PULUMI_LANGUAGE_NODEJS_SDK_VERSION" "osusergo,grpcnotrace"
}

build_kubernetes() {
  local mod=github.com/pulumi/pulumi-kubernetes/provider/v4 ver="$KUBERNETES_PROVIDER_MODULE_VERSION" dir
  require_module "$mod" "$ver"
  new_wrapper
  printf 'require %s %s\n%s\n' "$mod" "$ver" "$CLIPBOARD_REPLACE" >>go.mod
  cp "$ROOT/toolchain/kubernetes/main.go" .
  run_go go get "$mod/pkg/provider@$ver"
  dir=$(go list -m -f '{{.Dir}}' "$mod")
  jq -c --arg v "$KUBERNETES_PROVIDER_VERSION" '.version = $v' \
    "$dir/cmd/pulumi-resource-kubernetes/schema.json" >schema-embed.json
  jq -c . "$dir/cmd/pulumi-resource-kubernetes/terraform-mapping.json" >terraform-mapping-embed.json
  go_build_bin pulumi-resource-kubernetes . \
    "-X $mod/pkg/version.Version=$KUBERNETES_PROVIDER_VERSION" "osusergo,grpcnotrace"
}

build_random() {
  local bridge=github.com/pulumi/pulumi-terraform-bridge/v3
  local tfrandom=github.com/terraform-providers/terraform-provider-random
  require_module "$bridge" "$TERRAFORM_BRIDGE_VERSION"
  require_module "$tfrandom" "$TF_PROVIDER_RANDOM_MODULE_VERSION"
  require_module github.com/pulumi/terraform-plugin-sdk/v2 "$TF_PLUGIN_SDK_FORK_VERSION"
  new_wrapper
  cp -R "$ROOT/toolchain/random/." .
  sed -e "s/@GO_MIN_VERSION@/$GO_MIN_VERSION/" \
      -e "s/@TF_PLUGIN_FRAMEWORK_VERSION@/$TF_PLUGIN_FRAMEWORK_VERSION/" \
      -e "s/@TF_PROVIDER_RANDOM_MODULE_VERSION@/$TF_PROVIDER_RANDOM_MODULE_VERSION/" \
      shim/go.mod.tmpl >shim/go.mod
  rm shim/go.mod.tmpl
  cat >>go.mod <<EOM
require (
	$bridge $TERRAFORM_BRIDGE_VERSION
	$tfrandom $TF_PROVIDER_RANDOM_MODULE_VERSION
	$tfrandom/shim v0.0.0
)
replace $tfrandom/shim => ./shim
replace github.com/hashicorp/terraform-plugin-sdk/v2 => github.com/pulumi/terraform-plugin-sdk/v2 $TF_PLUGIN_SDK_FORK_VERSION
$CLIPBOARD_REPLACE
EOM
  (cd shim && run_go go get ./...)
  run_go go get ./...
  local ld="-X nvcf.local/toolchain/random/info.Version=$RANDOM_PROVIDER_VERSION"
  # 1) the build-time generator, 2) generate schema.json + bridge-metadata.json, 3) the provider.
  local t0; t0=$(now_s)
  run_go go build -mod=mod -p "$JOBS" -ldflags "$LDFLAGS_BASE $ld" -o pulumi-tfgen-random ./cmd/tfgen
  log "  pulumi-tfgen-random: built in $(( $(now_s) - t0 ))s"
  run_go ./pulumi-tfgen-random schema --out cmd/provider
  [[ -s cmd/provider/schema.json && -s cmd/provider/bridge-metadata.json ]] \
    || die "piece 'random': tfgen wrote no schema.json/bridge-metadata.json"
  jq -c --arg v "$RANDOM_PROVIDER_VERSION" '.version = $v' cmd/provider/schema.json >schema.tmp
  mv schema.tmp cmd/provider/schema.json
  go_build_bin pulumi-resource-random ./cmd/provider "$ld"
}

build_command() {
  # Our own local-only provider (toolchain/command/main.go) on the pulumi SDK of the CLI release.
  local mod=github.com/pulumi/pulumi/pkg/v3 ver="v$PULUMI_VERSION"
  require_module "$mod" "$ver"
  new_wrapper
  printf 'require %s %s\n%s\n' "$mod" "$ver" "$CLIPBOARD_REPLACE" >>go.mod
  cp "$ROOT/toolchain/command/main.go" .
  run_go go get ./...
  go_build_bin pulumi-resource-command . "-X main.Version=$COMMAND_PROVIDER_VERSION" "osusergo,grpcnotrace"
}

# Install the provider binaries as Pulumi plugins so the engine finds exact versions offline.
install_plugins() {
  local p n v
  for p in "${PLUGINS[@]}"; do
    read -r n v <<<"$p"
    [[ -x "$BIN/pulumi-resource-$n" ]] || continue
    plugin_ok "$n" "$v" && continue
    [[ -x "$BIN/pulumi" ]] || { log "plugins: pulumi not built yet; skipping $n"; continue; }
    log "plugins: installing resource $n $v into $PULUMI_HOME_DIR"
    PULUMI_HOME="$PULUMI_HOME_DIR" PULUMI_SKIP_UPDATE_CHECK=true \
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true PULUMI_DISABLE_REGISTRY_RESOLVE=true \
      "$BIN/pulumi" plugin install resource "$n" "$v" --file "$BIN/pulumi-resource-$n" --reinstall \
      >>"$WORK/plugins.log" 2>&1 || { tail -20 "$WORK/plugins.log" >&2; die "plugin install of $n $v failed"; }
    plugin_ok "$n" "$v" || die "plugin $n $v not found at $(plugin_path "$n" "$v") after install"
  done
  return 0
}

# ---------------------------------------------------------------------------------------------
# Main (everything runs from this function, so editing this file while a build runs is safe)

main() {
  case "${1:-}" in
    --print-bin) echo "$BIN"; return 0 ;;
    --check) all_present; return $? ;;
    --list)
      for p in "${PIECES[@]}"; do printf '%-16s %s\n' "$p" "$(piece_bins "$p")"; done
      return 0 ;;
    -h|--help) usage; return 0 ;;
    -*) usage >&2; exit 2 ;;
  esac

  WANT=("$@")
  [[ ${#WANT[@]} -gt 0 ]] || WANT=("${PIECES[@]}")
  for p in "${WANT[@]}"; do piece_bins "$p" >/dev/null || die "unknown piece '$p' (see --list)"; done

  # ---------------------------------------------------------------------------------------------
  # Go environment: static, trimmed, stripped binaries; never fetch another Go toolchain.
  command -v go >/dev/null || die "go not found on PATH"
  command -v jq >/dev/null || die "jq not found on PATH (apt-get install jq)"
  GO_HAVE=$(go env GOVERSION); GO_HAVE=${GO_HAVE#go}
  if [[ "$(printf '%s\n%s\n' "$GO_MIN_VERSION" "$GO_HAVE" | sort -V | head -1)" != "$GO_MIN_VERSION" ]]; then
    die "Go $GO_MIN_VERSION or newer is needed, found $GO_HAVE"
  fi
  export CGO_ENABLED=0 GOTOOLCHAIN=local GOWORK=off GO111MODULE=on
  export GOFLAGS="-trimpath -modcacherw -buildvcs=false"
  JOBS="${NVCF_BUILD_JOBS:-$(nproc)}"
  export GOMAXPROCS="${GOMAXPROCS:-$JOBS}"
  LDFLAGS_BASE="-s -w"

  mkdir -p "$BIN" "$WORK" "$PULUMI_HOME_DIR"

  # One build at a time per cache key (other scripts may call us concurrently).
  if command -v flock >/dev/null; then
    exec 9>"$TC_DIR/.lock"
    if ! flock -n 9; then
      log "toolchain: another build holds $TC_DIR/.lock; waiting"
      flock 9
    fi
  fi


  if [[ $# -eq 0 ]] && all_present; then
    log "toolchain: cached, nothing to build ($BIN)"
    return 0
  fi

  log "toolchain: key $KEY, bin $BIN (go $GO_HAVE, -p $JOBS)"
  T_ALL=$(now_s)
  SUMMARY=()
  BUILT=0
  for p in "${WANT[@]}"; do
    miss=$(missing_bins "$p")
    if [[ -z "$miss" ]]; then
      SUMMARY+=("$(printf '%-16s cached' "$p")")
      continue
    fi
    CUR_PIECE=$p
    mkdir -p "$WORK"
    CUR_LOG="$WORK/$p.log"
    : >"$CUR_LOG"
    log "==> $p: building $miss"
    t0=$(now_s)
    ( "build_$p" )
    dt=$(( $(now_s) - t0 ))
    log "<== $p: done in ${dt}s"
    SUMMARY+=("$(printf '%-16s %5ss' "$p" "$dt")")
    echo "$(date -u +%FT%TZ) $p ${dt}s" >>"$TC_DIR/build-times.log"
    BUILT=1
  done

  t0=$(now_s)
  install_plugins
  T_PLUG=$(( $(now_s) - t0 ))

  log "toolchain: summary (key $KEY)"
  for s in "${SUMMARY[@]}"; do printf '    %s\n' "$s" >&2; done
  printf '    %-16s %5ss\n' plugins "$T_PLUG" >&2
  log "toolchain: total $(( $(now_s) - T_ALL ))s; bin: $BIN"
  if [[ $BUILT -eq 0 ]]; then log "toolchain: cached, nothing to build"; fi
}

main "$@"; exit $?
