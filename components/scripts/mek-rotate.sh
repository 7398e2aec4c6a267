# The MEK rotation of one generation (components/mekRotation.ts): a new Master Encryption Key first in OpenBao's
# `services/all/kv/encryption/keys/stored_data`, the old keys kept after it (ESS decrypts the existing namespace
# keys with them), as NVIDIA's runbook `docs/user/runbooks/control-plane-key-rotation-mek.md` does it by hand.
#
# Steps, each resumable from where an interrupted run stopped:
# 1. The record ConfigMap $NVCFP_RECORD says generation $NVCFP_GENERATION is done: nothing to do (a higher one
#    recorded: refused, the program never goes back to an older key set).
# 2. Backup: stored_data as `bao kv get -format=json` prints it, into Secret nvcf-mek-backup-<generation> (made
#    once: a re-run never overwrites it with a rotated entry); the record gets `pending`, the current kid and
#    every kid.
# 3. Rotation, in the pod (mek-inpod.sh): the key is made there and written with the other three fields in one
#    `bao kv put`; a run that finds current_kid already moved on since step 2 takes that as its own write.
# 4. Verification: current_kid is the first key's kid and is not the old one; every old kid is still in keys.
# 5. The record: generation, kid, rotated_at, backup; `pending` cleared.
# The root token is read from Secret $NVCFP_TOKEN_SECRET (key root_token) into a variable and reaches the pod on
# standard input; no key, token or backup is printed or put on a command line.
#
# Environment: NVCFP_NAMESPACE (vault-system), NVCFP_STATEFULSET (openbao-server), NVCFP_GENERATION,
# NVCFP_RECORD, NVCFP_TOKEN_SECRET, NVCFP_MEK_PATH; MEK_INPOD (mek-inpod.sh's text, set before this part).

gen="$NVCFP_GENERATION"
sts="$NVCFP_STATEFULSET"
backup="nvcf-mek-backup-$gen"
[[ "$gen" =~ ^[1-9][0-9]*$ ]] || fail "NVCFP_GENERATION must be a positive integer, found '$gen'"

recorded=$(record_get generation)
if [ -n "$recorded" ] && [ "$recorded" -ge "$gen" ]; then
  if [ "$recorded" -gt "$gen" ]; then
    fail "MEK generation $recorded is recorded in configmap $ns/$NVCFP_RECORD, higher than $gen: the program never goes back to an older key set (raise nvcf:openbao.mekGeneration above $recorded to rotate again)"
  fi
  echo "MEK generation $gen is in place (kid $(record_get kid), rotated at $(record_get rotated_at)): nothing to do"
  exit 0
fi

# The server to exec into: the active one (OpenBao's service registration label), else <set>-0.
pod=$(k -n "$ns" get pods -l "openbao-active=true" -o go-template='{{range .items}}{{.metadata.name}}{{"\n"}}{{end}}' | grep -E "^$sts-[0-9]+$" | head -n1 || true)
pod="${pod:-$sts-0}"

token_b64=$(field "secret/$NVCFP_TOKEN_SECRET" '{{with .data}}{{with index . "root_token"}}{{.}}{{end}}{{end}}')
[ -n "$token_b64" ] || fail "secret $ns/$NVCFP_TOKEN_SECRET has no root_token: OpenBao's initialization writes it (is openbao-server installed and initialized?)"
token=$(printf '%s' "$token_b64" | base64 -d)
token_b64=""

# record_put <key> <value> [<key> <value> ...]: sets several values of the record in one patch (single-line values
# without quotes or backslashes).
record_put() {
  record_exists || record_set "$1" "$2"
  local body="" sep=""
  while [ "$#" -ge 2 ]; do
    body+="$sep\"$1\":\"$2\""
    sep=","
    shift 2
  done
  k -n "$ns" patch configmap "$NVCFP_RECORD" --type merge -p "{\"data\":{$body}}" >/dev/null
}

# inpod <action> [argument]: mek-inpod.sh in the server pod, the token on its standard input.
inpod() {
  printf '%s\n' "$token" | k -n "$ns" exec -i "$pod" -c openbao -- sh -c "MEK_PATH='$NVCFP_MEK_PATH'; $MEK_INPOD" mek "$@"
}

# 2. Backup and the pending record.
if [ "$(record_get pending)" != "$gen" ]; then
  state=$(inpod state) || fail "could not read $NVCFP_MEK_PATH through pod $ns/$pod (the token in $NVCFP_TOKEN_SECRET, OpenBao unsealed?)"
  prev_kid=$(sed -n 's/^current //p' <<<"$state")
  prev_kids=$(sed -n 's/^kids //p' <<<"$state")
  [ -n "$prev_kid" ] || fail "$NVCFP_MEK_PATH has no current_kid: NVIDIA's OpenBao migration writes it at install"
  if [ -z "$(field "secret/$backup" '{{.metadata.name}}')" ]; then
    data=$(inpod backup) || fail "could not read $NVCFP_MEK_PATH for the backup"
    printf '%s' "$data" | k -n "$ns" create secret generic "$backup" --from-file=stored_data.json=/dev/stdin >/dev/null
    data=""
    k -n "$ns" label secret "$backup" app.kubernetes.io/managed-by=nvcf-pulumi "nvcf.nvidia.com/mek-generation=$gen" >/dev/null
    k -n "$ns" annotate secret "$backup" "nvcf.nvidia.com/backed-up-at=$(now)" "nvcf.nvidia.com/current-kid=$prev_kid" >/dev/null
    echo "$(now) backed up $NVCFP_MEK_PATH (current kid $prev_kid) into secret $ns/$backup"
  else
    echo "$(now) secret $ns/$backup already holds the backup of generation $gen: kept as it is"
  fi
  record_put previous_kid "$prev_kid" previous_kids "$prev_kids" backup "$backup" pending "$gen"
fi
prev_kid=$(record_get previous_kid)
prev_kids=$(record_get previous_kids)

# 3. Rotation.
out=$(inpod rotate "$prev_kid") || fail "the rotation in pod $ns/$pod failed (stored_data is as the backup in secret $ns/$backup holds it, or as the failed write left it)"
case "$out" in
rotated\ *) echo "$(now) new MEK ${out#rotated } written first in keys of $NVCFP_MEK_PATH; ${prev_kids// /, } kept after it" ;;
changed\ *) echo "$(now) current_kid is already ${out#changed } (written by an interrupted run): not rotated again" ;;
*) fail "unexpected answer from the rotation in pod $ns/$pod" ;;
esac

# 4. Verification.
state=$(inpod state) || fail "could not read $NVCFP_MEK_PATH back through pod $ns/$pod"
cur=$(sed -n 's/^current //p' <<<"$state")
kids=$(sed -n 's/^kids //p' <<<"$state")
first="${kids%% *}"
if [ -z "$cur" ] || [ "$cur" != "$first" ]; then
  fail "after the rotation current_kid is '$cur' but the first key of keys is '$first'; restore secret $ns/$backup (docs/operations.md \"MEK rotation\")"
fi
[ "$cur" != "$prev_kid" ] || fail "current_kid is still the old kid $prev_kid after the rotation"
for old in $prev_kids; do
  [[ " $kids " == *" $old "* ]] || fail "old kid $old is missing from keys after the rotation; restore secret $ns/$backup (docs/operations.md \"MEK rotation\")"
done
echo "$(now) verified: current_kid $cur is the first of $(wc -w <<<"$kids") keys, every old kid kept"

# 5. The record.
at=$(now)
record_put kid "$cur" rotated_at "$at" backup "$backup" generation "$gen" pending ""
echo "MEK generation $gen in place: kid $cur, rotated at $at; ESS encrypts with it once its 48 h grace has passed"
