/*
 * fuzz-caller.h - the caller of the daemon's calls, for the fuzzers that
 * make them as some user on real objects (fuzz-xattr.c, fuzz-ioctl.c):
 * libfuse's view of the request (fuse_req_ctx() answers fz_ctx, with no
 * supplementary groups), the replies counted (fuse_reply_err() is here;
 * a fuzzer's other reply stubs count in fz_replies too), a reference call
 * made as the daemon acts for the caller; the daemon's own credentials
 * (fuzz-creds.h) with them.
 */
#ifndef FUZZ_CALLER_H
#define FUZZ_CALLER_H

#include <sys/types.h>

#include "foldfs.h"
#include "fuzz-creds.h"

extern struct fuse_ctx fz_ctx; /* the caller of the next call */
extern int fz_replies;	       /* replies to the current call */
extern int fz_err;	       /* the last one's error, 0 for success */

/* Make the fuzzer's scratch directory, $TMPDIR/NAME.XXXXXX (else in
 * /tmp), open to all (other users reach the objects by path), into base;
 * then fz_creds_start().  Returns NULL, or what failed. */
const char *fz_start(const char *name, char *base, size_t cap);

/* Act as the daemon acts for fz_ctx (fs/creds.c: with its fsuid and fsgid
 * and no supplementary groups when the daemon is root and the caller is
 * not root:root), then as the daemon again. */
struct fz_as {
	int on, ngroups;
	gid_t groups[256];
};
void fz_as_caller(struct fz_as *a);
void fz_as_daemon(struct fz_as *a);

#endif
