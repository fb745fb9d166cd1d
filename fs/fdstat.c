/*
 * fdstat.c - fd_stat(), name_stat(): the stat of an O_PATH descriptor, or
 * of a name in a directory, together with the id of the mount it is
 * reached through, in one statx call.  The node
 * table (inode.c) keys objects by mount as well as by (st_dev, st_ino):
 * a bind mount inside SOURCE shows an object again, perhaps read-only.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "foldfs.h"

/* mnt may be NULL */
static int stat_x(int dirfd, const char *name, int flags, struct stat *st,
		  uint64_t *mnt)
{
	struct statx x;

	if (mnt)
		*mnt = 0;
	if (statx(dirfd, name, flags, STATX_BASIC_STATS | STATX_MNT_ID, &x) < 0) {
		if (errno != ENOSYS && errno != EPERM)
			return -1;
		/* before Linux 4.11, or a seccomp filter that refuses it
		 * (fstat of a descriptor is never refused otherwise) */
		return fstatat(dirfd, name, st, flags & ~AT_STATX_SYNC_TYPE);
	}
	memset(st, 0, sizeof *st);
	st->st_dev = makedev(x.stx_dev_major, x.stx_dev_minor);
	st->st_ino = x.stx_ino;
	st->st_mode = x.stx_mode;
	st->st_nlink = x.stx_nlink;
	st->st_uid = x.stx_uid;
	st->st_gid = x.stx_gid;
	st->st_rdev = makedev(x.stx_rdev_major, x.stx_rdev_minor);
	st->st_size = (off_t)x.stx_size;
	st->st_blksize = (blksize_t)x.stx_blksize;
	st->st_blocks = (blkcnt_t)x.stx_blocks;
	st->st_atim.tv_sec = x.stx_atime.tv_sec;
	st->st_atim.tv_nsec = x.stx_atime.tv_nsec;
	st->st_mtim.tv_sec = x.stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = x.stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = x.stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = x.stx_ctime.tv_nsec;
	if (mnt && (x.stx_mask & STATX_MNT_ID))
		*mnt = x.stx_mnt_id;
	return 0;
}

int name_stat(int dirfd, const char *name, struct stat *st, uint64_t *mnt)
{
	/* no automount: as fstatat (which always adds it) and the O_PATH
	 * opens of lookups, so that a node and a look at its name agree */
	return stat_x(dirfd, name,
		      AT_SYMLINK_NOFOLLOW | (*name ? AT_NO_AUTOMOUNT : AT_EMPTY_PATH),
		      st, mnt);
}

int fd_stat_sync(int fd, struct stat *st)
{
	return stat_x(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW |
				      AT_STATX_FORCE_SYNC, st, NULL);
}

int fd_stat(int fd, struct stat *st, uint64_t *mnt)
{
	return name_stat(fd, "", st, mnt);
}
