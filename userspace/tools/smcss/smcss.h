// SPDX-License-Identifier: GPL-2.0
//
// smcss: the AF_SMC sockets of the caller's network namespace.
#pragma once

#include <string>
#include <vector>

#include "smc_diag.h"
#include "table.h"
#include "tool_env.h"

namespace smc {

struct SmcssOptions {
	bool all = false;
	bool listening = false;
	bool debug = false;
	bool smcd = false;
	bool smcr = false;
	bool wide = false;
	bool json = false;
	bool pretty = false;
};

int smcss_main(const std::vector<std::string> &args, ToolEnv &env);

// The socket table for a set of options (smcss_table.cc).
Table<SmcSocket> smcss_table(const SmcssOptions &opt);
// Whether a socket is shown under these options.
bool smcss_wanted(const SmcssOptions &opt, const SmcSocket &s);
// "ACTIVE", "LISTEN" ... or "0x1f?" for a state this tool does not know.
std::string smc_state_name(std::uint8_t state);
// "address:port", shortened to 23 characters with ".." unless wide.
std::string smcss_endpoint(const std::string &ip, std::uint16_t port, bool wide);

} // namespace smc
