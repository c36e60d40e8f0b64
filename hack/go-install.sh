#!/usr/bin/env bash
# Builds a Go tool at a pinned version with `go install` into a cache
# directory outside the work tree and prints the binary's path on stdout.
# The binary is built by the Go toolchain that runs this script and named
# after it: a linter reads the code with the go/types of the Go it was built
# with, so a newer toolchain gets its own build. Idempotent.
#
# Usage: go-install.sh NAME PACKAGE VERSION [BIN_DIR]
set -euo pipefail
name=$1 pkg=$2 version=$3
bindir=${4:-${XDG_CACHE_HOME:-$HOME/.cache}/glance-hooks/bin}
gover=$(go env GOVERSION)
bin="$bindir/$name-$version-$gover"
if [ ! -x "$bin" ]; then
  echo "building $name $version with $gover into $bindir" >&2
  mkdir -p "$bindir"
  tmp=$(mktemp -d "$bindir/.gobin.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # Run outside any module so the project's go.mod plays no part.
  (cd "$tmp" && GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -trimpath" CGO_ENABLED=0 \
    go install "$pkg@$version")
  mv "$tmp/$name" "$bin"
fi
echo "$bin"
