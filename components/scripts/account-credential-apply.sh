# A registry credential of the account, on create and update (components/accounts.ts): the credential the command
# recorded (PULUMI_COMMAND_STDOUT), else the one the account bootstrap made for the hostname, gets the user and
# password and the artifact types the config adds (`registry-credential update`); without one it is added
# (`registry-credential add`). account-records.js chooses and refuses (see its `plan`). Prints the API's record of
# the credential (no secret). NVIDIA's CLI takes the password only as a flag, so it is in that one nvcf-cli
# process's argument list while it runs.
#
# Environment: NVCFP_REGISTRY_HOST, NVCFP_SECRET_NAME, NVCFP_ARTIFACT_TYPES (comma-separated), NVCFP_REGISTRY_USER,
# NVCFP_REGISTRY_PASSWORD (secret), NVCFP_DESCRIPTION, NVCFP_TAGS (JSON list); NVCFP_KEY_FINGERPRINT is not read
# (it makes a new password a change the preview shows).

cli "registry-credential list" --json registry-credential list
answer "registry-credential list" plan >"$work/plan"
mapfile -d '' -t plan <"$work/plan"
cli "registry-credential ${plan[0]}" --json registry-credential "${plan[@]}" \
  --username "$NVCFP_REGISTRY_USER" --password "$NVCFP_REGISTRY_PASSWORD"
answer "registry-credential ${plan[0]}" credential
if [ "${plan[0]}" = update ]; then
  say "updated registry credential ${plan[1]} ($NVCFP_REGISTRY_HOST) of account $NVCFP_ACCOUNT"
else
  say "added a registry credential for $NVCFP_REGISTRY_HOST to account $NVCFP_ACCOUNT"
fi
