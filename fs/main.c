/*
 * main.c - the foldfs command line: options, the encoding record, the
 * mount and the session loop.
 *
 * Everything that can fail for a reason the user should hear about is
 * checked before the daemon detaches: bad options, a missing SOURCE or
 * mount point, a record that disagrees with the options, a refused
 * mount.  After fuse_daemonize() there is nobody left to tell.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "foldfs.h"
#include "foldfs_ioctl.h"

struct foldfs F;

static const char usage_text[] =
"Usage: foldfs SOURCE MOUNTPOINT [-f] [-d] [-s] [-o OPT[,OPT...]]\n"
"       foldfs --info SOURCE\n"
"       foldfs --respell PATH NEWNAME\n"
"       foldfs --help | --version\n";

static const char help_text[] =
"\n"
"foldfs shows the directory tree SOURCE at MOUNTPOINT with case-insensitive,\n"
"normalization-insensitive and case-preserving name lookups (FUSE).\n"
"\n"
"In a folding directory a name finds the stored entry with exactly its bytes,\n"
"else the bytewise smallest stored name equivalent to it under Unicode full\n"
"case folding and canonical decomposition (encoding record of SOURCE).  Names\n"
"are stored and listed exactly as created.  Creating a name equivalent to an\n"
"existing one fails with EEXIST (open with O_CREAT but without O_EXCL opens\n"
"the existing file).  Directories fold under -o casefold, or when they carry\n"
"the casefold attribute (chattr +F DIR through the mount; only on empty\n"
"directories; inherited by new subdirectories; lsattr shows F).\n"
"\n"
"Options:\n"
"  -f                 stay in the foreground\n"
"  -d                 debug output (implies -f; -o debug: without -f)\n"
"  -s                 single-threaded\n"
"  -h, --help         this text\n"
"  -V, --version      print the version\n"
"  --info SOURCE      print the encoding record of SOURCE and exit\n"
"                     (exit status 1 if it has none)\n"
"  --respell PATH NEWNAME\n"
"                     change only the stored spelling of the entry PATH (any\n"
"                     spelling of it, through a foldfs mount) to NEWNAME, a\n"
"                     bare name equivalent to it: what `mv Foo FOO` cannot do\n"
"                     (FOLDFS_IOC_RESPELL; exit status 1 on failure)\n"
"\n"
"  -o casefold        every directory of the view folds\n"
"  -o encoding=NAME   utf8-X.Y[.Z], utf8 (newest known) or ascii; default for a\n"
"                     tree without a record: utf8-12.1\n"
"  -o strict          creating an ill-formed UTF-8 name in a folding\n"
"                     directory fails with EINVAL (else such names are allowed\n"
"                     and match only byte for byte)\n"
"  -o compat          compatibility (NFKD based) matching: ligatures, fullwidth\n"
"                     and similar forms match their plain letters\n"
"  -o ignorables      ignore Default_Ignorable_Code_Point when comparing\n"
"  -o nofold          plain passthrough, no folding at all (the record is\n"
"                     neither read nor written, but hidden as in any view)\n"
"  -o cache=MODE      kernel dentry caching in folding directories:\n"
"                     auto   cache directories for `timeout` seconds, ask\n"
"                            the daemon for every other name (default);\n"
"                     none   cache nothing there (changes made directly in\n"
"                            SOURCE show at once; slowest);\n"
"                     epoch  cache every name for `timeout` seconds and drop\n"
"                            all cached names at once (FUSE_NOTIFY_INC_EPOCH,\n"
"                            Linux 6.16+) when a change makes another\n"
"                            spelling stale.  Fastest with one spelling per\n"
"                            name; after such a drop getcwd() inside the\n"
"                            mount can fail briefly with ENOENT.  Falls back\n"
"                            to none on older kernels.\n"
"  -o timeout=SECS    entry/attribute cache timeout (default 1; 0 = none)\n"
"  -o lockcache=MODE  what a granted flock()/fcntl() lock does to the kernel's\n"
"                     cached pages of the file: drop (default, as NFS: the\n"
"                     locker reads what was written in SOURCE under the\n"
"                     lock) or keep (faster for lock-heavy programs such as\n"
"                     SQLite; changes made directly in SOURCE may then be\n"
"                     read stale for up to `timeout` seconds)\n"
"  -o watch=MODE      how changes made directly in SOURCE are noticed:\n"
"                     inotify, poll (compare directory mtime/ctime before use)\n"
"                     or auto (inotify, falling back to poll; default)\n"
"  -o max_watches=N   inotify watches the daemon may use, one per indexed\n"
"                     directory (default: a quarter of the user's inotify\n"
"                     watch limit); further directories are polled\n"
"  -o index_mem=MiB   memory budget of the per-directory fold indexes\n"
"                     (default 64); least recently used ones are dropped\n"
"\n"
"  FUSE and mount options are passed on: allow_other, allow_root,\n"
"  auto_unmount, default_permissions, max_read=, fsname=, subtype= (other\n"
"  than foldfs: nofold only) and the flags ro, rw, nosuid, nodev, noexec,\n"
"  sync, dirsync, noatime...  libfuse's high-level options (uid=, umask=,\n"
"  entry_timeout=, attr_timeout=, kernel_cache, direct_io...) are refused:\n"
"  timeout= sets the cache times.\n"
"  Mount-only options (defaults, noauto, auto, nofail, _netdev, user, users,\n"
"  nouser, owner, group, x-*, comment=*) are ignored.  allow_other adds\n"
"  default_permissions: the kernel checks permissions; a root daemon also\n"
"  creates objects with the caller's uid, gid and groups.\n"
"\n"
"Encoding record:\n"
"  SOURCE/.foldfs records the encoding and the strict/compat/ignorables flags.\n"
"  The first read-write mount creates it from the options.  Later mounts use\n"
"  it; options that contradict it make the mount fail (exit status 1) -- change\n"
"  the record with foldfs-check --set-encoding.  A SOURCE without one inside a\n"
"  recorded tree uses the tree's record (a parent's .foldfs on the same file\n"
"  system).  The record and the user.foldfs.* extended attributes are\n"
"  invisible in the view.\n"
"\n"
"Coherence:\n"
"  After a change through the mount returns, no spelling of the name gives a\n"
"  stale answer.  Changes made directly in SOURCE show within `timeout`\n"
"  seconds (at once for lookups the kernel has not cached).  A case-only\n"
"  rename (foo -> FOO) changes nothing: rename() returns 0, mv fails with\n"
"  \"are the same file\"; the kernel treats both names as the same file and\n"
"  never asks the daemon.  Use foldfs --respell foo FOO (or rename via a\n"
"  temporary name).\n"
"\n"
"Limits:\n"
"  flock() and POSIX (fcntl, OFD) locks are passed through to SOURCE, so they\n"
"  also exclude processes using SOURCE directly, and a granted lock drops the\n"
"  kernel's cached data of the file if SOURCE changed it; an OFD lock is\n"
"  released shortly after its last close() returns.  Under\n"
"  default_permissions the kernel enforces mode bits and SOURCE's POSIX ACLs;\n"
"  an ACL changed directly in SOURCE applies within `timeout` seconds.\n"
"\n"
"fstab:   SOURCE  MOUNTPOINT  fuse.foldfs  casefold,allow_other  0 0\n"
"Unmount: fusermount3 -u MOUNTPOINT   (or umount MOUNTPOINT)\n";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						     noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("foldfs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void dlog(const char *fmt, ...)
{
	va_list ap;
	/* on the stack: the workers log concurrently */
	char raw[2048], line[4 * sizeof raw];

	if (!F.debug)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* The names a line repeats come from the tree (or a caller):
	 * escaped as every message is, so that none drives the terminal;
	 * one write per line, so that the workers' lines do not mix. */
	fprintf(stderr, "foldfs: %s\n", foldfs_escape(raw, line, sizeof line));
}

/* s as a message may repeat it (foldfs_escape): an option, a path or a
 * name may come from an untrusted tree (a script running foldfs --respell
 * over file names) and must not send control sequences or bidi overrides
 * to the terminal.  The result lives in one of ESC_SLOTS rotating
 * buffers, enough for one message.  Only for the command line and the
 * startup, which are single-threaded: never from the workers (dlog()
 * escapes its whole line on the stack). */
#define ESC_SLOTS 4
static const char *esc(const char *s)
{
	static char *slot[ESC_SLOTS];
	static unsigned next;
	size_t cap = 4 * strlen(s) + 1;
	char *b = realloc(slot[next], cap);

	if (!b)
		die("out of memory");
	slot[next] = b;
	next = (next + 1) % ESC_SLOTS;
	return foldfs_escape(s, b, cap);
}

/* strerror(e), and for ENOTCONN what it means here and what to do: after
 * kill -9 of a daemon, or a crash, its mount stays until unmounted. */
static const char *why(int e)
{
	return e == ENOTCONN ? "Transport endpoint is not connected (a FUSE "
			       "file system on that path lost its daemon: "
			       "unmount it first, with fusermount3 -u or umount)"
			     : strerror(e);
}

/* ---- options ----------------------------------------------------------- */

struct opts {
	char *encoding;	      /* NULL: not given */
	unsigned flags_asked; /* FOLD_* given with -o */
	char *fuse_opts;      /* comma-joined options for libfuse */
	size_t fuse_len;
	int have_fsname, have_subtype, have_allow_other, have_defperm;
	int other_subtype; /* a subtype= other than foldfs was given */
};

static void fuse_opt_append(struct opts *o, const char *opt)
{
	size_t l = strlen(opt);
	char *p = realloc(o->fuse_opts, o->fuse_len + l + 2);

	if (!p)
		die("out of memory");
	if (o->fuse_len)
		p[o->fuse_len++] = ',';
	memcpy(p + o->fuse_len, opt, l + 1);
	o->fuse_len += l;
	o->fuse_opts = p;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* libfuse takes "\x" in an option as x and "\ooo" as an octal byte: so
 * must we, or "allow\_other" would reach it as allow_other unseen here
 * (without the default_permissions it needs). */
static char *unescape_opt(const char *raw)
{
	char *u = malloc(strlen(raw) + 1), *d = u;

	if (!u)
		die("out of memory");
	for (const char *s = raw; *s; s++) {
		if (s[0] == '\\' && s[1]) {
			s++;
			if (s[0] >= '0' && s[0] <= '3' && s[1] >= '0' &&
			    s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
				*d++ = (char)((s[0] - '0') << 6 |
					      (s[1] - '0') << 3 | (s[2] - '0'));
				s += 2;
				continue;
			}
		}
		*d++ = *s;
	}
	*d = '\0';
	return u;
}

/* raw goes to libfuse as it is; what it means is matched unescaped. */
static void one_option(struct opts *o, const char *raw)
{
	char *opt = unescape_opt(raw);
	char *val = strchr(opt, '=');

	if (!*opt) {
		/* nothing */
	} else if (!strcmp(opt, "casefold")) {
		F.casefold_all = 1;
	} else if (starts(opt, "encoding=")) {
		struct fold_ctx c;
		int r = fold_init(&c, val + 1, FOLD_CASEFOLD, 0);
		if (r)
			die("encoding=%s: %s (known: ascii, utf8, utf8-X.Y "
			    "for the Unicode versions this build has; see "
			    "foldfs-norm --list-encodings)", esc(val + 1),
			    fold_strerror(r));
		if (o->encoding) {
			/* A first mount records it for good: which of two
			 * was meant is not ours to guess. */
			char was[64], now[64];
			struct fold_ctx p;
			fold_init(&p, o->encoding, FOLD_CASEFOLD, 0);
			fold_encoding_name(&p, was, sizeof was);
			fold_encoding_name(&c, now, sizeof now);
			if (strcmp(was, now))
				die("encoding=%s and encoding=%s both given; "
				    "give one", esc(o->encoding), esc(val + 1));
			free(o->encoding);
		}
		o->encoding = strdup(val + 1);
		if (!o->encoding)
			die("out of memory");
	} else if (!strcmp(opt, "strict")) {
		o->flags_asked |= FOLD_STRICT;
	} else if (!strcmp(opt, "compat")) {
		o->flags_asked |= FOLD_COMPAT;
	} else if (!strcmp(opt, "ignorables")) {
		o->flags_asked |= FOLD_IGNORABLES;
	} else if (!strcmp(opt, "nofold")) {
		F.nofold = 1;
	} else if (starts(opt, "cache=")) {
		if (!strcmp(val + 1, "auto"))
			F.cache = CACHE_AUTO;
		else if (!strcmp(val + 1, "epoch"))
			F.cache = CACHE_EPOCH;
		else if (!strcmp(val + 1, "none"))
			F.cache = CACHE_NONE;
		else
			die("cache=%s: expected auto, epoch or none",
			    esc(val + 1));
	} else if (starts(opt, "lockcache=")) {
		if (!strcmp(val + 1, "drop"))
			F.lockkeep = 0;
		else if (!strcmp(val + 1, "keep"))
			F.lockkeep = 1;
		else
			die("lockcache=%s: expected drop or keep",
			    esc(val + 1));
	} else if (starts(opt, "watch=")) {
		if (!strcmp(val + 1, "auto"))
			F.watch = WATCH_AUTO;
		else if (!strcmp(val + 1, "inotify"))
			F.watch = WATCH_INOTIFY;
		else if (!strcmp(val + 1, "poll"))
			F.watch = WATCH_POLL;
		else
			die("watch=%s: expected auto, inotify or poll",
			    esc(val + 1));
	} else if (starts(opt, "timeout=")) {
		char *end;
		errno = 0;
		double t = strtod(val + 1, &end);
		if (errno || end == val + 1 || *end || !(t >= 0) || t > 1e6)
			die("timeout=%s: expected a number of seconds from 0 "
			    "to 1000000", esc(val + 1));
		F.timeout = t;
	} else if (starts(opt, "index_mem=")) {
		char *end;
		errno = 0;
		unsigned long long m = strtoull(val + 1, &end, 10);
		if (errno || end == val + 1 || *end || m == 0 ||
		    m > (SIZE_MAX >> 20))
			die("index_mem=%s: expected a size in MiB >= 1",
			    esc(val + 1));
		F.index_mem = (size_t)m << 20;
	} else if (starts(opt, "max_watches=")) {
		char *end;
		errno = 0;
		unsigned long long m = strtoull(val + 1, &end, 10);
		if (errno || end == val + 1 || *end || val[1] == '-' ||
		    m > LONG_MAX)
			die("max_watches=%s: expected a number of watches >= 0",
			    esc(val + 1));
		F.max_watches = (long)m;
	} else if (!strcmp(opt, "defaults") || !strcmp(opt, "noauto") ||
		   !strcmp(opt, "auto") || !strcmp(opt, "nofail") ||
		   !strcmp(opt, "_netdev") || !strcmp(opt, "user") ||
		   !strcmp(opt, "users") || !strcmp(opt, "nouser") ||
		   !strcmp(opt, "owner") || !strcmp(opt, "group") ||
		   starts(opt, "x-") ||
		   starts(opt, "comment=")) {
		/* mount(8)/fstab only */
	} else if (!strcmp(opt, "remount")) {
		/* mount -o remount runs the helper again: no new mount */
		die("-o remount: a mounted foldfs view cannot change its "
		    "options; unmount it and mount it again");
	} else if (starts(opt, "max_read=")) {
		/* libfuse wants init() to ask for the same size, else it
		 * fails INIT after the daemon has detached */
		char *end;
		errno = 0;
		unsigned long m = strtoul(val + 1, &end, 10);
		if (errno || end == val + 1 || *end || m == 0 || m > UINT_MAX ||
		    val[1] == '-')
			die("max_read=%s: expected a number of bytes >= 1",
			    esc(val + 1));
		F.max_read = (unsigned)m;
		fuse_opt_append(o, raw);
	} else if (!strcmp(opt, "debug")) {
		F.debug = 1; /* our messages too; libfuse's own below */
		fuse_opt_append(o, raw);
	} else if (!strcmp(opt, "noatime") || !strcmp(opt, "atime")) {
		/* the kernel keeps no access times for FUSE: SOURCE's file
		 * system sets them as the daemon reads (O_NOATIME instead) */
		F.noatime = opt[0] == 'n';
		fuse_opt_append(o, raw);
	} else if (!strcmp(opt, "rw") || !strcmp(opt, "ro")) {
		/* the last one wins, as for mount(8); told to libfuse once
		 * all are read */
		F.readonly = opt[1] == 'o';
	} else {
		/* libfuse repeats an option it does not know raw: one whose
		 * name is not printable ASCII is nobody's, refused here with
		 * the name escaped */
		for (const char *c = opt; *c && c != val; c++)
			if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
				die("unknown option %s", esc(opt));
		/* the kernel refuses an empty one, after the checks here */
		if ((starts(opt, "fsname=") || starts(opt, "subtype=")) &&
		    !val[1])
			die("%s needs a name", esc(opt));
		if (starts(opt, "fsname="))
			o->have_fsname = 1;
		if (starts(opt, "subtype=")) {
			o->have_subtype = 1;
			o->other_subtype |= strcmp(val + 1, "foldfs") != 0;
		}
		if (!strcmp(opt, "allow_other"))
			o->have_allow_other = 1;
		if (!strcmp(opt, "default_permissions"))
			o->have_defperm = 1;
		fuse_opt_append(o, raw);
	}
	free(opt);
}

/* Split an -o list on unescaped commas ("\," stays a comma). */
static void parse_o(struct opts *o, const char *list)
{
	char *copy = strdup(list), *p, *start;

	if (!copy)
		die("out of memory");
	for (p = start = copy;; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == ',' || !*p) {
			int end = !*p;
			*p = '\0';
			one_option(o, start);
			if (end)
				break;
			start = p + 1;
		}
	}
	free(copy);
}

/* ---- the record ---------------------------------------------------------- */

static void iso_now(char *buf, size_t cap)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int enclosing_record(const char *source, const struct stat *src,
			    struct foldfs_record *rec, char **dirp, char *err,
			    size_t errlen);

static int do_info(const char *source)
{
	struct foldfs_record rec;
	struct stat st;
	char err[256] = "", *up = NULL;
	int fd = open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (fd < 0) {
		fprintf(stderr, "foldfs: %s: %s\n", esc(source), why(errno));
		return 1;
	}
	r = foldfs_on_view(fd, err, sizeof err);
	if (r == 2) {
		fprintf(stderr,
			"foldfs: %s is inside a foldfs view of %s, which hides "
			"the tree's encoding record, and %s does not lead to "
			"the tree (the view is mounted over it, or named "
			"otherwise with fsname=): unmount the view, or ask "
			"about the tree's own directory\n",
			esc(source), esc(err), esc(err));
		close(fd);
		return 1;
	}
	if (r) {
		fprintf(stderr,
			"foldfs: %s is inside a foldfs view of %s, which hides "
			"the tree's encoding record: ask about the directory "
			"in %s\n",
			esc(source), esc(err), esc(err));
		close(fd);
		return 1;
	}
	r = foldfs_record_read(fd, &rec, err, sizeof err);
	if (r == -ENOENT && fstat(fd, &st) == 0) {
		/* what a mount of it would use instead */
		r = enclosing_record(source, &st, &rec, &up, err, sizeof err);
		if (r >= 0) {
			close(r);
			fprintf(stderr,
				"foldfs: %s has no encoding record of its own; "
				"it lies in the tree recorded in %s/%s, which "
				"a mount of it uses (foldfs --info %s)\n",
				esc(source), esc(up), FOLDFS_RECORD_NAME, esc(up));
		} else if (r != -ENOENT) {
			fprintf(stderr, "foldfs: %s/%s: %s\n", esc(up),
				FOLDFS_RECORD_NAME, err[0] ? err : strerror(-r));
		}
		if (up) {
			free(up);
			close(fd);
			return 1;
		}
	}
	close(fd);
	if (r == -ENOENT) {
		fprintf(stderr,
			"foldfs: %s has no encoding record (%s/%s); the first "
			"read-write mount creates it\n",
			esc(source), esc(source), FOLDFS_RECORD_NAME);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "foldfs: %s/%s: %s\n", esc(source),
			FOLDFS_RECORD_NAME, err[0] ? err : strerror(-r));
		return 1;
	}
	foldfs_record_print(&rec, source, stdout);
	return 0;
}

/* ---- --respell ---------------------------------------------------------- */

/* Is the directory open on fd folding?  1, 0, or -1 if it cannot say. */
static int dir_fd_folds(int fd)
{
	int fl = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) < 0)
		return -1;
	return ((unsigned)fl & FOLDFS_CASEFOLD_FL) != 0;
}

static int bare_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Why FOLDFS_IOC_RESPELL said EINVAL: the three reasons, told apart. */
static void respell_einval(int fd, const char *path, const char *dir,
			   const char *newname)
{
	struct fold_ctx c;
	size_t bad = 0;
	const char *p = esc(path), *d = esc(dir), *n = esc(newname);

	if (dir_fd_folds(fd) == 0) {
		fprintf(stderr,
			"foldfs: %s: the directory %s does not fold: names "
			"there match exactly, so a plain rename changes the "
			"spelling: mv %s %s/%s\n",
			p, d, p, d, n);
		return;
	}
	if (fold_init(&c, "utf8", FOLD_CASEFOLD, 0) == 0 &&
	    fold_validatez(&c, newname, &bad) != 0) {
		fprintf(stderr,
			"foldfs: %s: the new name is not well-formed UTF-8 "
			"(byte %zu): it is equivalent only to its own bytes, "
			"and a strict tree refuses it\n",
			p, bad);
		return;
	}
	fprintf(stderr,
		"foldfs: %s: %s is not another spelling of the same name "
		"(case or Unicode normalization); --respell never changes "
		"what a name means.  For a real rename use: mv %s %s/%s\n",
		p, n, p, d, n);
}

/* foldfs --respell PATH NEWNAME: FOLDFS_IOC_RESPELL on PATH's directory. */
static int do_respell(const char *path, const char *newname)
{
	struct foldfs_respell arg;
	struct statvfs sv;
	char *copy = strdup(path), *slash, *base;
	const char *dir;
	size_t len;
	int fd, r, e;

	if (!copy)
		die("out of memory");
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0'; /* "dir/name/" names dir/name */
	slash = strrchr(copy, '/');
	if (!slash) {
		dir = ".";
		base = copy;
	} else if (slash == copy) {
		dir = "/";
		base = copy + 1;
	} else {
		*slash = '\0';
		dir = copy;
		base = slash + 1;
	}
	r = 1;
	if (!bare_name(base)) {
		fprintf(stderr, "foldfs: --respell %s: PATH must name an entry "
				"(not /, . or ..)\n", esc(path));
		goto out;
	}
	if (!bare_name(newname)) {
		fprintf(stderr, "foldfs: --respell: NEWNAME \"%s\" must be a "
				"bare file name (no '/', not . or ..); the entry "
				"stays in its directory\n", esc(newname));
		goto out;
	}
	if (strlen(base) >= sizeof arg.from || strlen(newname) >= sizeof arg.to) {
		fprintf(stderr, "foldfs: --respell: names are limited to %d "
				"bytes\n", FOLDFS_RESPELL_NAME_MAX - 1);
		goto out;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "foldfs: %s: cannot open its directory %s: "
				"%s\n", esc(path), esc(dir), strerror(errno));
		goto out;
	}
	memset(&arg, 0, sizeof arg);
	memcpy(arg.from, base, strlen(base) + 1);
	memcpy(arg.to, newname, strlen(newname) + 1);
	/* The kernel hands an ioctl to the daemon without checking that the
	 * mount it came through is writable: a read-only bind mount of a
	 * read-write view looks to the daemon like the view itself. */
	if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
		e = EROFS;
	} else if (ioctl(fd, FOLDFS_IOC_RESPELL, &arg) == 0) {
		r = 0;
		close(fd);
		goto out;
	} else {
		e = errno;
	}
	switch (e) {
	case ENOTTY:
	case ENOSYS:
		fprintf(stderr, "foldfs: %s: %s is not on a foldfs mount (or "
				"that foldfs predates --respell); elsewhere "
				"use mv\n", esc(path), esc(dir));
		break;
	case EINVAL:
		respell_einval(fd, path, dir, newname);
		break;
	case ENOENT:
		fprintf(stderr, "foldfs: %s: no such entry, under any "
				"spelling\n", esc(path));
		break;
	case EEXIST:
		fprintf(stderr, "foldfs: %s: another entry is already stored "
				"as exactly %s in %s (equivalent names created "
				"directly in SOURCE, see foldfs-check); rename "
				"or remove that one first\n", esc(path),
			esc(newname), esc(dir));
		break;
	case EACCES:
		fprintf(stderr, "foldfs: %s: permission denied: changing a "
				"name needs write and search permission on %s\n",
			esc(path), esc(dir));
		break;
	case EPERM:
		fprintf(stderr, "foldfs: %s: operation not permitted (in a "
				"sticky directory only the owner of the entry or "
				"of the directory may rename it; an immutable or "
				"append-only entry, or one in such a directory, "
				"cannot be renamed; at a folding "
				"root the name .foldfs is reserved)\n",
			esc(path));
		break;
	case EROFS:
		fprintf(stderr, "foldfs: %s: read-only file system\n",
			esc(path));
		break;
	default:
		fprintf(stderr, "foldfs: %s: %s\n", esc(path), strerror(e));
	}
	close(fd);
out:
	free(copy);
	return r;
}

static const char *newest_unicode(void)
{
	const char *const *l;
	size_t n = fold_unicode_versions(&l);

	return n ? l[n - 1] : "?";
}

/* First mount: the record is written only once libfuse has taken the
 * options, just before mounting (write_pending_record), and taken back if
 * the mount itself fails (drop_new_record), so a mount refused for a
 * misspelled option or by fusermount3 leaves SOURCE as it was, and a
 * visible mount always has its record. */
static int record_pending;
static dev_t record_dev;
static ino_t record_ino; /* the record this mount created, or 0 */
/* Where the record that governs SOURCE is: SOURCE itself, or the parent
 * directory that enclosing_record() found (record_dirfd >= 0). */
static const char *record_dir;
static int record_dirfd = -1;

/* SOURCE (stat'ed: src) has no record: is it a subtree of a recorded
 * tree?  The nearest parent directory on the same file system that holds
 * a record governs its names, as foldfs-check finds it; a record of
 * SOURCE's own would hide that one (foldfs-check --set-encoding refuses to
 * write one there).
 * Only a record owned by root, by the daemon's user or by SOURCE's owner
 * counts: anyone may write a .foldfs into /tmp.  Returns an O_PATH
 * descriptor of its directory, with the path in *dirp; -ENOENT if there
 * is none; another -errno with err set if it cannot be used. */
static int enclosing_record(const char *source, const struct stat *src,
			    struct foldfs_record *rec, char **dirp, char *err,
			    size_t errlen)
{
	char *dir = realpath(source, NULL);
	struct stat st;
	int fd, r;

	while (dir && strcmp(dir, "/")) {
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (fstat(fd, &st) < 0 || st.st_dev != src->st_dev) {
			close(fd);
			break;
		}
		r = foldfs_record_governs(fd, src->st_uid);
		if (r < 0) {
			close(fd);
			continue;
		}
		if (r == 0) {
			close(fd);
			break;
		}
		r = foldfs_record_read(fd, rec, err, errlen);
		if (r == -ENOENT) { /* removed meanwhile */
			close(fd);
			break;
		}
		*dirp = dir;
		if (r < 0)
			close(fd);
		return r < 0 ? r : fd;
	}
	free(dir);
	return -ENOENT;
}

static void settle_record(const struct opts *o)
{
	struct foldfs_record rec;
	char err[256] = "", asked[64], have[64];
	struct fold_ctx c;
	struct stat sst;
	char *up = NULL;
	int r;

	memset(&rec, 0, sizeof rec);
	record_dir = F.source;
	r = foldfs_record_read(F.root_fd, &rec, err, sizeof err);
	if (r == -ENOENT && fstat(F.root_fd, &sst) == 0) {
		r = enclosing_record(F.source, &sst, &rec, &up, err,
				     sizeof err);
		if (up)
			record_dir = up;
		if (r >= 0) {
			record_dirfd = r;
			r = 0;
		}
	}
	if (r == -ENOENT) {
		/* First mount: the record comes from the options. */
		fold_init(&c, o->encoding ? o->encoding : "utf8-12.1",
			  FOLD_CASEFOLD, 0);
		rec.format = 1;
		fold_encoding_name(&c, rec.encoding, sizeof rec.encoding);
		rec.flags = o->flags_asked;
		iso_now(rec.created, sizeof rec.created);
		snprintf(rec.creator, sizeof rec.creator, "foldfs %s",
			 FOLDFS_VERSION);
		record_pending = !F.readonly;
	} else if (r < 0) {
		die("%s/%s: %s\nfoldfs: this build cannot use the record.  "
		    "If it names a newer Unicode version or format, use a "
		    "newer foldfs; if it is damaged, restore it, or move it "
		    "away and mount with the options the tree was used with "
		    "(-o encoding=...,strict,...) to write it again (foldfs(8), "
		    "ENCODING RECORD)",
		    esc(record_dir), FOLDFS_RECORD_NAME,
		    err[0] ? err : strerror(-r));
	} else {
		/* Later mounts: options only confirm the record. */
		int bad_enc = 0;
		unsigned missing = o->flags_asked & ~rec.flags;
		if (o->encoding) {
			char canon[64];
			fold_init(&c, o->encoding, FOLD_CASEFOLD, 0);
			fold_encoding_name(&c, canon, sizeof canon);
			bad_enc = strcmp(canon, rec.encoding) != 0;
		}
		if (bad_enc || missing) {
			foldfs_flags_format(rec.flags, have, sizeof have);
			foldfs_flags_format(missing, asked, sizeof asked);
			fprintf(stderr,
				"foldfs: %s is recorded with encoding=%s, "
				"flags=%s (%s/%s%s)\n",
				esc(F.source), esc(rec.encoding),
				have[0] ? have : "(none)", esc(record_dir),
				FOLDFS_RECORD_NAME,
				up ? ": the record of the tree it lies in" : "");
			if (bad_enc)
				fprintf(stderr,
					"foldfs: but the mount asks for "
					"encoding=%s\n", esc(o->encoding));
			if (missing)
				fprintf(stderr,
					"foldfs: but the mount asks for %s, "
					"which the record does not have\n",
					asked);
			fprintf(stderr,
				"foldfs: mount without those options to use "
				"the recorded ones, or change the record first "
				"with: foldfs-check --set-encoding ENC "
				"[--set-flags LIST] %s\n",
				esc(record_dir));
			exit(1);
		}
	}
	r = foldfs_record_ctx(&rec, &F.ctx);
	if (r)
		die("%s/%s names encoding=%s: %s; this build knows Unicode up "
		    "to %s.  Use a newer foldfs, or change the record with "
		    "foldfs-check --set-encoding",
		    esc(record_dir), FOLDFS_RECORD_NAME, esc(rec.encoding),
		    fold_strerror(r),
		    newest_unicode());
	F.rec = rec;
}

static void write_pending_record(void)
{
	struct foldfs_record cur;
	char err[256] = "";
	int r;

	if (!record_pending)
		return;
	r = foldfs_record_create(F.root_fd, &F.rec);
	if (r == 0) {
		struct stat st;
		if (fstatat(F.root_fd, FOLDFS_RECORD_NAME, &st,
			    AT_SYMLINK_NOFOLLOW) == 0) {
			record_dev = st.st_dev;
			record_ino = st.st_ino;
		}
	} else if (r == -EEXIST) {
		/* another first mount was quicker: it must agree */
		memset(&cur, 0, sizeof cur);
		r = foldfs_record_read(F.root_fd, &cur, err, sizeof err);
		if (r < 0 || strcmp(cur.encoding, F.rec.encoding) ||
		    cur.flags != F.rec.flags) {
			fprintf(stderr, "foldfs: %s/%s was written meanwhile "
					"by another mount and differs from this "
					"one's options; mount again\n",
				esc(F.source), FOLDFS_RECORD_NAME);
			exit(1);
		}
	} else if (r < 0) {
		fprintf(stderr, "foldfs: warning: cannot write the encoding "
				"record %s/%s: %s; using the options for this "
				"mount only\n",
			esc(F.source), FOLDFS_RECORD_NAME, strerror(-r));
	}
}

/* The mount failed (or its record cannot be held): remove the record write_pending_record() created,
 * if it is still that file. */
static void drop_new_record(void)
{
	struct stat st;

	if (record_ino &&
	    fstatat(F.root_fd, FOLDFS_RECORD_NAME, &st, AT_SYMLINK_NOFOLLOW) ==
		    0 &&
	    st.st_dev == record_dev && st.st_ino == record_ino)
		unlinkat(F.root_fd, FOLDFS_RECORD_NAME, 0);
}

/* Hold a shared lock on the record for the daemon's life: foldfs-check
 * --set-encoding takes it exclusively, so it refuses while a view is up
 * (the daemon keeps the encoding it read).  The record is read again under
 * the lock: one replaced since settle_record() read it is refused.
 * Opened for writing where it can be (nothing is ever written): the
 * locks that serialize name changes with other daemons need it
 * (xlock.c). */
static void lock_record(void)
{
	struct foldfs_record cur;
	char err[256] = "";
	int fd = -1, rw = 0, dirfd = record_dirfd >= 0 ? record_dirfd : F.root_fd;

	if (F.nofold)
		return;
	if (!F.readonly) {
		fd = openat(dirfd, FOLDFS_RECORD_NAME,
			    O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		rw = fd >= 0;
	}
	if (fd < 0)
		fd = openat(dirfd, FOLDFS_RECORD_NAME,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return; /* none (read-only first mount, unwritable SOURCE) */
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			drop_new_record();
			die("%s/%s is being replaced by foldfs-check "
			    "--set-encoding; mount again when it has finished",
			    esc(record_dir), FOLDFS_RECORD_NAME);
		}
		close(fd); /* no locks on this file system: nothing to hold */
		return;
	}
	memset(&cur, 0, sizeof cur);
	if (foldfs_record_read(dirfd, &cur, err, sizeof err) < 0 ||
	    strcmp(cur.encoding, F.rec.encoding) || cur.flags != F.rec.flags) {
		drop_new_record();
		die("%s/%s changed while this mount read it; mount again",
		    esc(record_dir), FOLDFS_RECORD_NAME);
	}
	/* fd stays open: the lock lasts as long as the daemon */
	if (rw)
		xlock_init(fd);
	else
		dlog("record not writable: name changes are not serialized "
		     "with other mounts of the tree");
}

/* ---- startup ----------------------------------------------------------- */

/* `mount MOUNTPOINT` of an fstab line that is mounted already runs us
 * again, and a second daemon would be stacked on the first (each umount
 * then uncovering the other).  Refuse, as mount(8) refuses a file system
 * that is mounted there already: the mount point is the root of a foldfs
 * view of this very SOURCE (src: its stat) if it is on a foldfs view and
 * is SOURCE's directory.  The view passes SOURCE's attributes through, so
 * that is its inode number, with either the view's source (fsname) being
 * SOURCE's absolute path (F.source now), or, for a view named otherwise
 * (fsname=, SOURCE by another path such as a bind mount), the same change
 * and modification times to the nanosecond.  Another SOURCE over the same
 * mount point stays allowed. */
static void refuse_twice(const struct stat *src)
{
	char vsrc[PATH_MAX];
	struct stat at;
	int fd = open(F.mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int on;

	if (fd < 0)
		return; /* libfuse says why, if it cannot mount there */
	on = foldfs_on_view(fd, vsrc, sizeof vsrc) >= 1 && fstat(fd, &at) == 0 &&
	     at.st_ino == src->st_ino &&
	     (!strcmp(vsrc, F.source) ||
	      (ts_eq(&at.st_ctim, &src->st_ctim) &&
	       ts_eq(&at.st_mtim, &src->st_mtim)));
	close(fd);
	if (on)
		die("%s is mounted on %s already (a second mount would be "
		    "stacked on it): unmount it first, or mount it somewhere "
		    "else", esc(F.source), esc(F.mountpoint));
}

/* Is the directory dir (stat'ed) a strict ancestor of the directory path?
 * By device and inode, going up with "..": a symlink or bind mount of
 * SOURCE does not hide it.  (MOUNTPOINT may be SOURCE itself.) */
static int below(const struct stat *dir, const char *path)
{
	struct stat at, up;
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), found = 0;

	if (fd < 0 || fstat(fd, &at) < 0)
		goto out;
	for (;;) {
		int pfd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

		close(fd);
		fd = pfd;
		if (fd < 0 || fstat(fd, &up) < 0 ||
		    (up.st_dev == at.st_dev && up.st_ino == at.st_ino))
			break; /* the root: ".." is itself */
		if (up.st_dev == dir->st_dev && up.st_ino == dir->st_ino) {
			found = 1;
			break;
		}
		at = up;
	}
out:
	if (fd >= 0)
		close(fd);
	return found;
}

static void raise_nofile(void)
{
	struct rlimit rl;

	/* One O_PATH descriptor per node the kernel holds. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

const struct fuse_lowlevel_ops foldfs_ops = {
	.init = op_init,
	.destroy = op_destroy,
	.lookup = op_lookup,
	.forget = op_forget,
	.forget_multi = op_forget_multi,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.readlink = op_readlink,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.unlink = op_unlink,
	.rmdir = op_rmdir,
	.symlink = op_symlink,
	.rename = op_rename,
	.link = op_link,
	.open = op_open,
	.read = op_read,
	.write_buf = op_write_buf,
	.flush = op_flush,
	.release = op_release,
	.fsync = op_fsync,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.releasedir = op_releasedir,
	.fsyncdir = op_fsyncdir,
	.statfs = op_statfs,
	.setxattr = op_setxattr,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
	.removexattr = op_removexattr,
	.access = op_access,
	.create = op_create,
	.ioctl = op_ioctl,
	.fallocate = op_fallocate,
	.flock = op_flock,
	.getlk = op_getlk,
	.setlk = op_setlk,
	.lseek = op_lseek,
	.copy_file_range = op_copy_file_range,
};

void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* chattr/lsattr on directories arrive as ioctls on opendir
	 * handles. */
	if (conn->capable & FUSE_CAP_IOCTL_DIR)
		conn->want |= FUSE_CAP_IOCTL_DIR;
	if (conn->capable & FUSE_CAP_FLOCK_LOCKS)
		conn->want |= FUSE_CAP_FLOCK_LOCKS;
	if (conn->capable & FUSE_CAP_POSIX_LOCKS)
		conn->want |= FUSE_CAP_POSIX_LOCKS;
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* SOURCE may change behind our back: no write-back caching.  And
	 * a root daemon's writes would not clear set-id bits, so the kernel
	 * must do it (by setattr) rather than leave it to us; where its
	 * cached mode does not show them, file_as_writer() (ops_file.c). */
	conn->want &= ~(unsigned)(FUSE_CAP_WRITEBACK_CACHE |
				  FUSE_CAP_HANDLE_KILLPRIV);
	/* A direct write longer than max_write comes in pieces; sent all at
	 * once (async DIO), the pieces of an O_APPEND one would each be
	 * appended (RWF_APPEND: SOURCE's end, not the kernel's idea of it)
	 * in whatever order the workers took them.  One at a time, then. */
	conn->want &= ~(unsigned)FUSE_CAP_ASYNC_DIO;
	/* The kernel must not apply the caller's umask itself (a parent's
	 * default ACL in SOURCE overrides it), with or without
	 * default_permissions: DONT_MASK, and creds.c gives the creating
	 * thread the caller's umask, so that SOURCE's file system applies
	 * it, or the default ACL instead, exactly as for the caller.  Under
	 * default_permissions the kernel checks permissions; with POSIX_ACL
	 * (which turns default_permissions on in the kernel: only with it)
	 * it also reads SOURCE's ACLs (system.posix_acl_*, passed through)
	 * and checks them, where it would otherwise check the mode bits
	 * only. */
	if (conn->capable & FUSE_CAP_DONT_MASK) {
		int r = creds_own_fs(); /* a seccomp filter may refuse it */
		if (r == 0) {
			conn->want |= FUSE_CAP_DONT_MASK;
			F.dont_mask = 1;
			if (F.defperm && (conn->capable & FUSE_CAP_POSIX_ACL)) {
				conn->want |= FUSE_CAP_POSIX_ACL;
				F.posix_acl = 1;
			}
		} else {
			fprintf(stderr, "foldfs: warning: unshare(CLONE_FS): %s; "
					"%s\n", strerror(-r),
				F.defperm ? "POSIX ACLs of SOURCE not enforced"
					  : "the umask applies under default ACLs too");
		}
	}
	conn->time_gran = 1;
	if (F.max_read)
		conn->max_read = F.max_read;
}

void op_destroy(void *userdata)
{
	(void)userdata;
}

/* The status of a command that only prints (--help, --info...), unless
 * what it printed did not arrive. */
static int printed(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "foldfs: write error on output\n");
		return 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *pos[2] = { NULL, NULL };
	int npos = 0, r;
	struct stat st;

	memset(&o, 0, sizeof o);
	F.cache = CACHE_AUTO;
	F.watch = WATCH_AUTO;
	F.timeout = 1.0;
	F.index_mem = (size_t)64 << 20;
	F.max_watches = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			return printed(0);
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			const char *const *l;
			size_t n = fold_unicode_versions(&l);
			printf("foldfs %s (libfold API %d, Unicode %s..%s, "
			       "FUSE %d.%d)\n",
			       FOLDFS_VERSION, FOLD_API_VERSION,
			       n ? l[0] : "?", n ? l[n - 1] : "?",
			       FUSE_MAJOR_VERSION, FUSE_MINOR_VERSION);
			return printed(0);
		} else if (!strcmp(a, "--info")) {
			if (i + 1 >= argc || i + 2 != argc) {
				fputs(usage_text, stderr);
				return 1;
			}
			return printed(do_info(argv[i + 1]));
		} else if (!strcmp(a, "--respell")) {
			if (i + 3 != argc) {
				fputs(usage_text, stderr);
				return 1;
			}
			return printed(do_respell(argv[i + 1], argv[i + 2]));
		} else if (!strcmp(a, "-f")) {
			F.foreground = 1;
		} else if (!strcmp(a, "-d")) {
			F.debug = F.foreground = 1;
		} else if (!strcmp(a, "-s")) {
			F.single = 1;
		} else if (!strcmp(a, "-o")) {
			if (++i >= argc)
				die("-o needs an argument\n%s", usage_text);
			parse_o(&o, argv[i]);
		} else if (starts(a, "-o")) {
			parse_o(&o, a + 2);
		} else if (a[0] == '-' && a[1]) {
			die("unknown option %s\n%s", esc(a), usage_text);
		} else {
			if (npos == 2)
				die("too many arguments (%s)\n%s", esc(a),
				    usage_text);
			pos[npos++] = a;
		}
	}
	if (npos != 2) {
		fputs(usage_text, stderr);
		fputs("(foldfs --help for all options)\n", stderr);
		return 1;
	}
	F.source = pos[0];
	F.mountpoint = pos[1];
	if (F.nofold && (F.casefold_all || o.encoding || o.flags_asked))
		die("nofold cannot be combined with casefold, encoding=, "
		    "strict, compat or ignorables");
	/* foldfs --info, foldfs-check and a mount given a view as SOURCE
	 * know a folding view by its type fuse.foldfs: under another they
	 * would read the tree through it as if it had no record. */
	if (!F.nofold && o.other_subtype)
		die("subtype= other than foldfs is only for -o nofold: a "
		    "folding view must keep the type fuse.foldfs, by which "
		    "foldfs and foldfs-check know it");

	/* SOURCE and MOUNTPOINT */
	F.root_fd = open(F.source, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (F.root_fd < 0)
		die("SOURCE %s: %s", esc(F.source),
		    errno == ENOTDIR ? "not a directory" : why(errno));
	if (fstat(F.root_fd, &st) < 0)
		die("SOURCE %s: %s", esc(F.source), why(errno));
	F.root_dev = st.st_dev;
	{
		/* ext4, tmpfs and xfs do nothing at close() but drop the
		 * closer's POSIX locks (the daemon takes none): a FLUSH of
		 * their files need not close a duplicate (op_flush). */
		struct statfs sf;
		F.root_noflush = fstatfs(F.root_fd, &sf) == 0 &&
				 (sf.f_type == 0xEF53 || sf.f_type == 0x01021994 ||
				  sf.f_type == 0x58465342);
	}
	{
		char vsrc[PATH_MAX];
		r = foldfs_on_view(F.root_fd, vsrc, sizeof vsrc);
		if (r == 2)
			die("SOURCE %s is inside a foldfs view of %s, which "
			    "hides the tree's encoding record, and %s does not "
			    "lead to the tree (the view is mounted over it, or "
			    "named otherwise with fsname=): unmount the view, "
			    "or give the tree's own directory", esc(F.source),
			    esc(vsrc), esc(vsrc));
		if (r)
			die("SOURCE %s is inside a foldfs view of %s, which "
			    "hides the tree's encoding record: give the "
			    "directory in %s instead", esc(F.source),
			    esc(vsrc), esc(vsrc));
	}
	{
		struct stat mst;
		char *rs, *rm;
		unsigned fdn;
		char c;
		if (stat(F.mountpoint, &mst) < 0)
			die("MOUNTPOINT %s: %s", esc(F.mountpoint),
			    why(errno));
		/* mount.fuse3 -o drop_privileges mounted it already and
		 * hands over the /dev/fuse descriptor */
		if (sscanf(F.mountpoint, "/dev/fd/%u%c", &fdn, &c) == 1 &&
		    S_ISCHR(mst.st_mode))
			goto mounted_by_helper;
		if (!S_ISDIR(mst.st_mode))
			die("MOUNTPOINT %s: not a directory",
			    esc(F.mountpoint));
		if (below(&st, F.mountpoint))
			die("MOUNTPOINT %s is inside SOURCE %s: the view would "
			    "contain itself", esc(F.mountpoint),
			    esc(F.source));
		rs = realpath(F.source, NULL);
		rm = realpath(F.mountpoint, NULL);
		if (rs)
			F.source = rs; /* absolute, for fsname and messages */
		/* absolute: the daemon changes to / (daemonized or not),
		 * and libfuse unmounts it by this name at a signal */
		if (rm)
			F.mountpoint = rm;
		if (rs)
			refuse_twice(&st);
	}
mounted_by_helper:

	/* The record and the comparison context */
	if (F.nofold) {
		fold_init(&F.ctx, "utf8-12.1", FOLD_CASEFOLD, 0);
	} else {
		/* foldfs_record_* want a readable directory descriptor. */
		int rfd = open(F.source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int keep = F.root_fd;
		if (rfd < 0)
			die("SOURCE %s: %s", esc(F.source), why(errno));
		F.root_fd = rfd;
		settle_record(&o);
		F.root_fd = keep;
		close(rfd);
	}
	if (getrandom(&F.seed, sizeof F.seed, 0) != (ssize_t)sizeof F.seed) {
		/* Only hash-flooding resistance depends on it. */
		F.seed.k0 = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		F.seed.k1 = (uint64_t)(uintptr_t)&F ^ now_ns();
	}

	r = creds_init();
	if (r)
		die("cannot read the daemon's groups: %s", strerror(-r));
	umask(0); /* the kernel already applied the caller's umask */
	raise_nofile();
	r = node_init(F.root_fd, &st);
	if (r)
		die("out of memory");
	r = watch_init();
	if (r)
		die("watch=inotify: %s", strerror(-r));
	locks_init(F.root_fd);

	/* libfuse arguments */
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	if (fuse_opt_add_arg(&args, argv[0]) ||
	    (F.debug && fuse_opt_add_arg(&args, "-d")))
		die("out of memory");
	if (!o.have_fsname) {
		/* fsname goes through libfuse's option parser: escape it. */
		size_t l = strlen(F.source);
		char *v = malloc(2 * l + 8), *q = v;
		if (!v)
			die("out of memory");
		q += sprintf(q, "fsname=");
		for (const char *s = F.source; *s; s++) {
			if (*s == ',' || *s == '\\')
				*q++ = '\\';
			*q++ = *s;
		}
		*q = '\0';
		fuse_opt_append(&o, v);
		free(v);
	}
	if (!o.have_subtype)
		fuse_opt_append(&o, "subtype=foldfs");
	if (F.readonly) {
		fuse_opt_append(&o, "ro");
		F.noatime = 1; /* a read-only view writes nothing to SOURCE */
	}
	F.defperm = o.have_defperm;
	/* allow_other without default_permissions would give every user
	 * the daemon's own access (a daemon run by a user cannot take the
	 * caller's identity), so the kernel must check */
	if (o.have_allow_other && !F.defperm) {
		fuse_opt_append(&o, "default_permissions");
		F.defperm = 1;
	}
	if (fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, o.fuse_opts))
		die("out of memory");

	F.se = fuse_session_new(&args, &foldfs_ops, sizeof foldfs_ops, NULL);
	if (!F.se)
		die("cannot start the FUSE session (options: %s)",
		    esc(o.fuse_opts));
	if (fuse_set_signal_handlers(F.se) != 0)
		die("cannot install signal handlers");
	write_pending_record();
	lock_record();
	if (fuse_session_mount(F.se, F.mountpoint) != 0) {
		drop_new_record();
		die("cannot mount on %s (see the message above: refused by "
		    "the kernel or fusermount3, perhaps for one of the "
		    "options; is /dev/fuse usable and fusermount3 "
		    "installed?)", esc(F.mountpoint));
	}
	if (fuse_daemonize(F.foreground) != 0) {
		fuse_session_unmount(F.se);
		die("cannot daemonize");
	}

	/* Threads only now: fork() in fuse_daemonize() keeps none. */
	if (prune_start() != 0 || coh_init() != 0 || watch_start() != 0) {
		fprintf(stderr, "foldfs: cannot start helper threads\n");
		fuse_session_unmount(F.se);
		return 1;
	}
	coh_probe();
	dlog("mounted %s on %s (%s, cache=%s, watch=%s, timeout=%g)",
	     F.source, F.mountpoint,
	     F.nofold ? "nofold" : F.casefold_all ? "casefold" : "per-directory",
	     F.fold_cache ? "epoch" : atomic_load(&F.epoch) ? "auto" : "none",
	     F.watch == WATCH_POLL ? "poll" : "auto/inotify", F.timeout);

	if (F.single) {
		r = fuse_session_loop(F.se);
	} else {
		/* libfuse's default of 10 workers is soon all busy when
		 * SOURCE is slow (NFS) and many callers wait on it; a waiting
		 * lock never takes one (ops_lock.c). */
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();
		if (!cfg)
			die("out of memory");
		fuse_loop_cfg_set_clone_fd(cfg, 0);
		fuse_loop_cfg_set_idle_threads(cfg, 10);
		fuse_loop_cfg_set_max_threads(cfg, 64);
		r = fuse_session_loop_mt(F.se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}

	watch_stop();
	prune_stop();
	locks_quiesce();
	coh_quiesce();
	fuse_session_unmount(F.se);
	fuse_remove_signal_handlers(F.se);
	/* A worker stuck in the kernel still uses the session: leave it to
	 * the exit, which closes the device and so releases it. */
	if (coh_stop() == 0)
		fuse_session_destroy(F.se);
	fuse_opt_free_args(&args);
	free(o.fuse_opts);
	free(o.encoding);
	{
		size_t ent;
		uint64_t b;
		coh_stats(&ent, &b);
		dlog("exit: %zu nodes, index %zu bytes, %llu epoch bumps",
		     node_count(), idx_total_bytes(), (unsigned long long)b);
	}
	/* A signal (SIGTERM/SIGINT/SIGHUP) or umount is a normal end. */
	return r < 0 ? 1 : 0;
}
