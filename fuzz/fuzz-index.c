/*
 * fuzz-index.c - the daemon's per-directory fold index (fs/dirindex.c)
 * against a plain model: a list of stored names, where "has" is byte
 * equality and the winner for a spelling is the bytewise smallest stored
 * name that fold_equal() finds equivalent to it -- the rule lookups obey.
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
 * Names longer than the daemon's NAME_BUF - 1 bytes are cut.  Any
 * disagreement prints the script position and aborts.
 *
 * The index module is linked as the daemon builds it; the few daemon
 * services it calls (nodes, watches, logging) are stubbed here: the
 * fuzzer never builds an index from a directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foldfs.h"
#include "fuzz-ctx.h"

#define MODEL_MAX 48

struct foldfs F;

void dlog(const char *fmt, ...)
{
	(void)fmt;
}

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

void watch_dir(struct node *d)
{
	(void)d;
}

void watch_unwatch(struct node *d)
{
	(void)d;
}

void watch_stamps_after(struct node *d, const struct dir_stamp *pre)
{
	(void)d;
	(void)pre;
}

static char model[MODEL_MAX][NAME_BUF];
static size_t nmodel;

static int model_find(const char *name)
{
	for (size_t i = 0; i < nmodel; i++)
		if (!strcmp(model[i], name))
			return (int)i;
	return -1;
}

/* The winner by the rule: bytewise smallest equivalent stored name
 * (strcmp orders bytes as unsigned char, shorter prefix first). */
static const char *model_winner(const char *name)
{
	const char *best = NULL;

	for (size_t i = 0; i < nmodel; i++)
		if (fold_equal(&F.ctx, name, strlen(name), model[i],
			       strlen(model[i])) &&
		    (!best || strcmp(model[i], best) < 0))
			best = model[i];
	return best;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dirindex *x;
	char name[NAME_BUF], out[NAME_BUF];
	size_t pos = 1;

	if (size < 1 || fuzz_ctx(data[0], size, &F.ctx) < 0)
		return 0;
	memset(&F.seed, 0x5a, sizeof F.seed);
	nmodel = 0;
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
			if (model_find(name) < 0) {
				if (nmodel == MODEL_MAX)
					break;
				memcpy(model[nmodel++], name, len + 1);
			}
			idx_add(x, name);
			break;
		case 'd': {
			int i = model_find(name);
			if (i >= 0)
				memcpy(model[i], model[--nmodel], NAME_BUF);
			idx_del(x, name);
			break;
		}
		case 'h':
			if (!idx_has(x, name) != (model_find(name) < 0))
				fail("idx_has disagrees with the model", name, at);
			break;
		case 'w': {
			const char *want = model_winner(name);
			int r = idx_winner(x, name, out);
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
	/* Every stored name is its own winner's class member and found. */
	for (size_t i = 0; i < nmodel; i++) {
		if (!idx_has(x, model[i]))
			fail("a stored name is missing", model[i], size);
		if (idx_winner(x, model[i], out) != 0 ||
		    strcmp(out, model_winner(model[i])))
			fail("a stored name's winner differs", model[i], size);
	}
	idx_free(x);
	return 0;
}
