/*
 * fold_utf8.c - well-formedness of names: fold_validate() and the check
 * every other entry point runs before trusting its input.
 *
 * Well formed = shortest-form UTF-8 of U+0001..U+10FFFF minus surrogates
 * (or, for the ascii charset, any bytes but NUL).  The offset reported for
 * an ill-formed name is that of the first byte of the first ill-formed
 * sequence: a stray continuation byte or impossible lead byte itself, else
 * the lead byte of the sequence that is truncated, has a bad continuation
 * byte, is overlong, is a surrogate or exceeds U+10FFFF.
 */
#include "fold_internal.h"

#include <string.h>

/* Does w (fold_load8) hold four well-formed two-byte sequences: leads
 * 110xxxxx but C0 and C1 (bits 1-4 not all 0), each followed by a
 * continuation byte? */
static inline int two_byte4(uint64_t w)
{
	return (w & 0xC0E0C0E0C0E0C0E0ull) == 0x80C080C080C080C0ull &&
	       (((w & 0x001E001E001E001Eull) + 0x00FF00FF00FF00FFull) &
		0x0100010001000100ull) == 0x0100010001000100ull;
}

/* Does w (fold_load8) start with two well-formed three-byte sequences
 * whose lead bytes are E1..EC or EE..EF (no limits on the second byte)? */
static inline int three_byte2(uint64_t w)
{
	return (w & 0xC0C0F0C0C0F0ull) == 0x8080E08080E0ull &&
	       (0xDFFEu >> (w & 0xF) & 1) && (0xDFFEu >> (w >> 24 & 0xF) & 1);
}

/*
 * Well-formedness as a yes/no answer, by a shift-based automaton: each
 * byte's class selects a row of 64 bits that holds, for every state, the
 * next one (as its bit offset in the row, a multiple of 6), so a byte
 * costs one shift on the chain of dependent instructions and no branch:
 * a name that changes script between ASCII, two-, three- and four-byte
 * sequences makes no mispredictions.  fold_utf8_check() runs the
 * branchy scan below only when the automaton rejects the name, to find
 * the offset.  States: ACC a sequence may start; N1..N3 that many
 * continuation bytes 80..BF are due; SE0, SED, SF0, SF4 after the lead
 * bytes with a narrower second byte (E0: A0..BF, ED: 80..9F, F0: 90..BF,
 * F4: 80..8F); ERR absorbs.
 */
enum { ACC = 0, N1 = 6, N2 = 12, N3 = 18, SE0 = 24, SED = 30, SF0 = 36,
       SF4 = 42, ERR = 48 };

#define ROW(acc, n1, n2, n3, e0, ed, f0, f4)                                 \
	((uint64_t)(acc) | (uint64_t)(n1) << N1 | (uint64_t)(n2) << N2 |     \
	 (uint64_t)(n3) << N3 | (uint64_t)(e0) << SE0 |                       \
	 (uint64_t)(ed) << SED | (uint64_t)(f0) << SF0 |                      \
	 (uint64_t)(f4) << SF4 | (uint64_t)ERR << ERR)

/* The byte classes, and their rows (next state from ACC, N1, N2, N3, SE0,
 * SED, SF0, SF4). */
enum { B_BAD, B_ASCII, B_C80, B_C90, B_CA0, B_L2, B_E0, B_L3, B_ED, B_F0,
       B_L4, B_F4 };

static const uint64_t u8_row[] = {
	[B_BAD] = ROW(ERR, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_ASCII] = ROW(ACC, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_C80] = ROW(ERR, ACC, N1, N2, ERR, N1, ERR, N2),
	[B_C90] = ROW(ERR, ACC, N1, N2, ERR, N1, N2, ERR),
	[B_CA0] = ROW(ERR, ACC, N1, N2, N1, ERR, N2, ERR),
	[B_L2] = ROW(N1, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_E0] = ROW(SE0, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_L3] = ROW(N2, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_ED] = ROW(SED, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_F0] = ROW(SF0, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_L4] = ROW(N3, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
	[B_F4] = ROW(SF4, ERR, ERR, ERR, ERR, ERR, ERR, ERR),
};

/* Class of each byte: NUL, C0, C1 and F5..FF are never well formed. */
#define A B_ASCII
#define X B_BAD
#define C8 B_C80
#define C9 B_C90
#define CA B_CA0
#define L2 B_L2
#define L3 B_L3
#define L4 B_L4
static const uint8_t u8_class[256] = {
	X,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 00 */
	A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 10 */
	A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 20 */
	A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 30 */
	A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 40 */
	A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 50 */
	A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 60 */
	A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A,  A, /* 70 */
	C8, C8, C8, C8, C8, C8, C8, C8, C8, C8, C8, C8, C8, C8, C8, C8, /* 80 */
	C9, C9, C9, C9, C9, C9, C9, C9, C9, C9, C9, C9, C9, C9, C9, C9, /* 90 */
	CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, /* A0 */
	CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, CA, /* B0 */
	X,  X,  L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, /* C0 */
	L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, /* D0 */
	B_E0, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, B_ED, L3, L3, /* E0 */
	B_F0, L4, L4, L4, B_F4, X, X, X, X, X, X, X, X, X, X, X, /* F0 */
};
#undef A
#undef X
#undef C8
#undef C9
#undef CA
#undef L2
#undef L3
#undef L4

/* The automaton's step: the next state from st's low 6 bits (the shift
 * count; the bits above them are left-overs of the row, ignored). */
static inline __attribute__((always_inline)) uint64_t u8_step(uint64_t st,
							      unsigned c)
{
	return u8_row[u8_class[c]] >> (st & 63);
}

int fold_utf8_ok2(const unsigned char *a, size_t an, const unsigned char *b,
		  size_t bn)
{
	uint64_t sa = ACC, sb = ACC;
	size_t i = 0, n = an < bn ? an : bn;
	/* two independent chains, interleaved */
	for (; i < n; i++) {
		sa = u8_step(sa, a[i]);
		sb = u8_step(sb, b[i]);
	}
	for (; i < an; i++)
		sa = u8_step(sa, a[i]);
	for (; i < bn; i++)
		sb = u8_step(sb, b[i]);
	return ((sa | sb) & 63) == ACC;
}

static long check_slow(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		if (c < 0x80) {
			/* ASCII: eight at a time, up to the first byte that
			 * is NUL or >= 0x80 (the first flagged byte is
			 * exact: a false flag needs a borrow from a real NUL
			 * below it); the last bytes from the word that ends
			 * with them (zeros shifted in above them, masked) */
			if (!FOLD_REFERENCE && n >= 8) {
				uint64_t m;
				if (i + 8 <= n) {
					m = fold_special8(fold_load8(s + i));
				} else {
					unsigned k = (unsigned)(n - i);
					m = fold_special8(fold_load8(s + n - 8) >>
							  (8 * (8 - k))) &
					    ((1ull << (8 * k)) - 1);
					if (!m)
						return -1;
				}
				if (!m) {
					i += 8;
					continue;
				}
				i += (size_t)__builtin_ctzll(m) >> 3;
				if (!s[i])
					return (long)i;
				continue;
			}
			if (c == 0)
				return (long)i;
			i++;
		} else if (c - 0xC2u < 0x1Eu) {
			/* a run of two-byte sequences (Latin, Greek,
			 * Cyrillic...): four at a time where a word holds
			 * them, else in a loop of its own */
			if (!FOLD_REFERENCE && i + 8 <= n &&
			    two_byte4(fold_load8(s + i))) {
				i += 8;
				continue;
			}
			do {
				if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
					return (long)i;
				i += 2;
			} while (i < n && s[i] - 0xC2u < 0x1Eu);
		} else if (c - 0xE1u < 0x0Fu && c != 0xED) {
			/* a run of three-byte sequences without the E0 and
			 * ED lead bytes' limits (CJK, kana, Hangul...): two
			 * at a time where a word holds them */
			if (!FOLD_REFERENCE && i + 8 <= n &&
			    three_byte2(fold_load8(s + i))) {
				i += 6;
				continue;
			}
			do {
				if (i + 2 >= n ||
				    ((s[i + 1] ^ 0x80u) | (s[i + 2] ^ 0x80u)) >=
					    0x40u)
					return (long)i;
				i += 3;
			} while (i < n && (c = s[i]) - 0xE1u < 0x0Fu &&
				 c != 0xED);
		} else if (c - 0xE0u < 0x10u) {
			unsigned lo = c == 0xE0 ? 0xA0 : 0x80;
			unsigned hi = c == 0xED ? 0x9F : 0xBF;
			if (i + 2 >= n || s[i + 1] < lo || s[i + 1] > hi ||
			    (s[i + 2] & 0xC0) != 0x80)
				return (long)i;
			i += 3;
		} else if (c - 0xF0u < 5u) {
			unsigned lo = c == 0xF0 ? 0x90 : 0x80;
			unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
			if (i + 3 >= n || s[i + 1] < lo || s[i + 1] > hi ||
			    (s[i + 2] & 0xC0) != 0x80 ||
			    (s[i + 3] & 0xC0) != 0x80)
				return (long)i;
			i += 4;
		} else {
			return (long)i; /* continuation, C0/C1, F5..FF */
		}
	}
	return -1;
}

int fold_utf8_ok(const unsigned char *s, size_t n)
{
	return fold_utf8_ok2(s, n, NULL, 0);
}

long fold_utf8_check(const unsigned char *s, size_t n)
{
	if (!FOLD_REFERENCE && fold_utf8_ok(s, n))
		return -1;
	return check_slow(s, n);
}

long fold_check(const struct fold_ctx *ctx, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	if (ctx->charset == FOLD_CHARSET_ASCII) {
		const void *z = memchr(u, 0, n);
		return z ? (long)((const unsigned char *)z - u) : -1;
	}
	return fold_utf8_check(u, n);
}

int fold_validate(const struct fold_ctx *ctx, const char *s, size_t n,
		  size_t *bad_offset)
{
	long bad;
	if (!fold_ctx_ok(ctx) || (!s && n))
		return FOLD_EINVAL;
	bad = fold_check(ctx, s ? s : "", n);
	if (bad < 0)
		return 0;
	if (bad_offset)
		*bad_offset = (size_t)bad;
	return FOLD_EILSEQ;
}

int fold_validatez(const struct fold_ctx *ctx, const char *s,
		   size_t *bad_offset)
{
	if (!s)
		return FOLD_EINVAL;
	return fold_validate(ctx, s, strlen(s), bad_offset);
}
