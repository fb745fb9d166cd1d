# mkfs-lib.sh - sourced by otherfs.sh and onfs.sh (from the top of the
# tree): make_fs FSTYPE makes and mounts a fresh FSTYPE file system on
# $work/FSTYPE, all of it unmounted and removed at exit.  The sourcing
# script names itself in $suite, for the messages of what it skips.
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
	echo "$suite: skipped $1: $2"
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
	return 0
}
