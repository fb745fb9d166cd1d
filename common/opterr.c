/* opterr.c - getopt_long()'s error messages with the argument escaped
 * (opterr.h). */
#define _GNU_SOURCE
#include "opterr.h"

#include "u8.h"

#include <string.h>

static void put_arg(FILE *f, const char *s)
{
	u8_fput_esc(f, s, strlen(s));
}

/* Is c an option letter of optstring (not its leading '-', '+', ':')? */
static int is_letter(const char *optstring, int c)
{
	const char *s = optstring;

	while (*s == '-' || *s == '+')
		s++;
	if (*s == ':')
		s++;
	return c > 0 && c < 256 && c != ':' && strchr(s, c) != NULL;
}

void opt_error(FILE *f, const char *prog, int ret, char *const argv[],
	       int optind, int optopt, const char *optstring,
	       const struct option *longopts)
{
	/* getopt has stepped past a long option it refuses, and past a
	 * short one only if it ended its cluster: the long one's text is
	 * argv[optind - 1] */
	const char *arg = optind > 0 ? argv[optind - 1] : NULL;
	int is_long = arg && !strncmp(arg, "--", 2) &&
		      (ret == ':' ? 1 : optopt == 0 || optopt >= 256 ||
					is_letter(optstring, optopt));

	fprintf(f, "%s: ", prog);
	if (!is_long) {
		/* a short option: its letter (escaped if it is a byte that
		 * is not printable text) */
		char c = (char)optopt;

		fputs(ret == ':' ? "option requires an argument -- '" :
				   "invalid option -- '",
		      f);
		u8_fput_esc(f, &c, 1);
		fputs("'\n", f);
		return;
	}
	if (ret == ':') {
		fputs("option '", f);
		put_arg(f, arg);
		fputs("' requires an argument\n", f);
		return;
	}
	if (optopt) {
		/* known, given "=VALUE" it takes none: named in full (the
		 * one option the name typed abbreviates), as getopt would */
		const char *eq = strchr(arg, '='), *full = NULL;
		size_t n = eq ? (size_t)(eq - arg) : strlen(arg);

		for (const struct option *o = longopts; n > 2 && o && o->name;
		     o++)
			if (!strncmp(o->name, arg + 2, n - 2) &&
			    (!full || strlen(o->name) == n - 2))
				full = o->name;
		fputs("option '", f);
		if (full) {
			fputs("--", f);
			u8_fput_esc(f, full, strlen(full));
		} else {
			u8_fput_esc(f, arg, n);
		}
		fputs("' doesn't allow an argument\n", f);
		return;
	}
	{
		/* unknown, or the prefix of more than one */
		const char *name = arg + 2, *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);
		int prefixes = 0;

		for (const struct option *o = longopts; o && o->name; o++)
			prefixes += !strncmp(o->name, name, n);
		fputs("option '", f);
		put_arg(f, arg);
		fputs(prefixes > 1 ? "' is ambiguous\n" : "' is not known\n", f);
	}
}
