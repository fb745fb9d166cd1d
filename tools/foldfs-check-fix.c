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
 * append-only text with hex-encoded paths and names, so any byte survives.
 *
 *     # foldfs-check rename log, format 1; undo: foldfs-check --undo FILE
 *     rename <dir hex> <old name hex> <new name hex>
 *     failed <dir hex> <old name hex> <new name hex>   (attempt refused)
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
		stem--;
		/* do not cut a UTF-8 sequence in two */
		while (stem && ((unsigned char)name[stem] & 0xc0) == 0x80)
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

int fix_open_log(struct check *c)
{
	struct stat st;
	char def[64];

	if (c->log_fd >= 0)
		return 0;
	if (!c->log_path) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(def, sizeof def, "foldfs-check-fix-%Y%m%d-%H%M%S.log",
			 &tm);
		c->log_name = strdup(def);
	} else {
		c->log_name = strdup(c->log_path);
	}
	if (!c->log_name)
		return -ENOMEM;
	c->log_fd = open(c->log_name,
			 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
			 0644);
	if (c->log_fd < 0 || fstat(c->log_fd, &st) < 0) {
		int e = errno;

		fprintf(stderr, "foldfs-check: %s: cannot open rename log: %s\n",
			c->log_name, strerror(e));
		if (c->log_fd >= 0)
			close(c->log_fd);
		c->log_fd = -1;
		return -e;
	}
	if (st.st_size == 0) {
		char hdr[256];
		int n = snprintf(hdr, sizeof hdr,
				 LOG_MAGIC "; undo: foldfs-check --undo %s\n",
				 c->log_name);

		if (n > 0 && (size_t)n < sizeof hdr &&
		    write(c->log_fd, hdr, (size_t)n) != n)
			return -errno;
	}
	if (!c->json && !c->quiet)
		printf("foldfs-check: logging renames to %s\n", c->log_name);
	return 0;
}

void fix_close_log(struct check *c)
{
	if (c->log_fd >= 0) {
		fsync(c->log_fd);
		close(c->log_fd);
		c->log_fd = -1;
	}
}

/* Append one log line and make it durable before the rename happens. */
static int log_line(struct check *c, const char *verb, const char *path,
		    size_t pathlen, const char *old, size_t oldlen,
		    const char *new, size_t newlen)
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
				strlen(h3) + 8)
		       : NULL;
	if (line) {
		size_t n = (size_t)sprintf(line, "%s %s %s %s\n", verb, h1, h2,
					   h3);

		if (write(c->log_fd, line, n) != (ssize_t)n)
			r = errno ? -errno : -EIO;
		else if (fdatasync(c->log_fd) < 0)
			r = -errno;
	} else {
		r = -ENOMEM;
	}
	free(line);
	free(h1);
	free(h2);
	free(h3);
	free(dir);
	return r;
}

static void report_rename(struct check *c, const char *path, size_t pathlen,
			  const char *old, size_t oldlen, const char *new,
			  size_t newlen, const char *status, int err)
{
	if (c->json) {
		rep_json_begin(c, "rename", path, pathlen);
		putc(',', stdout);
		rep_json_name(stdout, "from", old, oldlen);
		putc(',', stdout);
		rep_json_name(stdout, "to", new, newlen);
		printf(",\"status\":\"%s\"", status);
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
	if (err)
		printf("': %s\n", strerror(err));
	else
		fputs("'\n", stdout);
}

int fix_rename(struct check *c, int dirfd, const char *path, size_t pathlen,
	       size_t i)
{
	struct dirbuf *db = &c->db;
	char old[NAME_MAX + 1], new[NAME_MAX + 1];
	size_t oldlen = db->ents[i].len, newlen;
	int is_dir = db->ents[i].is_dir;
	unsigned num;
	int r;

	if (oldlen > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(old, db->pool + db->ents[i].off, oldlen);
	old[oldlen] = '\0';
	for (num = 2; num < 1000000; num++) {
		struct stat st;

		newlen = candidate(old, oldlen, is_dir, num, new);
		new[newlen] = '\0';
		if (scan_name_taken(c, new, newlen))
			continue;
		if (!c->yes) {
			/* Dry run: reserve the spelling so the next loser
			 * gets another one, as the real run would. */
			scan_add_name(c, new, newlen, 0);
			c->st.would_rename++;
			report_rename(c, path, pathlen, old, oldlen, new,
				      newlen, "dry-run", 0);
			return 0;
		}
		/* Not in our listing but created since? */
		if (fstatat(dirfd, new, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		r = fix_open_log(c);
		if (r == 0)
			r = log_line(c, "rename", path, pathlen, old, oldlen,
				     new, newlen);
		if (r < 0) {
			c->st.rename_failed++;
			report_rename(c, path, pathlen, old, oldlen, new,
				      newlen, "failed", -r);
			return r;
		}
		if (renameat2(dirfd, old, dirfd, new, RENAME_NOREPLACE) == 0)
			break;
		r = -errno;
		log_line(c, "failed", path, pathlen, old, oldlen, new, newlen);
		if (r == -EEXIST)
			continue;
		c->st.rename_failed++;
		report_rename(c, path, pathlen, old, oldlen, new, newlen,
			      "failed", -r);
		return r;
	}
	if (num >= 1000000) {
		c->st.rename_failed++;
		return -EEXIST;
	}
	c->st.renamed++;
	db->ents[i].renamed = 1;
	scan_add_name(c, new, newlen, is_dir);
	report_rename(c, path, pathlen, old, oldlen, new, newlen, "done", 0);
	c->renames_done++;
	if (c->stop_after && c->renames_done >= c->stop_after) {
		/* Test hook: die like a power cut right after a rename. */
		fflush(stdout);
		raise(SIGKILL);
	}
	return 0;
}
