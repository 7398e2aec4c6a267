id=$(printf '%s\n' "${PULUMI_COMMAND_STDOUT:-}" | sed -n 's/^clusterID:[[:space:]]*//p' | head -n1 | tr -d "\"'")
if [ -z "$id" ]; then echo "no recorded clusterID for $NVCFP_CLUSTER_NAME; nothing to deregister" >&2; exit 0; fi
"$NVCFP_CLI" --config "$work/cli.yaml" cluster delete --cluster-id "$id" --nca-id "$NVCFP_NCA_ID" --ignore-missing >/dev/null 2>"$work/err" || {
  echo "nvcf-cli cluster delete failed for $NVCFP_CLUSTER_NAME ($id):" >&2; redact < "$work/err"; exit 1; }
echo "deregistered $NVCFP_CLUSTER_NAME ($id)"
