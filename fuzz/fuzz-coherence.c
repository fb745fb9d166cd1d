/*
 * fuzz-coherence.c - the ledger of fs/coherence.c against a model of the
 * kernel's dentry cache.
 *
 * The model holds three directories (two folding; the third folding or
 * plain), the entries stored in them (all spelled from a small alphabet
 * of equivalent and distinct spellings: "a"/"A", e-acute NFC/NFD and its
 * capital, sharp s/"ss"/"SS"/capital sharp s, ill-formed bytes,
 * "Dir"/"dir"/"DIR", "b"/"B") and, per (directory, spelling), the
 * dentry the kernel holds: its answer (an object or "absent"), until when
 * it trusts it and the epoch read when its request was sent.  Each step
 * is what the daemon does for a request (fs/ops_entry.c: lookup, create,
 * mkdir, unlink/rmdir, rename with RENAME_NOREPLACE / RENAME_EXCHANGE,
 * each preceded by the kernel's walk of its names), a change made in
 * SOURCE followed by what the watcher calls (coh_external,
 * coh_external_dir), time passing, the kernel forgetting a node, a bump
 * (as chattr does), or the invalidation worker running.  The real
 * coherence.c decides the entry timeouts, whether a miss is cached, the
 * notes, bumps and invalidations; the kernel side of the epoch (write()
 * of the notification, objcopy'ed) and of notify_inval_entry are the
 * model's, which record what was sent.
 *
 * The rule checked after every step: no dentry the kernel trusts (entry
 * timeout not expired, epoch not older than the connection's) answers
 * other than SOURCE now does (exact bytes, else in a folding directory
 * the bytewise smallest equivalent stored name).  Tolerated, as
 * documented in coherence.c and foldfs(8): under cache=auto without the
 * epoch, a file dentry moved in from a plain directory until the worker
 * has run (then it must be gone); under cache=auto, a directory's
 * dentry after a change made directly in SOURCE (the usual FUSE bound;
 * cache=none caches none, also in plain directories);
 * a request the kernel makes by such a stale dentry is not followed (the
 * model drops the dentry).  Also: the ledger stays within its bound
 * (LEDGER_MAX, made small here), coh_stats() counts the bumps sent, and
 * the ledger and queue are freed at coh_stop() (LeakSanitizer).
 *
 * The steps run one at a time (no request races another); the worker
 * thread sends nothing until a step lets it, so runs repeat exactly.
 * FUZZ_COHERENCE_TRACE=1 in the environment prints the steps.
 *
 * Input: byte 0 the mode (bits 0-1: cache auto, epoch, none, epoch; bit
 * 2: the kernel refuses the epoch; bits 3-4: timeout 1, 0, 3 or 0.25 s;
 * bit 5: -o nofold when bit 7 of byte 1 is set too; bit 6: negatives may
 * not stay (prune_negative_ok); bit 7: the third directory is plain);
 * byte 1: bits 0-1 the kernel's delay in stamping a dentry (0, 1 s,
 * timeout + 1 s - 1 ns, timeout / 2), bit 2: the first directory is the
 * root.  Then steps: an opcode byte (low 4 bits) and argument bytes, a
 * NAME being one byte (bits 4-5 the directory, bits 0-3 the spelling):
 *   0 1 2 15  lookup NAME          8   the worker sends what is queued
 *                                      (one byte, unused)
 *   3  create NAME                 9   SOURCE: create NAME (bit 6: a
 *   4  mkdir NAME                      directory), then coh_external
 *   5  unlink or rmdir NAME        10  SOURCE: unlink NAME, coh_external
 *   6  rename NAME NAME FLAGS      11  SOURCE: rename NAME to NAME's
 *      (FLAGS % 3: 0, NOREPLACE,       directory's spelling of the next
 *      EXCHANGE)                       byte, coh_external of both
 *   7  time passes, by the low     12  the same, coh_external_dir
 *      3 bits: 1 ms, 0.1 s, 0.5 s, 13  the kernel forgets a node (the
 *      1 s, T, T + 1 s, 2T + 1 s,      byte picks among those alive)
 *      2T + 2 s (T: timeout)       14  coh_bump() (no argument)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/fuse.h>

#include "foldfs.h"

struct foldfs F;

#define NDIR 3
#define NSP 16
#define MAXOBJ 256
#define SEC 1000000000ull

static const char *const sp[NSP] = {
	"a", "A", "\xc3\xa9", "e\xcc\x81", "\xc3\x89", "\xc3\x9f", "ss",
	"SS", "\xe1\xba\x9e", "x\xff", "X\xff", "Dir", "dir", "DIR", "b",
	"B",
};
static int eqv[NSP][NSP]; /* equivalent under F.ctx, both well formed */
static int illf[NSP];

/* ---- the model ---- */

struct obj {
	int isdir;
	uint64_t nlookup; /* the kernel's: node alive while > 0 */
	struct node node;
};
static struct obj objs[MAXOBJ];
static int nobj;

static struct node dnode[NDIR], fake_root;
static int dfold[NDIR];
static int stored[NDIR][NSP]; /* object of the stored name, or -1 */

struct dent {
	int present;
	int obj;	  /* -1: negative */
	uint64_t kexp;	  /* trusted before this (0: never) */
	uint64_t stamp;	  /* epoch when its request was sent */
	int plain_ttl;	  /* its timeout came from a plain directory */
	int tolerated;	  /* stale by a SOURCE change, within the rules */
};
static struct dent kd[NDIR][NSP];

static uint64_t now = 1000 * SEC;
static uint64_t epoch_k;	/* the connection's epoch */
static int epoch_refused;
static uint64_t delay_ns, timeout_ns;
static int neg_ok, root0;
static uint64_t bumps0;
static size_t g_at;

static void fail(const char *what, int d, int s)
{
	fprintf(stderr, "fuzz-coherence: %s at byte %zu", what, g_at);
	if (d >= 0)
		fprintf(stderr, " (dir %d, spelling %d '%s')", d, s, sp[s]);
	fprintf(stderr, "\n  mode %s timeout %.2f epoch %d fold_cache %d\n",
		F.cache == CACHE_AUTO ? "auto" :
		F.cache == CACHE_EPOCH ? "epoch" : "none",
		F.timeout, atomic_load(&F.epoch), F.fold_cache);
	abort();
}

static int dir_of(const struct node *n)
{
	for (int i = 0; i < NDIR; i++)
		if (n == &dnode[i])
			return i;
	return -1;
}

static int obj_of_id(uint64_t id)
{
	for (int i = 0; i < nobj; i++)
		if (node_id(&objs[i].node) == id)
			return i;
	return -1;
}

/* ---- the daemon's services coherence.c calls ---- */

int fuzz_clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (clk != CLOCK_MONOTONIC)
		return clock_gettime(clk, ts);
	ts->tv_sec = (time_t)(now / SEC);
	ts->tv_nsec = (long)(now % SEC);
	return 0;
}

/* The epoch notification: the only write coherence.c makes. */
ssize_t fuzz_write(int fd, const void *buf, size_t n)
{
	const struct fuse_out_header *h = buf;

	if (fd != 1000 || n != sizeof *h || h->error != 8 || h->unique)
		fail("unexpected write", -1, 0);
	if (epoch_refused) {
		errno = EINVAL;
		return -1;
	}
	epoch_k++;
	return (ssize_t)n;
}

/* Messages are formatted (for UBSan), not shown. */
int fuzz_fprintf(FILE *f, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	(void)f;
	va_start(ap, fmt);
	int r = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return r;
}

int fuse_session_fd(struct fuse_session *se)
{
	(void)se;
	return 1000;
}

struct node *node_root(void)
{
	return root0 ? &dnode[0] : &fake_root;
}

int dir_folds(struct node *d)
{
	int i = dir_of(d);

	if (i < 0)
		fail("dir_folds of no directory", -1, 0);
	return dfold[i];
}

int prune_negative_ok(void)
{
	return neg_ok;
}

int node_alive(uint64_t id)
{
	for (int i = 0; i < NDIR; i++)
		if (node_id(&dnode[i]) == id)
			return 1;
	int o = obj_of_id(id);
	return o >= 0 && objs[o].nlookup > 0;
}

struct node *node_find(const struct stat *st, uint64_t mnt)
{
	int o = (int)st->st_ino;

	(void)mnt;
	return objs[o].nlookup ? &objs[o].node : NULL;
}

void node_put(struct node *n)
{
	(void)n;
}

struct node *node_hold_id(uint64_t id, uint32_t gen)
{
	for (int i = 0; i < NDIR; i++)
		if (node_id(&dnode[i]) == id && dnode[i].gen == gen)
			return &dnode[i];
	return NULL;
}

/* What SOURCE's entry for spelling s of d is: the stored spelling, or -1. */
static int resolve_sp(int d, int s)
{
	int w = -1;

	if (stored[d][s] >= 0)
		return s;
	if (F.nofold || !dfold[d] || illf[s])
		return -1;
	for (int t = 0; t < NSP; t++)
		if (stored[d][t] >= 0 && eqv[s][t] &&
		    (w < 0 || strcmp(sp[t], sp[w]) < 0))
			w = t;
	return w;
}

static int truth(int d, int s)
{
	int t = resolve_sp(d, s);

	return t < 0 ? -1 : stored[d][t];
}

int resolve_name(struct node *dn, const char *name, char *out,
		 struct stat *st, uint64_t *mnt)
{
	int d = dir_of(dn), s, t;

	for (s = 0; s < NSP && strcmp(sp[s], name); s++)
		;
	if (d < 0 || s == NSP)
		fail("resolve_name of an unknown name", d, 0);
	t = resolve_sp(d, s);
	if (t < 0)
		return -ENOENT;
	strcpy(out, sp[t]);
	memset(st, 0, sizeof *st);
	st->st_ino = (ino_t)stored[d][t];
	st->st_mode = objs[stored[d][t]].isdir ? S_IFDIR : S_IFREG;
	if (mnt)
		*mnt = 0;
	return 0;
}

/* The invalidation worker's notification: the kernel drops the dentry.
 * It waits until the model lets it run (drain()). */
static pthread_mutex_t w_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t w_cond = PTHREAD_COND_INITIALIZER;
static int w_go;
static unsigned long w_sent;

int fuse_lowlevel_notify_inval_entry(struct fuse_session *se,
				     fuse_ino_t parent, const char *name,
				     size_t namelen)
{
	int d = -1, s;

	(void)se;
	pthread_mutex_lock(&w_mu);
	while (!w_go)
		pthread_cond_wait(&w_cond, &w_mu);
	for (int i = 0; i < NDIR; i++)
		if (node_id(&dnode[i]) == parent)
			d = i;
	for (s = 0; s < NSP && (strlen(sp[s]) != namelen ||
				memcmp(sp[s], name, namelen));
	     s++)
		;
	if (d < 0 || s == NSP)
		fail("notify_inval_entry of an unknown name", d, 0);
	kd[d][s].present = 0;
	w_sent++;
	pthread_mutex_unlock(&w_mu);
	return 0;
}

/* coherence.c starts its worker at each coh_init() and joins it at
 * coh_stop(), once per run here: one thread of ours runs it each time
 * (a thread's start is costly under ASan). */
static pthread_mutex_t t_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t t_cond = PTHREAD_COND_INITIALIZER;
static void *(*t_fn)(void *), *t_arg;
static int t_busy;

static void *trampoline(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&t_mu);
	for (;;) {
		while (!t_fn)
			pthread_cond_wait(&t_cond, &t_mu);
		void *(*fn)(void *) = t_fn;
		pthread_mutex_unlock(&t_mu);
		fn(t_arg);
		pthread_mutex_lock(&t_mu);
		t_fn = NULL;
		t_busy = 0;
		pthread_cond_broadcast(&t_cond);
	}
	return NULL;
}

int fuzz_pthread_create(pthread_t *thr, const pthread_attr_t *attr,
			void *(*fn)(void *), void *arg)
{
	static pthread_t t;
	static int started;

	(void)attr;
	if (!started) {
		if (pthread_create(&t, NULL, trampoline, NULL) != 0)
			return EAGAIN;
		started = 1;
	}
	pthread_mutex_lock(&t_mu);
	if (t_busy)
		fail("coh_init() with the worker still running", -1, 0);
	t_fn = fn;
	t_arg = arg;
	t_busy = 1;
	pthread_cond_broadcast(&t_cond);
	pthread_mutex_unlock(&t_mu);
	*thr = t;
	return 0;
}

int fuzz_pthread_timedjoin_np(pthread_t thr, void **ret,
			      const struct timespec *until)
{
	int r = 0;

	(void)thr;
	pthread_mutex_lock(&t_mu);
	while (t_busy && r == 0)
		r = pthread_cond_timedwait(&t_cond, &t_mu, until);
	r = t_busy ? ETIMEDOUT : 0;
	pthread_mutex_unlock(&t_mu);
	if (ret)
		*ret = NULL;
	return r;
}

/* ---- the kernel ---- */

static int trusted(const struct dent *k)
{
	return k->present && now < k->kexp && k->stamp == epoch_k;
}

static uint64_t ttl_exp(double t, uint64_t at)
{
	return t > 0 ? at + delay_ns + (uint64_t)(t * 1e9) : 0;
}

/* A directory has one dentry: a new one moves it. */
static void set_dent(int d, int s, int o, uint64_t kexp, uint64_t stamp)
{
	if (o >= 0 && objs[o].isdir)
		for (int i = 0; i < NDIR; i++)
			for (int t = 0; t < NSP; t++)
				if (kd[i][t].present && kd[i][t].obj == o)
					kd[i][t].present = 0;
	kd[d][s] = (struct dent){ 1, o, kexp, stamp, 0, 0 };
}

static void node_got(int o)
{
	if (objs[o].nlookup++ == 0)
		objs[o].node.gen++; /* a new node (at the same address) */
}

/* op_lookup(), and what the kernel makes of the reply. */
static int lookup(int d, int s)
{
	struct node *dn = &dnode[d];
	uint64_t stamp = epoch_k;
	int o = truth(d, s);

	if (o >= 0) {
		node_got(o);
		double t = coh_entry_timeout(dn, objs[o].isdir);
		coh_note(dn, sp[s], node_id(&objs[o].node));
		set_dent(d, s, o, ttl_exp(t, now), stamp);
		return o;
	}
	if (coh_cache_negative(dn)) {
		coh_note(dn, sp[s], 0);
		set_dent(d, s, -1, ttl_exp(coh_entry_timeout(dn, 0), now),
			 stamp);
		return -1;
	}
	set_dent(d, s, -1, 0, stamp);
	if (!prune_negative_ok())
		coh_inval_async(dn, sp[s]);
	return -1;
}

/* The kernel's walk to the last component: its dentry if trusted, else
 * a lookup. */
static int walk(int d, int s)
{
	if (trusted(&kd[d][s]))
		return kd[d][s].obj;
	return lookup(d, s);
}

/* The rule.  final: the worker has run, moved-in dentries count too. */
static void check(int external, int final)
{
	size_t ent;
	uint64_t b;

	for (int d = 0; d < NDIR; d++)
		for (int s = 0; s < NSP; s++) {
			struct dent *k = &kd[d][s];

			if (!trusted(k) || k->tolerated ||
			    k->obj == truth(d, s))
				continue;
			/* (a directory moved in is tolerated for a change in
			 * SOURCE as any directory: before the plain_ttl wait,
			 * whose invalidation is cleanup for it, which a full
			 * queue drops) */
			if (external && !F.fold_cache &&
			    F.cache != CACHE_NONE && k->obj >= 0 &&
			    objs[k->obj].isdir) {
				k->tolerated = 1;
				continue;
			}
			if (!final && k->plain_ttl && F.cache == CACHE_AUTO &&
			    !atomic_load(&F.epoch))
				continue;
			fail(k->obj < 0 ? "the kernel trusts a stale negative "
					  "dentry" :
			     truth(d, s) < 0 ? "the kernel trusts a dentry of "
					       "a removed entry" :
			     "the kernel trusts a dentry of another object",
			     d, s);
		}
	coh_stats(&ent, &b);
	if (ent > LEDGER_MAX)
		fail("the ledger outgrew its bound", -1, 0);
	/* (the probe's notification is no bump) */
	if (atomic_load(&F.epoch) && b - bumps0 + 1 != epoch_k)
		fail("coh_stats() miscounts the bumps", -1, 0);
}

static void drain(void)
{
	pthread_mutex_lock(&w_mu);
	w_go = 1;
	pthread_cond_broadcast(&w_cond);
	pthread_mutex_unlock(&w_mu);
	if (coh_inval_wait(60000) < 0)
		fail("the invalidations were not sent within a minute", -1, 0);
	pthread_mutex_lock(&w_mu);
	w_go = 0;
	pthread_mutex_unlock(&w_mu);
}

/* ---- the daemon's calls (fs/ops_entry.c) ---- */

static int new_obj(int isdir)
{
	if (nobj == MAXOBJ)
		return -1;
	objs[nobj] = (struct obj){ .isdir = isdir };
	objs[nobj].node.type = isdir ? S_IFDIR : S_IFREG;
	objs[nobj].node.fd = -1;
	return nobj++;
}

static uint64_t binding(int d, int s)
{
	int o = truth(d, s);

	return o >= 0 && objs[o].nlookup ? node_id(&objs[o].node) : 0;
}

static void do_create(int d, int s, int isdir)
{
	struct node *dn = &dnode[d];
	uint64_t stamp = epoch_k;
	int o;

	if (walk(d, s) >= 0 || (o = new_obj(isdir)) < 0)
		return; /* EEXIST */
	stored[d][s] = o;
	node_got(o);
	double t = coh_entry_timeout(dn, isdir);
	coh_changed(dn, sp[s], node_id(&objs[o].node));
	set_dent(d, s, o, ttl_exp(t, now), stamp);
}

static void do_remove(int d, int s)
{
	struct node *dn = &dnode[d];

	int o = walk(d, s), t = truth(d, s);

	if (o < 0)
		return; /* ENOENT */
	if (t != o) {
		/* By a stale dentry the rules tolerate: what the daemon
		 * removes then (if anything) is not what the kernel meant,
		 * and the rules say nothing about the dentries left; the
		 * model just drops this one. */
		kd[d][s].present = 0;
		return;
	}
	stored[d][resolve_sp(d, s)] = -1;
	coh_changed(dn, sp[s], 0);
	kd[d][s].present = 0; /* unlinked: no longer trusted */
	if (!prune_negative_ok())
		coh_inval_async(dn, sp[s]);
}

static void do_rename(int d1, int s1, int d2, int s2, unsigned flags)
{
	struct node *n1 = &dnode[d1], *n2 = &dnode[d2];
	int o1 = walk(d1, s1), o2 = walk(d2, s2);
	int src, dst;

	if (o1 < 0 || (d1 == d2 && s1 == s2) || o1 == o2)
		return; /* ENOENT, or the VFS's no-op */
	if (((flags & RENAME_NOREPLACE) && o2 >= 0) ||
	    ((flags & RENAME_EXCHANGE) && o2 < 0))
		return;
	if (o2 >= 0 && !(flags & RENAME_EXCHANGE) &&
	    objs[o1].isdir != objs[o2].isdir)
		return; /* EISDIR / ENOTDIR */
	if (truth(d1, s1) != o1 || truth(d2, s2) != o2) {
		/* by a stale dentry the rules tolerate (see do_remove) */
		kd[d1][s1].present = kd[d2][s2].present = 0;
		return;
	}
	src = resolve_sp(d1, s1);
	dst = resolve_sp(d2, s2);
	if (flags & RENAME_EXCHANGE) {
		stored[d1][src] = o2;
		stored[d2][dst] = o1;
	} else {
		if (dst >= 0)
			stored[d2][dst] = -1;
		stored[d1][src] = -1;
		stored[d2][s2] = o1;
	}
	/* the kernel moves the dentries (keeping their timeouts) */
	struct dent k1 = kd[d1][s1], k2 = kd[d2][s2];
	if (!dfold[d1] || F.nofold)
		k1.plain_ttl = 1;
	if (!dfold[d2] || F.nofold)
		k2.plain_ttl = 1;
	kd[d2][s2] = k1;
	kd[d1][s1] = k2;
	if (!(flags & RENAME_EXCHANGE))
		kd[d1][s1].present = 0;

	int timed1 = coh_timed(n1, sp[s1]);
	int timed2 = (flags & RENAME_EXCHANGE) && coh_timed(n2, sp[s2]);
	coh_changed(n1, sp[s1],
		    (flags & RENAME_EXCHANGE) ? binding(d1, s1) : 0);
	coh_changed(n2, sp[s2], binding(d2, s2));
	if (timed1)
		coh_moved_in(n2, sp[s2], binding(d2, s2));
	if (timed2)
		coh_moved_in(n1, sp[s1], binding(d1, s1));
}

/* ---- changes made in SOURCE, and the watcher ---- */

static int ext_ok(int d)
{
	return dfold[d] && !F.nofold;
}

static void ext_create(int d, int s, int isdir)
{
	int o;

	if (!ext_ok(d) || stored[d][s] >= 0 || (o = new_obj(isdir)) < 0)
		return;
	stored[d][s] = o;
	coh_external(&dnode[d], sp[s]);
}

static void ext_unlink(int d, int s)
{
	if (!ext_ok(d) || stored[d][s] < 0)
		return;
	stored[d][s] = -1;
	coh_external(&dnode[d], sp[s]);
}

static void ext_rename(int d, int s1, int s2, int unknown)
{
	int o = stored[d][s1], p = stored[d][s2];

	if (!ext_ok(d) || o < 0 || s1 == s2 ||
	    (p >= 0 && objs[p].isdir != objs[o].isdir))
		return;
	stored[d][s2] = o;
	stored[d][s1] = -1;
	if (unknown) {
		coh_external_dir(&dnode[d]);
	} else {
		coh_external(&dnode[d], sp[s1]);
		coh_external(&dnode[d], sp[s2]);
	}
}

/* The kernel forgets a node: its dentries went first. */
static void forget(unsigned pick)
{
	int alive[MAXOBJ], n = 0;

	for (int i = 0; i < nobj; i++)
		if (objs[i].nlookup)
			alive[n++] = i;
	if (!n)
		return;
	int o = alive[pick % (unsigned)n];
	for (int d = 0; d < NDIR; d++)
		for (int s = 0; s < NSP; s++)
			if (kd[d][s].present && kd[d][s].obj == o)
				kd[d][s].present = 0;
	objs[o].nlookup = 0;
}

static void pass_time(unsigned a)
{
	const uint64_t t = timeout_ns;
	const uint64_t steps[8] = {
		SEC / 1000, SEC / 10, SEC / 2, SEC, t, t + SEC, 2 * t + SEC,
		2 * t + 2 * SEC,
	};

	now += steps[a & 7];
}

/* ---- setup ---- */

static void setup(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	if (fold_init(&F.ctx, "utf8", FOLD_CASEFOLD, 0) != 0)
		abort();
	memset(&F.seed, 0x5a, sizeof F.seed);
	for (int s = 0; s < NSP; s++)
		illf[s] = fold_validatez(&F.ctx, sp[s], NULL) != 0;
	for (int s = 0; s < NSP; s++)
		for (int t = 0; t < NSP; t++)
			eqv[s][t] = !illf[s] && !illf[t] &&
				    fold_equalz(&F.ctx, sp[s], sp[t]);
	for (int i = 0; i < NDIR; i++) {
		dnode[i].type = S_IFDIR;
		dnode[i].fd = -1;
	}
	fake_root.type = S_IFDIR;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double touts[4] = { 1, 0, 3, 0.25 };
	/* FUZZ_COHERENCE_TRACE=1: the steps of a failing input */
	static int trace = -1;
	if (trace < 0)
		trace = getenv("FUZZ_COHERENCE_TRACE") != NULL;
	size_t pos = 2;

	setup();
	if (size < 2)
		return 0;
	unsigned m = data[0], o = data[1];
	static const enum cache_mode modes[4] = {
		CACHE_AUTO, CACHE_EPOCH, CACHE_NONE, CACHE_EPOCH,
	};
	F.cache = modes[m & 3];
	epoch_refused = (m & 4) != 0;
	F.timeout = touts[(m >> 3) & 3];
	timeout_ns = (uint64_t)(F.timeout * 1e9);
	F.nofold = (m & 32) && (o & 128);
	neg_ok = !(m & 64);
	dfold[0] = dfold[1] = 1;
	dfold[2] = !(m & 128);
	root0 = (o & 4) != 0;
	switch (o & 3) {
	case 0: delay_ns = 0; break;
	case 1: delay_ns = SEC; break;
	case 2: delay_ns = timeout_ns + SEC - 1; break;
	default: delay_ns = timeout_ns / 2; break;
	}
	nobj = 0;
	memset(stored, 0xff, sizeof stored);
	memset(kd, 0, sizeof kd);
	for (int i = 0; i < NDIR; i++)
		dnode[i].gen++;
	epoch_k = 0;
	size_t ent;
	coh_stats(&ent, &bumps0);

	if (coh_init() != 0)
		abort();
	coh_probe();

	while (pos < size) {
		unsigned op = data[pos] & 15;
		g_at = pos++;
#define ARG() (pos < size ? data[pos++] : 0u)
#define DIR(x) ((int)(((x) >> 4) & 3u) % NDIR)
#define SP(x) ((int)((x) & 15u))
		unsigned a = op == 14 ? 0 : ARG(), b2, c;
		if (trace) {
			fprintf(stderr, "byte %zu: op %u arg %02x (E %llu, "
				"t %.3f); trusted:", g_at, op, a,
				(unsigned long long)epoch_k, now / 1e9);
			for (int d = 0; d < NDIR; d++)
				for (int s = 0; s < NSP; s++)
					if (trusted(&kd[d][s]))
						fprintf(stderr, " %d/%d=%d", d,
							s, kd[d][s].obj);
			fputc('\n', stderr);
		}
		switch (op) {
		case 0: case 1: case 2: case 15:
			walk(DIR(a), SP(a));
			break;
		case 3:
			do_create(DIR(a), SP(a), 0);
			break;
		case 4:
			do_create(DIR(a), SP(a), 1);
			break;
		case 5:
			do_remove(DIR(a), SP(a));
			break;
		case 6:
			b2 = ARG();
			c = ARG();
			do_rename(DIR(a), SP(a), DIR(b2), SP(b2),
				  c % 3 == 1 ? RENAME_NOREPLACE :
				  c % 3 == 2 ? RENAME_EXCHANGE : 0);
			break;
		case 7:
			pass_time(a);
			break;
		case 8:
			drain();
			check(0, 1);
			continue;
		case 9:
			ext_create(DIR(a), SP(a), (a >> 6) & 1);
			check(1, 0);
			continue;
		case 10:
			ext_unlink(DIR(a), SP(a));
			check(1, 0);
			continue;
		case 11:
		case 12:
			b2 = ARG();
			ext_rename(DIR(a), SP(a), SP(b2), op == 12);
			check(1, 0);
			continue;
		case 13:
			forget(a);
			break;
		case 14:
			coh_bump(); /* as chattr does */
			break;
		}
		check(0, 0);
	}
	drain();
	check(0, 1);
	if (trace)
		fprintf(stderr, "epoch %llu, %lu invalidations sent\n",
			(unsigned long long)epoch_k, w_sent);
	pthread_mutex_lock(&w_mu);
	w_go = 1; /* nothing may wait in the stub now */
	pthread_mutex_unlock(&w_mu);
	coh_quiesce(); /* as the daemon stops: main.c */
	if (coh_stop() != 0)
		fail("coh_stop: the worker is stuck", -1, 0);
	pthread_mutex_lock(&w_mu);
	w_go = 0;
	pthread_mutex_unlock(&w_mu);
	return 0;
}
