#!/bin/sh
# fetch-ucd.sh VERSION DIR - make DIR/usr/share/unicode hold Debian's
# unicode-data package of VERSION: a Debian version (17.0.0-2), or a
# Unicode one (17.0.0), for which the first of Debian revisions 4 down to
# 1 that the mirror has is taken (the pool keeps only current ones).  It
# is fetched from $DEBIAN_MIRROR (default deb.debian.org) with apt-helper
# and unpacked with dpkg-deb, both present on every Debian system;
# nothing is installed.  Prints the Unicode data directory; exit status
# 1, with the reason on stderr, if it cannot be had.  Used by
# tools/check-tables.sh and tests/lib/newer-ucd.sh.
set -u
ver=$1 dir=$2
out=$dir/usr/share/unicode
case $ver in
*-*) revs=${ver#*-} ver=${ver%%-*} ;;
*) revs="4 3 2 1" ;;
esac
pool=${DEBIAN_MIRROR:-http://deb.debian.org/debian}/pool/main/u/unicode-data
if [ ! -f "$out/DerivedAge.txt" ]; then
	mkdir -p "$dir" || exit 1
	deb=
	for r in $revs; do
		if /usr/lib/apt/apt-helper download-file \
			"$pool/unicode-data_${ver}-${r}_all.deb" "$dir/u.deb" \
			>/dev/null 2>&1; then
			deb=$dir/u.deb
			break
		fi
	done
	if [ -z "$deb" ]; then
		echo "no unicode-data_${ver}-{$(echo "$revs" | tr ' ' ,)}_all.deb could be fetched from $pool" >&2
		rmdir "$dir" 2>/dev/null
		exit 1
	fi
	if ! dpkg-deb -x "$deb" "$dir" || [ ! -f "$out/DerivedAge.txt" ]; then
		echo "$deb could not be unpacked" >&2
		exit 1
	fi
	rm -f "$deb"
fi
echo "$out"
