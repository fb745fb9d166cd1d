/*
 * randname.c - random well-formed names for differential tests (see
 * randname.h).  xorshift64*, so every run with the same seed produces the
 * same strings on every machine.
 */
#include "randname.h"

static const char *const kind_names[RN_NKINDS] = {
	"ascii", "latin", "hangul", "greek", "cjk", "emoji", "tricky",
	"random", "mixed",
};

void rn_seed(struct rn *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9E3779B97F4A7C15ull;
}

static uint64_t next(struct rn *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

uint32_t rn_below(struct rn *r, uint32_t n)
{
	return (uint32_t)((next(r) >> 32) % n);
}

const char *rn_kind_name(int kind)
{
	return kind >= 0 && kind < RN_NKINDS ? kind_names[kind] : "?";
}

static uint32_t pick(struct rn *r, const uint32_t *v, size_t n)
{
	return v[rn_below(r, (uint32_t)n)];
}
#define PICK(r, arr) pick(r, arr, sizeof arr / sizeof *arr)

static uint32_t range(struct rn *r, uint32_t lo, uint32_t hi)
{
	return lo + rn_below(r, hi - lo + 1);
}

/* Combining marks of many classes (230 above, 220 below, 202 attached,
 * 1 overlay, 216, 240 ypogegrammeni, Hebrew/Arabic fixed classes, 7 nukta,
 * 9 virama) so canonical ordering has work to do. */
static const uint32_t marks[] = {
	0x0300, 0x0301, 0x0302, 0x0303, 0x0304, 0x0306, 0x0307, 0x0308,
	0x030A, 0x030B, 0x030C, 0x0313, 0x0314, 0x031B, 0x0323, 0x0324,
	0x0325, 0x0327, 0x0328, 0x032D, 0x0330, 0x0331, 0x0334, 0x0338,
	0x0342, 0x0345, 0x0316, 0x05B0, 0x05B4, 0x05BC, 0x064B, 0x0650,
	0x0651, 0x093C, 0x094D, 0x0E48, 0x1DCE, 0x20D0, 0x302A, 0x3099,
	0x309A, 0x0F71, 0x0F72, 0x0F74, 0x0F80,
};

static size_t latin(struct rn *r, uint32_t *o, size_t max)
{
	size_t n = 0;

	while (n < max) {
		uint32_t base;

		switch (rn_below(r, 5)) {
		case 0: base = range(r, 'A', 'Z'); break;
		case 1: base = range(r, 'a', 'z'); break;
		case 2: base = range(r, 0xC0, 0x17F); break;
		case 3: base = range(r, 0x1E00, 0x1EFF); break;
		default: base = range(r, 0x180, 0x24F); break;
		}
		if (base == 0xD7 || base == 0xF7)
			base = 'e';
		o[n++] = base;
		for (uint32_t k = rn_below(r, 4); k && n < max; k--)
			o[n++] = PICK(r, marks);
		if (rn_below(r, 3) == 0)
			break;
	}
	return n;
}

static size_t hangul(struct rn *r, uint32_t *o, size_t max)
{
	size_t n = 0;

	while (n < max) {
		switch (rn_below(r, 4)) {
		case 0: /* precomposed syllable */
			o[n++] = range(r, 0xAC00, 0xD7A3);
			break;
		case 1: /* L V (T): composes */
			o[n++] = range(r, 0x1100, 0x1112);
			if (n < max)
				o[n++] = range(r, 0x1161, 0x1175);
			if (n < max && rn_below(r, 2))
				o[n++] = range(r, 0x11A8, 0x11C2);
			break;
		case 2: /* LV syllable + T: composes to LVT */
			o[n++] = 0xAC00 + 28 * rn_below(r, 399);
			if (n < max)
				o[n++] = range(r, 0x11A7, 0x11C3);
			break;
		default: /* old jamo, compat jamo, halfwidth */
			o[n++] = rn_below(r, 2) ? range(r, 0x1113, 0x11FF)
						: range(r, 0x3131, 0x318E);
			break;
		}
		if (rn_below(r, 3) == 0)
			break;
	}
	return n;
}

static size_t greek(struct rn *r, uint32_t *o, size_t max)
{
	static const uint32_t gm[] = {0x0301, 0x0300, 0x0308, 0x0313,
				      0x0314, 0x0342, 0x0345, 0x0345, 0x0304};
	size_t n = 0;

	while (n < max) {
		uint32_t c;

		do
			c = rn_below(r, 2) ? range(r, 0x0370, 0x03FF)
					   : range(r, 0x1F00, 0x1FFE);
		while (c == 0x0378 || c == 0x0379 || (c >= 0x0380 && c <= 0x0383) ||
		       c == 0x038B || c == 0x038D || c == 0x03A2);
		o[n++] = c;
		for (uint32_t k = rn_below(r, 3); k && n < max; k--)
			o[n++] = PICK(r, gm);
		if (rn_below(r, 4) == 0)
			break;
	}
	return n;
}

static size_t cjk(struct rn *r, uint32_t *o, size_t max)
{
	size_t n = 0;

	while (n < max) {
		switch (rn_below(r, 6)) {
		case 0: case 1: o[n++] = range(r, 0x4E00, 0x9FFF); break;
		case 2: o[n++] = range(r, 0xF900, 0xFAD9); break;
		case 3: /* kana + voicing marks */
			o[n++] = range(r, 0x3041, 0x30FF);
			if (n < max && rn_below(r, 2))
				o[n++] = 0x3099 + rn_below(r, 2);
			break;
		case 4: o[n++] = range(r, 0xFF61, 0xFF9F); break;
		default: o[n++] = range(r, 0x3300, 0x33FF); break;
		}
		if (rn_below(r, 4) == 0)
			break;
	}
	return n;
}

static size_t emoji(struct rn *r, uint32_t *o, size_t max)
{
	static const uint32_t hearts[] = {0x2764, 0x2665, 0x263A, 0x2603,
					  0x26A1, 0x2708, 0x00A9, 0x00AE};
	size_t n = 0;

	while (n < max) {
		switch (rn_below(r, 6)) {
		case 0: /* ZWJ family */
			o[n++] = range(r, 0x1F466, 0x1F469);
			if (n + 1 < max) {
				o[n++] = 0x200D;
				o[n++] = range(r, 0x1F466, 0x1F469);
			}
			break;
		case 1: /* variation selectors */
			o[n++] = PICK(r, hearts);
			if (n < max)
				o[n++] = 0xFE0E + rn_below(r, 2);
			break;
		case 2: /* skin tone */
			o[n++] = range(r, 0x1F44A, 0x1F450);
			if (n < max)
				o[n++] = range(r, 0x1F3FB, 0x1F3FF);
			break;
		case 3: /* flags, tags */
			o[n++] = range(r, 0x1F1E6, 0x1F1FF);
			if (n < max)
				o[n++] = range(r, 0x1F1E6, 0x1F1FF);
			if (n < max && rn_below(r, 3) == 0)
				o[n++] = range(r, 0xE0020, 0xE007F);
			break;
		case 4: o[n++] = range(r, 0x1F300, 0x1FAFF); break;
		default: o[n++] = PICK(r, hearts); break;
		}
		if (rn_below(r, 3) == 0)
			break;
	}
	return n;
}

/* Things normalizers get wrong: composition exclusions, singletons,
 * non-starter decompositions, compatibility-only characters, casing
 * oddities, ignorables. */
static const uint32_t tricky_cps[] = {
	0x0344, 0x0340, 0x0341, 0x0343, 0x0374, 0x037E, 0x0387, 0x0958,
	0x095F, 0x09DC, 0x0A33, 0x0B5C, 0x0F43, 0x0F73, 0x0F75, 0x0F77,
	0x0F79, 0x0F81, 0x1D15E, 0x1D160, 0x1D164, 0x1D1BB, 0x1D1C0, 0x2ADC,
	0xFB1D, 0xFB1F, 0xFB2A, 0xFB4E, 0x212A, 0x212B, 0x2126, 0x1E9E,
	0x00DF, 0x0130, 0x0131, 0x0149, 0x01F0, 0x0390, 0x03B0, 0x1E96,
	0x1FB3, 0x1FBC, 0x1FF3, 0x1F80, 0x1F88, 0x0345, 0x00C5, 0x00E5,
	0x01C4, 0x01C5, 0x01C6, 0xFB00, 0xFB03, 0xFB05, 0xFB06, 0xFDFA,
	0x00BC, 0x2460, 0x3392, 0xFF21, 0xFF41, 0x00AD, 0x200B, 0x200C,
	0x200D, 0x2060, 0xFEFF, 0x034F, 0x180B, 0x3164, 0xFFA0, 0x115F,
	0x1160, 0x00A0, 0x2000, 0x1E0A, 0x1E0C, 0x0307, 0x0323, 0x0301,
	0x0316, 0x1B06, 0x1B05, 0x1B35, 0x0CCA, 0x0CC6, 0x0CC2, 0x0CD5,
	0x0DDA, 0x0DCA, 0x0DD9, 0x11099, 0x110BA, 0x1109A, 0x13F8, 0xAB70,
	0x10C83, 0x104B5, 0xA7AE, 0x1C90, 0x10D0, 0x0587, 0xFB13, 0x1F50,
	0x1F52, 0x1FE4, 0xA7C7, 0x1E921, 0x16E40, 0x10400, 0x118A0, 0x1E900,
};

static size_t tricky(struct rn *r, uint32_t *o, size_t max)
{
	size_t n = 0;

	while (n < max) {
		o[n++] = rn_below(r, 4) ? PICK(r, tricky_cps)
					: range(r, 'a', 'z');
		if (rn_below(r, 5) == 0)
			break;
	}
	return n;
}

static uint32_t random_cp(struct rn *r)
{
	uint32_t c;

	do {
		switch (rn_below(r, 8)) {
		case 0: c = range(r, 1, 0x10FFFF); break;
		case 1: c = range(r, 0x10000, 0x1FFFF); break;
		default: c = range(r, 1, 0xFFFF); break;
		}
	} while (c >= 0xD800 && c <= 0xDFFF);
	return c;
}

static size_t randomcps(struct rn *r, uint32_t *o, size_t max)
{
	size_t n = 0;

	while (n < max) {
		o[n++] = random_cp(r);
		if (rn_below(r, 4) == 0)
			break;
	}
	return n;
}

static size_t one(struct rn *r, int kind, uint32_t *o, size_t max)
{
	switch (kind) {
	case RN_ASCII: {
		size_t n = 0;
		while (n < max) {
			o[n++] = range(r, 0x20, 0x7E);
			if (rn_below(r, 10) == 0)
				break;
		}
		return n;
	}
	case RN_LATIN: return latin(r, o, max);
	case RN_HANGUL: return hangul(r, o, max);
	case RN_GREEK: return greek(r, o, max);
	case RN_CJK: return cjk(r, o, max);
	case RN_EMOJI: return emoji(r, o, max);
	case RN_TRICKY: return tricky(r, o, max);
	default: return randomcps(r, o, max);
	}
}

size_t rn_cps(struct rn *r, int kind, uint32_t *cps, size_t maxcp)
{
	size_t n = 0;

	if (maxcp == 0)
		return 0;
	if (kind < 0 || kind >= RN_NKINDS)
		kind = (int)rn_below(r, RN_NKINDS);
	if (kind != RN_MIXED)
		return one(r, kind, cps, maxcp);
	do
		n += one(r, (int)rn_below(r, RN_MIXED), cps + n, maxcp - n);
	while (n < maxcp && rn_below(r, 3));
	return n;
}
