// SPDX-License-Identifier: GPL-2.0
//
// Everything a tool touches outside its own memory, bundled so that tests
// can run a tool's main logic against canned netlink replies, a fake
// interface table and string streams.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "nl_transport.h"

namespace smc {

struct ToolEnv {
	std::ostream &out;
	std::ostream &err;
	nl::TransportFactory &netlink;
	// Interface name of an ifindex; "" when there is none.
	std::function<std::string(std::uint32_t)> ifname;
	// Where smcd/smcr keep the per-user statistics snapshot (created 0700
	// on first use).
	std::string state_dir;
	unsigned uid = 0;
	std::string version = "0";
	// Where sysfs is mounted; tests point it at a fake tree.
	std::string sysfs_root = "/sys";
	// Where procfs is mounted (smc_dbg reads sysctls, modules, versions).
	std::string procfs_root = "/proc";
};

using ToolMain = int (*)(const std::vector<std::string> &args, ToolEnv &env);

// Exit statuses of all the tools.
constexpr int exit_ok = 0;
constexpr int exit_error = 1;	// the kernel or the system said no
constexpr int exit_usage = 2;	// the command line was wrong

// Runs a tool with the real kernel: args are argv, argv[0] included. Never
// lets an exception escape: it becomes a one-line message and exit_error.
int run_tool(ToolMain tool, int argc, char **argv);

// "smcss" from "/usr/sbin/smcss".
std::string program_name(const std::string &argv0);

} // namespace smc
