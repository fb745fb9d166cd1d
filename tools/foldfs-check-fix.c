/*
 * foldfs-check-fix.c - resolving collisions by renaming (undone by
 * foldfs-check-undo.c).
 *
 * Every loser of a collision group gets a readable unique spelling
 * ("Report (2).txt").  Each rename is one renameat2(RENAME_NOREPLACE), so
 * nothing is ever overwritten or deleted, and is written to the log (and
 * the log synced) *before* it happens: if the process dies between the two,
 * the log names one rename that did not happen, which --undo recognises
 * (the new name is absent, the old one present) and skips.  The log is
 * append-only text with hex-encoded paths and names, so any byte survives,
 * and the inode number of what is renamed, so --undo moves nothing else:
 *
 *     # foldfs-check rename log, format 2; undo: foldfs-check --undo FILE
 *     rename <dir hex> <old name hex> <new name hex> <inode>
 *     failed <dir hex> <old name hex> <new name hex> <inode>  (refused)
 *
 * (Format 1 had no inode numbers.)  A "failed" line cancels the rename
 * line before it.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "foldfs-check.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* Build candidate number num for entry i: "stem (num).ext" for files,
 * "name (num)" for directories, kept within NAME_MAX bytes by shortening the
 * stem at a character boundary. */
static size_t candidate(const char *name, size_t len, int is_dir,
			unsigned num, char *out)
{
	size_t stem = len, extlen, sfx, i;
	char suffix[24];

	if (!is_dir) {
		for (i = len; i > 1; i--)
			if (name[i - 1] == '.')
				break;
		/* A dot that is not the first byte and not the last, and a
		 * short extension without spaces: "a.tar.gz" -> ".gz". */
		if (i > 1 && i < len && len - i <= 16 &&
		    !memchr(name + i, ' ', len - i))
			stem = i - 1;
	}
	extlen = len - stem;
	sfx = (size_t)snprintf(suffix, sizeof suffix, " (%u)", num);
	while (stem && stem + sfx + extlen > NAME_MAX) {
		unsigned k;

		stem--;
		/* do not cut a UTF-8 sequence in two (it has at most three
		 * continuation bytes: an ill-formed name loses no more) */
		for (k = 0; k < 3 && stem &&
			    ((unsigned char)name[stem] & 0xc0) == 0x80;
		     k++)
			stem--;
	}
	memcpy(out, name, stem);
	memcpy(out + stem, suffix, sfx);
	memcpy(out + stem + sfx, name + len - extlen, extlen);
	return stem + sfx + extlen;
}

static char *hexdup(const char *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	char *o = malloc(2 * n + 1);
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		o[2 * i] = hx[(unsigned char)s[i] >> 4];
		o[2 * i + 1] = hx[(unsigned char)s[i] & 15];
	}
	o[2 * n] = '\0';
	return o;
}

/* Append all of buf to the log, or nothing: a write that fails part way
 * is cut off again, so the log never holds a partial line that a later
 * run would append to. */
static int log_write(struct check *c, const char *buf, size_t n)
{
	struct stat st;
	size_t done = 0;

	if (fstat(c->log_fd, &st) < 0)
		return -errno;
	while (done < n) {
		ssize_t w = write(c->log_fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			if (ftruncate(c->log_fd, st.st_size) < 0) {
				int te = errno;

				fprintf(stderr,
					"foldfs-check: %s: could not remove "
					"a partly written line: %s\n",
					rep_q(c->log_name), strerror(te));
			}
			return -e;
		}
		done += (size_t)w;
	}
	return 0;
}

static int log_write_header(struct check *c);

/* An existing log to append to: it must be one (a header --undo reads),
 * and a last line left incomplete (by a full disk or a crash) is cut off
 * -- its rename was never attempted, and the next line must not be glued
 * to it.  Where that line was the header itself, it is written again. */
static int log_check_existing(struct check *c, off_t size)
{
	char buf[4096];
	size_t ml = strlen(LOG_MAGIC);
	off_t end = size;
	ssize_t got = pread(c->log_fd, buf, ml + 2, 0);

	if (got >= 16 && got <= (ssize_t)ml && got == size &&
	    !memcmp(buf, LOG_MAGIC, (size_t)got)) {
		/* all there is, the start of our header ("# foldfs-check
		 * r" at least: no one else's file): cut off below */
	} else if (got < (ssize_t)ml + 1 || memcmp(buf, LOG_MAGIC, ml) ||
		   buf[ml] < '1' || buf[ml] > '0' + LOG_FORMAT ||
		   (got > (ssize_t)ml + 1 && buf[ml + 1] >= '0' &&
		    buf[ml + 1] <= '9')) {
		fprintf(stderr,
			"foldfs-check: %s: exists and is not a foldfs-check "
			"rename log; not appending to it (choose another "
			"--log)\n",
			rep_q(c->log_name));
		return -EEXIST;
	}
	while (end > 0) {
		size_t k = end < (off_t)sizeof buf ? (size_t)end : sizeof buf;
		size_t i;

		got = pread(c->log_fd, buf, k, end - (off_t)k);

		if (got != (ssize_t)k)
			return got < 0 ? -errno : -EIO;
		for (i = k; i > 0 && buf[i - 1] != '\n'; i--)
			;
		if (i > 0) {
			end -= (off_t)(k - i);
			break;
		}
		end -= (off_t)k;
	}
	if (end == size)
		return 0;
	if (ftruncate(c->log_fd, end) < 0)
		return -errno;
	if (!end) {
		fprintf(stderr,
			"foldfs-check: %s: its header line was incomplete: "
			"written again\n",
			rep_q(c->log_name));
		return log_write_header(c);
	}
	fprintf(stderr,
		"foldfs-check: %s: removed an incomplete last line (its "
		"rename was never attempted)\n",
		rep_q(c->log_name));
	return 0;
}

/* The first line: LOG_MAGIC, the format, and how to undo, with the log's
 * (absolute) name escaped so that any byte (a newline, say) keeps it one
 * line, and one shown by cat(1) cannot drive the terminal. */
static int log_write_header(struct check *c)
{
	size_t n = strlen(c->log_name), k;
	char *hdr = malloc(strlen(LOG_MAGIC) + 64 + 4 * n);
	int r;

	if (!hdr)
		return -ENOMEM;
	k = (size_t)sprintf(hdr, "%s%d; undo: foldfs-check --undo ", LOG_MAGIC,
			    LOG_FORMAT);
	foldfs_escape(c->log_name, hdr + k, 4 * n + 1);
	k += strlen(hdr + k);
	hdr[k++] = '\n';
	r = log_write(c, hdr, k);
	free(hdr);
	return r;
}

/* A new log's directory entry made durable too, before the first rename
 * it announces (fdatasync of the log covers only the file). */
static int log_sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : NULL;
	int fd, r = 0;

	if (slash && !dir)
		return -ENOMEM;
	fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		r = errno == EINVAL || errno == EROFS ? 0 : -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return r;
}

int fix_open_log(struct check *c)
{
	struct stat st;
	char def[64];
	int r;

	if (c->log_err)
		return -c->log_err;
	if (c->log_fd >= 0)
		return 0;
	if (!c->log_name) {
		if (!c->log_path) {
			time_t now = time(NULL);
			struct tm tm;

			gmtime_r(&now, &tm);
			strftime(def, sizeof def,
				 "foldfs-check-fix-%Y%m%d-%H%M%S.log", &tm);
			c->log_name = strdup(def);
		} else {
			c->log_name = strdup(c->log_path);
		}
		if (!c->log_name) {
			c->log_err = ENOMEM;
			return -ENOMEM;
		}
		/* The header's undo command, the messages and the check
		 * for a moved log need a name that works from any
		 * directory: the one --undo is run from is another. */
		if (c->log_name[0] != '/') {
			char *cwd = getcwd(NULL, 0), *abs = NULL;

			if (!cwd || asprintf(&abs, "%s%s%s", cwd,
					     strcmp(cwd, "/") ? "/" : "",
					     c->log_name) < 0)
				abs = NULL;
			free(cwd);
			if (!abs) {
				r = errno ? -errno : -ENOMEM;
				fprintf(stderr,
					"foldfs-check: %s: cannot make the "
					"rename log's path absolute: %s\n",
					rep_q(c->log_name), strerror(-r));
				c->log_err = -r;
				return r;
			}
			free(c->log_name);
			c->log_name = abs;
		}
	}
	/* No symbolic link: the default name is predictable, and whoever
	 * can write the current directory (a share being fixed, say) could
	 * otherwise make us create or append to any file. */
	c->log_fd = open(c->log_name,
			 O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY |
				 O_NOFOLLOW,
			 0644);
	if (c->log_fd < 0 && errno == ELOOP) {
		r = -ELOOP;
		fprintf(stderr,
			"foldfs-check: %s: the rename log must be a regular "
			"file, not a symbolic link\n",
			rep_q(c->log_name));
	} else if (c->log_fd < 0 || fstat(c->log_fd, &st) < 0) {
		r = -errno;
		fprintf(stderr, "foldfs-check: %s: cannot open rename log: %s\n",
			rep_q(c->log_name), strerror(-r));
	} else if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		fprintf(stderr,
			"foldfs-check: %s: the rename log must be a regular "
			"file\n",
			rep_q(c->log_name));
	} else {
		r = st.st_size ? log_check_existing(c, st.st_size)
			       : log_write_header(c);
		if (r == 0 && !st.st_size)
			r = log_sync_dir(c->log_name);
		if (r < 0 && r != -EEXIST)
			fprintf(stderr,
				"foldfs-check: %s: cannot write rename log: "
				"%s\n",
				rep_q(c->log_name), strerror(-r));
	}
	if (r < 0) {
		if (c->log_fd >= 0)
			close(c->log_fd);
		c->log_fd = -1;
		c->log_err = -r;
		return r;
	}
	c->log_dev = st.st_dev;
	c->log_ino = st.st_ino;
	if (!c->json && !c->quiet)
		printf("foldfs-check: logging renames to %s\n",
		       rep_q(c->log_name));
	return 0;
}

void fix_close_log(struct check *c)
{
	struct stat st;

	if (c->log_fd < 0)
		return;
	fsync(c->log_fd);
	/* The log is never renamed, but a directory above it in the tree
	 * may have been: say where it is now, or --undo would not find it. */
	if (stat(c->log_name, &st) < 0 || st.st_dev != c->log_dev ||
	    st.st_ino != c->log_ino) {
		char fdp[32], now[PATH_MAX];
		ssize_t n;

		snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", c->log_fd);
		n = readlink(fdp, now, sizeof now - 1);
		now[n > 0 ? n : 0] = '\0';
		fprintf(stderr,
			"foldfs-check: %s: the rename log moved with a "
			"directory renamed above it; it is now %s\n",
			rep_q(c->log_name), n > 0 ? rep_q(now) : "elsewhere");
	}
	close(c->log_fd);
	c->log_fd = -1;
}

/* Append one log line and make it durable before the rename happens.  A
 * log that cannot be written stops all further renames (c->log_err). */
static int log_line(struct check *c, const char *verb, const char *path,
		    size_t pathlen, const char *old, size_t oldlen,
		    const char *new, size_t newlen, unsigned long long ino)
{
	size_t rl = strlen(c->root_abs), dl;
	char *dir, *h1, *h2, *h3, *line;
	int r = 0;

	/* The log names the directory by absolute path: the display path
	 * with the PATH operand replaced by its realpath. */
	dl = rl + (pathlen - c->root_len);
	dir = malloc(dl + 1);
	if (!dir)
		return -ENOMEM;
	memcpy(dir, c->root_abs, rl);
	memcpy(dir + rl, path + c->root_len, pathlen - c->root_len);
	dir[dl] = '\0';
	h1 = hexdup(dir, dl);
	h2 = hexdup(old, oldlen);
	h3 = hexdup(new, newlen);
	line = (h1 && h2 && h3)
		       ? malloc(strlen(verb) + strlen(h1) + strlen(h2) +
				strlen(h3) + 32)
		       : NULL;
	if (line) {
		size_t n = (size_t)sprintf(line, "%s %s %s %s %llu\n", verb, h1,
					   h2, h3, ino);

		r = log_write(c, line, n);
		if (r == 0 && fdatasync(c->log_fd) < 0)
			r = -errno;
	} else {
		r = -ENOMEM;
	}
	if (r < 0) {
		fprintf(stderr,
			"foldfs-check: %s: cannot write rename log: %s; no "
			"more renames\n",
			rep_q(c->log_name), strerror(-r));
		c->log_err = -r;
	}
	free(line);
	free(h1);
	free(h2);
	free(h3);
	free(dir);
	return r;
}

/* One rename, done, planned or failed (err: its errno; reason: why, when
 * it was not even tried). */
static void report_rename(struct check *c, const char *path, size_t pathlen,
			  const char *old, size_t oldlen, const char *new,
			  size_t newlen, const char *status, int err,
			  const char *reason)
{
	if (c->json) {
		rep_json_begin(c, "rename", path, pathlen);
		putc(',', stdout);
		rep_json_name(stdout, "from", old, oldlen);
		putc(',', stdout);
		rep_json_name(stdout, "to", new, newlen);
		printf(",\"status\":\"%s\"", status);
		if (reason) {
			fputs(",\"reason\":", stdout);
			rep_json_str(stdout, reason, strlen(reason));
		}
		rep_json_end(err);
		return;
	}
	rep_dir_header(c, path, pathlen);
	printf("    %s '", !strcmp(status, "done")	    ? "renamed"
			   : !strcmp(status, "dry-run") ? "would rename"
							  : "FAILED to rename");
	rep_escape(stdout, old, oldlen);
	fputs("' -> '", stdout);
	rep_escape(stdout, new, newlen);
	putc('\'', stdout);
	if (reason)
		printf(": %s", reason);
	if (err)
		printf(reason ? " (%s)" : ": %s", strerror(err));
	putc('\n', stdout);
}

/* Did candidate() shorten the name to make room for " (num)"?  Then a
 * number with fewer digits keeps more of it. */
static int cut_for(size_t oldlen, size_t newlen, unsigned num)
{
	return newlen != oldlen + (size_t)snprintf(NULL, 0, " (%u)", num);
}

int fix_rename(struct check *c, int dirfd, const char *path, size_t pathlen,
	       size_t i, struct fix_next next[2])
{
	struct dirbuf *db = &c->db;
	char old[NAME_MAX + 1], new[NAME_MAX + 1];
	size_t oldlen = db->ents[i].len, newlen;
	int is_dir = db->ents[i].is_dir;
	unsigned num;
	struct stat ost;
	int r;

	if (oldlen > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(old, db->pool + db->ents[i].off, oldlen);
	old[oldlen] = '\0';
	/* Counting from 2 for every loser made a group of n names cost n^2/2
	 * lookups.  Start after the number the group's previous loser of
	 * the same kind got when this one's spelling of that number is
	 * equivalent to the name it got: the " (N)" between them then makes
	 * stems and extensions equivalent, so the numbers below, all taken
	 * for that loser, are taken for this one too.  Not if either name
	 * was shortened for the number: a smaller number, with fewer digits,
	 * cuts it elsewhere (ent is then -1 for the previous one). */
	num = 2;
	if (next[is_dir].ent >= 0) {
		newlen = candidate(old, oldlen, is_dir, next[is_dir].num - 1,
				   new);
		if (!cut_for(oldlen, newlen, next[is_dir].num - 1) &&
		    scan_name_class(c, new, newlen) == next[is_dir].ent)
			num = next[is_dir].num;
	}
	for (; num < 1000000; num++) {
		struct stat st;

		newlen = candidate(old, oldlen, is_dir, num, new);
		new[newlen] = '\0';
		if (scan_name_taken(c, new, newlen))
			continue;
		if (!c->yes) {
			/* Dry run: reserve the spelling so the next loser
			 * gets another one, as the real run would. */
			next[is_dir].num = num + 1;
			next[is_dir].ent = scan_add_name(c, new, newlen, 0) < 0
						   ? -1
						   : (int32_t)db->n - 1;
			if (cut_for(oldlen, newlen, num))
				next[is_dir].ent = -1;
			c->st.would_rename++;
			report_rename(c, path, pathlen, old, oldlen, new,
				      newlen, "dry-run", 0, NULL);
			return 0;
		}
		/* Not in our listing but created since? */
		if (fstatat(dirfd, new, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		/* No rename without its line in the log; the log names
		 * what it renames by inode, so --undo never moves another
		 * file that took the name later. */
		r = c->log_err ? -c->log_err : 0;
		if (!r && c->log_fd < 0 && (r = fix_open_log(c)) < 0)
			c->st.errors++;
		if (!r && fstatat(dirfd, old, &ost, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
		else if (!r && ost.st_dev == c->log_dev &&
			 ost.st_ino == c->log_ino) {
			c->st.rename_failed++;
			report_rename(c, path, pathlen, old, oldlen, new,
				      newlen, "failed", 0,
				      "it is the rename log (use a --log "
				      "outside the tree)");
			return -EBUSY;
		}
		if (!r && (r = log_line(c, "rename", path, pathlen, old,
					 oldlen, new, newlen,
					 (unsigned long long)ost.st_ino)) < 0)
			c->st.errors++;
		if (r < 0) {
			c->st.rename_failed++;
			report_rename(c, path, pathlen, old, oldlen, new,
				      newlen, "failed", -r,
				      c->log_err ? "the rename log cannot be "
						   "written; not renamed"
						 : NULL);
			return r;
		}
		if (renameat2(dirfd, old, dirfd, new, RENAME_NOREPLACE) == 0)
			break;
		r = -errno;
		/* cancels the rename line for --undo */
		if (log_line(c, "failed", path, pathlen, old, oldlen, new,
			     newlen, (unsigned long long)ost.st_ino) < 0) {
			c->st.errors++;
			c->st.rename_failed++;
			report_rename(c, path, pathlen, old, oldlen, new,
				      newlen, "failed", r == -EEXIST ? 0 : -r,
				      "the rename log cannot be written");
			return r;
		}
		if (r == -EEXIST)
			continue;
		c->st.rename_failed++;
		report_rename(c, path, pathlen, old, oldlen, new, newlen,
			      "failed", -r, NULL);
		return r;
	}
	if (num >= 1000000) {
		c->st.rename_failed++;
		return -EEXIST;
	}
	c->st.renamed++;
	db->ents[i].renamed = 1;
	next[is_dir].num = num + 1;
	next[is_dir].ent = scan_add_name(c, new, newlen, is_dir) < 0
				   ? -1
				   : (int32_t)db->n - 1;
	if (cut_for(oldlen, newlen, num))
		next[is_dir].ent = -1;
	report_rename(c, path, pathlen, old, oldlen, new, newlen, "done", 0,
		      NULL);
	c->renames_done++;
	if (c->stop_after && c->renames_done >= c->stop_after) {
		/* Test hook: die like a power cut right after a rename. */
		fflush(stdout);
		raise(SIGKILL);
	}
	return 0;
}
