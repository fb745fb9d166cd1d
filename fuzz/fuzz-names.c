/*
 * fuzz-names.c - the daemon's name handling in its namespace calls:
 * lookup, mknod, create, mkdir, symlink, link, unlink, rmdir and rename
 * (with RENAME_NOREPLACE, RENAME_EXCHANGE and RENAME_WHITEOUT;
 * fs/ops_entry.c) and FOLDFS_IOC_RESPELL (fs/respell.c), with resolve.c,
 * dirindex.c and creds.c under them, run on a real SOURCE: two
 * directories in a scratch directory, the view root (holding the record
 * .foldfs) and another one ($TMPDIR, else /tmp).
 *
 * Each call is checked against SOURCE's own listing, read before and
 * after it, by these rules (foldfs(8)):
 *  - a spelling denotes its exact bytes if they are stored, else, in a
 *    folding directory and if well formed, the bytewise smallest stored
 *    name with its key (fold_key; the daemon uses fold_hash and
 *    fold_equal); the record at the view root is never denoted;
 *  - a creating call refuses the record and, at a folding root, any
 *    spelling of it (EPERM), an ill-formed name under a strict record
 *    (EINVAL), and a name that denotes an entry (EEXIST; a plain O_CREAT
 *    opens that entry); link refuses a directory (EPERM) and adds a name
 *    of the same inode; symlink's entry holds the target; a directory
 *    made in a folding directory is marked folding (but with -o
 *    casefold), and where that fails the mkdir is undone and fails;
 *  - unlink removes the entry the spelling denotes (EISDIR for a
 *    directory), rmdir a directory (ENOTDIR, ENOTEMPTY); rename moves it
 *    onto the name given, or onto the entry newname denotes with
 *    newname's spelling (EEXIST with RENAME_NOREPLACE; EISDIR, ENOTDIR,
 *    ENOTEMPTY or, as SOURCE may, EEXIST as rename(2) for the entry
 *    replaced), or just respells it when that is the entry itself;
 *    RENAME_EXCHANGE swaps the two entries; RENAME_WHITEOUT leaves a
 *    new whiteout under the stored name moved away, which later
 *    lookups of its spellings find;
 *  - respell refuses empty, ".", "..", "/" and unterminated names, plain
 *    directories, a `to` not equivalent to the entry, the record's
 *    spellings at the root (EPERM) and a `to` stored already (EEXIST);
 *    for a caller other than root it answers as rename(2) would for that
 *    caller (EACCES, EPERM), the reference being the kernel: a rename of
 *    the entry done with the caller's fsuid, fsgid and all its groups
 *    (where the fuzzer is root), whether the daemon is root and renames
 *    as the caller (creds.c) or is not and checks the mode bits itself
 *    (may_respell); the daemon's own credentials are back afterwards;
 *  - the call answers with the error the rule gives and changes SOURCE
 *    exactly as the rule says (names, inode numbers and types compared).
 * Changes made directly in SOURCE are reported to the index as watch.c
 * does (per name, as inotify, or by marking the index stale, as polling),
 * deletions only when input says so: a stale index entry must then not
 * change any answer.  The sweep of indexes of directories gone from
 * SOURCE (idx_sweep_gone) runs on a clock the input moves: it acts at
 * most once a second, and then drops exactly the indexes of directories
 * that are removed and that the kernel has forgotten.  Every index holds
 * its directory node once (node_hold/node_put counted).  At the end every
 * stored name is looked up in upper and in lower case.
 *
 * Input: byte 0 the encoding and flags (fuzz_enc below), byte 1 options:
 * bit 0 the root folds, bit 1 the other directory folds, bit 2 deletions
 * made in SOURCE go unreported, bit 3 polling, bit 4 an index budget of
 * one byte (each index built evicts the other), bit 5 marking a new
 * directory folding fails (ENOTSUP), bit 6 -o casefold.  Then
 * NUL-separated records: an opcode and a name, or two names split at the
 * first '/':
 *   l L  lookup              m M  mknod            c C  create (O_CREAT)
 *   e E  create (O_EXCL)     u U  unlink           p P  respell from/to
 *   t T  respell, `to` unterminated                o O  create in SOURCE
 *   k K  remove in SOURCE    r R  rename in the directory
 *   n N  rename, RENAME_NOREPLACE                  w W  RENAME_EXCHANGE
 *   x X  rename into the other directory
 *   d D  mkdir               v V  rmdir            s S  symlink name/target
 *   h H  link a/b            j J  link a/b, b in the other directory
 *   y Y  rename, RENAME_WHITEOUT
 *   z Z  rename into the other directory, RENAME_WHITEOUT|RENAME_NOREPLACE
 *   f F  mkdir in SOURCE, with a file in it
 *   i I  the caller and the directory's permissions, from the name's
 *        bytes: [0] uid, [1] gid (0, 1000, 1001 by value mod 3), [2]
 *        bits 0-2 supplementary groups 1000-1002, bit 3 seventy lower
 *        ones (listed first, as the kernel sorts them); [3] and [4]
 *        (low 4 bits) the directory's mode, [5] bits 0-1 its owner, 2-3
 *        its group, 4-5 the owner of every entry in it (0, 1000, 1001),
 *        bit 6 the daemon is root
 *   q Q  respell from/to as that caller
 *   g    sweep, from the name's first byte: bit 0 the other directory
 *        is removed in SOURCE (and made anew afterwards), bits 1-2 the
 *        kernel has forgotten the root, the other directory; bits 3-4
 *        the clock moves on by that many half seconds first
 * lower case in the root, upper case in the other one.
 *
 * The daemon's other modules are stubbed here (and in
 * fuzz-daemon-stubs.c), and so are libfuse's replies (they only record
 * the answer).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "foldfs.h"
#include "foldfs_ioctl.h"
#include "fuzz-creds.h"
#include "fuzz-holds.h"
#include "respell.h"

struct foldfs F;

static size_t g_at; /* the script byte being run, for messages */

static void fail(const char *what, const char *a, const char *b)
{
	fprintf(stderr, "fuzz-names: %s at script byte %zu\n", what, g_at);
	if (a)
		fprintf(stderr, "  name: '%s'\n", a);
	if (b)
		fprintf(stderr, "  other: '%s'\n", b);
	abort();
}

/* ---- the two directories and the stubbed daemon ---- */

static struct dirstate ds[2];
static struct node dirs[2], leaf = { .fd = -1, .type = S_IFREG };
static char base[256];

/* Changes made in SOURCE not yet seen by the index, per directory. */
#define PEND_MAX 64
static char pend[2][PEND_MAX][NAME_BUF];
/* its last change was a removal (watch.c: the mask of a name's last
 * event in a read; all that is pending is one read here) */
static char pend_unlinked[2][PEND_MAX];
static size_t npend[2];
static int overflow[2]; /* more than that: events lost (IN_Q_OVERFLOW) */

/* What the last call answered. */
static int got_err;		/* -1: no reply yet */
static ino_t got_ino;		/* the entry of the reply */

/* Holds on the two directory nodes (an index holds its node once), the
 * nodes the kernel has forgotten (sweep), the lookup counts taken back
 * from the leaf, and what a mkdir did to mark its directory folding. */
static long refs[2];
static int forgotten[2];
static unsigned long leaf_forgets;
static int mark_calls, mark_fail, fold_set;
static ino_t mark_ino;

/* The caller: root, or whom an 'i' record names. */
static struct fuse_ctx g_ctx;
static gid_t g_groups[80];
static int g_ngroups;

/* The clock the sweep reads (dirindex.o's clock_gettime is this one,
 * fuzz-fs.mk): CLOCK_MONOTONIC moves only when the input says. */
static uint64_t fake_ns = 1000000000ull;
static int have_whiteout; /* SOURCE makes whiteouts */
/* SOURCE's errno for a directory renamed over a non-empty one: POSIX
 * allows ENOTEMPTY or EEXIST (xfs) */
static int nonempty_err = ENOTEMPTY;

int fuzz_clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (clk != CLOCK_MONOTONIC)
		return clock_gettime(clk, ts);
	ts->tv_sec = (time_t)(fake_ns / 1000000000u);
	ts->tv_nsec = (long)(fake_ns % 1000000000u);
	return 0;
}

static int dir_no(const struct node *n)
{
	return n == &dirs[0] ? 0 : n == &dirs[1] ? 1 : -1;
}

struct node *node_root(void)
{
	return &dirs[0];
}

int dir_folds(struct node *d)
{
	return d->dir && atomic_load(&d->dir->fold) == 1;
}

void dir_set_fold(struct node *d, int on)
{
	if (d != &leaf)
		fail("dir_set_fold on another node than the new one", NULL,
		     NULL);
	fold_set = on;
}

void fold_refresh(struct node *d)
{
	(void)d;
}

struct node *node_get(int fd, const struct stat *st, uint64_t mnt)
{
	(void)mnt;
	got_ino = st->st_ino;
	leaf.ino = st->st_ino;
	leaf.type = st->st_mode & S_IFMT;
	/* a new directory is checked for emptiness before its mark
	 * (new_dir_ours): kept until the next node_get */
	if (leaf.fd >= 0)
		close(leaf.fd);
	leaf.fd = -1;
	if (S_ISDIR(st->st_mode))
		leaf.fd = fd;
	else
		close(fd);
	return &leaf;
}

struct node *node_find(const struct stat *st, uint64_t mnt)
{
	(void)st;
	(void)mnt;
	return NULL;
}

void node_forget(struct node *n, uint64_t nlookup)
{
	if (n != &leaf || nlookup != 1)
		fail("node_forget of another node or count", NULL, NULL);
	leaf_forgets++;
}

void node_hold(struct node *n)
{
	if (dir_no(n) < 0)
		fail("node_hold of a node that is no directory", NULL, NULL);
	refs[dir_no(n)]++;
}

void node_put(struct node *n)
{
	if (dir_no(n) < 0 || --refs[dir_no(n)] < 0)
		fail("node_put without a hold", NULL, NULL);
}

int node_hold_if_forgotten(struct node *n)
{
	int i = dir_no(n);

	if (i < 0)
		fail("the sweep found a node that is no directory", NULL, NULL);
	if (!forgotten[i])
		return 0;
	refs[i]++;
	return 1;
}

void node_procname(const struct node *n, char buf[64])
{
	snprintf(buf, 64, "/proc/self/fd/%d", n->fd);
}

ino_t node_view_ino(dev_t dev, ino_t ino)
{
	(void)dev;
	return ino;
}

void dir_stamp(struct node *d, struct dir_stamp *s)
{
	(void)d;
	s->valid = 0;
}

/* Before the index is trusted: what inotify would have reported (each
 * name rechecked) or what polling finds (the index is stale). */
void watch_sync(struct node *d)
{
	size_t i = (size_t)(d - dirs);

	if (!npend[i] && !overflow[i])
		return;
	if (d->dir->poll || overflow[i]) {
		pthread_mutex_lock(&d->dir->ilock);
		idx_mark_stale(d);
		pthread_mutex_unlock(&d->dir->ilock);
	} else {
		for (size_t k = 0; k < npend[i]; k++)
			dir_index_recheck(d, pend[i][k], pend_unlinked[i][k]);
	}
	npend[i] = 0;
	overflow[i] = 0;
}

int prune_openat(int dfd, const char *name)
{
	return openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

int prune_negative_ok(void)
{
	return 1;
}

/* setattr's truncation: as root, SOURCE has no set-ID bits to drop here
 * and nothing to take from the caller */
int file_as_writer(fuse_req_t req, int fd, struct creds *c, int alloc)
{
	(void)req;
	(void)fd;
	(void)alloc;
	c->switched = 0;
	return 0;
}

void file_undirect(int fd)
{
	(void)fd;
}

/* create of an existing entry: a plain open (no append-only files here) */
int file_open(const char *proc, int flags)
{
	return open(proc, (flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL | O_APPEND)) |
				  O_CLOEXEC | O_NOCTTY);
}

void file_close(int fd)
{
	close(fd);
}

/* Marks the directory a mkdir made (the leaf, last node_get). */
int foldfs_dir_casefold_set(int dirfd, int on)
{
	(void)dirfd;
	if (!on)
		fail("a new directory was marked not folding", NULL, NULL);
	mark_calls++;
	mark_ino = leaf.ino;
	return mark_fail ? -ENOTSUP : 0;
}

double coh_entry_timeout(struct node *d, int is_dir)
{
	(void)d;
	(void)is_dir;
	return 0;
}

int coh_cache_negative(struct node *d)
{
	(void)d;
	return 0;
}

void coh_note(struct node *d, const char *name, uint64_t nodeid)
{
	(void)d;
	(void)name;
	(void)nodeid;
}

void coh_changed(struct node *d, const char *name, uint64_t nodeid)
{
	(void)d;
	(void)name;
	(void)nodeid;
}

int coh_timed(struct node *d, const char *name)
{
	(void)d;
	(void)name;
	return 0;
}

void coh_moved_in(struct node *d, const char *name, uint64_t nodeid)
{
	(void)d;
	(void)name;
	(void)nodeid;
}

void coh_external(struct node *d, const char *name)
{
	(void)d;
	(void)name;
}

void coh_inval_async(struct node *d, const char *name)
{
	(void)d;
	(void)name;
}

int coh_inval_wait(unsigned ms)
{
	(void)ms;
	return 0;
}

/* libfuse's replies: the answer is recorded. */
int fuse_reply_err(fuse_req_t req, int err)
{
	(void)req;
	got_err = err;
	return 0;
}

void fuse_reply_none(fuse_req_t req)
{
	(void)req;
}

int fuse_reply_entry(fuse_req_t req, const struct fuse_entry_param *e)
{
	(void)req;
	got_err = e->ino ? 0 : ENOENT;
	return 0;
}

int fuse_reply_create(fuse_req_t req, const struct fuse_entry_param *e,
		      const struct fuse_file_info *fi)
{
	(void)req;
	(void)e;
	close((int)fi->fh);
	got_err = 0;
	return 0;
}

int fuse_reply_attr(fuse_req_t req, const struct stat *attr,
		    double attr_timeout)
{
	(void)req;
	(void)attr;
	(void)attr_timeout;
	return 0;
}

int fuse_reply_readlink(fuse_req_t req, const char *link)
{
	(void)req;
	(void)link;
	return 0;
}

int fuse_reply_statfs(fuse_req_t req, const struct statvfs *stbuf)
{
	(void)req;
	(void)stbuf;
	return 0;
}

int fuse_reply_ioctl(fuse_req_t req, int result, const void *buf,
		     size_t size)
{
	(void)req;
	(void)buf;
	(void)size;
	got_err = result;
	return 0;
}

const struct fuse_ctx *fuse_req_ctx(fuse_req_t req)
{
	(void)req;
	return &g_ctx;
}

/* As libfuse's: all the caller's groups counted, size of them given. */
int fuse_req_getgroups(fuse_req_t req, int size, gid_t list[])
{
	(void)req;
	for (int i = 0; i < g_ngroups && i < size; i++)
		list[i] = g_groups[i];
	return g_ngroups;
}

/* ---- SOURCE's listing and the rules ---- */

#define LIST_MAX 320

struct listing {
	size_t n;
	char name[LIST_MAX][NAME_BUF];
	ino_t ino[LIST_MAX];
	unsigned char type[LIST_MAX]; /* DT_* */
	char *key[LIST_MAX]; /* fold keys, made on first use */
	size_t keylen[LIST_MAX];
};

static struct listing before[2], after[2];
static struct fold_ctx kctx; /* F.ctx without FOLD_STRICT: keys of all */

static void list_free_keys(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->key[i]);
		l->key[i] = NULL;
	}
}

static void list_read(int d, struct listing *l)
{
	int fd = openat(dirs[d].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!dir)
		fail("cannot read a directory", NULL, NULL);
	list_free_keys(l);
	l->n = 0;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (l->n == LIST_MAX)
			fail("too many entries", NULL, NULL);
		strcpy(l->name[l->n], de->d_name);
		l->ino[l->n] = de->d_ino;
		l->type[l->n] = de->d_type;
		l->key[l->n] = NULL;
		l->n++;
	}
	closedir(dir);
}

static char *key_of(const char *s, size_t *len)
{
	ssize_t r = fold_key(&kctx, s, strlen(s), NULL, 0);
	char *k = r < 0 ? NULL : malloc((size_t)r + 1);

	if (!k || fold_key(&kctx, s, strlen(s), k, (size_t)r) != r)
		fail("fold_key failed", s, NULL);
	*len = (size_t)r;
	return k;
}

static int same_key(const char *a, const char *b)
{
	size_t al, bl;
	char *ka = key_of(a, &al), *kb = key_of(b, &bl);
	int r = al == bl && !memcmp(ka, kb, al);

	free(ka);
	free(kb);
	return r;
}

static int well_formed(const char *s)
{
	return fold_validate(&kctx, s, strlen(s), NULL) == 0;
}

static int hidden(int d, const char *name)
{
	return d == 0 && !strcmp(name, FOLDFS_RECORD_NAME);
}

static int folds(int d)
{
	return atomic_load(&ds[d].fold) == 1;
}

static int find_exact(const struct listing *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return (int)i;
	return -1;
}

/* The entry a spelling denotes in directory d (listing l), or -1. */
static int denotes(int d, struct listing *l, const char *name)
{
	/* the record is never its exact name; an equivalent entry is
	 * found by every spelling, the record's own included */
	int best = -1, i = hidden(d, name) ? -1 : find_exact(l, name);
	size_t kl;
	char *k;

	if (i >= 0 || !folds(d) || !well_formed(name))
		return i;
	k = key_of(name, &kl);
	for (size_t j = 0; j < l->n; j++) {
		if (hidden(d, l->name[j]))
			continue;
		if (!l->key[j])
			l->key[j] = key_of(l->name[j], &l->keylen[j]);
		if (l->keylen[j] == kl && !memcmp(l->key[j], k, kl) &&
		    (best < 0 || strcmp(l->name[j], l->name[best]) < 0))
			best = (int)j;
	}
	free(k);
	return best;
}

/* May not be created in d: the record, and at a folding root anything
 * equivalent to it. */
static int reserved(int d, const char *name)
{
	return d == 0 && (hidden(d, name) ||
			  (folds(d) && same_key(name, FOLDFS_RECORD_NAME)));
}

/* ---- the expected listing after a call ---- */

static struct listing want[2];

static void want_from_before(void)
{
	for (int d = 0; d < 2; d++) {
		want[d].n = before[d].n;
		for (size_t i = 0; i < before[d].n; i++) {
			strcpy(want[d].name[i], before[d].name[i]);
			want[d].ino[i] = before[d].ino[i];
			want[d].type[i] = before[d].type[i];
		}
	}
}

static void want_del(int d, const char *name)
{
	int i = find_exact(&want[d], name);

	if (i < 0)
		fail("model: deleting a name that is not there", name, NULL);
	if ((size_t)i != --want[d].n) {
		strcpy(want[d].name[i], want[d].name[want[d].n]);
		want[d].ino[i] = want[d].ino[want[d].n];
		want[d].type[i] = want[d].type[want[d].n];
	}
}

/* ino 0: a new inode, whatever its number; type DT_*. */
static void want_set(int d, const char *name, ino_t ino, unsigned char type)
{
	int i = find_exact(&want[d], name);

	if (i < 0) {
		i = (int)want[d].n++;
		strcpy(want[d].name[i], name);
	}
	want[d].ino[i] = ino;
	want[d].type[i] = type;
}

/* SOURCE now holds exactly want (a name with ino 0 holds a new inode,
 * which is returned when there is one). */
static ino_t check_listing(void)
{
	ino_t fresh = 0;

	for (int d = 0; d < 2; d++) {
		list_read(d, &after[d]);
		if (after[d].n != want[d].n)
			fail(after[d].n > want[d].n
				     ? "SOURCE holds a name the rule does not"
				     : "SOURCE lacks a name the rule keeps",
			     NULL, NULL);
		for (size_t i = 0; i < want[d].n; i++) {
			int j = find_exact(&after[d], want[d].name[i]);

			if (j < 0)
				fail("SOURCE lacks a name the rule keeps",
				     want[d].name[i], NULL);
			if (want[d].ino[i] && after[d].ino[j] != want[d].ino[i])
				fail("a name holds another entry than the rule "
				     "says", want[d].name[i], NULL);
			if (after[d].type[j] != want[d].type[i])
				fail("a name holds another type of file than "
				     "the rule says", want[d].name[i], NULL);
			if (!want[d].ino[i]) {
				if (find_exact(&before[d], want[d].name[i]) >= 0 &&
				    before[d].ino[find_exact(&before[d],
							     want[d].name[i])] ==
					    after[d].ino[j])
					fail("a name was not made anew",
					     want[d].name[i], NULL);
				fresh = after[d].ino[j];
			}
		}
	}
	return fresh;
}

static void expect_err(int want_err, const char *what, const char *a,
		       const char *b)
{
	/* every call leaves the daemon as it was */
	if (fz_creds_wrong())
		fail("the daemon's credentials are not back after a call", a,
		     b);
	if (got_err != want_err) {
		fprintf(stderr, "fuzz-names: %s: answer %d (%s), rule %d (%s)\n",
			what, got_err, got_err >= 0 ? strerror(got_err) : "none",
			want_err, strerror(want_err));
		fail("the answer differs from the rule", a, b);
	}
}

/* ---- the calls ---- */

static void do_lookup(int d, const char *name)
{
	int j = denotes(d, &before[d], name);

	got_err = -1;
	op_lookup(NULL, node_id(&dirs[d]), name);
	expect_err(j >= 0 ? 0 : ENOENT, "lookup", name, NULL);
	if (j >= 0 && got_ino != before[d].ino[j])
		fail("lookup answered another entry than the rule",
		     name, before[d].name[j]);
}

/* The refusals every creating call shares; 0 if none applies. */
static int create_refusal(int d, const char *name)
{
	if (reserved(d, name))
		return EPERM;
	if (folds(d) && (F.rec.flags & FOLD_STRICT) && !well_formed(name))
		return EINVAL;
	return 0;
}

/* ... and the entry a creating call finds: EEXIST. */
static int create_rule(int d, const char *name)
{
	int e = create_refusal(d, name);

	if (!e && denotes(d, &before[d], name) >= 0)
		e = EEXIST;
	return e;
}

/* Does stored name `name` in d hold a directory with entries? */
static int nonempty(int d, const char *name)
{
	int fd = openat(dirs[d].fd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	int n = 0;

	if (!dir)
		fail("cannot read a subdirectory", name, NULL);
	while ((de = readdir(dir)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dir);
	return n > 0;
}

static void do_mknod(int d, const char *name)
{
	int e;

	want_from_before();
	e = create_rule(d, name);
	if (!e)
		want_set(d, name, 0, DT_REG);
	got_err = -1;
	op_mknod(NULL, node_id(&dirs[d]), name, S_IFREG | 0644, 0);
	expect_err(e, "mknod", name, NULL);
	check_listing();
}

static void do_mkdir(int d, const char *name)
{
	int e, mark;
	ino_t fresh;

	want_from_before();
	e = create_rule(d, name);
	mark = !e && folds(d) && !F.casefold_all;
	if (mark && mark_fail)
		e = ENOTSUP; /* undone */
	else if (!e)
		want_set(d, name, 0, DT_DIR);
	got_err = -1;
	mark_calls = 0;
	fold_set = 0;
	leaf_forgets = 0;
	op_mkdir(NULL, node_id(&dirs[d]), name, 0755);
	expect_err(e, "mkdir", name, NULL);
	fresh = check_listing();
	if (mark_calls != mark)
		fail(mark ? "a directory made in a folding one was not marked "
			    "folding"
			  : "a directory was marked folding", name, NULL);
	if (mark && !mark_fail && (mark_ino != fresh || fold_set != 1))
		fail("another directory than the new one was marked folding",
		     name, NULL);
	if (leaf_forgets != (unsigned long)(mark && mark_fail))
		fail("an undone mkdir did not take back the entry's lookup",
		     name, NULL);
}

static void do_symlink(int d, const char *name, const char *target)
{
	char got[NAME_BUF + 1];
	ssize_t n;
	int e;

	want_from_before();
	e = create_rule(d, name);
	if (!e)
		want_set(d, name, 0, DT_LNK);
	got_err = -1;
	op_symlink(NULL, target, node_id(&dirs[d]), name);
	expect_err(e, "symlink", name, target);
	check_listing();
	if (e)
		return;
	n = readlinkat(dirs[d].fd, name, got, sizeof got);
	if (n < 0 || (size_t)n != strlen(target) ||
	    memcmp(got, target, (size_t)n))
		fail("a symlink does not hold its target", name, target);
}

/* link: the entry `name` denotes in d1 (as the kernel found it) gets the
 * name newname in d2 too. */
static void do_link(int d1, const char *name, int d2, const char *newname)
{
	static struct node obj;
	int e, j = denotes(d1, &before[d1], name);

	if (j < 0)
		return; /* the kernel found nothing to link */
	obj.fd = openat(dirs[d1].fd, before[d1].name[j],
			O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (obj.fd < 0)
		fail("cannot open an entry to link", before[d1].name[j], NULL);
	want_from_before();
	e = create_rule(d2, newname);
	if (!e && before[d1].type[j] == DT_DIR)
		e = EPERM;
	if (!e)
		want_set(d2, newname, before[d1].ino[j], before[d1].type[j]);
	got_err = -1;
	op_link(NULL, node_id(&obj), node_id(&dirs[d2]), newname);
	close(obj.fd);
	expect_err(e, "link", name, newname);
	check_listing();
	if (!e && got_ino != before[d1].ino[j])
		fail("link answered another entry than the one linked", name,
		     newname);
}

/* The respell runs may leave a directory with the sticky bit. */
static int dir_sticky(int d)
{
	struct stat st;
	return fstat(dirs[d].fd, &st) == 0 && (st.st_mode & S_ISVTX);
}

static void do_create(int d, const char *name, int excl)
{
	struct fuse_file_info fi;
	int e = create_refusal(d, name), j = -1;
	ino_t fresh;

	memset(&fi, 0, sizeof fi);
	fi.flags = O_RDWR | O_CREAT | (excl ? O_EXCL : 0);
	want_from_before();
	if (!e) {
		j = denotes(d, &before[d], name);
		if (j >= 0 && excl)
			e = EEXIST;
		else if (j >= 0 && !folds(d))
			e = ESTALE; /* not opened here: the kernel looks again
				       and opens it with its checks */
		else if (j >= 0 && before[d].type[j] == DT_DIR)
			e = EISDIR; /* what open(2) says, sticky or not */
		else if (j >= 0 && dir_sticky(d))
			e = ESTALE; /* as above (fs.protected_regular) */
		else if (j >= 0 && before[d].type[j] != DT_REG)
			e = ESTALE; /* the kernel looks again, opens that */
		else if (j < 0)
			want_set(d, name, 0, DT_REG);
	}
	got_err = -1;
	got_ino = 0;
	op_create(NULL, node_id(&dirs[d]), name, 0644, &fi);
	expect_err(e, excl ? "create O_EXCL" : "create", name, NULL);
	fresh = check_listing();
	if (!e && got_ino != (j >= 0 ? before[d].ino[j] : fresh))
		fail("create opened another entry than the rule", name, NULL);
}

static void do_unlink(int d, const char *name)
{
	int e = 0, j = denotes(d, &before[d], name);

	want_from_before();
	if (j < 0)
		e = ENOENT;
	else if (before[d].type[j] == DT_DIR)
		e = EISDIR;
	else
		want_del(d, before[d].name[j]);
	got_err = -1;
	op_unlink(NULL, node_id(&dirs[d]), name);
	expect_err(e, "unlink", name, NULL);
	check_listing();
}

static void do_rmdir(int d, const char *name)
{
	int e = 0, j = denotes(d, &before[d], name);

	want_from_before();
	if (j < 0)
		e = ENOENT;
	else if (before[d].type[j] != DT_DIR)
		e = ENOTDIR;
	else if (nonempty(d, before[d].name[j]))
		e = ENOTEMPTY;
	else
		want_del(d, before[d].name[j]);
	got_err = -1;
	op_rmdir(NULL, node_id(&dirs[d]), name);
	expect_err(e, "rmdir", name, NULL);
	check_listing();
}

/* rename(2)'s answer for replacing entry t of d2 by entry j of d1. */
static int replace_err(int d1, int j, int d2, int t)
{
	int sdir = before[d1].type[j] == DT_DIR;
	int tdir = before[d2].type[t] == DT_DIR;

	if (sdir && !tdir)
		return ENOTDIR;
	if (!sdir && tdir)
		return EISDIR;
	if (tdir && nonempty(d2, before[d2].name[t]))
		return nonempty_err;
	return 0;
}

static void do_rename(int d1, const char *name, int d2, const char *newname,
		      unsigned flags)
{
	int e = 0, j, t = -1, moved = 0;

	want_from_before();
	j = denotes(d1, &before[d1], name);
	if (reserved(d2, newname))
		e = EPERM;
	else if (j < 0)
		e = ENOENT;
	else if (folds(d2) && (F.rec.flags & FOLD_STRICT) &&
		 !well_formed(newname))
		e = EINVAL;
	if (!e)
		t = denotes(d2, &before[d2], newname);
	/* Two names of one inode: the kernel finds one inode for both and
	 * sends no rename (vfs_rename returns 0 itself). */
	if (t >= 0 && !(d1 == d2 && t == j) &&
	    before[d1].ino[j] == before[d2].ino[t])
		return;
	if (e) {
		/* refused */
	} else if (flags & RENAME_EXCHANGE) {
		if (t < 0) {
			e = ENOENT;
		} else if (!(d1 == d2 && t == j)) {
			/* both stored names stay; their entries swap */
			want_set(d1, before[d1].name[j], before[d2].ino[t],
				 before[d2].type[t]);
			want_set(d2, before[d2].name[t], before[d1].ino[j],
				 before[d1].type[j]);
		}
	} else if (t >= 0 && strcmp(before[d2].name[t], newname)) {
		/* newname is another spelling of an entry */
		if (d1 == d2 && t == j) {
			/* a respelling: nothing is left behind */
			want_del(d1, before[d1].name[j]);
			want_set(d2, newname, before[d1].ino[j],
				 before[d1].type[j]);
		} else if (flags & RENAME_NOREPLACE) {
			e = EEXIST;
		} else if (!(e = replace_err(d1, j, d2, t))) {
			want_del(d1, before[d1].name[j]);
			want_del(d2, before[d2].name[t]);
			want_set(d2, newname, before[d1].ino[j],
				 before[d1].type[j]);
			moved = 1;
		}
	} else if (t >= 0 && (flags & RENAME_NOREPLACE)) {
		e = EEXIST;
	} else if (!(t >= 0 && d1 == d2 && t == j) &&
		   !(t >= 0 && (e = replace_err(d1, j, d2, t)))) {
		want_del(d1, before[d1].name[j]);
		want_set(d2, newname, before[d1].ino[j], before[d1].type[j]);
		moved = 1;
	}
	if (moved && (flags & RENAME_WHITEOUT))
		want_set(d1, before[d1].name[j], 0, DT_CHR);
	got_err = -1;
	op_rename(NULL, node_id(&dirs[d1]), name, node_id(&dirs[d2]), newname,
		  flags);
	expect_err(e, flags & RENAME_EXCHANGE	  ? "rename (exchange)"
		      : flags & RENAME_WHITEOUT  ? "rename (whiteout)"
		      : flags & RENAME_NOREPLACE ? "rename (noreplace)"
						 : "rename",
		   name, newname);
	check_listing();
}

/* A respell field: s, terminated, or (unterminated) s repeated to fill
 * all of it. */
static void field(char *f, const char *s, int unterminated)
{
	size_t n = strlen(s);

	memset(f, 0, FOLDFS_RESPELL_NAME_MAX);
	if (!unterminated) {
		memcpy(f, s, n);
		return;
	}
	for (size_t i = 0; i < FOLDFS_RESPELL_NAME_MAX; i++)
		f[i] = n ? s[i % n] : 'x';
}

static int bad_field(const char *s, int unterminated)
{
	if (unterminated)
		return ENAMETOOLONG;
	if (!*s || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
		return EINVAL;
	return 0;
}

/* ---- another caller ---- */

static struct fuse_ctx caller;
static gid_t caller_groups[80];
static int caller_ngroups, caller_daemon_root;
static const uid_t ids[3] = { 0, 1000, 1001 };

/* An 'i' record: who calls, and directory d's mode and owners. */
static void set_caller(int d, const unsigned char *a, size_t alen)
{
	unsigned char b[6] = { 0 };
	char proc[64];
	uid_t owner;

	memcpy(b, a, alen < sizeof b ? alen : sizeof b);
	caller.uid = ids[b[0] % 3];
	caller.gid = ids[b[1] % 3];
	caller_ngroups = 0;
	/* (sorted, as the kernel lists them: these first) */
	if (b[2] & 8)
		for (int i = 0; i < 70; i++)
			caller_groups[caller_ngroups++] = 100 + (gid_t)i;
	for (int k = 0; k < 3; k++)
		if (b[2] >> k & 1)
			caller_groups[caller_ngroups++] = 1000 + (gid_t)k;
	caller_daemon_root = b[5] >> 6 & 1;
	node_procname(&dirs[d], proc);
	if (chmod(proc, (mode_t)(b[3] | (b[4] & 15) << 8)) < 0 ||
	    chown(proc, ids[(b[5] & 3) % 3], ids[(b[5] >> 2 & 3) % 3]) < 0)
		fail("cannot set a directory's permissions", NULL, NULL);
	owner = ids[(b[5] >> 4 & 3) % 3];
	for (size_t i = 0; i < before[d].n; i++)
		if (fchownat(dirs[d].fd, before[d].name[i], owner, (gid_t)-1,
			     AT_SYMLINK_NOFOLLOW) < 0)
			fail("cannot chown an entry", before[d].name[i], NULL);
}

/* What rename(2) says to the caller about moving stored name `name` out
 * of d and a new name in: the kernel's answer to the caller's own rename
 * (to a name that is not there), undone at once.  0 or an errno. */
static int caller_may_rename(int d, const char *name)
{
	char tmp[32];
	gid_t saved[64];
	int nsaved = getgroups(64, saved), e, k = 0;

	do
		snprintf(tmp, sizeof tmp, "probe.%d", k++);
	while (find_exact(&before[d], tmp) >= 0);
	if (nsaved < 0 ||
	    syscall(SYS_setgroups, (size_t)caller_ngroups, caller_groups) < 0)
		fail("setgroups", NULL, NULL);
	syscall(SYS_setfsgid, caller.gid);
	syscall(SYS_setfsuid, caller.uid);
	e = syscall(SYS_renameat2, dirs[d].fd, name, dirs[d].fd, tmp,
		    RENAME_NOREPLACE) < 0 ? errno : 0;
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, 0);
	if (syscall(SYS_setgroups, (size_t)nsaved, saved) < 0)
		fail("setgroups", NULL, NULL);
	if (!e && syscall(SYS_renameat2, dirs[d].fd, tmp, dirs[d].fd, name,
			  RENAME_NOREPLACE) < 0)
		fail("cannot undo the caller's rename", name, tmp);
	return e;
}

/* as_caller: by the caller of the last 'i' record (root otherwise). */
static void do_respell(int d, const char *from, const char *to, int unterm,
		       int as_caller)
{
	struct foldfs_respell arg;
	int e = bad_field(from, 0), j = -1;

	if (!e)
		e = bad_field(to, unterm);
	want_from_before();
	if (!e && !folds(d))
		e = EINVAL;
	if (!e && (j = denotes(d, &before[d], from)) < 0)
		e = ENOENT;
	if (!e && (F.rec.flags & FOLD_STRICT) && !well_formed(to))
		e = EINVAL;
	if (!e && !same_key(to, before[d].name[j]))
		e = EINVAL;
	if (!e && strcmp(to, before[d].name[j])) {
		int perm = as_caller ? caller_may_rename(d, before[d].name[j])
				     : 0;
		int taken = find_exact(&before[d], to) >= 0;

		/* a daemon that is not root checks the permissions before
		 * it looks for `to`; a root one looks, then renames as the
		 * caller */
		if (d == 0 &&
		    (hidden(d, to) || same_key(to, FOLDFS_RECORD_NAME)))
			e = EPERM;
		else if (as_caller && !caller_daemon_root && perm)
			e = perm;
		else if (taken)
			e = EEXIST;
		else if (perm)
			e = perm;
		else {
			want_del(d, before[d].name[j]);
			want_set(d, to, before[d].ino[j], before[d].type[j]);
		}
	}
	field(arg.from, from, 0);
	field(arg.to, to, unterm);
	got_err = -1;
	if (as_caller) {
		g_ctx = caller;
		memcpy(g_groups, caller_groups, sizeof g_groups);
		g_ngroups = caller_ngroups;
		F.switch_creds = caller_daemon_root;
	}
	respell_ioctl(NULL, &dirs[d], &arg, sizeof arg);
	memset(&g_ctx, 0, sizeof g_ctx);
	g_ngroups = 0;
	F.switch_creds = 1;
	expect_err(e, as_caller ? "respell as the caller" : "respell", from,
		   to);
	check_listing();
}

/* ---- changes made in SOURCE ---- */

/* Remove stored name `name` of directory fd dfd, a directory with what
 * is in it (one level: what the fuzzer makes).  0 or -1. */
static int remove_entry_at(int dfd, const char *name)
{
	int fd;
	DIR *dir;
	struct dirent *de;

	if (unlinkat(dfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(dir);
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

/* A change made directly in SOURCE, reported to the index (deletions
 * only if `report`): kind 'o' a file, 'f' a directory with a file in
 * it, 'k' a removal. */
static void external(int d, const char *name, int kind, int report)
{
	int r;

	if (hidden(d, name))
		return; /* the record stays */
	if (kind == 'o') {
		int fd = openat(dirs[d].fd, name,
				O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		r = fd;
		if (fd >= 0)
			close(fd);
	} else if (kind == 'f') {
		r = mkdirat(dirs[d].fd, name, 0755);
		if (r == 0) {
			int fd = openat(dirs[d].fd, name,
					O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (fd < 0 || mknodat(fd, "in", S_IFREG | 0644, 0) < 0)
				fail("cannot fill a new directory", name, NULL);
			close(fd);
		}
	} else {
		r = remove_entry_at(dirs[d].fd, name);
	}
	if (r < 0 || (kind == 'k' && !report))
		return;
	for (size_t k = 0; k < npend[d]; k++)
		if (!strcmp(pend[d][k], name)) {
			pend_unlinked[d][k] = kind == 'k';
			return;
		}
	if (npend[d] < PEND_MAX) {
		pend_unlinked[d][npend[d]] = kind == 'k';
		strcpy(pend[d][npend[d]++], name);
	} else {
		overflow[d] = 1;
	}
}

/* ---- the sweep of indexes of removed directories ---- */

static uint64_t sweep_at; /* when the last sweep acted */
static char other_path[512];

static void open_other(void)
{
	dirs[1].fd = open(other_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirs[1].fd < 0)
		fail("open", other_path, NULL);
}

static void check_holds(void)
{
	for (int d = 0; d < 2; d++) {
		const char *w = holds_wrong(refs[d], ds[d].idx != NULL);
		if (w)
			fail(w, NULL, NULL);
	}
}

static void do_sweep(unsigned char b)
{
	int gone = b & 1, had[2];

	forgotten[0] = b >> 1 & 1;
	forgotten[1] = b >> 2 & 1;
	fake_ns += (uint64_t)(b >> 3 & 3) * 500000000u;
	if (gone) {
		list_read(1, &before[1]);
		for (size_t i = 0; i < before[1].n; i++)
			if (remove_entry_at(dirs[1].fd, before[1].name[i]) < 0)
				fail("cannot empty a directory",
				     before[1].name[i], NULL);
		if (rmdir(other_path) < 0)
			fail("rmdir", other_path, NULL);
	}
	for (int d = 0; d < 2; d++)
		had[d] = ds[d].idx != NULL;
	idx_sweep_gone();
	int acts = fake_ns - sweep_at >= 1000000000u;

	if (acts)
		sweep_at = fake_ns;
	for (int d = 0; d < 2; d++) {
		int keep = had[d] && !(acts && d == 1 && gone && forgotten[d]);

		if ((ds[d].idx != NULL) != keep)
			fail(keep ? "the sweep dropped an index it had to keep"
				  : "the sweep kept the index of a directory "
				    "removed and forgotten",
			     NULL, NULL);
	}
	forgotten[0] = forgotten[1] = 0;
	check_holds();
	if (gone) {
		/* forgotten at last; a new directory in its place */
		dir_index_drop(&dirs[1]);
		close(dirs[1].fd);
		if (mkdir(other_path, 0755) < 0)
			fail("mkdir", other_path, NULL);
		open_other();
		npend[1] = 0;
		overflow[1] = 0;
	}
}

/* ---- setup ---- */

/* Each directory as a run starts: empty, 0755, root's, no index. */
static void reset_dir(int d)
{
	char proc[64];

	dir_index_drop(&dirs[d]);
	node_procname(&dirs[d], proc);
	if (chmod(proc, 0755) < 0 || (geteuid() == 0 && chown(proc, 0, 0) < 0))
		fail("cannot reset a directory's permissions", NULL, NULL);
	list_read(d, &before[d]);
	for (size_t i = 0; i < before[d].n; i++)
		if (remove_entry_at(dirs[d].fd, before[d].name[i]) < 0)
			fail("cannot empty a directory", before[d].name[i],
			     NULL);
}

static void cleanup(void)
{
	char p[512];

	for (int d = 0; d < 2; d++) {
		reset_dir(d);
		close(dirs[d].fd);
	}
	snprintf(p, sizeof p, "%s/root", base);
	rmdir(p);
	rmdir(other_path);
	rmdir(base);
}

static void setup(void)
{
	static const char *const sub[2] = { "root", "other" };

	const char *tmp = getenv("TMPDIR"), *err;

	snprintf(base, sizeof base, "%s/fuzz-names.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		fail("mkdtemp", NULL, NULL);
	for (int d = 0; d < 2; d++) {
		char p[512];

		snprintf(p, sizeof p, "%s/%s", base, sub[d]);
		if (mkdir(p, 0755) < 0)
			fail("mkdir", p, NULL);
		dirs[d].fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirs[d].fd < 0)
			fail("open", p, NULL);
		dirs[d].type = S_IFDIR;
		dirs[d].dir = &ds[d];
		pthread_rwlock_init(&ds[d].ns, NULL);
		pthread_mutex_init(&ds[d].ilock, NULL);
		ds[d].wd = -1;
	}
	snprintf(other_path, sizeof other_path, "%s/other", base);
	/* the daemon's credentials, as creds.c takes them at start */
	if ((err = fz_creds_start()))
		fail(err, NULL, NULL);
	/* (a whiteout needs root, and a file system that makes them) */
	if (geteuid() == 0) {
		int fd = openat(dirs[0].fd, "w", O_WRONLY | O_CREAT | O_CLOEXEC,
				0644);

		close(fd);
		have_whiteout = syscall(SYS_renameat2, dirs[0].fd, "w",
					dirs[0].fd, "w2", RENAME_WHITEOUT) == 0;
		unlinkat(dirs[0].fd, "w", 0);
		unlinkat(dirs[0].fd, "w2", 0);
	}
	if (mkdirat(dirs[0].fd, "a", 0755) == 0 &&
	    mkdirat(dirs[0].fd, "b", 0755) == 0 &&
	    mkdirat(dirs[0].fd, "b/c", 0755) == 0 &&
	    renameat(dirs[0].fd, "a", dirs[0].fd, "b") < 0 &&
	    (errno == EEXIST || errno == ENOTEMPTY))
		nonempty_err = errno;
	unlinkat(dirs[0].fd, "b/c", AT_REMOVEDIR);
	unlinkat(dirs[0].fd, "b", AT_REMOVEDIR);
	unlinkat(dirs[0].fd, "a", AT_REMOVEDIR);
	atexit(cleanup);
}

/* An encoding and flags as a record holds them: low 5 bits a Unicode
 * version by index (past the last: "ascii"), then strict, compat,
 * ignorables.  -1 for a pair libfold refuses. */
static int fuzz_enc(unsigned char sel)
{
	const char *const *v;
	size_t nv = fold_unicode_versions(&v);
	size_t i = (sel & 31u) % (nv + 1);
	char enc[32];

	if (i == nv)
		snprintf(enc, sizeof enc, "ascii");
	else
		snprintf(enc, sizeof enc, "utf8-%s", v[i]);
	F.rec.flags = (sel & 32u ? FOLD_STRICT : 0) |
		      (sel & 64u ? FOLD_COMPAT : 0) |
		      (sel & 128u ? FOLD_IGNORABLES : 0);
	if (fold_init(&F.ctx, enc, FOLD_CASEFOLD, F.rec.flags) != 0)
		return -1;
	kctx = F.ctx;
	kctx.flags &= ~FOLD_STRICT;
	return 0;
}

/* s with its ASCII letters in upper (up) or lower case. */
static void recase(const char *s, char *out, int up)
{
	for (; *s; s++)
		*out++ = (char)(up ? (*s >= 'a' && *s <= 'z' ? *s - 32 : *s)
				   : (*s >= 'A' && *s <= 'Z' ? *s + 32 : *s));
	*out = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 2;
	unsigned opt;

	if (!base[0])
		setup();
	if (size < 2 || fuzz_enc(data[0]) < 0)
		return 0;
	opt = data[1];
	memset(&F.seed, 0x5a, sizeof F.seed);
	F.switch_creds = 1;
	F.index_mem = opt & 16 ? 1 : (size_t)64 << 20;
	F.casefold_all = (opt & 64) != 0;
	mark_fail = (opt & 32) != 0;
	memset(&caller, 0, sizeof caller);
	caller_ngroups = 0;
	caller_daemon_root = 1;
	/* any sweep of an earlier run is more than a second ago */
	fake_ns += 2000000000u;
	sweep_at = 0;
	for (int d = 0; d < 2; d++) {
		reset_dir(d);
		atomic_store(&ds[d].fold, (int)(opt >> d & 1));
		ds[d].poll = (opt & 8) != 0;
		ds[d].verify_at = 0;
		npend[d] = 0;
		overflow[d] = 0;
	}
	check_holds();
	int fd = openat(dirs[0].fd, FOLDFS_RECORD_NAME,
			O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		fail("cannot write the record", NULL, NULL);
	close(fd);

	while (pos < size) {
		const uint8_t *end = memchr(data + pos, 0, size - pos);
		size_t rec = end ? (size_t)(end - (data + pos)) : size - pos;
		char a[NAME_BUF], b[NAME_BUF];
		const char *slash;
		unsigned char op = data[pos];
		int d = op >= 'A' && op <= 'Z', other = !d;
		size_t alen, blen = 0;

		g_at = pos;
		alen = rec ? rec - 1 : 0;
		slash = alen ? memchr(data + pos + 1, '/', alen) : NULL;
		if (slash) {
			blen = alen - (size_t)(slash - (const char *)data - pos - 1) - 1;
			alen -= blen + 1;
			if (blen > NAME_BUF - 1)
				blen = NAME_BUF - 1;
			memcpy(b, slash + 1, blen);
		}
		b[blen] = 0;
		if (alen > NAME_BUF - 1)
			alen = NAME_BUF - 1;
		memcpy(a, data + pos + 1, alen);
		a[alen] = 0;
		pos += rec + 1;
		/* what the kernel never sends (respell takes anything) */
		int plain = *a && strcmp(a, ".") && strcmp(a, "..");
		int plain2 = *b && strcmp(b, ".") && strcmp(b, "..") &&
			     !strchr(b, '/');

		for (int k = 0; k < 2; k++)
			list_read(k, &before[k]);
		switch (op | 32) {
		case 'l':
			if (plain)
				do_lookup(d, a);
			break;
		case 'm':
			if (plain)
				do_mknod(d, a);
			break;
		case 'd':
			if (plain)
				do_mkdir(d, a);
			break;
		case 's':
			if (plain && *b)
				do_symlink(d, a, b);
			break;
		case 'h':
		case 'j':
			if (plain && plain2)
				do_link(d, a, (op | 32) == 'j' ? other : d, b);
			break;
		case 'c':
		case 'e':
			if (plain)
				do_create(d, a, (op | 32) == 'e');
			break;
		case 'u':
			if (plain)
				do_unlink(d, a);
			break;
		case 'v':
			if (plain)
				do_rmdir(d, a);
			break;
		case 'p':
		case 't':
			do_respell(d, a, b, (op | 32) == 't', 0);
			break;
		case 'i':
			if (geteuid() == 0)
				set_caller(d, (const unsigned char *)a, alen);
			break;
		case 'q':
			if (geteuid() == 0)
				do_respell(d, a, b, 0, 1);
			break;
		case 'o':
		case 'f':
		case 'k':
			if (plain)
				external(d, a, op | 32, !(opt & 4));
			break;
		case 'r':
		case 'n':
		case 'w':
		case 'x':
			if (plain && plain2)
				do_rename(d, a, (op | 32) == 'x' ? other : d, b,
					  (op | 32) == 'n'   ? RENAME_NOREPLACE
					  : (op | 32) == 'w' ? RENAME_EXCHANGE
							     : 0);
			break;
		case 'y':
		case 'z':
			if (plain && plain2 && have_whiteout)
				do_rename(d, a, (op | 32) == 'z' ? other : d, b,
					  (op | 32) == 'z'
						  ? RENAME_WHITEOUT |
							    RENAME_NOREPLACE
						  : RENAME_WHITEOUT);
			break;
		case 'g':
			do_sweep(alen ? (unsigned char)a[0] : 0);
			break;
		default:
			break;
		}
		check_holds();
	}
	/* every stored name, in upper and in lower case */
	for (int d = 0; d < 2; d++) {
		list_read(d, &before[d]);
		for (size_t i = 0; i < before[d].n; i++) {
			char s[NAME_BUF];

			g_at = size;
			for (int up = 0; up < 2; up++) {
				recase(before[d].name[i], s, up);
				do_lookup(d, s);
			}
		}
	}
	return 0;
}
