/*
 * fs-source.c - changes made behind the view's back: directly in SOURCE
 * (the case-sensitive tree beside the view) and through a second foldfs
 * mount of the same SOURCE must show in the view within the daemon's
 * documented bound.  Each change is polled for up to bound + margin and
 * then asserted; the worst delay seen is reported.  Run once per watch
 * mode (-o watch=inotify, -o watch=poll), and once with inotify and
 * cache=none, where nothing is cached so name changes must show at once.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "harness.h"

#include <dirent.h>
#include <sched.h>
#include <stdatomic.h>
#include <errno.h>
#include <signal.h>
#include <linux/fs.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static const char help[] =
	"NAME\n"
	"    fs-source - changes in SOURCE and by a second mount reach the view\n"
	"\n"
	"SYNOPSIS\n"
	"    fs-source [--foldfs PATH] [--root DIR] [--bound SECS] [--margin SECS]\n"
	"              [--watch LIST] [--watchdog SECS] [--only NAME] [-q|-v]\n"
	"\n"
	"DESCRIPTION\n"
	"    For each watch mode in LIST (default inotify,poll,inotify:none) mounts\n"
	"    a fresh SOURCE with -o casefold,watch=MODE (MODE:none adds\n"
	"    cache=none), then creates, deletes, renames, rewrites and re-creates\n"
	"    entries directly in SOURCE and through a second mount, and polls the\n"
	"    first view (by other spellings) until the change shows.  A change not\n"
	"    visible after BOUND + MARGIN seconds is a failure (default 1 + 3: the\n"
	"    daemon documents the bound as its entry/attr timeout, default 1 s).\n"
	"    With cache=none and inotify nothing is cached in folding directories\n"
	"    and pending events are read before every lookup, so name changes must\n"
	"    show at the very first look.  Finally, in a per-directory mount, the\n"
	"    casefold attribute is set and removed directly in SOURCE and must take\n"
	"    effect within the same bound, and at once for chattr and lsattr.\n"
	"    Then: open(O_CREAT) over a cached negative entry after SOURCE made an\n"
	"    equivalent name, and an inotify queue overflow (the daemon stopped\n"
	"    while SOURCE gets more names than fs.inotify.max_queued_events, which\n"
	"    is only read): every index must be rebuilt.  Lookups must also answer\n"
	"    promptly while a process keeps changing an indexed directory of a\n"
	"    tmpfs SOURCE, and a name SOURCE keeps renaming between two equivalent\n"
	"    spellings must be found by a third at every look, and under cache=none\n"
	"    a directory moved into a folding directory from a plain one must not\n"
	"    stay cached (a change SOURCE makes to it shows at once).  The daemon's\n"
	"    inotify watches stay within a quarter of the user's limit (tried in a\n"
	"    user namespace with a low one) or -o max_watches, the directories\n"
	"    beyond are polled and stay exact, and indexes evicted while names\n"
	"    change in the view and in SOURCE lose no name; the invalidations\n"
	"    SOURCE's changes queue are never sent to a node id reused since (under\n"
	"    pruning), which the kernel refuses for a file.  A note of a name that\n"
	"    is a mount point inside SOURCE is not taken for changed when SOURCE\n"
	"    makes an equivalent name, and a name removed through the view that\n"
	"    SOURCE makes again at once is found by every spelling; a polled\n"
	"    SOURCE whose attributes the kernel caches longer than the bound\n"
	"    still shows a change within it.\n"
	"    --only NAME runs only section NAME (a comma-separated list, or repeat\n"
	"    the option; the names are under SECTIONS); -q prints only failures.\n"
	"\n"
	"EXIT STATUS\n"
	"    0 if every check passed, 1 otherwise; last line \"N passed, N failed\".\n";

static double bound = 1.0, margin = 3.0;
static const char *watches = "inotify,poll,inotify:none";
static double worst;
static int immediate; /* names must show at the first look (cache=none) */

static int extra_opt(const char *o, const char *v)
{
	if (!v)
		return -1;
	if (!strcmp(o, "--bound"))
		bound = atof(v);
	else if (!strcmp(o, "--margin"))
		margin = atof(v);
	else if (!strcmp(o, "--watch"))
		watches = v;
	else
		return -1;
	return 1;
}

/* for --only: each run_NAME() below */
static const char *const sections[] = {
	"watch", "attr", "create_over_negative", "removed_indexed", "watch_cap",
	"evict_changes", "inval_reused", "poll_race", "settle_race", "cleanup_after_expiry", "remote_source",
	"poll_coarse", "index_fd_cap", "busy_source", "rename_spellings", "unlink_unfenced", "none_moved_in", "overflow",
	"mount_point_note", "unlink_recreated", "poll_cached", NULL};

enum want_kind { EXISTS, ABSENT, CONTENT, LISTED, UNLISTED, SAME_INO };

struct want {
	enum want_kind kind;
	const char *path; /* for LISTED/UNLISTED: the directory */
	const char *arg;  /* content, or the listed name */
	ino_t ino;	  /* SAME_INO: the view's inode must equal this SOURCE one */
};

static int holds(const struct want *w)
{
	struct stat st;
	switch (w->kind) {
	case EXISTS:
		return stat(w->path, &st) == 0;
	case ABSENT:
		return stat(w->path, &st) == -1 && errno == ENOENT;
	case CONTENT:
		return t_file_is(w->path, w->arg);
	case LISTED:
		return t_dir_has(w->path, w->arg) == 1;
	case UNLISTED:
		return t_dir_has(w->path, w->arg) == 0;
	case SAME_INO:
		return stat(w->path, &st) == 0 && st.st_ino == w->ino;
	}
	return 0;
}

/* Poll until w holds; one check.  The view's answers are asked exactly as
 * an application would, so a stale kernel cache counts against the daemon. */
static void await_t(const char *what, struct want w, int must_be_immediate)
{
	double t0 = t_now(), limit = bound + margin, dt;
	int ok, first = -1;
	for (;;) {
		ok = holds(&w);
		if (first < 0)
			first = ok;
		dt = t_now() - t0;
		if (ok || dt > limit)
			break;
		t_sleep_ms(20);
	}
	if (ok && dt > worst)
		worst = dt;
	if (must_be_immediate)
		CHECK(ok && first, "%s: visible at the first look%s (after %.2f s)", what,
		      first ? "" : " -- NOT", dt);
	else
		CHECK(ok, "%s: visible after %.2f s%s", what, dt,
		      ok ? "" : " (gave up: longer than bound + margin)");
}

/* Name changes: immediate under cache=none; data: within the bound. */
static void await(const char *what, struct want w)
{
	await_t(what, w, immediate && w.kind != CONTENT);
}

static struct want W(enum want_kind k, const char *p, const char *a)
{
	struct want w = {k, p, a, 0};
	return w;
}

static int src_write(const char *path, const char *data)
{
	int r = t_write_file(path, data);
	if (r)
		CHECK(0, "writing SOURCE file %s: %s", path, strerror(errno));
	return r;
}

static void run_watch(const char *spec)
{
	char opts[160], watch[64], cache[64] = "";
	snprintf(watch, sizeof watch, "%s", spec);
	char *colon = strchr(watch, ':');
	if (colon) {
		snprintf(cache, sizeof cache, "%s", colon + 1);
		*colon = 0;
	}
	immediate = !strcmp(cache, "none") && !strcmp(watch, "inotify");
	snprintf(opts, sizeof opts, "casefold,watch=%s%s%s", watch, cache[0] ? ",cache=" : "",
		 cache);
	const char *label = opts + strlen("casefold,");
	t_section("%s: changes made directly in SOURCE%s", label,
		  immediate ? " (names must show at the first look)" : "");
	const char *src = t_newdir("src-watch");
	struct t_mount m = {0}, m2 = {0};
	if (t_mount(&m, src, opts)) {
		return;
	}
	worst = 0;
	const char *v = m.mnt;
	struct stat st;
	char buf[4200];

	/* 1. create after a negative lookup of another spelling */
	CHECK_ERR(stat(t_path(v, "newfile"), &st), ENOENT, "view: newfile absent");
	CHECK_ERR(stat(t_path(v, "NEWFILE"), &st), ENOENT, "view: NEWFILE absent");
	src_write(t_path(src, "NewFile"), "one");
	await("SOURCE create NewFile -> view newfile (was negative)",
	      W(CONTENT, t_path(v, "newfile"), "one"));
	await("-> view NEWFILE", W(EXISTS, t_path(v, "NEWFILE"), NULL));
	await("-> view readdir lists NewFile", W(LISTED, v, "NewFile"));

	/* 2. create, never looked up before */
	src_write(t_path(src, "Fresh\xc3\xa9"), "fresh");
	await("SOURCE create Freshé -> view FRESHE\\u0301",
	      W(CONTENT, t_path(v, "FRESHE\xcc\x81"), "fresh"));

	/* 3. delete while both spellings are cached positive */
	CHECK(stat(t_path(v, "newfile"), &st) == 0 && stat(t_path(v, "NewFILE"), &st) == 0,
	      "view: newfile and NewFILE cached");
	unlink(t_path(src, "NewFile"));
	await("SOURCE unlink NewFile -> view newfile gone", W(ABSENT, t_path(v, "newfile"), NULL));
	await("-> view NewFILE gone", W(ABSENT, t_path(v, "NewFILE"), NULL));
	await("-> view readdir drops it", W(UNLISTED, v, "NewFile"));

	/* 4. rename */
	src_write(t_path(src, "Old"), "moved");
	await("SOURCE create Old -> view OLD", W(EXISTS, t_path(v, "OLD"), NULL));
	rename(t_path(src, "Old"), t_path(src, "Renamed"));
	await("SOURCE rename Old Renamed -> view old gone", W(ABSENT, t_path(v, "old"), NULL));
	await("-> view RENAMED reads moved", W(CONTENT, t_path(v, "RENAMED"), "moved"));

	/* 5. content rewritten in place */
	src_write(t_path(src, "Data.txt"), "v1");
	await("SOURCE create Data.txt -> view data.TXT", W(CONTENT, t_path(v, "data.TXT"), "v1"));
	int fd = open(t_path(src, "Data.txt"), O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		CHECK(write(fd, "v2 longer", 9) == 9, "rewrite SOURCE/Data.txt");
		close(fd);
	}
	await("SOURCE rewrite Data.txt -> view DATA.txt reads v2",
	      W(CONTENT, t_path(v, "DATA.txt"), "v2 longer"));

	/* 6. new directory with content */
	snprintf(buf, sizeof buf, "%s/SubDir", src);
	mkdir(buf, 0755);
	src_write(t_path(buf, "Inner.txt"), "inner");
	await("SOURCE mkdir SubDir/Inner.txt -> view subdir/INNER.TXT",
	      W(CONTENT, t_path(v, "subdir/INNER.TXT"), "inner"));

	/* 7. a bytewise smaller equivalent name appears */
	src_write(t_path(src, "readme"), "lower");
	await("SOURCE readme -> view Readme reads lower", W(CONTENT, t_path(v, "Readme"), "lower"));
	src_write(t_path(src, "README"), "upper");
	await("SOURCE adds README (smaller) -> view Readme now reads upper",
	      W(CONTENT, t_path(v, "Readme"), "upper"));
	unlink(t_path(src, "README"));
	await("SOURCE removes README -> view Readme back to readme",
	      W(CONTENT, t_path(v, "Readme"), "lower"));

	/* 8. delete and re-create with another spelling */
	src_write(t_path(src, "Cycle"), "c1");
	await("SOURCE Cycle -> view cycle", W(CONTENT, t_path(v, "cycle"), "c1"));
	unlink(t_path(src, "Cycle"));
	src_write(t_path(src, "CYCLE"), "c2");
	struct stat sst;
	stat(t_path(src, "CYCLE"), &sst);
	struct want w = {SAME_INO, t_path(v, "cycle"), NULL, sst.st_ino};
	await("SOURCE re-create as CYCLE -> view cycle is the new inode", w);
	await("-> view readdir shows CYCLE", W(LISTED, v, "CYCLE"));
	await("-> view readdir drops Cycle", W(UNLISTED, v, "Cycle"));

	/* 9. a directory removed */
	snprintf(buf, sizeof buf, "%s/GoneDir", src);
	mkdir(buf, 0755);
	await("SOURCE mkdir GoneDir -> view gonedir", W(EXISTS, t_path(v, "gonedir"), NULL));
	rmdir(buf);
	await("SOURCE rmdir GoneDir -> view GONEDIR gone", W(ABSENT, t_path(v, "GONEDIR"), NULL));
	printf("   %s: worst delay for SOURCE changes %.2f s (bound %.1f s)\n", label, worst,
	       bound);

	t_section("%s: changes made through a second mount of the same SOURCE", label);
	worst = 0;
	if (t_mount(&m2, src, opts) == 0) {
		const char *v2 = m2.mnt;
		CHECK_ERR(stat(t_path(v, "fromtwo"), &st), ENOENT, "view 1: fromtwo absent");
		CHECK_OK(t_write_file(t_path(v2, "FromTwo"), "2"), "view 2: create FromTwo");
		await("view 2 create FromTwo -> view 1 fromtwo",
		      W(CONTENT, t_path(v, "fromtwo"), "2"));
		CHECK_OK(rename(t_path(v2, "FROMTWO"), t_path(v2, "MovedTwo")),
			 "view 2: rename FROMTWO MovedTwo");
		await("-> view 1 fromtwo gone", W(ABSENT, t_path(v, "fromtwo"), NULL));
		await("-> view 1 movedtwo", W(CONTENT, t_path(v, "movedtwo"), "2"));
		CHECK_OK(unlink(t_path(v2, "movedTWO")), "view 2: unlink movedTWO");
		await("-> view 1 MovedTwo gone", W(ABSENT, t_path(v, "MovedTwo"), NULL));
		CHECK_OK(mkdir(t_path(v2, "TwoDir"), 0755), "view 2: mkdir TwoDir");
		await("-> view 1 twodir", W(EXISTS, t_path(v, "twodir"), NULL));
		CHECK_OK(t_write_file(t_path(v, "twodir/FromOne"), "1"), "view 1: create twodir/FromOne");
		await("view 1 create -> view 2 TWODIR/fromone",
		      W(CONTENT, t_path(v2, "TWODIR/fromone"), "1"));
		printf("   %s: worst delay between mounts %.2f s (bound %.1f s)\n", label, worst,
		       bound);
		t_umount(&m2);
	}
	t_umount(&m);
}

/* The casefold attribute set or cleared directly in SOURCE (what
 * foldfs-check --casefold-dir does) takes effect in a mounted per-
 * directory view within the bound, and lsattr agrees. */
static void run_attr(void)
{
	t_section("per-directory mount: casefold attribute changed directly in SOURCE");
	const char *src = t_newdir("src-attr");
	struct t_mount m = {0};
	struct stat st;
	if (t_mount(&m, src, "watch=inotify"))
		return;
	const char *v = m.mnt;
	worst = 0;
	immediate = 0;
	CHECK_OK(mkdir(t_path(v, "Plain"), 0755), "view: mkdir Plain (not folding)");
	CHECK_OK(t_write_file(t_path(v, "Plain/Readme.TXT"), "r"), "view: create Plain/Readme.TXT");
	CHECK_ERR(stat(t_path(v, "Plain/README.txt"), &st), ENOENT,
		  "view: README.txt is another name in a plain directory");
	CHECK_OK(setxattr(t_path(src, "Plain"), "user.foldfs.casefold", "1", 1, 0),
		 "SOURCE: set user.foldfs.casefold on Plain (as foldfs-check --casefold-dir)");
	await("-> view Plain folds: README.txt finds Readme.TXT",
	      W(CONTENT, t_path(v, "Plain/README.txt"), "r"));
	int fd = open(t_path(v, "Plain"), O_RDONLY | O_DIRECTORY);
	unsigned fl = 0;
	int got = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0;
	CHECK(got && (fl & 0x40000000),
	      "-> lsattr (FS_IOC_GETFLAGS) shows the casefold flag (0x%x)", fl);
	if (fd >= 0)
		close(fd);
	CHECK_ERR(mkdir(t_path(v, "Plain/README.TXT"), 0755), EEXIST,
		  "-> creating an equivalent name is refused");
	CHECK_OK(removexattr(t_path(src, "Plain"), "user.foldfs.casefold"),
		 "SOURCE: remove the attribute again");
	await("-> view Plain is plain again: README.txt absent",
	      W(ABSENT, t_path(v, "Plain/README.txt"), NULL));
	CHECK_OK(stat(t_path(v, "Plain/Readme.TXT"), &st), "-> the stored name still works");
	/* lsattr alone, with no lookup inside (Wine asks before it looks),
	 * sees the change within the bound too */
	CHECK_OK(mkdir(t_path(v, "Plain2"), 0755), "view: mkdir Plain2");
	CHECK_ERR(stat(t_path(v, "Plain2/x"), &st), ENOENT,
		  "view: a lookup in Plain2 (its rule is read: plain)");
	fd = open(t_path(v, "Plain2"), O_RDONLY | O_DIRECTORY);
	CHECK_OK(setxattr(t_path(src, "Plain2"), "user.foldfs.casefold", "1", 1, 0),
		 "SOURCE: set user.foldfs.casefold on Plain2");
	double t0 = t_now();
	got = 0;
	while (fd >= 0 && !got && t_now() - t0 < bound + 1) {
		got = ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 && (fl & 0x40000000);
		if (!got)
			t_sleep_ms(50);
	}
	CHECK(got, "-> FS_IOC_GETFLAGS alone shows the flag within %.1f s (%.2f s)", bound,
	      t_now() - t0);
	if (fd >= 0)
		close(fd);
	printf("   attribute: worst delay %.2f s (bound %.1f s)\n", worst, bound);
	t_umount(&m);
}

/* chattr and lsattr start from the attribute as SOURCE has it, however
 * recently the view read it: timeout=30 keeps the daemon's own rule stale
 * for the whole test, so only a fresh read can get these right (before,
 * `chattr -F` right after the attribute was set in SOURCE answered 0 and
 * left it there). */
static void run_attr_chattr(void)
{
	t_section("per-directory mount: chattr right after the attribute changed in SOURCE");
	const char *src = t_newdir("src-attr-chattr");
	struct t_mount m = {0};
	struct stat st;
	char v[8];
	if (t_mount(&m, src, "timeout=30"))
		return;
	const char *d = t_path(m.mnt, "D"), *sd = t_path(src, "D");
	CHECK_OK(mkdir(d, 0755), "view: mkdir D (not folding)");
	CHECK_ERR(stat(t_path(d, "x"), &st), ENOENT,
		  "view: a lookup in D (its rule is read: plain)");
	CHECK_OK(setxattr(sd, "user.foldfs.casefold", "1", 1, 0),
		 "SOURCE: set user.foldfs.casefold on D");
	CHECK(t_has_casefold(d) == 1, "-> lsattr shows the flag at once");
	CHECK_OK(t_set_casefold(d, 0), "view: chattr -F D");
	CHECK(lgetxattr(sd, "user.foldfs.casefold", v, sizeof v) < 0 && errno == ENODATA,
	      "-> SOURCE's attribute is gone");
	CHECK(t_has_casefold(d) == 0, "-> lsattr shows no flag");
	CHECK_OK(t_set_casefold(d, 1), "view: chattr +F D");
	CHECK_OK(removexattr(sd, "user.foldfs.casefold"),
		 "SOURCE: remove the attribute again");
	CHECK_OK(t_set_casefold(d, 1), "view: chattr +F D");
	CHECK(lgetxattr(sd, "user.foldfs.casefold", v, sizeof v) == 1 && v[0] == '1',
	      "-> SOURCE's attribute is back");
	CHECK_OK(t_write_file(t_path(d, "Readme.TXT"), "r"), "view: create D/Readme.TXT");
	CHECK_OK(stat(t_path(d, "README.txt"), &st), "-> D folds: README.txt finds it");
	t_umount(&m);
}

/* open(O_CREAT) of a name the kernel holds a negative dentry for, after
 * an equivalent name was made directly in SOURCE: the kernel sends CREATE
 * without a lookup, and the daemon must open the existing entry (or fail
 * as open(2) would: O_EXCL, a directory) instead of making a second,
 * equivalent one (with O_EXCL the kernel looks the name up again itself
 * and fails at once).  cache=epoch caches negatives (Linux 6.16+; elsewhere
 * it falls back to none, the kernel looks the name up first, and the
 * outcome must be the same); watch=poll keeps the daemon unaware of the
 * change until that request.  One directory per case: the first CREATE
 * bumps the epoch, which drops every cached negative. */
static void run_create_over_negative(void)
{
	static const struct {
		const char *dir, *view, *src;
		char kind; /* what SOURCE gets: f file, d directory, l symbolic
			      link (to ../DIR-target), p FIFO */
		int flags, err; /* err: the errno open must fail with, or 0 */
		const char *what;
	} cases[] = {
		{ "d1", "report.txt", "REPORT.TXT", 'f', O_CREAT | O_WRONLY | O_APPEND, 0,
		  "O_CREAT opens the existing REPORT.TXT" },
		{ "d2", "notes.txt", "NOTES.TXT", 'f', O_CREAT | O_EXCL | O_WRONLY, EEXIST,
		  "O_CREAT|O_EXCL fails: NOTES.TXT exists" },
		{ "d3", "sub", "SUB", 'd', O_CREAT | O_WRONLY, EISDIR,
		  "O_CREAT of a directory's other spelling: EISDIR" },
		{ "d4", "link", "LINK", 'l', O_CREAT | O_WRONLY | O_APPEND, 0,
		  "O_CREAT of a symbolic link's other spelling opens its target" },
		{ "d5", "fifo", "FIFO", 'p', O_CREAT | O_RDONLY | O_NONBLOCK, 0,
		  "O_CREAT of a FIFO's other spelling opens the FIFO" },
	};
	t_section("O_CREAT over a cached negative entry after SOURCE made an equivalent name");
	const char *src = t_newdir("src-neg");
	struct t_mount m = {0};
	struct stat st;
	if (t_mount(&m, src, "casefold,cache=epoch,watch=poll,timeout=60"))
		return;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *vd = t_path(m.mnt, cases[i].dir), *sd = t_path(src, cases[i].dir);
		const char *vp = t_path(vd, cases[i].view), *sp = t_path(sd, cases[i].src);
		char target[64];
		snprintf(target, sizeof target, "../%s-target", cases[i].dir);
		CHECK_OK(mkdir(vd, 0755), "view: mkdir %s", cases[i].dir);
		CHECK_ERR(stat(vp, &st), ENOENT, "view: %s/%s absent (a negative entry now)",
			  cases[i].dir, cases[i].view);
		switch (cases[i].kind) {
		case 'd':
			CHECK_OK(mkdir(sp, 0755), "SOURCE: mkdir %s/%s", cases[i].dir, cases[i].src);
			break;
		case 'l':
			src_write(t_path(sd, target), "old");
			CHECK_OK(symlink(target, sp), "SOURCE: symlink %s/%s", cases[i].dir,
				 cases[i].src);
			break;
		case 'p':
			CHECK_OK(mkfifo(sp, 0644), "SOURCE: mkfifo %s/%s", cases[i].dir, cases[i].src);
			break;
		default:
			src_write(sp, "old");
		}
		errno = 0;
		int fd = open(vp, cases[i].flags, 0644);
		int e = errno;
		if (cases[i].err) {
			CHECK(fd < 0 && e == cases[i].err, "view: %s/%s: %s (got %s)", cases[i].dir,
			      cases[i].view, cases[i].what, fd >= 0 ? "success" : strerror(e));
		} else {
			CHECK(fd >= 0, "view: %s/%s: %s (%s)", cases[i].dir, cases[i].view,
			      cases[i].what, fd >= 0 ? "ok" : strerror(e));
		}
		if (fd >= 0 && cases[i].kind == 'p') {
			CHECK(fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode), "-> it is the FIFO");
		} else if (fd >= 0 && !cases[i].err) {
			CHECK(write(fd, "+new", 4) == 4, "-> write through it");
			CHECK(t_file_is(sp, "old+new"), "-> SOURCE's %s/%s has the write",
			      cases[i].dir, cases[i].src);
		}
		if (fd >= 0)
			close(fd);
		CHECK(t_dir_count(sd) == 1 && t_dir_has(sd, cases[i].src),
		      "-> SOURCE's %s still holds only %s (%ld entries)", cases[i].dir,
		      cases[i].src, t_dir_count(sd));
	}
	t_umount(&m);
}

/* Lost inotify events: with the daemon stopped (SIGSTOP) while SOURCE
 * gets more new names in an indexed directory than the kernel's queue
 * holds (fs.inotify.max_queued_events, read, never changed: it is global),
 * the kernel drops events and queues IN_Q_OVERFLOW; the daemon must then
 * drop every index, so that all the new names are found by other
 * spellings. */
static void run_overflow(void)
{
	static const char *const qpath = "/proc/sys/fs/inotify/max_queued_events";
	t_section("inotify queue overflow: every index dropped and rebuilt");
	char qs[32];
	long q = t_read_file(qpath, qs, sizeof qs) > 0 ? atol(qs) : 0;
	if (q <= 0) {
		t_skip("cannot read %s", qpath);
		return;
	}
	if (q > 200000) {
		t_skip("%s is %ld: too many names to overflow it in a test", qpath, q);
		return;
	}
	/* one IN_CREATE per name: this many cannot all be queued */
	int n = (int)q + 256;
	const char *src = t_newdir("src-overflow");
	struct t_mount m = {0};
	struct stat st;
	if (t_mount(&m, src, "casefold,watch=inotify,debug"))
		return;
	CHECK_OK(mkdir(t_path(m.mnt, "Burst"), 0755), "view: mkdir Burst");
	CHECK_OK(t_write_file(t_path(m.mnt, "Burst/Seed"), "s"), "view: create Burst/Seed");
	CHECK_OK(stat(t_path(m.mnt, "BURST/SEED"), &st), "view: BURST/SEED (the index is built)");
	if (!CHECK(m.pid > 0 && kill(m.pid, SIGSTOP) == 0, "daemon stopped (SIGSTOP)"))
		goto out;
	int bad = 0;
	char rel[64];
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof rel, "Burst/File-%06d", i);
		bad += t_write_file(t_path(src, rel), "f") != 0;
	}
	kill(m.pid, SIGCONT);
	CHECK(bad == 0, "SOURCE: %d files created in Burst meanwhile, the queue holding %ld events "
	      "(%d failed)", n, q, bad);
	/* the events of the last names were certainly lost: all of those,
	 * and a sample of the rest */
	int looked = 0;
	bad = 0;
	for (int i = 0; i < n; i++) {
		if (i < n - 512 && i % 61)
			continue;
		looked++;
		snprintf(rel, sizeof rel, "burst/FILE-%06d", i);
		if (stat(t_path(m.mnt, rel), &st) && bad++ < 3)
			t_note("%s: %s", rel, strerror(errno));
	}
	CHECK(bad == 0, "-> found by other spellings: the last 512 and every 61st (%d of %d not)",
	      bad, looked);
	CHECK(t_log_count(&m, "events lost (queue overflow") > 0,
	      "-> the daemon saw the overflow (debug log)");
out:
	t_umount(&m);
}


/* A process that keeps changing an indexed directory directly in SOURCE
 * must not hold up lookups elsewhere: a lookup reads the events queued
 * when it starts (the changes that returned before it), not those that
 * keep coming.  SOURCE is a tmpfs, where the changes come faster than
 * their events can be read. */
static void run_busy_source(void)
{
	t_section("lookups answer while a process keeps changing SOURCE");
	const char *src = t_newdir("src-busy");
	struct t_mount m = {0};
	struct stat st;
	if (mount("tmpfs", src, "tmpfs", 0, "size=16m") != 0) {
		t_skip("cannot mount a tmpfs: %s", strerror(errno));
		return;
	}
	mkdir(t_path(src, "busy"), 0755);
	mkdir(t_path(src, "other"), 0755);
	t_write_file(t_path(src, "other/x"), "x");
	if (t_mount(&m, src, "casefold,watch=inotify"))
		goto out;
	CHECK_ERR(stat(t_path(m.mnt, "BUSY/nothing"), &st), ENOENT,
		  "view: BUSY/nothing (busy's index is built and watched)");
	CHECK_OK(stat(t_path(m.mnt, "OTHER/X"), &st), "view: OTHER/X");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		/* one name renamed back and forth, for at most 15 s: two
		 * events per system call */
		char a[4200], b[4200];
		snprintf(a, sizeof a, "%s/busy/ping", src);
		snprintf(b, sizeof b, "%s/busy/pong", src);
		close(open(a, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
		for (double end = t_now() + 15; t_now() < end;) {
			for (int i = 0; i < 100; i++) {
				rename(a, b);
				rename(b, a);
			}
		}
		_exit(0);
	}
	t_track_child(pid);
	t_sleep_ms(200);
	/* No time limit on a lookup: the 20 must merely be done while the
	 * writer still writes (before, the first one waited for it to stop). */
	int failed = 0;
	for (int i = 0; i < 20; i++) {
		failed += stat(t_path(m.mnt, "other/X"), &st) != 0;
		t_sleep_ms(10);
	}
	int writing = waitpid(pid, NULL, WNOHANG) == 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(!failed && writing,
	      "20 lookups of other/X answered while the writer still ran (%s; %d failed)",
	      writing ? "it did" : "it had stopped first", failed);
	t_umount(&m);
out:
	umount2(src, MNT_DETACH);
}

/* SOURCE renames a name between two equivalent spellings as fast as it
 * can: one of them exists at every instant, so a lookup by a third must
 * never fail, as it never does on an ext4 casefold directory.  (Each
 * event is applied by looking at its own name: the looks at "file" and
 * at "File" could fall on either side of a rename and find both gone.) */
/* A child that moves SOURCE's d/file to d/File and back for secs
 * seconds: by rename, or by link+unlink (one spelling always exists). */
static pid_t respell_loop(const char *src, int by_link, double secs)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char a[4200], b[4200];
		snprintf(a, sizeof a, "%s/d/file", src);
		snprintf(b, sizeof b, "%s/d/File", src);
		for (double end = t_now() + secs; t_now() < end;) {
			if (by_link) {
				link(a, b);
				unlink(a);
				link(b, a);
				unlink(b);
				continue;
			}
			for (int i = 0; i < 100; i++) {
				rename(a, b);
				rename(b, a);
			}
		}
		_exit(0);
	}
	t_track_child(pid);
	return pid;
}

static void run_rename_spellings(void)
{
	t_section("a name SOURCE renames between two spellings is always found");
	const char *src = t_newdir("src-spellings");
	struct t_mount m = {0};
	struct stat st;
	enum { LOOKUPS = 20000 };
	mkdir(t_path(src, "d"), 0755);
	t_write_file(t_path(src, "d/file"), "x");
	if (t_mount(&m, src, "casefold,watch=inotify,cache=none"))
		return;
	const char *p = t_path(m.mnt, "d/FILE");
	CHECK_OK(stat(p, &st), "view: d/FILE (d's index is built and watched)");
	pid_t pid = respell_loop(src, 0, 60);
	t_sleep_ms(50);
	int n = 0, enoent = 0, other = 0;
	for (double end = t_now() + 30; n < LOOKUPS && t_now() < end; n++) {
		if (stat(p, &st) != 0)
			*(errno == ENOENT ? &enoent : &other) += 1;
	}
	int renaming = waitpid(pid, NULL, WNOHANG) == 0;
	CHECK(renaming && n >= LOOKUPS / 4 && !enoent && !other,
	      "%d lookups of d/FILE while SOURCE renames file <-> File: "
	      "%d ENOENT, %d other errors (renamer %s)", n, enoent, other,
	      renaming ? "still ran" : "had stopped");
	/* Names that do not exist, meanwhile: each a plain miss.  The
	 * renames make names go from the index all the time, and a miss is
	 * proven only if no name equivalent to the one looked up went: 64
	 * names, so also those that share a slot of the index's count of
	 * names gone with file or File (fs/dirindex.c, GONE_SLOTS). */
	int found = 0;
	enoent = other = 0;
	n = 0;
	for (double end = t_now() + 20; n < LOOKUPS && t_now() < end; n++) {
		char name[64];
		snprintf(name, sizeof name, "d/Missing-%d", n % 64);
		if (stat(t_path(m.mnt, name), &st) == 0)
			found++;
		else if (errno == ENOENT)
			enoent++;
		else
			other++;
	}
	renaming = waitpid(pid, NULL, WNOHANG) == 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(renaming && n >= LOOKUPS / 4 && enoent == n,
	      "%d lookups of 64 missing names in d meanwhile: %d ENOENT, %d found, "
	      "%d other errors (renamer %s)", n, enoent, found, other,
	      renaming ? "still ran" : "had stopped");
	t_umount(&m);
}

/* cache=none caches nothing, also in plain directories: the kernel
 * keeps a dentry's timeout across a rename, so a directory looked up in
 * a plain directory and then moved into a folding one must not have been
 * cached there, or a change made to it in SOURCE would stay hidden. */
static void run_none_moved_in(void)
{
	t_section("cache=none: a directory moved in from a plain directory is not cached");
	const char *src = t_newdir("src-none-moved");
	struct t_mount m = {0};
	struct stat st;
	mkdir(t_path(src, "plain"), 0755);
	mkdir(t_path(src, "fold"), 0755);
	/* a long timeout: a cached entry would outlive the checks */
	if (t_mount(&m, src, "watch=inotify,cache=none,timeout=60"))
		return;
	CHECK_OK(t_set_casefold(t_path(m.mnt, "fold"), 1), "view: chattr +F fold");
	const char *kinds[] = {"dir", "file"};
	for (int k = 0; k < 2; k++) {
		char a[64], b[64], c[64], ma[4200];
		snprintf(a, sizeof a, "plain/%s", kinds[k]);
		snprintf(b, sizeof b, "fold/%s", kinds[k]);
		snprintf(c, sizeof c, "fold/%s-moved", kinds[k]);
		int made = k ? t_write_file(t_path(m.mnt, a), "x") :
			       mkdir(t_path(m.mnt, a), 0755);
		snprintf(ma, sizeof ma, "%s", t_path(m.mnt, b));
		if (!CHECK(made == 0 && stat(t_path(m.mnt, a), &st) == 0 &&
				   rename(t_path(m.mnt, a), ma) == 0,
			   "view: %s made and looked up in plain, renamed to %s", a, b))
			continue;
		/* SOURCE moves it away behind the view's back */
		CHECK_OK(rename(t_path(src, b), t_path(src, c)), "SOURCE: %s -> %s", b, c);
		CHECK_ERR(stat(ma, &st), ENOENT, "view: %s is gone at the first look", b);
		CHECK_OK(stat(t_path(m.mnt, c), &st), "view: %s is there", c);
	}
	t_umount(&m);
}

/*
 * A miss is proven by a fence (an open and read of the directory in
 * SOURCE) only after a name was found gone in a way that may hide
 * another.  An unlink does not: create+unlink loops through the view
 * must not fence at every create.  The fences are seen as the opens of
 * SOURCE's directory itself that an inotify watch of it reports.
 */
static void run_unlink_unfenced(void)
{
	t_section("create+unlink through the view does not fence each miss");
	const char *src = t_newdir("src-unfenced");
	struct t_mount m = {0};
	struct stat st;
	char name[64], buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	enum { LOOPS = 200 };
	int opens = 0, bad = 0;
	mkdir(t_path(src, "d"), 0755);
	t_write_file(t_path(src, "d/file"), "x");
	if (t_mount(&m, src, "casefold,watch=inotify,cache=none"))
		return;
	CHECK_OK(stat(t_path(m.mnt, "d/FILE"), &st),
		 "view: d/FILE (d's index is built and watched)");
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in < 0 || inotify_add_watch(in, t_path(src, "d"), IN_OPEN) < 0) {
		CHECK(0, "inotify watch of SOURCE's d: %s", strerror(errno));
		t_umount(&m);
		return;
	}
	for (int i = 0; i < LOOPS; i++) {
		snprintf(name, sizeof name, "d/new%d", i);
		int fd = open(t_path(m.mnt, name), O_CREAT | O_EXCL | O_WRONLY,
			      0644);
		if (fd < 0 || close(fd) || unlink(t_path(m.mnt, name)))
			bad++;
	}
	/* The events of the last loops may still be applied, and a read
	 * that holds a create whose unlink is not queued yet finds the name
	 * gone without an unlink to explain it (more often the slower the
	 * daemon: 24 of 200 under ASan): the count only needs to be far
	 * below one per loop, which is what it was. */
	for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;) {
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);
			opens += !ev->len;
			off += (ssize_t)(sizeof *ev + ev->len);
		}
	}
	close(in);
	CHECK(!bad && opens < LOOPS / 2,
	      "%d create+unlink loops in d: %d failed, %d fences (opens of "
	      "d in SOURCE)", LOOPS, bad, opens);
	/* Unfenced unlinks must not lose a name moved by link+unlink,
	 * where one of the two spellings always exists. */
	pid_t pid = respell_loop(src, 1, 30);
	const char *p = t_path(m.mnt, "d/FILE");
	int n = 0, enoent = 0;
	for (double end = t_now() + 5; t_now() < end; n++)
		enoent += stat(p, &st) != 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(n > 1000 && !enoent,
	      "%d lookups of d/FILE while SOURCE moves file <-> File by "
	      "link+unlink: %d failed", n, enoent);
	t_umount(&m);
}

/* Descriptors the daemon has open; with deleted, only those whose object
 * is deleted: what it still holds of removed directories. */
static int daemon_fds(pid_t pid, int deleted)
{
	char dir[64], path[320], target[4096];
	int n = 0;
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));) {
		ssize_t k;
		if (e->d_name[0] == '.')
			continue;
		if (!deleted) {
			n++;
			continue;
		}
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		k = readlink(path, target, sizeof target - 1);
		if (k > 10 && !memcmp(target + k - 10, " (deleted)", 10))
			n++;
	}
	closedir(d);
	return n;
}

/* Indexes hold their directory's descriptor after the kernel forgets it;
 * they may take at most half the daemon's descriptor limit, or a big tree
 * looked into runs the daemon out of descriptors (EMFILE). */
static void run_index_fd_cap(void)
{
	t_section("indexes keep at most half the descriptor limit open");
	const char *src = t_newdir("src-fdcap");
	struct t_mount m = {0};
	struct stat st;
	struct rlimit rl = {1024, 1024};
	char p[32];
	int fds = -1, failed = 0;
	for (int i = 0; i < 700; i++) {
		snprintf(p, sizeof p, "d%d", i);
		mkdir(t_path(src, p), 0755);
	}
	if (t_mount(&m, src, "casefold"))
		return;
	if (!CHECK(m.pid > 0 && prlimit(m.pid, RLIMIT_NOFILE, &rl, NULL) == 0,
		   "the daemon's descriptor limit set to 1024")) {
		t_umount(&m);
		return;
	}
	for (int i = 0; i < 700; i++) {
		snprintf(p, sizeof p, "D%d/NOPE", i);
		failed += stat(t_path(m.mnt, p), &st) == 0 || errno != ENOENT;
	}
	CHECK(failed == 0, "700 directories looked into by other spellings (%d failed)", failed);
	/* the kernel forgets them (see run_removed_indexed) */
	if (t_write_file("/proc/sys/vm/drop_caches", "2") != 0)
		t_note("cannot drop the caches (%s)", strerror(errno));
	for (int k = 0; k < 100 && (fds = daemon_fds(m.pid, 0)) > 512 + 64; k++)
		t_sleep_ms(50);
	CHECK(fds >= 0 && fds <= 512 + 64, "the daemon holds %d descriptors (at most 512 indexes)",
	      fds);
	CHECK_ERR(stat(t_path(m.mnt, "D1/NOPE"), &st), ENOENT, "and still answers");
	t_umount(&m);
}

/* watch=poll: a name made in SOURCE at the moment the view makes (and
 * removes) one in the same directory.  The stamps the daemon adopts after
 * its own change cover both, so it cannot see the other one then; it
 * must rescan within `timeout` (the bound for that case), never lose the
 * name.  Two processes, one per CPU, start each round together. */
static void pin_cpu(int c)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(c, &set);
	sched_setaffinity(0, sizeof set, &set);
}

static void run_poll_race(void)
{
	t_section("watch=poll: a name made in SOURCE while the view changes the directory");
	const char *src = t_newdir("src-pollrace");
	struct t_mount m = {0};
	struct stat st;
	enum { ROUNDS = 600 };
	atomic_int *go = mmap(NULL, 3 * sizeof *go, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(go != MAP_FAILED, "shared memory"))
		return;
	if (t_mount(&m, src, "casefold,watch=poll,timeout=1"))
		return;
	mkdir(t_path(m.mnt, "race"), 0755);
	stat(t_path(m.mnt, "race/NOPE"), &st); /* builds the index */
	pid_t kid[2];
	for (int k = 0; k < 2; k++) {
		fflush(stdout);
		kid[k] = fork();
		if (kid[k] == 0) {
			char p[64];
			pin_cpu(k);
			for (int i = 1; i <= ROUNDS; i++) {
				while (atomic_load(&go[0]) != i)
					;
				if (k == 0) {
					for (volatile int d = 0; d < (i * 37) % 4000; d++)
						;
					snprintf(p, sizeof p, "race/ext%d", i);
					close(open(t_path(src, p), O_CREAT | O_WRONLY, 0644));
				} else {
					snprintf(p, sizeof p, "race/own%d", i);
					close(open(t_path(m.mnt, p), O_CREAT | O_WRONLY, 0644));
					unlink(t_path(m.mnt, p));
				}
				atomic_store(&go[1 + k], i);
			}
			_exit(0);
		}
		t_track_child(kid[k]);
	}
	int late = 0, lost = 0;
	for (int i = 1; i <= ROUNDS && lost < 3 && late < 10; i++) {
		char p[64];
		atomic_store(&go[0], i);
		while (atomic_load(&go[1]) != i || atomic_load(&go[2]) != i)
			sched_yield();
		snprintf(p, sizeof p, "race/EXT%d", i);
		if (stat(t_path(m.mnt, p), &st) != 0) {
			late++;
			t_sleep_ms(1500); /* timeout=1, and a margin */
			if (stat(t_path(m.mnt, p), &st) != 0)
				lost++;
		}
		snprintf(p, sizeof p, "race/ext%d", i);
		unlink(t_path(src, p));
	}
	for (int k = 0; k < 2; k++) {
		kill(kid[k], SIGKILL);
		waitpid(kid[k], NULL, 0);
	}
	t_note("%d of the names made in SOURCE were seen only after the rescan", late);
	CHECK(lost == 0, "no name made in SOURCE is lost (%d not found after timeout)", lost);
	t_umount(&m);
	munmap(go, 3 * sizeof *go);
}


/* Look name up through the view until it is found or `secs` pass; the
 * seconds it took, or -1. */
static double found_within(const char *path, double secs)
{
	struct stat st;
	double t0 = t_now();
	while (t_now() - t0 < secs) {
		if (stat(path, &st) == 0)
			return t_now() - t0;
		t_sleep_ms(50);
	}
	return -1;
}

/* watch=auto on a network or FUSE file system: inotify there reports only
 * what passes through this machine's mount, not changes made behind it
 * (other clients, the server, a FUSE daemon's own store), so such
 * directories are polled.  A FUSE passthrough (foldfs nofold, under
 * another subtype) stands in for the network file system. */
static void run_remote_source(void)
{
	t_section("watch=auto on a FUSE SOURCE: a name made behind it is found");
	const char *real = t_newdir("src-real");
	struct t_mount pass = {0}, m = {0};
	struct stat st;
	if (t_mount(&pass, real, "nofold,subtype=passthru"))
		return;
	if (t_mount(&m, pass.mnt, "casefold") == 0) {
		CHECK_OK(t_write_file(t_path(real, "Alpha"), "a"), "behind it: Alpha");
		CHECK_OK(stat(t_path(m.mnt, "ALPHA"), &st), "ALPHA (the index is built)");
		CHECK_OK(t_write_file(t_path(real, "Beta"), "b"), "behind it: Beta");
		double dt = found_within(t_path(m.mnt, "BETA"), bound + margin);
		CHECK(dt >= 0, "BETA found within %.0f s (%.2f s)", bound + margin, dt);
		t_umount(&m);
	}
	t_umount(&pass);
}

/* watch=poll where timestamps are coarse (an ext2 image: whole seconds
 * here): a name made in SOURCE in the same second as the directory's scan
 * leaves its stamps as they were, so a directory read within 3 s of its
 * last change is read again 3 s later. */
static void run_poll_coarse(void)
{
	t_section("watch=poll on a coarse clock: a name made in the second of the scan");
	char dir[4200], out[512] = "";
	const char *d = t_newdir("coarse");
	struct t_mount m = {0};
	struct stat st;
	if (!d)
		return;
	if (t_ext2_image(d, dir, sizeof dir, out, sizeof out)) {
		t_skip("no ext2 image could be made and mounted here: %.200s", out);
		return;
	}
	const char *src = t_path(dir, "src");
	mkdir(src, 0755);
	if (t_mount(&m, src, "casefold,watch=poll") == 0) {
		int lost = 0;
		for (int round = 0; round < 3; round++) {
			char a[32], b[32], A[32], B[32];
			snprintf(a, sizeof a, "Alpha%d", round);
			snprintf(b, sizeof b, "Beta%d", round);
			snprintf(A, sizeof A, "ALPHA%d", round);
			snprintf(B, sizeof B, "BETA%d", round);
			struct timespec now;
			/* start just after a second begins: all three steps
			 * within one tick */
			clock_gettime(CLOCK_REALTIME, &now);
			t_sleep_ms(1000 - now.tv_nsec / 1000000 + 20);
			t_write_file(t_path(src, a), "a");
			stat(t_path(m.mnt, A), &st); /* scanned: this second's stamps */
			t_write_file(t_path(src, b), "b");
			lost += found_within(t_path(m.mnt, B), 3 + margin) < 0;
		}
		CHECK(lost == 0, "a name made in the second of the scan is found within %.0f s "
		      "(%d of 3 lost)", 3 + margin, lost);
		t_umount(&m);
	}
	t_ext2_umount(dir);
}

/* cache=epoch: a file looked up by another spelling and then removed
 * through the view by its own: the kernel's dentry of that other spelling
 * still pins it (and the daemon its descriptor) until the cleanup
 * invalidation drops it.  That must work also after the note stopped
 * counting for correctness (it expired: 2 * timeout + 1 s) and a new note
 * elsewhere pruned the dead ones.  (cache=auto gives such files entry
 * timeout 0: the kernel does not keep their dentries.) */
static void run_cleanup_after_expiry(void)
{
	t_section("cache=epoch: a removed file's other cached spellings are let go after expiry");
	const char *src = t_newdir("src-pin");
	struct t_mount m = {0};
	struct stat st;
	if (t_mount(&m, src, "casefold,cache=epoch,timeout=1"))
		return;
	mkdir(t_path(m.mnt, "f"), 0755);
	mkdir(t_path(m.mnt, "h"), 0755);
	CHECK_OK(t_write_file(t_path(m.mnt, "f/foo"), "pinned"), "f/foo");
	CHECK_OK(stat(t_path(m.mnt, "f/FOO"), &st), "stat f/FOO");
	t_sleep_ms(3500); /* its note expires */
	CHECK_OK(t_write_file(t_path(m.mnt, "h/bar"), "b"), "h/bar (a new note)");
	CHECK_OK(unlink(t_path(m.mnt, "f/foo")), "rm f/foo");
	int held = -1;
	for (int k = 0; (held = daemon_fds(m.pid, 1)) > 0 && k < 100; k++)
		t_sleep_ms(20);
	CHECK(held == 0, "the daemon holds no removed file (%d)", held);
	t_umount(&m);
}

/* cache=epoch: the watch thread settles a change made in SOURCE with the
 * directory's namespace lock shared, so lookups run meanwhile.  A lookup
 * that notes a spelling again (same answer, same node) while settle() is
 * dropping that spelling's old note must keep its note: the kernel trusts
 * the new answer, and a later change through the view must invalidate it.
 * Each round: every case spelling of a 12-letter name looked up, the
 * notes killed by a bump, the file moved away and back in SOURCE with the
 * all-caps spelling looked up right after, then renamed through the view:
 * the all-caps spelling must answer ENOENT at once. */
static int epoch_bump_from_source(int mdir, int sdir)
{
	struct stat st;
	fstatat(mdir, "Q", &st, 0); /* a negative entry Q ... */
	close(openat(sdir, "q", O_CREAT | O_WRONLY | O_CLOEXEC, 0644)); /* ... made stale */
	t_sleep_ms(50);
	unlinkat(sdir, "q", 0);
	t_sleep_ms(50);
	return 0;
}

static void run_settle_race(void)
{
	t_section("cache=epoch: a lookup during a SOURCE change's settling keeps its note");
	enum { NL = 12, NV = 1 << NL, ROUNDS = 25 };
	static const char base[] = "abcdefghijkl";
	const char *src = t_newdir("src-settle");
	struct t_mount m = {0};
	char v[NL + 1], up[NL + 1];
	struct stat st;
	int stale = 0, r;

	mkdir(t_path(src, "d"), 0755);
	mkdir(t_path(src, "e"), 0755);
	if (t_mount(&m, src, "casefold,cache=epoch,timeout=30"))
		return;
	int sd = open(t_path(src, "d"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int se = open(t_path(src, "e"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int md = open(t_path(m.mnt, "d"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int me = open(t_path(m.mnt, "e"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	close(openat(sd, base, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	int hold = openat(md, base, O_RDONLY | O_CLOEXEC); /* keeps its node */
	if (!CHECK(sd >= 0 && se >= 0 && md >= 0 && me >= 0 && hold >= 0, "set-up"))
		goto out;
	for (int i = 0; i < NL; i++)
		up[i] = (char)(base[i] - 32);
	up[NL] = 0;
	for (r = 0; r < ROUNDS && !stale; r++) {
		epoch_bump_from_source(me, se);
		for (int k = NV - 1; k >= 0; k--) { /* all caps first: oldest note */
			for (int i = 0; i < NL; i++)
				v[i] = (char)((k >> (NL - 1 - i)) & 1 ? base[i] - 32 : base[i]);
			v[NL] = 0;
			fstatat(md, v, &st, 0);
		}
		epoch_bump_from_source(me, se); /* the notes dead, still kept */
		renameat(sd, base, sd, "tmp");	/* in SOURCE: away ... */
		for (volatile long d = 0; d < (r * 7919L) % 400000; d++)
			;
		renameat(sd, "tmp", sd, base);	/* ... and back */
		fstatat(md, up, &st, 0);	/* noted again, settle running */
		t_sleep_ms(300);
		if (!CHECK(renameat(md, base, md, "zz") == 0, "round %d: rename through the view: %s",
			   r, strerror(errno)))
			break;
		if (fstatat(md, up, &st, 0) == 0) {
			stale++;
			t_note("round %d: %s still found after the rename returned", r, up);
		}
		renameat(md, "zz", md, base);
	}
	CHECK(stale == 0, "%d rounds: after a rename through the view the all-caps spelling "
	      "answers ENOENT at once (%d stale)", r, stale);
out:
	close(hold);
	close(sd);
	close(se);
	close(md);
	close(me);
	t_umount(&m);
}

/* Indexed directories removed other than by rmdir through the view (a
 * rename over them, rmdir in SOURCE): once the kernel forgets them, the
 * daemon must let go of them (index, descriptor, inotify watch). */
static void run_removed_indexed(void)
{
	t_section("indexed directories removed by rename or in SOURCE are let go");
	for (int w = 0; w < 2; w++) {
		const char *src = t_newdir("src-gone");
		struct t_mount m = {0};
		struct stat st;
		char a[32], b[32], c[32];
		int held;
		if (t_mount(&m, src, w ? "casefold,watch=poll" : "casefold,watch=inotify"))
			return;
		for (int i = 0; i < 20; i++) {
			snprintf(a, sizeof a, "a%d", i);
			snprintf(b, sizeof b, "b%d", i);
			snprintf(c, sizeof c, "B%d/NOPE", i);
			mkdir(t_path(m.mnt, a), 0755);
			mkdir(t_path(m.mnt, b), 0755);
			stat(t_path(m.mnt, c), &st); /* a miss builds b's index */
			if (i % 2)
				rename(t_path(m.mnt, a), t_path(m.mnt, b));
			else
				rmdir(t_path(src, b));
		}
		/* the kernel looks the removed ones up again and forgets them */
		for (int i = 0; i < 20; i += 2) {
			snprintf(c, sizeof c, "B%d/x", i);
			stat(t_path(m.mnt, c), &st);
		}
		/* The other order: ten more indexed directories that the
		 * kernel forgets first (dropping the machine's clean dentry and
		 * inode caches is the only way a test can make it forget; it
		 * costs nothing but a moment's speed), then removed in SOURCE. */
		for (int i = 0; i < 10; i++) {
			snprintf(a, sizeof a, "c%d", i);
			snprintf(c, sizeof c, "C%d/NOPE", i);
			mkdir(t_path(m.mnt, a), 0755);
			stat(t_path(m.mnt, c), &st);
		}
		if (t_write_file("/proc/sys/vm/drop_caches", "2") != 0)
			t_note("cannot drop the caches (%s)", strerror(errno));
		t_sleep_ms(200);
		for (int i = 0; i < 10; i++) {
			snprintf(a, sizeof a, "c%d", i);
			rmdir(t_path(src, a));
		}
		/* FORGET reaches the daemon asynchronously, and a directory
		 * forgotten before its removal is found by a sweep that runs
		 * (at most once a second) when a lookup comes: look and wait */
		for (int k = 0; (held = m.pid > 0 ? daemon_fds(m.pid, 1) : -1) > 0 && k < 100; k++) {
			stat(t_path(m.mnt, "C0/x"), &st);
			usleep(50000);
		}
		CHECK(held == 0, "watch=%s: the daemon holds %d removed directories (of 30)",
		      w ? "poll" : "inotify", held);
		t_umount(&m);
	}
}

/* inotify watches the daemon holds: the entries of its inotify
 * descriptor's fdinfo (-1 if it has none). */
static int daemon_watches(pid_t pid)
{
	char dir[64], path[320], target[64], line[512];
	int n = -1;
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	for (struct dirent *e; n < 0 && (e = readdir(d));) {
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		ssize_t k = readlink(path, target, sizeof target - 1);
		if (k <= 0)
			continue;
		target[k] = '\0';
		if (strcmp(target, "anon_inode:inotify"))
			continue;
		snprintf(path, sizeof path, "/proc/%d/fdinfo/%s", (int)pid, e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		n = 0;
		while (fgets(line, sizeof line, f))
			n += !strncmp(line, "inotify wd:", 11);
		fclose(f);
	}
	closedir(d);
	return n;
}

/* ndirs directories d0.. in src, each with a file "alt". */
static void make_dirs(const char *src, int ndirs)
{
	char rel[64];
	int bad = 0;
	for (int i = 0; i < ndirs; i++) {
		snprintf(rel, sizeof rel, "d%d", i);
		bad += mkdir(t_path(src, rel), 0755) != 0;
		snprintf(rel, sizeof rel, "d%d/alt", i);
		bad += t_write_file(t_path(src, rel), "a") != 0;
	}
	CHECK(bad == 0, "SOURCE: %d directories with a file alt (%d failed)", ndirs, bad);
}

/* Every directory indexed (a miss), then changed in SOURCE: the view must
 * see it at once, watched or not, and create no equivalent duplicate. */
static void watch_cap_round(const char *src, int ndirs, int cap, const char *opt)
{
	struct t_mount m = {0};
	struct stat st;
	char rel[64], opts[64];
	const char *how = *opt ? opt : "default";
	int missed = 0, stale = 0, dup = 0, bad = 0;
	snprintf(opts, sizeof opts, "casefold,watch=inotify%s%s", *opt ? "," : "", opt);
	if (t_mount(&m, src, opts))
		return;
	for (int i = 0; i < ndirs; i++) {
		snprintf(rel, sizeof rel, "D%d/NOPE", i);
		bad += !(stat(t_path(m.mnt, rel), &st) && errno == ENOENT);
	}
	CHECK(bad == 0, "[%s] a miss in each of %d directories builds its index (%d failed)",
	      how, ndirs, bad);
	int w = m.pid > 0 ? daemon_watches(m.pid) : -1;
	CHECK(w >= 0 && w <= cap, "[%s] the daemon holds %d inotify watches (at most %d)", how,
	      w, cap);
	CHECK(t_log_count(&m, "(max_watches)") > 0,
	      "[%s] it said that further directories are polled", how);
	/* the user's other programs still get watches */
	int ifd = inotify_init1(IN_CLOEXEC);
	int wd = ifd >= 0 ? inotify_add_watch(ifd, src, IN_CREATE) : -1;
	CHECK(wd >= 0, "[%s] another program can still add an inotify watch (%s)", how,
	      wd >= 0 ? "ok" : strerror(errno));
	if (ifd >= 0)
		close(ifd);
	bad = 0;
	for (int i = 0; i < ndirs; i++) {
		snprintf(rel, sizeof rel, "d%d/neu", i);
		bad += t_write_file(t_path(src, rel), "n") != 0;
		snprintf(rel, sizeof rel, "d%d/alt", i);
		bad += unlink(t_path(src, rel)) != 0;
	}
	CHECK(bad == 0, "[%s] SOURCE: neu made and alt removed in every directory", how);
	for (int i = 0; i < ndirs; i++) {
		snprintf(rel, sizeof rel, "D%d/NEU", i);
		missed += stat(t_path(m.mnt, rel), &st) != 0;
		snprintf(rel, sizeof rel, "d%d/ALT", i);
		stale += !(stat(t_path(m.mnt, rel), &st) && errno == ENOENT);
		snprintf(rel, sizeof rel, "d%d/Neu", i);
		int fd = open(t_path(m.mnt, rel), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		snprintf(rel, sizeof rel, "d%d/Neu", i);
		dup += fd < 0 || lstat(t_path(src, rel), &st) == 0;
	}
	CHECK(missed == 0 && stale == 0 && dup == 0,
	      "[%s] -> seen at the first look through the view: NEU missing in %d, ALT "
	      "still found in %d, creating Neu made a second name in %d", how, missed, stale,
	      dup);
	t_umount(&m);
	for (int i = 0; i < ndirs; i++) {
		snprintf(rel, sizeof rel, "d%d/neu", i);
		unlink(t_path(src, rel));
		snprintf(rel, sizeof rel, "d%d/Neu", i);
		unlink(t_path(src, rel));
		snprintf(rel, sizeof rel, "d%d/alt", i);
		t_write_file(t_path(src, rel), "a");
	}
}

/* The inotify watch limit is per user and shared with the user's other
 * programs (for root: systemd, udev, ...), and a mount over a big tree
 * wants one per indexed directory: the daemon takes at most a quarter of
 * the limit by default (-o max_watches sets another number), and polls the
 * directories beyond.  The default is tried in a user namespace of our
 * own whose limit (user.max_inotify_watches) is low; the machine's
 * fs.inotify.max_user_watches is never touched.  Also: a directory that
 * loses its index (chattr -F) loses its watch with it. */
static void run_watch_cap(void)
{
	t_section("inotify watches: at most a quarter of the user's limit, or max_watches");
	const char *src = t_newdir("src-wcap");
	make_dirs(src, 240);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
			t_skip("no user namespace for the default limit (%s)", strerror(errno));
			_exit(0);
		}
		if (t_write_file("/proc/self/setgroups", "deny") ||
		    t_write_file("/proc/self/uid_map", "0 0 1") ||
		    t_write_file("/proc/self/gid_map", "0 0 1") ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			t_skip("user namespace set-up failed (%s)", strerror(errno));
			_exit(0);
		}
		int r = t_write_file("/proc/sys/user/max_inotify_watches", "200");
		if (CHECK(r == 0, "user namespace with user.max_inotify_watches=200 (%s)",
			  r ? strerror(errno) : "ok"))
			watch_cap_round(src, 240, 50, "");
		_exit(0);
	}
	if (pid > 0) {
		t_track_child(pid);
		waitpid(pid, NULL, 0);
	}
	watch_cap_round(src, 40, 10, "max_watches=10");


	struct t_mount m = {0};
	struct stat st;
	int fl = 0;
	if (t_mount(&m, t_newdir("src-wcap-attr"), "watch=inotify"))
		return;
	CHECK_OK(mkdir(t_path(m.mnt, "f"), 0755), "view: mkdir f");
	int fd = open(t_path(m.mnt, "f"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = fd >= 0 ? ioctl(fd, FS_IOC_GETFLAGS, &fl) : -1;
	fl |= 0x40000000; /* FS_CASEFOLD_FL */
	CHECK_OK(r == 0 ? ioctl(fd, FS_IOC_SETFLAGS, &fl) : -1, "chattr +F f");
	int w0 = daemon_watches(m.pid);
	CHECK_ERR(stat(t_path(m.mnt, "f/NOPE"), &st), ENOENT, "a miss in f builds its index");
	int w1 = daemon_watches(m.pid);
	fl &= ~0x40000000;
	CHECK_OK(fd >= 0 ? ioctl(fd, FS_IOC_SETFLAGS, &fl) : -1, "chattr -F f: its index goes");
	int w2 = daemon_watches(m.pid);
	CHECK(w1 == w0 + 1 && w2 == w0, "-> and its watch too (watches: %d, indexed %d, after %d)",
	      w0, w1, w2);
	if (fd >= 0)
		close(fd);
	t_umount(&m);
}

/* ---- indexes evicted under changes ------------------------------------- */

/* Names fo<b>, in four spellings, in directories e<d>: what SOURCE holds
 * is the truth, and the view must answer every spelling from it -- the
 * exact name if stored, else the bytewise smallest equivalent. */
#define EV_DIRS 120
#define EV_BASES 6
static const char *const ev_spell[4] = {"FO%d", "Fo%d", "fO%d", "fo%d"}; /* bytewise order */
static int ev_bad[4]; /* duplicated, lost, wrong, stale */

static void ev_name(char *out, size_t cap, int b, int v)
{
	snprintf(out, cap, ev_spell[v], b);
}

/* Which spellings of fo<b> SOURCE holds in e<d>: a bit per spelling. */
static unsigned ev_stored(const char *src, int d, int b)
{
	char rel[64], nm[16];
	struct stat st;
	unsigned got = 0;
	for (int v = 0; v < 4; v++) {
		ev_name(nm, sizeof nm, b, v);
		snprintf(rel, sizeof rel, "e%d/%s", d, nm);
		if (lstat(t_path(src, rel), &st) == 0)
			got |= 1u << v;
	}
	return got;
}

static void ev_check(const char *src, const char *mnt, int d, const char *after)
{
	static const char *const what[4] = {"duplicated", "lost", "wrong", "stale"};
	char rel[64], nm[16];
	struct stat vs, ss;
	for (int b = 0; b < EV_BASES; b++) {
		unsigned got = ev_stored(src, d, b);
		int kind = -1;
		if (got & (got - 1))
			kind = 0; /* only the view could have made the second */
		for (int v = 0; v < 4 && kind < 0; v++) {
			ev_name(nm, sizeof nm, b, v);
			snprintf(rel, sizeof rel, "e%d/%s", d, nm);
			int r = lstat(t_path(mnt, rel), &vs);
			int want = got & (1u << v) ? v : got ? __builtin_ctz(got) : -1;
			if (want < 0) {
				if (r == 0 || errno != ENOENT)
					kind = 3;
				continue;
			}
			ev_name(nm, sizeof nm, b, want);
			snprintf(rel, sizeof rel, "e%d/%s", d, nm);
			if (r != 0)
				kind = 1;
			else if (lstat(t_path(src, rel), &ss) != 0 || ss.st_ino != vs.st_ino)
				kind = 2;
		}
		if (kind >= 0 && ev_bad[kind]++ < 3)
			t_note("e%d, fo%d: %s after %s", d, b, what[kind], after);
	}
}

/* Changes through the view (create, unlink, rename by any spelling) and
 * directly in SOURCE (never making a second equivalent) across many
 * folding directories, while lookups elsewhere keep building indexes: at
 * most 64 are kept (half the descriptor limit of 128), and of those only
 * 20 are watched (max_watches), so directories are evicted, rebuilt,
 * watched and polled all along.  After every change the directories it
 * touched must answer every spelling from what SOURCE holds. */
static void run_evict_changes(void)
{
	t_section("indexes evicted while names change in the view and in SOURCE");
	const char *src = t_newdir("src-evict");
	struct t_mount m = {.nofile = 128};
	char rel[64], rel2[64], nm[16], nm2[16], after[96];
	struct stat st;
	unsigned rng = 12345;
	int bad = 0;
	for (int d = 0; d < EV_DIRS; d++) {
		snprintf(rel, sizeof rel, "e%d", d);
		bad += mkdir(t_path(src, rel), 0755) != 0;
	}
	CHECK(bad == 0, "SOURCE: %d directories", EV_DIRS);
	memset(ev_bad, 0, sizeof ev_bad);
	if (t_mount(&m, src, "casefold,max_watches=20,debug"))
		return;
	for (int step = 0; step < 800; step++) {
#define EV_RAND(n) ((int)((rng = rng * 1103515245u + 12345u) >> 16) % (n))
		int d = EV_RAND(EV_DIRS), b = EV_RAND(EV_BASES), v = EV_RAND(4);
		int d2 = EV_RAND(EV_DIRS), b2 = EV_RAND(EV_BASES), v2 = EV_RAND(4);
		int op = EV_RAND(6), fd;
		unsigned got;
		ev_name(nm, sizeof nm, b, v);
		ev_name(nm2, sizeof nm2, b2, v2);
		snprintf(rel, sizeof rel, "e%d/%s", d, nm);
		snprintf(rel2, sizeof rel2, "e%d/%s", d2, nm2);
		switch (op) {
		case 0:
			fd = open(t_path(m.mnt, rel), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
			break;
		case 1:
			unlink(t_path(m.mnt, rel));
			break;
		case 2:
			rename(t_path(m.mnt, rel), t_path(m.mnt, rel2));
			break;
		case 3:
			if (!ev_stored(src, d, b))
				t_write_file(t_path(src, rel), "s");
			break;
		case 4:
			if ((got = ev_stored(src, d, b))) {
				ev_name(nm, sizeof nm, b, __builtin_ctz(got));
				snprintf(rel, sizeof rel, "e%d/%s", d, nm);
				unlink(t_path(src, rel));
			}
			break;
		case 5:
			if ((got = ev_stored(src, d, b)) &&
			    ((d == d2 && b == b2) || !ev_stored(src, d2, b2))) {
				ev_name(nm, sizeof nm, b, __builtin_ctz(got));
				snprintf(rel, sizeof rel, "e%d/%s", d, nm);
				rename(t_path(src, rel), t_path(src, rel2));
			}
			break;
		}
		snprintf(after, sizeof after, "%s %s -> %s", op < 3 ? "view" : "SOURCE",
			 op == 0 || op == 3 ? "create" : op == 1 || op == 4 ? "unlink" : "rename",
			 op == 2 || op == 5 ? rel2 : rel);
		ev_check(src, m.mnt, d, after);
		if (d2 != d && (op == 2 || op == 5))
			ev_check(src, m.mnt, d2, after);
		/* misses elsewhere: indexes built, others evicted */
		for (int k = 0; k < 3; k++) {
			snprintf(rel, sizeof rel, "E%d/NOPE", EV_RAND(EV_DIRS));
			stat(t_path(m.mnt, rel), &st);
		}
#undef EV_RAND
	}
	for (int d = 0; d < EV_DIRS; d++)
		ev_check(src, m.mnt, d, "the end");
	/* over index_mem's budget, or by pruning (the indexes of directories
	 * the kernel forgot: "dropped N indexes") */
	long ev = t_log_count(&m, "evicted (budget"), pr = 0;
	FILE *lf = fopen(m.log, "re");
	char line[512];
	while (lf && fgets(line, sizeof line, lf)) {
		const char *k = strstr(line, "dropped ");
		if (k && strstr(k, " indexes"))
			pr += strtol(k + 8, NULL, 10);
	}
	if (lf)
		fclose(lf);
	CHECK(ev + pr > 100, "800 changes, indexes evicted %ld times (%ld over budget, %ld pruned)",
	      ev + pr, ev, pr);
	CHECK(!ev_bad[0] && !ev_bad[1] && !ev_bad[2] && !ev_bad[3],
	      "-> every spelling answered from SOURCE: %d duplicated, %d lost, %d wrong, "
	      "%d stale", ev_bad[0], ev_bad[1], ev_bad[2], ev_bad[3]);
	t_umount(&m);
}

/* ---- invalidations outliving their directory ----------------------------- */

/* A change in SOURCE queues invalidations of the spellings the kernel was
 * given; a worker thread sends them after the fact.  Under pruning the
 * directory may be forgotten and its node freed before they go, and its
 * id (the node's address) handed to another node meanwhile, a file's
 * even.  Sent then, the invalidation drops a same-named entry of an
 * unrelated directory (getcwd() inside it fails, mounts on it are
 * detached), or the kernel refuses it: "fuse: writing device: Not a
 * directory" in the log.  None may reach a reused id.  SOURCE renames
 * names between spellings in many directories for 8 s while two readers
 * look names up in all of them, with a descriptor limit of 128. */
#define IR_DIRS 300
static void run_inval_reused(void)
{
	t_section("queued invalidations of forgotten directories (pruning, SOURCE renames)");
	const char *src = t_newdir("src-inval-reused");
	struct t_mount m = {.nofile = 128};
	char rel[64];
	int bad = 0;
	for (int d = 0; d < IR_DIRS; d++) {
		snprintf(rel, sizeof rel, "d%d", d);
		bad += mkdir(t_path(src, rel), 0755) != 0;
		for (int f = 0; f < 3; f++) {
			snprintf(rel, sizeof rel, "d%d/file%d", d, f);
			bad += t_write_file(t_path(src, rel), "x") != 0;
		}
	}
	CHECK(bad == 0, "SOURCE: %d directories of 3 files", IR_DIRS);
	if (t_mount(&m, src, "casefold"))
		return;
	pid_t pid[2];
	for (int k = 0; k < 2; k++) {
		pid[k] = fork();
		if (pid[k] != 0) {
			t_track_child(pid[k]);
			continue;
		}
		unsigned rng = 7 + (unsigned)k;
		double end = t_now() + 8;
		char a[64], b[64];
		struct stat st;
		static const char *const look[] = {"File0", "fILE1", "nope", "FiLe2"};
		while (t_now() < end) {
			rng = rng * 1103515245u + 12345u;
			int d = (int)(rng >> 16) % IR_DIRS, f = (int)(rng >> 8) % 3;
			if (k == 0) {
				/* file<f> <-> FILE<f>, directly in SOURCE */
				snprintf(a, sizeof a, "d%d/file%d", d, f);
				snprintf(b, sizeof b, "d%d/FILE%d", d, f);
				if (rename(t_path(src, a), t_path(src, b)) != 0)
					rename(t_path(src, b), t_path(src, a));
				continue;
			}
			for (int l = 0; l < 4; l++) {
				snprintf(a, sizeof a, "d%d/%s", d, look[l]);
				lstat(t_path(m.mnt, a), &st);
			}
		}
		_exit(0);
	}
	/* and a second reader, here */
	unsigned rng = 11;
	struct stat st;
	while (waitpid(pid[0], NULL, WNOHANG) == 0) {
		rng = rng * 1103515245u + 12345u;
		int d = (int)(rng >> 16) % IR_DIRS;
		static const char *const look[] = {"FILE0", "file1", "NOPE", "file2"};
		for (int l = 0; l < 4; l++) {
			snprintf(rel, sizeof rel, "d%d/%s", d, look[l]);
			lstat(t_path(m.mnt, rel), &st);
		}
	}
	waitpid(pid[1], NULL, 0);
	long sent = t_log_count(&m, "writing device");
	CHECK(sent == 0, "no invalidation sent to a reused node id (%ld refused by the kernel)",
	      sent);
	if (sent)
		t_show_log(&m);
	t_umount(&m);
}

/*
 * A SOURCE whose attributes the kernel caches (NFS: acdirmin 30 s, sshfs
 * 20 s; here a plain view with timeout=30, under another subtype, as a
 * foldfs view is refused as SOURCE): the daemon polls it (auto on
 * FUSE), and a poll that read the directory's stamps from that cache saw a
 * change made below only when the cache expired, not within `timeout`.
 */
static void run_poll_cached(void)
{
	t_section("polling a SOURCE with cached attributes sees a change within the bound");
	const char *low = t_newdir("src-pollcache");
	struct t_mount lower = {0}, m = {0};
	struct stat st;
	mkdir(t_path(low, "W"), 0755);
	close(open(t_path(low, "W/a"), O_CREAT | O_WRONLY, 0644));
	if (t_mount(&lower, low, "nofold,subtype=plain,timeout=30"))
		return;
	if (t_mount(&m, lower.mnt, "casefold") == 0) {
		/* past the coarse-clock rule's rescan (a directory indexed
		 * within 3 s of its last change is scanned again 3 s later,
		 * dirindex.c), which would find the change by itself */
		t_sleep_ms(3500);
		CHECK_OK(stat(t_path(m.mnt, "w/A"), &st), "w/A through both views (index built)");
		t_sleep_ms(1100);
		/* a poll now takes the stamps and the lower view caches them */
		CHECK_ERR(stat(t_path(m.mnt, "w/B"), &st), ENOENT, "w/B missing");
		close(open(t_path(low, "W/Foo"), O_CREAT | O_WRONLY, 0644));
		double t0 = t_now(), end = t0 + bound + margin;
		int found;
		while (!(found = stat(t_path(m.mnt, "W/foo"), &st) == 0) && t_now() < end)
			t_sleep_ms(100);
		CHECK(found, "W/foo found %.1f s after W/Foo was made below the lower view "
		      "(bound %.0f + %.0f s)", t_now() - t0, bound, margin);
		t_umount(&m);
	}
	t_umount(&lower);
}

/*
 * A name removed through the view and made again in SOURCE at once (a
 * program that re-creates what it sees deleted, by inotify): the daemon
 * updated its index for its own unlink blindly, after SOURCE's create
 * events could already have been applied, and the name was then missing
 * from the index for good -- other spellings ENOENT, and mkdir of one
 * made a second equivalent name.
 */
static void run_unlink_recreated(void)
{
	t_section("a name removed through the view and made again in SOURCE at once");
	const char *src = t_newdir("src-recreate");
	const char *x = t_path(src, "X");
	struct t_mount m = {0};
	struct stat st;
	mkdir(x, 0755);
	close(open(t_path(x, "a"), O_CREAT | O_WRONLY, 0644));
	close(open(t_path(x, "other"), O_CREAT | O_WRONLY, 0644));
	if (t_mount(&m, src, "casefold"))
		return;
	CHECK_OK(stat(t_path(m.mnt, "X/OTHER"), &st), "X indexed");
	int in = inotify_init1(IN_CLOEXEC);
	if (in < 0 || inotify_add_watch(in, x, IN_DELETE) < 0) {
		t_skip("inotify: %s", strerror(errno));
		t_umount(&m);
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) { /* the reflex: "a" deleted -> "a" again */
		char buf[4096];
		for (;;) {
			ssize_t n = read(in, buf, sizeof buf);
			for (char *p = buf; n > 0 && p < buf + n;) {
				struct inotify_event *e = (struct inotify_event *)p;
				if (e->len && !strcmp(e->name, "a"))
					close(open(t_path(x, "a"), O_CREAT | O_WRONLY, 0644));
				p += sizeof *e + e->len;
			}
			if (n <= 0 && errno != EINTR)
				_exit(0);
		}
	}
	close(in);
	/* busy children, one per CPU: the daemon's threads then lose the CPU
	 * in the middle of an unlink often enough to open the race's window
	 * (idle, the old daemon passed 300 rounds; loaded, it lost the name
	 * within a thousand) */
	pid_t hog[16];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nhog = 0;
	for (; nhog < (ncpu > 0 && ncpu < 16 ? ncpu : 2); nhog++) {
		if ((hog[nhog] = fork()) == 0) {
			alarm(120);
			for (volatile unsigned long n = 0;; n++)
				;
		}
		if (hog[nhog] < 0)
			break;
	}
	int stale = 0, rounds = 0, missing = 0;
	for (int i = 0; i < 3000 && !stale; i++) {
		stat(t_path(m.mnt, "X/A"), &st);
		unlink(t_path(m.mnt, "X/a"));
		/* the reflex's create, then the view must find it (bound) */
		double end = t_now() + 2;
		while (stat(t_path(x, "a"), &st) != 0 && t_now() < end)
			t_sleep_ms(1);
		if (stat(t_path(x, "a"), &st) != 0) {
			missing++;
			close(open(t_path(x, "a"), O_CREAT | O_WRONLY, 0644));
		}
		rounds++;
		end = t_now() + bound + margin;
		while (stat(t_path(m.mnt, "X/A"), &st) != 0 && t_now() < end)
			t_sleep_ms(20);
		stale = stat(t_path(m.mnt, "X/A"), &st) != 0;
	}
	for (int i = 0; i < nhog; i++) {
		kill(hog[i], SIGKILL);
		waitpid(hog[i], NULL, 0);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(!stale, "X/A found after each of %d rounds of unlink through the view and "
	      "create in SOURCE (%s; %d re-created by the test)", rounds,
	      stale ? "lost for good" : "never lost", missing);
	if (stale) {
		CHECK_ERR(mkdir(t_path(m.mnt, "X/A"), 0755), EEXIST,
			  "mkdir X/A while SOURCE has X/a");
	}
	t_umount(&m);
}

/*
 * The coherence ledger notes which node each spelling was answered with;
 * when SOURCE changes an equivalent name, each note's name is resolved
 * again and compared (coherence.c current()).  An entry that is a mount
 * point inside SOURCE is a node of the mounted file system's mount: looked
 * for on its directory's mount it was never found, so its note always
 * "differed": a valid dentry invalidated and, under cache=epoch, every
 * cached entry of the view dropped by an epoch bump.  (Here the bump is
 * due anyway: "M" now names the new file.)
 */
static void run_mount_point_note(void)
{
	t_section("a mount point's note is not taken for changed");
	const char *src = t_newdir("src-mpnote");
	const char *mp = t_path(src, "m");
	struct t_mount m = {0};
	struct stat st;
	mkdir(mp, 0755);
	if (mount("tmpfs", mp, "tmpfs", 0, "size=1m") != 0) {
		t_skip("cannot mount a tmpfs: %s", strerror(errno));
		return;
	}
	close(open(t_path(mp, "inside"), O_CREAT | O_WRONLY, 0644));
	if (t_mount(&m, src, "casefold,cache=epoch,timeout=60,debug"))
		goto out;
	CHECK_OK(stat(t_path(m.mnt, "m/INSIDE"), &st), "stat m/INSIDE through the view");
	CHECK_OK(stat(t_path(m.mnt, "M"), &st), "stat M: the same directory");
	/* an equivalent name made in SOURCE: the note of "m" is settled */
	close(open(t_path(src, "M"), O_CREAT | O_WRONLY, 0644));
	long seen = 0;
	for (int i = 0; i < 100 && !seen; i++) {
		lstat(t_path(m.mnt, "zz-sync"), &st); /* reads pending events */
		seen = t_log_count(&m, "settle m: told");
		if (!seen)
			t_sleep_ms(50);
	}
	CHECK(seen > 0, "the daemon settled the note of m (debug log)");
	long differs = 0;
	FILE *f = fopen(m.log, "re");
	char line[512];
	while (f && fgets(line, sizeof line, f))
		differs += strstr(line, "settle m: told") && strstr(line, "DIFFERS");
	if (f)
		fclose(f);
	CHECK(differs == 0, "its binding is the same mount point's root: not changed (%ld "
	      "times taken for changed)", differs);
	CHECK_OK(stat(t_path(m.mnt, "m/inside"), &st), "m/inside still found");
	t_umount(&m);
out:
	umount2(mp, MNT_DETACH);
}

int main(int argc, char **argv)
{
	t_sections(sections);
	t_init(argc, argv, help, extra_opt);
	if (t_want("watch")) {
		char list[256];
		snprintf(list, sizeof list, "%s", watches);
		for (char *save, *w = strtok_r(list, ",", &save); w;
		     w = strtok_r(NULL, ",", &save))
			run_watch(w);
	}
	if (t_want("attr")) {
		run_attr();
		run_attr_chattr();
	}
	if (t_want("create_over_negative"))
		run_create_over_negative();
	if (t_want("removed_indexed"))
		run_removed_indexed();
	if (t_want("watch_cap"))
		run_watch_cap();
	if (t_want("evict_changes"))
		run_evict_changes();
	if (t_want("inval_reused"))
		run_inval_reused();
	if (t_want("poll_race"))
		run_poll_race();
	if (t_want("settle_race"))
		run_settle_race();
	if (t_want("cleanup_after_expiry"))
		run_cleanup_after_expiry();
	if (t_want("remote_source"))
		run_remote_source();
	if (t_want("poll_coarse"))
		run_poll_coarse();
	if (t_want("index_fd_cap"))
		run_index_fd_cap();
	if (t_want("busy_source"))
		run_busy_source();
	if (t_want("rename_spellings"))
		run_rename_spellings();
	if (t_want("unlink_unfenced"))
		run_unlink_unfenced();
	if (t_want("none_moved_in"))
		run_none_moved_in();
	if (t_want("overflow"))
		run_overflow();
	if (t_want("mount_point_note"))
		run_mount_point_note();
	if (t_want("unlink_recreated"))
		run_unlink_recreated();
	if (t_want("poll_cached"))
		run_poll_cached();
	return t_finish();
}
