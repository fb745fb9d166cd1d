/*
 * record.h - the foldfs encoding record ("superblock") and per-directory
 * casefold attribute, as stored in a SOURCE tree.  Shared by the foldfs
 * daemon and foldfs-check; this module owns the on-disk format.
 *
 * Record: a small text file SOURCE/.foldfs (hidden from the foldfs view):
 *
 *     # foldfs encoding record - do not edit; see foldfs(8)
 *     format=1
 *     encoding=utf8-12.1.0
 *     flags=strict,compat,ignorables     (any subset, comma separated; may be empty)
 *     created=2026-12-03T06:00:00Z
 *     creator=foldfs 0.1
 *
 * Written atomically (a new temp file SOURCE/.foldfs.tmp.PID.N, never an
 * existing one, + fsync + renameat + fsync of the directory).  A record
 * with an unknown format number, an unknown key, or an encoding this
 * build does not know, is refused.  The
 * encoding is stored and returned in canonical form (fold_encoding_name), so
 * "utf8" or "utf8-12.1" never reach the file as aliases.
 * Whether every directory folds (-o casefold) is a property of a mount, not
 * of the tree, so it is not recorded.
 *
 * Casefold attribute of a directory: extended attribute
 * "user.foldfs.casefold" with value "1" on the directory in SOURCE.
 *
 * Descriptors: every rootfd/dirfd below may be an O_RDONLY directory fd or an
 * O_PATH fd.  (f*xattr refuse O_PATH fds with EBADF; the xattr functions
 * then go through /proc/self/fd/N, so /proc must be mounted for that case.)
 */
#ifndef FOLDFS_RECORD_H
#define FOLDFS_RECORD_H

#include <stdint.h>
#include <stddef.h>

#include "fold.h"

#define FOLDFS_RECORD_NAME ".foldfs"
#define FOLDFS_XATTR_CASEFOLD "user.foldfs.casefold"
#define FOLDFS_XATTR_PREFIX "user.foldfs."

/* Linux inode flag reported by FS_IOC_GETFLAGS (lsattr 'F'). */
#define FOLDFS_CASEFOLD_FL 0x40000000u

struct foldfs_record {
	int format;	    /* 1 */
	char encoding[32];  /* canonical, e.g. "utf8-12.1.0" or "ascii" */
	unsigned flags;	    /* FOLD_STRICT | FOLD_COMPAT | FOLD_IGNORABLES */
	char created[32];   /* ISO 8601 UTC */
	char creator[32];
};

/*
 * Read SOURCE's record through an open directory fd of SOURCE's root.
 * Returns 0, -ENOENT if there is none, or another -errno (-EINVAL for a
 * malformed record, an unsupported format or an encoding this build does
 * not know).  On any error other than -ENOENT, err[0..errlen) holds a
 * one-line message (without the path of SOURCE).
 */
int foldfs_record_read(int rootfd, struct foldfs_record *rec, char *err,
		       size_t errlen);

/* Write (create or replace) the record atomically. Returns 0 or -errno
 * (-EINVAL for an unknown encoding/flag or a field containing a newline).
 * format 0 is taken as 1; an empty created/creator is filled in with the
 * current UTC time / "foldfs VERSION". */
int foldfs_record_write(int rootfd, const struct foldfs_record *rec);
/* The same, but only if there is no record yet: -EEXIST if there is one
 * (another first mount was quicker), which the caller then reads. */
int foldfs_record_create(int rootfd, const struct foldfs_record *rec);

/* May the record in parentfd (a parent directory of a SOURCE that has
 * none, owner source_uid) govern that SOURCE?  Only if it is owned by
 * root, by the calling user or by SOURCE's owner: anyone may write a
 * .foldfs into /tmp.  1 if so, 0 if not, -errno if it cannot be looked
 * at (-ENOENT: there is none).  foldfs and foldfs-check use the same rule
 * to find a tree's record. */
int foldfs_record_governs(int parentfd, unsigned source_uid);

/* Is fd (any directory descriptor) inside a foldfs view?  A view hides
 * .foldfs, so the tree's record cannot be read through it.  Returns 1 and
 * the view's source (its fsname, normally SOURCE's absolute path) in
 * src[0..cap); 2 (src filled likewise) if that name does not reach the
 * tree itself (a view mounted over its own SOURCE, or an fsname= that is
 * no directory outside the view); else 0 (also when
 * /proc/self/mountinfo cannot be read). */
int foldfs_on_view(int fd, char *src, size_t cap);

/* Fill a struct fold_ctx for comparison (FOLD_CASEFOLD form, rec's flags).
 * Returns 0 or a FOLD_E* code. */
int foldfs_record_ctx(const struct foldfs_record *rec, struct fold_ctx *ctx);

/* s made safe for a terminal, into out[0..cap) (always terminated, cut
 * only between whole characters or escapes; 4 * strlen(s) + 1 bytes hold
 * all of it): C0 and C1 controls, DEL, bidi controls, line separators and
 * bytes of ill-formed UTF-8 as \xNN, a backslash as \\.  Returns out. */
char *foldfs_escape(const char *s, char *out, size_t cap);

/* Human-readable multi-line dump, like dumpe2fs -h / xfs_info; the
 * record's free-text fields and source are escaped (foldfs_escape). */
void foldfs_record_print(const struct foldfs_record *rec, const char *source,
			 void *stdio_file /* FILE * */);

/* Parse "strict,compat,ignorables" into FOLD_* flags; returns 0 or -EINVAL. */
int foldfs_flags_parse(const char *s, unsigned *flags);
/* Format flags as "strict,compat,ignorables" (or "" for none). */
void foldfs_flags_format(unsigned flags, char *buf, size_t cap);

/* Casefold attribute of a directory fd: 1 set, 0 not set, -errno on error
 * (-ENOTSUP/-EOPNOTSUPP when SOURCE has no user xattrs). */
int foldfs_dir_casefold_get(int dirfd);
int foldfs_dir_casefold_set(int dirfd, int on);

#endif /* FOLDFS_RECORD_H */
