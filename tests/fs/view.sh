# view.sh - what the shell test scripts under tests/fs (stress.sh,
# netbench.sh) share: their counts, and a foldfs view of SOURCE mounted
# with the daemon in the foreground, so that its exit status at the
# unmount can be checked (a sanitizer build exits non-zero on a report).
# Sourced, not run; the script sets foldfs, root, src and mnt first.

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
finish() { echo "$pass passed, $fail failed"; exit $((fail != 0)); }

# is $mnt a mount point (field 5 of mountinfo)
mounted() { awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }

# view_mount [OPTS]: foldfs $src $mnt [-o OPTS], its pid in dpid, its
# output in $root/daemon.log; run.sh kills it if the script dies.  A view
# that does not come up within 10 s ends the script.
view_mount() {
	"$foldfs" "$src" "$mnt" -f ${1:+-o "$1"} >"$root/daemon.log" 2>&1 &
	dpid=$!
	echo "$dpid" >>"$root/pids"
	i=0
	while ! mounted; do
		i=$((i + 1))
		if [ "$i" -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
			bad "foldfs did not mount $mnt${1:+ with -o $1}:"
			sed 's/^/    /' "$root/daemon.log"
			finish
		fi
		sleep 0.1
	done
}

# view_unmount [LABEL]: unmount $mnt; the daemon must exit 0
view_unmount() {
	if fusermount3 -u "$mnt"; then
		ok "${1:+$1: }unmounted"
	else
		bad "${1:+$1: }fusermount3 -u $mnt failed"
	fi
	wait "$dpid"
	vrc=$?
	if [ "$vrc" -eq 0 ]; then
		ok "${1:+$1: }foldfs exited 0"
	else
		bad "${1:+$1: }foldfs exited $vrc:"
		tail -n 40 "$root/daemon.log" | sed 's/^/    /'
	fi
}
