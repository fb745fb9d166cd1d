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
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "foldfs.h"

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = node_of(ino);
	struct creds c = { 0 };
	char proc[64];
	int fd, r;

	/* The /proc link is itself a symlink: O_NOFOLLOW would refuse it.
	 * The kernel resolved the name already; we open the object.  With
	 * O_TRUNC we truncate (atomic O_TRUNC), so as the caller: the kernel
	 * then drops set-user-ID and set-group-ID bits as for the caller's
	 * own open(2). */
	node_procname(n, proc);
	if ((fi->flags & O_TRUNC) && (r = creds_enter(req, &c)) != 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fd = open(proc, (fi->flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL |
				       O_NOCTTY)) | O_CLOEXEC);
	r = fd < 0 ? errno : 0;
	creds_leave(&c);
	if (fd < 0) {
		fuse_reply_err(req, r);
		return;
	}
	fi->fh = (uint64_t)fd;
	if (fuse_reply_open(req, fi) != 0)
		close(fd);
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);

	(void)ino;
	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = (int)fi->fh;
	buf.buf[0].pos = off;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

void op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv,
		  off_t off, struct fuse_file_info *fi)
{
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(bufv));
	ssize_t r;

	(void)ino;
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = (int)fi->fh;
	out.buf[0].pos = off;
	r = fuse_buf_copy(&out, bufv, 0);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}

void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* close() of a duplicate reports deferred write errors (NFS and
	 * the like) without giving up our descriptor. */
	int fd;

	locks_flush(node_of(ino), fi->lock_owner);
	fd = dup((int)fi->fh);
	if (fd < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	fuse_reply_err(req, close(fd) < 0 ? errno : 0);
}

void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* before the fd number can be reused by another open */
	locks_release(node_of(ino), fi->fh);
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
	(void)ino;
	fuse_reply_err(req, fallocate((int)fi->fh, mode, offset, length) < 0
				    ? errno
				    : 0);
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
	ssize_t r;

	(void)ino_in;
	(void)ino_out;
	r = copy_file_range((int)fi_in->fh, &in, (int)fi_out->fh, &out, len,
			    (unsigned)flags);
	if (r < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_write(req, (size_t)r);
}
