// SPDX-License-Identifier: GPL-2.0
#include "smc_tool.h"

#include "tool_cli.h"

namespace smc {

Result<SmcGenl *> SmcContext::genl()
{
	if (!genl_) {
		auto g = SmcGenl::open(env.netlink);
		if (!g)
			return g.error();
		genl_.emplace(std::move(*g));
	}
	return &*genl_;
}

int SmcContext::fail(const Error &e)
{
	env.err << prog << ": " << e.message << '\n';
	return exit_error;
}

int SmcContext::usage(std::string_view object, const std::string &message)
{
	env.err << prog << ": " << message << " (see '" << prog;
	if (!object.empty())
		env.err << ' ' << object;
	env.err << " help')\n";
	return exit_usage;
}

void SmcContext::print_json(const json::Value &v)
{
	env.out << json::to_string(v, pretty);
}

bool is_help_word(std::string_view arg)
{
	return is_prefix(arg, "help") || arg == "-h" || arg == "--help" || arg == "-help";
}

namespace {

std::string main_help(const SmcContext &ctx)
{
	const std::string &p = ctx.prog;
	bool d = ctx.tech == Tech::smcd;
	std::string tech = tech_name(ctx.tech);
	std::string s = "Usage: " + p + " [OPTION]... OBJECT [COMMAND] [ARGUMENT]...\n"
		"Show " + tech + " devices, link groups and statistics, manage Enterprise IDs\n"
		"and the handshake policy.\n"
		"\n"
		"Objects:\n"
		"  info        kernel and hardware capabilities\n"
		"  device      " + tech + " devices\n"
		"  linkgroup   " + tech + " link groups" + (d ? "" : " and their links") + "\n"
		"  stats       " + tech + " statistics\n"
		"  ueid        User Enterprise IDs\n";
	if (d)
		s += "  seid        the System Enterprise ID\n";
	s += "  policy      which connections may use SMC (this network namespace)\n";
	s += "  help        this text\n"
		"\n"
		"Options:\n"
		"  -d, --details      more columns; -dd even more\n"
		"  -a, --absolute     statistics since the module was loaded, ignoring resets\n"
		"  -t, --type TYPE    smcd or smcr, whatever name the program runs under\n";
	// The options every tool has, in the words of every tool (tool_cli.h).
	s += tool_common_help(true, 21);
	s += "\n"
		"Objects and commands may be abbreviated: '" + p + " d' is '" + p + " device'.\n"
		"'" + p + " OBJECT help' describes an object.\n";
	return s;
}

enum class Parse { go, done, bad };

// The global options before the object. Long options take one or two
// dashes and may be abbreviated; -ad, -da, -dd and the like combine.
Parse parse_globals(SmcContext &ctx, Args args, std::size_t &i, bool &tech_given, int &rc)
{
	// iproute2's words, not getopt_long's: one dash or two, any prefix
	// (the first listed word wins), so "-d" is --details.
	enum Global : int { g_absolute, g_version, g_details, g_ddetails, g_help, g_json, g_pretty,
			    g_type };
	static constexpr std::string_view names[] = {"absolute", "version", "details", "ddetails",
						      "help", "json", "pretty", "type"};
	static constexpr Global ids[] = {g_absolute, g_version, g_details, g_ddetails, g_help,
					 g_json, g_pretty, g_type};
	static_assert(std::size(names) == std::size(ids));
	while (i < args.size()) {
		const std::string &a = args[i];
		if (a == "--") {
			++i;
			break;
		}
		if (a.size() < 2 || a[0] != '-')
			break;
		std::string name = a.substr(a[1] == '-' ? 2 : 1);
		std::string value;
		bool has_value = false;
		if (auto eq = name.find('='); eq != std::string::npos) {
			value = name.substr(eq + 1);
			name.resize(eq);
			has_value = true;
		}
		int w = match_word(name, names);
		std::optional<Global> opt;
		if (w >= 0)
			opt = ids[static_cast<std::size_t>(w)];
		auto set_flag = [&](char c) {
			switch (c) {
			case 'a': ctx.absolute = true; return true;
			case 'd': ctx.detail = std::min(ctx.detail + 1, 2); return true;
			case 'j': ctx.json = true; return true;
			case 'p': ctx.json = ctx.pretty = true; return true;
			default: return false;
			}
		};
		switch (opt.value_or(Global(-1))) {
		case g_absolute: ctx.absolute = true; break;
		case g_version:
			ctx.env.out << tool_version(ctx.prog.c_str(), ctx.env);
			rc = exit_ok;
			return Parse::done;
		case g_details: ctx.detail = std::max(ctx.detail, 1); break;
		case g_ddetails: ctx.detail = 2; break;
		case g_help:
			ctx.env.out << main_help(ctx);
			rc = exit_ok;
			return Parse::done;
		case g_json: ctx.json = true; break;
		case g_pretty: ctx.json = ctx.pretty = true; break;
		case g_type: {
			if (!has_value) {
				if (i + 1 >= args.size()) {
					rc = ctx.usage("", "option '" + a + "' needs smcd or smcr");
					return Parse::bad;
				}
				value = args[++i];
			}
			if (value == "smcd" || value == "smc-d" || value == "d") {
				ctx.tech = Tech::smcd;
			} else if (value == "smcr" || value == "smc-r" || value == "r") {
				ctx.tech = Tech::smcr;
			} else {
				rc = ctx.usage("", "unknown type '" + value + "': use smcd or smcr");
				return Parse::bad;
			}
			ctx.prog = ctx.tech == Tech::smcd ? "smcd" : "smcr";
			tech_given = true;
			break;
		}
		default: {
			// a bundle of single letters: -ad, -da, -ddj ...
			bool ok = !has_value && a[1] != '-';
			for (std::size_t k = 0; ok && k < name.size(); ++k)
				ok = set_flag(name[k]);
			if (!ok) {
				rc = ctx.usage("", "unknown option '" + a + "'");
				return Parse::bad;
			}
		}
		}
		if (has_value && opt != g_type) {
			rc = ctx.usage("", "option '" + a + "' takes no value");
			return Parse::bad;
		}
		++i;
	}
	return Parse::go;
}

} // namespace

int smc_main(const std::vector<std::string> &all_args, ToolEnv &env)
{
	Args args(all_args);
	std::string name = args.empty() ? "" : program_name(args[0]);
	SmcContext ctx{env, name};
	bool tech_known = true;
	if (name.rfind("smcd", 0) == 0)
		ctx.tech = Tech::smcd, ctx.prog = "smcd";
	else if (name.rfind("smcr", 0) == 0)
		ctx.tech = Tech::smcr, ctx.prog = "smcr";
	else
		tech_known = false;
	if (ctx.prog.empty())
		ctx.prog = "smc";

	std::size_t i = args.empty() ? 0 : 1;
	int rc = exit_ok;
	bool tech_given = false;
	switch (parse_globals(ctx, args, i, tech_given, rc)) {
	case Parse::go: break;
	case Parse::done:
	case Parse::bad: return rc;
	}
	if (!tech_known && !tech_given)
		return ctx.usage("", "cannot tell SMC-D from SMC-R: run as smcd or smcr, or use --type");
	if (i >= args.size())
		return ctx.usage("", "no object given");

	std::vector<std::string_view> objects = {"device", "linkgroup", "info", "stats", "ueid"};
	if (ctx.tech == Tech::smcd)
		objects.push_back("seid");
	objects.push_back("policy");
	objects.push_back("help");
	const std::string &object = args[i];
	int which = match_word(object, objects);
	if (which < 0)
		return ctx.usage("", "unknown object '" + object + "'");
	Args rest = args.subspan(i + 1);
	std::string_view chosen = objects[static_cast<std::size_t>(which)];
	if (chosen == "device") return smc_device(ctx, rest);
	if (chosen == "linkgroup") return smc_linkgroup(ctx, rest);
	if (chosen == "info") return smc_info(ctx, rest);
	if (chosen == "stats") return smc_stats(ctx, rest);
	if (chosen == "ueid") return smc_ueid(ctx, rest);
	if (chosen == "seid") return smc_seid(ctx, rest);
	if (chosen == "policy") return smc_policy(ctx, rest);
	env.out << main_help(ctx);
	return exit_ok;
}

} // namespace smc
