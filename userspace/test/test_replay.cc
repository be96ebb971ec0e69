// SPDX-License-Identifier: GPL-2.0
//
// Conversations recorded with Debian's own smc.ko in the test VM (data/*.nlrec,
// made with SMC_TOOLS_RECORD=FILE), replayed: each request a tool sends must
// be the one it sent there, and it must print golden/replay_*.txt. Those
// golden files are this replay's own output, written with
// SMC_TOOLS_UPDATE_GOLDEN=1 and reviewed by hand: the recorder keeps the
// kernel's side only, so what the tool printed in the VM is not on record,
// and this test does not claim to compare with it. Then the same recordings,
// damaged in many ways, must never crash a tool.
#include <algorithm>
#include <filesystem>
#include <iterator>

#include <gtest/gtest.h>

#include "fixture.h"

namespace smc {
namespace {

using namespace smc::test;

std::vector<std::string> recordings()
{
	std::vector<std::string> names;
	for (const auto &e : std::filesystem::directory_iterator(source_dir() + "/data"))
		if (e.path().extension() == ".nlrec")
			names.push_back(e.path().stem().string());
	std::sort(names.begin(), names.end());
	return names;
}

struct Loaded {
	std::vector<std::string> args;	// from the "# PROG ARGS" line the recorder writes
	nl::Recording rec;
};

Loaded load(const std::string &name)
{
	std::string text = read_file(source_dir() + "/data/" + name + ".nlrec");
	Loaded l;
	if (text.rfind("# ", 0) == 0)
		l.args = split_words(text.substr(2, text.find('\n') - 2));
	auto rec = nl::Recording::parse(text);
	EXPECT_TRUE(rec) << name << ": " << (rec ? "" : rec.error().message);
	if (rec)
		l.rec = std::move(*rec);
	return l;
}

// The recordings with at least one datagram from the kernel: the others
// (smcr_no_module: the family is absent) have nothing to damage.
std::vector<std::string> recordings_with_replies()
{
	std::vector<std::string> names;
	for (const auto &name : recordings())
		if (read_file(source_dir() + "/data/" + name + ".nlrec").find("\nrecv ") !=
		    std::string::npos)
			names.push_back(name);
	return names;
}

class Replay : public ::testing::TestWithParam<std::string> {};
class DamagedReplay : public ::testing::TestWithParam<std::string> {};

// A replay error ("request N differs from the recording") ends up in the
// transcript, so a changed request fails this as much as changed output.
TEST_P(Replay, SendsRecordedRequestsAndPrintsReviewedGolden)
{
	auto l = load(GetParam());
	ASSERT_FALSE(l.args.empty()) << "no command line in " << GetParam();
	auto r = run(l.args, l.rec);
	expect_golden("replay_" + GetParam(), "$ " + [&] {
		std::string s;
		for (const auto &a : l.args)
			s += (s.empty() ? "" : " ") + a;
		return s;
	}() + "\n" + r.transcript());
}

// Every received datagram cut short at several points, and with a byte
// changed at several places: exit 0 or 1, at most one line on stderr. Each
// datagram (at least 16 bytes: a netlink header) gives at least 4 cuts and
// 3 changed copies for each of at least 12 places, so fewer than 40 runs per
// datagram means some were never damaged.
TEST_P(DamagedReplay, DamagedRepliesNeverCrash)
{
	auto l = load(GetParam());
	ASSERT_FALSE(l.args.empty());
	std::size_t variants = 0, datagrams = 0;
	for (const auto &sess : l.rec.sessions)
		for (const auto &ex : sess.exchanges)
			datagrams += ex.replies.size();
	ASSERT_GT(datagrams, 0u) << GetParam() << ": no datagram to damage";
	for (std::size_t s = 0; s < l.rec.sessions.size(); ++s) {
		for (std::size_t x = 0; x < l.rec.sessions[s].exchanges.size(); ++x) {
			for (std::size_t d = 0; d < l.rec.sessions[s].exchanges[x].replies.size(); ++d) {
				const Bytes &orig = l.rec.sessions[s].exchanges[x].replies[d];
				std::vector<Bytes> damaged;
				for (std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{17}, orig.size() / 2,
							orig.size() - 1})
					if (cut < orig.size())
						damaged.emplace_back(orig.begin(), orig.begin() + static_cast<long>(cut));
				for (std::size_t at = 0; at < orig.size(); at += 1 + orig.size() / 23) {
					for (std::uint8_t v : {std::uint8_t{0x00}, std::uint8_t{0xff}, std::uint8_t{0x41}}) {
						Bytes b = orig;
						b[at] = v;
						damaged.push_back(std::move(b));
					}
				}
				for (auto &b : damaged) {
					nl::Recording rec = l.rec;
					for (auto &sess : rec.sessions)
						for (auto &ex : sess.exchanges)
							ex.request.reset();
					rec.sessions[s].exchanges[x].replies[d] = std::move(b);
					auto r = run(l.args, rec);
					++variants;
					EXPECT_TRUE(r.rc == 0 || r.rc == 1) << r.transcript();
					EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
				}
			}
		}
	}
	RecordProperty("variants", static_cast<int>(variants));
	EXPECT_GE(variants, 40 * datagrams) << datagrams << " datagrams";
}

// "smcd stats reset" and the "smcd stats" right after it, as recorded: with
// the snapshot the reset left, the second shows zero where the VM did.
TEST(ReplayChain, StatsAfterResetCountFromZero)
{
	TempDir dir;
	RunOptions opt;
	opt.state_dir = dir.path() + "/state";
	auto reset = load("smcd_stats_reset");
	auto after = load("smcd_stats_after_reset");
	auto r1 = run(reset.args, reset.rec, opt);
	EXPECT_EQ(r1.rc, 0) << r1.err;
	EXPECT_NE(r1.out.find("TCP fallback                          4"), std::string::npos) << r1.out;
	auto r2 = run(after.args, after.rec, opt);
	EXPECT_EQ(r2.rc, 0) << r2.err;
	EXPECT_NE(r2.out.find("Total connections handled             0"), std::string::npos) << r2.out;
	EXPECT_NE(r2.out.find("TCP fallback                          0"), std::string::npos) << r2.out;
}

INSTANTIATE_TEST_SUITE_P(Vm, Replay, ::testing::ValuesIn(recordings()),
			 [](const auto &info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Vm, DamagedReplay, ::testing::ValuesIn(recordings_with_replies()),
			 [](const auto &info) { return info.param; });

// The damage test leaves out the recordings without a reply; only the one
// of a kernel without the family may be one of them.
TEST(ReplayData, EveryRecordingButNoModuleHasReplies)
{
	auto all = recordings(), damaged = recordings_with_replies();
	std::vector<std::string> left_out;
	std::set_difference(all.begin(), all.end(), damaged.begin(), damaged.end(),
			    std::back_inserter(left_out));
	EXPECT_EQ(left_out, std::vector<std::string>{"smcr_no_module"});
	EXPECT_GT(damaged.size(), 40u);
}

} // namespace
} // namespace smc
