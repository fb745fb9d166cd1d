#!/bin/sh
# bench-check.sh BUILD - foldfs-check throughput on a 1,000,000-entry tree
# against a plain find(1) of the same tree.  Both run with a warm cache,
# best of 3; prints names/s and the time ratio (goal: foldfs-check takes at
# most 1.5x find's time).  The tree is generated once into
# BUILD/bench-tree and reused.
set -eu
build=${1:-build}
tree=$build/bench-tree
ndirs=${BENCH_DIRS:-1000}
nfiles=${BENCH_FILES:-1000}
check=$build/foldfs-check

if [ ! -d "$tree" ] || [ "$(cat "$tree.size" 2>/dev/null)" != "$ndirs x $nfiles" ]; then
	rm -rf "$tree" "$tree.size"
	echo "generating $tree ($ndirs x $nfiles entries; takes a while)..."
	python3 bench/check/mktree.py "$tree" "$ndirs" "$nfiles"
	echo "$ndirs x $nfiles" >"$tree.size"
fi

# best TIME of 3 runs of a command, in seconds
best() {
	b=""
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || [ $? -eq 4 ]
		t1=$(date +%s.%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then
			b=$t
		fi
	done
	echo "$b"
}

find "$tree" >/dev/null          # warm the cache
"$check" --casefold -q "$tree" >/dev/null || true
names=$(( ndirs * nfiles + ndirs ))
tf=$(best find "$tree")
tc=$(best "$check" --casefold "$tree")
# the checker must have done the work: it reports every directory's pair
found=$("$check" --casefold --json "$tree" | grep -c '"type":"collision"' || true)
if [ "$found" -ne "$ndirs" ]; then
	echo "bench-check: expected $ndirs collision groups, got $found" >&2
	exit 1
fi
awk -v n="$names" -v tf="$tf" -v tc="$tc" -v g="$found" 'BEGIN {
	printf "find:          %.3f s  (%.0f names/s)\n", tf, n / tf
	printf "foldfs-check:  %.3f s  (%.0f names/s, --casefold, %d collision groups found)\n", tc, n / tc, g
	r = tc / tf
	printf "bench-check: %d names: foldfs-check/find time ratio %.2f (goal <= 1.50: %s)\n", n, r, r <= 1.5 ? "met" : "NOT met"
}'

