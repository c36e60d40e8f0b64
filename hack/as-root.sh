#!/usr/bin/env bash
# Prints what an install script puts before a command that needs root:
# nothing when it runs as root, else "sudo". Without root and without sudo
# it fails with the caller's reason (its one argument), which the caller's
# $(...) under set -e turns into its own failure.
#
# usage: sudo=$(hack/as-root.sh "name: need root or sudo to ...") || exit 1
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
  exit 0
fi
command -v sudo >/dev/null 2>&1 || { echo "$1" >&2; exit 1; }
echo sudo
