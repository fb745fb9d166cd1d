/*
 * test-conformance.c - lib-conformance: libfold against the Unicode
 * Character Database.  Runs the modules declared in conf.h and prints a
 * count per group and the total.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conf.h"
#include "ucd.h"

const char *conf_normtest_path;

/* Installed unicode-data newer than the tables (Debian 13 ships 15.1):
 * check the library against the UCD as of its own newest version.  By
 * Unicode's stability policies nothing assigned by then changes later. */
static void cap_to_library(void)
{
	const uint32_t *dv;
	size_t nd = ucd_versions(&dv);
	uint32_t lib = lib_newest(), ucd;

	if (!lib || !nd || dv[nd - 1] <= lib)
		return; /* the same (or older: version-list says so) */
	ucd = dv[nd - 1];
	ck_group("ucd");
	size_t n = ucd_cap(lib);
	ck_info("the installed UCD is %s, the library's tables %s: checked as "
		"of the latter (%zu code points assigned since are unassigned "
		"there; NormalizationTest lines with them are skipped)",
		enc_name(ucd) + 5, enc_name(lib) + 5, n);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: test-conformance --ucd DIR --normtest FILE [--only NAME] [--quick]\n"
"                        [--verbose N]\n"
"\n"
"Checks libfold against the Unicode Character Database in DIR (normally\n"
"/usr/share/unicode) and the decompressed NormalizationTest.txt in FILE:\n"
"  normtest  every NormalizationTest line, four forms (invariants c1..c5),\n"
"            plus invariance of every code point not listed in part 1\n"
"  casefold  each code point's closed caseless key (CaseFolding C+F and\n"
"            UnicodeData decompositions) vs an independent oracle\n"
"  closure   key(key(x)) == key(x) and x ~ key(x), every form and flag\n"
"  canon     canonically equivalent orders of two marks are equal in every\n"
"            form (exceptions: U+0345 under NFKC_CF and the ext4 profile)\n"
"  version   DerivedAge-driven version behaviour, fold_cp_age, fold_cp_ccc,\n"
"            NormalizationCorrections\n"
"  vectors   the Linux kernel's published vectors and the ext4 profile\n"
"  encoding  encoding names, error codes, the ascii charset\n"
"--quick (for sanitizer builds) still checks every code point that has a\n"
"mapping, class or ignorability, but samples the plain ones and the versions.\n"
"--only NAME runs one module.  --verbose N prints up to N failures per group\n"
"(default 12).  Output ends with \"N passed, N failed\"; exit status 1 if\n"
"anything failed, 2 on a usage or data error.\n");
}

int main(int argc, char **argv)
{
	const char *ucd = NULL, *only = NULL;
	static const struct {
		const char *name;
		void (*run)(void);
	} mods[] = {
		{"normtest", conf_normtest}, {"casefold", conf_casefold},
		{"closure", conf_closure},   {"canon", conf_canon},
		{"version", conf_version},
		{"vectors", conf_vectors},   {"encoding", conf_encoding},
	};

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--ucd") && i + 1 < argc) {
			ucd = argv[++i];
		} else if (!strcmp(argv[i], "--normtest") && i + 1 < argc) {
			conf_normtest_path = argv[++i];
		} else if (!strcmp(argv[i], "--quick")) {
			conf_quick = 1;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--verbose") && i + 1 < argc) {
			ck_verbose = strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "test-conformance: bad argument '%s'\n",
				argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!ucd || !conf_normtest_path) {
		usage(stderr);
		return 2;
	}
	ucd_load(ucd);
	cap_to_library();
	for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
		if (!only || !strcmp(only, mods[i].name))
			mods[i].run();
	return ck_finish();
}
