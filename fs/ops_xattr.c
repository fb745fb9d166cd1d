/*
 * ops_xattr.c - extended attributes, passed through to SOURCE except the
 * daemon's own (user.foldfs.*, e.g. the casefold attribute), which the
 * view neither shows nor lets anyone set: chattr +F/-F is the way to
 * change folding.
 *
 * O_PATH descriptors do not support f*xattr(), so the calls go through
 * /proc/self/fd/N, which names the object itself (also a symlink: the
 * magic link is not followed further).
 *
 * Every change is made as the caller (creds_enter_nomask).  The kernel
 * checks user.* and trusted.* itself, but leaves system.* to the file
 * system: so SOURCE checks ownership for POSIX ACLs (and clears the
 * set-group-ID bit when a caller outside the file's group sets an access
 * ACL, which the kernel asks of the daemon only through FUSE_SETXATTR_EXT,
 * absent from libfuse 3.14) and for system.nfs4_acl and the like.  The
 * kernel lets only a caller with CAP_SYS_ADMIN read or change a trusted.*
 * attribute, and ext4 lists their names to such a caller only: so does
 * the view (creds_capable()).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "foldfs.h"

static int ours(const char *name)
{
	return !strncmp(name, FOLDFS_XATTR_PREFIX, strlen(FOLDFS_XATTR_PREFIX));
}

/* setxattr (value non-NULL) or removexattr of name on proc, as the
 * caller; 0 or an errno. */
static int change_xattr(fuse_req_t req, const char *proc, const char *name,
			const char *value, size_t size, int flags)
{
	struct creds c = {0};
	int r = creds_enter_nomask(req, &c); /* creates nothing */

	if (r)
		return -r;
	do {
		r = value ? setxattr(proc, name, value, size, flags)
			  : removexattr(proc, name);
		r = r < 0 ? errno : 0;
	} while (creds_retry(req, &c, -r));
	creds_leave(&c);
	return r;
}

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		 const char *value, size_t size, int flags)
{
	char proc[64];

	if (ours(name)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	node_procname(node_of(ino), proc);
	fuse_reply_err(req, change_xattr(req, proc, name, value ? value : "",
					 size, flags));
}

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		 size_t size)
{
	char proc[64], *buf = NULL;
	ssize_t r;

	if (ours(name)) {
		fuse_reply_err(req, ENODATA);
		return;
	}
	node_procname(node_of(ino), proc);
	if (size) {
		buf = malloc(size);
		if (!buf) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
	}
	r = getxattr(proc, name, buf, size);
	if (r < 0)
		fuse_reply_err(req, errno);
	else if (size)
		fuse_reply_buf(req, buf, (size_t)r);
	else
		fuse_reply_xattr(req, (size_t)r);
	free(buf);
}

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	char proc[64], *buf = NULL;
	ssize_t r = 0;
	size_t out = 0;
	int hide_trusted = -1; /* not asked yet */

	node_procname(node_of(ino), proc);
	/* Our names are filtered out, so the size must be taken from the
	 * real list; retry if it grew in between (ERANGE).  An empty list
	 * needs no second call: one with size 0 would only measure. */
	for (int tries = 0; tries < 8; tries++) {
		r = listxattr(proc, NULL, 0);
		if (r <= 0)
			break;
		free(buf);
		buf = malloc((size_t)r + 1);
		if (!buf) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		r = listxattr(proc, buf, (size_t)r);
		if (r >= 0 || errno != ERANGE)
			break;
	}
	if (r < 0) {
		fuse_reply_err(req, errno);
		free(buf);
		return;
	}
	if (r)
		buf[r] = '\0'; /* a last name without its NUL stays bounded */
	for (ssize_t at = 0; at < r;) {
		size_t l = strlen(buf + at) + 1;
		int trusted = !strncmp(buf + at, "trusted.", 8);
		if (trusted && hide_trusted < 0)
			hide_trusted = !creds_capable(req, CAP_SYS_ADMIN);
		if (!ours(buf + at) && !(trusted && hide_trusted)) {
			memmove(buf + out, buf + at, l);
			out += l;
		}
		at += (ssize_t)l;
	}
	if (!size)
		fuse_reply_xattr(req, out);
	else if (out > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, buf, out);
	free(buf);
}

void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	char proc[64];

	if (ours(name)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	node_procname(node_of(ino), proc);
	fuse_reply_err(req, change_xattr(req, proc, name, NULL, 0, 0));
}
