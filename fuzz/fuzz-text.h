/*
 * fuzz-text.h - the fuzz targets' own reading of "printable text", what
 * the tools' and the daemon's escaping promises: no C0 or C1 control, no
 * DEL, no bidirectional control, no line or paragraph separator.  Kept
 * apart from common/u8.c's u8_unsafe(), which the targets test.
 */
#ifndef FUZZ_TEXT_H
#define FUZZ_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "u8.h"

static inline int fz_unsafe(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	       cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x061c;
}

/* Is s[0..n) well-formed UTF-8 (u8_decode, which fuzz-u8 checks against
 * libfold's validator) without an fz_unsafe() character? */
static inline int fz_printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = u8_decode((const unsigned char *)s + i, n - i, &cp);
		if (!l || fz_unsafe(cp))
			return 0;
		i += l;
	}
	return 1;
}

#endif
