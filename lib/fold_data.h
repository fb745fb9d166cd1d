/*
 * fold_data.h - layout of the generated tables (fold_tables.c) and the
 * inline lookups that read them.  Internal to libfold; tools/mktables.c
 * includes it too, so writer and reader share one definition.
 *
 * Only code points that carry data (a combining class, a mapping, a
 * composition role, Default_Ignorable) have a record; everything else,
 * assigned or not, behaves the same under every form and version.
 *
 * Lookup (fold_rid): a three-level trie over an index space that is the
 * code point for U+0000..U+2FFFF and U+E0000..U+E0FFF folded down to
 * 0x30000..0x30FFF (no other code point has data):
 *   fold_top[i >> FOLD_S1]            -> mid block
 *   fold_mid[mid << (S1-S2) | ...]    -> offset of a leaf block in fold_leaf
 *   fold_leaf[off + (i & leafmask)]   -> lane value: record number
 *                                        (0 = no data) | L_* bits
 * Leaf blocks are deduplicated and may overlap each other.  The L_* bits
 * of a lane value answer the fast lanes' questions about a code point
 * without touching its record (they are derived from the record, so they
 * add no leaf blocks).
 *
 * A record (struct fold_rec, 6 bytes) holds the combining class, the age
 * (index into fold_versions, 1-based; 0 only for reserved ignorables),
 * flags, the composition list the code point belongs to as second
 * element, which mapping fields it has, and a 22-bit descriptor: the
 * field's own if it has one, else (M_MULTI) the index of the first of
 * its descriptors in fold_maps[], in the order D, K, F:
 *   D  canonical decomposition;
 *   K  full compatibility decomposition, where it differs from D's;
 *   F  full case folding closure, for code points without D.  The fold of
 *      a decomposable code point is not stored: it is the concatenation of
 *      the F of its decomposition's code points (the generator proves it).
 * A descriptor is
 *   M_DELTA  one code point, cp + delta;
 *   M_POOL   a slice of fold_pool (UTF-8, a full closure) of a given
 *            length at offset rel + cp * len;
 *   M_PAIR   a two-code-point canonical decomposition, entry rel + cp of
 *            fold_pairs[] (first element, second element, composite age);
 *            the first element may decompose again, the second never.
 *            Bits 16-19 of a record's own M_PAIR descriptor (M_CFOLD)
 *            are a composed-fold code: if nonzero, the code point's
 *            NFKC_CF key, at every version it is assigned in, is the
 *            single code point cp + fold_cdelta[code], quiet at level 3
 *            (capital precomposed letters: U+00C9 -> U+00E9).
 * The cp-relative forms let runs of code points share one descriptor, and
 * so one record and one trie block.
 */
#ifndef FOLD_DATA_H
#define FOLD_DATA_H

#include <stddef.h>
#include <stdint.h>

/* Everything declared here is internal: keep it out of the .so's ABI. */
#pragma GCC visibility push(hidden)

/* Mapping kinds (closures computed by the generator). */
enum { K_D, K_KD, K_CF, K_CFK, K_STORED };

/* Trie geometry; mktables checks it is the smallest of those it tries. */
#define FOLD_NIDX 0x31000u
#define FOLD_S1 8
#define FOLD_S2 3

struct fold_rec {
	uint8_t ccc;
	uint8_t af;  /* age (5 bits) | A_* flags */
	uint16_t lo; /* descriptor bits 0-15 */
	uint16_t hi; /* descriptor bits 16-21 | fields << 6 | sec << 9 |
			self level bit 1 << 15 (bit 0 is af bit 7) */
};

#define A_DI 0x20      /* Default_Ignorable_Code_Point (age 0: always) */
#define A_SPECIAL 0x40 /* in fold_corr[] or fold_nkcf[] */
/* Quick check for the composing forms: a code point whose key is itself
 * (at every version it is assigned in) and that cannot combine with what
 * precedes it.  Levels nest: 1 NFC, 2 also NFKC, 3 also NFKC_CF.  It is
 * final as soon as the next code point cannot combine with it either. */
#define REC_SELF(r) (((r)->af >> 7) | (((r)->hi >> 14) & 2u))
#define REC_AGE(r) ((r)->af & 0x1Fu)
#define REC_DESC(r) ((uint32_t)(r)->lo | (uint32_t)((r)->hi & 0x3Fu) << 16)
#define REC_FIELDS(r) (((r)->hi >> 6) & 7u) /* F_D | F_K | F_F */
#define REC_SEC(r) (((unsigned)(r)->hi >> 9) & 0x3Fu) /* 1 + comp. list */
#define F_D 1u
#define F_K 2u
#define F_F 4u

/* Descriptors (22 bits). */
#define M_TYPE(m) ((m) >> 20)
#define M_DELTA 0u
#define M_POOL 1u
#define M_PAIR 2u
#define M_MULTI 3u
#define M_SDELTA(m) ((int32_t)((m) << 12) >> 12) /* signed 20 bits */
#define M_LEN(m) (((m) >> 14) & 0x3Fu)
#define M_OFF(m, cp) (((m) + (cp) * M_LEN(m)) & 0x3FFFu)
#define M_PAIRIDX(m, cp) (((m) + (cp)) & 0xFFFFu)
#define M_CFOLD(m) (((m) >> 16) & 0xFu) /* of an M_PAIR: fold_cdelta[] */
#define M_INDEX(m) ((m) & 0xFFFFFu)
#define FOLD_POOL_MAX 0x4000 /* M_OFF wraps at this size */

/* fold_pairs[] entries, sorted by composite. */
#define P_FIRST(p) ((p) & 0x1FFFFu)
#define P_SECOND(p) (((p) >> 17) & 0x7Fu) /* index into fold_seconds */
#define FOLD_MAXCHAIN 4 /* longest chain of pair decompositions (checked) */

/* fold_sec_info[i]: what the lanes need to know of fold_seconds[i] (which
 * never decomposes) without a lookup: its combining class, S_FOLDS if it
 * has a case fold (U+0345), and its age (a mark can be younger than a
 * composite that decomposes to it: U+01E0 -> U+0226 U+0304). */
#define S_CCC(i) ((i) & 0xFFu)
#define S_FOLDS 0x100u
#define S_AGESHIFT 9
#define S_AGE(i) ((unsigned)(i) >> S_AGESHIFT)

/* fold_dkey[i]: for the fast lane, the whole key in the decomposing forms
 * of the composite of pair i, for the composites below FOLD_DKEY_HI (the
 * first FOLD_NDKEY pairs: Latin, Greek, Cyrillic, Vietnamese, Greek
 * Extended, kana with voicing marks...): bytes 0-5 its canonical
 * decomposition in UTF-8 (a starter that does not decompose, then marks in
 * canonical order), zero-padded; then its length, the number of marks, the
 * newest mark's age and flags.  Folded, the key is the same
 * (DK_FOLDS_SAME) but for DK_ASCII_CAP, an ASCII capital first byte to be
 * made small; or (DK_FOLD32) its first code point, two bytes, is 32 more.
 * 0 where the key is anything else: the lane walks the pairs then.  The
 * composite's own age is the caller's to check. */
#define FOLD_DKEY_HI 0x3100u
#define FOLD_NDKEY 1118
#define DK_MAXLEN 6
#define DK_LENSHIFT 48
#define DK_MARKSHIFT 51
#define DK_AGESHIFT 53
#define DK_FOLD32 (1ull << 59)
#define DK_ASCII_CAP (1ull << 60)
#define DK_FOLDS_SAME (1ull << 61)
#define DK_VALID (1ull << 63)
#define DK_LEN(k) ((unsigned)((k) >> DK_LENSHIFT) & 7u)
#define DK_MARKS(k) ((unsigned)((k) >> DK_MARKSHIFT) & 3u)
#define DK_AGE(k) ((unsigned)((k) >> DK_AGESHIFT) & 0x1Fu)

/* Composition: fold_comp[fold_comp_start[s-1] .. fold_comp_start[s]-1]
 * are the primary composites whose second element has REC_SEC s, sorted
 * by first element.  Entry: pair index, the version from which the
 * composition can happen (all three code points assigned), and the
 * composite's low 16 bits (its plane is the first element's). */
#define C_PAIR(e) ((e) & 0x7FFu)
#define C_AGE(e) (((e) >> 11) & 0x1Fu)
#define C_LOW(e) ((e) >> 16)

/* The first elements U+0040..U+007F (letters) of composition list s
 * (REC_SEC s + 1), found without a search: bit f - FOLD_COMP_ALO of
 * fold_comp_abits[s] is set if the list has first element f, and the
 * list starts with those (mktables checks). */
#define FOLD_COMP_ALO 0x40u
/* REC_SEC has 6 bits: the second elements after the first 62 that have
 * composites (in code point order) share list FOLD_COMP_SHARED, sorted by
 * first element, then by second (fold_seconds index); its abits are
 * unused.  Unicode 15.0 needs 63 lists, 17.0 72. */
#define FOLD_COMP_SHARED 63
/* The lists with first elements in U+0040..U+007F come first: lists 1 to
 * FOLD_COMP_NABITS (mktables checks); fold_comp_abits[] has no others. */
#define FOLD_COMP_NABITS 25

struct fold_version {
	uint8_t maj, min;
	char name[8];
};

extern const char fold_ucd_version[];
extern const struct fold_version fold_versions[];
extern const char *const fold_version_names[]; /* fold_versions[i].name */
extern const uint8_t fold_top[];
extern const uint16_t fold_mid[];
extern const uint16_t fold_leaf[];
extern const struct fold_rec fold_recs[];
extern const uint32_t fold_maps[];
extern const uint8_t fold_pool[];
extern const uint32_t fold_pairs[];
extern const uint32_t fold_seconds[];
extern const uint16_t fold_sec_info[];
extern const uint64_t fold_dkey[];
extern const uint16_t fold_comp_start[];
extern const uint32_t fold_comp[];
extern const uint64_t fold_comp_abits[];
extern const uint32_t fold_corr[]; /* triples: cp, original, age */
extern const unsigned fold_ncorr;
extern const uint32_t fold_nkcf[]; /* pairs: cp, descriptor */
extern const uint32_t fold_cdelta[]; /* M_CFOLD deltas, two's complement */
extern const unsigned fold_nnkcf;
/* Ages of all code points, for fold_cp_age(): runs of (age << 3 | n),
 * n < 7: run of n+1 code points; n == 7: a byte m follows, m < 255: run
 * of 8+m; m == 255: two more bytes hold length-1 (little endian).
 * fold_age_index[cp >> 14] = byte offset of the run holding
 * cp & ~0x3FFF, and fold_age_skip[] how far into it that is. */
extern const uint8_t fold_age_runs[];
extern const uint16_t fold_age_index[];
extern const uint16_t fold_age_skip[];
extern const size_t fold_tables_bytes;

/* Versions in the tables (fold_tables.c asserts it); suite lib-newer-ucd
 * builds the library with a newer UCD's tables and their count */
#ifndef FOLD_NVERSIONS
#define FOLD_NVERSIONS 25
#endif
#define FOLD_MAXEXP 18 /* longest expansion in code points (checked) */

/* Hangul syllable arithmetic (Unicode ch. 3.12). */
#define SBASE 0xAC00u
#define LBASE 0x1100u
#define VBASE 0x1161u
#define TBASE 0x11A7u
#define LCOUNT 19u
#define VCOUNT 21u
#define TCOUNT 28u
#define NCOUNT (VCOUNT * TCOUNT)
#define SCOUNT (LCOUNT * NCOUNT)
#define HANGUL_AGE 2 /* syllables AC00..D7A3 arrived in 2.0 */

/* Index space of the trie, or FOLD_NIDX for "no data". */
static inline uint32_t fold_idx(uint32_t cp)
{
	if (cp < 0x30000u)
		return cp;
	if (cp - 0xE0000u < 0x1000u)
		return cp - 0xB0000u;
	return FOLD_NIDX;
}

/* Speed-ups of the lookup, all checked by mktables: the mid blocks of
 * U+0000..U+07FF come first in fold_mid, in order (fold_top[i] == i), so
 * two-byte characters skip a level; U+3400..U+9FFF (CJK) has no data
 * at all; and every Hangul syllable has the same lane value. */
#define FOLD_DIRECT 0x800u
#define FOLD_EMPTY_LO 0x3400u
#define FOLD_EMPTY_HI 0xA000u

/*
 * Lane value bits (mktables derives them; fold_stream.c's lanes read them):
 *   L_RID     the record number;
 *   L_HANGUL  no record, but a conjoining jamo or a Hangul syllable, which
 *             compose and decompose by formula;
 *   L_SFOLD   a simple fold: a starter, nobody's second element, whose
 *             only data is a case fold to one code point (a delta, to a
 *             plain starter) -- applies from the record's age on;
 *   L_BB      in every composing form at every version, the key of the
 *             code point starts with a starter that is nobody's second
 *             element (and no conjoining jamo): nothing before it can
 *             combine with its key (set for all without a record, but
 *             conjoining jamo);
 *   L_QUIET   (2 bits) the quiet level: at every version, the code point
 *             is its own key at levels 1 (NFC) up to this one (2 NFKC,
 *             3 NFKC_CF) and combines with nothing before it.  REC_SELF
 *             for code points with a record; 3 for those without, except
 *             conjoining jamo (0); Hangul syllables count as quiet (3):
 *             only a trailing jamo, never quiet, combines with one.
 * A code point with no record that is not Hangul has value L_PLAIN.
 * A simple fold has L_BB too (mktables checks).
 */
#define L_RID 0x07FFu
#define L_HANGUL 0x0800u
#define L_BB 0x1000u
#define L_SFOLD 0x2000u
#define L_QSHIFT 14
#define L_PLAIN (3u << L_QSHIFT | L_BB)
#define L_QUIET(v) ((v) >> L_QSHIFT)

/* Lane value of cp < FOLD_DIRECT (one- and two-byte UTF-8). */
static inline unsigned fold_lane_direct(uint32_t cp)
{
	return fold_leaf[fold_mid[cp >> FOLD_S2] + (cp & ((1u << FOLD_S2) - 1))];
}

/* Lane value of cp. */
static inline unsigned fold_lane(uint32_t cp)
{
	uint32_t i;
	unsigned mid, off;
	if (cp < FOLD_DIRECT)
		return fold_lane_direct(cp);
	if (cp - FOLD_EMPTY_LO < FOLD_EMPTY_HI - FOLD_EMPTY_LO)
		return L_PLAIN;
	if (cp - SBASE < SCOUNT)
		return L_HANGUL | L_PLAIN; /* what the trie holds (checked) */
	i = fold_idx(cp);
	if (i >= FOLD_NIDX)
		return L_PLAIN;
	mid = fold_top[i >> FOLD_S1];
	off = fold_mid[mid << (FOLD_S1 - FOLD_S2) |
		       ((i >> FOLD_S2) & ((1u << (FOLD_S1 - FOLD_S2)) - 1))];
	return fold_leaf[off + (i & ((1u << FOLD_S2) - 1))];
}

/* Record number of cp (0: no data). */
static inline unsigned fold_rid(uint32_t cp)
{
	return fold_lane(cp) & L_RID;
}

static inline const struct fold_rec *fold_rec_of(uint32_t cp)
{
	return &fold_recs[fold_rid(cp)];
}

#pragma GCC visibility pop
#endif
