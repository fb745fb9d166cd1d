#!/bin/sh
# stress.sh --foldfs PATH --root DIR [--watchdog SECS] [--seconds N] -
# stress-ng's file system stressors (a third party's idea of what a file
# system must survive: aio, leases, dnotify/inotify, sendfile, hole
# punching, RLIMIT_FSIZE, lock storms, deep and wide trees, names of every
# byte...) through a foldfs view, in a folding directory (chattr +F) and
# then a plain one of the same mount, all 42 at once for N seconds
# (default 8), with stress-ng's own data verification (a stressor that
# had not started when stress-ng ended a successful run runs again by
# itself, and must then give its result).  Then: nothing
# may be left in SOURCE, the daemon must hold no more descriptors than
# before once the kernel has forgotten the inodes (FORGET closes them),
# SOURCE's root no more often than the root node and its reserve pool
# (33), and the daemon must exit 0 at the unmount (a sanitizer build
# exits non-zero on a report).  Run by tests/fs/run.sh, which gives the
# scratch dir and cleans up.  Needs root (drop_caches), /dev/fuse and
# stress-ng.
#
# Not run: inode-flags and chattr reset a directory's flags with
# FS_IOC_SETFLAGS 0, which a non-empty folding directory refuses as ext4
# refuses it for a non-empty casefold directory (chattr: natively too);
# io-uring's STATX fails on this kernel natively as well; the rest of
# stress-ng's file system class needs other file systems (verity, fiemap,
# bind-mount, fanotify's mount marks) or is not about files.
set -u
foldfs="" root="" secs=8
usage="stress.sh --foldfs PATH --root DIR [--seconds N]"
script_opt() { return 1; }
. "$(dirname "$0")/view.sh"
view_args "$@"
if ! command -v stress-ng >/dev/null 2>&1; then
	bad "stress-ng is not installed (apt-get install stress-ng; make check installs it)"
	finish
fi

stressors="access aio chdir chmod chown copy-file dentry dir dirdeep dirmany
dnotify fallocate fcntl file-ioctl filename flock fpunch fsize fstat getdent
handle hdd inotify io iomix lease link locka lockf lockofd mknod msync open
readahead rename seek sendfile symlink sync-file touch utime xattr"
# sizes kept small: the point is the mix of calls, not the disk.  The
# open stressor keeps as many files open as its descriptor limit allows,
# and every file open through the view is one descriptor of the daemon,
# whose limit is no larger: left alone it can take them all, and the
# stressors that start meanwhile cannot make their files (a limit of any
# passthrough daemon, README's "Limits"), so it is kept to 2048.
sizes="--hdd-bytes 16M --iomix-bytes 16M --fallocate-bytes 16M
--sync-file-bytes 16M --copy-file-bytes 128M --msync-bytes 16M
--seek-size 16M --readahead-bytes 16M --sendfile-size 1M --open-max 2048"

src=$root/src mnt=$root/mnt
mkdir -p "$src" "$mnt" || { bad "cannot make $src, $mnt"; finish; }
view_mount
mkdir "$mnt/fold" "$mnt/plain" && chattr +F "$mnt/fold" &&
	lsattr -d "$mnt/fold" | grep -q '^[^ ]*F' ||
	{ bad "could not make a folding directory"; finish; }

# The daemon's descriptors but libfuse's per-thread splice pipes (as many
# as worker threads happen to exist), /dev/null (daemonizing) and those of
# SOURCE's root itself: the root node's and the reserve pool of creating
# calls (ops_entry.c: duplicates of it, up to 32, kept by design).
fds() {
	for f in /proc/"$dpid"/fd/*; do readlink "$f"; done 2>/dev/null |
		grep -v -x -F -e /dev/null -e "$src" | grep -v '^pipe:'
}
forget() { sync; echo 2 2>/dev/null >/proc/sys/vm/drop_caches; fr=$?; sleep 1; return $fr; }
can_forget=1
forget || can_forget=0
before=$(fds | wc -l)

# stress-ng in directory $1, its output in $2, with options $3 (sizes),
# the stressors $4
stress() {
	# shellcheck disable=SC2086
	(cd "$mnt/$1" && stress-ng --temp-path "$mnt/$1" --verify -t "$secs" \
		--metrics-brief \
		$(for s in $4; do printf -- '--%s 1 ' "$s"; done) \
		$3) >"$2" 2>&1
}

# judge DIR LOG LIST FINAL: a result per stressor of LIST from stress-ng's
# LOG.  One without any (no metrics line, no failure, no skip) fails if
# FINAL is 1; else it is added to $again.
judge() {
	norun=0
	for s in $3; do
		if grep -Eq -e "fail: +\[[0-9]+\] $s:" \
			-e "\($s\) terminated with an error" "$2"; then
			bad "$1: stressor $s:"
			grep -E -e "\[[0-9]+\] $s:" -e "\($s\)" "$2" |
				head -n 5 | sed 's/^/    /'
			nfail=$((nfail + 1))
		elif sk=$(grep -E -m 1 "\[[0-9]+\] $s: .*skipping stressor" "$2"); then
			echo "skip $1: stressor $s: ${sk#*] }"
		elif grep -Eq "metrc: +\[[0-9]+\] $s +[0-9]" "$2"; then
			ok "$1: stressor $s"
		elif [ "$4" = 0 ]; then
			again="$again $s"
		else
			bad "$1: stressor $s did not run"
			grep -E "\[[0-9]+\] $s:" "$2" | head -n 3 | sed 's/^/    /'
			nfail=$((nfail + 1))
			norun=1
		fi
	done
	if [ "$norun" = 1 ]; then
		echo "    stress-ng's last words but metrics:"
		grep -v ' metrc: ' "$2" | tail -n 8 | sed 's/^/    /'
	fi
}

# quiet_failure DIR STATUS LOG: stress-ng failed without naming a
# stressor that failed (judge counts those in nfail)
quiet_failure() {
	if [ "$2" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		bad "$1: stress-ng exited $2:"
		tail -n 5 "$3" | sed 's/^/    /'
	fi
}

for d in fold plain; do
	log=$root/stress-$d.log
	use=$sizes
	stress "$d" "$log" "$use" "$stressors"
	rc=$?
	# The sizes suit Debian 12's stress-ng (0.15); another version may
	# reject one (a new minimum): then its defaults, which only take
	# longer to write.
	if [ "$rc" -ne 0 ] &&
		grep -Eq 'unrecognized option|out of range' "$log"; then
		echo "note: $(stress-ng --version 2>&1 | head -n 1):" \
			"$(grep -E -m 1 'unrecognized option|out of range' "$log");" \
			"again with its default sizes"
		use=""
		stress "$d" "$log" "$use" "$stressors"
		rc=$?
	fi
	nfail=0 again=""
	# A run stress-ng calls successful may end before some of the 42
	# stressors have started (seen against the TSan daemon: a block of
	# 11 or 21 of them with no line at all, not even the one some print
	# as they start): those run again by themselves, and then each must
	# give its result.  stress-ng starts them one at a time while the
	# started ones run, on 2 CPUs natively too: timed with -v, the 42
	# took 7.9 s to start natively, 9.0 s through the plain daemon and
	# 9.3 s through the TSan daemon; a slower daemon leaves the last
	# ones less of the run.
	if [ "$rc" -eq 0 ] && grep -q 'successful run completed' "$log"; then
		judge "$d" "$log" "$stressors" 0
	else
		judge "$d" "$log" "$stressors" 1
	fi
	quiet_failure "$d" "$rc" "$log"
	if [ -n "$again" ]; then
		echo "note: $d: no result from$again in the run of all" \
			"(stress-ng: $(grep -o 'successful run completed.*' "$log")):" \
			"again, by themselves"
		stress "$d" "$log.again" "$use" "$again"
		rc=$?
		judge "$d" "$log.again" "$again" 1
		quiet_failure "$d" "$rc" "$log.again"
	fi
	left=$(find "$src/$d" -mindepth 1 2>/dev/null | head -n 3)
	if [ -z "$left" ]; then
		ok "$d: nothing left in SOURCE"
	else
		bad "$d: left in SOURCE: $(echo "$left" | tr '\n' ' ')"
	fi
done

# FORGET comes as the kernel drops the inodes: give it a few rounds.  Two
# more are allowed: an indexed directory's node (fold, plain) may stay.
if [ "$can_forget" = 0 ]; then
	echo "skip descriptors held by the daemon: cannot write /proc/sys/vm/drop_caches"
else
	i=0
	while forget; after=$(fds | wc -l); [ "$after" -gt $((before + 2)) ]; do
		i=$((i + 1))
		[ "$i" -lt 5 ] || break
	done
	if [ "$after" -le $((before + 2)) ]; then
		ok "descriptors held by the daemon: $before before, $after after"
	else
		bad "the daemon holds $after descriptors, $before before the run:"
		fds | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/    /'
	fi
fi
# SOURCE's root, left out above: the root node's descriptor and the
# reserve pool (at most SPARE_MAX, 32, in fs/ops_entry.c); no call is in
# flight now to hold one more.
roots=$(for f in /proc/"$dpid"/fd/*; do readlink "$f"; done 2>/dev/null |
	grep -c -x -F "$src")
if [ "$roots" -ge 1 ] && [ "$roots" -le 33 ]; then
	ok "SOURCE's root held $roots times (the root node and a reserve of up to 32)"
else
	bad "SOURCE's root held $roots times (the root node and a reserve of up to 32)"
fi
view_unmount
finish
