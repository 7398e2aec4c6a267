# The second half of Cassandra's in-place adoption (components/upgradeSteps.ts `cassandraAdoption`), after the
# cassandra release installed NVIDIA's own chart: the checks of NVIDIA's "Verify the migration"
# (`docs/v0.6.1/release-notes/0.6.0-to-0.6.1-upgrade.md`): every node UN, the row counts recorded before found
# again, no dirty schema migration; then the writers scaled back to the replica counts they carry. Until the
# checks pass the writers stay at zero. Resumable: a run after the record says `verified` only restores writers.
#
# Environment: as cassandra-prepare.sh.

sts="$NVCFP_STATEFULSET"
replicas="$NVCFP_REPLICAS"
first="$sts-0"

if ! record_exists; then
  writers_restore
  echo "no adoption recorded in configmap $ns/$NVCFP_RECORD: nothing to verify"
  exit 0
fi
if [ "$(record_get phase)" = "verified" ]; then
  writers_restore
  echo "the adoption recorded in configmap $ns/$NVCFP_RECORD was verified at $(record_get verified)"
  exit 0
fi

shape=$(field "statefulset/$sts" '{{range .spec.volumeClaimTemplates}}{{with .metadata.labels}}{{or (index . "'"$NVCFP_BITNAMI_CLAIM_LABEL"'") "-"}}{{else}}-{{end}}{{end}}')
[ -n "$shape" ] || fail "statefulset/$sts does not exist after the cassandra release: the adoption did not happen; the writers stay at zero (docs/upgrading.md \"Cassandra\")"
[ "$shape" = "-" ] || fail "statefulset/$sts still has the Bitnami chart's shape after the cassandra release; the writers stay at zero (docs/upgrading.md \"Cassandra\")"

rolled_out() {
  local ready updated want
  read -r ready updated want < <(field "statefulset/$sts" '{{or .status.readyReplicas 0}} {{or .status.updatedReplicas 0}} {{or .spec.replicas 1}}{{"\n"}}')
  [ "$ready" = "$want" ] && [ "$updated" = "$want" ]
}
until_true "statefulset/$sts to run $replicas ready pod(s) of its new revision" rolled_out
if rehearsing; then
  not_rehearsed "in pod $first: nodetool status, the row counts and the schema_migrations check after the adoption (no container runs in the replica)"
else
  until_true "every Cassandra node to be UN (Up/Normal) in nodetool status" all_up_normal "$first" "$replicas"
  echo "$(now) nodetool status: $replicas node(s) UN on NVIDIA's own chart"

  recorded=$(record_get counts)
  if [ -n "$recorded" ] && [ "$recorded" != "none" ]; then
    read -r -a pairs <<<"$recorded"
    names=()
    for p in "${pairs[@]}"; do names+=("${p%%=*}"); done
    now_counts=$(row_counts "$first" "${names[@]}") || fail "could not count the rows of ${names[*]} after the adoption; the writers stay at zero"
    [ "$now_counts" = "$recorded" ] ||
      fail "row counts differ after the adoption; recorded before: $recorded; found: $now_counts. The writers stay at zero; the snapshot $(record_get snapshot) is on each node's volume (docs/upgrading.md \"Rolling back\")"
    echo "$(now) row counts as recorded before the adoption: $now_counts"
  fi
  ks_text=$(migration_tables "$first") || fail "cqlsh in pod $first failed; the writers stay at zero"
  read -r -d '' -a keyspaces <<<"$ks_text" || true
  dirty=$(dirty_migrations "$first" "${keyspaces[@]}") || fail "cqlsh in pod $first failed; the writers stay at zero"
  [ -z "$dirty" ] ||
    fail "schema_migrations has a dirty migration after the upgrade for: $(tr '\n' ' ' <<<"$dirty")- the writers stay at zero (NVIDIA migrations/cassandra/README.md \"Recovering from a failed run\")"
  echo "$(now) schema_migrations: no dirty migration (${keyspaces[*]})"
fi

record_set verified "$(now)"
record_set phase verified
writers_restore
echo "$(now) Cassandra's data adopted by NVIDIA's own chart; snapshot $(record_get snapshot) stays on each node's volume until you clear it (nodetool clearsnapshot -t $(record_get snapshot))"
