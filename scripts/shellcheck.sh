#!/usr/bin/env bash
# Fetch (once) and print the path of ShellCheck, the linter the unit tests run on every script the command
# resources run (components/scripts/, tests/unit/components/scripts.test.ts). Debian's package, unpacked without
# installing it (`apt-get download`, then `dpkg -x`; no root needed once apt has its package lists); cached under
# ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/shellcheck-<version>/shellcheck, so later runs cost nothing.
#   bash scripts/shellcheck.sh            fetch if missing, print the binary's path on stdout
#   bash scripts/shellcheck.sh --path     print the path if it is already there (exit 1 otherwise); fetches nothing
# scripts/test.sh exports the path as NVCF_SHELLCHECK for the unit tests.
set -euo pipefail
# Debian 12's package: its findings are the ones the scripts are kept clean of.
SHELLCHECK_VERSION=0.9.0-1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

dir="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/shellcheck-$SHELLCHECK_VERSION"
if [[ "${1:-}" == "--path" ]]; then
  [[ -x "$dir/shellcheck" ]] || exit 1
  echo "$dir/shellcheck"
  exit 0
fi
if [[ ! -x "$dir/shellcheck" ]]; then
  if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
    die "shellcheck: apt-get and dpkg are needed to fetch Debian's shellcheck package"
  fi
  mkdir -p "$dir"
  tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  log "shellcheck: fetching Debian's shellcheck $SHELLCHECK_VERSION (once)"
  # apt's own download user may not write here; apt then downloads as the caller and says so on stderr.
  fetch() { (cd "$tmp" && apt-get download "shellcheck=$SHELLCHECK_VERSION") >"$tmp/fetch.log" 2>&1; }
  if ! fetch; then
    # A machine whose package lists were never fetched knows no package: fetch them once (needs root).
    { [[ $(id -u) -eq 0 ]] && apt-get update >/dev/null 2>&1 && fetch; } ||
      { tail -5 "$tmp/fetch.log" >&2; die "shellcheck: apt-get download shellcheck=$SHELLCHECK_VERSION failed"; }
  fi
  dpkg -x "$tmp"/shellcheck_*.deb "$tmp/root"
  mv -f "$tmp/root/usr/bin/shellcheck" "$dir/shellcheck"
  "$dir/shellcheck" --version >/dev/null 2>&1 || {
    ldd "$dir/shellcheck" >&2 || true
    rm -f "$dir/shellcheck"
    die "shellcheck: the unpacked binary does not run (its libraries, above: Debian's libgmp10 and libffi8)"
  }
  log "shellcheck: unpacked $dir/shellcheck"
fi
echo "$dir/shellcheck"
