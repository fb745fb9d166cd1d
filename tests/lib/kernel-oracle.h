/*
 * kernel-oracle.h - the Linux kernel's fs/unicode normalizer as a test
 * oracle (suite lib-kernel, fuzz target fuzz-kernel): its Unicode versions
 * with libfold's matching contexts, its keys, and what it accepts.  Built
 * against the kernel's utf8n.h and tables that tests/lib/kernel-src.sh
 * fetches; libfold never links it.
 */
#ifndef TESTS_LIB_KERNEL_ORACLE_H
#define TESTS_LIB_KERNEL_ORACLE_H

#include <stddef.h>

#include "fold.h"
#include "utf8n.h"

/* One Unicode version of the kernel's table, with libfold's contexts for
 * its two forms: nfdicf (FOLD_CASEFOLD) and nfdi (FOLD_NFD), both with
 * FOLD_IGNORABLES | FOLD_KERNEL_ORDER. */
struct kver {
	struct unicode_map um;
	char enc[24];		/* "utf8-12.1.0" */
	struct fold_ctx cf, nd;
};

#define KVER_MAX 64

/* Fill v[] with the versions of the kernel's table that libfold knows,
 * oldest first; returns their number.  *newer counts those libfold does
 * not know; *v121 is the index of 12.1 or -1.  -1 if the kernel's table
 * is inconsistent (nfdicf and nfdi version lists differ) or fold_init
 * fails otherwise. */
int kernel_versions(struct kver *v, int *newer, int *v121);

/* The kernel's key of s[0..n) (nfdicf if cf, else nfdi), as
 * utf8_casefold() makes it, into out (cap bytes); its length, -1 if the
 * kernel refuses the name, -2 if cap is too small. */
long kernel_key(const struct kver *v, int cf, const char *s, size_t n,
		char *out, size_t cap);

/* Compare the kernel's key of s[0..n) (nfdicf if cf, else nfdi) with
 * libfold's (v->cf or v->nd): 1 the same, 0 different, -2 the kernel
 * refuses the name.  The keys are left in kk (*kl, as kernel_key returns
 * it) and, but for -2, lk (*ll, as fold_key returns it), cap bytes each. */
int kernel_compare_key(const struct kver *v, int cf, const char *s, size_t n,
		       char *kk, long *kl, char *lk, ssize_t *ll, size_t cap);

/* Are s and t the same name to the kernel (nfdicf if cf, else nfdi)?
 * Streamed, as utf8_strncasecmp() compares: 1 same, 0 different, -1 if
 * the kernel refuses either (it then compares them as bytes). */
int kernel_equal(const struct kver *v, int cf, const char *s, size_t sn,
		 const char *t, size_t tn);

/* Should the kernel accept s[0..n)?  From libfold's own verdict (c's
 * fold_validate) on the name up to its first NUL without the continuation
 * bytes that follow complete characters, and not starting with a
 * continuation byte: the kernel's two laxities, which libfold does not
 * share (it keeps such names opaque). */
int kernel_should_accept(const struct fold_ctx *c, const char *s, size_t n);

#endif
