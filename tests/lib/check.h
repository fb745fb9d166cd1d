/*
 * check.h - pass/fail bookkeeping shared by the libfold test programs.
 *
 * Every program counts individual checks, prints the first few failures in
 * full (input bytes, expected, got) and the rest only as a count, and ends
 * with the line "N passed, N failed".  Groups let a program print a count
 * per topic so a log shows where failures cluster.
 */
#ifndef TESTS_LIB_CHECK_H
#define TESTS_LIB_CHECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start a named group of checks; ends the previous one (printing its count). */
void ck_group(const char *name);
/* Record one check.  On failure fmt (printf-style) describes it; only the
 * first ck_verbose failures per group are printed. */
int ck(int ok, const char *fmt, ...)
#ifdef __GNUC__
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Informational line (not a check). */
void ck_info(const char *fmt, ...)
#ifdef __GNUC__
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* Ends the last group, prints the totals line; returns the exit status. */
int ck_finish(void);

extern unsigned long ck_verbose;
extern unsigned long ck_total_pass, ck_total_fail;

/* A comparison context named as tests list them ("ext4" = the profile). */
struct ctxdef {
	const char *enc;
	int form; /* enum fold_form */
	unsigned flags;
};
/* "utf8-12.1/CASEFOLD/0x4" (or "profile ext4"), rotating static buffer. */
const char *ctxdef_desc(const struct ctxdef *d);

/* Format bytes as "61 CC 88" into a static rotating buffer (for messages). */
const char *ck_hex(const void *p, size_t n);
/* Format code points as "U+0061 U+0308". */
const char *ck_cps(const uint32_t *cp, size_t n);

/* UTF-8 encode one scalar value (no checks); returns bytes written (1..4). */
size_t u8_put(uint32_t cp, char *out);
/* Encode n code points; returns total length.  out must hold 4*n bytes. */
size_t u8_encode(const uint32_t *cp, size_t n, char *out);
/* Decode well-formed UTF-8 (trusted input); returns the count. */
size_t u8_decode(const char *s, size_t n, uint32_t *out, size_t cap);

/* xorshift64 (13, 7, 17): advances *state and returns it.  The same
 * sequence on every platform, so a failing run repeats. */
uint64_t ck_xorshift(uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif
