/*
 * conf.h - the modules of the lib-conformance program (test-conformance.c
 * runs them in order) and the helpers they share.
 */
#ifndef TESTS_LIB_CONF_H
#define TESTS_LIB_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "fold.h"

extern const char *conf_normtest_path; /* decompressed NormalizationTest.txt */
/* --quick (sanitizer builds): every code point that has a mapping, a class
 * or is ignorable is still checked; plain ones and some versions are
 * sampled.  conf_plain_skip(cp) says whether to skip cp. */
extern int conf_quick;
int conf_plain_skip(uint32_t cp, unsigned stride);
/* Versions to run a per-version loop for (all, or a sample when quick). */
int conf_version_sampled(size_t index, size_t count, uint32_t v);

void conf_normtest(void);  /* NormalizationTest.txt, parts 1-4 + invariance */
void conf_casefold(void);  /* per-code-point caseless keys vs the oracle */
void conf_closure(void);   /* key(key(x)) == key(x), fold_equal(x, key(x)) */
void conf_canon(void);     /* canonically equivalent mark orders are equal */
void conf_version(void);   /* DerivedAge-driven version behaviour, ages, ccc */
void conf_vectors(void);   /* kernel vectors, ext4 profile */
void conf_encoding(void);  /* encoding names, errors, ascii charset */

/* "utf8-15.0.0/NFD/0x2" for messages (static rotating buffer). */
const char *ctx_desc(const struct fold_ctx *c);
/* fold_init that must succeed (a failure is counted and the ctx zeroed);
 * returns 1 on success. */
int ctx_must(struct fold_ctx *c, const char *enc, enum fold_form form,
	     unsigned flags);
/* Newest Unicode version the library lists, as FOLD_UNICODE(). */
uint32_t lib_newest(void);
/* Is FOLD_UNICODE() version v listed by fold_unicode_versions()? */
int lib_has_version(uint32_t v);
/* "utf8-X.Y.Z" for a FOLD_UNICODE() value. */
const char *enc_name(uint32_t v);

/* Check that fold_normalize (use_key=0) or fold_key (1) of in gives
 * exactly want.  what names the check in a failure message. */
int expect_form(const struct fold_ctx *c, int use_key, const char *in,
		size_t n, const char *want, size_t wn, const char *what);

#endif
