/*
 * xlock.c - name changes in a folding directory, serialized with the
 * other foldfs daemons serving the same tree.
 *
 * A daemon checks "is an equivalent name stored?" and then creates under
 * its own namespace lock (dirstate.ns), which other daemons do not see:
 * two mounts of one SOURCE could both pass the check and store "a" and
 * "A".  So each such change also holds a write lock on one byte of the
 * encoding record that governs SOURCE, the byte picked by the directory's
 * (st_dev, st_ino): the same byte in every daemon, whichever SOURCE of
 * the tree it serves.  Unrelated directories that share a byte only wait
 * for each other.  The winner's change is in SOURCE before the lock is
 * released, so the other's check sees it (its inotify event is queued by
 * then).
 *
 * The locks are OFD locks (F_OFD_SETLK): their owner is the open file,
 * not the process, and no user can reach the record through a view (it
 * is hidden), so a user's flock() or fcntl() lock on a view directory,
 * which the daemon passes through to SOURCE, never stalls these changes.
 * The daemon's threads share one open file, which does not exclude
 * itself: a mutex per stripe of bytes keeps two threads from holding the
 * same byte at once (the second's unlock would drop the first's lock).
 *
 * Without a record open for writing (read-only mount or record, -o
 * nofold, no locks on SOURCE's file system) nothing is locked: the checks
 * are then atomic within one daemon only, as before.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "foldfs.h"

/* Bytes 1..XLOCK_SPAN; byte 0 is left free for a later use. */
#define XLOCK_SPAN (1u << 30)
#define XLOCK_STRIPES 64

static int xfd = -1;
static pthread_mutex_t stripe[XLOCK_STRIPES];

void xlock_init(int fd)
{
	for (int i = 0; i < XLOCK_STRIPES; i++)
		pthread_mutex_init(&stripe[i], NULL);
	xfd = fd;
}

/* The byte of directory (dev, ino).  Every daemon must compute the same
 * one: a fixed mix of the two numbers, no per-mount seed. */
static off_t xlock_byte(const struct node *d)
{
	uint64_t h = (uint64_t)d->ino * 0x9e3779b97f4a7c15u ^ (uint64_t)d->dev;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9u;
	h ^= h >> 29;
	return (off_t)(1 + h % XLOCK_SPAN);
}

/* How long a change waits for another daemon's lock.  Theirs last one
 * change (microseconds); anyone who can read the record in SOURCE can
 * also lock it, though, so the wait is bounded: past it the change goes
 * on unlocked, as without a record, rather than hang the worker. */
#define XLOCK_WAIT_NS 1000000000L

static int setlk(short type, off_t off)
{
	struct flock fl;
	long waited = 0, nap = 20000; /* ns: doubled up to 10 ms */

	memset(&fl, 0, sizeof fl);
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = off;
	fl.l_len = 1;
	for (;;) {
		struct timespec ts;
		if (fcntl(xfd, F_OFD_SETLK, &fl) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if ((errno != EAGAIN && errno != EACCES) ||
		    waited >= XLOCK_WAIT_NS)
			return -errno;
		ts.tv_sec = 0;
		ts.tv_nsec = nap;
		nanosleep(&ts, NULL);
		waited += nap;
		if (nap < 10000000L)
			nap *= 2;
	}
}

void xlock(struct node *d, struct xlock *x)
{
	static atomic_int warned;
	int r;

	x->off = 0;
	if (xfd < 0)
		return;
	x->off = xlock_byte(d);
	pthread_mutex_lock(&stripe[x->off % XLOCK_STRIPES]);
	r = setlk(F_WRLCK, x->off);
	if (r == 0)
		return;
	/* ENOLCK (the lock table or a server's is full), a file system that
	 * refuses, or a lock held past XLOCK_WAIT_NS (EAGAIN): the change
	 * goes on, checked within this daemon only, as it always was.
	 * Nothing is lost; say so once. */
	if (!atomic_exchange(&warned, 1))
		fprintf(stderr, "foldfs: cannot lock the encoding record (%s): "
				"changes through other mounts of this tree "
				"are not serialized with this one's\n",
			strerror(-r));
	pthread_mutex_unlock(&stripe[x->off % XLOCK_STRIPES]);
	x->off = 0;
}

void xunlock(struct xlock *x)
{
	if (!x->off)
		return;
	/* An unlock cannot fail for a lock we hold but for EINTR */
	setlk(F_UNLCK, x->off);
	pthread_mutex_unlock(&stripe[x->off % XLOCK_STRIPES]);
	x->off = 0;
}
