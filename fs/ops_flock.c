/*
 * ops_flock.c - flock() through the view, without letting waiters stall
 * the file system.
 *
 * flock() is passed through to the backing descriptor, so it also
 * excludes processes using SOURCE directly.  A blocking LOCK_SH/LOCK_EX
 * that cannot be granted at once may wait for as long as the holder
 * likes; done in a worker of libfuse's pool (at most 10 threads) it would
 * take that worker with it, and ten such waiters -- any user can start
 * them -- would leave no worker for anybody's stat().  So a worker only
 * ever tries LOCK_NB; a request that has to wait gets a small thread of
 * its own, outside the pool, which retries with a growing pause (1 ms to
 * 20 ms) until it is granted, fails, or the kernel interrupts the
 * request (the caller caught a signal: EINTR).  Polling rather than a
 * blocking flock() keeps the interruption free of races with signal
 * delivery; a waiter costs one sleeping thread and no CPU to speak of.
 * Waiters are capped (MAX_WAITERS); beyond that a blocking request fails
 * with ENOLCK rather than take a worker.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/file.h>
#include <time.h>

#include "foldfs.h"

#define MAX_WAITERS 4096
#define WAITER_STACK (64 * 1024)

struct waiter {
	fuse_req_t req;
	int fd, op;
	atomic_int interrupted;
};

static atomic_int nwaiters;

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
		if (flock(w->fd, w->op | LOCK_NB) == 0) {
			err = 0;
			break;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			err = errno;
			break;
		}
		if (atomic_load(&w->interrupted) || fuse_req_interrupted(w->req)) {
			err = EINTR;
			break;
		}
		struct timespec ts = { 0, pause_ns };
		nanosleep(&ts, NULL);
		if (pause_ns < 20000000)
			pause_ns *= 2;
	}
	fuse_reply_err(w->req, err);
	free(w);
	atomic_fetch_sub(&nwaiters, 1);
	return NULL;
}

void op_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
	      int op)
{
	int fd = (int)fi->fh;
	struct waiter *w;
	pthread_attr_t at;
	pthread_t thr;
	int r;

	(void)ino;
	if ((op & LOCK_NB) || (op & LOCK_UN)) {
		fuse_reply_err(req, flock(fd, op) < 0 ? errno : 0);
		return;
	}
	if (flock(fd, op | LOCK_NB) == 0) {
		fuse_reply_err(req, 0);
		return;
	}
	if (errno != EWOULDBLOCK) {
		fuse_reply_err(req, errno);
		return;
	}
	if (atomic_fetch_add(&nwaiters, 1) >= MAX_WAITERS) {
		atomic_fetch_sub(&nwaiters, 1);
		fuse_reply_err(req, ENOLCK);
		return;
	}
	w = malloc(sizeof *w);
	if (!w) {
		atomic_fetch_sub(&nwaiters, 1);
		fuse_reply_err(req, ENOLCK);
		return;
	}
	w->req = req;
	w->fd = fd;
	w->op = op;
	atomic_init(&w->interrupted, 0);
	/* Registered before the thread exists: it may reply (and so end
	 * the registration) at once. */
	fuse_req_interrupt_func(req, on_interrupt, w);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, WAITER_STACK);
	r = pthread_create(&thr, &at, wait_for_lock, w);
	pthread_attr_destroy(&at);
	if (r != 0) {
		/* No thread: answer from here (the interrupt registration
		 * ends with the reply, before w goes). */
		fuse_reply_err(req, ENOLCK);
		free(w);
		atomic_fetch_sub(&nwaiters, 1);
	}
}
