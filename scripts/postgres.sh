#!/usr/bin/env bash
# A private PostgreSQL server for Pulumi state (the Pulumi CLI's postgres:// DIY backend; the pinned CLI has it:
# pkg/backend/diy/postgres), from Debian's postgresql package (installed with apt-get when missing). Listens on
# 127.0.0.1 only; its data lives in a directory of its own under the system temporary directory (PostgreSQL runs as
# the package's postgres user, who cannot enter root's home), named after NVCF_LOCAL_DIR so two checkouts' servers
# stay apart. The extended tests use it (scripts/test-extended.sh, docs/shared-state.md).
#
#   bash scripts/postgres.sh up     start it (initdb on first use), print the backend URL on stdout
#   bash scripts/postgres.sh down   stop it and delete its data
#
# Port: NVCF_POSTGRES_PORT (default 15432). The database user and password are local test credentials.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

NVCF_LOCAL_DIR="${NVCF_LOCAL_DIR:-${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}}"
PORT="${NVCF_POSTGRES_PORT:-15432}"
DIR="${TMPDIR:-/tmp}/nvcf-postgres-$(printf '%s' "$NVCF_LOCAL_DIR" | sha256sum | cut -c1-8)"
USER_NAME=nvcf
PASSWORD=nvcf-local-state-password
DB=nvcf_state

bin_dir() {
  local d
  d=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

as_postgres() { runuser -u postgres -- "$@"; }

case "${1:-}" in
  up)
    if ! BIN=$(bin_dir); then
      log "postgres: installing Debian's postgresql package"
      { apt-get install -y --no-install-recommends postgresql >/dev/null 2>&1 ||
        { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends postgresql >/dev/null 2>&1; }; } ||
        die "cannot install Debian's postgresql package (apt-get install postgresql)"
      BIN=$(bin_dir) || die "postgresql installed, but no initdb under /usr/lib/postgresql"
    fi
    id postgres >/dev/null 2>&1 || die "no postgres user (Debian's postgresql package creates it)"
    mkdir -p "$DIR"
    chown postgres: "$DIR"
    chmod 700 "$DIR"
    if [ ! -f "$DIR/data/PG_VERSION" ]; then
      printf '%s\n' "$PASSWORD" >"$DIR/pw"
      chown postgres: "$DIR/pw"
      as_postgres "$BIN/initdb" -D "$DIR/data" -U "$USER_NAME" --auth=scram-sha-256 --pwfile="$DIR/pw" >"$DIR/initdb.log" 2>&1 ||
        { tail -n 20 "$DIR/initdb.log" >&2; die "initdb failed"; }
      rm -f "$DIR/pw"
    fi
    if ! as_postgres "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
      as_postgres "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
        -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1" start >/dev/null ||
        { tail -n 20 "$DIR/server.log" >&2; die "PostgreSQL did not start (log $DIR/server.log)"; }
    fi
    if ! PGPASSWORD=$PASSWORD "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U "$USER_NAME" -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
      PGPASSWORD=$PASSWORD "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U "$USER_NAME" "$DB"
    fi
    log "postgres: database $DB on 127.0.0.1:$PORT (data $DIR)"
    echo "postgres://$USER_NAME:$PASSWORD@127.0.0.1:$PORT/$DB?sslmode=disable"
    ;;
  down)
    if BIN=$(bin_dir) && [ -f "$DIR/data/PG_VERSION" ]; then
      as_postgres "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$DIR"
    ;;
  *) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
