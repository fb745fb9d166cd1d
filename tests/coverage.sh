#!/bin/sh
# coverage.sh [BUILD_DIR] - which lines of libfold, the daemon and the tools
# the test suites run (make coverage).  Builds everything with gcc
# --coverage into BUILD_DIR (default build-cov), runs the library suites,
# the four fs suites against that daemon and the tools' suites, then prints
# gcov's line coverage per source file and writes the annotated sources
# (lines never run are marked #####) to BUILD_DIR/gcov/.  A developer's
# tool, not part of make check: a line it reports unrun is a place to look
# for a missing test (or for dead code).  Runs done as another user
# (setpriv in the check suite) cannot write the counters, so what only
# they reach shows as unrun.
set -u
B=${1:-build-cov}
MK="make --no-print-directory -s BUILD=$B OPT=-O1\ -g EXTRA_CFLAGS=--coverage EXTRA_LDFLAGS=--coverage"
say() { printf '%s\n' "coverage: $*"; }

if [ "$(id -u)" -ne 0 ]; then
	say "the fs suites mount FUSE file systems: run as root"
	exit 2
fi
say "building into $B"
eval "MAKEFLAGS= $MK -j2 all fstest-progs $B/test-lib-conformance \
	$B/test-lib-invalid $B/test-lib-icu $B/test-lib-lanes \
	$B/NormalizationTest.txt" || exit 2
find "$B" -name '*.gcda' -delete

say "library suites"
"$B/test-lib-conformance" --quick --ucd "${UCD:-/usr/share/unicode}" \
	--normtest "$B/NormalizationTest.txt" | tail -n 1
"$B/test-lib-invalid" | tail -n 1
"$B/test-lib-icu" --random 20000 | tail -n 1
"$B/test-lib-lanes" | tail -n 1
say "fs suites (the daemon writes its counters when it exits)"
for t in fs-basic fs-coherence fs-source fs-posix; do
	printf '%s: ' "$t"
	tests/fs/run.sh 600 "$B/tests/fs/$t" --foldfs "$B/foldfs" 2>&1 | tail -n 1
done
say "tools suites"
eval "$MK check-check" | tail -n 1
eval "$MK check-tools-norm" | tail -n 1

mkdir -p "$B/gcov"
printf '\n%-34s %8s %7s\n' "source file" "lines" "run"
for src in lib/*.c fs/*.c tools/foldfs-*.c common/*.c; do
	obj=$B/obj/$(dirname "$src")
	[ -f "$obj/$(basename "$src" .c).gcda" ] || continue
	# gcov finds the sources by the relative paths they were compiled
	# with: run it here, then move its annotated files away
	line=$(gcov -o "$obj" "$src" 2>/dev/null |
		grep -A1 "^File '$src'" | sed -n 's/^Lines executed:\([0-9.]*\)% of \([0-9]*\)/\2 \1/p')
	mv ./*.gcov "$B/gcov/" 2>/dev/null
	[ -n "$line" ] && printf '%-34s %8s %6s%%\n' "$src" $line
done
say "annotated sources in $B/gcov/ (grep -n '#####' for lines never run)"
