# OpenBao's rollout after its release changed (components/upgradeSteps.ts `openbaoRollout`). The server
# StatefulSet uses the OnDelete update strategy: Helm updates its template and Kubernetes restarts nothing, so
# each pod still on the previous revision is deleted here, standbys first and the active pod last, and the next
# one only once the recreated pod is ready, initialized and unsealed (NVIDIA `docs/v0.6.1/release-notes/0.6.1.md`
# "Step 2: rotate OpenBao server pods"). Active, sealed and initialized are read from the labels OpenBao's
# Kubernetes service registration keeps on its pods (`openbao-active`, `openbao-sealed`, `openbao-initialized`;
# the chart's HA config enables it). Idempotent: a run that finds every pod on the current revision does nothing,
# and a run that was interrupted mid-rotation waits for the pod it deleted and goes on.
#
# Environment: NVCFP_NAMESPACE, NVCFP_STATEFULSET, NVCFP_WAIT_SECONDS (per pod), NVCFP_REVISION (the release's
# Helm revision: the input that makes the step run again after each upgrade).

sts="$NVCFP_STATEFULSET"
# generation, observed generation, update strategy, update revision, replicas; then the selector.
info=$(field "statefulset/$sts" '{{.metadata.generation}} {{or .status.observedGeneration 0}} {{.spec.updateStrategy.type}} {{or .status.updateRevision "-"}} {{or .spec.replicas 1}}{{"\n"}}{{range $k, $v := .spec.selector.matchLabels}}{{$k}}={{$v}},{{end}}')
if [ -z "$info" ]; then
  echo "statefulset $ns/$sts not found: no OpenBao pods to roll"
  exit 0
fi

# The controller has seen the template Helm wrote (its update revision is the new one).
observed() {
  local gen obs
  read -r gen obs _ < <(field "statefulset/$sts" '{{.metadata.generation}} {{or .status.observedGeneration 0}}{{"\n"}}')
  [ "$gen" = "$obs" ]
}
until_true "statefulset/$sts to observe its template" observed
info=$(field "statefulset/$sts" '{{.metadata.generation}} {{or .status.observedGeneration 0}} {{.spec.updateStrategy.type}} {{or .status.updateRevision "-"}} {{or .spec.replicas 1}}{{"\n"}}{{range $k, $v := .spec.selector.matchLabels}}{{$k}}={{$v}},{{end}}')
read -r _ _ strategy revision replicas <<<"$(head -n1 <<<"$info")"
selector=$(sed -n 2p <<<"$info")
selector="${selector%,}"
if [ "$strategy" != "OnDelete" ]; then
  echo "statefulset/$sts has update strategy $strategy: its controller rolls the pods itself"
  exit 0
fi

# One line per pod of the StatefulSet (named <set>-<ordinal>; the selector may also match hook Jobs' pods): name,
# revision, active, sealed, initialized, ready (or `deleting`).
pod_tpl='{{range .items}}{{.metadata.name}} {{or (index .metadata.labels "controller-revision-hash") "-"}} {{or (index .metadata.labels "openbao-active") "-"}} {{or (index .metadata.labels "openbao-sealed") "-"}} {{or (index .metadata.labels "openbao-initialized") "-"}} {{if .metadata.deletionTimestamp}}deleting{{else}}{{$r := "False"}}{{range .status.conditions}}{{if eq .type "Ready"}}{{$r = .status}}{{end}}{{end}}{{$r}}{{end}}{{"\n"}}{{end}}'
pods() {
  local list
  list=$(k -n "$ns" get pods -l "$selector" -o go-template="$pod_tpl") || return 1
  awk -v set="$sts" '$1 ~ ("^" set "-[0-9]+$")' <<<"$list"
}

# healthy_line <line>: the pod is ready, initialized and unsealed, and not being deleted.
healthy_line() {
  local name rev active sealed init ready
  read -r name rev active sealed init ready <<<"$1"
  [ "$ready" = "True" ] && [ "$sealed" = "false" ] && [ "$init" = "true" ]
}

# all_healthy: every replica exists and is healthy.
all_healthy() {
  local list line n=0
  list=$(pods) || return 1
  while read -r line; do
    [ -n "$line" ] || continue
    healthy_line "$line" || return 1
    n=$((n + 1))
  done <<<"$list"
  [ "$n" -eq "$replicas" ]
}

# all_present: every replica exists and none is being deleted (nothing an interrupted rotation left coming back).
all_present() {
  local list
  list=$(pods) || return 1
  [ "$(awk '$6 != "deleting"' <<<"$list" | wc -l)" -eq "$replicas" ]
}

# pod_back <name>: the pod exists on the update revision and is healthy.
pod_back() {
  local line
  line=$(pods | awk -v p="$1" '$1 == p') || return 1
  [ -n "$line" ] && [ "$(awk '{print $2}' <<<"$line")" = "$revision" ] && healthy_line "$line"
}

describe_pods() { pods | awk '{ printf "  %s: revision %s, active %s, sealed %s, initialized %s, ready %s\n", $1, $2, $3, $4, $5, $6 }'; }

# stale: how many pods are on another revision than the update revision.
stale() { pods | awk -v rev="$revision" '$2 != rev' | wc -l; }
if [ "$(stale)" -eq 0 ] && all_present; then
  echo "every OpenBao server pod of statefulset/$sts runs revision $revision (Helm revision ${NVCFP_REVISION:-?}; nothing to rotate)"
  exit 0
fi

# Before anything is deleted: every pod ready, initialized and unsealed (also waits out a pod an interrupted run
# had just deleted).
if ! (until_true "every OpenBao server pod to be ready, initialized and unsealed" all_healthy); then
  describe_pods >&2
  fail "not every OpenBao server pod of statefulset/$sts is ready, initialized and unsealed (the labels above come from OpenBao's Kubernetes service registration); resolve OpenBao before its pods are rotated (docs/upgrading.md \"OpenBao\")"
fi

rotated=0
while :; do
  list=$(pods)
  standby=""
  active=""
  while read -r name rev act _; do
    [ -n "$name" ] && [ "$rev" != "$revision" ] || continue
    if [ "$act" = "true" ]; then active="$name"; elif [ -z "$standby" ]; then standby="$name"; fi
  done <<<"$list"
  pod="${standby:-$active}"
  [ -n "$pod" ] || break
  role="standby"
  [ "$pod" = "$active" ] && role="active"
  echo "$(now) rotating pod $ns/$pod ($role) onto revision $revision"
  k -n "$ns" delete pod "$pod" --wait=true --timeout="${wait_seconds}s" >/dev/null
  if ! (until_true "pod $pod to come back ready, initialized and unsealed" pod_back "$pod"); then
    describe_pods >&2
    fail "pod $ns/$pod did not come back ready, initialized and unsealed on revision $revision; no other pod is rotated until it does (docs/upgrading.md \"OpenBao\")"
  fi
  echo "$(now) pod $ns/$pod is back: ready, initialized, unsealed"
  rotated=$((rotated + 1))
done
echo "every OpenBao server pod of statefulset/$sts runs revision $revision (Helm revision ${NVCFP_REVISION:-?}; $rotated rotated in this run)"
