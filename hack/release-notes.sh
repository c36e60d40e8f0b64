#!/usr/bin/env bash
# Prints the release notes of a tag: its section of CHANGELOG.md, without
# the heading, for the release page of the tag. A tag whose version has no
# section, or an empty one, fails: a release is not cut without notes.
#
# usage: hack/release-notes.sh TAG        (v0.2.0 or 0.2.0)
#        hack/release-notes.sh             (the tag at HEAD)
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-$(git describe --tags --exact-match 2>/dev/null || true)}
[ -n "$tag" ] || { echo "usage: hack/release-notes.sh TAG (HEAD has no tag)" >&2; exit 2; }
version=${tag#v}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "$tag is no semantic version tag" >&2; exit 2; }
notes=$(awk -v v="$version" '
  /^## \[/ { if (in_section) exit; if (index($0, "## [" v "]") == 1) { in_section = 1; next } }
  in_section { print }
' "${CHANGELOG:-CHANGELOG.md}")
if [ -z "$(printf '%s' "$notes" | tr -d '[:space:]')" ]; then
  echo "CHANGELOG.md has no notes for $version: add a \"## [$version]\" section before tagging" >&2
  exit 1
fi
# Trim the blank lines around the section.
printf '%s\n' "$notes" | sed -e '/./,$!d' | tac | sed -e '/./,$!d' | tac
