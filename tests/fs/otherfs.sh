#!/bin/sh
# otherfs.sh BUILD UCD FSTYPE... - the four foldfs suites, fs-stress,
# fs-netbench and foldfs-check's suite again, with every tree on a fresh
# FSTYPE file system (a sparse image on a loop device; overlay: layers in
# /tmp) instead of /tmp's or BUILD's.  foldfs exists for the file systems
# without kernel casefolding, and they differ from ext4 in what the suites
# touch: xfs lists "." and ".." first and refuses a rename over a
# non-empty directory with EEXIST; btrfs keeps every directory's link
# count at 1, lists trusted.* names to anyone and, through a descriptor,
# only the entries that were there when it was opened or last rewound;
# overlay (a container's root) answers no FS_IOC_GETVERSION and makes no
# whiteouts by rename.  A file system this machine cannot make or mount is
# skipped, saying why; the rest still run.
set -u
build=$1 ucd=$2
shift 2
suite=fs-otherfs
. tests/fs/mkfs-lib.sh

run=tests/fs/run.sh
bin=$build/tests/fs
set -- "$@" --
while [ "$1" != -- ]; do
	fs=$1
	shift
	make_fs "$fs" || continue
	mkdir -m 755 "$work/$fs/check-tmp"
	p="FSTEST_PARENT=$work/$fs"
	set -- "$@" \
	  "$p $run 280 $bin/fs-basic --foldfs $build/foldfs" \
	  "$p $run 240 $bin/fs-posix --foldfs $build/foldfs" \
	  "$p $run 240 $bin/fs-source --foldfs $build/foldfs" \
	  "$p $run 420 $bin/fs-coherence --foldfs $build/foldfs" \
	  "$p $run 240 sh tests/fs/stress.sh --foldfs $build/foldfs" \
	  "$p $run 240 sh tests/fs/netbench.sh --foldfs $build/foldfs" \
	  "python3 tests/check/check-test.py --build $build --ucd $ucd --tmp $work/$fs/check-tmp"
done
shift
if [ $# -eq 0 ]; then
	echo "0 passed, 0 failed"
	exit 0
fi
sh tests/lib/sum-runs.sh "$@"
