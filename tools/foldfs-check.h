/*
 * foldfs-check.h - internal interfaces between the modules of foldfs-check:
 *   foldfs-check.c         options, per-tree setup, modes, exit status
 *   foldfs-check-walk.c    one-pass tree walk with a bounded number of fds
 *   foldfs-check-scan.c    per-directory analysis (collisions, ill-formed
 *                          names, what-if comparison against another ctx)
 *   foldfs-check-fix.c     collision renames and their log
 *   foldfs-check-undo.c    --undo: parse the log, reverse its renames
 *   foldfs-check-report.c  text and JSON Lines output, name escaping
 */
#ifndef FOLDFS_CHECK_H
#define FOLDFS_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "u8.h"
#include <sys/types.h>

#include "fold.h"
#include "record.h"

/* fsck(8) exit status bits, OR-ed together. */
#define EXIT_CLEAN 0
#define EXIT_CORRECTED 1
#define EXIT_UNCORRECTED 4
#define EXIT_OPERATIONAL 8
#define EXIT_USAGE 16

/* One directory entry of the directory being analysed. */
struct ent {
	uint32_t off;	/* name in dirbuf.pool */
	uint32_t len;
	uint64_t hash;	/* fold_hash under the base ctx */
	int32_t group;	/* index of the first member of its class */
	int32_t next;	/* next member of the same class, -1 at the end */
	int32_t tgroup; /* same, under the what-if ctx */
	int32_t tnext;
	uint8_t is_dir;
	uint8_t bad;	 /* ill-formed under the base ctx */
	uint8_t renamed; /* renamed by --fix: name now differs */
	uint8_t dup;	 /* a second listing of the same name (scan_dir) */
};

/* All entries of one directory; reused from directory to directory. */
struct dirbuf {
	char *pool;
	size_t pool_len, pool_cap;
	struct ent *ents;
	size_t n, cap;
	int32_t *table; /* open addressing: index into ents, -1 empty */
	size_t tcap;
	int32_t *ttable; /* the same for the what-if ctx */
	size_t ttcap;
	uint64_t *th;	 /* hashes under the what-if ctx */
	int32_t *tmp, *tmp2, *tmp3; /* per-entry scratch */
	size_t scap;
};

/* Counters for one PATH operand. */
struct stats {
	uint64_t dirs, folding_dirs, names;
	uint64_t groups, colliding;	/* current collisions */
	uint64_t groups_fixed;		/* ... all of whose losers were renamed */
	uint64_t ill_formed, ill_errors; /* all / under a strict ctx */
	uint64_t errors;		 /* operational: unreadable parts */
	uint64_t renamed, would_rename, rename_failed;
	uint64_t class_changes, would_collide, would_split, would_strict;
	uint64_t xattr_set;
};

enum mode {
	MODE_CHECK,
	MODE_INFO,
	MODE_SET_ENCODING,
	MODE_CASEFOLD_DIR,
	MODE_UNDO,
};

struct check {
	/* options */
	enum mode mode;
	int json, quiet, force_casefold, fix, yes, xdev, progress;
	const char *encoding_opt; /* --encoding */
	const char *profile_opt;  /* --profile */
	int have_flags_opt;
	unsigned flags_opt;	    /* --flags */
	const char *upgrade_to;	    /* --upgrade-to */
	int toggle_compat, toggle_ignorables;
	const char *set_encoding;   /* --set-encoding */
	int have_set_flags;
	unsigned set_flags;
	const char *log_path;	    /* --log */
	const char *undo_path;	    /* --undo */
	unsigned max_fds;
	unsigned long stop_after;   /* FOLDFS_CHECK_STOP_AFTER test hook */

	/* per-tree state */
	const char *root;	  /* PATH as given */
	size_t root_len;	  /* ... without trailing slashes */
	char *root_abs;		  /* realpath(PATH) for the rename log */
	const char *record_dir;	  /* where the record was found, or NULL */
	int have_record;
	struct foldfs_record rec;
	struct fold_ctx ctx;	  /* base: FOLD_CASEFOLD + flags */
	struct fold_ctx kctx;	  /* base without FOLD_STRICT (keys never fail) */
	int whatif;		  /* a target ctx is set */
	struct fold_ctx tctx;	  /* what-if target, FOLD_STRICT stripped */
	unsigned tflags;	  /* target flags including strict */
	char enc_name[64], tenc_name[64];
	struct fold_seed seed;
	int record_root_fd_dev_ino_set;
	dev_t rec_dev;
	ino_t rec_ino;		  /* directory holding .foldfs (skip it there) */
	int setting_xattr;	  /* walk only sets the casefold attribute
				     (XATTR_SET), or takes it off where this
				     run set it (XATTR_UNDO) */
	struct devino *xset;	  /* directories this run set it on */
	size_t nxset, capxset;
	struct stats st;
	int dir_reported;	  /* current directory header printed (text) */

	/* rename log */
	int log_fd;
	char *log_name;
	dev_t log_dev;		  /* the log itself is never renamed */
	ino_t log_ino;
	int log_err;		  /* errno that made the log unusable, or 0 */
	unsigned long renames_done;

	/* scratch */
	char *kbuf, *kbuf2;
	size_t kcap, kcap2;
	struct dirbuf db;
};

#define XATTR_SET 1
#define XATTR_UNDO 2
struct devino {
	dev_t dev;
	ino_t ino;
};

/* walk.c */
int walk_tree(struct check *c, const char *path);
/* Before a walk with setting_xattr = XATTR_UNDO. */
void walk_sort_xset(struct check *c);

/* scan.c: analyse one directory (fd open on it); may rename via fix.c. */
void scan_dir(struct check *c, int dirfd, const char *path, size_t pathlen,
	      int folds);
int dirbuf_add(struct dirbuf *db, const char *name, size_t len, int is_dir);
void dirbuf_reset(struct dirbuf *db);
void dirbuf_free(struct dirbuf *db);
/* key of s under ctx into c->kbuf (grown as needed); returns length. */
ssize_t key_of(struct check *c, const struct fold_ctx *ctx, const char *s,
	       size_t n, int second);

/* For fix.c: is a name equivalent to s present; add s as a new entry. */
int scan_name_taken(struct check *c, const char *s, size_t n);
/* The entry heading the class of s, or -1. */
int32_t scan_name_class(struct check *c, const char *s, size_t n);
int scan_add_name(struct check *c, const char *s, size_t n, int is_dir);

/* fix.c */
int fix_open_log(struct check *c);
void fix_close_log(struct check *c);
/* The number after the one the last loser of a kind in a collision
 * group got, and the entry of the name it got (-1: none yet). */
struct fix_next {
	unsigned num;
	int32_t ent;
};
/* Rename entry i of db (in dirfd) to a unique spelling; 0 or -errno.
 * next[is_dir] is the group's, kept up to date. */
int fix_rename(struct check *c, int dirfd, const char *path, size_t pathlen,
	       size_t i, struct fix_next next[2]);

/* undo.c */
/* First line of a log: LOG_MAGIC, then the format number (1: no inode
 * numbers; 2, written now: rename and failed lines end with one). */
#define LOG_MAGIC "# foldfs-check rename log, format "
#define LOG_FORMAT 2
/* One "rename" line of a log: in dir, old was renamed to new; ino is the
 * inode number of what was renamed (has_ino = 0 in format 1 logs). */
struct undo_ent {
	char *dir, *old, *new;
	size_t oldlen, newlen;
	unsigned long long ino;
	int has_ino;
	int line;
};
/* Parse a whole log; 0 with the renames (oldest first), or -1 for a log
 * that is damaged or not a log (messages to msgs, if not NULL). */
int undo_parse(FILE *f, const char *logpath, FILE *msgs,
	       struct undo_ent **ents, size_t *n);
void undo_free(struct undo_ent *ents, size_t n);
int undo_log(struct check *c, const char *logpath);

/* report.c */
/* Length (1..4) of the well-formed UTF-8 sequence at s and its code point,
 * or 0 when s[0] does not start one. */
void rep_escape(FILE *f, const char *s, size_t n);
void rep_json_str(FILE *f, const char *s, size_t n);
/* s escaped as rep_escape() writes it, for messages; valid until four
 * more calls. */
const char *rep_q(const char *s);
/* The flags as reports name them: the record's, and the kernel's order of
 * marks that --profile ext4 adds. */
void rep_flags_text(unsigned flags, char *buf, size_t cap);
/* Close a JSON object on stdout, with "error": strerror(err) if err. */
void rep_json_end(int err);
void rep_hex(FILE *f, const char *s, size_t n);
void rep_json_name(FILE *f, const char *key, const char *s, size_t n);
void rep_dir_header(struct check *c, const char *path, size_t pathlen);
void rep_json_begin(struct check *c, const char *type, const char *path,
		    size_t pathlen);
void rep_error(struct check *c, const char *path, size_t pathlen,
	       const char *name, const char *what, int err);
void rep_note(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rep_summary(struct check *c, int status);
void rep_progress(struct check *c, const char *path, size_t pathlen, int done);
void rep_version(FILE *f, uint32_t v);

#endif /* FOLDFS_CHECK_H */
