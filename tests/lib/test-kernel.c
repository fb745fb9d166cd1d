/*
 * test-kernel.c - libfold's "ext4" equivalence against the Linux kernel's
 * own fs/unicode code (suite lib-kernel).
 *
 * tests/lib/kernel-src.sh puts the kernel's utf8-norm.c and its generated
 * utf8data table into the build directory; they are linked in here as the
 * oracle, as ICU is in lib-icu.  The kernel's nfdicf (what ext4, f2fs and
 * tmpfs casefold compare) and nfdi must be libfold's FOLD_CASEFOLD and
 * FOLD_NFD with FOLD_IGNORABLES | FOLD_KERNEL_ORDER, byte for byte, at
 * every Unicode version the kernel's table holds, for every well-formed
 * name:
 *   codepoints  every scalar value alone, every version, both forms;
 *   names       random names (randname.c) at random versions, both forms;
 *   pairs       a name and a variant of it (ASCII case changed, an
 *               ignorable put in anywhere, two marks swapped, its NFC, its
 *               own key, an unrelated name): fold_equal, the sign of
 *               fold_cmp (memcmp order of the kernel's keys) and fold_hash
 *               under the ext4 profile (and the kernel's own streamed
 *               compare against its keys, as the benchmark uses it);
 *   long runs   names with a run of 25 to 160 marks (the kernel sorts a
 *               run whole, where libfold otherwise cuts it at 30): their
 *               keys, and pairs whose runs differ by swapped neighbours
 *               of different classes, as in pairs;
 *   ill-formed  the kernel refuses what libfold calls ill formed, but for
 *               two laxities of its own: a continuation byte after a
 *               complete character is passed through as if it belonged to
 *               it, and a NUL byte ends the name.  libfold keeps such names
 *               opaque (fold.h), so only that verdict is compared.
 * codepoints also checks what fs_long() (lib/fold_stream.c) relies on: no
 * code point's key that begins with a mark has a starter later, in these
 * forms and their compatibility variants.
 *
 * Usage: test-lib-kernel [--names N] [--seed S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fold.h"
#include "kernel-oracle.h"
#include "randname.h"

#define KEYCAP 4096
#define NAMECAP 512

static struct kver vers[KVER_MAX];
static int nvers, v121 = -1;

/* Compare a well-formed name's keys in both forms. */
static void compare_keys(const struct kver *v, const char *s, size_t n,
			 const char *what)
{
	static char kk[KEYCAP], lk[KEYCAP];
	for (int f = 0; f < 2; f++) {
		long kl;
		ssize_t ll = -1;
		int r = kernel_compare_key(v, f, s, n, kk, &kl, lk, &ll, KEYCAP);
		ck(r == 1, "%s %s %s: %s: kernel %s, libfold %s", what, v->enc,
		   f ? "nfdicf" : "nfdi", ck_hex(s, n),
		   kl < 0 ? "refuses it" : ck_hex(kk, (size_t)kl),
		   ll < 0 ? "not compared" : ck_hex(lk, (size_t)ll));
	}
}

static int setup(void)
{
	int newer;
	ck_group("versions");
	nvers = kernel_versions(vers, &newer, &v121);
	if (!ck(nvers > 0, "the kernel's table: %s", nvers < 0 ?
		"nfdicf and nfdi differ, or fold_init failed" : "no versions"))
		return -1;
	if (newer)
		ck_info("%d versions of the kernel's table are newer than "
			"libfold: left out", newer);
	ck_info("kernel table: %d Unicode versions, %s to %s", nvers,
		vers[0].enc, vers[nvers - 1].enc);
	if (!ck(v121 >= 0, "the kernel's table has no Unicode 12.1"))
		return -1;
	{
		struct fold_ctx p;
		const struct fold_ctx *c = &vers[v121].cf;
		ck(fold_init_profile(&p, "ext4") == 0 &&
			   p.charset == c->charset && p.form == c->form &&
			   p.age == c->age && p.flags == c->flags,
		   "profile ext4 is not utf8-12.1 CASEFOLD with IGNORABLES | "
		   "KERNEL_ORDER");
	}
	return 0;
}

/* Does the key k[0..n) begin with a mark and have a starter later? */
static int mark_then_starter(const struct fold_ctx *c, const char *k,
			     size_t n)
{
	uint32_t cps[64];
	size_t m = u8_decode(k, n, cps, 64);
	if (m == 0 || fold_cp_ccc(c, cps[0]) == 0)
		return 0;
	for (size_t i = 1; i < m; i++)
		if (fold_cp_ccc(c, cps[i]) == 0)
			return 1;
	return 0;
}

static void codepoints(void)
{
	char s[4], k[256];
	struct fold_ctx x[6];
	int nx = 0;
	ck_group("codepoints");
	for (int i = 0; i < nvers; i++)
		for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
			if (cp - 0xD800 < 0x800)
				continue;
			compare_keys(&vers[i], s, u8_put(cp, s), "U+");
		}
	/* fs_long()'s premise, in every form it serves: the kernel's at 12.1
	 * (its table's newest) and at libfold's newest, and the
	 * compatibility variants */
	x[nx++] = vers[v121].cf;
	x[nx++] = vers[v121].nd;
	if (!ck(fold_init(&x[nx++], "utf8", FOLD_CASEFOLD,
			  FOLD_IGNORABLES | FOLD_KERNEL_ORDER) == 0 &&
			fold_init(&x[nx++], "utf8", FOLD_NFD,
				  FOLD_IGNORABLES | FOLD_KERNEL_ORDER) == 0 &&
			fold_init(&x[nx++], "utf8", FOLD_CASEFOLD,
				  FOLD_COMPAT | FOLD_KERNEL_ORDER) == 0 &&
			fold_init(&x[nx++], "utf8", FOLD_NFKD,
				  FOLD_KERNEL_ORDER) == 0,
		"fold_init: newest and compatibility forms with "
		"FOLD_KERNEL_ORDER"))
		return;
	for (int i = 0; i < nx; i++)
		for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
			ssize_t n;
			if (cp - 0xD800 < 0x800)
				continue;
			n = fold_key(&x[i], s, u8_put(cp, s), k, sizeof k);
			ck(n >= 0 && !mark_then_starter(&x[i], k, (size_t)n),
			   "U+%04X (context %d): its key begins with a mark "
			   "and has a starter after it (fs_long() assumes "
			   "none does)", (unsigned)cp, i);
		}
}

/* A version: 12.1 (the one ext4 uses) half of the time. */
static struct kver *pick_version(struct rn *r)
{
	return &vers[rn_below(r, 2) ? v121 : (int)rn_below(r, (uint32_t)nvers)];
}

static size_t random_name(struct rn *r, char *s)
{
	uint32_t cps[40];
	size_t m = rn_cps(r, -1, cps, 1 + rn_below(r, 40));
	return u8_encode(cps, m, s);
}

static void names(struct rn *r, long count)
{
	static char s[NAMECAP];
	ck_group("names");
	for (long i = 0; i < count; i++) {
		size_t n = random_name(r, s);
		compare_keys(pick_version(r), s, n, "name");
	}
}

/* ---- ill-formed input ----------------------------------------------- */

static void damage(struct rn *r, char *s, size_t *n)
{
	switch (rn_below(r, 3)) {
	case 0: /* one byte replaced */
		s[rn_below(r, (uint32_t)*n)] = (char)rn_below(r, 256);
		break;
	case 1: /* one byte put in */
		if (*n < NAMECAP) {
			size_t at = rn_below(r, (uint32_t)*n + 1);
			memmove(s + at + 1, s + at, *n - at);
			s[at] = (char)(0x80 + rn_below(r, 0x80));
			++*n;
		}
		break;
	default: /* cut short */
		*n = rn_below(r, (uint32_t)*n) + 1;
		break;
	}
}

static void ill_formed(struct rn *r, long count)
{
	static const struct {
		const char *s;
		size_t n;
		int kernel; /* does the kernel accept it? */
	} fixed[] = {
		{"A\xC0\x80", 3, 0},	     {"A\xC1\xBF", 3, 0},
		{"A\xE0\x9F\xBF", 4, 0},     {"A\xF0\x8F\xBF\xBF", 5, 0},
		{"A\xED\xA0\x80", 4, 0},     {"A\xED\xBF\xBF", 4, 0},
		{"A\xF4\x90\x80\x80", 5, 0}, {"A\xF5\x80\x80\x80", 5, 0},
		{"A\xE3\x82", 3, 0},	     {"A\xE3\x82" "B", 4, 0},
		{"A\xFF", 2, 0},	     {"A\xF8\x88\x80\x80\x80", 6, 0},
		{"\x80", 1, 0},		     {"\xBF" "A", 2, 0},
		/* the kernel's laxities */
		{"X\x82", 2, 1},	     {"\xC3\xA9\x80", 3, 1},
		{"A\0B", 3, 1},
	};
	static char s[NAMECAP + 1], kk[KEYCAP];
	const struct kver *v = &vers[v121];
	unsigned long lax = 0;
	ck_group("ill-formed");
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
		long kl = kernel_key(v, 1, fixed[i].s, fixed[i].n, kk, KEYCAP);
		ck((kl >= 0) == fixed[i].kernel &&
			   fold_validate(&v->cf, fixed[i].s, fixed[i].n, NULL) ==
				   FOLD_EILSEQ,
		   "%s: kernel %s it (expected %s), libfold must refuse it",
		   ck_hex(fixed[i].s, fixed[i].n),
		   kl >= 0 ? "accepts" : "refuses",
		   fixed[i].kernel ? "accepts" : "refuses");
	}
	for (long i = 0; i < count; i++) {
		size_t n = random_name(r, s);
		int ok, want;
		long kl;
		v = pick_version(r);
		if (rn_below(r, 4))
			damage(r, s, &n);
		kl = kernel_key(v, (int)rn_below(r, 2), s, n, kk, KEYCAP);
		ok = fold_validate(&v->cf, s, n, NULL) == 0;
		want = kernel_should_accept(&v->cf, s, n);
		lax += kl >= 0 && !ok;
		ck((kl >= 0) == want,
		   "%s %s: kernel %s it, expected %s; libfold: %s", v->enc,
		   ck_hex(s, n), kl >= 0 ? "accepts" : "refuses",
		   want ? "accept" : "refuse", ok ? "well formed" : "ill formed");
	}
	ck_info("%lu names the kernel accepts and libfold keeps opaque "
		"(stray continuation bytes, NUL)", lax);
}

/* ---- pairs ---------------------------------------------------------- */

static const uint32_t ignorables[] = {
	0x00AD, 0x034F, 0x115F, 0x180B, 0x200B, 0x200C, 0x200D,
	0x2060, 0xFE0F, 0xFFA0, 0x1D173, 0xE0001, 0xE0100,
};

/* A variant of the name cps[0..m) (at version v) into t; its length. */
static size_t variant(struct rn *r, const struct kver *v, const uint32_t *cps,
		      size_t m, char *t)
{
	uint32_t w[48];
	size_t i, at;
	memcpy(w, cps, m * sizeof *w);
	switch (rn_below(r, 6)) {
	case 0: /* ASCII case changed */
		for (i = 0; i < m; i++)
			if ((w[i] | 32) - 'a' < 26u && rn_below(r, 2))
				w[i] ^= 32;
		break;
	case 1: /* an ignorable put in, anywhere */
		at = rn_below(r, (uint32_t)m + 1);
		memmove(w + at + 1, w + at, (m - at) * sizeof *w);
		w[at] = ignorables[rn_below(r, sizeof ignorables /
						   sizeof *ignorables)];
		m++;
		break;
	case 2: /* two neighbours swapped, marks if there are */
		for (i = 0, at = m; i + 1 < m; i++)
			if (fold_cp_ccc(&v->cf, w[i]) &&
			    fold_cp_ccc(&v->cf, w[i + 1]) && rn_below(r, 2))
				at = i;
		if (at == m && m > 1)
			at = rn_below(r, (uint32_t)m - 1);
		if (at + 1 < m) {
			uint32_t x = w[at];
			w[at] = w[at + 1];
			w[at + 1] = x;
		}
		break;
	case 3: { /* its NFC */
		char s[NAMECAP];
		struct fold_ctx nfc;
		size_t n = u8_encode(w, m, s);
		ssize_t k;
		if (fold_init(&nfc, v->enc, FOLD_NFC, 0) ||
		    (k = fold_normalize(&nfc, s, n, t, NAMECAP)) < 0 ||
		    k > NAMECAP)
			break;
		return (size_t)k;
	}
	case 4: { /* its own key, as a name */
		char s[NAMECAP];
		size_t n = u8_encode(w, m, s);
		ssize_t k = fold_key(&v->cf, s, n, t, NAMECAP);
		if (k < 0 || k > NAMECAP)
			break;
		return (size_t)k;
	}
	default: /* an unrelated name */
		m = rn_cps(r, -1, w, 1 + rn_below(r, 40));
		break;
	}
	return u8_encode(w, m, t);
}

static int sign(long x)
{
	return (x > 0) - (x < 0);
}

/* Compare a pair of well-formed names as the kernel and libfold's ext4
 * equivalence (at v) see them; 1 if the kernel calls them the same. */
static int pair_check(const struct kver *v, const char *a, size_t an,
		      const char *b, size_t bn)
{
	static const struct fold_seed seed = {0x0123456789ABCDEFull, 42};
	static char ka[KEYCAP], kb[KEYCAP];
	const struct fold_ctx *c = &v->cf;
	long la = kernel_key(v, 1, a, an, ka, KEYCAP);
	long lb = kernel_key(v, 1, b, bn, kb, KEYCAP);
	int keq, leq, lcmp, kcmp;
	if (!ck(la >= 0 && lb >= 0, "%s: %s vs %s: the kernel refuses one "
		"(%ld, %ld)", v->enc, ck_hex(a, an), ck_hex(b, bn), la, lb))
		return 0;
	kcmp = memcmp(ka, kb, (size_t)(la < lb ? la : lb));
	kcmp = kcmp ? sign(kcmp) : sign(la - lb);
	keq = kcmp == 0;
	leq = fold_equal(c, a, an, b, bn);
	lcmp = fold_cmp(c, a, an, b, bn);
	ck(kernel_equal(v, 1, a, an, b, bn) == keq,
	   "%s: %s vs %s: the kernel's streamed compare says %d, its "
	   "keys %s", v->enc, ck_hex(a, an), ck_hex(b, bn),
	   kernel_equal(v, 1, a, an, b, bn), keq ? "same" : "differ");
	ck(leq == keq && lcmp == kcmp,
	   "%s: %s vs %s: kernel %s (order %d), fold_equal %d, "
	   "fold_cmp %d", v->enc, ck_hex(a, an), ck_hex(b, bn),
	   keq ? "same" : "different", kcmp, leq, lcmp);
	if (keq)
		ck(fold_hash(c, &seed, a, an) == fold_hash(c, &seed, b, bn),
		   "%s: %s and %s: the kernel's same name, different "
		   "hashes", v->enc, ck_hex(a, an), ck_hex(b, bn));
	return keq;
}

static void pairs(struct rn *r, long count)
{
	static char a[NAMECAP], b[NAMECAP];
	unsigned long same = 0;
	ck_group("pairs");
	for (long i = 0; i < count; i++) {
		const struct kver *v = pick_version(r);
		uint32_t cps[40];
		size_t m = rn_cps(r, -1, cps, 1 + rn_below(r, 40));
		size_t an = u8_encode(cps, m, a), bn = variant(r, v, cps, m, b);
		same += (unsigned long)pair_check(v, a, an, b, bn);
	}
	ck_info("%lu of %ld pairs the same name to the kernel", same, count);
}

/* ---- long runs of marks --------------------------------------------- */

/* What runs are made of: marks of many classes (1 to 240), marks that
 * expand to two marks (U+0344, U+0F73, U+0F75, U+0F81) or to one
 * (U+0340, U+0343), U+0345 (a starter once folded, to the kernel), marks
 * newer than 12.1 (U+1AC1: 14.0; U+10EAB: 13.0), and, rarely, what ends a
 * run: ignorables (dropped, a starter to the kernel), a letter, a
 * precomposed letter (a starter and a mark). */
static const uint32_t run_marks[] = {
	0x0300, 0x0301, 0x0316, 0x0327, 0x031B, 0x0334, 0x0345, 0x05B0,
	0x05B1, 0x0591, 0x0610, 0x064B, 0x093C, 0x094D, 0x0E38, 0x0F71,
	0x0F72, 0x0F74, 0x0F80, 0x0344, 0x0F73, 0x0F75, 0x0F81, 0x0340,
	0x0343, 0x3099, 0x302A, 0x302B, 0x302E, 0x1D165, 0x1D167, 0x1AC1,
	0x10EAB, 0x0307, 0x0323, 0x0313,
};
static const uint32_t run_ends[] = {
	0x00AD, 0x200B, 0x200D, 0xFE0F, 0xE0100, 'x', 'Q', 0x00E9, 0x1F80,
	0x0399,
};

/* A name with a long run into cps (cap 200); its length. */
static size_t long_name(struct rn *r, uint32_t *cps)
{
	static const uint32_t bases[] = {'a', 'A', 0x00E9, 0x1F80, 0xAC00,
					 0x03B1};
	size_t m = 0, len = 25 + rn_below(r, 136);
	if (rn_below(r, 4) == 0)
		m = rn_cps(r, -1, cps, 1 + rn_below(r, 8));
	if (rn_below(r, 8))
		cps[m++] = bases[rn_below(r, sizeof bases / sizeof *bases)];
	for (size_t i = 0; i < len; i++)
		cps[m++] = rn_below(r, 50) ?
			run_marks[rn_below(r, sizeof run_marks /
						       sizeof *run_marks)] :
			run_ends[rn_below(r, sizeof run_ends /
						     sizeof *run_ends)];
	if (rn_below(r, 4) == 0)
		m += rn_cps(r, -1, cps + m, 1 + rn_below(r, 8));
	return m;
}

static void long_runs(struct rn *r, long count)
{
	static char a[1024], b[1024];
	unsigned long same = 0;
	ck_group("long runs");
	for (long i = 0; i < count; i++) {
		const struct kver *v = pick_version(r);
		uint32_t cps[200];
		size_t m = long_name(r, cps), an, bn, swaps;
		an = u8_encode(cps, m, a);
		compare_keys(v, a, an, "long run");
		/* swap neighbour marks of different classes: the same
		 * name to the kernel (U+0345 is a starter there) */
		swaps = 1 + rn_below(r, 40);
		for (size_t k = 0; k < swaps && m > 1; k++) {
			size_t at = rn_below(r, (uint32_t)m - 1);
			uint32_t x = cps[at], y = cps[at + 1];
			int cx = fold_cp_ccc(&v->cf, x);
			int cy = fold_cp_ccc(&v->cf, y);
			if (cx && cy && cx != cy && x != 0x345 && y != 0x345) {
				cps[at] = y;
				cps[at + 1] = x;
			}
		}
		bn = u8_encode(cps, m, b);
		same += (unsigned long)pair_check(v, a, an, b, bn);
	}
	ck_info("%lu of %ld long-run pairs the same name to the kernel", same,
		count);
}

int main(int argc, char **argv)
{
	long count = 1000000;
	uint64_t seed = 20261204;
	struct rn r;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--names") && i + 1 < argc) {
			count = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: %s [--names N] [--seed S]\n",
				argv[0]);
			return 2;
		}
	}
	rn_seed(&r, seed);
	if (setup() == 0) {
		codepoints();
		names(&r, count);
		pairs(&r, count);
		long_runs(&r, count / 4);
		ill_formed(&r, count);
	}
	return ck_finish();
}
