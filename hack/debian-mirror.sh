#!/usr/bin/env bash
# Prints the Debian archive this machine's apt installs from (the URI of
# the source of its own release, e.g. bookworm, not of -updates or
# -security), without a trailing slash: the install scripts that fetch
# packages of another Debian release fetch them from the same archive, a
# local mirror or proxy included. DEBIAN_MIRROR overrides it.
set -euo pipefail
if [ -n "${DEBIAN_MIRROR:-}" ]; then
  echo "${DEBIAN_MIRROR%/}"
  exit 0
fi
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
uri=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Created-By: Packages' |
  awk -v c="$codename" '$1 == c { print $2; exit }')
[ -n "$uri" ] || { echo "debian-mirror: no apt source of release '$codename' found; set DEBIAN_MIRROR" >&2; exit 1; }
echo "${uri%/}"
