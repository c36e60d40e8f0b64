#!/usr/bin/env bash
# Makes a Debian unstable system holding the newest Glance Debian packages
# (glance-api, which brings glance-manage, glance_store and their
# libraries; python3-boto3 for the S3 driver; uWSGI with its Python 3
# plugin; qemu-utils) in a directory of its own, with mmdebstrap. The
# data-path tests run one Glance's pods in it (podrun's Options.Root, as an
# image): a Glance newer than 2026.1 on its own Python, where Debian 12 has
# glance 25.1 (Zed). Nothing of this machine's system changes.
#
# Idempotent: does nothing when the directory is complete. About 800 MB;
# a minute or two on a fresh machine. Needs root (or sudo).
#
# Env: GLANCE_UNSTABLE_ROOT overrides the directory; DEBIAN_MIRROR the
# archive (default: the one this machine's apt installs from,
# hack/debian-mirror.sh).
set -euo pipefail
dir=${GLANCE_UNSTABLE_ROOT:-/usr/local/lib/glance-hooks/debian-unstable}
mirror=$("$(dirname "$0")/debian-mirror.sh")
packages=glance-api,python3-boto3,uwsgi,uwsgi-plugin-python3,qemu-utils

if [ -f "$dir/.complete" ]; then
  exit 0
fi
"$(dirname "$0")/apt-install.sh" mmdebstrap
sudo=$("$(dirname "$0")/as-root.sh" "install-glance-unstable: need root or sudo to make $dir")
$sudo rm -rf "$dir.partial"
$sudo mkdir -p "$(dirname "$dir")"
# The signatures of the archive are checked; its Release file's expiry is
# not, so that a mirror serving a dated snapshot of unstable can be used.
$sudo mmdebstrap --variant=apt --quiet \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --include="$packages" sid "$dir.partial" "$mirror"
versions=$($sudo chroot "$dir.partial" /usr/bin/python3 -c \
  "from importlib.metadata import version as v; print('glance', v('glance'), 'glance_store', v('glance_store'))")
echo "$versions" | $sudo tee "$dir.partial/.complete" >/dev/null
$sudo rm -rf "$dir"
$sudo mv "$dir.partial" "$dir"
echo "install-glance-unstable: $versions in $dir" >&2
