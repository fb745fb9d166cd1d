/*
 * conf-encoding.c - encoding names and error codes of fold_init(),
 * fold_init_profile(), fold_strerror(), fold_encoding_name() round trips
 * and its buffer contract, and the ascii charset (only A-Z fold).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "conf.h"

static void init_is(const char *enc, int want)
{
	struct fold_ctx c;
	int r = fold_init(&c, enc, FOLD_CASEFOLD, 0);

	ck(r == want, "fold_init(\"%s\") = %d (%s), want %d", enc, r,
	   fold_strerror(r), want);
}

static void name_is(const char *enc, const char *want)
{
	struct fold_ctx c, c2;
	char buf[64];
	int r;

	if (!ctx_must(&c, enc, FOLD_CASEFOLD, 0))
		return;
	r = fold_encoding_name(&c, buf, sizeof buf);
	if (!ck(r == (int)strlen(want) && !strcmp(buf, want),
		"fold_encoding_name(\"%s\") = %d \"%s\", want \"%s\"", enc, r,
		r >= 0 ? buf : "", want))
		return;
	/* round trip: the canonical name gives the same context */
	if (ctx_must(&c2, buf, FOLD_CASEFOLD, 0))
		ck(!memcmp(&c, &c2, sizeof c),
		   "\"%s\" -> \"%s\" -> different context", enc, buf);
}

static void name_buffer(void)
{
	struct fold_ctx c;
	const char *full = "utf8-12.1.0";
	int len = (int)strlen(full);

	if (!ctx_must(&c, "utf8-12.1", FOLD_NFD, 0))
		return;
	for (int cap = 0; cap <= len + 2; cap++) {
		char buf[32];
		int r;

		memset(buf, 'X', sizeof buf);
		r = fold_encoding_name(&c, buf, (size_t)cap);
		ck(buf[cap] == 'X', "fold_encoding_name wrote past cap %d",
		   cap);
		if (cap > len) {
			ck(r == len && !strcmp(buf, full),
			   "cap %d: %d \"%s\"", cap, r, buf);
		} else {
			/* too small: the length needed (with or without
			 * the NUL), and a NUL-terminated prefix */
			ck(r == len || r == len + 1,
			   "cap %d: returned %d, want %d", cap, r, len);
			if (cap > 0)
				ck(buf[cap - 1] == 0 &&
					   !strncmp(buf, full, (size_t)cap - 1),
				   "cap %d: prefix not NUL-terminated/right",
				   cap);
		}
	}
}

static void ascii_charset(void)
{
	struct fold_ctx c;
	char in[2];
	size_t off = 99;

	if (!ctx_must(&c, "ascii", FOLD_CASEFOLD, 0))
		return;
	ck(c.charset == FOLD_CHARSET_ASCII && c.unicode == 0,
	   "ascii ctx: charset %u unicode 0x%x", c.charset,
	   (unsigned)c.unicode);
	for (int b = 1; b < 256; b++) {
		char want = (char)(b >= 'A' && b <= 'Z' ? b + 32 : b);

		in[0] = (char)b;
		expect_form(&c, 1, in, 1, &want, 1, "ascii byte");
	}
	ck(fold_equalz(&c, "Makefile", "MAKEFILE") == 1, "ascii A-Z fold");
	ck(fold_equalz(&c, "\xC3\x89", "\xC3\xA9") == 0,
	   "ascii: U+00C9 equals U+00E9");
	ck(fold_equalz(&c, "stra\xC3\x9F" "e", "STRASSE") == 0,
	   "ascii: sharp s folded");
	ck(fold_equalz(&c, "cafe\xCC\x81", "caf\xC3\xA9") == 0,
	   "ascii: NFD == NFC");
	ck(fold_cmpz(&c, "[", "a") < 0 && fold_cmpz(&c, "Z", "[") > 0,
	   "ascii order: 'Z' folds to 'z' (0x7A) which sorts after '['");
	ck(fold_validate(&c, "\xFF\xFE\x80", 3, &off) == 0,
	   "ascii: high bytes must be well formed");
	ck(fold_validate(&c, "ab\0c", 4, &off) == FOLD_EILSEQ && off == 2,
	   "ascii: NUL at 2 -> EILSEQ, offset %zu", off);
	expect_form(&c, 1, "\xC3\x80" "B\xC3\x87", 5, "\xC3\x80" "b\xC3\x87",
		    5, "ascii mixed");
}

void conf_encoding(void)
{
	struct fold_ctx c;
	char newest[64], past[64];
	uint32_t nv = lib_newest();

	ck_group("encoding");
	init_is("utf8", 0);
	init_is("utf8-12.1", 0);
	init_is("utf8-12.1.0", 0);
	init_is("ascii", 0);
	init_is("utf8-12.1.1", FOLD_EVERSION);
	/* the first version past the tables' (utf8-16.0 at 15.0), and the
	 * newest one's major.minor with an absurd update number: the
	 * tables may be another version than this file was written for */
	snprintf(past, sizeof past, "utf8-%u.0", (unsigned)(nv >> 16) + 1);
	init_is(past, FOLD_EVERSION);
	snprintf(past, sizeof past, "utf8-%u.%u.99999999999",
		 (unsigned)(nv >> 16), (unsigned)(nv >> 8 & 0xFF));
	init_is(past, FOLD_EVERSION);
	init_is("utf8-99.0.0", FOLD_EVERSION);
	init_is("utf8-1234.0", FOLD_EVERSION); /* well formed, however long */
	init_is("utf8-12.x", FOLD_ENOENC);
	init_is("latin1", FOLD_ENOENC);
	init_is("iso8859-1", FOLD_ENOENC);
	ck(fold_init(&c, "", FOLD_NFD, 0) < 0, "empty encoding accepted");
	ck(fold_init(&c, "utf8-", FOLD_NFD, 0) < 0, "\"utf8-\" accepted");
	ck(fold_init(&c, "utf8-12", FOLD_NFD, 0) < 0, "\"utf8-12\" accepted");
	ck(fold_init(&c, "utf8-12.1.0x", FOLD_NFD, 0) < 0,
	   "\"utf8-12.1.0x\" accepted");
	ck(fold_init(NULL, "utf8", FOLD_NFD, 0) == FOLD_EINVAL,
	   "NULL ctx not EINVAL");
	ck(fold_init(&c, NULL, FOLD_NFD, 0) == FOLD_EINVAL,
	   "NULL encoding not EINVAL");
	ck(fold_init(&c, "utf8", (enum fold_form)6, 0) == FOLD_EINVAL,
	   "form 6 not EINVAL");
	ck(fold_init(&c, "utf8", (enum fold_form)-1, 0) == FOLD_EINVAL,
	   "form -1 not EINVAL");
	ck(fold_init(&c, "utf8", FOLD_NFD, 0x80) == FOLD_EINVAL,
	   "flag 0x80 not EINVAL");
	/* the size target (tools/mktables.h: the kernel's utf8data table,
	 * 64,256 bytes), as the built library reports it */
	ck(fold_table_bytes() > 16384 && fold_table_bytes() < 64256,
	   "fold_table_bytes() = %zu, want 16384 < n < 64256",
	   fold_table_bytes());
	ck(fold_init_profile(&c, "no-such-profile") == FOLD_ENOENC,
	   "unknown profile not ENOENC");
	for (int e = 0; e >= -5; e--)
		ck(fold_strerror(e) && fold_strerror(e)[0],
		   "fold_strerror(%d) empty", e);
	ck(fold_strerror(-1000) != NULL, "fold_strerror(-1000) NULL");
	ck(strcmp(fold_strerror(FOLD_ENOENC), fold_strerror(FOLD_EVERSION)),
	   "ENOENC and EVERSION have the same message");

	ck_group("encoding-names");
	snprintf(newest, sizeof newest, "%s", enc_name(lib_newest()));
	name_is("utf8", newest);
	name_is("utf8-12.1", "utf8-12.1.0");
	name_is("utf8-12.1.0", "utf8-12.1.0");
	name_is("ascii", "ascii");
	name_buffer();

	ck_group("encoding-ascii");
	ascii_charset();
}
