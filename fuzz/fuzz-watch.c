/*
 * fuzz-watch.c - fs/watch.c, which keeps each folding directory's fold
 * index (fs/dirindex.c) in step with changes made directly in SOURCE,
 * run on real directories ($TMPDIR, else /tmp) with a real inotify
 * instance, and lookups answered as the daemon answers them
 * (resolve_name(), fs/resolve.c: watch_sync() then the index).
 *
 * SOURCE here is two directories, "a" and "b" (both folding, or "b"
 * plain), each inotify-watched or polled (watch=poll, by stamps), and a
 * plain directory "out" that nothing watches.  Names come from a small
 * alphabet of equivalent and distinct spellings (case, NFC/NFD, sharp s,
 * the Kelvin and Angstrom signs, a ligature, an ignorable, ill-formed
 * bytes, 254- and 255-byte names).
 *
 * "Events are hints, not truth": the events watch.c reads are the
 * kernel's, passed through a queue the input may tamper with before
 * watch.c reads it (read() and ioctl(FIONREAD) of the inotify descriptor
 * are this file's, objcopy'ed into watch.o, see fuzz/fuzz-fs.mk): events
 * duplicated, reordered, made up for names that did not change (stale),
 * for a watch that does not exist, IN_IGNORED or IN_DELETE_SELF of a
 * live watch, an event of the directory itself (no name), a flood of
 * events that fills watch.c's buffer (so the rest
 * is read as FIONREAD bounds it), and a queue overflow (the events after
 * some point lost, then IN_Q_OVERFLOW, as the kernel does).  Events are
 * never lost without that overflow: the kernel's promise.  Reads return
 * whole events as the kernel does, as many as fit.  Watches may be
 * refused (inotify_add_watch) and SOURCE may claim to be NFS (fstatfs,
 * under watch=auto): those directories are polled.  The watch thread
 * does not run on its own: pthread_create() is this file's too, and a
 * step runs one round of the thread (its poll() is this file's: it sees
 * what is queued, then stops the loop), so runs repeat exactly.
 *
 * The rule checked: after the changing system call has returned, a
 * lookup of any spelling answers what SOURCE's listing (readdir) gives:
 * the exact bytes if stored, else in a folding directory and for a well
 * formed spelling the bytewise smallest stored name with its key
 * (fold_key; the daemon uses fold_hash and fold_equal), else nothing.
 * Stricter, since resolve.c heals an entry the index holds wrongly by
 * looking: after watch_sync() the index holds exactly the listed names.
 * A lookup that races with a change in SOURCE (step 15) is held to less:
 * see late_change().
 * Also: every index holds its directory node once, and holds taken for
 * events are given back once the thread has run (node_hold/node_put
 * counted); no directory falls back to polling unless the input made
 * inotify_add_watch() fail for it or SOURCE is "NFS" (watches are
 * counted right: -o max_watches is 2 here, one per directory); under
 * cache=epoch an IN_Q_OVERFLOW read leads to a bump (coh_bump) when the
 * thread runs; no leak (LeakSanitizer).
 *
 * Input: byte 0 options: bit 0 "a" polls, bit 1 "b" polls, bit 2 "b"
 * does not fold, bit 3 strict, bit 4 ignorables (the record's flags),
 * bit 5 an external change slips in between our own change's stamps
 * (dir_stamp) and the change, with -o timeout=0: polling cannot tell it
 * from ours, and must see it within `timeout' (watch_stamps_after), so
 * at the next lookup here (otherwise timeout is 60 s: longer than a run),
 * bit 6 cache=epoch, bit 7 watch=auto on what fstatfs() calls NFS.
 * Then steps: an opcode byte (mod 16) and its argument bytes; a NAME
 * byte is a spelling (bits 0-4) in a directory (bits 5-6: a, b, out, a;
 * a lookup in "out" is one in "a"):
 *   0 13 14  lookup NAME             8   one round of the watch thread
 *   1  SOURCE: create NAME           9   check every spelling in a and b
 *   2  SOURCE: unlink (rmdir) NAME       and both indexes
 *   3  SOURCE: rename NAME NAME FL   10  the next inotify_add_watch()
 *      (FL % 4: 0 plain,                 fails (ENOSPC)
 *      NOREPLACE, EXCHANGE, plain)   11  drop NAME's directory's index
 *   4  SOURCE: mkdir NAME                (as eviction does)
 *   5  SOURCE: link NAME NAME        12  watch_sync() of NAME's directory
 *   6  our own change SUB NAME NAME:     only
 *      SUB % 3 create, unlink, rename, as the namespace calls apply it
 *      to the index (dir_index_change, with dir_stamp before)
 *   7  events KIND B: KIND % 8: 0 duplicate event B at KIND/8, 1 reverse
 *      a run of them, 2 a stale event (spelling B % 32, directory KIND
 *      bit 3, mask KIND bits 4-5, IN_ISDIR bit 6), 3 the same for a wd
 *      no directory has (B bit 7: IN_UNMOUNT, no name, of the
 *      directory's), 4 overflow: events after the B-th lost, then
 *      IN_Q_OVERFLOW, 5 IN_IGNORED, 6 IN_DELETE_SELF of a directory's
 *      watch (KIND bit 3), 7 a flood of 40 + B % 32 stale events of a
 *      long name (spelling 24 + B / 32; KIND bit 3: in front of the
 *      queue, bit 4: b's, bit 6: names made different by a number)
 *  15  a change in SOURCE during a lookup K NAME NAME L: K % 3 create,
 *      unlink, rename (NAME to NAME), its events queued only once a
 *      directory is read (getdents64, dirindex.c's, is this file's too)
 *      or after the lookup of L (in a or b), which must not miss what
 *      SOURCE held before and after the change, nor answer a name it
 *      held neither before nor after (see late_change())
 * At the end the thread runs and everything is checked (step 9).
 * FUZZ_WATCH_TRACE=1 in the environment prints the steps.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "foldfs.h"
#include "fuzz-holds.h"
#include "fuzz-ctx.h"

struct foldfs F;

#define NSP 32
#define LIST_MAX 64

static char sp[NSP][NAME_BUF];
static const char *const short_sp[24] = {
	"a", "A", "\xc3\xa9", "e\xcc\x81", "\xc3\x89", "E\xcc\x81",
	"\xc3\x9f", "ss", "SS", "\xe1\xba\x9e", "x\xff", "X\xff", "Dir",
	"dir", "DIR", "k", "K", "\xe2\x84\xaa", "a\xe2\x80\x8b",
	"\xef\xac\x81", "fi", "FI", "\xc3\x85", "\xe2\x84\xab",
};
static int eqv[NSP][NSP]; /* same fold key (under the record's flags) */
static int wellf[NSP];

static size_t g_at;
static int trace;

static void fail(const char *what, int d, const char *name)
{
	fprintf(stderr, "fuzz-watch: %s at byte %zu", what, g_at);
	if (d >= 0)
		fprintf(stderr, " (directory %c)", "abo"[d]);
	fprintf(stderr, "\n");
	if (name)
		fuzz_hex("name", name, strlen(name));
	abort();
}

/* ---- the directories and the stubbed daemon ---- */

static struct dirstate ds[2];
static struct node dirs[2], fake_root;
static int outfd = -1;
static char base[256];
static long refs[2];
static int add_fail_next, add_failed[2];
static unsigned long n_bumps;
/* watch=auto on what fstatfs() calls NFS: every directory polls */
static int remote;
/* an IN_Q_OVERFLOW was read since the thread last ran */
static int overflow_read;

static int dir_no(const struct node *n)
{
	return n == &dirs[0] ? 0 : n == &dirs[1] ? 1 : -1;
}

/* an "out" name is in neither watched directory */
static int fd_of(int d)
{
	return d == 2 ? outfd : dirs[d].fd;
}

struct node *node_root(void)
{
	return &fake_root; /* neither directory hides the record */
}

/* Whether a and b fold, as the input says; -1 in ds[].fold is "read the
 * attribute again" (watch_sync sets it after a change it cannot name). */
static int fold_want[2];

int dir_folds(struct node *d)
{
	int i = dir_no(d);

	if (i < 0)
		return 0;
	if (atomic_load(&ds[i].fold) < 0)
		atomic_store(&ds[i].fold, fold_want[i]);
	return atomic_load(&ds[i].fold) == 1;
}

void node_hold(struct node *n)
{
	if (dir_no(n) < 0)
		fail("node_hold of a node that is no directory", -1, NULL);
	refs[dir_no(n)]++;
}

void node_put(struct node *n)
{
	if (dir_no(n) < 0 || --refs[dir_no(n)] < 0)
		fail("node_put without a hold", dir_no(n), NULL);
}

int node_hold_if_forgotten(struct node *n)
{
	(void)n;
	return 0; /* the kernel holds both directories */
}

void node_procname(const struct node *n, char buf[64])
{
	snprintf(buf, 64, "/proc/self/fd/%d", n->fd);
}

/* The wd map: two entries. */
int node_set_wd(struct node *n, int wd)
{
	if (dir_no(n) < 0)
		fail("node_set_wd of a node that is no directory", -1, NULL);
	n->wd = wd;
	return 0;
}

struct node *node_hold_wd(int wd)
{
	for (int d = 0; d < 2; d++)
		if (wd >= 0 && dirs[d].wd == wd) {
			refs[d]++;
			return &dirs[d];
		}
	return NULL;
}

int prune_openat(int dfd, const char *name)
{
	return openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

void coh_external(struct node *d, const char *name)
{
	if (dir_no(d) < 0 || !*name)
		fail("coh_external of a node that is no directory", -1, name);
}

void coh_external_dir(struct node *d)
{
	if (dir_no(d) < 0)
		fail("coh_external_dir of a node that is no directory", -1,
		     NULL);
}

int coh_bump(void)
{
	n_bumps++;
	return 0;
}

/* watch.c's look at the file system type (watch=auto) */
int fuzz_fstatfs(int fd, struct statfs *sf)
{
	int r = fstatfs(fd, sf);

	if (r == 0 && remote)
		sf->f_type = 0x6969; /* NFS_SUPER_MAGIC */
	return r;
}

/* ---- the inotify queue watch.c reads ---- */

struct ev {
	int wd;
	uint32_t mask, cookie;
	char name[NAME_BUF]; /* "" for none */
};

#define VQ_MAX 1024
static struct ev vq[VQ_MAX];
static size_t nvq;
/* The events of a change in progress: not queued yet (step 15). */
static struct ev held[64];
static size_t nheld;
static int holding;
static int real_ifd = -1;
static int last_wd[2] = { 1, 1 }, max_wd = 1;

static size_t ev_bytes(const struct ev *e)
{
	size_t n = strlen(e->name);

	/* the kernel pads the name with NULs to the event's alignment */
	return sizeof(struct inotify_event) +
	       (n ? (n + 1 + sizeof(struct inotify_event) - 1) /
			    sizeof(struct inotify_event) *
			    sizeof(struct inotify_event)
		  : 0);
}

static size_t vq_bytes(void)
{
	size_t b = 0;

	for (size_t i = 0; i < nvq; i++)
		b += ev_bytes(&vq[i]);
	return b;
}

/* The kernel's answer to a full queue: what does not fit is lost, and
 * IN_Q_OVERFLOW ends the queue. */
static void vq_overflow_at(size_t at)
{
	if (at >= VQ_MAX)
		at = VQ_MAX - 1;
	if (at < nvq)
		nvq = at;
	if (nvq && vq[nvq - 1].mask == IN_Q_OVERFLOW)
		return; /* one is enough */
	memset(&vq[nvq], 0, sizeof vq[nvq]);
	vq[nvq].wd = -1;
	vq[nvq].mask = IN_Q_OVERFLOW;
	nvq++;
}

static void vq_push(const struct ev *e)
{
	if (nvq && vq[nvq - 1].mask == IN_Q_OVERFLOW)
		return; /* lost: the queue is full */
	if (nvq == VQ_MAX - 1) {
		vq_overflow_at(nvq);
		return;
	}
	vq[nvq++] = *e;
}

/* Move what the kernel has queued to the end of vq. */
static void vq_pull(void)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(real_ifd, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ie = (const void *)(buf + off);
			struct ev e;

			memset(&e, 0, sizeof e);
			e.wd = ie->wd;
			e.mask = ie->mask;
			e.cookie = ie->cookie;
			if (ie->len)
				snprintf(e.name, sizeof e.name, "%s", ie->name);
			off += (ssize_t)(sizeof *ie + ie->len);
			if (e.mask & IN_Q_OVERFLOW)
				vq_overflow_at(nvq);
			else if (holding && nheld < sizeof held / sizeof *held)
				held[nheld++] = e;
			else if (holding)
				fail("too many events of a change", -1, NULL);
			else
				vq_push(&e);
		}
	}
	if (n < 0 && errno != EAGAIN)
		fail("reading the inotify descriptor", -1, NULL);
}

/* The change in progress has returned: its events are queued. */
static void release(void)
{
	vq_pull();
	holding = 0;
	for (size_t i = 0; i < nheld; i++)
		vq_push(&held[i]);
	nheld = 0;
}

/* dirindex.c's reads of a directory (a scan, dir_fence): reading a
 * directory waits for the changes in progress in it, which have queued
 * their events when it returns (the kernel queues them under the
 * directory's lock).  Here any directory's will do: an earlier end of
 * the change is one more order it could have happened in. */
ssize_t fuzz_getdents64(int fd, void *buf, size_t n)
{
	if (holding)
		release();
	return getdents64(fd, buf, n);
}

int fuzz_inotify_init1(int flags)
{
	real_ifd = inotify_init1(flags);
	return real_ifd;
}

int fuzz_inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	int d = -1, wd;

	for (int k = 0; k < 2; k++) {
		char p[64];
		node_procname(&dirs[k], p);
		if (!strcmp(p, path))
			d = k;
	}
	if (d < 0)
		fail("a watch on another directory", -1, path);
	if (add_fail_next) {
		add_fail_next = 0;
		add_failed[d] = 1;
		errno = ENOSPC;
		return -1;
	}
	wd = inotify_add_watch(fd, path, mask);
	if (wd >= 0) {
		last_wd[d] = wd;
		if (wd > max_wd)
			max_wd = wd;
	}
	return wd;
}

/* read() of the inotify descriptor: whole events from vq, as many as
 * fit (the kernel's way). */
ssize_t fuzz_read(int fd, void *buf, size_t size)
{
	size_t off = 0, k = 0;

	if (fd != real_ifd)
		return read(fd, buf, size);
	vq_pull();
	for (; k < nvq && off + ev_bytes(&vq[k]) <= size; k++) {
		struct inotify_event *ie = (void *)((char *)buf + off);
		size_t len = ev_bytes(&vq[k]) - sizeof *ie;

		ie->wd = vq[k].wd;
		ie->mask = vq[k].mask;
		overflow_read |= (vq[k].mask & IN_Q_OVERFLOW) != 0;
		ie->cookie = vq[k].cookie;
		ie->len = (uint32_t)len;
		memset(ie->name, 0, len);
		memcpy(ie->name, vq[k].name, strlen(vq[k].name));
		off += sizeof *ie + len;
	}
	if (!k && nvq) {
		errno = EINVAL;
		return -1;
	}
	if (!k) {
		errno = EAGAIN;
		return -1;
	}
	memmove(vq, vq + k, (nvq - k) * sizeof *vq);
	nvq -= k;
	return (ssize_t)off;
}

int fuzz_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	int *v;

	va_start(ap, req);
	v = va_arg(ap, int *);
	va_end(ap);
	if (fd != real_ifd || req != FIONREAD)
		fail("an unexpected ioctl", -1, NULL);
	vq_pull();
	*v = (int)vq_bytes();
	return 0;
}

/* ---- the watch thread, run a round at a time ---- */

static void *(*thread_fn)(void *);
static void *thread_arg;
static int poll_calls;

int fuzz_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			void *(*fn)(void *), void *arg)
{
	(void)attr;
	memset(t, 0, sizeof *t);
	thread_fn = fn;
	thread_arg = arg;
	return 0;
}

int fuzz_pthread_join(pthread_t t, void **ret)
{
	(void)t;
	if (ret)
		*ret = NULL;
	return 0;
}

/* The thread's poll of {inotify, stop, wake}: the first call of a round
 * says what is there, the second stops the loop. */
int fuzz_poll(struct pollfd *p, nfds_t n, int timeout)
{
	int r;

	(void)timeout;
	if (n != 3 || p[0].fd != real_ifd)
		fail("an unexpected poll", -1, NULL);
	for (nfds_t i = 0; i < n; i++)
		p[i].revents = 0;
	if (poll_calls++) {
		p[1].revents = POLLIN;
		return 1;
	}
	r = poll(p + 1, n - 1, 0);
	if (r < 0)
		return r;
	vq_pull();
	if (nvq) {
		p[0].revents = POLLIN;
		r++;
	}
	return r;
}

static void check_holds(void)
{
	for (int d = 0; d < 2; d++) {
		const char *w = holds_wrong(refs[d], ds[d].idx != NULL);
		if (w)
			fail(w, d, NULL);
	}
}

static void thread_round(void)
{
	unsigned long bumps = n_bumps;

	if (!thread_fn)
		fail("the watch thread was not started", -1, NULL);
	poll_calls = 0;
	thread_fn(thread_arg);
	/* everything the events held is given back */
	check_holds();
	/* lost events: cache=epoch forgets every cached answer */
	if (overflow_read && F.fold_cache && n_bumps == bumps)
		fail("events were lost, and cached answers kept (no bump)", -1,
		     NULL);
	overflow_read = 0;
}

/* ---- SOURCE's listing and the rule ---- */

struct listing {
	size_t n;
	int sp[LIST_MAX]; /* spelling of each name */
};

static int sp_of(const char *name)
{
	for (int i = 0; i < NSP; i++)
		if (!strcmp(sp[i], name))
			return i;
	return -1;
}

static void list_read(int d, struct listing *l)
{
	int fd = openat(fd_of(d), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!dir)
		fail("cannot read a directory", d, NULL);
	l->n = 0;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int s = sp_of(de->d_name);
		if (s < 0 || l->n == LIST_MAX)
			fail("a name the fuzzer did not make", d, de->d_name);
		l->sp[l->n++] = s;
	}
	closedir(dir);
}

static int folds(int d)
{
	return fold_want[d];
}

/* The spelling s denotes in d: its own, else the smallest equivalent
 * stored one; -1 for none. */
static int denotes(int d, const struct listing *l, int s)
{
	int best = -1;

	for (size_t i = 0; i < l->n; i++)
		if (l->sp[i] == s)
			return s;
	if (!folds(d) || !wellf[s])
		return -1;
	for (size_t i = 0; i < l->n; i++)
		if (eqv[s][l->sp[i]] &&
		    (best < 0 || strcmp(sp[l->sp[i]], sp[best]) < 0))
			best = l->sp[i];
	return best;
}

static void check_lookup(int d, const struct listing *l, int s)
{
	char stored[NAME_BUF];
	struct stat st;
	int want = denotes(d, l, s);
	int r = resolve_name(&dirs[d], sp[s], stored, &st, NULL);

	if (want < 0 && r != -ENOENT) {
		fprintf(stderr, "fuzz-watch: answer %d, '%.40s'\n", r,
			r ? "" : stored);
		fail("a lookup found what SOURCE does not hold", d, sp[s]);
	}
	if (want >= 0 && (r != 0 || strcmp(stored, sp[want]))) {
		fprintf(stderr, "fuzz-watch: answer %d; rule: ", r);
		fuzz_hex("rule", sp[want], strlen(sp[want]));
		fail(r ? "a lookup missed what SOURCE holds"
		       : "a lookup answered another stored name than the rule",
		     d, sp[s]);
	}
}

/* After watch_sync(), the index (built if need be, as a lookup's miss
 * builds it) holds exactly the listed names. */
static void check_index(int d, const struct listing *l)
{
	int r;

	watch_sync(&dirs[d]);
	pthread_mutex_lock(&ds[d].ilock);
	r = idx_ensure(&dirs[d]);
	if (r < 0)
		fail("cannot build an index", d, NULL);
	for (size_t i = 0; i < l->n; i++)
		if (!idx_has(ds[d].idx, sp[l->sp[i]]))
			fail("the index lacks a stored name", d, sp[l->sp[i]]);
	if (idx_entries(ds[d].idx) != l->n)
		fail("the index holds a name SOURCE does not", d, NULL);
	idx_touch(&dirs[d]);
	pthread_mutex_unlock(&ds[d].ilock);
}

static void check_all(void)
{
	struct listing l;

	for (int d = 0; d < 2; d++) {
		list_read(d, &l);
		for (int s = 0; s < NSP; s++)
			check_lookup(d, &l, s);
		if (folds(d))
			check_index(d, &l);
	}
}

/* The watch count: a directory polls only where the input made
 * inotify_add_watch() fail for it (max_watches is one per directory). */
static void check_watches(const int poll0[2])
{
	for (int d = 0; d < 2; d++)
		if (ds[d].poll && !poll0[d] && !add_failed[d] && !remote)
			fail("a directory polls though a watch was free "
			     "(watch count)", d, NULL);
}

/* ---- the steps ---- */

static const char *name_of(unsigned char b, int *d)
{
	*d = (b >> 5 & 3) == 3 ? 0 : b >> 5 & 3;
	return sp[b & 31];
}

/* Remove stored name of directory fd dfd, a directory if it is one (the
 * fuzzer's directories hold nothing). */
static int remove_at(int dfd, const char *name)
{
	if (unlinkat(dfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

static void make_file(int d, const char *name)
{
	int fd = openat(fd_of(d), name,
			O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

/* Our own change, applied to the index as the namespace calls do
 * (fs/ops_entry.c); with option bit 5 an external change slips in
 * between the stamps and the change. */
static int slip_in;

static void own_change(unsigned sub, unsigned char b1, unsigned char b2)
{
	int d1, d2;
	const char *n1 = name_of(b1, &d1), *n2 = name_of(b2, &d2);
	struct dir_stamp pre1 = { 0 }, pre2 = { 0 };
	int r;

	if (d1 == 2 || (sub % 3 == 2 && d2 == 2))
		return; /* the mount sees only a and b */
	if (sub % 3 == 2) {
		struct stat s1, s2;

		/* Two names of one inode: the kernel sends no rename
		 * (vfs_rename returns 0 itself), and rename(2) would do
		 * nothing. */
		if (fstatat(dirs[d1].fd, n1, &s1, AT_SYMLINK_NOFOLLOW) == 0 &&
		    fstatat(dirs[d2].fd, n2, &s2, AT_SYMLINK_NOFOLLOW) == 0 &&
		    s1.st_ino == s2.st_ino && (d1 != d2 || strcmp(n1, n2)))
			return;
	}
	dir_stamp(&dirs[d1], &pre1);
	if (sub % 3 == 2)
		dir_stamp(&dirs[d2], &pre2);
	if (slip_in)
		make_file(d1, sp[(b1 + b2) & 31]);
	switch (sub % 3) {
	case 0:
		r = mknodat(dirs[d1].fd, n1, S_IFREG | 0644, 0);
		if (r == 0)
			dir_index_change(&dirs[d1], NULL, NULL, n1, &pre1);
		break;
	case 1:
		r = remove_at(dirs[d1].fd, n1);
		if (r == 0)
			dir_index_change(&dirs[d1], n1, NULL, NULL, &pre1);
		break;
	default:
		r = renameat(dirs[d1].fd, n1, dirs[d2].fd, n2);
		if (r == 0 && d1 == d2) {
			dir_index_change(&dirs[d1], n1, NULL, n2, &pre1);
		} else if (r == 0) {
			dir_index_change(&dirs[d1], n1, NULL, NULL, &pre1);
			dir_index_change(&dirs[d2], NULL, NULL, n2, &pre2);
		}
		break;
	}
}

static int wd_of(int d)
{
	return ds[d].wd >= 0 ? ds[d].wd : last_wd[d];
}

static void events(unsigned char kind, unsigned char b)
{
	static const uint32_t masks[4] = { IN_CREATE, IN_DELETE, IN_MOVED_FROM,
					   IN_MOVED_TO };
	int d = kind >> 3 & 1;
	struct ev e;

	vq_pull(); /* made up ones come after the kernel's */
	memset(&e, 0, sizeof e);
	switch (kind & 7) {
	case 0:
		if (nvq && nvq < VQ_MAX - 1) {
			size_t from = b % nvq, to = (kind >> 3) % (nvq + 1);
			e = vq[from];
			if (e.mask & IN_Q_OVERFLOW)
				break;
			if (to == nvq && vq[nvq - 1].mask & IN_Q_OVERFLOW)
				to--; /* nothing follows an overflow */
			memmove(vq + to + 1, vq + to, (nvq - to) * sizeof *vq);
			vq[to] = e;
			nvq++;
		}
		break;
	case 1:
		if (nvq) {
			size_t i = (b & 15) % nvq, j = i + (b >> 4) + 1;
			if (j > nvq)
				j = nvq;
			/* an overflow stays last: no event follows it */
			if (vq[nvq - 1].mask & IN_Q_OVERFLOW && j == nvq)
				j--;
			for (; j > i + 1; i++, j--) {
				e = vq[i];
				vq[i] = vq[j - 1];
				vq[j - 1] = e;
			}
		}
		break;
	case 2:
	case 3:
		e.wd = (kind & 7) == 2 ? wd_of(d) : max_wd + 1 + (b >> 5 & 3);
		e.mask = masks[kind >> 4 & 3] | (kind & 64 ? IN_ISDIR : 0);
		e.cookie = e.mask & (IN_MOVED_FROM | IN_MOVED_TO) ? b : 0;
		snprintf(e.name, sizeof e.name, "%s", sp[b & 31]);
		if ((kind & 7) == 3 && b & 128) {
			/* an event of the directory itself (IN_UNMOUNT) */
			e.wd = wd_of(d);
			e.mask = IN_UNMOUNT;
			e.cookie = 0;
			e.name[0] = 0;
		}
		vq_push(&e);
		break;
	case 4:
		vq_overflow_at(nvq ? b % (nvq + 1) : 0);
		break;
	case 5:
	case 6:
		e.wd = wd_of(d);
		e.mask = (kind & 7) == 5 ? IN_IGNORED : IN_DELETE_SELF;
		vq_push(&e);
		break;
	default: {
		size_t n = 40 + (b & 31), front = kind >> 3 & 1, at = 0;
		size_t len = strlen(sp[24 + (b >> 5)]);

		e.wd = wd_of(kind >> 4 & 1);
		e.mask = IN_CREATE;
		memcpy(e.name, sp[24 + (b >> 5)], len + 1);
		if (nvq && vq[nvq - 1].mask & IN_Q_OVERFLOW)
			break;
		if (nvq + n > VQ_MAX - 1)
			n = VQ_MAX - 1 - nvq;
		if (front) {
			memmove(vq + n, vq, nvq * sizeof *vq);
			nvq += n;
		} else {
			at = nvq;
			nvq += n;
		}
		for (size_t i = 0; i < n; i++) {
			/* bit 6: names that differ (in their last bytes),
			 * none of them stored */
			if (kind & 64)
				snprintf(e.name + len - 3, 4, "%03zu", i);
			vq[at + i] = e;
		}
		break;
	}
	}
}

/* Is stored spelling t, listed in l, an answer the rule could give for
 * spelling s in d? */
static int may_denote(int d, const struct listing *l, int s, int t)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->sp[i] == t)
			return t == s || (folds(d) && wellf[s] && eqv[s][t]);
	return 0;
}

/* Step 15: a change made in SOURCE while a lookup runs: its effect is
 * there, its events are not queued yet (a rename is visible before they
 * are, resolve.c); they come when something reads the directory (the
 * fence) or after the lookup.  What a lookup racing with a change in
 * SOURCE promises (resolve.c): no miss where SOURCE held an equivalent
 * name both before and after the change (a create could then make a
 * second one), and no name that it held neither before nor after.  (Not
 * the bytewise smallest: with several equivalent names stored, one whose
 * rename is under way may be passed over for another.) */
static void late_change(unsigned k, unsigned char b1, unsigned char b2,
			unsigned char bl)
{
	struct listing pre, post;
	char stored[NAME_BUF];
	struct stat st;
	int d1, d2, dl = bl >> 5 & 1;
	const char *n1 = name_of(b1, &d1), *n2 = name_of(b2, &d2);

	vq_pull(); /* the changes that returned before are queued */
	list_read(dl, &pre);
	holding = 1;
	switch (k % 3) {
	case 0:
		make_file(d1, n1);
		break;
	case 1:
		remove_at(fd_of(d1), n1);
		break;
	default:
		renameat(fd_of(d1), n1, fd_of(d2), n2);
		break;
	}
	list_read(dl, &post);
	int r = resolve_name(&dirs[dl], sp[bl & 31], stored, &st, NULL);
	int s = r == 0 ? sp_of(stored) : -1;
	int w0 = denotes(dl, &pre, bl & 31), w1 = denotes(dl, &post, bl & 31);

	if (r == 0 ? s < 0 || (!may_denote(dl, &pre, bl & 31, s) &&
			       !may_denote(dl, &post, bl & 31, s))
		   : r != -ENOENT || (w0 >= 0 && w1 >= 0)) {
		fprintf(stderr, "fuzz-watch: answer %d%s%.40s\n", r,
			r ? "" : " ", r ? "" : stored);
		fail(r ? "a lookup during a change missed what SOURCE holds "
			 "before and after it"
		       : "a lookup during a change answered a name SOURCE "
			 "held neither before nor after it",
		     dl, sp[bl & 31]);
	}
	release();
}

/* Steps read argument bytes past the end as 0. */
static unsigned char arg(const uint8_t *data, size_t size, size_t *pos)
{
	return *pos < size ? data[(*pos)++] : 0;
}

static void step(const uint8_t *data, size_t size, size_t *pos)
{
	unsigned op = data[(*pos)++] % 16;
	unsigned char b1, b2, b3;
	const char *n1, *n2;
	int d1, d2;
	struct listing l;

	switch (op) {
	case 1:
	case 4:
		n1 = name_of(arg(data, size, pos), &d1);
		if (op == 1)
			make_file(d1, n1);
		else
			mkdirat(fd_of(d1), n1, 0755);
		break;
	case 2:
		n1 = name_of(arg(data, size, pos), &d1);
		remove_at(fd_of(d1), n1);
		break;
	case 3:
		n1 = name_of(arg(data, size, pos), &d1);
		n2 = name_of(arg(data, size, pos), &d2);
		b3 = arg(data, size, pos) & 3;
		renameat2(fd_of(d1), n1, fd_of(d2), n2,
			  b3 == 1 ? RENAME_NOREPLACE : b3 == 2 ? RENAME_EXCHANGE : 0);
		break;
	case 5:
		n1 = name_of(arg(data, size, pos), &d1);
		n2 = name_of(arg(data, size, pos), &d2);
		linkat(fd_of(d1), n1, fd_of(d2), n2, 0);
		break;
	case 6:
		b1 = arg(data, size, pos);
		b2 = arg(data, size, pos);
		b3 = arg(data, size, pos);
		own_change(b1, b2, b3);
		break;
	case 7:
		b1 = arg(data, size, pos);
		b2 = arg(data, size, pos);
		events(b1, b2);
		break;
	case 8:
		thread_round();
		break;
	case 9:
		check_all();
		break;
	case 10:
		add_fail_next = 1;
		break;
	case 11:
		name_of(arg(data, size, pos), &d1);
		if (d1 < 2)
			dir_index_drop(&dirs[d1]);
		break;
	case 12:
		name_of(arg(data, size, pos), &d1);
		if (d1 < 2)
			watch_sync(&dirs[d1]);
		break;
	case 15:
		b1 = arg(data, size, pos);
		b2 = arg(data, size, pos);
		b3 = arg(data, size, pos);
		late_change(b1, b2, b3, arg(data, size, pos));
		break;
	default:
		b1 = arg(data, size, pos);
		name_of(b1, &d1);
		d1 &= 1;
		list_read(d1, &l);
		check_lookup(d1, &l, b1 & 31);
		break;
	}
}

/* ---- setup ---- */

static void empty_dir(int d)
{
	struct listing l;

	list_read(d, &l);
	for (size_t i = 0; i < l.n; i++)
		if (remove_at(fd_of(d), sp[l.sp[i]]) < 0)
			fail("cannot empty a directory", d, sp[l.sp[i]]);
}

static void cleanup(void)
{
	char p[512];

	for (int d = 0; d < 2; d++)
		dir_index_drop(&dirs[d]);
	watch_stop();
	for (int d = 0; d < 3; d++) {
		empty_dir(d);
		close(fd_of(d));
		snprintf(p, sizeof p, "%s/%c", base, "abo"[d]);
		rmdir(p);
	}
	rmdir(base);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	trace = getenv("FUZZ_WATCH_TRACE") != NULL;
	for (int i = 0; i < 24; i++)
		snprintf(sp[i], NAME_BUF, "%s", short_sp[i]);
	/* 255 bytes: "n"... then "a", "A" (and "N"...), NFC and NFD e-acute
	 * and NFC E-acute; 254 bytes of "n"; 254 and an ill-formed byte */
	for (int i = 24; i < NSP; i++)
		memset(sp[i], i == 25 || i == 29 ? 'N' : 'n', NAME_BUF - 1);
	sp[24][254] = 'a';
	sp[25][254] = 'A';
	sp[26][254] = 'A';
	memcpy(sp[27] + 253, "\xc3\xa9", 2);
	memcpy(sp[28] + 252, "e\xcc\x81", 3);
	memcpy(sp[29] + 253, "\xc3\x89", 2);
	sp[30][254] = 0;
	sp[31][254] = '\xff';

	snprintf(base, sizeof base, "%s/fuzz-watch.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		fail("mkdtemp", -1, base);
	for (int d = 0; d < 3; d++) {
		char p[512];
		int fd;

		snprintf(p, sizeof p, "%s/%c", base, "abo"[d]);
		if (mkdir(p, 0755) < 0 ||
		    (fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			fail("cannot make a directory", d, p);
		if (d == 2) {
			outfd = fd;
			continue;
		}
		dirs[d].fd = fd;
		dirs[d].type = S_IFDIR;
		dirs[d].dir = &ds[d];
		dirs[d].wd = -1;
		pthread_rwlock_init(&ds[d].ns, NULL);
		pthread_mutex_init(&ds[d].ilock, NULL);
		ds[d].wd = -1;
	}
	memset(&F.seed, 0x5a, sizeof F.seed);
	F.watch = WATCH_INOTIFY;
	F.max_watches = 2;
	F.index_mem = (size_t)64 << 20;
	if (fold_init(&F.ctx, "utf8", FOLD_CASEFOLD, 0) != 0 ||
	    watch_init() != 0 || watch_start() != 0)
		fail("cannot start watching", -1, NULL);
	atexit(cleanup);
}

/* The record's flags for this run, and the alphabet's classes under
 * them. */
static void set_ctx(unsigned opt)
{
	struct fold_ctx k;
	char key[NSP][4 * NAME_BUF];
	ssize_t kl[NSP];

	F.rec.flags = (opt & 8 ? FOLD_STRICT : 0) |
		      (opt & 16 ? FOLD_IGNORABLES : 0);
	if (fold_init(&F.ctx, "utf8", FOLD_CASEFOLD, F.rec.flags) != 0)
		fail("fold_init", -1, NULL);
	k = F.ctx;
	k.flags &= ~FOLD_STRICT;
	for (int i = 0; i < NSP; i++) {
		kl[i] = fold_key(&k, sp[i], strlen(sp[i]), key[i], sizeof key[i]);
		if (kl[i] < 0 || (size_t)kl[i] > sizeof key[i])
			fail("fold_key", -1, sp[i]);
		wellf[i] = fold_validate(&k, sp[i], strlen(sp[i]), NULL) == 0;
	}
	for (int i = 0; i < NSP; i++)
		for (int j = 0; j < NSP; j++)
			eqv[i][j] = kl[i] == kl[j] &&
				    !memcmp(key[i], key[j], (size_t)kl[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 1;
	int poll0[2];

	if (!base[0])
		setup();
	if (size < 1)
		return 0;
	/* Each run starts with empty directories, no index, no watch and
	 * no event queued. */
	for (int d = 0; d < 2; d++)
		dir_index_drop(&dirs[d]);
	for (int d = 0; d < 3; d++)
		empty_dir(d);
	vq_pull();
	nvq = 0;
	thread_round();
	set_ctx(data[0]);
	slip_in = data[0] >> 5 & 1;
	F.timeout = slip_in ? 0 : 60;
	F.fold_cache = data[0] >> 6 & 1;
	remote = data[0] >> 7 & 1;
	F.watch = remote ? WATCH_AUTO : WATCH_INOTIFY;
	for (int d = 0; d < 2; d++) {
		poll0[d] = ds[d].poll = data[0] >> d & 1;
		ds[d].verify_at = 0;
		fold_want[d] = !(d == 1 && (data[0] & 4));
		atomic_store(&ds[d].fold, fold_want[d]);
		add_failed[d] = 0;
	}
	add_fail_next = 0;

	while (pos < size) {
		g_at = pos;
		if (trace)
			fprintf(stderr, "step %u at %zu\n", data[pos] % 16, pos);
		step(data, size, &pos);
		check_watches(poll0);
	}
	g_at = size;
	thread_round();
	check_all();
	thread_round();
	check_watches(poll0);
	return 0;
}
