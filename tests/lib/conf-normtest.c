/*
 * conf-normtest.c - NormalizationTest.txt: every line under NFC, NFD, NFKC
 * and NFKD with the c1..c5 invariants of the file's header, the same
 * pairs through fold_key/fold_equal/fold_cmp/fold_hash, and part 1's rule
 * that every code point it does not list is invariant under all four forms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conf.h"
#include "ucd.h"

struct col {
	char s[256];
	size_t n;
};

static const struct fold_seed seed = {0x0123456789abcdefull,
				      0xfedcba9876543210ull};

/* One invariant "want == toX(in)" through every API that must agree. */
static void pair(const struct fold_ctx *c, const struct col *in,
		 const struct col *want, unsigned long line)
{
	char what[64];

	snprintf(what, sizeof what, "line %lu", line);
	expect_form(c, 0, in->s, in->n, want->s, want->n, what);
	expect_form(c, 1, in->s, in->n, want->s, want->n, what);
	ck(fold_equal(c, in->s, in->n, want->s, want->n) == 1,
	   "line %lu: %s fold_equal(%s, %s) != 1", line, ctx_desc(c),
	   ck_hex(in->s, in->n), ck_hex(want->s, want->n));
	ck(fold_cmp(c, in->s, in->n, want->s, want->n) == 0 &&
		   fold_cmp(c, want->s, want->n, in->s, in->n) == 0,
	   "line %lu: %s fold_cmp(%s, %s) != 0", line, ctx_desc(c),
	   ck_hex(in->s, in->n), ck_hex(want->s, want->n));
	ck(fold_hash(c, &seed, in->s, in->n) ==
		   fold_hash(c, &seed, want->s, want->n),
	   "line %lu: %s fold_hash differs for %s and %s", line, ctx_desc(c),
	   ck_hex(in->s, in->n), ck_hex(want->s, want->n));
}

static int parse_line(char *line, struct col col[5])
{
	char *p = line;

	for (int i = 0; i < 5; i++) {
		uint32_t cps[64];
		size_t n = 0;
		char *end;

		while (*p == ' ')
			p++;
		while (*p && *p != ';') {
			if (n == 64)
				return 0;
			cps[n++] = (uint32_t)strtoul(p, &end, 16);
			if (end == p)
				return 0;
			p = end;
			while (*p == ' ')
				p++;
		}
		if (*p != ';' || !n)
			return 0;
		p++;
		col[i].n = u8_encode(cps, n, col[i].s);
	}
	return 1;
}

/* Does a line use code points newer than the library's tables (see
 * ucd_cap())? */
static int newer_than_library(const struct col c[5])
{
	for (int i = 0; i < 5; i++) {
		uint32_t cps[64];
		size_t n = u8_decode(c[i].s, c[i].n, cps, 64);
		for (size_t k = 0; k < n; k++)
			if (ucd_capped(cps[k]))
				return 1;
	}
	return 0;
}

void conf_normtest(void)
{
	struct fold_ctx nfc, nfd, nfkc, nfkd;
	FILE *f;
	char line[2048];
	unsigned long lineno = 0, lines = 0, part1 = 0, skipped = 0;
	int part = -1;
	uint8_t *listed = calloc(UCD_MAXCP, 1);

	ck_group("normtest-lines");
	if (!listed) {
		ck(0, "out of memory");
		return;
	}
	ctx_must(&nfc, "utf8", FOLD_NFC, 0);
	ctx_must(&nfd, "utf8", FOLD_NFD, 0);
	ctx_must(&nfkc, "utf8", FOLD_NFKC, 0);
	ctx_must(&nfkd, "utf8", FOLD_NFKD, 0);
	f = fopen(conf_normtest_path, "r");
	if (!ck(f != NULL, "cannot open %s", conf_normtest_path)) {
		free(listed);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		struct col c[5];

		lineno++;
		if (line[0] == '@') {
			part = atoi(line + 5);
			continue;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!ck(parse_line(line, c), "line %lu: cannot parse", lineno))
			continue;
		if (newer_than_library(c)) {
			skipped++;
			continue;
		}
		lines++;
		if (part == 1) {
			uint32_t cp;
			if (u8_decode(c[0].s, c[0].n, &cp, 1) == 1 &&
			    cp < UCD_MAXCP) {
				listed[cp] = 1;
				part1++;
			}
		}
		/* NFC: c2 == toNFC(c1..c3), c4 == toNFC(c4, c5) */
		for (int i = 0; i < 3; i++)
			pair(&nfc, &c[i], &c[1], lineno);
		for (int i = 3; i < 5; i++)
			pair(&nfc, &c[i], &c[3], lineno);
		/* NFD: c3 == toNFD(c1..c3), c5 == toNFD(c4, c5) */
		for (int i = 0; i < 3; i++)
			pair(&nfd, &c[i], &c[2], lineno);
		for (int i = 3; i < 5; i++)
			pair(&nfd, &c[i], &c[4], lineno);
		/* NFKC: c4 == toNFKC(all); NFKD: c5 == toNFKD(all) */
		for (int i = 0; i < 5; i++) {
			pair(&nfkc, &c[i], &c[3], lineno);
			pair(&nfkd, &c[i], &c[4], lineno);
		}
	}
	fclose(f);
	ck(lines > 15000 && part1 > 1000,
	   "NormalizationTest.txt looks truncated: %lu lines, %lu in part 1",
	   lines, part1);
	ck_info("NormalizationTest: %lu data lines, %lu code points in part 1",
		lines, part1);
	if (skipped)
		ck_info("NormalizationTest: %lu lines with code points newer than "
			"the library's tables skipped",
			skipped);

	ck_group("normtest-invariant");
	{
		const struct fold_ctx *all[4] = {&nfc, &nfd, &nfkc, &nfkd};
		unsigned long tested = 0;

		for (uint32_t cp = 1; cp < UCD_MAXCP; cp++) {
			char s[4];
			size_t n;

			if (listed[cp] || (cp >= 0xD800 && cp <= 0xDFFF))
				continue;
			if (conf_quick && conf_plain_skip(cp, 31))
				continue;
			n = u8_put(cp, s);
			tested++;
			for (int k = 0; k < 4; k++)
				expect_form(all[k], 0, s, n, s, n,
					    "not in part 1");
		}
		ck_info("%lu code points not listed in part 1 checked "
			"invariant under NFC, NFD, NFKC, NFKD", tested);
	}
	free(listed);
}
