/*
 * fuzz-norm.c - foldfs-norm as a whole (tools/foldfs-norm.c, built into
 * this program with its main renamed): options, the reading of names from
 * standard input, a FILE, "-" or the operands, and what it prints, against
 * libfold called directly.
 *
 * For the names the input gives (split as getdelim() splits a stream, at
 * newlines or with -0 at NULs; operands at NULs):
 *  - each name gives one output record, in order, ended by a newline (a
 *    NUL with -0): its fold_normalize() form when well formed, else the
 *    name unchanged; with --hash fold_hash() in 16 hex digits under the
 *    seed; with --check nothing but "[FILE: ]line|record N: byte offset
 *    M: ill-formed UTF-8" for an ill-formed one (M from fold_validate());
 *    with --escape the record, unescaped (\xNN, \\), is those bytes again,
 *    and it holds nothing but well-formed, printable text: no C0 or C1
 *    control, DEL, bidirectional control or line separator;
 *  - each ill-formed name is reported once on standard error (but with
 *    --check), with its line and byte offset; under --strict the first
 *    one ends the run, with status 2, and nothing after it is printed;
 *  - --cmp exits 0 or 1 as fold_equal() answers, and with -v prints both
 *    keys (escaped: fold_key() once unescaped);
 *  - the status is 0, 1 when a name was ill formed, 2 for --strict's
 *    refusal, and 2 with nothing printed for a usage error: an encoding or
 *    a form and flags libfold refuses, --profile with --form or
 *    --encoding, two operations at once, --seed without --hash, --cmp
 *    without two names, FILEs and NAMEs together;
 *  - without --encoding the encoding is utf8-12.1, foldfs's default.
 *
 * Input: byte 0 bits 0-2 the form (nfd, nfc, nfkd, nfkc, casefold,
 * nfkc_cf by name; 6 none given; 7 --profile ext4), bits 3-4 the
 * operation (print, --hash, --check, --cmp), bit 5 --escape, bit 6 -0,
 * bit 7 --strict; byte 1 bits 0-4 the encoding (none given, "utf8",
 * "ascii", then the versions by index, past them one libfold does not
 * know), bit 5 --compat, bit 6 --ignorables, bit 7 -v; byte 2 bits 0-1
 * where the names come from (standard input, a FILE, "-", operands after
 * "--"), bit 2 --seed from the next 16 bytes, bit 3 a second operation,
 * bit 4 a FILE operand with --cmp's names or the NAMEs.  The rest are the
 * names.
 *
 * Byte 2 bit 5 instead makes the rest, split at NULs, the whole command
 * line (raw_options below): whatever foldfs-norm then says on standard
 * error must be printable text, and getopt's complaints
 * (common/opterr.c) must quote an argument that was given.
 */
#define main foldfs_norm_main
#include "foldfs-norm.c"
#include "fuzz-text.h"
#undef main

#include <fcntl.h>
#include <unistd.h>

static const uint8_t *g_in;
static size_t g_inlen;
static char scratch[256], file_path[300];

static __attribute__((noreturn)) void die(const char *what)
{
	fprintf(stderr, "fuzz-norm: %s; input (%zu bytes):", what, g_inlen);
	for (size_t i = 0; i < g_inlen; i++)
		fprintf(stderr, " %02x", g_in[i]);
	fputc('\n', stderr);
	abort();
}

static void cleanup(void)
{
	unlink(file_path);
	rmdir(scratch);
}

/* What foldfs-norm printed and said. */
static char *out, *err;
static size_t outlen, errlen;

/* Run foldfs-norm with argv, standard input in[0..n). */
static int run_norm(int argc, char **argv, const char *in, size_t n)
{
	FILE *so = stdout, *se = stderr, *si = stdin;
	FILE *o = open_memstream(&out, &outlen), *e = open_memstream(&err,
								     &errlen);
	FILE *i = n ? fmemopen((void *)in, n, "r") : fopen("/dev/null", "r");
	int st;

	if (!o || !e || !i)
		die("cannot set up the standard streams");
	memset(&g, 0, sizeof g);
	optind = 0; /* getopt starts afresh */
	stdout = o;
	stderr = e;
	stdin = i;
	st = foldfs_norm_main(argc, argv);
	stdout = so;
	stderr = se;
	stdin = si;
	fclose(o);
	fclose(e);
	fclose(i);
	return st;
}

/* Undo --escape: \xNN and \\ back to bytes.  -1 if s is no such text. */
static ssize_t unescape(const char *s, size_t n, char *to)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			to[o++] = s[i];
			continue;
		}
		if (i + 1 < n && s[i + 1] == '\\') {
			to[o++] = '\\';
			i++;
			continue;
		}
		unsigned v;

		if (i + 3 >= n + 0 || s[i + 1] != 'x' ||
		    sscanf(s + i + 2, "%2x", &v) != 1 ||
		    !strchr("0123456789abcdef", s[i + 2]) ||
		    !strchr("0123456789abcdef", s[i + 3]))
			return -1;
		to[o++] = (char)v;
		i += 3;
	}
	return (ssize_t)o;
}

/* A scratch buffer of at least n bytes. */
static char *room(char **buf, size_t *cap, size_t n)
{
	if (n > *cap) {
		free(*buf);
		*cap = n;
		if (!(*buf = malloc(n)))
			die("out of memory");
	}
	return *buf;
}

/* One output record against the bytes it must show. */
static void check_record(const char *rec, size_t n, const char *want,
			 size_t wn, int escaped, const char *what)
{
	static char *raw;
	static size_t cap;

	if (escaped) {
		ssize_t r = unescape(rec, n, room(&raw, &cap, n + 1));

		if (r < 0)
			die("--escape printed a backslash that is no escape");
		if (!fz_printable(rec, n))
			die("--escape printed a byte that is not printable "
			    "text");
		rec = raw;
		n = (size_t)r;
	}
	if (n != wn || memcmp(rec, want, n))
		die(what);
}

/* The normal form of s under ctx (static buffer). */
static const char *normal(const struct fold_ctx *ctx, const char *s,
			  size_t n, size_t *len, int key)
{
	static char *buf;
	static size_t cap;
	ssize_t r = key ? fold_key(ctx, s, n, NULL, 0)
			: fold_normalize(ctx, s, n, NULL, 0);

	if (r < 0)
		die("libfold cannot normalize a name");
	room(&buf, &cap, (size_t)r + 1);
	if ((key ? fold_key(ctx, s, n, buf, cap)
		 : fold_normalize(ctx, s, n, buf, cap)) != r)
		die("libfold normalizes a name two ways");
	*len = (size_t)r;
	return buf;
}

#define MAXN 64

/* Is c a byte of a short-option cluster among argv[1..argc)? */
static int in_cluster(char **argv, int argc, unsigned char c, int last)
{
	for (int k = 1; k < argc; k++) {
		const char *w = argv[k];
		size_t l = strlen(w);

		if (w[0] != '-' || l < 2 || w[1] == '-')
			continue;
		if (last ? (unsigned char)w[l - 1] == c
			 : memchr(w + 1, c, l - 1) != NULL)
			return 1;
	}
	return 0;
}

/* Is s[0..n) a long option of argv[1..argc), whole or up to its '=', or the
 * full name of one a word abbreviates? */
static int is_long_arg(char **argv, int argc, const char *s, size_t n)
{
	for (int k = 1; k < argc; k++) {
		const char *w = argv[k], *eq = strchr(w, '=');

		if (strncmp(w, "--", 2))
			continue;
		size_t wn = eq ? (size_t)(eq - w) : strlen(w);

		/* as given, or (an option that takes no "=VALUE") the full
		 * name of the one the word abbreviates */
		if ((strlen(w) == n && !memcmp(w, s, n)) ||
		    (wn <= n && !memcmp(w, s, wn)))
			return 1;
	}
	return 0;
}

/* The command line as the input gives it (words without '/', read as
 * FILEs in the scratch directory), standard input empty. */
static void raw_options(const uint8_t *p, size_t n)
{
	static char copy[4096 + 1], raw[4096];
	char *argv[MAXN + 2], *words[MAXN + 2];
	int argc = 0, st, here;

	memcpy(copy, p, n);
	copy[n] = '\0';
	argv[argc++] = "foldfs-norm";
	for (size_t at = 0; at < n; at += strlen(copy + at) + 1) {
		if (argc == MAXN + 1 || strchr(copy + at, '/'))
			return;
		argv[argc++] = copy + at;
	}
	argv[argc] = NULL;
	/* (foldfs-norm keeps its FILEs in argv's first slots) */
	memcpy(words, argv, sizeof argv);
	if ((here = open(".", O_RDONLY | O_DIRECTORY)) < 0 ||
	    chdir(scratch) < 0)
		die("cannot enter the scratch directory");
	st = run_norm(argc, argv, "", 0);
	if (fchdir(here) < 0)
		die("cannot leave the scratch directory");
	close(here);
	if (st < 0 || st > ST_ERROR)
		die("another exit status than 0, 1 or 2");
	for (size_t at = 0; at < errlen;) {
		const char *nl = memchr(err + at, '\n', errlen - at);

		if (!nl)
			die("standard error does not end in a newline");
		if (!fz_printable(err + at, (size_t)(nl - err) - at))
			die("a message is not printable text");
		at = (size_t)(nl - err) + 1;
	}
	/* getopt's complaint, first: "option 'ARG' ..." or "... -- 'C'" */
	static const char lo[] = "foldfs-norm: option '",
			  so[] = "foldfs-norm: invalid option -- '",
			  sm[] = "foldfs-norm: option requires an argument "
				 "-- '";
	const char *nl = errlen ? memchr(err, '\n', errlen) : NULL, *a;

	/* (a usage message, not one that names a FILE) */
	if (nl && strncmp(nl + 1, "Try 'foldfs-norm --help'", 24))
		nl = NULL;
	if (nl && !strncmp(err, lo, strlen(lo))) {
		const char *q = nl;

		a = err + strlen(lo);
		while (q > a && !(q[0] == '\'' && q[1] == ' '))
			q--;
		ssize_t l = unescape(a, (size_t)(q - a), raw);

		if (q == a || l < 0 || !is_long_arg(words, argc, raw, (size_t)l))
			die("an option error quotes no long option given");
	} else if (nl && (!strncmp(err, so, strlen(so)) ||
			  !strncmp(err, sm, strlen(sm)))) {
		a = err + strlen(err[13] == 'i' ? so : sm);
		ssize_t l = nl - a < 2 || nl[-1] != '\''
				    ? -1
				    : unescape(a, (size_t)(nl - 1 - a), raw);

		if (l != 1 || !in_cluster(words, argc, (unsigned char)raw[0],
					  err[13] != 'i'))
			die("an option error quotes no option letter given");
	}
	free(out);
	free(err);
	out = err = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const forms[6] = { "nfd",	  "nfc",
					      "nfkd",	  "nfkc",
					      "casefold", "nfkc_cf" };
	static const char *const ops[4] = { NULL, "--hash", "--check",
					    "--cmp" };
	const char *const *v;
	size_t nv = fold_unicode_versions(&v);
	char *argv[MAXN + 24], enc[40], seedarg[40];
	int argc = 0, st;
	struct fold_ctx ctx;
	struct fold_seed seed = { DEFAULT_K0, DEFAULT_K1 };
	const char *names[MAXN];
	size_t lens[MAXN], nn = 0;
	static char copy[4096 + MAXN];

	g_in = data;
	g_inlen = size;
	if (!scratch[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(scratch, sizeof scratch, "%s/fuzz-norm.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(scratch))
			die("mkdtemp");
		snprintf(file_path, sizeof file_path, "%s/names", scratch);
		atexit(cleanup);
	}
	if (size < 3 || size > 4096)
		return 0;
	unsigned o0 = data[0], o1 = data[1], o2 = data[2];
	unsigned form = o0 & 7, op = o0 >> 3 & 3, from = o2 & 3;
	int escape = o0 >> 5 & 1, zero = o0 >> 6 & 1, strict = o0 >> 7;
	int verbose = o1 >> 7 & 1, usage = 0;
	unsigned esel = o1 & 31, flags = (o1 & 32 ? FOLD_COMPAT : 0) |
					 (o1 & 64 ? FOLD_IGNORABLES : 0);
	const uint8_t *p = data + 3, *end = data + size;

	if (o2 & 32) {
		raw_options(p, (size_t)(end - p));
		return 0;
	}
	argv[argc++] = "foldfs-norm";
	if (form < 6) {
		argv[argc++] = "--form";
		argv[argc++] = (char *)forms[form];
	} else if (form == 7) {
		argv[argc++] = "--profile";
		argv[argc++] = "ext4";
	}
	if (ops[op])
		argv[argc++] = (char *)ops[op];
	if ((o2 & 8) && op) {
		/* a second operation: refused */
		argv[argc++] = op == 1 ? "--check" : "--hash";
		usage = 1;
	}
	if (escape)
		argv[argc++] = "--escape";
	if (zero)
		argv[argc++] = "-0";
	if (strict)
		argv[argc++] = "--strict";
	if (verbose)
		argv[argc++] = "-v";
	if (flags & FOLD_COMPAT)
		argv[argc++] = "--compat";
	if (flags & FOLD_IGNORABLES)
		argv[argc++] = "--ignorables";
	if (esel) {
		if (esel == 1)
			snprintf(enc, sizeof enc, "utf8");
		else if (esel == 2)
			snprintf(enc, sizeof enc, "ascii");
		else if (esel - 3 < nv)
			snprintf(enc, sizeof enc, "utf8-%s", v[esel - 3]);
		else
			snprintf(enc, sizeof enc, "utf8-%u.0", 90 + esel);
		argv[argc++] = "--encoding";
		argv[argc++] = enc;
	}
	if ((o2 & 4) && end - p >= 16) {
		memcpy(&seed.k0, p, 8);
		memcpy(&seed.k1, p + 8, 8);
		p += 16;
		snprintf(seedarg, sizeof seedarg, "%" PRIx64 ":%" PRIX64,
			 seed.k0, seed.k1);
		argv[argc++] = "--seed";
		argv[argc++] = seedarg;
		usage |= op != 1; /* the key of --hash only */
	}

	/* the context it must use, or a usage error */
	if (form == 7) {
		if (esel)
			usage = 1;
		else if (fold_init_profile(&ctx, "ext4") < 0 ||
			 fold_encoding_name(&ctx, enc, sizeof enc) < 0)
			die("the ext4 profile");
		else if (fold_init(&ctx, enc, (enum fold_form)ctx.form,
				   ctx.flags | flags |
					   (strict ? FOLD_STRICT : 0)) < 0)
			usage = 1;
	} else if (fold_init(&ctx, esel ? enc : "utf8-12.1", /* foldfs's */
			     form < 6 ? (enum fold_form)form : FOLD_CASEFOLD,
			     flags | (strict ? FOLD_STRICT : 0)) < 0) {
		usage = 1;
	}

	/* the names, as foldfs-norm splits them */
	size_t n = (size_t)(end - p);
	int delim = from == 3 ? 0 : zero ? 0 : '\n';

	memcpy(copy, p, n);
	for (size_t at = 0; at < n && nn < MAXN;) {
		const char *s = copy + at;
		const char *e = memchr(s, delim, n - at);
		size_t len = e ? (size_t)(e - s) : n - at;

		names[nn] = s;
		lens[nn++] = len;
		at += len + 1;
	}
	if (nn == MAXN)
		return 0;
	if (from == 3 || op == 3) {
		/* operands: NUL-terminated in copy */
		for (size_t k = 0; k < nn; k++)
			copy[names[k] - copy + lens[k]] = '\0';
		if (o2 & 16) {
			/* a FILE (to --cmp, a name), then the NAMEs */
			if (op != 3 && !nn)
				return 0; /* then it reads that FILE */
			argv[argc++] = file_path;
			usage |= op != 3;
		}
		if (from == 3)
			argv[argc++] = "--";
		for (size_t k = 0; k < nn; k++) {
			/* before "--", "-x" is an option */
			if (from != 3 && names[k][0] == '-' && names[k][1])
				return 0;
			argv[argc++] = (char *)names[k];
		}
		if (op == 3 && nn + ((o2 & 16) != 0) != 2)
			usage = 1;
	} else if (from == 1 || from == 2) {
		int fd = open(file_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || write(fd, p, n) != (ssize_t)n)
			die("cannot write the names' file");
		close(fd);
		argv[argc++] = from == 1 ? file_path : "-";
	}
	argv[argc] = NULL;

	st = run_norm(argc, argv, from == 0 || from == 2 ? (const char *)p : "",
		      from == 0 || from == 2 ? n : 0);

	if (usage || (op == 3 && (o2 & 16))) {
		/* ((o2 & 16) with --cmp: the FILE is a name, not tested) */
		if (usage && (st != ST_ERROR || outlen))
			die("a usage error did not exit 2 with nothing printed");
		goto out;
	}

	if (op == 3) {
		const char *a = names[0], *b = names[1];
		size_t an = strlen(a), bn = strlen(b), off;
		int bad = fold_validate(&ctx, a, an, &off) < 0 ||
			  fold_validate(&ctx, b, bn, &off) < 0;
		int want = bad && strict ? ST_ERROR
			   : fold_equal(&ctx, a, an, b, bn) ? 0 : 1;

		if (st != want)
			die("--cmp exited otherwise than fold_equal() says");
		if (want == ST_ERROR || !verbose) {
			if (outlen)
				die("--cmp printed something");
			goto out;
		}
		/* "equivalent" or "not equivalent", then the keys */
		char *line = out, *nl = memchr(out, '\n', outlen);
		if (!nl || strncmp(line, want ? "not equivalent\n"
					      : "equivalent\n",
				   (size_t)(nl - line) + 1))
			die("--cmp -v printed another verdict");
		for (int k = 0; k < 2; k++) {
			size_t kl;
			const char *key = normal(&ctx, k ? b : a, k ? bn : an,
						 &kl, 1);
			char head[16];

			line = nl + 1;
			snprintf(head, sizeof head, "key %d: ", k + 1);
			nl = memchr(line, '\n', outlen - (size_t)(line - out));
			if (!nl || strncmp(line, head, strlen(head)))
				die("--cmp -v printed no key");
			line += strlen(head);
			check_record(line, (size_t)(nl - line), key, kl, 1,
				     "--cmp -v printed another key");
		}
		if ((size_t)(nl + 1 - out) != outlen)
			die("--cmp -v printed more than the keys");
		goto out;
	}

	/* one record (or --check line) per name, up to --strict's stop */
	size_t at = 0, warned = 0;
	int want = 0, odelim = zero ? 0 : '\n';
	const char *unit = from == 3 ? "argument" : zero ? "record" : "line";
	char line[512];

	for (size_t k = 0; k < nn; k++) {
		size_t off, wl;
		int bad = fold_validate(&ctx, names[k], lens[k], &off) < 0;
		const char *w;

		if (bad && want < 1)
			want = 1;
		if (op == 2) {
			if (!bad)
				continue;
			int l = snprintf(line, sizeof line,
					 "%s%s%s %zu: byte offset %zu: "
					 "ill-formed UTF-8\n",
					 from == 1 ? file_path : "",
					 from == 1 ? ": " : "", unit, k + 1, off);
			if (outlen - at < (size_t)l ||
			    memcmp(out + at, line, (size_t)l))
				die("--check printed another line");
			at += (size_t)l;
			if (strict) {
				want = ST_ERROR;
				break;
			}
			continue;
		}
		if (bad) {
			/* said on standard error, as the rule says */
			int l = snprintf(line, sizeof line,
					 "foldfs-norm: %s%s%s %zu: byte offset "
					 "%zu: ill-formed UTF-8%s\n",
					 from == 1 ? file_path : "",
					 from == 1 ? ": " : "", unit, k + 1, off,
					 strict ? " (refused: --strict)"
					 : op == 1 ? "; hashed as opaque bytes"
						: "; printed unchanged");
			if (errlen - warned < (size_t)l ||
			    memcmp(err + warned, line, (size_t)l))
				die("an ill-formed name was not reported "
				    "with its place");
			warned += (size_t)l;
			if (strict) {
				want = ST_ERROR;
				break;
			}
		}
		char hex[17];

		if (op == 1) {
			snprintf(hex, sizeof hex, "%016" PRIx64,
				 fold_hash(&ctx, &seed, names[k], lens[k]));
			w = hex;
			wl = 16;
		} else if (bad) {
			w = names[k];
			wl = lens[k];
		} else {
			w = normal(&ctx, names[k], lens[k], &wl, 0);
		}
		const char *what = op == 1 ? "--hash printed another hash"
				   : bad   ? "an ill-formed name was not "
					     "printed unchanged"
					   : "a name was printed in another form";
		const char *rec = out + at, *e;

		if (escape && op != 1) {
			/* escaped, a record holds no delimiter */
			if (!(e = memchr(rec, odelim, outlen - at)))
				die("fewer records than names");
			check_record(rec, (size_t)(e - rec), w, wl, 1, what);
			at = (size_t)(e - out) + 1;
			continue;
		}
		/* (an ill-formed name or operand may hold the delimiter) */
		if (outlen - at < wl + 1 || rec[wl] != (char)odelim)
			die(what);
		check_record(rec, wl, w, wl, 0, what);
		at += wl + 1;
	}
	if (at != outlen)
		die("more output than names");
	if (warned != errlen)
		die("a message on standard error for no ill-formed name");
	if (st != want)
		die("another exit status than the names call for");
out:
	free(out);
	free(err);
	out = err = NULL;
	return 0;
}
