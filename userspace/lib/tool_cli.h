// SPDX-License-Identifier: GPL-2.0
//
// The command line every getopt-style tool shares: its own options, and
// the common ones with one spelling and one text everywhere (-j/--json
// and -p/--pretty for the tools that print tables, -v/--version,
// -h/--help), the help page put together from the tool's parts, and the
// usage error "PROG: MESSAGE (see PROG --help)" with exit_usage.
#pragma once

#include <span>
#include <string>
#include <variant>
#include <vector>

#include "options.h"
#include "tool_env.h"

namespace smc {

struct ToolCli {
	const char *prog;			// "smcss", as messages name it
	std::span<const OptionSpec> options;	// the tool's own (ids below 1000)
	bool json;				// whether -j/--json and -p/--pretty apply
	const char *intro;			// "Usage: ..." and what the tool does
	const char *own_help;			// the tool's own option lines
	const char *outro;			// after the options; "" for none
	int column;				// where option texts start, as in own_help
};

struct ToolArgs {
	ParsedArgs parsed;	// the tool's own options and the operands
	bool json = false;
	bool pretty = false;
};

// Parses args (argv[0] excluded). A ToolArgs to go on with, or an exit
// status to return at once: exit_usage after a usage error on env.err,
// exit_ok after --version or --help on env.out.
std::variant<ToolArgs, int> parse_tool_args(const ToolCli &cli,
					    std::span<const std::string> args, ToolEnv &env);

// "PROG: MESSAGE (see PROG --help)" on env.err; returns exit_usage.
int tool_usage_error(const ToolCli &cli, ToolEnv &env, const std::string &message);

// The help page: intro, blank line, own_help and the common options, blank
// line, outro.
std::string tool_help(const ToolCli &cli);

// One help line of an option: "  -x, --name" padded to column, then text.
std::string tool_help_line(const char *option, const char *text, int column);

// The common options' help lines, texts at column (json: -j and -p too).
std::string tool_common_help(bool json, int column);

// What --version prints: "PROG (smc-linux) VERSION".
std::string tool_version(const char *prog, const ToolEnv &env);

} // namespace smc
