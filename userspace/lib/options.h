// SPDX-License-Identifier: GPL-2.0
//
// Command-line parsing shared by the tools.
//
// parse_options() handles getopt_long-style options: bundled short options
// (-al), short options with their argument attached or following (-Ieth0,
// -I eth0), long options with "=" or a following argument, unambiguous
// prefixes of long options (--list for --listening), "--" to end options,
// and operands anywhere.
//
// match_word() handles the iproute2-style words of smcd/smcr: any prefix of
// a word names it, the first listed word winning when several fit.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace smc {

struct OptionSpec {
	char short_name;	// 0 when there is none
	const char *long_name;	// nullptr when there is none
	bool takes_arg;
	int id;
};

struct ParsedOption {
	int id;
	std::string arg;
	std::string spelling;	// as given ("-a", "--all"), for messages
};

struct ParsedArgs {
	std::vector<ParsedOption> options;
	std::vector<std::string> operands;
};

// args excludes argv[0]. Errors have code EINVAL and a message such as
// "unknown option '-x'".
Result<ParsedArgs> parse_options(std::span<const OptionSpec> specs,
				 std::span<const std::string> args);

// The index in words of the word arg abbreviates, or -1. An exact match wins
// over a prefix match; among prefix matches the first listed word wins.
int match_word(std::string_view arg, std::span<const std::string_view> words);

} // namespace smc
