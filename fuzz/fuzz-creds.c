/*
 * fuzz-creds.c - the daemon's own credentials (fuzz-creds.h).
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "foldfs.h"
#include "fuzz-creds.h"

static int own_ngroups;
static gid_t own_groups[256];

const char *fz_creds_start(void)
{
	if (geteuid() == 0 && getgroups(0, NULL) == 0 &&
	    syscall(SYS_setgroups, 1, &(gid_t){4242}) < 0)
		return "setgroups";
	own_ngroups = getgroups(256, own_groups);
	return creds_init() < 0 ? "creds_init" : NULL;
}

const char *fz_creds_wrong(void)
{
	gid_t g[256];

	if (syscall(SYS_setfsuid, (uid_t)-1) != (long)geteuid() ||
	    syscall(SYS_setfsgid, (gid_t)-1) != (long)getegid())
		return "the daemon's fsuid or fsgid was not restored";
	if (getgroups(256, g) != own_ngroups ||
	    memcmp(g, own_groups, (size_t)own_ngroups * sizeof *g))
		return "the daemon's groups were not restored";
	return NULL;
}
