#!/usr/bin/env bash
# Builds cmd/glance-hooks the one way every artifact is built (make build,
# the Dockerfile, make image, the tests that run the real binary): static,
# -trimpath, no build id, no VCS stamp, and the version and commit stamped
# with -X. With the same sources, VERSION and COMMIT the binary is the same
# bytes.
#
# Usage: hack/build.sh OUTPUT
# Env:   VERSION (default: `git describe --tags --always --dirty`, else dev)
#        COMMIT  (default: `git rev-parse HEAD`, else unknown)
#        GOOS, GOARCH as for go build.
set -euo pipefail
out=${1:?usage: hack/build.sh OUTPUT}
cd "$(dirname "$0")/.."
if [ -z "${VERSION:-}" ]; then
  VERSION=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
fi
if [ -z "${COMMIT:-}" ]; then
  COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
fi
pkg=github.com/c5c3/glance-hooks/internal/buildinfo
CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -buildvcs=false" exec go build -trimpath \
  -ldflags "-s -w -buildid= -X $pkg.version=$VERSION -X $pkg.commit=$COMMIT" \
  -o "$out" ./cmd/glance-hooks
