/*
 * fold.h - libfold public API: Unicode-correct comparison of file names.
 *
 * libfold answers one question fast and without allocating: "are these two
 * byte strings the same file name?" under a pinned encoding (ASCII, or UTF-8
 * at a chosen Unicode version) and a chosen comparison form (NFD, NFKD, full
 * case folding, ...).  It also produces the normalized text itself (into a
 * caller buffer), a total order consistent with that equivalence, and a keyed
 * hash that is equal for equivalent names.
 *
 * Rules every function follows:
 *  - Names are byte strings with an explicit length.  The *z variants take
 *    NUL-terminated strings.  No function touches the heap.
 *  - Well-formed UTF-8 means: shortest form, no surrogates, at most U+10FFFF,
 *    and no NUL byte (a file name cannot contain one).
 *  - An ill-formed name is never partly interpreted and never repaired: it is
 *    an opaque byte string, equal only to itself byte for byte.
 *    fold_normalize() always refuses it, and strict contexts (FOLD_STRICT)
 *    make fold_key() refuse it too;
 *    comparison and hashing always treat it as opaque so they cannot fail.
 *  - Under Unicode version V, a code point assigned after V is unassigned:
 *    no decomposition, combining class 0, no case folding.  The equivalence
 *    a context defines therefore never changes when the tables move on.
 *  - Runs of more than 30 non-starters are cut as the Stream-Safe Text Format
 *    (UAX #15, D4) describes, so work and stack use are bounded for any
 *    input; the cut is deterministic, so equivalence stays an equivalence.
 *    Precisely: counting the non-starters of the decomposed (and, in the
 *    folding forms, folded) text, the 31st of a run starts a new run, as
 *    if U+034F COMBINING GRAPHEME JOINER stood before it; nothing is
 *    emitted for the cut.  U+0345, whose fold U+03B9 is a starter, counts
 *    as the mark it is where it is ordered among the marks (that is,
 *    except under FOLD_KERNEL_ORDER).  Marks are reordered only within a run, and
 *    composition does not reach across a cut.  Text without such runs
 *    (all real text) is normalized exactly as UAX #15 says.  Under
 *    FOLD_KERNEL_ORDER (a decomposing form) nothing is cut: a run of any
 *    length is ordered whole, as the kernel does, with one pass over it
 *    per combining class it holds (linear work, no memory grows).
 *  - A code point's data at version V: the newest tables, restricted by
 *    age.  A code point assigned after V has none.  A code point assigned
 *    at or before V maps as it does in the newest version (mappings are
 *    stable), except that NormalizationCorrections.txt entries use their
 *    original mapping before the correction's version, and combining
 *    classes and composition follow V: a mark newer than V counts as a
 *    starter, and a composite forms only if it and both its parts are
 *    assigned at V.
 *  - Default_Ignorable_Code_Point (FOLD_IGNORABLES, NFKC_CF): the 15.0 set,
 *    for code points assigned at V, plus the permanently reserved ones
 *    (U+2065, U+FFF0..FFF8, U+E0000, ...), which are dropped at any V.
 *
 * Thread safety: a struct fold_ctx is immutable after fold_init(); any number
 * of threads may share one.
 *
 * MIT licence; see LICENSE.
 */
#ifndef FOLD_H
#define FOLD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t */

#ifdef __cplusplus
extern "C" {
#endif

#define FOLD_API_VERSION 1

/* Comparison / output forms. */
enum fold_form {
	FOLD_NFD = 0,	   /* canonical decomposition (UAX #15) */
	FOLD_NFC = 1,	   /* canonical decomposition + composition */
	FOLD_NFKD = 2,	   /* compatibility decomposition */
	FOLD_NFKC = 3,	   /* compatibility decomposition + composition */
	FOLD_CASEFOLD = 4, /* NFD + full case folding C+F, closed:
			      the canonical caseless match, f(f(x)) == f(x).
			      With FOLD_COMPAT: the compatibility caseless
			      match (NFKD based), likewise closed. */
	FOLD_NFKC_CF = 5,  /* NFKC_Casefold (UAX #44), as ICU and utf8proc */
	/*
	 * FOLD_CASEFOLD exactly: every code point is decomposed (canonically;
	 * with FOLD_COMPAT by compatibility) and full case folding (status C
	 * and F, never S or T) is applied to the result, repeatedly, until
	 * nothing changes; then the marks are put in canonical order.  This
	 * is NFD(toCasefold(NFD(x))) (compatibility: NFKD(toCasefold(NFKD(
	 * toCasefold(NFD(x)))))) with the repetition that makes it closed.
	 * As in that definition, U+0345 (class 240) is ordered among the
	 * marks first and becomes U+03B9 where it lands.  Keys stay
	 * decomposed (no composition).  The "ext4" profile is this form; it
	 * equals the kernel's utf8-12.1 "nfdicf" except that the kernel folds
	 * U+0345 before ordering (a + U+0345 + U+0300 then differs from
	 * a + U+0300 + U+0345 there, not here).
	 *
	 * FOLD_NFKC_CF: each code point is mapped by the NFKC_Casefold
	 * property (ignorables dropped), then NFC.  At 15.0 this equals ICU
	 * 72's "nfkc_cf" on every code point; utf8proc 2.8 differs only in
	 * keeping the reserved ignorables U+2065, U+FFF0..FFF8 and the
	 * unassigned ones in U+E0000..E0FFF, which the UCD's NFKC_CF drops.
	 *
	 * FOLD_COMPAT with FOLD_NFD/FOLD_NFC selects the compatibility
	 * decomposition, i.e. behaves as FOLD_NFKD/FOLD_NFKC (the context
	 * keeps the form and flag as given, so hashes differ).  FOLD_NFKC_CF
	 * ignores it.  FOLD_IGNORABLES applies to any form.
	 */
};

/* Flags for fold_init(). */
#define FOLD_STRICT 0x1u     /* ill-formed names are errors, not blobs */
#define FOLD_COMPAT 0x2u     /* FOLD_CASEFOLD on an NFKD base */
#define FOLD_IGNORABLES 0x4u /* drop Default_Ignorable_Code_Point
				(implied by FOLD_NFKC_CF) */
#define FOLD_KERNEL_ORDER 0x8u /* the Linux kernel's ordering of marks, in
				  the decomposing forms; set by the "ext4"
				  profile.  FOLD_CASEFOLD: U+0345 folds to
				  U+03B9 where it stands, as a starter,
				  before the marks are ordered (without it
				  U+0345 is ordered as class 240 first,
				  Unicode D145).  With FOLD_IGNORABLES: a
				  dropped ignorable still ends the run of
				  marks before it, so marks on its two
				  sides are not sorted together (without it, it is as if
				  it had never been there); a key with marks
				  left unsorted that way is then not its
				  own key.  The kernel's nfdicf and nfdi do
				  both.  And a run of more than 30 marks is
				  ordered whole, not cut (above). */

/* Error codes: every failing call returns one of these (all negative). */
#define FOLD_EINVAL (-1)   /* bad argument (NULL pointer, unknown form/flag) */
#define FOLD_EILSEQ (-2)   /* ill-formed name in a strict context */
#define FOLD_ENOENC (-3)   /* unknown encoding name */
#define FOLD_EVERSION (-4) /* Unicode version not known to this build */

enum fold_charset { FOLD_CHARSET_ASCII = 1, FOLD_CHARSET_UTF8 = 2 };

/*
 * A comparison context.  Small, caller-owned (put it on the stack or in your
 * own struct), filled by fold_init().  Treat the fields as read-only.
 */
struct fold_ctx {
	uint8_t charset;  /* enum fold_charset */
	uint8_t form;	  /* enum fold_form */
	uint8_t age;	  /* internal index of the Unicode version */
	uint8_t reserved; /* zero */
	uint32_t flags;	  /* FOLD_* flags as given to fold_init() */
	uint32_t unicode; /* FOLD_UNICODE(major, minor, update); 0 for ascii */
};

#define FOLD_UNICODE(maj, min, upd) \
	(((uint32_t)(maj) << 16) | ((uint32_t)(min) << 8) | (uint32_t)(upd))

/*
 * fold_init - parse an encoding name and set up a context.
 *
 * encoding: "ascii" (only A-Z fold, to a-z; every byte string is well
 *           formed except one containing NUL), "utf8" (the newest Unicode
 *           version this build knows), "utf8-X.Y" or "utf8-X.Y.Z" naming a
 *           Unicode version listed by fold_unicode_versions().
 * Returns 0, FOLD_ENOENC, FOLD_EVERSION or FOLD_EINVAL.  A well-formed
 * "utf8-X.Y[.Z]" (decimal numbers) naming no known version
 * ("utf8-12.1.1", "utf8-16.0", "utf8-1234.0") is FOLD_EVERSION; anything
 * else unknown ("latin1", "utf8-x") FOLD_ENOENC.
 */
int fold_init(struct fold_ctx *ctx, const char *encoding, enum fold_form form,
	      unsigned flags);

/*
 * fold_init_profile - named presets.
 *   "ext4": utf8-12.1, FOLD_CASEFOLD with FOLD_IGNORABLES and
 *           FOLD_KERNEL_ORDER: the equivalence of the Linux kernel's
 *           utf8-12.1 "nfdicf" (ext4/f2fs/tmpfs casefold): the same key,
 *           byte for byte, for every well-formed name, long runs of marks
 *           included (tested against the kernel's own code).  The
 *           kernel also accepts two kinds of
 *           ill-formed name, which libfold keeps opaque: a continuation
 *           byte after a complete character (passed through), and a NUL
 *           (ends the name).
 * Returns 0, FOLD_ENOENC (no such profile) or FOLD_EINVAL (ctx or profile
 * NULL).
 */
int fold_init_profile(struct fold_ctx *ctx, const char *profile);

/* Message for an error code, e.g. "unknown encoding". Never NULL. */
const char *fold_strerror(int err);

/* Canonical encoding name of ctx ("ascii", "utf8-12.1.0") into buf,
 * NUL-terminated.  Returns its length without the NUL, as snprintf does:
 * a result >= cap means buf was too small and holds a truncated,
 * NUL-terminated prefix.  FOLD_EINVAL for a bad ctx, or buf NULL with a
 * cap. */
int fold_encoding_name(const struct fold_ctx *ctx, char *buf, size_t cap);

/* The Unicode versions this build supports, oldest first, as "X.Y.Z"
 * strings; returns the count.  The last one is what "utf8" means. */
size_t fold_unicode_versions(const char *const **list);

/* Total size in bytes of all generated tables (all versions and forms). */
size_t fold_table_bytes(void);

/*
 * fold_validate - is s[0..n) well formed under ctx's charset?
 * Returns 0, or FOLD_EILSEQ with *bad_offset (if not NULL) set to the offset
 * of the first byte of the first ill-formed sequence: a NUL byte, a stray
 * continuation byte or a byte that never starts a sequence (C0, C1,
 * F5..FF) is reported at its own offset; a sequence that is truncated
 * (also at the end of s), has a bad continuation byte, is overlong, is a
 * surrogate or exceeds U+10FFFF is reported at the offset of its lead
 * byte.  For "ascii" only a NUL byte is ill formed.
 */
int fold_validate(const struct fold_ctx *ctx, const char *s, size_t n,
		  size_t *bad_offset);

/*
 * fold_normalize - write ctx's form of s into out.
 * Writes at most cap bytes (no NUL terminator is added) and returns the full
 * length of the result, which may exceed cap: call with cap 0 to size a
 * buffer.  Bytes of out past the result (up to cap) may be used as
 * scratch space, so out must not overlap s (no in-place use).  An
 * ill-formed s returns FOLD_EILSEQ and writes nothing, in any context.
 */
ssize_t fold_normalize(const struct fold_ctx *ctx, const char *s, size_t n,
		       char *out, size_t cap);

/*
 * fold_key - the comparison key of a name: its normalized form when well
 * formed; when ill formed, the raw bytes (or FOLD_EILSEQ in a strict
 * context).  Two names are equivalent iff their keys are byte-equal, and
 * memcmp order of keys (shorter prefix first) is fold_cmp()'s order.  Same
 * buffer contract as fold_normalize().
 */
ssize_t fold_key(const struct fold_ctx *ctx, const char *s, size_t n,
		 char *out, size_t cap);

/*
 * fold_cmp - total order consistent with equivalence: 0 iff a and b are
 * equivalent names under ctx, otherwise -1 or 1 as their keys compare.
 * Streams both names without materializing either key; byte-equal names
 * return at once.  Ill-formed names are opaque (see above).  With an
 * invalid argument (bad ctx, NULL with a length) it returns FOLD_EINVAL,
 * which is -1: check arguments first if that matters.
 */
int fold_cmp(const struct fold_ctx *ctx, const char *a, size_t an,
	     const char *b, size_t bn);

/* fold_equal - 1 if equivalent, else 0.  May stop earlier than fold_cmp. */
int fold_equal(const struct fold_ctx *ctx, const char *a, size_t an,
	       const char *b, size_t bn);

/*
 * fold_hash - keyed 64-bit hash (SipHash-1-3) of the name's key, computed
 * while streaming.  Equivalent names hash equal; the ctx (charset, version,
 * form, flags) is mixed in, so hashes from different contexts differ --
 * except FOLD_STRICT, which changes no key and so no hash.
 * Choose a random seed per table to make hash flooding impractical.
 * seed may be NULL (all-zero key); a bad ctx gives 0.
 */
struct fold_seed {
	uint64_t k0, k1;
};
uint64_t fold_hash(const struct fold_ctx *ctx, const struct fold_seed *seed,
		   const char *s, size_t n);

/* NUL-terminated conveniences. */
int fold_validatez(const struct fold_ctx *ctx, const char *s,
		   size_t *bad_offset);
int fold_cmpz(const struct fold_ctx *ctx, const char *a, const char *b);
int fold_equalz(const struct fold_ctx *ctx, const char *a, const char *b);
uint64_t fold_hashz(const struct fold_ctx *ctx, const struct fold_seed *seed,
		    const char *s);
ssize_t fold_normalizez(const struct fold_ctx *ctx, const char *s, char *out,
			size_t cap);
ssize_t fold_keyz(const struct fold_ctx *ctx, const char *s, char *out,
		  size_t cap);

/* Per-code-point queries (for tools and tests).  fold_cp_ccc: code points
 * assigned after ctx's version report class 0.  fold_cp_ccc returns FOLD_EINVAL
 * for a bad ctx or cp > 0x10FFFF, and 0 under "ascii". */
int fold_cp_ccc(const struct fold_ctx *ctx, uint32_t cp);
/* Unicode version in which cp was assigned, as FOLD_UNICODE(), 0 if
 * unassigned at the newest version this build knows. */
uint32_t fold_cp_age(uint32_t cp);

#ifdef __cplusplus
}
#endif
#endif /* FOLD_H */
