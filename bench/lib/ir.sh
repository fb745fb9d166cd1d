#!/bin/sh
# ir.sh BENCH_IR [SETS] [IMPLS] - instructions a name (callgrind) for each
# implementation of bench/lib/bench-ir.cpp on each set of the benchmark
# corpus: a run of REPS passes less a run of none (the corpus and set-up),
# over the names timed.  Deterministic: use it to compare two builds of
# libfold where bench-lib's wall-time ratios are within their noise.
set -e
bin=$1
sets=${2:-"ascii latin-nfc latin-nfd greek cyrillic cjk hangul emoji mixed"}
impls=${3:-"fold-nkcf hash-nkcf fold-cf hash-cf cmp-nkcf icu-fold-nkcf icu-hash-nkcf"}
reps=${IR_REPS:-5}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	echo "usage: ir.sh BENCH_IR [SETS] [IMPLS]" >&2
	exit 2
fi
if ! command -v valgrind >/dev/null 2>&1; then
	echo "ir.sh: valgrind is not installed (apt-get install valgrind)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Ir of one run of the program under callgrind
count() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" "$@" \
		>"$tmp/stdout" 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
	awk '/^summary:/ { print $2 }' "$tmp/out"
}
printf '%-10s' set
for i in $impls; do printf ' %14s' "$i"; done
printf '\n'
for s in $sets; do
	printf '%-10s' "$s"
	for i in $impls; do
		base=$(count "$s" "$i" 0)
		all=$(count "$s" "$i" "$reps")
		n=$(awk '{ print $3 }' "$tmp/stdout")
		awk -v a="$all" -v b="$base" -v r="$reps" -v n="$n" \
			'BEGIN { printf " %14.1f", (a - b) / (r * n) }'
	done
	printf '\n'
done
echo "(instructions a name, callgrind; $reps passes)"
