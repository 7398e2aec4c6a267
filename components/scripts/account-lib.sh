# Shared by the account-settings scripts (components/accounts.ts joins the nvcf-cli runner nvcf-cli.sh, this file
# and the action's own file). The runner has removed NVCF_* and API_KEYS_* from the environment, made the private
# "$work" (HOME, with the CLI's config "$work/cli.yaml") and run `nvcf-cli init`. Every function reads only the
# command's environment; none prints a secret.
#
# Environment: NVCFP_CLI, NVCFP_ACCOUNT, NVCFP_RECORDS_JS (account-records.js, the JSON side); a credential's
# NVCFP_REGISTRY_USER and NVCFP_REGISTRY_PASSWORD (secret).

# The account calls reach the NVCF API, whose host override nvcf-cli also reads from API_HOST (as INVOKE_HOST and
# NVCT_HOST; docs/upstream-facts.md §3.1): the operator's values of these go too. The runner's `init`, before this,
# reaches only the api-keys service (§3.2), whose override API_KEYS_HOST the runner removed.
unset API_HOST INVOKE_HOST NVCT_HOST

# say <message>: one line on stderr (the engine shows the command's stderr in its log).
say() { echo "$*" >&2; }

# scrub: standard input to stderr, as the runner's `redact` prints it after two more replacements by [redacted]:
# the registry password (as given, and as the base64 of user:password a registry's basic auth carries) and the
# values of token, value, api key, password and secret keys (JSON or key=value, spaces around the separator).
scrub() {
  local text basic
  text=$(cat)
  [ -n "$text" ] || return 0
  if [ -n "${NVCFP_REGISTRY_PASSWORD:-}" ]; then
    basic=$(printf '%s' "${NVCFP_REGISTRY_USER:-}:$NVCFP_REGISTRY_PASSWORD" | base64 | tr -d '\n')
    text=${text//"$NVCFP_REGISTRY_PASSWORD"/[redacted]}
    text=${text//"$basic"/[redacted]}
  fi
  printf '%s\n' "$text" |
    sed -E 's/("?(token|value|api_?key|password|secret)"?[[:space:]]*[:=][[:space:]]*)"?[^",[:space:]}]+"?/\1[redacted]/Ig' |
    redact
}

# run_cli <args...>: nvcf-cli with the runner's config, its answer in "$work/out" and its errors in "$work/err";
# returns the CLI's exit status.
run_cli() { "$NVCFP_CLI" --config "$work/cli.yaml" "$@" >"$work/out" 2>"$work/err"; }

# cli_failed <command> <status>: ends the script with "nvcf-cli <command> failed for account <account> (exit
# <status>):" and what the CLI said, scrubbed: its "Error: " lines (cobra prints the command's usage after them),
# else its last ten lines.
cli_failed() {
  say "nvcf-cli $1 failed for account $NVCFP_ACCOUNT (exit $2):"
  if grep -qh '^Error: ' "$work/err" "$work/out"; then
    grep -h '^Error: ' "$work/err" "$work/out"
  else
    cat "$work/err" "$work/out" | grep -v '^[[:space:]]*$' | tail -n 10
  fi | scrub
  exit 1
}

# cli <command> <args...>: run_cli <args...>; a failure ends the script (cli_failed), naming <command>.
cli() {
  local command=$1
  shift
  run_cli "$@" || cli_failed "$command" "$?"
}

# answer <command> <op>: account-records.js <op> on the answer of nvcf-cli <command> ("$work/out"), to stdout. A
# refusal ends the script with its reason; an answer that is no JSON ends it naming <command>, with the
# answer's first 2000 characters, scrubbed.
answer() {
  local status=0
  node -e "$NVCFP_RECORDS_JS" "$2" <"$work/out" || status=$?
  [ "$status" -ne 0 ] || return 0
  if [ "$status" -eq 3 ]; then
    say "nvcf-cli $1 printed no JSON:"
    head -c 2000 "$work/out" | scrub
  fi
  exit 1
}
