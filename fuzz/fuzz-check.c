/*
 * fuzz-check.c - foldfs-check as a whole (tools/foldfs-check.c, built
 * into this program with its main renamed, and the tree walk,
 * tools/foldfs-check-walk.c), on a real tree the input makes in a scratch
 * directory ($TMPDIR, else /tmp), against a model read from that tree
 * with libfold.
 *
 * The tree: the input's paths (each component a directory, the last one a
 * file unless the path ends in '/'), perhaps a chain of 20 nested
 * directories, the casefold attribute on all, none or some directories,
 * and an encoding record in the tree's root, in its parent or nowhere.
 * The command line: --json, and as the input says --casefold, --encoding,
 * --flags or --profile ext4, --max-fds 2 to 8 (every directory then
 * reopened through ".." or from an ancestor), a trailing '/' on PATH, a
 * second PATH that does not exist, -x; and one of these runs:
 *  - a check, and --fix without --yes: one tree object (the encoding the
 *    record or the options give, where the record was found, what
 *    decided), then the findings, then a summary whose counts are the
 *    tree's: every directory walked once, those that fold, every name
 *    but the record; one collision object per group of two or more names
 *    of equal fold_key() in a folding directory, with its directory's
 *    path as the walk builds it and its names in bytewise order (the
 *    winner first); one dry-run rename per loser; exit status 4 for a
 *    collision or an ill-formed name under strict, else 0, and 8 more
 *    for the PATH that does not exist (an error object for it); nothing
 *    in the tree changed;
 *  - --info: the record of PATH itself (exit 1 where it is only in the
 *    parent or nowhere);
 *  - --casefold-dir: refused (exit 4, nothing set) where the tree has a
 *    collision when every directory folds, else every directory has the
 *    attribute afterwards -- but where setting it fails on one directory
 *    (the input picks which), all or nothing: exit 12, and no directory
 *    keeps an attribute it did not have;
 *  - --set-encoding to the encoding in force: refused where the record is
 *    in the parent, else the tree's root then holds a record of it;
 *  - --upgrade-to, and -q without --json: the exit status only;
 *  - a command line foldfs-check(1) rules out (options of two modes,
 *    --yes or --log without --fix, a what-if with --fix, --profile with
 *    --encoding, a bad --max-fds, --flags or --profile, no PATH...): exit
 *    16, nothing on standard output, the tree unchanged.
 *
 * Input: byte 0 the record's encoding (bits 0-4 a version by index, past
 * them ascii, or none) and flags (bits 5-7 strict, compat, ignorables);
 * byte 1 bits 0-1 where the record is (nowhere, the root, the parent),
 * bits 2-3 which directories fold (none, all by the attribute, those
 * whose name starts with an odd byte and the root, all by --casefold),
 * bit 4 a trailing '/', bits 5-7 --max-fds (0: not given); byte 2 bits
 * 0-2 the run (check, --info, --casefold-dir, --fix, --upgrade-to, -q,
 * --set-encoding, a usage error), bits 3-4 --encoding, --flags or
 * --profile ext4, bit 5 a second PATH, bit 6 the chain, bit 7 -x; byte
 * 3 the option's encoding and flags (as byte 0), which usage error, or
 * for --casefold-dir the setting of the attribute that fails (0: none).
 * The rest: NUL-separated paths.
 */
#define main foldfs_check_main
#include "foldfs-check.c"
#undef main

#include <dirent.h>
#include <sys/xattr.h>

/* record.o's fsetxattr is this one (fuzz-fs.mk): the xfail_at-th call
 * fails. */
static int xfail_at, xcalls;

int fuzz_fsetxattr(int fd, const char *name, const void *v, size_t n,
		   int flags)
{
	if (xfail_at && ++xcalls == xfail_at) {
		errno = EIO;
		return -1;
	}
	return fsetxattr(fd, name, v, n, flags);
}

static int have_xattr; /* user xattrs in $TMPDIR */
static const uint8_t *g_in;
static size_t g_inlen;
static char base[256], tree[300], logpath[320];

static __attribute__((noreturn)) void die(const char *what)
{
	fprintf(stderr, "fuzz-check: %s; input (%zu bytes):", what, g_inlen);
	for (size_t i = 0; i < g_inlen; i++)
		fprintf(stderr, " %02x", g_in[i]);
	fputc('\n', stderr);
	abort();
}

/* ---- the tree ---- */

/* Remove everything in directory fd (closed). */
static void empty_dir(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;

	if (!d)
		die("cannot read a directory to empty it");
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_DIR) {
			int sub = openat(fd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (sub < 0)
				die("cannot open a directory to empty it");
			empty_dir(sub);
			if (unlinkat(fd, de->d_name, AT_REMOVEDIR) < 0)
				die("rmdir");
		} else if (unlinkat(fd, de->d_name, 0) < 0) {
			die("unlink");
		}
	}
	closedir(d);
}

static void cleanup(void)
{
	int fd = open(tree, O_RDONLY | O_DIRECTORY);

	if (fd >= 0)
		empty_dir(fd);
	rmdir(tree);
	unlink(logpath);
	snprintf(logpath, sizeof logpath, "%s/.foldfs", base);
	unlink(logpath);
	rmdir(base);
}

/* The tree as read back: every directory (its path relative to the
 * root, "" for the root), its names and whether it carries the
 * attribute. */
#define MAXD 64
#define MAXE 256
struct mdir {
	char rel[4096];
	int attr, depth;
	size_t first, n; /* its names: ents[first..first+n) */
};
struct ment {
	char name[256];
	size_t len;
	int is_dir;
	ino_t ino;
};
static struct mdir dirs[MAXD];
static struct ment ents[MAXE];
static size_t ndirs, nents;

static int read_tree(int fd, const char *rel, int depth)
{
	struct mdir *m;
	DIR *d;
	struct dirent *de;
	char v[8];
	size_t me;

	if (ndirs == MAXD)
		return -1;
	me = ndirs++;
	m = &dirs[me];
	snprintf(m->rel, sizeof m->rel, "%s", rel);
	m->attr = fgetxattr(fd, FOLDFS_XATTR_CASEFOLD, v, sizeof v) == 1 &&
		  v[0] == '1';
	m->depth = depth;
	m->first = nents;
	d = fdopendir(dup(fd));
	if (!d)
		die("cannot read the tree");
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (nents == MAXE) {
			closedir(d);
			return -1;
		}
		strcpy(ents[nents].name, de->d_name);
		ents[nents].len = strlen(de->d_name);
		ents[nents].is_dir = de->d_type == DT_DIR;
		ents[nents].ino = de->d_ino;
		nents++;
	}
	closedir(d);
	m->n = nents - m->first;
	for (size_t i = m->first; i < m->first + m->n; i++) {
		char sub[4096];
		int sfd;

		if (!ents[i].is_dir)
			continue;
		if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "",
			     ents[i].name) >= (int)sizeof sub)
			return -1;
		sfd = openat(fd, ents[i].name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (sfd < 0)
			die("cannot open a directory of the tree");
		int r = read_tree(sfd, sub, depth + 1);
		close(sfd);
		if (r < 0)
			return -1;
		m = &dirs[me];
	}
	return 0;
}

/* A snapshot of the tree for "nothing changed": names, inodes, kinds,
 * attributes, in the order read. */
static char *snapshot(size_t *len)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		die("open_memstream");
	for (size_t i = 0; i < ndirs; i++) {
		fprintf(f, "D %s %d\n", dirs[i].rel, dirs[i].attr);
		for (size_t k = dirs[i].first; k < dirs[i].first + dirs[i].n; k++)
			fprintf(f, " %s %d %lu\n", ents[k].name, ents[k].is_dir,
				(unsigned long)ents[k].ino);
	}
	fclose(f);
	*len = n;
	return s;
}

static void reread(void)
{
	int fd = open(tree, O_RDONLY | O_DIRECTORY);

	ndirs = nents = 0;
	if (fd < 0 || read_tree(fd, "", 0) < 0)
		die("cannot read the tree back");
	close(fd);
}

/* mkdir -p of rel's components below the root, at most max deep (the
 * last one a file unless rel ends in '/'); fold_rule 1 marks each new
 * directory folding, 2 those whose name starts with an odd byte.  (No
 * .foldfs: a record is made on purpose or not at all.) */
static void make_path(const char *rel, size_t len, int fold_rule, int max)
{
	int fd = open(tree, O_RDONLY | O_DIRECTORY), depth = 0;
	size_t at = 0;

	while (fd >= 0 && at < len && depth < max) {
		const char *s = rel + at, *e = memchr(s, '/', len - at);
		size_t cl = e ? (size_t)(e - s) : len - at;
		char comp[256];

		at += cl + 1;
		if (!cl || cl > 255 || (cl == 1 && s[0] == '.') ||
		    (cl == 2 && s[0] == '.' && s[1] == '.'))
			continue;
		memcpy(comp, s, cl);
		comp[cl] = '\0';
		if (!strcmp(comp, FOLDFS_RECORD_NAME))
			break;
		if (!e) {
			int f = openat(fd, comp, O_WRONLY | O_CREAT | O_EXCL,
				       0644);

			if (f >= 0)
				close(f);
			break;
		}
		if (mkdirat(fd, comp, 0755) == 0 &&
		    (fold_rule == 1 || (fold_rule == 2 && (comp[0] & 1)))) {
			int sub = openat(fd, comp, O_RDONLY | O_DIRECTORY);

			if (sub < 0 || fsetxattr(sub, FOLDFS_XATTR_CASEFOLD, "1",
						 1, 0) < 0)
				die("cannot mark a directory folding");
			close(sub);
		}
		int sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		close(fd);
		fd = sub;
		depth++;
	}
	if (fd >= 0)
		close(fd);
}

/* ---- running foldfs-check ---- */

static char *out, *err;
static size_t outlen, errlen;

static int run_check(int argc, char **argv)
{
	FILE *so = stdout, *se = stderr;
	FILE *o = open_memstream(&out, &outlen), *e = open_memstream(&err,
								     &errlen);
	int st;

	if (!o || !e)
		die("open_memstream");
	optind = 0;
	stdout = o;
	stderr = e;
	st = foldfs_check_main(argc, argv);
	stdout = so;
	stderr = se;
	fclose(o);
	fclose(e);
	return st;
}

/* ---- the model ---- */

static void hex(char *to, const char *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		to[2 * i] = hx[(unsigned char)s[i] >> 4];
		to[2 * i + 1] = hx[(unsigned char)s[i] & 15];
	}
	to[2 * n] = '\0';
}

static int bytecmp(const void *a, const void *b)
{
	const struct ment *x = *(const struct ment *const *)a;
	const struct ment *y = *(const struct ment *const *)b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The groups, as "DIRHEX NAMEHEX NAMEHEX ...", from the model and from
 * the output. */
#define MAXG 128
static char *want_g[MAXG], *got_g[MAXG];
static size_t nwant, ngot;

static void free_groups(void)
{
	for (size_t i = 0; i < nwant; i++)
		free(want_g[i]);
	for (size_t i = 0; i < ngot; i++)
		free(got_g[i]);
	nwant = ngot = 0;
}

struct expect {
	uint64_t dirs, folding, names, groups, colliding, ill, ill_err;
};

/* What a check of the tree must find under ctx (folding: all, or by the
 * attribute); path is PATH without trailing slashes. */
static void model(const struct fold_ctx *ctx, int all, const char *path,
		  const char *recdir_rel, struct expect *x)
{
	struct fold_ctx k = *ctx;

	k.flags &= ~FOLD_STRICT;
	memset(x, 0, sizeof *x);
	for (size_t i = 0; i < ndirs; i++) {
		const struct mdir *m = &dirs[i];
		const struct ment *list[MAXE];
		char *key[MAXE];
		size_t kl[MAXE], n = 0;
		int used[MAXE];

		x->dirs++;
		for (size_t e = m->first; e < m->first + m->n; e++) {
			if (recdir_rel && !strcmp(m->rel, recdir_rel) &&
			    !strcmp(ents[e].name, FOLDFS_RECORD_NAME))
				continue;
			list[n++] = &ents[e];
		}
		x->names += n;
		if (!all && !m->attr)
			continue;
		x->folding++;
		qsort(list, n, sizeof *list, bytecmp);
		for (size_t a = 0; a < n; a++) {
			ssize_t r = fold_key(&k, list[a]->name, list[a]->len,
					     NULL, 0);

			if (r < 0 || !(key[a] = malloc((size_t)r + 1)) ||
			    fold_key(&k, list[a]->name, list[a]->len, key[a],
				     (size_t)r) != r)
				die("fold_key");
			kl[a] = (size_t)r;
			used[a] = 0;
			if (fold_validate(ctx, list[a]->name, list[a]->len,
					  NULL) < 0) {
				x->ill++;
				x->ill_err += (ctx->flags & FOLD_STRICT) != 0;
			}
		}
		char dir[4096 + 300];

		snprintf(dir, sizeof dir, "%s%s%s", path, *m->rel ? "/" : "",
			 m->rel);
		for (size_t a = 0; a < n; a++) {
			size_t cnt = 1, cap = 2 * strlen(dir) + 512 * n + 16;
			char *g;

			if (used[a])
				continue;
			for (size_t b = a + 1; b < n; b++)
				cnt += !used[b] && kl[b] == kl[a] &&
				       !memcmp(key[a], key[b], kl[a]);
			if (cnt < 2)
				continue;
			if (nwant == MAXG || !(g = malloc(cap)))
				die("too many groups");
			hex(g, dir, strlen(dir));
			for (size_t b = a; b < n; b++) {
				if (used[b] || kl[b] != kl[a] ||
				    memcmp(key[a], key[b], kl[a]))
					continue;
				used[b] = 1;
				strcat(g, " ");
				hex(g + strlen(g), list[b]->name, list[b]->len);
			}
			want_g[nwant++] = g;
			x->groups++;
			x->colliding += cnt;
		}
		for (size_t a = 0; a < n; a++)
			free(key[a]);
	}
}

/* ---- reading the JSON ---- */

/* The string value of "key":"..." in line (no escapes: hex, names of
 * ours), or NULL. */
static const char *jstr(const char *line, const char *key, char *to,
			size_t cap)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof pat, "\"%s\":\"", key);
	if (!(p = strstr(line, pat)))
		return NULL;
	p += strlen(pat);
	if (!(e = strchr(p, '"')) || (size_t)(e - p) >= cap)
		return NULL;
	memcpy(to, p, (size_t)(e - p));
	to[e - p] = '\0';
	return to;
}

static long long jnum(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	if (!(p = strstr(line, pat)))
		return -1;
	return strtoll(p + strlen(pat), NULL, 10);
}

/* Check a --json run's output for one PATH against x (and the groups). */
static void check_json(const struct expect *x, const char *enc,
		       const char *record, const char *source, long renames)
{
	char *line = out, *nl, v[8192];
	int trees = 0, summaries = 0;
	long dry = 0;

	for (; line < out + outlen; line = nl + 1) {
		if (!(nl = memchr(line, '\n', outlen - (size_t)(line - out))))
			die("a JSON line without its newline");
		*nl = '\0';
		if (line[0] != '{' || nl[-1] != '}')
			die("a JSON line that is not an object");
		if (!jstr(line, "type", v, sizeof v))
			die("a JSON object without a type");
		if (!strcmp(v, "tree")) {
			if (trees++ || summaries)
				die("a second tree object");
			if (!jstr(line, "encoding", v, sizeof v) ||
			    strcmp(v, enc))
				die("the tree object names another encoding");
			if (!jstr(line, "source", v, sizeof v) ||
			    strcmp(v, source))
				die("the tree object names another source of "
				    "the encoding");
			if (record ? !jstr(line, "record", v, sizeof v) ||
					     strcmp(v, record)
				   : !strstr(line, "\"record\":null"))
				die("the tree object names another record");
		} else if (!strcmp(v, "summary")) {
			if (!trees || summaries++)
				die("a summary without its tree, or two");
			if (jnum(line, "directories") != (long long)x->dirs ||
			    jnum(line, "folding_directories") !=
				    (long long)x->folding ||
			    jnum(line, "names") != (long long)x->names)
				die("the summary counts other directories or "
				    "names than the tree has");
			if (jnum(line, "collision_groups") !=
				    (long long)x->groups ||
			    jnum(line, "colliding_names") !=
				    (long long)x->colliding ||
			    jnum(line, "ill_formed") != (long long)x->ill ||
			    jnum(line, "ill_formed_errors") !=
				    (long long)x->ill_err ||
			    jnum(line, "errors") != 0)
				die("the summary counts other findings than "
				    "the tree has");
		} else if (!strcmp(v, "collision")) {
			char *g, *p = strstr(line, "\"names\":[");

			if (!trees || summaries || !p || ngot == MAXG ||
			    !jstr(line, "dir_hex", v, sizeof v) ||
			    !(g = malloc(strlen(line) + 1)))
				die("a collision object out of place");
			strcpy(g, v);
			while ((p = strstr(p, "\"name_hex\":\""))) {
				p += strlen("\"name_hex\":\"");
				strcat(g, " ");
				strncat(g, p, strcspn(p, "\""));
			}
			got_g[ngot++] = g;
		} else if (!strcmp(v, "rename")) {
			if (!jstr(line, "status", v, sizeof v) ||
			    strcmp(v, "dry-run"))
				die("a rename that is not a dry run");
			dry++;
		} else if (strcmp(v, "ill_formed")) {
			die("an unexpected object in a check");
		}
	}
	if (trees != 1 || summaries != 1)
		die("no tree or no summary object");
	if (dry != renames)
		die("another number of dry-run renames than losers");
	qsort(want_g, nwant, sizeof *want_g, strp_cmp);
	qsort(got_g, ngot, sizeof *got_g, strp_cmp);
	if (nwant != ngot)
		die("another number of collision groups than the tree has");
	for (size_t i = 0; i < ngot; i++)
		if (strcmp(want_g[i], got_g[i]))
			die("a collision group with other names, or in another "
			    "order, than the tree's");
}

/* ---- one run ---- */

#define MAXA 64

/* A record of encoding and flags sel (as byte 0) in directory fd; its
 * canonical encoding in enc. */
static void write_record(int fd, unsigned sel, char *enc, size_t cap)
{
	const char *const *v;
	size_t nv = fold_unicode_versions(&v);
	struct foldfs_record rec = { .format = 1 };
	size_t i = (sel & 31u) % (nv + 1);

	snprintf(rec.encoding, sizeof rec.encoding, "%s%s",
		 i == nv ? "ascii" : "utf8-", i == nv ? "" : v[i]);
	rec.flags = (sel & 32 ? FOLD_STRICT : 0) | (sel & 64 ? FOLD_COMPAT : 0) |
		    (sel & 128 ? FOLD_IGNORABLES : 0);
	if (foldfs_record_write(fd, &rec) < 0)
		die("cannot write the record");
	snprintf(enc, cap, "%s", rec.encoding);
}

static int fuzz_sel_ctx(unsigned sel, struct fold_ctx *ctx, char *enc,
			size_t cap, char *flags, size_t fcap)
{
	const char *const *v;
	size_t nv = fold_unicode_versions(&v);
	size_t i = (sel & 31u) % (nv + 1);
	unsigned f = (sel & 32 ? FOLD_STRICT : 0) | (sel & 64 ? FOLD_COMPAT : 0) |
		     (sel & 128 ? FOLD_IGNORABLES : 0);

	snprintf(enc, cap, "%s%s", i == nv ? "ascii" : "utf8-",
		 i == nv ? "" : v[i]);
	foldfs_flags_format(f, flags, fcap);
	return fold_init(ctx, enc, FOLD_CASEFOLD, f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const bad[][4] = {
		{ "--yes" },
		{ "--log", "x" },
		{ "--info", "--casefold-dir", "T" },
		{ "--profile", "ext4", "--encoding", "utf8" },
		{ "--flags", "strict,bogus" },
		{ "--max-fds", "1" },
		{ "--max-fds", "2x" },
		{ "--set-flags", "strict" },
		{ "--fix", "--compat" },
		{ "--profile", "ext3" },
		{ "--casefold-dir", "T", "T" },
		{ "--set-encoding", "utf8", "T", "T" },
		{ "--upgrade-to", "15.0", "--set-encoding", "utf8" },
		{ "--undo", "L", "T" },
		{ "--profile", "ext4", "--info" },
		{ "--flags", "", "--casefold-dir", "T" },
	};
	char *argv[MAXA], enc[64], oenc[64], oflags[64], path[320], fds[8];
	char recpath[340], *snap0, *snap1;
	size_t len0, len1;
	int argc = 0, st;
	struct fold_ctx ctx;
	struct expect x;

	g_in = data;
	g_inlen = size;
	if (!base[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(base, sizeof base, "%s/fuzz-check.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(base))
			die("mkdtemp");
		snprintf(tree, sizeof tree, "%s/tree", base);
		snprintf(logpath, sizeof logpath, "%s/log", base);
		if (mkdir(tree, 0755) < 0)
			die("mkdir");
		atexit(cleanup);
		have_xattr = setxattr(tree, FOLDFS_XATTR_CASEFOLD, "1", 1, 0) == 0;
	}
	if (size < 4)
		return 0;
	unsigned b0 = data[0], b1 = data[1], b2 = data[2], b3 = data[3];
	unsigned where = b1 & 3, fold_rule = b1 >> 2 & 3, run = b2 & 7;
	unsigned opt = b2 >> 3 & 3, maxfds = b1 >> 5;
	const char *const *vers;
	size_t nv = fold_unicode_versions(&vers);

	if (where == 3 || (!have_xattr && (run == 2 || fold_rule == 1 ||
					   fold_rule == 2)))
		return 0;
	/* an empty tree, and no record anywhere */
	int tfd = open(tree, O_RDONLY | O_DIRECTORY), bfd;

	if (tfd < 0)
		die("cannot open the tree");
	empty_dir(tfd);
	if ((tfd = open(tree, O_RDONLY | O_DIRECTORY)) < 0)
		die("cannot open the tree");
	fremovexattr(tfd, FOLDFS_XATTR_CASEFOLD);
	if ((bfd = open(base, O_RDONLY | O_DIRECTORY)) < 0)
		die("cannot open the scratch directory");
	unlinkat(bfd, FOLDFS_RECORD_NAME, 0);
	unlinkat(bfd, "log", 0);
	close(bfd);
	if (fold_rule == 1 || fold_rule == 2)
		fsetxattr(tfd, FOLDFS_XATTR_CASEFOLD, "1", 1, 0);
	/* the names */
	for (size_t at = 4; at < size;) {
		const char *s = (const char *)data + at;
		const char *e = memchr(s, 0, size - at);
		size_t l = e ? (size_t)(e - s) : size - at;

		make_path(s, l, fold_rule, 8);
		at += l + 1;
	}
	if (b2 & 64) {
		char chain[20 * 5 + 1] = "";

		for (int i = 0; i < 20; i++)
			strcat(chain, "Deep/");
		make_path(chain, strlen(chain), fold_rule, 24);
	}
	/* the record */
	int have_rec = 0;

	if (((b0 & 31u) % (nv + 2)) != nv + 1 && where) {
		int bfd = open(base, O_RDONLY | O_DIRECTORY);

		write_record(where == 1 ? tfd : bfd, b0, enc, sizeof enc);
		close(bfd);
		have_rec = 1;
	} else {
		where = 0;
		snprintf(enc, sizeof enc, "utf8-12.1");
	}
	close(tfd);
	reread();
	if (ndirs == MAXD || nents == MAXE)
		return 0;
	snap0 = snapshot(&len0);
	size_t unset = 0; /* directories without the attribute */

	for (size_t i = 0; i < ndirs; i++)
		unset += !dirs[i].attr;

	/* the command line */
	snprintf(path, sizeof path, "%s%s", tree, b1 & 16 ? "/" : "");
	argv[argc++] = "foldfs-check";
	argv[argc++] = "--no-progress";
	if (run != 5)
		argv[argc++] = "--json";
	if (fold_rule == 3)
		argv[argc++] = "--casefold";
	if (maxfds) {
		snprintf(fds, sizeof fds, "%u", maxfds + 1);
		argv[argc++] = "--max-fds";
		argv[argc++] = fds;
	}
	if (b2 & 128)
		argv[argc++] = "-x";

	/* the encoding in force: the record's, or the options' */
	unsigned rflags = have_rec ? ((b0 & 32 ? FOLD_STRICT : 0) |
				      (b0 & 64 ? FOLD_COMPAT : 0) |
				      (b0 & 128 ? FOLD_IGNORABLES : 0))
				   : 0;
	const char *source = have_rec ? "record" : "default";
	int usage = 0;

	if (fold_init(&ctx, enc, FOLD_CASEFOLD, rflags) < 0)
		die("the record's encoding");
	if (opt == 1 || opt == 2) {
		struct fold_ctx o;
		int r = fuzz_sel_ctx(b3, &o, oenc, sizeof oenc, oflags,
				     sizeof oflags);

		if (opt == 1) {
			argv[argc++] = "--encoding";
			argv[argc++] = oenc;
			/* with the record's flags */
			if (fold_init(&ctx, oenc, FOLD_CASEFOLD, rflags) < 0)
				usage = 1;
		} else {
			argv[argc++] = "--flags";
			argv[argc++] = oflags;
			if (r < 0 || fold_init(&ctx, enc, FOLD_CASEFOLD,
					       o.flags) < 0)
				usage = 1;
		}
		source = "options";
	} else if (opt == 3) {
		argv[argc++] = "--profile";
		argv[argc++] = "ext4";
		fold_init_profile(&ctx, "ext4");
		source = "options";
	}
	fold_encoding_name(&ctx, enc, sizeof enc);

	switch (run) {
	case 1:
		argv[argc++] = "--info";
		usage |= opt == 3;
		break;
	case 2:
		argv[argc++] = "--casefold-dir";
		argv[argc++] = path;
		usage |= opt != 0;
		xfail_at = (int)(b3 & 15);
		xcalls = 0;
		break;
	case 3:
		argv[argc++] = "--fix";
		break;
	case 4:
		argv[argc++] = "--upgrade-to";
		argv[argc++] = (char *)vers[nv - 1];
		break;
	case 6:
		argv[argc++] = "--set-encoding";
		argv[argc++] = enc;
		usage |= opt != 0;
		break;
	case 7: {
		const char *const *u = bad[b3 % (sizeof bad / sizeof *bad)];

		for (int i = 0; i < 4 && u[i]; i++)
			argv[argc++] = !strcmp(u[i], "T")   ? path
				       : !strcmp(u[i], "L") ? logpath
							    : (char *)u[i];
		usage = 1;
		break;
	}
	}
	if (run != 2 && !(run == 7 && b3 % 16 == 10))
		argv[argc++] = path;
	int second = (b2 & 32) && run != 2 && run != 6 && run != 7;
	if (second)
		argv[argc++] = "/nonexistent-fuzz-check-path";
	argv[argc] = NULL;

	st = run_check(argc, argv);
	xfail_at = 0;

	reread();
	snap1 = snapshot(&len1);
	if (usage) {
		if (st != EXIT_USAGE || outlen)
			die("a usage error did not exit 16 with nothing on "
			    "standard output");
		if (len0 != len1 || memcmp(snap0, snap1, len0))
			die("a usage error changed the tree");
		goto out;
	}

	const char *recdir = where == 1 ? "" : NULL;

	snprintf(recpath, sizeof recpath, "%s/%s",
		 where == 1 ? tree : base, FOLDFS_RECORD_NAME);
	switch (run) {
	case 1: /* --info */
		if (st != ((where == 1 ? 0 : 1) | (second ? 8 : 0)) ||
		    !strstr(out, where == 1 ? "\"present\":true"
					    : "\"present\":false"))
			die("--info did not find the record of PATH itself");
		break;
	case 2: /* --casefold-dir */
		model(&ctx, 1, tree, recdir, &x);
		if (x.groups || x.ill_err) {
			if (st != EXIT_UNCORRECTED ||
			    len0 != len1 || memcmp(snap0, snap1, len0))
				die("--casefold-dir was not refused, or "
				    "changed the tree");
		} else if ((b3 & 15) && (b3 & 15) <= unset) {
			if (st != (EXIT_OPERATIONAL | EXIT_UNCORRECTED) ||
			    len0 != len1 || memcmp(snap0, snap1, len0))
				die("--casefold-dir failing on one directory "
				    "did not take the attribute back from all");
		} else {
			if (st != 0)
				die("--casefold-dir failed on a clean tree");
			for (size_t i = 0; i < ndirs; i++)
				if (!dirs[i].attr)
					die("--casefold-dir left a directory "
					    "without the attribute");
		}
		break;
	case 4: /* --upgrade-to: the status */
	case 5: /* -q */
		model(&ctx, fold_rule == 3, tree, recdir, &x);
		if ((run == 5 && st != ((x.groups || x.ill_err) ? 4 : 0) +
					   (second ? 8 : 0)) ||
		    (run == 4 && (st & ~4) != (second ? 8 : 0)))
			die("another exit status than the tree calls for");
		if (len0 != len1 || memcmp(snap0, snap1, len0))
			die("a check changed the tree");
		break;
	case 6: /* --set-encoding to the encoding in force */
		model(&ctx, fold_rule == 3, tree, recdir, &x);
		if (where == 2) {
			if (st != EXIT_UNCORRECTED || len0 != len1 ||
			    memcmp(snap0, snap1, len0))
				die("--set-encoding inside a recorded tree was "
				    "not refused");
			break;
		}
		{
			struct foldfs_record rec;
			char e2[256];
			int fd = open(tree, O_RDONLY | O_DIRECTORY);

			if (fd < 0 || foldfs_record_read(fd, &rec, e2,
							 sizeof e2) < 0 ||
			    strcmp(rec.encoding, enc) ||
			    rec.flags != (ctx.flags & ~FOLD_KERNEL_ORDER))
				die("--set-encoding did not write the record");
			close(fd);
			if (st != ((x.groups || x.ill_err) ? 4 : 0))
				die("--set-encoding: another exit status");
		}
		break;
	default: /* a check, or --fix's dry run */
		model(&ctx, fold_rule == 3, tree, recdir, &x);
		{
			char *end = out + outlen;

			if (second) {
				/* the last line: the other PATH's error */
				char *p = end - 1;

				while (p > out && p[-1] != '\n')
					p--;
				if (!strstr(p, "\"type\":\"error\"") ||
				    !strstr(p, "\"exit\":8"))
					die("no error object for a PATH that "
					    "does not exist");
				outlen = (size_t)(p - out);
			}
			check_json(&x, enc, have_rec ? recpath : NULL, source,
				   run == 3 ? (long)(x.colliding - x.groups) : 0);
		}
		if (st != ((x.groups || x.ill_err) ? 4 : 0) + (second ? 8 : 0))
			die("another exit status than the tree calls for");
		if (len0 != len1 || memcmp(snap0, snap1, len0))
			die("a check changed the tree");
		break;
	}
out:
	free_groups();
	free(snap0);
	free(snap1);
	free(out);
	free(err);
	out = err = NULL;
	return 0;
}
