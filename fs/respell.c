/*
 * respell.c - FOLDFS_IOC_RESPELL: change only the stored spelling of an
 * entry of a folding directory ("Foo" -> "FOO").
 *
 * rename(2) cannot do it through the mount: the kernel looks the new name
 * up, we answer with the inode of the old one (that is what folding
 * means), and the VFS returns 0 for a rename of a file onto itself
 * without asking us.  Answering other spellings with node ids of their
 * own would let the rename through but break inode identity (page cache,
 * locks), so the spelling is changed by an ioctl on the directory
 * instead; the interface is foldfs_ioctl.h.
 *
 * It is a rename within one directory, done as op_rename does one: under
 * the directory's namespace lock held exclusively (and xlock.c's lock),
 * in SOURCE with RENAME_NOREPLACE, then the fold index.  The kernel
 * checks no permissions for an ioctl.  A root daemon renames with the
 * caller's fsuid, fsgid and groups, so SOURCE applies rename(2)'s checks
 * itself: write and search permission on the directory by mode bits or
 * POSIX ACL, and the sticky bit.  A daemon that cannot be the caller (a
 * user mount) applies them on mode bits (may_respell).
 *
 * Coherence: unlike a rename, the kernel does not know that anything
 * happened and moved no dentry itself.  For it this is a change made
 * outside its view, and coh_external() settles every spelling of the name
 * it may hold; their invalidations (and the old spelling's) are waited
 * for before the reply, which an ioctl allows.  Most keep their answer
 * (the same inode), but where equivalent entries were stored directly in
 * SOURCE the new spelling can change which of them wins for some
 * spellings.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "foldfs_ioctl.h"
#include "respell.h"

_Static_assert(sizeof(struct foldfs_respell) == 2 * FOLDFS_RESPELL_NAME_MAX,
	       "struct foldfs_respell must have no padding");
_Static_assert(FOLDFS_RESPELL_NAME_MAX == NAME_BUF,
	       "a field holds exactly the names the daemon handles");

/* Copy a bare name, NUL-terminated within its field, out of the request. */
static int take_name(const char *field, char *out)
{
	size_t len = strnlen(field, FOLDFS_RESPELL_NAME_MAX);

	if (len == FOLDFS_RESPELL_NAME_MAX)
		return -ENAMETOOLONG;
	if (len == 0 || memchr(field, '/', len) || !strcmp(field, ".") ||
	    !strcmp(field, ".."))
		return -EINVAL;
	memcpy(out, field, len + 1);
	return 0;
}

/* 1 or 0, or -ENOMEM */
static int caller_in_group(fuse_req_t req, gid_t caller_gid, gid_t g)
{
	gid_t buf[64], *groups;
	int n, in = 0;

	if (g == caller_gid)
		return 1;
	n = creds_groups(req, buf, &groups);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !in; i++)
		in = groups[i] == g;
	if (groups != buf)
		free(groups);
	return in;
}

/* rename(2)'s checks for taking a name out of d and putting one in, for
 * a daemon that cannot rename as the caller: write and search permission
 * on d (by the owner, group or other bits, whichever class the caller is
 * in) and, in a sticky directory, owning the entry or d. */
static int may_respell(fuse_req_t req, struct node *d, const struct stat *ent)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct stat ds;
	mode_t bits;
	int in;

	if (ctx->uid == 0)
		return 0;
	if (fstat(d->fd, &ds) < 0)
		return -errno;
	in = ctx->uid == ds.st_uid ? 0 : caller_in_group(req, ctx->gid, ds.st_gid);
	if (in < 0)
		return in;
	if (ctx->uid == ds.st_uid)
		bits = ds.st_mode >> 6;
	else if (in)
		bits = ds.st_mode >> 3;
	else
		bits = ds.st_mode;
	if ((bits & (S_IWOTH | S_IXOTH)) != (S_IWOTH | S_IXOTH))
		return -EACCES;
	if ((ds.st_mode & S_ISVTX) && ctx->uid != ent->st_uid &&
	    ctx->uid != ds.st_uid)
		return -EPERM;
	return 0;
}

/* stored[] gets the entry's stored name (before the change). */
static int respell_locked(fuse_req_t req, struct node *d, const char *from,
			  const char *to, char *stored)
{
	struct dir_stamp pre;
	struct creds c;
	struct stat st, ent, now;
	char now_name[NAME_BUF];
	int r;

	/* (Folding cannot change under the lock; chattr takes it too.) */
	if (!dir_folds(d))
		return -EINVAL;
	r = resolve_name(d, from, stored, &st, NULL);
	if (r)
		return r;
	ent = st;
	if ((F.rec.flags & FOLD_STRICT) && name_illformed(to))
		return -EINVAL;
	/* An ill-formed name is equivalent only to its own bytes. */
	if (fold_equalz(&F.ctx, to, stored) != 1)
		return -EINVAL;
	if (!strcmp(to, stored))
		return 0; /* as rename(2) of a name onto itself */
	/* An equivalent of the record stored directly in SOURCE keeps the
	 * record's name out of reach, as every other call does. */
	if (d == node_root() &&
	    (name_hidden(d, to) || fold_equalz(&F.ctx, to, FOLDFS_RECORD_NAME) == 1))
		return -EPERM;
	r = F.switch_creds ? 0 : may_respell(req, d, &st);
	if (r)
		return r;
	/* A collision group in SOURCE: `to` is already another entry.
	 * (RENAME_NOREPLACE says so too, where SOURCE supports it.) */
	if (fstatat(d->fd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	dir_stamp(d, &pre);
	r = creds_enter_nomask(req, &c);
	if (r)
		return r;
	do
		r = rename2(d->fd, stored, d->fd, to, RENAME_NOREPLACE);
	while (creds_retry(req, &c, r));
	creds_leave(&c);
	if (r)
		return r;
	dir_index_change(d, stored, NULL, to, &pre);
	coh_external(d, to);
	/* The old spelling may now denote another entry of a collision
	 * group, also where the kernel has it from readdirplus (no note).
	 * Only then: invalidating the one dentry of a directory breaks
	 * getcwd() of the processes inside it and detaches mounts. */
	if (resolve_name(d, stored, now_name, &now, NULL) != 0 ||
	    now.st_dev != ent.st_dev || now.st_ino != ent.st_ino)
		coh_inval_async(d, stored);
	return 0;
}

void respell_ioctl(fuse_req_t req, struct node *d, const void *in_buf,
		   size_t in_bufsz)
{
	struct foldfs_respell arg;
	char from[NAME_BUF], to[NAME_BUF], stored[NAME_BUF] = "";
	int r;

	if (!in_buf || in_bufsz < sizeof arg) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	memcpy(&arg, in_buf, sizeof arg);
	r = take_name(arg.from, from);
	if (r == 0)
		r = take_name(arg.to, to);
	if (r == 0 && d->type != S_IFDIR)
		r = -ENOTDIR;
	if (r == 0 && F.readonly)
		r = -EROFS;
	if (r == 0 && F.nofold)
		r = -EINVAL;
	if (r == 0) {
		/* The new spelling is a name added: other daemons serving
		 * the tree wait too (xlock.c), as for a rename. */
		struct xlock x = { 0 };
		pthread_rwlock_wrlock(&d->dir->ns);
		if (dir_folds(d))
			xlock(d, &x);
		r = respell_locked(req, d, from, to, stored);
		xunlock(&x);
		pthread_rwlock_unlock(&d->dir->ns);
		dlog("respell %s (%s) -> %s = %d", from, stored, to, r);
		/* No kernel lock is held for an ioctl, so the spellings that
		 * changed can be dropped before we answer (after our lock is
		 * gone: the kernel's may wait for a lookup that needs it).
		 * Not forever: a process holding the directory's kernel lock
		 * may wait for a worker, and with -s this one is the only
		 * worker (the wait then only covers the case where no lookup
		 * is under way there) -- the invalidations follow the
		 * answer. */
		if (r == 0 && coh_inval_wait(F.single ? 100 : 10000) < 0)
			dlog("respell: answered before the kernel's cache "
			     "was told (its lock is held)");
	}
	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_ioctl(req, 0, NULL, 0);
}
