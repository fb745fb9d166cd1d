/*
 * fold_stream.h - the streaming normalizer every libfold operation runs on.
 * Internal; included by the .c files that consume the stream (key, compare,
 * hash); the stages themselves are in fold_stream.c.
 *
 * A stream turns a name into its key, a piece at a time, with fixed-size
 * state and no allocation.  Three stages:
 *   1. expand: each input code point becomes its decomposition (canonical
 *      or compatibility) with every resulting code point case folded if
 *      the form folds (fold_data.h has the data model); ignorables are
 *      dropped if asked;
 *   2. order: non-starters are buffered and stably sorted by combining
 *      class when the next starter arrives.  A run longer than
 *      FOLD_SAFE_RUN is cut there (UAX #15 Stream-Safe Text Format: as if
 *      U+034F were inserted; nothing is emitted for the cut), except under
 *      FOLD_KERNEL_ORDER, where the kernel sorts a run whole: fs_long()
 *      emits such a run class by class, one pass over the input for each
 *      class present, as the kernel does (no buffer grows);
 *   3. compose (NFC, NFKC, NFKC_CF only): canonical composition, holding
 *      the last starter and the non-starters that failed to combine.
 * The output of stage 2 or 3 is UTF-8 encoded into out[].
 *
 * The fast lane (fs_fast) skips the stages for input that is its own key
 * or a simple fold, in one loop over ASCII (8 bytes at a time, folded in
 * the folding forms) and such code points, which the trie's lane value
 * classifies (fold_data.h, L_*): inert ones and Hangul syllables in the
 * decomposing forms; quiet ones and simple folds in the composing forms,
 * and in NFKC_CF composed folds (M_CFOLD: capital precomposed letters to
 * their small letter), each final once the next code point cannot
 * combine with it (L_BB).  The
 * stages run only where the lane stops, and it resumes as soon as what
 * they hold is final.
 *
 * The input is checked for well-formedness as it is read; on an
 * ill-formed sequence fs->bad is set and the stream stops: the caller then
 * starts over, streaming the name's raw bytes.
 *
 * The stage functions take the form's "compose" and "fold" properties as
 * arguments that are constants in each of four copies of the fill loop,
 * so each variant compiles to its own straight-line code.
 */
#ifndef FOLD_STREAM_H
#define FOLD_STREAM_H

#include "fold.h"
#include "fold_data.h"

#include <string.h>

#define FOLD_SAFE_RUN 30

enum fs_mode {
	FS_RAW,	  /* ill-formed name: its bytes are its key */
	FS_ASCII, /* ascii charset: bytes, A-Z folded if fold */
	FS_UNI,	  /* UTF-8 at a Unicode version */
	FS_LATER, /* FS_UNI, set up by fs_init_lane() only: the next
		     fs_fill() does the rest (fs_first()'s lane gave
		     enough) */
};

/* Most output one input code point can cause: a flushed run of
 * non-starters, a flushed composition buffer and one expansion.  A fill
 * stops while at least that much room is left. */
#define FS_STEPMAX (4 * (2 * (FOLD_SAFE_RUN + 2) + FOLD_MAXEXP + 4))
#define FS_OUTCAP (FS_STEPMAX + 512)

struct fstream {
	const unsigned char *beg, *p, *end; /* the name; the next byte */
	uint8_t mode, age, compose, ign, nkcf, fold, compat;
	uint8_t ypocls; /* class U+0345's fold U+03B9 is ordered with */
	uint8_t igncut; /* a dropped ignorable ends the run of marks */
	uint8_t done;  /* end of input reached and everything flushed */
	uint8_t bad;   /* met an ill-formed sequence */
	uint8_t level; /* REC_SELF level that makes a code point its own key */
	/* the code point at pk_p, decoded ahead by a look-ahead */
	const unsigned char *pk_p;
	uint32_t pk_cp;
	unsigned pk_len, pk_lv; /* its length (0: ill formed), lane value */
	/* the fast lane gave back the code point here: do not retry it */
	const unsigned char *slow;
	/* stage 2: pending non-starters, sorted on insertion */
	unsigned nns;
	uint32_t ns[FOLD_SAFE_RUN];
	uint16_t nscls[FOLD_SAFE_RUN]; /* ccc | composition list << 8 */
	/* stage 3: the last starter and the marks that did not combine.
	 * The decomposing forms have no stage 3: there left[] holds what
	 * one code point expands to, for fs_long() (FS_CAPTURE) */
	unsigned have_st, nleft;
	unsigned leftcc;
	uint32_t st;
	uint32_t left[FOLD_SAFE_RUN];
	/* FOLD_KERNEL_ORDER in a decomposing form (klong): a run of more
	 * than FOLD_SAFE_RUN marks.  Its first marks are in ns[]; lrn
	 * counts those that did not fit, the last lrn of the code point at
	 * lr_p's expansion, where the rest of the run begins.  lr: the run
	 * is being emitted, a pass over it per class: lr_cls the class of
	 * this pass, lr_next the lowest class above it seen so far, lr_q
	 * the pass's next code point (NULL: the pass has not begun) */
	uint8_t klong, lr;
	unsigned lrn, lr_cls, lr_next;
	const unsigned char *lr_p, *lr_q;
	/* output of the current fill: out[0..outn).  out is buf, or a
	 * caller's buffer with at least FS_OUTCAP bytes of room (fold_key
	 * writes keys in place) */
	unsigned outn;
	unsigned char *out;
	const struct fold_ctx *ctx; /* the stream's context */
	unsigned char buf[FS_OUTCAP];
};

/* Which copy of the fill loop a form runs (fold_stream.c): bit 1, it
 * composes (stage 3); bit 0, it folds.  form is valid (fold_ctx_ok). */
#define FS_VARIANT(compose, fold) ((unsigned)(compose) << 1 | (unsigned)(fold))

static inline unsigned fs_variant(unsigned form)
{
	static const uint8_t v[] = {
		[FOLD_NFD] = FS_VARIANT(0, 0),	    [FOLD_NFC] = FS_VARIANT(1, 0),
		[FOLD_NFKD] = FS_VARIANT(0, 0),	    [FOLD_NFKC] = FS_VARIANT(1, 0),
		[FOLD_CASEFOLD] = FS_VARIANT(0, 1), [FOLD_NFKC_CF] = FS_VARIANT(1, 1),
	};
	return v[form];
}

/* The part of a stream's set-up the fast lane needs (fs_first). */
static inline void fs_init_lane(struct fstream *fs, const struct fold_ctx *ctx,
				const char *s, size_t n)
{
	fs->p = (const unsigned char *)s;
	fs->beg = fs->p;
	fs->end = fs->p + n;
	fs->ctx = ctx;
	fs->done = 0;
	fs->bad = 0;
	fs->have_st = 0;
	fs->outn = 0;
	fs->out = fs->buf;
	fs->age = ctx->age;
	fs->level = ctx->form == FOLD_NFKC_CF ? 3 :
		    ctx->form == FOLD_NFKD || ctx->form == FOLD_NFKC ||
				    (ctx->flags & FOLD_COMPAT) ?
		    2 : 1;
	fs->ign = ctx->form == FOLD_NFKC_CF || (ctx->flags & FOLD_IGNORABLES);
	fs->pk_p = NULL;
	fs->slow = NULL;
}

/* The rest of it. */
static inline void fs_init_rest(struct fstream *fs, const struct fold_ctx *ctx,
				int valid)
{
	unsigned form = ctx->form;
	fs->nns = 0;
	fs->nleft = 0;
	fs->lrn = 0;
	fs->lr = 0;
	fs->fold = fs_variant(form) & 1;
	fs->compat = fs->level > 1;
	fs->compose = fs_variant(form) >> 1;
	fs->nkcf = form == FOLD_NFKC_CF;
	fs->ypocls = (ctx->flags & FOLD_KERNEL_ORDER) ? 0 : 240;
	fs->igncut = fs->ign && !fs->compose &&
		     (ctx->flags & FOLD_KERNEL_ORDER);
	fs->klong = !fs->compose && (ctx->flags & FOLD_KERNEL_ORDER);
	if (!valid)
		fs->mode = FS_RAW;
	else if (ctx->charset == FOLD_CHARSET_ASCII)
		fs->mode = FS_ASCII;
	else
		fs->mode = FS_UNI;
}

/* Set up a stream for s[0..n).  valid = 0: the name is known to be ill
 * formed, stream its bytes; 1: stream its key, checking well-formedness
 * on the way. */
static inline void fs_init(struct fstream *fs, const struct fold_ctx *ctx,
			   const char *s, size_t n, int valid)
{
	fs_init_lane(fs, ctx, s, n);
	fs_init_rest(fs, ctx, valid);
}

/* Internal: keep out of the shared object's ABI, and (for libfold.a,
 * where hidden symbols still link) out of the client's namespace. */
#define fs_fill fold_fs_fill
#define fs_first fold_fs_first
#define fs_key fold_fs_key
#define fs_lead fold_fs_lead
#define fs_head fold_fs_head
#pragma GCC visibility push(hidden)

/*
 * Produce the next piece of the key into fs->out, at least want bytes
 * unless the key ends first; returns its length, 0 once the key is
 * complete (or the stream stopped at an ill-formed sequence: fs->bad).
 */
unsigned fs_fill(struct fstream *fs, unsigned want);

/*
 * fs_init() and the first fs_fill() in one, for a well-formed-or-checked
 * name (valid = 1), with the output going to out (FS_OUTCAP bytes of
 * room) or, if out is NULL, to fs->buf.  A name the fast lane takes
 * whole costs no more set-up than the lane needs.
 */
unsigned fs_first(struct fstream *fs, const struct fold_ctx *ctx,
		  const char *s, size_t n, unsigned want, unsigned char *out);

/*
 * fold_key() for a valid ctx, not strict, and cap >= FS_OUTCAP: the key
 * of a well-formed name whose key is one piece is written in place in
 * one call; any other name goes to fold_key_general() (fold_key.c).
 */
ssize_t fs_key(const struct fold_ctx *ctx, const char *s, size_t n,
	       unsigned char *out, size_t cap);
ssize_t fold_key_general(const struct fold_ctx *ctx, const char *s, size_t n,
			 char *out, size_t cap);

/*
 * The first code point of the canonical decomposition of the key of
 * p[0..e), where the first code point at p decides it; FS_LEAD_END for
 * an empty key (p == e); -1 where it is not decided (or the input there
 * is NUL or ill formed).  Two names whose leads are known and differ
 * have different keys.
 */
#define FS_LEAD_END 0x110000
int32_t fs_lead(const struct fold_ctx *ctx, const unsigned char *p,
		const unsigned char *e);

/*
 * The first code point of the key of p[0..e), where the first code point
 * at p decides it (in the composing forms with the next one, which must
 * not combine with it); -1 where it is not decided (or the input there
 * is NUL or ill formed, or p is e).  Two names whose heads are known and
 * differ have keys that differ there, in the order of the heads.
 */
int32_t fs_head(const struct fold_ctx *ctx, const unsigned char *p,
		const unsigned char *e);

#pragma GCC visibility pop
#endif
