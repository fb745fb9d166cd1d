/*
 * test-lanes.c - lib-lanes: libfold's fast lanes against the library's own
 * general path.
 *
 * The program links two copies of libfold: the normal one and one built
 * with -DFOLD_NO_LANES, where every code point goes through expansion,
 * ordering and composition (its API renamed ref_fold_*, its internals made
 * local; see suite.mk).  Names are built to sit on the lanes' boundaries:
 * ASCII next to combining marks, composable starters at the end of a
 * copied span, a mark after a span, Hangul LV and LVT syllables before
 * trailing jamo, simple folds (old and new), capital precomposed letters
 * (composed folds) and small ones before marks that compose with them,
 * do not, or sort before their own marks, code points unassigned at
 * older versions, ignorables, compatibility characters, ill-formed bytes
 * and NULs in the middle of a span, long runs of marks.  For every context
 * (all forms and flags, several versions, the ext4 profile, ascii) each
 * name's key, normalized form and hash must equal the reference's, and so
 * must fold_cmp/fold_equal against a related name (its key, a one-element
 * change, a shared prefix, its ASCII letters' case flipped), which must
 * also agree with the order of the reference keys; fold_key with every cap from 0 to the key's
 * length must write exactly the key's prefix and nothing past cap.  And
 * fs_lead, from which fold_equal may answer "unequal" without streaming,
 * must give the first code point of the decomposed reference key for
 * every code point with data, followed by a mark or not; and fs_head,
 * from which fold_cmp may order names without streaming, the first code
 * point of the reference key.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fold.h"
#include "fold_stream.h" /* fs_lead, fs_head */

/* The reference copy (no fast lanes). */
ssize_t ref_fold_key(const struct fold_ctx *ctx, const char *s, size_t n,
		     char *out, size_t cap);
ssize_t ref_fold_normalize(const struct fold_ctx *ctx, const char *s,
			   size_t n, char *out, size_t cap);
uint64_t ref_fold_hash(const struct fold_ctx *ctx,
		       const struct fold_seed *seed, const char *s, size_t n);
int ref_fold_cmp(const struct fold_ctx *ctx, const char *a, size_t an,
		 const char *b, size_t bn);
int ref_fold_equal(const struct fold_ctx *ctx, const char *a, size_t an,
		   const char *b, size_t bn);
/* The benchmark's SipHash-1-3 (bench/lib/siphash.c), written apart. */
uint64_t bench_siphash13(uint64_t k0, uint64_t k1, const void *p, size_t n);

static const struct fold_seed seed = {0x0123456789abcdefull, 0x5eed};

/* Pieces names are made of: code points (as UTF-8) and raw byte strings.
 * Grouped by the lane boundary they probe. */
static const char *const pieces[] = {
	/* ASCII: letters of both cases, digits, punctuation */
	"a", "e", "o", "A", "E", "O", "Z", "z", "s", "i", "K", "1", ".", "_",
	" ", "readme", "IMG_", "Makefile", ".txt", "abcdefgh", "ABCDEFGHIJ",
	/* combining marks (several classes), incl. U+0345 and late ones */
	"\xCC\x80", "\xCC\x81", "\xCC\x88", "\xCC\xA3", "\xCC\xA7",
	"\xCD\x85", "\xCC\x9B", "\xD6\xB0", "\xE0\xBD\xB1", "\xE1\xAA\xB0",
	"\xE0\xA2\x98", "\xE3\x82\x99", "\xE3\x82\x9A", "\xCD\x8F",
	/* precomposed letters: quiet composites and their capitals */
	"\xC3\xA9", "\xC3\x89", "\xC3\xB6", "\xC3\x96", "\xC7\x96",
	"\xC8\xAB", "\xE1\xB8\x97", "\xE1\xBB\x87", "\xC3\xA5",
	"\xE1\xBD\x88", "\xCE\x88", "\xC7\x95", "\xE1\xB8\x80",
	"\xC7\xBA", "\xC3\x9C", "\xE1\xBA\xA0",
	/* capitals whose NFKC_CF key is one precomposed letter (composed
	 * folds) and their small letters, several scripts and ages: Latin
	 * (1.1; U+01F8, U+0200, U+022A from 3.0), Greek with tonos and
	 * dialytika, Greek Extended, Cyrillic (U+0400, U+040D from 3.0) */
	"\xC3\x8A", "\xC3\xAA", "\xC5\xB8", "\xC3\xBF", "\xC4\x82",
	"\xC7\xB8", "\xC7\xB9", "\xC8\x80", "\xC8\xAA", "\xCE\x86",
	"\xCE\xAC", "\xCE\x8C", "\xCE\x8F", "\xCE\xAA", "\xCF\x8A",
	"\xE1\xBC\x88", "\xE1\xBC\x80", "\xE1\xBC\x8C", "\xE1\xBE\x88",
	"\xD0\x99", "\xD0\xB9", "\xD0\x80", "\xD1\x90", "\xD0\x8D",
	"\xD3\x81", "\xD3\x90",
	/* ... followed by marks that compose with them or not, or that
	 * sort before the marks of their decomposition: e-circumflex +
	 * acute composes (U+1EBF), e-acute + acute does not, E-acute + dot
	 * below reorders; iota + diaeresis + acute, alpha + ypogegrammeni,
	 * Cyrillic I + breve */
	"\xC3\xAA\xCC\x81", "\xC3\x8A\xCC\x81", "\xC3\xA9\xCC\x81",
	"\xC3\x89\xCC\x81", "\xC3\x89\xCC\xA3", "\xC3\x8A\xCC\xA3",
	"\xCE\xB9\xCC\x88\xCC\x81", "\xCE\x99\xCC\x88\xCC\x81",
	"\xCE\xAA\xCC\x81", "\xCF\x8A\xCC\x81", "\xCE\xB1\xCD\x85",
	"\xCE\x86\xCD\x85", "\xCE\xAC\xCD\x85", "\xE1\xBC\x88\xCD\x85",
	"\xD0\x98\xCC\x86", "\xD0\x99\xCC\x88", "\xC3\x85\xCC\x81",
	"\xCC\x82", "\xCC\x86", "\xCC\x84", "\xCC\x93",
	/* a run of own keys (two, three, four bytes) whose last one is
	 * held for a mark that composes with it, or not: the lane looks it
	 * up only then (HOLD_AT).  Cyrillic ye + i + breve, Greek omicron +
	 * alpha + acute, katakana te + voiced mark, Hangul LV + trailing
	 * jamo, Kaithi DDDHA + nukta (U+1109A, 5.2), an emoji + acute */
	"\xD0\xB5\xD0\xB8\xCC\x86", "\xCE\xBF\xCE\xB1\xCC\x81",
	"\xE3\x83\x86\xE3\x82\x99", "\xEA\xB0\x80\xE1\x86\xA8",
	"\xF0\x91\x82\x99\xF0\x91\x82\xBA", "\xF0\x9F\x98\x80\xCC\x81",
	/* capitals among own keys, the last one folded before a mark
	 * that composes with its fold: Cyrillic, Greek (alpha + acute),
	 * simple folds of 5.1 and 7.0 (U+0370, U+0528) and from two bytes
	 * to three (U+023A -> U+2C65) */
	"\xD0\x97\xD0\x90\xD0\x9C\xD0\x95\xD0\xA2", "\xD0\xB5\xD0\x95\xCC\x88",
	"\xCF\x89\xCE\x91\xCC\x81", "\xCD\xB0", "\xD4\xA8", "\xCE\xB1\xCD\xB0",
	"\xD0\xB4\xC8\xBA\xD0\x94",
	/* Hangul syllables with leads EB and EC (taken without a look-up)
	 * inside a run, before a trailing jamo or a compatibility jamo
	 * that is one (U+3133) */
	"\xE4\xB8\x80\xEC\x82\xAC\xE1\x86\xA8", "\xEB\x82\x98\xEC\x82\xAC",
	"\xEB\x82\x98\xE3\x84\xB3", "\xEA\xB0\x80\xEB\x82\x98\xEA\x99\x80",
	/* ASCII letter + mark whose composite came in 3.0 (U+0229, U+01F8):
	 * composed only from 3.0 on */
	"e\xCC\xA7", "N\xCC\x80", "n\xCC\x80",
	/* simple folds: Greek, Cyrillic, Glagolitic (4.1), Georgian
	 * Mtavruli (11.0), Osage (9.0), Latin Ext-D (14.0), Cherokee */
	"\xCE\xA6", "\xCE\x91", "\xD0\x94", "\xD0\x81", "\xE2\xB0\x80",
	"\xE1\xB2\x90", "\xF0\x90\x92\xB0", "\xEA\x9F\x80", "\xEA\xAD\xB0",
	"\xE1\x8E\xA0", "\xCF\x86", "\xD0\xB4",
	/* folds to several code points, special cases */
	"\xC3\x9F", "\xEF\xAC\x81", "\xCE\x90", "\xC4\xB0", "\xE1\xBE\x80",
	/* canonical and different compatibility decompositions: U+1E9B
	 * (long s, dot above), U+03D3 (upsilon hook, acute), U+01C4 (DZ
	 * caron) */
	"\xE1\xBA\x9B", "\xCF\x93", "\xC7\x84",
	"\xE1\xBE\xBC", "\xCE\x86", "\xE2\x84\xAB", "\xE2\x84\xA6",
	"\xE0\xA5\x98", "\xE0\xBD\xB3", "\xCD\x84", "\xCD\xBA",
	/* Hangul: LV, LVT syllables, L, V, T jamo */
	"\xEA\xB0\x80", "\xEA\xB0\x81", "\xEC\x82\xAC", "\xED\x9E\xA3",
	"\xE1\x84\x80", "\xE1\x85\xA1", "\xE1\x86\xA8", "\xE1\x87\x82",
	/* CJK: URO, ext A (3.0), ext B (3.1), compatibility ideographs */
	"\xE4\xB8\x80", "\xE3\x90\x80", "\xF0\xA0\x80\x80",
	"\xEF\xA4\x80", "\xF0\xAF\xA0\x80", "\xE5\xA0\xB1",
	/* kana: half-width (compatibility), voiced marks, composed */
	"\xEF\xBE\x83", "\xEF\xBE\x9E", "\xE3\x83\x86", "\xE3\x83\x87",
	"\xE3\x83\x97", "\xEF\xBC\xA1", "\xEF\xBC\x92", "\xE2\x91\xA0",
	/* compatibility singletons in a run (full-width digits, letters
	 * before a mark that composes with their key, half-width kana
	 * before their voiced mark) */
	"\xEF\xBC\x92\xEF\xBC\x90\xE5\xB9\xB4", "\xEF\xBC\xA1\xCC\x81",
	"\xE4\xB8\x80\xEF\xBD\x85\xCC\x82", "\xEF\xBE\x83\xEF\xBE\x9E\xEF\xBD\xB0",
	"\xEF\xB7\xBA", /* U+FDFA: 18 code points under NFKD */
	/* ignorables (incl. reserved ones), ZWJ, variation selectors */
	"\xC2\xAD", "\xE2\x80\x8B", "\xE2\x80\x8D", "\xEF\xB8\x8F",
	"\xF3\xA0\x80\x81", "\xE2\x81\xA5", "\xEF\xBF\xB0",
	/* starters that compose with the starter before them (Tirhuta,
	 * 7.0: U+114B9 U+114BA -> U+114BB) and, from 16.0, composites whose
	 * decomposition starts with such a second: Gurung Khema U+16121 =
	 * U+1611E U+1611E, U+16124 = U+16129 U+1611F; Kirat Rai U+16D69 =
	 * U+16D63 U+16D67, U+16D6A = U+16D69 U+16D67 (unassigned at 15.0:
	 * lib-newer-ucd runs this program with newer tables) */
	"\xF0\x91\x92\xB9", "\xF0\x91\x92\xBA", "\xF0\x91\x92\xBB",
	"\xF0\x96\x84\x9E", "\xF0\x96\x84\xA1", "\xF0\x96\x84\xA4",
	"\xF0\x96\x84\xA9", "\xF0\x96\xB5\xA3", "\xF0\x96\xB5\xA7",
	"\xF0\x96\xB5\xA9", "\xF0\x96\xB5\xAA",
	/* emoji and other 4-byte code points, late assignments */
	"\xF0\x9F\x8E\x89", "\xE2\x9D\xA4", "\xF0\x9F\x8F\xBD",
	"\xF0\x9F\x98\x80", "\xE0\xA1\xA0", "\xF0\x9E\xA4\x80",
	"\xF0\x9E\xA4\xA2",
	/* ill-formed: stray continuation, overlong, surrogate, too big,
	 * truncated, C0/C1 leads, NUL */
	"\x80", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82",
	"\xC1", "\xFF", "\x00",
};
#define NPIECES (sizeof pieces / sizeof *pieces)
/* Index of the first ill-formed piece: names avoid them mostly. */
#define FIRST_BAD (NPIECES - 8)

static const struct ctxdef ctxs[] = {
	{"utf8", FOLD_NFD, 0},
	{"utf8", FOLD_NFC, 0},
	{"utf8", FOLD_NFKD, 0},
	{"utf8", FOLD_NFKC, 0},
	{"utf8", FOLD_CASEFOLD, 0},
	{"utf8", FOLD_CASEFOLD, FOLD_COMPAT},
	{"utf8", FOLD_CASEFOLD, FOLD_IGNORABLES},
	{"utf8", FOLD_NFKC_CF, 0},
	{"utf8", FOLD_NFC, FOLD_IGNORABLES},
	{"utf8", FOLD_NFKC_CF, FOLD_STRICT},
	{"utf8-1.1", FOLD_NFKC_CF, 0},
	{"utf8-1.1", FOLD_CASEFOLD, 0},
	{"utf8-2.0", FOLD_NFKC_CF, 0},
	{"utf8-3.0", FOLD_NFC, 0},
	{"utf8-4.0", FOLD_NFKC_CF, 0},
	{"utf8-9.0", FOLD_NFKC_CF, 0},
	{"utf8-9.0", FOLD_CASEFOLD, FOLD_COMPAT},
	{"utf8-12.1", FOLD_NFKC_CF, 0},
	{"utf8-13.0", FOLD_NFKC, 0},
	{"ext4", FOLD_CASEFOLD, 0}, /* the profile */
	{"ascii", FOLD_CASEFOLD, 0},
	{"ascii", FOLD_NFKC_CF, 0},
};
#define NCTX (sizeof ctxs / sizeof *ctxs)

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static unsigned below(unsigned n)
{
	return (unsigned)((ck_xorshift(&rng) >> 11) % n);
}

#define NAMEMAX 600

/* A name of up to about 14 pieces; 1 in 16 may hold an ill-formed piece,
 * 1 in 32 carries a run of 20-45 marks, 1 in 32 (another) 10-30 U+FDFA,
 * whose keys take several pieces of stream output. */
static size_t make_name(char *s)
{
	size_t n = 0;
	unsigned k, count = 1 + below(14);
	int bad_ok = below(16) == 0;
	for (k = 0; k < count; k++) {
		const char *p = pieces[below(bad_ok ? NPIECES : FIRST_BAD)];
		size_t l = *p ? strlen(p) : 1; /* "\x00" is one NUL byte */
		memcpy(s + n, p, l);
		n += l;
	}
	if (below(32) == 0) {
		unsigned m = 10 + below(21);
		for (k = 0; k < m && n + 3 < NAMEMAX - 64; k++) {
			memcpy(s + n, "\xEF\xB7\xBA", 3);
			n += 3;
		}
	}
	if (below(32) == 0) {
		unsigned m = 20 + below(26);
		for (k = 0; k < m; k++) {
			const char *p = pieces[21 + below(14)];
			size_t l = strlen(p);
			if (n + l > NAMEMAX - 64)
				break;
			memcpy(s + n, p, l);
			n += l;
		}
	}
	return n;
}

/* A name related to s: a different piece at one place, a shared prefix
 * with another tail, or its ASCII letters' case flipped. */
static size_t relate(const char *s, size_t n, char *t)
{
	size_t cut = n ? below((unsigned)n + 1) : 0, m, i;
	switch (below(3)) {
	case 0:
		memcpy(t, s, n);
		for (i = 0; i < n; i++)
			if (((t[i] | 32) >= 'a' && (t[i] | 32) <= 'z') &&
			    below(2))
				t[i] ^= 32;
		return n;
	case 1: {
		const char *p = pieces[below(FIRST_BAD)];
		size_t l = strlen(p);
		memcpy(t, s, cut);
		memcpy(t + cut, p, l);
		memcpy(t + cut + l, s + cut, n - cut);
		return n + l;
	}
	default:
		memcpy(t, s, cut);
		m = make_name(t + cut);
		return cut + m;
	}
}

static int sign(int x)
{
	return x < 0 ? -1 : x > 0;
}

static char key[8 * NAMEMAX * 18], rkey[8 * NAMEMAX * 18];
static char nrm[sizeof key], rnrm[sizeof key];

static void check_name(const struct fold_ctx *c, const struct ctxdef *d,
		       const char *s, size_t n, int buffers)
{
	ssize_t k = fold_key(c, s, n, key, sizeof key);
	ssize_t rk = ref_fold_key(c, s, n, rkey, sizeof rkey);
	ssize_t z, rz;
	ck(k == rk && (k < 0 || !memcmp(key, rkey, (size_t)k)),
	   "%s: key of %s: %s, reference %s", ctxdef_desc(d), ck_hex(s, n),
	   k < 0 ? "error" : ck_hex(key, (size_t)k),
	   rk < 0 ? "error" : ck_hex(rkey, (size_t)rk));
	z = fold_normalize(c, s, n, nrm, sizeof nrm);
	rz = ref_fold_normalize(c, s, n, rnrm, sizeof rnrm);
	ck(z == rz && (z < 0 || !memcmp(nrm, rnrm, (size_t)z)),
	   "%s: normalize %s: %s, reference %s", ctxdef_desc(d), ck_hex(s, n),
	   z < 0 ? "error" : ck_hex(nrm, (size_t)z),
	   rz < 0 ? "error" : ck_hex(rnrm, (size_t)rz));
	ck(fold_hash(c, &seed, s, n) == ref_fold_hash(c, &seed, s, n),
	   "%s: hash of %s differs from the reference", ctxdef_desc(d),
	   ck_hex(s, n));
	{
		/* fold_hash is SipHash-1-3 of the key (the bytes of an
		 * ill-formed name) under the seed with the context (but
		 * FOLD_STRICT) mixed in as fold_hash.c does */
		uint64_t cw = (uint64_t)c->charset | (uint64_t)c->form << 8 |
			      (uint64_t)c->age << 16 |
			      (uint64_t)(c->flags & ~(unsigned)FOLD_STRICT) << 24;
		uint64_t want = rk >= 0 ?
			bench_siphash13(seed.k0 ^ cw,
					seed.k1 ^ cw * 0x9E3779B97F4A7C15ull,
					rkey, (size_t)rk) :
			bench_siphash13(seed.k0 ^ cw,
					seed.k1 ^ cw * 0x9E3779B97F4A7C15ull,
					s, n);
		ck(fold_hash(c, &seed, s, n) == want,
		   "%s: hash of %s is not SipHash-1-3 of its key", ctxdef_desc(d),
		   ck_hex(s, n));
	}
	if (buffers && rk > 0) {
		/* every cap: the key's prefix, nothing past cap */
		size_t cap;
		for (cap = 0; cap <= (size_t)rk; cap++) {
			char buf[sizeof key];
			ssize_t r;
			memset(buf, 0xA5, cap + 8);
			r = fold_key(c, s, n, buf, cap);
			ck(r == rk && !memcmp(buf, rkey, cap) &&
				   (unsigned char)buf[cap] == 0xA5 &&
				   (unsigned char)buf[cap + 7] == 0xA5,
			   "%s: key of %s with cap %zu: %zd, want %zd and "
			   "the key's prefix only",
			   ctxdef_desc(d), ck_hex(s, n), cap, r, rk);
		}
	}
}

static char ka[sizeof key], kb[sizeof key];

/* fold_cmp and fold_equal against the reference copy's, and against the
 * order of the reference keys (memcmp, shorter prefix first), which does
 * not depend on fold_cmp.c at all. */
static void check_pair(const struct fold_ctx *c, const struct ctxdef *d,
		       const char *a, size_t an, const char *b, size_t bn)
{
	int r = fold_cmp(c, a, an, b, bn), rr = ref_fold_cmp(c, a, an, b, bn);
	int e = fold_equal(c, a, an, b, bn);
	int re = ref_fold_equal(c, a, an, b, bn);
	ssize_t la = ref_fold_key(c, a, an, ka, sizeof ka);
	ssize_t lb = ref_fold_key(c, b, bn, kb, sizeof kb);
	ck(sign(r) == sign(rr) && e == re && e == (r == 0),
	   "%s: %s vs %s: cmp %d equal %d, reference cmp %d equal %d",
	   ctxdef_desc(d), ck_hex(a, an), ck_hex(b, bn), r, e, rr, re);
	if (la >= 0 && lb >= 0) {
		size_t m = (size_t)(la < lb ? la : lb);
		int kd = memcmp(ka, kb, m);
		if (!kd)
			kd = la < lb ? -1 : la > lb;
		ck(sign(r) == sign(kd) && e == !kd,
		   "%s: %s vs %s: cmp %d equal %d, keys order %d", ctxdef_desc(d),
		   ck_hex(a, an), ck_hex(b, bn), r, e, sign(kd));
	}
}

/* The code points fs_lead and fs_head are probed with: every one up to
 * U+2FFFF and the tags and variation selectors, no surrogates (skip:
 * 1); each followed by a short text (probe_name: the name's length). */
static int probe_skip(uint32_t *cp)
{
	if (*cp == 0x30000)
		*cp = 0xE0000;
	return *cp - 0xD800 < 0x800;
}

static size_t probe_name(uint32_t cp, const char *after, char *s)
{
	size_t n = u8_put(cp, s);
	memcpy(s + n, after, strlen(after));
	return n + strlen(after);
}

/* fs_lead (fold_stream.h, which fold_equal trusts to call names unequal
 * early): wherever it answers, the first code point of the canonical
 * decomposition of the reference key, or FS_LEAD_END for an empty key.
 * Every code point that has data (below U+30000 and the E0000 block;
 * the rest is plain), each followed by one of a few code points that
 * combine with (marks, a V or T jamo), reorder after or vanish next to
 * it, or by nothing. */
static void check_leads(const struct fold_ctx *c, const struct ctxdef *d)
{
	static const char *const after[] = {
		"", "\xCC\x81", "\xCD\x85", "\xE3\x82\x99", "\xE1\x85\xA1",
		"\xE1\x86\xA8", "\xC2\xAD", "\xCC\xA3", "a",
	};
	struct fold_ctx nfd;
	/* the decomposition at the context's version */
	const char *enc = strcmp(d->enc, "ext4") ? d->enc : "utf8-12.1";
	unsigned long known = 0, all = 0, bad = 0;
	uint32_t cp;
	if (!ck(fold_init(&nfd, enc, FOLD_NFD, 0) == 0, "%s: no NFD context",
		enc))
		return;
	for (cp = 1; cp < 0xE1000; cp++) {
		char s[16];
		const char *a = after[cp % (sizeof after / sizeof *after)];
		size_t n;
		ssize_t k, m;
		int32_t lead, want;
		uint32_t first;
		if (probe_skip(&cp))
			continue;
		n = probe_name(cp, a, s);
		all++;
		lead = fs_lead(c, (const unsigned char *)s,
			       (const unsigned char *)s + n);
		if (lead < 0)
			continue;
		known++;
		k = ref_fold_key(c, s, n, rkey, sizeof rkey);
		m = k < 0 ? -1 : ref_fold_normalize(&nfd, rkey, (size_t)k, rnrm,
						    sizeof rnrm);
		want = m < 0 ? -1 : !m ? FS_LEAD_END :
			(u8_decode(rnrm, (size_t)m, &first, 1), (int32_t)first);
		if (!ck(lead == want, "%s: fs_lead(%s) = U+%04X, key leads with "
			"U+%04X", ctxdef_desc(d), ck_hex(s, n), (unsigned)lead,
			(unsigned)want))
			bad++;
	}
	ck_info("%s: fs_lead answered for %lu of %lu names (%lu wrong)",
		ctxdef_desc(d), known, all, bad);
}

/* fs_head (fold_stream.h, from whose answers for two names fold_cmp
 * may order them without streaming): wherever it answers, the first code
 * point of the reference key.  The same names as for fs_lead. */
static void check_heads(const struct fold_ctx *c, const struct ctxdef *d)
{
	static const char *const after[] = {
		"", "\xCC\x81", "\xCD\x85", "\xE3\x82\x99", "\xE1\x85\xA1",
		"\xE1\x86\xA8", "\xC2\xAD", "\xCC\xA3", "a",
	};
	unsigned long known = 0, all = 0, bad = 0;
	uint32_t cp;
	for (cp = 1; cp < 0xE1000; cp++) {
		char s[16];
		const char *a = after[cp % (sizeof after / sizeof *after)];
		size_t n;
		ssize_t k;
		int32_t head, want;
		uint32_t first;
		if (probe_skip(&cp))
			continue;
		n = probe_name(cp, a, s);
		all++;
		head = fs_head(c, (const unsigned char *)s,
			       (const unsigned char *)s + n);
		if (head < 0)
			continue;
		known++;
		k = ref_fold_key(c, s, n, rkey, sizeof rkey);
		want = k <= 0 ? -1 :
			(u8_decode(rkey, (size_t)k, &first, 1), (int32_t)first);
		if (!ck(head == want, "%s: fs_head(%s) = U+%04X, key starts "
			"with U+%04X", ctxdef_desc(d), ck_hex(s, n),
			(unsigned)head, (unsigned)want))
			bad++;
	}
	ck_info("%s: fs_head answered for %lu of %lu names (%lu wrong)",
		ctxdef_desc(d), known, all, bad);
}

int main(int argc, char **argv)
{
	unsigned long names = 6000, i;
	size_t j;
	static char s[NAMEMAX], t[NAMEMAX * 2];
	for (i = 1; i < (unsigned long)argc; i++) {
		if (!strcmp(argv[i], "--names") && i + 1 < (unsigned long)argc) {
			names = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--help")) {
			printf("Usage: test-lib-lanes [--names N]\n\n"
			       "Checks libfold's fast lanes against the same "
			       "library built without them\n(FOLD_NO_LANES): "
			       "keys, normalized forms, hashes, fold_cmp and\n"
			       "fold_equal of N generated names (default 6000) "
			       "built from pieces that\nsit on the lanes' "
			       "boundaries, under every form and several "
			       "versions, and\nfold_key at every buffer size "
			       "for 1 name in 8; fs_lead for every\ncode "
			       "point with data.  Ends with \"N passed, N "
			       "failed\".\n");
			return 0;
		} else {
			fprintf(stderr, "test-lib-lanes: bad argument '%s' "
				"(see --help)\n", argv[i]);
			return 2;
		}
	}
	for (j = 0; j < NCTX; j++) {
		const struct ctxdef *d = &ctxs[j];
		struct fold_ctx c;
		static char gname[NCTX][64]; /* ck_group keeps the pointer */
		int err = !strcmp(d->enc, "ext4") ?
				  fold_init_profile(&c, "ext4") :
				  fold_init(&c, d->enc, (enum fold_form)d->form, d->flags);
		snprintf(gname[j], sizeof gname[j], "%s", ctxdef_desc(d));
		ck_group(gname[j]);
		if (!ck(err == 0, "%s: fold_init failed: %d", ctxdef_desc(d), err))
			continue;
		if (strcmp(d->enc, "ascii")) {
			check_leads(&c, d);
			check_heads(&c, d);
		}
		rng = 0x2545F4914F6CDD1Dull + j; /* each context its names */
		for (i = 0; i < names; i++) {
			size_t n = make_name(s), m;
			check_name(&c, d, s, n, i % 8 == 0);
			m = relate(s, n, t);
			check_name(&c, d, t, m, 0);
			check_pair(&c, d, s, n, t, m);
			/* a name against its own key */
			{
				ssize_t k = ref_fold_key(&c, s, n, rkey,
							 sizeof rkey);
				if (k >= 0 && (size_t)k < sizeof t) {
					memcpy(t, rkey, (size_t)k);
					check_pair(&c, d, s, n, t, (size_t)k);
				}
			}
		}
	}
	return ck_finish();
}
