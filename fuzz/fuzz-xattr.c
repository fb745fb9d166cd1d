/*
 * fuzz-xattr.c - the daemon's extended attribute calls: setxattr,
 * getxattr, listxattr and removexattr (fs/ops_xattr.c, with fs/creds.c
 * under them), run on a real SOURCE in a scratch directory ($TMPDIR, else
 * /tmp): a file, a directory and a symlink, each the node of a view, and
 * a twin of each beside them that the fuzzer changes itself with the
 * plain l*xattr() calls.  The rules (foldfs(8)):
 *  - the daemon's own attributes (user.foldfs.*) are neither set nor
 *    removed through the view (EPERM: chattr +F/-F is the way), nor read
 *    (ENODATA), nor listed; SOURCE keeps them as they are;
 *  - any other set or remove does to the node exactly what the same call
 *    does to its twin, made with the caller's fsuid, fsgid and no
 *    supplementary groups when the daemon is root (as the caller), else
 *    as the daemon: the same answer, and afterwards the node and its twin
 *    hold the same attributes with the same values;
 *  - a get answers as lgetxattr() on the twin (as the daemon): the value,
 *    its length for size 0, ERANGE for a buffer too small, ENODATA;
 *  - a list answers SOURCE's own list of the node (llistxattr; the
 *    order may differ, see same_names()) without the daemon's
 *    attributes, and without trusted.* ones for a caller who lacks
 *    CAP_SYS_ADMIN (as ext4 lists them): its length for size 0, ERANGE
 *    for less room than that;
 *  - every call replies once and the daemon's credentials are its own
 *    again afterwards.
 * Calls the kernel never passes on are not made: a name longer than 255
 * bytes or empty, and trusted.* or security.* ones from a caller other
 * than root (the kernel checks those itself, before the daemon).
 *
 * Input: byte 0 options: bit 0 the daemon is root (it acts as the
 * caller; ignored when the fuzzer is not root), bit 1 the objects belong
 * to user 1000.  Then steps, an opcode byte (its value mod 7) and its
 * arguments; OBJ is the file, the directory or the symlink (value mod 3;
 * in set, its low two bits mod 3):
 *   0 set     [OBJ | flags << 2 (0, XATTR_CREATE, XATTR_REPLACE, both)]
 *             NAME VALUE
 *   1 remove  [OBJ] NAME
 *   2 get     [OBJ] NAME [SIZE]
 *   3 list    [OBJ] [SIZE]
 *   4 caller  [uid: 0, 1000, 1001 by value mod 3] [gid, the same]
 *   5 owner   [OBJ | owner (0, 1000, 1001 by value mod 3) << 2 | bit 7
 *             sticky] [MODE]: the node's and the twin's owner, group and
 *             mode (not the symlink's), rwx bits MODE | 0400
 *   6 set in SOURCE, on the node and its twin alike  [OBJ] NAME VALUE
 * NAME: [prefix, value mod 7: user., trusted., user.foldfs., user.foldfs
 * (no dot: not the daemon's), security., none, user.FOLDFS.] [length]
 * [bytes] (a NUL byte becomes '.').  VALUE: [length] [bytes]; length 255
 * is 3,000 bytes of 'v'.  SIZE, by its low two bits: 0, the exact length
 * of the answer, one byte less, or 1 + 4 * (byte >> 2) bytes.
 * FUZZ_XATTR_TRACE=1 in the environment prints the calls.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "foldfs.h"
#include "fuzz-caller.h"

struct foldfs F;

#define NOBJ 3
#define LIST_MAX 65536

static const char *const obj_name[NOBJ] = {"f", "d", "l"};
static char base[4096];
static char node_path[NOBJ][4200], twin_path[NOBJ][4200];
static struct node nodes[NOBJ];
static int is_root, trace;
#define NAME_MAX_X 255 /* XATTR_NAME_MAX: the kernel passes no longer */
static size_t g_at; /* the step being run, for messages */

static void fail(const char *what, const char *name)
{
	fprintf(stderr, "fuzz-xattr: %s at input byte %zu\n", what, g_at);
	if (name)
		fprintf(stderr, "  name: '%s'\n", name);
	abort();
}

/* ---- the stubbed daemon and libfuse ---- */

/* (the caller, the replies' count and error: fuzz-caller.c) */
static int got_count; /* 1: fuse_reply_xattr (a length), 0: a buffer */
static size_t got_size;
static char got_buf[LIST_MAX];

struct node *node_root(void)
{
	return NULL; /* (node_of() is never given FUSE_ROOT_ID here) */
}

void node_procname(const struct node *n, char buf[64])
{
	snprintf(buf, 64, "/proc/self/fd/%d", n->fd);
}

int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size)
{
	(void)req;
	fz_replies++;
	fz_err = 0;
	got_count = 0;
	if (size > sizeof got_buf)
		fail("reply larger than any list here", NULL);
	if (size) /* (an empty list comes with no buffer) */
		memcpy(got_buf, buf, size);
	got_size = size;
	return 0;
}

int fuse_reply_xattr(fuse_req_t req, size_t count)
{
	(void)req;
	fz_replies++;
	fz_err = 0;
	got_count = 1;
	got_size = count;
	return 0;
}

/* ---- the objects ---- */

static void cleanup(void)
{
	for (int i = 0; i < NOBJ; i++) {
		close(nodes[i].fd);
		if (i == 1) {
			rmdir(node_path[i]);
			rmdir(twin_path[i]);
		} else {
			unlink(node_path[i]);
			unlink(twin_path[i]);
		}
	}
	rmdir(base);
}

static void setup(void)
{
	const char *err;
	int fd;

	is_root = geteuid() == 0;
	trace = getenv("FUZZ_XATTR_TRACE") != NULL;
	if ((err = fz_start("fuzz-xattr", base, sizeof base)))
		fail(err, base);
	for (int i = 0; i < NOBJ; i++) {
		snprintf(node_path[i], sizeof node_path[i], "%s/%s", base,
			 obj_name[i]);
		snprintf(twin_path[i], sizeof twin_path[i], "%s/twin-%s", base,
			 obj_name[i]);
	}
	for (int t = 0; t < 2; t++) {
		char(*p)[4200] = t ? twin_path : node_path;
		fd = open(p[0], O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || close(fd) < 0 || mkdir(p[1], 0755) < 0 ||
		    symlink(t ? "twin-f" : "f", p[2]) < 0)
			fail("cannot make the objects", p[0]);
	}
	for (int i = 0; i < NOBJ; i++) {
		nodes[i].fd = open(node_path[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nodes[i].fd < 0)
			fail("open O_PATH", node_path[i]);
	}
	atexit(cleanup);
}

/* The names of a list of n bytes (each ending in NUL, as listxattr gives
 * them) into names[], at most max; returns how many. */
static size_t split_names(char *list, size_t n, char **names, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < max; i += strlen(list + i) + 1)
		names[k++] = list + i;
	return k;
}

/* Sort n strings (insertion sort: a few attribute names). */
static void sort_ptrs(char **names, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *x = names[j];
			names[j] = names[j - 1];
			names[j - 1] = x;
		}
}

/* Every attribute of path as root (the fuzzer's own credentials), sorted
 * by name, "name=value" entries (value hex) joined by '\n', into out. */
static void snapshot(const char *path, char *out, size_t cap)
{
	static char list[LIST_MAX];
	char *names[1024];
	size_t n, at = 0;
	ssize_t r = llistxattr(path, list, sizeof list);

	/* (no xattrs where the file system has none) */
	n = split_names(list, r < 0 ? 0 : (size_t)r, names, 1024);
	sort_ptrs(names, n);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		static unsigned char v[LIST_MAX];
		ssize_t vl = lgetxattr(path, names[i], v, sizeof v);
		int k = snprintf(out + at, cap - at, "%s=", names[i]);
		if (k < 0 || (size_t)k >= cap - at)
			fail("snapshot too large", path);
		at += (size_t)k;
		for (ssize_t j = 0; j < vl; j++) {
			if (cap - at < 4)
				fail("snapshot too large", path);
			at += (size_t)snprintf(out + at, cap - at, "%02x", v[j]);
		}
		if (vl < 0)
			at += (size_t)snprintf(out + at, cap - at, "<%d>", errno);
		out[at++] = '\n';
		out[at] = '\0';
	}
}

/* The node and its twin hold the same attributes. */
static void check_same(void)
{
	static char a[1 << 18], b[1 << 18];

	for (int i = 0; i < NOBJ; i++) {
		snapshot(node_path[i], a, sizeof a);
		snapshot(twin_path[i], b, sizeof b);
		if (strcmp(a, b)) {
			fprintf(stderr, "node %s:\n%s\ntwin:\n%s\n", obj_name[i], a,
				b);
			fail("node and twin differ", obj_name[i]);
		}
	}
}

/* Object i and its twin: owner and group o (where the fuzzer may give
 * them away), mode (not a symlink's: it has none of its own). */
static void set_owner(int i, uid_t o, mode_t mode)
{
	for (int t = 0; t < 2; t++) {
		const char *p = t ? twin_path[i] : node_path[i];
		if (is_root && lchown(p, o, o) < 0)
			fail("lchown", p);
		if (i < 2 && chmod(p, mode) < 0)
			fail("chmod", p);
	}
}

/* Remove every attribute the fuzzer can remove; owners and modes as at
 * the start of a run. */
static void reset(uid_t owner)
{
	static char list[LIST_MAX];
	char *names[1024];

	for (int i = 0; i < NOBJ; i++) {
		for (int t = 0; t < 2; t++) {
			const char *p = t ? twin_path[i] : node_path[i];
			ssize_t r = llistxattr(p, list, sizeof list);
			size_t n = split_names(list, r < 0 ? 0 : (size_t)r, names,
					       1024);
			for (size_t k = 0; k < n; k++)
				lremovexattr(p, names[k]);
		}
		set_owner(i, owner, i ? 0755 : 0644);
	}
}

/* ---- the twin's reference calls ---- */

/* Run the twin's set or remove as the daemon would act for the caller:
 * with the caller's ids and no supplementary groups when the daemon is
 * root and the caller is not root:root.  Returns 0 or an errno. */
static int twin_change(int i, const char *name, const char *value,
		       size_t size, int flags)
{
	struct fz_as a;
	int r;

	fz_as_caller(&a);
	r = value ? lsetxattr(twin_path[i], name, value, size, flags)
		  : lremovexattr(twin_path[i], name);
	r = r < 0 ? errno : 0;
	fz_as_daemon(&a);
	return r;
}

/* ---- input ---- */

struct in {
	const uint8_t *d;
	size_t n, at;
};

static unsigned byte(struct in *in)
{
	return in->at < in->n ? in->d[in->at++] : 0;
}

static int ours(const char *name)
{
	return !strncmp(name, FOLDFS_XATTR_PREFIX, strlen(FOLDFS_XATTR_PREFIX));
}

/* NAME into buf (NUL-terminated); 0 if the kernel would not pass it on
 * (empty, too long, or a namespace it checks itself for this caller). */
static int read_name(struct in *in, char *buf)
{
	static const char *const prefix[] = {
		"user.", "trusted.", FOLDFS_XATTR_PREFIX, "user.foldfs",
		"security.", "", "user.FOLDFS.",
	};
	unsigned p = byte(in) % 7, len = byte(in);
	size_t pl = strlen(prefix[p]), k = 0;

	memcpy(buf, prefix[p], pl);
	for (; k < len && in->at < in->n && pl + k < NAME_MAX_X; k++) {
		unsigned c = byte(in);
		buf[pl + k] = c ? (char)c : '.';
	}
	buf[pl + k] = '\0';
	if (!buf[0])
		return 0;
	if ((p == 1 || p == 4) && fz_ctx.uid != 0)
		return 0;
	return 1;
}

static size_t read_value(struct in *in, char *buf)
{
	unsigned len = byte(in);
	size_t k = 0;

	if (len == 255) {
		memset(buf, 'v', 3000);
		return 3000;
	}
	for (; k < len && in->at < in->n; k++)
		buf[k] = (char)byte(in);
	return k;
}

static size_t read_size(struct in *in, size_t exact)
{
	unsigned s = byte(in);

	switch (s & 3) {
	case 0:
		return 0;
	case 1:
		return exact;
	case 2:
		return exact > 1 ? exact - 1 : 1;
	default:
		return (size_t)(s >> 2) * 4 + 1;
	}
}

/* ---- the calls ---- */

static void call_begin(void)
{
	fz_replies = 0;
	fz_err = -1;
	got_count = -1;
	got_size = 0;
}

static void call_end(const char *what, const char *name)
{
	const char *wrong;

	if (fz_replies != 1)
		fail(fz_replies ? "more than one reply" : "no reply", name);
	if ((wrong = fz_creds_wrong()))
		fail(wrong, NULL);
	if (trace)
		fprintf(stderr, "%s %s: err %d, %s %zu\n", what,
			name ? name : "", fz_err,
			got_count == 1 ? "length" : "bytes", got_size);
}

static void set_step(struct in *in, int remove)
{
	static char name[NAME_MAX_X + 16], value[4096];
	unsigned a = byte(in);
	int i = (int)((a & 3) % NOBJ);
	static const int flag[] = {0, XATTR_CREATE, XATTR_REPLACE,
				   XATTR_CREATE | XATTR_REPLACE};
	int flags = flag[a >> 2 & 3];
	int ok = read_name(in, name), want;
	size_t vl = remove ? 0 : read_value(in, value);

	if (!ok)
		return;
	call_begin();
	if (remove)
		op_removexattr(NULL, (fuse_ino_t)(uintptr_t)&nodes[i], name);
	else
		op_setxattr(NULL, (fuse_ino_t)(uintptr_t)&nodes[i], name, value,
			    vl, flags);
	call_end(remove ? "remove" : "set", name);
	want = ours(name) ? EPERM :
			    twin_change(i, name, remove ? NULL : value, vl, flags);
	if (fz_err != want) {
		fprintf(stderr, "daemon %d (%s), expected %d (%s)\n", fz_err,
			strerror(fz_err), want, strerror(want));
		fail(remove ? "removexattr answered otherwise" :
			      "setxattr answered otherwise", name);
	}
	check_same();
}

static void get_step(struct in *in)
{
	static char name[NAME_MAX_X + 16], want[LIST_MAX];
	int i = (int)(byte(in) % NOBJ);
	int ok = read_name(in, name);
	ssize_t full, r;
	size_t size;

	if (!ok)
		return;
	full = ours(name) ? -1 : lgetxattr(twin_path[i], name, NULL, 0);
	size = read_size(in, full > 0 ? (size_t)full : 0);
	call_begin();
	op_getxattr(NULL, (fuse_ino_t)(uintptr_t)&nodes[i], name, size);
	call_end("get", name);
	if (ours(name)) {
		if (fz_err != ENODATA)
			fail("the daemon's attribute was read", name);
		return;
	}
	r = lgetxattr(twin_path[i], name, size ? want : NULL, size);
	if (r < 0) {
		if (fz_err != errno) {
			fprintf(stderr, "daemon %d, expected %d\n", fz_err, errno);
			fail("getxattr answered another error", name);
		}
		return;
	}
	if (fz_err || got_count != !size || got_size != (size_t)r ||
	    (size && memcmp(got_buf, want, (size_t)r)))
		fail("getxattr answered another value", name);
}

/* Sort the NUL-terminated names of a list (n bytes) in place. */
static void sort_names(char *list, size_t n)
{
	static char copy[LIST_MAX];
	static char *names[LIST_MAX / 2];
	size_t k, at = 0;

	memcpy(copy, list, n);
	k = split_names(copy, n, names, LIST_MAX / 2);
	sort_ptrs(names, k);
	for (size_t i = 0; i < k; i++) {
		size_t l = strlen(names[i]) + 1;
		memcpy(list + at, names[i], l);
		at += l;
	}
}

/* Do two lists of n bytes, each name ending in NUL, hold the same names?
 * (Not necessarily in one order: xfs sorts a list by hash only when the
 * buffer it is given is too small for its quick path, as the daemon's
 * exact one may be.) */
static int same_names(char *a, char *b, size_t n)
{
	if (n && (a[n - 1] || b[n - 1]))
		return 0;
	sort_names(a, n);
	sort_names(b, n);
	return !memcmp(a, b, n);
}

static void list_step(struct in *in)
{
	static char list[LIST_MAX], want[LIST_MAX];
	static char *names[LIST_MAX / 2];
	int i = (int)(byte(in) % NOBJ);
	ssize_t r = llistxattr(node_path[i], list, sizeof list);
	size_t n = 0, size,
	       k = split_names(list, r < 0 ? 0 : (size_t)r, names, LIST_MAX / 2);

	for (size_t j = 0; j < k; j++) {
		size_t l = strlen(names[j]) + 1;
		if (!ours(names[j]) &&
		    !(fz_ctx.uid != 0 && !strncmp(names[j], "trusted.", 8))) {
			memcpy(want + n, names[j], l);
			n += l;
		}
	}
	size = read_size(in, n);
	call_begin();
	op_listxattr(NULL, (fuse_ino_t)(uintptr_t)&nodes[i], size);
	call_end("list", obj_name[i]);
	if (size && size < n) {
		if (fz_err != ERANGE)
			fail("a list larger than the room did not answer ERANGE",
			     obj_name[i]);
		return;
	}
	if (fz_err || got_count != !size || got_size != n ||
	    (size && !same_names(got_buf, want, n))) {
		fprintf(stderr, "daemon: err %d, %zu bytes; expected %zu\n",
			fz_err, got_size, n);
		fail("listxattr answered another list", obj_name[i]);
	}
}

static void caller_step(struct in *in)
{
	static const unsigned ids[] = {0, 1000, 1001};

	fz_ctx.uid = ids[byte(in) % 3];
	fz_ctx.gid = ids[byte(in) % 3];
}

static void owner_step(struct in *in)
{
	static const unsigned ids[] = {0, 1000, 1001};
	unsigned a = byte(in), m = byte(in);

	set_owner((int)(a % NOBJ), ids[(a >> 2) % 3],
		  (m | 0400) | (a & 0x80 ? S_ISVTX : 0));
}

static void source_step(struct in *in)
{
	static char name[NAME_MAX_X + 16], value[4096];
	int i = (int)(byte(in) % NOBJ);
	int ok = read_name(in, name);
	size_t vl = read_value(in, value);
	int a, b;

	if (!ok)
		return;
	a = lsetxattr(node_path[i], name, value, vl, 0) < 0 ? errno : 0;
	b = lsetxattr(twin_path[i], name, value, vl, 0) < 0 ? errno : 0;
	if (a != b)
		fail("the node and its twin took a change in SOURCE unlike",
		     name);
	check_same();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = {data, size, 1};
	unsigned opt;

	if (!base[0])
		setup();
	if (!size)
		return 0;
	opt = data[0];
	F.switch_creds = is_root && (opt & 1);
	memset(&fz_ctx, 0, sizeof fz_ctx);
	reset(opt & 2 ? 1000 : 0);
	check_same();
	while (in.at < in.n) {
		g_at = in.at;
		switch (byte(&in) % 7) {
		case 0:
			set_step(&in, 0);
			break;
		case 1:
			set_step(&in, 1);
			break;
		case 2:
			get_step(&in);
			break;
		case 3:
			list_step(&in);
			break;
		case 4:
			caller_step(&in);
			break;
		case 5:
			owner_step(&in);
			break;
		default:
			source_step(&in);
			break;
		}
	}
	return 0;
}
