/*
 * ops_entry.c - lookup, node lifetime, attributes and every operation
 * that changes a name.
 *
 * Each directory has a namespace lock (struct dirstate.ns): lookups hold
 * it shared, changes hold it exclusively (both directories of a rename,
 * in address order).  In a folding directory a change is then:
 *   1. check the spelling against what exists (EEXIST for an equivalent,
 *      EINVAL for an ill-formed name under strict, EPERM for the record);
 *   2. make the change in SOURCE (as the caller, for creating calls);
 *   3. update the directory's fold index;
 *   4. coh_changed(): settle every other spelling the kernel may hold
 *      (coherence.c) -- all before the reply.
 * Steps 1-3 of a change that can add a name also hold the directory's
 * lock shared with other daemons serving the tree (xlock.c): a second
 * mount's check then sees the first's name.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "foldfs.h"

/* ---- locking --------------------------------------------------------- */

static void ns_lock(struct node *d, int excl)
{
	if (F.nofold || !d->dir)
		return;
	if (excl)
		pthread_rwlock_wrlock(&d->dir->ns);
	else
		pthread_rwlock_rdlock(&d->dir->ns);
}

static void ns_unlock(struct node *d)
{
	if (F.nofold || !d->dir)
		return;
	pthread_rwlock_unlock(&d->dir->ns);
}

static void ns_lock2(struct node *a, struct node *b)
{
	if (a == b) {
		ns_lock(a, 1);
	} else if ((uintptr_t)a < (uintptr_t)b) {
		ns_lock(a, 1);
		ns_lock(b, 1);
	} else {
		ns_lock(b, 1);
		ns_lock(a, 1);
	}
}

static void ns_unlock2(struct node *a, struct node *b)
{
	ns_unlock(a);
	if (a != b)
		ns_unlock(b);
}

/* ---- entries --------------------------------------------------------- */

int entry_fill(struct node *d, int fd, const struct stat *st, uint64_t mnt,
	       struct fuse_entry_param *e)
{
	struct node *n = node_get(fd, st, mnt);

	memset(e, 0, sizeof *e);
	if (!n)
		return -ENOMEM;
	e->ino = node_id(n);
	e->generation = n->gen;
	e->attr = *st;
	e->attr.st_ino = node_view_ino(st->st_dev, st->st_ino);
	e->attr_timeout = F.timeout;
	e->entry_timeout = coh_entry_timeout(d, S_ISDIR(st->st_mode));
	return 0;
}

/* Reply with an entry; if the kernel did not take it, take back the
 * lookup count the reply carried. */
static void reply_entry(fuse_req_t req, const struct fuse_entry_param *e)
{
	if (fuse_reply_entry(req, e) != 0 && e->ino)
		node_forget(node_of(e->ino), 1);
}

static void spare_drop(int *spare);

/* The entry of the object just made as `name` in d.  Its open may meet
 * the descriptor limit: then the slot *spare (from spare_fd) kept is
 * given up for it. */
static int entry_of_name(struct node *d, const char *name,
			 struct fuse_entry_param *e, int *spare)
{
	struct stat st;
	uint64_t mnt;
	int fd = openat(d->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		spare_drop(spare);
		fd = prune_openat(d->fd, name);
	}
	if (fd < 0)
		return -errno;
	if (fd_stat(fd, &st, &mnt) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	return entry_fill(d, fd, &st, mnt, e);
}

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *d = node_of(parent);
	struct fuse_entry_param e;
	char stored[NAME_BUF];
	struct stat st;
	uint64_t mnt;
	int fd, r;

	fold_refresh(d);
	ns_lock(d, 0);
	fd = resolve(d, name, stored, &st, &mnt);
	if (fd >= 0) {
		r = entry_fill(d, fd, &st, mnt, &e);
		if (r == 0)
			coh_note(d, name, e.ino);
		ns_unlock(d);
		dlog("lookup %s -> %s ino %llu t=%g", name, stored,
		     (unsigned long long)st.st_ino, e.entry_timeout);
		if (r)
			fuse_reply_err(req, -r);
		else
			reply_entry(req, &e);
		return;
	}
	if (fd == -ENOENT && coh_cache_negative(d)) {
		/* ino 0 with a timeout: a negative dentry the kernel keeps */
		coh_note(d, name, 0);
		ns_unlock(d);
		dlog("lookup %s -> negative", name);
		memset(&e, 0, sizeof e);
		e.entry_timeout = coh_entry_timeout(d, 0);
		fuse_reply_entry(req, &e);
		return;
	}
	ns_unlock(d);
	dlog("lookup %s -> %s", name, strerror(-fd));
	/* An error reply leaves no valid negative dentry (cache=none), but
	 * an invalid one stays in the dcache, where it pins d (prune.c). */
	if (fd == -ENOENT && !prune_negative_ok())
		coh_inval_async(d, name);
	fuse_reply_err(req, -fd);
}

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	node_forget(node_of(ino), nlookup);
	fuse_reply_none(req);
}

void op_forget_multi(fuse_req_t req, size_t count,
		     struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		node_forget(node_of(forgets[i].ino), forgets[i].nlookup);
	fuse_reply_none(req);
}

/* ---- attributes -------------------------------------------------------- */

static int stat_node(struct node *n, struct fuse_file_info *fi,
		     struct stat *st)
{
	int r;

	if (fi && n->type == S_IFREG)
		r = fstat((int)fi->fh, st);
	else
		r = fstatat(n->fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return -errno;
	st->st_ino = node_view_ino(st->st_dev, st->st_ino);
	return 0;
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;
	int r = stat_node(node_of(ino), fi, &st);

	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, F.timeout);
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		struct fuse_file_info *fi)
{
	struct node *n = node_of(ino);
	char proc[64];
	int fd = (fi && n->type == S_IFREG) ? (int)fi->fh : -1;
	struct stat st;
	int r = 0;

	node_procname(n, proc);
	if (!(to_set & ~FUSE_SET_ATTR_CTIME)) {
		/* chown(f, -1, -1) arrives as a SETATTR with nothing to set;
		 * it still changes the ctime, as on SOURCE itself. */
		if (fchownat(n->fd, "", (uid_t)-1, (gid_t)-1,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
		goto out;
	}
	if (to_set & FUSE_SET_ATTR_MODE) {
		if (n->type == S_IFLNK)
			r = -EOPNOTSUPP; /* Linux has no lchmod */
		else if ((fd >= 0 ? fchmod(fd, attr->st_mode)
				  : chmod(proc, attr->st_mode)) < 0)
			r = -errno;
		if (r)
			goto out;
	}
	if (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		uid_t u = (to_set & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
		gid_t g = (to_set & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;
		if (fchownat(n->fd, "", u, g,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			goto out;
		}
	}
	if (to_set & FUSE_SET_ATTR_SIZE) {
		/* as the caller if a set-ID bit is left to drop (ops_file.c) */
		struct creds c = { 0 };
		r = file_as_writer(req, fd >= 0 ? fd : n->fd, &c, 0);
		if (r == 0 && (fd >= 0 ? ftruncate(fd, attr->st_size)
				       : truncate(proc, attr->st_size)) < 0)
			r = -errno;
		creds_leave(&c);
		if (r)
			goto out;
	}
	if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)) {
		struct timespec tv[2];
		tv[0].tv_sec = tv[1].tv_sec = 0;
		tv[0].tv_nsec = tv[1].tv_nsec = UTIME_OMIT;
		if (to_set & FUSE_SET_ATTR_ATIME_NOW)
			tv[0].tv_nsec = UTIME_NOW;
		else if (to_set & FUSE_SET_ATTR_ATIME)
			tv[0] = attr->st_atim;
		if (to_set & FUSE_SET_ATTR_MTIME_NOW)
			tv[1].tv_nsec = UTIME_NOW;
		else if (to_set & FUSE_SET_ATTR_MTIME)
			tv[1] = attr->st_mtim;
		if ((fd >= 0 ? futimens(fd, tv)
			     : utimensat(n->fd, "", tv,
					 AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) < 0) {
			r = -errno;
			goto out;
		}
	}
out:
	if (r == 0)
		r = stat_node(n, fi, &st);
	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, F.timeout);
}

void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char buf[PATH_MAX + 1];
	ssize_t r = readlinkat(node_of(ino)->fd, "", buf, sizeof buf);

	if (r < 0)
		fuse_reply_err(req, errno);
	else if (r >= (ssize_t)sizeof buf)
		fuse_reply_err(req, ENAMETOOLONG);
	else {
		buf[r] = '\0';
		fuse_reply_readlink(req, buf);
	}
}

void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	if (fstatvfs(node_of(ino)->fd, &sv) < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}

void op_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	char proc[64];

	/* Reached only without default_permissions, i.e. without
	 * allow_other: every caller is the daemon's own user (main.c). */
	node_procname(node_of(ino), proc);
	fuse_reply_err(req, faccessat(AT_FDCWD, proc, mask, AT_EACCESS) < 0
				    ? errno
				    : 0);
}

/* ---- creating ---------------------------------------------------------- */

/* The record's name, or (at a folding root) anything equivalent to it. */
static int name_reserved(struct node *d, const char *name)
{
	if (d != node_root())
		return 0;
	if (name_hidden(d, name))
		return 1;
	return dir_folds(d) &&
	       fold_equalz(&F.ctx, name, FOLDFS_RECORD_NAME) == 1;
}

/* May `name` be created in d?  0, or -errno. */
static int may_create(struct node *d, const char *name)
{
	char stored[NAME_BUF];
	struct stat st;
	int r;

	if (strlen(name) >= NAME_BUF)
		return -ENAMETOOLONG;
	if (name_reserved(d, name))
		return -EPERM;
	if (!dir_folds(d))
		return 0;
	if ((F.rec.flags & FOLD_STRICT) && name_illformed(name))
		return -EINVAL;
	r = resolve_name(d, name, stored, &st, NULL);
	if (r == 0)
		return -EEXIST;
	return r == -ENOENT ? 0 : r;
}

/* A descriptor taken before a creating call and closed if created()
 * cannot open the new object for want of one: at the descriptor limit
 * (nothing to prune, or -s) the call then fails before anything exists,
 * rather than after, with the object left behind.  Reserves are kept
 * open between calls (up to SPARE_MAX, one per call in progress): a
 * create costs no system call for its reserve.  0 or -errno. */
#define SPARE_MAX 32
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;
static int spare_pool[SPARE_MAX], spare_count;

static int spare_fd(int *spare)
{
	pthread_mutex_lock(&spare_mu);
	*spare = spare_count ? spare_pool[--spare_count] : -1;
	pthread_mutex_unlock(&spare_mu);
	if (*spare >= 0)
		return 0;
	/* of the root: a pooled one must keep no other directory alive */
	*spare = fcntl(F.root_fd, F_DUPFD_CLOEXEC, 0);
	if (*spare < 0 && prune_wait(errno))
		*spare = fcntl(F.root_fd, F_DUPFD_CLOEXEC, 0);
	return *spare < 0 ? -errno : 0;
}

/* The call is over: the reserve goes back to the pool. */
static void spare_put(int *spare)
{
	if (*spare < 0)
		return;
	pthread_mutex_lock(&spare_mu);
	if (spare_count < SPARE_MAX) {
		spare_pool[spare_count++] = *spare;
		*spare = -1;
	}
	pthread_mutex_unlock(&spare_mu);
	if (*spare >= 0)
		close(*spare);
	*spare = -1;
}

/* The slot is needed now: free it. */
static void spare_drop(int *spare)
{
	if (*spare >= 0)
		close(*spare);
	*spare = -1;
}

/* After an object was created under `name` in d: index, coherence and
 * the entry for the reply.  Caller holds d exclusively; *spare (from
 * spare_fd) is closed if the entry needs its slot. */
static int created(struct node *d, const char *name,
		   const struct dir_stamp *pre, struct fuse_entry_param *e,
		   int *spare)
{
	int r;

	dir_index_change(d, NULL, NULL, name, pre);
	r = entry_of_name(d, name, e, spare);
	coh_changed(d, name, r == 0 ? e->ino : 0);
	return r;
}

/* Creating calls differ only in the system call; for MK_LINK `target` is
 * the /proc path of the object to link (see op_link). */
enum mk { MK_NOD, MK_DIR, MK_LNK, MK_LINK };

/* Is n, which `name` denotes just after mkdirat, an empty directory, as
 * the one it made?  Others who may write SOURCE's parent can have renamed
 * another directory over it meanwhile: the casefold mark must not land on
 * a non-empty one (its names would change meaning; chattr +F refuses
 * that).  (Its owner is no proof: some file systems give every file the
 * same one.)  0 if it may be marked, 1 if not (or it was removed), else
 * -errno. */
static int new_dir_ours(struct node *n, const struct stat *st)
{
	int r;

	if (!S_ISDIR(st->st_mode))
		return 1;
	r = dir_nonempty(n);
	return r == -ENOENT ? 1 : r;
}

static void make(fuse_req_t req, struct node *d, const char *name,
		 enum mk kind, mode_t mode, dev_t rdev, const char *target)
{
	struct fuse_entry_param e;
	struct dir_stamp pre;
	struct creds c;
	struct xlock x = { 0 };
	int spare = -1, spare2 = -1, inherit, r;

	ns_lock(d, 1);
	if (dir_folds(d))
		xlock(d, &x);
	/* a new subdirectory of a folding one is marked (chattr +F is
	 * inherited): new_dir_ours() needs a descriptor of its own */
	inherit = kind == MK_DIR && dir_folds(d) && !F.casefold_all;
	r = may_create(d, name);
	if (r == 0)
		r = spare_fd(&spare);
	if (r == 0 && inherit)
		r = spare_fd(&spare2);
	if (r)
		goto out;
	dir_stamp(d, &pre);
	r = creds_enter(req, &c);
	if (r)
		goto out;
	do {
		if (kind == MK_DIR)
			r = mkdirat(d->fd, name, mode);
		else if (kind == MK_LNK)
			r = symlinkat(target, d->fd, name);
		else if (kind == MK_LINK)
			r = linkat(AT_FDCWD, target, d->fd, name,
				   AT_SYMLINK_FOLLOW);
		else
			r = mknodat(d->fd, name, mode, rdev);
		r = r < 0 ? -errno : 0;
	} while (creds_retry(req, &c, r));
	creds_leave(&c);
	if (r)
		goto out;
	r = created(d, name, &pre, &e, &spare);
	if (r == 0 && inherit) {
		/* chattr +F is inherited by new subdirectories. */
		struct node *n = node_of(e.ino);
		int x;
		spare_drop(&spare2);
		x = new_dir_ours(n, &e.attr);
		if (x == 0)
			x = foldfs_dir_casefold_set(n->fd, 1);
		if (x > 0) {
			/* Not ours to mark, nor to remove: the caller gets
			 * what the name denotes now, as after a rename made
			 * just after its mkdir. */
			fprintf(stderr, "foldfs: new directory %s was "
					"replaced in SOURCE before it could be "
					"marked as folding; left as it is\n",
				name);
		} else if (x < 0) {
			/* Never leave a subdirectory that silently does not
			 * fold: undo the mkdir and say why. */
			fprintf(stderr, "foldfs: cannot mark new directory "
					"%s as folding: %s\n", name,
				strerror(-x));
			if (unlinkat(d->fd, name, AT_REMOVEDIR) == 0) {
				dir_index_change(d, name, NULL, NULL, &pre);
				coh_changed(d, name, 0);
				node_forget(n, 1);
				r = x;
			}
		} else {
			struct stat st;
			dir_set_fold(n, 1);
			/* Setting the attribute moved its ctime on: the
			 * kernel caches what we answer. */
			if (fstat(n->fd, &st) == 0)
				e.attr.st_ctim = st.st_ctim;
		}
	}
out:
	xunlock(&x);
	ns_unlock(d);
	spare_put(&spare);
	spare_put(&spare2);
	if (r)
		fuse_reply_err(req, -r);
	else
		reply_entry(req, &e);
}

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
	      mode_t mode, dev_t rdev)
{
	make(req, node_of(parent), name, MK_NOD, mode, rdev, NULL);
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
	      mode_t mode)
{
	make(req, node_of(parent), name, MK_DIR, mode, 0, NULL);
}

void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		const char *name)
{
	make(req, node_of(parent), name, MK_LNK, 0, 0, link);
}

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
	     const char *newname)
{
	char proc[64];

	/* The /proc link of an O_PATH fd names the object itself, also for
	 * a symlink; no CAP_DAC_READ_SEARCH needed as with AT_EMPTY_PATH. */
	node_procname(node_of(ino), proc);
	make(req, node_of(newparent), newname, MK_LINK, 0, 0, proc);
}

void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
	       mode_t mode, struct fuse_file_info *fi)
{
	struct node *d = node_of(parent);
	/* O_APPEND is decided per write (ops_file.c) */
	int flags = fi->flags & ~(O_NOFOLLOW | O_NOCTTY | O_APPEND);
	struct fuse_entry_param e;
	struct dir_stamp pre;
	struct creds c;
	char stored[NAME_BUF], proc[64];
	struct stat st;
	uint64_t mnt;
	struct xlock x = { 0 };
	int fd = -1, spare = -1, r;

	ns_lock(d, 1);
	if (strlen(name) >= NAME_BUF) {
		r = -ENAMETOOLONG;
		goto out;
	}
	if (name_reserved(d, name)) {
		r = -EPERM;
		goto out;
	}
	if (dir_folds(d)) {
		if ((F.rec.flags & FOLD_STRICT) && name_illformed(name)) {
			r = -EINVAL;
			goto out;
		}
		xlock(d, &x);
		r = resolve(d, name, stored, &st, &mnt);
		if (r >= 0) {
			/* An equivalent exists: O_EXCL fails, plain O_CREAT
			 * opens it (as open(2) would for the same name).
			 * CREATE can only answer a regular file.  Nothing
			 * is created: other daemons need not wait (the
			 * open below may, for a lease). */
			int pfd = r;
			xunlock(&x);
			/* A daemon that cannot be the caller (a user's,
			 * with allow_other) would open it with its own
			 * access, which SOURCE then checks instead of the
			 * caller's: let the kernel open it (ESTALE, below),
			 * with its permission checks. */
			int foreign = !F.switch_creds &&
				      fuse_req_ctx(req)->uid != geteuid();
			/* In a sticky directory open(2) with O_CREAT of an
			 * existing file is also checked against
			 * fs.protected_regular (another user's file planted
			 * in /tmp).  The kernel makes that check only after
			 * our reply, so an O_TRUNC here would empty the file
			 * it then refuses: let the kernel's own open, below,
			 * check first. */
			struct stat dst;
			int sticky = fstat(d->fd, &dst) == 0 &&
				     (dst.st_mode & S_ISVTX);
			if ((fi->flags & O_EXCL) || !S_ISREG(st.st_mode) ||
			    foreign || sticky) {
				/* A symbolic link, FIFO or device cannot be
				 * the answer to a CREATE: ESTALE makes the
				 * kernel look the name up again (LOOKUP_REVAL)
				 * and open what it finds, as open(2) would. */
				close(pfd);
				r = (fi->flags & O_EXCL) ? -EEXIST :
				    S_ISDIR(st.st_mode)	 ? -EISDIR :
							   -ESTALE;
				goto out;
			}
			/* The kernel checks no permission for a CREATE (it
			 * marks the file created): open it as the caller, so
			 * that SOURCE does, as open(2) of that name would (and
			 * O_TRUNC drops set-user-ID bits as for the caller). */
			snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
			r = creds_enter(req, &c);
			if (r) {
				close(pfd);
				goto out;
			}
			do {
				fd = file_open(proc, fi->flags);
				r = fd < 0 ? -errno : 0;
			} while (creds_retry(req, &c, r));
			creds_leave(&c);
			if (r) {
				close(pfd);
				goto out;
			}
			/* O_TRUNC changed size and times since resolve() */
			if (flags & O_TRUNC)
				fstat(fd, &st);
			r = entry_fill(d, pfd, &st, mnt, &e);
			if (r == 0)
				coh_note(d, name, e.ino);
			goto out;
		}
		if (r != -ENOENT)
			goto out;
	}
	r = spare_fd(&spare);
	if (r)
		goto out;
	/* The kernel sends CREATE for a name it holds as missing (a miss it
	 * cached, made in SOURCE since) and takes what we open as created,
	 * checking nothing.  So no existing entry is opened here: not another
	 * user's file with a user daemon's access, not a FIFO (this worker
	 * would wait for a reader, the caller unkillable, and the kernel
	 * refuses the answer: EIO), not a symbolic link followed in SOURCE.
	 * O_EXCL, and as above ESTALE makes the kernel look the name up
	 * again and open what it finds, as open(2) would. */
	int cfl = flags | O_CREAT | O_EXCL | O_CLOEXEC;
	dir_stamp(d, &pre);
	r = creds_enter(req, &c);
	if (r)
		goto out;
	do {
		fd = openat(d->fd, name, cfl, mode);
		if (fd < 0 && prune_wait(errno)) /* nothing was created */
			fd = openat(d->fd, name, cfl, mode);
		r = fd < 0 ? -errno : 0;
	} while (creds_retry(req, &c, r));
	creds_leave(&c);
	if (r == -EEXIST && !(fi->flags & O_EXCL))
		r = -ESTALE;
	if (r)
		goto out;
	r = created(d, name, &pre, &e, &spare);
out:
	xunlock(&x);
	ns_unlock(d);
	spare_put(&spare);
	dlog("create %s = %d", name, r);
	if (r) {
		if (fd >= 0)
			file_close(fd);
		fuse_reply_err(req, -r);
		return;
	}
	if (flags & O_DIRECT)
		file_undirect(fd);
	fi->fh = (uint64_t)fd;
	if (fuse_reply_create(req, &e, fi) != 0) {
		file_close(fd);
		node_forget(node_of(e.ino), 1);
	}
}

/* ---- removing ---------------------------------------------------------- */

static void remove_entry(fuse_req_t req, fuse_ino_t parent, const char *name,
			 int flags)
{
	struct node *d = node_of(parent);
	char stored[NAME_BUF];
	struct dir_stamp pre;
	struct creds c;
	struct stat st;
	int r;

	struct node *gone = NULL;
	uint64_t mnt;

	ns_lock(d, 1);
	r = resolve_name(d, name, stored, &st, &mnt);
	if (r == 0)
		r = creds_sticky(req, d, &st);
	if (r == 0) {
		/* A removed directory's index (which holds its node) is
		 * moot; find the node while it is still findable. */
		if (flags & AT_REMOVEDIR)
			gone = node_find(&st, mnt);
		dir_stamp(d, &pre);
		/* As the caller: `stored` may be another entry than the one
		 * the kernel checked (creds.c). */
		r = creds_enter_nomask(req, &c);
		if (r == 0) {
			do
				r = unlinkat(d->fd, stored, flags) < 0 ? -errno
								       : 0;
			while (creds_retry(req, &c, r));
			creds_leave(&c);
		}
		if (r == 0) {
			dir_index_change(d, stored, NULL, NULL, &pre);
			coh_changed(d, name, 0);
			if (gone)
				dir_index_drop(gone);
		}
	}
	ns_unlock(d);
	if (gone)
		node_put(gone);
	/* the removed name's dentry stays, negative, and pins d */
	if (r == 0 && !prune_negative_ok())
		coh_inval_async(d, name);
	dlog("unlink %s (%s) = %d", name, r == 0 ? stored : "-", r);
	fuse_reply_err(req, -r);
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, 0);
}

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, AT_REMOVEDIR);
}

/* ---- renaming ---------------------------------------------------------- */

int rename2(int ofd, const char *o, int nfd, const char *n, unsigned flags)
{
	int r;

	if (flags == 0)
		return renameat(ofd, o, nfd, n) < 0 ? -errno : 0;
	r = syscall(SYS_renameat2, ofd, o, nfd, n, flags) < 0 ? -errno : 0;
	if (r == -EINVAL && flags == RENAME_NOREPLACE) {
		/* SOURCE's file system takes no flags (NFS, 9p, many FUSE
		 * ones): a look, under the caller's namespace lock, then a
		 * plain rename -- only a change made to SOURCE directly in
		 * between can be overwritten. */
		struct stat st;

		if (fstatat(nfd, n, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return -EEXIST;
		if (errno != ENOENT)
			return -errno;
		r = renameat(ofd, o, nfd, n) < 0 ? -errno : 0;
	}
	return r;
}

/* rename2() as the caller: the stored names may be other entries than the
 * ones the kernel checked (creds.c).  No umask: a rename makes no object
 * but a whiteout, whose mode is 0 whatever the umask. */
static int rename2_as(fuse_req_t req, int ofd, const char *o, int nfd,
		      const char *n, unsigned flags)
{
	struct creds c;
	int r = creds_enter_nomask(req, &c);

	if (r)
		return r;
	do
		r = rename2(ofd, o, nfd, n, flags);
	while (creds_retry(req, &c, r));
	creds_leave(&c);
	return r;
}

/* The node id the kernel gets for `name` in d now (0: none). */
static uint64_t binding(struct node *d, const char *name)
{
	char stored[NAME_BUF];
	struct stat st;
	struct node *n;
	uint64_t id = 0, mnt;

	if (resolve_name(d, name, stored, &st, &mnt) < 0)
		return 0;
	/* on its own mount: an entry that is a mount point is the mounted
	 * root's node */
	n = node_find(&st, mnt);
	if (n) {
		id = node_id(n);
		node_put(n);
	}
	return id;
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
	       fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct node *d1 = node_of(parent), *d2 = node_of(newparent);
	char src[NAME_BUF], dst[NAME_BUF];
	struct stat sst, dstst;
	struct dir_stamp pre1, pre2;
	const char *replaced = NULL; /* stored name the rename removed in d2 */
	struct xlock x = { 0 };
	int r, have_dst = 0, timed1, timed2;

	ns_lock2(d1, d2);
	if (strlen(newname) >= NAME_BUF) {
		r = -ENAMETOOLONG;
		goto out;
	}
	if (name_reserved(d2, newname)) {
		r = -EPERM;
		goto out;
	}
	r = resolve_name(d1, name, src, &sst, NULL);
	if (r == 0)
		r = creds_sticky(req, d1, &sst);
	if (r)
		goto out;
	if (dir_folds(d2)) {
		if ((F.rec.flags & FOLD_STRICT) && name_illformed(newname)) {
			r = -EINVAL;
			goto out;
		}
		/* Only d2 gains a name: d1 keeps or loses one, and one lock
		 * per operation leaves no order to agree on with others. */
		xlock(d2, &x);
		r = resolve_name(d2, newname, dst, &dstst, NULL);
		if (r == 0) {
			have_dst = 1;
			r = creds_sticky(req, d2, &dstst);
			if (r)
				goto out;
		} else if (r != -ENOENT) {
			goto out;
		}
	}
	dir_stamp(d1, &pre1);
	dir_stamp(d2, &pre2);

	if (have_dst && strcmp(dst, newname) != 0) {
		/* newname is a new spelling of an existing entry dst. */
		if (d1 == d2 && !strcmp(src, dst)) {
			/* Same entry: only the spelling changes.  (The VFS
			 * normally short-circuits this before we see it.) */
			r = (flags & RENAME_EXCHANGE)
				    ? 0
				    : rename2_as(req, d1->fd, src, d2->fd,
						 newname, RENAME_NOREPLACE);
			if (r == 0 && !(flags & RENAME_EXCHANGE))
				replaced = dst;
		} else if (flags & RENAME_NOREPLACE) {
			r = -EEXIST;
		} else {
			/* Replace dst, then give it the new spelling.  A
			 * crash in between leaves the renamed object under
			 * dst's spelling: nothing is lost.  An exchange
			 * keeps both stored names, as ext4 does. */
			r = rename2_as(req, d1->fd, src, d2->fd, dst, flags);
			if (r == 0 && !(flags & RENAME_EXCHANGE)) {
				int r2 = rename2_as(req, d2->fd, dst, d2->fd,
						    newname, RENAME_NOREPLACE);
				if (r2)
					fprintf(stderr,
						"foldfs: rename kept the "
						"spelling %s (%s)\n",
						dst, strerror(-r2));
				else
					replaced = dst;
			}
		}
	} else {
		r = rename2_as(req, d1->fd, src, d2->fd, newname, flags);
	}
	if (r)
		goto out;

	/* RENAME_WHITEOUT leaves a whiteout stored as src: it stays indexed,
	 * or other spellings would miss it and could create its duplicate. */
	const char *gone = (flags & RENAME_WHITEOUT) ? NULL : src;
	if (flags & RENAME_EXCHANGE) {
		/* Both stored names still exist, unchanged. */
	} else if (d1 == d2) {
		dir_index_change(d1, gone, replaced, newname, &pre1);
	} else {
		dir_index_change(d1, gone, NULL, NULL, &pre1);
		dir_index_change(d2, replaced, NULL, newname, &pre2);
	}
	/* What the kernel holds now: the source dentry moved to newname
	 * (exchange: the target's moved to name), with the timeouts they
	 * had (asked before coh_changed() forgets them). */
	timed1 = coh_timed(d1, name);
	timed2 = (flags & RENAME_EXCHANGE) && coh_timed(d2, newname);
	coh_changed(d1, name, (flags & RENAME_EXCHANGE) ? binding(d1, name) : 0);
	coh_changed(d2, newname, binding(d2, newname));
	if (timed1)
		coh_moved_in(d2, newname, binding(d2, newname));
	if (timed2)
		coh_moved_in(d1, name, binding(d1, name));
out:
	xunlock(&x);
	ns_unlock2(d1, d2);
	dlog("rename %s -> %s = %d", name, newname, r);
	fuse_reply_err(req, -r);
}

/* ---- shared helpers ---------------------------------------------------- */

int dir_nonempty(struct node *d)
{
	/* the kernel aligns records to 8 bytes from the buffer's start */
	_Alignas(8) char buf[4096];
	int fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int found = 0;

	if (fd < 0 && prune_wait(errno))
		fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof buf);
		if (n < 0) {
			found = -errno;
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n && !found;) {
			const struct dirent64 *de = (void *)(buf + off);
			const char *nm = de->d_name;
			off += de->d_reclen;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			if (name_hidden(d, nm))
				continue;
			found = 1;
		}
		if (found)
			break;
	}
	close(fd);
	return found;
}
