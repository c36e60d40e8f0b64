#!/usr/bin/env bash
# Installs the real OpenStack Glance API server (Debian's glance-api, which
# brings glance-manage and python3-glance-store) and python3-boto3 (used by
# glance_store's s3 driver, and by tests to look into buckets) from Debian's
# packages, with qemu-utils: Glance's image conversion plugin runs qemu-img.
# Idempotent: does nothing when they are already there.
# Needs root (or sudo) and apt-get. Takes about 2-4 minutes on a fresh machine.
# Note: the packages are for the system interpreter /usr/bin/python3; a
# python3 earlier on PATH (pyenv) does not see glance_store or this boto3.
# The packaged glance-api daemon is not left running (see apt-install.sh).
set -euo pipefail
"$(dirname "$0")/apt-install.sh" --stop glance-api glance-api python3-boto3 qemu-utils
/usr/bin/python3 -c 'import boto3, glance_store' ||
  { echo "install-glance: /usr/bin/python3 cannot import boto3 and glance_store" >&2; exit 1; }
command -v qemu-img >/dev/null ||
  { echo "install-glance: qemu-utils installed no qemu-img" >&2; exit 1; }
