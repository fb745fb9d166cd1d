/*
 * corpus.h - the benchmark's deterministic corpus of realistic file names:
 * one set per script/shape (ASCII source and media names, Latin with
 * accents in NFC and in NFD, Greek, Cyrillic, CJK, Hangul, emoji
 * sequences, and a mix), each name with an "other spelling" (case changed,
 * NFC<->NFD) for the compare benchmark.
 */
#ifndef BENCH_LIB_CORPUS_H
#define BENCH_LIB_CORPUS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct NameSet {
	std::string name;
	std::vector<std::string> names;  /* the names as created */
	std::vector<std::string> others; /* another spelling of each */
	std::vector<std::string> unrelated; /* a different name of the set */
	size_t bytes = 0;		 /* total bytes of names */
	size_t pair_bytes = 0;		 /* total bytes of names + others */
	size_t diff_bytes = 0;		 /* total bytes of names + unrelated */
};

/* per_set names in each set; the same seed gives the same corpus. */
std::vector<NameSet> make_corpus(size_t per_set, uint64_t seed);

#endif
