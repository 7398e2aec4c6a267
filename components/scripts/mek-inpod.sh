# Runs inside an OpenBao server pod (container openbao), started by mek-rotate.sh as
#   kubectl exec -i <pod> -c openbao -- sh -c "$MEK_INPOD" mek <action> [argument]
# with the root token as the first line of standard input. POSIX sh with the image's own tools (base64, tr, od,
# head, date, grep, sed): no key material is ever an argument of a process or printed; the new key is made here
# and goes to OpenBao on the standard input of `bao kv put`.
#
# Actions (all against $MEK_PATH of KV v2, default services/all/kv/encryption/keys/stored_data):
#   backup          prints `bao kv get -format=json` of the entry (the caller stores it in a Secret, never prints it)
#   state           prints `current <kid>` and `kids <kid> <kid> ...` (the key IDs in the order of `keys`)
#   rotate <kid>    when current_kid is still <kid>: a new key (kid: a time-based UUID, version 1) first in `keys`,
#                   the four fields written in one `bao kv put`, prints `rotated <new kid>`; when current_kid is
#                   another kid already, writes nothing and prints `changed <that kid>`
# Exit: 0 done; 1 a failure (message on stderr, without key material).
set -eu
IFS= read -r VAULT_TOKEN || true
[ -n "$VAULT_TOKEN" ] || { echo "no OpenBao token on standard input" >&2; exit 1; }
BAO_TOKEN="$VAULT_TOKEN"
export VAULT_TOKEN BAO_TOKEN
path="${MEK_PATH:-services/all/kv/encryption/keys/stored_data}"

field() { bao kv get -field="$1" "$path"; }

# kids_of <decoded keys JSON>: the kid of each key, one line each, in order.
kids_of() {
  printf '%s' "$1" | tr -d '\n' | grep -o '"kid"[[:space:]]*:[[:space:]]*"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'
}

# uuid1: a version-1 UUID from the clock (100 ns intervals since 1582-10-15; the part below a second random),
# a random clock sequence and a random node with the multicast bit set (RFC 4122 4.5). ESS takes the MEK's
# creation time from it.
rand_u16() { od -An -N2 -tu2 /dev/urandom | tr -d ' \n'; }
uuid1() {
  ts=$(( $(date -u +%s) * 10000000 + 0x01B21DD213814000 + $(rand_u16) * 152 ))
  node=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
  first=$(( 0x$(printf '%s' "$node" | cut -c1-2) | 1 ))
  printf '%08x-%04x-%04x-%04x-%02x%s' \
    $(( ts & 0xFFFFFFFF )) $(( (ts >> 32) & 0xFFFF )) $(( ((ts >> 48) & 0x0FFF) | 0x1000 )) \
    $(( ($(rand_u16) & 0x3FFF) | 0x8000 )) "$first" "$(printf '%s' "$node" | cut -c3-12)"
}

case "${1:-}" in
backup)
  bao kv get -format=json "$path"
  ;;
state)
  current=$(field current_kid)
  keys=$(field keys | base64 -d)
  echo "current $current"
  echo "kids $(kids_of "$keys" | tr '\n' ' ' | sed 's/ $//')"
  ;;
rotate)
  expected="${2:?rotate needs the current kid}"
  current=$(field current_kid)
  if [ "$current" != "$expected" ]; then
    echo "changed $current"
    exit 0
  fi
  keys=$(field keys | base64 -d | tr -d '\n')
  [ -n "$(kids_of "$keys")" ] || { echo "stored_data holds no key in keys: nothing to rotate from" >&2; exit 1; }
  head=${keys%%\[*}
  case "$head" in
  *'"keys"'*) ;;
  *) echo "stored_data's keys is not a JSON object {\"keys\":[...]}" >&2; exit 1 ;;
  esac
  rest=${keys#*\[}
  kid=$(uuid1)
  k=$(head -c 32 /dev/urandom | base64 | tr -d '\n=' | tr '+/' '-_')
  [ "${#k}" -eq 43 ] || { echo "could not make a 256-bit key" >&2; exit 1; }
  jwk='{"kty":"oct","use":"enc","kid":"'"$kid"'","k":"'"$k"'","alg":"A256GCM"}'
  b64=$(printf '%s' "$head[$jwk,$rest" | base64 | tr -d '\n')
  k=""
  jwk=""
  printf '{"keys":"%s","current_kid":"%s","jwe_mapping":"{\\"payload_jwe_kid\\":\\"%s\\"}","private_jwks":"%s"}' \
    "$b64" "$kid" "$kid" "$b64" | bao kv put "$path" - >/dev/null
  echo "rotated $kid"
  ;;
*)
  echo "unknown action: ${1:-none}" >&2
  exit 1
  ;;
esac
