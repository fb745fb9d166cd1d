/*
 * fuzz-u8.c - the command-line tools' UTF-8 decoder (tools/u8.c), which
 * foldfs-check and foldfs-norm use to show and escape names, against
 * libfold's validator: walking a string with u8_decode() must stop at
 * exactly the offset fold_validate() reports (a NUL byte counts as ill
 * formed for both), and every character it accepts must be the shortest
 * encoding of a scalar value, re-encoding to the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "u8.h"

static size_t encode(uint32_t cp, unsigned char *o)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | cp >> 18);
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

static void fail(const char *what, const uint8_t *d, size_t n, size_t at)
{
	fprintf(stderr, "fuzz-u8: %s at offset %zu; input:", what, at);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %02x", d[i]);
	fputc('\n', stderr);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fold_ctx ctx;
	static int ready;
	size_t i = 0, bad = size, want = size;
	int ok;

	if (!ready) {
		if (fold_init(&ctx, "utf8", FOLD_NFD, 0) != 0)
			abort();
		ready = 1;
	}
	while (i < size) {
		uint32_t cp;
		unsigned char re[4];
		size_t l = data[i] ? u8_decode(data + i, size - i, &cp) : 0;

		if (!l) {
			bad = i;
			break;
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    encode(cp, re) != l || memcmp(re, data + i, l))
			fail("u8_decode accepted a non-shortest or non-scalar "
			     "sequence", data, size, i);
		i += l;
	}
	ok = fold_validate(&ctx, (const char *)data, size, &want) == 0;
	if (ok != (bad == size) || (!ok && want != bad))
		fail(ok ? "u8_decode refused a string libfold accepts"
			: "u8_decode and fold_validate stop at different "
			  "offsets",
		     data, size, bad);
	return 0;
}
