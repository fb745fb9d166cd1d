/*
 * conf-version.c - Unicode version behaviour, driven by DerivedAge.txt:
 *  - fold_unicode_versions() is sorted, known to DerivedAge, ends at the
 *    UCD's newest, and each entry round-trips through fold_init();
 *  - for each listed version V and its predecessor P, every code point
 *    added after P (up to V) that has a decomposition or a case folding is
 *    unchanged and distinct from its mapping under P, and mapped under V;
 *  - every code point with a mapping keys as the oracle says under every
 *    listed version (NFD, NFKD, canonical caseless);
 *  - two code points compose (NFC) exactly from the version on which
 *    their composite and both of them are assigned;
 *  - fold_cp_age() == DerivedAge and fold_cp_ccc() == the versioned class
 *    for every code point;
 *  - NormalizationCorrections apply from their version on (U+F951 ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conf.h"
#include "ucd.h"

static size_t lib_versions(uint32_t *out, size_t cap)
{
	const char *const *list;
	size_t n = fold_unicode_versions(&list), k = 0;

	for (size_t i = 0; i < n && k < cap; i++) {
		unsigned a, b, c;

		if (sscanf(list[i], "%u.%u.%u", &a, &b, &c) == 3)
			out[k++] = FOLD_UNICODE(a, b, c);
		else
			ck(0, "fold_unicode_versions()[%zu] = \"%s\" is not "
			      "X.Y.Z",
			   i, list[i]);
	}
	return k;
}

/* Oracle key of one code point under form at version ver. */
static size_t oracle(uint32_t cp, int form, uint32_t ver, char *out)
{
	uint32_t m[64];
	size_t k;

	if (form == FOLD_CASEFOLD)
		k = ucd_caseless(&cp, 1, 0, 0, ver, m, 64);
	else
		k = ucd_nfd(&cp, 1, form == FOLD_NFKD, ver, m, 64);
	if (k == (size_t)-1)
		return (size_t)-1;
	return u8_encode(m, k, out);
}

static int has_mapping(uint32_t cp, uint32_t newest)
{
	uint32_t m[32];

	return ucd_decomp1(cp, 1, newest, m) || ucd_fold1(cp, newest, m);
}

static void check_list(const uint32_t *lv, size_t nl)
{
	const uint32_t *dv;
	size_t nd = ucd_versions(&dv);
	char missing[1024] = "";

	ck_group("version-list");
	if (!ck(nl > 0, "fold_unicode_versions() lists nothing"))
		return;
	ck(lv[nl - 1] == dv[nd - 1], "newest listed %s != DerivedAge's %s",
	   enc_name(lv[nl - 1]), enc_name(dv[nd - 1]));
	ck(lib_has_version(FOLD_UNICODE(12, 1, 0)),
	   "12.1.0 (the ext4 version) is not listed");
	for (size_t i = 0; i < nl; i++) {
		int known = 0;
		struct fold_ctx c;
		char name[64];
		const char *want = enc_name(lv[i]);

		for (size_t j = 0; j < nd; j++)
			known |= dv[j] == lv[i];
		ck(known, "listed version %s is not a DerivedAge version",
		   want);
		ck(i == 0 || lv[i] > lv[i - 1], "list not ascending at %s",
		   want);
		if (!ctx_must(&c, want, FOLD_NFD, 0))
			continue;
		ck(c.unicode == lv[i], "%s: ctx.unicode = 0x%x", want,
		   (unsigned)c.unicode);
		ck(fold_encoding_name(&c, name, sizeof name) ==
				   (int)strlen(want) &&
			   !strcmp(name, want),
		   "fold_encoding_name of %s = \"%s\"", want, name);
	}
	for (size_t j = 0; j < nd; j++)
		if (!lib_has_version(dv[j]))
			snprintf(missing + strlen(missing),
				 sizeof missing - strlen(missing), " %s",
				 enc_name(dv[j]) + 5);
	ck_info("library lists %zu versions (%s .. %s); DerivedAge versions "
		"not listed:%s",
		nl, enc_name(lv[0]) + 5, enc_name(lv[nl - 1]) + 5,
		missing[0] ? missing : " none");
}

/* Code points added in (P, V]: unassigned under P, mapped under V. */
static void check_additions(const uint32_t *lv, size_t nl)
{
	static const int forms[] = {FOLD_NFD, FOLD_NFKD, FOLD_CASEFOLD};
	uint32_t newest = lv[nl - 1];
	unsigned long total = 0, versions_with = 0;

	ck_group("version-additions");
	for (size_t i = 1; i < nl; i++) {
		uint32_t P = lv[i - 1], V = lv[i];
		struct fold_ctx cp_[3], cv_[3];
		unsigned long n = 0;
		char example[160] = "";
		int ok = 1;

		for (int f = 0; f < 3; f++)
			ok &= ctx_must(&cp_[f], enc_name(P),
				       (enum fold_form)forms[f], 0) &
			      ctx_must(&cv_[f], enc_name(V),
				       (enum fold_form)forms[f], 0);
		if (!ok)
			continue;
		for (uint32_t cp = 1; cp < UCD_MAXCP; cp++) {
			uint32_t age = ucd_age(cp);
			char s[4], w[256];
			size_t sn, wn;
			int mapped = 0;

			if (age <= P || age > V || !has_mapping(cp, newest))
				continue;
			sn = u8_put(cp, s);
			for (int f = 0; f < 3; f++) {
				wn = oracle(cp, forms[f], V, w);
				if (wn == (size_t)-1)
					continue;
				expect_form(&cp_[f], 1, s, sn, s, sn,
					    "unassigned under predecessor");
				expect_form(&cv_[f], 1, s, sn, w, wn,
					    "mapped under its version");
				if (wn == sn && !memcmp(w, s, sn))
					continue;
				mapped = 1;
				ck(fold_equal(&cp_[f], s, sn, w, wn) == 0,
				   "%s: U+%04X equals its %s mapping %s before "
				   "it was assigned",
				   ctx_desc(&cp_[f]), cp, ctx_desc(&cv_[f]),
				   ck_hex(w, wn));
				ck(fold_equal(&cv_[f], s, sn, w, wn) == 1,
				   "%s: U+%04X not equal to its mapping %s",
				   ctx_desc(&cv_[f]), cp, ck_hex(w, wn));
				if (!example[0])
					snprintf(example, sizeof example,
						 "U+%04X -> %s (%s)", cp,
						 ck_hex(w, wn),
						 ctx_desc(&cv_[f]));
			}
			n += mapped;
		}
		total += n;
		versions_with += n > 0;
		ck_info("%s: %lu new code points with a mapping%s%s",
			enc_name(V) + 5, n, n ? ", e.g. " : "", example);
	}
	ck(total > 500 && versions_with >= nl / 2,
	   "too few version examples: %lu in %lu versions", total,
	   versions_with);
	if (lib_has_version(FOLD_UNICODE(12, 1, 0)) &&
	    lib_has_version(FOLD_UNICODE(13, 0, 0)))
		ck(ucd_age(0xA7C7) == FOLD_UNICODE(13, 0, 0),
		   "DerivedAge: U+A7C7 not 13.0 (oracle broken?)");
}

/* Every code point with a mapping, under every listed version. */
static void check_all_versions(const uint32_t *lv, size_t nl)
{
	static const int forms[] = {FOLD_NFD, FOLD_NFKD, FOLD_CASEFOLD};
	uint32_t newest = lv[nl - 1];

	ck_group("version-all");
	for (size_t i = 0; i < nl; i++) {
		if (!conf_version_sampled(i, nl, lv[i]))
			continue;
		for (int f = 0; f < 3; f++) {
			struct fold_ctx c;

			if (!ctx_must(&c, enc_name(lv[i]),
				      (enum fold_form)forms[f], 0))
				continue;
			for (uint32_t cp = 1; cp < UCD_MAXCP; cp++) {
				char s[4], w[256];
				size_t wn;

				if (!has_mapping(cp, newest))
					continue;
				wn = oracle(cp, forms[f], lv[i], w);
				if (!ck(wn != (size_t)-1, "oracle U+%04X", cp))
					continue;
				expect_form(&c, 1, s, u8_put(cp, s), w, wn,
					    "versioned key");
			}
		}
	}
}

/*
 * Composition at every listed version V: for each primary composite c of
 * a two-code-point canonical decomposition a b (NFC at the newest version
 * maps "a b" to c), NFC under V of "a b" is c from the version on which
 * c, a and b are all assigned, and before that NFC under V of a, then b
 * (both assigned).  The decomposing forms above cannot see this: only
 * the composing ones look up a composite's age (U+0229 = e + U+0327 came
 * in 3.0: under 2.0 "e U+0327" stays two code points).
 */
static void check_compositions(const uint32_t *lv, size_t nl)
{
	struct fold_ctx cn;
	unsigned long composites = 0, before = 0;

	ck_group("version-compose");
	if (!ctx_must(&cn, enc_name(lv[nl - 1]), FOLD_NFC, 0))
		return;
	for (uint32_t cp = 1; cp < UCD_MAXCP; cp++) {
		uint32_t m[8], from;
		char ab[8], want[64], c8[4];
		size_t abn, cn8;

		if (ucd_decomp1(cp, 0, lv[nl - 1], m) != 2)
			continue;
		abn = u8_put(m[0], ab);
		abn += u8_put(m[1], ab + abn);
		cn8 = u8_put(cp, c8);
		{
			char out[64];
			ssize_t r = fold_normalize(&cn, ab, abn, out,
						   sizeof out);
			if (r != (ssize_t)cn8 || memcmp(out, c8, cn8))
				continue; /* not a primary composite */
		}
		composites++;
		from = ucd_age(cp);
		if (ucd_age(m[0]) > from)
			from = ucd_age(m[0]);
		if (ucd_age(m[1]) > from)
			from = ucd_age(m[1]);
		for (size_t i = 0; i < nl; i++) {
			struct fold_ctx c;
			ssize_t an;

			if (ucd_age(m[0]) > lv[i] || ucd_age(m[1]) > lv[i])
				continue;
			if (!ctx_must(&c, enc_name(lv[i]), FOLD_NFC, 0))
				continue;
			if (lv[i] >= from) {
				expect_form(&c, 0, ab, abn, c8, cn8,
					    "composed from its version on");
				continue;
			}
			an = fold_normalize(&c, ab, u8_put(m[0], ab), want,
					    sizeof want - 4);
			if (!ck(an >= 0, "NFC of U+%04X under %s", m[0],
				enc_name(lv[i])))
				continue;
			an += (ssize_t)u8_put(m[1], want + an);
			expect_form(&c, 0, ab, abn, want, (size_t)an,
				    "not composed before its version");
			before++;
		}
	}
	ck_info("compositions: %lu primary composites, %lu checked before "
		"their version",
		composites, before);
}

static void check_age_ccc(const uint32_t *lv, size_t nl)
{
	unsigned long bad = 0;

	ck_group("version-age");
	for (uint32_t cp = 0; cp < UCD_MAXCP; cp++) {
		uint32_t got = fold_cp_age(cp), want = ucd_age(cp);

		if (!ck(got == want, "fold_cp_age(U+%04X) = %s, DerivedAge %s",
			cp, got ? enc_name(got) + 5 : "0",
			want ? enc_name(want) + 5 : "0"))
			bad++;
	}
	ck(fold_cp_age(0x110000) == 0, "fold_cp_age(0x110000) != 0");
	ck(fold_cp_age(0xFFFFFFFFu) == 0, "fold_cp_age(0xFFFFFFFF) != 0");
	if (bad)
		ck_info("fold_cp_age disagrees with DerivedAge for %lu code "
			"points",
			bad);

	ck_group("version-ccc");
	for (size_t i = 0; i < nl; i++) {
		struct fold_ctx c;

		if (!conf_version_sampled(i, nl, lv[i]))
			continue;
		if (!ctx_must(&c, enc_name(lv[i]), FOLD_NFD, 0))
			continue;
		for (uint32_t cp = 0; cp < UCD_MAXCP; cp++) {
			int got = fold_cp_ccc(&c, cp),
			    want = ucd_ccc(cp, lv[i]);

			ck(got == want, "%s: fold_cp_ccc(U+%04X) = %d, want %d",
			   ctx_desc(&c), cp, got, want);
		}
	}
}

static void check_corrections(const uint32_t *lv, size_t nl)
{
	const struct ucd_correction *corr;
	size_t n = ucd_corrections(&corr);
	unsigned long shown = 0;

	ck_group("version-corrections");
	ck(n >= 6, "only %zu NormalizationCorrections entries", n);
	for (size_t i = 0; i < n; i++) {
		uint32_t P = 0, Q = 0;
		char s[4], w[16];
		size_t sn = u8_put(corr[i].cp, s);
		struct fold_ctx c;

		for (size_t j = 0; j < nl; j++) {
			if (lv[j] < corr[i].version)
				P = lv[j];
			else if (!Q)
				Q = lv[j];
		}
		if (P && ucd_age(corr[i].cp) <= P &&
		    ctx_must(&c, enc_name(P), FOLD_NFD, 0)) {
			uint32_t m[16];
			size_t k = ucd_nfd(&corr[i].cp, 1, 0, P, m, 16);

			ck(k >= 1 && m[0] == corr[i].original,
			   "oracle: U+%04X under %s", corr[i].cp,
			   enc_name(P));
			expect_form(&c, 0, s, sn, w, u8_encode(m, k, w),
				    "before correction");
			shown++;
		}
		if (Q && ctx_must(&c, enc_name(Q), FOLD_NFD, 0)) {
			uint32_t m[16];
			size_t k = ucd_nfd(&corr[i].cp, 1, 0, Q, m, 16);

			ck(k >= 1 && m[0] == corr[i].corrected,
			   "oracle: U+%04X under %s", corr[i].cp,
			   enc_name(Q));
			expect_form(&c, 0, s, sn, w, u8_encode(m, k, w),
				    "after correction");
		}
	}
	/* The brief's example, by name, when both versions are listed. */
	if (lib_has_version(FOLD_UNICODE(3, 1, 0)) &&
	    lib_has_version(FOLD_UNICODE(4, 0, 0))) {
		struct fold_ctx c31, c40;

		if (ctx_must(&c31, "utf8-3.1", FOLD_NFD, 0) &&
		    ctx_must(&c40, "utf8-4.0", FOLD_NFD, 0)) {
			expect_form(&c31, 0, "\xEF\xA5\x91", 3, "\xE9\x9B\xBB",
				    3, "U+F951 under 3.1 -> U+96FB");
			expect_form(&c40, 0, "\xEF\xA5\x91", 3, "\xE9\x99\x8B",
				    3, "U+F951 under 4.0 -> U+964B");
			ck(fold_equal(&c31, "\xEF\xA5\x91", 3, "\xE9\x99\x8B",
				      3) == 0,
			   "U+F951 ~ U+964B under 3.1");
		}
	} else {
		ck_info("3.1 or 4.0 not listed: U+F951 example skipped");
	}
	ck_info("corrections: %lu checked before their version", shown);
}

void conf_version(void)
{
	uint32_t lv[64];
	size_t nl = lib_versions(lv, 64);

	check_list(lv, nl);
	if (!nl)
		return;
	check_additions(lv, nl);
	check_all_versions(lv, nl);
	check_compositions(lv, nl);
	check_age_ccc(lv, nl);
	check_corrections(lv, nl);
}
