/*
 * mktables_check.c - self-checks of the table generator.
 *
 * The library does not recurse at run time: it applies one stored closure
 * per code point, swaps in the original mapping of the few corrected code
 * points for old versions, and drops ignorable source code points.  These
 * checks prove that this cheap model equals the reference recursion for
 * every code point, every kind and every Unicode version, so the age filter
 * alone is enough to emulate an older version.
 */
#include "mktables.h"

#include <stdio.h>

static int corrected(uint32_t cp, int v, uint32_t *orig)
{
	int i;
	for (i = 0; i < U.ncorr; i++)
		if (U.corr_cp[i] == cp && v < U.corr_age[i]) {
			*orig = U.corr_orig[i];
			return 1;
		}
	return 0;
}

/* What the run time produces for one code point (before reordering). */
static void model(int kind, uint32_t cp, int v, int ign, struct seq *out)
{
	uint32_t orig;
	out->n = 1;
	out->c[0] = cp;
	if (ign && ignorable_at(cp, v)) {
		out->n = 0;
		return;
	}
	if (!U.age[cp] || U.age[cp] > v)
		return;
	if (cp >= SBASE && cp < SBASE + SCOUNT) {
		ref_closure(kind, cp, v, ign, out); /* formula, not data */
		return;
	}
	if (corrected(cp, v, &orig)) {
		out->c[0] = orig;
		return;
	}
	if (U.clo[kind][cp])
		*out = *U.clo[kind][cp];
}

static void check_versions(void)
{
	int k, v, ign, bad = 0;
	uint32_t cp;
	struct seq a, b;
	for (cp = 0; cp <= MAX_CP; cp++) {
		/* Code points without data are the identity in both. */
		if (!U.dec[cp] && !U.fold[cp] && !U.di[cp] &&
		    !(cp >= SBASE && cp < SBASE + SCOUNT))
			continue;
		for (k = 0; k < K_STORED; k++)
			for (v = 1; v <= U.nversions; v++)
				for (ign = 0; ign < 2; ign++) {
					model(k, cp, v, ign, &a);
					ref_closure(k, cp, v, ign, &b);
					if (seq_eq(&a, &b))
						continue;
					if (bad++ < 10)
						fprintf(stderr,
							"mktables: U+%04X kind %d "
							"version %d ign %d: stored "
							"model differs from the "
							"recursion\n",
							cp, k, v, ign);
				}
	}
	if (bad)
		die("%d model/reference mismatches", bad);
}

/* A closure's output must map to itself, or key(key(x)) != key(x). */
static void check_fixpoints(void)
{
	int k, i;
	uint32_t cp;
	struct seq s;
	for (k = 0; k < K_STORED; k++)
		for (cp = 0; cp <= MAX_CP; cp++) {
			if (!U.clo[k][cp])
				continue;
			for (i = 0; i < U.clo[k][cp]->n; i++) {
				uint32_t c = U.clo[k][cp]->c[i];
				ref_closure(k, c, U.nversions, 0, &s);
				if (s.n != 1 || s.c[0] != c)
					die("closure %d of U+%04X contains "
					    "U+%04X, which is not a fixpoint",
					    k, cp, c);
			}
		}
	for (i = 0; i < U.nexc; i++) {
		int j;
		for (j = 0; j < U.exc_map[i]->n; j++) {
			uint32_t c = U.exc_map[i]->c[j];
			ref_closure(K_CFK, c, U.nversions, 1, &s);
			if (s.n != 1 || s.c[0] != c)
				die("NFKC_CF exception U+%04X contains U+%04X, "
				    "which is not a fixpoint", U.exc_cp[i], c);
		}
	}
}

/* The run time drops ignorable sources only, so no closure may produce
 * an ignorable.  It orders a closure's output by the classes the
 * context's version knows, as the kernel does: a mark newer than its
 * source (U+0622 -> U+0627 U+0653, 1.1 vs 3.0) is class 0 in between.
 * That keeps keys idempotent; such cases are only counted. */
static void check_outputs(void)
{
	int k, i, newer = 0;
	uint32_t cp;
	for (k = 0; k < K_STORED; k++)
		for (cp = 0; cp <= MAX_CP; cp++) {
			const struct seq *s = U.clo[k][cp];
			if (!s)
				continue;
			for (i = 0; i < s->n; i++) {
				uint32_t c = s->c[i];
				if (U.ccc[c] && U.age[c] > U.age[cp])
					newer++;
				if (U.di[c] && !U.di[cp])
					die("closure %d of U+%04X contains "
					    "ignorable U+%04X", k, cp, c);
			}
		}
	for (i = 0; i < U.nexc; i++)
		for (k = 0; k < U.exc_map[i]->n; k++)
			if (U.di[U.exc_map[i]->c[k]])
				die("NFKC_CF exception U+%04X contains an "
				    "ignorable", U.exc_cp[i]);
	fprintf(stderr, "mktables: %d closure outputs are marks newer than "
		"their source\n", newer);
}

/* Full_Composition_Exclusion must be exactly what UAX #15 derives: the
 * explicit exclusions, singletons and non-starter decompositions. */
static void check_composition(void)
{
	uint32_t cp;
	for (cp = 0; cp <= MAX_CP; cp++) {
		const struct seq *d = U.dec[cp];
		int want = 0;
		if (d && !U.dec_compat[cp])
			want = U.cexcl[cp] || d->n == 1 || U.ccc[cp] ||
			       U.ccc[d->c[0]];
		if (want != U.fce[cp])
			die("Full_Composition_Exclusion of U+%04X is %d, "
			    "derivation says %d", cp, U.fce[cp], want);
		if (d && !U.dec_compat[cp] && !U.fce[cp]) {
			if (d->n != 2)
				die("primary composite U+%04X has %d parts",
				    cp, d->n);
			/* The run time assumes composites are starters and
			 * that no pair starts with ASCII-compatible input
			 * it skips (ASCII second parts). */
			if (U.ccc[cp] || d->c[1] < 0x80)
				die("odd primary composite U+%04X", cp);
		}
	}
}

/*
 * Reserved code points that are Default_Ignorable are dropped under every
 * version (ignorable_at: age 0), assigned ones from their version on.  A
 * UCD that assigned one of today's reserved ignorables, or reserved a new
 * one, would change what contexts older than that UCD drop, so their
 * equivalence would change when the tables move on -- which fold.h
 * promises never happens.  So today's set (Unicode 15.0) is frozen here,
 * and a UCD that differs stops the generator: decide how ignorable_at()
 * keeps the old versions as they were, then update the list.
 */
static const uint32_t reserved_ignorables[][2] = {
	{0x2065, 0x2065},   {0xFFF0, 0xFFF8},	{0xE0000, 0xE0000},
	{0xE0002, 0xE001F}, {0xE0080, 0xE00FF}, {0xE01F0, 0xE0FFF},
};

static void check_reserved_ignorables(void)
{
	size_t i, n = sizeof reserved_ignorables / sizeof *reserved_ignorables;
	uint32_t cp;

	for (cp = 0; cp <= MAX_CP; cp++) {
		int frozen = 0, now = U.di[cp] && !U.age[cp];
		for (i = 0; i < n; i++)
			frozen |= cp >= reserved_ignorables[i][0] &&
				  cp <= reserved_ignorables[i][1];
		if (frozen != now)
			die("U+%04X: %s: older versions would change what "
			    "they drop (see check_reserved_ignorables)", cp,
			    now ? "a reserved Default_Ignorable_Code_Point "
				  "in this UCD, not in Unicode 15.0's"
				: "a reserved Default_Ignorable_Code_Point in "
				  "Unicode 15.0's UCD, no longer in this one");
	}
}

void check_all(void)
{
	check_reserved_ignorables();
	check_versions();
	check_fixpoints();
	check_outputs();
	check_composition();
}
