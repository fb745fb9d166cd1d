/*
 * fold_internal.h - declarations shared between libfold's .c files.
 */
#ifndef FOLD_INTERNAL_H
#define FOLD_INTERNAL_H

#include "fold.h"
#include "fold_data.h"

/* Internal: keep out of the shared object's ABI. */
#pragma GCC visibility push(hidden)

/* -1 if s is well-formed UTF-8 (no NUL), else the offset of the first
 * byte of the first ill-formed sequence. */
long fold_utf8_check(const unsigned char *s, size_t n);
/* Same, under ctx's charset. */
long fold_check(const struct fold_ctx *ctx, const char *s, size_t n);
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

#pragma GCC visibility pop
#endif
