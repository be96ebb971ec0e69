// SPDX-License-Identifier: GPL-2.0
#include "smc_chk.h"

#include <cerrno>
#include <climits>

#include <net/if.h>

#include "tool_cli.h"

namespace smc {

namespace {

enum Opt { opt_server, opt_connect, opt_port, opt_ipv6, opt_iface, opt_debug, opt_timeout,
	   opt_no_rdma, opt_rdma_always, opt_reject, opt_version, opt_help };

constexpr OptionSpec specs[] = {
	{'S', "server", false, opt_server},
	{'C', "connect", true, opt_connect},
	{'p', "port", true, opt_port},
	{'6', "ipv6", false, opt_ipv6},
	{'i', "interface", true, opt_iface},
	{'d', "debug", false, opt_debug},
	{'t', "timeout", true, opt_timeout},
	{0, "no-rdma", false, opt_no_rdma},
	{0, "rdma-always", false, opt_rdma_always},
	{0, "reject", false, opt_reject},
	{'v', "version", false, opt_version},
	{'h', "help", false, opt_help},
};

// -v and -h are in specs too: parse_chk_options() reports them as flags,
// which smc_chk_run() answers with the shared texts.
constexpr ToolCli cli = {
	"smc_chk", specs, false,
	"Usage: smc_chk -S [-p PORT] [-6] [-d] [--no-rdma] [--reject]\n"
	"       smc_chk -C HOST [-p PORT] [-6] [-t SECONDS] [-d] [--no-rdma|--rdma-always]\n"
	"       smc_chk -i IFACE\n"
	"Check whether connections to HOST use SMC-D, SMC-R or fall back to TCP, and why.\n",
	"  -S, --server          run the test server (TCP and RDMA CM on PORT)\n"
	"  -C, --connect HOST    connect to the test server on HOST and report\n"
	"  -p, --port PORT       port of the test server (default 37373)\n"
	"  -6, --ipv6            use IPv6\n"
	"  -i, --interface IFACE show the PNET ID of IFACE and the devices SMC pairs with it\n"
	"  -t, --timeout SECONDS time each step may take (default 5)\n"
	"  -d, --debug           say more\n"
	"      --no-rdma         no RDMA path check (client), no RDMA CM listener (server)\n"
	"      --rdma-always     check the RDMA path even when SMC-R was used\n"
	"      --reject          the server rejects RDMA connections (to test clients)\n",
	"When the connection does not use SMC-R, the client also checks the RDMA path\n"
	"to HOST with the RDMA CM and says which step fails and what that means.\n"
	"Exit status: 0 SMC-D or SMC-R, 3 TCP, 1 the check failed, 2 usage error.\n",
	24,
};

Error usage(std::string m) { return make_error(EINVAL, std::move(m)); }

std::optional<long> number(const std::string &s)
{
	if (s.empty() || s.size() > 9)
		return std::nullopt;
	long v = 0;
	for (char c : s) {
		if (c < '0' || c > '9')
			return std::nullopt;
		v = v * 10 + (c - '0');
	}
	return v;
}

int gather_iface(const ChkOptions &opt, ToolEnv &env)
{
	IfaceFacts f;
	f.name = opt.iface;
	f.index = if_nametoindex(opt.iface.c_str());
	SmcView smc = query_smc_view(env.netlink, f.notes);
	f.pnet_table = smc.pnet_table;
	f.devices = rnic_rows(scan_rdma_devices(env.sysfs_root), smc);
	print_iface_report(env.out, f);
	return f.index ? exit_ok : exit_error;
}

} // namespace

Result<ChkOptions> parse_chk_options(const std::vector<std::string> &args)
{
	auto parsed = parse_options(specs, std::span(args).subspan(args.empty() ? 0 : 1));
	if (!parsed)
		return parsed.error();
	if (!parsed->operands.empty())
		return usage("unexpected argument '" + parsed->operands[0] + "'");
	ChkOptions o;
	bool have_port = false;
	for (const auto &p : parsed->options) {
		switch (p.id) {
		case opt_server: o.server = true; break;
		case opt_connect:
			if (p.arg.empty())
				return usage("-C needs a host name or address");
			o.connect = p.arg;
			break;
		case opt_port: {
			auto n = number(p.arg);
			if (!n || *n < 1 || *n > 65535)
				return usage("invalid port '" + p.arg + "' (1 to 65535)");
			o.port = static_cast<unsigned>(*n);
			have_port = true;
			break;
		}
		case opt_ipv6: o.ipv6 = true; break;
		case opt_iface:
			if (p.arg.empty() || p.arg.size() >= IF_NAMESIZE)
				return usage("invalid interface name '" + p.arg + "'");
			o.iface = p.arg;
			break;
		case opt_debug: o.debug = true; break;
		case opt_timeout: {
			auto n = number(p.arg);
			if (!n || *n < 1 || *n > 600)
				return usage("invalid timeout '" + p.arg + "' (1 to 600 seconds)");
			o.timeout_s = static_cast<int>(*n);
			break;
		}
		case opt_no_rdma: o.rdma = false; break;
		case opt_rdma_always: o.rdma_always = true; break;
		case opt_reject: o.reject = true; break;
		case opt_version: o.version = true; break;
		case opt_help: o.help = true; break;
		}
	}
	if (o.help || o.version)
		return o;
	if (o.server && !o.connect.empty())
		return usage("-S and -C exclude each other");
	if (o.server && !o.iface.empty())
		return usage("-i cannot be combined with -S");
	if (!o.server && o.connect.empty() && o.iface.empty())
		return usage("say -S, -C HOST or -i IFACE");
	if (o.reject && !o.server)
		return usage("--reject is an option of the server (-S)");
	if (!o.server && o.connect.empty() && (have_port || o.ipv6))
		return usage("-p and -6 need -S or -C");
	if (o.reject && !o.rdma)
		return usage("--reject and --no-rdma exclude each other");
	if (o.rdma_always && !o.rdma)
		return usage("--rdma-always and --no-rdma exclude each other");
	if (o.rdma_always && o.connect.empty())
		return usage("--rdma-always is an option of the client (-C)");
	return o;
}

int smc_chk_run(const std::vector<std::string> &args, ToolEnv &env, RdmaCm &cm)
{
	auto o = parse_chk_options(args);
	if (!o) {
		return tool_usage_error(cli, env, o.error().message);
	}
	if (o->help) {
		env.out << tool_help(cli);
		return exit_ok;
	}
	if (o->version) {
		env.out << tool_version(cli.prog, env);
		return exit_ok;
	}
	int rc = exit_ok;
	if (!o->iface.empty()) {
		rc = gather_iface(*o, env);
		if (o->connect.empty())
			return rc;
		env.out << '\n';
	}
	if (o->server)
		return chk_server(*o, env, cm);
	int crc = chk_client(*o, env, cm);
	return rc == exit_ok ? crc : rc;
}

} // namespace smc
