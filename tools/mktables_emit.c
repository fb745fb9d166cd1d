/*
 * mktables_emit.c - encodes the derived data in the layout lib/fold_data.h
 * describes, proves the encoding decodes to the intended data, and writes
 * lib/fold_tables.c.
 *
 * Output is deterministic: only the UCD's contents and version appear in
 * it.  Sizes are reported on stderr.
 */
#include "mktables.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pad a pool run across gaps of at most this many code points, so that
 * the code points on both sides share one descriptor (costs pool bytes,
 * saves records and trie blocks). */
#ifndef PAIR_GAP
#define PAIR_GAP 2
#endif
#ifndef POOL_GAP
#define POOL_GAP 2
#endif

/* ---- an open-addressing set of byte blobs ---------------------------- */

struct blobset {
	size_t cap, n;
	uint32_t *slot;	  /* index+1, 0 = empty */
	const void **key; /* by index */
	size_t *len;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;
	while (n--)
		h = (h ^ *b++) * 1099511628211ull;
	return h;
}

static void bs_init(struct blobset *s, size_t cap)
{
	s->cap = cap;
	s->n = 0;
	s->slot = xcalloc(cap, sizeof(*s->slot));
	s->key = xcalloc(cap, sizeof(*s->key));
	s->len = xcalloc(cap, sizeof(*s->len));
}

/* Index of the blob equal to p[0..n), added (pointer kept) if new. */
static size_t bs_add(struct blobset *s, const void *p, size_t n, int *added)
{
	size_t i = hash_bytes(p, n) & (s->cap - 1);
	*added = 0;
	for (;; i = (i + 1) & (s->cap - 1)) {
		uint32_t k = s->slot[i];
		if (!k)
			break;
		if (s->len[k - 1] == n && !memcmp(s->key[k - 1], p, n))
			return k - 1;
	}
	if (s->n * 2 >= s->cap)
		die("blob set full");
	s->key[s->n] = p;
	s->len[s->n] = n;
	s->slot[i] = (uint32_t)++s->n;
	*added = 1;
	return s->n - 1;
}

/* ---- the encoded tables ---------------------------------------------- */

#define MAX_POOL (1 << 20)
#define MAX_RECS 65536
#define MAX_MAPS 65536
#define MAX_PAIRS 4096
#define MAX_SECONDS 127

static uint8_t pool[MAX_POOL];
static size_t npool, pool_pad;
static struct fold_rec recs[MAX_RECS];	/* packed, as emitted */
static size_t nrec;
static uint32_t maps[MAX_MAPS];
static size_t nmaps;
static uint16_t *rid; /* per index-space position */

static uint32_t seconds[MAX_SECONDS];
static uint16_t sec_info[MAX_SECONDS]; /* fold_sec_info[] (fold_data.h) */
static uint8_t sec_kind[MAX_SECONDS];  /* build_pairs(): its composites */
static int nseconds;
static uint8_t sec_of_cp[NCP];	 /* 1 + index into seconds[] */
static uint8_t list_of_cp[NCP];	 /* 1 + composition list number */
static int ncompsec;
static int ncompab; /* lists 1..ncompab have fold_comp_abits[] */
static uint16_t pair_of_cp[NCP]; /* 1 + index into pairs[] */
static uint32_t pairs[MAX_PAIRS];
static size_t npairs;
static uint16_t comp_start[MAX_SECONDS + 1];
static uint64_t comp_abits[MAX_SECONDS]; /* fold_comp_abits[] */
static uint32_t comp[MAX_PAIRS];
static size_t ncomp;
static int maxchain;

static uint8_t *age_runs;
static size_t nage_runs;
static uint16_t age_index[NCP >> 14], age_skip[NCP >> 14];

static uint8_t top[FOLD_NIDX >> FOLD_S1];
static uint16_t *mid;
static size_t nmid;
static uint16_t *leaf;
static size_t nleaf;

static int32_t index_of(uint32_t cp)
{
	uint32_t i = fold_idx(cp);
	return i < FOLD_NIDX ? (int32_t)i : -1;
}

static int utf8(uint32_t c, uint8_t *o)
{
	if (c < 0x80) {
		o[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (uint8_t)(0xC0 | c >> 6);
		o[1] = (uint8_t)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (uint8_t)(0xE0 | c >> 12);
		o[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (uint8_t)(0x80 | (c & 0x3F));
		return 3;
	}
	o[0] = (uint8_t)(0xF0 | c >> 18);
	o[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
	o[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
	o[3] = (uint8_t)(0x80 | (c & 0x3F));
	return 4;
}

static int seq_utf8(const struct seq *s, uint8_t *o)
{
	int i, n = 0;
	for (i = 0; i < s->n; i++)
		n += utf8(s->c[i], o + n);
	return n;
}

/* The three stored fields of a code point (NULL = absent). */
static const struct seq *field_seq(int f, uint32_t cp)
{
	const struct seq *d = U.clo[K_D][cp];
	if (!U.age[cp])
		return NULL;
	switch (f) {
	case 0:
		return d;
	case 3: /* D as pool/delta: not for pairs */
		return pair_of_cp[cp] ? NULL : d;
	case 1:
		if (U.clo[K_KD][cp] && (!d || !seq_eq(d, U.clo[K_KD][cp])))
			return U.clo[K_KD][cp];
		return NULL;
	default:
		return d ? NULL : U.clo[K_CF][cp];
	}
}

/* How often each single-code-point delta occurs in a field. */
static uint16_t *delta_count;
#define DELTA_SLOT(d) ((uint32_t)((d) + (1 << 21)))

static int single_delta(int f, uint32_t cp, int32_t *delta)
{
	const struct seq *s;
	if (cp > MAX_CP)
		return 0;
	s = field_seq(f, cp);
	if (!s || s->n != 1)
		return 0;
	*delta = (int32_t)s->c[0] - (int32_t)cp;
	return 1;
}

/* A single code point whose delta no other code point shares. */
static int lone_single(int f, uint32_t cp, int *len)
{
	int32_t d;
	uint8_t b[4];
	if (!single_delta(f, cp, &d) || delta_count[DELTA_SLOT(d)] > 1)
		return 0;
	*len = utf8(field_seq(f, cp)->c[0], b);
	return 1;
}

/* Choose and build the descriptor of field f for every code point, in
 * code point order so pool runs are contiguous.  Records are shared
 * globally, so a single code point is a delta when its delta recurs
 * anywhere (case pairs, math alphanumerics); a delta nobody shares is a
 * pool slice when a neighbour is one too, so the run shares one
 * descriptor (CJK compatibility ideographs, Kangxi radicals). */
static uint32_t *build_field(int f)
{
	uint32_t *desc = xcalloc(NCP, sizeof(*desc));
	uint32_t cp, prev_cp = 0;
	size_t prev_off = 0;
	int prev_len = 0, prev_pool = 0;
	int32_t d;
	if (!delta_count)
		delta_count = xcalloc(1u << 22, sizeof(*delta_count));
	memset(delta_count, 0, (1u << 22) * sizeof(*delta_count));
	for (cp = 0; cp <= MAX_CP; cp++)
		if (single_delta(f, cp, &d)) {
			if (d < -(1 << 19) || d >= (1 << 19))
				die("delta of U+%04X out of range", cp);
			if (delta_count[DELTA_SLOT(d)] < 0xFFFF)
				delta_count[DELTA_SLOT(d)]++;
		}
	for (cp = 0; cp <= MAX_CP; cp++) {
		const struct seq *s = field_seq(f, cp);
		uint8_t b[4 * SEQ_MAX];
		int len, l1, l2;
		if (!s)
			continue;
		if (f == 2 && s->n == 1 &&
		    (U.ccc[s->c[0]] || list_of_cp[s->c[0]]))
			die("fold target of U+%04X is not a plain starter", cp);
		if (single_delta(f, cp, &d) &&
		    (!lone_single(f, cp, &len) ||
		     !((cp && lone_single(f, cp - 1, &l1) && l1 == len) ||
		       (lone_single(f, cp + 1, &l2) && l2 == len)))) {
			desc[cp] = M_DELTA << 20 | ((uint32_t)d & 0xFFFFFu);
			continue;
		}
		len = seq_utf8(s, b);
		if (len > 0x3F)
			die("mapping of U+%04X too long", cp);
		if (prev_pool && prev_len == len && cp - prev_cp <= POOL_GAP + 1) {
			/* keep rel: pad over the gap */
			size_t want = prev_off + (cp - prev_cp) * (size_t)len;
			while (npool < want) {
				pool[npool++] = 0;
				pool_pad++;
			}
		}
		if (npool + (size_t)len > FOLD_POOL_MAX)
			die("pool exceeds FOLD_POOL_MAX");
		memcpy(pool + npool, b, (size_t)len);
		desc[cp] = M_POOL << 20 | (uint32_t)len << 14 |
			   ((uint32_t)(npool - cp * (uint32_t)len) & 0x3FFFu);
		prev_cp = cp;
		prev_off = npool;
		prev_len = len;
		prev_pool = 1;
		npool += (size_t)len;
	}
	return desc;
}

static int is_pair(uint32_t cp)
{
	const struct seq *d = U.dec[cp];
	return U.age[cp] && d && !U.dec_compat[cp] && d->n == 2 &&
	       !(cp >= SBASE && cp < SBASE + SCOUNT);
}

/* A pair that canonical composition makes (a primary composite). */
static int is_primary(uint32_t cp)
{
	return is_pair(cp) && !U.fce[cp];
}

/* Every two-code-point canonical decomposition becomes a pair, in
 * composite order; composition lists index them by second element. */
static void build_pairs(void)
{
	uint32_t cp, last_pair = 0;
	size_t i, j;
	int s, l;
	for (cp = 0; cp <= MAX_CP; cp++) {
		uint32_t second;
		if (!is_pair(cp))
			continue;
		second = U.dec[cp]->c[1];
		if (!sec_of_cp[second]) {
			if (nseconds == MAX_SECONDS)
				die("too many second elements");
			seconds[nseconds++] = second;
			sec_of_cp[second] = 1;
		}
	}
	for (i = 1; i < (size_t)nseconds; i++)
		for (j = i; j > 0 && seconds[j - 1] > seconds[j]; j--) {
			uint32_t t = seconds[j];
			seconds[j] = seconds[j - 1];
			seconds[j - 1] = t;
		}
	for (s = 0; s < nseconds; s++) {
		if (U.dec[seconds[s]] || (seconds[s] >= SBASE &&
					  seconds[s] < SBASE + SCOUNT))
			die("second element U+%04X decomposes", seconds[s]);
		sec_of_cp[seconds[s]] = (uint8_t)(s + 1);
		if (U.age[seconds[s]] > 0x1F)
			die("age of U+%04X does not fit", seconds[s]);
		sec_info[s] = (uint16_t)(U.ccc[seconds[s]] |
					 (field_seq(2, seconds[s]) ? S_FOLDS : 0) |
					 U.age[seconds[s]] << S_AGESHIFT);
	}
	for (cp = 0; cp <= MAX_CP; cp++) {
		const struct seq *d = U.dec[cp];
		uint32_t c;
		int depth;
		if (!is_pair(cp))
			continue;
		/* Pad short gaps with unused entries so that the pairs on
		 * both sides keep one relative index (one record). */
		if (npairs && cp - last_pair - 1 <= PAIR_GAP)
			while (last_pair + 1 < cp) {
				pairs[npairs++] = 0;
				last_pair++;
			}
		last_pair = cp;
		if (npairs >= MAX_PAIRS - PAIR_GAP || npairs > 0xFFFF)
			die("too many pairs");
		if (d->c[0] > 0x1FFFF)
			die("first element U+%04X too large", d->c[0]);
		pairs[npairs] = d->c[0] |
				(uint32_t)(sec_of_cp[d->c[1]] - 1) << 17;
		pair_of_cp[cp] = (uint16_t)++npairs;
		for (depth = 1, c = d->c[0]; is_pair(c); c = U.dec[c]->c[0])
			depth++;
		if (depth > maxchain)
			maxchain = depth;
	}
	if (maxchain > FOLD_MAXCHAIN)
		die("pair chain of %d exceeds FOLD_MAXCHAIN", maxchain);
	/* composition lists: primary composites only, one per second
	 * element that has any: first those with a first element in
	 * U+0040..U+007F (they alone need fold_comp_abits), then the others,
	 * each group in code point order; the seconds after the first
	 * FOLD_COMP_SHARED - 1 share the last list (REC_SEC is 6 bits).
	 * REC_SEC numbers these lists. */
	/* per second: 1 if it has composites, | 2 if one has a first element
	 * in U+0040..U+007F */
	for (cp = 0; cp <= MAX_CP; cp++)
		if (is_primary(cp))
			sec_kind[sec_of_cp[U.dec[cp]->c[1]] - 1] |=
				(uint8_t)(1 | (U.dec[cp]->c[0] - FOLD_COMP_ALO < 64u) << 1);
	for (l = 0; l < 2; l++)
		for (s = 0; s < nseconds; s++) {
			int ascii = sec_kind[s] >> 1;
			if (!sec_kind[s] || ascii != !l)
				continue;
			list_of_cp[seconds[s]] =
				(uint8_t)(ncompsec < FOLD_COMP_SHARED ? ++ncompsec :
									FOLD_COMP_SHARED);
			if (ascii && ncompsec == FOLD_COMP_SHARED)
				die("too many composition lists with first "
				    "elements in U+%04X..U+%04X", FOLD_COMP_ALO,
				    FOLD_COMP_ALO + 63);
			if (ascii)
				ncompab = ncompsec;
		}
	if (ncompab != FOLD_COMP_NABITS)
		die("FOLD_COMP_NABITS should be %d: the composition lists with "
		    "first elements in U+%04X..U+%04X", ncompab, FOLD_COMP_ALO,
		    FOLD_COMP_ALO + 63);
	for (l = 1; l <= ncompsec; l++) {
		comp_start[l - 1] = (uint16_t)ncomp;
		for (cp = 0; cp <= MAX_CP; cp++) {
			uint32_t a, f, sc, si;
			if (!is_primary(cp) || list_of_cp[U.dec[cp]->c[1]] != l)
				continue;
			/* composable from when all three are assigned */
			sc = U.dec[cp]->c[1];
			si = (uint32_t)sec_of_cp[sc] - 1;
			a = U.age[cp];
			f = U.dec[cp]->c[0];
			if (U.age[f] > a)
				a = U.age[f];
			if (U.age[sc] > a)
				a = U.age[sc];
			if (pair_of_cp[cp] - 1 > 0x7FF || (cp >> 16) != (f >> 16))
				die("composite U+%04X does not fit", cp);
			/* insertion by first element, then second */
			for (j = ncomp; j > comp_start[l - 1]; j--) {
				uint32_t q = pairs[C_PAIR(comp[j - 1])];
				if (P_FIRST(q) < f ||
				    (P_FIRST(q) == f && P_SECOND(q) < si))
					break;
				comp[j] = comp[j - 1];
			}
			comp[j] = (uint32_t)(pair_of_cp[cp] - 1) | a << 11 |
				  (cp & 0xFFFF) << 16;
			ncomp++;
		}
	}
	comp_start[ncompsec] = (uint16_t)ncomp;
	/* each list's first elements U+0040..U+007F as a bitmap; they
	 * must be the list's first entries (it is sorted: none below); the
	 * lists after the first ncompab have none */
	for (s = 0; s < ncompab; s++) {
		for (j = comp_start[s]; j < comp_start[s + 1]; j++) {
			uint32_t f = P_FIRST(pairs[C_PAIR(comp[j])]);
			if (f - FOLD_COMP_ALO < 64u)
				comp_abits[s] |= 1ull << (f - FOLD_COMP_ALO);
		}
		if (comp_abits[s] &&
		    P_FIRST(pairs[C_PAIR(comp[comp_start[s]])]) < FOLD_COMP_ALO)
			die("composition list %d mixes first elements below "
			    "U+0040 with U+0040..U+007F", s + 1);
	}
}

/* The keys of the composites below FOLD_DKEY_HI in the decomposing forms,
 * whole (fold_dkey[], fold_data.h).  An entry is left 0 (the lane walks
 * the pairs) unless the key is a starter that does not decompose followed
 * by marks in canonical order, in at most DK_MAXLEN bytes. */
static uint64_t dkey[FOLD_NDKEY];

static uint64_t dkey_of(uint32_t cp)
{
	const struct seq *d = U.clo[K_D][cp], *bf;
	uint8_t b[8] = { 0 };
	uint32_t base = d->c[0];
	uint64_t k = 0, f;
	int i, n, age = 0, mfold = 0;
	if (U.ccc[base] || U.dec[base] || d->n < 2 || d->n > 4)
		return 0;
	n = utf8(base, b);
	for (i = 1; i < d->n; i++) {
		uint32_t m = d->c[i];
		uint8_t mb[4];
		int ml;
		if (!U.ccc[m] || U.dec[m] || U.ccc[m] < U.ccc[d->c[i - 1]])
			return 0;
		if (U.clo[K_CF][m])
			mfold = 1;
		if (U.age[m] > age)
			age = U.age[m];
		ml = utf8(m, mb);
		if (n + ml > DK_MAXLEN)
			return 0;
		memcpy(b + n, mb, (size_t)ml);
		n += ml;
	}
	/* folded: the same if nothing folds; an ASCII capital base is one
	 * bit away; a two-byte capital base 32 code points (Greek, Cyrillic:
	 * U+0391 -> U+03B1, U+0418 -> U+0438) */
	bf = U.clo[K_CF][base];
	if (mfold)
		f = 0;
	else if (!bf)
		f = DK_FOLDS_SAME;
	else if (base - 'A' < 26u && bf->n == 1 && bf->c[0] == base + 32)
		f = DK_FOLDS_SAME | DK_ASCII_CAP;
	else if (base >= 0x80 && base + 32 < FOLD_DIRECT && bf->n == 1 &&
		 bf->c[0] == base + 32 && !U.ccc[base + 32] &&
		 !U.dec[base + 32])
		f = DK_FOLD32;
	else
		f = 0;
	for (i = 0; i < DK_MAXLEN; i++)
		k |= (uint64_t)b[i] << (8 * i);
	return k | (uint64_t)n << DK_LENSHIFT |
	       (uint64_t)(d->n - 1) << DK_MARKSHIFT |
	       (uint64_t)age << DK_AGESHIFT | f | DK_VALID;
}

static void build_dkeys(void)
{
	uint32_t cp;
	unsigned n = 0;
	for (cp = 0; cp < FOLD_DKEY_HI; cp++)
		if (pair_of_cp[cp])
			n = pair_of_cp[cp]; /* pairs are in composite order */
	if (n != FOLD_NDKEY)
		die("FOLD_NDKEY should be %u, the pairs below U+%04X", n,
		    FOLD_DKEY_HI);
	for (cp = 0; cp < FOLD_DKEY_HI; cp++)
		if (pair_of_cp[cp])
			dkey[pair_of_cp[cp] - 1] = dkey_of(cp);
}

/* ---- quick-check levels ---------------------------------------------- */

static int ccc_at(uint32_t c, int v)
{
	return U.age[c] && U.age[c] <= v ? U.ccc[c] : 0;
}

/* Primary composite of a + b at version v (all three assigned), or 0. */
static uint32_t compose_at(uint32_t a, uint32_t b, int v)
{
	int s = list_of_cp[b], j;
	if (v >= U.age[SBASE]) {
		if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE &&
		    b < VBASE + VCOUNT)
			return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) *
					       TCOUNT;
		if (a >= SBASE && a < SBASE + SCOUNT &&
		    (a - SBASE) % TCOUNT == 0 && b > TBASE &&
		    b < TBASE + TCOUNT)
			return a + (b - TBASE);
	}
	if (!s)
		return 0;
	/* the second too: seconds past FOLD_COMP_SHARED - 1 share a list
	 * (none up to 15.1; at 17.0 U+114B9 pairs with U+114B0 there and with
	 * U+114BA) */
	for (j = comp_start[s - 1]; j < comp_start[s]; j++) {
		uint32_t q = pairs[C_PAIR(comp[j])];
		if (P_FIRST(q) == a && P_SECOND(q) == sec_of_cp[b] - 1u)
			return C_AGE(comp[j]) <= (uint32_t)v ?
				       (a & 0xF0000) | C_LOW(comp[j]) : 0;
	}
	return 0;
}

/* Reference NFC composition of a canonically ordered sequence at v
 * (UAX #15 D117), in place. */
static void compose_seq(struct seq *s, int v)
{
	int i, o = 0, st = -1, last = -1;
	for (i = 0; i < s->n; i++) {
		uint32_t c = s->c[i], comp;
		int cc = ccc_at(c, v);
		/* c combines unless something between it and the starter
		 * is a starter or has a class >= its own */
		if (st >= 0 && (o == st + 1 || (last && last < cc)) &&
		    (comp = compose_at(s->c[st], c, v)) != 0) {
			s->c[st] = comp;
			continue;
		}
		if (cc == 0)
			st = o;
		last = cc;
		s->c[o++] = c;
	}
	s->n = o;
}

/* Is the form's key of cp (expanded by the reference closure of kind,
 * ignorables dropped if ign) cp itself at every version from its age? */
static int self_at_all(uint32_t cp, int kind, int ign)
{
	int v;
	for (v = U.age[cp]; v <= U.nversions; v++) {
		struct seq s;
		ref_closure(kind, cp, v, ign, &s);
		canon_order(&s, v);
		compose_seq(&s, v);
		if (s.n != 1 || s.c[0] != cp)
			return 0;
	}
	return 1;
}

/* Does a NormalizationCorrections entry or a composition exclusion name
 * cp?  Such code points never take the fast lanes. */
static int corrected_or_excluded(uint32_t cp)
{
	int k;

	for (k = 0; k < U.ncorr; k++)
		if (U.corr_cp[k] == cp)
			return 1;
	for (k = 0; k < U.nexc; k++)
		if (U.exc_cp[k] == cp)
			return 1;
	return 0;
}

/* Can c combine with something before it at version v: is it a mark,
 * somebody's second element or a conjoining jamo? */
static int combines_back(uint32_t c, int v)
{
	return ccc_at(c, v) || list_of_cp[c] || c - 0x1100u < 0x100u;
}

/* Can cp combine with what precedes it through the first code point of
 * its canonical decomposition at some version (combines_back)?  Up to
 * Unicode 15.1 no code point that is its own key has such a
 * decomposition (their tables are the same without this test); 16.0
 * brought U+16121 = U+1611E U+1611E, where U+1611E is also that pair's
 * second, so U+1611E U+16121 composes to U+16121 U+1611E. */
static int leads_with_second(uint32_t cp)
{
	int v;
	for (v = U.age[cp]; v <= U.nversions; v++) {
		struct seq s;
		uint32_t c;
		ref_closure(K_D, cp, v, 0, &s);
		canon_order(&s, v);
		c = s.n ? s.c[0] : cp;
		if (c != cp && combines_back(c, v))
			return 1;
	}
	return 0;
}

static int self_level(uint32_t cp)
{
	if (!U.age[cp] || U.ccc[cp] || list_of_cp[cp] || U.di[cp] ||
	    (cp >= SBASE && cp < SBASE + SCOUNT))
		return 0;
	if (corrected_or_excluded(cp) || leads_with_second(cp))
		return 0;
	if (!self_at_all(cp, K_D, 0))
		return 0;
	if (!self_at_all(cp, K_KD, 0))
		return 1;
	if (!self_at_all(cp, K_CFK, 1))
		return 2;
	return 3;
}

/* Deltas of the composed folds (fold_data.h, M_CFOLD): code k names
 * cdelta[k]; 0 is "none". */
static uint32_t cdelta[16];
static unsigned ncdelta = 1;

static int boundary_before(uint32_t cp);

/* The M_CFOLD code of cp: nonzero if cp is an assigned starter, nobody's
 * second element, with a boundary before it, whose NFKC_CF key at every
 * version from its age is one other code point t that is quiet at level
 * 3 (its own key at every version, combining with nothing before it).
 * Capital precomposed letters are the bulk of these (U+00C9 -> U+00E9). */
static unsigned cfold_code(uint32_t cp)
{
	uint32_t t = 0;
	int32_t d;
	unsigned k;
	int v;
	if (!U.age[cp] || U.ccc[cp] || list_of_cp[cp] || U.di[cp] ||
	    corrected_or_excluded(cp) || !boundary_before(cp))
		return 0;
	for (v = U.age[cp]; v <= U.nversions; v++) {
		struct seq s;
		ref_closure(K_CFK, cp, v, 1, &s);
		canon_order(&s, v);
		compose_seq(&s, v);
		if (s.n != 1 || s.c[0] == cp || (t && s.c[0] != t))
			return 0;
		t = s.c[0];
	}
	if (self_level(t) != 3 || U.age[t] > U.age[cp])
		return 0;
	d = (int32_t)t - (int32_t)cp;
	for (k = 1; k < ncdelta; k++)
		if (cdelta[k] == (uint32_t)d)
			return k;
	if (ncdelta == 16)
		return 0; /* out of codes: the general path does it */
	cdelta[ncdelta] = (uint32_t)d;
	return ncdelta++;
}

static void build_records(void)
{
	uint32_t *desc[3];
	struct blobset recset, mapset;
	uint32_t cp;
	int f;
	for (f = 0; f < 3; f++) {
		size_t before = npool;
		desc[f] = build_field(f ? f : 3);
		fprintf(stderr, "mktables: field %d pool %zu bytes (%zu padding)\n",
			f, npool - before, pool_pad);
		pool_pad = 0;
	}
	bs_init(&recset, 1 << 16);
	bs_init(&mapset, 1 << 16);
	rid = xcalloc(FOLD_NIDX, sizeof(*rid));
	memset(&recs[0], 0, sizeof(recs[0]));
	{
		int added;
		bs_add(&recset, &recs[0], sizeof(recs[0]), &added);
	}
	nrec = 1; /* record 0: no data */
	nmaps = 0;
	for (cp = 0; cp <= MAX_CP; cp++) {
		struct fold_rec r;
		uint32_t group[3], m = 0, fields = 0, sec = 0;
		unsigned af = 0;
		int ng = 0, added, k;
		size_t idx;
		memset(&r, 0, sizeof(r));
		if (U.age[cp]) {
			r.ccc = U.ccc[cp];
			for (f = 0; f < 3; f++)
				if (field_seq(f, cp)) {
					fields |= 1u << f;
					if (!f && pair_of_cp[cp])
						desc[0][cp] =
							M_PAIR << 20 |
							((pair_of_cp[cp] - 1 -
							  cp) & 0xFFFFu);
					group[ng++] = desc[f][cp];
				}
			sec = list_of_cp[cp];
		}
		if (U.di[cp])
			af |= A_DI;
		for (k = 0; k < U.ncorr; k++)
			if (U.corr_cp[k] == cp)
				af |= A_SPECIAL;
		for (k = 0; k < U.nexc; k++)
			if (U.exc_cp[k] == cp)
				af |= A_SPECIAL;
		if (!r.ccc && !af && !fields && !sec)
			continue; /* no data: record 0 */
		af |= U.age[cp];
		if (index_of(cp) < 0)
			die("U+%04X has data outside the trie's index space",
			    cp);
		if (ng == 1) {
			m = group[0];
			if (fields == F_D && M_TYPE(m) == M_PAIR &&
			    !(af & (A_DI | A_SPECIAL)) &&
			    !r.ccc && !sec)
				m |= cfold_code(cp) << 16;
		} else if (ng) {
			uint32_t *g = xcalloc((size_t)ng, sizeof(*g));
			memcpy(g, group, (size_t)ng * sizeof(*g));
			idx = bs_add(&mapset, g, (size_t)ng * sizeof(*g),
				     &added);
			if (added) {
				if (nmaps + (size_t)ng > MAX_MAPS)
					die("too many descriptors");
				memcpy(maps + nmaps, g, (size_t)ng * sizeof(*g));
				mapset.key[idx] = maps + nmaps;
				nmaps += (size_t)ng;
			}
			free(g);
			m = M_MULTI << 20 |
			    (uint32_t)((const uint32_t *)mapset.key[idx] - maps);
		}
		{
			unsigned lvl = (unsigned)self_level(cp);
			af |= (lvl & 1) << 7;
			r.af = (uint8_t)af;
			r.lo = (uint16_t)(m & 0xFFFF);
			r.hi = (uint16_t)(m >> 16 | fields << 6 | sec << 9 |
					  (lvl & 2) << 14);
		}
		memcpy(&recs[nrec], &r, sizeof(r));
		idx = bs_add(&recset, &recs[nrec], sizeof(r), &added);
		if (added && ++nrec >= MAX_RECS)
			die("too many records");
		rid[index_of(cp)] = (uint16_t)idx;
	}
	for (f = 0; f < 3; f++)
		free(desc[f]);
}

/* Does the key of cp start with a starter that is nobody's second
 * element (and is no conjoining jamo), in every composing form at every
 * version?  Then nothing before cp combines with anything of its key. */
static int boundary_before(uint32_t cp)
{
	static const int kinds[3] = {K_D, K_KD, K_CFK};
	int v, k;
	if (corrected_or_excluded(cp))
		return 0;
	for (v = 1; v <= U.nversions; v++)
		for (k = 0; k < 3; k++) {
			struct seq s;
			ref_closure(kinds[k], cp, v, kinds[k] == K_CFK, &s);
			canon_order(&s, v);
			if (!s.n)
				return 0;
			if (combines_back(s.c[0], v))
				return 0;
		}
	return 1;
}

/* Turn rid[] into lane values (fold_data.h, L_*): the record number with
 * the fast lanes' bits, all derived from the record, so the trie keeps
 * its blocks. */
static void add_lane_bits(void)
{
	uint32_t i;
	if (nrec > L_RID + 1)
		die("%zu records do not fit the lane value's L_RID", nrec);
	for (i = 0; i < FOLD_NIDX; i++) {
		uint32_t cp = i < 0x30000u ? i : i + 0xB0000u;
		unsigned v = rid[i];
		const struct fold_rec *r = &recs[v];
		if (!v) {
			if (cp - 0x1100u < 0x100u)
				v = L_HANGUL; /* conjoining jamo: not quiet */
			else if (cp - SBASE < SCOUNT)
				v = L_HANGUL | L_PLAIN;
			else
				v = L_PLAIN;
		} else {
			v |= REC_SELF(r) << L_QSHIFT;
			if (boundary_before(cp))
				v |= L_BB;
			if (REC_FIELDS(r) == F_F &&
			    M_TYPE(REC_DESC(r)) == M_DELTA && !r->ccc &&
			    !(r->af & (A_DI | A_SPECIAL)) && !REC_SEC(r))
				v |= L_SFOLD;
		}
		rid[i] = (uint16_t)v;
	}
}

/* ---- trie ------------------------------------------------------------- */

/* Place a block in the leaf array: reuse an equal run anywhere, else
 * overlap the array's tail as far as possible. */
static size_t place(uint16_t *arr, size_t *n, const uint16_t *blk, size_t bn)
{
	size_t i, k;
	for (i = 0; i + bn <= *n; i++)
		if (!memcmp(arr + i, blk, bn * sizeof(*blk)))
			return i;
	for (k = bn - 1; k > 0; k--)
		if (k <= *n && !memcmp(arr + *n - k, blk, k * sizeof(*blk)))
			break;
	memcpy(arr + *n, blk + k, (bn - k) * sizeof(*blk));
	*n += bn - k;
	return *n - bn;
}

/* Build the trie for shifts s1/s2; returns its size in bytes, and
 * keeps the arrays when keep is set. */
static size_t build_trie(int s1, int s2, int keep)
{
	size_t nm = (size_t)1 << (s1 - s2), nl = (size_t)1 << s2;
	size_t ntop = FOLD_NIDX >> s1, nmids = 0, nlf = 0, t, m, bytes;
	uint16_t *lf = xcalloc(FOLD_NIDX, sizeof(*lf));
	uint16_t *md = xcalloc(FOLD_NIDX, sizeof(*md));
	size_t *tp = xcalloc(ntop, sizeof(*tp));
	size_t *offs = xcalloc(FOLD_NIDX, sizeof(*offs));
	struct blobset seen;
	bs_init(&seen, 1 << 16);
	for (t = 0; t < ntop; t++) {
		uint16_t *cur = md + nmids * nm;
		size_t j;
		/* the first mid blocks stay unshared and in order, so that
		 * fold_mid can be indexed directly below FOLD_DIRECT */
		int direct = (t << s1) < FOLD_DIRECT;
		for (m = 0; m < nm; m++) {
			const uint16_t *blk = rid + (t * nm + m) * nl;
			int added;
			size_t b = bs_add(&seen, blk, nl * sizeof(*blk), &added);
			size_t off = added ? place(lf, &nlf, blk, nl) : offs[b];
			offs[b] = off;
			if (off > 0xFFFF)
				die("leaf array too long");
			cur[m] = (uint16_t)off;
		}
		for (j = direct ? nmids : 0; j < nmids; j++)
			if (j >= (FOLD_DIRECT >> s1) &&
			    !memcmp(md + j * nm, cur, nm * sizeof(*cur)))
				break;
		if (j == nmids)
			nmids++;
		tp[t] = j;
	}
	bytes = ntop * (nmids > 256 ? 2 : 1) + nmids * nm * 2 + nlf * 2;
	if (keep) {
		if (nmids > 256)
			die("too many mid blocks for uint8_t fold_top");
		for (t = 0; t < ntop; t++)
			top[t] = (uint8_t)tp[t];
		mid = md;
		nmid = nmids * nm;
		leaf = lf;
		nleaf = nlf;
	} else {
		free(md);
		free(lf);
	}
	free(tp);
	free(offs);
	free(seen.slot);
	free(seen.key);
	free(seen.len);
	return bytes;
}

static void build_ages(void)
{
	uint32_t cp = 0;
	age_runs = xcalloc(NCP, 1);
	while (cp <= MAX_CP) {
		uint32_t end = cp, n;
		while (end < MAX_CP && U.age[end + 1] == U.age[cp] &&
		       end - cp < 0xFFFF)
			end++;
		n = end - cp; /* length - 1 */
		/* record index entries for chunks starting inside this run */
		{
			uint32_t c;
			for (c = (cp + 0x3FFF) & ~0x3FFFu; c <= end; c += 0x4000) {
				age_index[c >> 14] = (uint16_t)nage_runs;
				age_skip[c >> 14] = (uint16_t)(c - cp);
			}
		}
		if (nage_runs + 4 > 0xFFFF)
			die("age runs too long");
		/* fold_data.h has the format: most runs are short, and
		 * nearly all the rest shorter than 262 */
		if (n < 7) {
			age_runs[nage_runs++] = (uint8_t)(U.age[cp] << 3 | n);
		} else if (n - 7 < 0xFF) {
			age_runs[nage_runs++] = (uint8_t)(U.age[cp] << 3 | 7);
			age_runs[nage_runs++] = (uint8_t)(n - 7);
		} else {
			age_runs[nage_runs++] = (uint8_t)(U.age[cp] << 3 | 7);
			age_runs[nage_runs++] = 0xFF;
			age_runs[nage_runs++] = (uint8_t)(n & 0xFF);
			age_runs[nage_runs++] = (uint8_t)(n >> 8);
		}
		cp = end + 1;
	}
}

/* ---- decoding, exactly as the run time does -------------------------- */

static unsigned dec_lane(uint32_t cp);

/* Record number, as fold_rid() reads it. */
static unsigned dec_rid(uint32_t cp)
{
	return dec_lane(cp) & L_RID;
}

static unsigned dec_lane(uint32_t cp)
{
	uint32_t i = fold_idx(cp);
	unsigned m, off;
	if (cp < FOLD_DIRECT) {
		if (top[cp >> FOLD_S1] != cp >> FOLD_S1)
			die("direct mid blocks out of order");
		return leaf[mid[cp >> FOLD_S2] + (cp & ((1u << FOLD_S2) - 1))];
	}
	if (cp >= FOLD_EMPTY_LO && cp < FOLD_EMPTY_HI) {
		if (rid[cp] != L_PLAIN)
			die("U+%04X has data in the empty range", cp);
		return L_PLAIN;
	}
	if (i >= FOLD_NIDX)
		return L_PLAIN;
	m = top[i >> FOLD_S1];
	off = mid[m << (FOLD_S1 - FOLD_S2) |
		  ((i >> FOLD_S2) & ((1u << (FOLD_S1 - FOLD_S2)) - 1))];
	return leaf[off + (i & ((1u << FOLD_S2) - 1))];
}

/* Append descriptor m of cp (a delta or pool slice) to out. */
static void dec_desc(uint32_t m, uint32_t cp, struct seq *out)
{
	if (M_TYPE(m) == M_POOL) {
		const uint8_t *p = pool + M_OFF(m, cp), *e = p + M_LEN(m);
		if (M_OFF(m, cp) + M_LEN(m) > npool)
			die("pool slice out of range");
		while (p < e) {
			uint32_t c = *p++;
			int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0;
			if (more)
				c &= 0x3F >> more;
			while (more--)
				c = c << 6 | (*p++ & 0x3F);
			out->c[out->n++] = c;
		}
	} else if (M_TYPE(m) == M_DELTA) {
		out->c[out->n++] = (uint32_t)((int32_t)cp + M_SDELTA(m));
	} else {
		die("unexpected descriptor type");
	}
}

/* Descriptor of field f of cp, or 0 with *has = 0. */
static uint32_t dec_field(int f, uint32_t cp, int *has)
{
	const struct fold_rec *r = &recs[dec_rid(cp)];
	uint32_t fields = REC_FIELDS(r), m = REC_DESC(r);
	int i, k = 0;
	*has = !!(fields & (1u << f));
	if (!*has)
		return 0;
	if (M_TYPE(m) != M_MULTI)
		return m;
	for (i = 0; i < f; i++)
		if (fields & (1u << i))
			k++;
	return maps[M_INDEX(m) + (unsigned)k];
}

/* Full canonical decomposition by the run time's method: follow pair
 * first elements, then the base's own slice, then the seconds. */
static void dec_d(uint32_t cp, struct seq *out)
{
	uint32_t stack[FOLD_MAXCHAIN], m;
	int n = 0, has;
	for (;;) {
		m = dec_field(0, cp, &has);
		if (!has || M_TYPE(m) != M_PAIR)
			break;
		{
			uint32_t p = pairs[M_PAIRIDX(m, cp)];
			stack[n++] = seconds[P_SECOND(p)];
			cp = P_FIRST(p);
		}
	}
	if (has)
		dec_desc(m, cp, out);
	else
		out->c[out->n++] = cp;
	while (n)
		out->c[out->n++] = stack[--n];
}

/* The run time's two-step expansion at the newest version. */
static void dec_expand(int kind, uint32_t cp, struct seq *out)
{
	int fold = kind == K_CF || kind == K_CFK;
	int compat = kind == K_KD || kind == K_CFK;
	struct seq base;
	uint32_t m;
	int i, has;
	out->n = 0;
	base.n = 0;
	m = dec_field(1, cp, &has);
	if (compat && has) {
		dec_desc(m, cp, &base);
	} else {
		dec_field(0, cp, &has);
		if (has) {
			dec_d(cp, &base);
		} else {
			m = dec_field(2, cp, &has);
			if (fold && has)
				dec_desc(m, cp, out);
			else
				out->c[out->n++] = cp;
			return;
		}
	}
	for (i = 0; i < base.n; i++) {
		m = dec_field(2, base.c[i], &has);
		if (fold && has)
			dec_desc(m, base.c[i], out);
		else
			out->c[out->n++] = base.c[i];
	}
}

static void verify(void)
{
	uint32_t cp;
	int k;
	for (cp = 0; cp <= MAX_CP; cp++) {
		const struct fold_rec *r = &recs[dec_rid(cp)];
		int want_ccc = U.age[cp] ? U.ccc[cp] : 0;
		struct seq got;
		uint32_t m = REC_DESC(r);
		if (r->ccc != want_ccc || !!(r->af & A_DI) != U.di[cp] ||
		    ((r->ccc || r->af || r->hi) && REC_AGE(r) != U.age[cp]) ||
		    REC_SEC(r) != (U.age[cp] ? list_of_cp[cp] : 0u) ||
		    (M_TYPE(m) == M_MULTI && (REC_FIELDS(r) & (REC_FIELDS(r) - 1)) == 0) ||
		    (M_TYPE(m) != M_MULTI && (REC_FIELDS(r) & (REC_FIELDS(r) - 1)) != 0))
			die("record of U+%04X decodes wrongly", cp);
		for (k = 0; k < K_STORED; k++) {
			const struct seq *want = U.clo[k][cp];
			struct seq self;
			if (!U.age[cp] || (cp >= SBASE && cp < SBASE + SCOUNT))
				continue; /* formula, checked elsewhere */
			self.n = 1;
			self.c[0] = cp;
			dec_expand(k, cp, &got);
			if (!seq_eq(&got, want ? want : &self))
				die("kind %d of U+%04X decodes wrongly", k, cp);
		}
	}
	/* the lane bits promise what the fast lanes rely on */
	for (cp = 0; cp <= MAX_CP; cp++) {
		unsigned lv = dec_lane(cp);
		const struct fold_rec *r = &recs[lv & L_RID];
		uint32_t t = (uint32_t)((int32_t)cp + M_SDELTA(REC_DESC(r)));
		if (lv & L_SFOLD) {
			const struct seq *a = U.clo[K_CF][cp];
			const struct seq *b = U.clo[K_CFK][cp];
			const struct seq *c = U.nkcf[cp];
			if (!a || !b || !c || a->n != 1 || b->n != 1 ||
			    c->n != 1 || a->c[0] != t || b->c[0] != t ||
			    c->c[0] != t || U.ccc[cp] || U.ccc[t] ||
			    list_of_cp[cp] || list_of_cp[t] || U.dec[cp] ||
			    U.di[cp] || U.clo[K_CF][t])
				die("U+%04X is not the simple fold its lane "
				    "value says", cp);
		}
		if (M_TYPE(REC_DESC(r)) == M_PAIR && M_CFOLD(REC_DESC(r))) {
			uint32_t m = REC_DESC(r);
			uint32_t ct = (uint32_t)((int32_t)cp +
					(int32_t)cdelta[M_CFOLD(m)]);
			if (M_CFOLD(m) >= ncdelta || !(lv & L_BB) ||
			    REC_FIELDS(r) != F_D || r->ccc || REC_SEC(r) ||
			    (r->af & (A_DI | A_SPECIAL)) ||
			    REC_AGE(r) != U.age[cp] || U.age[ct] > U.age[cp] ||
			    L_QUIET(dec_lane(ct)) != 3 ||
			    cfold_code(cp) != M_CFOLD(m))
				die("U+%04X is not the composed fold its "
				    "record says", cp);
		}
		if (cp - SBASE < SCOUNT && lv != (L_HANGUL | L_PLAIN))
			die("lane value of syllable U+%04X is not the "
			    "constant the lanes assume", cp);
		if (((lv & L_SFOLD) && !(lv & L_BB)) ||
		    (!(lv & L_RID) && !(lv & L_BB) != (cp - 0x1100u < 0x100u)))
			die("boundary bit of U+%04X is wrong", cp);
		if (L_QUIET(lv) != ((lv & L_RID) ? REC_SELF(r) :
				    cp - 0x1100u < 0x100u ? 0u : 3u) ||
		    !!(lv & L_HANGUL) != (!(lv & L_RID) &&
					  (cp - 0x1100u < 0x100u ||
					   cp - SBASE < SCOUNT)))
			die("lane value of U+%04X is wrong", cp);
	}
	for (k = 0; k < nseconds; k++) {
		int j, l = list_of_cp[seconds[k]];
		size_t found = 0, want = 0;
		if (!l)
			continue;
		for (cp = 0; cp <= MAX_CP; cp++)
			want += is_primary(cp) && U.dec[cp]->c[1] == seconds[k];
		for (j = comp_start[l - 1]; j < comp_start[l]; j++) {
			uint32_t e = comp[j], p = pairs[C_PAIR(e)];
			uint32_t first = P_FIRST(p);
			uint32_t c = (first & 0xF0000) | C_LOW(e);
			if (j > comp_start[l - 1]) {
				uint32_t q = pairs[C_PAIR(comp[j - 1])];
				if (first < P_FIRST(q) ||
				    (first == P_FIRST(q) && P_SECOND(p) <= P_SECOND(q)))
					die("composition list %d not sorted", l);
			}
			if (l == FOLD_COMP_SHARED && P_SECOND(p) != (uint32_t)k)
				continue; /* another second's */
			if (l != FOLD_COMP_SHARED && j > comp_start[l - 1] &&
			    first == P_FIRST(pairs[C_PAIR(comp[j - 1])]))
				die("composition list %d repeats a first element", l);
			if (pair_of_cp[c] != C_PAIR(e) + 1 ||
			    U.dec[c]->c[0] != first ||
			    U.dec[c]->c[1] != seconds[k] || U.fce[c] ||
			    C_AGE(e) < U.age[c] || P_SECOND(p) != (uint32_t)k)
				die("composition entry %d decodes wrongly", j);
			found++;
		}
		if (found != want)
			die("composition list %d holds %zu of U+%04X's %zu composites",
			    l, found, seconds[k], want);
	}
}

/* ---- output ------------------------------------------------------------ */

static FILE *out;
static size_t total_bytes;
static char sizeof_expr[4096];

/* Every array is counted twice: here, for the report, and as a sizeof()
 * sum in the output, which is what fold_table_bytes() returns. */
static void array_start(const char *type, const char *name, size_t n,
			size_t elem)
{
	fprintf(out, "\nconst %s %s[%zu] = {", type, name, n);
	total_bytes += n * elem;
	snprintf(sizeof_expr + strlen(sizeof_expr),
		 sizeof(sizeof_expr) - strlen(sizeof_expr), "%s sizeof(%s)",
		 sizeof_expr[0] ? " +\n\t" : "", name);
	fprintf(stderr, "mktables:   %-18s %6zu bytes\n", name, n * elem);
}

static void emit_ints(const char *type, const char *name, const void *v,
		      size_t n, size_t elem, int per_line)
{
	size_t i;
	array_start(type, name, n, elem);
	for (i = 0; i < n; i++) {
		unsigned long x;
		if (elem == 8) {
			/* hex: a decimal constant must fit a signed type */
			fprintf(out, "%s0x%016llx,", i % per_line ? " " : "\n\t",
				(unsigned long long)((const uint64_t *)v)[i]);
			continue;
		}
		if (elem == 1)
			x = ((const uint8_t *)v)[i];
		else if (elem == 2)
			x = ((const uint16_t *)v)[i];
		else
			x = ((const uint32_t *)v)[i];
		fprintf(out, "%s%lu,", i % per_line ? " " : "\n\t", x);
	}
	fprintf(out, "\n};\n");
}

void emit(const char *path)
{
	char tmppath[4096];
	size_t i, best = 0;
	int s1, s2, bs1 = 0, bs2 = 0, v, k;

	build_pairs();
	build_dkeys();
	build_records();
	add_lane_bits();
	for (s1 = 8; s1 <= 12; s1++)
		for (s2 = 2; s2 <= 6 && s2 < s1; s2++) {
			size_t b = build_trie(s1, s2, 0);
			if (!best || b < best) {
				best = b;
				bs1 = s1;
				bs2 = s2;
			}
		}
	build_trie(FOLD_S1, FOLD_S2, 1);
	if (bs1 != FOLD_S1 || bs2 != FOLD_S2)
		fprintf(stderr,
			"mktables: note: trie shifts %d/%d would take %zu "
			"bytes; set FOLD_S1/FOLD_S2 in lib/fold_data.h\n",
			bs1, bs2, best);
	build_ages();
	verify();

	snprintf(tmppath, sizeof(tmppath), "%s.tmp", path);
	out = fopen(tmppath, "w");
	if (!out)
		die("cannot write %s: %s", tmppath, strerror(errno));
	fprintf(out,
		"/*\n * fold_tables.c - GENERATED by tools/mktables.c from the "
		"Unicode Character\n * Database %s.  Do not edit; run \"make "
		"tables\" to regenerate.\n *\n * Layout and meaning: "
		"lib/fold_data.h.\n */\n#include \"fold_data.h\"\n",
		U.version);
	/* The run time hard-codes these; a mismatch is a build error. */
	fprintf(out, "\n_Static_assert(FOLD_NVERSIONS == %d, \"version count\");\n",
		U.nversions);
	fprintf(out, "_Static_assert(FOLD_MAXEXP >= %d, \"longest expansion\");\n",
		U.maxexp);
	fprintf(out, "_Static_assert(HANGUL_AGE == %d, \"age of Hangul\");\n",
		U.age[SBASE]);
	fprintf(out, "_Static_assert(FOLD_MAXCHAIN >= %d, \"pair chain\");\n",
		maxchain);
	fprintf(out, "_Static_assert(FOLD_S1 == %d && FOLD_S2 == %d, "
		"\"trie geometry\");\n", FOLD_S1, FOLD_S2);
	fprintf(out, "\nconst char fold_ucd_version[] = \"%s\";\n", U.version);

	fprintf(stderr, "mktables: tables:\n");
	array_start("struct fold_version", "fold_versions",
		    (size_t)U.nversions, sizeof(struct fold_version));
	for (v = 0; v < U.nversions; v++)
		fprintf(out, "\n\t{ %u, %u, \"%u.%u.0\" },", U.vmaj[v],
			U.vmin[v], U.vmaj[v], U.vmin[v]);
	fprintf(out, "\n};\n");
	/* fold_unicode_versions()'s list: pointers, not table bytes */
	fprintf(out, "\nconst char *const fold_version_names[%d] = {",
		U.nversions);
	for (v = 0; v < U.nversions; v++)
		fprintf(out, "\n\tfold_versions[%d].name,", v);
	fprintf(out, "\n};\n");

	emit_ints("uint8_t", "fold_top", top, FOLD_NIDX >> FOLD_S1, 1, 16);
	emit_ints("uint16_t", "fold_mid", mid, nmid, 2, 12);
	emit_ints("uint16_t", "fold_leaf", leaf, nleaf, 2, 12);

	array_start("struct fold_rec", "fold_recs", nrec,
		    sizeof(struct fold_rec));
	for (i = 0; i < nrec; i++)
		fprintf(out, "\n\t{ %u, 0x%02x, 0x%04x, 0x%04x },", recs[i].ccc,
			recs[i].af, recs[i].lo, recs[i].hi);
	fprintf(out, "\n};\n");

	emit_ints("uint32_t", "fold_maps", maps, nmaps ? nmaps : 1, 4, 6);
	emit_ints("uint8_t", "fold_pool", pool, npool, 1, 16);
	emit_ints("uint32_t", "fold_pairs", pairs, npairs, 4, 6);
	emit_ints("uint32_t", "fold_seconds", seconds, (size_t)nseconds, 4, 6);
	emit_ints("uint16_t", "fold_sec_info", sec_info, (size_t)nseconds, 2,
		  12);
	emit_ints("uint64_t", "fold_dkey", dkey, FOLD_NDKEY, 8, 3);
	emit_ints("uint16_t", "fold_comp_start", comp_start,
		  (size_t)ncompsec + 1, 2, 12);
	emit_ints("uint32_t", "fold_comp", comp, ncomp, 4, 6);
	emit_ints("uint64_t", "fold_comp_abits", comp_abits, (size_t)ncompab,
		  8, 3);
	{
		uint32_t corr[3 * MAX_CORR];
		for (k = 0; k < U.ncorr; k++) {
			corr[3 * k] = U.corr_cp[k];
			corr[3 * k + 1] = U.corr_orig[k];
			corr[3 * k + 2] = U.corr_age[k];
		}
		emit_ints("uint32_t", "fold_corr", corr, 3 * (size_t)U.ncorr, 4,
			  3);
		fprintf(out, "const unsigned fold_ncorr = %d;\n", U.ncorr);
	}
	{
		/* NFKC_CF values the run time cannot derive; their slices
		 * go at the end of the pool (already emitted if any). */
		uint32_t exc[2 * MAX_EXC + 2] = { 0 };
		if (U.nexc)
			die("NFKC_CF exceptions exist: extend the emitter to "
			    "store them (none in Unicode 15.0)");
		emit_ints("uint32_t", "fold_nkcf", exc, 2, 4, 2);
		fprintf(out, "const unsigned fold_nnkcf = %d;\n", U.nexc);
	}
	emit_ints("uint32_t", "fold_cdelta", cdelta, ncdelta, 4, 8);
	emit_ints("uint8_t", "fold_age_runs", age_runs, nage_runs, 1, 16);
	emit_ints("uint16_t", "fold_age_index", age_index, NCP >> 14, 2, 12);
	emit_ints("uint16_t", "fold_age_skip", age_skip, NCP >> 14, 2, 12);

	fprintf(out, "\nconst size_t fold_tables_bytes =\n\t%s;\n",
		sizeof_expr);
	/* the size target: all versions and forms in less than the kernel's
	 * one utf8data table (NFD-based forms, one version) */
	if (total_bytes >= KERNEL_UTF8DATA_BYTES)
		die("the tables take %zu bytes; the target is below the Linux "
		    "kernel's utf8data table, %d bytes", total_bytes,
		    KERNEL_UTF8DATA_BYTES);
	if (fclose(out))
		die("cannot write %s", tmppath);
	if (rename(tmppath, path))
		die("cannot rename %s: %s", tmppath, strerror(errno));
	fprintf(stderr,
		"mktables: UCD %s, %d versions, %zu records, %zu descriptors, "
		"%d seconds, %zu pairs (%zu compose), longest expansion %d, "
		"%zu table bytes\n",
		U.version, U.nversions, nrec, nmaps, nseconds, npairs, ncomp,
		U.maxexp,
		total_bytes);
}
