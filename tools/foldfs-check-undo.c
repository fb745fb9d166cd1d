/*
 * foldfs-check-undo.c - --undo: reverse the renames of a log written by
 * --fix (format in foldfs-check-fix.c), newest first.
 *
 * The whole log is parsed before anything is touched, so a damaged log
 * undoes nothing; a "failed" line cancels the rename line it answers.
 * Each rename is reversed with RENAME_NOREPLACE: an original name that
 * came back meanwhile is never overwritten (reported as a conflict).  A
 * rename the log names but that never happened (the process died between
 * logging and renaming), or that a previous --undo already reversed, is
 * recognised by its state and skipped, so --undo can be run again safely;
 * where the log has the inode number (format 2), something else that has
 * taken the new name is never moved.  Directories are reached from / one
 * component at a time without following symbolic links, so a link put in
 * the tree after the fix cannot send a rename elsewhere, and paths longer
 * than PATH_MAX work.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "foldfs-check.h"

static int unhex(const char *h, size_t n, char **out, size_t *outlen)
{
	size_t i;
	char *o;

	if (n % 2)
		return -1;
	o = malloc(n / 2 + 1);
	if (!o)
		return -1;
	for (i = 0; i < n / 2; i++) {
		int v = 0, k;

		for (k = 0; k < 2; k++) {
			char ch = h[2 * i + (size_t)k];

			v <<= 4;
			if (ch >= '0' && ch <= '9')
				v |= ch - '0';
			else if (ch >= 'a' && ch <= 'f')
				v |= ch - 'a' + 10;
			else if (ch >= 'A' && ch <= 'F')
				v |= ch - 'A' + 10;
			else {
				free(o);
				return -1;
			}
		}
		o[i] = (char)v;
	}
	o[n / 2] = '\0';
	if (memchr(o, '\0', n / 2)) {
		free(o);
		return -1;
	}
	*out = o;
	if (outlen)
		*outlen = n / 2;
	return 0;
}

/* ok: restored or skipped, which -q leaves out; a failure is always
 * named (err, where there is one, is its errno). */
static void undo_report(struct check *c, const struct undo_ent *u,
			const char *status, int ok, int err)
{
	if (c->json) {
		fputs("{\"type\":\"undo\",", stdout);
		rep_json_name(stdout, "dir", u->dir, strlen(u->dir));
		putc(',', stdout);
		rep_json_name(stdout, "from", u->new, u->newlen);
		putc(',', stdout);
		rep_json_name(stdout, "to", u->old, u->oldlen);
		printf(",\"line\":%d,\"status\":\"%s\"", u->line, status);
		rep_json_end(err);
		return;
	}
	if (c->quiet && ok)
		return;
	rep_escape(stdout, u->dir, strlen(u->dir));
	printf(": %s '", status);
	rep_escape(stdout, u->new, u->newlen);
	fputs("' -> '", stdout);
	rep_escape(stdout, u->old, u->oldlen);
	putc('\'', stdout);
	if (err)
		printf(": %s", strerror(err));
	putc('\n', stdout);
}

/* Open the directory at the absolute path p, one component at a time,
 * following no symbolic link: a file descriptor, or -errno (ELOOP for a
 * symbolic link on the way, EINVAL for a path that is not canonical). */
static int open_dir_nofollow(const char *p)
{
	int fd;

	if (*p != '/')
		return -EINVAL;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (*p) {
		const char *e;
		char comp[NAME_MAX + 1];
		size_t n;
		int nfd;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n > NAME_MAX || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			return n > NAME_MAX ? -ENAMETOOLONG : -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		nfd = openat(fd, comp,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			int e2 = errno;
			struct stat st;

			if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				e2 = ELOOP;
			close(fd);
			return -e2;
		}
		close(fd);
		fd = nfd;
		p += n;
	}
	return fd;
}

/* The renames of a log by the path each one made, "dir/new", sorted by
 * that path and then by age: the newest rename older than entry `upto`
 * that made a given path is a binary search away, where a pass over all
 * older renames for each entry made a second --undo of a large log
 * quadratic. */
struct made {
	char *path;
	size_t len;
	size_t i; /* index in ents */
};

static int made_cmp(const void *a, const void *b)
{
	const struct made *x = a, *y = b;
	size_t m = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->path, y->path, m);

	if (r)
		return r;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static void made_free(struct made *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		free(m[i].path);
	free(m);
}

/* How much of a logged directory goes before "/" NAME in a path: all of
 * it, but nothing of "/" (a tree fixed from the root), so that the path
 * is "/NAME", as open_dir_nofollow and the log's other entries spell it. */
static size_t dir_prefix(const char *dir)
{
	return dir[0] == '/' && !dir[1] ? 0 : strlen(dir);
}

static struct made *made_index(const struct undo_ent *ents, size_t n)
{
	struct made *m = calloc(n ? n : 1, sizeof *m);

	if (!m)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t dl = dir_prefix(ents[i].dir);

		m[i].len = dl + 1 + ents[i].newlen;
		m[i].path = malloc(m[i].len + 1);
		m[i].i = i;
		if (!m[i].path) {
			made_free(m, n);
			return NULL;
		}
		memcpy(m[i].path, ents[i].dir, dl);
		m[i].path[dl] = '/';
		memcpy(m[i].path + dl + 1, ents[i].new, ents[i].newlen);
		m[i].path[m[i].len] = '\0';
	}
	qsort(m, n, sizeof *m, made_cmp);
	return m;
}

/* The newest entry older than upto that made path p (length len), or
 * -1. */
static long made_find(const struct made *m, size_t n, const char *p,
		      size_t len, size_t upto)
{
	struct made k = {(char *)p, len, upto};
	size_t lo = 0, hi = n;

	/* the first element not below (p, upto); the one before it is the
	 * newest older one, if it made p */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (made_cmp(&m[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || m[lo - 1].len != len || memcmp(m[lo - 1].path, p, len))
		return -1;
	return (long)m[lo - 1].i;
}

/*
 * The directory of entry `upto`, opened.  The log names each directory
 * as it was when the rename was made, which may be below a directory the
 * log renamed earlier; once that earlier rename has been undone (by this
 * run, or by a previous --undo), the path lives under the original name.
 * Rewrite such prefixes, older renames first skipped, until the path
 * opens.  Returns a file descriptor, or -errno of the logged path.
 */
static int undo_dir(const struct undo_ent *ents, const struct made *made,
		    size_t n, size_t upto, const char *dir)
{
	char *cur = strdup(dir);
	int err = -ENOMEM;

	for (size_t hop = 0; cur && hop <= upto; hop++) {
		size_t k, cl;
		long j = -1;
		int fd = open_dir_nofollow(cur);

		if (fd >= 0) {
			free(cur);
			return fd;
		}
		err = fd;
		if (fd != -ENOENT)
			break; /* a link, or unreadable: say so */
		/* The newest older rename that made cur or a directory above
		 * it (cur == v->dir "/" v->new, or below it). */
		cl = strlen(cur);
		for (k = 1; k <= cl; k++) {
			long f;

			if (k < cl && cur[k] != '/')
				continue;
			f = made_find(made, n, cur, k, upto);
			if (f > j)
				j = f;
		}
		if (j < 0)
			break; /* no rename of the log explains it */
		const struct undo_ent *v = &ents[j];
		size_t dl = dir_prefix(v->dir);
		const char *rest = cur + dl + 1 + v->newlen;
		char *nx = malloc(dl + 1 + v->oldlen + strlen(rest) + 1);
		if (!nx)
			break;
		memcpy(nx, v->dir, dl);
		nx[dl] = '/';
		memcpy(nx + dl + 1, v->old, v->oldlen);
		strcpy(nx + dl + 1 + v->oldlen, rest);
		free(cur);
		cur = nx;
	}
	free(cur);
	return err;
}

void undo_free(struct undo_ent *ents, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ents[i].dir);
		free(ents[i].old);
		free(ents[i].new);
	}
	free(ents);
}

/* Is the whole of s a decimal number that fits?  Then *v is it. */
static int parse_ino(const char *s, unsigned long long *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (~0ull - 9) / 10)
			return -1;
		x = x * 10 + (unsigned)(*s - '0');
	}
	*v = x;
	return 0;
}

static int same_rename(const struct undo_ent *a, const struct undo_ent *b)
{
	return !strcmp(a->dir, b->dir) && a->oldlen == b->oldlen &&
	       !memcmp(a->old, b->old, a->oldlen) && a->newlen == b->newlen &&
	       !memcmp(a->new, b->new, a->newlen) && a->has_ino == b->has_ino &&
	       a->ino == b->ino;
}

int undo_parse(FILE *f, const char *logpath, FILE *msgs,
	       struct undo_ent **out, size_t *nout)
{
	struct undo_ent *ents = NULL, fl;
	size_t n = 0, cap = 0, len = 0, ml = strlen(LOG_MAGIC);
	char *line = NULL;
	ssize_t got;
	int lineno = 0, bad = 0;

#define MSG(...) (msgs ? (void)fprintf(msgs, __VA_ARGS__) : (void)0)
	while ((got = getline(&line, &len, f)) > 0) {
		char *w[6], *p = line, *save = NULL;
		int k, failed;

		lineno++;
		/* An unfinished first line is a log only if it is the start
		 * of the header: anything else ("hello", a binary) is not a
		 * log, not an empty one. */
		if (line[got - 1] != '\n' && lineno == 1 &&
		    memcmp(line, LOG_MAGIC,
			   (size_t)got < ml ? (size_t)got : ml)) {
			MSG("foldfs-check: %s: not a foldfs-check rename log\n",
			    rep_q(logpath));
			bad = 1;
			break;
		}
		if (line[got - 1] != '\n') {
			MSG("foldfs-check: %s: line %d: truncated line "
			    "(ignored: its rename was never attempted)\n",
			    rep_q(logpath), lineno);
			break;
		}
		line[got - 1] = '\0';
		if (lineno == 1 &&
		    (strncmp(line, LOG_MAGIC, ml) || line[ml] < '1' ||
		     line[ml] > '0' + LOG_FORMAT ||
		     (line[ml + 1] >= '0' && line[ml + 1] <= '9'))) {
			MSG("foldfs-check: %s: not a foldfs-check rename log%s\n",
			    rep_q(logpath),
			    strncmp(line, LOG_MAGIC, ml) ? ""
							 : " of a format "
							   "this version knows");
			bad = 1;
			break;
		}
		if (line[0] == '#' || !line[0])
			continue;
		if (memchr(line, '\0', (size_t)got - 1)) {
			MSG("foldfs-check: %s: line %d: NUL byte\n",
			    rep_q(logpath), lineno);
			bad = 1;
			break;
		}
		for (k = 0; k < 6; k++, p = NULL) {
			w[k] = strtok_r(p, " ", &save);
			if (!w[k])
				break;
		}
		if (k < 4 || k > 5 ||
		    (strcmp(w[0], "rename") && strcmp(w[0], "failed"))) {
			MSG("foldfs-check: %s: line %d: malformed\n",
			    rep_q(logpath), lineno);
			bad = 1;
			break;
		}
		failed = !strcmp(w[0], "failed");
		if (!failed && n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct undo_ent *ne = realloc(ents, nc * sizeof *ne);

			if (!ne) {
				bad = 1;
				break;
			}
			ents = ne;
			cap = nc;
		}
		struct undo_ent *u = failed ? &fl : &ents[n];
		memset(u, 0, sizeof *u);
		u->line = lineno;
		u->has_ino = k == 5;
		if (unhex(w[1], strlen(w[1]), &u->dir, NULL) ||
		    unhex(w[2], strlen(w[2]), &u->old, &u->oldlen) ||
		    unhex(w[3], strlen(w[3]), &u->new, &u->newlen) ||
		    !u->oldlen || !u->newlen || memchr(u->old, '/', u->oldlen) ||
		    memchr(u->new, '/', u->newlen) ||
		    (u->has_ino && parse_ino(w[4], &u->ino))) {
			MSG("foldfs-check: %s: line %d: bad field\n",
			    rep_q(logpath), lineno);
			free(u->dir);
			free(u->old);
			free(u->new);
			bad = 1;
			break;
		}
		if (!failed) {
			n++;
			continue;
		}
		/* The attempt of the newest matching rename line was
		 * refused: that rename never happened. */
		size_t j = n;
		while (j > 0 && !same_rename(&ents[j - 1], &fl))
			j--;
		free(fl.dir);
		free(fl.old);
		free(fl.new);
		if (!j) {
			MSG("foldfs-check: %s: line %d: a failed line without "
			    "its rename line\n",
			    rep_q(logpath), lineno);
			bad = 1;
			break;
		}
		j--;
		free(ents[j].dir);
		free(ents[j].old);
		free(ents[j].new);
		memmove(&ents[j], &ents[j + 1], (n - j - 1) * sizeof *ents);
		n--;
	}
#undef MSG
	/* (getline fails without ferror when a line outgrows memory) */
	if (ferror(f) || (got < 0 && !feof(f))) {
		if (msgs)
			fprintf(msgs, "foldfs-check: %s: read error\n",
				rep_q(logpath));
		bad = 1;
	}
	free(line);
	if (bad) {
		undo_free(ents, n);
		return -1;
	}
	*out = ents;
	*nout = n;
	return 0;
}

/* Is the entry under its old name in dfd the one the log renamed (as
 * far as the log can tell: format 1 has no inode numbers)? */
static int old_is_ours(int dfd, const struct undo_ent *u)
{
	struct stat st;

	return fstatat(dfd, u->old, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (!u->has_ino || (unsigned long long)st.st_ino == u->ino);
}

/*
 * Entry i found neither its new name in dfd nor itself under its old one.
 * Was its old name one that an older rename of the log gave the same entry
 * (two --fix runs with one log, the second renaming what the first did)?
 * Then the older renames have been undone too and the entry is back under
 * an older name, found by following them: it was undone, not lost (where
 * the log has inode numbers, the one found must be the renamed entry).
 */
static int undone_further(const struct undo_ent *ents, const struct made *made,
			  size_t n, size_t i, int dfd)
{
	const struct undo_ent *u = &ents[i];
	const char *name = u->old;
	size_t len = u->oldlen, dl = dir_prefix(u->dir);
	long j = (long)i;
	struct stat st;
	char *p = NULL;
	int r = 0;

	/* older renames in the same directory that made name */
	for (;;) {
		char *np = realloc(p, dl + 1 + len);

		if (!np)
			break;
		p = np;
		memcpy(p, u->dir, dl);
		p[dl] = '/';
		memcpy(p + dl + 1, name, len);
		j = made_find(made, n, p, dl + 1 + len, (size_t)j);
		if (j < 0)
			break;
		const struct undo_ent *v = &ents[j];

		if (fstatat(dfd, v->old, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			r = !u->has_ino ||
			    (unsigned long long)st.st_ino == u->ino;
			break;
		}
		name = v->old;
		len = v->oldlen;
	}
	free(p);
	return r;
}

int undo_log(struct check *c, const char *logpath)
{
	/* O_NONBLOCK: a FIFO given as the log must not hang us; only a
	 * regular file is a log */
	int fd = open(logpath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat lst;
	FILE *f = NULL;
	struct undo_ent *ents = NULL;
	struct made *made = NULL;
	size_t n = 0, i;
	int status = EXIT_CLEAN, r;
	unsigned long restored = 0, skipped = 0, failed = 0;

	if (fd >= 0 && fstat(fd, &lst) == 0 && !S_ISREG(lst.st_mode)) {
		fprintf(stderr, "foldfs-check: %s: not a regular file, so not "
				"a rename log\n", rep_q(logpath));
		close(fd);
		return EXIT_OPERATIONAL;
	}
	if (fd >= 0 && !(f = fdopen(fd, "r")))
		close(fd);
	if (!f) {
		int e = errno;

		fprintf(stderr, "foldfs-check: %s: %s\n", rep_q(logpath),
			strerror(e));
		return EXIT_OPERATIONAL;
	}
	r = undo_parse(f, logpath, stderr, &ents, &n);
	fclose(f);
	if (r == 0 && !(made = made_index(ents, n))) {
		fprintf(stderr, "foldfs-check: %s: %s\n", rep_q(logpath),
			strerror(ENOMEM));
		r = -1;
	}
	if (r == 0) {
		for (i = n; i-- > 0;) {
			struct undo_ent *u = &ents[i];
			int dfd = undo_dir(ents, made, n, i, u->dir);
			struct stat st;
			int e;

			if (dfd < 0) {
				failed++;
				undo_report(c, u,
					    dfd == -ELOOP
						    ? "cannot open directory "
						      "(a symbolic link on the "
						      "way is not followed)"
						    : "cannot open directory",
					    0, -dfd);
				status |= EXIT_OPERATIONAL;
				continue;
			}
			if (u->has_ino &&
			    fstatat(dfd, u->new, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    (unsigned long long)st.st_ino != u->ino) {
				/* Someone else's file has the new name: the
				 * rename never happened (the entry is still
				 * under its old name), or what it renamed
				 * has moved on.  Leave it. */
				if (old_is_ours(dfd, u)) {
					skipped++;
					undo_report(c, u, "not renamed; skipped",
						    1, 0);
				} else {
					failed++;
					undo_report(c, u,
						    "not restored: another file "
						    "now has the new name",
						    0, 0);
					status |= EXIT_UNCORRECTED;
				}
				close(dfd);
				continue;
			}
			e = renameat2(dfd, u->new, dfd, u->old,
				      RENAME_NOREPLACE) == 0
				    ? 0
				    : errno;
			if (!e) {
				restored++;
				undo_report(c, u, "restored", 1, 0);
			} else if (e == ENOENT &&
				   (old_is_ours(dfd, u) ||
				    undone_further(ents, made, n, i, dfd))) {
				/* Logged, but the rename never happened (or
				 * was already undone, with older ones of the
				 * same entry). */
				skipped++;
				undo_report(c, u, "not renamed; skipped", 1, 0);
			} else if (e == ENOENT &&
				   fstatat(dfd, u->old, &st,
					   AT_SYMLINK_NOFOLLOW) == 0) {
				/* The log's inode number says the file under
				 * the old name is not the one renamed: that
				 * one left its new name. */
				failed++;
				undo_report(c, u,
					    "not restored: the renamed file has "
					    "moved on, another has the old name",
					    0, 0);
				status |= EXIT_UNCORRECTED;
			} else if (e == EEXIST) {
				failed++;
				undo_report(c, u,
					    "conflict, original name taken; "
					    "left as is",
					    0, EEXIST);
				status |= EXIT_UNCORRECTED;
			} else {
				failed++;
				undo_report(c, u, "cannot restore", 0, e);
				status |= e == ENOENT ? EXIT_UNCORRECTED
						      : EXIT_OPERATIONAL;
			}
			close(dfd);
		}
	} else {
		status = EXIT_OPERATIONAL;
	}
	made_free(made, n);
	undo_free(ents, n);
	if (c->json) {
		printf("{\"type\":\"summary\",");
		rep_json_name(stdout, "log", logpath, strlen(logpath));
		printf(",\"restored\":%lu,\"skipped\":%lu,\"failed\":%lu,"
		       "\"exit\":%d}\n",
		       restored, skipped, failed, status);
	} else if (!c->quiet || status) {
		printf("foldfs-check: undo %s: %lu restored, %lu skipped, "
		       "%lu failed; exit %d\n",
		       rep_q(logpath), restored, skipped, failed, status);
	}
	return status;
}
