printf '%s' "$NVCFP_KUBECONFIG" > "$work/kubeconfig"
if ! "$NVCFP_CLI" --config "$work/cli.yaml" cluster register --name "$NVCFP_CLUSTER_NAME" --nca-id "$NVCFP_NCA_ID" \
    --region "$NVCFP_REGION" --icms-url "$NVCFP_ICMS_URL" --kubeconfig "$work/kubeconfig" --ignore-existing \
    >"$work/out" 2>"$work/err"; then
  echo "nvcf-cli cluster register failed for $NVCFP_CLUSTER_NAME (API server $NVCFP_API_SERVER):" >&2
  redact < "$work/err"; exit 1
fi
redact < "$work/err"
if ! grep -q '^clusterID:' "$work/out"; then
  echo "nvcf-cli cluster register printed no Helm values for $NVCFP_CLUSTER_NAME" >&2; exit 1
fi
sed -n '/^clusterID:/,$p' "$work/out"
