// SPDX-License-Identifier: GPL-2.0
#include "smc_tool.h"

#include "options.h"

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
		"Show " + tech + " devices, link groups and statistics, and manage Enterprise IDs.\n"
		"\n"
		"Objects:\n"
		"  info        kernel and hardware capabilities\n"
		"  device      " + tech + " devices\n"
		"  linkgroup   " + tech + " link groups" + (d ? "" : " and their links") + "\n"
		"  stats       " + tech + " statistics\n"
		"  ueid        User Enterprise IDs\n";
	if (d)
		s += "  seid        the System Enterprise ID\n";
	s += "  help        this text\n"
		"\n"
		"Options:\n"
		"  -d, --details      more columns; -dd even more\n"
		"  -a, --absolute     statistics since the module was loaded, ignoring resets\n"
		"  -j, --json         JSON output\n"
		"  -p, --pretty       indented JSON (implies --json)\n"
		"  -t, --type TYPE    smcd or smcr, whatever name the program runs under\n"
		"  -v, --version      print the version and exit\n"
		"  -h, --help         print this help and exit\n"
		"\n"
		"Objects and commands may be abbreviated: '" + p + " d' is '" + p + " device'.\n"
		"'" + p + " OBJECT help' describes an object.\n";
	return s;
}

enum class Parse { go, done, bad };

// The global options before the object. Long options take one or two
// dashes and may be abbreviated; -ad, -da, -dd and the like combine.
Parse parse_globals(SmcContext &ctx, Args args, std::size_t &i, bool &tech_given, int &rc)
{
	static constexpr std::string_view names[] = {"absolute", "version", "details", "ddetails",
						      "help", "json", "pretty", "type"};
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
		auto set_flag = [&](char c) {
			switch (c) {
			case 'a': ctx.absolute = true; return true;
			case 'd': ctx.detail = std::min(ctx.detail + 1, 2); return true;
			case 'j': ctx.json = true; return true;
			case 'p': ctx.json = ctx.pretty = true; return true;
			default: return false;
			}
		};
		switch (w) {
		case 0: ctx.absolute = true; break;
		case 1:
			ctx.env.out << ctx.prog << " (smc-linux) " << ctx.env.version << '\n';
			rc = exit_ok;
			return Parse::done;
		case 2: ctx.detail = std::max(ctx.detail, 1); break;
		case 3: ctx.detail = 2; break;
		case 4:
			ctx.env.out << main_help(ctx);
			rc = exit_ok;
			return Parse::done;
		case 5: ctx.json = true; break;
		case 6: ctx.json = ctx.pretty = true; break;
		case 7: {
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
		if (has_value && w != 7) {
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
	env.out << main_help(ctx);
	return exit_ok;
}

} // namespace smc
