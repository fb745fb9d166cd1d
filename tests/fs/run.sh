#!/bin/sh
# run.sh SECONDS PROGRAM [ARGS...] - run one foldfs integration-test program
# inside its own scratch directory /tmp/fstest-XXXXXX (or in $FSTEST_PARENT:
# tests/fs/otherfs.sh puts it on another file system) with a watchdog, and
# clean up whatever it leaves behind, whatever happens: lazy-unmount every
# mount under the scratch directory (aborting a hung FUSE connection first),
# kill the daemons it started, remove the directory.  The program's own last
# line ("N passed, N failed") stays the last line, unless the watchdog fired
# or the program died without one, in which case this adds a failing count.
set -u
limit=$1
shift
root=$(mktemp -d "${FSTEST_PARENT:-/tmp}/fstest-XXXXXX") || exit 2
chmod 755 "$root"

mounts_under() {
	# field 5 of mountinfo is the mount point
	awk -v r="$root/" 'index($5, r) == 1 { print $3 " " $5 }' /proc/self/mountinfo
}

cleanup() {
	mounts_under | while read -r dev mnt; do
		echo "run.sh: cleaning up leftover mount $mnt" >&2
		minor=${dev#*:}
		# A hung daemon would make even a lazy unmount's users wait:
		# abort the connection if the fusectl filesystem is reachable.
		if [ ! -e /sys/fs/fuse/connections/"$minor" ]; then
			mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null || true
		fi
		[ -w /sys/fs/fuse/connections/"$minor"/abort ] &&
			echo 1 >/sys/fs/fuse/connections/"$minor"/abort
		fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	done
	if [ -f "$root/pids" ]; then
		# Only a process still serving our scratch dir: a pid from the
		# list may have exited long ago and been reused.
		while read -r pid; do
			[ -r "/proc/$pid/cmdline" ] || continue
			if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF "$root/"; then
				kill -9 "$pid" 2>/dev/null
			fi
		done <"$root/pids"
	fi
	rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

out=$root/output
: >"$out" # exists before tail starts reading it
FSTEST_ROOT=$root timeout -k 15 "$limit" "$@" --root "$root" \
	--watchdog $((limit - 20)) >"$out" 2>&1 &
child=$!
# Relay the output as it comes so a long run shows progress.
tail -n +1 -f --pid=$child "$out" 2>/dev/null
wait $child
rc=$?
last=$(tail -n 1 "$out")
# Clean up now, so that its messages come before the final count line.
trap - EXIT
cleanup_out=$(cleanup 2>&1)
if [ -n "$cleanup_out" ]; then
	printf '%s\n' "$cleanup_out"
	# keep the program's count line the last line
	printf '%s\n' "$last" | grep -E '^[0-9]+ passed, [0-9]+ failed' || true
fi
case "$rc" in
124 | 137)
	echo "FAIL watchdog: $* ran longer than $limit s and was killed"
	echo "0 passed, 1 failed"
	exit 1
	;;
esac
if ! printf '%s\n' "$last" | grep -Eq '^[0-9]+ passed, [0-9]+ failed'; then
	echo "FAIL $1 exited with status $rc without a count line"
	echo "0 passed, 1 failed"
	exit 1
fi
exit $rc
