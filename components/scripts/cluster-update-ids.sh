now=$(sed -n 's/^clusterID:[[:space:]]*//p' "$work/out" | head -n1 | tr -d "\"'")
if [ -n "$id" ] && [ "$now" != "$id" ]; then
  echo "warning: ICMS no longer had $NVCFP_CLUSTER_NAME ($id): it is registered again with cluster ID $now" >&2
fi
