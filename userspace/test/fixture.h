// SPDX-License-Identifier: GPL-2.0
//
// Helpers for the host tests: canned netlink replies, running a tool against
// them, golden files and scratch directories.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "genl.h"
#include "nl_record.h"
#include "tool_env.h"

namespace smc::test {

// Family ids the canned generic netlink sessions use.
constexpr std::uint16_t gen_family = 30;
constexpr std::uint16_t pnet_family = 31;

using Fill = std::function<void(nl::AttrWriter &)>;

// One generic netlink reply message of a dump (NLM_F_MULTI).
Bytes genl_msg(std::uint16_t family, std::uint8_t cmd, std::uint32_t seq, const Fill &fill);
Bytes done_msg(std::uint32_t seq, int error = 0);
// NLMSG_ERROR with -error (0: an acknowledgement), optionally with an
// extended-ack text.
Bytes error_msg(std::uint32_t seq, int error, const std::string &ext = "");
// Puts a nest of type with fill inside.
void nest(nl::AttrWriter &w, std::uint16_t type, const Fill &fill);

// A session answering request i (from 0) with the datagrams replies[i].
nl::Session genl_session(std::vector<std::vector<Bytes>> replies,
			 std::map<std::string, int, std::less<>> families = {
				 {"SMC_GEN_NETLINK", gen_family}, {"SMC_PNETID", pnet_family}});
nl::Session diag_session(std::vector<std::vector<Bytes>> replies);

struct ToolRun {
	int rc = 0;
	std::string out, err;
	// stdout, then "--- stderr ---" and stderr if any, then "--- exit N ---"
	std::string transcript() const;
};

struct RunOptions {
	std::string state_dir;		// "" : a fresh scratch directory
	std::map<std::uint32_t, std::string> ifnames = {{1, "lo"}, {2, "eth0"}, {3, "eth1"}};
	unsigned uid = 0;
	std::string sysfs_root = "/nonexistent-sysfs";	// tests of real sysfs say so
	std::string procfs_root = "/nonexistent-procfs";
};

// Runs the tool named by args[0] (smcss, smc_pnet, smcd, smcr, smc_rnics) with the
// recording as its kernel.
ToolRun run(const std::vector<std::string> &args, nl::Recording rec, const RunOptions &opt = {});
ToolRun run(const std::vector<std::string> &args, std::vector<nl::Session> sessions,
	    const RunOptions &opt = {});

// Compares text with test/golden/NAME.txt; with SMC_TOOLS_UPDATE_GOLDEN=1
// in the environment it writes the file instead and marks the test skipped
// (it compared nothing; the rest of the test still runs and may fail).
void expect_golden(const std::string &name, const std::string &text);

std::string source_dir();	// userspace/test
std::string read_file(const std::string &path);
std::vector<std::string> split_words(const std::string &line);

class TempDir {
public:
	TempDir();
	~TempDir();
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;
	const std::string &path() const { return path_; }

private:
	std::string path_;
};

} // namespace smc::test
