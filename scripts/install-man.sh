#!/bin/sh
# install-man.sh MANDIR FILE... - install each man page into MANDIR/manN,
# N being the section its file name ends with (foldfs.8 -> man8), mode 644.
# Called by "make install" with $(DESTDIR)$(PREFIX)/share/man.
set -eu
if [ $# -lt 1 ]; then
	echo "usage: install-man.sh MANDIR FILE..." >&2
	exit 2
fi
mandir=$1
shift
for f in "$@"; do
	base=${f##*/}
	sec=${base##*.}
	case "$sec" in
	[1-9] | [1-9][a-z]*) ;;
	*)
		echo "install-man.sh: $f: no section suffix (.1 ... .9)" >&2
		exit 1
		;;
	esac
	# the directory is named by the section digit: foo.3fold -> man3
	dir=$mandir/man$(printf '%s' "$sec" | cut -c1)
	install -d "$dir"
	install -m 644 "$f" "$dir/$base"
	echo "installed $dir/$base"
done
