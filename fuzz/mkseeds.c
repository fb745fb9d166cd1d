/*
 * mkseeds.c - writes the seed corpus of the libfold fuzz targets:
 * random names from tests/lib/randname.c (every kind), hand-picked
 * ill-formed ones, a few with marks on both sides of an ignorable and a
 * few that compose through the shared composition list,
 * each prefixed by a context selector byte (fuzz-ctx.h)
 * and, for the compare target, a split byte with two names.
 * Usage: mkseeds DIR TARGET COUNT   (TARGET: normalize, compare, hash)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "randname.h"

static const char *const bad[] = {
	"\xC0\x80", "\xE0\x80\x80", "\xF0\x80\x80\x80", "\xED\xA0\x80",
	"\xF4\x90\x80\x80", "\xF5\x80", "\xFE", "\xFF", "\x80", "\xC3",
	"\xE2\x82", "corac\xCC\xA7\xC3",
};

/* Marks out of canonical order on the two sides of an ignorable: what
 * FOLD_KERNEL_ORDER keeps apart (fuzz-ctx.h selector 1). */
static const char *const apart[] = {
	"a\xCC\x80\xE2\x80\x8C\xCC\x96",	/* U+0300 ZWNJ U+0316 */
	"\xCE\xB1\xCD\x85\xC2\xAD\xCC\x93",	/* U+0345 SHY U+0313 */
	"E\xCC\x81\xCD\x8F\xCC\xA3.txt",	/* U+0301 CGJ U+0323 */
};

/* A pair whose second element has no composition list of its own but
 * shares the last one (fold_data.h, FOLD_COMP_SHARED): U+11935 U+11930
 * composes to U+11938 (Dives Akuru, Unicode 13.0). */
static const char *const shared[] = {
	"\xF0\x91\xA4\xB5\xF0\x91\xA4\xB0",
	"x\xF0\x91\xA4\xB8y",
};

static size_t name(struct rn *r, char *out)
{
	uint32_t cps[32];
	size_t n;

	if (rn_below(r, 32) == 0) {
		const char *a = shared[rn_below(r, sizeof shared / sizeof *shared)];
		n = strlen(a);
		memcpy(out, a, n);
		return n;
	}

	if (rn_below(r, 16) == 0) {
		const char *a = apart[rn_below(r, sizeof apart / sizeof *apart)];
		n = strlen(a);
		memcpy(out, a, n);
		return n;
	}
	if (rn_below(r, 8) == 0) {
		const char *b = bad[rn_below(r, sizeof bad / sizeof *bad)];
		n = strlen(b);
		memcpy(out, "x", 1);
		memcpy(out + 1, b, n);
		return n + 1;
	}
	n = rn_cps(r, -1, cps, 1 + rn_below(r, 24));
	return u8_encode(cps, n, out);
}

int main(int argc, char **argv)
{
	struct rn r;
	unsigned long count;
	int compare;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("Usage: mkseeds DIR TARGET COUNT\n"
		     "Write COUNT seed inputs for fuzz target TARGET (normalize,\n"
		     "compare or hash) into the existing directory DIR.");
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: mkseeds DIR TARGET COUNT\n");
		return 2;
	}
	compare = !strcmp(argv[2], "compare");
	count = strtoul(argv[3], NULL, 10);
	rn_seed(&r, 0xF022ull + (unsigned char)argv[2][0]);
	for (unsigned long i = 0; i < count; i++) {
		char buf[512], path[4096];
		size_t n = 0;
		FILE *f;

		buf[n++] = (char)rn_below(&r, 256);
		if (compare) {
			char a[256], b[256];
			size_t an = name(&r, a), bn;

			/* half the pairs are two spellings of one name */
			if (rn_below(&r, 2)) {
				memcpy(b, a, an);
				bn = an;
				for (size_t k = 0; k < bn; k++)
					if (b[k] >= 'a' && b[k] <= 'z')
						b[k] -= 32;
			} else {
				bn = name(&r, b);
			}
			/* split byte so that (total * split / 255) == an */
			buf[n++] = (char)(an + bn ? (an * 255 + an + bn - 1) / (an + bn) : 0);
			memcpy(buf + n, a, an);
			memcpy(buf + n + an, b, bn);
			n += an + bn;
		} else {
			n += name(&r, buf + n);
		}
		snprintf(path, sizeof path, "%s/seed-%05lu", argv[1], i);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
			fprintf(stderr, "mkseeds: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}
