/*
 * ops_lock.c - file locks through the view, passed through to SOURCE so
 * that they also exclude processes using SOURCE directly (or another
 * mount of it): flock() and POSIX record locks (fcntl F_SETLK and OFD
 * locks), with waiters kept out of the worker pool.
 *
 * flock() goes to the file handle's backing descriptor.
 *
 * POSIX record locks belong to a lock owner (a process, or for OFD locks
 * an open file description), which the kernel names by an opaque number
 * (fi->lock_owner).  The daemon is one process, so its own POSIX locks
 * would all have one owner; instead each owner gets an open file
 * description of its own on the object (the owner's "lock fd") and its
 * locks are OFD locks on that: they conflict with every other owner's,
 * split and merge per owner as POSIX says, and conflict with ordinary
 * POSIX and OFD locks that others take in SOURCE.  A process's locks go
 * when it closes any descriptor of the file (FLUSH names the owner); an
 * OFD owner's when its file is released (RELEASE; a process owner that
 * used that file handle has flushed before, so what is left of it are OFD
 * owners).  The kernel sends RELEASE in the background, and a file opened
 * meanwhile may have the released one's memory and so its owner number:
 * its locks then join the owner's entry, which the late RELEASE must not
 * drop (it would drop them too).  So an entry goes with the release of
 * the file handle it last came through; a released file's locks that the
 * new one did not replace stay until the new one is released.  The lock
 * fd is opened read-write when possible, so one
 * description serves read and write locks (while it is open the file
 * cannot be executed: ETXTBSY); else with the access the daemon has (an
 * owner then cannot get the other kind: EBADF, as for a descriptor of
 * the wrong mode).  F_GETLK reports the pid of a holder
 * that took its lock through the view, or of a process holding a POSIX
 * lock in SOURCE; an OFD lock taken in SOURCE is reported with pid 0.
 *
 * Cached data: the kernel keeps the view's pages and attributes of a file
 * for a while, so a process that takes a lock to read what a process
 * using SOURCE wrote under the same lock would read stale data.  So, as
 * NFS does, a granted lock revalidates: the daemon drops the kernel's
 * cached pages and attributes of the file (notify_inval_inode) before it
 * answers -- only if SOURCE's file changed (ctime, mtime, size) since the
 * last lock of the same owner (POSIX) or through the same file handle
 * (flock), or its ctime was then too recent to be trusted (a change in
 * the same clock tick would not show -- unless SOURCE's file system gives
 * fine-grained change times, see locks_init()); never with -o
 * lockcache=keep.  (Programs that lock often pay for needless drops:
 * SQLite's transactions, measured.)  Dropping pages may wait for a page
 * lock that a reader of the file holds while its READ waits for a worker:
 * another worker answers it.  In single-threaded mode (-s) there is no
 * other, so every lock request goes to a thread of its own.
 *
 * Waiting: a blocking flock() or F_SETLKW that cannot be granted at once
 * may wait for as long as the holder likes; done in a worker of libfuse's
 * pool it would take that worker with it, and a few such waiters -- any
 * user can start them -- would leave no worker for anybody's stat().  So
 * a worker only ever tries without waiting; a request that has to wait
 * gets a small thread of its own, outside the pool, which retries with a
 * growing pause (1 ms to 20 ms) until it is granted, fails, or the kernel
 * interrupts the request (the caller caught a signal: EINTR).  Polling
 * rather than a blocking call keeps the interruption free of races with
 * signal delivery; a waiter costs one sleeping thread and no CPU to speak
 * of.  Waiters are capped (MAX_WAITERS); beyond that a blocking request
 * fails with ENOLCK rather than take a worker; so does a waiter when the
 * daemon shuts down (locks_quiesce).
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "foldfs.h"

#define MAX_WAITERS 4096
#define WAITER_STACK (64 * 1024)

/* ---- waiters ------------------------------------------------------------ */

/* try(arg): 0 granted, EWOULDBLOCK/EAGAIN/EACCES not yet, else an errno;
 * fin(arg) after the reply; once: try only once (a request that must not
 * wait, handed over for another reason). */
struct waiter {
	fuse_req_t req;
	int (*try)(void *arg);
	void (*fin)(void *arg);
	void *arg;
	int once;
	atomic_int interrupted;
};

static atomic_int nwaiters;
static atomic_int stopping; /* the daemon is shutting down */

/* An answer from try() that means "not yet". */
static int not_yet(int err)
{
	return err == EWOULDBLOCK || err == EAGAIN || err == EACCES ||
	       err == EINTR;
}

/* Called by libfuse under the request's lock, never after our reply. */
static void on_interrupt(fuse_req_t req, void *data)
{
	struct waiter *w = data;

	(void)req;
	atomic_store(&w->interrupted, 1);
}

static void *wait_for_lock(void *arg)
{
	struct waiter *w = arg;
	long pause_ns = 1000000;
	int err;

	for (;;) {
		err = w->try(w->arg);
		if (w->once || !not_yet(err))
			break;
		if (atomic_load(&w->interrupted) || fuse_req_interrupted(w->req)) {
			err = EINTR;
			break;
		}
		if (atomic_load(&stopping)) {
			/* not EINTR: without a signal pending the kernel
			 * would hand its restart code (512) to the caller */
			err = ENOLCK;
			break;
		}
		struct timespec ts = { 0, pause_ns };
		nanosleep(&ts, NULL);
		if (pause_ns < 20000000)
			pause_ns *= 2;
	}
	fuse_reply_err(w->req, err);
	w->fin(w->arg);
	free(w);
	atomic_fetch_sub(&nwaiters, 1);
	return NULL;
}

/* The session loop has ended (unmount or signal) but a waiter may still
 * be polling: it must answer (ENOLCK) while the device is open and be
 * gone before the session is destroyed, which its request points into.
 * A waiter sleeps at most 20 ms between tries and a try never blocks. */
void locks_quiesce(void)
{
	atomic_store(&stopping, 1);
	for (int ms = 0; ms < 2000 && atomic_load(&nwaiters) > 0; ms++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* Hand a request that has to wait (or, once, must be answered from
 * outside the worker) to a thread of its own, which replies and calls
 * fin(arg).  If that is not possible, reply ENOLCK and call fin(arg)
 * here. */
static void wait_apart(fuse_req_t req, int (*try)(void *), void (*fin)(void *),
		       void *arg, int once)
{
	struct waiter *w = NULL;
	pthread_attr_t at;
	pthread_t thr;
	int r = -1;

	if (atomic_fetch_add(&nwaiters, 1) < MAX_WAITERS)
		w = malloc(sizeof *w);
	if (w) {
		w->req = req;
		w->try = try;
		w->fin = fin;
		w->arg = arg;
		w->once = once;
		atomic_init(&w->interrupted, 0);
		/* Registered before the thread exists: it may reply (and so
		 * end the registration) at once. */
		fuse_req_interrupt_func(req, on_interrupt, w);
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, WAITER_STACK);
		r = pthread_create(&thr, &at, wait_for_lock, w);
		pthread_attr_destroy(&at);
	}
	if (r != 0) {
		/* No thread: answer from here (the interrupt registration
		 * ends with the reply, before w goes). */
		fuse_reply_err(req, ENOLCK);
		free(w);
		fin(arg);
		atomic_fetch_sub(&nwaiters, 1);
	}
}

/* A lock request: tried at once by the worker, handed to a thread of its
 * own if it may wait and is not granted yet, or from the start in
 * single-threaded mode (a grant may drop the kernel's cache: see the
 * top; not with -o lockcache=keep).  Replies, then fin(arg). */
static void lock_request(fuse_req_t req, int (*try)(void *), void (*fin)(void *),
			 void *arg, int may_wait)
{
	int err;

	if (F.single && !F.lockkeep) {
		wait_apart(req, try, fin, arg, !may_wait);
		return;
	}
	err = try(arg);
	if (!may_wait || !not_yet(err)) {
		fuse_reply_err(req, err);
		fin(arg);
		return;
	}
	wait_apart(req, try, fin, arg, 0);
}

/* ---- revalidation -------------------------------------------------------- */

/* Drop the kernel's cached pages and attributes of n (the inode may be
 * unknown to the kernel by now: nothing to drop then).  Callers skip it,
 * and the bookkeeping that decides it, under -o lockcache=keep. */
static void drop_cache(struct node *n)
{
	fuse_lowlevel_notify_inval_inode(F.se, node_id(n), 0, 0);
}

/* How old a ctime must be to be trusted: a change within the same tick
 * of the file system's clock keeps it (FAT counts in 2 s steps). */
#define SETTLED_SEC 3

static int same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* SOURCE's file system (F.root_dev) gives a file a new ctime at its next
 * change once its ctime has been looked at, however soon (multigrain
 * timestamps: Linux 6.13+ on ext4, xfs, btrfs, tmpfs).  Then a ctime is
 * trusted at once: revalidate()'s fstat() looks at it. */
static int fine_ctime;

/* Is that so?  Asked of an unnamed file in SOURCE (O_TMPFILE: never
 * visible, gone at close): change it, look, change it again, a few times;
 * a coarse clock gives the second change the first one's ctime.  Not
 * asked (coarse assumed) where the answer is unused or the view must not
 * write: -o lockcache=keep, -o ro, or no O_TMPFILE there. */
void locks_init(int dirfd)
{
	int fd, fine = 1;

	if (F.lockkeep || F.readonly)
		return;
	fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		dlog("lock revalidation: no O_TMPFILE in SOURCE (%s): "
		     "change times taken as coarse", strerror(errno));
		return;
	}
	for (int i = 0; i < 8 && fine; i++) {
		struct stat a, b;
		fine = write(fd, "x", 1) == 1 && fstat(fd, &a) == 0 &&
		       write(fd, "x", 1) == 1 && fstat(fd, &b) == 0 &&
		       !same_time(a.st_ctim, b.st_ctim);
	}
	close(fd);
	fine_ctime = fine;
	dlog("lock revalidation: SOURCE's change times are %s",
	     fine ? "fine-grained" : "coarse");
}

/* SOURCE's file as of a granted lock, if settled: its ctime was then old
 * enough (or fine_ctime) that a later change must show.  All zero before
 * the first lock. */
struct stamp {
	struct timespec ctim, mtim;
	off_t size;
	int settled;
};

/* Guards every stamp (an owner's and a file handle's). */
static pthread_mutex_t stamps_mu = PTHREAD_MUTEX_INITIALIZER;

/* Under stamps_mu: is SOURCE's file (as fstat() found it: *st) unchanged
 * since *sp was taken, and trusted to be?  *sp becomes *st. */
static int stamp_keep(struct stamp *sp, const struct stat *st,
		      const struct timespec *now)
{
	int keep = sp->settled && same_time(st->st_ctim, sp->ctim) &&
		   same_time(st->st_mtim, sp->mtim) && st->st_size == sp->size;
	sp->ctim = st->st_ctim;
	sp->mtim = st->st_mtim;
	sp->size = st->st_size;
	sp->settled = (fine_ctime && st->st_dev == F.root_dev) ||
		      now->tv_sec - st->st_ctim.tv_sec >= SETTLED_SEC;
	return keep;
}

/* A lock on n was granted through fd: drop the kernel's cache of the file
 * unless SOURCE's file is unchanged since *sp (see the top), which
 * get(arg), under stamps_mu, finds (NULL: no stamp, always drop). */
static void revalidate(struct node *n, int fd,
		       struct stamp *(*get)(void *arg), void *arg)
{
	struct stat st;
	struct timespec now;
	struct stamp *sp;
	int keep = 0;

	if (F.lockkeep)
		return; /* -o lockcache=keep: nothing to decide */
	if (fstat(fd, &st) < 0) {
		drop_cache(n);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&stamps_mu);
	sp = get(arg);
	if (sp)
		keep = stamp_keep(sp, &st, &now);
	pthread_mutex_unlock(&stamps_mu);
	if (!keep)
		drop_cache(n);
}

#define NBUCKETS 256

/* Locks belong to the object: a bind mount inside SOURCE shows it as two
 * nodes (inode.c), and a process's locks through the two paths must not
 * conflict, nor outlive a close on either, as natively. */
static int same_object(const struct node *a, const struct node *b)
{
	return a == b || (a->dev == b->dev && a->ino == b->ino);
}

static unsigned bucket(const struct node *n, uint64_t key)
{
	uint64_t h = ((uint64_t)n->dev * 0x100000001B3ull ^ (uint64_t)n->ino ^
		      key) * 0x9E3779B97F4A7C15ull;
	return (unsigned)(h >> 56) % NBUCKETS;
}

/* ---- flock() ------------------------------------------------------------ */

struct flock_wait {
	struct node *n;
	int fd, op;
};

/* Revalidation stamps of flock()s, one per file handle that took one (a
 * flock belongs to the open file description behind it), until the
 * handle is released: as an owner's for record locks. */
struct fstamp {
	struct fstamp *next;	/* hash chain */
	struct node *node;
	uint64_t fh;
	struct stamp st;
};
static struct fstamp *fstamps[NBUCKETS];
static atomic_uint nfstamps;

/* Under stamps_mu: the stamp of f's handle, made if need be (NULL if
 * memory is short: the lock then drops the cache). */
static struct stamp *flock_stamp(void *arg)
{
	struct flock_wait *f = arg;
	unsigned b = bucket(f->n, (uint64_t)f->fd);
	struct fstamp *t = fstamps[b];

	while (t && !(t->node == f->n && t->fh == (uint64_t)f->fd))
		t = t->next;
	if (!t) {
		t = calloc(1, sizeof *t);
		if (!t)
			return NULL;
		t->node = f->n;
		t->fh = (uint64_t)f->fd;
		node_hold(f->n);
		t->next = fstamps[b];
		fstamps[b] = t;
		atomic_fetch_add(&nfstamps, 1);
	}
	return &t->st;
}

/* Under stamps_mu: the handle fh of n is released. */
static void flock_stamp_drop(struct node *n, uint64_t fh)
{
	struct fstamp **pp = &fstamps[bucket(n, fh)], *t;

	while ((t = *pp) && !(t->node == n && t->fh == fh))
		pp = &t->next;
	if (!t)
		return;
	*pp = t->next;
	atomic_fetch_sub(&nfstamps, 1);
	node_put(n);
	free(t);
}

static int flock_try(void *arg)
{
	struct flock_wait *f = arg;

	if (flock(f->fd, f->op | LOCK_NB) < 0)
		return errno;
	if (!(f->op & LOCK_UN))
		revalidate(f->n, f->fd, flock_stamp, f);
	return 0;
}

void op_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
	      int op)
{
	struct flock_wait *f = malloc(sizeof *f);

	if (!f) {
		fuse_reply_err(req, ENOLCK);
		return;
	}
	f->n = node_of(ino);
	f->fd = (int)fi->fh;
	f->op = op & ~LOCK_NB;
	if (op & LOCK_UN) {
		fuse_reply_err(req, flock_try(f));
		free(f);
		return;
	}
	lock_request(req, flock_try, free, f, !(op & LOCK_NB));
}

/* ---- POSIX record locks ------------------------------------------------- */

/* A lock owner's lock fd on one object.  In the table while the owner
 * may hold locks; waiters hold references, so the fd outlives a FLUSH
 * that comes while they wait (they then wait as a new entry: "gone"). */
struct owner {
	struct owner *next;	/* hash chain */
	struct node *node;
	uint64_t owner;		/* fi->lock_owner */
	uint64_t fh;		/* the file handle it last came through */
	int fd;			/* its locks are OFD locks on this */
	pid_t pid;		/* the process that locked last, for F_GETLK */
	unsigned refs;		/* the table's and waiters' */
	int gone;		/* out of the table */
	struct stamp st;	/* as of the owner's last granted lock */
};

static struct owner *owners[NBUCKETS];
static pthread_mutex_t owners_mu = PTHREAD_MUTEX_INITIALIZER;
/* Entries in the table: every close and release asks, most while none. */
static atomic_uint nowners;

/* Under owners_mu. */
static struct owner *owner_find(const struct node *n, uint64_t owner)
{
	struct owner *o = owners[bucket(n, owner)];

	while (o && !(same_object(o->node, n) && o->owner == owner))
		o = o->next;
	return o;
}

/* Under owners_mu. */
static void owner_put(struct owner *o)
{
	if (--o->refs)
		return;
	close(o->fd);
	node_put(o->node);
	free(o);
}

/* Under owners_mu: take o out of the table and drop its locks (closing
 * its fd does, unless a waiter still uses it: then unlock all). */
static void owner_unlink(struct owner *o)
{
	struct owner **pp = &owners[bucket(o->node, o->owner)];
	struct flock all = { .l_type = F_UNLCK, .l_whence = SEEK_SET };

	while (*pp != o)
		pp = &(*pp)->next;
	*pp = o->next;
	atomic_fetch_sub(&nowners, 1);
	o->gone = 1;
	if (o->refs > 1)
		fcntl(o->fd, F_OFD_SETLK, &all);
	owner_put(o);
}

/* A description of n's object for an owner's locks: read-write if the
 * daemon may, else read-only or write-only.  O_NONBLOCK: never wait for a
 * lease holder.  -errno on failure; out of descriptors (after a pruning
 * round) is -ENOLCK, the lock table full, as fcntl(2) says. */
static int lock_fd_open(struct node *n)
{
	/* O_APPEND: an append-only file (chattr +a) opens for writing only
	 * so, and a write lock needs a descriptor open for writing */
	static const int modes[] = { O_RDWR, O_RDWR | O_APPEND, O_RDONLY,
				     O_WRONLY };
	char proc[64];
	int fd = -1;

	node_procname(n, proc);
	for (size_t i = 0; i < sizeof modes / sizeof modes[0] && fd < 0; i++) {
		int fl = modes[i] | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
		fd = open(proc, fl);
		if (fd < 0 && prune_wait(errno))
			fd = open(proc, fl);
		/* not a lesser mode: the owner would keep it (EBADF for
		 * the other kind of lock) */
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			return -ENOLCK;
	}
	return fd < 0 ? -errno : fd;
}

/* The entry of lock owner `owner` on n with a reference, created if need
 * be (as one coming through file handle fh); NULL with *err set if it
 * cannot be. */
static struct owner *owner_get(struct node *n, uint64_t owner, uint64_t fh,
			       pid_t pid, int *err)
{
	struct owner *o;
	int fd;

	pthread_mutex_lock(&owners_mu);
	o = owner_find(n, owner);
	if (o) {
		o->refs++;
		o->pid = pid;
		o->fh = fh;
		pthread_mutex_unlock(&owners_mu);
		return o;
	}
	pthread_mutex_unlock(&owners_mu);

	fd = lock_fd_open(n);
	if (fd < 0) {
		*err = -fd;
		return NULL;
	}
	pthread_mutex_lock(&owners_mu);
	o = owner_find(n, owner);
	if (o) {
		/* another request of the same owner was quicker */
		close(fd);
	} else {
		o = calloc(1, sizeof *o);
		if (!o) {
			pthread_mutex_unlock(&owners_mu);
			close(fd);
			*err = ENOLCK;
			return NULL;
		}
		o->node = n;
		o->owner = owner;
		o->fh = fh;
		o->fd = fd;
		o->refs = 1; /* the table's */
		node_hold(n);
		unsigned b = bucket(n, o->owner);
		o->next = owners[b];
		owners[b] = o;
		atomic_fetch_add(&nowners, 1);
	}
	o->refs++;
	o->pid = pid;
	o->fh = fh;
	pthread_mutex_unlock(&owners_mu);
	return o;
}

static void owner_release(void *arg)
{
	pthread_mutex_lock(&owners_mu);
	owner_put(arg);
	pthread_mutex_unlock(&owners_mu);
}

/* With the table empty there is nothing to drop; a lock taken while this
 * runs (another thread of the owner) counts as taken after the close. */
void locks_flush(struct node *n, uint64_t lock_owner)
{
	struct owner *o;

	if (!atomic_load(&nowners))
		return;
	pthread_mutex_lock(&owners_mu);
	o = owner_find(n, lock_owner);
	if (o)
		owner_unlink(o);
	pthread_mutex_unlock(&owners_mu);
}

void locks_release(struct node *n, uint64_t fh)
{
	if (!atomic_load(&nowners) && !atomic_load(&nfstamps))
		return;
	pthread_mutex_lock(&stamps_mu);
	flock_stamp_drop(n, fh);
	pthread_mutex_unlock(&stamps_mu);
	pthread_mutex_lock(&owners_mu);
	for (unsigned b = 0; b < NBUCKETS; b++) {
		struct owner *o = owners[b], *next;
		for (; o; o = next) {
			next = o->next;
			if (same_object(o->node, n) && o->fh == fh)
				owner_unlink(o);
		}
	}
	pthread_mutex_unlock(&owners_mu);
}

/* The lock request as an OFD lock (l_pid must be 0). */
static struct flock ofd_lock(const struct flock *l)
{
	struct flock x = *l;

	x.l_pid = 0;
	return x;
}

/* Does the OFD lock l (as F_OFD_GETLK reported it) belong to the open
 * file description fd?  The kernel lists a description's own OFD locks in
 * its fdinfo ("lock: 1: OFDLCK ADVISORY READ -1 fe:00:42 5 14"); asked
 * only where two owners hold the very same lock, which the comparison in
 * op_getlk() cannot tell apart. */
static int fd_holds(int fd, const struct flock *l)
{
	enum { CAP = 64 * 1024 }; /* about a thousand lock lines */
	char path[64], *buf, *cut;
	long long end = l->l_len ? (long long)(l->l_start + l->l_len - 1) : -1;
	size_t n = 0;
	ssize_t got = 1;
	int f, found = 0;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	buf = malloc(CAP);
	while (buf && n < CAP - 1 && (got = read(f, buf + n, CAP - 1 - n)) > 0)
		n += (size_t)got;
	close(f);
	if (!buf)
		return 0;
	buf[n] = 0;
	/* a last line cut by a full buffer is left out, not misread */
	if (n == CAP - 1 && (cut = strrchr(buf, '\n')) != NULL)
		cut[1] = 0;
	for (char *p = buf; !found && (p = strstr(p, "OFDLCK")) != NULL; p++) {
		char type[16], last[32];
		long long start, e;
		if (sscanf(p, "OFDLCK %*s %15s %*s %*s %lld %31s", type, &start,
			   last) != 3 || !strchr(p, '\n'))
			continue;
		e = strcmp(last, "EOF") ? strtoll(last, NULL, 10) : -1;
		found = !strcmp(type, l->l_type == F_RDLCK ? "READ" : "WRITE") &&
			start == (long long)l->l_start && e == end;
	}
	free(buf);
	return found;
}

void op_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
	      struct flock *lock)
{
	struct node *n = node_of(ino);
	struct flock l = ofd_lock(lock);
	struct owner *me, *o;
	int fd, r;

	pthread_mutex_lock(&owners_mu);
	me = owner_find(n, fi->lock_owner);
	/* the owner's own locks are no conflict: ask through its fd */
	fd = me ? me->fd : (int)fi->fh;
	r = fcntl(fd, F_OFD_GETLK, &l);
	if (r < 0) {
		r = errno;
		pthread_mutex_unlock(&owners_mu);
		fuse_reply_err(req, r);
		return;
	}
	if (l.l_type != F_UNLCK && l.l_pid == -1) {
		/* An OFD lock: if one of our owners holds it, that owner
		 * does not see it as a conflict through its own fd. */
		l.l_pid = 0;
		for (unsigned b = 0; b < NBUCKETS && !l.l_pid; b++)
			for (o = owners[b]; o && !l.l_pid; o = o->next) {
				struct flock t = ofd_lock(lock);
				if (!same_object(o->node, n) || o == me ||
				    fcntl(o->fd, F_OFD_GETLK, &t) < 0)
					continue;
				if (t.l_type != l.l_type || t.l_start != l.l_start ||
				    t.l_len != l.l_len)
					l.l_pid = o->pid;
			}
		/* Two owners with the same lock (shared, likely) each see
		 * the other's: ask the kernel whose it is. */
		for (unsigned b = 0; b < NBUCKETS && !l.l_pid; b++)
			for (o = owners[b]; o && !l.l_pid; o = o->next)
				if (same_object(o->node, n) && o != me &&
				    fd_holds(o->fd, &l))
					l.l_pid = o->pid;
	}
	pthread_mutex_unlock(&owners_mu);
	fuse_reply_lock(req, &l);
}

struct setlk_wait {
	struct owner *o;
	struct flock l;
	uint64_t fh;	/* the request's file handle */
	pid_t pid;	/* and process */
};

static struct stamp *owner_stamp(void *arg)
{
	return &((struct owner *)arg)->st;
}

/* The lock under owners_mu, so that a FLUSH (which drops the owner's
 * locks) comes wholly before or after; then revalidation. */
static int setlk_try(void *arg)
{
	struct setlk_wait *s = arg;
	struct owner *o;
	int err = 0;

	pthread_mutex_lock(&owners_mu);
	while (s->o->gone) {
		/* Another thread of the owner closed a descriptor of the
		 * file meanwhile: the locks it held went, but a request
		 * still waiting goes on waiting, as POSIX has it (a close
		 * of this request's own descriptor makes the kernel undo
		 * the lock it then gets).  It waits as the owner's new
		 * entry. */
		pthread_mutex_unlock(&owners_mu);
		o = owner_get(s->o->node, s->o->owner, s->fh, s->pid, &err);
		if (!o)
			return err;
		owner_release(s->o);
		s->o = o;
		pthread_mutex_lock(&owners_mu);
	}
	if (fcntl(s->o->fd, F_OFD_SETLK, &s->l) < 0)
		err = errno;
	pthread_mutex_unlock(&owners_mu);
	if (!err)
		revalidate(s->o->node, s->o->fd, owner_stamp, s->o);
	return err;
}

static void setlk_fin(void *arg)
{
	struct setlk_wait *s = arg;

	owner_release(s->o);
	free(s);
}

void op_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
	      struct flock *lock, int sleep)
{
	struct node *n = node_of(ino);
	struct flock l = ofd_lock(lock);
	struct setlk_wait *s;
	struct owner *o;
	int err = 0;

	if (lock->l_type == F_UNLCK) {
		/* nothing to do for an owner without a lock fd */
		pthread_mutex_lock(&owners_mu);
		o = owner_find(n, fi->lock_owner);
		if (o && fcntl(o->fd, F_OFD_SETLK, &l) < 0)
			err = errno;
		pthread_mutex_unlock(&owners_mu);
		fuse_reply_err(req, err);
		return;
	}
	o = owner_get(n, fi->lock_owner, fi->fh, lock->l_pid, &err);
	if (!o) {
		fuse_reply_err(req, err);
		return;
	}
	s = malloc(sizeof *s);
	if (!s) {
		owner_release(o);
		fuse_reply_err(req, ENOLCK);
		return;
	}
	s->o = o;
	s->l = l;
	s->fh = fi->fh;
	s->pid = lock->l_pid;
	lock_request(req, setlk_try, setlk_fin, s, sleep);
}
