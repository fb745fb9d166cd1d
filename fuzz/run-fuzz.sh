#!/bin/sh
# run-fuzz.sh NAME BINARY CORPUS SECONDS [SEED [MORE]] - run one libFuzzer
# target for SECONDS on CORPUS (created if missing; SEED, printf-style, is
# written into it as a valid starting input, or several: the text \036
# separates them; MORE, an existing corpus directory, is read as further
# seeds), show the end of its log (bytes that do not print as cat -v
# shows them), and close with "1 passed, 0 failed" or "0 passed,
# 1 failed" (crash inputs go to CORPUS/../crash-NAME-*).  Used by
# fuzz/fuzz-fs.mk and fuzz-kernel.
set -u
name=$1 bin=$2 corpus=$3 secs=$4 seed=${5:-} more=${6:-}
mkdir -p "$corpus" || exit 2
i=
while [ -n "$seed" ]; do
	one=${seed%%'\036'*}
	printf "$one" >"$corpus/seed$i"
	[ "$one" = "$seed" ] && break
	seed=${seed#*'\036'}
	i=$((i + 1))
done
log=$corpus/../fuzz-$name.log
"$bin" -max_len=512 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
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
