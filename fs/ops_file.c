/*
 * ops_file.c - open files: data moves between the kernel and SOURCE with
 * as little copying as libfuse allows (read replies spliced from the
 * backing fd, writes copied straight to it), plus sync, allocation,
 * seeking and copy_file_range, all on the backing descriptor (locks:
 * ops_lock.c, told here when a descriptor is closed and a file released).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <unistd.h>

#include "foldfs.h"

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = node_of(ino);
	struct creds c = { 0 };
	char proc[64];
	int fd, r;

	/* The kernel resolved the name already; we open the object.  With
	 * O_TRUNC we truncate (atomic O_TRUNC), so as the caller: the kernel
	 * then drops set-user-ID and set-group-ID bits as for the caller's
	 * own open(2). */
	node_procname(n, proc);
	if ((fi->flags & O_TRUNC) && (r = creds_enter_nomask(req, &c)) != 0) {
		fuse_reply_err(req, -r);
		return;
	}
	do {
		fd = file_open(proc, fi->flags);
		r = fd < 0 ? errno : 0;
	} while (creds_retry(req, &c, -r));
	creds_leave(&c);
	if (fd < 0) {
		fuse_reply_err(req, r);
		return;
	}
	if (fi->flags & O_DIRECT)
		file_undirect(fd);
	fi->fh = (uint64_t)fd;
	if (fuse_reply_open(req, fi) != 0)
		file_close(fd);
}

int file_open(const char *proc, int flags)
{
	/* No O_APPEND on the backing descriptor: whether a write appends
	 * is decided per request (op_write_buf), as fcntl(F_SETFL) can
	 * change it and a page written back from a mapping never does.
	 * O_CLOEXEC whatever the caller asked: a user's daemon runs
	 * fusermount3 at unmount.  The /proc link is itself a symlink:
	 * O_NOFOLLOW would refuse it. */
	int fl = (flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL | O_APPEND)) |
		 O_CLOEXEC | O_NOCTTY;
	/* (O_NOATIME of our own in a noatime view; the caller's own, if
	 * refused, stays refused) */
	int fd = src_openat(AT_FDCWD, proc, fl,
			    F.noatime && !(fl & O_NOATIME));

	if (fd < 0 && errno == EPERM && (flags & O_APPEND)) {
		/* an append-only file (chattr +a) opens only so, and then
		 * every write appends, through the view as without it */
		fd = src_openat(AT_FDCWD, proc, fl | O_APPEND,
				F.noatime && !(fl & O_NOATIME));
		if (fd >= 0)
			file_appending();
	}
	return fd;
}

/* A root daemon has CAP_FSETID: SOURCE's file system keeps the set-user-ID
 * and set-group-ID bits of a file the daemon writes, where it drops them
 * for a caller without that capability.  The kernel drops them itself
 * (SETATTR) only when its cached mode shows them, which a mode changed
 * directly in SOURCE need not, and by FUSE's rule (the group bit only with
 * group execute; a local file system also drops it for a writer outside
 * the file's group); and libfuse 3.14 can neither ask for
 * FUSE_HANDLE_KILLPRIV_V2 nor pass on the kernel's FUSE_WRITE_KILL_SUIDGID.
 * So the data of a file with such a bit changes as the caller, and SOURCE
 * decides as for the caller's own write.  Root callers keep CAP_FSETID:
 * nothing to change. */
int file_as_writer(fuse_req_t req, int fd, struct creds *c, int alloc)
{
	uid_t uid = fuse_req_ctx(req)->uid;
	struct stat st;

	c->switched = 0;
	if (!F.switch_creds || uid == 0 || fstat(fd, &st) < 0 ||
	    !(st.st_mode & (S_ISUID | S_ISGID))) {
		/* no bit to drop.  A truncation by path (no descriptor: the
		 * proc link) would check write permission with the fsuid
		 * but our groups: it stays ours (it allocates nothing), and
		 * only the capability follows the caller (creds.c) */
		if (!alloc) {
			creds_resource(req);
			return 0;
		}
		return creds_enter_fsuid(uid, c);
	}
	return creds_enter_nomask(req, c);
}

#ifndef RWF_APPEND
#define RWF_APPEND 0x00000010
#endif

/* A descriptor op_open gave O_APPEND (the file was append-only) appends
 * every write, wherever the request says.  Before a write that is not an
 * append -- its caller cleared O_APPEND with F_SETFL, which the kernel
 * allows as it does not know the attribute, or a page written back from a
 * shared mapping -- drop the flag: SOURCE refuses that (EPERM) while the
 * file is still append-only, as it refuses a positional write
 * (RWF_NOAPPEND); once `chattr -a` has removed the attribute, the write
 * lands at its offset, as on a native file.  0 or -errno.
 *
 * Few descriptors ever have the flag, and asking costs a system call per
 * write: `appending` counts ours that have it (opened so, or a direct one
 * copied from one), and only while there are any is the flag looked at
 * (under append_mu: two writes of one file must not both take it off the
 * count).  Every descriptor of ours that may have it leaves the count
 * when it is closed: at release, and on the error paths (file_close). */
static atomic_int appending;
static pthread_mutex_t append_mu = PTHREAD_MUTEX_INITIALIZER;

void file_appending(void)
{
	atomic_fetch_add(&appending, 1);
}

static int positional(int fd)
{
	int fl, r = 0;

	if (!atomic_load(&appending))
		return 0;
	pthread_mutex_lock(&append_mu);
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_APPEND)) {
		if (fcntl(fd, F_SETFL, fl & ~O_APPEND) < 0)
			r = -errno;
		else
			atomic_fetch_sub(&appending, 1);
	}
	pthread_mutex_unlock(&append_mu);
	return r;
}

/* Before one of ours is closed: it leaves the count if it has the flag. */
static void append_close(int fd)
{
	int fl;

	if (!atomic_load(&appending))
		return;
	pthread_mutex_lock(&append_mu);
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_APPEND))
		atomic_fetch_sub(&appending, 1);
	pthread_mutex_unlock(&append_mu);
}

void file_close(int fd)
{
	append_close(fd);
	close(fd);
}

/* O_DIRECT.  The backing descriptor (fi->fh) is never direct: a request
 * that must not be (a page written back from a mapping, copy_file_range,
 * I/O after fcntl(F_SETFL) cleared O_DIRECT -- which never reaches us)
 * may run while a direct one of the same file does, and toggling the
 * flag of one shared descriptor would make it fail (EINVAL: unaligned)
 * or the direct one go through the cache.  A direct request uses a
 * second descriptor of the file, opened O_DIRECT at the first such
 * request and closed at release; where there can be none, the backing
 * descriptor itself (through the cache). */
static pthread_mutex_t direct_mu = PTHREAD_MUTEX_INITIALIZER;
static int *direct_fds; /* by backing descriptor: its direct one + 1, or 0 */
static size_t ndirect;

void file_undirect(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && (fl & O_DIRECT))
		fcntl(fd, F_SETFL, fl & ~O_DIRECT);
}

/* The descriptor for a direct request of the file open as fd. */
static int direct_fd(int fd)
{
	int fl, d = -1;
	char proc[64];

	pthread_mutex_lock(&direct_mu);
	if ((size_t)fd < ndirect && direct_fds[fd])
		d = direct_fds[fd] - 1;
	pthread_mutex_unlock(&direct_mu);
	if (d >= 0)
		return d;
	/* the access of the backing descriptor (O_APPEND if the file is
	 * append-only: see op_open) */
	fl = fcntl(fd, F_GETFL);
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if (fl >= 0) {
		fl = (fl & (O_ACCMODE | O_APPEND | O_NOATIME | O_SYNC |
			    O_DSYNC)) |
		     O_DIRECT | O_CLOEXEC | O_NOCTTY;
		d = open(proc, fl);
		if (d < 0 && prune_wait(errno))
			d = open(proc, fl);
		if (d >= 0 && (fl & O_APPEND))
			file_appending();
		/* out of descriptors for now: this request through the
		 * cache, and the next one asks again */
		if (d < 0 && (errno == EMFILE || errno == ENFILE))
			return fd;
	}
	if (d < 0)
		d = fd; /* not to be had: the cache, and no asking again */
	pthread_mutex_lock(&direct_mu);
	if ((size_t)fd >= ndirect) {
		size_t n = (size_t)fd + 64;
		int *t = realloc(direct_fds, n * sizeof *t);
		if (t) {
			memset(t + ndirect, 0, (n - ndirect) * sizeof *t);
			direct_fds = t;
			ndirect = n;
		}
	}
	if ((size_t)fd >= ndirect) {
		/* no memory for the entry: this request only */
		pthread_mutex_unlock(&direct_mu);
		if (d != fd) {
			append_close(d);
			close(d);
		}
		return fd;
	}
	if (direct_fds[fd]) {
		/* another request of the file was quicker */
		if (d != fd) {
			append_close(d);
			close(d);
		}
		d = direct_fds[fd] - 1;
	} else {
		direct_fds[fd] = d + 1;
	}
	pthread_mutex_unlock(&direct_mu);
	return d;
}

/* Before fd is closed (its number may then be reused). */
static void direct_close(int fd)
{
	int d = 0;

	pthread_mutex_lock(&direct_mu);
	if ((size_t)fd < ndirect) {
		d = direct_fds[fd];
		direct_fds[fd] = 0;
	}
	pthread_mutex_unlock(&direct_mu);
	if (d && d - 1 != fd) {
		append_close(d - 1);
		close(d - 1);
	}
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);
	int fd = (fi->flags & O_DIRECT) ? direct_fd((int)fi->fh) : (int)fi->fh;

	(void)ino;
	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].pos = off;
#ifdef FOLDFS_TSAN
	/* libfuse reads fd inside fuse_reply_data(), after the reply's
	 * annotation (foldfs.h), and the RELEASE that the kernel sends only
	 * after this reply may close fd in another worker: ThreadSanitizer
	 * would see the read and the close unordered.  It reads a duplicate,
	 * made before the annotation and closed here. */
	int t = dup(fd);

	buf.buf[0].fd = t >= 0 ? t : fd;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
	if (t >= 0)
		close(t);
#else
	buf.buf[0].fd = fd;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
#endif
}

void op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv,
		  off_t off, struct fuse_file_info *fi)
{
	size_t len = fuse_buf_size(bufv);
	int fd = (int)fi->fh;
	/* fi->flags are the writer's file flags as of this write (none for
	 * a page written back from a shared mapping: it belongs at off).
	 * A page written back from the page cache is never direct. */
	int append = !fi->writepage && (fi->flags & O_APPEND);
	int direct;
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(len);
	struct iovec iov;
	struct creds c = { 0 };
	void *buf = NULL;
	ssize_t r;

	(void)ino;
	if (!fi->writepage && (fi->flags & O_DIRECT))
		fd = direct_fd(fd);
	direct = fd != (int)fi->fh;
	if (!append && (r = positional(fd)) != 0) {
		fuse_reply_err(req, (int)-r);
		return;
	}
	/* a page written back from a mapping drops no set-ID bit, in
	 * SOURCE neither (and has no caller) */
	if (fi->writepage) {
		/* Pages written back from a shared mapping come without a
		 * caller (the kernel's writeback): written as the file's
		 * owner, for root's reserved blocks and quota limits -- but
		 * with our fsuid if it has a set-ID bit, which such a write
		 * does not drop (natively neither) */
		struct stat st;
		r = fstat(fd, &st) < 0 ? -errno : 0;
		if (r == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
			creds_resource_uid(st.st_uid);
		else if (r == 0)
			r = creds_enter_fsuid(st.st_uid, &c);
	} else {
		r = file_as_writer(req, fd, &c, 1);
	}
	if (r) {
		fuse_reply_err(req, (int)-r);
		return;
	}
	if (!append && !direct) {
		/* the common case: from the request (spliced, if the
		 * kernel did) straight to the file at off */
		out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		out.buf[0].fd = fd;
		out.buf[0].pos = off;
		r = fuse_buf_copy(&out, bufv, 0);
		goto reply;
	}
	/* Through memory: O_DIRECT wants an aligned buffer (the request's
	 * is not), an append wants pwritev2's RWF_APPEND. */
	if (posix_memalign(&buf, 4096, len ? len : 1) != 0) {
		r = -ENOMEM;
		goto reply;
	}
	out.buf[0].mem = buf;
	r = fuse_buf_copy(&out, bufv, FUSE_BUF_NO_SPLICE);
	if (r >= 0) {
		iov.iov_base = buf;
		iov.iov_len = (size_t)r;
		/* RWF_APPEND: at SOURCE's end of file, atomically (the
		 * kernel's idea of the size may be stale), as O_APPEND on
		 * the backing file did */
		r = pwritev2(fd, &iov, 1, off, append ? RWF_APPEND : 0);
		if (r < 0)
			r = -errno;
	}
reply:
	free(buf);
	creds_leave(&c);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}

void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* close() of a duplicate reports deferred write errors (NFS and
	 * the like) without giving up our descriptor. */
	struct node *n = node_of(ino);
	int fd;

	locks_flush(n, fi->lock_owner);
	if (F.root_noflush && n->dev == F.root_dev) {
		/* nothing deferred to report there */
		fuse_reply_err(req, 0);
		return;
	}
	fd = dup((int)fi->fh);
	if (fd < 0 && prune_wait(errno))
		fd = dup((int)fi->fh);
	if (fd < 0) {
		/* close(2) never fails for want of a descriptor: without
		 * one, no deferred error to report (fsync still does) */
		fuse_reply_err(req, errno == EMFILE || errno == ENFILE ? 0
								 : errno);
		return;
	}
	fuse_reply_err(req, close(fd) < 0 ? errno : 0);
}

void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* before the fd number can be reused by another open */
	locks_release(node_of(ino), fi->fh);
	direct_close((int)fi->fh);
	append_close((int)fi->fh);
	close((int)fi->fh);
	fuse_reply_err(req, 0);
}

void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
	      struct fuse_file_info *fi)
{
	int fd = (int)fi->fh;

	(void)ino;
	fuse_reply_err(req, (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? errno
								       : 0);
}

void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
		  off_t length, struct fuse_file_info *fi)
{
	struct creds c = { 0 };
	int r;

	(void)ino;
	r = file_as_writer(req, (int)fi->fh, &c, 1);
	if (r == 0 && fallocate((int)fi->fh, mode, offset, length) < 0)
		r = -errno;
	creds_leave(&c);
	fuse_reply_err(req, -r);
}

void op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
	      struct fuse_file_info *fi)
{
	off_t r = lseek((int)fi->fh, off, whence);

	(void)ino;
	if (r < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_lseek(req, r);
}

void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			off_t off_out, struct fuse_file_info *fi_out,
			size_t len, int flags)
{
	loff_t in = off_in, out = off_out;
	struct creds c = { 0 };
	ssize_t r;

	(void)ino_in;
	(void)ino_out;
	r = positional((int)fi_out->fh);
	if (r == 0)
		r = file_as_writer(req, (int)fi_out->fh, &c, 1);
	if (r == 0) {
		r = copy_file_range((int)fi_in->fh, &in, (int)fi_out->fh, &out,
				    len, (unsigned)flags);
		if (r < 0)
			r = -errno;
	}
	creds_leave(&c);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}
