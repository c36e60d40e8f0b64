#!/usr/bin/env bash
# Sets the release version: the VERSION file, and the copies of it in files
# that cannot read it when they are used (the chart's version and
# appVersion, which `helm install` of a clone reads; the Dockerfile's
# default VERSION argument, which a bare `docker build .` labels the image
# with). test/release fails when any of them disagree.
#
# Usage: hack/set-version.sh 1.2.3
set -euo pipefail
cd "$(dirname "$0")/.."
v=${1:?usage: hack/set-version.sh MAJOR.MINOR.PATCH}
v=${v#v}
if [[ ! $v =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
  echo "$v is no semantic version (like 1.2.3)" >&2
  exit 2
fi
printf '%s\n' "$v" > VERSION
sed -i -E "s/^version: .*/version: $v/; s/^appVersion: .*/appVersion: \"$v\"/" charts/glance-hooks/Chart.yaml
sed -i -E "s/^ARG VERSION=.*/ARG VERSION=$v/" Dockerfile
grep -q "^## \[$v\]" CHANGELOG.md || echo "CHANGELOG.md has no \"## [$v]\" section yet: move the Unreleased notes into one before tagging" >&2
