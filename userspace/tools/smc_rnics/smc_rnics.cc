// SPDX-License-Identifier: GPL-2.0
#include "smc_rnics.h"

#include "tool_cli.h"

namespace smc {

namespace {

enum Opt { opt_rdma, opt_ism };

constexpr OptionSpec specs[] = {
	{'r', "rdma", false, opt_rdma},
	{'I', "ism", false, opt_ism},
};

constexpr ToolCli cli = {
	"smc_rnics", specs, true,
	"Usage: smc_rnics [OPTION]...\n"
	"List the RDMA devices (one line per port) and ISM devices of this machine,\n"
	"with their driver, state, interface, GID types and PNET ID.\n",
	"  -r, --rdma        RDMA devices only\n"
	"  -I, --ism         ISM devices only\n",
	"RDMA devices come from sysfs; ISM devices and PNET IDs from the SMC module.\n"
	"A PNET ID with '*' was defined by the user (smc_pnet), not by the hardware.\n",
	20,
};

int usage_error(ToolEnv &env, const std::string &message)
{
	return tool_usage_error(cli, env, message);
}

} // namespace

int smc_rnics_main(const std::vector<std::string> &args, ToolEnv &env)
{
	auto cmd = parse_tool_args(cli, std::span(args).subspan(args.empty() ? 0 : 1), env);
	if (const int *rc = std::get_if<int>(&cmd))
		return *rc;
	const auto &tool = std::get<ToolArgs>(cmd);
	if (!tool.parsed.operands.empty())
		return usage_error(env, "unexpected argument '" + tool.parsed.operands[0] + "'");
	bool json = tool.json, pretty = tool.pretty, rdma_only = false, ism_only = false;
	for (const auto &o : tool.parsed.options) {
		switch (o.id) {
		case opt_rdma: rdma_only = true; break;
		case opt_ism: ism_only = true; break;
		}
	}
	if (rdma_only && ism_only)
		return usage_error(env, "--rdma and --ism exclude each other");

	std::vector<std::string> notes;
	SmcView smc = query_smc_view(env.netlink, notes);
	std::vector<RnicRow> rows;
	for (auto &r : rnic_rows(scan_rdma_devices(env.sysfs_root), smc)) {
		bool ism = r.type == "ISM";
		if ((rdma_only && ism) || (ism_only && !ism))
			continue;
		rows.push_back(std::move(r));
	}
	// Missing module parts do not make the listing fail: the RDMA devices
	// are still there. Say what is unknown, on stderr.
	for (const auto &n : notes)
		env.err << "smc_rnics: note: " << n << '\n';
	auto table = rnics_table();
	if (json)
		env.out << json::to_string(table.to_json(rows), pretty);
	else
		table.print_text(env.out, rows);
	return exit_ok;
}

} // namespace smc
