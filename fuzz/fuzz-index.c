/*
 * fuzz-index.c - the daemon's per-directory fold index (fs/dirindex.c)
 * against a plain model: a list of stored names, where "has" is byte
 * equality and the winner for a spelling is the bytewise smallest stored
 * name with the spelling's key (fold_key(), while the index uses fold_hash()
 * and fold_equal()) -- the rule lookups obey.
 *
 * Input: byte 0 picks the comparison context (fuzz-ctx.h, so every form,
 * flag and version is covered); the rest is a script of NUL-separated
 * records, each an opcode byte followed by a name:
 *   a  add the name (idx_add, as a create through the mount does)
 *   d  delete it (idx_del)
 *   h  ask whether it is stored exactly (idx_has)
 *   w  ask which stored name it denotes (idx_winner)
 *   b  rebuild the index from the model's names, each listed twice, the
 *      way a directory scan builds it (idx_from_names; the duplicates
 *      exercise the drop a racing readdir needs)
 *   g  add GROW spellings made from the name (grown()): classes of
 *      eight equivalent names share a chain, a second 'g' outgrows the
 *      first 64 buckets (rehash), and after a 'b' (64 names listed twice:
 *      64 buckets, 64 free slots) so does the next add, free slots and
 *      all
 *   s  delete those GROW spellings again: with long names, enough dead
 *      pool bytes that the pool is compacted
 * Names longer than the daemon's NAME_BUF - 1 bytes are cut.  Any
 * disagreement prints the script position and aborts.
 *
 * The index module is linked as the daemon builds it; the few daemon
 * services it calls (nodes, watches, logging) are stubbed here and in
 * fuzz-daemon-stubs.c: the fuzzer never builds an index from a directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foldfs.h"
#include "fuzz-ctx.h"

#define GROW 64
#define MODEL_MAX (48 + 2 * GROW)

struct foldfs F;

int name_hidden(struct node *d, const char *name)
{
	(void)d;
	(void)name;
	return 0;
}

void node_hold(struct node *n)
{
	(void)n;
}

void node_put(struct node *n)
{
	(void)n;
}

int node_hold_if_forgotten(struct node *n)
{
	(void)n;
	return 0; /* the model's directory is never forgotten */
}

static char model[MODEL_MAX][NAME_BUF];
static char *mkey[MODEL_MAX]; /* each name's key, malloc'ed */
static size_t mkeylen[MODEL_MAX], nmodel;

static int model_find(const char *name)
{
	for (size_t i = 0; i < nmodel; i++)
		if (!strcmp(model[i], name))
			return (int)i;
	return -1;
}

/* The key of name (malloc'ed) under F.ctx without FOLD_STRICT, which
 * changes no key but refuses ill-formed names. */
static char *key_of(const char *name, size_t *len)
{
	struct fold_ctx k = F.ctx;
	size_t n = strlen(name);
	ssize_t r;
	char *p;

	k.flags &= ~FOLD_STRICT;
	r = fold_key(&k, name, n, NULL, 0);
	p = r < 0 ? NULL : malloc((size_t)r + 1);
	if (!p || fold_key(&k, name, n, p, (size_t)r) != r)
		abort();
	*len = (size_t)r;
	return p;
}

/* The winner by the rule: bytewise smallest stored name with name's key
 * (strcmp orders bytes as unsigned char, shorter prefix first). */
static const char *model_winner(const char *name)
{
	const char *best = NULL;
	size_t kl;
	char *k = key_of(name, &kl);

	for (size_t i = 0; i < nmodel; i++)
		if (mkeylen[i] == kl && !memcmp(mkey[i], k, kl) &&
		    (!best || strcmp(model[i], best) < 0))
			best = model[i];
	free(k);
	return best;
}

/* Spelling k of name for 'g' and 's': the case of its first three
 * ASCII letters flipped by the low bits of k, then " " and k / 8 at the
 * end (cut into the name where it would be too long): up to eight
 * equivalent spellings of each of GROW / 8 names. */
static void grown(const char *name, unsigned k, char *out)
{
	size_t len = strlen(name), bit = 0;
	char num[16];
	int nl = snprintf(num, sizeof num, " %u", k / 8);

	if (len > NAME_BUF - 1 - (size_t)nl)
		len = NAME_BUF - 1 - (size_t)nl;
	memcpy(out, name, len);
	for (size_t i = 0; i < len && bit < 3; i++) {
		unsigned char c = (unsigned char)out[i];
		if ((c | 32) >= 'a' && (c | 32) <= 'z' && (k >> bit++ & 1))
			out[i] = (char)(c ^ 32);
	}
	memcpy(out + len, num, (size_t)nl + 1);
}

static void model_add(const char *name)
{
	if (model_find(name) < 0 && nmodel < MODEL_MAX) {
		memcpy(model[nmodel], name, strlen(name) + 1);
		mkey[nmodel] = key_of(name, &mkeylen[nmodel]);
		nmodel++;
	}
}

static void model_del(const char *name)
{
	int i = model_find(name);

	if (i >= 0) {
		free(mkey[i]);
		nmodel--;
		memcpy(model[i], model[nmodel], NAME_BUF);
		mkey[i] = mkey[nmodel];
		mkeylen[i] = mkeylen[nmodel];
	}
}

static void fail(const char *what, const char *name, size_t pos)
{
	fprintf(stderr, "fuzz-index: %s at script byte %zu\n", what, pos);
	fuzz_hex("name", name, strlen(name));
	abort();
}

static struct dirindex *rebuild(struct dirindex *x)
{
	const char *names[2 * MODEL_MAX];
	size_t n = 0;

	for (size_t i = nmodel; i-- > 0;)
		names[n++] = model[i];
	for (size_t i = 0; i < nmodel; i++)
		names[n++] = model[i];
	idx_free(x);
	x = idx_from_names(names, n);
	if (!x)
		abort(); /* out of memory under the fuzzer: report it */
	return x;
}

/* Every stored name is found, and is its own winner's class member. */
static void final_check(struct dirindex *x, size_t size)
{
	char out[NAME_BUF];

	for (size_t i = 0; i < nmodel; i++) {
		if (!idx_has(x, model[i]))
			fail("a stored name is missing", model[i], size);
		if (idx_winner(x, model[i], out, NULL) != 0 ||
		    strcmp(out, model_winner(model[i])))
			fail("a stored name's winner differs", model[i], size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dirindex *x;
	char name[NAME_BUF], out[NAME_BUF];
	size_t pos = 1;

	if (size < 1 || fuzz_ctx(data[0], size, &F.ctx) < 0)
		return 0;
	memset(&F.seed, 0x5a, sizeof F.seed);
	while (nmodel)
		free(mkey[--nmodel]);
	x = idx_from_names(NULL, 0);
	if (!x)
		abort();
	while (pos < size) {
		const uint8_t *end = memchr(data + pos, 0, size - pos);
		size_t rec = end ? (size_t)(end - (data + pos)) : size - pos;
		size_t at = pos;
		uint8_t op = data[pos];
		size_t len = rec ? rec - 1 : 0;

		if (len > NAME_BUF - 1)
			len = NAME_BUF - 1;
		if (len)
			memcpy(name, data + pos + 1, len);
		name[len] = '\0';
		pos += rec + 1;
		if (!len && op != 'b')
			continue; /* the daemon never handles an empty name */
		switch (op) {
		case 'a':
			if (model_find(name) < 0 && nmodel == MODEL_MAX)
				break;
			model_add(name);
			idx_add(x, name);
			break;
		case 'd':
			model_del(name);
			idx_del(x, name);
			break;
		case 'g':
		case 's':
			for (unsigned k = 0; k < GROW; k++) {
				char g[NAME_BUF];

				grown(name, k, g);
				if (op == 's') {
					model_del(g);
					idx_del(x, g);
				} else if (model_find(g) >= 0 ||
					   nmodel < MODEL_MAX) {
					model_add(g);
					idx_add(x, g);
				}
			}
			break;
		case 'h':
			if (!idx_has(x, name) != (model_find(name) < 0))
				fail("idx_has disagrees with the model", name, at);
			break;
		case 'w': {
			const char *want = model_winner(name);
			int r = idx_winner(x, name, out, NULL);
			if (want ? (r != 0 || strcmp(out, want)) : r != -ENOENT)
				fail(want ? "idx_winner gave another name"
					  : "idx_winner found a name the model has not",
				     name, at);
			break;
		}
		case 'b':
			x = rebuild(x);
			break;
		default:
			break;
		}
		if (idx_entries(x) != nmodel)
			fail("entry count differs from the model", name, at);
	}
	final_check(x, size);
	idx_free(x);
	return 0;
}
