/*
 * resolve.c - which stored name a spelling denotes in a directory.
 *
 * The rule (DAEMON-CLI.md): an exact byte match wins; otherwise, in a
 * folding directory, the bytewise smallest of the stored names equivalent
 * to the spelling.  The exact case is by far the commonest, so it is one
 * openat() and never touches the index.  Ill-formed names match only
 * byte for byte, and the encoding record is invisible at the view root.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "foldfs.h"

int name_hidden(struct node *d, const char *name)
{
	return d == node_root() && !strcmp(name, FOLDFS_RECORD_NAME);
}

int name_illformed(const char *name)
{
	return fold_validatez(&F.ctx, name, NULL) != 0;
}

/* The index winner for name in d (building the index on first use);
 * *inotify: whether the index was kept fresh by inotify, and *miss the
 * stamp of a miss, proven if before (the stamp of a miss before a fence)
 * is given and no equivalent name went since (resolve_at). */
static int index_winner(struct node *d, const char *name, char *out,
			int *inotify, struct idx_stamp *miss,
			const struct idx_stamp *before)
{
	struct dirstate *ds = d->dir;
	int r;

	*inotify = 0;
	watch_sync(d);
	pthread_mutex_lock(&ds->ilock);
	r = idx_ensure(d);
	if (r < 0) {
		pthread_mutex_unlock(&ds->ilock);
		return r;
	}
	r = idx_winner(ds->idx, name, out, miss);
	if (r == -ENOENT) {
		miss->built = ds->built;
		miss->proven = before && idx_miss_proven(ds->idx, before, miss);
	}
	*inotify = !ds->poll;
	/* Under ilock: an eviction in between would put d back on the LRU
	 * without the index, and so without the hold that keeps it alive
	 * there (idx_sweep_gone). */
	idx_touch(d);
	pthread_mutex_unlock(&ds->ilock);
	return r;
}

/* want_fd 0: only the stat (and the mount, if mnt); else the O_PATH fd. */
static int open_stat(struct node *d, const char *name, struct stat *st,
		     uint64_t *mnt, int want_fd)
{
	if (!want_fd)
		return name_stat(d->fd, name, st, mnt) < 0 ? -errno : 0;
	int fd = prune_openat(d->fd, name);
	if (fd < 0)
		return -errno;
	if (fd_stat(fd, st, mnt) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/*
 * A round of resolve_at() lost to SOURCE changing the directory: wait a
 * random while before the next, up to about 2^round microseconds (1 ms
 * at most).  A process renaming a name back and forth in SOURCE, as fast
 * as it can, otherwise falls into step with us: our look at a name it
 * has just renamed away waits for its directory lock (a lookup of a name
 * not cached does), so we read its events and pick the new name just as
 * its next rename begins, and open that name just after the rename --
 * every round, on btrfs, whose renames are slow (seen: 64 rounds lost in
 * a row, a few hundred times in 20,000 lookups).  A random phase makes
 * each round a fresh chance.
 */
static void lost_round(int round)
{
	static _Thread_local uint64_t x;
	struct timespec ts = { 0, 0 };

	if (round < 2)
		return;
	if (!x)
		x = now_ns() ^ (uint64_t)(uintptr_t)&x;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	uint64_t span = round < 10 ? 1u << round : 1024;
	ts.tv_nsec = (long)(x % span) * 1000;
	nanosleep(&ts, NULL);
}

static int resolve_at(struct node *d, const char *name, char *stored,
		      struct stat *st, uint64_t *mnt, int want_fd)
{
	size_t len = strlen(name);
	int r;

	if (len >= NAME_BUF)
		return -ENAMETOOLONG;
	/* The record is never this exact name; a name equivalent to it that
	 * SOURCE holds (".FOLDFS", made there) is found by every spelling,
	 * ".foldfs" included, as any other entry is. */
	r = name_hidden(d, name) ? -ENOENT : open_stat(d, name, st, mnt, want_fd);
	if (r != -ENOENT) {
		if (r >= 0)
			memcpy(stored, name, len + 1);
		return r;
	}
	if (!dir_folds(d) || name_illformed(name))
		return -ENOENT;
	/*
	 * With inotify, the index looks at each event's name on its own, at
	 * its own instant: while SOURCE renames "file" to "File" and back,
	 * the look at "file" can fall before one rename and the look at
	 * "File" after the next, and the index then holds neither; a rename
	 * is also visible before its events are queued.  So the index proves
	 * a miss only if no name equivalent to this one was found gone (nor
	 * the index rebuilt) from before a fence until the events queued by
	 * then were applied: it then holds every such name that existed at
	 * the fence.  (Only those: the index can lack a name that exists
	 * only if a look found that very name absent after it was made.)
	 * The count of names found gone is remembered (settled), and later
	 * misses need no fence until a name is found gone again: misses stay
	 * free where SOURCE is quiet (the count is per slot of the hash, so
	 * SOURCE renaming other names sends few lookups to a fence: struct
	 * idx_stamp).  A name whose last event in a read was its unlink does
	 * not count: an unlink leaves no other name that the index could
	 * lack, so create+unlink loops (ours included) need no fences either.
	 */
	struct idx_stamp miss, before;
	int fenced = 0, inotify;
	/* A stale index winner is dropped and the next one tried; the
	 * bound only guards against a directory changing under us forever
	 * (with lost_round()'s waits, at most about 60 ms). */
	for (int tries = 0; tries < 64; tries++) {
		r = index_winner(d, name, stored, &inotify, &miss,
				 fenced ? &before : NULL);
		if (r == -ENOENT && inotify) {
			if (miss.proven || (!fenced && miss.settled))
				return r;
			if (fenced) {
				/* an equivalent name went meanwhile: wait,
				 * then again from a fresh look (the wait
				 * outside the proof's window) */
				fenced = 0;
				lost_round(tries);
				continue;
			}
			before = miss;
			fenced = 1;
			/* unproven, a miss would let a create or rename
			 * make a second equivalent name */
			r = dir_fence(d);
			if (r < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r;
		r = open_stat(d, stored, st, mnt, want_fd);
		if (r != -ENOENT)
			return r;
		/* Not there (any more): make the index agree with SOURCE.
		 * Rechecked under the index lock, as a change through the
		 * mount may be re-creating it right now. */
		dir_index_recheck(d, stored, 0);
		fenced = 0;
		lost_round(tries);
	}
	/* Never a miss that is not proven: a create would then make a
	 * second equivalent name.  SOURCE is changing the directory faster
	 * than we can look; the caller may try again. */
	return -EAGAIN;
}

int resolve(struct node *d, const char *name, char *stored, struct stat *st,
	    uint64_t *mnt)
{
	return resolve_at(d, name, stored, st, mnt, 1);
}

int resolve_name(struct node *d, const char *name, char *stored,
		 struct stat *st, uint64_t *mnt)
{
	return resolve_at(d, name, stored, st, mnt, 0);
}
