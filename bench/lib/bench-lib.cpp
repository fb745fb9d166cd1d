/*
 * bench-lib.cpp - libfold against ICU 72 and utf8proc 2.8, side by side in
 * one process, on the generated name corpus (corpus.h).
 *
 * Operations, per name set:
 *   fold     the comparison key into a caller buffer
 *   compare  a name against its other spelling; libfold streams both
 *            (fold_equal / fold_cmp), the peers fold both then memcmp
 *   differ   the same against a different name of the set (the common
 *            case in a directory scan: where streaming can stop early)
 *   hash     libfold's fold_hash; the peers fold, then SipHash-1-3 the
 *            buffer (siphash.c: the same hash libfold computes)
 * Forms: NFKC_Casefold (libfold FOLD_NFKC_CF, ICU's nfkc_cf instance,
 * utf8proc's NFKC_Casefold options) and canonical caseless (libfold
 * FOLD_CASEFOLD; ICU NFD + ucasemap_utf8FoldCase + NFD; utf8proc
 * CASEFOLD|DECOMPOSE|STABLE), and libfold's "ext4" profile -- also
 * against the Linux kernel's own utf8_casefold / utf8_strncasecmp
 * (kernel-peer.c) where that could be fetched and linked.
 *
 * Each measurement is one pass over a slice of 1,000 names of a set; the
 * implementations of an operation take turns on each slice, R times, and
 * an implementation's time is the sum over the slices of its best pass,
 * so a loaded or drifting machine slows everyone alike.  Every result is
 * folded into a volatile sink.  Before timing, every key of the three
 * libraries and every answer of fold_equal / fold_cmp / fold_hash is
 * checked against ICU's keys (verify), so no row times different work.  Heap allocations are counted
 * (alloccount.c) around every pass; libfold's must be zero.
 *
 * --check (used by the lib-ratio suite) runs a small corpus and asserts
 * loose ratios and zero allocations, printing "N passed, N failed".
 */
#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/ucasemap.h>
#include <unicode/uversion.h>
#include <utf8proc.h>

#include "alloccount.h"
#include "corpus.h"
#include "fold.h"
#include "siphash.h"

/* The Linux kernel's own utf8-12.1 nfdicf (kernel-peer.c), the ext4
 * profile's peer: linked only where tests/lib/kernel-src.sh could fetch
 * the kernel's source, so weak (null when absent). */
extern "C" {
int bench_kernel_ready(void) __attribute__((weak));
long bench_kernel_key(const char *s, size_t n, char *out, size_t cap)
	__attribute__((weak));
int bench_kernel_equal(const char *a, size_t an, const char *b, size_t bn)
	__attribute__((weak));
}

namespace {

volatile uint64_t vsink;

const uint64_t K0 = 0x0706050403020100ull, K1 = 0x0f0e0d0c0b0a0908ull;
const struct fold_seed SEED = {K0, K1};
const size_t CAP = 1 << 14;

double now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

enum Family { OURS, ICU, UTF8PROC, PLAIN, KERNEL };

struct Impl {
	std::string label;
	Family fam;
	std::function<uint64_t(const NameSet &)> pass;
	double best = 0;	     /* sum of best slice passes, ns */
	unsigned long allocs = 0;    /* allocations in all passes */
	unsigned long passes = 0;
	uint64_t result = 0;	     /* last pass's result (e.g. equal pairs) */
};

/* ---- the implementations ---------------------------------------------- */

struct Peers {
	const icu::Normalizer2 *nfd, *nkcf;
	UCaseMap *csm;
	std::string a, b, t;
	std::vector<char> fb;

	Peers()
	{
		UErrorCode e = U_ZERO_ERROR;
		nfd = icu::Normalizer2::getNFDInstance(e);
		nkcf = icu::Normalizer2::getNFKCCasefoldInstance(e);
		csm = ucasemap_open("", U_FOLD_CASE_DEFAULT, &e);
		if (U_FAILURE(e)) {
			std::fprintf(stderr, "bench-lib: ICU: %s\n",
				     u_errorName(e));
			std::exit(2);
		}
		a.reserve(CAP);
		b.reserve(CAP);
		t.reserve(CAP);
		fb.resize(CAP);
	}

	/* NFKC_Casefold into out (reused: no allocation once warm). */
	void icu_nkcf(const std::string &s, std::string &out)
	{
		UErrorCode e = U_ZERO_ERROR;
		out.clear();
		icu::StringByteSink<std::string> sink(&out);
		nkcf->normalizeUTF8(0, icu::StringPiece(s.data(), (int32_t)s.size()),
				    sink, nullptr, e);
	}
	/* NFD, full case folding, NFD. */
	void icu_cf(const std::string &s, std::string &out)
	{
		UErrorCode e = U_ZERO_ERROR;
		t.clear();
		{
			icu::StringByteSink<std::string> sink(&t);
			nfd->normalizeUTF8(0, icu::StringPiece(s.data(), (int32_t)s.size()),
					   sink, nullptr, e);
		}
		int32_t n = ucasemap_utf8FoldCase(csm, fb.data(), (int32_t)fb.size(),
						  t.data(), (int32_t)t.size(), &e);
		out.clear();
		icu::StringByteSink<std::string> sink(&out);
		nfd->normalizeUTF8(0, icu::StringPiece(fb.data(), n), sink, nullptr,
				   e);
	}
};

const utf8proc_option_t U8P_NKCF = (utf8proc_option_t)(
	UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
	UTF8PROC_CASEFOLD | UTF8PROC_IGNORE);
const utf8proc_option_t U8P_CF = (utf8proc_option_t)(
	UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_CASEFOLD);

/* The named peer: utf8proc_map (what utf8proc_NFKC_Casefold calls)
 * allocates its result; that is its API. */
ssize_t u8p(const std::string &s, utf8proc_option_t o, utf8proc_uint8_t **d)
{
	return utf8proc_map((const utf8proc_uint8_t *)s.data(),
			    (utf8proc_ssize_t)s.size(), d, o);
}

/* For reference only: the pipeline utf8proc_map runs (decompose,
 * normalize, re-encode) straight into a caller buffer, which skips
 * utf8proc_map's sizing pass and its malloc/realloc/free.  Printed below
 * the table ("utf8proc, caller buffer"); the ratio columns stay against
 * the named API. */
utf8proc_int32_t u8buf[CAP];
ssize_t u8p_buf(const std::string &s, utf8proc_option_t o,
		const utf8proc_uint8_t **d)
{
	utf8proc_ssize_t r = utf8proc_decompose(
		(const utf8proc_uint8_t *)s.data(), (utf8proc_ssize_t)s.size(),
		u8buf, (utf8proc_ssize_t)CAP, o);
	if (r < 0 || r > (utf8proc_ssize_t)CAP)
		return -1;
	r = utf8proc_normalize_utf32(u8buf, r, o);
	if (r < 0)
		return r;
	r = utf8proc_reencode(u8buf, r, o);
	*d = (const utf8proc_uint8_t *)u8buf;
	return r;
}

int ascii_eq(const std::string &a, const std::string &b)
{
	if (a.size() != b.size())
		return 0;
	for (size_t i = 0; i < a.size(); i++) {
		unsigned x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x - 'A' < 26u)
			x += 32;
		if (y - 'A' < 26u)
			y += 32;
		if (x != y)
			return 0;
	}
	return 1;
}

[[noreturn]] void die(const char *what)
{
	std::fprintf(stderr, "bench-lib: %s\n", what);
	std::exit(2);
}

struct Contexts {
	struct fold_ctx nkcf, cf, ext4;
	Contexts()
	{
		if (fold_init(&nkcf, "utf8", FOLD_NFKC_CF, 0) ||
		    fold_init(&cf, "utf8", FOLD_CASEFOLD, 0) ||
		    fold_init_profile(&ext4, "ext4"))
			die("fold_init failed");
	}
};

/* ---- operations -------------------------------------------------------- */

struct Op {
	std::string name;
	std::vector<Impl> impls;
};

Impl ours_fold(const char *label, const struct fold_ctx *c)
{
	return {label, OURS, [c](const NameSet &ns) {
			static char buf[CAP];
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				ssize_t r = fold_key(c, s.data(), s.size(), buf, CAP);
				if (r < 0 || (size_t)r > CAP)
					die("fold_key failed");
				acc += (uint64_t)r + (unsigned char)buf[0];
			}
			return acc;
		}};
}

/* Which list a compare pass pairs each name with. */
typedef std::vector<std::string> NameSet::*Partner;

Impl ours_equal(const char *label, const struct fold_ctx *c, Partner pt)
{
	return {label, OURS, [c, pt](const NameSet &ns) {
			const std::vector<std::string> &o = ns.*pt;
			uint64_t eq = 0;
			for (size_t i = 0; i < ns.names.size(); i++)
				eq += (uint64_t)fold_equal(
					c, ns.names[i].data(), ns.names[i].size(),
					o[i].data(), o[i].size());
			return eq;
		}};
}

Impl ours_cmp(const char *label, const struct fold_ctx *c, Partner pt)
{
	return {label, OURS, [c, pt](const NameSet &ns) {
			const std::vector<std::string> &o = ns.*pt;
			uint64_t eq = 0;
			for (size_t i = 0; i < ns.names.size(); i++)
				eq += fold_cmp(c, ns.names[i].data(),
					       ns.names[i].size(), o[i].data(),
					       o[i].size()) == 0;
			return eq;
		}};
}

/* The peers' passes, one per operation, for either form.  The ICU form is
 * a template argument so that its call is as direct as ours. */
typedef void (Peers::*IcuForm)(const std::string &, std::string &);

template <IcuForm F> Impl icu_fold(const char *label, Peers *pp)
{
	return {label, ICU, [pp](const NameSet &ns) {
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				(pp->*F)(s, pp->a);
				acc += pp->a.size() + (unsigned char)pp->a[0];
			}
			return acc;
		}};
}

template <IcuForm F> Impl icu_hash(const char *label, Peers *pp)
{
	return {label, ICU, [pp](const NameSet &ns) {
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				(pp->*F)(s, pp->a);
				acc ^= bench_siphash13(K0, K1, pp->a.data(), pp->a.size());
			}
			return acc;
		}};
}

template <IcuForm F> Impl icu_compare(const char *label, Peers *pp, Partner pt)
{
	return {label, ICU, [pp, pt](const NameSet &ns) {
			const std::vector<std::string> &o = ns.*pt;
			uint64_t eq = 0;
			for (size_t i = 0; i < ns.names.size(); i++) {
				(pp->*F)(ns.names[i], pp->a);
				(pp->*F)(o[i], pp->b);
				eq += pp->a.size() == pp->b.size() &&
				      !std::memcmp(pp->a.data(), pp->b.data(), pp->a.size());
			}
			return eq;
		}};
}

Impl u8p_fold(const char *label, utf8proc_option_t opt)
{
	return {label, UTF8PROC, [opt](const NameSet &ns) {
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				utf8proc_uint8_t *d = nullptr;
				ssize_t r = u8p(s, opt, &d);
				acc += (uint64_t)r + (r > 0 ? d[0] : 0);
				std::free(d);
			}
			return acc;
		}};
}

Impl u8p_buf_fold(const char *label, utf8proc_option_t opt)
{
	return {label, UTF8PROC, [opt](const NameSet &ns) {
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				const utf8proc_uint8_t *d = nullptr;
				ssize_t r = u8p_buf(s, opt, &d);
				acc += (uint64_t)r + (r > 0 ? d[0] : 0);
			}
			return acc;
		}};
}

Impl u8p_hash(const char *label, utf8proc_option_t opt)
{
	return {label, UTF8PROC, [opt](const NameSet &ns) {
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				utf8proc_uint8_t *d = nullptr;
				ssize_t r = u8p(s, opt, &d);
				if (r >= 0)
					acc ^= bench_siphash13(K0, K1, d, (size_t)r);
				std::free(d);
			}
			return acc;
		}};
}

Impl u8p_compare(const char *label, utf8proc_option_t opt, Partner pt)
{
	return {label, UTF8PROC, [opt, pt](const NameSet &ns) {
			const std::vector<std::string> &o = ns.*pt;
			uint64_t eq = 0;
			for (size_t i = 0; i < ns.names.size(); i++) {
				utf8proc_uint8_t *x = nullptr, *y = nullptr;
				ssize_t a = u8p(ns.names[i], opt, &x);
				ssize_t b = u8p(o[i], opt, &y);
				eq += a >= 0 && a == b && !std::memcmp(x, y, (size_t)a);
				std::free(x);
				std::free(y);
			}
			return eq;
		}};
}

/* The kernel's passes: utf8_casefold into a buffer, utf8_strncasecmp,
 * utf8_casefold + the peers' SipHash. */
Impl kern_fold(const char *label)
{
	return {label, KERNEL, [](const NameSet &ns) {
			static char buf[CAP];
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				long r = bench_kernel_key(s.data(), s.size(), buf, CAP);
				if (r < 0)
					die("the kernel refused a name");
				acc += (uint64_t)r + (unsigned char)buf[0];
			}
			return acc;
		}};
}

Impl kern_equal(const char *label, Partner pt)
{
	return {label, KERNEL, [pt](const NameSet &ns) {
			const std::vector<std::string> &o = ns.*pt;
			uint64_t eq = 0;
			for (size_t i = 0; i < ns.names.size(); i++)
				eq += bench_kernel_equal(ns.names[i].data(),
							 ns.names[i].size(),
							 o[i].data(), o[i].size()) == 1;
			return eq;
		}};
}

Impl kern_hash(const char *label)
{
	return {label, KERNEL, [](const NameSet &ns) {
			static char buf[CAP];
			uint64_t acc = 0;
			for (const std::string &s : ns.names) {
				long r = bench_kernel_key(s.data(), s.size(), buf, CAP);
				if (r >= 0)
					acc ^= bench_siphash13(K0, K1, buf, (size_t)r);
			}
			return acc;
		}};
}

bool have_kernel()
{
	return bench_kernel_ready && bench_kernel_ready();
}

Op compare_op(const char *name, Contexts &cx, Peers *pp, Partner pt)
{
	Op op = {name, {
		ours_equal("libfold NFKC_CF equal", &cx.nkcf, pt),
		ours_cmp("libfold NFKC_CF cmp", &cx.nkcf, pt),
		ours_equal("libfold CASEFOLD equal", &cx.cf, pt),
		ours_equal("libfold ext4 equal", &cx.ext4, pt),
		icu_compare<&Peers::icu_nkcf>("ICU NFKC_CF", pp, pt),
		icu_compare<&Peers::icu_cf>("ICU NFD+fold+NFD", pp, pt),
		u8p_compare("utf8proc NFKC_CF", U8P_NKCF, pt),
		u8p_compare("utf8proc CASEFOLD", U8P_CF, pt),
		{"tolower+memcmp", PLAIN, [pt](const NameSet &ns) {
			const std::vector<std::string> &o = ns.*pt;
			uint64_t eq = 0;
			for (size_t i = 0; i < ns.names.size(); i++)
				eq += (uint64_t)ascii_eq(ns.names[i], o[i]);
			return eq;
		}},
	}};
	if (have_kernel())
		op.impls.push_back(kern_equal("kernel ext4 equal", pt));
	return op;
}

Impl ours_hash(const char *label, const struct fold_ctx *c)
{
	return {label, OURS, [c](const NameSet &ns) {
			uint64_t acc = 0;
			for (const std::string &s : ns.names)
				acc ^= fold_hash(c, &SEED, s.data(), s.size());
			return acc;
		}};
}

std::vector<Op> make_ops(Contexts &cx, Peers &p)
{
	std::vector<Op> ops;
	Peers *pp = &p;

	ops.push_back({"fold", {
		ours_fold("libfold NFKC_CF", &cx.nkcf),
		ours_fold("libfold CASEFOLD", &cx.cf),
		ours_fold("libfold ext4", &cx.ext4),
		icu_fold<&Peers::icu_nkcf>("ICU NFKC_CF", pp),
		icu_fold<&Peers::icu_cf>("ICU NFD+fold+NFD", pp),
		u8p_fold("utf8proc NFKC_CF", U8P_NKCF),
		u8p_fold("utf8proc CASEFOLD", U8P_CF),
		u8p_buf_fold("utf8proc NFKC_CF buffer", U8P_NKCF),
		u8p_buf_fold("utf8proc CASEFOLD buffer", U8P_CF),
	}});
	if (have_kernel())
		ops.back().impls.push_back(kern_fold("kernel ext4"));

	ops.push_back(compare_op("compare", cx, pp, &NameSet::others));
	ops.push_back(compare_op("differ", cx, pp, &NameSet::unrelated));

	ops.push_back({"hash", {
		ours_hash("libfold NFKC_CF", &cx.nkcf),
		ours_hash("libfold CASEFOLD", &cx.cf),
		ours_hash("libfold ext4", &cx.ext4),
		icu_hash<&Peers::icu_nkcf>("ICU NFKC_CF", pp),
		icu_hash<&Peers::icu_cf>("ICU NFD+fold+NFD", pp),
		u8p_hash("utf8proc NFKC_CF", U8P_NKCF),
		u8p_hash("utf8proc CASEFOLD", U8P_CF),
	}});
	if (have_kernel())
		ops.back().impls.push_back(kern_hash("kernel ext4"));
	return ops;
}

/* Untimed: does every implementation do the same work?  Per name, the
 * NFKC_Casefold and canonical caseless keys of libfold, ICU and utf8proc
 * (utf8proc_map and the caller-buffer pipeline)
 * must be byte-equal; per pair (compare and differ), fold_equal and
 * fold_cmp must answer as the ICU keys do, and fold_hash must agree for
 * equivalent names.  Returns the number of disagreements. */
unsigned long verify(const NameSet &ns, Contexts &cx, Peers &p)
{
	static char kb[CAP];
	unsigned long bad = 0;
	const struct fold_ctx *ctx[2] = {&cx.nkcf, &cx.cf};
	const utf8proc_option_t uo[2] = {U8P_NKCF, U8P_CF};
	for (int f = 0; f < 2; f++) {
		IcuForm icu = f ? &Peers::icu_cf : &Peers::icu_nkcf;
		for (size_t i = 0; i < ns.names.size(); i++) {
			const std::string &s = ns.names[i];
			(p.*icu)(s, p.a);
			ssize_t k = fold_key(ctx[f], s.data(), s.size(), kb, CAP);
			utf8proc_uint8_t *d = nullptr;
			const utf8proc_uint8_t *e = nullptr;
			ssize_t u = u8p(s, uo[f], &d);
			ssize_t v = u8p_buf(s, uo[f], &e);
			bad += k < 0 || (size_t)k != p.a.size() ||
			       std::memcmp(kb, p.a.data(), p.a.size());
			bad += u < 0 || (size_t)u != p.a.size() ||
			       std::memcmp(d, p.a.data(), p.a.size());
			bad += v < 0 || (size_t)v != p.a.size() ||
			       std::memcmp(e, p.a.data(), p.a.size());
			std::free(d);
			for (const std::vector<std::string> *o :
			     {&ns.others, &ns.unrelated}) {
				const std::string &t = (*o)[i];
				(p.*icu)(t, p.b);
				int want = p.a == p.b;
				bad += fold_equal(ctx[f], s.data(), s.size(), t.data(),
						  t.size()) != want;
				bad += (fold_cmp(ctx[f], s.data(), s.size(), t.data(),
						 t.size()) == 0) != want;
				if (want)
					bad += fold_hash(ctx[f], &SEED, s.data(), s.size()) !=
					       fold_hash(ctx[f], &SEED, t.data(), t.size());
			}
		}
	}
	return bad;
}

/* The ext4 profile against the kernel, per operation: libfold's
 * implementation and the kernel's (labels in make_ops). */
struct KernelRow {
	const char *op, *ours, *kernel;
};
const KernelRow kernel_rows[] = {
	{"fold", "libfold ext4", "kernel ext4"},
	{"compare", "libfold ext4 equal", "kernel ext4 equal"},
	{"differ", "libfold ext4 equal", "kernel ext4 equal"},
	{"hash", "libfold ext4", "kernel ext4"},
};

/* The set cut into slices of SLICE names (the last one may be longer). */
const size_t SLICE = 1000;

std::vector<NameSet> slices(const NameSet &ns)
{
	std::vector<NameSet> v;
	size_t n = ns.names.size(), lo = 0;
	while (lo < n) {
		size_t hi = n - lo < 2 * SLICE ? n : lo + SLICE;
		NameSet part;
		part.name = ns.name;
		part.names.assign(ns.names.begin() + lo, ns.names.begin() + hi);
		part.others.assign(ns.others.begin() + lo, ns.others.begin() + hi);
		part.unrelated.assign(ns.unrelated.begin() + lo,
				      ns.unrelated.begin() + hi);
		v.push_back(std::move(part));
		lo = hi;
	}
	return v;
}

/*
 * Time every implementation of op on ns, reps times.  The set is timed a
 * slice at a time, the implementations taking turns on each slice (in an
 * order that rotates and changes direction), and an implementation's
 * time is the sum over the
 * slices of its best time on each: the machine's speed drifts over
 * seconds (other guests, frequency), and this way every implementation
 * is compared with the others at nearly the same moment.
 */
void run_op(Op &op, const NameSet &ns, int reps)
{
	std::vector<NameSet> parts = slices(ns);
	size_t ni = op.impls.size();
	std::vector<double> best(parts.size() * ni, 1e300);
	for (Impl &im : op.impls) {
		im.best = 0;
		im.allocs = im.passes = 0;
		im.result = 0;
	}
	for (int r = 0; r < reps; r++)
		for (size_t k = 0; k < parts.size(); k++)
			for (size_t j = 0; j < ni; j++) {
				/* the start rotates and the direction
				 * alternates, so no implementation always
				 * runs right after the same other one (whose
				 * tables would be warm in the cache, or whose
				 * own would have pushed them out) */
				size_t rk = (size_t)r + k;
				size_t i = (rk & 1) ? (rk + j) % ni
						    : (rk + ni * ni - j) % ni;
				Impl &im = op.impls[i];
				/* the plain ASCII loop only means something
				 * on ASCII */
				if (im.fam == PLAIN && ns.name != "ascii")
					continue;
				unsigned long a0 = alloc_count();
				double t0 = now_ns();
				uint64_t v = im.pass(parts[k]);
				double t = now_ns() - t0;
				im.allocs += alloc_count() - a0;
				if (k == 0)
					im.passes++;
				if (r == reps - 1)
					im.result += v; /* e.g. equal pairs */
				vsink = vsink + v;
				if (t < best[k * ni + i])
					best[k * ni + i] = t;
			}
	for (size_t i = 0; i < ni; i++)
		for (size_t k = 0; k < parts.size(); k++)
			op.impls[i].best += best[k * ni + i];
}

Impl *find(Op &op, const char *label)
{
	for (Impl &im : op.impls)
		if (im.label == label)
			return &im;
	return nullptr;
}

Op &find_op(std::vector<Op> &ops, const char *name)
{
	for (Op &op : ops)
		if (op.name == name)
			return op;
	die("no such operation");
}

/* names (or pairs) per second of a measured implementation */
double rate(const Impl *im, const NameSet &ns)
{
	return im && im->passes ? (double)ns.names.size() * 1e9 / im->best : 0;
}

std::string fmt_rate(double r)
{
	char b[32];

	if (r <= 0)
		return "-";
	if (r >= 1e6)
		std::snprintf(b, sizeof b, "%.2fM", r / 1e6);
	else
		std::snprintf(b, sizeof b, "%.0fk", r / 1e3);
	return b;
}

struct Row {
	const char *op, *form, *ours, *icu, *u8p;
};

/* One table line per (operation, form); ratio columns are ours/peer. */
const Row rows[] = {
	{"fold", "NFKC_CF", "libfold NFKC_CF", "ICU NFKC_CF", "utf8proc NFKC_CF"},
	{"fold", "CF", "libfold CASEFOLD", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
	{"fold", "ext4", "libfold ext4", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
	{"compare", "NFKC_CF", "libfold NFKC_CF equal", "ICU NFKC_CF", "utf8proc NFKC_CF"},
	{"compare", "NFKC_CF/cmp", "libfold NFKC_CF cmp", "ICU NFKC_CF", "utf8proc NFKC_CF"},
	{"compare", "CF", "libfold CASEFOLD equal", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
	{"compare", "ext4", "libfold ext4 equal", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
	{"differ", "NFKC_CF", "libfold NFKC_CF equal", "ICU NFKC_CF", "utf8proc NFKC_CF"},
	{"differ", "NFKC_CF/cmp", "libfold NFKC_CF cmp", "ICU NFKC_CF", "utf8proc NFKC_CF"},
	{"differ", "CF", "libfold CASEFOLD equal", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
	{"differ", "ext4", "libfold ext4 equal", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
	{"hash", "NFKC_CF", "libfold NFKC_CF", "ICU NFKC_CF", "utf8proc NFKC_CF"},
	{"hash", "CF", "libfold CASEFOLD", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
	{"hash", "ext4", "libfold ext4", "ICU NFD+fold+NFD", "utf8proc CASEFOLD"},
};

struct Result {
	std::string set, op, form;
	double ours, icu, u8p;
};

void print_header()
{
	std::printf("%-10s %-8s %-12s %9s %8s %9s %8s %9s %8s %8s %8s\n", "set",
		    "op", "form", "libfold/s", "MB/s", "ICU/s", "MB/s",
		    "u8proc/s", "MB/s", "xICU", "xu8proc");
}

/* --check floors: about half of what a loaded 2-core Zen 5 VM measured
 * (mixed set, x ICU / x utf8proc_map): fold NFKC_CF 1.81 / 9.3, fold CF
 * 6.3-6.5 / 10.8, compare NFKC_CF 2.5-2.6 / 10.3, compare CF 6.6-6.7 /
 * 11.3, differ NFKC_CF 10.0-10.6 / 41, differ CF 26-27 / 45, hash NFKC_CF
 * 1.73-1.78 / 8.2, hash CF 5.3 / 8.7; ascii 1.4-1.5x tolower+memcmp), so
 * noise passes and a hot path made about 2x slower (or any allocation, or
 * any result that differs from the peers') fails.  Set them again
 * whenever libfold or a peer gets faster.  --scale multiplies them. */
struct Floor {
	const char *op, *form;
	double icu, u8p;
};
const Floor floors[] = {
	{"fold", "NFKC_CF", 0.9, 4.6},	{"fold", "CF", 3.1, 5.4},
	{"compare", "NFKC_CF", 1.3, 5.1}, {"compare", "CF", 3.3, 5.6},
	{"differ", "NFKC_CF", 5.0, 20.0}, {"differ", "CF", 13.0, 22.0},
	{"hash", "NFKC_CF", 0.9, 4.1},	{"hash", "CF", 2.6, 4.3},
};
const double min_ascii = 0.7;

void usage(FILE *f)
{
	std::fprintf(f,
"Usage: bench-lib [--names N] [--reps R] [--sets LIST] [--quick]\n"
"                 [--check [--scale F]]\n"
"\n"
"Benchmarks libfold against ICU and utf8proc on a generated corpus of file\n"
"names: N names per set (default 50000), timed in slices of 1000 names\n"
"that all implementations take turns on, R times (default 7); a time is\n"
"the sum of the best pass on each slice.  Sets: ascii, latin-nfc, latin-nfd, greek, cyrillic, cjk,\n"
"hangul, emoji, mixed (LIST is comma separated).  Prints names (pairs) per\n"
"second and MB/s per operation and form, the ratios libfold/ICU and\n"
"libfold/utf8proc, table sizes and heap allocations.  Operations: fold\n"
"(key into a buffer), compare (name vs another spelling of it), differ\n"
"(name vs a different name), hash.  Where bench-lib was linked with the\n"
"Linux kernel's fs/unicode (make bench fetches it), the ext4 profile is\n"
"also timed against the kernel's own code.\n"
"--quick: 10000 names, 5 passes.\n"
"--check: 10000 names of the ascii and mixed sets, 15 passes, then\n"
"assert: libfold, ICU and utf8proc compute the same keys and find the same\n"
"equal pairs (checked untimed, name by name, and on every timed pass);\n"
"libfold makes no heap allocation (and, with the kernel\n"
"linked, finds the same equal pairs as the kernel); on the mixed set libfold\n"
"is at least this many times as fast (names or pairs per second) as\n"
"ICU / utf8proc:\n");
	for (const Floor &fl : floors)
		std::fprintf(f, "  %-8s %-8s %4.2f / %4.2f\n", fl.op, fl.form,
			     fl.icu, fl.u8p);
	std::fprintf(f,
"and on ascii libfold's CASEFOLD compare is at least %.2f times a plain\n"
"tolower+memcmp loop.  --scale F multiplies every floor (e.g. 0.5 on a\n"
"very noisy machine).\n"
"Only ratios are asserted, never times.  Ends with \"N passed, N failed\".\n",
		     min_ascii);
}

} // namespace

int main(int argc, char **argv)
{
	size_t per_set = 50000;
	int reps = 7;
	bool check = false;
	double scale = 1.0;
	std::string only;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		bool more = i + 1 < argc;

		if (a == "--help" || a == "-h") {
			usage(stdout);
			return 0;
		} else if (a == "--names" && more) {
			per_set = std::strtoul(argv[++i], nullptr, 10);
		} else if (a == "--reps" && more) {
			reps = std::atoi(argv[++i]);
		} else if (a == "--sets" && more) {
			only = std::string(",") + argv[++i] + ",";
		} else if (a == "--quick") {
			per_set = 10000;
			reps = 5;
		} else if (a == "--check") {
			check = true;
		} else if (a == "--scale" && more) {
			scale = std::atof(argv[++i]);
		} else {
			std::fprintf(stderr, "bench-lib: bad argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (check) {
		if (per_set == 50000)
			per_set = 10000;
		if (reps == 7)
			reps = 15;
		if (only.empty())
			only = ",ascii,mixed,";
	}
	if (per_set == 0 || reps < 1) {
		usage(stderr);
		return 2;
	}

	const char *const *versions;
	size_t nv = fold_unicode_versions(&versions);
	std::printf("bench-lib: %zu names per set, best of %d passes per slice of "
		    "1000; libfold "
		    "Unicode %s, ICU %s, utf8proc %s\n",
		    per_set, reps, nv ? versions[nv - 1] : "?", U_ICU_VERSION,
		    utf8proc_version());
	std::printf("libfold tables: %zu bytes for %zu Unicode versions and all "
		    "forms (Linux fs/unicode utf8data: 64256 bytes, 12.1 only, "
		    "NFD and NFD+CF)\n\n",
		    fold_table_bytes(), nv);

	std::vector<NameSet> sets = make_corpus(per_set, 0x5EEDF01Dull);
	Contexts cx;
	Peers peers;
	std::vector<Op> ops = make_ops(cx, peers);
	std::vector<Result> results;
	unsigned long our_allocs[4] = {0, 0, 0, 0}, our_passes[4] = {0, 0, 0, 0};
	double ascii_plain = 0, ascii_ours = 0;
	unsigned long pass_total = 0, fail_total = 0;
	std::string mismatch, kernel_table, buffer_table;
	/* equal pairs (compare, differ) that libfold's ext4 profile and the
	 * kernel disagree on: must be none */
	unsigned long kernel_disagree = 0;
	/* outputs that differ between implementations (verify), and timed
	 * passes whose equal pairs differ from ICU's: must be none */
	unsigned long work_mismatch = 0, count_mismatch = 0;
	bool kernel = have_kernel();

	print_header();
	for (NameSet &ns : sets) {
		if (!only.empty() && only.find("," + ns.name + ",") == std::string::npos)
			continue;
		work_mismatch += verify(ns, cx, peers);
		/* warm-up: caches, lazily loaded ICU data */
		for (Op &op : ops)
			run_op(op, ns, 1);
		for (size_t o = 0; o < ops.size(); o++) {
			run_op(ops[o], ns, reps);
			for (Impl &im : ops[o].impls)
				if (im.fam == OURS) {
					our_allocs[o] += im.allocs;
					our_passes[o] += im.passes;
				}
		}
		/* the same equivalence must find the same equal pairs */
		{
			Op &cmp = ops[1];
			const Impl *a = find(cmp, "libfold NFKC_CF equal"),
				   *b = find(cmp, "ICU NFKC_CF"),
				   *c = find(cmp, "libfold CASEFOLD equal"),
				   *d = find(cmp, "ICU NFD+fold+NFD");
			char m[200];
			std::snprintf(m, sizeof m,
				      "  %s: equal pairs NFKC_CF libfold %" PRIu64
				      " ICU %" PRIu64 ", CF libfold %" PRIu64
				      " ICU %" PRIu64 " of %zu\n",
				      ns.name.c_str(), a->result, b->result,
				      c->result, d->result, ns.names.size());
			mismatch += m;
			/* and so must every timed pass of the two forms */
			for (int o = 1; o <= 2; o++) {
				const Impl *icu_nk = find(ops[o], "ICU NFKC_CF"),
					   *icu_cf = find(ops[o], "ICU NFD+fold+NFD");
				for (const Impl &im : ops[o].impls) {
					const Impl *ref =
						im.label.find("NFKC_CF") != std::string::npos
							? icu_nk
						: im.label.find("CASEFOLD") != std::string::npos ||
								im.label == "ICU NFD+fold+NFD"
							? icu_cf
							: nullptr;
					if (ref && im.result != ref->result) {
						std::printf("bench-lib: %s %s: %s found %" PRIu64
							    " equal pairs, %s %" PRIu64 "\n",
							    ns.name.c_str(), ops[o].name.c_str(),
							    im.label.c_str(), im.result,
							    ref->label.c_str(), ref->result);
						count_mismatch++;
					}
				}
			}
		}
		for (const Row &r : rows) {
			Op &op = find_op(ops, r.op);
			const Impl *o = find(op, r.ours), *i = find(op, r.icu),
				   *u = find(op, r.u8p);
			double ro = rate(o, ns), ri = rate(i, ns), ru = rate(u, ns);
			double bytes = (double)(op.name == "compare" ? ns.pair_bytes
						: op.name == "differ" ? ns.diff_bytes
								      : ns.bytes) /
				       (double)ns.names.size();
			std::printf("%-10s %-8s %-12s %9s %8.1f %9s %8.1f %9s %8.1f ",
				    ns.name.c_str(), r.op, r.form,
				    fmt_rate(ro).c_str(), ro * bytes / 1e6,
				    fmt_rate(ri).c_str(), ri * bytes / 1e6,
				    fmt_rate(ru).c_str(), ru * bytes / 1e6);
			/* the ext4 profile drops ignorables at 12.1; the peers
			 * keep them: no ratio of different work */
			if (!std::strcmp(r.form, "ext4"))
				std::printf("%8s %8s\n", "-", "-");
			else
				std::printf("%8.2f %8.2f\n", ri > 0 ? ro / ri : 0,
					    ru > 0 ? ro / ru : 0);
			results.push_back({ns.name, r.op, r.form, ro, ri, ru});
		}
		{
			Op &f = find_op(ops, "fold");
			double on = rate(find(f, "libfold NFKC_CF"), ns),
			       oc = rate(find(f, "libfold CASEFOLD"), ns),
			       bn = rate(find(f, "utf8proc NFKC_CF buffer"), ns),
			       bc = rate(find(f, "utf8proc CASEFOLD buffer"), ns);
			char m[200];
			std::snprintf(m, sizeof m, "%-10s %11s %8.2f %11s %8.2f\n",
				      ns.name.c_str(), fmt_rate(bn).c_str(),
				      bn > 0 ? on / bn : 0, fmt_rate(bc).c_str(),
				      bc > 0 ? oc / bc : 0);
			buffer_table += m;
		}
		if (kernel)
			for (const KernelRow &kr : kernel_rows) {
				Op &op = find_op(ops, kr.op);
				const Impl *o = find(op, kr.ours),
					   *k = find(op, kr.kernel);
				double ro = rate(o, ns), rk = rate(k, ns);
				char m[200];
				std::snprintf(m, sizeof m,
					      "%-10s %-8s %11s %11s %8.2f\n",
					      ns.name.c_str(), kr.op,
					      fmt_rate(ro).c_str(),
					      fmt_rate(rk).c_str(),
					      rk > 0 ? ro / rk : 0);
				kernel_table += m;
				if (op.name == "compare" || op.name == "differ") {
					std::snprintf(m, sizeof m,
						      "  %s %s: equal pairs ext4 "
						      "libfold %" PRIu64
						      " kernel %" PRIu64 "\n",
						      ns.name.c_str(), kr.op,
						      o->result, k->result);
					mismatch += m;
					kernel_disagree += o->result != k->result;
				}
			}
		if (ns.name == "ascii") {
			ascii_plain = rate(find(ops[1], "tolower+memcmp"), ns);
			ascii_ours = rate(find(ops[1], "libfold CASEFOLD equal"), ns);
			std::printf("%-10s %-8s %-12s %9s  (tolower+memcmp loop; "
				    "libfold CASEFOLD equal is %.2fx, NFKC_CF "
				    "equal %.2fx of it)\n",
				    "ascii", "compare", "plain",
				    fmt_rate(ascii_plain).c_str(),
				    ascii_ours / ascii_plain,
				    rate(find(ops[1], "libfold NFKC_CF equal"), ns) /
					    ascii_plain);
		}
		std::fflush(stdout);
	}
	if (kernel)
		std::printf("\next4 profile against the Linux kernel's own "
			    "fs/unicode (utf8-12.1 nfdicf, built in userspace "
			    "with this build's flags): fold = utf8_casefold into "
			    "a buffer, compare/differ = utf8_strncasecmp, hash "
			    "= utf8_casefold + SipHash-1-3\n%-10s %-8s %11s "
			    "%11s %8s\n%s",
			    "set", "op", "libfold/s", "kernel/s", "xkernel",
			    kernel_table.c_str());
	else
		std::printf("\n(no comparison with the Linux kernel's fs/unicode: "
			    "its source was not fetched; make bench fetches it, "
			    "as suite lib-kernel does)\n");
	std::printf("\nfor reference, utf8proc's pipeline into a caller "
		    "buffer (utf8proc_decompose, utf8proc_normalize_utf32, "
		    "utf8proc_reencode: no sizing pass, no allocation; the "
		    "columns above time utf8proc_map, the API named as the "
		    "peer), fold:\n%-10s %11s %8s %11s %8s\n%s",
		    "set", "NFKC_CF/s", "xlibfold", "CASEFOLD/s", "xlibfold",
		    buffer_table.c_str());
	std::printf("\n%s", mismatch.c_str());
	std::printf("outputs compared untimed (keys of libfold, ICU, utf8proc "
		    "both ways; "
		    "fold_equal, fold_cmp, fold_hash against ICU's keys): %lu "
		    "disagreements; timed passes with other equal-pair counts "
		    "than ICU: %lu\n",
		    work_mismatch, count_mismatch);
	std::printf("heap allocations by libfold: fold %lu, compare %lu, differ "
		    "%lu, hash %lu (over %lu, %lu, %lu, %lu passes)\n",
		    our_allocs[0], our_allocs[1], our_allocs[2], our_allocs[3],
		    our_passes[0], our_passes[1], our_passes[2], our_passes[3]);
	{
		const Impl *u = find(ops[1], "utf8proc NFKC_CF");
		const Impl *i = find(ops[1], "ICU NFKC_CF");
		std::printf("for comparison, allocations per compared pair on the "
			    "last set: ICU %.2f, utf8proc %.2f\n",
			    i->passes ? (double)i->allocs / (double)i->passes /
						(double)per_set : 0,
			    u->passes ? (double)u->allocs / (double)u->passes /
						(double)per_set : 0);
	}
	std::printf("(sink %" PRIu64 ")\n", (uint64_t)vsink);
	if (!check)
		return 0;

	/* --check: loose, ratio-only assertions */
	auto ck = [&](bool ok, const std::string &what) {
		std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
		(ok ? pass_total : fail_total)++;
	};
	char m[256];
	ck(work_mismatch == 0 && count_mismatch == 0,
	   "every implementation computes the same keys and finds the same "
	   "equal pairs");
	for (int o = 0; o < 4; o++) {
		std::snprintf(m, sizeof m, "libfold %s: %lu heap allocations (want 0)",
			      ops[o].name.c_str(), our_allocs[o]);
		ck(our_allocs[o] == 0 && our_passes[o] > 0, m);
	}
	for (const Result &r : results) {
		if (r.set != "mixed" || r.form == "ext4" ||
		    r.form == "NFKC_CF/cmp")
			continue;
		double mi = 0, mu = 0;
		for (const Floor &f : floors)
			if (r.op == f.op && r.form == f.form) {
				mi = f.icu * scale;
				mu = f.u8p * scale;
			}
		std::snprintf(m, sizeof m,
			      "mixed %s %s: libfold/ICU %.2f (want >= %.2f)",
			      r.op.c_str(), r.form.c_str(), r.ours / r.icu, mi);
		ck(r.icu > 0 && r.ours / r.icu >= mi, m);
		std::snprintf(m, sizeof m,
			      "mixed %s %s: libfold/utf8proc %.2f (want >= %.2f)",
			      r.op.c_str(), r.form.c_str(), r.ours / r.u8p, mu);
		ck(r.u8p > 0 && r.ours / r.u8p >= mu, m);
	}
	if (kernel)
		ck(kernel_disagree == 0,
		   "libfold's ext4 profile and the kernel find the same equal "
		   "pairs");
	if (ascii_plain > 0) {
		std::snprintf(m, sizeof m,
			      "ascii compare: libfold CASEFOLD / tolower+memcmp "
			      "%.2f (want >= %.2f)",
			      ascii_ours / ascii_plain, min_ascii * scale);
		ck(ascii_ours / ascii_plain >= min_ascii * scale, m);
	}
	std::printf("%lu passed, %lu failed\n", pass_total, fail_total);
	return fail_total ? 1 : 0;
}
