/*
 * fuzz-kernel.c - libFuzzer target: libfold's ext4 equivalence against the
 * Linux kernel's own fs/unicode code (tests/lib/kernel-oracle.h), where
 * tests/lib/kernel-src.sh could fetch it.
 *
 * Input: [version selector][name bytes]; the selector picks one of the
 * Unicode versions of the kernel's table (modulo their number).
 * Invariants: the kernel accepts the name exactly when kernel_should_accept
 * says so (libfold's verdict but for the kernel's two laxities); for a
 * well-formed name the kernel's nfdicf and nfdi keys are libfold's
 * FOLD_CASEFOLD and FOLD_NFD keys with FOLD_IGNORABLES | FOLD_KERNEL_ORDER,
 * byte for byte, runs of marks of any length included.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-ctx.h"
#include "kernel-oracle.h"

#define KEYCAP 16384

static struct kver vers[KVER_MAX];
static int nvers;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char kk[KEYCAP], lk[KEYCAP];
	const char *s = (const char *)data + 1;
	const struct kver *v;
	size_t n;
	int ok, want;

	if (!nvers) {
		int newer, v121;
		nvers = kernel_versions(vers, &newer, &v121);
		if (nvers <= 0 || v121 < 0) {
			fprintf(stderr, "fuzz-kernel: the kernel's table is "
					"unusable (%d versions)\n", nvers);
			abort();
		}
	}
	if (size < 1)
		return 0;
	v = &vers[data[0] % nvers];
	n = size - 1;
	ok = fold_validate(&v->cf, s, n, NULL) == 0;
	want = kernel_should_accept(&v->cf, s, n);
	for (int f = 0; f < 2; f++) {
		long kl;
		ssize_t ll = -1;
		int r = kernel_compare_key(v, f, s, n, kk, &kl, lk, &ll, KEYCAP);

		if (kl == -2 || (kl >= 0) != want) {
			fuzz_hex("input", s, n);
			fprintf(stderr, "%s: the kernel %s it, against "
					"kernel_should_accept\n", v->enc,
				kl == -2 ? "overflowed on" :
				kl >= 0	 ? "accepts"
					 : "refuses");
			abort();
		}
		if (ok && r == 0) {
			fuzz_hex("input", s, n);
			fuzz_hex("kernel", kk, (size_t)kl);
			if (ll >= 0)
				fuzz_hex("libfold", lk, (size_t)ll);
			fprintf(stderr, "%s %s: libfold's key differs\n",
				v->enc, f ? "nfdicf" : "nfdi");
			abort();
		}
	}
	return 0;
}
