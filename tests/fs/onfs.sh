#!/bin/sh
# onfs.sh FSTYPE CMD... - run CMD with TMPDIR on a fresh FSTYPE file system
# made as fs-otherfs makes them (mkfs-lib.sh), from the top of the tree.
# For the fuzz targets that work on real directories in $TMPDIR: suite
# fs-fuzz runs those that model changes made directly in SOURCE there too,
# since what a file system lists, and when, is what they test (btrfs lists
# through a descriptor only what was there when it was opened).  Where
# FSTYPE cannot be made: says why and counts nothing.
set -u
fs=$1
shift
suite=fs-fuzz
. tests/fs/mkfs-lib.sh
if ! make_fs "$fs"; then
	echo "0 passed, 0 failed"
	exit 0
fi
mkdir -m 1777 "$work/$fs/tmp" || exit 2
TMPDIR=$work/$fs/tmp "$@"
