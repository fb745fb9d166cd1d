/*
 * foldfs.h - internal interfaces of the foldfs daemon (fs/).
 *
 * The daemon is a libfuse3 low-level passthrough of SOURCE in which
 * "folding" directories look names up case- and normalization-
 * insensitively.  The modules:
 *
 *   main.c       command line, encoding record, mount, session loop
 *   inode.c      node table: one node per backing (st_dev, st_ino)
 *   creds.c      per-thread caller credentials for creating calls
 *   resolve.c    which stored name a spelling denotes in a directory
 *   dirindex.c   per-directory fold index (hash of fold keys)
 *   coherence.c  kernel dentry-cache coherence: spelling ledger,
 *                epoch bumps, asynchronous invalidation
 *   watch.c      changes made directly in SOURCE (inotify / stamps)
 *   prune.c      staying inside the descriptor limit: the kernel is asked
 *                to drop unused cached inodes (FUSE_NOTIFY_PRUNE)
 *   ops_entry.c  lookup, forget, attributes, namespace changes
 *   ops_file.c   open files: I/O, sync, allocation
 *   ops_lock.c   flock() and POSIX record locks passed through to SOURCE,
 *                with waiters kept out of the worker pool
 *   ops_dir.c    directory handles and readdir(plus)
 *   ops_xattr.c  extended attributes (hiding user.foldfs.*)
 *   ioctl.c      chattr/lsattr: FS_IOC_{GET,SET}FLAGS, FS_IOC_FS{GET,SET}XATTR
 *   respell.c    FOLDFS_IOC_RESPELL: change only an entry's stored spelling
 *                (the client interface is foldfs_ioctl.h)
 *   xlock.c      name changes in folding directories serialized with the
 *                other daemons serving the same tree (locks on the record)
 */
#ifndef FOLDFS_H
#define FOLDFS_H

#define FUSE_USE_VERSION 312 /* 3.12: loop config with max_threads */
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "fold.h"
#include "record.h"

#ifndef FOLDFS_VERSION
#define FOLDFS_VERSION "0.1.0"
#endif

/* renameat2()'s flags, as the rename operation gets them (a libc older
 * than glibc 2.28 does not define them). */
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

enum cache_mode { CACHE_AUTO, CACHE_EPOCH, CACHE_NONE };
enum watch_mode { WATCH_AUTO, WATCH_INOTIFY, WATCH_POLL };

/* Daemon-wide state.  Options are fixed before the session starts. */
struct foldfs {
	const char *source;	/* as given, for messages */
	const char *mountpoint;
	int foreground, debug, single;
	int casefold_all;	/* -o casefold: every directory folds */
	int nofold;		/* -o nofold: plain passthrough */
	int readonly;		/* -o ro */
	int noatime;		/* -o noatime (or ro): reads leave atime alone */
	enum cache_mode cache;	/* what was asked */
	enum watch_mode watch;
	double timeout;		/* -o timeout=SECS */
	unsigned max_read;	/* -o max_read=N, told to libfuse in init() */
	int lockkeep;		/* -o lockcache=keep: a lock drops no cache */
	size_t index_mem;	/* -o index_mem=MiB, in bytes */
	long max_watches;	/* -o max_watches=N; -1: from the user's limit */

	struct foldfs_record rec; /* the record in force */
	struct fold_ctx ctx;	/* comparison context from the record */
	struct fold_seed seed;	/* random per mount: fold_hash key */
	int root_fd;		/* O_PATH of SOURCE */
	dev_t root_dev;
	/* SOURCE's file system does nothing at close (op_flush) */
	int root_noflush;
	int switch_creds;	/* daemon is root: create as the caller */
	int defperm;		/* default_permissions in force */
	/* the kernel leaves the caller's umask to us (FUSE_CAP_DONT_MASK) */
	int dont_mask;
	/* and enforces SOURCE's POSIX ACLs (FUSE_CAP_POSIX_ACL) */
	int posix_acl;
	struct fuse_session *se;

	/* 1 once the kernel accepted FUSE_NOTIFY_INC_EPOCH (and cache!=none):
	 * bumps are available. */
	atomic_int epoch;
	/* cache=epoch in force: folding directories cache lookups. */
	int fold_cache;
};
extern struct foldfs F;

/* ---- inode.c ----------------------------------------------------------- */

struct dirindex;

/* Per-directory state, allocated with every directory node. */
struct dirstate {
	/* Namespace lock of a folding directory: lookups hold it shared,
	 * operations that change names hold it exclusively, so an answer
	 * and the ledger note describing it are atomic with respect to
	 * every change made through the mount (see coherence.c). */
	pthread_rwlock_t ns;
	atomic_int fold;	/* -1 not yet known, 0 plain, 1 folding */
	_Atomic uint64_t fold_checked; /* now_ns() of the last re-read */

	/* Index state, under ilock (see dirindex.c / watch.c). */
	pthread_mutex_t ilock;
	struct dirindex *idx;	/* NULL until the first folding miss */
	int wd;			/* inotify watch, -1 if none */
	int poll;		/* freshness by stamps, not inotify */
	struct timespec mtime, ctime; /* stamps when idx was last known good */
	uint64_t asked_at;	/* poll: the server last asked (watch_sync) */
	uint64_t verify_at;	/* poll: rescan at the first use from then
				   (now_ns), 0 for none (watch.c) */
	/* Index builds (ilock), for resolve.c's miss proof: with the
	 * index's own counts of names found gone (struct idx_stamp). */
	unsigned built;
	struct node *lru_prev, *lru_next; /* LRU of built indexes */
	unsigned swept;		/* idx_sweep_gone() round that looked (lru_lock) */
};

struct node {
	struct node *hnext;	/* (dev, ino) hash chain */
	dev_t dev;
	ino_t ino;
	/* The mount of SOURCE's tree it was reached through (statx's mount
	 * id; 0 where the kernel has none): a bind mount inside SOURCE
	 * shows an object a second time, read-only perhaps, and what is
	 * done through that path must be done through that mount. */
	uint64_t mnt;
	int fd;			/* O_PATH descriptor of the backing object */
	mode_t type;		/* S_IFMT bits */
	uint64_t nlookup;	/* the kernel's lookup count */
	unsigned refs;		/* daemon-internal holds */
	int hashed;		/* still reachable by (dev, ino) */
	int wd;			/* inotify wd registered in the wd map, or -1 */
	int used;		/* looked up since prune.c's clock passed */
	uint32_t gen;		/* generation handed out with the node id */
	struct dirstate *dir;	/* directories only */
};

int node_init(int root_fd, const struct stat *st);
struct node *node_root(void);
static inline fuse_ino_t node_id(const struct node *n)
{
	return n == node_root() ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)n;
}
/*
 * ThreadSanitizer builds: the kernel orders a reply before the requests
 * it leads to (a node id handed out, then used or forgotten by another
 * worker).  ThreadSanitizer models that for a /dev/fuse descriptor libfuse
 * opened, but not for one inherited from mount.fuse3 (/dev/fd/N), which it
 * never saw opened: there every reply releases, and node_of(), where a
 * request starts, acquires, on one object, as its model of a descriptor
 * does.  Nothing of this is in other builds.
 */
#if defined(__SANITIZE_THREAD__)
#define FOLDFS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FOLDFS_TSAN 1
#endif
#endif
#ifdef FOLDFS_TSAN
#include <sanitizer/tsan_interface.h>
extern char foldfs_tsan_chan;
static inline int foldfs_tsan_reply(void)
{
	__tsan_release(&foldfs_tsan_chan);
	return 0;
}
#define FOLDFS_TSAN_REPLY(f, ...) (foldfs_tsan_reply(), f(__VA_ARGS__))
#define fuse_reply_attr(...) FOLDFS_TSAN_REPLY(fuse_reply_attr, __VA_ARGS__)
#define fuse_reply_buf(...) FOLDFS_TSAN_REPLY(fuse_reply_buf, __VA_ARGS__)
#define fuse_reply_create(...) FOLDFS_TSAN_REPLY(fuse_reply_create, __VA_ARGS__)
#define fuse_reply_data(...) FOLDFS_TSAN_REPLY(fuse_reply_data, __VA_ARGS__)
#define fuse_reply_entry(...) FOLDFS_TSAN_REPLY(fuse_reply_entry, __VA_ARGS__)
#define fuse_reply_err(...) FOLDFS_TSAN_REPLY(fuse_reply_err, __VA_ARGS__)
#define fuse_reply_ioctl(...) FOLDFS_TSAN_REPLY(fuse_reply_ioctl, __VA_ARGS__)
#define fuse_reply_lock(...) FOLDFS_TSAN_REPLY(fuse_reply_lock, __VA_ARGS__)
#define fuse_reply_lseek(...) FOLDFS_TSAN_REPLY(fuse_reply_lseek, __VA_ARGS__)
#define fuse_reply_none(...) FOLDFS_TSAN_REPLY(fuse_reply_none, __VA_ARGS__)
#define fuse_reply_open(...) FOLDFS_TSAN_REPLY(fuse_reply_open, __VA_ARGS__)
#define fuse_reply_readlink(...) FOLDFS_TSAN_REPLY(fuse_reply_readlink, __VA_ARGS__)
#define fuse_reply_statfs(...) FOLDFS_TSAN_REPLY(fuse_reply_statfs, __VA_ARGS__)
#define fuse_reply_write(...) FOLDFS_TSAN_REPLY(fuse_reply_write, __VA_ARGS__)
#define fuse_reply_xattr(...) FOLDFS_TSAN_REPLY(fuse_reply_xattr, __VA_ARGS__)
#endif
static inline struct node *node_of(fuse_ino_t ino)
{
#ifdef FOLDFS_TSAN
	__tsan_acquire(&foldfs_tsan_chan);
#endif
	return ino == FUSE_ROOT_ID ? node_root() : (struct node *)(uintptr_t)ino;
}
/* fstat of an O_PATH fd, with the id of the mount it is on (*mnt, 0 if
 * the kernel cannot say): a statx, no dearer than fstat. */
int fd_stat(int fd, struct stat *st, uint64_t *mnt);
/* The same for a name in dirfd, not followed if a symlink (a mount point
 * gives the mounted root and its mount); mnt may be NULL. */
int name_stat(int dirfd, const char *name, struct stat *st, uint64_t *mnt);
/* fstat of fd asking the file system's server, not the client's cache
 * (AT_STATX_FORCE_SYNC: NFS, FUSE; local file systems ignore it). */
int fd_stat_sync(int fd, struct stat *st);
/* Take an O_PATH fd (consumed) whose fd_stat is *st and mnt; return its
 * node with the lookup count raised by one (for a reply), or NULL
 * (ENOMEM). */
struct node *node_get(int fd, const struct stat *st, uint64_t mnt);
/* The node for (dev, ino) on mount mnt if one exists and is current,
 * held (node_put), without touching its lookup count; NULL otherwise. */
struct node *node_find(const struct stat *st, uint64_t mnt);
void node_forget(struct node *n, uint64_t nlookup);
/* Does the node with this id still exist (the kernel may hold it)? */
int node_alive(uint64_t id);
/* The node with this id and generation, held (node_put), if it exists and
 * the kernel holds it; NULL if it is gone (its id may name another node
 * by now: ids are addresses) or forgotten (no dentry under it is left). */
struct node *node_hold_id(uint64_t id, uint32_t gen);
void node_hold(struct node *n);
/* Hold n (node_put) if the kernel holds it no more; 1 if held. */
int node_hold_if_forgotten(struct node *n);
void node_put(struct node *n);
/* inotify wd map (watch.c), under the table lock so a wd never names a
 * freed node.  node_set_wd(n, -1) forgets n's; a wd that another node has
 * (the same directory through another mount) is refused: -1. */
int node_set_wd(struct node *n, int wd);
struct node *node_hold_wd(int wd);
size_t node_count(void);
/* Nodes freed so far (prune.c: did a round free any?) */
unsigned long node_freed(void);
/* prune.c's clock: up to max ids of nodes the kernel holds and has not
 * looked up since the hand last passed them (marks cleared on the way),
 * going on from where the last call stopped; *lap is set when the hand
 * passed the end of the table. */
size_t node_sweep(uint64_t *ids, size_t max, int *lap);
/* Does this directory fold?  Reads the xattr on first use. */
int dir_folds(struct node *d);
void dir_set_fold(struct node *d, int on);
/* Re-read d's casefold attribute if `timeout` has passed since the last
 * look, and apply a change made directly in SOURCE (ioctl.c).  Called
 * with no lock held. */
void fold_refresh(struct node *d);
/* "/proc/self/fd/N" for n->fd */
void node_procname(const struct node *n, char buf[64]);
/* The inode number the view shows for backing (dev, ino): unique across
 * the file systems mounted inside SOURCE. */
ino_t node_view_ino(dev_t dev, ino_t ino);

/* ---- creds.c ------------------------------------------------------------ */

struct creds {
	int switched;
	int raised; /* creds_retry() has run */
};
int creds_init(void);
/* Become the caller (fsuid, fsgid, supplementary groups) for this
 * thread; no-op when not root or the caller is root.  Where the kernel
 * leaves the umask to us (F.dont_mask) it also takes the caller's umask,
 * always. */
int creds_enter(fuse_req_t req, struct creds *c);
/* The same for a call that creates nothing: the umask does not matter
 * there, and other requests carry none (libfuse gives 0). */
int creds_enter_nomask(fuse_req_t req, struct creds *c);
void creds_leave(struct creds *c);
/* Taking the caller's fsuid took the daemon's file-system capabilities
 * (CAP_DAC_OVERRIDE, CAP_FOWNER...) from the thread, and the caller
 * may hold some (a service with ambient capabilities): after a call made
 * as the caller failed with r = -EACCES or -EPERM, give the thread those
 * of the caller's it lacks; 1 if it did (make the call again), else 0.
 * Once per creds_enter. */
int creds_retry(fuse_req_t req, struct creds *c, int r);
/* CAP_SYS_RESOURCE in the thread's effective set only for a caller with
 * user ID 0 (root's reserved blocks, quota hard limits): before anything
 * that may allocate space in SOURCE.  creds_enter() calls it. */
void creds_resource(fuse_req_t req);
/* The same for a writer known only by its user ID. */
void creds_resource_uid(uid_t uid);
/* Only fsuid uid (and creds_resource_uid): for writes into a descriptor
 * already open, where no permission is checked but ext4 gives its
 * reserved blocks to root's fsuid.  Left with creds_leave().  0 or
 * -EPERM. */
int creds_enter_fsuid(uid_t uid, struct creds *c);
/* The caller's supplementary groups, all of them: buf if they fit in its
 * 64, else a list to free().  Returns their number (0 if libfuse cannot
 * tell) and the list in *list, or -ENOMEM. */
int creds_groups(fuse_req_t req, gid_t buf[64], gid_t **list);
/* Where the daemon cannot be the caller (not root): may the caller remove
 * or replace entry ent of d under d's sticky bit?  0 or -errno; always 0
 * for a root daemon, which removes and renames as the caller. */
int creds_sticky(fuse_req_t req, struct node *d, const struct stat *ent);
/* Give the calling thread its own umask (fs_struct); 0 or -errno. */
int creds_own_fs(void);
/* Has the caller capability cap (effective, in our user namespace)? */
int creds_capable(fuse_req_t req, int cap);

/* ---- resolve.c ---------------------------------------------------------- */

/* Upper bound of a stored name we handle (NAME_MAX + NUL). */
#define NAME_BUF 256

int name_hidden(struct node *d, const char *name);
/* The stored entry a spelling denotes in directory d: exact bytes first,
 * then (folding directories) the index winner.  On success returns an
 * O_PATH fd of it, its stat in *st, its mount in *mnt (fd_stat) and its
 * stored name in stored[] (NAME_BUF).  Returns -errno (-ENOENT when
 * nothing matches). */
int resolve(struct node *d, const char *name, char *stored, struct stat *st,
	    uint64_t *mnt);
/* Like resolve() but only says whether something equivalent exists
 * and what it is called (no fd); its mount in *mnt unless mnt is NULL.
 * Returns 0, -ENOENT, -errno. */
int resolve_name(struct node *d, const char *name, char *stored,
		 struct stat *st, uint64_t *mnt);
/* Is name ill-formed under the record (strict creation check)? */
int name_illformed(const char *name);

/* ---- dirindex.c --------------------------------------------------------- */

void idx_free(struct dirindex *x);
/* Drop d's index (ilock held); 1 if the caller must node_put(d) (the
 * index's hold on its directory) after releasing ilock. */
int idx_drop_locked(struct node *d);
/* Force a rescan at the next use (ilock held). */
void idx_mark_stale(struct node *d);
/*
 * For resolve.c's proof of a miss, the index's record of names a recheck
 * found gone from SOURCE (dir_index_recheck) as a miss saw it: the count
 * in the slot of the name's hash h (names of other slots leave it alone:
 * SOURCE renaming other names sends few lookups to a fence), whether a
 * miss was proven at that count before, and the count of all (seq), for
 * idx_miss_proven().  built: the directory's index builds
 * (dirstate.built); a build starts every count afresh.
 */
struct idx_stamp {
	uint64_t h;
	unsigned built, slot, gone, seq;
	int settled, proven;
};
/* Winner among the names equivalent to name (bytewise smallest); copies
 * it into out[NAME_BUF].  Returns 0 or -ENOENT, then filling *miss
 * unless it is NULL (built is the caller's to fill). */
int idx_winner(struct dirindex *x, const char *name, char *out,
	       struct idx_stamp *miss);
/* Whether the miss stamped now (after a fence) is proven: no name with
 * the hash of before's (one equivalent to it) found gone since before
 * (the miss before the fence), nor too many to tell, nor the index
 * rebuilt.  Remembers a proof that holds for the whole slot (settled).
 * (ilock held, now's index.) */
int idx_miss_proven(struct dirindex *x, const struct idx_stamp *before,
		    const struct idx_stamp *now);
/* An index of these names, built as a directory scan builds one (for the
 * fuzzer; the daemon builds from readdir).  NULL when out of memory. */
struct dirindex *idx_from_names(const char *const *names, size_t n);
void idx_add(struct dirindex *x, const char *name);
void idx_del(struct dirindex *x, const char *name);
int idx_has(struct dirindex *x, const char *name);
size_t idx_bytes(const struct dirindex *x);
size_t idx_entries(const struct dirindex *x);
/* LRU of built indexes and the -o index_mem budget. */
void idx_touch(struct node *d);
void idx_unlink_lru(struct node *d);
/* Drop the indexes of directories the kernel no longer holds and that are
 * gone from SOURCE; does work at most once a second (watch_sync). */
void idx_sweep_gone(void);
/* Drop up to max indexes of directories the kernel has forgotten, least
 * recently used first (their nodes go with them); how many (prune.c). */
size_t idx_evict_forgotten(size_t max);
/* Drop d's index if d is gone from SOURCE (no links left): nothing can
 * reach it again, and the index's hold keeps it open.  d held. */
void idx_drop_if_gone(struct node *d);
void idx_account(long delta);
size_t idx_total_bytes(void);

/* Build d's index if it has none or it went stale (ilock held). */
int idx_ensure(struct node *d);
/* Every index built so far is stale (inotify overflow). */
void idx_drop_all(void);

/* Directory stamps taken before one of our own changes (poll mode). */
struct dir_stamp {
	int valid;
};
void dir_stamp(struct node *d, struct dir_stamp *s);
/* Apply our own change to d's index (if built): remove del1, del2, add
 * add1 (each may be NULL).  pre: stamps from before the change. */
void dir_index_change(struct node *d, const char *del1, const char *del2,
		      const char *add1, const struct dir_stamp *pre);
void dir_index_drop(struct node *d);
/* Make d's index agree with SOURCE about `name` (under ilock).
 * unlinked: its last event seen was its unlink (watch.c). */
void dir_index_recheck(struct node *d, const char *name, int unlinked);
/* Wait until the changes to d in progress in SOURCE have queued their
 * inotify events.  0, or -errno if it could not. */
int dir_fence(struct node *d);

/* ---- watch.c ------------------------------------------------------------ */

int watch_init(void);
int watch_start(void);
void watch_stop(void);
/* Start watching d (index just built).  Called with ilock held. */
void watch_dir(struct node *d);
void watch_unwatch(struct node *d);
/* Bring d's index up to date before it is trusted: inotify mode reads
 * the pending events, poll mode compares the stamps.  Called with ilock
 * NOT held. */
void watch_sync(struct node *d);
/* After our own change (ilock held, poll mode): refresh the stamps if
 * the directory was unchanged right before it. */
void watch_stamps_after(struct node *d, const struct dir_stamp *pre);

/* ---- prune.c ------------------------------------------------------------ */

/* Probe FUSE_NOTIFY_PRUNE and start the thread (0, also when refused). */
int prune_start(void);
void prune_stop(void);
/* The node table has `count` nodes now (inode.c, on a new node). */
void prune_note(size_t count);
/* Nodes beyond half the descriptor limit: readdirplus makes none (and
 * asks for a round). */
int prune_pressure(void);
/* May a negative dentry stay?  The kernel prunes no directory that has
 * cached children, and a negative one (a miss, even one answered with an
 * error; a removed name) stays until memory runs short.  Only while the
 * table is below the quarter of the limit that pruning aims for, so that
 * such directories never keep it above half; beyond, a miss is not
 * cached and the dentry is dropped (coh_inval_async) after the reply. */
int prune_negative_ok(void);
/* After an open failed with err: if that is EMFILE or ENFILE and pruning
 * runs, wait for a round (up to 1 s) and return 1: worth another try. */
int prune_wait(int err);
/* openat(dfd, name, O_PATH | O_NOFOLLOW), tried again after prune_wait. */
int prune_openat(int dfd, const char *name);

/* openat(dfd, name, fl) of an object of SOURCE, with O_NOATIME if noatime
 * (a read of ours must not set the time) but without it where it is
 * refused (it needs ownership or CAP_FOWNER); tried again after
 * prune_wait.  (Inline: the fuzz targets link its users, not prune.c.) */
static inline int src_openat(int dfd, const char *name, int fl, int noatime)
{
	for (int again = 1;; again = 0) {
		int fd = openat(dfd, name, fl | (noatime ? O_NOATIME : 0));

		if (fd < 0 && errno == EPERM && noatime)
			fd = openat(dfd, name, fl);
		if (fd >= 0 || !again || !prune_wait(errno))
			return fd;
	}
}

/* ---- coherence.c -------------------------------------------------------- */

int coh_init(void);
/* At shutdown, before the session's device is closed: no notification
 * starts after this (one under way is waited for, up to 2 s). */
void coh_quiesce(void);
/* Stop the invalidation worker; -1 if it is stuck (then the session must
 * not be destroyed under it). */
int coh_stop(void);
/* Probe FUSE_NOTIFY_INC_EPOCH; sets F.epoch. */
void coh_probe(void);
/* Entry timeout of a positive reply in directory d (for a directory or
 * not) and of a cached negative one (is_dir 0). */
double coh_entry_timeout(struct node *d, int is_dir);
/* Negative replies in d: cache them (1) or answer ENOENT (0)? */
int coh_cache_negative(struct node *d);
/* The kernel was told that `name` in d is node `nodeid` (0: absent). */
void coh_note(struct node *d, const char *name, uint64_t nodeid);
/* After our change of the binding of `name` (the spelling the operation
 * used) in d, now bound to nodeid (0: nothing): make every other spelling
 * the kernel may hold consistent before the reply.  Caller holds d's
 * namespace lock exclusively. */
void coh_changed(struct node *d, const char *name, uint64_t nodeid);
/* May the kernel's dentry of `name` in d carry an entry timeout that
 * cache=auto does not give files of folding directories (it came from a
 * plain directory)?  Asked before a rename moves it. */
int coh_timed(struct node *d, const char *name);
/* After a rename moved such a dentry, of node nodeid, to `name` in d: it
 * keeps that timeout.  Caller holds d's namespace lock exclusively. */
void coh_moved_in(struct node *d, const char *name, uint64_t nodeid);
/* A change of `name` in d made outside the mount. */
void coh_external(struct node *d, const char *name);
/* Some unknown change in d made outside the mount. */
void coh_external_dir(struct node *d);
/* Forget every cached dentry of the connection now (epoch), or queue
 * what can be queued (cache=none).  Returns 0 if the epoch moved. */
int coh_bump(void);
/* Queue an invalidation of `name` in d, sent after the reply if d is
 * still the node the kernel knows by its id then. */
void coh_inval_async(struct node *d, const char *name);
/* Wait until every invalidation queued so far has been sent, or for ms
 * milliseconds (-ETIMEDOUT).  Only for a caller the kernel holds no
 * directory lock for (an ioctl), and with no namespace lock of ours held:
 * the worker takes the kernel's lock.  Bounded, because that lock may be
 * held by a process whose request waits for a worker, and the waiting
 * caller may be the last free one (always so with -s). */
int coh_inval_wait(unsigned ms);
void coh_stats(size_t *entries, uint64_t *bumps);

/* ---- xlock.c ------------------------------------------------------------ */

/* Serialize with other daemons through fd, the record open for writing
 * (main.c, at start; never called: nothing is locked). */
void xlock_init(int fd);
struct xlock {
	off_t off;	/* the byte held, 0 for none */
};
/* Around "check for an equivalent name + change it in SOURCE" in the
 * folding directory d, inside d's namespace lock held exclusively, and
 * never around another xlock (one per operation: no order to keep
 * between daemons).  If the lock cannot be had, x holds none. */
void xlock(struct node *d, struct xlock *x);
/* Release what xlock() took, if anything (again: no-op). */
void xunlock(struct xlock *x);

/* ---- ops ---------------------------------------------------------------- */

extern const struct fuse_lowlevel_ops foldfs_ops;

void op_init(void *userdata, struct fuse_conn_info *conn);
void op_destroy(void *userdata);
void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void op_forget_multi(fuse_req_t req, size_t count,
		     struct fuse_forget_data *forgets);
void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		struct fuse_file_info *fi);
void op_readlink(fuse_req_t req, fuse_ino_t ino);
void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
	      mode_t mode, dev_t rdev);
void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
	      mode_t mode);
void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		const char *name);
void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
	       fuse_ino_t newparent, const char *newname, unsigned int flags);
void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
	     const char *newname);
void op_statfs(fuse_req_t req, fuse_ino_t ino);
void op_access(fuse_req_t req, fuse_ino_t ino, int mask);
void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
	       mode_t mode, struct fuse_file_info *fi);

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
/* A new backing descriptor, opened with the caller's flags (an O_DIRECT
 * the file system refuses fails as in SOURCE): not direct from now on;
 * direct requests have a descriptor of their own (ops_file.c). */
void file_undirect(int fd);
/* A descriptor of ours was just opened O_APPEND (an append-only file):
 * until none is, writes check their descriptor's flag (ops_file.c). */
void file_appending(void);
/* The backing descriptor for an open(2) of the object at proc (its
 * /proc/self/fd link) with the caller's flags: O_APPEND only where the
 * file is append-only and opens no other way (counted: file_appending()).
 * The descriptor, or -1 with errno set. */
int file_open(const char *proc, int flags);
/* Close a backing descriptor the kernel never got (an error path):
 * it leaves the count of O_APPEND ones if it was there. */
void file_close(int fd);
/* Before a change to the data of the file open (or O_PATH) as fd: be the
 * caller if the file has a set-user-ID or set-group-ID bit, so that
 * SOURCE drops it as for the caller's own write; else, if the change may
 * allocate (alloc: a write, not a truncation), take only the caller's
 * fsuid, for root's reserved blocks; creds_leave(c) after.  0 or
 * -errno. */
int file_as_writer(fuse_req_t req, int fd, struct creds *c, int alloc);
void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi);
void op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv,
		  off_t off, struct fuse_file_info *fi);
void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
	      struct fuse_file_info *fi);
void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
		  off_t length, struct fuse_file_info *fi);
void op_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
	      struct flock *lock);
void op_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
	      struct flock *lock, int sleep);
/* A process (lock_owner) closed a descriptor of n's file: its POSIX
 * locks on it go.  A file handle fh of n is released: so do the OFD
 * locks taken through it. */
void locks_flush(struct node *n, uint64_t lock_owner);
/* At start: learn whether SOURCE (dirfd) gives fine-grained change times,
 * which lets lock revalidation trust a fresh ctime. */
void locks_init(int dirfd);
void locks_release(struct node *n, uint64_t fh);
/* At shutdown, before the unmount: lock waiters answer ENOLCK and are
 * gone when this returns (up to 2 s). */
void locks_quiesce(void);
void op_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
	      int op);
void op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
	      struct fuse_file_info *fi);
void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			off_t off_out, struct fuse_file_info *fi_out,
			size_t len, int flags);

void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi);
void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi);
void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi);

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		 const char *value, size_t size, int flags);
void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		 size_t size);
void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned cmd, void *arg,
	      struct fuse_file_info *fi, unsigned flags, const void *in_buf,
	      size_t in_bufsz, size_t out_bufsz);

/* Shared by ops_entry.c / ops_dir.c: fill e for an O_PATH fd (consumed)
 * with stat st found in d; raises the node's lookup count. */
int entry_fill(struct node *d, int fd, const struct stat *st, uint64_t mnt,
	       struct fuse_entry_param *e);
/* Does the directory have entries other than ., .. (and the record at
 * the root)?  1 yes, 0 no, -errno. */
int dir_nonempty(struct node *d);
/* renameat2() on SOURCE, 0 or -errno; RENAME_NOREPLACE also where its
 * file system takes no flags (the caller holds the namespace lock of the
 * directory gaining the name). */
int rename2(int ofd, const char *o, int nfd, const char *n, unsigned flags);

/* Monotonic clock in nanoseconds. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Two time stamps equal to the nanosecond. */
static inline int ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Debug log (only with -d). */
void dlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FOLDFS_H */
