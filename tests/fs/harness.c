/*
 * harness.c - scaffolding for the foldfs integration tests: shared check
 * counters, daemon mount/unmount with cleanup on every exit path, tool
 * runner with timeout, file helpers.  See harness.h.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "harness.h"
#include "../../fs/foldfs_ioctl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

int t_verbose = 1;
struct t_opts t_opt;

/* Counters in a shared anonymous mapping so that forked workers count into
 * the same totals as the parent. */
struct t_counts {
	long pass, fail, skip;
};
static struct t_counts *cnt;
static struct t_counts cnt_fallback;
static pid_t main_pid;
static int root_created;

#define MAX_MOUNTS 64
static struct t_mount *mounts[MAX_MOUNTS];
#define MAX_KIDS 256
static pid_t kids[MAX_KIDS];
static int nkids;

void t_track_child(pid_t pid)
{
	if (pid > 0 && nkids < MAX_KIDS)
		kids[nkids++] = pid;
}

static void kill_kids(void)
{
	/* Only children not reaped yet: a reaped pid may belong to someone else. */
	for (int i = 0; i < nkids; i++)
		if (kids[i] > 0 && waitpid(kids[i], NULL, WNOHANG) == 0)
			kill(kids[i], SIGKILL);
		else
			kids[i] = 0;
	for (int i = 0; i < nkids; i++)
		if (kids[i] > 0)
			waitpid(kids[i], NULL, 0);
	nkids = 0;
}

/* ---- output ----------------------------------------------------------- */

/* One write(2) per line so lines from concurrent workers never interleave. */
static void out_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[8192];
	int n = snprintf(buf, sizeof buf, "%s", prefix);
	if (n < 0)
		return;
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	if (m < 0)
		return;
	size_t len = (size_t)n + (size_t)m;
	if (len > sizeof buf - 2)
		len = sizeof buf - 2;
	buf[len++] = '\n';
	ssize_t w = write(1, buf, len);
	(void)w;
}

int t_check(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	if (ok) {
		__atomic_fetch_add(&cnt->pass, 1, __ATOMIC_SEQ_CST);
		if (t_verbose) {
			va_start(ap, fmt);
			out_line("ok   ", fmt, ap);
			va_end(ap);
		}
	} else {
		char pre[300];
		__atomic_fetch_add(&cnt->fail, 1, __ATOMIC_SEQ_CST);
		snprintf(pre, sizeof pre, "FAIL %s:%d: ", file, line);
		va_start(ap, fmt);
		out_line(pre, fmt, ap);
		va_end(ap);
	}
	return ok;
}

int t_check_errno(long rc, int err, int want, const char *file, int line,
		  const char *fmt, ...)
{
	char what[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (want == 0) {
		if (rc >= 0)
			return t_check(1, file, line, "%s", what);
		return t_check(0, file, line, "%s: failed: %s", what,
			       strerror(err));
	}
	if (rc == -1 && err == want)
		return t_check(1, file, line, "%s -> %s", what, strerrorname_np(want));
	if (rc == -1)
		return t_check(0, file, line, "%s: expected %s, got %s", what,
			       strerrorname_np(want), strerrorname_np(err));
	return t_check(0, file, line, "%s: expected %s, but it succeeded (%ld)",
		       what, strerrorname_np(want), rc);
}

void t_skip(const char *fmt, ...)
{
	va_list ap;
	__atomic_fetch_add(&cnt->skip, 1, __ATOMIC_SEQ_CST);
	va_start(ap, fmt);
	out_line("skipped ", fmt, ap);
	va_end(ap);
}

void t_section(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_line("\n== ", fmt, ap);
	va_end(ap);
}

void t_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_line("   # ", fmt, ap);
	va_end(ap);
}

long t_passed(void) { return cnt->pass; }
long t_failed(void) { return cnt->fail; }

static void print_counts(long extra_fail)
{
	char buf[200];
	int n;
	if (cnt->skip)
		n = snprintf(buf, sizeof buf, "%ld passed, %ld failed, %ld skipped\n",
			     cnt->pass, cnt->fail + extra_fail, cnt->skip);
	else
		n = snprintf(buf, sizeof buf, "%ld passed, %ld failed\n",
			     cnt->pass, cnt->fail + extra_fail);
	ssize_t w = write(1, buf, (size_t)n);
	(void)w;
}

/* ---- time ------------------------------------------------------------- */

double t_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void t_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* ---- processes -------------------------------------------------------- */

/* Wait for pid up to timeout_s; returns its wait status, or -1 on timeout. */
static int wait_deadline(pid_t pid, double timeout_s)
{
	double end = t_now() + timeout_s;
	for (;;) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if (r == -1 && errno != EINTR)
			return -2;
		if (t_now() > end)
			return -1;
		t_sleep_ms(5);
	}
}

static int status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

int t_run(const char *const argv[], char *out, size_t cap, int timeout_s)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) == -1)
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == -1) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		signal(SIGALRM, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	size_t len = 0;
	double end = t_now() + timeout_s;
	int timed_out = 0;
	for (;;) {
		int ms = (int)((end - t_now()) * 1000);
		if (ms <= 0) {
			timed_out = 1;
			break;
		}
		struct pollfd p = {pfd[0], POLLIN, 0};
		int r = poll(&p, 1, ms);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		char tmp[4096];
		ssize_t n = read(pfd[0], tmp, sizeof tmp);
		if (n <= 0)
			break;
		if (out && cap > 1 && len < cap - 1) {
			size_t k = (size_t)n;
			if (k > cap - 1 - len)
				k = cap - 1 - len;
			memcpy(out + len, tmp, k);
			len += k;
		}
	}
	close(pfd[0]);
	if (out && cap)
		out[len] = 0;
	int st = timed_out ? -1 : wait_deadline(pid, end - t_now() + 0.5);
	if (st < 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return status_code(st);
}

/* ---- mountinfo -------------------------------------------------------- */

int t_is_mounted(const char *path)
{
	return t_mounts_at(path) > 0;
}

int t_mounts_at(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	char line[8192];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		/* id parent maj:min root mountpoint ... */
		char *p = line;
		for (int i = 0; i < 4 && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (!p)
			continue;
		char *e = strchr(p, ' ');
		if (!e)
			continue;
		if ((size_t)(e - p) == strlen(path) &&
		    memcmp(p, path, (size_t)(e - p)) == 0)
			n++;
	}
	fclose(f);
	return n;
}

/* Find a running foldfs whose argv names mnt (daemon-mode mounts). */
static pid_t find_daemon(const char *mnt)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct dirent *de;
	pid_t found = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char p[300], buf[8192];
		snprintf(p, sizeof p, "/proc/%s/cmdline", de->d_name);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		const char *a0 = buf;
		size_t l0 = strlen(a0);
		if (l0 < 6 || strcmp(a0 + l0 - 6, "foldfs") != 0)
			continue;
		for (const char *a = buf; a < buf + n; a += strlen(a) + 1)
			if (strcmp(a, mnt) == 0)
				found = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return found;
}

/* ---- cleanup ---------------------------------------------------------- */

static void track(struct t_mount *m)
{
	for (int i = 0; i < MAX_MOUNTS; i++)
		if (mounts[i] == m)
			return;
	for (int i = 0; i < MAX_MOUNTS; i++)
		if (!mounts[i]) {
			mounts[i] = m;
			return;
		}
}

static void untrack(struct t_mount *m)
{
	for (int i = 0; i < MAX_MOUNTS; i++)
		if (mounts[i] == m)
			mounts[i] = NULL;
}

static void run_quiet(const char *a, const char *b, const char *c,
		      const char *d)
{
	const char *argv[] = {a, b, c, d, NULL};
	t_run(argv, NULL, 0, 10);
}

/* Last-resort teardown: lazy unmount and kill.  Used at exit and from the
 * signal handler, so it sticks to fork/exec/kill/wait. */
static void cleanup_all(void)
{
	if (getpid() != main_pid)
		return;
	for (int i = 0; i < MAX_MOUNTS; i++) {
		struct t_mount *m = mounts[i];
		if (!m)
			continue;
		if (t_is_mounted(m->mnt))
			run_quiet("fusermount3", "-u", "-z", m->mnt);
		pid_t pid = m->pid ? m->pid : find_daemon(m->mnt);
		if (pid > 0) {
			kill(pid, SIGTERM);
			if (wait_deadline(pid, 3) < 0 && m->pid) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
			} else if (!m->pid) {
				kill(pid, SIGKILL);
			}
		}
		m->live = 0;
		mounts[i] = NULL;
	}
	if (root_created && t_opt.root)
		run_quiet("rm", "-rf", "--one-file-system", t_opt.root);
	root_created = 0;
}

static void on_signal(int sig)
{
	if (getpid() != main_pid)
		_exit(1);
	char msg[160];
	int n = snprintf(msg, sizeof msg,
			 "\nFAIL %s: aborting, cleaning up mounts\n",
			 sig == SIGALRM ? "watchdog expired" : strsignal(sig));
	ssize_t w = write(1, msg, (size_t)n);
	(void)w;
	kill_kids();
	cleanup_all();
	print_counts(1);
	_exit(1);
}

/* ---- setup ------------------------------------------------------------ */

/* Sections named by t_sections(), and which of them --only picked. */
#define MAX_SECTIONS 64
static const char *const *sec_names;
static int nsec;
static unsigned char sec_picked[MAX_SECTIONS];
static unsigned char sec_skipped[MAX_SECTIONS]; /* --skip named it */
static int sec_only; /* --only was given */

void t_sections(const char *const names[])
{
	sec_names = names;
	for (nsec = 0; names[nsec] && nsec < MAX_SECTIONS; nsec++)
		;
}

static int sec_index(const char *name, size_t len)
{
	for (int i = 0; i < nsec; i++)
		if (strlen(sec_names[i]) == len && !memcmp(sec_names[i], name, len))
			return i;
	return -1;
}

/* --only LIST (mark sec_picked) or --skip LIST (sec_skipped): each name
 * of the comma-separated list.  A name not in the list would otherwise
 * run nothing (or everything) and pass, so it ends the run. */
static void pick_sections(const char *prog, const char *opt, const char *list,
			  unsigned char *mark)
{
	sec_only |= mark == sec_picked;
	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");
		int i = sec_index(p, n);
		if (i < 0) {
			fprintf(stderr, "%s: %s: unknown section '%.*s' (see --help)\n", prog,
				opt, (int)n, p);
			exit(2);
		}
		mark[i] = 1;
		p += n;
		if (!*p)
			break;
	}
}

static void print_sections(void)
{
	int col = 3;
	fputs("\nSECTIONS (--only NAME[,NAME...], --skip NAME[,NAME...])\n   ", stdout);
	for (int i = 0; i < nsec; i++) {
		int w = (int)strlen(sec_names[i]) + 1;
		if (col + w > 76) {
			fputs("\n   ", stdout);
			col = 3;
		}
		printf(" %s", sec_names[i]);
		col += w;
	}
	putchar('\n');
}

int t_want(const char *name)
{
	int i = sec_index(name, strlen(name));
	if (i < 0)
		return !t_check(0, __FILE__, __LINE__, "section '%s' is not in t_sections()",
				name);
	if (sec_skipped[i]) {
		/* once: a section may ask more than once */
		if (sec_skipped[i] == 1) {
			sec_skipped[i] = 2;
			t_skip("section %s (--skip)", name);
		}
		return 0;
	}
	return !sec_only || sec_picked[i];
}

void t_init(int argc, char **argv, const char *help,
	    int (*extra)(const char *opt, const char *arg))
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	cnt = mmap(NULL, sizeof *cnt, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cnt == MAP_FAILED)
		cnt = &cnt_fallback;
	main_pid = getpid();
	t_opt.foldfs = getenv("FOLDFS");
	t_opt.root = getenv("FSTEST_ROOT");
	t_opt.watchdog = 300;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			if (nsec)
				print_sections();
			exit(0);
		} else if (!strcmp(a, "-v")) {
			t_verbose = 1;
		} else if (!strcmp(a, "-q")) {
			t_verbose = 0;
		} else if (!strcmp(a, "--foldfs") && v) {
			t_opt.foldfs = v;
			i++;
		} else if (!strcmp(a, "--root") && v) {
			t_opt.root = v;
			i++;
		} else if (!strcmp(a, "--watchdog") && v) {
			t_opt.watchdog = atoi(v);
			i++;
		} else if ((!strcmp(a, "--only") || !strcmp(a, "--skip")) && nsec) {
			if (!v) {
				fprintf(stderr, "%s: %s needs a section name (see --help)\n",
					argv[0], a);
				exit(2);
			}
			pick_sections(argv[0], a, v,
				      !strcmp(a, "--only") ? sec_picked : sec_skipped);
			i++;
		} else {
			int r = extra ? extra(a, v) : -1;
			if (r < 0) {
				fprintf(stderr, "%s: unknown option '%s' (see --help)\n",
					argv[0], a);
				exit(2);
			}
			i += r;
		}
	}
	if (!t_opt.foldfs)
		t_opt.foldfs = "build/foldfs";
	static char fbuf[4096];
	if (!realpath(t_opt.foldfs, fbuf) || access(fbuf, X_OK) != 0) {
		printf("FAIL foldfs daemon not found or not executable: %s\n",
		       t_opt.foldfs);
		print_counts(1);
		exit(1);
	}
	t_opt.foldfs = fbuf;
	static char rbuf[4096];
	if (t_opt.root) {
		if (!realpath(t_opt.root, rbuf)) {
			fprintf(stderr, "--root %s: %s\n", t_opt.root, strerror(errno));
			exit(2);
		}
	} else {
		strcpy(rbuf, "/tmp/fstest-XXXXXX");
		if (!mkdtemp(rbuf)) {
			perror("mkdtemp");
			exit(2);
		}
		root_created = 1;
	}
	t_opt.root = rbuf;
	/* mkdtemp makes 0700; the allow_other tests run as another user. */
	chmod(t_opt.root, 0755);

	atexit(cleanup_all);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (t_opt.watchdog > 0)
		alarm((unsigned)t_opt.watchdog);
	printf("# foldfs: %s\n# scratch: %s\n", t_opt.foldfs, t_opt.root);
}

void t_cleanup(void)
{
	alarm(0);
	cleanup_all();
}

int t_finish(void)
{
	alarm(0);
	cleanup_all();
	fflush(stdout);
	print_counts(0);
	return cnt->fail ? 1 : 0;
}

/* ---- mounts ----------------------------------------------------------- */

const char *t_newdir(const char *prefix)
{
	static int seq;
	char buf[4096];
	snprintf(buf, sizeof buf, "%s/%s-%d", t_opt.root, prefix, ++seq);
	if (mkdir(buf, 0755) == -1 && errno != EEXIST) {
		CHECK(0, "mkdir %s: %s", buf, strerror(errno));
		return NULL;
	}
	char *r = strdup(buf);
	return r;
}

void t_show_log(const struct t_mount *m)
{
	char buf[6000];
	int fd = open(m->log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t sz = lseek(fd, 0, SEEK_END);
	off_t from = sz > (off_t)sizeof buf - 1 ? sz - (off_t)sizeof buf + 1 : 0;
	ssize_t n = pread(fd, buf, sizeof buf - 1, from);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	printf("   --- daemon log %s (tail) ---\n", m->log);
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		printf("   | %s\n", l);
	printf("   ---\n");
}

long t_log_count(const struct t_mount *m, const char *what)
{
	FILE *f = fopen(m->log, "re");
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0)
		n += strstr(line, what) != NULL;
	free(line);
	fclose(f);
	return n;
}

static int setup_mount(struct t_mount *m, const char *src, const char *opts)
{
	static int seq;
	seq++;
	if (src != m->src)
		snprintf(m->src, sizeof m->src, "%s", src);
	if (opts != m->opts)
		snprintf(m->opts, sizeof m->opts, "%s", opts ? opts : "");
	if (!m->mnt[0]) {
		snprintf(m->mnt, sizeof m->mnt, "%s/mnt-%d", t_opt.root, seq);
		if (mkdir(m->mnt, 0755) == -1 && errno != EEXIST) {
			CHECK(0, "mkdir %s: %s", m->mnt, strerror(errno));
			return -1;
		}
	}
	snprintf(m->log, sizeof m->log, "%s/daemon-%d.log", t_opt.root, seq);
	m->pid = 0;
	m->live = 0;
	return 0;
}

/* "foldfs SRC MNT [-f] [-s] [-o OPTS]" for m into argv[0..7). */
static void daemon_argv(const struct t_mount *m, int foreground, const char *argv[8])
{
	int n = 0;
	argv[n++] = t_opt.foldfs;
	argv[n++] = m->src;
	argv[n++] = m->mnt;
	if (foreground)
		argv[n++] = "-f";
	if (m->single)
		argv[n++] = "-s";
	if (m->opts[0]) {
		argv[n++] = "-o";
		argv[n++] = m->opts;
	}
	argv[n] = NULL;
}

int t_mount(struct t_mount *m, const char *src, const char *opts)
{
	if (setup_mount(m, src, opts))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == -1)
		return -1;
	if (pid == 0) {
		int fd = open(m->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		setpgid(0, 0);
		signal(SIGALRM, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		alarm(0);
		if (m->nofile > 0) {
			struct rlimit rl = {(rlim_t)m->nofile, (rlim_t)m->nofile};
			if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
				dprintf(2, "setrlimit: %s\n", strerror(errno));
		}
		const char *argv[8];
		daemon_argv(m, 1, argv);
		size_t rl = strlen(t_opt.root);
		if (m->relative && !strncmp(m->src, t_opt.root, rl) && m->src[rl] == '/' &&
		    !strncmp(m->mnt, t_opt.root, rl) && m->mnt[rl] == '/' && chdir(t_opt.root) == 0) {
			argv[1] = m->src + rl + 1;
			argv[2] = m->mnt + rl + 1;
		}
		execv(argv[0], (char *const *)argv);
		dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	m->pid = pid;
	track(m);
	/* Record the pid for the shell wrapper's last-resort cleanup. */
	char pf[4200];
	snprintf(pf, sizeof pf, "%s/pids", t_opt.root);
	FILE *f = fopen(pf, "ae");
	if (f) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	double end = t_now() + 20;
	while (t_now() < end) {
		if (t_is_mounted(m->mnt)) {
			m->live = 1;
			return 0;
		}
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			CHECK(0, "mount %s -o '%s': daemon exited with status %d before mounting",
			      m->src, m->opts, status_code(st));
			m->pid = 0;
			untrack(m);
			t_show_log(m);
			return -1;
		}
		t_sleep_ms(5);
	}
	CHECK(0, "mount %s -o '%s': not mounted after 20 s", m->src, m->opts);
	t_show_log(m);
	return -1;
}

int t_mount_daemon(struct t_mount *m, const char *src, const char *opts)
{
	if (setup_mount(m, src, opts))
		return -1;
	const char *argv[8];
	daemon_argv(m, 0, argv);
	char out[4096];
	track(m);
	int rc = t_run(argv, out, sizeof out, 20);
	if (rc != 0 || !t_is_mounted(m->mnt)) {
		CHECK(0, "daemon-mode mount %s -o '%s': exit %d, mounted=%d\n%s", m->src,
		      m->opts, rc, t_is_mounted(m->mnt), out);
		if (!t_is_mounted(m->mnt))
			untrack(m);
		return -1;
	}
	m->live = 1;
	return 0;
}

int t_umount(struct t_mount *m)
{
	if (!m->live && !t_is_mounted(m->mnt))
		return 0;
	char out[2048] = "";
	int rc = -1;
	const char *argv[] = {"fusermount3", "-u", m->mnt, NULL};
	/* A just-closed fd can keep the mount busy for a moment. */
	for (int i = 0; i < 50; i++) {
		rc = t_run(argv, out, sizeof out, 15);
		if (rc == 0 || !t_is_mounted(m->mnt))
			break;
		t_sleep_ms(100);
	}
	if (rc != 0 && t_is_mounted(m->mnt)) {
		printf("FAIL fusermount3 -u %s: %s", m->mnt, out);
		run_quiet("fusermount3", "-u", "-z", m->mnt);
	}
	int ok = 1;
	if (m->pid > 0) {
		int st = wait_deadline(m->pid, 20);
		if (st < 0) {
			kill(m->pid, SIGKILL);
			waitpid(m->pid, NULL, 0);
			ok = CHECK(0, "daemon for %s exits after unmount (had to kill it)",
				   m->mnt);
		} else {
			ok = CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
				   "daemon for %s (-o '%s') exited with status %d after unmount",
				   m->mnt, m->opts, status_code(st));
		}
		if (!ok)
			t_show_log(m);
	} else {
		/* Daemon mode: wait until no foldfs serves this mount point. */
		double end = t_now() + 20;
		pid_t p;
		while ((p = find_daemon(m->mnt)) && t_now() < end)
			t_sleep_ms(10);
		ok = CHECK(!p, "daemon-mode foldfs for %s exited after unmount", m->mnt);
		if (p)
			kill(p, SIGKILL);
	}
	m->pid = 0;
	m->live = 0;
	untrack(m);
	return ok && rc == 0 ? 0 : -1;
}

int t_remount(struct t_mount *m)
{
	t_umount(m);
	return t_mount(m, m->src, m->opts);
}

int t_mount_refused(const char *src, const char *opts, char *out, size_t cap)
{
	static struct t_mount tmp;
	memset(&tmp, 0, sizeof tmp);
	if (setup_mount(&tmp, src, opts))
		return -1;
	const char *argv[8];
	daemon_argv(&tmp, 0, argv);
	track(&tmp);
	int rc = t_run(argv, out, cap, 20);
	if (t_is_mounted(tmp.mnt)) {
		printf("   # (it mounted anyway; unmounting %s)\n", tmp.mnt);
		tmp.live = 1;
		t_umount(&tmp);
	}
	untrack(&tmp);
	return rc;
}

/* ---- paths and files -------------------------------------------------- */

/* Paths are handed out from a bump arena and never freed: the programs are
 * short-lived, and callers may keep any number of them. */
const char *t_path(const char *dir, const char *rel)
{
	static char *chunk;
	static size_t left;
	size_t need = strlen(dir) + strlen(rel) + 2;
	if (need > left) {
		size_t sz = need > 65536 ? need : 65536;
		chunk = malloc(sz);
		if (!chunk) {
			perror("malloc");
			exit(2);
		}
		left = sz;
	}
	char *b = chunk;
	snprintf(b, need, "%s/%s", dir, rel);
	chunk += need;
	left -= need;
	return b;
}

/* Length of a well-formed UTF-8 sequence at s, 0 if ill-formed. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	int n;
	unsigned cp;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

const char *t_q(const char *s)
{
	static char buf[16][1024];
	static int k;
	char *b = buf[k++ & 15];
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;
	b[o++] = '"';
	while (*p && o < 1000) {
		int n = utf8_len(p);
		if (n == 1 && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
			b[o++] = (char)*p++;
		} else if (n > 1) {
			/* Show invisible and combining code points by number, so
			 * that NFC and NFD spellings differ on the screen too. */
			unsigned cp = p[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
			for (int i = 1; i < n; i++)
				cp = cp << 6 | (p[i] & 0x3f);
			if ((cp >= 0x300 && cp <= 0x36f) || cp == 0xad ||
			    (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2060 && cp <= 0x206f) ||
			    (cp >= 0x3099 && cp <= 0x309a) || (cp >= 0xfe00 && cp <= 0xfe0f) ||
			    (cp >= 0x1160 && cp <= 0x11ff) || cp == 0xfeff)
				o += (size_t)snprintf(b + o, 12, "<U+%04X>", cp);
			else
				memcpy(b + o, p, (size_t)n), o += (size_t)n;
			p += n;
		} else {
			o += (size_t)snprintf(b + o, 8, "\\x%02x", *p++);
		}
	}
	b[o++] = '"';
	b[o] = 0;
	return b;
}

int t_write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t len = strlen(data);
	ssize_t n = write(fd, data, len);
	int e = errno;
	if (close(fd) == -1 || n != (ssize_t)len) {
		errno = n == -1 ? e : EIO;
		return -1;
	}
	return 0;
}

ssize_t t_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return (ssize_t)len;
}

int t_file_is(const char *path, const char *want)
{
	char buf[4096];
	ssize_t n = t_read_file(path, buf, sizeof buf);
	return n >= 0 && strcmp(buf, want) == 0;
}

int t_dir_has(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, name) == 0)
			found++;
	closedir(d);
	return found;
}

long t_dir_count(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *de;
	long n = 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

ino_t t_ino(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == -1)
		return 0;
	return st.st_ino;
}

/* One ioctl on path opened read-only with oflags; its errno is kept. */
static int ioctl_path(const char *path, int oflags, unsigned long req, void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | oflags);
	if (fd < 0)
		return -1;
	int r = ioctl(fd, req, arg);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

int t_get_flags(const char *path, int *fl)
{
	return ioctl_path(path, O_NONBLOCK, FS_IOC_GETFLAGS, fl);
}

int t_set_flags(const char *path, int fl)
{
	return ioctl_path(path, O_NONBLOCK, FS_IOC_SETFLAGS, &fl);
}

int t_set_casefold_with(const char *path, int on, int also)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int fl = 0;
	int r = ioctl(fd, FS_IOC_GETFLAGS, &fl);
	if (r == 0) {
		fl = on ? (fl | FS_CASEFOLD_FL) : (fl & ~FS_CASEFOLD_FL);
		r = ioctl(fd, FS_IOC_SETFLAGS, &(int){fl | also});
	}
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

int t_set_casefold(const char *path, int on)
{
	return t_set_casefold_with(path, on, 0);
}

int t_has_casefold(const char *path)
{
	int fl = 0;
	if (t_get_flags(path, &fl) == -1)
		return -1;
	return (fl & FS_CASEFOLD_FL) != 0;
}

int t_respell(const char *dir, const char *from, const char *to)
{
	struct foldfs_respell r;
	memset(&r, 0, sizeof r);
	snprintf(r.from, sizeof r.from, "%s", from);
	snprintf(r.to, sizeof r.to, "%s", to);
	return ioctl_path(dir, O_DIRECTORY, FOLDFS_IOC_RESPELL, &r);
}

int t_ext2_image(const char *d, char *mnt, size_t cap, char *out, size_t outcap)
{
	char img[4200];
	snprintf(img, sizeof img, "%s/fs.img", d);
	snprintf(mnt, cap, "%s/mnt", d);
	const char *mk[] = {"mkfs.ext2", "-q", "-F", img, NULL};
	const char *mo[] = {"mount", "-o", "loop", img, mnt, NULL};
	int fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 8 << 20) < 0 || close(fd) < 0 || mkdir(mnt, 0755) < 0 ||
	    t_run(mk, out, outcap, 60) != 0 || t_run(mo, out, outcap, 60) != 0)
		return -1;
	return 0;
}

void t_ext2_umount(const char *mnt)
{
	const char *um[] = {"umount", mnt, NULL};
	t_run(um, NULL, 0, 60);
}
