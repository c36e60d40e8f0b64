#!/usr/bin/env bash
# Builds golangci-lint at a pinned version into the cache dir
# (go-install.sh) and prints the binary's path on stdout. Idempotent.
#
# Env: GOLANGCI_LINT_VERSION overrides the pin; GOLANGCI_LINT_BIN_DIR the output dir.
set -euo pipefail
exec "$(dirname "$0")/go-install.sh" golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint \
  "${GOLANGCI_LINT_VERSION:-v2.15.0}" "${GOLANGCI_LINT_BIN_DIR:-}"
