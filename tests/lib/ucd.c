/*
 * ucd.c - the test oracle's own reading of the Unicode Character Database
 * (see ucd.h).  Plain text parsing into flat per-code-point arrays; speed
 * and size do not matter here, obviousness does.
 */
#include "ucd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SBASE 0xAC00u
#define LBASE 0x1100u
#define VBASE 0x1161u
#define TBASE 0x11A7u
#define TCOUNT 28u
#define NCOUNT 588u
#define SCOUNT 11172u

static uint8_t *ccc_tab, *di_tab, *inud_tab, *dec_len, *dec_compat, *fold_len;
static uint8_t *capped_tab; /* ucd_cap() */
static uint32_t *age_tab, *dec_off, *fold_off;
static uint32_t *pool;
static size_t pool_len, pool_cap;
static uint32_t versions[64];
static size_t nversions;
static struct ucd_correction corr[16];
static size_t ncorr;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "ucd: %s: %s\n", path, what);
	exit(2);
}

static FILE *open_ucd(const char *dir, const char *name, char *path,
		      size_t cap)
{
	FILE *f;

	snprintf(path, cap, "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		die("cannot open (is unicode-data installed?)", path);
	return f;
}

static uint32_t pool_add(const uint32_t *cp, size_t n)
{
	if (pool_len + n > pool_cap) {
		pool_cap = pool_cap ? pool_cap * 2 : 65536;
		pool = realloc(pool, pool_cap * sizeof *pool);
		if (!pool)
			die("out of memory", "pool");
	}
	memcpy(pool + pool_len, cp, n * sizeof *cp);
	pool_len += n;
	return (uint32_t)(pool_len - n);
}

/* Parse "0041 0301" style lists; returns count. */
static size_t parse_cps(const char *s, uint32_t *out, size_t cap)
{
	size_t n = 0;
	char *end;

	for (;;) {
		while (*s == ' ')
			s++;
		if (!((*s >= '0' && *s <= '9') || (*s >= 'A' && *s <= 'F') ||
		      (*s >= 'a' && *s <= 'f')))
			break;
		if (n == cap)
			die("too many code points in a mapping", "list");
		out[n++] = (uint32_t)strtoul(s, &end, 16);
		s = end;
	}
	return n;
}

/* "0041..005A ; prop" or "0041 ; prop"; returns 0 if not a data line. */
static int parse_range(const char *line, uint32_t *lo, uint32_t *hi,
		       const char **rest)
{
	char *end;

	if (!((*line >= '0' && *line <= '9') || (*line >= 'A' && *line <= 'F')))
		return 0;
	*lo = *hi = (uint32_t)strtoul(line, &end, 16);
	if (end[0] == '.' && end[1] == '.')
		*hi = (uint32_t)strtoul(end + 2, &end, 16);
	while (*end == ' ')
		end++;
	if (*end != ';')
		return 0;
	end++;
	while (*end == ' ')
		end++;
	*rest = end;
	return *hi < UCD_MAXCP && *lo <= *hi;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p)
		die("out of memory", "tables");
	return p;
}

static void load_unicodedata(const char *dir)
{
	char path[4096], line[1024];
	FILE *f = open_ucd(dir, "UnicodeData.txt", path, sizeof path);
	uint32_t range_start = 0;
	int in_range = 0;

	while (fgets(line, sizeof line, f)) {
		char *field[15];
		size_t nf = 0;
		char *p = line;
		uint32_t cp, map[32];
		size_t n;

		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		while (nf < 15) {
			field[nf++] = p;
			p = strchr(p, ';');
			if (!p)
				break;
			*p++ = 0;
		}
		if (nf < 6)
			die("short line", path);
		cp = (uint32_t)strtoul(field[0], NULL, 16);
		if (cp >= UCD_MAXCP)
			die("code point out of range", path);
		if (strstr(field[1], ", First>")) {
			range_start = cp;
			in_range = 1;
		} else if (strstr(field[1], ", Last>")) {
			if (!in_range)
				die("range end without start", path);
			for (uint32_t c = range_start; c <= cp; c++) {
				inud_tab[c] = 1;
				ccc_tab[c] = (uint8_t)atoi(field[3]);
			}
			in_range = 0;
			continue;
		}
		inud_tab[cp] = 1;
		ccc_tab[cp] = (uint8_t)atoi(field[3]);
		p = field[5];
		if (*p == '<') {
			dec_compat[cp] = 1;
			p = strchr(p, '>');
			if (!p)
				die("bad decomposition tag", path);
			p++;
		}
		n = parse_cps(p, map, 32);
		if (n) {
			dec_off[cp] = pool_add(map, n);
			dec_len[cp] = (uint8_t)n;
		} else {
			dec_compat[cp] = 0;
		}
	}
	fclose(f);
}

static void load_casefolding(const char *dir)
{
	char path[4096], line[1024];
	FILE *f = open_ucd(dir, "CaseFolding.txt", path, sizeof path);

	while (fgets(line, sizeof line, f)) {
		uint32_t lo, hi, map[8];
		const char *rest;
		size_t n;

		if (!parse_range(line, &lo, &hi, &rest) || lo != hi)
			continue;
		if (rest[0] != 'C' && rest[0] != 'F')
			continue;
		rest = strchr(rest, ';');
		if (!rest)
			die("bad line", path);
		n = parse_cps(rest + 1, map, 8);
		if (!n || fold_len[lo])
			die("bad or duplicate C/F mapping", path);
		fold_off[lo] = pool_add(map, n);
		fold_len[lo] = (uint8_t)n;
	}
	fclose(f);
}

static uint32_t parse_version(const char *s)
{
	unsigned a = 0, b = 0, c = 0;

	/* "V12_1" or "12.1" or "12.1.0" */
	if (*s == 'V')
		s++;
	if (sscanf(s, "%u%*[._]%u%*[._]%u", &a, &b, &c) < 2)
		return 0;
	return (a << 16) | (b << 8) | c;
}

static void load_derivedage(const char *dir)
{
	char path[4096], line[1024];
	FILE *f = open_ucd(dir, "DerivedAge.txt", path, sizeof path);

	while (fgets(line, sizeof line, f)) {
		uint32_t lo, hi, v;
		const char *rest;

		if (!strncmp(line, "# Age=V", 7)) {
			v = parse_version(line + 6);
			if (!v || nversions == 64)
				die("bad Age header", path);
			versions[nversions++] = v;
			continue;
		}
		if (!parse_range(line, &lo, &hi, &rest))
			continue;
		v = parse_version(rest);
		if (!v)
			die("bad age value", path);
		for (uint32_t c = lo; c <= hi; c++)
			age_tab[c] = v;
	}
	fclose(f);
	if (nversions < 2)
		die("no Age= headers found", path);
}

static void load_di(const char *dir)
{
	char path[4096], line[1024];
	FILE *f = open_ucd(dir, "DerivedCoreProperties.txt", path, sizeof path);
	size_t count = 0;

	while (fgets(line, sizeof line, f)) {
		uint32_t lo, hi;
		const char *rest;

		if (!parse_range(line, &lo, &hi, &rest))
			continue;
		if (strncmp(rest, "Default_Ignorable_Code_Point", 28) ||
		    (rest[28] != ' ' && rest[28] != '#'))
			continue;
		for (uint32_t c = lo; c <= hi; c++, count++)
			di_tab[c] = 1;
	}
	fclose(f);
	if (!count)
		die("no Default_Ignorable_Code_Point entries", path);
}

static void load_corrections(const char *dir)
{
	char path[4096], line[1024];
	FILE *f = open_ucd(dir, "NormalizationCorrections.txt", path,
			   sizeof path);

	while (fgets(line, sizeof line, f)) {
		struct ucd_correction c;
		char ver[32];

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%x;%x;%x;%31[0-9.]", &c.cp, &c.original,
			   &c.corrected, ver) != 4)
			continue;
		c.version = parse_version(ver);
		if (ncorr == 16)
			die("too many corrections", path);
		corr[ncorr++] = c;
	}
	fclose(f);
}

void ucd_load(const char *dir)
{
	ccc_tab = xcalloc(UCD_MAXCP, 1);
	di_tab = xcalloc(UCD_MAXCP, 1);
	inud_tab = xcalloc(UCD_MAXCP, 1);
	dec_len = xcalloc(UCD_MAXCP, 1);
	dec_compat = xcalloc(UCD_MAXCP, 1);
	fold_len = xcalloc(UCD_MAXCP, 1);
	age_tab = xcalloc(UCD_MAXCP, sizeof *age_tab);
	dec_off = xcalloc(UCD_MAXCP, sizeof *dec_off);
	fold_off = xcalloc(UCD_MAXCP, sizeof *fold_off);
	load_unicodedata(dir);
	load_casefolding(dir);
	load_derivedage(dir);
	load_di(dir);
	load_corrections(dir);
}

size_t ucd_cap(uint32_t ver)
{
	size_t n = 0;

	if (!capped_tab)
		capped_tab = xcalloc(UCD_MAXCP, 1);
	while (nversions && versions[nversions - 1] > ver)
		nversions--;
	for (size_t i = 0; i < ncorr; i++)
		if (corr[i].version > ver)
			corr[i--] = corr[--ncorr];
	for (uint32_t c = 0; c < UCD_MAXCP; c++) {
		if (age_tab[c] <= ver)
			continue;
		/* Default_Ignorable stays: it covers unassigned code points
		 * of its ranges too */
		age_tab[c] = 0;
		inud_tab[c] = 0;
		ccc_tab[c] = 0;
		dec_len[c] = 0;
		dec_compat[c] = 0;
		fold_len[c] = 0;
		capped_tab[c] = 1;
		n++;
	}
	return n;
}

int ucd_capped(uint32_t cp)
{
	return capped_tab && cp < UCD_MAXCP && capped_tab[cp];
}

size_t ucd_versions(const uint32_t **list)
{
	*list = versions;
	return nversions;
}

size_t ucd_corrections(const struct ucd_correction **list)
{
	*list = corr;
	return ncorr;
}

uint32_t ucd_age(uint32_t cp)
{
	return cp < UCD_MAXCP ? age_tab[cp] : 0;
}

int ucd_in_unicodedata(uint32_t cp)
{
	return cp < UCD_MAXCP && inud_tab[cp];
}

int ucd_is_di(uint32_t cp)
{
	return cp < UCD_MAXCP && di_tab[cp];
}

static int known_at(uint32_t cp, uint32_t ver)
{
	return cp < UCD_MAXCP && age_tab[cp] && age_tab[cp] <= ver;
}

int ucd_ccc(uint32_t cp, uint32_t ver)
{
	return known_at(cp, ver) ? ccc_tab[cp] : 0;
}

/* filter: apply the age filter to cp itself.  Only the code point being
 * decomposed is filtered: its full decomposition is a property of that code
 * point (mappings are stable), so the parts of a recursive expansion are
 * expanded even where an intermediate (e.g. U+0226 inside U+01E0, 1.1) was
 * assigned later.  Corrections always follow ver. */
static size_t decomp1(uint32_t cp, int compat, uint32_t ver, int filter,
		      uint32_t *out)
{
	if (filter ? !known_at(cp, ver) : !(cp < UCD_MAXCP && age_tab[cp]))
		return 0;
	if (cp >= SBASE && cp < SBASE + SCOUNT) {
		uint32_t s = cp - SBASE;

		if (s % TCOUNT) {
			/* LVT -> LV + T, as UnicodeData would list it */
			out[0] = cp - s % TCOUNT;
			out[1] = TBASE + s % TCOUNT;
			return 2;
		}
		out[0] = LBASE + s / NCOUNT;
		out[1] = VBASE + (s % NCOUNT) / TCOUNT;
		return 2;
	}
	for (size_t i = 0; i < ncorr; i++)
		if (corr[i].cp == cp && ver < corr[i].version) {
			out[0] = corr[i].original;
			return 1;
		}
	if (!dec_len[cp] || (dec_compat[cp] && !compat))
		return 0;
	memcpy(out, pool + dec_off[cp], dec_len[cp] * sizeof *out);
	return dec_len[cp];
}

size_t ucd_decomp1(uint32_t cp, int compat, uint32_t ver, uint32_t *out)
{
	return decomp1(cp, compat, ver, 1, out);
}

size_t ucd_fold1(uint32_t cp, uint32_t ver, uint32_t *out)
{
	if (!known_at(cp, ver) || !fold_len[cp])
		return 0;
	memcpy(out, pool + fold_off[cp], fold_len[cp] * sizeof *out);
	return fold_len[cp];
}

/* Recursive full decomposition of one code point. */
static size_t decomp_full(uint32_t cp, int compat, uint32_t ver,
			  uint32_t *out, size_t cap, int depth)
{
	uint32_t m[32];
	size_t n = decomp1(cp, compat, ver, depth == 0, m), len = 0;

	if (depth > 20)
		return (size_t)-1;
	if (!n) {
		if (!cap)
			return (size_t)-1;
		out[0] = cp;
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = decomp_full(m[i], compat, ver, out + len, cap - len,
				       depth + 1);
		if (k == (size_t)-1)
			return k;
		len += k;
	}
	return len;
}

/* Canonical ordering: stable insertion sort of each run of non-starters. */
static void reorder(uint32_t *s, size_t n, uint32_t ver)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t c = s[i];
		int cc = ucd_ccc(c, ver);
		size_t j = i;

		if (!cc)
			continue;
		while (j > 0) {
			int pc = ucd_ccc(s[j - 1], ver);
			if (!pc || pc <= cc)
				break;
			s[j] = s[j - 1];
			j--;
		}
		s[j] = c;
	}
}

size_t ucd_nfd(const uint32_t *in, size_t n, int compat, uint32_t ver,
	       uint32_t *out, size_t cap)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = decomp_full(in[i], compat, ver, out + len, cap - len,
				       0);
		if (k == (size_t)-1)
			return k;
		len += k;
	}
	reorder(out, len, ver);
	return len;
}

size_t ucd_caseless(const uint32_t *in, size_t n, int compat, int ignorables,
		    uint32_t ver, uint32_t *out, size_t cap)
{
	uint32_t *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
	size_t an = 0, bn, ret = (size_t)-1;

	if (!a || !b)
		die("out of memory", "caseless");
	for (size_t i = 0; i < n; i++) {
		if (ignorables && ucd_is_di(in[i]))
			continue;
		if (an == cap)
			goto out;
		a[an++] = in[i];
	}
	bn = ucd_nfd(a, an, compat, ver, b, cap);
	if (bn == (size_t)-1)
		goto out;
	for (int round = 0; round < 16; round++) {
		uint32_t m[8];

		/* a = fold(b) */
		an = 0;
		for (size_t i = 0; i < bn; i++) {
			size_t k = ucd_fold1(b[i], ver, m);
			if (!k) {
				m[0] = b[i];
				k = 1;
			}
			if (an + k > cap)
				goto out;
			memcpy(a + an, m, k * sizeof *m);
			an += k;
		}
		/* out = NFD(a) */
		size_t on = ucd_nfd(a, an, compat, ver, out, cap);
		if (on == (size_t)-1)
			goto out;
		if (on == bn && !memcmp(out, b, on * sizeof *out)) {
			ret = on;
			goto out;
		}
		memcpy(b, out, on * sizeof *out);
		bn = on;
	}
out:
	free(a);
	free(b);
	return ret;
}
