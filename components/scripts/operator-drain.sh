if k get crd nvcfbackends.nvcf.nvidia.io >/dev/null 2>&1; then
  k delete nvcfbackends.nvcf.nvidia.io --all -n nvca-operator --timeout=120s --ignore-not-found
fi
for i in $(seq 1 "$NVCFP_DRAIN_SECONDS"); do
  n=$(k get pods -n nvca-system --no-headers 2>/dev/null | wc -l)
  [ "$n" -eq 0 ] && { echo "nvca-system is empty"; exit 0; }
  sleep 1
done
echo "nvca-system still has pods after $NVCFP_DRAIN_SECONDS s; undeploy functions and check NVCFBackend finalizers" >&2
exit 1
