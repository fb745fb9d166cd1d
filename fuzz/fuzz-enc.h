/*
 * fuzz-enc.h - how the foldfs-check fuzz targets (fuzz-scan, fuzz-fix)
 * turn one input byte into an encoding and flags as foldfs-check takes
 * them: low 5 bits a Unicode version by index (past the last: "ascii"),
 * then strict, compat, ignorables.  Returns -1 for a pair libfold refuses.
 */
#ifndef FUZZ_ENC_H
#define FUZZ_ENC_H

#include <stdio.h>

#include "fold.h"

static inline int fuzz_enc(unsigned char sel, char *enc, size_t cap,
			   unsigned *flags)
{
	const char *const *v;
	size_t nv = fold_unicode_versions(&v);
	size_t i = (sel & 31u) % (nv + 1);
	struct fold_ctx t;

	if (i == nv)
		snprintf(enc, cap, "ascii");
	else
		snprintf(enc, cap, "utf8-%s", v[i]);
	*flags = (sel & 32u ? FOLD_STRICT : 0) | (sel & 64u ? FOLD_COMPAT : 0) |
		 (sel & 128u ? FOLD_IGNORABLES : 0);
	return fold_init(&t, enc, FOLD_CASEFOLD, *flags) == 0 ? 0 : -1;
}

#endif
