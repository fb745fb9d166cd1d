/*
 * fuzz-normalize.cpp - libFuzzer target for fold_normalize and fold_key.
 *
 * Input: [ctx selector (fuzz-ctx.h)][name bytes].  Invariants:
 *  - ill-formed: fold_normalize refuses with FOLD_EILSEQ; fold_key gives
 *    the raw bytes (FOLD_EILSEQ when strict);
 *  - well-formed: cap-0 sizing, the output fits exactly, fold_key ==
 *    fold_normalize, the output is well formed, and (runs of at most 30
 *    non-starters) the key is closed and equivalent to the input;
 *  - newest version, UTF-8: the output equals ICU's (icu-oracle.h) for
 *    every form ICU has: NFD, NFC, NFKD, NFKC, NFKC_CF, canonical and
 *    compatibility caseless (FOLD_IGNORABLES only where implied).
 */
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz-ctx.h"
#include "icu-oracle.h"

static void fail(const char *why, const char *s, size_t n,
		 const std::string &a, const std::string &b)
{
	fprintf(stderr, "%s\n", why);
	fuzz_hex("input", s, n);
	fuzz_hex("libfold", a.data(), a.size());
	fuzz_hex("expected", b.data(), b.size());
	abort();
}

static std::string run(const struct fold_ctx *c, bool key, const char *s,
		       size_t n, ssize_t *ret)
{
	ssize_t r = key ? fold_key(c, s, n, nullptr, 0)
			: fold_normalize(c, s, n, nullptr, 0);
	std::string out;

	*ret = r;
	if (r < 0)
		return out;
	out.resize((size_t)r + 1);
	ssize_t r2 = key ? fold_key(c, s, n, &out[0], (size_t)r)
			 : fold_normalize(c, s, n, &out[0], (size_t)r);
	if (r2 != r)
		fail("length changed between sizing and writing", s, n, out,
		     out);
	out.resize((size_t)r);
	return out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static IcuOracle *icu = new IcuOracle();
	struct fold_ctx c;
	const char *s = (const char *)data + 1;
	size_t n;
	ssize_t rn, rk;

	if (size < 1 || fuzz_ctx(data[0], size, &c))
		return 0;
	n = size - 1;
	std::string raw(s, n);
	std::string norm = run(&c, false, s, n, &rn);
	std::string key = run(&c, true, s, n, &rk);
	bool strict = c.flags & FOLD_STRICT;

	if (fold_validate(&c, s, n, nullptr) != 0) {
		if (rn != FOLD_EILSEQ)
			fail("fold_normalize accepted an ill-formed name", s, n,
			     norm, raw);
		if (strict ? rk != FOLD_EILSEQ : key != raw)
			fail("fold_key of an ill-formed name is not the raw "
			     "bytes / EILSEQ",
			     s, n, key, raw);
		/* "writes nothing" */
		std::string guard(n + 64, '\xA5'), g2 = guard;
		fold_normalize(&c, s, n, &g2[0], g2.size());
		if (g2 != guard)
			fail("fold_normalize wrote to the buffer before EILSEQ",
			     s, n, g2, guard);
		if (strict) {
			fold_key(&c, s, n, &g2[0], g2.size());
			if (g2 != guard)
				fail("strict fold_key wrote to the buffer before "
				     "EILSEQ",
				     s, n, g2, guard);
		}
		return 0;
	}
	if (rn < 0 || rk < 0 || key != norm)
		fail("fold_key != fold_normalize on a well-formed name", s, n,
		     key, norm);
	if (fold_validate(&c, key.data(), key.size(), nullptr) != 0)
		fail("output is ill formed", s, n, key, key);
	if ((c.charset == FOLD_CHARSET_UTF8 && fuzz_max_run(&c, s, n) > 30) ||
	    !fuzz_closed(&c))
		return 0;
	ssize_t r2;
	std::string key2 = run(&c, true, key.data(), key.size(), &r2);
	if (key2 != key)
		fail("key not closed: key(key(x)) != key(x)", s, n, key2, key);
	if (fold_equal(&c, s, n, key.data(), key.size()) != 1)
		fail("name not equivalent to its key", s, n, key, key);

	/* ICU: Unicode 15.0 = libfold's newest ("utf8", selector 0) */
	if (c.charset != FOLD_CHARSET_UTF8 || (data[0] >> 6) != 0)
		return 0;
	unsigned extra = c.flags & ~FOLD_STRICT;
	if (c.form == FOLD_CASEFOLD ? (extra & ~FOLD_COMPAT) != 0
	    : c.form == FOLD_NFKC_CF ? (extra & ~FOLD_IGNORABLES) != 0
				     : extra != 0)
		return 0;
	std::string want;
	if (!icu->key(c.form, c.flags, raw, want))
		return 0; /* ICU error or no fixpoint: nothing to compare */
	if (key != want)
		fail("differs from ICU", s, n, key, want);
	return 0;
}
