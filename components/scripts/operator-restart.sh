k rollout restart "deployment/$NVCFP_DEPLOYMENT" -n "$NVCFP_NAMESPACE"
k rollout status "deployment/$NVCFP_DEPLOYMENT" -n "$NVCFP_NAMESPACE" --timeout="${NVCFP_TIMEOUT_SECONDS}s"
echo "restarted $NVCFP_NAMESPACE/$NVCFP_DEPLOYMENT: it starts with cluster $NVCFP_CLUSTER_ID, region $NVCFP_REGION"
