/*
 * fuzz-caller.c - the caller of the daemon's calls (fuzz-caller.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fuzz-caller.h"

struct fuse_ctx fz_ctx;
int fz_replies, fz_err;
static void die(const char *what)
{
	perror(what);
	abort();
}

const char *fz_start(const char *name, char *base, size_t cap)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(base, cap, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (!mkdtemp(base) || chmod(base, 0755) < 0)
		return "mkdtemp";
	return fz_creds_start();
}

const struct fuse_ctx *fuse_req_ctx(fuse_req_t req)
{
	(void)req;
	return &fz_ctx;
}

int fuse_req_getgroups(fuse_req_t req, int size, gid_t list[])
{
	(void)req;
	(void)size;
	(void)list;
	return 0; /* no supplementary groups */
}

int fuse_reply_err(fuse_req_t req, int err)
{
	(void)req;
	fz_replies++;
	fz_err = err;
	return 0;
}

void fz_as_caller(struct fz_as *a)
{
	a->on = F.switch_creds && (fz_ctx.uid || fz_ctx.gid);
	if (!a->on)
		return;
	a->ngroups = getgroups(256, a->groups);
	if (a->ngroups < 0 || syscall(SYS_setgroups, 0, NULL) < 0)
		die("fuzz-caller: setgroups");
	syscall(SYS_setfsgid, fz_ctx.gid);
	syscall(SYS_setfsuid, fz_ctx.uid);
}

void fz_as_daemon(struct fz_as *a)
{
	if (!a->on)
		return;
	syscall(SYS_setfsuid, geteuid());
	syscall(SYS_setfsgid, getegid());
	if (syscall(SYS_setgroups, (size_t)a->ngroups, a->groups) < 0)
		die("fuzz-caller: setgroups back");
}
