#!/bin/sh
# fetch-ucd.sh DEBVERSION DIR - make DIR/usr/share/unicode hold Debian's
# unicode-data package of version DEBVERSION (e.g. 17.0.0-2), fetched from
# $DEBIAN_MIRROR (default deb.debian.org) with apt-helper and unpacked
# with dpkg-deb, both present on every Debian system.  Nothing is
# installed.  Prints the Unicode data directory; exit status 1, with the
# reason on stderr, if it cannot be had.  Used by tools/check-tables.sh
# and tests/lib/newer-ucd.sh.
set -u
ver=$1 dir=$2
out=$dir/usr/share/unicode
if [ ! -f "$out/DerivedAge.txt" ]; then
	deb=unicode-data_${ver}_all.deb
	url=${DEBIAN_MIRROR:-http://deb.debian.org/debian}/pool/main/u/unicode-data/$deb
	mkdir -p "$dir" || exit 1
	if ! /usr/lib/apt/apt-helper download-file "$url" "$dir/$deb" >/dev/null 2>&1; then
		echo "$url could not be fetched" >&2
		exit 1
	fi
	if ! dpkg-deb -x "$dir/$deb" "$dir" || [ ! -f "$out/DerivedAge.txt" ]; then
		echo "$dir/$deb could not be unpacked" >&2
		exit 1
	fi
	rm -f "$dir/$deb"
fi
echo "$out"
