#!/usr/bin/env bash
# Installs a newer oslo.middleware beside Debian 12's (5.0.0) for the
# glance-api pods of the tests' 2026.1 Glance: from 2026.1 oslo.middleware
# refuses to build its healthcheck as a paste filter, and every glance-api
# process whose paste file does so exits before it listens. Debian 12's
# glance runs with it on PYTHONPATH (test/glancestack.NewerOsloMiddleware),
# so the tests load the rendered paste file with the library that refuses.
#
# The package is Debian's python3-oslo.middleware from unstable (pure
# Python), unpacked into a directory of its own that the pods' user can
# read; nothing of the system's Python changes. It needs
# python3-typing-extensions from Debian 12. The pinned file is checked
# against its SHA-256; once unstable has moved on and dropped it from the
# pool, the version unstable has then is taken, checked against the SHA-256
# unstable's package index gives, and it must still refuse the filter.
# Idempotent: does nothing when the directory is there.
# Needs root (or sudo) for apt-get and the directory.
#
# Env: OSLO_MIDDLEWARE_DIR overrides where it is unpacked; DEBIAN_MIRROR
# the archive (default: the one this machine's apt installs from,
# hack/debian-mirror.sh).
set -euo pipefail
dir=${OSLO_MIDDLEWARE_DIR:-/usr/local/lib/glance-hooks/oslo.middleware}
mirror=$("$(dirname "$0")/debian-mirror.sh")
pin_file=pool/main/p/python-oslo.middleware/python3-oslo.middleware_8.2.0-3_all.deb
pin_sha256=310f89053be7939e61654fdd816afd766a9fbc529aa81ac21dc370aab65881d8

"$(dirname "$0")/apt-install.sh" python3-typing-extensions

refuses_filter() {
  PYTHONPATH="$1" /usr/bin/python3 -c '
import oslo_middleware.healthcheck as h
try:
    h.Healthcheck.factory({})
except NotImplementedError:
    raise SystemExit(0)
raise SystemExit("this oslo.middleware still builds the healthcheck as a filter")'
}

if [ -f "$dir/.complete" ] && refuses_filter "$dir"; then
  exit 0
fi

sudo=$("$(dirname "$0")/as-root.sh" "install-oslo-middleware: need root or sudo to write $dir")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
file=$pin_file sha=$pin_sha256
if ! curl -fsS -m 120 -o "$tmp/pkg.deb" "$mirror/$file"; then
  echo "install-oslo-middleware: $file is gone from the pool; taking unstable's current version" >&2
  curl -fsS -m 120 -o "$tmp/Packages.xz" "$mirror/dists/sid/main/binary-all/Packages.xz"
  entry=$(xz -dc "$tmp/Packages.xz" | awk -v RS= '/(^|\n)Package: python3-oslo.middleware\n/')
  file=$(sed -n 's/^Filename: //p' <<<"$entry")
  sha=$(sed -n 's/^SHA256: //p' <<<"$entry")
  [ -n "$file" ] && [ -n "$sha" ] || { echo "install-oslo-middleware: no python3-oslo.middleware in unstable's index" >&2; exit 1; }
  curl -fsS -m 120 -o "$tmp/pkg.deb" "$mirror/$file"
fi
echo "$sha  $tmp/pkg.deb" | sha256sum -c --quiet - ||
  { echo "install-oslo-middleware: $file does not have SHA-256 $sha" >&2; exit 1; }
dpkg-deb -x "$tmp/pkg.deb" "$tmp/x"
refuses_filter "$tmp/x/usr/lib/python3/dist-packages"
$sudo rm -rf "$dir"
$sudo mkdir -p "$dir"
$sudo cp -a "$tmp/x/usr/lib/python3/dist-packages/." "$dir/"
$sudo chmod -R a+rX "$dir"
echo "${file##*/}" | $sudo tee "$dir/.complete" >/dev/null
echo "install-oslo-middleware: ${file##*/} in $dir" >&2
