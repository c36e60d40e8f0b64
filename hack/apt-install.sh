#!/usr/bin/env bash
# Installs Debian packages the tests run for real, idempotently: packages
# already installed are left alone, and with nothing missing it does nothing
# (no apt-get at all). Needs root (or sudo) and apt-get.
#
# usage: apt-install.sh [--stop SERVICE]... PACKAGE...
#
# Package scripts would start their daemons (mariadb, memcached, keystone,
# uwsgi, glance-api) through invoke-rc.d; the install runs with a
# policy-rc.d that denies service starts (unless one already exists), and
# each --stop SERVICE is stopped and disabled afterwards should a service
# manager have started it anyway: tests start their own servers on ports
# of their own.
set -euo pipefail

stop=()
while [ "${1:-}" = --stop ]; do
  stop+=("$2")
  shift 2
done
[ $# -gt 0 ] || { echo "usage: apt-install.sh [--stop SERVICE]... PACKAGE..." >&2; exit 2; }

need=()
for p in "$@"; do
  if [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" != "ii " ]; then
    need+=("$p")
  fi
done
if [ ${#need[@]} -eq 0 ]; then
  echo "already installed: $*" >&2
  exit 0
fi

sudo=$("$(dirname "$0")/as-root.sh" "apt-install: need root or sudo to install ${need[*]}")

policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# added by apt-install.sh for the duration of apt-get\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  made_policy=1
fi
cleanup() { if [ -n "$made_policy" ]; then $sudo rm -f "$policy"; fi; }
trap cleanup EXIT

began=$(date +%s)
apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
# One index refresh serves every install of the next hour.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Release' -mmin -60 2>/dev/null | head -1)" ]; then
  "${apt[@]}" update -qq >&2
fi
"${apt[@]}" install -y -qq --no-install-recommends \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${need[@]}" >&2

for s in "${stop[@]}"; do
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    $sudo systemctl disable --now "$s.service" >/dev/null 2>&1 || true
  elif [ -x "/etc/init.d/$s" ]; then
    $sudo "/etc/init.d/$s" stop >/dev/null 2>&1 || true
  fi
done

for p in "${need[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" = "ii " ] ||
    { echo "apt-install: $p is still not installed after apt-get" >&2; exit 1; }
done
echo "installed ${need[*]} in $(($(date +%s) - began))s" >&2
