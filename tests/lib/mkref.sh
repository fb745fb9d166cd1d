#!/bin/sh
# mkref.sh OUT OBJ... - link libfold's objects built with -DFOLD_NO_LANES
# into one object OUT whose internal (hidden) symbols are local and whose
# API is renamed ref_fold_*: lib-lanes' reference copy, linked beside the
# library itself.  $LD, $OBJCOPY and $NM name the tools (a cross
# toolchain's in check-bigendian.sh).  Used by tests/lib/suite.mk,
# newer-ucd.sh and check-bigendian.sh.
set -eu
out=$1
shift
"${LD:-ld}" -r -o "$out.all.o" "$@"
"${OBJCOPY:-objcopy}" --localize-hidden "$out.all.o" "$out.loc.o"
"${NM:-nm}" -g --defined-only "$out.loc.o" | awk '{ print $3, "ref_" $3 }' >"$out.syms"
"${OBJCOPY:-objcopy}" --redefine-syms="$out.syms" "$out.loc.o" "$out"
rm -f "$out.all.o" "$out.loc.o" "$out.syms"
