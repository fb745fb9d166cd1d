/*
 * fuzz-ioctl.c - chattr and lsattr through the view: the daemon's ioctl
 * calls (fs/ioctl.c, with fs/creds.c, fs/inode.c's cached rule and
 * common/record.c's casefold attribute under them) on a real SOURCE in a scratch directory ($TMPDIR,
 * else /tmp): a directory and a file, each the node of a view, each
 * beside a twin that the fuzzer changes itself with the plain ioctl.  The
 * rules (foldfs(8), and ext4's for the casefold flag):
 *  - FS_IOC_GETFLAGS answers SOURCE's flags, with FS_CASEFOLD_FL where the
 *    directory folds, in an int (4 bytes, as ext4) even where the buffer
 *    the kernel asks for is a long's;
 *  - FS_IOC_SETFLAGS that leaves the casefold flag as it is does what the
 *    same ioctl does to the twin, made as the daemon makes it (with the
 *    caller's fsuid and fsgid when the daemon is root): the same answer,
 *    the same flags afterwards;
 *  - one that changes it is refused, changing nothing, in ext4's order:
 *    EPERM for a change of i or a (or of j) by a caller without the
 *    capability, EOPNOTSUPP on a file or under -o nofold, EPERM under -o
 *    casefold and on a directory that stays immutable, ENOTEMPTY on a
 *    directory with entries; else SOURCE's other flags change as the
 *    twin's do (as root: first without i and a, then with them) and the
 *    attribute with them, all or nothing: when a step fails (the file
 *    system refuses it, or the fuzzer makes it fail), the flags and the
 *    attribute are as before and the answer is that step's error;
 *  - the flag is the truth in SOURCE: a change of the attribute made
 *    there directly is what GETFLAGS reports and what SETFLAGS starts
 *    from;
 *  - FS_IOC_FSGETXATTR and FS_IOC_GETVERSION answer SOURCE's own,
 *    FS_IOC_FSSETXATTR does what it does to the twin (as the caller);
 *    short buffers are EINVAL, a 32-bit caller ENOSYS, any other command
 *    ENOTTY;
 *  - every call replies once, a change drops the kernel's attributes of
 *    the node, and the daemon's credentials are its own again afterwards.
 * Calls the kernel never passes on are not made: SETFLAGS and FSSETXATTR
 * from a caller who neither owns the object nor has the capability.
 *
 * Input: byte 0 options: bit 0 the objects belong to user 1000; bits 1-2
 * the mount (0 and 3: plain, 1: -o nofold, 2: -o casefold); bit 3 a
 * timeout so long that only SETFLAGS and GETFLAGS look at the attribute
 * again (else 0).  Then steps, an opcode byte (its value mod 8) and its
 * arguments; OBJ is the directory or the file (value mod 2):
 *   0 setflags  [OBJ | size << 1 (0, 1: an int; 2: a long; 3: 2 bytes)]
 *               [TOGGLE lo] [TOGGLE hi]: the flags GETFLAGS gives now,
 *               with the bits of the TOGGLE table flipped
 *   1 getflags  [OBJ | size << 1 (0: 2 bytes, 1: an int, 2: a long, 3:
 *               no handle)]
 *   2 caller    [uid: 0, 1000, 1001 by value mod 3 | bit 7: a pid, so
 *               the capabilities are the fuzzer's own] [gid, the same]
 *   3 entry     the directory gains or loses an entry (in SOURCE)
 *   4 attribute [how: set "1", remove, set "0", set "11"] on the
 *               directory, directly in SOURCE
 *   5 fault     [what] [errno]: the next FS_IOC_SETFLAGS call makes the
 *               daemon's first or second SETFLAGS on SOURCE, or its change
 *               of the attribute, fail
 *   6 source    [OBJ] [TOGGLE lo] [TOGGLE hi]: SOURCE's flags changed
 *               directly (as root), on the node and its twin alike
 *   7 other     [OBJ | kind << 1] [bits]: FSGETXATTR, FSSETXATTR (xflags
 *               toggled), GETVERSION, an unknown command, a 32-bit
 *               caller, short buffers
 * FUZZ_IOCTL_TRACE=1 in the environment prints the calls.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "foldfs.h"
#include "foldfs_ioctl.h"
#include "fuzz-caller.h"
#include "record.h"

struct foldfs F;

void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned cmd, void *arg,
	      struct fuse_file_info *fi, unsigned flags, const void *in_buf,
	      size_t in_bufsz, size_t out_bufsz);

#define NOBJ 2 /* 0: the directory, 1: the file */
#define LOCK_FL (FS_IMMUTABLE_FL | FS_APPEND_FL)

static const char *const obj_name[NOBJ] = {"d", "f"};
static char base[4096], entry_path[4200];
static char node_path[NOBJ][4200], twin_path[NOBJ][4200];
static struct node nodes[NOBJ];
static struct dirstate dstate;
static int handle[NOBJ], twin_fd[NOBJ]; /* O_RDONLY, for the ioctls */
static unsigned orig_flags[NOBJ];	 /* as made, for the reset */
static int is_root, trace, have_flags;
static unsigned long long own_caps; /* the fuzzer's effective ones */
static int ready; /* setup() made the objects: cleanup() has work */
static size_t g_at; /* the step being run, for messages */

/* The flags a TOGGLE word flips, bit by bit: the casefold flag, the
 * locking ones, plain ones every file system keeps, and some that ext4
 * refuses or ignores (the twin says what happens to them). */
static const unsigned toggle_bit[16] = {
	FOLDFS_CASEFOLD_FL, FS_IMMUTABLE_FL, FS_APPEND_FL, FS_NODUMP_FL,
	FS_NOATIME_FL,	    FS_SYNC_FL,	     FS_DIRSYNC_FL, FS_JOURNAL_DATA_FL,
	FS_TOPDIR_FL,	    FS_COMPR_FL,     FS_SECRM_FL,   FS_UNRM_FL,
	FS_PROJINHERIT_FL,  FS_NOCOW_FL,     FS_DAX_FL,	    FS_NOCOMP_FL,
};

static void cleanup(void);

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz-ioctl: %s at input byte %zu\n", what, g_at);
	if (detail)
		fprintf(stderr, "  %s\n", detail);
	/* (an immutable object left behind would resist rm -rf) */
	cleanup();
	abort();
}

/* ---- the stubbed daemon and libfuse ---- */

/* (the caller, the replies' count and error: fuzz-caller.c) */
static size_t got_size;	   /* the ioctl reply's data */
static unsigned char got_buf[64];
static int invalidated;	   /* notify_inval_inode calls */
static fuse_ino_t inval_ino;
static int bumps, drops;   /* coh_bump, dir_index_drop calls */

int dirh_fd(struct fuse_file_info *fi)
{
	return (int)fi->fh;
}

void respell_ioctl(fuse_req_t req, struct node *d, const void *in,
		   size_t insz)
{
	(void)req;
	(void)d;
	(void)in;
	(void)insz;
	fail("respell_ioctl called", NULL); /* (never asked for here) */
}

/* inode.c's node table is linked for dir_folds() and dir_set_fold();
 * the index and the pruning it tells about nodes are not here. */
void idx_unlink_lru(struct node *d)
{
	(void)d;
}

void idx_drop_if_gone(struct node *d)
{
	(void)d;
}

void prune_note(size_t count)
{
	(void)count;
}

void dir_index_drop(struct node *d)
{
	(void)d;
	drops++;
}

int coh_bump(void)
{
	bumps++;
	return 0;
}

void xlock(struct node *d, struct xlock *x)
{
	(void)d;
	x->off = 0; /* (one daemon here: nothing to wait for) */
}

void xunlock(struct xlock *x)
{
	(void)x;
}

/* Any entry but . and ..: fs/ops_entry.c's, without its hidden names
 * (none here). */
int dir_nonempty(struct node *d)
{
	int fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent64 *de;
	_Alignas(8) char buf[4096];
	int found = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (!found && (n = getdents64(fd, buf, sizeof buf)) > 0)
		for (ssize_t off = 0; off < n && !found; off += de->d_reclen) {
			de = (void *)(buf + off);
			found = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
		}
	close(fd);
	return found;
}

int fuse_reply_ioctl(fuse_req_t req, int result, const void *buf, size_t size)
{
	(void)req;
	fz_replies++;
	fz_err = 0;
	if (result)
		fail("an ioctl reply with a result", NULL);
	if (size > sizeof got_buf)
		fail("an ioctl reply larger than any here", NULL);
	if (size)
		memcpy(got_buf, buf, size);
	got_size = size;
	return 0;
}

int fuse_lowlevel_notify_inval_inode(struct fuse_session *se, fuse_ino_t ino,
				     off_t off, off_t len)
{
	(void)se;
	if (off != -1 || len != 0)
		fail("notify_inval_inode drops data, not just attributes",
		     NULL);
	invalidated++;
	inval_ino = ino;
	return 0;
}

/* ---- faults: ioctl.o's ioctl and record.o's xattr calls (objcopy'ed,
 * fuzz-fs.mk) ---- */

static int fault_kind;	/* 0 none, 1 a SETFLAGS, 2 the attribute */
static int fault_at;	/* which SETFLAGS (1, 2) */
static int fault_errno;
static int setflags_calls; /* the daemon's SETFLAGS in the current call */

int fuzz_ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (cmd == FS_IOC_SETFLAGS && fault_kind == 1 &&
	    ++setflags_calls == fault_at) {
		fault_kind = 0;
		errno = fault_errno;
		return -1;
	}
	return ioctl(fd, cmd, arg);
}

static int xattr_fault(void)
{
	if (fault_kind != 2)
		return 0;
	fault_kind = 0;
	errno = fault_errno;
	return 1;
}

int fuzz_fsetxattr(int fd, const char *name, const void *v, size_t n, int fl)
{
	return xattr_fault() ? -1 : fsetxattr(fd, name, v, n, fl);
}

int fuzz_setxattr(const char *path, const char *name, const void *v, size_t n,
		  int fl)
{
	return xattr_fault() ? -1 : setxattr(path, name, v, n, fl);
}

int fuzz_fremovexattr(int fd, const char *name)
{
	return xattr_fault() ? -1 : fremovexattr(fd, name);
}

int fuzz_removexattr(const char *path, const char *name)
{
	return xattr_fault() ? -1 : removexattr(path, name);
}

/* ---- the objects ---- */

static unsigned get_flags(int fd)
{
	int f = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &f) < 0)
		return 0; /* (no flags: have_flags is 0) */
	return (unsigned)f;
}

/* Set fd's flags as root; 0 or an errno. */
static int put_flags(int fd, unsigned flags)
{
	int f = (int)flags;

	return ioctl(fd, FS_IOC_SETFLAGS, &f) < 0 ? errno : 0;
}

/* Does the directory's casefold attribute in SOURCE say "fold"?  (Any
 * value but "1" does not, as for foldfs_dir_casefold_get().) */
static int attr_now(void)
{
	return foldfs_dir_casefold_get(nodes[0].fd) > 0;
}

static void cleanup(void)
{
	static int done;

	if (!ready || done++)
		return; /* (made nothing yet, or cleaned already) */
	for (int i = 0; i < NOBJ; i++) {
		put_flags(handle[i], orig_flags[i]);
		put_flags(twin_fd[i], orig_flags[i]);
		close(handle[i]);
		close(twin_fd[i]);
		close(nodes[i].fd);
	}
	unlink(entry_path);
	rmdir(node_path[0]);
	rmdir(twin_path[0]);
	unlink(node_path[1]);
	unlink(twin_path[1]);
	rmdir(base);
}

static void setup(void)
{
	const char *err;
	int fd;

	is_root = geteuid() == 0;
	trace = getenv("FUZZ_IOCTL_TRACE") != NULL;
	if ((err = fz_start("fuzz-ioctl", base, sizeof base)))
		fail(err, base);
	{
		FILE *f = fopen("/proc/self/status", "re");
		char line[128];
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "CapEff: %llx", &own_caps) == 1)
				break;
		if (f)
			fclose(f);
	}
	for (int i = 0; i < NOBJ; i++) {
		snprintf(node_path[i], sizeof node_path[i], "%s/%s", base,
			 obj_name[i]);
		snprintf(twin_path[i], sizeof twin_path[i], "%s/twin-%s", base,
			 obj_name[i]);
	}
	snprintf(entry_path, sizeof entry_path, "%s/e", node_path[0]);
	for (int t = 0; t < 2; t++) {
		char(*p)[4200] = t ? twin_path : node_path;
		fd = open(p[1], O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || close(fd) < 0 || mkdir(p[0], 0755) < 0)
			fail("cannot make the objects", p[0]);
	}
	for (int i = 0; i < NOBJ; i++) {
		nodes[i].fd = open(node_path[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		handle[i] = open(node_path[i], O_RDONLY | O_CLOEXEC);
		twin_fd[i] = open(twin_path[i], O_RDONLY | O_CLOEXEC);
		if (nodes[i].fd < 0 || handle[i] < 0 || twin_fd[i] < 0)
			fail("open", node_path[i]);
		nodes[i].type = i ? S_IFREG : S_IFDIR;
	}
	nodes[0].dir = &dstate;
	if (pthread_rwlock_init(&dstate.ns, NULL))
		fail("pthread_rwlock_init", NULL);
	{
		int f;
		have_flags = ioctl(handle[0], FS_IOC_GETFLAGS, &f) == 0;
	}
	for (int i = 0; i < NOBJ; i++)
		orig_flags[i] = get_flags(handle[i]);
	ready = 1;
	atexit(cleanup);
}

/* The objects as at the start of a run, owned by owner. */
static void reset(uid_t owner)
{
	for (int i = 0; i < NOBJ; i++) {
		/* i and a off first: nothing else changes on a locked inode */
		put_flags(handle[i], orig_flags[i]);
		put_flags(twin_fd[i], orig_flags[i]);
		if (get_flags(handle[i]) != get_flags(twin_fd[i]))
			fail("cannot reset the flags", obj_name[i]);
		for (int t = 0; t < 2; t++) {
			const char *p = t ? twin_path[i] : node_path[i];
			if (is_root && chown(p, owner, owner) < 0)
				fail("chown", p);
		}
	}
	unlink(entry_path);
	removexattr(node_path[0], FOLDFS_XATTR_CASEFOLD);
	atomic_store(&dstate.fold, -1);
	atomic_store(&dstate.fold_checked, 0);
}

/* The node's flags and its twin's are the same. */
static void check_same(const char *after)
{
	for (int i = 0; i < NOBJ; i++) {
		unsigned a = get_flags(handle[i]), b = get_flags(twin_fd[i]);
		if (a != b) {
			char m[160];
			snprintf(m, sizeof m, "after %s: node %s %#x, twin %#x",
				 after, obj_name[i], a, b);
			fail("the node's flags and its twin's differ", m);
		}
	}
}

/* ---- the model ---- */

/* Has the caller capability cap (fs/creds.c's creds_capable): a caller
 * with a pid has the fuzzer's own (root in a container may lack some),
 * else root has them all. */
static int caller_capable(int cap)
{
	return fz_ctx.pid > 0 ? (int)(own_caps >> cap & 1) : fz_ctx.uid == 0;
}

/* Run cmd on the twin as the daemon acts for the caller: with the
 * caller's ids and no supplementary groups when the daemon is root and
 * the caller is not root:root.  Returns 0 or an errno. */
static int twin_as_caller(int i, unsigned long cmd, void *arg)
{
	struct fz_as a;
	int r;

	fz_as_caller(&a);
	r = ioctl(twin_fd[i], cmd, arg) < 0 ? errno : 0;
	fz_as_daemon(&a);
	return r;
}

/* Would the kernel pass a change of object i's attributes on? */
static int kernel_passes(int i)
{
	struct stat st;

	if (fstat(handle[i], &st) < 0)
		fail("fstat", obj_name[i]);
	return fz_ctx.uid == st.st_uid || caller_capable(CAP_FOWNER);
}

/* ---- input ---- */

struct in {
	const uint8_t *d;
	size_t n, at;
};

static unsigned byte(struct in *in)
{
	return in->at < in->n ? in->d[in->at++] : 0;
}

static unsigned toggles(struct in *in)
{
	unsigned t = byte(in), m = 0;

	t |= byte(in) << 8;
	for (int b = 0; b < 16; b++)
		if (t >> b & 1)
			m ^= toggle_bit[b];
	return m;
}

static void call(int i, unsigned cmd, struct fuse_file_info *fi,
		 unsigned flags, const void *in, size_t insz, size_t outsz)
{
	const char *wrong;

	fz_replies = 0;
	invalidated = 0;
	setflags_calls = 0;
	op_ioctl(NULL, (fuse_ino_t)(uintptr_t)&nodes[i], cmd, NULL, fi,
		 flags, in, insz, outsz);
	if (fz_replies != 1)
		fail("not exactly one reply", NULL);
	if ((wrong = fz_creds_wrong()))
		fail(wrong, NULL);
}

/* What FS_IOC_GETFLAGS should say of object i now (a directory re-reads
 * its attribute: the truth is in SOURCE). */
static unsigned view_flags(int i)
{
	unsigned f = get_flags(handle[i]) & ~FOLDFS_CASEFOLD_FL;
	int folds = i == 0 && !F.nofold && (F.casefold_all || attr_now());

	return f | (folds ? FOLDFS_CASEFOLD_FL : 0);
}

static void getflags_step(struct in *in)
{
	unsigned b = byte(in), i = b % 2, size = b >> 1 & 3;
	struct fuse_file_info fi = {.fh = (uint64_t)handle[i]};
	static const size_t out[4] = {2, sizeof(int), sizeof(long), sizeof(long)};
	unsigned want = view_flags(i), got;

	call(i, FS_IOC_GETFLAGS, size == 3 ? NULL : &fi, 0, NULL, 0, out[size]);
	if (trace)
		fprintf(stderr, "getflags %s size %zu -> %d, %#x\n",
			obj_name[i], out[size], fz_err,
			got_size >= 4 ? *(unsigned *)(void *)got_buf : 0);
	if (size == 0 || size == 3) {
		if (fz_err != EINVAL)
			fail("GETFLAGS with a short buffer or no handle is not EINVAL",
			     NULL);
		return;
	}
	if (fz_err)
		fail("GETFLAGS failed", strerror(fz_err));
	/* an int whatever the size asked (the number's is a long's): as
	 * ext4, and no more than a caller's int holds */
	if (got_size != sizeof(int))
		fail("GETFLAGS answered in another size than an int", NULL);
	{
		int v;
		memcpy(&v, got_buf, sizeof v);
		got = (unsigned)v;
	}
	if (got != want) {
		char m[96];
		snprintf(m, sizeof m, "%s: got %#x, want %#x", obj_name[i], got,
			 want);
		fail("GETFLAGS differs from SOURCE's flags and the attribute", m);
	}
}

/* The twin through the daemon's steps for a change of the casefold flag:
 * SOURCE's flags first without i and a, then with them, as root, the
 * fault where the fuzzer put one.  Returns 0 or the errno of the step that
 * failed, with the twin as before. */
static int twin_fold_change(int i, unsigned cur, unsigned src, int fault,
			    int at, int err)
{
	unsigned mid = src & ~LOCK_FL;
	int n = 0, r = 0;

	if (mid != cur) {
		n++;
		r = fault == 1 && at == n ? err : put_flags(twin_fd[i], mid);
	}
	if (r == 0 && fault == 2)
		r = err; /* the attribute */
	if (r == 0 && src != mid) {
		n++;
		r = fault == 1 && at == n ? err : put_flags(twin_fd[i], src);
	}
	if (r && mid != cur)
		put_flags(twin_fd[i], cur);
	return r;
}

static void setflags_step(struct in *in)
{
	unsigned b = byte(in), i = b % 2, size = b >> 1 & 3;
	unsigned flip = toggles(in), cur, want, src, native = 0, mid;
	struct fuse_file_info fi = {.fh = (uint64_t)handle[i]};
	int on, fo, expect, fault = fault_kind, steps = 0, attr0 = attr_now();
	unsigned char inb[sizeof(long)];
	size_t insz;
	char m[200];

	cur = get_flags(handle[i]);
	if (cur & FOLDFS_CASEFOLD_FL)
		native = FOLDFS_CASEFOLD_FL; /* SOURCE's own casefold */
	cur &= ~FOLDFS_CASEFOLD_FL;
	/* what the directory folds by now, as SOURCE says */
	fo = i == 0 && !F.nofold && (F.casefold_all || attr0);
	want = (cur | (fo ? FOLDFS_CASEFOLD_FL : 0)) ^ flip;
	on = !!(want & FOLDFS_CASEFOLD_FL);
	src = (want & ~FOLDFS_CASEFOLD_FL) | native;
	mid = src & ~LOCK_FL;
	if (!kernel_passes(i)) {
		fault_kind = 0;
		return; /* the kernel refuses it itself */
	}
	if (size == 2) {
		long l = (long)(int)want;
		memcpy(inb, &l, sizeof l);
		insz = sizeof l;
	} else {
		int v = (int)want;
		memcpy(inb, &v, sizeof v);
		insz = size == 3 ? 2 : sizeof v;
	}
	/* the expected answer, in the daemon's order (see the top) */
	if (size == 3) {
		expect = EINVAL;
	} else if (((src ^ (cur | native)) & FS_JOURNAL_DATA_FL) &&
		   !caller_capable(CAP_SYS_RESOURCE)) {
		expect = EPERM;
	} else if (on == fo) {
		/* SOURCE's business, as the caller */
		int v = (int)src;
		if (src == (cur | native)) {
			expect = 0;
		} else if (fault == 1) {
			expect = fault_errno; /* its one SETFLAGS fails */
			fault_at = 1;
		} else {
			expect = twin_as_caller(i, FS_IOC_SETFLAGS, &v);
		}
		steps = src != (cur | native);
	} else if (((src ^ cur) & LOCK_FL) &&
		   !caller_capable(CAP_LINUX_IMMUTABLE)) {
		expect = EPERM;
	} else if (i != 0 || F.nofold) {
		expect = EOPNOTSUPP;
	} else if (F.casefold_all) {
		expect = EPERM;
	} else if (cur & src & FS_IMMUTABLE_FL) {
		expect = EPERM;
	} else if (dir_nonempty(&nodes[0])) {
		expect = ENOTEMPTY;
	} else {
		int nsteps = (mid != (cur | native)) + (src != mid);
		int at = nsteps ? 1 + (int)(fault_at - 1) % nsteps : 0;
		if (fault == 1 && !nsteps)
			fault = 0; /* no SETFLAGS to fail */
		fault_at = at;
		expect = twin_fold_change(i, cur | native, src, fault, at,
					  fault_errno);
		steps = 1;
	}
	if (!steps)
		fault_kind = 0; /* the fault is for a call that reaches SOURCE */
	bumps = drops = 0;
	call(i, FS_IOC_SETFLAGS, &fi, 0, inb, insz, 0);
	fault_kind = 0;
	if (trace)
		fprintf(stderr,
			"setflags %s %#x (was %#x, folds %d) size %zu fault %d -> %d "
			"(want %d)\n",
			obj_name[i], want, cur, fo, insz, fault, fz_err, expect);
	snprintf(m, sizeof m, "%s: flags %#x from %#x (folds %d): got %s, want %s",
		 obj_name[i], want, cur, fo, strerror(fz_err), strerror(expect));
	if (fz_err != expect)
		fail("SETFLAGS answered unlike ext4 and the twin", m);
	if (expect == 0 && (invalidated != 1 ||
			    inval_ino != (fuse_ino_t)(uintptr_t)&nodes[i]))
		fail("a SETFLAGS did not drop the kernel's attributes", m);
	if (on != fo && expect == 0) {
		if (attr_now() != on)
			fail("the casefold attribute did not change", m);
		if (dir_folds(&nodes[0]) != on || !bumps || !drops)
			fail("the daemon did not apply the new rule", m);
	} else if (attr_now() != attr0) {
		fail("the casefold attribute changed", m);
	}
	/* (what SOURCE made of the flags asked for: the twin's) */
	check_same("SETFLAGS");
}

static void caller_step(struct in *in)
{
	static const uid_t ids[3] = {0, 1000, 1001};
	unsigned u = byte(in), g = byte(in);

	fz_ctx.uid = ids[u % 3];
	fz_ctx.gid = ids[g % 3];
	fz_ctx.pid = u & 0x80 ? getpid() : 0;
}

static void entry_step(void)
{
	int fd;

	if (unlink(entry_path) == 0 || errno == EPERM)
		return; /* (an immutable or append-only directory keeps it) */
	fd = open(entry_path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static void attribute_step(struct in *in)
{
	static const char *const val[4] = {"1", NULL, "0", "11"};
	const char *v = val[byte(in) % 4];

	/* (refused on an immutable or append-only directory: then not) */
	if (v)
		setxattr(node_path[0], FOLDFS_XATTR_CASEFOLD, v, strlen(v), 0);
	else
		removexattr(node_path[0], FOLDFS_XATTR_CASEFOLD);
}

static void fault_step(struct in *in)
{
	static const int errs[4] = {EIO, ENOSPC, EPERM, EDQUOT};
	unsigned w = byte(in);

	fault_kind = 1 + (int)(w & 1);
	fault_at = 1 + (int)(w >> 1 & 1);
	fault_errno = errs[byte(in) % 4];
}

static void source_step(struct in *in)
{
	unsigned i = byte(in) % 2, flip = toggles(in) & ~FOLDFS_CASEFOLD_FL;
	unsigned cur = get_flags(handle[i]);
	int a, b;

	if (!is_root)
		flip &= ~(LOCK_FL | FS_JOURNAL_DATA_FL);
	a = put_flags(handle[i], cur ^ flip);
	b = put_flags(twin_fd[i], get_flags(twin_fd[i]) ^ flip);
	if (a != b)
		fail("the node and its twin took a change in SOURCE unlike",
		     obj_name[i]);
	check_same("a change in SOURCE");
}

static void other_step(struct in *in)
{
	unsigned b = byte(in), i = b % 2, kind = b >> 1 & 7, bits = byte(in);
	struct fuse_file_info fi = {.fh = (uint64_t)handle[i]};
	struct fsxattr fx, tx;

	memset(&fx, 0, sizeof fx);
	switch (kind) {
	case 0: /* FSGETXATTR, and with a short buffer */
		call(i, FS_IOC_FSGETXATTR, &fi, 0, NULL, 0,
		     bits & 1 ? sizeof fx - 1 : sizeof fx);
		if (bits & 1) {
			if (fz_err != EINVAL)
				fail("FSGETXATTR short: not EINVAL", NULL);
			return;
		}
		if (ioctl(handle[i], FS_IOC_FSGETXATTR, &fx) < 0)
			memset(&fx, 0, sizeof fx);
		if (fz_err || got_size != sizeof fx ||
		    memcmp(got_buf, &fx, sizeof fx))
			fail("FSGETXATTR differs from SOURCE's", NULL);
		return;
	case 1: { /* FSSETXATTR: the xflags toggled, as the caller */
		static const unsigned xbit[8] = {
			FS_XFLAG_NOATIME,  FS_XFLAG_NODUMP, FS_XFLAG_APPEND,
			FS_XFLAG_IMMUTABLE, FS_XFLAG_SYNC,  FS_XFLAG_DAX,
			FS_XFLAG_PROJINHERIT, FS_XFLAG_NODEFRAG};
		int want;
		if (ioctl(handle[i], FS_IOC_FSGETXATTR, &fx) < 0)
			return; /* (no fsxattr here) */
		for (int k = 0; k < 8; k++)
			if (bits >> k & 1)
				fx.fsx_xflags ^= xbit[k];
		if (!kernel_passes(i))
			return;
		/* (a change of i or a without the capability: the kernel
		 * refuses it itself, and SOURCE as the caller too, as the
		 * twin shows) */
		if (ioctl(twin_fd[i], FS_IOC_FSGETXATTR, &tx) < 0)
			fail("FSGETXATTR on the twin", NULL);
		tx.fsx_xflags = fx.fsx_xflags;
		want = twin_as_caller(i, FS_IOC_FSSETXATTR, &tx);
		call(i, FS_IOC_FSSETXATTR, &fi, 0, &fx, sizeof fx, 0);
		if (fz_err != want) {
			char m[96];
			snprintf(m, sizeof m, "got %s, want %s", strerror(fz_err),
				 strerror(want));
			fail("FSSETXATTR answered unlike the twin", m);
		}
		if (!want && (invalidated != 1 ||
			      inval_ino != (fuse_ino_t)(uintptr_t)&nodes[i]))
			fail("FSSETXATTR did not drop the kernel's attributes",
			     NULL);
		check_same("FSSETXATTR");
		return;
	}
	case 2: { /* GETVERSION, and with a short buffer */
		int v = 0, got;
		call(i, FS_IOC_GETVERSION, &fi, 0, NULL, 0,
		     bits & 1 ? 2 : sizeof(long));
		if (bits & 1) {
			if (fz_err != EINVAL)
				fail("GETVERSION short: not EINVAL", NULL);
			return;
		}
		if (ioctl(handle[i], FS_IOC_GETVERSION, &v) < 0) {
			if (fz_err != errno)
				fail("GETVERSION: not SOURCE's error", NULL);
			return;
		}
		memcpy(&got, got_buf, sizeof got);
		if (fz_err || got_size != sizeof v || got != v)
			fail("GETVERSION differs from SOURCE's", NULL);
		return;
	}
	case 3: /* an unknown command */
		call(i, _IOR('f', 99, long), &fi, 0, NULL, 0, sizeof(long));
		if (fz_err != ENOTTY)
			fail("an unknown command: not ENOTTY", NULL);
		return;
	case 4: /* a 32-bit caller */
		call(i, FS_IOC_GETFLAGS, &fi, FUSE_IOCTL_COMPAT, NULL, 0,
		     sizeof(int));
		if (fz_err != ENOSYS)
			fail("a 32-bit caller: not ENOSYS", NULL);
		return;
	default: { /* no handle, or a short input: EINVAL, nothing changed */
		int v = (int)get_flags(handle[i]);
		unsigned before = get_flags(handle[i]);
		unsigned cmd = kind == 5 ? FS_IOC_SETFLAGS : FS_IOC_FSSETXATTR;
		call(i, cmd, kind == 7 ? NULL : &fi, 0, &v,
		     kind == 7 ? sizeof v : 3, 0);
		if (fz_err != EINVAL || get_flags(handle[i]) != before)
			fail("no handle or a short input: not EINVAL", NULL);
		return;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = {data, size, 1};
	unsigned opt;

	if (!base[0])
		setup();
	if (!size || !have_flags)
		return 0; /* (no flags on this file system: nothing to check) */
	opt = data[0];
	F.nofold = (opt >> 1 & 3) == 1;
	F.casefold_all = (opt >> 1 & 3) == 2;
	F.timeout = opt & 8 ? 1e6 : 0;
	memset(&fz_ctx, 0, sizeof fz_ctx);
	fault_kind = 0;
	reset(opt & 1 ? 1000 : 0);
	check_same("the reset");
	while (in.at < in.n) {
		g_at = in.at;
		switch (byte(&in) % 8) {
		case 0:
			setflags_step(&in);
			break;
		case 1:
			getflags_step(&in);
			break;
		case 2:
			caller_step(&in);
			break;
		case 3:
			entry_step();
			break;
		case 4:
			attribute_step(&in);
			break;
		case 5:
			fault_step(&in);
			break;
		case 6:
			source_step(&in);
			break;
		default:
			other_step(&in);
			break;
		}
	}
	return 0;
}
