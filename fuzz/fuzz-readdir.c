/*
 * fuzz-readdir.c - the daemon's directory listing: opendir, readdir,
 * readdirplus, fsyncdir and releasedir (fs/ops_dir.c), run on a real
 * SOURCE in a scratch directory ($TMPDIR, else /tmp): the view root
 * (holding the record .foldfs, folding or not) with a folding
 * subdirectory "fold" and a plain one "plain".
 *
 * libfuse's own fuse_add_direntry() and fuse_add_direntry_plus() encode
 * the entries; its replies are stubbed and record what the kernel would
 * get, which is checked, after every call, against SOURCE's own listing
 * (getdents64 on the same directory, read again after every change made
 * in it):
 *  - a reply is never larger than the size asked, and is whole entries;
 *  - a listing from offset 0 gives SOURCE's entries ("." and ".."
 *    included) in SOURCE's order, byte for byte, with their inode numbers
 *    (node_view_ino), types and d_off cookies, minus the record at the
 *    root only, as many as fit: an entry is left out only when it does not
 *    fit in what is left of the size (a reply too small for one is empty).
 *    (On ext4 a descriptor whose first getdents64 is at the end cookie
 *    lists nothing at the next one at 0: SOURCE does that too, so the
 *    daemon's first reply at 0 after such a start may be empty);
 *  - resuming at an offset the daemon handed out (or any cookie SOURCE
 *    lists) continues with the entry after the one it belongs to, as long
 *    as SOURCE did not change since that handle last started from offset
 *    0 (rewinddir must see the directory as it is then).  After a change,
 *    or at a garbage offset, the daemon may answer an error or entries it
 *    read earlier: each must then be a name SOURCE listed at some time in
 *    this run, with the inode and type it had (readdirplus: the node of
 *    what has that name now), never the record at the root;
 *  - readdirplus: "." and ".." carry no entry; other names carry one (a
 *    node, its lookup count raised once) with the attributes of the real
 *    file, unless the node table is under pressure (prune_pressure) or
 *    making the node fails; then only the name, with d_ino and d_type.
 *    The entry timeout is what a lookup gives (entry_fill, stubbed as
 *    under cache=epoch, where lookups cache every entry), but 0 for a
 *    non-directory in a folding directory (coherence.c);
 *  - nodes: after an accepted reply the kernel holds exactly the entries
 *    in it; after one the kernel did not take (fuse_reply_buf fails) it
 *    holds none; every call replies once; no descriptor is left open
 *    after releasedir (a failed fuse_reply_open included), no memory
 *    (LeakSanitizer);
 *  - failures: without memory opendir and readdir answer ENOMEM; a
 *    getdents64 that fails ends a reply early, or is its answer if nothing
 *    was listed yet, and the listing goes on where it stopped; at the
 *    descriptor limit opendir answers EMFILE and readdirplus may give
 *    names only; fsyncdir syncs a descriptor of its directory once and
 *    answers its result.
 *
 * Input: byte 0 options: bit 0 the root folds, bit 1 -o noatime, bit 2
 * the final listings use readdirplus.  Then steps, an opcode byte (its
 * value mod 9) and its argument bytes; SLOT is one of four directory
 * handles, DIR one of root, fold, plain (value mod 3):
 *   0 create  [DIR | kind << 2 (file, directory, symlink, fifo)]
 *             [name piece] [suffix]   (names: see piece[] below)
 *   1 remove  [DIR] [which: an index into what is there]
 *   2 opendir [SLOT | DIR << 2 | fuse_reply_open fails << 4 (bit 4 and 5)]
 *   3 readdir [SLOT | plus << 2 | reply not taken << 3 (bits 3, 4, 5)]
 *             [SIZE] [OFFSET (+ 8 bytes for a raw one)]
 *   4 list on from where the handle is until an empty reply
 *             [SLOT | plus << 2] [SIZE]
 *   5 releasedir [SLOT]
 *   6 many long names [DIR] [count] [length]: enough for several of the
 *             daemon's 32 KiB buffers
 *   7 failures [bit 0 prune_pressure, bit 1 making a node fails, bit 2
 *             the daemon's allocations fail, bit 3 its next getdents64
 *             fails (EIO), bit 4 a descriptor limit: bits 5-6 more
 *             descriptors the daemon may open]
 *   8 fsyncdir [SLOT | datasync << 2 | it fails (EIO) << 3]
 * SIZE: 0..477 in steps of 3, then up to 8380 in steps of 100, then
 * multiples of 4096, and 131072.  OFFSET by its low 3 bits: where the
 * handle is (the kernel's position), 0, an offset handed out earlier in
 * this directory, a cookie of SOURCE's listing, such a cookie plus or
 * minus a little, 8 raw bytes, or past the end / negative.
 * At the end every handle is released and each directory listed from
 * offset 0 by a fresh handle.  FUZZ_READDIR_TRACE=1 in the environment
 * prints the calls.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/fuse.h> /* the reply's wire format */

#include "foldfs.h"

struct foldfs F;

/* What entry_fill gives: a lookup's timeouts under cache=epoch. */
#define LOOKUP_TIMEOUT 2.5
#define ATTR_TIMEOUT 3.0

static size_t g_at; /* the input byte being run, for messages */
static int trace;   /* FUZZ_READDIR_TRACE=1: print the calls */

static void fail(const char *what, const char *name)
{
	fprintf(stderr, "fuzz-readdir: %s at input byte %zu\n", what, g_at);
	if (name)
		fprintf(stderr, "  name: '%s'\n", name);
	abort();
}

/* ---- the three directories and the stubbed daemon ---- */

#define NDIR 3
static struct dirstate ds[NDIR];
static struct node dirs[NDIR];
static char base[256];
static char spare[300]; /* base/spare, what option 6 links */
static int pressure, fill_fails;
/* What fails in the daemon's calls: its allocations, its next
 * getdents64 (once), descriptors beyond fd_slack more (-1: no limit). */
static int nomem, eio_next, eio_hit, fd_slack = -1;
static int gd_calls, gd_listed; /* its getdents64 calls, those that listed */
static struct rlimit saved_lim;

/* Nodes handed out by entry_fill and not forgotten yet, and what was
 * made during the current call (a node forgotten within it is gone). */
static struct node *live;
static size_t nlive;
#define MADE_MAX 1024
static struct made {
	uint64_t id;
	dev_t dev;
	ino_t ino;
} made[MADE_MAX];
static size_t nmade;

struct node *node_root(void)
{
	return &dirs[0];
}

int dir_folds(struct node *d)
{
	return d->dir && atomic_load(&d->dir->fold) == 1;
}

/* As resolve.c's rule: the record is invisible at the view root only. */
int name_hidden(struct node *d, const char *name)
{
	return d == node_root() && !strcmp(name, FOLDFS_RECORD_NAME);
}

/* Not the identity, so that a raw d_ino shows. */
ino_t node_view_ino(dev_t dev, ino_t ino)
{
	return ino ^ (ino_t)((uint64_t)dev << 40) ^ ((ino_t)1 << 62);
}

int prune_pressure(void)
{
	return pressure;
}

/* As ops_entry.c's, with a node of its own per entry. */
int entry_fill(struct node *d, int fd, const struct stat *st, uint64_t mnt,
	       struct fuse_entry_param *e)
{
	struct node *n = fill_fails ? NULL : calloc(1, sizeof *n);

	(void)d;
	(void)mnt;
	close(fd);
	memset(e, 0, sizeof *e);
	if (!n)
		return -ENOMEM;
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->type = st->st_mode & S_IFMT;
	n->nlookup = 1;
	n->gen = 7;
	n->hnext = live;
	live = n;
	nlive++;
	if (nmade == MADE_MAX)
		fail("more nodes made in a call than entries fit", NULL);
	made[nmade++] = (struct made){ node_id(n), st->st_dev, st->st_ino };
	e->ino = node_id(n);
	e->generation = n->gen;
	e->attr = *st;
	e->attr.st_ino = node_view_ino(st->st_dev, st->st_ino);
	e->attr_timeout = ATTR_TIMEOUT;
	e->entry_timeout = LOOKUP_TIMEOUT;
	return 0;
}

void node_forget(struct node *n, uint64_t nlookup)
{
	struct node **p = &live;

	while (*p && *p != n)
		p = &(*p)->hnext;
	if (!*p)
		fail("node_forget of a node never handed out", NULL);
	if (nlookup != 1 || n->nlookup != 1)
		fail("node_forget of a count other than the one given", NULL);
	*p = n->hnext;
	nlive--;
	free(n);
}

/* ---- libfuse's replies: recorded ---- */

static int nreplies, reply_err, reply_fails;
static char *reply;	/* the last buffer, copied */
static size_t reply_len;

int fuse_reply_err(fuse_req_t req, int err)
{
	(void)req;
	nreplies++;
	reply_err = err;
	return 0;
}

int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size)
{
	(void)req;
	nreplies++;
	reply_err = 0;
	free(reply);
	reply = malloc(size ? size : 1);
	if (!reply)
		fail("out of memory", NULL);
	memcpy(reply, buf, size);
	reply_len = size;
	return reply_fails ? -ENOENT : 0;
}

int fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi)
{
	(void)req;
	(void)fi;
	nreplies++;
	reply_err = 0;
	return reply_fails ? -ENOENT : 0;
}

/* ops_dir.o's fsync and fdatasync (objcopy'ed, fuzz-fs.mk): no journal
 * commit per call.  The descriptor must be one of the directory synced,
 * and the error the input asks for is fsyncdir's answer. */
static int sync_dir, sync_err, sync_calls, sync_data;

static int fake_sync(int fd, int data)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || st.st_ino != dirs[sync_dir].ino ||
	    st.st_dev != dirs[sync_dir].dev)
		fail("fsyncdir synced another descriptor", NULL);
	sync_calls++;
	sync_data = data;
	if (sync_err) {
		errno = sync_err;
		return -1;
	}
	return 0;
}

int fuzz_fsync(int fd)
{
	return fake_sync(fd, 0);
}

int fuzz_fdatasync(int fd)
{
	return fake_sync(fd, 1);
}

/* ops_dir.o's malloc and getdents64 (objcopy'ed, fuzz-fs.mk). */
void *fuzz_malloc(size_t n)
{
	return nomem ? NULL : malloc(n);
}

ssize_t fuzz_getdents64(int fd, void *buf, size_t n)
{
	if (eio_next) {
		eio_next = 0;
		eio_hit = 1;
		errno = EIO;
		return -1;
	}
	ssize_t r = getdents64(fd, buf, n);

	gd_calls++;
	gd_listed += r > 0;
	return r;
}

/* Around a call of the daemon's: near the descriptor limit. */
static void limit_fds(void)
{
	struct rlimit r;
	int low;

	eio_hit = gd_calls = gd_listed = 0;
	if (fd_slack < 0)
		return;
	low = fcntl(dirs[0].fd, F_DUPFD_CLOEXEC, 0);
	if (low < 0 || getrlimit(RLIMIT_NOFILE, &saved_lim) < 0)
		fail("cannot read the descriptor limit", NULL);
	close(low);
	r = saved_lim;
	r.rlim_cur = (rlim_t)(low + fd_slack);
	if (setrlimit(RLIMIT_NOFILE, &r) < 0)
		fail("cannot set the descriptor limit", NULL);
}

static void unlimit_fds(void)
{
	if (fd_slack >= 0 && setrlimit(RLIMIT_NOFILE, &saved_lim) < 0)
		fail("cannot set the descriptor limit", NULL);
}

/* ---- SOURCE's listing ---- */

#define SNAP_MAX 480
#define HIST_SLOTS 8192 /* a power of two, at most half of them used */

struct ent {
	char name[NAME_BUF];
	uint64_t ino, off;
	unsigned type;
};

struct snap {
	size_t n;
	struct ent e[SNAP_MAX];
};

static struct snap cur[NDIR]; /* as getdents64 lists it now */
static unsigned gen[NDIR];    /* changes made in it */
/* Every entry it listed in this run, hashed by name (up to HIST_SLOTS /
 * 2): a slot is used if its run is the current one. */
static struct ent *hist[NDIR];
static unsigned *hist_run[NDIR], run;
static size_t nhist[NDIR];
static int hist_full[NDIR];

static int same_ent(const struct ent *a, const struct ent *b)
{
	return a->ino == b->ino && a->off == b->off && a->type == b->type &&
	       !strcmp(a->name, b->name);
}

static size_t ent_hash(const struct ent *e)
{
	uint64_t x = 1469598103934665603ull;

	for (const char *p = e->name; *p; p++)
		x = (x ^ (unsigned char)*p) * 1099511628211ull;
	return (size_t)(x ^ x >> 29);
}

/* The slot of e in d's history, or the free one where it would go. */
static size_t hist_slot(int d, const struct ent *e)
{
	size_t i = ent_hash(e) & (HIST_SLOTS - 1);

	while (hist_run[d][i] == run && !same_ent(&hist[d][i], e))
		i = (i + 1) & (HIST_SLOTS - 1);
	return i;
}

static int hidden(int d, const char *name)
{
	return d == 0 && !strcmp(name, FOLDFS_RECORD_NAME);
}

static void snap_read(int d)
{
	static char buf[65536];
	int fd = openat(dirs[d].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;
	struct snap *s = &cur[d];

	if (fd < 0)
		fail("cannot open a directory", NULL);
	s->n = 0;
	while ((n = getdents64(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n;) {
			const struct dirent64 *de = (const void *)(buf + i);
			struct ent *e = &s->e[s->n];

			if (s->n == SNAP_MAX)
				fail("too many entries", NULL);
			strcpy(e->name, de->d_name);
			e->ino = de->d_ino;
			e->off = (uint64_t)de->d_off;
			e->type = de->d_type;
			s->n++;
			i += de->d_reclen;
		}
	if (n < 0)
		fail("getdents64 failed", NULL);
	close(fd);
	for (size_t i = 0; i < s->n; i++) {
		size_t k = hist_slot(d, &s->e[i]);

		if (hist_run[d][k] == run)
			continue;
		if (nhist[d] == HIST_SLOTS / 2) {
			hist_full[d] = 1;
			continue;
		}
		hist[d][k] = s->e[i];
		hist_run[d][k] = run;
		nhist[d]++;
	}
}

static void changed(int d)
{
	gen[d]++;
	snap_read(d);
	if (trace)
		fprintf(stderr, "@%zu dir %d changed: %zu entries\n", g_at, d,
			cur[d].n);
}

/* ---- names ---- */

/* Case variants, NFC/NFD, sharp s, ill-formed bytes, the record's name
 * and its spellings, a ligature, a zero-width space; then two lengths
 * near NAME_MAX. */
static const char *const piece[] = {
	"a", "A", "Readme.txt", "README.TXT", "readme.txt",
	"Stra\xc3\x9f" "e", "STRASSE", "strasse", "caf\xc3\xa9",
	"cafe\xcc\x81", "CAF\xc3\x89", "CAFE\xcc\x81", "bad\xff",
	"x\xc0\x80", "\xed\xa0\x80", "a\xe2\x80\x8b" "b", FOLDFS_RECORD_NAME,
	".FOLDFS", ".Foldfs", "\xef\xac\x81le", "fold", "plain", "\x01",
};
#define NPIECE (sizeof piece / sizeof *piece)

static void make_name(unsigned sel, unsigned sfx, char *out)
{
	char s[8] = "";
	size_t sl, p = sel % (NPIECE + 2);

	if (sfx)
		snprintf(s, sizeof s, "%u", sfx);
	sl = strlen(s);
	if (p < NPIECE) {
		snprintf(out, NAME_BUF, "%s%s", piece[p], s);
		return;
	}
	/* NAME_MAX and one less, suffix included */
	size_t len = (p == NPIECE ? 255 : 254) - sl;
	memset(out, p == NPIECE ? 'l' : 'L', len);
	memcpy(out + len, s, sl + 1);
}

static int removable(int d, const char *name)
{
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	return d != 0 || (strcmp(name, FOLDFS_RECORD_NAME) &&
			  strcmp(name, "fold") && strcmp(name, "plain"));
}

/* A new entry of a kind (0 file, 1 directory, 2 symlink, 3 fifo). */
static void create(int d, const char *name, unsigned kind, unsigned sfx)
{
	int r, dfd = dirs[d].fd;

	if (cur[d].n >= SNAP_MAX - 2)
		return;
	if (kind == 0) {
		r = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			   0640);
		if (r >= 0) {
			char data[256];

			memset(data, 'x', sizeof data);
			if (write(r, data, sfx) != (ssize_t)sfx)
				fail("cannot write a file", name);
			close(r);
		}
	} else if (kind == 1) {
		r = mkdirat(dfd, name, 0750);
	} else if (kind == 2) {
		r = symlinkat(piece[sfx % NPIECE], dfd, name);
	} else {
		r = mknodat(dfd, name, S_IFIFO | 0600, 0);
	}
	if (r >= 0)
		changed(d);
	else if (errno != EEXIST)
		fail("cannot create an entry", name);
}

static void remove_at(int d, const char *name)
{
	if (unlinkat(dirs[d].fd, name, 0) < 0 &&
	    (errno != EISDIR || unlinkat(dirs[d].fd, name, AT_REMOVEDIR) < 0))
		fail("cannot remove an entry", name);
}

/* ---- directory handles and the checks ---- */

#define NSLOT 4
#define NPOOL 32

struct handle {
	int open, d;
	struct fuse_file_info fi;
	unsigned gen; /* gen[d] when it last started from offset 0 */
	off_t pos;    /* where the kernel would ask next */
	int fresh;    /* no getdents64 of the daemon's listed from it yet */
};

static struct handle h[NSLOT];
static uint64_t pool[NDIR][NPOOL]; /* offsets handed out */
static size_t npool[NDIR];

static int fd_count(void)
{
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		fail("cannot list /proc/self/fd", NULL);
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

static size_t ent_size(const char *name, int plus)
{
	size_t l = strlen(name);

	return FUSE_DIRENT_ALIGN((plus ? FUSE_NAME_OFFSET_DIRENTPLUS
				       : FUSE_NAME_OFFSET) + l);
}

/* Index in cur[d] of the entry after the one whose cookie is off: -1
 * when none or several (a hash collision) have it. */
static long after_cookie(int d, uint64_t off)
{
	long at = -1;

	for (size_t i = 0; i < cur[d].n; i++)
		if (cur[d].e[i].off == off) {
			if (at >= 0)
				return -1;
			at = (long)i + 1;
		}
	return at;
}

/* Did SOURCE list e's name (with its inode and type unless loose)?  Not
 * its cookie: a descriptor read across a change may get its entries from
 * two states of the directory (ext4 keeps what it read of a hash range),
 * and an entry's cookie is the position of the one after it. */
static int in_hist(int d, const struct ent *e, int loose)
{
	if (hist_full[d])
		return 1; /* not all recorded: not checked */
	for (size_t i = ent_hash(e) & (HIST_SLOTS - 1); hist_run[d][i] == run;
	     i = (i + 1) & (HIST_SLOTS - 1)) {
		const struct ent *x = &hist[d][i];

		if (!strcmp(x->name, e->name) &&
		    (loose || (x->ino == e->ino && x->type == e->type)))
			return 1;
	}
	return 0;
}

/* A readdirplus entry: what it carries against the file. */
static void check_plus(int d, const struct fuse_entry_out *eo,
		       const struct ent *e, int *nodes)
{
	int dots = !strcmp(e->name, ".") || !strcmp(e->name, "..");
	struct stat st;
	int exists = fstatat(dirs[d].fd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	if (!eo->nodeid) {
		if (!dots && !pressure && !fill_fails && fd_slack < 0 && exists &&
		    node_view_ino(st.st_dev, st.st_ino) == e->ino)
			fail("readdirplus gave no entry for a file that is there",
			     e->name);
		return;
	}
	if (dots)
		fail("readdirplus gave an entry for . or ..", e->name);
	if (pressure || fill_fails)
		fail("readdirplus made a node under pressure", e->name);
	if (!exists)
		fail("readdirplus gave an entry for a name not there", e->name);
	const struct made *n = made;

	while (n < made + nmade && n->id != eo->nodeid)
		n++;
	if (n == made + nmade)
		fail("readdirplus gave a node id it did not make", e->name);
	if (!reply_fails) {
		const struct node *l = live;

		while (l && node_id(l) != eo->nodeid)
			l = l->hnext;
		if (!l)
			fail("readdirplus gave a node it forgot", e->name);
	}
	(*nodes)++;
	const struct fuse_attr *a = &eo->attr;
	int fold_file = dir_folds(&dirs[d]) && !S_ISDIR(st.st_mode);
	uint64_t want_s = fold_file ? 0 : (uint64_t)LOOKUP_TIMEOUT;
	uint32_t want_ns = fold_file ? 0 : (uint32_t)((LOOKUP_TIMEOUT -
						       (double)want_s) * 1e9);

	if (n->ino != st.st_ino || n->dev != st.st_dev || eo->generation != 7)
		fail("readdirplus gave the node of another file", e->name);
	if (eo->entry_valid != want_s || eo->entry_valid_nsec != want_ns)
		fail(fold_file ? "readdirplus gave a timed entry of a file in "
				 "a folding directory"
			       : "readdirplus gave another entry timeout than "
				 "a lookup's",
		     e->name);
	if (eo->attr_valid != (uint64_t)ATTR_TIMEOUT)
		fail("readdirplus gave another attribute timeout", e->name);
	if (a->ino != node_view_ino(st.st_dev, st.st_ino) ||
	    a->mode != st.st_mode || a->nlink != st.st_nlink ||
	    a->uid != st.st_uid || a->gid != st.st_gid ||
	    a->size != (uint64_t)st.st_size ||
	    a->blocks != (uint64_t)st.st_blocks ||
	    a->mtime != (uint64_t)st.st_mtim.tv_sec ||
	    a->mtimensec != (uint32_t)st.st_mtim.tv_nsec ||
	    a->ctime != (uint64_t)st.st_ctim.tv_sec ||
	    a->ctimensec != (uint32_t)st.st_ctim.tv_nsec)
		fail("readdirplus attributes are not the file's", e->name);
}

/* One readdir(plus) of handle s at off: run and checked.  Returns the
 * number of entries given, -1 for an error. */
static long do_readdir(int s, int plus, size_t size, off_t off, int lost)
{
	struct handle *hd = &h[s];
	int d = hd->d;
	long start = -1;
	size_t at = 0, k = 0;
	int nodes = 0;
	uint64_t last = 0;
	/* ext4 (dx directories): a descriptor whose first getdents64 is at
	 * the end cookie lists nothing at the first after it at 0 (the readdir
	 * state it keeps starts at the end); SOURCE itself does that, so the
	 * daemon may too. */
	int may_be_empty = hd->fresh && off == 0;

	if (off == 0 && !nomem) { /* (without memory it does not start) */
		hd->gen = gen[d];
		start = 0;
	} else if (hd->gen == gen[d] && off > 0) {
		start = after_cookie(d, (uint64_t)off);
	}
	nreplies = 0;
	nmade = 0;
	reply_fails = lost;
	limit_fds();
	(plus ? op_readdirplus : op_readdir)(NULL, node_id(&dirs[d]), size,
					       off, &hd->fi);
	unlimit_fds();
	if (gd_listed || (gd_calls && off == 0))
		hd->fresh = 0;
	if (nreplies != 1)
		fail("readdir did not reply exactly once", NULL);
	if (trace)
		fprintf(stderr,
			"@%zu readdir%s slot %d dir %d size %zu off %#llx%s: "
			"%s %d, %zu bytes; from %ld of %zu\n",
			g_at, plus ? "plus" : "", s, d, size,
			(unsigned long long)off, lost ? " (lost)" : "",
			reply_err ? "error" : "ok", reply_err,
			reply_err ? 0 : reply_len, start, cur[d].n);
	if (nomem && reply_err != ENOMEM)
		fail("readdir without memory did not answer ENOMEM", NULL);
	if (reply_err) {
		reply_fails = 0;
		if (start >= 0 && !nomem && !(eio_hit && reply_err == EIO))
			fail("readdir of a listing's offset failed", NULL);
		if (nlive)
			fail("a failed readdir holds nodes", NULL);
		return -1;
	}
	if (reply_len > size)
		fail("readdir replied with more than the size asked", NULL);
	/* SOURCE's entries from start on, the record at the root left out */
	size_t i = start >= 0 ? (size_t)start : 0;
	while (at < reply_len) {
		const struct fuse_direntplus *dp = (const void *)(reply + at);
		const struct fuse_dirent *de =
			plus ? &dp->dirent : (const void *)(reply + at);
		size_t len;
		struct ent e;

		if (reply_len - at < (plus ? FUSE_NAME_OFFSET_DIRENTPLUS
					   : FUSE_NAME_OFFSET))
			fail("readdir replied with a broken entry", NULL);
		len = plus ? FUSE_DIRENTPLUS_SIZE(dp) : FUSE_DIRENT_SIZE(de);
		if (len > reply_len - at || !de->namelen ||
		    de->namelen > NAME_BUF - 1)
			fail("readdir replied with a broken entry", NULL);
		memcpy(e.name, de->name, de->namelen);
		e.name[de->namelen] = 0;
		if (strlen(e.name) != de->namelen)
			fail("readdir listed a name with a NUL", NULL);
		e.ino = de->ino;
		e.off = de->off;
		e.type = de->type;
		if (hidden(d, e.name))
			fail("readdir listed the record at the root", e.name);
		if (start >= 0) {
			while (i < cur[d].n && hidden(d, cur[d].e[i].name))
				i++;
			if (i == cur[d].n)
				fail("readdir listed more than SOURCE has",
				     e.name);
			struct ent want = cur[d].e[i++];

			want.ino = node_view_ino(dirs[d].dev, want.ino);
			if (!same_ent(&want, &e)) {
				fprintf(stderr,
					"  SOURCE: '%s' ino %#llx type %u off "
					"%#llx\n  listed: ino %#llx type %u "
					"off %#llx\n",
					want.name, (unsigned long long)want.ino,
					want.type, (unsigned long long)want.off,
					(unsigned long long)e.ino, e.type,
					(unsigned long long)e.off);
				fail(strcmp(want.name, e.name)
					     ? "readdir listed another entry "
					       "than SOURCE's next"
					     : "readdir listed an entry with "
					       "another inode, type or offset",
				     e.name);
			}
		} else {
			struct ent raw = e;

			/* (the mapping is its own inverse) */
			raw.ino = node_view_ino(dirs[d].dev, e.ino);
			/* an entry read before a change: with the node of
			 * what has that name now, if readdirplus made one */
			if (!in_hist(d, &raw, plus && dp->entry_out.nodeid))
				fail("readdir listed an entry SOURCE never had",
				     e.name);
		}
		if (plus)
			check_plus(d, &dp->entry_out, &e, &nodes);
		at += len;
		k++;
		last = e.off;
		if (npool[d] < NPOOL)
			pool[d][npool[d]++] = e.off;
		else
			pool[d][e.off % NPOOL] = e.off;
	}
	if (start >= 0) {
		while (i < cur[d].n && hidden(d, cur[d].e[i].name))
			i++;
		/* (a getdents64 that failed ends a reply early) */
		if (i < cur[d].n && !(may_be_empty && !reply_len) && !eio_hit &&
		    ent_size(cur[d].e[i].name, plus) <= size - reply_len)
			fail("readdir left out an entry that fits",
			     cur[d].e[i].name);
	}
	if (lost ? nlive != 0 : (size_t)nodes != nlive)
		fail(lost ? "nodes of a reply the kernel did not take were "
			    "not given back"
			  : "the nodes held are not those of the reply",
		     NULL);
	reply_fails = 0;
	/* the kernel forgets them */
	while (live)
		node_forget(live, 1);
	if (!lost && k)
		hd->pos = (off_t)last;
	return (long)k;
}

static void do_opendir(int s, int d, int lost)
{
	struct handle *hd = &h[s];

	if (hd->open)
		return;
	memset(&hd->fi, 0, sizeof hd->fi);
	nreplies = 0;
	reply_fails = lost;
	limit_fds();
	op_opendir(NULL, node_id(&dirs[d]), &hd->fi);
	unlimit_fds();
	reply_fails = 0;
	if (nreplies != 1)
		fail("opendir did not reply exactly once", NULL);
	if (reply_err != (nomem ? ENOMEM : fd_slack == 0 ? EMFILE : 0))
		fail("opendir did not answer as it should", NULL);
	if (reply_err)
		return;
	if (trace)
		fprintf(stderr, "@%zu opendir slot %d dir %d%s\n", g_at, s, d,
			lost ? " (lost)" : "");
	if (lost)
		return; /* the daemon closed it again */
	hd->open = 1;
	hd->d = d;
	hd->gen = gen[d];
	hd->pos = 0;
	hd->fresh = 1;
}

static void do_releasedir(int s)
{
	if (!h[s].open)
		return;
	nreplies = 0;
	op_releasedir(NULL, node_id(&dirs[h[s].d]), &h[s].fi);
	if (nreplies != 1 || reply_err)
		fail("releasedir did not reply 0 once", NULL);
	h[s].open = 0;
}

/* The kernel reads on (from where it is) until an empty reply. */
static void list_on(int s, int plus, size_t size)
{
	for (int n = 0; n < 2 * SNAP_MAX; n++)
		if (do_readdir(s, plus, size, h[s].pos, 0) <= 0)
			return;
	fail("a listing does not end", NULL);
}

static size_t size_of(unsigned char b)
{
	if (b < 160)
		return (size_t)b * 3;
	if (b < 240)
		return 480 + (size_t)(b - 160) * 100;
	if (b < 255)
		return 4096 * (size_t)(b - 239);
	return 131072;
}

/* OFFSET (see the top); *raw: 8 more input bytes, if there. */
static off_t offset_of(int s, unsigned char b, const uint8_t *raw,
		       size_t nraw, size_t *used)
{
	int d = h[s].d;
	const struct snap *c = &cur[d];
	unsigned k = b >> 3;

	*used = 0;
	switch (b & 7) {
	case 0:
	case 1:
		return h[s].pos;
	case 2:
		return 0;
	case 3:
		return npool[d] ? (off_t)pool[d][k % npool[d]] : 0;
	case 4:
		return c->n ? (off_t)c->e[k % c->n].off : 0;
	case 5:
		return c->n ? (off_t)(c->e[k % c->n].off + (k & 3) - 2) : 1;
	case 6: {
		uint64_t v = 0;

		*used = nraw < 8 ? nraw : 8;
		memcpy(&v, raw, *used);
		return (off_t)v;
	}
	default:
		return k & 1 ? -(off_t)(k + 1) : INT64_MAX - (off_t)k;
	}
}

/* ---- setup ---- */

static const char *const sub[NDIR] = { "root", "root/fold", "root/plain" };

/* Each directory as a run starts: what setup made, nothing else. */
static void reset_dir(int d)
{
	for (size_t i = 0; i < cur[d].n; i++)
		if (removable(d, cur[d].e[i].name))
			remove_at(d, cur[d].e[i].name);
	gen[d] = 0;
	nhist[d] = 0;
	hist_full[d] = 0;
	npool[d] = 0;
	snap_read(d);
}

static void cleanup(void)
{
	char p[512];

	for (int d = NDIR - 1; d >= 0; d--) {
		snap_read(d);
		reset_dir(d);
		close(dirs[d].fd);
	}
	snprintf(p, sizeof p, "%s/root/%s", base, FOLDFS_RECORD_NAME);
	unlink(p);
	unlink(spare);
	for (int d = NDIR - 1; d >= 0; d--) {
		snprintf(p, sizeof p, "%s/%s", base, sub[d]);
		rmdir(p);
	}
	rmdir(base);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char p[512];
	struct stat st;
	int fd;

	run = 1;
	snprintf(base, sizeof base, "%s/fuzz-readdir.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		fail("mkdtemp", NULL);
	for (int d = 0; d < NDIR; d++) {
		snprintf(p, sizeof p, "%s/%s", base, sub[d]);
		if (mkdir(p, 0755) < 0)
			fail("mkdir", p);
		dirs[d].fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirs[d].fd < 0 || fstat(dirs[d].fd, &st) < 0)
			fail("open", p);
		dirs[d].dev = st.st_dev;
		dirs[d].ino = st.st_ino;
		dirs[d].type = S_IFDIR;
		dirs[d].dir = &ds[d];
		hist[d] = calloc(HIST_SLOTS, sizeof *hist[d]);
		hist_run[d] = calloc(HIST_SLOTS, sizeof *hist_run[d]);
		if (!hist[d] || !hist_run[d])
			fail("out of memory", NULL);
	}
	snprintf(spare, sizeof spare, "%s/spare", base);
	fd = open(spare, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		fail("cannot make a file", spare);
	close(fd);
	fd = openat(dirs[0].fd, FOLDFS_RECORD_NAME,
		    O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		fail("cannot write the record", NULL);
	close(fd);
	atomic_store(&ds[1].fold, 1);
	atomic_store(&ds[2].fold, 0);
	for (int d = 0; d < NDIR; d++)
		snap_read(d);
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 1;
	int fds;

	if (!base[0]) {
		setup();
		trace = getenv("FUZZ_READDIR_TRACE") != NULL;
	}
	if (size < 1)
		return 0;
	atomic_store(&ds[0].fold, data[0] & 1);
	F.noatime = (data[0] & 2) != 0;
	F.timeout = ATTR_TIMEOUT;
	pressure = fill_fails = nomem = eio_next = 0;
	fd_slack = -1;
	run++;
	for (int d = 0; d < NDIR; d++)
		reset_dir(d);
	fds = fd_count();

	while (pos < size) {
		const uint8_t *a = data + pos + 1;
		size_t left = size - pos - 1, used = 0;
		unsigned op = data[pos] % 9, b1 = left ? a[0] : 0;
		int s = b1 & 3;
		char name[NAME_BUF];

		g_at = pos;
		switch (op) {
		case 0:
			if (left < 3)
				goto out;
			make_name(a[1], a[2], name);
			create(b1 % 4 % NDIR, name, b1 >> 2 & 3, a[2]);
			used = 3;
			break;
		case 1: {
			int d = b1 % NDIR;
			size_t n = 0, want;

			if (left < 2)
				goto out;
			for (size_t i = 0; i < cur[d].n; i++)
				n += removable(d, cur[d].e[i].name);
			want = n ? a[1] % n : 0;
			for (size_t i = 0; n && i < cur[d].n; i++)
				if (removable(d, cur[d].e[i].name) && !want--) {
					remove_at(d, cur[d].e[i].name);
					changed(d);
					break;
				}
			used = 2;
			break;
		}
		case 2:
			if (left < 1)
				goto out;
			do_opendir(s, (b1 >> 2 & 3) % NDIR, (b1 & 0x30) == 0x30);
			used = 1;
			break;
		case 3:
			if (left < 3)
				goto out;
			if (h[s].open) {
				off_t off = offset_of(s, a[2], a + 3, left - 3,
						      &used);

				do_readdir(s, b1 >> 2 & 1, size_of(a[1]), off,
					   (b1 & 0x38) == 0x38);
			}
			used += 3;
			break;
		case 4:
			if (left < 2)
				goto out;
			if (h[s].open)
				list_on(s, b1 >> 2 & 1, size_of(a[1]));
			used = 2;
			break;
		case 5:
			if (left < 1)
				goto out;
			do_releasedir(s);
			used = 1;
			break;
		case 6: {
			int d = b1 % NDIR;
			unsigned n, len;

			if (left < 3)
				goto out;
			n = a[1] % 161;
			len = 100 + a[2] % 156;
			for (unsigned i = 0; i < n && cur[d].n < SNAP_MAX - 2;
			     i++) {
				snprintf(name, sizeof name, "%0*u", (int)len, i);
				name[0] = "bB"[a[2] & 1];
				/* links of one file: a new inode each run
				 * costs ext4 far more */
				if (linkat(AT_FDCWD, spare, dirs[d].fd, name,
					   0) < 0 &&
				    errno != EEXIST)
					fail("cannot create an entry", name);
				cur[d].n++; /* (a bound only: read below) */
			}
			changed(d);
			used = 3;
			break;
		}
		case 7:
			if (left < 1)
				goto out;
			pressure = b1 & 1;
			fill_fails = b1 >> 1 & 1;
			nomem = b1 >> 2 & 1;
			eio_next = b1 >> 3 & 1;
			fd_slack = b1 & 16 ? (int)(b1 >> 5 & 3) : -1;
			used = 1;
			break;
		default:
			if (left < 1)
				goto out;
			if (h[s].open) {
				nreplies = sync_calls = 0;
				sync_dir = h[s].d;
				sync_err = b1 & 8 ? EIO : 0;
				op_fsyncdir(NULL, node_id(&dirs[h[s].d]),
					    b1 >> 2 & 1, &h[s].fi);
				if (nreplies != 1 || reply_err != sync_err ||
				    sync_calls != 1 ||
				    sync_data != (b1 >> 2 & 1))
					fail("fsyncdir did not sync once and "
					     "reply its result once",
					     NULL);
			}
			used = 1;
			break;
		}
		pos += 1 + used;
	}
out:
	g_at = size;
	for (int s = 0; s < NSLOT; s++)
		do_releasedir(s);
	/* each directory from offset 0, by a fresh handle: all of it */
	pressure = fill_fails = nomem = eio_next = 0;
	fd_slack = -1;
	for (int d = 0; d < NDIR; d++) {
		int plus = (data[0] >> 2 & 1) ^ (d & 1);
		size_t n = 0;
		long r;

		do_opendir(0, d, 0);
		do {
			r = do_readdir(0, plus, 4096, h[0].pos, 0);
			n += r > 0 ? (size_t)r : 0;
		} while (r > 0);
		for (size_t i = 0; i < cur[d].n; i++)
			n += hidden(d, cur[d].e[i].name);
		if (r < 0 || n != cur[d].n)
			fail("a listing from offset 0 is not all of SOURCE",
			     NULL);
		do_releasedir(0);
	}
	if (fd_count() != fds)
		fail("a descriptor was left open", NULL);
	/* (a run that mallocs as often as it frees needs no leak scan) */
	free(reply);
	reply = NULL;
	return 0;
}
