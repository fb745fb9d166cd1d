/*
 * fuzz-fix.c - foldfs-check --fix --yes and --undo on a real directory
 * (tools/foldfs-check-fix.c, tools/foldfs-check-undo.c, through
 * scan_dir()), with names the fuzzer picks.
 *
 * The names are created in a scratch directory ($TMPDIR, else /tmp):
 * files, or directories where a name's first byte is odd.  The directory
 * is read and analysed as foldfs-check's walk does, and every collision
 * fixed by renaming, with the rename log written where --log would put
 * it.  Then:
 *  - every entry is still there (inode numbers), no two names are
 *    equivalent (equal fold_key under the base context), each class's
 *    bytewise smallest name kept its name and only the others were
 *    renamed, each to its old name cut and " (N)" appended; no rename
 *    failed and the summary counts agree;
 *  - the reports hold no raw control character (C0, DEL or C1, in JSON
 *    too), and every JSON line is an object;
 *  - --undo with that log restores exactly the names and entries there
 *    were (exit 0; the entries made between two runs keep theirs), and a
 *    second --undo changes nothing (exit 0).
 *
 * Input: byte 0 the encoding and flags (as fuzz-scan.c), byte 1 options:
 * bit 0 JSON reports, bit 1 a log that exists already, holding a first
 * rename line (of a file next to the directory, whose rename never
 * happened: --undo must skip it) and an unfinished one (--fix must cut
 * it off before appending), bits
 * 2-3 the log's file name (plain, or with a space, a backslash or a
 * newline: its header line must stay one line), bit 4 names stretched
 * to 240-252 bytes (bits 5-6: the length), so that " (N)" must cut them,
 * bit 7 two more runs of --fix appending to the log, each after a name
 * that wins against each new spelling of the run before was created
 * (upper case): --undo must undo the later renames first, and a second
 * --undo must see that entries renamed two or three times are back;
 * the rest, split at '/', are the names (empty ones, "." and ".." and
 * repeats dropped).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "foldfs-check.h"
#include "fuzz-enc.h"

#define MAX_NAMES 40

static const uint8_t *g_in;
static size_t g_inlen;
static char base[256], tree[300];

static void fail(const char *what)
{
	fprintf(stderr, "fuzz-fix: %s; input (%zu bytes):\n", what, g_inlen);
	fwrite(g_in, 1, g_inlen, stderr);
	fputc('\n', stderr);
	abort();
}

/* ---- the scratch tree ---- */

struct entry {
	char name[NAME_MAX + 1];
	ino_t ino;
	int is_dir;
};

/* the names made, those made between runs, one spare for the check */
#define MAX_LIST (3 * MAX_NAMES + 1)
static struct entry orig[MAX_NAMES], now[MAX_LIST], extra[MAX_LIST];
static struct entry first[MAX_LIST]; /* each entry's first name */

/* The tree's entries into e (at most cap); their number. */
static size_t list_tree(struct entry *e, size_t cap)
{
	DIR *d = opendir(tree);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		fail("cannot read the tree");
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap)
			fail("more entries than were made");
		strcpy(e[n].name, de->d_name);
		e[n].ino = de->d_ino;
		e[n].is_dir = de->d_type == DT_DIR;
		n++;
	}
	closedir(d);
	return n;
}

static void empty_tree(void)
{
	size_t n = list_tree(now, MAX_LIST);
	int fd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (size_t i = 0; i < n; i++)
		if (unlinkat(fd, now[i].name, now[i].is_dir ? AT_REMOVEDIR : 0))
			fail("cannot empty the tree");
	close(fd);
}

static const char *const log_names[4] = {
	"log", "rename log", "log\\x41", "log\nnew line",
};

static void cleanup(void)
{
	char p[512];

	empty_tree();
	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s/%s", base, log_names[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/gone", base);
	unlink(p);
	rmdir(tree);
	rmdir(base);
}

static void setup(void)
{
	char p[512];

	const char *tmp = getenv("TMPDIR");

	snprintf(base, sizeof base, "%s/fuzz-fix.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		fail("mkdtemp");
	snprintf(tree, sizeof tree, "%s/tree", base);
	if (mkdir(tree, 0755) < 0)
		fail("mkdir");
	snprintf(p, sizeof p, "%s/gone", base); /* an old log's rename */
	if (mknod(p, S_IFREG | 0644, 0) < 0)
		fail("mknod");
	atexit(cleanup);
}

/* ---- the run ---- */

static char *key(const struct fold_ctx *ctx, const char *s, size_t *len)
{
	ssize_t r = fold_key(ctx, s, strlen(s), NULL, 0);
	char *k = r < 0 ? NULL : malloc((size_t)r + 1);

	if (!k || fold_key(ctx, s, strlen(s), k, (size_t)r) != r)
		fail("fold_key failed");
	*len = (size_t)r;
	return k;
}

static int equivalent(const struct fold_ctx *ctx, const char *a,
		      const char *b)
{
	size_t al, bl;
	char *ka = key(ctx, a, &al), *kb = key(ctx, b, &bl);
	int r = al == bl && !memcmp(ka, kb, al);

	free(ka);
	free(kb);
	return r;
}

/* Is new old's name with " (N)" put in (before the extension, the stem
 * cut as needed)? */
static int renamed_from(const char *old, const char *new)
{
	size_t ol = strlen(old), nl = strlen(new);

	for (size_t at = 0; at + 4 <= nl; at++) {
		size_t k = at + 2;

		if (memcmp(new + at, " (", 2) || at > ol || memcmp(new, old, at))
			continue;
		while (k < nl && new[k] >= '0' && new[k] <= '9')
			k++;
		if (k == at + 2 || k >= nl || new[k] != ')')
			continue;
		k++;
		if (nl - k <= ol && !memcmp(new + k, old + ol - (nl - k), nl - k))
			return 1;
	}
	return 0;
}

/* Run f with stdout going to a buffer and stderr to /dev/null; check the
 * report. */
static void run_captured(struct check *c, int (*f)(struct check *, void *),
			 void *arg, int *status)
{
	static FILE *null;
	char *out = NULL;
	size_t len = 0;
	FILE *saved = stdout, *saved_err = stderr;
	FILE *m = open_memstream(&out, &len);

	if (!null)
		null = fopen("/dev/null", "w");
	if (!m || !null)
		abort();
	/* (the tools' notes on stderr would bury libFuzzer's log) */
	stdout = m;
	stderr = null;
	*status = f(c, arg);
	stdout = saved;
	stderr = saved_err;
	if (fclose(m))
		abort();
	if (len && out[len - 1] != '\n')
		fail("a report does not end with a newline");
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t l = u8_decode((const unsigned char *)out + i, len - i,
				     &cp);

		if (!l || (cp < 0x20 && cp != '\n') || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f)) {
			fprintf(stderr, "fuzz-fix: report byte %zu of:\n", i);
			fwrite(out, 1, len, stderr);
			fail("a report holds a byte that reaches the terminal "
			     "raw");
		}
		if (c->json && (i == 0 || out[i - 1] == '\n') && out[i] != '{')
			fail("a JSON report line is not an object");
		i += l;
	}
	free(out);
}

static int fix_dir(struct check *c, void *arg)
{
	int fd = *(int *)arg;

	scan_dir(c, fd, c->root, c->root_len, 1);
	fix_close_log(c);
	return 0;
}

static int undo(struct check *c, void *arg)
{
	return undo_log(c, (const char *)arg);
}

/* One --fix of the tree, whose entries are before[0..n); checked.
 * Returns the number of losers (all renamed). */
static uint64_t fix_once(struct check *c, int fd, const struct entry *before,
			 size_t n)
{
	uint64_t losers = 0;
	size_t i, j, m;
	int status;

	dirbuf_reset(&c->db);
	for (i = 0; i < n; i++)
		if (dirbuf_add(&c->db, before[i].name, strlen(before[i].name),
			       before[i].is_dir) < 0)
			fail("dirbuf_add: out of memory");
	run_captured(c, fix_dir, &fd, &status);

	m = list_tree(now, MAX_LIST);
	if (m != n)
		fail("--fix changed the number of entries");
	if (c->st.rename_failed || c->st.errors)
		fail("a rename failed");
	for (i = 0; i < n; i++) {
		const struct entry *o = &before[i], *w = NULL;
		int loser = 0;

		for (j = 0; j < n; j++)
			if (now[j].ino == o->ino)
				w = &now[j];
		if (!w)
			fail("an entry is gone after --fix");
		for (j = 0; j < n && !loser; j++)
			loser = j != i && strcmp(before[j].name, o->name) < 0 &&
				equivalent(&c->kctx, before[j].name, o->name);
		losers += (uint64_t)loser;
		if (!loser && strcmp(w->name, o->name))
			fail("a name that lost no collision was renamed");
		if (loser && !renamed_from(o->name, w->name))
			fail("a loser was not renamed to its name plus \" (N)\"");
	}
	if (c->st.renamed != losers)
		fail("the count of renames is not the count of losers");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (equivalent(&c->kctx, now[i].name, now[j].name))
				fail("two names are still equivalent after --fix");
	return losers;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct check c;
	char enc[32], logpath[512];
	unsigned flags, opt;
	const char *p, *e = (const char *)data + size;
	size_t n = 0, m, i, j;
	int fd, status;

	g_in = data;
	g_inlen = size;
	if (!base[0])
		setup();
	if (size < 2 || fuzz_enc(data[0], enc, sizeof enc, &flags) < 0)
		return 0;
	opt = data[1];
	empty_tree();
	snprintf(logpath, sizeof logpath, "%s/%s", base,
		 log_names[opt >> 2 & 3]);
	unlink(logpath);
	fd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fail("cannot open the tree");

	/* the names */
	for (p = (const char *)data + 2; p <= e && n < MAX_NAMES;) {
		const char *s = memchr(p, '/', (size_t)(e - p));
		size_t len, want = 240 + (opt >> 5 & 3) * 4;
		char name[NAME_MAX + 1];

		if (!s)
			s = e;
		len = (size_t)(s - p);
		if (len > NAME_MAX)
			len = NAME_MAX;
		memcpy(name, p, len);
		p = s + 1;
		if ((opt & 16) && len) {
			for (i = len; i < want; i++)
				name[i] = name[i % len];
			len = want;
		}
		name[len] = '\0';
		if (!len || strlen(name) != len || !strcmp(name, ".") ||
		    !strcmp(name, ".."))
			continue;
		int made = name[0] & 1 ? mkdirat(fd, name, 0755)
				       : mknodat(fd, name, S_IFREG | 0644, 0);
		if (made == 0)
			n++;
	}
	n = list_tree(orig, MAX_NAMES);

	/* as foldfs-check --fix --yes [--json] --log LOG DIR sets up */
	free(c.root_abs);
	free(c.log_name);
	memset(&c.st, 0, sizeof c.st);
	c.json = opt & 1;
	c.fix = c.yes = 1;
	c.whatif = 0;
	c.dir_reported = 0;
	c.log_path = logpath;
	c.log_name = NULL;
	c.log_fd = -1;
	c.log_err = 0;
	c.root = tree;
	c.root_len = strlen(tree);
	c.root_abs = realpath(tree, NULL);
	if (!c.root_abs)
		fail("realpath");
	fold_init(&c.ctx, enc, FOLD_CASEFOLD, flags);
	fold_encoding_name(&c.ctx, c.enc_name, sizeof c.enc_name);
	fold_init(&c.kctx, c.enc_name, FOLD_CASEFOLD, flags & ~FOLD_STRICT);
	c.seed.k0 = 0x0706050403020100ull;
	c.seed.k1 = 0x0f0e0d0c0b0a0908ull;
	if (opt & 2) {
		/* a log from an earlier run: one rename of names that are
		 * not here (with the inode number of the file it would have
		 * renamed, as --fix logs it), then a line cut short */
		FILE *f = fopen(logpath, "w");
		char gone[512];
		struct stat gst;

		snprintf(gone, sizeof gone, "%s/gone", base);
		if (!f || stat(gone, &gst) < 0)
			fail("cannot write the old log");
		fprintf(f, "%s%d\nrename ", LOG_MAGIC, LOG_FORMAT);
		rep_hex(f, c.root_abs, strlen(c.root_abs) - strlen("/tree"));
		fprintf(f, " 676f6e65 676f6e652032 %llu\nrename 2f",
			(unsigned long long)gst.st_ino);
		fclose(f);
	}

	uint64_t losers = fix_once(&c, fd, orig, n);

	/* two more runs appending to the log, each after new names appeared
	 * that collide with the last run's spellings and win (upper case):
	 * entries renamed two and three times */
	size_t total = n, nfirst = n;
	uint64_t last = losers;
	memcpy(extra, orig, n * sizeof *orig);
	memcpy(first, orig, n * sizeof *orig);
	for (int run = 1; run < 3 && (opt & 128) && last; run++) {
		static struct entry prev[MAX_LIST];
		size_t np = total;

		memcpy(prev, extra, np * sizeof *prev);
		m = list_tree(now, MAX_LIST);
		for (i = 0; i < m; i++) {
			char up[NAME_MAX + 1];
			size_t k;

			for (j = 0; j < np && now[i].ino != prev[j].ino; j++)
				;
			if (j == np || !strcmp(now[i].name, prev[j].name))
				continue; /* not renamed by the last run */
			for (k = 0; now[i].name[k]; k++)
				up[k] = (char)(now[i].name[k] >= 'a' &&
						       now[i].name[k] <= 'z'
					       ? now[i].name[k] - 32
					       : now[i].name[k]);
			up[k] = 0;
			if (strcmp(up, now[i].name))
				mknodat(fd, up, S_IFREG | 0644, 0);
		}
		total = list_tree(extra, MAX_LIST);
		for (i = 0; i < total; i++) {
			for (j = 0; j < nfirst && first[j].ino != extra[i].ino;
			     j++)
				;
			if (j == nfirst)
				first[nfirst++] = extra[i];
		}
		memset(&c.st, 0, sizeof c.st); /* log_name kept: appended to */
		c.dir_reported = 0;
		last = fix_once(&c, fd, extra, total);
		losers += last;
	}

	/* --undo, twice (no log is made until the first rename): every
	 * entry, the ones made between the runs too, has its first name */
	for (int round = 0; round < 2 && (losers || (opt & 2)); round++) {
		static struct check u;

		memset(&u.st, 0, sizeof u.st);
		u.json = opt & 1;
		run_captured(&u, undo, logpath, &status);
		if (status != EXIT_CLEAN)
			fail(round ? "a second --undo did not exit 0"
				   : "--undo did not exit 0");
		m = list_tree(now, MAX_LIST);
		if (m != nfirst)
			fail("--undo changed the number of entries");
		for (i = 0; i < nfirst; i++) {
			for (j = 0; j < m; j++)
				if (now[j].ino == first[i].ino)
					break;
			if (j == m || strcmp(now[j].name, first[i].name))
				fail("--undo did not restore a name");
		}
	}
	close(fd);
	return 0;
}
