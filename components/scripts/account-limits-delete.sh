# The account's limits, on delete (components/accounts.ts): nothing runs; the account keeps its limits and goes
# with the control plane.
echo "the limits of account $NVCFP_ACCOUNT stay as they are (the account goes with the control plane)" >&2
