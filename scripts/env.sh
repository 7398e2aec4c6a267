# shellcheck shell=bash
# Source me:  . scripts/env.sh
# Puts the nvcf-pulumi toolchain (built by scripts/toolchain.sh) on PATH and makes Pulumi run
# offline with exactly the pinned plugins. Does not set the backend URL or the passphrase.
# Builds nothing; warns on stderr if the toolchain is not built yet.

_nvcf_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export NVCF_CACHE="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}"
NVCF_TOOLCHAIN_BIN=$(bash "$_nvcf_root/scripts/toolchain.sh" --print-bin)
export NVCF_TOOLCHAIN_BIN
case ":$PATH:" in
  *":$NVCF_TOOLCHAIN_BIN:"*) ;;
  *) export PATH="$NVCF_TOOLCHAIN_BIN:$PATH" ;;
esac
# Node.js policy packs (`--policy-pack policy`): the embedded language host cannot start them, so
# scripts/policy-analyzer.sh builds a front for it; once built, its bin dir (pulumi + the front) comes first.
if _nvcf_policy_bin=$(bash "$_nvcf_root/scripts/policy-analyzer.sh" --print-bin 2>/dev/null); then
  case ":$PATH:" in
    *":$_nvcf_policy_bin:"*) ;;
    *) export PATH="$_nvcf_policy_bin:$PATH" ;;
  esac
fi
unset _nvcf_policy_bin

# Plugins (kubernetes, random, command) are installed here by scripts/toolchain.sh.
export PULUMI_HOME="$NVCF_CACHE/pulumi-home"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_DISABLE_REGISTRY_RESOLVE=true
export PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=true
# Take resource plugins from $PULUMI_HOME/plugins at the exact versions the npm packages ask
# for, not whatever pulumi-resource-* happens to be on PATH (the bin dir holds them too).
# The nodejs language host is still found next to the pulumi binary.
export PULUMI_IGNORE_AMBIENT_PLUGINS=true
# The embedded language host predates Pulumi.yaml's runtime.options.tsconfig: name the same file here, so the
# program runs transpile-only (tsconfig.pulumi.json; type checking stays in scripts/test.sh).
export PULUMI_NODEJS_TSCONFIG_PATH=tsconfig.pulumi.json

if ! bash "$_nvcf_root/scripts/toolchain.sh" --check; then
  echo "env.sh: toolchain not (fully) built in $NVCF_TOOLCHAIN_BIN; run: bash scripts/toolchain.sh" >&2
fi
unset _nvcf_root
