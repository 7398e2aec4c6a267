old=${PULUMI_COMMAND_STDOUT:-}
field() { printf '%s\n' "$old" | sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" | head -n1 | tr -d "\"'"; }
id=$(field clusterID); nca=$(field ncaID); region=$(field region); icms=$(field icmsServiceURL)
if [ -n "$id" ] && [ -n "$nca" ] && [ "$nca" != "$NVCFP_NCA_ID" ]; then
  echo "$NVCFP_CLUSTER_NAME ($id) is registered in account $nca; nvcf-cli cannot move a registration to account $NVCFP_NCA_ID keeping its IDs" >&2
  exit 1
fi
if [ -n "$id" ] && [ "$region" = "$NVCFP_REGION" ] && [ "$icms" = "$NVCFP_ICMS_URL" ]; then
  printf '%s' "$NVCFP_KUBECONFIG" > "$work/kubeconfig"
  if ! "$NVCFP_CLI" --config "$work/cli.yaml" cluster rotate --cluster-id "$id" --kubeconfig "$work/kubeconfig" \
      --icms-url "$NVCFP_ICMS_URL" --force >"$work/out" 2>"$work/err"; then
    echo "nvcf-cli cluster rotate failed for $NVCFP_CLUSTER_NAME ($id, API server $NVCFP_API_SERVER):" >&2
    redact < "$work/err"; redact < "$work/out"; exit 1
  fi
  echo "rotated the issuer and JWKS of $NVCFP_CLUSTER_NAME ($id) in ICMS; its IDs are kept" >&2
  printf '%s\n' "$old" | sed -n '/^clusterID:/,$p'
  exit 0
fi
