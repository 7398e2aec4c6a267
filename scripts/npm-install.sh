#!/usr/bin/env bash
# Installs the npm packages from the committed lockfile when node_modules is missing or older than it.
# Install scripts are skipped: the provider packages' scripts try to download plugins, which the
# toolchain builds instead (scripts/toolchain.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
stamp=node_modules/.nvcf-lock-stamp
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then exit 0; fi
npm ci --ignore-scripts --no-audit --no-fund >&2
cp package-lock.json "$stamp"
