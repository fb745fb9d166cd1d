#!/usr/bin/env bash
# check-bigendian.sh [BUILD_DIR] - libfold on a big-endian machine.
#
# Why: libfold's word-at-a-time code (ASCII runs, UTF-8 checking, the ASCII
# compare and hash paths, the lanes' decomposition keys) reads and writes
# 8 bytes at a time through fold_load8()/fold_store8() in
# lib/fold_internal.h, which byte-swap on big-endian hosts so that a word's
# bytes are always numbered from its low end.  Every developer and CI
# machine is little-endian, so that half of the code is never run there.
# s390x is a Debian release architecture (a big-endian one), so Debian ships
# a cross compiler and a user-mode emulator for it.
#
# What: cross-builds with s390x-linux-gnu-gcc (-std=c11 -O2, static) into
# BUILD_DIR (default build-s390x, relative to the repository root):
#   libfold (lib/fold_*.c)                      -> BUILD_DIR/libfold.a
#   test-lib-invalid, test-lib-conformance,
#   test-lib-lanes (with the -DFOLD_NO_LANES reference copy, renamed
#   ref_fold_*, as tests/lib/suite.mk builds it)
#   foldfs-norm (tools/foldfs-norm.c, common/u8.c, common/opterr.c)
# then runs them under qemu-s390x: the three suites as tests/lib/suite.mk
# runs them, and tests/tools/norm-test.py against foldfs-norm (through a
# small wrapper, BUILD_DIR/foldfs-norm, that starts the s390x binary under
# qemu).  Each suite ends with "N passed, N failed"; this script prints the
# sum as its last line and exits non-zero if anything failed.
#
# Debian packages (scripts/deps.sh bigendian): as root, missing ones are
# installed; otherwise the exact apt-get line is printed and the script
# exits 2.  Logs: BUILD_DIR/logs/.
# Takes 13 to 16 minutes on two cores, 10 to 12 of them lib-conformance under
# qemu.  QUICK=1 samples as lib-asan does (lib-conformance --quick,
# lib-lanes --names 1500): about 4 minutes.
set -eu

cd "$(dirname "$0")/../.."
B=${1:-build-s390x}
UCD=${UCD:-/usr/share/unicode}
SUITE_TIMEOUT=${SUITE_TIMEOUT:-1800}
QUICK=${QUICK:-0}
T=s390x-linux-gnu
QEMU=qemu-s390x

# ---- packages -------------------------------------------------------------
# The cross compiler (brings binutils-s390x-linux-gnu: ld, objcopy, nm, ar),
# the s390x C library, the emulator; the UCD, bzip2 and python3 for the
# suites' data and norm-test.py.
scripts/deps.sh bigendian || exit 2

# ---- cross build ----------------------------------------------------------
VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
CFLAGS="-std=c11 -O2 -Wall -Wextra -Ilib -Icommon"
LIB_SRCS=$(echo lib/fold_*.c)
CONF_SRCS="test-conformance conf-util conf-normtest conf-casefold conf-closure
	   conf-canon conf-version conf-vectors conf-encoding"

rm -rf "$B/obj"
mkdir -p "$B/obj/lib" "$B/obj/nolanes" "$B/obj/tests" "$B/obj/tools" "$B/obj/common" "$B/logs"

xcc() { # xcc OUT.o SRC.c [FLAGS...]
	local out=$1 src=$2
	shift 2
	echo "  CC    $out"
	# shellcheck disable=SC2086
	$T-gcc $CFLAGS "$@" -c -o "$out" "$src"
}
xld() { # xld PROGRAM OBJS...
	local out=$1
	shift
	echo "  LD    $out"
	$T-gcc -static -o "$out" "$@"
}

echo "== cross-building for s390x into $B"
# the byte order is checked, not assumed
cat >"$B/obj/endian.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
int main(void)
{
	uint32_t one = 1;
	printf("%s\n", *(unsigned char *)&one ? "little-endian" : "big-endian");
	return 0;
}
EOF
xcc "$B/obj/endian.o" "$B/obj/endian.c"
xld "$B/endian" "$B/obj/endian.o"
order=$($QEMU "$B/endian")
echo "  s390x binaries under $QEMU are $order"
if [ "$order" != big-endian ]; then
	echo "check-bigendian: the s390x build is not big-endian" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

# libfold
LIB_OBJS=""
for src in $LIB_SRCS; do
	o=$B/obj/lib/$(basename "$src" .c).o
	xcc "$o" "$src"
	LIB_OBJS="$LIB_OBJS $o"
done
rm -f "$B/libfold.a"
# shellcheck disable=SC2086
$T-ar rcs "$B/libfold.a" $LIB_OBJS

# the reference copy without fast lanes (tests/lib/mkref.sh, as lib-lanes):
# one relocatable object, internal (hidden) symbols made local, the API
# renamed ref_fold_*
REF_OBJS=""
for src in $LIB_SRCS; do
	o=$B/obj/nolanes/$(basename "$src" .c).o
	xcc "$o" "$src" -DFOLD_NO_LANES
	REF_OBJS="$REF_OBJS $o"
done
REF=$B/obj/tests/fold-ref.o
echo "  REF   $REF"
# shellcheck disable=SC2086
LD=$T-ld OBJCOPY=$T-objcopy NM=$T-nm sh tests/lib/mkref.sh "$REF" $REF_OBJS

# the test programs
for t in check ucd test-invalid test-lanes $CONF_SRCS; do
	xcc "$B/obj/tests/$t.o" "tests/lib/$t.c" -Itests/lib
done
xcc "$B/obj/tests/siphash.o" bench/lib/siphash.c -Itests/lib -Ibench/lib
O=$B/obj/tests
xld "$B/test-lib-invalid" "$O/test-invalid.o" "$O/check.o" "$B/libfold.a"
# shellcheck disable=SC2046
xld "$B/test-lib-conformance" $(for t in $CONF_SRCS; do echo "$O/$t.o"; done) \
	"$O/check.o" "$O/ucd.o" "$B/libfold.a"
xld "$B/test-lib-lanes" "$O/test-lanes.o" "$O/check.o" "$O/siphash.o" \
	"$REF" "$B/libfold.a"

# foldfs-norm, and a wrapper by its name for norm-test.py --build
xcc "$B/obj/tools/foldfs-norm.o" tools/foldfs-norm.c \
	-DFOLDFS_VERSION="\"$VERSION\""
xcc "$B/obj/common/u8.o" common/u8.c
xcc "$B/obj/common/opterr.o" common/opterr.c
xld "$B/foldfs-norm.s390x" "$B/obj/tools/foldfs-norm.o" "$B/obj/common/u8.o" \
	"$B/obj/common/opterr.o" "$B/libfold.a"
cat >"$B/foldfs-norm" <<EOF
#!/bin/sh
# foldfs-norm.s390x under the emulator (check-bigendian.sh)
exec $QEMU -0 foldfs-norm "\$(dirname "\$0")/foldfs-norm.s390x" "\$@"
EOF
chmod +x "$B/foldfs-norm"

# lib-conformance reads the decompressed NormalizationTest.txt
if [ ! -s "$B/NormalizationTest.txt" ]; then
	bzcat "$UCD/NormalizationTest.txt.bz2" >"$B/NormalizationTest.txt.tmp"
	mv "$B/NormalizationTest.txt.tmp" "$B/NormalizationTest.txt"
fi

# ---- run ------------------------------------------------------------------
# run_suite NAME CMD...: run CMD (output to the terminal and
# BUILD_DIR/logs/NAME.log), read its closing "N passed, N failed" line and
# add it to the totals.  No count line, a non-zero exit without a counted
# failure, or a time-out each count as one failure.
tp=0
tf=0
bad=""
summary=""
run_suite() {
	local name=$1 log=$B/logs/$1.log line p f rc start secs
	shift
	echo "== $name: $*"
	start=$(date +%s)
	set +e
	timeout --kill-after=30 "$SUITE_TIMEOUT" "$@" >"$log" 2>&1
	rc=$?
	set -e
	secs=$(($(date +%s) - start))
	tail -n 15 "$log" | sed 's/^/    /'
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
	if [ -z "$line" ]; then
		p=0
		f=1
		echo "    (no count line, exit status $rc: counted as 1 failure)"
	else
		p=${line%% passed*}
		f=${line#*, }
		f=${f%% failed*}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			echo "    (exit status $rc: counted as 1 failure)"
		fi
	fi
	tp=$((tp + p))
	tf=$((tf + f))
	[ "$f" -ne 0 ] && bad="$bad $name"
	summary="$summary$(printf '  %-16s %6s passed, %s failed  (%ss)' "$name" "$p" "$f" "$secs")
"
}

if [ "$QUICK" = 1 ]; then
	LANES_ARGS="--names 1500"
	CONF_ARGS="--quick"
else
	LANES_ARGS=""
	CONF_ARGS=""
fi
run_suite lib-invalid $QEMU "$B/test-lib-invalid"
# shellcheck disable=SC2086
run_suite lib-lanes $QEMU "$B/test-lib-lanes" $LANES_ARGS
# shellcheck disable=SC2086
run_suite lib-conformance $QEMU "$B/test-lib-conformance" $CONF_ARGS \
	--ucd "$UCD" --normtest "$B/NormalizationTest.txt"
run_suite tools-norm python3 tests/tools/norm-test.py --build "$B"

echo
echo "== big-endian (s390x under $QEMU) summary"
printf '%s' "$summary"
[ -n "$bad" ] && echo "failing suites:$bad (logs in $B/logs/)"
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
