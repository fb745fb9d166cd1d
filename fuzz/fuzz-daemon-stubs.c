/*
 * fuzz-daemon-stubs.c - the daemon services that the fuzzers of its name
 * handling (fuzz-index.c, fuzz-names.c, fuzz-coherence.c) link with but
 * never exercise: the debug log, inotify watches (fs/watch.c) and the wait
 * for a prune round (fs/prune.c).  All do nothing; each fuzzer stubs the
 * rest its own way.
 */
#define _GNU_SOURCE
#include "foldfs.h"

void dlog(const char *fmt, ...)
{
	(void)fmt;
}

void watch_dir(struct node *d)
{
	(void)d;
}

void watch_unwatch(struct node *d)
{
	(void)d;
}

void watch_stamps_after(struct node *d, const struct dir_stamp *pre)
{
	(void)d;
	(void)pre;
}

int prune_wait(int err)
{
	(void)err;
	return 0;
}
