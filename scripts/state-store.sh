#!/usr/bin/env bash
# A local S3-compatible object store for Pulumi state: SeaweedFS (scripts/seaweedfs.sh builds it) in its all-in-one
# `weed mini` form, every port on 127.0.0.1, data under $NVCF_LOCAL_DIR/state-store/. The shared-state tests keep
# their stacks there (docs/shared-state.md); it is not part of the default test command (docs/testing.md).
#
#   bash scripts/state-store.sh up     start it (building SeaweedFS once if needed), create the bucket with
#                                      versioning on, print the environment a Pulumi CLI needs to use it
#   bash scripts/state-store.sh env    print that environment (export lines) without starting anything
#   bash scripts/state-store.sh down   stop it and delete its data
#
# The environment: PULUMI_BACKEND_URL=s3://<bucket>?endpoint=http://127.0.0.1:<port>&region=us-east-1&use_path_style=true
# and the credentials of an identity that may only read, write and list that bucket (AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY). A second identity with admin rights creates the bucket. The keys are local test keys:
# the store listens on the loopback address only.
# Ports: NVCF_STATE_STORE_PORT (default 18333) is the S3 API; the master, filer and volume server take the three
# ports above it, their gRPC ports 10000 more (SeaweedFS's rule); the admin, WebDAV, Iceberg and Lance servers are off.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

NVCF_CACHE="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}"
NVCF_LOCAL_DIR="${NVCF_LOCAL_DIR:-$NVCF_CACHE}"
DIR="$NVCF_LOCAL_DIR/state-store"
PORT="${NVCF_STATE_STORE_PORT:-18333}"
BUCKET="${NVCF_STATE_BUCKET:-nvcf-state}"
[[ "$PORT" =~ ^[1-9][0-9]*$ ]] && ((PORT + 10003 < 65536)) || die "NVCF_STATE_STORE_PORT must be a port below 55533, got '$PORT'"
STATE_KEY=nvcf-state-local
STATE_SECRET=nvcf-state-local-secret-key
ADMIN_KEY=nvcf-state-admin
ADMIN_SECRET=nvcf-state-admin-secret-key

env_lines() {
  echo "export PULUMI_BACKEND_URL='s3://$BUCKET?endpoint=http://127.0.0.1:$PORT&region=us-east-1&use_path_style=true'"
  echo "export AWS_ACCESS_KEY_ID=$STATE_KEY"
  echo "export AWS_SECRET_ACCESS_KEY=$STATE_SECRET"
}

weed_shell() { # commands on stdin
  timeout 60 "$WEED" shell -master="127.0.0.1:$((PORT + 1))" -filer="127.0.0.1:$((PORT + 2))"
}

up() {
  WEED=$(bash "$ROOT/scripts/seaweedfs.sh")
  mkdir -p "$DIR/data"
  # The identities: the state identity may read, write and list the one bucket, and nothing else.
  cat >"$DIR/s3.json" <<JSON
{"identities": [
  {"name": "admin", "credentials": [{"accessKey": "$ADMIN_KEY", "secretKey": "$ADMIN_SECRET"}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]},
  {"name": "pulumi-state", "credentials": [{"accessKey": "$STATE_KEY", "secretKey": "$STATE_SECRET"}], "actions": ["Read:$BUCKET", "Write:$BUCKET", "List:$BUCKET"]}
]}
JSON
  # weed writes no pid file: the shell that execs it writes its own pid, which becomes weed's.
  # shellcheck disable=SC2016
  host_process_start "$DIR" weed "$DIR/data" "S3 state store (SeaweedFS, port $PORT)" \
    bash -c 'echo $$ >"$0"; exec "$@"' "$DIR/weed.pid" "$WEED" mini -dir="$DIR/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -s3.port="$PORT" -master.port="$((PORT + 1))" -filer.port="$((PORT + 2))" -volume.port="$((PORT + 3))" \
    -s3.config="$DIR/s3.json" -admin.ui=false -admin.port="$((PORT + 4))" -admin.port.legacy=0 \
    -webdav=false -s3.port.iceberg=0 -s3.port.lance=0 -master.volumeSizeLimitMB=64
  local i
  for i in $(seq 1 120); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/status" 2>/dev/null && break
    [ "$i" = 120 ] && { tail -n 20 "$DIR/weed.log" >&2; die "the S3 state store did not answer on 127.0.0.1:$PORT"; }
    sleep 0.5
  done
  printf 's3.bucket.create -name %s\ns3.bucket.versioning -name %s -enable\n' "$BUCKET" "$BUCKET" | weed_shell >>"$DIR/shell.log" 2>&1 ||
    { tail -n 20 "$DIR/shell.log" >&2; die "could not create bucket $BUCKET"; }
  log "state store: bucket $BUCKET (versioning on) at http://127.0.0.1:$PORT"
  env_lines
}

case "${1:-}" in
  up) up ;;
  env) env_lines ;;
  down)
    host_process_stop "$DIR" weed "$DIR/data" "S3 state store"
    rm -rf "$DIR"
    ;;
  *) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
