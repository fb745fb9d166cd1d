/*
 * u8.c - decoding one UTF-8 character for display.  The tools and the
 * record's printer escape what is not safe to print; that decision must not
 * depend on a context's charset (an "ascii" tree still shows "é" as a
 * letter), so it uses this small decoder rather than libfold.  Same
 * validity rule as libfold: shortest form, no surrogates, at most U+10FFFF.
 */
#include "u8.h"

size_t u8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0];
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, c &= 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

int u8_unsafe(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	       cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

size_t u8_escape1(const unsigned char *s, size_t n, char *out, size_t *used)
{
	uint32_t cp = 0;
	size_t l = u8_decode(s, n, &cp), o = 0;

	if (!l || u8_unsafe(cp)) {
		static const char hex[] = "0123456789abcdef";

		*used = l ? l : 1;
		for (size_t k = 0; k < *used; k++) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[s[k] >> 4];
			out[o++] = hex[s[k] & 15];
		}
		return o;
	}
	*used = l;
	if (cp == '\\') {
		out[0] = out[1] = '\\';
		return 2;
	}
	for (; o < l; o++)
		out[o] = (char)s[o];
	return l;
}

void u8_fput_esc(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		char e[U8_ESC_MAX];
		size_t used, l = u8_escape1(p + i, n - i, e, &used);

		fwrite(e, 1, l, f);
		i += used;
	}
}
