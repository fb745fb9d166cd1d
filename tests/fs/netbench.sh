#!/bin/sh
# netbench.sh --foldfs PATH --root DIR [--watchdog SECS] [--seconds N]
#              [--clients N] -
# dbench's NetBench load (a trace of Windows clients on a file server:
# creates, opens, renames, unlinks, directory scans, locks, DOS attributes
# in xattrs) through a foldfs view, with every path in random case, as
# SMB clients send them: each line of the trace spells the names its own
# way, so a name is created in one case and opened, renamed and removed in
# others, and lookups of names not yet created leave negative dentries
# under spellings that later exist.
#
# dbench stops with an error where an open, unlink or rename gets another
# answer than the trace recorded on Windows.  So, on one mount:
#   plain directory, names as recorded: must pass (dbench works here);
#   plain directory, random case: must fail (else the load tests nothing);
#   folding directory (chattr +F), random case: must pass;
# then on a second mount with -o casefold,cache=epoch (lookups answered
# from the kernel's dentry cache) the random-case load at its root.  The
# random-case runs last --seconds (default 8), the plain ones 3 s; every
# run has --clients clients (default 4), each a process with its own tree.
# After each: nothing but dbench's directories left in SOURCE (its
# clean-up removes the files), the tree removable through the view, a
# clean unmount and the daemon's exit 0 (a sanitizer build exits non-zero
# on a report).  Run by tests/fs/run.sh, which gives the scratch dir and
# cleans up.  Needs /dev/fuse and dbench (its loadfile client.txt).
set -u
foldfs="" root="" secs=8 clients=4
usage="netbench.sh --foldfs PATH --root DIR [--seconds N] [--clients N]"
script_opt() { case $1 in --clients) clients=$2 ;; *) return 1 ;; esac; }
. "$(dirname "$0")/view.sh"
view_args "$@"
load=/usr/share/dbench/client.txt
if ! command -v dbench >/dev/null 2>&1 || [ ! -r "$load" ]; then
	bad "dbench or its $load is missing (apt-get install dbench; make check installs it)"
	finish
fi

# The trace with every quoted path but its "\clients\client1" prefix
# (dbench puts each client's number there) in random case, the same
# every run: a 32-bit LCG, exact in awk's doubles.
mixed=$root/mixed-case.txt
awk 'BEGIN { x = 1; pre = "\\clients\\client1" }
function mix(s,    i, c, t) {
	t = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		x = (x * 69069 + 1) % 4294967296
		t = t (int(x / 65536) % 2 ? toupper(c) : tolower(c))
	}
	return t
}
{
	line = $0; out = ""
	while (match(line, /"[^"]*"/)) {
		q = substr(line, RSTART + 1, RLENGTH - 2)
		if (substr(q, 1, length(pre)) == pre)
			q = pre mix(substr(q, length(pre) + 1))
		else
			q = mix(q)
		out = out substr(line, 1, RSTART - 1) "\"" q "\""
		line = substr(line, RSTART + RLENGTH)
	}
	print out line
}' "$load" >"$mixed" || { bad "cannot write $mixed"; finish; }
if cmp -s "$load" "$mixed"; then
	bad "the random-case trace is the trace itself"
	finish
fi

src=$root/src mnt=$root/mnt
mkdir -p "$src" "$mnt" || { bad "cannot make $src, $mnt"; finish; }
# dbench with loadfile $1 in directory $2 for $3 s; its output in $4;
# exit status dbench's.  $clients clients (processes), DOS attributes in
# xattrs.  When one client fails dbench exits and the others run on: it
# runs in a process group of its own, killed after it.  (run.sh's
# watchdog bounds a hang.)
dbench_in() {
	setsid dbench -x -c "$1" -D "$2" -t "$3" "$clients" >"$4" 2>&1 &
	db=$!
	echo "$db" >>"$root/pids"
	wait "$db"
	dbrc=$?
	kill -KILL -- "-$db" 2>/dev/null
	while kill -0 -- "-$db" 2>/dev/null; do sleep 0.1; done
	return "$dbrc"
}
# What dbench said went wrong (its first 5 such lines), from log $1.
# dbench 4.0 takes a SysV semaphore id of 0 for a failure of semget,
# says "failed to create barrier semaphore" and goes on with it (a real
# failure, -1, ends it at the next line's semop): the first semaphore
# since boot gets id 0, so on a fresh machine the first run says so.
# Not a complaint.
complaints() {
	grep -E 'ERROR|failed|expected' "$1" |
		grep -v '^failed to create barrier semaphore' | head -n 5 |
		sed 's/^/    /'
}
# must_pass LABEL STATUS LOG: dbench exited 0, said nothing went wrong,
# and printed its throughput (it ran)
must_pass() {
	said=$(complaints "$3")
	if [ "$2" -eq 0 ] && [ -z "$said" ] &&
		grep -q '^Throughput' "$3"; then
		ok "$1: $(grep '^Throughput' "$3")"
	else
		bad "$1: dbench exited $2:"
		if [ -n "$said" ]; then
			echo "$said"
		else
			tail -n 5 "$3" | sed 's/^/    /'
		fi
	fi
}
# $1: nothing but directories left in SOURCE's $2 (dbench unlinks its
# files as it ends); then the tree removed through the view's $2 (by
# another spelling than the one it was made with).  (The encoding record
# SOURCE/.foldfs is not dbench's.)
left_none() {
	d=${2:+/$2}
	files=$(find "$src$d" ! -type d ! -path "$src$d/.foldfs" 2>/dev/null |
		head -n 3)
	if [ -z "$files" ]; then
		ok "$1: only directories left in SOURCE"
	else
		bad "$1: left in SOURCE: $(echo "$files" | tr '\n' ' ')"
	fi
	rm -rf "$mnt$d/clients" 2>"$root/rm.log"
	if [ -z "$(find "$src$d" -mindepth 1 ! -path "$src$d/.foldfs" 2>/dev/null |
		head -n 1)" ]; then
		ok "$1: the tree removed through the view"
	else
		bad "$1: rm -rf through the view left $(find "$src$d" -mindepth 1 ! -path "$src$d/.foldfs" | wc -l) entries:"
		sed 's/^/    /' "$root/rm.log" | head -n 3
	fi
}

view_mount
mkdir "$mnt/fold" "$mnt/plain" && chattr +F "$mnt/fold" &&
	lsattr -d "$mnt/fold" | grep -q '^[^ ]*F' ||
	{ bad "could not make a folding directory"; finish; }

log=$root/plain-exact.log
dbench_in "$load" "$mnt/plain" 3 "$log"
must_pass "plain directory, names as recorded" $? "$log"

log=$root/plain-mixed.log
dbench_in "$mixed" "$mnt/plain" 3 "$log"
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'No such file or directory' "$log"; then
	ok "plain directory, random case: dbench fails, as on any case-sensitive directory"
else
	bad "plain directory, random case: dbench exited $rc without a missing name: the load does not need folding"
	complaints "$log"
fi
rm -rf "$mnt/plain"/* # (dbench made both clients and a spelling of it)

log=$root/fold.log
dbench_in "$mixed" "$mnt/fold" "$secs" "$log"
must_pass "folding directory, random case, ${secs} s" $? "$log"
left_none "folding directory" fold
rmdir "$mnt/fold" "$mnt/plain" || bad "cannot remove fold, plain"
view_unmount "chattr +F"

view_mount casefold,cache=epoch
log=$root/epoch.log
dbench_in "$mixed" "$mnt" "$secs" "$log"
must_pass "-o casefold,cache=epoch, random case, ${secs} s" $? "$log"
left_none "-o casefold,cache=epoch" ""
view_unmount "-o casefold,cache=epoch"
finish
