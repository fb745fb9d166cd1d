/* opterr.h - getopt_long()'s error messages, written by the tools
 * themselves: glibc's echo the offending argument raw, and an argument can
 * be a file name that drives the terminal (escape sequences, bidi
 * overrides).  The same wording, with the argument escaped as every other
 * message of the tools is (u8_escape1). */
#ifndef FOLDFS_COMMON_OPTERR_H
#define FOLDFS_COMMON_OPTERR_H

#include <getopt.h>
#include <stdio.h>

/* Call with opterr = 0 and an optstring that starts (after any '-' or
 * '+') with ':', when getopt_long() returned ret, '?' or ':'; prints
 * "prog: <what was wrong>" and a newline to f.  argv, optind and optopt
 * are getopt's, as it left them. */
void opt_error(FILE *f, const char *prog, int ret, char *const argv[],
	       int optind, int optopt, const char *optstring,
	       const struct option *longopts);

#endif
