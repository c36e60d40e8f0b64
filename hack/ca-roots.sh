#!/usr/bin/env bash
# Prints the path of the CA roots the image ships: Debian's
# ca-certificates bundle (Mozilla's roots, as Debian's security team
# updates them), installed first when this machine lacks it (apt, needs
# root or sudo). CA_BUNDLE names another PEM bundle instead.
#
# usage: hack/ca-roots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
if [ -n "${CA_BUNDLE:-}" ]; then
  [ -s "$bundle" ] || { echo "CA_BUNDLE=$bundle is missing or empty" >&2; exit 1; }
elif [ ! -s "$bundle" ]; then
  hack/apt-install.sh ca-certificates >&2
  # The package's trigger writes the bundle; run it should it not have.
  [ -s "$bundle" ] || update-ca-certificates >&2
fi
echo "$bundle"
