/*
 * fuzz-hash.c - libFuzzer target for fold_validate and fold_hash.
 *
 * fold_validate is compared with the simple decoder below (written for
 * this target: decode, then reject overlong, surrogate, > U+10FFFF, NUL),
 * offsets included.  fold_hash must equal the hash of the name's key
 * (equivalent names hash alike), the z variants (fold_hashz,
 * fold_validatez, fold_keyz, fold_normalizez: the daemon's calls) must
 * agree with the sized calls on the bytes before the first NUL, and a name
 * must equal its key.  fold_key and fold_normalize into a buffer with room
 * for a whole piece (FS_OUTCAP, which they fill in place: the tools' case)
 * must give what they give into one of the exact size.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "fuzz-ctx.h"
#include "fold_stream.h"

static const struct fold_seed seed = {0x0123, 0x4567};

/* -1 if well formed, else the offset of the first byte of the first
 * ill-formed sequence. */
static long ref_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint32_t c = s[i], min;
		size_t len;

		if (c == 0)
			return (long)i;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC0 && c < 0xE0)
			len = 2, c &= 0x1F, min = 0x80;
		else if (c >= 0xE0 && c < 0xF0)
			len = 3, c &= 0x0F, min = 0x800;
		else if (c >= 0xF0 && c < 0xF8)
			len = 4, c &= 0x07, min = 0x10000;
		else
			return (long)i;
		/* a sequence is ill formed as soon as a byte cannot continue
		 * it: check each continuation and the partial value's range
		 * before reading further */
		for (size_t k = 1; k < len; k++) {
			if (i + k >= n || (s[i + k] & 0xC0) != 0x80)
				return (long)i;
			c = (c << 6) | (s[i + k] & 0x3F);
		}
		if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
			return (long)i;
		i += len;
	}
	return -1;
}

static long ref_ascii(const unsigned char *s, size_t n)
{
	const void *z = memchr(s, 0, n);

	return z ? (long)((const unsigned char *)z - s) : -1;
}

/* The NUL-terminated calls see s up to its first NUL: they must answer
 * as the sized ones do on those bytes. */
static void zvariants(const struct fold_ctx *c, const char *s, size_t n)
{
	size_t zn = strnlen(s, n), o1 = 0, o2 = 0;
	char *z = malloc(zn + 1), *a, *b;
	ssize_t k1, k2, m1, m2;

	if (!z)
		abort();
	memcpy(z, s, zn);
	z[zn] = 0;
	int v1 = fold_validate(c, z, zn, &o1), v2 = fold_validatez(c, z, &o2);
	k1 = fold_key(c, z, zn, NULL, 0);
	k2 = fold_keyz(c, z, NULL, 0);
	m1 = fold_normalize(c, z, zn, NULL, 0);
	m2 = fold_normalizez(c, z, NULL, 0);
	if (v1 != v2 || (v1 && o1 != o2) || k1 != k2 || m1 != m2) {
		fuzz_hex("a z variant differs (validate, key or normalize)", z,
			 zn);
		abort();
	}
	a = malloc(k1 > 0 ? (size_t)k1 : 1);
	b = malloc(k1 > 0 ? (size_t)k1 : 1);
	if (!a || !b)
		abort();
	if (k1 > 0 && (fold_key(c, z, zn, a, (size_t)k1) != k1 ||
		       fold_keyz(c, z, b, (size_t)k1) != k1 ||
		       memcmp(a, b, (size_t)k1))) {
		fuzz_hex("fold_keyz wrote another key", z, zn);
		abort();
	}
	free(a);
	free(b);
	free(z);
}

/* fold_key (key) or fold_normalize into at least FS_OUTCAP bytes, the
 * exact room the in-place path may use (ASan sees a write past it),
 * against the same call into a buffer of the result's size. */
static void roomy(const struct fold_ctx *c, const char *s, size_t n, int key)
{
	ssize_t r = key ? fold_key(c, s, n, NULL, 0)
			: fold_normalize(c, s, n, NULL, 0);
	size_t cap = r > FS_OUTCAP ? (size_t)r : FS_OUTCAP;
	char *a = malloc(cap), *b = malloc(r > 0 ? (size_t)r : 1);

	if (!a || !b)
		abort();
	if ((key ? fold_key(c, s, n, a, cap) : fold_normalize(c, s, n, a, cap))
		    != r ||
	    (r > 0 && ((key ? fold_key(c, s, n, b, (size_t)r)
			    : fold_normalize(c, s, n, b, (size_t)r)) != r ||
		       memcmp(a, b, (size_t)r)))) {
		fuzz_hex(key ? "fold_key into a large buffer differs"
			     : "fold_normalize into a large buffer differs",
			 s, n);
		abort();
	}
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fold_ctx c;
	const char *s = (const char *)data + 1;
	size_t n, off = 0;
	long want;
	int r;

	if (size < 1 || fuzz_ctx(data[0], size, &c))
		return 0;
	n = size - 1;
	want = c.charset == FOLD_CHARSET_ASCII ? ref_ascii(data + 1, n)
					       : ref_utf8(data + 1, n);
	r = fold_validate(&c, s, n, &off);
	if ((want < 0 && r != 0) ||
	    (want >= 0 && (r != FOLD_EILSEQ || off != (size_t)want))) {
		fuzz_hex("input", s, n);
		fprintf(stderr, "fold_validate = %d offset %zu; reference %ld\n",
			r, off, want);
		abort();
	}

	uint64_t h = fold_hash(&c, &seed, s, n);
	if (h != fold_hash(&c, &seed, s, n)) {
		fuzz_hex("hash not deterministic", s, n);
		abort();
	}
	if (!memchr(s, 0, n)) {
		char *z = malloc(n + 1);
		if (!z)
			abort();
		memcpy(z, s, n);
		z[n] = 0;
		if (fold_hashz(&c, &seed, z) != h) {
			fuzz_hex("hashz != hash", s, n);
			abort();
		}
		free(z);
	}
	zvariants(&c, s, n);
	roomy(&c, s, n, 1);
	roomy(&c, s, n, 0);
	/* the key is an equivalent name: same hash, equal (ascii: always) */
	ssize_t kn = fold_key(&c, s, n, NULL, 0);
	if (kn >= 0) {
		char *k = malloc((size_t)kn + 1);
		if (!k)
			abort();
		if (fold_key(&c, s, n, k, (size_t)kn) != kn)
			abort();
		/* long non-starter runs are cut (UAX #15 D4); the cut key is
		 * not promised to be closed, so only short runs here (and
		 * not the kernel's order, fuzz_closed) */
		if (want < 0 && fuzz_closed(&c) &&
		    (c.charset == FOLD_CHARSET_ASCII ||
		     fuzz_max_run(&c, s, n) <= 30) &&
		    (fold_hash(&c, &seed, k, (size_t)kn) != h ||
				 !fold_equal(&c, s, n, k, (size_t)kn))) {
			fuzz_hex("input", s, n);
			fuzz_hex("key", k, (size_t)kn);
			fprintf(stderr, "name and key differ in hash or "
					"equality\n");
			abort();
		}
		free(k);
	} else if (!(want >= 0 && kn == FOLD_EILSEQ &&
		     (c.flags & FOLD_STRICT))) {
		fuzz_hex("fold_key failed", s, n);
		abort();
	}
	return 0;
}
