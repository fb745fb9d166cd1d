/*
 * dirindex.c - per-directory fold index.
 *
 * A folding lookup whose exact spelling does not exist must find the
 * stored names equivalent to it.  Scanning the directory each time costs
 * O(entries) per miss (the sdcardfs/cicpoffs problem), so the first miss
 * in a directory reads it once and builds a hash table keyed by
 * fold_hash() under a per-mount random seed: equivalent names share a
 * hash, so a miss costs one hash and a short chain walk however large the
 * directory is.  The index is then kept current by our own namespace
 * operations and by watch.c for changes made outside the mount.
 *
 * Layout, chosen to keep an entry small (see idx_bytes()):
 *   bucket[]  uint32 slot+1 of the first entry of each chain
 *   ent[]     16-byte slots: low 32 bits of the hash (bucket choice and
 *             a cheap filter before fold_equal()), chain link, name
 *             offset and length (length 0 = free slot)
 *   pool      the names' bytes, unterminated
 * so an entry costs 16 bytes + 4-8 bytes of bucket + its name.
 *
 * The indexes of all directories share the -o index_mem budget; beyond it
 * whole indexes are dropped, least recently used first (a dropped index
 * is rebuilt by the next miss).
 *
 * Locking: an index belongs to its directory's ilock.  The LRU has its
 * own lock, taken after ilock; eviction only trylocks other directories.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "foldfs.h"

/* resolve.c's miss proof: counts of names found gone in GONE_SLOTS
 * slots of their hash, for misses that need no fence (two names SOURCE
 * renames between, in a loop, then send only the lookups of their slots
 * to a fence, about 1 in 8), and the hashes of the last GONE_RING names
 * found gone, for a fenced proof: it fails only for a name equivalent to
 * the one looked up, or when more than GONE_RING went meanwhile. */
#define GONE_SLOTS 16
#define GONE_RING 32

struct ient {
	uint32_t h32;
	uint32_t next; /* slot+1, 0 ends the chain (or the free list) */
	uint32_t off;
	uint16_t len; /* 0: free */
	uint16_t pad;
};

struct dirindex {
	uint32_t *bucket;
	uint32_t nbucket; /* power of two */
	struct ient *ent;
	uint32_t nent;	  /* slots in use or freed */
	uint32_t cap;	  /* slots allocated */
	uint32_t live;
	uint32_t freelist;
	char *pool;
	size_t pool_len, pool_cap, pool_dead;
	unsigned gen; /* idx_generation when built */
	/* names a recheck found gone, by slot of their hash, and the count
	 * of each slot at its last proven miss (UINT_MAX: none yet); all of
	 * them (seq) and the hashes of the last ones */
	unsigned gone[GONE_SLOTS], settled[GONE_SLOTS];
	unsigned seq;
	uint64_t ring[GONE_RING];
};

/* The slot of a name's hash for gone[]: its top bits (the low ones pick
 * the bucket). */
static unsigned gone_slot(uint64_t h)
{
	return (unsigned)(h >> 59) % GONE_SLOTS;
}

/* Raised when events were lost: every index built before is stale. */
static atomic_uint idx_generation;

static pthread_mutex_t lru_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *lru_head, *lru_tail;
static atomic_long total_bytes;

static uint64_t hash_of(const char *name, size_t len)
{
	return fold_hash(&F.ctx, &F.seed, name, len);
}

size_t idx_bytes(const struct dirindex *x)
{
	return sizeof *x + (size_t)x->nbucket * sizeof(uint32_t) +
	       (size_t)x->cap * sizeof(struct ient) + x->pool_cap;
}

size_t idx_entries(const struct dirindex *x)
{
	return x->live;
}

void idx_free(struct dirindex *x)
{
	if (!x)
		return;
	free(x->bucket);
	free(x->ent);
	free(x->pool);
	free(x);
}

static int rehash(struct dirindex *x, uint32_t nb)
{
	uint32_t *b = calloc(nb, sizeof *b);

	if (!b)
		return -ENOMEM;
	for (uint32_t i = 0; i < x->nent; i++) {
		struct ient *e = &x->ent[i];
		if (!e->len)
			continue;
		uint32_t s = e->h32 & (nb - 1);
		e->next = b[s];
		b[s] = i + 1;
	}
	free(x->bucket);
	x->bucket = b;
	x->nbucket = nb;
	/* Free slots were chained through next: rebuild that list. */
	x->freelist = 0;
	for (uint32_t i = x->nent; i-- > 0;) {
		if (!x->ent[i].len) {
			x->ent[i].next = x->freelist;
			x->freelist = i + 1;
		}
	}
	return 0;
}

/* Compact the name pool when more than half of it is dead. */
static void compact(struct dirindex *x)
{
	size_t need = x->pool_len - x->pool_dead, at = 0;
	char *p = malloc(need ? need : 1);

	if (!p)
		return;
	for (uint32_t i = 0; i < x->nent; i++) {
		struct ient *e = &x->ent[i];
		if (!e->len)
			continue;
		memcpy(p + at, x->pool + e->off, e->len);
		e->off = (uint32_t)at;
		at += e->len;
	}
	free(x->pool);
	x->pool = p;
	x->pool_len = x->pool_cap = at;
	x->pool_dead = 0;
}

static int find_exact(const struct dirindex *x, const char *name, size_t len,
		      uint64_t h, uint32_t **link)
{
	uint32_t *pp = &x->bucket[(uint32_t)h & (x->nbucket - 1)];

	while (*pp) {
		const struct ient *e = &x->ent[*pp - 1];
		if (e->h32 == (uint32_t)h && e->len == len &&
		    !memcmp(x->pool + e->off, name, len)) {
			if (link)
				*link = pp;
			return (int)(*pp - 1);
		}
		pp = &x->ent[*pp - 1].next;
	}
	return -1;
}

/* Store a name in a free slot and the pool; not yet in any chain.
 * Returns the slot, or -ENOMEM. */
static long store(struct dirindex *x, const char *name, size_t len,
		  uint64_t h)
{
	uint32_t slot;

	if (x->pool_len + len > x->pool_cap) {
		size_t nc = x->pool_cap ? x->pool_cap * 2 : 1024;
		while (nc < x->pool_len + len)
			nc *= 2;
		char *p = realloc(x->pool, nc);
		if (!p)
			return -ENOMEM;
		x->pool = p;
		x->pool_cap = nc;
	}
	if (x->freelist) {
		slot = x->freelist - 1;
		x->freelist = x->ent[slot].next;
	} else {
		if (x->nent == x->cap) {
			uint32_t nc = x->cap ? x->cap * 2 : 64;
			struct ient *e = realloc(x->ent, nc * sizeof *e);
			if (!e)
				return -ENOMEM;
			x->ent = e;
			x->cap = nc;
		}
		slot = x->nent++;
	}
	memcpy(x->pool + x->pool_len, name, len);
	x->ent[slot].off = (uint32_t)x->pool_len;
	x->ent[slot].len = (uint16_t)len;
	x->ent[slot].h32 = (uint32_t)h;
	x->ent[slot].next = 0;
	x->pool_len += len;
	x->live++;
	return slot;
}

static void chain(struct dirindex *x, uint32_t slot)
{
	uint32_t s = x->ent[slot].h32 & (x->nbucket - 1);

	x->ent[slot].next = x->bucket[s];
	x->bucket[s] = slot + 1;
}

static int add_hashed(struct dirindex *x, const char *name, size_t len,
		      uint64_t h)
{
	long slot;

	if (len == 0 || len >= NAME_BUF)
		return 0;
	if (find_exact(x, name, len, h, NULL) >= 0)
		return 0;
	if (x->live + 1 > x->nbucket && rehash(x, x->nbucket * 2) < 0)
		return -ENOMEM;
	slot = store(x, name, len, h);
	if (slot < 0)
		return -ENOMEM;
	chain(x, (uint32_t)slot);
	return 0;
}

static int add(struct dirindex *x, const char *name, size_t len)
{
	return add_hashed(x, name, len, hash_of(name, len));
}

static struct dirindex *idx_new(void)
{
	struct dirindex *x = calloc(1, sizeof *x);

	if (!x)
		return NULL;
	memset(x->settled, 0xff, sizeof x->settled);
	x->nbucket = 64;
	x->bucket = calloc(x->nbucket, sizeof *x->bucket);
	if (!x->bucket) {
		free(x);
		return NULL;
	}
	return x;
}

void idx_add(struct dirindex *x, const char *name)
{
	add(x, name, strlen(name));
}

static void del_hashed(struct dirindex *x, const char *name, size_t len,
		       uint64_t h)
{
	uint32_t *link;
	int slot = find_exact(x, name, len, h, &link);

	if (slot < 0)
		return;
	*link = x->ent[slot].next;
	x->pool_dead += x->ent[slot].len;
	x->ent[slot].len = 0;
	x->ent[slot].next = x->freelist;
	x->freelist = (uint32_t)slot + 1;
	x->live--;
	if (x->pool_dead > 4096 && x->pool_dead * 2 > x->pool_len)
		compact(x);
}

void idx_del(struct dirindex *x, const char *name)
{
	size_t len = strlen(name);

	del_hashed(x, name, len, hash_of(name, len));
}

int idx_has(struct dirindex *x, const char *name)
{
	size_t len = strlen(name);

	return find_exact(x, name, len, hash_of(name, len), NULL) >= 0;
}

/* Bytewise order of stored names: memcmp of the common part, then the
 * shorter first.  This is what "the bytewise smallest wins" means. */
static int bytecmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

int idx_winner(struct dirindex *x, const char *name, char *out,
	       struct idx_stamp *miss)
{
	size_t len = strlen(name);
	uint64_t h = hash_of(name, len);
	uint32_t i = x->bucket[(uint32_t)h & (x->nbucket - 1)];
	const struct ient *best = NULL;

	for (; i; i = x->ent[i - 1].next) {
		const struct ient *e = &x->ent[i - 1];
		const char *s = x->pool + e->off;
		if (e->h32 != (uint32_t)h)
			continue;
		if (!fold_equal(&F.ctx, name, len, s, e->len))
			continue;
		if (!best || bytecmp(s, e->len, x->pool + best->off,
				     best->len) < 0)
			best = e;
	}
	if (!best) {
		if (miss) {
			miss->h = h;
			miss->seq = x->seq;
			miss->slot = gone_slot(h);
			miss->gone = x->gone[miss->slot];
			miss->settled = x->settled[miss->slot] == miss->gone;
		}
		return -ENOENT;
	}
	memcpy(out, x->pool + best->off, best->len);
	out[best->len] = '\0';
	return 0;
}

int idx_miss_proven(struct dirindex *x, const struct idx_stamp *before,
		    const struct idx_stamp *now)
{
	unsigned n = x->seq - before->seq;

	if (before->built != now->built || n > GONE_RING)
		return 0; /* rebuilt, or not all gone names remembered */
	for (unsigned i = 0; i < n; i++)
		if (x->ring[(before->seq + i) % GONE_RING] == before->h)
			return 0;
	/* Proven with no name of the slot gone at all: then for every name
	 * of the slot (a name of another class that went meanwhile may
	 * still be missing from the index), so later misses there need no
	 * fence. */
	if (now->gone == before->gone)
		x->settled[now->slot] = now->gone;
	return 1;
}

/* ---- building ------------------------------------------------------ */

static void lru_evict(struct node *keep);
static void oversized_note(struct node *d, size_t bytes);
/* Indexes built and not dropped.  Each holds its node, and so an open
 * descriptor, also once the kernel has forgotten the directory: besides
 * the memory budget, at most half the descriptor limit may go to them
 * (the kernel's nodes and open files need the rest; lru_evict). */
static atomic_long n_indexes;

/*
 * The scan stores every name first and builds the chains once, with the
 * final bucket count: growing the table name by name would relink every
 * entry about twice over, and that is most of a big directory's build
 * time after the hashing.  A name the directory listed twice (readdir
 * racing with changes may do that) is dropped here.
 */
static int link_scanned(struct dirindex *x)
{
	uint32_t nb = 64;

	while (nb < x->live)
		nb *= 2;
	if (nb != x->nbucket) {
		uint32_t *b = calloc(nb, sizeof *b);
		if (!b)
			return -ENOMEM;
		free(x->bucket);
		x->bucket = b;
		x->nbucket = nb;
	}
	for (uint32_t i = 0; i < x->nent; i++) {
		struct ient *e = &x->ent[i];
		if (find_exact(x, x->pool + e->off, e->len, e->h32, NULL) >= 0) {
			/* the first copy stays; this slot goes free */
			x->pool_dead += e->len;
			e->len = 0;
			e->next = x->freelist;
			x->freelist = i + 1;
			x->live--;
			continue;
		}
		chain(x, i);
	}
	return 0;
}

/* Store one listed name as scan() does (skipping what it skips). */
static int store_listed(struct dirindex *x, const char *nm)
{
	size_t len = strlen(nm);

	if (len == 0 || len >= NAME_BUF)
		return 0;
	return store(x, nm, len, hash_of(nm, len)) < 0 ? -ENOMEM : 0;
}

struct dirindex *idx_from_names(const char *const *names, size_t n)
{
	struct dirindex *x = idx_new();

	for (size_t i = 0; x && i < n; i++) {
		if (store_listed(x, names[i]) < 0) {
			idx_free(x);
			return NULL;
		}
	}
	if (x && link_scanned(x) < 0) {
		idx_free(x);
		return NULL;
	}
	return x;
}

#define STAMP_SETTLED_SEC 3

/* A lookup does not read the directory for the caller: leave its access
 * time alone. */
static int scan_open(struct node *d)
{
	return src_openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 1);
}

/* Read the directory into a new index (ilock held). */
static int scan(struct node *d, struct dirindex **out)
{
	struct dirstate *ds = d->dir;
	struct dirindex *x;
	/* Big reads: a huge directory then costs few getdents calls. */
	const size_t bufsz = 256 * 1024;
	char *buf;
	int fd, err = 0;
	struct stat st;
	/* Read before the scan: events lost (IN_Q_OVERFLOW) and drained by
	 * another thread while we read the directory make this index stale
	 * at once, as its scan may have missed the lost names. */
	unsigned gen = atomic_load(&idx_generation);

	/* Watch first, stamp first, then open: a change racing with the
	 * scan is then reported afterwards rather than lost.  Before the
	 * open, not just before the reads: btrfs lists through a descriptor
	 * only the entries that were there when it was opened, so a name
	 * made between the open and the watch would be in neither the scan
	 * nor the events (seen: two mounts both creating "n0_0" and "N0_0"
	 * with O_EXCL). */
	if (!ds->poll && ds->wd < 0)
		watch_dir(d);
	if (fstat(d->fd, &st) == 0) {
		ds->mtime = st.st_mtim;
		ds->ctime = st.st_ctim;
		/* Poll: on a coarse clock (a second on ext4 with 128-byte
		 * inodes, 2 s on FAT, a jiffy before Linux 6.13) a change
		 * later in the same tick leaves these stamps as they are.
		 * Stamps that recent are checked again by a rescan once the
		 * tick is surely over. */
		struct timespec now;
		if (ds->poll && clock_gettime(CLOCK_REALTIME, &now) == 0 &&
		    now.tv_sec - st.st_ctim.tv_sec < STAMP_SETTLED_SEC) {
			uint64_t at = now_ns() + STAMP_SETTLED_SEC * 1000000000ull;
			if (!ds->verify_at || ds->verify_at > at)
				ds->verify_at = at;
		}
	}
	fd = scan_open(d);
	if (fd < 0)
		return -errno;
	x = idx_new();
	buf = malloc(bufsz);
	if (!x || !buf) {
		idx_free(x);
		free(buf);
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = getdents64(fd, buf, bufsz);
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (long off = 0; off < n;) {
			struct dirent64 *de = (void *)(buf + off);
			const char *nm = de->d_name;
			off += de->d_reclen;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			if (name_hidden(d, nm))
				continue;
			err = store_listed(x, nm);
			if (err)
				break;
		}
		if (err)
			break;
	}
	close(fd);
	free(buf);
	if (!err)
		err = link_scanned(x);
	if (err) {
		idx_free(x);
		return err;
	}
	/* Trim the growth slack: a big directory's index is mostly read. */
	if (x->nent && x->nent < x->cap) {
		struct ient *e = realloc(x->ent, x->nent * sizeof *e);
		if (e) {
			x->ent = e;
			x->cap = x->nent;
		}
	}
	if (x->pool_len && x->pool_len < x->pool_cap) {
		char *p = realloc(x->pool, x->pool_len);
		if (p) {
			x->pool = p;
			x->pool_cap = x->pool_len;
		}
	}
	x->gen = gen;
	*out = x;
	return 0;
}

/*
 * An index holds its directory node: the kernel forgets directory inodes
 * as soon as no dentry uses them (every epoch bump can cause that), and
 * the index, its inotify watch and the node id the ledger knows should
 * survive that.  The hold ends when the index is dropped (budget, the
 * directory's removal, chattr), see idx_drop_locked().
 */
int idx_ensure(struct node *d)
{
	struct dirstate *ds = d->dir;
	struct dirindex *x = NULL;
	int r;

	if (ds->idx && ds->idx->gen == atomic_load(&idx_generation))
		return 0;
	r = scan(d, &x);
	if (r)
		return r;
	if (ds->idx) {
		/* stale: replace in place, the hold stays */
		idx_account(-(long)idx_bytes(ds->idx));
		idx_free(ds->idx);
	} else {
		node_hold(d);
		atomic_fetch_add(&n_indexes, 1);
	}
	ds->idx = x;
	/* A scan in several reads may miss a name renamed meanwhile: the
	 * first miss in each slot is fenced (settled[] is new, resolve.c). */
	ds->built++;
	idx_account((long)idx_bytes(x));
	oversized_note(d, idx_bytes(x));
	dlog("index of node %p: %zu entries, %zu bytes (%.1f per entry), "
	     "all indexes %zu bytes", (void *)d, idx_entries(x), idx_bytes(x),
	     x->live ? (double)idx_bytes(x) / x->live : 0.0,
	     idx_total_bytes());
	idx_touch(d);
	lru_evict(d);
	return 0;
}

void idx_mark_stale(struct node *d)
{
	if (d->dir->idx)
		d->dir->idx->gen = atomic_load(&idx_generation) - 1;
}

int idx_drop_locked(struct node *d)
{
	struct dirstate *ds = d->dir;

	if (!ds->idx)
		return 0;
	idx_account(-(long)idx_bytes(ds->idx));
	idx_free(ds->idx);
	ds->idx = NULL;
	atomic_fetch_sub(&n_indexes, 1);
	oversized_note(d, 0);
	return 1;
}

void idx_drop_all(void)
{
	atomic_fetch_add(&idx_generation, 1);
}

/* ---- LRU and budget ----------------------------------------------- */

void idx_account(long delta)
{
	atomic_fetch_add(&total_bytes, delta);
}

size_t idx_total_bytes(void)
{
	long v = atomic_load(&total_bytes);
	return v < 0 ? 0 : (size_t)v;
}

static void lru_unlink_locked(struct node *d)
{
	struct dirstate *ds = d->dir;

	if (!ds->lru_prev && lru_head != d)
		return; /* not on the list */
	if (ds->lru_prev)
		ds->lru_prev->dir->lru_next = ds->lru_next;
	else
		lru_head = ds->lru_next;
	if (ds->lru_next)
		ds->lru_next->dir->lru_prev = ds->lru_prev;
	else
		lru_tail = ds->lru_prev;
	ds->lru_prev = ds->lru_next = NULL;
}

void idx_touch(struct node *d)
{
	pthread_mutex_lock(&lru_lock);
	if (lru_head != d) {
		lru_unlink_locked(d);
		d->dir->lru_next = lru_head;
		if (lru_head)
			lru_head->dir->lru_prev = d;
		lru_head = d;
		if (!lru_tail)
			lru_tail = d;
	}
	pthread_mutex_unlock(&lru_lock);
}

void idx_unlink_lru(struct node *d)
{
	pthread_mutex_lock(&lru_lock);
	lru_unlink_locked(d);
	pthread_mutex_unlock(&lru_lock);
}

/*
 * An index holds its node after the kernel forgets it (idx_ensure), and
 * the node's descriptor keeps its directory alive even once SOURCE has
 * removed it -- which also keeps inotify from reporting the removal.
 * node_forget() catches a directory removed before the kernel forgot it;
 * the other order is found here: at most once a second, up to SWEEP_MAX
 * indexed directories the kernel no longer holds are looked at (fstat:
 * no links left means gone for good), round robin over the LRU.  (Lock
 * order: lru_lock, then the node table's.)
 */
#define SWEEP_MAX 256
static _Atomic uint64_t sweep_last;
static unsigned sweep_round = 1;

void idx_sweep_gone(void)
{
	uint64_t now = now_ns(), last = atomic_load(&sweep_last);
	struct node *v, *cand[SWEEP_MAX];
	size_t n = 0;

	if (now - last < 1000000000ull ||
	    !atomic_compare_exchange_strong(&sweep_last, &last, now))
		return;
	pthread_mutex_lock(&lru_lock);
	for (v = lru_tail; v && n < SWEEP_MAX; v = v->dir->lru_prev) {
		if (v->dir->swept == sweep_round)
			continue;
		v->dir->swept = sweep_round;
		if (node_hold_if_forgotten(v))
			cand[n++] = v;
	}
	if (!v)
		sweep_round++; /* all looked at: start over next time */
	pthread_mutex_unlock(&lru_lock);
	for (size_t i = 0; i < n; i++) {
		idx_drop_if_gone(cand[i]);
		node_put(cand[i]);
	}
}

void idx_drop_if_gone(struct node *d)
{
	struct stat st;

	if (fstat(d->fd, &st) == 0 && st.st_nlink == 0)
		dir_index_drop(d);
}

/*
 * The last index found larger than the whole budget alone (built or
 * grown so) is kept besides it, not in it: counted in, it would push
 * every other index out when built, and be pushed out itself by the next
 * small one, each side rebuilt in turn while a huge directory and small
 * ones are used alternately.  So indexes take up to the budget plus that
 * one.
 * (A leaf lock: taken under ilock and lru_lock, takes none.)
 */
static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *big_node;
static size_t big_bytes;

/* d's index is now `bytes` large (0: dropped), ilock held: built, grown
 * or shrunk by a change, or dropped. */
static void oversized_note(struct node *d, size_t bytes)
{
	pthread_mutex_lock(&big_lock);
	if (bytes > F.index_mem) {
		big_node = d;
		big_bytes = bytes;
	} else if (big_node == d) {
		big_node = NULL;
		big_bytes = 0;
	}
	pthread_mutex_unlock(&big_lock);
}

static int is_oversized(const struct node *d)
{
	int r;

	pthread_mutex_lock(&big_lock);
	r = d == big_node;
	pthread_mutex_unlock(&big_lock);
	return r;
}

/* The most indexes (descriptors) there may be: half the limit. */
static long index_cap(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return rl.rlim_cur / 2 > 64 ? (long)(rl.rlim_cur / 2) : 64;
	return LONG_MAX;
}

static int over_budget(void)
{
	size_t total = idx_total_bytes(), big;

	pthread_mutex_lock(&big_lock);
	big = big_bytes;
	pthread_mutex_unlock(&big_lock);
	total = total > big ? total - big : 0;
	return total > F.index_mem || atomic_load(&n_indexes) > index_cap();
}

/* Drop least recently used indexes until the total fits the budget.
 * `keep` (whose ilock the caller holds) is never dropped: one directory
 * larger than the whole budget still gets its index; nor is the one
 * kept besides the budget (above), which only another such replaces. */
static void lru_evict(struct node *keep)
{
	struct node *v, *prev, *victims[64];
	size_t nv = 0;

	if (!over_budget())
		return;
	pthread_mutex_lock(&lru_lock);
	for (v = lru_tail; v && over_budget() && nv < 64; v = prev) {
		struct dirstate *ds = v->dir;
		prev = ds->lru_prev;
		if (v == keep || is_oversized(v))
			continue;
		if (pthread_mutex_trylock(&ds->ilock) != 0)
			continue;
		if (idx_drop_locked(v))
			victims[nv++] = v;
		/* No index, nothing to keep fresh. */
		watch_unwatch(v);
		lru_unlink_locked(v);
		pthread_mutex_unlock(&ds->ilock);
		dlog("index of node %p evicted (budget %zu)", (void *)v,
		     F.index_mem);
	}
	pthread_mutex_unlock(&lru_lock);
	/* The indexes' holds, released outside every lock (a put may free
	 * the node, which takes these locks). */
	for (size_t i = 0; i < nv; i++)
		node_put(victims[i]);
}

/* An index of more names than this costs more to build again than the
 * kernel's lookups of a few dozen unused files. */
#define CHEAP_ENTRIES 1024

/*
 * For prune.c, under pressure: drop up to max indexes of directories the
 * kernel no longer holds, least recently used first.  Each holds its
 * node, and so a descriptor, which counts toward the mark where pruning
 * starts: up to half the limit of them (over_budget) would keep the table
 * above it for good.  A costly one (CHEAP_ENTRIES) frees no more than a
 * cheap one, so it is spared while all indexes together hold at most an
 * eighth of the limit: a huge directory is not scanned again after every
 * round.  Returns how many were dropped.  (Holds are put outside
 * lru_lock: a put may free the node, which takes it.  ilock, then the
 * node table's lock, as in idx_ensure.)
 */
size_t idx_evict_forgotten(size_t max)
{
	struct node *v, *prev, *held[64];
	int dropped[64];
	size_t nh = 0, nd = 0;
	long few = index_cap() / 4;

	pthread_mutex_lock(&lru_lock);
	for (v = lru_tail; v && nd < max && nh < 64; v = prev) {
		struct dirstate *ds = v->dir;
		prev = ds->lru_prev;
		if (pthread_mutex_trylock(&ds->ilock) != 0)
			continue;
		if ((ds->idx && idx_entries(ds->idx) > CHEAP_ENTRIES &&
		     atomic_load(&n_indexes) <= few) ||
		    !node_hold_if_forgotten(v)) {
			pthread_mutex_unlock(&ds->ilock);
			continue;
		}
		dropped[nh] = idx_drop_locked(v);
		watch_unwatch(v);
		lru_unlink_locked(v);
		pthread_mutex_unlock(&ds->ilock);
		nd += (size_t)dropped[nh];
		held[nh++] = v;
	}
	pthread_mutex_unlock(&lru_lock);
	for (size_t i = 0; i < nh; i++) {
		if (dropped[i])
			node_put(held[i]);
		node_put(held[i]);
	}
	return nd;
}

/* ---- maintenance from the namespace operations --------------------- */

/* With ilock held: the index holds name (hash h) exactly if present. */
static void index_set_locked(struct dirindex *x, const char *name, size_t len,
			     uint64_t h, int present)
{
	int has = find_exact(x, name, len, h, NULL) >= 0;

	if (present && !has)
		add_hashed(x, name, len, h);
	else if (!present && has)
		del_hashed(x, name, len, h);
}

static void index_set_name_locked(struct dirindex *x, const char *name,
				  int present)
{
	size_t len = strlen(name);

	index_set_locked(x, name, len, hash_of(name, len), present);
}

/* Has SOURCE name now?  1 (its stat in *st), 0, or -1 if it cannot say
 * (an error but ENOENT). */
static int source_has(struct node *d, const char *name, struct stat *st)
{
	if (name_hidden(d, name))
		return 0;
	if (fstatat(d->fd, name, st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

/*
 * A change of ours is applied to the index as an event is, by looking at
 * SOURCE now, and not blindly: SOURCE may have made a name again between
 * our call and now, and its events may already have been applied (by the
 * watch thread, or a lookup's drain, which take only ilock), so that none
 * is left to put it back.  Where SOURCE cannot say, what our change did
 * counts.  A removed name that SOURCE finds as the very object just added
 * is gone all the same: a SOURCE directory that itself ignores case finds
 * "a" after a rename to "A".
 */
void dir_index_change(struct node *d, const char *del1, const char *del2,
		      const char *add1, const struct dir_stamp *pre)
{
	struct dirstate *ds = d->dir;
	struct dirindex *x;
	size_t before;

	if (!ds)
		return;
	pthread_mutex_lock(&ds->ilock);
	x = ds->idx;
	if (x) {
		const char *del[2] = { del1, del2 };
		struct stat added, st;
		int a = add1 ? source_has(d, add1, &added) : 0;
		before = idx_bytes(x);
		for (int i = 0; i < 2; i++) {
			if (!del[i])
				continue;
			/* -1: SOURCE cannot say; we removed it */
			int h = source_has(d, del[i], &st);
			if (h == 1 && a == 1 && st.st_dev == added.st_dev &&
			    st.st_ino == added.st_ino)
				h = 0;
			index_set_name_locked(x, del[i], h == 1);
		}
		if (add1) /* -1: SOURCE cannot say; we made it */
			index_set_name_locked(x, add1, a != 0);
		idx_account((long)idx_bytes(x) - (long)before);
		oversized_note(d, idx_bytes(x));
		if (ds->poll)
			watch_stamps_after(d, pre);
	}
	pthread_mutex_unlock(&ds->ilock);
}

void dir_index_recheck(struct node *d, const char *name, int unlinked)
{
	struct dirstate *ds = d->dir;
	struct dirindex *x;
	struct stat st;

	pthread_mutex_lock(&ds->ilock);
	x = ds->idx;
	if (x && !name_hidden(d, name)) {
		size_t before = idx_bytes(x), len = strlen(name);
		uint64_t h = hash_of(name, len);
		int exists = fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		/* An unlink, unlike a rename, leaves no other name that
		 * events not yet read could hide from the index: its name's
		 * absence needs no fence (resolve.c). */
		if (!exists && !unlinked) {
			x->gone[gone_slot(h)]++;
			x->ring[x->seq++ % GONE_RING] = h;
		}
		index_set_locked(x, name, len, h, exists);
		idx_account((long)idx_bytes(x) - (long)before);
		oversized_note(d, idx_bytes(x));
	}
	pthread_mutex_unlock(&ds->ilock);
}

/*
 * The kernel queues a change's inotify events before it unlocks the
 * directory (vfs_rename and the like run under the parent's lock), and
 * reading a directory takes that lock shared: once a getdents call has
 * returned, every change that was in progress has queued its events.
 * Read from the end, where ext4 has nothing to do (tmpfs cannot seek
 * there and lists a few names).
 */
int dir_fence(struct node *d)
{
	char buf[1024];
	int fd = scan_open(d), r = 0;

	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_END);
	if (getdents64(fd, buf, sizeof buf) < 0)
		r = -errno;
	close(fd);
	return r;
}

void dir_index_drop(struct node *d)
{
	struct dirstate *ds = d->dir;
	int put;

	if (!ds)
		return;

	pthread_mutex_lock(&ds->ilock);
	put = idx_drop_locked(d);
	/* No index, nothing to keep fresh: the watch goes with it (it
	 * counts against max_watches while the kernel holds the node). */
	watch_unwatch(d);
	/* Under ilock, or an index built meanwhile would be off the LRU:
	 * never evicted. */
	idx_unlink_lru(d);
	pthread_mutex_unlock(&ds->ilock);
	if (put)
		node_put(d);
}
