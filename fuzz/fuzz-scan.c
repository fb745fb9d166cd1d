/*
 * fuzz-scan.c - foldfs-check's analysis of one directory
 * (tools/foldfs-check-scan.c), the spellings its --fix dry run invents
 * (tools/foldfs-check-fix.c) and the reports both print
 * (tools/foldfs-check-report.c), on names the fuzzer picks.
 *
 * Input: bytes 0 and 1 choose the base and the what-if encoding and flags
 * (fuzz_enc, fuzz-enc.h), byte 2 the report (bit 0: JSON), whether there is a
 * what-if context (bit 1), whether --fix runs dry (bit 2; foldfs-check
 * takes no what-if report with --fix) and whether
 * names are stretched to 240-255 bytes (bit 3: the length in bits 4-7),
 * so that the suffix " (N)" has to shorten them; the rest, split at '/',
 * are the names (empty ones, "." and ".." dropped; a repeat is a name
 * readdir() listed twice, which is one name, never a collision: scan_dir
 * must keep the first listing only, in place).
 *
 * Checked against a model made of fold_key alone:
 *  - two names are in one class iff their keys are equal, under the base
 *    and under the what-if context; the counts of classes, colliding
 *    names, ill-formed names, class changes, classes that would merge and
 *    classes that would split agree with the model;
 *  - the dry run plans one new spelling per loser, each at most NAME_MAX
 *    bytes, free of '/' and NUL, valid UTF-8 where the old name is,
 *    ending in " (N)" or " (N)" plus the old name's last bytes, and
 *    equivalent to no name of the directory nor to another new one;
 *  - the report: JSON mode writes one valid JSON object per line, and all
 *    output is valid UTF-8; text mode writes no control character but the
 *    newline and nothing rep_escape() must escape (the terminal is safe).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foldfs-check.h"
#include "fuzz-enc.h"
#include "fuzz-text.h"

#define MAX_NAMES 48
#define NAME_MAX_ 255

static const uint8_t *g_in;
static size_t g_inlen;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz-scan: %s; input (%zu bytes):\n", what, g_inlen);
	fwrite(g_in, 1, g_inlen, stderr);
	fputc('\n', stderr);
	abort();
}

/* The key of s under ctx, malloc'ed; its length in *len. */
static char *key(const struct fold_ctx *ctx, const char *s, size_t n,
		 size_t *len)
{
	ssize_t r = fold_key(ctx, s, n, NULL, 0);
	char *k;

	if (r < 0)
		fail("fold_key refused a name under a non-strict context");
	k = malloc((size_t)r + 1);
	if (!k || fold_key(ctx, s, n, k, (size_t)r) != r)
		fail("fold_key gave two lengths");
	*len = (size_t)r;
	return k;
}

/* Class numbers from keys: cls[i] = the first j with key j == key i. */
static void classes(char **k, const size_t *kl, size_t n, size_t *cls)
{
	for (size_t i = 0; i < n; i++) {
		cls[i] = i;
		for (size_t j = 0; j < i; j++)
			if (kl[j] == kl[i] && !memcmp(k[j], k[i], kl[i])) {
				cls[i] = cls[j];
				break;
			}
	}
}

/* Is entry a before entry b in the order that picks a class's winner
 * (bytewise, a proper prefix first)? */
static int before(const struct dirbuf *db, size_t a, size_t b)
{
	size_t la = db->ents[a].len, lb = db->ents[b].len;
	int r = memcmp(db->pool + db->ents[a].off, db->pool + db->ents[b].off,
		       la < lb ? la : lb);

	return r ? r < 0 : la < lb;
}

/* Does entry i (of n, classes cls) lose to another in its class? */
static int is_loser(const struct dirbuf *db, const size_t *cls, size_t n,
		    size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && cls[j] == cls[i] && before(db, j, i))
			return 1;
	return 0;
}

/* ---- the output ---- */

/* A small JSON reader: does value start at *p (before e)?  Moves *p past
 * it.  Strings must be well-formed UTF-8 with no raw control byte. */
static int j_value(const char **p, const char *e, int depth);

static void j_ws(const char **p, const char *e)
{
	while (*p < e && (**p == ' ' || **p == '\t'))
		(*p)++;
}

static int j_string(const char **p, const char *e)
{
	const char *s = *p;

	if (s >= e || *s++ != '"')
		return 0;
	while (s < e && *s != '"') {
		uint32_t cp;
		size_t l;

		if (*s == '\\') {
			if (++s >= e)
				return 0;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (s + i >= e ||
					    !strchr("0123456789abcdefABCDEF",
						    s[i]) || !s[i])
						return 0;
				s += 5;
			} else if (*s && strchr("\"\\/bfnrt", *s)) {
				s++;
			} else {
				return 0;
			}
			continue;
		}
		l = u8_decode((const unsigned char *)s, (size_t)(e - s), &cp);
		if (!l || cp < 0x20)
			return 0;
		s += l;
	}
	if (s >= e)
		return 0;
	*p = s + 1;
	return 1;
}

static int j_number(const char **p, const char *e)
{
	const char *s = *p;
	int digits = 0;

	if (s < e && *s == '-')
		s++;
	while (s < e && *s >= '0' && *s <= '9')
		s++, digits++;
	if (!digits)
		return 0;
	if (s < e && *s == '.') {
		s++;
		digits = 0;
		while (s < e && *s >= '0' && *s <= '9')
			s++, digits++;
		if (!digits)
			return 0;
	}
	*p = s;
	return 1;
}

static int j_list(const char **p, const char *e, char close, int members,
		  int depth)
{
	(*p)++;
	j_ws(p, e);
	if (*p < e && **p == close) {
		(*p)++;
		return 1;
	}
	for (;;) {
		if (members) {
			if (!j_string(p, e))
				return 0;
			j_ws(p, e);
			if (*p >= e || **p != ':')
				return 0;
			(*p)++;
		}
		if (!j_value(p, e, depth + 1))
			return 0;
		j_ws(p, e);
		if (*p < e && **p == ',') {
			(*p)++;
			j_ws(p, e);
			continue;
		}
		if (*p < e && **p == close) {
			(*p)++;
			return 1;
		}
		return 0;
	}
}

static int j_value(const char **p, const char *e, int depth)
{
	static const char *const words[] = { "true", "false", "null" };

	j_ws(p, e);
	if (*p >= e || depth > 16)
		return 0;
	if (**p == '{')
		return j_list(p, e, '}', 1, depth);
	if (**p == '[')
		return j_list(p, e, ']', 0, depth);
	if (**p == '"')
		return j_string(p, e);
	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(words[i]);

		if ((size_t)(e - *p) >= l && !memcmp(*p, words[i], l)) {
			*p += l;
			return 1;
		}
	}
	return j_number(p, e);
}

static void check_output(const char *out, size_t len, int json)
{
	const char *p = out, *e = out + len;

	if (len && out[len - 1] != '\n')
		fail("the report does not end with a newline");
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));

		if (json) {
			const char *q = p;

			if (*q != '{' || !j_value(&q, nl, 0) || q != nl)
				fail("a report line is not one JSON object");
		} else {
			while (p < nl) {
				uint32_t cp;
				size_t l = u8_decode((const unsigned char *)p,
						     (size_t)(nl - p), &cp);

				if (!l || fz_unsafe(cp))
					fail("the text report holds a byte or "
					     "character that reaches the "
					     "terminal raw");
				p += l;
			}
		}
		p = nl + 1;
	}
}

/* ---- the run ---- */

/* Does new look like a spelling candidate() makes of old: the suffix
 * " (N)" then a tail of old (the extension, possibly empty), with a prefix
 * of old before it? */
static int plausible(const char *old, size_t oldlen, const char *new,
		     size_t newlen)
{
	for (size_t at = 0; at + 4 <= newlen; at++) {
		size_t k = at + 2;

		if (memcmp(new + at, " (", 2) || memcmp(new, old, at))
			continue;
		while (k < newlen && new[k] >= '0' && new[k] <= '9')
			k++;
		if (k == at + 2 || k >= newlen || new[k] != ')')
			continue;
		k++;
		if (newlen - k <= oldlen &&
		    !memcmp(new + k, old + oldlen - (newlen - k), newlen - k))
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct check c;
	char enc[32], tenc[32], *keyk[2 * MAX_NAMES], *keyt[MAX_NAMES];
	size_t klen[2 * MAX_NAMES], tlen[MAX_NAMES];
	size_t ck[2 * MAX_NAMES], ct[MAX_NAMES], n = 0, i, j;
	uint32_t first_off[MAX_NAMES]; /* the names' first listings */
	size_t nfirst = 0;
	unsigned flags, tflags, opt;
	const char *p, *e = (const char *)data + size;
	char *out = NULL;
	size_t outlen = 0;
	FILE *saved, *f;

	g_in = data;
	g_inlen = size;
	if (size < 3 || fuzz_enc(data[0], enc, sizeof enc, &flags) < 0 ||
	    fuzz_enc(data[1], tenc, sizeof tenc, &tflags) < 0)
		return 0;
	opt = data[2];

	/* set up as foldfs-check does (tools/foldfs-check.c) */
	dirbuf_reset(&c.db);
	c.json = opt & 1;
	c.fix = (opt >> 2) & 1;
	c.whatif = (opt >> 1) & 1 && !c.fix; /* as foldfs-check allows */
	c.yes = 0;
	c.dir_reported = 0;
	memset(&c.st, 0, sizeof c.st);
	fold_init(&c.ctx, enc, FOLD_CASEFOLD, flags);
	fold_encoding_name(&c.ctx, c.enc_name, sizeof c.enc_name);
	fold_init(&c.kctx, c.enc_name, FOLD_CASEFOLD, flags & ~FOLD_STRICT);
	fold_init(&c.tctx, tenc, FOLD_CASEFOLD, tflags & ~FOLD_STRICT);
	fold_encoding_name(&c.tctx, c.tenc_name, sizeof c.tenc_name);
	c.tflags = tflags;
	c.seed.k0 = 0x0706050403020100ull;
	c.seed.k1 = 0x0f0e0d0c0b0a0908ull;

	for (p = (const char *)data + 3; p <= e && n < MAX_NAMES;) {
		const char *s = memchr(p, '/', (size_t)(e - p));
		size_t len, want = 240 + (opt >> 4);
		char name[NAME_MAX_ + 1];

		if (!s)
			s = e;
		len = (size_t)(s - p);
		if (len > NAME_MAX_)
			len = NAME_MAX_;
		memcpy(name, p, len);
		p = s + 1;
		if ((opt & 8) && len) {
			/* stretched by repeating itself, cut at any byte */
			for (i = len; i < want; i++)
				name[i] = name[i % len];
			len = want;
		}
		if (!len || memchr(name, '\0', len) ||
		    (len == 1 && name[0] == '.') ||
		    (len == 2 && name[0] == '.' && name[1] == '.'))
			continue;
		for (j = 0; j < c.db.n; j++)
			if (c.db.ents[j].len == len &&
			    !memcmp(c.db.pool + c.db.ents[j].off, name, len))
				break;
		if (j == c.db.n)
			first_off[nfirst++] = (uint32_t)c.db.pool_len;
		if (dirbuf_add(&c.db, name, len, name[0] & 1) < 0)
			fail("dirbuf_add: out of memory");
		n++;
	}

	f = open_memstream(&out, &outlen);
	if (!f)
		abort();
	saved = stdout;
	stdout = f;
	scan_dir(&c, -1, "dir", 3, 1);
	stdout = saved;
	if (fclose(f) != 0)
		abort();
	check_output(out, outlen, c.json);
	free(out);

	/* repeats gone, the first listings left in their order */
	if (c.db.n < nfirst || c.st.names != nfirst)
		fail("a name listed twice was counted twice");
	for (i = 0; i < nfirst; i++)
		if (c.db.ents[i].off != first_off[i])
			fail("a name listed twice was not dropped, or the "
			     "first listing was");
	n = nfirst;

	/* the model */
	for (i = 0; i < c.db.n; i++)
		keyk[i] = key(&c.kctx, c.db.pool + c.db.ents[i].off,
			      c.db.ents[i].len, &klen[i]);
	for (i = 0; i < n; i++)
		keyt[i] = key(&c.tctx, c.db.pool + c.db.ents[i].off,
			      c.db.ents[i].len, &tlen[i]);
	classes(keyk, klen, n, ck);
	classes(keyt, tlen, n, ct);

	uint64_t groups = 0, colliding = 0, ill = 0, changes = 0;
	uint64_t merge = 0, split = 0, losers;
	for (i = 0; i < n; i++) {
		size_t size_k = 0, off;

		for (j = 0; j < n; j++) {
			if ((ck[i] == ck[j]) !=
			    (c.db.ents[i].group == c.db.ents[j].group))
				fail("a class differs from equal keys");
			if (c.whatif &&
			    (ct[i] == ct[j]) !=
				    (c.db.ents[i].tgroup == c.db.ents[j].tgroup))
				fail("a what-if class differs from equal keys");
			size_k += ck[j] == ck[i];
		}
		if (ck[i] == i && size_k > 1) {
			groups++;
			colliding += size_k;
		}
		ill += fold_validate(&c.ctx, c.db.pool + c.db.ents[i].off,
				     c.db.ents[i].len, &off) != 0;
		changes += klen[i] != tlen[i] ||
			   memcmp(keyk[i], keyt[i], klen[i]);
		if (ck[i] == i && size_k > 1) {
			/* a class in two or more target classes splits */
			for (j = 0; j < n; j++)
				if (ck[j] == i && ct[j] != ct[i])
					break;
			split += j < n;
		}
		if (ct[i] == i) {
			/* a target class holding two base classes merges */
			for (j = 0; j < n; j++)
				if (ct[j] == i && ck[j] != ck[i])
					break;
			merge += j < n;
		}
	}
	losers = colliding - groups;
	if (c.st.groups != groups || c.st.colliding != colliding ||
	    c.st.ill_formed != ill)
		fail("collision or ill-formed counts differ from the model");
	if (c.whatif && (c.st.class_changes != changes ||
			 c.st.would_collide != merge ||
			 c.st.would_split != split))
		fail("what-if counts differ from the model");

	/* the dry run's new spellings: one per loser, entries n.. */
	if (c.fix) {
		if (c.st.would_rename != losers || c.db.n != n + losers)
			fail("the dry run did not plan one name per loser");
		for (i = n; i < c.db.n; i++) {
			const char *s = c.db.pool + c.db.ents[i].off;
			size_t len = c.db.ents[i].len, src, off;

			if (len > NAME_MAX_ || memchr(s, '/', len) ||
			    memchr(s, '\0', len))
				fail("a planned name is too long or holds / or "
				     "NUL");
			for (src = 0; src < n; src++)
				if (plausible(c.db.pool + c.db.ents[src].off,
					      c.db.ents[src].len, s, len) &&
				    is_loser(&c.db, ck, n, src) &&
				    (c.db.ents[src].bad ||
				     fold_validate(&c.kctx, s, len, &off) == 0))
					break;
			if (src == n)
				fail("a planned name is not a loser's name "
				     "plus \" (N)\", or is ill-formed when "
				     "the loser is not");
			for (j = 0; j < i; j++)
				if (klen[j] == klen[i] &&
				    !memcmp(keyk[j], keyk[i], klen[i]))
					fail("a planned name is equivalent to "
					     "another name");
		}
	}
	for (i = 0; i < c.db.n; i++)
		free(keyk[i]);
	for (i = 0; i < n; i++)
		free(keyt[i]);
	return 0;
}
