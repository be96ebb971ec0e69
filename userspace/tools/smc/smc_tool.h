// SPDX-License-Identifier: GPL-2.0
//
// smcd and smcr: one program; the technology comes from the name it runs
// under (or --type). Objects (info, device, linkgroup, stats, ueid, seid,
// policy) each live in their own file.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"
#include "smc_genl.h"
#include "table.h"
#include "tool_env.h"

namespace smc {

struct SmcContext {
	SmcContext(ToolEnv &e, std::string p) : env(e), prog(std::move(p)) {}

	ToolEnv &env;
	std::string prog;	// "smcd" or "smcr", for messages
	Tech tech = Tech::smcd;
	int detail = 0;		// -d: 1, -dd: 2
	bool absolute = false;	// -a
	bool json = false;
	bool pretty = false;

	// The SMC_GEN_NETLINK family, opened on first use.
	Result<SmcGenl *> genl();
	// "PROG: message" on stderr; returns exit_error.
	int fail(const Error &e);
	// "PROG: message (see 'PROG OBJECT help')" on stderr; returns exit_usage.
	int usage(std::string_view object, const std::string &message);
	void print_json(const json::Value &v);
	const char *dev_word() const { return tech == Tech::smcd ? "ISM" : "RoCE"; }

private:
	std::optional<SmcGenl> genl_;
};

using Args = std::span<const std::string>;

int smc_main(const std::vector<std::string> &args, ToolEnv &env);

int smc_info(SmcContext &ctx, Args args);
int smc_device(SmcContext &ctx, Args args);
int smc_linkgroup(SmcContext &ctx, Args args);
int smc_stats(SmcContext &ctx, Args args);
int smc_ueid(SmcContext &ctx, Args args);
int smc_seid(SmcContext &ctx, Args args);
int smc_policy(SmcContext &ctx, Args args);

// Each object's help text, for "PROG OBJECT help".
std::string info_help(const SmcContext &ctx);
std::string device_help(const SmcContext &ctx);
std::string linkgroup_help(const SmcContext &ctx);
std::string stats_help(const SmcContext &ctx);
std::string ueid_help(const SmcContext &ctx);
std::string seid_help(const SmcContext &ctx);
std::string policy_help(const SmcContext &ctx);

// Whether an argument asks for help ("help" or any prefix of it, -h, --help).
bool is_help_word(std::string_view arg);

} // namespace smc
