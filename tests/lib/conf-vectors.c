/*
 * conf-vectors.c - the Linux kernel's published fs/unicode vectors (NFD and
 * NFD + case folding at 12.1), the xfstests generic/556 name pairs, and the
 * "ext4" profile's ignorable handling (".git" + ZWNJ, heart + VS16).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "conf.h"

struct vec {
	const char *in, *want;
};

static const struct vec nfd_vecs[] = {
	{"aBba", "aBba"},
	{"\xC2\xBC", "\xC2\xBC"},		 /* U+00BC: no compat */
	{"\xC3\xA4", "a\xCC\x88"},		 /* U+00E4 */
	{"\xC7\x89", "\xC7\x89"},		 /* U+01C9 lj stays */
	{"\xCE\x87", "\xC2\xB7"},		 /* U+0387 -> U+00B7 */
	{"A\xCC\x81\xCC\xA8", "A\xCC\xA8\xCC\x81"}, /* canonical order */
};

static const struct vec cf_vecs[] = {
	{"aBba", "abba"},
	{"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"},
	{"\xC3\x9F", "ss"},			    /* U+00DF */
	{"\xC3\x85", "a\xCC\x8A"},		    /* U+00C5 */
	{"\xEA\xAD\xB0", "\xE1\x8E\xA0"},	    /* U+AB70 -> U+13A0 */
	{"\xE1\x8F\xB8", "\xE1\x8F\xB0"},	    /* U+13F8 -> U+13F0 */
	{"\xF0\x90\xB2\x83", "\xF0\x90\xB3\x83"}, /* U+10C83 -> U+10CC3 */
	{"\xF0\x90\x92\xB5", "\xF0\x90\x93\x9D"}, /* U+104B5 -> U+104DD */
	{"\xEA\x9E\xAE", "\xC9\xAA"},		    /* U+A7AE -> U+026A */
	{"\xE1\xB2\x90", "\xE1\x83\x90"},	    /* U+1C90 -> U+10D0 */
	{"\xC4\xB0", "i\xCC\x87"},		    /* U+0130, status F */
};

/* xfstests generic/556: pairs that must be the same name. */
static const struct vec same_names[] = {
	{"file.txt", "FILE.TXT"},
	{"cora\xC3\xA7\xC3\xA3o", "CORAC\314\247A\314\203O"},
	{"french_caf\xC3\xA9", "french_cafe\xCC\x81"},
	{"arabic_\xDB\x92\xD9\x94", "ARABIC_\xDB\x93"},
	{"\xE3\x82\xB2", "\xE3\x82\xB1\xE3\x82\x99"}, /* U+30B2 vs U+30B1 U+3099 */
};

static void run_vecs(const struct fold_ctx *c, const struct vec *v, size_t n,
		     const char *what)
{
	for (size_t i = 0; i < n; i++) {
		expect_form(c, 1, v[i].in, strlen(v[i].in), v[i].want,
			    strlen(v[i].want), what);
		expect_form(c, 0, v[i].in, strlen(v[i].in), v[i].want,
			    strlen(v[i].want), what);
		ck(fold_equalz(c, v[i].in, v[i].want) == 1,
		   "%s: %s: %s !~ %s", what, ctx_desc(c),
		   ck_hex(v[i].in, strlen(v[i].in)),
		   ck_hex(v[i].want, strlen(v[i].want)));
	}
}

static void eq(const struct fold_ctx *c, const char *a, const char *b,
	       int want)
{
	static const struct fold_seed seed = {42, 4242};
	int e = fold_equalz(c, a, b), r = fold_cmpz(c, a, b);

	ck(e == want && (r == 0) == want,
	   "%s: %s vs %s: fold_equal %d, fold_cmp %d, want %s", ctx_desc(c),
	   ck_hex(a, strlen(a)), ck_hex(b, strlen(b)), e, r,
	   want ? "equal" : "different");
	if (want)
		ck(fold_hashz(c, &seed, a) == fold_hashz(c, &seed, b),
		   "%s: hashes differ for %s and %s", ctx_desc(c),
		   ck_hex(a, strlen(a)), ck_hex(b, strlen(b)));
}

void conf_vectors(void)
{
	struct fold_ctx c, plain, ign;

	ck_group("vectors-kernel");
	if (ctx_must(&c, "utf8-12.1", FOLD_NFD, 0))
		run_vecs(&c, nfd_vecs, sizeof nfd_vecs / sizeof *nfd_vecs,
			 "NFD");
	if (ctx_must(&c, "utf8-12.1", FOLD_NFD, FOLD_IGNORABLES))
		run_vecs(&c, nfd_vecs, sizeof nfd_vecs / sizeof *nfd_vecs,
			 "NFDI");
	if (ctx_must(&c, "utf8-12.1", FOLD_CASEFOLD, 0))
		run_vecs(&c, cf_vecs, sizeof cf_vecs / sizeof *cf_vecs,
			 "NFDCF");
	if (ctx_must(&c, "utf8", FOLD_CASEFOLD, 0))
		run_vecs(&c, cf_vecs, sizeof cf_vecs / sizeof *cf_vecs,
			 "NFDCF newest");
	if (ck(fold_init_profile(&c, "ext4") == 0, "profile ext4 refused"))
		run_vecs(&c, cf_vecs, sizeof cf_vecs / sizeof *cf_vecs,
			 "ext4 nfdicf");
	/* kernel's version checks: 7.0.0 and 9.0.0 supported, 0.0.0 not */
	ck(fold_init(&c, "utf8-7.0.0", FOLD_CASEFOLD, 0) == 0,
	   "utf8-7.0.0 refused");
	ck(fold_init(&c, "utf8-9.0.0", FOLD_CASEFOLD, 0) == 0,
	   "utf8-9.0.0 refused");
	ck(fold_init(&c, "utf8-0.0.0", FOLD_CASEFOLD, 0) == FOLD_EVERSION,
	   "utf8-0.0.0 not FOLD_EVERSION");

	ck_group("vectors-xfstests");
	if (fold_init_profile(&c, "ext4") == 0)
		for (size_t i = 0; i < sizeof same_names / sizeof *same_names;
		     i++)
			eq(&c, same_names[i].in, same_names[i].want, 1);
	eq(&c, "file.txt", "file.txx", 0);
	eq(&c, "file.txt", "file.tx", 0);

	ck_group("vectors-ext4-profile");
	if (!ck(fold_init_profile(&c, "ext4") == 0, "profile ext4 refused"))
		return;
	ck(c.charset == FOLD_CHARSET_UTF8 && c.form == FOLD_CASEFOLD &&
		   c.unicode == FOLD_UNICODE(12, 1, 0) &&
		   (c.flags & FOLD_IGNORABLES) && !(c.flags & FOLD_COMPAT),
	   "ext4 profile is %s", ctx_desc(&c));
	if (!ctx_must(&plain, "utf8-12.1", FOLD_CASEFOLD, 0))
		return;
	eq(&c, ".git\xE2\x80\x8C", ".git", 1);	 /* ZWNJ dropped */
	eq(&c, ".g\xE2\x80\x8Dit", ".GIT", 1);	 /* ZWJ inside */
	eq(&c, "\xE2\x9D\xA4", "\xE2\x9D\xA4\xEF\xB8\x8F", 1); /* ❤ vs ❤️ */
	eq(&c, "\xC2\xAD" "abc", "ABC", 1);	 /* soft hyphen */
	eq(&plain, ".git\xE2\x80\x8C", ".git", 0);
	eq(&plain, ".g\xE2\x80\x8Dit", ".GIT", 0);
	eq(&plain, "\xE2\x9D\xA4", "\xE2\x9D\xA4\xEF\xB8\x8F", 0);
	eq(&plain, "\xC2\xAD" "abc", "ABC", 0);
	expect_form(&c, 1, ".GIT\xE2\x80\x8C", 7, ".git", 4, "ext4 key");
	expect_form(&plain, 1, ".GIT\xE2\x80\x8C", 7, ".git\xE2\x80\x8C", 7,
		    "no-ignorables key");

	/* U+0345: the kernel folds it to U+03B9 where it stands (a starter),
	 * so mark order around it matters under ext4; plain FOLD_CASEFOLD
	 * orders it as class 240 first (D145), so it does not. */
	ck(c.flags & FOLD_KERNEL_ORDER, "ext4 profile lacks FOLD_KERNEL_ORDER");
	expect_form(&c, 1, "a\xCD\x85\xCC\x80", 5, "a\xCE\xB9\xCC\x80", 5,
		    "ext4 key of a U+0345 U+0300");
	expect_form(&plain, 1, "a\xCD\x85\xCC\x80", 5, "a\xCC\x80\xCE\xB9", 5,
		    "D145 key of a U+0345 U+0300");
	eq(&c, "a\xCD\x85\xCC\x80", "a\xCC\x80\xCD\x85", 0);
	eq(&plain, "a\xCD\x85\xCC\x80", "a\xCC\x80\xCD\x85", 1);

	/* A dropped ignorable keeps the marks on its two sides apart in the
	 * kernel's nfdicf (its empty decomposition is a starter there), so
	 * U+0300 (230) stays before U+0316 (220) across a ZWNJ; dropped as
	 * if never there (FOLD_IGNORABLES alone), they are sorted. */
	if (!ctx_must(&ign, "utf8-12.1", FOLD_CASEFOLD, FOLD_IGNORABLES))
		return;
	expect_form(&c, 1, "A\xCC\x80\xE2\x80\x8C\xCC\x96", 8,
		    "a\xCC\x80\xCC\x96", 5, "ext4 key of A U+0300 ZWNJ U+0316");
	expect_form(&ign, 1, "A\xCC\x80\xE2\x80\x8C\xCC\x96", 8,
		    "a\xCC\x96\xCC\x80", 5, "sorted key of A U+0300 ZWNJ U+0316");
	eq(&c, "a\xCC\x80\xE2\x80\x8C\xCC\x96", "a\xCC\x96\xCC\x80", 0);
	eq(&c, "a\xCC\x80\xE2\x80\x8C\xCC\x96", "A\xCC\x80\xC2\xAD\xCC\x96", 1);
	/* ... and so the name is not equivalent to its key (the key sorts) */
	eq(&c, "a\xCC\x80\xE2\x80\x8C\xCC\x96", "a\xCC\x80\xCC\x96", 0);
	eq(&ign, "a\xCC\x80\xE2\x80\x8C\xCC\x96", "a\xCC\x96\xCC\x80", 1);
}
