#!/bin/sh
# check-tables.sh MKTABLES UCD BUILD - suite "tables": lib/fold_tables.c
# must be exactly what MKTABLES generates from the Unicode Character
# Database it was made from.
#
# The generated file names that UCD version (fold_ucd_version).  Where the
# installed unicode-data is another version (Debian 13 ships 15.1.0), the
# Debian package of the right version is fetched into BUILD/ucd-VERSION
# (tools/fetch-ucd.sh) and used instead.  Skipped, saying why, only if no
# UCD of that version can be had.
set -u
mk=$1 ucd=$2 build=$3
want=$(sed -n 's/^const char fold_ucd_version\[\] = "\(.*\)";$/\1/p' lib/fold_tables.c)
have=""
[ -f "$ucd/DerivedAge.txt" ] &&
	have=$(sed -n '1s/^# DerivedAge-\([0-9.]*\)\.txt$/\1/p' "$ucd/DerivedAge.txt")
if [ -z "$want" ]; then
	echo "tables: FAIL: lib/fold_tables.c names no UCD version"
	echo "0 passed, 1 failed"
	exit 1
fi
if [ "$have" != "$want" ]; then
	echo "tables: lib/fold_tables.c is from UCD $want, $ucd is ${have:-absent}: fetching Debian's unicode-data $want"
	if ! got=$(sh tools/fetch-ucd.sh "$want" "$build/ucd-$want" 2>&1); then
		echo "tables: skipped: no UCD $want here (unicode-data ${have:-not installed}) and $got"
		echo "0 passed, 0 failed"
		exit 0
	fi
	ucd=$(printf '%s\n' "$got" | tail -n 1)
fi
if ! "$mk" "$ucd" "$build/fold_tables.gen.c"; then
	echo "tables: FAIL: mktables failed on $ucd"
	echo "0 passed, 1 failed"
	exit 1
fi
if cmp -s "$build/fold_tables.gen.c" lib/fold_tables.c; then
	echo "tables: ok: lib/fold_tables.c matches $ucd (UCD $want)"
	echo "1 passed, 0 failed"
	exit 0
fi
echo "tables: FAIL: lib/fold_tables.c differs from what mktables generates from $ucd;"
echo "  see: diff -u lib/fold_tables.c $build/fold_tables.gen.c; fix with: make tables"
echo "0 passed, 1 failed"
exit 1
