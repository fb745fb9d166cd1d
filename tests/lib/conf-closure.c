/*
 * conf-closure.c - every form and flag combination is a closed key: for
 * every code point x (and every NormalizationTest string), key(key(x)) ==
 * key(x), x is equivalent to key(x), and they hash alike; FOLD_COMPAT
 * with every form included (fold.h defines it for each).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conf.h"
#include "ucd.h"

static const struct fold_seed seed = {1, 2};

static void closed(const struct fold_ctx *c, const char *s, size_t n)
{
	char k[4096], k2[4096];
	ssize_t kn, k2n;

	kn = fold_key(c, s, n, k, sizeof k);
	if (!ck(kn >= 0 && (size_t)kn <= sizeof k, "%s fold_key(%s) = %zd",
		ctx_desc(c), ck_hex(s, n), kn))
		return;
	k2n = fold_key(c, k, (size_t)kn, k2, sizeof k2);
	ck(k2n == kn && !memcmp(k, k2, (size_t)kn),
	   "%s not closed: key(%s) = %s, key of that = %s", ctx_desc(c),
	   ck_hex(s, n), ck_hex(k, (size_t)kn),
	   k2n >= 0 ? ck_hex(k2, (size_t)k2n) : "error");
	ck(fold_equal(c, s, n, k, (size_t)kn) == 1 &&
		   fold_cmp(c, s, n, k, (size_t)kn) == 0,
	   "%s: %s not equivalent to its key %s", ctx_desc(c), ck_hex(s, n),
	   ck_hex(k, (size_t)kn));
	ck(fold_hash(c, &seed, s, n) == fold_hash(c, &seed, k, (size_t)kn),
	   "%s: hash(%s) != hash(its key %s)", ctx_desc(c), ck_hex(s, n),
	   ck_hex(k, (size_t)kn));
}

/* NormalizationTest columns: realistic multi-code-point strings. */
static size_t load_strings(char ***out)
{
	FILE *f = fopen(conf_normtest_path, "r");
	char line[2048];
	size_t n = 0, cap = 0;
	char **v = NULL;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		char *p = line;
		size_t first = n; /* this line's first string */

		if (line[0] == '@' || line[0] == '#' || line[0] == '\n')
			continue;
		for (int col = 0; col < 5; col++) {
			uint32_t cps[64];
			size_t k = 0;
			char *end, *s;

			while (*p && *p != ';' && k < 63) {
				cps[k++] = (uint32_t)strtoul(p, &end, 16);
				if (end == p)
					break;
				p = end;
				while (*p == ' ')
					p++;
			}
			if (*p == ';')
				p++;
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				v = realloc(v, cap * sizeof *v);
				if (!v)
					return 0;
			}
			s = malloc(1 + 4 * k);
			if (!s)
				return 0;
			s[0] = (char)u8_encode(cps, k, s + 1);
			/* columns of a line often repeat: keep distinct ones */
			int dup = 0;
			for (size_t j = first; j < n && !dup; j++)
				dup = v[j][0] == s[0] &&
				      !memcmp(v[j] + 1, s + 1, (unsigned char)s[0]);
			if (dup) {
				free(s);
				continue;
			}
			v[n++] = s;
		}
	}
	fclose(f);
	*out = v;
	return n;
}

/* Code points with no decomposition, folding, class or ignorability are
 * all handled by the same pass-through path; checking every 13th of them
 * keeps the 50 contexts within the suite's time budget while every code
 * point that has any mapping is checked in every context. */
static int plain(uint32_t cp)
{
	uint32_t m[32];

	return !ucd_decomp1(cp, 1, UCD_NEWEST, m) &&
	       !ucd_fold1(cp, UCD_NEWEST, m) && !ucd_ccc(cp, UCD_NEWEST) &&
	       !ucd_is_di(cp);
}

static unsigned long ncps_full, ncps_sampled;

static void run_ctx(const struct fold_ctx *c, char **strs, size_t nstrs)
{
	ncps_full = ncps_sampled = 0;
	for (uint32_t cp = 1; cp < UCD_MAXCP; cp++) {
		char s[4];

		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		if (plain(cp)) {
			if (cp % (conf_quick ? 211 : 13))
				continue;
			ncps_sampled++;
		} else {
			ncps_full++;
		}
		closed(c, s, u8_put(cp, s));
	}
	for (size_t i = 0; i < nstrs; i += conf_quick ? 8 : 1)
		closed(c, strs[i] + 1, (unsigned char)strs[i][0]);
}

void conf_closure(void)
{
	static const unsigned flagsets[] = {
		0,
		FOLD_STRICT,
		FOLD_COMPAT,
		FOLD_IGNORABLES,
		FOLD_STRICT | FOLD_COMPAT,
		FOLD_STRICT | FOLD_IGNORABLES,
		FOLD_COMPAT | FOLD_IGNORABLES,
		FOLD_STRICT | FOLD_COMPAT | FOLD_IGNORABLES,
	};
	char **strs = NULL;
	size_t nstrs = load_strings(&strs);
	unsigned ran = 0;
	struct fold_ctx c;

	ck_group("closure");
	ck(nstrs > 30000, "only %zu NormalizationTest strings loaded", nstrs);
	for (int form = FOLD_NFD; form <= FOLD_NFKC_CF; form++) {
		for (size_t i = 0; i < sizeof flagsets / sizeof *flagsets;
		     i++) {
			unsigned fl = flagsets[i];
			int r = fold_init(&c, "utf8", (enum fold_form)form, fl);

			if (!ck(r == 0, "fold_init(utf8, form %d, 0x%x) = %d",
				form, fl, r))
				continue;
			run_ctx(&c, strs, nstrs);
			ran++;
		}
	}
	if (fold_init_profile(&c, "ext4") == 0) {
		run_ctx(&c, strs, nstrs);
		ran++;
	}
	if (ctx_must(&c, "utf8-12.1", FOLD_CASEFOLD, 0)) {
		run_ctx(&c, strs, nstrs);
		ran++;
	}
	ck_info("closure: %u contexts checked", ran);
	ck_info("closure: per context %lu code points with a mapping/class/"
		"ignorable (all), %lu plain ones (every %uth), %zu of %zu "
		"NormalizationTest strings",
		ncps_full, ncps_sampled, conf_quick ? 211u : 13u,
		conf_quick ? (nstrs + 7) / 8 : nstrs, nstrs);
	for (size_t i = 0; i < nstrs; i++)
		free(strs[i]);
	free(strs);
}
