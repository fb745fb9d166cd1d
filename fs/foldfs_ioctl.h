/*
 * foldfs_ioctl.h - the ioctl interface of a foldfs mount, for clients.
 *
 * FOLDFS_IOC_RESPELL changes only the stored spelling of one entry of a
 * folding directory ("Foo" -> "FOO").  rename(2) cannot do that through
 * the mount: the kernel looks up the new name, gets the very inode of the
 * old one, and returns 0 without asking the file system.  Usage:
 *
 *	struct foldfs_respell r = { 0 };
 *	strcpy(r.from, "Foo");		(any spelling that finds the entry)
 *	strcpy(r.to, "FOO");		(the spelling to store)
 *	int dfd = open("DIR", O_RDONLY | O_DIRECTORY);
 *	ioctl(dfd, FOLDFS_IOC_RESPELL, &r);
 *
 * issued on an open descriptor of the directory that holds the entry.
 * Both names are bare names (no '/'), NUL-terminated within their 256
 * bytes.  Errors (see foldfs(8)): ENOTTY not a foldfs mount; EINVAL the
 * directory does not fold, `to` is not equivalent to the stored name, or
 * (strict tree) `to` is not well-formed UTF-8; ENOENT nothing matches
 * `from`; EEXIST another entry is stored as exactly `to`; EACCES/EPERM as
 * for rename(2) (write and search permission on the directory, sticky
 * bit); EROFS read-only mount; ENAMETOOLONG a name fills its field.
 * The kernel does not check the mount an ioctl comes through: on a
 * read-only bind mount of a read-write view, check fstatvfs() for
 * ST_RDONLY first (foldfs --respell does).
 *
 * The number: type byte 0xF0, command 1, direction write, size 512.
 * Type 0xF0 is listed for no driver or file system in the kernel's
 * Documentation/userspace-api/ioctl/ioctl-number.rst, and is far from
 * what the VFS itself answers and what chattr/lsattr/e2fsprogs send
 * ('f' FS_IOC_GETFLAGS/SETFLAGS and ext4's EXT4_IOC_*, 'v' version,
 * 'X' FS_IOC_FSGETXATTR/FIFREEZE, 0x94 FICLONE and btrfs, 0x15
 * FS_IOC_GETFSUUID, 0xF5 f2fs, 0xE5 /dev/fuse).  Size and direction are
 * part of the number as well, so on any other file system the call fails
 * with ENOTTY and touches nothing.  A restricted FUSE ioctl: the kernel
 * copies exactly _IOC_SIZE bytes in, so the structure has a fixed size.
 */
#ifndef FOLDFS_IOCTL_H
#define FOLDFS_IOCTL_H

#include <linux/ioctl.h>

#define FOLDFS_RESPELL_NAME_MAX 256 /* bytes per field, NUL included */

struct foldfs_respell {
	char from[FOLDFS_RESPELL_NAME_MAX]; /* a spelling of the entry */
	char to[FOLDFS_RESPELL_NAME_MAX];   /* its new stored spelling */
};

#define FOLDFS_IOC_MAGIC 0xF0
#define FOLDFS_IOC_RESPELL _IOW(FOLDFS_IOC_MAGIC, 1, struct foldfs_respell)

#endif /* FOLDFS_IOCTL_H */
