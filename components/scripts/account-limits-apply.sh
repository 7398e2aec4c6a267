# The account's limits, on create and update (components/accounts.ts), the way NVIDIA's runbook sets them
# (docs/user/runbooks/update-nvcf-account-quota-limits.md): an API key with the account_setup scope, then
# `admin accounts update` (nvcf-cli shows its admin commands only with NVCF_CLI_ENABLE_ADMIN set). Prints the API's
# record of the account (no secret).
#
# Environment: NVCFP_MAX_FUNCTIONS, NVCFP_MAX_TASKS, NVCFP_MAX_TELEMETRIES, NVCFP_MAX_REGISTRY_CREDS.

cli "api-key generate" --json api-key generate --for function \
  --scopes invoke_function,list_functions,queue_details,list_functions_details,account_setup \
  --expires-in 1h --description "nvcf-pulumi account limits"
# The answer is the key itself: never kept.
rm -f "$work/out"
NVCF_CLI_ENABLE_ADMIN=1 cli "admin accounts update" --json admin accounts update --nca-id "$NVCFP_ACCOUNT" \
  --max-functions "$NVCFP_MAX_FUNCTIONS" --max-tasks "$NVCFP_MAX_TASKS" \
  --max-telemetries "$NVCFP_MAX_TELEMETRIES" --max-registry-credentials "$NVCFP_MAX_REGISTRY_CREDS"
answer "admin accounts update" account
say "set the limits of account $NVCFP_ACCOUNT"
