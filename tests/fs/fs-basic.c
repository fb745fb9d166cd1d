/*
 * fs-basic.c - folding semantics of a mounted foldfs view, checked through
 * real system calls and the usual tools (touch, mv, chattr, lsattr,
 * readlink, mount): equivalent spellings, exact readdir bytes, ill-formed
 * names (strict and not), EEXIST rules, renames, the casefold attribute and
 * its inheritance, nesting, symlinks, hard links, open fds across
 * re-creation, name preservation, xattrs, a 5,000-entry directory,
 * collisions already present in SOURCE, inode numbers of a file system
 * mounted inside SOURCE, file handles of removed files, the encoding
 * record, the hidden .foldfs, respelling (FOLDFS_IOC_RESPELL, foldfs
 * --respell), and two mounts of one SOURCE creating equivalent names at
 * once.  In the spirit of xfstests generic/556; written anew.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "../../fs/foldfs_ioctl.h"

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

static const char help[] =
	"NAME\n"
	"    fs-basic - integration test of foldfs folding semantics\n"
	"\n"
	"SYNOPSIS\n"
	"    fs-basic [--foldfs PATH] [--root DIR] [--watchdog SECS] [--only NAME] [-q|-v]\n"
	"\n"
	"DESCRIPTION\n"
	"    Mounts fresh SOURCE trees with the foldfs daemon (-f, in the\n"
	"    background), checks lookups by equivalent spellings, exact readdir\n"
	"    bytes, ill-formed names, EEXIST rules, renames, chattr +F/-F,\n"
	"    nesting, symlinks, hard links, open fds, name preservation, xattrs,\n"
	"    a 5,000-entry directory, SOURCE collisions, unique inode numbers\n"
	"    with a tmpfs mounted inside SOURCE, file handles of removed files\n"
	"    (ESTALE, never another file), the encoding record and\n"
	"    the hidden .foldfs, respelling (FOLDFS_IOC_RESPELL, foldfs\n"
	"    --respell), the index memory budget (-o index_mem, indexes\n"
	"    evicted and rebuilt, one larger than the budget kept besides\n"
	"    it), the bound of the coherence ledger\n"
	"    (cache=epoch), RENAME_WHITEOUT in a folding directory and a file\n"
	"    renamed into one from a plain directory (every cache mode), and\n"
	"    the --only option of fs-basic, fs-source and fs-posix, and two\n"
	"    mounts of one SOURCE creating equivalent names in lockstep (one\n"
	"    wins, the other gets EEXIST) while users' locks in the view do\n"
	"    not stall them;\n"
	"    unmounts everything at exit.  Must run as root with /dev/fuse and\n"
	"    fuse3 (fusermount3) installed.\n"
	"\n"
	"OPTIONS\n"
	"    --foldfs PATH   daemon binary (default $FOLDFS, else build/foldfs)\n"
	"    --root DIR      scratch directory (default: a new /tmp/fstest-XXXXXX)\n"
	"    --watchdog S    abort (and clean up) after S seconds (default 300)\n"
	"    --only NAME     run only section NAME (a comma-separated list, or\n"
	"                    repeat the option); the names are under SECTIONS\n"
	"    -q / -v         print only failures / every check (default)\n"
	"\n"
	"EXIT STATUS\n"
	"    0 if every check passed, 1 otherwise.  The last line is\n"
	"    \"N passed, N failed\".\n";

/* for --only: each sec_NAME() below */
static const char *const sections[] = {
	"lookup", "illformed", "eexist", "ocreat", "rename", "chattr", "nesting", "symlink",
	"hardlink", "openfd", "preserve", "xattr", "bigdir", "collide", "submount", "record",
	"hidden", "handles", "strict", "compat", "ascii", "ignorables", "daemon", "options",
	"cli", "respell", "budget", "ledger", "whiteout", "movein", "only", "twomounts", NULL};

/* ---- helpers ---------------------------------------------------------- */

static int mkfile(const char *path, const char *content)
{
	return t_write_file(path, content);
}

/* lsattr -d PATH: does the flag field contain F? -1 if lsattr failed. */
static int lsattr_F(const char *path)
{
	char out[4096];
	const char *argv[] = {"lsattr", "-d", path, NULL};
	int rc = t_run(argv, out, sizeof out, 10);
	if (rc != 0) {
		t_note("lsattr -d %s: exit %d: %s", path, rc, out);
		return -1;
	}
	char *sp = strchr(out, ' ');
	if (sp)
		*sp = 0;
	return strchr(out, 'F') != NULL;
}

static int src_casefold_xattr(const char *srcpath)
{
	char v[16];
	ssize_t n = lgetxattr(srcpath, "user.foldfs.casefold", v, sizeof v);
	return n == 1 && v[0] == '1';
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (lstat(a, &sa) == -1 || lstat(b, &sb) == -1)
		return 0;
	return sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

static int sys_renameat2(const char *a, const char *b, unsigned flags)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, flags);
}

static int run_tool(char *out, size_t cap, const char *a0, const char *a1,
		    const char *a2, const char *a3, const char *a4)
{
	const char *argv[] = {a0, a1, a2, a3, a4, NULL};
	return t_run(argv, out, cap, 30);
}

/* ---- 1. lookups by equivalent spellings -------------------------------- */

struct spelling_case {
	const char *stored;
	const char *eq[6];
	const char *neq[6];
	const char *why;
};

static const struct spelling_case cases[] = {
	{"file.txt", {"FILE.TXT", "File.Txt", "fILE.tXT"}, {"file.txt.", "file_txt"}, "ASCII case"},
	{"fit", {"\xef\xac\x81t", "FIT"}, {"fi", "f\xc4\xb1t"},
	 "ﬁ (U+FB01) folds to fi by full case folding, dotless ı does not"},
	{"\xc4\xb3sselmeer", {"\xc4\xb2SSELMEER", "\xc4\xb2sselmeer"}, {"ijsselmeer", "IJSSELMEER"},
	 "ĳ (U+0133) is a compatibility ligature: no match for ij without -o compat"},
	{"caf\xc3\xa9", {"cafe\xcc\x81", "CAF\xc3\x89", "CAFE\xcc\x81", "Cafe\xcc\x81"},
	 {"cafe", "caf\xc3\xa8"}, "NFC stored, NFD and upper-case looked up"},
	{"french_cafe\xcc\x81", {"french_caf\xc3\xa9", "FRENCH_CAF\xc3\x89"},
	 {"french_cafe"}, "NFD stored, NFC looked up"},
	{"cora\xc3\xa7\xc3\xa3o", {"CORAC\xcc\xa7" "A\xcc\x83O", "Corac\xcc\xa7\xc3\xa3o"},
	 {"coracao"}, "coração, decomposed and upper-cased"},
	{"stra\xc3\x9f" "e", {"STRASSE", "strasse", "Strasse", "STRA\xe1\xba\x9e" "E"},
	 {"strase", "STRASE"}, "full case folding: ß and ẞ are ss"},
	{"\xce\xa3\xce\xaf\xcf\x83\xcf\x85\xcf\x86\xce\xbf\xcf\x82",
	 {"\xce\xa3\xce\x8a\xce\xa3\xce\xa5\xce\xa6\xce\x9f\xce\xa3",
	  "\xcf\x83\xce\xaf\xcf\x83\xcf\x85\xcf\x86\xce\xbf\xcf\x83"},
	 {"\xce\xa3\xce\xb9\xcf\x83\xcf\x85\xcf\x86\xce\xbf\xcf\x82"},
	 "Greek final sigma and tonos"},
	{"\xc4\xb0stanbul", {"i\xcc\x87stanbul", "I\xcc\x87STANBUL"},
	 {"istanbul", "ISTANBUL"}, "İ folds to i + combining dot, not to i"},
	{"\xe2\x84\xaa" "elvin", {"kelvin", "KELVIN"}, {"kelvim"}, "Kelvin sign"},
	{"\xe2\x84\xab" "ngstrom", {"\xc3\xa5ngstrom", "a\xcc\x8angstrom", "\xc3\x85NGSTROM"},
	 {"angstrom"}, "Angstrom sign is canonically Å"},
	{"arabic_\xdb\x92\xd9\x94", {"ARABIC_\xdb\x93"}, {"arabic_\xdb\x92"},
	 "Arabic U+06D2 U+0654 = U+06D3"},
	{"\xe3\x82\xb2", {"\xe3\x82\xb1\xe3\x82\x99"}, {"\xe3\x82\xb1"},
	 "Japanese ゲ = ケ + U+3099"},
	{"\xed\x95\x9c", {"\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab"}, {"\xe1\x84\x92\xe1\x85\xa1"},
	 "Hangul syllable = conjoining jamo"},
	{"\xf0\x9f\x98\x80.txt", {"\xf0\x9f\x98\x80.TXT"}, {"\xf0\x9f\x98\x81.txt"}, "emoji"},
	{"\xef\xbc\xa1" "bc", {"\xef\xbd\x81" "bc", "\xef\xbd\x81" "BC"}, {"abc", "ABC"},
	 "fullwidth folds to fullwidth, not to ASCII (no compat)"},
	{"zw\xe2\x80\x8bsp", {"ZW\xe2\x80\x8bSP"}, {"zwsp"},
	 "ZERO WIDTH SPACE is not ignored without -o ignorables"},
	{"\xea\x9f\x87x", {"\xea\x9f\x87X"}, {"\xea\x9f\x88x"},
	 "U+A7C7 (Unicode 13) does not fold under utf8-12.1"},
};

static void sec_lookup(struct t_mount *m)
{
	t_section("lookup: equivalent spellings resolve, others do not (-o casefold)");
	const char *dir = t_path(m->mnt, "lookup");
	CHECK_OK(mkdir(dir, 0755), "mkdir lookup");
	size_t nc = sizeof cases / sizeof cases[0];
	for (size_t i = 0; i < nc; i++) {
		const struct spelling_case *c = &cases[i];
		char content[64];
		snprintf(content, sizeof content, "case %zu\n", i);
		const char *sp = t_path(dir, c->stored);
		int rc = mkfile(sp, content);
		if (!CHECK(rc == 0, "create %s (%s)%s%s", t_q(c->stored), c->why, rc ? ": " : "",
			   rc ? strerror(errno) : ""))
			continue;
		ino_t ino = t_ino(sp);
		for (int j = 0; j < 6 && c->eq[j]; j++) {
			const char *p = t_path(dir, c->eq[j]);
			CHECK(t_ino(p) == ino && t_file_is(p, content),
			      "%s finds %s [%s]", t_q(c->eq[j]), t_q(c->stored), c->why);
		}
		for (int j = 0; j < 6 && c->neq[j]; j++) {
			struct stat st;
			CHECK_ERR(stat(t_path(dir, c->neq[j]), &st), ENOENT,
				  "stat %s must not find %s [%s]", t_q(c->neq[j]),
				  t_q(c->stored), c->why);
		}
	}
	/* readdir: exactly the stored bytes, nothing else. */
	int exact = 1;
	for (size_t i = 0; i < nc; i++)
		if (t_dir_has(dir, cases[i].stored) != 1) {
			exact = 0;
			t_note("readdir lacks %s", t_q(cases[i].stored));
		}
	CHECK(exact, "readdir lists every stored spelling exactly once");
	CHECK(t_dir_count(dir) == (long)nc, "readdir lists %zu entries (got %ld)", nc,
	      t_dir_count(dir));
	int leaked = 0;
	for (size_t i = 0; i < nc; i++)
		for (int j = 0; j < 6 && cases[i].eq[j]; j++)
			if (t_dir_has(dir, cases[i].eq[j]))
				leaked++;
	CHECK(!leaked, "readdir shows no looked-up spelling (%d leaked)", leaked);
	/* Whole paths of other spellings, component by component. */
	CHECK_OK(mkdir(t_path(dir, "Sub\xc3\x89"), 0755), "mkdir SubÉ");
	CHECK_OK(mkfile(t_path(dir, "Sub\xc3\x89/Inner"), "in"), "create SubÉ/Inner");
	CHECK(t_file_is(t_path(m->mnt, "LOOKUP/sube\xcc\x81/INNER"), "in"),
	      "LOOKUP/subé(NFD)/INNER resolves component by component");
}

/* ---- 2. ill-formed names, non-strict ---------------------------------- */

static void sec_illformed(struct t_mount *m)
{
	t_section("ill-formed names without strict: created, matched byte for byte only");
	const char *dir = t_path(m->mnt, "blob");
	CHECK_OK(mkdir(dir, 0755), "mkdir blob");
	const char *a = "corac\xcc\xa7\xc3"; /* decomposed, trailing lone 0xc3 */
	const char *b = "cora\xc3\xa7\xc3";  /* composed, same trailing byte */
	CHECK_OK(mkfile(t_path(dir, a), "A"), "create %s", t_q(a));
	struct stat st;
	CHECK_ERR(stat(t_path(dir, b), &st), ENOENT,
		  "%s must not match %s (valid prefixes equal, blob is opaque)", t_q(b), t_q(a));
	CHECK_ERR(stat(t_path(dir, "CORAC\xcc\xa7\xc3"), &st), ENOENT,
		  "upper-cased ill-formed name must not match");
	CHECK_OK(mkfile(t_path(dir, b), "B"), "create %s beside it (distinct)", t_q(b));
	CHECK(t_file_is(t_path(dir, a), "A") && t_file_is(t_path(dir, b), "B") &&
		      t_ino(t_path(dir, a)) != t_ino(t_path(dir, b)),
	      "both ill-formed names are separate files, each found by its exact bytes");
	CHECK(t_dir_has(dir, a) == 1 && t_dir_has(dir, b) == 1 && t_dir_count(dir) == 2,
	      "readdir lists both exact byte strings");
	const char *c = "\xff\xfe" "Name"; /* never valid */
	CHECK_OK(mkfile(t_path(dir, c), "C"), "create %s", t_q(c));
	CHECK_ERR(stat(t_path(dir, "\xff\xfe" "NAME"), &st), ENOENT,
		  "ill-formed name has no case-insensitive twin");
	CHECK_OK(mkdir(t_path(dir, "d\xc0\xaf"), 0755), "mkdir with overlong byte pair");
	CHECK(t_dir_has(dir, "d\xc0\xaf"), "readdir shows it byte for byte");
	CHECK_OK(unlink(t_path(dir, a)), "unlink %s by its exact bytes", t_q(a));
	CHECK(t_file_is(t_path(dir, b), "B"), "the other blob is untouched");
}

/* ---- 3. EEXIST on an equivalent name ----------------------------------- */

static void sec_eexist(struct t_mount *m)
{
	t_section("EEXIST: creating an equivalent name of an existing entry");
	const char *dir = t_path(m->mnt, "eexist");
	CHECK_OK(mkdir(dir, 0755), "mkdir eexist");
	CHECK_OK(mkfile(t_path(dir, "Exist"), "x"), "create Exist");
	CHECK_OK(mkdir(t_path(dir, "ExDir"), 0755), "mkdir ExDir");
	CHECK_OK(mkfile(t_path(dir, "other"), "o"), "create other");
	CHECK_OK(mkfile(t_path(dir, "Gr\xc3\xbc\xc3\x9f" "e"), "g"), "create Grüße");
	CHECK_ERR(open(t_path(dir, "EXIST"), O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST,
		  "open(EXIST, O_CREAT|O_EXCL)");
	CHECK_ERR(open(t_path(dir, "exdir"), O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST,
		  "open(exdir, O_CREAT|O_EXCL) over a directory");
	CHECK_ERR(mkdir(t_path(dir, "exist"), 0755), EEXIST, "mkdir exist");
	CHECK_ERR(mkdir(t_path(dir, "EXDIR"), 0755), EEXIST, "mkdir EXDIR");
	CHECK_ERR(symlink("target", t_path(dir, "eXiSt")), EEXIST, "symlink -> eXiSt");
	CHECK_ERR(link(t_path(dir, "other"), t_path(dir, "EXIST")), EEXIST,
		  "link other -> EXIST");
	CHECK_ERR(mknod(t_path(dir, "exisT"), S_IFIFO | 0644, 0), EEXIST, "mknod fifo exisT");
	CHECK_ERR(mkdir(t_path(dir, "GRU\xcc\x88SSE"), 0755), EEXIST,
		  "mkdir GRÜSSE (NFD, ß=SS) over Grüße");
	CHECK(t_dir_count(dir) == 4, "directory still has exactly 4 entries (%ld)",
	      t_dir_count(dir));
	CHECK(t_dir_has(dir, "Exist") && t_dir_has(dir, "ExDir"),
	      "stored spellings unchanged");
}

/* ---- 4. open(O_CREAT) without O_EXCL opens the existing entry ---------- */

static void sec_ocreat(struct t_mount *m)
{
	t_section("open(O_CREAT) without O_EXCL and touch reuse the existing file");
	const char *dir = t_path(m->mnt, "ocreat");
	CHECK_OK(mkdir(dir, 0755), "mkdir ocreat");
	CHECK_OK(mkfile(t_path(dir, "same1"), "orig"), "create same1");
	ino_t ino = t_ino(t_path(dir, "same1"));
	int fd = open(t_path(dir, "SAME1"), O_CREAT | O_WRONLY | O_APPEND, 0644);
	if (CHECK(fd >= 0, "open(SAME1, O_CREAT|O_APPEND): %s", fd < 0 ? strerror(errno) : "ok")) {
		struct stat st;
		fstat(fd, &st);
		CHECK(st.st_ino == ino, "it opened the existing same1");
		CHECK(write(fd, "+x", 2) == 2, "append through it");
		close(fd);
	}
	CHECK(t_file_is(t_path(dir, "same1"), "orig+x"), "same1 now reads orig+x");
	char out[2048];
	int rc = run_tool(out, sizeof out, "touch", "-c", t_path(dir, "sAME1"), NULL, NULL);
	CHECK(rc == 0, "touch -c sAME1 exits 0 (%d) %s", rc, out);
	rc = run_tool(out, sizeof out, "touch", t_path(dir, "SaMe1"), NULL, NULL, NULL);
	CHECK(rc == 0, "touch SaMe1 exits 0 (%d) %s", rc, out);
	CHECK(t_dir_count(dir) == 1 && t_dir_has(dir, "same1"),
	      "still one entry, spelled same1 (count %ld)", t_dir_count(dir));
	fd = open(t_path(dir, "Same1"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(fd >= 0, "open(Same1, O_CREAT|O_TRUNC)");
	if (fd >= 0)
		close(fd);
	struct stat st;
	CHECK(stat(t_path(dir, "same1"), &st) == 0 && st.st_size == 0 && st.st_ino == ino,
	      "O_TRUNC truncated the existing file");
	CHECK(t_dir_count(dir) == 1, "still one entry");
}

/* ---- 5. renames ------------------------------------------------------- */

static void sec_rename(struct t_mount *m)
{
	t_section("rename onto an equivalent name, case-only renames");
	const char *dir = t_path(m->mnt, "ren");
	CHECK_OK(mkdir(dir, 0755), "mkdir ren");
	CHECK_OK(mkfile(t_path(dir, "ren_a"), "A"), "create ren_a");
	CHECK_OK(mkfile(t_path(dir, "ren_b"), "B"), "create ren_b");
	CHECK_OK(rename(t_path(dir, "ren_b"), t_path(dir, "REN_A")),
		 "rename ren_b -> REN_A (replaces ren_a)");
	CHECK(t_dir_count(dir) == 1 && t_dir_has(dir, "REN_A"),
	      "one entry left, stored as REN_A (has REN_A=%d ren_a=%d ren_b=%d)",
	      t_dir_has(dir, "REN_A"), t_dir_has(dir, "ren_a"), t_dir_has(dir, "ren_b"));
	CHECK(t_file_is(t_path(dir, "ren_a"), "B"), "ren_a now reads ren_b's data");
	struct stat st;
	CHECK_ERR(stat(t_path(dir, "ren_b"), &st), ENOENT, "ren_b is gone");

	CHECK_OK(mkdir(t_path(dir, "rd_a"), 0755), "mkdir rd_a");
	CHECK_OK(mkdir(t_path(dir, "rd_b"), 0755), "mkdir rd_b");
	CHECK_OK(mkfile(t_path(dir, "rd_b/inside"), "i"), "create rd_b/inside");
	CHECK_OK(rename(t_path(dir, "rd_b"), t_path(dir, "RD_A")),
		 "rename dir rd_b -> RD_A (replaces empty rd_a)");
	CHECK(t_dir_has(dir, "RD_A") && !t_dir_has(dir, "rd_a") && !t_dir_has(dir, "rd_b"),
	      "stored as RD_A");
	CHECK(t_file_is(t_path(dir, "rd_a/INSIDE"), "i"), "rd_a/INSIDE reads the moved file");

	CHECK_OK(mkdir(t_path(dir, "x1"), 0755), "mkdir x1");
	CHECK_OK(mkdir(t_path(dir, "x2"), 0755), "mkdir x2");
	CHECK_OK(mkfile(t_path(dir, "x1/f"), "from x1"), "create x1/f");
	CHECK_OK(mkfile(t_path(dir, "x2/f"), "old x2"), "create x2/f");
	CHECK_OK(rename(t_path(dir, "X1/F"), t_path(dir, "x2/F")),
		 "rename X1/F -> x2/F across directories (replaces x2/f)");
	CHECK(t_dir_count(t_path(dir, "x2")) == 1 && t_dir_has(t_path(dir, "x2"), "F"),
	      "x2 holds one entry spelled F");
	CHECK(t_file_is(t_path(dir, "x2/f"), "from x1"), "x2/f reads the moved data");

	/* Case-only rename of one entry onto itself.  POSIX: renaming a link
	 * onto another link of the same file succeeds and does nothing; the
	 * kernel may stop it before the daemon (see fs-notes.md). */
	CHECK_OK(mkfile(t_path(dir, "rename"), "keep"), "create rename");
	int rc = rename(t_path(dir, "rename"), t_path(dir, "RENAME"));
	int e = errno;
	CHECK(rc == 0, "rename(rename, RENAME) succeeds (%s)", rc ? strerror(e) : "ok");
	CHECK(t_dir_count(dir) == 5, "no entry lost or added by case-only rename (%ld entries, want 5)",
	      t_dir_count(dir));
	CHECK(t_file_is(t_path(dir, "RENAME"), "keep") && t_file_is(t_path(dir, "rename"), "keep"),
	      "content intact under both spellings");
	/* fs-notes.md: the VFS sees one inode on both sides and returns 0
	 * without asking the daemon, so the spelling stays (as on ext4 +F). */
	CHECK(t_dir_has(dir, "rename") && !t_dir_has(dir, "RENAME"),
	      "case-only rename(2) keeps the stored spelling rename (documented)");
	CHECK_ERR(sys_renameat2(t_path(dir, "rename"), t_path(dir, "RENAME"), RENAME_NOREPLACE),
		  EEXIST, "renameat2(rename, RENAME, NOREPLACE) -> EEXIST (documented)");

	CHECK_OK(mkfile(t_path(dir, "Foo"), "foo data"), "create Foo");
	char out[2048];
	rc = run_tool(out, sizeof out, "mv", t_path(dir, "Foo"), t_path(dir, "FOO"), NULL, NULL);
	t_note("mv Foo FOO: exit %d %s", rc, out);
	CHECK(t_dir_has(dir, "Foo") + t_dir_has(dir, "FOO") == 1,
	      "after mv Foo FOO exactly one spelling is stored");
	CHECK(t_file_is(t_path(dir, "foo"), "foo data"), "mv Foo FOO lost nothing");

	/* The portable way to change only the case: via a temporary name. */
	const char *now = t_dir_has(dir, "RENAME") ? "RENAME" : "rename";
	CHECK_OK(rename(t_path(dir, now), t_path(dir, "rename.tmp")), "rename %s -> rename.tmp", now);
	CHECK_OK(rename(t_path(dir, "rename.tmp"), t_path(dir, "ReName")), "rename rename.tmp -> ReName");
	CHECK(t_dir_has(dir, "ReName") && !t_dir_has(dir, "rename") && !t_dir_has(dir, "RENAME"),
	      "stored spelling is now ReName");
	CHECK(t_file_is(t_path(dir, "rename"), "keep"), "rename (other case) still reads it");

	/* Case-only rename of a directory with a file inside. */
	CHECK_OK(mkdir(t_path(dir, "cdir"), 0755), "mkdir cdir");
	CHECK_OK(mkfile(t_path(dir, "cdir/in"), "in"), "create cdir/in");
	rc = rename(t_path(dir, "cdir"), t_path(dir, "CDIR"));
	e = errno;
	CHECK(rc == 0, "rename(cdir, CDIR) succeeds (%s)", rc ? strerror(e) : "ok");
	CHECK(t_dir_has(dir, "cdir") + t_dir_has(dir, "CDIR") == 1 &&
		      t_file_is(t_path(dir, "Cdir/IN"), "in"),
	      "directory still there once, with its content");
	CHECK(t_dir_has(dir, "cdir") && !t_dir_has(dir, "CDIR"),
	      "case-only rename of a directory keeps the stored spelling cdir");
}

/* ---- 6. chattr +F / -F ------------------------------------------------ */

static void sec_chattr(struct t_mount *m)
{
	t_section("chattr +F/-F rules, inheritance, lsattr, remount (no -o casefold)");
	const char *cf = t_path(m->mnt, "cf");
	CHECK_OK(mkdir(cf, 0755), "mkdir cf");
	CHECK(t_has_casefold(cf) == 0, "new dir under a plain root has no F");
	CHECK_OK(t_set_casefold(cf, 1), "FS_IOC_SETFLAGS +F on empty cf");
	CHECK(t_has_casefold(cf) == 1, "FS_IOC_GETFLAGS shows F");
	CHECK(lsattr_F(cf) == 1, "lsattr -d cf shows F");
	CHECK(src_casefold_xattr(t_path(m->src, "cf")),
	      "SOURCE/cf carries user.foldfs.casefold=1");
	CHECK_OK(mkfile(t_path(cf, "Hello"), "h"), "create cf/Hello");
	CHECK(t_file_is(t_path(cf, "HELLO"), "h"), "cf/HELLO finds it (cf folds)");
	struct stat st;
	CHECK_ERR(stat(t_path(m->mnt, "CF"), &st), ENOENT, "CF at the plain root: no match");
	CHECK_OK(mkfile(t_path(m->mnt, "Plain"), "p"), "create Plain at the root");
	CHECK_ERR(stat(t_path(m->mnt, "PLAIN"), &st), ENOENT, "PLAIN: root does not fold");
	CHECK_OK(mkfile(t_path(m->mnt, "PLAIN"), "P"), "create PLAIN beside Plain in the plain root");

	CHECK_ERR(t_set_casefold(cf, 0), ENOTEMPTY, "-F on non-empty cf");
	CHECK(t_has_casefold(cf) == 1, "cf keeps F");
	const char *nf = t_path(m->mnt, "nf");
	CHECK_OK(mkdir(nf, 0755), "mkdir nf");
	CHECK_OK(mkfile(t_path(nf, "x"), "x"), "create nf/x");
	CHECK_ERR(t_set_casefold(nf, 1), ENOTEMPTY, "+F on non-empty nf");
	CHECK(t_has_casefold(nf) == 0, "nf stays without F");
	/* ext4 refuses a directory-only flag on a file first: EOPNOTSUPP,
	 * also on an immutable one (not the EPERM of an immutable inode) */
	CHECK_ERR(t_set_casefold(t_path(nf, "x"), 1), EOPNOTSUPP, "+F on a regular file");
	CHECK(t_has_casefold(t_path(nf, "x")) == 0, "the file has no F");
	int xfl = 0;
	if (t_get_flags(t_path(m->src, "nf/x"), &xfl) == 0 &&
	    t_set_flags(t_path(m->src, "nf/x"), xfl | FS_IMMUTABLE_FL) == 0) {
		CHECK_ERR(t_set_casefold(t_path(nf, "x"), 1), EOPNOTSUPP,
			  "+F on an immutable regular file");
		t_set_flags(t_path(m->src, "nf/x"), xfl);
	} else {
		t_skip("SOURCE takes no immutable flag here (%s)", strerror(errno));
	}
	/* A refused casefold change changes no other flag either (ext4
	 * checks it first): chattr +F +A */
	int sfl = 0;
	CHECK_ERR(t_set_casefold_with(nf, 1, FS_NOATIME_FL), ENOTEMPTY, "+F +A on non-empty nf");
	CHECK(t_get_flags(t_path(m->src, "nf"), &sfl) == 0 && !(sfl & FS_NOATIME_FL),
	      "nf did not get A either (SOURCE flags %#x)", (unsigned)sfl);
	CHECK_ERR(t_set_casefold_with(t_path(nf, "x"), 1, FS_NOATIME_FL), EOPNOTSUPP,
		  "+F +A on a regular file");
	CHECK(t_get_flags(t_path(m->src, "nf/x"), &sfl) == 0 && !(sfl & FS_NOATIME_FL),
	      "nf/x did not get A either (SOURCE flags %#x)", (unsigned)sfl);

	/* Immutable or append-only with F in one call, as on ext4 (chattr
	 * +iF, -F +a, +F on an append-only directory), although SOURCE
	 * refuses the attribute change on such a directory; and never half
	 * done. */
	const char *im = t_path(m->mnt, "im"), *sim = t_path(m->src, "im");
	int ifl = 0, ifc;
	CHECK_OK(mkdir(im, 0755), "mkdir im");
	if (t_get_flags(sim, &ifl) == 0 && t_set_flags(sim, ifl | FS_IMMUTABLE_FL) == 0 &&
	    t_set_flags(sim, ifl) == 0) {
		CHECK_OK(t_set_casefold_with(im, 1, FS_IMMUTABLE_FL), "+iF on empty im");
		if (t_get_flags(sim, &sfl) != 0)
			sfl = 0;
		ifc = t_has_casefold(im);
		CHECK((sfl & FS_IMMUTABLE_FL) && ifc == 1, "im has i (SOURCE flags %#x) and F (%d)",
		      (unsigned)sfl, ifc);
		CHECK_ERR(t_set_casefold(im, 0), EPERM, "-F on im, staying immutable");
		CHECK(t_has_casefold(im) == 1, "im keeps F");
		CHECK_OK(t_set_flags(im, ifl | FS_CASEFOLD_FL), "-i on im");
		CHECK_OK(t_set_casefold_with(im, 0, FS_APPEND_FL), "-F +a on im");
		if (t_get_flags(sim, &sfl) != 0)
			sfl = 0;
		ifc = t_has_casefold(im);
		CHECK((sfl & FS_APPEND_FL) && ifc == 0, "im has a (SOURCE flags %#x) and no F (%d)",
		      (unsigned)sfl, ifc);
		CHECK_OK(t_set_casefold(im, 1), "+F on append-only im");
		if (t_get_flags(sim, &sfl) != 0)
			sfl = 0;
		ifc = t_has_casefold(im);
		CHECK((sfl & FS_APPEND_FL) && ifc == 1, "im keeps a (SOURCE flags %#x) and has F (%d)",
		      (unsigned)sfl, ifc);
		t_set_flags(sim, ifl); /* whatever happened above */
	} else {
		t_skip("SOURCE takes no immutable flag here (%s)", strerror(errno));
	}
	CHECK_OK(rmdir(im), "rmdir im");

	const char *cf2 = t_path(m->mnt, "cf2");
	CHECK_OK(mkdir(cf2, 0755), "mkdir cf2");
	char out[2048];
	int rc = run_tool(out, sizeof out, "chattr", "+F", cf2, NULL, NULL);
	CHECK(rc == 0 && t_has_casefold(cf2) == 1, "chattr +F cf2 (exit %d) %s", rc, out);
	rc = run_tool(out, sizeof out, "chattr", "-F", cf2, NULL, NULL);
	CHECK(rc == 0 && t_has_casefold(cf2) == 0, "chattr -F cf2 on empty dir (exit %d) %s", rc, out);
	CHECK(!src_casefold_xattr(t_path(m->src, "cf2")), "SOURCE/cf2 attribute cleared");
	CHECK_OK(mkfile(t_path(cf2, "Abc"), "a"), "create cf2/Abc");
	CHECK_ERR(stat(t_path(cf2, "ABC"), &st), ENOENT, "cf2 no longer folds: ABC not found");
	rc = run_tool(out, sizeof out, "chattr", "+F", cf2, NULL, NULL);
	CHECK(rc != 0 && t_has_casefold(cf2) == 0, "chattr +F on non-empty cf2 fails (exit %d)",
	      rc);

	/* Inheritance through mkdir -p. */
	struct stat vst, sst;
	rc = run_tool(out, sizeof out, "mkdir", "-p", t_path(cf, "a/b/c"), NULL, NULL);
	CHECK(rc == 0, "mkdir -p cf/a/b/c (exit %d) %s", rc, out);
	CHECK(t_has_casefold(t_path(cf, "a")) == 1 && t_has_casefold(t_path(cf, "a/b")) == 1 &&
		      t_has_casefold(t_path(cf, "a/b/c")) == 1,
	      "a, a/b, a/b/c all inherited F");
	CHECK(lsattr_F(t_path(cf, "a/b/c")) == 1, "lsattr -d cf/a/b/c shows F");
	CHECK(src_casefold_xattr(t_path(m->src, "cf/a/b/c")), "SOURCE/cf/a/b/c has the attribute");
	/* Marking the new directory changed its ctime; the kernel caches
	 * the directory's attributes from the mkdir reply on. */
	CHECK_OK(mkdir(t_path(cf, "Inh"), 0755), "mkdir cf/Inh");
	memset(&vst, 0, sizeof vst);
	memset(&sst, 0, sizeof sst);
	stat(t_path(cf, "Inh"), &vst);
	stat(t_path(m->src, "cf/Inh"), &sst);
	CHECK(vst.st_ctim.tv_sec == sst.st_ctim.tv_sec &&
		      vst.st_ctim.tv_nsec == sst.st_ctim.tv_nsec,
	      "ctime of cf/Inh after mkdir: view %lld.%09ld, SOURCE %lld.%09ld",
	      (long long)vst.st_ctim.tv_sec, vst.st_ctim.tv_nsec,
	      (long long)sst.st_ctim.tv_sec, sst.st_ctim.tv_nsec);
	CHECK_OK(rmdir(t_path(cf, "Inh")), "rmdir cf/Inh");
	CHECK_OK(mkfile(t_path(cf, "A/B/C/Deep"), "deep"), "create via other-case path A/B/C/Deep");
	CHECK(t_dir_has(t_path(cf, "a/b/c"), "Deep"), "stored as Deep inside a/b/c");
	CHECK(t_file_is(t_path(m->mnt, "cf/a/B/c/dEEP"), "deep"), "cf/a/B/c/dEEP resolves");

	/* Other flags go to SOURCE's own ioctl (noatime: 'A'). */
	const char *fa = t_path(cf, "Hello");
	int fd = open(fa, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		int fl = 0;
		int r = ioctl(fd, FS_IOC_GETFLAGS, &fl);
		if (CHECK(r == 0, "FS_IOC_GETFLAGS on a file: %s", r ? strerror(errno) : "ok")) {
			fl |= FS_NOATIME_FL;
			r = ioctl(fd, FS_IOC_SETFLAGS, &fl);
			CHECK(r == 0, "FS_IOC_SETFLAGS +A (noatime) on a file: %s",
			      r ? strerror(errno) : "ok");
			int sfd = open(t_path(m->src, "cf/Hello"), O_RDONLY | O_CLOEXEC);
			int sfl = 0;
			if (sfd >= 0) {
				ioctl(sfd, FS_IOC_GETFLAGS, &sfl);
				close(sfd);
			}
			CHECK(sfl & FS_NOATIME_FL, "SOURCE file got noatime ('A')");
			fl &= ~FS_NOATIME_FL;
			ioctl(fd, FS_IOC_SETFLAGS, &fl);
		}
		close(fd);
	}
	/* chattr changes SOURCE's ctime: stat shows it at once, as on ext4,
	 * not once the attributes the kernel cached (in a plain directory,
	 * for `timeout` seconds) have expired. */
	const char *pl = t_path(m->mnt, "Plain");
	int pfl = 0;
	stat(pl, &vst);
	if (CHECK(t_get_flags(pl, &pfl) == 0 && t_set_flags(pl, pfl | FS_NOATIME_FL) == 0,
		  "chattr +A Plain: %s", strerror(errno))) {
		memset(&vst, 0, sizeof vst);
		memset(&sst, 0, sizeof sst);
		stat(pl, &vst);
		stat(t_path(m->src, "Plain"), &sst);
		CHECK(vst.st_ctim.tv_sec == sst.st_ctim.tv_sec &&
			      vst.st_ctim.tv_nsec == sst.st_ctim.tv_nsec,
		      "ctime after chattr +A: view %lld.%09ld, SOURCE %lld.%09ld",
		      (long long)vst.st_ctim.tv_sec, vst.st_ctim.tv_nsec,
		      (long long)sst.st_ctim.tv_sec, sst.st_ctim.tv_nsec);
		t_set_flags(pl, pfl);
	}
	fd = open(cf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct fsxattr fsx;
	memset(&fsx, 0, sizeof fsx);
	int r = fd >= 0 ? ioctl(fd, FS_IOC_FSGETXATTR, &fsx) : -1;
	CHECK(r == 0, "FS_IOC_FSGETXATTR answered on a folding directory: %s",
	      r ? strerror(errno) : "ok");
	if (fd >= 0)
		close(fd);
	/* lsattr -v: the inode generation is SOURCE's, for a file and a
	 * directory, in the int SOURCE's file system writes */
	static const char *const gv[] = {"cf/Hello", "cf"};
	for (int i = 0; i < 2; i++) {
		int vfd = open(t_path(m->mnt, gv[i]), O_RDONLY | O_CLOEXEC);
		int sfd = open(t_path(m->src, gv[i]), O_RDONLY | O_CLOEXEC);
		int sv = 0, vr, sr;
		long vv = 0x5a5a5a5a5a5a5a5aL;
		sr = sfd >= 0 ? ioctl(sfd, FS_IOC_GETVERSION, &sv) : -1;
		errno = 0;
		vr = vfd >= 0 ? ioctl(vfd, FS_IOC_GETVERSION, &vv) : -1;
		if (sr != 0)
			t_skip("SOURCE answers no FS_IOC_GETVERSION (%s)", strerror(errno));
		else
			CHECK(vr == 0 && (int)vv == sv && (vv >> 32) == 0x5a5a5a5a,
			      "FS_IOC_GETVERSION of %s through the view: %s, %#lx (SOURCE %#x)",
			      gv[i], vr ? strerror(errno) : "ok", vv, (unsigned)sv);
		if (vfd >= 0)
			close(vfd);
		if (sfd >= 0)
			close(sfd);
	}
	/* The same flag by the fsxattr interface (xfs_io chattr): set through
	 * the view, as SOURCE's file system answers it directly. */
	fd = open(fa, O_RDONLY | O_CLOEXEC);
	int sfd = open(t_path(m->src, "cf/Hello"), O_RDONLY | O_CLOEXEC);
	memset(&fsx, 0, sizeof fsx);
	r = fd >= 0 && sfd >= 0 ? ioctl(fd, FS_IOC_FSGETXATTR, &fsx) : -1;
	if (CHECK(r == 0, "FS_IOC_FSGETXATTR on a file: %s", r ? strerror(errno) : "ok")) {
		struct fsxattr sx;
		int sfl = 0, vr, sr;
		fsx.fsx_xflags |= FS_XFLAG_NOATIME;
		errno = 0;
		vr = ioctl(fd, FS_IOC_FSSETXATTR, &fsx);
		int verr = errno;
		ioctl(sfd, FS_IOC_GETFLAGS, &sfl);
		if (vr == 0) {
			CHECK(sfl & FS_NOATIME_FL,
			      "FS_IOC_FSSETXATTR +noatime through the view: SOURCE's file has it");
			fsx.fsx_xflags &= ~FS_XFLAG_NOATIME;
			CHECK_OK(ioctl(fd, FS_IOC_FSSETXATTR, &fsx), "FS_IOC_FSSETXATTR -noatime");
			sfl = 0;
			ioctl(sfd, FS_IOC_GETFLAGS, &sfl);
			CHECK(!(sfl & FS_NOATIME_FL), "-> SOURCE's file lost it");
		} else {
			/* refused: SOURCE must refuse it alike */
			memset(&sx, 0, sizeof sx);
			ioctl(sfd, FS_IOC_FSGETXATTR, &sx);
			sx.fsx_xflags |= FS_XFLAG_NOATIME;
			errno = 0;
			sr = ioctl(sfd, FS_IOC_FSSETXATTR, &sx);
			CHECK(sr != 0 && errno == verr,
			      "FS_IOC_FSSETXATTR refused through the view (%s) as by SOURCE (%s)",
			      strerror(verr), sr ? strerror(errno) : "accepted");
		}
	}
	if (fd >= 0)
		close(fd);
	if (sfd >= 0)
		close(sfd);

	/* user.foldfs.* is hidden and read-only through the view. */
	char list[4096];
	ssize_t n = listxattr(cf, list, sizeof list);
	int seen = 0;
	for (ssize_t o = 0; n > 0 && o < n; o += (ssize_t)strlen(list + o) + 1)
		if (!strncmp(list + o, "user.foldfs.", 12))
			seen = 1;
	CHECK(n >= 0 && !seen, "listxattr on cf hides user.foldfs.*");
	/* The size query programs make first (getfattr, cp -a, tar) counts
	 * the list as shown, without our names; one byte less is ERANGE. */
	CHECK_OK(setxattr(cf, "user.mine", "m", 1, 0), "setxattr user.mine on cf");
	n = listxattr(cf, list, sizeof list);
	ssize_t need = listxattr(cf, NULL, 0);
	CHECK(n == (ssize_t)sizeof "user.mine" && need == n,
	      "listxattr size query on cf: %zd for a list of %zd bytes (user.mine)", need, n);
	CHECK_ERR(listxattr(cf, list, (size_t)n - 1), ERANGE,
		  "listxattr into a buffer one byte short");
	CHECK_OK(removexattr(cf, "user.mine"), "removexattr user.mine");
	char v[16];
	CHECK(getxattr(cf, "user.foldfs.casefold", v, sizeof v) == -1,
	      "getxattr user.foldfs.casefold through the view fails");
	const char *nf2 = t_path(m->mnt, "nf2");
	CHECK_OK(mkdir(nf2, 0755), "mkdir nf2");
	CHECK(setxattr(nf2, "user.foldfs.casefold", "1", 1, 0) == -1,
	      "setxattr user.foldfs.casefold through the view fails");
	CHECK(!src_casefold_xattr(t_path(m->src, "nf2")) && t_has_casefold(nf2) == 0,
	      "and nf2 did not become folding");
	CHECK(setxattr(nf2, "user.foldfs.other", "1", 1, 0) == -1,
	      "setxattr user.foldfs.other through the view fails");

	/* Remount: everything persists in SOURCE. */
	if (t_remount(m) == 0) {
		CHECK(t_has_casefold(t_path(m->mnt, "cf")) == 1, "after remount cf still has F");
		CHECK(t_has_casefold(t_path(m->mnt, "cf/a/b/c")) == 1, "after remount cf/a/b/c has F");
		CHECK(t_has_casefold(t_path(m->mnt, "cf2")) == 0, "after remount cf2 has no F");
		CHECK(t_file_is(t_path(m->mnt, "cf/A/b/C/DEEP"), "deep"),
		      "after remount cf/A/b/C/DEEP resolves");
		CHECK_ERR(stat(t_path(m->mnt, "cf2/ABC"), &st), ENOENT,
			  "after remount cf2/ABC still not found");
	}

	/* The root of a fresh tree holds only the hidden record, which the
	 * view does not show: it is empty, so +F is allowed there too. */
	struct t_mount rm = {0};
	const char *rsrc = t_newdir("src-rootF");
	if (t_mount(&rm, rsrc, "") == 0) {
		CHECK(stat(t_path(rsrc, ".foldfs"), &st) == 0 && t_dir_count(rm.mnt) == 0,
		      "fresh tree: SOURCE holds .foldfs, the view lists nothing");
		CHECK_OK(t_set_casefold(rm.mnt, 1), "+F on the mount's root");
		CHECK(t_has_casefold(rm.mnt) == 1, "-> the root shows F");
		CHECK_OK(mkfile(t_path(rm.mnt, "Root.txt"), "r"), "create Root.txt");
		CHECK(t_file_is(t_path(rm.mnt, "ROOT.TXT"), "r"), "-> ROOT.TXT finds it");
		t_umount(&rm);
	}
}

/* ---- 7. nested folding and plain directories -------------------------- */

static void sec_nesting(struct t_mount *m)
{
	t_section("nesting: folding only where the parent folds");
	const char *top = t_path(m->mnt, "top");
	CHECK_OK(mkdir(top, 0755), "mkdir top (plain)");
	CHECK_OK(mkdir(t_path(top, "cf1"), 0755), "mkdir top/cf1");
	CHECK_OK(t_set_casefold(t_path(top, "cf1"), 1), "+F top/cf1");
	CHECK_OK(mkdir(t_path(top, "cf1/nf2"), 0755), "mkdir top/cf1/nf2 (inherits F)");
	CHECK(t_has_casefold(t_path(top, "cf1/nf2")) == 1, "nf2 inherited F");
	CHECK_OK(t_set_casefold(t_path(top, "cf1/nf2"), 0), "-F top/cf1/nf2 (empty)");
	CHECK_OK(mkdir(t_path(top, "cf1/nf2/cf3"), 0755), "mkdir top/cf1/nf2/cf3");
	CHECK(t_has_casefold(t_path(top, "cf1/nf2/cf3")) == 0, "cf3 under plain nf2 has no F");
	CHECK_OK(t_set_casefold(t_path(top, "cf1/nf2/cf3"), 1), "+F cf3");
	CHECK_OK(mkfile(t_path(top, "cf1/nf2/cf3/file"), "f"), "create cf3/file");
	CHECK_OK(mkdir(t_path(top, "cf1/nf2/nd4"), 0755), "mkdir nf2/nd4 (plain)");
	CHECK_OK(mkfile(t_path(top, "cf1/nf2/nd4/Nd5"), "5"), "create nd4/Nd5");
	struct stat st;
	CHECK_ERR(stat(t_path(m->mnt, "TOP"), &st), ENOENT, "TOP: root is plain");
	CHECK_ERR(stat(t_path(top, "CF1"), &st), ENOENT, "top/CF1: top is plain");
	CHECK_OK(stat(t_path(top, "cf1/NF2"), &st), "top/cf1/NF2: cf1 folds");
	CHECK_ERR(stat(t_path(top, "cf1/nf2/CF3"), &st), ENOENT, "cf1/nf2/CF3: nf2 is plain");
	CHECK(t_file_is(t_path(top, "cf1/NF2/cf3/FILE"), "f"), "cf1/NF2/cf3/FILE resolves");
	CHECK(t_file_is(t_path(top, "cf1/Nf2/cf3/fILE"), "f"), "cf1/Nf2/cf3/fILE resolves");
	CHECK_ERR(stat(t_path(top, "cf1/nf2/nd4/ND5"), &st), ENOENT, "nd4/ND5: nd4 is plain");
	CHECK(t_file_is(t_path(top, "CF1/nf2/cf3/file"), "f") == 0,
	      "a plain parent anywhere above does not help: CF1 fails at top");
	CHECK(lsattr_F(t_path(top, "cf1")) == 1 && lsattr_F(t_path(top, "cf1/nf2")) == 0 &&
		      lsattr_F(t_path(top, "cf1/nf2/cf3")) == 1,
	      "lsattr: cf1 F, nf2 -, cf3 F");
}

/* ---- 8. symlinks ------------------------------------------------------ */

static void sec_symlink(struct t_mount *m)
{
	t_section("symlinks whose target uses another spelling");
	const char *dir = t_path(m->mnt, "sym");
	CHECK_OK(mkdir(dir, 0755), "mkdir sym");
	CHECK_OK(mkdir(t_path(dir, "ind1"), 0755), "mkdir sym/ind1");
	CHECK_OK(mkfile(t_path(dir, "ind1/target"), "T"), "create ind1/target");
	CHECK_OK(symlink("ind1/TARGET", t_path(dir, "link")), "symlink link -> ind1/TARGET");
	char buf[4096];
	ssize_t n = readlink(t_path(dir, "LINK"), buf, sizeof buf - 1);
	CHECK(n == 11 && !memcmp(buf, "ind1/TARGET", 11), "readlink LINK gives exact target bytes");
	CHECK(t_file_is(t_path(dir, "link"), "T"), "reading through the link finds ind1/target");
	CHECK(same_file(t_path(dir, "ind1/target"), t_path(dir, "IND1/TARGET")) &&
		      t_ino(t_path(dir, "ind1/target")) != 0,
	      "IND1/TARGET is the same inode");
	char rp[4096];
	CHECK(realpath(t_path(dir, "link"), rp) != NULL, "realpath(link) resolves");
	char out[4096];
	int rc = run_tool(out, sizeof out, "readlink", "-e", t_path(dir, "link"), NULL, NULL);
	size_t ol = strlen(out);
	while (ol && out[ol - 1] == '\n')
		out[--ol] = 0;
	CHECK(rc == 0 && ol >= 11 && !strcmp(out + ol - 11, "ind1/TARGET"),
	      "readlink -e link exits 0 and prints .../ind1/TARGET (%d: %s)", rc, out);
	CHECK_OK(symlink("IND1", t_path(dir, "dirlink")), "symlink dirlink -> IND1");
	CHECK(t_file_is(t_path(dir, "DIRLINK/Target"), "T"), "DIRLINK/Target resolves");
	CHECK(t_dir_has(dir, "link") && t_dir_has(dir, "dirlink"), "symlink names stored as given");
}

/* ---- 9. hard links ---------------------------------------------------- */

static void sec_hardlink(struct t_mount *m)
{
	t_section("hard links across spellings");
	const char *dir = t_path(m->mnt, "hl");
	CHECK_OK(mkdir(dir, 0755), "mkdir hl");
	CHECK_OK(mkdir(t_path(m->mnt, "hl2"), 0755), "mkdir hl2");
	CHECK_OK(mkfile(t_path(dir, "src"), "S"), "create hl/src");
	CHECK_OK(link(t_path(m->mnt, "HL/SRC"), t_path(m->mnt, "hl/Dst")), "link HL/SRC -> hl/Dst");
	struct stat a, b;
	CHECK(stat(t_path(dir, "src"), &a) == 0 && stat(t_path(m->mnt, "HL/DST"), &b) == 0 &&
		      a.st_ino == b.st_ino,
	      "src and HL/DST share an inode");
	CHECK(a.st_nlink == 2, "link count 2 (%lu)", (unsigned long)a.st_nlink);
	CHECK(t_dir_has(dir, "Dst"), "stored as Dst");
	CHECK_OK(link(t_path(m->mnt, "Hl/sRc"), t_path(m->mnt, "HL2/Copy")), "link Hl/sRc -> HL2/Copy");
	int rs = stat(t_path(dir, "SRC"), &a);
	CHECK(rs == 0 && a.st_nlink == 3, "link count 3 (%lu)", (unsigned long)a.st_nlink);
	CHECK(t_dir_has(t_path(m->mnt, "hl2"), "Copy"), "hl2 stores Copy");
	CHECK_OK(unlink(t_path(m->mnt, "hl/dST")), "unlink hl/dST");
	rs = stat(t_path(dir, "src"), &a);
	CHECK(rs == 0 && a.st_nlink == 2, "link count back to 2 (%lu)", (unsigned long)a.st_nlink);
	CHECK(!t_dir_has(dir, "Dst"), "Dst gone from readdir");
	CHECK_ERR(stat(t_path(dir, "dst"), &b), ENOENT, "dst no longer found");
	CHECK(t_file_is(t_path(m->mnt, "hl2/COPY"), "S"), "hl2/COPY still reads S");
}

/* ---- 10. open fd across unlink and re-create ------------------------- */

static void sec_openfd(struct t_mount *m)
{
	t_section("open fd survives unlink; re-create under another spelling");
	const char *dir = t_path(m->mnt, "ofd");
	CHECK_OK(mkdir(dir, 0755), "mkdir ofd");
	CHECK_OK(mkfile(t_path(dir, "openfd"), "old"), "create openfd");
	int fd = open(t_path(dir, "OPENFD"), O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "open OPENFD");
	struct stat st;
	CHECK(stat(t_path(dir, "openfd"), &st) == 0, "stat openfd (warms the cache)");
	CHECK_OK(unlink(t_path(dir, "OPENFD")), "unlink OPENFD");
	CHECK_ERR(stat(t_path(dir, "openfd"), &st), ENOENT, "openfd gone");
	CHECK_OK(mkfile(t_path(dir, "OpenFd"), "new"), "create OpenFd");
	if (fd >= 0) {
		char buf[16] = "";
		ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
		CHECK(n == 3 && !memcmp(buf, "old", 3), "old fd still reads old data");
		CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0, "old fd's inode has link count 0");
		close(fd);
	}
	CHECK(t_dir_has(dir, "OpenFd") && !t_dir_has(dir, "openfd") && t_dir_count(dir) == 1,
	      "readdir shows only the new spelling OpenFd");
	CHECK(t_file_is(t_path(dir, "openfd"), "new"), "openfd now reads the new file");

	CHECK_OK(mkfile(t_path(dir, "openfd2"), "old2"), "create openfd2");
	fd = open(t_path(dir, "openfd2"), O_RDONLY | O_CLOEXEC);
	CHECK_OK(unlink(t_path(dir, "OpenFD2")), "unlink OpenFD2");
	CHECK_OK(mkdir(t_path(dir, "OPENFD2"), 0755), "mkdir OPENFD2 (directory this time)");
	CHECK(t_dir_has(dir, "OPENFD2") && !t_dir_has(dir, "openfd2"), "readdir shows OPENFD2");
	CHECK(stat(t_path(dir, "openfd2"), &st) == 0 && S_ISDIR(st.st_mode),
	      "openfd2 is now the directory");
	if (fd >= 0) {
		char buf[16] = "";
		CHECK(pread(fd, buf, sizeof buf - 1, 0) == 4 && !strcmp(buf, "old2"),
		      "old fd still reads old2");
		close(fd);
	}
}

/* ---- 11. name preservation ------------------------------------------- */

static void sec_preserve(struct t_mount *m)
{
	t_section("name preservation: delete and re-create with another spelling");
	const char *dir = t_path(m->mnt, "pres");
	struct stat st;
	CHECK_OK(mkdir(dir, 0755), "mkdir pres");
	CHECK_OK(mkfile(t_path(dir, "preserve"), "1"), "create preserve");
	CHECK(stat(t_path(dir, "PRESERVE"), &st) == 0 && stat(t_path(dir, "preserve"), &st) == 0,
	      "stat both spellings (cached dentries for both)");
	CHECK_OK(unlink(t_path(dir, "preserve")), "unlink preserve");
	CHECK_OK(mkfile(t_path(dir, "PRESERVE"), "2"), "create PRESERVE");
	CHECK(t_dir_has(dir, "PRESERVE") && !t_dir_has(dir, "preserve"),
	      "readdir shows PRESERVE, not the old spelling");

	CHECK_OK(mkdir(t_path(dir, "dpres"), 0755), "mkdir dpres");
	CHECK_OK(stat(t_path(dir, "DPRES"), &st), "stat DPRES");
	CHECK_OK(rmdir(t_path(dir, "DPRES")), "rmdir DPRES");
	CHECK_OK(mkdir(t_path(dir, "DPres"), 0755), "mkdir DPres");
	CHECK(t_dir_has(dir, "DPres") && !t_dir_has(dir, "dpres"), "readdir shows DPres");

	CHECK_OK(mkfile(t_path(dir, "fileX"), "x"), "create fileX");
	CHECK_OK(stat(t_path(dir, "FILEX"), &st), "stat FILEX");
	CHECK_OK(unlink(t_path(dir, "fileX")), "unlink fileX");
	CHECK_OK(mkfile(t_path(dir, "FILEX"), "X"), "create FILEX");
	CHECK(t_dir_has(dir, "FILEX") && !t_dir_has(dir, "fileX"), "only FILEX exists");
	CHECK(t_file_is(t_path(dir, "filex"), "X"), "filex reads the new file");

	CHECK_ERR(stat(t_path(dir, "neg"), &st), ENOENT, "stat neg (negative)");
	CHECK_ERR(stat(t_path(dir, "NEG"), &st), ENOENT, "stat NEG (negative)");
	CHECK_OK(mkfile(t_path(dir, "Neg"), "n"), "create Neg");
	CHECK(t_dir_has(dir, "Neg") && !t_dir_has(dir, "neg") && !t_dir_has(dir, "NEG"),
	      "readdir shows Neg (no stale negative spelling reused)");
	CHECK(t_file_is(t_path(dir, "neg"), "n") && t_file_is(t_path(dir, "NEG"), "n"),
	      "neg and NEG now find Neg");
	CHECK(t_dir_count(dir) == 4, "pres holds 4 entries (%ld)", t_dir_count(dir));
}

/* ---- 12. xattrs ------------------------------------------------------- */

static void sec_xattr(struct t_mount *m)
{
	t_section("xattrs on folding directories and files");
	CHECK_OK(mkdir(t_path(m->mnt, "xdir"), 0755), "mkdir xdir");
	CHECK_OK(mkfile(t_path(m->mnt, "xdir/xfile"), "x"), "create xdir/xfile");
	CHECK_OK(setxattr(t_path(m->mnt, "XDIR"), "user.color", "blue", 4, 0),
		 "setxattr user.color on XDIR");
	char v[64];
	ssize_t n = getxattr(t_path(m->mnt, "xdir"), "user.color", v, sizeof v);
	CHECK(n == 4 && !memcmp(v, "blue", 4), "getxattr via xdir reads blue");
	char list[4096];
	n = listxattr(t_path(m->mnt, "XDir"), list, sizeof list);
	int found = 0;
	for (ssize_t o = 0; n > 0 && o < n; o += (ssize_t)strlen(list + o) + 1)
		if (!strcmp(list + o, "user.color"))
			found = 1;
	CHECK(found, "listxattr via XDir lists user.color");
	CHECK_OK(setxattr(t_path(m->mnt, "XDIR/XFILE"), "user.k", "v1", 2, 0),
		 "setxattr on XDIR/XFILE");
	n = getxattr(t_path(m->mnt, "xdir/xfile"), "user.k", v, sizeof v);
	CHECK(n == 2 && !memcmp(v, "v1", 2), "getxattr via xdir/xfile");
	n = lgetxattr(t_path(m->src, "xdir/xfile"), "user.k", v, sizeof v);
	CHECK(n == 2, "stored on SOURCE/xdir/xfile");
	CHECK_OK(removexattr(t_path(m->mnt, "XDir/XFile"), "user.k"), "removexattr via XDir/XFile");
	CHECK_ERR(getxattr(t_path(m->mnt, "xdir/xfile"), "user.k", v, sizeof v), ENODATA,
		  "getxattr after remove");
}

/* ---- 13. a 5,000-entry directory ------------------------------------ */

static void sec_bigdir(struct t_mount *m)
{
	t_section("5,000 entries created via the mount, read back by other spellings");
	const char *dir = t_path(m->mnt, "big");
	CHECK_OK(mkdir(dir, 0755), "mkdir big");
	int bad = 0;
	char name[64], want_s[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "big/file%04d", i);
		snprintf(want_s, sizeof want_s, "%d\n", i);
		if (mkfile(t_path(m->mnt, name), want_s) != 0 && bad++ < 5)
			t_note("create %s: %s", name, strerror(errno));
	}
	CHECK(bad == 0, "created 5000 files (%d failed)", bad);
	for (int pass = 0; pass < 2; pass++) {
		bad = 0;
		for (int i = 0; i < 5000; i++) {
			snprintf(name, sizeof name, pass ? "BIG/File%04d" : "big/FILE%04d", i);
			snprintf(want_s, sizeof want_s, "%d\n", i);
			if (!t_file_is(t_path(m->mnt, name), want_s) && bad++ < 5)
				t_note("%s does not read %d", name, i);
		}
		CHECK(bad == 0, "%s: all 5000 resolve with the right content (%d wrong)",
		      pass ? "BIG/File%04d" : "big/FILE%04d", bad);
	}
	long n = t_dir_count(dir);
	CHECK(n == 5000, "readdir lists 5000 entries (%ld)", n);
	DIR *d = opendir(dir);
	int badname = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && strncmp(de->d_name, "file", 4))
			badname++;
	if (d)
		closedir(d);
	CHECK(badname == 0, "every listed name keeps its lower-case spelling");
	struct stat st;
	CHECK_ERR(stat(t_path(dir, "FILE5000"), &st), ENOENT, "FILE5000 does not exist");
	if (t_remount(m) == 0) {
		bad = 0;
		for (int i = 0; i < 5000; i += 7) {
			snprintf(name, sizeof name, "Big/fILE%04d", i);
			snprintf(want_s, sizeof want_s, "%d\n", i);
			if (!t_file_is(t_path(m->mnt, name), want_s))
				bad++;
		}
		CHECK(bad == 0, "after remount (cold) Big/fILE%%04d resolves (%d wrong)", bad);
	}
}

/* ---- 14. collisions already present in SOURCE -------------------------- */

static void sec_collide(void)
{
	t_section("equivalent names already present in SOURCE (-o casefold)");
	const char *src = t_newdir("src-collide");
	char p[4200];
	snprintf(p, sizeof p, "%s/col", src);
	mkdir(p, 0755);
	t_write_file(t_path(p, "readme"), "lower");
	t_write_file(t_path(p, "README"), "upper");
	t_write_file(t_path(p, "ReadMe"), "mixed");
	t_write_file(t_path(p, "\xe2\x84\xab"), "angstrom sign"); /* U+212B */
	t_write_file(t_path(p, "\xc3\x85"), "A ring");	     /* U+00C5 */
	t_write_file(t_path(p, "Caf\xc3\xa9"), "nfc");	     /* 5 bytes */
	t_write_file(t_path(p, "Cafe\xcc\x81"), "nfd");	     /* 6 bytes, memcmp-smaller */
	snprintf(p, sizeof p, "%s/Dir", src);
	mkdir(p, 0755);
	t_write_file(t_path(p, "x"), "in Dir");
	snprintf(p, sizeof p, "%s/DIR", src);
	mkdir(p, 0755);
	t_write_file(t_path(p, "x"), "in DIR");

	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold"))
		return;
	const char *col = t_path(m.mnt, "col");
	CHECK(t_file_is(t_path(col, "Readme"), "upper"),
	      "Readme resolves to README, the bytewise smallest of three");
	CHECK(t_file_is(t_path(col, "rEADME"), "upper"), "rEADME resolves to README");
	CHECK(t_file_is(t_path(col, "readme"), "lower"), "exact readme resolves to itself");
	CHECK(t_file_is(t_path(col, "README"), "upper"), "exact README resolves to itself");
	CHECK(t_file_is(t_path(col, "ReadMe"), "mixed"), "exact ReadMe resolves to itself");
	CHECK(t_dir_has(col, "readme") && t_dir_has(col, "README") && t_dir_has(col, "ReadMe"),
	      "readdir shows all three");
	CHECK(t_file_is(t_path(col, "a\xcc\x8a"), "A ring"),
	      "å (NFD) resolves to U+00C5, smaller than U+212B by any order");
	CHECK(t_file_is(t_path(col, "\xe2\x84\xab"), "angstrom sign"), "exact U+212B resolves to itself");
	/* fs-notes A2: plain lexicographic byte order, not length first. */
	CHECK(t_file_is(t_path(col, "CAF\xc3\x89"), "nfd"),
	      "CAFÉ resolves to the NFD twin (memcmp-smaller though longer)");
	CHECK(t_file_is(t_path(col, "Caf\xc3\xa9"), "nfc"), "exact NFC Café resolves to itself");
	CHECK(t_dir_has(col, "Caf\xc3\xa9") && t_dir_has(col, "Cafe\xcc\x81"),
	      "readdir lists both Café twins byte for byte");
	CHECK(t_dir_count(col) == 7, "readdir lists all 7 entries (%ld)", t_dir_count(col));
	CHECK(t_file_is(t_path(m.mnt, "dir/X"), "in DIR"), "dir/X descends into DIR (smallest)");
	CHECK(t_file_is(t_path(m.mnt, "Dir/x"), "in Dir"), "Dir/x descends into Dir (exact)");
	struct stat st;
	CHECK_ERR(mkdir(t_path(m.mnt, "dIR"), 0755), EEXIST, "mkdir dIR: EEXIST");
	/* Removing the winner hands the spelling to the next smallest. */
	CHECK_OK(unlink(t_path(col, "README")), "unlink exact README");
	CHECK(t_file_is(t_path(col, "Readme"), "mixed"), "Readme now resolves to ReadMe");
	CHECK_OK(unlink(t_path(col, "ReadMe")), "unlink exact ReadMe");
	CHECK(t_file_is(t_path(col, "Readme"), "lower"), "Readme now resolves to readme");
	CHECK_OK(unlink(t_path(col, "READme")), "unlink READme (the last one)");
	CHECK_ERR(stat(t_path(col, "readme"), &st), ENOENT, "no readme left");
	t_umount(&m);
}

/* ---- 15. encoding record --------------------------------------------- */

static int contains(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static void sec_record(void)
{
	t_section("encoding record: created at first mount, mismatches refused");
	const char *src = t_newdir("src-record");
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold"))
		return;
	CHECK_OK(mkfile(t_path(m.mnt, "Keep"), "k"), "create Keep");
	t_umount(&m);
	struct stat st;
	CHECK(stat(t_path(src, ".foldfs"), &st) == 0 && S_ISREG(st.st_mode),
	      "SOURCE/.foldfs exists after the first mount");
	char rec[4096] = "";
	t_read_file(t_path(src, ".foldfs"), rec, sizeof rec);
	CHECK(contains(rec, "encoding=utf8-12.1"), "record says encoding=utf8-12.1...");
	char out[8192];
	int rc = run_tool(out, sizeof out, t_opt.foldfs, "--info", src, NULL, NULL);
	CHECK(rc == 0 && contains(out, "12.1"), "foldfs --info SOURCE: exit %d, names 12.1", rc);
	t_note("foldfs --info: %s", out);
	const char *empty = t_newdir("src-norecord");
	rc = run_tool(out, sizeof out, t_opt.foldfs, "--info", empty, NULL, NULL);
	CHECK(rc == 1, "foldfs --info on a tree without a record exits 1 (%d)", rc);

	rc = t_mount_refused(src, "encoding=utf8-15.0", out, sizeof out);
	CHECK(rc != 0 && rc != -1, "remount with -o encoding=utf8-15.0 refused (exit %d)", rc);
	CHECK(rc == 1, "refusal exit status is 1 (%d)", rc);
	CHECK(contains(out, "12.1") && contains(out, "15.0"),
	      "message names the recorded and the requested encoding: %s", out);
	CHECK(contains(out, "foldfs-check"), "message says how to proceed (foldfs-check)");
	rc = t_mount_refused(src, "strict", out, sizeof out);
	CHECK(rc == 1, "remount with -o strict on a non-strict record refused (exit %d): %s", rc, out);
	rc = t_mount_refused(src, "compat", out, sizeof out);
	CHECK(rc == 1, "remount with -o compat on a plain record refused (exit %d)", rc);
	char rec2[4096] = "";
	t_read_file(t_path(src, ".foldfs"), rec2, sizeof rec2);
	CHECK(!strcmp(rec, rec2), "refused mounts left the record untouched");

	if (t_mount(&m, src, "casefold,encoding=utf8-12.1") == 0) {
		CHECK(1, "remount with the recorded encoding spelled out works");
		CHECK(t_file_is(t_path(m.mnt, "KEEP"), "k"), "data still there (KEEP)");
		t_umount(&m);
	}
	if (t_mount(&m, src, "casefold") == 0) {
		CHECK(1, "remount without options uses the record");
		/* U+A7C7/U+A7C8 are a case pair only from Unicode 13 on. */
		CHECK_OK(mkfile(t_path(m.mnt, "\xea\x9f\x87"), "new"), "create U+A7C7");
		CHECK_OK(mkfile(t_path(m.mnt, "\xea\x9f\x88"), "new2"),
			 "create U+A7C8 beside it (distinct under 12.1)");
		t_umount(&m);
	}

	const char *src15 = t_newdir("src-u15");
	if (t_mount(&m, src15, "casefold,encoding=utf8-15.0") == 0) {
		CHECK_OK(mkfile(t_path(m.mnt, "\xea\x9f\x87"), "D"), "create U+A7C7 under utf8-15.0");
		CHECK(t_file_is(t_path(m.mnt, "\xea\x9f\x88"), "D"), "U+A7C8 finds it under utf8-15.0");
		CHECK_ERR(mkdir(t_path(m.mnt, "\xea\x9f\x88"), 0755), EEXIST, "mkdir U+A7C8: EEXIST");
		t_umount(&m);
		rc = run_tool(out, sizeof out, t_opt.foldfs, "--info", src15, NULL, NULL);
		CHECK(rc == 0 && contains(out, "15.0"), "--info shows 15.0 (exit %d)", rc);
		rc = t_mount_refused(src15, "encoding=utf8-12.1", out, sizeof out);
		CHECK(rc == 1, "downgrade to utf8-12.1 refused (exit %d)", rc);
	}
	const char *srcbad = t_newdir("src-badenc");
	rc = t_mount_refused(srcbad, "encoding=utf8-99.0", out, sizeof out);
	CHECK(rc != 0 && rc != -1, "unknown encoding utf8-99.0 refused (exit %d)", rc);
	CHECK(stat(t_path(srcbad, ".foldfs"), &st) == -1, "and no record was written");
	rc = t_mount_refused(srcbad, "encoding=latin1", out, sizeof out);
	CHECK(rc != 0 && rc != -1, "unknown encoding latin1 refused (exit %d)", rc);

	/* A record naming a future Unicode version is refused. */
	const char *srcfut = t_newdir("src-future");
	char rtext[512];
	snprintf(rtext, sizeof rtext,
		 "# foldfs encoding record - do not edit; see foldfs(8)\nformat=1\n"
		 "encoding=utf8-99.0.0\nflags=\ncreated=2026-01-01T00:00:00Z\ncreator=fs-basic\n");
	t_write_file(t_path(srcfut, ".foldfs"), rtext);
	rc = t_mount_refused(srcfut, "casefold", out, sizeof out);
	CHECK(rc == 1, "record naming utf8-99.0.0 refused (exit %d)", rc);

	/* A subtree of a recorded tree compares names as the tree does (the
	 * record foldfs-check finds in a parent): its mount uses that record,
	 * writes none of its own, and refuses options that disagree. */
	const char *tree = t_newdir("src-tree");
	char sub[4200];
	snprintf(sub, sizeof sub, "%s/games", tree);
	CHECK_OK(mkdir(sub, 0755), "mkdir TREE/games");
	if (t_mount(&m, tree, "encoding=utf8-15.0,strict") == 0)
		t_umount(&m);
	if (t_mount(&m, sub, "casefold") == 0) {
		CHECK_OK(mkfile(t_path(m.mnt, "\xea\x9f\x87"), "D"), "subtree: create U+A7C7");
		CHECK(t_file_is(t_path(m.mnt, "\xea\x9f\x88"), "D"),
		      "subtree: U+A7C8 finds it (the tree's utf8-15.0, not the default 12.1)");
		CHECK_ERR(mkdir(t_path(m.mnt, "x\xff"), 0755), EINVAL,
			  "subtree: an ill-formed name is refused (the tree's strict)");
		t_umount(&m);
		CHECK(stat(t_path(sub, ".foldfs"), &st) == -1 && errno == ENOENT,
		      "subtree: no record of its own was written");
	}
	rc = t_mount_refused(sub, "casefold,encoding=utf8-12.1", out, sizeof out);
	CHECK(rc == 1 && contains(out, "15.0") && contains(out, t_path(tree, ".foldfs")),
	      "subtree: -o encoding=utf8-12.1 refused, naming the tree's record (exit %d): %s", rc,
	      out);
	rc = run_tool(out, sizeof out, t_opt.foldfs, "--info", sub, NULL, NULL);
	CHECK(rc == 1 && contains(out, t_path(tree, ".foldfs")),
	      "foldfs --info on the subtree names the tree's record (exit %d): %s", rc, out);
	/* anyone may write a .foldfs into a shared parent such as /tmp: one
	 * owned by another user does not govern root's subtree */
	CHECK_OK(chown(t_path(tree, ".foldfs"), 4321, 4321), "chown TREE/.foldfs to uid 4321");
	if (t_mount(&m, sub, "casefold") == 0) {
		CHECK(!t_file_is(t_path(m.mnt, "\xea\x9f\x88"), "D"),
		      "another user's record in a parent is not used (defaults: utf8-12.1)");
		t_umount(&m);
		CHECK(stat(t_path(sub, ".foldfs"), &st) == 0, "the subtree got a record of its own");
	}

	const char *srcnf = t_newdir("src-nofold");
	if (t_mount(&m, srcnf, "nofold") == 0) {
		CHECK_OK(mkfile(t_path(m.mnt, "Abc"), "a"), "nofold: create Abc");
		CHECK_ERR(stat(t_path(m.mnt, "ABC"), &st), ENOENT, "nofold: ABC not found");
		CHECK_OK(mkfile(t_path(m.mnt, "ABC"), "b"), "nofold: ABC created beside Abc");
		t_umount(&m);
		CHECK(stat(t_path(srcnf, ".foldfs"), &st) == -1, "nofold mount wrote no record");
	}
}

/* ---- 16. .foldfs invisible ------------------------------------------- */

static void sec_hidden(struct t_mount *m)
{
	t_section(".foldfs is invisible in the view");
	char before[4096] = "", after[4096] = "";
	t_read_file(t_path(m->src, ".foldfs"), before, sizeof before);
	CHECK(before[0] != 0, "SOURCE has a record");
	CHECK(!t_dir_has(m->mnt, ".foldfs"), "root readdir does not list .foldfs");
	struct stat st;
	CHECK_ERR(stat(t_path(m->mnt, ".foldfs"), &st), ENOENT, "stat .foldfs");
	CHECK_ERR(stat(t_path(m->mnt, ".FOLDFS"), &st), ENOENT, "stat .FOLDFS");
	CHECK_ERR(open(t_path(m->mnt, ".foldfs"), O_CREAT | O_WRONLY, 0644), EPERM,
		  "create .foldfs at the root");
	CHECK_ERR(mkdir(t_path(m->mnt, ".foldfs"), 0755), EPERM, "mkdir .foldfs at the root");
	CHECK_OK(mkfile(t_path(m->mnt, "rfile"), "r"), "create rfile");
	CHECK_ERR(open(t_path(m->mnt, ".FOLDFS"), O_CREAT | O_WRONLY, 0644), EPERM,
		  "create .FOLDFS (equivalent) at the root");
	CHECK_ERR(symlink("x", t_path(m->mnt, ".FoldFS")), EPERM, "symlink .FoldFS at the root");
	CHECK_ERR(rename(t_path(m->mnt, "rfile"), t_path(m->mnt, ".foldfs")), EPERM,
		  "rename onto .foldfs at the root");
	CHECK_ERR(link(t_path(m->mnt, "rfile"), t_path(m->mnt, ".foldfs")), EPERM,
		  "link to .foldfs at the root");
	CHECK_ERR(unlink(t_path(m->mnt, ".foldfs")), ENOENT, "unlink .foldfs at the root");
	CHECK(t_file_is(t_path(m->mnt, "rfile"), "r"), "rfile untouched by the refused rename");
	t_read_file(t_path(m->src, ".foldfs"), after, sizeof after);
	CHECK(!strcmp(before, after), "record unchanged");
	/* A name equivalent to the record made directly in SOURCE is an
	 * ordinary entry: every spelling finds it, the record's own too
	 * (the view changes within its bound for a change in SOURCE). */
	CHECK_OK(mkfile(t_path(m->src, ".FOLDFS"), "planted"), "SOURCE: create .FOLDFS");
	struct stat pst = { 0 };
	int found = 0;
	for (int i = 0; i < 300 && !found; i++) {
		found = stat(t_path(m->mnt, ".foldfs"), &st) == 0;
		if (!found)
			t_sleep_ms(10);
	}
	CHECK(found && stat(t_path(m->mnt, ".Foldfs"), &pst) == 0 && st.st_ino == pst.st_ino &&
		      t_file_is(t_path(m->mnt, ".foldfs"), "planted"),
	      "SOURCE's .FOLDFS found as .foldfs and .Foldfs alike");
	CHECK(t_dir_has(m->mnt, ".FOLDFS") && !t_dir_has(m->mnt, ".foldfs"),
	      "listed as .FOLDFS, the record still not");
	CHECK_OK(unlink(t_path(m->mnt, ".foldfs")), "unlink .foldfs removes SOURCE's .FOLDFS");
	CHECK(stat(t_path(m->src, ".FOLDFS"), &st) == -1 && errno == ENOENT,
	      "SOURCE: .FOLDFS gone");
	t_read_file(t_path(m->src, ".foldfs"), after, sizeof after);
	CHECK(!strcmp(before, after), "record still unchanged");
	CHECK_OK(mkdir(t_path(m->mnt, "hsub"), 0755), "mkdir hsub");
	CHECK_OK(mkfile(t_path(m->mnt, "hsub/.foldfs"), "ordinary"),
		 "hsub/.foldfs is an ordinary name below the root");
	CHECK(t_dir_has(t_path(m->mnt, "hsub"), ".foldfs"), "and is listed there");
}

/* ---- file handles -------------------------------------------------- */

#define NHANDLE 300
struct fh_buf {
	struct file_handle h;
	unsigned char b[MAX_HANDLE_SZ];
};

/* A file handle (name_to_handle_at, as knfsd uses) names one file for
 * good: once the file is gone it opens nothing (ESTALE), even after the
 * daemon freed its node and handed the same node id to a new file. */
static void sec_handles(struct t_mount *m)
{
	t_section("file handles of removed files never open another file");
	const char *dir = t_path(m->mnt, "handles");
	static struct fh_buf old[NHANDLE];
	char name[64], want_s[64];
	int mid, got = 0;
	CHECK_OK(mkdir(dir, 0755), "mkdir handles");
	for (int i = 0; i < NHANDLE; i++) {
		snprintf(name, sizeof name, "old%d", i);
		snprintf(want_s, sizeof want_s, "old %d\n", i);
		mkfile(t_path(dir, name), want_s);
		old[i].h.handle_bytes = MAX_HANDLE_SZ;
		got += name_to_handle_at(AT_FDCWD, t_path(dir, name), &old[i].h, &mid, 0) == 0;
	}
	if (got == 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
		t_skip("name_to_handle_at: %s", strerror(errno));
		return;
	}
	CHECK(got == NHANDLE, "name_to_handle_at for %d files (%d)", NHANDLE, got);
	int mfd = open(m->mnt, O_RDONLY | O_DIRECTORY);
	/* a live file's handle opens that file, or nothing once the kernel
	 * has forgotten it (the daemon keeps no handles) */
	int wrong = 0, other = 0;
	for (int i = 0; i < NHANDLE; i++) {
		char buf[64] = "";
		int fd = open_by_handle_at(mfd, &old[i].h, O_RDONLY);
		if (fd < 0) {
			other += errno != ESTALE;
			continue;
		}
		snprintf(want_s, sizeof want_s, "old %d\n", i);
		wrong += read(fd, buf, sizeof buf - 1) < 0 || strcmp(buf, want_s);
		close(fd);
	}
	CHECK(!wrong && !other, "a live file's handle opens it or fails with ESTALE "
	      "(%d other files, %d other errors)", wrong, other);
	for (int i = 0; i < NHANDLE; i++) {
		snprintf(name, sizeof name, "old%d", i);
		unlink(t_path(dir, name));
	}
	t_sleep_ms(300); /* the kernel's FORGETs: the nodes are freed */
	for (int i = 0; i < NHANDLE; i++) {
		snprintf(name, sizeof name, "new%d", i);
		mkfile(t_path(dir, name), "new\n");
	}
	wrong = other = 0;
	for (int i = 0; i < NHANDLE; i++) {
		int fd = open_by_handle_at(mfd, &old[i].h, O_RDONLY);
		if (fd >= 0) {
			wrong++;
			close(fd);
		} else if (errno != ESTALE) {
			other++;
		}
	}
	close(mfd);
	CHECK(!wrong && !other, "every handle of a removed file fails with ESTALE "
	      "(%d opened another file, %d other errors)", wrong, other);
}

/* ---- file systems mounted inside SOURCE ---------------------------- */

/* The view is one st_dev: objects of a file system mounted inside SOURCE
 * must not show the inode number of another object of the view, or tar,
 * cp and find take them for one (find: "File system loop detected").
 * Two fresh tmpfs number their inodes alike from 1. */
/* Through the view at root: root, SUB and the files OUTER0..7 and
 * SUB/INNER0..7 are 18 objects with 18 distinct (st_dev, st_ino); sub
 * lists `listed` names beginning with "inner", each with its st_ino as
 * d_ino.  st[13] is SUB/INNER3's. */
static void submount_numbers(const char *root, int listed_want, struct stat st[18])
{
	char name[64];
	int got = stat(root, &st[0]) == 0 && stat(t_path(root, "SUB"), &st[1]) == 0;
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "OUTER%d", i);
		got &= stat(t_path(root, name), &st[2 + i]) == 0;
		snprintf(name, sizeof name, "sub/INNER%d", i);
		got &= stat(t_path(root, name), &st[10 + i]) == 0;
	}
	CHECK(got, "stat of both roots and the 16 files through the view");
	int same = 0;
	for (int i = 0; got && i < 18; i++)
		for (int j = i + 1; j < 18; j++)
			same += st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino;
	CHECK(got && !same, "18 objects, 18 distinct (st_dev, st_ino) (%d pairs alike)", same);
	/* readdir's d_ino is what stat says, there too */
	int listed = 0, bad = 0;
	DIR *d = opendir(t_path(root, "sub"));
	for (struct dirent *de; d && (de = readdir(d));) {
		struct stat s;
		if (strncmp(de->d_name, "inner", 5))
			continue;
		listed++;
		bad += fstatat(dirfd(d), de->d_name, &s, AT_SYMLINK_NOFOLLOW) != 0 ||
		       s.st_ino != de->d_ino;
	}
	if (d)
		closedir(d);
	CHECK(listed == listed_want && !bad,
	      "sub lists %d names whose d_ino is their st_ino (%d, %d differ)", listed_want,
	      listed, bad);
}

static void sec_submount(void)
{
	t_section("a file system mounted inside SOURCE: inode numbers stay unique");
	const char *src = t_newdir("src-submount");
	const char *sub = t_path(src, "sub");
	struct t_mount m = {0};
	char name[64];
	if (mount("tmpfs", src, "tmpfs", 0, "size=4m") != 0) {
		t_skip("cannot mount a tmpfs: %s", strerror(errno));
		return;
	}
	mkdir(sub, 0755);
	if (mount("tmpfs", sub, "tmpfs", 0, "size=4m") != 0) {
		t_skip("cannot mount a tmpfs: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "outer%d", i);
		mkfile(t_path(src, name), "outer");
		snprintf(name, sizeof name, "inner%d", i);
		mkfile(t_path(sub, name), "inner");
	}
	if (t_mount(&m, src, "casefold"))
		goto out;
	struct stat st[18];
	submount_numbers(m.mnt, 8, st);
	const char *find[] = {"find", m.mnt, "-name", "inner0", NULL};
	char out[4096];
	int rc = t_run(find, out, sizeof out, 30);
	CHECK(rc == 0 && strstr(out, "/sub/inner0") && !strstr(out, "loop"),
	      "find walks into sub (status %d): %s", rc, out);
	t_umount(&m);
out:
	umount2(sub, MNT_DETACH);
	umount2(src, MNT_DETACH);
}

/* A number of such a file system that already uses bits 48-63 cannot be
 * tagged: a view nested in SOURCE shows its own inner file system's
 * objects with those bits set, and the outer view tagging the nested
 * view's other objects with its device's place gave them the same
 * numbers (tar archived one file as a hard link to the other). */
static void sec_submount_nested(void)
{
	t_section("a view inside SOURCE: its wide inode numbers stay unique too");
	const char *isrc = t_newdir("src-nest-inner");
	const char *isub = t_path(isrc, "sub");
	const char *osrc = t_newdir("src-nest-outer");
	const char *bind = t_path(osrc, "v");
	struct t_mount in = {0}, out = {0};
	char name[64];
	int binded = 0;
	if (mount("tmpfs", isrc, "tmpfs", 0, "size=4m") != 0) {
		t_skip("cannot mount a tmpfs: %s", strerror(errno));
		return;
	}
	mkdir(isub, 0755);
	if (mount("tmpfs", isub, "tmpfs", 0, "size=4m") != 0) {
		t_skip("cannot mount a tmpfs: %s", strerror(errno));
		goto done;
	}
	for (int i = 0; i < 8; i++) {
		/* a second link each: tar looks for hard links among
		 * files with more than one */
		char l[80];
		snprintf(name, sizeof name, "outer%d", i);
		snprintf(l, sizeof l, "%s.l", name);
		mkfile(t_path(isrc, name), "outer");
		link(t_path(isrc, name), t_path(isrc, l));
		snprintf(name, sizeof name, "inner%d", i);
		snprintf(l, sizeof l, "%s.l", name);
		mkfile(t_path(isub, name), "inner");
		link(t_path(isub, name), t_path(isub, l));
	}
	if (t_mount(&in, isrc, ""))
		goto done;
	/* the inner view's own numbers: sub's objects are wide */
	struct stat s0 = {0};
	int r0 = stat(t_path(in.mnt, "sub/inner0"), &s0);
	CHECK(r0 == 0 && (uint64_t)s0.st_ino >> 48,
	      "the nested view shows sub's files with bits 48-63 set (%#llx)",
	      (unsigned long long)s0.st_ino);
	mkdir(bind, 0755);
	if (mount(in.mnt, bind, NULL, MS_BIND, NULL) != 0) {
		t_skip("cannot bind the nested view into SOURCE: %s", strerror(errno));
		goto done;
	}
	binded = 1;
	if (t_mount(&out, osrc, "casefold"))
		goto done;
	struct stat st[18], again;
	submount_numbers(t_path(out.mnt, "V"), 16, st);
	/* the same number at the next stat */
	CHECK(stat(t_path(out.mnt, "v/sub/inner3"), &again) == 0 &&
	      again.st_ino == st[13].st_ino, "a wide number shown stays the object's");
	/* What tar does with it: each file's second link (NAME.l) is archived
	 * as a link to NAME, and nothing else as a link to anything. */
	char tarf[4200], outb[16384];
	snprintf(tarf, sizeof tarf, "%s.tar", osrc);
	const char *tar[] = {"tar", "-cf", tarf, "-C", out.mnt, "v", NULL};
	int rc = t_run(tar, outb, sizeof outb, 60);
	const char *list[] = {"tar", "-tvf", tarf, NULL};
	if (rc == 0)
		rc = t_run(list, outb, sizeof outb, 60);
	int links = 0, wrong = 0;
	for (char *p = outb; rc == 0 && (p = strstr(p, " link to "));) {
		char *b = p, *t = p + 9, *e = t + strcspn(t, "\n");
		while (b > outb && b[-1] != ' ')
			b--;
		size_t bl = (size_t)(p - b), tl = (size_t)(e - t);
		if (bl > 2 && !memcmp(b + bl - 2, ".l", 2))
			bl -= 2;
		if (tl > 2 && !memcmp(t + tl - 2, ".l", 2))
			tl -= 2;
		links++;
		wrong += bl != tl || memcmp(b, t, bl);
		p = e;
	}
	CHECK(rc == 0 && links == 16 && !wrong,
	      "tar finds the 16 true hard links and no other (status %d, %d links, "
	      "%d between different files)", rc, links, wrong);
	unlink(tarf);
done:
	if (out.live)
		t_umount(&out);
	if (binded)
		umount2(bind, MNT_DETACH);
	if (in.live)
		t_umount(&in);
	umount2(isub, MNT_DETACH);
	umount2(isrc, MNT_DETACH);
}

/* ---- 17. strict ------------------------------------------------------- */

static void sec_strict(void)
{
	t_section("strict: ill-formed names refused in folding directories");
	const char *src = t_newdir("src-strict");
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,strict"))
		return;
	static const char *const bad[] = {
		"corac\xcc\xa7\xc3", "cora\xc3\xa7\xc3", "\xc0\xaf", "sur\xed\xa0\x80",
		"\xf4\x90\x80\x80", "lone\x80", "\xff",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK_ERR(open(t_path(m.mnt, bad[i]), O_CREAT | O_WRONLY, 0644), EINVAL,
			  "create %s", t_q(bad[i]));
	CHECK_ERR(mkdir(t_path(m.mnt, bad[0]), 0755), EINVAL, "mkdir %s", t_q(bad[0]));
	CHECK_ERR(symlink("t", t_path(m.mnt, bad[0])), EINVAL, "symlink %s", t_q(bad[0]));
	CHECK_ERR(mknod(t_path(m.mnt, bad[0]), S_IFIFO | 0644, 0), EINVAL, "mknod %s", t_q(bad[0]));
	CHECK_OK(mkfile(t_path(m.mnt, "good"), "g"), "create good");
	CHECK_ERR(link(t_path(m.mnt, "good"), t_path(m.mnt, bad[0])), EINVAL, "link to %s",
		  t_q(bad[0]));
	CHECK_ERR(rename(t_path(m.mnt, "good"), t_path(m.mnt, bad[1])), EINVAL, "rename to %s",
		  t_q(bad[1]));
	CHECK_OK(mkfile(t_path(m.mnt, "cora\xc3\xa7\xc3\xa3o"), "c"), "well-formed coração is fine");
	CHECK(t_file_is(t_path(m.mnt, "CORAC\xcc\xa7\xc3\x83O"), "c"), "and folds");
	CHECK(t_dir_count(m.mnt) == 2, "only the two good names exist (%ld)", t_dir_count(m.mnt));
	t_umount(&m);

	const char *src2 = t_newdir("src-strict-plain");
	if (t_mount(&m, src2, "strict"))
		return;
	CHECK_OK(mkfile(t_path(m.mnt, bad[0]), "p"), "plain root under strict: %s allowed",
		 t_q(bad[0]));
	CHECK_OK(mkdir(t_path(m.mnt, "cf"), 0755), "mkdir cf");
	CHECK_OK(t_set_casefold(t_path(m.mnt, "cf"), 1), "+F cf");
	CHECK_ERR(open(t_path(m.mnt, "cf/x\xff"), O_CREAT | O_WRONLY, 0644), EINVAL,
		  "cf/x\\xff refused inside the folding dir");
	t_umount(&m);
}

/* ---- 18. compat, ascii, ignorables ------------------------------------ */

static void sec_compat(void)
{
	t_section("compat: ligatures and fullwidth match their plain forms");
	const char *src = t_newdir("src-compat");
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,compat"))
		return;
	CHECK_OK(mkfile(t_path(m.mnt, "\xef\xac\x81le"), "lig"), "create ﬁle (U+FB01)");
	CHECK(t_file_is(t_path(m.mnt, "file"), "lig"), "file finds ﬁle");
	CHECK(t_file_is(t_path(m.mnt, "FILE"), "lig"), "FILE finds ﬁle");
	CHECK_ERR(open(t_path(m.mnt, "fiLE"), O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST,
		  "O_EXCL fiLE: EEXIST");
	CHECK(t_dir_has(m.mnt, "\xef\xac\x81le") && !t_dir_has(m.mnt, "file"),
	      "readdir keeps the ligature spelling");
	CHECK_OK(mkfile(t_path(m.mnt, "\xc4\xb3sselmeer"), "ij"), "create ĳsselmeer (U+0133)");
	CHECK(t_file_is(t_path(m.mnt, "IJSSELMEER"), "ij"), "IJSSELMEER finds it under compat");
	CHECK_OK(mkfile(t_path(m.mnt, "\xef\xbc\xa1\xef\xbc\xa2\xef\xbc\xa3"), "fw"), "create ＡＢＣ");
	CHECK(t_file_is(t_path(m.mnt, "abc"), "fw"), "abc finds ＡＢＣ");
	CHECK_OK(mkfile(t_path(m.mnt, "x\xc2\xb2"), "sq"), "create x²");
	CHECK(t_file_is(t_path(m.mnt, "X2"), "sq"), "X2 finds x²");
	struct stat st;
	CHECK_ERR(stat(t_path(m.mnt, "x3"), &st), ENOENT, "x3 does not");
	t_umount(&m);
}

static void sec_ascii(void)
{
	t_section("encoding=ascii: only A-Z fold");
	const char *src = t_newdir("src-ascii");
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,encoding=ascii"))
		return;
	CHECK_OK(mkfile(t_path(m.mnt, "abc"), "a"), "create abc");
	CHECK(t_file_is(t_path(m.mnt, "ABC"), "a"), "ABC finds abc");
	CHECK_OK(mkfile(t_path(m.mnt, "caf\xc3\xa9"), "c"), "create café (NFC)");
	struct stat st;
	CHECK_ERR(stat(t_path(m.mnt, "CAF\xc3\x89"), &st), ENOENT, "CAFÉ does not fold under ascii");
	CHECK_ERR(stat(t_path(m.mnt, "cafe\xcc\x81"), &st), ENOENT, "NFD café is distinct under ascii");
	CHECK(t_file_is(t_path(m.mnt, "CAF\xc3\xa9"), "c"), "CAFé (ASCII part folded) finds it");
	t_umount(&m);
}

static void sec_ignorables(void)
{
	t_section("ignorables: Default_Ignorable_Code_Point ignored");
	const char *src = t_newdir("src-ign");
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,ignorables"))
		return;
	CHECK_OK(mkfile(t_path(m.mnt, "zw\xe2\x80\x8bsp"), "z"), "create zw<U+200B>sp");
	CHECK(t_file_is(t_path(m.mnt, "ZWSP"), "z"), "ZWSP finds it");
	CHECK_OK(mkfile(t_path(m.mnt, "soft\xc2\xadhyphen"), "s"), "create soft<U+00AD>hyphen");
	CHECK(t_file_is(t_path(m.mnt, "softhyphen"), "s"), "softhyphen finds it");
	CHECK_ERR(mkdir(t_path(m.mnt, "zwsp"), 0755), EEXIST, "mkdir zwsp: EEXIST");
	t_umount(&m);
}

/* ---- 19. daemon mode, mount options, CLI ------------------------------ */

static void sec_daemon(void)
{
	t_section("daemon mode (no -f)");
	const char *src = t_newdir("src-daemon");
	struct t_mount m = {0};
	if (t_mount_daemon(&m, src, "casefold") == 0) {
		CHECK(1, "foldfs without -f forks, exits 0, leaves the mount live");
		CHECK_OK(mkfile(t_path(m.mnt, "Daemon"), "d"), "create Daemon");
		CHECK(t_file_is(t_path(m.mnt, "DAEMON"), "d"), "DAEMON finds it");
		t_umount(&m);
		CHECK(!t_is_mounted(m.mnt), "unmounted");
	}
}

static void sec_options(void)
{
	t_section("mount-only options accepted; mount -t fuse.foldfs");
	const char *src = t_newdir("src-opts");
	struct t_mount m = {0};
	int r = t_mount(&m, src, "casefold,rw,nofail,_netdev,defaults,noauto,auto,user,users,"
				 "nouser,owner,group,x-systemd.automount,comment=x");
	CHECK(r == 0, "rw,nofail,_netdev,defaults,noauto,auto,user,users,nouser,owner,group,"
		      "x-systemd.automount,comment=x accepted");
	if (r == 0) {
		CHECK_OK(mkfile(t_path(m.mnt, "Opt"), "o"), "create Opt");
		CHECK(t_file_is(t_path(m.mnt, "OPT"), "o"), "OPT finds it");
		t_umount(&m);
	}
	char out[4096];
	r = t_mount_refused(src, "casefold,no_such_option_xyz", out, sizeof out);
	CHECK(r != 0, "an unknown option is refused (exit %d): %s", r, out);
	/* a refused first mount writes no record: a misspelled option must
	 * not pin the tree to the defaults */
	{
		const char *fresh = t_newdir("src-opts-typo");
		struct stat rst;
		r = t_mount_refused(fresh, "casefold,encodng=utf8-15.0", out, sizeof out);
		CHECK(r != 0 && stat(t_path(fresh, ".foldfs"), &rst) == -1,
		      "a mount refused for a misspelled option wrote no record (exit %d)", r);
		/* refused by the kernel (blksize is for fuseblk only): the
		 * record written just before is taken back */
		r = t_mount_refused(fresh, "casefold,blksize=4096", out, sizeof out);
		CHECK(r != 0 && stat(t_path(fresh, ".foldfs"), &rst) == -1,
		      "a mount the kernel refused left no record (exit %d): %s", r, out);
		/* two encodings: which one to record for good is not guessed
		 * (the last one once was, silently) */
		r = t_mount_refused(fresh, "casefold,encoding=utf8-15.0,encoding=utf8-12.1", out,
				    sizeof out);
		CHECK(r == 1 && contains(out, "both given") &&
			      stat(t_path(fresh, ".foldfs"), &rst) == -1,
		      "encoding=utf8-15.0,encoding=utf8-12.1: refused, no record (exit %d): %s", r,
		      out);
		/* the same encoding twice, spelled two ways, is one */
		r = t_mount(&m, fresh, "casefold,encoding=utf8-15.0,encoding=utf8-15.0.0");
		CHECK(r == 0, "the corrected mount then works (%d)", r);
		if (r == 0)
			t_umount(&m);
	}
	/* a bad value is refused with a message that names the option */
	static const char *const badval[][2] = {
		{"casefold,cache=sometimes", "cache=sometimes"},
		{"casefold,watch=fanotify", "watch=fanotify"},
		{"casefold,timeout=-1", "timeout=-1"},
		/* the message gives the range, 1e7 being a number >= 0 */
		{"casefold,timeout=1e7", "to 1000000"},
		{"casefold,timeout=soon", "timeout=soon"},
		{"casefold,index_mem=0", "index_mem=0"},
		{"casefold,index_mem=64k", "index_mem=64k"},
		{"casefold,max_watches=-1", "max_watches=-1"},
		{"casefold,max_watches=many", "max_watches=many"},
		{"casefold,max_read=lots", "max_read=lots"},
		/* mount -o remount runs the helper again: say what to do */
		{"casefold,remount", "unmount it and mount it again"},
		/* the kernel refuses them, and the message blamed /dev/fuse */
		{"casefold,fsname=", "fsname= needs a name"},
		{"nofold,subtype=", "subtype= needs a name"},
		/* a folding view under another type would not be known as
		 * one: read through, its tree would seem to have no record */
		{"casefold,subtype=other", "only for -o nofold"},
		{"subtype=foldfs,subtype=x", "only for -o nofold"},
		/* refused by libfuse, as foldfs(8) lists them */
		{"casefold,relatime", "relatime"},
		{"casefold,norelatime", "norelatime"},
		{"casefold,strictatime", "strictatime"},
		{"casefold,nostrictatime", "nostrictatime"},
		{"casefold,lazytime", "lazytime"},
		{"casefold,nolazytime", "nolazytime"},
		{"casefold,diratime", "diratime"},
		{"casefold,nodiratime", "nodiratime"},
		{"casefold,iversion", "iversion"},
		{"casefold,noiversion", "noiversion"},
		{"casefold,mand", "mand"},
		{"casefold,nomand", "nomand"},
		{"casefold,silent", "silent"},
		{"casefold,loud", "loud"},
	};
	for (size_t i = 0; i < sizeof badval / sizeof badval[0]; i++) {
		r = t_mount_refused(src, badval[i][0], out, sizeof out);
		CHECK(r == 1 && strstr(out, badval[i][1]),
		      "-o %s refused (exit %d) naming it: %s", badval[i][1], r, out);
	}

	/* and the ones foldfs(8) says are passed on */
	r = t_mount(&m, src, "casefold,atime,noatime,dev,nodev,suid,nosuid,exec,noexec,sync,async,"
			     "dirsync");
	CHECK(r == 0, "atime,noatime,dev,nodev,suid,nosuid,exec,noexec,sync,async,dirsync "
		      "accepted (%d)", r);
	if (r == 0)
		t_umount(&m);

	/* noatime and ro: the kernel keeps no access times for FUSE, and
	 * the daemon's reads set SOURCE's (relatime: one older than a day),
	 * which such a mount of a local file system leaves alone */
	{
		const char *asrc = t_newdir("src-opts-atime");
		const char *f = t_path(asrc, "Afile"), *d = t_path(asrc, "Adir");
		/* an append-only file opens for writing only with O_APPEND,
		 * the daemon's second try (ops_file.c): noatime there too */
		const char *a = t_path(asrc, "Aapp");
		const struct timespec old[2] = {{946684800, 0}, {0, UTIME_OMIT}};
		static const char *const aopts[] = {"casefold", "casefold,noatime",
						    "casefold,ro", "casefold,noatime,atime"};
		char buf[64];
		struct stat fs, ds, as;
		CHECK_OK(mkfile(f, "a"), "SOURCE/Afile");
		CHECK_OK(mkdir(d, 0755), "SOURCE/Adir");
		CHECK_OK(mkfile(a, "a"), "SOURCE/Aapp");
		for (size_t i = 0; i < sizeof aopts / sizeof aopts[0]; i++) {
			int keep = i == 1 || i == 2, app;
			utimensat(AT_FDCWD, f, old, 0);
			utimensat(AT_FDCWD, d, old, 0);
			t_set_flags(a, 0);
			utimensat(AT_FDCWD, a, old, 0);
			app = i != 2 && t_set_flags(a, FS_APPEND_FL) == 0;
			if (t_mount(&m, asrc, aopts[i]) != 0)
				continue;
			ssize_t n = t_read_file(t_path(m.mnt, "AFILE"), buf, sizeof buf);
			long cnt = t_dir_count(t_path(m.mnt, "ADIR"));
			ssize_t an = -1;
			if (app) {
				int afd = open(t_path(m.mnt, "AAPP"), O_RDWR | O_APPEND);
				an = afd < 0 ? -1 : pread(afd, buf, sizeof buf, 0);
				if (afd >= 0)
					close(afd);
			}
			t_umount(&m);
			int st = stat(f, &fs) | stat(d, &ds) | stat(a, &as);
			CHECK(n == 1 && cnt == 0 && st == 0 &&
				      (fs.st_atime == 946684800) == keep &&
				      (ds.st_atime == 946684800) == keep,
			      "-o %s: reading a file and listing a directory %s SOURCE's "
			      "access times (file %lld, directory %lld)",
			      aopts[i], keep ? "leaves" : "sets", (long long)fs.st_atime,
			      (long long)ds.st_atime);
			if (app)
				CHECK(an == 1 && (as.st_atime == 946684800) == keep,
				      "-o %s: reading an append-only file open O_RDWR|O_APPEND "
				      "%s its access time (read %zd, atime %lld)", aopts[i],
				      keep ? "leaves" : "sets", an, (long long)as.st_atime);
		}
		t_set_flags(a, 0);
	}

	/* a daemon killed with SIGKILL leaves its mount (ENOTCONN): mounting
	 * there again, --info and a mount of it as SOURCE say to unmount it */
	r = t_mount(&m, src, "casefold");
	if (r == 0) {
		kill(m.pid, SIGKILL);
		waitpid(m.pid, NULL, 0);
		m.pid = 0;
		t_sleep_ms(1200); /* the root's attributes stale (timeout 1) */
		const char *again[] = {t_opt.foldfs, src, m.mnt, "-o", "casefold", NULL};
		r = t_run(again, out, sizeof out, 30);
		CHECK(r == 1 && contains(out, "not connected") && contains(out, "unmount it"),
		      "foldfs SRC MNT over a dead view: says to unmount it (exit %d): %s", r,
		      out);
		r = run_tool(out, sizeof out, t_opt.foldfs, "--info", m.mnt, NULL, NULL);
		CHECK(r == 1 && contains(out, "unmount it"),
		      "foldfs --info on a dead view: says to unmount it (exit %d): %s", r, out);
		r = t_mount_refused(m.mnt, "casefold", out, sizeof out);
		CHECK(r == 1 && contains(out, "unmount it"),
		      "a dead view as SOURCE: says to unmount it (exit %d): %s", r, out);
		t_umount(&m);
	}

	/* max_read: libfuse fails INIT unless init() asks for the same size,
	 * after a background daemon has detached (exit 0, no mount) */
	{
		static char big[200001], back[sizeof big + 1];
		for (size_t i = 0; i + 1 < sizeof big; i++)
			big[i] = (char)('a' + i % 23);
		CHECK_OK(t_write_file(t_path(src, "big"), big), "SOURCE/big");
		r = t_mount_daemon(&m, src, "casefold,max_read=65536");
		CHECK(r == 0, "a background mount with max_read=65536 is live");
		if (r == 0) {
			ssize_t n = t_read_file(t_path(m.mnt, "BIG"), back, sizeof back);
			CHECK(n == (ssize_t)sizeof big - 1 && !memcmp(back, big, sizeof big),
			      "200,000 bytes read through it in 64 KiB requests (%zd)", n);
			t_umount(&m);
		}
	}

	/* a view as SOURCE (stacked, or a tree mounted over itself twice)
	 * hides the tree's record: refused, as are --info and foldfs-check
	 * there, rather than the defaults assumed */
	r = t_mount(&m, src, "casefold");
	CHECK(r == 0, "mount for the stacking checks");
	if (r == 0) {
		/* foldfs-check: $FOLDFS_CHECK (the sanitizer suites build only
		 * the daemon), else the one beside the daemon */
		char chk[4096];
		snprintf(chk, sizeof chk, "%s", t_opt.foldfs);
		char *sl = strrchr(chk, '/');
		snprintf(sl ? sl + 1 : chk, sizeof chk - (size_t)(sl ? sl + 1 - chk : 0),
			 "foldfs-check");
		if (getenv("FOLDFS_CHECK"))
			snprintf(chk, sizeof chk, "%s", getenv("FOLDFS_CHECK"));
		r = t_mount_refused(m.mnt, "casefold", out, sizeof out);
		CHECK(r == 1 && contains(out, "inside a foldfs view"),
		      "a foldfs view as SOURCE is refused (exit %d): %s", r, out);
		r = run_tool(out, sizeof out, t_opt.foldfs, "--info", m.mnt, NULL, NULL);
		CHECK(r == 1 && contains(out, "inside a foldfs view"),
		      "foldfs --info on a view says so (exit %d): %s", r, out);
		r = access(chk, X_OK) ? -2 : run_tool(out, sizeof out, chk, m.mnt, NULL, NULL, NULL);
		CHECK(r == 8 && contains(out, "inside a foldfs view"),
		      "foldfs-check on a view refuses, exit 8 (%d): %s", r, out);
		/* the running daemon keeps the encoding it read: a new record
		 * under it would let names in that collide under the new one */
		char before[1024], after[1024];
		ssize_t nb = t_read_file(t_path(src, ".foldfs"), before, sizeof before);
		r = run_tool(out, sizeof out, chk, "-q", "--set-encoding", "utf8-15.0", src);
		CHECK(r == 4 && contains(out, "unmount every view") && nb > 0 &&
			      t_read_file(t_path(src, ".foldfs"), after, sizeof after) == nb &&
			      !strcmp(before, after),
		      "--set-encoding while mounted: refused, exit 4, record kept (%d): %s", r, out);
		t_umount(&m);
		r = run_tool(out, sizeof out, chk, "-q", "--set-encoding", "utf8-15.0", src);
		CHECK(r == 0 && t_read_file(t_path(src, ".foldfs"), after, sizeof after) > 0 &&
			      contains(after, "encoding=utf8-15.0.0"),
		      "--set-encoding once unmounted: done (%d): %s", r, out);

		/* a view mounted over its own SOURCE: the path the messages
		 * named (the view's fsname) is the view itself */
		const char *self = t_newdir("src-opts-self");
		const char *own[] = {t_opt.foldfs, self, self, "-o", "casefold", NULL};
		r = t_run(own, out, sizeof out, 30);
		CHECK(r == 0 && t_is_mounted(self), "foldfs SRC SRC: mounted over itself (%d): %s",
		      r, out);
		if (t_is_mounted(self)) {
			r = t_mount_refused(self, "casefold", out, sizeof out);
			CHECK(r == 1 && contains(out, "unmount the view"),
			      "that view as SOURCE: refused, saying to unmount it (exit %d): %s",
			      r, out);
			r = run_tool(out, sizeof out, t_opt.foldfs, "--info", self, NULL, NULL);
			CHECK(r == 1 && contains(out, "unmount the view"),
			      "foldfs --info there says to unmount it (exit %d): %s", r, out);
			r = access(chk, X_OK) ? -2 : run_tool(out, sizeof out, chk, self, NULL, NULL, NULL);
			CHECK(r == 8 && contains(out, "unmount the view"),
			      "foldfs-check there: exit 8, says to unmount it (%d): %s", r, out);
			const char *z[] = {"fusermount3", "-u", self, NULL};
			t_run(z, NULL, 0, 10);
			if (t_is_mounted(self)) {
				const char *zz[] = {"umount", "-l", self, NULL};
				t_run(zz, NULL, 0, 10);
			}
		}
	}

	/* mount(8) resets PATH before it runs mount.fuse3, so a foldfs that is
	 * not installed is named by its path with the "PROGRAM#SOURCE" form;
	 * mount.fuse3 itself (as /etc/fstab's type fuse.foldfs makes mount(8)
	 * call it) finds "foldfs" on our PATH. */
	char dir[4096], path[8192];
	snprintf(dir, sizeof dir, "%s", t_opt.foldfs);
	char *sl = strrchr(dir, '/');
	if (sl)
		*sl = 0;
	snprintf(path, sizeof path, "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	/* how 2: with drop_privileges mount.fuse3 mounts itself and hands
	 * foldfs the /dev/fuse descriptor as MOUNTPOINT /dev/fd/N */
	for (int how = 0; how < 3; how++) {
		const char *mnt = t_newdir("mnt-mount8");
		char spec[8300];
		snprintf(spec, sizeof spec, "%s#%s", t_opt.foldfs, src);
		const char *via_mount[] = {"mount", "-t", "fuse", spec, mnt, "-o",
					   "casefold,nofail,_netdev", NULL};
		const char *via_helper[] = {"mount.fuse3", src, mnt, "-t", "fuse.foldfs", "-o",
					    how == 1 ? "casefold,rw,defaults,nofail,_netdev,noauto,users"
						     : "casefold,drop_privileges",
					    NULL};
		const char *what = how == 2 ? "mount.fuse3 SRC MNT -t fuse.foldfs -o casefold,drop_privileges"
				   : how    ? "mount.fuse3 SRC MNT -t fuse.foldfs -o casefold,rw,defaults,..."
					    : "mount -t fuse FOLDFS#SRC MNT -o casefold,nofail,_netdev";
		r = t_run(how ? via_helper : via_mount, out, sizeof out, 30);
		CHECK(r == 0 && t_is_mounted(mnt), "%s (exit %d) %s", what, r, out);
		if (!t_is_mounted(mnt))
			continue;
		CHECK(t_file_is(t_path(mnt, "opt"), "o"), "opt resolves through that mount");
		if (r != 0) {
			/* a helper's mount whose daemon refused: not served */
			const char *z[] = {"umount", "-l", mnt, NULL};
			t_run(z, NULL, 0, 10);
			continue;
		}
		const char *uargv[] = {"umount", mnt, NULL};
		r = t_run(uargv, out, sizeof out, 30);
		CHECK(r == 0 && !t_is_mounted(mnt), "umount MNT (exit %d) %s", r, out);
		if (t_is_mounted(mnt)) {
			const char *z[] = {"fusermount3", "-u", "-z", mnt, NULL};
			t_run(z, NULL, 0, 10);
		}
	}
}

/* No raw ESC, C1 CSI (U+009B) or RIGHT-TO-LEFT OVERRIDE (U+202E) in out,
 * and an escaped ESC: a hostile string was repeated, made safe. */
static int escaped_only(const char *out)
{
	return !strchr(out, '\x1b') && !contains(out, "\xc2\x9b") &&
	       !contains(out, "\xe2\x80\xae") && contains(out, "\\x1b");
}

static void sec_cli(void)
{
	t_section("command line: --help, --version, bad usage");
	char out[16384];
	int rc = run_tool(out, sizeof out, t_opt.foldfs, "--help", NULL, NULL, NULL);
	CHECK(rc == 0 && contains(out, "casefold") && contains(out, "encoding") &&
		      contains(out, "--info"),
	      "--help exits 0 and documents casefold, encoding, --info (%d)", rc);
	rc = run_tool(out, sizeof out, t_opt.foldfs, "--version", NULL, NULL, NULL);
	CHECK(rc == 0 && strlen(out) > 0, "--version exits 0 and prints something (%d)", rc);
	rc = run_tool(out, sizeof out, t_opt.foldfs, NULL, NULL, NULL, NULL);
	CHECK(rc != 0 && strlen(out) > 0, "no arguments: non-zero exit with a message (%d)", rc);
	rc = run_tool(out, sizeof out, t_opt.foldfs, "/nonexistent-src-xyz",
		      t_newdir("mnt-cli"), "-f", NULL);
	CHECK(rc != 0 && rc != -1 && strlen(out) > 0,
	      "missing SOURCE: non-zero exit with a message (%d) %s", rc, out);

	/* Options, paths and names repeated in a message reach the terminal
	 * escaped: a SOURCE or a --respell PATH may come from an untrusted
	 * tree.  (The output is not printed here: it may be raw.) */
	const char *mnt = t_newdir("mnt-cli-esc"), *edir = t_newdir("cli-esc");
	rc = run_tool(out, sizeof out, t_opt.foldfs, "--x\x1b[2J\xe2\x80\xae", "/a", mnt,
		      NULL);
	CHECK(rc == 1 && escaped_only(out) && contains(out, "\\xe2\\x80\\xae"),
	      "unknown option with ESC and U+202E: refused, escaped (%d)", rc);
	rc = run_tool(out, sizeof out, t_opt.foldfs, "-o", "cache=\x1b[2J", "/a", mnt);
	CHECK(rc == 1 && escaped_only(out) && contains(out, "cache=\\x1b[2J"),
	      "-o cache=<ESC>[2J: refused, escaped (%d)", rc);
	/* one libfuse would take in and repeat raw ("unknown option(s)") */
	rc = run_tool(out, sizeof out, t_opt.foldfs, "-o", "bogus\x1b[2J\xc2\x9b", t_opt.root,
		      mnt);
	CHECK(rc == 1 && escaped_only(out) && contains(out, "bogus\\x1b[2J\\xc2\\x9b") &&
		      !t_is_mounted(mnt),
	      "-o <an option libfuse does not know, with ESC and C1 CSI>: refused, escaped (%d)",
	      rc);
	rc = run_tool(out, sizeof out, t_opt.foldfs, "/nonexistent-\x1b[2J-src", mnt, NULL,
		      NULL);
	CHECK(rc == 1 && escaped_only(out) && contains(out, "-\\x1b[2J-src"),
	      "missing SOURCE named with ESC: refused, escaped (%d)", rc);
	const char *rpath[] = {t_path(edir, "f\x1b[1m\xc2\x9b" "1m"),
			       "/nonexistent-\x1b[1m-dir/f\xc2\x9b"};
	for (int i = 0; i < 2; i++) {
		rc = run_tool(out, sizeof out, t_opt.foldfs, "--respell", rpath[i], "F", NULL);
		CHECK(rc == 1 && escaped_only(out) && contains(out, "\\xc2\\x9b"),
		      "--respell PATH with ESC and C1 CSI (%s): exit 1, escaped (%d)",
		      i ? "no such directory" : "not on a foldfs mount", rc);
	}
	rc = run_tool(out, sizeof out, t_opt.foldfs, "--respell", t_path(edir, "f"),
		      "a/\x1b[2J", NULL);
	CHECK(rc == 1 && escaped_only(out), "--respell NEWNAME with ESC: exit 1, escaped (%d)",
	      rc);
	/* and the debug log, whose lines name what callers create (the
	 * workers write it: escaped on their own stacks) */
	{
		const char *dsrc = t_newdir("src-cli-debug");
		struct t_mount dm = {0};
		if (!t_mount(&dm, dsrc, "casefold,debug")) {
			struct stat st;
			CHECK_OK(t_write_file(t_path(dm.mnt, "n\x1b[2J\xe2\x80\xae\xc2\x9b.txt"),
					      "x"),
				 "create a name with ESC, U+202E and C1 CSI through the mount");
			CHECK(lstat(t_path(dm.mnt, "N\x1b[2J\xe2\x80\xae\xc2\x9b.TXT"), &st) == 0,
			      "found by another spelling");
			CHECK(t_log_count(&dm, "n\\x1b[2J\\xe2\\x80\\xae\\xc2\\x9b.txt") > 0 &&
				      t_log_count(&dm, "\x1b") == 0 &&
				      t_log_count(&dm, "\xe2\x80\xae") == 0 &&
				      t_log_count(&dm, "\xc2\x9b") == 0,
			      "-o debug: the log names it escaped, nothing raw");
			t_umount(&dm);
		}
	}

	/* MOUNTPOINT inside SOURCE: refused, also when SOURCE is named by a
	 * bind mount of it (the view would contain itself; a mount there
	 * could not even be unmounted, its daemon holding it busy) */
	const char *src = t_newdir("src-cli"), *alias = t_newdir("alias-cli");
	const char *sub = t_path(src, "a/b");
	CHECK_OK(mkdir(t_path(src, "a"), 0755) || mkdir(sub, 0755), "SOURCE/a/b");
	for (int how = 0; how < 2; how++) {
		const char *from = src;
		if (how) {
			const char *bind[] = {"mount", "--bind", src, alias, NULL};
			if (t_run(bind, out, sizeof out, 30) != 0) {
				CHECK(0, "mount --bind SOURCE ALIAS: %s", out);
				break;
			}
			from = alias;
		}
		rc = run_tool(out, sizeof out, t_opt.foldfs, from, sub, "-o", "casefold");
		CHECK(rc == 1 && contains(out, "inside SOURCE") && !t_is_mounted(sub),
		      "MOUNTPOINT SOURCE/a/b, SOURCE given as %s: refused (%d) %s",
		      how ? "a bind mount of it" : "itself", rc, out);
		if (t_is_mounted(sub)) {
			const char *z[] = {"umount", "-l", sub, NULL};
			t_run(z, NULL, 0, 10);
		}
		if (how) {
			const char *z[] = {"umount", alias, NULL};
			t_run(z, NULL, 0, 10);
		}
	}
}

/* ---- 20. respelling: FOLDFS_IOC_RESPELL and foldfs --respell ---------- */


/* How many of the spellings do not stat as inode ino (right now). */
static int stale_spellings(const char *dir, const char *const *sp, ino_t ino)
{
	int bad = 0;
	for (int i = 0; sp[i]; i++)
		if (t_ino(t_path(dir, sp[i])) != ino) {
			t_note("%s: inode %lu, want %lu", t_q(sp[i]),
			       (unsigned long)t_ino(t_path(dir, sp[i])), (unsigned long)ino);
			bad++;
		}
	return bad;
}

/* A fresh SOURCE with a folding directory "fold" (chattr +F through the
 * view) and a plain one "plain". */
static int respell_mount(struct t_mount *m, const char *opts)
{
	if (t_mount(m, t_newdir("src-respell"), opts))
		return -1;
	const char *fold = t_path(m->mnt, "fold");
	CHECK_OK(mkdir(fold, 0755), "[%s] mkdir fold", opts);
	CHECK_OK(t_set_casefold(fold, 1), "[%s] chattr +F fold", opts);
	CHECK_OK(mkdir(t_path(m->mnt, "plain"), 0755), "[%s] mkdir plain", opts);
	return 0;
}

/* What must hold in every cache mode: the stored spelling changes, and
 * every spelling -- also those the kernel has just cached -- answers
 * right at once, also where the change moves a collision group's winner. */
static void respell_core(struct t_mount *m, const char *mode)
{
	const char *d = t_path(m->mnt, "fold"), *sd = t_path(m->src, "fold");
	static const char *const foo[] = {"Foo", "foo", "FOO", "fOO", NULL};

	CHECK_OK(mkfile(t_path(d, "Foo"), "foo data"), "[%s] create Foo", mode);
	ino_t ino = t_ino(t_path(d, "Foo"));
	int fd = open(t_path(d, "foo"), O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0, "[%s] open foo", mode);
	CHECK(stale_spellings(d, foo, ino) == 0, "[%s] before: Foo foo FOO fOO are one inode", mode);
	long n = t_dir_count(d);
	CHECK_OK(t_respell(d, "foo", "FOO"), "[%s] FOLDFS_IOC_RESPELL foo -> FOO (stored Foo)", mode);
	CHECK(t_dir_has(sd, "FOO") && !t_dir_has(sd, "Foo"), "[%s] SOURCE now stores FOO, not Foo",
	      mode);
	CHECK(t_dir_has(d, "FOO") && !t_dir_has(d, "Foo") && t_dir_count(d) == n,
	      "[%s] readdir of the mount lists FOO, not Foo, same count", mode);
	CHECK(stale_spellings(d, foo, ino) == 0,
	      "[%s] right after: Foo foo FOO fOO still stat the same inode", mode);
	CHECK(t_file_is(t_path(d, "Foo"), "foo data"), "[%s] old spelling Foo reads the data", mode);
	if (fd >= 0) {
		struct stat st;
		CHECK(fstat(fd, &st) == 0 && st.st_ino == ino && st.st_nlink == 1,
		      "[%s] the fd opened before is the same file, still linked", mode);
		CHECK(pwrite(fd, "FOO", 3, 0) == 3, "[%s] write through the old fd", mode);
		close(fd);
		CHECK(t_file_is(t_path(d, "FOO"), "FOO data"), "[%s] FOO reads what the fd wrote", mode);
	}

	/* A directory: entries of directories are cached longest. */
	CHECK_OK(mkdir(t_path(d, "Sub"), 0755), "[%s] mkdir Sub", mode);
	CHECK_OK(mkfile(t_path(d, "Sub/in"), "in"), "[%s] create Sub/in", mode);
	static const char *const sub[] = {"Sub", "sub", "SUB", NULL};
	ino_t dino = t_ino(t_path(d, "sub"));
	CHECK(stale_spellings(d, sub, dino) == 0, "[%s] Sub sub SUB are one directory", mode);
	CHECK_OK(t_respell(d, "SUB", "sub"), "[%s] respell SUB -> sub (stored Sub)", mode);
	CHECK(t_dir_has(sd, "sub") && !t_dir_has(sd, "Sub"), "[%s] SOURCE stores sub", mode);
	CHECK(stale_spellings(d, sub, dino) == 0, "[%s] right after: Sub sub SUB same directory", mode);
	CHECK(t_file_is(t_path(d, "Sub/IN"), "in"), "[%s] Sub/IN still resolves", mode);

	/* Collision group made directly in SOURCE: README wins for other
	 * spellings until it is respelled readme; then Readme wins. */
	t_write_file(t_path(sd, "Readme"), "x");
	t_write_file(t_path(sd, "README"), "u");
	CHECK(t_file_is(t_path(d, "rEADME"), "u") && t_file_is(t_path(d, "README"), "u") &&
		      t_file_is(t_path(d, "Readme"), "x"),
	      "[%s] before: rEADME and README find README, Readme itself", mode);
	CHECK_ERR(t_respell(d, "README", "Readme"), EEXIST,
		  "[%s] respell README -> Readme: another entry is stored as Readme", mode);
	CHECK(t_dir_has(sd, "README") && t_dir_has(sd, "Readme"), "[%s] EEXIST changed nothing",
	      mode);
	CHECK_OK(t_respell(d, "README", "readme"), "[%s] respell README -> readme", mode);
	CHECK(t_dir_has(sd, "readme") && t_dir_has(sd, "Readme") && !t_dir_has(sd, "README"),
	      "[%s] SOURCE: readme and Readme", mode);
	CHECK(t_file_is(t_path(d, "rEADME"), "x") && t_file_is(t_path(d, "README"), "x"),
	      "[%s] right after: rEADME and README now find the winner Readme (no stale answer)",
	      mode);
	CHECK(t_file_is(t_path(d, "readme"), "u"), "[%s] readme finds the respelled file", mode);

	/* The same with directories (cached entries). */
	char p[4300];
	snprintf(p, sizeof p, "%s/Dd", sd);
	mkdir(p, 0755);
	t_write_file(t_path(p, "f"), "Dd");
	snprintf(p, sizeof p, "%s/DD", sd);
	mkdir(p, 0755);
	t_write_file(t_path(p, "f"), "DD");
	CHECK(t_file_is(t_path(d, "dd/f"), "DD") && t_file_is(t_path(d, "DD/f"), "DD"),
	      "[%s] before: dd/f and DD/f descend into DD", mode);
	CHECK_OK(t_respell(d, "DD", "dd"), "[%s] respell directory DD -> dd", mode);
	CHECK(t_file_is(t_path(d, "DD/f"), "Dd") && t_file_is(t_path(d, "dD/f"), "Dd"),
	      "[%s] right after: DD/f and dD/f descend into the new winner Dd", mode);
	CHECK(t_file_is(t_path(d, "dd/f"), "DD"), "[%s] dd/f descends into the respelled dd", mode);
}

/* Run as uid/gid 4321 in a forked child: rename(2)'s permission rules. */
static void respell_as_user(const char *d, const char *pub, const char *foldfs)
{
	if (setgroups(0, NULL) || setresgid(4321, 4321, 4321) || setresuid(4321, 4321, 4321)) {
		CHECK(0, "setresuid 4321: %s", strerror(errno));
		return;
	}
	CHECK_ERR(t_respell(d, "rootfile", "ROOTFILE"), EACCES,
		  "user: respell in root's 0755 directory -> EACCES");
	CHECK_OK(t_respell(d, "rootfile", "RootFile"),
		 "user: a no-op respell needs no write permission (as rename(2) onto itself)");
	CHECK_ERR(t_respell(pub, "rootowned", "ROOTOWNED"), EPERM,
		  "user: respell root's file in a sticky 1777 directory -> EPERM");
	CHECK_OK(mkfile(t_path(pub, "Mine"), "m"), "user: create pub/Mine");
	CHECK_OK(t_respell(pub, "mine", "MINE"), "user: respell own file in the sticky directory");
	char out[4096];
	if (access(foldfs, X_OK) != 0) {
		/* e.g. the build tree is private to root */
		t_skip("%s is not executable by uid 4321: its refusal not tested", foldfs);
		return;
	}
	int rc = run_tool(out, sizeof out, foldfs, "--respell", t_path(d, "ROOTFILE"), "ROOTFILE",
			  NULL);
	CHECK(rc == 1 && contains(out, "permission denied"),
	      "user: foldfs --respell in root's directory: exit 1, says permission denied (%d: %s)",
	      rc, out);
}

/* uid 4321 in 70 supplementary groups, the last (the kernel lists them
 * sorted) 4400, which owns d/grp (0757: its members may not write there,
 * others may) and d/grp2 (0070: only its members may).  The kernel
 * checks all 70 groups; so must SOURCE when the daemon acts as the
 * caller, and the daemon asks libfuse for all of them, not the first 64. */
static void many_groups_user(const char *d)
{
	gid_t groups[70];

	for (int i = 0; i < 69; i++)
		groups[i] = 3000 + (gid_t)i;
	groups[69] = 4400;
	if (setgroups(70, groups) || setresgid(4321, 4321, 4321) ||
	    setresuid(4321, 4321, 4321)) {
		CHECK(0, "setresuid 4321 in 70 groups: %s", strerror(errno));
		return;
	}
	CHECK_ERR(t_respell(t_path(d, "grp"), "gfile", "GFILE"), EACCES,
		  "70 groups: respell where the 70th group (mode r-x) denies "
		  "what others may -> EACCES, as rename(2) in SOURCE");
	CHECK_OK(mkfile(t_path(d, "grp2/Made"), "m"),
		 "70 groups: create where only the 70th group may write");
}

/* -s: a respell waits for the kernel's cache to be told, which takes the
 * directory's kernel lock; a process holding it may be waiting for the
 * one worker, the respell's own (a lookup of a missing name there).
 * Until session 36 that hung the mount within a second; the wait is
 * bounded now.  100 respells that each change what the old spelling
 * finds (FOo and foo are both stored), beside such lookups, must finish
 * -- within two minutes, a deadlock guard rather than a timing. */
static void respell_single(void)
{
	struct t_mount k = {0};
	char d[PATH_MAX];
	int st = -1, done = 0;

	k.single = 1;
	if (respell_mount(&k, "cache=auto"))
		return;
	snprintf(d, sizeof d, "%s", t_path(k.mnt, "fold"));
	CHECK(t_write_file(t_path(k.src, "fold/FOo"), "1") == 0 &&
		      t_write_file(t_path(k.src, "fold/foo"), "2") == 0,
	      "[-s] SOURCE: FOo and foo");
	fflush(stdout);
	pid_t looker = fork();
	if (looker == 0) {
		char p[PATH_MAX + 16];
		struct stat sb;
		for (unsigned i = 0;; i++) {
			snprintf(p, sizeof p, "%s/nx%u", d, i);
			(void)stat(p, &sb);
		}
	}
	if (looker > 0)
		t_track_child(looker);
	pid_t speller = fork();
	if (speller == 0) {
		for (int i = 0; i < 50; i++)
			if (t_respell(d, "foo", "fOO") || t_respell(d, "fOO", "foo"))
				_exit(1);
		_exit(0);
	}
	if (speller > 0)
		t_track_child(speller);
	for (int i = 0; speller > 0 && i < 1200 && !done; i++) {
		if (waitpid(speller, &st, WNOHANG) == speller)
			done = 1;
		else
			usleep(100 * 1000);
	}
	CHECK(done && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "[-s] 100 respells beside lookups of missing names: all done, no deadlock");
	if (speller > 0 && !done) {
		kill(speller, SIGKILL);
		waitpid(speller, NULL, 0);
	}
	if (looker > 0) {
		kill(looker, SIGKILL);
		waitpid(looker, NULL, 0);
	}
	CHECK(t_dir_has(t_path(k.src, "fold"), "foo") && t_dir_has(t_path(k.src, "fold"), "FOo"),
	      "[-s] SOURCE: foo and FOo again");
	t_umount(&k);
}

static void sec_respell(void)
{
	t_section("respell: FOLDFS_IOC_RESPELL changes only the stored spelling");
	static const char *const modes[] = {"auto", "epoch", "none"};
	char opts[64], out[8192];
	struct t_mount m = {0};
	for (int i = 1; i < 3; i++) {
		struct t_mount k = {0};
		snprintf(opts, sizeof opts, "cache=%s", modes[i]);
		if (respell_mount(&k, opts) == 0) {
			respell_core(&k, opts);
			t_umount(&k);
		}
	}
	respell_single();
	if (respell_mount(&m, "allow_other"))
		return;
	respell_core(&m, "allow_other (cache=auto)");
	const char *d = t_path(m.mnt, "fold"), *sd = t_path(m.src, "fold");
	const char *pl = t_path(m.mnt, "plain");

	/* No-ops, and names that are not the same name. */
	CHECK_OK(t_respell(d, "FOO", "FOO"), "respell FOO -> FOO (already stored so): no-op, 0");
	CHECK_OK(t_respell(d, "foo", "FOO"), "respell foo -> FOO (stored FOO): no-op, 0");
	CHECK(t_dir_has(sd, "FOO") && !t_dir_has(sd, "foo"), "no-ops left FOO alone");
	CHECK_ERR(t_respell(d, "FOO", "bar"), EINVAL, "respell FOO -> bar (not equivalent)");
	CHECK_ERR(t_respell(d, "FOO", "FOO2"), EINVAL, "respell FOO -> FOO2 (not equivalent)");
	CHECK(t_dir_has(sd, "FOO") && !t_dir_has(sd, "bar") && !t_dir_has(sd, "FOO2"),
	      "refused respells changed nothing");
	CHECK_ERR(t_respell(d, "nothere", "NOTHERE"), ENOENT, "respell of a missing name: ENOENT");
	CHECK_ERR(t_respell(d, "FOO", "a/b"), EINVAL, "new name with '/': EINVAL");
	CHECK_ERR(t_respell(d, "FOO", ""), EINVAL, "empty new name: EINVAL");
	CHECK_ERR(t_respell(d, "..", ".."), EINVAL, "from ..: EINVAL");
	{
		struct foldfs_respell r;
		memset(&r, 'a', sizeof r.from);
		snprintf(r.to, sizeof r.to, "A");
		int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		CHECK_ERR(ioctl(fd, FOLDFS_IOC_RESPELL, &r), ENAMETOOLONG,
			  "from without a NUL in its 256 bytes: ENAMETOOLONG");
		if (fd >= 0)
			close(fd);
	}

	/* Unicode: normalization and full case folding change the bytes. */
	CHECK_OK(mkfile(t_path(d, "caf\xc3\xa9"), "c"), "create café (NFC)");
	ino_t cafe = t_ino(t_path(d, "caf\xc3\xa9"));
	CHECK_OK(t_respell(d, "CAF\xc3\x89", "cafe\xcc\x81"), "respell CAFÉ -> café in NFD");
	CHECK(t_dir_has(sd, "cafe\xcc\x81") && !t_dir_has(sd, "caf\xc3\xa9"),
	      "SOURCE stores the NFD bytes");
	CHECK(t_ino(t_path(d, "caf\xc3\xa9")) == cafe, "NFC café is still the same inode");
	CHECK_OK(mkfile(t_path(d, "Stra\xc3\x9f" "e"), "s"), "create Straße");
	CHECK_OK(t_respell(d, "strasse", "STRASSE"), "respell Straße -> STRASSE (ß folds to ss)");
	CHECK(t_dir_has(sd, "STRASSE") && t_file_is(t_path(d, "stra\xc3\x9f" "e"), "s"),
	      "stored STRASSE, straße still finds it");
	CHECK_ERR(t_respell(d, "STRASSE", "strase"), EINVAL, "STRASSE -> strase: EINVAL");

	/* Ill-formed names without strict: only their own bytes. */
	t_write_file(t_path(sd, "blob\xff"), "b");
	CHECK_ERR(t_respell(d, "blob\xff", "BLOB\xff"), EINVAL,
		  "ill-formed blob\\xff -> BLOB\\xff: not equivalent, EINVAL");
	CHECK_OK(t_respell(d, "blob\xff", "blob\xff"), "ill-formed name onto itself: no-op");

	/* Not a folding directory, not a directory, not foldfs. */
	CHECK_OK(mkfile(t_path(pl, "Foo"), "p"), "create plain/Foo");
	CHECK_ERR(t_respell(pl, "Foo", "FOO"), EINVAL, "respell in a plain directory: EINVAL");
	CHECK(t_dir_has(t_path(m.src, "plain"), "Foo"), "plain/Foo unchanged");
	{
		struct foldfs_respell r;
		memset(&r, 0, sizeof r);
		snprintf(r.from, sizeof r.from, "x");
		snprintf(r.to, sizeof r.to, "X");
		int fd = open(t_path(d, "FOO"), O_RDONLY | O_CLOEXEC);
		CHECK_ERR(ioctl(fd, FOLDFS_IOC_RESPELL, &r), ENOTDIR, "on a regular file: ENOTDIR");
		if (fd >= 0)
			close(fd);
	}
	CHECK_ERR(t_respell(m.src, "fold", "FOLD"), ENOTTY,
		  "on a directory of SOURCE's own file system: ENOTTY (the number is free there)");

	/* A directory respelled while a process works inside it. */
	CHECK_OK(mkdir(t_path(d, "Cwd"), 0755), "mkdir Cwd");
	CHECK_OK(mkfile(t_path(d, "Cwd/inner"), "i"), "create Cwd/inner");
	char here[4096];
	if (CHECK(getcwd(here, sizeof here) && chdir(t_path(d, "cwd")) == 0, "chdir fold/cwd")) {
		ino_t cwdino = t_ino(".");
		CHECK_OK(t_respell(d, "cwd", "CWD"), "respell cwd -> CWD while our cwd is inside it");
		char buf[4096];
		char *g = getcwd(buf, sizeof buf);
		CHECK(g != NULL, "getcwd() inside the respelled directory works (%s)",
		      g ? t_q(buf) : strerror(errno));
		if (g)
			CHECK(t_ino(buf) == cwdino, "the path getcwd() gives is our directory");
		CHECK(t_file_is("inner", "i"), "relative open of inner works");
		CHECK_OK(mkfile("made", "m"), "relative create of made works");
		CHECK(t_ino(".") == cwdino, "'.' is the same directory");
		CHECK(chdir(here) == 0, "chdir back");
	}
	CHECK(t_dir_has(sd, "CWD") && !t_dir_has(sd, "Cwd") && t_dir_has(t_path(sd, "CWD"), "made"),
	      "SOURCE: CWD, with made inside");
	CHECK(t_file_is(t_path(d, "cWd/MADE"), "m"), "cWd/MADE resolves");
	/* entered by its stored spelling: the directory's one dentry, which
	 * the respell must not invalidate (getcwd() would fail for good) */
	if (CHECK(chdir(t_path(d, "CWD")) == 0, "chdir fold/CWD, the stored spelling")) {
		ino_t cwdino = t_ino(".");
		CHECK_OK(t_respell(d, "CWD", "Cwd"), "respell CWD -> Cwd from inside, entered as CWD");
		char buf[4096];
		char *g = getcwd(buf, sizeof buf);
		CHECK(g != NULL && t_ino(buf) == cwdino,
		      "getcwd() there still names our directory (%s)", g ? t_q(buf) : strerror(errno));
		CHECK(chdir(here) == 0, "chdir back");
	}

	/* rename(2)'s permission rules, as an unprivileged user. */
	CHECK_OK(mkfile(t_path(d, "RootFile"), "r"), "create RootFile (root's, 0644)");
	const char *pub = t_path(d, "pub");
	CHECK_OK(mkdir(pub, 0755), "mkdir pub");
	CHECK_OK(chmod(pub, 01777), "chmod 1777 pub");
	CHECK_OK(mkfile(t_path(pub, "RootOwned"), "r"), "create pub/RootOwned");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		respell_as_user(d, pub, t_opt.foldfs);
		_exit(0);
	}
	int st = 0;
	if (pid > 0) {
		t_track_child(pid);
		waitpid(pid, &st, 0);
	}
	CHECK(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "unprivileged child finished");
	struct stat sb;
	CHECK(t_dir_has(sd, "RootFile") && t_dir_has(t_path(sd, "pub"), "RootOwned"),
	      "refused respells left root's names alone");
	CHECK(lstat(t_path(sd, "pub/MINE"), &sb) == 0 && sb.st_uid == 4321 &&
		      !t_dir_has(t_path(sd, "pub"), "Mine"),
	      "SOURCE: the user's file is now MINE, still owned by 4321");

	/* A caller in more than 64 groups. */
	CHECK_OK(mkdir(t_path(d, "grp"), 0755), "mkdir grp");
	CHECK_OK(mkfile(t_path(d, "grp/Gfile"), "g"), "create grp/Gfile");
	CHECK_OK(mkdir(t_path(d, "grp2"), 0755), "mkdir grp2");
	CHECK(chown(t_path(sd, "grp"), 0, 4400) == 0 && chmod(t_path(sd, "grp"), 0757) == 0 &&
		      chown(t_path(sd, "grp2"), 0, 4400) == 0 &&
		      chmod(t_path(sd, "grp2"), 0070) == 0,
	      "SOURCE: grp root:4400 0757, grp2 root:4400 0070");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		many_groups_user(d);
		_exit(0);
	}
	if (pid > 0) {
		t_track_child(pid);
		waitpid(pid, &st, 0);
	}
	CHECK(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "70-group child finished");
	CHECK(t_dir_has(t_path(sd, "grp"), "Gfile") && !t_dir_has(t_path(sd, "grp"), "GFILE"),
	      "SOURCE: grp/Gfile kept its spelling");

	/* mv cannot do it (documented), --respell can. */
	CHECK_OK(mkfile(t_path(d, "MvFile"), "mv"), "create MvFile");
	int rc = run_tool(out, sizeof out, "mv", t_path(d, "MvFile"), t_path(d, "MVFILE"), NULL, NULL);
	t_note("mv MvFile MVFILE: exit %d: %s", rc, out);
	CHECK(t_dir_has(sd, "MvFile") && !t_dir_has(sd, "MVFILE"),
	      "mv MvFile MVFILE leaves the stored spelling MvFile (kernel short-cut)");

	/* The command. */
	const char *ff = t_opt.foldfs;
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "mvfile"), "MVFILE", NULL);
	CHECK(rc == 0 && t_dir_has(sd, "MVFILE") && !t_dir_has(sd, "MvFile"),
	      "foldfs --respell fold/mvfile MVFILE: exit 0, stored MVFILE (%d: %s)", rc, out);
	CHECK_OK(mkdir(t_path(d, "sub/CliDir"), 0755), "mkdir sub/CliDir");
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "SUB/clidir/"), "CLIDIR", NULL);
	CHECK(rc == 0 && t_dir_has(t_path(sd, "sub"), "CLIDIR"),
	      "foldfs --respell fold/SUB/clidir/ CLIDIR (other-case parent, trailing /): exit 0 "
	      "(%d: %s)",
	      rc, out);
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "MVFILE"), "other", NULL);
	CHECK(rc == 1 && contains(out, "not another spelling") && contains(out, "mv "),
	      "not equivalent: exit 1, says so and suggests mv (%d: %s)", rc, out);
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(pl, "Foo"), "FOO", NULL);
	CHECK(rc == 1 && contains(out, "does not fold") && contains(out, "mv "),
	      "plain directory: exit 1, says it does not fold, suggests mv (%d: %s)", rc, out);
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "nothere"), "NOTHERE", NULL);
	CHECK(rc == 1 && contains(out, "no such entry"), "missing entry: exit 1 (%d: %s)", rc, out);
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "readme"), "Readme", NULL);
	CHECK(rc == 1 && contains(out, "already stored"),
	      "collision in SOURCE: exit 1, says another entry is stored so (%d: %s)", rc, out);
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(m.src, "fold"), "FOLD", NULL);
	CHECK(rc == 1 && contains(out, "not on a foldfs mount"),
	      "outside a foldfs mount: exit 1, says so (%d: %s)", rc, out);
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "MVFILE"), "x/MVFILE", NULL);
	CHECK(rc == 1 && contains(out, "bare"), "NEWNAME with '/': exit 1 (%d: %s)", rc, out);
	/* an immutable entry: EPERM, and the message names that cause too */
	int ifl = 0;
	if (t_get_flags(t_path(sd, "MVFILE"), &ifl) == 0 &&
	    t_set_flags(t_path(sd, "MVFILE"), ifl | FS_IMMUTABLE_FL) == 0) {
		rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "MVFILE"), "MvFile",
			      NULL);
		CHECK(rc == 1 && contains(out, "immutable") && t_dir_has(sd, "MVFILE"),
		      "immutable entry: exit 1, says it may be immutable (%d: %s)", rc, out);
		t_set_flags(t_path(sd, "MVFILE"), ifl);
	} else {
		t_skip("SOURCE takes no immutable flag here (%s)", strerror(errno));
	}
	rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "MVFILE"), NULL, NULL);
	CHECK(rc == 1 && contains(out, "--respell PATH NEWNAME"),
	      "missing NEWNAME: exit 1 with the usage (%d)", rc);
	rc = run_tool(out, sizeof out, ff, "--help", NULL, NULL, NULL);
	CHECK(rc == 0 && contains(out, "--respell PATH NEWNAME"), "--help documents --respell");

	/* Read-only mount. */
	t_umount(&m);
	if (t_mount(&m, m.src, "ro") == 0) {
		CHECK_ERR(t_respell(d, "FOO", "foo"), EROFS, "read-only mount: EROFS");
		rc = run_tool(out, sizeof out, ff, "--respell", t_path(d, "FOO"), "foo", NULL);
		CHECK(rc == 1 && contains(out, "read-only"), "read-only: exit 1, says so (%d: %s)",
		      rc, out);
		CHECK(t_dir_has(sd, "FOO"), "nothing changed");
		t_umount(&m);
	}
	/* A read-only bind mount of a read-write view: the daemon cannot
	 * tell (the kernel checks nothing for an ioctl), the tool must */
	if (t_mount(&m, m.src, "") == 0) {
		const char *rb = t_newdir("respell-robind");
		if (mount(m.mnt, rb, NULL, MS_BIND, NULL) == 0 &&
		    mount(NULL, rb, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) == 0) {
			rc = run_tool(out, sizeof out, ff, "--respell", t_path(rb, "fold/FOO"),
				      "foo", NULL);
			CHECK(rc == 1 && contains(out, "read-only") && t_dir_has(sd, "FOO"),
			      "read-only bind mount of the view: exit 1, says so, nothing "
			      "changed (%d: %s)", rc, out);
		} else {
			t_skip("no read-only bind mount here (%s)", strerror(errno));
		}
		umount2(rb, MNT_DETACH);
		t_umount(&m);
	}

	/* Nothing folds under -o nofold. */
	struct t_mount nf = {0};
	if (t_mount(&nf, t_newdir("src-respell-nofold"), "nofold") == 0) {
		CHECK_OK(mkfile(t_path(nf.mnt, "Foo"), "n"), "nofold: create Foo");
		CHECK_ERR(t_respell(nf.mnt, "Foo", "FOO"), EINVAL, "nofold mount: EINVAL");
		CHECK(t_dir_has(nf.src, "Foo"), "nofold: Foo unchanged");
		t_umount(&nf);
	}

	/* Strict tree, and the record's name at a folding root. */
	const char *src = t_newdir("src-respell-strict");
	t_write_file(t_path(src, "bad\xff"), "b");
	t_write_file(t_path(src, ".FOLDFS"), "not the record");
	struct t_mount s = {0};
	if (t_mount(&s, src, "casefold,strict") == 0) {
		CHECK_OK(mkfile(t_path(s.mnt, "good"), "g"), "strict: create good");
		CHECK_OK(t_respell(s.mnt, "good", "GOOD"), "strict: respell good -> GOOD");
		CHECK(t_dir_has(src, "GOOD"), "strict: SOURCE stores GOOD");
		CHECK_ERR(t_respell(s.mnt, "GOOD", "GOOD\xff"), EINVAL,
			  "strict: ill-formed new name: EINVAL");
		CHECK_ERR(t_respell(s.mnt, "bad\xff", "bad\xff"), EINVAL,
			  "strict: even an ill-formed stored name onto itself: EINVAL");
		CHECK_ERR(t_respell(s.mnt, ".FOLDFS", ".foldfs"), EPERM,
			  "a .FOLDFS made in SOURCE cannot take the record's name: EPERM");
		rc = run_tool(out, sizeof out, ff, "--respell", t_path(s.mnt, "GOOD"), "good\xff",
			      NULL);
		CHECK(rc == 1 && contains(out, "UTF-8"),
		      "strict: CLI says the new name is not well-formed UTF-8 (%d: %s)", rc, out);
		t_umount(&s);
		char rec[4096] = "";
		t_read_file(t_path(src, ".foldfs"), rec, sizeof rec);
		CHECK(contains(rec, "format=") && t_file_is(t_path(src, ".FOLDFS"), "not the record"),
		      "record and .FOLDFS untouched");
	}
}

/* ---- index memory budget ---------------------------------------------- */

/* Directories whose indexes together pass -o index_mem are dropped least
 * recently used first and rebuilt by the next miss (dirindex.c); a dropped
 * one also loses its inotify watch, so what SOURCE changes meanwhile must
 * show once it is rebuilt.  -o debug makes the daemon log each eviction,
 * so the section knows it ran them. */
#define BUDGET_DIRS 16
#define BUDGET_NAMES 1500
#define BUDGET_NAME "Größe-%04d-ÉTÉ-Übersicht-der-Dateien.txt"
#define BUDGET_OTHER "GRÖSSE-%04d-été-ÜBERSICHT-DER-DATEIEN.TXT"

static void sec_budget(void)
{
	t_section("-o index_mem=1: %d directories of %d names, indexes evicted and rebuilt",
		  BUDGET_DIRS, BUDGET_NAMES);
	const char *src = t_newdir("src-budget");
	char rel[160], nm[96];
	struct stat st;
	int bad = 0;
	for (int d = 0; d < BUDGET_DIRS; d++) {
		snprintf(rel, sizeof rel, "dir%02d", d);
		bad += mkdir(t_path(src, rel), 0755) != 0;
		for (int i = 0; i < BUDGET_NAMES; i++) {
			snprintf(nm, sizeof nm, BUDGET_NAME, i);
			snprintf(rel, sizeof rel, "dir%02d/%s", d, nm);
			bad += t_write_file(t_path(src, rel), "x") != 0;
		}
	}
	CHECK(bad == 0, "SOURCE: %d directories of %d files (%d failed)", BUDGET_DIRS,
	      BUDGET_NAMES, bad);
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,index_mem=1,debug"))
		return;
	for (int pass = 0; pass < 2; pass++) {
		bad = 0;
		for (int d = 0; d < BUDGET_DIRS; d++) {
			snprintf(nm, sizeof nm, BUDGET_OTHER, (d * 37 + pass) % BUDGET_NAMES);
			snprintf(rel, sizeof rel, "DIR%02d/%s", d, nm);
			if (stat(t_path(m.mnt, rel), &st) && bad++ < 3)
				t_note("%s: %s", rel, strerror(errno));
		}
		CHECK(bad == 0, "pass %d: a name in every directory found by another spelling "
		      "(%d not)", pass + 1, bad);
	}
	long ev = t_log_count(&m, "evicted (budget");
	CHECK(ev > 0, "-> the budget evicted indexes (%ld evictions logged)", ev);
	/* changed directly in SOURCE: directories with and without an index */
	bad = 0;
	for (int d = 0; d < BUDGET_DIRS; d++) {
		snprintf(rel, sizeof rel, "dir%02d/Neu-%02d", d, d);
		bad += t_write_file(t_path(src, rel), "n") != 0;
		snprintf(nm, sizeof nm, BUDGET_NAME, 5);
		snprintf(rel, sizeof rel, "dir%02d/%s", d, nm);
		bad += unlink(t_path(src, rel)) != 0;
	}
	CHECK(bad == 0, "SOURCE: a file added and one removed in every directory");
	int missing = 0, stale = 0, lost = 0;
	for (int d = 0; d < BUDGET_DIRS; d++) {
		snprintf(rel, sizeof rel, "Dir%02d/NEU-%02d", d, d);
		missing += stat(t_path(m.mnt, rel), &st) != 0;
		snprintf(nm, sizeof nm, BUDGET_OTHER, 5);
		snprintf(rel, sizeof rel, "dir%02d/%s", d, nm);
		stale += !(stat(t_path(m.mnt, rel), &st) && errno == ENOENT);
		snprintf(nm, sizeof nm, BUDGET_OTHER, 6);
		snprintf(rel, sizeof rel, "dir%02d/%s", d, nm);
		lost += stat(t_path(m.mnt, rel), &st) != 0;
	}
	CHECK(missing == 0 && stale == 0 && lost == 0,
	      "-> seen through the view at once: added %d missing, removed %d still "
	      "found, untouched %d lost", missing, stale, lost);
	CHECK(t_log_count(&m, "evicted (budget") > ev,
	      "-> and indexes were evicted again meanwhile");
	t_umount(&m);
}

/* One directory whose index alone is larger than -o index_mem, used in
 * turn with small ones.  Its build once pushed every other index out, and
 * the next small one's pushed it out, so every miss rebuilt an index: a
 * scan of all its names at each return to it.  It is kept besides the
 * budget (dirindex.c): each index is built once. */
#define BIGIDX_NAMES 20000
#define BIGIDX_DIRS 8
#define BIGIDX_PASSES 5

static void sec_budget_big(void)
{
	t_section("-o index_mem=1: a directory of %d names, its index larger than the "
		  "budget, used in turn with %d small ones", BIGIDX_NAMES, BIGIDX_DIRS);
	const char *src = t_newdir("src-budget-big");
	char rel[160], nm[96];
	struct stat st;
	int bad = 0;
	bad += mkdir(t_path(src, "big"), 0755) != 0;
	for (int i = 0; i < BIGIDX_NAMES; i++) {
		snprintf(nm, sizeof nm, BUDGET_NAME, i);
		snprintf(rel, sizeof rel, "big/%s", nm);
		bad += t_write_file(t_path(src, rel), "x") != 0;
	}
	for (int d = 0; d < BIGIDX_DIRS; d++) {
		snprintf(rel, sizeof rel, "small%d", d);
		bad += mkdir(t_path(src, rel), 0755) != 0;
		snprintf(rel, sizeof rel, "small%d/Klein-%d", d, d);
		bad += t_write_file(t_path(src, rel), "k") != 0;
	}
	CHECK(bad == 0, "SOURCE: big/ of %d files, %d small directories (%d failed)",
	      BIGIDX_NAMES, BIGIDX_DIRS, bad);
	struct t_mount m = {0};
	if (t_mount(&m, src, "casefold,index_mem=1,debug"))
		return;
	bad = 0;
	for (int pass = 0; pass < BIGIDX_PASSES; pass++) {
		snprintf(nm, sizeof nm, BUDGET_OTHER, pass * 3989 % BIGIDX_NAMES);
		snprintf(rel, sizeof rel, "BIG/%s", nm);
		bad += stat(t_path(m.mnt, rel), &st) != 0;
		for (int d = 0; d < BIGIDX_DIRS; d++) {
			snprintf(rel, sizeof rel, "Small%d/KLEIN-%d", d, d);
			bad += stat(t_path(m.mnt, rel), &st) != 0;
		}
	}
	CHECK(bad == 0, "%d passes: a name in big/, then one in each small directory, found "
	      "by another spelling (%d not)", BIGIDX_PASSES, bad);
	/* the root's (BIG, SmallN), big/'s and each small one's */
	long built = t_log_count(&m, " entries, ");
	CHECK(built == 2 + BIGIDX_DIRS, "-> each index built once: %ld builds (want %d)", built,
	      2 + BIGIDX_DIRS);
	t_umount(&m);
}

/* RENAME_WHITEOUT leaves a whiteout (a 0:0 character device) under the old
 * name.  In a folding directory it must stay findable by every spelling:
 * the daemon once dropped the old name from the fold index, so other
 * spellings missed it and an equivalent duplicate could be created.
 * watch=poll: no inotify event repairs the index behind our back. */
static void sec_whiteout(void)
{
	t_section("RENAME_WHITEOUT in a folding directory: the whiteout keeps its name");
	const char *src = t_newdir("src-whiteout");
	struct t_mount m = {0};
	struct stat st;
	if (t_mount(&m, src, "casefold,watch=poll"))
		return;
	CHECK_OK(t_write_file(t_path(m.mnt, "wh_a"), "a"), "create wh_a");
	CHECK_ERR(lstat(t_path(m.mnt, "WH_MISSING"), &st), ENOENT, "a miss builds the index");
	int rc = sys_renameat2(t_path(m.mnt, "wh_a"), t_path(m.mnt, "wh_b"), RENAME_WHITEOUT);
	if (rc < 0 && (errno == EINVAL || errno == EPERM)) {
		t_skip("RENAME_WHITEOUT not available here (%s)", strerror(errno));
		t_umount(&m);
		return;
	}
	CHECK(rc == 0, "renameat2(wh_a, wh_b, RENAME_WHITEOUT) (%s)", rc ? strerror(errno) : "ok");
	CHECK(lstat(t_path(m.mnt, "WH_A"), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == 0 &&
		      st.st_ino == t_ino(t_path(src, "wh_a")),
	      "WH_A finds the whiteout stored as wh_a");
	CHECK_ERR(mknod(t_path(m.mnt, "Wh_A"), S_IFREG | 0644, 0), EEXIST, "mknod Wh_A");
	CHECK_ERR(mkdir(t_path(m.mnt, "WH_A"), 0755), EEXIST, "mkdir WH_A");

	CHECK_OK(t_write_file(t_path(m.mnt, "wo_x"), "x"), "create wo_x");
	CHECK_OK(t_write_file(t_path(m.mnt, "wo_y"), "y"), "create wo_y");
	CHECK_OK(sys_renameat2(t_path(m.mnt, "wo_x"), t_path(m.mnt, "WO_Y"), RENAME_WHITEOUT),
		 "renameat2(wo_x, WO_Y, RENAME_WHITEOUT) replaces wo_y");
	CHECK(t_file_is(t_path(m.mnt, "wo_y"), "x"), "wo_y reads wo_x's data");
	CHECK(lstat(t_path(m.mnt, "WO_X"), &st) == 0 && S_ISCHR(st.st_mode) &&
		      st.st_ino == t_ino(t_path(src, "wo_x")),
	      "WO_X finds the whiteout stored as wo_x");
	CHECK_ERR(mknod(t_path(m.mnt, "WO_X"), S_IFREG | 0644, 0), EEXIST, "mknod WO_X");
	CHECK(t_dir_count(src) == 5 && t_dir_has(src, "wh_a") && t_dir_has(src, "wh_b") &&
		      t_dir_has(src, "wo_x") && t_dir_has(src, "WO_Y"),
	      "SOURCE: wh_a wh_b wo_x WO_Y (and the record), no duplicate (%ld entries)",
	      t_dir_count(src));
	t_umount(&m);
}

/* The kernel keeps a dentry's entry timeout when a rename moves it: a file
 * looked up in a plain directory (cached for `timeout`) and renamed, or
 * exchanged, into a folding one stays trusted there under the spelling the
 * rename used.  Removed by another spelling, it was still found under that
 * one until the daemon's asynchronous invalidation came (cache=auto and
 * none).  timeout=30 keeps the stale window wide; the checks run right
 * after each unlink, many times, as the old code lost the race mostly. */
static void movein_round(const char *mode)
{
	struct t_mount m = {0};
	char opts[64];
	struct stat st;
	snprintf(opts, sizeof opts, "cache=%s,timeout=30", mode);
	if (t_mount(&m, t_newdir("src-movein"), opts))
		return;
	const char *f = t_path(m.mnt, "f"), *g = t_path(m.mnt, "g"), *p = t_path(m.mnt, "p");
	CHECK_OK(mkdir(f, 0755), "[%s] mkdir f", mode);
	CHECK_OK(t_set_casefold(f, 1), "[%s] chattr +F f", mode);
	CHECK_OK(mkdir(g, 0755), "[%s] mkdir g", mode);
	CHECK_OK(t_set_casefold(g, 1), "[%s] chattr +F g", mode);
	CHECK_OK(mkdir(p, 0755), "[%s] mkdir p (plain)", mode);
	int stale_ren = 0, stale_exch = 0, stale_hop = 0, fail = 0;
	for (int i = 0; i < 40; i++) {
		fail |= t_write_file(t_path(p, "x"), "moved") != 0;
		fail |= stat(t_path(p, "x"), &st) != 0; /* cached for 30 s */
		fail |= rename(t_path(p, "x"), t_path(f, "Q")) != 0;
		fail |= unlink(t_path(f, "q")) != 0;
		stale_ren += stat(t_path(f, "Q"), &st) == 0;

		fail |= t_write_file(t_path(p, "x"), "moved") != 0;
		fail |= stat(t_path(p, "x"), &st) != 0;
		fail |= t_write_file(t_path(f, "q"), "there") != 0;
		fail |= sys_renameat2(t_path(p, "x"), t_path(f, "Q"), RENAME_EXCHANGE) != 0;
		fail |= unlink(t_path(f, "q")) != 0;
		stale_exch += stat(t_path(f, "Q"), &st) == 0;
		fail |= unlink(t_path(p, "x")) != 0;

		/* the dentry keeps the timeout through a second rename */
		fail |= t_write_file(t_path(p, "x"), "moved") != 0;
		fail |= stat(t_path(p, "x"), &st) != 0;
		fail |= rename(t_path(p, "x"), t_path(f, "Q")) != 0;
		fail |= rename(t_path(f, "Q"), t_path(g, "R")) != 0;
		fail |= unlink(t_path(g, "r")) != 0;
		stale_hop += stat(t_path(g, "R"), &st) == 0;
	}
	CHECK(!fail, "[%s] 40 rounds of rename/exchange p/x -> f/Q, unlink f/q ran", mode);
	CHECK(stale_hop == 0,
	      "[%s] after rename p/x -> f/Q -> g/R and unlink g/r, g/R is gone (%d of 40 stale)",
	      mode, stale_hop);
	CHECK(stale_ren == 0, "[%s] after rename p/x -> f/Q and unlink f/q, f/Q is gone (%d of 40 stale)",
	      mode, stale_ren);
	CHECK(stale_exch == 0,
	      "[%s] after exchange p/x <-> f/Q and unlink f/q, f/Q is gone (%d of 40 stale)", mode,
	      stale_exch);
	t_umount(&m);
}

static void sec_movein(void)
{
	t_section("a file renamed from a plain into a folding directory, then removed by another spelling");
	movein_round("auto");
	movein_round("none");
	movein_round("epoch");
}

/* ---- the coherence ledger's bound -------------------------------------- */

/* With cache=epoch the kernel keeps negative entries, and the daemon's
 * ledger notes each spelling it answered so that a later change can
 * invalidate the others (coherence.c).  The ledger is bounded (65,536
 * notes); past that it must bump the epoch -- dropping every cached entry
 * -- before it forgets notes, or an entry whose note it forgot stays
 * cached and goes stale.  70,000 misses fill it; then names looked up
 * first are created under another spelling and must be found. */
static void sec_ledger(void)
{
	t_section("cache=epoch: 70,000 cached misses overflow the ledger, no stale entry");
	struct t_mount m = {0};
	struct stat st;
	char rel[64];
	if (t_mount(&m, t_newdir("src-ledger"), "casefold,cache=epoch,timeout=60"))
		return;
	CHECK_OK(mkdir(t_path(m.mnt, "L"), 0755), "mkdir L");
	int odd = 0;
	for (int i = 0; i < 70000; i++) {
		snprintf(rel, sizeof rel, "L/n%05d", i);
		odd += !(stat(t_path(m.mnt, rel), &st) && errno == ENOENT);
	}
	CHECK(odd == 0, "70,000 lookups of absent names: all ENOENT (%d not)", odd);
	int unmade = 0, stale = 0;
	for (int i = 0; i < 8; i++) {
		snprintf(rel, sizeof rel, "L/N%05d", i);
		unmade += mkfile(t_path(m.mnt, rel), "n") != 0;
		snprintf(rel, sizeof rel, "L/n%05d", i);
		stale += stat(t_path(m.mnt, rel), &st) != 0;
	}
	CHECK(unmade == 0 && stale == 0, "-> N00000..N00007 created (%d failed): found by "
	      "the spellings looked up first (%d stale)", unmade, stale);
	t_umount(&m);
}

/* ---- 21. the test programs' own --only (tests/fs/harness.c) ----------- */

/* "== " lines in out: the sections a run printed. */
static int count_sections(const char *out)
{
	int n = 0;
	for (const char *p = out; (p = strstr(p, "\n== ")); p++)
		n++;
	return n;
}

/* The passes of out's last line "N passed, N failed", -1 if another line. */
static long last_passed(const char *out)
{
	const char *l = out + strlen(out);
	long pass = -1, fail = -1;
	while (l > out && l[-1] == '\n')
		l--;
	while (l > out && l[-1] != '\n')
		l--;
	return sscanf(l, "%ld passed, %ld failed", &pass, &fail) == 2 && fail == 0 ? pass : -1;
}

static void sec_only(void)
{
	t_section("--only and --help of fs-basic, fs-source and fs-posix");
	char dir[4096], out[16384];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (!CHECK(n > 0 && memchr(dir, '/', (size_t)n), "readlink /proc/self/exe"))
		return;
	dir[n] = 0;
	*strrchr(dir, '/') = 0;
	static const char *const progs[] = {"fs-basic", "fs-source", "fs-posix"};
	static const char *const lists[] = {"ascii,nosuch", "attr,nosuch", "ro_rw,nosuch"};
	for (int i = 0; i < 3; i++) {
		const char *p = t_path(dir, progs[i]);
		const char *help[] = {p, "--help", NULL};
		int rc = t_run(help, out, sizeof out, 20);
		CHECK(rc == 0 && strstr(out, "\nSECTIONS (--only"),
		      "%s --help: exit %d, lists the sections", progs[i], rc);
		/* A misspelt name once ran nothing and passed. */
		const char *bad[] = {p,		 "--foldfs", t_opt.foldfs, "--root",
				     t_newdir("only"), "--only",   lists[i],	 NULL};
		rc = t_run(bad, out, sizeof out, 60);
		CHECK(rc == 2 && strstr(out, "unknown section 'nosuch'") && !strstr(out, " passed, "),
		      "%s --only %s: exit %d (want 2), refused before running: %s", progs[i],
		      lists[i], rc, out);
	}
	/* A list and a repeated option: exactly those sections run. */
	const char *three[] = {t_path(dir, "fs-basic"), "--foldfs", t_opt.foldfs, "--root",
			       t_newdir("only"), "-q", "--only", "compat,ascii", "--only",
			       "ignorables", NULL};
	int rc = t_run(three, out, sizeof out, 120);
	CHECK(rc == 0 && count_sections(out) == 3 && last_passed(out) > 0 &&
		      strstr(out, "== compat") && strstr(out, "== encoding=ascii") &&
		      strstr(out, "== ignorables"),
	      "fs-basic --only compat,ascii --only ignorables: exit %d, %d sections run: %s", rc,
	      count_sections(out), out);
}

/* ---- two mounts of one SOURCE ------------------------------------------ */

/* foldfs SRC MNT -o OPTS while a view is mounted on MNT: refused (exit 1,
 * "already", still one mount there) if refused, else mounted on top
 * (exit 0, two mounts), then unmounted again. */
static void mount_again(const char *src, const char *mnt, const char *opts, int refused,
			const char *what)
{
	char out[4096];
	const char *argv[] = {t_opt.foldfs, src, mnt, "-o", opts, NULL};
	int rc = t_run(argv, out, sizeof out, 20);
	int n = t_mounts_at(mnt);
	CHECK(refused ? rc == 1 && strstr(out, "already") && n == 1 : rc == 0 && n == 2,
	      "%sfoldfs SOURCE MOUNTPOINT over a view: exit %d (want %d), %d mounts there "
	      "(want %d): %s", what, rc, refused, n, 2 - refused, out);
	if (n > 1)
		umount2(mnt, MNT_DETACH); /* the stacked one */
}

/* Rounds of each kind of call in sec_twomounts. */
#define TWO_N 200
enum { TWO_EXCL, TWO_CREAT, TWO_MKDIR, TWO_SYMLINK, TWO_RENAME, TWO_RESPELL, TWO_KINDS };
static const char *const two_kind[TWO_KINDS] = {"open O_EXCL", "open O_CREAT", "mkdir", "symlink",
						  "rename onto", "respell vs create"};

/* One child of sec_twomounts: through mount mnt, in dir "race", makes
 * "nK_I" (upper: "NK_I") for round I of kind K (open O_CREAT|O_EXCL,
 * open O_CREAT, which opens an equivalent, mkdir, symlink, or a rename
 * from its own staging directory, which replaces an equivalent); for TWO_RESPELL the lower one respells the
 * existing "rsI" to "RSI" while the upper one creates "RsI" with O_EXCL.  Before each call it writes a byte to out and waits for one
 * from in, so the two calls start together.  Exits with the number of
 * calls that failed otherwise than EEXIST, or whose EEXIST is wrong (a
 * rename, a respell). */
static void twomounts_child(const char *mnt, int round, int upper, int in, int out)
{
	char dir[4200], stage[4200], name[64], path[4400], tmp[4400];
	int odd = 0;

	snprintf(dir, sizeof dir, "%s/race%d", mnt, round);
	snprintf(stage, sizeof stage, "%s/stage%d-%d", mnt, round, upper);
	for (int k = 0; k < TWO_KINDS; k++) {
		for (int i = 0; i < TWO_N; i++) {
			if (write(out, "", 1) != 1 || read(in, name, 1) != 1)
				_exit(100);
			snprintf(name, sizeof name, "%c%d_%d", upper ? 'N' : 'n', k, i);
			snprintf(path, sizeof path, "%s/%s", dir, name);
			int r = 0;
			switch (k) {
			case TWO_EXCL:
				r = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
				if (r >= 0)
					r = close(r);
				break;
			case TWO_CREAT:
				r = open(path, O_CREAT | O_WRONLY, 0644);
				if (r >= 0)
					r = close(r);
				else if (errno == EEXIST)
					errno = 0; /* never for O_CREAT alone */
				break;
			case TWO_MKDIR:
				r = mkdir(path, 0755);
				break;
			case TWO_SYMLINK:
				r = symlink("target", path);
				break;
			case TWO_RENAME:
				snprintf(tmp, sizeof tmp, "%s/t%d", stage, i);
				r = mknod(tmp, S_IFREG | 0644, 0);
				if (r == 0)
					r = rename(tmp, path);
				if (r < 0 && errno == EEXIST)
					errno = 0; /* rename(2) replaces */
				break;
			case TWO_RESPELL: /* "rsI" exists: both fail or keep one */
				if (!upper) {
					char from[64], to[64];
					snprintf(from, sizeof from, "rs%d", i);
					snprintf(to, sizeof to, "RS%d", i);
					r = t_respell(dir, from, to);
				} else {
					snprintf(path, sizeof path, "%s/Rs%d", dir, i);
					r = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
					if (r >= 0) {
						close(r);
						odd++;
					}
				}
				break;
			}
			if (r < 0 && errno != EEXIST) {
				if (odd++ < 3)
					fprintf(stderr, "%s (kind %d): %s\n", name, k, strerror(errno));
			}
		}
	}
	_exit(odd > 100 ? 100 : odd);
}

/* Run twomounts_child through mounts m1 and m2 (the same one: a single
 * mount); the number of calls that went wrong. */
static int twomounts_run(int round, const char *m1, const char *m2)
{
	int p01[2], p10[2], odd = 0;
	pid_t pid[2];
	if (pipe(p01) < 0 || pipe(p10) < 0)
		return 1;
	/* each child closes the other's ends: a child that dies then ends
	 * the other's wait with EOF */
	pid[0] = fork();
	if (pid[0] == 0) {
		close(p01[0]);
		close(p10[1]);
		twomounts_child(m1, round, 0, p10[0], p01[1]);
	}
	pid[1] = fork();
	if (pid[1] == 0) {
		close(p10[0]);
		close(p01[1]);
		twomounts_child(m2, round, 1, p01[0], p10[1]);
	}
	close(p01[0]);
	close(p01[1]);
	close(p10[0]);
	close(p10[1]);
	for (int k = 0; k < 2; k++) {
		int st;
		if (pid[k] > 0 && waitpid(pid[k], &st, 0) == pid[k] && WIFEXITED(st))
			odd += WEXITSTATUS(st);
		else
			odd++;
	}
	return odd;
}

/* SOURCE's race directory after twomounts_run: names of each kind and
 * rounds that hold two spellings. */
static void twomounts_count(const char *dir, long names[TWO_KINDS], long pairs[TWO_KINDS])
{
	static char seen[TWO_KINDS][TWO_N];
	memset(seen, 0, sizeof seen);
	for (int k = 0; k < TWO_KINDS; k++)
		names[k] = pairs[k] = 0;
	DIR *dp = opendir(dir);
	struct dirent *de;
	while (dp && (de = readdir(dp))) {
		int k = TWO_RESPELL, i;
		char c;
		if ((sscanf(de->d_name, "%c%d_%d", &c, &k, &i) != 3 &&
		     sscanf(de->d_name, "%*[rsRS]%d", &i) != 1) ||
		    k < 0 || k >= TWO_KINDS || i < 0 || i >= TWO_N)
			continue;
		names[k]++;
		if (seen[k][i]++)
			pairs[k]++;
	}
	if (dp)
		closedir(dp);
}

/* Round `round` of the lockstep through m1 and m2, in new directories
 * (raceN, stageN-0, stageN-1). */
static void twomounts_round(int round, const char *label, const char *src, const char *m1,
			    const char *m2)
{
	char p[4400], dir[4200];
	snprintf(dir, sizeof dir, "%s/race%d", src, round);
	CHECK(mkdir(dir, 0755) == 0, "[%s] mkdir %s", label, dir);
	for (int u = 0; u < 2; u++) {
		snprintf(p, sizeof p, "%s/stage%d-%d", src, round, u);
		mkdir(p, 0755);
	}
	for (int i = 0; i < TWO_N; i++) {
		snprintf(p, sizeof p, "%s/rs%d", dir, i);
		mkfile(p, "");
	}
	int odd = twomounts_run(round, m1, m2);
	CHECK(odd == 0, "[%s] every call made its name or failed with EEXIST as it should (%d did not)",
	      label, odd);
	long names[TWO_KINDS], pairs[TWO_KINDS];
	twomounts_count(dir, names, pairs);
	for (int k = 0; k < TWO_KINDS; k++)
		CHECK(names[k] == TWO_N && pairs[k] == 0,
		      "[%s] %s: SOURCE holds one spelling per name: %ld names, %ld equivalent pairs "
		      "(of %d)",
		      label, two_kind[k], names[k], pairs[k], TWO_N);
}

/* A child holding locks through the view: flock(LOCK_EX) on the directory
 * race and on a file in it, a POSIX and an OFD write lock on that file,
 * and (as a program working in SOURCE may) flock(LOCK_EX) on race in
 * SOURCE, until killed.  Writes a byte to ready once it has them. */
static pid_t twomounts_locker(const char *src, const char *mnt, int ready)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char p[4400];
	snprintf(p, sizeof p, "%s/race", src);
	int sfd = open(p, O_RDONLY | O_DIRECTORY);
	snprintf(p, sizeof p, "%s/race", mnt);
	int dfd = open(p, O_RDONLY | O_DIRECTORY);
	snprintf(p, sizeof p, "%s/race/locked", mnt);
	int ffd = open(p, O_RDWR | O_CREAT, 0644);
	int ofd = open(p, O_RDWR);
	/* POSIX and OFD locks conflict even in one process: other bytes */
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	struct flock ol = fl;
	ol.l_start = 1;
	if (sfd < 0 || dfd < 0 || ffd < 0 || ofd < 0 || flock(sfd, LOCK_EX) < 0 ||
	    flock(dfd, LOCK_EX) < 0 || flock(ffd, LOCK_EX) < 0 ||
	    fcntl(ffd, F_SETLK, &fl) < 0 || fcntl(ofd, F_OFD_SETLK, &ol) < 0)
		_exit(1);
	if (write(ready, "", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

/* The status of child w, or -1 (w killed) if it has not ended within
 * 10 s: a create stuck behind a lock must not hang the test. */
static int twomounts_wait(pid_t w)
{
	int st = -1;
	for (int i = 0; w > 0 && i < 1000; i++) {
		if (waitpid(w, &st, WNOHANG) == w)
			return st;
		usleep(10000);
	}
	if (w > 0) {
		kill(w, SIGKILL);
		waitpid(w, NULL, 0);
	}
	return -1;
}

/* Two mounts of one SOURCE: each daemon checks its own index before it
 * creates, so "n0_7" and "N0_7" made through the two at once could both
 * be stored (a pair ext4 casefold never holds) unless the daemons take
 * turns in SOURCE (fs/xlock.c). */
static void sec_twomounts(void)
{
	t_section("two mounts of one SOURCE creating equivalent names in lockstep; the same "
		  "mount twice refused");
	const char *src = t_newdir("src-two");
	struct t_mount a = {0}, b = {0};
	if (t_mount(&a, src, "casefold"))
		return;
	if (t_mount(&b, src, "casefold")) {
		t_umount(&a);
		return;
	}
	/* The same SOURCE on the same mount point again (`mount MNT` of an
	 * fstab line already mounted) is refused, not stacked; a second
	 * mount point (b) is fine. */
	mount_again(src, a.mnt, "casefold", 1, "");
	/* Named otherwise (fsname=), it is still this SOURCE: refused too;
	 * another SOURCE over it is not. */
	struct t_mount named = {0};
	if (t_mount(&named, src, "casefold,fsname=myview") == 0) {
		mount_again(src, named.mnt, "casefold,fsname=myview", 1, "fsname=: ");
		mount_again(t_newdir("src-two-other"), named.mnt, "casefold", 0,
			    "another SOURCE over a view: ");
		t_umount(&named);
	}
	/* Within one mount, as ever; then across the two. */
	twomounts_round(1, "one mount", src, a.mnt, a.mnt);
	twomounts_round(2, "two mounts", src, a.mnt, b.mnt);
	/* A mount of a subdirectory, which has no record of its own (the
	 * tree's governs it), against one of the whole tree. */
	struct t_mount sub = {0};
	char nsrc[4200], na[4200];
	snprintf(nsrc, sizeof nsrc, "%s/nest", src);
	snprintf(na, sizeof na, "%s/nest", a.mnt);
	if (CHECK(mkdir(na, 0755) == 0, "mkdir nest") && t_mount(&sub, nsrc, "casefold") == 0) {
		twomounts_round(3, "a mount of a subdirectory", nsrc, na, sub.mnt);
		t_umount(&sub);
	}

	/* The locks are on the record, which no view shows. */
	CHECK_ERR(open(t_path(a.mnt, ".foldfs"), O_RDWR), ENOENT, "view: .foldfs cannot be opened");
	CHECK_ERR(open(t_path(a.mnt, ".FOLDFS"), O_RDONLY), ENOENT,
		  "view: .FOLDFS cannot be opened");

	/* Users' locks on a directory and on a file in it, taken through
	 * the view (a file's reach SOURCE) or in SOURCE, hold no change in
	 * it back. */
	CHECK(mkdir(t_path(a.mnt, "race"), 0755) == 0, "mkdir race");
	int rp[2];
	if (!CHECK(pipe(rp) == 0, "pipe"))
		goto out;
	pid_t lk = twomounts_locker(src, a.mnt, rp[1]);
	close(rp[1]);
	char c;
	int got = read(rp[0], &c, 1) == 1;
	close(rp[0]);
	if (CHECK(lk > 0 && got, "a child holds flock, POSIX and OFD locks in the view's race, "
				 "and a flock on race in SOURCE")) {
		/* in a child: a create that waits for the locks must not hang
		 * the test */
		struct timespec t0, t1;
		int st = -1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid_t w = fork();
		if (w == 0) {
			int bad = 0;
			for (int i = 0; i < 20; i++) {
				char p[4400];
				const char *m = (i & 1) ? b.mnt : a.mnt;
				snprintf(p, sizeof p, "%s/race/free%d", m, i);
				int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
				bad += fd < 0;
				if (fd >= 0)
					close(fd);
				snprintf(p, sizeof p, "%s/race/%s", m, (i & 1) ? "LOCKED" : "Locked");
				fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
				bad += !(fd < 0 && errno == EEXIST);
				if (fd >= 0)
					close(fd);
			}
			_exit(bad);
		}
		st = twomounts_wait(w);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		/* (a design that waited on them, e.g. a flock on the
		 * directory in SOURCE for a second per create, is killed) */
		CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "40 creates through both mounts while they are held: %s %d wrong (%.3f s)",
		      st == -1 ? "stuck (killed after 10 s)," : "",
		      st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1, secs);
	}
	if (lk > 0) {
		kill(lk, SIGKILL);
		waitpid(lk, NULL, 0);
		lk = -1;
	}

	/* Anyone who can read the record in SOURCE can lock it: the
	 * daemons wait for such a lock a bounded time (fs/xlock.c), then
	 * change the name unlocked, checked within their own mount. */
	int rfd = open(t_path(src, ".foldfs"), O_RDONLY);
	struct flock rl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	if (CHECK(rfd >= 0 && fcntl(rfd, F_OFD_SETLK, &rl) == 0,
		  "a reader holds an OFD read lock on the whole record in SOURCE")) {
		int st = -1;
		pid_t w = fork();
		if (w == 0) {
			int bad = 0, fd = open(t_path(a.mnt, "race/held"), O_CREAT | O_EXCL | O_WRONLY,
					       0644);
			bad += fd < 0;
			if (fd >= 0)
				close(fd);
			fd = open(t_path(a.mnt, "race/HELD"), O_CREAT | O_EXCL | O_WRONLY, 0644);
			bad += !(fd < 0 && errno == EEXIST);
			if (fd >= 0)
				close(fd);
			_exit(bad);
		}
		st = twomounts_wait(w);
		CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "a create and an equivalent one (EEXIST) through a mount while the record is "
		      "locked: %s %d wrong",
		      st == -1 ? "stuck (killed after 10 s)," : "",
		      st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	if (rfd >= 0)
		close(rfd);
	if (lk > 0) {
		kill(lk, SIGKILL);
		waitpid(lk, NULL, 0);
	}
out:
	t_umount(&b);
	t_umount(&a);
}

/* Under -o casefold F cannot be cleared (EPERM), and a change of flags
 * that would clear it changes no other flag either, as ext4 refuses a
 * change for a non-empty casefold directory as a whole: chattr =A, or a
 * program resetting the flags to 0 (stress-ng's inode-flags).  A change
 * that keeps F (chattr +A, -A) works. */
static void sec_casefold_all_flags(struct t_mount *m)
{
	const char *d = t_path(m->mnt, "flags-d"), *sd = t_path(m->src, "flags-d");
	int fl = 0;

	if (mkdir(d, 0755) != 0) {
		CHECK(0, "mkdir flags-d: %s", strerror(errno));
		return;
	}
	CHECK_ERR(t_set_casefold(d, 0), EPERM, "-o casefold: -F on an empty directory");
	CHECK_ERR(t_set_casefold(m->mnt, 0), EPERM, "-o casefold: -F on the root");
	CHECK_ERR(t_set_casefold_with(d, 0, FS_NOATIME_FL), EPERM, "-o casefold: -F +A");
	int r = t_get_flags(sd, &fl);
	CHECK(r == 0 && !(fl & FS_NOATIME_FL),
	      "-o casefold: -F +A set no A either (SOURCE flags %#x)", (unsigned)fl);
	CHECK_ERR(t_set_flags(d, 0), EPERM, "-o casefold: flags set to 0");
	CHECK(t_has_casefold(d) == 1, "-o casefold: the directory still reports F");
	CHECK_OK(t_set_casefold_with(d, 1, FS_NOATIME_FL), "-o casefold: +A keeping F");
	r = t_get_flags(sd, &fl);
	CHECK(r == 0 && (fl & FS_NOATIME_FL) && !(fl & FS_CASEFOLD_FL),
	      "-o casefold: SOURCE has A and no F of ours (flags %#x)", (unsigned)fl);
	r = t_get_flags(d, &fl);
	CHECK_OK(r == 0 ? t_set_flags(d, fl & ~FS_NOATIME_FL) : -1, "-o casefold: -A keeping F");
	r = t_get_flags(sd, &fl);
	CHECK(r == 0 && !(fl & FS_NOATIME_FL),
	      "-o casefold: A cleared (SOURCE flags %#x)", (unsigned)fl);
	CHECK_OK(rmdir(d), "rmdir flags-d");
}

int main(int argc, char **argv)
{
	t_sections(sections);
	t_init(argc, argv, help, NULL);
	struct t_mount a = {0}, b = {0};
	int need_a = t_want("lookup") || t_want("illformed") || t_want("eexist") ||
		     t_want("ocreat") || t_want("rename") || t_want("symlink") ||
		     t_want("hardlink") || t_want("openfd") || t_want("preserve") ||
		     t_want("xattr") || t_want("bigdir") || t_want("hidden") || t_want("handles");
	if (need_a) {
		if (t_mount(&a, t_newdir("src-a"), "casefold") == 0) {
			CHECK(t_has_casefold(a.mnt) == 1, "-o casefold: the root reports F");
			sec_casefold_all_flags(&a);
			if (t_want("lookup"))
				sec_lookup(&a);
			if (t_want("illformed"))
				sec_illformed(&a);
			if (t_want("eexist"))
				sec_eexist(&a);
			if (t_want("ocreat"))
				sec_ocreat(&a);
			if (t_want("rename"))
				sec_rename(&a);
			if (t_want("symlink"))
				sec_symlink(&a);
			if (t_want("hardlink"))
				sec_hardlink(&a);
			if (t_want("openfd"))
				sec_openfd(&a);
			if (t_want("preserve"))
				sec_preserve(&a);
			if (t_want("xattr"))
				sec_xattr(&a);
			if (t_want("hidden"))
				sec_hidden(&a);
			if (t_want("handles"))
				sec_handles(&a);
			if (t_want("bigdir"))
				sec_bigdir(&a);
			t_umount(&a);
		}
	}
	if (t_want("chattr") || t_want("nesting")) {
		if (t_mount(&b, t_newdir("src-b"), "") == 0) {
			if (t_want("nesting"))
				sec_nesting(&b);
			if (t_want("chattr"))
				sec_chattr(&b);
			t_umount(&b);
		}
	}
	if (t_want("collide"))
		sec_collide();
	if (t_want("submount")) {
		sec_submount();
		sec_submount_nested();
	}
	if (t_want("record"))
		sec_record();
	if (t_want("strict"))
		sec_strict();
	if (t_want("compat"))
		sec_compat();
	if (t_want("ascii"))
		sec_ascii();
	if (t_want("ignorables"))
		sec_ignorables();
	if (t_want("daemon"))
		sec_daemon();
	if (t_want("options"))
		sec_options();
	if (t_want("cli"))
		sec_cli();
	if (t_want("respell"))
		sec_respell();
	if (t_want("budget")) {
		sec_budget();
		sec_budget_big();
	}
	if (t_want("whiteout"))
		sec_whiteout();
	if (t_want("movein"))
		sec_movein();
	if (t_want("ledger"))
		sec_ledger();
	if (t_want("only"))
		sec_only();
	if (t_want("twomounts"))
		sec_twomounts();
	return t_finish();
}
