#!/bin/sh
# otherfs.sh BUILD UCD FSTYPE... - the four foldfs suites and foldfs-check's
# suite again, with every tree on a fresh FSTYPE file system (a sparse
# image on a loop device; overlay: layers in /tmp) instead of /tmp's or
# BUILD's.  foldfs exists for the file systems without kernel casefolding,
# and they differ from ext4 in what the suites touch: xfs lists "." and
# ".." first and refuses a rename over a non-empty directory with EEXIST;
# btrfs keeps every directory's link count at 1, lists trusted.* names to
# anyone and, through a descriptor, only the entries that were there when
# it was opened or last rewound; overlay (a container's root) answers no
# FS_IOC_GETVERSION and makes no whiteouts by rename.  A file system this
# machine cannot make or mount is skipped, saying why; the rest still run.
set -u
build=$1 ucd=$2
shift 2
work=$(mktemp -d /tmp/fsother-XXXXXX) || exit 2
chmod 755 "$work" # the suites' test user must reach the trees
mounted=""

cleanup() {
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

skip() {
	echo "fs-otherfs: skipped $1: $2"
}

# Make and mount an FSTYPE file system on $work/FSTYPE; 0 if done.
# overlay: an empty lower layer under an upper one in $work (as a
# container's root file system, where everything is written above).
make_fs() {
	fs=$1 img=$work/$1.img mnt=$work/$1
	if [ "$(id -u)" -ne 0 ]; then
		skip "$fs" "needs root (a mount)"; return 1
	fi
	if ! grep -qw "$fs" /proc/filesystems &&
	   ! modprobe "$fs" 2>/dev/null; then
		skip "$fs" "this kernel has no $fs"; return 1
	fi
	if [ "$fs" = overlay ]; then
		mkdir -p "$work/lower" "$work/upper" "$work/ovwork" "$mnt" ||
			return 1
		set -- -t overlay overlay -o \
		  "lowerdir=$work/lower,upperdir=$work/upper,workdir=$work/ovwork"
	else
		if ! command -v "mkfs.$fs" >/dev/null 2>&1; then
			case $fs in btrfs) pkg=btrfs-progs ;; *) pkg=${fs}progs ;; esac
			skip "$fs" "mkfs.$fs is not installed (Debian package $pkg)"
			return 1
		fi
		mkdir -p "$mnt" && truncate -s 2G "$img" || return 1
		if ! out=$("mkfs.$fs" -q -f "$img" 2>&1); then
			skip "$fs" "mkfs.$fs failed: $out"; return 1
		fi
		set -- -o loop "$img"
	fi
	if ! out=$(mount "$@" "$mnt" 2>&1); then
		skip "$fs" "cannot mount it: $out"; return 1
	fi
	mounted="$mounted $mnt"
	chmod 755 "$mnt"
	mkdir -m 755 "$mnt/check-tmp"
	return 0
}

run=tests/fs/run.sh
bin=$build/tests/fs
set -- "$@" --
while [ "$1" != -- ]; do
	fs=$1
	shift
	make_fs "$fs" || continue
	p="FSTEST_PARENT=$work/$fs"
	set -- "$@" \
	  "$p $run 280 $bin/fs-basic --foldfs $build/foldfs" \
	  "$p $run 240 $bin/fs-posix --foldfs $build/foldfs" \
	  "$p $run 240 $bin/fs-source --foldfs $build/foldfs" \
	  "$p $run 420 $bin/fs-coherence --foldfs $build/foldfs" \
	  "python3 tests/check/check-test.py --build $build --ucd $ucd --tmp $work/$fs/check-tmp"
done
shift
if [ $# -eq 0 ]; then
	echo "0 passed, 0 failed"
	exit 0
fi
sh tests/lib/sum-runs.sh "$@"
