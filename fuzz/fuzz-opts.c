/*
 * fuzz-opts.c - the daemon's -o option lists (fs/main.c: parse_o(),
 * one_option(), the escaped messages of die()), run through its own
 * main() (objcopy'ed to foldfs_main, its exit() to fuzz_exit(), which
 * returns here).  The input, split at NULs, is one or more option lists,
 * each given as "-o LIST" (so no SOURCE or MOUNTPOINT is ever named and
 * main() stops after the options: usage, status 1).
 *
 * Checked: nothing crashes (ASan, UBSan); the status is 1; every line
 * written on standard error is well-formed, printable text (no C0 or C1
 * control, DEL, bidirectional control or line separator: names and
 * values from the command line are escaped); a refusal is one message
 * starting "foldfs: "; an accepted list leaves the settings in range.
 * What main() leaves allocated when it stops there is not a leak (the
 * daemon exits): LeakSanitizer ignores it, and libFuzzer does not look
 * for leaks after each input.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/lsan_interface.h>
/* (LeakSanitizer comes with ASan; a build without it, e.g. for
 * coverage, has nothing to tell) */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifndef HAVE_LSAN
#define __lsan_disable() ((void)0)
#define __lsan_enable() ((void)0)
#endif

#include "foldfs.h"
#include "fuzz-text.h"
#include "u8.h"

int foldfs_main(int argc, char **argv);

static jmp_buf g_back;
static int g_status;

/* main.c's exit() */
__attribute__((noreturn)) void fuzz_exit(int status)
{
	g_status = status;
	longjmp(g_back, 1);
}

static const uint8_t *g_in;
static size_t g_inlen;

static __attribute__((noreturn)) void fail(const char *what, const char *err,
					   size_t errlen)
{
	fprintf(stderr, "fuzz-opts: %s\n  said: ", what);
	fwrite(err, 1, errlen, stderr);
	fprintf(stderr, "\n  input (%zu bytes):", g_inlen);
	for (size_t i = 0; i < g_inlen; i++)
		fprintf(stderr, " %02x", g_in[i]);
	fputc('\n', stderr);
	abort();
}

/* main() stops with its allocations in hand, at every input: libFuzzer
 * would then search for leaks after each (slow); the exit's check
 * remains. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char flag[] = "-detect_leaks=0";
	char **v = calloc((size_t)*argc + 2, sizeof *v);

	if (!v)
		abort();
	memcpy(v, *argv, (size_t)*argc * sizeof *v);
	v[(*argc)++] = flag;
	*argv = v;
	return 0;
}

#define MAXLISTS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[2 * MAXLISTS + 2], *copy, *err = NULL;
	size_t errlen = 0;
	int argc = 1;
	FILE *se = stderr, *e;

	g_in = data;
	g_inlen = size;
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "foldfs";
	for (char *p = copy; argc < 2 * MAXLISTS + 1;) {
		argv[argc++] = "-o";
		argv[argc++] = p;
		p += strlen(p) + 1;
		if (p > copy + size)
			break;
	}
	argv[argc] = NULL;

	memset(&F, 0, sizeof F);
	e = open_memstream(&err, &errlen);
	if (!e)
		abort();
	stderr = e;
	__lsan_disable();
	if (setjmp(g_back) == 0)
		g_status = foldfs_main(argc, argv);
	__lsan_enable();
	stderr = se;
	fclose(e);

	if (g_status != 1)
		fail("another status than 1", err, errlen);
	for (size_t i = 0, j; i < errlen; i = j + 1) {
		for (j = i; j < errlen && err[j] != '\n'; j++)
			;
		if (!fz_printable(err + i, j - i))
			fail("a line that is not printable text", err, errlen);
	}
	if (errlen && strncmp(err, "foldfs: ", 8) &&
	    strncmp(err, "Usage", 5))
		fail("a message that is neither a refusal nor the usage", err,
		     errlen);
	if (!strncmp(err, "Usage", 5) &&
	    (!(F.timeout >= 0 && F.timeout <= 1e6) ||
	     F.index_mem < (1u << 20) || F.max_watches < -1 ||
	     (int)F.cache < 0 || F.cache > CACHE_NONE))
		fail("accepted settings out of range", err, errlen);
	free(err);
	free(copy);
	return 0;
}
