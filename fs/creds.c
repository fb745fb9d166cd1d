/*
 * creds.c - act as the calling process while creating objects.
 *
 * With allow_other a root daemon serves many users.  Objects it creates
 * must belong to the caller (and follow set-group-ID directories), and
 * the creating call must be refused where the caller could not do it.
 * So around mknod/mkdir/symlink/link/create the worker thread takes the
 * caller's fsuid, fsgid and supplementary groups; also where the kernel
 * leaves a check or a privilege to us: a CREATE answered by opening an
 * existing equivalent name (the kernel checks nothing there), an open we
 * truncate and a write, truncation or allocation in a file with set-ID bits
 * (they drop as for the caller: file_as_writer()); and around
 * unlink/rmdir/rename, whose checks the kernel made on the entry it looked
 * up, which need not be the one the name denotes when we act on it: in a
 * folding directory an exact name removed directly in SOURCE lets another
 * spelling's entry win, and the sticky bit must protect that one too
 * (creds_sticky() where we cannot be the caller).  Other writes and
 * allocations take only the caller's fsuid, and root's CAP_SYS_RESOURCE
 * only for root (creds_enter_fsuid, creds_resource): root's reserved
 * blocks and quota hard limits.  (Permission checks of
 * the other calls are the kernel's: a daemon with allow_other always runs
 * with default_permissions, see main.c.)  These must be the
 * raw system calls: glibc's setgroups()/setfsuid() wrappers may apply the
 * change to every thread of the process (setxid broadcast), and other
 * workers are serving other callers at the same time.
 *
 * When the daemon is not root (a user mount) there is nobody else to be,
 * and when the caller is root there is nothing to change.  The caller's
 * umask is taken too when the kernel leaves it to us (DONT_MASK).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "foldfs.h"

static gid_t *base_groups;
static int base_ngroups;
static uid_t base_uid;
static gid_t base_gid;

int creds_init(void)
{
	int n;

	F.switch_creds = geteuid() == 0;
	if (!F.switch_creds)
		return 0;
	base_uid = geteuid();
	base_gid = getegid();
	n = getgroups(0, NULL);
	if (n < 0)
		return -errno;
	base_groups = calloc((size_t)n + 1, sizeof(gid_t));
	if (!base_groups)
		return -ENOMEM;
	base_ngroups = getgroups(n, base_groups);
	if (base_ngroups < 0)
		return -errno;
	return 0;
}

/* With DONT_MASK the kernel passes the caller's umask instead of
 * applying it (main.c, op_init): the creating call must run with it, so
 * that SOURCE's file system applies it, or a parent's default ACL instead,
 * as it would for the caller.  umask belongs to the process's shared
 * fs_struct unless a thread has its own: each worker thread takes a copy
 * (unshare(CLONE_FS), once) before it first sets one. */
static __thread int own_fs;

int creds_own_fs(void)
{
	if (!own_fs) {
		if (unshare(CLONE_FS) < 0)
			return -errno;
		own_fs = 1;
	}
	return 0;
}

static int caller_umask(mode_t mask)
{
	/* the thread's own umask once set: only a change needs a call */
	static __thread int cur = -1;
	int r;

	/* cur is set only once this thread has its own fs_struct */
	if (cur == (int)(mask & 0777))
		return 0;
	r = creds_own_fs();
	if (r)
		return r;
	umask(mask & 0777);
	cur = (int)(mask & 0777);
	return 0;
}

/* libfuse reads the groups from /proc/PID/task/PID/status, which a
 * caller outside our PID namespace (its pid 0 here) has not: we act
 * without them (foldfs(8)), and say so, once. */
static void groups_unread(int err)
{
	static atomic_int said;

	if (!atomic_exchange(&said, 1))
		fprintf(stderr, "foldfs: cannot read a caller's supplementary "
				"groups (%s): acting without them\n",
			strerror(-err));
}

int creds_groups(fuse_req_t req, gid_t buf[64], gid_t **list)
{
	int n = fuse_req_getgroups(req, 64, buf), m;

	*list = buf;
	if (n < 0)
		groups_unread(n);
	if (n <= 64)
		return n < 0 ? 0 : n;
	/* The kernel checks every group, and one past the 64th can decide
	 * (its class may even allow less than "other" does). */
	*list = malloc((size_t)n * sizeof **list);
	if (!*list)
		return -ENOMEM;
	m = fuse_req_getgroups(req, n, *list);
	return m < 0 ? 0 : m < n ? m : n;
}

/* Set the thread's fsuid to uid, c->switched already saying what to undo:
 * 0, or -EPERM (undone) if it did not take -- setfsuid reports no
 * errors. */
static int take_fsuid(uid_t uid, struct creds *c)
{
	syscall(SYS_setfsuid, uid);
	if ((uid_t)syscall(SYS_setfsuid, (uid_t)-1) == uid)
		return 0;
	creds_leave(c);
	return -EPERM;
}

static int enter(fuse_req_t req, struct creds *c, int mask)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	gid_t buf[64], *groups;
	int n, r;

	c->switched = 0;
	c->raised = 0;
	creds_resource(req);
	if (F.dont_mask && mask) {
		n = caller_umask(ctx->umask);
		if (n)
			return n;
	}
	if (!F.switch_creds || (ctx->uid == 0 && ctx->gid == 0))
		return 0;
	/* Supplementary groups: they decide whether the caller may write
	 * into a group-writable parent. */
	n = creds_groups(req, buf, &groups);
	if (n < 0)
		return n;
	r = syscall(SYS_setgroups, (size_t)n, groups) < 0 ? -errno : 0;
	if (groups != buf)
		free(groups);
	if (r)
		return r;
	syscall(SYS_setfsgid, ctx->gid);
	c->switched = 1;
	return take_fsuid(ctx->uid, c);
}

int creds_enter(fuse_req_t req, struct creds *c)
{
	return enter(req, c, 1);
}

int creds_enter_nomask(fuse_req_t req, struct creds *c)
{
	return enter(req, c, 0);
}

int creds_enter_fsuid(uid_t uid, struct creds *c)
{
	c->switched = 0;
	c->raised = 0;
	creds_resource_uid(uid);
	if (!F.switch_creds || uid == 0)
		return 0;
	c->switched = 2;
	return take_fsuid(uid, c);
}

void creds_leave(struct creds *c)
{
	if (!c->switched)
		return;
	syscall(SYS_setfsuid, base_uid);
	if (c->switched == 1) { /* not creds_enter_fsuid's fsuid alone */
		syscall(SYS_setfsgid, base_gid);
		syscall(SYS_setgroups, (size_t)base_ngroups, base_groups);
	}
	c->switched = 0;
}

int creds_sticky(fuse_req_t req, struct node *d, const struct stat *ent)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct stat ds;

	if (F.switch_creds || ctx->uid == 0)
		return 0; /* SOURCE checks the caller itself, or root may */
	if (fstat(d->fd, &ds) < 0)
		return -errno;
	if ((ds.st_mode & S_ISVTX) && ctx->uid != ent->st_uid &&
	    ctx->uid != ds.st_uid)
		return -EPERM;
	return 0;
}

/* The daemon's own user namespace, read once: a process with more than
 * one thread cannot move to another (unshare and setns refuse it). */
static pthread_once_t own_ns_once = PTHREAD_ONCE_INIT;
static struct stat own_ns;
static int own_ns_known;

static void own_ns_read(void)
{
	own_ns_known = stat("/proc/self/ns/user", &own_ns) == 0;
}

/* Has the caller the capability cap (of <linux/capability.h>)?  We know
 * only its uid and thread id: its effective capabilities are in
 * /proc/TID/status, and they count only if it shares our user namespace
 * (a container's root holds them in its own).  Where /proc cannot tell,
 * root has them. */
/* The caller's effective capabilities in *eff: 1; 0 if it has none here
 * (another user namespace); -1 if /proc cannot tell. */
static int caller_caps(fuse_req_t req, unsigned long long *eff)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	char path[64], line[128];
	struct stat ns;
	int r = -1;
	FILE *f;

	*eff = 0;
	if (ctx->pid <= 0)
		return -1;
	pthread_once(&own_ns_once, own_ns_read);
	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)ctx->pid);
	if (!own_ns_known || stat(path, &ns) < 0)
		return -1;
	if (ns.st_ino != own_ns.st_ino || ns.st_dev != own_ns.st_dev)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/status", (int)ctx->pid);
	f = fopen(path, "re");
	while (f && r < 0 && fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", eff) == 1)
			r = 1;
	if (f)
		fclose(f);
	return r;
}

int creds_capable(fuse_req_t req, int cap)
{
	unsigned long long eff;
	int r = caller_caps(req, &eff);

	return r < 0 ? fuse_req_ctx(req)->uid == 0 : (int)((eff >> cap) & 1);
}

/* What a thread loses when its fsuid leaves 0 (the kernel's CAP_FS_SET). */
#define FS_CAPS                                                          \
	(1ull << CAP_CHOWN | 1ull << CAP_DAC_OVERRIDE |                     \
	 1ull << CAP_DAC_READ_SEARCH | 1ull << CAP_FOWNER |                 \
	 1ull << CAP_FSETID | 1ull << CAP_MKNOD | 1ull << CAP_LINUX_IMMUTABLE | \
	 1ull << CAP_MAC_OVERRIDE)

int creds_retry(fuse_req_t req, struct creds *c, int r)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	unsigned long long want, have;

	if (c->switched != 1 || c->raised || (r != -EACCES && r != -EPERM))
		return 0;
	c->raised = 1;
	if (caller_caps(req, &want) <= 0 || !(want &= FS_CAPS))
		return 0;
	/* pid 0: this thread only (the raw call; the workers serve others) */
	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	have = d[0].effective | (unsigned long long)d[1].effective << 32;
	if (!(want & ~have))
		return 0; /* it had them: refused for another reason */
	have |= want;
	d[0].effective = (uint32_t)have;
	d[1].effective = (uint32_t)(have >> 32);
	/* beyond the daemon's permitted set: refused, and r stands */
	return syscall(SYS_capset, &h, d) == 0;
}

/*
 * CAP_SYS_RESOURCE lets a writer take the blocks a file system keeps for
 * root (ext4's reserved blocks) and pass disk quota hard limits.  A change
 * of fsuid does not take it away, so a root daemon's writes had it for
 * every caller.  Each worker thread keeps it in its effective set only
 * while it serves a caller with user ID 0: a change from one kind of
 * caller to the other costs a capset, the same kind nothing.  (A non-root
 * caller that holds the capability itself does not have it through the
 * view: foldfs(8).)  The file system asks at the moment it reserves, in
 * the writing thread: ext4 reserves delayed allocations at write(2).
 * ext4 also gives its reserve to the fsuid it names (root by default):
 * writes that allocate take the caller's fsuid too (creds_enter_fsuid).
 */
void creds_resource(fuse_req_t req)
{
	creds_resource_uid(fuse_req_ctx(req)->uid);
}

void creds_resource_uid(uid_t uid)
{
	static __thread int have = -1; /* -1: not set by this thread yet */
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int want;

	if (!F.switch_creds)
		return; /* a user's daemon: it has no such capability */
	want = uid == 0;
	if (want == have)
		return;
	/* once tried, not again: a daemon whose permitted set lacks it
	 * (a capability bounding set) would fail the raise every time */
	have = want;
	if (syscall(SYS_capget, &h, d) < 0)
		return;
	if (want)
		d[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective |=
			CAP_TO_MASK(CAP_SYS_RESOURCE);
	else
		d[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective &=
			~CAP_TO_MASK(CAP_SYS_RESOURCE);
	/* pid 0: this thread only */
	syscall(SYS_capset, &h, d);
}
