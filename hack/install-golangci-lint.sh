#!/usr/bin/env bash
# Builds golangci-lint at a pinned version with `go install` into a cache
# directory outside the work tree and prints the binary's path on stdout.
# The binary is built by the Go toolchain that runs this script and named
# after it: golangci-lint reads the code with the go/types of the Go it was
# built with, so a newer toolchain gets its own build. Idempotent.
#
# Env: GOLANGCI_LINT_VERSION overrides the pin; GOLANGCI_LINT_BIN_DIR the output dir.
set -euo pipefail
version=${GOLANGCI_LINT_VERSION:-v2.15.0}
bindir=${GOLANGCI_LINT_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/glance-hooks/bin}
gover=$(go env GOVERSION)
bin="$bindir/golangci-lint-$version-$gover"
if [ ! -x "$bin" ]; then
  echo "building golangci-lint $version with $gover into $bindir" >&2
  mkdir -p "$bindir"
  tmp=$(mktemp -d "$bindir/.gobin.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # Run outside any module so the project's go.mod plays no part.
  (cd "$tmp" && GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -trimpath" CGO_ENABLED=0 \
    go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version")
  mv "$tmp/golangci-lint" "$bin"
fi
echo "$bin"
