// SPDX-License-Identifier: GPL-2.0
//
// smc_pnet: validation, requests, output.
#include <algorithm>

#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>

#include "fixture.h"
#include "smc_pnet.h"

namespace smc {
namespace {

using namespace smc::test;

Bytes entry(std::uint32_t seq, const char *id, const char *eth, const char *ib, std::uint8_t port)
{
	return genl_msg(pnet_family, SMC_PNETID_GET, seq, [=](nl::AttrWriter &w) {
		w.put_str(SMC_PNETID_NAME, id);
		w.put_str(SMC_PNETID_ETHNAME, eth);
		w.put_str(SMC_PNETID_IBNAME, ib);
		w.put_u8(SMC_PNETID_IBPORT, port);
	});
}

std::vector<nl::Session> table()
{
	return {genl_session({{nl::join({entry(1, "NET1", "eth0", "n/a", 255),
					 entry(1, "NET1", "n/a", "mlx5_0", 2), done_msg(1)})}})};
}

TEST(SmcPnet, ShowTextAndJson)
{
	auto r = run({"smc_pnet"}, table());
	EXPECT_EQ(r.transcript(), "NET1 eth0 n/a n/a\nNET1 n/a mlx5_0 2\n--- exit 0 ---\n");
	r = run({"smc_pnet", "--json"}, table());
	EXPECT_EQ(r.out, "[{\"pnetid\":\"NET1\",\"interface\":\"eth0\"},"
			 "{\"pnetid\":\"NET1\",\"ibdevice\":\"mlx5_0\",\"ibport\":2}]\n");
	r = run({"smc_pnet", "-p"}, {genl_session({{done_msg(1)}})});
	EXPECT_EQ(r.transcript(), "[]\n--- exit 0 ---\n");
}

// The request the tool sent, from a recording session that checks it.
TEST(SmcPnet, AddSendsTheEntry)
{
	auto expected = nl::genl_message(pnet_family, SMC_PNETID_ADD, SMCR_GENL_FAMILY_VERSION,
					 NLM_F_REQUEST | NLM_F_ACK);
	auto w = expected.attrs();
	w.put_str(SMC_PNETID_NAME, "NET7");
	w.put_str(SMC_PNETID_ETHNAME, "eth1");
	w.put_str(SMC_PNETID_IBNAME, "rxe0");
	w.put_u8(SMC_PNETID_IBPORT, 2);
	auto s = genl_session({{error_msg(1, 0)}});
	s.exchanges[0].request = expected.finish(1);
	auto r = run({"smc_pnet", "-a", "net7", "-I", "eth1", "--ibdevice=rxe0", "-P2"}, {s});
	EXPECT_EQ(r.transcript(), "--- exit 0 ---\n");

	// Without -P the port is 1; without -D no device attributes at all.
	auto only_eth = nl::genl_message(pnet_family, SMC_PNETID_ADD, SMCR_GENL_FAMILY_VERSION,
					 NLM_F_REQUEST | NLM_F_ACK);
	auto w2 = only_eth.attrs();
	w2.put_str(SMC_PNETID_NAME, "NET7");
	w2.put_str(SMC_PNETID_ETHNAME, "eth1");
	s.exchanges[0].request = only_eth.finish(1);
	r = run({"smc_pnet", "--add", "NET7", "--interface", "eth1"}, {s});
	EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(SmcPnet, KernelAnswers)
{
	auto r = run({"smc_pnet", "-a", "N", "-I", "eth0"}, {genl_session({{error_msg(1, EEXIST)}})});
	EXPECT_EQ(r.transcript(), "--- stderr ---\nsmc_pnet: the interface or device already belongs to "
				  "a PNET ID (File exists)\n--- exit 1 ---\n");
	r = run({"smc_pnet", "-d", "N"}, {genl_session({{error_msg(1, ENOENT)}})});
	EXPECT_EQ(r.err, "smc_pnet: PNET ID N is not defined\n");
	r = run({"smc_pnet", "-f"}, {genl_session({{error_msg(1, ENOENT)}})});
	EXPECT_EQ(r.rc, 0) << "flushing an empty table is fine";
	r = run({"smc_pnet", "-f"}, {genl_session({{error_msg(1, EPERM)}})});
	EXPECT_EQ(r.err, "smc_pnet: permission denied: needs CAP_NET_ADMIN\n");
	r = run({"smc_pnet"}, {genl_session({}, {})});
	EXPECT_EQ(r.err, "smc_pnet: SMC module not loaded (the kernel has no generic netlink family "
			 "SMC_PNETID)\n");
	EXPECT_EQ(r.rc, 1);
}

TEST(SmcPnet, UsageErrors)
{
	std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
		{{"smc_pnet", "NET1"}, "a PNET ID needs --add, --delete or --show"},
		{{"smc_pnet", "-a", "NET1"}, "--add needs --interface and/or --ibdevice"},
		{{"smc_pnet", "-a", "-I", "eth0"}, "--add needs a PNET ID"},
		{{"smc_pnet", "-d"}, "--delete needs a PNET ID"},
		{{"smc_pnet", "-a", "-d", "X"}, "--add and --delete exclude each other"},
		{{"smc_pnet", "-f", "X"}, "--flush takes no PNET ID"},
		{{"smc_pnet", "-s", "X", "Y"}, "too many arguments ('Y')"},
		{{"smc_pnet", "-d", "X", "-I", "eth0"}, "--interface, --ibdevice and --ibport only go with --add"},
		{{"smc_pnet", "-a", "X", "-I", "eth0", "-P", "1"}, "--ibport needs --ibdevice"},
		{{"smc_pnet", "-a", "X", "-D", "d", "-P", "3"}, "invalid port '3': use 1 or 2"},
		{{"smc_pnet", "-a", "X", "-D", "d", "-P", "01"}, "invalid port '01': use 1 or 2"},
		{{"smc_pnet", "-a", "NET-1", "-I", "eth0"}, "the PNET ID 'NET-1' may hold only letters and digits"},
		{{"smc_pnet", "-a", "ABCDEFGHIJKLMNOPQ", "-I", "e"},
		 "the PNET ID 'ABCDEFGHIJKLMNOPQ' is longer than 16 characters"},
		{{"smc_pnet", "-a", "X", "-I", "averyveryverylongname"},
		 "interface name 'averyveryverylongname' is longer than 15 characters"},
		{{"smc_pnet", "-I"}, "option '-I' needs an argument"},
		{{"smc_pnet", "-q"}, "unknown option '-q'"},
	};
	for (const auto &[args, msg] : cases) {
		auto r = run(args, std::vector<nl::Session>{});
		EXPECT_EQ(r.rc, 2) << msg;
		EXPECT_EQ(r.err, "smc_pnet: " + msg + " (see smc_pnet --help)\n");
		EXPECT_TRUE(r.out.empty());
	}
}

TEST(SmcPnet, VersionAndHelp)
{
	auto r = run({"smc_pnet", "--version"}, std::vector<nl::Session>{});
	EXPECT_EQ(r.out, "smc_pnet (smc-linux) 9.9\n");
	r = run({"smc_pnet", "-h"}, std::vector<nl::Session>{});
	EXPECT_EQ(r.rc, 0);
	EXPECT_NE(r.out.find("--ibport"), std::string::npos);
}

} // namespace
} // namespace smc
