# view.sh - what the shell test scripts under tests/fs (stress.sh,
# netbench.sh) share: their counts, and a foldfs view of SOURCE mounted
# with the daemon in the foreground, so that its exit status at the
# unmount can be checked (a sanitizer build exits non-zero on a report).
# Sourced, not run; the script sets src and mnt before it mounts.

# view_args ARGS...: the options every script takes, into foldfs, root
# and secs (--watchdog is run.sh's, ignored; --help prints the script's
# header comment); any other goes to the script's own script_opt OPT
# VALUE, which returns 1 for one it does not know.  Without --foldfs and
# --root: the script's $usage line, exit 2.
view_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--foldfs) foldfs=$2; shift 2 ;;
		--root) root=$2; shift 2 ;;
		--watchdog) shift 2 ;; # run.sh's timeout bounds us
		--seconds) secs=$2; shift 2 ;;
		-h | --help)
			sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
			exit 0 ;;
		*)
			if [ $# -ge 2 ] && script_opt "$1" "$2"; then
				shift 2
			else
				echo "${0##*/}: unknown argument '$1' (see --help)" >&2
				exit 2
			fi ;;
		esac
	done
	if [ -z "$foldfs" ] || [ -z "$root" ]; then
		echo "usage: $usage" >&2
		exit 2
	fi
}

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
