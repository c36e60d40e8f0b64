#!/usr/bin/env bash
# Installs the real OpenStack Glance API server (Debian's glance-api, which
# brings glance-manage and python3-glance-store) and python3-boto3 (used by
# glance_store's s3 driver, and by tests to look into buckets) from Debian's
# packages. Idempotent: does nothing when both are already there.
# Needs root (or sudo) and apt-get. Takes about 2-4 minutes on a fresh machine.
# Note: the packages are for the system interpreter /usr/bin/python3; a
# python3 earlier on PATH (pyenv) does not see glance_store or this boto3.
#
# The package's postinst would start a glance-api daemon on port 9292 through
# invoke-rc.d; the install runs with a policy-rc.d that denies service starts
# (unless one already exists), and a daemon left running anyway is stopped.
set -euo pipefail

have() {
  command -v glance-api >/dev/null 2>&1 && command -v glance-manage >/dev/null 2>&1 &&
    /usr/bin/python3 -c 'import boto3, glance_store' >/dev/null 2>&1
}
if have; then
  echo "glance-api already installed: $(command -v glance-api)" >&2
  exit 0
fi

sudo=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-glance: need root or sudo" >&2; exit 1; }
  sudo="sudo"
fi

policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# added by install-glance.sh for the duration of apt-get\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  made_policy=1
fi
cleanup() { if [ -n "$made_policy" ]; then $sudo rm -f "$policy"; fi; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
  glance-api python3-boto3 >&2

# Should a service manager have started the packaged daemon anyway, stop it:
# tests start their own glance-api processes on ports of their own.
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  $sudo systemctl disable --now glance-api.service >/dev/null 2>&1 || true
elif [ -x /etc/init.d/glance-api ]; then
  $sudo /etc/init.d/glance-api stop >/dev/null 2>&1 || true
fi

have || { echo "install-glance: glance-api/boto3 still missing after apt-get" >&2; exit 1; }
echo "installed $(dpkg-query -W -f='${Package} ${Version}' glance-api)" >&2
