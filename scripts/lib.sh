# shellcheck shell=bash
# Shared shell helpers for nvcf-pulumi scripts. Source it; do not execute it.
#   log MSG...   -> "[  12s] MSG" on stderr (seconds since the first script that sourced this file started)
#   die MSG...   -> log "ERROR: MSG" and exit 1
#   now_s        -> current epoch seconds

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
