/*
 * fs-posix.c - POSIX sanity of a foldfs view, run in a folding and in a
 * plain directory of the same mount: file I/O, append, truncation, a sparse
 * file beyond 4 GiB, directories, rename (with renameat2 NOREPLACE and
 * EXCHANGE), symlinks, link counts, chmod/chown, utimensat, FIFOs, xattrs,
 * fallocate, fsync, statfs, flock and fcntl/OFD locks (and their waiters),
 * telldir/seekdir, mmap, name length, O_TMPFILE (skipped when
 * unsupported); fcntl locks against processes using SOURCE directly (a
 * waiter whose process closes another descriptor, an OFD lock and another
 * file's late RELEASE); O_DIRECT I/O while a mapping of the same open
 * file is written back;
 * ownership of files created by a non-root user under -o allow_other, and
 * SOURCE's POSIX ACLs (enforced, inherited, the umask applied as SOURCE
 * would, the set-group-ID bit cleared as SOURCE does); set-ID bits set in
 * SOURCE behind the view's cached mode dropped by a user's write, truncate,
 * fallocate or copy_file_range as SOURCE drops them; the sticky bit of
 * SOURCE for the entry unlink/rename act on (a root daemon and a user's),
 * and a user's daemon opening nothing for another user's O_CREAT (also
 * in a plain directory, over a file made in SOURCE behind a cached miss);
 * such an O_CREAT over a FIFO opens the FIFO, as open(2) does.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/posix_acl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

static const char help[] =
	"NAME\n"
	"    fs-posix - POSIX sanity checks through a foldfs view\n"
	"\n"
	"SYNOPSIS\n"
	"    fs-posix [--foldfs PATH] [--root DIR] [--watchdog SECS] [--only NAME] [-q|-v]\n"
	"\n"
	"DESCRIPTION\n"
	"    Mounts a fresh SOURCE (no -o casefold), makes one folding (chattr\n"
	"    +F) and one plain directory, and runs the same POSIX checks in both;\n"
	"    checks that fcntl locks taken through the view and directly in SOURCE\n"
	"    exclude each other; then mounts with -o allow_other and checks that\n"
	"    files made by a non-root user (uid/gid 4321, via setresuid) belong to\n"
	"    that user and group, and that permissions are enforced, POSIX ACLs\n"
	"    included (a default ACL inherited and the umask applied as SOURCE\n"
	"    itself does), and that the sticky bit holds for the entry unlink\n"
	"    and rename act on, with a root daemon and one run as a user (which\n"
	"    must not open files for other users either).  The POSIX checks run\n"
	"    once more against a single-threaded daemon (-s), and a daemon\n"
	"    stopped by SIGTERM while a flock() waits must fail that flock()\n"
	"    with ENOLCK and exit cleanly.\n"
	"    Must run as root.  --only NAME runs only section NAME (a\n"
	"    comma-separated list, or repeat the option; the names are under\n"
	"    SECTIONS).\n"
	"\n"
	"EXIT STATUS\n"
	"    0 if every check passed, 1 otherwise; the last line is\n"
	"    \"N passed, N failed\" (\", N skipped\" when something was skipped).\n";

/* for --only: "posix" is the POSIX set in a folding and a plain directory,
 * each other name a sec_NAME() below */
static const char *const sections[] = {
	"posix", "single", "data_path", "nofile", "nofile_negative", "nofile_full",
	"nofile_indexes", "nofile_bigindex", "nofile_create", "source_locks", "late_release", "stop_with_waiter",
	"relative_stop", "ro_rw", "bind_ro", "reserve", "allow_other", "caller_caps", "create_existing", "setid_write", "sticky_swap",
	"sticky_user_daemon", "plain_create_user_daemon", "create_plain_fifo", "listxattr_race",
	"mkdir_swap", "acl", "acl_nodefperm", "chattr_race", "user_mount", "daemon_syscalls", NULL};

#ifndef FSTEST_SRCDIR
#define FSTEST_SRCDIR "tests/fs" /* (built by hand: run from the tree's root) */
#endif

#define TUID 4321
#define TGID 4321

static const char *L; /* label of the directory under test */

static int sys_renameat2(const char *a, const char *b, unsigned flags)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, flags);
}

static void t_io(const char *d, const char *srcd)
{
	const char *f = t_path(d, "io");
	int fd = open(f, O_CREAT | O_RDWR | O_EXCL, 0644);
	if (!CHECK(fd >= 0, "[%s] create io: %s", L, fd < 0 ? strerror(errno) : "ok"))
		return;
	CHECK(write(fd, "hello world", 11) == 11, "[%s] write 11 bytes", L);
	char buf[64] = "";
	CHECK(pread(fd, buf, sizeof buf, 0) == 11 && !memcmp(buf, "hello world", 11),
	      "[%s] pread reads them back", L);
	CHECK(pwrite(fd, "W", 1, 6) == 1, "[%s] pwrite at 6", L);
	memset(buf, 0, sizeof buf);
	CHECK(pread(fd, buf, 5, 6) == 5 && !memcmp(buf, "World", 5), "[%s] pread after pwrite", L);
	CHECK(lseek(fd, 0, SEEK_END) == 11, "[%s] lseek SEEK_END = 11", L);
	close(fd);

	fd = open(f, O_WRONLY | O_APPEND);
	lseek(fd, 0, SEEK_SET);
	CHECK(write(fd, "!", 1) == 1, "[%s] O_APPEND write", L);
	close(fd);
	CHECK(t_file_is(f, "hello World!"), "[%s] O_APPEND wrote at the end", L);

	CHECK_OK(truncate(f, 5), "[%s] truncate to 5", L);
	CHECK(t_file_is(f, "hello"), "[%s] content is the prefix", L);
	CHECK_OK(truncate(f, 100), "[%s] truncate up to 100", L);
	fd = open(f, O_RDWR);
	memset(buf, 1, sizeof buf);
	CHECK(pread(fd, buf, 10, 50) == 10 && !memcmp(buf, "\0\0\0\0\0\0\0\0\0\0", 10),
	      "[%s] the extension reads as zeros", L);
	CHECK_OK(ftruncate(fd, 2), "[%s] ftruncate to 2", L);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size == 2, "[%s] fstat size 2", L);
	CHECK_OK(fsync(fd), "[%s] fsync", L);
	CHECK_OK(fdatasync(fd), "[%s] fdatasync", L);
	close(fd);
	int dfd = open(d, O_RDONLY | O_DIRECTORY);
	CHECK_OK(fsync(dfd), "[%s] fsync on a directory", L);
	close(dfd);

	/* mmap write, read back with read(2) */
	fd = open(f, O_RDWR);
	CHECK_OK(ftruncate(fd, 4096), "[%s] size 4096 for mmap", L);
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (CHECK(p != MAP_FAILED, "[%s] mmap MAP_SHARED", L)) {
		memcpy(p + 100, "mapped", 6);
		CHECK_OK(msync(p, 4096, MS_SYNC), "[%s] msync", L);
		munmap(p, 4096);
		memset(buf, 0, sizeof buf);
		CHECK(pread(fd, buf, 6, 100) == 6 && !memcmp(buf, "mapped", 6),
		      "[%s] read(2) sees the mmap write", L);
	}
	close(fd);

	/* Sparse file past 4 GiB. */
	const char *big = t_path(d, "sparse");
	fd = open(big, O_CREAT | O_RDWR, 0644);
	off_t off = 5LL << 30;
	CHECK(pwrite(fd, "end!", 4, off) == 4, "[%s] pwrite at 5 GiB", L);
	int rs = fstat(fd, &st);
	CHECK(rs == 0 && st.st_size == off + 4, "[%s] size 5 GiB + 4 (%lld)", L,
	      (long long)st.st_size);
	CHECK(st.st_blocks * 512 < (1 << 20), "[%s] it is sparse (%lld blocks)", L,
	      (long long)st.st_blocks);
	memset(buf, 0, sizeof buf);
	CHECK(pread(fd, buf, 4, off) == 4 && !memcmp(buf, "end!", 4), "[%s] pread at 5 GiB", L);
	memset(buf, 1, sizeof buf);
	CHECK(pread(fd, buf, 8, 3LL << 30) == 8 && !memcmp(buf, "\0\0\0\0\0\0\0\0", 8),
	      "[%s] the hole at 3 GiB reads zeros", L);
	/* SEEK_DATA and SEEK_HOLE are SOURCE's answers for the same file
	 * (without FUSE_LSEEK the kernel would say data from 0 on) */
	int sfd = open(t_path(srcd, "sparse"), O_RDONLY);
	off_t vd = lseek(fd, 0, SEEK_DATA), sd = sfd >= 0 ? lseek(sfd, 0, SEEK_DATA) : -2;
	off_t vh = lseek(fd, 0, SEEK_HOLE), sh = sfd >= 0 ? lseek(sfd, 0, SEEK_HOLE) : -2;
	CHECK(vd == sd && vd > 0, "[%s] lseek SEEK_DATA from 0 = %lld (SOURCE %lld): the data at 5 GiB",
	      L, (long long)vd, (long long)sd);
	CHECK(vh == sh && vh >= 0, "[%s] lseek SEEK_HOLE from 0 = %lld (SOURCE %lld)", L,
	      (long long)vh, (long long)sh);
	CHECK_ERR(lseek(fd, off + 4, SEEK_DATA), ENXIO, "[%s] SEEK_DATA at the end: ENXIO", L);
	if (sfd >= 0)
		close(sfd);
	close(fd);
	CHECK_OK(unlink(big), "[%s] unlink sparse", L);

	/* copy_file_range between two files of the view: SOURCE's file
	 * system copies (FUSE_COPY_FILE_RANGE), offsets advance as asked */
	const char *ci = t_path(d, "cfr-in"), *co = t_path(d, "cfr-out");
	CHECK_OK(t_write_file(ci, "0123456789abcdef"), "[%s] create cfr-in", L);
	int in = open(ci, O_RDONLY), out = open(co, O_CREAT | O_RDWR | O_TRUNC, 0644);
	loff_t oi = 4, oo = 0;
	ssize_t nc = in >= 0 && out >= 0 ? copy_file_range(in, &oi, out, &oo, 8, 0) : -1;
	CHECK(nc == 8 && oi == 12 && oo == 8, "[%s] copy_file_range 8 bytes from 4: %zd (%s), offsets %lld %lld",
	      L, nc, nc < 0 ? strerror(errno) : "ok", (long long)oi, (long long)oo);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	CHECK(t_file_is(co, "456789ab"), "[%s] cfr-out holds the copied bytes", L);
	CHECK(t_file_is(t_path(srcd, "cfr-out"), "456789ab"), "[%s] so does SOURCE's cfr-out", L);
	CHECK_OK(unlink(ci), "[%s] unlink cfr-in", L);
	CHECK_OK(unlink(co), "[%s] unlink cfr-out", L);

	/* fallocate */
	const char *fa = t_path(d, "falloc");
	fd = open(fa, O_CREAT | O_RDWR, 0644);
	int r = fallocate(fd, 0, 0, 1 << 20);
	CHECK(r == 0, "[%s] fallocate 1 MiB: %s", L, r ? strerror(errno) : "ok");
	rs = fstat(fd, &st);
	CHECK(rs == 0 && st.st_size == (1 << 20) && st.st_blocks >= 2048,
	      "[%s] size 1 MiB, blocks allocated (%lld)", L, (long long)st.st_blocks);
	r = fallocate(fd, FALLOC_FL_KEEP_SIZE, 1 << 20, 1 << 20);
	rs = fstat(fd, &st);
	CHECK(r == 0 && rs == 0 && st.st_size == (1 << 20) && st.st_blocks >= 4096,
	      "[%s] FALLOC_FL_KEEP_SIZE allocates (%lld blocks) and keeps the size", L,
	      (long long)st.st_blocks);
	blkcnt_t before = st.st_blocks;
	r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 512 << 10);
	rs = fstat(fd, &st);
	CHECK(r == 0 && rs == 0 && st.st_blocks < before && st.st_size == (1 << 20),
	      "[%s] punch hole frees blocks (%lld -> %lld)", L, (long long)before,
	      (long long)st.st_blocks);
	close(fd);
}

/* What a new subdirectory does to link counts in the scratch root's file
 * system (SOURCE's): its nlink, and what its parent's grows by (2 and 1
 * on ext4, xfs and tmpfs; btrfs keeps every directory at 1). */
static void native_dir_nlink(nlink_t *sub, nlink_t *grow)
{
	const char *srcd = t_opt.root, *s = t_path(srcd, ".nlink-probe");
	struct stat a, b, st;
	*sub = 2;
	*grow = 1;
	if (stat(srcd, &a) == 0 && mkdir(s, 0755) == 0) {
		if (stat(s, &st) == 0 && stat(srcd, &b) == 0) {
			*sub = st.st_nlink;
			*grow = b.st_nlink - a.st_nlink;
		}
		rmdir(s);
	}
}

static void t_dirs(const char *d)
{
	const char *s = t_path(d, "sub");
	struct stat st, ps, ps2;
	nlink_t sub, grow;
	native_dir_nlink(&sub, &grow);
	CHECK(stat(d, &ps) == 0, "[%s] stat dir", L);
	CHECK_OK(mkdir(s, 0755), "[%s] mkdir sub", L);
	CHECK(stat(s, &st) == 0 && S_ISDIR(st.st_mode) && st.st_nlink == sub,
	      "[%s] sub is a directory with nlink %lu, as in SOURCE's file system (%lu)", L,
	      (unsigned long)sub, (unsigned long)st.st_nlink);
	int rs = stat(d, &ps2);
	CHECK(rs == 0 && ps2.st_nlink == ps.st_nlink + grow,
	      "[%s] parent nlink grew by %lu, as in SOURCE's file system (%lu -> %lu)", L,
	      (unsigned long)grow, (unsigned long)ps.st_nlink, (unsigned long)ps2.st_nlink);
	CHECK_ERR(mkdir(s, 0755), EEXIST, "[%s] mkdir sub again", L);
	t_write_file(t_path(s, "f"), "f");
	CHECK_ERR(rmdir(s), ENOTEMPTY, "[%s] rmdir non-empty", L);
	CHECK_ERR(rmdir(t_path(s, "f")), ENOTDIR, "[%s] rmdir a file", L);
	CHECK_ERR(unlink(s), EISDIR, "[%s] unlink a directory", L);
	CHECK_ERR(open(t_path(s, "f"), O_RDONLY | O_DIRECTORY), ENOTDIR, "[%s] O_DIRECTORY on a file", L);
	CHECK_ERR(open(t_path(s, "nope"), O_RDONLY), ENOENT, "[%s] open missing", L);
	CHECK_ERR(open(t_path(s, "f"), O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST,
		  "[%s] O_EXCL on existing", L);
	CHECK_ERR(stat(t_path(s, "f/x"), &st), ENOTDIR, "[%s] path through a file", L);
	CHECK_OK(unlink(t_path(s, "f")), "[%s] unlink sub/f", L);
	CHECK_OK(rmdir(s), "[%s] rmdir sub", L);
	CHECK_ERR(stat(s, &st), ENOENT, "[%s] sub gone", L);
	char name[300];
	memset(name, 'n', 255);
	name[255] = 0;
	CHECK_OK(t_write_file(t_path(d, name), "long"), "[%s] 255-byte name", L);
	CHECK(t_file_is(t_path(d, name), "long"), "[%s] 255-byte name reads back", L);
	unlink(t_path(d, name));
	name[255] = 'n';
	name[256] = 0;
	CHECK_ERR(open(t_path(d, name), O_CREAT | O_WRONLY, 0644), ENAMETOOLONG, "[%s] 256-byte name", L);
}

/* errno of renaming a directory over a non-empty one in the scratch
 * root's file system (SOURCE's): POSIX allows ENOTEMPTY or EEXIST, and
 * xfs gives EEXIST. */
static int native_rename_nonempty(void)
{
	const char *r = t_opt.root;
	const char *a = t_path(r, ".rn-a"), *b = t_path(r, ".rn-b");
	const char *f = t_path(r, ".rn-b/f");
	int e = 0;
	if (mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0) {
		t_write_file(f, "f");
		e = rename(a, b) < 0 ? errno : 0;
	}
	unlink(f);
	rmdir(b);
	rmdir(a);
	return e == ENOTEMPTY || e == EEXIST ? e : ENOTEMPTY;
}

static void t_rename(const char *d)
{
	int nonempty = native_rename_nonempty();
	const char *a = t_path(d, "ra"), *b = t_path(d, "rb");
	t_write_file(a, "A");
	CHECK_OK(rename(a, b), "[%s] rename ra rb", L);
	CHECK(t_file_is(b, "A") && access(a, F_OK) == -1, "[%s] moved", L);
	t_write_file(a, "A2");
	CHECK_OK(rename(a, b), "[%s] rename over an existing file", L);
	CHECK(t_file_is(b, "A2"), "[%s] replaced", L);
	t_write_file(a, "A3");
	CHECK_ERR(sys_renameat2(a, b, RENAME_NOREPLACE), EEXIST, "[%s] RENAME_NOREPLACE onto rb", L);
	CHECK(t_file_is(b, "A2") && t_file_is(a, "A3"), "[%s] nothing changed", L);
	CHECK_OK(sys_renameat2(a, t_path(d, "rc"), RENAME_NOREPLACE), "[%s] RENAME_NOREPLACE to a new name", L);
	CHECK_OK(sys_renameat2(t_path(d, "rc"), b, RENAME_EXCHANGE), "[%s] RENAME_EXCHANGE rc rb", L);
	CHECK(t_file_is(b, "A3") && t_file_is(t_path(d, "rc"), "A2"), "[%s] contents swapped", L);
	CHECK_ERR(sys_renameat2(b, t_path(d, "missing"), RENAME_EXCHANGE), ENOENT,
		  "[%s] RENAME_EXCHANGE with a missing target", L);
	CHECK_OK(mkdir(t_path(d, "rd1"), 0755), "[%s] mkdir rd1", L);
	CHECK_OK(mkdir(t_path(d, "rd2"), 0755), "[%s] mkdir rd2", L);
	t_write_file(t_path(d, "rd2/x"), "x");
	CHECK_ERR(rename(t_path(d, "rd1"), t_path(d, "rd2")), nonempty,
		  "[%s] rename dir over a non-empty dir (as in SOURCE's file system)", L);
	CHECK_ERR(rename(b, t_path(d, "rd1")), EISDIR, "[%s] rename file over a dir", L);
	CHECK_ERR(rename(t_path(d, "rd1"), b), ENOTDIR, "[%s] rename dir over a file", L);
	CHECK_ERR(rename(t_path(d, "rd2"), t_path(d, "rd2/x/inside")), ENOTDIR,
		  "[%s] rename into a path through a file", L);
	CHECK_ERR(rename(t_path(d, "rd2"), t_path(d, "rd2/under")), EINVAL,
		  "[%s] rename a dir into itself", L);
	CHECK_OK(rename(t_path(d, "rd2"), t_path(d, "rd1/moved")), "[%s] move a dir into another", L);
	CHECK(t_file_is(t_path(d, "rd1/moved/x"), "x"), "[%s] its content moved along", L);
	CHECK_OK(sys_renameat2(t_path(d, "rd1"), b, RENAME_EXCHANGE),
		 "[%s] RENAME_EXCHANGE a dir and a file", L);
	struct stat st;
	CHECK(stat(b, &st) == 0 && S_ISDIR(st.st_mode) && t_file_is(t_path(d, "rd1"), "A3"),
	      "[%s] dir and file swapped", L);
}

static void t_links(const char *d)
{
	const char *t = t_path(d, "lt"), *s = t_path(d, "ls");
	t_write_file(t, "target");
	CHECK_OK(symlink("some/Where/../lt", s), "[%s] symlink", L);
	char buf[256];
	ssize_t n = readlink(s, buf, sizeof buf);
	CHECK(n == 16 && !memcmp(buf, "some/Where/../lt", 16), "[%s] readlink exact", L);
	struct stat st;
	CHECK(lstat(s, &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 16,
	      "[%s] lstat: symlink of size 16", L);
	CHECK_ERR(stat(s, &st), ENOENT, "[%s] dangling: stat ENOENT", L);
	CHECK_OK(symlink("lt", t_path(d, "ls2")), "[%s] symlink ls2 -> lt", L);
	CHECK(t_file_is(t_path(d, "ls2"), "target"), "[%s] read through ls2", L);

	const char *h = t_path(d, "lh");
	CHECK_OK(link(t, h), "[%s] link lt lh", L);
	struct stat a, b;
	CHECK(stat(t, &a) == 0 && stat(h, &b) == 0 && a.st_ino == b.st_ino && a.st_nlink == 2,
	      "[%s] same inode, nlink 2", L);
	CHECK_OK(unlink(t), "[%s] unlink lt", L);
	CHECK(stat(h, &b) == 0 && b.st_nlink == 1, "[%s] nlink 1", L);
	CHECK_ERR(link(d, t_path(d, "dirlink")), EPERM, "[%s] hard link to a directory", L);
}

static void t_attrs(const char *d, const char *srcd)
{
	const char *f = t_path(d, "attr");
	t_write_file(f, "a");
	struct stat st;
	CHECK_OK(chmod(f, 0600), "[%s] chmod 0600", L);
	CHECK(stat(f, &st) == 0 && (st.st_mode & 07777) == 0600, "[%s] mode 0600", L);
	int fd = open(f, O_RDONLY);
	CHECK_OK(fchmod(fd, 04751), "[%s] fchmod 04751", L);
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 04751, "[%s] mode 04751", L);
	close(fd);
	CHECK_OK(chown(f, 1234, 5678), "[%s] chown 1234:5678", L);
	CHECK(stat(f, &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678, "[%s] owner 1234:5678", L);
	CHECK(stat(t_path(srcd, "attr"), &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678,
	      "[%s] SOURCE owner 1234:5678 too", L);
	CHECK_OK(symlink("attr", t_path(d, "attrlink")), "[%s] symlink attrlink", L);
	CHECK_OK(lchown(t_path(d, "attrlink"), 42, 43), "[%s] lchown the symlink", L);
	CHECK(lstat(t_path(d, "attrlink"), &st) == 0 && st.st_uid == 42 && st.st_gid == 43,
	      "[%s] symlink owner 42:43", L);
	CHECK(stat(f, &st) == 0 && st.st_uid == 1234, "[%s] target owner unchanged", L);

	struct timespec ts[2] = {{1000000000, 123456789}, {1200000000, 500000000}};
	CHECK_OK(utimensat(AT_FDCWD, f, ts, 0), "[%s] utimensat", L);
	CHECK(stat(f, &st) == 0 && st.st_atim.tv_sec == 1000000000 &&
		      st.st_atim.tv_nsec == 123456789 && st.st_mtim.tv_sec == 1200000000 &&
		      st.st_mtim.tv_nsec == 500000000,
	      "[%s] atime/mtime set to the nanosecond", L);
	struct timespec ts2[2] = {{0, UTIME_OMIT}, {1300000000, 0}};
	CHECK_OK(utimensat(AT_FDCWD, f, ts2, 0), "[%s] utimensat with UTIME_OMIT", L);
	CHECK(stat(f, &st) == 0 && st.st_atim.tv_sec == 1000000000 && st.st_mtim.tv_sec == 1300000000,
	      "[%s] UTIME_OMIT kept atime", L);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct timespec ts3[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
	CHECK_OK(utimensat(AT_FDCWD, f, ts3, 0), "[%s] utimensat UTIME_NOW", L);
	CHECK(stat(f, &st) == 0 && st.st_mtim.tv_sec >= now.tv_sec - 1, "[%s] mtime is now", L);
	struct timespec ts4[2] = {{5, 0}, {6, 0}};
	CHECK_OK(utimensat(AT_FDCWD, t_path(d, "attrlink"), ts4, AT_SYMLINK_NOFOLLOW),
		 "[%s] utimensat AT_SYMLINK_NOFOLLOW", L);
	CHECK(lstat(t_path(d, "attrlink"), &st) == 0 && st.st_mtim.tv_sec == 6,
	      "[%s] symlink's own mtime set", L);

	const char *fifo = t_path(d, "fifo");
	CHECK_OK(mknod(fifo, S_IFIFO | 0644, 0), "[%s] mknod FIFO", L);
	CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "[%s] it is a FIFO", L);
	CHECK(lstat(t_path(srcd, "fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "[%s] FIFO in SOURCE", L);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0, "[%s] open FIFO O_NONBLOCK", L);
	if (fd >= 0)
		close(fd);

	/* xattrs */
	CHECK_OK(setxattr(f, "user.a", "1", 1, XATTR_CREATE), "[%s] setxattr user.a", L);
	CHECK_ERR(setxattr(f, "user.a", "2", 1, XATTR_CREATE), EEXIST, "[%s] XATTR_CREATE again", L);
	CHECK_ERR(setxattr(f, "user.b", "2", 1, XATTR_REPLACE), ENODATA, "[%s] XATTR_REPLACE missing", L);
	CHECK_OK(setxattr(f, "user.a", "value-2", 7, XATTR_REPLACE), "[%s] XATTR_REPLACE", L);
	char v[64];
	CHECK(getxattr(f, "user.a", NULL, 0) == 7, "[%s] size query 7", L);
	CHECK_ERR(getxattr(f, "user.a", v, 3), ERANGE, "[%s] small buffer", L);
	CHECK(getxattr(f, "user.a", v, sizeof v) == 7 && !memcmp(v, "value-2", 7), "[%s] getxattr", L);
	CHECK_OK(setxattr(f, "user.empty", "", 0, 0), "[%s] empty value", L);
	CHECK(getxattr(f, "user.empty", v, sizeof v) == 0, "[%s] empty value reads 0 bytes", L);
	char list[1024];
	ssize_t n = listxattr(f, list, sizeof list);
	int seen = 0;
	for (ssize_t o = 0; n > 0 && o < n; o += (ssize_t)strlen(list + o) + 1)
		seen += !strcmp(list + o, "user.a") + !strcmp(list + o, "user.empty");
	CHECK(seen == 2, "[%s] listxattr lists both", L);
	CHECK_OK(removexattr(f, "user.a"), "[%s] removexattr", L);
	CHECK_ERR(getxattr(f, "user.a", v, sizeof v), ENODATA, "[%s] removed", L);
	CHECK_ERR(removexattr(f, "user.a"), ENODATA, "[%s] remove again", L);
	CHECK(lgetxattr(t_path(srcd, "attr"), "user.empty", v, sizeof v) == 0,
	      "[%s] xattr stored in SOURCE", L);
	CHECK_OK(setxattr(d, "trusted.t", "x", 1, 0), "[%s] trusted.* on the directory (root)", L);

	struct statfs sv, ss;
	/* called first: a CHECK's arguments are evaluated in no set order */
	int rsv = statfs(d, &sv);
	CHECK(rsv == 0 && sv.f_bsize > 0 && sv.f_blocks > 0 && sv.f_namelen >= 255,
	      "[%s] statfs: bsize %ld blocks %llu namelen %ld", L, (long)sv.f_bsize,
	      (unsigned long long)sv.f_blocks, (long)sv.f_namelen);
	CHECK(statfs(srcd, &ss) == 0 &&
		      (unsigned long long)sv.f_blocks * (unsigned long long)sv.f_bsize ==
			      (unsigned long long)ss.f_blocks * (unsigned long long)ss.f_bsize,
	      "[%s] statfs size matches SOURCE's filesystem", L);
}

static void t_locks(const char *d)
{
	const char *f = t_path(d, "lock");
	t_write_file(f, "0123456789abcdefghijklmnopqrstuvwxyz");
	int a = open(f, O_RDWR), b = open(f, O_RDWR);
	CHECK_OK(flock(a, LOCK_EX), "[%s] flock LOCK_EX", L);
	CHECK_ERR(flock(b, LOCK_EX | LOCK_NB), EWOULDBLOCK, "[%s] second open file: LOCK_NB conflicts", L);
	CHECK_OK(flock(a, LOCK_UN), "[%s] flock LOCK_UN", L);
	CHECK_OK(flock(b, LOCK_EX | LOCK_NB), "[%s] now it gets the lock", L);
	flock(b, LOCK_UN);

	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
	CHECK_OK(fcntl(a, F_SETLK, &fl), "[%s] fcntl F_SETLK write 0-9", L);
	fflush(stdout);
	pid_t me = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		int c = open(f, O_RDWR);
		struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 10};
		errno = 0;
		int r = fcntl(c, F_SETLK, &l);
		CHECK(r == -1 && (errno == EAGAIN || errno == EACCES),
		      "[%s] child: overlapping F_SETLK refused (%s)", L, strerrorname_np(errno));
		struct flock g = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
		r = fcntl(c, F_GETLK, &g);
		CHECK(r == 0 && g.l_type == F_WRLCK && g.l_pid == me,
		      "[%s] child: F_GETLK reports the parent's lock (pid %d)", L, (int)g.l_pid);
		struct flock o = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 20, .l_len = 5};
		CHECK_OK(fcntl(c, F_SETLK, &o), "[%s] child: disjoint range locks", L);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "[%s] lock child exited", L);
	fl.l_type = F_UNLCK;
	CHECK_OK(fcntl(a, F_SETLK, &fl), "[%s] unlock", L);

	/* Two processes with the same shared lock: F_GETLK names one of
	 * them (the daemon's owners each see the other's lock). */
	fl.l_type = F_RDLCK;
	CHECK_OK(fcntl(a, F_SETLK, &fl), "[%s] fcntl F_SETLK read 0-9", L);
	int go[2], held[2];
	CHECK_OK(pipe(go) | pipe(held), "[%s] pipes", L);
	fflush(stdout);
	pid_t sharer = fork();
	if (sharer == 0) {
		int c = open(f, O_RDWR);
		char x = 0;
		close(go[1]); /* to see the parent's close as the end */
		close(held[0]);
		struct flock r = fl;
		int ok = c >= 0 && fcntl(c, F_SETLK, &r) == 0;
		if (write(held[1], &x, 1) != 1 || read(go[0], &x, 1) < 0)
			ok = 0;
		_exit(ok ? 0 : 1);
	}
	char x;
	CHECK(read(held[0], &x, 1) == 1, "[%s] sharer took its lock", L);
	pid = fork();
	if (pid == 0) {
		int c = open(f, O_RDWR);
		struct flock g = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 2, .l_len = 1};
		int r = fcntl(c, F_GETLK, &g);
		CHECK(r == 0 && g.l_type == F_RDLCK && (g.l_pid == me || g.l_pid == sharer),
		      "[%s] child: F_GETLK names a holder of two equal shared locks "
		      "(pid %d; holders %d, %d)", L, (int)g.l_pid, (int)me, (int)sharer);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "[%s] F_GETLK child exited", L);
	close(go[1]);
	waitpid(sharer, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "[%s] sharer exited", L);
	close(go[0]);
	close(held[0]);
	close(held[1]);
	fl.l_type = F_UNLCK;
	CHECK_OK(fcntl(a, F_SETLK, &fl), "[%s] unlock", L);

	struct flock ofd = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 4};
	CHECK_OK(fcntl(a, F_OFD_SETLK, &ofd), "[%s] OFD lock on fd a", L);
	struct flock ofd2 = ofd;
	CHECK_ERR(fcntl(b, F_OFD_SETLK, &ofd2), EAGAIN, "[%s] OFD lock on fd b conflicts", L);
	close(a);
	/* the release of a's file reaches the daemon after close() returned */
	int r = -1;
	for (double end = t_now() + 10; r != 0 && t_now() < end; t_sleep_ms(10))
		r = fcntl(b, F_OFD_SETLK, &ofd2);
	CHECK(r == 0, "[%s] after close(a) fd b gets it", L);
	close(b);

	/* An append-only file (chattr +a) opens for writing only with
	 * O_APPEND: a write lock on such a descriptor works as on ext4. */
	const char *ap = t_path(d, "applog");
	int fl2 = 0, afd;
	t_write_file(ap, "x");
	afd = open(ap, O_RDONLY);
	if (afd >= 0 && ioctl(afd, FS_IOC_GETFLAGS, &fl2) == 0 &&
	    ioctl(afd, FS_IOC_SETFLAGS, &(int){fl2 | FS_APPEND_FL}) == 0) {
		int w = open(ap, O_WRONLY | O_APPEND);
		struct flock wl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		int lr = w >= 0 ? fcntl(w, F_SETLK, &wl) : -1, le = errno;
		CHECK(lr == 0, "[%s] write lock on an append-only file (%s)", L,
		      lr ? strerror(le) : "ok");
		if (w >= 0)
			close(w);
		ioctl(afd, FS_IOC_SETFLAGS, &fl2);
	} else {
		t_skip("[%s] no append-only flag here (%s)", L, strerror(errno));
	}
	if (afd >= 0)
		close(afd);
	unlink(ap);
}

/* Wait for pid at most secs seconds (a hang detector, not a timing
 * claim); 0 with *status set, or -1 if it is still running. */
static int wait_bounded(pid_t pid, int *status, double secs)
{
	double end = t_now() + secs;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 || t_now() > end)
			return -1;
		t_sleep_ms(5);
	}
}

/* A handler that does nothing: the signal only interrupts a waiting call. */
static void on_signal(int sig)
{
	(void)sig;
}

/* The two kinds of lock a waiter can wait for: flock(LOCK_EX), or a POSIX
 * write lock on the whole file (F_SETLKW). */
enum { KIND_FLOCK, KIND_FCNTL };

static int lock_whole(int fd, int kind, int wait)
{
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (kind == KIND_FLOCK)
		return flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
	return fcntl(fd, wait ? F_SETLKW : F_SETLK, &l);
}

static int unlock_whole(int fd, int kind)
{
	struct flock l = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
	return kind == KIND_FLOCK ? flock(fd, LOCK_UN) : fcntl(fd, F_SETLK, &l);
}

/* A child that opens f and waits for the lock (kind); exit 0 when it got
 * it, 4 on EINTR (with a SIGUSR1 handler installed without SA_RESTART).
 * With catch_usr1, returns only once the handler is in place. */
static pid_t lock_waiter(const char *f, int kind, int catch_usr1)
{
	int pfd[2] = { -1, -1 };
	pid_t pid;
	char c;

	if (catch_usr1 && pipe(pfd) != 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (catch_usr1) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_signal;
			sigaction(SIGUSR1, &sa, NULL);
			if (write(pfd[1], "r", 1) != 1)
				_exit(5);
		}
		int c = open(f, O_RDWR);
		if (c < 0)
			_exit(2);
		if (lock_whole(c, kind, 1) != 0)
			_exit(errno == EINTR ? 4 : 3);
		unlock_whole(c, kind);
		_exit(0);
	}
	if (catch_usr1) {
		close(pfd[1]);
		if (pid > 0 && read(pfd[0], &c, 1) != 1)
			t_note("lock waiter %d did not report ready", (int)pid);
		close(pfd[0]);
	}
	return pid;
}

/* Blocking flock() and F_SETLKW waiters must not take the daemon's
 * workers: with the lock held, many waiters, and still every other call
 * is answered; the waiters get the lock once it is released; a waiter can
 * be interrupted by a caught signal (EINTR) and killed. */
static void t_lock_waiters(const char *d, int kind)
{
	enum { NW = 16 };
	const char *what = kind == KIND_FLOCK ? "flock()" : "F_SETLKW";
	const char *f = t_path(d, kind == KIND_FLOCK ? "flockq" : "fcntlq");
	pid_t kids[NW], p;
	int a, st, i, waiting = 0, got = 0;

	t_write_file(f, "x");
	a = open(f, O_RDWR);
	CHECK_OK(lock_whole(a, kind, 0), "[%s] %s lock held by the parent", L, what);
	for (i = 0; i < NW; i++)
		kids[i] = lock_waiter(f, kind, 0);
	t_sleep_ms(300); /* let them reach the daemon */
	fflush(stdout);
	p = fork();
	if (p == 0) {
		struct stat sb;
		long n = t_dir_count(d);
		int fd = open(f, O_RDONLY);
		_exit(stat(f, &sb) == 0 && n > 0 && fd >= 0 ? 0 : 1);
	}
	CHECK(wait_bounded(p, &st, 30) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "[%s] stat, open and readdir are answered while %d %s waiters wait",
	      L, NW, what);
	if (p > 0 && waitpid(p, &st, WNOHANG) == 0) {
		kill(p, SIGKILL);
		waitpid(p, &st, 0);
	}
	for (i = 0; i < NW; i++)
		waiting += waitpid(kids[i], &st, WNOHANG) == 0;
	CHECK(waiting == NW, "[%s] all %d waiters still wait while the lock is held (%d)",
	      L, NW, waiting);
	CHECK_OK(unlock_whole(a, kind), "[%s] parent releases the lock", L);
	for (i = 0; i < NW; i++)
		got += wait_bounded(kids[i], &st, 60) == 0 && WIFEXITED(st) &&
		       WEXITSTATUS(st) == 0;
	CHECK(got == NW, "[%s] every waiter got the lock after the release (%d of %d)",
	      L, got, NW);
	for (i = 0; i < NW; i++)
		if (waitpid(kids[i], &st, WNOHANG) == 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], &st, 0);
		}

	/* Interrupted by a caught signal: the kernel sends INTERRUPT, the
	 * waiter answers EINTR.  The signal is repeated until the child is
	 * gone, since the first may come before it reached flock(). */
	CHECK_OK(lock_whole(a, kind, 0), "[%s] parent locks again", L);
	p = lock_waiter(f, kind, 1);
	double end = t_now() + 30;
	int done = 0;
	while (!done && t_now() < end) {
		kill(p, SIGUSR1);
		t_sleep_ms(20);
		done = waitpid(p, &st, WNOHANG) == p;
	}
	CHECK(done && WIFEXITED(st) && WEXITSTATUS(st) == 4,
	      "[%s] a %s waiter interrupted by a caught signal gets EINTR (%s, status %d)",
	      L, what, done ? "exited" : "still waiting", done ? st : -1);
	if (!done) {
		kill(p, SIGKILL);
		waitpid(p, &st, 0);
	}
	p = lock_waiter(f, kind, 0);
	t_sleep_ms(200);
	kill(p, SIGKILL);
	CHECK(wait_bounded(p, &st, 30) == 0 && WIFSIGNALED(st),
	      "[%s] a %s waiter killed with SIGKILL goes away while the lock is held", L, what);
	CHECK_OK(unlock_whole(a, kind), "[%s] unlock", L);
	close(a);
	CHECK_OK(unlink(f), "[%s] remove the lock file", L);
}

/* getdents64 with a buffer that holds one entry of these names (32
 * bytes), not two: the kernel asks again from each entry that did not fit
 * (the daemon resumes in what it read); lseek to a d_off it returned
 * resumes there; lseek to 0 after a create must list the new name
 * (rewinddir sees the directory as it is now).  "." and ".." (24 bytes
 * each) may come two in a call where SOURCE lists them together (xfs,
 * btrfs; ext4 scatters them in hash order). */
static int tiny_pass(int fd, char *first, char *third, off_t *off2, int *late)
{
	_Alignas(8) char buf[48];
	unsigned short reclen;
	off_t doff;
	long r, o;
	int n = 0, bad = 0;
	while ((r = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		int in_call = 0, dots = 0;
		/* fields by offset: struct dirent64 is larger than buf */
		for (o = 0; o < r; o += reclen, n++, in_call++) {
			const char *name = buf + o + offsetof(struct dirent64, d_name);
			memcpy(&reclen, buf + o + offsetof(struct dirent64, d_reclen), sizeof reclen);
			memcpy(&doff, buf + o + offsetof(struct dirent64, d_off), sizeof doff);
			if (reclen == 0 || o + reclen > r)
				return -1;
			dots += !strcmp(name, ".") || !strcmp(name, "..");
			if (n == 0 && first)
				snprintf(first, 256, "%s", name);
			if (n == 1 && off2)
				*off2 = doff;
			if (n == 2 && third)
				snprintf(third, 256, "%s", name);
			if (late)
				*late += !strcmp(name, "late-comer");
		}
		/* one entry a call, or the two dot entries together */
		bad += in_call != 1 && !(in_call == 2 && dots == 2);
	}
	return r < 0 ? -1 : bad ? -2 : n;
}

static void readdir_tiny(const char *s)
{
	_Alignas(8) char buf[48];
	char first[256] = "", third[256] = "";
	const char *name = buf + offsetof(struct dirent64, d_name);
	off_t off2 = -1;
	int fd = open(s, O_RDONLY | O_DIRECTORY | O_CLOEXEC), n, late = 0;
	if (!CHECK(fd >= 0, "[%s] open many", L))
		return;
	n = tiny_pass(fd, first, third, &off2, NULL);
	CHECK(n == 52, "[%s] getdents64 with a 48-byte buffer: 52 entries, one per call (%d%s)", L, n,
	      n == -1 ? ": error" : n == -2 ? ": a call gave more than one" : "");
	if (off2 >= 0 && lseek(fd, off2, SEEK_SET) == off2 &&
	    syscall(SYS_getdents64, fd, buf, sizeof buf) > 0)
		CHECK(!strcmp(name, third), "[%s] lseek to the second entry's d_off lists the third, %s (got %s)", L, third,
		      name);
	else
		CHECK(0, "[%s] lseek to the second entry's d_off", L);
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && syscall(SYS_getdents64, fd, buf, sizeof buf) > 0 &&
		      !strcmp(name, first),
	      "[%s] lseek 0 starts again at %s", L, first);
	t_write_file(t_path(s, "late-comer"), "l");
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "[%s] lseek 0 again", L);
	n = tiny_pass(fd, NULL, NULL, NULL, &late);
	CHECK(n == 53 && late == 1, "[%s] after a create, lseek 0 lists the new name too (%d entries, %d late-comer)", L, n, late);
	close(fd);
	unlink(t_path(s, "late-comer"));
}

/* Entries getdents64 lists from fd's position to the end, -1 on error. */
static long count_to_end(int fd)
{
	_Alignas(8) char buf[4096];
	long n = 0, r;

	while ((r = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (long i = 0; i < r; n++) {
			unsigned short reclen;
			memcpy(&reclen, buf + i + offsetof(struct dirent64, d_reclen), sizeof reclen);
			i += reclen;
		}
	return r < 0 ? -1 : n;
}

/* A fresh descriptor's first getdents64 at the end (LLONG_MAX, ext4's
 * end cookie), then lseek 0 twice: each lists what it lists on SOURCE.
 * On ext4 the first after the end lists nothing (the descriptor's readdir
 * state starts at the end), the second all: the daemon must rewind its
 * descriptor again although its position is 0 already. */
static void readdir_rewind_after_end(const char *s, const char *srcs)
{
	const char *dir[2] = {s, srcs};
	long got[2][3];
	for (int k = 0; k < 2; k++) {
		int fd = open(dir[k], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		got[k][0] = fd >= 0 && lseek(fd, LLONG_MAX, SEEK_SET) == LLONG_MAX ? count_to_end(fd) : -2;
		for (int i = 1; i < 3; i++)
			got[k][i] = fd >= 0 && lseek(fd, 0, SEEK_SET) == 0 ? count_to_end(fd) : -2;
		if (fd >= 0)
			close(fd);
	}
	CHECK(!memcmp(got[0], got[1], sizeof got[0]) && got[0][2] == 52,
	      "[%s] from the end then lseek 0 twice: %ld, %ld, %ld entries as on SOURCE (%ld, %ld, %ld)", L,
	      got[0][0], got[0][1], got[0][2], got[1][0], got[1][1], got[1][2]);
}

static void t_readdir(const char *d, const char *srcd)
{
	const char *s = t_path(d, "many");
	mkdir(s, 0755);
	for (int i = 0; i < 50; i++) {
		char n[32];
		snprintf(n, sizeof n, "entry%02d", i);
		t_write_file(t_path(s, n), "e");
	}
	DIR *dp = opendir(s);
	if (!CHECK(dp != NULL, "[%s] opendir many", L))
		return;
	int total = 0, seen[50] = {0}, dup = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		total++;
		int k;
		if (sscanf(de->d_name, "entry%d", &k) == 1 && k >= 0 && k < 50)
			dup += seen[k]++ > 0;
	}
	int all = 1;
	for (int i = 0; i < 50; i++)
		all &= seen[i] == 1;
	CHECK(total == 52 && all && !dup, "[%s] readdir: 50 entries + . and .. once each (%d)", L, total);
	rewinddir(dp);
	for (int i = 0; i < 20; i++)
		readdir(dp);
	long pos = telldir(dp);
	de = readdir(dp);
	char at[256] = "";
	if (de)
		snprintf(at, sizeof at, "%s", de->d_name);
	int rest = 0;
	while (readdir(dp))
		rest++;
	seekdir(dp, pos);
	de = readdir(dp);
	CHECK(de && !strcmp(de->d_name, at), "[%s] seekdir(telldir) returns to %s (got %s)", L, at,
	      de ? de->d_name : "(end)");
	CHECK(rest == 31, "[%s] 31 entries after it (%d)", L, rest);
	rewinddir(dp);
	int again = 0;
	while (readdir(dp))
		again++;
	CHECK(again == 52, "[%s] rewinddir reads all 52 again (%d)", L, again);
	closedir(dp);
	readdir_tiny(s);
	readdir_rewind_after_end(s, t_path(srcd, "many"));
}

static void t_tmpfile(const char *d)
{
	int fd = open(d, O_TMPFILE | O_RDWR, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == ENOSYS)) {
		t_skip("[%s] O_TMPFILE not supported (%s)", L, strerrorname_np(errno));
		return;
	}
	if (!CHECK(fd >= 0, "[%s] O_TMPFILE: %s", L, fd < 0 ? strerror(errno) : "ok"))
		return;
	CHECK(write(fd, "tmp", 3) == 3, "[%s] write to the tmpfile", L);
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	CHECK_OK(linkat(AT_FDCWD, p, AT_FDCWD, t_path(d, "fromtmp"), AT_SYMLINK_FOLLOW),
		 "[%s] linkat the tmpfile into the directory", L);
	close(fd);
	CHECK(t_file_is(t_path(d, "fromtmp"), "tmp"), "[%s] linked tmpfile reads back", L);
}

static void posix_set(const char *d, const char *srcd, const char *label)
{
	L = label;
	t_section("POSIX set in the %s directory", label);
	t_io(d, srcd);
	t_dirs(d);
	t_rename(d);
	t_links(d);
	t_attrs(d, srcd);
	t_locks(d);
	t_lock_waiters(d, KIND_FLOCK);
	t_lock_waiters(d, KIND_FCNTL);
	t_readdir(d, srcd);
	t_tmpfile(d);
}

/* ---- allow_other ------------------------------------------------------- */

static int become_user(void)
{
	if (setgroups(0, NULL) || setresgid(TGID, TGID, TGID) || setresuid(TUID, TUID, TUID))
		return -1;
	return 0;
}

/* Run fn(mnt, src) in a child process as TUID:TGID, and check that it
 * finished (its checks count with the parent's). */
static void run_as_user(void (*fn)(const char *mnt, const char *src), const char *mnt,
			const char *src)
{
	int st;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (become_user()) {
			CHECK(0, "setresuid to %d: %s", TUID, strerror(errno));
			_exit(1);
		}
		fn(mnt, src);
		_exit(0);
	}
	CHECK(pid > 0 && wait_bounded(pid, &st, 60) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "non-root child finished");
}

static void as_user_checks(const char *mnt, const char *src)
{
	(void)src;
	const char *pub = t_path(mnt, "pub");
	CHECK_OK(t_write_file(t_path(pub, "userfile"), "mine"), "user: create pub/userfile");
	CHECK_OK(mkdir(t_path(pub, "userdir"), 0755), "user: mkdir pub/userdir");
	CHECK_OK(symlink("userfile", t_path(pub, "userlink")), "user: symlink pub/userlink");
	CHECK_OK(mknod(t_path(pub, "userfifo"), S_IFIFO | 0644, 0), "user: mknod pub/userfifo");
	CHECK_OK(t_write_file(t_path(pub, "userdir/Nested"), "n"), "user: create userdir/Nested");
	CHECK(t_file_is(t_path(pub, "userdir/NESTED"), "n"),
	      "user: userdir/NESTED resolves (allow_other view folds for other users too)");
	CHECK_ERR(open(t_path(mnt, "rootfile"), O_WRONLY), EACCES,
		  "user: cannot write root's 0644 file");
	CHECK_ERR(open(t_path(mnt, "secret"), O_RDONLY), EACCES, "user: cannot read root's 0600 file");
	CHECK_ERR(open(t_path(mnt, "rootfile2"), O_CREAT | O_WRONLY, 0644), EACCES,
		  "user: cannot create in root's 0755 directory");
	CHECK_ERR(chown(t_path(pub, "userfile"), 0, 0), EPERM, "user: cannot give a file to root");
	CHECK_ERR(unlink(t_path(pub, "rootowned")), EPERM,
		  "user: sticky /pub: cannot remove root's file");
	struct stat st;
	CHECK_OK(stat(t_path(mnt, "rootfile"), &st), "user: can stat through the allow_other mount");
}

static void refused_without_allow_other(const char *mnt, const char *src)
{
	struct stat s;
	(void)src;
	CHECK_ERR(stat(t_path(mnt, "rootfile"), &s), EACCES,
		  "without allow_other a non-root user is refused");
}

/* libfuse unescapes options ("\x" is x): "allow\_other" is allow_other
 * to it, and must bring default_permissions along as the plain one does. */
static void escaped_allow_other(const char *mnt, const char *src)
{
	(void)src;
	CHECK_ERR(open(t_path(mnt, "secret"), O_RDONLY), EACCES,
		  "user: with -o 'allow\\_other' root's 0600 file is still refused");
}

static void sec_allow_other(void)
{
	t_section("-o allow_other: ownership of files created by a non-root user");
	const char *src = t_newdir("src-allow");
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,allow_other")) {
		return;
	}
	CHECK_OK(mkdir(t_path(m.mnt, "pub"), 0755), "mkdir pub");
	CHECK_OK(chmod(t_path(m.mnt, "pub"), 01777), "chmod 1777 pub");
	CHECK_OK(t_write_file(t_path(m.mnt, "rootfile"), "root"), "create rootfile (0644)");
	CHECK_OK(t_write_file(t_path(m.mnt, "secret"), "s"), "create secret");
	CHECK_OK(chmod(t_path(m.mnt, "secret"), 0600), "chmod 0600 secret");
	CHECK_OK(t_write_file(t_path(m.mnt, "pub/rootowned"), "r"), "create pub/rootowned");
	run_as_user(as_user_checks, m.mnt, NULL);
	static const char *const made[] = {"userfile", "userdir", "userlink", "userfifo",
					   "userdir/Nested"};
	for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
		struct stat a, b;
		char rel[128];
		snprintf(rel, sizeof rel, "pub/%s", made[i]);
		int ra = lstat(t_path(m.mnt, rel), &a);
		int rb = lstat(t_path(m.src, rel), &b);
		CHECK(ra == 0 && a.st_uid == TUID && a.st_gid == TGID,
		      "view: %s belongs to %d:%d (%d:%d)", rel, TUID, TGID, ra ? -1 : (int)a.st_uid,
		      ra ? -1 : (int)a.st_gid);
		CHECK(rb == 0 && b.st_uid == TUID && b.st_gid == TGID,
		      "SOURCE: %s belongs to %d:%d (%d:%d)", rel, TUID, TGID, rb ? -1 : (int)b.st_uid,
		      rb ? -1 : (int)b.st_gid);
	}
	t_umount(&m);

	/* Without allow_other the kernel keeps other users out entirely. */
	if (t_mount(&m, src, "casefold") == 0) {
		run_as_user(refused_without_allow_other, m.mnt, NULL);
		t_umount(&m);
	}
	if (t_mount(&m, src, "casefold,allow\\_other") == 0) {
		run_as_user(escaped_allow_other, m.mnt, NULL);
		t_umount(&m);
	}
}

/* A non-root caller with file-system capabilities (a service given
 * ambient CAP_DAC_OVERRIDE and CAP_FOWNER): what it may do in SOURCE it
 * may do through the view.  The kernel's own checks honour them; the
 * daemon, acting with the caller's fsuid, had lost its own and refused. */
static void capable_user(const char *mnt, const char *src)
{
	(void)src;
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};
	d[0].effective = d[0].permitted =
		1u << CAP_DAC_OVERRIDE | 1u << CAP_FOWNER;
	if (!CHECK(syscall(SYS_capset, &h, d) == 0, "capset: %s", strerror(errno)))
		return;
	const char *rd = t_path(mnt, "rootdir");
	struct stat st;
	CHECK_OK(t_write_file(t_path(rd, "made"), "m"),
		 "capable user: create in root's 0755 directory");
	int rs = stat(t_path(rd, "MADE"), &st);
	CHECK(rs == 0 && st.st_uid == TUID, "capable user: the file is the user's (%d)",
	      rs ? -1 : (int)st.st_uid);
	CHECK_OK(mkdir(t_path(rd, "Sub"), 0755), "capable user: mkdir there");
	CHECK_OK(rename(t_path(rd, "made"), t_path(rd, "moved")), "capable user: rename there");
	CHECK_OK(unlink(t_path(rd, "MOVED")), "capable user: unlink there");
	CHECK_OK(rmdir(t_path(rd, "sub")), "capable user: rmdir there");
	CHECK_OK(setxattr(t_path(mnt, "rootfile"), "user.k", "v", 1, 0),
		 "capable user: setxattr on root's 0644 file");
	CHECK_OK(unlink(t_path(mnt, "pub/rootowned")),
		 "capable user: remove root's file under the sticky bit");
}

static void incapable_user(const char *mnt, const char *src)
{
	(void)src;
	CHECK_ERR(open(t_path(mnt, "rootdir/made"), O_CREAT | O_WRONLY, 0644), EACCES,
		  "the same user without capabilities: refused");
}

static void sec_caller_caps(void)
{
	t_section("-o allow_other: a non-root caller's capabilities count");
	struct t_mount m = {0};
	if (t_mount(&m, t_newdir("src-caps"), "casefold,allow_other"))
		return;
	CHECK_OK(mkdir(t_path(m.mnt, "rootdir"), 0755), "mkdir rootdir");
	CHECK_OK(t_write_file(t_path(m.mnt, "rootfile"), "root"), "create rootfile");
	CHECK_OK(mkdir(t_path(m.mnt, "pub"), 0755), "mkdir pub");
	CHECK_OK(chmod(t_path(m.mnt, "pub"), 01777), "chmod 1777 pub");
	CHECK_OK(t_write_file(t_path(m.mnt, "pub/rootowned"), "r"), "create pub/rootowned");
	run_as_user(incapable_user, m.mnt, NULL);
	int st;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		/* keep the permitted set across setresuid, then take two */
		if (prctl(PR_SET_KEEPCAPS, 1) || become_user()) {
			CHECK(0, "setresuid to %d: %s", TUID, strerror(errno));
			_exit(1);
		}
		capable_user(m.mnt, NULL);
		_exit(0);
	}
	CHECK(pid > 0 && wait_bounded(pid, &st, 60) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "capable child finished");
	t_umount(&m);
}

/* A CREATE that finds an equivalent name made directly in SOURCE (the
 * kernel held a negative entry for the spelling asked, so it sent CREATE,
 * not LOOKUP, and checks no permission itself): the daemon must open the
 * existing file as the caller.  And an O_TRUNC open, which the daemon
 * performs, must drop set-user-ID bits as the caller's would. */
static void miss_foo_bar(const char *mnt, const char *src)
{
	struct stat st;
	(void)src;
	/* pub is world-writable: the kernel lets the user try to create */
	CHECK_ERR(stat(t_path(mnt, "pub/FOO"), &st), ENOENT, "user: FOO missing (cached miss)");
	CHECK_ERR(stat(t_path(mnt, "pub/BAR"), &st), ENOENT, "user: BAR missing (cached miss)");
	CHECK_ERR(stat(t_path(mnt, "pub/BAZ"), &st), ENOENT, "user: BAZ missing (cached miss)");
}

static int prot_regular_on; /* fs.protected_regular set to 1 */

static void create_over_existing(const char *mnt, const char *src)
{
	/* fs.protected_regular=1: in the world-writable sticky pub, a 0666
	 * file of a third user (not the directory's owner) must not be
	 * opened with O_CREAT, natively (the oracle) or through the view,
	 * and an O_TRUNC must not empty it on the way to that EACCES.  First:
	 * the creates below end the cached miss of BAZ. */
	if (!prot_regular_on) {
		t_skip("user: fs.protected_regular could not be set");
	} else {
		CHECK_ERR(open(t_path(src, "pub/baz"), O_CREAT | O_WRONLY | O_TRUNC, 0644), EACCES,
			  "user: SOURCE: O_CREAT|O_TRUNC of another user's baz in sticky pub: EACCES");
		CHECK_ERR(open(t_path(mnt, "pub/BAZ"), O_CREAT | O_WRONLY | O_TRUNC, 0644), EACCES,
			  "user: view: O_CREAT|O_TRUNC of BAZ finds that baz: EACCES, as in SOURCE");
	}
	CHECK_ERR(open(t_path(mnt, "pub/FOO"), O_CREAT | O_RDWR, 0644), EACCES,
		  "user: O_CREAT of FOO finds root's 0600 foo: EACCES, not opened");
	int fd = open(t_path(mnt, "pub/BAR"), O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0 && write(fd, "mine", 4) == 4, "user: O_CREAT of BAR opens the 0666 bar (%s)",
	      fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0)
		close(fd);
}

static void trunc_setid(const char *mnt, const char *src)
{
	static const mode_t modes[] = {04755, 02755};
	for (int i = 0; i < 2; i++) {
		const char *f = t_path(mnt, "pub/setid");
		struct stat a = {0}, b = {0};
		int fd;
		CHECK_OK(t_write_file(f, "x"), "user: write pub/setid");
		CHECK_OK(chmod(f, modes[i]), "user: chmod %o pub/setid", (unsigned)modes[i]);
		fd = open(t_path(mnt, "pub/SETID"), O_WRONLY | O_TRUNC);
		CHECK(fd >= 0, "user: open(O_TRUNC) pub/SETID: %s", fd < 0 ? strerror(errno) : "ok");
		if (fd >= 0)
			close(fd);
		CHECK(stat(f, &a) == 0 && stat(t_path(src, "pub/setid"), &b) == 0 &&
			      !(a.st_mode & (S_ISUID | S_ISGID)) && !(b.st_mode & (S_ISUID | S_ISGID)) &&
			      a.st_size == 0,
		      "user: O_TRUNC dropped the %s bit (view %o, SOURCE %o)",
		      i ? "set-group-ID" : "set-user-ID", (unsigned)a.st_mode & 07777,
		      (unsigned)b.st_mode & 07777);
		unlink(f);
	}
}

static void sec_create_existing(void)
{
	t_section("allow_other: CREATE onto a name made in SOURCE; O_TRUNC drops set-ID bits");
	const char *src = t_newdir("src-create-existing");
	struct t_mount m = {0};
	/* cache=epoch keeps the misses cached for timeout seconds */
	if (t_mount(&m, src, "casefold,allow_other,cache=epoch,timeout=30,watch=poll"))
		return;
	CHECK_OK(mkdir(t_path(m.mnt, "pub"), 0755), "mkdir pub");
	CHECK_OK(chmod(t_path(m.mnt, "pub"), 01777), "chmod 1777 pub");
	run_as_user(miss_foo_bar, m.mnt, src);
	CHECK_OK(t_write_file(t_path(src, "pub/foo"), "secret"), "SOURCE: root creates foo");
	CHECK_OK(chmod(t_path(src, "pub/foo"), 0600), "SOURCE: chmod 0600 foo");
	CHECK_OK(t_write_file(t_path(src, "pub/bar"), "shared"), "SOURCE: root creates bar");
	CHECK_OK(chmod(t_path(src, "pub/bar"), 0666), "SOURCE: chmod 0666 bar");
	CHECK(t_write_file(t_path(src, "pub/baz"), "theirs") == 0 &&
		      chmod(t_path(src, "pub/baz"), 0666) == 0 &&
		      chown(t_path(src, "pub/baz"), TUID + 1, TGID) == 0,
	      "SOURCE: baz, 0666, of uid %d", TUID + 1);
	char was[16] = "";
	FILE *pr = fopen("/proc/sys/fs/protected_regular", "r+");
	if (pr && fgets(was, sizeof was, pr) && fseek(pr, 0, SEEK_SET) == 0)
		fputs("1\n", pr);
	prot_regular_on = pr && fclose(pr) == 0;
	run_as_user(create_over_existing, m.mnt, src);
	if (prot_regular_on && (pr = fopen("/proc/sys/fs/protected_regular", "w"))) {
		fputs(was[0] ? was : "0\n", pr);
		fclose(pr);
	}
	CHECK(t_file_is(t_path(src, "pub/baz"), "theirs"), "SOURCE: baz unchanged");
	CHECK(t_file_is(t_path(src, "pub/foo"), "secret"), "SOURCE: foo unchanged");
	CHECK(t_file_is(t_path(src, "pub/bar"), "mineed"), "SOURCE: bar written by the user");
	CHECK_ERR(access(t_path(src, "pub/FOO"), F_OK), ENOENT, "SOURCE: no FOO created");
	CHECK_ERR(access(t_path(src, "pub/BAR"), F_OK), ENOENT, "SOURCE: no BAR created");
	run_as_user(trunc_setid, m.mnt, src);
	t_umount(&m);
}

/* A write by a process without CAP_FSETID drops the file's set-user-ID
 * bit, and its set-group-ID bit where group execute is set or the writer
 * is outside the file's group.  The root daemon writes with that
 * capability, so the kernel's cached mode alone decided: a bit set
 * directly in SOURCE while the view held the old mode (timeout=30) stayed,
 * and a set-group-ID bit without group execute stayed in any case.  Each change
 * is made through the view and directly in SOURCE by the same kind of
 * process, the bits set in SOURCE between its open() and its change:
 * SOURCE's own result is the one to match. */
enum { SW_WRITE, SW_FTRUNC, SW_TRUNC, SW_FALLOC, SW_COPY, SW_OWNER, SW_ROOT, SW_N };
static const char *const sw_name[SW_N] = {"write", "ftruncate", "truncate", "fallocate",
					  "copy_file_range", "write by the owner",
					  "write by root"};

static int setid_change(int op, const char *path, int fd, const char *copy_from)
{
	loff_t a = 0, b = 0;
	int in, r;
	switch (op) {
	case SW_FTRUNC:
		return ftruncate(fd, 2);
	case SW_TRUNC:
		return truncate(path, 2);
	case SW_FALLOC:
		return fallocate(fd, 0, 0, 8192);
	case SW_COPY:
		in = open(copy_from, O_RDONLY);
		if (in < 0)
			return -1;
		r = copy_file_range(in, &a, fd, &b, 2, 0) == 2 ? 0 : -1;
		close(in);
		return r;
	default:
		return pwrite(fd, "w", 1, 0) == 1 ? 0 : -1;
	}
}

/* Make src/name (0666), let a process open it as dir/name, set mode on
 * src/name, then make change op through that descriptor or name.  The mode
 * src/name ends with ((mode_t)-1 if something failed); the change's errno
 * in *err. */
static mode_t setid_run(int op, mode_t mode, const char *dir, const char *src,
			const char *name, int *err)
{
	char vp[4200], sp[4200], cf[4200];
	int go[2], ready[2], st;
	struct stat sb;
	mode_t got;
	char c = 0;
	snprintf(vp, sizeof vp, "%s/%s", dir, name);
	snprintf(sp, sizeof sp, "%s/%s", src, name);
	snprintf(cf, sizeof cf, "%s/copy-from", dir);
	*err = -1;
	if (t_write_file(sp, "data") || chown(sp, op == SW_OWNER ? TUID : 0, 0) ||
	    chmod(sp, 0666) || pipe(go))
		return (mode_t)-1;
	if (pipe(ready)) {
		close(go[0]);
		close(go[1]);
		return (mode_t)-1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int fd, r = 0;
		if (op != SW_ROOT && become_user())
			_exit(100);
		/* a view caches the mode 0666 here */
		fd = stat(vp, &sb) == 0 ? open(vp, O_RDWR) : -1;
		if (fd < 0)
			r = errno;
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(101);
		if (r == 0 && setid_change(op, vp, fd, cf) < 0)
			r = errno;
		_exit(r);
	}
	if (pid > 0 && read(ready[0], &c, 1) == 1 && chmod(sp, mode) == 0 &&
	    write(go[1], "g", 1) == 1 && wait_bounded(pid, &st, 30) == 0 && WIFEXITED(st))
		*err = WEXITSTATUS(st);
	else if (pid > 0)
		kill(pid, SIGKILL);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	got = stat(sp, &sb) == 0 ? sb.st_mode & 07777 : (mode_t)-1;
	unlink(sp);
	return *err < 0 ? (mode_t)-1 : got;
}

static void setid_dir(const char *dir, const char *src, const char *native, const char *label)
{
	static const mode_t modes[] = {04666, 02676, 02666};
	CHECK_OK(t_write_file(t_path(dir, "copy-from"), "cc"), "%s: create copy-from", label);
	CHECK_OK(t_write_file(t_path(native, "copy-from"), "cc"), "%s: create native copy-from",
		 label);
	for (int op = 0; op < SW_N; op++)
		for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
			/* a new name each time: the view may hold the last one
			 * for timeout seconds after SOURCE removed it */
			char name[32];
			int ev, en;
			snprintf(name, sizeof name, "f%d-%04o", op, (unsigned)modes[i]);
			mode_t v = setid_run(op, modes[i], dir, src, name, &ev);
			mode_t n = setid_run(op, modes[i], native, native, name, &en);
			CHECK(v != (mode_t)-1 && v == n && ev == en,
			      "%s: %s of a file made %04o in SOURCE leaves %04o (%s) as "
			      "on SOURCE itself: %04o (%s)",
			      label, sw_name[op], (unsigned)modes[i], (unsigned)v,
			      ev ? strerror(ev) : "ok", (unsigned)n, en ? strerror(en) : "ok");
		}
}

static void sec_setid_write(void)
{
	t_section("allow_other: writes drop set-ID bits set in SOURCE behind the cached mode");
	const char *src = t_newdir("src-setid");
	const char *native = t_newdir("native-setid");
	struct t_mount m = {0};
	if (!native || chmod(native, 0777) || t_mount(&m, src, "allow_other,timeout=30"))
		return;
	const char *fold = t_path(m.mnt, "fold");
	CHECK_OK(mkdir(fold, 0777), "mkdir fold");
	CHECK_OK(t_set_casefold(fold, 1), "chattr +F fold");
	CHECK_OK(mkdir(t_path(m.mnt, "plain"), 0777), "mkdir plain");
	CHECK_OK(chmod(fold, 0777) | chmod(t_path(m.mnt, "plain"), 0777),
		 "chmod 0777 fold plain");
	setid_dir(fold, t_path(src, "fold"), native, "folding");
	setid_dir(t_path(m.mnt, "plain"), t_path(src, "plain"), native, "plain");
	t_umount(&m);
}

/* The kernel checks unlink(2) and rename(2) on the entry it looked up;
 * in a folding directory the daemon finds the entry again by name, and
 * once the exact name is gone from SOURCE another spelling's entry wins.
 * A user who may write SOURCE's sticky directory makes "docs" there, lets
 * the view look it up (cached: cache=epoch, timeout=30, and watch=poll
 * notices nothing by itself), removes it in SOURCE, and then acts on
 * "docs" through the view: another owner's Docs must stay protected by
 * the sticky bit.  The trying user is swap_uid. */
#define STICKY_OPTS "casefold,allow_other,cache=epoch,timeout=30,watch=poll"
static uid_t swap_uid = TUID;

static void sticky_swap(const char *mnt, const char *src)
{
	static const struct {
		const char *mine, *theirs;
		int dir;
	} e[] = {{"docs", "Docs", 1}, {"empty", "Empty", 1}, {"report", "Report", 0},
		 {"report", "Report", 0}};
	struct stat st;

	for (int i = 0; i < 4; i++) {
		const char *mine = e[i].mine, *theirs = e[i].theirs;
		char rel[64], sp[4096], vp[4096];
		snprintf(rel, sizeof rel, "pub/%s", mine);
		snprintf(sp, sizeof sp, "%s", t_path(src, rel));
		snprintf(vp, sizeof vp, "%s", t_path(mnt, rel));
		int made = e[i].dir ? mkdir(sp, 0755) : t_write_file(sp, "mine");
		CHECK(made == 0 && stat(vp, &st) == 0 && st.st_uid == swap_uid,
		      "uid %d: SOURCE pub/%s made, the view finds it as the user's",
		      (int)swap_uid, mine);
		CHECK_OK(e[i].dir ? rmdir(sp) : unlink(sp), "uid %d: SOURCE pub/%s removed",
			 (int)swap_uid, mine);
		if (i == 0)
			CHECK_ERR(rename(vp, t_path(mnt, "udir/stolen")), EPERM,
				  "uid %d: rename pub/%s out of the sticky directory: EPERM, "
				  "%s stays", (int)swap_uid, mine, theirs);
		else if (i == 1)
			CHECK_ERR(rmdir(vp), EPERM, "uid %d: rmdir pub/%s: EPERM, %s stays",
				  (int)swap_uid, mine, theirs);
		else if (i == 2)
			CHECK_ERR(unlink(vp), EPERM, "uid %d: unlink pub/%s: EPERM, %s stays",
				  (int)swap_uid, mine, theirs);
		else
			CHECK_ERR(rename(t_path(mnt, "udir/own"), vp), EPERM,
				  "uid %d: rename udir/own onto pub/%s: EPERM, %s stays",
				  (int)swap_uid, mine, theirs);
	}
}

/* In top (the view or SOURCE): sticky pub with entries of owner, and
 * swap_uid's own directory udir (0777: a user's daemon can move into it). */
static void sticky_layout(const char *top, uid_t owner)
{
	static const char *const mine[] = {"pub/Docs", "pub/Docs/private", "pub/Empty",
					   "pub/Report"};
	CHECK_OK(mkdir(t_path(top, "pub"), 01777), "mkdir pub");
	CHECK_OK(chmod(t_path(top, "pub"), 01777), "chmod 1777 pub");
	CHECK_OK(mkdir(t_path(top, "pub/Docs"), 0700), "mkdir pub/Docs (0700)");
	CHECK_OK(t_write_file(t_path(top, "pub/Docs/private"), "p"), "create pub/Docs/private");
	CHECK_OK(mkdir(t_path(top, "pub/Empty"), 0755), "mkdir pub/Empty");
	CHECK_OK(t_write_file(t_path(top, "pub/Report"), "r"), "create pub/Report");
	for (int i = 0; i < 4; i++)
		CHECK_OK(chown(t_path(top, mine[i]), owner, owner), "chown %s to %d", mine[i],
			 (int)owner);
	CHECK_OK(mkdir(t_path(top, "udir"), 0777), "mkdir udir");
	CHECK_OK(chmod(t_path(top, "udir"), 0777), "chmod 0777 udir");
	CHECK_OK(t_write_file(t_path(top, "udir/own"), "own"), "create udir/own");
	CHECK(chown(t_path(top, "udir"), swap_uid, swap_uid) == 0 &&
		      chown(t_path(top, "udir/own"), swap_uid, swap_uid) == 0,
	      "chown udir and udir/own to %d", (int)swap_uid);
}

static void sticky_intact(const char *src, uid_t owner)
{
	struct stat st;
	CHECK(stat(t_path(src, "pub/Docs/private"), &st) == 0 && st.st_uid == owner,
	      "SOURCE: pub/Docs is where it was");
	CHECK(stat(t_path(src, "pub/Empty"), &st) == 0 && st.st_uid == owner,
	      "SOURCE: pub/Empty still exists");
	CHECK(t_file_is(t_path(src, "pub/Report"), "r"), "SOURCE: pub/Report still there");
	CHECK_ERR(lstat(t_path(src, "udir/stolen"), &st), ENOENT, "SOURCE: no udir/stolen");
	CHECK(t_file_is(t_path(src, "udir/own"), "own"), "SOURCE: udir/own not moved");
}

static void sec_sticky_swap(void)
{
	t_section("allow_other: unlink/rmdir/rename act on a sticky entry the kernel did not check");
	const char *src = t_newdir("src-sticky");
	struct t_mount m = {0};
	if (t_mount(&m, src, STICKY_OPTS))
		return;
	swap_uid = TUID;
	sticky_layout(m.mnt, 0);
	run_as_user(sticky_swap, m.mnt, src);
	sticky_intact(src, 0);
	t_umount(&m);
}

/* Run fn(mnt, src) in a child process as uid:uid, and check that it
 * finished. */
static void run_as_uid(uid_t uid, void (*fn)(const char *mnt, const char *src),
		       const char *mnt, const char *src)
{
	int st;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
			CHECK(0, "setresuid to %d: %s", (int)uid, strerror(errno));
			_exit(1);
		}
		fn(mnt, src);
		_exit(0);
	}
	CHECK(pid > 0 && wait_bounded(pid, &st, 60) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "uid %d's child finished", (int)uid);
}

static void miss_secret(const char *mnt, const char *src)
{
	struct stat st;
	(void)src;
	CHECK_ERR(stat(t_path(mnt, "pub/SECRET"), &st), ENOENT,
		  "uid %d: pub/SECRET missing (cached miss)", (int)swap_uid);
}

static void create_over_secret(const char *mnt, const char *src)
{
	(void)src;
	CHECK_ERR(open(t_path(mnt, "pub/SECRET"), O_CREAT | O_RDWR, 0644), EACCES,
		  "uid %d: O_CREAT of SECRET finds uid %d's 0600 secret: EACCES, not opened "
		  "with the daemon's access", (int)swap_uid, TUID);
}

/* For the sections that run the daemon as TUID: /dev/fuse opened for
 * the mount, or -1 (skipped, said) where uid TUID cannot run the daemon
 * (e.g. the build tree is private to root). */
static int user_fuse_fd(void)
{
	int fd, st;
	fflush(stdout);
	pid_t x = fork();
	if (x == 0)
		_exit(become_user() == 0 && access(t_opt.foldfs, X_OK) == 0 ? 0 : 1);
	if (x < 0 || wait_bounded(x, &st, 10) != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		t_skip("%s is not executable by uid %d: not tested", t_opt.foldfs, TUID);
		return -1;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_skip("/dev/fuse: %s", strerror(errno));
	return fd;
}

/* Mount src on mnt through fd as mount.fuse3 does before it drops
 * privileges, and start the daemon as TUID on /dev/fd/N with -o opts;
 * fd is consumed.  The daemon's pid, or -1 (said). */
static pid_t user_daemon(const char *src, const char *mnt, int fd, const char *opts)
{
	char mo[256], dev[32];
	snprintf(mo, sizeof mo,
		 "fd=%d,rootmode=40000,user_id=%d,group_id=%d,allow_other,default_permissions", fd,
		 TUID, TGID);
	if (!CHECK(mount(src, mnt, "fuse.foldfs", MS_NOSUID | MS_NODEV, mo) == 0,
		   "mount(2) of a FUSE file system for uid %d: %s", TUID, strerror(errno))) {
		close(fd);
		return -1;
	}
	snprintf(dev, sizeof dev, "/dev/fd/%d", fd);
	fflush(stdout);
	pid_t d = fork();
	if (d == 0) {
		fcntl(fd, F_SETFD, 0);
		if (become_user() == 0)
			execl(t_opt.foldfs, t_opt.foldfs, src, dev, "-f", "-o", opts,
			      (char *)NULL);
		_exit(127);
	}
	close(fd);
	t_track_child(d);
	return d;
}

/* The same against a daemon that runs as a user (TUID), as mount.fuse3
 * -o drop_privileges or a user's fstab entry with allow_other give: it
 * cannot take the caller's identity, so it must apply the sticky rule to
 * the entry it acts on itself, and must not open an existing file for a
 * CREATE with its own access.  Another user (TUID + 1) tries. */
static void sec_sticky_user_daemon(void)
{
	t_section("a user's daemon with allow_other: other users get only their own access");
	const char *src = t_newdir("src-sticky-user"), *mnt = t_newdir("mnt-sticky-user");
	int fd = user_fuse_fd(), st;
	if (fd < 0)
		return;
	swap_uid = TUID + 1;
	CHECK_OK(chown(src, TUID, TGID), "SOURCE owned by the daemon's user %d", TUID);
	sticky_layout(src, TUID);
	pid_t d = user_daemon(src, mnt, fd, STICKY_OPTS);
	if (d < 0)
		return;
	run_as_uid(swap_uid, sticky_swap, mnt, src);
	sticky_intact(src, TUID);
	/* cache=epoch keeps the miss; the file is made behind the view */
	run_as_uid(swap_uid, miss_secret, mnt, src);
	CHECK(t_write_file(t_path(src, "pub/secret"), "mine") == 0 &&
		      chown(t_path(src, "pub/secret"), TUID, TGID) == 0 &&
		      chmod(t_path(src, "pub/secret"), 0600) == 0,
	      "SOURCE: pub/secret of uid %d, 0600", TUID);
	run_as_uid(swap_uid, create_over_secret, mnt, src);
	CHECK(t_file_is(t_path(src, "pub/secret"), "mine"), "SOURCE: pub/secret unchanged");
	CHECK_OK(umount(mnt), "umount %s", mnt);
	CHECK(wait_bounded(d, &st, 20) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the user's daemon exited with status 0");
}

static void miss_plain_secret(const char *mnt, const char *src)
{
	struct stat st;
	(void)src;
	CHECK_ERR(stat(t_path(mnt, "pub/secret"), &st), ENOENT,
		  "uid %d: plain pub/secret missing (a miss the kernel caches)", (int)swap_uid);
}

static void create_over_plain_secret(const char *mnt, const char *src)
{
	CHECK_ERR(open(t_path(src, "pub/secret"), O_CREAT | O_RDWR | O_TRUNC, 0644), EACCES,
		  "uid %d: SOURCE: O_CREAT|O_TRUNC of uid %d's 0600 secret: EACCES", (int)swap_uid,
		  TUID);
	CHECK_ERR(open(t_path(mnt, "pub/secret"), O_CREAT | O_RDWR | O_TRUNC, 0644), EACCES,
		  "uid %d: view: the same over the cached miss: EACCES, not opened with the "
		  "daemon's access", (int)swap_uid);
	int fd = open(t_path(mnt, "pub/new"), O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0, "uid %d: view: O_CREAT of a new name still creates it (%s)", (int)swap_uid,
	      fd >= 0 ? "ok" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* The same user's daemon in a plain directory (no casefold): a CREATE
 * comes for a name the kernel holds as missing, and the file made
 * meanwhile in SOURCE belongs to the daemon's user.  Opening it for the
 * caller with the daemon's access gave another user a descriptor of a
 * 0600 file, and O_TRUNC emptied it. */
static void sec_plain_create_user_daemon(void)
{
	t_section("a user's daemon with allow_other: O_CREAT in a plain directory over a new file");
	const char *src = t_newdir("src-plain-user"), *mnt = t_newdir("mnt-plain-user");
	int fd = user_fuse_fd(), st;
	if (fd < 0)
		return;
	swap_uid = TUID + 1;
	CHECK(chown(src, TUID, TGID) == 0 && mkdir(t_path(src, "pub"), 0777) == 0 &&
		      chmod(t_path(src, "pub"), 0777) == 0,
	      "SOURCE of uid %d, with pub (0777, not sticky)", TUID);
	pid_t d = user_daemon(src, mnt, fd, "allow_other,timeout=30");
	if (d < 0)
		return;
	run_as_uid(swap_uid, miss_plain_secret, mnt, src);
	CHECK(t_write_file(t_path(src, "pub/secret"), "mine") == 0 &&
		      chown(t_path(src, "pub/secret"), TUID, TGID) == 0 &&
		      chmod(t_path(src, "pub/secret"), 0600) == 0,
	      "SOURCE: pub/secret of uid %d, 0600", TUID);
	run_as_uid(swap_uid, create_over_plain_secret, mnt, src);
	CHECK(t_file_is(t_path(src, "pub/secret"), "mine"), "SOURCE: pub/secret unchanged");
	CHECK_OK(umount(mnt), "umount %s", mnt);
	CHECK(wait_bounded(d, &st, 20) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the user's daemon exited with status 0");
}

/* A plain directory caches misses: a CREATE then comes for a FIFO made in
 * SOURCE since.  open(2) with O_CREAT opens it (O_RDWR: without waiting
 * for a reader); the daemon opened it itself and answered a FIFO for a
 * created file, which the kernel refuses (EIO), leaving that descriptor
 * open in the daemon (and a blocking open made a worker wait for a
 * reader, its caller unkillable). */
static void sec_create_plain_fifo(void)
{
	t_section("O_CREAT in a plain directory over a FIFO made in SOURCE after a cached miss");
	const char *src = t_newdir("src-create-fifo");
	struct t_mount m = {0};
	struct stat st;
	if (t_mount(&m, src, "timeout=30"))
		return;
	CHECK_ERR(stat(t_path(m.mnt, "fifo"), &st), ENOENT, "fifo missing (a miss the kernel caches)");
	CHECK_OK(mkfifo(t_path(src, "fifo"), 0644), "SOURCE: mkfifo fifo");
	const char *where[2] = {src, m.mnt}, *what[2] = {"SOURCE", "view"};
	for (int i = 0; i < 2; i++) {
		int fd = open(t_path(where[i], "fifo"), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
		int e = errno;
		CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode),
		      "%s: O_CREAT|O_RDWR of fifo opens the FIFO (%s)", what[i],
		      fd >= 0 ? "ok" : strerror(e));
		if (fd >= 0)
			close(fd);
	}
	t_umount(&m);
}

static void list_no_trusted(const char *mnt, const char *src)
{
	char buf[4096];
	(void)src;
	ssize_t r = listxattr(t_path(mnt, "f"), buf, sizeof buf);
	CHECK(r >= 0 && !memmem(buf, (size_t)(r > 0 ? r : 0), "trusted.", 8),
	      "user: trusted.* is not listed (%zd bytes)", r);
}

/* Does the list of path name an attribute trusted.*?  -1 if it fails. */
static int lists_trusted(const char *path)
{
	char buf[4096];
	ssize_t r = listxattr(path, buf, sizeof buf);
	return r < 0 ? -1 : memmem(buf, (size_t)r, "trusted.", 8) != NULL;
}

/* In a child: become caller (0: root without CAP_SYS_ADMIN; 1: TUID
 * with it), then the view's list must name trusted.* when SOURCE's does
 * for the same process and the process has the capability (ext4, xfs and
 * tmpfs list them by the capability, not by the uid), never without it:
 * btrfs lists them to anyone, though only CAP_SYS_ADMIN may read them. */
static void trusted_by_cap(const char *mnt, const char *src, int user)
{
	int st;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
		struct __user_cap_data_struct d[2];
		const unsigned admin = 1u << CAP_SYS_ADMIN;
		int ok = prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0;
		if (user)
			ok = ok && become_user() == 0;
		ok = ok && syscall(SYS_capget, &h, d) == 0;
		d[0].effective = user ? admin : d[0].effective & ~admin;
		d[0].permitted = user ? d[0].permitted & admin : d[0].permitted & ~admin;
		ok = ok && syscall(SYS_capset, &h, d) == 0;
		if (!CHECK(ok, "%s: set up (%s)", user ? "user with CAP_SYS_ADMIN" : "root without CAP_SYS_ADMIN",
			   strerror(errno)))
			_exit(1);
		int v = lists_trusted(t_path(mnt, "F")), n = lists_trusted(t_path(src, "f"));
		CHECK(v >= 0 && n >= 0 && v == (user && n), "%s: the view %s trusted.*, SOURCE %s it",
		      user ? "user with CAP_SYS_ADMIN" : "root without CAP_SYS_ADMIN",
		      v ? "lists" : "hides", n ? "lists" : "hides");
		_exit(0);
	}
	CHECK(pid > 0 && wait_bounded(pid, &st, 60) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child finished");
}

/* listxattr while another process adds and removes an attribute in
 * SOURCE: the daemon measures, then reads the list; a list that grew in
 * between must be measured again, never read into the old buffer (an
 * empty list's one-byte buffer overflowed: ASan in fs-asan, EIO here). */
static void sec_listxattr_race(void)
{
	t_section("listxattr while SOURCE's attributes change; trusted.* with CAP_SYS_ADMIN only");
	const char *src = t_newdir("src-xattr");
	struct t_mount m = {0};
	static const char longname[] =
		"user.racer-with-a-name-long-enough-to-overrun-any-small-buffer";
	if (t_mount(&m, src, "casefold,allow_other"))
		return;
	CHECK_OK(t_write_file(t_path(m.mnt, "f"), "x"), "create f");
	fflush(stdout);
	pid_t w = fork();
	if (w == 0) {
		const char *sf = t_path(src, "f");
		for (;;) {
			setxattr(sf, longname, "v", 1, 0);
			removexattr(sf, longname);
		}
	}
	t_track_child(w);
	char buf[4096];
	long calls = 0, bad = 0;
	double end = t_now() + 2;
	while (t_now() < end) {
		ssize_t r = listxattr(t_path(m.mnt, "F"), buf, sizeof buf);
		calls++;
		if (r < 0 || (r > 0 && !(r == (ssize_t)sizeof longname &&
					 !memcmp(buf, longname, sizeof longname))))
			bad++;
	}
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	CHECK(calls > 0 && bad == 0, "%ld listxattr calls, %ld wrong or failed", calls, bad);

	/* trusted.* as ext4 shows it: to root, not to other users */
	int tr = setxattr(t_path(src, "f"), "trusted.foldfs-test", "1", 1, 0);
	if (tr == 0) {
		ssize_t r = listxattr(t_path(m.mnt, "f"), buf, sizeof buf);
		CHECK(r > 0 && memmem(buf, (size_t)r, "trusted.foldfs-test", 20),
		      "root lists trusted.foldfs-test");
		run_as_user(list_no_trusted, m.mnt, src);
		trusted_by_cap(m.mnt, src, 0);
		trusted_by_cap(m.mnt, src, 1);
	} else {
		t_skip("SOURCE has no trusted.* attributes (%s)", strerror(errno));
	}
	t_umount(&m);
}

/* ---- POSIX ACLs ---------------------------------------------------------- */

/* An ACL entry, and the system.posix_acl_* value of a list of them: a
 * little-endian version word, then tag, permissions and id per entry
 * (sorted by tag, then id, as the kernel requires). */
struct acl_ent {
	unsigned tag, perm, id;
};
#define ACL_NOID 0xFFFFFFFFu

static int set_acl(const char *path, const char *xname, const struct acl_ent *e, int n)
{
	unsigned char v[4 + 8 * 8];
	size_t k = 0;
	v[k++] = 2, v[k++] = 0, v[k++] = 0, v[k++] = 0;
	for (int i = 0; i < n; i++) {
		v[k++] = (unsigned char)e[i].tag, v[k++] = (unsigned char)(e[i].tag >> 8);
		v[k++] = (unsigned char)e[i].perm, v[k++] = 0;
		for (int b = 0; b < 32; b += 8)
			v[k++] = (unsigned char)(e[i].id >> b);
	}
	return setxattr(path, xname, v, k, 0);
}

/* The same xattr read through the view and in SOURCE: equal bytes? */
static int same_xattr(const char *a, const char *b, const char *xname)
{
	char va[512], vb[512];
	ssize_t na = getxattr(a, xname, va, sizeof va), nb = getxattr(b, xname, vb, sizeof vb);
	return na > 0 && na == nb && !memcmp(va, vb, (size_t)na);
}

/* creat with mode 0666, as most programs create files */
static int creat666(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0666);
	return fd < 0 ? -1 : close(fd);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

/* As TUID: ACLs decide, not the mode bits; a new object takes the parent's
 * default ACL and ignores the umask there, as it would in SOURCE itself. */
static void acl_user_checks(const char *mnt, const char *src)
{
	char buf[16];
	int fd;
	CHECK_ERR(open(t_path(mnt, "denied.TXT"), O_RDONLY), EACCES,
		  "user: ACL entry user:%d:--- denies a file that is 0644", TUID);
	fd = open(t_path(mnt, "GRANTED.txt"), O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 1 && buf[0] == 'g',
	      "user: ACL entry user:%d:r-- grants reading a file that is 0640 root:root (%s)",
	      TUID, fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0)
		close(fd);
	CHECK_ERR(open(t_path(mnt, "granted.TXT"), O_WRONLY), EACCES,
		  "user: but not writing it (the entry is r--)");

	/* Under a default ACL the umask is not applied: 0666 -> 0660. */
	umask(077);
	CHECK_OK(creat666(t_path(mnt, "SHARED/ViewFile")),
		 "user: create a file in the directory with a default ACL (umask 077)");
	CHECK_OK(creat666(t_path(src, "Shared/NativeFile")),
		 "user: the same directly in SOURCE");
	mode_t v = mode_of(t_path(mnt, "shared/viewfile")), n = mode_of(t_path(src, "Shared/NativeFile"));
	CHECK(v == 0660 && v == n, "user: its mode is %04o, as in SOURCE (%04o; want 0660)",
	      (unsigned)v, (unsigned)n);
	CHECK(same_xattr(t_path(mnt, "Shared/ViewFile"), t_path(src, "Shared/NativeFile"),
			 "system.posix_acl_access"),
	      "user: it inherited the same access ACL");
	CHECK_OK(mkdir(t_path(mnt, "shared/ViewDir"), 0777), "user: mkdir in it");
	CHECK_OK(mkdir(t_path(src, "Shared/NativeDir"), 0777), "user: the same in SOURCE");
	v = mode_of(t_path(mnt, "Shared/VIEWDIR")), n = mode_of(t_path(src, "Shared/NativeDir"));
	CHECK(v == 0770 && v == n, "user: the directory's mode is %04o, as in SOURCE (%04o; want 0770)",
	      (unsigned)v, (unsigned)n);
	CHECK(same_xattr(t_path(mnt, "Shared/ViewDir"), t_path(src, "Shared/NativeDir"),
			 "system.posix_acl_default"),
	      "user: and the same default ACL");
	/* Respelling is a rename: the ACL's write permission allows it too
	 * (Shared is 0755, root's). */
	CHECK_OK(t_respell(t_path(mnt, "shared"), "viewfile", "VIEWFILE"),
		 "user: respell Shared/ViewFile -> VIEWFILE (ACL grants write)");
	CHECK(t_dir_has(t_path(src, "Shared"), "VIEWFILE"), "user: SOURCE has VIEWFILE");

	/* Without a default ACL the caller's umask is applied. */
	umask(027);
	CHECK_OK(creat666(t_path(mnt, "Pub/umasked")),
		 "user: create a file where no default ACL applies (umask 027)");
	v = mode_of(t_path(mnt, "pub/UMASKED"));
	CHECK(v == 0640, "user: its mode is %04o (want 0640)", (unsigned)v);
	CHECK_OK(mkdir(t_path(mnt, "pub/umaskdir"), 0777), "user: mkdir there");
	v = mode_of(t_path(mnt, "pub/UMASKDIR"));
	CHECK(v == 0750, "user: its mode is %04o (want 0750)", (unsigned)v);

	/* The owner sets an access ACL on a set-group-ID file of a group
	 * the owner is not in: SOURCE clears the bit, through the view too. */
	const struct acl_ent mine[] = {
		{ACL_USER_OBJ, 7, ACL_NOID}, {ACL_USER, 5, TUID + 1}, {ACL_GROUP_OBJ, 5, ACL_NOID},
		{ACL_MASK, 5, ACL_NOID},     {ACL_OTHER, 0, ACL_NOID},
	};
	CHECK_OK(set_acl(t_path(mnt, "PUB/SGID-VIEW"), "system.posix_acl_access", mine, 5),
		 "user: setfacl on the set-group-ID file it owns (group root)");
	CHECK_OK(set_acl(t_path(src, "Pub/Sgid-native"), "system.posix_acl_access", mine, 5),
		 "user: the same directly in SOURCE");
	v = mode_of(t_path(mnt, "pub/sgid-view")), n = mode_of(t_path(src, "Pub/Sgid-native"));
	CHECK(v == n && !(v & S_ISGID),
	      "user: the set-group-ID bit is cleared as in SOURCE (%04o, SOURCE %04o)",
	      (unsigned)v, (unsigned)n);
	CHECK(same_xattr(t_path(mnt, "Pub/Sgid-View"), t_path(src, "Pub/Sgid-native"),
			 "system.posix_acl_access"),
	      "user: and the ACL is the same");
	CHECK_ERR(set_acl(t_path(mnt, "Granted.txt"), "system.posix_acl_access", mine, 5), EPERM,
		  "user: setfacl on root's file is refused");
}

static void reads_denied(const char *mnt, const char *src)
{
	(void)src;
	CHECK(t_file_is(t_path(mnt, "DENIED.TXT"), "d"),
	      "user: reads Denied.txt at once after the ACL changed");
}

static void refused_granted(const char *mnt, const char *src)
{
	(void)src;
	CHECK_ERR(open(t_path(mnt, "granted.txt"), O_RDONLY), EACCES,
		  "user: refused Granted.txt after the timeout");
}

static void sec_acl(void)
{
	t_section("POSIX ACLs of SOURCE under default_permissions (allow_other)");
	const char *src = t_newdir("src-acl");
	struct t_mount m = {0};
	const struct acl_ent deny[] = {
		{ACL_USER_OBJ, 6, ACL_NOID}, {ACL_USER, 0, TUID}, {ACL_GROUP_OBJ, 4, ACL_NOID},
		{ACL_MASK, 4, ACL_NOID},     {ACL_OTHER, 4, ACL_NOID},
	};
	const struct acl_ent grant[] = {
		{ACL_USER_OBJ, 6, ACL_NOID}, {ACL_USER, 4, TUID}, {ACL_GROUP_OBJ, 0, ACL_NOID},
		{ACL_MASK, 4, ACL_NOID},     {ACL_OTHER, 0, ACL_NOID},
	};
	const struct acl_ent shared[] = {
		{ACL_USER_OBJ, 7, ACL_NOID}, {ACL_USER, 7, TUID}, {ACL_GROUP_OBJ, 5, ACL_NOID},
		{ACL_MASK, 7, ACL_NOID},     {ACL_OTHER, 0, ACL_NOID},
	};
	if (!src || t_mount(&m, src, "casefold,allow_other"))
		return;
	CHECK_OK(t_write_file(t_path(m.mnt, "Denied.txt"), "d"), "create Denied.txt (0644)");
	if (set_acl(t_path(m.mnt, "DENIED.txt"), "system.posix_acl_access", deny, 5) != 0 &&
	    (errno == EOPNOTSUPP || errno == ENOTSUP)) {
		t_skip("SOURCE's file system has no POSIX ACLs (%s)", m.src);
		t_umount(&m);
		return;
	}
	CHECK(same_xattr(t_path(m.mnt, "denied.txt"), t_path(m.src, "Denied.txt"),
			 "system.posix_acl_access"),
	      "an ACL set through the view is SOURCE's, byte for byte");
	CHECK_OK(t_write_file(t_path(m.mnt, "Granted.txt"), "g"), "create Granted.txt");
	CHECK_OK(chmod(t_path(m.mnt, "Granted.txt"), 0600), "chmod 0600 Granted.txt");
	CHECK_OK(set_acl(t_path(m.mnt, "granted.txt"), "system.posix_acl_access", grant, 5),
		 "setfacl u:%d:r-- Granted.txt", TUID);
	CHECK(mode_of(t_path(m.mnt, "GRANTED.TXT")) == 0640,
	      "the view shows the mode SOURCE made of the ACL (%04o, want 0640)",
	      (unsigned)mode_of(t_path(m.mnt, "GRANTED.TXT")));
	CHECK_OK(mkdir(t_path(m.mnt, "Shared"), 0755), "mkdir Shared");
	CHECK_OK(set_acl(t_path(m.mnt, "Shared"), "system.posix_acl_access", shared, 5),
		 "setfacl u:%d:rwx Shared", TUID);
	CHECK_OK(set_acl(t_path(m.mnt, "Shared"), "system.posix_acl_default", shared, 5),
		 "setfacl -d u:%d:rwx,o::--- Shared", TUID);
	CHECK_OK(mkdir(t_path(m.mnt, "Pub"), 0755), "mkdir Pub");
	CHECK_OK(chmod(t_path(m.mnt, "Pub"), 01777), "chmod 1777 Pub");
	static const char *const sgid[] = {"Pub/Sgid-View", "Pub/Sgid-native"};
	for (int i = 0; i < 2; i++)
		CHECK(t_write_file(t_path(m.src, sgid[i]), "s") == 0 &&
			      chown(t_path(m.src, sgid[i]), TUID, 0) == 0 &&
			      chmod(t_path(m.src, sgid[i]), 02770) == 0,
		      "SOURCE: %s, %d:root, mode 2770", sgid[i], TUID);
	run_as_user(acl_user_checks, m.mnt, m.src);

	/* Two callers with different umasks at the same time: each creation
	 * gets its own caller's (the daemon's worker threads must not share
	 * one umask). */
	pid_t kid[2];
	int st;
	for (int k = 0; k < 2; k++) {
		fflush(stdout);
		kid[k] = fork();
		if (kid[k] == 0) {
			char dir[32];
			int bad = 0;
			if (become_user())
				_exit(2);
			umask(k ? 077 : 0);
			/* apart: creations in one directory are serialized */
			snprintf(dir, sizeof dir, "Pub/race-%d", k);
			if (mkdir(t_path(m.mnt, dir), 0777))
				_exit(3);
			for (int i = 0; i < 400 && !bad; i++) {
				char rel[80];
				snprintf(rel, sizeof rel, "%s/%d", dir, i);
				bad = creat666(t_path(m.mnt, rel)) != 0 ||
				      mode_of(t_path(m.mnt, rel)) != (k ? 0600 : 0666);
			}
			_exit(bad);
		}
	}
	for (int k = 0; k < 2; k++)
		CHECK(kid[k] > 0 && wait_bounded(kid[k], &st, 120) == 0 && WIFEXITED(st) &&
			      WEXITSTATUS(st) == 0,
		      "user, umask %s: 400 files created at the same time as another "
		      "user's all have mode %s",
		      k ? "077" : "000", k ? "0600" : "0666");

	/* A change through the view takes effect at once (the kernel's cached
	 * ACL is replaced). */
	CHECK_OK(set_acl(t_path(m.mnt, "Denied.txt"), "system.posix_acl_access", grant, 5),
		 "setfacl u:%d:r-- Denied.txt", TUID);
	run_as_user(reads_denied, m.mnt, NULL);

	/* One changed directly in SOURCE applies once the attribute timeout
	 * (1 s by default) has passed. */
	CHECK_OK(set_acl(t_path(m.src, "Granted.txt"), "system.posix_acl_access", deny, 5),
		 "SOURCE: setfacl u:%d:--- Granted.txt", TUID);
	t_sleep_ms(1300);
	run_as_user(refused_granted, m.mnt, NULL);
	t_umount(&m);
}

/* The kernel checks the right to change the immutable and append-only
 * flags against the flags it read through the view a moment before; the
 * daemon, which has that right, must not clear an immutable flag root set
 * in SOURCE in between for an owner who has not (an owner toggling
 * noatime once undid root's chattr +i in about one round of five). */
static void sec_chattr_race(void)
{
	t_section("allow_other: an owner's chattr through the view races root's chattr +i");
	const char *src = t_newdir("src-chattr-race");
	struct t_mount m = {0};
	if (!src || t_mount(&m, src, "allow_other"))
		return;
	const char *sf = t_path(m.src, "owned");
	int sfd = -1, fl = 0;
	if (t_write_file(sf, "o") || chown(sf, TUID, TGID) ||
	    (sfd = open(sf, O_RDONLY | O_CLOEXEC)) < 0 || ioctl(sfd, FS_IOC_GETFLAGS, &fl) ||
	    ioctl(sfd, FS_IOC_SETFLAGS, &(int){fl | FS_IMMUTABLE_FL}) ||
	    ioctl(sfd, FS_IOC_SETFLAGS, &fl)) {
		t_skip("SOURCE takes no immutable flag here (%s)", strerror(errno));
		if (sfd >= 0)
			close(sfd);
		t_umount(&m);
		return;
	}
	fflush(stdout);
	pid_t k = fork();
	if (k == 0) {
		int fd, f;
		if (become_user() || (fd = open(t_path(m.mnt, "owned"), O_RDONLY)) < 0)
			_exit(1);
		for (;;)
			if (ioctl(fd, FS_IOC_GETFLAGS, &f) == 0) {
				f ^= FS_NOATIME_FL;
				ioctl(fd, FS_IOC_SETFLAGS, &f);
			}
	}
	t_track_child(k);
	long rounds = 0, lost = 0;
	for (double end = t_now() + 2; t_now() < end; rounds++) {
		int f = 0;
		if (ioctl(sfd, FS_IOC_GETFLAGS, &f) ||
		    ioctl(sfd, FS_IOC_SETFLAGS, &(int){f | FS_IMMUTABLE_FL}))
			continue;
		t_sleep_ms(1);
		lost += ioctl(sfd, FS_IOC_GETFLAGS, &f) == 0 && !(f & FS_IMMUTABLE_FL);
		f &= ~FS_IMMUTABLE_FL;
		ioctl(sfd, FS_IOC_SETFLAGS, &f);
		t_sleep_ms(1); /* the owner reads flags without i */
	}
	kill(k, SIGKILL);
	waitpid(k, NULL, 0);
	CHECK(rounds > 0 && lost == 0,
	      "%ld rounds of root's chattr +i in SOURCE: the owner's chattr -A/+A through "
	      "the view removed it %ld times",
	      rounds, lost);
	ioctl(sfd, FS_IOC_GETFLAGS, &fl);
	ioctl(sfd, FS_IOC_SETFLAGS, &(int){fl & ~FS_IMMUTABLE_FL});
	close(sfd);
	t_umount(&m);
}

/* Without default_permissions (a mount only root uses) a default ACL of
 * SOURCE still replaces the umask for what is created through the view,
 * as in SOURCE itself: the kernel applied the umask before the daemon saw
 * the mode, and 0666 under a default ACL of group rwx became 0640. */
static void sec_acl_nodefperm(void)
{
	t_section("a default ACL of SOURCE without default_permissions");
	const char *src = t_newdir("src-acl-nodp");
	struct t_mount m = {0};
	const struct acl_ent dflt[] = {
		{ACL_USER_OBJ, 7, ACL_NOID}, {ACL_USER, 7, TUID}, {ACL_GROUP_OBJ, 7, ACL_NOID},
		{ACL_MASK, 7, ACL_NOID},     {ACL_OTHER, 0, ACL_NOID},
	};
	if (!src || t_mount(&m, src, "casefold"))
		return;
	CHECK_OK(mkdir(t_path(m.mnt, "Dflt"), 0755), "mkdir Dflt");
	if (set_acl(t_path(m.src, "Dflt"), "system.posix_acl_default", dflt, 5) != 0) {
		t_skip("SOURCE's file system has no POSIX ACLs (%s)", strerror(errno));
		t_umount(&m);
		return;
	}
	CHECK_OK(mkdir(t_path(m.mnt, "Plain"), 0755), "mkdir Plain");
	mode_t old = umask(027);
	CHECK_OK(creat666(t_path(m.mnt, "DFLT/ViewFile")), "create DFLT/ViewFile (umask 027)");
	CHECK_OK(creat666(t_path(m.src, "Dflt/NativeFile")), "SOURCE: the same");
	CHECK_OK(mkdir(t_path(m.mnt, "dflt/ViewDir"), 0777), "mkdir dflt/ViewDir");
	CHECK_OK(mkdir(t_path(m.src, "Dflt/NativeDir"), 0777), "SOURCE: the same");
	CHECK_OK(creat666(t_path(m.mnt, "plain/ViewFile")), "create plain/ViewFile");
	umask(old);
	mode_t v = mode_of(t_path(m.mnt, "dflt/viewfile")), n = mode_of(t_path(m.src, "Dflt/NativeFile"));
	CHECK(v == 0660 && v == n, "the file's mode is %04o, as in SOURCE (%04o; want 0660)",
	      (unsigned)v, (unsigned)n);
	v = mode_of(t_path(m.mnt, "dflt/viewdir")), n = mode_of(t_path(m.src, "Dflt/NativeDir"));
	CHECK(v == 0770 && v == n, "the directory's mode is %04o, as in SOURCE (%04o; want 0770)",
	      (unsigned)v, (unsigned)n);
	CHECK(same_xattr(t_path(m.mnt, "Dflt/ViewFile"), t_path(m.src, "Dflt/NativeFile"),
			 "system.posix_acl_access"),
	      "the file inherited the same access ACL");
	v = mode_of(t_path(m.mnt, "PLAIN/VIEWFILE"));
	CHECK(v == 0640, "where no default ACL applies the umask does: %04o (want 0640)",
	      (unsigned)v);
	t_umount(&m);
}

/* ---- root's reserved blocks ------------------------------------------ */

/* A root daemon writes with CAP_SYS_RESOURCE, which lets a writer take the
 * blocks ext4 keeps for root (and pass quota hard limits); a change of
 * fsuid does not drop it.  A user writing through the view must run out
 * of space where it does natively; root must not. */
static void reserve_user(const char *mnt, const char *nat)
{
	int fd = open(t_path(nat, "u-nat"), O_CREAT | O_WRONLY, 0644);
	int r = fd < 0 ? -1 : fallocate(fd, 0, 0, 4 << 20), e = errno;
	CHECK(fd >= 0 && r < 0 && e == ENOSPC,
	      "user, natively: fallocate 4 MiB with only the reserve left: ENOSPC (%s)",
	      fd < 0 ? "no file" : r == 0 ? "allocated" : strerrorname_np(e));
	if (fd >= 0)
		close(fd);
	fd = open(t_path(mnt, "U-VIEW"), O_CREAT | O_WRONLY, 0644);
	r = fd < 0 ? -1 : fallocate(fd, 0, 0, 4 << 20);
	e = errno;
	CHECK(fd >= 0 && r < 0 && e == ENOSPC,
	      "user, through the view: fallocate 4 MiB: ENOSPC as natively (%s)",
	      fd < 0 ? "no file" : r == 0 ? "allocated from root's reserve" : strerrorname_np(e));
	if (fd >= 0)
		close(fd);
	static char blk[1 << 20];
	long total = 0;
	ssize_t w = 0;
	fd = open(t_path(mnt, "U-WRITE"), O_CREAT | O_WRONLY, 0644);
	for (int i = 0; fd >= 0 && i < 4 && (w = write(fd, blk, sizeof blk)) > 0; i++)
		total += w;
	e = errno;
	if (fd >= 0)
		close(fd);
	CHECK(fd >= 0 && w < 0 && e == ENOSPC && total < (1 << 20),
	      "user, through the view: writing 4 MiB stops with ENOSPC within the first "
	      "(%ld bytes written)", total);
	/* a truncation by path, allowed by the group: the daemon acts on the
	 * proc link, whose permission check must not be made with the
	 * user's fsuid and the daemon's groups */
	CHECK_OK(truncate(t_path(mnt, "GRP"), 1), "user in the group: truncate GRP (0664, "
		 "root:%d) by path", TGID);
}

static void sec_reserve(void)
{
	t_section("a user writing through the view: no root's reserved blocks, truncation by group");
	const char *dir = t_newdir("src-reserve");
	char img[4200], fs[4200], out[4096];
	snprintf(img, sizeof img, "%s/img", dir);
	snprintf(fs, sizeof fs, "%s/fs", dir);
	int fd = open(img, O_CREAT | O_WRONLY, 0600);
	int ok = fd >= 0 && ftruncate(fd, 64 << 20) == 0;
	if (fd >= 0)
		close(fd);
	const char *mkfs[] = {"mkfs.ext4", "-q", "-F", "-m", "25", img, NULL};
	const char *mnt[] = {"mount", "-o", "loop", img, fs, NULL};
	if (!ok || mkdir(fs, 0755) || t_run(mkfs, out, sizeof out, 60) != 0 ||
	    t_run(mnt, out, sizeof out, 60) != 0) {
		t_skip("cannot make a loop-mounted ext4 with a reserve: %s", out);
		return;
	}
	const char *src = t_path(fs, "src"), *nat = t_path(fs, "nat");
	struct statvfs sv;
	mkdir(src, 01777);
	chmod(src, 01777);
	mkdir(nat, 01777);
	chmod(nat, 01777);
	/* leave users 256 KiB: the rest of the free space is root's */
	fd = open(t_path(fs, "filler"), O_CREAT | O_WRONLY, 0600);
	ok = fd >= 0 && statvfs(fs, &sv) == 0 && sv.f_bavail * sv.f_frsize > (256 << 10) &&
	     fallocate(fd, 0, 0, (off_t)(sv.f_bavail * sv.f_frsize - (256 << 10))) == 0;
	if (fd >= 0)
		close(fd);
	ok = ok && statvfs(fs, &sv) == 0;
	unsigned long long users = ok ? sv.f_bavail * sv.f_frsize >> 10 : 0,
			   all = ok ? sv.f_bfree * sv.f_frsize >> 10 : 0;
	ok = ok && all >= 8192;
	CHECK(ok, "ext4 with 25%% reserved, filled to the reserve by root (%llu KiB left to "
	      "users, %llu to root)", users, all);
	struct t_mount m = {0};
	if (ok && t_mount(&m, src, "casefold,allow_other") == 0) {
		CHECK_OK(t_write_file(t_path(m.mnt, "grp"), "abc") ||
				 chown(t_path(m.mnt, "grp"), 0, TGID) ||
				 chmod(t_path(m.mnt, "grp"), 0664),
			 "root: grp, 0664, group %d", TGID);
		run_as_user(reserve_user, m.mnt, nat);
		fd = open(t_path(m.mnt, "ROOT"), O_CREAT | O_WRONLY, 0644);
		int r = fd < 0 ? -1 : fallocate(fd, 0, 0, 4 << 20), e = errno;
		CHECK(fd >= 0 && r == 0, "root through the view: fallocate 4 MiB takes the "
		      "reserve (%s)", fd < 0 ? "no file" : r == 0 ? "ok" : strerrorname_np(e));
		if (fd >= 0)
			close(fd);
		t_umount(&m);
	}
	umount2(fs, MNT_DETACH);
}

/* ---- POSIX record locks reach SOURCE --------------------------------------- */

/* In another process: open path and try F_SETLK (type, start, len).
 * 0 granted, 1 refused (a conflict), 2 another error, -1 no answer. */
static int other_lock(const char *path, short type, off_t start, off_t len)
{
	int st;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct flock l = {.l_type = type, .l_whence = SEEK_SET, .l_start = start,
				  .l_len = len};
		int fd = open(path, O_RDWR);
		if (fd < 0)
			_exit(2);
		if (fcntl(fd, F_SETLK, &l) == 0)
			_exit(0);
		_exit(errno == EAGAIN || errno == EACCES ? 1 : 2);
	}
	if (pid < 0 || wait_bounded(pid, &st, 30) != 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* A process holding a POSIX write lock on [start, start+len) of path
 * (opened directly); it lets go when *release is written to or closed. */
static pid_t holder(const char *path, off_t start, off_t len, int *release)
{
	int ready[2], go[2];
	char c;
	if (pipe(ready) || pipe(go))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start,
				  .l_len = len};
		close(ready[0]);
		close(go[1]);
		int fd = open(path, O_RDWR);
		if (fd < 0 || fcntl(fd, F_SETLK, &l) != 0 || write(ready[1], "r", 1) != 1)
			_exit(2);
		if (read(go[0], &c, 1) == 1 && c == 'd')
			t_sleep_ms(300); /* "release after a while" */
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	*release = go[1];
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	return pid;
}

/* A counter in the first 8 bytes of a file, incremented n times under a
 * whole-file lock (kind); the process exits 0 if every step worked. */
static void count_up(const char *path, int kind, int n)
{
	int fd = open(path, O_RDWR);
	for (int i = 0; i < n; i++) {
		char b[24] = {0};
		if (fd < 0 || lock_whole(fd, kind, 1) != 0 || pread(fd, b, 8, 0) != 8)
			_exit(1);
		snprintf(b, sizeof b, "%08ld", (strtol(b, NULL, 10) + 1) % 100000000);
		if (pwrite(fd, b, 8, 0) != 8 || unlock_whole(fd, kind) != 0)
			_exit(1);
	}
	_exit(0);
}

/* Data written in SOURCE under a lock is what a process that takes the
 * lock through the view reads, although the kernel caches the view's
 * pages (the daemon drops them when it grants a lock). */
static void sec_lock_coherence(const struct t_mount *m)
{
	const char *sf = t_path(m->src, "Shared.dat");
	char vf[4200], b[16];
	struct stat st;
	int ok = 1;
	snprintf(vf, sizeof vf, "%s", t_path(m->mnt, "SHARED.dat"));
	CHECK_OK(t_write_file(sf, "00000000"), "SOURCE: create Shared.dat");
	int v = open(vf, O_RDWR), s = open(sf, O_RDWR);
	CHECK(v >= 0 && s >= 0 && pread(v, b, 8, 0) == 8, "view: open it and read (now cached)");
	for (int i = 1; i <= 40 && ok; i++) {
		char w[9];
		int kind = i & 1 ? KIND_FCNTL : KIND_FLOCK;
		snprintf(w, sizeof w, "%08d", i);
		ok = pwrite(s, w, 8, 0) == 8 && lock_whole(v, kind, 1) == 0 &&
		     pread(v, b, 8, 0) == 8 && !memcmp(b, w, 8) && unlock_whole(v, kind) == 0;
	}
	CHECK(ok, "40 times: SOURCE writes, the view takes the lock (fcntl and flock in "
		  "turn) and reads what was written (last read %.8s)", b);
	ok = pwrite(s, "0000000000000000", 16, 0) == 16 && lock_whole(v, KIND_FCNTL, 1) == 0 &&
	     fstat(v, &st) == 0 && unlock_whole(v, KIND_FCNTL) == 0;
	CHECK(ok && st.st_size == 16,
	      "SOURCE grows the file; after the lock the view sees its size (%lld, want 16)",
	      (long long)st.st_size);
	close(v);
	close(s);

	/* Read-modify-write from both sides at once. */
	enum { NP = 4, STEPS = 100 };
	pid_t kids[NP];
	int st2, good = 0;
	char vf2[4200];
	snprintf(vf2, sizeof vf2, "%s", t_path(m->mnt, "shared.DAT"));
	for (int k = 0; k < NP; k++) {
		fflush(stdout);
		kids[k] = fork();
		if (kids[k] == 0)
			count_up(k == 0 ? vf : k == 1 ? vf2 : sf, KIND_FCNTL, STEPS);
	}
	for (int k = 0; k < NP; k++)
		good += kids[k] > 0 && wait_bounded(kids[k], &st2, 120) == 0 && WIFEXITED(st2) &&
			WEXITSTATUS(st2) == 0;
	ssize_t n = t_read_file(sf, b, sizeof b);
	b[n >= 8 ? 8 : 0] = 0;
	long total = strtol(b, NULL, 10);
	CHECK(good == NP && total == NP * STEPS,
	      "%d processes (2 through the view, 2 in SOURCE) increment a counter %d times "
	      "each under F_SETLKW: it reads %ld (want %d)",
	      NP, STEPS, total, NP * STEPS);
}

/* -o lockcache=keep: a granted lock leaves the kernel's cached pages
 * alone (what the option is for, and the staleness it documents: with the
 * attribute timeout long, the view keeps reading its cached bytes after
 * SOURCE changed them and a lock was taken); the locks still reach
 * SOURCE.  A bad value is refused. */
static void sec_lockcache_keep(void)
{
	t_section("-o lockcache=keep");
	const char *src = t_newdir("src-lockkeep");
	struct t_mount m = {0};
	char out[2048], b[9] = {0};
	int rc = t_mount_refused(src, "lockcache=maybe", out, sizeof out);
	CHECK(rc != 0 && strstr(out, "lockcache=maybe: expected drop or keep"),
	      "lockcache=maybe refused (exit %d): %.200s", rc, out);
	if (t_mount(&m, src, "casefold,lockcache=keep,timeout=60"))
		return;
	const char *sf = t_path(m.src, "Kept.dat");
	char vf[4200];
	snprintf(vf, sizeof vf, "%s", t_path(m.mnt, "KEPT.dat"));
	CHECK_OK(t_write_file(sf, "AAAAAAAA"), "SOURCE: create Kept.dat");
	int v = open(vf, O_RDWR), s = open(sf, O_RDWR);
	CHECK(v >= 0 && s >= 0 && pread(v, b, 8, 0) == 8 && !memcmp(b, "AAAAAAAA", 8),
	      "view: open it and read AAAAAAAA (now cached)");
	CHECK(pwrite(s, "BBBBBBBB", 8, 0) == 8 && lock_whole(v, KIND_FCNTL, 1) == 0 &&
		      pread(v, b, 8, 0) == 8 && unlock_whole(v, KIND_FCNTL) == 0 &&
		      !memcmp(b, "AAAAAAAA", 8),
	      "SOURCE writes BBBBBBBB, the view locks and still reads its cached copy (%.8s)", b);
	CHECK(pwrite(s, "CCCCCCCC", 8, 0) == 8 && lock_whole(v, KIND_FLOCK, 1) == 0 &&
		      pread(v, b, 8, 0) == 8 && unlock_whole(v, KIND_FLOCK) == 0 &&
		      !memcmp(b, "AAAAAAAA", 8),
	      "SOURCE writes CCCCCCCC, the view flock()s and still reads its cached copy (%.8s)",
	      b);
	CHECK(other_lock(sf, F_WRLCK, 0, 0) == 0 && lock_whole(v, KIND_FCNTL, 1) == 0 &&
		      other_lock(sf, F_RDLCK, 0, 1) == 1 && unlock_whole(v, KIND_FCNTL) == 0,
	      "the view's lock still excludes SOURCE");
	close(v);
	close(s);
	t_umount(&m);
}

/* READ requests the daemon has logged so far (mounted with -o debug:
 * libfuse logs every request it receives). */
static long log_reads(const struct t_mount *m)
{
	return t_log_count(m, "opcode: READ (");
}

/* The test's own answer to what the daemon asks at start: does dir's file
 * system give a file a new ctime at its next change after the ctime was
 * looked at, however soon?  1 yes, 0 no, -1 cannot tell (no O_TMPFILE). */
static int fine_ctime_of(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), same = 0;
	if (fd < 0)
		return -1;
	for (int i = 0; i < 16; i++) {
		struct stat a, b;
		if (pwrite(fd, "ab", 2, i) != 2 || fstat(fd, &a) ||
		    pwrite(fd, "cd", 2, i) != 2 || fstat(fd, &b))
			break;
		same += a.st_ctim.tv_sec == b.st_ctim.tv_sec &&
			a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
	}
	close(fd);
	return same == 0;
}

/* The checks of lock_fine_ctime_on() for one kind of lock (a file of its
 * own). */
static void fresh_locks(const struct t_mount *m, const char *sub, const char *what,
			int kind, int fine)
{
	const char *kn = kind == KIND_FCNTL ? "fcntl" : "flock";
	char b[9] = {0}, rel[256], vrel[256];
	int ok = 1, i;
	long n0, n1;
	snprintf(rel, sizeof rel, "%s%s%s", sub ? sub : "", sub ? "/" : "",
		 kind == KIND_FCNTL ? "Fresh.dat" : "Flock.dat");
	snprintf(vrel, sizeof vrel, "%s%s%s", sub ? sub : "", sub ? "/" : "",
		 kind == KIND_FCNTL ? "FRESH.dat" : "FLOCK.dat");
	const char *sf = t_path(m->src, rel), *vf = t_path(m->mnt, vrel);
	CHECK_OK(t_write_file(sf, "AAAAAAAA"), "%s, %s: SOURCE: create %s", what, kn, rel);
	int v = open(vf, O_RDWR), s = open(sf, O_RDWR);
	CHECK(v >= 0 && s >= 0 && lock_whole(v, kind, 1) == 0 &&
		      pread(v, b, 8, 0) == 8 && unlock_whole(v, kind) == 0 &&
		      pwrite(s, "BBBBBBBB", 8, 0) == 8 && lock_whole(v, kind, 1) == 0 &&
		      pread(v, b, 8, 0) == 8 && unlock_whole(v, kind) == 0 &&
		      !memcmp(b, "BBBBBBBB", 8),
	      "%s, %s: view locks, reads; SOURCE writes BBBBBBBB; the view locks and reads it (%.8s)",
	      what, kn, b);
	n0 = log_reads(m);
	CHECK(lock_whole(v, kind, 1) == 0 && pread(v, b, 8, 0) == 8 &&
		      unlock_whole(v, kind) == 0 && !memcmp(b, "BBBBBBBB", 8),
	      "%s, %s: at once, with no change since, the view locks and reads again", what, kn);
	n1 = log_reads(m);
	if (fine)
		CHECK(n0 > 0 && n1 == n0,
		      "%s, %s: that lock kept the cached pages: no READ reached the daemon "
		      "(%ld before, %ld after)", what, kn, n0, n1);
	else
		CHECK(n0 > 0 && n1 > n0,
		      "%s, %s: that lock dropped the cached pages (a change within the last "
		      "seconds cannot be trusted to show): READs %ld before, %ld after",
		      what, kn, n0, n1);
	for (i = 0; i < 200 && ok; i++) {
		char w[9];
		snprintf(w, sizeof w, "%08d", i);
		ok = lock_whole(v, kind, 1) == 0 && pread(v, b, 8, 0) == 8 &&
		     unlock_whole(v, kind) == 0 && pwrite(s, w, 8, 0) == 8 &&
		     lock_whole(v, kind, 1) == 0 && pread(v, b, 8, 0) == 8 &&
		     unlock_whole(v, kind) == 0 && !memcmp(b, w, 8);
	}
	CHECK(ok, "%s, %s: 200 times: the view locks and reads, SOURCE at once writes the same "
		  "size, the next lock reads it (round %d: %.8s)", what, kn, i, b);
	close(v);
	close(s);
}

/* Lock revalidation trusts a fresh ctime only where the file system gives
 * fine-grained change times: the daemon's verdict on SOURCE (src) is the
 * test's own; for a file in src/sub (sub NULL: src itself), on SOURCE's
 * file system or another one mounted there (then always taken as
 * coarse), a second lock (fcntl: of the same owner; flock: through the
 * same file handle) with no change since the first keeps the kernel's
 * cache where trusted (no READ reaches the daemon) and drops it elsewhere
 * (the change is too recent to trust); and in both, a change made in
 * SOURCE right after a lock (the same clock tick, on a coarse clock) is
 * read by the next lock, 200 times in a row. */
static void lock_fine_ctime_on(const char *src, const char *sub, const char *what)
{
	struct t_mount m = {0};
	struct stat a, b;
	char buf[8192];
	int fine = fine_ctime_of(src);
	if (fine < 0) {
		t_skip("%s: no O_TMPFILE there", what);
		return;
	}
	if (stat(src, &a) < 0 || stat(sub ? t_path(src, sub) : src, &b) < 0) {
		CHECK(0, "%s: stat %s: %s", what, sub ? sub : src, strerror(errno));
		return;
	}
	if (t_mount(&m, src, "casefold,timeout=60,debug"))
		return;
	int lf = open(m.log, O_RDONLY | O_CLOEXEC);
	ssize_t r = lf >= 0 ? read(lf, buf, sizeof buf - 1) : -1;
	buf[r > 0 ? r : 0] = '\0';
	if (lf >= 0)
		close(lf);
	CHECK(strstr(buf, fine ? "change times are fine-grained" : "change times are coarse") != NULL,
	      "%s: the daemon finds SOURCE's change times %s, as the test does", what,
	      fine ? "fine-grained" : "coarse");
	for (int kind = KIND_FLOCK; kind <= KIND_FCNTL; kind++)
		fresh_locks(&m, sub, what, kind, fine && a.st_dev == b.st_dev);
	t_umount(&m);
}

static void sec_lock_fine_ctime(void)
{
	char dir[4200], sub[4300], out[512] = "";
	t_section("lock revalidation and fine-grained change times");
	lock_fine_ctime_on(t_newdir("src-ctime"), NULL, "scratch file system");

	/* An ext2 image (a coarse clock on this kernel; whatever the test
	 * finds, the daemon must find too): as SOURCE, and mounted inside
	 * SOURCE on the scratch file system. */
	const char *d = t_newdir("ext2");
	if (!d)
		return;
	if (t_ext2_image(d, dir, sizeof dir, out, sizeof out)) {
		t_skip("no ext2 image could be made and mounted here: %.200s", out);
		return;
	}
	snprintf(sub, sizeof sub, "%s/src", dir);
	if (mkdir(sub, 0755) == 0) {
		lock_fine_ctime_on(sub, NULL, "ext2 image");
		lock_fine_ctime_on(d, "mnt/src", "ext2 image inside SOURCE");
	}
	t_ext2_umount(dir);
}

/* SQLite, a lock-heavy real program, keeps its database sound through the
 * view, also shared with processes using SOURCE directly (rollback
 * journal; WAL needs one page cache, so all its processes use the view):
 * an increment lost to a page cached from before another's commit shows
 * in the count (tests/fs/sqlite-count.py). */
static void sec_sqlite(void)
{
	t_section("SQLite through the view");
	const char *src = t_newdir("src-sqlite");
	struct t_mount m = {0};
	char out[2048];
	if (!src || t_mount(&m, src, "casefold"))
		return;
	const char *viewdir = t_path(m.mnt, "db"), *srcdir = t_path(m.src, "DB");
	CHECK_OK(mkdir(t_path(m.mnt, "DB"), 0755), "mkdir DB through the view");
	const char *script = FSTEST_SRCDIR "/sqlite-count.py";
	const char *del[] = {"python3", script, "delete", "150",
			     viewdir, srcdir, viewdir, srcdir, NULL};
	int rc = t_run(del, out, sizeof out, 300);
	out[strcspn(out, "\n")] = '\0'; /* the summary line */
	if (rc == 77) {
		t_skip("SQLite: %s", out);
	} else {
		CHECK(rc == 0, "rollback journal: 2 processes through the view (as db) and 2 "
			       "in SOURCE (DB) add 150 each under SQLite's locks (exit %d): %.300s",
		      rc, out);
		const char *wal = t_path(m.mnt, "Wal"), *walv = t_path(m.mnt, "WAL");
		CHECK_OK(mkdir(wal, 0755), "mkdir Wal through the view");
		const char *w[] = {"python3", script, "wal", "150",
				   wal, walv, wal, walv, NULL};
		rc = t_run(w, out, sizeof out, 300);
		out[strcspn(out, "\n")] = '\0';
		CHECK(rc == 0, "WAL: 4 processes through the view (Wal, WAL) add 150 each "
			       "(exit %d): %.300s", rc, out);
	}
	t_umount(&m);
}

/* Close fd after 200 ms, then let a holder() go. */
struct closer {
	int fd, release;
};

static void *close_later(void *arg)
{
	struct closer *c = arg;

	t_sleep_ms(200);
	close(c->fd);
	if (write(c->release, "d", 1) != 1) {
		/* the holder goes when the caller closes it */
	}
	return NULL;
}

/* fcntl locks taken through the view are SOURCE's: they exclude processes
 * using SOURCE directly, and theirs exclude the view's; POSIX semantics
 * (ranges split per owner, gone when the owner closes any descriptor of
 * the file or exits) hold across both. */
static void sec_source_locks(void)
{
	t_section("POSIX record locks reach SOURCE");
	const char *src = t_newdir("src-locks");
	struct t_mount m = {0};
	struct flock l;
	int st, rel;
	pid_t h;
	if (!src || t_mount(&m, src, "casefold"))
		return;
	const char *sf = t_path(m.src, "Data.bin");
	char vf[4200], vf2[4200];
	snprintf(vf, sizeof vf, "%s", t_path(m.mnt, "DATA.bin"));
	snprintf(vf2, sizeof vf2, "%s", t_path(m.mnt, "data.BIN"));
	CHECK_OK(t_write_file(t_path(m.mnt, "Data.bin"), "0123456789"), "create Data.bin");
	int a = open(vf, O_RDWR);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
	CHECK_OK(fcntl(a, F_SETLK, &l), "view: F_SETLK write lock on bytes 0-9 (DATA.bin)");
	CHECK(other_lock(sf, F_WRLCK, 5, 10) == 1,
	      "a process using SOURCE directly is refused an overlapping lock");
	CHECK(other_lock(sf, F_WRLCK, 20, 5) == 0, "but gets a disjoint range");
	CHECK(other_lock(sf, F_RDLCK, 9, 1) == 1, "and no read lock inside it");
	CHECK(other_lock(vf2, F_WRLCK, 5, 1) == 1,
	      "another process through the view (data.BIN) is refused too");
	l = (struct flock){.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 2, .l_len = 4};
	CHECK_OK(fcntl(a, F_SETLK, &l), "view: unlock bytes 2-5 (the lock splits)");
	CHECK(other_lock(sf, F_WRLCK, 2, 4) == 0 && other_lock(sf, F_WRLCK, 1, 1) == 1 &&
		      other_lock(sf, F_WRLCK, 6, 1) == 1,
	      "SOURCE: bytes 2-5 are free, 1 and 6 still locked");
	int b = open(vf2, O_RDONLY);
	CHECK(b >= 0 && close(b) == 0, "view: open and close another descriptor of the file");
	CHECK(other_lock(sf, F_WRLCK, 0, 10) == 0,
	      "closing any descriptor dropped the process's locks (POSIX), in SOURCE too");

	/* The other way round: a lock held in SOURCE. */
	h = holder(sf, 100, 100, &rel);
	CHECK(h > 0, "SOURCE: another process holds bytes 100-199");
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 150, .l_len = 1};
	errno = 0;
	int r = fcntl(a, F_SETLK, &l), e = errno;
	CHECK(r == -1 && (e == EAGAIN || e == EACCES), "view: F_SETLK on byte 150 is refused (%s)",
	      strerrorname_np(e));
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 150, .l_len = 1};
	r = fcntl(a, F_GETLK, &l);
	CHECK(r == 0 && l.l_type == F_WRLCK && l.l_pid == h && l.l_start == 100 && l.l_len == 100,
	      "view: F_GETLK names SOURCE's holder (pid %d, want %d; bytes %lld+%lld)",
	      (int)l.l_pid, (int)h, (long long)l.l_start, (long long)l.l_len);
	alarm(30); /* a hang detector, not a timing claim */
	CHECK(write(rel, "d", 1) == 1, "SOURCE: the holder lets go in 300 ms");
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 150, .l_len = 1};
	CHECK_OK(fcntl(a, F_SETLKW, &l), "view: F_SETLKW waits for it and gets the lock");
	alarm(0);
	close(rel);
	CHECK(wait_bounded(h, &st, 30) == 0, "SOURCE: the holder exited");
	CHECK(other_lock(sf, F_WRLCK, 150, 1) == 1, "now SOURCE is refused byte 150");

	/* Interrupted while waiting for a SOURCE lock. */
	h = holder(sf, 300, 10, &rel);
	struct sigaction sa = {0}, old;
	sa.sa_handler = on_signal; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, &old);
	struct itimerval it = {.it_value = {0, 200000}, .it_interval = {0, 200000}};
	setitimer(ITIMER_REAL, &it, NULL);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 300, .l_len = 1};
	errno = 0;
	r = fcntl(a, F_SETLKW, &l);
	e = errno;
	it = (struct itimerval){0};
	setitimer(ITIMER_REAL, &it, NULL);
	sigaction(SIGALRM, &old, NULL);
	CHECK(h > 0 && r == -1 && e == EINTR,
	      "view: F_SETLKW on a lock held in SOURCE is interrupted by a signal (%s)",
	      strerrorname_np(e));
	close(rel);
	wait_bounded(h, &st, 30);

	/* Another thread closes a descriptor of the file while F_SETLKW
	 * waits for a lock held in SOURCE: the process's locks go, but the
	 * waiting request goes on and gets its lock, as natively; if the
	 * descriptor closed is the waiter's own, it fails (EBADF) and
	 * leaves no lock behind. */
	for (int own = 0; own < 2; own++) {
		h = holder(sf, 700, 1, &rel);
		int w = open(vf, O_RDWR), other = open(vf2, O_RDONLY);
		l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 710, .l_len = 1};
		CHECK(h > 0 && w >= 0 && other >= 0 && fcntl(w, F_SETLK, &l) == 0,
		      "view: byte 710 locked, SOURCE holds byte 700 (%s close)", own ? "own" : "other");
		struct closer cl = {.fd = own ? w : other, .release = rel};
		pthread_t thr;
		alarm(30); /* a hang detector */
		int started = pthread_create(&thr, NULL, close_later, &cl) == 0;
		l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 700, .l_len = 1};
		errno = 0;
		r = fcntl(w, F_SETLKW, &l);
		e = errno;
		if (started)
			pthread_join(thr, NULL);
		alarm(0);
		close(rel);
		wait_bounded(h, &st, 30);
		if (!own) {
			CHECK(r == 0, "view: F_SETLKW on byte 700 is granted after another thread "
				      "closed another descriptor (%s)",
			      r ? strerrorname_np(e) : "granted");
			CHECK(other_lock(sf, F_WRLCK, 700, 1) == 1 &&
				      other_lock(sf, F_WRLCK, 710, 1) == 0,
			      "SOURCE: byte 700 held now, 710 let go by the close");
			close(w);
		} else {
			CHECK(r == -1 && e == EBADF,
			      "view: F_SETLKW whose descriptor another thread closed fails (%s)",
			      r ? strerrorname_np(e) : "granted");
			close(other);
		}
		CHECK(other_lock(sf, F_WRLCK, 700, 20) == 0, "and then SOURCE gets bytes 700-719");
	}

	/* A process that exits lets go of its locks. */
	fflush(stdout);
	pid_t k = fork();
	if (k == 0) {
		int c = open(vf2, O_RDWR);
		struct flock x = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 400, .l_len = 10};
		_exit(c >= 0 && fcntl(c, F_SETLK, &x) == 0 && other_lock(sf, F_WRLCK, 405, 1) == 1
			      ? 0
			      : 1);
	}
	CHECK(k > 0 && wait_bounded(k, &st, 30) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "view: a child locks bytes 400-409 (SOURCE refused meanwhile) and exits");
	CHECK(other_lock(sf, F_WRLCK, 400, 10) == 0, "then SOURCE gets bytes 400-409");

	/* OFD locks through the view: SOURCE's too, gone with the last close
	 * (the release reaches the daemon shortly after close() returns). */
	int c = open(vf, O_RDWR);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 500, .l_len = 10};
	CHECK_OK(fcntl(c, F_OFD_SETLK, &l), "view: an OFD lock on bytes 500-509");
	CHECK(other_lock(sf, F_WRLCK, 505, 1) == 1, "SOURCE is refused byte 505");
	close(c);
	int got = 0;
	for (double end = t_now() + 10; !got && t_now() < end; t_sleep_ms(20))
		got = other_lock(sf, F_WRLCK, 500, 10) == 0;
	CHECK(got, "after the last close of its descriptor SOURCE gets bytes 500-509");

	/* The owner's lock file description is read-write, so read and
	 * write locks of one process mix and upgrade. */
	int ro = open(vf2, O_RDONLY);
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 600, .l_len = 10};
	CHECK_OK(fcntl(ro, F_SETLK, &l), "view: read lock on 600-609 through a read-only descriptor");
	CHECK(other_lock(sf, F_RDLCK, 600, 10) == 0 && other_lock(sf, F_WRLCK, 600, 1) == 1,
	      "SOURCE may share it but not write-lock it");
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 600, .l_len = 10};
	CHECK_OK(fcntl(a, F_SETLK, &l), "view: the same process upgrades it to a write lock");
	CHECK(other_lock(sf, F_RDLCK, 600, 1) == 1, "now SOURCE cannot even read-lock it");
	close(ro);
	close(a);
	CHECK(other_lock(sf, F_WRLCK, 0, 0) == 0, "all gone after close: SOURCE locks the whole file");
	sec_lock_coherence(&m);
	t_umount(&m);
	sec_lockcache_keep();
	sec_lock_fine_ctime();
	sec_sqlite();
}

/* Run argv (as the current user), wait; its exit status, or -1. */
static int run_wait(const char *const argv[])
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || wait_bounded(pid, &st, 60) != 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A mount by an unprivileged user, as an fstab line with "user" makes
 * one: the daemon runs as that user and mounts through fusermount3. */

/* mkdir in a folding directory marks the new directory (chattr +F is
 * inherited) after mkdirat, by what the name denotes then.  Someone who
 * may write SOURCE's parent can rename another directory over the new one
 * in between: the mark once landed on it, on a non-empty directory of
 * another user (which chattr +F refuses: its names would change
 * meaning).  Here uid TUID does that, from inotify, while root makes
 * directories through the view. */
static void sec_mkdir_swap(void)
{
	t_section("mkdir in a folding directory while SOURCE's parent is renamed into");
	const char *src = t_newdir("src-mkdir-swap");
	struct t_mount m = {0};
	if (t_mount(&m, src, "timeout=0"))
		return;
	const char *sp = t_path(src, "p"), *victim = t_path(src, "p/victim");
	const char *snew = t_path(src, "p/new"), *vnew = t_path(m.mnt, "p/new");
	char x[8];
	CHECK_OK(mkdir(t_path(m.mnt, "p"), 0777), "mkdir p");
	CHECK_OK(t_set_casefold(t_path(m.mnt, "p"), 1), "chattr +F p");
	CHECK_OK(chmod(sp, 0777), "chmod 0777 p (not sticky)");
	CHECK_OK(mkdir(victim, 0755), "SOURCE: mkdir p/victim");
	CHECK_OK(t_write_file(t_path(victim, "Readme"), "r"), "SOURCE: p/victim/Readme");
	CHECK_OK(chown(t_path(victim, "Readme"), TUID + 1, TUID + 1) || chown(victim, TUID + 1, TUID + 1),
		 "chown p/victim to %d", TUID + 1);
	fflush(stdout);
	pid_t w = fork();
	if (w == 0) {
		char buf[4096];
		int in = inotify_init1(IN_CLOEXEC);
		if (become_user() || in < 0 || inotify_add_watch(in, sp, IN_CREATE | IN_ONLYDIR) < 0)
			_exit(1);
		for (;;) {
			ssize_t l = read(in, buf, sizeof buf);
			for (char *q = buf; l > 0 && q < buf + l;) {
				struct inotify_event *ev = (void *)q;
				q += sizeof *ev + ev->len;
				if (ev->len && !strcmp(ev->name, "new"))
					rename(victim, snew);
			}
		}
	}
	t_track_child(w);
	long tries = 0, swaps = 0, marked = 0;
	struct stat st;
	double end = t_now() + 2;
	while (t_now() < end) {
		tries++;
		mkdir(vnew, 0755);
		if (stat(victim, &st) == 0) {
			rmdir(snew);
			continue;
		}
		swaps++;
		marked += getxattr(snew, "user.foldfs.casefold", x, sizeof x) > 0;
		removexattr(snew, "user.foldfs.casefold");
		rename(snew, victim);
	}
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	/* The watcher may have acted on the last mkdir's event after the
	 * loop's last look (slow under TSan): that swap is put back too. */
	if (stat(victim, &st) != 0 && rename(snew, victim) == 0) {
		swaps++;
		marked += getxattr(victim, "user.foldfs.casefold", x, sizeof x) > 0;
		removexattr(victim, "user.foldfs.casefold");
	}
	if (swaps == 0)
		t_note("no rename came between a mkdir and its mark here");
	CHECK(marked == 0 && stat(victim, &st) == 0,
	      "%ld mkdirs, %ld raced by the rename: the non-empty directory of uid %d marked "
	      "folding %ld times", tries, swaps, TUID + 1, marked);
	CHECK_OK(mkdir(t_path(m.mnt, "p/calm"), 0755), "mkdir p/calm, nobody renaming");
	CHECK(t_has_casefold(t_path(m.mnt, "p/calm")) == 1, "p/calm inherited F");
	t_umount(&m);
}

/*
 * What the daemon calls that it need not, counted with strace attached
 * to it over create+write+close+rename+unlink loops in a folding
 * directory:
 *  - FLUSH (each close) on a SOURCE whose file system does nothing at
 *    close (ext4, tmpfs, xfs) has no deferred error to fetch: no dup();
 *  - the caller's umask, set per thread, needs setting only when it
 *    changes, and rename and unlink need none (nor do they carry one): no
 *    umask() for the same umask;
 *  - reading inotify events needs FIONREAD only when one read does not
 *    take them all: no ioctl() for a few events;
 *  - a write looks at its descriptor's O_APPEND only while one of the
 *    daemon's is open so (an append-only file): none is once such a file
 *    was closed, so no fcntl() -- but the lock and unlock of the record
 *    around each create and rename (fs/xlock.c), counted apart: two per
 *    change, the whole cost of serializing with other mounts.
 */
static void sec_daemon_syscalls(void)
{
	t_section("create+write+close+rename+unlink: no dup, umask, FIONREAD or fcntl each time");
	int n_xlock = 0;
	const char *src = t_newdir("src-syscalls");
	char out[4200], buf[4096], pid[16], name[32], name2[32];
	struct t_mount m = {0};
	struct statfs sf;
	enum { LOOPS = 100, NCALLS = 4 };
	const char *calls[NCALLS] = {"dup", "umask", "ioctl", "fcntl"};
	int n_calls[NCALLS] = {-1, -1, -1, -1}, bad = 0, status;
	if (statfs(src, &sf) < 0 ||
	    (sf.f_type != 0xEF53 && sf.f_type != 0x01021994 &&
	     sf.f_type != 0x58465342)) {
		t_skip("daemon_syscalls: scratch root is not ext4, tmpfs or xfs");
		return;
	}
	if (access("/usr/bin/strace", X_OK) != 0) {
		t_skip("daemon_syscalls: no /usr/bin/strace");
		return;
	}
	mkdir(t_path(src, "d"), 0755);
	/* one worker: each request meets the umask the one before it left
	 * (with many, a call that changed it may hide in another thread) */
	m.single = 1;
	if (t_mount(&m, src, "casefold,watch=inotify") || !m.pid) {
		CHECK(0, "mount with a known daemon pid");
		return;
	}
	struct stat st;
	CHECK_OK(stat(t_path(m.mnt, "D"), &st), "view: D (root indexed)");
	CHECK(stat(t_path(m.mnt, "d/X"), &st) < 0 && errno == ENOENT,
	      "view: d/X is not there (d indexed)");
	/* an append-only file opened O_APPEND (counted), written, closed */
	const char *alog = t_path(m.mnt, "alog");
	int afl = 0, afd;
	CHECK_OK(t_write_file(alog, "a"), "alog");
	afd = open(alog, O_RDONLY | O_CLOEXEC);
	if (afd >= 0 && ioctl(afd, FS_IOC_GETFLAGS, &afl) == 0 &&
	    ioctl(afd, FS_IOC_SETFLAGS, &(int){afl | FS_APPEND_FL}) == 0) {
		int w = open(alog, O_WRONLY | O_APPEND | O_CLOEXEC);
		CHECK(w >= 0 && write(w, "b", 1) == 1 && close(w) == 0,
		      "chattr +a alog, open O_APPEND, write, close");
		ioctl(afd, FS_IOC_SETFLAGS, &afl);
	} else {
		t_note("no append-only flag here (%s)", strerror(errno));
	}
	if (afd >= 0)
		close(afd);
	snprintf(out, sizeof out, "%s", t_path(src, "../syscalls-strace"));
	snprintf(pid, sizeof pid, "%d", (int)m.pid);
	fflush(stdout);
	pid_t tr = fork();
	if (tr == 0) {
		/* each call, not a summary: fcntl's commands are told apart */
		execl("/usr/bin/strace", "strace", "-f", "-qq", "-e",
		      "trace=dup,umask,ioctl,fcntl", "-o", out, "-p", pid, (char *)NULL);
		_exit(127);
	}
	t_track_child(tr);
	/* strace -p has attached once the daemon shows a tracer */
	for (int i = 0; i < 200; i++) {
		int traced = 0;
		snprintf(buf, sizeof buf, "/proc/%d/status", (int)m.pid);
		FILE *f = fopen(buf, "re");
		while (f && fgets(buf, sizeof buf, f))
			if (!strncmp(buf, "TracerPid:", 10))
				traced = atoi(buf + 10) != 0;
		if (f)
			fclose(f);
		if (traced)
			break;
		t_sleep_ms(10);
	}
	t_sleep_ms(200);
	/* a real umask, which a rename carrying none must not undo */
	mode_t um = umask(022);
	for (int i = 0; i < LOOPS; i++) {
		snprintf(name, sizeof name, "d/n%d", i);
		snprintf(name2, sizeof name2, "d/N%d-renamed", i);
		const char *p = t_path(m.mnt, name), *p2 = t_path(m.mnt, name2);
		int fd = open(p, O_CREAT | O_EXCL | O_RDWR, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) < 0 ||
		    rename(p, p2) < 0 || unlink(p2) < 0)
			bad++;
	}
	umask(um);
	t_sleep_ms(200);
	kill(tr, SIGINT);
	waitpid(tr, &status, 0);
	/* one line a call ("PID name(...", a call another thread cut into
	 * goes on in a "<... name resumed>" line, not counted) */
	FILE *f = fopen(out, "re");
	for (int i = 0; i < NCALLS; i++)
		if (f && !(WIFEXITED(status) && WEXITSTATUS(status) == 127))
			n_calls[i] = 0;
	while (f && fgets(buf, sizeof buf, f)) {
		for (int i = 0; i < NCALLS; i++) {
			char call[40];
			snprintf(call, sizeof call, " %s(", calls[i]);
			if (!strstr(buf, call))
				continue;
			if (!strcmp(calls[i], "fcntl") && strstr(buf, "F_OFD_SETLK"))
				n_xlock++;
			else
				n_calls[i]++;
		}
	}
	if (f)
		fclose(f);
	CHECK(!bad, "%d create+write+close+rename+unlink loops through the view: %d failed",
	      LOOPS, bad);
	for (int i = 0; i < NCALLS; i++)
		CHECK(n_calls[i] >= 0 && n_calls[i] < LOOPS / 10,
		      "%d loops: %d %s() in the daemon", LOOPS, n_calls[i],
		      calls[i]);
	/* a lock and an unlock for the create, the same for the rename */
	CHECK(n_xlock <= 4 * LOOPS, "%d loops: %d fcntl(F_OFD_SETLK) on the record (at most %d)",
	      LOOPS, n_xlock, 4 * LOOPS);
	t_umount(&m);
}

static void sec_user_mount(void)
{
	static const char fusermount[] = "/usr/bin/fusermount3";
	char base[] = "/tmp/foldfs-usermount.XXXXXX", src[64], mnt[64];
	struct stat fst, mst;
	int widened = 0, made_mtab = 0, st;
	/* fusermount3 wants a user name: an account that exists everywhere */
	struct passwd *pw = getpwnam("nobody");

	t_section("a mount by an unprivileged user (fusermount3)");
	if (!pw || !pw->pw_uid) {
		t_skip("no user 'nobody': user mounts not tested");
		return;
	}
	uid_t uid = pw->pw_uid;
	gid_t gid = pw->pw_gid;
	if (stat("/dev/fuse", &fst) != 0 || access(fusermount, X_OK) != 0) {
		t_skip("no /dev/fuse or %s: user mounts not tested", fusermount);
		return;
	}
	if (!mkdtemp(base) || chmod(base, 0755) != 0) {
		CHECK(0, "scratch directory for the user mount: %s", strerror(errno));
		return;
	}
	snprintf(src, sizeof src, "%s/src", base);
	snprintf(mnt, sizeof mnt, "%s/mnt", base);
	CHECK(mkdir(src, 0755) == 0 && mkdir(mnt, 0755) == 0 && chown(src, uid, gid) == 0 &&
		      chown(mnt, uid, gid) == 0,
	      "SOURCE and mount point owned by uid %d", (int)uid);
	/* Debian's udev rule makes /dev/fuse 0666; this machine may not. */
	if ((fst.st_mode & 0006) != 0006) {
		widened = chmod("/dev/fuse", (fst.st_mode & 07777) | 0666) == 0;
		t_note("/dev/fuse widened to 0666 for the test (was %04o)",
		       (unsigned)(fst.st_mode & 07777));
	}
	/* fusermount3 -u lets a user unmount only what /etc/mtab lists as
	 * theirs; Debian's systemd links it to /proc/self/mounts at boot, a
	 * chroot or container without systemd has no /etc/mtab at all. */
	if (lstat("/etc/mtab", &mst) != 0 && errno == ENOENT) {
		made_mtab = symlink("../proc/self/mounts", "/etc/mtab") == 0;
		t_note("no /etc/mtab: %s", made_mtab ? "linked to ../proc/self/mounts for the test"
						     : strerror(errno));
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
			CHECK(0, "setresuid to %d: %s", (int)uid, strerror(errno));
			_exit(1);
		}
		if (access(t_opt.foldfs, X_OK) != 0) {
			/* e.g. the build tree is private to root */
			t_skip("%s is not executable by uid %d: user mounts not tested",
			       t_opt.foldfs, (int)uid);
			_exit(0);
		}
		const char *mount_argv[] = {t_opt.foldfs, src, mnt, "-o", "casefold", NULL};
		int r = run_wait(mount_argv);
		CHECK(r == 0, "uid %d: foldfs SOURCE MOUNTPOINT -o casefold mounts and "
			      "daemonizes (exit %d)", (int)uid, r);
		if (r != 0)
			_exit(1);
		struct stat a, b, c;
		CHECK_OK(t_write_file(t_path(mnt, "Foo.TXT"), "mine"), "uid %d: create Foo.TXT", (int)uid);
		CHECK(stat(t_path(mnt, "FOO.txt"), &a) == 0 && stat(t_path(mnt, "Foo.TXT"), &b) == 0 &&
			      a.st_ino == b.st_ino,
		      "uid %d: FOO.txt finds Foo.TXT", (int)uid);
		CHECK(stat(t_path(src, "Foo.TXT"), &c) == 0 && c.st_uid == uid,
		      "SOURCE: Foo.TXT stored as written, owned by uid %d", (int)uid);
		CHECK(stat(t_path(src, ".foldfs"), &c) == 0 && c.st_uid == uid,
		      "SOURCE: the encoding record was written by the user's daemon");
		const char *umount_argv[] = {fusermount, "-u", mnt, NULL};
		r = run_wait(umount_argv);
		CHECK(r == 0, "uid %d: fusermount3 -u unmounts (exit %d)", (int)uid, r);
		/* Per-directory folding by a daemon without CAP_DAC_OVERRIDE:
		 * a read-only new subdirectory of a folding one inherits the
		 * attribute, and the owner may flag an empty read-only
		 * directory (ext4 asks only ownership), modes unchanged. */
		const char *mount2_argv[] = {t_opt.foldfs, src, mnt, NULL};
		r = run_wait(mount2_argv);
		CHECK(r == 0, "uid %d: mounted again without -o casefold (exit %d)", (int)uid, r);
		if (r != 0)
			_exit(1);
		CHECK_OK(mkdir(t_path(mnt, "F"), 0755), "uid %d: mkdir F", (int)uid);
		CHECK_OK(t_set_casefold(t_path(mnt, "F"), 1), "uid %d: chattr +F F", (int)uid);
		CHECK_OK(mkdir(t_path(mnt, "F/ro"), 0555), "uid %d: mkdir -m 555 F/ro", (int)uid);
		CHECK(t_has_casefold(t_path(mnt, "F/ro")) == 1 &&
			      stat(t_path(src, "F/ro"), &c) == 0 && (c.st_mode & 07777) == 0555,
		      "uid %d: F/ro inherits the casefold flag, mode 0555 kept", (int)uid);
		CHECK_OK(mkdir(t_path(mnt, "ro2"), 0555), "uid %d: mkdir -m 555 ro2", (int)uid);
		CHECK_OK(t_set_casefold(t_path(mnt, "ro2"), 1),
			 "uid %d: chattr +F on the own empty 0555 ro2", (int)uid);
		CHECK(t_has_casefold(t_path(mnt, "ro2")) == 1 &&
			      stat(t_path(src, "ro2"), &c) == 0 && (c.st_mode & 07777) == 0555,
		      "uid %d: ro2 folds, mode 0555 kept", (int)uid);
		r = run_wait(umount_argv);
		CHECK(r == 0, "uid %d: unmounted again (exit %d)", (int)uid, r);
		_exit(0);
	}
	CHECK(pid > 0 && wait_bounded(pid, &st, 120) == 0 && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0,
	      "the user's session finished");
	if (widened)
		chmod("/dev/fuse", fst.st_mode & 07777);
	if (made_mtab)
		unlink("/etc/mtab");
	/* the daemon exits once unmounted; a failed run may leave the mount */
	for (int i = 0; i < 100 && t_is_mounted(mnt); i++) {
		if (i == 50)
			umount2(mnt, MNT_DETACH);
		t_sleep_ms(100);
	}
	CHECK(!t_is_mounted(mnt), "nothing left mounted");
	unlink(t_path(src, "Foo.TXT"));
	unlink(t_path(src, ".foldfs"));
	rmdir(t_path(src, "F/ro"));
	rmdir(t_path(src, "F"));
	rmdir(t_path(src, "ro2"));
	rmdir(src);
	rmdir(mnt);
	rmdir(base);
}

/* Direct I/O in a loop on one open file of the view until *stop; counts
 * failures. */
struct dio_loop {
	int fd;
	atomic_int *stop;
	atomic_int failed;
};

static void *dio_loop(void *arg)
{
	struct dio_loop *d = arg;
	void *b = NULL;

	if (posix_memalign(&b, 4096, 4096) != 0)
		return NULL;
	memset(b, 'D', 4096);
	while (!atomic_load(d->stop))
		if (pwrite(d->fd, b, 4096, 1 << 20) != 4096 || pread(d->fd, b, 4096, 1 << 20) != 4096)
			atomic_fetch_add(&d->failed, 1);
	free(b);
	return NULL;
}

/* One O_APPEND|O_DIRECT write of 8 MiB, more than max_write: the kernel
 * sends it in pieces, which must land in order (until session 36 they
 * were sent at once and each appended where SOURCE ended: shuffled). */
static void direct_append(struct t_mount *m)
{
	const size_t len = 8 << 20, blk = 128 << 10;
	unsigned char *buf = NULL, *back = NULL;
	size_t i, wrong = 0;
	if (posix_memalign((void **)&buf, 4096, len) || posix_memalign((void **)&back, 4096, len)) {
		CHECK(0, "memory for the O_APPEND|O_DIRECT write");
		goto out;
	}
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i / blk * 7 + 1);
	int fd = open(t_path(m->mnt, "dio-app"),
		      O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_DIRECT | O_CLOEXEC, 0644);
	errno = 0;
	ssize_t w = fd >= 0 ? write(fd, buf, len) : -1;
	CHECK(w == (ssize_t)len, "one O_APPEND|O_DIRECT write of 8 MiB (%zd, %s)", w,
	      strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = open(t_path(m->src, "dio-app"), O_RDONLY | O_CLOEXEC);
	ssize_t r = fd >= 0 ? read(fd, back, len) : -1;
	if (fd >= 0)
		close(fd);
	for (i = 0; r == (ssize_t)len && i < len; i += blk)
		wrong += memcmp(buf + i, back + i, blk) != 0;
	CHECK(r == (ssize_t)len && !wrong,
	      "SOURCE holds its 64 pieces of 128 KiB in order (%zu of 64 misplaced)", wrong);
out:
	free(buf);
	free(back);
}

/* A file opened O_DIRECT and also mapped: pages written back from the
 * mapping are not direct (unaligned: EINVAL if they were) and the daemon
 * gets them through the same open file as the direct requests, at the
 * same time. */
static void direct_and_mapped(struct t_mount *m)
{
	enum { NDIO = 4 };
	struct dio_loop d[NDIO];
	pthread_t thr[NDIO];
	atomic_int stop = 0;
	int started = 0, bad = 0, rounds = 0, failed = 0;
	char *buf = malloc(65537);
	int fd = open(t_path(m->mnt, "dio-map"), O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
	char *map = MAP_FAILED;
	if (fd >= 0 && ftruncate(fd, 2 << 20) == 0)
		map = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(buf && map != MAP_FAILED, "an O_DIRECT file, mapped shared")) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return;
	}
	for (; started < NDIO; started++) {
		d[started].fd = fd;
		d[started].stop = &stop;
		atomic_init(&d[started].failed, 0);
		if (pthread_create(&thr[started], NULL, dio_loop, &d[started]) != 0)
			break;
	}
	/* a few seconds, or until the first failure */
	for (double end = t_now() + 4; t_now() < end && !bad; rounds++) {
		memset(map, 'a' + rounds % 26, 65536);
		bad = msync(map, 65536, MS_SYNC) != 0;
		for (int i = 0; i < started; i++)
			bad |= atomic_load(&d[i].failed) != 0;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < started; i++) {
		pthread_join(thr[i], NULL);
		failed += atomic_load(&d[i].failed);
	}
	CHECK(!bad && !failed,
	      "direct I/O by %d threads while the mapping is written back: %d rounds, "
	      "msync %s, %d direct requests failed",
	      started, rounds, bad ? "or a direct request failed" : "fine", failed);
	munmap(map, 65536);
	close(fd);
	ssize_t n = t_read_file(t_path(m->src, "dio-map"), buf, 65537);
	int same = n == 65536;
	for (ssize_t i = 0; same && i < n; i++)
		same = buf[i] == 'a' + (rounds - 1) % 26;
	CHECK(same, "SOURCE holds what was last written through the mapping");
	free(buf);
}

/* The data path as a passthrough, where the view once differed from
 * SOURCE natively: whether a write appends is the writer's file flag at
 * the time (F_SETFL), and a page written back from a mapping belongs at
 * its offset even in a file opened O_APPEND; O_DIRECT writes work;
 * chown(f, -1, -1) changes the ctime; a lookup leaves the directory's
 * access time alone. */
static void sec_data_path(void)
{
	t_section("data path: O_APPEND and mmap/F_SETFL, O_DIRECT, empty chown, atime");
	struct t_mount m = {0};
	char buf[16384];
	struct stat a, b;
	if (t_mount(&m, t_newdir("src-data"), "casefold"))
		return;
	/* a shared mapping of an O_APPEND file, written and synced */
	const char *f = t_path(m.mnt, "mm");
	int fd = open(f, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	memset(buf, 'a', 8192);
	CHECK(fd >= 0 && write(fd, buf, 8192) == 8192, "O_APPEND file of 8192 bytes");
	char *map = fd >= 0 ? mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (CHECK(map != MAP_FAILED, "mmap it")) {
		memcpy(map, "HELLO", 5);
		CHECK_OK(msync(map, 8192, MS_SYNC), "msync");
		munmap(map, 8192);
	}
	if (fd >= 0)
		close(fd);
	ssize_t n = t_read_file(t_path(m.src, "mm"), buf, sizeof buf);
	CHECK(n == 8192 && !memcmp(buf, "HELLOaaa", 8),
	      "SOURCE: the page landed at offset 0, size 8192 (size %zd, starts '%.5s')", n, buf);
	/* O_APPEND cleared by F_SETFL: positional writes again */
	f = t_path(m.mnt, "setfl");
	fd = open(f, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && write(fd, "aaaa", 4) == 4 && fcntl(fd, F_SETFL, 0) == 0 &&
		      pwrite(fd, "XX", 2, 0) == 2 && lseek(fd, 1, SEEK_SET) == 1 &&
		      write(fd, "Y", 1) == 1,
	      "O_APPEND write, F_SETFL 0, pwrite at 0, write at 1");
	if (fd >= 0)
		close(fd);
	n = t_read_file(t_path(m.src, "setfl"), buf, sizeof buf);
	CHECK(n == 4 && !memcmp(buf, "XYaa", 4), "SOURCE holds XYaa (%zd bytes: '%.*s')", n,
	      (int)(n > 0 ? n : 0), buf);
	/* An append-only file: the kernel lets F_SETFL clear O_APPEND of a
	 * view descriptor (it does not know the attribute), but a write that
	 * follows must not land anywhere but at the end: it fails, as a
	 * positional write (RWF_NOAPPEND) to such a file does natively.
	 * Once chattr -a removed the attribute, positional writes work. */
	f = t_path(m.mnt, "alog");
	int afl = 0;
	CHECK_OK(t_write_file(f, "hello"), "alog");
	fd = open(f, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &afl) == 0 &&
	    ioctl(fd, FS_IOC_SETFLAGS, &(int){afl | FS_APPEND_FL}) == 0) {
		int w = open(f, O_RDWR | O_APPEND | O_CLOEXEC);
		CHECK(w >= 0 && fcntl(w, F_SETFL, 0) >= 0 && lseek(w, 0, SEEK_SET) == 0,
		      "chattr +a alog, open O_APPEND, F_SETFL 0, lseek 0");
		CHECK_ERR(write(w, "XY", 2), EPERM, "a write at offset 0 of append-only alog");
		CHECK_ERR(pwrite(w, "XY", 2, 1), EPERM, "a pwrite at offset 1");
		n = t_read_file(t_path(m.src, "alog"), buf, sizeof buf);
		CHECK(n == 5 && !memcmp(buf, "hello", 5),
		      "SOURCE's alog unchanged (%zd bytes: '%.*s')", n, (int)(n > 0 ? n : 0), buf);
		CHECK_OK(ioctl(fd, FS_IOC_SETFLAGS, &afl), "chattr -a alog");
		CHECK(pwrite(w, "XY", 2, 0) == 2, "then a pwrite at 0 through the same descriptor");
		n = t_read_file(t_path(m.src, "alog"), buf, sizeof buf);
		CHECK(n == 5 && !memcmp(buf, "XYllo", 5),
		      "SOURCE holds XYllo (%zd bytes: '%.*s')", n, (int)(n > 0 ? n : 0), buf);
		if (w >= 0)
			close(w);
	} else {
		t_skip("no append-only flag here (%s)", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	/* O_DIRECT: an aligned write, where SOURCE takes one natively */
	void *al = NULL;
	if (posix_memalign(&al, 4096, 8192) == 0) {
		memset(al, 'd', 8192);
		int nfd = open(t_path(m.src, "dio-native"), O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
		int native = nfd >= 0 && write(nfd, al, 8192) == 8192;
		if (nfd >= 0)
			close(nfd);
		if (!native) {
			t_skip("SOURCE takes no O_DIRECT write here (%s)", strerror(errno));
		} else {
			fd = open(t_path(m.mnt, "dio"), O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
			errno = 0;
			CHECK(fd >= 0 && write(fd, al, 8192) == 8192,
			      "an aligned O_DIRECT write of 8192 bytes (%s)", strerror(errno));
			if (fd >= 0)
				close(fd);
			direct_append(&m);
			direct_and_mapped(&m);
		}
		free(al);
	}
	/* chown(f, -1, -1) changes the ctime */
	f = t_path(m.mnt, "own");
	CHECK_OK(t_write_file(f, "o"), "own");
	stat(t_path(m.src, "own"), &a);
	t_sleep_ms(20);
	CHECK_OK(chown(f, (uid_t)-1, (gid_t)-1), "chown own -1 -1");
	stat(t_path(m.src, "own"), &b);
	CHECK(b.st_ctim.tv_sec != a.st_ctim.tv_sec || b.st_ctim.tv_nsec != a.st_ctim.tv_nsec,
	      "its ctime changed in SOURCE, as natively");
	/* a failed lookup (which builds the fold index) leaves atime alone */
	CHECK_OK(mkdir(t_path(m.mnt, "ad"), 0755), "mkdir ad");
	struct timespec old[2] = {{978307200, 0}, {0, UTIME_OMIT}}; /* 2001-01-01 */
	CHECK_OK(utimensat(AT_FDCWD, t_path(m.src, "ad"), old, 0), "SOURCE: ad's atime set to 2001");
	CHECK_ERR(stat(t_path(m.mnt, "ad/NOPE"), &a), ENOENT, "lookup ad/NOPE");
	stat(t_path(m.src, "ad"), &b);
	CHECK(b.st_atim.tv_sec == 978307200, "ad's atime still 2001 (%ld)", (long)b.st_atim.tv_sec);
	t_umount(&m);
}

/* Does the kernel take FUSE_NOTIFY_PRUNE (Linux 6.18)? */
static int have_prune(void)
{
	struct utsname u;
	int maj = 0, min = 0;
	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &maj, &min) != 2 ||
	    maj * 100 + min < 618) {
		t_skip("Linux %s has no FUSE_NOTIFY_PRUNE (6.18)", u.release);
		return 0;
	}
	return 1;
}

/* The daemon keeps a descriptor per node the kernel caches.  Given a
 * limit of 256, it must still walk a tree of 900 files: with
 * FUSE_NOTIFY_PRUNE (Linux 6.18) it asks the kernel to drop unused
 * inodes (prune.c).  Before, every lookup past the limit failed EMFILE.
 * Single-threaded too: there a lookup that meets the limit cannot wait
 * for the FORGETs, so pruning must keep ahead of a fast walk (it once
 * paused 50 ms after every round, and half the stats failed). */
/* With -s a lookup that meets the descriptor limit fails EMFILE: its one
 * worker cannot wait for the pruning round it asks for (foldfs(8)), and
 * how often a fast walk outruns that round depends on the machine's load.
 * What is promised is that the next requests find room: such a failure is
 * repeated (counted in *emfile) and only one that does not then succeed
 * counts.  Without -s nothing is excused.  r: the call's result (< 0:
 * failed, errno set). */
static int nofile_again(int single, long r, int tries, long *emfile)
{
	if (r >= 0 || !single || errno != EMFILE || tries >= 200)
		return 0;
	if (tries == 0)
		++*emfile;
	t_sleep_ms(5);
	return 1;
}

static void sec_nofile(int single)
{
	t_section("a tree larger than the daemon's descriptor limit (FUSE_NOTIFY_PRUNE)%s",
		  single ? ", -s" : "");
	if (!have_prune())
		return;
	enum { NF = 900, HELD = 60 };
	const char *src = t_newdir(single ? "src-nofile-s" : "src-nofile");
	char p[4600], buf[64], want[64];
	struct stat st;
	CHECK_OK(mkdir(t_path(src, "big"), 0755), "SOURCE: mkdir big");
	for (int i = 0; i < NF; i++) {
		snprintf(p, sizeof p, "%s/big/f%04d", src, i);
		snprintf(want, sizeof want, "file %d", i);
		if (t_write_file(p, want) != 0) {
			CHECK(0, "SOURCE: create %s", p);
			return;
		}
	}
	struct t_mount m = {0};
	m.nofile = 256;
	m.single = single;
	if (t_mount(&m, src, "casefold"))
		return;
	long bad = 0, emfile = 0, r;
	int err = 0;
	for (int i = 0; i < NF; i++) {
		snprintf(p, sizeof p, "%s/BIG/F%04d", m.mnt, i);
		for (int t = 0; nofile_again(single, r = stat(p, &st), t, &emfile); t++)
			;
		if (r != 0 && ++bad == 1)
			err = errno;
	}
	CHECK(bad == 0, "stat of %d files as BIG/F0000..., daemon limit 256: %ld failed (first: %s)",
	      NF, bad, bad ? strerror(err) : "-");
	/* ls -l: readdir(plus), then a stat of each name */
	DIR *dir = opendir(t_path(m.mnt, "big"));
	long seen = 0;
	bad = 0;
	if (CHECK(dir != NULL, "opendir big")) {
		struct dirent *de;
		while ((de = readdir(dir))) {
			if (de->d_name[0] == '.')
				continue;
			seen++;
			for (int t = 0; nofile_again(single,
						     r = fstatat(dirfd(dir), de->d_name, &st,
								 AT_SYMLINK_NOFOLLOW),
						     t, &emfile);
			     t++)
				;
			if (r != 0 && ++bad == 1)
				err = errno;
		}
		closedir(dir);
	}
	CHECK(seen == NF && bad == 0, "readdir + fstatat: %ld of %d listed, %ld failed (first: %s)",
	      seen, NF, bad, bad ? strerror(err) : "-");
	/* reading every file while some are held open */
	int held[HELD];
	for (int i = 0; i < HELD; i++) {
		snprintf(p, sizeof p, "%s/big/F%04d", m.mnt, i);
		for (int t = 0;
		     nofile_again(single, held[i] = open(p, O_RDONLY | O_CLOEXEC), t, &emfile); t++)
			;
	}
	bad = 0;
	for (int i = 0; i < NF; i++) {
		snprintf(p, sizeof p, "%s/Big/F%04d", m.mnt, i);
		snprintf(want, sizeof want, "file %d", i);
		ssize_t n;
		for (int t = 0; nofile_again(single, n = t_read_file(p, buf, sizeof buf), t, &emfile);
		     t++)
			;
		if ((n < 0 || strcmp(buf, want) != 0) && ++bad == 1)
			err = n < 0 ? errno : 0;
	}
	long open_ok = 0;
	for (int i = 0; i < HELD; i++) {
		if (held[i] >= 0) {
			open_ok++;
			close(held[i]);
		}
	}
	CHECK(open_ok == HELD && bad == 0,
	      "%ld of %d held open; read each of %d files by another spelling: %ld wrong or failed "
	      "(first: %s)", open_ok, HELD, NF, bad, bad ? strerror(err) : "-");
	if (single)
		t_note("-s: %ld requests met the limit (EMFILE) and succeeded when repeated", emfile);
	t_umount(&m);
}

/* A negative dentry (a miss, even one answered with an error, or a
 * removed name) stays in the kernel's dcache and keeps its directory's
 * inode, which no FUSE_NOTIFY_PRUNE can then drop.  In plain directories
 * -- most of a default mount -- a miss or an rm in each of 600
 * directories once kept the daemon at its limit for good, failing
 * lookups there and everywhere after with EMFILE. */
static void sec_nofile_negative(void)
{
	t_section("misses and removals in many directories, daemon limit 256");
	if (!have_prune())
		return;
	enum { ND = 600 };
	const char *src = t_newdir("src-nofile-neg");
	char p[4600];
	struct stat st;
	for (int i = 0; i < ND; i++) {
		snprintf(p, sizeof p, "%s/d%03d", src, i);
		if (mkdir(p, 0755) != 0 || t_write_file(t_path(p, "f"), "f") != 0) {
			CHECK(0, "SOURCE: make %s/f", p);
			return;
		}
	}
	struct t_mount m = {0};
	m.nofile = 256;
	if (t_mount(&m, src, ""))
		return;
	long bad = 0, emfile = 0;
	for (int i = 0; i < ND; i++) {
		snprintf(p, sizeof p, "%s/d%03d/nope", m.mnt, i);
		errno = 0;
		if (stat(p, &st) == 0 || errno != ENOENT) {
			bad++;
			emfile += errno == EMFILE;
		}
	}
	CHECK(bad == 0, "stat of a missing name in each of %d directories: %ld not ENOENT "
	      "(%ld EMFILE)", ND, bad, emfile);
	bad = emfile = 0;
	for (int i = 0; i < ND; i++) {
		snprintf(p, sizeof p, "%s/d%03d/tmp", m.mnt, i);
		errno = 0;
		if (t_write_file(p, "t") != 0 || unlink(p) != 0) {
			bad++;
			emfile += errno == EMFILE;
		}
	}
	CHECK(bad == 0, "create and remove a file in each directory: %ld failed (%ld EMFILE)",
	      bad, emfile);
	bad = emfile = 0;
	for (int i = 0; i < ND; i++) {
		snprintf(p, sizeof p, "%s/d%03d/f", m.mnt, i);
		errno = 0;
		if (stat(p, &st) != 0) {
			bad++;
			emfile += errno == EMFILE;
		}
	}
	CHECK(bad == 0, "then stat of each directory's file: %ld failed (%ld EMFILE)", bad,
	      emfile);
	t_umount(&m);
}

/* The daemon's descriptors below its limit (one it inherited above it
 * takes no slot). */
static int daemon_fds(pid_t pid, long lim)
{
	char p[64];
	int n = 0;
	struct dirent *de;
	snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(p);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.' && atol(de->d_name) < lim;
	closedir(d);
	return n;
}

/* Does the daemon hold a descriptor of SOURCE's `name` open O_DIRECT? */
static int daemon_has_direct(pid_t pid, const char *name)
{
	char p[320], lnk[4200], line[256];
	int found = 0;
	struct dirent *de;
	snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(p);
	while (d && !found && (de = readdir(d))) {
		snprintf(p, sizeof p, "/proc/%d/fd/%s", (int)pid, de->d_name);
		ssize_t n = readlink(p, lnk, sizeof lnk - 1);
		size_t l = strlen(name);
		if (n < (ssize_t)l + 1 || lnk[n - l - 1] != '/' || memcmp(lnk + n - l, name, l))
			continue;
		snprintf(p, sizeof p, "/proc/%d/fdinfo/%s", (int)pid, de->d_name);
		FILE *f = fopen(p, "re");
		while (f && fgets(line, sizeof line, f))
			if (!strncmp(line, "flags:", 6) && (strtol(line + 6, NULL, 8) & O_DIRECT))
				found = 1;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* Fill the daemon's descriptor table up to `spare` free slots: first
 * cached nodes nobody uses (3/8 of the limit: more than a pruning round
 * aims for, too few to start one), then the same file opened again and
 * again, which makes no node.  A round can then free descriptors, as it
 * can whenever the table is between a quarter and half full. */
static int fill_fds(struct t_mount *m, long lim, int spare, int *held, int cap)
{
	struct stat st;
	int n = 0;
	for (long i = 0; i < lim * 3 / 8; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "pool/p%03ld", i);
		stat(t_path(m->mnt, nm), &st);
	}
	/* again after a pause: a worker may have closed a pipe meanwhile */
	for (int round = 0; round < 3; round++) {
		int c;
		while ((c = daemon_fds(m->pid, lim)) >= 0 && c < lim - spare && n < cap &&
		       (held[n] = open(t_path(m->mnt, "hold"), O_RDONLY | O_CLOEXEC)) >= 0)
			n++;
		t_sleep_ms(50);
	}
	return n;
}

/* SOURCE for the full-table sections: pool/p000.. (n files to stat,
 * which become cached nodes) and "hold".  0, or -1 (said). */
static int nofile_pool(const char *src, int n)
{
	char nm[32];
	CHECK_OK(mkdir(t_path(src, "pool"), 0755), "SOURCE: mkdir pool");
	for (int i = 0; i < n; i++) {
		snprintf(nm, sizeof nm, "pool/p%03d", i);
		if (t_write_file(t_path(src, nm), "p") != 0) {
			CHECK(0, "SOURCE: create %s", nm);
			return -1;
		}
	}
	CHECK_OK(t_write_file(t_path(src, "hold"), "h"), "SOURCE: hold");
	return 0;
}

/* Requests that need a descriptor of their own, made while the daemon's
 * table is full, partly of cached files nobody uses: like a lookup or an
 * open, each must wait for a pruning round rather than fail -- natively
 * none of them fails for want of a descriptor.  A lock once failed
 * EMFILE, a close(2) EMFILE (the FLUSH's dup), chattr +F EMFILE (the
 * emptiness check's opendir), and an O_DIRECT request went through the
 * cache, and every later one of that open file too. */
static void sec_nofile_full(void)
{
	t_section("a lock, close, O_DIRECT, chattr +F with the daemon's table full");
	if (!have_prune())
		return;
	enum { LIM = 256, NPOOL = LIM * 3 / 8 };
	const char *src = t_newdir("src-nofile-full");
	int held[LIM], nh;
	struct stat st;
	if (nofile_pool(src, NPOOL))
		return;
	CHECK_OK(mkdir(t_path(src, "empty"), 0755), "SOURCE: mkdir empty");
	struct t_mount m = {0};
	m.nofile = LIM;
	if (t_mount(&m, src, ""))
		return;
	if (!CHECK(m.pid > 0 && daemon_fds(m.pid, LIM) > 0, "the daemon's descriptors are visible")) {
		t_umount(&m);
		return;
	}

	/* a POSIX lock: the owner's own description */
	int fd = open(t_path(m.mnt, "lk"), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	nh = fill_fds(&m, LIM, 0, held, LIM);
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	CHECK_OK(fcntl(fd, F_SETLK, &l), "F_SETLK with the table full (%d held)", nh);
	while (nh)
		close(held[--nh]);
	close(fd);

	/* close(2): FLUSH */
	fd = open(t_path(m.mnt, "cl"), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	nh = fill_fds(&m, LIM, 0, held, LIM);
	CHECK_OK(close(fd), "close() with the table full (%d held)", nh);
	long bad = 0;
	while (nh)
		bad += close(held[--nh]) != 0;
	CHECK(bad == 0, "and the closes of the files held open: %ld failed", bad);

	/* O_DIRECT: the request's own descriptor */
	void *al = NULL;
	fd = open(t_path(m.mnt, "dio"), O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
	if (fd >= 0 && posix_memalign(&al, 4096, 4096) == 0) {
		memset(al, 'd', 4096);
		if (pwrite(fd, al, 4096, 0) != 4096 || !daemon_has_direct(m.pid, "dio")) {
			t_skip("SOURCE takes no O_DIRECT write here (%s)", strerror(errno));
		} else {
			/* a fresh open file, no direct descriptor yet */
			close(fd);
			fd = open(t_path(m.mnt, "dio"), O_RDWR | O_DIRECT | O_CLOEXEC);
			nh = fill_fds(&m, LIM, 0, held, LIM);
			CHECK(pwrite(fd, al, 4096, 4096) == 4096,
			      "an O_DIRECT write with the table full (%d held)", nh);
			while (nh)
				close(held[--nh]);
			CHECK(pwrite(fd, al, 4096, 8192) == 4096 && daemon_has_direct(m.pid, "dio"),
			      "-> and later ones are direct: the daemon has an O_DIRECT descriptor");
		}
	}
	free(al);
	if (fd >= 0)
		close(fd);

	/* chattr +F: is the directory empty?  Opened first; one slot left
	 * for the kernel's own open of the ioctl. */
	stat(t_path(m.mnt, "empty"), &st);
	fd = open(t_path(m.mnt, "empty"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	nh = fill_fds(&m, LIM, 1, held, LIM);
	int fl = 0;
	ioctl(fd, FS_IOC_GETFLAGS, &fl);
	fl |= FS_CASEFOLD_FL;
	CHECK_OK(ioctl(fd, FS_IOC_SETFLAGS, &fl), "chattr +F empty with the table full (%d held)",
		 nh);
	while (nh)
		close(held[--nh]);
	if (fd >= 0)
		close(fd);
	t_umount(&m);
}

/* A creating call with no or one descriptor left, single-threaded (where no
 * pruning round can be waited for): it may fail, but then must have made
 * nothing.  The daemon once made the object and only then met EMFILE
 * opening it for the reply: a create, which needs two (the open file's
 * and the node's), failed with the file left behind in SOURCE, and so
 * did mkdir, ln, mkfifo... whenever another request took the last slot
 * between the kernel's lookup of the name and the call. */
static void sec_nofile_create(void)
{
	t_section("mkdir, symlink, mknod, link, create with 0 or 1 descriptors left (-s)");
	enum { LIM = 256, NPOOL = LIM * 3 / 8 };
	const char *src = t_newdir("src-nofile-create");
	int held[LIM], nh;
	struct stat st;
	if (nofile_pool(src, NPOOL))
		return;
	struct t_mount m = {0};
	m.nofile = LIM;
	m.single = 1;
	if (t_mount(&m, src, ""))
		return;
	if (!CHECK(m.pid > 0 && daemon_fds(m.pid, LIM) > 0, "the daemon's descriptors are visible")) {
		t_umount(&m);
		return;
	}
	static const char *const what[] = {"mkdir", "symlink", "mknod (FIFO)", "link", "create"};
	for (int k = 0; k < 10; k++) {
		int i = k % 5, left = k / 5;
		char name[16];
		snprintf(name, sizeof name, "new%d", k);
		const char *p = t_path(m.mnt, name);
		stat(t_path(m.mnt, "hold"), &st);
		nh = fill_fds(&m, LIM, left, held, LIM);
		errno = 0;
		int r = i == 0	 ? mkdir(p, 0755)
			: i == 1 ? symlink("hold", p)
			: i == 2 ? mknod(p, S_IFIFO | 0644, 0)
			: i == 3 ? link(t_path(m.mnt, "hold"), p)
				 : open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		int e = errno;
		if (i == 4 && r >= 0)
			close(r);
		while (nh)
			close(held[--nh]);
		int made = lstat(t_path(src, name), &st) == 0;
		CHECK(r >= 0 || !made, "%s %s with %d descriptors left: %s, %s in SOURCE", what[i],
		      name, left, r >= 0 ? "done" : strerror(e), made ? "made" : "nothing");
	}
	t_umount(&m);
}

/* A fold index holds its directory's node, and so a descriptor, also once
 * the kernel has forgotten the directory; up to half the limit of them
 * are kept.  Those counted toward the half-limit mark where the daemon
 * prunes and readdirplus lists names only: after misses in 150 folding
 * directories with a limit of 256, the table stayed above the mark for
 * good and every `ls -l` looked each file up by itself. */
static void sec_nofile_indexes(void)
{
	t_section("fold indexes of many directories, daemon limit 256");
	if (!have_prune())
		return;
	enum { LIM = 256, ND = 150, NS = 16 };
	const char *src = t_newdir("src-nofile-idx");
	char nm[64];
	struct stat st;
	for (int i = 0; i < ND; i++) {
		snprintf(nm, sizeof nm, "d%03d", i);
		if (mkdir(t_path(src, nm), 0755) != 0 ||
		    t_write_file(t_path(t_path(src, nm), "a"), "a") != 0) {
			CHECK(0, "SOURCE: make %s/a", nm);
			return;
		}
	}
	for (int k = 0; k < 2; k++) {
		snprintf(nm, sizeof nm, "small%d", k);
		CHECK_OK(mkdir(t_path(src, nm), 0755), "SOURCE: mkdir %s", nm);
		for (int i = 0; i < NS; i++) {
			snprintf(nm, sizeof nm, "small%d/f%02d", k, i);
			t_write_file(t_path(src, nm), "f");
		}
	}
	struct t_mount m = {0};
	m.nofile = LIM;
	if (t_mount(&m, src, "casefold"))
		return;
	long bad = 0;
	for (int i = 0; i < ND; i++) {
		snprintf(nm, sizeof nm, "d%03d/NOPE", i);
		bad += stat(t_path(m.mnt, nm), &st) == 0 || errno != ENOENT;
	}
	CHECK(bad == 0, "a miss in each of %d folding directories (each builds an index): %ld "
	      "not ENOENT", ND, bad);
	/* Readdirplus makes a node of each entry unless the table is past
	 * the mark.  The first listing may find it so, and asks for a round
	 * then; the second must find room. */
	int made = 0;
	for (int pass = 0; pass < 2; pass++) {
		t_sleep_ms(200);
		int before = daemon_fds(m.pid, LIM);
		snprintf(nm, sizeof nm, "small%d", pass);
		DIR *d = opendir(t_path(m.mnt, nm));
		while (d && readdir(d))
			;
		if (d)
			closedir(d);
		made = daemon_fds(m.pid, LIM) - before;
	}
	CHECK(made > 0, "then a listing of %d files comes with their attributes: %d nodes made",
	      NS, made);
	t_umount(&m);
}

/* Under descriptor pressure the fold indexes of directories the kernel
 * has forgotten are dropped first, one descriptor each.  A directory of
 * thousands of names costs a scan of them all to index again, a small
 * one next to nothing, yet each round dropped them alike: a walk of
 * another tree that comes back to a big folding directory now and then
 * scanned it at every return.  While the indexes hold few descriptors,
 * big ones are now spared (dirindex.c). */
static void sec_nofile_bigindex(void)
{
	t_section("a big directory's fold index while the daemon prunes (limit 256)");
	if (!have_prune())
		return;
	enum { LIM = 256, NBIG = 3000, NPOOL = 600, ROUNDS = 4 };
	const char *src = t_newdir("src-nofile-bigidx");
	char nm[64];
	struct stat st;
	int bad = 0;
	bad += mkdir(t_path(src, "big"), 0755) != 0;
	for (int i = 0; i < NBIG; i++) {
		snprintf(nm, sizeof nm, "big/file%04d", i);
		bad += t_write_file(t_path(src, nm), "b") != 0;
	}
	if (!CHECK(bad == 0 && nofile_pool(src, NPOOL) == 0, "SOURCE: big/ of %d files, pool/ of %d",
		   NBIG, NPOOL))
		return;
	struct t_mount m = {0};
	m.nofile = LIM;
	if (t_mount(&m, src, "casefold,debug"))
		return;
	for (int r = 0; r < ROUNDS; r++) {
		/* another spelling: the index answers */
		snprintf(nm, sizeof nm, "big/FILE%04d", r * 701 % NBIG);
		bad += stat(t_path(m.mnt, nm), &st) != 0;
		/* exact names (no index) in numbers that make the daemon prune */
		for (int i = 0; i < NPOOL; i++) {
			snprintf(nm, sizeof nm, "pool/p%03d", i);
			bad += stat(t_path(m.mnt, nm), &st) != 0;
		}
		t_sleep_ms(100);
	}
	CHECK(bad == 0, "%d rounds: a file of big/ by another spelling, then each of %d in pool/ "
	      "(%d failed)", ROUNDS, NPOOL, bad);
	CHECK(t_log_count(&m, "prune: ") > 1, "-> the daemon pruned");
	long built = t_log_count(&m, ": 3000 entries, ");
	CHECK(built == 1, "-> big/ was indexed once: %ld scans", built);
	t_umount(&m);
}

/* The daemon single-threaded (-s): one worker answers everything, so a
 * lock that must wait, or whose grant drops cached pages (which may wait
 * for a READ the worker would answer), goes to a thread of its own
 * (ops_lock.c).  The POSIX set once more, in a folding directory. */
static void sec_single(void)
{
	struct t_mount m = {0};
	t_section("single-threaded daemon (-s)");
	m.single = 1;
	if (t_mount(&m, t_newdir("src-single"), "casefold"))
		return;
	const char *d = t_path(m.mnt, "d");
	char sd[4200];
	snprintf(sd, sizeof sd, "%s/d", m.src);
	CHECK_OK(mkdir(d, 0755), "mkdir d");
	posix_set(d, sd, "-s");
	t_umount(&m);
}

/* The kernel tells the daemon that a file was closed for good (RELEASE)
 * in the background, and a file opened meanwhile may get the closed one's
 * memory and so its lock owner number: an OFD lock it takes must survive
 * the late RELEASE of the other.  To hold the RELEASE back, the view's
 * background slots (12) are filled with reads that wait in the daemon for
 * a stopped second daemon: the files read live on a foldfs mounted inside
 * SOURCE. */
static void sec_late_release(void)
{
	enum { NREAD = 16 };
	struct t_mount in = {0}, m = {0};
	int fds[NREAD], st;
	pid_t kids[NREAD];
	char buf[16384];

	t_section("an OFD lock and the late release of another file");
	const char *src = t_newdir("src-late");
	if (!src)
		return;
	snprintf(in.mnt, sizeof in.mnt, "%s/slow", src);
	if (mkdir(in.mnt, 0755) != 0 || t_mount(&in, t_newdir("src-late-in"), ""))
		return;
	if (in.pid <= 0 || t_mount(&m, src, "casefold")) {
		t_umount(&in);
		return;
	}
	memset(buf, 'r', sizeof buf);
	for (int i = 0; i < NREAD; i++)
		fds[i] = -1;
	for (int i = 0; i < NREAD; i++) {
		char name[32];
		snprintf(name, sizeof name, "slow/f%d", i);
		if (t_write_file(t_path(m.mnt, name), "") == 0)
			fds[i] = open(t_path(m.mnt, name), O_RDWR);
		if (fds[i] < 0 || pwrite(fds[i], buf, sizeof buf, 0) != sizeof buf)
			break;
		close(fds[i]);
		fds[i] = open(t_path(m.mnt, name), O_RDONLY); /* drops cached pages */
	}
	const char *vf = t_path(m.mnt, "LATE"), *sf = t_path(m.src, "Late");
	CHECK_OK(t_write_file(t_path(m.mnt, "Late"), "l"), "create Late");
	CHECK(kill(in.pid, SIGSTOP) == 0, "the inner daemon stopped");
	int nk = 0;
	fflush(stdout);
	for (; nk < NREAD; nk++) {
		kids[nk] = fork();
		if (kids[nk] == 0)
			_exit(pread(fds[nk], buf, 4096, 0) > 0 ? 0 : 1);
		if (kids[nk] < 0)
			break;
		t_track_child(kids[nk]);
	}
	t_sleep_ms(300); /* their reads now wait in the view's daemon */
	/* Open, lock a byte of its own, close, until a new file finds the
	 * byte of the file before as its own: it has that file's lock owner
	 * (whose RELEASE has not come).  Then it locks byte 0. */
	int fd = -1, got = 0;
	cpu_set_t cpus, one;
	int pinned = sched_getaffinity(0, sizeof cpus, &cpus) == 0 && sched_getcpu() >= 0;
	if (pinned) {
		/* the same CPU's free files: a released one comes back soon */
		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		pinned = sched_setaffinity(0, sizeof one, &one) == 0;
	}
	for (int i = 1; i < 200 && !got; i++) {
		struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 1000 + i - 1,
				  .l_len = 1};
		fd = open(vf, O_RDWR);
		got = fd >= 0 && i > 1 && fcntl(fd, F_OFD_GETLK, &q) == 0 && q.l_type == F_UNLCK;
		if (!got && fd >= 0) {
			q = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET,
					   .l_start = 1000 + i, .l_len = 1};
			fcntl(fd, F_OFD_SETLK, &q);
			close(fd);
		}
	}
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	if (got)
		CHECK_OK(fcntl(fd, F_OFD_SETLK, &l), "a reopened file has a released one's lock "
						      "owner; it locks byte 0");
	if (pinned)
		sched_setaffinity(0, sizeof cpus, &cpus);
	kill(in.pid, SIGCONT);
	for (int i = 0; i < nk; i++)
		wait_bounded(kids[i], &st, 30);
	if (!got) {
		t_skip("no reopened file got a released one's lock owner");
	} else {
		t_sleep_ms(300); /* the held-back releases arrive */
		CHECK(other_lock(sf, F_WRLCK, 0, 1) == 1,
		      "the reopened file's OFD lock outlives the other's late RELEASE");
		close(fd);
		int free_ = 0;
		for (double end = t_now() + 10; !free_ && t_now() < end; t_sleep_ms(20))
			free_ = other_lock(sf, F_WRLCK, 0, 1) == 0;
		CHECK(free_, "and goes with its own release");
	}
	for (int i = 0; i < NREAD; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	t_umount(&m);
	t_umount(&in);
}

/* The daemon told to stop (SIGTERM) while a flock() through the view
 * waits for a lock held in SOURCE: the waiter answers ENOLCK before the
 * unmount closes the device (EINTR would reach the caller as the kernel's
 * restart code 512, no signal being pending), and the daemon exits
 * cleanly (the waiter's request points into the session it destroys on
 * the way out; fs-asan and fs-tsan run this too). */
static void sec_stop_with_waiter(void)
{
	t_section("SIGTERM while a lock waiter waits");
	struct t_mount m = {0};
	if (t_mount(&m, t_newdir("src-stopwait"), "casefold"))
		return;
	CHECK_OK(t_write_file(t_path(m.mnt, "Held"), "h"), "create Held");
	int s = open(t_path(m.src, "Held"), O_RDWR);
	CHECK(s >= 0 && flock(s, LOCK_EX) == 0, "SOURCE: this process holds flock(LOCK_EX)");
	int pfd[2];
	if (!CHECK(pipe(pfd) == 0, "pipe")) {
		t_umount(&m);
		return;
	}
	pid_t c = fork();
	if (c == 0) {
		close(pfd[0]);
		int fd = open(t_path(m.mnt, "HELD"), O_RDWR);
		errno = 0;
		int r = fd >= 0 ? flock(fd, LOCK_EX) : -1;
		int e = r ? errno : 0;
		if (write(pfd[1], &e, sizeof e) != (ssize_t)sizeof e)
			_exit(2);
		_exit(0);
	}
	close(pfd[1]);
	t_track_child(c);
	t_sleep_ms(300); /* its flock() now waits in a thread of the daemon */
	CHECK(c > 0 && m.pid > 0 && kill(m.pid, SIGTERM) == 0, "SIGTERM to the daemon");
	struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
	int e = -1;
	if (poll(&pf, 1, 5000) == 1 && read(pfd[0], &e, sizeof e) != (ssize_t)sizeof e)
		e = -1;
	CHECK(e == ENOLCK, "-> the waiting flock() failed with ENOLCK within 5 s (%s)",
	      e < 0 ? "no answer" : e ? strerror(e) : "granted");
	close(pfd[0]);
	if (c > 0)
		waitpid(c, NULL, 0);
	t_umount(&m); /* checks the daemon's exit status */
	if (s >= 0)
		close(s);
}

/* ro and rw in one option list: the last one wins, for the kernel and for
 * the daemon alike (a read-only mount writes nothing in SOURCE, not even
 * the first record). */
static void sec_ro_rw(void)
{
	t_section("-o ro,rw and rw,ro: the last one wins");
	const char *src = t_newdir("src-rorw");
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,ro,rw") == 0) {
		CHECK_OK(t_write_file(t_path(m.mnt, "W"), "w"), "ro,rw: the view is writable");
		CHECK_OK(access(t_path(src, ".foldfs"), F_OK), "ro,rw: the record was written");
		t_umount(&m);
	}
	src = t_newdir("src-rwro");
	struct t_mount m2 = {0};
	if (t_mount(&m2, src, "casefold,rw,ro") == 0) {
		CHECK_ERR(open(t_path(m2.mnt, "W"), O_CREAT | O_WRONLY, 0644), EROFS,
			  "rw,ro: the view is read-only");
		CHECK_ERR(access(t_path(src, ".foldfs"), F_OK), ENOENT,
			  "rw,ro: nothing written in SOURCE (no record)");
		t_umount(&m2);
	}
}

/* A read-only bind mount inside SOURCE of a directory of SOURCE: the
 * same objects by two paths, one refusing writes.  Each path keeps its
 * mount, whichever was looked up first (the node table keyed objects by
 * (st_dev, st_ino) alone: the second path used the first's descriptor). */
static void sec_bind_ro(void)
{
	t_section("a read-only bind mount inside SOURCE stays read-only");
	const char *src = t_newdir("src-bind");
	char rw[4200], ro[4200];
	snprintf(rw, sizeof rw, "%s/rw", src);
	snprintf(ro, sizeof ro, "%s/ro", src);
	if (mkdir(rw, 0755) || mkdir(ro, 0755) || t_write_file(t_path(rw, "f"), "one") ||
	    mount(rw, ro, NULL, MS_BIND, NULL) ||
	    mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL)) {
		t_skip("cannot make a read-only bind mount (%s)", strerror(errno));
		return;
	}
	for (int first_ro = 0; first_ro < 2; first_ro++) {
		struct t_mount m = {0};
		if (t_mount(&m, src, "casefold"))
			break;
		const char *vrw = t_path(m.mnt, "rw"), *vro = t_path(m.mnt, "ro");
		struct stat a, b;
		/* the first lookup made the node */
		CHECK_OK(stat(t_path(first_ro ? vro : vrw, "F"), &a), "[%s first] stat F",
			 first_ro ? "ro" : "rw");
		int fd = open(t_path(vro, "f"), O_WRONLY | O_APPEND);
		CHECK(fd < 0 && errno == EROFS, "[%s first] writing through ro/: EROFS (%s)",
		      first_ro ? "ro" : "rw", fd < 0 ? strerrorname_np(errno) : "opened");
		if (fd >= 0)
			close(fd);
		CHECK_ERR(open(t_path(vro, "new"), O_CREAT | O_WRONLY, 0644), EROFS,
			  "[%s first] creating in ro/", first_ro ? "ro" : "rw");
		fd = open(t_path(vrw, "F"), O_WRONLY | O_APPEND);
		CHECK(fd >= 0 && write(fd, "+", 1) == 1, "[%s first] writing through rw/",
		      first_ro ? "ro" : "rw");
		if (fd >= 0)
			close(fd);
		/* two kernel inodes now, so the ro/ one may show the write
		 * only after `timeout`, as a change made in SOURCE */
		CHECK(stat(t_path(vrw, "f"), &a) == 0 && stat(t_path(vro, "f"), &b) == 0 &&
			      a.st_ino == b.st_ino && a.st_size == 4 + first_ro &&
			      t_file_is(t_path(rw, "f"), first_ro ? "one++" : "one+"),
		      "[%s first] one file, as natively: same inode number, the write "
		      "in SOURCE", first_ro ? "ro" : "rw");
		/* One process's locks through the two paths are its own
		 * (one file), as natively: no conflict.  (Its first lock
		 * opens the descriptor its locks live on: through ro/, a
		 * write lock through rw/ later gets EBADF.) */
		int r1 = open(t_path(vro, "f"), O_RDONLY), w1 = open(t_path(vrw, "f"), O_RDWR);
		struct flock rl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_len = 1};
		struct flock wl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1};
		errno = 0;
		CHECK(r1 >= 0 && w1 >= 0 && fcntl(w1, F_SETLK, &wl) == 0 &&
			      fcntl(r1, F_SETLK, &rl) == 0,
		      "[%s first] one process: write lock via rw/, read lock via ro/ (%s)",
		      first_ro ? "ro" : "rw", strerrorname_np(errno));
		if (r1 >= 0)
			close(r1);
		if (w1 >= 0)
			close(w1);
		/* Both directories indexed, then a name made in SOURCE:
		 * found through both (one inotify watch for the two nodes) */
		char made[4300];
		snprintf(made, sizeof made, "%s/Made%d", rw, first_ro);
		CHECK_ERR(stat(t_path(vrw, "MISSING"), &a), ENOENT, "[%s first] rw/ indexed",
			  first_ro ? "ro" : "rw");
		CHECK_ERR(stat(t_path(vro, "MISSING"), &a), ENOENT, "[%s first] ro/ indexed",
			  first_ro ? "ro" : "rw");
		CHECK_OK(t_write_file(made, "m"), "[%s first] Made%d in SOURCE", first_ro ? "ro" : "rw",
			 first_ro);
		char lw[64];
		snprintf(lw, sizeof lw, "made%d", first_ro);
		int frw = -1, fro = -1;
		for (double end = t_now() + 5; (frw || fro) && t_now() < end; t_sleep_ms(20)) {
			frw = stat(t_path(vrw, lw), &a);
			fro = stat(t_path(vro, lw), &b);
		}
		CHECK(frw == 0 && fro == 0, "[%s first] %s found through rw/ (%d) and ro/ (%d)",
		      first_ro ? "ro" : "rw", lw, frw, fro);
		t_umount(&m);
	}
	umount2(ro, MNT_DETACH);
}

/* Started as "foldfs src-rel-N mnt-N" from the scratch root: the daemon
 * changes to / at start, so it must unmount by the absolute name when a
 * signal (SIGTERM, Ctrl-C) stops it, or the mount is left dead. */
static void sec_relative_stop(void)
{
	t_section("relative SOURCE and MOUNTPOINT: SIGTERM unmounts");
	struct t_mount m = {.relative = 1};
	int st = 0;
	if (t_mount(&m, t_newdir("src-rel"), "casefold"))
		return;
	CHECK_OK(t_write_file(t_path(m.mnt, "Rel"), "r"), "create Rel");
	CHECK(t_file_is(t_path(m.mnt, "REL"), "r"), "REL folds");
	CHECK(m.pid > 0 && kill(m.pid, SIGTERM) == 0, "SIGTERM to the daemon");
	CHECK(m.pid > 0 && wait_bounded(m.pid, &st, 20) == 0 && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0,
	      "-> the daemon exits with status 0");
	CHECK(!t_is_mounted(m.mnt), "-> and %s is no longer mounted", m.mnt);
	m.pid = 0;
	t_umount(&m); /* only if it is still there */
}

int main(int argc, char **argv)
{
	t_sections(sections);
	t_init(argc, argv, help, NULL);
	if (geteuid() != 0) {
		CHECK(0, "fs-posix must run as root");
		return t_finish();
	}
	struct t_mount m = {0};
	if (t_want("posix") && t_mount(&m, t_newdir("src-posix"), "") == 0) {
		const char *fold = t_path(m.mnt, "fold");
		CHECK_OK(mkdir(fold, 0755), "mkdir fold");
		CHECK_OK(t_set_casefold(fold, 1), "chattr +F fold");
		CHECK_OK(mkdir(t_path(m.mnt, "plain"), 0755), "mkdir plain");
		char sf[4200], sp[4200];
		snprintf(sf, sizeof sf, "%s/fold", m.src);
		snprintf(sp, sizeof sp, "%s/plain", m.src);
		posix_set(t_path(m.mnt, "fold"), sf, "folding");
		posix_set(t_path(m.mnt, "plain"), sp, "plain");
		t_section("folding-only: NOREPLACE/EXCHANGE with equivalent names");
		const char *f = t_path(m.mnt, "fold");
		t_write_file(t_path(f, "eq_a"), "a");
		t_write_file(t_path(f, "eq_b"), "b");
		CHECK_ERR(sys_renameat2(t_path(f, "eq_b"), t_path(f, "EQ_A"), RENAME_NOREPLACE), EEXIST,
			  "RENAME_NOREPLACE onto an equivalent name of another file");
		CHECK_OK(sys_renameat2(t_path(f, "EQ_B"), t_path(f, "Eq_A"), RENAME_EXCHANGE),
			 "RENAME_EXCHANGE EQ_B Eq_A");
		CHECK(t_file_is(t_path(f, "eq_a"), "b") && t_file_is(t_path(f, "eq_b"), "a"),
		      "exchanged through other spellings");
		CHECK(t_dir_has(f, "eq_a") + t_dir_has(f, "eq_b") + t_dir_has(f, "EQ_B") +
				      t_dir_has(f, "Eq_A") ==
			      2,
		      "still two entries");
		CHECK(t_dir_has(f, "eq_a") && t_dir_has(f, "eq_b"),
		      "both stored spellings kept (an exchange renames nothing, as on ext4)");
		t_umount(&m);
	}
	if (t_want("single"))
		sec_single();
	if (t_want("data_path"))
		sec_data_path();
	if (t_want("nofile")) {
		sec_nofile(0);
		sec_nofile(1);
	}
	if (t_want("nofile_negative"))
		sec_nofile_negative();
	if (t_want("nofile_full"))
		sec_nofile_full();
	if (t_want("nofile_indexes"))
		sec_nofile_indexes();
	if (t_want("nofile_bigindex"))
		sec_nofile_bigindex();
	if (t_want("nofile_create"))
		sec_nofile_create();
	if (t_want("source_locks"))
		sec_source_locks();
	if (t_want("late_release"))
		sec_late_release();
	if (t_want("stop_with_waiter"))
		sec_stop_with_waiter();
	if (t_want("relative_stop"))
		sec_relative_stop();
	if (t_want("ro_rw"))
		sec_ro_rw();
	if (t_want("bind_ro"))
		sec_bind_ro();
	if (t_want("caller_caps"))
		sec_caller_caps();
	if (t_want("reserve"))
		sec_reserve();
	if (t_want("allow_other"))
		sec_allow_other();
	if (t_want("create_existing"))
		sec_create_existing();
	if (t_want("setid_write"))
		sec_setid_write();
	if (t_want("sticky_swap"))
		sec_sticky_swap();
	if (t_want("sticky_user_daemon"))
		sec_sticky_user_daemon();
	if (t_want("plain_create_user_daemon"))
		sec_plain_create_user_daemon();
	if (t_want("create_plain_fifo"))
		sec_create_plain_fifo();
	if (t_want("listxattr_race"))
		sec_listxattr_race();
	if (t_want("mkdir_swap"))
		sec_mkdir_swap();
	if (t_want("acl"))
		sec_acl();
	if (t_want("acl_nodefperm"))
		sec_acl_nodefperm();
	if (t_want("chattr_race"))
		sec_chattr_race();
	if (t_want("user_mount"))
		sec_user_mount();
	if (t_want("daemon_syscalls"))
		sec_daemon_syscalls();
	return t_finish();
}
