/*
 * watch.c - notice changes made directly in SOURCE (or by another mount).
 *
 * Only directories with a built fold index are watched: they are the
 * ones whose private state (the index) can go stale.  Two ways:
 *
 *  inotify  (watch=inotify, or auto when it works): one watch per indexed
 *           directory.  Events are hints, not truth: an event is applied
 *           by looking at the directory now (fstatat of the name), so
 *           events of our own changes, duplicated or reordered events all
 *           converge.  A thread applies events as they come, and every
 *           user of an index first reads the pending events itself
 *           (watch_sync), so a change made outside the mount is seen by
 *           the next lookup after the changing system call has returned.
 *           Names are looked at one by one, so the index alone cannot
 *           prove a miss while SOURCE renames: resolve.c fences first.
 *           Queue overflow drops every index.
 *  poll     (watch=poll, or when inotify is unavailable or out of
 *           watches -- ours, -o max_watches, or the user's -- or auto
 *           on network/FUSE file systems, where inotify sees only this
 *           machine's changes): before an index is
 *           trusted, the directory's mtime and ctime (ns) are compared
 *           with the stamps taken when it was built; a difference means
 *           a rescan.  Our own changes refresh the stamps only if nothing
 *           else changed the directory before them.  With multigrain
 *           timestamps (Linux >= 6.13 on ext4, xfs, btrfs, tmpfs) a
 *           change after a stat always moves them; on a coarse clock a
 *           directory scanned within 3 s of its last change is scanned
 *           again 3 s later (dirindex.c).
 *
 * Either way the index is checked on every use, so lookups through the
 * mount see external changes at once; what the kernel has cached from
 * earlier replies is coherence.c's business (bounded by `timeout`).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "foldfs.h"

#define WATCH_MASK                                                       \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |           \
	 IN_DELETE_SELF | IN_ONLYDIR)

static int ifd = -1;  /* inotify instance, nonblocking */
static int stopfd = -1;
static pthread_t thr;
static int thr_started;
static pthread_mutex_t imutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_int warned_full;

/*
 * inotify watches count against a limit per user (per user namespace),
 * shared with every other program of that user: for a root daemon,
 * systemd, udev and the like, which fail once it is used up -- and a
 * mount over a big tree has an index, so a watch, in every directory
 * looked into.  So we take at most max_watches of them (-o max_watches,
 * by default a quarter of the limit); further directories are polled.
 */
static atomic_long n_watches;
static long max_watches = LONG_MAX;

static long read_limit(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int watch_init(void)
{
	if (F.watch == WATCH_POLL || F.nofold)
		return 0;
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ifd < 0) {
		if (F.watch == WATCH_INOTIFY)
			return -errno;
		/* auto: fall back to stamps */
		return 0;
	}
	if (F.max_watches >= 0) {
		max_watches = F.max_watches;
	} else {
		/* The first is this user namespace's limit, the second the
		 * initial namespace's (the same file there). */
		long a = read_limit("/proc/sys/user/max_inotify_watches");
		long b = read_limit("/proc/sys/fs/inotify/max_user_watches");
		long lim = a > 0 && (b <= 0 || a < b) ? a : b;
		if (lim > 0)
			max_watches = lim / 4;
	}
	dlog("watch: at most %ld inotify watches", max_watches);
	return 0;
}

/* File systems on which inotify reports only the changes made through
 * this machine's VFS mount, not those made elsewhere (other clients, the
 * server's or the FUSE daemon's backing store): inotify_add_watch()
 * succeeds there, but it would miss most changes. */
static int remote_fs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return 0;
	switch ((unsigned long)sf.f_type) {
	case 0x6969:	 /* NFS */
	case 0xff534d42: /* CIFS */
	case 0xfe534d42: /* SMB2 */
	case 0x517b:	 /* SMB */
	case 0x65735546: /* FUSE (sshfs, ...) */
	case 0x01021997: /* 9P */
	case 0x00c36400: /* Ceph */
	case 0x5346414f: /* AFS */
	case 0x6b414653: /* kAFS */
	case 0x73757245: /* Coda */
	case 0x47504653: /* GPFS */
	case 0x7461636f: /* OCFS2 */
	case 0x01161970: /* GFS2 */
	case 0x0bd00bd0: /* Lustre */
		return 1;
	}
	return 0;
}

void watch_dir(struct node *d)
{
	struct dirstate *ds = d->dir;
	char proc[64];
	int wd;

	if (ifd < 0) {
		ds->poll = 1;
		return;
	}
	if (F.watch == WATCH_AUTO && remote_fs(d->fd)) {
		static atomic_int warned_remote;
		if (!atomic_exchange(&warned_remote, 1))
			dlog("watch: network or FUSE file system: inotify "
			     "would miss changes made elsewhere; using "
			     "mtime/ctime checks there");
		ds->poll = 1;
		return;
	}
	if (atomic_fetch_add(&n_watches, 1) >= max_watches) {
		atomic_fetch_sub(&n_watches, 1);
		if (!atomic_exchange(&warned_full, 1))
			fprintf(stderr,
				"foldfs: %ld inotify watches in use "
				"(max_watches); using mtime/ctime checks for "
				"further directories\n", max_watches);
		ds->poll = 1;
		return;
	}
	node_procname(d, proc);
	wd = inotify_add_watch(ifd, proc, WATCH_MASK);
	if (wd < 0) {
		/* Out of watches (ENOSPC) or memory: this directory falls
		 * back to stamps; say so once. */
		atomic_fetch_sub(&n_watches, 1);
		if (!atomic_exchange(&warned_full, 1))
			fprintf(stderr,
				"foldfs: inotify_add_watch: %s; using "
				"mtime/ctime checks for further directories "
				"(raise fs.inotify.max_user_watches)\n",
				strerror(errno));
		ds->poll = 1;
		return;
	}
	if (node_set_wd(d, wd) < 0) {
		/* The same directory through another mount (a bind mount
		 * inside SOURCE: another node, inode.c) has this watch, and
		 * its events go to that node: this one checks stamps. */
		atomic_fetch_sub(&n_watches, 1);
		ds->poll = 1;
		return;
	}
	ds->wd = wd;
}

void watch_unwatch(struct node *d)
{
	struct dirstate *ds = d->dir;

	if (ds && ds->wd >= 0) {
		if (ifd >= 0)
			inotify_rm_watch(ifd, ds->wd);
		ds->wd = -1;
		atomic_fetch_sub(&n_watches, 1);
	}
	node_set_wd(d, -1);
}

/* ---- event application --------------------------------------------- */

struct pending {
	struct node *n; /* held */
	int wd;
	uint32_t mask; /* of the name's last event in its read */
	char name[NAME_BUF];
};

/* Apply one event to the index (imutex held).  Returns 1 if the caller
 * should recheck (n, name) in the index once the read's events are all
 * seen, then run coherence for it, with n held. */
static int apply(const struct inotify_event *ev, struct pending *out)
{
	struct node *n;
	struct dirstate *ds;

	if (ev->mask & IN_Q_OVERFLOW)
		return -1;
	n = node_hold_wd(ev->wd);
	if (!n)
		return 0;
	ds = n->dir;
	if (ev->mask & (IN_IGNORED | IN_DELETE_SELF)) {
		/* The directory is gone (or the watch was removed). */
		int put = 0;
		pthread_mutex_lock(&ds->ilock);
		if (ds->wd == ev->wd) {
			/* the kernel removed the watch */
			ds->wd = -1;
			atomic_fetch_sub(&n_watches, 1);
			node_set_wd(n, -1);
			put = idx_drop_locked(n);
			if (put)
				idx_unlink_lru(n);
		}
		pthread_mutex_unlock(&ds->ilock);
		if (put)
			node_put(n);
		node_put(n);
		return 0;
	}
	if (!ev->len || strlen(ev->name) >= NAME_BUF) {
		node_put(n);
		return 0;
	}
	out->n = n;
	out->wd = ev->wd;
	out->mask = ev->mask;
	snprintf(out->name, sizeof out->name, "%s", ev->name);
	return 1;
}

/*
 * Coherence for external changes is done by the watch thread alone, with
 * the directory's namespace lock held shared: it then never runs in the
 * middle of one of our own changes (which hold it exclusively), so the
 * events of our own changes find the ledger already settled and cost
 * nothing.  Lookups that read events on the way only queue the work.
 */
static pthread_mutex_t pq_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pending *pq;
static size_t pq_len, pq_cap;
static int pq_overflow;
static int wakefd = -1;

static void queue_pending(struct pending *p, size_t n, int overflow)
{
	pthread_mutex_lock(&pq_lock);
	if (pq_len + n > pq_cap) {
		size_t nc = pq_cap ? pq_cap : 64;
		while (nc < pq_len + n)
			nc *= 2;
		struct pending *np = realloc(pq, nc * sizeof *np);
		if (!np) {
			/* Cannot remember them: treat as lost events. */
			for (size_t i = 0; i < n; i++)
				node_put(p[i].n);
			n = 0;
			overflow = 1;
		} else {
			pq = np;
			pq_cap = nc;
		}
	}
	/* An overflow with no named event comes with p and pq NULL: no
	 * memcpy(), which is undefined for NULL even of no bytes (UBSan,
	 * fuzz-watch). */
	if (n)
		memcpy(pq + pq_len, p, n * sizeof *p);
	pq_len += n;
	pq_overflow |= overflow;
	pthread_mutex_unlock(&pq_lock);
}

static void drain(int from_thread)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pending *pend = NULL;
	size_t npend = 0, cap = 0;
	int overflow = 0, queued = INT_MAX, bounded = 0;

	pthread_mutex_lock(&imutex);
	/* Only the events queued now, those of every change that returned
	 * before this call: a process busy changing SOURCE would otherwise
	 * keep us reading its newer events for as long as it goes on.  The
	 * first read takes them all unless it fills buf; only then does
	 * FIONREAD bound the rest (below). */
	while (queued > 0) {
		ssize_t n = read(ifd, buf, sizeof buf);
		if (n <= 0)
			break;
		queued -= n > queued ? queued : (int)n;
		/* apply() looks at SOURCE as it is now, after every event
		 * of this read: a name needs one look per read, however many
		 * events it has in it (slot: its pend index + 1). */
		uint32_t seen[64] = { 0 };
		size_t first = npend;
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);
			uint32_t *slot = NULL;
			off += (ssize_t)(sizeof *ev + ev->len);
			if (ev->len) {
				uint32_t h = 2166136261u ^ (uint32_t)ev->wd;
				for (const char *c = ev->name; *c; c++)
					h = (h ^ (unsigned char)*c) * 16777619u;
				slot = &seen[h % 64];
				if (*slot && pend[*slot - 1].wd == ev->wd &&
				    !strcmp(pend[*slot - 1].name, ev->name)) {
					pend[*slot - 1].mask = ev->mask;
					continue;
				}
			}
			if (npend == cap) {
				size_t nc = cap ? cap * 2 : 16;
				struct pending *p = realloc(pend, nc * sizeof *p);
				if (!p) {
					overflow = 1;
					continue;
				}
				pend = p;
				cap = nc;
			}
			int r = apply(ev, &pend[npend]);
			if (r < 0) {
				overflow = 1;
			} else if (r > 0) {
				if (slot)
					*slot = (uint32_t)npend + 1;
				npend++;
			}
		}
		/* A name whose last event here is its unlink is absent for
		 * that reason: no other name came of it (resolve.c). */
		for (size_t i = first; i < npend; i++)
			dir_index_recheck(pend[i].n, pend[i].name,
					  !!(pend[i].mask & IN_DELETE));
		if (!bounded) {
			/* room left for the largest event: the queue is empty */
			if ((size_t)n <= sizeof buf - sizeof(struct inotify_event) -
						  NAME_MAX - 1)
				break;
			bounded = 1;
			if (ioctl(ifd, FIONREAD, &queued) < 0)
				queued = INT_MAX;
		}
	}
	/* Every index built so far may have missed changes: all stale. */
	if (overflow) {
		idx_drop_all();
		dlog("watch: inotify events lost (queue overflow or no memory): "
		     "every index dropped (fs.inotify.max_queued_events)");
	}
	pthread_mutex_unlock(&imutex);

	if (npend || overflow) {
		queue_pending(pend, npend, overflow);
		if (!from_thread) {
			uint64_t one = 1;
			if (write(wakefd, &one, sizeof one) < 0)
				dlog("watch: wake: %s", strerror(errno));
		}
	}
	free(pend);
}

static void run_pending(void)
{
	for (;;) {
		struct pending *p;
		size_t n;
		int overflow;

		pthread_mutex_lock(&pq_lock);
		p = pq;
		n = pq_len;
		overflow = pq_overflow;
		pq = NULL;
		pq_len = pq_cap = 0;
		pq_overflow = 0;
		pthread_mutex_unlock(&pq_lock);
		if (!n && !overflow) {
			free(p);
			return;
		}
		/* Lost events: cached answers may be stale (only cache=epoch
		 * caches names whose staleness we promised to prevent). */
		if (overflow && F.fold_cache)
			coh_bump();
		for (size_t i = 0; i < n; i++) {
			struct node *d = p[i].n;
			pthread_rwlock_rdlock(&d->dir->ns);
			coh_external(d, p[i].name);
			pthread_rwlock_unlock(&d->dir->ns);
			node_put(d);
		}
		free(p);
	}
}

static void *watch_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p[3] = { { ifd, POLLIN, 0 },
				       { stopfd, POLLIN, 0 },
				       { wakefd, POLLIN, 0 } };
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[2].revents) {
			uint64_t v;
			if (read(wakefd, &v, sizeof v) < 0 && errno != EAGAIN)
				break;
		}
		if (p[0].revents)
			drain(1);
		run_pending();
	}
	return NULL;
}

int watch_start(void)
{
	if (ifd < 0)
		return 0;
	stopfd = eventfd(0, EFD_CLOEXEC);
	wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (stopfd < 0 || wakefd < 0)
		return -errno;
	if (pthread_create(&thr, NULL, watch_thread, NULL) != 0)
		return -EAGAIN;
	thr_started = 1;
	return 0;
}

void watch_stop(void)
{
	if (thr_started) {
		uint64_t one = 1;
		if (write(stopfd, &one, sizeof one) < 0)
			return;
		pthread_join(thr, NULL);
		thr_started = 0;
	}
	pthread_mutex_lock(&pq_lock);
	for (size_t i = 0; i < pq_len; i++)
		node_put(pq[i].n);
	free(pq);
	pq = NULL;
	pq_len = pq_cap = 0;
	pthread_mutex_unlock(&pq_lock);
}

/* ---- freshness before use ------------------------------------------- */

/*
 * The directory's stamps for a poll, under ilock.  On a network or FUSE
 * SOURCE fstat answers from the client's attribute cache, which NFS keeps
 * for acdirmin (30 s) and sshfs for 20 s: a change there would show that
 * late, not within `timeout`.  So once a `timeout` per directory the
 * server is asked (AT_STATX_FORCE_SYNC; a local file system ignores it),
 * in between the cache is good enough -- the bound we give.
 */
static int poll_stat(struct node *d, struct stat *st)
{
	struct dirstate *ds = d->dir;
	uint64_t now = now_ns();

	if (now - ds->asked_at < (uint64_t)(F.timeout * 1e9))
		return fstat(d->fd, st);
	ds->asked_at = now;
	return fd_stat_sync(d->fd, st);
}

void watch_sync(struct node *d)
{
	struct dirstate *ds = d->dir;
	struct stat st;
	int changed = 0;

	idx_sweep_gone();
	if (!ds->poll) {
		if (ifd >= 0 && thr_started)
			drain(0);
		return;
	}
	pthread_mutex_lock(&ds->ilock);
	if (ds->idx && poll_stat(d, &st) == 0 &&
	    (!ts_eq(&st.st_mtim, &ds->mtime) ||
	     !ts_eq(&st.st_ctim, &ds->ctime) ||
	     (ds->verify_at && now_ns() >= ds->verify_at))) {
		idx_mark_stale(d);
		ds->verify_at = 0;
		changed = 1;
	}
	pthread_mutex_unlock(&ds->ilock);
	if (changed) {
		/* Something outside the mount changed the directory: we do
		 * not know which names, so cached answers for it go. */
		if (!F.casefold_all)
			atomic_store(&ds->fold, -1); /* maybe the xattr too */
		coh_external_dir(d);
	}
}

void dir_stamp(struct node *d, struct dir_stamp *s)
{
	struct dirstate *ds = d->dir;
	struct stat st;

	s->valid = 0;
	if (!ds || !ds->poll)
		return;
	pthread_mutex_lock(&ds->ilock);
	if (ds->idx && fstat(d->fd, &st) == 0 &&
	    ts_eq(&st.st_mtim, &ds->mtime) && ts_eq(&st.st_ctim, &ds->ctime))
		s->valid = 1;
	pthread_mutex_unlock(&ds->ilock);
}

void watch_stamps_after(struct node *d, const struct dir_stamp *pre)
{
	struct dirstate *ds = d->dir;
	struct stat st;

	/* Only if the directory was unchanged right before our change:
	 * otherwise leave the old stamps so the next use rescans.  The new
	 * stamps also cover a change made in SOURCE between our change and
	 * this fstat, which nothing can tell apart from ours: so the index
	 * is checked again (a rescan) at its first use `timeout` seconds
	 * from now -- the bound the README gives for changes in SOURCE made
	 * while the view changes the same directory.  Not postponed by
	 * further changes, so a busy directory is rescanned once a timeout. */
	if (pre && pre->valid && fstat(d->fd, &st) == 0) {
		ds->mtime = st.st_mtim;
		ds->ctime = st.st_ctim;
		uint64_t at = now_ns() + (uint64_t)(F.timeout * 1e9);
		if (!ds->verify_at || ds->verify_at > at)
			ds->verify_at = at;
	}
}
