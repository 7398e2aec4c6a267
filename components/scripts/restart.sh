# A restart generation of one Helm release (components/restarts.ts, `nvcf:restarts`). Every Deployment, StatefulSet
# and DaemonSet of the release (Helm's `meta.helm.sh/release-name` annotation names it) gets the generation as a
# pod-template annotation, so its controller replaces the pods as after any template change: what `kubectl rollout
# restart` does, with a number instead of a time, so a run that was interrupted and runs again patches nothing twice.
# Then each rollout is waited for. Helm's three-way merge keeps the annotation on later upgrades (it is in neither
# manifest). A StatefulSet with the OnDelete strategy is not rolled by its controller: for OpenBao's server the
# rollout script that runs after this one rotates its pods, standbys first (NVCFP_ONDELETE_BY=openbao-rollout);
# any other such StatefulSet's pods still on an older revision are deleted one at a time, highest ordinal first,
# each ready again before the next.
#
# Environment: NVCFP_NAMESPACE, NVCFP_RELEASE, NVCFP_GENERATION (a positive integer), NVCFP_ANNOTATION (the
# pod-template annotation), NVCFP_ONDELETE_BY (the StatefulSet whose pods a later script rotates, or empty),
# NVCFP_WAIT_SECONDS.

release="$NVCFP_RELEASE"
generation="$NVCFP_GENERATION"
annotation="$NVCFP_ANNOTATION"

# kind/name, update strategy (Deployment: .spec.strategy), and the generation its template carries ("-": none);
# only the workloads of this release.
tpl='{{range .items}}{{$r := "-"}}{{with .metadata.annotations}}{{with index . "meta.helm.sh/release-name"}}{{$r = .}}{{end}}{{end}}'
tpl+='{{$s := "RollingUpdate"}}{{with .spec.updateStrategy}}{{with .type}}{{$s = .}}{{end}}{{end}}'
tpl+='{{$g := "-"}}{{with .spec.template.metadata.annotations}}{{with index . "'"$annotation"'"}}{{$g = .}}{{end}}{{end}}'
tpl+='{{.kind}}/{{.metadata.name}} {{$r}} {{$s}} {{$g}}{{"\n"}}{{end}}'
list=$(k -n "$ns" get deployments,statefulsets,daemonsets -o go-template="$tpl")
mine=$(awk -v r="$release" '$2 == r { print $1, $3, $4 }' <<<"$list")
if [ -z "$mine" ]; then
  fail "release $ns/$release has no Deployment, StatefulSet or DaemonSet to restart; remove nvcf:restarts.$release (docs/operations.md \"Restart generations\")"
fi

while read -r workload _ current; do
  kind="${workload%%/*}"
  name="${workload#*/}"
  if [ "$current" = "$generation" ]; then
    echo "$(now) ${kind,,} $ns/$name: pod template already at restart generation $generation"
    continue
  fi
  echo "$(now) restarting ${kind,,} $ns/$name: restart generation ${current/#-/none} -> $generation"
  k -n "$ns" patch "${kind,,}/$name" --type merge \
    -p "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"$annotation\":\"$generation\"}}}}}" >/dev/null
done <<<"$mine"

# ondelete_pods <statefulset> <update revision>: deletes its pods on another revision, highest ordinal first.
ondelete_pods() {
  local sts="$1" revision="$2" selector pods pod
  selector=$(field "statefulset/$sts" '{{range $k, $v := .spec.selector.matchLabels}}{{$k}}={{$v}},{{end}}')
  pods=$(k -n "$ns" get pods -l "${selector%,}" \
    -o go-template='{{range .items}}{{.metadata.name}} {{or (index .metadata.labels "controller-revision-hash") "-"}}{{"\n"}}{{end}}' |
    awk -v set="$sts" -v rev="$revision" '$1 ~ ("^" set "-[0-9]+$") && $2 != rev { print $1 }' |
    sort -t- -k2 -rn)
  for pod in $pods; do
    echo "$(now) deleting pod $ns/$pod (update strategy OnDelete) onto revision $revision"
    k -n "$ns" delete pod "$pod" --wait=true --timeout="${wait_seconds}s" >/dev/null
    until_true "pod $ns/$pod to be ready on revision $revision" pod_ready "$pod" "$revision"
  done
}

# pod_ready <pod> <revision>: the pod exists on the revision and is Ready.
pod_ready() {
  [ "$(field "pod/$1" '{{index .metadata.labels "controller-revision-hash"}} {{range .status.conditions}}{{if eq .type "Ready"}}{{.status}}{{end}}{{end}}')" = "$2 True" ]
}

# observed <statefulset>: its controller has seen the patched template.
observed() {
  local gen obs
  read -r gen obs < <(field "statefulset/$1" '{{.metadata.generation}} {{or .status.observedGeneration 0}}{{"\n"}}')
  [ "$gen" = "$obs" ]
}

while read -r workload strategy _; do
  kind="${workload%%/*}"
  name="${workload#*/}"
  if [ "$kind" = StatefulSet ] && [ "$strategy" = OnDelete ]; then
    if [ "$name" = "${NVCFP_ONDELETE_BY:-}" ]; then
      echo "$(now) statefulset $ns/$name (update strategy OnDelete): its pods are rotated next, standbys first"
      continue
    fi
    until_true "statefulset/$name to observe its template" observed "$name"
    ondelete_pods "$name" "$(field "statefulset/$name" '{{.status.updateRevision}}')"
    continue
  fi
  if ! k -n "$ns" rollout status "${kind,,}/$name" --timeout="${wait_seconds}s" >"$work/rollout" 2>&1; then
    cat "$work/rollout" >&2
    fail "${kind,,} $ns/$name did not finish its rollout within ${wait_seconds} s after restart generation $generation; the next run waits for it again"
  fi
  echo "$(now) ${kind,,} $ns/$name: rolled out at restart generation $generation"
done <<<"$mine"
