# Shared by the Cassandra steps (components/upgradeSteps.ts joins it after lib.sh): nodetool and cqlsh in the
# Cassandra pods as NVIDIA's notes run them, and the writers. Environment: NVCFP_CONTAINER, NVCFP_CQL_USER,
# NVCFP_CQL_PASSWORD (secret), NVCFP_WRITER_NAMESPACES, NVCFP_ANNOTATION; in a rehearsal (`nvcf rehearse`, whose
# replicas run no container) NVCFPULUMI_REHEARSAL, the file that journals what was not rehearsed.

# rehearsing: true when the step runs in a rehearsal, on a replica where no container runs.
rehearsing() { [ -n "${NVCFPULUMI_REHEARSAL:-}" ]; }

# not_rehearsed <what>: says, and journals for the rehearsal's report, what the step did not do in a pod.
not_rehearsed() {
  echo "not rehearsed: $*"
  printf '%s\n' "$*" >>"$NVCFPULUMI_REHEARSAL"
}

# nodetool_in <pod> <args...>
nodetool_in() {
  local pod="$1"
  shift
  k -n "$ns" exec "$pod" -c "$NVCFP_CONTAINER" -- nodetool "$@"
}

# cql <pod> <statements>: runs CQL with cqlsh in the pod as NVCFP_CQL_USER. The password travels on standard
# input into a credentials file private to the call (cqlsh --credentials), never on a command line.
cql() {
  printf '%s\n' "$NVCFP_CQL_PASSWORD" |
    k -n "$ns" exec -i "$1" -c "$NVCFP_CONTAINER" -- sh -c '
      umask 077
      f=$(mktemp)
      IFS= read -r p
      printf "[PlainTextAuthProvider]\nusername = %s\npassword = %s\n" "$0" "$p" >"$f"
      cqlsh --credentials "$f" --request-timeout=120 -e "$1"
      rc=$?
      rm -f "$f"
      exit $rc' "$NVCFP_CQL_USER" "$2"
}

# cql_rows: reads cqlsh's tabular output and prints, for each result, a line `#` and then its rows with the cells
# trimmed and separated by `|`.
cql_rows() {
  awk '
    /^-+(\+-+)*$/ { inblock = 1; print "#"; next }
    inblock && /^\([0-9]+ rows?\)$/ { inblock = 0; next }
    inblock && NF { gsub(/^ +| +$/, ""); gsub(/ *\| */, "|"); print }
  '
}

# all_up_normal <pod> <replicas>: every node nodetool lists is UN, and there are <replicas> of them.
all_up_normal() {
  local out
  out=$(nodetool_in "$1" status 2>/dev/null) || return 1
  printf '%s\n' "$out" | awk -v want="$2" '
    /^[UD][NLJM] / { seen++; if ($1 != "UN") bad = 1 }
    END { exit (seen != want || bad) }
  '
}

# migration_tables <pod>: the tables of the schema_migrations keyspace (one per service keyspace, named after it).
migration_tables() {
  cql "$1" "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'schema_migrations';" |
    cql_rows | awk '!/^#$/' | sort
}

# per_name <pod> <statement with NAME> <names...>: runs the statement once per name (NAME replaced by it), in one
# cqlsh call, and prints `<name>|<row>` for every row of each result, results in the order of the names.
per_name() {
  local pod="$1" stmt="$2"
  shift 2
  [ "$#" -gt 0 ] || return 0
  local q="" t
  for t in "$@"; do q="$q ${stmt//NAME/$t};"; done
  cql "$pod" "$q" | cql_rows | awk -v names="$*" '
    BEGIN { split(names, t, " ") }
    /^#$/ { i++; next }
    { print t[i] "|" $0 }
  '
}

# dirty_migrations <pod> <tables...>: the tables with a dirty schema migration, one per line.
dirty_migrations() {
  local pod="$1"
  shift
  per_name "$pod" "SELECT version, dirty FROM schema_migrations.NAME" "$@" |
    awk -F'|' 'tolower($3) == "true" { print $1 }' | sort -u
}

# data_tables <pod> <keyspaces...>: `keyspace.table` for every table of the keyspaces given.
data_tables() {
  local pod="$1"
  shift
  [ "$#" -gt 0 ] || return 0
  cql "$pod" "SELECT keyspace_name, table_name FROM system_schema.tables;" | cql_rows | awk -v names="$*" '
    BEGIN { n = split(names, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 }
    /^#$/ { next }
    { split($0, c, "|"); if (c[1] in want) print c[1] "." c[2] }
  ' | sort
}

# row_counts <pod> <keyspace.table...>: `keyspace.table=N` for each table, space-separated, in the order given;
# fails when a table's count is missing.
row_counts() {
  local pod="$1"
  shift
  [ "$#" -gt 0 ] || return 0
  per_name "$pod" "SELECT COUNT(*) FROM NAME" "$@" | awk -F'|' -v names="$*" '
    BEGIN { n = split(names, t, " ") }
    !($1 in got) { got[$1] = $2 }
    END {
      for (j = 1; j <= n; j++) { if (!(t[j] in got)) exit 1; printf "%s%s=%s", (j > 1 ? " " : ""), t[j], got[t[j]] }
      print ""
    }
  '
}

# --- the writers: Deployments scaled to zero, their replica counts kept on themselves ---------------------------

# writers_quiesce: every Deployment of NVCFP_WRITER_NAMESPACES annotated with its replica count (unless it
# already is: a resumed step keeps the count recorded first) and scaled to zero; waits until their pods are gone.
writers_quiesce() {
  local w name replicas mark list
  for w in $NVCFP_WRITER_NAMESPACES; do
    list=$(k -n "$w" get deployments -o go-template='{{range .items}}{{.metadata.name}} {{.spec.replicas}} {{with .metadata.annotations}}{{or (index . "'"$NVCFP_ANNOTATION"'") "-"}}{{else}}-{{end}}{{"\n"}}{{end}}')
    while read -r name replicas mark; do
      [ -n "$name" ] || continue
      if [ -z "$mark" ] || [ "$mark" = "-" ]; then
        k -n "$w" annotate deployment "$name" "$NVCFP_ANNOTATION=${replicas:-1}" >/dev/null
        echo "writer deployment $w/$name: ${replicas:-1} replica(s) recorded in annotation $NVCFP_ANNOTATION"
      fi
      k -n "$w" scale deployment "$name" --replicas=0 >/dev/null
    done <<<"$list"
  done
  until_true "the writers' pods to stop" writers_stopped
  echo "writers scaled to zero (Deployments in $NVCFP_WRITER_NAMESPACES)"
}

# writers_stopped: no Deployment of the writer namespaces has a pod left.
writers_stopped() {
  local w
  for w in $NVCFP_WRITER_NAMESPACES; do
    k -n "$w" get deployments -o go-template='{{range .items}}{{with .status.replicas}}{{.}}{{"\n"}}{{end}}{{end}}' |
      awk '$1 > 0 { found = 1 } END { exit found }' || return 1
  done
}

# writers_restore: every Deployment carrying the annotation scaled back to the count it records, then the
# annotation removed (a resumed step scales again to the same count).
writers_restore() {
  local w name mark list restored=""
  for w in $NVCFP_WRITER_NAMESPACES; do
    list=$(k -n "$w" get deployments -o go-template='{{range .items}}{{.metadata.name}} {{with .metadata.annotations}}{{or (index . "'"$NVCFP_ANNOTATION"'") "-"}}{{else}}-{{end}}{{"\n"}}{{end}}')
    while read -r name mark; do
      [ -n "$name" ] && [ -n "$mark" ] && [ "$mark" != "-" ] || continue
      k -n "$w" scale deployment "$name" --replicas="$mark" >/dev/null
      k -n "$w" annotate deployment "$name" "$NVCFP_ANNOTATION-" >/dev/null
      restored="$restored $w/$name=$mark"
    done <<<"$list"
  done
  if [ -n "$restored" ]; then echo "writers restored:$restored"; fi
}
