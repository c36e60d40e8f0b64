#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each and prints how many
# inputs each one tried. Targets are found by their declarations, so a new
# Fuzz function joins without an edit here.
#
# FUZZMINIMIZE bounds the time the fuzzer spends shrinking each input that
# finds new coverage. Go's default is a minute of re-running the target, and
# the hook target's seeds are whole Metacontroller requests of up to 128 KB:
# minimising one of them stalled every worker for that minute, so the target
# tried about 200 inputs a minute instead of tens of thousands.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-1m}
FUZZMINIMIZE=${FUZZMINIMIZE:-20x}

summary=()
while IFS=: read -r file target; do
	pkg=./$(dirname "$file")
	log=$(mktemp)
	echo "== $target ($pkg), $FUZZTIME"
	if ! "$GO" test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE" "$pkg" 2>&1 | tee "$log"; then
		rm -f "$log"
		exit 1
	fi
	execs=$( (grep -o 'execs: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
	summary+=("$(printf '%-22s %-36s %12s inputs in %s' "$target" "$pkg" "${execs:-0}" "$FUZZTIME")")
	rm -f "$log"
done < <(grep -rHo --include='*_test.go' --exclude-dir=.git '^func Fuzz[A-Za-z0-9_]*' . | sed -e 's#^\./##' -e 's#:func #:#' | sort)

echo
printf '%s\n' "${summary[@]}"
