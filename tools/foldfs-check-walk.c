/*
 * foldfs-check-walk.c - the tree walk: depth first, one pass, every
 * directory opened relative to its parent (openat + fdopendir), never by a
 * rebuilt path, so deep trees and odd names cost nothing extra.
 *
 * Each directory is read completely into the shared dirbuf (collision
 * analysis needs all its names at once), analysed, and reduced to the list
 * of its subdirectories.  Only a bounded number of directory fds stay open:
 * when the walk is deeper than max_fds, the shallowest ones are closed and
 * reopened on the way back through ".." (or else from the nearest open
 * ancestor), checking device and inode so a directory moved meanwhile is
 * never mistaken for another.
 * Errors on part of the tree are reported and the walk goes on.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "foldfs-check.h"

struct level {
	int fd;
	dev_t dev;
	ino_t ino;
	size_t comp_off;	/* this directory's name in the path buffer */
	size_t pathlen;
	char *subs;		/* NUL-separated names of subdirectories */
	size_t subs_len, subs_pos;
};

struct walk {
	struct check *c;
	struct level *lv;
	size_t depth, cap;
	unsigned open_fds;
	char *path;
	size_t path_cap;
	dev_t root_dev;
};

static int path_reserve(struct walk *w, size_t need)
{
	if (need <= w->path_cap)
		return 0;
	size_t cap = w->path_cap ? w->path_cap : 256;
	while (cap < need)
		cap *= 2;
	char *p = realloc(w->path, cap);
	if (!p)
		return -ENOMEM;
	w->path = p;
	w->path_cap = cap;
	return 0;
}

/* Close the shallowest open fds (never the root's, never the top's) until
 * the walk holds at most max_fds. */
static void trim_fds(struct walk *w)
{
	size_t i;

	for (i = 1; i + 1 < w->depth && w->open_fds > w->c->max_fds; i++) {
		if (w->lv[i].fd >= 0) {
			close(w->lv[i].fd);
			w->lv[i].fd = -1;
			w->open_fds--;
		}
	}
}

/* Make sure level i has an open fd, reopening it from the nearest open
 * ancestor.  Returns the fd or -1 (error reported). */
static int level_fd(struct walk *w, size_t i)
{
	size_t j, k;
	int cur;

	if (w->lv[i].fd >= 0)
		return w->lv[i].fd;
	for (j = i; j > 0 && w->lv[j].fd < 0; j--)
		;
	cur = w->lv[j].fd;
	for (k = j + 1; k <= i; k++) {
		struct level *l = &w->lv[k];
		char save = w->path[l->pathlen];
		struct stat st;
		int fd;

		w->path[l->pathlen] = '\0';
		fd = openat(cur, w->path + l->comp_off,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		w->path[l->pathlen] = save;
		if (fd >= 0 && fstat(fd, &st) < 0) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0 && (st.st_dev != l->dev || st.st_ino != l->ino)) {
			close(fd);
			fd = -1;
			errno = ESTALE;
		}
		if (fd < 0) {
			int e = errno;

			if (cur != w->lv[j].fd)
				close(cur);
			rep_error(w->c, w->path, l->pathlen, NULL,
				  "reopen (moved during the walk?)", e);
			return -1;
		}
		if (cur != w->lv[j].fd)
			close(cur);
		cur = fd;
	}
	w->lv[i].fd = cur;
	w->open_fds++;
	trim_fds(w);
	return cur;
}

/* Read the directory on fd into c->db.  Returns 0 or -errno (entries read
 * before an error are kept). */
static int read_dir(struct walk *w, int fd, int is_record_dir)
{
	struct check *c = w->c;
	struct dirbuf *db = &c->db;
	struct dirent *de;
	DIR *d;
	int dfd = dup(fd), err = 0;

	dirbuf_reset(db);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		err = -errno;
		close(dfd);
		return err;
	}
	for (;;) {
		const char *n;
		size_t len;
		int is_dir;

		errno = 0;
		de = readdir(d);
		if (!de) {
			err = -errno;
			break;
		}
		n = de->d_name;
		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		if (is_record_dir && !strcmp(n, FOLDFS_RECORD_NAME))
			continue; /* hidden in the view; not a name */
		len = strlen(n);
		if (de->d_type == DT_DIR) {
			is_dir = 1;
		} else if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			is_dir = fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				 S_ISDIR(st.st_mode);
		} else {
			is_dir = 0;
		}
		if (dirbuf_add(db, n, len, is_dir) < 0) {
			err = -ENOMEM;
			break;
		}
		if (!(db->n & 0xffff)) {
			c->st.names += 0x10000; /* for the progress line */
			rep_progress(c, NULL, 0, 0);
			c->st.names -= 0x10000;
		}
	}
	closedir(d);
	return err;
}

/* The directories --casefold-dir set the attribute on (it had not), so
 * that a failure can take it off exactly those again. */
static int xset_add(struct check *c, dev_t dev, ino_t ino)
{
	if (c->nxset == c->capxset) {
		size_t nc = c->capxset ? 2 * c->capxset : 64;
		struct devino *n = realloc(c->xset, nc * sizeof *n);

		if (!n)
			return -ENOMEM;
		c->xset = n;
		c->capxset = nc;
	}
	c->xset[c->nxset].dev = dev;
	c->xset[c->nxset].ino = ino;
	c->nxset++;
	return 0;
}

static int devino_cmp(const void *a, const void *b)
{
	const struct devino *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* (sorted by walk_sort_xset() before the walk that asks) */
static int xset_has(struct check *c, dev_t dev, ino_t ino)
{
	struct devino k = {dev, ino};

	return c->nxset &&
	       bsearch(&k, c->xset, c->nxset, sizeof k, devino_cmp) != NULL;
}

void walk_sort_xset(struct check *c)
{
	if (c->nxset)
		qsort(c->xset, c->nxset, sizeof *c->xset, devino_cmp);
}

/* Analyse the directory at the top of the stack and keep its subdirs. */
static void visit(struct walk *w)
{
	struct check *c = w->c;
	struct level *l = &w->lv[w->depth - 1];
	int is_rec = c->record_root_fd_dev_ino_set && l->dev == c->rec_dev &&
		     l->ino == c->rec_ino;
	int folds = 0, r;
	size_t i, total = 0;

	c->st.dirs++;
	c->dir_reported = 0;
	if (c->setting_xattr == XATTR_SET) {
		int had = foldfs_dir_casefold_get(l->fd) == 1;

		r = had ? 0 : foldfs_dir_casefold_set(l->fd, 1);
		if (r < 0)
			rep_error(c, w->path, l->pathlen, NULL,
				  "set " FOLDFS_XATTR_CASEFOLD, -r);
		else if (!had) /* count only what this run changed */
			c->st.xattr_set++;
		if (!r && !had && xset_add(c, l->dev, l->ino) < 0)
			rep_error(c, w->path, l->pathlen, NULL,
				  "remember " FOLDFS_XATTR_CASEFOLD, ENOMEM);
	} else if (c->setting_xattr == XATTR_UNDO) {
		if (xset_has(c, l->dev, l->ino) &&
		    (r = foldfs_dir_casefold_set(l->fd, 0)) < 0)
			rep_error(c, w->path, l->pathlen, NULL,
				  "remove " FOLDFS_XATTR_CASEFOLD, -r);
	} else if (c->force_casefold) {
		folds = 1;
	} else {
		r = foldfs_dir_casefold_get(l->fd);
		if (r < 0 && r != -ENOTSUP && r != -EOPNOTSUPP)
			rep_error(c, w->path, l->pathlen, NULL,
				  "get " FOLDFS_XATTR_CASEFOLD, -r);
		folds = r == 1;
	}
	r = read_dir(w, l->fd, is_rec);
	if (r < 0)
		rep_error(c, w->path, l->pathlen, NULL,
			  c->fix ? "read directory (its collisions are not "
				   "fixed: a new name must be checked against "
				   "all names)"
				 : "read directory",
			  -r);
	if (!c->setting_xattr) {
		int fix = c->fix;

		if (r < 0)
			c->fix = 0;
		scan_dir(c, l->fd, w->path, l->pathlen, folds);
		c->fix = fix;
	} else {
		c->st.names += c->db.n;
	}

	for (i = 0; i < c->db.n; i++)
		if (c->db.ents[i].is_dir && !c->db.ents[i].renamed)
			total += c->db.ents[i].len + 1;
	if (total) {
		char *p = malloc(total);

		if (!p) {
			rep_error(c, w->path, l->pathlen, NULL, "descend",
				  ENOMEM);
			return;
		}
		l->subs = p;
		for (i = 0; i < c->db.n; i++) {
			const struct ent *e = &c->db.ents[i];

			if (!e->is_dir || e->renamed)
				continue;
			memcpy(p, c->db.pool + e->off, e->len);
			p[e->len] = '\0';
			p += e->len + 1;
		}
		l->subs_len = total;
	}
	rep_progress(c, NULL, 0, 0);
}

static int push(struct walk *w, int fd, const struct stat *st, size_t comp_off,
		size_t pathlen)
{
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		struct level *lv = realloc(w->lv, cap * sizeof *lv);

		if (!lv)
			return -ENOMEM;
		w->lv = lv;
		w->cap = cap;
	}
	w->lv[w->depth++] = (struct level){
		.fd = fd,
		.dev = st->st_dev,
		.ino = st->st_ino,
		.comp_off = comp_off,
		.pathlen = pathlen,
	};
	w->open_fds++;
	trim_fds(w);
	return 0;
}

static void pop(struct walk *w)
{
	struct level *l = &w->lv[--w->depth];
	struct level *p = w->depth ? &w->lv[w->depth - 1] : NULL;

	if (l->fd >= 0) {
		/* Going up to a parent whose fd was trimmed: take it back
		 * through ".." (checked like a reopen), not by name from the
		 * nearest open ancestor, often the root -- that costs one
		 * open per level and makes a deep tree with side branches
		 * quadratic.  (Even a parent with nothing left to walk: its
		 * fd leads on to the next one up.) */
		if (p && p->fd < 0) {
			int fd = openat(l->fd, "..",
					O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			struct stat st;

			if (fd >= 0 && fstat(fd, &st) == 0 &&
			    st.st_dev == p->dev && st.st_ino == p->ino) {
				p->fd = fd;
				w->open_fds++;
			} else if (fd >= 0) {
				close(fd); /* moved: level_fd() reports it */
			}
		}
		close(l->fd);
		w->open_fds--;
	}
	free(l->subs);
}

/* Walk the tree at path.  Returns 0, or -errno if the root itself cannot be
 * read (reported). */
int walk_tree(struct check *c, const char *path)
{
	struct walk w = { .c = c };
	struct stat st;
	size_t plen = strlen(path);
	int fd;

	/* "dir/" and "dir" print the same; "/" stays "/". */
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (path_reserve(&w, plen + 2) < 0)
		return -ENOMEM;
	memcpy(w.path, path, plen);
	w.path[plen] = '\0';

	fd = open(w.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		rep_error(c, w.path, plen, NULL, "open", e);
		free(w.path);
		return -e;
	}
	w.root_dev = st.st_dev;
	if (push(&w, fd, &st, 0, plen) < 0) {
		close(fd);
		free(w.path);
		return -ENOMEM;
	}
	visit(&w);

	while (w.depth) {
		struct level *l = &w.lv[w.depth - 1];
		const char *name;
		size_t nlen, comp_off, npath;
		int pfd, cfd;

		if (l->subs_pos >= l->subs_len) {
			pop(&w);
			continue;
		}
		name = l->subs + l->subs_pos;
		nlen = strlen(name);
		l->subs_pos += nlen + 1;

		pfd = level_fd(&w, w.depth - 1);
		if (pfd < 0) {
			l->subs_pos = l->subs_len; /* cannot go on here */
			continue;
		}
		cfd = openat(pfd, name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* Build the display path for the child. */
		comp_off = l->pathlen + (w.path[l->pathlen - 1] != '/');
		npath = comp_off + nlen;
		if (path_reserve(&w, npath + 1) < 0) {
			if (cfd >= 0)
				close(cfd);
			rep_error(c, w.path, l->pathlen, name, "descend",
				  ENOMEM);
			continue;
		}
		if (comp_off > l->pathlen)
			w.path[l->pathlen] = '/';
		memcpy(w.path + comp_off, name, nlen);
		w.path[npath] = '\0';
		if (cfd < 0 || fstat(cfd, &st) < 0) {
			int e = errno;

			if (cfd >= 0)
				close(cfd);
			/* Replaced by a non-directory since we read it:
			 * nothing to walk, nothing lost. */
			if (e != ENOTDIR && e != ELOOP && e != ENOENT)
				rep_error(c, w.path, npath, NULL, "open", e);
			continue;
		}
		if (c->xdev && st.st_dev != w.root_dev) {
			close(cfd);
			continue;
		}
		if (st.st_dev != l->dev) {
			/* A foldfs view mounted in the tree shows names of its
			 * SOURCE again (each collision twice; --fix would
			 * rename through it) and hides its record: its
			 * SOURCE is checked on its own. */
			char vsrc[PATH_MAX];
			int v = foldfs_on_view(cfd, vsrc, sizeof vsrc);
			if (v) {
				rep_note(c, v == 2 ? "%.*s: a foldfs view of "
						     "%s, not walked (%s does "
						     "not lead to its tree: "
						     "check that with the view "
						     "unmounted)"
						   : "%.*s: a foldfs view of %s, "
						     "not walked (check %s "
						     "itself)",
					 (int)npath, w.path, vsrc, vsrc);
				close(cfd);
				continue;
			}
		}
		if (push(&w, cfd, &st, comp_off, npath) < 0) {
			close(cfd);
			rep_error(c, w.path, npath, NULL, "descend", ENOMEM);
			continue;
		}
		visit(&w);
	}
	free(w.lv);
	free(w.path);
	return 0;
}
