/*
 * foldfs-norm.c - libfold from the shell: normalize, case fold, compare,
 * hash and validate file names.
 *
 * Input names are byte strings, one per line (or NUL-separated with -0),
 * read from files, standard input, or given as operands after "--".  An
 * ill-formed name is never altered: it is reported with its line and byte
 * offset and passed through as it was (or, with --strict, refused).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fold.h"
#include "opterr.h"
#include "u8.h"

#ifndef FOLDFS_VERSION
#define FOLDFS_VERSION "0.1"
#endif

/* Exit status */
#define ST_OK 0
#define ST_BAD 1   /* ill-formed input reported; --cmp: not equivalent */
#define ST_ERROR 2 /* usage, I/O, unknown encoding, --strict refusal */

/* The default --hash key: the SipHash reference test key, so the same
 * name, encoding and options hash the same in every run and with
 * fold_hash() in any program given that seed (fold_hash mixes the
 * context into the key, so plain SipHash of the key does not give it). */
/* What foldfs records for a new tree unless told otherwise (fs/main.c), so
 * that names print as a default view compares them. */
#define DEFAULT_ENCODING "utf8-12.1"
#define DEFAULT_K0 UINT64_C(0x0706050403020100)
#define DEFAULT_K1 UINT64_C(0x0f0e0d0c0b0a0908)

static struct {
	struct fold_ctx ctx;
	struct fold_seed seed;
	int check, hash, escape, zero, strict, verbose;
	char *out;
	size_t outcap;
	int status;
} g;

static void usage(FILE *f)
{
	fputs(
"Usage: foldfs-norm [OPTIONS] [FILE...]\n"
"       foldfs-norm [OPTIONS] -- NAME...\n"
"       foldfs-norm [OPTIONS] --cmp NAME1 NAME2\n"
"       foldfs-norm --list-encodings\n"
"\n"
"Print each name in the chosen normalization / case folding form, as the\n"
"foldfs file system compares names.  Names are read one per line from each\n"
"FILE (\"-\" or none: standard input), or taken from the operands after --.\n"
"A line's bytes are the name exactly (a trailing CR is part of it).\n"
"\n"
"Form and encoding:\n"
"  -f, --form FORM        nfd, nfc, nfkd, nfkc, casefold (default), nfkc_cf\n"
"  -e, --encoding ENC     utf8-X.Y[.Z] (default utf8-12.1, as foldfs gives a\n"
"                         new tree; foldfs --info SOURCE tells a tree's),\n"
"                         utf8 (the newest Unicode known) or ascii (only\n"
"                         A-Z fold)\n"
"  -p, --profile NAME     preset: ext4 = utf8-12.1, casefold, ignorables and\n"
"                         the kernel's order of marks (the Linux kernel's\n"
"                         ext4/f2fs/tmpfs equivalence)\n"
"      --compat           casefold on an NFKD base (compatibility caseless\n"
"                         match: ligatures, fullwidth forms match plain ones)\n"
"      --ignorables       drop Default_Ignorable_Code_Point characters\n"
"      --strict           an ill-formed name is an error: stop with status 2\n"
"\n"
"Operations (default: print the form of each name):\n"
"      --cmp A B          exit 0 if A and B are equivalent, 1 if not, 2 on\n"
"                         error; prints nothing unless -v\n"
"      --hash             print the 64-bit keyed hash (SipHash-1-3 of the\n"
"                         comparison key, context mixed in) in hex; equal\n"
"                         for equivalent names\n"
"      --seed K0:K1       --hash's key as two 64-bit hex numbers (default\n"
"                         0706050403020100:0f0e0d0c0b0a0908)\n"
"      --check            only validate; print 'line N: byte offset M:\n"
"                         ill-formed UTF-8' for each bad name\n"
"      --list-encodings   list the encodings this build knows\n"
"\n"
"Input and output:\n"
"  -0, --null             names are separated by NUL bytes, in and out\n"
"      --escape           print bytes that are not printable text (controls,\n"
"                         ill-formed bytes, backslash) as \\xNN / \\\\\n"
"  -v, --verbose          --cmp: print 'equivalent' or 'not equivalent' and\n"
"                         both keys; --list-encodings: what utf8 means\n"
"  -h, --help             this help\n"
"  -V, --version          version\n"
"\n"
"Ill-formed names (not shortest-form UTF-8, surrogates, above U+10FFFF)\n"
"are never altered: a warning on standard error names the line and the\n"
"byte offset of the first bad byte, and the name is printed unchanged\n"
"(--hash: hashed as opaque bytes).\n"
"\n"
"Exit status:\n"
"  0  success, every name well formed (--cmp: equivalent)\n"
"  1  some names were ill formed (--cmp: not equivalent)\n"
"  2  error: bad usage, unknown encoding, I/O error, or an ill-formed name\n"
"     under --strict\n"
"\n"
"Examples:\n"
"  printf 'Stra\\303\\237e\\n' | foldfs-norm             # strasse\n"
"  foldfs-norm --form nfc -- \"$(printf 'e\\314\\201')\"  # é (U+00E9)\n"
"  foldfs-norm --cmp -- Floß FLOSS && echo same\n"
"  find . -print0 | foldfs-norm -0 --check\n"
"\n"
"See foldfs-norm(1), libfold(3).\n",
	      f);
}

/* "FILE: " (escaped) before a line or record number, if there is a FILE. */
static void put_file(FILE *f, const char *file)
{
	if (!file)
		return;
	u8_fput_esc(f, file, strlen(file));
	fputs(": ", f);
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "foldfs-norm: %s%s", msg, arg ? ": " : "");
	if (arg)
		u8_fput_esc(stderr, arg, strlen(arg));
	putc('\n', stderr);
	fputs("Try 'foldfs-norm --help' for more information.\n", stderr);
	return ST_ERROR;
}

static int parse_form(const char *s, enum fold_form *f)
{
	static const struct {
		const char *n;
		enum fold_form f;
	} forms[] = {
		{ "nfd", FOLD_NFD },	       { "nfc", FOLD_NFC },
		{ "nfkd", FOLD_NFKD },	       { "nfkc", FOLD_NFKC },
		{ "casefold", FOLD_CASEFOLD }, { "nfkc_cf", FOLD_NFKC_CF },
		{ "nfkc-cf", FOLD_NFKC_CF },
	};
	size_t i;

	for (i = 0; i < sizeof forms / sizeof forms[0]; i++)
		if (!strcasecmp(s, forms[i].n)) {
			*f = forms[i].f;
			return 0;
		}
	return -1;
}

/* One to sixteen hex digits, nothing else (no sign, blank or 0x, which
 * strtoull would take), ending at end; -1 if not. */
static int hex64(const char *s, char end, uint64_t *v, const char **next)
{
	uint64_t x = 0;
	int n = 0;

	for (; *s != end; s++, n++) {
		int d = *s >= '0' && *s <= '9'	 ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
						 : -1;
		if (d < 0 || n == 16)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	if (!n)
		return -1;
	*v = x;
	*next = s;
	return 0;
}

static int parse_seed(const char *s, struct fold_seed *seed)
{
	const char *e;

	if (hex64(s, ':', &seed->k0, &e) < 0 ||
	    hex64(e + 1, '\0', &seed->k1, &e) < 0)
		return -1;
	return 0;
}

/* ---- output ---- */

/* Print s; with --escape as u8_fput_esc() writes it. */
static void put_name(const char *s, size_t n)
{
	if (g.escape)
		u8_fput_esc(stdout, s, n);
	else
		fwrite(s, 1, n, stdout);
}

static void end_record(void)
{
	putchar(g.zero ? '\0' : '\n');
}

/* Grow g.out to hold need bytes. */
static int out_reserve(size_t need)
{
	char *p;

	if (need <= g.outcap)
		return 0;
	p = realloc(g.out, need);
	if (!p)
		return -1;
	g.out = p;
	g.outcap = need;
	return 0;
}

/* ---- one name ---- */

/* where: "FILE: line" or "argument"; returns -1 to stop (--strict). */
static int do_name(const char *s, size_t n, const char *file,
		   const char *unit, unsigned long no)
{
	size_t off = 0;
	int bad = fold_validate(&g.ctx, s, n, &off) < 0;
	ssize_t r;

	if (bad) {
		g.status = g.status > ST_BAD ? g.status : ST_BAD;
		if (g.check) {
			put_file(stdout, file);
			printf("%s %lu: byte offset %zu: ill-formed UTF-8\n",
			       unit, no, off);
			if (!g.strict)
				return 0;
			g.status = ST_ERROR; /* the first one stops it */
			return -1;
		}
		fflush(stdout);
		fputs("foldfs-norm: ", stderr);
		put_file(stderr, file);
		fprintf(stderr,
			"%s %lu: byte offset %zu: ill-formed UTF-8%s\n",
			unit, no, off,
			g.strict ? " (refused: --strict)"
			: g.hash ? "; hashed as opaque bytes" /* not printed */
				 : "; printed unchanged");
		if (g.strict) {
			g.status = ST_ERROR;
			return -1;
		}
	}
	if (g.check)
		return 0;
	if (g.hash) {
		printf("%016" PRIx64, fold_hash(&g.ctx, &g.seed, s, n));
		end_record();
		return 0;
	}
	if (bad) {
		put_name(s, n);
		end_record();
		return 0;
	}
	for (;;) {
		r = fold_normalize(&g.ctx, s, n, g.out, g.outcap);
		if (r < 0) {
			fputs("foldfs-norm: ", stderr);
			put_file(stderr, file);
			fprintf(stderr, "%s %lu: %s\n", unit, no,
				fold_strerror((int)r));
			g.status = ST_ERROR;
			return -1;
		}
		if ((size_t)r <= g.outcap)
			break;
		if (out_reserve((size_t)r) < 0) {
			fprintf(stderr, "foldfs-norm: out of memory\n");
			g.status = ST_ERROR;
			return -1;
		}
	}
	put_name(g.out, (size_t)r);
	end_record();
	return 0;
}

static int do_stream(FILE *f, const char *file)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	unsigned long no = 0;
	int delim = g.zero ? '\0' : '\n', r = 0;

	while ((got = getdelim(&line, &cap, delim, f)) >= 0) {
		size_t n = (size_t)got;

		no++;
		if (n && line[n - 1] == (char)delim)
			n--;
		/* Stop at a refusal (--strict), and as soon as standard
		 * output has failed: main reports that, and endless input
		 * ("yes | foldfs-norm > /dev/full") would be read forever. */
		if (do_name(line, n, file, g.zero ? "record" : "line", no) <
			    0 ||
		    ferror(stdout)) {
			r = -1;
			break;
		}
	}
	/* A read error ends this FILE only, as an open error does: the
	 * FILEs after it are still read.  getdelim() failing short of the
	 * end is one too: out of memory for a long line sets no error flag
	 * (glibc), and the rest must not pass for the end of the input. */
	if (!r && (ferror(f) || !feof(f))) {
		int e = errno;

		fputs("foldfs-norm: ", stderr);
		put_file(stderr, file ? file : "standard input");
		fprintf(stderr, "read error: %s\n", strerror(e));
		g.status = ST_ERROR;
	}
	free(line);
	return r;
}

static void list_encodings(void)
{
	const char *const *v;
	size_t n = fold_unicode_versions(&v), i;

	puts("ascii");
	if (g.verbose && n)
		printf("utf8\t(the newest: utf8-%s)\n", v[n - 1]);
	else
		puts("utf8");
	for (i = 0; i < n; i++)
		printf("utf8-%s\n", v[i]);
}

enum {
	OPT_COMPAT = 256,
	OPT_IGNORABLES,
	OPT_STRICT,
	OPT_CMP,
	OPT_HASH,
	OPT_SEED,
	OPT_CHECK,
	OPT_ESCAPE,
	OPT_LIST,
};

static const struct option longopts[] = {
	{ "form", required_argument, NULL, 'f' },
	{ "encoding", required_argument, NULL, 'e' },
	{ "profile", required_argument, NULL, 'p' },
	{ "compat", no_argument, NULL, OPT_COMPAT },
	{ "ignorables", no_argument, NULL, OPT_IGNORABLES },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "cmp", no_argument, NULL, OPT_CMP },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "escape", no_argument, NULL, OPT_ESCAPE },
	{ "null", no_argument, NULL, '0' },
	{ "list-encodings", no_argument, NULL, OPT_LIST },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int run(int argc, char **argv)
{
	const char *encoding = NULL, *profile = NULL;
	enum fold_form form = FOLD_CASEFOLD;
	unsigned flags = 0;
	int have_form = 0, cmp = 0, list = 0, have_seed = 0, opt, r, i;
	static const char optstring[] = "-:f:e:p:0vhV";
	int nfiles = 0, nnames = 0;

	g.seed.k0 = DEFAULT_K0;
	g.seed.k1 = DEFAULT_K1;
	/* "-" first: operands come back in order as option 1 and getopt
	 * stops at "--", so operands before it are FILEs and those after it
	 * NAMEs.  FILE operands are collected in argv[1..nfiles], slots that
	 * getopt has already consumed (it does not permute in this mode). */
	opterr = 0; /* our messages, escaped (":" tells a missing argument) */
	while ((opt = getopt_long(argc, argv, optstring, longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 1:
			argv[1 + nfiles++] = optarg;
			break;
		case 'f':
			if (parse_form(optarg, &form) < 0)
				return usage_error("unknown form (nfd, nfc, "
						   "nfkd, nfkc, casefold, "
						   "nfkc_cf)",
						   optarg);
			have_form = 1;
			break;
		case 'e':
			encoding = optarg;
			break;
		case 'p':
			profile = optarg;
			break;
		case OPT_COMPAT:
			flags |= FOLD_COMPAT;
			break;
		case OPT_IGNORABLES:
			flags |= FOLD_IGNORABLES;
			break;
		case OPT_STRICT:
			g.strict = 1;
			break;
		case OPT_CMP:
			cmp = 1;
			break;
		case OPT_HASH:
			g.hash = 1;
			break;
		case OPT_SEED:
			if (parse_seed(optarg, &g.seed) < 0)
				return usage_error("--seed wants K0:K1 in hex",
						   optarg);
			have_seed = 1;
			break;
		case OPT_CHECK:
			g.check = 1;
			break;
		case OPT_ESCAPE:
			g.escape = 1;
			break;
		case '0':
			g.zero = 1;
			break;
		case OPT_LIST:
			list = 1;
			break;
		case 'v':
			g.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return ST_OK;
		case 'V':
			printf("foldfs-norm %s\n", FOLDFS_VERSION);
			return ST_OK;
		default: /* '?' or ':' */
			opt_error(stderr, "foldfs-norm", opt, argv, optind,
				  optopt, optstring, longopts);
			fputs("Try 'foldfs-norm --help' for more "
			      "information.\n",
			      stderr);
			return ST_ERROR;
		}
	}
	if (list) {
		list_encodings();
		return ST_OK;
	}
	if (cmp + g.hash + g.check > 1)
		return usage_error("--cmp, --hash and --check exclude each "
				   "other",
				   NULL);
	if (have_seed && !g.hash)
		return usage_error("--seed is the key of --hash; give --hash",
				   NULL);

	if (profile) {
		char enc[40];

		if (encoding || have_form)
			return usage_error("--profile sets the encoding and "
					   "form; do not combine it with "
					   "--encoding or --form",
					   NULL);
		r = fold_init_profile(&g.ctx, profile);
		if (r < 0)
			return usage_error("unknown profile (known: ext4)",
					   profile);
		fold_encoding_name(&g.ctx, enc, sizeof enc);
		r = fold_init(&g.ctx, enc, (enum fold_form)g.ctx.form,
			      g.ctx.flags | flags |
				      (g.strict ? FOLD_STRICT : 0));
	} else {
		r = fold_init(&g.ctx, encoding ? encoding : DEFAULT_ENCODING,
			      form, flags | (g.strict ? FOLD_STRICT : 0));
	}
	if (r < 0) {
		/* quoted: an empty name or a stray space must show */
		const char *e = encoding  ? encoding
				: profile ? profile
					  : DEFAULT_ENCODING;

		fprintf(stderr, "foldfs-norm: %s '", fold_strerror(r));
		u8_fput_esc(stderr, e, strlen(e));
		fputs("' (--list-encodings lists the known ones)\n", stderr);
		fputs("Try 'foldfs-norm --help' for more information.\n",
		      stderr);
		return ST_ERROR;
	}

	nnames = argc - optind;

	if (cmp) {
		const char *a, *b;
		int eq;

		/* With or without "--", the two operands are names. */
		const char *nm[2];
		int k = 0;

		for (i = 0; i < nfiles && k < 2; i++)
			nm[k++] = argv[1 + i];
		for (i = optind; i < argc && k < 2; i++)
			nm[k++] = argv[i];
		if (nfiles + nnames != 2)
			return usage_error("--cmp wants exactly two names",
					   NULL);
		a = nm[0];
		b = nm[1];
		size_t an = strlen(a), bn = strlen(b), oa, ob;
		int ba = fold_validate(&g.ctx, a, an, &oa) < 0;
		int bb = fold_validate(&g.ctx, b, bn, &ob) < 0;

		if ((ba || bb) && g.strict) {
			fprintf(stderr,
				"foldfs-norm: argument %d: byte offset %zu: "
				"ill-formed UTF-8 (refused: --strict)\n",
				ba ? 1 : 2, ba ? oa : ob);
			return ST_ERROR;
		}
		/* as for every other name: said, never silent (the exit
		 * status is the comparison's) */
		for (i = 0; i < 2; i++)
			if (i ? bb : ba)
				fprintf(stderr,
					"foldfs-norm: argument %d: byte offset "
					"%zu: ill-formed UTF-8 (compared as "
					"bytes: equal only to itself)\n",
					i + 1, i ? ob : oa);
		eq = fold_equal(&g.ctx, a, an, b, bn);
		if (g.verbose) {
			ssize_t la, lb;

			printf("%s\n", eq ? "equivalent" : "not equivalent");
			for (i = 0; i < 2; i++) {
				const char *s = i ? b : a;
				size_t n = i ? bn : an;

				la = fold_key(&g.ctx, s, n, NULL, 0);
				if (la < 0 || out_reserve((size_t)la + 1) < 0)
					return ST_ERROR;
				lb = fold_key(&g.ctx, s, n, g.out, g.outcap);
				printf("key %d: ", i + 1);
				int esc = g.escape;
				g.escape = 1;
				put_name(g.out, (size_t)lb);
				g.escape = esc;
				putchar('\n');
			}
		}
		fflush(stdout);
		return eq ? ST_OK : 1;
	}

	if (nnames && nfiles)
		return usage_error("give either FILEs or -- NAMEs, not both",
				   NULL);
	if (nnames) {
		unsigned long no = 0;

		for (i = optind; i < argc; i++)
			if (do_name(argv[i], strlen(argv[i]), NULL,
				    "argument", ++no) < 0)
				break;
	} else if (!nfiles) {
		do_stream(stdin, NULL);
	} else {
		for (i = 1; i <= nfiles; i++) {
			FILE *f;

			if (!strcmp(argv[i], "-")) {
				if (do_stream(stdin, NULL) < 0)
					break;
				continue;
			}
			f = fopen(argv[i], "re");
			if (!f) {
				int e = errno;

				fputs("foldfs-norm: ", stderr);
				put_file(stderr, argv[i]);
				fprintf(stderr, "%s\n", strerror(e));
				g.status = ST_ERROR;
				continue;
			}
			r = do_stream(f, argv[i]);
			fclose(f);
			if (r < 0)
				break;
		}
	}
	return g.status;
}

int main(int argc, char **argv)
{
	int st = run(argc, argv);

	/* run() returns from many places (--cmp -v keys a name into g.out
	 * too): the buffer is freed here, once for all of them */
	free(g.out);
	g.out = NULL;
	g.outcap = 0;
	/* Every way out (--help, --cmp -v, --list-encodings...): what went
	 * to standard output must have arrived. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "foldfs-norm: write error: %s\n",
			strerror(errno));
		return ST_ERROR;
	}
	return st;
}
