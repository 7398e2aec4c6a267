# A registry credential that leaves the config, on delete (components/accounts.ts): the credential the command
# recorded (PULUMI_COMMAND_STDOUT) is deleted, unless the system provisioned it (the account was created with it,
# and the API refuses to delete such a credential); one already gone counts as deleted.
#
# Environment: NVCFP_REGISTRY_HOST.

node -e "$NVCFP_RECORDS_JS" recorded >"$work/recorded"
mapfile -t recorded <"$work/recorded"
id=${recorded[0]:-} by=${recorded[1]:-} host=${recorded[2]:-}
if [ -z "$id" ]; then
  say "no registry credential recorded for $NVCFP_REGISTRY_HOST; nothing to delete"
  exit 0
fi
if [ "$by" = SYSTEM ]; then
  say "kept registry credential $id ($host) of account $NVCFP_ACCOUNT: the account was created with it, and the API does not delete a credential provisioned by the system"
  exit 0
fi
status=0
run_cli --json registry-credential delete "$id" --force || status=$?
if [ "$status" -ne 0 ]; then
  if grep -q 'API error 404' "$work/err"; then
    say "registry credential $id was already gone"
    exit 0
  fi
  cli_failed "registry-credential delete" "$status"
fi
answer "registry-credential delete" json
say "deleted registry credential $id ($host) of account $NVCFP_ACCOUNT"
