#!/bin/sh
# install-man.sh [--uninstall] MANDIR FILE... - install each man page into
# MANDIR/manN, N being the section its file name ends with (foldfs.8 ->
# man8), mode 644, plus a one-line ".so" page for every other name its
# NAME section lists (libfold.3 -> fold_init.3 ...), so that "man
# fold_init" finds it without a mandb index.  --uninstall removes exactly
# those files.  Called by "make install" / "make uninstall" with
# $(DESTDIR)$(PREFIX)/share/man.
set -eu
remove=0
if [ "${1:-}" = --uninstall ]; then
	remove=1
	shift
fi
if [ $# -lt 1 ]; then
	echo "usage: install-man.sh [--uninstall] MANDIR FILE..." >&2
	exit 2
fi
mandir=$1
shift
# The names of a page's NAME section: the lines after ".SH NAME" up to
# the one holding "\-", commas and the description dropped.
names() {
	awk '/^\.SH NAME$/ { on = 1; next }
	     on && /^\.SH/ { exit }
	     on { if (sub(/\\-.*/, "")) { print; exit } print }' "$1" |
		tr ',' '\n' | sed 's/^[[:space:]]*//;s/[[:space:]]*$//;/^$/d'
}
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
	n=$(printf '%s' "$sec" | cut -c1)
	dir=$mandir/man$n
	if [ "$remove" = 1 ]; then
		rm -f "$dir/$base" && echo "removed $dir/$base"
	else
		install -d "$dir"
		install -m 644 "$f" "$dir/$base"
		echo "installed $dir/$base"
	fi
	for name in $(names "$f"); do
		[ "$name.$sec" = "$base" ] && continue
		if [ "$remove" = 1 ]; then
			rm -f "$dir/$name.$sec"
		else
			printf '.so man%s/%s\n' "$n" "$base" >"$dir/$name.$sec"
			chmod 644 "$dir/$name.$sec"
		fi
	done
done
