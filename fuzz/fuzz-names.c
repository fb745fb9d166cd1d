/*
 * fuzz-names.c - the daemon's name handling in its namespace calls:
 * lookup, mknod, create, unlink and rename (fs/ops_entry.c) and
 * FOLDFS_IOC_RESPELL (fs/respell.c), with resolve.c and dirindex.c under
 * them, run on a real SOURCE: two directories in a scratch directory, the
 * view root (holding the record .foldfs) and another one ($TMPDIR, else
 * /tmp).
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
 *    opens that entry);
 *  - unlink removes the entry the spelling denotes; rename moves it onto
 *    the name given, or onto the entry newname denotes with newname's
 *    spelling (EEXIST with RENAME_NOREPLACE), or just respells it when
 *    that is the entry itself; RENAME_EXCHANGE swaps the two entries;
 *  - respell refuses empty, ".", "..", "/" and unterminated names, plain
 *    directories, a `to` not equivalent to the entry, the record's
 *    spellings at the root (EPERM) and a `to` stored already (EEXIST);
 *  - the call answers with the error the rule gives and changes SOURCE
 *    exactly as the rule says (names and inode numbers compared).
 * Changes made directly in SOURCE are reported to the index as watch.c
 * does (per name, as inotify, or by marking the index stale, as polling),
 * deletions only when input says so: a stale index entry must then not
 * change any answer.  At the end every stored name is looked up in upper
 * and in lower case.
 *
 * Input: byte 0 the encoding and flags (fuzz_enc below), byte 1 options:
 * bit 0 the root folds, bit 1 the other directory folds, bit 2 deletions
 * made in SOURCE go unreported, bit 3 polling, bit 4 an index budget of
 * one byte (each index built evicts the other).  Then NUL-separated
 * records: an opcode and a name, or two names split at the first '/':
 *   l L  lookup              m M  mknod            c C  create (O_CREAT)
 *   e E  create (O_EXCL)     u U  unlink           p P  respell from/to
 *   t T  respell, `to` unterminated                o O  create in SOURCE
 *   k K  unlink in SOURCE    r R  rename in the directory
 *   n N  rename, RENAME_NOREPLACE                  w W  RENAME_EXCHANGE
 *   x X  rename into the other directory
 * lower case in the root, upper case in the other one.
 *
 * The daemon's other modules are stubbed here, and so are libfuse's
 * replies (they only record the answer).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "foldfs.h"
#include "foldfs_ioctl.h"
#include "respell.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

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
static struct node dirs[2], leaf = { .type = S_IFREG };
static char base[256];

/* Changes made in SOURCE not yet seen by the index, per directory. */
#define PEND_MAX 64
static char pend[2][PEND_MAX][NAME_BUF];
static size_t npend[2];
static int overflow[2]; /* more than that: events lost (IN_Q_OVERFLOW) */

/* What the last call answered. */
static int got_err;		/* -1: no reply yet */
static ino_t got_ino;		/* the entry of the reply */

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
	(void)d;
	(void)on;
}

void fold_refresh(struct node *d)
{
	(void)d;
}

struct node *node_get(int fd, const struct stat *st)
{
	got_ino = st->st_ino;
	close(fd);
	return &leaf;
}

struct node *node_find(const struct stat *st)
{
	(void)st;
	return NULL;
}

void node_forget(struct node *n, uint64_t nlookup)
{
	(void)n;
	(void)nlookup;
}

void node_hold(struct node *n)
{
	(void)n;
}

void node_put(struct node *n)
{
	(void)n;
}

int node_hold_if_forgotten(struct node *n)
{
	(void)n;
	return 0;
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

void watch_dir(struct node *d)
{
	(void)d;
}

void watch_unwatch(struct node *d)
{
	(void)d;
}

void watch_stamps_after(struct node *d, const struct dir_stamp *pre)
{
	(void)d;
	(void)pre;
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
			dir_index_recheck(d, pend[i][k]);
	}
	npend[i] = 0;
	overflow[i] = 0;
}

int prune_openat(int dfd, const char *name)
{
	return openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

int prune_wait(int err)
{
	(void)err;
	return 0;
}

int prune_negative_ok(void)
{
	return 1;
}

int creds_enter(fuse_req_t req, struct creds *c)
{
	(void)req;
	c->switched = 0;
	return 0;
}

/* setattr's truncation: as root, SOURCE has no set-ID bits to drop here */
int file_as_writer(fuse_req_t req, int fd, struct creds *c)
{
	(void)req;
	(void)fd;
	c->switched = 0;
	return 0;
}

void creds_leave(struct creds *c)
{
	(void)c;
}

/* the fuzzed daemon is root (switch_creds): SOURCE checks the caller */
int creds_sticky(fuse_req_t req, struct node *d, const struct stat *ent)
{
	(void)req;
	(void)d;
	(void)ent;
	return 0;
}

void file_undirect(int fd)
{
	(void)fd;
}

int foldfs_dir_casefold_set(int dirfd, int on)
{
	(void)dirfd;
	(void)on;
	return 0;
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

void coh_inval_async(fuse_ino_t parent, const char *name)
{
	(void)parent;
	(void)name;
}

void coh_inval_wait(void)
{
}

void dlog(const char *fmt, ...)
{
	(void)fmt;
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
	static const struct fuse_ctx root = { 0 };

	(void)req;
	return &root;
}

int fuse_req_getgroups(fuse_req_t req, int size, gid_t list[])
{
	(void)req;
	(void)size;
	(void)list;
	return 0;
}

/* ---- SOURCE's listing and the rules ---- */

#define LIST_MAX 320

struct listing {
	size_t n;
	char name[LIST_MAX][NAME_BUF];
	ino_t ino[LIST_MAX];
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
	int best = -1, i = find_exact(l, name);
	size_t kl;
	char *k;

	if (hidden(d, name))
		return -1;
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
	}
}

/* ino 0: a new inode, whatever its number. */
static void want_set(int d, const char *name, ino_t ino)
{
	int i = find_exact(&want[d], name);

	if (i < 0) {
		i = (int)want[d].n++;
		strcpy(want[d].name[i], name);
	}
	want[d].ino[i] = ino;
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

static void do_mknod(int d, const char *name)
{
	int e = create_refusal(d, name);

	want_from_before();
	if (!e && denotes(d, &before[d], name) >= 0)
		e = EEXIST;
	if (!e)
		want_set(d, name, 0);
	got_err = -1;
	op_mknod(NULL, node_id(&dirs[d]), name, S_IFREG | 0644, 0);
	expect_err(e, "mknod", name, NULL);
	check_listing();
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
		else if (j < 0)
			want_set(d, name, 0);
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
	int j = denotes(d, &before[d], name);

	want_from_before();
	if (j >= 0)
		want_del(d, before[d].name[j]);
	got_err = -1;
	op_unlink(NULL, node_id(&dirs[d]), name);
	expect_err(j >= 0 ? 0 : ENOENT, "unlink", name, NULL);
	check_listing();
}

static void do_rename(int d1, const char *name, int d2, const char *newname,
		      unsigned flags)
{
	int e = 0, j, t = -1;

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
	if (e) {
		/* refused */
	} else if (flags & RENAME_EXCHANGE) {
		if (t < 0) {
			e = ENOENT;
		} else if (!(d1 == d2 && t == j)) {
			/* both stored names stay; their entries swap */
			want_set(d1, before[d1].name[j], before[d2].ino[t]);
			want_set(d2, before[d2].name[t], before[d1].ino[j]);
		}
	} else if (t >= 0 && strcmp(before[d2].name[t], newname)) {
		/* newname is another spelling of an entry */
		if (d1 == d2 && t == j) {
			want_del(d1, before[d1].name[j]);
			want_set(d2, newname, before[d1].ino[j]);
		} else if (flags & RENAME_NOREPLACE) {
			e = EEXIST;
		} else {
			want_del(d1, before[d1].name[j]);
			want_del(d2, before[d2].name[t]);
			want_set(d2, newname, before[d1].ino[j]);
		}
	} else if (t >= 0 && (flags & RENAME_NOREPLACE)) {
		e = EEXIST;
	} else if (!(t >= 0 && d1 == d2 && t == j)) {
		want_del(d1, before[d1].name[j]);
		want_set(d2, newname, before[d1].ino[j]);
	}
	got_err = -1;
	op_rename(NULL, node_id(&dirs[d1]), name, node_id(&dirs[d2]), newname,
		  flags);
	expect_err(e, flags & RENAME_EXCHANGE	  ? "rename (exchange)"
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

static void do_respell(int d, const char *from, const char *to, int unterm)
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
		if (d == 0 && (hidden(d, to) || same_key(to, FOLDFS_RECORD_NAME)))
			e = EPERM;
		else if (find_exact(&before[d], to) >= 0)
			e = EEXIST;
		else {
			want_del(d, before[d].name[j]);
			want_set(d, to, before[d].ino[j]);
		}
	}
	field(arg.from, from, 0);
	field(arg.to, to, unterm);
	got_err = -1;
	respell_ioctl(NULL, &dirs[d], &arg, sizeof arg);
	expect_err(e, "respell", from, to);
	check_listing();
}

/* A change made directly in SOURCE, reported to the index (deletions
 * only if `report`). */
static void external(int d, const char *name, int create, int report)
{
	int r;

	if (hidden(d, name))
		return; /* the record stays */
	if (create) {
		int fd = openat(dirs[d].fd, name,
				O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		r = fd;
		if (fd >= 0)
			close(fd);
	} else {
		r = unlinkat(dirs[d].fd, name, 0);
	}
	if (r < 0 || (!create && !report))
		return;
	if (npend[d] < PEND_MAX)
		strcpy(pend[d][npend[d]++], name);
	else
		overflow[d] = 1;
}

/* ---- setup ---- */

static void cleanup(void)
{
	for (int d = 0; d < 2; d++) {
		list_read(d, &before[d]);
		for (size_t i = 0; i < before[d].n; i++)
			unlinkat(dirs[d].fd, before[d].name[i], 0);
		close(dirs[d].fd);
	}
	char p[512];
	snprintf(p, sizeof p, "%s/root", base);
	rmdir(p);
	snprintf(p, sizeof p, "%s/other", base);
	rmdir(p);
	rmdir(base);
}

static void setup(void)
{
	static const char *const sub[2] = { "root", "other" };

	const char *tmp = getenv("TMPDIR");

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
	for (int d = 0; d < 2; d++) {
		dir_index_drop(&dirs[d]);
		list_read(d, &before[d]);
		for (size_t i = 0; i < before[d].n; i++)
			if (unlinkat(dirs[d].fd, before[d].name[i], 0) < 0)
				fail("cannot empty a directory",
				     before[d].name[i], NULL);
		atomic_store(&ds[d].fold, (int)(opt >> d & 1));
		ds[d].poll = (opt & 8) != 0;
		ds[d].verify_at = 0;
		npend[d] = 0;
		overflow[d] = 0;
	}
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
		case 'c':
		case 'e':
			if (plain)
				do_create(d, a, (op | 32) == 'e');
			break;
		case 'u':
			if (plain)
				do_unlink(d, a);
			break;
		case 'p':
		case 't':
			do_respell(d, a, b, (op | 32) == 't');
			break;
		case 'o':
		case 'k':
			if (plain)
				external(d, a, (op | 32) == 'o', !(opt & 4));
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
		default:
			break;
		}
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
