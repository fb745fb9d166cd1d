/*
 * mktables.c - host tool that turns the Unicode Character Database into
 * lib/fold_tables.c, the only data libfold needs at run time.
 *
 * It owns: parsing the UCD files, deriving every per-code-point mapping the
 * library uses (decomposition closures, case-fold closures, NFKC_Casefold),
 * checking those derivations against the UCD and against the run-time model
 * for every supported Unicode version, and handing the result to the table
 * encoder (mktables_emit.c).
 *
 * Usage: mktables UCD-DIR OUTPUT.c
 * Exit status is non-zero, with a message, on any parse error or any failed
 * self-check, so a broken table can never be written silently.
 */
#include "mktables.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ucd U;

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "mktables: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);
	if (!p)
		die("out of memory");
	return p;
}

struct seq *seq_new(const uint32_t *c, int n)
{
	struct seq *s;
	if (n > SEQ_MAX)
		die("sequence of %d code points exceeds SEQ_MAX", n);
	s = xcalloc(1, sizeof(*s));
	s->n = n;
	if (n)
		memcpy(s->c, c, n * sizeof(*c));
	return s;
}

/* ---- parsing --------------------------------------------------------- */

static FILE *open_ucd(const char *dir, const char *name, char *version)
{
	char path[4096], line[512];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	/* Most UCD files start "# Name-15.0.0.txt"; remember the version so
	 * the output can say which data it was built from, and so mixing
	 * files of different versions is caught. */
	if (version && fgets(line, sizeof(line), f)) {
		char *dash = strrchr(line, '-');
		char *txt = strstr(line, ".txt");
		if (line[0] == '#' && dash && txt && txt > dash) {
			char v[32];
			size_t len = (size_t)(txt - dash - 1);
			if (len >= sizeof(v))
				die("%s: odd header", path);
			memcpy(v, dash + 1, len);
			v[len] = 0;
			if (!version[0])
				strcpy(version, v);
			else if (strcmp(version, v))
				die("%s is version %s, other files are %s",
				    path, v, version);
		}
		rewind(f);
	}
	return f;
}

/* Parse "XXXX" or "XXXX..YYYY" at *p. */
static int parse_range(char **p, uint32_t *lo, uint32_t *hi)
{
	char *e;
	unsigned long a = strtoul(*p, &e, 16), b;
	if (e == *p)
		return 0;
	b = a;
	if (e[0] == '.' && e[1] == '.') {
		char *s = e + 2;
		b = strtoul(s, &e, 16);
		if (e == s)
			return 0;
	}
	if (a > b || b > MAX_CP)
		return 0;
	*lo = (uint32_t)a;
	*hi = (uint32_t)b;
	*p = e;
	return 1;
}

/* Parse a space-separated list of hex code points, up to ';' or '#'. */
static int parse_cps(const char *p, uint32_t *out, int max)
{
	int n = 0;
	while (*p && *p != ';' && *p != '#' && *p != '\n') {
		char *e;
		unsigned long v;
		while (*p == ' ')
			p++;
		if (!*p || *p == ';' || *p == '#' || *p == '\n')
			break;
		v = strtoul(p, &e, 16);
		if (e == p || v > MAX_CP || n == max)
			return -1;
		out[n++] = (uint32_t)v;
		p = e;
	}
	return n;
}

static char *field(char *line, int idx)
{
	while (idx-- > 0) {
		line = strchr(line, ';');
		if (!line)
			return NULL;
		line++;
	}
	while (*line == ' ')
		line++;
	return line;
}

static void parse_unicodedata(const char *dir)
{
	FILE *f = open_ucd(dir, "UnicodeData.txt", NULL);
	char line[1024];
	int lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		uint32_t cp, c[SEQ_MAX];
		char *p = line, *d;
		unsigned long ccc;
		int n, compat = 0;
		lineno++;
		if (!parse_range(&p, &cp, &cp) || *p != ';')
			die("UnicodeData.txt:%d: bad line", lineno);
		ccc = strtoul(field(line, 3), NULL, 10);
		if (ccc > 254)
			die("UnicodeData.txt:%d: bad ccc", lineno);
		U.ccc[cp] = (uint8_t)ccc;
		d = field(line, 5);
		if (!d)
			die("UnicodeData.txt:%d: short line", lineno);
		if (*d == '<') {
			compat = 1;
			d = strchr(d, '>');
			if (!d)
				die("UnicodeData.txt:%d: bad tag", lineno);
			d++;
		}
		n = parse_cps(d, c, SEQ_MAX);
		if (n < 0)
			die("UnicodeData.txt:%d: bad decomposition", lineno);
		if (n) {
			U.dec[cp] = seq_new(c, n);
			U.dec_compat[cp] = (uint8_t)compat;
		}
	}
	fclose(f);
}

static void parse_casefolding(const char *dir)
{
	FILE *f = open_ucd(dir, "CaseFolding.txt", U.version);
	char line[512];
	int lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		uint32_t lo, hi, c[SEQ_MAX];
		char *p = line, *st;
		int n;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!parse_range(&p, &lo, &hi) || lo != hi)
			die("CaseFolding.txt:%d: bad line", lineno);
		st = field(line, 1);
		if (!st)
			die("CaseFolding.txt:%d: short line", lineno);
		/* Full case folding is C + F; S is the simple alternative
		 * to F and T is the Turkic tailoring: both unwanted. */
		if (*st != 'C' && *st != 'F')
			continue;
		n = parse_cps(field(line, 2), c, SEQ_MAX);
		if (n <= 0)
			die("CaseFolding.txt:%d: bad mapping", lineno);
		if (U.fold[lo])
			die("CaseFolding.txt:%d: two foldings", lineno);
		U.fold[lo] = seq_new(c, n);
	}
	fclose(f);
}

static void parse_age(const char *dir)
{
	FILE *f = open_ucd(dir, "DerivedAge.txt", U.version);
	char line[512];
	int lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		uint32_t lo, hi, cp;
		char *p = line, *v;
		unsigned maj, min;
		int i;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!parse_range(&p, &lo, &hi))
			die("DerivedAge.txt:%d: bad line", lineno);
		v = field(line, 1);
		if (!v || sscanf(v, "%u.%u", &maj, &min) != 2)
			die("DerivedAge.txt:%d: bad age", lineno);
		for (i = 0; i < U.nversions; i++)
			if (U.vmaj[i] == maj && U.vmin[i] == min)
				break;
		if (i == U.nversions) {
			if (U.nversions == MAX_VERSIONS)
				die("too many Unicode versions");
			U.vmaj[i] = (uint8_t)maj;
			U.vmin[i] = (uint8_t)min;
			U.nversions++;
		}
		for (cp = lo; cp <= hi; cp++)
			U.age[cp] = (uint8_t)(i + 1); /* renumbered below */
	}
	fclose(f);
	/* Versions appear in file order, which is not guaranteed sorted:
	 * sort them and renumber so that age index order is version order. */
	{
		int order[MAX_VERSIONS], rank[MAX_VERSIONS + 1], i, j;
		uint8_t mj[MAX_VERSIONS], mn[MAX_VERSIONS];
		uint32_t cp;
		for (i = 0; i < U.nversions; i++)
			order[i] = i;
		for (i = 1; i < U.nversions; i++)
			for (j = i; j > 0; j--) {
				int a = order[j - 1], b = order[j];
				if (U.vmaj[a] * 256 + U.vmin[a] <=
				    U.vmaj[b] * 256 + U.vmin[b])
					break;
				order[j - 1] = b;
				order[j] = a;
			}
		rank[0] = 0;
		for (i = 0; i < U.nversions; i++) {
			rank[order[i] + 1] = i + 1;
			mj[i] = U.vmaj[order[i]];
			mn[i] = U.vmin[order[i]];
		}
		memcpy(U.vmaj, mj, sizeof(mj));
		memcpy(U.vmin, mn, sizeof(mn));
		for (cp = 0; cp <= MAX_CP; cp++)
			U.age[cp] = (uint8_t)rank[U.age[cp]];
	}
}

/* Lines "RANGE ; Property" (binary) for one property name. */
static void parse_binary(const char *dir, const char *file, const char *prop,
			 uint8_t *set)
{
	FILE *f = open_ucd(dir, file, U.version);
	char line[512];
	int lineno = 0, found = 0;
	size_t plen = strlen(prop);
	while (fgets(line, sizeof(line), f)) {
		uint32_t lo, hi, cp;
		char *p = line, *v;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		v = field(line, 1);
		if (!v || strncmp(v, prop, plen) ||
		    (v[plen] != ' ' && v[plen] != '#' && v[plen] != '\n'))
			continue;
		if (!parse_range(&p, &lo, &hi))
			die("%s:%d: bad line", file, lineno);
		for (cp = lo; cp <= hi; cp++)
			set[cp] = 1;
		found++;
	}
	fclose(f);
	if (!found)
		die("%s: no %s lines", file, prop);
}

/* CompositionExclusions.txt lists bare code points, no property field. */
static void parse_exclusions(const char *dir)
{
	FILE *f = open_ucd(dir, "CompositionExclusions.txt", U.version);
	char line[512];
	int lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		uint32_t lo, hi, cp;
		char *p = line;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!parse_range(&p, &lo, &hi))
			die("CompositionExclusions.txt:%d: bad line", lineno);
		for (cp = lo; cp <= hi; cp++)
			U.cexcl[cp] = 1;
	}
	fclose(f);
}

static void parse_nfkccf(const char *dir)
{
	FILE *f = open_ucd(dir, "DerivedNormalizationProps.txt", U.version);
	char line[512];
	int lineno = 0, found = 0;
	while (fgets(line, sizeof(line), f)) {
		uint32_t lo, hi, cp, c[SEQ_MAX];
		char *p = line, *v;
		int n;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		v = field(line, 1);
		if (!v || strncmp(v, "NFKC_CF;", 8))
			continue;
		if (!parse_range(&p, &lo, &hi))
			die("DerivedNormalizationProps.txt:%d: bad line",
			    lineno);
		n = parse_cps(field(line, 2), c, SEQ_MAX);
		if (n < 0)
			die("DerivedNormalizationProps.txt:%d: bad mapping",
			    lineno);
		for (cp = lo; cp <= hi; cp++)
			U.nkcf[cp] = seq_new(c, n);
		found++;
	}
	fclose(f);
	if (!found)
		die("DerivedNormalizationProps.txt: no NFKC_CF lines");
}

static void parse_corrections(const char *dir)
{
	FILE *f = open_ucd(dir, "NormalizationCorrections.txt", U.version);
	char line[512];
	int lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		uint32_t cp, orig[SEQ_MAX], corr[SEQ_MAX];
		char *p = line, *v;
		unsigned maj, min, upd;
		int no, nc, i;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!parse_range(&p, &cp, &cp))
			die("NormalizationCorrections.txt:%d: bad line",
			    lineno);
		no = parse_cps(field(line, 1), orig, SEQ_MAX);
		nc = parse_cps(field(line, 2), corr, SEQ_MAX);
		v = field(line, 3);
		if (no <= 0 || nc <= 0 || !v ||
		    sscanf(v, "%u.%u.%u", &maj, &min, &upd) != 3)
			die("NormalizationCorrections.txt:%d: bad line",
			    lineno);
		for (i = 0; i < U.nversions; i++)
			if (U.vmaj[i] == maj && U.vmin[i] == min)
				break;
		if (i == U.nversions)
			die("NormalizationCorrections.txt:%d: unknown version",
			    lineno);
		if (U.ncorr == MAX_CORR)
			die("too many corrections");
		/* Only singleton corrections exist; the run time relies on
		 * that (it swaps one code point for another). */
		if (no != 1 || nc != 1 || !U.dec[cp] || U.dec[cp]->n != 1 ||
		    U.dec[cp]->c[0] != corr[0] || U.dec_compat[cp])
			die("NormalizationCorrections.txt:%d: not a singleton "
			    "canonical correction matching UnicodeData",
			    lineno);
		U.corr_cp[U.ncorr] = cp;
		U.corr_orig[U.ncorr] = orig[0];
		U.corr_age[U.ncorr] = (uint8_t)(i + 1);
		U.ncorr++;
	}
	fclose(f);
}

/* ---- derivations ----------------------------------------------------- */

static int is_hangul(uint32_t cp)
{
	return cp >= SBASE && cp < SBASE + SCOUNT;
}

/* Is cp assigned (has its 15.0 properties) at age index v? */
static int live(uint32_t cp, int v)
{
	return U.age[cp] && U.age[cp] <= v;
}

/* Is cp ignorable at version v?  Assigned DI code points count from
 * their age; the permanently reserved ones count always. */
int ignorable_at(uint32_t cp, int v)
{
	return U.di[cp] && (U.age[cp] == 0 || U.age[cp] <= v);
}

/* Single-step raw decomposition at version v (corrections applied). */
static const struct seq *dec_at(uint32_t cp, int v, int compat,
				struct seq *tmp)
{
	int i;
	if (!live(cp, v))
		return NULL;
	if (is_hangul(cp)) {
		uint32_t s = cp - SBASE;
		tmp->n = 2;
		tmp->c[0] = LBASE + s / NCOUNT;
		tmp->c[1] = VBASE + (s % NCOUNT) / TCOUNT;
		if (s % TCOUNT)
			tmp->c[tmp->n++] = TBASE + s % TCOUNT;
		return tmp;
	}
	if (!U.dec[cp] || (U.dec_compat[cp] && !compat))
		return NULL;
	for (i = 0; i < U.ncorr; i++)
		if (U.corr_cp[i] == cp && v < U.corr_age[i]) {
			tmp->n = 1;
			tmp->c[0] = U.corr_orig[i];
			return tmp;
		}
	return U.dec[cp];
}

static void push(struct seq *out, uint32_t c)
{
	if (out->n == SEQ_MAX)
		die("expansion longer than SEQ_MAX");
	out->c[out->n++] = c;
}

/* Reference closure of cp for a kind at version v, computed by plain
 * recursion from the single-step data.  The loop applies "decompose,
 * else fold" to every code point until nothing changes; for the pure
 * decomposition kinds folding is off.
 *
 * Only the code point itself is judged by version v.  What it expands to
 * is expanded with the newest data, as the kernel's tables do: U+01E0
 * (1.1) decomposes to A + U+0307 + U+0304 at every version although its
 * single-step decomposition goes through U+0226, assigned in 3.0.
 * check_outputs() proves this cannot make a result depend on data the
 * version lacks (combining classes of the output). */
void ref_closure(int kind, uint32_t cp, int v, int ign, struct seq *out)
{
	struct seq cur, next, tmp;
	int fold = kind == K_CF || kind == K_CFK;
	int compat = kind == K_KD || kind == K_CFK;
	int changed, i, j, rounds = 0;
	cur.n = 1;
	cur.c[0] = cp;
	if (!live(cp, v) && !(ign && ignorable_at(cp, v))) {
		*out = cur;
		return;
	}
	do {
		changed = 0;
		next.n = 0;
		for (i = 0; i < cur.n; i++) {
			uint32_t c = cur.c[i];
			int cv = rounds ? U.nversions : v;
			const struct seq *d = dec_at(c, cv, compat, &tmp);
			if (ign && ignorable_at(c, cv)) {
				changed = 1;
				continue;
			}
			if (!d && fold && live(c, cv) && U.fold[c])
				d = U.fold[c];
			if (d) {
				for (j = 0; j < d->n; j++)
					push(&next, d->c[j]);
				changed = 1;
			} else {
				push(&next, c);
			}
		}
		cur = next;
		if (++rounds > 50)
			die("closure of U+%04X does not converge", cp);
	} while (changed);
	*out = cur;
}

/* Stable sort of each run of non-starters by ccc, as seen at v. */
void canon_order(struct seq *s, int v)
{
	int i, j;
	for (i = 1; i < s->n; i++) {
		uint32_t c = s->c[i];
		int cc = live(c, v) ? U.ccc[c] : 0;
		if (!cc)
			continue;
		for (j = i; j > 0; j--) {
			uint32_t p = s->c[j - 1];
			int pc = live(p, v) ? U.ccc[p] : 0;
			if (pc <= cc)
				break;
			s->c[j] = p;
		}
		s->c[j] = c;
	}
}

int seq_eq(const struct seq *a, const struct seq *b)
{
	return a->n == b->n && !memcmp(a->c, b->c, a->n * sizeof(a->c[0]));
}

static void derive(void)
{
	int k, newest = U.nversions;
	uint32_t cp;
	struct seq s;

	/* Stored closures are those of the newest version; the checks
	 * below prove the run-time model reproduces every older one. */
	for (k = 0; k < K_STORED; k++)
		for (cp = 0; cp <= MAX_CP; cp++) {
			if (!U.age[cp] || is_hangul(cp))
				continue;
			ref_closure(k, cp, newest, 0, &s);
			if (s.n == 1 && s.c[0] == cp)
				continue;
			U.clo[k][cp] = seq_new(s.c, s.n);
			if (s.n > U.maxexp)
				U.maxexp = s.n;
		}

	/* NFKC_CF: derivable at run time as the compatibility caseless
	 * closure with ignorables dropped, except where the UCD property
	 * says otherwise; those few become stored exceptions. */
	for (cp = 0; cp <= MAX_CP; cp++) {
		struct seq want, got, tmp;
		int i, j;
		if (!U.age[cp] && !U.di[cp])
			continue; /* unassigned: identity either way */
		want.n = 0;
		if (U.nkcf[cp]) {
			for (i = 0; i < U.nkcf[cp]->n; i++) {
				ref_closure(K_D, U.nkcf[cp]->c[i], newest, 0,
					    &tmp);
				for (j = 0; j < tmp.n; j++)
					push(&want, tmp.c[j]);
			}
		} else {
			ref_closure(K_D, cp, newest, 0, &want);
		}
		canon_order(&want, newest);
		if (ignorable_at(cp, newest))
			got.n = 0;
		else
			ref_closure(K_CFK, cp, newest, 1, &got);
		canon_order(&got, newest);
		if (!seq_eq(&want, &got)) {
			if (U.nexc == MAX_EXC)
				die("too many NFKC_CF exceptions");
			U.exc_cp[U.nexc] = cp;
			U.exc_map[U.nexc] = seq_new(want.c, want.n);
			U.nexc++;
			if (want.n > U.maxexp)
				U.maxexp = want.n;
		}
	}
}

/* Debugging aid: every code point with data, one per line. */
static void dump(const char *path)
{
	FILE *f = fopen(path, "w");
	uint32_t cp;
	int k, i;
	if (!f)
		die("cannot write %s", path);
	for (cp = 0; cp <= MAX_CP; cp++) {
		if (!U.age[cp] && !U.di[cp])
			continue;
		fprintf(f, "%X %d %d %d %d", cp, U.age[cp], U.ccc[cp], U.di[cp],
			U.fold[cp] != NULL);
		for (k = 0; k < K_STORED; k++) {
			fputc(' ', f);
			if (!U.clo[k][cp]) {
				fputc('-', f);
				continue;
			}
			for (i = 0; i < U.clo[k][cp]->n; i++)
				fprintf(f, "%s%X", i ? "," : "",
					U.clo[k][cp]->c[i]);
			if (!U.clo[k][cp]->n)
				fputc('=', f);
		}
		fputc(' ', f);
		if (U.dec[cp] && !U.dec_compat[cp] && !U.fce[cp])
			fprintf(f, "%X,%X", U.dec[cp]->c[0], U.dec[cp]->c[1]);
		else
			fputc('-', f);
		fputc('\n', f);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *dir, *out;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("Usage: mktables UCD-DIR OUTPUT.c\n"
		       "\n"
		       "Generate libfold's tables (lib/fold_tables.c) from the Unicode\n"
		       "Character Database in UCD-DIR (e.g. /usr/share/unicode): reads\n"
		       "UnicodeData.txt, CaseFolding.txt, DerivedAge.txt,\n"
		       "DerivedCoreProperties.txt, CompositionExclusions.txt,\n"
		       "DerivedNormalizationProps.txt and NormalizationCorrections.txt.\n"
		       "\n"
		       "Before writing, it checks its derivations: that the stored\n"
		       "closures are fixpoints and reproduce the plain recursion at every\n"
		       "Unicode version, that NFKC_Casefold derived at run time equals\n"
		       "the UCD property, and that the encoded tables decode to the data.\n"
		       "Any inconsistency is reported and the exit status is 1; nothing\n"
		       "is written then.  The output is deterministic.  Sizes go to\n"
		       "standard error.\n"
		       "\n"
		       "Environment: MKTABLES_DUMP=FILE also writes every code point's\n"
		       "derived data to FILE (a debugging aid).\n"
		       "\n"
		       "Exit status: 0 success, 1 bad data or failed check, 2 usage.\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: mktables UCD-DIR OUTPUT.c (see --help)\n");
		return 2;
	}
	dir = argv[1];
	out = argv[2];

	parse_unicodedata(dir);
	parse_casefolding(dir);
	parse_age(dir);
	parse_binary(dir, "DerivedCoreProperties.txt",
		     "Default_Ignorable_Code_Point", U.di);
	parse_binary(dir, "DerivedNormalizationProps.txt",
		     "Full_Composition_Exclusion", U.fce);
	parse_exclusions(dir);
	parse_nfkccf(dir);
	parse_corrections(dir);
	if (!U.version[0])
		die("no version found in the UCD file headers");

	derive();
	check_all();
	if (getenv("MKTABLES_DUMP"))
		dump(getenv("MKTABLES_DUMP"));
	emit(out);
	return 0;
}
