/*
 * record-test.c - unit tests of common/record.c: the SOURCE/.foldfs record
 * (round trip, canonical encoding names, atomic replacement, every refusal
 * with its message) and the user.foldfs.casefold attribute through O_PATH
 * and O_RDONLY directory fds.
 *
 * Usage: record-test SCRATCH_DIR   (created and removed by the caller)
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "record.h"

static int passed, failed;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (cond) {                                                \
			passed++;                                          \
		} else {                                                   \
			failed++;                                          \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);        \
			printf(__VA_ARGS__);                               \
			putchar('\n');                                     \
		}                                                          \
	} while (0)

static int write_file(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static char *read_file(int dirfd, const char *name)
{
	static char buf[8192];
	int fd = openat(dirfd, name, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* A malformed record must be refused with -EINVAL and a message that
 * contains want. */
static void refused(int dirfd, const char *text, const char *want)
{
	struct foldfs_record rec;
	char err[256] = "";
	int r;

	write_file(dirfd, FOLDFS_RECORD_NAME, text);
	r = foldfs_record_read(dirfd, &rec, err, sizeof err);
	CHECK(r == -EINVAL && strstr(err, want),
	      "record %s: got %d '%s', want -EINVAL with '%s'", text, r, err,
	      want);
}

static void test_flags(void)
{
	unsigned f = 99;
	char buf[64];

	CHECK(foldfs_flags_parse("", &f) == 0 && f == 0, "empty flags");
	CHECK(foldfs_flags_parse("strict,compat,ignorables", &f) == 0 &&
		      f == (FOLD_STRICT | FOLD_COMPAT | FOLD_IGNORABLES),
	      "all flags");
	CHECK(foldfs_flags_parse(" ignorables , strict", &f) == 0 &&
		      f == (FOLD_STRICT | FOLD_IGNORABLES),
	      "spaces around flags");
	CHECK(foldfs_flags_parse("strict,bogus", &f) == -EINVAL,
	      "unknown flag refused");
	CHECK(foldfs_flags_parse("Strict", &f) == -EINVAL,
	      "flags are case-sensitive");
	foldfs_flags_format(FOLD_IGNORABLES | FOLD_STRICT, buf, sizeof buf);
	CHECK(!strcmp(buf, "strict,ignorables"), "format: %s", buf);
	foldfs_flags_format(0, buf, sizeof buf);
	CHECK(!strcmp(buf, ""), "format none: '%s'", buf);
	foldfs_flags_format(FOLD_STRICT | FOLD_COMPAT | FOLD_IGNORABLES, buf,
			    8);
	CHECK(strlen(buf) < 8, "format truncates safely: '%s'", buf);
}

static void test_record(const char *dir)
{
	struct foldfs_record rec, back;
	struct fold_ctx ctx;
	char err[256], *text;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	int pfd = open(dir, O_PATH | O_DIRECTORY);
	DIR *d;
	struct dirent *de;
	int others = 0;

	CHECK(dfd >= 0 && pfd >= 0, "open %s", dir);
	CHECK(foldfs_record_read(dfd, &rec, err, sizeof err) == -ENOENT,
	      "no record yet");

	/* Round trip through an O_PATH fd; "utf8-12.1" is stored in
	 * canonical form. */
	memset(&rec, 0, sizeof rec);
	rec.format = 1;
	strcpy(rec.encoding, "utf8-12.1");
	rec.flags = FOLD_STRICT | FOLD_IGNORABLES;
	/* create: only where there is none (two first mounts at once) */
	CHECK(foldfs_record_create(pfd, &rec) == 0, "create the first record");
	rec.flags = 0;
	CHECK(foldfs_record_create(pfd, &rec) == -EEXIST,
	      "a second create finds one: EEXIST");
	CHECK(foldfs_record_read(pfd, &back, err, sizeof err) == 0 &&
		      back.flags == (FOLD_STRICT | FOLD_IGNORABLES),
	      "and left the first in place");
	rec.flags = FOLD_STRICT | FOLD_IGNORABLES;
	CHECK(foldfs_record_write(pfd, &rec) == 0, "write via O_PATH fd");
	CHECK(foldfs_record_read(pfd, &back, err, sizeof err) == 0,
	      "read back: %s", err);
	CHECK(back.format == 1 && !strcmp(back.encoding, "utf8-12.1.0") &&
		      back.flags == (FOLD_STRICT | FOLD_IGNORABLES),
	      "round trip: %d %s %x", back.format, back.encoding, back.flags);
	CHECK(back.created[0] && back.creator[0] &&
		      strstr(back.creator, "foldfs"),
	      "created/creator filled in: '%s' '%s'", back.created,
	      back.creator);
	text = read_file(dfd, FOLDFS_RECORD_NAME);
	CHECK(text && !strncmp(text, "# foldfs encoding record", 24) &&
		      strstr(text, "\nformat=1\n") &&
		      strstr(text, "\nencoding=utf8-12.1.0\n") &&
		      strstr(text, "\nflags=strict,ignorables\n"),
	      "file text: %s", text ? text : "(none)");
	CHECK(foldfs_record_ctx(&back, &ctx) == 0 && ctx.form == FOLD_CASEFOLD &&
		      ctx.flags == (FOLD_STRICT | FOLD_IGNORABLES) &&
		      ctx.unicode == FOLD_UNICODE(12, 1, 0),
	      "record ctx");

	/* "utf8" means the newest version and is pinned when written. */
	strcpy(rec.encoding, "utf8");
	rec.flags = 0;
	strcpy(rec.created, "2026-01-01T00:00:00Z");
	strcpy(rec.creator, "record-test");
	CHECK(foldfs_record_write(dfd, &rec) == 0, "replace");
	CHECK(foldfs_record_read(dfd, &back, err, sizeof err) == 0 &&
		      !strncmp(back.encoding, "utf8-", 5) &&
		      strcmp(back.encoding, "utf8") &&
		      !strcmp(back.created, "2026-01-01T00:00:00Z") &&
		      !strcmp(back.creator, "record-test") && back.flags == 0,
	      "utf8 pinned: %s", back.encoding);
	/* No temporary file is left behind. */
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, FOLDFS_RECORD_NAME))
			others++;
	if (d)
		closedir(d);
	CHECK(others == 0, "%d stray files after writes", others);

	strcpy(rec.encoding, "ascii");
	CHECK(foldfs_record_write(dfd, &rec) == 0 &&
		      foldfs_record_read(dfd, &back, err, sizeof err) == 0 &&
		      !strcmp(back.encoding, "ascii"),
	      "ascii record");

	/* Writes that must be refused, leaving the old record intact. */
	strcpy(rec.encoding, "utf8-99.0");
	CHECK(foldfs_record_write(dfd, &rec) == -EINVAL, "unknown version");
	strcpy(rec.encoding, "latin1");
	CHECK(foldfs_record_write(dfd, &rec) == -EINVAL, "unknown encoding");
	strcpy(rec.encoding, "ascii");
	strcpy(rec.creator, "two\nlines");
	CHECK(foldfs_record_write(dfd, &rec) == -EINVAL, "newline in field");
	strcpy(rec.creator, "x");
	rec.flags = 0x80;
	CHECK(foldfs_record_write(dfd, &rec) == -EINVAL, "unknown flag bit");
	rec.flags = 0;
	rec.format = 2;
	CHECK(foldfs_record_write(dfd, &rec) == -EINVAL, "format 2 write");
	CHECK(foldfs_record_read(dfd, &back, err, sizeof err) == 0 &&
		      !strcmp(back.encoding, "ascii"),
	      "old record intact after refused writes");

	/* Parsing: tolerant of comments, blank lines, CRLF, spaces. */
	write_file(dfd, FOLDFS_RECORD_NAME,
		   "# c\r\n\r\nformat = 1\r\n encoding=utf8-15.0 \r\n"
		   "flags=compat\r\n");
	CHECK(foldfs_record_read(dfd, &back, err, sizeof err) == 0 &&
		      !strcmp(back.encoding, "utf8-15.0.0") &&
		      back.flags == FOLD_COMPAT && !back.created[0],
	      "lenient layout: %s", err);

	refused(dfd, "format=2\nencoding=utf8\n", "format 2");
	refused(dfd, "format=x\nencoding=utf8\n", "bad format");
	refused(dfd, "encoding=utf8\n", "no format");
	refused(dfd, "format=1\n", "no encoding");
	refused(dfd, "format=1\nencoding=utf8-99.0\n", "does not know");
	refused(dfd, "format=1\nencoding=ebcdic\n", "unknown encoding");
	refused(dfd, "format=1\nencoding=utf8\nflags=strict,fast\n",
		"line 3: unknown flag");
	refused(dfd, "format=1\nencoding=utf8\ncolour=blue\n",
		"line 3: unknown key 'colour'");
	refused(dfd, "format=1\nencoding=utf8\njunk\n",
		"line 3: expected key=value");
	refused(dfd, "format=1\nencoding=utf8", "line 2: missing final newline");
	refused(dfd,
		"format=1\nencoding=utf8\ncreator="
		"0123456789012345678901234567890123456789\n",
		"too long");

	/* Not a regular file. */
	unlinkat(dfd, FOLDFS_RECORD_NAME, 0);
	mkdirat(dfd, FOLDFS_RECORD_NAME, 0755);
	CHECK(foldfs_record_read(dfd, &back, err, sizeof err) == -EINVAL &&
		      strstr(err, "not a regular file"),
	      "directory as record: %s", err);
	unlinkat(dfd, FOLDFS_RECORD_NAME, AT_REMOVEDIR);
	/* A symlink is not followed. */
	symlinkat("/etc/passwd", dfd, FOLDFS_RECORD_NAME);
	CHECK(foldfs_record_read(dfd, &back, err, sizeof err) == -ELOOP,
	      "symlink record refused");
	unlinkat(dfd, FOLDFS_RECORD_NAME, 0);
	/* Oversized. */
	{
		char big[6000];

		memset(big, '#', sizeof big - 2);
		big[sizeof big - 2] = '\n';
		big[sizeof big - 1] = '\0';
		refused(dfd, big, "larger than");
	}
	unlinkat(dfd, FOLDFS_RECORD_NAME, 0);
	close(dfd);
	close(pfd);
}

/* An owner without write permission (as ext4's chattr +F, ownership
 * suffices): the mode is lifted for the change and put back -- but never
 * where the chmod would clear a set-group-ID bit for good (the owner is
 * not in the directory's group). */
static void test_xattr_owner(const char *dir)
{
	static const mode_t modes[2] = { 0555, 02555 };
	char sub[4096], v = 0;
	struct stat st;

	if (geteuid() != 0) {
		printf("note: not root; owner tests of the attribute skipped\n");
		CHECK(1, "skip");
		return;
	}
	for (int i = 0; i < 2; i++) {
		int status = -1;
		pid_t pid;

		snprintf(sub, sizeof sub, "%s/own%d", dir, i);
		mkdir(sub, 0755);
		removexattr(sub, FOLDFS_XATTR_CASEFOLD);
		CHECK(chown(sub, 4321, 4400) == 0 && chmod(sub, modes[i]) == 0,
		      "own%d: 4321:4400, mode %o", i, (unsigned)modes[i]);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int fd, r;

			if (setgroups(0, NULL) || setresgid(4321, 4321, 4321) ||
			    setresuid(4321, 4321, 4321))
				_exit(3);
			fd = open(sub, O_RDONLY | O_DIRECTORY);
			r = foldfs_dir_casefold_set(fd, 1);
			_exit(r == 0 ? 0 : r == -EACCES ? 1 : 2);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		CHECK(stat(sub, &st) == 0 && (st.st_mode & 07777) == modes[i],
		      "own%d: the mode is %o again (%o)", i, (unsigned)modes[i],
		      (unsigned)(st.st_mode & 07777));
		if (i == 0)
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
				      getxattr(sub, FOLDFS_XATTR_CASEFOLD, &v,
					       1) == 1 && v == '1',
			      "own0: the owner of a 0555 directory sets the "
			      "attribute (%d)", status);
		else
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1,
			      "own1: set-group-ID, group not the owner's: "
			      "refused with EACCES (%d)", status);
		rmdir(sub);
	}
}

static void test_xattr(const char *dir)
{
	char sub[4096];
	int dfd, pfd, r;
	char v[8];

	snprintf(sub, sizeof sub, "%s/cf", dir);
	mkdir(sub, 0755);
	dfd = open(sub, O_RDONLY | O_DIRECTORY);
	pfd = open(sub, O_PATH | O_DIRECTORY);
	r = foldfs_dir_casefold_get(dfd);
	if (r == -ENOTSUP || r == -EOPNOTSUPP) {
		printf("note: no user xattrs on %s; attribute tests skipped\n",
		       dir);
		CHECK(1, "skip");
		goto out;
	}
	CHECK(r == 0, "initially off: %d", r);
	CHECK(foldfs_dir_casefold_get(pfd) == 0, "off via O_PATH");
	CHECK(foldfs_dir_casefold_set(pfd, 1) == 0, "set via O_PATH");
	CHECK(foldfs_dir_casefold_get(dfd) == 1, "on via O_RDONLY");
	CHECK(getxattr(sub, FOLDFS_XATTR_CASEFOLD, v, sizeof v) == 1 &&
		      v[0] == '1',
	      "stored as \"1\"");
	CHECK(foldfs_dir_casefold_set(dfd, 0) == 0, "clear via O_RDONLY");
	CHECK(foldfs_dir_casefold_get(pfd) == 0, "off again");
	CHECK(foldfs_dir_casefold_set(pfd, 0) == 0, "clearing twice is fine");
	setxattr(sub, FOLDFS_XATTR_CASEFOLD, "0", 1, 0);
	CHECK(foldfs_dir_casefold_get(dfd) == 0, "value \"0\" means off");
	setxattr(sub, FOLDFS_XATTR_CASEFOLD, "1", 1, 0);
	CHECK(foldfs_dir_casefold_get(pfd) == 1, "external setxattr seen");
	test_xattr_owner(dir);
out:
	close(dfd);
	close(pfd);
	{
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		CHECK(foldfs_dir_casefold_get(-1) == -EBADF, "bad fd");
		close(fd);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: record-test SCRATCH_DIR\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	test_flags();
	test_record(argv[1]);
	test_xattr(argv[1]);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
