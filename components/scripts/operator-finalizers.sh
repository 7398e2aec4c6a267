tpl='{{range .items}}{{$n := .metadata.name}}{{$t := "live"}}{{if .metadata.deletionTimestamp}}{{$t = "terminating"}}{{end}}{{range $i, $f := .metadata.finalizers}}{{if eq $f "'"$NVCFP_FINALIZER"'"}}{{$n}} {{$t}} {{$i}}{{"\n"}}{{end}}{{end}}{{end}}'
deadline=$((SECONDS + NVCFP_WAIT_SECONDS))
while :; do
  live=0
  for kind in clusterrole clusterrolebinding configmap; do
    scope=(); [ "$kind" = configmap ] && scope=(-n "$NVCFP_NAMESPACE")
    out=$(k get "$kind" "${scope[@]}" -o go-template="$tpl" 2>/dev/null) || continue
    while read -r name state idx; do
      [ -n "$name" ] || continue
      if [ "$state" = terminating ]; then
        patch=$(printf '[{"op":"test","path":"/metadata/finalizers/%s","value":"%s"},{"op":"remove","path":"/metadata/finalizers/%s"}]' "$idx" "$NVCFP_FINALIZER" "$idx")
        k patch "$kind" "$name" "${scope[@]}" --type=json -p "$patch" && echo "removed $NVCFP_FINALIZER from $kind/$name"
      else
        live=$((live + 1))
      fi
    done <<<"$out"
  done
  [ "$live" -eq 0 ] && exit 0
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "$live object(s) with $NVCFP_FINALIZER are still not being deleted after $NVCFP_WAIT_SECONDS s: was the nvca-operator release uninstalled?" >&2
    exit 1
  fi
  sleep 2
done
