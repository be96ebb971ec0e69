// SPDX-License-Identifier: GPL-2.0
//
// JSON, text helpers, option parsing.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "decline_codes.h"
#include "smc_decline.h"
#include "json.h"
#include "nl_record.h"
#include "options.h"
#include "table.h"
#include "text.h"
#include "tool_cli.h"

namespace smc {
namespace {

TEST(Json, CompactAndPretty)
{
	json::Value v = json::Value::object();
	v.set("a", 1).set("b", json::Value::array()).set("c", true).set("d", json::Value());
	json::Value arr = json::Value::array();
	arr.push("x").push(-2).push(std::uint64_t{18446744073709551615ULL});
	v.set("e", std::move(arr)).set("f", json::Value::object());
	EXPECT_EQ(json::to_string(v, false),
		  "{\"a\":1,\"b\":[],\"c\":true,\"d\":null,\"e\":[\"x\",-2,18446744073709551615],\"f\":{}}\n");
	EXPECT_EQ(json::to_string(v, true),
		  "{\n  \"a\": 1,\n  \"b\": [],\n  \"c\": true,\n  \"d\": null,\n  \"e\": [\n    \"x\",\n"
		  "    -2,\n    18446744073709551615\n  ],\n  \"f\": {}\n}\n");
}

TEST(Json, EscapesAndKeepsDocumentValid)
{
	std::string s = "q\"b\\n\nt\tc\x01 \xc3\xa4 bad\xff end";
	EXPECT_EQ(json::to_string(json::Value(s), false),
		  "\"q\\\"b\\\\n\\nt\\tc\\u0001 \xc3\xa4 bad\\ufffd end\"\n");
	EXPECT_EQ(json::to_string(json::Value(1.5), false), "1.5\n");
}

TEST(Text, Helpers)
{
	EXPECT_EQ(hex(0xab, 4), "00ab");
	EXPECT_EQ(hex0x(0x3030000, 8), "0x03030000");
	EXPECT_EQ(pad("ab", 4, Align::left), "ab  ");
	EXPECT_EQ(pad("ab", 4, Align::right), "  ab");
	EXPECT_EQ(pad("abcdef", 4, Align::right), "abcdef");
	EXPECT_EQ(rstrip("a b  \t"), "a b");
	EXPECT_EQ(trim("  vm0   "), "vm0");
	EXPECT_EQ(trim("   "), "");
	EXPECT_TRUE(is_prefix("dev", "device"));
	EXPECT_FALSE(is_prefix("", "device"));
	EXPECT_FALSE(is_prefix("devices", "device"));
}

TEST(Text, AbbreviateFitsSixCharacters)
{
	EXPECT_EQ(abbreviate(0), "0");
	EXPECT_EQ(abbreviate(999), "999");
	EXPECT_EQ(abbreviate(1000), "1.000K");
	EXPECT_EQ(abbreviate(1234), "1.234K");
	EXPECT_EQ(abbreviate(12345), "12.35K");
	EXPECT_EQ(abbreviate(123456), "123.5K");
	EXPECT_EQ(abbreviate(999499), "999.5K");
	EXPECT_EQ(abbreviate(999600), "1.000M");
	EXPECT_EQ(abbreviate(9999600), "10.00M");
	EXPECT_EQ(abbreviate(5000000000ULL), "5.000G");
	EXPECT_EQ(abbreviate(18446744073709551615ULL), "18.45E");
	for (std::uint64_t n = 1; n < 18446744073709551615ULL / 7; n = n * 7 + 3)
		EXPECT_LE(abbreviate(n).size(), 6u) << n;
}

TEST(DeclineCodes, NamesAndLabels)
{
	EXPECT_STREQ(decline_code_name(0x03030000), "NO_SMC_DEVICE");
	EXPECT_EQ(decline_code_name(0x12345678), nullptr);
	EXPECT_EQ(decline_code_label(0x12345678), "0x12345678");
	EXPECT_EQ(decline_code_label(0x05000000), "PEER_DECLINED");
}

// The tools name exactly the codes Linux 6.1 defines, as kernel/wire's
// table marks them: a code added on one side only fails here.
TEST(DeclineCodes, TheWireTablesLinuxCodes)
{
	std::size_t n = 0;
	const smc_clc_decline_info *wire = smc_clc_decline_table(&n);
	std::set<std::uint32_t> linux61, named;

	for (std::size_t i = 0; i < n; i++)
		if (wire[i].linux61)
			linux61.insert(wire[i].code);
	for (const auto &d : decline_codes()) {
		EXPECT_TRUE(named.insert(d.code).second) << hex0x(d.code, 8) << " twice";
		EXPECT_NE(d.name, nullptr);
		EXPECT_NE(d.text, nullptr);
	}
	EXPECT_EQ(named, linux61);
	EXPECT_GT(named.size(), 30u);
}

// The block every getopt-style tool shares (tool_cli.h): one spelling and
// text of -j/-p/-v/-h, the tool's own options passed through untouched.
constexpr OptionSpec cli_specs[] = {
	{'x', "extra", true, 0},
};
constexpr ToolCli test_cli = {"smctest", cli_specs, true, "Usage: smctest\n",
			      "  -x, --extra X   one of ours\n", "The end.\n", 18};

struct CliRun {
	std::ostringstream out, err;
	nl::ReplayFactory f{nl::Recording{}};
	ToolEnv env{out, err, f, [](std::uint32_t) { return std::string(); }, "/tmp", 0, "9.9"};
	std::variant<ToolArgs, int> run(std::initializer_list<const char *> args)
	{
		std::vector<std::string> v(args.begin(), args.end());
		return parse_tool_args(test_cli, v, env);
	}
};

TEST(ToolCli, CommonOptionsAndOwnOnes)
{
	CliRun r;
	auto got = r.run({"-p", "--extra=1", "op"});
	ASSERT_TRUE(std::holds_alternative<ToolArgs>(got));
	const auto &a = std::get<ToolArgs>(got);
	EXPECT_TRUE(a.json);
	EXPECT_TRUE(a.pretty);
	ASSERT_EQ(a.parsed.options.size(), 1u);	// -p is not the tool's
	EXPECT_EQ(a.parsed.options[0].id, 0);
	EXPECT_EQ(a.parsed.options[0].arg, "1");
	EXPECT_EQ(a.parsed.operands, std::vector<std::string>{"op"});
	EXPECT_EQ(r.out.str() + r.err.str(), "");
}

TEST(ToolCli, VersionHelpAndUsageErrors)
{
	CliRun v, h, bad;
	EXPECT_EQ(std::get<int>(v.run({"-j", "--version"})), exit_ok);
	EXPECT_EQ(v.out.str(), "smctest (smc-linux) 9.9\n");
	EXPECT_EQ(std::get<int>(h.run({"-h"})), exit_ok);
	EXPECT_EQ(h.out.str(), "Usage: smctest\n\n"
			       "  -x, --extra X   one of ours\n"
			       "  -j, --json      JSON instead of text\n"
			       "  -p, --pretty    indented JSON (implies --json)\n"
			       "  -v, --version   print the version and exit\n"
			       "  -h, --help      print this help and exit\n"
			       "\nThe end.\n");
	EXPECT_EQ(std::get<int>(bad.run({"--nope"})), exit_usage);
	EXPECT_EQ(bad.err.str(), "smctest: unknown option '--nope' (see smctest --help)\n");
	EXPECT_EQ(bad.out.str(), "");
}

constexpr OptionSpec specs[] = {
	{'a', "all", false, 1},
	{'l', "listening", false, 2},
	{'I', "interface", true, 3},
	{0, "interval", true, 4},
};

std::vector<std::string> words(std::initializer_list<const char *> l) { return {l.begin(), l.end()}; }

TEST(Options, ShortLongBundledAndOperands)
{
	auto args = words({"-al", "x", "--all", "-Ieth0", "-I", "eth1", "--interface=eth2", "--interface",
			   "eth3", "--list", "--", "-a"});
	auto p = parse_options(specs, args);
	ASSERT_TRUE(p) << p.error().message;
	std::vector<int> ids;
	std::vector<std::string> vals;
	for (const auto &o : p->options) {
		ids.push_back(o.id);
		vals.push_back(o.arg);
	}
	EXPECT_EQ(ids, (std::vector<int>{1, 2, 1, 3, 3, 3, 3, 2}));
	EXPECT_EQ(vals[3], "eth0");
	EXPECT_EQ(vals[4], "eth1");
	EXPECT_EQ(vals[5], "eth2");
	EXPECT_EQ(vals[6], "eth3");
	EXPECT_EQ(p->operands, words({"x", "-a"}));
}

TEST(Options, Errors)
{
	auto msg = [](std::initializer_list<const char *> l) {
		auto args = words(l);
		auto p = parse_options(specs, args);
		return p ? std::string("ok") : p.error().message;
	};
	EXPECT_EQ(msg({"-x"}), "unknown option '-x'");
	EXPECT_EQ(msg({"-ax"}), "unknown option '-x'");
	EXPECT_EQ(msg({"--bogus"}), "unknown option '--bogus'");
	EXPECT_EQ(msg({"-I"}), "option '-I' needs an argument");
	EXPECT_EQ(msg({"--interface"}), "option '--interface' needs an argument");
	EXPECT_EQ(msg({"--all=1"}), "option '--all' takes no argument");
	EXPECT_EQ(msg({"--inte", "x"}), "ambiguous option '--inte' (--interface, --interval)");
	EXPECT_EQ(msg({"-"}), "ok");
}

TEST(Options, MatchWord)
{
	static constexpr std::string_view objects[] = {"device", "linkgroup", "info", "stats", "ueid", "seid"};
	EXPECT_EQ(match_word("d", objects), 0);
	EXPECT_EQ(match_word("link", objects), 1);
	EXPECT_EQ(match_word("s", objects), 3);
	EXPECT_EQ(match_word("se", objects), 5);
	EXPECT_EQ(match_word("seid", objects), 5);
	EXPECT_EQ(match_word("x", objects), -1);
	EXPECT_EQ(match_word("", objects), -1);
	EXPECT_EQ(match_word("devices", objects), -1);
}

struct Row {
	std::string name;
	int n;
	bool stop;
};

TEST(Table, TextAndJsonFromOneDefinition)
{
	Table<Row> t({
		Column<Row>{"Name", "name", 6, Align::left, 1, [](const Row &r) { return std::optional<Cell>(text_cell(r.name)); }},
		Column<Row>{"N", "n", 3, Align::right, 2, [](const Row &r) -> std::optional<Cell> {
			if (r.stop)
				return std::nullopt;
			return Cell{std::to_string(r.n), r.n};
		}},
		Column<Row>{"Tail", "tail", 0, Align::left, 1, [](const Row &r) -> std::optional<Cell> {
			if (r.n < 0)
				return Cell{"-", json::Value()};
			return text_cell("t");
		}},
		Column<Row>{"", "hidden", 0, Align::left, 0, [](const Row &r) {
			return std::optional<Cell>(Cell{"", r.n * 2});
		}, Show::json_only},
	});
	std::vector<Row> rows = {{"a", 1, false}, {"longname", -1, false}, {"c", 3, true}};
	std::ostringstream out;
	t.print_text(out, rows);
	EXPECT_EQ(out.str(), "Name   N    Tail\n"
			     "a        1  t\n"
			     "longname  -1  -\n"
			     "c\n");
	EXPECT_EQ(json::to_string(t.to_json(rows), false),
		  "[{\"name\":\"a\",\"n\":1,\"tail\":\"t\",\"hidden\":2},"
		  "{\"name\":\"longname\",\"n\":-1,\"hidden\":-2},"
		  "{\"name\":\"c\",\"tail\":\"t\",\"hidden\":6}]\n");
	std::ostringstream empty;
	t.print_text(empty, {});
	EXPECT_EQ(empty.str(), "Name   N    Tail\n");
	EXPECT_EQ(json::to_string(t.to_json({}), false), "[]\n");
}

} // namespace
} // namespace smc
