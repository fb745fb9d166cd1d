/*
 * bench-ir.cpp - one operation of one implementation over one set of the
 * benchmark corpus, REPS times: the program bench/lib/ir.sh runs under
 * callgrind to count instructions a name.
 *
 * Wall time on this project's VMs moves by several per cent between two
 * builds of the same code (layout) and over minutes (the host); an
 * instruction count does not move at all, so it tells a change of a few
 * per cent in the work done, which bench-lib's ratios cannot.  It is not
 * the speed: a lane that runs at nearly four instructions a cycle is
 * bounded by its mispredicted branches as much as by its instructions
 * (see README, Performance).  Not part of make check.
 *
 *   bench-ir SET IMPL REPS
 * IMPL: fold-nkcf, fold-cf, hash-nkcf, hash-cf, cmp-nkcf (libfold:
 * fold_key, fold_hash, fold_cmp against the other spelling), icu-fold-nkcf,
 * icu-hash-nkcf (ICU's NFKC_Casefold into a string, then bench-lib's
 * SipHash-1-3 of it), u8p-fold-nkcf (utf8proc_map).
 */
#include "corpus.h"
#include "fold.h"
#include "siphash.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <utf8proc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

const uint64_t K0 = 0x0706050403020100ull, K1 = 0x0f0e0d0c0b0a0908ull;
char buf[1 << 14];

int usage()
{
	std::fprintf(stderr,
		     "usage: bench-ir SET IMPL REPS\n"
		     "IMPL: fold-nkcf fold-cf hash-nkcf hash-cf cmp-nkcf "
		     "icu-fold-nkcf icu-hash-nkcf u8p-fold-nkcf\n");
	return 2;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 4)
		return usage();
	const std::string impl = argv[2];
	const long reps = std::strtol(argv[3], nullptr, 10);
	/* bench-lib's corpus: the same names */
	std::vector<NameSet> sets = make_corpus(10000, 0x5EEDF01Dull);
	const NameSet *ns = nullptr;
	for (const NameSet &s : sets)
		if (s.name == argv[1])
			ns = &s;
	if (!ns || reps < 0)
		return usage();
	struct fold_ctx nkcf, cf;
	const struct fold_seed seed = {K0, K1};
	UErrorCode e = U_ZERO_ERROR;
	const icu::Normalizer2 *icu = icu::Normalizer2::getNFKCCasefoldInstance(e);
	if (fold_init(&nkcf, "utf8", FOLD_NFKC_CF, 0) ||
	    fold_init(&cf, "utf8", FOLD_CASEFOLD, 0) || U_FAILURE(e)) {
		std::fprintf(stderr, "bench-ir: set-up failed\n");
		return 1;
	}
	std::string out;
	out.reserve(sizeof buf);
	uint64_t acc = 0;
	int which = impl == "fold-nkcf"       ? 0 :
		    impl == "fold-cf"	      ? 1 :
		    impl == "hash-nkcf"	      ? 2 :
		    impl == "hash-cf"	      ? 3 :
		    impl == "cmp-nkcf"	      ? 4 :
		    impl == "icu-fold-nkcf"   ? 5 :
		    impl == "icu-hash-nkcf"   ? 6 :
		    impl == "u8p-fold-nkcf"   ? 7 :
						-1;
	if (which < 0)
		return usage();
	for (long r = 0; r < reps; r++) {
		for (size_t i = 0; i < ns->names.size(); i++) {
			const std::string &s = ns->names[i];
			switch (which) {
			case 0:
			case 1:
				acc += (uint64_t)fold_key(which ? &cf : &nkcf, s.data(),
							  s.size(), buf, sizeof buf);
				break;
			case 2:
			case 3:
				acc ^= fold_hash(which == 3 ? &cf : &nkcf, &seed,
						 s.data(), s.size());
				break;
			case 4:
				acc += fold_cmp(&nkcf, s.data(), s.size(),
						ns->others[i].data(),
						ns->others[i].size()) == 0;
				break;
			case 5:
			case 6: {
				out.clear();
				icu::StringByteSink<std::string> sink(&out);
				icu->normalizeUTF8(0, icu::StringPiece(s.data(), (int32_t)s.size()),
						   sink, nullptr, e);
				acc += which == 6 ? bench_siphash13(K0, K1, out.data(), out.size()) :
						    out.size();
				break;
			}
			default: {
				utf8proc_uint8_t *d = nullptr;
				utf8proc_ssize_t k = utf8proc_map(
					(const utf8proc_uint8_t *)s.data(), (utf8proc_ssize_t)s.size(),
					&d,
					(utf8proc_option_t)(UTF8PROC_STABLE | UTF8PROC_COMPOSE |
							    UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
							    UTF8PROC_IGNORE));
				acc += (uint64_t)k;
				std::free(d);
				break;
			}
			}
		}
	}
	std::printf("%llu names %zu\n", (unsigned long long)acc, ns->names.size());
	return 0;
}
