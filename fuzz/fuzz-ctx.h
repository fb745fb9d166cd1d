/*
 * fuzz-ctx.h - how every libfold fuzz target turns its first input byte
 * into a context, so one corpus drives all forms, flags and versions:
 *   bits 0-2  form (mod 6)
 *   bits 3-5  FOLD_STRICT, FOLD_COMPAT, FOLD_IGNORABLES
 *   bits 6-7  0: "utf8" (newest)   1: "utf8-12.1" with FOLD_KERNEL_ORDER
 *             (the "ext4" profile's ordering; with FOLD_CASEFOLD and
 *             FOLD_IGNORABLES alone, the context must be the one
 *             fold_init_profile("ext4") gives)   2: a version picked by
 *             the input's size, every one the library has (1.1 to the
 *             newest) in turn: the age checks that make code points
 *             younger than a version unassigned run under all of them
 *             3: "ascii"
 * size is the whole input's: the fuzzer changes it freely, and an input
 * keeps its version while its bytes mutate.
 * Returns 0 and fills ctx, or -1 for a combination the library refuses
 * (FOLD_COMPAT with a form other than FOLD_CASEFOLD, if it does).
 */
#ifndef FUZZ_CTX_H
#define FUZZ_CTX_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"

static inline int fuzz_ctx(unsigned char sel, size_t size,
			   struct fold_ctx *ctx)
{
	unsigned form = (sel & 7u) % 6u, flags = (sel >> 3) & 7u;
	const char *enc = "utf8";
	char picked[32];

	if (sel >> 6 == 1) {
		enc = "utf8-12.1";
		flags |= FOLD_KERNEL_ORDER;
	} else if (sel >> 6 == 2) {
		const char *const *v;
		size_t nv = fold_unicode_versions(&v);

		snprintf(picked, sizeof picked, "utf8-%s", v[size % nv]);
		enc = picked;
	} else if (sel >> 6 == 3) {
		enc = "ascii";
	}
	int r = fold_init(ctx, enc, (enum fold_form)form, flags);

	if (r == FOLD_EINVAL && (flags & FOLD_COMPAT) && form != FOLD_CASEFOLD)
		return -1;
	if (r != 0) {
		fprintf(stderr, "fold_init(%s, %u, 0x%x) = %d\n", enc, form,
			flags, r);
		abort();
	}
	if (form == FOLD_CASEFOLD &&
	    flags == (FOLD_IGNORABLES | FOLD_KERNEL_ORDER)) {
		struct fold_ctx p;

		if (fold_init_profile(&p, "ext4") != 0 ||
		    memcmp(&p, ctx, sizeof p)) {
			fprintf(stderr, "fold_init_profile(ext4) differs\n");
			abort();
		}
	}
	return 0;
}

/* Does a dropped ignorable end the run of marks, as a starter would?
 * With FOLD_KERNEL_ORDER in a decomposing form that drops them (fold.h). */
static inline int fuzz_ignorable_cuts(const struct fold_ctx *c)
{
	return (c->flags & FOLD_KERNEL_ORDER) && (c->flags & FOLD_IGNORABLES) &&
	       (c->form == FOLD_NFD || c->form == FOLD_NFKD ||
		c->form == FOLD_CASEFOLD);
}

/* Is every key its own key, and so a name equivalent to the one it came
 * from?  Not where a dropped ignorable cuts: as in the kernel's nfdicf,
 * marks it kept apart stay unsorted in the key, which the key itself then
 * sorts. */
static inline int fuzz_closed(const struct fold_ctx *c)
{
	return !fuzz_ignorable_cuts(c);
}

static inline void fuzz_hex(const char *what, const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;

	fprintf(stderr, "%s (%zu bytes):", what, n);
	for (size_t i = 0; i < n && i < 512; i++)
		fprintf(stderr, " %02X", b[i]);
	fprintf(stderr, "\n");
}

/*
 * Longest run of non-starters s would have after decomposition (UAX #15
 * D4 counting, leading/trailing non-starters of each code point's NFKD),
 * for well-formed s under ctx c.  Longer than 30 means libfold cuts the
 * run, so ICU and closure comparisons do not apply.  Uses the library's
 * NFKD of single code points, which are far too short to be cut
 * themselves.  Where c drops ignorables, the marks on their two sides
 * make one run (but for FOLD_KERNEL_ORDER, where a dropped ignorable ends
 * the run as a starter would, fold.h).
 */
static inline size_t fuzz_max_run(const struct fold_ctx *c, const char *s,
				  size_t n)
{
	static struct fold_ctx nfkd, ign;
	static int ready;
	const unsigned char *b = (const unsigned char *)s;
	size_t i = 0, run = 0, best = 0;
	/* where a dropped ignorable cuts, it counts as a starter, as below */
	int drops = (c->form == FOLD_NFKC_CF || (c->flags & FOLD_IGNORABLES)) &&
		    !fuzz_ignorable_cuts(c);
	if (!ready) {
		if (fold_init(&nfkd, "utf8", FOLD_NFKD, 0))
			abort();
		ready = 1;
	}
	if (drops && ign.age != c->age) {
		/* which code points c drops: those with an empty NFKD in
		 * c's version with FOLD_IGNORABLES */
		char enc[32];

		if (fold_encoding_name(c, enc, sizeof enc) < 0 ||
		    fold_init(&ign, enc, FOLD_NFKD, FOLD_IGNORABLES))
			abort();
	}
	while (i < n) {
		size_t len = b[i] < 0x80 ? 1 : b[i] < 0xE0 ? 2 : b[i] < 0xF0 ? 3 : 4;
		char d[256];
		ssize_t dn = fold_normalize(&nfkd, s + i, len, d, sizeof d);
		size_t lead = 0, trail = 0, total = 0, j = 0;
		int seen_starter = 0;

		if (dn < 0 || (size_t)dn > sizeof d)
			return (size_t)-1;
		if (drops && fold_normalize(&ign, s + i, len, d, 0) == 0) {
			i += len; /* dropped: the run goes on past it */
			continue;
		}
		while (j < (size_t)dn) {
			const unsigned char *e = (const unsigned char *)d + j;
			size_t el = e[0] < 0x80 ? 1 : e[0] < 0xE0 ? 2 : e[0] < 0xF0 ? 3 : 4;
			uint32_t cp = el == 1 ? e[0] : e[0] & (0xFF >> (el + 1));

			for (size_t k = 1; k < el; k++)
				cp = (cp << 6) | (e[k] & 0x3F);
			if (fold_cp_ccc(&nfkd, cp)) {
				total++;
				trail++;
				if (!seen_starter)
					lead++;
			} else {
				seen_starter = 1;
				trail = 0;
			}
			j += el;
		}
		if (!seen_starter) {
			run += total;
		} else {
			run += lead;
			if (run > best)
				best = run;
			run = trail;
		}
		if (run > best)
			best = run;
		i += len;
	}
	return best;
}

#endif
