#!/bin/sh
# demo.sh BUILD - a guided tour of foldfs ("make demo").  Builds a small
# tree shaped like a Windows game install in a temporary directory, mounts
# a folding view of it with BUILD/foldfs -o casefold, shows paths written
# in other cases and other Unicode normalizations resolving, the original
# spellings kept, the casefold flag and the encoding record, then unmounts
# and removes everything.  Exit 0 on success; on any failure a message and
# a non-zero status (the mount is cleaned up either way).
set -u

build=${1:-build}
case "$build" in /*) ;; *) build=$(pwd)/$build ;; esac
foldfs=$build/foldfs

say() { printf '\n==> %s\n' "$*"; }
show() { printf '    $ %s\n' "$*"; }
fail() {
	printf '\ndemo: FAILED: %s\n' "$*" >&2
	exit 1
}

if [ ! -x "$foldfs" ]; then
	echo "demo: $foldfs not found; run 'make' first (make demo does)" >&2
	exit 1
fi
command -v fusermount3 >/dev/null || fail "fusermount3 not installed (apt-get install fuse3)"
# Without pgrep the wait for the daemon's exit at the end would pass unseen.
command -v pgrep >/dev/null || fail "pgrep not installed (apt-get install procps)"
[ -e /dev/fuse ] || fail "/dev/fuse missing: this machine cannot mount FUSE filesystems"

demo=$(mktemp -d /tmp/foldfs-demo.XXXXXX) || fail "mktemp"
src=$demo/Game
mnt=$demo/view
cleanup() {
	if grep -q " $mnt " /proc/self/mountinfo 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt" 2>/dev/null
	fi
	rm -rf --one-file-system "$demo"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mounted() { grep -q " $mnt " /proc/self/mountinfo; }

# expect DESCRIPTION WANT COMMAND... : run, print its output, compare.
expect() {
	what=$1 want=$2
	shift 2
	got=$("$@" 2>&1) || fail "$what: '$*' failed: $got"
	printf '%s\n' "$got" | sed 's/^/      /'
	[ "$got" = "$want" ] || fail "$what: expected '$want', got '$got'"
}

# Names with non-ASCII bytes are written with octal escapes so that this
# script does not depend on how it is stored or displayed.
cafe_nfd=$(printf 'Cafe\314\201 Menu.txt')	# e + COMBINING ACUTE (NFD)
cafe_nfc_up=$(printf 'CAF\303\211 MENU.TXT')	# precomposed capital E-acute
hangul_jamo=$(printf '\341\204\222\341\205\241\341\206\253\341\204\200\341\205\263\341\206\257.txt')
hangul_syl=$(printf '\355\225\234\352\270\200.TXT') # the same word, two syllables
emoji=$(printf '\360\237\216\256 Controls.cfg')
emoji_up=$(printf '\360\237\216\256 CONTROLS.CFG')
strasse=$(printf 'Stra\303\237e.map')

say "Building a sample game install in $src (an ordinary, case-sensitive directory)"
mkdir -p "$src/Data/Textures" "$src/Data/Sounds" "$src/Saves" "$src/Maps" || fail "mkdir"
echo "brick wall, 1024x1024" >"$src/Data/Textures/Wall.DDS"
echo "stone floor" >"$src/Data/Textures/Floor.dds"
echo "intro music" >"$src/Data/Sounds/Intro.OGG"
echo "level 7, 3 lives" >"$src/Saves/Profile1.sav"
echo "espresso 2.50" >"$src/$cafe_nfd"
echo "annyeong" >"$src/$hangul_jamo"
echo "jump = space" >"$src/$emoji"
echo "city map" >"$src/Maps/$strasse"
show "find $src -type f"
(cd "$src" && find . -type f | sort | sed 's/^/      /')
printf '%s\n' "    The Windows program asks for data\\textures\\wall.dds - on Linux that is"
echo "    ENOENT, because the file is called Wall.DDS:"
show "cat $src/data/textures/wall.dds"
if cat "$src/data/textures/wall.dds" >/dev/null 2>&1; then
	fail "the SOURCE tree is itself case-insensitive; the demo needs a case-sensitive one"
fi
echo "      cat: ...: No such file or directory"

say "Mounting a folding view of it: foldfs SOURCE MOUNTPOINT -o casefold"
mkdir "$mnt" || fail "mkdir $mnt"
show "foldfs $src $mnt -o casefold"
out=$("$foldfs" "$src" "$mnt" -o casefold 2>&1) || fail "foldfs exited with status $?: $out"
i=0
while ! mounted; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "the view did not appear in /proc/self/mountinfo within 10 s"
	sleep 0.1
done
echo "    mounted; foldfs runs in the background until the view is unmounted."

say "Other cases resolve to the stored files"
show "cat $mnt/data/textures/wall.dds"
expect "lower-case path" "brick wall, 1024x1024" cat "$mnt/data/textures/wall.dds"
show "cat $mnt/DATA/TEXTURES/FLOOR.DDS"
expect "upper-case path" "stone floor" cat "$mnt/DATA/TEXTURES/FLOOR.DDS"
show "cat $mnt/saves/PROFILE1.SAV"
expect "mixed-case path" "level 7, 3 lives" cat "$mnt/saves/PROFILE1.SAV"

say "So do other Unicode normalizations and full case folding"
echo "    '$cafe_nfd' is stored decomposed (e + U+0301); ask for it precomposed"
echo "    and upper-cased:"
show "cat \"$mnt/$cafe_nfc_up\""
expect "NFC upper-case spelling of an NFD name" "espresso 2.50" cat "$mnt/$cafe_nfc_up"
echo "    A Korean name stored as conjoining jamo, asked for as precomposed syllables:"
show "cat \"$mnt/$hangul_syl\""
expect "Hangul syllables vs jamo" "annyeong" cat "$mnt/$hangul_syl"
echo "    German sharp s folds to ss, emoji pass through untouched:"
show "cat $mnt/maps/STRASSE.MAP"
expect "sharp s" "city map" cat "$mnt/maps/STRASSE.MAP"
show "cat \"$mnt/$emoji_up\""
expect "emoji name" "jump = space" cat "$mnt/$emoji_up"
show "stat -c '%i %n' (inode numbers: one file, many spellings)"
a=$(stat -c %i "$mnt/Data/Textures/Wall.DDS") || fail "stat"
b=$(stat -c %i "$mnt/data/textures/WALL.dds") || fail "stat"
printf '      %s Data/Textures/Wall.DDS\n      %s data/textures/WALL.dds\n' "$a" "$b"
[ "$a" = "$b" ] || fail "two spellings gave different inodes ($a, $b)"

say "Listings keep the original spellings"
show "ls -R $mnt"
ls -R "$mnt" | sed 's/^/      /' || fail "ls -R"
[ "$(ls "$mnt/Data/Textures")" = "$(printf 'Floor.dds\nWall.DDS')" ] ||
	fail "ls shows other spellings than the stored ones"

say "New names are stored exactly as the program writes them"
show "echo 'level 1' > $mnt/saves/profile2.SAV"
echo "level 1" >"$mnt/saves/profile2.SAV" || fail "creating saves/profile2.SAV"
show "ls $src/Saves        (SOURCE, no folding)"
ls "$src/Saves" | sed 's/^/      /'
[ -f "$src/Saves/profile2.SAV" ] || fail "profile2.SAV not stored under Saves/ as written"
echo "    ...and a name equivalent to an existing one is refused, as on Windows:"
show "mkdir $mnt/DATA"
if out=$(mkdir "$mnt/DATA" 2>&1); then
	fail "mkdir DATA succeeded beside Data"
fi
echo "      $out"

say "Changing only the case of a stored name"
echo "    mv cannot (the kernel sees one file under both names); foldfs --respell can:"
show "foldfs --respell $mnt/saves/profile2.SAV Profile2.sav"
out=$("$foldfs" --respell "$mnt/saves/profile2.SAV" Profile2.sav 2>&1) ||
	fail "foldfs --respell: $out"
show "ls $src/Saves        (SOURCE)"
ls "$src/Saves" | sed 's/^/      /'
[ -f "$src/Saves/Profile2.sav" ] && [ ! -e "$src/Saves/profile2.SAV" ] ||
	fail "--respell did not change the stored spelling"
show "cat $mnt/saves/profile2.SAV   (the old spelling still finds it)"
expect "the old spelling still finds it" "level 1" cat "$mnt/saves/profile2.SAV"

say "Every directory of the view carries the casefold flag (chattr/lsattr 'F')"
show "lsattr -d $mnt/Data $mnt/Saves"
out=$(lsattr -d "$mnt/Data" "$mnt/Saves" 2>&1) || fail "lsattr: $out"
printf '%s\n' "$out" | sed 's/^/      /'
printf '%s\n' "$out" | awk '$1 !~ /F/ { bad = 1 } END { exit bad }' ||
	fail "lsattr does not show F on every directory"

say "The tree records which Unicode version its names were compared under"
show "foldfs --info $src"
out=$("$foldfs" --info "$src" 2>&1) || fail "foldfs --info: $out"
printf '%s\n' "$out" | sed 's/^/      /'
printf '%s\n' "$out" | grep -q 'utf8-12\.1' || fail "--info does not show the utf8-12.1 record"
echo "    (kept in $src/.foldfs, which the view hides)"
[ -e "$mnt/.foldfs" ] && fail ".foldfs is visible in the view"

say "Unmounting"
show "fusermount3 -u $mnt"
out=$(fusermount3 -u "$mnt" 2>&1) || fail "fusermount3 -u: $out"
i=0
while pgrep -f "foldfs $src $mnt" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "foldfs still running 10 s after unmount"
	sleep 0.1
done
mounted && fail "still mounted after fusermount3 -u"
echo "    done: the view is gone, the game tree is untouched. Removing $demo."
echo
echo "demo finished successfully."
exit 0
