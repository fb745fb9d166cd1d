/*
 * corpus.cpp - generator of the benchmark's name sets (corpus.h).  Names
 * are assembled from small word lists, numbers and extensions with a
 * fixed-seed PRNG; NFD forms and case variants come from ICU (generation
 * is not timed).
 */
#include "corpus.h"

#include <cstdio>
#include <cstdlib>

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/ucasemap.h>

namespace {

struct Rng {
	uint64_t s;
	uint32_t below(uint32_t n)
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		return (uint32_t)((s >> 16) % n);
	}
	template <size_t N> const char *pick(const char *const (&v)[N])
	{
		return v[below(N)];
	}
};

const char *const code_words[] = {
	"main", "util", "parser", "lexer", "config", "http", "server",
	"client", "index", "test", "helpers", "types", "model", "view",
	"controller", "router", "build", "release", "notes", "changelog",
	"license", "readme", "makefile", "cache", "buffer", "stream",
};
const char *const code_ext[] = {".c", ".h", ".cpp", ".hpp", ".py", ".rs",
				".go", ".java", ".js", ".ts", ".md", ".txt",
				".json", ".yaml", ".toml", ".o", ""};
const char *const doc_words[] = {"Report", "Invoice", "Budget", "Minutes",
				 "Draft", "Final", "Summary", "Contract",
				 "Agenda", "Slides", "Backup", "Copy"};
const char *const doc_ext[] = {".docx", ".xlsx", ".pdf", ".pptx", ".odt",
			       ".txt", ".zip", ".tar.gz"};
const char *const media_ext[] = {".jpg", ".png", ".mp3", ".mp4", ".mkv",
				 ".flac", ".heic", ".mov"};

const char *const latin_words[] = {
	/* French */
	"café", "résumé", "élève", "garçon", "déjà", "forêt", "Noël", "naïve",
	"crème brûlée", "façade", "été", "hôpital", "Château", "Éric", "à_faire",
	/* German */
	"Größe", "Übersicht", "Straße", "Mädchen", "Bücher", "Käse", "Fußball",
	"Grüße", "Änderungen", "Prüfung", "Öffnungszeiten", "München",
	/* Vietnamese */
	"Tiếng Việt", "Hà Nội", "phở", "người", "Nguyễn", "đường", "Hồ Chí Minh",
	"tài liệu", "hình ảnh", "Đà Nẵng", "bản sao", "những",
	/* others */
	"São Paulo", "Zürich", "Kraków", "Łódź", "Ærøskøbing", "Señor", "año",
};
const char *const greek_words[] = {
	"Φωτογραφία", "Αθήνα", "Έγγραφο", "Σημειώσεις", "Ταξίδι", "καλοκαίρι",
	"Ελλάδα", "μουσική", "Θεσσαλονίκη", "ΑΡΧΕΊΑ", "ἀρχεῖον", "Ὀδυσσεύς",
	"Ἑλλάς", "ᾠδή", "ψυχή", "ΣΟΦΊΑ",
};
const char *const cyrillic_words[] = {
	"Документ", "Отчёт", "Фотографии", "Москва", "Привет", "Ёлка",
	"Україна", "Київ", "Щука", "Съёмка", "Договор", "Презентация",
	"Беларусь", "Србија", "Йошкар-Ола", "ЗАМЕТКИ",
};
const char *const cjk_words[] = {
	"報告書", "写真", "東京", "会議資料", "北京", "上海", "中文文件",
	"プロジェクト", "ファイル", "データ", "ダウンロード", "音楽", "ガイド",
	"ﾃﾞｰﾀ", "２０２３年", "議事録", "見積書", "설명서",
};
const char *const hangul_words[] = {
	"사진", "서울", "문서", "회의록", "여행", "부산", "음악", "한국어",
	"보고서", "다운로드", "프로젝트", "졸업식", "가족", "제주도",
};
const char *const emoji_words[] = {
	"🎉 Party", "❤️ notes", "❤ notes", "👨‍👩‍👧 family", "🇫🇷 trip",
	"👍🏽 ok", "☺️ smile", "🔥fire", "📁 Docs", "🏳️‍🌈 pride", "🐱 cat",
	"👩🏻‍💻 work", "✈️ travel", "🌍 world", "⭐ fav", "📷 camera",
};

std::string ascii_name(Rng &r)
{
	char b[128];
	const char *w1 = r.pick(code_words), *w2 = r.pick(code_words);

	switch (r.below(6)) {
	case 0:
		std::snprintf(b, sizeof b, "%s%s%s", r.below(3) ? "" : "src/",
			      w1, r.pick(code_ext));
		break;
	case 1: /* CamelCase */
		std::snprintf(b, sizeof b, "%c%s%c%s%s", w1[0] - 32, w1 + 1,
			      w2[0] - 32, w2 + 1, r.pick(code_ext));
		break;
	case 2:
		std::snprintf(b, sizeof b, "IMG_%04u.JPG", r.below(10000));
		break;
	case 3:
		std::snprintf(b, sizeof b, "DSC%05u.%s", r.below(100000),
			      r.below(2) ? "NEF" : "jpg");
		break;
	case 4:
		std::snprintf(b, sizeof b, "%s %s %u%s%s", r.pick(doc_words),
			      r.pick(doc_words), 2000 + r.below(25),
			      r.below(4) ? "" : " (2)", r.pick(doc_ext));
		break;
	default:
		std::snprintf(b, sizeof b,
			      "Screenshot 2023-%02u-%02u at %02u.%02u.%02u.png",
			      1 + r.below(12), 1 + r.below(28), r.below(24),
			      r.below(60), r.below(60));
		break;
	}
	return b;
}

template <size_t N>
std::string words_name(Rng &r, const char *const (&words)[N])
{
	std::string s = r.pick(words);
	const char *seps[] = {"_", " ", "-", ""};

	if (r.below(2)) {
		s += seps[r.below(4)];
		s += r.pick(words);
	}
	if (r.below(2))
		s += "_" + std::to_string(1990 + r.below(40));
	s += r.below(2) ? r.pick(doc_ext) : r.pick(media_ext);
	return s;
}

class Icu {
public:
	Icu()
	{
		UErrorCode e = U_ZERO_ERROR;
		nfc = icu::Normalizer2::getNFCInstance(e);
		nfd = icu::Normalizer2::getNFDInstance(e);
		csm = ucasemap_open("", 0, &e);
		if (U_FAILURE(e)) {
			std::fprintf(stderr, "corpus: ICU: %s\n", u_errorName(e));
			std::exit(2);
		}
	}
	~Icu() { ucasemap_close(csm); }
	std::string norm(const icu::Normalizer2 *n, const std::string &s)
	{
		std::string out;
		icu::StringByteSink<std::string> sink(&out);
		UErrorCode e = U_ZERO_ERROR;
		n->normalizeUTF8(0, s, sink, nullptr, e);
		return out;
	}
	std::string casemap(bool up, const std::string &s)
	{
		std::string out(s.size() * 3 + 8, '\0');
		UErrorCode e = U_ZERO_ERROR;
		int32_t n = (up ? ucasemap_utf8ToUpper : ucasemap_utf8ToLower)(
			csm, &out[0], (int32_t)out.size(), s.data(),
			(int32_t)s.size(), &e);
		out.resize(U_SUCCESS(e) ? (size_t)n : 0);
		return out;
	}
	const icu::Normalizer2 *nfc, *nfd;
	UCaseMap *csm;
};

/* Another spelling: case changed and/or the other normalization form. */
std::string other(Icu &icu, Rng &r, const std::string &s)
{
	std::string t;

	switch (r.below(5)) {
	case 0: t = icu.casemap(true, s); break;
	case 1: t = icu.casemap(false, s); break;
	case 2: /* flip NFC <-> NFD */
		t = icu.norm(icu.nfd, s);
		if (t == s)
			t = icu.norm(icu.nfc, s);
		break;
	case 3: t = icu.norm(icu.nfd, icu.casemap(true, s)); break;
	default: /* toggle the case of some ASCII letters */
		t = s;
		for (char &c : t)
			if (((c | 32) >= 'a' && (c | 32) <= 'z') && r.below(2))
				c ^= 32;
		break;
	}
	return t;
}

} // namespace

std::vector<NameSet> make_corpus(size_t per_set, uint64_t seed)
{
	static const char *const set_names[] = {
		"ascii", "latin-nfc", "latin-nfd", "greek", "cyrillic",
		"cjk",	 "hangul",    "emoji",	   "mixed"};
	const size_t nsets = sizeof set_names / sizeof *set_names;
	std::vector<NameSet> sets(nsets);
	Icu icu;
	Rng r{seed ? seed : 1};

	for (size_t k = 0; k < nsets; k++) {
		NameSet &ns = sets[k];

		ns.name = set_names[k];
		for (size_t i = 0; i < per_set; i++) {
			size_t kind = k == nsets - 1 ? r.below(nsets - 1) : k;
			std::string s;

			switch (kind) {
			case 0: s = ascii_name(r); break;
			case 1: s = icu.norm(icu.nfc, words_name(r, latin_words)); break;
			case 2: s = icu.norm(icu.nfd, words_name(r, latin_words)); break;
			case 3: s = words_name(r, greek_words); break;
			case 4: s = words_name(r, cyrillic_words); break;
			case 5: s = words_name(r, cjk_words); break;
			case 6: s = words_name(r, hangul_words); break;
			default: s = words_name(r, emoji_words); break;
			}
			ns.others.push_back(other(icu, r, s));
			ns.bytes += s.size();
			ns.pair_bytes += s.size() + ns.others.back().size();
			ns.names.push_back(std::move(s));
		}
		/* the next name's other spelling: usually a different name,
		 * often sharing a prefix (same generator) */
		for (size_t i = 0; i < per_set; i++) {
			ns.unrelated.push_back(ns.others[(i + 1) % per_set]);
			ns.diff_bytes += ns.names[i].size() +
					 ns.unrelated.back().size();
		}
	}
	return sets;
}
