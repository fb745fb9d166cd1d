/*
 * fuzz-compare.c - libFuzzer target for fold_cmp/fold_equal/fold_hash.
 *
 * Input: [ctx selector][split byte][bytes...]; the bytes are cut into two
 * names at a point chosen by the split byte.  Invariants: the sign of
 * fold_cmp(a, b) is that of memcmp of fold_key(a), fold_key(b) (shorter
 * prefix first); fold_cmp is antisymmetric; fold_equal == (fold_cmp == 0);
 * equal names hash equal; a name equals itself.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "fuzz-ctx.h"

static const struct fold_seed seed = {0xfeedface, 0xdeadbeef};

static char *key_of(const struct fold_ctx *c, const char *s, size_t n,
		    size_t *kn)
{
	ssize_t r = fold_key(c, s, n, NULL, 0), r2;
	char *k;

	if (r == FOLD_EILSEQ && (c->flags & FOLD_STRICT))
		return NULL;
	if (r < 0) {
		fuzz_hex("fold_key failed on", s, n);
		abort();
	}
	k = malloc((size_t)r + 1);
	if (!k)
		abort();
	r2 = fold_key(c, s, n, k, (size_t)r);
	if (r2 != r) {
		fuzz_hex("fold_key length changed between calls on", s, n);
		abort();
	}
	*kn = (size_t)r;
	return k;
}

static int sgn(int v)
{
	return (v > 0) - (v < 0);
}

static void zcompare(const struct fold_ctx *c, const char *a, size_t an,
		     const char *b, size_t bn)
{
	size_t azn = strnlen(a, an), bzn = strnlen(b, bn);
	char *az = malloc(azn + 1), *bz = malloc(bzn + 1);

	if (!az || !bz)
		abort();
	memcpy(az, a, azn);
	az[azn] = 0;
	memcpy(bz, b, bzn);
	bz[bzn] = 0;
	if (sgn(fold_cmpz(c, az, bz)) != sgn(fold_cmp(c, az, azn, bz, bzn)) ||
	    fold_equalz(c, az, bz) != fold_equal(c, az, azn, bz, bzn)) {
		fuzz_hex("fold_cmpz/fold_equalz differ: a", az, azn);
		fuzz_hex("b", bz, bzn);
		abort();
	}
	free(az);
	free(bz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fold_ctx c;
	const char *a, *b;
	size_t an, bn, kan = 0, kbn = 0;
	char *ka, *kb;
	int m, r1, r2, e;

	if (size < 2 || fuzz_ctx(data[0], size, &c))
		return 0;
	an = (size - 2) * data[1] / 255;
	a = (const char *)data + 2;
	b = a + an;
	bn = size - 2 - an;

	r1 = fold_cmp(&c, a, an, b, bn);
	r2 = fold_cmp(&c, b, bn, a, an);
	e = fold_equal(&c, a, an, b, bn);
	if (sgn(r1) != -sgn(r2) || e != (r1 == 0) ||
	    e != fold_equal(&c, b, bn, a, an)) {
		fuzz_hex("a", a, an);
		fuzz_hex("b", b, bn);
		fprintf(stderr, "cmp %d / %d, equal %d\n", r1, r2, e);
		abort();
	}
	if (fold_cmp(&c, a, an, a, an) || !fold_equal(&c, b, bn, b, bn)) {
		fuzz_hex("not equal to itself", a, an);
		abort();
	}
	if (e && fold_hash(&c, &seed, a, an) != fold_hash(&c, &seed, b, bn)) {
		fuzz_hex("equal but hash differs: a", a, an);
		fuzz_hex("b", b, bn);
		abort();
	}
	zcompare(&c, a, an, b, bn);
	ka = key_of(&c, a, an, &kan);
	kb = key_of(&c, b, bn, &kbn);
	if (ka && kb) {
		m = memcmp(ka, kb, kan < kbn ? kan : kbn);
		if (!m)
			m = (kan > kbn) - (kan < kbn);
		if (sgn(m) != sgn(r1)) {
			fuzz_hex("a", a, an);
			fuzz_hex("b", b, bn);
			fuzz_hex("key a", ka, kan);
			fuzz_hex("key b", kb, kbn);
			fprintf(stderr, "fold_cmp %d but keys compare %d\n", r1,
				m);
			abort();
		}
	}
	free(ka);
	free(kb);
	return 0;
}
