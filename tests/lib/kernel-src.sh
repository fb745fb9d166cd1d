#!/bin/sh
# kernel-src.sh DIR - put the Linux kernel's own fs/unicode normalizer
# (utf8-norm.c, utf8n.h and the generated utf8data table) into DIR, with
# the few <linux/*.h> headers it needs to build as a userspace object, for
# suite lib-kernel (tests/lib/test-kernel.c), which tests libfold's "ext4"
# equivalence against it.  The kernel's code is GPL-2.0 and stays in the
# build directory: it is an oracle, like ICU, never part of libfold.
#
# Source: an installed linux-source-X.Y package (/usr/src/linux-source-
# X.Y.tar.xz), else the newest linux-source-X.Y package apt can download
# (about 150 MB, fetched into DIR and deleted after extraction).  Exits 0
# when DIR is ready (kept for later runs), 1 with the reason printed when
# no kernel source can be had.
set -u
dir=$1
if [ -f "$dir/ready" ]; then
	echo "lib-kernel: kernel fs/unicode from $(cat "$dir/ready")"
	exit 0
fi
skip() {
	echo "lib-kernel: skipped: $*"
	exit 1
}
command -v xz >/dev/null 2>&1 || skip "xz is not installed (Debian package xz-utils)"
rm -rf "$dir"
mkdir -p "$dir/include/linux" || skip "cannot create $dir"

tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
if [ -n "$tarball" ]; then
	from=$tarball
else
	newest() {
		apt-cache pkgnames linux-source- 2>/dev/null |
			grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -n 1
	}
	pkg=$(newest)
	if [ -z "$pkg" ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq >/dev/null 2>&1
		pkg=$(newest)
	fi
	[ -n "$pkg" ] || skip "no linux-source-X.Y package is known to apt (run apt-get update as root)"
	echo "lib-kernel: downloading $pkg (about 150 MB; kept only as fs/unicode)"
	if ! (cd "$dir" && apt-get download "$pkg" >download.log 2>&1); then
		skip "apt-get download $pkg failed: $(tail -n 1 "$dir/download.log")"
	fi
	deb=$(ls "$dir"/"$pkg"_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || skip "apt-get download $pkg left no .deb"
	tarball=$(dpkg-deb -c "$deb" | sed -n 's|.* \./\(usr/src/linux-source-.*\.tar\.xz\)$|\1|p')
	[ -n "$tarball" ] || skip "$deb holds no kernel tarball"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$tarball" >"$dir/src.tar.xz" ||
		skip "could not unpack $deb"
	rm -f "$deb"
	from="$pkg $(echo "$deb" | sed -n 's|.*_\(.*\)_all\.deb$|\1|p')"
	tarball=$dir/src.tar.xz
fi
top=$(xz -dc "$tarball" | tar -t 2>/dev/null | head -n 1 | cut -d/ -f1)
xz -dc "$tarball" | tar -x -C "$dir" --wildcards "$top/fs/unicode/*" ||
	skip "could not extract fs/unicode from $tarball"
rm -f "$dir/src.tar.xz"
u=$dir/$top/fs/unicode
for f in utf8-norm.c utf8n.h utf8data.c_shipped; do
	[ -f "$u/$f" ] || skip "$from has no fs/unicode/$f (a kernel before 5.19?)"
done
grep -q 'struct utf8data_table utf8_data_table' "$u/utf8data.c_shipped" ||
	skip "$from: utf8data.c_shipped has no utf8_data_table"
cp "$u/utf8-norm.c" "$u/utf8n.h" "$dir/" &&
	cp "$u/utf8data.c_shipped" "$dir/utf8data.c" || skip "copy failed"
rm -rf "${dir:?}/$top"

# What the kernel files include, reduced to what they use.
inc=$dir/include/linux
printf '#include <stddef.h>\n#include <stdint.h>\n#include <sys/types.h>\n' >"$inc/types.h"
printf '#define EXPORT_SYMBOL(x)\n#define EXPORT_SYMBOL_GPL(x)\n' >"$inc/export.h"
printf '#include <string.h>\n' >"$inc/string.h"
printf '#define MODULE_LICENSE(x)\n#define MODULE_DESCRIPTION(x)\n' >"$inc/module.h"
printf '#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))\n' >"$inc/kernel.h"
cat >"$inc/unicode.h" <<'EOF'
/* The part of the kernel's struct unicode_map utf8-norm.c reads. */
enum utf8_normalization { UTF8_NFDI = 0, UTF8_NFDICF, UTF8_NMAX };
struct utf8data;
struct utf8data_table;
struct unicode_map {
	unsigned int version;
	const struct utf8data *ntab[UTF8_NMAX];
	const struct utf8data_table *tables;
};
EOF
echo "$from" >"$dir/ready"
echo "lib-kernel: kernel fs/unicode from $from"
exit 0
