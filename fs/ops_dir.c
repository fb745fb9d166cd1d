/*
 * ops_dir.c - directory handles: readdir and readdirplus.
 *
 * Names are listed exactly as stored, all of them, including equivalent
 * duplicates already present in SOURCE; only the encoding record at the
 * root is left out.  The backing directory is read with getdents64 and
 * the kernel's offsets are the backing file system's d_off cookies, so a
 * listing can be resumed (telldir/seekdir) like on SOURCE itself.
 *
 * readdirplus also hands out entries.  In a folding directory those of
 * non-directories get entry_timeout 0: the kernel stamps them with the
 * epoch current when the reply arrives, not when the request left (see
 * coherence.c), so they must not be trusted later without asking.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/fuse.h> /* struct fuse_out_header / fuse_direntplus */

#include "foldfs.h"

#define DIRBUF 32768

struct dirh {
	int fd;
	off_t pos;	 /* offset of the next entry we would return */
	off_t bpos;	 /* offset of buf's first entry */
	size_t len, cur; /* unread part of buf */
	char buf[DIRBUF];
};

static struct dirh *dirh_of(struct fuse_file_info *fi)
{
	return (struct dirh *)(uintptr_t)fi->fh;
}

/* For ioctl.c: the real descriptor behind a directory handle. */
int dirh_fd(struct fuse_file_info *fi)
{
	return dirh_of(fi)->fd;
}

void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = node_of(ino);
	struct dirh *h = malloc(sizeof *h);

	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* a noatime view lists without setting the access time */
	h->fd = src_openat(n->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			   F.noatime);
	if (h->fd < 0) {
		int e = errno;
		free(h);
		fuse_reply_err(req, e);
		return;
	}
	h->pos = h->bpos = 0;
	h->len = h->cur = 0;
	fi->fh = (uint64_t)(uintptr_t)h;
	if (fuse_reply_open(req, fi) != 0) {
		close(h->fd);
		free(h);
	}
}

/* A reader with a buffer smaller than ours (getdents with a few hundred
 * bytes) makes the kernel ask again from the first entry that did not fit,
 * which we have read already: go back to it in buf instead of seeking and
 * reading DIRBUF bytes again per request (100x slower than SOURCE with a
 * 64-byte buffer).  Offset 0 is never taken from buf: that is rewinddir,
 * which must see the directory as it is now. */
static int buf_resume(struct dirh *h, off_t off)
{
	off_t at = h->bpos;
	size_t i = 0;

	while (i < h->len) {
		const struct dirent64 *de = (const void *)(h->buf + i);
		if (at == off) {
			h->cur = i;
			h->pos = off;
			return 1;
		}
		at = de->d_off;
		i += de->d_reclen;
	}
	return 0;
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, int plus)
{
	struct node *d = node_of(ino);
	struct dirh *h = dirh_of(fi);
	char *out = malloc(size ? size : 1);
	size_t used = 0;
	int err = 0;

	if (!out) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* Offset 0 (rewinddir) always reads afresh, as lseek(0) on SOURCE
	 * does, also where pos is 0 already: a request there too small for
	 * the first entry leaves buf filled, and a reply from it would not
	 * show changes made since. */
	if (off == 0 || (off != h->pos && !buf_resume(h, off))) {
		if (lseek(h->fd, off, SEEK_SET) < 0) {
			err = errno;
			goto done;
		}
		h->pos = off;
		h->len = h->cur = 0;
	}
	for (;;) {
		struct dirent64 *de;
		size_t need;

		if (h->cur >= h->len) {
			ssize_t n = getdents64(h->fd, h->buf, sizeof h->buf);
			if (n < 0) {
				err = errno;
				break;
			}
			if (n == 0)
				break;
			h->len = (size_t)n;
			h->cur = 0;
			h->bpos = h->pos;
		}
		de = (struct dirent64 *)(h->buf + h->cur);
		if (name_hidden(d, de->d_name)) {
			h->cur += de->d_reclen;
			h->pos = de->d_off;
			continue;
		}
		if (!plus) {
			struct stat st;
			memset(&st, 0, sizeof st);
			st.st_ino = node_view_ino(d->dev, de->d_ino);
			st.st_mode = (mode_t)de->d_type << 12;
			need = fuse_add_direntry(req, out + used, size - used,
						 de->d_name, &st, de->d_off);
			if (need > size - used)
				break;
		} else {
			struct fuse_entry_param e;
			const char *nm = de->d_name;
			int dots = nm[0] == '.' &&
				   (!nm[1] || (nm[1] == '.' && !nm[2]));
			int got = 0;

			memset(&e, 0, sizeof e);
			/* near the descriptor limit, names only (the
			 * kernel looks up what it needs): see prune.c.
			 * Asked per entry: one reply may carry hundreds. */
			if (!dots && !prune_pressure()) {
				int fd = openat(d->fd, nm,
						O_PATH | O_NOFOLLOW | O_CLOEXEC);
				struct stat st;
				uint64_t mnt;
				if (fd >= 0 && fd_stat(fd, &st, &mnt) == 0) {
					got = entry_fill(d, fd, &st, mnt, &e) == 0;
					/* stamped with the epoch of the reply:
					 * see coherence.c */
					if (got && dir_folds(d) &&
					    !S_ISDIR(st.st_mode))
						e.entry_timeout = 0;
				} else if (fd >= 0) {
					close(fd);
				}
			}
			if (!got) {
				/* No node: the kernel makes no dentry of an
				 * entry with ino 0, it only lists the name. */
				memset(&e, 0, sizeof e);
				e.attr.st_ino = node_view_ino(d->dev, de->d_ino);
				e.attr.st_mode = (mode_t)de->d_type << 12;
			}
			need = fuse_add_direntry_plus(req, out + used,
						      size - used, nm, &e,
						      de->d_off);
			if (need > size - used) {
				if (got)
					node_forget(node_of(e.ino), 1);
				break;
			}
		}
		used += need;
		h->cur += de->d_reclen;
		h->pos = de->d_off;
	}
done:
	if (err && used == 0)
		fuse_reply_err(req, err);
	else if (fuse_reply_buf(req, out, used) != 0 && plus) {
		/* The kernel did not take the entries: give back their
		 * lookup counts. */
		for (size_t at = 0; at < used;) {
			const struct fuse_direntplus *dp =
				(const void *)(out + at);
			if (dp->entry_out.nodeid)
				node_forget(node_of(dp->entry_out.nodeid), 1);
			at += FUSE_DIRENTPLUS_SIZE(dp);
		}
	}
	free(out);
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, 0);
}

void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, 1);
}

void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dirh *h = dirh_of(fi);

	(void)ino;
	close(h->fd);
	free(h);
	fuse_reply_err(req, 0);
}

void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi)
{
	int fd = dirh_of(fi)->fd;

	(void)ino;
	fuse_reply_err(req, (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? errno
								       : 0);
}
