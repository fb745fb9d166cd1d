/*
 * fold_internal.h - declarations shared between libfold's .c files.
 */
#ifndef FOLD_INTERNAL_H
#define FOLD_INTERNAL_H

#include "fold.h"
#include "fold_data.h"

#include <string.h>

/* Internal: keep out of the shared object's ABI. */
#pragma GCC visibility push(hidden)

/* -1 if s is well-formed UTF-8 (no NUL), else the offset of the first
 * byte of the first ill-formed sequence. */
long fold_utf8_check(const unsigned char *s, size_t n);
/* 1 if s[0..n) is well-formed UTF-8 (no NUL), else 0; and the same for
 * two strings at once (both well formed). */
int fold_utf8_ok(const unsigned char *s, size_t n);
int fold_utf8_ok2(const unsigned char *a, size_t an, const unsigned char *b,
		  size_t bn);
/* Same, under ctx's charset. */
long fold_check(const struct fold_ctx *ctx, const char *s, size_t n);
/* 1 in the reference copy that test-lib-lanes checks the library against
 * (built with -DFOLD_NO_LANES): every shortcut is off there -- the fast
 * lanes, the word-at-a-time ASCII paths, the shared-prefix skip of
 * fold_cmp -- so each name goes through the general path alone. */
#ifdef FOLD_NO_LANES
#define FOLD_REFERENCE 1
#else
#define FOLD_REFERENCE 0
#endif

#define FOLD_ALL_FLAGS \
	(FOLD_STRICT | FOLD_COMPAT | FOLD_IGNORABLES | FOLD_KERNEL_ORDER)

/* Is ctx something fold_init() produced?  (Inline: every call checks.) */
static inline int fold_ctx_ok(const struct fold_ctx *ctx)
{
	if (!ctx || ctx->form > FOLD_NFKC_CF || (ctx->flags & ~FOLD_ALL_FLAGS))
		return 0;
	if (ctx->charset == FOLD_CHARSET_ASCII)
		return ctx->age == 0;
	return ctx->charset == FOLD_CHARSET_UTF8 && ctx->age >= 1 &&
	       ctx->age <= FOLD_NVERSIONS;
}

/* Eight bytes as a little-endian word, and back.  The word-at-a-time
 * code numbers a word's bytes from its low end (ctz of a byte mask finds
 * the first byte in memory), on every byte order. */
static inline __attribute__((always_inline)) uint64_t
fold_load8(const void *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

static inline __attribute__((always_inline)) void
fold_store8(void *p, uint64_t w)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(p, &w, 8);
}

/* The bytes of w that are >= 0x80 or NUL, flagged by their bit 7.  The
 * first flagged byte is exact; flags above it may be false (a borrow
 * from a real NUL below them). */
static inline __attribute__((always_inline)) uint64_t
fold_special8(uint64_t w)
{
	return (w | ((w - 0x0101010101010101ull) & ~w)) &
	       0x8080808080808080ull;
}

/* ASCII lower case of 8 bytes < 0x80 at once: a byte is upper case if
 * adding 0x3F carries into bit 7 (>= 'A') and adding 0x25 does not
 * (<= 'Z'); no byte is >= 0x80, so no carry crosses bytes. */
static inline __attribute__((always_inline)) uint64_t
fold_lower8(uint64_t w)
{
	uint64_t up = (w + 0x3F3F3F3F3F3F3F3Full) &
		      ~(w + 0x2525252525252525ull) & 0x8080808080808080ull;
	return w | up >> 2;
}

#pragma GCC visibility pop
#endif
