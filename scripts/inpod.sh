# shellcheck shell=bash
# `kubectl exec` on the local clusters, sourced by scripts/cluster.sh (needs its KWOK_WORKDIR, NVCF_LOCAL_DIR, ROOT,
# k(), log, die).
#
# kwok runs no containers. With its Exec CRD enabled (kwokctl option enableCRDs in cluster.sh's kwokctl_config,
# part of every cluster's configuration), the kwok controller serves the kubelet's exec endpoint itself and runs the
# command as a local process, with the environment of the pod's kwok.x-k8s.io/v1alpha1 Exec object. The API
# server reaches that endpoint as it reaches a kubelet: kwok gives every node it manages the Hostname address
# "localhost" (kwokctl runs it with --node-name=localhost) and its own port as the kubelet port. kwok looks the
# command up in its own PATH (Go's exec.Command), so the kwok controller's PATH starts with $INPOD_DIR/bin
# (inpod_kwokctl_patch), where `up` links the tools of the checkout it runs from. A cluster created before this
# has neither: `down` and `up` it.
#
# On nvcf-dev a host process, tests/bin/inpod-agent, creates the Exec objects of the Cassandra and OpenBao server
# pods and keeps the state their stand-in tools read (tests/bin/inpod: nodetool, cqlsh, bao; docs/embedded-default.md).
# Its pid, log and state are under $NVCF_LOCAL_DIR/inpod/; `up` starts it (and again when it stopped), `down` stops
# it.
INPOD_DIR="$NVCF_LOCAL_DIR/inpod"

# The kwok controller's PATH, a componentsPatches entry appended to kwokctl_config's list (kwokctl keeps it with
# the cluster, so a restarted kwok has it too).
inpod_kwokctl_patch() {
  cat <<EOF
  - name: kwok-controller
    extraEnvs:
      - name: PATH
        value: "$INPOD_DIR/bin:$PATH"
EOF
}

inpod_match() { echo "inpod-agent --kubeconfig $KWOK_WORKDIR/clusters/$1/kubeconfig.yaml "; }

inpod_start() {
  local name=$1 t
  [ "$name" = nvcf-dev ] || return 0
  k "$name" get crd execs.kwok.x-k8s.io >/dev/null 2>&1 ||
    log "cluster $name: no kwok Exec API (created before kubectl exec was enabled): bash scripts/cluster.sh down $name && bash scripts/cluster.sh up $name"
  mkdir -p "$INPOD_DIR/bin"
  for t in "$ROOT"/tests/bin/inpod/*; do [ -f "$t" ] && [ -x "$t" ] && ln -sfn "$t" "$INPOD_DIR/bin/$(basename "$t")"; done
  host_process_start "$INPOD_DIR" "$name" "$(inpod_match "$name")" "in-pod tools agent" \
    node "$ROOT/tests/bin/inpod-agent" --kubeconfig "$KWOK_WORKDIR/clusters/$name/kubeconfig.yaml" \
    --context "kwok-$name" --state "$INPOD_DIR/$name.state" --tools "$INPOD_DIR/bin" --pid-file "$INPOD_DIR/$name.pid"
}

inpod_stop() {
  host_process_stop "$INPOD_DIR" "$1" "$(inpod_match "$1")" "in-pod tools agent"
  rm -rf "$INPOD_DIR/$1.state"
}
