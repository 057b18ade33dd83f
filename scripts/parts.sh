#!/usr/bin/env bash
# Runs the given make targets (the parts of make test) at the same time,
# each with its output in its own log, and reports them as they end. Parts
# joined by + run one after the other (a+b: b starts when a ends, whether
# or not it passed), so that a part can take the place another leaves:
#   PASS unit (1m12s)
#   FAIL e2e (4m03s): e2e/out/test/e2e.log
# After the last one, the whole log of each part that failed is printed,
# every line prefixed with the part's name, then the lines that say what
# failed (failing tests, their messages, panics), and the summary again, so
# that the end of the output alone names the failure. Exits 1 when a part
# failed.
#
# Environment:
#   MAKE       the make to run the parts with (default make)
#   TEST_LOGS  where the logs go (default e2e/out/test)
set -u

make=${MAKE:-make}
logs=${TEST_LOGS:-e2e/out/test}
mkdir -p "$logs"

# elapsed prints the seconds $1 as 1m05s.
elapsed() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# run runs part $1 and writes its status and duration to $logs/$1.status.
run() {
	local part=$1 start=$SECONDS status
	"$make" --no-print-directory "$part" >"$logs/$part.log" 2>&1
	status=$?
	local took
	took=$(elapsed $((SECONDS - start)))
	if [ "$status" = 0 ]; then
		echo "PASS $part ($took)" | tee "$logs/$part.status"
	else
		echo "FAIL $part ($took): $logs/$part.log" | tee "$logs/$part.status"
	fi
	return "$status"
}

# Each part runs in a process group of its own (set -m), so that an
# interrupt stops every process of every part.
pids=()
stop() {
	for pid in "${pids[@]}"; do
		kill -- "-$pid" 2>/dev/null
	done
	exit 130
}
trap stop INT TERM
echo "running $* at once; logs in $logs"
parts=()
for job in "$@"; do
	IFS=+ read -r -a in_job <<<"$job"
	parts+=("${in_job[@]}")
done
for part in "${parts[@]}"; do
	rm -f "$logs/$part.status"
done
set -m
for job in "$@"; do
	IFS=+ read -r -a in_job <<<"$job"
	(for part in "${in_job[@]}"; do run "$part"; done) &
	pids+=($!)
done
set +m
wait "${pids[@]}"

failed=()
for part in "${parts[@]}"; do
	grep -q '^PASS' "$logs/$part.status" 2>/dev/null || failed+=("$part")
done

for part in "${failed[@]}"; do
	echo
	echo "==== $part failed: its log ($logs/$part.log) ===="
	sed "s/^/$part| /" "$logs/$part.log"
done
for part in "${failed[@]}"; do
	echo
	echo "==== what failed in $part ===="
	grep -E -e '--- FAIL|^FAIL|^panic:|^[[:space:]]+[[:alnum:]_]+\.go:[0-9]+:|test timed out|Error [0-9]+$' \
		"$logs/$part.log" | cut -c1-300 | head -60 | sed "s/^/$part| /"
done
echo
for part in "${parts[@]}"; do
	cat "$logs/$part.status" 2>/dev/null || echo "FAIL $part: no status"
done
[ "${#failed[@]}" = 0 ]
