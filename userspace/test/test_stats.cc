// SPDX-License-Identifier: GPL-2.0
//
// smcd/smcr stats: text and JSON, the per-user reset snapshot and its
// defences (private directory, no symlinks, atomic replacement).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <linux/smc.h>
#include <smc/af_smc.h>

#include "fixture.h"
#include "stats_snapshot.h"

namespace smc {
namespace {

using namespace smc::test;

// Counters with every field set to something recognisable.
Stats sample(std::uint64_t scale)
{
	Stats s;
	std::uint64_t n = 1;
	for_each_counter(s.smcd, [&](const std::string &, std::uint64_t &v) { v = scale * n++; });
	n = 1;
	for_each_counter(s.smcr, [&](const std::string &, std::uint64_t &v) { v = scale * 1000 * n++; });
	s.clnt_hs_err = 2 * scale;
	s.srv_hs_err = 3 * scale;
	s.clnt_fallback = 10 * scale;
	s.srv_fallback = 20 * scale;
	s.srv_reasons = {{0x05000000, 12 * scale}, {0x03030000, 5 * scale}, {0x03010000, 2 * scale},
			 {0x09990000, 1 * scale}};
	s.clnt_reasons = {{0x03030002, 10 * scale}};
	// Levels, SMC-D's only: SMC-R's are absent, as from a 6.1 kernel. The
	// TX level needs 8 bytes, the RX one fits the 4-byte form.
	s.smcd.rx_buf_use = 3 * 65536 * scale;
	s.smcd.tx_buf_use = (5ULL << 32) + scale;
	return s;
}

void put_hist(nl::AttrWriter &w, std::uint16_t type, const SizeHistogram &h)
{
	nest(w, type, [&](nl::AttrWriter &n) {
		for (std::size_t i = 0; i < h.size(); ++i)
			n.put_u64(static_cast<std::uint16_t>(SMC_NLA_STATS_PLOAD_8K + i), h[i]);
	});
}

void put_bufs(nl::AttrWriter &w, std::uint16_t type, const BufferStats &b)
{
	nest(w, type, [&](nl::AttrWriter &n) {
		n.put_u64(SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT, b.size_small_peer);
		n.put_u64(SMC_NLA_STATS_RMB_SIZE_SM_CNT, b.size_small);
		n.put_u64(SMC_NLA_STATS_RMB_FULL_PEER_CNT, b.full_peer);
		n.put_u64(SMC_NLA_STATS_RMB_FULL_CNT, b.full);
		n.put_u64(SMC_NLA_STATS_RMB_REUSE_CNT, b.reuse);
		n.put_u64(SMC_NLA_STATS_RMB_ALLOC_CNT, b.alloc);
		n.put_u64(SMC_NLA_STATS_RMB_DGRADE_CNT, b.downgrade);
	});
}

void put_tech(nl::AttrWriter &w, std::uint16_t type, const TechStats &t)
{
	nest(w, type, [&](nl::AttrWriter &n) {
		put_hist(n, SMC_NLA_STATS_T_TX_RMB_SIZE, t.tx_buf_size);
		put_hist(n, SMC_NLA_STATS_T_RX_RMB_SIZE, t.rx_buf_size);
		put_hist(n, SMC_NLA_STATS_T_TXPLOAD_SIZE, t.tx_req_size);
		put_hist(n, SMC_NLA_STATS_T_RXPLOAD_SIZE, t.rx_req_size);
		put_bufs(n, SMC_NLA_STATS_T_TX_RMB_STATS, t.tx_buf);
		put_bufs(n, SMC_NLA_STATS_T_RX_RMB_STATS, t.rx_buf);
		n.put_u64(SMC_NLA_STATS_T_CLNT_V1_SUCC, t.clnt_v1_succ);
		n.put_u64(SMC_NLA_STATS_T_CLNT_V2_SUCC, t.clnt_v2_succ);
		n.put_u64(SMC_NLA_STATS_T_SRV_V1_SUCC, t.srv_v1_succ);
		n.put_u64(SMC_NLA_STATS_T_SRV_V2_SUCC, t.srv_v2_succ);
		n.put_u64(SMC_NLA_STATS_T_SENDPAGE_CNT, t.sendpage);
		n.put_u64(SMC_NLA_STATS_T_SPLICE_CNT, t.splice);
		n.put_u64(SMC_NLA_STATS_T_CORK_CNT, t.cork);
		n.put_u64(SMC_NLA_STATS_T_NDLY_CNT, t.nodelay);
		n.put_u64(SMC_NLA_STATS_T_URG_DATA_CNT, t.urg_data);
		n.put_u64(SMC_NLA_STATS_T_RX_BYTES, t.rx_bytes);
		n.put_u64(SMC_NLA_STATS_T_TX_BYTES, t.tx_bytes);
		n.put_u64(SMC_NLA_STATS_T_RX_CNT, t.rx_cnt);
		n.put_u64(SMC_NLA_STATS_T_TX_CNT, t.tx_cnt);
		// "uint": 4 bytes while the value fits, as the kernel sends it.
		for (auto [type, v] : {std::pair{SMC_NLA_STATS_T_RX_RMB_USAGE, t.rx_buf_use},
				       std::pair{SMC_NLA_STATS_T_TX_RMB_USAGE, t.tx_buf_use}}) {
			if (v && *v <= 0xffffffffULL)
				n.put_u32(static_cast<std::uint16_t>(type), static_cast<std::uint32_t>(*v));
			else if (v)
				n.put_u64(static_cast<std::uint16_t>(type), *v);
		}
	});
}

// The dumps "stats" asks for: fallback reasons (seq 1), counters (seq 2),
// and for smcr af_smc's link failovers (seq 3): s.links, or without them
// EOPNOTSUPP, as from a kernel without the command.
nl::Session stats_session(const Stats &s)
{
	std::vector<Bytes> fb;
	bool first = true;
	auto reason = [&](bool srv, const FallbackReason &r) {
		fb.push_back(genl_msg(gen_family, SMC_NETLINK_GET_FBACK_STATS, 1, [&](nl::AttrWriter &w) {
			nest(w, SMC_GEN_FBACK_STATS, [&](nl::AttrWriter &f) {
				f.put_u8(SMC_NLA_FBACK_STATS_TYPE, srv);
				if (first) {
					f.put_u64(SMC_NLA_FBACK_STATS_SRV_CNT, s.srv_fallback);
					f.put_u64(SMC_NLA_FBACK_STATS_CLNT_CNT, s.clnt_fallback);
					first = false;
				}
				f.put_u32(SMC_NLA_FBACK_STATS_RSN_CODE, r.code);
				f.put_u16(SMC_NLA_FBACK_STATS_RSN_CNT, static_cast<std::uint16_t>(r.count));
			});
		}));
	};
	for (const auto &r : s.srv_reasons)
		reason(true, r);
	for (const auto &r : s.clnt_reasons)
		reason(false, r);
	fb.push_back(done_msg(1));
	Bytes st = genl_msg(gen_family, SMC_NETLINK_GET_STATS, 2, [&](nl::AttrWriter &w) {
		nest(w, SMC_GEN_STATS, [&](nl::AttrWriter &n) {
			put_tech(n, SMC_NLA_STATS_SMCD_TECH, s.smcd);
			put_tech(n, SMC_NLA_STATS_SMCR_TECH, s.smcr);
			n.put_u64(SMC_NLA_STATS_CLNT_HS_ERR_CNT, s.clnt_hs_err);
			n.put_u64(SMC_NLA_STATS_SRV_HS_ERR_CNT, s.srv_hs_err);
		});
	});
	std::vector<Bytes> links;
	if (s.links) {
		links.push_back(genl_msg(gen_family, SMC_NETLINK_GET_LINK_STATS, 3, [&](nl::AttrWriter &w) {
			w.put_u64(SMC_NLA_LINK_STATS_FAILOVERS, s.links->failovers);
			w.put_u64(SMC_NLA_LINK_STATS_RESENT, s.links->resent);
		}));
		links.push_back(done_msg(3));
	} else {
		links.push_back(error_msg(3, EOPNOTSUPP));
	}
	return genl_session({{nl::join(fb)}, {nl::join({st, done_msg(2)})}, {nl::join(links)}});
}

// sample() with SMC-R's failover counters, as af_smc reports them.
Stats with_links(std::uint64_t scale)
{
	Stats s = sample(scale);
	s.links = LinkStats{4 * scale, 196625 * scale};
	return s;
}

struct Case {
	const char *name;
	std::vector<std::string> args;
	bool links = false;	// the kernel answers the link failover dump
};

class StatsGolden : public ::testing::TestWithParam<Case> {};

TEST_P(StatsGolden, Output)
{
	auto r = run(GetParam().args, {stats_session(GetParam().links ? with_links(7) : sample(7))});
	expect_golden(GetParam().name, r.transcript());
}

INSTANTIATE_TEST_SUITE_P(
	Sample, StatsGolden,
	::testing::Values(Case{"smcd_stats", {"smcd", "stats"}},
			  Case{"smcd_stats_details", {"smcd", "-d", "stats", "show"}},
			  Case{"smcr_stats_details", {"smcr", "-da", "st"}},
			  Case{"smcd_stats_json", {"smcd", "stats", "json"}},
			  Case{"smcr_stats_pretty", {"smcr", "-p", "stats"}},
			  // af_smc's failover counters: with -d and in JSON only,
			  // and never for smcd (which does not ask for them).
			  Case{"smcr_stats_links", {"smcr", "stats"}, true},
			  Case{"smcr_stats_links_details", {"smcr", "-d", "stats"}, true},
			  Case{"smcr_stats_links_json", {"smcr", "stats", "json"}, true},
			  Case{"smcd_stats_links_details", {"smcd", "-d", "stats"}, true}),
	[](const auto &info) { return std::string(info.param.name); });

TEST(Snapshot, RoundTrip)
{
	Stats s = sample(3);
	auto text = serialize_snapshot(s, Tech::smcr);
	auto back = parse_snapshot(text, Tech::smcr);
	ASSERT_TRUE(back) << back.error().message;
	EXPECT_EQ(serialize_snapshot(*back, Tech::smcr), text);
	EXPECT_FALSE(parse_snapshot(text, Tech::smcd));
	EXPECT_FALSE(parse_snapshot("", Tech::smcd));
	EXPECT_FALSE(parse_snapshot(serialize_snapshot(s, Tech::smcd) + "SMC_TX_CNT x\n", Tech::smcd));
	EXPECT_FALSE(parse_snapshot(serialize_snapshot(s, Tech::smcd) + "srv_reason 0xzz 1\n", Tech::smcd));
	// Unknown counters (a newer format) are ignored, missing ones are 0.
	auto sparse = parse_snapshot("smc-linux stats snapshot 1\ntech smcd\nSMC_TX_CNT 5\nNEW_THING 9\n",
				     Tech::smcd);
	ASSERT_TRUE(sparse);
	EXPECT_EQ(sparse->smcd.tx_cnt, 5u);
	EXPECT_EQ(sparse->smcd.rx_cnt, 0u);
}

TEST(Snapshot, LinkCountersRoundTripAndSubtract)
{
	Stats s = with_links(3);
	auto text = serialize_snapshot(s, Tech::smcr);
	EXPECT_NE(text.find("SMC_LINK_FAILOVER_CNT 12\n"), std::string::npos) << text;
	auto back = parse_snapshot(text, Tech::smcr);
	ASSERT_TRUE(back) << back.error().message;
	ASSERT_TRUE(back->links);
	EXPECT_EQ(back->links->failovers, 12u);
	EXPECT_EQ(back->links->resent, 3u * 196625);
	// SMC-D's snapshot has none; an SMC-R one of a kernel without them neither.
	EXPECT_EQ(serialize_snapshot(s, Tech::smcd).find("SMC_LINK_"), std::string::npos);
	auto plain = parse_snapshot(serialize_snapshot(sample(3), Tech::smcr), Tech::smcr);
	ASSERT_TRUE(plain);
	EXPECT_FALSE(plain->links);

	auto d = subtract_snapshot(with_links(5), with_links(2), Tech::smcr);
	ASSERT_TRUE(d);
	ASSERT_TRUE(d->links);
	EXPECT_EQ(d->links->failovers, 12u);
	EXPECT_EQ(d->links->resent, 3u * 196625);
	// A snapshot without them (older, or of another kernel) counts as 0.
	auto from_plain = subtract_snapshot(with_links(5), sample(2), Tech::smcr);
	ASSERT_TRUE(from_plain);
	EXPECT_EQ(from_plain->links->failovers, 20u);
	// Fewer failovers than the snapshot: the module was reloaded.
	Stats fewer = with_links(5);
	fewer.links->failovers = 1;
	EXPECT_FALSE(subtract_snapshot(fewer, with_links(2), Tech::smcr));
	// Now without them (another kernel): nothing to subtract, none shown.
	auto none = subtract_snapshot(sample(5), with_links(2), Tech::smcr);
	ASSERT_TRUE(none);
	EXPECT_FALSE(none->links);
}

TEST(Snapshot, SubtractAndDetectReload)
{
	Stats now = sample(5), then = sample(2);
	auto d = subtract_snapshot(now, then, Tech::smcd);
	ASSERT_TRUE(d);
	EXPECT_EQ(d->smcd.tx_cnt, now.smcd.tx_cnt - then.smcd.tx_cnt);
	EXPECT_EQ(d->smcr.tx_cnt, now.smcr.tx_cnt);	// the other technology is untouched
	// Buffer usage is a level: shown as it is now, never minus the snapshot.
	EXPECT_EQ(d->smcd.rx_buf_use, now.smcd.rx_buf_use);
	EXPECT_EQ(d->smcd.tx_buf_use, now.smcd.tx_buf_use);
	EXPECT_EQ(d->srv_fallback, 60u);
	EXPECT_EQ(d->srv_reasons[0].count, 36u);
	EXPECT_FALSE(subtract_snapshot(then, now, Tech::smcd));	// went backwards: reloaded
	Stats gone = now;
	gone.clnt_reasons.clear();
	EXPECT_FALSE(subtract_snapshot(gone, then, Tech::smcd));
	// Reasons that did not grow since the snapshot disappear from the list.
	auto same = subtract_snapshot(now, now, Tech::smcd);
	ASSERT_TRUE(same);
	EXPECT_TRUE(same->srv_reasons.empty());
}

TEST(Snapshot, ResetThenShowCountsFromTheReset)
{
	TempDir dir;
	RunOptions opt;
	opt.state_dir = dir.path() + "/state";
	auto reset = run({"smcd", "stats", "reset"}, {stats_session(sample(2))}, opt);
	EXPECT_EQ(reset.rc, 0) << reset.err;
	struct stat st{};
	ASSERT_EQ(stat(opt.state_dir.c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0700u);
	ASSERT_EQ(stat((opt.state_dir + "/stats-smcd").c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0600u);

	auto after = run({"smcd", "stats"}, {stats_session(sample(5))}, opt);
	auto expected = run({"smcd", "stats"}, {stats_session(*subtract_snapshot(sample(5), sample(2), Tech::smcd))});
	EXPECT_EQ(after.transcript(), expected.transcript());
	// -a ignores the snapshot; smcr has none of its own.
	auto abs = run({"smcd", "-a", "stats"}, {stats_session(sample(5))}, opt);
	auto plain = run({"smcd", "stats"}, {stats_session(sample(5))});
	EXPECT_EQ(abs.transcript(), plain.transcript());
	auto r = run({"smcr", "stats"}, {stats_session(sample(5))}, opt);
	auto r_plain = run({"smcr", "stats"}, {stats_session(sample(5))});
	EXPECT_EQ(r.transcript(), r_plain.transcript());

	// After a module reload the counters are below the snapshot: it is dropped.
	auto reloaded = run({"smcd", "stats"}, {stats_session(sample(1))}, opt);
	auto fresh = run({"smcd", "stats"}, {stats_session(sample(1))});
	EXPECT_EQ(reloaded.transcript(), fresh.transcript());
	EXPECT_FALSE(std::filesystem::exists(opt.state_dir + "/stats-smcd"));
}

TEST(Snapshot, DamagedSnapshotIsIgnoredWithAWarning)
{
	TempDir dir;
	RunOptions opt;
	opt.state_dir = dir.path() + "/state";
	ASSERT_EQ(mkdir(opt.state_dir.c_str(), 0700), 0);
	std::ofstream(opt.state_dir + "/stats-smcd") << "garbage\n";
	auto r = run({"smcd", "stats"}, {stats_session(sample(1))}, opt);
	EXPECT_EQ(r.rc, 0);
	EXPECT_EQ(r.err, "smcd: ignoring " + opt.state_dir +
				 "/stats-smcd: damaged statistics snapshot: unknown format\n");
}

TEST(Snapshot, RefusesDirectoriesThatAreNotPrivate)
{
	TempDir dir;
	SnapshotStore open_dir(dir.path() + "/shared", static_cast<unsigned>(getuid()));
	ASSERT_EQ(mkdir((dir.path() + "/shared").c_str(), 0755), 0);
	auto r = open_dir.save(Tech::smcd, sample(1));
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().code, EPERM);

	// A symbolic link planted where the directory should be is not followed.
	ASSERT_EQ(mkdir((dir.path() + "/target").c_str(), 0700), 0);
	ASSERT_EQ(symlink((dir.path() + "/target").c_str(), (dir.path() + "/link").c_str()), 0);
	SnapshotStore via_link(dir.path() + "/link", static_cast<unsigned>(getuid()));
	EXPECT_FALSE(via_link.save(Tech::smcd, sample(1)));
	EXPECT_FALSE(via_link.load(Tech::smcd));
	EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/target"));

	// Someone else's directory.
	SnapshotStore other(dir.path() + "/target", static_cast<unsigned>(getuid()) + 1);
	EXPECT_FALSE(other.save(Tech::smcd, sample(1)));
}

TEST(Snapshot, SymlinkedSnapshotFileIsNeitherReadNorOverwritten)
{
	TempDir dir;
	std::string state = dir.path() + "/state";
	ASSERT_EQ(mkdir(state.c_str(), 0700), 0);
	std::string victim = dir.path() + "/victim";
	std::ofstream(victim) << "precious\n";
	ASSERT_EQ(symlink(victim.c_str(), (state + "/stats-smcd").c_str()), 0);
	SnapshotStore store(state, static_cast<unsigned>(getuid()));
	EXPECT_FALSE(store.load(Tech::smcd));
	// Saving replaces the link itself (rename), never writes through it.
	ASSERT_TRUE(store.save(Tech::smcd, sample(1)));
	EXPECT_EQ(read_file(victim), "precious\n");
	EXPECT_FALSE(std::filesystem::is_symlink(state + "/stats-smcd"));
	auto back = store.load(Tech::smcd);
	ASSERT_TRUE(back);
	ASSERT_TRUE(*back);
}

TEST(Snapshot, ConcurrentResetsLeaveOneWholeSnapshot)
{
	TempDir dir;
	std::string state = dir.path() + "/state";
	std::vector<pid_t> kids;
	for (int k = 0; k < 8; ++k) {
		pid_t p = fork();
		ASSERT_GE(p, 0);
		if (p == 0) {
			SnapshotStore store(state, static_cast<unsigned>(getuid()));
			for (int i = 0; i < 50; ++i) {
				if (!store.save(Tech::smcd, sample(static_cast<std::uint64_t>(k + 1))))
					_exit(1);
				auto l = store.load(Tech::smcd);
				if (!l || !*l)
					_exit(2);
			}
			_exit(0);
		}
		kids.push_back(p);
	}
	for (pid_t p : kids) {
		int status = 0;
		ASSERT_EQ(waitpid(p, &status, 0), p);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
	}
	SnapshotStore store(state, static_cast<unsigned>(getuid()));
	auto l = store.load(Tech::smcd);
	ASSERT_TRUE(l);
	ASSERT_TRUE(*l);
	// No leftover temporary files.
	int files = 0;
	for (const auto &e : std::filesystem::directory_iterator(state)) {
		(void)e;
		++files;
	}
	EXPECT_EQ(files, 1);
}

} // namespace
} // namespace smc
