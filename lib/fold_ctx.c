/*
 * fold_ctx.c - contexts: parsing encoding names and profiles, version
 * lists, error strings, and the per-code-point queries.
 */
#include "fold_internal.h"

#include <stdio.h>
#include <string.h>

/* Parse a decimal number; NULL if there is none.  A long one saturates:
 * it names no version either way ("utf8-1234.0" is FOLD_EVERSION). */
static const char *num(const char *s, unsigned *v)
{
	const char *b = s;
	unsigned n = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		if (n < 100000)
			n = n * 10 + (unsigned)(*s - '0');
	*v = n;
	return s != b ? s : NULL;
}

int fold_init(struct fold_ctx *ctx, const char *encoding, enum fold_form form,
	      unsigned flags)
{
	unsigned maj, min, upd = 0, i;
	const char *p;
	if (!ctx || !encoding || (unsigned)form > FOLD_NFKC_CF ||
	    (flags & ~FOLD_ALL_FLAGS))
		return FOLD_EINVAL;
	memset(ctx, 0, sizeof(*ctx));
	ctx->form = (uint8_t)form;
	ctx->flags = flags;
	if (!strcmp(encoding, "ascii")) {
		ctx->charset = FOLD_CHARSET_ASCII;
		return 0;
	}
	if (!strcmp(encoding, "utf8")) {
		i = FOLD_NVERSIONS - 1;
		goto found;
	}
	if (strncmp(encoding, "utf8-", 5))
		return FOLD_ENOENC;
	p = num(encoding + 5, &maj);
	if (!p || *p != '.')
		return FOLD_ENOENC;
	p = num(p + 1, &min);
	if (!p)
		return FOLD_ENOENC;
	if (*p == '.') {
		p = num(p + 1, &upd);
		if (!p)
			return FOLD_ENOENC;
	}
	if (*p)
		return FOLD_ENOENC;
	/* Every version libfold knows is an X.Y.0 release. */
	if (upd)
		return FOLD_EVERSION;
	for (i = 0; i < FOLD_NVERSIONS; i++)
		if (fold_versions[i].maj == maj && fold_versions[i].min == min)
			goto found;
	return FOLD_EVERSION;
found:
	ctx->charset = FOLD_CHARSET_UTF8;
	ctx->age = (uint8_t)(i + 1);
	ctx->unicode = FOLD_UNICODE(fold_versions[i].maj, fold_versions[i].min,
				    0);
	return 0;
}

int fold_init_profile(struct fold_ctx *ctx, const char *profile)
{
	if (!ctx || !profile)
		return FOLD_EINVAL;
	if (!strcmp(profile, "ext4"))
		return fold_init(ctx, "utf8-12.1", FOLD_CASEFOLD,
				 FOLD_IGNORABLES | FOLD_KERNEL_ORDER);
	return FOLD_ENOENC;
}

const char *fold_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case FOLD_EINVAL:
		return "invalid argument";
	case FOLD_EILSEQ:
		return "ill-formed name";
	case FOLD_ENOENC:
		return "unknown encoding";
	case FOLD_EVERSION:
		return "unsupported Unicode version";
	default:
		return "unknown error";
	}
}

int fold_encoding_name(const struct fold_ctx *ctx, char *buf, size_t cap)
{
	char tmp[32];
	int len;
	if (!fold_ctx_ok(ctx) || (!buf && cap))
		return FOLD_EINVAL;
	if (ctx->charset == FOLD_CHARSET_ASCII)
		len = snprintf(tmp, sizeof(tmp), "ascii");
	else
		len = snprintf(tmp, sizeof(tmp), "utf8-%s",
			       fold_versions[ctx->age - 1].name);
	if (cap) {
		size_t n = (size_t)len < cap ? (size_t)len : cap - 1;
		memcpy(buf, tmp, n);
		buf[n] = 0;
	}
	return len;
}

size_t fold_unicode_versions(const char *const **list)
{
	if (list)
		*list = fold_version_names;
	return FOLD_NVERSIONS;
}

size_t fold_table_bytes(void)
{
	return fold_tables_bytes;
}

int fold_cp_ccc(const struct fold_ctx *ctx, uint32_t cp)
{
	const struct fold_rec *r;
	if (!fold_ctx_ok(ctx) || cp > 0x10FFFF)
		return FOLD_EINVAL;
	if (ctx->charset == FOLD_CHARSET_ASCII)
		return 0;
	r = fold_rec_of(cp);
	return REC_AGE(r) <= ctx->age ? r->ccc : 0;
}

uint32_t fold_cp_age(uint32_t cp)
{
	/* Walk the age runs from the checkpoint of cp's 16K chunk. */
	const uint8_t *p;
	uint32_t at, age;
	if (cp > 0x10FFFF)
		return 0;
	p = fold_age_runs + fold_age_index[cp >> 14];
	at = (cp & ~0x3FFFu) - fold_age_skip[cp >> 14];
	for (;;) {
		uint32_t len = (*p & 7u) + 1;
		age = *p >> 3;
		if (len < 8) {
			p += 1;
		} else if (p[1] != 0xFF) {
			len += p[1];
			p += 2;
		} else {
			len = ((uint32_t)p[2] | (uint32_t)p[3] << 8) + 1;
			p += 4;
		}
		if (cp < at + len)
			break;
		at += len;
	}
	if (!age)
		return 0;
	return FOLD_UNICODE(fold_versions[age - 1].maj,
			    fold_versions[age - 1].min, 0);
}
