/*
 * foldfs-check-report.c - everything foldfs-check prints: escaped names for
 * terminals, JSON Lines objects, error lines, the summary and the progress
 * line.  Names are arbitrary bytes, so every printer here is byte-exact and
 * reversible: text shows unprintable and ill-formed bytes as \xNN, JSON
 * carries the exact bytes again in a *_hex field.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "foldfs-check.h"

void rep_escape(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		uint32_t cp;
		size_t l = u8_decode(p + i, n - i, &cp);

		if (l == 1 && cp >= 0x20 && cp != 0x7f && cp != '\\' &&
		    cp != '\'') {
			putc((int)cp, f);
		} else if (l == 1 && (cp == '\\' || cp == '\'')) {
			putc('\\', f);
			putc((int)cp, f);
		} else if (l > 1 && !u8_unsafe(cp)) {
			fwrite(p + i, 1, l, f);
		} else {
			size_t k;

			if (!l)
				l = 1;
			for (k = 0; k < l; k++)
				fprintf(f, "\\x%02x", p[i + k]);
		}
		i += l;
	}
}

const char *rep_q(const char *s)
{
	static char *ring[4];
	static unsigned at;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return s;
	rep_escape(f, s, strlen(s));
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return s;
	}
	at = (at + 1) % 4;
	free(ring[at]);
	ring[at] = buf;
	return buf;
}

void rep_json_str(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	putc('"', f);
	while (i < n) {
		uint32_t cp;
		size_t l = u8_decode(p + i, n - i, &cp);

		if (!l) {
			/* Ill-formed byte: visible as \xNN; exact bytes are
			 * in the companion *_hex field. */
			fprintf(f, "\\\\x%02x", p[i]);
			i++;
			continue;
		}
		if (l == 1) {
			if (cp == '"' || cp == '\\')
				fprintf(f, "\\%c", (int)cp);
			else if (cp < 0x20 || cp == 0x7f)
				fprintf(f, "\\u%04x", cp);
			else
				putc((int)cp, f);
		} else if (u8_unsafe(cp)) {
			/* What the text output escapes: C1 controls (a
			 * terminal acts on them: U+009B starts a CSI), bidi
			 * controls (they reorder what a terminal or a pager
			 * shows), and U+2028/9 (valid JSON that breaks some
			 * JavaScript readers). */
			fprintf(f, "\\u%04x", cp);
		} else {
			fwrite(p + i, 1, l, f);
		}
		i += l;
	}
	putc('"', f);
}

void rep_hex(FILE *f, const char *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		putc(hx[b >> 4], f);
		putc(hx[b & 15], f);
	}
}

/* "key":"escaped","key_hex":"..." */
void rep_json_name(FILE *f, const char *key, const char *s, size_t n)
{
	fprintf(f, "\"%s\":", key);
	rep_json_str(f, s, n);
	fprintf(f, ",\"%s_hex\":\"", key);
	rep_hex(f, s, n);
	putc('"', f);
}

void rep_version(FILE *f, uint32_t v)
{
	if (!v) {
		fputs("unassigned", f);
		return;
	}
	fprintf(f, "%u.%u", v >> 16, (v >> 8) & 0xff);
	if (v & 0xff)
		fprintf(f, ".%u", v & 0xff);
}

/* Start a JSON object for a finding in directory path. */
void rep_json_begin(struct check *c, const char *type, const char *path,
		    size_t pathlen)
{
	(void)c;
	fprintf(stdout, "{\"type\":\"%s\",", type);
	rep_json_name(stdout, "dir", path, pathlen);
}

/* Text reports group findings under a "DIR:" header line, printed once per
 * directory before its first finding. */
void rep_dir_header(struct check *c, const char *path, size_t pathlen)
{
	if (c->json || c->dir_reported)
		return;
	rep_progress(c, NULL, 0, 1);
	rep_escape(stdout, path, pathlen);
	fputs(":\n", stdout);
	c->dir_reported = 1;
}

void rep_error(struct check *c, const char *path, size_t pathlen,
	       const char *name, const char *what, int err)
{
	c->st.errors++;
	rep_progress(c, NULL, 0, 1);
	if (c->json) {
		rep_json_begin(c, "error", path, pathlen);
		if (name) {
			putc(',', stdout);
			rep_json_name(stdout, "name", name, strlen(name));
		}
		fprintf(stdout, ",\"op\":\"%s\",\"errno\":%d,\"message\":",
			what, err);
		rep_json_str(stdout, strerror(err), strlen(strerror(err)));
		fputs("}\n", stdout);
	}
	/* Operational errors always reach stderr too, as fsck does. */
	fflush(stdout);
	fputs("foldfs-check: ", stderr);
	rep_escape(stderr, path, pathlen);
	if (name) {
		putc('/', stderr);
		rep_escape(stderr, name, strlen(name));
	}
	fprintf(stderr, ": %s: %s\n", what, strerror(err));
}

void rep_note(struct check *c, const char *fmt, ...)
{
	va_list ap;
	char *buf;

	va_start(ap, fmt);
	if (vasprintf(&buf, fmt, ap) < 0)
		buf = NULL;
	va_end(ap);
	if (!buf)
		return;
	if (c->json) {
		fputs("{\"type\":\"note\",\"message\":", stdout);
		rep_json_str(stdout, buf, strlen(buf));
		fputs("}\n", stdout);
	} else if (!c->quiet) {
		printf("foldfs-check: %s\n", rep_q(buf));
	}
	free(buf);
}

void rep_flags_text(unsigned flags, char *buf, size_t cap)
{
	size_t l;

	foldfs_flags_format(flags, buf, cap);
	l = strlen(buf);
	if (flags & FOLD_KERNEL_ORDER)
		snprintf(buf + l, cap - l, "%skernel-order", l ? "," : "");
}

void rep_summary(struct check *c, int status)
{
	const struct stats *s = &c->st;
	char flags[64];

	rep_progress(c, NULL, 0, 1);
	rep_flags_text(c->ctx.flags, flags, sizeof flags);
	if (c->json) {
		fputs("{\"type\":\"summary\",", stdout);
		rep_json_name(stdout, "path", c->root, strlen(c->root));
		fprintf(stdout,
			",\"encoding\":\"%s\",\"flags\":\"%s\","
			"\"record\":%s,\"folding\":\"%s\","
			"\"directories\":%llu,\"folding_directories\":%llu,"
			"\"names\":%llu,\"collision_groups\":%llu,"
			"\"colliding_names\":%llu,\"ill_formed\":%llu,"
			"\"ill_formed_errors\":%llu,\"errors\":%llu,"
			"\"renamed\":%llu,\"would_rename\":%llu,"
			"\"rename_failed\":%llu",
			c->enc_name, flags, c->have_record ? "true" : "false",
			c->force_casefold ? "all" : "attribute",
			(unsigned long long)s->dirs,
			(unsigned long long)s->folding_dirs,
			(unsigned long long)s->names,
			(unsigned long long)s->groups,
			(unsigned long long)s->colliding,
			(unsigned long long)s->ill_formed,
			(unsigned long long)s->ill_errors,
			(unsigned long long)s->errors,
			(unsigned long long)s->renamed,
			(unsigned long long)s->would_rename,
			(unsigned long long)s->rename_failed);
		if (c->whatif)
			fprintf(stdout,
				",\"target\":\"%s\",\"class_changes\":%llu,"
				"\"would_collide\":%llu,\"would_split\":%llu,"
				"\"would_refuse\":%llu",
				c->tenc_name,
				(unsigned long long)s->class_changes,
				(unsigned long long)s->would_collide,
				(unsigned long long)s->would_split,
				(unsigned long long)s->would_strict);
		if (c->mode == MODE_CASEFOLD_DIR)
			fprintf(stdout, ",\"casefold_set\":%llu",
				(unsigned long long)s->xattr_set);
		fprintf(stdout, ",\"exit\":%d}\n", status);
		return;
	}
	if (c->quiet)
		return;
	fputs("foldfs-check: ", stdout);
	rep_escape(stdout, c->root, strlen(c->root));
	printf(": %llu director%s (%llu folding), %llu name%s; "
	       "%llu collision group%s (%llu names), %llu ill-formed name%s",
	       (unsigned long long)s->dirs, s->dirs == 1 ? "y" : "ies",
	       (unsigned long long)s->folding_dirs,
	       (unsigned long long)s->names, s->names == 1 ? "" : "s",
	       (unsigned long long)s->groups,
	       s->groups == 1 ? "" : "s", (unsigned long long)s->colliding,
	       (unsigned long long)s->ill_formed,
	       s->ill_formed == 1 ? "" : "s");
	if (s->renamed || s->rename_failed)
		printf(", %llu renamed", (unsigned long long)s->renamed);
	if (s->rename_failed)
		printf(", %llu rename%s failed",
		       (unsigned long long)s->rename_failed,
		       s->rename_failed == 1 ? "" : "s");
	if (s->would_rename)
		printf(", %llu would be renamed",
		       (unsigned long long)s->would_rename);
	if (c->whatif)
		printf("; under %s: %llu class change%s, %llu new "
		       "collision%s, %llu split%s, %llu refused",
		       c->tenc_name, (unsigned long long)s->class_changes,
		       s->class_changes == 1 ? "" : "s",
		       (unsigned long long)s->would_collide,
		       s->would_collide == 1 ? "" : "s",
		       (unsigned long long)s->would_split,
		       s->would_split == 1 ? "" : "s",
		       (unsigned long long)s->would_strict);
	printf("; %llu error%s; exit %d\n", (unsigned long long)s->errors,
	       s->errors == 1 ? "" : "s", status);
}

/* A single self-overwriting status line, only on a terminal, at most five
 * times a second so it costs nothing measurable. */
void rep_progress(struct check *c, const char *path, size_t pathlen,
		  int done)
{
	static struct timespec last;
	static int shown;
	static long first_ms = -1;
	struct timespec now;
	long ms;

	(void)path;
	(void)pathlen;
	if (!c->progress)
		return;
	if (done) {
		if (shown) {
			fputs("\r\033[K", stderr);
			fflush(stderr);
			shown = 0;
		}
		return;
	}
	if (first_ms < 0) {
		/* FOLDFS_CHECK_PROGRESS_MS: test hook, the delay before the
		 * first progress line (default half a second). */
		const char *e = getenv("FOLDFS_CHECK_PROGRESS_MS");

		first_ms = e && *e ? atol(e) : 500;
	}
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	ms = (now.tv_sec - last.tv_sec) * 1000 +
	     (now.tv_nsec - last.tv_nsec) / 1000000;
	if (shown && ms < 200)
		return;
	if (!shown && !last.tv_sec && !last.tv_nsec && first_ms > 0) {
		/* First call: start the clock; show nothing for small
		 * trees that finish within the first interval. */
		last = now;
		return;
	}
	if (!shown && ms < first_ms)
		return;
	last = now;
	fflush(stdout);
	fprintf(stderr, "\r\033[Kfoldfs-check: %llu directories, %llu names",
		(unsigned long long)c->st.dirs,
		(unsigned long long)c->st.names);
	fflush(stderr);
	shown = 1;
}

/* Close a JSON object on stdout, with "error" when err is set. */
void rep_json_end(int err)
{
	if (err) {
		fputs(",\"error\":", stdout);
		rep_json_str(stdout, strerror(err), strlen(strerror(err)));
	}
	fputs("}\n", stdout);
}
