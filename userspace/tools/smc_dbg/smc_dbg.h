// SPDX-License-Identifier: GPL-2.0
//
// smc_dbg: everything a bug report about SMC needs, in one tarball. Each
// source becomes one member; a source that fails still leaves its member,
// holding the error, and index.txt lists every member with its outcome.
#pragma once

#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "result.h"
#include "tool_env.h"

namespace smc {

// What smc_dbg needs beyond ToolEnv; the host tests replace all of it.
struct DbgSystem {
	// The kernel's message buffer (klogctl), whole.
	std::function<Result<std::string>()> kernel_log;
	// Runs a program (argv[0] looked up in PATH) and returns its output
	// (stdout and stderr), or an error when it cannot run or fails.
	std::function<Result<std::string>(const std::vector<std::string> &argv)> run;
	std::function<std::time_t()> now;
	std::function<std::string()> hostname;
	std::string cwd = ".";
};

// One member of the tarball.
struct DbgItem {
	std::string name;	// "smcss-a.txt"
	std::string content;
	std::string error;	// "" when the source gave what it should
};

DbgSystem real_dbg_system();
int smc_dbg_run(const std::vector<std::string> &args, ToolEnv &env, DbgSystem &sys);
int smc_dbg_main(const std::vector<std::string> &args, ToolEnv &env);

// The sources (dbg_sources.cc), each in the order the tarball holds them.
std::vector<DbgItem> collect_dbg_items(ToolEnv &env, DbgSystem &sys);
// Lines of text that mention one of the words (case-insensitive).
std::string lines_mentioning(const std::string &text, const std::vector<std::string> &words);

} // namespace smc
