/*
 * ucd.h - an independent, deliberately simple model of the Unicode
 * Character Database, used as the test oracle for libfold.
 *
 * It reads the text files in /usr/share/unicode directly (UnicodeData,
 * CaseFolding, DerivedAge, DerivedCoreProperties, NormalizationCorrections)
 * and shares no code or tables with lib/.  Everything is computed the slow,
 * obvious way: one-level mappings applied recursively, canonical ordering by
 * a stable sort.  Versions follow fold.h: under version V a code point
 * assigned after V has no decomposition, class 0 and no case folding, and
 * NormalizationCorrections apply from their version on.
 */
#ifndef TESTS_LIB_UCD_H
#define TESTS_LIB_UCD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UCD_MAXCP 0x110000u
#define UCD_NEWEST 0xFFFFFFFFu /* "version" meaning: no age filter */

/* Load everything from dir; on any error print a message and exit(2). */
void ucd_load(const char *dir);

/* Versions named by DerivedAge.txt "# Age=" headers, oldest first, as
 * FOLD_UNICODE() values (X<<16 | Y<<8 | Z). */
size_t ucd_versions(const uint32_t **list);

/* See the UCD as of version ver, the newest the library's tables know,
 * when the installed files are newer: later versions are dropped and code
 * points assigned after ver become unassigned (no data).  Returns how
 * many code points that took away (0 if the files are not newer). */
size_t ucd_cap(uint32_t ver);
/* Was cp taken away by ucd_cap()? */
int ucd_capped(uint32_t cp);

uint32_t ucd_age(uint32_t cp);	/* DerivedAge; 0 if not listed */
int ucd_in_unicodedata(uint32_t cp); /* listed in UnicodeData.txt (or range) */
int ucd_is_di(uint32_t cp);	/* Default_Ignorable_Code_Point */
int ucd_ccc(uint32_t cp, uint32_t ver);
/* One-level decomposition mapping of cp under ver (canonical only unless
 * compat); 0 if none.  Hangul syllables decompose algorithmically (LV/LVT
 * to L,V[,T] in one step). */
size_t ucd_decomp1(uint32_t cp, int compat, uint32_t ver, uint32_t *out);
/* CaseFolding status C or F mapping of cp under ver; 0 if none. */
size_t ucd_fold1(uint32_t cp, uint32_t ver, uint32_t *out);

/* Full decomposition + canonical ordering (NFD, or NFKD when compat). */
size_t ucd_nfd(const uint32_t *in, size_t n, int compat, uint32_t ver,
	       uint32_t *out, size_t cap);
/* The closed canonical (compat=0) or compatibility (compat=1) caseless key:
 * s = NFD(x); repeat s = NFD(fold(s)) until stable.  With ignorables,
 * Default_Ignorable_Code_Points are removed first.  Returns the length, or
 * (size_t)-1 if cap is too small or it did not converge in 16 rounds. */
size_t ucd_caseless(const uint32_t *in, size_t n, int compat, int ignorables,
		    uint32_t ver, uint32_t *out, size_t cap);

/* NormalizationCorrections.txt entries. */
struct ucd_correction {
	uint32_t cp, original, corrected, version;
};
size_t ucd_corrections(const struct ucd_correction **list);

#ifdef __cplusplus
}
#endif
#endif
