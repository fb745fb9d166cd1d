/*
 * ioctl.c - chattr/lsattr through the view.
 *
 * `chattr +F DIR` reaches us as FS_IOC_SETFLAGS with FS_CASEFOLD_FL on a
 * handle the kernel opened for the purpose (opendir for directories; the
 * FUSE_IOCTL_DIR capability is asked for in init).  The kernel's fileattr
 * layer passes the flags as an unsigned int, so the restricted ioctl
 * carries 4 bytes although _IOC_SIZE(FS_IOC_GETFLAGS) says long; both
 * sizes are accepted.
 *
 * Folding is ours: FS_CASEFOLD_FL is reported for every folding directory
 * and toggled by setting/removing the user.foldfs.casefold xattr in
 * SOURCE -- only on an empty directory (ENOTEMPTY), only on a directory
 * (EOPNOTSUPP), like ext4.  Every other flag, FS_IOC_FS{GET,SET}XATTR and
 * FS_IOC_GETVERSION are SOURCE's own business and forwarded to its ioctl.
 *
 * FOLDFS_IOC_RESPELL (foldfs_ioctl.h) is ours alone: respell.c.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "foldfs.h"
#include "foldfs_ioctl.h"
#include "respell.h"

int dirh_fd(struct fuse_file_info *fi);
static void fold_reread(struct node *d);

static int real_fd(struct node *n, struct fuse_file_info *fi)
{
	if (!fi)
		return -1;
	return n->type == S_IFDIR ? dirh_fd(fi) : (int)fi->fh;
}

/* SOURCE's flags without ours; 0 where SOURCE has no flags at all.  A
 * directory of an ext4/f2fs SOURCE may have the kernel's own casefold
 * flag, the same bit: *native keeps it, to be written back unchanged. */
/* Does errno say SOURCE has no such attributes at all (an answer of
 * "none", not a failure)? */
static int no_attrs(int e)
{
	return e == ENOTTY || e == EOPNOTSUPP || e == EINVAL || e == ENOSYS;
}

static int source_flags(int fd, unsigned *flags, unsigned *native)
{
	int f = 0;

	*flags = 0;
	*native = 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &f) < 0)
		return no_attrs(errno) ? 0 : -errno;
	*flags = (unsigned)f & ~FOLDFS_CASEFOLD_FL;
	*native = (unsigned)f & FOLDFS_CASEFOLD_FL;
	return 0;
}

/* The flags are an int, whatever FS_IOC_GETFLAGS's number says (long):
 * ext4 and chattr pass 4 bytes.  Kernels before 5.13 ask us for 8 (the
 * number's size) and copy back as many as we give: 8 would write past
 * the caller's int, and on a big-endian machine put the flags in the
 * wrong half. */
static void reply_flags(fuse_req_t req, unsigned flags)
{
	int i = (int)flags;
	fuse_reply_ioctl(req, 0, &i, sizeof i);
}

static int source_set(int fd, unsigned flags)
{
	int f = (int)flags;

	return ioctl(fd, FS_IOC_SETFLAGS, &f) < 0 ? -errno : 0;
}

/* The kernel checked the caller's right to change the immutable and
 * append-only flags against the flags it asked us for before, which need
 * not be SOURCE's any more (root may have set +i in SOURCE since; we must
 * not clear it with our CAP_LINUX_IMMUTABLE for an owner who has none).
 * As the caller, SOURCE's file system checks again, under its lock: the
 * fsuid of creds_enter_nomask() takes the capability away from the thread
 * (no umask: nothing is created), and creds_retry() gives back only what
 * the caller holds itself. */
static int source_set_as(fuse_req_t req, int fd, int cmd, void *arg)
{
	struct creds c = { 0 };
	int r = creds_enter_nomask(req, &c);

	if (r == 0)
		do
			r = ioctl(fd, (unsigned long)cmd, arg) < 0 ? -errno : 0;
		while (creds_retry(req, &c, r));
	creds_leave(&c);
	return r;
}

/* SOURCE refuses any xattr change on an immutable or append-only inode. */
#define LOCK_FL (FS_IMMUTABLE_FL | FS_APPEND_FL)

/*
 * FS_IOC_SETFLAGS: SOURCE's flags (want without ours) and the casefold
 * flag.  As ext4 does, a casefold change that is refused (EOPNOTSUPP,
 * ENOTEMPTY, ...) is refused before anything else changes, and the
 * directory stays locked from the emptiness check to the change.
 *
 * The two changes are made one after the other, so that `chattr +iF`
 * and `chattr -F +a` work as on ext4: SOURCE's other flags first, the
 * attribute next, immutable/append-only last (an append-only directory
 * loses the flag while its attribute changes).  A step that fails undoes
 * the ones before it: the directory is left as it was, not half changed.
 */
static int set_flags(fuse_req_t req, struct node *n, int fd, unsigned want,
		     unsigned cur, unsigned native)
{
	int on = !!(want & FOLDFS_CASEFOLD_FL), r, f;
	unsigned src = (want & ~FOLDFS_CASEFOLD_FL) | native,
		 mid = src & ~LOCK_FL;

	cur |= native;
	fold_reread(n); /* the rule as SOURCE has it now */

	/* ext4 lets only CAP_SYS_RESOURCE change data journalling, which
	 * becoming the caller (its fsuid) does not take from a root daemon */
	if (((src ^ cur) & FS_JOURNAL_DATA_FL) &&
	    !creds_capable(req, CAP_SYS_RESOURCE))
		return -EPERM;
	if (on == dir_folds(n)) {
		f = (int)src;
		return src != cur ? source_set_as(req, fd, FS_IOC_SETFLAGS, &f)
				  : 0;
	}
	/* The steps below need our privilege (an append-only directory
	 * loses the flag for a moment): the caller's own change of i or a
	 * is checked here, against SOURCE's flags as they are now. */
	if (((src ^ cur) & LOCK_FL) && !creds_capable(req, CAP_LINUX_IMMUTABLE))
		return -EPERM;
	/* ext4 and f2fs refuse a directory-only flag on anything else first,
	 * immutable or not (tmpfs answers ENOTDIR) */
	if (n->type != S_IFDIR)
		return -EOPNOTSUPP;
	if (F.nofold)
		return -EOPNOTSUPP;
	if (F.casefold_all)
		return -EPERM; /* the mount folds everything: -F */
	if (cur & src & FS_IMMUTABLE_FL)
		return -EPERM; /* ext4: an inode staying immutable takes no change */
	/* The emptiness check and the change are one step for the other
	 * daemons serving the tree too, whose changes in a folding
	 * directory wait for it (xlock.c). */
	struct xlock x = { 0 };
	pthread_rwlock_wrlock(&n->dir->ns);
	xlock(n, &x);
	r = dir_nonempty(n);
	if (r > 0)
		r = -ENOTEMPTY;
	if (r == 0 && mid != cur)
		r = source_set(fd, mid);
	if (r == 0) {
		r = foldfs_dir_casefold_set(n->fd, on);
		if (r == 0 && src != mid) {
			r = source_set(fd, src);
			if (r)
				foldfs_dir_casefold_set(n->fd, !on);
		}
		if (r && mid != cur)
			source_set(fd, cur);
	}
	if (r == 0) {
		dir_set_fold(n, on);
		dir_index_drop(n);
		/* Negative dentries cached under the old rule (e.g.
		 * "foo" before +F) would lie about "FOO" now. */
		coh_bump();
	}
	xunlock(&x);
	pthread_rwlock_unlock(&n->dir->ns);
	return r;
}

/*
 * The attribute can also change directly in SOURCE (foldfs-check
 * --casefold-dir, setfattr, a second mount).  Lookups through a directory
 * re-read it once `timeout` seconds have passed since the last look (the
 * bound we give for every change made outside the mount) and apply a
 * change as set_fold() does; whoever changed it outside answered for the
 * names already there.  lsattr and chattr read it every time (fold_reread):
 * they are rare, and chattr must start from what SOURCE says, or a
 * `chattr -F` right after the attribute was set outside would answer
 * success and change nothing.
 */
static void fold_apply(struct node *d)
{
	struct dirstate *ds = d->dir;
	int cur = atomic_load(&ds->fold), on;

	if (cur < 0)
		return; /* never read yet: dir_folds() will */
	on = foldfs_dir_casefold_get(d->fd) > 0;
	if (on == cur)
		return;
	/* Read again under the locks a chattr holds, this mount's and every
	 * daemon's (set_fold): it sets the attribute before it knows whether
	 * the rest succeeds, and puts it back if not. */
	struct xlock x = { 0 };
	pthread_rwlock_wrlock(&ds->ns);
	xlock(d, &x);
	on = foldfs_dir_casefold_get(d->fd) > 0;
	xunlock(&x);
	if (on == atomic_load(&ds->fold)) {
		pthread_rwlock_unlock(&ds->ns);
		return;
	}
	dir_set_fold(d, on);
	dir_index_drop(d);
	/* Cached answers were given under the other rule. */
	coh_bump();
	pthread_rwlock_unlock(&ds->ns);
	dlog("casefold attribute of node %p changed outside: now %s",
	     (void *)d, on ? "folding" : "plain");
}

void fold_refresh(struct node *d)
{
	struct dirstate *ds = d->dir;
	uint64_t now, last;

	if (!ds || F.nofold || F.casefold_all)
		return;
	now = now_ns();
	last = atomic_load(&ds->fold_checked);
	if (now - last < (uint64_t)(F.timeout * 1e9) ||
	    !atomic_compare_exchange_strong(&ds->fold_checked, &last, now))
		return; /* fresh, or another lookup is looking */
	fold_apply(d);
}

static void fold_reread(struct node *d)
{
	if (!d->dir || F.nofold || F.casefold_all)
		return;
	atomic_store(&d->dir->fold_checked, now_ns());
	fold_apply(d);
}

/* A change of flags changes SOURCE's ctime, but the kernel keeps the
 * attributes it cached before the ioctl: drop them (offset -1: the
 * attributes only), so that stat after chattr is as fresh as on ext4. */
static void reply_changed(fuse_req_t req, fuse_ino_t ino)
{
	fuse_lowlevel_notify_inval_inode(F.se, ino, -1, 0);
	fuse_reply_ioctl(req, 0, NULL, 0);
}

void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned cmd, void *arg,
	      struct fuse_file_info *fi, unsigned flags, const void *in_buf,
	      size_t in_bufsz, size_t out_bufsz)
{
	struct node *n = node_of(ino);
	int fd = real_fd(n, fi), r;
	unsigned cur, native;

	(void)arg;
	if ((unsigned)cmd == FOLDFS_IOC_RESPELL) {
		/* Two char arrays: the same layout for 32-bit callers. */
		respell_ioctl(req, n, in_buf, in_bufsz);
		return;
	}
	if (flags & FUSE_IOCTL_COMPAT) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	switch ((unsigned)cmd) {
	case FS_IOC_GETFLAGS:
		if (fd < 0 || out_bufsz < sizeof(int)) {
			fuse_reply_err(req, EINVAL);
			return;
		}
		r = source_flags(fd, &cur, &native);
		if (r) {
			fuse_reply_err(req, -r);
			return;
		}
		fold_reread(n); /* a change made in SOURCE */
		if (dir_folds(n))
			cur |= FOLDFS_CASEFOLD_FL;
		reply_flags(req, cur);
		return;

	case FS_IOC_SETFLAGS: {
		unsigned want;
		if (fd < 0 || in_bufsz < sizeof(int)) {
			fuse_reply_err(req, EINVAL);
			return;
		}
		{
			int i; /* the first 4 bytes, as ext4 reads (above) */
			memcpy(&i, in_buf, sizeof i);
			want = (unsigned)i;
		}
		r = source_flags(fd, &cur, &native);
		if (r == 0)
			r = set_flags(req, n, fd, want, cur, native);
		if (r)
			fuse_reply_err(req, -r);
		else
			reply_changed(req, ino);
		return;
	}

	case FS_IOC_FSGETXATTR: {
		struct fsxattr fx;
		if (fd < 0 || out_bufsz < sizeof fx) {
			fuse_reply_err(req, EINVAL);
			return;
		}
		memset(&fx, 0, sizeof fx);
		if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) < 0 && !no_attrs(errno)) {
			fuse_reply_err(req, errno);
			return;
		}
		fuse_reply_ioctl(req, 0, &fx, sizeof fx);
		return;
	}

	case FS_IOC_FSSETXATTR: {
		struct fsxattr fx;
		if (fd < 0 || in_bufsz < sizeof fx) {
			fuse_reply_err(req, EINVAL);
			return;
		}
		memcpy(&fx, in_buf, sizeof fx);
		r = source_set_as(req, fd, FS_IOC_FSSETXATTR, &fx);
		if (r)
			fuse_reply_err(req, -r);
		else
			reply_changed(req, ino);
		return;
	}

	case FS_IOC_GETVERSION: {
		/* SOURCE's inode generation (lsattr -v).  ext4 stores an
		 * int although the number says long: callers pass either,
		 * so 4 bytes come back, as from ext4. */
		int v = 0;
		if (fd < 0 || out_bufsz < sizeof v) {
			fuse_reply_err(req, EINVAL);
			return;
		}
		if (ioctl(fd, FS_IOC_GETVERSION, &v) < 0)
			fuse_reply_err(req, errno);
		else
			fuse_reply_ioctl(req, 0, &v, sizeof v);
		return;
	}

	default:
		fuse_reply_err(req, ENOTTY);
	}
}
