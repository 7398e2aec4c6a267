log="${TMPDIR:-/tmp}/nvcf-operator-finalizers-$NVCFP_CLUSTER.log"
setsid bash -c "$NVCFP_UNFINALIZE_SCRIPT" </dev/null >"$log" 2>&1 &
echo "watching the nvca-operator uninstall for $NVCFP_FINALIZER finalizers (pid $!, log $log)"
