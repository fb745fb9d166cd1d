/*
 * siphash.c - SipHash-1-3 for the benchmark's peer hashing (siphash.h).
 * Follows the SipHash paper's description: state v0..v3 from the key and
 * the "somepseudorandomlygeneratedbytes" constants, little-endian 8-byte
 * words, the length in the top byte of the last word.
 */
#include "siphash.h"

#include <string.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND                                                             \
	do {                                                                 \
		v0 += v1;                                                    \
		v1 = ROTL(v1, 13);                                           \
		v1 ^= v0;                                                    \
		v0 = ROTL(v0, 32);                                           \
		v2 += v3;                                                    \
		v3 = ROTL(v3, 16);                                           \
		v3 ^= v2;                                                    \
		v0 += v3;                                                    \
		v3 = ROTL(v3, 21);                                           \
		v3 ^= v0;                                                    \
		v2 += v1;                                                    \
		v1 = ROTL(v1, 17);                                           \
		v1 ^= v2;                                                    \
		v2 = ROTL(v2, 32);                                           \
	} while (0)

/* Eight bytes as a little-endian word: one load (as libfold's own
 * fold_load8), so the peers' hashing costs what libfold's does. */
static uint64_t load_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

uint64_t bench_siphash13(uint64_t k0, uint64_t k1, const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t v0 = 0x736f6d6570736575ull ^ k0;
	uint64_t v1 = 0x646f72616e646f6dull ^ k1;
	uint64_t v2 = 0x6c7967656e657261ull ^ k0;
	uint64_t v3 = 0x7465646279746573ull ^ k1;
	uint64_t m, b = (uint64_t)n << 56;
	size_t i, k = n & 7;

	for (i = 0; i + 8 <= n; i += 8) {
		m = load_le64(p + i);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	/* the last k bytes: from the word that ends with them when there is
	 * one (a single load, no read past the buffer), else byte by byte */
	if (k && n >= 8)
		b |= load_le64(p + n - 8) >> (8 * (8 - k));
	else
		for (size_t j = 0; j < k; j++)
			b |= (uint64_t)p[i + j] << (8 * j);
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}
