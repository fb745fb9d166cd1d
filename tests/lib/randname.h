/*
 * randname.h - deterministic generator of random, well-formed UTF-8 names
 * for differential tests and fuzz seeds: ASCII, Latin with combining marks,
 * Hangul syllables and conjoining jamo, polytonic Greek, CJK and kana,
 * emoji sequences, normalization trouble-makers (composition exclusions,
 * singletons, marks that decompose into non-starters) and random code
 * points, alone or mixed.
 */
#ifndef TESTS_LIB_RANDNAME_H
#define TESTS_LIB_RANDNAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rn {
	uint64_t s;
};

enum rn_kind {
	RN_ASCII, RN_LATIN, RN_HANGUL, RN_GREEK, RN_CJK, RN_EMOJI,
	RN_TRICKY, RN_RANDOM, RN_MIXED, RN_NKINDS
};

void rn_seed(struct rn *r, uint64_t seed);
uint32_t rn_below(struct rn *r, uint32_t n);
/* Name of a kind, for reports. */
const char *rn_kind_name(int kind);
/* Up to maxcp code points of the given kind (or, for kind < 0, a kind
 * picked at random) into cps; returns the count (>= 1).  Never U+0000 or a
 * surrogate. */
size_t rn_cps(struct rn *r, int kind, uint32_t *cps, size_t maxcp);

#ifdef __cplusplus
}
#endif
#endif
