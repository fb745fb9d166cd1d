/*
 * inode.c - the node table: one node per backing object.
 *
 * Nodes are keyed by the backing (st_dev, st_ino), so every spelling of
 * a name and every hard link lead to the same node id, hence to one
 * kernel inode and one page cache.  A node's id is its address (the root
 * is FUSE_ROOT_ID).  A node lives while the kernel holds lookups on it
 * (nlookup, lowered by FORGET) or the daemon holds it (refs: the watcher
 * working on it, or the directory's fold index, which should outlive the
 * kernel forgetting an unused directory inode).
 *
 * Inode numbers are reused by the backing file system once a file is
 * gone.  A node whose object has been deleted while the kernel still
 * holds it (an open unlinked file, a dentry under another spelling) must
 * not be handed out for a new object that got the same number, so a hit
 * is checked with fstat: nlink 0 means the old object is dead, and the
 * stale node is unhashed (it lives on until forgotten).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "foldfs.h"

static pthread_mutex_t tlock = PTHREAD_MUTEX_INITIALIZER;
static struct node **tab;
static size_t tab_size; /* power of two */
static size_t tab_count;
static struct node *root;

/* wd -> node map for the watcher; a small open hash under tlock */
struct wdent {
	int wd;
	struct node *n;
};
static struct wdent *wdmap;
static size_t wd_size, wd_count;

/* Every node in existence (hashed or not), by address: coherence.c asks
 * whether a node id it once handed out still lives in the kernel. */
static struct node **alive;
static size_t alive_size, alive_count;

static size_t aslot(const struct node *n, size_t size)
{
	uint64_t h = (uint64_t)(uintptr_t)n * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (size - 1);
}

static void alive_put_locked(struct node *n)
{
	size_t i = aslot(n, alive_size);

	while (alive[i])
		i = (i + 1) & (alive_size - 1);
	alive[i] = n;
	alive_count++;
}

static int alive_add_locked(struct node *n)
{
	if ((alive_count + 1) * 2 > alive_size) {
		size_t osize = alive_size, nsize = alive_size ? alive_size * 2 : 1024;
		struct node **old = alive, **na = calloc(nsize, sizeof *na);
		if (!na)
			return -1;
		alive = na;
		alive_size = nsize;
		alive_count = 0;
		for (size_t i = 0; i < osize; i++)
			if (old[i])
				alive_put_locked(old[i]);
		free(old);
	}
	alive_put_locked(n);
	return 0;
}

static void alive_del_locked(struct node *n)
{
	size_t i = aslot(n, alive_size);

	while (alive[i] && alive[i] != n)
		i = (i + 1) & (alive_size - 1);
	if (!alive[i])
		return;
	alive[i] = NULL;
	alive_count--;
	for (i = (i + 1) & (alive_size - 1); alive[i];
	     i = (i + 1) & (alive_size - 1)) {
		struct node *m = alive[i];
		alive[i] = NULL;
		alive_count--;
		alive_put_locked(m);
	}
}

int node_alive(uint64_t id)
{
	/* not node_of(): the node may be freed, so never read */
	struct node *n = id == FUSE_ROOT_ID ? node_root()
					    : (struct node *)(uintptr_t)id;
	size_t i;
	int found = 0;

	pthread_mutex_lock(&tlock);
	if (alive_size) {
		for (i = aslot(n, alive_size); alive[i];
		     i = (i + 1) & (alive_size - 1)) {
			if (alive[i] == n) {
				found = 1;
				break;
			}
		}
	}
	pthread_mutex_unlock(&tlock);
	return found;
}

struct node *node_hold_id(uint64_t id, uint32_t gen)
{
	struct node *n = id == FUSE_ROOT_ID ? node_root()
					    : (struct node *)(uintptr_t)id;
	size_t i;

	pthread_mutex_lock(&tlock);
	if (alive_size) {
		for (i = aslot(n, alive_size); alive[i];
		     i = (i + 1) & (alive_size - 1)) {
			if (alive[i] != n)
				continue;
			/* found, so n may be read; the same address may
			 * now be another object's node */
			if (n->gen == gen && n->nlookup) {
				n->refs++;
				pthread_mutex_unlock(&tlock);
				return n;
			}
			break;
		}
	}
	pthread_mutex_unlock(&tlock);
	return NULL;
}

static size_t hslot(dev_t dev, ino_t ino, size_t size)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev;
	h ^= h >> 29;
	return (size_t)(h & (size - 1));
}

static int tab_grow(void)
{
	size_t nsize = tab_size ? tab_size * 2 : 1024;
	struct node **nt = calloc(nsize, sizeof *nt);

	if (!nt)
		return -1;
	for (size_t i = 0; i < tab_size; i++) {
		struct node *n = tab[i], *next;
		for (; n; n = next) {
			size_t s = hslot(n->dev, n->ino, nsize);
			next = n->hnext;
			n->hnext = nt[s];
			nt[s] = n;
		}
	}
	free(tab);
	tab = nt;
	tab_size = nsize;
	return 0;
}

static void tab_remove(struct node *n)
{
	struct node **pp = &tab[hslot(n->dev, n->ino, tab_size)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == n) {
			*pp = n->hnext;
			tab_count--;
			break;
		}
	}
	n->hashed = 0;
}

static struct dirstate *dirstate_new(void)
{
	struct dirstate *ds = calloc(1, sizeof *ds);

	if (!ds)
		return NULL;
	pthread_rwlock_init(&ds->ns, NULL);
	pthread_mutex_init(&ds->ilock, NULL);
	atomic_init(&ds->fold, -1);
	atomic_init(&ds->fold_checked, 0);
	ds->wd = -1;
	return ds;
}

/* Node ids are addresses, so a freed node's id comes back for another
 * object.  The kernel's file handles (name_to_handle_at, NFS) are the
 * pair (node id, generation): each node gets a generation of its own, or
 * the handle of a forgotten file would open whatever reuses its id. */
static atomic_uint node_gens;

#ifdef FOLDFS_TSAN
char foldfs_tsan_chan; /* foldfs.h */
#endif

static struct node *node_new(int fd, const struct stat *st, uint64_t mnt)
{
	struct node *n = calloc(1, sizeof *n);

	if (!n)
		return NULL;
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->mnt = mnt;
	n->fd = fd;
	n->type = st->st_mode & S_IFMT;
	n->wd = -1;
	if (S_ISDIR(st->st_mode)) {
		n->dir = dirstate_new();
		if (!n->dir) {
			free(n);
			return NULL;
		}
	}
	n->gen = atomic_fetch_add(&node_gens, 1) + 1;
	return n;
}

int node_init(int root_fd, const struct stat *st)
{
	struct stat now;
	uint64_t mnt;

	if (tab_grow() < 0)
		return -ENOMEM;
	if (fd_stat(root_fd, &now, &mnt) < 0)
		return -errno;
	root = node_new(root_fd, st, mnt);
	if (!root)
		return -ENOMEM;
	root->gen = 0; /* the kernel made the root inode with generation 0 */
	root->refs = 1; /* never freed */
	root->nlookup = 1;
	root->hashed = 1;
	root->hnext = tab[hslot(root->dev, root->ino, tab_size)];
	tab[hslot(root->dev, root->ino, tab_size)] = root;
	tab_count = 1;
	return alive_add_locked(root) ? -ENOMEM : 0;
}

struct node *node_root(void)
{
	return root;
}

/* With tlock held: the hashed node of (dev, ino) on mount mnt, if any. */
static struct node *hashed_locked(const struct stat *st, uint64_t mnt)
{
	struct node *n = tab[hslot(st->st_dev, st->st_ino, tab_size)];

	while (n && (n->dev != st->st_dev || n->ino != st->st_ino ||
		     n->mnt != mnt))
		n = n->hnext;
	return n;
}

/*
 * Is n's object gone, its number perhaps reused?  A transient error
 * (EINTR, EAGAIN, ENOMEM, EIO, ETIMEDOUT) is not an answer: a node
 * unhashed by mistake makes a second node for one object.  Every other
 * error is (ESTALE from NFS, ENOENT from a path-based FUSE file system
 * inside SOURCE), as are no link left and another type.  Asked without
 * tlock, as on a network file system the fstat waits for the server, and
 * a server that does not answer must not stop every lookup of the view.
 */
static int node_stale(struct node *n)
{
	struct stat cur;

	if (n == root)
		return 0;
	if (fstat(n->fd, &cur) < 0)
		return errno != EINTR && errno != EAGAIN && errno != ENOMEM &&
		       errno != EIO && errno != ETIMEDOUT;
	return cur.st_nlink == 0 || (cur.st_mode & S_IFMT) != n->type;
}

/* The live node of (dev, ino) on mount mnt with a hold (refs), or NULL;
 * with `locked`, NULL comes back with tlock held, for an insertion that
 * must find none hashed. */
static struct node *lookup_held(const struct stat *st, uint64_t mnt,
				int locked)
{
	for (;;) {
		struct node *n;

		pthread_mutex_lock(&tlock);
		n = hashed_locked(st, mnt);
		if (!n) {
			if (!locked)
				pthread_mutex_unlock(&tlock);
			return NULL;
		}
		n->refs++;
		pthread_mutex_unlock(&tlock);
		if (!node_stale(n))
			return n;
		pthread_mutex_lock(&tlock);
		if (n->hashed)
			tab_remove(n);
		pthread_mutex_unlock(&tlock);
		node_put(n); /* then look again: one may be new */
	}
}

/* Free n and its directory state; closing n->fd is the caller's. */
static void node_discard(struct node *n)
{
	if (n->dir) {
		pthread_rwlock_destroy(&n->dir->ns);
		pthread_mutex_destroy(&n->dir->ilock);
		free(n->dir);
	}
	free(n);
}

struct node *node_get(int fd, const struct stat *st, uint64_t mnt)
{
	struct node *n, *fresh = NULL;
	size_t count;

	n = lookup_held(st, mnt, 0);
	if (!n) {
		/* Allocate outside the lock; another thread may win the race
		 * (its node, too, may be of an object gone since: looked at
		 * as any other). */
		fresh = node_new(fd, st, mnt);
		if (!fresh) {
			close(fd);
			return NULL;
		}
		n = lookup_held(st, mnt, 1); /* NULL: tlock held */
	}
	if (n) {
		pthread_mutex_lock(&tlock);
		n->refs--; /* the hold becomes a lookup */
		n->nlookup++;
		n->used = 1;
		pthread_mutex_unlock(&tlock);
		close(fd);
		if (fresh)
			node_discard(fresh);
		return n;
	}
	if ((tab_count + 1 > tab_size && tab_grow() < 0) ||
	    alive_add_locked(fresh) < 0) {
		pthread_mutex_unlock(&tlock);
		close(fd);
		node_discard(fresh);
		return NULL;
	}
	fresh->nlookup = 1;
	fresh->hashed = 1;
	fresh->used = 1;
	{
		size_t s = hslot(st->st_dev, st->st_ino, tab_size);
		fresh->hnext = tab[s];
		tab[s] = fresh;
	}
	count = ++tab_count;
	pthread_mutex_unlock(&tlock);
	prune_note(count);
	return fresh;
}

struct node *node_find(const struct stat *st, uint64_t mnt)
{
	return lookup_held(st, mnt, 0);
}

static void wd_remove_locked(struct node *n);

static atomic_ulong nfreed;

unsigned long node_freed(void)
{
	return atomic_load(&nfreed);
}

/* Free a node that nobody references any more (tlock not held). */
static void node_free(struct node *n)
{
	if (n->dir) {
		/* An index holds its node, so there is none left here. */
		idx_unlink_lru(n);
		watch_unwatch(n);
	}
	close(n->fd);
	node_discard(n);
	atomic_fetch_add(&nfreed, 1);
}

/* With tlock held: unhash and decide whether n can be freed. */
static int release_locked(struct node *n)
{
	if (n->nlookup || n->refs)
		return 0;
	if (n->hashed)
		tab_remove(n);
	wd_remove_locked(n);
	alive_del_locked(n);
	return 1;
}

void node_forget(struct node *n, uint64_t nlookup)
{
	int dead, check = 0;

	pthread_mutex_lock(&tlock);
	n->nlookup = nlookup > n->nlookup ? 0 : n->nlookup - nlookup;
	dead = release_locked(n);
	if (!dead && !n->nlookup && n->dir) {
		n->refs++; /* held while we look */
		check = 1;
	}
	pthread_mutex_unlock(&tlock);
	if (dead) {
		node_free(n);
	} else if (check) {
		/* The kernel forgot a directory that its index still holds
		 * (idx_ensure): if it is gone -- replaced by a rename, or
		 * removed directly in SOURCE -- the index goes, and with it
		 * the node, its descriptor and its inotify watch. */
		idx_drop_if_gone(n);
		node_put(n);
	}
}

void node_hold(struct node *n)
{
	pthread_mutex_lock(&tlock);
	n->refs++;
	pthread_mutex_unlock(&tlock);
}

int node_hold_if_forgotten(struct node *n)
{
	int r;

	pthread_mutex_lock(&tlock);
	r = !n->nlookup;
	if (r)
		n->refs++;
	pthread_mutex_unlock(&tlock);
	return r;
}

void node_put(struct node *n)
{
	int dead;

	pthread_mutex_lock(&tlock);
	n->refs--;
	dead = release_locked(n);
	pthread_mutex_unlock(&tlock);
	if (dead)
		node_free(n);
}

size_t node_count(void)
{
	size_t c;

	pthread_mutex_lock(&tlock);
	c = tab_count;
	pthread_mutex_unlock(&tlock);
	return c;
}

size_t node_sweep(uint64_t *ids, size_t max, int *lap)
{
	static size_t hand;
	size_t got = 0, seen;

	*lap = 0;
	pthread_mutex_lock(&tlock);
	for (seen = 0; got < max && seen < tab_size; seen++, hand++) {
		if (hand >= tab_size) {
			hand = 0;
			*lap = 1;
		}
		for (struct node *n = tab[hand]; n && got < max; n = n->hnext) {
			if (n == root || !n->nlookup)
				continue;
			if (n->used)
				n->used = 0;
			else
				ids[got++] = node_id(n);
		}
	}
	pthread_mutex_unlock(&tlock);
	return got;
}

/* ---- inode numbers shown -------------------------------------------- */

/*
 * The view is one file system (one st_dev), but SOURCE may have others
 * mounted inside it (a btrfs subvolume is one too) whose inode numbers
 * repeat SOURCE's own, and two files with the same st_dev and st_ino are
 * one file to tar (which then archives the second as a hard link to the
 * first), cp -a, rsync -H, find -samefile...  So an object that is not on
 * SOURCE's file system shows its number with bits 48-63 set to its
 * device's place in the order the daemon met devices (1..0xfffe); SOURCE's
 * objects keep theirs (xfs and btrfs number far below 2^48).
 *
 * A number of another file system that already uses bits 48-63 (a nested
 * view, mergerfs and overlayfs hashes, 64-bit NFS file ids) cannot be
 * tagged: it gets the next number of the range 0xffff << 48 instead, from
 * a map kept for the daemon's life, so that the number never changes and
 * is never given twice.  The map costs memory only on such file systems:
 * 48-96 bytes for each object ever listed or looked up there.
 * SOURCE's own numbers are never touched: if SOURCE itself numbers in
 * bits 48-63, a collision with a tagged number stays possible, as unlikely
 * as two of its hashes colliding.
 */
#define DEV_SHIFT 48
#define DEV_MAX 0xfffe
#define REMAP_TAG ((uint64_t)0xffff << DEV_SHIFT)

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static dev_t *devs;
static size_t ndev, devcap;

struct remap {
	uint64_t dev, ino, shown; /* shown 0: a free slot */
};
static struct remap *remaps;
static size_t nremap, remap_size; /* remap_size: 0 or a power of two */

static size_t remap_slot(uint64_t dev, uint64_t ino, size_t size)
{
	uint64_t h = (ino ^ dev * 0x9e3779b97f4a7c15u) * 0xff51afd7ed558ccdu;

	return (size_t)(h ^ h >> 29) & (size - 1);
}

static size_t remap_probe(const struct remap *t, size_t size, uint64_t dev,
			  uint64_t ino)
{
	size_t i = remap_slot(dev, ino, size);

	while (t[i].shown && (t[i].dev != dev || t[i].ino != ino))
		i = (i + 1) & (size - 1);
	return i;
}

/* The number shown for (dev, ino) from the map, adding it; 0 when memory
 * runs out.  Called with dev_lock held. */
static uint64_t remap_locked(uint64_t dev, uint64_t ino)
{
	size_t i;

	if (remap_size && remaps[i = remap_probe(remaps, remap_size, dev,
						   ino)].shown)
		return remaps[i].shown;
	if (2 * (nremap + 1) > remap_size) { /* at most half full */
		size_t ns = remap_size ? 2 * remap_size : 64;
		struct remap *nt = calloc(ns, sizeof *nt);

		if (!nt)
			return 0;
		for (size_t k = 0; k < remap_size; k++)
			if (remaps[k].shown)
				nt[remap_probe(nt, ns, remaps[k].dev,
					       remaps[k].ino)] = remaps[k];
		free(remaps);
		remaps = nt;
		remap_size = ns;
	}
	i = remap_probe(remaps, remap_size, dev, ino);
	remaps[i].dev = dev;
	remaps[i].ino = ino;
	remaps[i].shown = REMAP_TAG | ++nremap;
	return remaps[i].shown;
}

/* The device's place (1..DEV_MAX) in the order met, 0 when there is no
 * room.  Called with dev_lock held. */
static uint64_t dev_tag_locked(dev_t dev)
{
	size_t k;

	for (k = 0; k < ndev && devs[k] != dev; k++)
		;
	if (k == ndev && ndev < DEV_MAX) {
		if (ndev == devcap) {
			size_t nc = devcap ? devcap * 2 : 8;
			dev_t *nd = realloc(devs, nc * sizeof *nd);
			if (nd) {
				devs = nd;
				devcap = nc;
			}
		}
		if (ndev < devcap)
			devs[ndev++] = dev;
	}
	return k < ndev ? k + 1 : 0;
}

ino_t node_view_ino(dev_t dev, ino_t ino)
{
	uint64_t tag = 0, shown = 0;

	if (dev == F.root_dev)
		return ino;
	pthread_mutex_lock(&dev_lock);
	if (!((uint64_t)ino >> DEV_SHIFT))
		tag = dev_tag_locked(dev);
	if (tag)
		shown = (uint64_t)ino | tag << DEV_SHIFT;
	else /* a wide number, or more devices than tags */
		shown = remap_locked((uint64_t)dev, (uint64_t)ino);
	pthread_mutex_unlock(&dev_lock);
	return shown ? (ino_t)shown : ino; /* out of memory: as it is */
}

/* ---- wd map --------------------------------------------------------- */

static size_t wdslot(int wd, size_t size)
{
	return ((size_t)wd * 0x9e3779b1u) & (size - 1);
}

/* The slot of wd in the map, or the free one where it would go (the map
 * is not empty: wd_size > 0). */
static size_t wd_probe_locked(int wd)
{
	size_t i = wdslot(wd, wd_size);

	while (wdmap[i].n && wdmap[i].wd != wd)
		i = (i + 1) & (wd_size - 1);
	return i;
}

static void wd_put_locked(int wd, struct node *n)
{
	size_t i = wd_probe_locked(wd);

	if (!wdmap[i].n)
		wd_count++;
	wdmap[i].wd = wd;
	wdmap[i].n = n;
}

static int wd_grow_locked(void)
{
	size_t osize = wd_size, nsize = wd_size ? wd_size * 2 : 64;
	struct wdent *old = wdmap, *nm = calloc(nsize, sizeof *nm);

	if (!nm)
		return -1;
	wdmap = nm;
	wd_size = nsize;
	wd_count = 0;
	for (size_t i = 0; i < osize; i++)
		if (old[i].n)
			wd_put_locked(old[i].wd, old[i].n);
	free(old);
	return 0;
}

/* Linear-probing delete: re-insert the rest of the cluster. */
static void wd_del_locked(int wd)
{
	size_t i;

	if (!wd_size)
		return;
	i = wd_probe_locked(wd);
	if (!wdmap[i].n)
		return;
	wdmap[i].n = NULL;
	wd_count--;
	for (i = (i + 1) & (wd_size - 1); wdmap[i].n;
	     i = (i + 1) & (wd_size - 1)) {
		struct wdent e = wdmap[i];
		wdmap[i].n = NULL;
		wd_count--;
		wd_put_locked(e.wd, e.n);
	}
}

static void wd_remove_locked(struct node *n)
{
	if (n->wd >= 0) {
		wd_del_locked(n->wd);
		n->wd = -1;
	}
}

int node_set_wd(struct node *n, int wd)
{
	pthread_mutex_lock(&tlock);
	if (wd >= 0 && wd_size) {
		struct node *other = wdmap[wd_probe_locked(wd)].n;
		if (other && other != n) {
			pthread_mutex_unlock(&tlock);
			return -1;
		}
	}
	if (n->wd >= 0)
		wd_del_locked(n->wd);
	n->wd = -1;
	if (wd >= 0 && ((wd_count + 1) * 2 <= wd_size || wd_grow_locked() == 0)) {
		wd_put_locked(wd, n);
		n->wd = wd;
	}
	pthread_mutex_unlock(&tlock);
	return 0;
}

struct node *node_hold_wd(int wd)
{
	struct node *n = NULL;

	pthread_mutex_lock(&tlock);
	if (wd_size) {
		n = wdmap[wd_probe_locked(wd)].n;
		if (n)
			n->refs++;
	}
	pthread_mutex_unlock(&tlock);
	return n;
}

/* ---- per-directory folding state ----------------------------------- */

int dir_folds(struct node *d)
{
	int f;

	if (!d->dir || F.nofold)
		return 0;
	if (F.casefold_all)
		return 1;
	f = atomic_load(&d->dir->fold);
	if (f < 0) {
		int r = foldfs_dir_casefold_get(d->fd);
		/* No user xattrs in SOURCE: nothing can carry the flag. */
		f = r > 0;
		atomic_store(&d->dir->fold, f);
	}
	return f;
}

void dir_set_fold(struct node *d, int on)
{
	if (d->dir)
		atomic_store(&d->dir->fold, on ? 1 : 0);
}

void node_procname(const struct node *n, char buf[64])
{
	snprintf(buf, 64, "/proc/self/fd/%d", n->fd);
}
