#!/usr/bin/env bash
# Makes a Debian system holding the Glance packages of one Debian release
# (glance-api, which brings glance-manage, glance_store and their
# libraries; python3-boto3 for the S3 driver; uWSGI with its Python 3
# plugin; qemu-utils) in a directory of its own, with mmdebstrap. The
# data-path tests run some Glances' pods in such a system (podrun's
# Options.Root, as an image), each on its own Python, where this machine's
# Debian 12 has glance 25.1 (Zed):
#
#   unstable  the newest Glance Debian has (newer than 2026.1)
#   trixie    Debian 13's glance 30, the 2025.1 release
#
# Nothing of this machine's system changes. Idempotent: does nothing when
# the directory is complete. About 800 MB each; a minute or two on a fresh
# machine. Needs root (or sudo).
#
# usage: install-glance-debian.sh unstable|trixie
#
# Env: GLANCE_UNSTABLE_ROOT and GLANCE_TRIXIE_ROOT override the
# directories; DEBIAN_MIRROR the archive (default: the one this machine's
# apt installs from, hack/debian-mirror.sh).
set -euo pipefail
case "${1:-}" in
unstable) suite=sid dir=${GLANCE_UNSTABLE_ROOT:-/usr/local/lib/glance-hooks/debian-unstable} ;;
trixie) suite=trixie dir=${GLANCE_TRIXIE_ROOT:-/usr/local/lib/glance-hooks/debian-trixie} ;;
*) echo "usage: $0 unstable|trixie" >&2; exit 2 ;;
esac
name="install-glance-debian $1"
mirror=$("$(dirname "$0")/debian-mirror.sh")
packages=glance-api,python3-boto3,uwsgi,uwsgi-plugin-python3,qemu-utils

if [ -f "$dir/.complete" ]; then
  exit 0
fi
"$(dirname "$0")/apt-install.sh" mmdebstrap
sudo=$("$(dirname "$0")/as-root.sh" "$name: need root or sudo to make $dir")
$sudo rm -rf "$dir.partial"
$sudo mkdir -p "$(dirname "$dir")"
# The signatures of the archive are checked; its Release file's expiry is
# not, so that a mirror serving a dated snapshot can be used.
$sudo mmdebstrap --variant=apt --quiet \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --include="$packages" "$suite" "$dir.partial" "$mirror"
versions=$($sudo chroot "$dir.partial" /usr/bin/python3 -c \
  "from importlib.metadata import version as v; print('glance', v('glance'), 'glance_store', v('glance_store'))")
echo "$versions" | $sudo tee "$dir.partial/.complete" >/dev/null
$sudo rm -rf "$dir"
$sudo mv "$dir.partial" "$dir"
echo "$name: $versions in $dir" >&2
