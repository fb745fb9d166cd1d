/*
 * fuzz-record.c - the encoding record parser (common/record.c), which
 * every mount and foldfs-check run feeds whatever SOURCE/.foldfs holds.
 *
 * Each input is written as .foldfs into a scratch directory and read
 * back with foldfs_record_read().  It must either fail with -EINVAL and a
 * one-line, printable message, or succeed with a record that makes sense:
 * format 1, a canonical encoding libfold accepts, known flags, terminated
 * fields -- and that survives foldfs_record_write() and a second read
 * unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fold.h"
#include "record.h"

static int dirfd_in = -1, dirfd_out = -1;
static char dir_in[64], dir_out[64];

static void cleanup(void)
{
	char p[128];

	snprintf(p, sizeof p, "%s/.foldfs", dir_in);
	unlink(p);
	snprintf(p, sizeof p, "%s/.foldfs", dir_out);
	unlink(p);
	rmdir(dir_in);
	rmdir(dir_out);
}

static void setup(void)
{
	strcpy(dir_in, "/tmp/fuzz-record-in.XXXXXX");
	strcpy(dir_out, "/tmp/fuzz-record-out.XXXXXX");
	if (!mkdtemp(dir_in) || !mkdtemp(dir_out)) {
		perror("fuzz-record: mkdtemp");
		abort();
	}
	dirfd_in = open(dir_in, O_RDONLY | O_DIRECTORY);
	dirfd_out = open(dir_out, O_RDONLY | O_DIRECTORY);
	if (dirfd_in < 0 || dirfd_out < 0) {
		perror("fuzz-record: open");
		abort();
	}
	atexit(cleanup);
}

static void fail(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "fuzz-record: %s; input (%zu bytes):\n", what, size);
	fwrite(data, 1, size, stderr);
	fputc('\n', stderr);
	abort();
}

static int terminated(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct foldfs_record rec, again;
	struct fold_ctx ctx;
	char err[256], canon[64];
	int fd, r;

	if (dirfd_in < 0)
		setup();
	fd = openat(dirfd_in, ".foldfs", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		perror("fuzz-record: writing the input");
		abort();
	}
	close(fd);
	memset(err, 'x', sizeof err);
	r = foldfs_record_read(dirfd_in, &rec, err, sizeof err);
	if (r != 0) {
		if (r != -EINVAL)
			fail("an error other than EINVAL", data, size);
		if (!terminated(err, sizeof err) || !err[0])
			fail("no message with the error", data, size);
		for (const char *p = err; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				fail("a control character in the message", data,
				     size);
		return 0;
	}
	if (rec.format != 1 || rec.flags & ~(unsigned)(FOLD_STRICT |
						       FOLD_COMPAT |
						       FOLD_IGNORABLES))
		fail("accepted a bad format or flag", data, size);
	if (!terminated(rec.encoding, sizeof rec.encoding) ||
	    !terminated(rec.created, sizeof rec.created) ||
	    !terminated(rec.creator, sizeof rec.creator))
		fail("an unterminated field", data, size);
	if (foldfs_record_ctx(&rec, &ctx) != 0)
		fail("accepted an encoding libfold refuses", data, size);
	if (fold_encoding_name(&ctx, canon, sizeof canon) < 0 ||
	    strcmp(canon, rec.encoding))
		fail("the encoding is not in canonical form", data, size);
	if (!rec.created[0] || !rec.creator[0])
		return 0; /* write would fill them in: no round trip */
	r = foldfs_record_write(dirfd_out, &rec);
	if (r != 0)
		fail("a record that was read cannot be written", data, size);
	r = foldfs_record_read(dirfd_out, &again, err, sizeof err);
	if (r != 0 || again.format != rec.format || again.flags != rec.flags ||
	    strcmp(again.encoding, rec.encoding) ||
	    strcmp(again.created, rec.created) ||
	    strcmp(again.creator, rec.creator))
		fail("write + read changed the record", data, size);
	return 0;
}
