#!/bin/sh
# sum-runs.sh CMD... - run each shell command CMD in turn (its output is
# shown as it comes), read the closing "N passed, N failed" line of each
# and print the sum as the final line.  A command that exits non-zero
# without reporting a failure, or prints no count line, counts as one
# failure, so a crash can never pass.  For suites made of several programs.
set -u
tp=0; tf=0
out=$(mktemp) || exit 2
rcf=$(mktemp) || exit 2
trap 'rm -f "$out" "$rcf"' EXIT
for cmd in "$@"; do
	printf '### %s\n' "$cmd"
	{ sh -c "$cmd"; echo $? >"$rcf"; } 2>&1 | tee "$out"
	rc=$(cat "$rcf")
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		p=0; f=1
		echo "### no count line (exit status $rc): counted as 1 failure"
	else
		p=${line%% passed*}
		f=${line#*, }; f=${f%% failed*}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			echo "### exit status $rc: counted as 1 failure"
		fi
	fi
	tp=$((tp + p)); tf=$((tf + f))
done
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
