/*
 * kernel-peer.c - the Linux kernel's own utf8-12.1 nfdicf (fs/unicode,
 * through tests/lib/kernel-oracle.h) as bench-lib's peer for the ext4
 * profile.  Linked into bench-lib only where tests/lib/kernel-src.sh could
 * fetch the kernel's source; bench-lib declares these weak and leaves the
 * comparison out without them.
 */
#include <stdlib.h>

#include "kernel-oracle.h"

static struct kver vers[KVER_MAX];
static int v121 = -1;

int bench_kernel_ready(void);
long bench_kernel_key(const char *s, size_t n, char *out, size_t cap);
int bench_kernel_equal(const char *a, size_t an, const char *b, size_t bn);

/* 1 if the kernel's table has 12.1 (then the others may be called). */
int bench_kernel_ready(void)
{
	int newer;

	if (v121 < 0 && kernel_versions(vers, &newer, &v121) <= 0)
		v121 = -1;
	return v121 >= 0;
}

/* utf8_casefold(): the key, or -1 (refused) / -2 (cap too small). */
long bench_kernel_key(const char *s, size_t n, char *out, size_t cap)
{
	return kernel_key(&vers[v121], 1, s, n, out, cap);
}

/* utf8_strncasecmp(), streamed: 1 same, 0 different, -1 refused. */
int bench_kernel_equal(const char *a, size_t an, const char *b, size_t bn)
{
	return kernel_equal(&vers[v121], 1, a, an, b, bn);
}
