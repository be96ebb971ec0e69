// SPDX-License-Identifier: GPL-2.0
//
// ABI test of uapi/linux/smc.h and uapi/linux/smc_diag.h.
//
// SmcUapiOurs.*    the project's headers alone: post-6.1 additions carry
//                  upstream's numbers and layout, C and C++ agree, and the
//                  lists in smc_abi_list.h cover every SMC name the headers
//                  declare (so nothing escapes the comparison).
// SmcUapiSystem.*  the project's headers against the system's (Linux 6.1
//                  on Debian 12): every value, string, struct size,
//                  alignment, member offset/size/type; every system name
//                  must exist in ours; skipped with the reason when the
//                  system has no usable headers.
//
// This file includes neither header: it only sees the views the three
// table units export, and the lists (stringified names, expected numbers).

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "smc_abi_config.h"
#include "smc_abi_list.h"
#include "smc_abi_table.h"

namespace {

// ---- expectations taken from the lists -------------------------------------

struct BoundSpec {
	const char *name;
	long long in_6_1, grew_6_6, grew_6_8, grew_6_12;
};
#define SMC_T_BOUND(n, a, b, c, d) {#n, a, b, c, d},
const BoundSpec kBounds[] = {SMC_ABI_BOUNDS(SMC_T_BOUND)};

struct LaterIntSpec {
	const char *name;
	long long value;
	const char *since;
};
#define SMC_T_P66(n, v) {#n, v, "6.6"},
#define SMC_T_P68(n, v) {#n, v, "6.8"},
#define SMC_T_P612(n, v) {#n, v, "6.12"},
const LaterIntSpec kLaterInts[] = {
	SMC_ABI_INTS_V6_6(SMC_T_P66)
	SMC_ABI_INTS_V6_8(SMC_T_P68)
	SMC_ABI_INTS_V6_12(SMC_T_P612)
};

struct TypeSpec {
	const char *name;
	unsigned long grew_6_6, grew_6_8, grew_6_12;
};
#define SMC_T_TYPE(t, a, b, c) {#t, a, b, c},
const TypeSpec kTypes[] = {SMC_ABI_TYPES(SMC_T_TYPE)};

struct LaterFieldSpec {
	const char *type, *field;
	unsigned long offset, size;
	const char *kind, *since;
};
#define SMC_T_L66(t, f, o, s, k) {#t, #f, o, s, k, "6.6"},
#define SMC_T_L68(t, f, o, s, k) {#t, #f, o, s, k, "6.8"},
#define SMC_T_L612(t, f, o, s, k) {#t, #f, o, s, k, "6.12"},
const LaterFieldSpec kLaterFields[] = {
	SMC_ABI_FIELDS_V6_6(SMC_T_L66)
	SMC_ABI_FIELDS_V6_8(SMC_T_L68)
	SMC_ABI_FIELDS_V6_12(SMC_T_L612)
};

// Every name and struct member the lists mention.
std::set<std::string> ListedNames()
{
	std::set<std::string> s;
#define SMC_T_NAME1(n) s.insert(#n);
#define SMC_T_NAME_B(n, a, b, c, d) s.insert(#n);
#define SMC_T_NAME_P(n, v) s.insert(#n);
	SMC_ABI_INTS_V6_1(SMC_T_NAME1)
	SMC_ABI_BOUNDS(SMC_T_NAME_B)
	SMC_ABI_STRS(SMC_T_NAME1)
	SMC_ABI_INTS_V6_6(SMC_T_NAME_P)
	SMC_ABI_INTS_V6_8(SMC_T_NAME_P)
	SMC_ABI_INTS_V6_12(SMC_T_NAME_P)
	return s;
}

std::set<std::string> ListedTypes()
{
	std::set<std::string> s;
	for (const auto &t : kTypes)
		s.insert(t.name);
	return s;
}

std::set<std::string> ListedMembers()	// "tag.member"
{
	std::set<std::string> s;
#define SMC_T_MEMBER_F(t, f) s.insert(#t "." #f);
#define SMC_T_MEMBER_L(t, f, o, sz, k) s.insert(#t "." #f);
	SMC_ABI_FIELDS_V6_1(SMC_T_MEMBER_F)
	SMC_ABI_FIELDS_V6_6(SMC_T_MEMBER_L)
	SMC_ABI_FIELDS_V6_8(SMC_T_MEMBER_L)
	SMC_ABI_FIELDS_V6_12(SMC_T_MEMBER_L)
	return s;
}

bool HasGroup(const smc_abi_view &v, const std::string &since)
{
	if (since == "6.6")
		return v.has_6_6;
	if (since == "6.8")
		return v.has_6_8;
	if (since == "6.12")
		return v.has_6_12;
	return true;
}

// ---- lookups in a view --------------------------------------------------------

template <typename T>
std::map<std::string, const T *> ByName(const T *a, unsigned long n)
{
	std::map<std::string, const T *> m;
	for (unsigned long i = 0; i < n; i++)
		m[a[i].name] = &a[i];
	return m;
}

std::map<std::string, const smc_abi_field *>
FieldsByKey(const smc_abi_field *a, unsigned long n)
{
	std::map<std::string, const smc_abi_field *> m;
	for (unsigned long i = 0; i < n; i++)
		m[std::string(a[i].type) + "." + a[i].field] = &a[i];
	return m;
}

bool IsMacro(const smc_abi_int &i)
{
	return std::strcmp(i.expansion, i.name) != 0;
}

// ---- a small reader of C headers ------------------------------------------------

// What a header declares, as far as this test cares.
struct ParsedHeader {
	bool ok = false;
	std::string error;
	std::vector<std::string> names;		// SMC identifiers, first-use order
	std::set<std::string> macros;		// of those, the #defined ones
	std::map<std::string, std::vector<std::string>> structs; // tag -> members
};

bool IsSmcName(const std::string &id)
{
	static const std::regex re("^(__)?SMC[RD]?_[A-Za-z0-9_]*$");
	return std::regex_match(id, re);
}

struct Token {
	std::string text;
	bool ident;
	bool directive_start;	// the '#' that starts a preprocessor line
};

// Tokens outside comments and string/char literals; backslash-newlines
// joined first.
std::vector<Token> Tokenize(std::string src)
{
	for (size_t p; (p = src.find("\\\n")) != std::string::npos;)
		src.erase(p, 2);

	std::vector<Token> out;
	bool line_start = true;
	for (size_t i = 0; i < src.size();) {
		char c = src[i];
		if (c == '\n') {
			line_start = true;
			i++;
		} else if (std::isspace(static_cast<unsigned char>(c))) {
			i++;
		} else if (src.compare(i, 2, "/*") == 0) {
			size_t e = src.find("*/", i + 2);
			i = e == std::string::npos ? src.size() : e + 2;
		} else if (src.compare(i, 2, "//") == 0) {
			size_t e = src.find('\n', i);
			i = e == std::string::npos ? src.size() : e;
		} else if (c == '"' || c == '\'') {
			size_t j = i + 1;
			while (j < src.size() && src[j] != c)
				j += src[j] == '\\' ? 2 : 1;
			i = j + 1;
			line_start = false;
		} else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
			size_t j = i;
			while (j < src.size() &&
			       (std::isalnum(static_cast<unsigned char>(src[j])) ||
				src[j] == '_'))
				j++;
			out.push_back({src.substr(i, j - i), true, false});
			i = j;
			line_start = false;
		} else {
			out.push_back({std::string(1, c), false,
				       c == '#' && line_start});
			i++;
			line_start = false;
		}
	}
	return out;
}

// Member names of a struct body starting after its '{'; advances i past
// the closing '}'.  Anonymous unions/structs contribute their members.
std::vector<std::string> ParseMembers(const std::vector<Token> &t, size_t &i)
{
	std::vector<std::string> members;
	std::string last;	// last identifier outside [] in this declaration
	int depth = 1, brackets = 0;
	for (; i < t.size() && depth > 0; i++) {
		const std::string &x = t[i].text;
		if (x == "{") {
			depth++;
			last.clear();
		} else if (x == "}") {
			depth--;
			last.clear();
		} else if (x == "[") {
			brackets++;
		} else if (x == "]") {
			brackets--;
		} else if (x == ";") {
			if (!last.empty())
				members.push_back(last);
			last.clear();
		} else if (t[i].ident && brackets == 0) {
			last = x;
		}
	}
	return members;
}

ParsedHeader ParseHeader(const std::string &path)
{
	ParsedHeader h;
	std::ifstream in(path);
	if (!in) {
		h.error = "cannot read " + path;
		return h;
	}
	std::stringstream ss;
	ss << in.rdbuf();
	std::vector<Token> t = Tokenize(ss.str());

	std::set<std::string> seen;
	for (size_t i = 0; i < t.size(); i++) {
		if (t[i].directive_start && i + 2 < t.size() &&
		    t[i + 1].text == "define" && t[i + 2].ident &&
		    IsSmcName(t[i + 2].text))
			h.macros.insert(t[i + 2].text);
		if (t[i].ident && IsSmcName(t[i].text) &&
		    seen.insert(t[i].text).second)
			h.names.push_back(t[i].text);
		if (t[i].text == "struct" && i + 2 < t.size() &&
		    t[i + 1].ident && t[i + 2].text == "{") {
			std::string tag = t[i + 1].text;
			size_t j = i + 3;
			h.structs[tag] = ParseMembers(t, j);
			i = j - 1;
		}
	}
	h.ok = true;
	return h;
}

// Parse smc.h and smc_diag.h of one side into one result.
ParsedHeader ParsePair(const char *smc_h, const char *smc_diag_h)
{
	ParsedHeader a = ParseHeader(smc_h);
	if (!a.ok)
		return a;
	ParsedHeader b = ParseHeader(smc_diag_h);
	if (!b.ok)
		return b;
	std::set<std::string> seen(a.names.begin(), a.names.end());
	for (const auto &n : b.names)
		if (seen.insert(n).second)
			a.names.push_back(n);
	a.macros.insert(b.macros.begin(), b.macros.end());
	for (const auto &s : b.structs)
		a.structs[s.first] = s.second;
	return a;
}

// Every name, struct and member a header declares must be in the lists.
void ExpectListsCover(const ParsedHeader &h, const std::string &what)
{
	ASSERT_TRUE(h.ok) << h.error;
	ASSERT_FALSE(h.names.empty()) << what << ": no SMC names found";

	const std::set<std::string> names = ListedNames();
	for (const auto &n : h.names)
		EXPECT_TRUE(names.count(n))
			<< what << " declares " << n
			<< ", which no list in smc_abi_list.h mentions";

	const std::set<std::string> types = ListedTypes();
	const std::set<std::string> members = ListedMembers();
	for (const auto &s : h.structs) {
		EXPECT_TRUE(types.count(s.first))
			<< what << " defines struct " << s.first
			<< ", which SMC_ABI_TYPES does not list";
		for (const auto &m : s.second)
			EXPECT_TRUE(members.count(s.first + "." + m))
				<< what << " has member " << s.first << "." << m
				<< ", which no SMC_ABI_FIELDS_* list mentions";
	}
}

// ---- views ------------------------------------------------------------------------

const smc_abi_view &Ours() { return *smc_abi_view_ours(); }
const smc_abi_view &OursCxx() { return *smc_abi_view_ours_cxx(); }
const smc_abi_view &System() { return *smc_abi_view_system(); }

// Every view lists exactly the names of the lists, in list order (a
// table that stringified an expanded macro would show "1" instead).
void ExpectViewNamedLikeLists(const smc_abi_view &v)
{
	SCOPED_TRACE(v.side);
	std::vector<std::string> want, got;
#define SMC_T_WANT1(n) want.push_back(#n);
#define SMC_T_WANT_B(n, a, b, c, d) want.push_back(#n);
#define SMC_T_WANT_P(n, val) want.push_back(#n);
#define SMC_T_WANT_T(t, a, b, c) want.push_back(#t);
#define SMC_T_WANT_F(t, f) want.push_back(#t "." #f);
#define SMC_T_WANT_L(t, f, o, sz, k) want.push_back(#t "." #f);
	auto ints = [&](const smc_abi_int *a, unsigned long n) {
		got.clear();
		for (unsigned long i = 0; i < n; i++)
			got.push_back(a[i].name);
		EXPECT_EQ(got, want);
		want.clear();
	};
	SMC_ABI_INTS_V6_1(SMC_T_WANT1)
	ints(v.ints, v.n_ints);
	SMC_ABI_BOUNDS(SMC_T_WANT_B)
	ints(v.bounds, v.n_bounds);
	SMC_ABI_INTS_V6_6(SMC_T_WANT_P)
	SMC_ABI_INTS_V6_8(SMC_T_WANT_P)
	SMC_ABI_INTS_V6_12(SMC_T_WANT_P)
	ints(v.later_ints, v.n_later_ints);

	SMC_ABI_STRS(SMC_T_WANT1)
	got.clear();
	for (unsigned long i = 0; i < v.n_strs; i++)
		got.push_back(v.strs[i].name);
	EXPECT_EQ(got, want);
	want.clear();

	SMC_ABI_TYPES(SMC_T_WANT_T)
	got.clear();
	for (unsigned long i = 0; i < v.n_types; i++)
		got.push_back(v.types[i].name);
	EXPECT_EQ(got, want);
	want.clear();

	auto fields = [&](const smc_abi_field *a, unsigned long n) {
		got.clear();
		for (unsigned long i = 0; i < n; i++)
			got.push_back(std::string(a[i].type) + "." + a[i].field);
		EXPECT_EQ(got, want);
		want.clear();
	};
	SMC_ABI_FIELDS_V6_1(SMC_T_WANT_F)
	fields(v.fields, v.n_fields);
	SMC_ABI_FIELDS_V6_6(SMC_T_WANT_L)
	SMC_ABI_FIELDS_V6_8(SMC_T_WANT_L)
	SMC_ABI_FIELDS_V6_12(SMC_T_WANT_L)
	fields(v.later_fields, v.n_later_fields);
}

// =====================================================================================
// The project's headers on their own.
// =====================================================================================

TEST(SmcUapiOurs, TablesAreNamedLikeTheLists)
{
	ExpectViewNamedLikeLists(Ours());
	ExpectViewNamedLikeLists(OursCxx());
	if (System().available)
		ExpectViewNamedLikeLists(System());
}

TEST(SmcUapiOurs, LaterConstantsHaveUpstreamNumbers)
{
	const smc_abi_view &o = Ours();
	auto got = ByName(o.later_ints, o.n_later_ints);
	ASSERT_EQ(got.size(), std::size(kLaterInts));
	for (const auto &spec : kLaterInts) {
		SCOPED_TRACE(std::string(spec.name) + " (since " + spec.since + ")");
		ASSERT_TRUE(got.count(spec.name));
		const smc_abi_int &i = *got[spec.name];
		EXPECT_TRUE(i.present);
		EXPECT_EQ(i.value, spec.value);
		EXPECT_FALSE(IsMacro(i)) << "upstream has it as an enumerator";
	}
}

TEST(SmcUapiOurs, GrownEnumBoundsHaveUpstreamNumbers)
{
	const smc_abi_view &o = Ours();
	auto got = ByName(o.bounds, o.n_bounds);
	for (const auto &b : kBounds) {
		SCOPED_TRACE(b.name);
		ASSERT_TRUE(got.count(b.name));
		EXPECT_EQ(got[b.name]->value,
			  b.in_6_1 + b.grew_6_6 + b.grew_6_8 + b.grew_6_12);
	}
}

TEST(SmcUapiOurs, LaterMembersHaveUpstreamLayout)
{
	const smc_abi_view &o = Ours();
	auto got = FieldsByKey(o.later_fields, o.n_later_fields);
	ASSERT_EQ(got.size(), std::size(kLaterFields));
	for (const auto &spec : kLaterFields) {
		std::string key = std::string(spec.type) + "." + spec.field;
		SCOPED_TRACE(key + " (since " + spec.since + ")");
		ASSERT_TRUE(got.count(key));
		const smc_abi_field &f = *got[key];
		EXPECT_TRUE(f.present);
		EXPECT_EQ(f.offset, spec.offset);
		EXPECT_EQ(f.size, spec.size);
		EXPECT_STREQ(f.kind, spec.kind);
	}
}

// Every member inside its struct, no member of unknown type, and no more
// tail padding than the alignment explains.
TEST(SmcUapiOurs, StructsAreSelfConsistent)
{
	const smc_abi_view &o = Ours();
	auto types = ByName(o.types, o.n_types);
	std::map<std::string, unsigned long> end;
	auto visit = [&](const smc_abi_field &f) {
		SCOPED_TRACE(std::string(f.type) + "." + f.field);
		ASSERT_TRUE(types.count(f.type));
		EXPECT_LE(f.offset + f.size, types[f.type]->size);
		EXPECT_STRNE(f.kind, "?") << "member type not classified";
		end[f.type] = std::max(end[f.type], f.offset + f.size);
	};
	for (unsigned long i = 0; i < o.n_fields; i++)
		visit(o.fields[i]);
	for (unsigned long i = 0; i < o.n_later_fields; i++)
		visit(o.later_fields[i]);
	for (const auto &t : types) {
		SCOPED_TRACE(t.first);
		ASSERT_TRUE(end.count(t.first)) << "struct has no listed member";
		EXPECT_LT(t.second->size - end[t.first], t.second->align);
	}
}

TEST(SmcUapiOurs, CxxSeesTheSameAsC)
{
	const smc_abi_view &c = Ours(), &x = OursCxx();
	ASSERT_EQ(c.n_ints, x.n_ints);
	for (unsigned long i = 0; i < c.n_ints; i++) {
		EXPECT_STREQ(c.ints[i].name, x.ints[i].name);
		EXPECT_EQ(c.ints[i].value, x.ints[i].value) << c.ints[i].name;
	}
	ASSERT_EQ(c.n_bounds, x.n_bounds);
	for (unsigned long i = 0; i < c.n_bounds; i++)
		EXPECT_EQ(c.bounds[i].value, x.bounds[i].value)
			<< c.bounds[i].name;
	ASSERT_EQ(c.n_later_ints, x.n_later_ints);
	for (unsigned long i = 0; i < c.n_later_ints; i++)
		EXPECT_EQ(c.later_ints[i].value, x.later_ints[i].value)
			<< c.later_ints[i].name;
	ASSERT_EQ(c.n_strs, x.n_strs);
	for (unsigned long i = 0; i < c.n_strs; i++)
		EXPECT_STREQ(c.strs[i].value, x.strs[i].value)
			<< c.strs[i].name;
	ASSERT_EQ(c.n_types, x.n_types);
	for (unsigned long i = 0; i < c.n_types; i++) {
		EXPECT_EQ(c.types[i].size, x.types[i].size) << c.types[i].name;
		EXPECT_EQ(c.types[i].align, x.types[i].align)
			<< c.types[i].name;
	}
	auto same_fields = [](const smc_abi_field *a, const smc_abi_field *b,
			      unsigned long n) {
		for (unsigned long i = 0; i < n; i++) {
			SCOPED_TRACE(std::string(a[i].type) + "." + a[i].field);
			EXPECT_EQ(a[i].offset, b[i].offset);
			EXPECT_EQ(a[i].size, b[i].size);
			EXPECT_STREQ(a[i].kind, b[i].kind);
		}
	};
	ASSERT_EQ(c.n_fields, x.n_fields);
	same_fields(c.fields, x.fields, c.n_fields);
	ASSERT_EQ(c.n_later_fields, x.n_later_fields);
	same_fields(c.later_fields, x.later_fields, c.n_later_fields);
}

TEST(SmcUapiOurs, ListsCoverOurHeaders)
{
	ExpectListsCover(ParsePair(SMC_ABI_OUR_SMC_H, SMC_ABI_OUR_SMC_DIAG_H),
			 "uapi/linux");
}

// =====================================================================================
// The project's headers against the system's.
// =====================================================================================

class SmcUapiSystem : public ::testing::Test {
protected:
	void SetUp() override
	{
		if (!System().available)
			GTEST_SKIP() << "no system headers to compare with: "
				     << System().why;
	}
};

TEST_F(SmcUapiSystem, IntegerConstantsMatch)
{
	const smc_abi_view &o = Ours(), &s = System();
	auto ours = ByName(o.ints, o.n_ints);
	ASSERT_EQ(o.n_ints, s.n_ints);
	for (unsigned long i = 0; i < s.n_ints; i++) {
		const smc_abi_int &sys = s.ints[i];
		SCOPED_TRACE(sys.name);
		ASSERT_TRUE(ours.count(sys.name));
		const smc_abi_int &our = *ours[sys.name];
		EXPECT_EQ(our.value, sys.value);
		EXPECT_EQ(IsMacro(our), IsMacro(sys))
			<< "ours: " << our.expansion << ", system: "
			<< sys.expansion << " (#define vs enumerator)";
	}
}

TEST_F(SmcUapiSystem, StringConstantsMatch)
{
	const smc_abi_view &o = Ours(), &s = System();
	auto ours = ByName(o.strs, o.n_strs);
	for (unsigned long i = 0; i < s.n_strs; i++) {
		SCOPED_TRACE(s.strs[i].name);
		ASSERT_TRUE(ours.count(s.strs[i].name));
		EXPECT_STREQ(ours[s.strs[i].name]->value, s.strs[i].value);
	}
}

// A bound the system has must equal its 6.1 value plus the growth of the
// later groups the system's headers already carry.
TEST_F(SmcUapiSystem, GrownEnumBoundsMatchSystemRelease)
{
	const smc_abi_view &s = System();
	auto sys = ByName(s.bounds, s.n_bounds);
	for (const auto &b : kBounds) {
		SCOPED_TRACE(b.name);
		ASSERT_TRUE(sys.count(b.name));
		long long want = b.in_6_1 + (s.has_6_6 ? b.grew_6_6 : 0) +
				 (s.has_6_8 ? b.grew_6_8 : 0) +
				 (s.has_6_12 ? b.grew_6_12 : 0);
		EXPECT_EQ(sys[b.name]->value, want);
		EXPECT_FALSE(IsMacro(*sys[b.name]));
	}
}

// Post-6.1 names the system's headers already have must agree with ours.
TEST_F(SmcUapiSystem, LaterConstantsMatchWhereSystemHasThem)
{
	const smc_abi_view &o = Ours(), &s = System();
	auto ours = ByName(o.later_ints, o.n_later_ints);
	unsigned long compared = 0;
	for (unsigned long i = 0; i < s.n_later_ints; i++) {
		const smc_abi_int &sys = s.later_ints[i];
		SCOPED_TRACE(sys.name);
		EXPECT_EQ(bool(sys.present), HasGroup(s, sys.since));
		if (!sys.present)
			continue;
		ASSERT_TRUE(ours.count(sys.name));
		EXPECT_EQ(ours[sys.name]->value, sys.value);
		compared++;
	}
	RecordProperty("compared", static_cast<int>(compared));
}

TEST_F(SmcUapiSystem, StructSizesAndAlignmentsMatch)
{
	const smc_abi_view &o = Ours(), &s = System();
	auto ours = ByName(o.types, o.n_types);
	auto sys = ByName(s.types, s.n_types);
	for (const auto &t : kTypes) {
		SCOPED_TRACE(t.name);
		ASSERT_TRUE(ours.count(t.name));
		ASSERT_TRUE(sys.count(t.name));
		// what later releases appended and the system does not have yet
		unsigned long missing = (s.has_6_6 ? 0 : t.grew_6_6) +
					(s.has_6_8 ? 0 : t.grew_6_8) +
					(s.has_6_12 ? 0 : t.grew_6_12);
		EXPECT_EQ(ours[t.name]->size, sys[t.name]->size + missing);
		EXPECT_EQ(ours[t.name]->align, sys[t.name]->align);
	}
}

TEST_F(SmcUapiSystem, MemberOffsetsSizesAndTypesMatch)
{
	const smc_abi_view &o = Ours(), &s = System();
	auto ours = FieldsByKey(o.fields, o.n_fields);
	ASSERT_EQ(o.n_fields, s.n_fields);
	for (unsigned long i = 0; i < s.n_fields; i++) {
		const smc_abi_field &sys = s.fields[i];
		std::string key = std::string(sys.type) + "." + sys.field;
		SCOPED_TRACE(key);
		ASSERT_TRUE(ours.count(key));
		EXPECT_EQ(ours[key]->offset, sys.offset);
		EXPECT_EQ(ours[key]->size, sys.size);
		EXPECT_STREQ(ours[key]->kind, sys.kind);
	}
	auto ours_later = FieldsByKey(o.later_fields, o.n_later_fields);
	auto sys_types = ByName(s.types, s.n_types);
	for (unsigned long i = 0; i < s.n_later_fields; i++) {
		const smc_abi_field &sys = s.later_fields[i];
		std::string key = std::string(sys.type) + "." + sys.field;
		SCOPED_TRACE(key + " (since " + sys.since + ")");
		EXPECT_EQ(bool(sys.present), HasGroup(s, sys.since));
		ASSERT_TRUE(ours_later.count(key));
		const smc_abi_field &our = *ours_later[key];
		if (sys.present) {
			EXPECT_EQ(our.offset, sys.offset);
			EXPECT_EQ(our.size, sys.size);
			EXPECT_STREQ(our.kind, sys.kind);
		} else {
			// appended after everything the system's struct has
			EXPECT_GE(our.offset, sys_types[sys.type]->size);
		}
	}
}

TEST_F(SmcUapiSystem, ListsCoverSystemHeaders)
{
	ExpectListsCover(ParsePair(SMC_ABI_SYS_SMC_H, SMC_ABI_SYS_SMC_DIAG_H),
			 "system <linux/smc*.h>");
}

// Read both sides' text: every system name exists in ours (as a #define
// exactly when the system has a #define), every system struct exists with
// the system's members as a prefix of ours, in the same order.
TEST_F(SmcUapiSystem, EverySystemDeclarationIsInOurs)
{
	ParsedHeader sys = ParsePair(SMC_ABI_SYS_SMC_H, SMC_ABI_SYS_SMC_DIAG_H);
	ParsedHeader our = ParsePair(SMC_ABI_OUR_SMC_H, SMC_ABI_OUR_SMC_DIAG_H);
	ASSERT_TRUE(sys.ok) << sys.error;
	ASSERT_TRUE(our.ok) << our.error;

	std::set<std::string> our_names(our.names.begin(), our.names.end());
	for (const auto &n : sys.names) {
		EXPECT_TRUE(our_names.count(n)) << n << " is missing from ours";
		EXPECT_EQ(sys.macros.count(n), our.macros.count(n))
			<< n << ": #define in one header, not in the other";
	}
	for (const auto &s : sys.structs) {
		SCOPED_TRACE("struct " + s.first);
		ASSERT_TRUE(our.structs.count(s.first)) << "missing from ours";
		const auto &mine = our.structs[s.first];
		ASSERT_GE(mine.size(), s.second.size());
		EXPECT_TRUE(std::equal(s.second.begin(), s.second.end(),
				       mine.begin()))
			<< "members differ or are reordered";
	}
	RecordProperty("system_names", static_cast<int>(sys.names.size()));
	RecordProperty("our_names", static_cast<int>(our.names.size()));
}

} // namespace
