/*
 * fuzz-daemon-stubs.c - the daemon services that the fuzzers of its name
 * handling (fuzz-index.c, fuzz-names.c, fuzz-coherence.c, fuzz-readdir.c,
 * fuzz-watch.c) link with but never exercise: the debug log, inotify
 * watches (fs/watch.c; not for fuzz-watch.c, which links the real ones:
 * built with FUZZ_REAL_WATCH) and the wait for a prune round
 * (fs/prune.c).  All do nothing; each fuzzer stubs the rest its own way.
 */
#define _GNU_SOURCE
#include "foldfs.h"

void dlog(const char *fmt, ...)
{
	(void)fmt;
}

#ifndef FUZZ_REAL_WATCH
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
#endif

int prune_wait(int err)
{
	(void)err;
	return 0;
}
