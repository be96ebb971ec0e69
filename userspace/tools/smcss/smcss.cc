// SPDX-License-Identifier: GPL-2.0
#include "smcss.h"

#include "tool_cli.h"

namespace smc {

namespace {

enum Opt { opt_all, opt_listening, opt_debug, opt_smcd, opt_smcr, opt_wide };

constexpr OptionSpec specs[] = {
	{'a', "all", false, opt_all},
	{'l', "listening", false, opt_listening},
	{'d', "debug", false, opt_debug},
	{'D', "smcd", false, opt_smcd},
	{'R', "smcr", false, opt_smcr},
	{'W', "wide", false, opt_wide},
};

constexpr ToolCli cli = {
	"smcss", specs, true,
	"Usage: smcss [OPTION]...\n"
	"List the AF_SMC sockets of this network namespace.\n",
	"  -a, --all         every socket: listening, opening, connected and closing\n"
	"  -l, --listening   listening sockets only\n"
	"  -d, --debug       add shutdown state, buffer sizes and cursors\n"
	"  -D, --smcd        SMC-D sockets only, with their SMC-D details\n"
	"  -R, --smcr        SMC-R sockets only, with their SMC-R details\n"
	"  -W, --wide        never shorten addresses\n",
	"Without options: the sockets that are connecting, connected or closing.\n",
	20,
};

int usage_error(ToolEnv &env, const std::string &message)
{
	return tool_usage_error(cli, env, message);
}

} // namespace

int smcss_main(const std::vector<std::string> &args, ToolEnv &env)
{
	auto cmd = parse_tool_args(cli, std::span(args).subspan(args.empty() ? 0 : 1), env);
	if (const int *rc = std::get_if<int>(&cmd))
		return *rc;
	const auto &tool = std::get<ToolArgs>(cmd);
	const ParsedArgs &parsed = tool.parsed;
	if (!parsed.operands.empty())
		return usage_error(env, "unexpected argument '" + parsed.operands[0] + "'");

	SmcssOptions opt;
	opt.json = tool.json;
	opt.pretty = tool.pretty;
	for (const auto &o : parsed.options) {
		switch (o.id) {
		case opt_all: opt.all = true; break;
		case opt_listening: opt.listening = true; break;
		case opt_debug: opt.debug = true; break;
		case opt_smcd: opt.smcd = true; break;
		case opt_smcr: opt.smcr = true; break;
		case opt_wide: opt.wide = true; break;
		}
	}
	if (opt.smcd && opt.smcr)
		return usage_error(env, "--smcd and --smcr exclude each other");
	if (opt.listening) {
		const char *other = opt.all ? "--all" : opt.debug ? "--debug" : opt.smcd ? "--smcd"
				    : opt.smcr ? "--smcr" : nullptr;
		if (other)
			return usage_error(env, std::string("--listening cannot be combined with ") + other);
	}

	DiagRequest req;
	req.conninfo = opt.debug;
	req.lgrinfo = opt.smcr;
	req.dmbinfo = opt.smcd;
	auto sockets = query_smc_sockets(env.netlink, req);
	if (!sockets) {
		env.err << "smcss: " << sockets.error().message << '\n';
		return exit_error;
	}
	std::vector<SmcSocket> shown;
	for (auto &s : *sockets)
		if (smcss_wanted(opt, s))
			shown.push_back(std::move(s));

	auto table = smcss_table(opt);
	if (opt.json)
		env.out << json::to_string(table.to_json(shown), opt.pretty);
	else
		table.print_text(env.out, shown);
	return exit_ok;
}

} // namespace smc
