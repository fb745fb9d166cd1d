/*
 * icu-oracle.cpp - libfold's forms computed by ICU (see icu-oracle.h).
 */
#include "icu-oracle.h"

#include <cstdio>
#include <cstdlib>

#include <unicode/bytestream.h>
#include <unicode/stringpiece.h>

IcuOracle::IcuOracle()
{
	UErrorCode e = U_ZERO_ERROR;

	nfd = icu::Normalizer2::getNFDInstance(e);
	nfc = icu::Normalizer2::getNFCInstance(e);
	nfkd = icu::Normalizer2::getNFKDInstance(e);
	nfkc = icu::Normalizer2::getNFKCInstance(e);
	nfkccf = icu::Normalizer2::getNFKCCasefoldInstance(e);
	csm = ucasemap_open("", U_FOLD_CASE_DEFAULT, &e);
	if (U_FAILURE(e)) {
		std::fprintf(stderr, "ICU initialisation failed: %s\n",
			     u_errorName(e));
		std::exit(2);
	}
}

IcuOracle::~IcuOracle()
{
	ucasemap_close(csm);
}

bool IcuOracle::normalize(const icu::Normalizer2 *n, const std::string &s,
			  std::string &out)
{
	UErrorCode e = U_ZERO_ERROR;

	out.clear();
	icu::StringByteSink<std::string> sink(&out);
	n->normalizeUTF8(0, icu::StringPiece(s.data(), (int32_t)s.size()),
			 sink, nullptr, e);
	return U_SUCCESS(e);
}

typedef int32_t (*CaseFn)(const UCaseMap *, char *, int32_t, const char *,
			  int32_t, UErrorCode *);

static bool casemap(CaseFn fn, const UCaseMap *csm, const std::string &s,
		    std::string &out)
{
	UErrorCode e = U_ZERO_ERROR;
	int32_t n;

	out.resize(s.size() * 3 + 16);
	n = fn(csm, &out[0], (int32_t)out.size(), s.data(), (int32_t)s.size(),
	       &e);
	if (e == U_BUFFER_OVERFLOW_ERROR) {
		e = U_ZERO_ERROR;
		out.resize((size_t)n);
		n = fn(csm, &out[0], (int32_t)out.size(), s.data(),
		       (int32_t)s.size(), &e);
	}
	if (U_FAILURE(e))
		return false;
	out.resize((size_t)n);
	return true;
}

bool IcuOracle::fold(const std::string &s, std::string &out)
{
	return casemap(ucasemap_utf8FoldCase, csm, s, out);
}

bool IcuOracle::upper(const std::string &s, std::string &out)
{
	return casemap(ucasemap_utf8ToUpper, csm, s, out);
}

bool IcuOracle::lower(const std::string &s, std::string &out)
{
	return casemap(ucasemap_utf8ToLower, csm, s, out);
}

bool IcuOracle::key(int form, unsigned flags, const std::string &s,
		    std::string &out, int *rounds)
{
	const icu::Normalizer2 *base;

	if (rounds)
		*rounds = 0;
	switch (form) {
	case FOLD_NFD: return normalize(nfd, s, out);
	case FOLD_NFC: return normalize(nfc, s, out);
	case FOLD_NFKD: return normalize(nfkd, s, out);
	case FOLD_NFKC: return normalize(nfkc, s, out);
	case FOLD_NFKC_CF: return normalize(nfkccf, s, out);
	case FOLD_CASEFOLD: break;
	default: return false;
	}
	base = (flags & FOLD_COMPAT) ? nfkd : nfd;
	if (!normalize(base, s, out))
		return false;
	for (int i = 1; i <= 10; i++) {
		if (!fold(out, t1) || !normalize(base, t1, t2))
			return false;
		if (t2 == out) {
			if (rounds)
				*rounds = i;
			return true;
		}
		out.swap(t2);
	}
	return false;
}
