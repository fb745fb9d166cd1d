/*
 * fold_key.c - fold_normalize() and fold_key(): the key written into a
 * caller buffer, with the "return the full length, write at most cap"
 * contract, so a caller can size its buffer with cap 0.
 */
#include "fold_internal.h"
#include "fold_stream.h"

#include <string.h>

/* Stream the key of s into out; *bad says the name proved ill formed
 * (valid = 1 only), in which case the result is meaningless. */
static ssize_t run(const struct fold_ctx *ctx, const char *s, size_t n,
		   char *out, size_t cap, int valid, int *bad)
{
	struct fstream fs;
	size_t total = 0;
	unsigned k;
	fs_init(&fs, ctx, s, n, valid);
	while ((k = fs_fill(&fs, FS_OUTCAP)) != 0) {
		if (total < cap) {
			size_t m = cap - total < k ? cap - total : k;
			memcpy(out + total, fs.out, m);
		}
		total += k;
		if (fs.done)
			break; /* the next fill would return 0 */
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
	/* an ill-formed name must leave out untouched: check first */
	if (fold_check(ctx, s, n) >= 0)
		return FOLD_EILSEQ;
	r = run(ctx, s, n, out, cap, 1, &bad);
	return bad ? FOLD_EILSEQ : r;
}

ssize_t fold_key(const struct fold_ctx *ctx, const char *s, size_t n,
		 char *out, size_t cap)
{
	ssize_t r;
	int bad;
	if (!fold_ctx_ok(ctx) || (!s && n) || (!out && cap))
		return FOLD_EINVAL;
	if ((ctx->flags & FOLD_STRICT) && fold_check(ctx, s, n) >= 0)
		return FOLD_EILSEQ; /* and out untouched */
	r = run(ctx, s, n, out, cap, 1, &bad);
	if (!bad)
		return r;
	/* ill formed: the key is the bytes themselves */
	if (cap)
		memcpy(out, s, n < cap ? n : cap);
	return (ssize_t)n;
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
