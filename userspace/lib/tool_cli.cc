// SPDX-License-Identifier: GPL-2.0
#include "tool_cli.h"

namespace smc {

namespace {

// Far above any tool's own ids, which may index the tool's own table.
enum Common : int { common_json = 1000, common_pretty, common_version, common_help };

constexpr OptionSpec json_specs[] = {
	{'j', "json", false, common_json},
	{'p', "pretty", false, common_pretty},
};
constexpr OptionSpec always_specs[] = {
	{'v', "version", false, common_version},
	{'h', "help", false, common_help},
};

} // namespace

std::string tool_help_line(const char *option, const char *text, int column)
{
	std::string s = "  ";
	s += option;
	if (s.size() + 1 > static_cast<std::size_t>(column))
		s += ' ';
	else
		s.resize(static_cast<std::size_t>(column), ' ');
	return s + text + "\n";
}

std::string tool_common_help(bool json, int column)
{
	std::string s;

	if (json) {
		s += tool_help_line("-j, --json", "JSON instead of text", column);
		s += tool_help_line("-p, --pretty", "indented JSON (implies --json)", column);
	}
	s += tool_help_line("-v, --version", "print the version and exit", column);
	s += tool_help_line("-h, --help", "print this help and exit", column);
	return s;
}

std::string tool_help(const ToolCli &cli)
{
	std::string s = cli.intro;
	s += "\n";
	s += cli.own_help;
	s += tool_common_help(cli.json, cli.column);
	if (*cli.outro) {
		s += "\n";
		s += cli.outro;
	}
	return s;
}

std::string tool_version(const char *prog, const ToolEnv &env)
{
	return std::string(prog) + " (smc-linux) " + env.version + "\n";
}

int tool_usage_error(const ToolCli &cli, ToolEnv &env, const std::string &message)
{
	env.err << cli.prog << ": " << message << " (see " << cli.prog << " --help)\n";
	return exit_usage;
}

std::variant<ToolArgs, int> parse_tool_args(const ToolCli &cli,
					    std::span<const std::string> args, ToolEnv &env)
{
	std::vector<OptionSpec> specs(cli.options.begin(), cli.options.end());
	if (cli.json)
		specs.insert(specs.end(), std::begin(json_specs), std::end(json_specs));
	specs.insert(specs.end(), std::begin(always_specs), std::end(always_specs));
	auto parsed = parse_options(specs, args);
	if (!parsed)
		return tool_usage_error(cli, env, parsed.error().message);

	ToolArgs out;
	for (auto &o : parsed->options) {
		switch (o.id) {
		case common_json: out.json = true; break;
		case common_pretty: out.json = out.pretty = true; break;
		case common_version:
			env.out << tool_version(cli.prog, env);
			return exit_ok;
		case common_help:
			env.out << tool_help(cli);
			return exit_ok;
		default: out.parsed.options.push_back(std::move(o)); break;
		}
	}
	out.parsed.operands = std::move(parsed->operands);
	return out;
}

} // namespace smc
