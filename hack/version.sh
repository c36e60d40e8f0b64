#!/usr/bin/env bash
# Prints the version a build is stamped with, from the one place a release
# sets it: the VERSION file (docs/release.md).
#
#   - the commit tagged v<VERSION>, with a clean tree:  <VERSION>
#   - a source tree without git (the image's build context,
#     which .dockerignore keeps .git out of):               <VERSION>
#   - any other commit (a development build after the release
#     VERSION names):                        <VERSION>-dev.g<commit>[.dirty]
#
# A development version is a valid image tag and semver pre-release, and
# never equals a release, so `make push` of a development build can never
# overwrite a release's image.
#
# Usage: hack/version.sh            the build's version
#        hack/version.sh --release  the release VERSION names
set -euo pipefail
cd "$(dirname "$0")/.."
release=$(tr -d '[:space:]' < VERSION)
if [[ ! $release =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
  echo "VERSION holds \"$release\", which is no semantic version (like 1.2.3, without a v)" >&2
  exit 1
fi
if [ "${1:-}" = "--release" ] || [ ! -e .git ]; then
  echo "$release"
  exit 0
fi
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty=".dirty"
if [ -z "$dirty" ] && [ "$(git tag --points-at HEAD --list "v$release")" = "v$release" ]; then
  echo "$release"
  exit 0
fi
echo "$release-dev.g$(git rev-parse --short=12 HEAD)$dirty"
