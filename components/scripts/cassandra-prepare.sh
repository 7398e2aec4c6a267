# The first half of Cassandra's in-place adoption (components/upgradeSteps.ts `cassandraAdoption`): everything
# NVIDIA's notes ask before the new chart is installed over a Bitnami-shaped StatefulSet
# (`docs/v0.6.1/release-notes/0.6.0-to-0.6.1-upgrade.md` "Check Cassandra before migrating" and "Method: in-place
# volume adoption"). It acts only while StatefulSet cassandra still has the Bitnami chart's shape (its claim
# template carries the label NVCFP_BITNAMI_CLAIM_LABEL, which NVIDIA's own chart drops: the one immutable field
# that differs); against NVIDIA's own shape it does nothing. Resumable from any point: the record ConfigMap
# NVCFP_RECORD keeps what was done (the StatefulSet's UID it started from, snapshot tag, nodes snapshotted, row
# counts), the writers keep their replica counts in an annotation, and a StatefulSet already deleted means only the
# old pod is left to delete. A Bitnami-shaped StatefulSet other than the recorded one (put back by a rollback)
# starts the adoption again.
#
# Environment: NVCFP_NAMESPACE, NVCFP_STATEFULSET, NVCFP_CONTAINER, NVCFP_REPLICAS, NVCFP_RECORD,
# NVCFP_BITNAMI_CLAIM_LABEL, NVCFP_WRITER_NAMESPACES, NVCFP_ANNOTATION, NVCFP_CQL_USER, NVCFP_CQL_PASSWORD (secret),
# NVCFP_WAIT_SECONDS; NVCFP_SOURCE_UID (the program's reading of the StatefulSet to adopt, `adoptionSource` in
# recovery/plan.ts: not read here, it makes the step run again when a rollback puts a new StatefulSet back).

sts="$NVCFP_STATEFULSET"
replicas="$NVCFP_REPLICAS"
first="$sts-0"
shape=$(field "statefulset/$sts" '{{.metadata.name}} {{if .metadata.deletionTimestamp}}deleting{{else}}live{{end}} {{with .spec.persistentVolumeClaimRetentionPolicy}}{{or .whenDeleted "Retain"}}{{else}}Retain{{end}} {{range .spec.volumeClaimTemplates}}{{with .metadata.labels}}{{or (index . "'"$NVCFP_BITNAMI_CLAIM_LABEL"'") "-"}}{{else}}-{{end}}{{end}}')

if [ -n "$shape" ]; then
  read -r _ state when_deleted bitnami <<<"$shape"
  if [ "$bitnami" = "-" ] && [ "$state" = "live" ]; then
    echo "statefulset/$sts has NVIDIA's own chart's shape: nothing to adopt"
    exit 0
  fi
  [ "$when_deleted" != "Delete" ] ||
    fail "statefulset/$sts has persistentVolumeClaimRetentionPolicy.whenDeleted Delete: deleting it would delete the claims that hold the data; set it to Retain before upgrading (docs/upgrading.md \"Cassandra\")"
fi

if [ -n "$shape" ] && [ "$state" = "live" ]; then
  uid=$(field "statefulset/$sts" '{{.metadata.uid}}')
  source_uid=$(record_get source)
  if [ -n "$source_uid" ] && [ "$source_uid" != "$uid" ]; then
    # The adoption recorded started from another StatefulSet, which it deleted: this one was put back since (a
    # `helm rollback cassandra`, docs/upgrading.md "Rolling back"). Its counts and snapshots describe data the
    # rolled-back Cassandra may have changed since: the adoption starts again from this StatefulSet.
    echo "$(now) statefulset/$sts was put back after the adoption recorded in configmap $ns/$NVCFP_RECORD (started $(record_get started)) deleted its predecessor: starting the adoption again (that adoption's snapshot $(record_get snapshot) stays on each node's volume)"
    k -n "$ns" delete configmap "$NVCFP_RECORD" --wait=true >/dev/null
  fi
  if ! record_exists; then
    record_set started "$(now)"
    record_set snapshot "nvcf-adoption-$(date -u +%Y%m%dt%H%M%Sz)"
    record_set source "$uid"
    echo "$(now) adopting Cassandra's data in place: record kept in configmap $ns/$NVCFP_RECORD"
  else
    echo "$(now) resuming the adoption recorded in configmap $ns/$NVCFP_RECORD (started $(record_get started))"
  fi
  tag=$(record_get snapshot)

  # Checks (NVIDIA: all pods Running, every node UN, claims Bound, no dirty schema migration).
  claims_bound() {
    local i phase
    for ((i = 0; i < replicas; i++)); do
      phase=$(field "persistentvolumeclaim/data-$sts-$i" '{{.status.phase}}')
      [ "$phase" = "Bound" ] || return 1
    done
  }
  claims_bound || fail "the claims data-$sts-0..$((replicas - 1)) are not all Bound; Cassandra was not touched"
  if rehearsing; then
    not_rehearsed "in pod $first: nodetool status, the schema_migrations check and the row counts (no container runs in the replica)"
    [ -n "$(record_get counts)" ] || record_set counts none
  else
    until_true "every Cassandra node to be UN (Up/Normal) in nodetool status" all_up_normal "$first" "$replicas"
    echo "$(now) nodetool status: $replicas node(s) UN; claims data-$sts-0..$((replicas - 1)) Bound"
    ks_text=$(migration_tables "$first") || fail "cqlsh in pod $first failed; Cassandra was not touched"
    read -r -d '' -a keyspaces <<<"$ks_text" || true
    [ "${#keyspaces[@]}" -gt 0 ] || fail "no table in keyspace schema_migrations: is this NVCF's Cassandra? nothing was changed"
    dirty=$(dirty_migrations "$first" "${keyspaces[@]}") || fail "cqlsh in pod $first failed; Cassandra was not touched"
    [ -z "$dirty" ] ||
      fail "schema_migrations has a dirty migration for: $(tr '\n' ' ' <<<"$dirty")- reconcile it before upgrading (NVIDIA migrations/cassandra/README.md \"Recovering from a failed run\"); Cassandra was not touched"
    echo "$(now) schema_migrations: no dirty migration (${keyspaces[*]})"

    # Row counts, recorded once (a resumed run keeps the first record: the writers may already be down).
    if [ -z "$(record_get counts)" ]; then
      tables_text=$(data_tables "$first" "${keyspaces[@]}") || fail "cqlsh in pod $first failed; Cassandra was not touched"
      read -r -d '' -a tables <<<"$tables_text" || true
      if [ "${#tables[@]}" -eq 0 ]; then
        counts="none"
      else
        counts=$(row_counts "$first" "${tables[@]}") || fail "could not count the rows of ${tables[*]}; Cassandra was not touched"
      fi
      record_set counts "$counts"
    fi
    echo "$(now) row counts recorded: $(record_get counts)"
  fi

  # No writes while the data is flushed, snapshotted and handed over.
  writers_quiesce

  # Backup on every node's own volume: flush, then snapshot (once per node under this adoption's tag).
  for ((i = 0; i < replicas; i++)); do
    pod="$sts-$i"
    done_nodes=" $(record_get snapshotted) "
    [[ "$done_nodes" == *" $pod "* ]] && continue
    if rehearsing; then
      not_rehearsed "in pod $pod: nodetool flush, nodetool snapshot -t $tag"
      continue
    fi
    nodetool_in "$pod" flush >/dev/null
    nodetool_in "$pod" snapshot -t "$tag" >/dev/null
    record_set snapshotted "$(xargs <<<"$done_nodes $pod")"
    echo "$(now) pod $pod: nodetool flush, nodetool snapshot -t $tag"
  done

  record_set phase orphaned
  k -n "$ns" delete statefulset "$sts" --cascade=orphan --wait=true --timeout="${wait_seconds}s" >/dev/null
  echo "$(now) statefulset/$sts deleted with --cascade=orphan: its pods and the claims data-$sts-* stay"
elif [ -n "$shape" ]; then
  # Being deleted (an interrupted run's orphan delete): wait until it is gone.
  sts_gone() { [ -z "$(field "statefulset/$sts" '{{.metadata.name}}')" ]; }
  until_true "statefulset/$sts to be deleted" sts_gone
fi

# The StatefulSet is gone. Without a record this is not an adoption this program started: leave it to the release.
if ! record_exists; then
  echo "statefulset/$sts does not exist and no adoption is recorded: nothing to adopt"
  exit 0
fi
record_set phase orphaned
# The old pod goes, so the new StatefulSet starts a fresh cassandra-0 on the same claim (the others it adopts and
# replaces one by one, NVIDIA's notes); nothing recreates it until the release installs the new StatefulSet.
owner=$(field "pod/$first" '{{.metadata.name}} {{with .metadata.ownerReferences}}owned{{else}}orphan{{end}}')
if [ -n "$owner" ]; then
  [ "$(awk '{print $2}' <<<"$owner")" = "orphan" ] ||
    fail "pod $first belongs to a controller although statefulset/$sts is gone; resolve it before the upgrade goes on"
  k -n "$ns" delete pod "$first" --wait=true --timeout="${wait_seconds}s" >/dev/null
  echo "$(now) pod $first deleted (claim data-$first kept)"
fi
echo "$(now) ready for NVIDIA's own chart: claims data-$sts-0..$((replicas - 1)) kept, snapshot $(record_get snapshot) on each node's volume"
