/*
 * check.c - pass/fail bookkeeping and small formatting helpers for the
 * libfold test programs (see check.h).
 */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

unsigned long ck_verbose = 12;
unsigned long ck_total_pass, ck_total_fail;

static const char *group;
static unsigned long group_pass, group_fail;

static void group_end(void)
{
	if (group)
		printf("%s: %lu passed, %lu failed (group)\n", group,
		       group_pass, group_fail);
	group = NULL;
	group_pass = group_fail = 0;
}

void ck_group(const char *name)
{
	group_end();
	group = name;
	fflush(stdout);
}

int ck(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		group_pass++;
		ck_total_pass++;
		return 1;
	}
	group_fail++;
	ck_total_fail++;
	if (group_fail <= ck_verbose) {
		printf("FAIL [%s] ", group ? group : "-");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	} else if (group_fail == ck_verbose + 1) {
		printf("FAIL [%s] (further failures in this group not shown)\n",
		       group ? group : "-");
	}
	return 0;
}

void ck_info(const char *fmt, ...)
{
	va_list ap;

	fputs("info: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int ck_finish(void)
{
	group_end();
	printf("%lu passed, %lu failed\n", ck_total_pass, ck_total_fail);
	fflush(stdout);
	return ck_total_fail ? 1 : 0;
}

/* Messages are built from several formatted pieces at once, hence a small
 * ring of buffers rather than one static. */
static char ring[8][1024];
static unsigned ring_next;

static char *ring_buf(void)
{
	return ring[ring_next++ % 8];
}

const char *ck_hex(const void *p, size_t n)
{
	const unsigned char *b = p;
	char *out = ring_buf();
	size_t len = 0, i;

	out[0] = 0;
	for (i = 0; i < n && len + 8 < sizeof ring[0]; i++)
		len += (size_t)snprintf(out + len, sizeof ring[0] - len,
					"%s%02X", i ? " " : "", b[i]);
	if (i < n)
		snprintf(out + len, sizeof ring[0] - len, " ...(%zu bytes)", n);
	if (n == 0)
		snprintf(out, sizeof ring[0], "(empty)");
	return out;
}

const char *ck_cps(const uint32_t *cp, size_t n)
{
	char *out = ring_buf();
	size_t len = 0, i;

	out[0] = 0;
	for (i = 0; i < n && len + 12 < sizeof ring[0]; i++)
		len += (size_t)snprintf(out + len, sizeof ring[0] - len,
					"%sU+%04X", i ? " " : "",
					(unsigned)cp[i]);
	if (i < n)
		snprintf(out + len, sizeof ring[0] - len, " ...(%zu cps)", n);
	if (n == 0)
		snprintf(out, sizeof ring[0], "(empty)");
	return out;
}

size_t u8_put(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;

	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t u8_encode(const uint32_t *cp, size_t n, char *out)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += u8_put(cp[i], out + len);
	return len;
}

size_t u8_decode(const char *s, size_t n, uint32_t *out, size_t cap)
{
	const unsigned char *b = (const unsigned char *)s;
	size_t i = 0, k = 0;

	while (i < n && k < cap) {
		uint32_t c = b[i];
		size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;

		if (len == 2)
			c &= 0x1F;
		else if (len == 3)
			c &= 0x0F;
		else if (len == 4)
			c &= 0x07;
		for (size_t j = 1; j < len && i + j < n; j++)
			c = (c << 6) | (b[i + j] & 0x3F);
		out[k++] = c;
		i += len;
	}
	return k;
}

const char *ctxdef_desc(const struct ctxdef *d)
{
	static char buf[4][64];
	static unsigned k;
	static const char *const forms[] = {"NFD",  "NFC",	"NFKD",
					    "NFKC", "CASEFOLD", "NFKC_CF"};
	char *b = buf[k++ % 4];

	if (!strcmp(d->enc, "ext4"))
		return "profile ext4";
	snprintf(b, sizeof buf[0], "%s/%s/0x%x", d->enc,
		 d->form >= 0 && d->form < 6 ? forms[d->form] : "?", d->flags);
	return b;
}

uint64_t ck_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}
