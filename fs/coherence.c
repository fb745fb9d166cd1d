/*
 * coherence.c - keeping the kernel's dentry cache truthful for every
 * spelling.
 *
 * THE PROBLEM
 * The kernel caches one dentry per spelling, positive or negative, and
 * knows nothing about folding.  After `touch foo; stat FOO; rm foo` the
 * dentry "FOO" still points at the dead file; after `stat foo` (ENOENT,
 * cached) and `touch FOO`, "foo" still says ENOENT.  The rule we keep:
 * once the operation that changed a name has returned, no process sees
 * a stale answer for any spelling of it.
 *
 * WHAT WE CANNOT USE
 * fuse_lowlevel_notify_inval_entry() takes the parent directory's inode
 * lock, which the VFS holds while it waits for our reply to
 * create/unlink/rename/..., so it cannot be called before replying
 * (deadlock), and after the reply it is too late to be the only means.
 *
 * THE MODES (-o cache=)
 *  none   Folding directories hand out nothing the kernel may trust
 *         later: a positive entry carries entry_timeout 0 (the dentry is
 *         revalidated, i.e. looked up again, at every use) and a miss is
 *         answered fuse_reply_err(ENOENT), which leaves no valid negative
 *         dentry.  Every path walk asks us, so it is always right, also
 *         for changes made directly in SOURCE.  Nothing is cached in
 *         plain directories either: no negative (an empty plain directory
 *         can become folding by chattr +F), no positive, a directory's
 *         neither (a rename keeps a dentry's timeout: moved into a folding
 *         directory it would be trusted there); the epoch is never
 *         touched.
 *  auto   (default) As none for non-directories in folding directories,
 *         but entries of DIRECTORIES are cached for `timeout`: a directory
 *         has a single dentry; a lookup by another spelling moves it
 *         (d_splice_alias), and every change by name looks the name up
 *         under the spelling it uses first, so the kernel can never keep a
 *         second, stale spelling of a directory.  Path walks through
 *         folding trees thus cost one round trip for the last component
 *         only.  Plain directories cache negatives too; when chattr
 *         toggles folding, the epoch is bumped (see below) to drop them
 *         (without epoch support they are not cached).  A file renamed
 *         from a plain directory into a folding one keeps the timeout it
 *         got there (also when renamed on): coh_moved_in() queues its
 *         invalidation, which lands right after the rename, and notes it
 *         with that expiry until then, so that a change by another
 *         spelling meanwhile bumps the epoch (without epoch support only
 *         the invalidation remains: see foldfs(8)).
 *  epoch  Linux >= 6.16 has FUSE_NOTIFY_INC_EPOCH: every dentry records
 *         the connection's epoch read when its request was *sent*; a
 *         dentry older than the current epoch is invalid.  Bumping takes
 *         no lock (atomic_inc in fs/fuse/dev.c), so it can be done inside
 *         any operation before the reply.  Folding directories then cache
 *         positives and negatives for `timeout` seconds, and an operation
 *         bumps the epoch when, and only when, the kernel may hold some
 *         OTHER spelling of the changed name whose answer it changed.
 *         That is decided with the ledger below.  Measured on 6.18: a
 *         negative "foo" cached for 60 s is looked up again right after a
 *         bump sent from inside the MKNOD handler of "FOO".
 *         The price, and the reason this is not the default: after a bump
 *         the next walk through a directory d_invalidate()s its dentry
 *         before looking it up again, and meanwhile getcwd() of a process
 *         inside it fails with ENOENT (mounts below it are detached, too).
 *         With one spelling per name bumps are rare; with many they are
 *         not.  If the kernel refuses the notification (older kernels),
 *         epoch falls back to none.
 *
 * THE LEDGER
 * For every (directory, fold key) it lists the spellings whose answers
 * the kernel may still hold: what it was told (node id, or 0 for
 * "absent") and until when (timeout, plus a margin for the delay between
 * our reply and the kernel stamping the dentry).  Lookups in folding
 * directories add notes under the directory's namespace lock held shared;
 * changes hold it exclusively, so a note and the answer it describes are
 * atomic with respect to every change made through the mount.  After a
 * change (coh_changed) every other live spelling of the key is resolved
 * again; if its answer differs from what the kernel was told, the epoch
 * is bumped before the reply.  A lookup that raced ahead of the change
 * was sent before the bump, so its dentry carries the old epoch and is
 * invalid as well: the kernel reads the epoch before sending a LOOKUP,
 * and a successful revalidation never refreshes it.  readdirplus stamps
 * the epoch when the reply arrives, so its non-directory entries in
 * folding directories get entry_timeout 0 and need no notes.  Notes die
 * only when a bump numbered after them has completed (see `started`/
 * `done`), never while one is in flight, so two changes settling at the
 * same time cannot both skip the bump.  In auto/none mode the ledger
 * holds positive notes only, for the cleanup below.
 *
 * CLEANUP
 * A stale dentry that is merely revalidated still pins its inode: after
 * `stat FOO; rm foo` the unlinked file keeps its blocks while "FOO"
 * sits in the dcache.  So changed spellings are also queued for a worker
 * thread that sends notify_inval_entry after the reply, outside any
 * request, where blocking on the directory lock is harmless.  This is
 * cleanup only; correctness never waits for it.  A positive note that no
 * longer counts for correctness (expired, or older than a bump) is kept
 * for this while its node lives (kept_q), since the dentry outlives the
 * kernel's trust in it.
 *
 * CHANGES OUTSIDE THE MOUNT (watch.c): for an indexed directory every
 * event runs the same check (coh_external, by the watcher thread with the
 * namespace lock held shared, so never in the middle of our own change);
 * otherwise cached answers expire after `timeout` seconds.  Plain
 * directories cache like any passthrough (timeout); their coherence with
 * direct SOURCE changes is the usual FUSE bound.
 *
 * DIRECTORIES: since one dentry moves between spellings, cwd and open
 * handles stay valid and getcwd() shows the latest spelling.  We never
 * answer a lookup with an ancestor of the parent (nodes are keyed by
 * (dev, ino)), so ELOOP cannot come from us.
 *
 * The ledger is bounded (LEDGER_MAX notes): beyond it, epoch mode bumps
 * and starts afresh (always safe), the other modes forget the oldest
 * notes.  Those serve cleanup only, but for a moved-in file's under
 * cache=auto without the epoch: when one of those goes before it expires,
 * coh_timed() answers yes for every name it has no note of until then
 * (a rename then queues an invalidation it may not need).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/fuse.h> /* struct fuse_out_header / fuse_direntplus */

#include "foldfs.h"

/* Not in the installed <linux/fuse.h> (7.38): protocol 7.44. */
#define NOTIFY_INC_EPOCH 8

/* (smaller in fuzz/fuzz-coherence.c's build, to reach the bound) */
#ifndef LEDGER_MAX
#define LEDGER_MAX 65536
#endif
#define LEDGER_BUCKETS 16384 /* power of two */

struct lent {
	struct lent *hnext;
	struct lent *prev, *next; /* FIFO: oldest note first */
	uint64_t dir;		  /* directory node id */
	uint64_t key;		  /* fold hash of the spelling */
	uint64_t nodeid;	  /* what the kernel was told; 0 = absent */
	uint64_t expires;	  /* monotonic ns; UINT64_MAX = no expiry */
	uint64_t gen;		  /* bumps started when noted */
	uint64_t seq;		  /* noting number: which answer this is */
	uint16_t len;
	uint8_t isdir;		  /* nodeid is a directory */
	uint8_t kept;		  /* dead, kept for cleanup (kept_q) */
	char name[];
};

static pthread_mutex_t lg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lent *lg_tab[LEDGER_BUCKETS];
/* Two FIFOs, oldest first: live_q holds the notes in noting order (the
 * dead gather at its head); kept_q the dead positive notes whose node the
 * kernel still holds, for cleanup only: after `stat FOO` the dentry "FOO"
 * pins the file long after the kernel stopped trusting it, and `rm foo`
 * must still find "FOO" to invalidate it. */
struct fifo {
	struct lent *head, *tail;
};
static struct fifo live_q, kept_q;
static size_t lg_count;
static uint64_t lg_seq; /* notes made so far (lg_lock) */
/* Without the epoch a full ledger (or no memory) can cost a moved-in
 * file's note, which coh_timed() needs until it expires: until the latest
 * expiry lost that way, coh_timed() says yes for any name it has no note
 * of (an invalidation too many is harmless; one too few leaves the kernel
 * trusting a dentry that a rename made stale).  lg_lock. */
static uint64_t lg_timed_lost;

/*
 * Bump bookkeeping.  A bump increments `started`, writes the notification,
 * then raises `done` to its own number.  A note records `started` when it
 * is made (after its request was sent); it is dead once done > its gen:
 * the bump numbered above it was started after the note, so its write
 * followed the request, and it has completed.  A bump merely in progress
 * kills nothing, so a concurrent settle still sees the notes and cannot
 * reply before some bump covering them has landed.
 */
static atomic_ullong started, done;
static atomic_ullong bumps;

/* ---- ledger primitives (lg_lock held) -------------------------------- */

static size_t bucket(uint64_t dir, uint64_t key)
{
	uint64_t h = key ^ (dir * 0x9e3779b97f4a7c15ull);
	return (size_t)(h ^ (h >> 31)) & (LEDGER_BUCKETS - 1);
}

static void fifo_remove(struct fifo *q, struct lent *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		q->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		q->tail = e->prev;
	e->prev = e->next = NULL;
}

static void fifo_append(struct fifo *q, struct lent *e)
{
	e->prev = q->tail;
	e->next = NULL;
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
}

static void unlink_ent(struct lent *e)
{
	struct lent **pp = &lg_tab[bucket(e->dir, e->key)];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	e->hnext = NULL;
	fifo_remove(e->kept ? &kept_q : &live_q, e);
	lg_count--;
}

static void link_ent(struct lent *e)
{
	size_t b = bucket(e->dir, e->key);

	e->hnext = lg_tab[b];
	lg_tab[b] = e;
	e->kept = 0;
	fifo_append(&live_q, e);
	lg_count++;
}

static int live_at(uint64_t expires, uint64_t gen, uint64_t now)
{
	return expires > now && gen >= atomic_load(&done);
}
#define live(e, now) live_at((e)->expires, (e)->gen, (now))

/* A note is going before its time: remember what coh_timed() loses. */
static void lose_note(uint64_t expires, uint64_t gen, uint64_t now)
{
	if (expires != UINT64_MAX && live_at(expires, gen, now) &&
	    expires > lg_timed_lost)
		lg_timed_lost = expires;
}

/* Dead notes (they gather at live_q's head): positive ones whose node is
 * still held move to kept_q, the rest are freed; kept notes whose node
 * the kernel has forgotten go too (checked at kept_q's head). */
static void prune_locked(uint64_t now)
{
	while (live_q.head && !live(live_q.head, now)) {
		struct lent *h = live_q.head;
		if (h->nodeid && node_alive(h->nodeid)) {
			fifo_remove(&live_q, h);
			h->kept = 1;
			fifo_append(&kept_q, h);
		} else {
			unlink_ent(h);
			free(h);
		}
	}
	while (kept_q.head && !node_alive(kept_q.head->nodeid)) {
		struct lent *h = kept_q.head;
		unlink_ent(h);
		free(h);
	}
}

static void free_all_locked(void)
{
	lg_timed_lost = 0;
	while (live_q.head || kept_q.head) {
		struct lent *h = kept_q.head ? kept_q.head : live_q.head;
		unlink_ent(h);
		free(h);
	}
}

/* ---- the epoch ------------------------------------------------------- */

static int send_inc_epoch(void)
{
	struct fuse_out_header h = {
		.len = sizeof h,
		.error = NOTIFY_INC_EPOCH, /* notify code goes in error */
		.unique = 0,
	};
	ssize_t r = write(fuse_session_fd(F.se), &h, sizeof h);

	if (r == (ssize_t)sizeof h)
		return 0;
	return r < 0 ? -errno : -EIO;
}

void coh_probe(void)
{
	int r;

	F.fold_cache = 0;
	if (F.nofold || F.cache == CACHE_NONE) {
		atomic_store(&F.epoch, 0);
		return;
	}
	r = send_inc_epoch();
	atomic_store(&F.epoch, r == 0);
	if (r == 0 && F.cache == CACHE_EPOCH)
		F.fold_cache = 1;
	if (r != 0 && F.cache == CACHE_EPOCH) {
		/* as documented (and said): not auto, which would still
		 * cache directories for `timeout` */
		F.cache = CACHE_NONE;
		fprintf(stderr,
			"foldfs: the kernel refused FUSE_NOTIFY_INC_EPOCH (%s; "
			"needs Linux 6.16 or later): using cache=none\n",
			strerror(-r));
	}
	dlog("epoch notification %s; folding directories %s",
	     r == 0 ? "available" : "unavailable",
	     F.fold_cache ? "cached (cache=epoch)" : "not cached");
}

int coh_bump(void)
{
	unsigned long long mine, d;
	int r;

	if (!atomic_load(&F.epoch))
		return -1;
	mine = atomic_fetch_add(&started, 1) + 1;
	r = send_inc_epoch();
	if (r != 0) {
		/* Cannot happen once the probe passed, except at unmount;
		 * never cache again rather than be wrong. */
		fprintf(stderr, "foldfs: FUSE_NOTIFY_INC_EPOCH failed: %s; "
				"caching stops\n", strerror(-r));
		F.fold_cache = 0;
		atomic_store(&F.epoch, 0);
		return -1;
	}
	d = atomic_load(&done);
	while (d < mine && !atomic_compare_exchange_weak(&done, &d, mine))
		;
	atomic_fetch_add(&bumps, 1);
	dlog("epoch bumped (%llu)", (unsigned long long)mine);
	return 0;
}

/* ---- policy ---------------------------------------------------------- */

double coh_entry_timeout(struct node *d, int is_dir)
{
	if (!dir_folds(d)) {
		/* A rename keeps a dentry's timeout: under cache=none an
		 * entry cached here, a directory too, would stay trusted once
		 * moved into a folding directory, where nothing may be (a
		 * change made in SOURCE would not show at once). */
		return (F.cache == CACHE_NONE && !F.nofold) ? 0 : F.timeout;
	}
	if (F.fold_cache)
		return F.timeout;
	/* A directory has a single dentry: a lookup by another spelling
	 * moves it (d_splice_alias), and any change by name first looks it
	 * up under the spelling used.  So the kernel never holds a second,
	 * stale spelling of a directory and its entry may be cached; only
	 * cache=none refuses even that (changes in SOURCE show at once). */
	return (is_dir && F.cache != CACHE_NONE) ? F.timeout : 0;
}

int coh_cache_negative(struct node *d)
{
	if (F.timeout <= 0 || !prune_negative_ok())
		return 0;
	if (F.nofold)
		return 1;
	if (dir_folds(d))
		return F.fold_cache;
	/* A plain directory may become folding (chattr +F); its cached
	 * negatives are then dropped by a bump, so they need the epoch. */
	return atomic_load(&F.epoch);
}

/* ---- notes ----------------------------------------------------------- */

static uint64_t expiry(uint64_t now)
{
	/* The kernel stamps the dentry when the requester runs again after
	 * our reply, which under load can be late: be generous. */
	return now + (uint64_t)(F.timeout * 2e9) + 1000000000u;
}

/* The note of spelling name[0..len) in dir, or NULL (lg_lock held). */
static struct lent *find_locked(uint64_t dir, uint64_t key, const char *name,
				size_t len)
{
	struct lent *e = lg_tab[bucket(dir, key)];

	for (; e; e = e->hnext)
		if (e->dir == dir && e->key == key && e->len == len &&
		    !memcmp(e->name, name, len))
			return e;
	return NULL;
}

/* Insert or refresh a note (lg_lock held). */
static void note_locked(uint64_t dir, uint64_t key, const char *name,
			size_t len, uint64_t nodeid, int isdir,
			uint64_t expires)
{
	struct lent *e = find_locked(dir, key, name, len);
	uint64_t now = now_ns();

	if (e) {
		/* Newer request, newer answer: move it to the tail. */
		unlink_ent(e);
	} else {
		prune_locked(now);
		if (lg_count >= LEDGER_MAX && kept_q.head) {
			/* cleanup only: the oldest goes first */
			struct lent *h = kept_q.head;
			unlink_ent(h);
			free(h);
		}
		if (lg_count >= LEDGER_MAX) {
			struct lent *h = live_q.head;
			/* Forgetting live notes is only safe after a bump,
			 * which kills them all (under cache=auto only a
			 * moved-in file's note counts: coh_moved_in). */
			if (F.fold_cache ||
			    (h && h->expires != UINT64_MAX && live(h, now))) {
				pthread_mutex_unlock(&lg_lock);
				coh_bump();
				pthread_mutex_lock(&lg_lock);
				prune_locked(now);
			}
			if (lg_count >= LEDGER_MAX) {
				/* cleanup notes only (or the bump failed and
				 * nothing is cached any more); after a bump
				 * the live ones may all have gone to kept_q */
				h = kept_q.head ? kept_q.head : live_q.head;
				lose_note(h->expires, h->gen, now);
				unlink_ent(h);
				free(h);
			}
		}
		e = malloc(sizeof *e + len);
		if (!e) {
			/* Cannot record it: make sure nothing depends on
			 * it (cleanup notes may simply be lost). */
			int bumped = 0;
			if (F.fold_cache || expires != UINT64_MAX) {
				pthread_mutex_unlock(&lg_lock);
				bumped = coh_bump() == 0;
				pthread_mutex_lock(&lg_lock);
			}
			if (!bumped)
				lose_note(expires, atomic_load(&started), now);
			return;
		}
		e->dir = dir;
		e->key = key;
		e->len = (uint16_t)len;
		memcpy(e->name, name, len);
	}
	e->nodeid = nodeid;
	e->isdir = (uint8_t)isdir;
	e->expires = expires;
	e->gen = atomic_load(&started);
	e->seq = ++lg_seq;
	link_ent(e);
}

void coh_note(struct node *d, const char *name, uint64_t nodeid)
{
	size_t len = strlen(name);
	uint64_t exp;

	if (F.nofold || !dir_folds(d))
		return;
	if (F.fold_cache && F.timeout > 0) {
		exp = expiry(now_ns());
	} else {
		/* Nothing is cached: only positives matter, as pinned
		 * inodes to clean up; they stay until dropped. */
		if (!nodeid)
			return;
		exp = UINT64_MAX;
	}
	uint64_t key = fold_hash(&F.ctx, &F.seed, name, len);
	pthread_mutex_lock(&lg_lock);
	/* (the caller holds a lookup on nodeid: it is alive) */
	note_locked(node_id(d), key, name, len, nodeid,
		    nodeid && node_of(nodeid)->type == S_IFDIR, exp);
	pthread_mutex_unlock(&lg_lock);
}

/* A copy of a note, taken so that the ledger itself stays intact (and
 * visible to concurrent settles) while names are resolved. */
struct snap {
	struct snap *next;
	uint64_t nodeid, expires, gen, seq;
	int differs, isdir;
	int keep; /* differs, but stays noted (settle) */
	char name[NAME_BUF];
};

static struct snap *snapshot(uint64_t dir, uint64_t key, int *oom)
{
	struct snap *list = NULL;

	pthread_mutex_lock(&lg_lock);
	for (struct lent *e = lg_tab[bucket(dir, key)]; e; e = e->hnext) {
		if (e->dir != dir || e->key != key)
			continue;
		struct snap *c = malloc(sizeof *c);
		if (!c) {
			*oom = 1; /* cannot check it: settle() bumps */
			continue;
		}
		c->nodeid = e->nodeid;
		c->expires = e->expires;
		c->gen = e->gen;
		c->seq = e->seq;
		c->isdir = e->isdir;
		c->differs = 0;
		c->keep = 0;
		memcpy(c->name, e->name, e->len);
		c->name[e->len] = '\0';
		c->next = list;
		list = c;
	}
	pthread_mutex_unlock(&lg_lock);
	return list;
}

/* What would the kernel be told about `name` in d now?  Returns 1 if it
 * exists (*nodeid = its node id, 0 if it has no node), 0 if absent. */
static int current(struct node *d, const char *name, uint64_t *nodeid)
{
	char stored[NAME_BUF];
	struct stat st;
	struct node *n;
	uint64_t mnt;

	*nodeid = 0;
	if (resolve_name(d, name, stored, &st, &mnt) < 0)
		return 0;
	n = node_find(&st, mnt); /* as binding() in ops_entry.c */
	if (n) {
		*nodeid = node_id(n);
		node_put(n);
	}
	return 1;
}

static void inval_queue(struct node *d, const char *name, uint64_t seq,
			int must);

/*
 * Check the notes of one key after a change.  `skip` is the spelling the
 * operation itself used (the kernel updated that dentry itself), or NULL
 * for changes from outside.  A note whose answer changed is dropped and
 * queued for invalidation; if the kernel may still trust it, we bump.
 *
 * The notes stay in the ledger until the bump (which clears it) or until
 * they are known dead, so a concurrent settle of the same key sees them
 * too and cannot reply before the bump that covers them.
 */
static void settle(struct node *d, uint64_t key, const char *skip)
{
	uint64_t dir = node_id(d), now = now_ns();
	int bump = 0, dead = 0;
	struct snap *list = snapshot(dir, key, &bump), *c, *next;

	for (c = list; c; c = c->next) {
		uint64_t cur;
		int exists, trusted;

		if (skip && !strcmp(c->name, skip)) {
			c->differs = 1; /* the caller notes it afresh */
			dead = 1;
			continue;
		}
		exists = current(d, c->name, &cur);
		c->differs = c->nodeid ? (!exists || cur != c->nodeid) : exists;
		if (c->differs && c->nodeid && !node_alive(c->nodeid)) {
			/* Forgotten (checked after resolving, as it may be
			 * forgotten meanwhile): no dentry on it is left. */
			dead = 1;
			continue;
		}
		dlog("settle %s: told %llu now %s %llu%s", c->name,
		     (unsigned long long)c->nodeid,
		     exists ? "exists" : "absent", (unsigned long long)cur,
		     c->differs ? " DIFFERS" : "");
		if (!c->differs)
			continue;
		dead = 1;
		/* A directory's one dentry cannot be left behind under this
		 * spelling by a change through the mount (see
		 * coh_entry_timeout); a change from outside can. */
		/* a dentry the kernel may still trust */
		trusted = live(c, now) && c->expires != UINT64_MAX;
		if (trusted && (!c->isdir || !skip))
			bump = 1;
		/* Without the epoch a moved-in file's note stays until its
		 * invalidation lands (moved_dropped): the kernel trusts the
		 * dentry until then, and a rename on meanwhile must know it
		 * (coh_timed) to invalidate the new spelling too. */
		c->keep = trusted && !c->isdir && !atomic_load(&F.epoch);
		/* without the epoch, its invalidation is all there is */
		inval_queue(d, c->name, 0, trusted);
	}
	dlog("settle done (skip %s)%s", skip ? skip : "-", bump ? " bump" : "");
	if (bump)
		coh_bump(); /* kills every note made before it */
	if (dead) {
		/* The changed notes: after the bump (or if the kernel no
		 * longer trusts them anyway) they can go. */
		pthread_mutex_lock(&lg_lock);
		for (c = list; c; c = c->next) {
			if (!c->differs)
				continue;
			struct lent *e = find_locked(dir, key, c->name,
						     strlen(c->name));
			/* (unless a lookup noted it again meanwhile: with
			 * the namespace lock only shared (coh_external) it
			 * may have, even with the same node id, and then
			 * the kernel trusts that newer answer) */
			if (e && e->seq == c->seq && !c->keep) {
				unlink_ent(e);
				free(e);
			}
		}
		pthread_mutex_unlock(&lg_lock);
	}
	for (c = list; c; c = next) {
		next = c->next;
		free(c);
	}
}

void coh_changed(struct node *d, const char *name, uint64_t nodeid)
{
	size_t len = strlen(name);
	uint64_t key;

	if (F.nofold || !dir_folds(d))
		return;
	key = fold_hash(&F.ctx, &F.seed, name, len);
	settle(d, key, name);
	/* The kernel now holds the operation's own spelling. */
	coh_note(d, name, nodeid);
}

int coh_timed(struct node *d, const char *name)
{
	size_t len = strlen(name);
	struct lent *e;
	int timed;

	if (F.nofold || !dir_folds(d))
		return 1;
	if (F.fold_cache || F.cache != CACHE_AUTO)
		return 0; /* coh_moved_in() has nothing to do */
	/* moved in before: its note has a finite expiry */
	pthread_mutex_lock(&lg_lock);
	e = find_locked(node_id(d), fold_hash(&F.ctx, &F.seed, name, len),
			name, len);
	if (e)
		timed = e->expires != UINT64_MAX && live(e, now_ns());
	else
		timed = now_ns() < lg_timed_lost; /* it may have been evicted */
	pthread_mutex_unlock(&lg_lock);
	return timed;
}

void coh_moved_in(struct node *d, const char *name, uint64_t nodeid)
{
	size_t len = strlen(name);
	uint64_t key, seq;

	/* Only cache=auto has something to do: its folding directories
	 * hand out file entries with timeout 0 (epoch notes every answer
	 * with its expiry anyway; none caches no file in plain ones).  A
	 * renamed directory needs nothing either (see coh_entry_timeout). */
	if (F.nofold || !dir_folds(d) || F.fold_cache ||
	    F.cache != CACHE_AUTO || F.timeout <= 0 || !nodeid ||
	    node_of(nodeid)->type == S_IFDIR)
		return;
	/* The dentry is dropped right after the rename (the worker waits
	 * for the directory lock the rename holds).  Until then it is
	 * trusted: a change by another spelling meanwhile must bump
	 * (settle), so its note gets the plain directory's expiry, which
	 * the worker takes back once the dentry is gone.  Without the
	 * epoch the invalidations are all there is: the note still makes a
	 * rename on before the worker ran (coh_timed) invalidate the new
	 * spelling too, and a change meanwhile queue one that is never
	 * dropped. */
	key = fold_hash(&F.ctx, &F.seed, name, len);
	pthread_mutex_lock(&lg_lock);
	note_locked(node_id(d), key, name, len, nodeid, 0, expiry(now_ns()));
	seq = lg_seq; /* the note just made (or refreshed) */
	pthread_mutex_unlock(&lg_lock);
	inval_queue(d, name, seq, 1);
}

/* The worker dropped the moved-in dentry noted as number seq: the
 * kernel trusts it no more, the note serves cleanup only. */
static void moved_dropped(fuse_ino_t parent, const char *name, size_t len,
			  uint64_t seq)
{
	uint64_t key = fold_hash(&F.ctx, &F.seed, name, len);
	struct lent *e;

	pthread_mutex_lock(&lg_lock);
	e = find_locked(parent, key, name, len);
	if (e && e->seq == seq)
		e->expires = UINT64_MAX;
	pthread_mutex_unlock(&lg_lock);
}

void coh_external(struct node *d, const char *name)
{
	if (F.nofold || !dir_folds(d))
		return;
	settle(d, fold_hash(&F.ctx, &F.seed, name, strlen(name)), NULL);
}

void coh_external_dir(struct node *d)
{
	uint64_t dir = node_id(d), now = now_ns();
	int bump = 0;

	/* We do not know what changed: if the kernel may hold anything
	 * of this directory from us, drop it all. */
	pthread_mutex_lock(&lg_lock);
	for (struct lent *e = live_q.head; e; e = e->next) {
		if (e->dir == dir && live(e, now)) {
			if (e->expires != UINT64_MAX)
				bump = 1;
			char name[NAME_BUF];
			memcpy(name, e->name, e->len);
			name[e->len] = '\0';
			inval_queue(d, name, 0, e->expires != UINT64_MAX);
		}
	}
	for (struct lent *e = kept_q.head; e; e = e->next) {
		if (e->dir == dir) {
			char name[NAME_BUF];
			memcpy(name, e->name, e->len);
			name[e->len] = '\0';
			coh_inval_async(d, name); /* cleanup only */
		}
	}
	pthread_mutex_unlock(&lg_lock);
	if (bump)
		coh_bump();
}

void coh_stats(size_t *entries, uint64_t *nbumps)
{
	pthread_mutex_lock(&lg_lock);
	*entries = lg_count;
	pthread_mutex_unlock(&lg_lock);
	*nbumps = atomic_load(&bumps);
}

/* ---- asynchronous invalidation (cleanup) ----------------------------- */

#ifndef INVAL_MAX /* fuzz-coherence makes it small */
#define INVAL_MAX 4096
#endif

struct inval {
	struct inval *next;
	fuse_ino_t parent;
	uint32_t gen; /* the parent's: its id may be reused before we send */
	uint64_t seq; /* a moved-in note to take back once sent, or 0 */
	size_t len;
	char name[];
};

static pthread_mutex_t iq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t iq_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t iq_done_cond = PTHREAD_COND_INITIALIZER; /* iq_done moved */
static struct inval *iq_head, *iq_tail;
static size_t iq_len;
static uint64_t iq_queued, iq_done; /* items queued / finished, in order */
static int iq_stop;
static int iq_sending; /* the thread is in a notification (iq_lock) */
static pthread_t iq_thr;
static int iq_started;

/* Queue the invalidation of name in d.  Cleanup (must 0) is dropped
 * beyond INVAL_MAX: it costs memory, not truth.  That of a dentry the
 * kernel may trust (must 1: a moved-in file's, a live note's with an
 * expiry) never is: without the epoch it is all that stops the kernel
 * trusting it, and a `mv` of thousands of files into a folding directory
 * outruns the worker, which waits for each rename's directory lock.
 * Those are bounded by the ledger (LEDGER_MAX), or by the renames. */
static void inval_queue(struct node *d, const char *name, uint64_t seq,
			int must)
{
	size_t len = strlen(name);
	struct inval *it;

	if (!iq_started)
		return;
	it = malloc(sizeof *it + len + 1);
	if (!it)
		return;
	it->next = NULL;
	it->parent = node_id(d);
	it->gen = d->gen;
	it->seq = seq;
	it->len = len;
	memcpy(it->name, name, len + 1);
	pthread_mutex_lock(&iq_lock);
	if (iq_len >= INVAL_MAX && !must) {
		pthread_mutex_unlock(&iq_lock);
		free(it);
		return;
	}
	if (iq_tail)
		iq_tail->next = it;
	else
		iq_head = it;
	iq_tail = it;
	iq_len++;
	iq_queued++;
	pthread_cond_signal(&iq_cond);
	pthread_mutex_unlock(&iq_lock);
}

void coh_inval_async(struct node *d, const char *name)
{
	inval_queue(d, name, 0, 0);
}

static void *inval_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&iq_lock);
	for (;;) {
		while (!iq_head && !iq_stop)
			pthread_cond_wait(&iq_cond, &iq_lock);
		if (iq_stop)
			break;
		struct inval *it = iq_head;
		iq_head = it->next;
		if (!iq_head)
			iq_tail = NULL;
		iq_len--;
		iq_sending = 1;
		pthread_mutex_unlock(&iq_lock);
		/* The parent may have been forgotten since it was queued, and
		 * its id (an address) given to another node, even a file: sent
		 * then, the invalidation would hit a same-named entry of an
		 * unrelated directory (breaking getcwd() inside it, detaching
		 * mounts).  Forgotten, it has no dentries left to drop; held,
		 * it keeps its id until sent. */
		struct node *d = node_hold_id(it->parent, it->gen);
		int r = -ENOENT;
		/* Holds no daemon lock: may wait for the directory lock of a
		 * request in progress, which other workers will finish. */
		if (d) {
			r = fuse_lowlevel_notify_inval_entry(F.se, it->parent,
							     it->name, it->len);
			node_put(d);
		}
		dlog("inval_entry(%llu, %s) = %d",
		     (unsigned long long)it->parent, it->name, r);
		if (it->seq && (r == 0 || r == -ENOENT))
			moved_dropped(it->parent, it->name, it->len, it->seq);
		free(it);
		pthread_mutex_lock(&iq_lock);
		iq_sending = 0;
		iq_done++;
		pthread_cond_broadcast(&iq_done_cond);
	}
	pthread_mutex_unlock(&iq_lock);
	return NULL;
}

int coh_inval_wait(unsigned ms)
{
	struct timespec until;
	long ns;
	int r = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	ns = until.tv_nsec + (long)(ms % 1000) * 1000000;
	until.tv_sec += ms / 1000 + ns / 1000000000;
	until.tv_nsec = ns % 1000000000;
	pthread_mutex_lock(&iq_lock);
	uint64_t target = iq_queued;
	while (iq_started && !iq_stop && iq_done < target && r == 0)
		r = pthread_cond_timedwait(&iq_done_cond, &iq_lock, &until);
	pthread_mutex_unlock(&iq_lock);
	return r == ETIMEDOUT ? -ETIMEDOUT : 0;
}

int coh_init(void)
{
	iq_stop = 0; /* again after coh_stop (the fuzzer starts it per run) */
	if (pthread_create(&iq_thr, NULL, inval_thread, NULL) != 0)
		return -EAGAIN;
	iq_started = 1;
	return 0;
}

/* The device's descriptor is closed by the unmount; a notification
 * written after that could land in whatever file took its number.  So
 * the thread is stopped first, and one notification under way waited
 * for -- not forever: it may wait in the kernel for the lock of a
 * directory whose request nobody answers any more, and only the unmount
 * (which ends the connection) lets it go; it holds its own reference to
 * the device meanwhile. */
void coh_quiesce(void)
{
	struct timespec until;

	if (!iq_started)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	pthread_mutex_lock(&iq_lock);
	iq_stop = 1;
	pthread_cond_signal(&iq_cond);
	pthread_cond_broadcast(&iq_done_cond);
	while (iq_sending &&
	       pthread_cond_timedwait(&iq_done_cond, &iq_lock, &until) == 0)
		;
	pthread_mutex_unlock(&iq_lock);
}

int coh_stop(void)
{
	struct timespec until;

	if (!iq_started)
		return 0;
	pthread_mutex_lock(&iq_lock);
	iq_stop = 1;
	pthread_cond_signal(&iq_cond);
	pthread_cond_broadcast(&iq_done_cond);
	pthread_mutex_unlock(&iq_lock);
	/* The worker may be waiting in the kernel for a directory lock that
	 * a request nobody will answer any more holds; that ends only when
	 * the connection goes away.  Do not wait for it forever. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (pthread_timedjoin_np(iq_thr, NULL, &until) != 0)
		return -1;
	iq_started = 0;
	while (iq_head) {
		struct inval *it = iq_head;
		iq_head = it->next;
		free(it);
	}
	iq_tail = NULL;
	iq_len = 0;
	pthread_mutex_lock(&lg_lock);
	free_all_locked();
	pthread_mutex_unlock(&lg_lock);
	return 0;
}
