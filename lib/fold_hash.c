/*
 * fold_hash.c - fold_hash(): SipHash-1-3 of a name's key, fed from the
 * key stream as it is produced.
 *
 * The context (charset, version, form, flags but FOLD_STRICT) is folded
 * into the SipHash key, so the same name hashes differently under
 * different contexts and a table built under one context cannot be probed
 * with another's hashes.
 */
#include "fold_internal.h"
#include "fold_stream.h"

#include <string.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

struct sip {
	uint64_t v0, v1, v2, v3;
};

static inline void sipround(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL(s->v2, 32);
}

static inline void sipword(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sipround(s);
	s->v0 ^= m;
}

/* The last k < 8 bytes of a piece, at p, as a little-endian word: one
 * load (the bytes after them masked off) when the buffer has 8 bytes of
 * room from p, else byte by byte. */
static inline uint64_t tail_word(const unsigned char *p, unsigned k,
				 size_t room)
{
	uint64_t t = 0;
	unsigned i;
	if (room >= 8)
		return fold_load8(p) & ((1ull << (8 * k)) - 1);
	for (i = 0; i < k; i++)
		t |= (uint64_t)p[i] << (8 * i);
	return t;
}

/* A name of ASCII without NUL has itself as its key under every charset,
 * form and version, A-Z folded in the folding forms: hashed straight from
 * the name, a word at a time.  Returns 0 with *h the state before the
 * finalization and *tail its last word, or -1 (the state spoiled) at the
 * first byte that is not ASCII or is NUL. */
static int hash_ascii(struct sip *h, const unsigned char *p, size_t n,
		      int fold, uint64_t *tail)
{
	size_t i = 0, k = n & 7;
	uint64_t w;
	for (; i + 8 <= n; i += 8) {
		w = fold_load8(p + i);
		if (fold_special8(w))
			return -1;
		sipword(h, fold ? fold_lower8(w) : w);
	}
	if (!k) {
		w = 0;
	} else if (n >= 8) {
		/* the last k bytes, from the word that ends with them */
		w = fold_load8(p + n - 8) >> (8 * (8 - k));
	} else {
		for (w = 0; i < n; i++)
			w |= (uint64_t)p[i] << (8 * i);
	}
	if (fold_special8(w) & ((1ull << (8 * k)) - 1))
		return -1;
	*tail = fold ? fold_lower8(w) : w;
	return 0;
}

/* The state for ctx and seed: the context is folded into the key. */
static inline void sip_start(struct sip *h, const struct fold_ctx *ctx,
			     const struct fold_seed *seed)
{
	uint64_t k0 = seed ? seed->k0 : 0, k1 = seed ? seed->k1 : 0;
	/* not FOLD_STRICT: it changes no key (ill-formed names are hashed
	 * as their bytes either way), so no hash */
	uint64_t cw = (uint64_t)ctx->charset | (uint64_t)ctx->form << 8 |
		      (uint64_t)ctx->age << 16 |
		      (uint64_t)(ctx->flags & ~(unsigned)FOLD_STRICT) << 24;
	k0 ^= cw;
	k1 ^= cw * 0x9E3779B97F4A7C15ull;
	h->v0 = k0 ^ 0x736f6d6570736575ull;
	h->v1 = k1 ^ 0x646f72616e646f6dull;
	h->v2 = k0 ^ 0x6c7967656e657261ull;
	h->v3 = k1 ^ 0x7465646279746573ull;
}

/* The hash of a key of total bytes whose last (partial) word is tail. */
static inline uint64_t sip_finish(struct sip *h, uint64_t tail, size_t total)
{
	tail |= (uint64_t)total << 56;
	sipword(h, tail);
	h->v2 ^= 0xff;
	sipround(h);
	sipround(h);
	sipround(h);
	return h->v0 ^ h->v1 ^ h->v2 ^ h->v3;
}

uint64_t fold_hash(const struct fold_ctx *ctx, const struct fold_seed *seed,
		   const char *s, size_t n)
{
	struct fstream fs;
	struct sip h;
	uint64_t tail = 0;
	size_t total = 0;
	unsigned k, ntail = 0;
	if (!fold_ctx_ok(ctx) || (!s && n))
		return 0;
	/* (NULL, 0): hash_ascii takes it without touching the pointer; the
	 * reference build, which skips hash_ascii, must not offset NULL */
	if (FOLD_REFERENCE && !s)
		s = "";

	/* (a name whose first word, or first byte if it is shorter, is not
	 * ASCII without NUL is not worth a try) */
	if (!FOLD_REFERENCE && (n < 8 ? !(n && (unsigned char)*s >= 0x80) :
					!fold_special8(fold_load8(s)))) {
		sip_start(&h, ctx, seed);
		if (!hash_ascii(&h, (const unsigned char *)s, n,
				fs_variant(ctx->form) & 1, &tail)) {
			total = n;
			goto finish;
		}
		/* tail is still 0: hash_ascii sets it only on success */
	}
	/* the state is set up after the first piece, so that only seed
	 * lives across the call (the stream holds ctx and the name) */
	k = fs_first(&fs, ctx, s, n, FS_OUTCAP, NULL);
	sip_start(&h, fs.ctx, seed);
	if (fs.done && !FOLD_REFERENCE) {
		/* the whole key in one piece (names are short): hash it
		 * straight, without the piece-joining below */
		const unsigned char *p = fs.out;
		total = k;
		for (; k >= 8; k -= 8, p += 8)
			sipword(&h, fold_load8(p));
		tail = tail_word(p, k, sizeof(fs.buf) - (size_t)(p - fs.out));
		goto finish;
	}
	for (;;) {
		for (; k; k = fs_fill(&fs, FS_OUTCAP)) {
			const unsigned char *p = fs.out;
			total += k;
			/* top up a partial word left from the previous piece */
			while (ntail && ntail < 8 && k) {
				tail |= (uint64_t)*p++ << (8 * ntail++);
				k--;
			}
			if (ntail == 8) {
				sipword(&h, tail);
				tail = 0;
				ntail = 0;
			}
			for (; k >= 8; k -= 8, p += 8)
				sipword(&h, fold_load8(p));
			if (k) {
				/* only left when the top-up above emptied
				 * the partial word (ntail is 0) */
				tail = tail_word(p, k, sizeof(fs.buf) -
							       (size_t)(p - fs.out));
				ntail = k;
			}
			if (fs.done)
				break; /* the next fill would return 0 */
		}
		if (!fs.bad)
			break;
		/* ill formed after all: hash the raw bytes from scratch */
		sip_start(&h, fs.ctx, seed);
		tail = 0;
		ntail = 0;
		total = 0;
		fs_init(&fs, fs.ctx, (const char *)fs.beg,
			(size_t)(fs.end - fs.beg), 0);
		k = fs_fill(&fs, FS_OUTCAP);
	}
finish:
	return sip_finish(&h, tail, total);
}

uint64_t fold_hashz(const struct fold_ctx *ctx, const struct fold_seed *seed,
		    const char *s)
{
	if (!s)
		return 0;
	return fold_hash(ctx, seed, s, strlen(s));
}
