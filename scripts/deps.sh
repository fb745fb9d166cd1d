#!/bin/sh
# deps.sh PROFILE - make sure the Debian packages a make target needs are
# installed.  As root, installs what is missing (apt-get update first);
# otherwise prints the exact apt-get line and fails.
#   build : compile libfold and the tools
#   check : everything make check needs (tests, ICU/utf8proc peers, clang
#           sanitizers and libFuzzer, FUSE, chattr/lsattr, UCD data, mkfs
#           for xfs and btrfs (fs-otherfs puts SOURCE on them), strace
#           (foldfs-check's walk counts its opens), valgrind (its scaling
#           tests count instructions, not time), stress-ng (fs-stress),
#           dbench (fs-netbench), xz for the kernel's source (lib-kernel),
#           the s390x cross compiler and qemu for the big-endian suite)
#   demo  : build + mount the demo view (pgrep, from procps, which minimal
#           images such as Docker's debian:bookworm lack: the demo waits
#           for the daemon to exit after the unmount)
#   bigendian : tests/lib/check-bigendian.sh (s390x cross compiler, qemu)
#   bench : check + what the benchmarks need
#   all   : every package above
set -eu
profile=${1:-all}
# The sanitizer and libFuzzer runtimes of the distribution's default clang
# (clang-14 on Debian 12, clang-19 on Debian 13).
# Read from the installed clang, else from apt's lists, which a fresh
# machine may not have yet: as root, fetch them first (an empty answer must
# not fall back to Debian 12's version on Debian 13).
llvm_of() {
	{ dpkg-query -W -f='${Depends}\n' clang 2>/dev/null
	  apt-cache depends clang 2>/dev/null; } |
		grep -o 'clang-[0-9][0-9]*' | head -n 1 | sed 's/^clang-//'
}
llvm=$(llvm_of)
case "$profile" in check | bench | all)
	if [ -z "$llvm" ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq >/dev/null 2>&1 || true
		llvm=$(llvm_of)
	fi ;;
esac
if [ -z "$llvm" ]; then
	case $(. /etc/os-release 2>/dev/null && echo "${VERSION_ID:-}") in
	13) llvm=19 ;;
	*) llvm=14 ;;
	esac
fi
build="gcc libc6-dev make pkg-config libfuse3-dev"
bigendian="gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user unicode-data bzip2 python3"
# (unicode-data, bzip2 and python3 come with $bigendian)
check="$build libicu-dev libutf8proc-dev clang libclang-rt-${llvm}-dev g++ fuse3 e2fsprogs xfsprogs btrfs-progs attr xz-utils strace valgrind stress-ng dbench $bigendian"
demo="$build fuse3 e2fsprogs attr procps"
case "$profile" in
build) want=$build ;;
check) want=$check ;;
demo) want=$demo ;;
bigendian) want=$bigendian ;;
bench) want=$check ;;
all) want="$check procps" ;;
*) echo "deps.sh: unknown profile '$profile' (build|check|demo|bigendian|bench|all)" >&2; exit 2 ;;
esac
missing=""
for p in $want; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "foldfs: missing Debian packages:$missing" >&2
	echo "foldfs: run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "foldfs: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
