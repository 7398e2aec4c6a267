# Shared by the upgrade steps (components/upgradeSteps.ts joins it after KUBECTL_PREAMBLE and before a step's own
# script; the Cassandra steps also get cassandra-lib.sh). Every function reads only the step's environment; none
# prints a secret.
#
# Environment: NVCFP_NAMESPACE (the data store's namespace), NVCFP_WAIT_SECONDS (how long each wait may take),
# NVCFP_POLL_SECONDS (the pause between two looks while waiting; default 2).

ns="$NVCFP_NAMESPACE"
wait_seconds="${NVCFP_WAIT_SECONDS:-900}"
poll_seconds="${NVCFP_POLL_SECONDS:-2}"

# fail <message>: the step stops with the message on stderr (the engine shows it with the step's error).
fail() {
  echo "$*" >&2
  exit 1
}

# now: UTC time, ISO 8601 (for the record and the progress lines).
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# until_true <what> <command...>: runs the command every NVCFP_POLL_SECONDS until it succeeds, for at most
# NVCFP_WAIT_SECONDS; fails naming <what> otherwise.
until_true() {
  local what="$1"
  shift
  local deadline=$((SECONDS + wait_seconds))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${wait_seconds} s waiting for ${what}"
    sleep "$poll_seconds"
  done
}

# field <kind/name> <go-template>: one object of this namespace through a go-template; empty output when it does
# not exist; fails when the API server does not answer.
field() {
  k -n "$ns" get "$1" --ignore-not-found -o go-template="$2"
}

# --- the record of a migration: a ConfigMap in the data store's namespace that outlives the Helm releases -------

# record_get <key>: a value of the record, or nothing.
record_get() {
  field "configmap/$NVCFP_RECORD" "{{with .data}}{{with index . \"$1\"}}{{.}}{{end}}{{end}}"
}

# record_exists: true when the record ConfigMap exists.
record_exists() {
  [ -n "$(field "configmap/$NVCFP_RECORD" '{{.metadata.name}}')" ]
}

# record_set <key> <value>: sets one value (single-line text without quotes or backslashes).
record_set() {
  if ! record_exists; then
    k -n "$ns" create configmap "$NVCFP_RECORD" >/dev/null
    k -n "$ns" label configmap "$NVCFP_RECORD" app.kubernetes.io/managed-by=nvcf-pulumi >/dev/null
  fi
  k -n "$ns" patch configmap "$NVCFP_RECORD" --type merge -p "{\"data\":{\"$1\":\"$2\"}}" >/dev/null
}
