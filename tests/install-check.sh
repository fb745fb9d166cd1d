#!/bin/sh
# install-check.sh BUILD - "make install PREFIX=scratch" installs a usable
# library: header, static and shared library with soname, pkg-config file,
# binaries and man pages.  Builds a client with pkg-config and runs it.
set -u
build=${1:-build}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d /tmp/foldfs-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if ${MAKE:-make} --no-print-directory -s install PREFIX="$tmp/usr" >"$tmp/log" 2>&1; then
	ok "make install PREFIX=$tmp/usr"
else
	bad "make install"; cat "$tmp/log"
fi
p=$tmp/usr
for f in include/fold.h lib/libfold.a lib/libfold.so lib/pkgconfig/libfold.pc \
	include/foldfs_ioctl.h bin/foldfs-norm bin/foldfs-check bin/foldfs \
	share/man/man1/foldfs-norm.1 share/man/man8/foldfs.8 \
	share/man/man1/foldfs-check.1 share/man/man3/libfold.3 \
	share/man/man3/fold_key.3 share/man/man3/fold_hashz.3; do
	if [ -e "$p/$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
soname=$(objdump -p "$p/lib/libfold.so" 2>/dev/null | awk '/SONAME/ {print $2}')
[ "$soname" = "libfold.so.1" ] && ok "soname $soname" || bad "soname '$soname'"
# the chain libfold.so -> libfold.so.1 -> libfold.so.1.x.y: the real file's
# first number is the soname's, as ldconfig and packagers expect
real=$(readlink -f "$p/lib/libfold.so" 2>/dev/null)
case "${real##*/}" in
"$soname".[0-9]*.[0-9]*) [ -f "$real" ] && ok "shared object file ${real##*/}" ||
	bad "shared object $real is not a file" ;;
*) bad "shared object file '${real##*/}' does not start with '$soname.'" ;;
esac
cat >"$tmp/client.c" <<'C'
#include <fold.h>
#include <stdio.h>
/* a name a client may well use: libfold's internals (also in libfold.a,
 * where hidden symbols still link) must not take it */
int fs_first(int);
int fs_first(int x) { return x; }
int main(void)
{
	struct fold_ctx c;
	if (fold_init(&c, "utf8-12.1", FOLD_CASEFOLD, 0) != 0)
		return 2;
	/* "Straße" vs "STRASSE": equivalent under full case folding */
	return fold_equalz(&c, "Stra\xc3\x9f" "e", "STRASSE") ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$p/lib/pkgconfig"
if cc -Wall -Werror $(pkg-config --cflags libfold) "$tmp/client.c" -o "$tmp/client" \
	$(pkg-config --libs libfold) -Wl,-rpath,"$p/lib" 2>"$tmp/cc.log" && "$tmp/client"; then
	ok "client built with pkg-config (shared) and ran"
else
	bad "client with pkg-config"; cat "$tmp/cc.log"
fi
if cc -Wall -Werror -I"$p/include" "$tmp/client.c" "$p/lib/libfold.a" -o "$tmp/client-static" 2>"$tmp/cc2.log" && "$tmp/client-static"; then
	ok "client linked statically and ran"
else
	bad "static client"; cat "$tmp/cc2.log"
fi
# "man fold_key" finds libfold(3) through its one-line page
if [ "$(cat "$p/share/man/man3/fold_key.3" 2>/dev/null)" = ".so man3/libfold.3" ]; then
	ok "man3/fold_key.3 is .so man3/libfold.3"
else
	bad "man3/fold_key.3 is not a .so link to libfold.3"
fi
# uninstall removes every file install put there, and only those
touch "$p/lib/someone-elses.so"
if ${MAKE:-make} --no-print-directory -s uninstall PREFIX="$tmp/usr" >"$tmp/ulog" 2>&1; then
	left=$(find "$p" -type f -o -type l | grep -v '/someone-elses.so$')
	if [ -z "$left" ] && [ -e "$p/lib/someone-elses.so" ]; then
		ok "make uninstall removed all it installed, nothing else"
	else
		bad "make uninstall left: $left"
	fi
else
	bad "make uninstall"; cat "$tmp/ulog"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
