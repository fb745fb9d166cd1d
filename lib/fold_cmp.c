/*
 * fold_cmp.c - fold_cmp() and fold_equal(): two key streams compared
 * piece by piece, so neither key is ever materialized.
 *
 * Fast paths: byte-equal names are equal at once; two pure-ASCII names
 * are compared word by word (their keys are the names, A-Z folded in the
 * folding forms); a common prefix (equal bytes, or in the folding forms
 * ASCII letters differing in case) that ends before an ASCII byte in both
 * names has a common key (an ASCII starter never reorders or combines
 * with what precedes it), so the streams start after it.  fold_equal
 * then looks at the first code point after it in each name: where that
 * decides the first code point of the key's decomposition in both
 * (fs_lead), different ones answer "unequal" at once, and equal ones
 * stream both keys whole, as equal names need; else the streams start
 * with small pieces, to stop early if the keys differ there.  fold_cmp
 * needs the order: where the names differ from the start of the streams
 * on and the first code points there decide those of the keys (fs_head),
 * different ones give it; else names that share bytes there stream
 * whole, others in small pieces.  Streams check well-formedness as they
 * go.  fold_equal validates lazily: a difference or an ill-formed
 * sequence already means "unequal".  fold_cmp must order an ill-formed
 * (opaque) name by its bytes, so it proves the rest of both names well
 * formed before trusting an early difference, and otherwise starts over
 * with validity settled up front.
 */
#include "fold_internal.h"
#include "fold_stream.h"

#include <string.h>

/* How a comparison must treat what the streams have not read: ORDER
 * (fold_cmp) proves it well formed before an early answer, EQUAL
 * (fold_equal) need not, DECIDED has nothing to prove (each stream's
 * validity was settled before it started). */
enum { ORDER, EQUAL, DECIDED };

/* Compare the keys of two streams, whose first pieces (xn, yn bytes) are
 * in their buffers.  Returns the order, or 2 if a stream met an
 * ill-formed sequence.  For ORDER an early answer stands only once the
 * input the streams did not reach is proved well formed (an opaque name
 * orders by its bytes); for EQUAL any difference, or any ill-formed
 * sequence, already means "not equal" (see cmp()).
 *
 * Small first pieces (FIRST_PIECE) stop early where names differ near
 * the start (the common case in a directory); later pieces grow, so
 * that long equal keys do not pay for many small fills. */
#define FIRST_PIECE 1
#define NEXT_PIECE 64

static int cmp_streams(struct fstream *x, unsigned xn, struct fstream *y,
		       unsigned yn, int mode)
{
	unsigned xi = 0, yi = 0;
	int d;
	for (;;) {
		unsigned m;
		if (x->bad || y->bad)
			return 2;
		if (!xn || !yn) {
			d = xn ? 1 : yn ? -1 : 0;
			break;
		}
		m = xn - xi < yn - yi ? xn - xi : yn - yi;
		d = memcmp(x->out + xi, y->out + yi, m);
		if (d) {
			d = d < 0 ? -1 : 1;
			break;
		}
		xi += m;
		yi += m;
		if (xi == xn) {
			xn = x->done ? 0 : fs_fill(x, NEXT_PIECE);
			xi = 0;
		}
		if (yi == yn) {
			yn = y->done ? 0 : fs_fill(y, NEXT_PIECE);
			yi = 0;
		}
	}
	if (mode != ORDER)
		return d;
	/* An early answer stands only if both names are well formed. */
	if (!fold_utf8_ok2(x->p, (size_t)(x->end - x->p), y->p,
			   (size_t)(y->end - y->p)))
		return 2;
	return d;
}

/* Does the word hold a byte >= 0x80 or a NUL? */
static inline int not_ascii8(uint64_t w)
{
	return fold_special8(w) != 0;
}

/* Is s[0..n) ASCII without NUL? */
static int all_ascii(const unsigned char *s, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if (not_ascii8(w))
			return 0;
	}
	for (; i < n; i++)
		if (!s[i] || s[i] >= 0x80)
			return 0;
	return 1;
}

/* Both names pure ASCII: every form's key is the name itself, with A-Z
 * folded in the folding forms, so compare them word by word.  Returns 0
 * (with *res set) if that applies, -2 if either name is not pure ASCII. */
static int cmp_ascii(const unsigned char *a, size_t an,
		     const unsigned char *b, size_t bn, int fold, int *res)
{
	size_t n = an < bn ? an : bn, i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t wa = fold_load8(a + i), wb = fold_load8(b + i);
		if (not_ascii8(wa | wb) || not_ascii8(wa) || not_ascii8(wb))
			return -2;
		if (fold) {
			wa = fold_lower8(wa);
			wb = fold_lower8(wb);
		}
		if (wa != wb) {
			/* first differing byte (fold_load8) */
			unsigned k = (unsigned)__builtin_ctzll(wa ^ wb) >> 3;
			unsigned ca = (unsigned)(wa >> (8 * k)) & 0xFF;
			unsigned cb = (unsigned)(wb >> (8 * k)) & 0xFF;
			if (!all_ascii(a + i + 8, an - i - 8) ||
			    !all_ascii(b + i + 8, bn - i - 8))
				return -2;
			*res = ca < cb ? -1 : 1;
			return 0;
		}
	}
	for (; i < n; i++) {
		unsigned ca = a[i], cb = b[i];
		if (!ca || !cb || ca >= 0x80 || cb >= 0x80)
			return -2;
		if (fold) {
			ca += ca - 'A' < 26u ? 32 : 0;
			cb += cb - 'A' < 26u ? 32 : 0;
		}
		if (ca != cb) {
			if (!all_ascii(a + i + 1, an - i - 1) ||
			    !all_ascii(b + i + 1, bn - i - 1))
				return -2;
			*res = ca < cb ? -1 : 1;
			return 0;
		}
	}
	if (!all_ascii(a + n, an - n) || !all_ascii(b + n, bn - n))
		return -2;
	*res = an < bn ? -1 : an > bn ? 1 : 0;
	return 0;
}

/*
 * mode EQUAL (fold_equal) validates lazily: the names are not byte-equal
 * once past the first test, so if either is ill formed (opaque, equal only
 * to itself) they are unequal, and if both are well formed they are equal
 * iff their keys are.  Either way a difference in the key streams, or an
 * ill-formed sequence met by one, answers "unequal" at once; only streams
 * that end equal need the part they did not read (the shared prefix)
 * proved well formed.  mode ORDER (fold_cmp) must know, for any
 * difference, whether both names are well formed, since an opaque name
 * orders by its bytes.
 */
static int cmp(const struct fold_ctx *ctx, const char *a, size_t an,
	       const char *b, size_t bn, int mode)
{
	const unsigned char *ua = (const unsigned char *)a;
	const unsigned char *ub = (const unsigned char *)b;
	struct fstream x, y;
	size_t k = 0, n = an < bn ? an : bn, j;
	unsigned xn, yn;
	int fold = ctx->form == FOLD_CASEFOLD || ctx->form == FOLD_NFKC_CF;
	int d;
	if (an == bn && (an == 0 || a == b || !memcmp(a, b, an)))
		return 0;
	if (FOLD_REFERENCE)
		goto slow;
	if (!cmp_ascii(ua, an, ub, bn, fold, &d))
		return d;
	if (ctx->charset == FOLD_CHARSET_UTF8) {
		/* the common prefix of the keys: equal bytes, or in a
		 * folding form ASCII letters that differ in case */
		while (k < n && (ua[k] == ub[k] ||
				 (fold && (ua[k] ^ ub[k]) == 32 &&
				  (ua[k] | 32u) - 'a' < 26u)))
			k++;
		/* back up to an ASCII byte (or the divergence, if both
		 * names continue with ASCII or end there) */
		j = k;
		if (!((k == an || ua[k] < 0x80) && (k == bn || ub[k] < 0x80)))
			while (j > 0 && ua[--j] >= 0x80)
				;
		if (mode == EQUAL) {
			/* known leads: different ones mean unequal keys
			 * (and an ill-formed name is unequal anyway); equal
			 * ones, most likely equal names (a hash table's
			 * lookup): both keys whole */
			int32_t lx = fs_lead(ctx, ua + j, ua + an);
			int32_t ly = fs_lead(ctx, ub + j, ub + bn);
			unsigned want = FIRST_PIECE;
			if (lx >= 0 && ly >= 0) {
				if (lx != ly)
					return 1;
				want = FS_OUTCAP;
			}
			xn = fs_first(&x, ctx, a + j, an - j, want, NULL);
			yn = fs_first(&y, ctx, b + j, bn - j, want, NULL);
			if (cmp_streams(&x, xn, &y, yn, EQUAL))
				return 1;
			/* equal keys: equal names unless the prefix is
			 * ill formed (then both are opaque and differ) */
			return j && !fold_utf8_ok(ua, j);
		}
		if (j && !fold_utf8_ok(ua, j)) {
			/* the shared prefix is ill formed: both are opaque */
			d = memcmp(a, b, n);
			return d ? (d < 0 ? -1 : 1) :
				   an < bn ? -1 : an > bn ? 1 : 0;
		}
		if (j == k) {
			/* the names differ from j on: where the first code
			 * points there decide those of both keys, and these
			 * differ, they order the keys (UTF-8 keeps the order
			 * of code points), once both names are proved well
			 * formed */
			int32_t hx = fs_head(ctx, ua + j, ua + an), hy;
			if (hx >= 0 &&
			    (hy = fs_head(ctx, ub + j, ub + bn)) >= 0 &&
			    hx != hy) {
				if (!fold_utf8_ok2(ua + j, an - j, ub + j,
						   bn - j))
					goto slow;
				return hx < hy ? -1 : 1;
			}
		}
		{
			/* names that still share bytes after j (they
			 * differ in a non-ASCII code point, or next to one:
			 * a case or a normalization apart, as often as not)
			 * are likely equal: both keys whole; else small
			 * pieces first */
			unsigned want = j < k ? FS_OUTCAP : FIRST_PIECE;
			xn = fs_first(&x, ctx, a + j, an - j, want, NULL);
			yn = fs_first(&y, ctx, b + j, bn - j, want, NULL);
		}
		d = cmp_streams(&x, xn, &y, yn, ORDER);
		if (d != 2)
			return d;
	} else if (mode == EQUAL) {
		/* ascii: a NUL makes a name opaque; keys compare bytewise */
		xn = fs_first(&x, ctx, a, an, FIRST_PIECE, NULL);
		yn = fs_first(&y, ctx, b, bn, FIRST_PIECE, NULL);
		return cmp_streams(&x, xn, &y, yn, EQUAL) != 0;
	}
slow:
	/* slow path: validity decided up front, whole names */
	fs_init(&x, ctx, a, an, fold_check(ctx, a, an) < 0);
	fs_init(&y, ctx, b, bn, fold_check(ctx, b, bn) < 0);
	xn = fs_fill(&x, FIRST_PIECE);
	yn = fs_fill(&y, FIRST_PIECE);
	return cmp_streams(&x, xn, &y, yn, DECIDED);
}

int fold_cmp(const struct fold_ctx *ctx, const char *a, size_t an,
	     const char *b, size_t bn)
{
	if (!fold_ctx_ok(ctx) || (!a && an) || (!b && bn))
		return FOLD_EINVAL;
	return cmp(ctx, a ? a : "", an, b ? b : "", bn, ORDER);
}

int fold_equal(const struct fold_ctx *ctx, const char *a, size_t an,
	       const char *b, size_t bn)
{
	if (!fold_ctx_ok(ctx) || (!a && an) || (!b && bn))
		return 0;
	return cmp(ctx, a ? a : "", an, b ? b : "", bn, EQUAL) == 0;
}

int fold_cmpz(const struct fold_ctx *ctx, const char *a, const char *b)
{
	if (!a || !b)
		return FOLD_EINVAL;
	return fold_cmp(ctx, a, strlen(a), b, strlen(b));
}

int fold_equalz(const struct fold_ctx *ctx, const char *a, const char *b)
{
	if (!a || !b)
		return 0;
	return fold_equal(ctx, a, strlen(a), b, strlen(b));
}
