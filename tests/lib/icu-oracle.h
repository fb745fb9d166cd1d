/*
 * icu-oracle.h - ICU 72 as an oracle for every libfold form (C++ only:
 * ICU's UTF-8 normalization API is C++).  Shared by the lib-icu test and
 * the normalize fuzz target.
 *
 *   NFD, NFC, NFKD, NFKC, NFKC_CF: icu::Normalizer2::normalizeUTF8.
 *   FOLD_CASEFOLD: NFD, ucasemap_utf8FoldCase (U_FOLD_CASE_DEFAULT), NFD,
 *   repeated until stable (libfold's key is closed; one ICU pass is not
 *   always).  With FOLD_COMPAT the same on NFKD.
 */
#ifndef TESTS_LIB_ICU_ORACLE_H
#define TESTS_LIB_ICU_ORACLE_H

#include <string>

#include <unicode/normalizer2.h>
#include <unicode/ucasemap.h>

#include "fold.h"

class IcuOracle {
public:
	IcuOracle();
	~IcuOracle();
	/* The key of s under form (+ FOLD_COMPAT for FOLD_CASEFOLD) into
	 * out.  For caseless keys, rounds (if not null) gets the number of
	 * fold passes after which the result was seen not to change: 1 = s
	 * was already folded, 2 = one NFD-fold-NFD pass was closed, >= 3 =
	 * a single pass was not closed.  Returns false if ICU reported an
	 * error. */
	bool key(int form, unsigned flags, const std::string &s,
		 std::string &out, int *rounds = nullptr);
	bool normalize(const icu::Normalizer2 *n, const std::string &s,
		       std::string &out);
	bool fold(const std::string &s, std::string &out);
	bool upper(const std::string &s, std::string &out);
	bool lower(const std::string &s, std::string &out);

	const icu::Normalizer2 *nfd, *nfc, *nfkd, *nfkc, *nfkccf;

private:
	UCaseMap *csm;
	std::string t1, t2;
};

#endif
