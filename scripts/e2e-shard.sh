#!/bin/sh
# Runs shard K of N of the browser tests (package ./e2e): the tests that
# go test -list names, in name order, take turns, so that the K-th, the
# K+N-th, ... are this shard's. Every test is in exactly one shard, new ones
# too, and the tests of one family (TestSampling...) spread over the shards.
# Each shard is its own test process with its own Chromium.
#
#   scripts/e2e-shard.sh K N [go test flags...]
#
# Environment: GO (default go), CHROMIUM (see e2e/browser_test.go).
set -eu

k=$1
n=$2
shift 2
go=${GO:-go}

if [ "$k" -lt 1 ] || [ "$k" -gt "$n" ]; then
	echo "e2e-shard: shard $k of $n does not exist" >&2
	exit 2
fi

list=$("$go" test -list '^Test' ./e2e/) || {
	echo "$list"
	exit 1
}
names=$(echo "$list" | grep '^Test' | sort | awk -v k="$k" -v n="$n" '(NR - k) % n == 0' | paste -sd '|' -)
if [ -z "$names" ]; then
	echo "e2e-shard: no tests in shard $k of $n"
	exit 0
fi
echo "shard $k of $n: $(echo "$names" | tr '|' ' ')"
exec "$go" test -count=1 -run "^($names)\$" "$@" ./e2e/
