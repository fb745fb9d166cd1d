/*
 * test-invalid.c - lib-invalid: libfold on hostile and edge-case input.
 *
 *  - a table of ill-formed UTF-8 with the fold_validate() offset each must
 *    report (first byte of the first ill-formed sequence), derived from the
 *    table's construction, not from the library;
 *  - the validators against a plain reading of the standard's table of
 *    well-formed sequences: every string of up to three bytes, four-byte
 *    strings at every byte-class boundary, random strings and pairs;
 *  - opaque-blob rules: an ill-formed name is never folded, equals only
 *    itself, hashes equal only to itself; strict contexts refuse it;
 *  - the output-buffer contract (guard bytes past cap, cap 0, exact fit);
 *  - huge expansions and a 10,000-mark combining run;
 *  - NUL-terminated variants agree with the length variants;
 *  - a self-consistency run over random byte strings: cmp sign == memcmp
 *    of keys, equal <=> keys equal <=> hashes equal, symmetry.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fold.h"

static const struct fold_seed seed = {0x9e3779b97f4a7c15ull, 77};

/* Every form and flag worth distinguishing, plus a few versions. */
static const struct ctxdef ctxs[] = {
	{"utf8", FOLD_NFD, 0},
	{"utf8", FOLD_NFC, 0},
	{"utf8", FOLD_NFKD, 0},
	{"utf8", FOLD_NFKC, 0},
	{"utf8", FOLD_CASEFOLD, 0},
	{"utf8", FOLD_CASEFOLD, FOLD_COMPAT},
	{"utf8", FOLD_CASEFOLD, FOLD_IGNORABLES},
	{"utf8", FOLD_NFKC_CF, 0},
	{"utf8-12.1", FOLD_CASEFOLD, FOLD_IGNORABLES},
	/* the ext4 profile, and the kernel's order alone: long runs of
	 * marks are ordered whole there (fs_long) */
	{"utf8-12.1", FOLD_CASEFOLD, FOLD_IGNORABLES | FOLD_KERNEL_ORDER},
	{"utf8", FOLD_NFD, FOLD_KERNEL_ORDER},
	{"utf8-3.1", FOLD_NFD, 0},
	{"ascii", FOLD_CASEFOLD, 0},
};
#define NCTX (sizeof ctxs / sizeof *ctxs)

static int init(struct fold_ctx *c, const struct ctxdef *d, unsigned extra)
{
	int r = fold_init(c, d->enc, (enum fold_form)d->form, d->flags | extra);

	return ck(r == 0, "fold_init %s +0x%x = %d", ctxdef_desc(d), extra, r);
}

/* ---- ill-formed table -------------------------------------------------- */

struct bad {
	const char *s;
	size_t n;
	long off; /* expected offset, -1 = well formed */
};

#define B(lit, off) {lit, sizeof lit - 1, off}
static const struct bad fixed[] = {
	B("abc", -1),
	B("\xC0\x80", 0),
	B("a\xC0\x80", 1),
	B("\xC1\xBF", 0),
	B("\xE0\x80\x80", 0),
	B("ab\xE0\x80\x80", 2),
	B("\xE0\x9F\xBF", 0),
	B("\xE0\xA0\x80", -1),
	B("\xF0\x80\x80\x80", 0),
	B("\xF0\x8F\xBF\xBF", 0),
	B("\xF0\x90\x80\x80", -1),
	B("\xED\xA0\x80", 0),
	B("x\xED\xBF\xBF", 1),
	B("\xED\x9F\xBF", -1),
	B("\xEE\x80\x80", -1),
	B("\xF4\x90\x80\x80", 0),
	B("\xF4\x8F\xBF\xBF", -1),
	B("\xF5\x80\x80\x80", 0),
	B("\xF7\xBF\xBF\xBF", 0),
	B("\xF8\x88\x80\x80\x80", 0),
	B("\xFC\x84\x80\x80\x80\x80", 0),
	B("\xFE", 0),
	B("\xFF", 0),
	B("ab\376cd", 2),
	B("\x80", 0),
	B("ab\xBF", 2),
	B("\xC3\xA9\xA9", 2),
	B("a\0b", 1),
	B("\0", 0),
	B("\xC3\xA9\xC0\x80", 2),
	B("\xE2\x82\xAC\xE2\x82", 3),
	B("corac\xCC\xA7\xC3", 7),
	B("\303a", 0),
	B("\xE2\x28\xA1", 0),
	B("\xF0\x9F\x98", 0),
};

/* Truncations and bad continuations of every valid multi-byte shape. */
static size_t gen_truncations(struct bad *out, char store[][16])
{
	static const char *seqs[] = {"\xC3\xA9", "\xDF\xBF", "\xE2\x82\xAC",
				     "\xEF\xBF\xBD", "\xF0\x9F\x98\x80",
				     "\xF4\x8F\xBF\xBF"};
	size_t n = 0;

	for (size_t i = 0; i < sizeof seqs / sizeof *seqs; i++) {
		size_t len = strlen(seqs[i]);

		for (size_t k = 1; k < len; k++) {
			/* "x" + prefix: truncated at the end */
			store[n][0] = 'x';
			memcpy(store[n] + 1, seqs[i], k);
			out[n] = (struct bad){store[n], 1 + k, 1};
			n++;
			/* "x" + prefix + "y": truncated before ASCII */
			store[n][0] = 'x';
			memcpy(store[n] + 1, seqs[i], k);
			store[n][1 + k] = 'y';
			out[n] = (struct bad){store[n], 2 + k, 1};
			n++;
			/* prefix + a complete sequence */
			memcpy(store[n], seqs[i], k);
			memcpy(store[n] + k, "\xC3\xA9", 2);
			out[n] = (struct bad){store[n], k + 2, 0};
			n++;
		}
		/* the whole sequence, then a stray continuation */
		memcpy(store[n], seqs[i], len);
		store[n][len] = (char)0x80;
		out[n] = (struct bad){store[n], len + 1, (long)len};
		n++;
	}
	return n;
}

static void check_table(const struct bad *t, size_t n)
{
	struct fold_ctx c, cs;

	if (!init(&c, &ctxs[4], 0) || !init(&cs, &ctxs[4], FOLD_STRICT))
		return;
	for (size_t i = 0; i < n; i++) {
		size_t off = 12345;
		int r = fold_validate(&c, t[i].s, t[i].n, &off);
		char out[64];
		ssize_t k;

		if (t[i].off < 0) {
			ck(r == 0, "fold_validate(%s) = %d, want 0",
			   ck_hex(t[i].s, t[i].n), r);
			continue;
		}
		ck(r == FOLD_EILSEQ && off == (size_t)t[i].off,
		   "fold_validate(%s) = %d offset %zu, want EILSEQ at %ld",
		   ck_hex(t[i].s, t[i].n), r, off, t[i].off);
		ck(fold_validate(&c, t[i].s, t[i].n, NULL) == FOLD_EILSEQ,
		   "fold_validate(%s, NULL offset)", ck_hex(t[i].s, t[i].n));
		/* strict key, and normalize always: refused, nothing written */
		for (int call = 0; call < 3; call++) {
			static const char *const what[] = {
				"strict fold_key", "strict fold_normalize",
				"fold_normalize"};
			memset(out, 0xA5, sizeof out);
			k = call == 0 ? fold_key(&cs, t[i].s, t[i].n, out, sizeof out)
			    : call == 1
				    ? fold_normalize(&cs, t[i].s, t[i].n, out, sizeof out)
				    : fold_normalize(&c, t[i].s, t[i].n, out, sizeof out);
			ck(k == FOLD_EILSEQ, "%s(%s) = %zd, want EILSEQ",
			   what[call], ck_hex(t[i].s, t[i].n), k);
			int untouched = 1;
			for (size_t j = 0; j < sizeof out; j++)
				untouched &= out[j] == (char)0xA5;
			ck(untouched, "%s(%s) returned EILSEQ but wrote to the "
				      "buffer",
			   what[call], ck_hex(t[i].s, t[i].n));
		}
		/* non-strict key: the raw bytes */
		k = fold_key(&c, t[i].s, t[i].n, out, sizeof out);
		ck(k == (ssize_t)t[i].n && !memcmp(out, t[i].s, t[i].n),
		   "fold_key(%s) = %s, want the raw bytes",
		   ck_hex(t[i].s, t[i].n),
		   k >= 0 ? ck_hex(out, (size_t)k) : "error");
		/* between capitals, which a decoder that let the bad bytes
		 * pass as a code point would fold around them: still the
		 * raw bytes, the whole name */
		{
			char z[80];
			size_t zn = t[i].n + 2;
			z[0] = 'Z';
			memcpy(z + 1, t[i].s, t[i].n);
			z[zn - 1] = 'Z';
			k = fold_key(&c, z, zn, out, sizeof out);
			ck(k == (ssize_t)zn && !memcmp(out, z, zn),
			   "fold_key(%s) = %s, want the raw bytes",
			   ck_hex(z, zn), k >= 0 ? ck_hex(out, (size_t)k) : "error");
		}
		/* strict compare/hash still work (opaque) */
		ck(fold_equal(&cs, t[i].s, t[i].n, t[i].s, t[i].n) == 1 &&
			   fold_cmp(&cs, t[i].s, t[i].n, t[i].s, t[i].n) == 0,
		   "strict: %s not equal to itself", ck_hex(t[i].s, t[i].n));
	}
}

/* ---- opaque blobs ------------------------------------------------------ */

static void pair_rule(const struct fold_ctx *c, const char *a, size_t an,
		      const char *b, size_t bn, int want_equal,
		      const char *why)
{
	int e = fold_equal(c, a, an, b, bn);
	int r1 = fold_cmp(c, a, an, b, bn), r2 = fold_cmp(c, b, bn, a, an);
	uint64_t ha = fold_hash(c, &seed, a, an), hb = fold_hash(c, &seed, b, bn);

	ck(e == want_equal && (r1 == 0) == want_equal &&
		   (r1 > 0) == (r2 < 0) && (r1 < 0) == (r2 > 0),
	   "%s: %s vs %s: equal %d cmp %d/%d, want %s", why, ck_hex(a, an),
	   ck_hex(b, bn), e, r1, r2, want_equal ? "equal" : "different");
	ck((ha == hb) == want_equal, "%s: %s vs %s: hashes %s", why,
	   ck_hex(a, an), ck_hex(b, bn), ha == hb ? "equal" : "differ");
}

/* A bad byte (NUL, a stray continuation, C0, FF) put at every code point
 * boundary of well-formed names of every shape (long ASCII runs that the
 * validator takes eight at a time, two-, three- and four-byte code
 * points): fold_validate must report exactly that offset, and the key of
 * the name is its bytes. */
static void check_positions(void)
{
	static const char *const names[] = {
		"abcdefghijklmnopqrstuvwxyz0123456789",
		("r\xC3\xA9sum\xC3\xA9_\xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2"
		 "\xD0\xB0_2023-12-05.txt"),
		"\xE5\xA0\xB1\xE5\x91\x8A\xE6\x9B\xB8 final report.pdf",
		"\xF0\x9F\x8E\x89party\xF0\x9F\x8E\x89photos_2023.jpg",
	};
	static const unsigned char bad[] = {0x00, 0x80, 0xC0, 0xFF};
	struct fold_ctx c;
	char buf[128], key[512];

	if (!init(&c, &ctxs[4], 0))
		return;
	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		size_t n = strlen(names[k]);
		for (size_t i = 0; i <= n; i++) {
			if (i < n && (names[k][i] & 0xC0) == 0x80)
				continue; /* not a boundary */
			for (size_t b = 0; b < sizeof bad; b++) {
				size_t off = 9999;
				ssize_t r;
				memcpy(buf, names[k], i);
				buf[i] = (char)bad[b];
				memcpy(buf + i + 1, names[k] + i, n - i);
				ck(fold_validate(&c, buf, n + 1, &off) ==
						   FOLD_EILSEQ &&
					   off == i,
				   "%s: bad byte %02X at %zu: offset %zu",
				   ck_hex(buf, n + 1), bad[b], i, off);
				r = fold_key(&c, buf, n + 1, key, sizeof key);
				ck(r == (ssize_t)n + 1 && !memcmp(key, buf, n + 1),
				   "%s: key of an ill-formed name is not its "
				   "bytes", ck_hex(buf, n + 1));
			}
		}
	}
}

/* ---- the validator against a plain reading of the standard ------------ */

/* libfold's internal yes/no validators (lib/fold_internal.h; hidden in the
 * shared object, linked here from libfold.a). */
int fold_utf8_ok(const unsigned char *s, size_t n);
int fold_utf8_ok2(const unsigned char *a, size_t an, const unsigned char *b,
		  size_t bn);

/* Offset of the first ill-formed sequence of s[0..n), -1 if none: the
 * Unicode Standard's table of well-formed byte sequences (Table 3-7),
 * read byte by byte, with NUL refused as names refuse it. */
static long ref_check(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i], len, lo = 0x80, hi = 0xBF;
		if (c == 0)
			return (long)i;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			len = 2;
		else if (c >= 0xE0 && c <= 0xEF)
			len = 3;
		else if (c >= 0xF0 && c <= 0xF4)
			len = 4;
		else
			return (long)i;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
		else if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
		if (i + len > n || s[i + 1] < lo || s[i + 1] > hi)
			return (long)i;
		for (unsigned k = 2; k < len; k++)
			if ((s[i + k] & 0xC0) != 0x80)
				return (long)i;
		i += len;
	}
	return -1;
}

/* One string: fold_validate's verdict and offset, and the internal
 * yes/no answer, as the reference says. */
static int validate_one(const struct fold_ctx *c, const unsigned char *s,
			size_t n)
{
	long want = ref_check(s, n);
	size_t off = 9999;
	int r = fold_validate(c, (const char *)s, n, &off);
	int ok = want < 0 ? r == 0 : r == FOLD_EILSEQ && off == (size_t)want;
	ok &= fold_utf8_ok(s, n) == (want < 0);
	if (ok) /* (no message to format: millions of these) */
		return ck(1, "validator");
	return ck(0, "%s: validate %d offset %zu, ok %d; reference %ld",
		  ck_hex(s, n), r, off, fold_utf8_ok(s, n), want);
}

/* Every string of up to three bytes; four-byte strings of every first
 * two bytes and third and fourth bytes at every class boundary; random
 * strings of well-formed pieces and bad bytes, also two at a time
 * (fold_utf8_ok2).  The yes/no validator is an automaton on byte classes,
 * so the boundaries of every class are what matters. */
static void check_validator(void)
{
	static const unsigned char edge[] = {
		0x00, 0x01, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
		0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF,
		0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
	static const char *const pieces[] = {
		"a", "Z", " ", "\xC3\xA9", "\xC2\x80", "\xDF\xBF",
		"\xE0\xA0\x80", "\xE1\x80\x80", "\xED\x9F\xBF", "\xEE\x80\x80",
		"\xEF\xBF\xBD", "\xE4\xBD\xA0", "\xF0\x90\x80\x80",
		"\xF0\x9F\x98\x80", "\xF3\xBF\xBF\xBF", "\xF4\x8F\xBF\xBF"};
	static const unsigned char bad[] = {
		0x00, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4,
		0xF5, 0xFF};
	unsigned long fail0 = ck_total_fail, n4 = 0, nr = 0;
	uint64_t rs = 0x5DEECE66Dull;
	unsigned char s[4], a[96], b[96];
	struct fold_ctx c;

	if (!init(&c, &ctxs[4], 0))
		return;
	validate_one(&c, s, 0);
	for (unsigned x = 0; x < 256 && ck_total_fail - fail0 < 20; x++) {
		s[0] = (unsigned char)x;
		validate_one(&c, s, 1);
		for (unsigned y = 0; y < 256; y++) {
			s[1] = (unsigned char)y;
			validate_one(&c, s, 2);
			for (unsigned z = 0; z < 256; z++) {
				s[2] = (unsigned char)z;
				validate_one(&c, s, 3);
			}
			if (!memchr(edge, (int)x, sizeof edge))
				continue; /* as another byte of its class */
			for (size_t k = 0; k < sizeof edge; k++)
				for (size_t l = 0; l < sizeof edge; l++) {
					s[2] = edge[k];
					s[3] = edge[l];
					validate_one(&c, s, 4);
					n4++;
				}
		}
	}
	for (unsigned long i = 0; i < 200000 && ck_total_fail - fail0 < 20;
	     i++) {
		size_t an = 0, bn = 0;
		unsigned char *t[2] = {a, b};
		size_t *tn[2] = {&an, &bn};
		long wa, wb;
		for (int h = 0; h < 2; h++) {
			size_t len = ck_xorshift(&rs) % 60;
			while (*tn[h] < len) {
				uint64_t r = ck_xorshift(&rs);
				if (r % 64 == 0) {
					t[h][(*tn[h])++] = bad[r / 64 % sizeof bad];
				} else {
					const char *p =
						pieces[r / 64 % (sizeof pieces /
								 sizeof *pieces)];
					size_t pn = strlen(p);
					/* runs of a piece, as names have */
					for (unsigned k = (unsigned)(r >> 20) % 9 + 1;
					     k && *tn[h] + pn <= sizeof a; k--) {
						memcpy(t[h] + *tn[h], p, pn);
						*tn[h] += pn;
					}
				}
			}
		}
		validate_one(&c, a, an);
		validate_one(&c, b, bn);
		wa = ref_check(a, an);
		wb = ref_check(b, bn);
		ck(fold_utf8_ok2(a, an, b, bn) == (wa < 0 && wb < 0),
		   "%s and %s: ok2 %d, reference %ld %ld", ck_hex(a, an),
		   ck_hex(b, bn), fold_utf8_ok2(a, an, b, bn), wa, wb);
		nr++;
	}
	ck_info("every string of 0-3 bytes, %lu of 4 bytes, %lu random pairs",
		n4, nr);
}

static void check_blobs(void)
{
	/* xfstests generic/556 bad_casefold_lookup */
	static const char a[] = "corac\xCC\xA7\xC3", b[] = "cora\xC3\xA7\xC3";
	static const char *blobs[] = {
		"ABC\xFF",	 "abc\xFF",	  "abc",	"abc\xFE",
		"\377abc",	 "cafe\xCC\x81\x80", "caf\xC3\xA9\x80",
		"\xC0\xAF",	 "\xC0\xAE",	  "urk\xC0\xAFmoo",
		"\xED\xA0\x80", "\xED\xA0\x81", "\xF4\x90\x80\x80",
		"\xC3",		 "\xC3\xA9",	  "\xC3\x89",
	};
	size_t nb = sizeof blobs / sizeof *blobs;
	struct fold_ctx c, cs;

	for (size_t k = 0; k < NCTX; k++) {
		if (!init(&c, &ctxs[k], 0) || !init(&cs, &ctxs[k], FOLD_STRICT))
			continue;
		if (c.charset == FOLD_CHARSET_ASCII) {
			pair_rule(&c, "a\0b", 3, "A\0B", 3, 0,
				  "ascii: NUL makes a blob");
			pair_rule(&c, "a\0b", 3, "a\0b", 3, 1, "ascii blob");
			continue;
		}
		pair_rule(&c, a, sizeof a - 1, b, sizeof b - 1, 0, ctxdef_desc(&ctxs[k]));
		pair_rule(&cs, a, sizeof a - 1, b, sizeof b - 1, 0,
			  "strict");
		pair_rule(&c, a, sizeof a - 1, a, sizeof a - 1, 1, "self");
		/* every blob (and valid name) against every other */
		for (size_t i = 0; i < nb; i++)
			for (size_t j = 0; j < nb; j++) {
				size_t in = strlen(blobs[i]),
				       jn = strlen(blobs[j]);
				size_t bo;
				int iv = fold_validate(&c, blobs[i], in, &bo) == 0,
				    jv = fold_validate(&c, blobs[j], jn, &bo) == 0;
				char ki[64], kj[64];
				ssize_t kin, kjn;
				int want;

				if (iv && jv)
					continue; /* valid pairs: elsewhere */
				kin = fold_key(&c, blobs[i], in, ki, sizeof ki);
				kjn = fold_key(&c, blobs[j], jn, kj, sizeof kj);
				/* a blob equals only itself, byte for byte */
				want = i == j;
				pair_rule(&c, blobs[i], in, blobs[j], jn, want,
					  ctxdef_desc(&ctxs[k]));
				if (kin >= 0 && kjn >= 0) {
					int m = memcmp(ki, kj,
						       (size_t)(kin < kjn ? kin
									  : kjn));
					int r = fold_cmp(&c, blobs[i], in,
							 blobs[j], jn);
					if (!m)
						m = (kin > kjn) - (kin < kjn);
					ck((r > 0) == (m > 0) &&
						   (r < 0) == (m < 0),
					   "%s: cmp(%s, %s) = %d, keys memcmp "
					   "%d",
					   ctxdef_desc(&ctxs[k]),
					   ck_hex(blobs[i], in),
					   ck_hex(blobs[j], jn), r, m);
				}
			}
	}
}

/* ---- buffer contract --------------------------------------------------- */

static void buffer_one(const struct fold_ctx *c, const struct ctxdef *d,
		       const char *s, size_t n, int use_key)
{
	static char full[65536], buf[65536 + 64];
	ssize_t r = use_key ? fold_key(c, s, n, full, sizeof full)
			    : fold_normalize(c, s, n, full, sizeof full);
	ssize_t r0;
	size_t caps[8], ncaps = 0;

	if (!ck(r >= 0 && (size_t)r <= sizeof full, "%s: sizing %s = %zd",
		ctxdef_desc(d), ck_hex(s, n), r))
		return;
	r0 = use_key ? fold_key(c, s, n, NULL, 0)
		     : fold_normalize(c, s, n, NULL, 0);
	ck(r0 == r, "%s: cap 0 with NULL out returned %zd, want %zd",
	   ctxdef_desc(d), r0, r);
	caps[ncaps++] = 0;
	caps[ncaps++] = 1;
	caps[ncaps++] = (size_t)r / 2;
	if (r > 0)
		caps[ncaps++] = (size_t)r - 1;
	caps[ncaps++] = (size_t)r;
	caps[ncaps++] = (size_t)r + 1;
	for (size_t i = 0; i < ncaps; i++) {
		size_t cap = caps[i], w = cap < (size_t)r ? cap : (size_t)r;
		ssize_t got;
		int guard_ok = 1;

		memset(buf, 0xA5, cap + 64);
		got = use_key ? fold_key(c, s, n, buf, cap)
			      : fold_normalize(c, s, n, buf, cap);
		for (size_t j = cap; j < cap + 64; j++)
			guard_ok &= buf[j] == (char)0xA5;
		ck(got == r, "%s: cap %zu returned %zd, want %zd (%s)",
		   ctxdef_desc(d), cap, got, r, ck_hex(s, n > 24 ? 24 : n));
		ck(guard_ok, "%s: cap %zu: wrote past cap (%s)", ctxdef_desc(d), cap,
		   ck_hex(s, n > 24 ? 24 : n));
		ck(!memcmp(buf, full, w),
		   "%s: cap %zu: output is not a prefix of the full result",
		   ctxdef_desc(d), cap);
	}
}

static size_t repeat(char *out, const char *unit, size_t times)
{
	size_t u = strlen(unit);

	for (size_t i = 0; i < times; i++)
		memcpy(out + i * u, unit, u);
	return u * times;
}

static void check_buffers(void)
{
	static const char *inputs[] = {
		"", "a", "README.md", "Stra\303\237e",
		"\xEF\xB7\xBA",				 /* U+FDFA */
		"\xC7\x84",				 /* U+01C4 DZ caron */
		"\xE1\xBE\x82",				 /* U+1F82 */
		"\xEA\xB0\x80\xEA\xB0\x81",		 /* Hangul */
		"cafe\xCC\x81",				 /* NFD */
		"\xEF\xAC\x83",				 /* U+FB03 ffi */
		"\xE2\x80\x8C\xE2\x80\x8D",		 /* ZWNJ ZWJ */
		"\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9", /* ZWJ emoji */
		"abc\xFF",				 /* blob */
	};
	static char big[1024];
	struct fold_ctx c;

	for (size_t k = 0; k < NCTX; k++) {
		if (!init(&c, &ctxs[k], 0))
			continue;
		for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
			buffer_one(&c, &ctxs[k], inputs[i], strlen(inputs[i]),
				   1);
			if (fold_validatez(&c, inputs[i], NULL) == 0)
				buffer_one(&c, &ctxs[k], inputs[i],
					   strlen(inputs[i]), 0);
		}
		/* 255 bytes of U+FDFA: 85 copies, each expanding alone */
		size_t n = repeat(big, "\xEF\xB7\xBA", 85);
		buffer_one(&c, &ctxs[k], big, n, 1);
		if (c.charset == FOLD_CHARSET_UTF8) {
			char one[256];
			static char all[65536];
			ssize_t k1 = fold_key(&c, "\xEF\xB7\xBA", 3, one,
					      sizeof one);
			ssize_t ka = fold_key(&c, big, n, all, sizeof all);
			int same = k1 >= 0 && ka == 85 * k1;

			for (int j = 0; same && j < 85; j++)
				same = !memcmp(all + j * k1, one, (size_t)k1);
			ck(same, "%s: key(85 x U+FDFA) != 85 x key(U+FDFA) "
				 "(%zd vs 85 x %zd)",
			   ctxdef_desc(&ctxs[k]), ka, k1);
			if (ctxs[k].form == FOLD_NFKD ||
			    ctxs[k].form == FOLD_NFKC_CF)
				ck(ka > 2500, "%s: U+FDFA x 85 only %zd bytes",
				   ctxdef_desc(&ctxs[k]), ka);
		}
	}
}

/* ---- long combining runs ---------------------------------------------- */

static void check_long_runs(void)
{
	/* x: "a" + 5000 x (U+0301 U+0316); y: the same with each pair
	 * swapped (canonically equivalent); z: a different mark order. */
	static char x[20010], y[20010], z[20010];
	static char kx[200000], ky[200000];
	size_t xn = 1, yn = 1, zn = 1;
	struct fold_ctx c;

	x[0] = y[0] = z[0] = 'a';
	for (int i = 0; i < 5000; i++) {
		memcpy(x + xn, "\xCC\x81\xCC\x96", 4);
		memcpy(y + yn, "\xCC\x96\xCC\x81", 4);
		memcpy(z + zn, i == 2500 ? "\xCC\x81\xCC\x82" : "\xCC\x81\xCC\x96", 4);
		xn += 4, yn += 4, zn += 4;
	}
	for (size_t k = 0; k < NCTX; k++) {
		const char *v[3] = {x, y, z};
		size_t vn[3] = {xn, yn, zn};

		if (!init(&c, &ctxs[k], 0))
			continue;
		for (int i = 0; i < 3; i++) {
			ssize_t r = fold_key(&c, v[i], vn[i], kx, sizeof kx);

			ck(r > 0 && (size_t)r <= sizeof kx,
			   "%s: long run %d: fold_key = %zd", ctxdef_desc(&ctxs[k]), i,
			   r);
			ck(fold_equal(&c, v[i], vn[i], v[i], vn[i]) == 1 &&
				   fold_cmp(&c, v[i], vn[i], v[i], vn[i]) == 0,
			   "%s: long run %d not equal to itself",
			   ctxdef_desc(&ctxs[k]), i);
			for (int j = 0; j < 3; j++) {
				int e1 = fold_equal(&c, v[i], vn[i], v[j], vn[j]);
				int e2 = fold_equal(&c, v[j], vn[j], v[i], vn[i]);
				int c1 = fold_cmp(&c, v[i], vn[i], v[j], vn[j]);
				int c2 = fold_cmp(&c, v[j], vn[j], v[i], vn[i]);
				ssize_t a = fold_key(&c, v[i], vn[i], kx,
						     sizeof kx);
				ssize_t b = fold_key(&c, v[j], vn[j], ky,
						     sizeof ky);
				int keq = a == b && a >= 0 &&
					  !memcmp(kx, ky, (size_t)a);

				ck(e1 == e2 && (c1 > 0) == (c2 < 0) &&
					   (c1 == 0) == e1,
				   "%s: long runs %d,%d: equal %d/%d cmp %d/%d",
				   ctxdef_desc(&ctxs[k]), i, j, e1, e2, c1, c2);
				ck(e1 == keq,
				   "%s: long runs %d,%d: equal %d but keys %s",
				   ctxdef_desc(&ctxs[k]), i, j, e1,
				   keq ? "equal" : "differ");
				ck((fold_hash(&c, &seed, v[i], vn[i]) ==
				    fold_hash(&c, &seed, v[j], vn[j])) == keq,
				   "%s: long runs %d,%d: hash vs key equality",
				   ctxdef_desc(&ctxs[k]), i, j);
			}
		}
		if (c.charset == FOLD_CHARSET_UTF8)
			ck(fold_equal(&c, x, xn, z, zn) == 0,
			   "%s: different mark in a long run ignored",
			   ctxdef_desc(&ctxs[k]));
	}
}

/* ---- NUL-terminated variants ------------------------------------------- */

static void check_z(void)
{
	static const char *s[] = {
		"",	     "a",	  "Makefile",	       "MAKEFILE",
		"caf\xC3\xA9", "CAFE\xCC\x81", "abc\xFF",	     "\xC0\x80",
		"\xEF\xB7\xBA", "\xE2\x9D\xA4\xEF\xB8\x8F", "\xE2\x9D\xA4",
	};
	size_t ns = sizeof s / sizeof *s;
	struct fold_ctx c;

	for (size_t k = 0; k < NCTX; k++) {
		if (!init(&c, &ctxs[k], 0))
			continue;
		for (size_t i = 0; i < ns; i++) {
			size_t n = strlen(s[i]), o1 = 7, o2 = 7;
			char b1[256], b2[256];
			ssize_t r1, r2;

			ck(fold_validatez(&c, s[i], &o1) ==
					   fold_validate(&c, s[i], n, &o2) &&
				   o1 == o2,
			   "%s: validatez/validate differ on %s",
			   ctxdef_desc(&ctxs[k]), ck_hex(s[i], n));
			ck(fold_hashz(&c, &seed, s[i]) ==
				   fold_hash(&c, &seed, s[i], n),
			   "%s: hashz/hash differ on %s", ctxdef_desc(&ctxs[k]),
			   ck_hex(s[i], n));
			r1 = fold_keyz(&c, s[i], b1, sizeof b1);
			r2 = fold_key(&c, s[i], n, b2, sizeof b2);
			ck(r1 == r2 && (r1 < 0 || !memcmp(b1, b2, (size_t)r1)),
			   "%s: keyz/key differ on %s", ctxdef_desc(&ctxs[k]),
			   ck_hex(s[i], n));
			r1 = fold_normalizez(&c, s[i], b1, sizeof b1);
			r2 = fold_normalize(&c, s[i], n, b2, sizeof b2);
			ck(r1 == r2 && (r1 < 0 || !memcmp(b1, b2, (size_t)r1)),
			   "%s: normalizez/normalize differ on %s",
			   ctxdef_desc(&ctxs[k]), ck_hex(s[i], n));
			for (size_t j = 0; j < ns; j++) {
				size_t m = strlen(s[j]);
				int a = fold_cmpz(&c, s[i], s[j]),
				    b = fold_cmp(&c, s[i], n, s[j], m);

				ck(((a > 0) - (a < 0)) == ((b > 0) - (b < 0)) &&
					   fold_equalz(&c, s[i], s[j]) ==
						   fold_equal(&c, s[i], n, s[j],
							      m),
				   "%s: z/len variants differ on %s, %s",
				   ctxdef_desc(&ctxs[k]), ck_hex(s[i], n),
				   ck_hex(s[j], m));
			}
		}
	}
}

/* ---- misc API edges ---------------------------------------------------- */

static void check_edges(void)
{
	struct fold_ctx c, zero, a, b;
	char out[16];

	memset(&zero, 0, sizeof zero);
	ck(fold_key(&zero, "a", 1, out, sizeof out) == FOLD_EINVAL,
	   "fold_key with a zeroed ctx not EINVAL");
	ck(fold_key(NULL, "a", 1, out, sizeof out) == FOLD_EINVAL,
	   "fold_key(NULL ctx) not EINVAL");
	ck(fold_normalize(NULL, "a", 1, out, sizeof out) == FOLD_EINVAL,
	   "fold_normalize(NULL ctx) not EINVAL");
	ck(fold_validate(NULL, "a", 1, NULL) == FOLD_EINVAL,
	   "fold_validate(NULL ctx) not EINVAL");
	/* FOLD_STRICT changes no key, so no hash (also of an ill-formed
	 * name: its bytes are hashed in both) */
	{
		struct fold_ctx lax, strict;
		ck(fold_init(&lax, "utf8", FOLD_CASEFOLD, 0) == 0 &&
			   fold_init(&strict, "utf8", FOLD_CASEFOLD, FOLD_STRICT) == 0 &&
			   fold_hash(&lax, &seed, "Stra\xc3\x9f" "e", 7) ==
				   fold_hash(&strict, &seed, "Stra\xc3\x9f" "e", 7) &&
			   fold_hash(&lax, &seed, "a\xff", 2) ==
				   fold_hash(&strict, &seed, "a\xff", 2),
		   "FOLD_STRICT changed a hash");
	}
	/* as libfold(3) says: no error of their own, -1 / 0 / 0 */
	ck(fold_cmp(&zero, "a", 1, "a", 1) == FOLD_EINVAL &&
		   fold_equal(&zero, "a", 1, "a", 1) == 0 &&
		   fold_hash(&zero, &seed, "a", 1) == 0,
	   "bad ctx: fold_cmp/fold_equal/fold_hash not EINVAL/0/0");
	/* (NULL, 0) is the empty name, in every context: the library must
	 * not do arithmetic on the null pointer (UBSan in lib-asan) */
	for (size_t i = 0; i < sizeof ctxs / sizeof ctxs[0]; i++) {
		if (!init(&c, &ctxs[i], 0))
			continue;
		ck(fold_validate(&c, NULL, 0, NULL) == 0 &&
			   fold_key(&c, NULL, 0, NULL, 0) == 0 &&
			   fold_key(&c, NULL, 0, out, sizeof out) == 0 &&
			   fold_normalize(&c, NULL, 0, out, sizeof out) == 0 &&
			   fold_equal(&c, NULL, 0, "", 0) == 1 &&
			   fold_equal(&c, "x", 1, NULL, 0) == 0 &&
			   fold_cmp(&c, NULL, 0, "x", 1) < 0 &&
			   fold_cmp(&c, "x", 1, NULL, 0) > 0 &&
			   fold_hash(&c, &seed, NULL, 0) == fold_hash(&c, &seed, "", 0),
		   "ctx %zu: (NULL, 0) is not the empty name everywhere", i);
	}
	if (!init(&c, &ctxs[4], 0))
		return;
	ck(fold_key(&c, "", 0, out, sizeof out) == 0, "key of \"\" not empty");
	ck(fold_equal(&c, "", 0, "", 0) == 1, "\"\" != \"\"");
	ck(fold_equal(&c, "", 0, "a", 1) == 0 && fold_cmp(&c, "", 0, "a", 1) < 0,
	   "\"\" vs \"a\"");
	ck(fold_cmp(&c, "ab", 2, "abc", 3) < 0 && fold_cmp(&c, "ABC", 3, "ab", 2) > 0,
	   "prefix order: shorter first");
	/* the context is mixed into the hash */
	if (init(&a, &ctxs[0], 0) && init(&b, &ctxs[4], 0))
		ck(fold_hash(&a, &seed, "abc", 3) != fold_hash(&b, &seed, "abc", 3),
		   "NFD and CASEFOLD hash \"abc\" alike");
	if (!fold_init(&a, "utf8-12.1", FOLD_CASEFOLD, 0) &&
	    !fold_init(&b, "utf8", FOLD_CASEFOLD, 0))
		ck(fold_hash(&a, &seed, "abc", 3) != fold_hash(&b, &seed, "abc", 3),
		   "utf8-12.1 and utf8 hash \"abc\" alike");
	{
		struct fold_seed s2 = {seed.k0 + 1, seed.k1};
		ck(fold_hash(&c, &seed, "abc", 3) != fold_hash(&c, &s2, "abc", 3),
		   "the seed does not change the hash");
	}
}

/* ---- random self-consistency ------------------------------------------- */

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)((ck_xorshift(&rng) >> 11) % n);
}

/* Pieces in classes of spellings that are equivalent under some form
 * (case, NFC/NFD, compatibility, ignorables); the last classes are
 * ill-formed bytes.  A pair built from one class sequence with random
 * spellings is often, but not always, equivalent. */
static const char *const classes[][5] = {
	{"a", "A"},
	{"z", "Z"},
	{".", "."},
	{"\xC3\xA9", "\xC3\x89", "e\xCC\x81", "E\xCC\x81"},
	{"\xC3\x9F", "ss", "SS", "\xE1\xBA\x9E"},
	{"\xEF\xAC\x80", "ff", "FF"},
	{"\xE2\x80\x8D", "\xEF\xB8\x8F", "\xC2\xAD"},
	{"\xEA\xB0\x80", "\xE1\x84\x80\xE1\x85\xA1"},
	{"\xCE\x91", "\xCE\xB1"},
	{"\xCD\x85", "\xCE\xB9", "\xCE\x99"},
	{"\xC4\xB0", "i\xCC\x87", "I\xCC\x87"},
	{"\xE1\xBE\xB3", "\xCE\xB1\xCD\x85", "\xCE\x91\xCE\x99"},
	{"\xCC\x81\xCC\x96", "\xCC\x96\xCC\x81"},
	{"\xFF"},
	{"\x80"},
	{"\xC3"},
	{"\xED\xA0\x80"},
	{"\xC0\xAF"},
};
#define NCLASS (sizeof classes / sizeof *classes)
#define NBAD 5

static size_t spell(const unsigned *cls, size_t k, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < k; i++) {
		const char *const *c = classes[cls[i]];
		size_t m = 0;

		while (m < 5 && c[m])
			m++;
		const char *p = c[rnd((uint32_t)m)];
		memcpy(out + n, p, strlen(p));
		n += strlen(p);
	}
	return n;
}

static void rand_pair(char *a, size_t *an, char *b, size_t *bn)
{
	unsigned cls[6];
	size_t k = 1 + rnd(6);

	for (size_t i = 0; i < k; i++)
		/* about one name in four carries an ill-formed piece */
		cls[i] = rnd(20) ? rnd(NCLASS - NBAD) : rnd(NCLASS);
	*an = spell(cls, k, a);
	if (rnd(2)) { /* unrelated second name */
		k = 1 + rnd(6);
		for (size_t i = 0; i < k; i++)
			cls[i] = rnd(20) ? rnd(NCLASS - NBAD) : rnd(NCLASS);
	}
	*bn = spell(cls, k, b);
}

static void check_random(unsigned long pairs)
{
	struct fold_ctx c;
	unsigned long equal_pairs = 0;

	for (size_t k = 0; k < NCTX; k++) {
		if (!init(&c, &ctxs[k], 0))
			continue;
		for (unsigned long i = 0; i < pairs; i++) {
			char a[64], b[64], ka[512], kb[512];
			size_t an, bn;
			ssize_t kan, kbn;
			int m, r, r2, e, keq;

			rand_pair(a, &an, b, &bn);
			kan = fold_key(&c, a, an, ka, sizeof ka);
			kbn = fold_key(&c, b, bn, kb, sizeof kb);
			if (!ck(kan >= 0 && kbn >= 0, "%s: key error",
				ctxdef_desc(&ctxs[k])))
				continue;
			m = memcmp(ka, kb, (size_t)(kan < kbn ? kan : kbn));
			if (!m)
				m = (kan > kbn) - (kan < kbn);
			keq = m == 0;
			equal_pairs += keq;
			r = fold_cmp(&c, a, an, b, bn);
			r2 = fold_cmp(&c, b, bn, a, an);
			e = fold_equal(&c, a, an, b, bn);
			ck((r > 0) == (m > 0) && (r < 0) == (m < 0) &&
				   (r2 > 0) == (m < 0) && (r2 < 0) == (m > 0),
			   "%s: cmp(%s, %s) = %d/%d, keys %s vs %s", ctxdef_desc(&ctxs[k]),
			   ck_hex(a, an), ck_hex(b, bn), r, r2,
			   ck_hex(ka, (size_t)kan), ck_hex(kb, (size_t)kbn));
			ck(e == keq && fold_equal(&c, b, bn, a, an) == keq,
			   "%s: equal(%s, %s) = %d, keys %s", ctxdef_desc(&ctxs[k]),
			   ck_hex(a, an), ck_hex(b, bn), e,
			   keq ? "equal" : "differ");
			ck((fold_hash(&c, &seed, a, an) ==
			    fold_hash(&c, &seed, b, bn)) == keq,
			   "%s: hash(%s) vs hash(%s) disagree with keys",
			   ctxdef_desc(&ctxs[k]), ck_hex(a, an), ck_hex(b, bn));
		}
	}
	ck_info("random: %lu pairs per context, %lu equivalent pairs in all",
		pairs, equal_pairs);
	ck(equal_pairs > pairs, "random generator gives too few "
				      "equivalent pairs (%lu)",
	   equal_pairs);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: test-lib-invalid [--pairs N] [--verbose N]\n"
"\n"
"Checks libfold on ill-formed and extreme input: fold_validate offsets for\n"
"a table of ill-formed UTF-8 and, against a reference validator, for every\n"
"string of up to 3 bytes and many longer ones; opaque-blob equality and hashing, strict\n"
"contexts, the output-buffer contract, huge expansions, a 10,000-mark\n"
"combining run, NUL-terminated variants, and N random pairs per context\n"
"(default 20000) for cmp/equal/hash consistency with the keys.\n"
"Ends with \"N passed, N failed\"; exit status 1 on any failure.\n");
}

int main(int argc, char **argv)
{
	static struct bad tr[64];
	static char store[64][16];
	unsigned long pairs = 20000;
	size_t ntr;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--pairs") && i + 1 < argc) {
			pairs = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--verbose") && i + 1 < argc) {
			ck_verbose = strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "test-lib-invalid: bad argument '%s'\n",
				argv[i]);
			usage(stderr);
			return 2;
		}
	}
	ck_group("ill-formed-table");
	check_table(fixed, sizeof fixed / sizeof *fixed);
	ntr = gen_truncations(tr, store);
	check_table(tr, ntr);
	ck_info("%zu fixed and %zu generated table entries",
		sizeof fixed / sizeof *fixed, ntr);
	ck_group("validator");
	check_validator();
	ck_group("bad-byte-positions");
	check_positions();
	ck_group("opaque-blobs");
	check_blobs();
	ck_group("buffer-contract");
	check_buffers();
	ck_group("long-runs");
	check_long_runs();
	ck_group("nul-terminated");
	check_z();
	ck_group("api-edges");
	check_edges();
	ck_group("random-consistency");
	check_random(pairs);
	return ck_finish();
}
