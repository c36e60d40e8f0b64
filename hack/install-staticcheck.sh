#!/usr/bin/env bash
# Builds staticcheck at a pinned version into the cache dir (go-install.sh)
# and prints the binary's path on stdout. Idempotent.
#
# Env: STATICCHECK_VERSION overrides the pin; STATICCHECK_BIN_DIR the output dir.
set -euo pipefail
exec "$(dirname "$0")/go-install.sh" staticcheck honnef.co/go/tools/cmd/staticcheck \
  "${STATICCHECK_VERSION:-v0.8.2}" "${STATICCHECK_BIN_DIR:-}"
