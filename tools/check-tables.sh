#!/bin/sh
# check-tables.sh MKTABLES UCD BUILD - suite "tables": lib/fold_tables.c
# must be exactly what MKTABLES generates from the Unicode Character
# Database it was made from.
#
# The generated file names that UCD version (fold_ucd_version).  Where the
# installed unicode-data is another version (Debian 13 ships 15.1.0), the
# Debian package of the right version is fetched into BUILD/ucd-VERSION
# with apt-helper and dpkg-deb (present on every Debian system) and used
# instead.  Skipped, saying why, only if no UCD of that version can be had.
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
	dir=$build/ucd-$want
	if [ ! -f "$dir/usr/share/unicode/DerivedAge.txt" ]; then
		deb=unicode-data_$want-1_all.deb
		url=${DEBIAN_MIRROR:-http://deb.debian.org/debian}/pool/main/u/unicode-data/$deb
		echo "tables: lib/fold_tables.c is from UCD $want, $ucd is ${have:-absent}: fetching $url"
		mkdir -p "$dir"
		if ! /usr/lib/apt/apt-helper download-file "$url" "$dir/$deb" >/dev/null 2>&1 ||
			! dpkg-deb -x "$dir/$deb" "$dir"; then
			echo "tables: skipped: no UCD $want here (unicode-data ${have:-not installed}) and $url could not be fetched"
			echo "0 passed, 0 failed"
			exit 0
		fi
	fi
	ucd=$dir/usr/share/unicode
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
