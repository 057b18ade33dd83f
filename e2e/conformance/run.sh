#!/bin/sh
# Runs every client scenario of the official MCP conformance suite against
# "switchboard conformance-client", one scenario at a time, and prints
#   PASS name | FAIL name: reason
# per scenario and then "N passed, M failed". A WARNING fails a scenario
# like a FAILURE. Exits 1 when a scenario fails.
#
# The suite must be installed in this directory (make conformance runs
# npm ci here). Environment:
#   SWITCHBOARD_BIN         the relay binary (default ../../bin/switchboard)
#   CONFORMANCE_TIMEOUT_MS  the suite's limit per scenario (default 30000)
#   CONFORMANCE_LOGS        where each scenario's output goes (default ../out/conformance)
#   CONFORMANCE_SCENARIOS   the scenarios to run, space-separated (default all
#                           that "conformance list --client" prints)
#
# Where we are root and may create a network namespace, each scenario runs in
# a private one with only loopback, since the suite's mock servers listen on
# every interface.
set -u

dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
bin=${SWITCHBOARD_BIN:-$root/bin/switchboard}
timeout_ms=${CONFORMANCE_TIMEOUT_MS:-30000}
logs=${CONFORMANCE_LOGS:-$root/e2e/out/conformance}
suite=$dir/node_modules/.bin/conformance

# The suite imports fs.globSync, which Node 20 lacks; the hook stubs it.
export NODE_OPTIONS="--import $dir/node20-compat.mjs"

if [ ! -x "$suite" ]; then
	echo "the conformance suite is not installed: run npm ci --prefix $dir" >&2
	exit 2
fi
if [ ! -x "$bin" ]; then
	echo "no relay binary at $bin: run make build" >&2
	exit 2
fi

isolate=
if [ "$(id -u)" = 0 ] && unshare -n sh -c 'ip link set lo up' 2>/dev/null; then
	isolate=yes
fi

# run_suite runs the suite with the given arguments, in a private network
# namespace when possible.
run_suite() {
	if [ -n "$isolate" ]; then
		unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$suite" "$@"
	else
		"$suite" "$@"
	fi
}

# reason summarizes why a scenario failed: each failed or warning check of
# the checks.json the suite saved under $1 (its id and message), a timeout,
# and the client's own last error line in the log $2.
reason() {
	checks=$(find "$1" -name checks.json 2>/dev/null | head -n 1)
	{
		if [ -n "$checks" ]; then
			node -e '
				const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
				for (const c of checks) {
					if (c.status === "FAILURE" || c.status === "WARNING") {
						console.log(`${c.id} ${c.status} (${c.errorMessage || c.description})`);
					}
				}' "$checks"
		fi
		grep -m 1 'CLIENT TIMED OUT' "$2" | sed 's/^[^A-Z]*//'
		grep '^switchboard: ' "$2" | tail -n 1
	} | awk 'NF { out = out (out != "" ? "; " : "") $0 } END { print (out != "" ? substr(out, 1, 800) : "see the log") }'
}

mkdir -p "$logs"
scenarios=${CONFORMANCE_SCENARIOS:-$(run_suite list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')}
if [ -z "$scenarios" ]; then
	echo "the suite listed no client scenarios" >&2
	exit 2
fi

passed=0
failed=0
for name in $scenarios; do
	out=$logs/$(echo "$name" | tr '/' '_')
	log=$out.log
	rm -rf "$out"
	run_suite client --command "$bin conformance-client" --scenario "$name" \
		--timeout "$timeout_ms" --output-dir "$out" >"$log" 2>&1
	status=$?
	sed -i 's/\x1b\[[0-9;]*m//g' "$log"
	if [ "$status" = 0 ] && ! grep -q '^Warning Checks:' "$log" && grep -q 'OVERALL: PASSED' "$log"; then
		echo "PASS $name"
		passed=$((passed + 1))
		continue
	fi
	echo "FAIL $name: $(reason "$out" "$log")"
	failed=$((failed + 1))
done

echo
echo "logs: $logs"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
