/*
 * record.c - the foldfs encoding record (SOURCE/.foldfs) and the per-directory
 * casefold attribute (xattr user.foldfs.casefold).  This module owns their
 * on-disk format; the daemon and foldfs-check only go through record.h.
 *
 * The record is a short "key=value" text file so an administrator can read
 * it with cat(1); it is parsed strictly (unknown keys and malformed lines are
 * refused) because a misread record would silently change which names are
 * equivalent.  Writes go through a temporary file, fsync and renameat, so a
 * crash leaves either the old or the new record, never a torn one.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#include "record.h"
#include "u8.h"

#ifndef FOLDFS_VERSION
#define FOLDFS_VERSION "0.1"
#endif

/* A record is a handful of short lines; anything bigger is not ours. */
#define RECORD_MAX 4096

char *foldfs_escape(const char *s, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;

	if (!cap)
		return out;
	while (i < n) {
		char e[U8_ESC_MAX];
		size_t used, l = u8_escape1(p + i, n - i, e, &used);

		if (o + l >= cap)
			break; /* cut between whole characters or escapes */
		memcpy(out + o, e, l);
		o += l;
		i += used;
	}
	out[o] = '\0';
	return out;
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char raw[1024];

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* Messages quote what the file holds; a crafted record must not
	 * send control sequences (C0 or C1) or bidi overrides to the
	 * terminal that prints them. */
	foldfs_escape(raw, err, errlen);
}

static const struct {
	const char *name;
	unsigned flag;
} flag_names[] = {
	{ "strict", FOLD_STRICT },
	{ "compat", FOLD_COMPAT },
	{ "ignorables", FOLD_IGNORABLES },
};
#define NFLAGS (sizeof flag_names / sizeof flag_names[0])

int foldfs_flags_parse(const char *s, unsigned *flags)
{
	unsigned f = 0;

	if (!s || !flags)
		return -EINVAL;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		const char *t = s;
		size_t i;

		/* Tolerate spaces around items ("strict, compat"). */
		while (n && (*t == ' ' || *t == '\t'))
			t++, n--;
		while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
			n--;
		if (n) {
			for (i = 0; i < NFLAGS; i++)
				if (strlen(flag_names[i].name) == n &&
				    !memcmp(flag_names[i].name, t, n))
					break;
			if (i == NFLAGS)
				return -EINVAL;
			f |= flag_names[i].flag;
		}
		if (!e)
			break;
		s = e + 1;
	}
	*flags = f;
	return 0;
}

void foldfs_flags_format(unsigned flags, char *buf, size_t cap)
{
	size_t len = 0, i;

	if (!buf || !cap)
		return;
	buf[0] = '\0';
	for (i = 0; i < NFLAGS; i++) {
		int r;

		if (!(flags & flag_names[i].flag))
			continue;
		r = snprintf(buf + len, cap - len, "%s%s", len ? "," : "",
			     flag_names[i].name);
		if (r < 0 || (size_t)r >= cap - len)
			return; /* truncated, still NUL-terminated */
		len += (size_t)r;
	}
}

int foldfs_record_ctx(const struct foldfs_record *rec, struct fold_ctx *ctx)
{
	if (!rec || !ctx)
		return FOLD_EINVAL;
	return fold_init(ctx, rec->encoding, FOLD_CASEFOLD,
			 rec->flags & (FOLD_STRICT | FOLD_COMPAT |
				       FOLD_IGNORABLES));
}

/* Canonical spelling of an encoding name ("utf8" -> "utf8-15.0.0"), so a
 * record never holds an alias whose meaning moves with the library. */
static int canon_encoding(const char *in, char *out, size_t cap)
{
	struct fold_ctx ctx;
	int r = fold_init(&ctx, in, FOLD_CASEFOLD, 0);

	if (r < 0)
		return r;
	r = fold_encoding_name(&ctx, out, cap);
	if (r < 0 || (size_t)r >= cap)
		return FOLD_EINVAL;
	return 0;
}

/* Copy v into a fixed field; refuse what does not fit rather than cut it. */
/* A control character other than tab: never part of a record value
 * (the reader refuses it, the writer never writes it). */
static int has_ctl(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 1;
	return 0;
}

static int set_field(char *dst, size_t cap, const char *v)
{
	size_t n = strlen(v);

	if (n >= cap)
		return -1;
	memcpy(dst, v, n + 1);
	return 0;
}

static int parse_record(char *text, size_t len, struct foldfs_record *rec,
			char *err, size_t errlen)
{
	char *line = text, *end = text + len;
	int lineno = 0, have_format = 0, have_encoding = 0;
	char enc[64] = "";

	memset(rec, 0, sizeof *rec);
	if (memchr(text, '\0', len)) {
		seterr(err, errlen, "record contains a NUL byte");
		return -EINVAL;
	}
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *key, *val, *eq, *p;

		if (!nl) {
			seterr(err, errlen, "line %d: missing final newline",
			       lineno + 1);
			return -EINVAL;
		}
		*nl = '\0';
		lineno++;
		key = line;
		line = nl + 1;
		/* Strip trailing CR/space so a record edited on another
		 * system still reads. */
		for (p = nl; p > key && (p[-1] == ' ' || p[-1] == '\t' ||
					 p[-1] == '\r');)
			*--p = '\0';
		while (*key == ' ' || *key == '\t')
			key++;
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			seterr(err, errlen, "line %d: expected key=value",
			       lineno);
			return -EINVAL;
		}
		*eq = '\0';
		val = eq + 1;
		for (p = eq; p > key && (p[-1] == ' ' || p[-1] == '\t');)
			*--p = '\0';
		while (*val == ' ' || *val == '\t')
			val++;
		if (has_ctl(val)) {
			seterr(err, errlen,
			       "line %d: control character in the value of %s",
			       lineno, key);
			return -EINVAL;
		}

		if (!strcmp(key, "format")) {
			char *e;
			long f;

			errno = 0;
			f = strtol(val, &e, 10);
			if (!*val || *e || errno || f <= 0 || f > 1000000) {
				seterr(err, errlen,
				       "line %d: bad format number '%s'",
				       lineno, val);
				return -EINVAL;
			}
			rec->format = (int)f;
			have_format = 1;
		} else if (!strcmp(key, "encoding")) {
			if (set_field(enc, sizeof enc, val)) {
				seterr(err, errlen,
				       "line %d: encoding name too long",
				       lineno);
				return -EINVAL;
			}
			have_encoding = 1;
		} else if (!strcmp(key, "flags")) {
			if (foldfs_flags_parse(val, &rec->flags)) {
				seterr(err, errlen,
				       "line %d: unknown flag in '%s' "
				       "(known: strict, compat, ignorables)",
				       lineno, val);
				return -EINVAL;
			}
		} else if (!strcmp(key, "created")) {
			if (set_field(rec->created, sizeof rec->created, val)) {
				seterr(err, errlen,
				       "line %d: created= value too long",
				       lineno);
				return -EINVAL;
			}
		} else if (!strcmp(key, "creator")) {
			if (set_field(rec->creator, sizeof rec->creator, val)) {
				seterr(err, errlen,
				       "line %d: creator= value too long",
				       lineno);
				return -EINVAL;
			}
		} else {
			seterr(err, errlen, "line %d: unknown key '%s'", lineno,
			       key);
			return -EINVAL;
		}
	}
	if (!have_format) {
		seterr(err, errlen, "no format= line");
		return -EINVAL;
	}
	if (rec->format != 1) {
		seterr(err, errlen,
		       "record format %d is not supported by this build "
		       "(only format 1)",
		       rec->format);
		return -EINVAL;
	}
	if (!have_encoding) {
		seterr(err, errlen, "no encoding= line");
		return -EINVAL;
	}
	{
		int r = canon_encoding(enc, rec->encoding,
				       sizeof rec->encoding);

		if (r == FOLD_EVERSION) {
			seterr(err, errlen,
			       "encoding '%s' names a Unicode version this "
			       "build does not know",
			       enc);
			return -EINVAL;
		}
		if (r < 0) {
			seterr(err, errlen, "unknown encoding '%s' (%s)", enc,
			       fold_strerror(r));
			return -EINVAL;
		}
	}
	return 0;
}

int foldfs_record_read(int rootfd, struct foldfs_record *rec, char *err,
		       size_t errlen)
{
	char buf[RECORD_MAX + 1];
	size_t len = 0;
	struct stat st;
	int fd, r;

	if (err && errlen)
		err[0] = '\0';
	if (!rec)
		return -EINVAL;
	fd = openat(rootfd, FOLDFS_RECORD_NAME,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			seterr(err, errlen, "cannot open %s: %s",
			       FOLDFS_RECORD_NAME, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		seterr(err, errlen, "cannot stat %s: %s", FOLDFS_RECORD_NAME,
		       strerror(-r));
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errlen, "%s is not a regular file",
		       FOLDFS_RECORD_NAME);
		close(fd);
		return -EINVAL;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof buf - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			seterr(err, errlen, "cannot read %s: %s",
			       FOLDFS_RECORD_NAME, strerror(-r));
			close(fd);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == sizeof buf)
			break;
	}
	close(fd);
	if (len > RECORD_MAX) {
		seterr(err, errlen, "%s is larger than %d bytes",
		       FOLDFS_RECORD_NAME, RECORD_MAX);
		return -EINVAL;
	}
	buf[len] = '\0';
	return parse_record(buf, len, rec, err, errlen);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A value must stay on its line and survive the parser's trimming. */
static int field_ok(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		return 0;
	if (has_ctl(s))
		return 0;
	if (n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
		  s[n - 1] == '\t'))
		return 0;
	return 1;
}

/* Put the written temporary record in place: replacing one that exists,
 * or (create) only if there is none, -EEXIST otherwise (two first mounts
 * at once must not both win).  RENAME_NOREPLACE where the file system has
 * it, else a hard link, which fails on an existing name too. */
static int record_place(int rootfd, const char *tmp, int create)
{
	if (!create)
		return renameat(rootfd, tmp, rootfd, FOLDFS_RECORD_NAME) < 0
			       ? -errno
			       : 0;
	if (syscall(SYS_renameat2, rootfd, tmp, rootfd, FOLDFS_RECORD_NAME,
		    RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(rootfd, tmp, rootfd, FOLDFS_RECORD_NAME, 0) < 0)
		return -errno;
	unlinkat(rootfd, tmp, 0);
	return 0;
}

static int record_write(int rootfd, const struct foldfs_record *rec,
			int create)
{
	char enc[sizeof rec->encoding], flags[64], created[32], tmp[64];
	char text[RECORD_MAX];
	const char *creator;
	int fd, dfd, r, n, tries;

	if (!rec || (rec->format != 0 && rec->format != 1))
		return -EINVAL;
	if (!field_ok(rec->encoding, sizeof rec->encoding) ||
	    !field_ok(rec->created, sizeof rec->created) ||
	    !field_ok(rec->creator, sizeof rec->creator))
		return -EINVAL;
	if (rec->flags & ~(FOLD_STRICT | FOLD_COMPAT | FOLD_IGNORABLES))
		return -EINVAL;
	if (canon_encoding(rec->encoding, enc, sizeof enc) < 0)
		return -EINVAL;
	foldfs_flags_format(rec->flags, flags, sizeof flags);
	if (rec->created[0]) {
		memcpy(created, rec->created, sizeof created);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		if (!gmtime_r(&now, &tm) ||
		    !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ",
			      &tm))
			snprintf(created, sizeof created, "unknown");
	}
	creator = rec->creator[0] ? rec->creator : "foldfs " FOLDFS_VERSION;
	n = snprintf(text, sizeof text,
		     "# foldfs encoding record - do not edit; see foldfs(8)\n"
		     "format=1\n"
		     "encoding=%s\n"
		     "flags=%s\n"
		     "created=%s\n"
		     "creator=%s\n",
		     enc, flags, created, creator);
	if (n < 0 || (size_t)n >= sizeof text)
		return -EINVAL;

	/* A temporary name of our own (pid, then a number): one that exists
	 * is somebody's file, never removed (it may be a user's, or another
	 * writer's in progress). */
	for (tries = 0;; tries++) {
		snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%d", FOLDFS_RECORD_NAME,
			 (long)getpid(), tries);
		fd = openat(rootfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd >= 0)
			break;
		if (errno != EEXIST || tries >= 999)
			return -errno;
	}
	r = write_all(fd, text, (size_t)n);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r)
		r = record_place(rootfd, tmp, create);
	if (r) {
		unlinkat(rootfd, tmp, 0);
		return r;
	}
	/* Make the rename itself durable.  rootfd may be an O_PATH fd, which
	 * fsync refuses, so open the directory for reading. */
	dfd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0 && errno != EINVAL && errno != EROFS)
			r = -errno;
		close(dfd);
	}
	return r;
}

int foldfs_record_write(int rootfd, const struct foldfs_record *rec)
{
	return record_write(rootfd, rec, 0);
}

int foldfs_record_create(int rootfd, const struct foldfs_record *rec)
{
	return record_write(rootfd, rec, 1);
}

/* f*xattr refuse O_PATH descriptors (EBADF); the /proc/self/fd magic link
 * reaches the same inode without needing a readable descriptor. */
static ssize_t dir_getxattr(int dirfd, const char *name, void *val, size_t sz)
{
	char path[64];
	ssize_t r = fgetxattr(dirfd, name, val, sz);

	if (r >= 0 || errno != EBADF || dirfd < 0)
		return r;
	snprintf(path, sizeof path, "/proc/self/fd/%d", dirfd);
	return getxattr(path, name, val, sz);
}

static int dir_setxattr(int dirfd, const char *name, const void *val,
			size_t sz)
{
	char path[64];
	int r = fsetxattr(dirfd, name, val, sz, 0);

	if (r == 0 || errno != EBADF || dirfd < 0)
		return r;
	snprintf(path, sizeof path, "/proc/self/fd/%d", dirfd);
	return setxattr(path, name, val, sz, 0);
}

static int dir_removexattr(int dirfd, const char *name)
{
	char path[64];
	int r = fremovexattr(dirfd, name);

	if (r == 0 || errno != EBADF || dirfd < 0)
		return r;
	snprintf(path, sizeof path, "/proc/self/fd/%d", dirfd);
	return removexattr(path, name);
}

int foldfs_dir_casefold_get(int dirfd)
{
	char v[8];
	ssize_t n = dir_getxattr(dirfd, FOLDFS_XATTR_CASEFOLD, v, sizeof v);

	if (n < 0) {
		if (errno == ENODATA)
			return 0;
		if (errno == ERANGE) /* some longer value: not "1" */
			return 0;
		return -errno;
	}
	return n == 1 && v[0] == '1';
}

static int casefold_set_once(int dirfd, int on)
{
	if (on)
		return dir_setxattr(dirfd, FOLDFS_XATTR_CASEFOLD, "1", 1) < 0
			       ? -errno
			       : 0;
	if (dir_removexattr(dirfd, FOLDFS_XATTR_CASEFOLD) < 0 &&
	    errno != ENODATA)
		return -errno;
	return 0;
}

/* Is g the process's group or one of its supplementary groups? */
static int in_group(gid_t g)
{
	int n = getgroups(0, NULL), in = g == getegid();
	gid_t *list;

	if (in || n <= 0 || !(list = malloc((size_t)n * sizeof *list)))
		return in;
	n = getgroups(n, list);
	for (int i = 0; i < n && !in; i++)
		in = list[i] == g;
	free(list);
	return in;
}

int foldfs_dir_casefold_set(int dirfd, int on)
{
	struct stat st;
	char path[64];
	int r = casefold_set_once(dirfd, on);

	/* user.* xattrs need write permission on the inode, the casefold
	 * flag (as ext4's FS_IOC_SETFLAGS) only ownership: an owner without
	 * CAP_DAC_OVERRIDE may still flag its own read-only directory. */
	if (r != -EACCES || fstat(dirfd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & S_IWUSR))
		return r;
	/* An owner outside the directory's group cannot chmod it without
	 * clearing its set-group-ID bit, nor set that bit again. */
	if ((st.st_mode & S_ISGID) && !in_group(st.st_gid))
		return r;
	snprintf(path, sizeof path, "/proc/self/fd/%d", dirfd);
	if (chmod(path, (st.st_mode & 07777) | S_IWUSR) < 0)
		return r;
	r = casefold_set_once(dirfd, on);
	if (chmod(path, st.st_mode & 07777) < 0 && r == 0)
		r = -errno;
	return r;
}

void foldfs_record_print(const struct foldfs_record *rec, const char *source,
			 void *stdio_file)
{
	FILE *f = stdio_file ? (FILE *)stdio_file : stdout;
	struct fold_ctx ctx;
	char flags[64], val[4 * sizeof rec->created + 1], *esrc = NULL;
	const char *uv = NULL;
	int r;

	foldfs_flags_format(rec->flags, flags, sizeof flags);
	r = foldfs_record_ctx(rec, &ctx);
	if (!strncmp(rec->encoding, "utf8-", 5))
		uv = rec->encoding + 5;
	/* created= and creator= are free text (the reader refuses only C0
	 * controls there) and a path is any bytes: shown escaped. */
	if (source) {
		size_t cap = 4 * strlen(source) + 1;

		esrc = malloc(cap);
		if (esrc)
			foldfs_escape(source, esrc, cap);
		fprintf(f, "Source directory:         %s\n",
			esrc ? esrc : "?");
	}
	fprintf(f, "Record file:              %s%s%s\n",
		source ? esrc ? esrc : "?" : "", source ? "/" : "",
		FOLDFS_RECORD_NAME);
	fprintf(f, "Record format:            %d\n", rec->format);
	fprintf(f, "Encoding:                 %s%s\n", rec->encoding,
		r < 0 ? "  (not supported by this build)" : "");
	fprintf(f, "Character set:            %s\n",
		uv ? "UTF-8" : "ASCII (only A-Z fold)");
	if (uv)
		fprintf(f, "Unicode version:          %s\n", uv);
	fprintf(f, "Encoding flags:           %s\n", flags[0] ? flags : "(none)");
	fprintf(f, "Comparison:               %s\n",
		!uv ? "ASCII case-insensitive"
		: rec->flags & FOLD_COMPAT
			? "compatibility caseless match (NFKD + full case folding)"
			: "canonical caseless match (NFD + full case folding)");
	if (uv) {
		fprintf(f, "Default ignorables:       %s\n",
			rec->flags & FOLD_IGNORABLES
				? "ignored when comparing"
				: "significant");
		fprintf(f, "Ill-formed UTF-8 names:   %s\n",
			rec->flags & FOLD_STRICT
				? "refused (strict)"
				: "allowed, matched byte for byte");
	}
	fprintf(f, "Created:                  %s\n",
		rec->created[0] ? foldfs_escape(rec->created, val, sizeof val)
				: "(unknown)");
	fprintf(f, "Creator:                  %s\n",
		rec->creator[0] ? foldfs_escape(rec->creator, val, sizeof val)
				: "(unknown)");
	free(esrc);
}

/* ---- is a directory inside a foldfs view? ---- */

#define FUSE_SUPER_MAGIC_ 0x65735546

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(const char *in, char *out, size_t cap)
{
	size_t o = 0;

	while (*in && o + 1 < cap) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' &&
		    in[2] >= '0' && in[2] <= '7' && in[3] >= '0' &&
		    in[3] <= '7') {
			out[o++] = (char)((in[1] - '0') << 6 |
					  (in[2] - '0') << 3 | (in[3] - '0'));
			in += 4;
		} else {
			out[o++] = *in++;
		}
	}
	if (cap)
		out[o] = '\0';
}

int foldfs_record_governs(int parentfd, unsigned source_uid)
{
	struct stat st;

	if (fstatat(parentfd, FOLDFS_RECORD_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return st.st_uid == 0 || st.st_uid == geteuid() ||
	       st.st_uid == source_uid;
}

int foldfs_on_view(int fd, char *src, size_t cap)
{
	struct statfs sf;
	struct stat st;
	char *line = NULL, full[4096] = "";
	size_t len = 0;
	int found = 0;
	FILE *f;

	/* FUSE first: the mount table is read only for FUSE file systems */
	if (fstatfs(fd, &sf) < 0 || sf.f_type != FUSE_SUPER_MAGIC_ ||
	    fstat(fd, &st) < 0)
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - TYPE SOURCE
	 * SUPEROPTS" */
	while (!found && getline(&line, &len, f) > 0) {
		unsigned maj, min;
		char *sep, *type, *source, *save = NULL;

		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 ||
		    makedev(maj, min) != st.st_dev ||
		    !(sep = strstr(line, " - ")))
			continue;
		type = strtok_r(sep + 3, " \n", &save);
		source = strtok_r(NULL, " \n", &save);
		/* fuseblk: -o blkdev with a block device as fsname */
		if (type && source && (!strcmp(type, "fuse.foldfs") ||
				       !strcmp(type, "fuseblk.foldfs"))) {
			unescape_octal(source, src, cap);
			unescape_octal(source, full, sizeof full);
			found = 1;
		}
	}
	free(line);
	fclose(f);
	if (found) {
		/* Mounted over its own SOURCE (or above it), or named
		 * otherwise with fsname=: that name does not reach the tree. */
		struct stat ss;

		if (full[0] != '/' || stat(full, &ss) < 0 ||
		    !S_ISDIR(ss.st_mode) ||
		    ss.st_dev == st.st_dev)
			found = 2;
	}
	return found;
}
