/*
 * fuzz-record.c - common/record.c: the encoding record parser, which
 * every mount and foldfs-check run feeds whatever SOURCE/.foldfs holds,
 * the reader of the mount table that tells a foldfs view
 * (foldfs_on_view) and the casefold attribute's helpers.
 *
 * The input up to its first "\0M" (a record holding a NUL is refused
 * anyway) is written as .foldfs into a scratch directory and read back
 * with foldfs_record_read().  It must either fail with -EINVAL and a
 * one-line, printable message, or succeed with a record that makes sense:
 * format 1, a canonical encoding libfold accepts, known flags, terminated
 * fields -- and that survives foldfs_record_write() and a second read
 * unchanged.  foldfs_record_print() (foldfs --info, foldfs-check --info)
 * must show it, with its creator as the source directory, in lines of
 * printable text whose free-text fields unescape to the record's own.
 * What follows the "\0M" makes a mount table, written as the kernel
 * writes /proc/self/mountinfo, for foldfs_on_view() to read (check_view),
 * and then a script for the casefold attribute (check_casefold).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fold.h"
#include "record.h"
#include "u8.h"

static int dirfd_in = -1, dirfd_out = -1;
static char dir_in[64], dir_out[64];

static void fail(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "fuzz-record: %s; input (%zu bytes):\n", what, size);
	fwrite(data, 1, size, stderr);
	fputc('\n', stderr);
	abort();
}

static void cleanup(void)
{
	char p[128];

	snprintf(p, sizeof p, "%s/.foldfs", dir_in);
	unlink(p);
	snprintf(p, sizeof p, "%s/.foldfs", dir_out);
	unlink(p);
	snprintf(p, sizeof p, "%s/x", dir_in);
	rmdir(p);
	rmdir(dir_in);
	rmdir(dir_out);
}

/* ---- foldfs_on_view: a mount table made from the input ---- */

/* record.o's fstatfs and fopen are these (fuzz-fs.mk). */
static int fake_fuse;
static char fake_table[8192];
static size_t fake_len;

int fuzz_fstatfs(int fd, struct statfs *sf)
{
	int r = fstatfs(fd, sf);

	if (r == 0 && fake_fuse)
		sf->f_type = 0x65735546; /* FUSE_SUPER_MAGIC */
	return r;
}

FILE *fuzz_fopen(const char *path, const char *mode)
{
	if (!strcmp(path, "/proc/self/mountinfo"))
		return fmemopen(fake_table, fake_len ? fake_len : 1, "r");
	return fopen(path, mode);
}

/* As the kernel writes a path or a source in mountinfo (seq_escape). */
static void put_escaped(FILE *f, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\\')
			fprintf(f, "\\%03o", s[i]);
		else
			fputc(s[i], f);
}

/*
 * byte 0: bits 0-2 the number of mounts, bit 3 the directory is on FUSE,
 * bits 4-6 the size of the caller's buffer; per mount a byte (bits 0-1
 * its device: the directory's, two others, the directory's; bits 2-3 its
 * type: fuse.foldfs, fuse, fuse.foldfsx, ext4; bit 4 optional fields;
 * bit 5 a root other than "/"), a length (mod 48) and the source's bytes
 * (NUL read as '0'; none is "none").  The answer must be the unescaped
 * source of the first mount of the directory's device typed fuse.foldfs,
 * cut to the buffer, and nothing past it written; 1 if that source is a
 * directory outside the view, else 2.
 */
static size_t check_view(const uint8_t *p, size_t n)
{
	static const size_t caps[8] = { 0, 1, 2, 7, 64, 255, 4096, 4096 };
	static const char *const types[4] = { "fuse.foldfs", "fuse",
					      "fuse.foldfsx", "ext4" };
	static char want[256], got[4096 + 16];
	struct stat st;
	size_t at = 1, cap, wlen = 0;
	int found = 0, lines;
	FILE *f;

	if (!n)
		return 0;
	lines = p[0] & 7;
	fake_fuse = p[0] >> 3 & 1;
	cap = caps[p[0] >> 4 & 7];
	if (fstat(dirfd_in, &st) < 0 || !(f = fmemopen(fake_table,
						       sizeof fake_table, "w")))
		abort();
	for (int i = 0; i < lines && at + 2 <= n; i++) {
		unsigned sel = p[at], len = p[at + 1] % 48u;
		unsigned dev = sel & 3;
		unsigned maj = major(st.st_dev) + (dev == 2);
		unsigned min = minor(st.st_dev) + (dev == 1);
		unsigned char src[48];

		at += 2;
		if (len > n - at)
			len = (unsigned)(n - at);
		for (unsigned k = 0; k < len; k++)
			src[k] = p[at + k] ? p[at + k] : '0';
		at += len;
		fprintf(f, "%d 1 %u:%u ", 30 + i, maj, min);
		if (sel & 32) {
			fputc('/', f);
			put_escaped(f, src, len);
		} else {
			fputc('/', f);
		}
		fputs(" /mnt/", f);
		put_escaped(f, src, len);
		fputs(" rw,nosuid", f);
		if (sel & 16)
			fputs(" shared:7 master:1", f);
		fprintf(f, " - %s ", types[sel >> 2 & 3]);
		if (len)
			put_escaped(f, src, len);
		else
			fputs("none", f);
		fputs(" rw,user_id=0,group_id=0\n", f);
		if (!found && fake_fuse && dev % 3 == 0 && !(sel >> 2 & 3)) {
			found = 1;
			wlen = len ? len : 4;
			memcpy(want, len ? (const char *)src : "none", wlen);
		}
	}
	fflush(f);
	fake_len = (size_t)ftell(f);
	fclose(f);
	/* 2: the source names no directory outside the view, which a
	 * view mounted over its own SOURCE or fsname= make */
	if (found) {
		char wz[sizeof want + 1];
		struct stat ws;
		memcpy(wz, want, wlen);
		wz[wlen] = '\0';
		if (wz[0] != '/' || stat(wz, &ws) < 0 || !S_ISDIR(ws.st_mode) ||
		    ws.st_dev == st.st_dev)
			found = 2;
	}
	memset(got, 'x', sizeof got);
	if (foldfs_on_view(dirfd_in, cap ? got : NULL, cap) != found)
		fail(found ? "foldfs_on_view missed the view"
			   : "foldfs_on_view found a view that is not there",
		     (const uint8_t *)fake_table, fake_len);
	if (found && cap) {
		size_t keep = wlen < cap - 1 ? wlen : cap - 1;

		if (memcmp(got, want, keep) || got[keep])
			fail("foldfs_on_view gave another source",
			     (const uint8_t *)fake_table, fake_len);
		for (size_t i = keep + 1; i < sizeof got; i++)
			if (got[i] != 'x')
				fail("foldfs_on_view wrote past the source",
				     (const uint8_t *)fake_table, fake_len);
	} else if (!found) {
		for (size_t i = 0; i < sizeof got; i++)
			if (got[i] != 'x')
				fail("foldfs_on_view wrote without a view",
				     (const uint8_t *)fake_table, fake_len);
	}
	fake_fuse = 0;
	return at;
}

/* ---- the casefold attribute ---- */

/*
 * A script on a directory of our own, each step a byte: bits 0-2 what,
 * bit 3 through an O_PATH descriptor, bits 4-7 an argument.
 *   0 set the attribute's raw value (the argument: its length, the
 *     bytes "1" or "11..." or "0")   1 remove it   2 foldfs_dir_casefold_get
 *   3 foldfs_dir_casefold_set(on)    4 ... (off)
 *   5 chmod: the argument's bits 0-2 the owner's rwx, bit 3 set-group-ID
 *     (group and others r-x)
 *   6 owner, group: argument bit 0 uid 1000 (else root), bit 1 gid 1001
 *   7 act as uid 1000 (argument bit 0) or as root
 * Each call is checked against what the value was: get answers 1 for
 * exactly "1", else 0, or -EACCES where the caller may not read it; set
 * leaves "1" (on) or nothing (off), also where the caller owns the
 * directory but may not write it (the mode comes back as it was), and
 * fails with -EACCES, changing nothing, where the caller may not write
 * it and does not own it, or could not chmod it and back (set-group-ID
 * and the caller outside its group).
 */
static int xdir_fd = -1, xpath_fd = -1;
static gid_t my_groups[64];
static int my_ngroups;

static int in_my_groups(gid_t g)
{
	if (g == getegid())
		return 1;
	for (int i = 0; i < my_ngroups; i++)
		if (my_groups[i] == g)
			return 1;
	return 0;
}

/* The attribute's raw value now: its length, -1 if there is none. */
static ssize_t raw_value(char *v, size_t cap)
{
	ssize_t n = fgetxattr(xdir_fd, FOLDFS_XATTR_CASEFOLD, v, cap);

	if (n < 0 && errno != ENODATA)
		abort();
	return n;
}

static void be(uid_t uid)
{
	if (seteuid(uid) < 0)
		abort();
	/* (a changed euid makes /proc/self private to root, and the
	 * helpers go through /proc/self/fd for an O_PATH descriptor) */
	prctl(PR_SET_DUMPABLE, 1);
}

static void check_casefold(const uint8_t *p, size_t n)
{
	uid_t me = 0;
	struct stat st;

	if (xdir_fd < 0 || n > 64)
		return;
	fremovexattr(xdir_fd, FOLDFS_XATTR_CASEFOLD);
	if (fchown(xdir_fd, 0, 0) < 0 || fchmod(xdir_fd, 0755) < 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		unsigned what = p[i] & 7, arg = p[i] >> 4;
		int fd = p[i] & 8 ? xpath_fd : xdir_fd, r;
		char v[16];
		ssize_t len;

		if (fstat(xdir_fd, &st) < 0)
			abort();
		unsigned bits = me == st.st_uid	       ? st.st_mode >> 6
				: in_my_groups(st.st_gid) ? st.st_mode >> 3
							  : st.st_mode;
		int may_read = me == 0 || (bits & 4);
		int may_write = me == 0 || (bits & 2);

		switch (what) {
		case 0:
			memset(v, arg & 1 ? '1' : '0', sizeof v);
			if (fsetxattr(xdir_fd, FOLDFS_XATTR_CASEFOLD, v, arg,
				      0) < 0)
				abort();
			break;
		case 1:
			fremovexattr(xdir_fd, FOLDFS_XATTR_CASEFOLD);
			break;
		case 2:
			len = raw_value(v, sizeof v);
			be(me);
			r = foldfs_dir_casefold_get(fd);
			be(0);
			if (r != (!may_read ? -EACCES : len == 1 && v[0] == '1'))
				fail("foldfs_dir_casefold_get gave another "
				     "answer",
				      p, n);
			break;
		case 3:
		case 4:
			len = raw_value(v, sizeof v);
			be(me);
			r = foldfs_dir_casefold_set(fd, what == 3);
			be(0);
			{
				struct stat now;
				/* (not where the chmod would clear the
				 * set-group-ID bit for good) */
				int owner_only = !may_write && me == st.st_uid &&
						 !(st.st_mode & S_IWUSR) &&
						 (!(st.st_mode & S_ISGID) ||
						  in_my_groups(st.st_gid));
				int ok = may_write || owner_only;
				char w[16];
				ssize_t wl = raw_value(w, sizeof w);

				if (r != (ok ? 0 : -EACCES))
					fail("foldfs_dir_casefold_set gave "
					      "another answer",
					      p, n);
				if (fstat(xdir_fd, &now) < 0 ||
				    now.st_mode != st.st_mode ||
				    now.st_uid != st.st_uid ||
				    now.st_gid != st.st_gid)
					fail("foldfs_dir_casefold_set changed "
					      "the directory's mode or owner",
					      p, n);
				if (ok && (what == 3 ? wl != 1 || w[0] != '1'
						     : wl != -1))
					fail("foldfs_dir_casefold_set left "
					      "another value",
					      p, n);
				if (!ok && (wl != len ||
					    (len > 0 &&
					     memcmp(w, v, (size_t)len))))
					fail("a refused foldfs_dir_casefold_set "
					      "changed the value",
					      p, n);
			}
			break;
		case 5:
			if (fchmod(xdir_fd, (mode_t)((arg & 7) << 6 | 055 |
						     (arg & 8 ? S_ISGID : 0))) < 0)
				abort();
			break;
		case 6:
			if (fchown(xdir_fd, arg & 1 ? 1000 : 0,
				   arg & 2 ? 1001 : 0) < 0)
				abort();
			break;
		case 7:
			me = arg & 1 ? 1000 : 0;
			break;
		}
	}
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
	/* the attribute's directory; its uid tests need root */
	if (geteuid() == 0 && mkdirat(dirfd_in, "x", 0755) == 0) {
		xdir_fd = openat(dirfd_in, "x", O_RDONLY | O_DIRECTORY);
		xpath_fd = openat(dirfd_in, "x", O_PATH | O_DIRECTORY);
		my_ngroups = getgroups(64, my_groups);
		/* user xattrs: not on every file system */
		if (my_ngroups < 0 ||
		    (fsetxattr(xdir_fd, FOLDFS_XATTR_CASEFOLD, "1", 1, 0) < 0 &&
		     errno == ENOTSUP))
			xdir_fd = -1;
	}
}

/* The text after "tag" on a line of out[0..n), \\ and \xNN undone, is
 * want; every line is printable text. */
static int shows(const char *out, size_t n, const char *tag,
		 const char *want)
{
	char raw[256];
	int seen = 0;

	for (const char *l = out, *e; l < out + n; l = e + 1) {
		size_t o = 0, len;

		if (!(e = memchr(l, '\n', (size_t)(out + n - l))))
			return 0;
		for (const char *p = l; p < e; p += len) {
			uint32_t cp;

			len = u8_decode((const unsigned char *)p,
					(size_t)(e - p), &cp);
			if (!len || u8_unsafe(cp))
				return 0;
		}
		if (strncmp(l, tag, strlen(tag)))
			continue;
		for (const char *p = l + strlen(tag); p < e && o < sizeof raw;) {
			unsigned v;

			if (*p != '\\') {
				raw[o++] = *p++;
			} else if (p + 1 < e && p[1] == '\\') {
				raw[o++] = '\\';
				p += 2;
			} else if (p + 3 < e && p[1] == 'x' &&
				   sscanf(p + 2, "%2x", &v) == 1) {
				raw[o++] = (char)v;
				p += 4;
			} else {
				return 0;
			}
		}
		if (o != strlen(want) || memcmp(raw, want, o))
			return 0;
		seen = 1;
	}
	return seen;
}

static void check_print(const struct foldfs_record *rec,
			const uint8_t *data, size_t size)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	if (!f)
		abort();
	foldfs_record_print(rec, rec->creator, f);
	fclose(f);
	if (!shows(out, n, "Source directory:         ", rec->creator) ||
	    (rec->created[0] &&
	     !shows(out, n, "Created:                  ", rec->created)) ||
	    (rec->creator[0] &&
	     !shows(out, n, "Creator:                  ", rec->creator)))
		fail("the record is printed otherwise", data, size);
	free(out);
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
	const uint8_t *sep = data;
	size_t full = size;
	int fd, r;

	if (dirfd_in < 0)
		setup();
	while ((sep = memchr(sep, 0, size - (size_t)(sep - data))) &&
	       (size_t)(sep - data) + 1 < size && sep[1] != 'M')
		sep++;
	if (sep && (size_t)(sep - data) + 1 < size) {
		size_t t = (size_t)(sep - data) + 2;

		t += check_view(data + t, full - t);
		check_casefold(data + t, full - t);
		size = (size_t)(sep - data);
	}
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
	check_print(&rec, data, size);
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
