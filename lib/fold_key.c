/*
 * fold_key.c - fold_normalize() and fold_key(): the key written into a
 * caller buffer, with the "return the full length, write at most cap"
 * contract, so a caller can size its buffer with cap 0.
 */
#include "fold_internal.h"
#include "fold_stream.h"

#include <string.h>

/* Stream the key of s into out; *bad says the name proved ill formed,
 * in which case the result is meaningless.  With room for a whole fill
 * the stream writes in place, else through its own buffer. */
static inline __attribute__((always_inline)) ssize_t
run(const struct fold_ctx *ctx, const char *s, size_t n, char *out,
    size_t cap, int *bad)
{
	struct fstream fs;
	size_t total = 0;
	unsigned k;
	int direct = cap >= FS_OUTCAP;
	k = fs_first(&fs, ctx, s, n, FS_OUTCAP,
		     direct ? (unsigned char *)out : NULL);
	while (k) {
		if (!direct && total < cap) {
			size_t m = cap - total < k ? cap - total : k;
			memcpy(out + total, fs.buf, m);
		}
		total += k;
		if (fs.done)
			break; /* the next fill would return 0 */
		direct = total <= cap && cap - total >= FS_OUTCAP;
		fs.out = direct ? (unsigned char *)out + total : fs.buf;
		k = fs_fill(&fs, FS_OUTCAP);
	}
	*bad = fs.bad;
	return (ssize_t)total;
}

ssize_t fold_normalize(const struct fold_ctx *ctx, const char *s, size_t n,
		       char *out, size_t cap)
{
	ssize_t r;
	int bad;
	if (!fold_ctx_ok(ctx) || (!s && n) || (!out && cap))
		return FOLD_EINVAL;
	if (!s)
		s = ""; /* (NULL, 0): no arithmetic on a null pointer */
	/* an ill-formed name must leave out untouched: check first */
	if (fold_check(ctx, s, n) >= 0)
		return FOLD_EILSEQ;
	r = run(ctx, s, n, out, cap, &bad);
	return bad ? FOLD_EILSEQ : r;
}

/* fold_key() past its common case: the key of s again from the start
 * (strict, ill formed, longer than a piece, or a small buffer). */
__attribute__((noinline)) ssize_t
fold_key_general(const struct fold_ctx *ctx, const char *s, size_t n,
		 char *out, size_t cap)
{
	ssize_t r;
	int bad;
	if ((ctx->flags & FOLD_STRICT) && fold_check(ctx, s, n) >= 0)
		return FOLD_EILSEQ; /* and out untouched */
	r = run(ctx, s, n, out, cap, &bad);
	if (!bad)
		return r;
	/* ill formed: the key is the bytes themselves */
	if (cap)
		memcpy(out, s, n < cap ? n : cap);
	return (ssize_t)n;
}

ssize_t fold_key(const struct fold_ctx *ctx, const char *s, size_t n,
		 char *out, size_t cap)
{
	if (!s) /* (NULL, 0) is "": no arithmetic on a null pointer */
		return n ? FOLD_EINVAL : fold_key(ctx, "", 0, out, cap);
	if (!fold_ctx_ok(ctx) || (!out && cap))
		return FOLD_EINVAL;
	if (!(ctx->flags & FOLD_STRICT) && cap >= FS_OUTCAP) {
		/* the common case: a well-formed name whose key is one
		 * piece, written in place (a name that proves ill formed
		 * may leave scratch in out: fold.h allows it) */
		return fs_key(ctx, s, n, (unsigned char *)out, cap);
	}
	return fold_key_general(ctx, s, n, out, cap);
}

ssize_t fold_normalizez(const struct fold_ctx *ctx, const char *s, char *out,
			size_t cap)
{
	if (!s)
		return FOLD_EINVAL;
	return fold_normalize(ctx, s, strlen(s), out, cap);
}

ssize_t fold_keyz(const struct fold_ctx *ctx, const char *s, char *out,
		  size_t cap)
{
	if (!s)
		return FOLD_EINVAL;
	return fold_key(ctx, s, strlen(s), out, cap);
}
