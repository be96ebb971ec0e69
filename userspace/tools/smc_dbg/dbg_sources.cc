// SPDX-License-Identifier: GPL-2.0
//
// smc_dbg's sources: the tools run in-process against the kernel (so their
// output is exactly what a user would see), files from /proc, kernel
// messages, and a few system commands.
#include "smc_dbg.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/utsname.h>

#include "smc_pnet.h"
#include "smc_rnics.h"
#include "smc_tool.h"
#include "smcss.h"
#include "text.h"

namespace smc {

namespace fs = std::filesystem;

namespace {

Result<std::string> read_text(const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		return make_error(errno, "cannot read " + path + ": " + std::strerror(errno));
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
}

// Runs one of the tools with the same kernel as smc_dbg itself.
DbgItem tool_item(const std::string &name, ToolMain tool, std::vector<std::string> args, ToolEnv &env)
{
	std::ostringstream out, err;
	ToolEnv sub{out, err, env.netlink, env.ifname, env.state_dir, env.uid, env.version,
		    env.sysfs_root, env.procfs_root};
	int rc = tool(args, sub);
	DbgItem item{name, "", ""};
	std::string cmd;
	for (const auto &a : args)
		cmd += (cmd.empty() ? "" : " ") + a;
	item.content = "$ " + cmd + "\n" + out.str();
	if (!err.str().empty())
		item.content += "--- stderr ---\n" + err.str();
	if (rc != 0) {
		item.content += "--- exit " + std::to_string(rc) + " ---\n";
		std::string first = err.str().substr(0, err.str().find('\n'));
		item.error = "exit " + std::to_string(rc) + (first.empty() ? "" : ": " + first);
	}
	return item;
}

DbgItem command_item(const std::string &name, std::vector<std::string> argv, DbgSystem &sys)
{
	DbgItem item{name, "", ""};
	std::string cmd;
	for (const auto &a : argv)
		cmd += (cmd.empty() ? "" : " ") + a;
	auto r = sys.run(argv);
	if (r) {
		item.content = "$ " + cmd + "\n" + *r;
	} else {
		item.content = "$ " + cmd + "\n" + r.error().message + "\n";
		item.error = r.error().message;
	}
	return item;
}

DbgItem version_item(ToolEnv &env)
{
	DbgItem item{"version.txt", "", ""};
	std::string &c = item.content;
	c += "smc-linux tools " + env.version + "\n";
	utsname u{};
	if (uname(&u) == 0)
		c += std::string("uname: ") + u.sysname + " " + u.nodename + " " + u.release + " " +
		     u.version + " " + u.machine + "\n";
	if (auto v = read_text(env.procfs_root + "/version"))
		c += "/proc/version: " + *v;
	else
		item.error = v.error().message;
	if (auto os = read_text("/etc/os-release"))
		c += "--- /etc/os-release ---\n" + *os;
	return item;
}

DbgItem filtered_proc_item(const std::string &name, const std::string &path,
			   const std::vector<std::string> &words, bool has_header)
{
	DbgItem item{name, "", ""};
	auto text = read_text(path);
	if (!text) {
		item.content = text.error().message + "\n";
		item.error = text.error().message;
		return item;
	}
	// Keep the header line (of /proc/net/protocols) for context.
	std::string first = has_header ? text->substr(0, text->find('\n') + 1) : "";
	item.content = first + lines_mentioning(text->substr(first.size()), words);
	return item;
}

// Every sysctl below net/smc, and the ones the setup guide asks about.
DbgItem sysctl_item(ToolEnv &env)
{
	DbgItem item{"sysctl.txt", "", ""};
	fs::path base = fs::path(env.procfs_root) / "sys";
	std::vector<std::string> keys;
	std::error_code ec;
	fs::path smc = base / "net" / "smc";
	for (fs::recursive_directory_iterator it(smc, ec), end; !ec && it != end; it.increment(ec))
		if (it->is_regular_file())
			keys.push_back(fs::relative(it->path(), base).string());
	if (keys.empty())
		item.error = "no " + smc.string() + " (SMC module not loaded?)";
	std::sort(keys.begin(), keys.end());
	for (const char *k : {"net/core/rmem_max", "net/core/wmem_max", "net/ipv4/tcp_rmem",
			      "net/ipv4/tcp_wmem", "net/ipv6/bindv6only"})
		keys.push_back(k);
	for (const auto &k : keys) {
		std::string dotted = k;
		std::replace(dotted.begin(), dotted.end(), '/', '.');
		auto v = read_text((base / k).string());
		item.content += dotted + " = " + (v ? trim(*v) : "(" + v.error().message + ")") + "\n";
	}
	if (!item.error.empty())
		item.content += "# " + item.error + "\n";
	return item;
}

DbgItem kernel_log_item(DbgSystem &sys)
{
	DbgItem item{"dmesg.txt", "", ""};
	auto log = sys.kernel_log();
	if (!log) {
		item.content = log.error().message + "\n";
		item.error = log.error().message;
		return item;
	}
	item.content = lines_mentioning(*log, {"smc", "rxe", "ism", "rdma"});
	if (item.content.empty())
		item.content = "(no kernel message mentions smc, rxe, ism or rdma)\n";
	return item;
}

} // namespace

std::string lines_mentioning(const std::string &text, const std::vector<std::string> &words)
{
	std::string out;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		std::string lower = line;
		std::transform(lower.begin(), lower.end(), lower.begin(),
			       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
		for (const auto &w : words)
			if (lower.find(w) != std::string::npos) {
				out += line + "\n";
				break;
			}
	}
	return out;
}

std::vector<DbgItem> collect_dbg_items(ToolEnv &env, DbgSystem &sys)
{
	std::vector<DbgItem> v;
	const std::string &proc = env.procfs_root;
	v.push_back(version_item(env));
	v.push_back(filtered_proc_item("modules.txt", proc + "/modules",
				       {"smc", "rxe", "ib_", "rdma", "ism", "mlx", "siw"}, false));
	v.push_back(filtered_proc_item("protocols.txt", proc + "/net/protocols", {"smc"}, true));
	v.push_back(sysctl_item(env));
	v.push_back(kernel_log_item(sys));

	struct ToolRunSpec {
		const char *member;
		ToolMain tool;
		std::vector<std::string> args;
	};
	const ToolRunSpec tools[] = {
		{"smcss-a.txt", smcss_main, {"smcss", "-a"}},
		{"smcss-ad.txt", smcss_main, {"smcss", "-a", "-d", "-W"}},
		{"smcss-aD.txt", smcss_main, {"smcss", "-a", "-D", "-W"}},
		{"smcss-aR.txt", smcss_main, {"smcss", "-a", "-R", "-W"}},
		{"smcss.json", smcss_main, {"smcss", "-a", "-d", "-p"}},
		{"smc_pnet.txt", smc_pnet_main, {"smc_pnet", "-s"}},
		{"smcd-info.txt", smc_main, {"smcd", "info"}},
		{"smcr-device.txt", smc_main, {"smcr", "-d", "device"}},
		{"smcd-device.txt", smc_main, {"smcd", "-d", "device"}},
		{"smcr-linkgroup.txt", smc_main, {"smcr", "-d", "linkgroup"}},
		{"smcr-links.txt", smc_main, {"smcr", "-dd", "linkgroup", "link-show"}},
		{"smcd-linkgroup.txt", smc_main, {"smcd", "-d", "linkgroup"}},
		{"smcr-stats.txt", smc_main, {"smcr", "-d", "stats"}},
		{"smcd-stats.txt", smc_main, {"smcd", "-d", "stats"}},
		{"smcd-ueid.txt", smc_main, {"smcd", "ueid"}},
		{"smcd-seid.txt", smc_main, {"smcd", "seid"}},
		{"smc_rnics.txt", smc_rnics_main, {"smc_rnics"}},
		{"smc_rnics.json", smc_rnics_main, {"smc_rnics", "-p"}},
	};
	for (const auto &t : tools)
		v.push_back(tool_item(t.member, t.tool, t.args, env));

	v.push_back(command_item("ip-addr.txt", {"ip", "-d", "address", "show"}, sys));
	v.push_back(command_item("ip-route.txt", {"ip", "route", "show", "table", "all"}, sys));
	v.push_back(command_item("ip6-route.txt", {"ip", "-6", "route", "show", "table", "all"}, sys));
	v.push_back(command_item("rdma-dev.txt", {"rdma", "-d", "dev", "show"}, sys));
	v.push_back(command_item("rdma-link.txt", {"rdma", "-d", "link", "show"}, sys));
	return v;
}

} // namespace smc
