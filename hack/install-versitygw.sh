#!/usr/bin/env bash
# Builds the versitygw S3 gateway (the real S3 server the integration tests
# store Glance images in) at a pinned version with `go install`, into a cache
# directory outside the work tree, and prints the binary's path on stdout.
# Idempotent: a binary already built for this pin is reused.
# A cold build takes about 2-3 minutes on 2 cores (module download included).
#
# Env: VERSITYGW_VERSION overrides the pin; VERSITYGW_BIN_DIR the output dir.
set -euo pipefail
version=${VERSITYGW_VERSION:-v1.8.0}
bindir=${VERSITYGW_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/glance-hooks/bin}
bin="$bindir/versitygw-$version"
if [ ! -x "$bin" ]; then
  echo "building versitygw $version into $bindir" >&2
  mkdir -p "$bindir"
  tmp=$(mktemp -d "$bindir/.gobin.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # Run outside any module so the project's go.mod plays no part.
  (cd "$tmp" && GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -trimpath" \
    go install -ldflags "-s -w -X main.Version=$version" \
      "github.com/versity/versitygw/cmd/versitygw@$version")
  mv "$tmp/versitygw" "$bin"
fi
# A stable name too, for callers that don't care about the version.
ln -sfn "versitygw-$version" "$bindir/versitygw"
echo "$bin"
