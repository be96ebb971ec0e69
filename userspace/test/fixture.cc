// SPDX-License-Identifier: GPL-2.0
#include "fixture.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "smc_pnet.h"
#include "smc_tool.h"
#include "smc_rnics.h"
#include "smcss.h"

namespace smc::test {

Bytes genl_msg(std::uint16_t family, std::uint8_t cmd, std::uint32_t seq, const Fill &fill)
{
	auto b = nl::genl_message(family, cmd, 1, NLM_F_MULTI);
	if (fill) {
		auto w = b.attrs();
		fill(w);
	}
	return b.finish(seq, 1234);
}

Bytes done_msg(std::uint32_t seq, int error)
{
	nl::MessageBuilder b(NLMSG_DONE, NLM_F_MULTI);
	b.header(error);
	return b.finish(seq, 1234);
}

Bytes error_msg(std::uint32_t seq, int error, const std::string &ext)
{
	nl::MessageBuilder b(NLMSG_ERROR, ext.empty() ? 0 : NLM_F_CAPPED | NLM_F_ACK_TLVS);
	nlmsgerr e{};
	e.error = -error;
	e.msg.nlmsg_len = sizeof(nlmsghdr) + 4;
	e.msg.nlmsg_seq = seq;
	b.header(e);
	if (!ext.empty())
		b.attrs().put_str(NLMSGERR_ATTR_MSG, ext);
	return b.finish(seq, 1234);
}

void nest(nl::AttrWriter &w, std::uint16_t type, const Fill &fill)
{
	auto h = w.begin_nest(type);
	fill(w);
	w.end_nest(h);
}

namespace {

nl::Session session(nl::Protocol p, std::vector<std::vector<Bytes>> replies,
		    std::map<std::string, int, std::less<>> families)
{
	nl::Session s;
	s.protocol = p;
	s.families = std::move(families);
	for (auto &r : replies)
		s.exchanges.push_back(nl::Exchange{std::nullopt, std::move(r)});
	return s;
}

} // namespace

nl::Session genl_session(std::vector<std::vector<Bytes>> replies,
			 std::map<std::string, int, std::less<>> families)
{
	return session(nl::Protocol::generic, std::move(replies), std::move(families));
}

nl::Session diag_session(std::vector<std::vector<Bytes>> replies)
{
	return session(nl::Protocol::sock_diag, std::move(replies), {});
}

std::string ToolRun::transcript() const
{
	std::string t = out;
	if (!err.empty())
		t += "--- stderr ---\n" + err;
	t += "--- exit " + std::to_string(rc) + " ---\n";
	return t;
}

ToolRun run(const std::vector<std::string> &args, nl::Recording rec, const RunOptions &opt)
{
	TempDir scratch;
	nl::ReplayFactory factory(std::move(rec));
	std::ostringstream out, err;
	auto names = opt.ifnames;
	ToolEnv env{out, err, factory,
		    [names](std::uint32_t i) {
			    auto it = names.find(i);
			    return it == names.end() ? std::string() : it->second;
		    },
		    opt.state_dir.empty() ? scratch.path() + "/state" : opt.state_dir, opt.uid, "9.9"};
	if (!opt.uid)
		env.uid = static_cast<unsigned>(getuid());
	env.sysfs_root = opt.sysfs_root;
	env.procfs_root = opt.procfs_root;
	ToolMain tool = smc_main;
	std::string prog = args.empty() ? "" : program_name(args[0]);
	if (prog == "smcss")
		tool = smcss_main;
	else if (prog == "smc_pnet")
		tool = smc_pnet_main;
	else if (prog == "smc_rnics")
		tool = smc_rnics_main;
	ToolRun r;
	r.rc = tool(args, env);
	r.out = out.str();
	r.err = err.str();
	return r;
}

ToolRun run(const std::vector<std::string> &args, std::vector<nl::Session> sessions,
	    const RunOptions &opt)
{
	nl::Recording rec;
	rec.sessions = std::move(sessions);
	return run(args, std::move(rec), opt);
}

std::string source_dir() { return SMC_TOOLS_TEST_DIR; }

std::string read_file(const std::string &path)
{
	std::ifstream in(path);
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
}

std::vector<std::string> split_words(const std::string &line)
{
	std::istringstream in(line);
	std::vector<std::string> words;
	for (std::string w; in >> w;)
		words.push_back(w);
	return words;
}

void expect_golden(const std::string &name, const std::string &text)
{
	std::string path = source_dir() + "/golden/" + name + ".txt";
	const char *update = std::getenv("SMC_TOOLS_UPDATE_GOLDEN");
	if (update && std::string(update) == "1") {
		std::ofstream(path) << text;
		// Nothing was compared: the run must not read as a pass.
		GTEST_SKIP() << "SMC_TOOLS_UPDATE_GOLDEN=1: wrote " << path
			     << " without comparing (review the diff)";
	}
	ASSERT_TRUE(std::filesystem::exists(path)) << "no golden file " << path
						   << " (SMC_TOOLS_UPDATE_GOLDEN=1 writes it)";
	EXPECT_EQ(read_file(path), text) << "differs from " << path;
}

TempDir::TempDir()
{
	std::string tmpl = (std::filesystem::temp_directory_path() / "smc-tools-test.XXXXXX").string();
	char *p = mkdtemp(tmpl.data());
	if (!p)
		throw std::runtime_error("mkdtemp failed");
	path_ = p;
}

TempDir::~TempDir()
{
	std::error_code ec;
	std::filesystem::remove_all(path_, ec);
}

} // namespace smc::test
