/*
 * fold_stream.c - the stages of the streaming normalizer (see
 * fold_stream.h for the design): expansion, canonical ordering,
 * composition, the fast lanes and the fill loop, compiled once per form
 * variant.
 */
#include "fold_internal.h"
#include "fold_stream.h"

#include <string.h>

/* The small hot helpers must be inlined into each variant's loop. */
#define FS_INLINE inline __attribute__((always_inline))

/* Hide where pointer x came from: after a loop that advances it, so
 * that the compiler computes x - 2 or x - 3 afresh there rather than copy
 * x's previous value to a register (or the stack) on every iteration. */
#define FS_OPAQUE(x) __asm__("" : "+r"(x))

static FS_INLINE void fs_put(struct fstream *fs, uint32_t c)
{
	unsigned char *o = fs->out + fs->outn;
	if (c < 0x80) {
		o[0] = (unsigned char)c;
		fs->outn += 1;
	} else if (c < 0x800) {
		o[0] = (unsigned char)(0xC0 | c >> 6);
		o[1] = (unsigned char)(0x80 | (c & 0x3F));
		fs->outn += 2;
	} else if (c < 0x10000) {
		o[0] = (unsigned char)(0xE0 | c >> 12);
		o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (c & 0x3F));
		fs->outn += 3;
	} else {
		o[0] = (unsigned char)(0xF0 | c >> 18);
		o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
		o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
		o[3] = (unsigned char)(0x80 | (c & 0x3F));
		fs->outn += 4;
	}
}

/* ---- stage 3: composition ---- */

/* Bits set in x (inline: without -mpopcnt the builtin is a call). */
static FS_INLINE unsigned fs_popcount(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* In the shared composition list, whose entry i has first element a:
 * the composite of a + b, or 0.  Its entries with first element a are
 * next to i, sorted by second. */
static uint32_t fs_pair_shared(const struct fstream *fs, uint32_t a,
			       uint32_t b, unsigned i)
{
	unsigned lo = fold_comp_start[FOLD_COMP_SHARED - 1];
	unsigned hi = fold_comp_start[FOLD_COMP_SHARED];
	while (i > lo && P_FIRST(fold_pairs[C_PAIR(fold_comp[i - 1])]) == a)
		i--;
	for (; i < hi; i++) {
		uint32_t e = fold_comp[i], p = fold_pairs[C_PAIR(e)];
		if (P_FIRST(p) != a)
			break;
		if (fold_seconds[P_SECOND(p)] == b)
			return C_AGE(e) > fs->age ? 0 : (a & 0xF0000u) | C_LOW(e);
	}
	return 0;
}

/* Primary composite of the letter a (FOLD_COMP_ALO..+63, ASCII: no Hangul
 * formula applies) + a code point of composition list sec, or 0: no
 * search; lists past FOLD_COMP_NABITS have no such first elements. */
static FS_INLINE uint32_t fs_pair_ascii(const struct fstream *fs, uint32_t a,
					unsigned sec)
{
	unsigned i = a - FOLD_COMP_ALO;
	uint64_t bits;
	uint32_t e;
	if (sec - 1u >= FOLD_COMP_NABITS) /* sec 0: in no list */
		return 0;
	bits = fold_comp_abits[sec - 1];
	if (!(bits >> i & 1))
		return 0;
	e = fold_comp[fold_comp_start[sec - 1] +
		      fs_popcount(bits & ((1ull << i) - 1))];
	return C_AGE(e) > fs->age ? 0 : C_LOW(e);
}

/* Primary composite of a + b (b's composition list: sec), or 0. */
static uint32_t fs_pair(const struct fstream *fs, uint32_t a, uint32_t b,
			unsigned sec)
{
	unsigned lo, hi;
	if (a - FOLD_COMP_ALO < 64u)
		return fs_pair_ascii(fs, a, sec);
	if (fs->age >= HANGUL_AGE) {
		if (a - LBASE < LCOUNT && b - VBASE < VCOUNT)
			return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) *
					       TCOUNT;
		if (a - SBASE < SCOUNT && (a - SBASE) % TCOUNT == 0 &&
		    b - TBASE - 1 < TCOUNT - 1)
			return a + (b - TBASE);
	}
	if (!sec)
		return 0;
	/* the list is sorted by first element */
	lo = fold_comp_start[sec - 1];
	hi = fold_comp_start[sec];
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		uint32_t e = fold_comp[mid];
		uint32_t f = P_FIRST(fold_pairs[C_PAIR(e)]);
		if (f < a) {
			lo = mid + 1;
		} else if (f > a) {
			hi = mid;
		} else {
			if (sec == FOLD_COMP_SHARED)
				return fs_pair_shared(fs, a, b, mid);
			if (C_AGE(e) > fs->age)
				return 0;
			return (a & 0xF0000u) | C_LOW(e);
		}
	}
	return 0;
}

static void fs_compose_flush(struct fstream *fs)
{
	unsigned i;
	if (fs->have_st)
		fs_put(fs, fs->st);
	for (i = 0; i < fs->nleft; i++)
		fs_put(fs, fs->left[i]);
	fs->have_st = 0;
	fs->nleft = 0;
}

/* Canonical composition (UAX #15, D117), one code point at a time, in
 * canonical order.  c combines with the held starter unless a mark
 * between them has a class >= its own (marks arrive sorted, so the last
 * left-over mark has the highest class) or, for a starter c, anything at
 * all lies between them. */
static inline void fs_compose(struct fstream *fs, uint32_t c,
				 unsigned cls)
{
	unsigned cc = cls & 0xFF, sec = cls >> 8;
	uint32_t comp;
	if (cc == 0) {
		if (fs->have_st && fs->nleft == 0 &&
		    (comp = fs_pair(fs, fs->st, c, sec)) != 0) {
			fs->st = comp;
			return;
		}
		if (fs->have_st)
			fs_compose_flush(fs);
		fs->st = c;
		fs->have_st = 1;
		return;
	}
	if (!fs->have_st) {
		fs_put(fs, c); /* nothing before it can take it */
		return;
	}
	if ((fs->nleft == 0 || fs->leftcc < cc) &&
	    (comp = fs_pair(fs, fs->st, c, sec)) != 0) {
		fs->st = comp;
		return;
	}
	fs->left[fs->nleft++] = c;
	fs->leftcc = cc;
}

/* ---- stage 2: canonical ordering ---- */

/* C is FS_CAPTURE where fs_long() expands a code point: stage 1's output
 * goes to left[] (code point | class << 24), not on; a decomposing form
 * otherwise.  A class-0 entry is a starter, or a dropped ignorable that
 * ends the run (igncut). */
#define FS_CAPTURE 2
_Static_assert(FOLD_MAXEXP <= FOLD_SAFE_RUN, "left[] holds an expansion");

static FS_INLINE void fs_next(struct fstream *fs, uint32_t c, unsigned cls,
			      const int C)
{
	if (C)
		fs_compose(fs, c, cls);
	else
		fs_put(fs, c);
}

static void fs_order_flush(struct fstream *fs, const int C)
{
	unsigned i;
	for (i = 0; i < fs->nns; i++)
		fs_next(fs, fs->ns[i], fs->nscls[i], C);
	fs->nns = 0;
}

/* cls is the combining class in bits 0-7 and the composition list in
 * bits 8-13.  A run of more than FOLD_SAFE_RUN marks is cut, which acts
 * like an inserted CGJ: a starter that combines with nothing. */
static FS_INLINE void fs_order(struct fstream *fs, uint32_t c, unsigned cls,
			       const int C)
{
	unsigned i, cc = cls & 0xFF;
	if (C == FS_CAPTURE) {
		fs->left[fs->nleft++] = c | (uint32_t)cc << 24;
		return;
	}
	if (cc == 0) {
		if (fs->nns == 1) {
			/* one mark: nothing to sort */
			fs->nns = 0;
			fs_next(fs, fs->ns[0], fs->nscls[0], C);
		} else if (fs->nns) {
			fs_order_flush(fs, C);
		}
		fs_next(fs, c, cls, C);
		return;
	}
	if (fs->nns == FOLD_SAFE_RUN) {
		if (fs->klong) {
			/* the 31st mark of the run, or one after it in the
			 * same code point's expansion (marks only: see
			 * fs_long()): counted, fs_long() orders them in */
			fs->lrn++;
			return;
		}
		fs_order_flush(fs, C);
		if (C && fs->have_st)
			fs_compose_flush(fs);
	}
	for (i = fs->nns; i > 0 && (fs->nscls[i - 1] & 0xFF) > cc; i--) {
		fs->ns[i] = fs->ns[i - 1];
		fs->nscls[i] = fs->nscls[i - 1];
	}
	fs->ns[i] = c;
	fs->nscls[i] = (uint16_t)cls;
	fs->nns++;
}

/* Everything held in stages 2 and 3 is final once a code point follows
 * that is a starter and combines with nothing before it. */
static void fs_flush_held(struct fstream *fs, const int C)
{
	if (C == FS_CAPTURE) {
		fs_order(fs, 0, 0, C);
		return;
	}
	if (fs->nns)
		fs_order_flush(fs, C);
	if (C && fs->have_st)
		fs_compose_flush(fs);
}

static FS_INLINE void fs_flush_all(struct fstream *fs, const int C)
{
	if (!C && fs->nns == 1) {
		fs->nns = 0;
		fs_put(fs, fs->ns[0]);
	} else if (fs->nns | fs->have_st) {
		fs_flush_held(fs, C);
	}
}

/* ---- decoding ---- */

/* Decoded code points travel packed, so that no decoder needs the
 * address of a variable (which would keep it out of registers): the code
 * point in bits 0-20, the length of its sequence above; 0 if ill formed. */
#define DEC(cp, len) ((uint32_t)(cp) | (uint32_t)(len) << 21)
#define DEC_CP(d) ((d) & 0x1FFFFFu)
#define DEC_LEN(d) ((unsigned)((d) >> 21))

/* What fs_dec() leaves: decode the code point at p if its lead byte is E0
 * or F0..F4 and it is well formed (shortest form, <= U+10FFFF); else
 * (a continuation byte, C0, C1, F5..FF, a bad or missing continuation) 0. */
static uint32_t fs_decode_rare(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], lo = 0x80, hi = 0xBF;
	size_t left = (size_t)(end - p);
	if (c == 0xE0) {
		if (left < 3 || p[1] < 0xA0 || (p[1] & 0xC0) != 0x80 ||
		    (p[2] & 0xC0) != 0x80)
			return 0;
		return DEC((p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu), 3);
	}
	if (c - 0xF0u > 4u)
		return 0;
	if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (left < 4 || p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 ||
	    (p[3] & 0xC0) != 0x80)
		return 0;
	return DEC((c & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 |
			   (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu),
		   4);
}

/* Decode the non-ASCII code point at p, checking it is well formed
 * (shortest form, no surrogate, <= U+10FFFF); 0 if it is not.  The
 * common two- and three-byte forms inline, E0 and the four-byte forms
 * in fs_decode_rare(). */
static FS_INLINE uint32_t fs_dec(const unsigned char *p,
				 const unsigned char *end)
{
	unsigned c = p[0];
	if (c - 0xC2u < 0x1Eu) {
		if (end - p >= 2 && (p[1] & 0xC0) == 0x80)
			return DEC((c & 0x1Fu) << 6 | (p[1] & 0x3Fu), 2);
		return 0;
	}
	if (c - 0xE1u < 0x0Fu) {
		/* ED: U+D000..U+D7FF (Hangul syllables up to U+D7A3 among
		 * them); ED A0..ED BF would be surrogates */
		if (end - p >= 3 && ((p[1] ^ 0x80u) | (p[2] ^ 0x80u)) < 0x40u &&
		    (c != 0xED || p[1] < 0xA0))
			return DEC((c & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 |
					   (p[2] & 0x3Fu),
				   3);
		return 0;
	}
	return fs_decode_rare(p, end);
}

/* Decode (or take from the look-ahead) the non-ASCII code point at p and
 * look up its lane value; returns its length, 0 if ill formed. */
static FS_INLINE unsigned fs_peek(struct fstream *fs, const unsigned char *p,
				  uint32_t *cp, unsigned *lv)
{
	unsigned len;
	if (fs->pk_p == p) {
		*cp = fs->pk_cp;
		*lv = fs->pk_lv;
		return fs->pk_len;
	}
	{
		uint32_t d = fs_dec(p, fs->end);
		*cp = DEC_CP(d);
		len = DEC_LEN(d);
	}
	*lv = len ? fold_lane(*cp) : 0;
	fs->pk_p = p;
	fs->pk_cp = *cp;
	fs->pk_lv = *lv;
	fs->pk_len = len;
	return len;
}

/* ---- stage 1: expansion ---- */

/* Descriptor of field f (0 D, 1 K, 2 F) of a record that has it. */
static FS_INLINE uint32_t fs_field(const struct fold_rec *r, unsigned f)
{
	uint32_t m = REC_DESC(r);
	if (M_TYPE(m) == M_MULTI) {
		unsigned fields = REC_FIELDS(r), k = 0;
		if (f > 0 && (fields & F_D))
			k++;
		if (f > 1 && (fields & F_K))
			k++;
		m = fold_maps[M_INDEX(m) + k];
	}
	return m;
}

/* Hand a code point to stage 2 with its class at the stream's version. */
static FS_INLINE void fs_push(struct fstream *fs, uint32_t c, const int C)
{
	const struct fold_rec *r;
	unsigned cc;
	if (c < 0x80) {
		fs_order(fs, c, 0, C);
		return;
	}
	r = fold_rec_of(c);
	cc = REC_AGE(r) <= fs->age ? r->ccc : 0;
	fs_order(fs, c, cc | REC_SEC(r) << 8, C);
}

/* Next code point of a pool string.  The pool is generated, well-formed
 * UTF-8, so no checks are needed here. */
static FS_INLINE uint32_t pool_next(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	uint32_t c = *p++;
	if (c >= 0x80) {
		if (c < 0xE0) {
			c = (c & 0x1F) << 6 | (p[0] & 0x3F);
			p += 1;
		} else if (c < 0xF0) {
			c = (c & 0x0F) << 12 | (uint32_t)(p[0] & 0x3F) << 6 |
			    (p[1] & 0x3F);
			p += 2;
		} else {
			c = (c & 0x07) << 18 | (uint32_t)(p[0] & 0x3F) << 12 |
			    (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
			p += 3;
		}
	}
	*pp = p;
	return c;
}

/* Code points of a delta or pool descriptor of cp: final (no further
 * mapping) and, for an F descriptor, already folded. */
static FS_INLINE void fs_slice(struct fstream *fs, uint32_t cp, uint32_t m,
			       const int C)
{
	const unsigned char *p, *e;
	if (M_TYPE(m) == M_DELTA) {
		fs_push(fs, (uint32_t)((int32_t)cp + M_SDELTA(m)), C);
		return;
	}
	p = fold_pool + M_OFF(m, cp);
	e = p + M_LEN(m);
	while (p < e) {
		uint32_t c = pool_next(&p);
		fs_push(fs, c, C);
	}
}

/* An F descriptor: a delta's target is a starter that is nobody's second
 * element (mktables checks), so it needs no lookup. */
static FS_INLINE void fs_fold(struct fstream *fs, uint32_t cp, uint32_t m,
			      const int C)
{
	if (M_TYPE(m) == M_DELTA)
		fs_order(fs, (uint32_t)((int32_t)cp + M_SDELTA(m)), 0, C);
	else
		fs_slice(fs, cp, m, C);
}

/* U+0345 COMBINING GREEK YPOGEGRAMMENI (class 240) is the one mark whose
 * case fold, U+03B9, is a starter.  FOLD_CASEFOLD is NFD(fold(NFD(x))):
 * canonical ordering happens before folding, so U+0345 takes its place
 * among the marks as class 240 and becomes U+03B9 there; folding it in
 * place would make canonically equivalent names (a + U+0300 + U+0345,
 * a + U+0345 + U+0300) differ.  NFKC_Casefold, by its definition, maps
 * it in place, before NFC; so does the kernel's nfdicf, which
 * FOLD_KERNEL_ORDER reproduces (ypocls 0: U+03B9 is a starter). */
#define YPOGEGRAMMENI 0x345u

/* A code point that no longer decomposes: fold it if the form folds.
 * Folding here ignores the age: c is part of a mapping, which is
 * expanded with the newest data, as the generator's reference does. */
static FS_INLINE void fs_final(struct fstream *fs, uint32_t c, const int C,
			       const int F)
{
	const struct fold_rec *r;
	if (c < 0x80) {
		if (F && c - 'A' < 26u)
			c += 32;
		fs_order(fs, c, 0, C);
		return;
	}
	if (F && C != 1 && c == YPOGEGRAMMENI) {
		fs_order(fs, 0x3B9, fs->ypocls, C);
		return;
	}
	r = fold_rec_of(c);
	if (F && (REC_FIELDS(r) & F_F)) {
		fs_fold(fs, c, fs_field(r, 2), C);
		return;
	}
	fs_order(fs, c, (REC_AGE(r) <= fs->age ? r->ccc : 0) | REC_SEC(r) << 8,
		 C);
}

/* The same for the code points of a D or K slice. */
static FS_INLINE void fs_slice_final(struct fstream *fs, uint32_t cp,
				     uint32_t m, const int C, const int F)
{
	const unsigned char *p, *e;
	if (!F) {
		fs_slice(fs, cp, m, C);
		return;
	}
	if (M_TYPE(m) == M_DELTA) {
		fs_final(fs, (uint32_t)((int32_t)cp + M_SDELTA(m)), C, F);
		return;
	}
	p = fold_pool + M_OFF(m, cp);
	e = p + M_LEN(m);
	while (p < e) {
		uint32_t c = pool_next(&p);
		fs_final(fs, c, C, F);
	}
}

/* Canonical decomposition of x (record r, D descriptor m): follow the
 * pair chain down its first elements, then emit the base and the
 * stacked second elements in order. */
static FS_INLINE void fs_decompose(struct fstream *fs, uint32_t x,
				   uint32_t m, const int C, const int F)
{
	uint32_t stack[FOLD_MAXCHAIN];
	unsigned n = 0;
	while (M_TYPE(m) == M_PAIR) {
		uint32_t p = fold_pairs[M_PAIRIDX(m, x)];
		const struct fold_rec *r;
		stack[n++] = fold_seconds[P_SECOND(p)];
		x = P_FIRST(p);
		if (x < 0x80)
			goto base;
		r = fold_rec_of(x);
		if (!(REC_FIELDS(r) & F_D))
			goto base;
		m = fs_field(r, 0);
	}
	fs_slice_final(fs, x, m, C, F);
	goto seconds;
base:
	fs_final(fs, x, C, F);
seconds:
	while (n)
		fs_final(fs, stack[--n], C, F);
}

/* The rare cases: a NormalizationCorrections code point before its
 * correction, or a stored NFKC_CF value.  Returns 1 if handled. */
static int fs_special(struct fstream *fs, uint32_t x, const int C)
{
	unsigned i;
	for (i = 0; i < fold_ncorr; i++)
		if (fold_corr[3 * i] == x && fs->age < fold_corr[3 * i + 2]) {
			fs_order(fs, fold_corr[3 * i + 1], 0, C);
			return 1;
		}
	if (fs->nkcf)
		for (i = 0; i < fold_nnkcf; i++)
			if (fold_nkcf[2 * i] == x) {
				fs_slice(fs, x, fold_nkcf[2 * i + 1], C);
				return 1;
			}
	return 0;
}

/* Expand one input code point (record number rid) into stage 2. */
static FS_INLINE void fs_expand(struct fstream *fs, uint32_t x, unsigned rid,
				const int C, const int F)
{
	const struct fold_rec *r;
	unsigned fields;
	if (rid == 0) {
		/* no data, but Hangul syllables decompose by formula */
		if (x - SBASE < SCOUNT && fs->age >= HANGUL_AGE) {
			uint32_t s = x - SBASE;
			fs_order(fs, LBASE + s / NCOUNT, 0, C);
			fs_order(fs, VBASE + (s % NCOUNT) / TCOUNT, 0, C);
			if (s % TCOUNT)
				fs_order(fs, TBASE + s % TCOUNT, 0, C);
			return;
		}
		fs_order(fs, x, 0, C);
		return;
	}
	r = &fold_recs[rid];
	if (REC_AGE(r) > fs->age) {
		fs_order(fs, x, 0, C); /* unassigned at this version */
		return;
	}
	if ((r->af & A_DI) && fs->ign) {
		/* Dropped.  Under FOLD_KERNEL_ORDER it still ends the run of
		 * marks before it, as the kernel's empty decomposition does
		 * (a starter there): marks on its two sides are not sorted
		 * together.  The lanes need not know: they take marks only
		 * in canonical order, where that makes no difference, and
		 * stop at a run too long, which this path then cuts. */
		if (fs->igncut)
			fs_flush_held(fs, C);
		return;
	}
	if ((r->af & A_SPECIAL) && fs_special(fs, x, C))
		return;
	fields = REC_FIELDS(r);
	if (fs->compat && (fields & F_K))
		fs_slice_final(fs, x, fs_field(r, 1), C, F);
	else if (fields & F_D)
		fs_decompose(fs, x, fs_field(r, 0), C, F);
	else if (F && C != 1 && x == YPOGEGRAMMENI)
		fs_order(fs, 0x3B9, fs->ypocls, C);
	else if (F && (fields & F_F))
		fs_fold(fs, x, fs_field(r, 2), C);
	else
		fs_order(fs, x, r->ccc | REC_SEC(r) << 8, C);
}

/* ---- fast lanes ---- */

/* In a decomposing form: a code point without data (lane value lv),
 * which no form changes, reorders or combines: record 0, except Hangul
 * syllables (decomposed by formula) and conjoining jamo (composed by
 * formula). */
static FS_INLINE int fs_inert(unsigned lv)
{
	return !(lv & (L_RID | L_HANGUL));
}

/* In a composing form: is the code point (lane value lv) a starter that
 * cannot combine with what precedes it, and its own key unless something
 * follows that combines with it?  True at every version (fold_data.h):
 * a code point unassigned at the stream's version is its own key and
 * combines with nothing. */
static FS_INLINE int fs_quiet(const struct fstream *fs, unsigned lv)
{
	return L_QUIET(lv) >= fs->level;
}

/* In a folding form: if the code point cp (lane value lv) is a simple
 * fold (fold_data.h, L_SFOLD) assigned at the stream's version, the
 * folded code point, a plain starter (mktables checks); else 0.
 * Upper-case letters of the bicameral scripts are the bulk of these. */
static FS_INLINE uint32_t fs_simple_fold(const struct fstream *fs, uint32_t cp,
					 unsigned lv)
{
	const struct fold_rec *r;
	if (!(lv & L_SFOLD))
		return 0;
	r = &fold_recs[lv & L_RID];
	if (REC_AGE(r) > fs->age)
		return 0;
	return (uint32_t)((int32_t)cp + M_SDELTA(REC_DESC(r)));
}

/* In NFKC_CF: if the code point cp (lane value lv) is a composed fold
 * (fold_data.h, M_CFOLD) assigned at the stream's version, its key, one
 * code point quiet at level 3 that is a composite (so it cannot be held
 * as stage 3's starter: a mark after it may reorder before the marks of
 * its decomposition); else 0.  Capital precomposed letters (U+00C9,
 * U+0386, U+0419) are the bulk of these. */
static FS_INLINE uint32_t fs_composed_fold(const struct fstream *fs,
					   uint32_t cp, unsigned lv)
{
	const struct fold_rec *r;
	uint32_t m;
	if (!(lv & L_BB))
		return 0;
	r = &fold_recs[lv & L_RID];
	m = REC_DESC(r);
	if (M_TYPE(m) != M_PAIR || !M_CFOLD(m) || REC_AGE(r) > fs->age)
		return 0;
	return (uint32_t)((int32_t)cp + (int32_t)fold_cdelta[M_CFOLD(m)]);
}

/* A simple fold, or in NFKC_CF (C) a composed fold: the code point cp
 * (lane value lv) folds to; 0 if neither. */
static FS_INLINE uint32_t fs_one_fold(const struct fstream *fs, uint32_t cp,
				      unsigned lv, const int C)
{
	uint32_t t = fs_simple_fold(fs, cp, lv);
	return t || !C ? t : fs_composed_fold(fs, cp, lv);
}

/* The lane's own keys: in a composing form quiet at the form's level
 * (NFKC_CF's, 3, a constant there), in a decomposing form inert. */
static FS_INLINE int fs_own(const struct fstream *fs, unsigned lv, const int C,
			    const int F)
{
	return C ? L_QUIET(lv) >= (F ? 3u : fs->level) : fs_inert(lv);
}

/* Does the fast lane take the non-ASCII code point cp (lane value lv)? */
static FS_INLINE int fs_lane_takes(const struct fstream *fs, uint32_t cp,
				   unsigned lv, const int C, const int F)
{
	if (fs_own(fs, lv, C, F))
		return 1;
	return (F && (lv & L_SFOLD)) ||
	       (!C && (lv & L_HANGUL) && cp - SBASE < SCOUNT) ||
	       (F && C && fs_composed_fold(fs, cp, lv));
}

/* With something held: does the non-ASCII code point cp (lane value lv)
 * make it final, so that the fast lane can go on from cp?  Composing
 * forms: if cp combines with nothing before it; decomposing forms: if
 * it is a starter the fast lane takes. */
static FS_INLINE int fs_lane_starter(const struct fstream *fs, uint32_t cp,
				     unsigned lv, const int C, const int F)
{
	if (C)
		return (lv & L_BB) || fs_quiet(fs, lv);
	return fs_inert(lv) || (F && (lv & L_SFOLD)) ||
	       ((lv & L_HANGUL) && cp - SBASE < SCOUNT);
}

/* Can what precedes the code point at p no longer change?  True at the
 * end of input and for ASCII, and for a code point fs_lane_starter()
 * accepts; false if ill formed (the stream stops there anyway).  The
 * decoded code point is kept for the next step. */
static FS_INLINE int fs_next_final(struct fstream *fs, const unsigned char *p,
				   const int C, const int F)
{
	uint32_t cp;
	unsigned lv;
	if (p == fs->end || *p < 0x80)
		return 1;
	if (!fs_peek(fs, p, &cp, &lv))
		return 0;
	return fs_lane_starter(fs, cp, lv, C, F);
}

/* Copy the run of ASCII starting at fs->p, folded if the form folds.  In
 * composing forms a byte followed by a non-ASCII code point may combine
 * with it, so that last byte is held as the starter instead.  Words of 8
 * bytes are scanned and folded at once; stores may run past the copied
 * bytes (out[] has room), loads never pass the input. */
static FS_INLINE void fs_ascii(struct fstream *fs, unsigned room, const int C,
			       const int F)
{
	const unsigned char *p = fs->p, *e = fs->end;
	unsigned char *o = fs->out + fs->outn;
	size_t n = 0, avail = (size_t)(e - p), i;
	if (avail > room - 8)
		avail = room - 8;
	/* length of the run: stop at a byte >= 0x80 or a NUL */
	while (n + 8 <= avail) {
		uint64_t w = fold_load8(p + n), m = fold_special8(w);
		if (m) {
			/* first flagged byte (fold_load8); a false NUL
			 * flag can only follow a real one */
			n += (size_t)__builtin_ctzll(m) >> 3;
			goto found;
		}
		n += 8;
	}
	while (n < avail && p[n] && p[n] < 0x80)
		n++;
found:
	if (n < avail && !p[n])
		fs->bad = 1; /* NUL: ill formed; nothing else matters */
	if (C && n && n < (size_t)(e - p) && p[n] >= 0x80) {
		unsigned c = p[n - 1];
		fs->st = F && c - 'A' < 26u ? c + 32 : c;
		fs->have_st = 1;
		n--;
		fs->p = p + n + 1;
	} else {
		fs->p = p + n;
	}
	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		if (F)
			w = fold_lower8(w);
		memcpy(o + i, &w, 8);
	}
	if (i < n && n >= 8) {
		/* the last, partial word again, overlapping */
		uint64_t w;
		memcpy(&w, p + n - 8, 8);
		if (F)
			w = fold_lower8(w);
		memcpy(o + n - 8, &w, 8);
	} else if (i < n && (size_t)(e - p) >= 8) {
		/* a short run: one word, of which only n bytes count (the
		 * bytes past the run may be >= 0x80: fold_lower8 leaves them
		 * alone or garbles them, and they are overwritten later) */
		uint64_t w;
		memcpy(&w, p, 8);
		if (F)
			w = fold_lower8(w & 0x7F7F7F7F7F7F7F7Full) |
			    (w & 0x8080808080808080ull);
		memcpy(o, &w, 8);
	} else {
		for (; i < n; i++) {
			unsigned c = p[i];
			o[i] = (unsigned char)(F && c - 'A' < 26u ? c + 32 : c);
		}
	}
	fs->outn += (unsigned)n;
}

/* Copy one UTF-8 sequence of 2..4 bytes (no variable-length memcpy). */
static FS_INLINE void fs_copy_to(unsigned char *o, const unsigned char *p,
				 unsigned len)
{
	o[0] = p[0];
	o[1] = p[1];
	if (len > 2) {
		o[2] = p[2];
		if (len > 3)
			o[3] = p[3];
	}
}

static FS_INLINE unsigned char *fs_jamo(unsigned char *o, uint32_t j)
{
	o[0] = 0xE1;
	o[1] = (unsigned char)(0x80 | (j >> 6 & 0x3F));
	o[2] = (unsigned char)(0x80 | (j & 0x3F));
	return o + 3;
}

static FS_INLINE unsigned char *fs_utf8(unsigned char *o, uint32_t c)
{
	if (c < 0x800) {
		o[0] = (unsigned char)(0xC0 | c >> 6);
		o[1] = (unsigned char)(0x80 | (c & 0x3F));
		return o + 2;
	}
	if (c < 0x10000) {
		o[0] = (unsigned char)(0xE0 | c >> 12);
		o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (c & 0x3F));
		return o + 3;
	}
	o[0] = (unsigned char)(0xF0 | c >> 18);
	o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (c & 0x3F));
	return o + 4;
}

/* The lane's count of marks since the pending starter, packed with the
 * class of the last one: their number << 8 | the class. */
static FS_INLINE unsigned fs_marks_add(unsigned marks, unsigned ccc)
{
	return ((marks >> 8) + 1) << 8 | ccc;
}

/* Is the code point of record r (assigned at the stream's version, not
 * special) a mark the lane can pass as it is: a non-starter that no
 * mapping of the form touches? */
static FS_INLINE int fs_plain_mark(const struct fold_rec *r, unsigned compat,
				   const int F)
{
	unsigned used = F_D | (compat ? F_K : 0) | (F ? F_F : 0);
	return r->ccc && !(REC_FIELDS(r) & used);
}

/* May a mark of class ccc follow the marks the lane counted
 * (fs_marks_add): not of a lower class than the last, and within a
 * stream-safe run? */
static FS_INLINE int fs_marks_fit(unsigned marks, unsigned ccc)
{
	return ccc >= (marks & 0xFF) && (marks >> 8) < FOLD_SAFE_RUN;
}

/* Can the lane pass the mark of record r after the marks it counted:
 * plain, and fitting (fs_marks_fit)? */
static FS_INLINE int fs_next_mark(const struct fstream *fs,
				  const struct fold_rec *r, unsigned marks,
				  const int F)
{
	return fs_plain_mark(r, fs->level > 1, F) && fs_marks_fit(marks, r->ccc);
}

/*
 * Decomposing forms: the canonical decomposition of cp (record r, with a
 * D field, assigned, not special) if it is a chain of pairs down to a base
 * that needs no lookup beyond its lane value (ASCII, no record, a simple
 * fold) and its second elements are plain marks in canonical order (or,
 * folding, a last U+0345): written at o, folded if the form folds (as
 * fs_decompose() and fs_final() would).  Returns the end of what was
 * written, with *cc the number of marks << 8 | the class of the last one;
 * NULL if the decomposition is not that simple (nothing counts as written
 * then).
 */
static FS_INLINE unsigned char *fs_lane_decompose(const struct fstream *fs,
						  uint32_t cp,
						  const struct fold_rec *r,
						  unsigned char *o,
						  unsigned *cc, const int F)
{
	unsigned stack[FOLD_MAXCHAIN]; /* the seconds, by fold_seconds index */
	uint32_t x = cp, m = fs_field(r, 0);
	unsigned n = 0, last = 0;
	if (M_TYPE(m) == M_PAIR && M_PAIRIDX(m, cp) < FOLD_NDKEY) {
		/* a composite below FOLD_DKEY_HI: its key whole, if it
		 * is simple */
		unsigned i = M_PAIRIDX(m, cp);
		uint64_t k = fold_dkey[i];
		if ((k & (F ? DK_FOLDS_SAME | DK_FOLD32 : DK_VALID)) &&
		    DK_AGE(k) <= fs->age) {
			if (F && (k & DK_ASCII_CAP))
				k |= 0x20;
			if (F && (k & DK_FOLD32)) {
				/* the two-byte base, 32 on */
				uint32_t b = ((uint32_t)k & 0x1F) << 6 |
					     ((uint32_t)k >> 8 & 0x3F);
				b += 32;
				k = (k & ~0xFFFFull) | (0xC0 | b >> 6) |
				    (uint64_t)(0x80 | (b & 0x3F)) << 8;
			}
			fold_store8(o, k); /* out[] has room past the key */
			*cc = DK_MARKS(k) << 8 |
			      S_CCC(fold_sec_info[P_SECOND(fold_pairs[i])]);
			return o + DK_LEN(k);
		}
	}
	while (M_TYPE(m) == M_PAIR) {
		uint32_t pr = fold_pairs[M_PAIRIDX(m, x)];
		const struct fold_rec *rx;
		unsigned lx;
		stack[n++] = P_SECOND(pr);
		x = P_FIRST(pr);
		if (x < 0x80) {
			*o++ = (unsigned char)(F && x - 'A' < 26u ? x + 32 : x);
			goto seconds;
		}
		lx = fold_lane(x);
		if (lx & L_HANGUL)
			return NULL;
		if (!(lx & L_RID))
			goto base;
		rx = &fold_recs[lx & L_RID];
		if (REC_FIELDS(rx) & F_D) {
			m = fs_field(rx, 0);
			continue;
		}
		/* part of a mapping: folded whatever its age (fs_final) */
		if (F && (lx & L_SFOLD)) {
			x = (uint32_t)((int32_t)x + M_SDELTA(REC_DESC(rx)));
			goto base;
		}
		if (rx->ccc || (F && (REC_FIELDS(rx) & F_F)))
			return NULL;
		goto base;
	}
	return NULL; /* a singleton: rare, for the general path */
base:
	o = fs_utf8(o, x);
seconds:
	*cc = n << 8;
	while (n) {
		/* a plain mark if it has a class (it has no
		 * decomposition) and, if the form folds, no fold but
		 * U+0345's */
		unsigned i = stack[--n], si = fold_sec_info[i];
		unsigned cls = S_CCC(si);
		uint32_t c = fold_seconds[i];
		if (S_AGE(si) > fs->age || !cls || cls < last)
			return NULL;
		if (F && (si & S_FOLDS)) {
			/* U+0345 (iota subscript, the last mark of Greek
			 * Extended composites) folds to U+03B9 in its
			 * place; counted with its own class 240, above
			 * every plain mark's, so that any mark after it
			 * goes to the general path, which orders the fold
			 * as fs_final() says (a starter in kernel order) */
			if (c != YPOGEGRAMMENI)
				return NULL;
			c = 0x3B9;
		}
		last = cls;
		o = fs_utf8(o, c);
	}
	*cc |= last;
	return o;
}

/* A case fold (F field, no decomposition) to a string of ASCII letters:
 * written at o; returns its end, or NULL if the fold is anything else. */
static FS_INLINE unsigned char *fs_lane_ascii_fold(uint32_t cp,
						   const struct fold_rec *r,
						   unsigned char *o)
{
	uint32_t m = fs_field(r, 2);
	const unsigned char *q;
	unsigned n, i;
	if (M_TYPE(m) != M_POOL)
		return NULL;
	q = fold_pool + M_OFF(m, cp);
	n = M_LEN(m);
	for (i = 0; i < n; i++)
		if (q[i] >= 0x80)
			return NULL;
	for (i = 0; i < n; i++)
		o[i] = q[i];
	return o + n;
}

/* The K field of cp (record r) if it is one code point (a delta, or a
 * pool slice of one: half-width kana), else 0. */
static FS_INLINE uint32_t fs_compat_one(uint32_t cp, const struct fold_rec *r)
{
	uint32_t m = fs_field(r, 1), t;
	const unsigned char *q, *qe;
	if (M_TYPE(m) == M_DELTA)
		return (uint32_t)((int32_t)cp + M_SDELTA(m));
	if (M_TYPE(m) != M_POOL)
		return 0;
	q = fold_pool + M_OFF(m, cp);
	qe = q + M_LEN(m);
	t = pool_next(&q);
	return q == qe ? t : 0;
}

/* Compatibility forms: if the K field of cp (record r) is one code point
 * that, folded if the form folds, the lane takes as a starter (ASCII, a
 * code point without data, a simple fold's target: nothing before
 * combines with them), it is written at o and the end returned, with
 * *hold set as the lane holds starters; else NULL. */
static FS_INLINE unsigned char *fs_lane_compat(uint32_t cp,
					       const struct fold_rec *r,
					       unsigned char *o, uint32_t *hold,
					       const int F)
{
	uint32_t t = fs_compat_one(cp, r);
	unsigned lt;
	if (!t)
		return NULL;
	if (t < 0x80) {
		if (F && t - 'A' < 26u)
			t += 32;
		*o = (unsigned char)t;
		*hold = t;
		return o + 1;
	}
	lt = fold_lane(t);
	/* part of a mapping: folded whatever its age (fs_final) */
	if (F && (lt & L_SFOLD)) {
		t = (uint32_t)((int32_t)t +
			       M_SDELTA(REC_DESC(&fold_recs[lt & L_RID])));
		*hold = t;
		return fs_utf8(o, t);
	}
	/* no data: its own key, and nothing combines with it (L_BB) */
	if (lt & (L_RID | L_HANGUL))
		return NULL;
	*hold = t;
	return fs_utf8(o, t);
}

/* Compatibility forms: if the K field of cp (record r) is one plain mark
 * assigned at the stream's version, that mark (its record in *rm); else
 * 0. */
static FS_INLINE uint32_t fs_compat_mark(const struct fstream *fs,
					 uint32_t cp, const struct fold_rec *r,
					 const struct fold_rec **rm, const int F)
{
	uint32_t t = fs_compat_one(cp, r);
	if (t < 0x80)
		return 0;
	*rm = fold_rec_of(t);
	if (REC_AGE(*rm) > fs->age || ((*rm)->af & A_SPECIAL) ||
	    !fs_plain_mark(*rm, 0, F))
		return 0;
	return t;
}

/* NFKC_CF: the key of a composite whose canonical decomposition is a
 * pair ending in U+0345 (Greek with ypogegrammeni or prosgegrammeni:
 * U+1FA0 -> U+1F60 U+0345, U+1FBC -> U+0391 U+0345) is the key of the
 * first element, then U+03B9 (U+0345's fold, a starter), the first
 * element's key being one code point: itself where it is quiet at level
 * 3, else a simple or composed fold.  Written at o; returns the end, or
 * NULL if cp (record r, assigned) is not such a composite. */
static FS_INLINE unsigned char *fs_lane_ypo(const struct fstream *fs,
					    uint32_t cp,
					    const struct fold_rec *r,
					    unsigned char *o)
{
	uint32_t m = fs_field(r, 0), pr, x, t;
	unsigned lx;
	if (M_TYPE(m) != M_PAIR)
		return NULL;
	pr = fold_pairs[M_PAIRIDX(m, cp)];
	if (fold_seconds[P_SECOND(pr)] != YPOGEGRAMMENI)
		return NULL;
	x = P_FIRST(pr);
	lx = fold_lane(x);
	/* an element younger than its composite (none today): not taken,
	 * as in fs_lane_decompose() */
	if ((lx & L_RID) && REC_AGE(&fold_recs[lx & L_RID]) > fs->age)
		return NULL;
	if (L_QUIET(lx) >= 3)
		t = x;
	else if (!(t = fs_one_fold(fs, x, lx, 1)))
		return NULL;
	o = fs_utf8(o, t);
	return fs_utf8(o, 0x3B9);
}

/* The lane's hold after a run of own keys: HOLD_AT, "the code point of
 * the own key at opend if it has no record, else 0", looked up only where
 * a mark or the general path needs it (most runs end at ASCII or at the
 * end of the name).  fs_hold_at() gives it for the own key at o, of two
 * to four bytes. */
#define HOLD_AT 0xFFFFFFFFu

static FS_INLINE uint32_t fs_hold_at(const unsigned char *o)
{
	uint32_t cp;
	if (o[0] < 0xE0)
		cp = (o[0] & 0x1Fu) << 6 | (o[1] & 0x3Fu);
	else if (o[0] < 0xF0)
		cp = (o[0] & 0x0Fu) << 12 | (o[1] & 0x3Fu) << 6 |
		     (o[2] & 0x3Fu);
	else
		cp = (o[0] & 0x07u) << 18 | (o[1] & 0x3Fu) << 12 |
		     (o[2] & 0x3Fu) << 6 | (o[3] & 0x3Fu);
	return fold_lane(cp) & L_RID ? 0 : cp;
}

/*
 * The fast lane, entered with nothing held in stages 2 and 3: one loop,
 * its state in locals, over ASCII (8 bytes at a time, folded if the form
 * folds) and the non-ASCII code points whose keys need no buffering,
 * until about want bytes of output are there.
 *  - Decomposing forms: ASCII, inert code points, Hangul syllables (as
 *    their jamo), simple folds and simple canonical decompositions
 *    (fs_lane_decompose) are starters whose output is final once the next
 *    code point is a starter; plain marks (fs_plain_mark) are copied as
 *    long as their classes do not decrease.  The last starter is
 *    "pending" (pend, opend) while marks follow it: if the lane meets
 *    anything else there, the whole sequence from that starter is given
 *    back to the general path, which sorts it.
 *  - Composing forms: ASCII, quiet code points (Hangul syllables
 *    included), simple folds and (NFKC_CF) composed folds, which become
 *    their key, one quiet composite; each is final once the next code point
 *    is known to combine with nothing before it (ASCII, quiet, a simple
 *    fold, L_BB) or the input ends.  The last one copied is "pending"
 *    (pend, opend) until then.  A plain mark that composes with a pending
 *    starter without a decomposition (hold: ASCII, folded; a code point
 *    without a record; a simple fold's target) replaces it with the
 *    composite, as stage 3 would, while the marks' classes do not
 *    decrease.  If what follows may combine with the pending one
 *    otherwise, it becomes stage 3's held starter when it has no
 *    decomposition and nothing composed with it yet, as the general path
 *    would hold it; else (a composite, a composed fold) it is given back
 *    to the general path, and fs->slow remembers that, so the lane is not
 *    tried there again.
 *  - Both: ignorables that the form removes are skipped.
 * The lane stops before anything else, NUL and ill-formed input included;
 * a non-ASCII code point it stops at is left decoded for the general path.
 */
static FS_INLINE void fs_fast(struct fstream *fs, unsigned want, const int C,
			      const int F)
{
	/* Few locals, none whose address is taken: the loop runs from
	 * registers.  NFKC_CF (C and F) is the one composing folding form,
	 * so its level and ignorables are constants. */
	const unsigned char *p = fs->p, *pend = p;
	const unsigned char *const e = fs->end;
	unsigned char *o = fs->out + fs->outn, *opend = o;
	unsigned char *const olim = fs->out + want;
	uint32_t hold = 0; /* or HOLD_AT */
	/* marks since the pending starter: their number << 8 | the class of
	 * the last one (plain marks have a class, so 0 means none) */
	unsigned marks = 0;
	/* A code point the two- or three-byte loop decoded but does not
	 * take: composing forms go to the general code below with it (cp,
	 * lv, len) rather than have it decoded and looked up again;
	 * decomposing forms, which seldom stop there, measured faster going
	 * round the loop (the code laid out better). */
#define LANE_MISS                                                            \
	{                                                                    \
		if (!C)                                                      \
			break;                                               \
		goto decoded;                                                \
	}
	/* The code point of len bytes at p taken, its key written up to q:
	 * it is the pending one now, with mk as the marks' count. */
#define LANE_TOOK(q, mk)                                                     \
	{                                                                    \
		pend = p;                                                    \
		opend = o;                                                   \
		o = (q);                                                     \
		p += len;                                                    \
		marks = (mk);                                                \
		continue;                                                    \
	}
	for (;;) {
		const struct fold_rec *r;
		const unsigned char *p0; /* where the two-byte loop began */
		uint32_t d, cp, t;
		unsigned len, lv;
		if (o >= olim) {
			/* enough: what is pending is final if what follows
			 * cannot change it (the look-ahead is kept) */
			if ((!C && !marks) || fs_next_final(fs, p, C, F)) {
				pend = p;
				opend = o;
				marks = 0;
			}
			break;
		}
		if (p == e) {
			pend = p;
			opend = o;
			marks = 0;
			break;
		}
		if (*p < 0x80) {
			/* a run of ASCII; its last byte is pending */
			const unsigned char *q = p;
			uint64_t w, m;
ascii_run:
			while (e - p >= 8 && o < olim) {
				w = fold_load8(p);
				m = fold_special8(w);
				if (F)
					w = fold_lower8(w & 0x7F7F7F7F7F7F7F7Full);
				fold_store8(o, w); /* out[] has room past olim */
				if (m) {
					size_t k = (size_t)__builtin_ctzll(m) >> 3;
					p += k;
					o += k;
					goto ascii_end;
				}
				p += 8;
				o += 8;
			}
			if (o < olim && p < e && e - fs->beg >= 8) {
				/* the last r < 8 bytes: the word ending
				 * at e, shifted down (zeros above them) */
				unsigned k = (unsigned)(e - p);
				w = fold_load8(e - 8) >> 8 * (8 - k);
				m = fold_special8(w) & ((1ull << (8 * k)) - 1);
				if (F)
					w = fold_lower8(w & 0x7F7F7F7F7F7F7F7Full);
				fold_store8(o, w);
				k = m ? (unsigned)__builtin_ctzll(m) >> 3 : k;
				p += k;
				o += k;
			} else if (o < olim) {
				while (p < e && *p && *p < 0x80) {
					unsigned c = *p++;
					*o++ = (unsigned char)(F && c - 'A' < 26u ?
							       c + 32 : c);
				}
			}
ascii_end:
			if (e - p >= 2 && p[0] - 0xC2u < 0x1Eu &&
			    (p[1] & 0xC0) == 0x80 && o < olim) {
				/* a two-byte code point after ASCII (a Latin
				 * accent): if it is its own key or folds to a
				 * two-byte one and ASCII follows (nothing
				 * combines with it), it is final and the run
				 * goes on; else the two-byte loop takes it
				 * over as decoded, the run's last byte
				 * pending */
				cp = (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu);
				lv = fold_lane_direct(cp);
				if (e - p == 2 || p[2] - 1u < 0x7Fu) {
					if (fs_own(fs, lv, C, F)) {
						o[0] = p[0];
						o[1] = p[1];
						p += 2;
						o += 2;
						goto ascii_run;
					}
					if (F && (t = fs_one_fold(fs, cp, lv, C)) -
							 0x80u <
						 0x800u - 0x80u) {
						o[0] = (unsigned char)(0xC0 | t >> 6);
						o[1] = (unsigned char)(0x80 | (t & 0x3F));
						p += 2;
						o += 2;
						goto ascii_run;
					}
				}
				pend = p - 1;
				opend = o - 1;
				hold = *opend;
				marks = 0;
				p0 = p;
				len = 2;
				goto two_decoded;
			}
			if (p == q || p == e) {
				/* the end (all final), or NUL (the general
				 * path reports it) */
				pend = p;
				opend = o;
				marks = 0;
				break;
			}
			pend = p - 1;
			opend = o - 1;
			hold = *opend;
			marks = 0;
			continue;
		}
		if (p[0] - 0xC2u < 0x1Eu) {
			/* a run of two-byte code points that are their own
			 * keys, simple folds or (NFKC_CF) composed folds to
			 * two-byte code points, in a loop of its own (Latin,
			 * Greek, Cyrillic, Hebrew, Arabic...); pend, opend
			 * follow the last starter.  Plain marks: decomposing
			 * forms copy them, composing forms compose them with
			 * the held starter; decomposing forms also take
			 * simple decompositions here. */
			p0 = p;
			len = 2; /* for the general code below (decoded:) */
			while (e - p >= 2 && p[0] - 0xC2u < 0x1Eu &&
			       (p[1] & 0xC0) == 0x80 && o < olim) {
				cp = (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu);
				lv = fold_lane_direct(cp);
two_decoded:
				if (fs_own(fs, lv, C, F)) {
					/* own keys, the common case: a tight
					 * loop while they last.  The key is the
					 * input here, so o - p stays the same:
					 * one bound for both (lim: room for
					 * another sequence) */
					size_t room = (size_t)(olim - o);
					const unsigned char *lim =
						(size_t)(e - 1 - p) < room ?
							e - 1 :
							p + room;
					unsigned w;
					for (;;) {
						memcpy(o, p, 2);
						o += 2;
						p += 2;
						if (p >= lim)
							break;
						/* lead 110xxxxx (not C0, C1) and
						 * a continuation byte */
						w = (unsigned)p[0] | (unsigned)p[1] << 8;
						if ((w & 0xC0E0u) != 0x80C0u ||
						    (w & 0xFFu) < 0xC2u)
							break;
						cp = (w & 0x1Fu) << 6 | (w >> 8 & 0x3Fu);
						lv = fold_lane_direct(cp);
						if (!fs_own(fs, lv, C, F))
							break;
					}
					/* the last one copied may be held: look
					 * it up only if needed (HOLD_AT) rather
					 * than carry it (nor let the compiler
					 * carry the pointers to it round the
					 * loop) */
					FS_OPAQUE(p);
					FS_OPAQUE(o);
					hold = HOLD_AT;
					pend = p - 2;
					opend = o - 2;
					marks = 0;
					continue;
				} else if (F && (t = fs_one_fold(fs, cp, lv, C)) -
							0x80u <
						0x800u - 0x80u) {
					opend = o;
					o[0] = (unsigned char)(0xC0 | t >> 6);
					o[1] = (unsigned char)(0x80 | (t & 0x3F));
					o += 2;
					marks = 0;
					if (!(lv & L_SFOLD))
						t = 0; /* composed: never held */
				} else if (lv & L_RID) {
					unsigned char *q;
					unsigned cc;
					r = &fold_recs[lv & L_RID];
					if (REC_AGE(r) > fs->age ||
					    (r->af & (A_SPECIAL | A_DI)))
						LANE_MISS;
					if (r->ccc) {
						if (!fs_next_mark(fs, r, marks, F))
							LANE_MISS;
						if (C) {
							/* the composite replaces
							 * the pending starter */
							if (hold == HOLD_AT)
								hold = fs_hold_at(opend);
							if (!hold ||
							    !(t = fs_pair(fs, hold, cp,
									  REC_SEC(r))))
								LANE_MISS;
							hold = t;
							o = fs_utf8(opend, t);
							p += 2;
							marks = fs_marks_add(marks,
									     r->ccc);
							continue;
						}
						/* a mark: its starter stays
						 * the pending one */
						o[0] = p[0];
						o[1] = p[1];
						o += 2;
						p += 2;
						marks = fs_marks_add(marks, r->ccc);
						continue;
					}
					if (C || !(REC_FIELDS(r) & F_D) ||
					    (fs->level > 1 &&
					     (REC_FIELDS(r) & F_K)))
						LANE_MISS;
					q = fs_lane_decompose(fs, cp, r, o, &cc,
							      F);
					if (!q)
						LANE_MISS;
					opend = o;
					o = q;
					marks = cc;
					t = 0;
				} else {
					LANE_MISS;
				}
				hold = t;
				pend = p;
				p += 2;
			}
			if (p != p0)
				continue;
		} else if (p[0] - 0xE1u < 0x0Fu) {
			/* the same for three-byte code points that are their
			 * own keys (CJK, kana, Hangul syllables...) and
			 * removed ignorables (ZWJ, VS16); decomposing forms
			 * also take Hangul syllables (as their jamo), plain
			 * marks, simple decompositions (kana with a voicing
			 * mark, Vietnamese, polytonic Greek) and starters
			 * whose data they do not use */
			const unsigned char *const p0 = p;
			len = 3;
			while (e - p >= 3 && p[0] - 0xE1u < 0x0Fu &&
			       ((p[1] ^ 0x80u) | (p[2] ^ 0x80u)) < 0x40u &&
			       (p[0] != 0xED || p[1] < 0xA0) && o < olim) {
				cp = (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 |
				     (p[2] & 0x3Fu);
				lv = fold_lane(cp);
				if (!C && cp - SBASE < SCOUNT) {
					/* decomposing: a syllable is its jamo */
					uint32_t x = cp - SBASE;
					if (fs->age < HANGUL_AGE)
						LANE_MISS;
					pend = p;
					opend = o;
					marks = 0;
					o = fs_jamo(o, LBASE + x / NCOUNT);
					o = fs_jamo(o, VBASE + (x % NCOUNT) / TCOUNT);
					if (x % TCOUNT)
						o = fs_jamo(o, TBASE + x % TCOUNT);
					p += 3;
					continue;
				}
				if ((lv & L_HANGUL) && cp - SBASE >= SCOUNT) {
					/* a conjoining jamo: composing forms
					 * join it to the held L or LV, as stage
					 * 3 would; else it is a starter that
					 * nothing before it combines with */
					if (C && hold == HOLD_AT)
						hold = fs_hold_at(opend);
					if (C && hold &&
					    (t = fs_pair(fs, hold, cp, 0))) {
						hold = t;
						o = fs_utf8(opend, t);
						p += 3;
						continue;
					}
					/* copied as the lane's own below */
				} else if (!fs_own(fs, lv, C, F)) {
					unsigned char *q;
					unsigned cc;
					if (!(lv & L_RID))
						LANE_MISS;
					r = &fold_recs[lv & L_RID];
					if (REC_AGE(r) > fs->age ||
					    (r->af & A_SPECIAL))
						LANE_MISS;
					if ((r->af & A_DI) &&
					    (C && F ? 1 : fs->ign)) {
						/* removed: as if not there */
						p += 3;
						continue;
					}
					if (C) {
						/* compatibility singletons
						 * (U+FF12 -> 2, U+FF83 -> U+30C6)
						 * here rather than after the
						 * general path's tests */
						if (fs->level > 1 && !r->ccc &&
						    (REC_FIELDS(r) & F_K) &&
						    (q = fs_lane_compat(cp, r, o,
									&hold, F)))
							LANE_TOOK(q, 0);
						LANE_MISS;
					}
					if (r->ccc) {
						if (!fs_next_mark(fs, r, marks, F))
							LANE_MISS;
						/* its starter stays pending */
						fs_copy_to(o, p, 3);
						o += 3;
						p += 3;
						marks = fs_marks_add(marks, r->ccc);
						continue;
					}
					if (!(REC_FIELDS(r) & F_D)) {
						if (REC_FIELDS(r) &
						    ((fs->level > 1 ? F_K : 0) |
						     (F ? F_F : 0)))
							LANE_MISS;
						/* its data unused: inert */
						q = o + 3;
						fs_copy_to(o, p, 3);
						cc = 0;
					} else {
						if (fs->level > 1 &&
						    (REC_FIELDS(r) & F_K))
							LANE_MISS;
						q = fs_lane_decompose(fs, cp, r, o,
								      &cc, F);
						if (!q)
							LANE_MISS;
					}
					pend = p;
					opend = o;
					o = q;
					p += 3;
					marks = cc;
					continue;
				} else {
					/* own keys, the common case (kana, Han,
					 * Hangul syllables...): a tight loop
					 * while they last, as for two bytes
					 * (one bound for both ends measured
					 * slower here) */
					const unsigned char *const e2 = e - 2;
					for (;;) {
						unsigned b0;
						fs_copy_to(o, p, 3);
						o += 3;
						p += 3;
						if (p >= e2 || o >= olim)
							break;
						b0 = p[0];
						if (b0 - 0xE1u >= 0x0Fu ||
						    ((p[1] ^ 0x80u) | (p[2] ^ 0x80u)) >=
							    0x40u ||
						    (b0 == 0xED && p[1] >= 0xA0))
							break;
						/* U+4000..U+9FFF (CJK, no data)
						 * and, composing, U+B000..U+CFFF
						 * (Hangul syllables, quiet)
						 * without a look-up */
						if (b0 - 0xE4u < 6u ||
						    (C && b0 - 0xEBu < 2u))
							continue;
						cp = (b0 & 0x0Fu) << 12 |
						     (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
						lv = fold_lane(cp);
						if (!fs_own(fs, lv, C, F))
							break;
					}
					/* the last one copied may be held: look
					 * it up only if needed */
					FS_OPAQUE(p);
					FS_OPAQUE(o);
					hold = HOLD_AT;
					pend = p - 3;
					opend = o - 3;
					marks = 0;
					continue;
				}
				hold = lv & L_RID ? 0 : cp;
				pend = p;
				opend = o;
				marks = 0;
				fs_copy_to(o, p, 3);
				p += 3;
				o += 3;
			}
			if (p != p0)
				continue;
		}
		if (p[0] - 0xF0u < 5u) {
			/* the same for four-byte code points that are their
			 * own keys (emoji, historic scripts, CJK ext. B) */
			const unsigned char *const p0 = p;
			while (e - p >= 4 && p[0] - 0xF0u < 5u &&
			       ((p[1] ^ 0x80u) | (p[2] ^ 0x80u) |
				(p[3] ^ 0x80u)) < 0x40u &&
			       o < olim) {
				cp = (p[0] & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 |
				     (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
				if (cp - 0x10000u > 0x10FFFFu - 0x10000u)
					break; /* overlong or too big */
				lv = fold_lane(cp);
				if (!(fs_own(fs, lv, C, F)))
					break;
				fs_copy_to(o, p, 4);
				p += 4;
				o += 4;
			}
			if (p != p0) {
				hold = HOLD_AT;
				pend = p - 4;
				opend = o - 4;
				marks = 0;
				continue;
			}
		}
		d = fs_dec(p, e);
		if (!d) {
			/* ill formed: the stream stops there anyway */
			pend = p;
			opend = o;
			marks = 0;
			break;
		}
		cp = DEC_CP(d);
		len = DEC_LEN(d);
		lv = fold_lane(cp);
decoded:
		/* the two- and three-byte loops come here with a code point
		 * of len bytes at p they decoded (cp, lv) but did not take,
		 * rather than have it decoded and looked up again */
		if (fs_own(fs, lv, C, F)) {
			pend = p;
			opend = o;
			marks = 0;
			hold = lv & L_RID ? 0 : cp;
			fs_copy_to(o, p, len);
			o += len;
			p += len;
			continue;
		}
		if (F && (t = fs_simple_fold(fs, cp, lv)) != 0) {
			pend = p;
			opend = o;
			marks = 0;
			hold = t;
			o = fs_utf8(o, t);
			p += len;
			continue;
		}
		if (F && C && (t = fs_composed_fold(fs, cp, lv)) != 0) {
			/* pending, never held: given back to the general
			 * path if what follows may combine with it */
			pend = p;
			opend = o;
			marks = 0;
			hold = 0;
			o = fs_utf8(o, t);
			p += len;
			continue;
		}
		/* Not reached (the three-byte loop above takes every syllable
		 * from 2.0 on; gcov agrees), but kept: without it gcc lays the
		 * lane out so that Hangul casefolding measured 8 % slower. */
		if (!C && cp - SBASE < SCOUNT && fs->age >= HANGUL_AGE) {
			uint32_t x = cp - SBASE;
			pend = p;
			opend = o;
			marks = 0;
			o = fs_jamo(o, LBASE + x / NCOUNT);
			o = fs_jamo(o, VBASE + (x % NCOUNT) / TCOUNT);
			if (x % TCOUNT)
				o = fs_jamo(o, TBASE + x % TCOUNT);
			p += len;
			continue;
		}
		r = &fold_recs[lv & L_RID];
		if ((lv & L_RID) && REC_AGE(r) <= fs->age &&
		    !(r->af & A_SPECIAL)) {
			unsigned char *q;
			unsigned cc;
			if ((r->af & A_DI) && (C && F ? 1 : fs->ign)) {
				/* removed: as if it were not there */
				p += len;
				continue;
			}
			if (fs_next_mark(fs, r, marks, F)) {
				if (!C) {
					fs_copy_to(o, p, len);
					o += len;
					p += len;
					marks = fs_marks_add(marks, r->ccc);
					continue;
				}
				if (hold == HOLD_AT)
					hold = fs_hold_at(opend);
				if (hold &&
				    (t = fs_pair(fs, hold, cp, REC_SEC(r)))) {
					/* the composite replaces the
					 * pending starter */
					hold = t;
					o = fs_utf8(opend, t);
					p += len;
					marks = fs_marks_add(marks, r->ccc);
					continue;
				}
			} else if (r->ccc) {
				/* a mark to be sorted or composed */
			} else if (fs->level > 1 && (REC_FIELDS(r) & F_K)) {
				/* compatibility: a single code point the lane
				 * can take as a starter (U+FF12 -> 2) */
				const struct fold_rec *rm;
				uint32_t mk;
				if ((q = fs_lane_compat(cp, r, o, &hold, F)))
					LANE_TOOK(q, 0);
				/* or one plain mark (U+FF9E -> U+3099): as
				 * if that mark were there */
				mk = fs_compat_mark(fs, cp, r, &rm, F);
				if (mk && fs_marks_fit(marks, rm->ccc)) {
					if (!C) {
						o = fs_utf8(o, mk);
						p += len;
						marks = fs_marks_add(marks, rm->ccc);
						continue;
					}
					if (hold == HOLD_AT)
						hold = fs_hold_at(opend);
					if (hold && (t = fs_pair(fs, hold, mk,
								 REC_SEC(rm)))) {
						hold = t;
						o = fs_utf8(opend, t);
						p += len;
						marks = fs_marks_add(marks, rm->ccc);
						continue;
					}
				}
			} else if (C && F && (lv & L_BB) &&
				   (REC_FIELDS(r) & F_D)) {
				/* Greek with iota subscript (U+1FA0): final
				 * but for what follows, pending and never
				 * held (a mark after it sorts before U+0345's
				 * fold: the general path) */
				q = fs_lane_ypo(fs, cp, r, o);
				if (q) {
					hold = 0;
					LANE_TOOK(q, 0);
				}
			} else if (!C && (REC_FIELDS(r) & F_D)) {
				q = fs_lane_decompose(fs, cp, r, o, &cc, F);
				if (q)
					LANE_TOOK(q, cc);
			} else if (F && (REC_FIELDS(r) & F_F)) {
				/* folds to ASCII (U+00DF -> ss): final, never
				 * held (the pending unit would be two) */
				q = fs_lane_ascii_fold(cp, r, o);
				if (q) {
					hold = 0;
					LANE_TOOK(q, 0);
				}
			} else if (!C && !(REC_FIELDS(r) & F_D)) {
				/* a starter whose data the form does not use
				 * (an ignorable it keeps; K and, if the form
				 * folds, F were tried above): inert */
				pend = p;
				opend = o;
				fs_copy_to(o, p, len);
				o += len;
				p += len;
				marks = 0;
				continue;
			}
		}
		/* for the general path */
		fs->pk_p = p;
		fs->pk_cp = cp;
		fs->pk_lv = lv;
		fs->pk_len = len;
		if (C && (lv & L_BB)) {
			pend = p;
			opend = o;
		} else if (C && pend != p) {
			/* it may combine with the pending one: hold that
			 * as the general path would, or give it back */
			if (hold == HOLD_AT)
				hold = fs_hold_at(opend);
			if (hold && !marks) {
				fs->st = hold;
				fs->have_st = 1;
				pend = p;
			} else {
				fs->slow = pend;
			}
		}
		break;
	}
	if (!C) {
		/* final up to p, unless marks follow the pending starter:
		 * then the sequence from it is given back */
		if (!marks) {
			pend = p;
			opend = o;
		} else {
			fs->slow = pend;
		}
	}
	fs->p = pend;
	fs->outn = (unsigned)(opend - fs->out);
#undef LANE_MISS
#undef LANE_TOOK
}

/* ---- the fill loop ---- */

/* Bytes of a name streamed as they are (ill formed) or ASCII-folded
 * (ascii charset). */
static unsigned fs_fill_bytes(struct fstream *fs)
{
	size_t n = (size_t)(fs->end - fs->p);
	unsigned i;
	if (n > FS_OUTCAP)
		n = FS_OUTCAP;
	if (fs->mode == FS_ASCII && memchr(fs->p, 0, n)) {
		fs->bad = 1; /* NUL: not a name */
		return 0;
	}
	if (fs->mode == FS_ASCII && fs->fold) {
		for (i = 0; i < n; i++) {
			unsigned b = fs->p[i];
			fs->out[i] = (unsigned char)(b - 'A' < 26u ? b + 32 : b);
		}
	} else {
		memcpy(fs->out, fs->p, n);
	}
	fs->p += n;
	fs->outn = (unsigned)n;
	return fs->outn;
}

/*
 * FOLD_KERNEL_ORDER: the kernel sorts a run of marks whole, however long,
 * without a buffer: it finds the lowest class in the run, then emits each
 * class present, lowest first, in a pass over the run that takes that
 * class's marks in input order.  fs_long() does the same for the run
 * ns[] overflowed (its first FOLD_SAFE_RUN marks, sorted, so in input
 * order within a class: each pass emits these before the rest of the
 * run's marks of its class).  A pass walks the input from lr_p, expanding
 * each code point again (FS_CAPTURE), to the first starter or dropped
 * ignorable, which is always the first of its code point's expansion
 * (no expansion that begins with a mark has a starter later: lib-kernel
 * checks every code point), so the stream goes on from that code point.
 * Work: a pass per class in the run plus one, each linear.  Stops when
 * want bytes are out, a pass or the run unfinished (lr set), or at
 * ill-formed input (fs->bad).
 */
static void fs_long(struct fstream *fs, unsigned want, const int F)
{
	while (fs->outn < want) {
		const unsigned char *q = fs->lr_q;
		uint32_t cp;
		unsigned lv, len, i;
		if (!q) {
			/* a pass begins with the run's buffered marks */
			for (i = 0; i < fs->nns; i++) {
				unsigned cc = fs->nscls[i] & 0xFF;
				if (cc == fs->lr_cls)
					fs_put(fs, fs->ns[i]);
				else if (cc > fs->lr_cls && cc < fs->lr_next)
					fs->lr_next = cc;
			}
			q = fs->lr_p;
		}
		if (q == fs->end || *q < 0x80)
			goto stop; /* ASCII: a starter */
		len = fs_peek(fs, q, &cp, &lv);
		if (!len) {
			fs->bad = 1;
			return;
		}
		fs->nleft = 0;
		fs_expand(fs, cp, lv & L_RID, FS_CAPTURE, F);
		i = q == fs->lr_p ? fs->nleft - fs->lrn : 0;
		if (fs->nleft == 0 || fs->left[i] >> 24 == 0)
			goto stop;
		for (; i < fs->nleft; i++) {
			unsigned cc = fs->left[i] >> 24;
			if (cc == fs->lr_cls)
				fs_put(fs, fs->left[i] & 0xFFFFFF);
			else if (cc > fs->lr_cls && cc < fs->lr_next)
				fs->lr_next = cc;
		}
		fs->lr_q = q + len;
		continue;
	stop:
		/* the run ends before q */
		fs->nleft = 0;
		if (fs->lr_next > 0xFF) {
			fs->lr = 0;
			fs->lrn = 0;
			fs->nns = 0;
			fs->p = q;
			return;
		}
		fs->lr_cls = fs->lr_next;
		fs->lr_next = 0x100;
		fs->lr_q = NULL;
	}
}

/* The code point at start, just expanded, overflowed ns[] (fs->lrn). */
static void fs_long_begin(struct fstream *fs, const unsigned char *start,
			  unsigned want, const int F)
{
	fs->lr = 1;
	fs->lr_p = start;
	fs->lr_q = NULL;
	fs->lr_cls = 0; /* the first pass only finds the lowest class */
	fs->lr_next = 0x100;
	fs_long(fs, want, F);
}

static FS_INLINE unsigned fs_fill_v(struct fstream *fs, unsigned want,
				    const int C, const int F)
{
	const unsigned lim = FS_OUTCAP - FS_STEPMAX;
	if (want > lim)
		want = lim;
	if (!C && fs->lr)
		fs_long(fs, want, F);
	while (fs->outn < want && !fs->bad) {
		const unsigned char *start = fs->p;
		uint32_t cp;
		unsigned lv, len;
		if (start == fs->end) {
			if (!fs->done) {
				fs_flush_all(fs, C);
				fs->done = 1;
			}
			break;
		}
#ifdef FOLD_NO_LANES
		/* reference build for differential tests: no fast lanes */
		if (*start < 0x80) {
			if (!*start) {
				fs->bad = 1;
				break;
			}
			fs->p++;
			fs_expand(fs, *start, fold_rid(*start), C, F);
			if (!C && fs->lrn)
				fs_long_begin(fs, start, want, F);
			continue;
		}
		len = fs_peek(fs, start, &cp, &lv);
		if (!len) {
			fs->bad = 1;
			break;
		}
		fs->p = start + len;
		fs_expand(fs, cp, lv & L_RID, C, F);
		if (!C && fs->lrn)
			fs_long_begin(fs, start, want, F);
		continue;
#endif
		if (fs->nns | fs->have_st) {
			/* what is held is final before ASCII and before
			 * what the fast lane takes */
			if (*start < 0x80 ||
			    (fs_peek(fs, start, &cp, &lv) &&
			     fs_lane_starter(fs, cp, lv, C, F)))
				fs_flush_all(fs, C);
		}
		if (!(fs->nns | fs->have_st) && start != fs->slow &&
		    (*start < 0x80 || (fs_peek(fs, start, &cp, &lv) &&
				       fs_lane_takes(fs, cp, lv, C, F)))) {
			fs_fast(fs, want, C, F);
			if (fs->p == fs->end && !(fs->nns | fs->have_st)) {
				/* the whole name went through the lane: spare
				 * the caller another fill */
				fs->done = 1;
				break;
			}
			if (fs->p != start)
				continue;
		}
		if (*start < 0x80) {
			/* NUL, or a byte that may combine with what
			 * follows */
			fs_flush_all(fs, C);
			fs_ascii(fs, FS_OUTCAP - fs->outn, C, F);
			continue;
		}
		len = fs_peek(fs, start, &cp, &lv);
		if (!len) {
			fs->bad = 1;
			break;
		}
		fs->p = start + len;
		if (C) {
			if (cp - SBASE < SCOUNT && fs->age >= HANGUL_AGE) {
				/* a syllable is its own key unless it is LV
				 * and a trailing jamo T (perhaps behind an
				 * ignorable) follows: then hold it */
				fs_flush_all(fs, C);
				if ((cp - SBASE) % TCOUNT == 0 &&
				    !fs_next_final(fs, fs->p, C, F)) {
					fs->st = cp;
					fs->have_st = 1;
				} else {
					fs_copy_to(fs->out + fs->outn, start,
						   len);
					fs->outn += len;
				}
				continue;
			}
			if (fs_quiet(fs, lv)) {
				fs_flush_all(fs, C);
				if (fs_next_final(fs, fs->p, C, F)) {
					fs_copy_to(fs->out + fs->outn, start,
						   len);
					fs->outn += len;
					continue;
				}
				if (!(lv & L_RID)) {
					/* no decomposition: hold it as is */
					fs->st = cp;
					fs->have_st = 1;
					continue;
				}
			}
		}
		fs_expand(fs, cp, lv & L_RID, C, F);
		if (!C && fs->lrn)
			fs_long_begin(fs, start, want, F);
	}
	return fs->outn;
}

/* One copy of the fill loop per variant. */
static unsigned fs_fill_d(struct fstream *fs, unsigned want)
{
	return fs_fill_v(fs, want, 0, 0);
}

static unsigned fs_fill_df(struct fstream *fs, unsigned want)
{
	return fs_fill_v(fs, want, 0, 1);
}

static unsigned fs_fill_c(struct fstream *fs, unsigned want)
{
	return fs_fill_v(fs, want, 1, 0);
}

static unsigned fs_fill_cf(struct fstream *fs, unsigned want)
{
	return fs_fill_v(fs, want, 1, 1);
}

/* The fill loop of variant v (FS_VARIANT()). */
static unsigned fs_fill_variant(struct fstream *fs, unsigned want, unsigned v)
{
	switch (v) {
	case 0:
		return fs_fill_d(fs, want);
	case 1:
		return fs_fill_df(fs, want);
	case 2:
		return fs_fill_c(fs, want);
	default:
		return fs_fill_cf(fs, want);
	}
}

unsigned fs_fill(struct fstream *fs, unsigned want)
{
	fs->outn = 0;
	if (fs->mode == FS_LATER)
		fs_init_rest(fs, fs->ctx, 1);
	if (fs->mode != FS_UNI)
		return fs_fill_bytes(fs);
	return fs_fill_variant(fs, want, FS_VARIANT(fs->compose, fs->fold));
}

/* fs_first() where the fast lane stopped before the end of the name:
 * the rest of the set-up and the fill, or, if the lane gave enough (a
 * fill would add nothing), neither yet (FS_LATER: a compare often needs
 * no more). */
static unsigned fs_first_rest(struct fstream *fs, unsigned want)
{
	const unsigned lim = FS_OUTCAP - FS_STEPMAX;
	if (!FOLD_REFERENCE && fs->outn >= (want < lim ? want : lim)) {
		fs->mode = FS_LATER;
		return fs->outn;
	}
	fs_init_rest(fs, fs->ctx, 1);
	return fs_fill_variant(fs, want, FS_VARIANT(fs->compose, fs->fold));
}

/* The fast lane first; the rest of the set-up only if it stops early. */
static FS_INLINE unsigned fs_first_v(struct fstream *fs, unsigned want,
				     const int C, const int F)
{
	const unsigned lim = FS_OUTCAP - FS_STEPMAX;
	if (!FOLD_REFERENCE) {
		fs_fast(fs, want < lim ? want : lim, C, F);
		if (fs->p == fs->end) {
			fs->done = 1;
			return fs->outn;
		}
	}
	return fs_first_rest(fs, want);
}

static FS_INLINE unsigned fs_first_i(struct fstream *fs,
				     const struct fold_ctx *ctx, const char *s,
				     size_t n, unsigned want, unsigned char *out)
{
	unsigned form = ctx->form;
	if (ctx->charset != FOLD_CHARSET_UTF8) {
		fs_init(fs, ctx, s, n, 1);
		if (out)
			fs->out = out;
		return fs_fill(fs, want);
	}
	fs_init_lane(fs, ctx, s, n);
	if (out)
		fs->out = out;
	switch (fs_variant(form)) {
	case 0:
		return fs_first_v(fs, want, 0, 0);
	case 1:
		return fs_first_v(fs, want, 0, 1);
	case 2:
		return fs_first_v(fs, want, 1, 0);
	default:
		return fs_first_v(fs, want, 1, 1);
	}
}

unsigned fs_first(struct fstream *fs, const struct fold_ctx *ctx,
		  const char *s, size_t n, unsigned want, unsigned char *out)
{
	return fs_first_i(fs, ctx, s, n, want, out);
}

/* fs_first() inlined a second time (a second copy of the lanes, about
 * 38 KB): fold_key() jumps here and the common case runs in one frame,
 * with the stream local to it; callgrind counted 3.4 % fewer instructions
 * a name on the mixed corpus against fold_key() calling fs_first(). */
ssize_t fs_key(const struct fold_ctx *ctx, const char *s, size_t n,
	       unsigned char *out, size_t cap)
{
	struct fstream fs;
	unsigned k = fs_first_i(&fs, ctx, s, n, FS_OUTCAP, out);
	if (fs.done && !fs.bad)
		return k;
	/* the arguments again from the stream, which holds them: fewer
	 * values to keep across the call */
	return fold_key_general(fs.ctx, (const char *)fs.beg,
				(size_t)(fs.end - fs.beg), (char *)out, cap);
}

/* Where the first code point at p decides it, the first code point of
 * the canonical decomposition of the key of p[0..e), FS_LEAD_END if p is
 * e: later code points can only follow it (marks reorder among
 * themselves, compositions keep it first in the decomposition).  Taken:
 * ASCII (folded if the form folds), code points without data, Hangul
 * syllables (their leading jamo) and other conjoining jamo, simple folds
 * (fold_data.h: their fold is a plain starter), and starters whose
 * canonical decomposition leads to one of those.  Else, and for NUL or
 * ill-formed input, -1. */
__attribute__((flatten)) int32_t fs_lead(const struct fold_ctx *ctx,
					 const unsigned char *p,
					 const unsigned char *e)
{
	const struct fold_rec *r;
	uint32_t d, cp, m;
	unsigned lv, n;
	unsigned fold = fs_variant(ctx->form) & 1;
	if (p == e)
		return FS_LEAD_END;
	if (!*p)
		return -1;
	if (*p < 0x80) {
		cp = *p;
		goto ascii;
	}
	d = fs_dec(p, e);
	if (!d)
		return -1;
	cp = DEC_CP(d);
	lv = fold_lane(cp);
	if (lv & L_HANGUL) {
		if (cp - SBASE < SCOUNT && ctx->age >= HANGUL_AGE)
			return (int32_t)(LBASE + (cp - SBASE) / NCOUNT);
		return (int32_t)cp;
	}
	/* down the chain of decompositions to the base */
	for (n = 0; n <= FOLD_MAXCHAIN; n++) {
		if (!(lv & L_RID))
			return (int32_t)cp;
		r = &fold_recs[lv & L_RID];
		if (REC_AGE(r) > ctx->age)
			/* unassigned at the version: its own key; an
			 * element younger than its composite (U+01E0 ->
			 * U+0226 U+0304): not taken */
			return n ? -1 : (int32_t)cp;
		if (r->ccc || (r->af & (A_SPECIAL | A_DI)))
			return -1;
		if (lv & L_SFOLD)
			return (int32_t)(fold ? cp + (uint32_t)M_SDELTA(REC_DESC(r)) :
						cp);
		/* no need to look at K: the full compatibility
		 * decomposition of a canonical composite is that of its
		 * elements, so it can only lead elsewhere through the
		 * base, whose own K (it has no D) stops the walk */
		if (!(REC_FIELDS(r) & F_D))
			return -1;
		m = fs_field(r, 0);
		if (M_TYPE(m) == M_PAIR)
			cp = P_FIRST(fold_pairs[M_PAIRIDX(m, cp)]);
		else if (M_TYPE(m) == M_DELTA)
			cp += (uint32_t)M_SDELTA(m);
		else
			return -1;
		if (cp < 0x80)
			goto ascii;
		lv = fold_lane(cp);
		if (lv & L_HANGUL)
			return -1;
	}
	return -1;
ascii:
	return (int32_t)(fold && cp - 'A' < 26u ? cp + 32 : cp);
}

/* What fs_head() says: the lane's own keys (fs_own()), simple folds and
 * (NFKC_CF) composed folds are their keys, or the first code point of
 * their keys; in the composing forms only if what follows cannot combine
 * with them (fs_lane_starter()), as the lane would take them. */
__attribute__((flatten)) int32_t fs_head(const struct fold_ctx *ctx,
					 const unsigned char *p,
					 const unsigned char *e)
{
	unsigned v = fs_variant(ctx->form), C = v >> 1, F = v & 1;
	unsigned level = ctx->form == FOLD_NFKC_CF ? 3 :
			 ctx->form == FOLD_NFKC || (ctx->flags & FOLD_COMPAT) ?
			 2 : 1;
	uint32_t d, cp, k;
	unsigned lv;
	if (p == e || !*p)
		return -1;
	if (*p < 0x80) {
		k = *p++;
		if (F && k - 'A' < 26u)
			k += 32;
	} else {
		const struct fold_rec *r;
		uint32_t m;
		d = fs_dec(p, e);
		if (!d)
			return -1;
		cp = DEC_CP(d);
		p += DEC_LEN(d);
		lv = fold_lane(cp);
		r = &fold_recs[lv & L_RID];
		m = REC_DESC(r);
		if (C ? L_QUIET(lv) >= level : fs_inert(lv))
			k = cp;
		else if (F && (lv & L_SFOLD) && REC_AGE(r) <= ctx->age)
			k = (uint32_t)((int32_t)cp + M_SDELTA(m));
		else if (C && F && (lv & L_BB) && M_TYPE(m) == M_PAIR &&
			 M_CFOLD(m) && REC_AGE(r) <= ctx->age)
			k = (uint32_t)((int32_t)cp +
				       (int32_t)fold_cdelta[M_CFOLD(m)]);
		else if (!C && cp - SBASE < SCOUNT && ctx->age >= HANGUL_AGE)
			return (int32_t)(LBASE + (cp - SBASE) / NCOUNT);
		else
			return -1;
	}
	if (!C || p == e || *p < 0x80)
		return (int32_t)k;
	d = fs_dec(p, e);
	if (!d)
		return -1;
	lv = fold_lane(DEC_CP(d));
	return (lv & L_BB) || L_QUIET(lv) >= level ? (int32_t)k : -1;
}
