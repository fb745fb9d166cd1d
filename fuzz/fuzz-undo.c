/*
 * fuzz-undo.c - the parser of foldfs-check's rename log (--undo), which
 * reads a file anyone may have edited or truncated.
 *
 * Any input must parse or be refused without harm.  A log that parses
 * must hold what --undo may act on -- names that are non-empty, contain
 * no NUL and no '/', lengths that match -- and must come back entry for
 * entry (inode numbers included) when written out again in the log format
 * and re-read.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foldfs-check.h"

static void fail(const char *what, const uint8_t *d, size_t n)
{
	fprintf(stderr, "fuzz-undo: %s; input (%zu bytes):\n", what, n);
	fwrite(d, 1, n, stderr);
	fputc('\n', stderr);
	abort();
}

static void hex(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", (unsigned char)s[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct undo_ent *e = NULL, *e2 = NULL;
	size_t n = 0, n2 = 0;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	int r = undo_parse(f, "fuzz", NULL, &e, &n);
	fclose(f);
	if (r != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!e[i].dir || !e[i].oldlen || !e[i].newlen ||
		    strlen(e[i].old) != e[i].oldlen ||
		    strlen(e[i].new) != e[i].newlen ||
		    memchr(e[i].old, '/', e[i].oldlen) ||
		    memchr(e[i].new, '/', e[i].newlen))
			fail("an accepted entry --undo must not act on", data,
			     size);
	}
	f = open_memstream(&buf, &blen);
	if (!f)
		abort();
	fprintf(f, "%s%d\n", LOG_MAGIC, LOG_FORMAT);
	for (size_t i = 0; i < n; i++) {
		fputs("rename ", f);
		hex(f, e[i].dir, strlen(e[i].dir));
		fputc(' ', f);
		hex(f, e[i].old, e[i].oldlen);
		fputc(' ', f);
		hex(f, e[i].new, e[i].newlen);
		if (e[i].has_ino)
			fprintf(f, " %llu", e[i].ino);
		fputc('\n', f);
	}
	fclose(f);
	f = fmemopen(buf, blen, "r");
	if (!f || undo_parse(f, "again", NULL, &e2, &n2) != 0 || n2 != n)
		fail("the log written back does not parse the same", data,
		     size);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].dir, e2[i].dir) || strcmp(e[i].old, e2[i].old) ||
		    strcmp(e[i].new, e2[i].new) ||
		    e[i].has_ino != e2[i].has_ino || e[i].ino != e2[i].ino)
			fail("an entry changed through write + read", data,
			     size);
	free(buf);
	undo_free(e, n);
	undo_free(e2, n2);
	return 0;
}
