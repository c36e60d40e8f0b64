#!/usr/bin/env bash
# Runs the pod-runner tests twice at once, as two `make test` runs on one
# machine would, and checks that the directories of this machine the pods
# mount over (/etc/glance, /var/lib/glance) are as they were: the tests
# make what they need in their own temporary directories and in the pods'
# private mount namespaces, so neither run can see or break the other.
# Needs root (the pods' mount namespaces), as the tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
snapshot() {
  for d in /etc/glance /var/lib/glance; do
    if [ -e "$d" ]; then find "$d" -printf '%p %y %m %u:%g %s %T@\n'; else echo "$d absent"; fi
  done | LC_ALL=C sort
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
snapshot > "$tmp/before"
# One binary, so both runs start together rather than one after the build.
"$GO" test -c -o "$tmp/podrun.test" ./test/podrun/
(cd test/podrun && "$tmp/podrun.test" -test.count=1 -test.timeout=15m > "$tmp/run1.log" 2>&1) & p1=$!
(cd test/podrun && "$tmp/podrun.test" -test.count=1 -test.timeout=15m > "$tmp/run2.log" 2>&1) & p2=$!
rc=0
wait "$p1" || { echo "first parallel run of the pod-runner tests failed:"; cat "$tmp/run1.log"; rc=1; }
wait "$p2" || { echo "second parallel run of the pod-runner tests failed:"; cat "$tmp/run2.log"; rc=1; }
snapshot > "$tmp/after"
if ! diff -u "$tmp/before" "$tmp/after"; then
  echo "the pod-runner tests changed /etc/glance or /var/lib/glance of this machine"
  rc=1
fi
[ "$rc" = 0 ] && echo "pod-runner tests: two parallel runs passed; /etc/glance and /var/lib/glance unchanged"
exit "$rc"
