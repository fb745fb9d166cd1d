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

long fold_utf8_check(const unsigned char *s, size_t n)
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
