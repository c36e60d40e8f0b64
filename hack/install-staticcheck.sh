#!/usr/bin/env bash
# Builds staticcheck at a pinned version with `go install` into a cache
# directory outside the work tree and prints the binary's path on stdout.
# The binary is built by the Go toolchain that runs this script and named
# after it: staticcheck reads the code with the go/types of the Go it was
# built with, so a newer toolchain gets its own build. Idempotent.
#
# Env: STATICCHECK_VERSION overrides the pin; STATICCHECK_BIN_DIR the output dir.
set -euo pipefail
version=${STATICCHECK_VERSION:-v0.8.2}
bindir=${STATICCHECK_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/glance-hooks/bin}
gover=$(go env GOVERSION)
bin="$bindir/staticcheck-$version-$gover"
if [ ! -x "$bin" ]; then
  echo "building staticcheck $version with $gover into $bindir" >&2
  mkdir -p "$bindir"
  tmp=$(mktemp -d "$bindir/.gobin.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # Run outside any module so the project's go.mod plays no part.
  (cd "$tmp" && GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -trimpath" CGO_ENABLED=0 \
    go install "honnef.co/go/tools/cmd/staticcheck@$version")
  mv "$tmp/staticcheck" "$bin"
fi
echo "$bin"
