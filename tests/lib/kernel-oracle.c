/*
 * kernel-oracle.c - the Linux kernel's fs/unicode normalizer as a test
 * oracle (kernel-oracle.h).
 */
#include "kernel-oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

extern struct utf8data_table utf8_data_table;

int kernel_versions(struct kver *v, int *newer, int *v121)
{
	const struct utf8data_table *t = &utf8_data_table;
	int i, n = 0;

	*newer = 0;
	*v121 = -1;
	if (t->utf8nfdicfdata_size != t->utf8nfdidata_size)
		return -1;
	for (i = 0; i < t->utf8nfdicfdata_size && n < KVER_MAX; i++) {
		unsigned a = t->utf8nfdicfdata[i].maxage;
		struct kver *k = &v[n];
		int e;
		if (!a)
			continue;
		if (t->utf8nfdidata[i].maxage != a)
			return -1;
		k->um.version = a;
		k->um.tables = t;
		k->um.ntab[UTF8_NFDICF] = &t->utf8nfdicfdata[i];
		k->um.ntab[UTF8_NFDI] = &t->utf8nfdidata[i];
		snprintf(k->enc, sizeof k->enc, "utf8-%u.%u.%u", a >> 16,
			 (a >> 8) & 0xFF, a & 0xFF);
		e = fold_init(&k->cf, k->enc, FOLD_CASEFOLD,
			      FOLD_IGNORABLES | FOLD_KERNEL_ORDER);
		if (e == FOLD_EVERSION) {
			++*newer;
			continue;
		}
		if (e || fold_init(&k->nd, k->enc, FOLD_NFD,
				   FOLD_IGNORABLES | FOLD_KERNEL_ORDER))
			return -1;
		if (a == 0x0C0100)
			*v121 = n;
		n++;
	}
	return n;
}

long kernel_key(const struct kver *v, int cf, const char *s, size_t n,
		char *out, size_t cap)
{
	struct utf8cursor cur;
	size_t k = 0;
	int b;

	if (utf8ncursor(&cur, &v->um, cf ? UTF8_NFDICF : UTF8_NFDI, s, n) < 0)
		return -1;
	while ((b = utf8byte(&cur)) > 0) {
		if (k == cap)
			return -2;
		out[k++] = (char)b;
	}
	return b < 0 ? -1 : (long)k;
}

int kernel_compare_key(const struct kver *v, int cf, const char *s, size_t n,
		       char *kk, long *kl, char *lk, ssize_t *ll, size_t cap)
{
	const struct fold_ctx *c = cf ? &v->cf : &v->nd;

	*kl = kernel_key(v, cf, s, n, kk, cap);
	if (*kl < 0)
		return -2;
	*ll = fold_key(c, s, n, lk, cap);
	return *ll == *kl && !memcmp(kk, lk, (size_t)*kl);
}

int kernel_equal(const struct kver *v, int cf, const char *s, size_t sn,
		 const char *t, size_t tn)
{
	enum utf8_normalization f = cf ? UTF8_NFDICF : UTF8_NFDI;
	struct utf8cursor a, b;
	int x, y;

	if (utf8ncursor(&a, &v->um, f, s, sn) < 0 ||
	    utf8ncursor(&b, &v->um, f, t, tn) < 0)
		return -1;
	do {
		x = utf8byte(&a);
		y = utf8byte(&b);
		if (x < 0 || y < 0)
			return -1;
		if (x != y)
			return 0;
	} while (x);
	return 1;
}

int kernel_should_accept(const struct fold_ctx *c, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char *t;
	size_t i = 0, k = 0;
	int ok;

	if (n && (u[0] & 0xC0) == 0x80)
		return 0;
	t = malloc(n + 1);
	if (!t)
		abort();
	while (i < n && u[i]) {
		unsigned b = u[i], len = b < 0xC0 ? 1 : b < 0xE0 ? 2 :
					    b < 0xF0 ? 3 : b < 0xF8 ? 4 : 1;
		if ((b & 0xC0) == 0x80) {
			i++; /* after a complete character: passed over */
			continue;
		}
		for (unsigned j = 0; j < len && i < n && (j == 0 || u[i]); j++)
			t[k++] = s[i++];
	}
	ok = fold_validate(c, t, k, NULL) == 0;
	free(t);
	return ok;
}
