#!/bin/sh
# run-fuzz.sh NAME BINARY CORPUS SECONDS [SEED [MORE]] - run one libFuzzer
# target for SECONDS on CORPUS (created if missing; SEED, printf-style, is
# written into it as a valid starting input, or several: the text \036
# separates them; MORE, an existing corpus directory, is read as further
# seeds), show the end of its log (bytes that do not print as cat -v
# shows them), and close with "1 passed, 0 failed" or "0 passed,
# 1 failed" (crash inputs go to CORPUS/../crash-NAME-*).  Used by
# fuzz/fuzz-fs.mk and fuzz-kernel.
#
# The target runs with TMPDIR set to a directory of its own (in $TMPDIR,
# else /tmp), removed afterwards however the run ended: a target that
# works on real directories there leaves them behind when it stops at a
# failure (an immutable file included: fuzz-ioctl sets the flag).
set -u
name=$1 bin=$2 corpus=$3 secs=$4 seed=${5:-} more=${6:-}
mkdir -p "$corpus" || exit 2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/run-fuzz-$name.XXXXXX") || exit 2
# open to all: the targets act as other users in it
chmod 755 "$scratch" || exit 2
clean() {
	if command -v chattr >/dev/null 2>&1; then
		chattr -R -i -a "$scratch" >/dev/null 2>&1
	fi
	rm -rf "$scratch"
}
trap clean EXIT
trap 'exit 2' HUP INT TERM
i=
while [ -n "$seed" ]; do
	one=${seed%%'\036'*}
	printf "$one" >"$corpus/seed$i"
	[ "$one" = "$seed" ] && break
	seed=${seed#*'\036'}
	i=$((i + 1))
done
log=$corpus/../fuzz-$name.log
TMPDIR=$scratch "$bin" -max_len=512 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
	-max_total_time="$secs" -artifact_prefix="$corpus/../crash-$name-" \
	"$corpus" ${more:+"$more"} >"$log" 2>&1
rc=$?
grep -a -v -e '^#[0-9]' -e '^"' "$log" | tail -n 30 | cat -v
if [ $rc -eq 0 ]; then
	echo "fuzz-$name: $secs s, no failure"
	echo "1 passed, 0 failed"
else
	echo "fuzz-$name: FAILED (exit $rc), log $log"
	echo "0 passed, 1 failed"
	exit 1
fi
