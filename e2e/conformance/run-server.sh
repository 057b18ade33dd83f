#!/bin/sh
# Runs every server scenario of the official MCP conformance suite against
# the go-sdk's conformance server (everything-server) directly, and through
# the relay's agent endpoint (/mcp/s/<id>), in one run, and prints per
# scenario
#   BOTH name | BOTH-ON-RETRY name | DIRECT-ONLY name | BY-DESIGN-OR-GAP name | NEITHER name
# and then the two pass counts; dns-rebinding-protection is also run against
# the aggregate endpoint (/mcp) and printed as AGGREGATE. A scenario that passes directly but fails
# through the relay is tried once more through the relay (BOTH-ON-RETRY when
# that passes; both logs are kept). Exits 1 when a scenario that passes
# directly fails through the relay twice, except the scenarios in which the server asks its
# client a question (elicitation, sampling): through the relay those go to
# a person in the dashboard, by design, never to the agent, and the known
# gaps of the go-sdk client the relay connects with (listed below, with why).
#
# The relay is the product as a person runs it: a fresh data directory, the
# server registered with "switchboard servers add", an agent key made with
# "switchboard agent-key create", and "switchboard serve". The suite cannot
# send headers, so bearerproxy stands in front of the relay and adds the
# key as Authorization: Bearer, as an agent's configuration would.
#
# Environment:
#   EVERYTHING_SERVER    the conformance server binary (default ../../bin/everything-server)
#   SWITCHBOARD_BIN      the relay (default ../../bin/switchboard)
#   BEARERPROXY          the header-adding proxy (default ../../bin/bearerproxy)
#   CONFORMANCE_LOGS     where each scenario's output goes (default ../out/conformance-server)
#   CONFORMANCE_SCENARIOS the scenarios, space-separated (default all that
#                        "conformance list --server" prints)
#   CONFORMANCE_SHARD    K/N: only every N-th of those scenarios, from the
#                        K-th, so that N runs (each with its own relay and
#                        CONFORMANCE_LOGS) share the list
#
# Where we are root and may create a network namespace, the whole run is in
# a private one with only loopback.
set -u

dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
everything=${EVERYTHING_SERVER:-$root/bin/everything-server}
switchboard=${SWITCHBOARD_BIN:-$root/bin/switchboard}
bearerproxy=${BEARERPROXY:-$root/bin/bearerproxy}
logs=${CONFORMANCE_LOGS:-$root/e2e/out/conformance-server}
suite=$dir/node_modules/.bin/conformance
by_design=" tools-call-elicitation elicitation-sep1034-defaults elicitation-sep1330-enums tools-call-sampling "
# server-sse-polling: the server closes the POST stream of a call mid-call
# (SEP-1699) and keeps no event store; the go-sdk client (the relay's
# connection to the server) then ends the call with "request terminated
# without response", as it does when it talks to this server directly.
known_gaps=" server-sse-polling "

export NODE_OPTIONS="--import $dir/node20-compat.mjs"

for f in "$suite" "$everything" "$switchboard" "$bearerproxy"; do
	if [ ! -x "$f" ]; then
		echo "missing $f: run make conformance" >&2
		exit 2
	fi
done

if [ -z "${CONFORMANCE_ISOLATED:-}" ] && [ "$(id -u)" = 0 ] && unshare -n sh -c 'ip link set lo up' 2>/dev/null; then
	CONFORMANCE_ISOLATED=1 exec unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$0" "$@"
fi

mkdir -p "$logs"
data=$(mktemp -d "${TMPDIR:-/tmp}/conformance-relay.XXXXXX") || exit 2
pids=
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$data"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fail says why the run cannot go on, with the log to read.
fail() {
	echo "run-server.sh: $1" >&2
	exit 2
}

# answers says whether something accepts HTTP at URL $1.
answers() {
	curl -s -o /dev/null --max-time 2 "$1"
}

# await_line waits (at most $3 seconds) until process $2 writes a line
# matching the sed expression $4 to file $1, and prints what it captures.
await_line() {
	i=0
	while [ "$i" -lt $(($3 * 10)) ]; do
		got=$(sed -n "$4" "$1" | head -n 1)
		if [ -n "$got" ]; then
			echo "$got"
			return 0
		fi
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# The conformance server takes a fixed address and does not say which port
# it got: in the private namespace every port is free; elsewhere try free
# ones until one is ours.
start_everything() {
	tries=0
	while [ "$tries" -lt 20 ]; do
		tries=$((tries + 1))
		if [ -n "${CONFORMANCE_ISOLATED:-}" ]; then
			port=39117
		else
			port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
			answers "http://127.0.0.1:$port/" && continue
		fi
		"$everything" -http "127.0.0.1:$port" -stateless=false >"$logs/everything-server.log" 2>&1 &
		epid=$!
		i=0
		while [ "$i" -lt 100 ]; do
			if ! kill -0 "$epid" 2>/dev/null; then
				break
			fi
			if answers "http://127.0.0.1:$port/mcp"; then
				pids="$pids $epid"
				return 0
			fi
			sleep 0.1
			i=$((i + 1))
		done
		kill "$epid" 2>/dev/null
		wait "$epid" 2>/dev/null
	done
	return 1
}

start_everything || fail "the conformance server did not start; see $logs/everything-server.log"
direct=http://127.0.0.1:$port/mcp

# The relay as a person sets it up: a server and an agent key, then serve.
"$switchboard" servers add --data "$data" --user local --name conformance --url "$direct" >"$logs/servers-add.log" 2>&1 ||
	fail "switchboard servers add failed; see $logs/servers-add.log"
id=$(tail -n 1 "$logs/servers-add.log" | awk '{print $NF}')
[ -n "$id" ] || fail "no server id in $logs/servers-add.log"
keyfile=$data/agent.key
(
	umask 077
	"$switchboard" agent-key create --data "$data" --user local --name conformance >"$data/agent-key.out" 2>&1 &&
		tail -n 1 "$data/agent-key.out" | awk '{print $NF}' >"$keyfile"
) || fail "switchboard agent-key create failed: $(head -c 500 "$data/agent-key.out")"
[ -s "$keyfile" ] || fail "no agent key in the output of switchboard agent-key create"

# The files that await_line reads are emptied before the process starts:
# its own redirection empties them only once it runs, and until then
# await_line would read a line of the last run.
: >"$logs/switchboard.log"
"$switchboard" serve --data "$data" --addr 127.0.0.1:0 --ask-timeout 3s >"$logs/switchboard.out" 2>"$logs/switchboard.log" &
rpid=$!
pids="$pids $rpid"
raddr=$(await_line "$logs/switchboard.log" "$rpid" 30 's/.*msg="switchboard listening" addr=\([0-9.:]*\).*/\1/p') ||
	fail "the relay did not start listening in 30s; see $logs/switchboard.log"
relay=http://$raddr
i=0
until answers "$relay/healthz"; do
	i=$((i + 1))
	[ "$i" -lt 100 ] || fail "$relay/healthz does not answer after 10s; see $logs/switchboard.log"
	sleep 0.1
done

: >"$logs/bearerproxy.url"
"$bearerproxy" -target "$relay" -key-file "$keyfile" >"$logs/bearerproxy.url" 2>"$logs/bearerproxy.log" &
ppid=$!
pids="$pids $ppid"
proxy=$(await_line "$logs/bearerproxy.url" "$ppid" 10 '/^http:/p') ||
	fail "bearerproxy did not start; see $logs/bearerproxy.log"

# Ready: the relay lists the server's tools to the key (through the proxy,
# so that the key stays off every command line).
i=0
until curl -sf --max-time 2 "$proxy/api/tools?server=$id&state=ready" 2>/dev/null | grep -q '"name"'; do
	i=$((i + 1))
	[ "$i" -lt 150 ] || fail "the relay lists no tools of server $id after 30s; see $logs/switchboard.log"
	sleep 0.2
done
relayed=$proxy/mcp/s/$id

scenarios=${CONFORMANCE_SCENARIOS:-$("$suite" list --server | sed -n 's/^  - \([^ ]*\).*/\1/p')}
if [ -n "${CONFORMANCE_SHARD:-}" ]; then
	scenarios=$(for name in $scenarios; do echo "$name"; done |
		awk -v k="${CONFORMANCE_SHARD%/*}" -v n="${CONFORMANCE_SHARD#*/}" '(NR - k) % n == 0')
	[ -n "$scenarios" ] || fail "no scenarios in shard $CONFORMANCE_SHARD"
fi

# passes runs scenario $1 against URL $2 and reports whether it passed.
passes() {
	log=$logs/$(echo "$1" | tr '/' '_').$3.log
	"$suite" server --url "$2" --scenario "$1" >"$log" 2>&1
	status=$?
	sed -i 's/\x1b\[[0-9;]*m//g' "$log"
	[ "$status" = 0 ] && ! grep -q 'FAIL' "$log"
}

ndirect=0
nrelayed=0
bad=0
retried=0
for name in $scenarios; do
	d=no
	r=no
	passes "$name" "$direct" direct && d=yes && ndirect=$((ndirect + 1))
	passes "$name" "$relayed" relayed && r=yes && nrelayed=$((nrelayed + 1))
	case "$d$r" in
	yesyes) echo "BOTH $name" ;;
	noyes) echo "RELAYED-ONLY $name" ;;
	nono) echo "NEITHER $name" ;;
	yesno)
		case "$by_design$known_gaps" in
		*" $name "*) echo "BY-DESIGN-OR-GAP $name (see the list at the top)" ;;
		*)
			# Once more through the relay, so that a rare failure is told
			# apart from a real gap; the first try's log and the relay's log
			# so far are kept. One such failure, read: the suite's
			# initialize POST ended (the proxy saw its relay connection
			# closed) after the priming event and before the result; the
			# go-sdk then closes the uninitialized session, and the
			# client's resume gets 404 and waits out its 60 s timeout.
			cp "$logs/switchboard.log" "$logs/switchboard-at-$name.log" 2>/dev/null
			if passes "$name" "$relayed" relayed-retry; then
				echo "BOTH-ON-RETRY $name (first try: $logs/$name.relayed.log)"
				nrelayed=$((nrelayed + 1))
				retried=$((retried + 1))
			else
				echo "DIRECT-ONLY $name"
				bad=$((bad + 1))
			fi
			;;
		esac
		;;
	esac
done
# The aggregate endpoint (/mcp) guards against DNS rebinding as one
# server's endpoint does.
case " $(echo $scenarios) " in
*" dns-rebinding-protection "*)
	if passes dns-rebinding-protection "$proxy/mcp" aggregate; then
		echo "AGGREGATE dns-rebinding-protection"
	else
		echo "AGGREGATE-FAILED dns-rebinding-protection (see $logs/dns-rebinding-protection.aggregate.log)"
		bad=$((bad + 1))
	fi
	;;
esac
echo
echo "logs: $logs"
echo "direct: $ndirect passed; through the relay: $nrelayed passed ($retried on a second try); $bad passing directly but not through the relay (outside the by-design ones)"
[ "$bad" = 0 ]
