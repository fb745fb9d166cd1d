/*
 * harness.h - shared scaffolding for the foldfs integration tests
 * (tests/fs/fs-*.c): check counting that works across fork(), mounting and
 * unmounting the real daemon, running command-line tools with a timeout,
 * and small file helpers.  Owns nothing about the semantics under test.
 *
 * Every program built on it ends with the line "N passed, N failed" (plus
 * ", N skipped" when something was skipped) and exits non-zero on any
 * failure.  Mounts live under one scratch directory /tmp/fstest-XXXXXX
 * (or --root DIR), and are always unmounted and their daemons killed at
 * exit, on SIGTERM/SIGINT and on the watchdog alarm.
 */
#ifndef FSTEST_HARNESS_H
#define FSTEST_HARNESS_H

#include <stddef.h>
#include <sys/types.h>

/* ---- counting --------------------------------------------------------- */

extern int t_verbose; /* print "ok" lines too */

/* Record one check; prints "FAIL file:line: msg" (or "ok   msg" when
 * verbose).  Returns ok so callers can branch on it.  Safe in forked
 * children: the counters live in shared memory. */
int t_check(int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define CHECK(cond, ...) t_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* rc must be -1 with errno == want.  what describes the call. */
int t_check_errno(long rc, int err, int want, const char *file, int line,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define CHECK_ERR(call, want, ...)                                            \
	do {                                                                  \
		errno = 0;                                                    \
		long t_rc_ = (long)(call);                                    \
		t_check_errno(t_rc_, errno, want, __FILE__, __LINE__,         \
			      __VA_ARGS__);                                   \
	} while (0)
/* call must return >= 0 */
#define CHECK_OK(call, ...)                                                   \
	do {                                                                  \
		errno = 0;                                                    \
		long t_rc_ = (long)(call);                                    \
		t_check_errno(t_rc_, errno, 0, __FILE__, __LINE__,            \
			      __VA_ARGS__);                                   \
	} while (0)

void t_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void t_section(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void t_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long t_passed(void);
long t_failed(void);

/* ---- program setup ---------------------------------------------------- */

struct t_opts {
	const char *foldfs; /* daemon binary (--foldfs, $FOLDFS) */
	const char *root;   /* scratch dir (--root, $FSTEST_ROOT, mkdtemp) */
	int watchdog;	    /* seconds before SIGALRM aborts the run */
};
extern struct t_opts t_opt;

/* Parse the common options (--foldfs PATH, --root DIR, --watchdog SECS,
 * -v, -q, --help, and --only after t_sections()).  Unknown options are
 * handed to extra(opt, arg) which returns 1 if it consumed arg, 0 if not,
 * -1 for "unknown".  help is the man-page-style text printed by --help. */
void t_init(int argc, char **argv, const char *help,
	    int (*extra)(const char *opt, const char *arg));
/* Name the program's sections (a NULL-terminated list, before t_init):
 * t_init then takes --only NAME[,NAME...] and --skip NAME[,NAME...]
 * (repeatable; a skipped section counts one skip) and refuses a name not
 * in the list, and --help ends with the list. */
void t_sections(const char *const names[]);
/* Is section name to run: not --skip'ped, and no --only, or --only named
 * it?  A name missing
 * from t_sections() counts a failed check (and runs). */
int t_want(const char *name);
/* Forked helper processes to SIGKILL first if the run is aborted, so that
 * nothing prints after the final count line. */
void t_track_child(pid_t pid);
/* Print the count line, clean up, return the exit status for main(). */
int t_finish(void);
/* Unmount, kill and remove everything, print nothing (benchmarks). */
void t_cleanup(void);

/* ---- mounts ----------------------------------------------------------- */

struct t_mount {
	char src[4096];
	char mnt[4096];
	char opts[512];
	char log[4096];
	pid_t pid; /* daemon pid (foreground mode), 0 if unknown */
	int live;
	int single; /* set before mounting: run the daemon with -s */
	int relative; /* set before mounting: name SOURCE and MOUNTPOINT
			 relative to the scratch root (its working dir) */
	long nofile; /* set before mounting (t_mount): the daemon's
			RLIMIT_NOFILE, soft and hard; 0 leaves it */
};

/* A fresh empty directory under the scratch root: "<root>/<prefix>-N". */
const char *t_newdir(const char *prefix);

/* Start "foldfs SRC MNT -f -o OPTS" in the background (mount point created
 * under the root) and wait until the mount shows in /proc/self/mountinfo.
 * Returns 0, or -1 after counting a failed check that says why (with the
 * daemon log). */
int t_mount(struct t_mount *m, const char *src, const char *opts);
/* Same, but let the daemon fork itself (no -f); a failure is counted too. */
int t_mount_daemon(struct t_mount *m, const char *src, const char *opts);
/* fusermount3 -u, wait for the daemon to exit.  Counts one check: the
 * daemon exited with status 0.  Returns 0 if everything went cleanly. */
int t_umount(struct t_mount *m);
/* t_umount + t_mount with the same source and options. */
int t_remount(struct t_mount *m);
/* Is path a mount point right now (per /proc/self/mountinfo)? */
int t_is_mounted(const char *path);
/* How many mounts have path as their mount point right now (stacked
 * ones count each). */
int t_mounts_at(const char *path);
/* Print the daemon log (last lines) to stdout. */
void t_show_log(const struct t_mount *m);
/* Lines of the daemon's log so far that contain what (-1: no log). */
long t_log_count(const struct t_mount *m, const char *what);

/* Run the daemon once expecting it to refuse: "foldfs SRC MNT -o OPTS"
 * (no -f).  Captures its output into out.  If it unexpectedly mounted, it
 * is unmounted again.  Returns the exit status (-1 on timeout). */
int t_mount_refused(const char *src, const char *opts, char *out,
		    size_t cap);

/* ---- tools and files -------------------------------------------------- */

/* Run argv (NULL-terminated) with stdin from /dev/null, stdout+stderr
 * captured into out (NUL-terminated, truncated to cap).  Returns the exit
 * status, 128+signal, or -1 if it ran longer than timeout_s (then killed). */
int t_run(const char *const argv[], char *out, size_t cap, int timeout_s);
/* A fresh 8 MiB ext2 image in directory d (a coarse clock: whole seconds),
 * loop-mounted at d/mnt, whose path goes to mnt[0..cap).  0, or -1 with
 * why in out[0..outcap).  Unmount with t_ext2_umount(mnt). */
int t_ext2_image(const char *d, char *mnt, size_t cap, char *out, size_t outcap);
void t_ext2_umount(const char *mnt);

/* "dir/rel" in memory that stays valid for the life of the program. */
const char *t_path(const char *dir, const char *rel);
/* Name quoted for messages: printable UTF-8 kept, everything else \xNN. */
const char *t_q(const char *s);

int t_write_file(const char *path, const char *data);	 /* creat+write, 0/-1 */
ssize_t t_read_file(const char *path, char *buf, size_t cap); /* NUL-terms */
/* Does the file at path contain exactly want? */
int t_file_is(const char *path, const char *want);
/* Does directory dir list an entry whose bytes are exactly name? */
int t_dir_has(const char *dir, const char *name);
/* lsattr/chattr on path (FS_IOC_GETFLAGS/SETFLAGS): 0, or -1 with errno. */
int t_get_flags(const char *path, int *fl);
int t_set_flags(const char *path, int fl);
/* chattr +F (on) or -F, read-modify-write as chattr does, with the flags
 * in also set in the same call: 0, or -1 with errno. */
int t_set_casefold_with(const char *path, int on, int also);
int t_set_casefold(const char *path, int on);
/* Does path show F: 1 or 0, -1 if it could not be read. */
int t_has_casefold(const char *path);
/* FOLDFS_IOC_RESPELL on directory dir; -1 with errno on failure. */
int t_respell(const char *dir, const char *from, const char *to);
/* Number of entries other than "." and "..", -1 on error. */
long t_dir_count(const char *dir);
ino_t t_ino(const char *path); /* lstat inode, 0 if it fails */
void t_sleep_ms(long ms);
double t_now(void); /* CLOCK_MONOTONIC seconds */

#endif
