// SPDX-License-Identifier: GPL-2.0
#include "smc_rnics.h"

#include "options.h"

namespace smc {

namespace {

enum Opt { opt_json, opt_pretty, opt_rdma, opt_ism, opt_version, opt_help };

constexpr OptionSpec specs[] = {
	{'j', "json", false, opt_json},
	{'p', "pretty", false, opt_pretty},
	{'r', "rdma", false, opt_rdma},
	{'I', "ism", false, opt_ism},
	{'v', "version", false, opt_version},
	{'h', "help", false, opt_help},
};

const char help_text[] =
	"Usage: smc_rnics [OPTION]...\n"
	"List the RDMA devices (one line per port) and ISM devices of this machine,\n"
	"with their driver, state, interface, GID types and PNET ID.\n"
	"\n"
	"  -r, --rdma        RDMA devices only\n"
	"  -I, --ism         ISM devices only\n"
	"  -j, --json        JSON instead of a table\n"
	"  -p, --pretty      indented JSON (implies --json)\n"
	"  -v, --version     print the version and exit\n"
	"  -h, --help        print this help and exit\n"
	"\n"
	"RDMA devices come from sysfs; ISM devices and PNET IDs from the SMC module.\n"
	"A PNET ID with '*' was defined by the user (smc_pnet), not by the hardware.\n";

int usage_error(ToolEnv &env, const std::string &message)
{
	env.err << "smc_rnics: " << message << " (see smc_rnics --help)\n";
	return exit_usage;
}

} // namespace

int smc_rnics_main(const std::vector<std::string> &args, ToolEnv &env)
{
	auto parsed = parse_options(specs, std::span(args).subspan(args.empty() ? 0 : 1));
	if (!parsed)
		return usage_error(env, parsed.error().message);
	if (!parsed->operands.empty())
		return usage_error(env, "unexpected argument '" + parsed->operands[0] + "'");
	bool json = false, pretty = false, rdma_only = false, ism_only = false;
	for (const auto &o : parsed->options) {
		switch (o.id) {
		case opt_json: json = true; break;
		case opt_pretty: json = pretty = true; break;
		case opt_rdma: rdma_only = true; break;
		case opt_ism: ism_only = true; break;
		case opt_version:
			env.out << "smc_rnics (smc-linux) " << env.version << '\n';
			return exit_ok;
		case opt_help:
			env.out << help_text;
			return exit_ok;
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
