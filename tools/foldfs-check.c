/*
 * foldfs-check.c - the fsck of case-insensitive trees: command line, the
 * setup of each PATH (which encoding record applies, which contexts to
 * compare), the modes (--info, --set-encoding, --casefold-dir, --undo) and
 * the fsck(8)-style exit status.  The walk, the analysis, the fixes and the
 * output live in the other foldfs-check-*.c modules.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "foldfs-check.h"
#include "opterr.h"

#ifndef FOLDFS_VERSION
#define FOLDFS_VERSION "0.1"
#endif

#define DEFAULT_ENCODING "utf8-12.1"

static void usage(FILE *f)
{
	fputs(
"Usage: foldfs-check [OPTIONS] PATH...\n"
"       foldfs-check --info PATH...\n"
"       foldfs-check --set-encoding ENC [--set-flags LIST] [OPTIONS] SOURCE\n"
"       foldfs-check --casefold-dir DIR [--fix [--yes]] [OPTIONS]\n"
"       foldfs-check --undo LOG\n"
"\n"
"Check directory trees for names that a case-insensitive, normalization-\n"
"insensitive foldfs view cannot tell apart.  Works on the SOURCE tree\n"
"directly; no mount is needed.  In every folding directory it reports\n"
"groups of equivalent names (and which one a lookup of any other spelling\n"
"resolves to: the bytewise smallest), ill-formed UTF-8 names, and on\n"
"request what another encoding or profile would change.\n"
"\n"
"The encoding is taken from the record SOURCE/.foldfs (searched in PATH and\n"
"its parents); without one, utf8-12.1 with no flags is assumed (what foldfs\n"
"creates by default).  A directory folds if it carries the extended\n"
"attribute user.foldfs.casefold=1 (chattr +F through a mount), or always\n"
"with --casefold (as a mount with -o casefold).\n"
"\n"
"What to compare with:\n"
"  -e, --encoding ENC     use ENC instead of the record: utf8-X.Y[.Z], utf8\n"
"                         (newest known), ascii\n"
"      --flags LIST       use these flags instead of the record's:\n"
"                         strict,compat,ignorables (any subset, or \"\")\n"
"  -p, --profile ext4     compare as the Linux kernel's casefolding ext4,\n"
"                         f2fs and tmpfs directories do (utf8-12.1,\n"
"                         ignorables dropped, the kernel's order of marks):\n"
"                         what would collide once copied into one; not\n"
"                         with --encoding, --flags, --set-encoding,\n"
"                         --casefold-dir or --info\n"
"  -c, --casefold         treat every directory as folding\n"
"\n"
"What-if reports (names whose equivalence class would change count as\n"
"problems):\n"
"  -u, --upgrade-to VER   compare with Unicode version VER (e.g. 15.0):\n"
"                         every name whose class changes, the code points\n"
"                         responsible and their ages, what would start or\n"
"                         stop colliding\n"
"      --compat           compare with the compat flag flipped (NFKD based:\n"
"                         ligatures, fullwidth forms... match plain ones)\n"
"      --ignorables       compare with the ignorables flag flipped\n"
"                         (Default_Ignorable_Code_Point dropped or kept)\n"
"\n"
"Repairs:\n"
"      --fix              resolve collisions by renaming every name but the\n"
"                         winner to a unique readable spelling, e.g.\n"
"                         'Report (2).txt'; a dry run unless --yes is given\n"
"  -y, --yes              really rename (each rename is atomic, never\n"
"                         replaces anything, and is logged first)\n"
"      --log FILE         rename log (default\n"
"                         ./foldfs-check-fix-YYYYmmdd-HHMMSS.log, appended)\n"
"      --undo LOG         reverse every rename in LOG, newest first\n"
"      --casefold-dir DIR turn on the casefold attribute of DIR and every\n"
"                         directory below it, after proving that no\n"
"                         collisions exist (combine with --fix --yes to\n"
"                         resolve them first)\n"
"      --info             print the encoding record of each PATH\n"
"      --set-encoding ENC change the record of SOURCE to ENC, only if no\n"
"                         name in any folding directory would change class\n"
"      --set-flags LIST   with --set-encoding: the new flags (default: keep)\n"
"\n"
"Output:\n"
"  -j, --json             JSON Lines: one object per finding, then a summary\n"
"  -q, --quiet            only problems: no header, no summary (text\n"
"                         output; --json writes every object)\n"
"  -x, --one-file-system  do not descend into other file systems\n"
"      --progress         show the progress line even when stderr is not a\n"
"                         terminal (default: only on a terminal)\n"
"      --no-progress      never show it\n"
"      --max-fds N        keep at most N directory fds open (default 64)\n"
"  -h, --help             this help\n"
"  -V, --version          version\n"
"\n"
"Exit status (as fsck(8); bits are OR-ed):\n"
"  0   no problems\n"
"  1   problems were corrected (--fix --yes renamed names)\n"
"  4   problems left uncorrected (collisions, ill-formed names under a\n"
"      strict record, class changes in a what-if, refused --set-encoding or\n"
"      --casefold-dir, --undo conflicts)\n"
"  8   operational error (unreadable parts of a tree, I/O errors; the walk\n"
"      goes on after reporting them), a PATH on a read-only file system\n"
"      for a change (--fix --yes, --casefold-dir, --set-encoding)\n"
"  16  usage error\n"
"\n"
"See foldfs-check(1) for the JSON format and the rename log.\n",
	      f);
}

static int parse_unsigned(const char *s, unsigned long *v)
{
	char *e;

	errno = 0;
	*v = strtoul(s, &e, 10);
	return !*s || *e || errno || s[0] == '-' ? -1 : 0;
}

/* "15.0", "15.0.0", "utf8-15.0" -> "utf8-15.0" */
static const char *version_encoding(const char *v, char *buf, size_t cap)
{
	if (!strncmp(v, "utf8", 4) || !strcmp(v, "ascii"))
		return v;
	snprintf(buf, cap, "utf8-%s", v);
	return buf;
}

/* Search PATH and its parents (within one file system) for a record. */
static int find_record(struct check *c)
{
	char *dir = strdup(c->root_abs);
	char err[256];
	struct stat st0;
	int r = -ENOENT;

	if (!dir)
		return -ENOMEM;
	if (stat(dir, &st0) < 0) {
		/* realpath() succeeds where stat() does not: a FUSE mount
		 * whose daemon died (ENOTCONN) or another user's view
		 * (EACCES); exit 8 must not be silent */
		r = -errno;
		fprintf(stderr, "foldfs-check: %s: %s\n", rep_q(c->root_abs),
			strerror(-r));
		free(dir);
		return r;
	}
	for (;;) {
		struct stat st;
		/* O_PATH: a directory we may search but not list (0711)
		 * can still hold the record */
		int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0) {
			r = -errno;
			fprintf(stderr,
				"foldfs-check: cannot look for the encoding "
				"record in %s: %s\n",
				rep_q(dir), strerror(-r));
			free(dir);
			return r;
		}
		if (fstat(fd, &st) < 0 || st.st_dev != st0.st_dev) {
			close(fd);
			break;
		}
		/* above PATH, a record of someone else's counts not (the
		 * daemon's rule: foldfs_record_governs) */
		if (strcmp(dir, c->root_abs) &&
		    foldfs_record_governs(fd, (unsigned)st0.st_uid) == 0) {
			close(fd);
			break;
		}
		r = foldfs_record_read(fd, &c->rec, err, sizeof err);
		close(fd);
		if (r == 0) {
			c->have_record = 1;
			c->record_dir = dir;
			c->record_root_fd_dev_ino_set = 1;
			c->rec_dev = st.st_dev;
			c->rec_ino = st.st_ino;
			return 0;
		}
		if (r != -ENOENT) {
			fprintf(stderr, "foldfs-check: %s/%s: %s\n",
				strcmp(dir, "/") ? rep_q(dir) : "",
				FOLDFS_RECORD_NAME, err);
			free(dir);
			return r;
		}
		if (!strcmp(dir, "/"))
			break;
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(dir);
	return -ENOENT;
}

/* Through a view the tree's record is hidden: the defaults would be
 * assumed, and collisions judged wrongly (or --info would say there is
 * no record).  1 (said so) if c->root_abs lies inside one, else 0. */
static int refuse_view(struct check *c, const char *path)
{
	char vsrc[PATH_MAX];
	int fd = open(c->root_abs, O_PATH | O_CLOEXEC);
	int view = fd >= 0 ? foldfs_on_view(fd, vsrc, sizeof vsrc) : 0;

	if (fd >= 0)
		close(fd);
	if (view == 2) {
		fprintf(stderr,
			"foldfs-check: %s is inside a foldfs view of %s, "
			"which hides the tree's encoding record, and %s does "
			"not lead to the tree (the view is mounted over it, "
			"or named otherwise with fsname=): unmount the view, "
			"or check the tree's own directory\n",
			rep_q(path), rep_q(vsrc), rep_q(vsrc));
		return 1;
	}
	if (view) {
		fprintf(stderr,
			"foldfs-check: %s is inside a foldfs view of %s, "
			"which hides the tree's encoding record: check the "
			"directory in %s instead\n",
			rep_q(path), rep_q(vsrc), rep_q(vsrc));
		return 1;
	}
	return 0;
}

static int init_ctx(struct fold_ctx *ctx, const char *enc, unsigned flags,
		    const char *what)
{
	int r = fold_init(ctx, enc, FOLD_CASEFOLD, flags);

	if (r < 0)
		fprintf(stderr, "foldfs-check: %s encoding '%s': %s\n", what,
			rep_q(enc), fold_strerror(r));
	return r;
}

/* Set up contexts for one PATH. Returns 0 or an exit status. */
static int setup_tree(struct check *c, const char *path)
{
	const char *enc;
	unsigned flags;
	int r;
	char vbuf[64], fl[64];

	c->root = path;
	c->root_len = strlen(path);
	while (c->root_len > 1 && path[c->root_len - 1] == '/')
		c->root_len--;
	c->root_abs = realpath(path, NULL);
	if (!c->root_abs) {
		int e = errno;
		fprintf(stderr, "foldfs-check: %s: %s\n", rep_q(path),
			strerror(e));
		return EXIT_OPERATIONAL;
	}
	c->have_record = 0;
	c->record_dir = NULL;
	c->record_root_fd_dev_ino_set = 0;
	if (refuse_view(c, path))
		return EXIT_OPERATIONAL;
	if (c->mode == MODE_SET_ENCODING ||
	    (c->fix ? c->yes : c->mode == MODE_CASEFOLD_DIR)) {
		/* Said once, before the walk, rather than as a failed
		 * rename in every collision. */
		struct statvfs sv;
		if (statvfs(path, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
			fprintf(stderr,
				"foldfs-check: %s: read-only file system: "
				"nothing can be %s (remount it read-write%s)\n",
				rep_q(path),
				c->mode == MODE_SET_ENCODING ? "recorded" :
				c->fix			     ? "renamed" :
							       "marked",
				c->fix ? ", or drop --yes for a dry run" : "");
			return EXIT_OPERATIONAL;
		}
	}
	r = find_record(c);
	if (r < 0 && r != -ENOENT)
		return EXIT_OPERATIONAL;
	if (c->mode == MODE_SET_ENCODING && c->have_record &&
	    strcmp(c->record_dir, c->root_abs)) {
		/* A record here would hide the enclosing one for this
		 * subtree, whose names follow that one now. */
		fprintf(stderr,
			"foldfs-check: refusing --set-encoding: %s is inside "
			"the tree recorded in %s/%s; set the encoding there\n",
			rep_q(c->root),
			strcmp(c->record_dir, "/") ? rep_q(c->record_dir) : "",
			FOLDFS_RECORD_NAME);
		return EXIT_UNCORRECTED;
	}

	enc = c->encoding_opt ? c->encoding_opt
	      : c->have_record ? c->rec.encoding
			       : DEFAULT_ENCODING;
	flags = c->have_flags_opt ? c->flags_opt
		: c->have_record  ? c->rec.flags
				  : 0;
	if (c->profile_opt) {
		if (fold_init_profile(&c->ctx, c->profile_opt) < 0)
			return EXIT_USAGE; /* checked with the options */
		flags = c->ctx.flags;
	} else if (init_ctx(&c->ctx, enc, flags, "base") < 0) {
		return EXIT_USAGE;
	}
	fold_encoding_name(&c->ctx, c->enc_name, sizeof c->enc_name);
	c->kctx = c->ctx;
	fold_init(&c->kctx, c->enc_name, FOLD_CASEFOLD, flags & ~FOLD_STRICT);

	c->whatif = 0;
	if (c->upgrade_to || c->toggle_compat || c->toggle_ignorables ||
	    c->mode == MODE_SET_ENCODING) {
		const char *tenc = c->enc_name;
		unsigned tfl = flags;

		if (c->mode == MODE_SET_ENCODING) {
			tenc = c->set_encoding;
			if (c->have_set_flags)
				tfl = c->set_flags;
		}
		if (c->upgrade_to)
			tenc = version_encoding(c->upgrade_to, vbuf,
						sizeof vbuf);
		if (c->toggle_compat)
			tfl ^= FOLD_COMPAT;
		if (c->toggle_ignorables)
			tfl ^= FOLD_IGNORABLES;
		if (init_ctx(&c->tctx, tenc, tfl & ~FOLD_STRICT, "target") < 0)
			return EXIT_USAGE;
		c->tflags = tfl;
		fold_encoding_name(&c->tctx, c->tenc_name,
				   sizeof c->tenc_name);
		if (tfl != flags) {
			size_t l = strlen(c->tenc_name);

			rep_flags_text(tfl, fl, sizeof fl);
			snprintf(c->tenc_name + l, sizeof c->tenc_name - l,
				 "[%s]", fl[0] ? fl : "no flags");
		}
		c->whatif = 1;
	}
	if (getrandom(&c->seed, sizeof c->seed, 0) != sizeof c->seed) {
		c->seed.k0 = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
		c->seed.k1 = (uint64_t)(uintptr_t)&c ^ 0x5851f42d4c957f2dull;
	}
	memset(&c->st, 0, sizeof c->st);

	rep_flags_text(flags, fl, sizeof fl);
	if (c->json) {
		fputs("{\"type\":\"tree\",", stdout);
		rep_json_name(stdout, "path", path, strlen(path));
		printf(",\"encoding\":\"%s\",\"flags\":\"%s\",\"record\":",
		       c->enc_name, fl);
		if (c->record_dir) {
			char *rp = NULL;
			if (asprintf(&rp, "%s%s%s", c->record_dir,
				     strcmp(c->record_dir, "/") ? "/" : "",
				     FOLDFS_RECORD_NAME) < 0)
				rp = NULL;
			if (rp)
				rep_json_str(stdout, rp, strlen(rp));
			else
				fputs("null", stdout);
			free(rp);
		} else {
			fputs("null", stdout);
		}
		printf(",\"source\":\"%s\",\"folding\":\"%s\"",
		       c->encoding_opt || c->have_flags_opt ||
				       c->profile_opt ? "options"
		       : c->have_record		      ? "record"
						      : "default",
		       c->force_casefold ? "all" : "attribute");
		if (c->profile_opt)
			printf(",\"profile\":\"%s\"", c->profile_opt);
		if (c->whatif)
			printf(",\"target\":\"%s\"", c->tenc_name);
		fputs("}\n", stdout);
	} else if (!c->quiet) {
		printf("foldfs-check: ");
		rep_escape(stdout, path, strlen(path));
		printf(": encoding %s, flags %s", c->enc_name,
		       fl[0] ? fl : "(none)");
		if (c->profile_opt)
			printf(" (--profile %s: the Linux kernel's "
			       "casefolding directories)", c->profile_opt);
		else if (c->encoding_opt || c->have_flags_opt)
			printf(" (from the command line)");
		else if (c->have_record)
			printf(" (record %s%s%s)", rep_q(c->record_dir),
			       strcmp(c->record_dir, "/") ? "/" : "",
			       FOLDFS_RECORD_NAME);
		else
			printf(" (no encoding record: assuming foldfs's "
			       "defaults)");
		printf("; folding directories: %s\n",
		       c->force_casefold ? "all (--casefold)"
					 : "those with " FOLDFS_XATTR_CASEFOLD);
		if (c->whatif)
			printf("foldfs-check: comparing with %s\n",
			       c->tenc_name);
	}
	return 0;
}

static int tree_status(const struct check *c)
{
	const struct stats *s = &c->st;
	int st = 0;
	uint64_t left = (s->groups - s->groups_fixed) + s->ill_errors +
			s->rename_failed;

	if (c->whatif)
		left += s->class_changes + s->would_collide + s->would_split +
			s->would_strict;
	if (s->errors)
		st |= EXIT_OPERATIONAL;
	if (s->renamed)
		st |= EXIT_CORRECTED;
	if (left)
		st |= EXIT_UNCORRECTED;
	return st;
}

static void teardown_tree(struct check *c)
{
	free(c->root_abs);
	c->root_abs = NULL;
	free((char *)c->record_dir);
	c->record_dir = NULL;
}

/* --info of one PATH, found as a check finds it: not through a view
 * (which hides the record), and a PATH without a record of its own inside
 * a recorded tree is named as such (a mount of it uses that record and
 * creates none). */
static int do_info(struct check *c, const char *path)
{
	struct foldfs_record rec;
	const char *up = NULL;
	int r;

	c->have_record = 0;
	c->record_dir = NULL;
	c->root_abs = realpath(path, NULL);
	if (!c->root_abs) {
		int e = errno;
		fprintf(stderr, "foldfs-check: %s: %s\n", rep_q(path),
			strerror(e));
		return EXIT_OPERATIONAL;
	}
	if (refuse_view(c, path))
		return EXIT_OPERATIONAL;
	r = find_record(c);
	if (r < 0 && r != -ENOENT)
		return EXIT_OPERATIONAL; /* (said so) */
	if (r == 0 && strcmp(c->record_dir, c->root_abs))
		up = c->record_dir;
	if (r == -ENOENT || up) {
		if (c->json) {
			fputs("{\"type\":\"record\",", stdout);
			rep_json_name(stdout, "path", path, strlen(path));
			fputs(",\"present\":false", stdout);
			if (up) {
				putc(',', stdout);
				rep_json_name(stdout, "tree", up, strlen(up));
			}
			fputs("}\n", stdout);
		} else if (up) {
			printf("%s: no encoding record of its own; it lies in "
			       "the tree recorded in %s%s%s, which a mount of "
			       "it uses (foldfs-check --info %s)\n",
			       rep_q(path), rep_q(up),
			       strcmp(up, "/") ? "/" : "", FOLDFS_RECORD_NAME,
			       rep_q(up));
		} else {
			printf("%s: no encoding record (%s); foldfs creates "
			       "one at the first read-write mount (default "
			       "%s)\n",
			       rep_q(path), FOLDFS_RECORD_NAME, DEFAULT_ENCODING);
		}
		return 1;
	}
	rec = c->rec;
	if (c->json) {
		char fl[64];

		foldfs_flags_format(rec.flags, fl, sizeof fl);
		fputs("{\"type\":\"record\",", stdout);
		rep_json_name(stdout, "path", path, strlen(path));
		printf(",\"present\":true,\"format\":%d,\"encoding\":",
		       rec.format);
		rep_json_str(stdout, rec.encoding, strlen(rec.encoding));
		printf(",\"flags\":\"%s\",\"created\":", fl);
		rep_json_str(stdout, rec.created, strlen(rec.created));
		fputs(",\"creator\":", stdout);
		rep_json_str(stdout, rec.creator, strlen(rec.creator));
		fputs("}\n", stdout);
	} else {
		foldfs_record_print(&rec, path, stdout); /* (escapes) */
	}
	return 0;
}

static int do_set_encoding(struct check *c)
{
	struct foldfs_record rec;
	int status = tree_status(c), fd, r;

	if (status & (EXIT_OPERATIONAL | EXIT_USAGE)) {
		fprintf(stderr,
			"foldfs-check: %s: parts of the tree could not be "
			"read; the record is unchanged\n",
			rep_q(c->root));
		return status | EXIT_UNCORRECTED;
	}
	if (c->st.class_changes || c->st.would_collide || c->st.would_split ||
	    c->st.would_strict) {
		char enc[64];

		fold_encoding_name(&c->tctx, enc, sizeof enc);
		fprintf(stderr,
			"foldfs-check: %s: refusing --set-encoding %s: the "
			"names listed above would change equivalence or be "
			"refused; rename them (collisions under the new "
			"encoding: --fix --encoding %s) and retry\n",
			rep_q(c->root), c->tenc_name, enc);
		return status | EXIT_UNCORRECTED;
	}
	memset(&rec, 0, sizeof rec);
	if (c->have_record) {
		rec = c->rec;
		rec.creator[0] = '\0';
	}
	rec.format = 1;
	fold_encoding_name(&c->tctx, rec.encoding, sizeof rec.encoding);
	rec.flags = c->tflags;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		fprintf(stderr, "foldfs-check: %s: %s\n", rep_q(c->root),
			strerror(e));
		return EXIT_OPERATIONAL;
	}
	snprintf(rec.creator, sizeof rec.creator, "foldfs-check %s",
		 FOLDFS_VERSION);
	/* A mounted view keeps the encoding it was mounted with (and would
	 * let names in that collide under the new one): every foldfs daemon
	 * holds a shared lock on the record it read. */
	int lk = openat(fd, FOLDFS_RECORD_NAME,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (lk >= 0 && flock(lk, LOCK_EX | LOCK_NB) < 0 &&
	    errno == EWOULDBLOCK) {
		fprintf(stderr,
			"foldfs-check: %s: refusing --set-encoding: the tree "
			"is mounted by foldfs, which keeps the encoding it "
			"was mounted with; unmount every view of it and "
			"retry\n",
			rep_q(c->root));
		close(lk);
		close(fd);
		return status | EXIT_UNCORRECTED;
	}
	r = foldfs_record_write(fd, &rec);
	if (lk >= 0)
		close(lk); /* (after the new record is in place) */
	close(fd);
	if (r < 0) {
		fprintf(stderr, "foldfs-check: %s/%s: cannot write: %s\n",
			rep_q(c->root), FOLDFS_RECORD_NAME, strerror(-r));
		return EXIT_OPERATIONAL;
	}
	rep_note(c, "%s: encoding record set to %s (was %s%s)", c->root,
		 c->tenc_name, c->enc_name,
		 c->have_record ? "" : ", no record");
	/* collisions (and strict errors) that were there stay problems */
	return status;
}

static int do_casefold_dir(struct check *c)
{
	int status = tree_status(c);
	struct stats keep = c->st;

	if (status & (EXIT_OPERATIONAL | EXIT_UNCORRECTED)) {
		fprintf(stderr,
			"foldfs-check: %s: refusing to turn on casefold: %s\n",
			rep_q(c->root),
			status & EXIT_UNCORRECTED
				? "collisions or invalid names remain (see "
				  "above; --fix --yes resolves collisions)"
				: "parts of the tree could not be read");
		return status | EXIT_UNCORRECTED;
	}
	if (c->fix && !c->yes) {
		/* --fix without --yes is a dry run of the whole command */
		rep_note(c, "%s: dry run: no collisions; the casefold "
			    "attribute was not set (add --yes to set it)",
			 c->root);
		return status;
	}
	c->nxset = 0;
	c->setting_xattr = XATTR_SET;
	walk_tree(c, c->root);
	if (c->st.errors) {
		/* All or nothing: take it off where this run put it. */
		uint64_t failed = c->st.errors;

		walk_sort_xset(c);
		c->setting_xattr = XATTR_UNDO;
		walk_tree(c, c->root);
		fprintf(stderr,
			"foldfs-check: %s: could not set the casefold "
			"attribute everywhere (errors above); %s the %zu "
			"director%s this run had set it on%s\n",
			rep_q(c->root),
			c->st.errors == failed ? "removed it again from"
					       : "could NOT remove it from all",
			c->nxset, c->nxset == 1 ? "y" : "ies",
			c->st.errors == failed ? ": nothing changed"
					       : ": the tree now folds in part");
		c->st.xattr_set = 0;
	}
	c->setting_xattr = 0;
	/* Report the check's counts, plus what the second walk did. */
	keep.xattr_set = c->st.xattr_set;
	keep.errors = c->st.errors;
	c->st = keep;
	if (c->st.errors)
		return status | EXIT_OPERATIONAL | EXIT_UNCORRECTED;
	rep_note(c, "%s: casefold attribute set on %llu director%s", c->root,
		 (unsigned long long)c->st.xattr_set,
		 c->st.xattr_set == 1 ? "y" : "ies");
	return status;
}

enum {
	OPT_FLAGS = 256,
	OPT_COMPAT,
	OPT_IGNORABLES,
	OPT_FIX,
	OPT_LOG,
	OPT_UNDO,
	OPT_CASEFOLD_DIR,
	OPT_INFO,
	OPT_SET_ENCODING,
	OPT_SET_FLAGS,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_MAX_FDS,
};

static const struct option longopts[] = {
	{ "encoding", required_argument, NULL, 'e' },
	{ "flags", required_argument, NULL, OPT_FLAGS },
	{ "profile", required_argument, NULL, 'p' },
	{ "casefold", no_argument, NULL, 'c' },
	{ "upgrade-to", required_argument, NULL, 'u' },
	{ "compat", no_argument, NULL, OPT_COMPAT },
	{ "ignorables", no_argument, NULL, OPT_IGNORABLES },
	{ "fix", no_argument, NULL, OPT_FIX },
	{ "yes", no_argument, NULL, 'y' },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "undo", required_argument, NULL, OPT_UNDO },
	{ "casefold-dir", required_argument, NULL, OPT_CASEFOLD_DIR },
	{ "info", no_argument, NULL, OPT_INFO },
	{ "set-encoding", required_argument, NULL, OPT_SET_ENCODING },
	{ "set-flags", required_argument, NULL, OPT_SET_FLAGS },
	{ "json", no_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "one-file-system", no_argument, NULL, 'x' },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "max-fds", required_argument, NULL, OPT_MAX_FDS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "foldfs-check: %s%s%s\n", msg, arg ? ": " : "",
		arg ? rep_q(arg) : "");
	fprintf(stderr, "Try 'foldfs-check --help' for more information.\n");
	return EXIT_USAGE;
}

static int run(int argc, char **argv)
{
	/* (not static: fuzz/fuzz-check.c runs it again and again) */
	struct check c = { .log_fd = -1, .max_fds = 64 };
	const char *casefold_dir = NULL;
	int opt, progress = -1, status = 0, i, modes = 0;
	unsigned long v;
	const char *env;

	/* (":": a missing argument is told apart; our messages, escaped) */
	static const char optstring[] = ":e:p:cu:yjqxhV";

	opterr = 0;
	while ((opt = getopt_long(argc, argv, optstring, longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'e':
			c.encoding_opt = optarg;
			break;
		case OPT_FLAGS:
			if (foldfs_flags_parse(optarg, &c.flags_opt) < 0)
				return usage_error("unknown flag in --flags "
						   "(strict, compat, "
						   "ignorables)",
						   optarg);
			c.have_flags_opt = 1;
			break;
		case 'p': {
			struct fold_ctx t; /* libfold knows the profiles */

			if (fold_init_profile(&t, optarg) < 0)
				return usage_error("unknown profile (known: "
						   "ext4)",
						   optarg);
			c.profile_opt = optarg;
			break;
		}
		case 'c':
			c.force_casefold = 1;
			break;
		case 'u':
			c.upgrade_to = optarg;
			break;
		case OPT_COMPAT:
			c.toggle_compat = 1;
			break;
		case OPT_IGNORABLES:
			c.toggle_ignorables = 1;
			break;
		case OPT_FIX:
			c.fix = 1;
			break;
		case 'y':
			c.yes = 1;
			break;
		case OPT_LOG:
			c.log_path = optarg;
			break;
		case OPT_UNDO:
			c.undo_path = optarg;
			c.mode = MODE_UNDO;
			modes++;
			break;
		case OPT_CASEFOLD_DIR:
			casefold_dir = optarg;
			c.mode = MODE_CASEFOLD_DIR;
			modes++;
			break;
		case OPT_INFO:
			c.mode = MODE_INFO;
			modes++;
			break;
		case OPT_SET_ENCODING:
			c.set_encoding = optarg;
			c.mode = MODE_SET_ENCODING;
			modes++;
			break;
		case OPT_SET_FLAGS:
			if (foldfs_flags_parse(optarg, &c.set_flags) < 0)
				return usage_error("unknown flag in "
						   "--set-flags",
						   optarg);
			c.have_set_flags = 1;
			break;
		case 'j':
			c.json = 1;
			break;
		case 'q':
			c.quiet = 1;
			break;
		case 'x':
			c.xdev = 1;
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case OPT_NO_PROGRESS:
			progress = 0;
			break;
		case OPT_MAX_FDS:
			if (parse_unsigned(optarg, &v) < 0 || v < 2 ||
			    v > 100000)
				return usage_error("--max-fds wants a number "
						   "from 2 to 100000",
						   optarg);
			c.max_fds = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("foldfs-check %s\n", FOLDFS_VERSION);
			return 0;
		default: /* '?' or ':' */
			opt_error(stderr, "foldfs-check", opt, argv, optind,
				  optopt, optstring, longopts);
			fprintf(stderr, "Try 'foldfs-check --help' for more "
					"information.\n");
			return EXIT_USAGE;
		}
	}
	if (modes > 1)
		return usage_error("--info, --set-encoding, --casefold-dir "
				   "and --undo exclude each other",
				   NULL);
	if (c.profile_opt && (c.encoding_opt || c.have_flags_opt))
		return usage_error("--profile sets the encoding and the flags: "
				   "not with --encoding or --flags",
				   NULL);
	if (c.profile_opt && (c.mode == MODE_SET_ENCODING ||
			      c.mode == MODE_CASEFOLD_DIR || c.mode == MODE_INFO))
		return usage_error("--profile only compares (a foldfs record "
				   "cannot hold the kernel's order of marks): "
				   "not with --set-encoding, --casefold-dir or "
				   "--info",
				   NULL);
	if (c.yes && !c.fix)
		return usage_error("--yes only goes with --fix", NULL);
	if (c.log_path && !c.fix)
		return usage_error("--log only goes with --fix (--undo takes "
				   "its log as its argument)",
				   NULL);
	if (c.fix && (c.whatif || c.upgrade_to || c.toggle_compat ||
		      c.toggle_ignorables || c.mode == MODE_SET_ENCODING))
		return usage_error("--fix cannot be combined with a what-if "
				   "report or --set-encoding; run them one "
				   "after the other",
				   NULL);
	if (c.mode == MODE_SET_ENCODING &&
	    (c.upgrade_to || c.toggle_compat || c.toggle_ignorables))
		return usage_error("--set-encoding already compares with the "
				   "new encoding",
				   NULL);
	if ((c.mode == MODE_SET_ENCODING || c.mode == MODE_CASEFOLD_DIR) &&
	    (c.encoding_opt || c.have_flags_opt))
		return usage_error("--set-encoding and --casefold-dir check "
				   "under the tree's own record (or foldfs's "
				   "defaults): not with --encoding or --flags "
				   "(--set-flags names the new flags)",
				   NULL);
	if (c.have_set_flags && c.mode != MODE_SET_ENCODING)
		return usage_error("--set-flags only goes with --set-encoding",
				   NULL);
	if (c.mode == MODE_CASEFOLD_DIR) {
		if (optind != argc)
			return usage_error("--casefold-dir takes its directory "
					   "as its argument, no PATH",
					   NULL);
		c.force_casefold = 1;
	} else if (c.mode == MODE_UNDO) {
		if (optind != argc || c.fix)
			return usage_error("--undo takes only the log", NULL);
	} else if (optind == argc) {
		return usage_error("no PATH given", NULL);
	}
	if (c.mode == MODE_SET_ENCODING && argc - optind != 1)
		return usage_error("--set-encoding works on one SOURCE", NULL);
	/* A misspelt encoding or version is a usage error found before any
	 * PATH is looked at, as other options' are, not an operational
	 * error of each PATH (or hidden behind a PATH that does not exist). */
	{
		struct fold_ctx t;
		char vb[64];
		const char *opt[3] = { "--encoding", "--upgrade-to",
				       "--set-encoding" };
		const char *enc[3] = {
			c.encoding_opt,
			c.upgrade_to ? version_encoding(c.upgrade_to, vb,
							sizeof vb)
				     : NULL,
			c.set_encoding };

		for (i = 0; i < 3; i++) {
			int r = enc[i] ? fold_init(&t, enc[i], FOLD_CASEFOLD, 0)
				       : 0;

			if (r < 0) {
				fprintf(stderr, "foldfs-check: %s %s: %s\n",
					opt[i],
					rep_q(i == 1 ? c.upgrade_to : enc[i]),
					fold_strerror(r));
				fputs("Try 'foldfs-check --help' for more "
				      "information.\n", stderr);
				return EXIT_USAGE;
			}
		}
	}
	c.progress = progress >= 0 ? progress : isatty(2);
	if (c.json)
		c.quiet = 0;
	{
		/* directory fds past the open-file limit would fail (EMFILE)
		 * and leave subtrees unwalked: stay below it, with room for
		 * the directory being read, the log and the rest */
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY &&
		    (rlim_t)c.max_fds + 16 > rl.rlim_cur)
			c.max_fds = rl.rlim_cur > 18 ? (unsigned)(rl.rlim_cur - 16)
						     : 2;
	}
	env = getenv("FOLDFS_CHECK_STOP_AFTER");
	if (env && *env) {
		if (parse_unsigned(env, &v) < 0)
			return usage_error("bad FOLDFS_CHECK_STOP_AFTER", env);
		c.stop_after = v;
	}

	if (c.mode == MODE_UNDO) {
		status = undo_log(&c, c.undo_path);
		return status;
	}
	if (c.mode == MODE_INFO) {
		for (i = optind; i < argc; i++) {
			int st = do_info(&c, argv[i]);

			if (c.json && (st & EXIT_OPERATIONAL)) {
				/* as a check does: a reader of the JSON
				 * learns of this PATH too */
				rep_json_begin(&c, "error", argv[i],
					       strlen(argv[i]));
				printf(",\"op\":\"info\",\"errno\":0,"
				       "\"message\":\"no record read (see "
				       "standard error)\",\"exit\":%d}\n",
				       st);
			}
			teardown_tree(&c);
			status |= st;
		}
		return status;
	}

	for (i = optind; i < argc || casefold_dir; i++) {
		const char *path = casefold_dir ? casefold_dir : argv[i];
		int st = setup_tree(&c, path);

		if (!st) {
			if (walk_tree(&c, path) < 0)
				c.st.errors += !c.st.errors;
			st = tree_status(&c);
			if (c.mode == MODE_SET_ENCODING)
				st = do_set_encoding(&c);
			else if (c.mode == MODE_CASEFOLD_DIR)
				st = do_casefold_dir(&c);
			if (c.fix && !c.yes && c.st.would_rename && !c.json &&
			    !c.quiet)
				printf("foldfs-check: dry run: nothing was "
				       "renamed; add --yes to apply\n");
			rep_summary(&c, st);
		} else if (c.json) {
			/* not checked (why: on standard error); a reader of
			 * the JSON still learns of this PATH */
			rep_json_begin(&c, "error", path, strlen(path));
			printf(",\"op\":\"check\",\"errno\":0,\"message\":"
			       "\"not checked (see standard error)\","
			       "\"exit\":%d}\n",
			       st);
		}
		teardown_tree(&c);
		status |= st;
		if (casefold_dir)
			break;
	}
	fix_close_log(&c);
	dirbuf_free(&c.db);
	free(c.kbuf);
	free(c.xset);
	free(c.kbuf2);
	free(c.log_name);
	return status;
}

int main(int argc, char **argv)
{
	int status = run(argc, argv);

	/* Every way out (--info, --undo, --help...): what went to standard
	 * output must have arrived. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "foldfs-check: write error on output\n");
		status |= EXIT_OPERATIONAL;
	}
	return status;
}
