// SPDX-License-Identifier: GPL-2.0
//
// smcss: options, filters, columns, truncation, text and JSON.
#include <algorithm>

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "diag_builders.h"
#include "fixture.h"
#include "smcss.h"

namespace smc {
namespace {

using namespace smc::test;

// A dump answering the first request with these sockets, in one datagram.
std::vector<nl::Session> dump_of(const std::vector<DiagSock> &socks)
{
	std::vector<Bytes> msgs;
	for (const auto &s : socks)
		msgs.push_back(diag_msg(s, 1));
	msgs.push_back(done_msg(1));
	return {diag_session({{nl::join(msgs)}})};
}

// A mix of every row shape: INIT, LISTEN, CLOSED, TCP fallback with and
// without a peer reason, SMC-R and SMC-D, IPv4 and IPv6, long addresses.
std::vector<DiagSock> mix()
{
	std::vector<DiagSock> v;
	DiagSock init;
	init.state = 2;
	init.inode = 100;
	v.push_back(init);

	DiagSock listen;
	listen.state = 10;
	listen.local = "0.0.0.0";
	listen.peer = "0.0.0.0";
	listen.sport = 80;
	listen.uid = 1000;
	v.push_back(listen);

	DiagSock smcr;
	smcr.uid = 1000;
	smcr.ifindex = 2;
	smcr.conninfo = true;
	smcr.shutdown = 1;
	smcr.lgr = LgrInfo{1, 1, "mlx5_0", 1, "fe80:0000:0000:0000:0000:0000:0a2b:0001",
			   "fe80:0000:0000:0000:0000:0000:0a2b:0002"};
	v.push_back(smcr);

	DiagSock smcd;
	smcd.mode = 2;
	smcd.local = "fd43:1234:5678:9abc:def0:1234:5678:9abc";
	smcd.peer = "fd43::2";
	smcd.sport = 65535;
	smcd.shutdown = 3;
	smcd.conninfo = true;
	smcd.dmb = DmbInfo{0x101, 0x2222, 0x1111, 0xaaaa, 0xbbbb, 0, 0x77};
	v.push_back(smcd);

	DiagSock tcp;
	tcp.mode = 1;
	tcp.fallback = FallbackInfo{0x05000000, 0x03030000};
	tcp.inode = 12345678;
	v.push_back(tcp);

	DiagSock tcp2 = tcp;
	tcp2.fallback = FallbackInfo{0x03010000, 0};
	tcp2.state = 22;
	v.push_back(tcp2);

	DiagSock closed;
	closed.state = 7;
	closed.mode = 1;
	v.push_back(closed);

	DiagSock odd;
	odd.state = 31;		// a state this tool does not know
	odd.mode = 9;
	v.push_back(odd);

	DiagSock no_conn = smcr;	// -d without SMC_DIAG_CONNINFO
	no_conn.conninfo = false;
	no_conn.state = 20;
	v.push_back(no_conn);
	return v;
}

struct Case {
	const char *name;
	std::vector<std::string> args;
};

class SmcssGolden : public ::testing::TestWithParam<Case> {};

TEST_P(SmcssGolden, Output)
{
	auto r = run(GetParam().args, dump_of(mix()));
	expect_golden(GetParam().name, r.transcript());
}

INSTANTIATE_TEST_SUITE_P(
	Mix, SmcssGolden,
	::testing::Values(Case{"smcss_mix_default", {"smcss"}},
			  Case{"smcss_mix_all", {"smcss", "-a"}},
			  Case{"smcss_mix_listening", {"smcss", "--listening"}},
			  Case{"smcss_mix_wide", {"smcss", "-aW"}},
			  Case{"smcss_mix_debug", {"smcss", "-d"}},
			  Case{"smcss_mix_smcr", {"smcss", "-R", "-d"}},
			  Case{"smcss_mix_smcd", {"smcss", "--smcd"}},
			  Case{"smcss_mix_json", {"smcss", "-a", "-j"}},
			  Case{"smcss_mix_smcd_pretty", {"smcss", "-D", "-d", "-p"}}),
	[](const auto &info) { return std::string(info.param.name); });

TEST(Smcss, EndpointTruncation)
{
	EXPECT_EQ(smcss_endpoint("192.168.100.200", 65535, false), "192.168.100.200:65535");
	EXPECT_EQ(smcss_endpoint("fd43:1234:5678::1", 80, false), "fd43:1234:5678::1:80");
	// 23 characters at most; ".." marks the cut.
	std::string cut = smcss_endpoint("fd43:1234:5678:9abc:def0:1234:5678:9abc", 65535, false);
	EXPECT_EQ(cut, "fd43:1234:5678:..:65535");
	EXPECT_EQ(cut.size(), 23u);
	EXPECT_EQ(smcss_endpoint("fd43:1234:5678:9abc:def0:1234:5678:9abc", 1, true),
		  "fd43:1234:5678:9abc:def0:1234:5678:9abc:1");
}

TEST(Smcss, StateNames)
{
	EXPECT_EQ(smc_state_name(1), "ACTIVE");
	EXPECT_EQ(smc_state_name(24), "APPLFINCLW");
	EXPECT_EQ(smc_state_name(25), "PEERFINCLW");
	EXPECT_EQ(smc_state_name(27), "PROCESSABORT");
	EXPECT_EQ(smc_state_name(31), "0x1f?");
}

TEST(Smcss, VersionAndHelp)
{
	auto v = run({"smcss", "-v"}, std::vector<nl::Session>{});
	EXPECT_EQ(v.rc, 0);
	EXPECT_EQ(v.out, "smcss (smc-linux) 9.9\n");
	auto h = run({"smcss", "--help"}, std::vector<nl::Session>{});
	EXPECT_EQ(h.rc, 0);
	EXPECT_NE(h.out.find("--listening"), std::string::npos);
}

TEST(Smcss, UsageErrorsAreOneLine)
{
	for (const auto &args : std::vector<std::vector<std::string>>{
		     {"smcss", "-x"}, {"smcss", "-R", "-D"}, {"smcss", "-l", "-a"}, {"smcss", "-l", "-d"},
		     {"smcss", "-l", "-R"}, {"smcss", "-l", "-D"}, {"smcss", "extra"}, {"smcss", "--wide=1"}}) {
		auto r = run(args, std::vector<nl::Session>{});
		EXPECT_EQ(r.rc, 2) << args[1];
		EXPECT_TRUE(r.out.empty());
		EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
		EXPECT_EQ(r.err.rfind("smcss: ", 0), 0u) << r.err;
	}
}

TEST(Smcss, KernelErrors)
{
	// No sock_diag handler for AF_SMC.
	auto r = run({"smcss"}, {diag_session({{error_msg(1, ENOENT)}})});
	EXPECT_EQ(r.rc, 1);
	EXPECT_EQ(r.err, "smcss: SMC module not loaded (the kernel has no sock_diag handler for "
			 "AF_SMC; is smc_diag loaded?)\n");
	EXPECT_TRUE(r.out.empty());

	// A message cut short in the middle of a dump.
	Bytes cut = diag_msg(DiagSock{}, 1);
	cut.resize(40);
	r = run({"smcss"}, {diag_session({{cut}})});
	EXPECT_EQ(r.rc, 1);
	EXPECT_EQ(r.err.rfind("smcss: truncated netlink message", 0), 0u) << r.err;

	// A socket message too short for struct smc_diag_msg.
	nl::MessageBuilder tiny(SOCK_DIAG_BY_FAMILY, NLM_F_MULTI);
	tiny.raw(Bytes(8, 0));
	r = run({"smcss"}, {diag_session({{nl::join({tiny.finish(1), done_msg(1)})}})});
	EXPECT_EQ(r.rc, 1);
	EXPECT_EQ(r.err, "smcss: truncated AF_SMC sock_diag message (8 bytes)\n");

	// The socket could not be opened at all.
	r = run({"smcss"}, std::vector<nl::Session>{});
	EXPECT_EQ(r.rc, 1);
	EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(Smcss, EmptyTable)
{
	auto r = run({"smcss", "-a"}, dump_of({}));
	EXPECT_EQ(r.rc, 0);
	EXPECT_EQ(r.out, "State          UID   Inode   Local Address           Peer Address            Intf Mode\n");
	r = run({"smcss", "-j"}, dump_of({}));
	EXPECT_EQ(r.out, "[]\n");
}

} // namespace
} // namespace smc
