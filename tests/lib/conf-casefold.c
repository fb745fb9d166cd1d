/*
 * conf-casefold.c - the caseless key of every single code point against
 * the oracle in ucd.c (UnicodeData decompositions + CaseFolding C/F,
 * expanded to a fixpoint, canonically ordered), under FOLD_CASEFOLD and
 * FOLD_CASEFOLD|FOLD_COMPAT, at the newest version and at 12.1 (the ext4
 * base); and each C/F mapping is equivalent to its source.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "conf.h"
#include "ucd.h"

static unsigned long run(const struct fold_ctx *c, int compat, uint32_t ver)
{
	unsigned long changed = 0;

	for (uint32_t cp = 1; cp < UCD_MAXCP; cp++) {
		uint32_t want[64];
		char s[4], w[256];
		size_t n, wn, k;

		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		if (conf_quick && conf_plain_skip(cp, 31))
			continue;
		k = ucd_caseless(&cp, 1, compat, 0, ver, want, 64);
		if (!ck(k != (size_t)-1, "oracle failed for U+%04X", cp))
			continue;
		n = u8_put(cp, s);
		wn = u8_encode(want, k, w);
		if (wn != n || memcmp(w, s, n))
			changed++;
		expect_form(c, 1, s, n, w, wn, "caseless key");
	}
	return changed;
}

void conf_casefold(void)
{
	struct fold_ctx c;
	uint32_t newest = lib_newest(), v121 = FOLD_UNICODE(12, 1, 0);
	unsigned long changed;

	ck_group("casefold-newest");
	if (ctx_must(&c, "utf8", FOLD_CASEFOLD, 0)) {
		changed = run(&c, 0, newest);
		ck(changed > 2500, "only %lu code points change under the "
				   "canonical caseless key (oracle broken?)",
		   changed);
		ck_info("canonical caseless, %s: %lu code points change",
			enc_name(newest), changed);
	}
	ck_group("casefold-compat-newest");
	if (ctx_must(&c, "utf8", FOLD_CASEFOLD, FOLD_COMPAT)) {
		changed = run(&c, 1, newest);
		ck(changed > 5000, "only %lu code points change under the "
				   "compatibility caseless key",
		   changed);
		ck_info("compatibility caseless, %s: %lu code points change",
			enc_name(newest), changed);
	}
	ck_group("casefold-12.1");
	if (!conf_quick && ctx_must(&c, "utf8-12.1", FOLD_CASEFOLD, 0)) {
		changed = run(&c, 0, v121);
		ck_info("canonical caseless, utf8-12.1: %lu code points change",
			changed);
	}

	/* Straight from CaseFolding.txt: cp ~ its C/F mapping. */
	ck_group("casefold-mappings");
	if (ctx_must(&c, "utf8", FOLD_CASEFOLD, 0)) {
		unsigned long n = 0;

		for (uint32_t cp = 1; cp < UCD_MAXCP; cp++) {
			uint32_t m[8];
			char s[4], t[32];
			size_t k = ucd_fold1(cp, newest, m), sn, tn;

			if (!k)
				continue;
			n++;
			sn = u8_put(cp, s);
			tn = u8_encode(m, k, t);
			ck(fold_equal(&c, s, sn, t, tn) == 1,
			   "U+%04X not equivalent to its folding %s", cp,
			   ck_cps(m, k));
		}
		ck(n > 1400, "only %lu C/F mappings parsed", n);
	}
}
