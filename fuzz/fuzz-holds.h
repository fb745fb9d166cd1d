/*
 * fuzz-holds.h - one reading of the rule that a directory's fold index
 * holds its node exactly once (fs/dirindex.c), for the fuzzers that count
 * node_hold/node_put (fuzz-names.c, fuzz-watch.c).
 */
#ifndef FUZZ_HOLDS_H
#define FUZZ_HOLDS_H

/* What is wrong with refs holds of a directory node whose index exists
 * (indexed) or not, or NULL if nothing. */
static inline const char *holds_wrong(int refs, int indexed)
{
	if (refs == indexed)
		return NULL;
	return refs > indexed ? "a directory node is held more often than "
				"its index holds it" :
				"an index does not hold its directory node";
}

#endif
