/*
 * foldfs-check-scan.c - analysis of one folding directory: which names are
 * ill-formed, which are equivalent (collision groups, with the name a lookup
 * of any other spelling resolves to), and, for --upgrade-to / --compat /
 * --ignorables / --set-encoding, which names would change equivalence class
 * under the target context and which code points are responsible.
 *
 * Grouping is linear: each name is hashed with fold_hash into an open
 * addressing table and confirmed with fold_equal against the first member
 * of the class found there, so a directory of n names costs O(n) hashes and
 * (almost always) no extra comparisons.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foldfs-check.h"

/* ---- the directory buffer ---- */

int dirbuf_add(struct dirbuf *db, const char *name, size_t len, int is_dir)
{
	struct ent *e;

	if (db->n == db->cap) {
		size_t cap = db->cap ? db->cap * 2 : 1024;
		struct ent *ents = realloc(db->ents, cap * sizeof *ents);

		if (!ents)
			return -ENOMEM;
		db->ents = ents;
		db->cap = cap;
	}
	if (db->pool_len + len + 1 > db->pool_cap ||
	    db->pool_len + len + 1 > UINT32_MAX) {
		size_t cap = db->pool_cap ? db->pool_cap * 2 : 65536;
		char *pool;

		while (cap < db->pool_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		pool = realloc(db->pool, cap);
		if (!pool)
			return -ENOMEM;
		db->pool = pool;
		db->pool_cap = cap;
	}
	e = &db->ents[db->n++];
	memset(e, 0, sizeof *e);
	e->off = (uint32_t)db->pool_len;
	e->len = (uint32_t)len;
	e->is_dir = (uint8_t)is_dir;
	e->group = e->tgroup = -1;
	e->next = e->tnext = -1;
	memcpy(db->pool + db->pool_len, name, len);
	db->pool[db->pool_len + len] = '\0'; /* names are NUL-free */
	db->pool_len += len + 1;
	return 0;
}

void dirbuf_reset(struct dirbuf *db)
{
	db->n = 0;
	db->pool_len = 0;
}

void dirbuf_free(struct dirbuf *db)
{
	free(db->pool);
	free(db->ents);
	free(db->table);
	free(db->ttable);
	free(db->th);
	free(db->tmp);
	free(db->tmp2);
	free(db->tmp3);
	memset(db, 0, sizeof *db);
}

static int table_prepare(int32_t **table, size_t *tcap, size_t n)
{
	size_t want = 16;

	/* 4n: room for the names --fix adds while keeping probes short. */
	while (want < 4 * n)
		want *= 2;
	if (want > *tcap) {
		int32_t *t = realloc(*table, want * sizeof *t);

		if (!t)
			return -ENOMEM;
		*table = t;
		*tcap = want;
	}
	memset(*table, 0xff, want * sizeof **table);
	return 0;
}

static size_t table_mask(size_t n)
{
	size_t want = 16;

	while (want < 4 * n)
		want *= 2;
	return want - 1;
}

static int scratch_prepare(struct dirbuf *db, size_t n)
{
	if (n <= db->scap)
		return 0;
	int32_t *a = realloc(db->tmp, n * sizeof *a);
	if (a)
		db->tmp = a;
	int32_t *b = realloc(db->tmp2, n * sizeof *b);
	if (b)
		db->tmp2 = b;
	int32_t *c = realloc(db->tmp3, n * sizeof *c);
	if (c)
		db->tmp3 = c;
	uint64_t *h = realloc(db->th, n * sizeof *h);
	if (h)
		db->th = h;
	if (!a || !b || !c || !h)
		return -ENOMEM;
	db->scap = n;
	return 0;
}

#define NAME(db, i) ((db)->pool + (db)->ents[i].off)

/* Find the class of name (hash h) in table; returns its first member or
 * -1, and the empty slot where a new class would go in *slot. */
static int32_t table_find(const struct dirbuf *db, const int32_t *table,
			  size_t mask, const struct fold_ctx *ctx, int target,
			  const char *s, size_t n, uint64_t h, size_t *slot)
{
	size_t i = (size_t)h & mask;

	for (;; i = (i + 1) & mask) {
		int32_t j = table[i];

		if (j < 0) {
			*slot = i;
			return -1;
		}
		uint64_t hj = target ? db->th[j] : db->ents[j].hash;
		if (hj == h && fold_equal(ctx, NAME(db, j), db->ents[j].len, s,
					  n))
			return j;
	}
}

/* Both tables are sized for the directory's names as listed (scan_dir sets
 * live_mask); --fix adds names to the base one while it is live. */
static size_t live_mask;

/* Insert entry i (hash already set) into the base or target grouping. */
static void group_insert(struct check *c, size_t i, int target)
{
	struct dirbuf *db = &c->db;
	struct ent *e = &db->ents[i];
	const struct fold_ctx *ctx = target ? &c->tctx : &c->kctx;
	int32_t *table = target ? db->ttable : db->table;
	uint64_t h = target ? db->th[i] : e->hash;
	size_t slot;
	int32_t head = table_find(db, table, live_mask, ctx, target,
				  NAME(db, i), e->len, h, &slot);

	/* The current and the --upgrade-to target classes are two chains
	 * through the same entries; link i into the one being built. */
	int32_t *group = target ? &e->tgroup : &e->group;
	int32_t *next = target ? &e->tnext : &e->next;

	if (head < 0) {
		table[slot] = (int32_t)i;
		*group = (int32_t)i;
		*next = -1;
	} else {
		int32_t *head_next = target ? &db->ents[head].tnext
					    : &db->ents[head].next;
		*group = head;
		*next = *head_next;
		*head_next = (int32_t)i;
	}
}

int32_t scan_name_class(struct check *c, const char *s, size_t n)
{
	struct dirbuf *db = &c->db;
	size_t slot;
	uint64_t h = fold_hash(&c->kctx, &c->seed, s, n);

	return table_find(db, db->table, live_mask, &c->kctx, 0, s, n, h,
			  &slot);
}

int scan_name_taken(struct check *c, const char *s, size_t n)
{
	return scan_name_class(c, s, n) >= 0;
}

int scan_add_name(struct check *c, const char *s, size_t n, int is_dir)
{
	struct dirbuf *db = &c->db;
	size_t slot, i;
	uint64_t h = fold_hash(&c->kctx, &c->seed, s, n);

	if (dirbuf_add(db, s, n, is_dir) < 0)
		return -ENOMEM;
	i = db->n - 1;
	db->ents[i].hash = h;
	if (table_find(db, db->table, live_mask, &c->kctx, 0, s, n, h,
		       &slot) < 0) {
		db->table[slot] = (int32_t)i;
		db->ents[i].group = (int32_t)i;
	}
	return 0;
}

/* ---- keys and responsible code points ---- */

ssize_t key_of(struct check *c, const struct fold_ctx *ctx, const char *s,
	       size_t n, int second)
{
	char **buf = second ? &c->kbuf2 : &c->kbuf;
	size_t *cap = second ? &c->kcap2 : &c->kcap;
	ssize_t r;

	for (;;) {
		r = fold_key(ctx, s, n, *buf, *cap);
		if (r < 0 || (size_t)r <= *cap)
			return r;
		char *p = realloc(*buf, (size_t)r);
		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = (size_t)r;
	}
}

static size_t u8_encode(uint32_t cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Does cp on its own fold differently (or order differently) under the
 * base and the target ctx? */
static int cp_changes(struct check *c, uint32_t cp)
{
	char u[4];
	size_t l = u8_encode(cp, u);
	ssize_t a, b;

	if (fold_cp_ccc(&c->kctx, cp) != fold_cp_ccc(&c->tctx, cp))
		return 1;
	a = key_of(c, &c->kctx, u, l, 0);
	b = key_of(c, &c->tctx, u, l, 1);
	return a != b || (a > 0 && memcmp(c->kbuf, c->kbuf2, (size_t)a));
}

#define MAX_CPS 64

/* Add cp to the set cps[0..*n) unless present. */
static void cps_add(uint32_t *cps, size_t *n, uint32_t cp)
{
	size_t k;

	for (k = 0; k < *n && cps[k] != cp; k++)
		;
	if (k == *n && *n < MAX_CPS)
		cps[(*n)++] = cp;
}

/* The code points of name that explain a class change: those that fold or
 * order differently on their own.  With by_age, instead every code point
 * assigned between the two versions (for changes that only show in
 * context, such as a composition). */
static void responsible_cps(struct check *c, const char *s, size_t n,
			    uint32_t *cps, size_t *ncps, int by_age)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t lo = c->kctx.unicode, hi = c->tctx.unicode;
	size_t i;

	if (lo > hi) {
		uint32_t t = lo;
		lo = hi;
		hi = t;
	}
	for (i = 0; i < n;) {
		uint32_t cp, age;
		size_t l = u8_decode(p + i, n - i, &cp);

		if (!l) {
			i++;
			continue;
		}
		i += l;
		if (!by_age) {
			if (cp_changes(c, cp))
				cps_add(cps, ncps, cp);
			continue;
		}
		age = fold_cp_age(cp);
		if (age > lo && age <= hi)
			cps_add(cps, ncps, cp);
	}
}

/* Responsible code points of a group of names m[0..k). */
static void group_cps(struct check *c, const int32_t *m, size_t k,
		      uint32_t *cps, size_t *ncps)
{
	const struct dirbuf *db = &c->db;
	size_t j;
	int pass;

	for (pass = 0; pass < 2 && !*ncps; pass++)
		for (j = 0; j < k; j++)
			responsible_cps(c, NAME(db, m[j]), db->ents[m[j]].len,
					cps, ncps, pass);
}

static void print_cps(struct check *c, const uint32_t *cps, size_t n)
{
	size_t i;

	if (c->json) {
		fputs(",\"code_points\":[", stdout);
		for (i = 0; i < n; i++) {
			printf("%s{\"cp\":\"U+%04X\",\"age\":\"", i ? "," : "",
			       cps[i]);
			rep_version(stdout, fold_cp_age(cps[i]));
			fputs("\"}", stdout);
		}
		putc(']', stdout);
		return;
	}
	if (!n) {
		fputs("; no single code point (context-dependent)", stdout);
		return;
	}
	fputs("; code points:", stdout);
	for (i = 0; i < n; i++) {
		printf(" U+%04X (", cps[i]);
		rep_version(stdout, fold_cp_age(cps[i]));
		putc(')', stdout);
	}
}

/* ---- reporting helpers ---- */

static const struct dirbuf *cmp_db;

/* The lookup winner order: bytewise, a proper prefix first. */
static int cmp_bytes(const void *a, const void *b)
{
	const struct ent *x = &cmp_db->ents[*(const int32_t *)a];
	const struct ent *y = &cmp_db->ents[*(const int32_t *)b];
	size_t m = x->len < y->len ? x->len : y->len;
	int r = memcmp(cmp_db->pool + x->off, cmp_db->pool + y->off, m);

	if (r)
		return r;
	if (x->len != y->len)
		return (x->len > y->len) - (x->len < y->len);
	/* the same name listed twice (drop_repeats): first listed first */
	return (*(const int32_t *)a > *(const int32_t *)b) -
	       (*(const int32_t *)a < *(const int32_t *)b);
}

static int same_bytes(const struct dirbuf *db, int32_t i, int32_t j)
{
	return db->ents[i].len == db->ents[j].len &&
	       !memcmp(NAME(db, i), NAME(db, j), db->ents[i].len);
}

static size_t members(const struct dirbuf *db, int32_t head, int target,
		      int32_t *out)
{
	size_t k = 0;
	int32_t j;

	for (j = head; j >= 0;
	     j = target ? db->ents[j].tnext : db->ents[j].next)
		out[k++] = j;
	cmp_db = db;
	qsort(out, k, sizeof *out, cmp_bytes);
	return k;
}

static void json_names(struct check *c, const int32_t *m, size_t k)
{
	const struct dirbuf *db = &c->db;
	size_t i;

	fputs(",\"names\":[", stdout);
	for (i = 0; i < k; i++) {
		fputs(i ? ",{" : "{", stdout);
		rep_json_name(stdout, "name", NAME(db, m[i]),
			      db->ents[m[i]].len);
		printf(",\"is_dir\":%s}",
		       db->ents[m[i]].is_dir ? "true" : "false");
	}
	putc(']', stdout);
}

static void text_name(const struct dirbuf *db, int32_t i)
{
	putc('\'', stdout);
	rep_escape(stdout, NAME(db, i), db->ents[i].len);
	putc('\'', stdout);
	if (db->ents[i].is_dir)
		fputs(" [dir]", stdout);
}

/* ---- the checks ---- */

static void check_ill_formed(struct check *c, const char *path,
			     size_t pathlen, size_t i)
{
	struct dirbuf *db = &c->db;
	size_t off = 0;
	int strict = (c->ctx.flags & FOLD_STRICT) != 0;

	if (fold_validate(&c->ctx, NAME(db, i), db->ents[i].len, &off) == 0)
		return;
	db->ents[i].bad = 1;
	c->st.ill_formed++;
	if (strict)
		c->st.ill_errors++;
	if (c->json) {
		rep_json_begin(c, "ill_formed", path, pathlen);
		putc(',', stdout);
		rep_json_name(stdout, "name", NAME(db, i), db->ents[i].len);
		printf(",\"offset\":%zu,\"severity\":\"%s\"}\n", off,
		       strict ? "error" : "warning");
		return;
	}
	if (c->quiet && !strict)
		return;
	rep_dir_header(c, path, pathlen);
	printf("  %s: ill-formed UTF-8 name ", strict ? "error" : "warning");
	text_name(db, (int32_t)i);
	printf(" (byte offset %zu): %s\n", off,
	       strict ? "a strict encoding refuses it"
		      : "matches only byte for byte");
}

/* " <U+0065 U+0301>": how a name is spelled, for names that look alike. */
static void text_cps(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int first = 1;

	fputs(" <", stdout);
	while (i < n) {
		uint32_t cp;
		size_t l = u8_decode(p + i, n - i, &cp);

		if (!l) {
			printf("%s\\x%02x", first ? "" : " ", p[i]);
			i++;
		} else {
			printf("%sU+%04X", first ? "" : " ", cp);
			i += l;
		}
		first = 0;
	}
	putc('>', stdout);
}

/* Would two members of m print the same?  Canonically equivalent names
 * (NFC vs NFD spellings) render identically on a terminal, and so do
 * names that differ only in invisible default ignorables (a zero width
 * space, a soft hyphen), which the ignorables flag makes equivalent. */
static int look_alike(const struct check *c, const int32_t *m, size_t k)
{
	const struct dirbuf *db = &c->db;
	struct fold_ctx nfd;
	size_t i, j;

	if (fold_init(&nfd, "utf8", FOLD_NFD, FOLD_IGNORABLES) < 0)
		return 0;
	for (i = 0; i < k; i++)
		for (j = i + 1; j < k && j < 64; j++)
			if (fold_equal(&nfd, NAME(db, m[i]), db->ents[m[i]].len,
				       NAME(db, m[j]), db->ents[m[j]].len))
				return 1;
	return 0;
}

/* Open a JSON group object: type, the encoding under `enckey`, the count,
 * the winner m[0] and every member; the caller adds fields and closes. */
static void json_group(struct check *c, const char *type, const char *path,
		       size_t pathlen, const char *enckey, const char *enc,
		       const int32_t *m, size_t k)
{
	const struct dirbuf *db = &c->db;

	rep_json_begin(c, type, path, pathlen);
	printf(",\"%s\":\"%s\",\"count\":%zu,\"winner\":{", enckey, enc, k);
	rep_json_name(stdout, "name", NAME(db, m[0]), db->ents[m[0]].len);
	putc('}', stdout);
	json_names(c, m, k);
}

static void report_group(struct check *c, const char *path, size_t pathlen,
			 const int32_t *m, size_t k)
{
	const struct dirbuf *db = &c->db;
	size_t i;
	int alike;

	if (c->json) {
		json_group(c, "collision", path, pathlen, "encoding",
			   c->enc_name, m, k);
		fputs("}\n", stdout);
		return;
	}
	rep_dir_header(c, path, pathlen);
	printf("  collision: %zu equivalent names under %s; other spellings "
	       "resolve to ",
	       k, c->enc_name);
	text_name(db, m[0]);
	putc('\n', stdout);
	alike = look_alike(c, m, k);
	for (i = 0; i < k; i++) {
		fputs("    ", stdout);
		text_name(db, m[i]);
		if (alike)
			text_cps(NAME(db, m[i]), db->ents[m[i]].len);
		fputs(i ? "\n" : "  (winner)\n", stdout);
	}
}

static void fix_group(struct check *c, int dirfd, const char *path,
		      size_t pathlen, const int32_t *m, size_t k)
{
	size_t i, ok = 0;
	struct fix_next next[2] = {{2, -1}, {2, -1}};

	for (i = 1; i < k; i++)
		if (fix_rename(c, dirfd, path, pathlen, (size_t)m[i], next) ==
		    0)
			ok++;
	if (ok == k - 1 && c->yes)
		c->st.groups_fixed++;
}

static void whatif_dir(struct check *c, const char *path, size_t pathlen,
		       size_t n)
{
	struct dirbuf *db = &c->db;
	int32_t *bsize = db->tmp, *tsize = db->tmp2, *mem = db->tmp3;
	uint32_t cps[MAX_CPS];
	size_t i, k, ncps;

	/* Target grouping. */
	if (table_prepare(&db->ttable, &db->ttcap, n) < 0) {
		rep_error(c, path, pathlen, NULL, "analyse", ENOMEM);
		return;
	}
	for (i = 0; i < n; i++)
		db->th[i] = fold_hash(&c->tctx, &c->seed, NAME(db, i),
				      db->ents[i].len);
	for (i = 0; i < n; i++)
		group_insert(c, i, 1);

	/* Names that would be refused under a strict target (a strict
	 * base reports them already: nothing changes for them). */
	if ((c->tflags & FOLD_STRICT) && !(c->ctx.flags & FOLD_STRICT)) {
		for (i = 0; i < n; i++) {
			size_t off;

			if (fold_validate(&c->tctx, NAME(db, i),
					  db->ents[i].len, &off) == 0)
				continue;
			c->st.would_strict++;
			if (c->json) {
				rep_json_begin(c, "would_refuse", path,
					       pathlen);
				putc(',', stdout);
				rep_json_name(stdout, "name", NAME(db, i),
					      db->ents[i].len);
				printf(",\"to\":\"%s\",\"offset\":%zu}\n",
				       c->tenc_name, off);
			} else {
				rep_dir_header(c, path, pathlen);
				fputs("  ill-formed name ", stdout);
				text_name(db, (int32_t)i);
				printf(" (byte offset %zu) would be an error "
				       "under strict %s\n",
				       off, c->tenc_name);
			}
		}
	}

	/* Per-name key changes, with the responsible code points. */
	for (i = 0; i < n; i++) {
		const char *s = NAME(db, i);
		size_t len = db->ents[i].len;
		ssize_t a = key_of(c, &c->kctx, s, len, 0);
		ssize_t b = key_of(c, &c->tctx, s, len, 1);

		if (a == b && (a <= 0 || !memcmp(c->kbuf, c->kbuf2, (size_t)a)))
			continue;
		c->st.class_changes++;
		if (c->json) {
			rep_json_begin(c, "class_change", path, pathlen);
			putc(',', stdout);
			rep_json_name(stdout, "name", s, len);
			printf(",\"from\":\"%s\",\"to\":\"%s\",", c->enc_name,
			       c->tenc_name);
			rep_json_name(stdout, "key_from", c->kbuf,
				      a > 0 ? (size_t)a : 0);
			putc(',', stdout);
			rep_json_name(stdout, "key_to", c->kbuf2,
				      b > 0 ? (size_t)b : 0);
		} else {
			rep_dir_header(c, path, pathlen);
			fputs("  class change: ", stdout);
			text_name(db, (int32_t)i);
			fputs(" key '", stdout);
			rep_escape(stdout, c->kbuf, a > 0 ? (size_t)a : 0);
			fputs("' -> '", stdout);
			rep_escape(stdout, c->kbuf2, b > 0 ? (size_t)b : 0);
			fputc('\'', stdout);
		}
		ncps = 0;
		responsible_cps(c, s, len, cps, &ncps, 0);
		if (!ncps)
			responsible_cps(c, s, len, cps, &ncps, 1);
		print_cps(c, cps, ncps);
		fputs(c->json ? "}\n" : "\n", stdout);
	}

	/* Class sizes, then which classes are identical in both. */
	for (i = 0; i < n; i++)
		bsize[i] = tsize[i] = 0;
	for (i = 0; i < n; i++) {
		bsize[db->ents[i].group]++;
		tsize[db->ents[i].tgroup]++;
	}
	/* bsize[head] < 0 marks a base class not identical to any target
	 * class (checked from its members). */
	for (i = 0; i < n; i++) {
		int32_t g = db->ents[i].group;
		int32_t t = db->ents[g].tgroup;

		if (db->ents[i].tgroup != t || tsize[t] != abs(bsize[g]))
			if (bsize[g] > 0)
				bsize[g] = -bsize[g];
	}
	for (i = 0; i < n; i++) {
		int32_t t, j, g0;
		size_t nb = 0;

		if (db->ents[i].tgroup != (int32_t)i || tsize[i] < 2)
			continue;
		t = (int32_t)i;
		g0 = db->ents[t].group;
		if (bsize[g0] > 0)
			continue; /* unchanged class */
		/* Members from at least two base classes? */
		nb = 1;
		for (j = t; j >= 0; j = db->ents[j].tnext)
			if (db->ents[j].group != g0)
				nb = 2;
		if (nb < 2)
			continue; /* a piece of a split, reported below */
		c->st.would_collide++;
		k = members(db, t, 1, mem);
		ncps = 0;
		group_cps(c, mem, k, cps, &ncps);
		if (c->json) {
			json_group(c, "would_collide", path, pathlen, "to",
				   c->tenc_name, mem, k);
			print_cps(c, cps, ncps);
			fputs("}\n", stdout);
		} else {
			rep_dir_header(c, path, pathlen);
			printf("  would collide under %s: %zu names would be "
			       "equivalent",
			       c->tenc_name, k);
			print_cps(c, cps, ncps);
			putc('\n', stdout);
			for (j = 0; (size_t)j < k; j++) {
				fputs("    ", stdout);
				text_name(db, mem[j]);
				fputs(j ? "\n" : "  (winner)\n", stdout);
			}
		}
	}
	for (i = 0; i < n; i++) {
		int32_t j;
		size_t nt = 0;

		if (db->ents[i].group != (int32_t)i || bsize[i] >= 0 ||
		    -bsize[i] < 2)
			continue;
		/* Members in at least two target classes? */
		nt = 1;
		for (j = (int32_t)i; j >= 0; j = db->ents[j].next)
			if (db->ents[j].tgroup != db->ents[i].tgroup)
				nt = 2;
		if (nt < 2)
			continue; /* the class only grew: reported above */
		c->st.would_split++;
		k = members(db, (int32_t)i, 0, mem);
		ncps = 0;
		group_cps(c, mem, k, cps, &ncps);
		if (c->json) {
			rep_json_begin(c, "would_split", path, pathlen);
			printf(",\"to\":\"%s\",\"count\":%zu", c->tenc_name,
			       k);
			json_names(c, mem, k);
			print_cps(c, cps, ncps);
			fputs("}\n", stdout);
		} else {
			rep_dir_header(c, path, pathlen);
			printf("  would stop colliding under %s: %zu names",
			       c->tenc_name, k);
			print_cps(c, cps, ncps);
			putc('\n', stdout);
			for (j = 0; (size_t)j < k; j++) {
				fputs("    ", stdout);
				text_name(db, mem[j]);
				putc('\n', stdout);
			}
		}
	}
}

/* readdir() may list a name twice when the directory changes during the
 * listing (POSIX allows it; seen on xfs under concurrent renames).  Two
 * byte-identical entries are one file, never a collision: drop the later
 * copies.  Only a class of two or more can hold one, so only those are
 * looked at; where copies went, the classes are built again.  Returns the
 * number of entries left. */
static size_t drop_repeats(struct check *c, size_t n)
{
	struct dirbuf *db = &c->db;
	size_t i, k, m, dropped = 0;

	for (i = 0; i < n; i++) {
		if (db->ents[i].group != (int32_t)i || db->ents[i].next < 0)
			continue;
		k = members(db, (int32_t)i, 0, db->tmp3);
		for (m = 1; m < k; m++)
			if (same_bytes(db, db->tmp3[m - 1], db->tmp3[m])) {
				db->ents[db->tmp3[m]].dup = 1;
				dropped++;
			}
	}
	if (!dropped)
		return n;
	for (i = k = 0; i < n; i++)
		if (!db->ents[i].dup)
			db->ents[k++] = db->ents[i];
	db->n = n = k;
	live_mask = table_mask(n); /* as the what-if table will be sized */
	memset(db->table, 0xff, (live_mask + 1) * sizeof *db->table);
	for (i = 0; i < n; i++)
		group_insert(c, i, 0);
	return n;
}

void scan_dir(struct check *c, int dirfd, const char *path, size_t pathlen,
	      int folds)
{
	struct dirbuf *db = &c->db;
	size_t n = db->n, i, k;

	if (!folds) {
		c->st.names += n;
		return;
	}
	c->st.folding_dirs++;
	if (!n)
		return;
	if (table_prepare(&db->table, &db->tcap, n) < 0 ||
	    scratch_prepare(db, n) < 0) {
		c->st.names += n;
		rep_error(c, path, pathlen, NULL, "analyse", ENOMEM);
		return;
	}
	live_mask = table_mask(n);

	for (i = 0; i < n; i++) {
		struct ent *e = &db->ents[i];

		e->hash = fold_hash(&c->kctx, &c->seed, NAME(db, i), e->len);
		group_insert(c, i, 0);
	}
	n = drop_repeats(c, n);
	c->st.names += n;
	for (i = 0; i < n; i++)
		check_ill_formed(c, path, pathlen, i);

	for (i = 0; i < n; i++) {
		struct ent *e = &db->ents[i];

		if (e->group != (int32_t)i || e->next < 0)
			continue;
		k = members(db, (int32_t)i, 0, db->tmp3);
		c->st.groups++;
		c->st.colliding += k;
		report_group(c, path, pathlen, db->tmp3, k);
		/* Renaming appends entries (indices stay valid) and never
		 * touches tmp3. */
		if (c->fix)
			fix_group(c, dirfd, path, pathlen, db->tmp3, k);
	}

	if (c->whatif)
		whatif_dir(c, path, pathlen, n);

}
