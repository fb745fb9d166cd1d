#!/bin/sh
# run-suites.sh SUITE... - run each "make check-SUITE", keep its log in
# build/check-logs/, read its closing "N passed, N failed" line and print the
# sum.  A suite that exits non-zero or prints no count line counts as one
# failure, so a crashed or silent suite can never pass.  A suite that runs
# longer than SUITE_TIMEOUT seconds (default 1200; the slowest takes a few
# minutes) is stopped and fails, so a hang cannot eat the CI budget.
set -u
limit=${SUITE_TIMEOUT:-1200}
logs=${BUILD:-build}/check-logs
mkdir -p "$logs"
tp=0; tf=0; bad=""
for s in "$@"; do
	log="$logs/$s.log"
	printf '=== %s\n' "$s"
	timeout --kill-after=30 "$limit" \
		${MAKE:-make} --no-print-directory -s "check-$s" >"$log" 2>&1
	rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "$s: stopped after $limit s (SUITE_TIMEOUT)" >>"$log"
	fi
	line=$(grep -E '^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	tail -n 15 "$log" | sed 's/^/    /'
	if [ -z "$line" ]; then
		p=0; f=1
		echo "    ($s printed no count line; counted as 1 failure)"
	else
		p=$(printf '%s\n' "$line" | sed -E 's/^([A-Za-z0-9_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
		f=$(printf '%s\n' "$line" | sed -E 's/^([A-Za-z0-9_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			echo "    ($s exited $rc; counted as 1 failure)"
		fi
	fi
	tp=$((tp + p)); tf=$((tf + f))
	[ "$f" -ne 0 ] && bad="$bad $s"
	printf '    -> %s: %s passed, %s failed\n' "$s" "$p" "$f"
done
echo
[ -n "$bad" ] && echo "failing suites:$bad (logs in $logs/)"
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
