// SPDX-License-Identifier: GPL-2.0
#include "tool_env.h"

#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>

#include <net/if.h>
#include <unistd.h>

#include "nl_libnl.h"
#include "nl_record.h"

#ifndef SMC_TOOLS_VERSION
#define SMC_TOOLS_VERSION "0"
#endif

namespace smc {

std::string program_name(const std::string &argv0)
{
	auto slash = argv0.rfind('/');
	return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

namespace {

std::string real_ifname(std::uint32_t index)
{
	char buf[IF_NAMESIZE] = "";
	if (index == 0 || !if_indextoname(index, buf))
		return {};
	return buf;
}

std::string real_state_dir(unsigned uid)
{
	// A per-user runtime directory when there is one, else /tmp, where the
	// directory's owner and mode are checked before use (stats_snapshot.cc).
	if (const char *xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && xdg[0] == '/')
		return std::string(xdg) + "/smc-tools";
	return "/tmp/smc-tools-" + std::to_string(uid);
}

} // namespace

int run_tool(ToolMain tool, int argc, char **argv)
{
	std::vector<std::string> args(argv, argv + argc);
	std::string name = args.empty() ? "smc" : program_name(args[0]);
	try {
		nl::LibnlFactory real;
		std::unique_ptr<std::ofstream> record_file;
		std::unique_ptr<nl::RecordingFactory> recorder;
		nl::TransportFactory *factory = &real;
		// Developer aid: SMC_TOOLS_RECORD=FILE writes the netlink
		// conversation for replay in the host tests (nl_record.h).
		if (const char *path = std::getenv("SMC_TOOLS_RECORD"); path && *path) {
			record_file = std::make_unique<std::ofstream>(path, std::ios::app);
			if (!*record_file) {
				std::cerr << name << ": cannot write " << path << '\n';
				return exit_error;
			}
			*record_file << "# " << name;
			for (std::size_t i = 1; i < args.size(); ++i)
				*record_file << ' ' << args[i];
			*record_file << std::endl;
			recorder = std::make_unique<nl::RecordingFactory>(real, *record_file);
			factory = recorder.get();
		}
		unsigned uid = static_cast<unsigned>(getuid());
		ToolEnv env{std::cout, std::cerr, *factory, real_ifname, real_state_dir(uid), uid,
			    SMC_TOOLS_VERSION};
		int rc = tool(args, env);
		std::cout.flush();
		if (!std::cout) {
			std::cerr << name << ": error writing the output\n";
			return exit_error;
		}
		return rc;
	} catch (const std::exception &e) {
		std::cerr << name << ": internal error: " << e.what() << '\n';
	} catch (...) {
		std::cerr << name << ": internal error\n";
	}
	return exit_error;
}

} // namespace smc
