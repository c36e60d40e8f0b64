#!/usr/bin/env bash
# Builds cmd/glance-hooks the one way every artifact is built (make build,
# the Dockerfile, make image, the tests that run the real binary): static,
# -trimpath, no build id, no VCS stamp, and the version and commit stamped
# with -X. With the same sources, VERSION and COMMIT the binary is the same
# bytes.
#
# Usage: hack/build.sh OUTPUT
# Env:   VERSION (default: hack/version.sh: the VERSION file's release at its
#                 tag or without git, else <release>-dev.g<commit>)
#        RELEASE (default: the VERSION file: the release this build descends
#                 from, whose image the registration Jobs run by default)
#        COMMIT  (default: `git rev-parse HEAD`, else unknown)
#        GOOS, GOARCH as for go build.
set -euo pipefail
out=${1:?usage: hack/build.sh OUTPUT}
cd "$(dirname "$0")/.."
if [ -z "${VERSION:-}" ]; then
  VERSION=$(bash hack/version.sh)
fi
if [ -z "${RELEASE:-}" ]; then
  RELEASE=$(bash hack/version.sh --release)
fi
if [ -z "${COMMIT:-}" ]; then
  COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
fi
pkg=github.com/c5c3/glance-hooks/internal/buildinfo
CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -buildvcs=false" exec go build -trimpath \
  -ldflags "-s -w -buildid= -X $pkg.version=$VERSION -X $pkg.release=$RELEASE -X $pkg.commit=$COMMIT" \
  -o "$out" ./cmd/glance-hooks
