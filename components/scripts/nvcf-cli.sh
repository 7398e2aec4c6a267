set -euo pipefail
umask 077
for v in $(compgen -e | grep -E '^(NVCF_|API_KEYS_)' | grep -v '^NVCF_CLI_' || true); do unset "$v"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work" NO_COLOR=1
printf '%s' "$NVCFP_CLI_CONFIG_YAML" > "$work/cli.yaml"
redact() { sed -E 's/(nvapi-|eyJ)[A-Za-z0-9._-]+/[redacted]/g; s/("?(token|value|api_key)"?[:=] *)"?[^", ]+/\1[redacted]/Ig' >&2; }
if [ -z "$NVCFP_ICMS_URL" ]; then
  echo "the control plane's gateway address is empty: set nvcf:gateway.address or wait until the Gateway reports one" >&2; exit 1
fi
if ! "$NVCFP_CLI" --config "$work/cli.yaml" init >/dev/null 2>"$work/init.err"; then
  echo "nvcf-cli init failed:" >&2; redact < "$work/init.err"; exit 1
fi
