/*
 * fuzz-u8.c - the command-line tools' UTF-8 decoder (tools/u8.c), which
 * foldfs-check and foldfs-norm use to show and escape names, against
 * libfold's validator: walking a string with u8_decode() must stop at
 * exactly the offset fold_validate() reports (a NUL byte counts as ill
 * formed for both), and every character it accepts must be the shortest
 * encoding of a scalar value, re-encoding to the same bytes.
 *
 * Then the two printers of names built on it (tools/foldfs-check-report.c):
 * rep_escape() must give only safe text (no control, C1, bidi or line
 * separator character, well-formed UTF-8) that unescape() below turns
 * back into exactly the input; rep_q() must say the same for the bytes
 * before the first NUL; and rep_json_str() must give one valid JSON
 * string whose value is the input with each ill-formed byte written as
 * the four characters \xNN.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foldfs-check.h"
#include "fuzz-text.h"

static size_t encode(uint32_t cp, unsigned char *o)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | cp >> 18);
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

static void fail(const char *what, const uint8_t *d, size_t n, size_t at)
{
	fprintf(stderr, "fuzz-u8: %s at offset %zu; input:", what, at);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %02x", d[i]);
	fputc('\n', stderr);
	abort();
}

static int hexval(unsigned char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
				      : -1;
}

/* The reverse of rep_escape (\\, \' and \xNN); -1 for text it cannot
 * have written.  out has room for n bytes. */
static long unescape(const unsigned char *e, size_t n, unsigned char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		if (e[i] != '\\') {
			out[o++] = e[i++];
			continue;
		}
		if (i + 1 < n && (e[i + 1] == '\\' || e[i + 1] == '\'')) {
			out[o++] = e[i + 1];
			i += 2;
		} else if (i + 3 < n && e[i + 1] == 'x' && hexval(e[i + 2]) >= 0 &&
			   hexval(e[i + 3]) >= 0) {
			out[o++] = (unsigned char)(hexval(e[i + 2]) << 4 |
						   hexval(e[i + 3]));
			i += 4;
		} else {
			return -1;
		}
	}
	return (long)o;
}

/* The value of the JSON string at j[0..n) (quotes included), decoded
 * into out (room for n bytes); -1 if it is not exactly one valid JSON
 * string of well-formed UTF-8. */
static long json_value(const unsigned char *j, size_t n, unsigned char *out)
{
	size_t i = 1, o = 0;

	if (n < 2 || j[0] != '"' || j[n - 1] != '"')
		return -1;
	while (i < n - 1) {
		uint32_t cp;
		size_t l;

		if (j[i] == '"')
			return -1;
		if (j[i] != '\\') {
			l = u8_decode(j + i, n - 1 - i, &cp);
			if (!l || cp < 0x20)
				return -1;
			memcpy(out + o, j + i, l);
			o += l;
			i += l;
			continue;
		}
		if (i + 1 >= n - 1)
			return -1;
		switch (j[i + 1]) {
		case '"': case '\\': case '/':
			out[o++] = j[i + 1];
			i += 2;
			break;
		case 'b': out[o++] = '\b'; i += 2; break;
		case 'f': out[o++] = '\f'; i += 2; break;
		case 'n': out[o++] = '\n'; i += 2; break;
		case 'r': out[o++] = '\r'; i += 2; break;
		case 't': out[o++] = '\t'; i += 2; break;
		case 'u':
			cp = 0;
			if (i + 5 >= n - 1)
				return -1;
			for (int k = 2; k < 6; k++) {
				int v = j[i + k] >= 'A' && j[i + k] <= 'F'
						? j[i + k] - 'A' + 10
						: hexval(j[i + k]);
				if (v < 0)
					return -1;
				cp = cp << 4 | (uint32_t)v;
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				return -1; /* never needed: no pairs */
			o += encode(cp, out + o);
			i += 6;
			break;
		default:
			return -1;
		}
	}
	return (long)o;
}

static void check_printers(const uint8_t *data, size_t size)
{
	char *out = NULL, *z;
	size_t len = 0, zn = strnlen((const char *)data, size);
	unsigned char *back = malloc(4 * size + 8), *want;
	FILE *f = open_memstream(&out, &len);
	size_t i, w = 0;
	long bn;

	if (!f || !back)
		abort();
	rep_escape(f, (const char *)data, size);
	if (fclose(f))
		abort();
	for (i = 0; i < len;) {
		uint32_t cp;
		size_t l = u8_decode((const unsigned char *)out + i, len - i,
				     &cp);

		if (!l || fz_unsafe(cp))
			fail("rep_escape let an unsafe byte or character "
			     "through", data, size, i);
		i += l;
	}
	bn = unescape((const unsigned char *)out, len, back);
	if (bn != (long)size || memcmp(back, data, size))
		fail("rep_escape's text does not give the name back", data,
		     size, 0);
	/* rep_q: the same text, for the bytes before a NUL */
	z = malloc(zn + 1);
	if (!z)
		abort();
	memcpy(z, data, zn);
	z[zn] = 0;
	const char *q = rep_q(z);
	bn = unescape((const unsigned char *)q, strlen(q), back);
	if (bn != (long)zn || memcmp(back, z, zn))
		fail("rep_q's text does not give the name back", data, size,
		     0);
	free(z);
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	if (!f)
		abort();
	rep_json_str(f, (const char *)data, size);
	if (fclose(f))
		abort();
	want = malloc(4 * size + 8);
	if (!want)
		abort();
	for (i = 0; i < size;) {
		uint32_t cp;
		size_t l = u8_decode(data + i, size - i, &cp);

		if (l) {
			memcpy(want + w, data + i, l);
			w += l;
			i += l;
		} else {
			w += (size_t)sprintf((char *)want + w, "\\x%02x",
					     data[i++]);
		}
	}
	bn = json_value((const unsigned char *)out, len, back);
	if (bn < 0)
		fail("rep_json_str did not write one JSON string", data, size,
		     0);
	if ((size_t)bn != w || memcmp(back, want, w))
		fail("rep_json_str's value is not the name", data, size, 0);
	free(want);
	free(out);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fold_ctx ctx;
	static int ready;
	size_t i = 0, bad = size, want = size;
	int ok;

	if (!ready) {
		if (fold_init(&ctx, "utf8", FOLD_NFD, 0) != 0)
			abort();
		ready = 1;
	}
	while (i < size) {
		uint32_t cp;
		unsigned char re[4];
		size_t l = data[i] ? u8_decode(data + i, size - i, &cp) : 0;

		if (!l) {
			bad = i;
			break;
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    encode(cp, re) != l || memcmp(re, data + i, l))
			fail("u8_decode accepted a non-shortest or non-scalar "
			     "sequence", data, size, i);
		i += l;
	}
	ok = fold_validate(&ctx, (const char *)data, size, &want) == 0;
	if (ok != (bad == size) || (!ok && want != bad))
		fail(ok ? "u8_decode refused a string libfold accepts"
			: "u8_decode and fold_validate stop at different "
			  "offsets",
		     data, size, bad);
	check_printers(data, size);
	return 0;
}
