/*
 * prune.c - keeping the daemon inside its descriptor limit.
 *
 * Every node the kernel holds keeps an O_PATH descriptor open here (the
 * backing object must stay reachable however SOURCE is renamed), and the
 * kernel holds a node for as long as a dentry of it is cached, which,
 * with memory to spare, is every name ever looked up.  Without help,
 * `ls -l` of a directory larger than RLIMIT_NOFILE, or a walk of a large
 * tree, ends in EMFILE for every further lookup.
 *
 * Linux 6.18 lets a server ask the kernel to drop cached inodes nobody
 * uses (FUSE_NOTIFY_PRUNE, by node id); the kernel then sends FORGET and
 * the descriptors are closed.  When the node table grows past half of
 * the limit, this thread picks nodes the kernel has not looked up since
 * the last sweep (a clock: node_sweep() in inode.c) and asks for them to
 * be pruned until the table should be down to a quarter, after the fold
 * indexes of directories it has already forgotten, which hold their
 * nodes (dirindex.c).  The kernel leaves alone what is in use (open
 * files, a working directory, a directory with cached children --
 * negative ones too, which only a named invalidation drops:
 * prune_negative_ok()).  Meanwhile readdirplus lists entries without
 * making nodes, and whatever opens a descriptor for a request (a lookup,
 * open, create, a lock's or an O_DIRECT request's own descriptor, a
 * directory read) and meets EMFILE waits for one round before it gives
 * up.
 *
 * On older kernels the notification is refused at the probe and nothing
 * here runs: the limit is then as high as main.c could raise it, and
 * foldfs(8) says what happens beyond it.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h> /* struct fuse_out_header */
#include <semaphore.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "foldfs.h"

#define NOTIFY_PRUNE 9 /* FUSE_NOTIFY_PRUNE, protocol 7.45 */
#define BATCH 512      /* ids per notification: the kernel's own batch */

static atomic_int available, pending, urgent, stopping;
static atomic_ulong begun, done; /* rounds, for prune_openat() */
static size_t high, low;	/* node counts: start pruning, aim for */
static sem_t kick_sem;
static pthread_t thread;
static int started;

static int send_prune(const uint64_t *ids, uint32_t count)
{
	struct {
		uint32_t count, padding;
		uint64_t spare;
	} arg = { count, 0, 0 };
	struct fuse_out_header h = {
		.len = (uint32_t)(sizeof h + sizeof arg + count * sizeof *ids),
		.error = NOTIFY_PRUNE, /* notify code goes in error */
		.unique = 0,
	};
	struct iovec iov[3] = {
		{ &h, sizeof h },
		{ &arg, sizeof arg },
		{ (void *)ids, count * sizeof *ids },
	};
	ssize_t r = writev(fuse_session_fd(F.se), iov, count ? 3 : 2);

	if (r == (ssize_t)h.len)
		return 0;
	return r < 0 ? -errno : -EIO;
}

/* One round: bring the table down to `low`.  First the fold indexes of
 * directories the kernel has forgotten, which hold their nodes
 * (dirindex.c): nobody is in those directories now, and up to half the
 * limit of them would otherwise keep the table above `high` for good,
 * every round taking from the kernel what it uses (`ls -l` then gets
 * names only).  Then unused nodes the kernel holds: two laps of the
 * clock at most, the first may only clear marks. */
static void prune_round(void)
{
	uint64_t ids[BATCH];
	size_t count = node_count(), want, sent = 0, evicted = 0, e;
	int laps = 0;

	want = count > low ? count - low : 0;
	while (evicted < want && (e = idx_evict_forgotten(want - evicted)))
		evicted += e;
	sent = evicted;
	while (sent < want && laps < 2) {
		int lap = 0;
		size_t n = node_sweep(ids, want - sent < BATCH ? want - sent
							       : BATCH, &lap);
		laps += lap;
		int r = n ? send_prune(ids, (uint32_t)n) : 0;
		if (r == -ENODEV || r == -ENOSYS || r == -EINVAL) {
			/* unmounted (or a kernel that refuses it after all):
			 * for good */
			atomic_store(&available, 0);
			return;
		}
		if (r) {
			/* ENOMEM and such: this round ends, the next (the
			 * next kick) tries again */
			dlog("prune: %s", strerror(-r));
			return;
		}
		sent += n;
	}
	dlog("prune: %zu nodes, dropped %zu indexes, asked the kernel to drop "
	     "%zu", count, evicted, sent - evicted);
}

static void *prune_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec tick = { 0, 2 * 1000 * 1000 };
		unsigned long freed;
		while (sem_wait(&kick_sem) != 0 && errno == EINTR)
			;
		if (atomic_load(&stopping))
			break;
		atomic_store(&pending, 0);
		atomic_fetch_add(&begun, 1);
		/* A new node's kick may be stale by now (the FORGETs of the
		 * last round landed since); an open that met EMFILE is not
		 * (prune_wait). */
		if (atomic_exchange(&urgent, 0) || node_count() >= high) {
			freed = node_freed();
			prune_round();
			/* The FORGETs come back asynchronously.  Once some
			 * have, the next kick is served at once: a walk that
			 * outran a fixed pause would meet EMFILE meanwhile (a
			 * -s worker does not wait).  If none come within 50
			 * ms, what is left is in use: at most one round per
			 * 50 ms, not a spin on it. */
			for (int i = 0; i < 25 && node_freed() == freed; i++)
				nanosleep(&tick, NULL);
		}
		atomic_fetch_add(&done, 1);
	}
	return NULL;
}

int prune_start(void)
{
	struct rlimit rl;
	rlim_t lim = 1 << 20;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		lim = rl.rlim_cur;
	high = (size_t)lim / 2;
	low = (size_t)lim / 4;
	if (send_prune(NULL, 0) != 0) {
		dlog("prune: the kernel refused FUSE_NOTIFY_PRUNE (Linux < "
		     "6.18): up to %llu descriptors, one per cached inode",
		     (unsigned long long)lim);
		return 0;
	}
	if (sem_init(&kick_sem, 0, 0) != 0 ||
	    pthread_create(&thread, NULL, prune_main, NULL) != 0)
		return -1;
	started = 1;
	atomic_store(&available, 1);
	dlog("prune: the kernel is asked to drop unused inodes beyond %zu "
	     "nodes (limit %llu descriptors)", high, (unsigned long long)lim);
	return 0;
}

void prune_stop(void)
{
	if (!started)
		return;
	atomic_store(&available, 0);
	atomic_store(&stopping, 1);
	sem_post(&kick_sem);
	pthread_join(thread, NULL);
	started = 0;
}

/* A round will begin after this (one already asked for counts). */
static void kick(void)
{
	if (!atomic_exchange(&pending, 1))
		sem_post(&kick_sem);
}

void prune_note(size_t count)
{
	if (count >= high && atomic_load(&available))
		kick();
}

int prune_pressure(void)
{
	if (!atomic_load(&available) || node_count() < high)
		return 0;
	/* A round, even if no new node asks for one: the last may have left
	 * the table above `high` (the kernel forgot directories that their
	 * indexes hold, which the next round drops), and a listing of names
	 * only makes no nodes. */
	kick();
	return 1;
}

int prune_negative_ok(void)
{
	return !atomic_load(&available) || node_count() < low;
}

int prune_wait(int err)
{
	unsigned long b;

	if ((err != EMFILE && err != ENFILE) || !atomic_load(&available))
		return 0;
	b = atomic_load(&begun);
	/* a round, also when no new node asks for one (they cannot be
	 * made now) */
	atomic_store(&urgent, 1);
	kick();
	/* -s: the one worker waiting here is the one that would take the
	 * FORGETs, so waiting frees nothing; this request fails, the next
	 * ones find room */
	if (F.single)
		return 0;
	/* wait (up to 1 s) for a round that begins from now on, and for
	 * its FORGETs */
	for (int i = 0; i < 200 && atomic_load(&done) <= b; i++) {
		struct timespec t = { 0, 5 * 1000 * 1000 };
		nanosleep(&t, NULL);
	}
	return 1;
}

int prune_openat(int dfd, const char *name)
{
	return src_openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
}
