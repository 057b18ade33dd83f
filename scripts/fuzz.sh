#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module, one after another, each for
# FUZZTIME (30s unless set). It finds the targets with go test -list in the
# packages whose tests declare a func Fuzz, so a new target is run without
# being named here. Extra arguments are package patterns (./... unless
# given). It runs every target even when one fails, and fails if any did.
set -euo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
pkgs=("${@:-./...}")
"$GO" list -f '{{.ImportPath}} {{.Dir}}' "${pkgs[@]}" | {
	failed=()
	while read -r pkg dir; do
		grep -qs '^func Fuzz' "$dir"/*_test.go || continue
		for name in $("$GO" test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
			echo "== $pkg $name ($FUZZTIME)"
			if ! "$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$pkg"; then
				failed+=("$pkg $name (the input is in $dir/testdata/fuzz/$name/)")
			fi
		done
	done
	if [ ${#failed[@]} -gt 0 ]; then
		printf 'FAIL %s\n' "${failed[@]}"
		exit 1
	fi
}
