// SPDX-License-Identifier: GPL-2.0
#include "smc_pnet.h"

#include <rdma/ib_user_verbs.h>

#include "tool_cli.h"

namespace smc {

namespace {

enum Opt { opt_add, opt_delete, opt_show, opt_flush, opt_interface, opt_ibdevice, opt_ibport };

// Indexed by Opt.
constexpr OptionSpec specs[] = {
	{'a', "add", false, opt_add},
	{'d', "delete", false, opt_delete},
	{'s', "show", false, opt_show},
	{'f', "flush", false, opt_flush},
	{'I', "interface", true, opt_interface},
	{'D', "ibdevice", true, opt_ibdevice},
	{'P', "ibport", true, opt_ibport},
};

constexpr ToolCli cli = {
	"smc_pnet", specs, true,
	"Usage: smc_pnet [OPTION]... [PNETID]\n"
	"Show or change the table that assigns network interfaces and RDMA or ISM\n"
	"devices to physical networks (PNET IDs).\n",
	"  -s, --show [PNETID]     show the whole table or one PNET ID (the default)\n"
	"  -a, --add PNETID        add an entry: needs -I and/or -D\n"
	"  -d, --delete PNETID     delete every entry of a PNET ID\n"
	"  -f, --flush             delete the whole table\n"
	"  -I, --interface NAME    network interface of the entry to add\n"
	"  -D, --ibdevice NAME     RDMA or ISM device of the entry to add\n"
	"  -P, --ibport PORT       port of that device, 1 or 2 (default 1)\n",
	"PNET IDs are 1 to 16 letters and digits; they are stored in upper case.\n",
	26,
};

constexpr std::size_t ifname_max = 15;			// IFNAMSIZ - 1
constexpr std::size_t ibname_max = IB_DEVICE_NAME_MAX - 1;

int usage_error(ToolEnv &env, const std::string &message)
{
	return tool_usage_error(cli, env, message);
}

int fail(ToolEnv &env, const Error &e)
{
	env.err << "smc_pnet: " << e.message << '\n';
	return exit_error;
}

std::optional<Cell> or_na(const std::string &s)
{
	if (s.empty())
		return Cell{"n/a", json::Value()};
	return text_cell(s);
}

} // namespace

Table<PnetEntry> pnet_table()
{
	using Col = Column<PnetEntry>;
	return Table<PnetEntry>({
		Col{"PNET-ID", "pnetid", 0, Align::left, 1,
		    [](const PnetEntry &e) { return std::optional<Cell>(text_cell(e.pnetid)); }},
		Col{"Interface", "interface", 0, Align::left, 1,
		    [](const PnetEntry &e) { return or_na(e.netdev); }},
		Col{"Device", "ibdevice", 0, Align::left, 1,
		    [](const PnetEntry &e) { return or_na(e.ibdev); }},
		Col{"Port", "ibport", 0, Align::left, 1, [](const PnetEntry &e) -> std::optional<Cell> {
			if (e.ibdev.empty())
				return Cell{"n/a", json::Value()};
			return Cell{std::to_string(e.ibport), e.ibport};
		}},
	});
}

int smc_pnet_main(const std::vector<std::string> &args, ToolEnv &env)
{
	auto cmd = parse_tool_args(cli, std::span(args).subspan(args.empty() ? 0 : 1), env);
	if (const int *rc = std::get_if<int>(&cmd))
		return *rc;
	const auto &tool = std::get<ToolArgs>(cmd);
	const ParsedArgs &parsed = tool.parsed;

	int command = -1;
	std::string command_spelling;
	PnetEntry entry;
	std::string port_arg, interface_spelling, device_spelling;
	bool json = tool.json, pretty = tool.pretty;
	for (const auto &o : parsed.options) {
		switch (o.id) {
		case opt_add:
		case opt_delete:
		case opt_show:
		case opt_flush:
			if (command >= 0 && command != o.id)
				return usage_error(env, command_spelling + " and --" +
							specs[o.id].long_name + " exclude each other");
			command = o.id;
			command_spelling = std::string("--") + specs[o.id].long_name;
			break;
		case opt_interface: entry.netdev = o.arg; interface_spelling = o.spelling; break;
		case opt_ibdevice: entry.ibdev = o.arg; device_spelling = o.spelling; break;
		case opt_ibport: port_arg = o.arg; break;
		}
	}
	const auto &operands = parsed.operands;
	if (operands.size() > 1)
		return usage_error(env, "too many arguments ('" + operands[1] + "')");
	if (command < 0) {
		if (!operands.empty())
			return usage_error(env, "a PNET ID needs --add, --delete or --show");
		command = opt_show;
	}
	bool adding = command == opt_add;
	if (!adding && (!entry.netdev.empty() || !entry.ibdev.empty() || !port_arg.empty()))
		return usage_error(env, "--interface, --ibdevice and --ibport only go with --add");

	std::string pnetid;
	if (!operands.empty()) {
		if (command == opt_flush)
			return usage_error(env, "--flush takes no PNET ID");
		auto id = normalize_pnetid(operands[0]);
		if (!id)
			return usage_error(env, id.error().message);
		pnetid = *id;
	} else if (adding || command == opt_delete) {
		return usage_error(env, command_spelling + " needs a PNET ID");
	}

	if (adding) {
		if (entry.netdev.empty() && entry.ibdev.empty())
			return usage_error(env, "--add needs --interface and/or --ibdevice");
		if (entry.netdev.size() > ifname_max)
			return usage_error(env, "interface name '" + entry.netdev + "' is longer than " +
						std::to_string(ifname_max) + " characters");
		if (entry.ibdev.size() > ibname_max)
			return usage_error(env, "device name '" + entry.ibdev + "' is longer than " +
						std::to_string(ibname_max) + " characters");
		entry.ibport = 1;
		if (!port_arg.empty()) {
			if (entry.ibdev.empty())
				return usage_error(env, "--ibport needs --ibdevice");
			if (port_arg != "1" && port_arg != "2")
				return usage_error(env, "invalid port '" + port_arg + "': use 1 or 2");
			entry.ibport = port_arg == "1" ? 1 : 2;
		}
		entry.pnetid = pnetid;
	}

	auto table = PnetTable::open(env.netlink);
	if (!table)
		return fail(env, table.error());

	switch (command) {
	case opt_add:
		if (auto r = table->add(entry); !r)
			return fail(env, r.error());
		return exit_ok;
	case opt_delete:
		if (auto r = table->remove(pnetid); !r)
			return fail(env, r.error());
		return exit_ok;
	case opt_flush:
		if (auto r = table->flush(); !r)
			return fail(env, r.error());
		return exit_ok;
	default:
		break;
	}
	auto entries = pnetid.empty() ? table->list() : table->get(pnetid);
	if (!entries)
		return fail(env, entries.error());
	auto t = pnet_table();
	if (json)
		env.out << json::to_string(t.to_json(*entries), pretty);
	else
		t.print_text(env.out, *entries, false);
	return exit_ok;
}

} // namespace smc
