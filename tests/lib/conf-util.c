/*
 * conf-util.c - helpers shared by the lib-conformance modules (conf.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conf.h"
#include "ucd.h"

static char ring[8][96];
static unsigned ring_next;

const char *ctx_desc(const struct fold_ctx *c)
{
	static const char *forms[] = {"NFD",  "NFC",	  "NFKD",
				      "NFKC", "CASEFOLD", "NFKC_CF"};
	char name[64];
	char *out = ring[ring_next++ % 8];

	if (fold_encoding_name(c, name, sizeof name) < 0)
		snprintf(name, sizeof name, "?");
	snprintf(out, sizeof ring[0], "%s/%s/0x%x", name,
		 c->form < 6 ? forms[c->form] : "?", (unsigned)c->flags);
	return out;
}

int ctx_must(struct fold_ctx *c, const char *enc, enum fold_form form,
	     unsigned flags)
{
	int r = fold_init(c, enc, form, flags);

	if (!ck(r == 0, "fold_init(\"%s\", form %d, flags 0x%x) = %d", enc,
		(int)form, flags, r)) {
		memset(c, 0, sizeof *c);
		return 0;
	}
	return 1;
}

static uint32_t parse_xyz(const char *s)
{
	unsigned a = 0, b = 0, z = 0;

	if (sscanf(s, "%u.%u.%u", &a, &b, &z) < 2)
		return 0;
	return FOLD_UNICODE(a, b, z);
}

uint32_t lib_newest(void)
{
	const char *const *list;
	size_t n = fold_unicode_versions(&list);

	return n ? parse_xyz(list[n - 1]) : 0;
}

int lib_has_version(uint32_t v)
{
	const char *const *list;
	size_t n = fold_unicode_versions(&list);

	for (size_t i = 0; i < n; i++)
		if (parse_xyz(list[i]) == v)
			return 1;
	return 0;
}

int conf_quick;

int conf_plain_skip(uint32_t cp, unsigned stride)
{
	uint32_t m[32];

	if (cp % stride == 0)
		return 0;
	return !ucd_decomp1(cp, 1, UCD_NEWEST, m) &&
	       !ucd_fold1(cp, UCD_NEWEST, m) && !ucd_ccc(cp, UCD_NEWEST) &&
	       !ucd_is_di(cp);
}

int conf_version_sampled(size_t index, size_t count, uint32_t v)
{
	return !conf_quick || index == 0 || index + 1 == count ||
	       v == FOLD_UNICODE(3, 1, 0) || v == FOLD_UNICODE(12, 1, 0);
}

const char *enc_name(uint32_t v)
{
	char *out = ring[ring_next++ % 8];

	snprintf(out, sizeof ring[0], "utf8-%u.%u.%u", v >> 16, (v >> 8) & 255,
		 v & 255);
	return out;
}

int expect_form(const struct fold_ctx *c, int use_key, const char *in,
		size_t n, const char *want, size_t wn, const char *what)
{
	char out[4096];
	ssize_t r = use_key ? fold_key(c, in, n, out, sizeof out)
			    : fold_normalize(c, in, n, out, sizeof out);

	if (r < 0)
		return ck(0, "%s: %s %s(%s) returned error %zd", what,
			  ctx_desc(c), use_key ? "fold_key" : "fold_normalize",
			  ck_hex(in, n), r);
	if ((size_t)r > sizeof out)
		return ck(0, "%s: %s output too long (%zd) for %s", what,
			  ctx_desc(c), r, ck_hex(in, n));
	return ck((size_t)r == wn && !memcmp(out, want, wn),
		  "%s: %s %s(%s) = %s, want %s", what, ctx_desc(c),
		  use_key ? "fold_key" : "fold_normalize", ck_hex(in, n),
		  ck_hex(out, (size_t)r), ck_hex(want, wn));
}
