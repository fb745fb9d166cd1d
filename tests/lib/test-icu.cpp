/*
 * test-icu.cpp - lib-icu: libfold against ICU 72 (Unicode 15.0) and
 * utf8proc 2.8.
 *
 *  1. every code point (as a one-code-point name) under NFD, NFC, NFKD,
 *     NFKC, NFKC_CF, canonical caseless and compatibility caseless: fold_key
 *     == the ICU key (icu-oracle.h); code points where one ICU
 *     NFD-fold-NFD pass is not closed are reported;
 *  2. random names (randname.h, fixed seed) in the same seven forms, and
 *     pairs (name, variant: NFC/NFD/upper/lower/one change/unrelated):
 *     fold_cmp sign == memcmp of ICU keys, fold_equal and hash equality
 *     <=> ICU keys equal;
 *  3. utf8proc's NFKC_Casefold compared with ours (reported and counted,
 *     not a failure: utf8proc is a second opinion, ICU is the oracle).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unicode/uchar.h>
#include <unicode/utf8.h>
#include <utf8proc.h>

#include "check.h"
#include "fold.h"
#include "icu-oracle.h"
#include "randname.h"

namespace {

struct Form {
	const char *name;
	int form;
	unsigned flags;
	struct fold_ctx ctx;
};

Form forms[] = {
	{"NFD", FOLD_NFD, 0, {}},
	{"NFC", FOLD_NFC, 0, {}},
	{"NFKD", FOLD_NFKD, 0, {}},
	{"NFKC", FOLD_NFKC, 0, {}},
	{"NFKC_CF", FOLD_NFKC_CF, 0, {}},
	{"CASEFOLD", FOLD_CASEFOLD, 0, {}},
	{"CASEFOLD+COMPAT", FOLD_CASEFOLD, FOLD_COMPAT, {}},
};
const int NFORMS = sizeof forms / sizeof *forms;

const struct fold_seed seed = {0x5eed5eed5eed5eedull, 0x1234567890ull};

std::string ours(const struct fold_ctx *c, const std::string &s)
{
	static char buf[1 << 16];
	ssize_t r = fold_key(c, s.data(), s.size(), buf, sizeof buf);

	if (r < 0 || (size_t)r > sizeof buf)
		return std::string("<error ") + std::to_string(r) + ">";
	return std::string(buf, (size_t)r);
}

const char *hex(const std::string &s)
{
	return ck_hex(s.data(), s.size());
}

int sign(int v)
{
	return (v > 0) - (v < 0);
}

int keycmp(const std::string &a, const std::string &b)
{
	size_t n = a.size() < b.size() ? a.size() : b.size();
	int m = std::memcmp(a.data(), b.data(), n);

	if (m)
		return sign(m);
	return (a.size() > b.size()) - (a.size() < b.size());
}

/* Longest run of non-starters in the NFKD form (stream-safe check). */
int max_nonstarters(IcuOracle &icu, const std::string &s)
{
	std::string d;
	int32_t i = 0, n;
	int run = 0, best = 0;

	icu.normalize(icu.nfkd, s, d);
	n = (int32_t)d.size();
	while (i < n) {
		UChar32 c;
		U8_NEXT(d.data(), i, n, c);
		if (u_getCombiningClass(c)) {
			if (++run > best)
				best = run;
		} else {
			run = 0;
		}
	}
	return best;
}

std::string nfkc_cf_utf8proc(const std::string &s, bool *ok)
{
	utf8proc_uint8_t *dst = nullptr;
	utf8proc_ssize_t r = utf8proc_map(
		(const utf8proc_uint8_t *)s.data(), (utf8proc_ssize_t)s.size(),
		&dst,
		(utf8proc_option_t)(UTF8PROC_STABLE | UTF8PROC_COMPOSE |
				    UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
				    UTF8PROC_IGNORE));
	std::string out;

	*ok = r >= 0;
	if (r >= 0)
		out.assign((const char *)dst, (size_t)r);
	std::free(dst);
	return out;
}

/* ICU newer than libfold's tables (Debian 13: ICU 76, Unicode 16.0): the
 * code points it knows and libfold's newest version does not are left
 * out of the comparison (under the stability policies nothing assigned
 * before changes). */
bool icu_newer = false;

bool beyond_ours(uint32_t cp)
{
	UVersionInfo a;

	if (!icu_newer || fold_cp_age(cp))
		return false;
	u_charAge((UChar32)cp, a);
	return a[0] || a[1] || a[2] || a[3];
}

bool has_beyond(const std::string &s)
{
	uint32_t cps[256];
	size_t n = u8_decode(s.data(), s.size(), cps, 256);

	for (size_t i = 0; i < n; i++)
		if (beyond_ours(cps[i]))
			return true;
	return false;
}

/* Where most mappings live; --cp-stride never thins these out. */
bool dense_region(uint32_t cp)
{
	return cp < 0x3400 || (cp >= 0xA640 && cp < 0xAC00) ||
	       (cp >= 0xF900 && cp < 0x10000) ||
	       (cp >= 0x10400 && cp < 0x10D00) ||
	       (cp >= 0x1D000 && cp < 0x1F300);
}

void every_cp(IcuOracle &icu, unsigned stride)
{
	unsigned long not_closed[2] = {0, 0}, newer = 0;
	std::string list[2];
	std::string want;

	ck_group("icu-every-code-point");
	for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
		char b[4];
		std::string s;

		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		if (stride > 1 && cp % stride && !dense_region(cp))
			continue;
		if (beyond_ours(cp)) {
			newer++;
			continue;
		}
		s.assign(b, u8_put(cp, b));
		for (int f = 0; f < NFORMS; f++) {
			int rounds;

			if (!ck(icu.key(forms[f].form, forms[f].flags, s, want,
					&rounds),
				"ICU failed on U+%04X %s", cp, forms[f].name))
				continue;
			std::string got = ours(&forms[f].ctx, s);
			ck(got == want, "%s U+%04X: ours %s, ICU %s",
			   forms[f].name, cp, hex(got), hex(want));
			if (forms[f].form == FOLD_CASEFOLD && rounds >= 3) {
				int k = forms[f].flags ? 1 : 0;
				if (not_closed[k]++ < 12) {
					char t[16];
					std::snprintf(t, sizeof t, " U+%04X", cp);
					list[k] += t;
				}
			}
		}
	}
	if (icu_newer)
		ck_info("%lu code points assigned after libfold's newest version "
			"left out",
			newer);
	ck_info("one ICU NFD-fold-NFD pass is not closed for %lu code points "
		"(e.g.%s)",
		not_closed[0], list[0].c_str());
	ck_info("one ICU NFKD-fold-NFKD pass is not closed for %lu code points "
		"(e.g.%s)",
		not_closed[1], list[1].c_str());
}

/* A variant of s that is often, but not always, equivalent. */
std::string variant(IcuOracle &icu, struct rn *r, const std::string &s,
		    const std::string &unrelated)
{
	std::string v;
	uint32_t cps[64];

	switch (rn_below(r, 7)) {
	case 0: icu.normalize(icu.nfc, s, v); return v;
	case 1: icu.normalize(icu.nfd, s, v); return v;
	case 2: icu.upper(s, v); return v;
	case 3: icu.lower(s, v); return v;
	case 4: icu.normalize(icu.nfkd, s, v); return v;
	case 5: { /* one code point changed */
		size_t n = u8_decode(s.data(), s.size(), cps, 64);
		char b[256];
		uint32_t extra;
		if (!n)
			return s;
		rn_cps(r, RN_TRICKY, &extra, 1);
		cps[rn_below(r, (uint32_t)n)] = extra;
		return std::string(b, u8_encode(cps, n, b));
	}
	default: return unrelated;
	}
}

void random_names(IcuOracle &icu, unsigned long count)
{
	struct rn r;
	unsigned long skipped = 0, tested = 0, newer = 0, per_kind[RN_NKINDS] = {};
	unsigned long equal_pairs[NFORMS] = {}, not_closed[NFORMS] = {};
	std::string prev = "a", want_s, want_v;

	rn_seed(&r, 20240611);
	ck_group("icu-random");
	for (unsigned long i = 0; i < count; i++) {
		uint32_t cps[24];
		char b[128];
		int kind = (int)(i % RN_NKINDS);
		size_t n = rn_cps(&r, kind, cps, 1 + rn_below(&r, 24));
		std::string s(b, u8_encode(cps, n, b));
		std::string v = variant(icu, &r, s, prev);

		prev = s;
		if (has_beyond(s) || has_beyond(v)) {
			newer++;
			continue;
		}
		/* ICU does not cut long runs (UAX #15 D4); libfold does. */
		if (max_nonstarters(icu, s) > 30 ||
		    max_nonstarters(icu, v) > 30) {
			skipped++;
			continue;
		}
		tested++;
		per_kind[kind]++;
		for (int f = 0; f < NFORMS; f++) {
			const struct fold_ctx *c = &forms[f].ctx;

			int rounds = 0;
			if (!icu.key(forms[f].form, forms[f].flags, s, want_s,
				     &rounds) ||
			    !icu.key(forms[f].form, forms[f].flags, v, want_v)) {
				ck(0, "ICU failed on %s or %s", hex(s), hex(v));
				continue;
			}
			not_closed[f] += rounds >= 3;
			std::string got = ours(c, s);
			ck(got == want_s, "%s key(%s): ours %s, ICU %s",
			   forms[f].name, hex(s), hex(got), hex(want_s));
			int m = keycmp(want_s, want_v);
			int c1 = fold_cmp(c, s.data(), s.size(), v.data(),
					  v.size());
			int c2 = fold_cmp(c, v.data(), v.size(), s.data(),
					  s.size());
			int e = fold_equal(c, s.data(), s.size(), v.data(),
					   v.size());
			bool he = fold_hash(c, &seed, s.data(), s.size()) ==
				  fold_hash(c, &seed, v.data(), v.size());

			equal_pairs[f] += m == 0;
			ck(sign(c1) == m && sign(c2) == -m,
			   "%s cmp(%s, %s) = %d/%d, ICU keys compare %d",
			   forms[f].name, hex(s), hex(v), c1, c2, m);
			ck(e == (m == 0), "%s equal(%s, %s) = %d, ICU keys %s",
			   forms[f].name, hex(s), hex(v), e,
			   m ? "differ" : "equal");
			ck(he == (m == 0), "%s hash(%s) %s hash(%s), ICU keys %s",
			   forms[f].name, hex(s), he ? "==" : "!=", hex(v),
			   m ? "differ" : "equal");
		}
	}
	std::string kinds;
	for (int k = 0; k < RN_NKINDS; k++)
		kinds += std::string(" ") + rn_kind_name(k) + "=" +
			 std::to_string(per_kind[k]);
	ck_info("random names: %lu tested (%s), %lu skipped for runs of more "
		"than 30 non-starters",
		tested, kinds.c_str(), skipped);
	if (icu_newer)
		ck_info("random names: %lu left out for code points assigned after "
			"libfold's newest version",
			newer);
	for (int f = 0; f < NFORMS; f++)
		ck_info("  %s: %lu of the pairs equivalent%s", forms[f].name,
			equal_pairs[f],
			forms[f].form == FOLD_CASEFOLD
				? (", one ICU pass not closed for " +
				   std::to_string(not_closed[f]) + " names")
					  .c_str()
				: "");
	ck(tested > (count - newer) * 9 / 10, "too many names skipped (%lu of %lu)",
	   skipped, count - newer);
	ck(newer < count / 4, "too many names left out as newer than libfold (%lu of %lu)",
	   newer, count);
}

void with_utf8proc(IcuOracle &icu, unsigned long count, unsigned stride)
{
	unsigned long cps = 0, diff = 0, diff_icu = 0, rnd = 0, rdiff = 0;
	std::string shown, icukey;
	const struct fold_ctx *c = &forms[4].ctx;
	struct rn r;

	ck_group("utf8proc");
	ck_info("utf8proc %s (Unicode %s)", utf8proc_version(),
		utf8proc_unicode_version());
	for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
		char b[4];
		bool ok;

		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		if (stride > 1 && cp % stride && !dense_region(cp))
			continue;
		std::string s(b, u8_put(cp, b));
		std::string theirs = nfkc_cf_utf8proc(s, &ok);
		cps++;
		if (ok && theirs == ours(c, s))
			continue;
		diff++;
		icu.key(FOLD_NFKC_CF, 0, s, icukey);
		if (ok && theirs != icukey)
			diff_icu++;
		if (diff <= 10) {
			char t[200];
			std::snprintf(t, sizeof t,
				      "\n    U+%04X: ours %s, utf8proc %s", cp,
				      hex(ours(c, s)), ok ? hex(theirs) : "error");
			shown += t;
		}
	}
	rn_seed(&r, 777);
	for (unsigned long i = 0; i < count; i++) {
		uint32_t v[24];
		char b[128];
		bool ok;
		size_t n = rn_cps(&r, -1, v, 1 + rn_below(&r, 24));
		std::string s(b, u8_encode(v, n, b));

		if (max_nonstarters(icu, s) > 30)
			continue;
		rnd++;
		if (nfkc_cf_utf8proc(s, &ok) != ours(c, s) || !ok)
			rdiff++;
	}
	ck_info("NFKC_Casefold vs utf8proc: %lu of %lu code points differ (%lu "
		"of those also differ between utf8proc and ICU)%s",
		diff, cps, diff_icu, shown.c_str());
	ck_info("NFKC_Casefold vs utf8proc: %lu of %lu random names differ",
		rdiff, rnd);
}

void usage(FILE *f)
{
	std::fprintf(f,
"Usage: test-lib-icu [--random N] [--cp-stride N] [--skip-every-cp]\n"
"                    [--verbose N]\n"
"\n"
"Differential test of libfold against ICU %s and utf8proc: every code\n"
"point under NFD, NFC, NFKD, NFKC, NFKC_CF and the canonical and\n"
"compatibility caseless keys; N random names (default 200000) and pairs\n"
"of names for fold_key, fold_cmp, fold_equal and fold_hash; utf8proc's\n"
"NFKC_Casefold as a reported second opinion.  Ends with \"N passed, N\n"
"failed\"; exit status 1 on any failure, 2 on a setup error.\n"
"--cp-stride N (sanitizer builds) checks only every Nth code point outside\n"
"the blocks where mappings concentrate (those are always checked in full).\n",
		     U_ICU_VERSION);
}

} // namespace

int main(int argc, char **argv)
{
	unsigned long count = 200000;
	unsigned stride = 1;
	bool every = true;

	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!std::strcmp(argv[i], "--random") && i + 1 < argc) {
			count = std::strtoul(argv[++i], nullptr, 10);
		} else if (!std::strcmp(argv[i], "--cp-stride") && i + 1 < argc) {
			stride = (unsigned)std::strtoul(argv[++i], nullptr, 10);
		} else if (!std::strcmp(argv[i], "--skip-every-cp")) {
			every = false;
		} else if (!std::strcmp(argv[i], "--verbose") && i + 1 < argc) {
			ck_verbose = std::strtoul(argv[++i], nullptr, 10);
		} else {
			std::fprintf(stderr, "test-lib-icu: bad argument '%s'\n",
				     argv[i]);
			usage(stderr);
			return 2;
		}
	}
	IcuOracle icu;
	const char *const *versions;
	size_t nv = fold_unicode_versions(&versions);
	UVersionInfo uv;
	char uvs[U_MAX_VERSION_STRING_LENGTH];

	u_getUnicodeVersion(uv);
	u_versionToString(uv, uvs);
	ck_group("setup");
	ck_info("ICU %s, Unicode %s; libfold newest %s", U_ICU_VERSION, uvs,
		nv ? versions[nv - 1] : "?");
	/* Compare like with like: ICU's Unicode version must be ours, or
	 * newer (then what it added is left out: beyond_ours()). */
	struct fold_ctx newest;
	uint32_t ourv = fold_init(&newest, "utf8", FOLD_NFD, 0) == 0 ? newest.unicode : 0;
	uint32_t icuv = FOLD_UNICODE(uv[0], uv[1], uv[2]);
	ck(ourv && icuv >= ourv, "ICU's Unicode %s is older than libfold's newest %s", uvs,
	   nv ? versions[nv - 1] : "?");
	icu_newer = ourv && icuv > ourv;
	if (icu_newer)
		ck_info("ICU's Unicode %s is newer than libfold's %s: code points "
			"assigned since are left out of the comparison",
			uvs, versions[nv - 1]);
	for (int f = 0; f < NFORMS; f++)
		ck(fold_init(&forms[f].ctx, "utf8", (enum fold_form)forms[f].form,
			     forms[f].flags) == 0,
		   "fold_init %s", forms[f].name);
	if (every)
		every_cp(icu, stride);
	random_names(icu, count);
	with_utf8proc(icu, count / 4, stride);
	return ck_finish();
}
